//! Range extraction: which index to read and which key ranges, from the WHERE / ON conjuncts.
//!
//! Owns: [`choose_access`] (planning: pick the primary key or a secondary index whose leading
//! columns are constrained by `col = e`, `col IN (...)`, `col < e`, `BETWEEN`, ...; between
//! equally good ranges the primary key, then a clustering index, before a plain one) and
//! [`Access::key_ranges`] (execution: evaluate the bound expressions, coerce them to the key
//! columns' types, and encode byte ranges).
//!
//! Invariant: the ranges are always a superset of the matching rows; the full condition is
//! re-checked on every row read. `<`, `>`, BETWEEN give no range over an ENUM or SET keyed by
//! member number (key format 2): they compare text. A bound whose value does not convert exactly to the column type
//! is dropped (the range widens); an equality that cannot hold (NULL, or `int_col = 1.5`) gives no
//! range at all. Constants of a different kind than the column (a number against a text column,
//! compared as doubles by MySQL) are never pushed down.

use std::cmp::Ordering;
use std::ops::Bound;

use crate::catalog::TableDef;
use crate::codec::key::{encode_key_value, prefix_successor};
use crate::error::db_error::DbResult;
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::{BinOp, Expr};
use crate::types::coerce::{coerce_to_column, SqlMode};
use crate::types::value::{sql_cmp, Value};
use crate::types::{Column, SqlType};

/// A byte range of keys.
pub type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    /// `None` = primary key.
    pub index: Option<usize>,
    pub eq: Vec<Expr>,
    pub in_list: Option<Vec<Expr>>,
    pub lower: Option<(Expr, bool)>,
    pub upper: Option<(Expr, bool)>,
    /// The condition checked on index entries before rows are fetched (index_condition.rs).
    pub pushed: Option<Box<crate::plan::index_condition::Pushed>>,
    /// The partitions of a partitioned table read, ascending (`None`: every partition):
    /// the statement's PARTITION (...) list narrowed by pruning (pruning.rs).
    pub parts: Option<Vec<usize>>,
}

