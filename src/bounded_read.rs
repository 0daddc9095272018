//! Reads the gate makes of a file or of its own stdin, each bounded in bytes and in time: a
//! named file is opened non-blocking, a regular file read up to its bound, a pipe (stdin, a FIFO,
//! `<(…)`) with `poll` against a deadline; a device, directory or socket is refused unread.

use nix::errno::Errno;
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Why a bounded read gave no text. The messages name no subject: the caller says what was read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file does not exist (a shell's "No such file or directory", 127).
    #[error("{}", strerror(Errno::ENOENT))]
    Missing,
    /// It could not be opened or read.
    #[error("{}", io_reason(.0))]
    Io(std::io::Error),
    /// It exists but is not a regular file.
    #[error("is {0}, not a regular file")]
    NotRegular(&'static str),
    #[error("is over {0} bytes")]
    TooLarge(usize),
    #[error("contains NUL bytes")]
    Nul,
    /// Stdin did not reach its end within the bound.
    #[error("did not end within {} s", .0.as_secs())]
    TimedOut(Duration),
}

impl ReadError {
    /// The stable reason id of a read that failed.
    pub fn reason_id(&self) -> &'static str {
        match self {
            ReadError::Missing => "input.missing",
            ReadError::Io(_) => "input.unreadable",
            ReadError::NotRegular(_) => "input.not_regular",
            ReadError::TooLarge(_) => "input.too_large",
            ReadError::Nul => "input.nul",
            ReadError::TimedOut(_) => "input.timed_out",
        }
    }
}

/// The C library's text for an errno, as shells print it ("No such file or directory").
fn strerror(errno: Errno) -> &'static str {
    errno.desc()
}

fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => strerror(Errno::from_raw(code)).to_string(),
        None => e.to_string(),
    }
}

/// The whole of the regular file `path`, at most `max` bytes, with no NUL byte. Opened
/// non-blocking, so a FIFO cannot hold the open: its type is checked on the open descriptor
/// before anything is read, and anything but a regular file is refused unread.
pub fn regular_file(path: &Path, max: usize) -> Result<Vec<u8>, ReadError> {
    let (file, kind) = open(path)?;
    if !kind.is_file() {
        return Err(ReadError::NotRegular(kind_name(&kind)));
    }
    read_regular(file, max)
}

/// The whole of the script `path`, at most `max` bytes, with no NUL byte: a regular file as
/// [`regular_file`] reads it, a pipe (a FIFO, `<(…)`) as [`stdin`] reads stdin, to its end
/// within `wait` (`before_waiting` is called first); anything else is refused unread.
pub fn script(
    path: &Path,
    max: usize,
    wait: Duration,
    before_waiting: impl FnOnce(),
) -> Result<Vec<u8>, ReadError> {
    use std::os::unix::fs::FileTypeExt;
    let (file, kind) = open(path)?;
    if kind.is_fifo() {
        before_waiting();
        return stream(&file, max, wait);
    }
    if !kind.is_file() {
        return Err(ReadError::NotRegular(kind_name(&kind)));
    }
    read_regular(file, max)
}

/// `path` opened for reading without blocking (nor taking a controlling terminal), and its type.
fn open(path: &Path) -> Result<(std::fs::File, std::fs::FileType), ReadError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ReadError::Missing,
            _ => ReadError::Io(e),
        })?;
    let kind = file.metadata().map_err(ReadError::Io)?.file_type();
    Ok((file, kind))
}

fn read_regular(file: std::fs::File, max: usize) -> Result<Vec<u8>, ReadError> {
    let mut buf = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    checked(buf, max)
}

/// What a file that is not regular is, in words.
pub(crate) fn kind_name(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// All of this process's stdin up to its end, at most `max` bytes, with no NUL byte, within
/// `wait` in all ([`stream`]).
pub fn stdin(max: usize, wait: Duration) -> Result<Vec<u8>, ReadError> {
    stream(&std::io::stdin(), max, wait)
}

/// All of `fd` up to its end, at most `max` bytes, with no NUL byte, within `wait` in all: each
/// read waits in `poll` for what is left of the deadline, so a pipe that stays open, trickles or
/// never gets a writer ends in [`ReadError::TimedOut`], never in a blocking read.
fn stream(fd: &impl AsFd, max: usize, wait: Duration) -> Result<Vec<u8>, ReadError> {
    let started = Instant::now();
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let left = wait.saturating_sub(started.elapsed());
        let millis = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        if millis == 0 {
            return Err(ReadError::TimedOut(wait));
        }
        if !readable(fd, millis)? {
            continue;
        }
        match nix::unistd::read(fd.as_fd(), &mut chunk) {
            Ok(0) => return checked(buf, max),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > max {
                    return Err(ReadError::TooLarge(max));
                }
            }
            Err(Errno::EINTR | Errno::EAGAIN) => {}
            Err(e) => return Err(ReadError::Io(e.into())),
        }
    }
}

/// Whether `fd` has something to read (data, its end, or an error) within `millis`.
fn readable(fd: &impl AsFd, millis: u16) -> Result<bool, ReadError> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
    match poll(&mut fds, PollTimeout::from(millis)) {
        Ok(0) | Err(Errno::EINTR) => Ok(false),
        Ok(_) => Ok(true),
        Err(e) => Err(ReadError::Io(e.into())),
    }
}

fn checked(buf: Vec<u8>, max: usize) -> Result<Vec<u8>, ReadError> {
    if buf.len() > max {
        Err(ReadError::TooLarge(max))
    } else if buf.contains(&0) {
        Err(ReadError::Nul)
    } else {
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let started = Instant::now();
        let got = regular_file(&fifo, 100);
        assert!(
            matches!(got, Err(ReadError::NotRegular("a FIFO"))),
            "{got:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn regular_files_are_bounded_and_missing_ones_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "12345").unwrap();
        assert_eq!(regular_file(&file, 5).unwrap(), b"12345");
        assert!(matches!(
            regular_file(&file, 4),
            Err(ReadError::TooLarge(4))
        ));
        std::fs::write(&file, "a\0b").unwrap();
        assert!(matches!(regular_file(&file, 9), Err(ReadError::Nul)));
        let missing = regular_file(&dir.path().join("nope"), 9).unwrap_err();
        assert_eq!(missing.to_string(), "No such file or directory");
        let dir_err = regular_file(dir.path(), 9).unwrap_err();
        assert_eq!(dir_err.reason_id(), "input.not_regular");
    }
}
