//! Python programs through tree-sitter-python (current syntax: f-strings, walrus, `match`, type
//! hints). Names are resolved through `import x as y`, `from x import y`, `__import__`,
//! `importlib`, `getattr` and plain assignments; shell-outs, deletions, device writes, dynamic
//! code and sockets become findings, and their literal commands go back to the shell analyzer.

use super::pybind::preorder;
use super::pyvalue::{Scope, Val};
use super::{Finding, Output, Run};
use crate::ir::{Limit, Limits, ParseBudget};
use crate::parse::split_words;
use tree_sitter::{Node, Parser};

/// How deep `exec("…")` of literal Python is followed.
const MAX_EXEC_DEPTH: usize = 4;

/// Analyses Python source `text`.
pub fn analyse(text: &str, limits: &Limits) -> Output {
    let mut out = Output::default();
    let mut budget = ParseBudget::new(limits);
    source(text, limits, &mut budget, 0, &mut out);
    out
}

fn source(text: &str, limits: &Limits, budget: &mut ParseBudget, depth: usize, out: &mut Output) {
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        out.parse_incomplete = true;
        return;
    }
    let mut cancel = |_: &tree_sitter::ParseState| budget.step();
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut cancel);
    let bytes = text.as_bytes();
    let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
    let parsed = parser.parse_with_options(&mut read, None, Some(options));
    let Some(tree) = parsed else {
        match budget.crossed() {
            Limit::Steps { .. } => out.over_steps = true,
            _ => out.timed_out = true,
        }
        return;
    };
    let root = tree.root_node();
    out.parse_incomplete |= root.has_error();
    let mut scope = Scope::new(text, limits.max_nodes);
    scope.collect(root);
    let mut walker = Walker {
        scope: &scope,
        out,
        exec: Vec::new(),
        nodes: 0,
        max_nodes: limits.max_nodes,
    };
    walker.walk(root);
    walker.out.exhausted |= scope.exhausted();
    let exec = std::mem::take(&mut walker.exec);
    for code in exec {
        if depth < MAX_EXEC_DEPTH {
            source(&code, limits, budget, depth + 1, out);
        }
    }
}

struct Walker<'a, 's, 'o> {
    scope: &'a Scope<'s>,
    out: &'o mut Output,
    /// Literal Python handed to `exec`/`eval`/`compile`, analysed after this tree.
    exec: Vec<String>,
    nodes: usize,
    max_nodes: usize,
}

/// Calls whose first argument is a shell command string.
const SHELL_STRING_CALLS: &[&str] = &[
    "os.system",
    "os.popen",
    "os.popen2",
    "os.popen3",
    "os.popen4",
    "commands.getoutput",
    "commands.getstatusoutput",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "platform.popen",
    "popen2.popen2",
    "popen2.popen3",
    "popen2.popen4",
    "asyncio.create_subprocess_shell",
    "pexpect.run",
    "pexpect.spawn",
    "pexpect.popen_spawn.PopenSpawn",
];

/// `subprocess` calls: a string is a shell command, a list an argv (a shell command with
/// `shell=True`).
const SUBPROCESS_CALLS: &[&str] = &[
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
];

const DELETE_CALLS: &[(&str, bool)] = &[
    ("shutil.rmtree", true),
    ("os.remove", false),
    ("os.unlink", false),
    ("os.rmdir", false),
    ("os.removedirs", false),
    ("pathlib.Path.unlink", false),
    ("pathlib.Path.rmdir", false),
];

const OPEN_CALLS: &[&str] = &["open", "io.open", "codecs.open", "os.fdopen"];

const SOCKET_CALLS: &[&str] = &[
    "socket.socket",
    "socket.create_connection",
    "socket.fromfd",
    "socket.SocketType",
    "asyncio.open_connection",
    "telnetlib.Telnet",
];

const EXEC_CALLS: &[&str] = &["eval", "exec", "compile"];

