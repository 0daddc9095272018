//! Assignments: `NAME=value` statements and prefixes, arrays and element assignments, and the
//! declaration builtins (`export`, `declare`, `local`, `readonly`, `unset`…); what they assign
//! is remembered as a constant for the words that follow.

use super::{text, Ctx, Lowerer, MAX_RAW};
use crate::ir::Word;
use tree_sitter::Node;

impl Lowerer<'_> {
    /// A bare `NAME=value` statement: remembered as a constant, and kept in the IR as a command
    /// with no name whose only part is the assignment, so rules can see what is assigned.
    pub(super) fn assignment(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let index = self.reserve(ctx);
        let (name, value) = self.assignment_parts(src, node, ctx);
        self.remember(node, &name, &value);
        let assignments = vec![(name, value)];
        let redirects = ctx.redirects.clone();
        self.finish(
            index,
            Word::default(),
            Vec::new(),
            assignments,
            redirects,
            ctx,
        );
    }

    /// Records `name=value` as a constant (or forgets `name` when the value is not static).
    pub(super) fn remember(&mut self, node: Node, name: &str, value: &Word) {
        let appends = node.children(&mut node.walk()).any(|c| c.kind() == "+=");
        if let Some((base, index)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) {
            self.vars
                .set_element(base, index, value.value().filter(|_| !appends));
        } else if appends {
            self.vars.set(name, None);
        } else if let Some(elements) = self.pending_array.take() {
            self.vars.set_array(name, elements);
        } else if value.value().is_none() && !value.alternatives.is_empty() {
            let single = value
                .alternatives
                .iter()
                .filter_map(|fields| match &fields[..] {
                    [one] => Some(one.clone()),
                    [] => Some(String::new()),
                    _ => None,
                });
            self.vars.set_possible(name, single.collect());
            if value.guarded_param && !value.unguarded_param {
                self.vars.check(name);
            }
        } else {
            self.vars.set(name, value.value().map(str::to_string));
            // `OUT=${OUT:-out}`: a value that cannot be empty keeps that on `$OUT`.
            let never_empty =
                value.value().is_none() && value.guarded_param && !value.unguarded_param;
            if never_empty || self.is_mktemp(value) {
                // `tmp=$(mktemp -d)`: a fresh temporary path, never empty (a failing mktemp
                // prints nothing and its `&&` chain stops; set -e stops the script).
                self.vars.check(name);
            }
        }
    }

    /// True when `value` is exactly the output of one `mktemp` (`$(mktemp -d)`, `"$(mktemp)"`).
    fn is_mktemp(&self, value: &Word) -> bool {
        let raw = value.raw.trim_matches('"');
        let whole = raw.starts_with("$(") && raw.ends_with(')')
            || raw.starts_with('`') && raw.ends_with('`');
        whole
            && value.substitutions.len() == 1
            && self
                .out
                .command_substitutions
                .get(value.substitutions[0])
                .is_some_and(|inside| {
                    inside.len() == 1
                        && self
                            .out
                            .commands
                            .get(inside[0])
                            .is_some_and(|c| c.is(&["mktemp"]))
                })
    }

    /// `(a b c)`: the static elements, or `None` when any is only known at run time.
    pub(super) fn array(&mut self, src: &str, node: Node, ctx: &Ctx) -> Option<Vec<String>> {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        let mut values = Some(Vec::new());
        for child in children {
            let words = self.words(src, child, ctx);
            match (&mut values, child.kind()) {
                (
                    Some(v),
                    "word"
                    | "string"
                    | "raw_string"
                    | "concatenation"
                    | "number"
                    | "ansi_c_string"
                    | "simple_expansion"
                    | "expansion"
                    | "command_substitution",
                ) => {
                    let static_words: Option<Vec<String>> = words
                        .iter()
                        .map(|w| w.value().map(str::to_string))
                        .collect();
                    match static_words {
                        // `[2]=x` (as `declare -p` prints an array): the element at that index.
                        Some(w) if text(src, child).starts_with('[') => match w.as_slice() {
                            [one] => match subscripted(one) {
                                Some((i, value)) => {
                                    if v.len() <= i {
                                        v.resize(i + 1, String::new());
                                    }
                                    v[i] = value.to_string();
                                }
                                None => values = None,
                            },
                            _ => values = None,
                        },
                        Some(w) => v.extend(w),
                        None => values = None,
                    }
                }
                _ => values = None,
            }
        }
        values
    }

    pub(super) fn assignment_parts(&mut self, src: &str, node: Node, ctx: &Ctx) -> (String, Word) {
        let name = node
            .child_by_field_name("name")
            .map(|n| text(src, n).to_string())
            .unwrap_or_default();
        self.pending_array = None;
        let value = match node.child_by_field_name("value") {
            Some(v) if v.kind() == "array" => {
                self.pending_array = Some(self.array(src, v, ctx));
                Word::unknown(text(src, v))
            }
            Some(v) => {
                let mut words = self.words(src, v, ctx);
                if words.len() == 1 {
                    words.remove(0)
                } else {
                    Word::unknown(text(src, v))
                }
            }
            None => Word::literal(""),
        };
        (name, value)
    }

    /// `export`, `declare`, `local`, `readonly`, `typeset`, `unset`: a command whose operands
    /// may be assignments.
    pub(super) fn declaration(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let index = self.reserve(ctx);
        let mut name = Word::default();
        let mut args = Vec::new();
        // `declare -n ref=NAME`: `$ref` is NAME's value, not the text NAME (nothing is known).
        let mut nameref = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                if name.raw.is_empty() {
                    name = Word::literal(child.kind());
                }
                continue;
            }
            if child.kind() == "variable_assignment" {
                let (var, value) = self.assignment_parts(src, child, ctx);
                if nameref {
                    self.vars.set(&var, None);
                } else {
                    self.remember(child, &var, &value);
                }
                let mut w = Word::literal(&format!("{var}={}", value.value().unwrap_or("")));
                if !value.is_static() {
                    w = Word::unknown(&format!("{var}={}", value.raw));
                    w.shown = format!("{var}={}", value.shown);
                    w.static_prefix = format!("{var}=");
                }
                w.raw = text(src, child).chars().take(MAX_RAW).collect();
                args.push(w);
            } else {
                let flag = text(src, child);
                if matches!(name.raw.as_str(), "declare" | "typeset" | "local")
                    && flag.starts_with('-')
                    && flag.contains('n')
                {
                    nameref = true;
                }
                if name.raw == "unset" {
                    self.vars.unset(text(src, child));
                } else if child.kind() == "variable_name" {
                    self.vars.set(text(src, child), None);
                }
                args.extend(self.words(src, child, ctx));
            }
        }
        self.finish(index, name, args, Vec::new(), ctx.redirects.clone(), ctx);
    }
}

/// `[N]=value` as an element of an array literal: the index (small, decimal) and the value.
fn subscripted(element: &str) -> Option<(usize, &str)> {
    let (index, value) = element.strip_prefix('[')?.split_once("]=")?;
    let i: usize = index.trim().parse().ok()?;
    (i < 4096).then_some((i, value))
}
