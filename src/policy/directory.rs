//! Reading a policy directory as one snapshot: the directory is opened once and every module,
//! test module and data file is read relative to that descriptor, bounded in bytes, regular files
//! only; afterwards every identity is re-checked and a directory that changed is read again (a
//! bounded number of times). Also the digest over exactly the bytes read.

use super::cache;
use super::error::PolicyError;
use nix::dir::{Dir, Type};
use nix::fcntl::{self, OFlag};
use nix::sys::stat::{self, FileStat, Mode, SFlag};
use sha2::{Digest, Sha256};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One policy file larger than this is refused (a policy is a few KiB).
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// All files of one directory together.
pub const MAX_TOTAL_BYTES: u64 = 32 * 1024 * 1024;
/// Files of one directory (modules, tests and data) that are read at all. (The RVM takes fewer
/// modules still: see `engine::MAX_MODULES`.)
pub const MAX_FILES: usize = 1024;
/// Reads of a directory that keeps changing before the decision is `policy.unstable`.
pub const ATTEMPTS: usize = 5;
/// A file (or the directory's listing) changed less than this long ago may be half written by
/// an in-place writer, or be one step of a deploy of several: it is read only once it has been
/// left alone this long. No reader can tell an update that paused longer than this from a
/// finished one; the safe deploy swaps a symlink to a complete directory. (Far longer than any
/// kernel's coarse timestamp tick, and than a writer's pause on a loaded machine; a deploy
/// delays the commands that start within it, once.)
pub const SETTLE: Duration = Duration::from_millis(500);

/// The files of a policy directory, read and sorted by file name.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sources {
    pub(crate) modules: Vec<SourceFile>,
    pub(crate) tests: Vec<SourceFile>,
    pub(crate) data: Vec<SourceFile>,
}

#[derive(Clone, Debug)]
pub(crate) struct SourceFile {
    pub(crate) path: PathBuf,
    pub(crate) name: String,
    pub(crate) text: String,
}

/// Why one read of the directory is not a snapshot.
enum Unsettled {
    /// Something changed while it was read: read again now.
    Changed(String),
    /// Something changed too recently to be known complete: read again once it is `SETTLE` old.
    Recent { what: String, wait: Duration },
}

/// Read the directory listing and every relevant file (test modules only `with_tests`), sorted
/// by file name, all from one version of the directory.
pub(crate) fn read_sources(dir: &Path, with_tests: bool) -> Result<Sources, PolicyError> {
    let mut last = String::new();
    for _ in 0..ATTEMPTS {
        match read_once(dir, with_tests)? {
            Ok(sources) => return Ok(sources),
            Err(Unsettled::Changed(what)) => last = what,
            Err(Unsettled::Recent { what, wait }) => {
                last = what;
                std::thread::sleep(wait);
            }
        }
    }
    Err(PolicyError::Unstable {
        dir: dir.to_path_buf(),
        attempts: ATTEMPTS,
        what: last,
    })
}

/// The identity of a file or directory as far as a change would show.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    size: i64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Identity {
    fn of(st: &FileStat) -> Self {
        Self {
            dev: st.st_dev,
            ino: st.st_ino,
            size: st.st_size,
            mtime: (st.st_mtime, st.st_mtime_nsec),
            ctime: (st.st_ctime, st.st_ctime_nsec),
        }
    }
}

