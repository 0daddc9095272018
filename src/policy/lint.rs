//! The load-time lint, run by the one loader on the parsed modules before anything compiles:
//! what OPA refuses and regorus accepts (or decides by file order). Two `default` rules for one
//! name; complete rules of one name with different constant values that can both be defined.
//!
//! Caught: two `default` rules for the same rule or function (OPA: `multiple default rules`, at
//! load); two complete definitions of one plain rule path (`allow`, `a.b`) whose values are
//! scalar constants (`true`, `"deny"`, `1`, `null`, or no value: `true`), that differ, where at
//! least one of the two has no condition (no body, or only `if true`). OPA reports those at the
//! first evaluation that defines both (`complete rules must not produce multiple outputs`);
//! guarded-sh refuses them at load, because that evaluation is some command in production.
//! Not caught here: two conditional definitions (whether both can hold is not decided
//! statically), values that are not scalar constants (`msg`, `sprintf(…)`, arrays, objects),
//! rules with `else`, paths with brackets (`p["k"]`), and partial sets and functions (a name
//! defined as two kinds is refused by regorus itself, `policy.conflict`).
//! Also every call of a function that is neither a builtin of this build nor the policy's own
//! (`lint_calls`), wherever it is: `policy.compile`, with its FILE:LINE.

use super::error::PolicyError;
use regorus::unstable::{Expr, Literal, Module, Query, Ref, Rule, RuleHead};
use regorus::Value;

/// Part of the compiled-policy cache key: a program stored by a binary whose load checks were
/// other than these is never used (it may have been stored without them). Bump it whenever
/// what this lint refuses changes.
pub const VERSION: &str = "lint-2";

/// One problem the lint found: a reason id, `FILE:LINE` and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintFinding {
    pub reason_id: &'static str,
    pub location: String,
    pub message: String,
}

/// Every finding in `modules`, in module and rule order.
pub fn findings(modules: &[Ref<Module>]) -> Vec<LintFinding> {
    let mut defaults: Vec<(String, String)> = Vec::new();
    let mut complete: Vec<Definition> = Vec::new();
    let mut found = Vec::new();
    for module in modules {
        let package = compact(module.package.refr.span().text());
        for rule in &module.policy {
            let location = {
                let span = rule.span();
                format!("{}:{}", span.source.get_path(), span.line)
            };
            match &**rule {
                Rule::Default { refr, args, .. } => {
                    let name = format!("data.{package}.{}", compact(refr.span().text()));
                    let name = match args.len() {
                        0 => name,
                        n => format!("{name}/{n}"),
                    };
                    if let Some((_, first)) = defaults.iter().find(|(n, _)| *n == name) {
                        found.push(LintFinding {
                            reason_id: "policy.duplicate_default",
                            location: location.clone(),
                            message: format!(
                                "multiple default rules for {name} (the other at {first}); OPA refuses this at load"
                            ),
                        });
                    } else {
                        defaults.push((name, location));
                    }
                }
                Rule::Spec { head, bodies, .. } => {
                    let Some(definition) = definition(&package, head, bodies, location) else {
                        continue;
                    };
                    if let Some(other) = complete.iter().find(|d| d.conflicts(&definition)) {
                        found.push(LintFinding {
                            reason_id: "policy.conflict",
                            location: definition.location.clone(),
                            message: format!(
                                "complete rule {} := {}{} conflicts with {} := {}{} at {}: both can be defined, and complete rules must not produce multiple outputs",
                                definition.path,
                                definition.value,
                                condition(definition.unconditional),
                                other.path,
                                other.value,
                                condition(other.unconditional),
                                other.location,
                            ),
                        });
                    }
                    complete.push(definition);
                }
            }
        }
    }
    found.extend(super::lint_calls::findings(modules));
    found
}

/// The loader's use: an error naming every finding, the first one first.
pub(crate) fn check(modules: &[Ref<Module>]) -> Result<(), PolicyError> {
    let findings = findings(modules);
    if findings.is_empty() {
        return Ok(());
    }
    Err(PolicyError::Lint { findings })
}

fn condition(unconditional: bool) -> &'static str {
    if unconditional {
        " (unconditional)"
    } else {
        " (conditional)"
    }
}

/// One complete rule definition with a constant value.
struct Definition {
    path: String,
    value: Value,
    unconditional: bool,
    location: String,
}

impl Definition {
    fn conflicts(&self, other: &Definition) -> bool {
        self.path == other.path
            && self.value != other.value
            && (self.unconditional || other.unconditional)
    }
}

