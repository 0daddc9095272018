//! Lowering: tree-sitter-bash syntax trees into the IR of `ir`. Walks every node (sequences,
//! lists, pipelines, subshells, groups, conditionals, loops, functions, substitutions, heredocs),
//! evaluates words statically and hands wrapped argv and shell strings to `unwrap`. Bounded in
//! bytes, nodes, tree depth, nesting and time; a crossed bound is recorded, never ignored.

use super::ir::*;
use super::recover;
use super::unwrap::{self, Inner};
use super::word::{
    decode_ansi_c, unescape_double_quoted, unescape_unquoted, CharKind, Chars, Word, DEFAULT_IFS,
};
use super::Limits;
use std::collections::HashMap;
use std::time::Instant;
use tree_sitter::{Node, Parser, Tree};

/// Longest raw text kept per word, so nested substitutions stay linear.
const MAX_RAW: usize = 4096;
/// Most words one brace expansion may produce.
const MAX_BRACE: usize = 1024;

/// Constants assigned earlier in the same text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Vars {
    named: HashMap<String, String>,
    /// Indexed arrays (`a=(x y)`); `$a` is element 0, so it is also in `named`.
    arrays: HashMap<String, Vec<String>>,
    positional: Option<Vec<String>>,
    /// `IFS` when assigned a constant; `None` for the default.
    ifs: Option<String>,
    /// `IFS` was assigned a run-time value: unquoted expansions split unpredictably.
    ifs_unknown: bool,
}

/// What a parameter expands to, when known.
enum Value {
    One(String),
    /// Several fields (`$@`, `${a[@]}`): separate words when quoted, split again when not.
    Fields(Vec<String>),
}

impl Vars {
    pub(crate) fn with_positional(args: Vec<String>) -> Self {
        Vars {
            positional: Some(args),
            ..Vars::default()
        }
    }

    fn get(&self, name: &str) -> Option<String> {
        if let Ok(n) = name.parse::<usize>() {
            if n == 0 {
                return None;
            }
            return self.positional.as_ref()?.get(n - 1).cloned();
        }
        match name {
            "@" | "*" => self.positional.as_ref().map(|p| p.join(" ")),
            _ => self.named.get(name).cloned(),
        }
    }

    /// The value of `name` with an optional array subscript (`@`, `*` or an index).
    fn lookup(&self, name: &str, subscript: Option<&str>) -> Option<Value> {
        match (name, subscript) {
            ("@" | "*", None) => self.positional.clone().map(Value::Fields),
            (_, None) => self.get(name).map(Value::One),
            (_, Some("@" | "*")) => self
                .arrays
                .get(name)
                .cloned()
                .or_else(|| self.named.get(name).map(|v| vec![v.clone()]))
                .map(Value::Fields),
            (_, Some(index)) => {
                let i: usize = index.trim().parse().ok()?;
                match self.arrays.get(name) {
                    Some(a) => a.get(i).cloned().map(Value::One),
                    None if i == 0 => self.named.get(name).cloned().map(Value::One),
                    None => None,
                }
            }
        }
    }

    fn set(&mut self, name: &str, value: Option<String>) {
        self.arrays.remove(name);
        if name == "IFS" {
            self.ifs_unknown = value.is_none();
            self.ifs = value.clone();
        }
        match value {
            Some(v) => {
                self.named.insert(name.to_string(), v);
            }
            None => {
                self.named.remove(name);
            }
        }
    }

    /// `unset NAME`: no longer a known constant (`IFS` returns to its default).
    fn unset(&mut self, name: &str) {
        self.set(name, None);
        if name == "IFS" {
            self.ifs = None;
            self.ifs_unknown = false;
        }
    }

    fn set_array(&mut self, name: &str, values: Option<Vec<String>>) {
        self.set(name, values.as_ref().and_then(|v| v.first().cloned()));
        if let Some(v) = values {
            self.arrays.insert(name.to_string(), v);
        }
    }

