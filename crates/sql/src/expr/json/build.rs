//! SQL values → JSON values, and JSON_OBJECT / JSON_ARRAY built from them.
//!
//! Invariants (MariaDB's `append_json_value`): NULL is `null`; a number is the number as SQL
//! prints it; an [`ArgKind::Bool`] value is `true` / `false`; an [`ArgKind::Json`] text that
//! parses is embedded as that JSON; anything else (strings, dates, bytes) is a JSON string of
//! its text.

use super::doc::{self, Json};
use super::{json_text, ArgKind, Call, JsonFunc};
use crate::expr::eval::text_of;
use crate::types::value::Value;

/// The JSON value argument `v` of kind `kind` stands for.
pub(super) fn value_of(v: &Value, kind: ArgKind) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Float(_) | Value::Double(_) => {
            match kind {
                ArgKind::Bool => Json::Bool(crate::expr::eval::truth(v) == Some(true)),
                _ => Json::Number(text_of(v).unwrap_or_default()),
            }
        }
        other => {
            let text = text_of(other).unwrap_or_default();
            if kind == ArgKind::Json {
                if let Ok(j) = doc::parse(&text) {
                    return j;
                }
            }
            Json::string(&text)
        }
    }
}

/// JSON_OBJECT(k, v, ...) or JSON_ARRAY(v, ...).
pub(super) fn construct(call: &Call<'_>) -> Value {
    let kind = |i: usize| call.kinds.get(i).copied().unwrap_or(ArgKind::Plain);
    if call.func == JsonFunc::Array {
        let items = call
            .vals
            .iter()
            .enumerate()
            .map(|(i, v)| value_of(v, kind(i)))
            .collect();
        return json_text(&Json::Array(items));
    }
    let mut members = Vec::new();
    for (i, pair) in call.vals.chunks(2).enumerate() {
        let key = match text_of(&pair[0]) {
            Some(k) => doc::escape(&k),
            None => return Value::Null,
        };
        members.push((key, value_of(&pair[1], kind(2 * i + 1))));
    }
    json_text(&Json::Object(members))
}
