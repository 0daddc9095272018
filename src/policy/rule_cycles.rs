//! The static rule-cycle check: a rule of `package honey` that reaches itself through other
//! rules or functions is refused at load, because the RVM compiles it and then overflows its
//! stack at evaluation (an uncatchable abort), and the interpreter only notices on some inputs.

use super::error::PolicyError;
use regorus::Engine;

/// Fail when a rule of `package honey` reaches itself through other rules or functions. The
/// RVM compiles such a policy and then overflows its stack at evaluation (an uncatchable
/// abort), and the interpreter only notices on inputs that reach the cycle.
pub(crate) fn check_rule_cycles(engine: &mut Engine) -> Result<(), PolicyError> {
    use regorus::unstable::{Rule, RuleHead};
    use std::collections::{BTreeMap, BTreeSet};

    let mut graph: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
    for module in engine.get_modules() {
        for rule in &module.policy {
            let refr = match &**rule {
                Rule::Spec { head, .. } => match head {
                    RuleHead::Compr { refr, .. }
                    | RuleHead::Set { refr, .. }
                    | RuleHead::Func { refr, .. } => refr,
                },
                Rule::Default { refr, .. } => refr,
            };
            let span = rule.span();
            let name = rule_name(refr.span().text());
            let offset = refr.span().end.saturating_sub(span.start) as usize;
            let tail = span.text().get(offset..).unwrap_or_default();
            let node = graph.entry(name).or_insert_with(|| {
                let location = format!("{}:{}", span.source.get_path(), span.line);
                (location, BTreeSet::new())
            });
            node.1.extend(references(tail));
        }
    }
    // Iterative depth-first search; `state` 1 = on the current path, 2 = done.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    for start in graph.keys() {
        if state.contains_key(start.as_str()) {
            continue;
        }
        let mut path: Vec<(&str, Vec<&str>)> = Vec::new();
        let next = |name: &str| -> Vec<&str> {
            graph.get(name).map_or_else(Vec::new, |(_, refs)| {
                refs.iter()
                    .filter_map(|r| graph.get_key_value(r).map(|(k, _)| k.as_str()))
                    .collect()
            })
        };
        state.insert(start, 1);
        path.push((start, next(start)));
        while let Some((node, pending)) = path.last_mut() {
            let node = *node;
            match pending.pop() {
                None => {
                    state.insert(node, 2);
                    path.pop();
                }
                Some(child) => match state.get(child) {
                    Some(1) => {
                        let cycle_from = path.iter().position(|(n, _)| *n == child).unwrap_or(0);
                        let mut chain: Vec<&str> =
                            path.iter().skip(cycle_from).map(|(n, _)| *n).collect();
                        chain.push(child);
                        let location = graph.get(child).map(|n| n.0.clone()).unwrap_or_default();
                        return Err(PolicyError::Recursion {
                            location,
                            message: format!("rules depend on each other: {}", chain.join(" -> ")),
                        });
                    }
                    Some(_) => {}
                    None => {
                        state.insert(child, 1);
                        path.push((child, next(child)));
                    }
                },
            }
        }
    }
    Ok(())
}

/// `deny_reasons`, `data.honey.x.y` and `x["k"]` all name the rule `deny_reasons` / `x`.
fn rule_name(head: &str) -> String {
    let head = head.trim();
    let head = head.strip_prefix("data.honey.").unwrap_or(head);
    head.split(['.', '[', ' ', '('])
        .next()
        .unwrap_or(head)
        .to_string()
}

/// Identifiers a rule's text refers to: bare names and `data.honey.<name>`, without comments,
/// strings, field accesses (`input.allow`) and names the rule declares locally (`x :=`,
/// `some x in`, `every k, v in`). Over-approximates; only cycles among rules matter.
fn references(text: &str) -> std::collections::BTreeSet<String> {
    let mut tokens: Vec<(String, bool, bool)> = Vec::new(); // (ident, after dot, before :=)
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut after_dot = false;
    while let Some(&c) = chars.get(i) {
        if c == '#' {
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
        } else if c == '"' || c == '`' {
            i += 1;
            while let Some(&d) = chars.get(i) {
                i += if d == '\\' && c == '"' { 2 } else { 1 };
                if d == c {
                    break;
                }
            }
            after_dot = false;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|&c| c.is_alphanumeric() || c == '_')
            {
                i += 1;
            }
            let ident: String = chars.get(start..i).unwrap_or_default().iter().collect();
            let mut j = i;
            while chars.get(j).is_some_and(|c| *c == ' ' || *c == '\t') {
                j += 1;
            }
            let assigns = chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&'=');
            tokens.push((ident, after_dot, assigns));
            after_dot = false;
            continue;
        } else if !c.is_whitespace() {
            after_dot = c == '.';
        }
        i += 1;
    }
    let mut locals = std::collections::BTreeSet::new();
    let mut declaring = false;
    for (ident, _, assigns) in &tokens {
        match ident.as_str() {
            "some" | "every" => declaring = true,
            "in" => declaring = false,
            _ if declaring || *assigns => {
                locals.insert(ident.clone());
            }
            _ => {}
        }
    }
    const KEYWORDS: [&str; 14] = [
        "as", "contains", "default", "else", "every", "false", "if", "import", "in", "not", "null",
        "package", "some", "true",
    ];
    let mut refs = std::collections::BTreeSet::new();
    for (index, (ident, after_dot, _)) in tokens.iter().enumerate() {
        if !after_dot && !locals.contains(ident) && !KEYWORDS.contains(&ident.as_str()) {
            refs.insert(ident.clone());
        }
        let honey = tokens.get(index + 1).is_some_and(|t| t.0 == "honey" && t.1);
        if ident == "data" && !after_dot && honey {
            if let Some((name, true, _)) = tokens.get(index + 2) {
                refs.insert(name.clone());
            }
        }
    }
    refs
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn references_table() {
        let cases: [(&str, &[&str]); 6] = [
            (
                " if { count(deny_reasons) == 0 }",
                &["count", "deny_reasons"],
            ),
            (r#" := "a # b" if input.allow"#, &["input"]),
            (" if { some x in deny; x == y } # z", &["deny", "y"]),
            (" if { msg := sprintf(\"%v\", [a]) }", &["a", "sprintf"]),
            (" := data.honey.other", &["data", "other"]),
            (" if { every k, v in m { v == w } }", &["m", "w"]),
        ];
        for (text, want) in cases {
            let got: Vec<String> = references(text).into_iter().collect();
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn rule_names_table() {
        let cases = [
            ("deny_reasons", "deny_reasons"),
            ("data.honey.allow", "allow"),
            ("x.y", "x"),
            ("x[\"k\"]", "x"),
        ];
        for (head, want) in cases {
            assert_eq!(rule_name(head), want);
        }
    }
}
