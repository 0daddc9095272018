//! The sequence, in one place: invocation → configuration → analysis → signals → built-in floor
//! → policy → audit → exec or deny. No stage calls the next; each returns a value here, and the
//! security argument reads top to bottom in `gate_and_exec`.

use crate::audit::{self, Record};
use crate::config::{self, Config};
use crate::context::Context;
use crate::decision::{self, Mode, Verdict};
use crate::exec::{base_name, ShellExec};
use crate::invocation::{self, Invocation, ShellCall, ShellMode, ShellName};
use crate::parse::Analysis;
use crate::policy::decision::PolicyDecision;
use crate::policy::engine::{self, CacheMode, Policy};
use crate::policy::input::{self, InputParts, Session, Target};
use crate::signals::{self, Signal};
use crate::{approval, interactive, review, script_files, trust};
use std::cell::RefCell;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

/// Exit status of a denial on the shell surface.
pub const EXIT_DENIED: i32 = 126;
/// Exit status of a usage or configuration error (nothing ran).
pub const EXIT_USAGE: i32 = 2;

/// What `main` does next.
#[derive(Debug)]
pub enum Outcome {
    /// Exec the real shell; if that fails, record the failure against this decision.
    Exec(ShellExec, Option<Box<ExecAudit>>),
    Exit(i32),
}

/// The decision an exec carries out, so a failed exec is audited as what it is.
#[derive(Debug)]
pub struct ExecAudit {
    pub config: crate::config::AuditConfig,
    pub record: Record,
}

impl ExecAudit {
    /// Records that the allowed command did not run, and why.
    pub fn failed(mut self, error: &std::io::Error, program: &Path) {
        self.record.verdict = "error".into();
        self.record.stage = "exec".into();
        self.record.reason = format!("cannot run {}: {error}", program.display());
        audit::record(&self.config, &self.record);
    }
}

/// Runs guarded-sh for `args` in `ctx`.
pub fn run(ctx: &Context, args: &[OsString]) -> Outcome {
    let started = Instant::now();
    let invocation = match invocation::parse(args) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("guarded-sh: {e} (nothing was run)");
            let config = load_config(ctx).unwrap_or_default();
            let mut r = base_record(ctx, &config, "usage", started);
            r.verdict = "deny".into();
            r.reason = e.to_string();
            r.stage = "usage".into();
            audit::record(&config.audit, &r);
            return Outcome::Exit(EXIT_USAGE);
        }
    };
    let config = match load_config(ctx) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("guarded-sh: configuration error: {message} (nothing was run)");
            let config = Config::default();
            let mut r = base_record(ctx, &config, "config", started);
            r.verdict = "error".into();
            r.reason = message;
            r.stage = "error".into();
            audit::record(&config.audit, &r);
            return Outcome::Exit(EXIT_USAGE);
        }
    };
    match invocation {
        Invocation::Review(r) => Outcome::Exit(review::run(ctx, &config, &r)),
        Invocation::Shell(call) => shell(ctx, &config, &call, started),
        Invocation::Serve => Outcome::Exit(interactive::serve(ctx, &config)),
        Invocation::HookCheck(text) => Outcome::Exit(interactive::hook_check(ctx, &config, &text)),
        Invocation::Approve(id) => Outcome::Exit(approval::approve(ctx, &config, &id)),
        Invocation::Approvals => Outcome::Exit(approval::list(ctx, &config)),
        doc @ (Invocation::Help | Invocation::Version | Invocation::Completions(_)) => {
            Outcome::Exit(crate::cli::show(&doc))
        }
    }
}

/// The configuration path: `GUARDED_SH_CONFIG` from the trusted initial environment, else the
/// default. For a gated user the file must pass the trust check.
fn load_config(ctx: &Context) -> Result<Config, String> {
    let path = ctx
        .var("GUARDED_SH_CONFIG")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(config::DEFAULT_PATH));
    if ctx.uid != 0 && path.exists() {
        trust::check(&path, ctx.uid, &trust::groups()).map_err(|e| e.to_string())?;
    }
    config::load(&path).map_err(|e| e.to_string())
}

