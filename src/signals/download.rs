//! Download or decode, then execute, by any route: a downloader or decoder feeding a shell or
//! interpreter through a pipe (also via `tee`, `sudo`, absolute paths), a process substitution
//! (`bash <(curl …)`), an executed command substitution (`eval "$(curl …)"`), or a file that
//! is downloaded and then run (`curl -o f … && sh f`).

use super::{Family, Severity, Signal, Spec};
use crate::ir::{piped_text, Analysis, Command, Stdin, Substitution, Word};
use crate::programs::{is_interpreter, SHELLS};
use std::collections::HashSet;

/// The family of every entry declared below.
const FAMILY: Family = Family::Download;

spec!(CURL_PIPE_SHELL, "CURL_PIPE_SHELL", Critical, "remote download piped into a shell",
    "A downloader (`curl`, `wget`, `fetch`, `aria2c`, `httpie` …) feeds a shell or interpreter that runs what it reads: through a pipe at any distance (`curl … | tee f | sh`), behind wrappers (`| sudo bash`, `| /bin/sh`), into any shell or interpreter (`| python3`, `| busybox sh`), or through process substitution (`bash <(curl …)`, `sh < <(curl …)`, `source <(curl …)`).");
spec!(REMOTE_DOWNLOAD_EXECUTE, "REMOTE_DOWNLOAD_EXECUTE", Critical, "remote download inside a command substitution",
    "A command substitution containing a downloader whose output is executed: as the command word, by `eval`, as a shell's `-c` string or an interpreter's code. `VERSION=$(curl …)` and `echo \"$(curl …)\"` only read data and are not flagged.");
spec!(DECODE_EXECUTE, "DECODE_EXECUTE", Critical, "decoded payload executed by a shell",
    "A decoder (`base64 -d`, `base32 -d`, `xxd -r`, `openssl enc -d`, `uudecode`) feeds a shell or interpreter, or its output is executed from a command substitution: the classic way to hide a payload from review.");
spec!(DOWNLOAD_THEN_EXECUTE, "DOWNLOAD_THEN_EXECUTE", Critical, "downloaded file executed",
    "A file written by a downloader (`curl -o f`, `wget -O f`, `wget URL`, `> f`) is then run in the same text (`sh f`, `./f`, `source f`, `python3 f`).");
spec!(PIPE_TO_SHELL, "PIPE_TO_SHELL", Medium, "shell reads commands from a pipe",
    "A shell or interpreter reads its program from a pipe whose content cannot be seen in the text (`cat script | sh`, `make-cmds | bash`).");

pub static SPECS: &[&Spec] = &[
    &CURL_PIPE_SHELL,
    &REMOTE_DOWNLOAD_EXECUTE,
    &DECODE_EXECUTE,
    &DOWNLOAD_THEN_EXECUTE,
    &PIPE_TO_SHELL,
];

fn is_downloader(cmd: &Command) -> bool {
    cmd.is(&[
        "curl",
        "wget",
        "fetch",
        "aria2c",
        "http",
        "https",
        "lwp-request",
        "lwp-download",
        "GET",
        "wget2",
        "curlie",
        "xh",
        "tftp",
        "ftp",
    ])
}

fn is_decoder(cmd: &Command) -> bool {
    let decode_flag = cmd.has_flag('d', "--decode") || cmd.has_flag('D', "--decode");
    match cmd.base() {
        Some("base64" | "base32" | "basenc" | "b64decode") => decode_flag,
        Some("xxd") => cmd.short_flags().contains('r'),
        Some("openssl") => cmd.has_arg("-d") || cmd.has_arg("-base64") && cmd.has_arg("-d"),
        Some("uudecode") => true,
        _ => false,
    }
}

/// True when `cmd` runs code it reads from stdin.
fn reads_code_from_stdin(cmd: &Command) -> bool {
    let Some(base) = cmd.base() else { return false };
    if SHELLS.contains(&base)
        || base == "busybox"
            && cmd
                .args
                .first()
                .and_then(Word::value)
                .is_some_and(|a| SHELLS.contains(&a))
    {
        let letters = cmd.short_flags();
        if letters.contains('c') {
            return false;
        }
        return cmd.operands().is_empty() || letters.contains('s') || operand_is_stdin(cmd);
    }
    if is_interpreter(base) {
        let code_flag = cmd.option_args().any(|a| {
            matches!(
                a,
                "-c" | "-e" | "-E" | "-r" | "--eval" | "-m" | "-p" | "--print"
            )
        });
        return !code_flag && (cmd.operands().is_empty() || operand_is_stdin(cmd));
    }
    matches!(base, "source" | ".") && operand_is_stdin(cmd)
}

