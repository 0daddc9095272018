//! Build-time facts for `guarded-sh --version`: the git commit the binary was built from
//! (`GUARDED_SH_COMMIT`, "unknown" outside a git checkout, e.g. a tarball) and the regorus
//! version from Cargo.lock. It reruns only when HEAD or the ref it names moves.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=GUARDED_SH_COMMIT");
    let commit = std::env::var("GUARDED_SH_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=GUARDED_SH_COMMIT={commit}");
    let regorus = std::fs::read_to_string("Cargo.lock")
        .ok()
        .and_then(|lock| locked_version(&lock, "regorus"))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=GUARDED_SH_REGORUS={regorus}");
}

/// The short hash of HEAD, watching the files that move it; `None` without git or a repository.
fn git_commit() -> Option<String> {
    // Only the repository this package is the top of: a tarball unpacked inside some other
    // checkout must not report that checkout's commit.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let here = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    if Path::new(&top).canonicalize().ok()? != Path::new(&here).canonicalize().ok()? {
        return None;
    }
    let branch =
        git(&["symbolic-ref", "-q", "HEAD"]).and_then(|r| git(&["rev-parse", "--git-path", &r]));
    // A branch only in packed-refs (a fresh clone) gets its own file on the next commit: until
    // then its directory is watched. (A path that does not exist would rerun every build.)
    let branch = branch.and_then(|b| {
        let file = Path::new(&b);
        let watched = if file.exists() { file } else { file.parent()? };
        Some(watched.display().to_string())
    });
    for watched in [
        git(&["rev-parse", "--git-path", "HEAD"]),
        git(&["rev-parse", "--git-path", "packed-refs"]),
        branch,
    ]
    .into_iter()
    .flatten()
    .filter(|p| Path::new(p).exists())
    {
        println!("cargo:rerun-if-changed={watched}");
    }
    git(&["rev-parse", "--short=7", "HEAD"])
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

/// The version Cargo.lock pins for package `name`.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            return version.strip_suffix('"').map(str::to_string);
        }
    }
    None
}
