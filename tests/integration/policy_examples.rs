//! Every shipped example policy, end to end through the binary: `--check` (a dry run) and the
//! shell surface, each with a target context that triggers it and one that does not. Each case
//! loads `policies/examples/baseline.rego` (the shared defaults) plus the example(s) under test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_guarded-sh");

struct Case {
    examples: &'static [&'static str],
    command: &'static str,
    env: &'static str,
    host_vars: &'static [(&'static str, &'static str)],
    /// `--check` exit: 0 allow, 1 deny, 3 held.
    check: i32,
    /// On the shell surface: false when it must be denied (126), true when it must run.
    runs: bool,
    /// Text the check's `Policy[...]` line must contain.
    reason: &'static str,
    /// Text the shell surface's denial must contain (when it does not run).
    denial: &'static str,
}

impl Case {
    /// The command, with `{tmp}` (where a command that runs may write) the test's directory.
    fn command(&self, tmp: &Path) -> String {
        self.command.replace("{tmp}", &tmp.display().to_string())
    }
}

const CASES: &[Case] = &[
    Case {
        examples: &["prod_guard"],
        command: "kubectl delete pod x -n prod",
        env: "prod",
        host_vars: &[],
        check: 1,
        runs: false,
        reason: "high-risk command on prod",
        denial: "high-risk command on prod",
    },
    Case {
        examples: &["prod_guard"],
        command: "kubectl delete pod x -n prod",
        env: "staging",
        host_vars: &[],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["prod_tier_guard"],
        command: "helm uninstall app",
        env: "",
        host_vars: &[("tier", "prod")],
        check: 1,
        runs: false,
        reason: "high-risk command blocked on prod tier",
        denial: "high-risk command blocked on prod tier",
    },
    Case {
        examples: &["prod_tier_guard"],
        command: "helm uninstall app",
        env: "",
        host_vars: &[("tier", "dev")],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["command_allowlist"],
        command: "systemctl status nginx",
        env: "",
        host_vars: &[],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["command_allowlist"],
        command: "ls /tmp",
        env: "",
        host_vars: &[],
        check: 1,
        runs: false,
        reason: "command not in allowlist",
        denial: "command not in allowlist",
    },
    Case {
        examples: &["command_allowlist"],
        command: "echo ok; /bin/ls",
        env: "",
        host_vars: &[],
        check: 1,
        runs: false,
        reason: "command not in allowlist",
        denial: "command not in allowlist",
    },
    Case {
        examples: &["require_approval_high"],
        command: "sudo -n true",
        env: "",
        host_vars: &[],
        check: 3,
        runs: false,
        reason: "high-risk command requires approval",
        denial: "approval required",
    },
    Case {
        examples: &["require_approval_high"],
        command: "echo hi",
        env: "",
        host_vars: &[],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["interpreter_gate"],
        command: "python3 -c 'print(1)'",
        env: "prod",
        host_vars: &[],
        check: 1,
        runs: false,
        reason: "python steps are not allowed on prod",
        denial: "python steps are not allowed on prod",
    },
    Case {
        examples: &["interpreter_gate"],
        command: "python3 -c 'print(1)'",
        env: "dev",
        host_vars: &[],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["dry_run_bypass", "prod_guard"],
        command: "kubectl delete pod x -n prod",
        env: "prod",
        host_vars: &[],
        check: 0,
        runs: false,
        reason: "allow",
        denial: "high-risk command on prod",
    },
    Case {
        examples: &["dry_run_bypass", "prod_guard"],
        command: "echo fine",
        env: "prod",
        host_vars: &[],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["autonomy_tiers"],
        command: "ls /tmp",
        env: "",
        host_vars: &[("autonomy", "read-only")],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["autonomy_tiers"],
        command: "touch {tmp}/gsh-autonomy",
        env: "",
        host_vars: &[("autonomy", "read-only")],
        check: 1,
        runs: false,
        reason: "autonomy read-only blocks write",
        denial: "autonomy read-only blocks write",
    },
    Case {
        examples: &["autonomy_tiers"],
        command: "touch {tmp}/gsh-autonomy",
        env: "",
        host_vars: &[("autonomy", "supervised")],
        check: 3,
        runs: false,
        reason: "autonomy supervised requires approval",
        denial: "approval required",
    },
    Case {
        examples: &["autonomy_tiers"],
        command: "touch {tmp}/gsh-autonomy",
        env: "",
        host_vars: &[("autonomy", "full")],
        check: 0,
        runs: true,
        reason: "allow",
        denial: "",
    },
    Case {
        examples: &["autonomy_tiers"],
        command: "curl -s http://127.0.0.1:9/",
        env: "",
        host_vars: &[("autonomy", "full")],
        check: 3,
        runs: false,
        reason: "autonomy full requires approval for network",
        denial: "approval required",
    },
];

fn policy_dir(root: &Path, case: &Case) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/examples");
    let dir = root.join(case.examples.join("+"));
    std::fs::create_dir_all(&dir).unwrap();
    for name in std::iter::once("baseline").chain(case.examples.iter().copied()) {
        let file = format!("{name}.rego");
        std::fs::copy(src.join(&file), dir.join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    dir
}

fn toml_host_vars(vars: &[(&str, &str)]) -> String {
    vars.iter()
        .map(|(k, v)| format!("{k} = \"{v}\"\n"))
        .collect()
}

fn run(cmd: &mut Command) -> Output {
    cmd.env_remove("HONEY_POLICY_DIR")
        .env_remove("HONEY_RISK_DISABLE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn every_example_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let dir = policy_dir(tmp.path(), case);
        let command = case.command(tmp.path());
        let label = format!(
            "#{i} {:?} `{}` env={:?} vars={:?}",
            case.examples, command, case.env, case.host_vars
        );

        // The review surface: a dry run, with the target context on the command line.
        let mut check = Command::new(BIN);
        check
            .args(["--check", &command, "--policy-dir"])
            .arg(&dir)
            .args(["--env", case.env, "--target", "web-1"]);
        for (k, v) in case.host_vars {
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
        if out.status.code() != Some(case.check) || !policy_line.contains(case.reason) {
            failures.push(format!(
                "{label}: --check exit {:?} line {policy_line:?}\n{stdout}",
                out.status.code()
            ));
        }

        // The shell surface: the same context from the configuration, not a dry run.
        let config = tmp.path().join(format!("config-{i}.toml"));
        let cache = tmp.path().join(format!("cache-{i}"));
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::write(
            &config,
            format!(
                "[audit]\nsyslog = false\nfile = \"{}\"\n[policy]\nallow_env_dir = false\ndir = \"{}\"\ncache_dir = \"{}\"\n[target]\nname = \"web-1\"\nenv = \"{}\"\n[target.host_vars]\n{}",
                tmp.path().join(format!("audit-{i}.jsonl")).display(),
                dir.display(),
                cache.display(),
                case.env,
                toml_host_vars(case.host_vars)
            ),
        )
        .unwrap();
        let out = run(Command::new(BIN)
            .args(["-c", &command])
            .env("GUARDED_SH_CONFIG", &config));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let denied = out.status.code() == Some(126) && stderr.starts_with("guarded-sh: denied: ");
        if case.runs == denied || (!case.runs && !stderr.contains(case.denial)) {
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
        CASES.len(),
        failures.join("\n")
    );
}
