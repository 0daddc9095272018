//! Static values of Python expressions: string and list constants, module and function names
//! (through imports, aliases, `__import__`, `importlib`, `getattr`), `pathlib` paths. The
//! bindings they read are collected by `pybind`; string helpers live in `pystr`.

use super::pystr::{join, quote, unescape};
use crate::parse::split_words;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use tree_sitter::Node;

/// A value an expression may have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Str(String),
    List(Vec<Val>),
    /// A module, function or attribute by its qualified name (`os.system`).
    Name(String),
    /// A `pathlib` path; `None` when only known at run time.
    Path(Option<String>),
    Bool(bool),
    /// Only known at run time.
    Dyn,
}

impl Val {
    /// The value as one static string (a path counts; `sys.executable` is the interpreter).
    pub fn string(&self) -> Option<String> {
        match self {
            Val::Str(s) | Val::Path(Some(s)) => Some(s.clone()),
            Val::Name(n) if n == "sys.executable" => Some("python3".into()),
            _ => None,
        }
    }

    /// The value as a path argument.
    pub fn path(&self) -> Option<String> {
        match self {
            Val::Str(s) | Val::Path(Some(s)) => Some(s.clone()),
            _ => None,
        }
    }
}

/// How a name was bound.
#[derive(Clone, Copy, Debug)]
pub(super) enum Bind<'t> {
    /// `x = expr`, `x := expr`.
    Expr(Node<'t>),
    /// `for x in expr`: an element of it.
    Element(Node<'t>),
    /// Bound to something that is not evaluated (a parameter, a function, a tuple unpack).
    Dyn,
}

/// Most values one expression may have before it counts as dynamic.
pub(super) const MAX_CANDIDATES: usize = 8;
/// Deepest expression evaluation.
const MAX_EVAL_DEPTH: usize = 48;
/// Most evaluation steps for one expression: past it the value is `Dyn` (alias chains that
/// double at each step cannot blow up).
const STEP_BUDGET: usize = 2_000;
/// Most evaluation steps per program; past it the analysis is incomplete and fails closed.
const EVAL_BUDGET: usize = 200_000;

/// The bindings of one program and the evaluator over them.
pub struct Scope<'t> {
    pub(super) src: &'t str,
    pub(super) binds: HashMap<String, Vec<Bind<'t>>>,
    /// Module and function names bound by imports (`import x as y`, `from x import y`).
    pub(super) imports: HashMap<String, Vec<String>>,
    /// Modules imported with `from x import *`.
    pub(super) wildcards: Vec<String>,
    /// Functions and lambdas by name: their parameters, `true` for those filled by position.
    pub(super) functions: HashMap<String, Vec<(String, bool)>>,
    pub(super) max_nodes: usize,
    pub(super) budget: Cell<usize>,
    pub(super) steps: Cell<usize>,
    pub(super) in_progress: RefCell<Vec<String>>,
}

impl<'t> Scope<'t> {
    pub fn new(src: &'t str, max_nodes: usize) -> Self {
        Scope {
            src,
            binds: HashMap::new(),
            imports: HashMap::new(),
            wildcards: Vec::new(),
            functions: HashMap::new(),
            max_nodes,
            budget: Cell::new(EVAL_BUDGET),
            steps: Cell::new(STEP_BUDGET),
            in_progress: RefCell::new(Vec::new()),
        }
    }

