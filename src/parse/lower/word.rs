//! Words: one word node evaluated statically, part by part (literal text, quotes, ANSI-C
//! strings, parameters with their operators and known constants), then split into fields and
//! brace-expanded; a part only known at run time leaves the word dynamic.

use super::vars::Value;
use super::{text, Ctx, Lowerer, MAX_BRACE, MAX_RAW};
use crate::ir::{decode_ansi_c, Word};
use crate::parse::values::{self, Operator, MAX_READINGS, MAX_READING_CHARS};
use crate::parse::word::{unescape_double_quoted, unescape_unquoted, CharKind, Chars};
use tree_sitter::Node;

/// One word being evaluated: its characters so far with their kinds, whether some part is only
/// known at run time, and what the finished `Word` carries besides its value.
#[derive(Default)]
pub(super) struct WordState {
    pub(super) chars: Chars,
    pub(super) dynamic: bool,
    pub(super) shown: String,
    pub(super) prefix: String,
    pub(super) unguarded: bool,
    pub(super) guarded: bool,
    pub(super) substitutions: Vec<usize>,
    pub(super) processes: Vec<usize>,
    /// The text with unknown parameter expansions left as written (see `Word::template`).
    pub(super) template: String,
    /// A part that a template cannot stand for (a substitution) was seen.
    pub(super) no_template: bool,
    /// The fully known readings of a word that is only known at run time: each default or
    /// alternative of an expansion taken, or a value the variable is known to have had.
    pub(super) readings: Readings,
}

/// The known readings of a word (see `Word::alternatives`).
#[derive(Clone, Debug, Default)]
pub(super) enum Readings {
    /// No expansion with alternatives yet: `chars` is the only reading.
    #[default]
    Main,
    /// Each reading's characters so far.
    Forked(Vec<Chars>),
    /// A part with no known value: no reading is fully known.
    Lost,
}

impl WordState {
    pub(super) fn literal(&mut self, text: &str, kind: CharKind) {
        self.known(text, kind);
        self.shown.push_str(text);
        self.template.push_str(text);
    }

    /// Known characters (literal text or a known value) added to the value and every reading.
    pub(super) fn known(&mut self, text: &str, kind: CharKind) {
        self.chars.push_str(text, kind);
        if let Readings::Forked(readings) = &mut self.readings {
            for r in readings {
                r.push_str(text, kind);
            }
        }
    }

    /// Unquoted word text: backslash escapes removed, the rest literal.
    pub(super) fn literal_unquoted(&mut self, text: &str) {
        let mut chars = Chars::default();
        unescape_unquoted(text, &mut chars);
        self.shown.extend(chars.0.iter().map(|(c, _)| *c));
        self.template.extend(chars.0.iter().map(|(c, _)| *c));
        if let Readings::Forked(readings) = &mut self.readings {
            for r in readings {
                r.0.extend(chars.0.iter().copied());
            }
        }
        self.chars.0.extend(chars.0);
    }

    /// A part only known at run time, with no known reading.
    pub(super) fn dynamic(&mut self) {
        self.dynamic_with(&[], CharKind::Quoted);
    }

    /// A part only known at run time that may also take one of `alternatives` (each a known
    /// value, added as `kind` characters): every reading so far forks into one per alternative.
    pub(super) fn dynamic_with(&mut self, alternatives: &[String], kind: CharKind) {
        if !self.dynamic {
            self.prefix = self.chars.0.iter().map(|(c, _)| *c).collect();
        }
        let before = match std::mem::take(&mut self.readings) {
            Readings::Main if !self.dynamic => vec![self.chars.clone()],
            Readings::Forked(readings) => readings,
            Readings::Main | Readings::Lost => Vec::new(),
        };
        let mut after = Vec::new();
        for reading in &before {
            for alternative in alternatives {
                // Bounded in number and in length (a value that refers to itself twice doubles
                // at each assignment).
                if after.len() < MAX_READINGS
                    && reading.0.len() + alternative.len() <= MAX_READING_CHARS
                {
                    let mut r = reading.clone();
                    r.push_str(alternative, kind);
                    after.push(r);
                }
            }
        }
        self.readings = if after.is_empty() {
            Readings::Lost
        } else {
            Readings::Forked(after)
        };
        self.dynamic = true;
    }

    /// A run-time part the template cannot represent.
    pub(super) fn opaque(&mut self) {
        self.dynamic();
        self.no_template = true;
    }
}

