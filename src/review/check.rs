//! `--check` in the reference engine's line format (and `--json`), with the optional ShellCheck
//! and advisory lines; `--list-signals`, `--explain`, `--policy-test`; `--check-file` is in
//! `script`. Exit statuses: 0 would be allowed, 1 would be denied, 3 would be held for
//! approval, 2 usage error.

use super::shellcheck;
use crate::app::{self, Gated, Review as Overrides};
use crate::config::Config;
use crate::context::Context;
use crate::decision::{Mode, Stage, Verdict};
use crate::invocation::{Review, ReviewAction};
use crate::policy::input::Detected;
use crate::policy::tests_runner;
use crate::signals::{self, catalogue, lookup};
use serde_json::json;
use std::fmt::Write as _;

pub const EXIT_ALLOW: i32 = 0;
pub const EXIT_DENY: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_HELD: i32 = 3;

pub fn run(ctx: &Context, config: &Config, review: &Review) -> i32 {
    match &review.action {
        ReviewAction::Check(cmd) => check(ctx, config, review, cmd),
        ReviewAction::CheckFile(path) => super::script::check_file(ctx, config, review, path),
        ReviewAction::ListSignals => {
            for s in catalogue() {
                println!(
                    "{}\t{}\t{}\t{}",
                    s.id,
                    s.severity,
                    s.family.as_str(),
                    s.reason
                );
            }
            EXIT_ALLOW
        }
        ReviewAction::Explain(id) => explain(id),
        ReviewAction::PolicyTest(dir) => match tests_runner::run_tests(dir) {
            Ok(report) => {
                for line in &report.lines {
                    println!("{line}");
                }
                println!("{} passed, {} failed", report.passed, report.failed);
                if report.failed == 0 {
                    EXIT_ALLOW
                } else {
                    EXIT_DENY
                }
            }
            Err(e) => {
                eprintln!("guarded-sh: policy test [{}]: {e}", e.reason_id());
                EXIT_DENY
            }
        },
    }
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
    EXIT_ALLOW
}

fn check(ctx: &Context, config: &Config, review: &Review, cmd: &str) -> i32 {
    let overrides = Overrides {
        dry_run: true,
        policy_dir: review.policy_dir.clone(),
        target: review.target.clone(),
        env: review.env.clone(),
        host_vars: review.host_vars.clone(),
    };
    let escape = false;
    let gated = app::evaluate(
        ctx,
        config,
        cmd,
        Mode::Command,
        "review",
        escape,
        &overrides,
    );
    // The verdict is fixed above; the extras only add text.
    let extras = Extras {
        shellcheck: review.shellcheck.then(|| shellcheck::check(ctx, cmd)),
        advisory: crate::advisory::Session::from_context(ctx, &config.advisory)
            .map(|s| s.advise(cmd, &gated.signals)),
    };
    if review.json {
        let mut out = json_report(cmd, &gated);
        out["decision"]["policy_dir"] = json!(app::policy_dir(ctx, config, &overrides));
        if let Some(sc) = &extras.shellcheck {
            out["shellcheck"] = sc.json();
        }
        if let Some(a) = &extras.advisory {
            out["advisory"] = crate::advisory::json(a);
        }
        super::emit(&format!("{out}\n"));
    } else {
        super::emit(&text_report(cmd, &gated, &extras));
    }
    match gated.verdict {
        Verdict::Allow { .. } => EXIT_ALLOW,
        Verdict::Deny { .. } => EXIT_DENY,
        Verdict::Hold { .. } => EXIT_HELD,
    }
}

/// What `--check` shows besides the verdict: ShellCheck (`--shellcheck`) and the advisory
/// (`HONEY_RISK_LLM`).
#[derive(Default)]
pub struct Extras {
    pub shellcheck: Option<shellcheck::Report>,
    pub advisory: Option<Result<crate::advisory::Advice, crate::advisory::AdvisoryError>>,
}

/// The reference engine's `--check` lines.
pub fn text_report(cmd: &str, gated: &Gated, extras: &Extras) -> String {
    let mut out = String::new();
    let max = signals::max_severity(&gated.signals).map_or("none", |s| s.as_str());
    let _ = writeln!(out, "Command: {cmd}");
    let _ = writeln!(out, "Risk: {max}");
    for s in &gated.signals {
        let _ = writeln!(out, "  - [{}] {}: {}", s.severity(), s.id(), s.reason());
    }
    let d = Detected::of(&gated.analysis);
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

fn decision_line(gated: &Gated) -> String {
    match &gated.verdict {
        Verdict::Deny {
            reason,
            stage: Stage::BuiltIn | Stage::Session,
        } => {
            let reason = reason.strip_prefix("command risk: ").unwrap_or(reason);
            format!("Decision: DENY (built-in critical: {reason})")
        }
        _ if !gated.policy_configured => {
            "Decision: allow (no policy configured; only built-in critical patterns deny)".into()
        }
        Verdict::Allow { .. } => format!("Policy[{}]: allow", gated.target.name),
        Verdict::Deny { reason, .. } => format!("Policy[{}]: deny — {reason}", gated.target.name),
        Verdict::Hold { reason } => {
            format!("Policy[{}]: require_approval — {reason}", gated.target.name)
        }
    }
}

/// The machine form of `--check`.
pub fn json_report(cmd: &str, gated: &Gated) -> serde_json::Value {
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
            "reason": gated.verdict.reason(),
            "policy_configured": gated.policy_configured,
            "policy": gated.policy,
        },
    })
}
