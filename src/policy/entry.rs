//! The entry points of `data.honey` and the one combined entry point the RVM runs: a generated
//! rule that reads all four answers in a single execution, so the rules they share
//! (`deny_reasons`, `approval_reasons`, …) run once per command instead of once per answer.
//!
//! The combined rule is `data.guarded_sh_entry.result`, an array of one element per entry point in
//! [`ENTRY_POINTS`] order: `[v]` when the answer is defined, `[]` when it is undefined (the RVM
//! also reads conflicting complete rules as undefined), `null` when no module declares it.

use super::decision::{ENTRY_COUNT, ENTRY_POINTS};
use regorus::Value;

/// The package of the generated module; reserved (no policy data may use it as a top-level key,
/// and enforcement modules must be `package honey` anyway).
pub const COMBINED_PACKAGE: &str = "guarded_sh_entry";

/// The rule path of the combined entry point.
pub fn combined_path() -> String {
    format!("data.{COMBINED_PACKAGE}.result")
}

/// The canonical entry-point path for a `data.honey` rule name.
pub fn entry_path(name: &str) -> String {
    format!("data.honey.{name}")
}

/// The file name the generated module is added under (it appears in regorus's messages).
pub const COMBINED_FILE: &str = "<guarded-sh combined entry point>";

/// Rego source of the combined rule for the `declared` entry points.
pub fn combined_module(declared: &[String]) -> String {
    let elements: Vec<String> = ENTRY_POINTS
        .iter()
        .map(|name| {
            if declared.iter().any(|d| d == name) {
                format!("[x | x := {}]", entry_path(name))
            } else {
                "null".to_string()
            }
        })
        .collect();
    format!(
        "package {COMBINED_PACKAGE}\n\nimport rego.v1\n\nresult := [{}]\n",
        elements.join(", ")
    )
}

/// The answers from the combined rule's value, in [`ENTRY_POINTS`] order, or `None` when
/// the value does not have the generated shape (which only a broken program can produce).
pub fn split_combined(value: &Value) -> Option<[Value; ENTRY_COUNT]> {
    let Value::Array(items) = value else {
        return None;
    };
    if items.len() != ENTRY_POINTS.len() {
        return None;
    }
    let mut answers = [const { Value::Undefined }; ENTRY_COUNT];
    for (slot, item) in answers.iter_mut().zip(items.iter()) {
        *slot = match item {
            Value::Null => Value::Undefined,
            Value::Array(found) => match found.as_slice() {
                [] => Value::Undefined,
                [one] => one.clone(),
                _ => return None,
            },
            _ => return None,
        };
    }
    Some(answers)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn module_names_only_declared_entries() {
        let text = combined_module(&["allow".to_string(), "deny_reasons".to_string()]);
        assert!(text.contains(
            "result := [[x | x := data.honey.allow], null, null, null, [x | x := data.honey.deny_reasons], null]"
        ));
    }

    #[test]
    fn split_table() {
        let v = |json: &str| Value::from_json_str(json).unwrap();
        let u = || Value::Undefined;
        let cases: [(&str, Option<[Value; ENTRY_COUNT]>); 7] = [
            (
                r#"[[true], [], null, [["a"]], null, null]"#,
                Some([Value::Bool(true), u(), u(), v(r#"["a"]"#), u(), u()]),
            ),
            (r#"[[false], ["x"], ["deny"], [], null, null]"#, {
                Some([
                    Value::Bool(false),
                    v(r#""x""#),
                    v(r#""deny""#),
                    u(),
                    u(),
                    u(),
                ])
            }),
            (
                r#"[null, null, null, null, [["d"]], [[]]]"#,
                Some([u(), u(), u(), u(), v(r#"["d"]"#), v("[]")]),
            ),
            (r#"[[true], [], null, null]"#, None),
            (r#"[[true, false], [], null, null, null, null]"#, None),
            (r#"[true, [], null, null, null, null]"#, None),
            (r#"{"allow": true}"#, None),
        ];
        for (json, expected) in cases {
            assert_eq!(split_combined(&v(json)), expected, "{json}");
        }
    }
}
