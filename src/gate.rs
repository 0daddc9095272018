//! The one gate every surface calls (the shell surface, the review surface, the session's check
//! server and hook): analysis → signals → target → policy input → built-in floor → policy
//! (loaded only when the floor did not decide) → approval of a held verdict, always in that
//! order. It returns the verdict with the evidence it rests on; surfaces act on it and record it.
//! `facts` is the first four stages alone (what `--input` prints); `decide` starts from it.

use crate::approval;
use crate::audit::Record;
use crate::config::Config;
use crate::context::Context;
use crate::decision::{self, Mode};
use crate::ir::PROCESS_STDIN;
use crate::parse::Analysis;
use crate::policy::decision::PolicyDecision;
use crate::policy::enforcement;
use crate::policy::engine::Policy;
use crate::policy::input::{self, InputParts, Session, Target};
use crate::policy::PolicyFailure;
use crate::signals::{self, Signal};
use crate::stdin_program::StdinProgram;
use crate::target::{self, TargetOverrides};
use crate::verdict::{Effect, Stage, Surface, Verdict};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use tracing::debug;

/// One command to decide.
pub struct Request<'a> {
    pub text: &'a str,
    pub surface: Surface,
    /// The trusted escape was asked for and the configuration honours it ([`escape_requested`]).
    pub escape: bool,
    pub overrides: &'a Overrides,
    /// The process's stdin, where this surface may read an interpreter's program from it and
    /// hand it on (the shell surface, stdin not a terminal); `None` elsewhere.
    pub stdin: Option<&'a StdinProgram>,
    /// An interactive line's session state, as the hook read it from bash (`declare -p`,
    /// `declare -f`, `set -- …`): the line is analysed after it ([`crate::analysis::analyse_in_session`]).
    pub session_state: Option<&'a str>,
    /// A supervised exec's caller when it is not a shell (an editor, a pager, `find`, a
    /// language runtime): an interactive shell it starts is a shell escape ([`Mode::Started`]).
    pub started_by: Option<&'a str>,
}

/// What the review surface overrides; enforcement uses none of it.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// The input's `execution.dry_run`.
    pub dry_run: bool,
    pub policy_dir: Option<PathBuf>,
    pub target: TargetOverrides,
}

impl Overrides {
    pub fn enforcing() -> Self {
        Overrides::default()
    }
}

/// A decided command: the verdict and everything it rests on.
pub struct Assessment {
    pub analysis: Analysis,
    pub signals: Vec<Signal>,
    pub verdict: Verdict,
    /// The policy's answer, when it ran and answered.
    pub policy: Option<PolicyDecision>,
    pub policy_configured: bool,
    pub policy_digest: String,
    pub target: Target,
    /// The policy input (built whether or not the policy ran: the review surface shows it).
    pub input: serde_json::Value,
    /// The loaded policy, so approval re-asks it without loading or analysing again.
    loaded: Option<Rc<Policy>>,
}

impl Assessment {
    /// `record` with the evidence this assessment's verdict rests on (what every surface that
    /// records a gated decision adds to its record).
    pub fn evidence_for(&self, record: Record) -> Record {
        record.with_evidence(
            &self.analysis,
            &self.signals,
            &self.policy_digest,
            &self.target.env,
        )
    }
}

/// `HONEY_RISK_DISABLE` from the trusted initial environment, where the configuration allows it.
pub fn escape_requested(ctx: &Context, config: &Config) -> bool {
    config.escape.allow && ctx.escape_requested()
}

/// What a command is decided on, before anything decides: its analysis, signals, target and
/// the policy input built from them. [`decide`] starts here; `--input` shows `input`.
pub struct Facts {
    pub analysis: Analysis,
    pub signals: Vec<Signal>,
    pub target: Target,
    /// Why the target could not be read: the policy stage then fails closed on it, and
    /// `target` is the configured one without the host-vars file.
    pub target_failure: Option<PolicyFailure>,
    pub input: serde_json::Value,
}

