//! The system calls a confined server may not make: refused with `EPERM` (or `ENOSYS` where
//! runtimes probe and fall back), never killing the process.

use crate::SandboxError;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// Refused with `EPERM`: debugging other processes, mounts and namespaces, kernel modules and
/// keyrings, BPF and perf, the clock, the machine itself.
const REFUSED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kcmp,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_syslog,
    libc::SYS_acct,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_quotactl,
    libc::SYS_name_to_handle_at,
    libc::SYS_open_by_handle_at,
    libc::SYS_fanotify_init,
    libc::SYS_personality,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// Refused with `ENOSYS`: runtimes probe these and fall back (`clone3` to `clone`, whose flags
/// the filter can read; `io_uring` to ordinary reads and writes).
const ABSENT: &[libc::c_long] = &[
    libc::SYS_clone3,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
];

/// `clone` flags that make namespaces: refused like `unshare`.
const NAMESPACE_FLAGS: [u64; 7] = [
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWCGROUP as u64,
];

/// The socket families a server may open: UNIX, IPv4, IPv6 (no raw packets, netlink, …).
const FAMILIES: [u64; 3] = [
    libc::AF_UNIX as u64,
    libc::AF_INET as u64,
    libc::AF_INET6 as u64,
];

fn arch() -> Result<TargetArch, SandboxError> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(|e| SandboxError::Seccomp(e.to_string()))
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, SandboxError> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch()?,
    )
    .map_err(|e| SandboxError::Seccomp(e.to_string()))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| SandboxError::Seccomp(e.to_string()))
}

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SandboxError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value)
        .map_err(|e| SandboxError::Seccomp(e.to_string()))
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, SandboxError> {
    SeccompRule::new(conditions).map_err(|e| SandboxError::Seccomp(e.to_string()))
}

/// The filters, installed in this order (each answers only its own calls).
pub(crate) fn programs() -> Result<Vec<BpfProgram>, SandboxError> {
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|&n| (n, Vec::new())).collect();
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| rule(vec![condition(0, SeccompCmpOp::MaskedEq(flag), flag)?]))
        .collect::<Result<Vec<_>, _>>()?;
    refused.insert(libc::SYS_clone, clone_rules);
    let other_family = FAMILIES
        .iter()
        .map(|&family| condition(0, SeccompCmpOp::Ne, family))
        .collect::<Result<Vec<_>, _>>()?;
    refused.insert(libc::SYS_socket, vec![rule(other_family.clone())?]);
    refused.insert(libc::SYS_socketpair, vec![rule(other_family)?]);
    let absent = ABSENT.iter().map(|&n| (n, Vec::new())).collect();
    Ok(vec![
        compile(refused, libc::EPERM)?,
        compile(absent, libc::ENOSYS)?,
    ])
}
