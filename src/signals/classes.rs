//! (command classes being written — placeholder with the agreed API so callers compile)

use crate::parse::{Analysis, Command};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandClass {
    Read,
    Write,
    Network,
    Install,
    Destructive,
}

pub fn classify(_cmd: &Command) -> CommandClass {
    CommandClass::Write
}

pub fn classes(a: &Analysis) -> Vec<CommandClass> {
    let mut v: Vec<CommandClass> = a.commands.iter().map(classify).collect();
    v.sort();
    v.dedup();
    v
}
