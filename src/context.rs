//! Context: the only reader of the process environment, uid, terminal and SSH variables. It
//! captures the initial environment once, before anything can change it, so the real shell gets
//! exactly what guarded-sh was given (minus the scrubbed names) and the trust decisions
//! (`HONEY_RISK_DISABLE`, `HONEY_POLICY_DIR`) read the trusted initial values. Nothing changes the
//! environment afterwards (no dependency does; clippy's `disallowed-methods` keeps the crate from
//! it), except [`disable_backtrace_capture`], which restores what it touches: so the real shell
//! can inherit the process's environment as it is when nothing needs scrubbing. It also names
//! the process for the audit: its pid and ppid, and the session id ([`SESSION_VAR`] when the
//! initial environment carries a valid one, else a fresh random one).

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Everything guarded-sh knows about where it runs.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The environment as the process received it (shared: a context is cloned per command).
    pub env: std::sync::Arc<[(OsString, OsString)]>,
    pub uid: u32,
    pub user: String,
    pub home: Option<PathBuf>,
    pub cwd: String,
    pub host: String,
    pub stdin_tty: bool,
    pub ssh_client: String,
    pub ssh_original_command: String,
    pub under_sshd: bool,
    /// Called as a login shell (`-bash`, `-l`, `--login`); set once the argv is parsed.
    pub login: bool,
    /// `env` is this process's own environment, read by [`Context::capture`] (see the module
    /// documentation for why it stays so). False for contexts built any other way.
    pub env_is_process: bool,
    /// The audit session id: 32 lowercase hex digits, from [`SESSION_VAR`] when the initial
    /// environment has a valid one, else fresh. Not a secret and not proof of anything: anyone
    /// who starts guarded-sh chooses its environment.
    pub session_id: String,
    pub pid: u32,
    pub ppid: u32,
}

/// The variable an interactive session exports to what it runs, so their records carry its id.
pub const SESSION_VAR: &str = "GUARDED_SH_SESSION";

