//! Destructive local operations of the reference catalogue, with its gaps fixed: recursive
//! deletes (of system paths, of unguarded variables, through `find`), disk and filesystem
//! writes, recursive permission changes, privilege escalation, services, processes, packages.
//! Everyday forms get their own, lower IDs: relative deletes, filtered `find -delete`, read-only
//! and image-file runs of disk tools, data-directory permission changes, `sudo -l`.

use super::disk_tools::{self, is_ordinary_file, DiskRun};
use super::grammar::{self, Arg, Grammar};
use super::paths::{is_block_device, is_permission_system_path, is_system_path, normalize};
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
    "`rm` with `-r`/`-R`/`--recursive` (with or without `-f`), by any name or wrapper. When every operand is a static relative path inside the working directory (`rm -rf ./build`) the signal is RM_RECURSIVE_RELATIVE (medium) instead."
);
spec!(RM_RECURSIVE_RELATIVE, "RM_RECURSIVE_RELATIVE", Medium, "recursive delete inside the working directory",
    "`rm -r` whose every operand is a static relative path that stays inside the working directory (`rm -rf ./build`, `rm -rf target node_modules`): the everyday clean-up. It takes the place of RM_RECURSIVE_FORCE (high), which keeps the reference's meaning for every other recursive delete: absolute, home, dynamic or `..` operands, globs that sweep the working directory itself (`*`, `./*`, `.*`), names of top-level system directories (`etc`, `usr`, `bin`: from an unknown directory they may be those), and operands supplied by `xargs` or `find -exec`, but for the matches of a filtered `find` whose every root stays inside the working directory (`find . -name __pycache__ -exec rm -rf {} +`).");
spec!(DELETE_ROOT_PATH, "DELETE_ROOT_PATH", Critical, "recursive delete of a system/root path",
    "A recursive delete (`rm -r`, `find … -delete`, `find … -exec rm`) of `/`, a system directory (`/etc`, `/usr`, `/home`, `/var/lib` …), a glob sweeping one (`/etc/*`, `/*`), or a home directory (`~`). Paths are normalised (`//etc`, `/./`, `..`) and braces expanded first. A `find` that deletes only what a selective test picked (`-name '*.gz'`, `-mtime +30`) is FIND_DELETE_FILTERED (high) instead.");
spec!(UNRESOLVED_VARIABLE_IN_PATH, "UNRESOLVED_VARIABLE_IN_PATH", Critical,
    "recursive delete of an unguarded variable path (use ${var:?})",
    "A recursive delete whose operand contains a variable that may be empty and is not guarded by `${VAR:?}` (`rm -rf \"$DIR/\"*` deletes `/*` when DIR is unset). Forms that cannot expand to nothing guard it: `${D:?}`, a `: \"${D:?}\"` earlier in the text, a non-empty literal default (`${D:-./build}`, whose value is then judged as written) and a `${D:+w}` alternative; `${D:-}` and `${D-x}` do not.");
spec!(DD_WRITE_BLOCK_DEVICE, "DD_WRITE_BLOCK_DEVICE", Critical, "dd writing to a block device",
    "`dd of=` a block device (`/dev/sd*`, `/dev/nvme*`, `/dev/vd*`, `/dev/xvd*`, `/dev/mmcblk*`, `/dev/mapper/*` …). Reading a disk and writing `/dev/null` are fine.");
spec!(REDIRECT_BLOCK_DEVICE, "DD_WRITE_BLOCK_DEVICE", Critical, "redirect overwrites a block device",
    "An output redirection (`>`, `>>`, `&>`, `<>`), `tee`, `cp` or `cat >` whose target is a block device, quoted or not.");