fn base_record(ctx: &Context, config: &Config, mode: &str, started: Instant) -> Record {
    Record {
        time: audit::now_rfc3339(),
        decision_id: audit::decision_id(),
        user: ctx.user.clone(),
        uid: ctx.uid,
        mode: mode.into(),
        tty: ctx.stdin_tty,
        ssh_client: ctx.ssh_client.clone(),
        host: ctx.host.clone(),
        target_env: config.target.env.clone(),
        duration_us: started.elapsed().as_micros() as u64,
        ..Record::default()
    }
}

/// The shell surface.
fn shell(ctx: &Context, config: &Config, call: &ShellCall, started: Instant) -> Outcome {
    let ctx = &Context {
        login: call.login,
        ..ctx.clone()
    };
    let (mode, text, exec_args) = match &call.mode {
        ShellMode::Command { text, operands } => {
            let mut args = call.options.clone();
            args.push(text.clone());
            args.extend(operands.iter().cloned());
            ("command", text.to_string_lossy().into_owned(), args)
        }
        ShellMode::Script { path, operands } => {
            match read_bounded(path, text_bound(config.limits.max_bytes)) {
                Ok(bytes) => {
                    // Run exactly the bytes that were gated: `-c CONTENT PATH ARGS…` keeps `$0`.
                    let mut args = call.options.clone();
                    args.push("-c".into());
                    let content = String::from_utf8_lossy(&bytes).into_owned();
                    args.push(OsString::from_vec(bytes));
                    args.push(path.clone().into());
                    args.extend(operands.iter().cloned());
                    ("script", content, args)
                }
                Err(message) => return deny_early(ctx, config, "script", &message, started),
            }
        }
        ShellMode::Stdin { .. }
            if call
                .options
                .iter()
                .any(|o| o == "--version" || o == "--help") =>
        {
            ("command", String::new(), call.options.clone())
        }
        ShellMode::Stdin { .. } if ctx.stdin_tty => return interactive::session(ctx, config, call),
        ShellMode::Stdin { operands } => {
            match read_stdin_bounded(text_bound(config.interactive.max_stdin_bytes)) {
                // A script on stdin (`ssh -T host < script`): buffered, bounded, gated whole, then
                // run as `-c CONTENT` so exactly the gated bytes run.
                Ok(bytes) => {
                    let content = String::from_utf8_lossy(&bytes).into_owned();
                    let mut args: Vec<OsString> = call
                        .options
                        .iter()
                        .filter(|o| o.to_str().is_none_or(|s| s != "-s"))
                        .cloned()
                        .collect();
                    args.push("-c".into());
                    args.push(OsString::from_vec(bytes));
                    args.push(base_name(&real_shell(config, call.name)));
                    args.extend(operands.iter().cloned());
                    ("stdin", content, args)
                }
                Err(message) => return deny_early(ctx, config, "stdin", &message, started),
            }
        }
    };
    let program = real_shell(config, call.name);
    let mut args = Vec::new();
    let is_bash = base_name(&program).to_string_lossy().ends_with("bash");
    if is_bash && config.shells.no_rc {
        args.push(OsString::from("--noprofile"));
        args.push(OsString::from("--norc"));
    }
    args.extend(if is_bash {
        exec_args
    } else {
        strip_login(exec_args)
    });
    let exec = ShellExec {
        argv0: match call.name {
            ShellName::Default => base_name(&program),
            ShellName::Sh => "sh".into(),
            ShellName::Bash => "bash".into(),
            ShellName::Dash => "dash".into(),
        },
        program,
        args,
        env: ctx.exec_env(),
    };
    gate_and_exec(ctx, config, mode, &text, exec, started)
}

