//! Signals: deterministic risk rules over the analysis IR, one file per rule family. Each family
//! declares its catalogue entries (`SPECS`) and a `detect` function; this module runs them all
//! and orders the result by where in the text each signal was found.

/// Declares one catalogue entry as a `pub static Spec`:
/// `spec!(NAME, "ID", Severity, "reason", "explanation")` in the family of the file's `FAMILY`
/// constant, or `spec!(NAME, "ID", Severity, Family, "reason", "explanation")`.
macro_rules! spec {
    ($name:ident, $id:literal, $sev:ident, $reason:literal, $explain:literal) => {
        pub static $name: Spec = Spec {
            id: $id,
            severity: Severity::$sev,
            reason: $reason,
            family: FAMILY,
            explain: $explain,
        };
    };
    ($name:ident, $id:literal, $sev:ident, $family:ident, $reason:literal, $explain:literal) => {
        pub static $name: Spec = Spec {
            id: $id,
            severity: Severity::$sev,
            reason: $reason,
            family: Family::$family,
            explain: $explain,
        };
    };
}

pub mod classes;
pub mod paths;
mod severity;
mod spec;

mod ansible;
mod clobber;
mod databases;
mod destructive;
mod disk_tools;
mod download;
mod escape;
mod grammar;
mod interpreters;
mod limits;
mod permissions;
mod persistence;
pub mod platform;
mod python;
mod reverse_shell;
mod secrets;
mod structure;
mod tamper;

pub use severity::Severity;
pub use spec::{Family, Spec};

use crate::ir::Analysis;
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// One finding: a catalogue entry, the command it was found on and its evidence.
#[derive(Clone, Debug)]
pub struct Signal {
    pub spec: &'static Spec,
    pub command: Option<String>,
    pub args: Vec<String>,
    /// Index of the command it was found on (orders signals in text order).
    pub at: usize,
}

impl Signal {
    pub fn id(&self) -> &'static str {
        self.spec.id
    }
    pub fn severity(&self) -> Severity {
        self.spec.severity
    }
    pub fn reason(&self) -> &'static str {
        self.spec.reason
    }
}

impl Serialize for Signal {
    /// The reference engine's shape: `{id, severity, command?, args?, reason}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Signal", 5)?;
        st.serialize_field("id", self.id())?;
        st.serialize_field("severity", &self.severity())?;
        if let Some(c) = &self.command {
            st.serialize_field("command", c)?;
        }
        if !self.args.is_empty() {
            st.serialize_field("args", &self.args)?;
        }
        st.serialize_field("reason", self.reason())?;
        st.end()
    }
}

/// The families in the order their signals are listed for one command.
type Detect = fn(&Analysis, &mut Vec<Signal>);
const FAMILIES: &[(&[&Spec], Detect)] = &[
    (limits::SPECS, limits::detect),
    (structure::SPECS, structure::detect),
    (destructive::SPECS, destructive::detect),
    (platform::SPECS, platform::detect),
    (download::SPECS, download::detect),
    (reverse_shell::SPECS, reverse_shell::detect),
    (secrets::SPECS, secrets::detect),
    (clobber::SPECS, clobber::detect),
    (permissions::SPECS, permissions::detect),
    (persistence::SPECS, persistence::detect),
    (tamper::SPECS, tamper::detect),
    (escape::SPECS, escape::detect),
    (python::SPECS, python::detect),
    (interpreters::SPECS, interpreters::detect),
    (ansible::SPECS, ansible::detect),
    (databases::SPECS, databases::detect),
];

/// Wall-clock backstop for running every family over one analysis. The work is bounded by the
/// analysis's own bounds (nodes, steps, bytes) and every family is linear in it, so only a
/// stalled machine reaches this: generous, so that load alone never denies (issue 19).
pub const DETECT_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// Every signal the analysis raises, in text order.
pub fn detect(analysis: &Analysis) -> Vec<Signal> {
    detect_within(analysis, DETECT_BUDGET)
}

/// `detect`, stopping after the family that crosses `budget`: the unfinished analysis then
/// carries the critical `ANALYSIS_TIMEOUT`, so the gate fails closed rather than waits.
pub fn detect_within(analysis: &Analysis, budget: std::time::Duration) -> Vec<Signal> {
    let started = std::time::Instant::now();
    let mut out = Vec::new();
    for (_, family) in FAMILIES {
        family(analysis, &mut out);
        if started.elapsed() > budget {
            out.push(limits::ANALYSIS_TIMEOUT.bare(vec![format!(
                "signal detection > {} ms",
                budget.as_millis()
            )]));
            break;
        }
    }
    out.sort_by_key(|s| s.at);
    without_repeated_readings(analysis, out)
}

/// Drops a signal raised on a reading of a command (`Context::reading_of`) when the command
/// itself or an earlier reading of it already raised the same ID: a reading adds what its
/// value reveals, not a second copy of what the written command shows.
fn without_repeated_readings(analysis: &Analysis, signals: Vec<Signal>) -> Vec<Signal> {
    if !analysis
        .commands
        .iter()
        .any(|c| c.context.reading_of.is_some())
    {
        return signals;
    }
    let origin = |at: usize| {
        let mut at = at;
        while let Some(of) = analysis.commands.get(at).and_then(|c| c.context.reading_of) {
            at = of;
        }
        at
    };
    let mut seen: Vec<(usize, &'static str)> = Vec::new();
    let mut kept = Vec::with_capacity(signals.len());
    let (readings, written): (Vec<Signal>, Vec<Signal>) = signals.into_iter().partition(|s| {
        analysis
            .commands
            .get(s.at)
            .is_some_and(|c| c.context.reading_of.is_some())
    });
    for s in &written {
        seen.push((s.at, s.id()));
    }
    kept.extend(written);
    for s in readings {
        let key = (origin(s.at), s.id());
        if !seen.contains(&key) {
            seen.push(key);
            kept.push(s);
        }
    }
    kept.sort_by_key(|s| s.at);
    kept
}

/// The whole catalogue, family by family.
pub fn catalogue() -> impl Iterator<Item = &'static Spec> {
    FAMILIES.iter().flat_map(|(specs, _)| specs.iter().copied())
}

/// The catalogue entries with this ID (one ID can have several reasons or severities).
pub fn lookup(id: &str) -> Vec<&'static Spec> {
    catalogue().filter(|s| s.id == id).collect()
}

/// The highest severity, or `None` without signals.
pub fn max_severity(signals: &[Signal]) -> Option<Severity> {
    signals.iter().map(Signal::severity).max()
}

/// The first critical signal, which the built-in floor denies on.
pub fn first_critical(signals: &[Signal]) -> Option<&Signal> {
    signals.iter().find(|s| s.severity() == Severity::Critical)
}