spec!(MKFS_FILESYSTEM, "MKFS_FILESYSTEM", Critical, "filesystem creation destroys existing data",
    "`mkfs` in every spelling (`mkfs.ext4`, `mkfs.ext3`, `mkfs.fat` …), `mke2fs`, `mkswap`, `wipefs`, or a partition-table writer (`fdisk`, `sfdisk`, `sgdisk`, `parted`), `blkdiscard`, `shred` of a device. Options are read by each tool's grammar: read-only runs (`parted DEV print`, `sfdisk -d`, `sgdisk -p`/`--backup=FILE`, `wipefs DEV` without `-a`/`-o`, `fdisk -l`) and dry runs (`mke2fs -n`, `mkfs.xfs -N`, `wipefs -n`, `sfdisk -n`, `sgdisk -P`) raise nothing; a write to an ordinary file (`mkswap /swapfile`, `mkfs.ext4 disk.img`) is MKFS_REGULAR_FILE (medium).");
spec!(FIND_DELETE_FILTERED, "FIND_DELETE_FILTERED", High, "filtered find -delete under a system path",
    "`find` under a system path that deletes (`-delete`, or `-exec rm -r`) only what a selective test picks first: `-name`/`-path`/`-regex` with a pattern that is not a match-all (`*`), `-mtime`/`-mmin`/`-newer`, `-size`, `-user`, `-group`, `-perm`, `-empty` … (`find /var/log -name '*.gz' -mtime +30 -delete`). Unfiltered, negated (`!`, `-not`), `-o`-joined or run-time tests, and `-type` alone, leave it DELETE_ROOT_PATH (critical).");
spec!(MKFS_REGULAR_FILE, "MKFS_REGULAR_FILE", Medium, "filesystem creation on a regular file",
    "`mkfs`, `mkswap`, a partition-table writer or `wipefs` run on an ordinary file (`mkswap /swapfile`, `mkfs.ext4 disk.img`, `parted disk.img mklabel gpt`): an image or a swap file, not a disk. A target under `/dev`, under a directory the system runs from (`/etc`, `/boot`, `/usr` …), a device name reached relatively (`sda1`), or a target only known at run time stays MKFS_FILESYSTEM (critical).");
spec!(
    CHMOD_SYSTEM,
    "CHMOD_RECURSIVE_SYSTEM_PATH",
    Critical,
    "recursive permission change on a system path",
    "`chmod -R` on `/`, a system directory or a glob sweeping one. Data directories (`/var/www`, `/srv`, `/opt/<app>`, `/home/<user>`) are not system paths here; `..` is resolved first (`/var/www/../../etc` is `/etc`)."
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
    "`chown -R`/`chgrp -R` on `/`, a system directory or a glob sweeping one. Data directories (`/var/www`, `/srv`, `/opt/<app>`, `/home/<user>`) are not system paths here; a home given to another named user (`chown -R bob /home/alice`) is."
);
spec!(
    CHOWN_RECURSIVE,
    "CHOWN_RECURSIVE_SYSTEM_PATH",
    Medium,
    "recursive permission change",
    "`chown -R`/`chgrp -R` on a path that is not a system path, such as a data directory (`/var/www`, `/srv`, `/opt/<app>`, `/home/<user>` given to that user)."
);
spec!(
    SUDO_PRIVILEGE_ESCALATION,
    "SUDO_PRIVILEGE_ESCALATION",
    High,
    "privilege escalation",
    "`sudo`, `doas`, `su`, `pkexec`, `runuser`. The command they run is analysed as well. `sudo -l`, `-v`, `-k`, `-K` and `-V` without a command are SUDO_SESSION_QUERY (low) instead."
);
spec!(SUDO_SESSION_QUERY, "SUDO_SESSION_QUERY", Low, "sudo lists or refreshes privileges without running a command",
    "`sudo -l` (list what the user may run, also `-l CMD`), `sudo -v` (refresh the cached credentials), `sudo -k`/`-K` (forget them) and `sudo -V` with no command: nothing runs with privilege. `sudo -k CMD` runs CMD and stays SUDO_PRIVILEGE_ESCALATION, as does any shell, edit or user-switching option (`-i`, `-s`, `-e`).");
