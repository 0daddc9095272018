//! Structure: what the shape of the text says, whatever the commands are: parse errors,
//! command substitution, fork bombs, command words and shell code only known at run time, and
//! command names spelled with needless quoting.

use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Word};
use crate::programs::SHELL_SETUP_PRINTERS;

pub static UNPARSEABLE_COMMAND: Spec = Spec {
    id: "UNPARSEABLE_COMMAND",
    severity: Severity::Medium,
    reason: "command could not be parsed as shell",
    family: Family::Structure,
    explain: "The text (or a nested shell string) has a syntax error. Everything that did parse is still analysed, so one error never hides a critical signal elsewhere.",
};
pub static COMMAND_SUBSTITUTION: Spec = Spec {
    id: "COMMAND_SUBSTITUTION",
    severity: Severity::Medium,
    reason: "command substitution",
    family: Family::Structure,
    explain: "A `$(…)` or backtick substitution runs a command and splices its output into another. One signal per substitution.",
};
pub static FORK_BOMB: Spec = Spec {
    id: "FORK_BOMB",
    severity: Severity::Critical,
    reason: "possible fork bomb",
    family: Family::Structure,
    explain: "A function that calls itself more than once per call, through a pipe or in the background (`:(){ :|:& };:`, or the same under any name). The `:` no-op alone is not one.",
};
pub static DYNAMIC_COMMAND_NAME: Spec = Spec {
    id: "DYNAMIC_COMMAND_NAME",
    severity: Severity::High,
    reason: "command name only known at run time",
    family: Family::Structure,
    explain: "The command word is a variable, a substitution or another expansion that cannot be resolved from the text (`$x -rf /`, `$(echo rm)`). Nothing can be said about what it runs.",
};
pub static DYNAMIC_SHELL_CODE: Spec = Spec {
    id: "DYNAMIC_SHELL_CODE",
    severity: Severity::High,
    reason: "shell code only known at run time",
    family: Family::Structure,
    explain: "A shell string that is built at run time is executed (`bash -c \"$x\"`, `eval \"$cmd\"`, `ssh host \"$c\"`), so its commands cannot be analysed. `eval` of only a local setup printer's output (`eval \"$(dircolors -b)\"`) is EVAL_SHELL_SETUP (low) instead.",
};
pub static EVAL_SHELL_SETUP: Spec = Spec {
    id: "EVAL_SHELL_SETUP",
    severity: Severity::Low,
    reason: "evaluates the shell setup a local program prints",
    family: Family::Structure,
    explain: "`eval` of nothing but the output of one program that prints shell setup it computes locally (`eval \"$(dircolors -b)\"`, `eval \"$(ssh-agent -s)\"`, `eval \"$(pyenv init -)\"`), with static arguments, no pipe and no redirection. It takes the place of DYNAMIC_SHELL_CODE (high), which stays for any other run-time code: other programs, extra text around the substitution, downloads.",
};
pub static OBFUSCATED_COMMAND_NAME: Spec = Spec {
    id: "OBFUSCATED_COMMAND_NAME",
    severity: Severity::Medium,
    reason: "command name spelled with needless quoting",
    family: Family::Structure,
    explain: "A plain command name written with quotes, backslashes or ANSI-C escapes (`r''m`, `\\rm`, `$'\\x72m'`). guarded-sh resolves it, but the spelling itself is a common evasion.",
};

