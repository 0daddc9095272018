//! The policy's answer (`data.honey.allow`, `deny_reason`, `decision`, `requires`, and the
//! multi-value `deny_reasons` and `approval_reasons` that cannot conflict across files), its type
//! checks, and the strictest-wins reading of it as a verdict with the reference engine's reason
//! text ("denied by policy", " (requires: a, b)").

use super::error::PolicyError;
use regorus::Value;

/// The entry points of `data.honey`, in evaluation order: the reference's four, then two sets
/// of strings (partial rules, so any number of files may add to them without a conflict).
pub const ENTRY_POINTS: [&str; ENTRY_COUNT] = [
    "allow",
    "deny_reason",
    "decision",
    "requires",
    "deny_reasons",
    "approval_reasons",
];

/// How many entry points there are.
pub const ENTRY_COUNT: usize = 6;

/// The entry points of which a policy must declare one: `allow`, or with no `allow` at all,
/// one of the sets (which then decide alone, as if `allow` were true).
pub const REQUIRED_ONE_OF: [&str; 3] = ["allow", "deny_reasons", "approval_reasons"];

/// What the policy said, type-checked. Undefined optional entries read as defaults:
/// `deny_reason` "", `decision` "" (no extra constraint), `requires` [].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PolicyDecision {
    pub allow: bool,
    pub deny_reason: String,
    pub decision: String,
    pub requires: Vec<String>,
}

/// The strictest outcome of a [`PolicyDecision`], with its reason text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyVerdict {
    Allow,
    Deny(String),
    RequireApproval(String),
}

impl PolicyDecision {
    /// Type-check the raw values of the four entry points (in [`ENTRY_POINTS`] order).
    pub(crate) fn from_values(values: [Value; 4]) -> Result<Self, PolicyError> {
        let [allow, deny_reason, decision, requires] = values;
        let allow = match allow {
            Value::Bool(b) => b,
            Value::Undefined => {
                return Err(PolicyError::Undefined {
                    message: "no rule of data.honey.allow produced a value".to_string(),
                })
            }
            other => return Err(ill_typed("allow", "a boolean", &other)),
        };
        let deny_reason = match deny_reason {
            Value::Undefined => String::new(),
            Value::String(s) => s.to_string(),
            other => return Err(ill_typed("deny_reason", "a string", &other)),
        };
        let decision = match decision {
            Value::Undefined => String::new(),
            Value::String(s) if ["allow", "deny", "require_approval"].contains(&s.as_ref()) => {
                s.to_string()
            }
            other => {
                return Err(ill_typed(
                    "decision",
                    "one of \"allow\", \"deny\", \"require_approval\"",
                    &other,
                ))
            }
        };
        let requires = match requires {
            Value::Undefined => Vec::new(),
            Value::Array(items) => strings(items.iter())?,
            Value::Set(items) => strings(items.iter())?,
            other => return Err(ill_typed("requires", "a list of strings", &other)),
        };
        Ok(Self {
            allow,
            deny_reason,
            decision,
            requires,
        })
    }

    /// Type-check the raw values of every entry point (in [`ENTRY_POINTS`] order) and fold the
    /// sets into the four answers, strictest wins: a `deny_reasons` entry denies (`allow` false,
    /// its entries after `deny_reason` in the reason), an `approval_reasons` entry holds
    /// (`decision` "require_approval" unless it is "deny"; its entries in the reason when
    /// nothing denies). `allow_declared`: some module defines `allow`; when none does, `allow`
    /// reads true and the sets decide.
    pub(crate) fn from_entries(
        values: [Value; ENTRY_COUNT],
        allow_declared: bool,
    ) -> Result<Self, PolicyError> {
        let [allow, deny_reason, decision, requires, deny_reasons, approval_reasons] = values;
        let allow = match allow {
            Value::Undefined if !allow_declared => Value::Bool(true),
            other => other,
        };
        let mut answer = Self::from_values([allow, deny_reason, decision, requires])?;
        let denies = reasons("deny_reasons", deny_reasons)?;
        let holds = reasons("approval_reasons", approval_reasons)?;
        let denied = !answer.allow || answer.decision == "deny" || !denies.is_empty();
        let held = !denied && (answer.decision == "require_approval" || !holds.is_empty());
        let extra = if denied {
            denies
        } else if held {
            holds
        } else {
            Vec::new()
        };
        if !extra.is_empty() {
            answer.deny_reason = [answer.deny_reason.clone()]
                .into_iter()
                .filter(|r| !r.is_empty())
                .chain(extra)
                .collect::<Vec<_>>()
                .join("; ");
        }
        if denied {
            answer.allow = false;
        } else if held {
            answer.decision = "require_approval".to_string();
        }
        Ok(answer)
    }

