//! Simple commands: the grammar's `command` node and the plain command line lowered into one
//! `Command` each, placeholders that number a command before its substitutions, and
//! what finishing one sets off (executed substitutions, `set --`, following what it runs).

use super::structure::is_statement;
use super::word::WordState;
use super::{Ctx, Lowerer};
use crate::ir::{Command, Redirect, Stdin, Substitution, Word};
use crate::parse::values::MAX_READINGS;
use tree_sitter::Node;

impl Lowerer<'_> {
    /// A plain command line (`parse::plain`), lowered as the grammar path lowers its tree
    /// (`program` → `command` → one `word` per word): the same nodes are counted against the
    /// bounds at the same depths, and each word is evaluated by the same code.
    pub(super) fn plain_command(&mut self, words: &[(usize, &str)], ctx: &Ctx) {
        if !self.visit(ctx) {
            return;
        }
        let mut command = ctx.clone();
        command.tree_depth += 1;
        if !self.visit(&command) {
            return;
        }
        command.tree_depth += 1;
        let index = self.reserve(&command);
        let mut evaluated = Vec::new();
        for (_, word) in words {
            let mut state = WordState::default();
            if self.visit(&command) {
                state.literal_unquoted(word);
            } else {
                state.opaque();
            }
            evaluated.extend(self.static_words(word, state));
        }
        let first = if evaluated.is_empty() {
            Word::default()
        } else {
            evaluated.remove(0)
        };
        self.finish(index, first, evaluated, Vec::new(), Vec::new(), &command);
    }

    pub(super) fn command(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let index = self.reserve(ctx);
        let mut words = Vec::new();
        let mut assignments = Vec::new();
        let mut redirects = ctx.redirects.clone();
        let mut local = ctx.clone();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => assignments.push(self.assignment_parts(src, child, ctx)),
                "file_redirect" => {
                    if let Some(r) = self.file_redirect(src, child, ctx) {
                        if r.op == "<" {
                            local.stdin = Some(match r.process {
                                Some(id) => Stdin::Process { id },
                                None => Stdin::File(r.target.clone()),
                            });
                        }
                        redirects.push(r);
                    }
                }
                "herestring_redirect" => {
                    if let Some(w) = self.herestring(src, child, ctx) {
                        local.stdin = Some(Stdin::HereString(w));
                    }
                }
                "command_name" => {
                    if let Some(inner) = child.named_child(0) {
                        words.extend(self.words(src, inner, ctx));
                    }
                }
                k if child.is_named() && is_statement(k) => self.stmt(src, child, ctx),
                _ if child.is_named() => words.extend(self.words(src, child, ctx)),
                _ => {}
            }
        }
        let first = if words.is_empty() {
            Word::default() // only assignments and redirections: they still happen
        } else {
            words.remove(0)
        };
        if first.raw == "}" && words.is_empty() && redirects.is_empty() {
            // The stray `}` tree-sitter leaves after `coproc NAME { …; }`: bash has none.
            if index + 1 == self.out.commands.len() {
                self.out.commands.pop();
            }
            return;
        }
        if let Some(stdin) = local.stdin.clone() {
            if let Some(cmd) = self.out.commands.get_mut(index) {
                cmd.stdin = stdin;
            }
        }
        self.finish(index, first, words, assignments, redirects, &local);
    }

    /// Pushes a placeholder so a command's index precedes those of its substitutions.
    pub(super) fn reserve(&mut self, ctx: &Ctx) -> usize {
        self.out.commands.push(Command {
            name: Word::default(),
            args: Vec::new(),
            assignments: Vec::new(),
            redirects: Vec::new(),
            stdin: ctx.stdin.clone().unwrap_or(Stdin::Inherited),
            context: ctx.ir.clone(),
        });
        self.out.commands.len() - 1
    }

    pub(super) fn finish(
        &mut self,
        index: usize,
        name: Word,
        args: Vec<Word>,
        assignments: Vec<(String, Word)>,
        redirects: Vec<Redirect>,
        ctx: &Ctx,
    ) {
        let executed = name.substitutions.clone();
        let Some(cmd) = self.out.commands.get_mut(index) else {
            return;
        };
        cmd.name = name;
        cmd.args = args;
        cmd.assignments = assignments;
        cmd.redirects = redirects;
        let reading = cmd.context.reading_of.is_some();
        // `: "${D:?}"` guards what follows only when it runs first, in this shell, always.
        let c = &cmd.context;
        let checks = std::mem::take(&mut self.pending_checks);
        if c.substitution.is_none()
            && c.function.is_none()
            && !c.condition
            && !c.background
            && c.pipeline.is_none()
            && c.via.is_empty()
            && ctx.subshell == 0
        {
            for name in checks {
                self.vars.check(&name);
            }
        }
        self.mark_executed(&executed);
        if !reading {
            self.track_constants(index);
            self.remember_written_file(index);
        }
        let snapshot = self.out.commands.get(index).cloned();
        if let Some(cmd) = snapshot {
            self.follow(index, &cmd, ctx);
            // A sourced file that could not be read (followed, its file was) may set anything.
            if cmd.is(&["source", "."]) {
                let read = crate::parse::unwrap::shell_script_path(&cmd)
                    .is_some_and(|p| self.out.scripts.contains_key(p));
                if !read {
                    self.vars.forget_all();
                }
            }
            if !reading {
                self.readings(index, &cmd, ctx);
            }
        }
    }

    /// Lowers the readings of command `index` (see `Context::reading_of`): one with every word
    /// that has alternatives taking its first, then one per further alternative, at most
    /// `MAX_READINGS`. Each is finished as a command of its own, so wrappers and shell strings
    /// in it are followed too.
    fn readings(&mut self, index: usize, cmd: &Command, ctx: &Ctx) {
        let has_alternatives = !cmd.name.alternatives.is_empty()
            || cmd.args.iter().any(|w| !w.alternatives.is_empty())
            || cmd
                .redirects
                .iter()
                .any(|r| !r.target.alternatives.is_empty());
        if !has_alternatives {
            return;
        }
        let mut slots: Vec<&[Vec<String>]> = vec![&cmd.name.alternatives];
        slots.extend(cmd.args.iter().map(|w| w.alternatives.as_slice()));
        slots.extend(
            cmd.redirects
                .iter()
                .map(|r| r.target.alternatives.as_slice()),
        );
        let mut choices: Vec<Vec<Option<usize>>> =
            vec![slots.iter().map(|s| (!s.is_empty()).then_some(0)).collect()];
        for (slot, alternatives) in slots.iter().enumerate() {
            for alternative in 1..alternatives.len() {
                let mut choice = vec![None; slots.len()];
                choice[slot] = Some(alternative);
                choices.push(choice);
            }
        }
        let mut seen = Vec::new();
        for choice in choices.into_iter().take(MAX_READINGS) {
            let mut words: Vec<Word> = Vec::new();
            for (slot, word) in std::iter::once(&cmd.name).chain(&cmd.args).enumerate() {
                match choice[slot] {
                    Some(k) => words.extend(slots[slot][k].iter().map(|v| reading_word(word, v))),
                    None => words.push(word.clone()),
                }
            }
            let offset = 1 + cmd.args.len();
            let mut redirects = cmd.redirects.clone();
            for (r, redirect) in redirects.iter_mut().enumerate() {
                if let Some(k) = choice[offset + r] {
                    if let [one] = &slots[offset + r][k][..] {
                        redirect.target = reading_word(&redirect.target, one);
                    }
                }
            }
            let key: Vec<Option<String>> = words
                .iter()
                .chain(redirects.iter().map(|r| &r.target))
                .map(|w| w.value().map(str::to_string))
                .collect();
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let mut reading = ctx.clone();
            reading.ir.reading_of = Some(index);
            reading.stdin = Some(cmd.stdin.clone());
            let at = self.reserve(&reading);
            let name = if words.is_empty() {
                Word::default()
            } else {
                words.remove(0)
            };
            self.finish(
                at,
                name,
                words,
                cmd.assignments.clone(),
                redirects,
                &reading,
            );
        }
    }

    /// `echo 'code' > /tmp/x` (or `printf`, `>>` appending): the file's text is known from here
    /// on, so a later `sh /tmp/x`, `. /tmp/x` or `python3 /tmp/x` in the same text is analysed
    /// as that text, never as what the disk holds now.
    pub(super) fn remember_written_file(&mut self, index: usize) {
        let Some(cmd) = self.out.commands.get(index) else {
            return;
        };
        let Some(text) = crate::ir::echoed(cmd) else {
            return;
        };
        let targets: Vec<(String, bool)> = cmd
            .redirects
            .iter()
            .filter(|r| r.writes() && matches!(r.op.as_str(), ">" | ">|" | ">>"))
            .filter_map(|r| Some((r.target.value()?.to_string(), r.op == ">>")))
            .collect();
        for (path, append) in targets {
            let known = if append {
                self.out
                    .scripts
                    .get(&path)
                    .map(|before| format!("{before}{text}"))
            } else {
                Some(text.clone())
            };
            match known {
                Some(known) if known.len() <= self.limits.max_bytes => {
                    self.out.scripts.insert(path.clone(), known);
                }
                // Appended to a file whose text is not known: what it holds stays unknown.
                _ => {
                    self.out.scripts.remove(&path);
                }
            }
            self.scripts.mark_asked(path);
        }
    }

    /// Remembers `set -- a b` positional parameters (and `shift`), and forgets what `read` and
    /// `printf -v` set.
    pub(super) fn track_constants(&mut self, index: usize) {
        let Some(cmd) = self.out.commands.get(index) else {
            return;
        };
        if cmd.is(&["set"]) && cmd.args.first().and_then(Word::value) == Some("--") {
            let values: Option<Vec<String>> = cmd.args[1..]
                .iter()
                .map(|w| w.value().map(str::to_string))
                .collect();
            self.vars.positional = values;
        } else if cmd.is(&["shift"]) {
            let n = match cmd.args.first() {
                None => Some(1),
                Some(w) => w.value().and_then(|v| v.parse::<usize>().ok()),
            };
            self.vars.positional = match (self.vars.positional.take(), n) {
                (Some(p), Some(n)) => Some(p.into_iter().skip(n).collect()),
                _ => None,
            };
        } else if cmd.is(&["printf"]) {
            // `printf -v NAME …` assigns NAME.
            let values: Vec<Option<&str>> = cmd.args.iter().map(Word::value).collect();
            for pair in values.windows(2) {
                if let [Some("-v"), name] = pair {
                    match name {
                        Some(n) => self.vars.set(n, None),
                        None => self.vars.forget_all(),
                    }
                }
            }
        } else if cmd.is(&["read", "mapfile", "readarray", "getopts"]) {
            let names: Vec<String> = cmd
                .arg_values()
                .filter(|a| !a.starts_with('-'))
                .map(str::to_string)
                .collect();
            for n in names {
                self.vars.set(&n, None);
            }
        }
    }

    pub(crate) fn mark_executed(&mut self, ids: &[usize]) {
        for &wanted in ids {
            let inside = self
                .out
                .command_substitutions
                .get(wanted)
                .cloned()
                .unwrap_or_default();
            for i in inside {
                if let Some(cmd) = self.out.commands.get_mut(i) {
                    if let Some(Substitution::Command { id, executed }) =
                        &mut cmd.context.substitution
                    {
                        if *id == wanted {
                            *executed = true;
                        }
                    }
                }
            }
        }
    }
}

/// `word` as the known `value` one of its readings gives it.
fn reading_word(word: &Word, value: &str) -> Word {
    Word {
        raw: word.raw.clone(),
        shown: value.to_string(),
        static_prefix: value.to_string(),
        unguarded_param: false,
        glob: false,
        alternatives: Vec::new(),
        template: None,
        ..word.clone()
    }
    .with_value(Some(value.to_string()))
}