fn mode(request: &Request) -> Mode {
    match (request.surface, request.started_by) {
        (Surface::Interactive | Surface::Hook, _) => Mode::Interactive,
        (Surface::Exec, Some(_)) => Mode::Started,
        _ => Mode::Command,
    }
}

/// Analysis → signals → target → policy input for one command.
pub fn facts(ctx: &Context, config: &Config, request: &Request) -> Facts {
    let limits = &config.limits;
    // Script files are read up to the larger of the two bounds: an automation payload (an
    // AnsiballZ wrapper) is decoded up to its own; any other script over `max_code_bytes` is
    // reported as too large to analyse, as before.
    let script_bound = limits.max_code_bytes.max(limits.max_payload_bytes);
    let mut read = |path: &str| {
        if path == PROCESS_STDIN {
            return request.stdin.and_then(StdinProgram::text);
        }
        crate::script_files::read_script(Path::new(&ctx.cwd), path, script_bound)
    };
    let analysis = match request.session_state {
        Some(state) => crate::analysis::analyse_in_session(state, request.text, limits, &mut read),
        None => crate::analysis::analyse_reading(request.text, limits, &mut read),
    };
    let signals = signals::detect(&analysis);
    debug!(
        stage = "analysis",
        surface = request.surface.as_str(),
        commands = analysis.commands.len(),
        signals = ?signals.iter().map(Signal::id).collect::<Vec<_>>(),
    );
    let overrides = request.overrides;
    // A target that cannot be read leaves the policy without its context: the policy stage then
    // fails closed rather than decide on partial facts.
    let (target, target_failure) = match target::resolve(ctx, config, &overrides.target) {
        Ok(t) => (t, None),
        Err(f) => (target::configured(ctx, config, &overrides.target), Some(f)),
    };
    let input = input::build(&InputParts {
        raw: request.text,
        interpreter: &crate::interp::interpreter(&analysis),
        analysis: &analysis,
        signals: &signals,
        target: &target,
        session: &session(ctx, request.surface, mode(request)),
        dry_run: overrides.dry_run,
        approved: false,
        supervised: request.surface == Surface::Exec || config.supervise.applies(ctx),
    });
    Facts {
        analysis,
        signals,
        target,
        target_failure,
        input,
    }
}

/// Decides one command.
pub fn decide(ctx: &Context, config: &Config, request: &Request) -> Assessment {
    let mode = mode(request);
    let Facts {
        analysis,
        signals,
        target,
        target_failure,
        input,
    } = facts(ctx, config, request);
    let overrides = request.overrides;
    // A program that was to come from stdin but could not be read whole cannot be judged.
    let unread_stdin = request.stdin.and_then(StdinProgram::failure);
    let floor_decides =
        request.escape || unread_stdin.is_some() || decision::builtin(&signals, mode).is_some();
    let review = request.surface == Surface::Review;
    let policy_dir = enforcement::dir(ctx, config, review, overrides.policy_dir.as_deref());
    let mut loaded = None;
    // The policy runs only when the floor has not already decided.
    let answer: Option<Result<PolicyDecision, PolicyFailure>> = match (&policy_dir, floor_decides) {
        (Some(dir), false) => Some(match target_failure {
            Some(f) => Err(f),
            None => {
                let enforcing = overrides.policy_dir.is_none();
                enforcement::load(ctx, config, dir, enforcing).and_then(|policy| {
                    let answer = ask(&policy, &input);
                    loaded = Some(policy);
                    answer
                })
            }
        }),
        _ => None,
    };
    let verdict = match unread_stdin {
        Some(why) if !request.escape => Verdict::deny(Stage::Error, "input.stdin_program", why),
        _ => decision::decide(
            request.escape,
            &signals,
            mode,
            answer.as_ref().map(Result::as_ref),
        ),
    };
    debug!(
        stage = "decide",
        escape = request.escape,
        floor_decides,
        policy_dir = ?policy_dir,
        policy_answer = ?answer,
        verdict = ?verdict,
    );
    Assessment {
        analysis,
        signals,
        verdict,
        policy: answer.and_then(Result::ok),
        policy_configured: policy_dir.is_some(),
        policy_digest: loaded
            .as_ref()
            .map(|p| p.digest().to_string())
            .unwrap_or_default(),
        target,
        input,
        loaded,
    }
}

