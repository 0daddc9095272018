//! The shell surface's plan: from a parsed sh/bash invocation, the text to gate and the exact
//! exec of the real shell that runs it (a script or a stdin script is read once, bounded, and
//! run as `-c CONTENT`, so exactly the gated bytes run), or an interactive session.

use crate::config::Config;
use crate::context::Context;
use crate::exec::{self, base_name, ShellExec};
use crate::invocation::{ShellCall, ShellMode, ShellName};
use crate::verdict::{Stage, Surface, Verdict};
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// What the shell surface does with an invocation.
pub enum Plan {
    /// Gate `text`, then exec.
    Gate {
        surface: Surface,
        text: String,
        exec: ShellExec,
    },
    /// A login or interactive session on a terminal (`interactive::session`).
    Session,
}

/// Linux refuses one argv string of 128 KiB or more (`MAX_ARG_STRLEN`, counting its NUL); a
/// script is run as `-c CONTENT`, so it must stay below that whatever the configuration says.
pub const MAX_ARG_TEXT: usize = 128 * 1024 - 1;

/// The plan for `call`; a script or stdin that cannot be read within its bound is a denial
/// (on the surface it arrived on).
pub fn plan(ctx: &Context, config: &Config, call: &ShellCall) -> Result<Plan, (Surface, Verdict)> {
    let (surface, text, exec_args) = match &call.mode {
        ShellMode::Command { text, operands } => {
            let mut args = call.options.clone();
            args.push(text.clone());
            args.extend(operands.iter().cloned());
            (Surface::Command, text.to_string_lossy().into_owned(), args)
        }
        ShellMode::Script { path, operands } => {
            let bytes = read_bounded(path, config.limits.max_bytes.min(MAX_ARG_TEXT))
                .map_err(|v| (Surface::Script, v))?;
            // `-c CONTENT PATH ARGS…` keeps `$0`.
            let mut args = call.options.clone();
            args.push("-c".into());
            let content = String::from_utf8_lossy(&bytes).into_owned();
            args.push(OsString::from_vec(bytes));
            args.push(path.clone().into());
            args.extend(operands.iter().cloned());
            (Surface::Script, content, args)
        }
        ShellMode::Stdin { .. }
            if call
                .options
                .iter()
                .any(|o| o == "--version" || o == "--help") =>
        {
            (Surface::Command, String::new(), call.options.clone())
        }
        ShellMode::Stdin { .. } if ctx.stdin_tty => return Ok(Plan::Session),
        ShellMode::Stdin { operands } => {
            // A script on stdin (`ssh -T host < script`): buffered, bounded, gated whole.
            let max = config.interactive.max_stdin_bytes.min(MAX_ARG_TEXT);
            let bytes = read_stdin_bounded(max).map_err(|v| (Surface::Stdin, v))?;
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
            (Surface::Stdin, content, args)
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
        env: exec::env_for(ctx),
        stdin: None,
    };
    Ok(Plan::Gate {
        surface,
        text,
        exec,
    })
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

fn unreadable(reason_id: &'static str, message: String) -> Verdict {
    Verdict::deny(Stage::Error, reason_id, message)
}

/// Reads all of stdin, bounded: a larger script is denied unanalysed.
fn read_stdin_bounded(max: usize) -> Result<Vec<u8>, Verdict> {
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .take(max as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| {
            unreadable(
                "input.stdin_unreadable",
                format!("cannot read commands from stdin: {e}"),
            )
        })?;
    if buf.len() > max {
        return Err(unreadable(
            "input.too_large",
            format!(
                "command risk: command text too large to analyse (stdin script is over {max} bytes)"
            ),
        ));
    }
    if buf.contains(&0) {
        return Err(unreadable(
            "input.nul",
            "commands on stdin contain NUL bytes".into(),
        ));
    }
    Ok(buf)
}

/// Reads a script, bounded: larger files are denied unanalysed.
fn read_bounded(path: &Path, max: usize) -> Result<Vec<u8>, Verdict> {
    let cannot = |e: std::io::Error| {
        unreadable(
            "input.script_unreadable",
            format!("cannot read script {}: {e}", path.display()),
        )
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut buf = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(cannot)?;
    if buf.len() > max {
        return Err(unreadable(
            "input.too_large",
            format!(
                "command risk: command text too large to analyse ({} is over {max} bytes)",
                path.display()
            ),
        ));
    }
    if buf.contains(&0) {
        return Err(unreadable(
            "input.nul",
            format!("script {} contains NUL bytes", path.display()),
        ));
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
