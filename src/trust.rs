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

/// Checks `path` and its ancestors for `uid` (with primary and supplementary groups `gids`).
/// Root is trusted with everything, so nothing is checked for uid 0.
pub fn check(path: &Path, uid: u32, gids: &[u32]) -> Result<(), TrustError> {
    if uid == 0 {
        return Ok(());
    }
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
        let mode = meta.mode();
        let sticky_dir = meta.is_dir() && mode & 0o1000 != 0;
        let writable = meta.uid() == uid
            || (mode & 0o002 != 0 && !sticky_dir)
            || (mode & 0o020 != 0 && gids.contains(&meta.gid()) && !sticky_dir);
        // A sticky, world-writable directory (/tmp) only lets users replace their own entries;
        // an entry below it owned by someone else stays trusted.
        if writable {
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
