//! Joins: the nested loop over a plan's sources ([`Join`]). Each table is read through its
//! access path, evaluated against the outer row (its bounds may name columns of earlier
//! tables); a LEFT JOIN's table that matches nothing contributes one row of NULLs.
//!
//! Invariants: a source's ON clause is checked on each of its rows, WHERE on each complete row;
//! a derived table is run once, before the first row is read ([`Join::new`]); the loop stops as
//! soon as the consumer asks it to, or at the next row after a KILL of the connection.
//! [`JoinStats`] counts, per source, how often it was read, the rows its access path handed out
//! and the rows that passed its conditions (what ANALYZE reports as `r_rows` and `r_filtered`).

use crate::context::Context;
use crate::error::db_error::DbResult;
use crate::exec::query::run_plan;
use crate::exec::scan::read_rows;
use crate::expr::eval::{eval, truth, EvalCtx};
use crate::expr::Expr;
use crate::plan::explain::JoinStats;
use crate::plan::from::{From, SrcKind};
use crate::result::Output;
use crate::types::value::Value;

/// A source's row handed to the loop: kept rows are copied, rows just read are moved.
enum Vals<'v> {
    Stored(&'v [Value]),
    Read(Vec<Value>),
}

/// A nested loop over `from`, ready to run.
pub struct Join<'a> {
    cx: &'a Context,
    from: &'a From,
    /// The rows of each derived-table source (empty for other sources).
    derived: Vec<Vec<Vec<Value>>>,
    stats: JoinStats,
}

impl<'a> Join<'a> {
    /// Runs the derived tables of `from` (they need the context mutably) and returns the loop.
    pub fn new(cx: &'a mut Context, from: &'a From) -> DbResult<Join<'a>> {
        let derived = materialize(cx, from)?;
        Ok(Join {
            cx,
            from,
            derived,
            stats: JoinStats::new(from.sources.len()),
        })
    }

    /// Runs the loop; `emit(row)` gets each row that passes `filter` and returns false to stop.
    pub fn run(
        &mut self,
        filter: Option<&Expr>,
        emit: &mut dyn FnMut(&[Value]) -> DbResult<bool>,
    ) -> DbResult<()> {
        let width = self.from.scope.cols.len();
        let mut row = vec![Value::Null; width];
        if self.from.sources.is_empty() {
            if passes(filter, &row)? {
                emit(&row)?;
            }
            return Ok(());
        }
        self.step(0, &mut row, filter, emit)?;
        Ok(())
    }

    /// What the loop read so far.
    pub fn stats(&self) -> &JoinStats {
        &self.stats
    }

    /// Reads source `i` for the current outer row; returns false when the consumer asked to
    /// stop.
    fn step(
        &mut self,
        i: usize,
        row: &mut Vec<Value>,
        filter: Option<&Expr>,
        emit: &mut dyn FnMut(&[Value]) -> DbResult<bool>,
    ) -> DbResult<bool> {
        let last = i + 1 == self.from.sources.len();
        let from = self.from;
        let s = &from.sources[i];
        self.stats.loops[i] += 1;
        let mut matched = false;
        let mut go_on = true;
        let mut visit = |this: &mut Self, vals: Vals<'_>, row: &mut Vec<Value>| {
            // Derived tables' rows are no scan: a KILL is seen here too.
            this.cx.check_interrupted()?;
            this.stats.rows[i] += 1;
            let slot = &mut row[s.offset..s.offset + s.ncols];
            match vals {
                Vals::Stored(v) => slot.clone_from_slice(&v[..s.ncols]),
                Vals::Read(v) => slot.iter_mut().zip(v).for_each(|(d, v)| *d = v),
            }
            if !passes(s.on_c.as_ref(), row)? {
                return Ok(true);
            }
            matched = true;
            if last {
                if !passes(filter, row)? {
                    return Ok(true);
                }
                this.stats.passed[i] += 1;
                return emit(row);
            }
            this.stats.passed[i] += 1;
            this.step(i + 1, row, filter, emit)
        };
        match &s.kind {
            SrcKind::Rows(rows) => {
                for r in rows {
                    if !visit(self, Vals::Stored(r), row)? {
                        go_on = false;
                        break;
                    }
                }
            }
            SrcKind::Sequence(seq) => {
                for v in seq.values() {
                    if !visit(self, Vals::Read(vec![Value::UInt(v)]), row)? {
                        go_on = false;
                        break;
                    }
                }
            }
            SrcKind::Derived(_) => {
                let rows = std::mem::take(&mut self.derived[i]);
                let mut result = Ok(());
                for r in &rows {
                    match visit(self, Vals::Stored(r), row) {
                        Ok(true) => {}
                        Ok(false) => {
                            go_on = false;
                            break;
                        }
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                self.derived[i] = rows;
                result?;
            }
            SrcKind::Table(t) => {
                let outer = row.clone();
                let mut inner_row = row.clone();
                let cx = self.cx;
                read_rows(
                    cx,
                    t,
                    &s.access,
                    &outer,
                    &s.needed,
                    s.reverse,
                    cx.snapshot.as_ref(),
                    &mut |_, vals| {
                        let cont = visit(self, Vals::Read(vals), &mut inner_row)?;
                        if !cont {
                            go_on = false;
                        }
                        Ok(cont)
                    },
                )?;
            }
        }
        if !go_on {
            return Ok(false);
        }
        if !matched && s.left {
            for v in &mut row[s.offset..s.offset + s.ncols] {
                *v = Value::Null;
            }
            if last {
                return if passes(filter, row)? {
                    emit(row)
                } else {
                    Ok(true)
                };
            }
            return self.step(i + 1, row, filter, emit);
        }
        Ok(true)
    }
}

/// Whether `e` holds for `row` (no condition: it does).
pub fn passes(e: Option<&Expr>, row: &[Value]) -> DbResult<bool> {
    match e {
        None => Ok(true),
        Some(e) => Ok(truth(&eval(e, &EvalCtx::row(row))?) == Some(true)),
    }
}

/// The rows of each derived table of `from`, run now (empty for other sources).
pub fn materialize(cx: &mut Context, from: &From) -> DbResult<Vec<Vec<Vec<Value>>>> {
    let mut out = Vec::with_capacity(from.sources.len());
    for s in &from.sources {
        out.push(match &s.kind {
            SrcKind::Derived(plan) => match run_plan(cx, plan, None)? {
                Output::Rows { rows, .. } => rows,
                _ => Vec::new(),
            },
            _ => Vec::new(),
        });
    }
    Ok(out)
}

/// Replaces each derived table of `from` by its rows (for statements that read a FROM list
/// more than once, such as multi-table UPDATE and DELETE).
pub fn materialize_in_place(cx: &mut Context, from: &mut From) -> DbResult<()> {
    let rows = materialize(cx, from)?;
    for (s, r) in from.sources.iter_mut().zip(rows) {
        if matches!(s.kind, SrcKind::Derived(_)) {
            s.kind = SrcKind::Rows(r);
        }
    }
    Ok(())
}