impl Access {
    pub fn full() -> Access {
        Access {
            index: None,
            eq: vec![],
            in_list: None,
            lower: None,
            upper: None,
            pushed: None,
            parts: None,
        }
    }
    /// The partitions read (`[None]` for a table that is not partitioned).
    pub fn read_parts(&self, t: &TableDef) -> Vec<Option<usize>> {
        match (&self.parts, &t.partitioning) {
            (_, None) => vec![None],
            (Some(v), Some(_)) => v.iter().map(|&p| Some(p)).collect(),
            (None, Some(_)) => t.parts(),
        }
    }
    /// Narrows the partitions read to `selected` (a PARTITION (...) list).
    pub fn select_parts(&mut self, selected: Option<&[usize]>) {
        if let Some(sel) = selected {
            self.parts = Some(match &self.parts {
                None => sel.to_vec(),
                Some(p) => p.iter().copied().filter(|i| sel.contains(i)).collect(),
            });
        }
    }
    pub fn is_full_scan(&self) -> bool {
        self.eq.is_empty() && self.in_list.is_none() && self.lower.is_none() && self.upper.is_none()
    }
    /// The table columns of the chosen key, in key order.
    pub fn key_cols(&self, t: &TableDef) -> Vec<usize> {
        match self.index {
            None => t.pk.clone(),
            Some(i) => t.indexes[i].columns.clone(),
        }
    }
    /// True when the equalities pin one row of a unique key (a point read).
    pub fn is_point(&self, t: &TableDef) -> bool {
        let unique = match self.index {
            None => !t.pk.is_empty(),
            Some(i) => t.indexes[i].unique,
        };
        unique && self.eq.len() == self.key_cols(t).len()
    }
    /// EXPLAIN's access type.
    pub fn kind(&self, t: &TableDef) -> &'static str {
        if self.is_point(t) {
            if self.index.is_none() {
                "const"
            } else {
                "eq_ref"
            }
        } else if self.in_list.is_some() || self.lower.is_some() || self.upper.is_some() {
            "range"
        } else if !self.eq.is_empty() {
            "ref"
        } else {
            "ALL"
        }
    }

    /// Byte ranges to scan, evaluated against `row` (outer tables' columns).
    pub fn key_ranges(&self, t: &TableDef, row: &[Value]) -> DbResult<Vec<KeyRange>> {
        let cols = self.key_cols(t);
        let cx = EvalCtx::row(row);
        let mut prefix = Vec::new();
        for (i, e) in self.eq.iter().enumerate() {
            let c = &t.columns[cols[i]];
            match exact(c, &eval(e, &cx)?) {
                Some(v) => encode_key_value(&t.key_column(self.index, i), &v, &mut prefix)?,
                None => return Ok(vec![]),
            }
        }
        let n = self.eq.len();
        if let Some(list) = &self.in_list {
            let c = &t.columns[cols[n]];
            let mut keys = Vec::new();
            for e in list {
                if let Some(v) = exact(c, &eval(e, &cx)?) {
                    let mut k = prefix.clone();
                    encode_key_value(&t.key_column(self.index, n), &v, &mut k)?;
                    keys.push(k);
                }
            }
            keys.sort();
            keys.dedup();
            return Ok(keys.into_iter().map(|k| point_range(&k)).collect());
        }
        let mut lo = Bound::Included(prefix.clone());
        let mut hi = match prefix_successor(&prefix) {
            Some(s) if !prefix.is_empty() => Bound::Excluded(s),
            _ => Bound::Unbounded,
        };
        if n < cols.len() {
            let c = &t.columns[cols[n]];
            let kc = t.key_column(self.index, n);
            // A prefix key holds truncated values: `col > 'abcd'` holds for keys equal to
            // the bound's prefix, so its bounds are inclusive (rows are re-checked).
            let prefixed = kc.prefix.is_some();
            let bound = |e: &Expr| -> DbResult<Option<Value>> {
                Ok(exact(c, &eval(e, &cx)?).filter(|v| !pad_unordered(&kc, v)))
            };
            if let Some((e, incl)) = &self.lower {
                if let Some(v) = bound(e)? {
                    let mut k = prefix.clone();
                    encode_key_value(&kc, &v, &mut k)?;
                    lo = if *incl || prefixed {
                        Bound::Included(k)
                    } else {
                        match prefix_successor(&k) {
                            Some(s) => Bound::Included(s),
                            None => return Ok(vec![]),
                        }
                    };
                } else if eval(e, &cx)?.is_null() {
                    return Ok(vec![]);
                } else {
                    // Inexact bound: keep NULLs out at least.
                    let mut k = prefix.clone();
                    k.push(1);
                    lo = Bound::Included(k);
                }
            }
            if let Some((e, incl)) = &self.upper {
                if let Some(v) = bound(e)? {
                    let mut k = prefix.clone();
                    encode_key_value(&kc, &v, &mut k)?;
                    hi = if *incl || prefixed {
                        match prefix_successor(&k) {
                            Some(s) => Bound::Excluded(s),
                            None => hi,
                        }
                    } else {
                        Bound::Excluded(k)
                    };
                    // `col < x` excludes NULLs (they sort first).
                    if self.lower.is_none() {
                        let mut k = prefix.clone();
                        k.push(1);
                        lo = Bound::Included(k);
                    }
                } else if eval(e, &cx)?.is_null() {
                    return Ok(vec![]);
                }
            }
        }
        Ok(vec![(lo, hi)])
    }
}

/// True when a bound's prefix key may be out of order with the rows' prefix keys: under a PAD
/// SPACE collation, sort keys drop trailing spaces instead of padding (collation.rs), so a
/// truncated value ending in spaces can sort after one continuing with a control character.
/// Such a bound is not used (the range widens); without spaces or control characters in the
/// bound's prefix, truncation keeps the order.
fn pad_unordered(kc: &crate::codec::key::KeyColumn, v: &Value) -> bool {
    let (Some(n), Value::Text(s)) = (kc.prefix, v) else {
        return false;
    };
    kc.collation.pad_space() && s.chars().take(n as usize).any(|ch| ch <= ' ')
}

fn point_range(k: &[u8]) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    (
        Bound::Included(k.to_vec()),
        match prefix_successor(k) {
            Some(s) => Bound::Excluded(s),
            None => Bound::Unbounded,
        },
    )
}

