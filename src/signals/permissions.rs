//! Permission changes that open a system: setuid/setgid bits, world-writable system paths,
//! sudoers modes, file capabilities, immutable flags removed, accounts given uid 0, an admin
//! group or no password, and sudoers/account-database editors.

use super::clobber::{operands_skipping, option_values, path_value, push_once, under_any};
use super::paths::{is_block_device, is_permission_system_path};
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Word};
use crate::programs::is_interpreter;
use crate::programs::SHELLS;
use std::collections::HashMap;

/// The family of every entry declared below.
const FAMILY: Family = Family::Permissions;

spec!(
    SETUID_BIT,
    "SETUID_BIT",
    High,
    "sets the setuid or setgid bit",
    "`chmod` (or `install -m`) with `u+s`, `g+s`, `+s`, `4755`, `2755`, `6755`… on a file that is not a shell, an interpreter or a system binary. The file then runs with its owner's (often root's) rights."
);
spec!(
    SETUID_SHELL,
    "SETUID_BIT",
    Critical,
    "setuid or setgid on a shell, interpreter or system binary",
    "The setuid/setgid bit on a shell, an interpreter, a GTFOBins file-access binary (`find`, `cp`, `vim`, `tar`, `env`…), anything under `/bin`, `/sbin`, `/usr/bin`, `/usr/sbin`, a file the same text made root-owned (`chown root x && chmod u+s x`) or a copy of one of those (`cp /bin/bash /tmp/.sh && chmod u+s /tmp/.sh`, `install -m 4755 /bin/sh X`): an instant root shell for any user."
);
spec!(
    WORLD_WRITABLE_SYSTEM_PATH,
    "WORLD_WRITABLE_SYSTEM_PATH",
    Critical,
    "makes a system path world-writable",
    "A non-recursive `chmod` that grants write to others (`777`, `666`, `o+w`, `a+w`, `o=rwx`) on `/`, a system directory, a file under `/etc`, `/bin`, `/sbin`, `/usr`, `/lib*`, `/boot`, `/root`, `/var/spool`, `/var/lib`, or a block device: any user can then replace what root runs. Data directories (`/var/www`, `/srv`, `/opt/<app>`, `/home/<user>`) are not system paths here (WORLD_WRITABLE). Recursive changes are CHMOD_RECURSIVE_SYSTEM_PATH."
);
spec!(
    WORLD_WRITABLE,
    "WORLD_WRITABLE",
    Low,
    "makes a file world-writable",
    "A `chmod` granting write to others on a path that is not a system path (`chmod 777 build/`). Rarely needed; left to policy."
);
spec!(
    SUDOERS_PERMISSION_CHANGE,
    "SUDOERS_PERMISSION_CHANGE",
    High,
    "changes sudoers ownership or mode",
    "`chmod`, `chown`, `chgrp` or `setfacl` on `/etc/sudoers` or `/etc/sudoers.d/*`, except the correct `0440`/`0400` mode and `root`/`root:root` ownership that provisioning sets after writing a drop-in."
);
spec!(
    CAPABILITY_GRANT,
    "CAPABILITY_GRANT",
    High,
    "grants a privileged file capability",
    "`setcap` granting `cap_setuid`, `cap_setgid`, `cap_dac_override`, `cap_dac_read_search`, `cap_sys_admin`, `cap_sys_ptrace`, `cap_sys_module`, `cap_chown`, `cap_fowner` or all capabilities (`=ep`). `cap_net_bind_service`/`cap_net_raw` and `setcap -r` are not flagged."
);
spec!(
    CAPABILITY_GRANT_SHELL,
    "CAPABILITY_GRANT",
    Critical,
    "grants a privileged capability to a shell or interpreter",
    "A privileged capability (see above) on a shell, an interpreter or a GTFOBins binary: `setcap cap_setuid+ep /usr/bin/python3` is a root shell for everyone."
);
spec!(
    IMMUTABLE_FLAG_REMOVED,
    "IMMUTABLE_FLAG_REMOVED",
    High,
    "removes the immutable or append-only flag from a system file",
    "`chattr -i` or `chattr -a` on a system path (`/etc/…`, `/bin`, `/usr`, `/boot`, `authorized_keys`): the usual step before tampering with a file an administrator locked."
);
spec!(
    ADMIN_GROUP_GRANT,
    "ADMIN_GROUP_GRANT",
    High,
    "adds a user to an administrative group",
    "`usermod -aG`/`-G`, `useradd -G`, `gpasswd -a`, `adduser USER GROUP` or `addgroup USER GROUP` with `sudo`, `wheel`, `admin`, `root`, `adm`, `docker`, `lxd`, `libvirt` or `disk`: each is root or close to it."
);
spec!(
    UID_ZERO_ACCOUNT,
    "UID_ZERO_ACCOUNT",
    Critical,
    "creates or changes an account to uid 0",
    "`useradd`/`adduser`/`usermod` with `-u 0`/`--uid 0` (usually with `-o`, non-unique): a second root account. No automation does this."
);
spec!(
    PASSWORD_REMOVED,
    "PASSWORD_REMOVED",
    High,
    "removes an account's password",
    "`passwd -d USER` or `usermod -p ''`: the account may then log in without a password (with PAM `nullok`)."
);
spec!(
    ROOT_PASSWORD_REMOVED,
    "PASSWORD_REMOVED",
    Critical,
    "removes the root password",
    "`passwd -d root` (or `passwd -d` run as root with no user) or `usermod -p '' root`: password-less root."
);
spec!(
    SUDOERS_EDIT,
    "SUDOERS_EDIT",
    Medium,
    "edits sudoers or the account database",
    "`visudo` (not `-c`), `vipw`, `vigr`. These are the sanctioned, syntax-checked ways to change who may become root, so they are not critical; but they still grant privilege, and they start an editor (see SHELL_ESCAPE_PROGRAM)."
);

