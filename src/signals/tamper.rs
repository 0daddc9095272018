//! Tampering with the gate itself: its escape and policy variables, the session hook's functions
//! and DEBUG trap, the shell options and builtins the hook needs, loader and startup variables,
//! guarded-sh's own files, the login shell, shell history, and `exec` into an unguarded shell.

use super::clobber::{
    operands_skipping, option_values, path_value, push_once, written, Neighbours, WriteKind,
};
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Via, Word};
use crate::programs::SHELLS;

/// The family of every entry declared below.
const FAMILY: Family = Family::Tamper;

spec!(
    GATE_VARIABLE_TAMPERING,
    "GATE_VARIABLE_TAMPERING",
    Critical,
    "sets or unsets the gate's escape or policy variable",
    "`HONEY_*` (`HONEY_RISK_DISABLE`, `HONEY_POLICY_DIR`) or `GUARDED_SH_*` named in command text: as a `NAME=v cmd` prefix, an operand of `export`/`declare`/`typeset`/`readonly`/`local`/`unset`/`read`/`printf -v`, or an `env`/`sudo` assignment or `env -u`. The escape is only trusted from the environment guarded-sh starts with (DESIGN §8); setting it in the text is gate tampering."
);
spec!(
    HOOK_TAMPERING,
    "HOOK_TAMPERING",
    Critical,
    "tampers with the session hook",
    "Defining, redefining or unsetting a `__gsh_*`/`__GSH_*` function or variable; `trap … DEBUG` in any form (`trap - DEBUG`, `trap '' debug`; `trap -p`/`-l` are fine), and a trap whose signal names are not fully known (`trap - ${X:-DEBUG}`, `trap '' \"$(echo DEBUG)\"`, an unquoted action only known at run time, which may split into `- DEBUG`); `builtin` with a name only known at run time; `set`/`shopt` with an option that is not fully known (`set +$o`, `shopt -u \"$opt\"`); `enable` other than a listing or the loading of a builtin bash does not have (`enable -n trap`, `enable -d x`, `enable -f lib.so trap`, a name only known at run time); `shopt -u extdebug`/`functrace`; `set +T`/`set +o functrace`. The interactive hook re-asserts its options and marks itself readonly, so these are defence in depth. `set -o posix` is not flagged: the hook survives it (verified)."
);
spec!(
    COMPUTED_VARIABLE_NAME,
    "COMPUTED_VARIABLE_NAME",
    Medium,
    "sets or unsets a variable whose name is only known at run time",
    "A name given to `export`/`declare`/`typeset`/`readonly`/`local`/`unset`, `read`, `mapfile`, `printf -v`, or the target of a `declare -n` reference, that is not fully known before the command runs (`export \"$name=1\"`, `printf -v \"$1\"`, `export $(cat .env)`): it may name the gate's escape variable, a loader variable or the session hook's state. Medium on `-c`, where a script's return-by-name idiom uses it; a gated session refuses it, since the hook cannot tell which variable it writes."
);
spec!(
    BUILTIN_LOADED,
    "BUILTIN_LOADED",
    Medium,
    "loads a shell builtin from a shared object",
    "`enable -f FILE NAME…` adding builtins bash does not have, each named literally (pyenv's `enable -f …/pyenv-realpath.dylib realpath`): native code runs inside the shell. In an interactive session the session guard denies it (the code could remove the hook from inside the shell); elsewhere the policy decides. Replacing a builtin bash has, disabling or deleting one is HOOK_TAMPERING."
);
spec!(
    SHELL_ENV_INJECTION,
    "SHELL_ENV_INJECTION",
    High,
    "sets a variable that makes the shell or loader run other code",
    "`BASH_ENV`, `ENV`, `LD_PRELOAD`, `LD_AUDIT`, `DYLD_INSERT_LIBRARIES`, `BASH_COMMAND`, `SHELLOPTS`, `BASHOPTS`, `BASH_FUNC_*`, `ZDOTDIR`, `SHELL`, or `PS3`/`PS4` (read by `select` and `set -x` in any shell) whose value holds `$(…)` or backticks, set or unset in command text: code runs at the next shell start, program start or trace, unseen by the gate. The prompt hooks of an interactive shell are PROMPT_CODE."
);
spec!(
    PROMPT_CODE,
    "PROMPT_CODE",
    Medium,
    Persistence,
    "sets code an interactive shell runs at each prompt",
    "`PROMPT_COMMAND`, or a prompt (`PS0`, `PS1`, `PS2`) whose value holds `$(…)` or backticks, set or unset in command text: what pyenv, direnv, starship, zoxide and conda install at login. A literal `PROMPT_COMMAND` is analysed as the code it is where it is set; in a gated session each of its commands is also checked when it runs, so a session leaves it to the policy (it was denied there as shell tampering)."
);
spec!(
    LIBRARY_PATH_OVERRIDE,
    "LIBRARY_PATH_OVERRIDE",
    Medium,
    "overrides the library search path",
    "`LD_LIBRARY_PATH` or `DYLD_LIBRARY_PATH` set in command text. Common for running freshly built programs, but it lets a directory's libraries replace system ones."
);
spec!(
    GATE_FILE_TAMPERING,
    "GATE_FILE_TAMPERING",
    Critical,
    "modifies guarded-sh's own files",
    "A write, move, delete, `chmod`, `chown`, `chattr`, `setfacl` or `touch` of guarded-sh's configuration, policies, hook, binary, cache or logs: `/etc/guarded-sh`, `/usr/lib/guarded-sh`, `/usr/local/lib/guarded-sh`, `/usr/bin/guarded-sh`, `/usr/local/bin/guarded-sh`, `/var/cache/guarded-sh`, `/var/log/guarded-sh`. Reading them is fine."
);
spec!(
    LOGIN_SHELL_CHANGE,
    "LOGIN_SHELL_CHANGE",
    High,
    "changes a login shell",
    "`chsh`, `lchsh` or `usermod -s|--shell`: a login shell other than guarded-sh takes the account out of the gate for every later login."
);
spec!(
    UNGUARDED_SHELL_EXEC,
    "UNGUARDED_SHELL_EXEC",
    High,
    "replaces the session with an unguarded shell",
    "`exec bash`, `exec /bin/sh -l`, `exec zsh`: the gated shell is replaced by one without the hook. With `-c` the string is analysed instead and this is not raised."
);
spec!(
    HISTORY_TAMPERING,
    "HISTORY_TAMPERING",
    Low,
    "clears or disables shell history",
    "`history -c`/`-d`, `unset HISTFILE`, `HISTFILE=/dev/null`, `HISTSIZE=0`, `set +o history`, or a truncation, deletion or link of `~/.bash_history`/`~/.zsh_history`. Low: guarded-sh's own audit record does not depend on shell history, but hiding one's tracks is worth a note."
);

