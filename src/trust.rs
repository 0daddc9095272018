//! File trust for enforcement, checked the way sudo checks its own files: a configuration file,
//! policy directory, policy cache or hook file must not be writable by the user being gated —
//! neither the file nor any directory above it.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TrustError {
    #[error("{path} is writable by the gated user (uid {uid}); it must be root-owned and not group- or world-writable")]
    Writable { path: PathBuf, uid: u32 },
    #[error("cannot inspect {path}: {message}")]
    Unreadable { path: PathBuf, message: String },
}

impl TrustError {
    pub fn reason_id(&self) -> &'static str {
        match self {
            TrustError::Writable { .. } => "trust.writable",
            TrustError::Unreadable { .. } => "trust.unreadable",
        }
    }
}

/// Checks `path` and its ancestors for `uid` (with primary and supplementary groups `gids`),
/// both as written and as resolved (a root-owned link into a user's directory is not trusted).
/// Root is trusted with everything, so nothing is checked for uid 0.
pub fn check(path: &Path, uid: u32, gids: &[u32]) -> Result<(), TrustError> {
    if uid == 0 {
        return Ok(());
    }
    check_chain(path, uid, gids)?;
    let resolved = std::fs::canonicalize(path).map_err(|e| TrustError::Unreadable {
        path: path.into(),
        message: e.to_string(),
    })?;
    if resolved != path {
        check_chain(&resolved, uid, gids)?;
    }
    Ok(())
}

/// Checks every entry of `dir` with one of `extensions` (its own owner and mode; a link is
/// checked through to its target), after `check(dir)` vouched for the directory itself.
pub fn check_entries(
    dir: &Path,
    uid: u32,
    gids: &[u32],
    extensions: &[&str],
) -> Result<(), TrustError> {
    if uid == 0 {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| TrustError::Unreadable {
        path: dir.into(),
        message: e.to_string(),
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        if !path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
        {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).map_err(|e| TrustError::Unreadable {
            path: path.clone(),
            message: e.to_string(),
        })?;
        if meta.file_type().is_symlink() {
            check(&path, uid, gids)?;
        } else if writable(&meta, uid, gids) {
            return Err(TrustError::Writable { path, uid });
        }
    }
    Ok(())
}

fn writable(meta: &std::fs::Metadata, uid: u32, gids: &[u32]) -> bool {
    let mode = meta.mode();
    // A sticky, world-writable directory (/tmp) only lets users replace their own entries;
    // an entry below it owned by someone else stays trusted.
    let sticky_dir = meta.is_dir() && mode & 0o1000 != 0;
    meta.uid() == uid
        || (mode & 0o002 != 0 && !sticky_dir)
        || (mode & 0o020 != 0 && gids.contains(&meta.gid()) && !sticky_dir)
}

fn check_chain(path: &Path, uid: u32, gids: &[u32]) -> Result<(), TrustError> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut current = Some(absolute.as_path());
    while let Some(p) = current {
        let meta = std::fs::metadata(p).map_err(|e| TrustError::Unreadable {
            path: p.into(),
            message: e.to_string(),
        })?;
        if writable(&meta, uid, gids) {
            return Err(TrustError::Writable {
                path: p.into(),
                uid,
            });
        }
        current = p.parent();
    }
    Ok(())
}

/// The calling user's groups.
pub fn groups() -> Vec<u32> {
    let mut gids: Vec<u32> = nix::unistd::getgroups()
        .map(|g| g.into_iter().map(|g| g.as_raw()).collect())
        .unwrap_or_default();
    gids.push(nix::unistd::getgid().as_raw());
    gids
}
