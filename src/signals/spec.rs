//! The signal catalogue's entry type. A `Spec` is one (ID, severity, reason) triple; an ID may have
//! several specs when the reference engine gives it more than one reason or severity.

use super::{Severity, Signal};
use crate::ir::Command;

/// Which rule family a spec belongs to (one source file under `src/signals/` each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    Structure,
    Destructive,
    Platform,
    Download,
    ReverseShell,
    Secrets,
    Clobber,
    Permissions,
    Persistence,
    Tamper,
    Escape,
    Limits,
    Python,
    Interpreter,
    Ansible,
    Databases,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Structure => "structure",
            Self::Destructive => "destructive",
            Self::Platform => "platform",
            Self::Download => "download",
            Self::ReverseShell => "reverse-shell",
            Self::Secrets => "secrets",
            Self::Clobber => "clobber",
            Self::Permissions => "permissions",
            Self::Persistence => "persistence",
            Self::Tamper => "tamper",
            Self::Escape => "escape",
            Self::Limits => "limits",
            Self::Python => "python",
            Self::Interpreter => "interpreter",
            Self::Ansible => "ansible",
            Self::Databases => "databases",
        }
    }
}

/// One catalogue entry. IDs are UPPER_SNAKE and stable forever.
#[derive(Debug)]
pub struct Spec {
    pub id: &'static str,
    pub severity: Severity,
    pub reason: &'static str,
    pub family: Family,
    /// A few sentences for `--explain`: what triggers it and why it matters.
    pub explain: &'static str,
}

impl Spec {
    /// A signal for this spec attributed to `command`, with `args` as its evidence.
    pub fn on(&'static self, at: usize, command: &Command, args: Vec<String>) -> Signal {
        Signal {
            spec: self,
            command: command.display_name(),
            args,
            at,
        }
    }

    /// A signal for this spec that no single command carries (parse errors, limits).
    pub fn bare(&'static self, args: Vec<String>) -> Signal {
        Signal {
            spec: self,
            command: None,
            args,
            at: usize::MAX,
        }
    }
}