spec!(SYSTEMCTL_STOP_SERVICE, "SYSTEMCTL_STOP_SERVICE", High, "service stop/restart/disable",
    "`systemctl`/`service` with `stop`, `restart`, `disable`, `mask` or `kill` (not `systemctl --user`, which acts on the user's own services); also `halt`, `poweroff`, `reboot`, `shutdown` and `init 0|6`.");
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
    &RM_RECURSIVE_RELATIVE,
    &DELETE_ROOT_PATH,
    &FIND_DELETE_FILTERED,
    &UNRESOLVED_VARIABLE_IN_PATH,
    &DD_WRITE_BLOCK_DEVICE,
    &REDIRECT_BLOCK_DEVICE,
    &MKFS_FILESYSTEM,
    &MKFS_REGULAR_FILE,
    &CHMOD_SYSTEM,
    &CHMOD_RECURSIVE,
    &CHOWN_SYSTEM,
    &CHOWN_RECURSIVE,
    &SUDO_PRIVILEGE_ESCALATION,
    &SUDO_SESSION_QUERY,
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
        rsync_delete(i, cmd, out);
        block_device_writes(i, cmd, cwd.as_deref(), out);
        let Some(base) = cmd.base() else { continue };
        match base {
            "dd" => dd(i, cmd, cwd.as_deref(), out),
            "chmod" => recursive_mode(i, cmd, &CHMOD_SYSTEM, &CHMOD_RECURSIVE, out),
            "chown" | "chgrp" => recursive_mode(i, cmd, &CHOWN_SYSTEM, &CHOWN_RECURSIVE, out),
            "sudo" | "sudo-rs" if is_sudo_query(cmd) => {
                out.push(SUDO_SESSION_QUERY.on(i, cmd, args(cmd)))
            }
            "sudo" | "doas" | "su" | "pkexec" | "runuser" | "sudo-rs" => {
                out.push(SUDO_PRIVILEGE_ESCALATION.on(i, cmd, Vec::new()))
            }
            // `systemctl --user` acts on the user's own services, not the machine's.
            "systemctl" | "service" if cmd.has_any_arg(SERVICE_STOPS) && !cmd.has_arg("--user") => {
                out.push(SYSTEMCTL_STOP_SERVICE.on(i, cmd, args(cmd)))
            }
            "halt" | "poweroff" | "reboot" | "shutdown" => {
                out.push(SYSTEMCTL_STOP_SERVICE.on(i, cmd, args(cmd)))
            }
            "init" | "telinit" if cmd.has_any_arg(&["0", "6"]) => {
                out.push(SYSTEMCTL_STOP_SERVICE.on(i, cmd, args(cmd)))
            }
            "kill" | "pkill" | "killall" => out.push(KILL_SIGNAL.on(i, cmd, args(cmd))),
            _ if is_package_remove(base, cmd) => out.push(PACKAGE_REMOVE.on(i, cmd, args(cmd))),
            _ => disk_write(i, base, cmd, cwd.as_deref(), out),
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
    if !cmd.is(&["rm"]) {
        return;
    }
    if !is_recursive(cmd) {
        // `find /etc -type f -exec rm -f {} +`, `find /bin | xargs rm -f`: every file of a
        // system tree, one by one.
        listed_by_find_on_system(a, i, cmd, out);
        return;
    }
    let operands = cmd.operands();
    let inside_cwd = !cmd.context.extra_args
        && !operands.is_empty()
        && operands
            .iter()
            .all(|w| w.value().is_some_and(|v| stays_inside_cwd(cwd, v)))
        || filtered_find_inside_cwd(a, cmd, &operands, cwd);
    let spec = if inside_cwd {
        &RM_RECURSIVE_RELATIVE
    } else {
        &RM_RECURSIVE_FORCE
    };
    out.push(spec.on(i, cmd, operands.iter().map(|w| w.shown.clone()).collect()));
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
    listed_by_find_on_system(a, i, cmd, out);
}

