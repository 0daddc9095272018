//! `RUST_BACKTRACE` / `RUST_LIB_BACKTRACE` are neutralised for guarded-sh itself but reach the
//! real shell unchanged. Why: a backtrace must never reach a deny message (noise on an SSH
//! client's stderr, and layout details of the gate), and `anyhow` with its `std` feature captures
//! one (a stack walk) for every error regorus builds, on ordinary paths.
//!
//! The shipped build's regorus links an `anyhow` without `std`, which captures nothing; the tests'
//! build turns `std` on (a dev-dependency in Cargo.toml), so that the binary under test has the
//! fault and the call in `main` has something to stop. The tests: the real shell sees the
//! variables; a failing policy gives the same message with and without them; the gate runs the
//! same instructions with `RUST_BACKTRACE=1` as without, counted by callgrind (deterministic,
//! unlike the timed comparison this replaced, which flaked in CI); and, in child processes, that
//! regorus's errors do capture in this build unless `disable_backtrace_capture` is called, which
//! turns capture off while leaving the environment as it was.

use crate::setup::{run, Setup, REPO};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[test]
fn the_real_shell_receives_backtrace_variables_unchanged() {
    let s = Setup::with("");
    let mut c = s.command(&[
        "-c",
        "printf '%s|%s' \"$RUST_BACKTRACE\" \"$RUST_LIB_BACKTRACE\"",
    ]);
    c.env("RUST_BACKTRACE", "1")
        .env("RUST_LIB_BACKTRACE", "full");
    let r = run(c, b"", Duration::from_secs(30), false);
    assert_eq!(
        (r.code, r.stdout_text().as_str()),
        (Some(0), "1|full"),
        "{}",
        r.stderr
    );
}

/// The repo's baseline plus 40 generated modules of the shape policy authors write, so that
/// parsing dominates.
fn many_policies(s: &Setup) -> PathBuf {
    let dir = s.path("many");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        Path::new(REPO).join("policies/baseline.rego"),
        dir.join("baseline.rego"),
    )
    .unwrap();
    for i in 0..40 {
        let module = format!(
            "package honey\nimport rego.v1\n\ndeny_reasons contains msg if {{\n\tinput.command.max_severity in {{\"high\", \"critical\"}}\n\tinput.target.env == \"env{i}\"\n\tsome c in input.command.detected.commands\n\tstartswith(c, \"tool{i}\")\n\tmsg := sprintf(\"tool%d on %s\", [{i}, input.target.env])\n}}\n"
        );
        std::fs::write(dir.join(format!("gen{i:02}.rego")), module).unwrap();
    }
    dir
}

