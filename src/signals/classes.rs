//! Command classes from the OpenHuman reference (read, write, network, install, destructive),
//! one per command and carried to the policy as `command.classes`, plus `hidden_execution`.
//! Unknown commands are `write` (fail closed); a destructive or critical signal makes `destructive`.

use super::clobber::Neighbours;
use super::{Family, Severity, Signal};
use crate::ir::{Analysis, Command, Stdin};
use crate::programs::SHELLS;
use serde::Serialize;

/// What a command does to the host, from least to most consequential.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandClass {
    Read,
    Write,
    Network,
    Install,
    Destructive,
}

impl CommandClass {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Network => "network",
            Self::Install => "install",
            Self::Destructive => "destructive",
        }
    }
}

/// Commands that only inspect the system or the shell's own state.
const READ_ONLY: &[&str] = &[
    "ls",
    "ll",
    "dir",
    "cat",
    "tac",
    "nl",
    "head",
    "tail",
    "less",
    "more",
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "rg",
    "ag",
    "ack",
    "wc",
    "ps",
    "pgrep",
    "top",
    "htop",
    "df",
    "du",
    "free",
    "uptime",
    "echo",
    "printf",
    "pwd",
    "whoami",
    "id",
    "groups",
    "stat",
    "file",
    "which",
    "whereis",
    "type",
    "uname",
    "arch",
    "nproc",
    "tty",
    "lsb_release",
    "true",
    "false",
    "test",
    "[",
    "[[",
    "cut",
    "tr",
    "diff",
    "cmp",
    "comm",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "b2sum",
    "lsblk",
    "lscpu",
    "lsof",
    "lsmod",
    "lspci",
    "lsusb",
    "ss",
    "netstat",
    "last",
    "lastlog",
    "w",
    "who",
    "getent",
    "jq",
    "xxd",
    "od",
    "hexdump",
    "strings",
    "base64",
    "base32",
    "column",
    "fold",
    "fmt",
    "paste",
    "join",
    "seq",
    "sleep",
    "tree",
    "locate",
    "getfacl",
    "getcap",
    "lsattr",
    "printenv",
    "man",
    "info",
    "help",
    "apropos",
    "whatis",
    "cal",
    "bc",
    "expr",
    "nslookup-offline",
    "env",
    "awk",
    "gawk",
    "mawk",
    "sed",
    "sort",
    "uniq",
    "view",
    "zcat",
    "bzcat",
    "xzcat",
    "zless",
    "vmstat",
    "iostat",
    "mpstat",
    "pidof",
    "pstree",
    "blkid",
    "findmnt",
    "timedatectl",
    "hostnamectl",
    "loginctl",
    "journalctl",
    "dmesg",
    "yes",
    "cd",
    "pushd",
    "popd",
    "dirs",
    ":",
    "set",
    "shopt",
    "export",
    "local",
    "declare",
    "typeset",
    "readonly",
    "unset",
    "alias",
    "unalias",
    "read",
    "shift",
    "return",
    "exit",
    "logout",
    "break",
    "continue",
    "wait",
    "getopts",
    "hash",
    "jobs",
    "fg",
    "bg",
    "umask",
    "ulimit",
    "times",
    "history",
    "command",
    "compgen",
    "complete",
    "tput",
    "stty",
    "clear",
    "reset",
    "find",
    "ip",
    "mount",
    "hostname",
    "date",
];

const NETWORK: &[&str] = &[
    "curl",
    "wget",
    "wget2",
    "ssh",
    "scp",
    "sftp",
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "socat",
    "telnet",
    "dig",
    "nslookup",
    "host",
    "ping",
    "ping6",
    "traceroute",
    "tracepath",
    "mtr",
    "whois",
    "ftp",
    "tftp",
    "lftp",
    "http",
    "https",
    "xh",
    "aria2c",
    "gsutil",
    "rclone",
    "s3cmd",
    "aws",
    "gcloud",
    "az",
    "doctl",
    "mail",
    "mailx",
    "sendmail",
    "mutt",
    "ssh-copy-id",
    "sshpass",
    "nmap",
    "arping",
    "openssl",
];

const DESTRUCTIVE: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "srm",
    "wipefs",
    "dd",
    "mkswap",
    "mke2fs",
    "fdisk",
    "sfdisk",
    "sgdisk",
    "parted",
    "gdisk",
    "cfdisk",
    "blkdiscard",
    "shutdown",
    "reboot",
    "halt",
    "poweroff",
    "kill",
    "pkill",
    "killall",
    "truncate",
    "userdel",
    "groupdel",
    "deluser",
    "delgroup",
    "swapoff",
    "umount",
];

