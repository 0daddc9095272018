//! Following what a command runs: wrapped argv, shell strings (a new shell or the same one, with
//! its nesting bound), and interpreter programs, analysed through the injected `Interpreters`
//! and their shell-outs lowered in turn.

use super::scripts::source_file;
use super::vars::Vars;
use super::{Ctx, Lowerer};
use crate::ir::{Code, Command, Limit, Run, Stdin, Via, Word};
use crate::parse::unwrap::{self, Inner};

impl Lowerer<'_> {
    /// Follows what a command runs: wrapped argv, shell strings, remote commands, and (for a
    /// command `unwrap` does not know) the interpreter program it runs, with the script files
    /// it names read first.
    pub(super) fn follow(&mut self, index: usize, cmd: &Command, ctx: &Ctx) {
        self.read_scripts(index, cmd);
        let all = match unwrap::inner(cmd, &self.out) {
            Some(all) => all,
            None => self
                .interpreters
                .program(cmd, &self.out)
                .map(Inner::Code)
                .into_iter()
                .collect(),
        };
        let later = unwrap::persisted(cmd, &self.out);
        self.follow_all(index, cmd, ctx, all);
        if !later.is_empty() {
            // Code that runs later reads no stdin of this command line.
            let mut scheduled = cmd.clone();
            scheduled.stdin = Stdin::File(Word::unknown("<run later>"));
            self.follow_all(index, &scheduled, ctx, later);
        }
    }

    /// Lowers each thing `cmd` runs.
    pub(super) fn follow_all(&mut self, index: usize, cmd: &Command, ctx: &Ctx, all: Vec<Inner>) {
        for inner in all {
            match inner {
                Inner::Argv {
                    via,
                    mut words,
                    extra_args,
                } => {
                    if words.is_empty() {
                        continue;
                    }
                    // A wrapper chain (`sudo sudo … rm`) is bounded like syntax nesting: the
                    // recursion per wrapper would otherwise overflow the stack on a long one.
                    if ctx.ir.via.len() >= self.limits.max_depth {
                        self.limit(Limit::Depth {
                            max: self.limits.max_depth,
                        });
                        continue;
                    }
                    // Each level copies the rest of the argv into a command of its own, so a
                    // long chain of long words is quadratic: its words count as nodes.
                    if !self.visit_derived(words.len()) {
                        continue;
                    }
                    let name = words.remove(0);
                    let mut c = ctx.clone();
                    c.ir.via.push(via);
                    c.ir.wrapped_by = Some(index);
                    c.ir.extra_args = extra_args;
                    c.stdin = Some(cmd.stdin.clone());
                    let inner_index = self.reserve(&c);
                    self.finish(inner_index, name, words, Vec::new(), Vec::new(), &c);
                }
                Inner::Script {
                    via,
                    text,
                    raw,
                    substitutions,
                    positional,
                    same_shell,
                    template,
                } => {
                    self.mark_executed(&substitutions);
                    let (text, positional) = match (text, template) {
                        (Some(text), _) => (text, positional),
                        (None, template) => {
                            self.out.dynamic_code.push((index, raw));
                            // Code only known at run time in this shell (`eval "$x"`) may set
                            // any variable: none is known after it.
                            if same_shell {
                                self.vars.forget_all();
                            }
                            // The outer shell fills the unknown parts; the inner one's `$1…`
                            // are not what the template's `$1…` mean, so none are known.
                            match template {
                                Some(t) => (t, None),
                                None => continue,
                            }
                        }
                    };
                    self.shell_string(index, cmd, ctx, via, &text, positional, same_shell);
                }
                Inner::File {
                    via,
                    path,
                    text,
                    positional,
                    same_shell,
                } => {
                    // A file larger than a command text is flagged, not denied (as an
                    // interpreter's script file is): generated installers and `./configure`
                    // are that large, and a file on disk is outside what the text shows.
                    if text.len() > self.limits.max_bytes {
                        self.out.oversized_scripts.push((index, path, text.len()));
                        continue;
                    }
                    if !self.open_script(&path) {
                        continue;
                    }
                    self.shell_string(index, cmd, ctx, via, &text, positional, same_shell);
                    self.close_script();
                }
                Inner::Code(code) => self.program(index, cmd, ctx, &code),
            }
        }
    }

    /// Lowers shell code `cmd` runs (a `-c` string, `eval`, a script file) one nesting level
    /// down: in a new shell with its own `$1…`, or in the same one (`eval`, `source`).
    #[allow(clippy::too_many_arguments)]
    fn shell_string(
        &mut self,
        index: usize,
        cmd: &Command,
        ctx: &Ctx,
        via: Via,
        text: &str,
        positional: Option<Vec<String>>,
        same_shell: bool,
    ) {
        let depth = ctx.ir.depth + 1;
        if depth > self.limits.max_nesting {
            self.limit(Limit::Nesting {
                max: self.limits.max_nesting,
            });
            return;
        }
        let mut base = ctx.ir.clone();
        base.depth = depth;
        base.via.push(via);
        base.wrapped_by = Some(index);
        // The same shell keeps its constants; a function call has its own `$1…` meanwhile.
        if same_shell {
            let saved = positional.map(|p| self.vars.positional.replace(p));
            self.nested(text, &base, Some(cmd.stdin.clone()), ctx.tree_depth);
            if let Some(saved) = saved {
                self.vars.positional = saved;
            }
            return;
        }
        let saved = std::mem::replace(
            &mut self.vars,
            positional.map(Vars::with_positional).unwrap_or_default(),
        );
        self.nested(text, &base, Some(cmd.stdin.clone()), ctx.tree_depth);
        self.vars = saved;
    }

    /// An interpreter program: its report is kept in `Analysis::programs`, and what it runs is
    /// lowered with the terminal as stdin (the program text was the interpreter's, not theirs).
    /// A script already being lowered is not lowered again inside itself.
    pub(super) fn program(&mut self, index: usize, cmd: &Command, ctx: &Ctx, code: &Code) {
        let file = source_file(code, cmd).map(str::to_string);
        if let Some(file) = &file {
            if !self.open_script(file) {
                return;
            }
        }
        let analysed = self.interpreters.analyse(code, self.limits);
        if analysed.timed_out {
            self.limit(Limit::Time {
                max_ms: self.limits.max_millis,
            });
        }
        if analysed.over_steps {
            self.limit(Limit::Steps {
                max: self.limits.max_parse_steps,
            });
        }
        if analysed.exhausted {
            self.limit(Limit::Nodes {
                max: self.limits.max_nodes,
            });
        }
        self.out.programs.push((index, analysed.report));
        let (fed, terminal): (Vec<Run>, Vec<Run>) = analysed
            .runs
            .into_iter()
            .partition(|run| matches!(run, Run::Shell { fed: true, .. }));
        let inner = |runs: Vec<Run>| -> Vec<Inner> {
            runs.into_iter()
                .map(|run| run_inner(&code.interpreter, run))
                .collect()
        };
        let mut c = ctx.clone();
        c.stdin = None;
        let mut plain = cmd.clone();
        plain.stdin = Stdin::Inherited;
        self.follow_all(index, &plain, &c, inner(terminal));
        // Fed by the program: neither the terminal nor text the analysis can see.
        plain.stdin = Stdin::File(Word::unknown("<program output>"));
        self.follow_all(index, &plain, &c, inner(fed));
        if file.is_some() {
            self.close_script();
        }
    }
}

/// What a program runs, as the shell analysis follows it: a shell string reached through the
/// interpreter's call (`python3 os.system`), or an argv with its run-time words unknown.
fn run_inner(interpreter: &str, run: Run) -> Inner {
    match run {
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
    }
}