/// PowerShell code (`pwsh -c`, `-Command`, `-EncodedCommand` is left to the policy) that
/// downloads and evaluates in one go: `iwr URL | iex`, `iex (New-Object
/// Net.WebClient).DownloadString(URL)`, `irm URL | Invoke-Expression`.
fn powershell_download_execute(cmd: &Command) -> Option<String> {
    if !cmd.is(&["pwsh", "powershell", "pwsh.exe", "powershell.exe"]) {
        return None;
    }
    let code = cmd
        .arg_values()
        .skip_while(|v| !matches!(v.to_ascii_lowercase().as_str(), "-c" | "-command" | "/c"))
        .skip(1)
        .collect::<Vec<_>>()
        .join(" ");
    let lower = code.to_ascii_lowercase();
    let downloads = [
        "iwr ",
        "invoke-webrequest",
        "irm ",
        "invoke-restmethod",
        "downloadstring",
        "downloadfile",
        "net.webclient",
        "curl ",
        "wget ",
    ]
    .iter()
    .any(|d| lower.contains(d));
    let evaluates = lower.contains("iex") || lower.contains("invoke-expression");
    (downloads && evaluates).then_some(code)
}

fn operand_is_stdin(cmd: &Command) -> bool {
    let operands = cmd.operands();
    // `deno run -A -`, `bun run -`: the program follows a `run` subcommand.
    let program = match operands.first().and_then(|w| w.value()) {
        Some("run") if cmd.is(&["deno", "bun"]) => operands.get(1),
        _ => operands.first(),
    };
    program
        .and_then(|w| w.value())
        .is_some_and(|v| matches!(v, "-" | "/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0"))
}

/// True when `cmd` runs code from a file operand (a script path or a process substitution).
fn reads_code_from_operand(cmd: &Command) -> bool {
    let Some(base) = cmd.base() else { return false };
    (SHELLS.contains(&base) && !cmd.short_flags().contains('c'))
        || matches!(base, "source" | ".")
        || is_interpreter(base)
            && !cmd
                .option_args()
                .any(|a| matches!(a, "-c" | "-e" | "--eval"))
}

/// For each pipeline and stage, the first downloader and the first decoder in earlier stages,
/// and whether any command is there: one pass, so long pipelines stay linear.
struct Upstream {
    by_pipeline: Vec<Vec<Feeds>>,
}

/// The first downloader, the first decoder, and whether anything runs before a stage.
type Feeds = (Option<usize>, Option<usize>, bool);

impl Upstream {
    fn new(a: &Analysis) -> Self {
        let by_pipeline = a
            .pipelines
            .iter()
            .map(|p| {
                let mut acc = (None, None, false);
                let mut stages = Vec::with_capacity(p.stages.len());
                for stage in &p.stages {
                    stages.push(acc);
                    for &c in stage {
                        let Some(cmd) = a.commands.get(c) else {
                            continue;
                        };
                        acc.2 = true;
                        if acc.0.is_none() && is_downloader(cmd) {
                            acc.0 = Some(c);
                        }
                        if acc.1.is_none() && is_decoder(cmd) {
                            acc.1 = Some(c);
                        }
                    }
                }
                stages
            })
            .collect();
        Upstream { by_pipeline }
    }

    fn before(&self, stdin: &Stdin) -> Feeds {
        match stdin {
            Stdin::Pipe { pipeline, stage } => self
                .by_pipeline
                .get(*pipeline)
                .and_then(|p| p.get(*stage))
                .copied()
                .unwrap_or_default(),
            _ => (None, None, false),
        }
    }
}

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let upstream = Upstream::new(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        if let Some(code) = powershell_download_execute(cmd) {
            out.push(REMOTE_DOWNLOAD_EXECUTE.on(i, cmd, vec![code]));
        }
        let mut feeders: Vec<usize> = Vec::new();
        let mut from_pipe = false;
        if reads_code_from_stdin(cmd) {
            let (downloader, decoder, any) = upstream.before(&cmd.stdin);
            from_pipe = any;
            feeders.extend(downloader);
            feeders.extend(decoder);
            if let Stdin::Process { id } = cmd.stdin {
                feeders.extend(
                    a.process_substitutions
                        .get(id)
                        .map(|p| p.commands.clone())
                        .unwrap_or_default(),
                );
            }
        }
        if reads_code_from_operand(cmd) {
            if let Some(first) = cmd.operands().first() {
                for id in &first.processes {
                    feeders.extend(
                        a.process_substitutions
                            .get(*id)
                            .map(|p| p.commands.clone())
                            .unwrap_or_default(),
                    );
                }
            }
        }
        let feeding: Vec<&Command> = feeders.iter().filter_map(|&f| a.commands.get(f)).collect();
        if let Some(d) = feeding.iter().find(|c| is_downloader(c)) {
            out.push(CURL_PIPE_SHELL.on(i, cmd, vec![d.text()]));
        } else if let Some(d) = feeding.iter().find(|c| is_decoder(c)) {
            out.push(DECODE_EXECUTE.on(i, cmd, vec![d.text()]));
        } else if from_pipe && piped_text(&cmd.stdin, a).is_none() {
            out.push(PIPE_TO_SHELL.on(i, cmd, Vec::new()));
        }
        interpreter_code_substitution(a, i, cmd, out);
    }
    executed_substitutions(a, out);
    download_then_execute(a, out);
}

