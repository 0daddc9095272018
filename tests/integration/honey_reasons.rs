//! The text and JSON forms of a review give the same verdict and the same reason
//! (`tests/review/reasons.tsv`: allow, deny, require_approval with and without a `deny_reason`
//! or `requires`, the built-in floor, a policy that does not load): `--check`'s last line
//! against `--check --json`'s `decision.reason`, and each `--check-file` block's verdict line
//! against its `risk_assessment` entry's `DenyReason` and `Requires`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{table, text, Setup, REPO};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The verdict word and reason of a `--check` or `--check-file` verdict line.
fn parse_line(line: &str) -> (String, String) {
    let line = line.trim_start();
    if let Some(r) = line.strip_prefix("Decision: DENY (built-in critical: ") {
        return ("deny".into(), r.trim_end_matches(')').into());
    }
    if line.starts_with("Decision: allow (no policy configured") {
        return ("allow".into(), String::new());
    }
    let rest = line
        .strip_prefix("Policy: ")
        .or_else(|| line.split_once("]: ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("not a verdict line: {line:?}"));
    let (word, reason) = rest.split_once(' ').unwrap_or((rest, ""));
    let reason = reason.strip_prefix("— ").unwrap_or(reason);
    (word.into(), reason.into())
}

fn policy_dir(s: &Setup, name: &str) -> Option<PathBuf> {
    let root = Path::new(REPO);
    match name {
        "none" => None,
        "review" => Some(root.join("tests/review/policy")),
        "approval" => {
            for (from, to) in [
                ("policies/baseline.rego", "approval/baseline.rego"),
                (
                    "policies/examples/require_approval_high.rego",
                    "approval/require_approval_high.rego",
                ),
            ] {
                s.write(to, &std::fs::read_to_string(root.join(from)).unwrap());
            }
            Some(s.path("approval"))
        }
        "broken" => {
            s.write("broken/p.rego", "package honey\nallow := {\n");
            Some(s.path("broken"))
        }
        other => panic!("unknown policy set {other}"),
    }
}

#[test]
fn text_and_json_reasons_agree() {
    let s = Setup::with("[policy]\nenabled = false\n[target]\nname = \"prod-1\"\n");
    let rows = table("review/reasons.tsv");
    assert!(rows.len() >= 10);
    for (line, f) in rows {
        let [policy, command, env, verdict, reason] = f.as_slice() else {
            panic!("reasons.tsv:{line}: 5 columns expected, got {f:?}");
        };
        let row = format!("reasons.tsv:{line} {policy} `{command}`");
        let expected_reason = if reason == "-" { "" } else { reason.as_str() };
        let matches = |got: &str| match expected_reason.strip_suffix(':') {
            Some(prefix) if !prefix.is_empty() => got.starts_with(expected_reason),
            _ => got == expected_reason,
        };
        let dir = policy_dir(&s, policy);
        let script = s.write("step.sh", &format!("{command}\n"));
        let run = |args: &[&str], json: bool| {
            let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            if env != "-" {
                all.extend(["--env".into(), env.clone()]);
            }
            if let Some(d) = &dir {
                all.extend(["--policy-dir".into(), d.display().to_string()]);
            }
            if json {
                all.push("--json".into());
            }
            let all: Vec<&str> = all.iter().map(String::as_str).collect();
            s.command(&all).stdin(Stdio::null()).output().unwrap()
        };

        // --check: the last line against decision.reason.
        let out = run(&["--check", command], false);
        let stdout = text(&out.stdout);
        let (word, shown) = parse_line(stdout.lines().last().unwrap_or_default());
        let v: serde_json::Value =
            serde_json::from_slice(&run(&["--check", command], true).stdout).unwrap();
        assert_eq!(&word, verdict, "{row} text:\n{stdout}");
        assert_eq!(v["decision"]["verdict"], word.as_str(), "{row}");
        assert_eq!(
            v["decision"]["reason"],
            shown.as_str(),
            "{row}: text {shown:?}"
        );
        assert!(
            matches(&shown),
            "{row}: {shown:?}, expected {expected_reason:?}"
        );

        // --check-file: the step's verdict line against DenyReason and Requires.
        let script = script.display().to_string();
        let stdout = text(&run(&["--check-file", &script], false).stdout);
        let (word, shown) = parse_line(stdout.lines().last().unwrap_or_default());
        assert_eq!(&word, verdict, "{row} text:\n{stdout}");
        assert!(matches(&shown), "{row} --check-file: {shown:?}");
        let v: serde_json::Value =
            serde_json::from_slice(&run(&["--check-file", &script], true).stdout).unwrap();
        let step = &v["risk_assessment"][0];
        match step.get("decision") {
            // Without a policy the reference's JSON has no decision object.
            None => assert!(dir.is_none(), "{row}: {step}"),
            Some(d) => {
                assert_eq!(d["Decision"], word.as_str(), "{row}");
                let requires: Vec<String> = d["Requires"]
                    .as_array()
                    .map(|r| r.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                    .unwrap_or_default();
                let from_json = [
                    d["DenyReason"].as_str().unwrap().to_string(),
                    if requires.is_empty() {
                        String::new()
                    } else {
                        format!("(requires: {})", requires.join(", "))
                    },
                ]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
                let from_json = if word == "allow" {
                    String::new()
                } else {
                    from_json
                };
                assert_eq!(from_json, shown, "{row}: {d}");
            }
        }
    }
}