/// An `rm` whose operands a `find` (or an `xargs` fed by `find`/`ls`) over a system path
/// supplies: DELETE_ROOT_PATH, or FIND_DELETE_FILTERED when a selective test picks them.
fn listed_by_find_on_system(a: &Analysis, i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    if !cmd.context.extra_args {
        return;
    }
    if let Some(filtered) = wrapped_by_find_on_system(a, cmd) {
        let spec = if filtered {
            &FIND_DELETE_FILTERED
        } else {
            &DELETE_ROOT_PATH
        };
        out.push(spec.on(i, cmd, vec!["{}".into()]));
    }
}

/// A static operand as written that names something inside the working directory: relative,
/// no `..` out of it, not the directory itself or a glob sweeping it (`.`, `*`, `./*`, `.*`,
/// `!(keep)`), not named like a top-level system directory (`etc`, `usr`, `bin`), and not a
/// system path once a known `cd` is applied.
fn stays_inside_cwd(cwd: Option<&str>, value: &str) -> bool {
    if value.starts_with('/') || value.starts_with('~') || is_system_path(&resolved(cwd, value)) {
        return false;
    }
    let norm = normalize(value);
    let first = norm.split('/').next().unwrap_or_default();
    let sweeps = first.chars().all(|c| "*?[]!.".contains(c)) || first.starts_with("!(");
    // From an unknown directory (a session standing in `/`), `etc` may be `/etc`.
    let system_name = is_system_path(&format!("/{first}"));
    !norm.is_empty() && !norm.starts_with("..") && !sweeps && !system_name
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

/// For a command run by `find -exec` under a system path: whether that `find` filters first.
fn wrapped_by_find_on_system(a: &Analysis, cmd: &Command) -> Option<bool> {
    let outer = cmd.context.wrapped_by.and_then(|i| a.commands.get(i))?;
    let on_system = |find: &Command| {
        find.is(&["find"])
            && find_roots(find)
                .iter()
                .any(|w| w.value().is_some_and(is_system_path))
    };
    if on_system(outer) {
        return Some(find_filters_before(outer, EXEC_ACTIONS));
    }
    // `find SYSTEM … | xargs rm`, `ls /etc | xargs rm`: what xargs reads is that listing.
    if outer.is(&["xargs"]) {
        for j in a.upstream(outer) {
            let Some(feeder) = a.commands.get(j) else {
                continue;
            };
            if on_system(feeder) {
                return Some(find_filters_before(feeder, &[]));
            }
            let lists_system = feeder.is(&["ls"])
                && feeder
                    .operands()
                    .iter()
                    .any(|w| w.value().is_some_and(is_system_path));
            if lists_system {
                return Some(false);
            }
        }
    }
    None
}

const EXEC_ACTIONS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// `rsync --delete SRC/ /etc/`: everything in the system directory that the source lacks is
/// deleted (an empty source empties it). A dry run (`-n`, `--dry-run`, `--list-only`) is not.
fn rsync_delete(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    let deletes = cmd.option_args().any(|o| o.starts_with("--delete"));
    let dry = cmd.has_flag('n', "--dry-run") || cmd.has_arg("--list-only");
    if !cmd.is(&["rsync"]) || !deletes || dry {
        return;
    }
    let Some(dest) = cmd.operands().last().copied() else {
        return;
    };
    if dest
        .value()
        .is_some_and(|d| !d.contains(':') && is_system_path(d))
    {
        out.push(DELETE_ROOT_PATH.on(i, cmd, vec![dest.shown.clone()]));
    }
}

/// `find . -name __pycache__ -exec rm -rf {} +`: an `rm` whose only operands are the matches of
/// a filtered `find` whose every root stays inside the working directory is the everyday
/// clean-up RM_RECURSIVE_RELATIVE, as `rm -rf ./build` is.
fn filtered_find_inside_cwd(
    a: &Analysis,
    cmd: &Command,
    operands: &[&Word],
    cwd: Option<&str>,
) -> bool {
    let Some(outer) = cmd.context.wrapped_by.and_then(|i| a.commands.get(i)) else {
        return false;
    };
    let roots = find_roots(outer);
    cmd.context.extra_args
        && outer.is(&["find"])
        && operands.iter().all(|w| w.raw == "{}")
        && !roots.is_empty()
        && roots.iter().all(|w| {
            w.value()
                .is_some_and(|v| matches!(v, "." | "./") || stays_inside_cwd(cwd, v))
        })
        && find_filters_before(outer, EXEC_ACTIONS)
}

fn find_delete(i: usize, cmd: &Command, out: &mut Vec<Signal>) {
    if !cmd.is(&["find"]) || !cmd.has_arg("-delete") {
        return;
    }
    let filtered = find_filters_before(cmd, &["-delete"]);
    for root in find_roots(cmd) {
        if root.value().is_some_and(is_system_path) {
            let spec = if filtered {
                &FIND_DELETE_FILTERED
            } else {
                &DELETE_ROOT_PATH
            };
            out.push(spec.on(i, cmd, vec![root.shown.clone()]));
        }
    }
}

/// `find` tests that pick some entries by a pattern (the value must not match everything).
const FIND_PATTERN_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
];
/// `find` tests that pick some entries by a value.
const FIND_VALUE_TESTS: &[&str] = &[
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-used",
    "-newer",
    "-anewer",
    "-cnewer",
    "-size",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-perm",
    "-inum",
    "-samefile",
    "-links",
];
/// `find` tests without a value that pick some entries.
const FIND_FLAG_TESTS: &[&str] = &["-empty", "-nouser", "-nogroup"];

