//! The contextual decision: a local directory of Rego policies evaluated by regorus, failing
//! closed, with a content-keyed cache of the compiled program. `input` builds the versioned
//! policy input from the context and the analysis.

pub mod cache;
pub mod decision;
pub mod engine;
pub mod entry;
pub mod error;
pub mod input;
pub mod rego_value;
pub mod tests_runner;
