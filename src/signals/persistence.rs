//! Persistence: anything that makes code run again later without passing the gate: crontabs and
//! cron files, `at`/`batch` and timer jobs, SSH authorized keys, shell startup files, systemd
//! units and enabled services, init, udev, autostart and login hooks, and `/etc/ld.so.preload`.

use super::clobber::{push_once, under_any, written, Neighbours, WriteKind};
use super::grammar::{parse, Grammar};
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Stdin};

/// The family of every entry declared below.
const FAMILY: Family = Family::Persistence;

spec!(
    CRONTAB_INSTALL,
    "CRONTAB_INSTALL",
    High,
    "installs or edits a crontab",
    "`crontab FILE`, `crontab -` (often at the end of `crontab -l | … | crontab -`), `crontab -e` or a bare `crontab`: jobs that run later, outside the gate. `crontab -l` (list) and `crontab -r` (remove) are not flagged."
);
spec!(
    CRON_FILE_WRITE,
    "CRON_FILE_WRITE",
    High,
    "writes a cron job file",
    "A write into `/etc/crontab`, `/etc/anacrontab`, `/etc/cron.d/`, `/etc/cron.{hourly,daily,weekly,monthly}/` or `/var/spool/cron/`."
);
spec!(
    SCHEDULED_JOB,
    "SCHEDULED_JOB",
    High,
    "schedules a job that runs outside the gate",
    "`at TIME`, `batch`, or `systemd-run --on-calendar|--on-active|--on-boot…`: the job's commands run later without being checked. `at -l`, `atq`, `atrm` are not flagged."
);
spec!(
    AUTHORIZED_KEYS_WRITE,
    "AUTHORIZED_KEYS_WRITE",
    High,
    "adds an SSH authorized key",
    "A write to `authorized_keys`/`authorized_keys2` anywhere (`>>`, `tee -a`, `cp`, an editor), or `ssh-copy-id` to this machine (or an unknown host, or with `-o`/`-F`): a key that logs in later, whatever the gate decides now. `ssh-copy-id` to another host is SSH_KEY_COPY_REMOTE (medium)."
);
spec!(
    SSH_KEY_COPY_REMOTE,
    "SSH_KEY_COPY_REMOTE",
    Medium,
    "installs an SSH key on a remote host",
    "`ssh-copy-id [user@]host` to a host that is not this one: it appends a key to the remote account's `authorized_keys`, which is how keys are meant to be installed. To `localhost`, a loopback address or a host only known at run time, with `-o` or `-F` (an ssh option or configuration can run a local ProxyCommand), it stays AUTHORIZED_KEYS_WRITE (high)."
);
spec!(
    AUTHORIZED_KEYS_DOWNLOAD,
    "AUTHORIZED_KEYS_WRITE",
    Critical,
    "adds a downloaded SSH authorized key",
    "The key written to `authorized_keys` comes from a download (`curl … >> ~/.ssh/authorized_keys`, `curl … | tee -a …`, `wget -O …/authorized_keys`, `echo \"$(curl …)\" >> …`): a remote party chooses who can log in. The classic backdoor step."
);
spec!(
    SHELL_RC_WRITE,
    "SHELL_RC_WRITE",
    High,
    "modifies a shell startup file",
    "A write to `~/.bashrc`, `~/.bash_profile`, `~/.bash_login`, `~/.profile`, `~/.zshrc`, `~/.zprofile`, `~/.zshenv`, `~/.zlogin`, `~/.kshrc`, `~/.cshrc`, `~/.pam_environment`, `~/.ssh/rc`, fish's `config.fish`, `/etc/profile`, `/etc/profile.d/*`, `/etc/bash.bashrc`, `/etc/bashrc`, `/etc/zsh/*`, `/etc/environment`, `/etc/ssh/sshrc`, `/etc/skel/*`: code that every later login runs."
);
spec!(
    SYSTEMD_UNIT_WRITE,
    "SYSTEMD_UNIT_WRITE",
    High,
    "writes a systemd unit",
    "A write under `/etc/systemd/system`, `/etc/systemd/user`, `/lib/systemd/system`, `/usr/lib/systemd/{system,user}`, `/run/systemd/system`, `~/.config/systemd/user` or `~/.local/share/systemd/user`."
);
spec!(
    SERVICE_ENABLE,
    "SERVICE_ENABLE",
    Medium,
    "enables a service at boot",
    "`systemctl enable|reenable|link|preset`, `update-rc.d … defaults|enable`, `chkconfig … on`, `rc-update add`. Medium, not high: it only starts an installed unit at boot, and provisioning does it all the time; writing the unit is SYSTEMD_UNIT_WRITE."
);
spec!(
    BOOT_HOOK_WRITE,
    "BOOT_HOOK_WRITE",
    High,
    "writes a boot, login or event hook script",
    "A write to `/etc/rc.local`, `/etc/rc*.d/`, `/etc/init.d/`, `/etc/init/`, udev rules, XDG autostart (`/etc/xdg/autostart`, `~/.config/autostart`), `/etc/update-motd.d/` (runs as root at every login), `/etc/apt/apt.conf.d/` (APT hooks), NetworkManager dispatcher or ifupdown hooks, `/etc/logrotate.d/`."
);
spec!(
    PRELOAD_WRITE,
    "PRELOAD_WRITE",
    Critical,
    "writes /etc/ld.so.preload",
    "Any write to `/etc/ld.so.preload` (redirection, `tee`, `cp`, `ln`, an editor): the listed library is loaded into every dynamically linked program, setuid ones included. A rootkit's first step; no automation does it."
);

