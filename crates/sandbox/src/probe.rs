//! What the kernel offers the sandbox, probed once, and how a mode turns that into layers.

use crate::plan::Layers;

/// `[sandbox] mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Apply what the kernel has and name each missing layer.
    #[default]
    Auto,
    /// Start no server without every layer.
    Strict,
}

/// The layers this kernel can apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// Landlock's ABI version (`None`: no Landlock).
    pub landlock_abi: Option<i32>,
    /// Whether an unprivileged process may make user, mount, PID and network namespaces.
    pub namespaces: bool,
    pub seccomp: bool,
}

impl Support {
    /// What this machine has (Linux), probed with harmless system calls.
    #[cfg(target_os = "linux")]
    pub fn probe() -> Self {
        Self {
            landlock_abi: landlock_abi(),
            namespaces: namespaces_work(),
            seccomp: seccomp_available(),
        }
    }

    /// Elsewhere: nothing.
    #[cfg(not(target_os = "linux"))]
    pub fn probe() -> Self {
        Self {
            landlock_abi: None,
            namespaces: false,
            seccomp: false,
        }
    }

    /// The layers to ask for.
    pub fn layers(&self) -> Layers {
        Layers {
            landlock: self.landlock_abi.is_some(),
            namespaces: self.namespaces,
            network: self.namespaces,
            seccomp: self.seccomp,
        }
    }

    /// Each missing layer, as a person reads it.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if !cfg!(target_os = "linux") {
            missing.push("not sandboxed on this operating system (Linux only)");
            return missing;
        }
        match self.landlock_abi {
            None => missing.push("no Landlock (the kernel lacks it or it is not enabled: lsm=landlock)"),
            Some(abi) if abi < 6 => missing.push(
                "Landlock below ABI 6: a server may signal other processes and reach abstract UNIX sockets",
            ),
            Some(_) => {}
        }
        if !self.namespaces {
            missing.push("no user namespaces: no private /tmp, /proc or network (sysctl kernel.unprivileged_userns_clone=1, or in a container: allow unshare/clone of user namespaces)");
        }
        if !self.seccomp {
            missing.push("no seccomp");
        }
        missing
    }

    /// `full`, `partial: …` or `not sandboxed: …`, for a server's status.
    pub fn summary(&self) -> String {
        let missing = self.missing();
        let layers = self.layers();
        match (missing.is_empty(), layers.landlock || layers.namespaces) {
            (true, _) => "full".into(),
            (false, true) => format!("partial: {}", missing.join("; ")),
            (false, false) => format!("not sandboxed: {}", missing.join("; ")),
        }
    }
}

/// The kernel's Landlock ABI version (`None`: no Landlock).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // landlock_create_ruleset with the version flag: no memory is passed.
pub(crate) fn landlock_abi() -> Option<i32> {
    const VERSION: libc::c_uint = 1;
    // SAFETY: a NULL attribute with size 0 and the version flag only returns the ABI.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            VERSION,
        )
    };
    (abi > 0).then_some(abi as i32)
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // a clone whose child makes two mounts and exits, and the wait for it.
/// Whether a child in new namespaces may do what the sandbox's does: a clone alone can
/// succeed where the child then holds no capability (Ubuntu's AppArmor restriction of
/// unprivileged user namespaces), so the child makes the mounts private and mounts a tmpfs.
fn namespaces_work() -> bool {
    let flags = (libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID | libc::CLONE_NEWNET)
        as libc::c_long
        | libc::SIGCHLD as libc::c_long;
    // SAFETY: fork-like clone; the child calls only _exit.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0, 0, 0, 0) };
    if pid == 0 {
        // SAFETY: mount(2) with static strings in the child's own mount namespace; _exit.
        unsafe {
            let none = std::ptr::null::<libc::c_char>();
            let flags = libc::MS_REC | libc::MS_PRIVATE;
            let private = libc::mount(none, c"/".as_ptr(), none, flags, std::ptr::null());
            let tmpfs = c"tmpfs".as_ptr();
            let mounted = private == 0
                && libc::mount(tmpfs, c"/tmp".as_ptr(), tmpfs, 0, std::ptr::null()) == 0;
            libc::_exit(if mounted { 0 } else { 1 });
        }
    }
    if pid < 0 {
        return false;
    }
    let mut status = 0;
    // SAFETY: reaps our own child.
    unsafe { libc::waitpid(pid as libc::pid_t, &mut status, 0) };
    libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // prctl(PR_GET_SECCOMP) reads our own mode.
fn seccomp_available() -> bool {
    // SAFETY: no pointers.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP) >= 0 }
}