fn read_once(dir: &Path, with_tests: bool) -> Result<Result<Sources, Unsettled>, PolicyError> {
    let dir_error = |errno: nix::Error| match errno {
        nix::Error::ENOENT => PolicyError::DirMissing {
            dir: dir.to_path_buf(),
        },
        other => PolicyError::DirUnreadable {
            dir: dir.to_path_buf(),
            source: other.into(),
        },
    };
    // A symlinked directory is resolved here, once; everything below reads through `dirfd`.
    let dirfd = fcntl::open(
        dir,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK,
        Mode::empty(),
    )
    .map_err(dir_error)?;
    let dir_before = Identity::of(&stat::fstat(&dirfd).map_err(dir_error)?);
    if let Some(wait) = too_recent(dir_before.mtime) {
        return Ok(Err(Unsettled::Recent {
            what: "its listing changed".to_string(),
            wait,
        }));
    }
    let names = list(&dirfd, dir, with_tests)?;
    if names.len() > MAX_FILES {
        return Err(PolicyError::TooManyFiles {
            dir: dir.to_path_buf(),
            count: names.len(),
            limit: MAX_FILES,
        });
    }
    let mut sources = Sources::default();
    let mut read = Vec::with_capacity(names.len());
    let mut total = 0u64;
    for name in names {
        let path = dir.join(&name);
        let (text, identity) = match read_file(&dirfd, &name, &path)? {
            Ok(read) => read,
            Err(unsettled) => return Ok(Err(unsettled)),
        };
        total += text.len() as u64;
        if total > MAX_TOTAL_BYTES {
            return Err(PolicyError::TooLarge {
                file: dir.to_path_buf(),
                limit: MAX_TOTAL_BYTES,
            });
        }
        read.push((name.clone(), identity));
        let file = SourceFile { path, name, text };
        if file.name.ends_with("_test.rego") {
            sources.tests.push(file);
        } else if file.name.ends_with(".rego") {
            sources.modules.push(file);
        } else {
            sources.data.push(file);
        }
    }
    Ok(recheck(&dirfd, dir, dir_before, &read, with_tests).map(|()| sources))
}

/// After every file was read: the directory's listing and every file are as they were, and the
/// configured path still resolves to the directory that was read.
fn recheck(
    dirfd: &OwnedFd,
    dir: &Path,
    dir_before: Identity,
    read: &[(String, Identity)],
    with_tests: bool,
) -> Result<(), Unsettled> {
    let changed = |what: String| Err(Unsettled::Changed(what));
    match stat::fstat(dirfd) {
        Ok(st) if Identity::of(&st) == dir_before => {}
        _ => return changed("its listing changed while it was read".to_string()),
    }
    match stat::stat(dir) {
        Ok(st) if (st.st_dev, st.st_ino) == (dir_before.dev, dir_before.ino) => {}
        _ => return changed("the path was re-pointed while it was read".to_string()),
    }
    let names: Vec<&str> = read.iter().map(|(n, _)| n.as_str()).collect();
    match list(dirfd, dir, with_tests) {
        Ok(now) if now == names => {}
        _ => return changed("its listing changed while it was read".to_string()),
    }
    for (name, before) in read {
        match stat::fstatat(dirfd, name.as_str(), fcntl::AtFlags::empty()) {
            Ok(st) if Identity::of(&st) == *before => {}
            _ => return changed(format!("{name} changed while it was read")),
        }
    }
    Ok(())
}

