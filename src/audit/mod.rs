//! Audit: one record per decision (allow, deny, held, escape used, internal error), written and
//! flushed before exec as one JSON line appended to a file ([`file`]) and to the system log
//! ([`syslog`], which users cannot forge). The record's fields are a tested contract; every
//! sink's failure is reported in the [`Delivery`].

mod file;
mod syslog;

use crate::config::{AuditConfig, Config};
use crate::context::Context;
use crate::ir::Analysis;
use crate::signals::{max_severity, Signal};
use crate::verdict::{Surface, Verdict};
use serde::Serialize;
use std::time::Instant;
use std::time::{SystemTime, UNIX_EPOCH};

/// One decision, as logged. Built only by [`Record::new`].
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub time: String,
    pub decision_id: String,
    pub user: String,
    pub uid: u32,
    /// Where the command arrived (`command`, `script`, `stdin`, `interactive`, `hook`, …).
    pub mode: Surface,
    pub tty: bool,
    pub ssh_client: String,
    pub host: String,
    pub target_env: String,
    /// The raw command, bounded; `truncated` says whether it was cut.
    pub command: String,
    pub truncated: bool,
    pub signals: Vec<&'static str>,
    pub max_severity: &'static str,
    /// `verdict`, `stage`, `reason_id`, `reason`.
    #[serde(flatten)]
    pub verdict: Verdict,
    pub policy_digest: String,
    /// Ansible tasks the command carried (`payload::audit_view`): module and bounded arguments.
    pub ansible_tasks: Vec<serde_json::Value>,
    pub duration_us: u64,
}

impl Record {
    /// The record of `verdict` for `command` on `surface`, started at `started`: the command
    /// bounded to the configured size, a fresh decision id, the context's facts.
    pub fn new(
        ctx: &Context,
        config: &Config,
        surface: Surface,
        command: &str,
        verdict: Verdict,
        started: Instant,
    ) -> Self {
        let (command, truncated) = bounded(command, config.audit.max_command_bytes);
        Record {
            time: now_rfc3339(),
            decision_id: decision_id(),
            user: ctx.user.clone(),
            uid: ctx.uid,
            mode: surface,
            tty: ctx.stdin_tty,
            ssh_client: ctx.ssh_client.clone(),
            host: ctx.host.clone(),
            target_env: config.target.env.clone(),
            command: command.to_string(),
            truncated,
            signals: Vec::new(),
            max_severity: "",
            verdict,
            policy_digest: String::new(),
            ansible_tasks: Vec::new(),
            duration_us: started.elapsed().as_micros() as u64,
        }
    }

    /// The evidence of a decision: its signals, the Ansible tasks its analysis decoded, the
    /// policy digest and the target's env.
    pub fn with_evidence(
        mut self,
        analysis: &Analysis,
        signals: &[Signal],
        policy_digest: &str,
        target_env: &str,
    ) -> Self {
        self.ansible_tasks = crate::payload::audit_view(analysis);
        self.signals = signals.iter().map(Signal::id).collect();
        self.max_severity = max_severity(signals).map_or("", |s| s.as_str());
        self.policy_digest = policy_digest.to_string();
        self.target_env = target_env.to_string();
        self
    }
}

/// `command` cut to `max` bytes on a character boundary, and whether it was cut.
fn bounded(command: &str, max: usize) -> (&str, bool) {
    if command.len() <= max {
        return (command, false);
    }
    let mut end = max;
    while !command.is_char_boundary(end) {
        end -= 1;
    }
    (&command[..end], true)
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

/// What happened to a record: per configured sink, whether it took it; one message per failure.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    pub syslog: Option<bool>,
    pub file: Option<bool>,
    pub errors: Vec<String>,
}

impl Delivery {
    /// True when every configured sink took the record (or none was configured): with
    /// `required = true`, anything less denies.
    pub fn recorded(&self) -> bool {
        self.errors.is_empty() && [self.syslog, self.file].iter().flatten().all(|ok| *ok)
    }
}

/// Writes the record to every configured sink: the file first, then the system log (whose wait
/// is bounded), so a stalled reader cannot hold up the file's copy.
pub fn record(config: &AuditConfig, record: &Record) -> Delivery {
    let mut delivery = Delivery::default();
    let json = match serde_json::to_string(record) {
        Ok(j) => j,
        Err(e) => {
            delivery.syslog = config.syslog.then_some(false);
            delivery.file = config.file.as_ref().map(|_| false);
            delivery.errors.push(format!("audit record: {e}"));
            return delivery;
        }
    };
    if let Some(path) = &config.file {
        let mut line = Vec::with_capacity(json.len() + 1);
        line.extend_from_slice(json.as_bytes());
        line.push(b'\n');
        let ok = file::append(path, &line, record.uid);
        if let Err(e) = &ok {
            delivery.errors.push(format!(
                "audit file {}: {e} [{}]",
                path.display(),
                e.reason_id()
            ));
        }
        delivery.file = Some(ok.is_ok());
    }
    if config.syslog {
        let ok = syslog::send(&config.syslog_socket, record, &json);
        if let Err(e) = &ok {
            delivery.errors.push(format!(
                "syslog {}: {e} [{}]",
                config.syslog_socket.display(),
                e.reason_id()
            ));
        }
        delivery.syslog = Some(ok.is_ok());
    }
    delivery
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
    fn a_record_is_recorded_only_when_every_configured_sink_took_it() {
        let delivery = |syslog, file, errors: &[&str]| Delivery {
            syslog,
            file,
            errors: errors.iter().map(|e| e.to_string()).collect(),
        };
        assert!(delivery(None, None, &[]).recorded());
        assert!(delivery(Some(true), Some(true), &[]).recorded());
        assert!(!delivery(Some(false), Some(true), &["syslog"]).recorded());
        assert!(!delivery(Some(true), Some(false), &["file"]).recorded());
        assert!(!delivery(None, None, &["audit record"]).recorded());
    }

    #[test]
    fn command_is_bounded_on_a_char_boundary() {
        assert_eq!(bounded("héllo", 2), ("h", true));
        assert_eq!(bounded("abc", 10), ("abc", false));
    }
}
