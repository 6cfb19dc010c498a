//! The egress proxy's listening socket: made by the confined child inside its own network
//! namespace and handed to the gateway over a socket pair, so the gateway accepts there and
//! connects out from its own namespace.
#![allow(unsafe_code)] // socketpair, sendmsg and recvmsg with SCM_RIGHTS; each block says why.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The file descriptor the helper (and the child after it) finds the gateway's end of the
/// socket pair at.
pub const PROXY_FD: RawFd = 3;

/// Room for one `cmsghdr` carrying one descriptor (16 + 4 bytes, padded), 8-byte aligned.
type Control = [u64; 4];

/// A pair of connected sockets: the gateway keeps the first and hands the second to the
/// helper as [`PROXY_FD`] ([`hand_over`]).
pub fn channel() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: socketpair writes two new descriptors into the array.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and ours alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Between fork and exec of the helper: puts `theirs` at [`PROXY_FD`], open across the exec.
/// Async-signal-safe (dup2 and fcntl only).
pub fn hand_over(theirs: RawFd) -> io::Result<()> {
    // SAFETY: dup2 and fcntl on descriptors this process holds.
    let rc = unsafe {
        if theirs == PROXY_FD {
            libc::fcntl(PROXY_FD, libc::F_SETFD, 0)
        } else {
            libc::dup2(theirs, PROXY_FD)
        }
    };
    match rc {
        -1 => Err(io::Error::last_os_error()),
        _ => Ok(()),
    }
}

/// Waits (blocking) for the listening socket the child sends on `ours`. Ends with an error
/// when every copy of the other end is closed first (the start failed).
pub fn receive(ours: &OwnedFd) -> io::Result<std::net::TcpListener> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control: Control = [0; 4];
    // SAFETY: a zeroed msghdr pointing at our iovec and control buffer, both on the stack
    // and alive across the call; the control message is read within its length.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of::<Control>() as _;
        let n = libc::recvmsg(ours.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if n == 0 || cmsg.is_null() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the sandboxed server ended before its egress proxy was set up",
            ));
        }
        if (*cmsg).cmsg_level != libc::SOL_SOCKET || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return Err(io::Error::other("no descriptor came with the message"));
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>());
        Ok(std::net::TcpListener::from_raw_fd(fd))
    }
}

/// In the child (no allocation): listens on 127.0.0.1:`port` inside its network namespace,
/// sends the socket on [`PROXY_FD`] and closes both. On failure, what failed (errno set).
pub(crate) fn listen_and_send(port: u16) -> Result<(), &'static str> {
    // SAFETY: socket, setsockopt, bind, listen and sendmsg on stack structures; the
    // descriptors are closed before returning.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err("cannot make the egress proxy's socket");
        }
        let addr = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from_be_bytes([127, 0, 0, 1]).to_be(),
            },
            sin_zero: [0; 8],
        };
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        if libc::bind(fd, (&raw const addr).cast(), len) != 0 {
            return Err("cannot bind the egress proxy's socket");
        }
        if libc::listen(fd, 128) != 0 {
            return Err("cannot listen on the egress proxy's socket");
        }
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let mut control: Control = [0; 4];
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>(), fd);
        let sent = libc::sendmsg(PROXY_FD, &msg, libc::MSG_NOSIGNAL);
        libc::close(fd);
        libc::close(PROXY_FD);
        match sent {
            1 => Ok(()),
            _ => Err("cannot hand the egress proxy's socket to the gateway"),
        }
    }
}