pub static SPECS: &[&Spec] = &[
    &CRONTAB_INSTALL,
    &CRON_FILE_WRITE,
    &SCHEDULED_JOB,
    &AUTHORIZED_KEYS_WRITE,
    &SSH_KEY_COPY_REMOTE,
    &AUTHORIZED_KEYS_DOWNLOAD,
    &SHELL_RC_WRITE,
    &SYSTEMD_UNIT_WRITE,
    &SERVICE_ENABLE,
    &BOOT_HOOK_WRITE,
    &PRELOAD_WRITE,
];

const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "wget2",
    "fetch",
    "aria2c",
    "http",
    "https",
    "xh",
    "lwp-request",
];

const RC_NAMES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".pam_environment",
    ".xinitrc",
    ".xprofile",
    ".xsession",
    ".xsessionrc",
];

const RC_FILES: &[&str] = &[
    "/etc/profile",
    "/etc/bash.bashrc",
    "/etc/bashrc",
    "/etc/zshrc",
    "/etc/zprofile",
    "/etc/zshenv",
    "/etc/zlogin",
    "/etc/environment",
    "/etc/ssh/sshrc",
    "/etc/csh.cshrc",
    "/etc/csh.login",
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let n = Neighbours::of(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        for w in written(&n, i, cmd) {
            if w.kind == WriteKind::Remove {
                continue;
            }
            if let Some(spec) = persistence_spec(&w.path) {
                let spec = if std::ptr::eq(spec, &AUTHORIZED_KEYS_WRITE)
                    && fed_by_download(a, &n, i, cmd)
                {
                    &AUTHORIZED_KEYS_DOWNLOAD
                } else {
                    spec
                };
                if std::ptr::eq(spec, &SHELL_RC_WRITE)
                    && w.kind == WriteKind::Append
                    && appends_settings_to_own_file(a, &n, i, &w.path)
                {
                    continue;
                }
                push_once(out, spec, i, cmd, w.shown.clone());
            }
        }
        commands(i, cmd, out);
    }
}

/// Commands a line appended to one's own startup file may hold and still be everyday setup:
/// settings, and the tools whose output is shell setup (`eval "$(direnv hook bash)"`).
const SETTINGS: &[&str] = &[
    "export", "alias", "unalias", "source", ".", "set", "shopt", "umask", "complete", "bind",
    "eval", "[", "test", "true", ":",
];