pub static SPECS: &[&Spec] = &[
    &GATE_VARIABLE_TAMPERING,
    &HOOK_TAMPERING,
    &COMPUTED_VARIABLE_NAME,
    &BUILTIN_LOADED,
    &SHELL_ENV_INJECTION,
    &PROMPT_CODE,
    &LIBRARY_PATH_OVERRIDE,
    &GATE_FILE_TAMPERING,
    &LOGIN_SHELL_CHANGE,
    &UNGUARDED_SHELL_EXEC,
    &HISTORY_TAMPERING,
];

/// A variable the text sets (`Some(value)`, `None` when unknown) or unsets.
struct Variable {
    name: String,
    value: Option<String>,
    unset: bool,
}

const DECLARATIONS: &[&str] = &["export", "declare", "typeset", "readonly", "local"];

const GATE_DIRS: &[&str] = &[
    "/etc/guarded-sh",
    "/usr/lib/guarded-sh",
    "/usr/local/lib/guarded-sh",
    "/usr/bin/guarded-sh",
    "/usr/local/bin/guarded-sh",
    "/var/cache/guarded-sh",
    "/var/log/guarded-sh",
    "/usr/share/guarded-sh",
    "/opt/guarded-sh",
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let n = Neighbours::of(a);
    for f in a
        .functions
        .iter()
        .filter(|f| is_hook_name(&f.name) || HOOK_BUILTINS.contains(&f.name.as_str()))
    {
        let at = f.body.first().copied().unwrap_or(usize::MAX);
        let mut s = HOOK_TAMPERING.bare(vec![f.name.clone()]);
        s.command = Some(f.name.clone());
        s.at = at;
        out.push(s);
    }
    for (i, cmd) in a.commands.iter().enumerate() {
        for var in variables(cmd) {
            variable(i, cmd, &var, out);
        }
        if let Some(name) = computed_names(cmd).first() {
            push_once(out, &COMPUTED_VARIABLE_NAME, i, cmd, name.shown.clone());
        }
        hook_builtins(i, cmd, out);
        if let Some(name) = shadows_hook(cmd) {
            push_once(out, &HOOK_TAMPERING, i, cmd, name);
        }
        gate_files(&n, i, cmd, out);
        history(&n, i, cmd, out);
        if cmd.is(&["chsh", "lchsh"])
            || cmd.is(&["usermod"]) && !option_values(cmd, &["-s", "--shell"]).is_empty()
        {
            push_once(out, &LOGIN_SHELL_CHANGE, i, cmd, cmd.text());
        }
        if cmd.is(&["exec"]) && execs_interactive_shell(a, &n, i) {
            push_once(out, &UNGUARDED_SHELL_EXEC, i, cmd, cmd.text());
        }
    }
}