/// `v` converted to `c`'s type if the conversion is exact and of a compatible kind.
pub fn exact(c: &Column, v: &Value) -> Option<Value> {
    if v.is_null() {
        return None;
    }
    let t = c.sql_type;
    let kind_ok = match v {
        Value::Text(_) | Value::Bytes(_) => true,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            t.is_numeric()
        }
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => t.is_temporal(),
        Value::Null => false,
    };
    if !kind_ok
        || ((t.is_text() || t.is_binary()) && !matches!(v, Value::Text(_) | Value::Bytes(_)))
    {
        return None;
    }
    if t.is_numeric() && matches!(v, Value::Text(_) | Value::Bytes(_)) {
        // '5abc' = 5 in MySQL, but so does '5.0': only plain integers/decimals are exact.
        let s = v.str_bytes().unwrap_or(b"");
        if !s
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b'-' || *b == b'.')
            || s.is_empty()
        {
            return None;
        }
    }
    if matches!(t, SqlType::Enum { .. }) && v.str_bytes() == Some(b"") {
        // The error value '' is no member, but rows hold it.
        return Some(Value::Text(String::new()));
    }
    let mut w = Vec::new();
    let cv = coerce_to_column(v, c, 1, SqlMode::utc(true), &mut w).ok()?;
    if !w.is_empty() {
        return None;
    }
    (sql_cmp(&cv, v, c.collation) == Some(Ordering::Equal)).then_some(cv)
}

#[derive(Clone, Debug)]
pub(crate) enum Cond {
    Eq(Expr),
    In(Vec<Expr>),
    Lower(Expr, bool),
    Upper(Expr, bool),
}

pub(crate) fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

/// Conditions on column `col` (index into the flat row) found in `conj`.
pub(crate) fn conds_for(col: usize, conj: &[Expr], usable: &dyn Fn(&Expr) -> bool) -> Vec<Cond> {
    let mut out = Vec::new();
    for e in conj {
        match e {
            Expr::Binary(op, a, b, _) => {
                let (op, other) = match (&**a, &**b) {
                    (Expr::Col(c), o) if *c == col && usable(o) => (*op, o),
                    (o, Expr::Col(c)) if *c == col && usable(o) => (flip(*op), o),
                    _ => continue,
                };
                match op {
                    BinOp::Eq => out.push(Cond::Eq(other.clone())),
                    BinOp::Lt => out.push(Cond::Upper(other.clone(), false)),
                    BinOp::Le => out.push(Cond::Upper(other.clone(), true)),
                    BinOp::Gt => out.push(Cond::Lower(other.clone(), false)),
                    BinOp::Ge => out.push(Cond::Lower(other.clone(), true)),
                    _ => {}
                }
            }
            Expr::Between(a, lo, hi, false, _)
                if matches!(&**a, Expr::Col(c) if *c == col) && usable(lo) && usable(hi) =>
            {
                out.push(Cond::Lower((**lo).clone(), true));
                out.push(Cond::Upper((**hi).clone(), true));
            }
            Expr::InList(a, list, false, _)
                if matches!(&**a, Expr::Col(c) if *c == col)
                    && !list.is_empty()
                    && list.len() <= 1000
                    && list.iter().all(usable) =>
            {
                out.push(Cond::In(list.clone()));
            }
            _ => {}
        }
    }
    out
}

/// Splits an AND tree into its conjuncts.
pub fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::And, a, b, _) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        other => out.push(other.clone()),
    }
}

/// Picks the best key for table `t`, whose columns start at `offset` in the flat row.
/// `usable(e)` says whether `e` can be evaluated before reading this table.
pub fn choose_access(
    t: &TableDef,
    offset: usize,
    conj: &[Expr],
    usable: &dyn Fn(&Expr) -> bool,
) -> Access {
    choose_access_among(t, offset, conj, usable, &|_| true)
}

