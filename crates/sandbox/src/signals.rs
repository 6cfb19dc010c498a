//! The signals a supervisor passes on to the process it watches (the helper to the sandbox's
//! init, the init to the server).
#![allow(unsafe_code)] // sigaction with a handler that only calls kill(2).

/// What a gateway sends a server it stops, or a person at a terminal.
const PASSED_ON: [libc::c_int; 6] = [
    libc::SIGTERM,
    libc::SIGINT,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// Installs `handler` (which must only make async-signal-safe calls) for each signal passed on.
pub(crate) fn pass_on_with(handler: extern "C" fn(libc::c_int)) {
    for signal in PASSED_ON {
        // SAFETY: a zeroed sigaction with our handler and SA_RESTART; no memory is kept.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Blocks (`true`) or unblocks the signals passed on, for this thread. They are blocked across
/// the clone until each supervisor has its handler, so one that arrives during the server's
/// setup waits instead of being lost (PID 1 drops signals it has no handler for).
pub(crate) fn set_blocked(blocked: bool) {
    // SAFETY: a sigset on the stack, filled and handed to sigprocmask; all async-signal-safe.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in PASSED_ON {
            libc::sigaddset(&mut set, signal);
        }
        let how = if blocked {
            libc::SIG_BLOCK
        } else {
            libc::SIG_UNBLOCK
        };
        libc::sigprocmask(how, &set, std::ptr::null_mut());
    }
}
