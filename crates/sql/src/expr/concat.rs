//! The aggregates that join their rows' text: GROUP_CONCAT, JSON_ARRAYAGG and JSON_OBJECTAGG,
//! as MariaDB 10.11 computes them (`Item_func_group_concat` and its JSON forms). Each row gives
//! one [`Piece`] ([`piece`]); [`join`] orders the pieces and joins them.
//!
//! Invariants:
//! * A piece is a row's text: GROUP_CONCAT's arguments concatenated (a row with a NULL argument
//!   gives none); JSON_ARRAYAGG's value as JSON (NULL is `null`, a JSON argument its text as
//!   written, a string a JSON string: json/build.rs); JSON_OBJECTAGG's `"key":value` (a row whose
//!   key is NULL gives none).
//! * Order: by the ORDER BY keys, rows of equal keys in the reverse of the order they came in
//!   (MariaDB's tree inserts a row before its equals); without ORDER BY but with DISTINCT, by
//!   the values themselves (NULL first), as MariaDB walks its tree of distinct values;
//!   otherwise the order rows came in.
//! * `LIMIT [m,] n` skips m pieces and joins at most n (`LIMIT 0` of a non-empty group: `''`,
//!   JSON_ARRAYAGG `[]`).
//! * GROUP_CONCAT and JSON_ARRAYAGG stop at group_concat_max_len bytes (the joined text without
//!   JSON_ARRAYAGG's brackets): the piece that passes it is cut at a character boundary (a JSON
//!   string cut keeps its closing quote) and warning 1260 names its row (counted from 1 in the
//!   joining order, skipped ones included); JSON_OBJECTAGG has no limit. No piece at all: NULL.

use std::cmp::Ordering;

use crate::error::code::ErrorCode;
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::eval::text_of;
use crate::expr::json::{self, ArgKind};
use crate::expr::{AggFunc, AggSpec};
use crate::types::value::{cmp_nulls_first, Value};

/// MariaDB 10.11's default group_concat_max_len, in bytes.
pub const GROUP_CONCAT_MAX_LEN_DEFAULT: u64 = 1_048_576;

/// One row's contribution: its sort keys and its text.
pub type Piece = (Vec<Value>, String);

/// The text row `vals` (the evaluated arguments) adds; `None` if it adds nothing.
pub fn piece_text(spec: &AggSpec, vals: &[Value]) -> Option<String> {
    let kind = |i: usize| spec.json_kinds.get(i).copied().unwrap_or(ArgKind::Plain);
    match spec.func {
        AggFunc::JsonArrayAgg => Some(json::member_text(vals.first()?, kind(0))),
        AggFunc::JsonObjectAgg => {
            let key = text_of(vals.first()?)?;
            let value = json::member_text(vals.get(1)?, kind(1));
            Some(format!("\"{}\":{value}", json::escape(&key)))
        }
        _ => {
            if vals.iter().any(Value::is_null) {
                return None;
            }
            Some(vals.iter().filter_map(text_of).collect())
        }
    }
}

/// The sort keys a row keeps besides its text: the ORDER BY keys (`order_keys`), or without
/// them, under DISTINCT, its values.
pub fn sort_keys(spec: &AggSpec, vals: &[Value], order_keys: Vec<Value>) -> Vec<Value> {
    if !spec.order.is_empty() {
        order_keys
    } else if spec.distinct {
        vals.to_vec()
    } else {
        Vec::new()
    }
}

fn order(spec: &AggSpec, a: &[Value], b: &[Value]) -> Ordering {
    if !spec.order.is_empty() {
        for (i, (_, desc)) in spec.order.iter().enumerate() {
            let coll = spec.order_collations.get(i).copied().unwrap_or_default();
            let o = cmp_nulls_first(&a[i], &b[i], coll);
            if o != Ordering::Equal {
                return if *desc { o.reverse() } else { o };
            }
        }
        return Ordering::Equal;
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let coll = spec.collations.get(i).copied().unwrap_or_default();
        let o = cmp_nulls_first(x, y, coll);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The aggregate's value from the group's pieces.
pub fn join(spec: &AggSpec, mut pieces: Vec<Piece>) -> Value {
    if pieces.is_empty() {
        return Value::Null;
    }
    if !spec.order.is_empty() {
        // MariaDB's tree puts a row before the rows whose keys equal its own.
        pieces.reverse();
    }
    if !spec.order.is_empty() || spec.distinct {
        pieces.sort_by(|a, b| order(spec, &a.0, &b.0));
    }
    if spec.func == AggFunc::JsonObjectAgg {
        let members: Vec<String> = pieces.into_iter().map(|(_, s)| s).collect();
        return Value::Text(format!("{{{}}}", members.join(", ")));
    }
    let json = spec.func == AggFunc::JsonArrayAgg;
    let separator = if json { "," } else { spec.separator.as_str() };
    let max = usize::try_from(spec.max_len_bytes).unwrap_or(usize::MAX);
    let mut out = String::new();
    let (skip, take) = spec.limit.unwrap_or((0, u64::MAX));
    let (skip, take) = (skip as usize, usize::try_from(take).unwrap_or(usize::MAX));
    for (row, (_, s)) in pieces.into_iter().enumerate().skip(skip).take(take) {
        let old = out.len();
        if row > skip {
            out.push_str(separator);
        }
        out.push_str(&s);
        if out.len() > max {
            cut(&mut out, old, max, json);
            let name = if json {
                "JSON_ARRAYAGG"
            } else {
                "GROUP_CONCAT"
            };
            crate::error::pending::push(Warning {
                level: WarningLevel::Warning,
                code: ErrorCode::CutValueGroupConcat,
                message: format!("Row {} was cut by {name}()", row + 1),
            });
            break;
        }
    }
    Value::Text(if json { format!("[{out}]") } else { out })
}

/// Cuts `out` (whose last piece starts at `old`) to at most `max` bytes on a character
/// boundary; JSON_ARRAYAGG keeps a cut string's closing quote (MariaDB's `cut_max_length`).
fn cut(out: &mut String, old: usize, max: usize, json: bool) {
    let quoted = json && max > 0 && out.ends_with('"');
    let mut end = if quoted { max - 1 } else { max }.max(old);
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    if quoted {
        out.push('"');
    }
}
