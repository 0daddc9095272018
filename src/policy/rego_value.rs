//! The policy input as a regorus `Value`, built straight from the `serde_json::Value` the input
//! module writes. regorus's own `From<serde_json::Value>` clones nothing less but goes through
//! serde's deserializer for every node; this walks the tree once, by reference, and gives the
//! same value (`tests/policy_rego_value.rs` compares the two over a table of documents).

use regorus::Value;
use std::collections::BTreeMap;

/// A map key regorus's deserializer reads as a big number rather than as an object.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// `input` as regorus would read it. A document holding the number token anywhere is converted
/// by regorus itself, so that its reading (a number, or `Undefined`) stays the one that applies.
pub fn to_rego(input: &serde_json::Value) -> Value {
    if holds_number_token(input) {
        return Value::from(input.clone());
    }
    convert(input)
}

fn holds_number_token(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Array(items) => items.iter().any(holds_number_token),
        serde_json::Value::Object(map) => {
            map.contains_key(NUMBER_TOKEN) || map.values().any(holds_number_token)
        }
        _ => false,
    }
}

fn convert(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::from(*b),
        serde_json::Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            // The order serde_json hands numbers to a visitor: unsigned, then signed, then float
            // (always finite: serde_json has no other).
            (Some(u), _, _) => Value::from(u),
            (None, Some(i), _) => Value::from(i),
            (None, None, Some(f)) => Value::from(f),
            (None, None, None) => Value::Undefined,
        },
        serde_json::Value::String(s) => Value::String(s.as_str().into()),
        serde_json::Value::Array(items) => {
            Value::from(items.iter().map(convert).collect::<Vec<_>>())
        }
        serde_json::Value::Object(map) => Value::from(
            map.iter()
                .map(|(k, v)| (Value::String(k.as_str().into()), convert(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}
