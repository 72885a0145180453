//! Grouping: [`group_key`] (a byte key equal for values MySQL groups together) and
//! [`Accumulator`] (COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, JSON_ARRAYAGG and JSON_OBJECTAGG
//! (concat.rs), BIT_AND, BIT_OR, BIT_XOR, the standard deviations and variances, and Betula's
//! FIRST, LAST, DELTA and RATE (counter_rate.rs)).
//!
//! Result types follow MySQL: COUNT is BIGINT; SUM of exact values is DECIMAL, of approximate
//! ones DOUBLE; AVG of exact values is DECIMAL with 4 more digits of scale; MIN/MAX keep the
//! argument's value; STDDEV/VARIANCE and their _POP/_SAMP forms are computed in doubles
//! (Welford's running mean and squared deviations; a sample of one row is NULL) and shown, for
//! exact arguments, with 4 more decimals than the arguments have, as MariaDB prints them. Text
//! groups, DISTINCT, MIN/MAX and GROUP_CONCAT's ORDER BY compare under the collation of their
//! expression (`'a'` and `'A'` are one group under a `_ci` collation, two under a `_bin` one),
//! as MariaDB.
//!
//! FIRST(v, ts) / LAST(v, ts) give `v` of the row with the least / greatest `ts` (rows whose `ts` is
//! NULL are skipped; `v` may be NULL and is then the answer); among rows with that same `ts`, the
//! least `v` for FIRST and the greatest for LAST (NULL below every value), so the answer never
//! depends on the order rows are read in. No row with a `ts`: NULL.

use smallvec::SmallVec;
use std::collections::HashSet;

use crate::error::db_error::DbResult;
use crate::expr::concat;
use crate::expr::counter_rate::CounterSeries;
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{AggFunc, AggSpec, BinOp};
use crate::types::collation::Collation;
use crate::types::decimal::Decimal;
use crate::types::value::{sql_cmp, Value};

/// A byte string equal for values that group together; text compares under `colls[i]` (the
/// default collation where `colls` is shorter).
pub fn group_key(vals: &[Value], colls: &[Collation]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, v) in vals.iter().enumerate() {
        let coll = colls.get(i).copied().unwrap_or_default();
        match v {
            Value::Null => out.push(0),
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => {
                out.push(1);
                let d = match v {
                    Value::Int(i) => Decimal::from_i64(*i),
                    Value::UInt(u) => Decimal::from_u64(*u),
                    Value::Decimal(d) => *d,
                    _ => Decimal::from_i64(0),
                };
                // Normalize scale: strip trailing zeros.
                let mut d = d;
                while d.scale() > 0 && d.truncate_to(d.scale() - 1) == d {
                    d = d.truncate_to(d.scale() - 1);
                }
                match d.small_mantissa() {
                    Some(m) => out.extend(m.to_le_bytes()),
                    None => out.extend(d.wide_mantissa().to_le_bytes(32).unwrap_or_default()),
                }
                out.push(d.scale());
            }
            Value::Float(f) => {
                out.push(2);
                out.extend((*f as f64).to_bits().to_le_bytes());
            }
            Value::Double(f) => {
                out.push(2);
                out.extend(f.to_bits().to_le_bytes());
            }
            Value::Text(s) => {
                out.push(3);
                let k = coll.sort_key(s.as_bytes());
                out.extend((k.len() as u64).to_le_bytes());
                out.extend(k.iter());
            }
            Value::Bytes(b) => {
                out.push(4);
                out.extend((b.len() as u64).to_le_bytes());
                out.extend(b);
            }
            Value::Date(d) => {
                out.push(5);
                out.extend(
                    crate::types::temporal::DateTime::from_date(*d)
                        .packed()
                        .to_le_bytes(),
                );
            }
            Value::DateTime(d) => {
                out.push(5);
                out.extend(d.packed().to_le_bytes());
            }
            Value::Time(t) => {
                out.push(6);
                out.extend(t.micros.to_le_bytes());
            }
        }
    }
    out
}