    /// `a[i]=v`: updates a known array, or forgets it when the index or value is not static.
    fn set_element(&mut self, name: &str, index: &str, value: Option<&str>) {
        let slot = index.trim().parse::<usize>().ok().filter(|i| *i < 4096);
        let mut array = self
            .arrays
            .get(name)
            .cloned()
            .or_else(|| self.named.get(name).map(|v| vec![v.clone()]))
            .unwrap_or_default();
        match (slot, value) {
            (Some(i), Some(v)) => {
                if array.len() <= i {
                    array.resize(i + 1, String::new());
                }
                array[i] = v.to_string();
                self.set_array(name, Some(array));
            }
            _ => self.set(name, None),
        }
    }

    fn ifs(&self) -> &str {
        self.ifs.as_deref().unwrap_or(DEFAULT_IFS)
    }
}

/// Lowering state shared by one analysis and all the shell strings nested in it.
pub(crate) struct Lowerer<'l> {
    pub(crate) out: Analysis,
    limits: &'l Limits,
    /// Made on the first text that needs the grammar (a plain command line does not).
    parser: Option<Parser>,
    started: Instant,
    nodes: usize,
    stopped: bool,
    vars: Vars,
    /// Syntax depth at which the text being parsed was found (0 for the top level).
    base_depth: usize,
    /// Start bytes of the simple commands lowered from the text being parsed (not from texts
    /// nested in it), so the parse-error fallback knows which lines were already seen.
    lowered: Vec<usize>,
    /// The elements of the array value `assignment_parts` just evaluated, for `remember`.
    pending_array: Option<Option<Vec<String>>>,
    /// Plain command lines are lowered without the grammar (`super::plain`); off only to
    /// compare the two paths.
    plain_lines: bool,
}

/// Context while walking: what every command found below inherits.
#[derive(Clone, Debug, Default)]
struct Ctx {
    ir: Context,
    stdin: Option<Stdin>,
    redirects: Vec<Redirect>,
    tree_depth: usize,
}

#[derive(Default)]
struct WordState {
    chars: Chars,
    dynamic: bool,
    shown: String,
    prefix: String,
    unguarded: bool,
    guarded: bool,
    substitutions: Vec<usize>,
    processes: Vec<usize>,
    /// The text with unknown parameter expansions left as written (see `Word::template`).
    template: String,
    /// A part that a template cannot stand for (a substitution) was seen.
    no_template: bool,
}

impl WordState {
    fn literal(&mut self, text: &str, kind: CharKind) {
        self.chars.push_str(text, kind);
        self.shown.push_str(text);
        self.template.push_str(text);
    }

    /// Unquoted word text: backslash escapes removed, the rest literal.
    fn literal_unquoted(&mut self, text: &str) {
        let mut chars = Chars::default();
        unescape_unquoted(text, &mut chars);
        self.shown.extend(chars.0.iter().map(|(c, _)| *c));
        self.template.extend(chars.0.iter().map(|(c, _)| *c));
        self.chars.0.extend(chars.0);
    }

    fn dynamic(&mut self) {
        if !self.dynamic {
            self.prefix = self.chars.0.iter().map(|(c, _)| *c).collect();
        }
        self.dynamic = true;
    }

    /// A run-time part the template cannot represent.
    fn opaque(&mut self) {
        self.dynamic();
        self.no_template = true;
    }
}

impl<'l> Lowerer<'l> {
    pub(crate) fn new(limits: &'l Limits) -> Self {
        Lowerer {
            out: Analysis::default(),
            limits,
            parser: None,
            started: Instant::now(),
            nodes: 0,
            stopped: false,
            vars: Vars::default(),
            pending_array: None,
            base_depth: 0,
            lowered: Vec::new(),
            plain_lines: true,
        }
    }

    /// A lowerer that sends every text through tree-sitter, plain command lines included.
    pub(crate) fn grammar_only(limits: &'l Limits) -> Self {
        Lowerer {
            plain_lines: false,
            ..Lowerer::new(limits)
        }
    }

    fn limit(&mut self, limit: Limit) {
        if !self.out.limits.contains(&limit) {
            self.out.limits.push(limit);
        }
    }

    fn over_time(&self) -> bool {
        self.started.elapsed().as_millis() as u64 > self.limits.max_millis
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
        let outer = std::mem::take(&mut self.lowered);
        self.stmt(text, root, &ctx);
        if root.has_error() {
            self.lines_error_recovery_hid(text, &ctx);
        }
        self.lowered = outer;
    }