/// Builtins the session hook relies on: a function or alias of the same name would run in
/// their place (`trap() { :; }`, `alias trap=:`).
const HOOK_BUILTINS: &[&str] = &[
    "trap", "enable", "builtin", "shopt", "set", "unset", "readonly", "declare", "typeset",
    "command", "eval", "history", "fc",
];

/// `alias NAME=…` for a hook builtin, or a name list expansion of the hook's or the gate's
/// variables (`unset ${!__gsh_*}`): the hook's names are the target whatever the spelling.
fn shadows_hook(cmd: &Command) -> Option<String> {
    if cmd.is(&["alias"]) {
        let name = cmd
            .arg_values()
            .filter_map(|v| v.split_once('=').map(|(n, _)| n))
            .find(|n| HOOK_BUILTINS.contains(n))?;
        return Some(name.to_string());
    }
    cmd.args
        .iter()
        .find(|w| {
            ["${!__gsh", "${!__GSH", "${!HONEY_", "${!GUARDED_SH"]
                .iter()
                .any(|p| w.raw.contains(p))
        })
        .map(|w| w.raw.clone())
}

fn is_hook_name(name: &str) -> bool {
    name.starts_with("__gsh_") || name.starts_with("__GSH_")
}

fn is_gate_variable(name: &str) -> bool {
    name.starts_with("HONEY_") || name.starts_with("GUARDED_SH_")
}

