//! Shell escapes: starting something that runs commands the gate never sees. Interactive shells
//! and interpreters, editors, pagers and REPLs with a shell escape, `awk system()`, options that
//! run another program (`git -c core.pager`, `tar --checkpoint-action`, `ssh -o ProxyCommand`…).

use super::clobber::{option_values, push_once, Neighbours};
use super::reverse_shell::inline_code;
use super::{Family, Severity, Signal, Spec};
use crate::ir::{client_input, Analysis, Command, Stdin, Via, Word};
use crate::programs::is_interpreter;
use crate::programs::SHELLS;

/// The family of every entry declared below.
const FAMILY: Family = Family::Escape;

spec!(
    INTERACTIVE_SHELL,
    "INTERACTIVE_SHELL",
    High,
    "starts an interactive shell",
    "A shell with no `-c` string and no script whose stdin is the terminal (`bash`, `/bin/sh`, `bash --norc`, `sh -i`, `exec zsh`, `busybox sh`, `find . -exec /bin/sh \\;`), `sudo -i`/`sudo -s` with no command, `su`/`su -` without `-c`, `script` without `-c`, `machinectl shell`. Commands typed into it are not gated. A shell fed by a pipe, heredoc or file is not interactive (see PIPE_TO_SHELL); shells on another host (`ssh host bash`, `docker exec … sh`) are not this host's escape."
);
spec!(
    INTERACTIVE_INTERPRETER,
    "INTERACTIVE_INTERPRETER",
    // Medium: automation pipes programs into a bare interpreter (ansible pipelining runs
    // `/usr/bin/python3` with the module on stdin); a session leaves it to the policy too
    // (`decision::SESSION_TOOLS`).
    Medium,
    "starts an interactive interpreter",
    "`python3`, `perl -d`, `irb`, `node`, `php -a`, `lua` with no code and no script, stdin the terminal (or `python -i`): a REPL that can `os.system` anything."
);
spec!(
    INTERPRETER_SPAWNS_SHELL,
    "INTERPRETER_SPAWNS_SHELL",
    High,
    "interpreter code starts a shell",
    "Inline code that starts a shell: `python -c 'import pty; pty.spawn(\"/bin/sh\")'`, `perl -e 'exec \"/bin/sh\"'`, `ruby -e 'exec \"/bin/bash\"'`, `node -e 'require(\"child_process\").spawn(\"sh\",{stdio:\"inherit\"})'`."
);
spec!(
    SHELL_ESCAPE_PROGRAM,
    "SHELL_ESCAPE_PROGRAM",
    Medium,
    "starts an editor, pager or REPL that can run shell commands",
    "`vi`, `vim`, `nvim`, `view`, `ex`, `ed`, `emacs`, `nano` (not `nano -R`), `pico`, `joe`, `mc`, `less` (not with `LESSSECURE=1`), `more`, `most`, `man` (not `-P cat`), `git help`, `visudo`, `sudoedit`, `gdb`, `expect`, interactive `mysql`/`psql`/`sqlite3`, `ftp`: each has a command (`:!sh`, `!sh`, `\\!`, `shell`) that starts a shell the gate never sees. Medium, in `-c` mode and in a session alike (a session points `$SHELL`, which these escapes start, at guarded-sh); the session's floor denies every other escape signal."
);
spec!(
    EDITOR_RUNS_COMMAND,
    "EDITOR_RUNS_COMMAND",
    High,
    "editor or debugger told to run a shell command",
    "An editor or debugger given a command on its command line that starts a shell or runs code: `vim -c ':!/bin/sh'`, `vim --cmd 'py3 …'`, `vim +'set shell=/bin/sh|shell'`, `gdb -ex '!sh'`, `gdb -batch -ex 'python …'`, `expect -c 'spawn sh; interact'`."
);
spec!(
    AWK_SYSTEM,
    "AWK_SYSTEM",
    Medium,
    "awk program runs shell commands",
    "An awk program with `system(…)`, `\"cmd\" | getline`, `print … | \"cmd\"` or `|&`: the commands it runs are built at run time and never gated."
);
spec!(
    AWK_SHELL,
    "AWK_SYSTEM",
    High,
    "awk program starts a shell",
    "An awk program that runs a shell by name (`awk 'BEGIN{system(\"/bin/sh\")}'`): the GTFOBins escape."
);
spec!(
    COMMAND_OPTION_EXEC,
    "COMMAND_OPTION_EXEC",
    High,
    "option makes the program run another command",
    "An option whose value is a command line the program runs through a shell: `git -c core.pager|core.editor|core.sshCommand|core.fsmonitor|diff.external|alias.x=!…`, `git --upload-pack`, `ext::` URLs, `GIT_SSH_COMMAND`/`GIT_PAGER`/`GIT_EDITOR`; `tar --checkpoint-action=exec=`, `--to-command`, `--use-compress-program`/`-I`, `--info-script`; `rsync -e|--rsh|--rsync-path`; `scp -S`; `ssh`/`scp -o ProxyCommand|LocalCommand`; `zip -TT`/`--unzip-command`; `strace -o '|cmd'`; `man -P`. Values that only name the usual helper (`ssh`, `gzip`, `less`, `vim`, `nc` for a proxy) are not flagged."
);
spec!(
    MULTIPLEXER_COMMAND,
    "MULTIPLEXER_COMMAND",
    Medium,
    "terminal multiplexer runs a program outside the gate",
    "`screen PROGRAM`, `screen -s SHELL`, or `tmux set … default-shell|default-command`. Plain `tmux`/`screen` sessions start `$SHELL`, which is guarded-sh for a gated account, so they are not flagged."
);

