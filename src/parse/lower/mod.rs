//! Lowering: tree-sitter-bash syntax trees into the IR. This file holds the state of one
//! analysis, its bounds (bytes, pipes, nodes, tree depth, parser steps, a wall-clock backstop) and the entry for each text;
//! the walk over structure, commands, words and what they run live in the files below.

mod assign;
mod command;
mod follow;
mod grammar;
mod redirect;
mod scripts;
mod structure;
mod substitution;
mod vars;
mod word;

use super::{recover, Interpreters, ReadScript};
use crate::ir::{Analysis, Context, Limit, Limits, ParseBudget, Redirect, Stdin};
use scripts::Scripts;
use tree_sitter::{Node, Parser};
use vars::Vars;

/// Longest raw text kept per word, so nested substitutions stay linear.
const MAX_RAW: usize = 4096;
/// Most words one brace expansion may produce.
const MAX_BRACE: usize = 1024;

/// Lowering state shared by one analysis and all the shell strings nested in it.
pub(crate) struct Lowerer<'l> {
    pub(crate) out: Analysis,
    limits: &'l Limits,
    /// Finds and analyses the interpreter programs commands run (injected: `crate::interp`).
    interpreters: &'l dyn Interpreters,
    /// The script files those programs are read from, each asked for once.
    scripts: Scripts<'l>,
    /// Made on the first text that needs the grammar (a plain command line does not).
    parser: Option<Parser>,
    /// Parser steps and the wall-clock backstop, for every text of this analysis together.
    budget: ParseBudget,
    nodes: usize,
    stopped: bool,
    vars: Vars,
    /// Syntax depth at which the text being parsed was found (0 for the top level).
    base_depth: usize,
    /// The elements of the array value `assignment_parts` just evaluated, for `remember`.
    pending_array: Option<Option<Vec<String>>>,
    /// Plain command lines are lowered without the grammar (`parse::plain`); off only to
    /// compare the two paths.
    plain_lines: bool,
    /// Variables a `${V:?}` of the command being lowered checks, committed by `finish` when
    /// the command runs in this shell, unconditionally (see `Vars::check`).
    pending_checks: Vec<String>,
}

/// Context while walking: what every command found below inherits.
#[derive(Clone, Debug, Default)]
struct Ctx {
    ir: Context,
    stdin: Option<Stdin>,
    redirects: Vec<Redirect>,
    tree_depth: usize,
    /// Subshells (`( … )`) around the statement: what they set stays in them.
    subshell: usize,
}

impl<'l> Lowerer<'l> {
    pub(crate) fn new(
        limits: &'l Limits,
        interpreters: &'l dyn Interpreters,
        read: &'l mut ReadScript<'l>,
    ) -> Self {
        Lowerer {
            out: Analysis::default(),
            limits,
            interpreters,
            scripts: Scripts::new(read),
            parser: None,
            budget: ParseBudget::new(limits),
            nodes: 0,
            stopped: false,
            vars: Vars::default(),
            pending_array: None,
            base_depth: 0,
            plain_lines: true,
            pending_checks: Vec::new(),
        }
    }

    /// A lowerer that sends every text through tree-sitter, plain command lines included.
    pub(crate) fn grammar_only(
        limits: &'l Limits,
        interpreters: &'l dyn Interpreters,
        read: &'l mut ReadScript<'l>,
    ) -> Self {
        Lowerer {
            plain_lines: false,
            ..Lowerer::new(limits, interpreters, read)
        }
    }

    /// Starts from a session's state (see [`crate::parse::analyse_in_session`]): `state` is
    /// lowered on its own, its commands and signals dropped, and what it leaves known (constants,
    /// positional parameters, its functions' bodies by name) is where this lowering starts.
    pub(crate) fn start_from_state(&mut self, state: &str) {
        if state.trim().is_empty() {
            return;
        }
        let mut unread = |_: &str| None;
        let mut prelude = Lowerer::new(self.limits, self.interpreters, &mut unread);
        prelude.script(state, &Context::default(), None);
        self.out.session_functions = prelude
            .out
            .functions
            .iter()
            .map(|f| (f.name.clone(), f.source.clone()))
            .collect();
        self.vars = std::mem::take(&mut prelude.vars);
        // The grammar, once made, serves the line too.
        self.parser = prelude.parser.take();
    }

    fn limit(&mut self, limit: Limit) {
        if !self.out.limits.contains(&limit) {
            self.out.limits.push(limit);
        }
    }

    fn over_time(&self) -> bool {
        self.budget.over_time()
    }

    /// Parser steps spent so far by this analysis.
    pub(crate) fn parse_steps(&self) -> u64 {
        self.budget.steps()
    }

