//! Exec: replace guarded-sh with the real shell. `Command::exec` resets SIGPIPE (Rust ignores it)
//! and the signal mask before `execve`, so exit codes, signals, the terminal and job control are
//! exactly the real shell's. It returns only on failure.

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
}

/// The environment the real shell gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellEnv {
    /// This process's environment as it is: the one [`Context::capture`] read, with nothing in it
    /// to scrub ([`Context::exec_env`] decides). The kernel gets the process's own `environ`, so
    /// nothing is copied.
    ///
    /// [`Context::capture`]: crate::context::Context::capture
    /// [`Context::exec_env`]: crate::context::Context::exec_env
    Inherit,
    /// Exactly these variables, in this order.
    Exact(Vec<(OsString, OsString)>),
}

/// Execs; on success never returns. The error says why the shell could not be started.
pub fn exec(spec: &ShellExec) -> std::io::Error {
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
