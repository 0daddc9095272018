//! Starting a gated interactive session: exec the configured bash as an interactive non-login
//! shell (`--noprofile --rcfile HOOK -i`; bash ignores `--rcfile` in a login shell, so the hook
//! emulates the login files) with the scrubbed environment and the path of this binary.
//! Fails closed: without a trusted hook file there is no shell.

use crate::app::{Outcome, EXIT_DENIED};
use crate::audit::{self, Record};
use crate::config::Config;
use crate::context::Context;
use crate::exec::{base_name, ShellEnv, ShellExec};
use crate::invocation::ShellCall;
use crate::trust;
use std::ffi::OsString;

/// The variable that tells the hook where guarded-sh is.
pub const BIN_VAR: &str = "GUARDED_SH_BIN";

pub fn start(ctx: &Context, config: &Config, call: &ShellCall) -> Outcome {
    let hook = &config.interactive.hook;
    let refused = if !hook.is_file() {
        Some(format!("the session hook {} is missing", hook.display()))
    } else if let Err(e) = trust::check(hook, ctx.uid, &trust::groups()) {
        Some(format!("session hook: {e}"))
    } else if !config.interactive.shell.is_file() {
        Some(format!(
            "the session shell {} is missing",
            config.interactive.shell.display()
        ))
    } else {
        None
    };
    let exe = std::env::current_exe();
    let (refused, exe) = match (refused, exe) {
        (Some(r), _) => (Some(r), None),
        (None, Err(e)) => (Some(format!("cannot locate guarded-sh itself: {e}")), None),
        (None, Ok(p)) => (None, Some(p)),
    };
    let mut record = Record {
        time: audit::now_rfc3339(),
        decision_id: audit::decision_id(),
        user: ctx.user.clone(),
        uid: ctx.uid,
        mode: "interactive".into(),
        tty: ctx.stdin_tty,
        ssh_client: ctx.ssh_client.clone(),
        host: ctx.host.clone(),
        target_env: config.target.env.clone(),
        command: String::new(),
        verdict: if refused.is_some() { "deny" } else { "allow" }.into(),
        reason: refused
            .clone()
            .unwrap_or_else(|| "interactive session started".into()),
        stage: if refused.is_some() { "error" } else { "" }.into(),
        ..Record::default()
    };
    record.command = if call.login {
        "(login session)"
    } else {
        "(interactive session)"
    }
    .into();
    let delivery = audit::record(&config.audit, &record);
    if let Some(reason) = refused {
        eprintln!("guarded-sh: denied: {reason} (no ungated shell is started)");
        return Outcome::Exit(EXIT_DENIED);
    }
    if !delivery.recorded() && config.audit.required {
        eprintln!("guarded-sh: denied: the session could not be audited");
        return Outcome::Exit(EXIT_DENIED);
    }
    let mut env: Vec<(OsString, OsString)> = ctx
        .shell_env()
        .into_iter()
        .filter(|(k, _)| k != BIN_VAR)
        .collect();
    if let Some(exe) = exe {
        env.push((BIN_VAR.into(), exe.into_os_string()));
    }
    let shell = config.interactive.shell.clone();
    Outcome::Exec(
        ShellExec {
            argv0: base_name(&shell),
            args: vec![
                "--noprofile".into(),
                "--rcfile".into(),
                hook.clone().into_os_string(),
                "-i".into(),
            ],
            program: shell,
            env: ShellEnv::Exact(env),
        },
        None,
    )
}
