//! Signals during the decision (issue 19, item 9), through the built binary: SIGTERM, SIGINT and
//! SIGHUP that land while the policy evaluates, while the gate waits for a program on stdin, or
//! at the approval prompt (Ctrl-C on a real pseudo-terminal) end with a final deny record
//! (`interrupted`), nothing runs (a marker file the command would create stays absent), and the
//! process dies of the signal. A signal after the decision, or one the caller ignores, is the
//! real command's business, as without guarded-sh.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{OnTerminal, Setup, BIN};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A policy that spins until its budget or time runs out: the evaluation takes from a few
/// hundred ms (the RVM's instruction budget) to 3 s (the interpreter's timeout), and denies.
const SPINNING: &str = "package honey\nimport rego.v1\ndefault deny_reason := \"\"\n\
default decision := \"allow\"\nallow if { not spin }\n\
spin if { some i in numbers.range(1, 3000); some j in numbers.range(1, 3000); i * j == -1 }\n";

/// A child with its stderr collected as it comes.
struct Watched {
    child: Child,
    stderr: Arc<Mutex<String>>,
}

impl Watched {
    fn spawn(mut c: Command) -> Self {
        c.env("GUARDED_SH_LOG", "debug").stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut err = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let seen = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Watched { child, stderr }
    }

    /// Waits until stderr shows `line` (the child is then at that stage of the decision).
    fn wait_for(&mut self, line: &str) {
        let started = Instant::now();
        while !self.stderr.lock().unwrap().contains(line) {
            assert!(
                self.child.try_wait().unwrap().is_none(),
                "ended before {line:?}: {}",
                self.stderr.lock().unwrap()
            );
            assert!(started.elapsed() < Duration::from_secs(30), "no {line:?}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn signal(&self, signal: Signal) {
        kill(Pid::from_raw(self.child.id() as i32), signal).unwrap();
    }

    fn finish(mut self) -> (ExitStatus, String) {
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "hung");
            std::thread::sleep(Duration::from_millis(10));
        };
        std::thread::sleep(Duration::from_millis(50));
        let stderr = self.stderr.lock().unwrap().clone();
        (status, stderr)
    }
}

/// The configuration with `policy` in its policy directory (no cache: the evaluation is the
/// slow one).
fn with_policy(policy: &str) -> Setup {
    let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\nallow_env_dir = false\n");
    s.write("policies/honey.rego", policy);
    s
}

/// The process died of `signal`, the last record is the interruption with `when` in its reason,
/// and the marker is absent.
fn assert_interrupted(s: &Setup, status: ExitStatus, stderr: &str, signal: Signal, when: &str) {
    let name = signal.as_str();
    assert_eq!(
        status.signal(),
        Some(signal as i32),
        "{name}: {status:?}: {stderr}"
    );
    let reason = format!("interrupted by {name} {when}; nothing was run");
    assert!(
        stderr.contains(&format!("guarded-sh: denied: {reason}")),
        "{name}: {stderr}"
    );
    let audit = s.audit();
    let last = audit.last().unwrap_or_else(|| panic!("{name}: no record"));
    assert_eq!(last["verdict"], "deny", "{name}: {last}");
    assert_eq!(last["reason_id"], "interrupted", "{name}: {last}");
    assert_eq!(last["reason"], reason.as_str(), "{name}: {last}");
    assert!(!s.path("ran").exists(), "{name}: the command ran");
}

#[test]
fn a_signal_while_the_policy_evaluates_ends_with_a_record_and_nothing_runs() {
    for signal in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        let s = with_policy(SPINNING);
        let mut c = s.command(&["-c", &s.expand("touch {dir}/ran")]);
        c.stdin(Stdio::null()).stdout(Stdio::null());
        let mut w = Watched::spawn(c);
        // Printed after the analysis, just before the policy is loaded and asked.
        w.wait_for("stage=\"analysis\"");
        w.signal(signal);
        let (status, stderr) = w.finish();
        assert_interrupted(&s, status, &stderr, signal, "before a decision");
        assert_eq!(s.audit().len(), 1, "{:?}", s.audit());
    }
}

/// Held deterministically: the gate waits for the program `python3 -` reads from a stdin pipe
/// this test keeps open (the wait is bounded, seconds long).
#[test]
fn a_signal_while_the_gate_reads_a_program_from_stdin_ends_with_a_record() {
    let s = Setup::with("[policy]\nenabled = false\n");
    let mut c = s.command(&["-c", &s.expand("touch {dir}/ran; python3 -")]);
    c.stdin(Stdio::piped()).stdout(Stdio::null());
    let mut w = Watched::spawn(c);
    let mut stdin = w.child.stdin.take().unwrap();
    stdin.write_all(b"print('half a program')\n").unwrap();
    w.wait_for("stage=\"invocation\"");
    std::thread::sleep(Duration::from_millis(300));
    w.signal(Signal::SIGTERM);
    let (status, stderr) = w.finish();
    drop(stdin);
    assert_interrupted(&s, status, &stderr, Signal::SIGTERM, "before a decision");
}

/// Held while guarded-sh reads the script itself from a stdin pipe that stays open.
#[test]
fn a_signal_while_a_script_is_read_from_stdin_ends_with_a_record() {
    let s = Setup::with("[policy]\nenabled = false\n");
    let mut c = s.command(&["-s"]);
    c.stdin(Stdio::piped()).stdout(Stdio::null());
    let mut w = Watched::spawn(c);
    let mut stdin = w.child.stdin.take().unwrap();
    stdin
        .write_all(s.expand("touch {dir}/ran\n").as_bytes())
        .unwrap();
    w.wait_for("stage=\"invocation\"");
    std::thread::sleep(Duration::from_millis(300));
    w.signal(Signal::SIGHUP);
    let (status, stderr) = w.finish();
    drop(stdin);
    assert_interrupted(&s, status, &stderr, Signal::SIGHUP, "before a decision");
    assert_eq!(s.audit().last().unwrap()["mode"], "stdin");
}

