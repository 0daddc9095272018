//! The contextual decision: a local directory of Rego policies evaluated by regorus, failing
//! closed, with a content-keyed cache of the compiled program. `directory` reads the files,
//! `engine` loads and evaluates them, `enforcement` picks the directory and trusts it, `input`
//! builds the versioned policy input from the context and the analysis.

pub mod cache;
pub mod decision;
pub mod directory;
pub mod enforcement;
pub mod engine;
pub mod entry;
pub mod error;
pub mod input;
pub mod lint;
mod lint_calls;
pub mod memory;
pub mod rego_value;
mod rule_cycles;
pub mod tests_runner;

/// Why a configured policy (or the context it decides on) could not decide: the gate fails
/// closed on it, with this reason id and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyFailure {
    pub reason_id: &'static str,
    pub message: String,
}