impl Lowerer<'_> {
    /// Evaluates a word node into one or more words (brace expansion and field splitting of
    /// known constants can make several).
    pub(super) fn words(&mut self, src: &str, node: Node, ctx: &Ctx) -> Vec<Word> {
        let mut state = WordState::default();
        self.part(src, node, ctx, &mut state, false);
        self.static_words(text(src, node), state)
    }

    /// The words one word written as `written` evaluates to, given its evaluated parts.
    pub(super) fn static_words(&self, written: &str, state: WordState) -> Vec<Word> {
        let raw: String = written.chars().take(MAX_RAW).collect();
        let base = Word {
            raw: raw.clone(),
            shown: state.shown.clone(),
            static_prefix: if state.dynamic {
                state.prefix.clone()
            } else {
                state.chars.0.iter().map(|(c, _)| *c).collect()
            },
            unguarded_param: state.unguarded,
            guarded_param: state.guarded,
            substitutions: state.substitutions.clone(),
            processes: state.processes.clone(),
            glob: false,
            obfuscated: false,
            template: (state.dynamic && !state.no_template).then(|| state.template.clone()),
            ..Word::default()
        };
        let expanded = if state.dynamic {
            None
        } else {
            state.chars.expand_with(self.vars.ifs(), MAX_BRACE)
        };
        let Some(expanded) = expanded else {
            // Only known at run time (or too large an expansion to follow).
            let glob = state
                .chars
                .0
                .iter()
                .any(|(c, k)| *k != CharKind::Quoted && matches!(c, '*' | '?' | '['));
            let alternatives = match &state.readings {
                Readings::Forked(readings) if state.dynamic => readings
                    .iter()
                    .filter_map(|r| r.expand_with(self.vars.ifs(), MAX_BRACE))
                    .map(with_system_matches)
                    .collect(),
                _ => Vec::new(),
            };
            return vec![Word {
                glob,
                alternatives,
                ..base
            }];
        };
        if expanded.is_empty() {
            // An unquoted expansion of an empty constant: the word disappears.
            return Vec::new();
        }
        let single = expanded.len() == 1;
        expanded
            .into_iter()
            .map(|(value, glob)| {
                let plain = !value.is_empty()
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._-/+".contains(c));
                let obfuscated = plain && raw != value && !raw.contains('{');
                let matches = if glob {
                    values::system_matches(&value)
                } else {
                    Vec::new()
                };
                Word {
                    alternatives: if matches.is_empty() {
                        Vec::new()
                    } else {
                        vec![matches]
                    },
                    shown: if single {
                        base.shown.clone()
                    } else {
                        value.clone()
                    },
                    static_prefix: value.clone(),
                    glob,
                    obfuscated,
                    ..base.clone()
                }
                .with_value(Some(value))
            })
            .collect()
    }

    /// Adds one syntactic part of a word to `state`. `quoted` is true inside double quotes.
    pub(super) fn part(
        &mut self,
        src: &str,
        node: Node,
        ctx: &Ctx,
        state: &mut WordState,
        quoted: bool,
    ) {
        if !self.visit(ctx) {
            state.opaque();
            return;
        }
        let mut deeper = ctx.clone();
        deeper.tree_depth += 1;
        let ctx = &deeper;
        let t = text(src, node);
        match node.kind() {
            "word"
            | "number"
            | "brace_expression"
            | "extglob_pattern"
            | "special_variable_name"
            | "variable_name"
            | "regex"
            | "test_operator"
            | "file_descriptor" => {
                if quoted {
                    state.literal(t, CharKind::Quoted);
                } else {
                    state.literal_unquoted(t);
                }
            }
            "raw_string" => {
                let body = t
                    .strip_prefix('\'')
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(t);
                state.literal(body, CharKind::Quoted);
            }
            "ansi_c_string" => {
                let body = t
                    .strip_prefix("$'")
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(t);
                state.literal(&decode_ansi_c(body), CharKind::Quoted);
            }
            "string" => self.double_quoted(src, node, ctx, state),
            "translated_string" | "concatenation" | "command_name" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    self.part(src, child, ctx, state, quoted);
                }
            }
            "simple_expansion" => self.parameter(t, t.trim_start_matches('$'), "", state, quoted),
            "expansion" => {
                let body = t
                    .strip_prefix("${")
                    .and_then(|s| s.strip_suffix('}'))
                    .unwrap_or(t);
                let (name, op) = split_parameter(body);
                self.parameter(t, name, op, state, quoted);
                // `${X:-$(cmd)}` runs cmd: lower substitutions hidden in the operator's word.
                self.hidden_substitutions(src, node, ctx, state);
            }
            "command_substitution" => self.command_substitution(src, node, ctx, state, quoted),
            "process_substitution" => self.process_substitution(src, node, ctx, state),
            "arithmetic_expansion" => {
                self.hidden_substitutions(src, node, ctx, state);
                state.opaque();
            }
            _ => {
                self.hidden_substitutions(src, node, ctx, state);
                if quoted {
                    state.literal(t, CharKind::Quoted);
                } else {
                    state.literal(t, CharKind::Literal);
                }
            }
        }
    }

    pub(super) fn double_quoted(
        &mut self,
        src: &str,
        node: Node,
        ctx: &Ctx,
        state: &mut WordState,
    ) {
        let end = node.end_byte().saturating_sub(1);
        let mut pos = node.start_byte() + 1;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            if child.start_byte() > pos && child.start_byte() <= end {
                let gap = src.get(pos..child.start_byte()).unwrap_or_default();
                state.literal(&unescape_double_quoted(gap), CharKind::Quoted);
            }
            if child.is_named() {
                if child.kind() == "string_content" {
                    state.literal(&unescape_double_quoted(text(src, child)), CharKind::Quoted);
                } else {
                    self.part(src, child, ctx, state, true);
                }
            }
            pos = pos.max(child.end_byte());
        }
        if pos < end {
            let gap = src.get(pos..end).unwrap_or_default();
            state.literal(&unescape_double_quoted(gap), CharKind::Quoted);
        }
    }

    /// `$name` / `${name<op>…}` (written as `raw`): a known constant's value, or a run-time value.
    pub(super) fn parameter(
        &mut self,
        raw: &str,
        name: &str,
        op: &str,
        state: &mut WordState,
        quoted: bool,
    ) {
        state.shown.push('$');
        state.shown.push_str(name);
        let special = matches!(name, "$" | "?" | "#" | "!" | "-" | "0") || name.starts_with('#');
        let (subscript, op) = split_subscript(op);
        let operator = Operator::parse(op);
        let guarded = operator == Operator::Guard;
        if guarded && op.starts_with(':') && !name.starts_with('!') {
            // Committed when the command it is part of runs in this shell (see `finish`).
            self.pending_checks.push(name.to_string());
        }
        // `${!name}` follows a known name to its variable; `${!prefix*}` and `${!a[@]}` list
        // names and keys, which stay unknown.
        let target = match name.strip_prefix('!') {
            Some(n) if subscript.is_none() && !n.ends_with(['@', '*']) && !n.is_empty() => {
                self.vars.get(n).filter(|t| is_variable_name(t))
            }
            Some(_) => None,
            None if name.starts_with('#') => None,
            None => Some(name.to_string()),
        };
        let kind = if quoted {
            CharKind::Quoted
        } else {
            CharKind::Expanded
        };
        let known = target
            .as_deref()
            .and_then(|t| self.vars.lookup(t, subscript));
        match (known, &operator) {
            (Some(_), _) if !quoted && self.vars.ifs_unknown => {
                state.opaque();
                state.unguarded = true;
            }
            (Some(Value::One(value)), _) => match self.expanded(&value, &operator) {
                Some(v) => {
                    state.known(&v, kind);
                    state.template.push_str(&v);
                }
                None => {
                    state.dynamic();
                    state.template.push_str(raw);
                }
            },
            (
                Some(Value::Fields(fields)),
                Operator::Plain | Operator::Guard | Operator::Default { .. },
            ) => {
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        let sep = if quoted {
                            CharKind::Break
                        } else {
                            CharKind::Expanded
                        };
                        state.known(" ", sep);
                        state.template.push(' ');
                    }
                    state.known(field, kind);
                    state.template.push_str(field);
                }
            }
            (known, _) => {
                // Only known at run time: its readings are the variable's known possible
                // values through the operator, and the operator's own word where it has one.
                let mut readings: Vec<String> = match (&known, target.as_deref()) {
                    (None, Some(t)) => self
                        .vars
                        .alternatives(t)
                        .iter()
                        .filter_map(|v| self.expanded(v, &operator))
                        .collect(),
                    _ => Vec::new(),
                };
                match operator {
                    Operator::Default { word, .. } => readings.extend(self.word_value(word)),
                    Operator::Alternative { word, .. } => {
                        readings.push(String::new());
                        readings.extend(self.word_value(word));
                    }
                    _ => {}
                }
                readings.dedup();
                state.dynamic_with(&readings, kind);
                state.template.push_str(raw);
                // Never empty: `${V:?}`, a variable a `: "${V:?}"` checked earlier, and
                // `${V:-w}`/`${V:=w}` with a non-empty literal default; `${V:+w}` with a
                // literal word is one of two known values. The reference's hazard, an empty
                // expansion deleting `/`, needs none of these.
                // A checked variable is not empty, but what an operator makes of it may be
                // (`${D%%/*}` of an absolute path is empty): only its value as it is counts.
                let as_is = matches!(
                    operator,
                    Operator::Plain | Operator::Guard | Operator::Default { .. }
                );
                let never_empty = guarded
                    || as_is && target.as_deref().is_some_and(|t| self.vars.is_checked(t))
                    || match operator {
                        Operator::Default { colon: true, word } => never_empty_word(word),
                        Operator::Alternative { word, .. } => self.word_value(word).is_some(),
                        _ => false,
                    };
                if never_empty {
                    state.guarded = true;
                } else if !special {
                    state.unguarded = true;
                }
            }
        }
    }

    /// A known `value` through `operator`: itself, the default when it is empty (`${V:-w}`),
    /// the alternative word, or an evaluated transform; `None` when not statically known.
    fn expanded(&self, value: &str, operator: &Operator) -> Option<String> {
        match *operator {
            Operator::Plain | Operator::Guard => Some(value.to_string()),
            Operator::Default { colon, word } if colon && value.is_empty() => self.word_value(word),
            Operator::Default { .. } => Some(value.to_string()),
            Operator::Alternative { colon, .. } if colon && value.is_empty() => Some(String::new()),
            Operator::Alternative { word, .. } => self.word_value(word),
            Operator::Transform(op) => values::transform(value, op),
        }
    }

    /// The value of an operator's word: literal text, or one known `$NAME`/`${NAME}`.
    fn word_value(&self, word: &str) -> Option<String> {
        if let Some(v) = values::literal_word(word) {
            return Some(v);
        }
        // `$'/dev/sd\x61'`: an ANSI-C string.
        if let Some(body) = word.strip_prefix("$'").and_then(|b| b.strip_suffix('\'')) {
            return Some(decode_ansi_c(body));
        }
        let name = word.strip_prefix('$')?;
        if let Some(body) = name.strip_prefix('{').and_then(|n| n.strip_suffix('}')) {
            let (inner, op) = split_parameter(body);
            if is_variable_name(inner) && !op.is_empty() && word.len() < 1024 {
                // A nested expansion (`${A:-${B:-/dev/sda}}`): its value when the variable is
                // known, else its own default's.
                let operator = Operator::parse(op);
                return match (self.vars.get(inner), operator) {
                    (Some(v), operator) => self.expanded(&v, &operator),
                    (None, Operator::Default { word, .. }) => self.word_value(word),
                    _ => None,
                };
            }
            return is_variable_name(body)
                .then(|| self.vars.get(body))
                .flatten();
        }
        if !is_variable_name(name) {
            return None;
        }
        self.vars.get(name)
    }
}

