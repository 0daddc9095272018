//! `--check-file FILE` (a script, a history file, or `-` for stdin): one block per step in the
//! reference's recipe-check format, or with `--json` the dry-run `{"risk_assessment": […]}`.
//! Each step is decided on its own; the whole file is decided too, exactly as the shell surface
//! gates it, and reported when it is stricter than every step (constants set in one step and
//! used in another). Exit: 0 all allowed, 1 any denied, 3 any held (none denied), 2 usage.

use super::reference;
use super::shellcheck;
use super::split::{self, Step};
use crate::config::Config;
use crate::context::Context;
use crate::gate::Assessment;
use crate::invocation::Review;
use crate::policy::input::Detected;
use crate::signals;
use crate::verdict::{exit_status, Effect, Stage, Surface, EXIT_USAGE};
use serde_json::{json, Value};
use std::io::Read;
use std::path::Path;

/// Largest file read for review, in bytes (the analysis applies its own, smaller, bound).
const MAX_FILE: u64 = 16 << 20;

pub fn check_file(ctx: &Context, config: &Config, review: &Review, path: &Path) -> i32 {
    let text = match read(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("guarded-sh: {e}");
            return EXIT_USAGE;
        }
    };
    let steps = split::steps(&text, config.limits.max_bytes);
    let gated: Vec<Assessment> = steps
        .iter()
        .map(|s| super::decide(ctx, config, review, &s.text))
        .collect();
    let whole = super::decide(ctx, config, review, &text);
    let worst_step = gated.iter().map(|g| g.verdict.effect).max();
    let whole_stricter = whole.verdict.effect > worst_step.unwrap_or(Effect::Allow);
    // The advisory and ShellCheck only add text after every verdict above is fixed.
    let session = crate::advisory::Session::from_context(ctx, &config.advisory);
    let advisories: Vec<_> = steps
        .iter()
        .zip(&gated)
        .map(|(s, g)| session.as_ref().map(|a| a.advise(&s.text, &g.signals)))
        .collect();
    let shellcheck = review.shellcheck.then(|| shellcheck::check(ctx, &text));
    let (policy_dir, policy_digest) = super::policy_used(ctx, config, review, &whole);
    if review.json {
        let mut out = json!({
            "risk_assessment": steps.iter().zip(&gated).zip(&advisories).enumerate()
                .map(|(i, ((s, g), a))| assessment(i, s, g, a.as_ref())).collect::<Vec<_>>(),
        });
        if whole_stricter {
            out["script_assessment"] = assessment(
                steps.len(),
                &Step {
                    text: text.clone(),
                    line: 1,
                },
                &whole,
                None,
            );
        }
        if let Some(sc) = &shellcheck {
            out["shellcheck"] = sc.json();
        }
        out["policy_dir"] = json!(policy_dir);
        out["policy_digest"] = json!(policy_digest);
        super::emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&out).unwrap_or_default()
        ));
    } else {
        if let Some(note) = super::policy_note(policy_dir.as_deref(), &policy_digest) {
            eprintln!("{note}");
        }
        super::emit(&text_report(
            &steps,
            &gated,
            &advisories,
            whole_stricter.then_some(&whole),
            shellcheck.as_ref(),
        ));
    }
    let strictest = gated
        .iter()
        .chain([&whole])
        .map(|g| &g.verdict)
        .max_by_key(|v| v.effect)
        .unwrap_or(&whole.verdict);
    exit_status(Surface::Review, strictest).unwrap_or(EXIT_USAGE)
}

fn read(path: &Path) -> Result<String, String> {
    let mut buf = Vec::new();
    let result = if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(MAX_FILE + 1)
            .read_to_end(&mut buf)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_FILE + 1).read_to_end(&mut buf))
    };
    result.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if buf.len() as u64 > MAX_FILE {
        return Err(format!("{} is over {MAX_FILE} bytes", path.display()));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

type Advice = Result<crate::advisory::Advice, crate::advisory::AdvisoryError>;
type Advisory = Option<Advice>;

/// The recipe-check blocks.
pub fn text_report(
    steps: &[Step],
    gated: &[Assessment],
    advisories: &[Advisory],
    whole: Option<&Assessment>,
    shellcheck: Option<&shellcheck::Report>,
) -> String {
    let mut out = Vec::new();
    if steps.is_empty() {
        out.push("No command/script steps to check.".to_string());
    }
    for (i, ((step, g), a)) in steps.iter().zip(gated).zip(advisories).enumerate() {
        out.push(format!(
            "Step {i} [command] host={}: {}",
            g.target.name,
            step.first_line()
        ));
        block(&mut out, g, a.as_ref());
    }
    if let Some(g) = whole {
        out.push(format!(
            "Script [whole file] host={}: as the shell surface gates it",
            g.target.name
        ));
        block(&mut out, g, None);
    }
    if let Some(sc) = shellcheck {
        out.extend(sc.lines(""));
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

fn block(out: &mut Vec<String>, g: &Assessment, advisory: Option<&Advice>) {
    let max = signals::max_severity(&g.signals).map_or("none", |s| s.as_str());
    out.push(format!("  Risk: {max}"));
    for s in &g.signals {
        out.push(format!(
            "    - [{}] {}: {}",
            s.severity(),
            s.id(),
            s.reason()
        ));
    }
    if let Some(a) = advisory {
        out.extend(
            crate::advisory::lines(a)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
    }
    let v = &g.verdict;
    out.push(match (v.effect, v.stage) {
        (Effect::Deny, Stage::BuiltIn | Stage::Session) => format!(
            "  Decision: DENY (built-in critical: {})",
            reference::reason(g)
        ),
        _ if !g.policy_configured => "  Decision: allow (no policy configured)".to_string(),
        _ => format!("  Policy: {}{}", v.word(), reference::tail(g)),
    });
}

/// One `risk_assessment` entry, with the reference's keys.
pub fn assessment(index: usize, step: &Step, g: &Assessment, advisory: Option<&Advice>) -> Value {
    let max = signals::max_severity(&g.signals).map(|s| s.as_str());
    let mut entry = json!({
        "step_index": index,
        "kind": "command",
        "host": g.target.name,
        "command": step.text,
        "line": step.line,
        "analysis": {
            "signals": g.signals,
            "detected": Detected::of(&g.analysis),
            "max_severity": max.unwrap_or(""),
            "critical": max == Some("critical"),
        },
    });
    if let Some(d) = decision(g) {
        entry["decision"] = d;
    }
    if let Some(a) = advisory {
        entry["advisory"] = crate::advisory::json(a);
    }
    entry
}

/// The nested decision object, keys capitalised like the reference's Go struct; `None` when no
/// policy is configured. A step the built-in floor or a policy error decided reads as a deny,
/// its `DenyReason` the reason the text shows ([`reference::reason`]).
pub fn decision(g: &Assessment) -> Option<Value> {
    if !g.policy_configured {
        return None;
    }
    Some(match &g.policy {
        Some(p) => json!({
            "Allow": p.allow,
            "DenyReason": p.deny_reason,
            "Decision": p.verdict_word(),
            "Requires": if p.requires.is_empty() { Value::Null } else { json!(p.requires) },
        }),
        None => json!({
            "Allow": g.verdict.allowed(),
            "DenyReason": reference::reason(g),
            "Decision": g.verdict.word(),
            "Requires": Value::Null,
        }),
    })
}
