//! System-file clobbering: writes (redirections, `tee`, `cp`, `mv`, `install`, `dd of=`,
//! `sed -i`, `truncate`, `ln`, `rm`, editors) onto identity, authentication, boot and loader
//! files and system binaries. Also owns `written`, the paths a command writes, for other families.

use super::paths::normalize;
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command, Word};

/// The family of every entry declared below.
const FAMILY: Family = Family::Clobber;

spec!(
    AUTH_FILE_WRITE,
    "AUTH_FILE_WRITE",
    Critical,
    "writes an identity, authentication or boot file",
    "A redirection, `tee`, `cp`, `mv`, `install`, `dd of=`, `sed -i`, `truncate`, `ln`, `rm` or an editor writes, replaces or removes `/etc/passwd`, `/etc/shadow`, `/etc/group`, `/etc/gshadow`, `/etc/sudoers`, anything under `/etc/pam.d/` or `/boot/`. Appending a line to one of them is how a root account or a PAM backdoor is planted; no automation should write them this way (use `useradd`, `visudo`, the package manager). Paths are normalised (`//etc/./shadow`), quotes removed and earlier constants and `cd` followed. `/etc/ld.so.preload` is PRELOAD_WRITE (persistence); block devices and `/dev/mem` are DD_WRITE_BLOCK_DEVICE."
);
spec!(
    SYSTEM_CONFIG_WRITE,
    "SYSTEM_CONFIG_WRITE",
    High,
    "writes a security-relevant system configuration file",
    "A write to `/etc/sudoers.d/*`, `/etc/ssh/sshd_config` (and `sshd_config.d/*`), `/etc/fstab`, `/etc/crypttab`, `/etc/nsswitch.conf`, `/etc/login.defs`, `/etc/security/*`, `/etc/ld.so.conf(.d)`, `/etc/modprobe.d/*`, `/etc/sysctl.conf(.d)`, `/etc/selinux/config`, `/etc/apparmor.d/*`. Provisioning does edit these, so the policy decides; the signal says which file."
);
spec!(
    SYSTEM_BINARY_WRITE,
    "SYSTEM_BINARY_WRITE",
    High,
    "overwrites or removes a system binary or library",
    "A write, move or delete of a file under `/bin`, `/sbin`, `/usr/bin`, `/usr/sbin`, `/lib*`, `/usr/lib*` or `/usr/libexec`: replacing `sudo`, `ls` or `libc` is how a host is trojaned. `/usr/local/bin` is where administrators install their own tools and is not flagged."
);
spec!(
    NAME_RESOLUTION_WRITE,
    "NAME_RESOLUTION_WRITE",
    Medium,
    "writes the hosts or resolver file",
    "A write to `/etc/hosts`, `/etc/resolv.conf`, `/etc/hosts.allow` or `/etc/hosts.deny`. Common in provisioning (adding a host entry), but it can redirect every later download, so the policy decides."
);

spec!(
    KERNEL_CONTROL_WRITE,
    "KERNEL_CONTROL_WRITE",
    Critical,
    "writes a kernel control file that crashes, powers off or bricks the machine",
    "A write (redirection, `tee`, `cp`) to `/proc/sysrq-trigger`, `/sys/power/state`, `/sys/power/disk` or under `/sys/firmware/efi/efivars`: the kernel acts on it at once (`echo b > /proc/sysrq-trigger` reboots without syncing; an EFI variable written wrong can leave the firmware unbootable). Tuning files such as `/proc/sys/vm/drop_caches` are not flagged."
);
spec!(
    KERNEL_DEVICE_REMOVE,
    "KERNEL_DEVICE_REMOVE",
    High,
    "detaches a device through the kernel's control files",
    "A write to `/sys/block/DEV/device/delete`, `/sys/bus/…/unbind` or `…/remove`: the disk or device disappears from the running system."
);

pub static SPECS: &[&Spec] = &[
    &KERNEL_CONTROL_WRITE,
    &KERNEL_DEVICE_REMOVE,
    &AUTH_FILE_WRITE,
    &SYSTEM_CONFIG_WRITE,
    &SYSTEM_BINARY_WRITE,
    &NAME_RESOLUTION_WRITE,
];

