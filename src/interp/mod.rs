//! Interpreter programs: where a command's program text comes from (`python3 -c`, `perl -e`, a
//! heredoc, here-string or pipe on stdin, a script file the caller read) and what it does.
//! `python` reads Python with tree-sitter-python; `others` scans perl, ruby, node, php, lua, awk
//! and sed programs for their shell-outs. Pure: script files are read at the edge and handed in.

mod args;
mod lexer;
mod others;
mod pybind;
pub(crate) mod pystr;
mod python;
mod pyvalue;
mod sed;
mod source;

pub use source::{program, script_paths};

use crate::parse::unwrap::Inner;
use crate::parse::{Analysis, Limits, Via, Word};
use std::collections::BTreeMap;

/// Script files the caller read, by path as written in the command (`./x.py`, `tool.pl`).
pub type ScriptFiles = BTreeMap<String, String>;

/// The languages whose programs are analysed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    Perl,
    Ruby,
    Node,
    Php,
    Lua,
    Awk,
    Sed,
}

impl Language {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Python => "python",
            Self::Perl => "perl",
            Self::Ruby => "ruby",
            Self::Node => "node",
            Self::Php => "php",
            Self::Lua => "lua",
            Self::Awk => "awk",
            Self::Sed => "sed",
        }
    }

    /// General-purpose languages whose inline code can do anything (not awk or sed).
    pub fn is_general(self) -> bool {
        !matches!(self, Self::Awk | Self::Sed)
    }
}

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
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

/// The analysis of one program: the report, and what it runs for the shell analyzer to lower.
pub struct Analysed {
    pub report: Report,
    /// What the program runs; `true` when the program writes to the command's stdin (awk
    /// `print | "cmd"`, perl `open(F, "| cmd")`), `false` when it gets the terminal.
    pub inner: Vec<(Inner, bool)>,
    /// Parsing ran out of time (recorded as the analysis time limit).
    pub timed_out: bool,
    /// A node or evaluation bound stopped the analysis early (recorded as a node limit).
    pub exhausted: bool,
}

/// Something the program runs, before it becomes an `Inner`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Run {
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

/// What a language analyzer hands back.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub findings: Vec<Finding>,
    pub runs: Vec<Run>,
    pub parse_incomplete: bool,
    pub timed_out: bool,
    /// A node or evaluation bound stopped the analysis before the end of the program.
    pub exhausted: bool,
}

impl Output {
    pub(crate) fn find(&mut self, finding: Finding) {
        if self.findings.len() < MAX_FINDINGS && !self.findings.contains(&finding) {
            self.findings.push(finding);
        }
    }

    pub(crate) fn run(&mut self, run: Run) {
        if self.runs.len() < MAX_RUNS && !self.runs.contains(&run) {
            self.runs.push(run);
        }
    }
}

/// Most findings and shell-outs kept per program (a generated script cannot flood the IR).
const MAX_FINDINGS: usize = 512;
const MAX_RUNS: usize = 256;

/// Analyses one program within `limits`.
pub fn analyse(code: &Code, limits: &Limits) -> Analysed {
    let bytes = code.text.as_ref().map_or(0, String::len);
    let mut report = Report {
        language: code.language,
        interpreter: code.interpreter.clone(),
        origin: code.origin.clone(),
        bytes,
        too_large: bytes > limits.max_code_bytes,
        dynamic: code.text.is_none() || code.partial,
        parse_incomplete: false,
        findings: Vec::new(),
    };
    let text = match &code.text {
        Some(t) if !report.too_large => t,
        _ => {
            return Analysed {
                report,
                inner: Vec::new(),
                timed_out: false,
                exhausted: false,
            }
        }
    };
    let out = match code.language {
        Language::Python => python::analyse(text, limits),
        other => others::analyse(other, text),
    };
    report.parse_incomplete = out.parse_incomplete;
    report.findings = out.findings;
    let inner = out
        .runs
        .into_iter()
        .map(|run| into_inner(&code.interpreter, run))
        .collect();
    Analysed {
        report,
        inner,
        timed_out: out.timed_out,
        exhausted: out.exhausted,
    }
}

fn into_inner(interpreter: &str, run: Run) -> (Inner, bool) {
    let fed = matches!(run, Run::Shell { fed: true, .. });
    let inner = match run {
        Run::Shell {
            call,
            text,
            positional,
            ..
        } => Inner::Script {
            via: Via::Shell(format!("{interpreter} {call}")),
            raw: text.clone(),
            text: Some(text),
            substitutions: Vec::new(),
            positional,
            same_shell: false,
            template: None,
        },
        Run::Argv { call, words } => Inner::Argv {
            via: Via::Wrapper(format!("{interpreter} {call}")),
            words: words
                .iter()
                .map(|w| match w {
                    Some(v) => Word::literal(v),
                    None => Word::unknown("<runtime>"),
                })
                .collect(),
            extra_args: false,
        },
    };
    (inner, fed)
}

/// The interpreter the command hands its work to, for the policy's `command.interpreter`: the
/// first analysed program's interpreter (a script's shebang counts), else the first interpreter
/// command's name; empty for plain shell. awk and sed are text tools here, not interpreters.
pub fn interpreter(analysis: &Analysis) -> String {
    if let Some((_, report)) = analysis
        .programs
        .iter()
        .find(|(_, r)| r.language.is_general())
    {
        return report.interpreter.clone();
    }
    analysis
        .commands
        .iter()
        .filter_map(|c| c.base())
        .find(|b| crate::signals::is_interpreter(b) || source::language(b).is_some())
        .filter(|b| !matches!(*b, "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed"))
        .unwrap_or_default()
        .to_string()
}

/// Most rounds of reading newly referenced script files (a script that runs another script).
const MAX_READ_ROUNDS: usize = 3;
/// Most script files read for one command.
const MAX_FILES: usize = 16;

/// Analyses `text`, reading the script files it references through `read` (the edge supplies
/// it: bounded, regular files only). Pure apart from what `read` does.
pub fn analyse_reading(
    text: &str,
    limits: &Limits,
    read: &mut dyn FnMut(&str) -> Option<String>,
) -> Analysis {
    let mut files = ScriptFiles::new();
    let mut tried: Vec<String> = Vec::new();
    let mut analysis = crate::parse::analyse(text, limits);
    for _ in 0..MAX_READ_ROUNDS {
        let wanted: Vec<String> = script_paths(&analysis)
            .into_iter()
            .filter(|p| !tried.contains(p))
            .collect();
        let mut read_any = false;
        for path in wanted {
            if tried.len() >= MAX_FILES {
                break;
            }
            if let Some(contents) = read(&path) {
                files.insert(path.clone(), contents);
                read_any = true;
            }
            tried.push(path);
        }
        if !read_any {
            break;
        }
        analysis = crate::parse::analyse_with(text, limits, &files);
    }
    analysis
}
