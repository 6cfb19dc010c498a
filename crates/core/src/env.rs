//! The environment a stdio server starts with: a small inherited base plus what it declares,
//! never the variables that let one hijack a language runtime.

/// Inherited from the gateway's own environment when set (documented in docs/configuration.md).
pub const BASE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "TERM",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "XDG_RUNTIME_DIR",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
];

/// Variables that load code into a runtime or change how it starts; refused unless the operator
/// allows them by name.
pub const HIJACKING_ENV: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "LD_DEBUG",
    "GCONV_PATH",
    "MALLOC_CHECK_",
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_REPL_EXTERNAL_MODULE",
    "NPM_CONFIG_PREFIX",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "PYTHONUSERBASE",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "CLASSPATH",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "PS4",
    "IFS",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "DOTNET_STARTUP_HOOKS",
    "CORECLR_PROFILER",
];

/// Whether `name` may be set for a stdio server given the operator's `allow_env`.
pub fn is_refused(name: &str, allowed: &[String]) -> bool {
    let hijacking = HIJACKING_ENV.contains(&name) || name.starts_with("DYLD_");
    is_gateways_own(name) || (hijacking && !allowed.iter().any(|a| a == name))
}

/// Variables the gateway sets for its sandbox helper and sandboxed servers (the plan, the
/// process id): an entry, or an end user's secret, may never set them, whatever `allow_env` says.
pub fn is_gateways_own(name: &str) -> bool {
    name.starts_with("SWITCHBOARD_SANDBOX_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_hijacking_variables_are_refused_unless_allowed() {
        assert!(is_refused("LD_PRELOAD", &[]));
        assert!(is_refused("DYLD_INSERT_LIBRARIES", &[]));
        assert!(is_refused("NODE_OPTIONS", &[]));
        assert!(!is_refused("NODE_OPTIONS", &["NODE_OPTIONS".into()]));
        assert!(!is_refused("GITHUB_TOKEN", &[]));
        let own = "SWITCHBOARD_SANDBOX_PLAN";
        assert!(is_refused(own, &[own.into()]), "never allowed");
    }
}
