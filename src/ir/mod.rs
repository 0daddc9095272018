//! The analysis IR, shared at the bottom: simple commands with their static words and structural
//! context, the interpreter programs found in them, what database clients are given to run, and
//! the bounds an analysis keeps. `parse` builds it, `interp` fills in the programs, `signals`
//! reads it; this module imports none of them (only the program catalogue, `crate::programs`).

mod analysis;
mod budget;
mod command;
mod limits;
mod program;
mod statements;
mod static_text;
mod word;

pub use analysis::{Analysis, Function, Pipeline, ProcessSubstitution};
pub use budget::ParseBudget;
pub use command::{Command, Context, Redirect, Stdin, Substitution, Via};
pub use limits::{Limit, Limits};
pub use program::{
    Code, Finding, Language, Origin, Payload, ProgramAnalysis, Report, Run, ScriptFiles,
    PROCESS_STDIN,
};
pub use statements::{client_input, ClientInput, Statements};
pub use static_text::{decode_ansi_c, echoed, piped_text, shell_quote};
pub use word::Word;
