//! What runs something else: wrappers, `xargs`/`find -exec`, nested shells, remote or container
//! execs and database clients' shell escapes, each yielding the argv or shell string it runs for
//! `lower` to analyse. This file holds what they yield and the dispatch by command name; each
//! family has its own file below.

mod clients;
mod launchers;
mod persisted;
mod remote;
mod runners;
mod shells;
mod wrappers;

use crate::ir::{Analysis, Code, Command, Via, Word};
use crate::programs::{database_client, SHELLS};
use remote::{aws, az, container, gcloud, kubectl, ssh};
use runners::{find, parallel, xargs};
use shells::{by_path, script_command, shell, sourced};
pub(crate) use shells::{reads_process_stdin, shell_script_path};

/// What `cmd` writes or schedules to run later, as shell code (see `persisted`), and the
/// commands its environment tells the program to start (`PAGER=…`, see `launchers::configured`).
pub fn persisted(cmd: &Command, analysis: &Analysis) -> Vec<Inner> {
    let mut later = persisted::persisted(cmd, analysis);
    later.extend(launchers::configured(cmd));
    later
}
use wrappers::{alias, coproc, env, flock, su, sudo, trap, watch};

/// Something a command runs.
#[derive(Debug)]
pub enum Inner {
    /// An argv run directly (no shell parsing in between).
    Argv {
        via: Via,
        words: Vec<Word>,
        /// More arguments are appended at run time (`xargs`, `find -exec … {} +`).
        extra_args: bool,
    },
    /// A shell string. `text` is `None` when it is only known at run time.
    Script {
        via: Via,
        text: Option<String>,
        raw: String,
        /// Substitutions whose output becomes part of the script.
        substitutions: Vec<usize>,
        /// `$1…` of the new shell (`sh -c STR NAME ARGS…`).
        positional: Option<Vec<String>>,
        /// Runs in the current shell (`eval`), so constants carry over.
        same_shell: bool,
        /// When `text` is `None`: the string with its unknown expansions left as written
        /// (`bash -c "rm -rf $D"` → `rm -rf $D`), analysed as an approximation.
        template: Option<String>,
    },
    /// A shell script file (`sh FILE`, `. FILE`, `./deploy.sh`), its text as the caller read it,
    /// or a session function's body (`path` is then `function NAME`).
    File {
        via: Via,
        /// The path as written.
        path: String,
        text: String,
        /// `$1…` of the script or function (`sh FILE ARGS…`, `f ARGS…`); `None` when unknown,
        /// or for a sourced file, which keeps the caller's.
        positional: Option<Vec<String>>,
        /// Runs in the current shell (`source`, `.`, a function), so constants carry over.
        same_shell: bool,
    },
    /// An interpreter program (`python3 -c`, `perl -e`, a heredoc, a script), analysed through
    /// the injected `Interpreters`; what it runs is lowered like the variants above.
    Code(Code),
}

