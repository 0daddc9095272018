//! Where an interpreter command's program comes from: its code options (`-c`, `-e`, `-r`,
//! `--eval`, an awk or sed program), stdin (heredoc, here-string, static pipe, `< file`), a
//! script operand, or a directly executed script whose shebang names an interpreter.

use super::args::{code_args, Found};
use crate::ir::{
    piped_text, Analysis, Code, Command, Language, Origin, Stdin, Word, PROCESS_STDIN,
};
use crate::parse::shebang;

/// The language an interpreter name runs (`python3.11` → Python, `gawk` → Awk).
pub fn language(base: &str) -> Option<Language> {
    match base {
        "awk" | "gawk" | "mawk" | "nawk" => Some(Language::Awk),
        "sed" | "gsed" => Some(Language::Sed),
        _ => crate::programs::interpreter(base).and_then(|(_, language)| language),
    }
}

/// The program `cmd` runs, when it is an interpreter (or a script naming one) and the program
/// text is in the command, on its stdin, or among the script files the caller read.
pub fn program(cmd: &Command, analysis: &Analysis) -> Option<Code> {
    let base = cmd.base()?;
    let Some(language) = language(base) else {
        return shebang_script(cmd, analysis);
    };
    let code = |origin, text: Option<String>, partial| Code {
        language,
        interpreter: base.to_string(),
        origin,
        text,
        partial,
    };
    match code_args(language, &cmd.args) {
        Found::Inline(words) => {
            let (text, partial) = joined(&words);
            Some(code(Origin::Inline, text, partial))
        }
        Found::File(word) => {
            let path = word.value()?;
            if is_stdin_operand(path) {
                let (text, partial) = stdin_text(cmd, analysis)?;
                return Some(code(Origin::Stdin, text, partial));
            }
            let text = analysis.scripts.get(path)?.clone();
            Some(code(Origin::File(path.to_string()), Some(text), false))
        }
        Found::Stdin => {
            let (text, partial) = stdin_text(cmd, analysis)?;
            Some(code(Origin::Stdin, text, partial))
        }
        Found::Nothing => None,
    }
}

/// Several `-e` programs run as one, joined by newlines (perl, ruby, lua, sed). A word that is
/// only partly known contributes its template.
fn joined(words: &[Word]) -> (Option<String>, bool) {
    let mut partial = false;
    let mut parts = Vec::new();
    for w in words {
        match (w.value(), &w.template) {
            (Some(v), _) => parts.push(v.to_string()),
            (None, Some(t)) => {
                partial = true;
                parts.push(t.clone());
            }
            (None, None) => return (None, true),
        }
    }
    (Some(parts.join("\n")), partial)
}

/// What the command reads on stdin and whether it is a template (a heredoc or here-string with
/// run-time expansions, left as written); `Some((None, _))` when it is program text only known
/// at run time, `None` when nothing in the text shows a program.
fn stdin_text(cmd: &Command, analysis: &Analysis) -> Option<(Option<String>, bool)> {
    match &cmd.stdin {
        Stdin::Heredoc {
            text: None,
            template: Some(t),
        } => Some((Some(t.clone()), true)),
        Stdin::Heredoc { text, .. } => Some((text.clone(), false)),
        Stdin::HereString(w) => Some(match (w.value(), &w.template) {
            (Some(v), _) => (Some(format!("{v}\n")), false),
            (None, Some(t)) => (Some(format!("{t}\n")), true),
            (None, None) => (None, false),
        }),
        Stdin::Pipe { .. } => piped_text(&cmd.stdin, analysis).map(|t| (Some(t), false)),
        Stdin::File(w) => analysis
            .scripts
            .get(w.value()?)
            .map(|t| (Some(t.clone()), false)),
        Stdin::Inherited => analysis
            .scripts
            .get(PROCESS_STDIN)
            .map(|t| (Some(t.clone()), false)),
        Stdin::Process { .. } => None,
    }
}

/// `./x.py`, `/opt/tools/run`: a script run by path whose first line names an interpreter.
fn shebang_script(cmd: &Command, analysis: &Analysis) -> Option<Code> {
    let path = cmd.name_value()?;
    if !path.contains('/') {
        return None;
    }
    let text = analysis.scripts.get(path)?;
    let interpreter = shebang(text)?;
    let language = language(&interpreter)?;
    Some(Code {
        language,
        interpreter,
        origin: Origin::File(path.to_string()),
        text: Some(text.clone()),
        partial: false,
    })
}

/// The script files the analysis refers to: interpreter script operands, `< file` fed to an
/// interpreter, and commands run by path (for their shebang), each once, in command order.
pub fn script_paths(analysis: &Analysis) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for path in analysis.commands.iter().flat_map(command_script_paths) {
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// The script files one command runs or feeds to an interpreter, read before `program` is
/// asked: a script operand (`python3 x.py`), the file on the stdin of an interpreter that reads
/// its program there (`python3 < x.py`, `python3 - < x.py`), or the command itself when it is
/// run by path and could name an interpreter in its shebang (`./x.py`).
pub fn command_script_paths(cmd: &Command) -> Vec<String> {
    let Some(base) = cmd.base() else {
        return Vec::new();
    };
    let path: Option<String> = match language(base) {
        Some(language) => match code_args(language, &cmd.args) {
            Found::File(w) => match w.value() {
                Some(p) if is_stdin_operand(p) => stdin_file(cmd).map(str::to_string),
                other => other.map(str::to_string),
            },
            Found::Stdin => stdin_file(cmd).map(str::to_string),
            _ => None,
        },
        None => cmd
            .name_value()
            .filter(|p| p.contains('/'))
            .map(str::to_string),
    };
    path.into_iter().filter(|p| !p.is_empty()).collect()
}

/// A script operand that names the command's own stdin (`-`, `/dev/stdin`, `/dev/fd/0`).
fn is_stdin_operand(path: &str) -> bool {
    matches!(path, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// The file on `cmd`'s stdin (`< x.py`), when static; the process's own stdin
/// ([`PROCESS_STDIN`]) when the command inherits it.
fn stdin_file(cmd: &Command) -> Option<&str> {
    match &cmd.stdin {
        Stdin::File(w) => w.value(),
        Stdin::Inherited => Some(PROCESS_STDIN),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_table() {
        assert_eq!(language("python3.12"), Some(Language::Python));
        assert_eq!(language("python"), Some(Language::Python));
        assert_eq!(language("pythonw"), None);
        assert_eq!(language("gawk"), Some(Language::Awk));
        assert_eq!(language("perl5.36"), Some(Language::Perl));
        assert_eq!(language("rm"), None);
    }
}
