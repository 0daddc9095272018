//! Substitutions inside words: `$(…)` and backticks (with their static output when they only
//! echo constants), `<(…)`/`>(…)`, and the substitutions hidden in parameter operators and
//! arithmetic (`${X:-$(cmd)}`, `$((…))`).

use super::word::WordState;
use super::{Ctx, Lowerer};
use crate::ir::{echoed, ProcessSubstitution, Substitution};
use crate::parse::word::CharKind;
use tree_sitter::Node;

impl Lowerer<'_> {
    /// `$(…)` or backticks: its commands are lowered with a fresh context, and its output is
    /// the word's text when it only echoes constants (`$(echo rm)`).
    pub(super) fn command_substitution(
        &mut self,
        src: &str,
        node: Node,
        ctx: &Ctx,
        state: &mut WordState,
        quoted: bool,
    ) {
        let id = self.out.command_substitutions.len();
        self.out.command_substitutions.push(Vec::new());
        let mut c = ctx.clone();
        c.ir.substitution = Some(Substitution::Command {
            id,
            executed: false,
        });
        c.ir.pipeline = None;
        c.ir.background = false;
        c.stdin = None;
        c.redirects = Vec::new();
        let start = self.out.commands.len();
        self.sequence(src, node, &c);
        let end = self.out.commands.len();
        if let Some(s) = self.out.command_substitutions.get_mut(id) {
            *s = (start..end).collect();
        }
        state.substitutions.push(id);
        match self.static_output(start, end) {
            Some(value) if quoted => state.literal(&value, CharKind::Quoted),
            Some(value) if !self.vars.ifs_unknown => {
                state.known(&value, CharKind::Expanded);
                state.template.push_str(&value);
            }
            _ => state.opaque(),
        }
    }

    /// `<(…)` or `>(…)`: its commands are lowered and numbered; the word is a run-time path.
    pub(super) fn process_substitution(
        &mut self,
        src: &str,
        node: Node,
        ctx: &Ctx,
        state: &mut WordState,
    ) {
        let id = self.out.process_substitutions.len();
        self.out.process_substitutions.push(ProcessSubstitution {
            commands: Vec::new(),
        });
        let mut c = ctx.clone();
        c.ir.substitution = Some(Substitution::Process { id });
        c.ir.pipeline = None;
        c.stdin = None;
        c.redirects = Vec::new();
        let start = self.out.commands.len();
        self.sequence(src, node, &c);
        let end = self.out.commands.len();
        if let Some(p) = self.out.process_substitutions.get_mut(id) {
            p.commands = (start..end).collect();
        }
        state.processes.push(id);
        state.opaque();
    }

    pub(super) fn hidden_substitutions(
        &mut self,
        src: &str,
        node: Node,
        ctx: &Ctx,
        state: &mut WordState,
    ) {
        if !self.visit(ctx) {
            state.opaque();
            return;
        }
        let mut deeper = ctx.clone();
        deeper.tree_depth += 1;
        let ctx = &deeper;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "command_substitution" | "process_substitution" => {
                    let mut scratch = WordState::default();
                    self.part(src, child, ctx, &mut scratch, true);
                    state.substitutions.extend(scratch.substitutions);
                    state.processes.extend(scratch.processes);
                }
                _ if child.named_child_count() > 0 => {
                    self.hidden_substitutions(src, child, ctx, state)
                }
                _ => {}
            }
        }
    }

    /// The static output of command substitution `start..end`: one `echo`/`printf` of constants
    /// (`$(echo rm)`), trailing newlines removed, as the shell does.
    pub(super) fn static_output(&self, start: usize, end: usize) -> Option<String> {
        if end != start + 1 {
            return None;
        }
        let cmd = self.out.commands.get(start)?;
        if !cmd.redirects.is_empty() || cmd.context.pipeline.is_some() || cmd.context.background {
            return None;
        }
        let text = echoed(cmd)?;
        Some(text.trim_end_matches('\n').to_string())
    }
}