/// The wanted names of the directory, sorted: `*.rego` (`*_test.rego` only `with_tests`) and
/// `*.json`, not hidden. An entry of such a name that is a directory is refused.
fn list(dirfd: &OwnedFd, dir: &Path, with_tests: bool) -> Result<Vec<String>, PolicyError> {
    let unreadable = |e: nix::Error| PolicyError::DirUnreadable {
        dir: dir.to_path_buf(),
        source: e.into(),
    };
    let mut listing = Dir::openat(
        dirfd.as_fd(),
        ".",
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(unreadable)?;
    let mut names = Vec::new();
    for entry in listing.iter() {
        let entry = entry.map_err(unreadable)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let wanted = (name.ends_with(".rego") && (with_tests || !name.ends_with("_test.rego")))
            || name.ends_with(".json");
        if !wanted || name.starts_with('.') {
            continue;
        }
        // Files are opened by name again: one that is not UTF-8 could not be (nor named plainly).
        if entry.file_name().to_str().is_err() {
            return Err(PolicyError::NameNotUtf8 {
                file: dir.join(&name),
            });
        }
        if entry.file_type() == Some(Type::Directory) {
            return Err(PolicyError::NotRegular {
                file: dir.join(&name),
                kind: "a directory",
            });
        }
        names.push(name);
    }
    names.sort();
    Ok(names)
}

/// One file, read relative to `dirfd` (a link inside the directory is followed; the trust
/// check vouched for it): a regular file within [`MAX_FILE_BYTES`], opened without blocking,
/// its whole content read at the size it had, unchanged while it was read, and changed no less
/// than [`SETTLE`] ago.
fn read_file(
    dirfd: &OwnedFd,
    name: &str,
    path: &Path,
) -> Result<Result<(String, Identity), Unsettled>, PolicyError> {
    use std::io::Read;
    let unreadable = |e: std::io::Error| PolicyError::FileUnreadable {
        file: path.to_path_buf(),
        source: e,
    };
    let fd = match fcntl::openat(
        dirfd,
        name,
        OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC | OFlag::O_NOCTTY,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        // Listed a moment ago: removed since (a dangling link stays listed, and is an error on
        // the next reading too).
        Err(nix::Error::ENOENT)
            if stat::fstatat(dirfd, name, fcntl::AtFlags::AT_SYMLINK_NOFOLLOW).is_err() =>
        {
            return Ok(Err(Unsettled::Changed(format!(
                "{name} was removed while it was read"
            ))));
        }
        Err(e) => return Err(unreadable(e.into())),
    };
    let before = stat::fstat(&fd).map_err(|e| unreadable(e.into()))?;
    let kind = SFlag::from_bits_truncate(before.st_mode & SFlag::S_IFMT.bits());
    if kind != SFlag::S_IFREG {
        return Err(PolicyError::NotRegular {
            file: path.to_path_buf(),
            kind: kind_name(kind),
        });
    }
    let identity = Identity::of(&before);
    if identity.size < 0 || identity.size as u64 > MAX_FILE_BYTES {
        return Err(PolicyError::TooLarge {
            file: path.to_path_buf(),
            limit: MAX_FILE_BYTES,
        });
    }
    if let Some(wait) = too_recent(identity.ctime) {
        return Ok(Err(Unsettled::Recent {
            what: format!("{name} changed less than {} ms ago", SETTLE.as_millis()),
            wait,
        }));
    }
    let size = identity.size as u64;
    let mut bytes = Vec::with_capacity(size as usize + 1);
    let mut file = std::fs::File::from(fd);
    Read::take(&mut file, size + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    let after = stat::fstat(&file).map_err(|e| unreadable(e.into()))?;
    if bytes.len() as u64 != size || Identity::of(&after) != identity {
        return Ok(Err(Unsettled::Changed(format!(
            "{name} changed while it was read"
        ))));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| unreadable(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    Ok(Ok((text, identity)))
}

/// How long to wait until a change at `time` (seconds, nanoseconds since the epoch) is
/// [`SETTLE`] old, or `None` if it is already. A time further in the future than `SETTLE` is a
/// clock that was set back, not a write in progress (which stamps the current time).
fn too_recent((secs, nanos): (i64, i64)) -> Option<Duration> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    let then = Duration::new(u64::try_from(secs).ok()?, u32::try_from(nanos).ok()?);
    match now.checked_sub(then) {
        Some(age) => SETTLE.checked_sub(age).filter(|w| !w.is_zero()),
        None => (then - now < SETTLE).then_some(SETTLE),
    }
}

fn kind_name(kind: SFlag) -> &'static str {
    match kind {
        SFlag::S_IFIFO => "a FIFO",
        SFlag::S_IFCHR => "a character device",
        SFlag::S_IFBLK => "a block device",
        SFlag::S_IFDIR => "a directory",
        SFlag::S_IFSOCK => "a socket",
        _ => "not a regular file",
    }
}

/// The digest enforcement would record for `dir` ([`digest`] over one snapshot of it), without
/// compiling anything.
pub fn digest_of(dir: &Path) -> Result<String, PolicyError> {
    read_sources(dir, false).map(|sources| digest(&sources))
}

/// Hex sha256 over (name, length, contents) of every module and data file, in name order: over
/// exactly the bytes that are evaluated.
pub(crate) fn digest(sources: &Sources) -> String {
    let mut files: Vec<&SourceFile> = sources.modules.iter().chain(&sources.data).collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let mut hasher = Sha256::new();
    for file in files {
        hasher.update((file.name.len() as u64).to_le_bytes());
        hasher.update(file.name.as_bytes());
        hasher.update((file.text.len() as u64).to_le_bytes());
        hasher.update(file.text.as_bytes());
    }
    cache::hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_recent_table() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let at = |d: Duration| (d.as_secs() as i64, i64::from(d.subsec_nanos()));
        let cases = [
            (at(now - Duration::from_secs(3600)), false),
            (at(now - SETTLE * 3), false),
            (at(now - SETTLE / 10), true),
            (at(now), true),
            (at(now + SETTLE / 10), true),
            (at(now + Duration::from_secs(3600)), false),
        ];
        for (time, recent) in cases {
            assert_eq!(too_recent(time).is_some(), recent, "{time:?}");
        }
    }
}