/// Every variable `cmd` sets or unsets: prefixes, declaration operands, `unset`, `read`,
/// `printf -v`, and the assignments and `-u` names of `env` and `sudo`.
fn variables(cmd: &Command) -> Vec<Variable> {
    let mut vars: Vec<Variable> = cmd
        .assignments
        .iter()
        .map(|(name, w)| Variable {
            name: name.clone(),
            value: w.value().map(str::to_string),
            unset: false,
        })
        .collect();
    let Some(base) = cmd.base() else { return vars };
    let listing = |w: &Word| {
        w.value()
            .is_some_and(|v| v.starts_with('-') || v.starts_with('+'))
    };
    match base {
        _ if DECLARATIONS.contains(&base) && !prints_only(cmd) => {
            let unexport = base == "export" && cmd.has_arg("-n");
            let operands = cmd.args.iter().filter(|w| !listing(w));
            vars.extend(
                operands
                    .clone()
                    .filter_map(|w| operand_variable(w, unexport)),
            );
            if base != "export" && cmd.short_flags().contains('n') {
                // `declare -n ref=__gsh_state`: writing `ref` writes the variable it names.
                vars.extend(operands.filter_map(|w| {
                    let (_, target) = w.value()?.split_once('=')?;
                    operand_variable(&Word::literal(target), false)
                }));
            }
        }
        "unset" => vars.extend(
            cmd.args
                .iter()
                .filter(|w| !listing(w))
                .filter_map(|w| operand_variable(w, true)),
        ),
        "read" | "mapfile" | "readarray" => vars.extend(
            operands_skipping(cmd, "adinNptu", &[])
                .into_iter()
                .filter_map(|w| operand_variable(w, false)),
        ),
        "printf" => vars.extend(
            option_values(cmd, &["-v"])
                .iter()
                .filter_map(|w| operand_variable(w, false)),
        ),
        "env" | "sudo" => {
            for w in &cmd.args {
                match w.value() {
                    Some(v) if v.contains('=') && !v.starts_with('-') => {
                        vars.extend(operand_variable(w, false))
                    }
                    Some(v) if !v.starts_with('-') => break,
                    _ => {}
                }
            }
            if base == "env" {
                vars.extend(
                    option_values(cmd, &["-u", "--unset"])
                        .iter()
                        .filter_map(|w| operand_variable(w, true)),
                );
            }
        }
        _ => {}
    }
    vars
}

/// The words `cmd` uses as variable names (assigned, unset or referred to by `declare -n`)
/// whose name is not fully known: a nameref target or a name built at run time.
fn computed_names(cmd: &Command) -> Vec<&Word> {
    let Some(base) = cmd.base() else {
        return Vec::new();
    };
    let listing = |w: &&Word| w.value().is_some_and(|v| v.starts_with(['-', '+']));
    let names: Vec<&Word> = match base {
        _ if DECLARATIONS.contains(&base) && !prints_only(cmd) => {
            cmd.args.iter().filter(|w| !listing(w)).collect()
        }
        "unset" => cmd.args.iter().filter(|w| !listing(w)).collect(),
        "read" | "mapfile" | "readarray" => operands_skipping(cmd, "adinNptuCc", &[]),
        "printf" => cmd
            .args
            .windows(2)
            .filter(|pair| pair[0].value() == Some("-v"))
            .map(|pair| &pair[1])
            .collect(),
        _ => return Vec::new(),
    };
    let nameref = DECLARATIONS.contains(&base) && cmd.short_flags().contains('n');
    names
        .into_iter()
        .filter(|w| !name_known(w, nameref))
        .collect()
}

/// True when the variable name in `word` (`NAME`, `NAME=value`, `NAME+=v`, `NAME[i]=v`) is
/// fully known; for a `declare -n` reference, the name it refers to must be known too.
fn name_known(word: &Word, nameref: bool) -> bool {
    let text = word.value().unwrap_or(&word.static_prefix);
    match text.split_once('=') {
        Some((_, target)) if nameref => word.value().is_some() && !target.is_empty(),
        Some(_) => true,
        None => word.value().is_some(),
    }
}

/// `declare -f NAME`, `typeset -p NAME`: listings that change nothing.
fn prints_only(cmd: &Command) -> bool {
    let flags = cmd.short_flags();
    !flags.is_empty()
        && flags.chars().all(|c| matches!(c, 'f' | 'F' | 'p'))
        && !cmd.arg_values().any(|v| v.contains('='))
}

/// `NAME=value` or `NAME` as a variable; other words are not.
fn operand_variable(word: &Word, unset: bool) -> Option<Variable> {
    let text = word.value().unwrap_or(&word.static_prefix);
    let (name, value) = match text.split_once('=') {
        Some((name, value)) => (name, word.value().map(|_| value.to_string())),
        None if word.value().is_some() => (text, None),
        None => return None,
    };
    let name = name.trim_end_matches('+');
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    valid.then(|| Variable {
        name: name.to_string(),
        value,
        unset,
    })
}