/// How a command changes a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    /// `>`, `tee`, `dd of=`: the old content is replaced.
    Truncate,
    /// `>>`, `tee -a`: content is added.
    Append,
    /// `cp`, `mv` (destination), `install`, `ln`, a download: the file is replaced.
    Replace,
    /// `sed -i`, an editor: the file is edited in place.
    Edit,
    /// `rm`, `unlink`, `shred`, `mv` (source): the file goes away.
    Remove,
}

/// One path a command writes: normalised (`~` kept), with the word as written.
#[derive(Clone, Debug)]
pub struct Written {
    pub path: String,
    pub shown: String,
    pub kind: WriteKind,
}

/// Editors that write the files they are given.
const EDITORS: &[&str] = &[
    "vi", "vim", "nvim", "nano", "pico", "emacs", "ed", "ex", "joe", "mcedit", "sudoedit", "vis",
    "micro", "kak", "hx",
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    let n = Neighbours::of(a);
    for (i, cmd) in a.commands.iter().enumerate() {
        for w in written(&n, i, cmd) {
            if let Some(spec) = clobber_spec(&w.path) {
                push_once(out, spec, i, cmd, w.shown.clone());
            }
        }
        for path in output_option_values(cmd) {
            // Boot files are what boot tools write with `-o` (`grub-mkconfig -o
            // /boot/grub/grub.cfg`, `mkinitramfs -o /boot/initrd.img-…`).
            let norm = normalize(&path);
            if under(&norm, "/boot") {
                continue;
            }
            if let Some(spec) = clobber_spec(&norm) {
                push_once(out, spec, i, cmd, path);
            }
        }
    }
}

/// Options that name the file a program writes its output or log to, in most programs.
const OUTPUT_OPTIONS: &[&str] = &[
    "-o",
    "-O",
    "-out",
    "--output",
    "--outfile",
    "--out-file",
    "--output-file",
    "--outFile",
    "--output-document",
    "--log-file",
    "--logfile",
    "-Logfile",
    "--dump-bin",
    "--junit-xml",
    "-oG",
    "-oN",
    "-oX",
    "-oA",
    "-filename",
    "--filename",
];

/// The values of output options (`-o FILE`, `--output=FILE`, `-oFILE` with an absolute path):
/// judged as writes only when they name a system file (`sort -o /etc/passwd`, `openssl enc
/// -out /etc/sudoers`, `gcc -o /usr/bin/x`), so options of the same name that mean something
/// else never matter.
fn output_option_values(cmd: &Command) -> Vec<String> {
    let mut out: Vec<String> = option_values(cmd, OUTPUT_OPTIONS)
        .iter()
        .filter_map(|w| w.value().map(str::to_string))
        .collect();
    // `-oG=FILE` (nmap) and `-oFILE`: the value attached.
    for v in cmd.arg_values().take_while(|v| *v != "--") {
        match v.split_once('=') {
            Some((name, value)) if !name.starts_with("--") && OUTPUT_OPTIONS.contains(&name) => {
                out.push(value.to_string())
            }
            _ => out.extend(
                v.strip_prefix("-o")
                    .filter(|p| p.starts_with('/'))
                    .map(str::to_string),
            ),
        }
    }
    out.retain(|p| p.starts_with('/'));
    out
}

pub(super) fn clobber_spec(path: &str) -> Option<&'static Spec> {
    if is_auth_file(path) {
        Some(&AUTH_FILE_WRITE)
    } else if is_security_config(path) {
        Some(&SYSTEM_CONFIG_WRITE)
    } else if is_system_binary(path) {
        Some(&SYSTEM_BINARY_WRITE)
    } else if matches!(
        path,
        "/etc/hosts" | "/etc/resolv.conf" | "/etc/hosts.allow" | "/etc/hosts.deny"
    ) {
        Some(&NAME_RESOLUTION_WRITE)
    } else if matches!(
        path,
        "/proc/sysrq-trigger" | "/sys/power/state" | "/sys/power/disk"
    ) || path.starts_with("/sys/firmware/efi/efivars/")
    {
        Some(&KERNEL_CONTROL_WRITE)
    } else if path.starts_with("/sys/")
        && (path.ends_with("/device/delete")
            || path.ends_with("/unbind")
            || path.ends_with("/remove"))
    {
        Some(&KERNEL_DEVICE_REMOVE)
    } else {
        None
    }
}

fn is_auth_file(path: &str) -> bool {
    matches!(
        path,
        "/etc/passwd" | "/etc/shadow" | "/etc/group" | "/etc/gshadow" | "/etc/sudoers"
    ) || under_any(path, &["/etc/pam.d", "/boot"])
}

