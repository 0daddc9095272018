//! The syslog sink: one datagram per record to the syslog socket (facility authpriv), framed
//! as `<priority>guarded-sh[pid]: JSON`; the bounded wait and the cut to fit are
//! [`super::datagram`]'s.

use super::datagram::{self, DatagramError, Taken};
use super::Record;
use std::path::Path;

/// Sends `record` (serialised as `json`) to the syslog socket `socket`.
pub fn send(socket: &Path, record: &Record, json: &str) -> Result<(), DatagramError> {
    datagram::send(socket, record, json, message, Taken::Queued)
}

/// The datagram of `record`: `<priority>guarded-sh[pid]: JSON`, at notice for denials and
/// errors and info otherwise.
fn message(record: &Record, json: &str) -> Vec<u8> {
    format!(
        "<{}>guarded-sh[{}]: {json}",
        10 * 8 + super::severity(record),
        std::process::id()
    )
    .into_bytes()
}