/// Wrappers whose own class is the class of what they run (they contribute none).
const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "runuser",
    "pkexec",
    "env",
    "command",
    "builtin",
    "exec",
    "nohup",
    "nice",
    "ionice",
    "timeout",
    "time",
    "stdbuf",
    "setsid",
    "chroot",
    "chrt",
    "taskset",
    "flock",
    "xargs",
    "parallel",
    "watch",
    "eval",
    "busybox",
    "unbuffer",
    "fakeroot",
    "torsocks",
    "proxychains",
    "proxychains4",
    "sudo-rs",
    "sshpass",
    "script",
    "coproc",
    "strace",
    "ltrace",
    "unshare",
    "nsenter",
    "systemd-run",
    "firejail",
    "bwrap",
    "valgrind",
];

/// The class of one command on its own (no signals, no neighbours).
pub fn classify(cmd: &Command) -> CommandClass {
    let Some(base) = cmd.base() else {
        return CommandClass::Write;
    };
    let class = by_subcommand(cmd, base).unwrap_or_else(|| by_name(cmd, base));
    if class == CommandClass::Read && writes_a_file(cmd) {
        CommandClass::Write
    } else {
        class
    }
}

fn by_name(cmd: &Command, base: &str) -> CommandClass {
    if base.starts_with("mkfs") || DESTRUCTIVE.contains(&base) {
        CommandClass::Destructive
    } else if NETWORK.contains(&base) {
        CommandClass::Network
    } else if READ_ONLY.contains(&base) && read_only_use(cmd, base) {
        CommandClass::Read
    } else {
        CommandClass::Write
    }
}

/// Read-only commands that write or act with some arguments.
fn read_only_use(cmd: &Command, base: &str) -> bool {
    let has = |t: &[&str]| cmd.has_any_arg(t);
    match base {
        "sed" => !cmd
            .option_args()
            .any(|o| o.starts_with("--in-place") || !o.starts_with("--") && o.contains('i')),
        "sort" => !cmd
            .option_args()
            .any(|o| o.starts_with("-o") || o.starts_with("--output")),
        "awk" | "gawk" | "mawk" => !has(&["-i", "inplace"]),
        "date" => !cmd
            .option_args()
            .any(|o| o.starts_with("-s") || o.starts_with("--set")),
        "hostname" | "mount" => cmd.operands().is_empty(),
        "history" => !cmd.short_flags().contains(['c', 'd', 'w']),
        "dmesg" => !cmd.short_flags().contains(['c', 'C', 'D']),
        "journalctl" => !cmd
            .option_args()
            .any(|o| o.starts_with("--vacuum") || o == "--rotate" || o == "--flush"),
        "ip" => !has(&[
            "add", "del", "delete", "set", "flush", "change", "replace", "append",
        ]),
        "env" | "command" => {
            cmd.operands().is_empty() || base == "command" && cmd.short_flags().contains(['v', 'V'])
        }
        _ => true,
    }
}

/// A writing redirection to something other than `/dev/null` or a descriptor.
fn writes_a_file(cmd: &Command) -> bool {
    cmd.redirects.iter().any(|r| {
        r.writes()
            && !r.target.value().is_some_and(|t| {
                matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty")
            })
    })
}

