//! Shell-outs of perl, ruby, node, php, lua and awk programs (sed's are in `sed`), found with
//! the tokenizer in `lexer`. No grammar: only calls and their literal arguments matter here, and
//! a careful string-aware scan finds them without six more C parsers in the build. Literal
//! commands go back to the shell analyzer; run-time ones become findings.

use super::lexer::{tokens, Tok};
use super::{Finding, Language, Output, Run};
use crate::parse::split_words;
use crate::programs::SHELLS;

/// How a call's arguments run a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The first argument is a shell command (`os.execute`, `shell_exec`, `execSync`).
    Shell,
    /// One string is a shell command, several are an argv (`system`, `exec`, `IO.popen`).
    ShellOrArgv,
    /// A program and a list of its arguments (`spawn`, `execFile`, `pcntl_exec`).
    ProgramList,
    /// Perl `open` with a pipe mode.
    PerlOpen,
    /// A file or tree deleted: the first argument is the path (`FileUtils.rm_rf`,
    /// `fs.rmSync`, `unlink`, `rmtree`); `recursive` for a tree.
    Delete { recursive: bool },
}

/// A call argument's static shape.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Arg {
    Str(String),
    List(Vec<Option<String>>),
    Dyn,
}

impl Arg {
    fn word(&self) -> Option<String> {
        match self {
            Arg::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// Analyses a program of `language` (not Python).
pub fn analyse(language: Language, text: &str) -> Output {
    let mut out = Output::default();
    if language == Language::Sed {
        super::sed::sed(text, &mut out);
        return out;
    }
    let toks = tokens(language, text);
    let child_process = text.contains("child_process");
    for (i, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Command(value) => match value {
                Some(cmd) => shell(&mut out, "backticks", cmd.clone()),
                None => out.find(Finding::DynamicShell("backticks".into())),
            },
            Tok::Ident(name) => {
                let qualifier = qualifier(&toks, i);
                if let Some(kind) = classify(language, qualifier, name, child_process) {
                    let call = match qualifier {
                        Some(q) => format!("{q}.{name}"),
                        None => name.clone(),
                    };
                    if let Some(args) = call_args(language, &toks, i + 1) {
                        run_call(&mut out, kind, &call, &args, &toks[i + 1..]);
                    }
                }
                imports(language, qualifier, name, &toks, i, &mut out);
            }
            Tok::Punct('|') if language == Language::Awk => awk_pipe(&toks, i, &mut out),
            Tok::Punct('>') if language == Language::Awk => awk_redirect(&toks, i, &mut out),
            _ => {}
        }
    }
    out
}

/// The name a call is qualified by: `os` in `os.execute`, `Open3` in `Open3::capture2`.
fn qualifier(toks: &[Tok], i: usize) -> Option<&str> {
    let before = |k: usize| i.checked_sub(k).and_then(|j| toks.get(j));
    let ident = |k: usize| match before(k) {
        Some(Tok::Ident(q)) => Some(q.as_str()),
        Some(Tok::Punct(')')) => Some("<expr>"),
        _ => None,
    };
    match (before(1), before(2)) {
        (Some(Tok::Punct('.')), _) => ident(2),
        (Some(Tok::Punct(':')), Some(Tok::Punct(':'))) => ident(3),
        (Some(Tok::Punct('>')), Some(Tok::Punct('-'))) => ident(3).or(Some("<expr>")),
        _ => None,
    }
}

fn classify(language: Language, q: Option<&str>, name: &str, child_process: bool) -> Option<Kind> {
    let core = matches!(q, None | Some("CORE" | "GLOBAL" | "Kernel" | "Process"));
    match language {
        Language::Perl => match name {
            "system" | "exec" if core => Some(Kind::ShellOrArgv),
            "readpipe" if core => Some(Kind::Shell),
            "open" if core => Some(Kind::PerlOpen),
            _ => None,
        },
        Language::Ruby => match (q, name) {
            (_, "system" | "exec" | "spawn") if core => Some(Kind::ShellOrArgv),
            (Some("IO"), "popen") => Some(Kind::ShellOrArgv),
            (
                Some("Open3"),
                "popen3" | "popen2" | "popen2e" | "capture2" | "capture2e" | "capture3"
                | "pipeline" | "pipeline_r" | "pipeline_w",
            ) => Some(Kind::ShellOrArgv),
            _ => None,
        },
        Language::Node if child_process => match name {
            "exec" | "execSync" => Some(Kind::Shell),
            "spawn" | "spawnSync" | "execFile" | "execFileSync" => Some(Kind::ProgramList),
            _ => None,
        },
        Language::Php if q.is_none() => match name {
            "system" | "exec" | "shell_exec" | "passthru" | "popen" | "proc_open" => {
                Some(Kind::Shell)
            }
            "pcntl_exec" => Some(Kind::ProgramList),
            _ => None,
        },
        Language::Lua => match (q, name) {
            (Some("os"), "execute") | (Some("io"), "popen") => Some(Kind::Shell),
            _ => None,
        },
        Language::Awk if q.is_none() && name == "system" => Some(Kind::Shell),
        _ => None,
    }
    .or_else(|| delete_call(language, q, name))
}

/// The file and tree deletion calls of perl, ruby, node and php.
fn delete_call(language: Language, q: Option<&str>, name: &str) -> Option<Kind> {
    let tree = Some(Kind::Delete { recursive: true });
    let file = Some(Kind::Delete { recursive: false });
    match (language, q, name) {
        (Language::Perl, _, "rmtree" | "remove_tree") => tree,
        (Language::Perl, None, "unlink" | "rmdir") => file,
        (
            Language::Ruby,
            Some("FileUtils"),
            "rm_rf" | "rm_r" | "remove_dir" | "remove_entry" | "rmtree" | "remove_entry_secure",
        ) => tree,
        (Language::Ruby, Some("FileUtils"), "rm" | "rm_f" | "remove" | "remove_file") => file,
        (Language::Ruby, Some("File"), "delete" | "unlink") => file,
        (Language::Ruby, Some("Dir"), "rmdir" | "delete" | "unlink") => file,
        (Language::Node, Some(_), "rmSync" | "rm" | "rmdirSync" | "rmdir") => tree,
        (Language::Node, Some(_), "unlinkSync" | "unlink") => file,
        (Language::Php, None, "unlink" | "rmdir") => file,
        _ => None,
    }
}

/// Words that end a parenthesis-less argument list (`system "x" or die`).
const LIST_ENDS: &[&str] = &[
    "or", "and", "if", "unless", "then", "do", "end", "while", "until",
];

/// The arguments of a call starting at `start` (after the name); `None` when the name is not
/// called there (`system = 1`, `exec` as a hash key).
fn call_args(language: Language, toks: &[Tok], start: usize) -> Option<Vec<Arg>> {
    let first = toks.get(start)?;
    let (body_start, paren) = match first {
        Tok::Punct('(') => (start + 1, true),
        Tok::Str(_) | Tok::Words(_) | Tok::Punct('[') => (start, false),
        Tok::Ident(w)
            if matches!(language, Language::Perl | Language::Ruby) && w.starts_with(['$', '@']) =>
        {
            (start, false)
        }
        Tok::Punct('{') if language == Language::Lua => return Some(vec![Arg::Dyn]),
        _ => return None,
    };
    if !paren && language == Language::Lua {
        return Some(vec![one_arg(
            toks.get(start..start + 1).unwrap_or_default(),
        )]);
    }
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut from = body_start;
    let mut k = body_start;
    while let Some(t) = toks.get(k) {
        let end_here = match t {
            Tok::Punct('(' | '[' | '{') => {
                depth += 1;
                false
            }
            Tok::Punct(')') if depth == 0 => true,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                false
            }
            Tok::Punct(';') if depth == 0 => true,
            Tok::Newline if depth == 0 && !paren => true,
            Tok::Ident(w) if depth == 0 && !paren && LIST_ENDS.contains(&w.as_str()) => true,
            Tok::Punct(',') if depth == 0 => {
                args.push(one_arg(&toks[from..k]));
                from = k + 1;
                false
            }
            _ => false,
        };
        if end_here {
            break;
        }
        k += 1;
        if k - start > 4096 {
            break;
        }
    }
    if k > from {
        args.push(one_arg(&toks[from..k]));
    }
    Some(args)
}

/// The static shape of one argument's tokens.
fn one_arg(toks: &[Tok]) -> Arg {
    let toks: Vec<&Tok> = toks.iter().filter(|t| **t != Tok::Newline).collect();
    match toks.as_slice() {
        [Tok::Str(Some(s))] => Arg::Str(s.clone()),
        [Tok::Words(w)] => Arg::List(w.iter().cloned().map(Some).collect()),
        [Tok::Punct('['), inner @ .., Tok::Punct(']')] => {
            let mut items = Vec::new();
            for t in inner.split(|t| **t == Tok::Punct(',')) {
                match t {
                    [] => {}
                    [Tok::Str(Some(s))] => items.push(Some(s.clone())),
                    _ => items.push(None),
                }
            }
            Arg::List(items)
        }
        _ => Arg::Dyn,
    }
}

fn run_call(out: &mut Output, kind: Kind, call: &str, args: &[Arg], rest: &[Tok]) {
    let Some(first) = args.first() else {
        out.find(Finding::DynamicShell(call.to_string()));
        return;
    };
    match kind {
        Kind::Shell => match first {
            Arg::Str(cmd) => shell(out, call, cmd.clone()),
            Arg::List(words) => argv(out, call, words.clone()),
            Arg::Dyn => out.find(Finding::DynamicShell(call.to_string())),
        },
        Kind::ShellOrArgv => match (first, args.len()) {
            (Arg::Str(cmd), 1) => shell(out, call, cmd.clone()),
            (Arg::List(words), 1) => argv(out, call, words.clone()),
            (Arg::Str(_), _) => argv(out, call, args.iter().map(Arg::word).collect()),
            _ => out.find(Finding::DynamicShell(call.to_string())),
        },
        Kind::ProgramList => {
            let shell_option = rest
                .windows(3)
                .take(256)
                .any(|w| w[0] == Tok::Ident("shell".into()) && w[2] == Tok::Ident("true".into()));
            let mut words = vec![first.word()];
            match args.get(1) {
                Some(Arg::List(items)) => words.extend(items.iter().cloned()),
                Some(Arg::Dyn) => words.push(None),
                _ => {}
            }
            if shell_option {
                match words.iter().cloned().collect::<Option<Vec<String>>>() {
                    Some(w) => shell(out, call, w.join(" ")),
                    None => out.find(Finding::DynamicShell(call.to_string())),
                }
            } else {
                argv(out, call, words);
            }
        }
        Kind::PerlOpen => perl_open(out, call, args),
        Kind::Delete { recursive } => out.find(Finding::Delete {
            call: call.to_string(),
            path: first.word(),
            recursive,
        }),
    }
}

/// `open(FH, "cmd |")`, `open(FH, "| cmd")`, `open(my $fh, "-|", "cmd", @args)`.
fn perl_open(out: &mut Output, call: &str, args: &[Arg]) {
    match args.get(1) {
        Some(Arg::Str(mode)) if args.len() == 2 => {
            let m = mode.trim();
            if let Some(cmd) = m.strip_prefix('|') {
                fed_shell(out, call, cmd.trim().to_string());
            } else if let Some(cmd) = m.strip_suffix('|') {
                shell(out, call, cmd.trim().to_string());
            } else if let Some(path) = m.strip_prefix("+<").or_else(|| m.strip_prefix('>')) {
                // `open(F, ">/dev/sda")`, `open(F, ">>$log")`: opened for writing.
                let path = path.trim_start_matches(['>', '&']).trim();
                if !path.is_empty() {
                    out.find(Finding::Write {
                        call: call.into(),
                        path: path.to_string(),
                    });
                }
            }
        }
        Some(Arg::Str(mode)) if matches!(mode.trim(), ">" | ">>" | "+<" | "+>" | "+>>") => {
            if let Some(Arg::Str(path)) = args.get(2) {
                out.find(Finding::Write {
                    call: call.into(),
                    path: path.clone(),
                });
            }
        }
        Some(Arg::Str(mode)) if matches!(mode.trim(), "-|" | "|-") => {
            let rest = args.get(2..).unwrap_or_default();
            match rest {
                [Arg::Str(cmd)] if mode.trim() == "|-" => fed_shell(out, call, cmd.clone()),
                [Arg::Str(cmd)] => shell(out, call, cmd.clone()),
                [] => {}
                _ => argv(out, call, rest.iter().map(Arg::word).collect()),
            }
        }
        _ => {}
    }
}

/// awk `print … > "file"` / `>> "file"`: the file is written (a `>` with no `print` or
/// `printf` before it in the statement is a comparison).
fn awk_redirect(toks: &[Tok], i: usize, out: &mut Output) {
    if i > 0 && toks.get(i - 1) == Some(&Tok::Punct('>')) {
        return; // the second `>` of `>>`
    }
    let next = match toks.get(i + 1) {
        Some(Tok::Punct('>')) => toks.get(i + 2),
        other => other,
    };
    let Some(Tok::Str(Some(path))) = next else {
        return;
    };
    let printing = toks[..i]
        .iter()
        .rev()
        .take_while(|t| !matches!(t, Tok::Punct(';' | '{' | '}')))
        .any(|t| matches!(t, Tok::Ident(name) if name == "print" || name == "printf"));
    if printing && !matches!(path.as_str(), "/dev/stdout" | "/dev/stderr") {
        out.find(Finding::Write {
            call: "awk print >".into(),
            path: path.clone(),
        });
    }
}

/// awk `print … | "cmd"`, `"cmd" | getline`, `print |& "cmd"`, and their run-time forms.
fn awk_pipe(toks: &[Tok], i: usize, out: &mut Output) {
    let prev = i.checked_sub(1).and_then(|j| toks.get(j));
    let mut next = toks.get(i + 1);
    if prev == Some(&Tok::Punct('|')) || next == Some(&Tok::Punct('|')) {
        return; // `||`
    }
    if next == Some(&Tok::Punct('&')) {
        next = toks.get(i + 2);
    }
    match (prev, next) {
        (_, Some(Tok::Ident(g))) if g == "getline" => match prev {
            Some(Tok::Str(Some(cmd))) => {
                let before = i.checked_sub(2).and_then(|j| toks.get(j));
                if matches!(before, Some(Tok::Str(_) | Tok::Ident(_))) {
                    out.find(Finding::DynamicShell("getline".into()));
                } else {
                    shell(out, "getline", cmd.clone());
                }
            }
            _ => out.find(Finding::DynamicShell("getline".into())),
        },
        (_, Some(Tok::Str(Some(cmd)))) => {
            let after = toks.get(i + 2);
            if matches!(after, Some(Tok::Str(_) | Tok::Ident(_))) {
                out.find(Finding::DynamicShell("print |".into()));
            } else {
                fed_shell(out, "print |", cmd.clone());
                // `print "rm -rf /" | "sh"`: a shell reading one constant line runs it.
                if let Some(script) = printed(toks, i).filter(|_| reads_script(cmd)) {
                    shell(out, "print | sh", script);
                }
            }
        }
        (_, Some(Tok::Str(None) | Tok::Ident(_))) => {
            out.find(Finding::DynamicShell("print |".into()))
        }
        _ => {}
    }
}

/// The constant text of `print "…" |` just before the pipe at `i`.
fn printed(toks: &[Tok], i: usize) -> Option<String> {
    let text = match toks.get(i.checked_sub(1)?)? {
        Tok::Str(Some(t)) => t.clone(),
        _ => return None,
    };
    match toks.get(i.checked_sub(2)?)? {
        Tok::Ident(p) if p == "print" => Some(text),
        _ => None,
    }
}

/// A command that is a shell reading its script from stdin (`sh`, `/bin/bash -s`).
fn reads_script(command: &str) -> bool {
    let words = split_words(command);
    let Some(first) = words.first() else {
        return false;
    };
    let base = first.rsplit('/').next().unwrap_or(first);
    SHELLS.contains(&base) && !words.iter().skip(1).any(|w| w.starts_with("-c"))
}

/// Modules and socket APIs a program names (`use IO::Socket`, `require 'socket'`,
/// `require('net')`, `fsockopen`, `socket.tcp`, `TCPSocket`).
fn imports(
    language: Language,
    q: Option<&str>,
    name: &str,
    toks: &[Tok],
    i: usize,
    out: &mut Output,
) {
    let next_str = || match toks.get(i + 1) {
        Some(Tok::Str(Some(s))) => Some(s.clone()),
        Some(Tok::Punct('(')) => match toks.get(i + 2) {
            Some(Tok::Str(Some(s))) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    };
    let module = match (language, name) {
        (Language::Perl, "use") => toks.get(i + 1).and_then(|t| match t {
            Tok::Ident(m) => Some(perl_module(toks, i + 1, m)),
            _ => None,
        }),
        (Language::Ruby | Language::Lua, "require") | (Language::Node, "require") => next_str(),
        (Language::Node, "from") => next_str(),
        _ => None,
    };
    if let Some(m) = module {
        out.find(Finding::Import(m));
    }
    let socket = match language {
        Language::Perl => name == "socket" && q.is_none() || name == "INET" && q.is_some(),
        Language::Ruby => {
            matches!(name, "TCPSocket" | "UDPSocket" | "Socket")
                && toks.get(i + 1) == Some(&Tok::Punct('.'))
        }
        Language::Node => matches!(
            (q, name),
            (Some(_), "connect" | "createConnection" | "Socket")
        ),
        Language::Php => matches!(name, "fsockopen" | "stream_socket_client" | "socket_create"),
        Language::Lua => matches!((q, name), (Some("socket"), "tcp" | "connect")),
        _ => false,
    };
    if socket {
        out.find(Finding::Socket(name.to_string()));
    }
}

/// `IO::Socket::INET` as one module name from its `::`-separated tokens.
fn perl_module(toks: &[Tok], mut k: usize, first: &str) -> String {
    let mut name = first.to_string();
    while let (Some(Tok::Punct(':')), Some(Tok::Punct(':')), Some(Tok::Ident(part))) =
        (toks.get(k + 1), toks.get(k + 2), toks.get(k + 3))
    {
        name.push_str("::");
        name.push_str(part);
        k += 3;
    }
    name
}

pub(super) fn shell(out: &mut Output, call: &str, text: String) {
    run_shell(out, call, text, false);
}

/// A shell command that reads what the program writes (`print | "cmd"`, `open(F, "| cmd")`).
fn fed_shell(out: &mut Output, call: &str, text: String) {
    run_shell(out, call, text, true);
}

fn run_shell(out: &mut Output, call: &str, text: String, fed: bool) {
    if !fed {
        // A shell reading the program's output is not one started on the terminal.
        out.find(Finding::Spawn {
            call: call.to_string(),
            argv: split_words(&text).into_iter().map(Some).collect(),
        });
    }
    out.run(Run::Shell {
        call: call.to_string(),
        text,
        positional: None,
        fed,
    });
}

fn argv(out: &mut Output, call: &str, words: Vec<Option<String>>) {
    if words.first().is_none_or(Option::is_none) {
        out.find(Finding::DynamicShell(call.to_string()));
        return;
    }
    out.find(Finding::Spawn {
        call: call.to_string(),
        argv: words.clone(),
    });
    out.run(Run::Argv {
        call: call.to_string(),
        words,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shells(language: Language, code: &str) -> Vec<String> {
        analyse(language, code)
            .runs
            .into_iter()
            .map(|r| match r {
                Run::Shell { text, .. } => text,
                Run::Argv { words, .. } => words
                    .into_iter()
                    .map(|w| w.unwrap_or_else(|| "?".into()))
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect()
    }

    #[test]
    fn shell_out_table() {
        use Language::*;
        let cases: &[(Language, &str, &[&str])] = &[
            (Perl, r#"system("rm -rf /")"#, &["rm -rf /"]),
            (Perl, r#"system "id" or die"#, &["id"]),
            (Perl, r#"system("rm", "-rf", "/tmp/x")"#, &["rm -rf /tmp/x"]),
            (Perl, "print `id`; my $x = qx{whoami};", &["id", "whoami"]),
            (Perl, r#"exec qw(rm -rf /)"#, &["rm -rf /"]),
            (Perl, r#"open(my $f, "-|", "ls -l")"#, &["ls -l"]),
            (Perl, r#"open(F, "uname -a |")"#, &["uname -a"]),
            (Perl, r#"s/'//g; system("ls")"#, &["ls"]),
            (Perl, r#"print "system('x')""#, &[]),
            (Ruby, r#"system("ls -la")"#, &["ls -la"]),
            (Ruby, "puts %x(uname -a)", &["uname -a"]),
            (Ruby, r#"IO.popen(["ls", "-l"])"#, &["ls -l"]),
            (Ruby, r#"Open3.capture2("df -h")"#, &["df -h"]),
            (
                Node,
                r#"require("child_process").execSync("rm -rf /")"#,
                &["rm -rf /"],
            ),
            (
                Node,
                r#"const cp = require('child_process'); cp.spawn("rm", ["-rf", "/"])"#,
                &["rm -rf /"],
            ),
            (Node, r#"/x/.exec("rm -rf /")"#, &[]),
            (Php, r#"system("id");"#, &["id"]),
            (Php, r#"echo shell_exec('ls');"#, &["ls"]),
            (Php, "echo `whoami`;", &["whoami"]),
            (Lua, r#"os.execute("rm -rf /")"#, &["rm -rf /"]),
            (Lua, r#"io.popen "ls""#, &["ls"]),
            (Awk, r#"BEGIN { system("rm -rf /") }"#, &["rm -rf /"]),
            (Awk, r#"{ print $1 | "sort -u" }"#, &["sort -u"]),
            (Awk, r#"BEGIN { "date" | getline d }"#, &["date"]),
            (Awk, r#"$1 ~ /a|b/ { print }"#, &[]),
            (Sed, "1e rm -rf /", &["rm -rf /"]),
            (Sed, "s/.*/id/e", &["id"]),
            (Sed, "s/a/b/g", &[]),
        ];
        for (language, code, want) in cases {
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(shells(*language, code), want, "{language:?} {code}");
        }
    }

    #[test]
    fn dynamic_table() {
        use Language::*;
        for (language, code) in [
            (Perl, r#"system("rm -rf $dir")"#),
            (Perl, "system($cmd)"),
            (Ruby, r#"system("ls #{x}")"#),
            (Node, "require('child_process').exec(cmd)"),
            (Php, "system($_GET['c']);"),
            (Lua, "os.execute(cmd)"),
            (Awk, r#"{ system("rm " $1) }"#),
            (Sed, "s/.*/rm &/e"),
        ] {
            let out = analyse(language, code);
            assert!(
                out.findings
                    .iter()
                    .any(|f| matches!(f, Finding::DynamicShell(_))),
                "{language:?} {code}: {:?}",
                out.findings
            );
            assert!(out.runs.is_empty(), "{language:?} {code}");
        }
    }
}
