//! One interactive decision: the session rules that need no analysis (`exit` and `logout` always
//! run, the hook's own names are off limits, a line that could not be read is refused),
//! completion of the loop and `case` headers bash reports as a command of their own, then the
//! one gate (`gate::decide` on the session's surface) and its audit record. A whole submitted
//! line is gated exactly as `-c` gates the same text.

use super::protocol::{line_text, Unit};
use crate::audit::{self, Record};
use crate::config::Config;
use crate::context::Context;
use crate::gate::{self, Approval, Assessment, Overrides, Request};
use crate::verdict::{Effect, Stage, Surface, Verdict};
use std::time::Instant;

/// The outcome the hook acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    pub allowed: bool,
    pub reason: String,
    /// Allowed by an approval of a held verdict: how (for the line's own commands).
    pub approved: Option<String>,
    /// It has a record of its own (every decision but a simple command the check server
    /// allowed: the session counts those, see [`SessionTally`]).
    pub recorded: bool,
}

impl Decided {
    fn refused(reason: String) -> Self {
        Decided {
            allowed: false,
            reason,
            approved: None,
            recorded: true,
        }
    }
}

/// What a session's check server decided, for the records that stand for what it did not
/// record one by one: the login files (at the first line) and the whole session (at its end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionTally {
    pub lines: u64,
    pub lines_refused: u64,
    pub commands: u64,
    pub commands_refused: u64,
}

impl SessionTally {
    pub fn count(&mut self, unit: Unit, decided: &Decided) {
        let (all, refused) = match unit {
            Unit::Line => (&mut self.lines, &mut self.lines_refused),
            _ => (&mut self.commands, &mut self.commands_refused),
        };
        *all += 1;
        if !decided.allowed {
            *refused += 1;
        }
    }
}

/// Records what the session's own records stand for: `reason_id` `session.login_files` (the
/// commands of the login files, before the first line) or `session.ended`. Best effort: the
/// session's decisions are made and recorded already.
pub fn record_tally(
    ctx: &Context,
    config: &Config,
    reason_id: &'static str,
    what: &str,
    tally: &SessionTally,
) {
    let reason = format!(
        "{what}: {} lines judged ({} refused), {} commands checked ({} refused, each recorded)",
        tally.lines, tally.lines_refused, tally.commands, tally.commands_refused
    );
    let verdict = Verdict::new(Effect::Allow, Stage::Session, reason_id, reason);
    let record = Record::new(
        ctx,
        config,
        Surface::Interactive,
        "",
        verdict,
        Instant::now(),
    );
    let _ = audit::record(&config.audit, &record);
}

/// Why the hook refuses a command on its own, before any analysis.
pub const HOOK_REFUSED: &str =
    "session guard: the session's own hook, variables and channel are off limits";

/// Why a submitted line is refused when its history entry could not be read.
pub const LINE_UNREADABLE: &str =
    "session guard: the submitted line could not be read from history, so it cannot be judged";

/// Why a command is refused whose line the server never judged: the hook's own record of the
/// line was changed (it asks about a new line by the hook's variables, which are protected by
/// name only), so the line it belongs to was not asked about.
pub const LINE_NOT_JUDGED: &str =
    "session guard: this command's line was never judged (the session's line state was changed)";

/// Refuses and records a simple command whose line was never judged.
pub fn refuse_unjudged(ctx: &Context, config: &Config, text: &str) -> Decided {
    let started = Instant::now();
    let verdict = Verdict::deny(Stage::Session, "session.line_not_judged", LINE_NOT_JUDGED);
    let record = Record::new(ctx, config, Surface::Interactive, text, verdict, started);
    carry_out(config, &record, LINE_NOT_JUDGED.to_string())
}

/// Decides a whole submitted line from `fc -ln -0`'s output and records the decision: the line
/// is gated as `-c` gates it; a line that names the hook's own variables or functions is
/// refused (as the hook refuses such a command), and output that holds no line is refused.
pub fn decide_line(
    ctx: &Context,
    config: &Config,
    fc_output: &str,
    state: Option<&str>,
    surface: Surface,
    escape: bool,
    approval: Approval,
) -> Decided {
    let Some(text) = line_text(fc_output) else {
        let started = Instant::now();
        let verdict = Verdict::deny(Stage::Session, "session.line_unreadable", LINE_UNREADABLE);
        let record = Record::new(ctx, config, surface, fc_output, verdict, started);
        return carry_out(config, &record, LINE_UNREADABLE.to_string());
    };
    let hook_refused = names_the_hook(text);
    let asked = Asked {
        text,
        unit: Unit::Line,
        state,
        surface,
        escape,
        counted: false,
    };
    decide_unit(ctx, config, &asked, hook_refused, approval)
}