impl Walker<'_, '_, '_> {
    fn walk(&mut self, node: Node) {
        for n in preorder(node) {
            self.nodes += 1;
            if self.nodes > self.max_nodes {
                self.out.exhausted = true;
                return;
            }
            match n.kind() {
                "call" => self.call(n),
                "import_statement" | "import_from_statement" => self.import(n),
                _ => {}
            }
        }
    }

    fn import(&mut self, node: Node) {
        for module in self.scope.imported(node) {
            self.out.find(Finding::Import(module));
        }
    }

    fn call(&mut self, node: Node) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let args = Args::of(node, self.scope);
        // Methods on values (`Path("/x").unlink()`), then every name the callee may be.
        if function.kind() == "attribute" {
            self.method(function, &args);
        }
        let mut names: Vec<String> = self
            .scope
            .eval(function)
            .into_iter()
            .filter_map(|v| match v {
                Val::Name(q) => Some(normalise(&q)),
                _ => None,
            })
            .collect();
        // Nothing resolved (a rebound name, an exhausted budget): the name as written stands,
        // as in the reference engine (`os.system` after `os = wrap(os)`).
        if names.is_empty() {
            names.extend(dotted(self.scope, function).map(|w| normalise(&w)));
        }
        names.dedup();
        for name in names {
            self.named_call(&name, &args);
        }
    }

    fn method(&mut self, function: Node, args: &Args) {
        let (Some(object), Some(attr)) = (
            function.child_by_field_name("object"),
            function.child_by_field_name("attribute"),
        ) else {
            return;
        };
        let attr = self.scope.text(attr);
        for v in self.scope.eval(object) {
            let Val::Path(path) = v else { continue };
            let call = format!("pathlib.Path.{attr}");
            match attr {
                "unlink" | "rmdir" => self.out.find(Finding::Delete {
                    call,
                    path,
                    recursive: false,
                }),
                "write_bytes" | "write_text" => {
                    if let Some(path) = path {
                        self.out.find(Finding::Write { call, path });
                    }
                }
                "open" => {
                    let mode = args.get(self.scope, 0, "mode");
                    if let Some(path) = path.filter(|_| writes(&mode)) {
                        self.out.find(Finding::Write { call, path });
                    }
                }
                _ => {}
            }
        }
    }

    fn named_call(&mut self, name: &str, args: &Args) {
        let scope = self.scope;
        if SHELL_STRING_CALLS.contains(&name) {
            let command = args.get(scope, 0, "cmd");
            let command = if command.is_empty() {
                args.get(scope, 0, "command")
            } else {
                command
            };
            self.shell_out(name, command, true, false);
        } else if SUBPROCESS_CALLS.contains(&name) {
            let shell = args.keyword(scope, "shell");
            let shell_true = shell.iter().any(|v| !matches!(v, Val::Bool(false)));
            self.shell_out(name, args.get(scope, 0, "args"), shell_true, false);
        } else if name == "asyncio.create_subprocess_exec" || name == "os.posix_spawn" {
            self.exec_family(name, args);
        } else if let Some(suffix) = name
            .strip_prefix("os.exec")
            .or_else(|| name.strip_prefix("os.spawn"))
            .or_else(|| name.strip_prefix("os.posix_spawn"))
        {
            if suffix.chars().all(|c| "lvpe".contains(c)) {
                self.exec_family(name, args);
            }
        } else if name == "pty.spawn" {
            self.shell_out(name, args.get(scope, 0, "argv"), false, true);
        } else if let Some((_, recursive)) = DELETE_CALLS.iter().find(|(c, _)| *c == name) {
            for v in args.get(scope, 0, "path") {
                self.out.find(Finding::Delete {
                    call: name.to_string(),
                    path: v.path(),
                    recursive: *recursive,
                });
            }
        } else if OPEN_CALLS.contains(&name) {
            let mode = args.get(scope, 1, "mode");
            for v in args.get(scope, 0, "file") {
                if let Some(path) = v.path().filter(|_| writes(&mode)) {
                    self.out.find(Finding::Write {
                        call: name.to_string(),
                        path,
                    });
                }
            }
        } else if name == "os.open" {
            let flags = args.raw(scope, 1, "flags");
            let writing = flags.contains("O_WRONLY")
                || flags.contains("O_RDWR")
                || flags.contains("O_APPEND")
                || flags.contains("O_TRUNC");
            for v in args.get(scope, 0, "path") {
                if let Some(path) = v.path().filter(|_| writing) {
                    self.out.find(Finding::Write {
                        call: name.to_string(),
                        path,
                    });
                }
            }
        } else if EXEC_CALLS.contains(&name) {
            self.out.find(Finding::DynamicExec(name.to_string()));
            for v in args.get(scope, 0, "source") {
                if let Val::Str(code) = v {
                    self.exec.push(code);
                }
            }
        } else if matches!(name, "__import__" | "importlib.import_module") {
            for v in args.get(scope, 0, "name") {
                match v {
                    Val::Str(module) => self.out.find(Finding::Import(module)),
                    _ => self.out.find(Finding::DynamicExec(name.to_string())),
                }
            }
        } else if name == "getattr" {
            let attr = args.get(scope, 1, "name");
            let object = args.get(scope, 0, "object");
            let module = object.iter().any(|v| matches!(v, Val::Name(_)));
            if module && attr.iter().any(|v| !matches!(v, Val::Str(_))) {
                self.out.find(Finding::DynamicExec("getattr".into()));
            }
        } else if SOCKET_CALLS.contains(&name) {
            self.out.find(Finding::Socket(name.to_string()));
        } else if name == "os.dup2" {
            self.out.find(Finding::Dup2);
        }
    }

    /// A shell-out whose command is `values`: strings are shell commands (or a program name when
    /// `argv_only`, as for `pty.spawn`), lists are argv (or a shell command and its `$0…` with
    /// `shell=True`).
    fn shell_out(&mut self, call: &str, values: Vec<Val>, shell: bool, argv_only: bool) {
        if values.is_empty() {
            self.out.find(Finding::DynamicShell(call.to_string()));
        }
        for v in values {
            match v {
                Val::Str(text) if argv_only => self.argv(call, vec![Some(text)]),
                Val::Str(text) => self.shell_string(call, text, None),
                Val::List(items) if shell && !argv_only => {
                    let mut items = items.into_iter();
                    match items.next().and_then(|v| v.string()) {
                        Some(text) => {
                            let rest: Option<Vec<String>> = items.map(|v| v.string()).collect();
                            self.shell_string(call, text, rest)
                        }
                        None => self.out.find(Finding::DynamicShell(call.to_string())),
                    }
                }
                Val::List(items) => {
                    let words = items.into_iter().map(|v| v.string()).collect();
                    self.argv(call, words)
                }
                Val::Path(Some(p)) => self.argv(call, vec![Some(p)]),
                _ => self.out.find(Finding::DynamicShell(call.to_string())),
            }
        }
    }

    fn shell_string(&mut self, call: &str, text: String, positional: Option<Vec<String>>) {
        let argv = split_words(&text).into_iter().map(Some).collect();
        self.out.find(Finding::Spawn {
            call: call.to_string(),
            argv,
        });
        self.out.run(Run::Shell {
            call: call.to_string(),
            text,
            positional,
            fed: false,
        });
    }

    fn argv(&mut self, call: &str, words: Vec<Option<String>>) {
        if words.first().is_none_or(Option::is_none) {
            self.out.find(Finding::DynamicShell(call.to_string()));
            return;
        }
        self.out.find(Finding::Spawn {
            call: call.to_string(),
            argv: words.clone(),
        });
        self.out.run(Run::Argv {
            call: call.to_string(),
            words,
        });
    }

    /// `os.execl(path, arg0, a…)`, `os.execv(path, [arg0, a…])`, `os.spawnl(mode, path, …)`,
    /// `os.posix_spawn(path, argv, env)`, `asyncio.create_subprocess_exec(prog, a…)`: the program
    /// is `path` and its arguments follow `arg0`.
    fn exec_family(&mut self, name: &str, args: &Args) {
        let scope = self.scope;
        let spawn = name.starts_with("os.spawn");
        let at = usize::from(spawn);
        let suffix = name.rsplit('.').next().unwrap_or(name);
        let list_form = suffix.contains('v') || name.starts_with("os.posix_spawn");
        let with_env = suffix.ends_with('e') && !name.starts_with("os.posix_spawn");
        let paths = args.get(scope, at, "path");
        for path in paths {
            let mut words = vec![path.string()];
            if name == "asyncio.create_subprocess_exec" {
                words.extend(args.positional.iter().skip(1).map(|n| first(scope, *n)));
            } else if list_form {
                match args.get(scope, at + 1, "argv").into_iter().next() {
                    Some(Val::List(items)) => {
                        words.extend(items.into_iter().skip(1).map(|v| v.string()))
                    }
                    _ => words.push(None),
                }
            } else {
                let end = args.positional.len().saturating_sub(usize::from(with_env));
                let rest = args.positional.get(at + 2..end).unwrap_or_default();
                words.extend(rest.iter().map(|n| first(scope, *n)));
            }
            self.argv(name, words);
        }
    }
}