/// The gate: escape → analysis → built-in floor → policy → audit → exec or deny.
fn gate_and_exec(
    ctx: &Context,
    config: &Config,
    mode: &str,
    text: &str,
    exec: ShellExec,
    started: Instant,
) -> Outcome {
    let escape = config.escape.allow && ctx.escape_requested();
    let gated = evaluate(
        ctx,
        config,
        text,
        Mode::Command,
        mode,
        escape,
        &Review::enforcing(),
    );
    let mut record = base_record(ctx, config, mode, started);
    fill_record(&mut record, config, text, &gated);
    let delivery = audit::record(&config.audit, &record);
    if !delivery.recorded() {
        for e in &delivery.errors {
            eprintln!("guarded-sh: audit: {e}");
        }
        if config.audit.required {
            eprintln!("guarded-sh: denied: the decision could not be audited");
            return Outcome::Exit(EXIT_DENIED);
        }
    }
    match &gated.verdict {
        Verdict::Allow { .. } => Outcome::Exec(
            exec,
            Some(Box::new(ExecAudit {
                config: config.audit.clone(),
                record,
            })),
        ),
        Verdict::Deny { reason, .. } => {
            eprintln!("guarded-sh: denied: {reason}");
            Outcome::Exit(EXIT_DENIED)
        }
        Verdict::Hold { reason } => held(
            ctx,
            config,
            mode,
            text,
            reason,
            &record.decision_id,
            exec,
            started,
        ),
    }
}

/// A held command: approval (an existing second-person grant, or a typed confirmation on the
/// terminal) → the policy again with `execution.approved = true` → audit → exec or deny. An
/// approval only lets the policy see `approved`; the policy can still deny.
#[allow(clippy::too_many_arguments)]
fn held(
    ctx: &Context,
    config: &Config,
    mode: &str,
    text: &str,
    reason: &str,
    decision_id: &str,
    exec: ShellExec,
    started: Instant,
) -> Outcome {
    let target = fallback_target(ctx, config, &Review::enforcing());
    let request = approval::Held {
        text,
        reason,
        host: &target.name,
        decision_id,
        mode,
    };
    let mut record = base_record(ctx, config, mode, started);
    record.decision_id = decision_id.to_string();
    let (outcome, message) = match approval::resolve(ctx, &config.approval, &request) {
        approval::Resolution::Denied { message } => {
            record.set_command(text, config.audit.max_command_bytes);
            record.verdict = "deny".into();
            record.reason = message.clone();
            (Outcome::Exit(EXIT_DENIED), Some(message))
        }
        approval::Resolution::Approved { how } => {
            let again = evaluate_with(
                ctx,
                config,
                text,
                Mode::Command,
                mode,
                false,
                &Review::enforcing(),
                true,
            );
            fill_record(&mut record, config, text, &again);
            match again.verdict {
                Verdict::Allow { .. } => {
                    record.verdict = "approved".into();
                    record.reason = how;
                    let audit = ExecAudit {
                        config: config.audit.clone(),
                        record: record.clone(),
                    };
                    (Outcome::Exec(exec, Some(Box::new(audit))), None)
                }
                Verdict::Deny { reason, .. } => (Outcome::Exit(EXIT_DENIED), Some(reason)),
                Verdict::Hold { reason } => (
                    Outcome::Exit(EXIT_DENIED),
                    Some(format!(
                        "approval required: {reason} (still held with execution.approved = true)"
                    )),
                ),
            }
        }
    };
    record.stage = "approval".into();
    let delivery = audit::record(&config.audit, &record);
    if let (Outcome::Exec(..), false) = (&outcome, delivery.recorded()) {
        if config.audit.required {
            eprintln!("guarded-sh: denied: the approved command could not be audited");
            return Outcome::Exit(EXIT_DENIED);
        }
    }
    if let Some(message) = message {
        eprintln!("guarded-sh: denied: {message}");
    }
    outcome
}

fn deny_early(
    ctx: &Context,
    config: &Config,
    mode: &str,
    message: &str,
    started: Instant,
) -> Outcome {
    let mut r = base_record(ctx, config, mode, started);
    r.verdict = "deny".into();
    r.reason = message.into();
    r.stage = "error".into();
    audit::record(&config.audit, &r);
    eprintln!("guarded-sh: denied: {message}");
    Outcome::Exit(EXIT_DENIED)
}

fn fill_record(record: &mut Record, config: &Config, text: &str, gated: &Gated) {
    record.set_command(text, config.audit.max_command_bytes);
    fill_verdict(record, gated);
}

