//! guarded-sh's own lines on stderr (its refusals and reports): one place that writes them, and
//! never panics when stderr is closed or full.

/// One line on stderr; false when it could not be written.
pub fn say(line: &str) -> bool {
    use std::io::Write;
    writeln!(std::io::stderr(), "{line}").is_ok()
}
