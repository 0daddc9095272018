//! Fuzzes the shell analysis and the signal families (`parse::analyse` + `signals::detect`) on
//! arbitrary bytes (converted lossily, as the shell surface does). Invariants: no panic; every
//! crossed bound raises a critical signal (fail closed); every signal is in the catalogue; the
//! decision with an allow-everything policy denies exactly when a signal is critical; and a plain
//! command line, lowered without tree-sitter, gets the IR the grammar path gives it.
#![no_main]

use guarded_sh::analysis::{analyse, analyse_grammar_only};
use guarded_sh::decision::{decide, Effect, Mode, Stage};
use guarded_sh::parse::{plain_words, Limits};
use guarded_sh::policy::decision::PolicyDecision;
use guarded_sh::signals::{self, detect, first_critical, Severity};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let analysis = analyse(&text, &Limits::default());
    let found = detect(&analysis);
    if plain_words(&text).is_some() {
        let mut reference = analyse_grammar_only(&text, &Limits::default());
        // The parser's step count is the grammar's cost (a long plain line takes some), not
        // part of what the line means; the plain path takes none.
        assert_eq!(
            analysis.parse_steps, 0,
            "the plain path counted parser steps"
        );
        reference.parse_steps = 0;
        assert_eq!(
            format!("{analysis:?}"),
            format!("{reference:?}"),
            "the plain path and the grammar differ on {text:?}"
        );
    }
    if !analysis.limits.is_empty() {
        assert!(
            found.iter().any(|s| s.severity() == Severity::Critical),
            "bounds {:?} crossed without a critical signal",
            analysis.limits
        );
    }
    for s in &found {
        assert!(
            !signals::lookup(s.id()).is_empty(),
            "{} is not in the catalogue",
            s.id()
        );
    }
    let allow_all = PolicyDecision {
        allow: true,
        deny_reason: String::new(),
        decision: "allow".into(),
        requires: Vec::new(),
    };
    for mode in [Mode::Command, Mode::Interactive] {
        let verdict = decide(false, &found, mode, Some(Ok(&allow_all)));
        if first_critical(&found).is_some() {
            assert!(
                verdict.effect == Effect::Deny && verdict.stage == Stage::BuiltIn,
                "critical signal not denied by the built-in floor: {verdict:?}"
            );
        } else if mode == Mode::Command {
            assert!(
                verdict.allowed() && verdict.stage == Stage::Passed,
                "{verdict:?}"
            );
        }
    }
});
