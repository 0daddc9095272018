//! The shell surface's plan: from a parsed sh/bash invocation, the text to gate and the exact
//! exec of the real shell that runs it (a script or a stdin script is read once, bounded in bytes
//! and time by `bounded_read`, and run as `-c CONTENT`, so exactly the gated bytes run), or an
//! interactive session. A real shell that is guarded-sh itself is refused here, before any gate.

use crate::bounded_read::{self, ReadError};
use crate::config::Config;
use crate::context::Context;
use crate::exec::{self, base_name, ShellExec};
use crate::invocation::{ShellCall, ShellMode, ShellName};
use crate::verdict::{Stage, Surface, Verdict, EXIT_DENIED};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the shell surface does with an invocation.
pub enum Plan {
    /// Gate `text`, then exec.
    Gate {
        surface: Surface,
        text: String,
        exec: ShellExec,
    },
    /// A login or interactive session on a terminal (`interactive::session`); `asked` is the
    /// command text that asked for an interactive shell in its place (`ssh -tt host bash -i`).
    Session { asked: Option<String> },
}

/// Linux refuses one argv string of 128 KiB or more (`MAX_ARG_STRLEN`, counting its NUL); a
/// script is run as `-c CONTENT`, so it must stay below that whatever the configuration says.
pub const MAX_ARG_TEXT: usize = 128 * 1024 - 1;

/// An invocation refused before any gate ran: the record's surface and verdict, the line for
/// stderr, and the exit status (a script that cannot be opened gets the real shell's own).
#[derive(Debug)]
pub struct Refusal {
    pub surface: Surface,
    pub verdict: Verdict,
    pub message: String,
    pub status: i32,
}

impl Refusal {
    fn denied(surface: Surface, verdict: Verdict) -> Self {
        Refusal {
            message: format!("guarded-sh: denied: {}", verdict.reason),
            surface,
            verdict,
            status: EXIT_DENIED,
        }
    }
}