fn is_security_config(path: &str) -> bool {
    matches!(
        path,
        "/etc/ssh/sshd_config"
            | "/etc/fstab"
            | "/etc/crypttab"
            | "/etc/nsswitch.conf"
            | "/etc/login.defs"
            | "/etc/ld.so.conf"
            | "/etc/sysctl.conf"
            | "/etc/selinux/config"
    ) || under_any(
        path,
        &[
            "/etc/sudoers.d",
            "/etc/ssh/sshd_config.d",
            "/etc/security",
            "/etc/ld.so.conf.d",
            "/etc/modprobe.d",
            "/etc/sysctl.d",
            "/etc/apparmor.d",
        ],
    )
}

fn is_system_binary(path: &str) -> bool {
    under_any(
        path,
        &[
            "/bin",
            "/sbin",
            "/usr/bin",
            "/usr/sbin",
            "/lib",
            "/lib32",
            "/lib64",
            "/libx32",
            "/usr/lib",
            "/usr/lib32",
            "/usr/lib64",
            "/usr/libexec",
        ],
    ) && !matches!(
        path,
        "/bin" | "/sbin" | "/usr/bin" | "/usr/sbin" | "/lib" | "/usr/lib"
    )
}

/// True when `path` is one of `dirs` or inside one.
pub fn under_any(path: &str, dirs: &[&str]) -> bool {
    dirs.iter().any(|d| under(path, d))
}

/// True when `path` is `dir` or inside it.
pub fn under(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Pushes a signal unless the same spec was already raised on the same command. Families push
/// a command's signals together, so only the trailing signals of command `i` are compared.
pub fn push_once(
    out: &mut Vec<Signal>,
    spec: &'static Spec,
    i: usize,
    cmd: &Command,
    evidence: String,
) {
    let seen = out
        .iter()
        .rev()
        .take_while(|s| s.at == i)
        .any(|s| std::ptr::eq(s.spec, spec));
    if !seen {
        out.push(spec.on(i, cmd, vec![evidence]));
    }
}

/// The path a word names, normalised: its static value, or `$HOME/…`/`${HOME}/…` read as
/// `~/…` (the rest of the word must be static). Other dynamic words name nothing known.
pub fn path_value(word: &Word) -> Option<String> {
    if let Some(v) = word.value() {
        return Some(normalize_keep_home(v));
    }
    if !word.substitutions.is_empty() || !word.processes.is_empty() {
        return None;
    }
    text_path(&word.shown)
}

/// A path from shown text (`$X` marks expansions): static text, or `$HOME/` followed by
/// static text.
pub fn text_path(text: &str) -> Option<String> {
    let text = match text.strip_prefix("$HOME/") {
        Some(rest) => format!("~/{rest}"),
        None => text.to_string(),
    };
    (!text.contains('$')).then(|| normalize_keep_home(&text))
}

/// Normalises a path; a relative result keeps its first component (`~`, `~root`, `.ssh`).
fn normalize_keep_home(path: &str) -> String {
    let norm = normalize(path);
    if norm.is_empty() {
        path.to_string()
    } else {
        norm
    }
}

/// Facts about each command that depend on the rest of the text, computed once per family in
/// one pass: the directory an earlier `cd` at the same depth set, and the commands it wraps.
pub struct Neighbours {
    cwd: Vec<Option<String>>,
    children: Vec<Vec<usize>>,
}

impl Neighbours {
    pub fn of(a: &Analysis) -> Self {
        let mut cwd = Vec::with_capacity(a.commands.len());
        let mut children = vec![Vec::new(); a.commands.len()];
        let mut last_cd: std::collections::HashMap<usize, Option<String>> = Default::default();
        for (i, c) in a.commands.iter().enumerate() {
            cwd.push(last_cd.get(&c.context.depth).cloned().flatten());
            if c.is(&["cd", "pushd"]) && c.context.substitution.is_none() {
                let dir = c
                    .operands()
                    .first()
                    .and_then(|w| w.value())
                    .map(str::to_string);
                last_cd.insert(c.context.depth, dir);
            }
            if let Some(parent) = c.context.wrapped_by.and_then(|j| children.get_mut(j)) {
                parent.push(i);
            }
        }
        Neighbours { cwd, children }
    }

    /// The directory a relative path of command `i` resolves against, when a `cd` set it.
    pub fn cwd(&self, i: usize) -> Option<&str> {
        self.cwd.get(i).and_then(Option::as_deref)
    }

    /// The commands command `i` runs (wrapped argv, shell strings).
    pub fn wrapped(&self, i: usize) -> &[usize] {
        self.children.get(i).map(Vec::as_slice).unwrap_or_default()
    }
}

/// `path_value` resolved against a known `cd` for relative operands.
pub fn resolved_path(n: &Neighbours, index: usize, word: &Word) -> Option<String> {
    let path = path_value(word)?;
    if path.starts_with('/') || path.starts_with('~') {
        return Some(path);
    }
    match n.cwd(index) {
        Some(dir) if dir.starts_with('/') || dir.starts_with('~') => {
            Some(normalize_keep_home(&format!("{dir}/{path}")))
        }
        _ => Some(path),
    }
}

/// Operands of `cmd` after skipping options; `values` are short options that take a value,
/// `long_values` long ones (also accepted as `--opt=value`).
pub fn operands_skipping<'c>(
    cmd: &'c Command,
    values: &str,
    long_values: &[&str],
) -> Vec<&'c Word> {
    let mut out = Vec::new();
    let mut words = cmd.args.iter();
    let mut after_dashdash = false;
    while let Some(w) = words.next() {
        let v = w.value().unwrap_or_default();
        if after_dashdash || w.value().is_none() || v == "-" || !v.starts_with('-') {
            out.push(w);
        } else if v == "--" {
            after_dashdash = true;
        } else if let Some(long) = v.strip_prefix("--") {
            if long_values.contains(&long) {
                words.next();
            }
        } else if ends_with_value(v, values) {
            words.next();
        }
    }
    out
}

