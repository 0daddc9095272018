//! The policy input, schema version 1: the reference engine's `command_exec` shape (`action`,
//! `actor`, `command {raw, max_severity, interpreter, riskSignals, detected}`, `target`,
//! `execution`) extended with `command.classes`, `command.hidden_execution`, `command.critical`,
//! `command.ansible` and `session`. Keys are
//! never renamed; new ones are only added.

use crate::parse::Analysis;
use crate::signals::{classes, max_severity, Signal};
use serde::Serialize;
use serde_json::{json, Map, Value};

pub const SCHEMA_VERSION: u32 = 1;

/// `detected`: command names, flags and other arguments, de-duplicated in first-seen order.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Detected {
    pub commands: Vec<String>,
    pub flags: Vec<String>,
    pub paths: Vec<String>,
}

impl Detected {
    /// Over every simple command, including those reached through wrappers and nested shells.
    /// A command word that is not static is listed as written (`$x`), so allowlists miss
    /// nothing.
    pub fn of(analysis: &Analysis) -> Self {
        let mut d = Detected::default();
        for cmd in &analysis.commands {
            let name = match cmd.base() {
                Some("") => continue,
                Some(b) => b.to_string(),
                None if cmd.name.raw.is_empty() => continue,
                None => cmd.name.raw.clone(),
            };
            push_unique(&mut d.commands, name);
            for arg in &cmd.args {
                let text = arg
                    .value()
                    .map_or_else(|| arg.shown.clone(), str::to_string);
                if text.is_empty() {
                    continue;
                }
                if text.starts_with('-') {
                    push_unique(&mut d.flags, text);
                } else {
                    push_unique(&mut d.paths, text);
                }
            }
        }
        d
    }
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// The `target` object.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Target {
    pub name: String,
    pub provider: String,
    pub env: String,
    pub host_vars: Map<String, Value>,
}

/// The `session` object.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Session {
    pub mode: String,
    pub interactive: bool,
    pub tty: bool,
    pub login: bool,
    pub ssh_client: String,
    pub ssh_original_command: String,
    pub user: String,
    pub uid: u32,
    pub cwd: String,
}

/// Everything the input is built from.
pub struct InputParts<'a> {
    pub raw: &'a str,
    pub interpreter: &'a str,
    pub analysis: &'a Analysis,
    pub signals: &'a [Signal],
    pub target: &'a Target,
    pub session: &'a Session,
    pub dry_run: bool,
    pub approved: bool,
    /// The command runs under exec supervision (`[supervise]`): what it starts is judged too.
    pub supervised: bool,
}

/// Builds the versioned input document.
pub fn build(p: &InputParts) -> Value {
    let max = max_severity(p.signals).map_or("", |s| s.as_str());
    json!({
        "schema_version": SCHEMA_VERSION,
        "action": "command_exec",
        "actor": p.session.user,
        "command": {
            "raw": p.raw,
            "max_severity": max,
            "critical": max == "critical",
            "interpreter": p.interpreter,
            "riskSignals": p.signals,
            "detected": Detected::of(p.analysis),
            "classes": classes::classes(p.analysis),
            "hidden_execution": classes::hidden_execution(p.analysis),
            "ansible": crate::payload::policy_view(p.analysis),
        },
        "target": {
            "name": p.target.name,
            "provider": p.target.provider,
            "env": p.target.env,
            "host_vars": p.target.host_vars,
        },
        "execution": {
            "recipe": "",
            "dry_run": p.dry_run,
            "approved": p.approved,
            "supervised": p.supervised,
        },
        "session": {
            "mode": p.session.mode,
            "interactive": p.session.interactive,
            "tty": p.session.tty,
            "login": p.session.login,
            "ssh": {
                "client": p.session.ssh_client,
                "original_command": p.session.ssh_original_command,
            },
            "user": p.session.user,
            "uid": p.session.uid,
            "cwd": p.session.cwd,
        },
    })
}
