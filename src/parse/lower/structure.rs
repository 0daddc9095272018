//! The walk over structure: statements, sequences, `&&`/`||` lists, conditions, pipelines,
//! function bodies and redirected statements, each giving the commands below it their context
//! (pipeline stage, condition, background, function, stdin).

use super::word::WordState;
use super::{text, Ctx, Lowerer};
use crate::ir::{Function, Pipeline, Stdin, Word};
use tree_sitter::Node;

impl Lowerer<'_> {
    pub(super) fn stmt(&mut self, src: &str, node: Node, ctx: &Ctx) {
        if !self.visit(ctx) {
            return;
        }
        let mut inner = ctx.clone();
        inner.tree_depth += 1;
        match node.kind() {
            "command" => self.command(src, node, &inner),
            "declaration_command" | "unset_command" => self.declaration(src, node, &inner),
            "variable_assignment" => self.assignment(src, node, &inner),
            "pipeline" => self.pipeline(src, node, &inner),
            "redirected_statement" => self.redirected(src, node, &inner),
            "function_definition" => self.function(src, node, &inner),
            "if_statement" | "while_statement" => self.conditional(src, node, &inner),
            "list" => self.list(src, node, &inner),
            "for_statement" => {
                if let Some(var) = node.child_by_field_name("variable") {
                    let values = loop_values(src, node);
                    // The loop variable is one of its list's values: when each is known and
                    // not empty, so is the variable.
                    let never_empty = !values.is_empty() && values.iter().all(|v| !v.is_empty());
                    self.vars.set_possible(text(src, var), values);
                    if never_empty {
                        self.vars.check(text(src, var));
                    }
                }
                self.sequence(src, node, &inner);
            }
            "subshell" => {
                inner.subshell += 1;
                self.sequence(src, node, &inner);
            }
            "comment" | "heredoc_body" | "heredoc_start" | "heredoc_end" => {}
            "command_substitution" | "process_substitution" => {
                let mut state = WordState::default();
                self.part(src, node, &inner, &mut state, false);
            }
            _ => self.sequence(src, node, &inner),
        }
    }

    /// Lowers every child statement, marking those followed by `&` as background and
    /// evaluating non-statement children for the substitutions they hide.
    pub(super) fn sequence(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate() {
            if !child.is_named() {
                continue;
            }
            let mut c = ctx.clone();
            if children.get(i + 1).is_some_and(|n| n.kind() == "&") {
                c.ir.background = true;
            }
            if is_statement(child.kind()) || child.kind() == "ERROR" {
                self.stmt(src, *child, &c);
            } else {
                let mut state = WordState::default();
                self.part(src, *child, &c, &mut state, false);
            }
        }
    }

    pub(super) fn list(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let mut cursor = node.walk();
        let named: Vec<Node> = node.named_children(&mut cursor).collect();
        let last = named.len().saturating_sub(1);
        for (i, child) in named.into_iter().enumerate() {
            let mut c = ctx.clone();
            c.ir.condition |= i < last;
            self.stmt(src, child, &c);
        }
    }

    pub(super) fn conditional(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let condition = node.child_by_field_name("condition").map(|n| n.id());
        let mut cursor = node.walk();
        let named: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in named {
            let mut c = ctx.clone();
            c.ir.condition |= Some(child.id()) == condition;
            self.stmt(src, child, &c);
        }
    }

    pub(super) fn pipeline(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let id = self.out.pipelines.len();
        self.out.pipelines.push(Pipeline::default());
        let mut cursor = node.walk();
        let stages: Vec<Node> = node.named_children(&mut cursor).collect();
        for (stage, child) in stages.into_iter().enumerate() {
            let mut c = ctx.clone();
            c.ir.pipeline = Some((id, stage));
            if stage > 0 {
                c.stdin = Some(Stdin::Pipe {
                    pipeline: id,
                    stage,
                });
            }
            let start = self.out.commands.len();
            self.stmt(src, child, &c);
            let end = self.out.commands.len();
            if let Some(p) = self.out.pipelines.get_mut(id) {
                p.stages.push((start..end).collect());
            }
        }
    }

    pub(super) fn function(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let name = node
            .child_by_field_name("name")
            .map(|n| text(src, n).to_string())
            .unwrap_or_default();
        let start = self.out.commands.len();
        let mut c = ctx.clone();
        c.ir.function = Some(name.clone());
        let body = node.child_by_field_name("body");
        if let Some(body) = body {
            self.stmt(src, body, &c);
        }
        let end = self.out.commands.len();
        self.out.functions.push(Function {
            name,
            body: (start..end).collect(),
            source: body.map(|b| text(src, b).to_string()).unwrap_or_default(),
        });
    }

    /// `body > file`, `body <<EOF … EOF`, `body <<< str`: the redirections apply to every
    /// command in the body.
    pub(super) fn redirected(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let mut c = ctx.clone();
        let mut trailing = Vec::new();
        let mut cursor = node.walk();
        for child in node.children_by_field_name("redirect", &mut cursor) {
            match child.kind() {
                "file_redirect" => {
                    if let Some(r) = self.file_redirect(src, child, ctx) {
                        if r.op == "<" {
                            c.stdin = Some(match r.process {
                                Some(id) => Stdin::Process { id },
                                None => Stdin::File(r.target.clone()),
                            });
                        }
                        c.redirects.push(r);
                    }
                }
                "herestring_redirect" => {
                    if let Some(w) = self.herestring(src, child, ctx) {
                        c.stdin = Some(Stdin::HereString(w));
                    }
                }
                "heredoc_redirect" => {
                    let (body, template, rest) = self.heredoc(src, child, ctx);
                    c.stdin = Some(Stdin::Heredoc {
                        text: body,
                        template,
                    });
                    trailing.extend(rest);
                }
                _ => {}
            }
        }
        let Some(body) = node.child_by_field_name("body") else {
            // `> file` alone still opens (and truncates) the file.
            let index = self.reserve(&c);
            self.finish(
                index,
                Word::default(),
                Vec::new(),
                Vec::new(),
                c.redirects.clone(),
                &c,
            );
            return;
        };
        {
            if trailing.is_empty() {
                self.stmt(src, body, &c);
            } else {
                // `cat <<EOF | sh`: tree-sitter nests the rest of the pipeline inside the heredoc
                // redirect. Rebuild it as a pipeline of the body and those stages.
                self.heredoc_pipeline(src, body, trailing, &c, ctx);
            }
        }
    }

    pub(super) fn heredoc_pipeline(
        &mut self,
        src: &str,
        body: Node,
        rest: Vec<Node>,
        first: &Ctx,
        ctx: &Ctx,
    ) {
        let id = self.out.pipelines.len();
        self.out.pipelines.push(Pipeline::default());
        let mut stage_nodes = vec![(body, first.clone())];
        for node in rest {
            let mut cursor = node.walk();
            let stages: Vec<Node> = if node.kind() == "pipeline" {
                node.named_children(&mut cursor).collect()
            } else {
                vec![node]
            };
            for s in stages {
                stage_nodes.push((s, ctx.clone()));
            }
        }
        for (stage, (node, mut c)) in stage_nodes.into_iter().enumerate() {
            c.ir.pipeline = Some((id, stage));
            if stage > 0 {
                c.stdin = Some(Stdin::Pipe {
                    pipeline: id,
                    stage,
                });
            }
            let start = self.out.commands.len();
            self.stmt(src, node, &c);
            let end = self.out.commands.len();
            if let Some(p) = self.out.pipelines.get_mut(id) {
                p.stages.push((start..end).collect());
            }
        }
    }
}

pub(super) fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "command"
            | "declaration_command"
            | "unset_command"
            | "variable_assignment"
            | "variable_assignments"
            | "pipeline"
            | "list"
            | "redirected_statement"
            | "subshell"
            | "compound_statement"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "case_item"
            | "function_definition"
            | "negated_command"
            | "test_command"
            | "do_group"
            | "program"
    )
}

/// The known values of a `for` loop's list, when every item is plain text (`for d in /dev/sda
/// /dev/sd{b,c}`): the loop variable is only known at run time, but it is one of these.
fn loop_values(src: &str, node: Node) -> Vec<String> {
    let mut cursor = node.walk();
    let mut values = Vec::new();
    for item in node.children_by_field_name("value", &mut cursor) {
        let written = text(src, item);
        if written.contains(['$', '`', '\'', '"', '\\']) {
            return Vec::new();
        }
        let mut chars = crate::parse::word::Chars::default();
        chars.push_str(written, crate::parse::word::CharKind::Literal);
        match chars.expand_with(crate::parse::word::DEFAULT_IFS, super::MAX_BRACE) {
            Some(fields) => values.extend(fields.into_iter().map(|(v, _)| v)),
            None => return Vec::new(),
        }
    }
    values
}
