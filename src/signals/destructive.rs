//! Destructive local operations of the reference catalogue, with its gaps fixed: recursive
//! deletes (of system paths, of unguarded variables, through `find`), disk and filesystem
//! writes, recursive permission changes, privilege escalation, services, processes, packages.

use super::paths::{is_block_device, is_system_path, normalize};
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Word};
use std::collections::HashMap;

/// The family of every entry declared below.
const FAMILY: Family = Family::Destructive;

spec!(
    RM_RECURSIVE_FORCE,
    "RM_RECURSIVE_FORCE",
    High,
    "recursive delete",
    "`rm` with `-r`/`-R`/`--recursive` (with or without `-f`), by any name or wrapper."
);
spec!(DELETE_ROOT_PATH, "DELETE_ROOT_PATH", Critical, "recursive delete of a system/root path",
    "A recursive delete (`rm -r`, `find … -delete`, `find … -exec rm`) of `/`, a system directory (`/etc`, `/usr`, `/home`, `/var/lib` …), a glob sweeping one (`/etc/*`, `/*`), or a home directory (`~`). Paths are normalised (`//etc`, `/./`, `..`) and braces expanded first.");
spec!(UNRESOLVED_VARIABLE_IN_PATH, "UNRESOLVED_VARIABLE_IN_PATH", Critical,
    "recursive delete of an unguarded variable path (use ${var:?})",
    "A recursive delete whose operand contains a variable that may be empty and is not guarded by `${VAR:?}` (`rm -rf \"$DIR/\"*` deletes `/*` when DIR is unset). Only the real `:?` operator guards; `${D:-}` does not.");
spec!(DD_WRITE_BLOCK_DEVICE, "DD_WRITE_BLOCK_DEVICE", Critical, "dd writing to a block device",
    "`dd of=` a block device (`/dev/sd*`, `/dev/nvme*`, `/dev/vd*`, `/dev/xvd*`, `/dev/mmcblk*`, `/dev/mapper/*` …). Reading a disk and writing `/dev/null` are fine.");
spec!(REDIRECT_BLOCK_DEVICE, "DD_WRITE_BLOCK_DEVICE", Critical, "redirect overwrites a block device",
    "An output redirection (`>`, `>>`, `&>`, `<>`), `tee`, `cp` or `cat >` whose target is a block device, quoted or not.");
spec!(MKFS_FILESYSTEM, "MKFS_FILESYSTEM", Critical, "filesystem creation destroys existing data",
    "`mkfs` in every spelling (`mkfs.ext4`, `mkfs.ext3`, `mkfs.fat` …), `mke2fs`, `mkswap`, `wipefs`, or a partition-table writer (`fdisk`, `sfdisk`, `sgdisk`, `parted`) that is not only listing, `blkdiscard`, `shred` of a device.");
spec!(
    CHMOD_SYSTEM,
    "CHMOD_RECURSIVE_SYSTEM_PATH",
    Critical,
    "recursive permission change on a system path",
    "`chmod -R` on `/`, a system directory or a glob sweeping one."
);
spec!(
    CHMOD_RECURSIVE,
    "CHMOD_RECURSIVE_SYSTEM_PATH",
    Medium,
    "recursive permission change",
    "`chmod -R` on a path that is not a system path."
);
spec!(
    CHOWN_SYSTEM,
    "CHOWN_RECURSIVE_SYSTEM_PATH",
    Critical,
    "recursive permission change on a system path",
    "`chown -R`/`chgrp -R` on `/`, a system directory or a glob sweeping one."
);
spec!(
    CHOWN_RECURSIVE,
    "CHOWN_RECURSIVE_SYSTEM_PATH",
    Medium,
    "recursive permission change",
    "`chown -R`/`chgrp -R` on a path that is not a system path."
);
spec!(
    SUDO_PRIVILEGE_ESCALATION,
    "SUDO_PRIVILEGE_ESCALATION",
    High,
    "privilege escalation",
    "`sudo`, `doas`, `su`, `pkexec`, `runuser`. The command they run is analysed as well."
);
spec!(SYSTEMCTL_STOP_SERVICE, "SYSTEMCTL_STOP_SERVICE", High, "service stop/restart/disable",
    "`systemctl`/`service` with `stop`, `restart`, `disable`, `mask` or `kill`; also `halt`, `poweroff`, `reboot`, `shutdown` and `init 0|6`.");
