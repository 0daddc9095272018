//! Privilege and environment wrappers and the commands that take a shell string as an option:
//! `sudo` (not `-l`/`-e`), `su`/`runuser -c`, `env` (with `-S` split), `flock`, `coproc`,
//! `watch` (a shell string unless `-x`), `alias` bodies and `trap` handlers.

use super::{argv, is_assignment, joined, script, skip_options, Inner};
use crate::ir::{Command, Via, Word};
use crate::parse::word::split_words;

pub(super) fn sudo(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(
        args,
        "ughpCDrtTUR",
        &[
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--chroot",
        ],
    );
    let listing = args[..at.min(args.len())]
        .iter()
        .filter_map(Word::value)
        .any(|v| v == "-l" || v == "--list" || v == "-e" || v == "--edit");
    if listing {
        return Vec::new();
    }
    argv("sudo", args, at, false)
}

pub(super) fn su(base: &str, cmd: &Command) -> Vec<Inner> {
    let args = &cmd.args;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let v = w.value().unwrap_or_default();
        let value = if v == "-c" || v == "--command" || v == "--session-command" {
            args.get(i + 1)
        } else if v.starts_with("--command=") {
            Some(w)
        } else {
            None
        };
        if let Some(word) = value {
            let mut word = word.clone();
            if let Some(rest) = word.value().and_then(|v| v.strip_prefix("--command=")) {
                word = word.clone().with_value(Some(rest.to_string()));
            }
            return vec![script(Via::Shell(format!("{base} -c")), &word, None, false)];
        }
        if base == "runuser" && v == "--" {
            return argv(base, args, i + 1, false);
        }
        i += 1;
    }
    Vec::new()
}

pub(super) fn env(args: &[Word]) -> Vec<Inner> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let Some(v) = w.value() else { break };
        let split = if v == "-S" || v == "--split-string" {
            i += 1;
            args.get(i).and_then(Word::value).map(str::to_string)
        } else {
            v.strip_prefix("--split-string=")
                .or_else(|| v.strip_prefix("-S").filter(|r| !r.is_empty()))
                .map(str::to_string)
        };
        if let Some(s) = split {
            let mut words: Vec<Word> = split_words(&s).iter().map(|t| Word::literal(t)).collect();
            words.extend(args.get(i + 1..).unwrap_or_default().iter().cloned());
            return argv("env", &words, 0, false);
        }
        if v == "--" {
            i += 1;
            break;
        }
        if matches!(v, "-u" | "-C" | "--unset" | "--chdir") {
            i += 2;
            continue;
        }
        if v.starts_with('-') && v.len() > 1 {
            i += 1;
            continue;
        }
        if v == "-" || is_assignment(w) {
            i += 1;
            continue;
        }
        break;
    }
    argv("env", args, i, false)
}

pub(super) fn flock(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(args, "wE", &["--timeout", "--conflict-exit-code"]);
    if let Some(pos) = args
        .iter()
        .position(|w| matches!(w.value(), Some("-c" | "--command")))
    {
        if let Some(word) = args.get(pos + 1) {
            return vec![script(Via::Shell("flock -c".into()), word, None, false)];
        }
    }
    argv("flock", args, at + 1, false)
}

pub(super) fn coproc(args: &[Word]) -> Vec<Inner> {
    let mut at = 0;
    if args.get(1).and_then(Word::value) == Some("{") {
        at = 2;
    } else if args.first().and_then(Word::value) == Some("{") {
        at = 1;
    }
    argv("coproc", args, at, false)
}

pub(super) fn watch(args: &[Word]) -> Vec<Inner> {
    let exec = args
        .iter()
        .any(|w| matches!(w.value(), Some("-x" | "--exec")));
    let at = skip_options(args, "nq", &["--interval", "--differences", "--equexit"]);
    if exec {
        return argv("watch", args, at, false);
    }
    vec![joined(
        Via::Shell("watch".into()),
        args.get(at..).unwrap_or_default(),
        false,
    )]
}

/// `alias name='code'`: the code runs wherever the alias is used, so it is analysed as shell
/// code (non-interactive bash does not expand aliases by default, but the text says intent).
pub(super) fn alias(args: &[Word]) -> Vec<Inner> {
    args.iter()
        .filter_map(|w| {
            let (_, body) = w.value()?.split_once('=')?;
            let code = Word::literal(body);
            Some(script(Via::Shell("alias".into()), &code, None, false))
        })
        .collect()
}

/// `trap HANDLER SIGNAL...`: the handler is code the same shell runs later (at exit, on an error,
/// on a signal) with no line or command of its own to check then, so it is analysed where it is
/// set. Listing (`-p`, `-l`), resetting (`trap SIGNAL`, `trap - SIGNAL`, a number first) and
/// ignoring (`trap '' SIGNAL`) run nothing.
pub(super) fn trap(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(args, "", &[]);
    let listing = args[..at.min(args.len())]
        .iter()
        .any(|w| w.value().is_some_and(|v| v.contains(['p', 'l'])));
    let [handler, _signal, ..] = args.get(at..).unwrap_or_default() else {
        return Vec::new();
    };
    let resets = handler
        .value()
        .is_some_and(|v| v == "-" || v.is_empty() || v.bytes().all(|b| b.is_ascii_digit()));
    if listing || resets {
        return Vec::new();
    }
    vec![script(Via::Shell("trap".into()), handler, None, true)]
}
