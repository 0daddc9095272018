//! One invocation, top to bottom: context → argv → configuration → the surface's plan → the
//! gate → audit → approval of a held command → exec, or the deny. The security argument reads
//! on one screen in [`run`]: every path that is not an audited allow ends in a refusal.

use crate::approval::Terminal;
use crate::audit::{self, Record};
use crate::config::{self, Config};
use crate::context::Context;
use crate::exec::{self, ShellExec};
use crate::gate::{self, Approval, Assessment, Overrides, Request};
use crate::invocation::{self, Invocation, ShellCall};
use crate::shell::{self, Plan};
pub use crate::stderr::say;
use crate::stdin_program::StdinProgram;
use crate::supervise::{self, SuperviseMode};
use crate::verdict::{
    exit_status, Effect, Stage, Surface, Verdict, EXIT_DENIED, EXIT_REVIEW_ALLOW, EXIT_USAGE,
};
use crate::{approval, diagnostics, interactive, interrupt, payload, preflight, review, trust};
use std::ffi::OsString;
use std::time::Instant;
use tracing::debug;

/// Runs guarded-sh for `args`; returns only the exit status of what did not exec.
pub fn run(args: &[OsString]) -> i32 {
    let started = Instant::now();
    // First, before any thread: a signal from here on ends a decision with a record.
    interrupt::arm();
    let ctx = Context::capture();
    let parsed = invocation::parse(args);
    diagnostics::init(
        &ctx,
        matches!(&parsed, Ok(Invocation::Review(r)) if r.debug),
    );
    let invocation = match parsed {
        Ok(invocation) => invocation,
        Err(e) => {
            say(&format!("guarded-sh: {e} (nothing was run)"));
            let config = load_config(&ctx).unwrap_or_default();
            let usage = Verdict::deny(Stage::Usage, "usage", e.to_string());
            return refuse(&ctx, &config, Surface::Usage, "", usage, started);
        }
    };
    debug!(stage = "invocation", ?invocation);
    // Its own help, version and completions need no configuration (a broken one included).
    if matches!(
        invocation,
        Invocation::Help | Invocation::Version | Invocation::Completions(_)
    ) {
        return document(&invocation);
    }
    // The pre-flight actions read the configuration themselves (reporting a broken one is their
    // job) and run nothing: a signal only ends them.
    match &invocation {
        Invocation::Validate(request) => {
            interrupt::release();
            return preflight::validate(&ctx, request);
        }
        Invocation::PrintConfig(request) => {
            interrupt::release();
            return preflight::print_config(&ctx, request);
        }
        _ => {}
    }
    let config = match load_config(&ctx) {
        Ok(config) => config,
        Err(verdict) => {
            say(&format!(
                "guarded-sh: configuration error: {} (nothing was run)",
                verdict.reason
            ));
            return refuse(
                &ctx,
                &Config::default(),
                Surface::Config,
                "",
                verdict,
                started,
            );
        }
    };
    // Only a gated command is recorded when a signal cuts it short: the review, admin and
    // session surfaces run nothing themselves (the session hook allows only on an answer).
    if !matches!(invocation, Invocation::Shell(_)) {
        interrupt::release();
    }
    let call = match invocation {
        Invocation::Shell(call) => call,
        Invocation::Review(r) => return review::run(&ctx, &config, &r),
        Invocation::Serve => return interactive::serve(&ctx, &config),
        Invocation::HookCheck(text) => return interactive::hook_check(&ctx, &config, &text),
        Invocation::Approve(id) => return approval::approve(&ctx, &config, &id),
        Invocation::Approvals => return approval::list(&ctx, &config),
        Invocation::Help | Invocation::Version | Invocation::Completions(_) => {
            return document(&invocation)
        }
        Invocation::Validate(request) => return preflight::validate(&ctx, &request),
        Invocation::PrintConfig(request) => return preflight::print_config(&ctx, &request),
    };
    let ctx = Context {
        login: call.login,
        ..ctx
    };
    // Reading the script (a file, or a stdin that is not a terminal) is part of the decision.
    let reading = match &call.mode {
        invocation::ShellMode::Script { .. } => Some(Surface::Script),
        invocation::ShellMode::Stdin { .. } if !ctx.stdin_tty => Some(Surface::Stdin),
        invocation::ShellMode::Command { .. } | invocation::ShellMode::Stdin { .. } => None,
    };
    if let Some(surface) = reading {
        let undecided = Verdict::deny(Stage::Error, interrupt::REASON_ID, "");
        let undecided = Record::new(&ctx, &config, surface, "", undecided, started);
        interrupt::deciding(&undecided, &config.audit, started);
    }
    let (surface, text, mut exec) = match shell::plan(&ctx, &config, &call) {
        Ok(Plan::Gate {
            surface,
            text,
            exec,
        }) => (surface, text, exec),
        Ok(Plan::Session { asked }) => {
            return session(&ctx, &config, &call, asked.as_deref(), started)
        }
        Err(refusal) => {
            say(&refusal.message);
            refuse(&ctx, &config, refusal.surface, "", refusal.verdict, started);
            return refusal.status;
        }
    };
    let overrides = Overrides::enforcing();
    // An interpreter may read its program from a stdin that is not a terminal (Ansible's
    // pipelining): the gate reads it only if the analysis finds one that does.
    let stdin = (!ctx.stdin_tty && surface != Surface::Stdin).then(|| {
        StdinProgram::new(
            config.limits.max_payload_bytes,
            std::time::Duration::from_secs(config.limits.max_pipe_seconds),
            payload::become_marker(&text),
        )
    });
    let request = Request {
        text: &text,
        surface,
        escape: gate::escape_requested(&ctx, &config),
        overrides: &overrides,
        stdin: stdin.as_ref(),
        session_state: None,
        started_by: None,
    };
    let undecided = Verdict::deny(Stage::Error, interrupt::REASON_ID, "");
    let undecided = Record::new(&ctx, &config, surface, &text, undecided, started);
    interrupt::deciding(&undecided, &config.audit, started);
    let mut assessment = gate::decide(&ctx, &config, &request);
    let mut record = decided_record(&ctx, &config, &request, &assessment, started);
    record.decision_id = undecided.decision_id;
    interrupt::deciding(&record, &config.audit, started);
    if let Err(refusal) = audited(&config, &record) {
        // A denial keeps its own reason; anything else is denied for want of a record.
        if record.verdict.effect != Effect::Deny {
            say(&format!("guarded-sh: denied: {refusal}"));
            return EXIT_DENIED;
        }
        say(&format!("guarded-sh: audit: {refusal}"));
    }
    if record.verdict.effect == Effect::Held {
        let decision_id = record.decision_id.clone();
        assessment.verdict = gate::approve(
            &ctx,
            &config,
            &mut assessment,
            &request,
            &decision_id,
            Approval::Resolve(Terminal::Own),
        );
        record = decided_record(&ctx, &config, &request, &assessment, started);
        record.decision_id = decision_id;
        interrupt::deciding(&record, &config.audit, started);
        if let Err(refusal) = audited(&config, &record) {
            if record.verdict.allowed() {
                say(&format!("guarded-sh: denied: {refusal}"));
                return EXIT_DENIED;
            }
        }
    }
    let Verdict {
        effect: Effect::Allow,
        ..
    } = record.verdict
    else {
        // Final and recorded: a signal from now on only ends the process.
        interrupt::release();
        say(&format!("guarded-sh: denied: {}", record.verdict.reason));
        return exit_status(surface, &record.verdict).unwrap_or(EXIT_DENIED);
    };
    exec.stdin = stdin.and_then(StdinProgram::into_bytes);
    exec_or_record_failure(&ctx, &config, &exec, record)
}