/// [`choose_access`] among the keys `allowed` accepts (`None` = the primary key).
pub fn choose_access_among(
    t: &TableDef,
    offset: usize,
    conj: &[Expr],
    usable: &dyn Fn(&Expr) -> bool,
    allowed: &dyn Fn(Option<usize>) -> bool,
) -> Access {
    let mut best = Access::full();
    let mut best_score = 0;
    let mut candidates: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    if !t.pk.is_empty() {
        candidates.push((None, t.pk.clone()));
    }
    for (i, ix) in t.indexes.iter().enumerate() {
        candidates.push((Some(i), ix.columns.clone()));
    }
    for (index, cols) in candidates {
        if !allowed(index) {
            continue;
        }
        let mut a = Access {
            index,
            ..Access::full()
        };
        for (pos, &c) in cols.iter().enumerate() {
            let conds = conds_for(offset + c, conj, usable);
            if let Some(Cond::Eq(e)) = conds.iter().find(|c| matches!(c, Cond::Eq(_))) {
                a.eq.push(e.clone());
                continue;
            }
            if let Some(Cond::In(l)) = conds.iter().find(|c| matches!(c, Cond::In(_))) {
                a.in_list = Some(l.clone());
                break;
            }
            // An ENUM/SET keyed by member number (key format 2) is not in the order of the
            // text comparisons `<`, `>`, BETWEEN make (MariaDB reads no range for them either).
            let by_number = t.key_column(index, pos).members.is_some();
            for cd in conds.iter().filter(|_| !by_number) {
                match cd {
                    Cond::Lower(e, incl) if a.lower.is_none() => a.lower = Some((e.clone(), *incl)),
                    Cond::Upper(e, incl) if a.upper.is_none() => a.upper = Some((e.clone(), *incl)),
                    _ => {}
                }
            }
            break;
        }
        let full_unique = a.is_point(t);
        let range = a.eq.len() * 4
            + if a.in_list.is_some() { 3 } else { 0 }
            + if a.lower.is_some() { 1 } else { 0 }
            + if a.upper.is_some() { 1 } else { 0 }
            + if full_unique { 100 } else { 0 };
        // Between equal ranges, a key that needs no primary lookup (the primary key, then a
        // clustering index: design.md CIX1) beats a plain secondary index.
        let no_lookup = index.is_none_or(|i| t.indexes[i].clustering);
        let score = if range == 0 {
            0
        } else {
            range * 2 + usize::from(no_lookup)
        };
        if score > best_score {
            best_score = score;
            best = a;
        }
    }
    best.parts = crate::plan::pruning::prune(t, offset, conj);
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::engine::test_table as tdef;
    use crate::types::collation::Collation;

    fn col(i: usize) -> Box<Expr> {
        Box::new(Expr::Col(i))
    }
    fn lit(v: i64) -> Box<Expr> {
        Box::new(Expr::Lit(Value::Int(v)))
    }
    fn bin(op: BinOp, a: Box<Expr>, b: Box<Expr>) -> Expr {
        Expr::Binary(op, a, b, Collation::default())
    }

    #[test]
    fn picks_primary_key_equality_as_point() {
        let t = tdef();
        let conj = vec![bin(BinOp::Eq, col(0), lit(5))];
        let a = choose_access(&t, 0, &conj, &|e| e.is_const());
        assert_eq!(a.index, None);
        assert!(a.is_point(&t));
        let r = a.key_ranges(&t, &[]).unwrap();
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn picks_secondary_index_range_and_between() {
        let t = tdef();
        let conj = vec![Expr::Between(
            col(1),
            lit(3),
            lit(7),
            false,
            Collation::default(),
        )];
        let a = choose_access(&t, 0, &conj, &|e| e.is_const());
        assert_eq!(a.index, Some(0));
        assert_eq!(a.kind(&t), "range");
        let r = a.key_ranges(&t, &[]).unwrap();
        assert!(matches!(r[0].0, Bound::Included(_)) && matches!(r[0].1, Bound::Excluded(_)));
    }

    #[test]
    fn impossible_equality_gives_no_range_and_inexact_bound_widens() {
        let t = tdef();
        let conj = vec![bin(
            BinOp::Eq,
            col(0),
            Box::new(Expr::Lit(Value::Decimal(
                crate::types::decimal::Decimal::parse("1.5").unwrap(),
            ))),
        )];
        let a = choose_access(&t, 0, &conj, &|e| e.is_const());
        assert!(a.key_ranges(&t, &[]).unwrap().is_empty());
        let conj = vec![bin(
            BinOp::Gt,
            col(0),
            Box::new(Expr::Lit(Value::Double(1.5))),
        )];
        let a = choose_access(&t, 0, &conj, &|e| e.is_const());
        let r = a.key_ranges(&t, &[]).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].1, Bound::Unbounded);
    }

    #[test]
    fn in_list_gives_point_ranges_and_text_vs_number_is_not_pushed() {
        let t = tdef();
        let conj = vec![Expr::InList(
            col(0),
            vec![*lit(3), *lit(1), *lit(3)],
            false,
            Collation::default(),
        )];
        let a = choose_access(&t, 0, &conj, &|e| e.is_const());
        assert_eq!(a.key_ranges(&t, &[]).unwrap().len(), 2);
        // c (VARCHAR, column 2) = 5 is compared as doubles by MySQL: no pushdown possible.
        assert!(exact(&t.columns[2], &Value::Int(5)).is_none());
        assert!(exact(&t.columns[0], &Value::Text("7".into())).is_some());
    }
}
