//! guarded-sh: parse every command line with tree-sitter-bash, derive deterministic risk signals,
//! deny the built-in critical patterns, ask local Rego policies, and only then exec the real shell.
//!
//! The pure core is `parse` (text to IR), `signals` (IR to signals) and `decision` (signals and
//! policy result to a verdict); the edges are `context`, `config`, `policy` loading, `audit`,
//! `trust` and `exec`. `app` sequences them; `invocation` is the argv grammar (its `own` half,
//! clap, guarded-sh's own options); `review` the analyse-only surface.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub(crate) mod advisory;
pub mod analysis;
pub mod app;
pub mod approval;
pub(crate) mod audit;
pub(crate) mod bounded_read;
pub mod config;
pub mod context;
pub mod decision;
pub(crate) mod diagnostics;
pub(crate) mod exec;
pub mod gate;
pub(crate) mod interactive;
pub mod interp;
pub(crate) mod interrupt;
pub mod invocation;
pub(crate) mod ir;
pub mod parse;
pub mod payload;
pub mod policy;
pub mod preflight;
pub mod programs;
pub(crate) mod review;
pub mod script_files;
pub(crate) mod shell;
pub mod signals;
pub(crate) mod stderr;
pub(crate) mod stdin_program;
pub mod supervise;
pub(crate) mod target;
pub(crate) mod trust;
pub mod verdict;