    pub fn text(&self, node: Node) -> &'t str {
        self.src
            .get(node.start_byte()..node.end_byte())
            .unwrap_or_default()
    }

    pub(super) fn bind(&mut self, name: &str, bind: Bind<'t>) {
        let list = self.binds.entry(name.to_string()).or_default();
        if list.len() < MAX_CANDIDATES * 4 {
            list.push(bind);
        }
    }

    pub(super) fn bind_import(&mut self, name: &str, qualified: String) {
        let list = self.imports.entry(name.to_string()).or_default();
        if !list.contains(&qualified) && list.len() < MAX_CANDIDATES {
            list.push(qualified);
        }
    }

    /// Every value `node` may have (at most `MAX_CANDIDATES`, else `Dyn` among them).
    pub fn eval(&self, node: Node) -> Vec<Val> {
        self.steps.set(STEP_BUDGET);
        self.eval_at(node, 0)
    }

    /// True when the program's evaluation budget ran out: later values were not computed.
    pub fn exhausted(&self) -> bool {
        self.budget.get() == 0
    }

    fn eval_at(&self, node: Node, depth: usize) -> Vec<Val> {
        let (left, steps) = (self.budget.get(), self.steps.get());
        if depth > MAX_EVAL_DEPTH || left == 0 || steps == 0 {
            return vec![Val::Dyn];
        }
        self.budget.set(left - 1);
        self.steps.set(steps - 1);
        let d = depth + 1;
        let vals = match node.kind() {
            "string" => vec![self.string(node)],
            "concatenated_string" => {
                let mut acc = vec![Val::Str(String::new())];
                let mut cursor = node.walk();
                for part in node.named_children(&mut cursor) {
                    acc = combine(&acc, &self.eval_at(part, d), |a, b| match (a, b) {
                        (Val::Str(x), Val::Str(y)) => Val::Str(format!("{x}{y}")),
                        _ => Val::Dyn,
                    });
                }
                acc
            }
            "identifier" => self.lookup(self.text(node), d),
            "attribute" => self.attribute(node, d),
            "call" => self.call(node, d),
            "list" | "tuple" | "expression_list" => {
                let mut cursor = node.walk();
                let items = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .map(|c| match self.eval_at(c, d).as_slice() {
                        [one] if c.kind() != "list_splat" => one.clone(),
                        _ => Val::Dyn,
                    })
                    .collect();
                vec![Val::List(items)]
            }
            "parenthesized_expression" | "await" => match node.named_child(0) {
                Some(inner) => self.eval_at(inner, d),
                None => vec![Val::Dyn],
            },
            "named_expression" => match node.child_by_field_name("value") {
                Some(v) => self.eval_at(v, d),
                None => vec![Val::Dyn],
            },
            "conditional_expression" => {
                let mut out = Vec::new();
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cursor).collect();
                for part in [parts.first(), parts.get(2)].into_iter().flatten() {
                    out.extend(self.eval_at(*part, d));
                }
                out
            }
            "binary_operator" => self.binary(node, d),
            "subscript" => self.subscript(node, d),
            "true" => vec![Val::Bool(true)],
            "false" | "none" => vec![Val::Bool(false)],
            _ => vec![Val::Dyn],
        };
        cap(vals)
    }

    fn lookup(&self, name: &str, depth: usize) -> Vec<Val> {
        let mut out: Vec<Val> = self
            .imports
            .get(name)
            .map(|q| q.iter().map(|q| Val::Name(q.clone())).collect())
            .unwrap_or_default();
        let binds = self.binds.get(name);
        if binds.is_none() && out.is_empty() {
            // A free name: a builtin (`eval`, `open`) or a module used without its import, and
            // whatever a `from m import *` may have brought in.
            out.push(Val::Name(name.to_string()));
            out.extend(
                self.wildcards
                    .iter()
                    .map(|m| Val::Name(format!("{m}.{name}"))),
            );
            return out;
        }
        if self.in_progress.borrow().iter().any(|n| n == name) {
            out.push(Val::Dyn);
            return out;
        }
        self.in_progress.borrow_mut().push(name.to_string());
        for bind in binds.map(Vec::as_slice).unwrap_or_default() {
            if out.len() > MAX_CANDIDATES {
                out.push(Val::Dyn);
                break;
            }
            match bind {
                Bind::Expr(n) => out.extend(self.eval_at(*n, depth)),
                Bind::Element(n) => {
                    for v in self.eval_at(*n, depth) {
                        match v {
                            Val::List(items) => out.extend(items),
                            _ => out.push(Val::Dyn),
                        }
                    }
                }
                Bind::Dyn => out.push(Val::Dyn),
            }
        }
        self.in_progress.borrow_mut().pop();
        out
    }

    fn attribute(&self, node: Node, depth: usize) -> Vec<Val> {
        let (Some(object), Some(attr)) = (
            node.child_by_field_name("object"),
            node.child_by_field_name("attribute"),
        ) else {
            return vec![Val::Dyn];
        };
        let attr = self.text(attr);
        self.eval_at(object, depth)
            .into_iter()
            .map(|v| match v {
                Val::Name(q) => Val::Name(format!("{q}.{attr}")),
                _ => Val::Dyn,
            })
            .collect()
    }

    fn binary(&self, node: Node, depth: usize) -> Vec<Val> {
        let (Some(l), Some(r), Some(op)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
            node.child_by_field_name("operator"),
        ) else {
            return vec![Val::Dyn];
        };
        let (lv, rv) = (self.eval_at(l, depth), self.eval_at(r, depth));
        match op.kind() {
            "+" => combine(&lv, &rv, |a, b| match (a, b) {
                (Val::Str(x), Val::Str(y)) => Val::Str(format!("{x}{y}")),
                (Val::List(x), Val::List(y)) => Val::List(x.iter().chain(y).cloned().collect()),
                _ => Val::Dyn,
            }),
            "/" => combine(&lv, &rv, |a, b| match (a, b) {
                (Val::Path(Some(x)), Val::Str(y)) => Val::Path(Some(join(x, y))),
                (Val::Path(_), _) => Val::Path(None),
                _ => Val::Dyn,
            }),
            "%" => combine(&lv, &rv, |a, b| match (a, b) {
                (Val::Str(format), Val::List(items)) => items
                    .iter()
                    .map(Val::string)
                    .collect::<Option<Vec<String>>>()
                    .and_then(|args| percent_format(format, &args))
                    .map_or(Val::Dyn, Val::Str),
                (Val::Str(format), other) => other
                    .string()
                    .and_then(|arg| percent_format(format, &[arg]))
                    .map_or(Val::Dyn, Val::Str),
                _ => Val::Dyn,
            }),
            _ => vec![Val::Dyn],
        }
    }

    fn subscript(&self, node: Node, depth: usize) -> Vec<Val> {
        let (Some(value), Some(index)) = (
            node.child_by_field_name("value"),
            node.child_by_field_name("subscript"),
        ) else {
            return vec![Val::Dyn];
        };
        let modules = self
            .eval_at(value, depth)
            .iter()
            .any(|v| matches!(v, Val::Name(n) if n == "sys.modules"));
        if !modules {
            return vec![Val::Dyn];
        }
        self.eval_at(index, depth)
            .into_iter()
            .map(|v| match v {
                Val::Str(m) => Val::Name(m),
                _ => Val::Dyn,
            })
            .collect()
    }

    fn call(&self, node: Node, depth: usize) -> Vec<Val> {
        let Some(function) = node.child_by_field_name("function") else {
            return vec![Val::Dyn];
        };
        let args: Vec<Node> = match node.child_by_field_name("arguments") {
            Some(list) => {
                let mut cursor = list.walk();
                list.named_children(&mut cursor)
                    .filter(|c| c.kind() != "keyword_argument" && c.kind() != "comment")
                    .collect()
            }
            None => Vec::new(),
        };
        let arg = |i: usize| -> Vec<Val> {
            args.get(i)
                .map_or_else(|| vec![Val::Dyn], |n| self.eval_at(*n, depth))
        };
        let mut out = Vec::new();
        if function.kind() == "attribute" {
            if let (Some(object), Some(attr)) = (
                function.child_by_field_name("object"),
                function.child_by_field_name("attribute"),
            ) {
                let attr = self.text(attr);
                for v in self.eval_at(object, depth) {
                    out.extend(method(&v, attr, args.len(), &arg));
                }
            }
        }
        for callee in self.eval_at(function, depth) {
            let Val::Name(name) = callee else { continue };
            let name = name.strip_prefix("builtins.").unwrap_or(&name);
            match name {
                "__import__" | "importlib.import_module" => out.extend(
                    arg(0)
                        .into_iter()
                        .map(|v| v.string().map_or(Val::Dyn, Val::Name)),
                ),
                "getattr" => {
                    for object in arg(0) {
                        for attr in arg(1) {
                            out.push(match (&object, attr) {
                                (Val::Name(q), Val::Str(a)) => Val::Name(format!("{q}.{a}")),
                                _ => Val::Dyn,
                            });
                        }
                    }
                }
                "pathlib.Path"
                | "pathlib.PurePath"
                | "pathlib.PosixPath"
                | "pathlib.PurePosixPath" => {
                    let mut path = Some(String::from(if args.is_empty() { "." } else { "" }));
                    for i in 0..args.len() {
                        let part = match arg(i).as_slice() {
                            [v] => v.path(),
                            _ => None,
                        };
                        path = match (path, part) {
                            (Some(p), Some(x)) if p.is_empty() => Some(x),
                            (Some(p), Some(x)) => Some(join(&p, &x)),
                            _ => None,
                        };
                    }
                    out.push(Val::Path(path));
                }
                "os.path.join" | "posixpath.join" => {
                    let parts: Option<Vec<String>> = (0..args.len())
                        .map(|i| match arg(i).as_slice() {
                            [v] => v.path(),
                            _ => None,
                        })
                        .collect();
                    out.push(match parts {
                        Some(p) if !p.is_empty() => {
                            Val::Str(p.iter().skip(1).fold(p[0].clone(), |acc, x| join(&acc, x)))
                        }
                        _ => Val::Dyn,
                    });
                }
                "str" | "os.fspath" | "os.path.expanduser" | "os.path.normpath"
                | "os.path.abspath" | "os.path.realpath" | "list" | "tuple" => {
                    out.extend(arg(0).into_iter().map(|v| match v {
                        Val::Path(Some(p)) => Val::Str(p),
                        other => other,
                    }))
                }
                "shlex.split" => out.extend(arg(0).into_iter().map(|v| match v {
                    Val::Str(s) => Val::List(split_words(&s).into_iter().map(Val::Str).collect()),
                    _ => Val::Dyn,
                })),
                "shlex.quote" | "pipes.quote" => out.extend(arg(0).into_iter().map(|v| match v {
                    Val::Str(s) => Val::Str(quote(&s)),
                    _ => Val::Dyn,
                })),
                _ => {}
            }
        }
        if out.is_empty() {
            out.push(Val::Dyn);
        }
        out
    }

    /// A string literal's value: prefixes (`r`, `b`, `f`, `u`) honoured, escapes decoded; an
    /// f-string with a replacement field is only known at run time.
    fn string(&self, node: Node) -> Val {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        let Some(start) = children.iter().find(|c| c.kind() == "string_start") else {
            return Val::Dyn;
        };
        let prefix = self.text(*start).to_ascii_lowercase();
        let raw = prefix.contains('r');
        let fstring = prefix.contains('f') || prefix.contains('t');
        let mut out = String::new();
        for child in &children {
            match child.kind() {
                "interpolation" => {
                    // `f"rm -rf {target}"` with a known `target`: its value, unformatted.
                    let Some(expression) = child.named_child(0) else {
                        return Val::Dyn;
                    };
                    let formatted = child
                        .child_by_field_name("format_specifier")
                        .or_else(|| child.child_by_field_name("type_conversion"));
                    match (self.eval(expression).as_slice(), formatted) {
                        ([value], None) => match value.string() {
                            Some(v) => out.push_str(&v),
                            None => return Val::Dyn,
                        },
                        _ => return Val::Dyn,
                    }
                }
                "string_content" => {
                    let text = self.text(*child);
                    let text = if raw {
                        text.to_string()
                    } else {
                        unescape(text)
                    };
                    if fstring {
                        out.push_str(&text.replace("{{", "{").replace("}}", "}"));
                    } else {
                        out.push_str(&text);
                    }
                }
                _ => {}
            }
        }
        Val::Str(out)
    }
}

