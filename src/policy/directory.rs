//! Reading a policy directory: the listing, every module, test module and data file (sorted by
//! name), and the digest over what enforcement reads.

use super::cache;
use super::error::PolicyError;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

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

/// Read the directory listing and every relevant file (test modules only `with_tests`), sorted
/// by file name.
pub(crate) fn read_sources(dir: &Path, with_tests: bool) -> Result<Sources, PolicyError> {
    let listing = std::fs::read_dir(dir).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => PolicyError::DirMissing {
            dir: dir.to_path_buf(),
        },
        _ => PolicyError::DirUnreadable {
            dir: dir.to_path_buf(),
            source,
        },
    })?;
    let mut names = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|source| PolicyError::DirUnreadable {
            dir: dir.to_path_buf(),
            source,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let wanted = (name.ends_with(".rego") && (with_tests || !name.ends_with("_test.rego")))
            || name.ends_with(".json");
        if wanted && !name.starts_with('.') && !is_dir(&entry) {
            names.push(name);
        }
    }
    names.sort();
    let mut sources = Sources::default();
    let mut scratch = Vec::new();
    for name in names {
        let path = dir.join(&name);
        let text =
            read_text(&path, &mut scratch).map_err(|source| PolicyError::FileUnreadable {
                file: path.clone(),
                source,
            })?;
        let file = SourceFile { path, name, text };
        if file.name.ends_with("_test.rego") {
            sources.tests.push(file);
        } else if file.name.ends_with(".rego") {
            sources.modules.push(file);
        } else {
            sources.data.push(file);
        }
    }
    Ok(sources)
}

/// A whole UTF-8 file, read through `scratch` (kept between files) and copied out at its exact
/// size: `open`, `read`, `read`, `close`. (`File`'s own `read_to_end`, which `fs::read_to_string`
/// uses, first asks for the size and the position: two more system calls per policy file, on
/// every command. Through `Take` the generic loop runs instead.)
fn read_text(path: &Path, scratch: &mut Vec<u8>) -> std::io::Result<String> {
    use std::io::Read;
    scratch.clear();
    scratch.reserve(16 * 1024);
    let mut file = std::fs::File::open(path)?;
    Read::take(&mut file, u64::MAX).read_to_end(scratch)?;
    String::from_utf8(scratch.clone())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Whether a directory entry is (or links to) a directory; the listing's file type spares a
/// `stat` for every plain file.
fn is_dir(entry: &std::fs::DirEntry) -> bool {
    match entry.file_type() {
        Ok(t) if t.is_file() => false,
        Ok(t) if t.is_dir() => true,
        _ => entry.path().is_dir(),
    }
}

/// Hex sha256 over (name, length, contents) of every module and data file, in name order.
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
