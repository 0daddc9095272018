//! Interpreter programs: the code a command hands to python, perl, awk… (`Code`), what the
//! analysis of one found (`Report`, `Finding`) and what it runs (`Run`). The shell analysis
//! and the interpreter analysis meet here; neither owns these types.

use std::collections::BTreeMap;

/// The script path that stands for the process's own stdin: asked for when an interpreter reads
/// its program from the stdin the command line inherits (`python3` alone, `python3 -`); the
/// edge answers it only where it may read stdin and hand the same bytes on.
pub const PROCESS_STDIN: &str = "/dev/stdin";

/// Script files read for one analysis, by path as written in the command (`./x.py`, `tool.pl`).
pub type ScriptFiles = BTreeMap<String, String>;

/// The languages whose programs are analysed (defined with the interpreters that run them).
pub use crate::programs::Language;

/// Where a program's text comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// On the command line (`-c`, `-e`, `-r`, an awk or sed program operand).
    Inline,
    /// On stdin: a heredoc, here-string, static pipe or `< file`.
    Stdin,
    /// A script file (`python3 x.py`, `./x.py` with a shebang), by path as written.
    File(String),
}

/// A program an interpreter command runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code {
    pub language: Language,
    /// The interpreter as named (`python3.11`, `perl`); for a script, its shebang's.
    pub interpreter: String,
    pub origin: Origin,
    /// The program text; `None` when it is only known at run time.
    pub text: Option<String>,
    /// The text is a template: some parts (`$VAR` in a double-quoted `-c`) are run-time values.
    pub partial: bool,
}

/// One fact about a program. The signal families judge them; nothing here is a verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// A module or library the code loads (`import x`, `from x import y`, `__import__('x')`,
    /// `require('x')`, `use X`).
    Import(String),
    /// A process started: the call and its argv, each word `None` when only known at run time.
    /// A shell string is split into words for this (its commands are lowered separately).
    Spawn {
        call: String,
        argv: Vec<Option<String>>,
    },
    /// A shell command or argv built at run time (`os.system(cmd)`, `system($x)`).
    DynamicShell(String),
    /// Code evaluated at run time (`eval`, `exec`, `compile`, a dynamic `__import__`).
    DynamicExec(String),
    /// A file or tree deleted; `path` is `None` when only known at run time.
    Delete {
        call: String,
        path: Option<String>,
        recursive: bool,
    },
    /// A static path opened for writing.
    Write { call: String, path: String },
    /// A network socket created (`socket.socket`, `socket.create_connection`).
    Socket(String),
    /// A file descriptor duplicated onto another (`os.dup2`): the reverse-shell plumbing.
    Dup2,
}

/// What the analysis of one program found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub language: Language,
    pub interpreter: String,
    pub origin: Origin,
    /// Size of the program text in bytes.
    pub bytes: usize,
    /// Larger than `Limits::max_code_bytes`: not analysed, and the gate fails closed.
    pub too_large: bool,
    /// The program (or part of it) is only known at run time.
    pub dynamic: bool,
    /// The text did not parse cleanly; what parsed was still analysed.
    pub parse_incomplete: bool,
    pub findings: Vec<Finding>,
    /// The program is an automation payload (an Ansible task), decoded or not.
    pub payload: Option<Payload>,
}

/// An automation payload a program carries.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// An Ansible task from an AnsiballZ wrapper: the module that runs (`ansible.modules.file`)
    /// and its arguments. `known`: the module's effect is said as shell lines (in `runs`).
    AnsibleTask {
        module: String,
        args: serde_json::Map<String, serde_json::Value>,
        no_log: bool,
        known: bool,
    },
    /// A wrapper that could not be decoded: `malformed` (truncated, damaged, over a bound: fail
    /// closed), or of a format this build does not know.
    Undecoded { malformed: bool, reason: String },
}

/// The analysis of one program: the report, and what it runs for the shell analysis to lower.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramAnalysis {
    pub report: Report,
    /// What the program runs, in order.
    pub runs: Vec<Run>,
    /// Parsing ran out of time (recorded as the analysis time limit).
    pub timed_out: bool,
    /// Parsing took more than `Limits::max_parse_steps` (recorded as that limit).
    pub over_steps: bool,
    /// A node or evaluation bound stopped the analysis early (recorded as a node limit).
    pub exhausted: bool,
}

/// Something a program runs; the shell analysis lowers it like any shell string or argv.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    /// A shell string (`os.system("…")`, `` `…` ``), with `$1…` when given (`shell=True` lists).
    /// `fed` when the program writes to its stdin.
    Shell {
        call: String,
        text: String,
        positional: Option<Vec<String>>,
        fed: bool,
    },
    /// An argv run directly (`subprocess.run([...])`, `system("prog", "arg")`).
    Argv {
        call: String,
        words: Vec<Option<String>>,
    },
}
