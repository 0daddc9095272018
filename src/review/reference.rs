//! What the review shows in the reference engine's own terms, in one place for the text and
//! the JSON forms: the `Detected:` line (where an argument is a flag only before the command's
//! first operand) and the reason shown with a verdict.

use crate::gate::Assessment;
use crate::parse::Analysis;
use crate::policy::input::Detected;
use crate::verdict::{Effect, Stage};

/// The `Detected:` line's lists. The commands are the policy input's; the arguments are split
/// as the reference's `--check` shows them: an argument starting with `-` is a flag only while
/// no operand of its command has been seen (`rm -rf /` gives flags `-rf`; `kubectl delete pod x
/// -n prod` gives no flags and paths `delete pod x -n prod`), and after `--` everything is an
/// operand. A lone `-` (stdin) is an operand. The policy input keeps its own split.
pub fn detected(analysis: &Analysis) -> Detected {
    let mut d = Detected {
        commands: Detected::of(analysis).commands,
        ..Detected::default()
    };
    for cmd in &analysis.commands {
        match cmd.base() {
            Some("") => continue,
            None if cmd.name.raw.is_empty() => continue,
            _ => {}
        }
        let mut operands = false;
        for arg in &cmd.args {
            let text = arg
                .value()
                .map_or_else(|| arg.shown.clone(), str::to_string);
            if text.is_empty() {
                continue;
            }
            let flag = !operands && text.starts_with('-') && text != "-";
            if flag {
                operands = text == "--";
                push_unique(&mut d.flags, text);
            } else {
                operands = true;
                push_unique(&mut d.paths, text);
            }
        }
    }
    d
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// The reason shown with a verdict, the same in the text and the JSON forms: for the built-in
/// floor its signal's reason; for a policy's answer the policy's own `deny_reason`, then
/// `(requires: a, b)` when it lists any (the reference's `[ — <deny_reason>][ (requires: …)]`,
/// so an answer without a `deny_reason` shows none); for an error (a policy that does not load
/// or answer) the error; for an allow nothing.
pub fn reason(g: &Assessment) -> String {
    let v = &g.verdict;
    match (v.effect, v.stage) {
        (Effect::Allow, _) => String::new(),
        (Effect::Deny, Stage::BuiltIn | Stage::Session) => v
            .reason
            .strip_prefix("command risk: ")
            .unwrap_or(&v.reason)
            .to_string(),
        (_, Stage::Policy) => match &g.policy {
            Some(p) => policy_reason(&p.deny_reason, &p.requires),
            None => v.reason.clone(),
        },
        _ => v.reason.clone(),
    }
}

/// `deny_reason` and `(requires: …)`, each only when not empty.
fn policy_reason(deny_reason: &str, requires: &[String]) -> String {
    let requires = (!requires.is_empty()).then(|| format!("(requires: {})", requires.join(", ")));
    [
        Some(deny_reason.to_string()).filter(|r| !r.is_empty()),
        requires,
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
}

/// A verdict line's tail after the verdict word: ` — <reason>` ([`reason`]), or nothing for
/// an allow; a policy answer with `requires` but no `deny_reason` gives ` (requires: …)`, as in
/// the reference.
pub fn tail(g: &Assessment) -> String {
    let shown = reason(g);
    let requires_only = g.verdict.stage == Stage::Policy
        && g.policy.as_ref().is_some_and(|p| p.deny_reason.is_empty());
    match (shown.is_empty(), requires_only) {
        (true, _) => String::new(),
        (false, true) => format!(" {shown}"),
        (false, false) => format!(" — {shown}"),
    }
}