pub static SPECS: &[&Spec] = &[
    &INTERACTIVE_SHELL,
    &INTERACTIVE_INTERPRETER,
    &INTERPRETER_SPAWNS_SHELL,
    &SHELL_ESCAPE_PROGRAM,
    &EDITOR_RUNS_COMMAND,
    &AWK_SYSTEM,
    &AWK_SHELL,
    &COMMAND_OPTION_EXEC,
    &MULTIPLEXER_COMMAND,
];

/// Editors and pagers with a shell escape, always.
const ESCAPE_PROGRAMS: &[&str] = &[
    "vi", "vim", "nvim", "view", "vimdiff", "gvim", "ex", "ed", "emacs", "pico", "joe", "mc",
    "mcedit", "more", "most", "pg", "visudo", "sudoedit", "gdb", "lldb", "expect", "ftp", "lftp",
    "vipw", "vigr", "links", "lynx", "w3m", "elinks", "ghci", "irssi", "weechat", "aptitude",
];

/// Extra REPLs that are not in the downloader family's interpreter list.
const REPLS: &[&str] = &[
    "irb", "pry", "ipython", "ipython3", "bpython", "jshell", "R",
];

const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk"];

const VI_FAMILY: &[&str] = &["vi", "vim", "nvim", "view", "vimdiff", "gvim", "ex", "rvim"];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let n = Neighbours::of(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        if on_another_host(cmd) {
            continue;
        }
        let Some(base) = cmd.base() else { continue };
        if is_interactive_shell(&n, i, cmd, base) {
            push_once(out, &INTERACTIVE_SHELL, i, cmd, cmd.text());
        }
        // A program read from the process's stdin (pipelining) is a program, not a REPL.
        let program_on_stdin = a
            .programs
            .iter()
            .any(|(j, r)| *j == i && r.origin == crate::ir::Origin::Stdin && r.bytes > 0);
        if !program_on_stdin {
            interpreter(cmd, base, i, out);
        }
        if is_escape_program(cmd, base) && !given_statements(cmd, a) {
            push_once(out, &SHELL_ESCAPE_PROGRAM, i, cmd, cmd.text());
        }
        if let Some(evidence) = editor_command(cmd, base) {
            push_once(out, &EDITOR_RUNS_COMMAND, i, cmd, evidence);
        }
        if AWKS.contains(&base) {
            awk(cmd, i, out);
        }
        if let Some(evidence) = option_exec(cmd, base) {
            push_once(out, &COMMAND_OPTION_EXEC, i, cmd, evidence);
        }
        if multiplexer_runs_program(cmd, base) {
            push_once(out, &MULTIPLEXER_COMMAND, i, cmd, cmd.text());
        }
    }
}

