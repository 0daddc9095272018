//! Path reasoning shared by the rule families: lexical normalisation (`//`, `/./`, `..`,
//! trailing `/`), the system-path set, block devices and home directories.

/// Lexically normalises an absolute path: collapses `//` and `/./`, applies `..`, drops a
/// trailing `/`. Relative paths are returned with the same treatment and no leading `/`.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    // `/proc/self/root`, `/proc/thread-self/root` and `/proc/1/root` are the root directory as
    // the process sees it: `/proc/self/root/dev/sda` is `/dev/sda`.
    if absolute
        && parts.len() >= 3
        && parts[0] == "proc"
        && parts[2] == "root"
        && matches!(parts[1], "self" | "thread-self" | "1")
    {
        parts.drain(..3);
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Top-level directories whose loss breaks or empties the system.
const SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media",
    "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/usr", "/var",
];

/// Second-level directories that are as vital as their parents.
const SYSTEM_SUBDIRS: &[&str] = &[
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/local",
    "/usr/share",
    "/usr/include",
    "/usr/src",
    "/var/lib",
    "/var/log",
    "/var/spool",
    "/var/backups",
    "/var/mail",
    "/var/www",
    "/var/opt",
    "/etc/ssh",
    "/etc/systemd",
    "/etc/pam.d",
    "/etc/sudoers.d",
    "/boot/efi",
    "/sys/firmware",
    "/sys/firmware/efi/efivars",
];

/// True when `path` (a static word value) names the root, a system directory, everything
/// inside one (`/etc/*`, `/usr/.*`), or a home directory (`~`, `~/`, `~user`).
pub fn is_system_path(path: &str) -> bool {
    if is_home(path) {
        return true;
    }
    // `~/../../usr`, `~+/..`, `~bob/../../etc`: a home is two levels below `/`, so climbing out
    // of one reaches the system (`~` stands for `/home/NAME` here).
    let from_home = path
        .strip_prefix('~')
        .and_then(|rest| rest.split_once('/'))
        .filter(|(_, tail)| tail.split('/').any(|part| part == ".."))
        .map(|(_, tail)| format!("/home/~/{tail}"));
    let path = from_home.as_deref().unwrap_or(path);
    if !path.starts_with('/') {
        return false;
    }
    let norm = normalize(path);
    if norm == "/" {
        return true;
    }
    // A glob that sweeps a whole directory counts as that directory.
    let swept = sweep_parent(&norm).unwrap_or(&norm);
    swept == "/" || SYSTEM_DIRS.contains(&swept) || SYSTEM_SUBDIRS.contains(&swept)
}

/// Directories that hold a service's or a user's data rather than the system: a web root
/// (`/var/www`), `/srv`, one application under `/opt` (`/opt/app`, not `/opt`), one user's home
/// (`/home/alice`). Changing permissions or ownership inside them is administration.
const DATA_DIRS: &[&str] = &["/var/www", "/srv"];
const DATA_PARENTS: &[&str] = &["/opt", "/home"];

/// True when `path` (after normalisation, a sweeping glob counting as its directory) is a data
/// directory or lies inside one.
pub fn is_data_dir(path: &str) -> bool {
    if !path.starts_with('/') {
        return false;
    }
    let norm = normalize(path);
    let swept = sweep_parent(&norm).unwrap_or(&norm);
    let inside = |d: &str| swept == d || swept.starts_with(&format!("{d}/"));
    DATA_DIRS.iter().any(|d| inside(d))
        || DATA_PARENTS.iter().any(|d| {
            swept
                .strip_prefix(&format!("{d}/"))
                .is_some_and(|rest| !rest.is_empty() && !rest.contains(['*', '?', '[']))
        })
}

/// The system paths a recursive permission or ownership change must not sweep: the system-path
/// set without the data directories.
pub fn is_permission_system_path(path: &str) -> bool {
    is_system_path(path) && !is_data_dir(path)
}

/// For `/dir/*`, `/dir/.*`, `/dir/*.*` and `/dir/{…}`-free globs that match every entry, the
/// directory; `/*` gives `/`.
fn sweep_parent(norm: &str) -> Option<&str> {
    let (parent, last) = norm.rsplit_once('/')?;
    if matches!(last, "*" | ".*" | "*.*" | "**" | ".[!.]*" | "?*" | "[!.]*") {
        Some(if parent.is_empty() { "/" } else { parent })
    } else {
        None
    }
}