    /// Strictest wins: deny if `allow` is false or `decision` is "deny"; otherwise hold for
    /// approval if `decision` is "require_approval"; otherwise allow.
    pub fn verdict(&self) -> PolicyVerdict {
        if !self.allow || self.decision == "deny" {
            PolicyVerdict::Deny(self.reason())
        } else if self.decision == "require_approval" {
            PolicyVerdict::RequireApproval(self.reason())
        } else {
            PolicyVerdict::Allow
        }
    }

    /// `allow`, `deny` or `require_approval`.
    pub fn verdict_word(&self) -> &'static str {
        match self.verdict() {
            PolicyVerdict::Allow => "allow",
            PolicyVerdict::Deny(_) => "deny",
            PolicyVerdict::RequireApproval(_) => "require_approval",
        }
    }

    /// The reason shown with the verdict: `deny_reason` (or "denied by policy" / "approval
    /// required by policy" when empty) plus " (requires: a, b)"; empty for an allow.
    pub fn reason(&self) -> String {
        let held = self.allow && self.decision == "require_approval";
        if self.allow && !held && self.decision != "deny" {
            return String::new();
        }
        let mut reason = if !self.deny_reason.is_empty() {
            self.deny_reason.clone()
        } else if held {
            "approval required by policy".to_string()
        } else {
            "denied by policy".to_string()
        };
        if !self.requires.is_empty() {
            reason.push_str(&format!(" (requires: {})", self.requires.join(", ")));
        }
        reason
    }
}

fn strings<'a>(items: impl Iterator<Item = &'a Value>) -> Result<Vec<String>, PolicyError> {
    typed_strings("requires", items)
}

fn typed_strings<'a>(
    entry: &'static str,
    items: impl Iterator<Item = &'a Value>,
) -> Result<Vec<String>, PolicyError> {
    items
        .map(|item| match item {
            Value::String(s) => Ok(s.to_string()),
            other => Err(ill_typed(entry, "a list of strings", other)),
        })
        .collect()
}

/// A set of reasons (`deny_reasons`, `approval_reasons`): sorted, without empty or repeated
/// entries; undefined reads as none.
fn reasons(entry: &'static str, value: Value) -> Result<Vec<String>, PolicyError> {
    let mut found = match &value {
        Value::Undefined => Vec::new(),
        Value::Array(items) => typed_strings(entry, items.iter())?,
        Value::Set(items) => typed_strings(entry, items.iter())?,
        other => return Err(ill_typed(entry, "a set of strings", other)),
    };
    found.retain(|r| !r.is_empty());
    found.sort();
    found.dedup();
    Ok(found)
}

