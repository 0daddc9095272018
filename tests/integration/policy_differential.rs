//! Differential test of the shipped policies: the regorus interpreter and the RVM (cached) must
//! give the same decision (or both fail) for every policy set × input. With `$POLICY_ORACLE_OUT`
//! set (`tests/oracle/run.sh` sets it), the cases and results are written there for
//! `tests/oracle/opa_diff.py`, which checks them against the real OPA engine.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use guarded_sh::policy::engine::{
    load_with, Backend, BackendKind, CacheMode, CacheStatus, Limits, LoadOptions, Policy,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A schema-v1 input for `raw`, with JSON-merge-style overrides.
fn input(raw: &str, cmd: &str, severity: &str, classes: &[&str], overrides: Value) -> Value {
    let mut base = json!({
        "action": "command_exec", "actor": "alice", "schema_version": 1,
        "command": {
            "raw": raw, "max_severity": severity, "interpreter": "", "critical": severity == "critical",
            "riskSignals": if severity.is_empty() { json!([]) } else {
                json!([{"id": "SIGNAL", "severity": severity, "reason": "test signal", "command": cmd}])
            },
            "detected": {"commands": [cmd], "flags": [], "paths": []},
            "classes": classes,
        },
        "target": {"name": "web-1", "provider": "ssh", "env": "dev", "host_vars": {}},
        "execution": {"recipe": "", "dry_run": false, "approved": false},
        "session": {"mode": "command", "interactive": false, "tty": false, "login": false,
            "ssh": {"client": "127.0.0.1 5555 22", "original_command": ""},
            "user": "alice", "uid": 1000, "cwd": "/home/alice"},
    });
    merge(&mut base, overrides);
    base
}

fn merge(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                merge(b.entry(k).or_insert(Value::Null), v);
            }
        }
        (b, p) => *b = p,
    }
}

fn inputs() -> Vec<Value> {
    let prod = json!({"target": {"env": "prod"}});
    let prod_tier = json!({"target": {"host_vars": {"tier": "prod"}}});
    let dry = json!({"execution": {"dry_run": true}});
    let approved = json!({"execution": {"approved": true}});
    let tier = |t: &str| json!({"target": {"host_vars": {"autonomy": t}}});
    let interp =
        |i: &str, env: &str| json!({"command": {"interpreter": i}, "target": {"env": env}});
    let none = json!({});
    let mut cases = vec![
        input("ls -la", "ls", "", &["read"], none.clone()),
        input("cat /etc/hosts", "cat", "", &["read"], prod.clone()),
        input("echo hi", "echo", "", &["read"], prod_tier.clone()),
        input(
            "scp -t /tmp",
            "scp",
            "",
            &["write", "network"],
            prod.clone(),
        ),
        input(
            "/usr/lib/openssh/sftp-server",
            "sftp-server",
            "",
            &["network"],
            prod.clone(),
        ),
        input(
            "rsync --server -vlogDtpre.iLsfxC . /srv",
            "rsync",
            "",
            &["write"],
            prod.clone(),
        ),
        input(
            "git-upload-pack '/srv/r.git'",
            "git-upload-pack",
            "",
            &["read"],
            prod.clone(),
        ),
        input(
            "kubectl delete pod x -n prod",
            "kubectl",
            "high",
            &["destructive"],
            prod.clone(),
        ),
        input(
            "kubectl delete pod x",
            "kubectl",
            "high",
            &["destructive"],
            none.clone(),
        ),
        input(
            "kubectl delete pod x",
            "kubectl",
            "high",
            &["destructive"],
            prod_tier.clone(),
        ),
        input(
            "helm uninstall web",
            "helm",
            "high",
            &["destructive"],
            approved.clone(),
        ),
        input(
            "helm uninstall web",
            "helm",
            "high",
            &["destructive"],
            json!({"target": {"env": "prod"}, "execution": {"approved": true}}),
        ),
        input(
            "kubectl delete pod x",
            "kubectl",
            "high",
            &["destructive"],
            json!({"target": {"env": "prod"}, "execution": {"dry_run": true}}),
        ),
        input(
            "systemctl restart nginx",
            "systemctl",
            "medium",
            &["write"],
            prod.clone(),
        ),
        input(
            "rm -rf build",
            "rm",
            "medium",
            &["destructive"],
            dry.clone(),
        ),
        input("rm -rf /", "rm", "critical", &["destructive"], none.clone()),
        input(
            "dd if=/dev/zero of=/dev/sda",
            "dd",
            "critical",
            &["destructive"],
            prod.clone(),
        ),
        input(
            "curl http://x | sh",
            "curl",
            "high",
            &["network"],
            none.clone(),
        ),
        input(
            "apt-get install nmap",
            "apt-get",
            "medium",
            &["install"],
            prod.clone(),
        ),
        input(
            "python3 -c 'print(1)'",
            "python3",
            "",
            &["read"],
            interp("python3", "prod"),
        ),
        input(
            "python3 -c 'print(1)'",
            "python3",
            "",
            &["read"],
            interp("python3", "dev"),
        ),
        input(
            "python -c 1",
            "python",
            "low",
            &["read"],
            interp("python3.11", "prod"),
        ),
        input("node -e 1", "node", "", &["read"], interp("node", "prod")),
        input(
            "journalctl -u ssh",
            "journalctl",
            "low",
            &["read"],
            json!({"actor": "cli"}),
        ),
        input("ls", "ls", "", &["read"], json!({"schema_version": 2})),
        input("ls", "ls", "", &["read"], json!({"action": "mcp_exec"})),
        input("", "", "", &[], none.clone()),
    ];
    for t in ["read-only", "supervised", "full", "yolo"] {
        for classes in [
            &["read"][..],
            &["write"],
            &["network", "read"],
            &["install"],
            &["destructive", "write"],
        ] {
            cases.push(input("tool x", "tool", "", classes, tier(t)));
        }
    }
    cases.push(input("git push", "git", "medium", &["write", "network"], json!({"target": {"host_vars": {"autonomy": "supervised"}}, "execution": {"approved": true}})));
    cases.push(input(
        "tool",
        "tool",
        "",
        &[],
        json!({"command": {"classes": null}, "target": {"host_vars": {"autonomy": "full"}}}),
    ));
    cases
}

