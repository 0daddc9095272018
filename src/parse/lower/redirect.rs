//! Redirections: file redirections with their operator and descriptor, here-strings, and
//! heredocs (quoted or expanded bodies, `<<-` tab stripping, the statements tree-sitter nests in
//! the redirect).

use super::structure::is_statement;
use super::word::WordState;
use super::{text, Ctx, Lowerer};
use crate::ir::{Redirect, Word};
use crate::parse::recover;
use crate::parse::word::unescape_double_quoted;
use tree_sitter::Node;

impl Lowerer<'_> {
    /// The static body of a heredoc (if it has one, else its template) and any statements
    /// tree-sitter nested in the redirect (`| sh`, `&& next`).
    pub(super) fn heredoc<'t>(
        &mut self,
        src: &str,
        node: Node<'t>,
        ctx: &Ctx,
    ) -> (Option<String>, Option<String>, Vec<Node<'t>>) {
        let mut quoted = false;
        let mut strip_tabs = false;
        let mut body = None;
        let mut rest = Vec::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "<<-" => strip_tabs = true,
                "heredoc_start" => {
                    let t = text(src, child);
                    quoted = t.contains(['\'', '"', '\\']);
                }
                "heredoc_body" => body = Some(child),
                "heredoc_end" | "<<" => {}
                k if is_statement(k) => rest.push(child),
                _ => {}
            }
        }
        let Some(body) = body else {
            return (Some(String::new()), None, rest);
        };
        let raw = text(src, body);
        if quoted {
            return (Some(strip(raw, strip_tabs)), None, rest);
        }
        let mut state = WordState::default();
        let mut dynamic = false;
        let mut cursor = body.walk();
        for child in body.named_children(&mut cursor) {
            if child.kind() != "heredoc_content" {
                dynamic = true;
                self.part(src, child, ctx, &mut state, true);
            }
        }
        let body = strip(&unescape_double_quoted(raw), strip_tabs);
        if dynamic {
            return (None, Some(body), rest);
        }
        (Some(body), None, rest)
    }

    pub(super) fn herestring(&mut self, src: &str, node: Node, ctx: &Ctx) -> Option<Word> {
        let mut cursor = node.walk();
        let word = node
            .named_children(&mut cursor)
            .find(|n| n.kind() != "file_descriptor")?;
        self.words(src, word, ctx).into_iter().next()
    }

    pub(super) fn file_redirect(&mut self, src: &str, node: Node, ctx: &Ctx) -> Option<Redirect> {
        let mut op = String::new();
        let mut fd = None;
        let mut target = None;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                op.push_str(child.kind());
            } else if recover::is_read_write_redirect(src, child) {
                op.push('>');
            } else if child.kind() == "file_descriptor" {
                fd = text(src, child).parse().ok();
            } else if target.is_none() {
                target = Some(child);
            }
        }
        let words = match target {
            Some(t) => self.words(src, t, ctx),
            None => vec![Word::literal("-")],
        };
        let target = words.into_iter().next().unwrap_or_default();
        let process = target.processes.first().copied();
        Some(Redirect {
            op,
            fd,
            target,
            process,
        })
    }
}

fn strip(body: &str, tabs: bool) -> String {
    if !tabs {
        return body.to_string();
    }
    body.lines()
        .map(|l| l.trim_start_matches('\t'))
        .collect::<Vec<_>>()
        .join("\n")
}
