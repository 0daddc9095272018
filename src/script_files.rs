//! Script files a command runs (`python3 tool.py`, `./deploy.py` with a shebang), read for the
//! interpreter analysis: an edge, so the analysis itself stays pure. Regular files only, opened
//! non-blocking (a FIFO cannot stall the gate), at most `max + 1` bytes (an oversized script is
//! still seen as oversized and denied).

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The text of `path` (relative to `cwd`), or `None` when it is not a readable regular file.
pub fn read_script(cwd: &Path, path: &str, max: usize) -> Option<String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(cwd.join(path))
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut buf = Vec::new();
    file.take(max as u64 + 1).read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}
