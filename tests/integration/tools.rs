//! The subcommand tools catalogue (`programs::tools`) checked against its own examples: every
//! row's `matches` raise its signal through the whole analysis (lowering, wrappers, readings),
//! and its `not_matches` do not; every row names an entry of the signal catalogue, and every
//! example is classed `destructive` when its entry is of the destructive family.

use guarded_sh::analysis::analyse;
use guarded_sh::parse::Limits;
use guarded_sh::programs::tools::TOOLS;
use guarded_sh::signals::classes::{classes_with, CommandClass};
use guarded_sh::signals::platform::spec_named;
use guarded_sh::signals::{detect, Family};

#[test]
fn every_row_matches_its_examples_and_not_its_look_alikes() {
    let mut failures = Vec::new();
    let mut examples = 0;
    for tool in TOOLS {
        for rule in tool.rules {
            let Some(spec) = spec_named(rule.signal) else {
                failures.push(format!(
                    "{:?}: {} names no catalogue entry",
                    tool.names, rule.signal
                ));
                continue;
            };
            assert!(
                !rule.matches.is_empty(),
                "{:?} {:?}: a row needs at least one example",
                tool.names,
                rule.path
            );
            for (text, want) in rule
                .matches
                .iter()
                .map(|m| (m, true))
                .chain(rule.not_matches.iter().map(|n| (n, false)))
            {
                examples += 1;
                let analysis = analyse(text, &Limits::default());
                let signals = detect(&analysis);
                let raised = signals
                    .iter()
                    .any(|s| s.id() == spec.id && s.reason() == spec.reason);
                if raised != want {
                    failures.push(format!(
                        "{text:?}: {} {} (signals: {:?})",
                        spec.id,
                        if want { "missing" } else { "raised" },
                        signals.iter().map(|s| s.id()).collect::<Vec<_>>()
                    ));
                }
                let destructive =
                    classes_with(&analysis, &signals).contains(&CommandClass::Destructive);
                if want && spec.family == Family::Destructive && !destructive {
                    failures.push(format!("{text:?}: not classed destructive"));
                }
            }
        }
    }
    assert!(examples > 100, "only {examples} examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same row through wrappers and with its words only known through a default: the
/// catalogue is read wherever the command is found.
#[test]
fn rows_are_seen_through_wrappers_and_defaults() {
    for text in [
        "sudo -u deploy git -C /srv/app push --force",
        "timeout 900 terraform destroy -auto-approve",
        "nice git push -f origin master",
        "env GIT_SSH_COMMAND='ssh -i k' git push --force origin main",
        "zpool destroy ${POOL:-tank}",
        "bash -c 'kubectl -n prod delete ns web'",
    ] {
        let analysis = analyse(text, &Limits::default());
        let signals = detect(&analysis);
        assert!(
            signals
                .iter()
                .any(|s| s.severity() >= guarded_sh::signals::Severity::High
                    && s.spec.family != Family::Structure),
            "{text}: {:?}",
            signals.iter().map(|s| s.id()).collect::<Vec<_>>()
        );
    }
}

/// Every wrapper of `programs::wrappers` around a critical command is critical, and around an
/// everyday one is not: the rows are read where the command is found.
#[test]
fn every_wrapper_row_runs_what_it_wraps() {
    use guarded_sh::decision::{builtin, Mode};
    use guarded_sh::programs::wrappers::WRAPPERS;
    let mut failures = Vec::new();
    for w in WRAPPERS {
        for name in w.names {
            let mut words: Vec<String> = vec![name.to_string()];
            words.extend(
                w.path
                    .iter()
                    .map(|alternatives| alternatives[0].to_string()),
            );
            words.extend((0..w.skip).map(|k| format!("operand{k}")));
            for (inner, critical) in [("rm -rf /etc", true), ("ls -la", false)] {
                let text = format!("{} {inner}", words.join(" "));
                let signals = detect(&analyse(&text, &Limits::default()));
                if builtin(&signals, Mode::Command).is_some() != critical {
                    failures.push(format!(
                        "{text}: {:?}",
                        signals.iter().map(|s| s.id()).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
