//! Python bindings, collected once per program: imports (`import x as y`, `from x import y`,
//! `*`), assignments (chained, unpacked, walrus, loops), parameters and the arguments the
//! program's own calls pass them. Flow-insensitive: a name may be any value ever bound to it.

use super::pystr::compact;
use super::pyvalue::{Bind, Scope, MAX_CANDIDATES};
use tree_sitter::Node;

impl<'t> Scope<'t> {
    /// Records every binding in the tree.
    pub fn collect(&mut self, root: Node<'t>) {
        let mut seen = 0;
        let mut calls = Vec::new();
        for n in preorder(root) {
            seen += 1;
            if seen > self.max_nodes {
                return;
            }
            match n.kind() {
                "call" => calls.push(n),
                "import_statement" => self.import(n),
                "import_from_statement" => self.import_from(n),
                "assignment" => self.assignment(n),
                "augmented_assignment" => {
                    if let Some(left) = n.child_by_field_name("left") {
                        self.targets(left, None);
                    }
                }
                "named_expression" => {
                    if let (Some(name), Some(value)) = (
                        n.child_by_field_name("name"),
                        n.child_by_field_name("value"),
                    ) {
                        let name = self.text(name);
                        self.bind(name, Bind::Expr(value));
                    }
                }
                "for_statement" | "for_in_clause" => {
                    if let (Some(left), Some(right)) = (
                        n.child_by_field_name("left"),
                        n.child_by_field_name("right"),
                    ) {
                        match left.kind() {
                            "identifier" => {
                                let name = self.text(left);
                                self.bind(name, Bind::Element(right));
                            }
                            _ => self.targets(left, None),
                        }
                    }
                }
                "parameters" | "lambda_parameters" | "as_pattern_target" | "global_statement"
                | "nonlocal_statement" => self.targets(n, None),
                "function_definition" | "class_definition" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        let name = self.text(name);
                        self.bind(name, Bind::Dyn);
                        if let Some(params) = n.child_by_field_name("parameters") {
                            self.function(name, params);
                        }
                    }
                }
                _ => {}
            }
        }
        for call in calls {
            self.call_site(call);
        }
    }

    /// Records the parameters of function (or lambda) `name`.
    fn function(&mut self, name: &str, params: Node<'t>) {
        let mut out = Vec::new();
        let mut positional = true;
        let mut cursor = params.walk();
        for p in params.named_children(&mut cursor) {
            let ident = match p.kind() {
                "identifier" => Some(p),
                "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
                "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
                "list_splat_pattern" | "dictionary_splat_pattern" | "keyword_separator" => {
                    positional = false;
                    None
                }
                _ => None,
            };
            if let Some(ident) = ident {
                out.push((self.text(ident).to_string(), positional));
            }
        }
        if self.functions.len() < 4096 {
            self.functions.insert(name.to_string(), out);
        }
    }

    /// `f(x, y=z)` of a function defined in the program: its parameters may be these arguments
    /// (as well as anything else: parameters keep their run-time binding).
    fn call_site(&mut self, call: Node<'t>) {
        let Some(function) = call.child_by_field_name("function") else {
            return;
        };
        let (name, method) = match function.kind() {
            "identifier" => (self.text(function), false),
            "attribute" => match function.child_by_field_name("attribute") {
                Some(a) => (self.text(a), true),
                None => return,
            },
            _ => return,
        };
        let Some(params) = self.functions.get(name).cloned() else {
            return;
        };
        let skip = usize::from(
            method
                && params
                    .first()
                    .is_some_and(|(p, _)| p == "self" || p == "cls"),
        );
        let positional: Vec<&String> = params
            .iter()
            .skip(skip)
            .filter(|(_, pos)| *pos)
            .map(|(p, _)| p)
            .collect();
        let Some(list) = call.child_by_field_name("arguments") else {
            return;
        };
        let mut at = 0;
        let mut cursor = list.walk();
        let args: Vec<Node<'t>> = list.named_children(&mut cursor).collect();
        for arg in args {
            match arg.kind() {
                "keyword_argument" => {
                    if let (Some(k), Some(v)) = (
                        arg.child_by_field_name("name"),
                        arg.child_by_field_name("value"),
                    ) {
                        let k = self.text(k);
                        if params.iter().any(|(p, _)| p == k) {
                            self.bind(k, Bind::Expr(v));
                        }
                    }
                }
                "list_splat" | "dictionary_splat" | "comment" => {}
                _ => {
                    if let Some(p) = positional.get(at) {
                        let p = p.to_string();
                        self.bind(&p, Bind::Expr(arg));
                    }
                    at += 1;
                }
            }
        }
    }

    fn import(&mut self, node: Node<'t>) {
        let mut cursor = node.walk();
        for name in node.children_by_field_name("name", &mut cursor) {
            match name.kind() {
                "dotted_name" => {
                    let full = self.text(name);
                    let first = full.split('.').next().unwrap_or(full).trim();
                    self.bind_import(first, first.to_string());
                }
                "aliased_import" => {
                    if let (Some(n), Some(alias)) = (
                        name.child_by_field_name("name"),
                        name.child_by_field_name("alias"),
                    ) {
                        let full = compact(self.text(n));
                        let alias = self.text(alias);
                        self.bind_import(alias, full);
                    }
                }
                _ => {}
            }
        }
    }

    fn import_from(&mut self, node: Node<'t>) {
        let module = node
            .child_by_field_name("module_name")
            .filter(|m| m.kind() == "dotted_name")
            .map(|m| compact(self.text(m)));
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
        if children.iter().any(|c| c.kind() == "wildcard_import") {
            if let Some(m) = &module {
                if !self.wildcards.contains(m) && self.wildcards.len() < MAX_CANDIDATES {
                    self.wildcards.push(m.clone());
                }
            }
        }
        let mut cursor = node.walk();
        for name in node.children_by_field_name("name", &mut cursor) {
            let (target, local) = match name.kind() {
                "dotted_name" => (compact(self.text(name)), compact(self.text(name))),
                "aliased_import" => match (
                    name.child_by_field_name("name"),
                    name.child_by_field_name("alias"),
                ) {
                    (Some(n), Some(a)) => (compact(self.text(n)), self.text(a).to_string()),
                    _ => continue,
                },
                _ => continue,
            };
            match &module {
                Some(m) => self.bind_import(&local, format!("{m}.{target}")),
                None => self.bind(&local, Bind::Dyn),
            }
        }
    }

    fn assignment(&mut self, node: Node<'t>) {
        let Some(left) = node.child_by_field_name("left") else {
            return;
        };
        // `a = b = value`: every target gets the last value.
        let mut right = node.child_by_field_name("right");
        while let Some(r) = right.filter(|r| r.kind() == "assignment") {
            right = r.child_by_field_name("right");
        }
        if let (Some(value), "identifier") = (right, left.kind()) {
            if value.kind() == "lambda" {
                if let Some(params) = value.child_by_field_name("parameters") {
                    let name = self.text(left);
                    self.function(name, params);
                }
            }
        }
        match right {
            Some(value) => self.targets(left, Some(value)),
            None if node.child_by_field_name("type").is_some() => {}
            None => self.targets(left, None),
        }
    }

    /// Binds the names in an assignment target: an identifier to `value`, tuple and list
    /// patterns element-wise when the value is a literal of the same length, anything else
    /// (and every identifier below a parameter list) to a run-time value.
    fn targets(&mut self, target: Node<'t>, value: Option<Node<'t>>) {
        match (target.kind(), value) {
            ("identifier", Some(v)) => {
                let name = self.text(target);
                self.bind(name, Bind::Expr(v));
            }
            ("identifier", None) => {
                let name = self.text(target);
                self.bind(name, Bind::Dyn);
            }
            ("pattern_list" | "tuple_pattern" | "list_pattern", Some(v))
                if matches!(v.kind(), "expression_list" | "tuple" | "list")
                    && v.named_child_count() == target.named_child_count() =>
            {
                let mut c1 = target.walk();
                let mut c2 = v.walk();
                let pairs: Vec<(Node<'t>, Node<'t>)> = target
                    .named_children(&mut c1)
                    .zip(v.named_children(&mut c2))
                    .collect();
                for (t, v) in pairs {
                    self.targets(t, Some(v));
                }
            }
            ("attribute" | "subscript", _) => {}
            _ => {
                let mut cursor = target.walk();
                let children: Vec<Node<'t>> = target.named_children(&mut cursor).collect();
                for child in children {
                    if matches!(child.kind(), "attribute" | "subscript") {
                        continue;
                    }
                    // Default values in a parameter list are expressions, not names bound.
                    if child.kind() == "default_parameter"
                        || child.kind() == "typed_default_parameter"
                    {
                        if let Some(n) = child.child_by_field_name("name") {
                            self.targets(n, None);
                        }
                        continue;
                    }
                    self.targets(child, None);
                }
            }
        }
    }

    /// The modules an import statement loads (`import a.b, c as d` → `a.b`, `c`).
    pub fn imported(&self, node: Node) -> Vec<String> {
        let mut out = Vec::new();
        if node.kind() == "import_from_statement" {
            if let Some(m) = node
                .child_by_field_name("module_name")
                .filter(|m| m.kind() == "dotted_name")
            {
                out.push(compact(self.text(m)));
            }
            return out;
        }
        let mut cursor = node.walk();
        for name in node.children_by_field_name("name", &mut cursor) {
            let dotted = match name.kind() {
                "aliased_import" => name.child_by_field_name("name"),
                _ => Some(name),
            };
            if let Some(d) = dotted {
                out.push(compact(self.text(d)));
            }
        }
        out
    }
}

/// Every node of the tree below `root` (itself included), parents first, without recursion or
/// per-node allocation.
pub fn preorder<'t>(root: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut cursor = root.walk();
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let node = cursor.node();
        if !cursor.goto_first_child() {
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    done = true;
                    break;
                }
            }
        }
        Some(node)
    })
}