/// Instructions callgrind counts for `--check ls --policy-dir DIR`, with `RUST_BACKTRACE` set to
/// `backtrace` or unset, and whether the check allowed (so that a gate failing early, on anything,
/// cannot make the counts agree).
fn instructions(s: &Setup, dir: &Path, backtrace: Option<&str>) -> (u64, bool) {
    let _exclusive = crate::setup::exclusive();
    let log = s.path("callgrind.log");
    let mut c = Command::new("valgrind");
    c.arg("--tool=callgrind")
        .arg("--callgrind-out-file=/dev/null")
        .arg(format!("--log-file={}", log.display()))
        .arg(crate::setup::BIN)
        .args(["--check", "ls", "--policy-dir", dir.to_str().unwrap()]);
    s.configure(&mut c);
    c.env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    if let Some(v) = backtrace {
        c.env("RUST_BACKTRACE", v);
    }
    let out = c
        .output()
        .expect("valgrind (apt-get install valgrind; tests/run.sh installs it)");
    let text = std::fs::read_to_string(&log).unwrap();
    let count = text
        .lines()
        .find_map(|l| l.split_once("Collected : ").map(|(_, n)| n.trim()))
        .and_then(|n| n.parse().ok());
    let count = count.unwrap_or_else(|| {
        panic!(
            "no count from callgrind: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (count, out.status.success())
}

#[test]
fn the_gate_runs_the_same_instructions_with_rust_backtrace() {
    let s = Setup::with("");
    let broken = s.write(
        "broken/honey.rego",
        "package honey\nimport rego.v1\nallow if {\n",
    );
    // Measured: with the call in `main`, 1.0001 (41 modules) and 1.003 (broken); without it,
    // 1.17 and 1.29. The slack covers the environment's size and the call itself.
    // (policy directory, whether `--check` allows: the 41 modules do, the broken one denies)
    for (dir, allows) in [
        (many_policies(&s), true),
        (broken.parent().unwrap().to_path_buf(), false),
    ] {
        let (off, off_allowed) = instructions(&s, &dir, None);
        let (on, on_allowed) = instructions(&s, &dir, Some("1"));
        assert_eq!(
            (off_allowed, on_allowed),
            (allows, allows),
            "{}: unexpected verdict",
            dir.display()
        );
        let ratio = on as f64 / off as f64;
        eprintln!(
            "{}: {off} unset, {on} with RUST_BACKTRACE=1 ({ratio:.4})",
            dir.display()
        );
        assert!(
            ratio < 1.02,
            "{}: RUST_BACKTRACE=1 costs {on} instructions against {off}: something captures backtraces",
            dir.display()
        );
    }
}

#[test]
fn a_failing_policy_gives_the_same_message_with_backtraces_requested() {
    let s = Setup::with("");
    let dir = s.write(
        "broken/honey.rego",
        "package honey\nimport rego.v1\nallow if {\n",
    );
    let dir = dir.parent().unwrap().to_str().unwrap().to_string();
    let mut outputs = Vec::new();
    for value in [None, Some("full")] {
        let mut c = s.command(&["--check", "ls", "--policy-dir", &dir]);
        c.env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE");
        if let Some(v) = value {
            c.env("RUST_BACKTRACE", v).env("RUST_LIB_BACKTRACE", v);
        }
        let out = c.output().unwrap();
        assert!(!out.status.success(), "a broken policy must not allow");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("policy error [policy.parse]"), "{text}");
        assert!(!text.to_lowercase().contains("backtrace"), "{text}");
        outputs.push(text);
    }
    assert_eq!(outputs[0], outputs[1]);
}

/// In a child process (std reads the backtrace variables once per process): whether
/// `Backtrace::capture` captures after `disable_backtrace_capture` (or without it), and whether the
/// environment, in order, is what it was. Run by `backtrace_capture_off_environment_unchanged`.
#[test]
#[ignore = "a child of backtrace_capture_off_environment_unchanged, run with --ignored"]
fn backtrace_child() {
    use std::backtrace::{Backtrace, BacktraceStatus};
    let before: Vec<_> = std::env::vars_os().collect();
    if std::env::var_os("GSH_CHILD_DISABLE").is_some() {
        guarded_sh::context::disable_backtrace_capture();
    }
    let after: Vec<_> = std::env::vars_os().collect();
    assert_eq!(before, after, "the environment changed");
    let captured = Backtrace::capture().status() == BacktraceStatus::Captured;
    let broken = regorus::Engine::new()
        .add_policy("broken.rego".into(), "package honey\nallow if {\n".into())
        .expect_err("a module with an open brace must not parse");
    let regorus_captured = broken.backtrace().status() == BacktraceStatus::Captured;
    println!("CAPTURED={captured} REGORUS_CAPTURED={regorus_captured}");
}

#[test]
fn backtrace_capture_off_environment_unchanged() {
    // (RUST_BACKTRACE, RUST_LIB_BACKTRACE, call disable_backtrace_capture, expect a capture)
    let cases: &[(Option<&str>, Option<&str>, bool, bool)] = &[
        (Some("1"), None, true, false),
        (Some("full"), Some("1"), true, false),
        (None, Some("full"), true, false),
        (Some("1"), Some("0"), true, false),
        (Some("0"), None, true, false),
        (None, None, true, false),
        // The controls: without the call these capture, so the cases above can fail.
        (Some("1"), None, false, true),
        (None, Some("full"), false, true),
    ];
    for &(rust, lib, disable, expect) in cases {
        let mut c = std::process::Command::new(std::env::current_exe().unwrap());
        c.args([
            "--ignored",
            "--exact",
            "hardening_backtrace::backtrace_child",
            "--nocapture",
        ])
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env_remove("GSH_CHILD_DISABLE");
        if let Some(v) = rust {
            c.env("RUST_BACKTRACE", v);
        }
        if let Some(v) = lib {
            c.env("RUST_LIB_BACKTRACE", v);
        }
        if disable {
            c.env("GSH_CHILD_DISABLE", "1");
        }
        let out = c.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let case = format!("RUST_BACKTRACE={rust:?} RUST_LIB_BACKTRACE={lib:?} disable={disable}");
        assert!(
            out.status.success(),
            "{case}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&format!("CAPTURED={expect} REGORUS_CAPTURED={expect}")),
            "{case}: {stdout}"
        );
    }
}
