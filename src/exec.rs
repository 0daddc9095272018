//! Exec: replace guarded-sh with the real shell. `Command::exec` resets SIGPIPE (Rust ignores it)
//! and the signal mask before `execve`, so exit codes, signals, the terminal and job control are
//! exactly the real shell's. It returns only on failure.

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
    if let Some(bytes) = &spec.stdin {
        if let Err(e) = stdin_from(bytes) {
            return std::io::Error::other(format!(
                "cannot hand on the program read from stdin: {e}"
            ));
        }
    }
    let mut command = std::process::Command::new(&spec.program);
    command.arg0(&spec.argv0).args(&spec.args);
    if let ShellEnv::Exact(vars) = &spec.env {
        command.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
    }
    command.exec()
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