pub static SPECS: &[&Spec] = &[
    &UNPARSEABLE_COMMAND,
    &COMMAND_SUBSTITUTION,
    &FORK_BOMB,
    &DYNAMIC_COMMAND_NAME,
    &DYNAMIC_SHELL_CODE,
    &EVAL_SHELL_SETUP,
    &OBFUSCATED_COMMAND_NAME,
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    if let Some(first) = a.parse_errors.first() {
        out.push(UNPARSEABLE_COMMAND.bare(vec![first.clone()]));
    }
    for (id, commands) in a.command_substitutions.iter().enumerate() {
        let at = commands.first().copied().unwrap_or(usize::MAX);
        let mut s = COMMAND_SUBSTITUTION.bare(vec![format!("#{id}")]);
        s.at = at;
        out.push(s);
    }
    for (i, cmd) in a.commands.iter().enumerate() {
        if cmd.name.raw.is_empty() && cmd.name.value().is_none() {
            continue;
        }
        if cmd.name.value().is_none() {
            out.push(DYNAMIC_COMMAND_NAME.on(i, cmd, vec![cmd.name.raw.clone()]));
        } else if cmd.name.obfuscated {
            out.push(OBFUSCATED_COMMAND_NAME.on(i, cmd, vec![cmd.name.raw.clone()]));
        }
    }
    for (i, raw) in &a.dynamic_code {
        if let Some(cmd) = a.commands.get(*i) {
            let spec = if evals_shell_setup(a, cmd) {
                &EVAL_SHELL_SETUP
            } else {
                &DYNAMIC_SHELL_CODE
            };
            out.push(spec.on(*i, cmd, vec![raw.clone()]));
        }
    }
    for f in &a.functions {
        let calls: Vec<&Command> = f
            .body
            .iter()
            .filter_map(|&i| a.commands.get(i))
            .filter(|c| c.name.value() == Some(f.name.as_str()))
            .collect();
        let piped = calls
            .iter()
            .filter(|c| c.context.pipeline.is_some())
            .count();
        let background = calls.iter().any(|c| c.context.background);
        if calls.len() >= 2 && (piped >= 2 || background) || (background && !calls.is_empty()) {
            let at = f.body.first().copied().unwrap_or(usize::MAX);
            let mut s = FORK_BOMB.bare(vec![f.name.clone()]);
            s.command = Some(f.name.clone());
            s.at = at;
            out.push(s);
        }
    }
}

/// `eval` whose every argument is exactly one `$(…)`/backtick substitution (optionally in double
/// quotes) running one setup printer (`SHELL_SETUP_PRINTERS`).
fn evals_shell_setup(a: &Analysis, cmd: &Command) -> bool {
    cmd.is(&["eval"])
        && !cmd.args.is_empty()
        && cmd.args.iter().all(|w| {
            let [id] = w.substitutions.as_slice() else {
                return false;
            };
            let printer = a
                .command_substitutions
                .get(*id)
                .is_some_and(|cmds| matches!(cmds.as_slice(), [c] if a.commands.get(*c).is_some_and(prints_shell_setup)));
            printer && w.processes.is_empty() && w.static_prefix.is_empty() && is_one_substitution(w)
        })
}

/// The word as written is `$(…)`, `"$(…)"`, `` `…` `` or `` "`…`" `` and nothing else.
fn is_one_substitution(w: &Word) -> bool {
    let inner = w
        .raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(&w.raw);
    if let Some(body) = inner.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
        return !body.contains('`');
    }
    let Some(body) = inner.strip_prefix("$(") else {
        return false;
    };
    // The `(` opened by `$(` must close at the very end, counting parentheses outside quotes.
    let mut depth = 1usize;
    let mut quote: Option<char> = None;
    for (k, c) in body.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'') | (None, '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return k + 1 == body.len();
                }
            }
            _ => {}
        }
    }
    false
}

/// One setup printer with static arguments, not in a pipeline and without redirections.
fn prints_shell_setup(cmd: &Command) -> bool {
    let Some(base) = cmd.base() else { return false };
    let operands: Vec<Option<&str>> = cmd.operands().iter().map(|w| w.value()).collect();
    let plain = cmd.args.iter().all(Word::is_static)
        && cmd.redirects.is_empty()
        && cmd.context.pipeline.is_none();
    plain
        && SHELL_SETUP_PRINTERS.iter().any(|(name, sub, more)| {
            let rest = if sub.is_empty() {
                Some(operands.as_slice())
            } else {
                match operands.split_first() {
                    Some((Some(first), rest)) if first == sub => Some(rest),
                    _ => None,
                }
            };
            *name == base && rest.is_some_and(|r| *more || r.is_empty())
        })
}