/// A short-option cluster whose last letter takes a value (`-rf` no, `-ni` no, `-Sc` yes for `c`).
fn ends_with_value(cluster: &str, values: &str) -> bool {
    let letters = &cluster[1..];
    match letters.char_indices().find(|(_, c)| values.contains(*c)) {
        Some((pos, _)) => pos + 1 == letters.len(),
        None => false,
    }
}

/// The values of an option given as `-o V`, `--long V` or `--long=V` (`names` lists each
/// spelling with its dashes).
pub fn option_values(cmd: &Command, names: &[&str]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut words = cmd.args.iter();
    while let Some(w) = words.next() {
        let Some(v) = w.value() else { continue };
        if v == "--" {
            break;
        }
        if names.contains(&v) || short_cluster_ending_in(v, names) {
            out.extend(words.next().cloned());
        } else if let Some((name, value)) = v.split_once('=') {
            if name.starts_with("--") && names.contains(&name) {
                out.push(Word::literal(value));
            }
        }
    }
    out
}

/// `-qO` for `-O`, `-sSLo` for `-o`: a cluster of letters whose last one is a value option.
fn short_cluster_ending_in(v: &str, names: &[&str]) -> bool {
    let Some(letters) = v.strip_prefix('-') else {
        return false;
    };
    letters.len() > 1
        && letters.chars().all(|c| c.is_ascii_alphabetic())
        && names
            .iter()
            .any(|n| n.len() == 2 && n.starts_with('-') && letters.ends_with(&n[1..]))
}

