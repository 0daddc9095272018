//! The OPA builtins this build supports, from `tests/policy_builtins.tsv`: a supported builtin
//! computes OPA's answer through the enforcement back end (the RVM), and a policy calling one
//! this build lacks is refused when it is loaded (naming the builtin),
//! even when the call sits in a branch no input takes.

use crate::setup::table;
use guarded_sh::policy::engine::{load, CacheMode};

struct Row {
    line: usize,
    name: String,
    body: String,
    supported: bool,
}

fn rows() -> Vec<Row> {
    table("policy_builtins.tsv")
        .into_iter()
        .map(|(line, f)| {
            assert_eq!(f.len(), 3, "policy_builtins.tsv:{line}: 3 fields");
            let supported = match f[2].as_str() {
                "holds" => true,
                "unsupported" => false,
                other => panic!("policy_builtins.tsv:{line}: expect {other:?}"),
            };
            Row {
                line,
                name: f[0].clone(),
                body: f[1].clone(),
                supported,
            }
        })
        .collect()
}

/// The verdict word for `{}` as input, or the load or evaluation error's reason id and text.
fn outcome(module: &str) -> Result<String, (String, String)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.rego"), module).unwrap();
    let policy = load(dir.path(), &CacheMode::Off)
        .map_err(|e| (e.reason_id().to_string(), e.to_string()))?;
    policy
        .evaluate(&serde_json::json!({}))
        .map(|d| d.verdict_word().to_string())
        .map_err(|e| (e.reason_id().to_string(), e.to_string()))
}

/// The first name of a builtin the body calls (`crypto.x509.parse_certificates(` gives it all).
fn called(body: &str) -> &str {
    let end = body.find('(').unwrap();
    let start = body[..end]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .map_or(0, |i| i + 1);
    &body[start..end]
}

/// A load-time refusal of a call to a builtin this build lacks: regorus's compiler
/// (`policy.compile`, with file:line) or the RVM's (`policy.unsupported`) finds it first.
fn refused(reason_id: &str) -> bool {
    matches!(reason_id, "policy.compile" | "policy.unsupported")
}

#[test]
fn supported_builtins_compute_and_missing_ones_are_refused_at_load() {
    let header = "package honey\nimport rego.v1\ndefault allow := false\n";
    let mut failures = Vec::new();
    let rows = rows();
    assert!(rows.len() >= 30, "{} rows", rows.len());
    for row in &rows {
        let at = format!("policy_builtins.tsv:{} {}", row.line, row.name);
        let taken = outcome(&format!("{header}allow if {{ {} }}\n", row.body));
        let untaken = outcome(&format!(
            "{header}allow if input.never\nallow if {{ input.never; {} }}\n",
            row.body
        ));
        match (row.supported, &taken, &untaken) {
            (true, Ok(t), Ok(u)) if t == "allow" && u == "deny" => {}
            (false, Err((t, text)), Err((u, _)))
                if refused(t) && refused(u) && text.contains(called(&row.body)) => {}
            _ => failures.push(format!("{at}: taken {taken:?}, untaken {untaken:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