pub static SPECS: &[&Spec] = &[
    &SETUID_BIT,
    &SETUID_SHELL,
    &WORLD_WRITABLE_SYSTEM_PATH,
    &WORLD_WRITABLE,
    &SUDOERS_PERMISSION_CHANGE,
    &CAPABILITY_GRANT,
    &CAPABILITY_GRANT_SHELL,
    &IMMUTABLE_FLAG_REMOVED,
    &ADMIN_GROUP_GRANT,
    &UID_ZERO_ACCOUNT,
    &PASSWORD_REMOVED,
    &ROOT_PASSWORD_REMOVED,
    &SUDOERS_EDIT,
];

/// File-access and spawn-anything binaries whose setuid copy is a root shell (GTFOBins).
const GTFO_BINARIES: &[&str] = &[
    "find", "cp", "mv", "vim", "vi", "nvim", "nano", "less", "more", "awk", "gawk", "env", "tee",
    "dd", "tar", "zip", "nmap", "busybox", "socat", "nc", "ncat", "rsync", "make", "git", "ed",
    "sed", "xargs", "time", "timeout", "nice", "strace", "gdb", "docker", "chmod", "chown",
    "install", "cat", "base64", "xxd", "openssl", "sudo", "su", "screen", "tmux", "expect",
    "script", "man", "ssh",
];

const ADMIN_GROUPS: &[&str] = &[
    "sudo", "wheel", "admin", "root", "adm", "docker", "lxd", "libvirt", "disk", "shadow",
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let owned = root_owned_paths(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        let Some(base) = cmd.base() else { continue };
        match base {
            "chmod" => chmod(&owned, i, cmd, out),
            "install" => setuid_install(&owned, i, cmd, out),
            "chown" | "chgrp" | "setfacl" => sudoers_owner(i, cmd, out),
            "setcap" => setcap(i, cmd, out),
            "chattr" => chattr(i, cmd, out),
            "usermod" | "useradd" | "adduser" | "gpasswd" | "addgroup" => accounts(i, cmd, out),
            "passwd" => passwd(i, cmd, out),
            "visudo" if !cmd.has_flag('c', "--check") => {
                push_once(out, &SUDOERS_EDIT, i, cmd, cmd.text())
            }
            "vipw" | "vigr" => push_once(out, &SUDOERS_EDIT, i, cmd, cmd.text()),
            _ => {}
        }
    }
}

