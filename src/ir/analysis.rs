//! The result of analysing one text: every simple command found (in text order, nested ones
//! after the command that runs them) and the pipelines, functions, substitutions, interpreter
//! programs, parse errors and crossed bounds that relate them.

use super::command::{Command, Stdin};
use super::limits::Limit;
use super::program::{Report, ScriptFiles};

/// A function definition and the commands of its body.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// Indexes into `Analysis::commands`.
    pub body: Vec<usize>,
    /// The body's text as written (`{ …; }`), for running it again with a call's arguments.
    pub source: String,
}

/// A pipeline: for each stage, the commands that belong to it.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    pub stages: Vec<Vec<usize>>,
}

/// A process substitution `<(…)` or `>(…)`: the commands inside and its direction.
#[derive(Clone, Debug, Default)]
pub struct ProcessSubstitution {
    pub commands: Vec<usize>,
}

/// The result of analysing one piece of shell text.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub commands: Vec<Command>,
    pub pipelines: Vec<Pipeline>,
    pub functions: Vec<Function>,
    pub process_substitutions: Vec<ProcessSubstitution>,
    /// For each `$(…)`/backtick substitution id, the commands inside it.
    pub command_substitutions: Vec<Vec<usize>>,
    /// The text (or some nested shell string) did not parse cleanly; the short texts near errors.
    pub parse_errors: Vec<String>,
    /// Bounds crossed; the gate fails closed on any.
    pub limits: Vec<Limit>,
    /// tree-sitter-bash parser steps this analysis spent (`Limits::max_parse_steps`; each
    /// Python program's are counted on its own budget): 0 for a plain command line.
    pub parse_steps: u64,
    /// Shell strings that could not be resolved statically (`bash -c "$x"`, `eval "$y"`), with
    /// the command that runs them.
    pub dynamic_code: Vec<(usize, String)>,
    /// Shell script files a command runs that are larger than `Limits::max_bytes`, so were not
    /// analysed: (command index, path as written, bytes).
    pub oversized_scripts: Vec<(usize, String, usize)>,
    /// The session's functions by name, with their bodies' text (an interactive line judged with
    /// the session's state): a call is analysed as its body with the call's arguments.
    pub session_functions: std::collections::BTreeMap<String, String>,
    /// Interpreter programs found (`python3 -c`, a heredoc fed to `perl`, a script file), with
    /// the command that runs them. See `crate::interp`.
    pub programs: Vec<(usize, Report)>,
    /// Script files read during this analysis (`crate::analysis::analyse_reading`), by path as
    /// written.
    pub scripts: ScriptFiles,
    /// The commands that read their program from the process's own stdin (`PROCESS_STDIN`:
    /// `python3` alone, `bash`, `sh -s`), by index, in lowering order.
    pub stdin_programs: Vec<usize>,
}

impl Analysis {
    /// Indexes of the commands that feed `command`'s stdin through a pipe (earlier stages).
    pub fn upstream(&self, command: &Command) -> Vec<usize> {
        match command.stdin {
            Stdin::Pipe { pipeline, stage } => self
                .pipelines
                .get(pipeline)
                .map(|p| p.stages.iter().take(stage).flatten().copied().collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}