/// `~`, `~/`, `~/*`, `~user`: a home directory as a whole.
pub fn is_home(path: &str) -> bool {
    let Some(rest) = path.strip_prefix('~') else {
        return false;
    };
    let rest = rest.trim_end_matches('/');
    match rest.split_once('/') {
        None => !rest.contains(['*', '?']) || rest.is_empty(),
        Some((_, tail)) => matches!(tail, "*" | ".*" | ""),
    }
}

/// Block devices whose overwrite destroys a disk or partition.
const BLOCK_PREFIXES: &[&str] = &[
    "/dev/sd",
    "/dev/hd",
    "/dev/vd",
    "/dev/xvd",
    "/dev/nvme",
    "/dev/mmcblk",
    "/dev/md",
    "/dev/dm-",
    "/dev/mapper/",
    "/dev/disk/",
    "/dev/loop",
    "/dev/sr",
    "/dev/nbd",
    "/dev/zd",
    "/dev/rbd",
    "/dev/mtdblock",
    "/dev/bcache",
];

/// Directories under `/dev` that hold no block devices: `/dev/VG/LV` is an LVM logical volume
/// for any other two-level name.
const DEV_NON_BLOCK_DIRS: &[&str] = &[
    "fd",
    "pts",
    "shm",
    "net",
    "input",
    "snd",
    "dri",
    "bus",
    "char",
    "hugepages",
    "mqueue",
    "cpu",
    "usb",
    "serial",
    "vfio",
    "dma_heap",
    "hidraw",
    "v4l",
    "block",
    "ptp",
    "tty",
];

fn is_lvm_volume(norm: &str) -> bool {
    let parts: Vec<&str> = norm.split('/').collect();
    parts.len() == 4
        && parts[0].is_empty()
        && parts[1] == "dev"
        && !parts[3].is_empty()
        && !DEV_NON_BLOCK_DIRS.contains(&parts[2])
        && !parts[2].starts_with('.')
}

/// True for a path that names a block device (after normalisation, so `/dev/./sda` counts).
pub fn is_block_device(path: &str) -> bool {
    let norm = normalize(path);
    BLOCK_PREFIXES
        .iter()
        .any(|p| norm.starts_with(p) && norm.len() > p.len())
        || is_lvm_volume(&norm)
        || matches!(norm.as_str(), "/dev/mem" | "/dev/kmem" | "/dev/port")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_path_table() {
        let yes = [
            "/",
            "//",
            "/./",
            "/etc",
            "/etc/",
            "//etc",
            "/./etc",
            "/tmp/../etc",
            "/*",
            "/etc/*",
            "/home/*",
            "/usr/local",
            "/lib64",
            "/opt",
            "/srv",
            "/proc",
            "/sys",
            "/run",
            "/mnt",
            "~",
            "~/",
            "~/*",
            "~root",
            "/var/lib",
        ];
        let no = [
            "/tmp",
            "/tmp/x",
            "/var/cache/*",
            "/etc/nginx",
            "build",
            "./build",
            "/home/u/x",
            "~/x",
        ];
        for p in yes {
            assert!(is_system_path(p), "{p} should be a system path");
        }
        for p in no {
            assert!(!is_system_path(p), "{p} should not be a system path");
        }
    }

    #[test]
    fn permission_system_path_table() {
        let yes = [
            "/",
            "/etc",
            "/usr",
            "/var",
            "/opt",
            "/home",
            "/home/*",
            "/opt/*",
            "/var/www/../../etc",
            "/srv/../etc",
            "/var/lib",
            "~",
        ];
        let no = [
            "/var/www",
            "/var/www/*",
            "/var/www/html",
            "/srv",
            "/srv/app",
            "/opt/app",
            "/opt/app/data",
            "/home/alice",
            "/home/alice/*",
        ];
        for p in yes {
            assert!(is_permission_system_path(p), "{p} should be a system path");
        }
        for p in no {
            assert!(
                !is_permission_system_path(p),
                "{p} should be a data directory"
            );
        }
    }

    #[test]
    fn block_device_table() {
        for p in [
            "/dev/sda",
            "/dev/./sda",
            "/dev/nvme0n1",
            "/dev/xvda1",
            "/dev/mmcblk0",
            "/dev/hda",
        ] {
            assert!(is_block_device(p), "{p}");
        }
        for p in [
            "/dev/null",
            "/dev/zero",
            "/dev/tty",
            "/dev/sd",
            "/dev/stdout",
        ] {
            assert!(!is_block_device(p), "{p}");
        }
    }
}