/// `a.b.c` as written, when the callee is a chain of names.
fn dotted(scope: &Scope, node: Node) -> Option<String> {
    match node.kind() {
        "identifier" => Some(scope.text(node).to_string()),
        "attribute" => {
            let object = dotted(scope, node.child_by_field_name("object")?)?;
            let attr = scope.text(node.child_by_field_name("attribute")?);
            Some(format!("{object}.{attr}"))
        }
        _ => None,
    }
}

/// The single static string an argument node has, if any.
fn first(scope: &Scope, node: Node) -> Option<String> {
    match scope.eval(node).as_slice() {
        [v] => v.string(),
        _ => None,
    }
}

/// `builtins.eval` → `eval`, `posix.system` → `os.system`, `Path` methods by class.
fn normalise(name: &str) -> String {
    let name = name.strip_prefix("builtins.").unwrap_or(name);
    let name = name.strip_prefix("__builtins__.").unwrap_or(name);
    if let Some(rest) = name.strip_prefix("posix.") {
        return format!("os.{rest}");
    }
    if let Some(rest) = name.strip_prefix("_posixsubprocess.") {
        return format!("subprocess.{rest}");
    }
    name.to_string()
}

/// True when an `open` mode may write: `w`, `a`, `x` or `+`, or a mode only known at run time.
fn writes(mode: &[Val]) -> bool {
    if mode.is_empty() {
        return false;
    }
    mode.iter().any(|m| match m {
        Val::Str(s) => s.contains(['w', 'a', 'x', '+']),
        _ => true,
    })
}

