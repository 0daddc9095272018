//! Shell analysis: text to the IR, nothing run, every bound explicit. `lower` walks the syntax
//! tree (or a plain line, `plain`) into commands with static words; `unwrap` follows what runs
//! something else. Interpreters and script files come in as `Interpreters` and `ReadScript`.

mod lower;
mod plain;
mod recover;
mod shebang;
mod unwrap;
pub mod values;
mod word;

pub use crate::ir::*;
pub use plain::plain_words;
pub use shebang::{is_binary, is_shell_script, shebang};
pub use word::split_words;

/// What the shell analysis asks of the interpreter analysis.
pub trait Interpreters {
    /// The script files `cmd` runs or feeds to an interpreter (`python3 x.py`, `python3 < x.py`,
    /// `./tool` for its shebang), by path as written; they are read before `program` is asked.
    fn script_paths(&self, cmd: &Command) -> Vec<String>;
    /// The program `cmd` runs, when it is an interpreter (or a script naming one) and the program
    /// text is in the command, on its stdin, or among `analysis.scripts`.
    fn program(&self, cmd: &Command, analysis: &Analysis) -> Option<Code>;
    /// What one program does and runs, within `limits`.
    fn analyse(&self, code: &Code, limits: &Limits) -> ProgramAnalysis;
}

/// Reads a script file by path as written (`./x.py`, `tool.pl`): bounded, regular files only;
/// `None` when it cannot be read. The edge supplies it, so the analysis stays pure.
pub type ReadScript<'r> = dyn FnMut(&str) -> Option<String> + 'r;

/// Analyses `text` as a shell script: the programs it runs through `interpreters`, the script
/// files they name through `read`, each asked for once.
pub fn analyse(
    text: &str,
    limits: &Limits,
    interpreters: &dyn Interpreters,
    read: &mut ReadScript<'_>,
) -> Analysis {
    let mut lowerer = lower::Lowerer::new(limits, interpreters, read);
    lowerer.script(text, &Context::default(), None);
    lowerer.out.parse_steps = lowerer.parse_steps();
    lowerer.out
}

/// Analyses `line` as an interactive session runs it: after `state`, the session's own state as
/// the hook read it from bash (`declare -p` of the variables the line names, `declare -f` of the
/// functions it may call, `set -- …` for the positional parameters). The state is lowered on its
/// own first, its signals dropped: only what it leaves (constants, positional parameters, the
/// functions' bodies) carries into the line, whose calls of those functions are analysed as
/// their bodies with the calls' arguments. What the state does not give stays unknown.
pub fn analyse_in_session(
    state: &str,
    line: &str,
    limits: &Limits,
    interpreters: &dyn Interpreters,
    read: &mut ReadScript<'_>,
) -> Analysis {
    let mut lowerer = lower::Lowerer::new(limits, interpreters, read);
    lowerer.start_from_state(state);
    lowerer.script(line, &Context::default(), None);
    lowerer.out.parse_steps = lowerer.parse_steps();
    lowerer.out
}

/// `analyse` with every text, plain command lines included, parsed by tree-sitter: the reference
/// the plain-line path is compared with (`tests/integration/parse_plain.rs`).
pub fn analyse_grammar_only(
    text: &str,
    limits: &Limits,
    interpreters: &dyn Interpreters,
    read: &mut ReadScript<'_>,
) -> Analysis {
    let mut lowerer = lower::Lowerer::grammar_only(limits, interpreters, read);
    lowerer.script(text, &Context::default(), None);
    lowerer.out.parse_steps = lowerer.parse_steps();
    lowerer.out
}
