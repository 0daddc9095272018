//! The lint's call check: every function a module calls must be a builtin of this build
//! (regorus's table, with the features Cargo.toml enables), `print`, or a function some module
//! defines (by its own package, an import alias or its `data.` path). Found by walking every
//! expression of every rule, so a call on a branch no input takes is refused at load too: a
//! missing builtin otherwise surfaces only when its branch runs (or, located nowhere, when the
//! RVM compiles).

use super::lint::{compact, is_plain_path, LintFinding};
use regorus::unstable::{Expr, Literal, Module, Query, Ref, Rule, RuleHead, BUILTINS};
use std::collections::BTreeSet;

/// A finding for every call of an unknown function, in module and rule order.
pub(crate) fn findings(modules: &[Ref<Module>]) -> Vec<LintFinding> {
    let functions = defined_functions(modules);
    let mut found = Vec::new();
    for module in modules {
        let package = compact(module.package.refr.span().text());
        let aliases = import_aliases(module);
        let mut calls = Vec::new();
        for rule in &module.policy {
            rule_calls(rule, &mut calls);
        }
        for (name, location) in calls {
            if !known(&name, &package, &aliases, &functions) {
                found.push(LintFinding {
                    reason_id: "policy.compile",
                    location,
                    message: format!(
                        "could not find function {name}: not a builtin of this build nor a function of the policy (every command would be denied once this call runs)"
                    ),
                });
            }
        }
    }
    found
}

/// `data.<package>.<name>` of every function rule (and default function) of `modules`.
fn defined_functions(modules: &[Ref<Module>]) -> BTreeSet<String> {
    let mut functions = BTreeSet::new();
    for module in modules {
        let package = compact(module.package.refr.span().text());
        for rule in &module.policy {
            let name = match &**rule {
                Rule::Spec {
                    head: RuleHead::Func { refr, .. },
                    ..
                } => refr.span().text(),
                Rule::Default { refr, args, .. } if !args.is_empty() => refr.span().text(),
                _ => continue,
            };
            functions.insert(format!("data.{package}.{}", compact(name)));
        }
    }
    functions
}

/// `(alias, path)` of each `import data.…` of `module` (`import data.lib` is `lib`).
fn import_aliases(module: &Module) -> Vec<(String, String)> {
    module
        .imports
        .iter()
        .map(|import| {
            let path = compact(import.refr.span().text());
            let alias = match &import.r#as {
                Some(alias) => alias.text().to_string(),
                None => path.rsplit('.').next().unwrap_or_default().to_string(),
            };
            (alias, path)
        })
        .collect()
}

fn known(
    name: &str,
    package: &str,
    aliases: &[(String, String)],
    functions: &BTreeSet<String>,
) -> bool {
    if name == "print" || BUILTINS.contains_key(name) {
        return true;
    }
    let (first, rest) = name.split_once('.').unwrap_or((name, ""));
    let joined = |base: &str| match rest {
        "" => base.to_string(),
        rest => format!("{base}.{rest}"),
    };
    if first == "data" {
        return functions.contains(name);
    }
    if let Some((_, path)) = aliases.iter().find(|(alias, _)| alias == first) {
        // Only `data.` imports name functions; `input.…` cannot, and is not judged here.
        return !path.starts_with("data.") || functions.contains(&joined(path));
    }
    functions.contains(&format!("data.{package}.{name}"))
}

fn rule_calls(rule: &Rule, calls: &mut Vec<(String, String)>) {
    match rule {
        Rule::Spec { head, bodies, .. } => {
            match head {
                RuleHead::Compr { refr, assign, .. } => {
                    expr(refr, calls);
                    if let Some(assign) = assign {
                        expr(&assign.value, calls);
                    }
                }
                RuleHead::Set { refr, key, .. } => {
                    expr(refr, calls);
                    if let Some(key) = key {
                        expr(key, calls);
                    }
                }
                RuleHead::Func { args, assign, .. } => {
                    for arg in args {
                        expr(arg, calls);
                    }
                    if let Some(assign) = assign {
                        expr(&assign.value, calls);
                    }
                }
            }
            for body in bodies {
                if let Some(assign) = &body.assign {
                    expr(&assign.value, calls);
                }
                query(&body.query, calls);
            }
        }
        Rule::Default { value, .. } => expr(value, calls),
    }
}