/// The audit fields that come from a gated decision (signals, verdict, reason, stage, policy).
pub(crate) fn fill_verdict(record: &mut Record, gated: &Gated) {
    record.signals = gated.signals.iter().map(|s| s.id().to_string()).collect();
    record.max_severity =
        signals::max_severity(&gated.signals).map_or(String::new(), |s| s.to_string());
    record.verdict = match gated.verdict {
        Verdict::Allow { escape: true } => "escape".into(),
        ref v => v.word().into(),
    };
    record.reason = gated.verdict.reason().to_string();
    record.stage = match &gated.verdict {
        Verdict::Deny { stage, .. } => serde_json::to_value(stage)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        Verdict::Hold { .. } => "policy".into(),
        Verdict::Allow { escape: true } => "escape".into(),
        Verdict::Allow { escape: false } => String::new(),
    };
    record.policy_digest = gated.policy_digest.clone();
    record.target_env = gated.target.env.clone();
}

/// What the review surface overrides; enforcement uses none of it.
#[derive(Clone, Debug, Default)]
pub struct Review {
    pub dry_run: bool,
    pub policy_dir: Option<PathBuf>,
    pub target: Option<String>,
    pub env: Option<String>,
    pub host_vars: Vec<(String, String)>,
}

impl Review {
    pub fn enforcing() -> Self {
        Review::default()
    }
}

/// One command, analysed and decided.
pub struct Gated {
    pub analysis: Analysis,
    pub signals: Vec<Signal>,
    pub verdict: Verdict,
    pub policy: Option<PolicyDecision>,
    pub policy_configured: bool,
    pub policy_digest: String,
    pub target: Target,
    pub input: serde_json::Value,
}

/// Analyses and decides `text`. Pure but for loading the policy directory.
pub fn evaluate(
    ctx: &Context,
    config: &Config,
    text: &str,
    mode: Mode,
    session_mode: &str,
    escape: bool,
    review: &Review,
) -> Gated {
    evaluate_with(ctx, config, text, mode, session_mode, escape, review, false)
}

/// [`evaluate`], with the policy input's `execution.approved` set to `approved` (true only
/// after `approval` approved a held command).
#[allow(clippy::too_many_arguments)]
pub fn evaluate_with(
    ctx: &Context,
    config: &Config,
    text: &str,
    mode: Mode,
    session_mode: &str,
    escape: bool,
    review: &Review,
    approved: bool,
) -> Gated {
    let limits = &config.limits;
    let mut read =
        |path: &str| script_files::read_script(Path::new(&ctx.cwd), path, limits.max_code_bytes);
    let analysis = crate::interp::analyse_reading(text, limits, &mut read);
    let signals = signals::detect(&analysis);
    // An untrusted or unreadable host-vars file leaves the policy without its context: the
    // policy stage then denies (fail closed) rather than decide on partial facts.
    let (target, target_error) = match target(ctx, config, review) {
        Ok(t) => (t, None),
        Err(e) => (fallback_target(ctx, config, review), Some(e)),
    };
    let session = Session {
        mode: session_mode.into(),
        interactive: mode == Mode::Interactive,
        tty: ctx.stdin_tty,
        login: ctx.login,
        ssh_client: ctx.ssh_client.clone(),
        ssh_original_command: ctx.ssh_original_command.clone(),
        user: ctx.user.clone(),
        uid: ctx.uid,
        cwd: ctx.cwd.clone(),
    };
    let input = input::build(&InputParts {
        raw: text,
        interpreter: &interpreter(&analysis),
        analysis: &analysis,
        signals: &signals,
        target: &target,
        session: &session,
        dry_run: review.dry_run,
        approved,
    });
    let floor = escape || decision::builtin(&signals, mode).is_some();
    let policy_dir = policy_dir(ctx, config, review);
    let mut policy_digest = String::new();
    // The policy runs only when the floor has not already decided.
    let policy: Option<Result<PolicyDecision, String>> = match (&policy_dir, floor) {
        (Some(dir), false) => Some(match target_error {
            Some(e) => Err(e),
            None => load_policy(ctx, config, dir, review).and_then(|policy| {
                policy_digest = policy.digest().to_string();
                policy
                    .evaluate(&input)
                    .map_err(|e| format!("policy error [{}]: {e}", e.reason_id()))
            }),
        }),
        _ => None,
    };
    let verdict = decision::decide(
        escape,
        &signals,
        mode,
        policy.as_ref().map(|r| r.as_ref().map_err(Clone::clone)),
    );
    let policy_decision = policy.and_then(Result::ok);
    Gated {
        analysis,
        signals,
        verdict,
        policy: policy_decision,
        policy_configured: policy_dir.is_some(),
        policy_digest,
        target,
        input,
    }
}

