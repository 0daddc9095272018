//! The review surface: `--check`, `--check-file`, `--list-signals`, `--explain`, `--policy-test`.
//! It analyses and decides, and never runs anything; ShellCheck and the advisory model only
//! ever add text next to a verdict already made.

mod check;
pub mod script;
pub mod shellcheck;
pub mod split;

pub use check::{run, text_report, Extras, EXIT_ALLOW, EXIT_DENY, EXIT_HELD, EXIT_USAGE};

/// Writes review output to stdout; a closed pipe (`| head`) is not an error worth a panic.
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
