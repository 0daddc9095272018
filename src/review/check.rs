//! `--check` in the reference engine's line format (and `--json`), with the optional ShellCheck
//! and advisory lines; `--list-signals`, `--explain` (`--check-file` is in `script`,
//! `--policy-test` in `policy_test`). Exit statuses: 0 would be allowed, 1 would be denied,
//! 3 would be held for approval, 2 usage error.

use super::shellcheck;
use crate::config::Config;
use crate::context::Context;
use crate::gate::Assessment;
use crate::invocation::{Review, ReviewAction};
use crate::policy::input::Detected;
use crate::signals::{self, catalogue, lookup};
use crate::verdict::{exit_status, Effect, Stage, Surface};
use serde_json::json;
use std::fmt::Write as _;

use crate::verdict::{EXIT_REVIEW_ALLOW, EXIT_USAGE};

pub fn run(ctx: &Context, config: &Config, review: &Review) -> i32 {
    match &review.action {
        ReviewAction::Check(cmd) => check(ctx, config, review, cmd),
        ReviewAction::CheckFile(path) => super::script::check_file(ctx, config, review, path),
        ReviewAction::ListSignals => list_signals(review.json),
        ReviewAction::Explain(id) => explain(id),
        ReviewAction::PolicyTest(request) => super::policy_test::run(request),
        ReviewAction::Input(cmd) => super::input::run(ctx, config, review, cmd),
    }
}

/// One line per signal ID (`ID<TAB>severities<TAB>family<TAB>reasons`, an ID the reference
/// gives several reasons or severities listing each once, joined by ` | `), or with `--json`
/// one object per ID with its entries.
fn list_signals(json: bool) -> i32 {
    let mut ids: Vec<&str> = Vec::new();
    for s in catalogue() {
        if !ids.contains(&s.id) {
            ids.push(s.id);
        }
    }
    let join = |values: Vec<String>| {
        let mut unique: Vec<String> = Vec::new();
        for v in values {
            if !unique.contains(&v) {
                unique.push(v);
            }
        }
        unique.join(" | ")
    };
    if json {
        let list: Vec<serde_json::Value> = ids
            .iter()
            .map(|id| {
                let specs = lookup(id);
                json!({
                    "id": id,
                    "entries": specs.iter().map(|s| json!({
                        "severity": s.severity.as_str(),
                        "family": s.family.as_str(),
                        "reason": s.reason,
                        "explain": s.explain,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(list));
        return EXIT_REVIEW_ALLOW;
    }
    for id in ids {
        let specs = lookup(id);
        println!(
            "{id}\t{}\t{}\t{}",
            join(specs.iter().map(|s| s.severity.to_string()).collect()),
            join(
                specs
                    .iter()
                    .map(|s| s.family.as_str().to_string())
                    .collect()
            ),
            join(specs.iter().map(|s| s.reason.to_string()).collect()),
        );
    }
    EXIT_REVIEW_ALLOW
}

fn explain(id: &str) -> i32 {
    let specs = lookup(id);
    if specs.is_empty() {
        eprintln!("guarded-sh: unknown signal '{id}' (see --list-signals)");
        return EXIT_USAGE;
    }
    for s in specs {
        println!(
            "{} ({}, {}): {}",
            s.id,
            s.severity,
            s.family.as_str(),
            s.reason
        );
        println!("  {}", s.explain);
    }
    EXIT_REVIEW_ALLOW
}

fn check(ctx: &Context, config: &Config, review: &Review, cmd: &str) -> i32 {
    let gated = super::decide(ctx, config, review, cmd);
    // The verdict is fixed above; the extras only add text.
    let extras = Extras {
        shellcheck: review.shellcheck.then(|| shellcheck::check(ctx, cmd)),
        advisory: crate::advisory::Session::from_context(ctx, &config.advisory)
            .map(|s| s.advise(cmd, &gated.signals)),
    };
    let (policy_dir, policy_digest) = super::policy_used(ctx, config, review, &gated);
    if review.json {
        let mut out = json_report(cmd, &gated);
        out["policy_dir"] = json!(policy_dir);
        out["policy_digest"] = json!(policy_digest);
        // Where it was first reported; kept so that readers of the older field keep working.
        out["decision"]["policy_dir"] = json!(policy_dir);
        if let Some(sc) = &extras.shellcheck {
            out["shellcheck"] = sc.json();
        }
        if let Some(a) = &extras.advisory {
            out["advisory"] = crate::advisory::json(a);
        }
        super::emit(&format!("{out}\n"));
    } else {
        if let Some(note) = super::policy_note(policy_dir.as_deref(), &policy_digest) {
            eprintln!("{note}");
        }
        super::emit(&text_report(cmd, &gated, &extras));
    }
    exit_status(Surface::Review, &gated.verdict).unwrap_or(EXIT_USAGE)
}

/// What `--check` shows besides the verdict: ShellCheck (`--shellcheck`) and the advisory
/// (`HONEY_RISK_LLM`).
#[derive(Default)]
pub struct Extras {
    pub shellcheck: Option<shellcheck::Report>,
    pub advisory: Option<Result<crate::advisory::Advice, crate::advisory::AdvisoryError>>,
}

/// The reference engine's `--check` lines.
pub fn text_report(cmd: &str, gated: &Assessment, extras: &Extras) -> String {
    let mut out = String::new();
    let max = signals::max_severity(&gated.signals).map_or("none", |s| s.as_str());
    let _ = writeln!(out, "Command: {cmd}");
    let _ = writeln!(out, "Risk: {max}");
    for s in &gated.signals {
        let _ = writeln!(out, "  - [{}] {}: {}", s.severity(), s.id(), s.reason());
    }
    let d = super::reference::detected(&gated.analysis);
    if !d.commands.is_empty() {
        let _ = writeln!(
            out,
            "Detected: commands=[{}] flags=[{}] paths=[{}]",
            d.commands.join(" "),
            d.flags.join(" "),
            d.paths.join(" ")
        );
    }
    for line in extras.shellcheck.iter().flat_map(|s| s.lines("")) {
        let _ = writeln!(out, "{line}");
    }
    for line in extras.advisory.iter().flat_map(crate::advisory::lines) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", decision_line(gated));
    out
}

fn decision_line(gated: &Assessment) -> String {
    let (v, target) = (&gated.verdict, &gated.target.name);
    match (v.effect, v.stage) {
        (Effect::Deny, Stage::BuiltIn | Stage::Session) => format!(
            "Decision: DENY (built-in critical: {})",
            super::reference::reason(gated)
        ),
        _ if !gated.policy_configured => {
            "Decision: allow (no policy configured; only built-in critical patterns deny)".into()
        }
        _ => format!(
            "Policy[{target}]: {}{}",
            v.word(),
            super::reference::tail(gated)
        ),
    }
}

/// The machine form of `--check`.
pub fn json_report(cmd: &str, gated: &Assessment) -> serde_json::Value {
    let max = signals::max_severity(&gated.signals).map(|s| s.as_str());
    json!({
        "command": cmd,
        "max_severity": max.unwrap_or(""),
        "critical": max == Some("critical"),
        "riskSignals": gated.signals,
        "detected": Detected::of(&gated.analysis),
        "classes": gated.input["command"]["classes"],
        "target": gated.target,
        "decision": {
            "verdict": gated.verdict.word(),
            "reason": super::reference::reason(gated),
            "policy_configured": gated.policy_configured,
            "policy": gated.policy,
        },
    })
}
