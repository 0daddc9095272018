//! What runs something else: privilege and environment wrappers, `xargs`/`find -exec`, nested
//! shells (`sh -c`, `eval`, a heredoc, here-string or echoed text fed to a shell) and remote or
//! container execs. Each yields the argv or shell string it runs, so `lower` can analyse it.

use super::word::split_words;
use crate::ir::{piped_text, Analysis, Code, Command, Stdin, Via, Word};
use crate::programs::SHELLS;

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
    /// An interpreter program (`python3 -c`, `perl -e`, a heredoc, a script), analysed through
    /// the injected `Interpreters`; what it runs is lowered like the variants above.
    Code(Code),
}

/// Everything `cmd` runs, in order; `None` when it is not a wrapper, shell or remote exec this
/// module knows (it may still be an interpreter, which the caller asks about).
pub fn inner(cmd: &Command, analysis: &Analysis) -> Option<Vec<Inner>> {
    let Some(base) = cmd.base() else {
        return Some(Vec::new());
    };
    let args = &cmd.args;
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
        "unshare" | "nsenter" | "systemd-run" | "firejail" | "bwrap" | "valgrind" => wrap(
            skip_options(args, "tSGpMu", &["--uid", "--gid", "--unit", "--property"]),
        ),
        "sshpass" => wrap(skip_options(args, "pfde", &[])),
        "coproc" => coproc(args),
        "watch" => watch(args),
        "xargs" => xargs(args, &cmd.stdin, analysis),
        "parallel" => parallel(args),
        "find" => find(args),
        "busybox" => wrap(0),
        "script" => script_command(args),
        "eval" => vec![joined(Via::Shell("eval".into()), args, true)],
        "alias" => alias(args),
        "ssh" => ssh(args),
        "docker" | "podman" | "nerdctl" => container(base, args),
        "kubectl" | "oc" => kubectl(base, args),
        _ if SHELLS.contains(&base) => shell(base, cmd, analysis),
        _ => return None,
    })
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

