//! Exec supervision (DESIGN §10): for the accounts `[supervise]` names, guarded-sh does not exec
//! the real shell; it starts it under a seccomp filter whose `execve`/`execveat` notifications come
//! back to it, stays its parent, and judges every program the process tree starts on its real
//! argv with the one gate. The setting, and whether it applies to an account, live with the rest
//! of the configuration ([`crate::config::SuperviseConfig`]); [`child`] is the filtered side,
//! [`tracee`] reads an exec from the child's memory, [`judge`] turns it into the gate's request,
//! and [`serve`] is the supervisor's loop.

pub mod child;
pub mod judge;
pub mod serve;
pub mod tracee;

pub use crate::config::{SuperviseConfig, SuperviseMode};
