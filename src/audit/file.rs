//! The JSON-lines audit file: opened without following a link and without blocking, refused
//! unless it is a regular file the gated user cannot replace, and appended with one `write` per
//! record so that a record always ends up whole, on a line of its own.
//!
//! Trust (for a gated user; root is trusted with everything): the file must not be a symbolic
//! link (for anyone: `O_NOFOLLOW`), must be a regular file (checked before the open with `lstat`,
//! so a FIFO or device is never opened, and after it with `fstat`), must not be owned by the gated
//! user, and its directory (and every directory above, as written and as resolved) must not be
//! writable by the gated user, so they cannot remove, rename or replace it. The file itself may
//! be group- or world-writable: that is how gated users append. Such a user can also rewrite it;
//! only the append-only attribute (`chattr +a`, root's to set) or the system log prevents that.
//!
//! Torn tails: a short write (a full filesystem) leaves a fragment without a newline. Its writer
//! reports the failure and ends the fragment with a newline when it is still the file's tail. A
//! later writer that finds its own record glued to a fragment (the byte before where its single
//! `write` landed is not a newline) writes the record again: the fragment is then ended by the
//! first copy's newline and the second copy starts a line. No lock is taken, so no other process
//! can hold a writer up; concurrent `O_APPEND` writes of whole lines never interleave. A file the
//! gated user may append to but not read is opened write-only, and then only the tearing writer's
//! newline (when there is room for it) ends a fragment.

use crate::trust::{self, TrustError};
use std::fs::{File, Metadata};
use std::io::{Seek, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// How many times a record found glued to a torn fragment is written again before giving up.
const ATTEMPTS: usize = 3;

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("is a symbolic link (not followed)")]
    Symlink,
    #[error("is not a regular file (a {0})")]
    NotRegular(&'static str),
    #[error("is owned by the gated user (uid {0}), who could make it unwritable or remove it")]
    OwnedByUser(u32),
    #[error("its directory is not trusted: {0}")]
    Untrusted(#[from] TrustError),
    #[error("short write ({written} of {len} bytes)")]
    ShortWrite { written: usize, len: usize },
    #[error("the record could not be put on a line of its own in {ATTEMPTS} writes")]
    Glued,
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl FileError {
    pub fn reason_id(&self) -> &'static str {
        match self {
            FileError::Symlink => "audit.file.symlink",
            FileError::NotRegular(_) => "audit.file.not_regular",
            FileError::OwnedByUser(_) => "audit.file.owned_by_user",
            FileError::Untrusted(_) => "audit.file.untrusted",
            FileError::ShortWrite { .. } => "audit.file.short_write",
            FileError::Glued => "audit.file.glued",
            FileError::Io(_) => "audit.file.io",
        }
    }
}

/// Appends `line` (one record ending in a newline) to `path` for the gated user `uid`.
pub fn append(path: &Path, line: &[u8], uid: u32) -> Result<(), FileError> {
    if uid != 0 {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        trust::check(dir, uid, &trust::groups())?;
    }
    refuse_special(path)?;
    let (file, readable) = open(path)?;
    let meta = file.metadata()?;
    refuse_unless_regular(&meta)?;
    if uid != 0 && meta.uid() == uid {
        return Err(FileError::OwnedByUser(uid));
    }
    write_line(&file, line, readable)
}

/// Refuses a link or a special file already at `path` before anything opens it.
fn refuse_special(path: &Path) -> Result<(), FileError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(FileError::Symlink),
        Ok(meta) => refuse_unless_regular(&meta),
        Err(_) => Ok(()),
    }
}

fn refuse_unless_regular(meta: &Metadata) -> Result<(), FileError> {
    let t = meta.file_type();
    let kind = match () {
        _ if t.is_file() => return Ok(()),
        _ if t.is_dir() => "directory",
        _ if t.is_fifo() => "FIFO",
        _ if t.is_char_device() => "character device",
        _ if t.is_block_device() => "block device",
        _ if t.is_socket() => "socket",
        _ => "special file",
    };
    Err(FileError::NotRegular(kind))
}

/// The file for appending, and whether it could be opened for reading too (a torn tail can be
/// detected only then; a file the gated user may append to but not read is opened write-only).
fn open(path: &Path) -> Result<(File, bool), FileError> {
    let flags = nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK;
    let open = |read: bool| {
        std::fs::OpenOptions::new()
            .read(read)
            .append(true)
            .create(true)
            .mode(0o640)
            .custom_flags(flags)
            .open(path)
    };
    let opened = match open(true) {
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            open(false).map(|f| (f, false))
        }
        other => other.map(|f| (f, true)),
    };
    opened.map_err(|e| match e.raw_os_error() {
        Some(nix::libc::ELOOP) => FileError::Symlink,
        Some(nix::libc::ENXIO) => FileError::NotRegular("FIFO"),
        _ => FileError::Io(e),
    })
}

/// One `write` of `line`; again (up to [`ATTEMPTS`]) when it landed glued to a torn fragment.
fn write_line(file: &File, line: &[u8], readable: bool) -> Result<(), FileError> {
    for _ in 0..ATTEMPTS {
        let written = match (&*file).write(line) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        let end = (&*file).stream_position()?;
        if written < line.len() {
            terminate_fragment(file, end);
            return Err(FileError::ShortWrite {
                written,
                len: line.len(),
            });
        }
        let start = end.saturating_sub(line.len() as u64);
        if !readable || start == 0 || byte_at(file, start - 1)? == b'\n' {
            return Ok(());
        }
    }
    Err(FileError::Glued)
}

/// Ends the fragment a short write left at `end` with a newline, if it is still the file's
/// tail (best effort: on a full filesystem this fails too, and the next writer copes).
fn terminate_fragment(file: &File, end: u64) {
    if file.metadata().is_ok_and(|m| m.len() == end) {
        let _ = (&*file).write(b"\n");
    }
}

fn byte_at(file: &File, offset: u64) -> Result<u8, FileError> {
    let mut byte = [0u8; 1];
    file.read_exact_at(&mut byte, offset)?;
    Ok(byte[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_record_glued_to_a_torn_fragment_is_written_again_on_its_own_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"torn\":").unwrap();
        append(&path, b"{\"b\":2}\n", 0).unwrap();
        assert_eq!(
            lines(&path),
            ["{\"a\":1}", "{\"torn\":{\"b\":2}", "{\"b\":2}"]
        );
        append(&path, b"{\"c\":3}\n", 0).unwrap();
        assert_eq!(lines(&path).last().map(String::as_str), Some("{\"c\":3}"));
        assert_eq!(lines(&path).len(), 4);
    }

    #[test]
    fn links_and_special_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(append(&link, b"x\n", 0), Err(FileError::Symlink)));
        assert!(matches!(
            append(dir.path(), b"x\n", 0),
            Err(FileError::NotRegular("directory"))
        ));
        assert_eq!(std::fs::read(&target).unwrap(), b"");
    }
}