/// Commands inside executed command substitutions.
fn executed_substitutions(a: &Analysis, out: &mut Vec<Signal>) {
    for (i, cmd) in a.commands.iter().enumerate() {
        if let Some(Substitution::Command { executed: true, .. }) = cmd.context.substitution {
            if is_downloader(cmd) {
                out.push(REMOTE_DOWNLOAD_EXECUTE.on(i, cmd, vec![cmd.text()]));
            } else if is_decoder(cmd) {
                out.push(DECODE_EXECUTE.on(i, cmd, vec![cmd.text()]));
            }
        }
    }
}

/// `python3 -c "$(curl …)"`: an interpreter's inline code comes from a substitution.
fn interpreter_code_substitution(a: &Analysis, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    if !cmd.base().is_some_and(is_interpreter) {
        return;
    }
    let mut words = cmd.args.iter();
    while let Some(w) = words.next() {
        if matches!(w.value(), Some("-c" | "-e" | "-E" | "-r" | "--eval")) {
            let Some(code) = words.next() else { break };
            for id in &code.substitutions {
                let inside = a
                    .command_substitutions
                    .get(*id)
                    .cloned()
                    .unwrap_or_default();
                for c in inside.iter().filter_map(|&j| a.commands.get(j)) {
                    if is_downloader(c) {
                        out.push(REMOTE_DOWNLOAD_EXECUTE.on(i, cmd, vec![c.text()]));
                    } else if is_decoder(c) {
                        out.push(DECODE_EXECUTE.on(i, cmd, vec![c.text()]));
                    }
                }
            }
        }
    }
}

/// Files a downloader writes, by basename.
fn downloaded_files(cmd: &Command) -> Vec<String> {
    let mut files = Vec::new();
    let values: Vec<&str> = cmd.arg_values().collect();
    let mut remote_name = false;
    for (k, v) in values.iter().enumerate() {
        let next = values.get(k + 1).copied();
        match *v {
            "-o" | "--output" | "-O" | "--output-document" if cmd.is(&["wget"]) || *v != "-O" => {
                if let Some(n) = next {
                    files.push(n.to_string());
                }
            }
            "-O" | "--remote-name" | "--remote-name-all" => remote_name = true,
            _ => {
                if let Some(f) = v
                    .strip_prefix("--output-document=")
                    .or_else(|| v.strip_prefix("--output="))
                {
                    files.push(f.to_string());
                } else if let Some(cluster) = v.strip_prefix('-').filter(|c| !c.starts_with('-')) {
                    // `-fsSLo FILE`, `-o FILE`, `-ofile`, `-fsSLO` (remote name).
                    let letter = if cmd.is(&["wget"]) { 'O' } else { 'o' };
                    if let Some((_, rest)) = cluster.split_once(letter) {
                        match (rest.is_empty(), next) {
                            (true, Some(n)) => files.push(n.to_string()),
                            (false, _) => files.push(rest.to_string()),
                            _ => {}
                        }
                    } else if cmd.is(&["curl"]) && cluster.contains('O') {
                        remote_name = true;
                    }
                }
            }
        }
    }
    let urls: Vec<&str> = values
        .iter()
        .copied()
        .filter(|v| v.contains("://"))
        .collect();
    if remote_name || (cmd.is(&["wget"]) && files.is_empty()) {
        for u in urls {
            let name = u
                .split(['?', '#'])
                .next()
                .unwrap_or(u)
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("");
            if !name.is_empty() && !name.contains(':') {
                files.push(name.to_string());
            }
        }
    }
    for r in &cmd.redirects {
        if r.writes() {
            if let Some(v) = r.target.value() {
                files.push(v.to_string());
            }
        }
    }
    files
        .into_iter()
        .map(|f| base_name(&f))
        .filter(|f| !f.is_empty() && f != "-" && f != "null")
        .collect()
}

fn base_name(path: &str) -> String {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .to_string()
}

fn download_then_execute(a: &Analysis, out: &mut Vec<Signal>) {
    let mut written: HashSet<String> = HashSet::new();
    for (i, cmd) in a.commands.iter().enumerate() {
        if !written.is_empty() {
            let runs = |name: &str| written.contains(&base_name(name));
            let by_name = cmd.name.value().is_some_and(|n| n.contains('/') && runs(n));
            let by_operand = cmd.base().is_some_and(|b| {
                SHELLS.contains(&b) || is_interpreter(b) || matches!(b, "source" | ".")
            }) && cmd
                .operands()
                .first()
                .and_then(|w| w.value())
                .is_some_and(runs);
            if by_name || by_operand {
                out.push(DOWNLOAD_THEN_EXECUTE.on(i, cmd, vec![cmd.text()]));
            }
        }
        if is_downloader(cmd) {
            written.extend(downloaded_files(cmd));
        }
    }
}
