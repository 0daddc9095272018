//! The journald sink: one datagram per record to journald's native socket, in its native
//! protocol (`KEY=VALUE\n` per field; a value holding a newline as `KEY\n`, its length as 64-bit
//! little-endian, the value, `\n`). MESSAGE is the JSON record; PRIORITY, SYSLOG_IDENTIFIER and
//! SYSLOG_FACILITY are syslog's; the `GUARDED_SH_*` fields index the record for `journalctl`.
//! journald itself adds the trusted `_PID`, `_UID`, `_COMM`, `_EXE` from the kernel's view of the
//! sender, which is what tells a real record from a forged one (docs/audit.md). The bounded wait
//! and the cut to fit are [`super::datagram`]'s.

use super::datagram::{self, DatagramError, Taken};
use super::Record;
use std::path::Path;

/// Sends `record` (serialised as `json`) to journald's native socket `socket`.
pub fn send(socket: &Path, record: &Record, json: &str) -> Result<(), DatagramError> {
    datagram::send(socket, record, json, entry, Taken::Awaited)
}

/// The native-protocol entry of `record`.
pub fn entry(record: &Record, json: &str) -> Vec<u8> {
    let priority = super::severity(record).to_string();
    let uid = record.uid.to_string();
    let fields: [(&str, &str); 11] = [
        ("MESSAGE", json),
        ("PRIORITY", &priority),
        ("SYSLOG_IDENTIFIER", "guarded-sh"),
        ("SYSLOG_FACILITY", "10"),
        ("GUARDED_SH_VERDICT", record.verdict.audit_word()),
        ("GUARDED_SH_REASON_ID", record.verdict.reason_id),
        ("GUARDED_SH_DECISION_ID", &record.decision_id),
        ("GUARDED_SH_SESSION_ID", &record.session_id),
        ("GUARDED_SH_USER", &record.user),
        ("GUARDED_SH_UID", &uid),
        ("GUARDED_SH_MODE", record.mode.as_str()),
    ];
    let mut out = Vec::with_capacity(json.len() + 512);
    for (key, value) in fields {
        field(&mut out, key, value.as_bytes());
    }
    out
}

/// Appends one field: `KEY=VALUE\n`, or the length-prefixed form for a value with a newline.
fn field(out: &mut Vec<u8>, key: &str, value: &[u8]) {
    out.extend_from_slice(key.as_bytes());
    if value.contains(&b'\n') {
        out.push(b'\n');
        out.extend_from_slice(&(value.len() as u64).to_le_bytes());
    } else {
        out.push(b'=');
    }
    out.extend_from_slice(value);
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_with_a_newline_is_length_prefixed() {
        let mut out = Vec::new();
        field(&mut out, "A", b"one");
        field(&mut out, "B", b"two\nlines");
        let mut expected = b"A=one\nB\n".to_vec();
        expected.extend_from_slice(&9u64.to_le_bytes());
        expected.extend_from_slice(b"two\nlines\n");
        assert_eq!(out, expected);
    }
}