fn on_another_host(cmd: &Command) -> bool {
    cmd.context.via.iter().any(|v| matches!(v, Via::Remote(_)))
}

/// True when stdin is whatever the session has (a terminal when interactive).
fn terminal_stdin(cmd: &Command) -> bool {
    matches!(cmd.stdin, Stdin::Inherited)
}

fn is_interactive_shell(n: &Neighbours, i: usize, cmd: &Command, base: &str) -> bool {
    let wraps_something = !n.wrapped(i).is_empty();
    let letters = cmd.short_flags();
    match base {
        _ if SHELLS.contains(&base) => {
            let input_args = cmd.context.extra_args
                && matches!(cmd.context.via.last(), Some(Via::Wrapper(w)) if w != "find -exec");
            let no_code = !letters.contains('c') && !runs_a_script(cmd) && !input_args;
            no_code && (terminal_stdin(cmd) || letters.contains('i'))
        }
        "sudo" | "sudo-rs" | "doas" => {
            let login = letters.contains(['i', 's']) || cmd.has_any_arg(&["--login", "--shell"]);
            let edit_or_list = letters.contains(['e', 'l', 'v', 'k', 'K']);
            (login || base == "doas" && letters.contains('s')) && !edit_or_list && !wraps_something
        }
        "su" | "sudo-su" => !wraps_something && !cmd.has_any_arg(&["-c", "--command"]),
        "script" => !cmd.has_any_arg(&["-c", "--command"]) && terminal_stdin(cmd),
        "machinectl" => cmd.operands().first().and_then(|w| w.value()) == Some("shell"),
        _ => false,
    }
}

/// Whether a shell's words name a script for it to run: an operand after its options, whose
/// values (`-o NAME`, `+O NAME`, `--rcfile FILE`, `--init-file FILE`) are not operands; with
/// `-s` every operand is a positional parameter and the commands come from stdin. (`bash -o vi`
/// and `bash --rcfile FILE` were read as running the script `vi`, `FILE`: an interactive shell
/// that went unflagged.) A word known only at run time counts as a script.
fn runs_a_script(cmd: &Command) -> bool {
    let mut words = cmd.args.iter();
    let mut from_stdin = false;
    while let Some(word) = words.next() {
        let Some(v) = word.value() else {
            return !from_stdin;
        };
        if v == "--" {
            return words.next().is_some() && !from_stdin;
        }
        if let Some(long) = v.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                words.next();
            }
            continue;
        }
        if v.len() > 1 && (v.starts_with('-') || v.starts_with('+')) {
            let letters = &v[1..];
            from_stdin |= letters.contains('s');
            // `-o NAME`, `-O NAME` (a cluster's last letter takes the next word).
            if letters.ends_with(['o', 'O']) {
                words.next();
            }
            continue;
        }
        return !from_stdin;
    }
    false
}

fn interpreter(cmd: &Command, base: &str, i: usize, out: &mut Vec<Signal>) {
    if let Some(code) = inline_code(cmd) {
        if !AWKS.contains(&base) && starts_shell(code) {
            push_once(out, &INTERPRETER_SPAWNS_SHELL, i, cmd, code.to_string());
        }
        let debugger = base == "perl" && cmd.short_flags().contains('d');
        if debugger && terminal_stdin(cmd) {
            push_once(out, &INTERACTIVE_INTERPRETER, i, cmd, cmd.text());
        }
        return;
    }
    if !(is_interpreter(base) || REPLS.contains(&base)) {
        return;
    }
    let letters = cmd.short_flags();
    let forced = base.starts_with("python") && letters.contains('i')
        || base == "php" && letters.contains('a');
    let module = cmd
        .option_args()
        .any(|o| o.starts_with("-m") || o == "-r" && base == "node");
    let no_program = cmd.operands().is_empty()
        && !module
        && !cmd
            .option_args()
            .any(|o| o.starts_with("--version") || o == "-V" || o == "--help" || o == "-h");
    if forced || no_program && terminal_stdin(cmd) && !cmd.context.extra_args {
        push_once(out, &INTERACTIVE_INTERPRETER, i, cmd, cmd.text());
    }
}

