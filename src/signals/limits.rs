//! Analysis bounds crossed: the text was too large, too deep, too nested or too slow to analyse
//! completely. Each is critical, so the gate fails closed on it.

use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Limit};

/// The family of every entry declared below.
const FAMILY: Family = Family::Limits;

spec!(INPUT_TOO_LARGE, "INPUT_TOO_LARGE", Critical, "command text too large to analyse",
    "The text (or a shell string nested in it) is larger than `limits.max_bytes`. Parsing it would cost seconds and hundreds of MB, so it is denied unanalysed.");
spec!(ANALYSIS_TIMEOUT, "ANALYSIS_TIMEOUT", Critical, "analysis time limit exceeded",
    "Parsing took more parser steps than `limits.max_parse_steps` (a count of work, the same on a loaded machine), or parsing and lowering took longer than the wall-clock backstop `limits.max_millis`; the parse is cancelled and the command denied.");
spec!(SYNTAX_TOO_LARGE, "SYNTAX_TOO_LARGE", Critical, "syntax tree too large to analyse",
    "The syntax tree has more nodes than `limits.max_nodes` (the words of each wrapper level, `sudo sudo … cmd`, count as nodes); the rest of the text was not analysed, so the command is denied.");
spec!(SYNTAX_TOO_DEEP, "SYNTAX_TOO_DEEP", Critical, "syntax tree nested too deeply to analyse",
    "Substitutions, subshells or groups nest deeper than `limits.max_depth`, or a chain of wrappers (`sudo sudo … cmd`, `env nice nohup … cmd`) is longer than it; what lies deeper was not analysed, so the command is denied.");
spec!(NESTING_LIMIT_EXCEEDED, "NESTING_LIMIT_EXCEEDED", Critical, "shell strings nested too deeply",
    "Shell strings inside shell strings (`bash -c \"sh -c '…'\"`, eval, ssh) nest deeper than `limits.max_nesting`; the innermost code was not analysed, so the command is denied.");

pub static SPECS: &[&Spec] = &[
    &INPUT_TOO_LARGE,
    &ANALYSIS_TIMEOUT,
    &SYNTAX_TOO_LARGE,
    &SYNTAX_TOO_DEEP,
    &NESTING_LIMIT_EXCEEDED,
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    for limit in &a.limits {
        let (spec, evidence) = match *limit {
            Limit::Size { bytes, max } => (&INPUT_TOO_LARGE, format!("{bytes} bytes > {max}")),
            Limit::Time { max_ms } => (&ANALYSIS_TIMEOUT, format!("> {max_ms} ms")),
            Limit::Steps { max } => (&ANALYSIS_TIMEOUT, format!("> {max} parser steps")),
            Limit::Nodes { max } => (&SYNTAX_TOO_LARGE, format!("> {max} nodes")),
            Limit::Depth { max } => (&SYNTAX_TOO_DEEP, format!("> depth {max}")),
            Limit::Nesting { max } => (&NESTING_LIMIT_EXCEEDED, format!("> {max} levels")),
            Limit::Commands { max } => (&SYNTAX_TOO_LARGE, format!("> {max} pipe operators")),
        };
        out.push(spec.bare(vec![evidence]));
    }
}
