//! Nested shells: `sh -c STR [NAME ARGS…]` with its positional parameters, a shell reading its
//! program on stdin (heredoc, here-string, static pipe), and `script -c`.

use super::{script, Inner};
use crate::ir::{piped_text, Analysis, Command, Stdin, Via, Word, PROCESS_STDIN};
use crate::programs::SHELLS;

pub(super) fn script_command(args: &[Word]) -> Vec<Inner> {
    match args
        .iter()
        .position(|w| matches!(w.value(), Some("-c" | "--command")))
    {
        Some(pos) => match args.get(pos + 1) {
            Some(word) => vec![script_word(Via::Shell("script -c".into()), word)],
            None => Vec::new(),
        },
        None => Vec::new(),
    }
}

pub(super) fn script_word(via: Via, word: &Word) -> Inner {
    script(via, word, None, false)
}

/// A shell's options: whether `-c` and `-s` were given, and where its operands start.
fn shell_options(args: &[Word]) -> (bool, bool, usize) {
    let mut c_flag = false;
    let mut s_flag = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let Some(v) = w.value() else { break };
        if v == "--" || v == "-" {
            i += 1;
            break;
        }
        if matches!(v, "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if v.starts_with("--") {
            i += 1;
            continue;
        }
        if (v.starts_with('-') || v.starts_with('+')) && v.len() > 1 {
            let letters = &v[1..];
            c_flag |= letters.contains('c');
            s_flag |= letters.contains('s');
            i += if letters.ends_with('o') || letters.ends_with('O') {
                2
            } else {
                1
            };
            continue;
        }
        break;
    }
    (c_flag, s_flag, i)
}

/// Whether `cmd` is a shell that reads its commands from the stdin the command line inherits
/// (`bash`, `sh -s ARG`, `dash -e`): its commands are then the process's own stdin
/// ([`PROCESS_STDIN`]), which the edge reads where it may.
pub(crate) fn reads_process_stdin(cmd: &Command) -> bool {
    let Some(base) = cmd.base() else {
        return false;
    };
    if !SHELLS.contains(&base) || !matches!(cmd.stdin, Stdin::Inherited) {
        return false;
    }
    let (c_flag, s_flag, i) = shell_options(&cmd.args);
    !c_flag && (s_flag || cmd.args.get(i).is_none())
}

/// `sh [opts] -c STR [NAME ARGS…]`, `sh` reading stdin, or `sh FILE`.
pub(super) fn shell(base: &str, cmd: &Command, analysis: &Analysis) -> Vec<Inner> {
    let args = &cmd.args;
    let (c_flag, s_flag, i) = shell_options(args);
    let via = |what: &str| Via::Shell(format!("{base} {what}"));
    if c_flag {
        let Some(word) = args.get(i) else {
            return Vec::new();
        };
        let positional: Option<Vec<String>> = args
            .get(i + 2..)
            .unwrap_or_default()
            .iter()
            .map(|w| w.value().map(str::to_string))
            .collect();
        return vec![script(via("-c"), word, positional, false)];
    }
    if args.get(i).is_some() && !s_flag {
        return Vec::new(); // a script file: not readable from the text alone
    }
    stdin_script(&cmd.stdin, analysis, via("stdin"))
}

/// The shell code a command reads on stdin, when the text shows it.
pub(super) fn stdin_script(stdin: &Stdin, analysis: &Analysis, via: Via) -> Vec<Inner> {
    let text = match stdin {
        Stdin::Heredoc { text, .. } => text.clone(),
        Stdin::HereString(w) => w.value().map(str::to_string),
        Stdin::Pipe { .. } => {
            return match piped_text(stdin, analysis) {
                Some(text) => vec![Inner::Script {
                    via,
                    text: Some(text),
                    raw: String::new(),
                    substitutions: Vec::new(),
                    positional: None,
                    same_shell: false,
                    template: None,
                }],
                None => Vec::new(),
            };
        }
        Stdin::Inherited => match analysis.scripts.get(PROCESS_STDIN) {
            Some(text) => Some(text.clone()),
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let raw = text.clone().unwrap_or_default();
    let template = match stdin {
        Stdin::HereString(w) => w.template.clone(),
        Stdin::Heredoc { template, .. } => template.clone(),
        _ => None,
    };
    vec![Inner::Script {
        via,
        text,
        raw,
        substitutions: Vec::new(),
        positional: None,
        same_shell: false,
        template,
    }]
}
