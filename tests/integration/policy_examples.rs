//! Every shipped example policy next to the shipped baseline, end to end through the binary
//! (`tests/review/examples.tsv`): `--check` (a dry run) prints the expected `Policy[...]` line
//! exactly and the shell surface runs or denies the command. Each case loads
//! `policies/baseline.rego` plus the one example under test. The six reference examples are
//! pinned byte-for-byte to the reference document's text, and the baseline is checked to define
//! nothing they define (no `default`, no complete rule), so no pair can conflict.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{table, unescape};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_guarded-sh");

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/examples")
}

/// sha256 of each reference example as the reference document (seed 000, "Example policy" and
/// "More policy patterns") prints it, one file per policy ending in one newline.
const REFERENCE_TEXT: &[(&str, &str)] = &[
    (
        "prod_guard",
        "d6759e3da263c8eca89763e86b331dc588b6d88ab03baa0fa7cc6d40c8a6bc72",
    ),
    (
        "command_allowlist",
        "88678ae235b9a6b0ff84bb7cd0a26fa33e7b17f5156e91574a529036941655f6",
    ),
    (
        "prod_tier_guard",
        "ba9fc68f7ac3241652516973c53b4aff6f440de82abfa3865beaf4fd6abad4a5",
    ),
    (
        "dry_run_bypass",
        "687b28d24cdf935c19bc863518cdb23e99d35fa10668ff83c0c166584b2196a7",
    ),
    (
        "require_approval_high",
        "66fa8cad6e1f149599931453e2fd75eb14de2fdfc9c15310bcd4df673339e683",
    ),
    (
        "interpreter_gate",
        "1cd1fb71db9993ec23f1e0e35698b89bc72952c17c280f1fd4eb0b129f22823c",
    ),
];

#[test]
fn reference_examples_are_the_reference_text() {
    for (name, expected) in REFERENCE_TEXT {
        let bytes = std::fs::read(examples().join(format!("{name}.rego"))).unwrap();
        let got: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(&got, expected, "{name}.rego differs from the reference");
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("package honey\nimport rego.v1\n\ndefault allow := true\n"));
    }
}

/// A rule head at the start of a line: `default x`, `x := …`, `x if …`, `x = …`; the baseline
/// may only have `deny_reasons contains` and `approval_reasons contains` heads.
#[test]
fn baseline_only_adds_to_the_reason_sets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("policies/baseline.rego")).unwrap();
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()))
        .filter(|l| !l.starts_with("package ") && !l.starts_with("import "))
        .collect();
    assert!(heads.len() >= 4, "{heads:?}");
    for head in heads {
        assert!(
            head.starts_with("deny_reasons contains ")
                || head.starts_with("approval_reasons contains "),
            "the baseline defines more than the reason sets: {head}"
        );
    }
    // The copy the examples directory links to is the same file.
    assert_eq!(
        std::fs::read_to_string(examples().join("baseline.rego")).unwrap(),
        text
    );
}

struct Case {
    line: usize,
    example: String,
    command: String,
    env: String,
    host_vars: Vec<(String, String)>,
    check: String,
    runs: bool,
    denial: String,
}

fn cases() -> Vec<Case> {
    table("review/examples.tsv")
        .into_iter()
        .map(|(line, f)| {
            let [example, command, env, vars, check, shell, denial] = f.as_slice() else {
                panic!("examples.tsv:{line}: 7 columns expected, got {f:?}");
            };
            let dash = |s: &str| {
                if s == "-" {
                    String::new()
                } else {
                    s.to_string()
                }
            };
            let host_vars = dash(vars)
                .split(',')
                .filter(|kv| !kv.is_empty())
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    (k.to_string(), v.to_string())
                })
                .collect();
            assert!(["runs", "denied"].contains(&shell.as_str()), "line {line}");
            Case {
                line,
                example: example.clone(),
                command: unescape(command),
                env: dash(env),
                host_vars,
                check: check.clone(),
                runs: shell == "runs",
                denial: dash(denial),
            }
        })
        .collect()
}

