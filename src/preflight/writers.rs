//! The trust rule of enforcement (`trust`), asked for every user at once: a file enforcement
//! reads must not be writable by anyone but root, nor any directory above it. The owners and
//! the writable groups of the path's entries (as written and as resolved) are the candidates;
//! `trust::check` judges each of them, so the answer is enforcement's own.

use super::Problem;
use crate::trust::{self, TrustError};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A uid standing for "some user who owns none of these entries", for the group and world
/// candidates (`trust::check` then finds only what the group or everyone may write).
const SOMEONE: u32 = u32::MAX - 1;

/// Who may write something: a uid, and the groups that uid is given.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Candidate {
    uid: u32,
    gids: Vec<u32>,
    who: String,
}

/// A problem when someone other than root could write `path` or a directory above it (`what`
/// names the setting, for the message).
pub(crate) fn check(path: &Path, what: &str) -> Option<Problem> {
    let candidates = candidates(&chain(path));
    candidates.iter().find_map(|c| {
        trust::check(path, c.uid, &c.gids)
            .err()
            .map(|e| problem(&e, &c.who, what))
    })
}

/// [`check`] for a policy directory and every `*.rego` and `*.json` entry of it.
pub(crate) fn check_dir_entries(dir: &Path, what: &str) -> Option<Problem> {
    if let Some(problem) = check(dir, what) {
        return Some(problem);
    }
    let mut paths = chain(dir);
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let wanted = path.extension().is_some_and(|e| e == "rego" || e == "json");
            if wanted {
                paths.extend(chain(&path));
            }
        }
    }
    let candidates = candidates(&paths);
    candidates.iter().find_map(|c| {
        trust::check_entries(dir, c.uid, &c.gids, &["rego", "json"])
            .err()
            .map(|e| problem(&e, &c.who, what))
    })
}

fn problem(error: &TrustError, who: &str, what: &str) -> Problem {
    match error {
        TrustError::Writable { path, .. } => Problem::new(
            Some(path.display().to_string()),
            format!(
                "{what}: writable by {who}, not only root (enforcement refuses it for a gated user who can write it)"
            ),
            error.reason_id(),
        ),
        TrustError::Unreadable { path, message } => Problem::new(
            Some(path.display().to_string()),
            format!("{what}: cannot inspect it: {message}"),
            error.reason_id(),
        ),
    }
}

/// `path` and every directory above it, as written (made absolute) and as resolved.
fn chain(path: &Path) -> Vec<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut paths: Vec<PathBuf> = absolute.ancestors().map(Path::to_path_buf).collect();
    if let Ok(resolved) = std::fs::canonicalize(path) {
        paths.extend(resolved.ancestors().map(Path::to_path_buf));
    }
    paths
}

/// The non-root owners of `paths`, a member of each group that may write one, and anyone when
/// one is world-writable (a sticky directory excepted, as `trust` excepts it).
fn candidates(paths: &[PathBuf]) -> Vec<Candidate> {
    let mut found: Vec<Candidate> = Vec::new();
    let mut add = |candidate: Candidate| {
        if !found.contains(&candidate) {
            found.push(candidate);
        }
    };
    for path in paths {
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let mode = meta.mode();
        let sticky_dir = meta.is_dir() && mode & 0o1000 != 0;
        if meta.uid() != 0 {
            add(Candidate {
                uid: meta.uid(),
                gids: Vec::new(),
                who: format!("its owner, uid {}", meta.uid()),
            });
        }
        if mode & 0o020 != 0 && meta.gid() != 0 && !sticky_dir {
            add(Candidate {
                uid: SOMEONE,
                gids: vec![meta.gid()],
                who: format!("group {}", meta.gid()),
            });
        }
        if mode & 0o002 != 0 && !sticky_dir {
            add(Candidate {
                uid: SOMEONE,
                gids: Vec::new(),
                who: "everyone".to_string(),
            });
        }
    }
    found
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn world_writable_file_is_found_and_a_private_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.path().join("a.rego");
        std::fs::write(&file, "package honey\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let owned_by_root = nix::unistd::geteuid().is_root();
        assert_eq!(check(&file, "f").is_none(), owned_by_root);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        let problem = check_dir_entries(dir.path(), "policy").unwrap();
        assert_eq!(problem.reason_id, "trust.writable");
        if owned_by_root {
            assert_eq!(problem.place, Some(file.display().to_string()));
            assert!(problem.message.contains("everyone"), "{problem:?}");
        }
    }
}
