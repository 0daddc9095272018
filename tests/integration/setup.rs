//! Shared helpers for the `hardening_*` integration tests: a temporary configuration, running the
//! built binary with a hang guard (the whole process group is killed at the deadline) and its
//! peak memory measured through GNU time (`/usr/bin/time -f %M`) when that is installed.
#![allow(dead_code)]

use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_guarded-sh");
pub const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// The default audit section: no syslog, a JSON-lines file in the test directory.
pub const AUDIT_FILE: &str = "[audit]\nsyslog = false\nfile = \"{dir}/audit.jsonl\"\n";

/// A temporary directory holding `config.toml` and whatever a test writes next to it.
pub struct Setup {
    pub dir: tempfile::TempDir,
}

impl Setup {
    /// `config` with `{dir}` replaced by the temporary directory.
    pub fn new(config: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let s = Setup { dir };
        s.write("config.toml", &s.expand(config));
        s
    }

    /// The default audit section plus `extra`.
    pub fn with(extra: &str) -> Self {
        Setup::new(&format!("{AUDIT_FILE}{extra}"))
    }

    pub fn expand(&self, text: &str) -> String {
        text.replace("{dir}", &self.dir.path().display().to_string())
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }

    /// A command for the binary with this configuration and no escape or policy variables.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args);
        self.configure(&mut c);
        c
    }

    pub fn configure(&self, c: &mut Command) {
        c.env("GUARDED_SH_CONFIG", self.path("config.toml"))
            .env_remove("HONEY_RISK_DISABLE")
            .env_remove("HONEY_POLICY_DIR");
    }

    /// Every audit record, parsed (a line that does not parse fails the test).
    pub fn audit(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.path("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("audit line {l:?}: {e}")))
            .collect()
    }
}

/// How one run ended.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub elapsed: Duration,
    /// Peak resident set of the process (guarded-sh, and the real shell it became), in KiB.
    pub max_rss_kib: Option<u64>,
    pub timed_out: bool,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// GNU time, when installed.
pub fn gnu_time() -> Option<&'static str> {
    let p = "/usr/bin/time";
    Command::new(p)
        .args(["-f", "%M", "true"])
        .stderr(Stdio::null())
        .status()
        .ok()
        .filter(|s| s.success())
        .map(|_| p)
}

/// Runs `cmd` with `stdin` bytes, killing its process group after `limit`. With `measure`, the
/// run goes through GNU time to record peak memory.
pub fn run(cmd: Command, stdin: &[u8], limit: Duration, measure: bool) -> Run {
    let rss_file = tempfile::NamedTempFile::new().unwrap();
    let time = if measure { gnu_time() } else { None };
    let mut c = match time {
        Some(t) => {
            let mut c = Command::new(t);
            c.arg("-f").arg("%M").arg("-o").arg(rss_file.path());
            c.arg(cmd.get_program()).args(cmd.get_args());
            for (k, v) in cmd.get_envs() {
                match v {
                    Some(v) => c.env(k, v),
                    None => c.env_remove(k),
                };
            }
            c
        }
        None => cmd,
    };
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = c.spawn().unwrap();
    let pgid = child.id() as i32;
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || read_all(stdout));
    let err_reader = std::thread::spawn(move || read_all(stderr));
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            timed_out = true;
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGKILL,
            );
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    let _ = writer.join();
    let stdout = out_reader.join().unwrap();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
    let (mut code, mut signal) = (status.code(), status.signal());
    let mut max_rss_kib = None;
    if time.is_some() {
        // GNU time writes "Command terminated by signal N" / "Command exited with non-zero
        // status N" before the format line.
        let report = std::fs::read_to_string(rss_file.path()).unwrap_or_default();
        for line in report.lines() {
            if let Some(n) = line.strip_prefix("Command terminated by signal ") {
                signal = n.trim().parse().ok();
                code = None;
            }
        }
        max_rss_kib = report.lines().last().and_then(|l| l.trim().parse().ok());
    }
    Run {
        code,
        signal,
        stdout,
        stderr,
        elapsed,
        max_rss_kib,
        timed_out,
    }
}

fn read_all(mut r: impl std::io::Read) -> Vec<u8> {
    let mut v = Vec::new();
    let _ = r.read_to_end(&mut v);
    v
}

/// True when the tests run as root (needed to switch to an unprivileged user).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Whether `path` exists (for "the command did not run" markers).
pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}