/// `"rm -rf %s" % "/var"`: `%s`, `%r`, `%d` and `%i` filled in order, `%%` a percent sign;
/// `None` for any other conversion, a mapping key or a count that does not match.
fn percent_format(format: &str, args: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '%' => out.push('%'),
            's' | 'r' | 'd' | 'i' => out.push_str(args.next()?),
            _ => return None,
        }
    }
    args.next().is_none().then_some(out)
}

/// `"mkfs.ext4 -F {}".format("/dev/sdb")`: `{}` and `{N}` filled from positional arguments,
/// `{{`/`}}` braces; `None` for a named or formatted field.
fn brace_format(format: &str, args: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let field: String = chars.by_ref().take_while(|c| *c != '}').collect();
                let index = if field.is_empty() {
                    next += 1;
                    next - 1
                } else {
                    field.parse::<usize>().ok()?
                };
                out.push_str(args.get(index)?);
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// A method call on a value: `" ".join([...])`, `"a b".split()`, `Path(p).resolve()`.
fn method(v: &Val, attr: &str, nargs: usize, arg: &dyn Fn(usize) -> Vec<Val>) -> Vec<Val> {
    match (v, attr) {
        (Val::Str(sep), "join") => arg(0)
            .into_iter()
            .map(|l| match l {
                Val::List(items) => items
                    .iter()
                    .map(Val::string)
                    .collect::<Option<Vec<String>>>()
                    .map_or(Val::Dyn, |parts| Val::Str(parts.join(sep))),
                _ => Val::Dyn,
            })
            .collect(),
        (Val::Str(s), "split") if nargs == 0 => vec![Val::List(
            s.split_whitespace().map(|w| Val::Str(w.into())).collect(),
        )],
        (Val::Str(s), "strip") if nargs == 0 => vec![Val::Str(s.trim().into())],
        (Val::Str(format), "format") => {
            let args: Option<Vec<String>> = (0..nargs)
                .map(|i| match arg(i).as_slice() {
                    [v] => v.string(),
                    _ => None,
                })
                .collect();
            vec![args
                .and_then(|args| brace_format(format, &args))
                .map_or(Val::Dyn, Val::Str)]
        }
        (Val::Path(p), "expanduser" | "resolve" | "absolute") => vec![Val::Path(p.clone())],
        (Val::Path(p), "joinpath") => {
            let mut path = p.clone();
            for i in 0..nargs {
                let part = match arg(i).as_slice() {
                    [v] => v.path(),
                    _ => None,
                };
                path = match (path, part) {
                    (Some(a), Some(b)) => Some(join(&a, &b)),
                    _ => None,
                };
            }
            vec![Val::Path(path)]
        }
        _ => Vec::new(),
    }
}

/// Every combination of two candidate lists through `f`, capped.
fn combine(a: &[Val], b: &[Val], f: impl Fn(&Val, &Val) -> Val) -> Vec<Val> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            if out.len() >= MAX_CANDIDATES {
                out.push(Val::Dyn);
                return out;
            }
            out.push(f(x, y));
        }
    }
    out
}

fn cap(mut vals: Vec<Val>) -> Vec<Val> {
    vals.dedup();
    if vals.len() > MAX_CANDIDATES {
        vals.truncate(MAX_CANDIDATES);
        vals.push(Val::Dyn);
    }
    vals
}
