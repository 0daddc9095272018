//! The versioned JSON schema (`schema/guarded-sh.v1.schema.json`, issue 20 item 2): it is a valid
//! draft 2020-12 schema; its `verdict`, `stage`, `mode` and `severity` enums are exactly the
//! code's (so they cannot drift); every audit record the suite reads through `Setup::audit`
//! validates against `audit_record` ([`assert_valid`] is that hook); and `--check --json` output
//! for every row of the reference table validates against `check_result`.

use crate::setup::{table, unescape, Setup, REPO};
use guarded_sh::signals::Severity;
use guarded_sh::verdict::{Effect, Stage, Surface, Verdict};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The schema file, parsed.
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let path = std::path::Path::new(REPO).join("schema/guarded-sh.v1.schema.json");
        let text = std::fs::read_to_string(&path).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

/// A validator for the schema's `$defs/<def>` (the whole file, with its root pointing there).
fn validator(def: &str) -> jsonschema::Validator {
    let mut root = schema().clone();
    let object = root.as_object_mut().unwrap();
    object.remove("oneOf");
    object.insert("$ref".into(), json!(format!("#/$defs/{def}")));
    jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("schema ({def}): {e}"))
}

/// The errors of `doc` against `$defs/<def>`, one line each (empty: valid).
pub fn errors(def: &str, doc: &Value) -> Vec<String> {
    static AUDIT: OnceLock<jsonschema::Validator> = OnceLock::new();
    static CHECK: OnceLock<jsonschema::Validator> = OnceLock::new();
    let v = match def {
        "audit_record" => AUDIT.get_or_init(|| validator(def)),
        "check_result" => CHECK.get_or_init(|| validator(def)),
        other => panic!("no validator for {other}"),
    };
    v.iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Fails the test unless `doc` validates against `$defs/<def>`.
pub fn assert_valid(def: &str, doc: &Value) {
    let errors = errors(def, doc);
    assert!(
        errors.is_empty(),
        "not a valid {def} ({}):\n{}\n{doc:#}",
        "schema/guarded-sh.v1.schema.json",
        errors.join("\n")
    );
}

/// The schema's enum at `$defs/<def>/enum`, as a set of strings.
fn schema_enum(def: &str) -> BTreeSet<String> {
    schema()["$defs"][def]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("$defs/{def} has no enum"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Every stage. The match is exhaustive: a new variant does not compile until it is listed
/// here, at the next position.
const STAGES: [Stage; 10] = [
    Stage::Passed,
    Stage::Escape,
    Stage::BuiltIn,
    Stage::Session,
    Stage::Policy,
    Stage::Approval,
    Stage::Error,
    Stage::Usage,
    Stage::Config,
    Stage::Exec,
];

fn stage_position(stage: Stage) -> usize {
    match stage {
        Stage::Passed => 0,
        Stage::Escape => 1,
        Stage::BuiltIn => 2,
        Stage::Session => 3,
        Stage::Policy => 4,
        Stage::Approval => 5,
        Stage::Error => 6,
        Stage::Usage => 7,
        Stage::Config => 8,
        Stage::Exec => 9,
    }
}

const EFFECTS: [Effect; 3] = [Effect::Allow, Effect::Held, Effect::Deny];

fn effect_position(effect: Effect) -> usize {
    match effect {
        Effect::Allow => 0,
        Effect::Held => 1,
        Effect::Deny => 2,
    }
}

const SURFACES: [Surface; 10] = [
    Surface::Command,
    Surface::Script,
    Surface::Stdin,
    Surface::Interactive,
    Surface::Hook,
    Surface::Review,
    Surface::Approve,
    Surface::Usage,
    Surface::Config,
    Surface::Exec,
];

fn surface_position(surface: Surface) -> usize {
    match surface {
        Surface::Command => 0,
        Surface::Script => 1,
        Surface::Stdin => 2,
        Surface::Interactive => 3,
        Surface::Hook => 4,
        Surface::Review => 5,
        Surface::Approve => 6,
        Surface::Usage => 7,
        Surface::Config => 8,
        Surface::Exec => 9,
    }
}

const SEVERITIES: [Severity; 4] = [
    Severity::Low,
    Severity::Medium,
    Severity::High,
    Severity::Critical,
];

fn severity_position(severity: Severity) -> usize {
    match severity {
        Severity::Low => 0,
        Severity::Medium => 1,
        Severity::High => 2,
        Severity::Critical => 3,
    }
}

/// The lists above hold each variant once, at the position its exhaustive match gives it.
#[test]
fn the_variant_lists_are_complete() {
    for (i, s) in STAGES.iter().enumerate() {
        assert_eq!(stage_position(*s), i, "{s:?}");
    }
    for (i, e) in EFFECTS.iter().enumerate() {
        assert_eq!(effect_position(*e), i, "{e:?}");
    }
    for (i, s) in SURFACES.iter().enumerate() {
        assert_eq!(surface_position(*s), i, "{s:?}");
    }
    for (i, s) in SEVERITIES.iter().enumerate() {
        assert_eq!(severity_position(*s), i, "{s:?}");
    }
}

fn serialised<T: serde::Serialize>(values: &[T]) -> BTreeSet<String> {
    values
        .iter()
        .map(|v| {
            serde_json::to_value(v)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn the_schema_enums_are_the_codes() {
    assert_eq!(schema_enum("stage"), serialised(&STAGES), "stage");
    assert_eq!(schema_enum("mode"), serialised(&SURFACES), "mode");
    let as_str: BTreeSet<String> = SURFACES.iter().map(|s| s.as_str().to_string()).collect();
    assert_eq!(schema_enum("mode"), as_str, "mode (as_str)");
    assert_eq!(schema_enum("severity"), serialised(&SEVERITIES), "severity");
    // Every verdict word an (effect, stage) pair can have, as records and `--check` say it.
    let mut audit_words = BTreeSet::new();
    let mut policy_words = BTreeSet::new();
    for effect in EFFECTS {
        for stage in STAGES {
            let v = Verdict::new(effect, stage, "x", String::new());
            audit_words.insert(v.audit_word().to_string());
            policy_words.insert(v.word().to_string());
            let record = serde_json::to_value(&v).unwrap();
            assert_eq!(record["verdict"], v.audit_word());
        }
    }
    assert_eq!(schema_enum("verdict"), audit_words, "verdict");
    assert_eq!(schema_enum("policy_word"), policy_words, "policy_word");
}

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    assert_eq!(
        schema()["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    if let Err(e) = jsonschema::meta::validate(schema()) {
        panic!("the schema does not validate against its meta-schema: {e}");
    }
    for def in ["audit_record", "check_result"] {
        let _ = validator(def);
    }
}

/// A real record validates, and each way of breaking it is caught (the validation can fail).
#[test]
fn a_broken_record_is_refused() {
    let s = Setup::with("");
    let out = s.output(&["-c", "true"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let record = s.audit().pop().unwrap();
    assert!(errors("audit_record", &record).is_empty());
    let broken: [(&str, Value); 6] = [
        ("session_id", json!("ABC")),
        ("stage", json!("nowhere")),
        ("verdict", json!("maybe")),
        ("schema", json!(2)),
        ("pid", json!("1")),
        ("mode", json!("telnet")),
    ];
    for (field, value) in broken {
        let mut r = record.clone();
        r[field] = value;
        assert!(!errors("audit_record", &r).is_empty(), "{field} accepted");
    }
    let mut r = record.clone();
    r.as_object_mut().unwrap().remove("target");
    assert!(!errors("audit_record", &r).is_empty(), "a missing field");
    let mut r = record;
    r["extra"] = json!(1);
    assert!(!errors("audit_record", &r).is_empty(), "an unknown field");
}

/// `--check --json` for every row of the reference table (no policy, then a policy that
/// answers) validates against `check_result`.
#[test]
fn check_json_for_every_reference_row_validates() {
    let s = Setup::with("");
    let policy = s.write("policy/honey.rego", crate::setup::FORBIDDEN_TOOL);
    let policy_dir = policy.parent().unwrap().display().to_string();
    let rows = table("cases/reference.tsv");
    assert!(
        rows.len() >= 10,
        "the reference table is short: {}",
        rows.len()
    );
    for (line, fields) in rows {
        let command = unescape(&fields[0]);
        for extra in [vec![], vec!["--policy-dir", policy_dir.as_str()]] {
            let mut args = vec!["--check", command.as_str(), "--json"];
            args.extend(extra.iter().copied());
            let out = s.output(&args);
            let doc: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("reference.tsv:{line}: {e}: {out:?}"));
            let errors = errors("check_result", &doc);
            assert!(
                errors.is_empty(),
                "reference.tsv:{line} {args:?}:\n{}\n{doc:#}",
                errors.join("\n")
            );
        }
    }
}