/// Classes by subcommand for multi-purpose tools; `None` when the tool is not one of them.
fn by_subcommand(cmd: &Command, base: &str) -> Option<CommandClass> {
    use CommandClass::*;
    // A catalogued tool's subcommand comes after its global options (`git -C DIR push`).
    let words: Vec<&str> = match crate::programs::tools::tool(base) {
        Some(tool) => crate::programs::tools::subcommand(tool, &cmd.arg_words())
            .into_iter()
            .flatten()
            .collect(),
        None => cmd.arg_values().filter(|v| !v.starts_with('-')).collect(),
    };
    let sub = words.first().copied().unwrap_or_default();
    let flag = |letters: &str| cmd.short_flags().contains(|c| letters.contains(c));
    Some(match base {
        "git" => match sub {
            "status" | "log" | "diff" | "show" | "blame" | "grep" | "describe" | "rev-parse"
            | "ls-files" | "ls-tree" | "shortlog" | "reflog" | "cat-file" | "help" | "version"
            | "" => Read,
            "branch" | "tag" | "remote" | "stash" if words.len() == 1 => Read,
            "config" if cmd.has_any_arg(&["--get", "--list", "-l", "--get-all"]) => Read,
            "push" if flag("f") || cmd.has_any_arg(&["--force", "--delete", "--mirror"]) => {
                Destructive
            }
            "clone" | "fetch" | "pull" | "push" | "ls-remote" | "submodule" => Network,
            "clean" => Destructive,
            "reset" if cmd.has_arg("--hard") => Destructive,
            _ => Write,
        },
        "docker" | "podman" | "nerdctl" => match sub {
            "ps" | "images" | "inspect" | "logs" | "version" | "info" | "stats" | "top"
            | "history" | "events" => Read,
            "pull" | "push" | "login" | "search" => Network,
            "rm" | "rmi" | "kill" | "prune" => Destructive,
            "system" | "volume" | "image" | "container" | "network" | "builder"
                if words.get(1).is_some_and(|w| matches!(*w, "prune" | "rm")) =>
            {
                Destructive
            }
            "exec" => Write,
            _ => Write,
        },
        "kubectl" | "oc" => match sub {
            "get" | "describe" | "logs" | "top" | "explain" | "version" | "api-resources"
            | "api-versions" | "cluster-info" | "auth" | "diff" => Read,
            "config"
                if words
                    .get(1)
                    .is_some_and(|w| matches!(*w, "view" | "get-contexts" | "current-context")) =>
            {
                Read
            }
            "delete" | "drain" => Destructive,
            _ => Write,
        },
        "helm" => match sub {
            "list" | "ls" | "status" | "get" | "history" | "show" | "search" | "template"
            | "version" => Read,
            "install" | "upgrade" => Install,
            "uninstall" | "delete" | "del" | "un" | "rollback" => Destructive,
            "repo" | "pull" | "fetch" => Network,
            _ => Write,
        },
        "systemctl" | "service" => match words
            .get(usize::from(base == "service"))
            .copied()
            .unwrap_or_default()
        {
            "status" | "is-active" | "is-enabled" | "is-failed" | "list-units"
            | "list-unit-files" | "list-timers" | "show" | "cat" | "" => Read,
            "stop" | "disable" | "mask" | "kill" | "halt" | "poweroff" | "reboot" | "isolate" => {
                Destructive
            }
            _ => Write,
        },
        "apt" | "apt-get" | "aptitude" | "yum" | "dnf" | "microdnf" | "zypper" | "apk" | "snap"
        | "flatpak" | "brew" | "port" | "pacman" | "yay" | "pkg" | "conda" | "mamba" => {
            package_manager(cmd, base, sub)
        }
        "pip" | "pip3" | "pipx" | "uv" | "poetry" | "gem" | "npm" | "pnpm" | "yarn" | "bun"
        | "cargo" | "go" | "composer" => match sub {
            "install" | "i" | "ci" | "add" | "get" | "require" | "sync" => Install,
            "uninstall" | "remove" | "rm" | "un" | "r" => Destructive,
            "list" | "ls" | "show" | "freeze" | "check" | "view" | "outdated" | "info"
            | "search" | "version" | "env" | "why" => Read,
            _ => Write,
        },
        "dpkg" | "rpm" => {
            if flag("iU") || cmd.has_any_arg(&["--install", "--upgrade"]) {
                Install
            } else if flag("rPe") || cmd.has_any_arg(&["--remove", "--purge", "--erase"]) {
                Destructive
            } else if flag("lLsqSV") {
                Read
            } else {
                Write
            }
        }
        "make" | "gmake" | "ninja" if words.contains(&"install") => Install,
        "rsync" => {
            if cmd.arg_values().any(super::clobber::is_remote) {
                Network
            } else {
                Write
            }
        }
        "crontab" if cmd.has_any_arg(&["-l", "--list"]) => Read,
        "crontab" if cmd.has_any_arg(&["-r", "--remove"]) => Destructive,
        "iptables" | "ip6tables" | "nft" => {
            if flag("LS") || cmd.has_any_arg(&["list", "--list"]) {
                Read
            } else if flag("FXD") || cmd.has_any_arg(&["flush", "--flush", "delete"]) {
                Destructive
            } else {
                Write
            }
        }
        "terraform" | "tofu" | "pulumi" => match sub {
            "plan" | "show" | "output" | "validate" | "version" | "graph" => Read,
            "state" if words.get(1) == Some(&"list") => Read,
            "destroy" => Destructive,
            "init" | "get" => Network,
            _ => Write,
        },
        "find" => {
            if cmd.has_arg("-delete") {
                Destructive
            } else if cmd.has_any_arg(&["-fprint", "-fprint0", "-fprintf", "-fls"]) {
                Write
            } else {
                Read
            }
        }
        "init" | "telinit" if words.iter().any(|w| matches!(*w, "0" | "6")) => Destructive,
        _ => return None,
    })
}

