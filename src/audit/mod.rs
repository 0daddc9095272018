//! Audit: one record per decision (allow, deny, held, escape used, internal error), written and
//! flushed before exec as one JSON line to the system sink [`sink::select`] picks (journald's
//! native protocol, [`journald`], whose trusted fields tell real records from forged ones; or
//! the syslog socket, [`syslog`]) and to the JSON-lines file ([`file`]). The record's fields are
//! the contract of `schema/guarded-sh.v1.schema.json`; the [`Delivery`] says what each sink did,
//! and [`Delivery::refusal`] is the one rule for when a decision must not be carried out.

mod datagram;
mod file;
mod journald;
mod sink;
mod syslog;

pub use sink::{Delivery, Refusal, Sink};

use crate::config::{AuditConfig, Config};
use crate::context::Context;
use crate::ir::Analysis;
use crate::signals::{max_severity, Signal};
use crate::verdict::{Surface, Verdict};
use serde::Serialize;
use std::time::Instant;
use std::time::{SystemTime, UNIX_EPOCH};

/// The version of the record's shape (`schema` in every record; the schema file's `v1`).
pub const SCHEMA_VERSION: u32 = 1;

/// One decision, as logged. Built only by [`Record::new`].
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub schema: u32,
    pub time: String,
    pub decision_id: String,
    /// The session this decision belongs to (`Context::session_id`).
    pub session_id: String,
    /// guarded-sh's version.
    pub version: &'static str,
    pub user: String,
    pub uid: u32,
    pub pid: u32,
    pub ppid: u32,
    /// Where the command arrived (`command`, `script`, `stdin`, `interactive`, `hook`, …).
    pub mode: Surface,
    pub tty: bool,
    pub ssh_client: String,
    pub host: String,
    /// The policy's target name (`[target] name`, else the host name).
    pub target: String,
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
    /// A supervised exec's own facts (`mode` is `exec`): absent on every other record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecFacts>,
    pub duration_us: u64,
}

/// What a supervised exec's record adds: the program, the program that started it, and what
/// the supervisor did (`audit` never refuses).
#[derive(Clone, Debug, Serialize)]
pub struct ExecFacts {
    pub path: String,
    pub caller: String,
    pub supervision: &'static str,
    pub refused: bool,
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
            schema: SCHEMA_VERSION,
            time: now_rfc3339(),
            decision_id: decision_id(),
            session_id: ctx.session_id.clone(),
            version: env!("CARGO_PKG_VERSION"),
            user: ctx.user.clone(),
            uid: ctx.uid,
            pid: ctx.pid,
            ppid: ctx.ppid,
            mode: surface,
            tty: ctx.stdin_tty,
            ssh_client: ctx.ssh_client.clone(),
            host: ctx.host.clone(),
            target: config
                .target
                .name
                .clone()
                .unwrap_or_else(|| ctx.host.clone()),
            target_env: config.target.env.clone(),
            command: command.to_string(),
            truncated,
            signals: Vec::new(),
            max_severity: "",
            verdict,
            policy_digest: String::new(),
            ansible_tasks: Vec::new(),
            exec: None,
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

/// Writes the record to the file (first: a stalled system-log reader cannot hold up its
/// copy) and to the system sink [`sink::select`] resolves (its wait bounded); the delivery says
/// what each configured sink did.
pub fn record(config: &AuditConfig, record: &Record) -> Delivery {
    let mut delivery = Delivery::default();
    let system = sink::select(config);
    let json = match serde_json::to_string(record) {
        Ok(j) => j,
        Err(e) => {
            let error = format!("audit record: {e} [audit.serialise]");
            config
                .file
                .iter()
                .for_each(|_| delivery.failed(Sink::File, &error));
            system.iter().for_each(|(s, _)| delivery.failed(*s, &error));
            return delivery;
        }
    };
    if let Some(path) = &config.file {
        let mut line = Vec::with_capacity(json.len() + 1);
        line.extend_from_slice(json.as_bytes());
        line.push(b'\n');
        match file::append(path, &line, record.uid) {
            Ok(()) => delivery.took(Sink::File),
            Err(e) => delivery.failed(
                Sink::File,
                &format!("audit file {}: {e} [{}]", path.display(), e.reason_id()),
            ),
        }
    }
    if let Some((sink, socket)) = system {
        let sent = match sink {
            Sink::Journald => journald::send(socket, record, &json),
            _ => syslog::send(socket, record, &json),
        };
        match sent {
            Ok(()) => delivery.took(sink),
            Err(e) => delivery.failed(
                sink,
                &format!(
                    "{} {}: {e} [{}]",
                    sink.as_str(),
                    socket.display(),
                    e.reason_id(sink)
                ),
            ),
        }
    }
    delivery
}

/// The syslog severity of a record: info (6) for a plain allow, notice (5) otherwise (denials,
/// errors, held, and the allows that skipped or passed approval).
fn severity(record: &Record) -> u8 {
    if record.verdict.audit_word() == "allow" {
        6
    } else {
        5
    }
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
        assert_eq!(bounded("héllo", 2), ("h", true));
        assert_eq!(bounded("abc", 10), ("abc", false));
    }
}