/// What is to be decided: one command or a line, and for a line the session's state.
struct Asked<'a> {
    text: &'a str,
    unit: Unit,
    state: Option<&'a str>,
    /// Who asks: the check server, or the hook in a fresh process.
    surface: Surface,
    /// The trusted escape was asked for and the configuration honours it.
    escape: bool,
    /// Allowed, it is counted rather than recorded ([`SimpleCommand::counted`]).
    counted: bool,
}

/// What the hook is to read from bash before the line in `fc_output` is decided (the `need`
/// tokens of [`protocol::need_tokens`]: the variables it names, whether it uses `$1…`, and its
/// command names, which may be functions); empty when there is nothing to ask (no line, `exit`,
/// a line the hook refuses anyway).
pub fn line_needs(config: &Config, fc_output: &str) -> Vec<String> {
    let Some(text) = line_text(fc_output) else {
        return Vec::new();
    };
    if is_exit(text) || names_the_hook(text) {
        return Vec::new();
    }
    let analysis = crate::analysis::analyse(text, &config.limits);
    let names = analysis.commands.iter().filter_map(|c| c.name_value());
    super::protocol::need_tokens(text, names)
}

/// What the hook is to read from bash before the simple command `text` is decided: the
/// variables it names and whether it uses `$1…` (its values when it runs: a function body's
/// command run from a prompt hook, a trap or a completion has no line of its own to be judged
/// with them). No function bodies: a function's commands are each checked when they run. Empty
/// for most commands (no `$`), and for `exit` and what the hook refuses anyway.
pub fn command_needs(text: &str) -> Vec<String> {
    if !text.contains('$') || is_exit(text) || names_the_hook(text) {
        return Vec::new();
    }
    super::protocol::need_tokens(text, std::iter::empty())
}

/// One simple command to decide (`$BASH_COMMAND`), with the session's state for what it names
/// when the hook sent it, and whether the hook has refused it itself.
pub struct SimpleCommand<'a> {
    pub text: &'a str,
    pub state: Option<&'a str>,
    pub hook_refused: bool,
    /// Allowed, it is counted rather than recorded: the check server says so of a login file's
    /// command (before the first line) and of a part of the current line's recorded text.
    pub counted: bool,
}

/// The hook's own functions and variables (`__gsh_*`, `__GSH_*`), spelled out in the text.
pub fn names_the_hook(text: &str) -> bool {
    text.contains("__gsh_") || text.contains("__GSH_")
}

/// Decides one simple command (with the session's state for what it names, where the hook sent
/// it) and records the decision; `surface` names the caller (the check server, or the hook in a
/// fresh process). A command the hook refused itself is analysed for the record and denied
/// whatever the gate says. A held verdict is settled by `approval`.
pub fn decide(
    ctx: &Context,
    config: &Config,
    command: &SimpleCommand,
    surface: Surface,
    escape: bool,
    approval: Approval,
) -> Decided {
    let asked = Asked {
        text: command.text,
        unit: Unit::Command,
        state: command.state,
        surface,
        escape,
        counted: command.counted,
    };
    decide_unit(ctx, config, &asked, command.hook_refused, approval)
}

/// The decision and its records: a held verdict is recorded, then settled by `approval` as on
/// `-c` (a grant for the exact text, the terminal, a filed request whose id the reason names)
/// and recorded again under the same decision id.
fn decide_unit(
    ctx: &Context,
    config: &Config,
    asked: &Asked,
    hook_refused: bool,
    approval: Approval,
) -> Decided {
    let (text, surface) = (asked.text, asked.surface);
    let started = Instant::now();
    let record = if is_exit(text) && !hook_refused {
        let always = Verdict::new(
            Effect::Allow,
            Stage::Passed,
            "session.exit",
            "exit and logout always run".into(),
        );
        Record::new(ctx, config, surface, text, always, started)
    } else {
        let mut assessment = gate(ctx, config, asked);
        if hook_refused && assessment.verdict.effect != Effect::Deny {
            assessment.verdict =
                Verdict::deny(Stage::Session, "session.hook_refused", HOOK_REFUSED);
        }
        let record = evidenced(ctx, config, asked, &assessment, started);
        if record.verdict.effect != Effect::Held {
            record
        } else {
            match settle(ctx, config, asked, assessment, record, approval, started) {
                Ok(settled) => settled,
                Err(refused) => return refused,
            }
        }
    };
    let verdict = &record.verdict;
    let reason = match verdict.effect {
        Effect::Allow => String::new(),
        Effect::Deny | Effect::Held => verdict.reason.clone(),
    };
    let approved =
        (verdict.allowed() && verdict.stage == Stage::Approval).then(|| verdict.reason.clone());
    if only_counted(asked, &record.verdict) {
        return Decided {
            allowed: true,
            reason,
            approved,
            recorded: false,
        };
    }
    Decided {
        approved,
        ..carry_out(config, &record, reason)
    }
}