/// True when command `i` appends to the user's own startup file (`~/…`, `$HOME/…`) a known
/// payload whose every command is a setting ([`SETTINGS`], a plain assignment, a shell-setup
/// printer): `echo 'export PATH=…' >> ~/.bashrc` is everyday work, not persistence.
fn appends_settings_to_own_file(a: &Analysis, n: &Neighbours, i: usize, path: &str) -> bool {
    if !(path.starts_with("~/") || path.starts_with("$HOME/") || path.starts_with("${HOME}/")) {
        return false;
    }
    let mut payload = Vec::new();
    let mut pending: Vec<usize> = n.wrapped(i).to_vec();
    while let Some(j) = pending.pop() {
        payload.push(j);
        pending.extend_from_slice(n.wrapped(j));
    }
    // An alias body runs only when the alias is typed, and is judged then.
    let in_alias = |c: &Command| {
        c.context
            .via
            .iter()
            .any(|v| matches!(v, crate::ir::Via::Shell(s) if s == "alias"))
    };
    let is_setting = |c: &Command| {
        in_alias(c)
            || (match c.base() {
                Some(b) => {
                    SETTINGS.contains(&b)
                        || crate::programs::SHELL_SETUP_PRINTERS
                            .iter()
                            .any(|(name, _, _)| *name == b)
                }
                None => c.name.raw.is_empty() && !c.assignments.is_empty(),
            })
    };
    !payload.is_empty()
        && payload
            .iter()
            .filter_map(|&j| a.commands.get(j))
            .all(is_setting)
}

fn persistence_spec(path: &str) -> Option<&'static Spec> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let last = parts.last().copied().unwrap_or_default();
    let has_run = |run: &[&str]| parts.windows(run.len()).any(|w| w == run);
    if path == "/etc/ld.so.preload" {
        Some(&PRELOAD_WRITE)
    } else if matches!(last, "authorized_keys" | "authorized_keys2")
        || parts.contains(&"authorized_keys")
    {
        Some(&AUTHORIZED_KEYS_WRITE)
    } else if is_cron_path(path) {
        Some(&CRON_FILE_WRITE)
    } else if RC_NAMES.contains(&last)
        || RC_FILES.contains(&path)
        || has_run(&[".ssh", "rc"]) && last == "rc"
        || has_run(&[".config", "fish"])
        || under_any(path, &["/etc/profile.d", "/etc/zsh", "/etc/skel"])
    {
        Some(&SHELL_RC_WRITE)
    } else if under_any(
        path,
        &[
            "/etc/systemd/system",
            "/etc/systemd/user",
            "/lib/systemd/system",
            "/lib/systemd/user",
            "/usr/lib/systemd/system",
            "/usr/lib/systemd/user",
            "/run/systemd/system",
        ],
    ) || has_run(&[".config", "systemd", "user"])
        || has_run(&[".local", "share", "systemd", "user"])
    {
        Some(&SYSTEMD_UNIT_WRITE)
    } else if is_boot_hook(path) || has_run(&[".config", "autostart"]) {
        Some(&BOOT_HOOK_WRITE)
    } else {
        None
    }
}

fn is_cron_path(path: &str) -> bool {
    matches!(path, "/etc/crontab" | "/etc/anacrontab")
        || under_any(
            path,
            &[
                "/etc/cron.d",
                "/etc/cron.hourly",
                "/etc/cron.daily",
                "/etc/cron.weekly",
                "/etc/cron.monthly",
                "/etc/cron.yearly",
                "/var/spool/cron",
            ],
        )
}

fn is_boot_hook(path: &str) -> bool {
    let rc_dir = path
        .strip_prefix("/etc/rc")
        .is_some_and(|rest| rest.split('/').next().is_some_and(|d| d.ends_with(".d")));
    path == "/etc/rc.local"
        || rc_dir
        || under_any(
            path,
            &[
                "/etc/init.d",
                "/etc/init",
                "/etc/udev/rules.d",
                "/lib/udev/rules.d",
                "/usr/lib/udev/rules.d",
                "/etc/xdg/autostart",
                "/etc/update-motd.d",
                "/etc/apt/apt.conf.d",
                "/etc/NetworkManager/dispatcher.d",
                "/etc/network/if-up.d",
                "/etc/network/if-pre-up.d",
                "/etc/logrotate.d",
                "/etc/X11/Xsession.d",
            ],
        )
}

