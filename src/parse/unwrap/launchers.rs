//! Programs whose option or operand is a command or shell code: terminal multiplexers (`tmux
//! new-session CMD`, `screen -dm CMD`), privilege, cgroup and sandbox launchers (`setpriv`,
//! `cgexec`, `capsh -- -c`, `flatpak-spawn`, `bwrap` with its two-value options), `expect -c
//! 'spawn …'`, `socat`'s `EXEC:`/`SYSTEM:` addresses, git's configured commands (`-c
//! core.pager=…`, `alias.x=!…`, `GIT_SSH_COMMAND`, `bisect run`), `make -f -` recipes,
//! ansible's ad-hoc `-m shell -a CMD`, and an editor's `-c '!CMD'`.

use super::{argv, joined, script, skip_options, Inner};
use crate::ir::{piped_text, Analysis, Command, Stdin, Via, Word};

/// `tmux [-L s] [-S p] [-f f] new-session|new-window|split-window|respawn-pane [opts] [CMD…]`,
/// `run-shell CMD`, `send-keys … KEYS` (typed into a shell): the command is shell code.
pub(super) fn tmux(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(args, "LSf", &[]);
    let Some(sub) = args.get(at).and_then(Word::value) else {
        return Vec::new();
    };
    let rest = &args[at + 1..];
    let via = || Via::Shell(format!("tmux {sub}"));
    match sub {
        "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw"
        | "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" => {
            let at = skip_options(rest, "cnstxyeFlpPTbBfw", &[]);
            code_of(via(), &rest[at.min(rest.len())..])
        }
        "run-shell" | "run" => {
            let at = skip_options(rest, "dt", &[]);
            code_of(via(), &rest[at.min(rest.len())..])
        }
        "display-popup" | "popup" => {
            let at = skip_options(rest, "bcdhtTswxyeS", &[]);
            code_of(via(), &rest[at.min(rest.len())..])
        }
        // `if-shell [-bF] [-t pane] SHELL-COMMAND …`: its first operand runs in a shell.
        "if-shell" | "if" => {
            let at = skip_options(rest, "t", &[]);
            rest.get(at)
                .map(|w| vec![script(via(), w, None, false)])
                .unwrap_or_default()
        }
        "send-keys" | "send" => {
            let at = skip_options(rest, "tN", &[]);
            let keys: Vec<Word> = rest[at.min(rest.len())..]
                .iter()
                .filter(|w| !matches!(w.value(), Some("Enter" | "C-m" | "KPEnter")))
                .cloned()
                .collect();
            code_of(via(), &keys)
        }
        _ => Vec::new(),
    }
}

/// `screen [-d -m -S name …] CMD ARGS…`: the command's argv.
pub(super) fn screen(args: &[Word]) -> Vec<Inner> {
    // `screen -S name -X stuff 'cmd\n'`: the keys are typed into the session's shell.
    if let Some(x) = args.iter().position(|w| w.value() == Some("-X")) {
        if args.get(x + 1).and_then(Word::value) == Some("stuff") {
            return args
                .get(x + 2)
                .map(|keys| vec![script(Via::Shell("screen stuff".into()), keys, None, false)])
                .unwrap_or_default();
        }
        return Vec::new();
    }
    let at = skip_options(args, "SceEhpstTX", &[]);
    argv("screen", args, at, false)
}

/// One shell string from several words (`tmux new 'a b'` or `tmux new a b`).
fn code_of(via: Via, words: &[Word]) -> Vec<Inner> {
    match words {
        [] => Vec::new(),
        [one] => vec![script(via, one, None, false)],
        many => vec![joined(via, many, false)],
    }
}

/// `setpriv [--opt[=v]]… CMD`: options take their value after `=` or in the next word.
pub(super) fn setpriv(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(
        args,
        "",
        &[
            "--reuid",
            "--regid",
            "--ruid",
            "--rgid",
            "--euid",
            "--egid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--selinux-label",
            "--apparmor-profile",
            "--pdeathsig",
            "--landlock-access",
            "--landlock-rule",
        ],
    );
    argv("setpriv", args, at, false)
}

/// `cgexec -g CONTROLLERS:PATH [--sticky] CMD`.
pub(super) fn cgexec(args: &[Word]) -> Vec<Inner> {
    argv("cgexec", args, skip_options(args, "g", &[]), false)
}

