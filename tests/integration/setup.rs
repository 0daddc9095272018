//! The one shared setup for the integration tests: a temporary directory with a configuration
//! that keeps every run inside it ([`Setup`]), the built binary, running it (plainly, with stdin,
//! or with a hang guard and its peak memory measured through GNU time, [`run`]), reading its
//! audit records, and reading the tables under `tests/` ([`table`], [`unescape`]).
//!
//! A configuration written through [`Setup`] gets what the host's defaults would otherwise point
//! outside the temporary directory, unless the test names its own: no system log
//! (`audit.system_log = "off"`) and the audit file `audit.jsonl` in the directory instead (a
//! decision that no sink records is denied), no system policy cache (`policy.cache_dir`, by default
//! `/var/cache/guarded-sh`, which a run writes when it exists) and no system approvals directory
//! (`approval.dir`). Both directories are left absent, so the cache is off as on a host without
//! guarded-sh installed.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_guarded-sh");
pub const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// The default audit section: no syslog, a JSON-lines file in the test directory.
pub const AUDIT_FILE: &str = "[audit]\nsyslog = false\nfile = \"{dir}/audit.jsonl\"\n";

/// A policy that denies any command that runs `forbidden_tool` and allows the rest.
pub const FORBIDDEN_TOOL: &str = r#"package honey
import rego.v1
default allow := false
default deny_reason := ""
default decision := "allow"
allow if not "forbidden_tool" in input.command.detected.commands
deny_reason := "forbidden_tool is not allowed here" if not allow
"#;

/// A temporary directory holding `config.toml` and whatever a test writes next to it.
pub struct Setup {
    pub dir: tempfile::TempDir,
}

impl Setup {
    /// `config` with `{dir}` replaced by the temporary directory, kept inside it (see the module
    /// documentation).
    pub fn new(config: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let s = Setup { dir };
        s.config("config.toml", config);
        s
    }

    /// Writes the configuration file `name`: `text` with `{dir}` expanded and the host's
    /// defaults kept inside the temporary directory. A test that needs a configuration exactly
    /// as written (a malformed one) uses [`Setup::write`].
    pub fn config(&self, name: &str, text: &str) -> PathBuf {
        self.write(name, &contained(&self.expand(text), self.dir.path()))
    }

    /// The default audit section plus `extra`.
    pub fn with(extra: &str) -> Self {
        Setup::new(&format!("{AUDIT_FILE}{extra}"))
    }

