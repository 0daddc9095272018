//! The verdict, in the fixed order: trusted escape → built-in critical deny → Rego policy. Pure:
//! every input is a value. Nothing later in the order turns a deny into an allow; approval of a
//! held verdict is the gate's next step (`gate::approve`).

use crate::policy::decision::{PolicyDecision, PolicyVerdict};
pub use crate::policy::PolicyFailure;
use crate::signals::{first_critical, Family, Signal};
pub use crate::verdict::{Effect, Stage, Verdict};
use serde::Serialize;

/// Where the command is being decided, which changes one rule: inside an interactive session,
/// gate tampering and shell escapes are denied outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `-c`, a script, stdin, a review.
    Command,
    /// One simple command from the interactive session hook.
    Interactive,
    /// A supervised exec made by a program that is not a shell: an interactive shell it starts
    /// is a shell escape, denied outright.
    Started,
}

/// The built-in floor: the first critical signal denies, with the reference's reason
/// (`command risk: <reason>`); in an interactive session, tampering and escapes deny too.
pub fn builtin(signals: &[Signal], mode: Mode) -> Option<Verdict> {
    if let Some(s) = first_critical(signals) {
        return Some(Verdict::deny(
            Stage::BuiltIn,
            s.id(),
            format!("command risk: {}", s.reason()),
        ));
    }
    if mode == Mode::Started {
        if let Some(s) = signals
            .iter()
            .find(|s| matches!(s.id(), "INTERACTIVE_SHELL" | "UNGUARDED_SHELL_EXEC"))
        {
            return Some(Verdict::deny(
                Stage::BuiltIn,
                s.id(),
                format!("shell escape: {}", s.reason()),
            ));
        }
    }
    if mode == Mode::Interactive {
        if let Some(s) = signals
            .iter()
            .find(|s| matches!(s.spec.family, Family::Tamper | Family::Escape))
        {
            return Some(Verdict::deny(
                Stage::Session,
                s.id(),
                format!("session guard: {}", s.reason()),
            ));
        }
    }
    None
}

/// The whole order for one command. `policy` is `None` when no policy directory is configured,
/// `Some(Err(failure))` when one is configured but could not decide (fail closed).
pub fn decide(
    escape: bool,
    signals: &[Signal],
    mode: Mode,
    policy: Option<Result<&PolicyDecision, &PolicyFailure>>,
) -> Verdict {
    if escape {
        return Verdict::escape();
    }
    if let Some(deny) = builtin(signals, mode) {
        return deny;
    }
    match policy {
        None => Verdict::allow(),
        Some(Err(failure)) => Verdict::deny(Stage::Error, failure.reason_id, &failure.message),
        Some(Ok(decision)) => policy_verdict(decision),
    }
}

/// The policy's answer as a verdict (strictest wins, see [`PolicyDecision::verdict`]).
pub fn policy_verdict(decision: &PolicyDecision) -> Verdict {
    match decision.verdict() {
        PolicyVerdict::Allow => Verdict::new(
            crate::verdict::Effect::Allow,
            Stage::Passed,
            "policy.allow",
            String::new(),
        ),
        PolicyVerdict::Deny(reason) => Verdict::deny(Stage::Policy, "policy.deny", reason),
        PolicyVerdict::RequireApproval(reason) => Verdict::held(reason),
    }
}
