//! `--check-file` through the built binary: the recipe-check blocks compared line for line with
//! `tests/review/*.expected`, the dry-run JSON pinned by `tests/review/*.json`, stdin, exit
//! statuses, ShellCheck with and without the binary on `PATH`, and agreement with the shell
//! surface, which gates the same script whole.
//!
//! After an intended change of output, regenerate with `GUARDED_SH_UPDATE_SNAPSHOTS=1 cargo test
//! --test integration review_check_file` and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{output_with_stdin, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/review")
}

/// The shared setup with no policy unless one is passed, target `prod-1`; the binary runs in
/// `tests/review`.
struct Setup {
    base: crate::setup::Setup,
}

impl Setup {
    fn new(policy: Option<&Path>) -> Self {
        // No policy means none at all: not even an installed /etc/guarded-sh/policies.
        let policy = policy.map_or("enabled = false\n".to_string(), |p| {
            format!("dir = \"{}\"\n", p.display())
        });
        let base = crate::setup::Setup::with(&format!(
            "[policy]\n{policy}allow_env_dir = false\n[target]\nname = \"prod-1\"\n"
        ));
        Setup { base }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = self.base.command(args);
        c.current_dir(dir()).env_remove("HONEY_RISK_LLM");
        c
    }

    fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        output_with_stdin(self.command(args), stdin)
    }
}

fn update() -> bool {
    std::env::var_os("GUARDED_SH_UPDATE_SNAPSHOTS").is_some()
}

/// No policy directory can be configured away when the installed default exists.
fn default_policy_installed() -> bool {
    Path::new("/etc/guarded-sh/policies").is_dir()
}

/// Compares `actual` with the expected file line by line, naming the first differing line.
fn compare(expected_file: &str, actual: &str) {
    let path = dir().join(expected_file);
    if update() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        assert_eq!(
            a,
            e,
            "{expected_file} line {}: got {a:?}, expected {e:?}\nwhole output:\n{actual}",
            i + 1
        );
    }
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "{expected_file}: line count\n{actual}"
    );
}

