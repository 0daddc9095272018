//! The one verdict type every surface acts on and every audit record carries: what happens to a
//! command (allow < held < deny, by strictness), the stage that decided, a stable reason id and
//! the reason text; the surfaces a verdict is reached on; and the one table from verdict to exit
//! status.

use serde::{Serialize, Serializer};

/// What happens to the command, ordered by strictness: `Allow < Held < Deny`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// Run it.
    Allow,
    /// A policy asked for approval; without one it does not run.
    Held,
    /// Do not run it.
    Deny,
}

/// The stage that reached the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Nothing objected: no policy configured, or the policy allowed.
    #[serde(rename = "")]
    Passed,
    /// The trusted escape (`HONEY_RISK_DISABLE`) skipped the gate.
    Escape,
    /// The built-in floor (a critical signal).
    BuiltIn,
    /// The interactive session's own rules (tampering, escapes, the hook's refusals).
    Session,
    /// The Rego policy.
    Policy,
    /// Approval of a held command (approved, or not).
    Approval,
    /// The gate could not decide (a policy, analysis or input error): fail closed.
    Error,
    /// The command line guarded-sh was given is not one it understands.
    Usage,
    /// The configuration could not be read or trusted.
    Config,
    /// The allowed command could not be started.
    Exec,
}

/// One decision: effect, stage, stable reason id and reason text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub effect: Effect,
    pub stage: Stage,
    /// Stable and namespaced (`policy.compile`, `trust.writable`), or the signal ID that decided.
    pub reason_id: &'static str,
    pub reason: String,
}

impl Verdict {
    /// Allowed with nothing to say (no policy, or the policy allowed).
    pub fn allow() -> Self {
        Self::new(Effect::Allow, Stage::Passed, "allow", String::new())
    }

    /// Allowed by the trusted escape.
    pub fn escape() -> Self {
        Self::new(
            Effect::Allow,
            Stage::Escape,
            "escape",
            "trusted escape HONEY_RISK_DISABLE".into(),
        )
    }

    /// Denied by `stage`.
    pub fn deny(stage: Stage, reason_id: &'static str, reason: impl Into<String>) -> Self {
        Self::new(Effect::Deny, stage, reason_id, reason.into())
    }

    /// Held by the policy for approval.
    pub fn held(reason: impl Into<String>) -> Self {
        Self::new(
            Effect::Held,
            Stage::Policy,
            "policy.require_approval",
            reason.into(),
        )
    }

    pub fn new(effect: Effect, stage: Stage, reason_id: &'static str, reason: String) -> Self {
        Verdict {
            effect,
            stage,
            reason_id,
            reason,
        }
    }

    pub fn allowed(&self) -> bool {
        self.effect == Effect::Allow
    }

    /// The stricter of two verdicts (the first on a tie).
    pub fn stricter(self, other: Verdict) -> Verdict {
        if other.effect > self.effect {
            other
        } else {
            self
        }
    }

    /// The policy's word for the effect: `allow`, `deny`, `require_approval`.
    pub fn word(&self) -> &'static str {
        match self.effect {
            Effect::Allow => "allow",
            Effect::Held => "require_approval",
            Effect::Deny => "deny",
        }
    }

    /// The audit record's `verdict`: the policy's word, with `escape` and `approved` for the
    /// allows that skipped or passed approval, and `error` where guarded-sh itself failed.
    pub fn audit_word(&self) -> &'static str {
        match (self.effect, self.stage) {
            (Effect::Allow, Stage::Escape) => "escape",
            (Effect::Allow, Stage::Approval) => "approved",
            (Effect::Deny, Stage::Config | Stage::Exec) => "error",
            _ => self.word(),
        }
    }
}

/// Serialised into the audit record as `verdict`, `stage`, `reason_id`, `reason`.
impl Serialize for Verdict {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Verdict", 4)?;
        s.serialize_field("verdict", self.audit_word())?;
        s.serialize_field("stage", &self.stage)?;
        s.serialize_field("reason_id", self.reason_id)?;
        s.serialize_field("reason", &self.reason)?;
        s.end()
    }
}

/// Where a command arrived: the audit record's `mode` and the policy's `session.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    /// `-c STRING`.
    Command,
    /// `FILE [ARG…]`.
    Script,
    /// A script on stdin.
    Stdin,
    /// The interactive session's check server.
    Interactive,
    /// One check from the session hook in a fresh process.
    Hook,
    /// `--check`, `--check-file`: analysed, never run.
    Review,
    /// `--approve`.
    Approve,
    /// A command line guarded-sh could not parse.
    Usage,
    /// A configuration that could not be loaded.
    Config,
    /// A program started inside a supervised command or session (`[supervise]`).
    Exec,
}