/// Everything `cmd` runs, in order; `None` when it is not a wrapper, shell or remote exec this
/// module knows (it may still be an interpreter, which the caller asks about).
pub fn inner(cmd: &Command, analysis: &Analysis) -> Option<Vec<Inner>> {
    let Some(base) = cmd.base() else {
        let assigned = cmd
            .assignments
            .iter()
            .filter_map(|(name, w)| Some((name.as_str(), w.value()?)));
        return Some(prompt_code(assigned));
    };
    if DECLARATIONS.contains(&base) {
        let operands = cmd.args.iter().filter_map(|w| w.value()?.split_once('='));
        return Some(prompt_code(operands));
    }
    let args = &cmd.args;
    // A session's function comes before a program or builtin of the same name, as in bash.
    if let Some(body) = analysis.session_functions.get(base) {
        return Some(vec![Inner::File {
            via: Via::Shell(format!("function {base}")),
            path: format!("function {base}"),
            text: body.clone(),
            positional: args.iter().map(|w| w.value().map(str::to_string)).collect(),
            same_shell: true,
        }]);
    }
    let wrap = |at: usize| argv(base, args, at, false);
    Some(match base {
        "sudo" => sudo(args),
        "doas" => wrap(skip_options(args, "uC", &[])),
        "pkexec" => wrap(skip_options(args, "", &["--user"])),
        "su" | "runuser" | "sg" => su(base, cmd),
        "env" => env(args),
        "command" => {
            let at = skip_options(args, "", &[]);
            if args[..at]
                .iter()
                .any(|w| w.value().is_some_and(|v| v.contains(['v', 'V'])))
            {
                Vec::new()
            } else {
                wrap(at)
            }
        }
        "builtin" | "nohup" | "unbuffer" | "fakeroot" | "torsocks" | "proxychains"
        | "proxychains4" | "catchsegv" | "sudo-rs" => wrap(skip_options(args, "", &[])),
        "exec" => wrap(skip_options(args, "a", &[])),
        "nice" => wrap(skip_options(args, "n", &["--adjustment"])),
        "ionice" => {
            if cmd.short_flags().contains('p') {
                Vec::new()
            } else {
                wrap(skip_options(args, "cnP", &["--class", "--classdata"]))
            }
        }
        "timeout" => wrap(skip_options(args, "sk", &["--signal", "--kill-after"]) + 1),
        "time" => wrap(skip_options(args, "fo", &["--format", "--output"])),
        "stdbuf" => wrap(skip_options(
            args,
            "ioe",
            &["--input", "--output", "--error"],
        )),
        "setsid" => wrap(skip_options(args, "", &[])),
        "chroot" => wrap(skip_options(args, "", &["--userspec", "--groups"]) + 1),
        "chrt" | "taskset" => wrap(skip_options(args, "", &[]) + 1),
        "flock" => flock(args),
        "strace" | "ltrace" => wrap(skip_options(args, "abeEIoOpPsSuX", &[])),
        "unshare" | "nsenter" | "systemd-run" | "firejail" | "valgrind" => wrap(skip_options(
            args,
            "tSGpMu",
            &["--uid", "--gid", "--unit", "--property"],
        )),
        "bwrap" => launchers::bwrap(args),
        "setpriv" => launchers::setpriv(args),
        "cgexec" => launchers::cgexec(args),
        "capsh" => launchers::capsh(args),
        "flatpak-spawn" => launchers::flatpak_spawn(args),
        "tmux" => launchers::tmux(args),
        "screen" => launchers::screen(args),
        "expect" => launchers::expect(args),
        "socat" => launchers::socat(args),
        "git" => launchers::git(cmd),
        "make" | "gmake" => launchers::make(cmd, analysis),
        "ansible" => launchers::ansible(args),
        "vim" | "vi" | "nvim" | "view" | "gvim" | "ex" => launchers::editor(args),
        "sshpass" => wrap(skip_options(args, "pfde", &[])),
        "coproc" => coproc(args),
        "watch" => watch(args),
        "xargs" => xargs(args, &cmd.stdin, analysis),
        "parallel" => parallel(args),
        "find" => find(args),
        "busybox" => wrap(0),
        "script" => script_command(args),
        "eval" => vec![joined(Via::Shell("eval".into()), args, true)],
        "source" | "." => sourced(base, cmd, analysis),
        "alias" => alias(args),
        "trap" => trap(args),
        "ssh" => ssh(args),
        "docker" | "podman" | "nerdctl" => container(base, args),
        "kubectl" | "oc" => kubectl(base, args),
        "gcloud" => gcloud(args),
        "aws" => aws(args),
        "az" => az(args),
        _ if SHELLS.contains(&base) => shell(base, cmd, analysis),
        _ if database_client(base).is_some() => {
            let found = clients::escapes(cmd, analysis);
            if found.is_empty() {
                return by_path(cmd, analysis);
            }
            found
        }
        _ => match crate::programs::wrappers::wrapper(base) {
            Some(w) => table_wrapper(base, w, args),
            None => return by_path(cmd, analysis),
        },
    })
}

/// The builtins whose `NAME=value` operands assign in the current shell.
const DECLARATIONS: &[&str] = &["export", "declare", "typeset", "readonly", "local"];

/// A prompt hook set where it is (an assignment, or a declaration's operand), as the code an
/// interactive shell will run, analysed there as a trap handler is: `PROMPT_COMMAND='code'`
/// (also `+=` and an element, `PROMPT_COMMAND[1]=`), and the command substitutions of
/// `PS0`–`PS2`, which bash runs when it expands the prompt. Only a literal value; one known
/// only at run time (pyenv's `"hook;${PROMPT_COMMAND-}"`) is checked command by command, with
/// its values, when a gated session runs it.
fn prompt_code<'a>(assignments: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Inner> {
    let hook =
        |name: &str, code: &str| script(Via::Shell(name.into()), &Word::literal(code), None, true);
    let mut found = Vec::new();
    for (name, value) in assignments {
        let name = name.split('[').next().unwrap_or(name).trim_end_matches('+');
        match name {
            "PROMPT_COMMAND" => found.push(hook(name, value)),
            "PS0" | "PS1" | "PS2" => found.extend(
                prompt_substitutions(value)
                    .into_iter()
                    .map(|c| hook(name, c)),
            ),
            _ => {}
        }
    }
    found
}

