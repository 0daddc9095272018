//! Script files a command runs (`python3 tool.py`, `./deploy.py` with a shebang), read for the
//! interpreter analysis: an edge, so the analysis itself stays pure. Regular files only, opened
//! non-blocking (a FIFO cannot stall the gate), at most `max + 1` bytes (an oversized script is
//! still seen as oversized and denied); a binary file only as far as the line that shows it.

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
    let mut file = file.take(max as u64 + 1);
    let mut buf = vec![0u8; BINARY_HEAD.min(max + 1)];
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]).ok()? {
            0 => break,
            n => filled += n,
        }
    }
    buf.truncate(filled);
    // A binary (a compiler, an ELF program run by path) is not read on: no shell runs it as
    // text and no analysis reads further than its first line, and converting a program's
    // first 128 KiB cost 0.1 s an exec under supervision.
    if crate::parse::is_binary(&buf) {
        return Some(String::from_utf8_lossy(&buf).into_owned());
    }
    file.read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// How much of a file is read before deciding whether it is binary.
const BINARY_HEAD: usize = 80;
