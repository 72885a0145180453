//! Window functions: the value of every [`WinCall`] of a SELECT block for every row the window
//! sees (a row that passed WHERE and HAVING, or a group of a grouped query), computed after all
//! those rows are known and before projection, DISTINCT, ORDER BY and LIMIT (exec/select.rs).
//!
//! For each call the rows are sorted (stably) by PARTITION BY (NULLs first) then the window's
//! ORDER BY; each partition is walked in that order. Rows whose ORDER BY keys compare equal
//! (under the keys' collations; NULLs equal) are peers: they share RANK, CUME_DIST and a RANGE
//! frame's CURRENT ROW bound.
//!
//! Invariants:
//! * the value of row `i` of every call is `values[i][call]`: the rows keep their identity, only
//!   the order of the result changes (it is the order of the last call's sort, as MariaDB leaves
//!   it, until ORDER BY sorts it);
//! * frames are half-open index ranges inside the partition; an empty frame gives what an
//!   aggregate over no rows gives (COUNT 0, others NULL), FIRST/LAST/NTH_VALUE NULL;
//! * an aggregate whose frame starts at the partition's first row is accumulated once per
//!   partition (running); COUNT, SUM and AVG over any other frame slide (rows entering the frame
//!   are added, then rows leaving it taken back, so sums of doubles round as MariaDB's do); the
//!   other aggregates are accumulated per row over the frame.

use std::cmp::Ordering;

use super::percentile::ten_decimals;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::external_sort::{sort_rows, SortBudget, SortStats};
use crate::expr::aggregate::Accumulator;
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::window::{Bound, FrameUnit, WinCall, WinFunc};
use crate::expr::{AggSpec, BinOp, Expr};
use crate::types::collation::Collation;
use crate::types::value::{cmp_nulls_first, sql_cmp, Value};

/// A row the windows see: the row (a group's first row) and the group's aggregate values.
pub struct Base {
    pub row: Vec<Value>,
    pub aggs: Vec<Value>,
}

impl Base {
    fn ctx(&self) -> EvalCtx<'_> {
        EvalCtx {
            row: &self.row,
            aggs: &self.aggs,
            ..Default::default()
        }
    }
}

/// Each base's value of each call, the order the rows come out in, and what the windows' sorts
/// (one per call, within `budget`: external_sort.rs) did.
pub fn compute(
    calls: &[WinCall],
    bases: &[Base],
    budget: &SortBudget,
) -> DbResult<(Vec<Vec<Value>>, Vec<usize>, SortStats)> {
    let mut values = vec![vec![Value::Null; calls.len()]; bases.len()];
    let mut orders: Vec<Vec<usize>> = Vec::with_capacity(calls.len());
    let mut stats = SortStats::default();
    for (c, call) in calls.iter().enumerate() {
        let ev = evaluate(call, bases)?;
        // Calls with the same PARTITION BY and ORDER BY share one sort, as in MariaDB.
        let same = (0..c).find(|&p| same_sort(&calls[p], call));
        let idx = match same {
            Some(p) => orders[p].clone(),
            None => {
                let (idx, sorted) = sort_bases(call, &ev, budget)?;
                stats.add(sorted);
                idx
            }
        };
        compute_one(call, &ev, &idx, |i, v| values[i][c] = v)?;
        orders.push(idx);
    }
    let last = (0..calls.len())
        .min_by(|&a, &b| spec_order(&calls[a], &calls[b]))
        .unwrap_or(0);
    let order = orders
        .into_iter()
        .nth(last)
        .unwrap_or_else(|| (0..bases.len()).collect());
    Ok((values, order, stats))
}

/// Whether two calls sort their rows alike.
fn same_sort(a: &WinCall, b: &WinCall) -> bool {
    a.partition == b.partition
        && a.partition_collations == b.partition_collations
        && a.order == b.order
        && a.order_collations == b.order_collations
}

/// MariaDB computes a SELECT's windows sorted by their PARTITION BY then ORDER BY keys and
/// leaves the rows in the order of the last sort, that of the least window under this order:
/// PARTITION BY lists first, then ORDER BY lists, key by key: columns by their position (ascending before descending) and before any other
/// expression, other expressions in the order they were written; a prefix before the longer list.
fn spec_order(a: &WinCall, b: &WinCall) -> Ordering {
    let part = |w: &WinCall| -> Vec<(Option<usize>, bool)> {
        w.partition.iter().map(|e| (e.col_index(), false)).collect()
    };
    let order = |w: &WinCall| -> Vec<(Option<usize>, bool)> {
        w.order.iter().map(|(e, d)| (e.col_index(), *d)).collect()
    };
    key_list_order(&part(a), &part(b)).then_with(|| key_list_order(&order(a), &order(b)))
}