/// True when what `cmd` writes comes from a download: it is a downloader, a downloader feeds
/// its stdin (pipe or process substitution), or an argument's substitution downloads.
fn fed_by_download(a: &Analysis, n: &Neighbours, i: usize, cmd: &Command) -> bool {
    let is_download = |j: &usize| a.commands.get(*j).is_some_and(|c| c.is(DOWNLOADERS));
    if cmd.is(DOWNLOADERS) || a.upstream(cmd).iter().any(is_download) {
        return true;
    }
    if let Stdin::Process { id } = cmd.stdin {
        if a.process_substitutions
            .get(id)
            .is_some_and(|p| p.commands.iter().any(is_download))
        {
            return true;
        }
    }
    let from_substitution = cmd
        .args
        .iter()
        .flat_map(|w| w.substitutions.iter())
        .any(|id| {
            a.command_substitutions
                .get(*id)
                .is_some_and(|cmds| cmds.iter().any(is_download))
        });
    from_substitution || n.wrapped(i).iter().any(is_download)
}

/// Persistence by command rather than by path.
fn commands(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let Some(base) = cmd.base() else { return };
    let subcommand = cmd.operands().first().and_then(|w| w.value());
    match base {
        "crontab" if !cmd.has_any_arg(&["-l", "-r", "--list", "--remove"]) => {
            push_once(out, &CRONTAB_INSTALL, i, cmd, cmd.text())
        }
        "at" | "batch" if !cmd.has_any_arg(&["-l", "-r", "-d", "-c", "-V", "--help"]) => {
            push_once(out, &SCHEDULED_JOB, i, cmd, cmd.text())
        }
        "systemd-run" if cmd.option_args().any(|o| o.starts_with("--on-")) => {
            push_once(out, &SCHEDULED_JOB, i, cmd, cmd.text())
        }
        "ssh-copy-id" if copies_key_elsewhere(cmd) => {
            push_once(out, &SSH_KEY_COPY_REMOTE, i, cmd, cmd.text())
        }
        "ssh-copy-id" => push_once(out, &AUTHORIZED_KEYS_WRITE, i, cmd, cmd.text()),
        "systemctl" if matches!(subcommand, Some("enable" | "reenable" | "link" | "preset")) => {
            push_once(out, &SERVICE_ENABLE, i, cmd, cmd.text())
        }
        "update-rc.d" if cmd.has_any_arg(&["defaults", "enable"]) => {
            push_once(out, &SERVICE_ENABLE, i, cmd, cmd.text())
        }
        "chkconfig" if cmd.has_any_arg(&["on", "--add"]) => {
            push_once(out, &SERVICE_ENABLE, i, cmd, cmd.text())
        }
        "rc-update" if subcommand == Some("add") => {
            push_once(out, &SERVICE_ENABLE, i, cmd, cmd.text())
        }
        _ => {}
    }
}

/// ssh-copy-id's options (`-i` takes its key file as the next word).
const SSH_COPY_ID: Grammar = Grammar {
    short_values: "ipFot",
    longs: &[],
    options_end_at_operand: false,
};

/// `ssh-copy-id` to one static host that is not this machine, without `-o`/`-F`.
fn copies_key_elsewhere(cmd: &Command) -> bool {
    let parsed = parse(&cmd.args, &SSH_COPY_ID);
    let host = match parsed.operands.as_slice() {
        [only] => only.value(),
        _ => None,
    };
    let host = host.map(|h| h.rsplit('@').next().unwrap_or(h));
    !parsed.dynamic && !parsed.has_any(&["-o", "-F"]) && host.is_some_and(|h| !is_loopback(h))
}

/// This machine by a name or address every host has.
fn is_loopback(host: &str) -> bool {
    let h = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    h.is_empty()
        || matches!(
            h.as_str(),
            "localhost"
                | "localhost.localdomain"
                | "ip6-localhost"
                | "ip6-loopback"
                | "::1"
                | "0"
                | "0.0.0.0"
                | "::"
        )
        || h.starts_with("127.")
        || h.ends_with(".localhost")
        || h.starts_with("0:0:0:0:0:0:0:1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn persistence_paths() {
        assert!(persistence_spec("/etc/systemd/system/x.service").is_some());
        assert!(persistence_spec("/etc/rc3.d/S99x").is_some());
        assert!(persistence_spec("~/.ssh/authorized_keys").is_some());
        assert!(persistence_spec("/etc/rc.conf").is_none());
        assert!(persistence_spec("/tmp/bashrc").is_none());
    }
}
