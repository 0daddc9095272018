//! The compiled-policy cache: one file per key (policy digest, regorus version, RVM format
//! version, entry points) holding regorus's serialized RVM program behind a header that is
//! verified before use. Writes are atomic (temp file in the same directory, then rename); one
//! process compiles a missing program while the others wait for its file (a lock file per key);
//! each write prunes what nobody has used for [`UNUSED_FOR`] (whatever its format: binaries of
//! several versions may share the directory) and abandoned temps.

use super::decision::{ENTRY_POINTS, REQUIRED_ONE_OF};
use super::entry::{combined_path, entry_path};
use regorus::rvm::program::{DeserializationResult, Program};
use sha2::{Digest, Sha256};
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Leading bytes of every cache file (the cache format); bump the digits when the header layout
/// or what the payload holds changes (it is part of the key, so files of the old form are left to
/// the binaries that read them, and pruned once unused). 03: programs without their Rego sources;
/// 04: nor instruction spans; 05: the combined entry point answers six entry points (with
/// `deny_reasons` and `approval_reasons`), not four.
pub const MAGIC: &[u8; 8] = b"GSHRVM05";
/// Header: magic, key (64 hex bytes), payload sha256 (32 bytes), payload length (u64 LE).
const HEADER_LEN: usize = 8 + 64 + 32 + 8;
/// Cache files larger than this are not read (a policy program is a few KiB to a few MiB).
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// A temp file older than this was left by a writer that died before its rename.
const ABANDONED_TEMP: Duration = Duration::from_secs(3600);
/// A cache file neither read nor written for this long is removed by the next write, whatever
/// its format. (Its access time says when it was last read where the filesystem keeps one, at
/// least daily under `relatime`; on a `noatime` mount a program still in use is compiled again
/// once per this period.)
pub const UNUSED_FOR: Duration = Duration::from_secs(30 * 24 * 3600);
/// How long a process waits for another one that is compiling the same program before it
/// compiles the program itself (in memory).
pub const COMPILE_WAIT: Duration = Duration::from_secs(5);
/// How often the waiting process looks for the file.
const COMPILE_POLL: Duration = Duration::from_millis(10);

/// Why a cache lookup did not produce a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheMiss {
    /// No file for this key.
    Absent,
    /// A file exists but failed verification (truncated, corrupt, other key, old format).
    Invalid(String),
}

/// The regorus version that compiled (and will run) the program (read once per process from
/// what `Program::new` records).
pub fn regorus_version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| Program::new().metadata.compiler_version)
}

/// The cache key: sha256 over the policy digest, regorus version, RVM serialization version,
/// this header's version and the load checks' version ([`super::lint::VERSION`]: a program is
/// stored only after the checks passed, so one stored under other checks is not used). The entry
/// points compiled are read back from the program itself.
pub fn cache_key(digest: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(MAGIC);
    let serialization = Program::SERIALIZATION_VERSION.to_string();
    for part in [
        digest,
        regorus_version(),
        serialization.as_str(),
        super::lint::VERSION,
    ] {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize())
}

/// The file that holds (or would hold) the program for `key`.
pub fn cache_file(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.rvm"))
}

/// A cached program and the `data.honey` entry names it was compiled for.
pub type Cached = (Arc<Program>, Vec<String>);

/// Read and verify the program for `key`; any doubt is a miss, never an error. Returns the
/// program and the `data.honey` entry names it was compiled for (`allow`, or a reason set, among them);
/// its first entry point is the combined rule of [`super::entry`].
pub fn read(dir: &Path, key: &str) -> Result<Cached, CacheMiss> {
    let bytes = read_trusted(&cache_file(dir, key))?;
    let payload = verify_header(&bytes, key)?;
    let program = match Program::deserialize_binary(payload) {
        Ok(DeserializationResult::Complete(program)) => program,
        Ok(DeserializationResult::Partial(_)) => return Err(invalid("partial program")),
        Err(e) => return Err(invalid(&e)),
    };
    if program.metadata.compiler_version != regorus_version() {
        return Err(invalid("compiled by another regorus version"));
    }
    let mut paths = program.entry_points.keys();
    if paths.next().map(|p| p.as_str()) != Some(combined_path().as_str()) {
        return Err(invalid("no combined entry point"));
    }
    let mut names = Vec::new();
    for path in paths {
        match ENTRY_POINTS.iter().find(|name| entry_path(name) == *path) {
            Some(name) => names.push((*name).to_string()),
            None => return Err(invalid("unexpected entry point")),
        }
    }
    if !names.iter().any(|n| REQUIRED_ONE_OF.contains(&n.as_str())) {
        return Err(invalid("no allow entry point"));
    }
    Ok((Arc::new(program), names))
}

/// The lock a process holds while it compiles the program for a key (released when dropped).
pub struct Compiling {
    _lock: nix::fcntl::Flock<std::fs::File>,
}

