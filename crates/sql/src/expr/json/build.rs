//! SQL values → JSON values, and JSON_OBJECT / JSON_ARRAY built from them.
//!
//! Invariants (MariaDB's `append_json_value`): NULL is `null`; a number is the number as SQL
//! prints it; an [`ArgKind::Bool`] value is `true` / `false`; an [`ArgKind::Json`] text that
//! parses is embedded as that JSON (JSON_OBJECT and JSON_ARRAY copy its text as written, the
//! editing functions write it anew); anything else (strings, dates, bytes) is a JSON string of
//! its text.

use super::doc::{self, Json};
use super::{ArgKind, Call, JsonFunc};
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

/// The text argument `v` of kind `kind` adds to a JSON_OBJECT / JSON_ARRAY: a JSON argument's
/// own text as written (MariaDB copies it, spaces and all), any other value's JSON text.
pub(super) fn member_text(v: &Value, kind: ArgKind) -> String {
    if let (ArgKind::Json, Some(text)) = (kind, text_of(v)) {
        if doc::parse(&text).is_ok() {
            return text;
        }
    }
    value_of(v, kind).write()
}

/// JSON_OBJECT(k, v, ...) or JSON_ARRAY(v, ...), written as MariaDB writes them.
pub(super) fn construct(call: &Call<'_>) -> Value {
    let kind = |i: usize| call.kinds.get(i).copied().unwrap_or(ArgKind::Plain);
    let members: Vec<String> = match call.func {
        JsonFunc::Array => call
            .vals
            .iter()
            .enumerate()
            .map(|(i, v)| member_text(v, kind(i)))
            .collect(),
        _ => call
            .vals
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| {
                // A NULL key is the empty one, as MariaDB has it.
                let key = doc::escape(&text_of(&pair[0]).unwrap_or_default());
                format!("\"{key}\": {}", member_text(&pair[1], kind(2 * i + 1)))
            })
            .collect(),
    };
    let (open, close) = match call.func {
        JsonFunc::Array => ('[', ']'),
        _ => ('{', '}'),
    };
    Value::Text(format!("{open}{}{close}", members.join(", ")))
}
