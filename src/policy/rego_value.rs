//! The policy input as a regorus `Value`, built straight from the `serde_json::Value` the input
//! module writes. regorus's own `From<serde_json::Value>` takes the document by value (a clone
//! here) and goes through serde's deserializer for every node; this walks the tree once, by
//! reference, and gives the same value (`tests/integration/policy_rego_value.rs` compares the two over a
//! table of documents).

use regorus::Value;
use std::collections::BTreeMap;

/// A map key regorus's deserializer reads as a big number rather than as an object.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// `input` as regorus would read it. A document holding the number token anywhere is converted
/// by regorus itself, so that its reading (a number, or `Undefined`) stays the one that applies.
pub fn to_rego(input: &serde_json::Value) -> Value {
    convert(input).unwrap_or_else(|| Value::from(input.clone()))
}

/// `None` when the number token is found (see [`to_rego`]).
fn convert(v: &serde_json::Value) -> Option<Value> {
    Some(match v {
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
            Value::from(items.iter().map(convert).collect::<Option<Vec<_>>>()?)
        }
        serde_json::Value::Object(map) if map.contains_key(NUMBER_TOKEN) => return None,
        serde_json::Value::Object(map) => Value::from(
            map.iter()
                .map(|(k, v)| Some((Value::String(k.as_str().into()), convert(v)?)))
                .collect::<Option<BTreeMap<_, _>>>()?,
        ),
    })
}