/// [`read`], and on a miss, the right to compile: the lock of `key` (when another process holds
/// it, the program it is compiling is waited for, up to [`COMPILE_WAIT`]; then, or when the lock
/// file cannot be had, the caller compiles without it). The miss is the first lookup's.
pub fn read_or_lock(dir: &Path, key: &str) -> Result<Cached, (CacheMiss, Option<Compiling>)> {
    use nix::fcntl::{Flock, FlockArg};
    let miss = match read(dir, key) {
        Ok(found) => return Ok(found),
        Err(miss) => miss,
    };
    let Some(mut file) = lock_file(dir, key) else {
        return Err((miss, None));
    };
    let deadline = Instant::now() + COMPILE_WAIT;
    loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            // Whoever held the lock may have stored the program just before releasing it.
            Ok(lock) => {
                return read(dir, key).map_err(|_| (miss, Some(Compiling { _lock: lock })));
            }
            Err((f, nix::Error::EWOULDBLOCK)) => file = f,
            Err(_) => return Err((miss, None)),
        }
        if Instant::now() >= deadline {
            return Err((miss, None));
        }
        std::thread::sleep(COMPILE_POLL);
        if let Ok(found) = read(dir, key) {
            return Ok(found);
        }
    }
}

/// `.<key>.lock` in `dir`, created (mode 0644) where this process may, else opened for reading
/// (a lock works on either); a link or anything but a regular file is not used.
fn lock_file(dir: &Path, key: &str) -> Option<std::fs::File> {
    let path = dir.join(format!(".{key}.lock"));
    let flags = nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .custom_flags(flags)
        .open(&path)
        .or_else(|_| {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(flags)
                .open(&path)
        })
        .ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

/// Reads a cache file only if it is a regular file (not a link, FIFO or device: opened with
/// `O_NOFOLLOW | O_NONBLOCK` and checked on the open descriptor), owned by root or by this
/// process's user, writable by nobody else, and within `MAX_FILE_BYTES`. The header checksum
/// detects damage, not forgery; ownership and mode are what keep a gated user from planting a
/// program compiled from a policy of their own.
fn read_trusted(path: &Path) -> Result<Vec<u8>, CacheMiss> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CacheMiss::Absent),
        Err(e) => return Err(invalid(&e.to_string())),
    };
    let meta = file.metadata().map_err(|e| invalid(&e.to_string()))?;
    if !meta.is_file() {
        return Err(invalid("not a regular file"));
    }
    let euid = nix::unistd::geteuid().as_raw();
    if meta.uid() != 0 && meta.uid() != euid {
        return Err(invalid("owned by another user"));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(invalid("writable by group or others"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(invalid("file too large"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + 1);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| invalid(&e.to_string()))?;
    Ok(bytes)
}

/// Serialize `program` and store it for `key`: temp file in `dir` (mode 0644), fsync, rename.
pub fn write(dir: &Path, key: &str, program: &Program) -> std::io::Result<PathBuf> {
    let payload = program.serialize_binary().map_err(std::io::Error::other)?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(key.as_bytes());
    bytes.extend_from_slice(&Sha256::digest(&payload));
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&payload);

    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{key}.{}.{unique}.tmp", std::process::id()));
    let target = cache_file(dir, key);
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&temp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
        return result.map(|()| target);
    }
    prune(dir);
    Ok(target)
}

/// Removes from `dir`, and returns how many files it removed: cache files (any format, this
/// binary's, an older's or a newer's, or with no guarded-sh header) neither read nor written for
/// [`UNUSED_FOR`], and temp and lock files abandoned over an hour ago. A file another version
/// still uses is therefore never removed by this one's write; a format nobody runs any more goes
/// after [`UNUSED_FOR`]. Anything that is not a regular file or not named like a cache file
/// stays. Runs only after a write (a policy change or an upgrade), never on the path of a cache
/// hit; every error is ignored (housekeeping never decides anything).
pub fn prune(dir: &Path) -> usize {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let age = |secs: i64| {
        let then = std::time::UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap_or(0));
        now.duration_since(then).unwrap_or_default()
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        // A directory entry's metadata is the entry's own: a link is never followed, and never
        // removed.
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let stale = if is_temp_name(name) {
            age(meta.mtime()) > ABANDONED_TEMP
        } else if is_lock_name(name) {
            age(meta.mtime()) > ABANDONED_TEMP && unlocked(&entry.path())
        } else if is_cache_name(name) {
            age(meta.mtime().max(meta.atime())) > UNUSED_FOR
        } else {
            false
        };
        if stale && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// `<key>.rvm`, as [`cache_file`] names them.
fn is_cache_name(name: &str) -> bool {
    name.strip_suffix(".rvm").is_some_and(is_key)
}

/// `.<key>.<pid>.<n>.tmp`, as [`write`] names its temp files.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp") && name.get(1..65).is_some_and(is_key)
}

/// `.<key>.lock`, as [`lock_file`] names them.
fn is_lock_name(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".lock"))
        .is_some_and(is_key)
}