/// The interpreter the command hands its work to (`python3 -c …`, `perl script.pl`), for the
/// policy's `command.interpreter`; empty for plain shell.
pub fn interpreter(analysis: &Analysis) -> String {
    crate::interp::interpreter(analysis)
}

/// The policy directory: `--policy-dir` (review only), `HONEY_POLICY_DIR` from the trusted
/// initial environment, the configuration, then `/etc/guarded-sh/policies` if it exists.
pub fn policy_dir(ctx: &Context, config: &Config, review: &Review) -> Option<PathBuf> {
    if let Some(dir) = &review.policy_dir {
        return Some(dir.clone());
    }
    if !config.policy.enabled {
        return None;
    }
    if config.policy.allow_env_dir {
        if let Some(dir) = ctx.env_policy_dir() {
            return Some(dir);
        }
    }
    if let Some(dir) = &config.policy.dir {
        return Some(dir.clone());
    }
    let default = Path::new(config::DEFAULT_POLICY_DIR);
    default.is_dir().then(|| default.to_path_buf())
}

fn load_policy(
    ctx: &Context,
    config: &Config,
    dir: &Path,
    review: &Review,
) -> Result<Rc<Policy>, String> {
    thread_local! {
        /// Policies this process has loaded, by directory: the interactive check server decides
        /// every command of a session and loads its policy once (DESIGN §5); the shell surface
        /// decides once per process, so nothing changes for it.
        static LOADED: RefCell<Vec<(PathBuf, Rc<Policy>)>> = const { RefCell::new(Vec::new()) };
    }
    let loaded = LOADED.with(|l| {
        l.borrow()
            .iter()
            .find(|(d, _)| d == dir)
            .map(|(_, p)| Rc::clone(p))
    });
    if let Some(policy) = loaded {
        return Ok(policy);
    }
    let cache = if review.policy_dir.is_none() {
        // Enforcement: the directory, every file in it and the cache directory must not be
        // writable by the gated user.
        let groups = if ctx.uid == 0 {
            Vec::new()
        } else {
            trust::groups()
        };
        let refuse = |e: trust::TrustError| format!("policy error [{}]: {e}", e.reason_id());
        trust::check(dir, ctx.uid, &groups).map_err(refuse)?;
        trust::check_entries(dir, ctx.uid, &groups, &["rego", "json"]).map_err(refuse)?;
        match &config.policy.cache_dir {
            Some(d) if d.is_dir() => {
                trust::check(d, ctx.uid, &groups).map_err(refuse)?;
                CacheMode::Dir(d.clone())
            }
            _ => CacheMode::Off,
        }
    } else {
        // Review of a directory of one's own: no cache, nothing to trust.
        CacheMode::Off
    };
    let policy =
        engine::load(dir, &cache).map_err(|e| format!("policy error [{}]: {e}", e.reason_id()))?;
    let policy = Rc::new(policy);
    LOADED.with(|l| l.borrow_mut().push((dir.to_path_buf(), Rc::clone(&policy))));
    Ok(policy)
}

