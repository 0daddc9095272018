//! One interactive decision: the session rules that need no analysis (`exit` and `logout` always
//! run), completion of the loop and `case` headers bash reports as a command of their own, then
//! the one gate (`app::evaluate` in `Mode::Interactive`) and its audit record.

use crate::app::{self, Gated, Review};
use crate::audit::{self, Record};
use crate::config::Config;
use crate::context::Context;
use crate::decision::{Mode, Verdict};
use std::time::Instant;

/// The outcome the hook acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    pub allowed: bool,
    pub reason: String,
}

/// Why the hook refuses a command on its own, before any analysis.
pub const HOOK_REFUSED: &str =
    "session guard: the session's own hook, variables and channel are off limits";

/// Decides `text` (one `$BASH_COMMAND`) and records the decision; `audit_mode` names the caller
/// (`interactive` for the server, `hook` for a fresh process). `hook_refused`: the hook has
/// refused it already; it is analysed for the record and denied whatever the gate says.
pub fn decide(
    ctx: &Context,
    config: &Config,
    text: &str,
    audit_mode: &str,
    escape: bool,
    hook_refused: bool,
) -> Decided {
    let started = Instant::now();
    let mut record = Record {
        time: audit::now_rfc3339(),
        decision_id: audit::decision_id(),
        user: ctx.user.clone(),
        uid: ctx.uid,
        mode: audit_mode.into(),
        tty: ctx.stdin_tty,
        ssh_client: ctx.ssh_client.clone(),
        host: ctx.host.clone(),
        target_env: config.target.env.clone(),
        ..Record::default()
    };
    record.set_command(text, config.audit.max_command_bytes);
    let decided = if is_exit(text) && !hook_refused {
        record.verdict = "allow".into();
        record.reason = "exit and logout always run".into();
        Decided {
            allowed: true,
            reason: String::new(),
        }
    } else {
        let gated = gate(ctx, config, text, escape);
        crate::app::fill_verdict(&mut record, &gated);
        if hook_refused && gated.verdict.allowed() {
            record.verdict = "deny".into();
            record.reason = HOOK_REFUSED.into();
            record.stage = "session".into();
        }
        match &gated.verdict {
            _ if hook_refused => Decided {
                allowed: false,
                reason: if gated.verdict.allowed() {
                    HOOK_REFUSED.into()
                } else {
                    gated.verdict.reason().to_string()
                },
            },
            Verdict::Allow { .. } => Decided {
                allowed: true,
                reason: String::new(),
            },
            Verdict::Deny { reason, .. } => Decided {
                allowed: false,
                reason: reason.clone(),
            },
            Verdict::Hold { reason } => Decided {
                allowed: false,
                reason: format!(
                    "approval required: {reason} (request {})",
                    record.decision_id
                ),
            },
        }
    };
    record.duration_us = started.elapsed().as_micros() as u64;
    let delivery = audit::record(&config.audit, &record);
    if !delivery.recorded() && config.audit.required {
        return Decided {
            allowed: false,
            reason: "the decision could not be audited".into(),
        };
    }
    decided
}

/// The gate for one command; a loop or `case` header is gated completed, so it parses.
fn gate(ctx: &Context, config: &Config, text: &str, escape: bool) -> Gated {
    let review = Review::enforcing();
    let run = |t: &str| {
        app::evaluate(
            ctx,
            config,
            t,
            Mode::Interactive,
            "interactive",
            escape,
            &review,
        )
    };
    if let Some(completed) = complete_header(text) {
        let gated = run(&completed);
        if !gated
            .signals
            .iter()
            .any(|s| s.id() == "UNPARSEABLE_COMMAND")
        {
            return gated;
        }
    }
    run(text)
}

/// bash reports `for x in …`, `select x in …` and `case w in` as commands of their own. The
/// completion keeps the header verbatim and adds an empty body, so every signal of the header
/// survives; it is used only when it parses.
fn complete_header(text: &str) -> Option<String> {
    let first = text.split_whitespace().next()?;
    match first {
        "for" | "select" => Some(format!("{text}\ndo :; done")),
        "case" => Some(format!("{text}\nesac")),
        _ => None,
    }
}

/// `exit` and `logout`, alone or with a literal status, `$?` or `"$@"` (the hook's `logout`).
pub fn is_exit(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let first = match words.next() {
        Some("builtin") => words.next(),
        other => other,
    };
    if !matches!(first, Some("exit" | "logout")) {
        return false;
    }
    let arg = words.next();
    words.next().is_none()
        && arg.is_none_or(|a| {
            a == "$?" || a == "\"$@\"" || (a.len() <= 3 && a.bytes().all(|b| b.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_forms() {
        for t in [
            "exit",
            "exit 3",
            "logout",
            "builtin exit",
            "exit $?",
            "exit \"$@\"",
            " exit  0 ",
        ] {
            assert!(is_exit(t), "{t}");
        }
        for t in [
            "exit; rm -rf /",
            "exit 1 2",
            "exit $(rm x)",
            "exitx",
            "logout && rm",
            "echo exit",
            "exit 12345",
        ] {
            assert!(!is_exit(t), "{t}");
        }
    }

    #[test]
    fn headers() {
        assert_eq!(
            complete_header("for i in 1 2").as_deref(),
            Some("for i in 1 2\ndo :; done")
        );
        assert_eq!(
            complete_header("case x in ").as_deref(),
            Some("case x in \nesac")
        );
        assert_eq!(complete_header("echo for"), None);
    }

    #[test]
    fn completed_header_keeps_its_signals() {
        let config = Config::default();
        let ctx = Context::default();
        let gated = gate(&ctx, &config, "for i in $(rm -rf /)", false);
        assert!(!gated.verdict.allowed());
        let gated = gate(&ctx, &config, "for i in 1 2", false);
        assert!(!gated
            .signals
            .iter()
            .any(|s| s.id() == "UNPARSEABLE_COMMAND"));
    }
}