/// The mode words of `chmod`: every operand but the files (the first one, unless `--reference`).
fn chmod_parts(cmd: &Command) -> Option<(&str, Vec<&Word>)> {
    let operands: Vec<&Word> = cmd
        .args
        .iter()
        .filter(|w| w.value().is_none_or(|v| !is_chmod_option(v)))
        .collect();
    let (mode, files) = operands.split_first()?;
    Some((mode.value()?, files.to_vec()))
}

/// `chmod -R`, `--verbose`; `-w`/`-x`/`-rwx` are modes, not options.
fn is_chmod_option(v: &str) -> bool {
    v.starts_with("--")
        || v.len() > 1 && v.starts_with('-') && v[1..].chars().all(|c| "RvcfH LP".contains(c))
}

/// Octal modes with a setuid/setgid bit, symbolic modes adding `s`.
fn sets_setuid(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) {
        let digits = mode.trim_start_matches('0');
        return mode.len() >= 4 && digits.len() == 4 && digits.starts_with(['2', '4', '6']);
    }
    mode.split(',').any(|clause| {
        clause
            .split_once(['+', '='])
            .is_some_and(|(who, perms)| !who.contains('o') && perms.contains('s'))
    })
}

/// Octal modes whose last digit grants write, symbolic modes giving `o`/`a`/`ugo` write.
fn grants_world_write(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) {
        return mode
            .chars()
            .last()
            .and_then(|c| c.to_digit(8))
            .is_some_and(|d| d & 2 != 0);
    }
    mode.split(',').any(|clause| {
        clause.split_once(['+', '=']).is_some_and(|(who, perms)| {
            (who.contains('o') || who.contains('a')) && perms.contains('w')
        })
    })
}

/// A path under a system tree, a system directory itself (data directories such as `/var/www`
/// and `/srv` are not), or a block device.
fn is_system_file(path: &str) -> bool {
    is_permission_system_path(path)
        || is_block_device(path)
        || under_any(
            path,
            &[
                "/etc",
                "/bin",
                "/sbin",
                "/usr/bin",
                "/usr/sbin",
                "/usr/lib",
                "/usr/libexec",
                "/usr/share",
                "/lib",
                "/lib32",
                "/lib64",
                "/boot",
                "/root",
                "/var/spool",
                "/var/lib",
                "/usr/local/bin",
                "/usr/local/sbin",
            ],
        )
}

/// A shell, an interpreter, a GTFOBins binary or anything in a system binary directory.
fn is_dangerous_binary(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    SHELLS.contains(&name)
        || is_interpreter(name)
        || GTFO_BINARIES.contains(&name)
        || under_any(path, &["/bin", "/sbin", "/usr/bin", "/usr/sbin"])
}

/// For each path some command makes owned by root (`chown root x`, `chown 0:0 x`) or makes a
/// copy of a shell, interpreter or system binary, the index of the first such command.
fn root_owned_paths(a: &Analysis) -> HashMap<String, usize> {
    let mut owned = HashMap::new();
    for (i, c) in a
        .commands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is(&["chown"]))
    {
        let Some((owner, files)) = c
            .operands()
            .split_first()
            .map(|(o, f)| (o.value(), f.to_vec()))
        else {
            continue;
        };
        if owner.is_some_and(|o| matches!(o.split([':', '.']).next(), Some("root" | "0"))) {
            for path in files.iter().filter_map(|f| path_value(f)) {
                owned.entry(path).or_insert(i);
            }
        }
    }
    // A copy of a shell, interpreter or system binary (`cp /bin/bash /tmp/.sh`, `install
    // /bin/sh X`) is that binary: setuid on it is the same root shell.
    for (i, c) in a.commands.iter().enumerate() {
        if !c.is(&["cp", "install"]) {
            continue;
        }
        let operands = operands_skipping(
            c,
            "mogtS",
            &["mode", "owner", "group", "target-directory", "suffix"],
        );
        if let [sources @ .., dest] = operands.as_slice() {
            let copies_binary = sources
                .iter()
                .any(|w| path_value(w).is_some_and(|p| is_dangerous_binary(&p)));
            if copies_binary {
                if let Some(path) = path_value(dest) {
                    owned.entry(path).or_insert(i);
                }
            }
        }
    }
    owned
}