/// True when every entry `find` acts on with the first of `actions` has first passed a
/// selective test: an `-a`-chain (no top-level `-o`, `,`), with a test that is not negated
/// (`!`, `-not`) and not run-time, or a `( … )` group whose every `-o` branch has one.
fn find_filters_before(cmd: &Command, actions: &[&str]) -> bool {
    let root_words = find_roots(cmd);
    let roots: Vec<String> = root_words
        .iter()
        .filter_map(|w| w.value().map(normalize))
        .collect();
    let words = cmd.args.get(root_words.len()..).unwrap_or_default();
    let mut depth = 0usize;
    let mut filtered = false;
    let mut negated = false;
    let mut acted = false;
    // Within a top-level group: whether the current branch and all earlier ones have a test.
    let mut branch_has_test = false;
    let mut group_ok = true;
    let mut k = 0;
    while let Some(word) = words.get(k) {
        let Some(w) = word.value() else { return false };
        k += 1;
        match w {
            "-o" | "-or" | "," if depth == 0 => return false,
            "-o" | "-or" => {
                group_ok &= branch_has_test;
                branch_has_test = false;
            }
            "!" | "-not" if depth == 0 => negated = true,
            "!" | "-not" => group_ok = false,
            "(" if depth == 0 => {
                depth = 1;
                branch_has_test = false;
                group_ok = !negated;
            }
            "(" => {
                depth += 1;
                group_ok = false;
            }
            ")" if depth == 1 => {
                depth = 0;
                if !acted && group_ok && branch_has_test {
                    filtered = true;
                }
                negated = false;
            }
            ")" => depth = depth.saturating_sub(1),
            _ if actions.contains(&w) => acted = true,
            _ => {
                let value = words.get(k).map(|v| v.value());
                let selective = if FIND_PATTERN_TESTS.contains(&w) {
                    k += 1;
                    value
                        .flatten()
                        .is_some_and(|p| selective_pattern(w, p, &roots))
                } else if FIND_VALUE_TESTS.contains(&w) || w.starts_with("-newer") {
                    k += 1;
                    value.flatten().is_some()
                } else {
                    FIND_FLAG_TESTS.contains(&w)
                };
                if depth == 0 {
                    if selective && !negated && !acted {
                        filtered = true;
                    }
                    negated = false;
                } else if selective {
                    branch_has_test = true;
                }
            }
        }
    }
    filtered
}

