//! The program an interpreter reads from guarded-sh's own stdin (`python3` with Ansible's
//! pipelining): read once, only when the analysis asks for it and only on the shell surface
//! with a stdin that is not a terminal, bounded in bytes and time; the same bytes are then
//! handed to the real command on a memory file as its stdin. Every other command's stdin is
//! never read (scp, sftp, rsync and git speak binary protocols there). The one line guarded-sh
//! itself may write to stdout is Ansible's become marker, just before such a read, when the
//! command text carries the handshake (`payload::become_marker`).

use std::cell::RefCell;
use std::time::Duration;

/// The process's stdin, read at most once.
pub struct StdinProgram {
    max_bytes: usize,
    /// How long the whole program may take to arrive (its end of file included).
    wait: Duration,
    /// A line the sender waits for before it sends the program (`payload::become_marker`):
    /// written to stdout just before stdin is read, and only then.
    handshake: Option<String>,
    read: RefCell<Option<Result<Vec<u8>, String>>>,
}

impl StdinProgram {
    pub fn new(max_bytes: usize, wait: Duration, handshake: Option<String>) -> Self {
        StdinProgram {
            max_bytes,
            wait,
            handshake,
            read: RefCell::new(None),
        }
    }

    /// The program text (read now if it was not yet); `None` when it could not be read whole.
    pub fn text(&self) -> Option<String> {
        let mut read = self.read.borrow_mut();
        let bytes = read.get_or_insert_with(|| {
            if let Some(line) = &self.handshake {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    return Err("cannot answer the sender's handshake on stdout".into());
                }
            }
            crate::interrupt::watch();
            read_all(self.max_bytes, self.wait)
        });
        bytes
            .as_ref()
            .ok()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    }

    /// Why the program could not be read, when it was asked for and could not be.
    pub fn failure(&self) -> Option<String> {
        self.read
            .borrow()
            .as_ref()
            .and_then(|r| r.as_ref().err().cloned())
    }

    /// The bytes read, for the real command's stdin; `None` when stdin was never read.
    pub fn into_bytes(self) -> Option<Vec<u8>> {
        self.read.into_inner().and_then(Result::ok)
    }
}

/// All of stdin up to its end, at most `max` bytes, within `wait` (`bounded_read::stdin`).
fn read_all(max: usize, wait: Duration) -> Result<Vec<u8>, String> {
    use crate::bounded_read::ReadError;
    crate::bounded_read::stdin(max, wait).map_err(|e| match e {
        ReadError::Io(_) => format!("cannot read the program on stdin: {e}"),
        _ => format!("the program on stdin {e}"),
    })
}