/// Execs the allowed command, or starts it under exec supervision where `[supervise]` says so
/// (and returns its status); returns otherwise only when it could not be started, which is
/// recorded against the same decision.
fn exec_or_record_failure(
    ctx: &Context,
    config: &Config,
    exec: &ShellExec,
    mut record: Record,
) -> i32 {
    debug!(stage = "exec", program = %exec.program.display(), args = ?exec.args);
    interrupt::release();
    let (reason_id, reason) = match config.supervise.mode_for(ctx) {
        SuperviseMode::Off => plain_exec(exec),
        // Inside a supervised command (`guarded-sh -c` from an editor, a script): the enclosing
        // supervisor judges this exec and all the real shell starts.
        _ if supervise::serve::enclosing_supervisor() => plain_exec(exec),
        mode => match config.supervise.kernel_supports() {
            Ok(()) => match exec::hand_on_stdin(exec)
                .map_err(|e| e.to_string())
                .and_then(|()| supervise::serve::run(ctx, config, exec, mode))
            {
                Ok(status) => return status,
                Err(e) => ("supervise.failed", format!("exec supervision: {e}")),
            },
            Err(why) if mode == SuperviseMode::Enforce => (
                "supervise.unsupported",
                format!(
                    "exec supervision is required ([supervise] mode = \"enforce\" in {}), but {why}",
                    config.file_in_use().display()
                ),
            ),
            Err(why) => {
                // Once per session: the session's own start warned already.
                if !ctx.session_inherited() {
                    let setting = "[supervise] mode = \"audit\"";
                    say(&format!(
                        "guarded-sh: warning: exec supervision is off for this session: {why} ({setting})"
                    ));
                }
                plain_exec(exec)
            }
        },
    };
    say(&format!("guarded-sh: {reason}"));
    record.verdict = Verdict::deny(Stage::Exec, reason_id, reason);
    audit::record(&config.audit, &record);
    EXIT_DENIED
}

