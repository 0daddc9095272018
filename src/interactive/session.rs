//! Starting a gated interactive session: exec the configured bash as an interactive non-login
//! shell (`--noprofile --rcfile HOOK -i`; bash ignores `--rcfile` in a login shell, so the hook
//! emulates the login files) with the scrubbed environment, the path of this binary (also as
//! `SHELL`, which the programs a session runs start for an escape) and the session's audit id
//! (`GUARDED_SH_SESSION`).
//! Fails closed: without a trusted hook file there is no shell.

use crate::config::Config;
use crate::context::{Context, SESSION_VAR};
use crate::exec::{base_name, ShellEnv, ShellExec};
use crate::trust;
use crate::verdict::{Effect, Stage, Verdict};
use std::ffi::OsString;

/// The variable that tells the hook where guarded-sh is.
pub const BIN_VAR: &str = "GUARDED_SH_BIN";

/// The session's verdict, and the exec of bash with the hook when it is allowed.
pub fn start(ctx: &Context, config: &Config) -> (Verdict, Option<ShellExec>) {
    let hook = &config.interactive.hook;
    let refused =
        |reason_id, reason: String| (Verdict::deny(Stage::Error, reason_id, reason), None);
    if !hook.is_file() {
        return refused(
            "session.hook_missing",
            format!("the session hook {} is missing", hook.display()),
        );
    }
    if let Err(e) = trust::check(hook, ctx.uid, &trust::groups()) {
        return refused(e.reason_id(), format!("session hook: {e}"));
    }
    let shell = config.interactive.shell.clone();
    if !shell.is_file() {
        return refused(
            "session.shell_missing",
            format!("the session shell {} is missing", shell.display()),
        );
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            return refused(
                "session.self_unknown",
                format!("cannot locate guarded-sh itself: {e}"),
            )
        }
    };
    let mut env: Vec<(OsString, OsString)> = ctx
        .shell_env()
        .into_iter()
        .filter(|(k, _)| k != BIN_VAR && k != SESSION_VAR && k != "SHELL")
        .collect();
    // What an editor, pager or multiplexer starts through `$SHELL` (`:!cmd`, `!cmd`, a new
    // window) is gated: `-c` for a command, a gated session for a shell.
    env.push(("SHELL".into(), exe.clone().into_os_string()));
    env.push((BIN_VAR.into(), exe.into_os_string()));
    // Everything the session runs records the session's id (`Context::session_id`).
    env.push((SESSION_VAR.into(), ctx.session_id.clone().into()));
    let exec = ShellExec {
        argv0: base_name(&shell),
        args: vec![
            "--noprofile".into(),
            "--rcfile".into(),
            hook.clone().into_os_string(),
            "-i".into(),
        ],
        program: shell,
        env: ShellEnv::Exact(env),
        stdin: None,
    };
    let started = Verdict::new(
        Effect::Allow,
        Stage::Passed,
        "session.started",
        "interactive session started".into(),
    );
    (started, Some(exec))
}