fn package_manager(cmd: &Command, base: &str, sub: &str) -> CommandClass {
    use CommandClass::*;
    if matches!(base, "pacman" | "yay") {
        let flags = cmd.short_flags();
        return if flags.contains('R') {
            Destructive
        } else if flags.contains('S') && !flags.contains(['s', 'i', 'l']) || flags.contains('U') {
            Install
        } else {
            Read
        };
    }
    let refresh_only = matches!(
        base,
        "apt" | "apt-get" | "aptitude" | "apk" | "brew" | "port"
    );
    match sub {
        "update" if refresh_only => Network,
        "install" | "in" | "reinstall" | "upgrade" | "dist-upgrade" | "full-upgrade" | "add"
        | "localinstall" | "groupinstall" | "update" | "refresh" => Install,
        "remove" | "purge" | "erase" | "autoremove" | "del" | "uninstall" | "rm" => Destructive,
        "list" | "search" | "show" | "info" | "policy" | "madison" | "depends" | "rdepends"
        | "list-installed" | "history" | "check-update" | "provides" | "whatprovides" | "" => Read,
        _ => Write,
    }
}

/// True for a command that only runs another command and has no class of its own: a wrapper
/// that wraps something here, or a shell running its `-c` string.
fn only_wraps(n: &Neighbours, i: usize, cmd: &Command) -> bool {
    !n.wrapped(i).is_empty()
        && (cmd.is(WRAPPERS) || cmd.base().is_some_and(|b| SHELLS.contains(&b)))
}

/// A shell or interpreter that runs what a downloader pipes into it (`curl … | sh`): it
/// installs remote code, so it is `install`.
fn runs_download(a: &Analysis, cmd: &Command) -> bool {
    let is_shell = cmd
        .base()
        .is_some_and(|b| SHELLS.contains(&b) || crate::programs::is_interpreter(b));
    let downloader = |j: &usize| {
        a.commands
            .get(*j)
            .is_some_and(|c| c.is(&["curl", "wget", "wget2", "fetch", "aria2c"]))
    };
    is_shell
        && !cmd.short_flags().contains('c')
        && (matches!(cmd.stdin, Stdin::Pipe { .. }) && a.upstream(cmd).iter().any(downloader)
            || cmd.args.iter().flat_map(|w| w.processes.iter()).any(|id| {
                a.process_substitutions
                    .get(*id)
                    .is_some_and(|p| p.commands.iter().any(downloader))
            }))
}

/// The class of command `i` in context: `install` for a shell running a download (`curl … | sh`
/// is network + install), else `destructive` when a destructive- or databases-family or critical
/// signal was raised on it (`signals` are those raised on `i`), else its own class.
fn class_in_context(
    a: &Analysis,
    n: &Neighbours,
    i: usize,
    signals: &[&Signal],
) -> Option<CommandClass> {
    let cmd = a.commands.get(i)?;
    if only_wraps(n, i, cmd) || cmd.name.raw.is_empty() && cmd.name.value().is_none() {
        return None;
    }
    let flagged = signals.iter().any(|s| {
        matches!(s.spec.family, Family::Destructive | Family::Databases)
            || s.severity() == Severity::Critical
    });
    Some(if runs_download(a, cmd) {
        CommandClass::Install
    } else if flagged {
        CommandClass::Destructive
    } else {
        classify(cmd)
    })
}

/// The sorted, deduplicated classes of every command, given the signals already raised.
pub fn classes_with(a: &Analysis, signals: &[Signal]) -> Vec<CommandClass> {
    let n = Neighbours::of(a);
    let mut by_command: Vec<Vec<&Signal>> = vec![Vec::new(); a.commands.len()];
    for s in signals {
        if let Some(list) = by_command.get_mut(s.at) {
            list.push(s);
        }
    }
    let mut out: Vec<CommandClass> = by_command
        .iter()
        .enumerate()
        .filter_map(|(i, on)| class_in_context(a, &n, i, on))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The sorted, deduplicated classes of every command in the analysis (empty for no commands).
pub fn classes(a: &Analysis) -> Vec<CommandClass> {
    classes_with(a, &super::detect(a))
}

/// True when something runs that the command line does not show directly: a command or
/// process substitution, or a command sent to the background.
pub fn hidden_execution(a: &Analysis) -> bool {
    !a.command_substitutions.is_empty()
        || !a.process_substitutions.is_empty()
        || a.commands.iter().any(|c| c.context.background)
}