/// How a held command is approved.
#[derive(Clone, Copy)]
pub enum Approval<'a> {
    /// Here: a second person's grant for the exact text, else a confirmation on the terminal,
    /// else a filed request (its id in the denial).
    Resolve(approval::Terminal<'a>),
    /// A simple command of a session line that was approved before any of it ran: approved as
    /// the line was (`how`, for the record), as `-c` runs the whole of an approved text.
    OfTheLine(&'a str),
}

/// Approval of a held command (a second person's grant, or a confirmation typed on the
/// terminal, or the approval of the session line it is part of), then the policy asked again
/// with `execution.approved = true`: an approval only lets the policy see `approved`, and the
/// policy can still deny. Anything but a held assessment is returned unchanged.
pub fn approve(
    ctx: &Context,
    config: &Config,
    assessment: &mut Assessment,
    request: &Request,
    decision_id: &str,
    approval: Approval,
) -> Verdict {
    if assessment.verdict.effect != Effect::Held {
        return assessment.verdict.clone();
    }
    let held = approval::Held {
        text: request.text,
        reason: &assessment.verdict.reason,
        host: &assessment.target.name,
        decision_id,
        mode: request.surface.as_str(),
    };
    let resolution = match approval {
        Approval::Resolve(terminal) => approval::resolve(ctx, &config.approval, &held, terminal),
        Approval::OfTheLine(how) => approval::Resolution::Approved {
            how: format!("part of a line approved before it ran ({how})"),
        },
    };
    debug!(stage = "approval", ?resolution);
    let how = match resolution {
        approval::Resolution::Denied { message } => {
            return Verdict::deny(Stage::Approval, "approval.missing", message)
        }
        approval::Resolution::Approved { how } => how,
    };
    assessment.input["execution"]["approved"] = true.into();
    let Some(policy) = &assessment.loaded else {
        return Verdict::deny(
            Stage::Error,
            "approval.no_policy",
            "approval required, but no policy is loaded to ask again",
        );
    };
    let again = match ask(policy, &assessment.input) {
        Ok(answer) => answer,
        Err(f) => return Verdict::deny(Stage::Error, f.reason_id, f.message),
    };
    let verdict = decision::policy_verdict(&again);
    assessment.policy = Some(again);
    match verdict.effect {
        Effect::Allow => Verdict::new(Effect::Allow, Stage::Approval, "approval.granted", how),
        Effect::Deny => Verdict::deny(Stage::Approval, verdict.reason_id, verdict.reason),
        Effect::Held => Verdict::deny(
            Stage::Approval,
            "approval.still_held",
            format!(
                "approval required: {} (still held with execution.approved = true)",
                verdict.reason
            ),
        ),
    }
}

fn ask(policy: &Policy, input: &serde_json::Value) -> Result<PolicyDecision, PolicyFailure> {
    policy.evaluate(input).map_err(|e| PolicyFailure {
        reason_id: e.reason_id(),
        message: format!("policy error [{}]: {e}", e.reason_id()),
    })
}

/// The policy input's `session`.
fn session(ctx: &Context, surface: Surface, mode: Mode) -> Session {
    Session {
        // The hook's fresh-process check decides for the same session as the check server.
        mode: match surface {
            Surface::Hook => Surface::Interactive.as_str(),
            other => other.as_str(),
        }
        .into(),
        interactive: mode == Mode::Interactive,
        tty: ctx.stdin_tty,
        login: ctx.login,
        ssh_client: ctx.ssh_client.clone(),
        ssh_original_command: ctx.ssh_original_command.clone(),
        user: ctx.user.clone(),
        uid: ctx.uid,
        cwd: ctx.cwd.clone(),
    }
}