fn policy_dir(root: &Path, example: &str) -> PathBuf {
    let dir = root.join(example);
    if dir.is_dir() {
        return dir;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/baseline.rego");
    std::fs::copy(baseline, dir.join("baseline.rego")).unwrap();
    let file = format!("{example}.rego");
    std::fs::copy(examples().join(&file), dir.join(&file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    dir
}

fn run(cmd: &mut Command) -> Output {
    cmd.env_remove("HONEY_POLICY_DIR")
        .env_remove("HONEY_RISK_DISABLE")
        .env_remove("HONEY_RISK_LLM")
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The `--check` exit status for a verdict word.
fn check_status(check: &str) -> i32 {
    match check.split(' ').next() {
        Some("allow") => 0,
        Some("deny") => 1,
        Some("require_approval") => 3,
        other => panic!("unknown verdict {other:?}"),
    }
}

#[test]
fn every_example_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let cases = cases();
    // Every example file is covered, and each one loads next to the baseline.
    let mut names: Vec<String> = std::fs::read_dir(examples())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rego") && !n.ends_with("_test.rego") && n != "baseline.rego")
        .map(|n| n.trim_end_matches(".rego").to_string())
        .collect();
    names.sort();
    for name in &names {
        assert!(
            cases.iter().any(|c| &c.example == name),
            "{name} has no row in tests/review/examples.tsv"
        );
    }
    assert_eq!(
        names.len(),
        7,
        "six reference examples and the autonomy tiers"
    );
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let dir = policy_dir(tmp.path(), &case.example);
        let command = case
            .command
            .replace("{tmp}", &tmp.path().display().to_string());
        let label = format!(
            "examples.tsv:{} {} `{command}` env={:?} vars={:?}",
            case.line, case.example, case.env, case.host_vars
        );

        // The review surface: a dry run, with the target context on the command line.
        let mut check = Command::new(BIN);
        check
            .args(["--check", &command, "--policy-dir"])
            .arg(&dir)
            .args(["--env", &case.env, "--target", "web-1"])
            .env("HOME", &home);
        for (k, v) in &case.host_vars {
            check.args(["--host-var", &format!("{k}={v}")]);
        }
        // An empty configuration: the built-in defaults (a named file must exist).
        let defaults = tmp.path().join("empty.toml");
        std::fs::write(&defaults, "").unwrap();
        check.env("GUARDED_SH_CONFIG", &defaults);
        let out = run(&mut check);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let policy_line = stdout
            .lines()
            .find(|l| l.starts_with("Policy[web-1]: "))
            .unwrap_or_default();
        let expected_line = format!("Policy[web-1]: {}", case.check);
        if out.status.code() != Some(check_status(&case.check)) || policy_line != expected_line {
            failures.push(format!(
                "{label}: --check exit {:?} line {policy_line:?}, expected {expected_line:?}\n{stdout}{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }

        // The shell surface: the same context from the configuration, not a dry run.
        let config = tmp.path().join(format!("config-{i}.toml"));
        let cache = tmp.path().join(format!("cache-{i}"));
        std::fs::create_dir_all(&cache).unwrap();
        let vars: String = case
            .host_vars
            .iter()
            .map(|(k, v)| format!("{k} = \"{v}\"\n"))
            .collect();
        std::fs::write(
            &config,
            format!(
                "[audit]\nsyslog = false\nfile = \"{}\"\n[policy]\nallow_env_dir = false\ndir = \"{}\"\ncache_dir = \"{}\"\n[target]\nname = \"web-1\"\nenv = \"{}\"\n[target.host_vars]\n{vars}",
                tmp.path().join(format!("audit-{i}.jsonl")).display(),
                dir.display(),
                cache.display(),
                case.env,
            ),
        )
        .unwrap();
        let out = run(Command::new(BIN)
            .args(["-c", &command])
            .env("HOME", &home)
            .env("GUARDED_SH_CONFIG", &config));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let denied = out.status.code() == Some(126) && stderr.starts_with("guarded-sh: denied: ");
        if case.runs == denied || (!case.runs && !stderr.contains(&case.denial)) {
            failures.push(format!(
                "{label}: shell exit {:?} stderr {stderr:?}",
                out.status.code()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