/// Ctrl-C at the terminal confirmation: the held record, then the final deny under the same
/// decision id; the process dies of SIGINT, so a calling shell stops too.
#[test]
fn ctrl_c_at_the_approval_prompt_ends_with_a_record_and_nothing_runs() {
    const HOLDING: &str = "package honey\nimport rego.v1\ndefault allow := true\n\
default decision := \"allow\"\ndecision := \"require_approval\" if {\n\
input.command.max_severity == \"high\"\nnot input.execution.approved\n}\n";
    let s = Setup::with(
        "[policy]\ndir = \"{dir}/policies\"\nallow_env_dir = false\n[target]\nname = \"web-1\"\n",
    );
    s.write("policies/honey.rego", HOLDING);
    // Without -w, setsid execs in place (a spawned child leads no process group), so the
    // child is guarded-sh itself and its status shows the signal.
    let mut c = Command::new("setsid");
    let command = s.expand("rm -rf {dir}/scratch && touch {dir}/ran");
    c.args(["-c", BIN, "-c", &command]);
    s.configure(&mut c);
    let mut run = OnTerminal::spawn(c, true);
    let ctrl_c = ("Type the host name (web-1)", b"\x03".as_slice());
    let (status, typed) = run.wait(Duration::from_secs(30), Some(ctrl_c));
    let screen = run.screen();
    assert!(typed, "no prompt: {screen}");
    assert_interrupted(
        &s,
        status,
        &screen,
        Signal::SIGINT,
        "while waiting for approval",
    );
    let audit = s.audit();
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(audit[0]["verdict"], "require_approval", "{audit:?}");
    assert_eq!(
        audit[0]["decision_id"], audit[1]["decision_id"],
        "{audit:?}"
    );
}

/// After the decision the command is on its own: a SIGTERM then kills the real command as it
/// would without guarded-sh, and adds no record; the command starts with no signal blocked.
#[test]
fn a_signal_after_the_decision_is_the_commands_own() {
    let s = Setup::with("[policy]\nenabled = false\n");
    let script =
        s.expand("grep SigBlk /proc/self/status > {dir}/mask; touch {dir}/ran; exec sleep 30");
    let mut c = s.command(&["-c", &script]);
    c.stdin(Stdio::null()).stdout(Stdio::null());
    let w = Watched::spawn(c);
    let started = Instant::now();
    while !s.path("ran").exists() {
        assert!(started.elapsed() < Duration::from_secs(30), "never ran");
        std::thread::sleep(Duration::from_millis(5));
    }
    w.signal(Signal::SIGTERM);
    let (status, stderr) = w.finish();
    assert_eq!(status.signal(), Some(Signal::SIGTERM as i32), "{stderr}");
    let mask = std::fs::read_to_string(s.path("mask")).unwrap();
    assert_eq!(
        mask.split_whitespace().nth(1),
        Some("0000000000000000"),
        "{mask}"
    );
    let audit = s.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["verdict"], "allow", "{audit:?}");
}

/// A signal the caller ignores (a background job's SIGINT) is not taken either: the decision
/// goes on and the allowed command runs.
#[test]
fn a_signal_the_caller_ignores_does_not_interrupt() {
    let s = with_policy(
        "package honey\nimport rego.v1\ndefault deny_reason := \"\"\ndefault decision := \"allow\"\n\
         allow if { not spin }\n\
         spin if { some i in numbers.range(1, 300); some j in numbers.range(1, 300); i * j == -1 }\n",
    );
    let mut c = Command::new("/bin/bash");
    let command = s.expand("touch {dir}/ran");
    c.args(["-c", "trap '' INT; exec \"$0\" -c \"$1\"", BIN, &command]);
    s.configure(&mut c);
    c.stdin(Stdio::null()).stdout(Stdio::null());
    let mut w = Watched::spawn(c);
    w.wait_for("stage=\"analysis\"");
    w.signal(Signal::SIGINT);
    let (status, stderr) = w.finish();
    assert_eq!(status.code(), Some(0), "{status:?}: {stderr}");
    assert!(s.path("ran").exists(), "{stderr}");
    let audit = s.audit();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0]["verdict"], "allow", "{audit:?}");
}

/// The real shell gets exactly the mask the caller gave guarded-sh (std's `Command::exec`
/// keeps the mask; guarded-sh blocks its three signals only until the decision is final, then
/// puts the original back): SIGHUP blocked by the caller stays blocked, nothing else is.
#[test]
fn the_real_shell_gets_the_callers_signal_mask() {
    let s = Setup::with("[policy]\nenabled = false\n");
    let script = s.expand("grep SigBlk /proc/self/status > {dir}/mask");
    let mut c = Command::new("python3");
    c.args([
        "-c",
        "import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP}); \
         os.execv(sys.argv[1], sys.argv[1:])",
        BIN,
        "-c",
        &script,
    ]);
    s.configure(&mut c);
    let out = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mask = std::fs::read_to_string(s.path("mask")).unwrap();
    assert_eq!(
        mask.split_whitespace().nth(1),
        Some("0000000000000001"),
        "{mask}"
    );
}