    /// Parses and lowers `text` as a shell script at nesting `depth` under `base`.
    pub(crate) fn script(&mut self, text: &str, base: &Context, stdin: Option<Stdin>) {
        if self.stopped {
            return;
        }
        // The text as bash and dash read it: both drop NUL bytes from their input, and
        // tree-sitter would take one for the end of the input and misparse what follows
        // (`rm -rf /`, then a line with a NUL, read as `rm -rf /#…`). The shell surface refuses
        // scripts with NUL bytes; script files read for nested shells and the review surfaces
        // are analysed like this.
        let without_nul;
        let text = if text.contains('\0') {
            without_nul = text.replace('\0', "");
            without_nul.as_str()
        } else {
            text
        };
        if text.len() > self.limits.max_bytes {
            self.limit(Limit::Size {
                bytes: text.len(),
                max: self.limits.max_bytes,
            });
            return;
        }
        if recover::pipe_count(text) > self.limits.max_pipes {
            self.limit(Limit::Commands {
                max: self.limits.max_pipes,
            });
            return;
        }
        let ctx = Ctx {
            ir: base.clone(),
            stdin,
            tree_depth: self.base_depth,
            ..Ctx::default()
        };
        if self.plain_lines {
            if let Some(words) = super::plain::plain_words(text) {
                return self.plain_command(&words, &ctx);
            }
        }
        let Some(tree) = self.parse(text) else { return };
        let root = tree.root_node();
        if !root.has_error() {
            return self.stmt(text, root, &ctx);
        }
        // Valid bash that tree-sitter misreads is rewritten and parsed again.
        let repaired = recover::repair(text, root, self.limits.max_nodes);
        let fixed = repaired
            .as_ref()
            .and_then(|t| Some((t.as_str(), self.parse(t)?)));
        let (text, tree) = match fixed {
            Some((t, tree)) => (t, tree),
            None => (text, tree),
        };
        let root = tree.root_node();
        if let Some(snippet) = recover::error_snippet(text, root) {
            self.out.parse_errors.push(snippet);
        }
        self.stmt(text, root, &ctx);
        if root.has_error() {
            self.lines_error_recovery_hid(text, &ctx);
        }
    }

    /// A syntax error can make tree-sitter swallow whole commands into an ERROR node as plain
    /// words (`rm -rf /` followed by an unterminated quote on the next line), or into a bogus
    /// command that starts on the same line (`rm -rf /` then `\rm<(…)$(${x:-<<EOF…` on the
    /// next: bash runs the first line before it meets the error). Every line of the text that
    /// parses cleanly on its own is lowered on its own, whatever the error recovery made of it:
    /// one parse error never hides a command elsewhere.
    fn lines_error_recovery_hid(&mut self, text: &str, ctx: &Ctx) {
        const MAX_LINES: usize = 2048;
        for line in text.split_inclusive('\n').take(MAX_LINES) {
            let body = line.trim();
            if !body.is_empty() && !body.starts_with('#') && !self.stopped {
                if let Some(tree) = self.parse(line) {
                    let root = tree.root_node();
                    if !root.has_error() {
                        self.stmt(line, root, ctx);
                    }
                }
            }
        }
    }

    /// `script` for a shell string found at syntax depth `tree_depth`: the depth carries on, so
    /// the recursion of all nested levels together stays under `max_depth`.
    fn nested(&mut self, text: &str, base: &Context, stdin: Option<Stdin>, tree_depth: usize) {
        let saved = std::mem::replace(&mut self.base_depth, tree_depth);
        self.script(text, base, stdin);
        self.base_depth = saved;
    }

    /// Counts `count` nodes of IR derived rather than parsed (the words of an unwrapped argv);
    /// false when the node bound stops the walk.
    fn visit_derived(&mut self, count: usize) -> bool {
        if self.stopped {
            return false;
        }
        self.nodes = self.nodes.saturating_add(count);
        if self.nodes > self.limits.max_nodes {
            self.limit(Limit::Nodes {
                max: self.limits.max_nodes,
            });
            self.stopped = true;
            return false;
        }
        true
    }

    /// Counts a node; false when a bound stops the walk.
    fn visit(&mut self, ctx: &Ctx) -> bool {
        if self.stopped {
            return false;
        }
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            self.limit(Limit::Nodes {
                max: self.limits.max_nodes,
            });
            self.stopped = true;
            return false;
        }
        if self.nodes % 512 == 0 && self.over_time() {
            self.limit(Limit::Time {
                max_ms: self.limits.max_millis,
            });
            self.stopped = true;
            return false;
        }
        if ctx.tree_depth > self.limits.max_depth {
            self.limit(Limit::Depth {
                max: self.limits.max_depth,
            });
            return false;
        }
        true
    }
}

pub(super) fn text<'s>(src: &'s str, node: Node) -> &'s str {
    src.get(node.start_byte()..node.end_byte())
        .unwrap_or_default()
}