    /// [`Setup::with`], readable by other users, with an audit file anyone may append to: for
    /// runs as another user ([`Setup::as_user`]).
    pub fn shared(extra: &str) -> Self {
        let s = Setup::with(extra);
        std::fs::set_permissions(s.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        s.write("audit.jsonl", "");
        std::fs::set_permissions(
            s.path("audit.jsonl"),
            std::fs::Permissions::from_mode(0o666),
        )
        .unwrap();
        s
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

    /// Writes `text` as an executable (0755) file, such as a stub program.
    pub fn write_executable(&self, name: &str, text: &str) -> PathBuf {
        let p = self.write(name, text);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// A command for the binary with this configuration and no escape or policy variables.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args);
        self.configure(&mut c);
        c
    }

    /// A command for `program` (the binary through a link, say) like [`Setup::command`].
    pub fn command_for(&self, program: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args);
        self.configure(&mut c);
        c
    }

    /// This configuration, no escape or policy variables, no advisory model, and a home of the
    /// test's own (so no developer's `~/.config/guarded-sh/review.toml` takes part).
    pub fn configure(&self, c: &mut Command) {
        let home = self.path("home");
        let _ = std::fs::create_dir_all(&home);
        c.env("GUARDED_SH_CONFIG", self.path("config.toml"))
            .env("HOME", home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("HONEY_RISK_DISABLE")
            .env_remove("HONEY_POLICY_DIR")
            .env_remove("HONEY_RISK_LLM");
    }

    /// The upper layer of the `/etc` overlay [`Setup::as_user`] runs under (root-owned, 0755:
    /// the merged `/etc` takes its owner and mode).
    pub fn etc(&self) -> PathBuf {
        let upper = self.path("etc-upper");
        std::fs::create_dir_all(&upper).unwrap();
        std::fs::set_permissions(&upper, std::fs::Permissions::from_mode(0o755)).unwrap();
        upper
    }

    /// Installs this setup's `config.toml` as `/etc/guarded-sh/config.toml` of the overlay
    /// (root-owned: directory 0755, file 0644); returns the file in the upper layer, which a
    /// test may then change (its owner, its mode, a link in its place).
    pub fn install_config(&self) -> PathBuf {
        self.install_config_from(&self.path("config.toml"))
    }

    /// Installs `source` as the overlay's `/etc/guarded-sh/config.toml`, like
    /// [`Setup::install_config`].
    pub fn install_config_from(&self, source: &Path) -> PathBuf {
        let dir = self.etc().join("guarded-sh");
        if dir.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(&dir).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("config.toml");
        let _ = std::fs::remove_file(&file);
        std::fs::copy(source, &file).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        file
    }

    /// A command running the binary with `args` as `uid`:`gid` (no supplementary groups) under
    /// this setup's `/etc` overlay: the configuration is whatever [`Setup::install_config`] put
    /// at the default path, or none. Otherwise as [`Setup::configure`], without
    /// `GUARDED_SH_CONFIG`. Needs root.
    pub fn as_user(&self, uid: u32, gid: u32, args: &[&str]) -> Command {
        let mut argv: Vec<std::ffi::OsString> = vec![
            "setpriv".into(),
            format!("--reuid={uid}").into(),
            format!("--regid={gid}").into(),
            "--clear-groups".into(),
            BIN.into(),
        ];
        argv.extend(args.iter().map(Into::into));
        let mut c = in_etc_overlay(&self.etc(), &argv);
        self.configure(&mut c);
        c.env_remove("GUARDED_SH_CONFIG");
        c
    }

    /// Runs the binary with `args` and stdin from `/dev/null`.
    pub fn output(&self, args: &[&str]) -> Output {
        self.command(args).stdin(Stdio::null()).output().unwrap()
    }

    /// Runs the binary with `args` and `input` on stdin (written while the output is read).
    pub fn output_with_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        output_with_stdin(self.command(args), input)
    }

    /// Every audit record, parsed and validated against the schema's `audit_record` (a line
    /// that does not parse, or a record that does not validate, fails the test).
    pub fn audit(&self) -> Vec<serde_json::Value> {
        audit_records(&self.path("audit.jsonl"))
    }
}

/// The records of a JSON-lines audit file (none when it is missing), each checked against the
/// schema: every record a test reads is a record the schema must describe.
pub fn audit_records(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(audit_record)
        .collect()
}

/// One audit record's JSON text, parsed and checked against the schema.
pub fn audit_record(json: &str) -> serde_json::Value {
    let record = serde_json::from_str(json).unwrap_or_else(|e| panic!("audit line {json:?}: {e}"));
    crate::audit_schema::assert_valid("audit_record", &record);
    record
}

/// A command running `argv` in a private mount namespace where `/etc` is overlaid by `upper`
/// (root-owned, mode 0755), so a test can give an unprivileged run a configuration at the default
/// path without changing the host. Without `upper/guarded-sh` the host's `/etc/guarded-sh` is
/// hidden (a whiteout), so "no configuration" means none. Needs root.
pub fn in_etc_overlay(upper: &Path, argv: &[std::ffi::OsString]) -> Command {
    static MOUNTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let hidden = upper.join("guarded-sh");
    if hidden.symlink_metadata().is_err() {
        let status = Command::new("mknod")
            .arg(&hidden)
            .args(["c", "0", "0"])
            .status()
            .unwrap();
        assert!(status.success(), "mknod {}", hidden.display());
    }
    // Each mount its own (empty) work directory, next to the upper layer (the same filesystem).
    let n = MOUNTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = upper.with_file_name(format!("etc-work-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let mut c = Command::new("unshare");
    c.args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(
            "mount -t overlay overlay -o \"lowerdir=/etc,upperdir=$1,workdir=$2\" /etc \
             || exit 125; shift 2; exec \"$@\"",
        )
        .arg("sh")
        .arg(upper)
        .arg(&work)
        .args(argv);
    c
}

/// `config` with what the host's defaults point outside `dir` pointed inside it, unless set.
fn contained(config: &str, dir: &Path) -> String {
    let mut table: toml::Table = config
        .parse()
        .unwrap_or_else(|e| panic!("test configuration does not parse: {e}\n{config}"));
    let inside = |name: &str| toml::Value::from(dir.join(name).display().to_string());
    contain_audit(&mut table, dir);
    for (section, key, value) in [
        ("policy", "cache_dir", inside("no-policy-cache")),
        ("approval", "dir", inside("no-approvals")),
    ] {
        let entry = table
            .entry(section)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let toml::Value::Table(t) = entry {
            t.entry(key).or_insert(value);
        }
    }
    toml::to_string(&table).unwrap()
}

/// The host's default audit sinks kept inside `dir`: no system log unless the test names one
/// (`system_log`, or its old alias `syslog`), and then, unless the test names a file or a
/// system log, the file `dir/audit.jsonl` (a decision no sink records is denied).
fn contain_audit(table: &mut toml::Table, dir: &Path) {
    let entry = table
        .entry("audit")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let toml::Value::Table(audit) = entry else {
        return;
    };
    let system_log_named = ["system_log", "syslog"]
        .iter()
        .any(|k| audit.contains_key(*k));
    let system_log_on = audit.get("syslog").and_then(toml::Value::as_bool) == Some(true)
        || audit
            .get("system_log")
            .and_then(toml::Value::as_str)
            .is_some_and(|v| v != "off");
    if !system_log_named {
        audit.insert("system_log".into(), toml::Value::from("off"));
    }
    if !system_log_on && !audit.contains_key("file") {
        let file = dir.join("audit.jsonl").display().to_string();
        audit.insert("file".into(), toml::Value::from(file));
    }
}

/// Runs `cmd` with piped stdio and `input` on stdin, written from a thread while the output is
/// read (so a large input cannot deadlock against a full stdout pipe).
pub fn output_with_stdin(mut cmd: Command, input: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Bytes as text, lossily (for messages and comparisons).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The rows of the table `tests/NAME`: (line number, tab-separated fields), without blank lines
/// and `#` comment lines.
pub fn table(name: &str) -> Vec<(usize, Vec<String>)> {
    let path = Path::new(REPO).join("tests").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_string).collect()))
        .collect()
}

/// A table field's escapes: `\n` is a newline, `\t` a tab and `\\` a backslash; other
/// backslashes stay as written.
pub fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut chars = field.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('n') => {
                    chars.next();
                    out.push('\n');
                }
                Some('t') => {
                    chars.next();
                    out.push('\t');
                }
                Some('\\') => {
                    chars.next();
                    out.push('\\');
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
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

/// Held by the tests that bound wall-clock time and by those that load the machine (200
/// processes at once, valgrind), so that in the one test binary a bound is not measured beside
/// such a load (each was its own test binary, run one after another, before).
pub fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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

/// A session of the real hook, as guarded-sh starts one (`bash --noprofile --rcfile
/// share/interactive.bash -i`), run through `wrapper` (say `setsid -c -w`; empty for none), with
/// `bin` as its check server, the configuration `config`, a home of its own and nothing else
/// from the environment.
pub fn hook_session(
    wrapper: &[&str],
    bin: &std::ffi::OsStr,
    config: &Path,
    home: &Path,
) -> Command {
    let mut c = match wrapper.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg("bash");
            c
        }
        None => Command::new("bash"),
    };
    c.arg("--noprofile")
        .arg("--rcfile")
        .arg(Path::new(REPO).join("share/interactive.bash"))
        .arg("-i")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("HISTFILE", "/dev/null")
        .env("TERM", "dumb")
        .env("GUARDED_SH_BIN", bin)
        .env("GUARDED_SH_CONFIG", config);
    c
}