/// The plan for `call`; a script or stdin that cannot be read within its bound, or a real shell
/// that is guarded-sh itself, is a refusal (on the surface it arrived on).
pub fn plan(ctx: &Context, config: &Config, call: &ShellCall) -> Result<Plan, Refusal> {
    if let Err(e) = exec::refuse_self(&real_shell(config, call.name), config_key(call.name)) {
        let surface = match call.mode {
            ShellMode::Command { .. } => Surface::Command,
            ShellMode::Script { .. } => Surface::Script,
            ShellMode::Stdin { .. } => Surface::Stdin,
        };
        let verdict = Verdict::deny(Stage::Config, e.reason_id(), e.to_string());
        return Err(Refusal::denied(surface, verdict));
    }
    let (surface, text, exec_args) = match &call.mode {
        ShellMode::Command { text, operands }
            if ctx.stdin_tty && operands.is_empty() && asks_for_a_shell(text) =>
        {
            let asked = Some(text.to_string_lossy().into_owned());
            return Ok(Plan::Session { asked });
        }
        ShellMode::Command { text, operands } => {
            let mut args = call.options.clone();
            args.push(text.clone());
            args.extend(operands.iter().cloned());
            (Surface::Command, text.to_string_lossy().into_owned(), args)
        }
        ShellMode::Script { path, operands } => {
            let max = config.limits.max_bytes.min(MAX_ARG_TEXT);
            let wait = Duration::from_secs(config.limits.max_pipe_seconds);
            let bytes = bounded_read::script(path, max, wait, crate::interrupt::watch)
                .map_err(|e| script_refusal(call, &real_shell(config, call.name), path, e))?;
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
        ShellMode::Stdin { .. } if ctx.stdin_tty => return Ok(Plan::Session { asked: None }),
        ShellMode::Stdin { operands } => {
            // A script on stdin (`ssh -T host < script`): buffered, bounded, gated whole.
            let max = config.interactive.max_stdin_bytes.min(MAX_ARG_TEXT);
            let wait = Duration::from_secs(config.limits.max_pipe_seconds);
            crate::interrupt::watch();
            let bytes = bounded_read::stdin(max, wait)
                .map_err(|e| Refusal::denied(Surface::Stdin, stdin_verdict(e)))?;
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

/// The configuration key naming the real shell for `name`.
fn config_key(name: ShellName) -> &'static str {
    match name {
        ShellName::Default => "shells.default",
        ShellName::Sh => "shells.sh",
        ShellName::Bash => "shells.bash",
        ShellName::Dash => "shells.dash",
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

/// A script operand that could not be read. One that cannot be opened ends as the real shell
/// would end it (bash: `NAME: FILE: No such file or directory`, 127; other errors 126; dash: 2);
/// one that is not a regular file, too large or not text is a denial.
fn script_refusal(call: &ShellCall, shell: &Path, path: &Path, e: ReadError) -> Refusal {
    let reason = match &e {
        ReadError::TooLarge(max) => format!(
            "command risk: command text too large to analyse ({} is over {max} bytes)",
            path.display()
        ),
        ReadError::Missing | ReadError::Io(_) => {
            format!("cannot read script {}: {e}", path.display())
        }
        _ => format!("script {} {e}", path.display()),
    };
    let verdict = Verdict::deny(Stage::Error, e.reason_id(), reason);
    let bash_like = base_name(shell).to_string_lossy().ends_with("bash");
    let status = match e {
        ReadError::Missing if bash_like => 127,
        ReadError::Missing | ReadError::Io(_) if !bash_like => 2,
        ReadError::Io(_) => 126,
        _ => return Refusal::denied(Surface::Script, verdict),
    };
    let name = match call.name {
        ShellName::Default => "guarded-sh",
        ShellName::Sh => "sh",
        ShellName::Bash => "bash",
        ShellName::Dash => "dash",
    };
    Refusal {
        message: format!("{name}: {}: {e}", path.display()),
        surface: Surface::Script,
        verdict,
        status,
    }
}

/// The verdict on a script on stdin that could not be read whole within its bounds.
fn stdin_verdict(e: ReadError) -> Verdict {
    let reason = match &e {
        ReadError::TooLarge(max) => format!(
            "command risk: command text too large to analyse (stdin script is over {max} bytes)"
        ),
        ReadError::Nul => "commands on stdin contain NUL bytes".into(),
        ReadError::Io(_) => format!("cannot read commands from stdin: {e}"),
        _ => format!("stdin script {e}"),
    };
    Verdict::deny(Stage::Error, e.reason_id(), reason)
}

/// The shells a command may ask for that a gated session stands in for.
const SESSION_SHELLS: &[&str] = &["bash", "sh", "dash", "rbash"];

/// Whether `text` only asks for an interactive shell: `bash`, `bash -i`, `bash --norc -il`,
/// `exec /bin/sh`, options only (no `-c`, no script, no option value, nothing quoted or
/// expanded). On a terminal such a command gets a gated session instead (`ssh -tt host bash
/// --norc -i` gave a plain bash); anything else is gated as a command.
fn asks_for_a_shell(text: &std::ffi::OsStr) -> bool {
    let Some(text) = text.to_str() else {
        return false;
    };
    let plain = |w: &str| {
        w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/_.+-".contains(&b))
    };
    let mut words = text.split_whitespace().peekable();
    if words.peek() == Some(&"exec") {
        words.next();
    }
    let Some(program) = words.next() else {
        return false;
    };
    let shell = program.rsplit('/').next().unwrap_or(program);
    plain(program)
        && SESSION_SHELLS.contains(&shell)
        && words.all(|w| {
            let option = w.len() > 1 && (w.starts_with('-') || w.starts_with('+'));
            let command = !w.starts_with("--") && w.contains(['c', 'o', 'O']);
            plain(w) && option && !command && !matches!(w, "--" | "--rcfile" | "--init-file")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_asks_for_a_shell() {
        for (text, asks) in [
            ("bash", true),
            ("bash -i", true),
            ("bash --norc -i", true),
            ("/bin/bash --noprofile --norc -il", true),
            ("exec sh", true),
            ("  sh  -i ", true),
            ("dash", true),
            ("bash -c ls", false),
            ("bash -ic ls", false),
            ("bash -o vi", false),
            ("bash --rcfile x", false),
            ("bash script.sh", false),
            ("bash -- -i", false),
            ("bash $X", false),
            ("bash '-i'", false),
            ("zsh", false),
            ("bash; rm -rf x", false),
            ("bash -i && rm x", false),
            ("sudo bash", false),
            ("", false),
            ("exec", false),
        ] {
            assert_eq!(asks_for_a_shell(text.as_ref()), asks, "{text:?}");
        }
    }

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
