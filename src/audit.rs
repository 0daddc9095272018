//! Audit: one record per decision (allow, deny, held, escape used, internal error), written and
//! flushed before exec to the system log (which users cannot forge) and, when configured, as one
//! JSON line appended to a file. The record's fields are a tested contract.

use crate::config::AuditConfig;
use serde::Serialize;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixDatagram;
use std::time::{SystemTime, UNIX_EPOCH};

/// One decision, as logged.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Record {
    pub time: String,
    pub decision_id: String,
    pub user: String,
    pub uid: u32,
    /// `command`, `script`, `stdin`, `interactive`, `hook`, `usage`.
    pub mode: String,
    pub tty: bool,
    pub ssh_client: String,
    pub host: String,
    pub target_env: String,
    /// The raw command, bounded; `truncated` says whether it was cut.
    pub command: String,
    pub truncated: bool,
    pub signals: Vec<String>,
    pub max_severity: String,
    /// `allow`, `deny`, `require_approval`, `escape`, `error`.
    pub verdict: String,
    pub reason: String,
    pub stage: String,
    pub policy_digest: String,
    pub duration_us: u64,
}

impl Record {
    /// Bounds the command to `max` bytes on a character boundary.
    pub fn set_command(&mut self, command: &str, max: usize) {
        self.truncated = false;
        if command.len() <= max {
            self.command = command.to_string();
            return;
        }
        let mut end = max;
        while !command.is_char_boundary(end) {
            end -= 1;
        }
        self.command = command[..end].to_string();
        self.truncated = true;
    }
}

/// A fresh decision id: time and pid, short enough to quote in a message.
pub fn decision_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "{:x}{:05x}",
        nanos & 0xffff_ffff_ffff,
        std::process::id() & 0xfffff
    )
}

/// UTC now as RFC 3339 with microseconds.
pub fn now_rfc3339() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, day) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_micros()
    )
}

/// Howard Hinnant's days-to-civil conversion.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// What happened to a record.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    pub syslog: Option<bool>,
    pub file: Option<bool>,
    pub errors: Vec<String>,
}

impl Delivery {
    /// True when at least one configured sink took the record (or none was configured).
    pub fn recorded(&self) -> bool {
        let configured = [self.syslog, self.file].iter().flatten().count();
        configured == 0 || [self.syslog, self.file].iter().flatten().any(|ok| *ok)
    }
}

/// Writes the record to every configured sink.
pub fn record(config: &AuditConfig, record: &Record) -> Delivery {
    let mut delivery = Delivery::default();
    let json = match serde_json::to_string(record) {
        Ok(j) => j,
        Err(e) => {
            delivery.errors.push(format!("audit record: {e}"));
            return delivery;
        }
    };
    if config.syslog {
        let ok = send_syslog(&config.syslog_socket, record, &json);
        if let Err(e) = &ok {
            delivery
                .errors
                .push(format!("syslog {}: {e}", config.syslog_socket.display()));
        }
        delivery.syslog = Some(ok.is_ok());
    }
    if let Some(path) = &config.file {
        let ok = append_line(path, &json);
        if let Err(e) = &ok {
            delivery
                .errors
                .push(format!("audit file {}: {e}", path.display()));
        }
        delivery.file = Some(ok.is_ok());
    }
    delivery
}

fn send_syslog(socket: &std::path::Path, record: &Record, json: &str) -> std::io::Result<()> {
    // authpriv (10); notice (5) for denials and errors, info (6) otherwise.
    let severity = if record.verdict == "allow" { 6 } else { 5 };
    let message = format!(
        "<{}>guarded-sh[{}]: {json}",
        10 * 8 + severity,
        std::process::id()
    );
    let sock = UnixDatagram::unbound()?;
    sock.send_to(message.as_bytes(), socket)?;
    Ok(())
}

/// Appends one line with a single `write` on an `O_APPEND` descriptor, so concurrent writers
/// never interleave within a record.
fn append_line(path: &std::path::Path, json: &str) -> std::io::Result<()> {
    let mut line = Vec::with_capacity(json.len() + 1);
    line.extend_from_slice(json.as_bytes());
    line.push(b'\n');
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o640)
        .open(path)?;
    let written = file.write(&line)?;
    if written != line.len() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::WriteZero,
            format!("short write ({written} of {} bytes)", line.len()),
        ));
    }
    file.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
    }

    #[test]
    fn command_is_bounded_on_a_char_boundary() {
        let mut r = Record::default();
        r.set_command("héllo", 2);
        assert_eq!((r.command.as_str(), r.truncated), ("h", true));
        r.set_command("abc", 10);
        assert_eq!((r.command.as_str(), r.truncated), ("abc", false));
    }
}
