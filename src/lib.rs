//! guarded-sh: parse every command line with tree-sitter-bash, derive deterministic risk signals,
//! deny the built-in critical patterns, ask local Rego policies, and only then exec the real shell.
//!
//! The pure core is `parse` (text to IR), `signals` (IR to signals) and `decision` (signals and
//! policy result to a verdict); the edges are `context`, `config`, `policy` loading, `audit` and
//! `exec`. `app` sequences them.

pub mod decision;
pub mod parse;
pub mod policy;
pub mod signals;