const SPAWN_MARKERS: &[&str] = &[
    "pty.spawn",
    "/bin/sh",
    "/bin/bash",
    "/bin/zsh",
    "/bin/dash",
    "os.system(\"sh\")",
    "os.system('sh')",
    "os.system(\"bash\")",
    "os.system('bash')",
    "exec \"sh\"",
    "exec 'sh'",
    "exec(\"sh\")",
    "system(\"sh\")",
    "system('sh')",
    "spawn(\"sh\"",
    "spawn('sh'",
    "spawn(\"bash\"",
    "spawn('bash'",
    "execSync(\"sh\")",
    "execSync('sh')",
];

fn starts_shell(code: &str) -> bool {
    SPAWN_MARKERS.iter().any(|m| code.contains(m))
}

fn is_escape_program(cmd: &Command, base: &str) -> bool {
    let secure_pager = cmd
        .assignments
        .iter()
        .any(|(n, v)| n == "LESSSECURE" && v.value() == Some("1"));
    match base {
        "less" => !secure_pager,
        "nano" | "rnano" => base == "nano" && !cmd.has_flag('R', "--restricted"),
        "man" => {
            let pager = option_values(cmd, &["-P", "--pager"]);
            let safe = pager.iter().any(|p| {
                p.value()
                    .is_some_and(|v| matches!(first_word(v), "cat" | "col"))
            });
            !safe && !cmd.has_any_arg(&["-f", "-k", "-w", "--where", "--path"])
        }
        "git" => cmd.operands().first().and_then(|w| w.value()) == Some("help"),
        "visudo" => !cmd.has_flag('c', "--check"),
        "sudo" => cmd.has_flag('e', "--edit"),
        "mysql" | "mariadb" => {
            !cmd.has_any_arg(&["-e", "--execute"])
                && terminal_stdin(cmd)
                && !cmd
                    .option_args()
                    .any(|o| o.starts_with("--execute=") || o.starts_with("-e"))
        }
        "psql" => {
            let scripted = cmd.option_args().any(|o| {
                matches!(o, "-c" | "-f" | "--command" | "--file" | "-l" | "--list")
                    || o.starts_with("--command=")
                    || o.starts_with("--file=")
            });
            !scripted && terminal_stdin(cmd)
        }
        "sqlite3" => cmd.operands().len() <= 1 && terminal_stdin(cmd),
        _ => ESCAPE_PROGRAMS.contains(&base),
    }
}

/// True when a database client is given statements as arguments (`psql -qAtc SQL`,
/// `mysql -BNe SQL`): it runs them and exits rather than reading a terminal.
fn given_statements(cmd: &Command, a: &Analysis) -> bool {
    client_input(cmd, a).is_some_and(|input| !input.reads_stdin)
}

fn first_word(command_line: &str) -> &str {
    let first = command_line.split_whitespace().next().unwrap_or_default();
    first.rsplit('/').next().unwrap_or(first)
}

/// Words in a command string that start a shell or an embedded interpreter.
fn names_shell_or_code(text: &str) -> bool {
    text.contains('!')
        || text.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| {
            matches!(
                t,
                "sh" | "bash"
                    | "shell"
                    | "terminal"
                    | "term"
                    | "py"
                    | "py3"
                    | "python"
                    | "python3"
                    | "pyx"
                    | "lua"
                    | "perl"
                    | "ruby"
                    | "system"
                    | "spawn"
                    | "interact"
            )
        })
}

