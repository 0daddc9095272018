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

/// The escape signals a session leaves to the policy, as `-c` does: the everyday tools (an
/// editor, a pager, a REPL, a database client). Their own escapes start `$SHELL`, which the
/// session points at guarded-sh, so what they run that way is gated; what they start directly
/// (`:set shell=…`, a REPL's `os.system`) is seen under exec supervision
/// (`input.execution.supervised` tells a policy which). Refusing them was a false block and no
/// barrier: `git commit` and `crontab -e` open the same editor.
const SESSION_TOOLS: &[&str] = &["SHELL_ESCAPE_PROGRAM", "INTERACTIVE_INTERPRETER"];

/// The built-in floor: the first critical signal denies, with the reference's reason
/// (`command risk: <reason>`); in an interactive session, tampering and escapes deny too, but
/// for the everyday tools ([`SESSION_TOOLS`]).
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
        if let Some(s) = signals.iter().find(|s| {
            matches!(s.spec.family, Family::Tamper | Family::Escape)
                && !SESSION_TOOLS.contains(&s.id())
        }) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals;

    /// `(signal, denied by the session's floor)`: every escape and tampering signal is, but
    /// for the everyday tools; on `-c` none of them is (none is critical).
    #[test]
    fn the_session_floor_leaves_the_everyday_tools_to_the_policy() {
        for (id, in_session) in [
            ("SHELL_ESCAPE_PROGRAM", false),
            ("INTERACTIVE_INTERPRETER", false),
            ("INTERACTIVE_SHELL", true),
            ("EDITOR_RUNS_COMMAND", true),
            ("INTERPRETER_SPAWNS_SHELL", true),
            ("COMMAND_OPTION_EXEC", true),
        ] {
            let spec = signals::catalogue()
                .find(|s| s.id == id)
                .unwrap_or_else(|| panic!("{id} is not in the catalogue"));
            let found = [spec.bare(Vec::new())];
            let floor = builtin(&found, Mode::Interactive);
            assert_eq!(floor.is_some(), in_session, "{id}: {floor:?}");
            assert!(builtin(&found, Mode::Command).is_none(), "{id} on -c");
        }
    }
}