/// The policy's `target`: configuration, then the host-vars file, then review overrides. The
/// file must be trusted (not writable by the gated user) and a JSON object; anything else is an
/// error the policy stage turns into a deny.
fn target(ctx: &Context, config: &Config, review: &Review) -> Result<Target, String> {
    let mut target = fallback_target(ctx, config, review);
    let Some(file) = &config.target.host_vars_file else {
        return Ok(target);
    };
    trust::check(file, ctx.uid, &trust::groups())
        .map_err(|e| format!("host vars [{}]: {e}", e.reason_id()))?;
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("host vars: cannot read {}: {e}", file.display()))?;
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Object(map)) => target.host_vars.extend(map),
        Ok(_) => {
            return Err(format!(
                "host vars: {} is not a JSON object",
                file.display()
            ))
        }
        Err(e) => return Err(format!("host vars: {}: {e}", file.display())),
    }
    for (k, v) in &review.host_vars {
        target
            .host_vars
            .insert(k.clone(), serde_json::Value::String(v.clone()));
    }
    Ok(target)
}

/// The target from the configuration and review overrides alone (no host-vars file).
fn fallback_target(ctx: &Context, config: &Config, review: &Review) -> Target {
    let mut host_vars: serde_json::Map<String, serde_json::Value> = config
        .target
        .host_vars
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in &review.host_vars {
        host_vars.insert(k.clone(), serde_json::Value::String(v.clone()));
    }
    Target {
        name: review
            .target
            .clone()
            .or_else(|| config.target.name.clone())
            .unwrap_or_else(|| ctx.host.clone()),
        provider: config
            .target
            .provider
            .clone()
            .unwrap_or_else(|| if ctx.under_sshd { "ssh" } else { "local" }.into()),
        env: review
            .env
            .clone()
            .unwrap_or_else(|| config.target.env.clone()),
        host_vars,
    }
}

fn real_shell(config: &Config, name: ShellName) -> PathBuf {
    match name {
        ShellName::Default => config.shells.default.clone(),
        ShellName::Sh => config.shells.sh.clone(),
        ShellName::Bash => config.shells.bash.clone(),
        ShellName::Dash => config.shells.dash.clone(),
    }
}

/// Drops `-l`/`--login` for shells that would read profile files behind the gate.
fn strip_login(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut options = true;
    for a in args {
        let s = a.to_string_lossy().into_owned();
        if options && s.starts_with('-') && !s.starts_with("--") && s.len() > 1 && s.contains('l') {
            let kept: String = s.chars().filter(|c| *c != 'l').collect();
            if kept.len() > 1 {
                out.push(kept.into());
            }
            continue;
        }
        if options && s == "--login" {
            continue;
        }
        if options && !s.starts_with('-') && !s.starts_with('+') {
            options = false;
        }
        out.push(a);
    }
    out
}

/// Linux refuses one argv string of 128 KiB or more (`MAX_ARG_STRLEN`, counting its NUL); a
/// script is run as `-c CONTENT`, so it must stay below that whatever the configuration says.
pub const MAX_ARG_TEXT: usize = 128 * 1024 - 1;

fn text_bound(configured: usize) -> usize {
    configured.min(MAX_ARG_TEXT)
}

/// Reads all of stdin, bounded: a larger script is denied unanalysed.
fn read_stdin_bounded(max: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .take(max as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read commands from stdin: {e}"))?;
    if buf.len() > max {
        return Err(format!(
            "command risk: command text too large to analyse (stdin script is over {max} bytes)"
        ));
    }
    if buf.contains(&0) {
        return Err("commands on stdin contain NUL bytes".into());
    }
    Ok(buf)
}

/// Reads a script, bounded: larger files are denied unanalysed.
fn read_bounded(path: &Path, max: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
    let mut buf = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
    if buf.len() > max {
        return Err(format!(
            "command risk: command text too large to analyse ({} is over {max} bytes)",
            path.display()
        ));
    }
    if buf.contains(&0) {
        return Err(format!("script {} contains NUL bytes", path.display()));
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_login_table() {
        let s = |v: &[&str]| {
            strip_login(v.iter().map(OsString::from).collect())
                .into_iter()
                .map(|o| o.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(s(&["-lc", "ls -l"]), ["-c", "ls -l"]);
        assert_eq!(s(&["-l", "-c", "x"]), ["-c", "x"]);
        assert_eq!(s(&["--login", "-ec", "x"]), ["-ec", "x"]);
    }
}