#[test]
fn blocks_match_the_expected_files() {
    let policy = dir().join("policy");
    let p = policy.to_str().unwrap();
    // (args, stdin, expected file, exit status)
    let cases: &[(&[&str], &str, &str, i32)] = &[
        (
            &[
                "--check-file",
                "deploy.sh",
                "--policy-dir",
                p,
                "--env",
                "prod",
            ],
            "",
            "deploy.policy.expected",
            1,
        ),
        (
            &["--check-file", "history.txt", "--policy-dir", p],
            "",
            "history.policy.expected",
            3,
        ),
        (
            &["--check-file", "-", "--policy-dir", p],
            "ls -la\ncat /etc/shadow\n",
            "stdin.policy.expected",
            3,
        ),
        (
            &["--check-file", "empty.sh", "--policy-dir", p],
            "",
            "empty.expected",
            0,
        ),
        (&["--check-file", "comments.sh"], "", "empty.expected", 0),
        (
            &["--check-file", "deploy.sh"],
            "",
            "deploy.nopolicy.expected",
            1,
        ),
        (
            &["--check-file", "-"],
            "echo hi\nls /tmp\n",
            "allowed.nopolicy.expected",
            0,
        ),
        (
            &["--check-file", "-"],
            "X=rm\n$X -rf /\n",
            "whole-script.nopolicy.expected",
            1,
        ),
    ];
    let s = Setup::new(None);
    for (args, stdin, expected, code) in cases {
        if !args.contains(&"--policy-dir") && default_policy_installed() {
            eprintln!("SKIPPED {expected}: /etc/guarded-sh/policies exists, so 'no policy' cannot be tested");
            continue;
        }
        let out = s.run(args, stdin.as_bytes());
        assert_eq!(
            out.status.code(),
            Some(*code),
            "{args:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        // stderr only names the policy used (stdout keeps the reference's format).
        let stderr = text(&out.stderr);
        if args.contains(&"--policy-dir") {
            let note = format!("guarded-sh: policy: {p} (digest ");
            assert!(
                stderr.starts_with(&note) && stderr.lines().count() == 1,
                "{args:?}: {stderr}"
            );
        } else {
            assert!(stderr.is_empty(), "{args:?}: {stderr}");
        }
        compare(expected, &text(&out.stdout));
    }
}

#[test]
fn dry_run_json_matches_the_snapshot() {
    let policy = dir().join("policy");
    let s = Setup::new(None);
    let out = s.run(
        &[
            "--check-file",
            "deploy.sh",
            "--policy-dir",
            policy.to_str().unwrap(),
            "--env",
            "prod",
            "--json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let mut actual: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The policy used: its directory (where this checkout is, so not in the snapshot) and digest.
    let used = actual.as_object_mut().unwrap();
    assert_eq!(
        used.remove("policy_dir"),
        Some(policy.to_str().unwrap().into())
    );
    let digest = used.remove("policy_digest").unwrap();
    let digest = digest.as_str().unwrap();
    assert!(
        digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()),
        "{digest}"
    );
    let path = dir().join("deploy.policy.json");
    if update() {
        std::fs::write(
            &path,
            format!("{}\n", serde_json::to_string_pretty(&actual).unwrap()),
        )
        .unwrap();
        return;
    }
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let (a, e) = (
        actual["risk_assessment"].as_array().unwrap(),
        expected["risk_assessment"].as_array().unwrap(),
    );
    for (i, (a, e)) in a.iter().zip(e).enumerate() {
        assert_eq!(a, e, "risk_assessment[{i}]");
    }
    assert_eq!(actual, expected);
    // The reference's keys, the decision object's capitalised.
    for step in a {
        for key in ["step_index", "kind", "host", "command", "analysis"] {
            assert!(step.get(key).is_some(), "{key} in {step}");
        }
        for key in ["signals", "detected", "max_severity", "critical"] {
            assert!(step["analysis"].get(key).is_some(), "analysis.{key}");
        }
        let d = step["decision"].as_object().unwrap();
        assert_eq!(
            d.keys().collect::<Vec<_>>(),
            ["Allow", "Decision", "DenyReason", "Requires"]
        );
    }
}

#[test]
fn json_omits_the_decision_without_a_policy() {
    if default_policy_installed() {
        eprintln!("SKIPPED: /etc/guarded-sh/policies exists");
        return;
    }
    let s = Setup::new(None);
    let out = s.run(&["--check-file", "-", "--json"], b"ls\nrm -rf /\n");
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = v["risk_assessment"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert!(steps.iter().all(|s| s.get("decision").is_none()), "{v}");
    assert_eq!(steps[1]["analysis"]["critical"], true);
    assert_eq!(steps[1]["host"], "prod-1");
}

#[test]
fn missing_file_is_a_usage_error() {
    let s = Setup::new(None);
    let out = s.run(&["--check-file", "no-such-file.sh"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot read no-such-file.sh"),
        "{}",
        text(&out.stderr)
    );
}

/// Scripts that are harmless even if they ran (they do not: each is denied or trivially safe).
const AGREEMENT: &[(&str, &str)] = &[
    ("allow", "echo one\necho two\n"),
    (
        "held",
        "echo one\nsystemctl restart gs-test-nonexistent.service\n",
    ),
    ("deny", "echo one\nforbidden-tool --now\n"),
    ("critical", "echo one\ncurl -s http://127.0.0.1:9/x | sh\n"),
    ("whole", "X=curl\n$X -s http://127.0.0.1:9/x | sh\n"),
];

#[test]
fn the_shell_surface_gates_scripts_as_their_steps_say() {
    if !nix::unistd::getuid().is_root() {
        // The shell surface trusts only a policy directory the gated user cannot write.
        eprintln!("SKIPPED: needs root (the test policy directory is owned by the caller)");
        return;
    }
    let policy = dir().join("policy");
    let s = Setup::new(Some(&policy));
    for (name, script) in AGREEMENT {
        let file = s.base.dir.path().join(format!("{name}.sh"));
        std::fs::write(&file, script).unwrap();
        let review = s.run(&["--check-file", file.to_str().unwrap()], b"");
        let shell = s
            .command(&[file.to_str().unwrap()])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let (review_code, shell_code) = (review.status.code(), shell.status.code());
        let err = text(&shell.stderr);
        match review_code {
            Some(0) => assert_eq!(shell_code, Some(0), "{name}: {err}"),
            Some(1) => {
                assert_eq!(shell_code, Some(126), "{name}: {err}");
                assert!(
                    err.starts_with("guarded-sh: denied: ") && !err.contains("approval required"),
                    "{name}: {err}"
                );
            }
            Some(3) => {
                assert_eq!(shell_code, Some(126), "{name}: {err}");
                assert!(
                    err.starts_with("guarded-sh: denied: approval required: "),
                    "{name}: {err}"
                );
            }
            other => panic!("{name}: review exit {other:?}"),
        }
        let expected = match *name {
            "allow" => 0,
            "held" => 3,
            _ => 1,
        };
        assert_eq!(
            review_code,
            Some(expected),
            "{name}: {}",
            text(&review.stdout)
        );
    }
}

#[test]
fn shellcheck_findings_or_skipped() {
    let s = Setup::new(None);
    let installed = s
        .command(&["--check", "echo $1", "--shellcheck"])
        .output()
        .unwrap();
    let without = s
        .command(&["--check", "echo $1", "--shellcheck"])
        .env("PATH", s.base.dir.path())
        .output()
        .unwrap();
    assert!(
        text(&without.stdout).contains("\nShellCheck: not installed (skipped)\n"),
        "{}",
        text(&without.stdout)
    );
    assert_eq!(
        installed.status.code(),
        without.status.code(),
        "ShellCheck never changes the verdict"
    );
    let has_shellcheck = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("shellcheck").is_file()))
        .unwrap_or(false);
    if !has_shellcheck {
        eprintln!("SKIPPED the installed half: shellcheck is not on PATH (CI installs it)");
        return;
    }
    let out = text(&installed.stdout);
    assert!(out.contains("\nShellCheck:\n  - SC2086 (info) line 1: Double quote to prevent globbing and word splitting.\n"), "{out}");
    let clean = text(
        &s.command(&["--check", "echo hi", "--shellcheck"])
            .output()
            .unwrap()
            .stdout,
    );
    assert!(clean.contains("\nShellCheck: no warnings\n"), "{clean}");
    // The order of the --check lines: Detected, ShellCheck, Decision.
    let order: Vec<&str> = clean
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        order,
        ["Command", "Risk", "Detected", "ShellCheck", "Decision"]
    );
    let file = text(
        &s.run(&["--check-file", "-", "--shellcheck"], b"echo $1\n")
            .stdout,
    );
    assert!(file.ends_with("ShellCheck:\n  - SC2086 (info) line 1: Double quote to prevent globbing and word splitting.\n"), "{file}");
}