/// A call's arguments: positional nodes and keyword nodes by name.
struct Args<'t> {
    positional: Vec<Node<'t>>,
    keywords: Vec<(String, Node<'t>)>,
    /// A `*args` or `**kwargs` splat: any argument may be anything.
    splat: bool,
}

impl<'t> Args<'t> {
    fn of(call: Node<'t>, scope: &Scope) -> Self {
        let mut args = Args {
            positional: Vec::new(),
            keywords: Vec::new(),
            splat: false,
        };
        let Some(list) = call.child_by_field_name("arguments") else {
            return args;
        };
        let mut cursor = list.walk();
        for child in list.named_children(&mut cursor) {
            match child.kind() {
                "keyword_argument" => {
                    if let (Some(name), Some(value)) = (
                        child.child_by_field_name("name"),
                        child.child_by_field_name("value"),
                    ) {
                        args.keywords.push((scope.text(name).to_string(), value));
                    }
                }
                "list_splat" | "dictionary_splat" => args.splat = true,
                "comment" => {}
                _ => args.positional.push(child),
            }
        }
        args
    }

    /// The values of positional argument `at` or keyword `keyword`; empty when absent, a
    /// single `Dyn` when a splat may supply it.
    fn get(&self, scope: &Scope, at: usize, keyword: &str) -> Vec<Val> {
        if let Some(node) = self.positional.get(at) {
            return scope.eval(*node);
        }
        let kw = self.keyword(scope, keyword);
        if kw.is_empty() && self.splat {
            return vec![Val::Dyn];
        }
        kw
    }

    fn keyword(&self, scope: &Scope, keyword: &str) -> Vec<Val> {
        self.keywords
            .iter()
            .find(|(n, _)| n == keyword)
            .map(|(_, node)| scope.eval(*node))
            .unwrap_or_default()
    }

    /// The source text of positional `at` or keyword `keyword` (for flag expressions).
    fn raw(&self, scope: &Scope, at: usize, keyword: &str) -> String {
        let node = self.positional.get(at).copied().or_else(|| {
            self.keywords
                .iter()
                .find(|(n, _)| n == keyword)
                .map(|(_, n)| *n)
        });
        node.map(|n| scope.text(n).to_string()).unwrap_or_default()
    }
}
