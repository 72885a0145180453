//! Applying an upsert message ([`apply`], registered in the storage engine's `UpdateRegistry`):
//! the inserted row when the key is absent, else the program run on the old row.
//!
//! Invariants: never panics and is deterministic (a program is reused only for an argument whose
//! bytes around the row are equal to the ones it was decoded from); an undecodable argument or a program that
//! fails keeps the old row unchanged; results are coerced non-strictly (a blind upsert cannot
//! report an error).

use std::cell::RefCell;
use std::rc::Rc;

use super::arg::{decode_arg, row_between, Program};
use crate::codec::row::{decode_row, encode_row};
use crate::expr::eval::{eval, EvalCtx};
use crate::types::coerce::{coerce_to_column, SqlMode};

/// The last program decoded on this thread, with the argument bytes around its row (head, tail):
/// the messages of one statement share them, so each is decoded once, not once per row.
struct LastProgram {
    head: Vec<u8>,
    tail: Vec<u8>,
    program: Rc<Program>,
}

thread_local! {
    static LAST: RefCell<Option<LastProgram>> = const { RefCell::new(None) };
}

/// Runs the program: the inserted row when `old` is absent, else the updated old row.
pub fn apply(old: Option<&[u8]>, arg: &[u8]) -> Option<Vec<u8>> {
    let Some((program, row)) = program_of(arg) else {
        return old.map(|o| o.to_vec());
    };
    let insert_row = &arg[row];
    let Some(old) = old else {
        return Some(insert_row.to_vec());
    };
    if let Some(row) = program
        .in_place
        .as_ref()
        .and_then(|p| p.run(insert_row, old))
    {
        return Some(row);
    }
    run(&program, insert_row, old).or_else(|| Some(old.to_vec()))
}

/// The program of `arg` and where its row lies: the last one decoded if `arg` has its head and tail
/// (bytes equal, so the decoding would be equal), else decoded now (and remembered).
fn program_of(arg: &[u8]) -> Option<(Rc<Program>, std::ops::Range<usize>)> {
    let hit = LAST.with(|last| {
        let last = last.borrow();
        let l = last.as_ref()?;
        row_between(arg, &l.head, &l.tail).map(|row| (l.program.clone(), row))
    });
    if hit.is_some() {
        return hit;
    }
    let d = decode_arg(arg)?;
    let program = Rc::new(d.program);
    LAST.with(|last| {
        *last.borrow_mut() = Some(LastProgram {
            head: arg[..d.head_end].to_vec(),
            tail: arg[d.row.end..].to_vec(),
            program: program.clone(),
        })
    });
    Some((program, d.row))
}

/// Runs the assignments left to right on `old`; `None` if a step fails.
pub(super) fn run(d: &Program, insert_row: &[u8], old: &[u8]) -> Option<Vec<u8>> {
    let mut cur = decode_row(&d.layout, old).ok()?;
    let new = decode_row(&d.layout, insert_row).ok()?;
    let mut warnings = Vec::new();
    // Applied outside any statement: a division by zero is NULL (a statement that must report
    // one never defers it: expr.rs).
    let _div_zero =
        crate::expr::eval::div_zero::scoped(crate::expr::eval::div_zero::OnDivZero::Null);
    for (col, e) in &d.assignments {
        let v = eval(
            e,
            &EvalCtx {
                row: &cur,
                aggs: &[],
                insert: &new,
                ..Default::default()
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