/// A pattern that does not match every entry: some literal character besides `/` once
/// wildcards, bracket expressions (`[a-z]`) and, for path tests, the roots' own paths
/// (`-path '/etc/*'` under `/etc`) are taken out. Regex operators count as wildcards.
fn selective_pattern(test: &str, pattern: &str, roots: &[String]) -> bool {
    let mut rest = pattern.to_string();
    if test.contains("path") || test.contains("regex") {
        for root in roots.iter().filter(|r| r.len() > 1) {
            rest = rest.replace(root.as_str(), "");
        }
    }
    let wildcards: &str = if test.ends_with("regex") {
        ".*+?^$|(){}\\/"
    } else {
        "*?/\\"
    };
    let mut in_bracket = false;
    rest.chars().any(|c| match (in_bracket, c) {
        (false, '[') => {
            in_bracket = true;
            false
        }
        (true, ']') => {
            in_bracket = false;
            false
        }
        (true, _) => false,
        (false, c) => !wildcards.contains(c),
    })
}

fn dd(i: usize, cmd: &Command, cwd: Option<&str>, out: &mut Vec<Signal>) {
    for v in cmd.arg_values() {
        if let Some(target) = v.strip_prefix("of=") {
            // `cd /dev; dd of=sda`: a relative target in a known directory.
            if is_block_device(&resolved(cwd, target)) {
                out.push(DD_WRITE_BLOCK_DEVICE.on(i, cmd, vec![v.to_string()]));
            }
        }
    }
}

fn block_device_writes(i: usize, cmd: &Command, cwd: Option<&str>, out: &mut Vec<Signal>) {
    for r in &cmd.redirects {
        if r.writes()
            && r.target
                .value()
                .is_some_and(|t| is_block_device(&resolved(cwd, t)))
        {
            out.push(REDIRECT_BLOCK_DEVICE.on(i, cmd, vec![r.target.shown.clone()]));
        }
    }
    // socat's file addresses are written (only the second with `-u`, the first with `-U`).
    if cmd.is(&["socat"]) {
        let addresses = cmd.operands();
        let written: Vec<&&Word> = if cmd.has_arg("-u") {
            addresses.iter().skip(1).collect()
        } else if cmd.has_arg("-U") {
            addresses.iter().take(1).collect()
        } else {
            addresses.iter().collect()
        };
        for w in written {
            let Some(v) = w.value() else { continue };
            let upper = v.to_ascii_uppercase();
            let path = ["OPEN:", "CREATE:", "GOPEN:", "FILE:", "CREAT:"]
                .iter()
                .find(|p| upper.starts_with(*p))
                .map(|p| v[p.len()..].split(',').next().unwrap_or_default());
            if path.is_some_and(is_block_device) {
                out.push(REDIRECT_BLOCK_DEVICE.on(i, cmd, vec![w.shown.clone()]));
            }
        }
    }
    // `tee` writes its operands; `cp`/`install` their last one when there are two or more.
    // `pv` and `cat` only read theirs (`pv /dev/sda > /dev/null` reads a disk).
    if cmd.is(&["tee", "cp", "install"]) {
        let operands = cmd.operands();
        let targets: Vec<&&Word> = if cmd.is(&["tee"]) {
            operands.iter().collect()
        } else if operands.len() >= 2 {
            operands.last().into_iter().collect()
        } else {
            Vec::new()
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
    let operands = cmd.operands();
    let owner = cmd
        .is(&["chown"])
        .then(|| operands.first().and_then(|w| w.value()))
        .flatten()
        .map(|o| o.split([':', '.']).next().unwrap_or(o));
    for w in &operands {
        let Some(path) = w.value() else { continue };
        if is_permission_system_path(path) || owner.is_some_and(|o| gives_home_away(o, path)) {
            out.push(system.on(i, cmd, vec![w.shown.clone()]));
            return;
        }
    }
    out.push(plain.on(i, cmd, args(cmd)));
}

/// `chown -R OWNER /home/USER` (or `/home/USER/*`) where OWNER is a named user other than
/// USER: a home is a data directory only for its owner.
fn gives_home_away(owner: &str, path: &str) -> bool {
    let norm = normalize(path);
    let home = norm.strip_suffix("/*").unwrap_or(&norm);
    let Some(user) = home.strip_prefix("/home/") else {
        return false;
    };
    let named = !owner.is_empty() && !owner.chars().all(|c| c.is_ascii_digit());
    !user.contains('/') && named && owner != user
}

/// A filesystem or partition-table write: MKFS_FILESYSTEM on a device or an unknown target,
/// MKFS_REGULAR_FILE when every target is an ordinary file; nothing for read-only and dry runs.
fn disk_write(i: usize, base: &str, cmd: &Command, cwd: Option<&str>, out: &mut Vec<Signal>) {
    let Some(DiskRun::Writes(targets)) = disk_run(base, cmd) else {
        return;
    };
    let ordinary = !targets.is_empty()
        && targets.iter().all(|w| {
            w.value()
                .is_some_and(|v| is_ordinary_file(&resolved(cwd, v)))
        });
    let spec = if ordinary {
        &MKFS_REGULAR_FILE
    } else {
        &MKFS_FILESYSTEM
    };
    out.push(spec.on(i, cmd, args(cmd)));
}

/// What a disk or filesystem tool does (`disk_tools`), or `shred` of a device.
fn disk_run<'c>(base: &str, cmd: &'c Command) -> Option<DiskRun<'c>> {
    if let Some(run) = disk_tools::classify(base, cmd) {
        return Some(run);
    }
    let devices: Vec<&Word> = cmd
        .operands()
        .into_iter()
        .filter(|w| w.value().is_some_and(is_block_device))
        .collect();
    (base == "shred" && !devices.is_empty()).then_some(DiskRun::Writes(devices))
}

