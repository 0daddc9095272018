//! The verdict, in the fixed order: trusted escape → built-in critical deny → Rego policy →
//! approval. Pure: every input is a value. Nothing later in the order turns a deny into an allow.

use crate::policy::decision::{PolicyDecision, PolicyVerdict};
use crate::signals::{first_critical, Family, Signal};
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
}

/// What happens to the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Run it. `escape` when the trusted escape skipped the gate.
    Allow { escape: bool },
    /// Do not run it.
    Deny { reason: String, stage: Stage },
    /// A policy asked for approval; without it, not run.
    Hold { reason: String },
}

/// The stage that decided, for messages and the audit record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Escape,
    BuiltIn,
    Session,
    Policy,
    Error,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Allow { .. } => "allow",
            Verdict::Deny { .. } => "deny",
            Verdict::Hold { .. } => "require_approval",
        }
    }

    pub fn allowed(&self) -> bool {
        matches!(self, Verdict::Allow { .. })
    }

    pub fn reason(&self) -> &str {
        match self {
            Verdict::Allow { escape: true } => "trusted escape HONEY_RISK_DISABLE",
            Verdict::Allow { escape: false } => "",
            Verdict::Deny { reason, .. } | Verdict::Hold { reason } => reason,
        }
    }
}

/// The built-in floor: the first critical signal denies, with the reference's reason
/// (`command risk: <reason>`); in an interactive session, tampering and escapes deny too.
pub fn builtin(signals: &[Signal], mode: Mode) -> Option<Verdict> {
    if let Some(s) = first_critical(signals) {
        return Some(Verdict::Deny {
            reason: format!("command risk: {}", s.reason()),
            stage: Stage::BuiltIn,
        });
    }
    if mode == Mode::Interactive {
        if let Some(s) = signals
            .iter()
            .find(|s| matches!(s.spec.family, Family::Tamper | Family::Escape))
        {
            return Some(Verdict::Deny {
                reason: format!("session guard: {}", s.reason()),
                stage: Stage::Session,
            });
        }
    }
    None
}

/// The whole order for one command. `policy` is `None` when no policy directory is configured,
/// `Some(Err(reason))` when one is configured but could not decide (fail closed).
pub fn decide(
    escape: bool,
    signals: &[Signal],
    mode: Mode,
    policy: Option<Result<&PolicyDecision, String>>,
) -> Verdict {
    if escape {
        return Verdict::Allow { escape: true };
    }
    if let Some(deny) = builtin(signals, mode) {
        return deny;
    }
    match policy {
        None => Verdict::Allow { escape: false },
        Some(Err(reason)) => Verdict::Deny {
            reason,
            stage: Stage::Error,
        },
        Some(Ok(decision)) => match decision.verdict() {
            PolicyVerdict::Allow => Verdict::Allow { escape: false },
            PolicyVerdict::Deny(reason) => Verdict::Deny {
                reason,
                stage: Stage::Policy,
            },
            PolicyVerdict::RequireApproval(reason) => Verdict::Hold { reason },
        },
    }
}