fn key_list_order(ka: &[(Option<usize>, bool)], kb: &[(Option<usize>, bool)]) -> Ordering {
    for (x, y) in ka.iter().zip(kb) {
        let o = match (x.0, y.0) {
            (Some(i), Some(j)) => i.cmp(&j).then(x.1.cmp(&y.1)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    ka.len().cmp(&kb.len())
}

/// One call's keys and arguments, evaluated once per base.
struct Evaluated {
    part: Vec<Vec<Value>>,
    order: Vec<Vec<Value>>,
    args: Vec<Vec<Value>>,
}

fn evaluate(call: &WinCall, bases: &[Base]) -> DbResult<Evaluated> {
    let mut ev = Evaluated {
        part: Vec::with_capacity(bases.len()),
        order: Vec::with_capacity(bases.len()),
        args: Vec::with_capacity(bases.len()),
    };
    let args: &[Expr] = match &call.func {
        WinFunc::Agg(spec) => &spec.arg,
        _ => &call.args,
    };
    for b in bases {
        let cx = b.ctx();
        let all = |es: &mut dyn Iterator<Item = &Expr>| -> DbResult<Vec<Value>> {
            es.map(|e| eval(e, &cx)).collect()
        };
        ev.part.push(all(&mut call.partition.iter())?);
        ev.order.push(all(&mut call.order.iter().map(|(e, _)| e))?);
        ev.args.push(all(&mut args.iter())?);
    }
    Ok(ev)
}

fn cmp_keys(a: &[Value], b: &[Value], colls: &[Collation], desc: &[bool]) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = cmp_nulls_first(x, y, colls.get(i).copied().unwrap_or_default());
        if o != Ordering::Equal {
            return if desc.get(i).copied().unwrap_or(false) {
                o.reverse()
            } else {
                o
            };
        }
    }
    Ordering::Equal
}

/// The bases in the call's order (stably sorted by PARTITION BY, then ORDER BY), sorted within
/// `budget` (external_sort.rs: the sort keys and base numbers are what spills).
fn sort_bases(
    call: &WinCall,
    ev: &Evaluated,
    budget: &SortBudget,
) -> DbResult<(Vec<usize>, SortStats)> {
    let desc: Vec<bool> = call.order.iter().map(|(_, d)| *d).collect();
    let np = call.partition.len();
    let order = move |a: &[Value], b: &[Value]| {
        cmp_keys(&a[..np], &b[..np], &call.partition_collations, &[])
            .then_with(|| cmp_keys(&a[np..], &b[np..], &call.order_collations, &desc))
    };
    let rows = ev
        .part
        .iter()
        .zip(&ev.order)
        .enumerate()
        .map(|(i, (p, o))| {
            let mut keys = Vec::with_capacity(p.len() + o.len());
            keys.extend_from_slice(p);
            keys.extend_from_slice(o);
            (keys, vec![Value::UInt(i as u64)])
        });
    let (sorted, stats) = sort_rows(rows, Box::new(order), budget.clone(), None)?;
    let idx = sorted
        .iter()
        .map(|(_, r)| match r.first() {
            Some(Value::UInt(i)) => Ok(*i as usize),
            _ => Err(DbError::internal("a window's sort lost a row number")),
        })
        .collect::<DbResult<Vec<usize>>>()?;
    Ok((idx, stats))
}

/// Computes `call` for every base (`set(base, value)`), walking the bases in the call's order
/// `idx`.
fn compute_one(
    call: &WinCall,
    ev: &Evaluated,
    idx: &[usize],
    mut set: impl FnMut(usize, Value),
) -> DbResult<()> {
    let desc: Vec<bool> = call.order.iter().map(|(_, d)| *d).collect();
    let mut lo = 0;
    while lo < idx.len() {
        let mut hi = lo + 1;
        while hi < idx.len()
            && cmp_keys(
                &ev.part[idx[lo]],
                &ev.part[idx[hi]],
                &call.partition_collations,
                &[],
            ) == Ordering::Equal
        {
            hi += 1;
        }
        let part = Partition {
            call,
            ev,
            rows: &idx[lo..hi],
            desc: &desc,
        };
        for (k, v) in part.values()?.into_iter().enumerate() {
            set(idx[lo + k], v);
        }
        lo = hi;
    }
    Ok(())
}

/// One partition of one call: `rows` are base indexes in the window's order.
struct Partition<'a> {
    call: &'a WinCall,
    ev: &'a Evaluated,
    rows: &'a [usize],
    desc: &'a [bool],
}