/// `capsh [opts] -- ARGS`: ARGS go to `/bin/bash` (`-- -c 'cmd'`); `==` re-runs capsh.
pub(super) fn capsh(args: &[Word]) -> Vec<Inner> {
    let Some(at) = args.iter().position(|w| w.value() == Some("--")) else {
        return Vec::new();
    };
    let rest = &args[at + 1..];
    // `--shell=PROG` runs PROG with what follows `--` instead of bash.
    let shell = args[..at]
        .iter()
        .filter_map(Word::value)
        .find_map(|v| v.strip_prefix("--shell="));
    if let Some(program) = shell.filter(|p| !p.ends_with("sh")) {
        let mut words = vec![Word::literal(program)];
        words.extend(rest.iter().cloned());
        return argv("capsh --shell", &words, 0, false);
    }
    match rest.iter().position(|w| w.value() == Some("-c")) {
        Some(c) => rest
            .get(c + 1)
            .map(|w| vec![script(Via::Shell("capsh -- -c".into()), w, None, false)])
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// `flatpak-spawn [--host] [--opt=v]… CMD`.
pub(super) fn flatpak_spawn(args: &[Word]) -> Vec<Inner> {
    argv("flatpak-spawn", args, skip_options(args, "", &[]), false)
}

/// `bwrap [opts] CMD`: its options take zero, one or two values.
pub(super) fn bwrap(args: &[Word]) -> Vec<Inner> {
    let mut i = 0;
    while let Some(v) = args.get(i).and_then(Word::value) {
        if v == "--" {
            i += 1;
            break;
        }
        if !v.starts_with("--") {
            break;
        }
        i += 1 + match v {
            "--bind" | "--bind-try" | "--ro-bind" | "--ro-bind-try" | "--dev-bind"
            | "--dev-bind-try" | "--setenv" | "--symlink" | "--file" | "--bind-data"
            | "--ro-bind-data" | "--chmod" => 2,
            "--dev" | "--proc" | "--tmpfs" | "--mqueue" | "--dir" | "--chdir" | "--unsetenv"
            | "--uid" | "--gid" | "--hostname" | "--remount-ro" | "--cap-add" | "--cap-drop"
            | "--seccomp" | "--lock-file" | "--exec-label" | "--file-label" | "--args"
            | "--userns" | "--userns2" | "--pidns" | "--info-fd" | "--json-status-fd"
            | "--block-fd" | "--userns-block-fd" | "--sync-fd" | "--perms" | "--size"
            | "--add-seccomp-fd" | "--argv0" | "--overlay-src" | "--tmp-overlay"
            | "--ro-overlay" => 1,
            "--overlay" => 3,
            _ => 0,
        };
    }
    argv("bwrap", args, i, false)
}

/// `expect -c 'spawn CMD ARGS; …'`: each `spawn`'s argv (split on blanks, as Tcl words).
pub(super) fn expect(args: &[Word]) -> Vec<Inner> {
    let mut out = Vec::new();
    for pair in args.windows(2) {
        if pair[0].value() != Some("-c") {
            continue;
        }
        let Some(text) = pair[1].value() else {
            continue;
        };
        for part in text.split([';', '\n']) {
            if let Some(rest) = part.trim().strip_prefix("spawn ") {
                let words: Vec<Word> = rest.split_whitespace().map(Word::literal).collect();
                out.extend(argv("expect spawn", &words, 0, false));
            }
        }
    }
    out
}

/// `socat ADDR ADDR`: an `EXEC:cmd` address runs argv, `SYSTEM:cmd` runs shell code.
pub(super) fn socat(args: &[Word]) -> Vec<Inner> {
    let mut out = Vec::new();
    for w in args {
        let Some(v) = w.value() else { continue };
        let upper = v.to_ascii_uppercase();
        let (kind, body) = match (upper.find("EXEC:"), upper.find("SYSTEM:")) {
            (_, Some(0)) => ("SYSTEM", &v[7..]),
            (Some(0), _) => ("EXEC", &v[5..]),
            _ => continue,
        };
        // Address options follow the first unescaped comma.
        let body = body.split(',').next().unwrap_or(body);
        let text = Word::literal(body.trim_matches(['"', '\'']));
        out.push(script(
            Via::Shell(format!("socat {kind}:")),
            &text,
            None,
            false,
        ));
    }
    out
}

/// Git's configuration keys whose value is a command git runs through the shell.
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "sequence.editor",
    "diff.external",
    "credential.helper",
    "gpg.program",
    "pager.log",
    "pager.diff",
    "pager.show",
];

/// `git -c KEY=CMD …` for a key whose value git runs (and `alias.NAME=!CMD`), and `git bisect
/// run CMD ARGS…`.
pub(super) fn git(cmd: &Command) -> Vec<Inner> {
    let args = &cmd.args;
    let mut out = Vec::new();
    let via = || Via::Shell("git config command".into());
    // `-c KEY=VALUE` and `-cKEY=VALUE`.
    let settings = args
        .iter()
        .enumerate()
        .filter_map(|(k, w)| match w.value() {
            Some("-c") => args.get(k + 1).and_then(Word::value),
            Some(v) if v.len() > 2 && v.starts_with("-c") => Some(&v[2..]),
            _ => None,
        });
    for setting in settings {
        let Some((key, value)) = setting.split_once('=') else {
            continue;
        };
        let key = key.to_ascii_lowercase();
        let code = if key.starts_with("alias.") {
            value.strip_prefix('!')
        } else if GIT_COMMAND_KEYS.contains(&key.as_str())
            || key.starts_with("pager.")
            || key.ends_with(".textconv")
        {
            Some(value.strip_prefix('!').unwrap_or(value))
        } else {
            None
        };
        if let Some(code) = code {
            out.push(script(via(), &Word::literal(code), None, false));
        }
    }
    for (name, value) in &cmd.assignments {
        if matches!(
            name.as_str(),
            "GIT_SSH_COMMAND" | "GIT_PAGER" | "GIT_EDITOR" | "GIT_EXTERNAL_DIFF" | "GIT_ASKPASS"
        ) {
            out.push(script(via(), value, None, false));
        }
    }
    let tool = crate::programs::tools::tool("git");
    let words = tool
        .map(|t| crate::programs::tools::subcommand(t, &cmd.arg_words()))
        .unwrap_or_default();
    if words.first() == Some(&Some("bisect")) && words.get(1) == Some(&Some("run")) {
        if let Some(at) = args.iter().position(|w| w.value() == Some("run")) {
            out.extend(argv("git bisect run", args, at + 1, false));
        }
    }
    out
}

/// A command run with an environment variable whose value is a command the program will start
/// (`PAGER=…`, `EDITOR=…`, `LESSOPEN='|…'`, `RESTIC_PASSWORD_COMMAND=…`, any `*_COMMAND`,
/// `*_PAGER`, `*_EDITOR`): the value is shell code. git's own are read by [`git`].
pub(super) fn configured(cmd: &Command) -> Vec<Inner> {
    if cmd.is(&["git"]) {
        return Vec::new();
    }
    cmd.assignments
        .iter()
        .filter(|(name, _)| {
            let n = name.as_str();
            n.ends_with("_COMMAND")
                || n.ends_with("PAGER")
                || n.ends_with("EDITOR")
                || matches!(n, "VISUAL" | "LESSOPEN" | "LESSCLOSE" | "BROWSER")
        })
        .filter_map(|(name, value)| {
            let code = value.value()?.trim_start_matches('|').trim();
            (!code.is_empty()).then(|| {
                script(
                    Via::Shell(format!("{name}=")),
                    &Word::literal(code),
                    None,
                    false,
                )
            })
        })
        .collect()
}

/// `make -f -` (or `--file=-`) with the makefile on stdin: each recipe line (a line starting
/// with a tab) is shell code.
pub(super) fn make(cmd: &Command, analysis: &Analysis) -> Vec<Inner> {
    let from_stdin = cmd.args.windows(2).any(|p| {
        matches!(p[0].value(), Some("-f" | "--file" | "--makefile")) && p[1].value() == Some("-")
    }) || cmd
        .arg_values()
        .any(|v| matches!(v, "--file=-" | "--makefile=-" | "-f-"))
        // tree-sitter-bash drops the `-` of `make -f - <<EOF`: a trailing `-f` with a heredoc.
        || matches!(cmd.stdin, Stdin::Heredoc { .. })
            && matches!(cmd.args.last().and_then(Word::value), Some("-f" | "--file"));
    if !from_stdin {
        return Vec::new();
    }
    let text = match &cmd.stdin {
        Stdin::Heredoc { text, .. } => text.clone(),
        Stdin::HereString(w) => w.value().map(str::to_string),
        stdin @ Stdin::Pipe { .. } => piped_text(stdin, analysis),
        _ => None,
    };
    let Some(text) = text else {
        return Vec::new();
    };
    let recipes: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix('\t'))
        .map(|l| l.trim_start_matches(['@', '-', '+']))
        .collect();
    if recipes.is_empty() {
        return Vec::new();
    }
    let code = Word::literal(&recipes.join("\n"));
    vec![script(Via::Shell("make recipe".into()), &code, None, false)]
}