fn variable(i: usize, cmd: &Command, var: &Variable, out: &mut Vec<Signal>) {
    let name = var.name.as_str();
    let evidence = || name.to_string();
    if is_gate_variable(name) {
        push_once(out, &GATE_VARIABLE_TAMPERING, i, cmd, evidence());
    } else if is_hook_name(name) {
        push_once(out, &HOOK_TAMPERING, i, cmd, evidence());
    } else if is_prompt_code(name, var) {
        push_once(out, &PROMPT_CODE, i, cmd, evidence());
    } else if is_injection_variable(name, var) {
        push_once(out, &SHELL_ENV_INJECTION, i, cmd, evidence());
    } else if matches!(name, "LD_LIBRARY_PATH" | "DYLD_LIBRARY_PATH") && !var.unset {
        push_once(out, &LIBRARY_PATH_OVERRIDE, i, cmd, evidence());
    } else if hides_history(var) {
        push_once(out, &HISTORY_TAMPERING, i, cmd, evidence());
    }
}

/// A prompt whose value runs a command when it is expanded.
fn runs_code(var: &Variable) -> bool {
    var.value
        .as_deref()
        .is_some_and(|v| v.contains("$(") || v.contains('`'))
}

/// `PROMPT_COMMAND`, or `PS0`–`PS2` running a command: an interactive shell's prompt hooks.
fn is_prompt_code(name: &str, var: &Variable) -> bool {
    match name {
        "PROMPT_COMMAND" => true,
        "PS0" | "PS1" | "PS2" => runs_code(var),
        _ => false,
    }
}

fn is_injection_variable(name: &str, var: &Variable) -> bool {
    if matches!(name, "PS3" | "PS4") {
        return runs_code(var);
    }
    matches!(
        name,
        "BASH_ENV"
            | "ENV"
            | "LD_PRELOAD"
            | "LD_AUDIT"
            | "DYLD_INSERT_LIBRARIES"
            | "BASH_COMMAND"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "ZDOTDIR"
            | "SHELL"
    ) || name.starts_with("BASH_FUNC_")
}

fn hides_history(var: &Variable) -> bool {
    match var.name.as_str() {
        "HISTFILE" => var.unset || matches!(var.value.as_deref(), Some("" | "/dev/null")),
        "HISTSIZE" | "HISTFILESIZE" | "SAVEHIST" => var.unset || var.value.as_deref() == Some("0"),
        _ => false,
    }
}

/// `trap … DEBUG`, `enable`, `shopt -u extdebug`, `set +T`, `unset -f __gsh_*`.
fn hook_builtins(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let Some(base) = cmd.base() else { return };
    let values: Vec<&str> = cmd.arg_values().collect();
    let tampers = match base {
        "trap" => {
            !cmd.has_any_arg(&["-p", "-l"])
                && (values.iter().any(|v| {
                    let upper = v.to_ascii_uppercase();
                    upper == "DEBUG" || upper == "SIGDEBUG"
                }) || trap_signals_computed(cmd))
        }
        "builtin" => cmd.args.first().is_some_and(|w| w.value().is_none()),
        "shopt" => {
            let flags = cmd.short_flags();
            let queries_only = !flags.is_empty() && flags.chars().all(|c| matches!(c, 'p' | 'q'));
            (flags.contains('u') && cmd.has_any_arg(&["extdebug", "functrace"]))
                || !queries_only && cmd.args.iter().any(|w| w.value().is_none())
        }
        "enable" => {
            let listing_only = values
                .iter()
                .all(|v| matches!(*v, "-a" | "-p" | "-s" | "-ap" | "-as" | "-ps"));
            if !listing_only && loads_new_builtins(cmd) {
                push_once(out, &BUILTIN_LOADED, i, cmd, cmd.text());
                return;
            }
            !listing_only || cmd.args.iter().any(|w| w.value().is_none())
        }
        "set" => {
            values.iter().any(|v| v.starts_with('+') && v.contains('T'))
                || values
                    .windows(2)
                    .any(|w| w[0] == "+o" && w[1] == "functrace")
                || set_option_computed(cmd)
        }
        _ => false,
    };
    if tampers {
        push_once(out, &HOOK_TAMPERING, i, cmd, cmd.text());
    }
}