impl Partition<'_> {
    fn order_key(&self, k: usize) -> &[Value] {
        &self.ev.order[self.rows[k]]
    }

    fn arg(&self, k: usize, a: usize) -> Value {
        self.ev.args[self.rows[k]]
            .get(a)
            .cloned()
            .unwrap_or(Value::Null)
    }

    fn peers(&self, a: usize, b: usize) -> bool {
        cmp_keys(
            self.order_key(a),
            self.order_key(b),
            &self.call.order_collations,
            self.desc,
        ) == Ordering::Equal
    }

    /// For each row, the first and one-past-last row of its peer group.
    fn peer_groups(&self) -> Vec<(usize, usize)> {
        let n = self.rows.len();
        let mut out = vec![(0, 0); n];
        let mut s = 0;
        while s < n {
            let mut e = s + 1;
            while e < n && self.peers(s, e) {
                e += 1;
            }
            for o in &mut out[s..e] {
                *o = (s, e);
            }
            s = e;
        }
        out
    }

    fn values(&self) -> DbResult<Vec<Value>> {
        let n = self.rows.len();
        self.check_range_keys()?;
        let peers = self.peer_groups();
        let mut out = Vec::with_capacity(n);
        match &self.call.func {
            WinFunc::RowNumber => out.extend((1..=n).map(|k| Value::Int(k as i64))),
            WinFunc::Rank => out.extend(peers.iter().map(|p| Value::Int(p.0 as i64 + 1))),
            WinFunc::DenseRank => {
                let mut rank = 0i64;
                for (k, p) in peers.iter().enumerate() {
                    if p.0 == k {
                        rank += 1;
                    }
                    out.push(Value::Int(rank));
                }
            }
            WinFunc::PercentRank => out.extend(peers.iter().map(|p| {
                ten_decimals(if n > 1 {
                    p.0 as f64 / (n - 1) as f64
                } else {
                    0.0
                })
            })),
            WinFunc::CumeDist => {
                out.extend(peers.iter().map(|p| ten_decimals(p.1 as f64 / n as f64)))
            }
            WinFunc::Ntile => {
                // The argument must be the same on every row of the partition (4024 otherwise).
                let first = self.arg(0, 0);
                for k in 0..n {
                    let b = self.arg(k, 0);
                    if k > 0 && cmp_nulls_first(&b, &first, Collation::default()) != Ordering::Equal
                    {
                        return Err(ntile_error());
                    }
                    out.push(Value::Int(ntile(&b, k, n)?));
                }
            }
            WinFunc::Lag | WinFunc::Lead => {
                for k in 0..n {
                    out.push(self.lag_lead(k));
                }
            }
            WinFunc::FirstValue | WinFunc::LastValue | WinFunc::NthValue => {
                for k in 0..n {
                    let (s, e) = self.frame(k, &peers)?;
                    out.push(self.pick(k, s, e));
                }
            }
            WinFunc::PercentileCont | WinFunc::PercentileDisc => {
                let rows: Vec<(&Value, &Value)> = (0..n)
                    .map(|k| {
                        let arg = self.ev.args[self.rows[k]].first().unwrap_or(&Value::Null);
                        (arg, self.order_key(k).first().unwrap_or(&Value::Null))
                    })
                    .collect();
                let v = super::percentile::partition_value(&self.call.func, &rows)?;
                // A row whose argument is NULL has NULL (MariaDB reads the argument per row).
                out.extend(rows.iter().map(|(arg, _)| {
                    if arg.is_null() {
                        Value::Null
                    } else {
                        v.clone()
                    }
                }));
            }
            WinFunc::Agg(spec) => return self.aggregate(spec, &peers),
        }
        Ok(out)
    }

    fn lag_lead(&self, k: usize) -> Value {
        let offset = match self.ev.args[self.rows[k]].get(1) {
            None => 1,
            Some(v) => match v.to_f64_lenient() {
                Some(f) if !v.is_null() => f as i64,
                _ => return Value::Null,
            },
        };
        let offset = if self.call.func == WinFunc::Lag {
            -offset
        } else {
            offset
        };
        let at = k as i64 + offset;
        if at >= 0 && (at as usize) < self.rows.len() {
            self.arg(at as usize, 0)
        } else {
            self.arg(k, 2)
        }
    }

    /// FIRST_VALUE, LAST_VALUE, NTH_VALUE over rows `s..e`.
    fn pick(&self, k: usize, s: usize, e: usize) -> Value {
        if s >= e {
            return Value::Null;
        }
        match self.call.func {
            WinFunc::FirstValue => self.arg(s, 0),
            WinFunc::LastValue => self.arg(e - 1, 0),
            _ => match self.arg(k, 1).to_f64_lenient() {
                Some(nth) if nth >= 1.0 && s + (nth as usize) - 1 < e => {
                    self.arg(s + nth as usize - 1, 0)
                }
                _ => Value::Null,
            },
        }
    }

    fn aggregate(&self, spec: &AggSpec, peers: &[(usize, usize)]) -> DbResult<Vec<Value>> {
        // The arguments are already evaluated: the accumulator reads them as columns.
        let spec = AggSpec {
            arg: (0..spec.arg.len()).map(Expr::Col).collect(),
            ..spec.clone()
        };
        if matches!(self.call.frame.start, Bound::UnboundedPreceding) {
            self.running(&spec, peers)
        } else if Accumulator::removable(spec.func) {
            self.sliding(&spec, peers)
        } else {
            let mut out = Vec::with_capacity(self.rows.len());
            for k in 0..self.rows.len() {
                let (s, e) = self.frame(k, peers)?;
                let mut a = Accumulator::new(&spec);
                for j in s..e {
                    a.add(&spec, &self.arg_ctx(j))?;
                }
                out.push(a.finish(&spec));
            }
            Ok(out)
        }
    }

    fn arg_ctx(&self, j: usize) -> EvalCtx<'_> {
        EvalCtx::row(&self.ev.args[self.rows[j]])
    }

    /// A frame that starts at the partition's first row: rows are only ever added.
    fn running(&self, spec: &AggSpec, peers: &[(usize, usize)]) -> DbResult<Vec<Value>> {
        let mut out = Vec::with_capacity(self.rows.len());
        let mut acc = Accumulator::new(spec);
        let (mut added, mut last): (usize, Option<(usize, Value)>) = (0, None);
        for k in 0..self.rows.len() {
            let (_, e) = self.frame(k, peers)?;
            if let Some((end, v)) = &last {
                if *end == e {
                    out.push(v.clone());
                    continue;
                }
            }
            while added < e {
                acc.add(spec, &self.arg_ctx(added))?;
                added += 1;
            }
            let v = acc.clone().finish(spec);
            last = Some((e, v.clone()));
            out.push(v);
        }
        Ok(out)
    }

    /// COUNT, SUM and AVG over a moving frame, as MariaDB computes them: for each row the rows
    /// that entered the frame are added first, then the rows that left it are taken back.
    fn sliding(&self, spec: &AggSpec, peers: &[(usize, usize)]) -> DbResult<Vec<Value>> {
        let mut out = Vec::with_capacity(self.rows.len());
        let mut acc = Accumulator::new(spec);
        let (mut cs, mut ce) = (0usize, 0usize);
        for k in 0..self.rows.len() {
            let (s, e) = self.frame(k, peers)?;
            if ce < s {
                // The frame moved past every row added so far.
                while cs < ce {
                    acc.remove(spec, &self.arg_ctx(cs))?;
                    cs += 1;
                }
                (cs, ce) = (s, s);
            }
            while ce < e {
                acc.add(spec, &self.arg_ctx(ce))?;
                ce += 1;
            }
            while cs < s {
                acc.remove(spec, &self.arg_ctx(cs))?;
                cs += 1;
            }
            out.push(acc.clone().finish(spec));
        }
        Ok(out)
    }

    /// Row `k`'s frame as a half-open range of the partition's rows (`s >= e`: empty).
    fn frame(&self, k: usize, peers: &[(usize, usize)]) -> DbResult<(usize, usize)> {
        let n = self.rows.len();
        let f = &self.call.frame;
        let s = match &f.start {
            Bound::UnboundedPreceding => 0,
            Bound::UnboundedFollowing => n,
            Bound::CurrentRow if f.unit == FrameUnit::Range => peers[k].0,
            Bound::CurrentRow => k,
            b => self.offset_bound(k, b, true, peers)?,
        };
        let e = match &f.end {
            Bound::UnboundedPreceding => 0,
            Bound::UnboundedFollowing => n,
            Bound::CurrentRow if f.unit == FrameUnit::Range => peers[k].1,
            Bound::CurrentRow => k + 1,
            b => self.offset_bound(k, b, false, peers)?,
        };
        Ok((s, e.max(s)))
    }

    /// An `n PRECEDING` / `n FOLLOWING` bound: the first row of the frame (`start`) or one past
    /// its last row.
    fn offset_bound(
        &self,
        k: usize,
        b: &Bound,
        start: bool,
        peers: &[(usize, usize)],
    ) -> DbResult<usize> {
        let n = self.rows.len();
        let (v, following) = match b {
            Bound::Preceding(v) => (v, false),
            Bound::Following(v) => (v, true),
            _ => return Err(DbError::internal("offset_bound of an unbounded bound")),
        };
        if self.call.frame.unit == FrameUnit::Rows {
            let off = match v {
                Value::Int(i) => *i as i128,
                Value::UInt(u) => *u as i128,
                _ => 0,
            };
            let at = k as i128 + if following { off } else { -off } + i128::from(!start);
            return Ok(at.clamp(0, n as i128) as usize);
        }
        let cur = &self.order_key(k)[0];
        if cur.is_null() {
            return Ok(if start { peers[k].0 } else { peers[k].1 });
        }
        let desc = self.desc.first().copied().unwrap_or(false);
        // The bound's key value: `cur - v` before the row in the window's order, `cur + v` after.
        let op = if following != desc {
            BinOp::Add
        } else {
            BinOp::Sub
        };
        let target = range_key(cur, v, op)?;
        let coll = self
            .call
            .order_collations
            .first()
            .copied()
            .unwrap_or_default();
        // Rows before the bound in the window's order (NULL keys sort first ascending, last
        // descending); the keys are sorted, so the rows before it are a prefix.
        let before = |j: usize| -> bool {
            let key = &self.order_key(j)[0];
            if key.is_null() {
                return !desc;
            }
            let o = sql_cmp(key, &target, coll).unwrap_or(Ordering::Equal);
            let o = if desc { o.reverse() } else { o };
            if start {
                o == Ordering::Less
            } else {
                o != Ordering::Greater
            }
        };
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if before(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// 4021 unless every non-NULL ORDER BY key is a number (RANGE frames with an offset).
    fn check_range_keys(&self) -> DbResult<()> {
        let f = &self.call.frame;
        let offset = |b: &Bound| matches!(b, Bound::Preceding(_) | Bound::Following(_));
        if f.unit != FrameUnit::Range || !(offset(&f.start) || offset(&f.end)) {
            return Ok(());
        }
        for k in 0..self.rows.len() {
            if let Some(v) = self.order_key(k).first().filter(|v| !v.is_null()) {
                numeric(v)?;
            }
        }
        Ok(())
    }
}

/// 4021 unless `v` is a number (RANGE frames with an offset need a numeric ORDER BY key).
fn numeric(v: &Value) -> DbResult<()> {
    match v {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            Ok(())
        }
        _ => Err(DbError::new(
            ErrorCode::WrongTypeForRangeFrame,
            "Numeric datatype is required for RANGE-type frame",
        )),
    }
}

