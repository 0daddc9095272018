//! Bounds on one analysis, and the record of one it crossed. Crossing any is reported in
//! `Analysis::limits`, and the gate fails closed on it.

use serde::Deserialize;

/// Bounds on one analysis. Crossing any is recorded, and the gate fails closed on it.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
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
    /// Most parser steps for the text and everything nested in it, each Python program on its
    /// own budget. A step is tree-sitter's unit between two progress checks (100 parse
    /// operations), so the bound is the same work on an idle or a loaded machine. A plain
    /// command line takes none; a 100 KiB script a few thousand.
    pub max_parse_steps: u64,
    /// Wall-clock backstop for parsing and lowering, in milliseconds: generous, since the step
    /// and node bounds decide; only a machine stalled for this long reaches it.
    pub max_millis: u64,
    /// Most pipe operators in one text, counted before parsing: tree-sitter-bash is quadratic
    /// on some long pipelines (`echo -x | cat | cat …`) and does not stop on time inside them.
    pub max_pipes: usize,
    /// Largest interpreter program analysed, in bytes (`python3 -c`, a heredoc, a script file).
    /// A larger one is denied unanalysed, so padding cannot push code past the scan.
    pub max_code_bytes: usize,
    /// Largest automation payload decoded, in bytes (an Ansible AnsiballZ wrapper, which is
    /// generated code of 100 KiB and more); a larger one is denied undecoded.
    pub max_payload_bytes: usize,
    /// How long a script read from a pipe (on stdin, `-s`, or a FIFO or `<(…)` operand), or a
    /// program an interpreter reads from stdin, may take to arrive, its end of file included, in
    /// seconds; one that has not ended by then is denied.
    pub max_pipe_seconds: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 128 * 1024,
            max_nodes: 400_000,
            max_depth: 256,
            max_nesting: 8,
            max_parse_steps: 20_000,
            max_millis: 10_000,
            max_pipes: 1_024,
            max_code_bytes: 64 * 1024,
            max_payload_bytes: 8 << 20,
            max_pipe_seconds: 10,
        }
    }
}

/// A bound the analysis crossed, so it stopped or skipped part of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Size {
        bytes: usize,
        max: usize,
    },
    Time {
        max_ms: u64,
    },
    /// More parser steps than `Limits::max_parse_steps`.
    Steps {
        max: u64,
    },
    Nodes {
        max: usize,
    },
    Depth {
        max: usize,
    },
    Nesting {
        max: usize,
    },
    /// More pipe operators than `Limits::max_pipes` (checked before parsing).
    Commands {
        max: usize,
    },
}