spec!(
    KILL_SIGNAL,
    "KILL_SIGNAL",
    Medium,
    "process termination",
    "`kill`, `pkill`, `killall` with any arguments."
);
spec!(PACKAGE_REMOVE, "PACKAGE_REMOVE", Medium, "package removal",
    "A package manager removing packages: `apt`/`apt-get`/`yum`/`dnf`/`zypper` `remove|purge|erase|autoremove`, `apk del`, `pacman -R`, `snap remove`, `pip uninstall`, `npm uninstall -g`, `dpkg -r|-P`, `rpm -e`.");

pub static SPECS: &[&Spec] = &[
    &RM_RECURSIVE_FORCE,
    &DELETE_ROOT_PATH,
    &UNRESOLVED_VARIABLE_IN_PATH,
    &DD_WRITE_BLOCK_DEVICE,
    &REDIRECT_BLOCK_DEVICE,
    &MKFS_FILESYSTEM,
    &CHMOD_SYSTEM,
    &CHMOD_RECURSIVE,
    &CHOWN_SYSTEM,
    &CHOWN_RECURSIVE,
    &SUDO_PRIVILEGE_ESCALATION,
    &SYSTEMCTL_STOP_SERVICE,
    &KILL_SIGNAL,
    &PACKAGE_REMOVE,
];

/// `systemctl`/`service` verbs that stop a service or the machine.
const SERVICE_STOPS: &[&str] = &[
    "stop", "restart", "disable", "mask", "kill", "halt", "poweroff", "reboot",
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let cwds = working_dirs(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        let cwd = cwds.get(i).cloned().flatten();
        rm(a, i, cmd, cwd.as_deref(), out);
        find_delete(i, cmd, out);
        block_device_writes(i, cmd, out);
        let Some(base) = cmd.base() else { continue };
        match base {
            "dd" => dd(i, cmd, out),
            "chmod" => recursive_mode(i, cmd, &CHMOD_SYSTEM, &CHMOD_RECURSIVE, out),
            "chown" | "chgrp" => recursive_mode(i, cmd, &CHOWN_SYSTEM, &CHOWN_RECURSIVE, out),
            "sudo" | "doas" | "su" | "pkexec" | "runuser" | "sudo-rs" => {
                out.push(SUDO_PRIVILEGE_ESCALATION.on(i, cmd, Vec::new()))
            }
            "systemctl" | "service" if cmd.has_any_arg(SERVICE_STOPS) => {
                out.push(SYSTEMCTL_STOP_SERVICE.on(i, cmd, args(cmd)))
            }
            "halt" | "poweroff" | "reboot" | "shutdown" => {
                out.push(SYSTEMCTL_STOP_SERVICE.on(i, cmd, args(cmd)))
            }
            "init" | "telinit" if cmd.has_any_arg(&["0", "6"]) => {
                out.push(SYSTEMCTL_STOP_SERVICE.on(i, cmd, args(cmd)))
            }
            "kill" | "pkill" | "killall" => out.push(KILL_SIGNAL.on(i, cmd, args(cmd))),
            _ if is_mkfs(base, cmd) => out.push(MKFS_FILESYSTEM.on(i, cmd, args(cmd))),
            _ if is_package_remove(base, cmd) => out.push(PACKAGE_REMOVE.on(i, cmd, args(cmd))),
            _ => {}
        }
    }
}

