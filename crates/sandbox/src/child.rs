//! The confined child, from the clone to the exec: system calls only, on what `Prepared` made.
//!
//! It is PID 1 of its own PID namespace (a small init; the server is PID 2), in its own user,
//! mount, IPC, UTS and network namespaces; it waits for its parent to write its uid and gid maps, hides folders behind
//! private tmpfs mounts (granted paths under them mounted back), mounts its own `/proc`, brings
//! up its loopback (no other interface: no route out), limits its processes, restricts itself
//! with Landlock, drops every capability from its bounding set, installs the seccomp filters,
//! and starts the server.
#![allow(unsafe_code)] // Raw system calls between clone and exec; each block says why it is sound.

use crate::prepared::Prepared;
use std::ffi::CStr;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};

const PROC: &CStr = c"/proc";

/// `open_tree(2)` and `move_mount(2)` flags (linux/mount.h).
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;

/// Granted paths under hidden folders, at most.
const MAX_REBINDS: usize = 64;

/// What a failed start says after its errno: where to look, and the way out.
const FAIL_HINT: &[u8] = b" (`switchboard sandbox explain SERVER` lists what it is given and what this machine lacks; `\"sandbox\": false` on its entry runs it unconfined)\n";

/// Writes `what`, the errno and [`FAIL_HINT`] to stderr and exits 126 (no allocation).
fn fail(what: &str) -> ! {
    // SAFETY: reads errno.
    let errno = unsafe { *libc::__errno_location() };
    let mut digits = [0u8; 12];
    let (mut i, mut v) = (digits.len(), errno.unsigned_abs());
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let mut line = [0u8; 320];
    let mut n = 0;
    let parts: [&[u8]; 5] = [
        b"switchboard sandbox: ",
        what.as_bytes(),
        b": errno ",
        &digits[i..],
        FAIL_HINT,
    ];
    for &b in parts.iter().flat_map(|part| part.iter()) {
        if n < line.len() {
            line[n] = b;
            n += 1;
        }
    }
    // SAFETY: write(2) of a stack buffer to fd 2; _exit ends the process.
    unsafe {
        libc::write(2, line.as_ptr().cast(), n);
        libc::_exit(126)
    }
}

fn check(rc: libc::c_long, what: &str) {
    if rc < 0 {
        fail(what);
    }
}

/// Runs in the child of the clone; never returns.
pub(crate) fn run(p: &Prepared, ready: RawFd) -> ! {
    // SAFETY: plain system calls on pointers into `p`, which outlives them (the process ends
    // in execve or _exit); nothing here allocates.
    unsafe {
        let mut byte = 0u8;
        if libc::read(ready, (&raw mut byte).cast(), 1) != 1 {
            // The parent could not map our ids: it has said why.
            libc::_exit(126);
        }
        libc::close(ready);
        if p.namespaces {
            check(
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL).into(),
                "PR_SET_PDEATHSIG",
            );
            mount_inside(p);
            if p.network {
                loopback_up();
            }
            if let Some(port) = p.proxy_port
                && let Err(what) = crate::proxy_listener::listen_and_send(port)
            {
                fail(what);
            }
        }
        // Without a user namespace RLIMIT_NPROC would count all the user's processes.
        if let Some(n) = p.max_processes.filter(|_| p.namespaces) {
            let limit = libc::rlimit {
                rlim_cur: n as libc::rlim_t,
                rlim_max: n as libc::rlim_t,
            };
            check(
                libc::setrlimit(libc::RLIMIT_NPROC, &limit).into(),
                "cannot limit processes",
            );
        }
        check(
            libc::chdir(p.workdir.as_ptr()).into(),
            "cannot enter the working folder",
        );
        if let Some(ruleset) = &p.ruleset {
            landlock(p, ruleset.as_raw_fd());
        }
        // No capability survives the exec, even for a gateway run as root (without a user
        // namespace as well: dropping from the bounding set needs CAP_SETPCAP, which only
        // such a gateway has).
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        for program in &p.seccomp {
            if seccompiler::apply_filter(program).is_err() {
                fail("cannot install the seccomp filter");
            }
        }
        let mut argv = [std::ptr::null::<libc::c_char>(); 256];
        let mut envp = [std::ptr::null::<libc::c_char>(); 1024];
        if p.argv.len() >= argv.len() || p.envp.len() >= envp.len() {
            fail("too many arguments or environment variables");
        }
        for (slot, arg) in argv.iter_mut().zip(&p.argv) {
            *slot = arg.as_ptr();
        }
        for (slot, pair) in envp.iter_mut().zip(&p.envp) {
            *slot = pair.as_ptr();
        }
        if p.namespaces {
            // PID 1 ignores the signals it has no handler for, so it stays a small init that
            // passes them on; the server is PID 2 (what it starts dies with the namespace).
            let server = libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0);
            check(server, "cannot start the server's process");
            if server != 0 {
                be_init(server as libc::pid_t);
            }
        }
        // The mask survives the exec: the server gets its signals again.
        crate::signals::set_blocked(false);
        libc::execve(p.program.as_ptr(), argv.as_ptr(), envp.as_ptr());
        fail("cannot start the program")
    }
}