fn chmod(owned: &HashMap<String, usize>, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let Some((mode, files)) = chmod_parts(cmd) else {
        return;
    };
    let recursive = cmd.has_flag('R', "--recursive");
    for f in files {
        let Some(path) = path_value(f) else {
            if sets_setuid(mode) {
                push_once(out, &SETUID_BIT, i, cmd, f.shown.clone());
            }
            continue;
        };
        if sets_setuid(mode) {
            setuid_signal(owned, i, cmd, &path, &f.shown, out);
        }
        if grants_world_write(mode) {
            if !is_system_file(&path) {
                push_once(out, &WORLD_WRITABLE, i, cmd, f.shown.clone());
            } else if !recursive {
                push_once(out, &WORLD_WRITABLE_SYSTEM_PATH, i, cmd, f.shown.clone());
            }
        }
        if is_sudoers(&path)
            && !matches!(
                mode.trim_start_matches('0'),
                "440" | "400" | "u=r,g=r,o=" | "ug=r,o="
            )
        {
            push_once(out, &SUDOERS_PERMISSION_CHANGE, i, cmd, f.shown.clone());
        }
    }
}

fn setuid_signal(
    owned: &HashMap<String, usize>,
    i: usize,
    cmd: &Command,
    path: &str,
    shown: &str,
    out: &mut Vec<Signal>,
) {
    if is_dangerous_binary(path) || owned.get(path).is_some_and(|&j| j <= i) {
        push_once(out, &SETUID_SHELL, i, cmd, shown.to_string());
    } else {
        push_once(out, &SETUID_BIT, i, cmd, shown.to_string());
    }
}

fn setuid_install(owned: &HashMap<String, usize>, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let modes = option_values(cmd, &["-m", "--mode"]);
    if !modes.iter().any(|m| m.value().is_some_and(sets_setuid)) {
        return;
    }
    let operands = operands_skipping(
        cmd,
        "mogtS",
        &["mode", "owner", "group", "target-directory", "suffix"],
    );
    if let Some(path) = operands.last().and_then(|w| path_value(w)) {
        let shown = operands.last().map(|w| w.shown.clone()).unwrap_or_default();
        setuid_signal(owned, i, cmd, &path, &shown, out);
    }
}

fn is_sudoers(path: &str) -> bool {
    path == "/etc/sudoers" || super::clobber::under(path, "/etc/sudoers.d")
}

fn sudoers_owner(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let operands = operands_skipping(cmd, "mMxX", &["modify", "remove"]);
    let (owner, files): (Option<&str>, &[&Word]) = if cmd.is(&["setfacl"]) {
        (None, &operands)
    } else {
        match operands.split_first() {
            Some((owner, files)) => (owner.value(), files),
            None => return,
        }
    };
    let correct =
        owner.is_some_and(|o| matches!(o, "root" | "root:root" | "0" | "0:0" | "root." | "root:"));
    for f in files {
        if path_value(f).is_some_and(|p| is_sudoers(&p)) && !correct {
            push_once(out, &SUDOERS_PERMISSION_CHANGE, i, cmd, f.shown.clone());
        }
    }
}

const PRIVILEGED_CAPS: &[&str] = &[
    "cap_setuid",
    "cap_setgid",
    "cap_dac_override",
    "cap_dac_read_search",
    "cap_sys_admin",
    "cap_sys_ptrace",
    "cap_sys_module",
    "cap_chown",
    "cap_fowner",
    "cap_setfcap",
    "all",
];