fn args(cmd: &Command) -> Vec<String> {
    cmd.args.iter().map(|w| w.shown.clone()).collect()
}

fn is_recursive(cmd: &Command) -> bool {
    cmd.has_flag('r', "--recursive") || cmd.has_flag('R', "--recursive")
}

/// For each command, the working directory an earlier `cd`/`pushd` at the same nesting level set
/// statically (`cd` alone is `~`), in one pass over the text.
fn working_dirs(a: &Analysis) -> Vec<Option<String>> {
    let mut last: HashMap<usize, Option<String>> = HashMap::new();
    let mut out = Vec::with_capacity(a.commands.len());
    for c in &a.commands {
        let depth = c.context.depth;
        let current = last.get(&depth).cloned().flatten();
        out.push(current.clone());
        if c.context.substitution.is_none() && c.is(&["cd", "pushd"]) {
            let operands = c.operands();
            let dir = match operands.first() {
                None => Some("~".to_string()),
                Some(w) => w
                    .value()
                    .filter(|v| *v != "-")
                    .map(|v| join(current.as_deref(), v)),
            };
            last.insert(depth, dir);
        }
    }
    out
}

/// `dir` resolved against `base` when relative.
fn join(base: Option<&str>, dir: &str) -> String {
    match base {
        Some(b) if !dir.starts_with('/') && !dir.starts_with('~') => format!("{b}/{dir}"),
        _ => dir.to_string(),
    }
}

/// The path an operand names, resolved against a known `cd` for relative operands.
fn resolved(cwd: Option<&str>, value: &str) -> String {
    match cwd {
        Some(dir) if dir.starts_with('/') || dir.starts_with('~') => join(Some(dir), value),
        _ => value.to_string(),
    }
}

fn rm(a: &Analysis, i: usize, cmd: &Command, cwd: Option<&str>, out: &mut Vec<Signal>) {
    if !cmd.is(&["rm"]) || !is_recursive(cmd) {
        return;
    }
    let operands = cmd.operands();
    out.push(RM_RECURSIVE_FORCE.on(i, cmd, operands.iter().map(|w| w.shown.clone()).collect()));
    for w in &operands {
        if let Some(v) = w.value() {
            let path = resolved(cwd, v);
            if is_system_path(&path) {
                out.push(DELETE_ROOT_PATH.on(i, cmd, vec![w.shown.clone()]));
            }
        } else if sweeps_root(w) {
            out.push(DELETE_ROOT_PATH.on(i, cmd, vec![w.shown.clone()]));
        }
    }
    if let Some(w) = operands.iter().find(|w| w.unguarded_param) {
        out.push(UNRESOLVED_VARIABLE_IN_PATH.on(i, cmd, vec![w.shown.clone()]));
    }
    if cmd.context.extra_args && wrapped_by_find_on_system(a, cmd) {
        out.push(DELETE_ROOT_PATH.on(i, cmd, vec!["{}".into()]));
    }
}

/// `/$x`, `/*$x`: a dynamic operand whose static part already is the root.
fn sweeps_root(w: &Word) -> bool {
    let prefix = normalize(&w.static_prefix);
    !w.static_prefix.is_empty() && prefix == "/" && !w.unguarded_param
}

fn find_roots(cmd: &Command) -> Vec<&Word> {
    cmd.args
        .iter()
        .take_while(|w| {
            w.value()
                .is_none_or(|v| !v.starts_with('-') && v != "(" && v != "!")
        })
        .collect()
}

fn wrapped_by_find_on_system(a: &Analysis, cmd: &Command) -> bool {
    let Some(outer) = cmd.context.wrapped_by.and_then(|i| a.commands.get(i)) else {
        return false;
    };
    outer.is(&["find"])
        && find_roots(outer)
            .iter()
            .any(|w| w.value().is_some_and(is_system_path))
}