fn query(q: &Query, calls: &mut Vec<(String, String)>) {
    for stmt in &q.stmts {
        match &stmt.literal {
            Literal::SomeVars { .. } => {}
            Literal::SomeIn {
                key,
                value,
                collection,
                ..
            } => {
                if let Some(key) = key {
                    expr(key, calls);
                }
                expr(value, calls);
                expr(collection, calls);
            }
            Literal::Expr { expr: e, .. } | Literal::NotExpr { expr: e, .. } => expr(e, calls),
            Literal::Every {
                domain,
                query: inner,
                ..
            } => {
                expr(domain, calls);
                query(inner, calls);
            }
        }
        for with in &stmt.with_mods {
            expr(&with.r#as, calls);
        }
    }
}

fn expr(e: &Expr, calls: &mut Vec<(String, String)>) {
    match e {
        Expr::Call {
            span, fcn, params, ..
        } => {
            let name = compact(fcn.span().text());
            if is_plain_path(&name) {
                let location = format!("{}:{}", span.source.get_path(), span.line);
                calls.push((name, location));
            } else {
                expr(fcn, calls);
            }
            for p in params {
                expr(p, calls);
            }
        }
        Expr::Array { items, .. } | Expr::Set { items, .. } => {
            for item in items {
                expr(item, calls);
            }
        }
        Expr::Object { fields, .. } => {
            for (_, key, value) in fields {
                expr(key, calls);
                expr(value, calls);
            }
        }
        Expr::ArrayCompr { term, query: q, .. } | Expr::SetCompr { term, query: q, .. } => {
            expr(term, calls);
            query(q, calls);
        }
        Expr::ObjectCompr {
            key,
            value,
            query: q,
            ..
        } => {
            expr(key, calls);
            expr(value, calls);
            query(q, calls);
        }
        Expr::UnaryExpr { expr: inner, .. } => expr(inner, calls),
        Expr::RefDot { refr, .. } => expr(refr, calls),
        Expr::RefBrack { refr, index, .. } => {
            expr(refr, calls);
            expr(index, calls);
        }
        Expr::BinExpr { lhs, rhs, .. }
        | Expr::BoolExpr { lhs, rhs, .. }
        | Expr::ArithExpr { lhs, rhs, .. }
        | Expr::AssignExpr { lhs, rhs, .. } => {
            expr(lhs, calls);
            expr(rhs, calls);
        }
        Expr::Membership {
            key,
            value,
            collection,
            ..
        } => {
            if let Some(key) = key {
                expr(key, calls);
            }
            expr(value, calls);
            expr(collection, calls);
        }
        // Scalars and variables hold no call.
        _ => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn unknown(files: &[(&str, &str)]) -> Vec<String> {
        let mut engine = regorus::Engine::new();
        for (name, text) in files {
            engine
                .add_policy((*name).to_string(), (*text).to_string())
                .unwrap();
        }
        findings(engine.get_modules())
            .into_iter()
            .map(|f| f.location)
            .collect()
    }

    #[test]
    fn calls_table() {
        let head = "package honey\nimport rego.v1\nimport data.lib\nimport data.lib as l2\n";
        // (rules after the header, the lines of the calls found unknown)
        let cases: &[(&str, &[u32])] = &[
            ("allow if count(input.x) > 0\n", &[]),
            ("allow if {\n input.never\n http.send({})\n}\n", &[7]),
            (
                "allow if { input.never; crypto.sha256(\"a\") == \"b\" }\n",
                &[5],
            ),
            ("f(x) := x\nallow if f(1) == 1\n", &[]),
            ("allow if g(1)\n", &[5]),
            ("allow if lib.h(1)\n", &[]),
            ("allow if l2.h(1)\n", &[]),
            ("allow if lib.nope(1)\n", &[5]),
            ("allow if data.lib.h(1)\n", &[]),
            ("allow if [x | some x in input.y; io.jwt.decode(x)]\n", &[5]),
            (
                "allow if every x in input.y { x == 1 }\nr := {k: upper(k) | some k in input.z}\n",
                &[],
            ),
            ("default allow := false\nallow if print(\"x\")\n", &[]),
        ];
        let lib = "package lib\nimport rego.v1\nh(x) := x\n";
        for (rules, lines) in cases {
            let got = unknown(&[("m.rego", &format!("{head}{rules}")), ("lib.rego", lib)]);
            let want: Vec<String> = lines.iter().map(|l| format!("m.rego:{l}")).collect();
            assert_eq!(got, want, "{rules}");
        }
    }
}
