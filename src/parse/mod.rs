//! Analysis: shell text to the IR, with nothing run. tree-sitter-bash parses; `lower` walks the
//! tree into simple commands with static words; `unwrap` follows wrappers, nested shells and
//! remote execs; `plain` recognises the plain command line that needs no grammar. Every bound is
//! explicit and a crossed one is reported in `Analysis::limits`.

mod ir;
mod lower;
mod plain;
mod recover;
pub mod unwrap;
mod word;

pub use ir::*;
pub use plain::plain_words;
pub use word::Word;

use serde::Deserialize;

/// Bounds on one analysis. Crossing any is recorded, and the gate fails closed on it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest text analysed, in bytes (a script, a `-c` string, each nested shell string).
    pub max_bytes: usize,
    /// Most syntax nodes visited across the text and everything nested in it.
    pub max_nodes: usize,
    /// Deepest syntax-tree nesting followed.
    pub max_depth: usize,
    /// Most levels of shell strings inside shell strings (`bash -c "sh -c '…'"`).
    pub max_nesting: usize,
    /// Wall-clock budget for parsing and lowering, in milliseconds.
    pub max_millis: u64,
    /// Most pipe operators in one text, counted before parsing: tree-sitter-bash is quadratic
    /// on some long pipelines (`echo -x | cat | cat …`) and does not stop on time inside them.
    pub max_pipes: usize,
    /// Largest interpreter program analysed, in bytes (`python3 -c`, a heredoc, a script file).
    /// A larger one is denied unanalysed, so padding cannot push code past the scan.
    pub max_code_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 128 * 1024,
            max_nodes: 400_000,
            max_depth: 256,
            max_nesting: 8,
            max_millis: 1_000,
            max_pipes: 1_024,
            max_code_bytes: 64 * 1024,
        }
    }
}

/// Analyses `text` as a shell script.
pub fn analyse(text: &str, limits: &Limits) -> Analysis {
    let mut lowerer = lower::Lowerer::new(limits);
    lowerer.script(text, &Context::default(), None);
    lowerer.out
}

/// Analyses `text` with every text, plain command lines included, parsed by tree-sitter: the
/// reference the plain-line path is compared with (`tests/parse_plain.rs`).
pub fn analyse_grammar_only(text: &str, limits: &Limits) -> Analysis {
    let mut lowerer = lower::Lowerer::grammar_only(limits);
    lowerer.script(text, &Context::default(), None);
    lowerer.out
}

/// Analyses `text` with the contents of the script files it runs (`python3 x.py`, `./x.py`),
/// read by the caller (see `crate::interp::analyse_reading`).
pub fn analyse_with(text: &str, limits: &Limits, scripts: &crate::interp::ScriptFiles) -> Analysis {
    let mut lowerer = lower::Lowerer::new(limits);
    lowerer.out.scripts = scripts.clone();
    lowerer.script(text, &Context::default(), None);
    lowerer.out
}