/// A held verdict, recorded as held first (as on `-c`), then settled by `approval` under the
/// same decision id; `Err` when the held record could not be written (not carried out).
fn settle(
    ctx: &Context,
    config: &Config,
    asked: &Asked,
    mut assessment: Assessment,
    held: Record,
    approval: Approval,
    started: Instant,
) -> Result<Record, Decided> {
    let delivery = audit::record(&config.audit, &held);
    if let Some(refusal) = delivery.refusal(config.audit.required, config.file_in_use()) {
        return Err(Decided::refused(refusal.to_string()));
    }
    let overrides = Overrides::enforcing();
    let request = request(asked.text, asked, &overrides);
    let decision_id = held.decision_id;
    assessment.verdict = gate::approve(
        ctx,
        config,
        &mut assessment,
        &request,
        &decision_id,
        approval,
    );
    let mut settled = evidenced(ctx, config, asked, &assessment, started);
    settled.decision_id = decision_id;
    Ok(settled)
}

/// The check server records a session's lines, what it refuses or holds, the user's `exit`, and
/// every command that is neither a login file's nor a part of the current line's text (a prompt
/// hook's, a trap's, a sourced file's, an `eval`'s); what the gate allows of the rest is only
/// counted ([`SessionTally`]).
fn only_counted(asked: &Asked, verdict: &Verdict) -> bool {
    asked.counted
        && asked.unit == Unit::Command
        && verdict.effect == Effect::Allow
        && verdict.stage != Stage::Approval
        && verdict.reason_id != "session.exit"
}

/// The record of an assessed command, with the evidence its verdict rests on.
fn evidenced(
    ctx: &Context,
    config: &Config,
    asked: &Asked,
    assessment: &Assessment,
    started: Instant,
) -> Record {
    let verdict = assessment.verdict.clone();
    assessment.evidence_for(Record::new(
        ctx,
        config,
        asked.surface,
        asked.text,
        verdict,
        started,
    ))
}

/// Records the decision; what the hook is told: the verdict, unless it could not be recorded.
fn carry_out(config: &Config, record: &Record, reason: String) -> Decided {
    let decided = Decided {
        allowed: record.verdict.allowed(),
        reason,
        approved: None,
        recorded: true,
    };
    let delivery = audit::record(&config.audit, record);
    // An unrecorded decision is not carried out; leaving the session is always carried out.
    let leaving = record.verdict.reason_id == "session.exit";
    if let Some(refusal) = delivery
        .refusal(config.audit.required, config.file_in_use())
        .filter(|_| !leaving)
    {
        return Decided::refused(refusal.to_string());
    }
    decided
}

/// The gate's request for `text` (the asked text, or a loop header completed), asked as `asked`.
fn request<'a>(text: &'a str, asked: &Asked<'a>, overrides: &'a Overrides) -> Request<'a> {
    Request {
        text,
        surface: asked.surface,
        escape: asked.escape,
        overrides,
        stdin: None,
        session_state: asked.state,
        started_by: None,
    }
}

/// The gate for one command or line; a loop or `case` header (a command, never a line) is
/// gated completed, so it parses.
fn gate(ctx: &Context, config: &Config, asked: &Asked) -> Assessment {
    let (text, unit) = (asked.text, asked.unit);
    let overrides = Overrides::enforcing();
    let run = |t: &str| gate::decide(ctx, config, &request(t, asked, &overrides));
    if let Some(completed) = complete_header(text).filter(|_| unit == Unit::Command) {
        let assessment = run(&completed);
        if !assessment
            .signals
            .iter()
            .any(|s| s.id() == "UNPARSEABLE_COMMAND")
        {
            return assessment;
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
        let asked = Asked {
            text: "for i in $(rm -rf /)",
            unit: Unit::Command,
            state: None,
            surface: Surface::Interactive,
            escape: false,
            counted: false,
        };
        let gated = gate(&ctx, &config, &asked);
        assert!(!gated.verdict.allowed());
        let asked = Asked {
            text: "for i in 1 2",
            unit: Unit::Command,
            state: None,
            surface: Surface::Interactive,
            escape: false,
            counted: false,
        };
        let gated = gate(&ctx, &config, &asked);
        assert!(!gated
            .signals
            .iter()
            .any(|s| s.id() == "UNPARSEABLE_COMMAND"));
    }
}