/// A `trap` whose signal names are not all known: any signal word only known at run time, or
/// an action only known at run time that is unquoted (it may split into `-` and a signal) or
/// alone (then it is itself a signal name).
fn trap_signals_computed(cmd: &Command) -> bool {
    let mut operands = cmd.args.iter().skip_while(|w| w.value() == Some("--"));
    let Some(action) = operands.next() else {
        return false;
    };
    let signals: Vec<&Word> = operands.collect();
    signals.iter().any(|w| w.value().is_none())
        || action.value().is_none() && (signals.is_empty() || action.may_split())
}

/// `set` with an option word not fully known before the first operand or `--` (`set +$o`,
/// `set -o "$name"`, `set $flags`); an operand that starts with known text other than `-`/`+`
/// ends the options.
fn set_option_computed(cmd: &Command) -> bool {
    for w in &cmd.args {
        match w.value() {
            Some("--" | "-") => return false,
            Some(v) if !v.starts_with(['-', '+']) => return false,
            Some(_) => {}
            None if w.static_prefix.starts_with(|c: char| c != '-' && c != '+') => return false,
            None => return true,
        }
    }
    false
}

/// The builtins bash has: `enable -f` over one of these replaces it.
const BASH_BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// `enable -f FILE NAME…` that only adds builtins: no other option, every name literal and
/// none of bash's own (the file may be only known at run time: it is what is loaded, not a
/// name the hook relies on).
fn loads_new_builtins(cmd: &Command) -> bool {
    let mut words = cmd.args.iter();
    let mut names = 0;
    let mut file = false;
    while let Some(w) = words.next() {
        match w.value() {
            Some("-f") if !file => {
                file = words.next().is_some();
                if !file {
                    return false;
                }
            }
            Some(name) if !name.starts_with('-') && !BASH_BUILTINS.contains(&name) => names += 1,
            _ => return false,
        }
    }
    file && names > 0
}

fn is_gate_path(path: &str) -> bool {
    super::clobber::under_any(path, GATE_DIRS)
}

/// Writes, moves, deletes and permission changes of guarded-sh's own files.
fn gate_files(n: &Neighbours, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let mut touched: Vec<(String, String)> = written(n, i, cmd)
        .into_iter()
        .map(|w| (w.path, w.shown))
        .collect();
    if cmd.is(&["chmod", "chown", "chgrp", "chattr", "setfacl", "touch"]) {
        touched.extend(
            cmd.args
                .iter()
                .filter_map(|w| path_value(w).map(|p| (p, w.shown.clone()))),
        );
    }
    if let Some((_, shown)) = touched.iter().find(|(p, _)| is_gate_path(p)) {
        push_once(out, &GATE_FILE_TAMPERING, i, cmd, shown.clone());
    }
}

fn history(n: &Neighbours, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let builtin = match cmd.base() {
        Some("history") => cmd.short_flags().contains(['c', 'd']),
        Some("set") => cmd
            .arg_values()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w == ["+o", "history"]),
        _ => false,
    };
    let file = written(n, i, cmd)
        .into_iter()
        .find(|w| w.kind != WriteKind::Append && is_history_file(&w.path));
    if builtin {
        push_once(out, &HISTORY_TAMPERING, i, cmd, cmd.text());
    } else if let Some(w) = file {
        push_once(out, &HISTORY_TAMPERING, i, cmd, w.shown);
    }
}

fn is_history_file(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or(path);
    matches!(
        last,
        ".bash_history" | ".zsh_history" | ".history" | ".sh_history" | ".histfile"
    )
}

/// True when `exec` (command `i`) runs a shell that reads from the terminal.
fn execs_interactive_shell(a: &Analysis, n: &Neighbours, i: usize) -> bool {
    n.wrapped(i)
        .iter()
        .filter_map(|&j| a.commands.get(j))
        .any(|c| {
            matches!(c.context.via.last(), Some(Via::Wrapper(w)) if w == "exec")
                && c.base().is_some_and(|b| SHELLS.contains(&b))
                && !c.short_flags().contains('c')
                && c.operands().is_empty()
        })
}
