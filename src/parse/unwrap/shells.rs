//! Nested shells: `sh -c STR [NAME ARGS…]` with its positional parameters, a shell reading its
//! program on stdin (heredoc, here-string, static pipe), a shell script file (`sh FILE`,
//! `. FILE`, `./x.sh`, read by the caller), and `script -c`.

use super::{script, Inner};
use crate::ir::{piped_text, Analysis, Command, Stdin, Via, Word, PROCESS_STDIN};
use crate::parse::shebang::is_shell_script;
use crate::programs::SHELLS;

pub(super) fn script_command(args: &[Word]) -> Vec<Inner> {
    // `-c`, `--command`, or a cluster ending in it (`script -qc CMD`).
    let command_option = |v: &str| {
        matches!(v, "-c" | "--command")
            || v.len() > 2
                && v.starts_with('-')
                && !v.starts_with("--")
                && v.ends_with('c')
                && v[1..].chars().all(|c| c.is_ascii_alphabetic())
    };
    match args
        .iter()
        .position(|w| w.value().is_some_and(command_option))
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
    if let Some(file) = args.get(i).filter(|_| !s_flag) {
        return file_script(via("FILE"), file, &args[i + 1..], analysis, false);
    }
    stdin_script(&cmd.stdin, analysis, via("stdin"))
}

/// The script file a command runs as shell code, by path as written, for the caller to read:
/// a shell's file operand (`sh FILE`, without `-c`/`-s`), `source FILE`/`. FILE`, or the command
/// itself run by path (`./deploy.sh`; whether it is a shell script is known once it is read).
pub(crate) fn shell_script_path(cmd: &Command) -> Option<&str> {
    let base = cmd.base()?;
    let file = if SHELLS.contains(&base) {
        let (c_flag, s_flag, i) = shell_options(&cmd.args);
        cmd.args.get(i).filter(|_| !c_flag && !s_flag)?
    } else if matches!(base, "source" | ".") {
        cmd.args.get(source_operand(&cmd.args))?
    } else {
        return cmd
            .name_value()
            .filter(|p| p.contains('/') && !p.is_empty());
    };
    file.value().filter(|p| !p.is_empty())
}

/// `source FILE [ARGS…]`, `. FILE`: the file runs in the current shell.
pub(super) fn sourced(base: &str, cmd: &Command, analysis: &Analysis) -> Vec<Inner> {
    let at = source_operand(&cmd.args);
    match cmd.args.get(at) {
        Some(file) => {
            let args = &cmd.args[at + 1..];
            file_script(
                Via::Shell(format!("{base} FILE")),
                file,
                args,
                analysis,
                true,
            )
        }
        None => Vec::new(),
    }
}

/// Where `source`'s file operand is (after a leading `--`).
fn source_operand(args: &[Word]) -> usize {
    usize::from(args.first().and_then(Word::value) == Some("--"))
}

/// A command run by path whose file is a shell script (`./deploy.sh`): run as `sh FILE`.
/// `None` when it is not one, or was not read, for the interpreters to look at.
pub(super) fn by_path(cmd: &Command, analysis: &Analysis) -> Option<Vec<Inner>> {
    let path = cmd.name_value().filter(|p| p.contains('/'))?;
    let text = analysis.scripts.get(path)?;
    if !is_shell_script(text) {
        return None;
    }
    Some(vec![Inner::File {
        via: Via::Shell("FILE".into()),
        path: path.to_string(),
        text: text.clone(),
        positional: static_values(&cmd.args),
        same_shell: false,
    }])
}

/// The script file `file` names, when it was read; nothing otherwise (a file that is not there
/// yet, or cannot be read, is not known from the text).
fn file_script(
    via: Via,
    file: &Word,
    args: &[Word],
    analysis: &Analysis,
    same_shell: bool,
) -> Vec<Inner> {
    let Some(path) = file.value() else {
        return Vec::new();
    };
    let Some(text) = analysis.scripts.get(path) else {
        return Vec::new();
    };
    // A sourced file shares the caller's variables (its `$1…` too, as far as they are known).
    let positional = if same_shell {
        None
    } else {
        static_values(args)
    };
    vec![Inner::File {
        via,
        path: path.to_string(),
        text: text.clone(),
        positional,
        same_shell,
    }]
}

/// Each word's static value, or `None` when any is only known at run time.
fn static_values(args: &[Word]) -> Option<Vec<String>> {
    args.iter().map(|w| w.value().map(str::to_string)).collect()
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
