//! The filtered side of exec supervision: `guarded-sh --supervised-child SOCKET MASK PROGRAM
//! ARGV0 [ARG…]`, started by the supervisor ([`super::serve`]). It connects to the supervisor's
//! socket (an abstract name the supervisor checks by peer pid), installs the seccomp filter
//! (`execve` and `execveat` notify its listener; the same call sets `no_new_privs`), hands the
//! listener over, restores the signal mask the command was given and execs PROGRAM: that exec is
//! the supervisor's first notification. Any failure exits 126 before anything runs. Inside a
//! supervised tree this entry is never reached: a guarded-sh started there execs its real shell
//! under the enclosing supervisor ([`super::serve::enclosing_supervisor`]), and the supervisor
//! refuses every exec that asks for the entry ([`super::judge`]); the kernel would refuse a
//! second listener anyway.

use libseccomp::{ScmpAction, ScmpFilterContext, ScmpSyscall};
use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow, Signal};
use nix::sys::socket::{sendmsg, ControlMessage, MsgFlags, UnixAddr};
use std::ffi::OsString;
use std::io::IoSlice;
use std::os::fd::AsRawFd;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixStream};
use std::os::unix::process::CommandExt;

/// The argument that selects this entry (`argv[1]`).
pub const FLAG: &str = "--supervised-child";

/// Whether `args` ask for the filtered side.
pub fn requested(args: &[OsString]) -> bool {
    args.get(1).is_some_and(|a| a == FLAG)
}

/// Runs the filtered side; returns only on failure, with its exit status.
pub fn run(args: &[OsString]) -> i32 {
    let error = start(args);
    crate::stderr::say(&format!(
        "guarded-sh: supervised exec: {error} (nothing was run)"
    ));
    crate::verdict::EXIT_DENIED
}

/// The signals in a mask written by [`mask_to_arg`].
fn mask_from_arg(arg: &str) -> Option<SigSet> {
    let bits = u64::from_str_radix(arg, 16).ok()?;
    let mut mask = SigSet::empty();
    for signal in Signal::iterator() {
        if bits & (1u64 << (signal as i32 - 1)) != 0 {
            mask.add(signal);
        }
    }
    Some(mask)
}

/// A signal mask as one argument (hexadecimal, bit `n - 1` for signal `n`).
pub fn mask_to_arg(mask: &SigSet) -> String {
    let bits = Signal::iterator()
        .filter(|s| mask.contains(*s))
        .fold(0u64, |bits, s| bits | (1u64 << (s as i32 - 1)));
    format!("{bits:x}")
}

fn start(args: &[OsString]) -> String {
    let [_, _, socket, mask, program, argv0, rest @ ..] = args else {
        return format!("{FLAG} needs SOCKET MASK PROGRAM ARGV0 [ARG…]");
    };
    let Some(mask) = mask.to_str().and_then(mask_from_arg) else {
        return format!("{FLAG}: bad signal mask {mask:?}");
    };
    let address = match SocketAddr::from_abstract_name(socket.as_bytes()) {
        Ok(a) => a,
        Err(e) => return format!("bad supervisor socket name: {e}"),
    };
    let stream = match UnixStream::connect_addr(&address) {
        Ok(s) => s,
        Err(e) => return format!("cannot reach the supervisor: {e}"),
    };
    let listener = match filter() {
        Ok(fd) => fd,
        Err(e) => return format!("cannot install the exec filter: {e}"),
    };
    let fds = [listener];
    let handed = sendmsg::<UnixAddr>(
        stream.as_raw_fd(),
        &[IoSlice::new(b"L")],
        &[ControlMessage::ScmRights(&fds)],
        MsgFlags::empty(),
        None,
    );
    // The supervisor holds its own copy now; this process must not answer its own execs.
    let _ = nix::unistd::close(listener);
    if let Err(e) = handed {
        return format!("cannot hand the exec filter to the supervisor: {e}");
    }
    exec_program(stream, &mask, program, argv0, rest)
}

/// Drops the connection, restores the command's signal mask and execs PROGRAM; returns why not.
fn exec_program(
    stream: UnixStream,
    mask: &SigSet,
    program: &OsString,
    argv0: &OsString,
    rest: &[OsString],
) -> String {
    drop(stream);
    if let Err(e) = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(mask), None) {
        return format!("cannot restore the signal mask: {e}");
    }
    let error = std::process::Command::new(program)
        .arg0(argv0)
        .args(rest)
        .exec();
    format!("cannot run {}: {error}", program.to_string_lossy())
}

/// Loads the filter on this process and returns its listener (close-on-exec).
fn filter() -> Result<std::os::fd::RawFd, libseccomp::error::SeccompError> {
    let mut filter = ScmpFilterContext::new(ScmpAction::Allow)?;
    // A foreign architecture's call (`int 0x80`, x32) kills the whole process, not the thread
    // alone (libseccomp's default), so no thread of it goes on.
    filter.set_act_badarch(ScmpAction::KillProcess)?;
    for name in ["execve", "execveat"] {
        filter.add_rule(ScmpAction::Notify, ScmpSyscall::from_name(name)?)?;
    }
    filter.load()?;
    filter.get_notify_fd()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mask_survives_its_argument() {
        let mut mask = SigSet::empty();
        mask.add(Signal::SIGINT);
        mask.add(Signal::SIGUSR2);
        mask.add(Signal::SIGCHLD);
        let back = mask_from_arg(&mask_to_arg(&mask)).unwrap();
        for signal in Signal::iterator() {
            assert_eq!(back.contains(signal), mask.contains(signal), "{signal}");
        }
        assert!(mask_from_arg("zz").is_none());
    }
}