/// Execs the real shell; returns only why it could not.
fn plain_exec(exec: &ShellExec) -> (&'static str, String) {
    let error = exec::exec(exec);
    (
        "exec.failed",
        format!("cannot run {}: {error}", exec.program.display()),
    )
}

/// A login or interactive session on a terminal: bash with the root-owned hook, or no shell.
fn session(
    ctx: &Context,
    config: &Config,
    call: &ShellCall,
    asked: Option<&str>,
    started: Instant,
) -> i32 {
    let label = match asked {
        // What asked for a shell is recorded as the session's command.
        Some(text) => text,
        None if call.login => "(login session)",
        None => "(interactive session)",
    };
    // A new session has an id of its own, which it exports to everything it runs.
    let ctx = &ctx.clone().for_new_session();
    let (verdict, exec) = interactive::session(ctx, config);
    let verdict = match exec
        .as_ref()
        .map(|e| exec::refuse_self(&e.program, "interactive.shell"))
    {
        Some(Err(e)) => Verdict::deny(Stage::Config, e.reason_id(), e.to_string()),
        _ => verdict,
    };
    let record = Record::new(ctx, config, Surface::Interactive, label, verdict, started);
    let recorded = audited(config, &record);
    let Some(exec) = exec.filter(|_| record.verdict.allowed()) else {
        say(&format!(
            "guarded-sh: denied: {} (no ungated shell is started)",
            record.verdict.reason
        ));
        return EXIT_DENIED;
    };
    if let Err(refusal) = recorded {
        say(&format!(
            "guarded-sh: denied: {refusal} (no ungated shell is started)"
        ));
        return EXIT_DENIED;
    }
    exec_or_record_failure(ctx, config, &exec, record)
}

/// The record of a gated command: its verdict and evidence.
fn decided_record(
    ctx: &Context,
    config: &Config,
    request: &Request,
    assessment: &Assessment,
    started: Instant,
) -> Record {
    let verdict = assessment.verdict.clone();
    assessment.evidence_for(Record::new(
        ctx,
        config,
        request.surface,
        request.text,
        verdict,
        started,
    ))
}

/// Writes `record`. Every sink's failure is reported on stderr, one line each; a refusal when
/// the decision must not be carried out ([`audit::Delivery::refusal`]: no sink took it, or
/// `required` and one did not), or when a failure could not even be reported (a decision
/// neither recorded nor reported is not carried out).
fn audited(config: &Config, record: &Record) -> Result<(), audit::Refusal> {
    let delivery = audit::record(&config.audit, record);
    let reported = delivery
        .errors
        .iter()
        .all(|e| say(&format!("guarded-sh: audit: {e}")));
    match delivery.refusal(config.audit.required, config.file_in_use()) {
        Some(refusal) => Err(refusal),
        None if !reported => Err(audit::Refusal {
            reason_id: "audit.unreported",
            message: "an audit sink failed and the failure could not be reported".into(),
        }),
        None => Ok(()),
    }
}

/// Records a refusal reached before any gate ran, and returns its exit status.
fn refuse(
    ctx: &Context,
    config: &Config,
    surface: Surface,
    text: &str,
    verdict: Verdict,
    started: Instant,
) -> i32 {
    let status = exit_status(surface, &verdict).unwrap_or(EXIT_DENIED);
    audit::record(
        &config.audit,
        &Record::new(ctx, config, surface, text, verdict, started),
    );
    status
}

/// The configuration: `GUARDED_SH_CONFIG` from the trusted initial environment for root (it
/// must exist), else the default path (missing: the strict defaults). For a gated user the file
/// must pass the trust check.
fn load_config(ctx: &Context) -> Result<Config, Verdict> {
    let groups = if ctx.uid == 0 {
        Vec::new()
    } else {
        trust::groups()
    };
    config::locate(
        ctx.var(config::PATH_VARIABLE).map(OsString::as_os_str),
        ctx.uid,
    )
    .and_then(|located| config::load(&located, ctx.uid, &groups))
    .map_err(|e| Verdict::deny(Stage::Config, e.reason_id(), e.to_string()))
}

/// guarded-sh's own help, version or completions, on stdout.
fn document(invocation: &Invocation) -> i32 {
    match invocation::document(invocation) {
        Some(text) => {
            review::emit(&text);
            EXIT_REVIEW_ALLOW
        }
        None => EXIT_USAGE,
    }
}