/// A deviation or variance as MariaDB shows it: of exact values with 4 more decimals than they
/// have (`STDDEV` of integers prints `1.2472`), of approximate ones as the double it is.
fn fixed_decimals(x: f64, exact: bool, scale: u8) -> Value {
    if exact {
        let scale = (scale + 4).min(30);
        let m = (x * 10f64.powi(scale as i32)).round();
        if m.abs() < 1e37 {
            if let Some(d) = Decimal::new(m as i128, scale) {
                return Value::Decimal(d);
            }
        }
    }
    Value::Double(x)
}

#[derive(Clone)]
pub struct Accumulator {
    count: u64,
    sum: Option<Value>,
    exact: bool,
    best: Option<Value>,
    concat: Vec<concat::Piece>,
    bits: Option<u64>,
    seen: HashSet<Vec<u8>>,
    /// FIRST / LAST: the `ts` of `best`.
    best_at: Option<Value>,
    /// Welford's running mean and sum of squared deviations (STDDEV, VARIANCE).
    mean: f64,
    m2: f64,
    /// The largest scale of the exact values seen (STDDEV, VARIANCE).
    scale: u8,
    /// DELTA / RATE: the group's readings.
    series: CounterSeries,
}

fn add(a: &Value, b: &Value) -> DbResult<Value> {
    arith(BinOp::Add, a, b)
}

fn sub(a: &Value, b: &Value) -> DbResult<Value> {
    arith(BinOp::Sub, a, b)
}

fn arith(op: BinOp, a: &Value, b: &Value) -> DbResult<Value> {
    crate::expr::eval::arith(op, a, b)
}

impl Accumulator {
    pub fn new(_spec: &AggSpec) -> Accumulator {
        Accumulator {
            count: 0,
            sum: None,
            exact: true,
            best: None,
            concat: Vec::new(),
            bits: None,
            seen: HashSet::new(),
            best_at: None,
            mean: 0.0,
            m2: 0.0,
            scale: 0,
            series: CounterSeries::default(),
        }
    }