/// A command run on a terminal of the test's own: a pseudo-terminal as its stdin, stdout and
/// (with `stderr_on_terminal`) stderr, the other end kept to type on, and everything the command
/// shows there collected by a reader thread.
pub struct OnTerminal {
    pub child: std::process::Child,
    keyboard: std::fs::File,
    screen: std::sync::Arc<std::sync::Mutex<String>>,
}

impl OnTerminal {
    /// Spawns `command` on a new terminal (the command is consumed: its copies of the terminal
    /// close, so the screen ends when the child's do).
    pub fn spawn(mut command: Command, stderr_on_terminal: bool) -> Self {
        use std::io::Read;
        let pty = nix::pty::openpty(None, None).unwrap();
        let slave = || Stdio::from(pty.slave.try_clone().unwrap());
        let stderr = if stderr_on_terminal {
            slave()
        } else {
            Stdio::piped()
        };
        let child = command
            .stdin(slave())
            .stdout(slave())
            .stderr(stderr)
            .spawn()
            .unwrap();
        drop(command);
        drop(pty.slave);
        let keyboard = std::fs::File::from(pty.master);
        let screen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut reader = keyboard.try_clone().unwrap();
        let seen = std::sync::Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        OnTerminal {
            child,
            keyboard,
            screen,
        }
    }

    /// What the command has shown so far.
    pub fn screen(&self) -> String {
        self.screen.lock().unwrap().clone()
    }

    /// Waits until the screen shows `shown` at least `times` times (failing the test after
    /// `limit`), then types `keys`: one step of a dialogue.
    pub fn after(&mut self, shown: &str, times: usize, keys: &[u8], limit: Duration) {
        let started = Instant::now();
        while self.screen().matches(shown).count() < times {
            assert!(
                started.elapsed() < limit,
                "never showed {shown:?} {times} times; screen: {}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.keyboard.write_all(keys).unwrap();
    }

    /// Waits for the command to end (failing the test after `limit`), typing `keys` once the
    /// screen shows `prompt` when `answer` is given; then lets the last output arrive. Returns
    /// the status and whether the keys were typed.
    pub fn wait(
        &mut self,
        limit: Duration,
        answer: Option<(&str, &[u8])>,
    ) -> (std::process::ExitStatus, bool) {
        let started = Instant::now();
        let mut typed = false;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if let Some((prompt, keys)) = answer {
                if !typed && self.screen().contains(prompt) {
                    self.keyboard.write_all(keys).unwrap();
                    typed = true;
                }
            }
            assert!(started.elapsed() < limit, "hung; screen: {}", self.screen());
            std::thread::sleep(Duration::from_millis(20));
        };
        std::thread::sleep(Duration::from_millis(100));
        (status, typed)
    }
}