/// The server, for the init's signal handler.
static SERVER: AtomicI32 = AtomicI32::new(0);

extern "C" fn pass_on(signal: libc::c_int) {
    let server = SERVER.load(Ordering::SeqCst);
    if server > 0 {
        // SAFETY: kill(2) is async-signal-safe.
        unsafe { libc::kill(server, signal) };
    }
}

/// PID 1 of the sandbox: passes signals on to the server, reaps what is orphaned, and exits as
/// the server exits (the kernel then ends every process left in the namespace).
fn be_init(server: libc::pid_t) -> ! {
    SERVER.store(server, Ordering::SeqCst);
    crate::signals::pass_on_with(pass_on);
    crate::signals::set_blocked(false);
    // SAFETY: waitpid into a local; _exit ends the init.
    unsafe {
        loop {
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid == server {
                let code = match libc::WIFEXITED(status) {
                    true => libc::WEXITSTATUS(status),
                    false => 128 + libc::WTERMSIG(status),
                };
                libc::_exit(code);
            }
            if pid < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(126);
            }
        }
    }
}

/// Private mounts: hidden folders behind tmpfs (granted paths mounted back), our own `/proc`.
unsafe fn mount_inside(p: &Prepared) {
    // SAFETY: mount(2), mkdir(2), open(2) with NUL-terminated strings from `p`.
    unsafe {
        let none = std::ptr::null::<libc::c_char>();
        check(
            libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )
            .into(),
            "cannot make the mounts private",
        );
        // Granted paths under the folders about to be hidden: cloned now, moved back after.
        let mut trees = [-1 as libc::c_int; MAX_REBINDS];
        if p.rebinds.len() > MAX_REBINDS {
            fail("too many granted paths under hidden folders");
        }
        for (tree, rebind) in trees.iter_mut().zip(&p.rebinds) {
            let flags = OPEN_TREE_CLONE
                | libc::O_CLOEXEC as libc::c_uint
                | libc::AT_RECURSIVE as libc::c_uint;
            let fd = libc::syscall(
                libc::SYS_open_tree,
                libc::AT_FDCWD,
                rebind.path.as_ptr(),
                flags,
            );
            check(fd, "cannot clone a granted path's mount");
            *tree = fd as libc::c_int;
            if rebind.read_only {
                read_only(*tree, rebind.no_exec);
            }
        }
        let trees = &trees[..p.rebinds.len()];
        for hidden in &p.hide {
            let flags = libc::MS_NOSUID | libc::MS_NODEV;
            let rc = libc::mount(
                c"tmpfs".as_ptr(),
                hidden.as_ptr(),
                c"tmpfs".as_ptr(),
                flags,
                c"mode=1777".as_ptr().cast(),
            );
            check(rc.into(), "cannot hide a folder behind a tmpfs");
        }
        for (tree, rebind) in trees.iter().zip(&p.rebinds) {
            for dir in &rebind.parents {
                libc::mkdir(dir.as_ptr(), 0o755);
            }
            if rebind.is_dir {
                libc::mkdir(rebind.path.as_ptr(), 0o755);
            } else {
                let flags = libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC;
                let fd = libc::open(rebind.path.as_ptr(), flags, 0o644);
                if fd >= 0 {
                    libc::close(fd);
                }
            }
            let rc = libc::syscall(
                libc::SYS_move_mount,
                *tree,
                c"".as_ptr(),
                libc::AT_FDCWD,
                rebind.path.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            );
            check(rc, "cannot mount a granted path back");
            libc::close(*tree);
        }
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        let rc = libc::mount(
            c"proc".as_ptr(),
            PROC.as_ptr(),
            c"proc".as_ptr(),
            flags,
            std::ptr::null(),
        );
        check(rc.into(), "cannot mount /proc");
    }
}