fn editor_command(cmd: &Command, base: &str) -> Option<String> {
    let commands: Vec<Word> = if VI_FAMILY.contains(&base) {
        let mut c = option_values(cmd, &["-c", "--cmd"]);
        c.extend(
            cmd.args
                .iter()
                .filter(|w| w.value().is_some_and(|v| v.starts_with('+') && v.len() > 1))
                .cloned(),
        );
        c
    } else if matches!(base, "gdb" | "lldb") {
        option_values(
            cmd,
            &[
                "-ex",
                "--ex",
                "-eval-command",
                "--eval-command",
                "-o",
                "--one-line",
            ],
        )
    } else if base == "expect" {
        option_values(cmd, &["-c"])
    } else {
        return None;
    };
    commands
        .iter()
        .filter_map(Word::value)
        .find(|v| names_shell_or_code(v))
        .map(str::to_string)
}

fn awk(cmd: &Command, i: usize, out: &mut Vec<Signal>) {
    let Some(program) = inline_code(cmd) else {
        return;
    };
    let runs = program.contains("system(")
        || program.contains("system (")
        || program.contains("|&")
        || program.contains("| getline")
        || program.contains("|getline")
        || pipes_to_command(program);
    if !runs {
        return;
    }
    let shell = SHELLS
        .iter()
        .any(|s| program.contains(&format!("\"{s}\"")) || program.contains(&format!("/bin/{s}")));
    let spec = if shell { &AWK_SHELL } else { &AWK_SYSTEM };
    push_once(out, spec, i, cmd, program.to_string());
}

/// `print … | "cmd"`: output piped to a command string.
fn pipes_to_command(program: &str) -> bool {
    program
        .match_indices('|')
        .any(|(at, _)| program[at + 1..].trim_start().starts_with('"'))
}

/// Helpers an option may name without running anything unexpected.
const SAFE_HELPERS: &[&str] = &[
    "ssh",
    "rsh",
    "cat",
    "less",
    "more",
    "most",
    "true",
    "vim",
    "vi",
    "nvim",
    "nano",
    "emacs",
    "code",
    "delta",
    "diff-so-fancy",
    "gzip",
    "gunzip",
    "bzip2",
    "xz",
    "zstd",
    "pigz",
    "pbzip2",
    "lbzip2",
    "lz4",
    "lzma",
    "lzop",
    "unzip",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "connect",
    "connect-proxy",
    "corkscrew",
    "cloudflared",
    "rsync",
    "sudo",
];

fn is_safe_helper(command_line: &str) -> bool {
    SAFE_HELPERS.contains(&first_word(command_line))
}

fn option_exec(cmd: &Command, base: &str) -> Option<String> {
    let values: Vec<&str> = cmd.arg_values().collect();
    match base {
        "git" => git(cmd, &values),
        "tar" | "bsdtar" | "gtar" => {
            let valued = option_values(
                cmd,
                &[
                    "-I",
                    "--use-compress-program",
                    "--to-command",
                    "--info-script",
                    "-F",
                    "--new-volume-script",
                    "--rsh-command",
                ],
            );
            let checkpoint = values
                .iter()
                .find(|v| v.starts_with("--checkpoint-action=exec"));
            checkpoint
                .map(|v| v.to_string())
                .or_else(|| unsafe_value(&valued))
        }
        "rsync" => unsafe_value(&option_values(cmd, &["-e", "--rsh", "--rsync-path"])),
        "scp" | "ssh" | "sftp" => {
            let mut found = if base == "scp" {
                unsafe_value(&option_values(cmd, &["-S"]))
            } else {
                None
            };
            let mut options = option_values(cmd, &["-o"]);
            options.extend(
                values
                    .iter()
                    .filter_map(|v| v.strip_prefix("-o"))
                    .filter(|v| !v.is_empty())
                    .map(Word::literal),
            );
            for o in options.iter().filter_map(Word::value) {
                let (key, value) = o.split_once(['=', ' ']).unwrap_or((o, ""));
                let key = key.to_ascii_lowercase();
                if matches!(key.as_str(), "proxycommand" | "localcommand")
                    && !is_safe_helper(value.trim_start_matches('=').trim())
                {
                    found = found.or(Some(o.to_string()));
                }
            }
            found
        }
        "zip" => values
            .iter()
            .position(|v| *v == "-TT" || *v == "--unzip-command")
            .and_then(|p| values.get(p + 1))
            .or_else(|| {
                values
                    .iter()
                    .find(|v| v.starts_with("--unzip-command=") || v.starts_with("-TT="))
            })
            .map(|v| v.to_string()),
        "strace" | "ltrace" => option_values(cmd, &["-o", "--output"])
            .iter()
            .filter_map(Word::value)
            .find(|v| v.starts_with('|') || v.starts_with('!'))
            .map(str::to_string),
        "man" => unsafe_value(&option_values(cmd, &["-P", "--pager", "-H", "--html"])),
        _ => None,
    }
}