/// The command substitutions of a prompt string (`$(…)`, `` `…` ``), as bash runs them when it
/// expands the prompt; `$((…))` is arithmetic. A backslash escapes the next character.
fn prompt_substitutions(prompt: &str) -> Vec<&str> {
    let b = prompt.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1), b.get(i + 2)) {
            (b'\\', _, _) => i += 2,
            (b'`', _, _) => {
                let body = &prompt[i + 1..];
                let end = body.find('`').unwrap_or(body.len());
                found.push(&body[..end]);
                i += end + 2;
            }
            (b'$', Some(b'('), next) if next != Some(&b'(') => {
                let (start, mut depth, mut j) = (i + 2, 1usize, i + 2);
                while j < b.len() && depth > 0 {
                    match b[j] {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let end = if depth == 0 { j - 1 } else { j };
                found.push(&prompt[start..end]);
                i = j;
            }
            _ => i += 1,
        }
    }
    found
}

/// A wrapper of `programs::wrappers`: its path words and options, then its operands to skip,
/// then the command. A path word that is not there means it runs nothing of this shape.
fn table_wrapper(base: &str, w: &crate::programs::wrappers::Wrapper, args: &[Word]) -> Vec<Inner> {
    let mut at = 0;
    let rest = |at: usize| &args[at.min(args.len())..];
    for alternatives in w.path {
        at += skip_options(rest(at), w.short_values, w.long_values);
        match args.get(at).and_then(Word::value) {
            Some(word) if alternatives.contains(&word) => at += 1,
            _ => return Vec::new(),
        }
    }
    for _ in 0..w.skip {
        at += skip_options(rest(at), w.short_values, w.long_values) + 1;
    }
    at += skip_options(rest(at), w.short_values, w.long_values);
    argv(base, args, at, false)
}

fn argv(via: &str, args: &[Word], at: usize, extra_args: bool) -> Vec<Inner> {
    let mut words: Vec<Word> = args.get(at..).unwrap_or_default().to_vec();
    // Leading NAME=value assignments (env, sudo) are not the command.
    while words.first().is_some_and(is_assignment) {
        words.remove(0);
    }
    if words.is_empty() {
        return Vec::new();
    }
    vec![Inner::Argv {
        via: Via::Wrapper(via.to_string()),
        words,
        extra_args,
    }]
}

fn is_assignment(w: &Word) -> bool {
    let v = w.value().unwrap_or(&w.raw);
    match v.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Index of the first operand after options. `short_values` are short options that take a
/// value; `long_values` long ones (also accepted as `--opt=value`). `--` is consumed.
pub fn skip_options(args: &[Word], short_values: &str, long_values: &[&str]) -> usize {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(v) = word.value() else {
            return i;
        };
        if v == "--" {
            return i + 1;
        }
        if let Some(long) = v.strip_prefix("--") {
            let takes = long_values
                .iter()
                .any(|l| l.trim_start_matches("--") == long);
            i += if takes { 2 } else { 1 };
            continue;
        }
        if v.len() < 2 || !v.starts_with('-') {
            return i;
        }
        let letters: Vec<char> = v[1..].chars().collect();
        let mut consumed_next = false;
        for (pos, c) in letters.iter().enumerate() {
            if short_values.contains(*c) {
                consumed_next = pos + 1 == letters.len();
                break;
            }
        }
        i += if consumed_next { 2 } else { 1 };
    }
    i
}

/// Words joined by spaces as a shell string (`eval a b`, `ssh host a b`, `watch a b`).
fn joined(via: Via, words: &[Word], same_shell: bool) -> Inner {
    let values: Option<Vec<&str>> = words.iter().map(Word::value).collect();
    let raw = words
        .iter()
        .map(|w| w.raw.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let templates: Option<Vec<&str>> = words
        .iter()
        .map(|w| w.value().or(w.template.as_deref()))
        .collect();
    Inner::Script {
        via,
        text: values.map(|v| v.join(" ")),
        raw,
        substitutions: words.iter().flat_map(|w| w.substitutions.clone()).collect(),
        positional: None,
        same_shell,
        template: templates.map(|t| t.join(" ")),
    }
}

fn script(via: Via, word: &Word, positional: Option<Vec<String>>, same_shell: bool) -> Inner {
    Inner::Script {
        via,
        text: word.value().map(str::to_string),
        raw: word.raw.clone(),
        substitutions: word.substitutions.clone(),
        positional,
        same_shell,
        template: word.template.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::prompt_substitutions;

    #[test]
    fn a_prompts_command_substitutions() {
        for (prompt, found) in [
            ("\\u@\\h:\\w\\$ ", vec![]),
            ("$(__git_ps1) \\$ ", vec!["__git_ps1"]),
            ("`id -u` $(a $(b) c)x", vec!["id -u", "a $(b) c"]),
            ("$((1 + 2)) \\$(not) $(open", vec!["open"]),
        ] {
            assert_eq!(prompt_substitutions(prompt), found, "{prompt:?}");
        }
    }
}
