//! One record as one datagram on a local socket (the system sinks: [`super::journald`] and
//! [`super::syslog`] frame it), sent with a bounded wait so that a reader that stops reading
//! costs a command at most [`WAIT`], and cut to fit when the socket refuses it as too long (the
//! command shortened, `truncated: true`).
//!
//! The bound is the socket's send timeout (`SO_SNDTIMEO`): a datagram to a receiver whose queue
//! is full waits in `sendto` for room, and `poll` cannot wait for that room on an unconnected
//! socket, so the kernel's own bounded wait is the exact one.
//!
//! [`Taken::Awaited`] (journald) also waits, within the same bound, until the reader has taken
//! the datagram off its queue, so that the process is still guarded-sh (not yet the real shell
//! it execs, not yet gone) when journald looks up the sender's `_EXE` and `_COMM` in `/proc`.
//! The socket is connected and its send buffer sized so that the one datagram in flight makes it
//! unwritable (a Unix datagram socket is writable while its queued bytes are at most a quarter
//! of its buffer); it becomes writable again when the reader has received the datagram.

use super::{Record, Sink};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::socket::{setsockopt, sockopt};
use std::os::fd::AsFd;
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::time::{Duration, Instant};

/// Whether [`send`] returns once the datagram is queued or once the reader has taken it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    Queued,
    Awaited,
}

/// Room a datagram's send buffer has beyond the datagram (the kernel's own accounting of it).
const BUFFER_SLACK: usize = 512;

/// The longest a record waits for a system sink's reader to make room.
pub const WAIT: Duration = Duration::from_millis(200);

#[derive(Debug, thiserror::Error)]
pub enum DatagramError {
    #[error("the reader took no record for {} ms; not sent", WAIT.as_millis())]
    Stalled,
    #[error("the record does not fit in a datagram even with its command cut")]
    TooLarge,
    #[error("the record cannot be serialised: {0}")]
    Serialise(#[from] serde_json::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl DatagramError {
    /// The stable reason id of this failure on `sink` (`audit.journald.stalled`, …).
    pub fn reason_id(&self, sink: Sink) -> &'static str {
        match (sink, self) {
            (Sink::Journald, DatagramError::Stalled) => "audit.journald.stalled",
            (Sink::Journald, DatagramError::TooLarge) => "audit.journald.too_large",
            (Sink::Journald, DatagramError::Serialise(_)) => "audit.journald.serialise",
            (Sink::Journald, DatagramError::Io(_)) => "audit.journald.io",
            (_, DatagramError::Stalled) => "audit.syslog.stalled",
            (_, DatagramError::TooLarge) => "audit.syslog.too_large",
            (_, DatagramError::Serialise(_)) => "audit.syslog.serialise",
            (_, DatagramError::Io(_)) => "audit.syslog.io",
        }
    }
}

/// Sends `record` (serialised as `json`) to `socket` as `frame(record, json)`; when the
/// datagram is too long for the socket, the record's command is cut (to half its length each
/// time) until it fits: the datagram ends up about half as long as the socket takes or longer,
/// unless the other fields alone fill it.
pub fn send(
    socket: &Path,
    record: &Record,
    json: &str,
    frame: impl Fn(&Record, &str) -> Vec<u8>,
    taken: Taken,
) -> Result<(), DatagramError> {
    let started = Instant::now();
    let sock = UnixDatagram::unbound()?;
    sock.set_write_timeout(Some(WAIT))?;
    if taken == Taken::Awaited {
        sock.connect(socket)?;
    }
    let mut keep = record.command.len();
    loop {
        let datagram = if keep < record.command.len() {
            let mut cut = record.clone();
            cut.command = super::bounded(&record.command, keep).0.to_string();
            cut.truncated = true;
            frame(&cut, &serde_json::to_string(&cut)?)
        } else {
            frame(record, json)
        };
        let sent = match taken {
            Taken::Queued => sock.send_to(&datagram, socket),
            Taken::Awaited => setsockopt(&sock, sockopt::SndBuf, &(datagram.len() + BUFFER_SLACK))
                .map_err(std::io::Error::from)
                .and_then(|()| sock.send(&datagram)),
        };
        let error = match sent {
            Ok(_) => {
                if taken == Taken::Awaited {
                    await_taken(&sock, started);
                }
                return Ok(());
            }
            Err(e) => e,
        };
        match error.raw_os_error() {
            Some(nix::libc::EMSGSIZE) if keep > 0 => keep /= 2,
            Some(nix::libc::EMSGSIZE) => return Err(DatagramError::TooLarge),
            Some(nix::libc::EAGAIN) => return Err(DatagramError::Stalled),
            _ => return Err(error.into()),
        }
    }
}

/// Waits, until [`WAIT`] after `started` at most, for the reader to take the one datagram in
/// flight on `sock` (see the module documentation). A reader that is slower than that still
/// gets the record, which is queued: only its sender's `/proc` facts may be gone by then.
fn await_taken(sock: &UnixDatagram, started: Instant) {
    let left = WAIT.saturating_sub(started.elapsed());
    let timeout = PollTimeout::try_from(left).unwrap_or(PollTimeout::ZERO);
    let mut fds = [PollFd::new(sock.as_fd(), PollFlags::POLLOUT)];
    let _ = poll(&mut fds, timeout);
}