/// The first static value that is not a safe helper, or the raw text of a dynamic one.
fn unsafe_value(words: &[Word]) -> Option<String> {
    words.iter().find_map(|w| match w.value() {
        Some(v) if is_safe_helper(v) => None,
        Some(v) => Some(v.to_string()),
        None => Some(w.raw.clone()),
    })
}

const GIT_COMMAND_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.hookspath",
    "core.askpass",
    "diff.external",
    "sequence.editor",
    "gpg.program",
    "credential.helper",
    "uploadpack.packobjectshook",
    "protocol.ext.allow",
];

fn git(cmd: &Command, values: &[&str]) -> Option<String> {
    let mut settings: Vec<String> = option_values(cmd, &["-c", "--config-env"])
        .iter()
        .filter_map(|w| w.value().map(str::to_string))
        .collect();
    if cmd.operands().first().and_then(|w| w.value()) == Some("config") {
        let operands: Vec<&str> = cmd
            .operands()
            .iter()
            .skip(1)
            .filter_map(|w| w.value())
            .collect();
        if let [key, value, ..] = operands.as_slice() {
            settings.push(format!("{key}={value}"));
        }
    }
    for s in &settings {
        let (key, value) = s.split_once('=').unwrap_or((s, ""));
        let key = key.to_ascii_lowercase();
        let runs = GIT_COMMAND_KEYS.contains(&key.as_str())
            || key.starts_with("pager.")
            || key.starts_with("alias.") && value.starts_with('!');
        let safe = is_safe_helper(value) && key != "protocol.ext.allow"
            || key == "credential.helper" && !value.starts_with('!');
        if runs && !safe {
            return Some(s.clone());
        }
    }
    for (name, value) in &cmd.assignments {
        let git_env = matches!(
            name.as_str(),
            "GIT_SSH_COMMAND"
                | "GIT_SSH"
                | "GIT_PAGER"
                | "GIT_EDITOR"
                | "GIT_EXTERNAL_DIFF"
                | "GIT_ASKPASS"
                | "GIT_PROXY_COMMAND"
        );
        if git_env && !value.value().is_some_and(is_safe_helper) {
            return Some(format!("{name}={}", value.shown));
        }
    }
    values
        .iter()
        .find(|v| {
            v.starts_with("ext::")
                || v.starts_with("--upload-pack")
                || v.starts_with("--receive-pack")
                || v.starts_with("--exec=")
        })
        .map(|v| v.to_string())
}

fn multiplexer_runs_program(cmd: &Command, base: &str) -> bool {
    match base {
        "screen" => {
            let listing = cmd.has_any_arg(&[
                "-r", "-x", "-ls", "-list", "-R", "-wipe", "-X", "-Q", "-d", "-D",
            ]);
            let shell = !option_values(cmd, &["-s"]).is_empty();
            let program = !super::clobber::operands_skipping(cmd, "cSsTtpLlhe", &[]).is_empty();
            !listing && (shell || program)
        }
        "tmux" => {
            let values: Vec<&str> = cmd.arg_values().collect();
            values
                .iter()
                .any(|v| matches!(*v, "set" | "set-option" | "setw" | "set-window-option"))
                && values
                    .iter()
                    .any(|v| matches!(*v, "default-shell" | "default-command"))
        }
        _ => false,
    }
}