/// Linux's `struct mount_attr` (linux/mount.h), for `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const MOUNT_ATTR_NOEXEC: u64 = 0x8;

/// Makes the detached mount `tree` read-only (and not executable for a read grant): under a
/// hidden folder the tmpfs above it is writable, and Landlock rights add up along the path.
unsafe fn read_only(tree: libc::c_int, no_exec: bool) {
    let mut set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if no_exec {
        set |= MOUNT_ATTR_NOEXEC;
    }
    let attr = MountAttr {
        attr_set: set,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let flags = libc::AT_EMPTY_PATH | libc::AT_RECURSIVE;
    // SAFETY: mount_setattr(2) on our own mount fd, reading a struct on the stack.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            tree,
            c"".as_ptr(),
            flags,
            &attr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    check(rc, "cannot make a read-only grant's mount read-only");
}

/// Brings up `lo`, the namespace's only interface.
unsafe fn loopback_up() {
    // SAFETY: a datagram socket and SIOC[GS]IFFLAGS on a zeroed ifreq naming "lo".
    unsafe {
        let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        check(sock.into(), "cannot open a socket to bring up lo");
        let mut req: libc::ifreq = std::mem::zeroed();
        for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
            *dst = *src as libc::c_char;
        }
        check(
            libc::ioctl(sock, libc::SIOCGIFFLAGS, &mut req).into(),
            "cannot read lo's flags",
        );
        req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        check(
            libc::ioctl(sock, libc::SIOCSIFFLAGS, &req).into(),
            "cannot bring up lo",
        );
        libc::close(sock);
    }
}

/// Landlock's `struct landlock_path_beneath_attr` (packed, as the kernel reads it).
#[repr(C, packed)]
struct PathBeneath {
    allowed_access: u64,
    parent_fd: i32,
}

const RULE_PATH_BENEATH: libc::c_int = 1;

/// Adds rules for the folders that exist only inside, then restricts this process.
unsafe fn landlock(p: &Prepared, ruleset: RawFd) {
    // SAFETY: open(2) with O_PATH, and the Landlock system calls on our own ruleset fd with a
    // packed attribute on the stack.
    unsafe {
        let read = (1u64 << 2) | (1u64 << 3); // READ_FILE | READ_DIR
        // The private tmpfs mounts are the server's own; its own `/proc` is readable (the
        // host's, without a PID namespace, is not).
        let fresh = p.hide.iter().map(|d| (d.as_c_str(), p.handled));
        let proc = p.namespaces.then_some((PROC, read));
        for (dir, access) in fresh.chain(proc) {
            let fd = libc::open(dir.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
            if fd < 0 {
                continue;
            }
            let attr = PathBeneath {
                allowed_access: access & p.handled,
                parent_fd: fd,
            };
            let rc = libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset,
                RULE_PATH_BENEATH,
                &attr,
                0,
            );
            check(rc, "cannot add a Landlock rule");
            libc::close(fd);
        }
        check(
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).into(),
            "PR_SET_NO_NEW_PRIVS",
        );
        let rc = libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0);
        check(rc, "cannot restrict with Landlock");
    }
}
