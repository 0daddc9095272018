//! The review surface: `--check`, `--check-file`, `--list-signals`, `--explain`, `--policy-test`.
//! It analyses and decides, and never runs anything.

mod check;

pub use check::run;