impl Context {
    /// Captures the context of this process.
    pub fn capture() -> Self {
        let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
        let uid = nix::unistd::getuid();
        let (user, home) = match passwd_entry(uid.as_raw()) {
            Some(found) => found,
            None => match nix::unistd::User::from_uid(uid) {
                Ok(Some(u)) => (u.name, Some(u.dir)),
                _ => (uid.to_string(), None),
            },
        };
        let get = |name: &str| {
            env.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let ssh_client = get("SSH_CLIENT");
        let under_sshd = !get("SSH_CONNECTION").is_empty() || !ssh_client.is_empty();
        let ssh_original_command = get("SSH_ORIGINAL_COMMAND");
        let session_id = Some(get(SESSION_VAR))
            .filter(|id| valid_session_id(id))
            .unwrap_or_else(fresh_session_id);
        Context {
            uid: uid.as_raw(),
            user,
            home,
            cwd: std::env::current_dir()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            host: nix::unistd::gethostname()
                .map(|h| h.to_string_lossy().into_owned())
                .unwrap_or_default(),
            stdin_tty: std::io::stdin().is_terminal(),
            ssh_client,
            ssh_original_command,
            under_sshd,
            login: false,
            env: env.into(),
            env_is_process: true,
            session_id,
            pid: std::process::id(),
            ppid: nix::unistd::getppid().as_raw().unsigned_abs(),
        }
    }

    /// True when the session id came from the environment: this invocation runs inside a
    /// session another one started (a command typed in an interactive session).
    pub fn session_inherited(&self) -> bool {
        self.env
            .iter()
            .any(|(k, v)| k == SESSION_VAR && v.as_os_str() == self.session_id.as_str())
    }

    /// This context as the start of a new interactive session: a fresh session id, whatever
    /// the environment said (the session exports it to what it runs).
    pub fn for_new_session(self) -> Self {
        Context {
            session_id: fresh_session_id(),
            ..self
        }
    }

    /// The value of `name` in the initial environment.
    pub fn var(&self, name: &str) -> Option<&OsString> {
        self.env.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// `HONEY_RISK_DISABLE`'s truthiness as the reference reads it: set and not empty, `0` or
    /// `false` (case-insensitive).
    pub fn escape_requested(&self) -> bool {
        self.var("HONEY_RISK_DISABLE")
            .is_some_and(|v| truthy(&v.to_string_lossy()))
    }

    /// `HONEY_POLICY_DIR` from the initial environment, when set and not empty.
    pub fn env_policy_dir(&self) -> Option<PathBuf> {
        self.var("HONEY_POLICY_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }

    /// Whether any variable of the initial environment is one the real shell must not get.
    pub fn needs_scrubbing(&self) -> bool {
        self.env.iter().any(|(k, _)| scrubbed(&k.to_string_lossy()))
    }

    /// The environment handed to the real shell: the initial one without the names that let
    /// code run behind the gate (`BASH_ENV`, `ENV`, `SHELLOPTS`, `BASHOPTS`, exported functions).
    pub fn shell_env(&self) -> Vec<(OsString, OsString)> {
        self.env
            .iter()
            .filter(|(k, _)| !scrubbed(&k.to_string_lossy()))
            .cloned()
            .collect()
    }
}

/// The user's name and home from `/etc/passwd`, read directly: the common case without the
/// cost of NSS (nsswitch parsing, nscd probes) on every command. Users from other sources
/// (LDAP, SSSD) fall back to `getpwuid`.
fn passwd_entry(uid: u32) -> Option<(String, Option<PathBuf>)> {
    let text = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd_lookup(&text, uid)
}

fn passwd_lookup(text: &str, uid: u32) -> Option<(String, Option<PathBuf>)> {
    text.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        match fields.as_slice() {
            [name, _, id, _, _, home, ..]
                if id.parse::<u32>().ok() == Some(uid) && !name.is_empty() =>
            {
                Some((name.to_string(), Some(PathBuf::from(home))))
            }
            _ => None,
        }
    })
}

/// Stops `std::backtrace::Backtrace::capture` (which `anyhow` calls for every error when built
/// with its `std` feature; regorus's is not today) from capturing in this process, without
/// changing the environment the real shell inherits. std reads `RUST_LIB_BACKTRACE`, then
/// `RUST_BACKTRACE`, once, at the first capture, and keeps the answer for the life of the
/// process. When they would enable capture, this sets `RUST_LIB_BACKTRACE=0` for that first
/// capture and then restores the variable exactly (same value, same place in the environment).
/// Call it first in `main`, while the process has one thread.
#[allow(clippy::disallowed_methods)] // the one sanctioned change, undone before returning
pub fn disable_backtrace_capture() {
    let lib = std::env::var_os("RUST_LIB_BACKTRACE");
    let enabled = match &lib {
        Some(v) => v != "0",
        None => std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0"),
    };
    if !enabled {
        return;
    }
    std::env::set_var("RUST_LIB_BACKTRACE", "0");
    let _first = std::backtrace::Backtrace::capture();
    match lib {
        Some(v) => std::env::set_var("RUST_LIB_BACKTRACE", v),
        None => std::env::remove_var("RUST_LIB_BACKTRACE"),
    }
}

/// Whether `id` is a session id: exactly 32 lowercase hex digits.
pub fn valid_session_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A fresh session id: 16 bytes of `/dev/urandom` (a read of 16 bytes from it does not block
/// once the kernel's pool is initialised, which it is by the time anyone logs in) as hex. Where
/// it cannot be read, a SHA-256 of the time, pid and ppid: unique in practice, not secret.
pub fn fresh_session_id() -> String {
    use sha2::Digest;
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let seed = format!("{nanos}:{}:{}", std::process::id(), nix::unistd::getppid());
        let digest = sha2::Sha256::digest(seed.as_bytes());
        bytes.copy_from_slice(&digest[..16]);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Variables removed before exec.
pub fn scrubbed(name: &str) -> bool {
    matches!(
        name,
        "BASH_ENV" | "ENV" | "SHELLOPTS" | "BASHOPTS" | "PS4" | "GLOBIGNORE" | "CDPATH"
    ) || name.starts_with("BASH_FUNC_")
}

pub fn truthy(value: &str) -> bool {
    let v = value.trim();
    !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthiness_matches_the_reference() {
        for v in ["1", "yes", "true", "TRUE", "x"] {
            assert!(truthy(v), "{v}");
        }
        for v in ["", "0", "false", "False", " "] {
            assert!(!truthy(v), "{v:?}");
        }
    }

    #[test]
    fn passwd_lines() {
        let text =
            "root:x:0:0:root:/root:/bin/bash\n+nis\nalice:x:1000:1000:A:/home/alice:/bin/sh\n";
        assert_eq!(
            passwd_lookup(text, 1000),
            Some(("alice".into(), Some("/home/alice".into())))
        );
        assert_eq!(passwd_lookup(text, 0).map(|e| e.0), Some("root".into()));
        assert_eq!(passwd_lookup(text, 7), None);
    }

    #[test]
    fn session_ids_are_32_lowercase_hex_and_fresh_ones_differ() {
        let (a, b) = (fresh_session_id(), fresh_session_id());
        assert!(valid_session_id(&a) && valid_session_id(&b), "{a} {b}");
        assert_ne!(a, b);
        for bad in [
            "",
            "0123456789ABCDEF0123456789abcdef",
            "0123456789abcdef0123456789abcde",
            "0123456789abcdef0123456789abcdefa",
            "0123456789abcdef0123456789abcdeg",
        ] {
            assert!(!valid_session_id(bad), "{bad}");
        }
    }

    #[test]
    fn scrub_table() {
        for n in [
            "BASH_ENV",
            "ENV",
            "SHELLOPTS",
            "BASHOPTS",
            "BASH_FUNC_ls%%",
            "BASH_FUNC_x()",
        ] {
            assert!(scrubbed(n), "{n}");
        }
        for n in ["PATH", "HOME", "ENVIRONMENT", "SHELL", "LANG"] {
            assert!(!scrubbed(n), "{n}");
        }
    }
}
