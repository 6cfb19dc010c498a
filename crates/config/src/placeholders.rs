//! `{env:VAR}`, `${VAR}`, `${VAR:-default}`, `${env:VAR}`, `${input:ID}`, `${workspaceRoot}` and
//! `${userHome}` substitution, strict about bad names.

use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlaceholderError {
    /// Placeholder-shaped but not a variable name, e.g. `{env:ctx7sk-abc}` (often a pasted secret).
    InvalidName(String),
    Unset(String),
    /// A VS Code `${input:ID}` with no value: (id, the variable that would give it).
    MissingInput(String, String),
}

/// The variable that gives VS Code input `id`: `gh-token` → `SWITCHBOARD_INPUT_GH_TOKEN`.
pub fn input_variable(id: &str) -> String {
    let upper: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("SWITCHBOARD_INPUT_{upper}")
}

/// Every `${input:ID}` id in `text` (valid ids only; bad ones are reported when loading).
pub(crate) fn input_ids(text: &str) -> Vec<String> {
    text.match_indices("${input:")
        .filter_map(|(at, m)| {
            let rest = &text[at + m.len()..];
            let id = &rest[..rest.find('}')?];
            is_input_id(id).then(|| id.to_string())
        })
        .collect()
}

fn is_input_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl PlaceholderError {
    pub(crate) fn message(&self) -> String {
        match self {
            PlaceholderError::InvalidName(p) => {
                format!("{p} looks like a placeholder but does not name a valid variable")
            }
            PlaceholderError::Unset(var) => {
                format!("environment variable {var} is not set")
            }
            PlaceholderError::MissingInput(id, _) => {
                format!("input {id:?} (${{input:{id}}}) has no value")
            }
        }
    }

    pub(crate) fn fix(&self) -> String {
        match self {
            PlaceholderError::InvalidName(_) => "write {env:NAME} or ${NAME} with NAME made of letters, digits and '_' (not starting with a digit); put secret values in the environment, not in the file".into(),
            PlaceholderError::Unset(var) => format!("export {var}=... before starting switchboard, or remove the placeholder"),
            PlaceholderError::MissingInput(id, var) => format!("store it once with `switchboard input set {id}`, or export {var}=..."),
        }
    }
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Substitutes every placeholder in `value`; values read from the environment are also pushed
/// onto `secrets` so they can be redacted wherever they might be printed.
pub(crate) fn resolve(
    value: &str,
    workspace_root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    secrets: &mut Vec<String>,
) -> Result<String, PlaceholderError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = next_placeholder(rest) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let Some(end) = tail.find('}') else {
            out.push_str(tail);
            return Ok(out);
        };
        let whole = &tail[..=end];
        let inner = if let Some(i) = whole.strip_prefix("${") {
            i.trim_end_matches('}')
        } else {
            whole[1..whole.len() - 1].trim_start_matches(' ')
        };
        let var = inner.strip_prefix("env:").unwrap_or(inner);
        // Claude Code's `${VAR:-default}`: the default when VAR is unset.
        let (var, default) = match var.split_once(":-") {
            Some((var, default)) if whole.starts_with("${") => (var, Some(default)),
            _ => (var, None),
        };
        if inner == "workspaceRoot" || inner == "workspaceFolder" {
            out.push_str(&workspace_root.display().to_string());
        } else if inner == "userHome" {
            match env("HOME") {
                Some(home) => out.push_str(&home),
                None => return Err(PlaceholderError::Unset("HOME".into())),
            }
        } else if let Some(id) = inner.strip_prefix("input:") {
            if !is_input_id(id) {
                return Err(PlaceholderError::InvalidName(whole.to_string()));
            }
            let var = input_variable(id);
            match env(&var) {
                Some(v) => {
                    out.push_str(&v);
                    secrets.push(v);
                }
                None => return Err(PlaceholderError::MissingInput(id.to_string(), var)),
            }
        } else if !is_var_name(var) {
            return Err(PlaceholderError::InvalidName(whole.to_string()));
        } else {
            match env(var) {
                Some(v) => {
                    out.push_str(&v);
                    secrets.push(v);
                }
                None => match default {
                    Some(default) => out.push_str(default),
                    None => return Err(PlaceholderError::Unset(var.to_string())),
                },
            }
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Byte offset of the next `${` or `{env:`.
fn next_placeholder(s: &str) -> Option<usize> {
    match (s.find("${"), s.find("{env:")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t0k".into()),
            "SWITCHBOARD_INPUT_GH_TOKEN" => Some("from-input".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        }
    }

    fn r(v: &str) -> Result<String, PlaceholderError> {
        resolve(v, Path::new("/ws"), &env, &mut Vec::new())
    }

    #[test]
    fn substitutes_every_form() {
        assert_eq!(r("Bearer {env:TOKEN}").unwrap(), "Bearer t0k");
        assert_eq!(r("${TOKEN}-${env:TOKEN}").unwrap(), "t0k-t0k");
        assert_eq!(r("${workspaceRoot}/data").unwrap(), "/ws/data");
        assert_eq!(r("plain {braces}").unwrap(), "plain {braces}");
    }

    #[test]
    fn a_pasted_secret_in_placeholder_shape_is_an_error_not_a_literal() {
        assert_eq!(
            r("{env:ctx7sk-abc}"),
            Err(PlaceholderError::InvalidName("{env:ctx7sk-abc}".into()))
        );
        assert_eq!(
            r("${1BAD}"),
            Err(PlaceholderError::InvalidName("${1BAD}".into()))
        );
    }

    #[test]
    fn values_from_the_environment_are_remembered_as_secrets() {
        let mut secrets = Vec::new();
        resolve("Bearer ${TOKEN}", Path::new("/ws"), &env, &mut secrets).unwrap();
        assert_eq!(secrets, ["t0k"]);
    }

    #[test]
    fn vscode_inputs_come_from_their_variable() {
        assert_eq!(input_variable("gh-token"), "SWITCHBOARD_INPUT_GH_TOKEN");
        assert_eq!(r("Bearer ${input:gh-token}").unwrap(), "Bearer from-input");
        assert_eq!(
            r("${input:api.key}"),
            Err(PlaceholderError::MissingInput(
                "api.key".into(),
                "SWITCHBOARD_INPUT_API_KEY".into()
            ))
        );
        assert!(matches!(
            r("${input:bad id}"),
            Err(PlaceholderError::InvalidName(_))
        ));
    }

    #[test]
    fn defaults_and_user_home() {
        assert_eq!(r("${NOPE:-fallback}/x").unwrap(), "fallback/x");
        assert_eq!(r("${TOKEN:-fallback}").unwrap(), "t0k");
        assert_eq!(r("${userHome}/.cache").unwrap(), "/home/u/.cache");
    }

    #[test]
    fn unset_variables_are_errors() {
        assert_eq!(r("${NOPE}"), Err(PlaceholderError::Unset("NOPE".into())));
    }
}
