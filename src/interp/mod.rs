//! Interpreter programs: where a command's program text comes from (`python3 -c`, `perl -e`, a
//! heredoc, here-string or pipe on stdin, a script file the caller read) and what it does.
//! `python` reads Python with tree-sitter-python; `others` scans perl, ruby, node, php, lua, awk
//! and sed programs for their shell-outs. Pure: script files are read at the edge and handed in.
//! The shell analysis reaches this layer only through `Analyser` (`crate::analysis` wires it).

mod ansible;
mod args;
mod lexer;
mod others;
mod pybind;
mod pystr;
mod python;
mod pyvalue;
mod sed;
mod source;

pub use crate::ir::{Code, Finding, Language, Origin, ProgramAnalysis, Report, Run, ScriptFiles};
pub use source::{program, script_paths};

use crate::ir::{Analysis, Command, Limits};
use crate::payload::ansiballz;
use crate::programs::is_interpreter;

/// What a language analyzer hands back.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub findings: Vec<Finding>,
    pub runs: Vec<Run>,
    pub parse_incomplete: bool,
    pub timed_out: bool,
    /// Parsing took more than `Limits::max_parse_steps`.
    pub over_steps: bool,
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
pub fn analyse(code: &Code, limits: &Limits) -> ProgramAnalysis {
    if let (Language::Python, Some(text)) = (code.language, &code.text) {
        if ansiballz::is_wrapper(text) {
            match ansible::analyse(code, text, limits) {
                Ok(decoded) => return decoded,
                Err(undecoded) => {
                    let mut whole = analyse_program(code, limits);
                    whole.report.payload = Some(undecoded);
                    return whole;
                }
            }
        }
    }
    analyse_program(code, limits)
}

/// Analyses one program as its language, within `limits`.
fn analyse_program(code: &Code, limits: &Limits) -> ProgramAnalysis {
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
        payload: None,
    };
    let text = match &code.text {
        Some(t) if !report.too_large => t,
        _ => {
            return ProgramAnalysis {
                report,
                runs: Vec::new(),
                timed_out: false,
                over_steps: false,
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
    ProgramAnalysis {
        report,
        runs: out.runs,
        timed_out: out.timed_out,
        over_steps: out.over_steps,
        exhausted: out.exhausted,
    }
}

/// The interpreter analysis as the shell analysis is given it (`crate::parse::Interpreters`).
pub struct Analyser;

impl crate::parse::Interpreters for Analyser {
    fn script_paths(&self, cmd: &Command) -> Vec<String> {
        source::command_script_paths(cmd)
    }

    fn program(&self, cmd: &Command, analysis: &Analysis) -> Option<Code> {
        program(cmd, analysis)
    }

    fn analyse(&self, code: &Code, limits: &Limits) -> ProgramAnalysis {
        analyse(code, limits)
    }
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
        .find(|b| is_interpreter(b) || source::language(b).is_some())
        .filter(|b| !matches!(*b, "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed"))
        .unwrap_or_default()
        .to_string()
}