fn setcap(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    if cmd.has_flag('r', "--remove") {
        return;
    }
    let operands = operands_skipping(cmd, "", &[]);
    let mut pairs = operands.chunks(2);
    while let Some([caps, file]) = pairs.next() {
        let Some(text) = caps.value().map(str::to_ascii_lowercase) else {
            continue;
        };
        let granted = text.contains('+') || text.contains('=') && text.contains(['e', 'p']);
        let all = text.starts_with('=') || text.starts_with("all");
        let privileged = all || PRIVILEGED_CAPS.iter().any(|c| text.contains(c));
        if !(granted && privileged) {
            continue;
        }
        let path = path_value(file).unwrap_or_default();
        let spec = if is_dangerous_binary(&path) {
            &CAPABILITY_GRANT_SHELL
        } else {
            &CAPABILITY_GRANT
        };
        push_once(out, spec, i, cmd, format!("{} {}", caps.shown, file.shown));
    }
}

fn chattr(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let removes = cmd.args.iter().filter_map(Word::value).any(|v| {
        v.strip_prefix('-')
            .is_some_and(|f| f.contains(['i', 'a']) && !f.starts_with('-'))
    });
    if !removes {
        return;
    }
    for w in &cmd.args {
        let Some(path) = path_value(w) else { continue };
        let keys = path.ends_with("/authorized_keys") || path.ends_with("authorized_keys2");
        if path.starts_with('/') && is_system_file(&path) || keys {
            push_once(out, &IMMUTABLE_FLAG_REMOVED, i, cmd, w.shown.clone());
        }
    }
}

fn accounts(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let uids = option_values(cmd, &["-u", "--uid"]);
    if uids.iter().any(|u| {
        u.value()
            .is_some_and(|v| v.trim_start_matches('0').is_empty() && !v.is_empty())
    }) {
        push_once(out, &UID_ZERO_ACCOUNT, i, cmd, cmd.text());
    }
    let mut groups: Vec<String> = option_values(cmd, &["-G", "--groups", "-aG"])
        .iter()
        .filter_map(|w| w.value().map(str::to_string))
        .collect();
    let operands = operands_skipping(
        cmd,
        "uGgdsckefpa",
        &["uid", "groups", "gid", "home", "shell", "comment"],
    );
    if cmd.is(&["adduser", "addgroup"]) && operands.len() == 2 {
        groups.extend(operands.last().and_then(|w| w.value()).map(str::to_string));
    }
    if cmd.is(&["gpasswd"]) && cmd.has_any_arg(&["-a", "--add", "-M", "--members"]) {
        groups.extend(operands.last().and_then(|w| w.value()).map(str::to_string));
    }
    let admin = groups
        .iter()
        .flat_map(|g| g.split(','))
        .find(|g| ADMIN_GROUPS.contains(g));
    if let Some(group) = admin {
        push_once(out, &ADMIN_GROUP_GRANT, i, cmd, group.to_string());
    }
    let empty_password = option_values(cmd, &["-p", "--password"])
        .iter()
        .any(|w| w.value() == Some(""));
    if cmd.is(&["usermod"]) && empty_password {
        let root = operands.last().and_then(|w| w.value()) == Some("root");
        let spec = if root {
            &ROOT_PASSWORD_REMOVED
        } else {
            &PASSWORD_REMOVED
        };
        push_once(out, spec, i, cmd, cmd.text());
    }
}

fn passwd(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    if !cmd.has_flag('d', "--delete") {
        return;
    }
    let user = operands_skipping(
        cmd,
        "nxwi",
        &[
            "mindays", "maxdays", "warndays", "inactive", "root", "prefix",
        ],
    )
    .first()
    .and_then(|w| w.value())
    .map(str::to_string);
    let root = user.as_deref().is_none_or(|u| u == "root");
    let spec = if root {
        &ROOT_PASSWORD_REMOVED
    } else {
        &PASSWORD_REMOVED
    };
    push_once(out, spec, i, cmd, cmd.text());
}