/// `ansible PATTERN [-m shell|command|raw] -a CMD`: the command runs on every host matched.
pub(super) fn ansible(args: &[Word]) -> Vec<Inner> {
    let mut module = Some("command");
    let mut command = None;
    let mut words = args.iter();
    while let Some(w) = words.next() {
        match w.value() {
            Some("-m" | "--module-name") => module = words.next().and_then(Word::value),
            Some("-a" | "--args") => command = words.next(),
            Some(v) if v.starts_with("--module-name=") => module = v.split_once('=').map(|p| p.1),
            _ => {}
        }
    }
    match (module, command) {
        (
            Some("shell" | "command" | "raw" | "ansible.builtin.shell" | "ansible.builtin.command"),
            Some(code),
        ) => {
            vec![script(Via::Remote("ansible".into()), code, None, false)]
        }
        _ => Vec::new(),
    }
}

/// `vim -c '!CMD'`, `vim +'!CMD'`: the editor runs CMD through the shell at start.
pub(super) fn editor(args: &[Word]) -> Vec<Inner> {
    let mut out = Vec::new();
    let mut words = args.iter().peekable();
    while let Some(w) = words.next() {
        let ex = match w.value() {
            Some("-c" | "--cmd") => words.next().and_then(Word::value),
            Some(v) if v.starts_with('+') => Some(&v[1..]),
            _ => None,
        };
        let Some(ex) = ex else { continue };
        let ex = ex.trim_start_matches(':').trim_start();
        if let Some(code) = ex.strip_prefix('!') {
            out.push(script(
                Via::Shell("editor !".into()),
                &Word::literal(code),
                None,
                false,
            ));
        }
    }
    out
}
