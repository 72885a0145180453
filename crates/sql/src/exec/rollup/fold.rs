//! Partial aggregates of a roll-up: the group row of one base row ([`partial`]), the merge of
//! two partial rows of one group ([`merge`]), and the same merge as an upsert program
//! ([`program`]) that the storage engine runs when a message reaches the stored group row.
//!
//! Invariants: [`merge`] and [`program`] compute the same thing (COUNTs add, SUMs add ignoring
//! NULL, MIN/MAX keep the least/greatest non-NULL value), so a group row is the same whether
//! its rows were merged in memory (backfill, one statement's batch) or by messages; MIN and MAX
//! merges are idempotent (merging a value already counted changes nothing, design.md RUP4).

use std::ops::Range;

use crate::catalog::rollup::RollupFunc;
use crate::catalog::{RollupDef, TableDef};
use crate::codec::row::encode_row;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{BinOp, Expr};
use crate::store::upsert::Assignment;
use crate::types::coerce::{coerce_to_column, SqlMode};
use crate::types::collation::Collation;
use crate::types::value::{sql_cmp, Value};

/// The group row of base row `row` alone: group values, then each aggregate of this one row.
pub fn partial(r: &TableDef, def: &RollupDef, row: &[Value]) -> DbResult<Vec<Value>> {
    let mut out = def.group_values(row)?;
    if let Some(i) = out.iter().position(Value::is_null) {
        return Err(DbError::new(
            ErrorCode::BadNullError,
            format!(
                "Column '{}' cannot be null (a group of roll-up '{}')",
                r.columns[i].name, r.name
            ),
        ));
    }
    for a in &def.aggs {
        let v = a.col.map_or(Value::Null, |c| row[c].clone());
        out.push(match a.func {
            RollupFunc::CountStar => Value::Int(1),
            RollupFunc::Count => Value::Int(i64::from(!v.is_null())),
            RollupFunc::Sum | RollupFunc::Min | RollupFunc::Max => v,
        });
    }
    Ok(out)
}

/// `a + b` as SQL computes it.
pub fn add(a: &Value, b: &Value) -> DbResult<Value> {
    arith(BinOp::Add, a, b)
}

/// `a op b` as SQL computes it.
pub fn arith(op: BinOp, a: &Value, b: &Value) -> DbResult<Value> {
    let e = Expr::Binary(
        op,
        Box::new(Expr::Lit(a.clone())),
        Box::new(Expr::Lit(b.clone())),
        Collation::Binary,
    );
    eval(&e, &EvalCtx::row(&[]))
}

/// Whether `v` should replace `best` for `func` (MIN or MAX; NULL never does).
pub fn better(func: RollupFunc, v: &Value, best: &Value) -> bool {
    if v.is_null() {
        return false;
    }
    if best.is_null() {
        return true;
    }
    let o = sql_cmp(v, best, Collation::Binary);
    match func {
        RollupFunc::Min => o == Some(std::cmp::Ordering::Less),
        _ => o == Some(std::cmp::Ordering::Greater),
    }
}

/// Merges partial row `b` into `a` (rows of one group).
pub fn merge(def: &RollupDef, a: &mut [Value], b: &[Value]) -> DbResult<()> {
    let n = def.groups.len();
    for (j, agg) in def.aggs.iter().enumerate() {
        let k = n + j;
        let v = &b[k];
        match agg.func {
            RollupFunc::CountStar | RollupFunc::Count => a[k] = add(&a[k], v)?,
            RollupFunc::Sum => {
                if !v.is_null() {
                    a[k] = if a[k].is_null() {
                        v.clone()
                    } else {
                        add(&a[k], v)?
                    };
                }
            }
            RollupFunc::Min | RollupFunc::Max => {
                if better(agg.func, v, &a[k]) {
                    a[k] = v.clone();
                }
            }
        }
    }
    Ok(())
}

/// `CASE WHEN <when> THEN <then> ... ELSE <else> END`.
fn case(whens: Vec<(Expr, Expr)>, otherwise: Expr) -> Expr {
    Expr::Case(None, whens, Some(Box::new(otherwise)), Collation::Binary)
}

fn is_null(e: &Expr) -> Expr {
    Expr::IsNull(Box::new(e.clone()), false)
}

fn bin(op: BinOp, a: &Expr, b: &Expr) -> Expr {
    Expr::Binary(
        op,
        Box::new(a.clone()),
        Box::new(b.clone()),
        Collation::Binary,
    )
}

/// The upsert program that merges the message's row (`VALUES(c)`) into the stored group row
/// (`c`): [`merge`] as expressions.
pub fn program(def: &RollupDef) -> Vec<Assignment> {
    let n = def.groups.len();
    def.aggs
        .iter()
        .enumerate()
        .map(|(j, agg)| {
            let k = n + j;
            let (old, new) = (Expr::Col(k), Expr::InsertValue(k));
            let e = match agg.func {
                RollupFunc::CountStar | RollupFunc::Count => bin(BinOp::Add, &old, &new),
                RollupFunc::Sum => case(
                    vec![(is_null(&new), old.clone()), (is_null(&old), new.clone())],
                    bin(BinOp::Add, &old, &new),
                ),
                RollupFunc::Min | RollupFunc::Max => {
                    let op = if agg.func == RollupFunc::Min {
                        BinOp::Lt
                    } else {
                        BinOp::Gt
                    };
                    case(
                        vec![
                            (is_null(&new), old.clone()),
                            (is_null(&old), new.clone()),
                            (bin(op, &new, &old), new.clone()),
                        ],
                        old,
                    )
                }
            };
            (k, e)
        })
        .collect()
}

/// The primary key and the stored bytes of group row `vals` of roll-up table `r` (values
/// coerced to its columns).
pub fn encode(r: &TableDef, vals: &[Value]) -> DbResult<(Vec<u8>, Vec<u8>)> {
    let mut row = vals.to_vec();
    coerce(r, &mut row, 0..vals.len())?;
    let key = r.encode_pk(&row)?;
    let mut bytes = Vec::new();
    encode_row(&r.layout, &row, &mut bytes)?;
    Ok((key, bytes))
}

/// The stored bytes of group row `vals` whose values are coerced to `r`'s columns already.
pub fn encode_coerced(r: &TableDef, vals: &[Value]) -> DbResult<Vec<u8>> {
    let mut bytes = Vec::new();
    encode_row(&r.layout, vals, &mut bytes)?;
    Ok(bytes)
}

/// The values at positions `which` of group row `vals` coerced to those columns of roll-up
/// table `r`.
pub fn coerce(r: &TableDef, vals: &mut [Value], which: Range<usize>) -> DbResult<()> {
    let mut warnings = Vec::new();
    for i in which {
        let (Some(v), Some(c)) = (vals.get_mut(i), r.columns.get(i)) else {
            return Err(DbError::internal("roll-up row and table differ in width"));
        };
        *v = coerce_to_column(v, c, 1, SqlMode::utc(false), &mut warnings)?;
    }
    Ok(())
}