    /// A syntax error can make tree-sitter swallow whole commands into an ERROR node as plain
    /// words (`rm -rf /` followed by an unterminated quote on the next line). Every line of the
    /// text on which no command was lowered, and that parses cleanly on its own, is lowered on
    /// its own: one parse error never hides a command elsewhere.
    fn lines_error_recovery_hid(&mut self, text: &str, ctx: &Ctx) {
        const MAX_LINES: usize = 2048;
        let mut start = 0;
        for line in text.split_inclusive('\n').take(MAX_LINES) {
            let end = start + line.len();
            let seen = self.lowered.iter().any(|&b| (start..end).contains(&b));
            let body = line.trim();
            if !seen && !body.is_empty() && !body.starts_with('#') && !self.stopped {
                if let Some(tree) = self.parse(line) {
                    let root = tree.root_node();
                    if !root.has_error() {
                        let saved = std::mem::take(&mut self.lowered);
                        self.stmt(line, root, ctx);
                        self.lowered = saved;
                    }
                }
            }
            start = end;
        }
    }

    /// `script` for a shell string found at syntax depth `tree_depth`: the depth carries on, so
    /// the recursion of all nested levels together stays under `max_depth`.
    fn nested(&mut self, text: &str, base: &Context, stdin: Option<Stdin>, tree_depth: usize) {
        let saved = std::mem::replace(&mut self.base_depth, tree_depth);
        self.script(text, base, stdin);
        self.base_depth = saved;
    }

    /// Parses `text` under the time budget; `None` (recorded) when it ran out.
    fn parse(&mut self, text: &str) -> Option<Tree> {
        let started = self.started;
        let max_millis = self.limits.max_millis;
        let mut cancel =
            |_: &tree_sitter::ParseState| started.elapsed().as_millis() as u64 > max_millis;
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut cancel);
        let bytes = text.as_bytes();
        let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        let parser = self.parser.get_or_insert_with(|| {
            let mut parser = Parser::new();
            // The grammar is compiled in; a version mismatch is caught by the tests, and a parser
            // without a language makes `parse` return `None`, which is reported as a limit.
            let _ = parser.set_language(&tree_sitter_bash::LANGUAGE.into());
            parser
        });
        let tree =
            parser.parse_custom_encoding::<CtypeSafeUtf8, _, _>(&mut read, None, Some(options));
        if tree.is_none() {
            self.limit(Limit::Time { max_ms: max_millis });
            self.stopped = true;
        }
        tree
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