/// 64 lower-case hex digits, as [`cache_key`] writes them.
fn is_key(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether nobody holds the lock file at `path` (a lock file in use is never removed).
fn unlocked(path: &Path) -> bool {
    std::fs::File::open(path).is_ok_and(|f| {
        nix::fcntl::Flock::lock(f, nix::fcntl::FlockArg::LockExclusiveNonblock).is_ok()
    })
}

/// The two digits after `GSHRVM`, as a number (`None` for any other header).
pub fn format_version(head: &[u8; 8]) -> Option<u8> {
    match head {
        [b'G', b'S', b'H', b'R', b'V', b'M', tens, ones]
            if tens.is_ascii_digit() && ones.is_ascii_digit() =>
        {
            Some((tens - b'0') * 10 + (ones - b'0'))
        }
        _ => None,
    }
}

fn verify_header<'a>(bytes: &'a [u8], key: &str) -> Result<&'a [u8], CacheMiss> {
    let header = bytes
        .get(..HEADER_LEN)
        .ok_or_else(|| invalid("truncated header"))?;
    let (magic, rest) = header.split_at(MAGIC.len());
    let (stored_key, rest) = rest.split_at(64);
    let (stored_sum, stored_len) = rest.split_at(32);
    if magic != MAGIC {
        return Err(invalid("not a guarded-sh cache file"));
    }
    if stored_key != key.as_bytes() {
        return Err(invalid("stored for another key"));
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(stored_len);
    let payload = bytes.get(HEADER_LEN..).unwrap_or_default();
    if u64::from_le_bytes(len) != payload.len() as u64 {
        return Err(invalid("truncated payload"));
    }
    if Sha256::digest(payload).as_slice() != stored_sum {
        return Err(invalid("checksum mismatch"));
    }
    Ok(payload)
}

fn invalid(why: &str) -> CacheMiss {
    CacheMiss::Invalid(why.to_string())
}

/// Lower-case hex of `bytes` (on every gated command, twice: no formatting machinery).
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        for nibble in [b >> 4, b & 0x0f] {
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn hex_table() {
        for (bytes, text) in [
            (&[][..], ""),
            (&[0x00][..], "00"),
            (&[0x0f, 0xf0, 0xa5][..], "0ff0a5"),
            (&[0xff, 0x01, 0x9c, 0x10][..], "ff019c10"),
        ] {
            assert_eq!(hex(bytes), text);
        }
    }

    #[test]
    fn format_version_table() {
        for (head, version) in [
            (b"GSHRVM04", Some(4)),
            (b"GSHRVM03", Some(3)),
            (b"GSHRVM10", Some(10)),
            (b"GSHRVM99", Some(99)),
            (b"GSHRVMx4", None),
            (b"GSHRVM0 ", None),
            (b"REGO\x06\0\0\0", None),
            (b"gshrvm04", None),
        ] {
            assert_eq!(format_version(head), version, "{head:?}");
        }
        assert_eq!(format_version(MAGIC), Some(5), "bump this test with MAGIC");
    }

    #[test]
    fn key_depends_on_digest() {
        assert_eq!(cache_key("a"), cache_key("a"));
        assert_ne!(cache_key("a"), cache_key("b"));
        assert_eq!(cache_key("a").len(), 64);
    }

    /// A program stored by a binary without the load-time lint (same magic, same regorus) is
    /// not found under this binary's key: it may hold a policy the lint refuses.
    #[test]
    fn key_depends_on_the_load_checks() {
        let without_checks = |digest: &str| {
            let mut hasher = Sha256::new();
            hasher.update(MAGIC);
            let serialization = Program::SERIALIZATION_VERSION.to_string();
            for part in [digest, regorus_version(), serialization.as_str()] {
                hasher.update((part.len() as u64).to_le_bytes());
                hasher.update(part.as_bytes());
            }
            hex(&hasher.finalize())
        };
        assert_ne!(cache_key("d"), without_checks("d"));
        assert!(!super::super::lint::VERSION.is_empty());
    }

    #[test]
    fn header_rejections_table() {
        let key = "k".repeat(64);
        let good = {
            let payload = b"payload".to_vec();
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(key.as_bytes());
            b.extend_from_slice(&Sha256::digest(&payload));
            b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            b.extend_from_slice(&payload);
            b
        };
        assert_eq!(verify_header(&good, &key), Ok(&b"payload"[..]));
        let mut flipped = good.clone();
        if let Some(last) = flipped.last_mut() {
            *last ^= 1;
        }
        let cases: [(Vec<u8>, &str); 5] = [
            (Vec::new(), "truncated header"),
            (good[..good.len() - 1].to_vec(), "truncated payload"),
            (flipped, "checksum mismatch"),
            (
                [b"XXXXXXXX", &good[8..]].concat(),
                "not a guarded-sh cache file",
            ),
            (
                [&good[..8], "j".repeat(64).as_bytes(), &good[72..]].concat(),
                "stored for another key",
            ),
        ];
        for (bytes, why) in cases {
            assert_eq!(verify_header(&bytes, &key), Err(invalid(why)), "{why}");
        }
    }
}
