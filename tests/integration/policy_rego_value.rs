//! `policy::rego_value::to_rego` builds the policy input as a regorus value without going through
//! serde's deserializer; it must give exactly what regorus's own `From<serde_json::Value>` gives.
//! One row per document: scalars at the edges of each number type, strings, nesting, empty
//! containers, the pinned input snapshot, and the number token regorus reads specially.

use guarded_sh::policy::rego_value::to_rego;
use regorus::Value;
use serde_json::json;

fn same(doc: serde_json::Value) {
    let ours = to_rego(&doc);
    let regorus = Value::from(doc.clone());
    assert_eq!(ours, regorus, "different values for {doc}");
    // Equal values could still print differently (a number kept as float or integer).
    assert_eq!(
        ours.to_json_str().ok(),
        regorus.to_json_str().ok(),
        "different JSON for {doc}"
    );
}

#[test]
fn documents_convert_as_regorus_converts_them() {
    let rows = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(i64::MAX),
        json!(1.5),
        json!(-0.0),
        json!(1e300),
        json!(""),
        json!("prod"),
        json!("é \u{0} \n \"quoted\""),
        json!([]),
        json!({}),
        json!([1, "a", null, [true, {}]]),
        json!({"b": 1, "a": {"c": [1, 2, {"d": null}]}, "": "empty key"}),
        json!({"command": {"raw": "rm -rf /", "riskSignals": [{"id": "DELETE_ROOT_PATH"}]}}),
        json!({"$serde_json::private::Number": "12345678901234567890123"}),
        json!({"host_vars": {"$serde_json::private::Number": "7"}}),
        json!({"host_vars": {"$serde_json::private::Number": "not a number"}}),
        json!([{"$serde_json::private::Number": 5}]),
    ];
    for doc in rows {
        same(doc);
    }
}

#[test]
fn the_pinned_input_converts_as_regorus_converts_it() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/policy_input.json"
    );
    let text = std::fs::read_to_string(path).expect("the input snapshot");
    let snapshot: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).expect("JSON: one input per case");
    assert!(snapshot.len() >= 2, "the snapshot holds its cases");
    for (case, input) in snapshot {
        assert!(input.get("command").is_some(), "{case} is a policy input");
        same(input);
    }
}
