//! Which sinks take a record and what they did: [`select`] resolves `[audit] system_log` to the
//! one system sink (journald, syslog, or none), and [`Delivery::refusal`] is the one rule every
//! surface applies: a decision that no sink recorded is not carried out (fail closed, whatever
//! `required` says), and with `required = true` neither is one that any configured sink missed.

use crate::config::{AuditConfig, SystemLog};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// A place a record goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// journald's native protocol (`[audit] journald_socket`).
    Journald,
    /// The syslog socket (`[audit] syslog_socket`).
    Syslog,
    /// The JSON-lines file (`[audit] file`).
    File,
}

impl Sink {
    pub fn as_str(self) -> &'static str {
        match self {
            Sink::Journald => "journald",
            Sink::Syslog => "syslog",
            Sink::File => "file",
        }
    }
}

/// The system sink of `config` and its socket: the one named, or for `auto` journald when its
/// socket exists as a socket, else syslog when its socket does (a link to one counts), else none.
pub fn select(config: &AuditConfig) -> Option<(Sink, &Path)> {
    let journald = (Sink::Journald, config.journald_socket.as_path());
    let syslog = (Sink::Syslog, config.syslog_socket.as_path());
    match config.system_log {
        SystemLog::Off => None,
        SystemLog::Journald => Some(journald),
        SystemLog::Syslog => Some(syslog),
        SystemLog::Auto => [journald, syslog]
            .into_iter()
            .find(|(_, socket)| is_socket(socket)),
    }
}

fn is_socket(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket())
}

/// What happened to a record: each configured sink, in the order written, and whether it took
/// the record; one message per failure.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    pub sinks: Vec<(Sink, bool)>,
    pub errors: Vec<String>,
}

/// Why a decision is not carried out although it was reached: its record was not kept.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} [{reason_id}]")]
pub struct Refusal {
    pub reason_id: &'static str,
    pub message: String,
}

impl Delivery {
    pub(super) fn took(&mut self, sink: Sink) {
        self.sinks.push((sink, true));
    }

    pub(super) fn failed(&mut self, sink: Sink, error: &str) {
        self.sinks.push((sink, false));
        self.errors.push(error.to_string());
    }

    /// Why the decision must not be carried out, if it must not: no sink took the record (none
    /// configured or resolved, or every one failed), or `required` and one did not.
    /// `config_file` is the configuration in use, which the message names.
    pub fn refusal(&self, required: bool, config_file: &std::path::Path) -> Option<Refusal> {
        if !self.sinks.iter().any(|(_, ok)| *ok) {
            let why = match self.sinks.is_empty() {
                true => "no audit sink recorded this decision (none is configured or present)",
                false => "no audit sink recorded this decision (every configured sink failed)",
            };
            return Some(Refusal {
                reason_id: "audit.no_sink",
                message: format!(
                    "{why}; set [audit] system_log or [audit] file in {}",
                    config_file.display()
                ),
            });
        }
        let missed = self.sinks.iter().any(|(_, ok)| !ok) || !self.errors.is_empty();
        (required && missed).then(|| Refusal {
            reason_id: "audit.required",
            message: "a configured audit sink did not record this decision and [audit] \
                      required = true"
                .into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn refusal_table() {
        use Sink::*;
        // (sinks, required, expected reason id)
        type Row = (&'static [(Sink, bool)], bool, Option<&'static str>);
        let table: [Row; 9] = [
            (&[], false, Some("audit.no_sink")),
            (&[], true, Some("audit.no_sink")),
            (&[(Journald, false)], false, Some("audit.no_sink")),
            (
                &[(File, false), (Syslog, false)],
                false,
                Some("audit.no_sink"),
            ),
            (&[(Journald, true)], false, None),
            (&[(File, true), (Syslog, false)], false, None),
            (
                &[(File, true), (Syslog, false)],
                true,
                Some("audit.required"),
            ),
            (&[(File, true), (Journald, true)], true, None),
            (
                &[(File, false), (Journald, true)],
                true,
                Some("audit.required"),
            ),
        ];
        for (sinks, required, expected) in table {
            let delivery = Delivery {
                sinks: sinks.to_vec(),
                errors: sinks
                    .iter()
                    .filter(|(_, ok)| !ok)
                    .map(|(s, _)| s.as_str().to_string())
                    .collect(),
            };
            let got = delivery
                .refusal(required, std::path::Path::new("/c.toml"))
                .map(|r| r.reason_id);
            assert_eq!(got, expected, "{sinks:?} required={required}");
        }
    }

    #[test]
    fn auto_picks_journald_then_syslog_then_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let journald = dir.path().join("journal");
        let syslog = dir.path().join("log");
        let config = |system_log| AuditConfig {
            system_log,
            journald_socket: journald.clone(),
            syslog_socket: syslog.clone(),
            ..AuditConfig::default()
        };
        let picked = |c: &AuditConfig| select(c).map(|(s, p)| (s, PathBuf::from(p)));
        assert_eq!(picked(&config(SystemLog::Auto)), None);
        std::fs::write(&journald, "").unwrap();
        assert_eq!(
            picked(&config(SystemLog::Auto)),
            None,
            "a file is no socket"
        );
        let _syslog = std::os::unix::net::UnixDatagram::bind(&syslog).unwrap();
        assert_eq!(
            picked(&config(SystemLog::Auto)),
            Some((Sink::Syslog, syslog.clone()))
        );
        std::fs::remove_file(&journald).unwrap();
        let _journald = std::os::unix::net::UnixDatagram::bind(&journald).unwrap();
        assert_eq!(
            picked(&config(SystemLog::Auto)),
            Some((Sink::Journald, journald.clone()))
        );
        assert_eq!(
            picked(&config(SystemLog::Syslog)),
            Some((Sink::Syslog, syslog.clone()))
        );
        assert_eq!(picked(&config(SystemLog::Off)), None);
    }

    #[test]
    fn the_old_syslog_key_is_an_alias_and_both_keys_are_an_error() {
        let parse = |t: &str| crate::config::parse(t, Path::new("c.toml"));
        let system_log = |t: &str| parse(t).map(|c| c.audit.system_log).ok();
        assert_eq!(system_log(""), Some(SystemLog::Auto));
        assert_eq!(
            system_log("[audit]\nsyslog = true\n"),
            Some(SystemLog::Auto)
        );
        assert_eq!(
            system_log("[audit]\nsyslog = false\n"),
            Some(SystemLog::Off)
        );
        assert_eq!(
            system_log("[audit]\nsystem_log = \"journald\"\n"),
            Some(SystemLog::Journald)
        );
        assert_eq!(system_log("[audit]\nsystem_log = \"nope\"\n"), None);
        let err = parse("[audit]\nsystem_log = \"off\"\nsyslog = false\n").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("both system_log and syslog"), "{text}");
        assert!(text.starts_with("c.toml:"), "{text}");
    }
}
