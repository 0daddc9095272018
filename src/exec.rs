//! Exec: replace guarded-sh with the real shell (never guarded-sh itself, [`refuse_self`]), so exit
//! codes, signals, the terminal and job control are exactly the real shell's. It returns only on
//! failure. What the real shell inherits, and the two known gaps:
//!
//! - Signals the caller ignored (SIGHUP under nohup, SIGINT/SIGQUIT for a background job) stay
//!   ignored: neither std nor `Command::exec` touches them. The signal mask is the caller's:
//!   `interrupt::release` restores it just before the exec (`Command::exec` keeps the mask).
//! - SIGPIPE is always SIG_DFL. std's runtime sets it to SIG_IGN before `main` whatever it was
//!   (`sys::pal::unix::init`, `reset_sigpipe` with the default `sigpipe::DEFAULT`), keeping no
//!   record of the old disposition, and `Command::exec` sets SIG_DFL. A caller's ignored SIGPIPE
//!   is therefore lost (`trap '' PIPE`: `yes | head` is killed, 141, rather than failing with
//!   EPIPE, 1). Keeping it needs code that runs before std's init: `-Zon-broken-pipe=inherit` is
//!   nightly-only (rustc 1.95: "the option `Z` is only accepted on the nightly compiler"), and an
//!   `.init_array` constructor (its body can be safe: it reads `/proc/self/status`) needs a
//!   `#[link_section]` static, which `forbid(unsafe_code)` rejects ("declaration of a static
//!   with `link_section`").
//! - A closed fd 0, 1 or 2 is open on `/dev/null` for the real shell: std's init opens
//!   `/dev/null` on each closed standard descriptor before `main` (`sanitize_standard_fds`, no
//!   `O_CLOEXEC`) and records nothing, so it cannot be told from a `/dev/null` the caller gave
//!   (daemons hand on `O_RDWR` ones too), and closing a descriptor the caller did give would let
//!   the shell's next open take its number. The same code before `main` would fix both.

use crate::context::Context;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// A fully decided exec: program, `argv[0]`, arguments and environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellExec {
    pub program: PathBuf,
    pub argv0: OsString,
    pub args: Vec<OsString>,
    pub env: ShellEnv,
    /// What the real command reads on stdin instead of guarded-sh's own, when the gate read
    /// that to judge it (`crate::stdin_program`): the same bytes, on a memory file.
    pub stdin: Option<Vec<u8>>,
}

/// The environment the real shell gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellEnv {
    /// This process's environment as it is: the one [`Context::capture`] read, with nothing in it
    /// to scrub ([`env_for`] decides). The kernel gets the process's own `environ`, so nothing
    /// is copied.
    Inherit,
    /// Exactly these variables, in this order.
    Exact(Vec<(OsString, OsString)>),
}

/// The environment for the real shell's exec: this process's own, untouched, when it is the
/// captured one and holds no name to scrub (the common case: nothing is copied); otherwise
/// [`Context::shell_env`].
pub fn env_for(ctx: &Context) -> ShellEnv {
    if ctx.env_is_process && !ctx.needs_scrubbing() {
        ShellEnv::Inherit
    } else {
        ShellEnv::Exact(ctx.shell_env())
    }
}

/// Execs; on success never returns. The error says why the shell could not be started.
pub fn exec(spec: &ShellExec) -> std::io::Error {
    if let Err(e) = hand_on_stdin(spec) {
        return e;
    }
    let mut command = std::process::Command::new(&spec.program);
    command.arg0(&spec.argv0).args(&spec.args);
    if let ShellEnv::Exact(vars) = &spec.env {
        command.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
    }
    command.exec()
}

/// Makes the program the gate read from stdin (if it read one) this process's stdin again, for
/// the real shell to read.
pub fn hand_on_stdin(spec: &ShellExec) -> Result<(), std::io::Error> {
    match &spec.stdin {
        Some(bytes) => stdin_from(bytes).map_err(|e| {
            std::io::Error::other(format!("cannot hand on the program read from stdin: {e}"))
        }),
        None => Ok(()),
    }
}

/// Why a configured real shell may not be exec'd: it is guarded-sh itself, which would gate the
/// command again and exec itself again, forever (one audit record each time).
#[derive(Debug, thiserror::Error)]
pub enum SelfExec {
    #[error("{key} is guarded-sh itself ({}): it would run itself forever", .program.display())]
    IsSelf { key: &'static str, program: PathBuf },
    #[error("cannot tell whether {key} ({}) is guarded-sh itself: /proc/self/exe: {source}", .program.display())]
    Unknown {
        key: &'static str,
        program: PathBuf,
        source: std::io::Error,
    },
}

impl SelfExec {
    pub fn reason_id(&self) -> &'static str {
        match self {
            SelfExec::IsSelf { .. } => "config.shell_is_self",
            SelfExec::Unknown { .. } => "config.shell_self_unknown",
        }
    }
}

/// Refuses `program` (the real shell configured as `key`) when it is this very binary: the same
/// file (device and inode) as `/proc/self/exe`, so through any symlink or hard link. A program
/// that does not exist passes (its exec fails with its own message); not being able to read
/// `/proc/self/exe` fails closed.
pub fn refuse_self(program: &Path, key: &'static str) -> Result<(), SelfExec> {
    use std::os::unix::fs::MetadataExt;
    let own = std::fs::metadata("/proc/self/exe").map_err(|source| SelfExec::Unknown {
        key,
        program: program.to_path_buf(),
        source,
    })?;
    match std::fs::metadata(program) {
        Ok(m) if (m.dev(), m.ino()) == (own.dev(), own.ino()) => Err(SelfExec::IsSelf {
            key,
            program: program.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// The basename of a path, as `argv[0]` for the real shell.
pub fn base_name(path: &Path) -> OsString {
    path.file_name()
        .map(OsString::from)
        .unwrap_or_else(|| path.as_os_str().to_os_string())
}

/// Makes `bytes` this process's stdin: a memory file holding them, read from the start.
fn stdin_from(bytes: &[u8]) -> nix::Result<()> {
    use nix::sys::memfd::{memfd_create, MFdFlags};
    use nix::unistd::{dup2_stdin, lseek, write, Whence};
    let file = memfd_create("guarded-sh-stdin", MFdFlags::MFD_CLOEXEC)?;
    let mut done = 0;
    while done < bytes.len() {
        done += write(&file, &bytes[done..])?;
    }
    lseek(&file, 0, Whence::SeekSet)?;
    dup2_stdin(&file)
}