/// A default word that cannot expand to nothing: literal text besides its expansions
/// (`./build`, `$HOME/.cache`; not `$X` or `"${Y}"`).
fn never_empty_word(word: &str) -> bool {
    let mut rest = word;
    let mut literal = false;
    while let Some(c) = rest.chars().next() {
        if c == '$' {
            let after = &rest[1..];
            let len = if let Some(inner) = after.strip_prefix('{') {
                let mut depth = 0usize;
                let end = inner
                    .char_indices()
                    .find(|&(_, c)| match c {
                        '{' => {
                            depth += 1;
                            false
                        }
                        '}' if depth == 0 => true,
                        '}' => {
                            depth -= 1;
                            false
                        }
                        _ => false,
                    })
                    .map_or(inner.len(), |(i, _)| i);
                // A nested `${X:-w}` with a never-empty `w` is never empty either.
                let (_, op) = split_parameter(&inner[..end]);
                if let Operator::Default { colon: true, word } = Operator::parse(op) {
                    literal |= never_empty_word(word);
                }
                (end + 2).min(after.len())
            } else {
                after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len())
            };
            rest = &after[len.min(after.len())..];
        } else {
            literal |= !matches!(c, '"' | '\'');
            rest = &rest[c.len_utf8()..];
        }
    }
    literal
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// A reading's fields, each glob that can only match standard system paths replaced by them.
fn with_system_matches(fields: Vec<(String, bool)>) -> Vec<String> {
    let mut out = Vec::new();
    for (value, glob) in fields {
        let matches = if glob {
            values::system_matches(&value)
        } else {
            Vec::new()
        };
        if matches.is_empty() {
            out.push(value);
        } else {
            out.extend(matches);
        }
    }
    out
}

/// Splits `[sub]rest` into the subscript and the rest of the operator.
fn split_subscript(op: &str) -> (Option<&str>, &str) {
    let Some(rest) = op.strip_prefix('[') else {
        return (None, op);
    };
    match rest.split_once(']') {
        Some((sub, after)) => (Some(sub), after),
        None => (None, op),
    }
}

/// Splits a `${…}` body into the parameter name and the operator text that follows.
fn split_parameter(body: &str) -> (&str, &str) {
    if body.starts_with('#') && body.len() > 1 {
        return (body, "");
    }
    let start = usize::from(body.starts_with('!'));
    let rest = &body[start..];
    let len = match rest.chars().next() {
        Some(c) if c.is_ascii_digit() => rest.chars().take_while(char::is_ascii_digit).count(),
        Some(c) if "@*#?$!-".contains(c) => 1,
        _ => rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .count(),
    };
    body.split_at(start + len)
}