/// (name, directory, module files, test files) of every policy set.
fn policy_sets(scratch: &Path) -> Vec<(String, PathBuf)> {
    let examples = root().join("policies/examples");
    // One example at a time next to the baseline: the reference examples each bring
    // `default allow := true`, so they never load all together.
    let mut sets = vec![("baseline".to_string(), root().join("policies"))];
    let mut names: Vec<String> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rego") && !n.ends_with("_test.rego") && n != "baseline.rego")
        .collect();
    names.sort();
    for name in names {
        let dir = scratch.join(name.trim_end_matches(".rego"));
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["baseline.rego", &name, &name.replace(".rego", "_test.rego")] {
            std::fs::copy(examples.join(file), dir.join(file)).unwrap();
        }
        sets.push((format!("baseline+{}", name.trim_end_matches(".rego")), dir));
    }
    sets
}

fn outcome(policy: &Policy, input: &Value) -> Value {
    match policy.evaluate(input) {
        Ok(d) => serde_json::to_value(&d).unwrap(),
        Err(e) => json!({"error": e.reason_id()}),
    }
}

fn files_of(dir: &Path, tests: bool) -> Vec<Value> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rego") && n.ends_with("_test.rego") == tests)
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| json!({"name": n, "source": std::fs::read_to_string(dir.join(n)).unwrap()}))
        .collect()
}

#[test]
fn interpreter_and_rvm_agree_on_shipped_policies() {
    let scratch = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let inputs = inputs();
    assert!(inputs.len() >= 30);
    let mut report = Vec::new();
    let mut mismatches = Vec::new();
    let mut verdicts = std::collections::BTreeMap::new();
    for (name, dir) in policy_sets(scratch.path()) {
        let options = |backend| LoadOptions {
            cache: CacheMode::Dir(cache.path().to_path_buf()),
            backend,
            limits: Limits::default(),
        };
        let interpreter = load_with(&dir, &options(Backend::Interpreter)).unwrap();
        let rvm = load_with(&dir, &options(Backend::Rvm)).unwrap();
        let cached = load_with(&dir, &options(Backend::Rvm)).unwrap();
        assert_eq!(rvm.backend(), BackendKind::Rvm, "{name}");
        assert_eq!(cached.cache_status(), &CacheStatus::Hit, "{name}");
        let mut cases = Vec::new();
        for input in &inputs {
            let expected = outcome(&interpreter, input);
            for (label, other) in [("rvm", &rvm), ("rvm cached", &cached)] {
                let got = outcome(other, input);
                if got != expected {
                    mismatches.push(format!(
                        "{name} [{label}] {}: {got} != {expected}",
                        input["command"]["raw"]
                    ));
                }
            }
            if let Some(word) = interpreter.evaluate(input).ok().map(|d| d.verdict_word()) {
                *verdicts.entry(word).or_insert(0) += 1;
            }
            cases.push(json!({"input": input, "result": expected}));
        }
        report.push(json!({
            "set": name,
            "modules": files_of(&dir, false),
            "tests": files_of(&dir, true),
            "cases": cases,
        }));
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    // The table exercises every verdict.
    assert!(verdicts.len() == 3, "{verdicts:?}");
    // Only for the oracle: a plain `cargo test` writes nothing outside its temporary directories.
    let Some(out) = std::env::var_os("POLICY_ORACLE_OUT").map(PathBuf::from) else {
        println!("verdicts (interpreter): {verdicts:?}; POLICY_ORACLE_OUT unset, nothing written");
        return;
    };
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&out, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    println!("verdicts (interpreter): {verdicts:?}");
    println!(
        "wrote {} sets x {} inputs to {}",
        report.len(),
        inputs.len(),
        out.display()
    );
}