    fn stmt(&mut self, src: &str, node: Node, ctx: &Ctx) {
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
                    self.vars.set(text(src, var), None);
                }
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
    fn sequence(&mut self, src: &str, node: Node, ctx: &Ctx) {
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

    fn list(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let mut cursor = node.walk();
        let named: Vec<Node> = node.named_children(&mut cursor).collect();
        let last = named.len().saturating_sub(1);
        for (i, child) in named.into_iter().enumerate() {
            let mut c = ctx.clone();
            c.ir.condition |= i < last;
            self.stmt(src, child, &c);
        }
    }

    fn conditional(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let condition = node.child_by_field_name("condition").map(|n| n.id());
        let mut cursor = node.walk();
        let named: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in named {
            let mut c = ctx.clone();
            c.ir.condition |= Some(child.id()) == condition;
            self.stmt(src, child, &c);
        }
    }

    fn pipeline(&mut self, src: &str, node: Node, ctx: &Ctx) {
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

    fn function(&mut self, src: &str, node: Node, ctx: &Ctx) {
        let name = node
            .child_by_field_name("name")
            .map(|n| text(src, n).to_string())
            .unwrap_or_default();
        let start = self.out.commands.len();
        let mut c = ctx.clone();
        c.ir.function = Some(name.clone());
        if let Some(body) = node.child_by_field_name("body") {
            self.stmt(src, body, &c);
        }
        let end = self.out.commands.len();
        self.out.functions.push(Function {
            name,
            body: (start..end).collect(),
        });
    }

    /// `body > file`, `body <<EOF … EOF`, `body <<< str`: the redirections apply to every
    /// command in the body.
    fn redirected(&mut self, src: &str, node: Node, ctx: &Ctx) {
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

    fn heredoc_pipeline(&mut self, src: &str, body: Node, rest: Vec<Node>, first: &Ctx, ctx: &Ctx) {
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

    /// The static body of a heredoc (if it has one, else its template) and any statements
    /// tree-sitter nested in the redirect (`| sh`, `&& next`).
    fn heredoc<'t>(
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

    fn herestring(&mut self, src: &str, node: Node, ctx: &Ctx) -> Option<Word> {
        let mut cursor = node.walk();
        let word = node
            .named_children(&mut cursor)
            .find(|n| n.kind() != "file_descriptor")?;
        self.words(src, word, ctx).into_iter().next()
    }

    fn file_redirect(&mut self, src: &str, node: Node, ctx: &Ctx) -> Option<Redirect> {
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

    /// A bare `NAME=value` statement: remembered as a constant, and kept in the IR as a command
    /// with no name whose only part is the assignment, so rules can see what is assigned.
    fn assignment(&mut self, src: &str, node: Node, ctx: &Ctx) {
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
    fn remember(&mut self, node: Node, name: &str, value: &Word) {
        let appends = node.children(&mut node.walk()).any(|c| c.kind() == "+=");
        if let Some((base, index)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) {
            self.vars
                .set_element(base, index, value.value().filter(|_| !appends));
        } else if appends {
            self.vars.set(name, None);
        } else if let Some(elements) = self.pending_array.take() {
            self.vars.set_array(name, elements);
        } else {
            self.vars.set(name, value.value().map(str::to_string));
        }
    }

    /// `(a b c)`: the static elements, or `None` when any is only known at run time.
    fn array(&mut self, src: &str, node: Node, ctx: &Ctx) -> Option<Vec<String>> {
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
                        Some(w) => v.extend(w),
                        None => values = None,
                    }
                }
                _ => values = None,
            }
        }
        values
    }

    fn assignment_parts(&mut self, src: &str, node: Node, ctx: &Ctx) -> (String, Word) {
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
    fn declaration(&mut self, src: &str, node: Node, ctx: &Ctx) {
        self.lowered.push(node.start_byte());
        let index = self.reserve(ctx);
        let mut name = Word::default();
        let mut args = Vec::new();
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
                self.remember(child, &var, &value);
                let mut w = Word::literal(&format!("{var}={}", value.value().unwrap_or("")));
                if !value.is_static() {
                    w = Word::unknown(&format!("{var}={}", value.raw));
                    w.shown = format!("{var}={}", value.shown);
                    w.static_prefix = format!("{var}=");
                }
                w.raw = text(src, child).chars().take(MAX_RAW).collect();
                args.push(w);
            } else {
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

    /// A plain command line (`super::plain`), lowered as the grammar path lowers its tree
    /// (`program` → `command` → one `word` per word): the same nodes are counted against the
    /// bounds at the same depths, and each word is evaluated by the same code.
    fn plain_command(&mut self, words: &[(usize, &str)], ctx: &Ctx) {
        if !self.visit(ctx) {
            return;
        }
        let mut command = ctx.clone();
        command.tree_depth += 1;
        if !self.visit(&command) {
            return;
        }
        command.tree_depth += 1;
        if let Some((offset, _)) = words.first() {
            self.lowered.push(*offset);
        }
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

    fn command(&mut self, src: &str, node: Node, ctx: &Ctx) {
        self.lowered.push(node.start_byte());
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
    fn reserve(&mut self, ctx: &Ctx) -> usize {
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

    fn finish(
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
        self.mark_executed(&executed);
        self.track_constants(index);
        let snapshot = self.out.commands.get(index).cloned();
        if let Some(cmd) = snapshot {
            self.follow(index, &cmd, ctx);
        }
    }

    /// Remembers `set -- a b` positional parameters.
    fn track_constants(&mut self, index: usize) {
        let Some(cmd) = self.out.commands.get(index) else {
            return;
        };
        if cmd.is(&["set"]) && cmd.args.first().and_then(Word::value) == Some("--") {
            let values: Option<Vec<String>> = cmd.args[1..]
                .iter()
                .map(|w| w.value().map(str::to_string))
                .collect();
            self.vars.positional = values;
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

    /// Follows what a command runs: wrapped argv, shell strings, remote commands.
    fn follow(&mut self, index: usize, cmd: &Command, ctx: &Ctx) {
        let all = unwrap::inner(cmd, &self.out);
        self.follow_all(index, cmd, ctx, all);
    }

    /// Lowers each thing `cmd` runs.
    fn follow_all(&mut self, index: usize, cmd: &Command, ctx: &Ctx, all: Vec<Inner>) {
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
                            // The outer shell fills the unknown parts; the inner one's `$1…`
                            // are not what the template's `$1…` mean, so none are known.
                            match template {
                                Some(t) => (t, None),
                                None => continue,
                            }
                        }
                    };
                    let depth = ctx.ir.depth + 1;
                    if depth > self.limits.max_nesting {
                        self.limit(Limit::Nesting {
                            max: self.limits.max_nesting,
                        });
                        continue;
                    }
                    let mut base = ctx.ir.clone();
                    base.depth = depth;
                    base.via.push(via);
                    base.wrapped_by = Some(index);
                    let saved = if same_shell {
                        None
                    } else {
                        Some(std::mem::replace(
                            &mut self.vars,
                            positional.map(Vars::with_positional).unwrap_or_default(),
                        ))
                    };
                    self.nested(&text, &base, Some(cmd.stdin.clone()), ctx.tree_depth);
                    if let Some(saved) = saved {
                        self.vars = saved;
                    }
                }
                Inner::Code(code) => self.program(index, cmd, ctx, &code),
            }
        }
    }

    /// An interpreter program: its report is kept in `Analysis::programs`, and what it runs is
    /// lowered with the terminal as stdin (the program text was the interpreter's, not theirs).
    fn program(&mut self, index: usize, cmd: &Command, ctx: &Ctx, code: &crate::interp::Code) {
        let analysed = crate::interp::analyse(code, self.limits);
        if analysed.timed_out {
            self.limit(Limit::Time {
                max_ms: self.limits.max_millis,
            });
        }
        if analysed.exhausted {
            self.limit(Limit::Nodes {
                max: self.limits.max_nodes,
            });
        }
        self.out.programs.push((index, analysed.report));
        let (fed, terminal): (Vec<_>, Vec<_>) = analysed.inner.into_iter().partition(|(_, f)| *f);
        let mut c = ctx.clone();
        c.stdin = None;
        let mut plain = cmd.clone();
        plain.stdin = Stdin::Inherited;
        self.follow_all(
            index,
            &plain,
            &c,
            terminal.into_iter().map(|(i, _)| i).collect(),
        );
        // Fed by the program: neither the terminal nor text the analysis can see.
        plain.stdin = Stdin::File(Word::unknown("<program output>"));
        self.follow_all(index, &plain, &c, fed.into_iter().map(|(i, _)| i).collect());
    }

    /// Evaluates a word node into one or more words (brace expansion and field splitting of
    /// known constants can make several).
    fn words(&mut self, src: &str, node: Node, ctx: &Ctx) -> Vec<Word> {
        let mut state = WordState::default();
        self.part(src, node, ctx, &mut state, false);
        self.static_words(text(src, node), state)
    }

    /// The words one word written as `written` evaluates to, given its evaluated parts.
    fn static_words(&self, written: &str, state: WordState) -> Vec<Word> {
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
            return vec![Word { glob, ..base }];
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
                Word {
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
    fn part(&mut self, src: &str, node: Node, ctx: &Ctx, state: &mut WordState, quoted: bool) {
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
            "command_substitution" => {
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
                        state.chars.push_str(&value, CharKind::Expanded);
                        state.template.push_str(&value);
                    }
                    _ => state.opaque(),
                }
            }
            "process_substitution" => {
                let id = self.out.process_substitutions.len();
                self.out.process_substitutions.push(ProcessSubstitution {
                    commands: Vec::new(),
                    output: t.starts_with('>'),
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

    fn hidden_substitutions(&mut self, src: &str, node: Node, ctx: &Ctx, state: &mut WordState) {
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

    fn double_quoted(&mut self, src: &str, node: Node, ctx: &Ctx, state: &mut WordState) {
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
    fn parameter(&mut self, raw: &str, name: &str, op: &str, state: &mut WordState, quoted: bool) {
        state.shown.push('$');
        state.shown.push_str(name);
        let special = matches!(name, "$" | "?" | "#" | "!" | "-" | "0") || name.starts_with('#');
        let (subscript, op) = split_subscript(op);
        let guarded = op.starts_with(":?") || op.starts_with('?');
        // `${D:?}`, `${D:-x}`, `${D:=x}` (and the colon-less forms) expand to D's value when D is
        // set; with a known constant that is the value (`D=/; rm -rf "${D:?}"` deletes `/`).
        let uses_value = op.is_empty()
            || [":?", ":-", ":=", "?", "-", "="]
                .iter()
                .any(|o| op.starts_with(o));
        let colon = op.starts_with(':');
        let known = if uses_value && !name.starts_with('!') && !name.starts_with('#') {
            self.vars
                .lookup(name, subscript)
                .filter(|v| !(colon && matches!(v, Value::One(s) if s.is_empty())))
        } else {
            None
        };
        let kind = if quoted {
            CharKind::Quoted
        } else {
            CharKind::Expanded
        };
        match known {
            Some(_) if !quoted && self.vars.ifs_unknown => {
                state.opaque();
                state.unguarded = true;
            }
            Some(Value::One(value)) => {
                state.chars.push_str(&value, kind);
                state.template.push_str(&value);
            }
            Some(Value::Fields(fields)) => {
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        let sep = if quoted {
                            CharKind::Break
                        } else {
                            CharKind::Expanded
                        };
                        state.chars.0.push((' ', sep));
                        state.template.push(' ');
                    }
                    state.chars.push_str(field, kind);
                    state.template.push_str(field);
                }
            }
            None => {
                state.dynamic();
                state.template.push_str(raw);
                if guarded {
                    state.guarded = true;
                } else if !special {
                    state.unguarded = true;
                }
            }
        }
    }

    /// The static output of command substitution `start..end`: one `echo`/`printf` of constants
    /// (`$(echo rm)`), trailing newlines removed, as the shell does.
    fn static_output(&self, start: usize, end: usize) -> Option<String> {
        if end != start + 1 {
            return None;
        }
        let cmd = self.out.commands.get(start)?;
        if !cmd.redirects.is_empty() || cmd.context.pipeline.is_some() || cmd.context.background {
            return None;
        }
        let text = unwrap::echoed(cmd)?;
        Some(text.trim_end_matches('\n').to_string())
    }
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

fn is_statement(kind: &str) -> bool {
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

fn text<'s>(src: &'s str, node: Node) -> &'s str {
    src.get(node.start_byte()..node.end_byte())
        .unwrap_or_default()
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

/// UTF-8 as tree-sitter-bash's lexer may see it. Its external scanner passes the lookahead code
/// point to C's `isdigit`, `isalpha` and friends, which are only defined for -1..=255: a code point
/// above that read outside glibc's tables and crashed the process (found by
/// `analysis_never_panics_on_arbitrary_bytes`). Such code points reach the lexer as U+00E9, a
/// letter above ASCII like them: no shell syntax is outside ASCII, byte offsets stay those of the
/// real text, and node text is still read from the real text.
struct CtypeSafeUtf8;

impl tree_sitter::Decode for CtypeSafeUtf8 {
    fn decode(bytes: &[u8]) -> (i32, u32) {
        let len = match bytes.first() {
            None => return (-1, 0),
            Some(b) if *b < 0x80 => return (i32::from(*b), 1),
            Some(b) if *b >= 0xF0 => 4,
            Some(b) if *b >= 0xE0 => 3,
            Some(_) => 2,
        };
        let decoded = bytes
            .get(..len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|s| s.chars().next());
        match decoded {
            Some(c) if u32::from(c) <= 0xFF => (u32::from(c) as i32, len as u32),
            Some(_) => (0xE9, len as u32),
            None => (-1, 1),
        }
    }
}