fn range_key(cur: &Value, offset: &Value, op: BinOp) -> DbResult<Value> {
    numeric(cur)?;
    eval(
        &Expr::Binary(
            op,
            Box::new(Expr::Lit(cur.clone())),
            Box::new(Expr::Lit(offset.clone())),
            Collation::default(),
        ),
        &EvalCtx::default(),
    )
}

fn ntile_error() -> DbError {
    DbError::new(
        ErrorCode::InvalidNtileArgument,
        "Argument of NTILE must be greater than 0",
    )
}

/// NTILE(buckets) of row `k` of `n`: the first `n % buckets` buckets hold one row more.
fn ntile(buckets: &Value, k: usize, n: usize) -> DbResult<i64> {
    let b = match buckets {
        Value::Int(i) if *i > 0 => *i as u64,
        Value::UInt(u) if *u > 0 => *u,
        v if !v.is_null() && v.to_f64_lenient().is_some_and(|f| f >= 1.0) => {
            v.to_f64_lenient().unwrap_or(1.0) as u64
        }
        _ => return Err(ntile_error()),
    };
    let (n, k) = (n as u64, k as u64);
    let small = n / b;
    let big = small + 1;
    let bigs = n % b;
    Ok(if k < bigs * big {
        k / big + 1
    } else {
        bigs + (k - bigs * big) / small.max(1) + 1
    } as i64)
}