fn find_delete(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    if !cmd.is(&["find"]) || !cmd.has_arg("-delete") {
        return;
    }
    for root in find_roots(cmd) {
        if root.value().is_some_and(is_system_path) {
            out.push(DELETE_ROOT_PATH.on(i, cmd, vec![root.shown.clone()]));
        }
    }
}

fn dd(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    for v in cmd.arg_values() {
        if let Some(target) = v.strip_prefix("of=") {
            if is_block_device(target) {
                out.push(DD_WRITE_BLOCK_DEVICE.on(i, cmd, vec![v.to_string()]));
            }
        }
    }
}

fn block_device_writes(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    for r in &cmd.redirects {
        if r.writes() && r.target.value().is_some_and(is_block_device) {
            out.push(REDIRECT_BLOCK_DEVICE.on(i, cmd, vec![r.target.shown.clone()]));
        }
    }
    let writers: &[&str] = &["tee", "cp", "install", "pv", "cat"];
    if cmd.is(writers) && !cmd.is(&["cat"]) {
        let operands = cmd.operands();
        let targets: Vec<&&Word> = if cmd.is(&["tee"]) {
            operands.iter().collect()
        } else {
            operands.last().into_iter().collect()
        };
        for w in targets {
            if w.value().is_some_and(is_block_device) {
                out.push(REDIRECT_BLOCK_DEVICE.on(i, cmd, vec![w.shown.clone()]));
            }
        }
    }
}

fn recursive_mode(
    i: usize,
    cmd: &Command,
    system: &'static Spec,
    plain: &'static Spec,
    out: &mut Vec<Signal>,
) {
    // `chmod -r` removes read permission; only `-R` recurses for chmod/chown/chgrp.
    if !cmd.has_flag('R', "--recursive") {
        return;
    }
    for w in cmd.operands() {
        if w.value().is_some_and(is_system_path) {
            out.push(system.on(i, cmd, vec![w.shown.clone()]));
            return;
        }
    }
    out.push(plain.on(i, cmd, args(cmd)));
}

fn is_mkfs(base: &str, cmd: &Command) -> bool {
    if base == "mkfs" || base.starts_with("mkfs.") {
        return true;
    }
    match base {
        "mke2fs" | "mkswap" | "wipefs" | "blkdiscard" | "mkdosfs" | "mkntfs" | "mkexfatfs" => true,
        "fdisk" | "sfdisk" | "sgdisk" | "parted" | "gdisk" | "cfdisk" => {
            !cmd.has_any_arg(&["-l", "--list", "-p", "--print"]) && !cmd.operands().is_empty()
        }
        "shred" => cmd
            .operands()
            .iter()
            .any(|w| w.value().is_some_and(is_block_device)),
        _ => false,
    }
}

fn is_package_remove(base: &str, cmd: &Command) -> bool {
    let sub = |words: &[&str]| {
        cmd.operands()
            .first()
            .and_then(|w| w.value())
            .is_some_and(|v| words.contains(&v))
    };
    match base {
        "apt" | "apt-get" | "aptitude" | "yum" | "dnf" | "zypper" | "microdnf" => {
            cmd.has_any_arg(&["remove", "purge", "erase", "autoremove", "uninstall", "rm"])
        }
        "apk" => cmd.has_any_arg(&["del", "remove", "uninstall", "purge"]),
        "snap" | "flatpak" | "brew" | "port" => cmd.has_any_arg(&["remove", "uninstall", "rm"]),
        "pip" | "pip3" | "pipx" | "gem" | "cargo" => sub(&["uninstall"]),
        "npm" | "pnpm" | "yarn" => sub(&["uninstall", "remove", "rm", "un", "r"]),
        "pacman" | "yay" => {
            cmd.short_flags().contains('R') && cmd.option_args().any(|a| !a.starts_with("--"))
        }
        "dpkg" => cmd.has_flag('r', "--remove") || cmd.has_flag('P', "--purge"),
        "rpm" => cmd.has_flag('e', "--erase"),
        _ => false,
    }
}
