//! The system-log sink: one datagram per record to the syslog socket (facility authpriv), sent
//! with a bounded wait so that a reader that stops reading costs a command at most [`WAIT`], and
//! cut to fit when the socket refuses it as too long (the command shortened, `truncated: true`).
//!
//! The bound is the socket's send timeout (`SO_SNDTIMEO`): a datagram to a receiver whose queue
//! is full waits in `sendto` for room, and `poll` cannot wait for that room on an unconnected
//! socket, so the kernel's own bounded wait is the exact one.

use super::Record;
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::time::Duration;

/// The longest a record waits for the system log's reader to make room.
pub const WAIT: Duration = Duration::from_millis(200);

#[derive(Debug, thiserror::Error)]
pub enum SyslogError {
    #[error("the reader took no record for {} ms; not sent", WAIT.as_millis())]
    Stalled,
    #[error("the record does not fit in a datagram even with its command cut")]
    TooLarge,
    #[error("the record cannot be serialised: {0}")]
    Serialise(#[from] serde_json::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl SyslogError {
    pub fn reason_id(&self) -> &'static str {
        match self {
            SyslogError::Stalled => "audit.syslog.stalled",
            SyslogError::TooLarge => "audit.syslog.too_large",
            SyslogError::Serialise(_) => "audit.syslog.serialise",
            SyslogError::Io(_) => "audit.syslog.io",
        }
    }
}

/// Sends `record` (serialised as `json`) to `socket`; when the datagram is too long for the
/// socket, its command is cut (to half its length each time) until it fits: the datagram ends
/// up about half as long as the socket takes or longer, unless the other fields alone fill it.
pub fn send(socket: &Path, record: &Record, json: &str) -> Result<(), SyslogError> {
    let sock = UnixDatagram::unbound()?;
    sock.set_write_timeout(Some(WAIT))?;
    let mut keep = record.command.len();
    loop {
        let message = message(record, json, keep)?;
        let error = match sock.send_to(message.as_bytes(), socket) {
            Ok(_) => return Ok(()),
            Err(e) => e,
        };
        match error.raw_os_error() {
            Some(nix::libc::EMSGSIZE) if keep > 0 => {
                keep /= 2;
            }
            Some(nix::libc::EMSGSIZE) => return Err(SyslogError::TooLarge),
            Some(nix::libc::EAGAIN) => return Err(SyslogError::Stalled),
            _ => return Err(error.into()),
        }
    }
}

/// The datagram of `record` with its command cut to `keep` bytes: `<priority>guarded-sh[pid]:
/// JSON`, at notice for denials and errors and info otherwise.
fn message(record: &Record, json: &str, keep: usize) -> Result<String, serde_json::Error> {
    let severity = if record.verdict.audit_word() == "allow" {
        6
    } else {
        5
    };
    let json = if keep < record.command.len() {
        let mut cut = record.clone();
        cut.command = super::bounded(&record.command, keep).0.to_string();
        cut.truncated = true;
        serde_json::to_string(&cut)?
    } else {
        json.to_string()
    };
    Ok(format!(
        "<{}>guarded-sh[{}]: {json}",
        10 * 8 + severity,
        std::process::id()
    ))
}
