//! Applying an upsert message ([`apply`], registered in the storage engine's `UpdateRegistry`):
//! the inserted row when the key is absent, else the program run on the old row.
//!
//! Invariants: never panics and is deterministic; an undecodable argument or a program that
//! fails keeps the old row unchanged; results are coerced non-strictly (a blind upsert cannot
//! report an error).

use super::arg::{decode_arg, Decoded};
use crate::codec::row::{decode_row, encode_row};
use crate::expr::eval::{eval, EvalCtx};
use crate::types::coerce::{coerce_to_column, SqlMode};

/// Runs the program: the inserted row when `old` is absent, else the updated old row.
pub fn apply(old: Option<&[u8]>, arg: &[u8]) -> Option<Vec<u8>> {
    let Some(d) = decode_arg(arg) else {
        return old.map(|o| o.to_vec());
    };
    let Some(old) = old else {
        return Some(d.insert_row);
    };
    run(&d, old).or_else(|| Some(old.to_vec()))
}

/// Runs the assignments left to right on `old`; `None` if a step fails.
fn run(d: &Decoded, old: &[u8]) -> Option<Vec<u8>> {
    let mut cur = decode_row(&d.layout, old).ok()?;
    let new = decode_row(&d.layout, &d.insert_row).ok()?;
    let mut warnings = Vec::new();
    for (col, e) in &d.program {
        let v = eval(
            e,
            &EvalCtx {
                row: &cur,
                aggs: &[],
                insert: &new,
            },
        )
        .ok()?;
        let c = &d.columns[*col];
        let v = match coerce_to_column(&v, c, 1, SqlMode::utc(false), &mut warnings) {
            Ok(v) => v,
            Err(_) => c.default_value(),
        };
        let v = if v.is_null() && !c.nullable {
            c.implicit_value()
        } else {
            v
        };
        cur[*col] = v;
    }
    let mut out = Vec::new();
    encode_row(&d.layout, &cur, &mut out).ok()?;
    Some(out)
}