    pub fn add(&mut self, spec: &AggSpec, cx: &EvalCtx<'_>) -> DbResult<()> {
        if spec.func == AggFunc::CountStar {
            self.count += 1;
            return Ok(());
        }
        let mut vals: SmallVec<[Value; 2]> = SmallVec::with_capacity(spec.arg.len());
        for a in &spec.arg {
            vals.push(eval(a, cx)?);
        }
        if matches!(spec.func, AggFunc::First | AggFunc::Last) {
            self.first_or_last(spec, vals.into_vec());
            return Ok(());
        }
        if matches!(spec.func, AggFunc::Delta | AggFunc::Rate) {
            self.series.add(&vals[0], &vals[1]);
            return Ok(());
        }
        // JSON_ARRAYAGG keeps a NULL as `null`; JSON_OBJECTAGG skips a NULL key only.
        let skipped = match spec.func {
            AggFunc::JsonArrayAgg => false,
            AggFunc::JsonObjectAgg => vals[0].is_null(),
            _ => vals.iter().any(Value::is_null),
        };
        if skipped {
            return Ok(());
        }
        if spec.distinct && !self.seen.insert(group_key(&vals, &spec.collations)) {
            return Ok(());
        }
        let v = &vals[0];
        self.count += 1;
        match spec.func {
            AggFunc::Count | AggFunc::CountStar => {}
            AggFunc::Sum | AggFunc::Avg => {
                if let (Value::Double(x), Some(Value::Double(s))) = (v, &mut self.sum) {
                    // Doubles add in place; an overflow takes the checked path below.
                    if (*s + x).is_finite() {
                        *s += x;
                        self.exact = false;
                        return Ok(());
                    }
                }
                let v = match v {
                    Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => v.clone(),
                    other => {
                        self.exact = false;
                        Value::Double(other.to_f64_lenient().unwrap_or(0.0))
                    }
                };
                self.sum = Some(match &self.sum {
                    None => v,
                    Some(s) => add(s, &v)?,
                });
            }
            AggFunc::Min | AggFunc::Max => {
                let better = match &self.best {
                    None => true,
                    Some(b) => {
                        let coll = spec.collations.first().copied().unwrap_or_default();
                        let o = sql_cmp(v, b, coll);
                        if spec.func == AggFunc::Min {
                            o == Some(std::cmp::Ordering::Less)
                        } else {
                            o == Some(std::cmp::Ordering::Greater)
                        }
                    }
                };
                if better {
                    self.best = Some(v.clone());
                }
            }
            AggFunc::GroupConcat | AggFunc::JsonArrayAgg | AggFunc::JsonObjectAgg => {
                if let Some(s) = concat::piece_text(spec, &vals) {
                    let mut keys = Vec::new();
                    for (e, _) in &spec.order {
                        keys.push(eval(e, cx)?);
                    }
                    self.concat.push((concat::sort_keys(spec, &vals, keys), s));
                }
            }
            AggFunc::First | AggFunc::Last | AggFunc::Delta | AggFunc::Rate => {}
            AggFunc::StdPop | AggFunc::StdSamp | AggFunc::VarPop | AggFunc::VarSamp => {
                match v {
                    Value::Int(_) | Value::UInt(_) => {}
                    Value::Decimal(d) => self.scale = self.scale.max(d.scale()),
                    _ => self.exact = false,
                }
                let x = v.to_f64_lenient().unwrap_or(0.0);
                let delta = x - self.mean;
                self.mean += delta / self.count as f64;
                self.m2 += delta * (x - self.mean);
            }
            AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => {
                let b = match v {
                    Value::Int(i) => *i as u64,
                    Value::UInt(u) => *u,
                    o => o.to_f64_lenient().unwrap_or(0.0) as i64 as u64,
                };
                self.bits = Some(match (self.bits, spec.func) {
                    (None, _) => b,
                    (Some(x), AggFunc::BitAnd) => x & b,
                    (Some(x), AggFunc::BitXor) => x ^ b,
                    (Some(x), _) => x | b,
                });
            }
        }
        Ok(())
    }

    /// Takes back one [`Accumulator::add`] of the same row, for a window frame that slides
    /// (exec/window.rs): only COUNT, SUM and AVG can ([`Accumulator::removable`]). A SUM of
    /// doubles keeps the rounding of the additions and subtractions, as MariaDB's does.
    pub fn remove(&mut self, spec: &AggSpec, cx: &EvalCtx<'_>) -> DbResult<()> {
        if spec.func == AggFunc::CountStar {
            self.count = self.count.saturating_sub(1);
            return Ok(());
        }
        let mut vals = Vec::with_capacity(spec.arg.len());
        for a in &spec.arg {
            vals.push(eval(a, cx)?);
        }
        if vals.iter().any(Value::is_null) {
            return Ok(());
        }
        self.count = self.count.saturating_sub(1);
        if matches!(spec.func, AggFunc::Sum | AggFunc::Avg) {
            let v = match &vals[0] {
                v @ (Value::Int(_) | Value::UInt(_) | Value::Decimal(_)) => v.clone(),
                other => Value::Double(other.to_f64_lenient().unwrap_or(0.0)),
            };
            if let Some(s) = &self.sum {
                self.sum = Some(sub(s, &v)?);
            }
        }
        Ok(())
    }

    /// Whether [`Accumulator::remove`] can take rows back for `func`.
    pub fn removable(func: AggFunc) -> bool {
        matches!(
            func,
            AggFunc::Count | AggFunc::CountStar | AggFunc::Sum | AggFunc::Avg
        )
    }