impl Surface {
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Command => "command",
            Surface::Script => "script",
            Surface::Stdin => "stdin",
            Surface::Interactive => "interactive",
            Surface::Hook => "hook",
            Surface::Review => "review",
            Surface::Approve => "approve",
            Surface::Usage => "usage",
            Surface::Config => "config",
            Surface::Exec => "exec",
        }
    }
}

/// Exit status of a denial on the shell surface.
pub const EXIT_DENIED: i32 = 126;
/// Exit status of a usage or configuration error (nothing ran).
pub const EXIT_USAGE: i32 = 2;
/// Review exit statuses: would be allowed, denied, held.
pub const EXIT_REVIEW_ALLOW: i32 = 0;
pub const EXIT_REVIEW_DENY: i32 = 1;
pub const EXIT_REVIEW_HELD: i32 = 3;

/// The one table from a verdict to guarded-sh's own exit status (an allowed command on the
/// shell surface exits with the real shell's status instead; `None` there).
pub fn exit_status(surface: Surface, verdict: &Verdict) -> Option<i32> {
    match (surface, verdict.stage, verdict.effect) {
        (_, Stage::Usage | Stage::Config, _) => Some(EXIT_USAGE),
        (Surface::Review, _, Effect::Allow) => Some(EXIT_REVIEW_ALLOW),
        (Surface::Review, _, Effect::Held) => Some(EXIT_REVIEW_HELD),
        (Surface::Review, _, Effect::Deny) => Some(EXIT_REVIEW_DENY),
        (Surface::Approve, _, Effect::Allow) => Some(0),
        (Surface::Approve, _, Effect::Held | Effect::Deny) => Some(1),
        (Surface::Hook, _, Effect::Allow) => Some(0),
        (_, _, Effect::Allow) => None,
        (_, _, Effect::Held | Effect::Deny) => Some(EXIT_DENIED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strictness_orders_allow_held_deny() {
        assert!(Effect::Allow < Effect::Held && Effect::Held < Effect::Deny);
        let held = Verdict::held("h");
        let deny = Verdict::deny(Stage::Policy, "policy.deny", "d");
        assert_eq!(Verdict::allow().stricter(held.clone()), held);
        assert_eq!(held.clone().stricter(deny.clone()), deny);
        assert_eq!(deny.clone().stricter(Verdict::allow()), deny);
    }

    #[test]
    fn audit_words_and_exit_statuses() {
        let deny = Verdict::deny(Stage::BuiltIn, "DISK_WIPE", "x");
        let config = Verdict::deny(Stage::Config, "config.parse", "x");
        let exec = Verdict::deny(Stage::Exec, "exec.failed", "x");
        let approved = Verdict::new(
            Effect::Allow,
            Stage::Approval,
            "approval.granted",
            "".into(),
        );
        let table: [(&Verdict, &str, Option<i32>, Option<i32>); 7] = [
            (&Verdict::allow(), "allow", None, Some(0)),
            (&Verdict::escape(), "escape", None, Some(0)),
            (&approved, "approved", None, Some(0)),
            (&Verdict::held("r"), "require_approval", Some(126), Some(3)),
            (&deny, "deny", Some(126), Some(1)),
            (&config, "error", Some(2), Some(2)),
            (&exec, "error", Some(126), Some(1)),
        ];
        for (v, word, shell, review) in table {
            assert_eq!(v.audit_word(), word, "{v:?}");
            assert_eq!(exit_status(Surface::Command, v), shell, "{v:?}");
            assert_eq!(exit_status(Surface::Review, v), review, "{v:?}");
        }
        let usage = Verdict::deny(Stage::Usage, "usage", "x");
        assert_eq!(exit_status(Surface::Command, &usage), Some(2));
        assert_eq!(exit_status(Surface::Hook, &deny), Some(126));
        assert_eq!(exit_status(Surface::Hook, &Verdict::allow()), Some(0));
        // `--approve`: approved 0, refused 1, not configured or unusable 2.
        let refused = Verdict::deny(Stage::Approval, "approval.self", "x");
        assert_eq!(exit_status(Surface::Approve, &approved), Some(0));
        assert_eq!(exit_status(Surface::Approve, &refused), Some(1));
        assert_eq!(exit_status(Surface::Approve, &config), Some(2));
    }

    #[test]
    fn serialises_as_the_records_fields() {
        let v = serde_json::to_value(Verdict::deny(Stage::BuiltIn, "DISK_WIPE", "why")).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"verdict": "deny", "stage": "built_in", "reason_id": "DISK_WIPE", "reason": "why"})
        );
        let v = serde_json::to_value(Verdict::allow()).unwrap();
        assert_eq!(v["stage"], "");
    }
}