/// sudo's options (`+` getopt: options end at the command).
const SUDO: Grammar = Grammar {
    short_values: "aCcDgpRrTtUu",
    longs: &[
        ("list", Arg::No),
        ("validate", Arg::No),
        ("reset-timestamp", Arg::No),
        ("remove-timestamp", Arg::No),
        ("version", Arg::No),
        ("help", Arg::No),
        ("non-interactive", Arg::No),
        ("stdin", Arg::No),
        ("askpass", Arg::No),
        ("bell", Arg::No),
        ("user", Arg::Required),
        ("other-user", Arg::Required),
        ("group", Arg::Required),
        ("prompt", Arg::Required),
        ("chdir", Arg::Required),
        ("chroot", Arg::Required),
        ("close-from", Arg::Required),
        ("login-class", Arg::Required),
        ("role", Arg::Required),
        ("type", Arg::Required),
        ("command-timeout", Arg::Required),
        ("host", Arg::Required),
        ("preserve-env", Arg::Optional),
        ("preserve-groups", Arg::No),
        ("set-home", Arg::No),
        ("background", Arg::No),
        ("edit", Arg::No),
        ("login", Arg::No),
        ("shell", Arg::No),
    ],
    options_end_at_operand: true,
};
const SUDO_QUERIES: &[&str] = &[
    "-l",
    "--list",
    "-v",
    "--validate",
    "-k",
    "--reset-timestamp",
    "-K",
    "--remove-timestamp",
    "-V",
    "--version",
];
const SUDO_QUERY_NEUTRAL: &[&str] = &[
    "-n",
    "--non-interactive",
    "-S",
    "--stdin",
    "-A",
    "--askpass",
    "-B",
    "--bell",
    "-U",
    "--other-user",
    "-u",
    "--user",
    "-g",
    "--group",
    "-p",
    "--prompt",
];

/// `sudo -l`, `-v`, `-k`, `-K`, `-V` that run no command (`-l CMD` only says whether CMD may run).
fn is_sudo_query(cmd: &Command) -> bool {
    let parsed = grammar::parse(&cmd.args, &SUDO);
    let known = parsed.options.iter().all(|o| {
        let s = o.spelling.as_str();
        SUDO_QUERIES.contains(&s) || SUDO_QUERY_NEUTRAL.contains(&s)
    });
    let runs_nothing = parsed.operands.is_empty() || parsed.has_any(&["-l", "--list"]);
    !parsed.dynamic && known && parsed.has_any(SUDO_QUERIES) && runs_nothing
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