    /// FIRST / LAST: keeps `vals` (`[v, ts]`) if it comes before (FIRST) or after (LAST) the row kept.
    fn first_or_last(&mut self, spec: &AggSpec, mut vals: Vec<Value>) {
        let (Some(at), Some(v)) = (vals.pop(), vals.pop()) else {
            return;
        };
        if at.is_null() {
            return;
        }
        let coll = |i: usize| spec.collations.get(i).copied().unwrap_or_default();
        let better = match (&self.best_at, &self.best) {
            (Some(best_at), best) => {
                let by_at = sql_cmp(&at, best_at, coll(1)).unwrap_or(std::cmp::Ordering::Equal);
                let by_v = crate::types::value::cmp_nulls_first(
                    &v,
                    best.as_ref().unwrap_or(&Value::Null),
                    coll(0),
                );
                let o = by_at.then(by_v);
                if spec.func == AggFunc::First {
                    o == std::cmp::Ordering::Less
                } else {
                    o == std::cmp::Ordering::Greater
                }
            }
            (None, _) => true,
        };
        if better {
            self.best_at = Some(at);
            self.best = Some(v);
        }
    }

    pub fn finish(self, spec: &AggSpec) -> Value {
        match spec.func {
            AggFunc::First | AggFunc::Last => self.best.unwrap_or(Value::Null),
            AggFunc::Delta => self.series.delta(),
            AggFunc::Rate => self.series.rate(),
            AggFunc::Count | AggFunc::CountStar => Value::Int(self.count as i64),
            // A sliding window frame can take every row back (remove): no row, no sum.
            AggFunc::Sum | AggFunc::Avg if self.count == 0 => Value::Null,
            AggFunc::Sum => match self.sum {
                None => Value::Null,
                Some(Value::Int(i)) => Value::Decimal(Decimal::from_i64(i)),
                Some(Value::UInt(u)) => Value::Decimal(Decimal::from_u64(u)),
                Some(v) => v,
            },
            AggFunc::Avg => match self.sum {
                None => Value::Null,
                Some(s) => {
                    let n = self.count.max(1);
                    if self.exact {
                        let d = match s {
                            Value::Int(i) => Decimal::from_i64(i),
                            Value::UInt(u) => Decimal::from_u64(u),
                            Value::Decimal(d) => d,
                            _ => Decimal::from_i64(0),
                        };
                        let scale = (d.scale() + 4).min(30);
                        let shift = (scale - d.scale()) as u32;
                        match d
                            .small_mantissa()
                            .and_then(|m| m.checked_mul(crate::types::decimal::pow10(shift)))
                            .and_then(|m| {
                                let q = m / n as i128;
                                let r = m % n as i128;
                                let q = if r.abs() * 2 >= n as i128 {
                                    q + m.signum()
                                } else {
                                    q
                                };
                                Decimal::new(q, scale)
                            }) {
                            Some(d) => Value::Decimal(d),
                            None => Value::Double(d.to_f64() / n as f64),
                        }
                    } else {
                        Value::Double(s.to_f64_lenient().unwrap_or(0.0) / n as f64)
                    }
                }
            },
            AggFunc::Min | AggFunc::Max => self.best.unwrap_or(Value::Null),
            AggFunc::GroupConcat | AggFunc::JsonArrayAgg | AggFunc::JsonObjectAgg => {
                concat::join(spec, self.concat)
            }
            AggFunc::StdPop | AggFunc::StdSamp | AggFunc::VarPop | AggFunc::VarSamp => {
                let sample = matches!(spec.func, AggFunc::StdSamp | AggFunc::VarSamp);
                let n = self.count as f64 - if sample { 1.0 } else { 0.0 };
                if self.count == 0 || n <= 0.0 {
                    return Value::Null;
                }
                let var = self.m2 / n;
                let x = if matches!(spec.func, AggFunc::StdPop | AggFunc::StdSamp) {
                    var.sqrt()
                } else {
                    var
                };
                fixed_decimals(x, self.exact, self.scale)
            }
            AggFunc::BitAnd => Value::UInt(self.bits.unwrap_or(u64::MAX)),
            AggFunc::BitOr | AggFunc::BitXor => Value::UInt(self.bits.unwrap_or(0)),
        }
    }
}