fn sudo(args: &[Word]) -> Vec<Inner> {
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

fn su(base: &str, cmd: &Command) -> Vec<Inner> {
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

fn env(args: &[Word]) -> Vec<Inner> {
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

fn flock(args: &[Word]) -> Vec<Inner> {
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

fn coproc(args: &[Word]) -> Vec<Inner> {
    let mut at = 0;
    if args.get(1).and_then(Word::value) == Some("{") {
        at = 2;
    } else if args.first().and_then(Word::value) == Some("{") {
        at = 1;
    }
    argv("coproc", args, at, false)
}

fn watch(args: &[Word]) -> Vec<Inner> {
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
fn alias(args: &[Word]) -> Vec<Inner> {
    args.iter()
        .filter_map(|w| {
            let (_, body) = w.value()?.split_once('=')?;
            let code = Word::literal(body);
            Some(script(Via::Shell("alias".into()), &code, None, false))
        })
        .collect()
}

/// The argument words `xargs` appends, when static text is piped into it.
fn xargs_input(stdin: &Stdin, analysis: &Analysis) -> Vec<Word> {
    piped_text(stdin, analysis)
        .map(|t| split_words(&t).iter().map(|w| Word::literal(w)).collect())
        .unwrap_or_default()
}

fn xargs(args: &[Word], stdin: &Stdin, analysis: &Analysis) -> Vec<Inner> {
    let replace = args.iter().enumerate().find_map(|(k, w)| {
        let v = w.value()?;
        match v {
            "-I" | "--replace" => args.get(k + 1).and_then(Word::value).map(str::to_string),
            "-i" => Some("{}".to_string()),
            _ => v
                .strip_prefix("-I")
                .or_else(|| v.strip_prefix("--replace="))
                .filter(|r| !r.is_empty())
                .map(str::to_string),
        }
    });
    let at = skip_options(
        args,
        "IiLlnPsadEe",
        &[
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--process-slot-var",
        ],
    );
    if at >= args.len() {
        return Vec::new();
    }
    let input = xargs_input(stdin, analysis);
    let mut words: Vec<Word> = args.get(at..).unwrap_or_default().to_vec();
    match (&replace, input.first()) {
        (Some(r), Some(first)) => {
            for w in &mut words {
                if let (Some(v), Some(with)) = (w.value(), first.value()) {
                    if v.contains(r.as_str()) {
                        *w = Word::literal(&v.replace(r.as_str(), with));
                    }
                }
            }
        }
        (None, _) => words.extend(input),
        _ => {}
    }
    argv("xargs", &words, 0, true)
}

fn parallel(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(
        args,
        "jSInNxXE",
        &["--jobs", "--sshlogin", "--results", "--joblog"],
    );
    let end = args
        .iter()
        .position(|w| matches!(w.value(), Some(":::" | "::::" | ":::+" | "::::+")))
        .unwrap_or(args.len());
    let inputs: Vec<Word> = args
        .get(end..)
        .unwrap_or_default()
        .iter()
        .filter(|w| !matches!(w.value(), Some(":::" | "::::" | ":::+" | "::::+")))
        .cloned()
        .collect();
    let words = args.get(at..end).unwrap_or_default();
    if words.len() == 1 && words[0].value().is_some_and(|v| v.contains(' ')) {
        let mut code = words.to_vec();
        code.extend(inputs);
        return vec![joined(Via::Shell("parallel".into()), &code, false)];
    }
    let mut words = words.to_vec();
    words.extend(inputs);
    argv("parallel", &words, 0, true)
}

fn find(args: &[Word]) -> Vec<Inner> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if matches!(
            args[i].value(),
            Some("-exec" | "-execdir" | "-ok" | "-okdir")
        ) {
            let start = i + 1;
            let mut end = start;
            while end < args.len() && !matches!(args[end].value(), Some(";" | "+")) {
                end += 1;
            }
            let words: Vec<Word> = args[start..end]
                .iter()
                .map(|w| {
                    if w.value() == Some("{}") {
                        Word::unknown("{}")
                    } else {
                        w.clone()
                    }
                })
                .collect();
            out.extend(argv("find -exec", &words, 0, true));
            i = end;
        }
        i += 1;
    }
    out
}

fn script_command(args: &[Word]) -> Vec<Inner> {
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

fn script_word(via: Via, word: &Word) -> Inner {
    script(via, word, None, false)
}

fn ssh(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(args, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
    let rest = args.get(at + 1..).unwrap_or_default();
    if rest.is_empty() {
        return Vec::new();
    }
    let mut inner = joined(Via::Remote("ssh".into()), rest, false);
    if let Inner::Script { via, .. } = &mut inner {
        *via = Via::Remote("ssh".into());
    }
    vec![inner]
}

fn container(base: &str, args: &[Word]) -> Vec<Inner> {
    if args.first().and_then(Word::value) != Some("exec") {
        return Vec::new();
    }
    let rest = args.get(1..).unwrap_or_default();
    let at = skip_options(
        rest,
        "euw",
        &[
            "--env",
            "--env-file",
            "--user",
            "--workdir",
            "--detach-keys",
        ],
    );
    let words = rest.get(at + 1..).unwrap_or_default().to_vec();
    if words.is_empty() {
        return Vec::new();
    }
    vec![Inner::Argv {
        via: Via::Remote(format!("{base} exec")),
        words,
        extra_args: false,
    }]
}

fn kubectl(base: &str, args: &[Word]) -> Vec<Inner> {
    if !args.iter().any(|w| w.value() == Some("exec")) {
        return Vec::new();
    }
    let Some(dash) = args.iter().position(|w| w.value() == Some("--")) else {
        return Vec::new();
    };
    let words = args[dash + 1..].to_vec();
    if words.is_empty() {
        return Vec::new();
    }
    vec![Inner::Argv {
        via: Via::Remote(format!("{base} exec")),
        words,
        extra_args: false,
    }]
}

/// `sh [opts] -c STR [NAME ARGS…]`, `sh` reading stdin, or `sh FILE`.
fn shell(base: &str, cmd: &Command, analysis: &Analysis) -> Vec<Inner> {
    let args = &cmd.args;
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
fn stdin_script(stdin: &Stdin, analysis: &Analysis, via: Via) -> Vec<Inner> {
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
