//! (rule family being written)

use super::{Signal, Spec};
use crate::parse::Analysis;

pub static SPECS: &[&Spec] = &[];

pub fn detect(_a: &Analysis, _out: &mut Vec<Signal>) {}