fn definition(
    package: &str,
    head: &RuleHead,
    bodies: &[regorus::unstable::RuleBody],
    location: String,
) -> Option<Definition> {
    let RuleHead::Compr { refr, assign, .. } = head else {
        return None;
    };
    let path = compact(refr.span().text());
    if !is_plain_path(&path) || bodies.iter().any(|b| b.is_else || b.assign.is_some()) {
        return None;
    }
    let value = match assign {
        None => Value::Bool(true),
        Some(assign) => constant(&assign.value)?,
    };
    Some(Definition {
        path: format!("data.{package}.{path}"),
        value,
        unconditional: bodies.is_empty() || bodies.iter().any(|b| trivially_true(&b.query)),
        location,
    })
}

/// A scalar constant's value.
fn constant(expr: &Expr) -> Option<Value> {
    match expr {
        Expr::String { value, .. }
        | Expr::RawString { value, .. }
        | Expr::Number { value, .. }
        | Expr::Bool { value, .. }
        | Expr::Null { value, .. } => Some(value.clone()),
        _ => None,
    }
}

/// A body that always holds: no statement, or only `true`.
fn trivially_true(query: &Query) -> bool {
    query.stmts.iter().all(|stmt| {
        stmt.with_mods.is_empty()
            && matches!(&stmt.literal, Literal::Expr { expr, .. }
                if matches!(&**expr, Expr::Bool { value: Value::Bool(true), .. }))
    })
}

/// `allow`, `a.b_c`: identifiers joined by dots.
pub(super) fn is_plain_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// `text` without its whitespace: a rule path or package as written, spaces removed.
pub(super) fn compact(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn lint(files: &[(&str, &str)]) -> Vec<(&'static str, String)> {
        let mut engine = regorus::Engine::new();
        for (name, text) in files {
            engine
                .add_policy((*name).to_string(), (*text).to_string())
                .unwrap();
        }
        findings(engine.get_modules())
            .into_iter()
            .map(|f| (f.reason_id, f.location))
            .collect()
    }

    const HEAD: &str = "package honey\nimport rego.v1\n";

    #[test]
    fn findings_table() {
        // (rules after the header, expected (reason id, line) pairs)
        let cases: &[(&str, &[(&str, u32)])] = &[
            ("default allow := false\nallow if input.x\n", &[]),
            (
                "default allow := false\ndefault allow := true\n",
                &[("policy.duplicate_default", 4)],
            ),
            (
                "default f(_) := 1\ndefault f(_) := 2\n",
                &[("policy.duplicate_default", 4)],
            ),
            ("default f(_) := 1\ndefault f := 2\n", &[]),
            (
                "decision := \"allow\"\ndecision := \"deny\" if input.x\n",
                &[("policy.conflict", 4)],
            ),
            (
                "decision := \"allow\" if true\ndecision := \"deny\"\n",
                &[("policy.conflict", 4)],
            ),
            (
                "allow if input.x\nallow := false\n",
                &[("policy.conflict", 4)],
            ),
            // Both conditional: not decided statically.
            (
                "decision := \"allow\" if input.x\ndecision := \"deny\" if input.y\n",
                &[],
            ),
            // The same value twice is no conflict.
            (
                "decision := \"deny\"\ndecision := \"deny\" if input.y\n",
                &[],
            ),
            // Not constants, else chains, brackets: not checked.
            (
                "deny_reason := \"a\"\ndeny_reason := sprintf(\"%v\", [input.x]) if input.x\n",
                &[],
            ),
            (
                "decision := \"allow\"\ndecision := \"deny\" if input.x else := \"allow\"\n",
                &[],
            ),
            ("p[\"k\"] := 1\np[\"k\"] := 2 if input.x\n", &[]),
            ("a.b := 1\na.b := 2\n", &[("policy.conflict", 4)]),
        ];
        for (rules, expected) in cases {
            let got = lint(&[("m.rego", &format!("{HEAD}{rules}"))]);
            let want: Vec<(&str, String)> = expected
                .iter()
                .map(|(id, line)| (*id, format!("m.rego:{line}")))
                .collect();
            assert_eq!(got, want, "{rules}");
        }
    }

    #[test]
    fn across_files_and_packages() {
        let a = format!("{HEAD}default allow := false\n");
        let b = format!("{HEAD}default allow := true\n");
        assert_eq!(
            lint(&[("a.rego", &a), ("b.rego", &b)]),
            vec![("policy.duplicate_default", "b.rego:3".to_string())]
        );
        let other = "package other\nimport rego.v1\ndefault allow := true\n";
        assert!(lint(&[("a.rego", &a), ("o.rego", other)]).is_empty());
    }
}