fn ill_typed(entry: &'static str, expected: &str, got: &Value) -> PolicyError {
    let shown = got.to_json_str().unwrap_or_else(|_| format!("{got:?}"));
    let shown: String = shown.chars().take(120).collect();
    PolicyError::IllTyped {
        entry,
        message: format!("expected {expected}, got {shown}"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn decide(json: [&str; 4]) -> Result<PolicyDecision, &'static str> {
        let values = json.map(|j| {
            if j.is_empty() {
                Value::Undefined
            } else {
                Value::from_json_str(j).unwrap_or(Value::Undefined)
            }
        });
        PolicyDecision::from_values(values).map_err(|e| e.reason_id())
    }

    #[test]
    fn verdicts_table() {
        // [allow, deny_reason, decision, requires] -> (word, reason)
        let cases: [([&str; 4], &str, &str); 10] = [
            (["true", "", "", ""], "allow", ""),
            (["true", r#""x""#, r#""allow""#, "[]"], "allow", ""),
            (["false", "", "", ""], "deny", "denied by policy"),
            (["false", r#""prod""#, "", ""], "deny", "prod"),
            (["true", "", r#""deny""#, ""], "deny", "denied by policy"),
            (
                ["true", "", r#""require_approval""#, ""],
                "require_approval",
                "approval required by policy",
            ),
            (
                ["false", "", r#""require_approval""#, ""],
                "deny",
                "denied by policy",
            ),
            (
                ["true", r#""high""#, r#""require_approval""#, r#"["a","b"]"#],
                "require_approval",
                "high (requires: a, b)",
            ),
            (
                ["false", r#""no""#, "", r#"["mfa"]"#],
                "deny",
                "no (requires: mfa)",
            ),
            (["true", "", "", "[]"], "allow", ""),
        ];
        for (values, word, reason) in cases {
            let decision = decide(values).unwrap_or_else(|id| panic!("{values:?}: {id}"));
            assert_eq!(decision.verdict_word(), word, "{values:?}");
            assert_eq!(decision.reason(), reason, "{values:?}");
        }
    }

    #[test]
    fn type_errors_table() {
        let cases: [([&str; 4], &str); 8] = [
            (["", "", "", ""], "policy.undefined"),
            ([r#""true""#, "", "", ""], "policy.ill_typed"),
            (["1", "", "", ""], "policy.ill_typed"),
            (["true", "3", "", ""], "policy.ill_typed"),
            (
                ["true", "", r#""require_biometric""#, ""],
                "policy.ill_typed",
            ),
            (["true", "", "true", ""], "policy.ill_typed"),
            (["true", "", "", r#""approval""#], "policy.ill_typed"),
            (["true", "", "", "[1]"], "policy.ill_typed"),
        ];
        for (values, id) in cases {
            assert_eq!(decide(values).err(), Some(id), "{values:?}");
        }
    }

    #[test]
    fn reason_sets_fold_strictest_wins() {
        let v = |j: &str| {
            if j.is_empty() {
                Value::Undefined
            } else {
                Value::from_json_str(j).unwrap()
            }
        };
        // [allow, deny_reason, decision, deny_reasons, approval_reasons], allow declared
        //   -> (word, reason)
        let cases: &[([&str; 5], bool, &str, &str)] = &[
            (["", "", "", "[]", "[]"], false, "allow", ""),
            (["", "", "", r#"["b","a"]"#, "[]"], false, "deny", "a; b"),
            (
                ["", "", "", "[]", r#"["prod"]"#],
                false,
                "require_approval",
                "prod",
            ),
            (["", "", "", r#"["x"]"#, r#"["prod"]"#], false, "deny", "x"),
            (
                ["true", "", "", "", r#"["prod"]"#],
                true,
                "require_approval",
                "prod",
            ),
            (
                ["false", r#""ref""#, "", "", r#"["prod"]"#],
                true,
                "deny",
                "ref",
            ),
            (
                ["false", r#""ref""#, "", r#"["base"]"#, ""],
                true,
                "deny",
                "ref; base",
            ),
            (
                ["true", "", r#""require_approval""#, "", r#"["p"]"#],
                true,
                "require_approval",
                "p",
            ),
            (
                ["true", "", r#""require_approval""#, "[]", "[]"],
                true,
                "require_approval",
                "approval required by policy",
            ),
            (["true", "", "", r#"["", "a", "a"]"#, ""], true, "deny", "a"),
            (["", "", "", "", ""], true, "", "policy.undefined"),
            (["true", "", "", r#""x""#, ""], true, "", "policy.ill_typed"),
            (["true", "", "", "", "[1]"], true, "", "policy.ill_typed"),
        ];
        for (values, declared, word, reason) in cases {
            let [allow, deny_reason, decision, denies, holds] = values.map(v);
            let got = PolicyDecision::from_entries(
                [
                    allow,
                    deny_reason,
                    decision,
                    Value::Undefined,
                    denies,
                    holds,
                ],
                *declared,
            );
            match got {
                Ok(d) => {
                    assert_eq!(d.verdict_word(), *word, "{values:?}");
                    assert_eq!(d.reason(), *reason, "{values:?}");
                }
                Err(e) => assert_eq!((e.reason_id(), *word), (*reason, ""), "{values:?}"),
            }
        }
    }

    #[test]
    fn requires_accepts_sets() {
        let mut set = std::collections::BTreeSet::new();
        set.insert(Value::from("b"));
        set.insert(Value::from("a"));
        let values = [
            Value::Bool(false),
            Value::Undefined,
            Value::Undefined,
            Value::from(set),
        ];
        let decision = PolicyDecision::from_values(values).map_err(|e| e.reason_id());
        assert_eq!(
            decision.map(|d| d.reason()),
            Ok("denied by policy (requires: a, b)".to_string())
        );
    }
}