/// Every path `cmd` writes, replaces or removes.
pub fn written(n: &Neighbours, i: usize, cmd: &Command) -> Vec<Written> {
    let mut out = Vec::new();
    let mut add = |word: &Word, kind: WriteKind| {
        if let Some(path) = resolved_path(n, i, word) {
            out.push(Written {
                path,
                shown: word.shown.clone(),
                kind,
            });
        }
    };
    for r in cmd.redirects.iter().filter(|r| r.writes()) {
        let kind = if r.op.contains(">>") {
            WriteKind::Append
        } else {
            WriteKind::Truncate
        };
        add(&r.target, kind);
    }
    let Some(base) = cmd.base() else { return out };
    match base {
        "tee" => {
            let kind = if cmd.has_flag('a', "--append") {
                WriteKind::Append
            } else {
                WriteKind::Truncate
            };
            for w in cmd.operands() {
                add(w, kind);
            }
        }
        "cp" | "install" | "rsync" | "mv" | "ln" => {
            copy_targets(n, i, cmd, base, &mut out);
        }
        "dd" => {
            for w in &cmd.args {
                if let Some(target) = w.value().and_then(|v| v.strip_prefix("of=")) {
                    add(&Word::literal(target), WriteKind::Truncate);
                }
            }
        }
        "sed" | "perl" if in_place(cmd) => {
            for w in edited_files(cmd) {
                add(w, WriteKind::Edit);
            }
        }
        "truncate" => {
            for w in operands_skipping(cmd, "sr", &["size", "reference"]) {
                add(w, WriteKind::Truncate);
            }
        }
        "rm" | "unlink" | "shred" | "srm" => {
            for w in operands_skipping(cmd, "n", &["iterations", "size", "random-source"]) {
                add(w, WriteKind::Remove);
            }
        }
        "curl" => {
            for w in option_values(cmd, &["-o", "--output"]) {
                add(&w, WriteKind::Replace);
            }
        }
        "wget" => {
            for w in option_values(cmd, &["-O", "--output-document"]) {
                add(&w, WriteKind::Replace);
            }
        }
        "sudo" if cmd.has_flag('e', "--edit") => {
            for w in operands_skipping(cmd, "ughpCDrtTUR", &["user", "group", "host", "prompt"]) {
                add(w, WriteKind::Edit);
            }
        }
        _ if EDITORS.contains(&base) => {
            for w in operands_skipping(cmd, "cSTuiw", &["cmd"]) {
                if !w.value().is_some_and(|v| v.starts_with('+')) {
                    add(w, WriteKind::Edit);
                }
            }
        }
        _ => {}
    }
    out
}

fn in_place(cmd: &Command) -> bool {
    cmd.option_args().any(|o| {
        o == "--in-place" || o.starts_with("--in-place=") || !o.starts_with("--") && o.contains('i')
    })
}

/// The files `sed -i`/`perl -pi` edit: operands after the script (the first operand is the
/// script unless `-e`/`-f` gave it).
fn edited_files(cmd: &Command) -> Vec<&Word> {
    let scripted = cmd.option_args().any(|o| {
        matches!(o, "-e" | "-f" | "--expression" | "--file") || o.starts_with("--expression=")
    });
    let mut files = operands_skipping(cmd, "efl", &["expression", "file", "line-length"]);
    if !scripted && !files.is_empty() {
        files.remove(0);
    }
    files
}

/// Destinations of `cp`/`mv`/`install`/`rsync`/`ln` (the last operand or `-t DIR`; a directory
/// destination also yields `DIR/<source basename>`), and the sources `mv` removes.
fn copy_targets(n: &Neighbours, i: usize, cmd: &Command, base: &str, out: &mut Vec<Written>) {
    let operands = operands_skipping(
        cmd,
        "tSmogTe",
        &[
            "target-directory",
            "suffix",
            "mode",
            "owner",
            "group",
            "rsh",
        ],
    );
    if base == "rsync"
        && operands
            .last()
            .is_some_and(|w| w.value().is_some_and(is_remote))
    {
        return;
    }
    let target_dir = option_values(cmd, &["-t", "--target-directory"])
        .into_iter()
        .next();
    let (sources, dest): (Vec<&Word>, Option<&Word>) = match &target_dir {
        Some(dir) => (operands, Some(dir)),
        None if operands.len() >= 2 || base != "ln" => match operands.split_last() {
            Some((last, rest)) => (rest.to_vec(), Some(*last)),
            None => (Vec::new(), None),
        },
        None => (Vec::new(), None),
    };
    let Some(dest) = dest else { return };
    let Some(dest_path) = resolved_path(n, i, dest) else {
        return;
    };
    let kind = WriteKind::Replace;
    out.push(Written {
        path: dest_path.clone(),
        shown: dest.shown.clone(),
        kind,
    });
    for src in &sources {
        if let Some(name) = path_value(src).and_then(|p| p.rsplit('/').next().map(str::to_string)) {
            out.push(Written {
                path: format!("{}/{name}", dest_path.trim_end_matches('/')),
                shown: dest.shown.clone(),
                kind,
            });
        }
        if base == "mv" {
            if let Some(path) = resolved_path(n, i, src) {
                out.push(Written {
                    path,
                    shown: src.shown.clone(),
                    kind: WriteKind::Remove,
                });
            }
        }
    }
}

/// `host:path`, `user@host:path`, `rsync://…`: an operand on another machine.
pub fn is_remote(operand: &str) -> bool {
    if operand.contains("://") {
        return true;
    }
    match operand.split_once(':') {
        Some((host, _)) => !host.is_empty() && !host.contains('/'),
        None => false,
    }
}
