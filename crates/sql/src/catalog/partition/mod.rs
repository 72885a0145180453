//! Partitioned tables (design.md "Partitioned tables"): a table's [`Partitioning`] (method,
//! function, partitions with their bounds and ids) and the partition function that routes a row
//! to its partition ([`Partitioning::part_of`]).
//!
//! Invariants: PRT1 (a row lives in exactly the partition `part_of` gives), PRT2 (the primary
//! key and every UNIQUE key hold every column the function reads; define.rs refuses the rest with
//! 1503), PRT3 (ids only grow: `next_id` is above every id ever given in this table). A
//! `Partitioning` is immutable once its table definition is published, like the definition.
//!
//! Map: clause.rs (what the parser reads), define.rs (clause → `Partitioning`, every check),
//! expr_check.rs (which expressions a partition function may be), key_hash.rs (KEY's hash),
//! render.rs (the clause's text as SHOW CREATE TABLE prints it).

pub mod clause;
mod define;
mod expr_check;
mod key_hash;
mod render;
pub mod retention;

use std::cmp::Ordering;

use crate::codec::key::KeyColumn;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::Expr;
use crate::types::collation::Collation;
use crate::types::value::{cmp_nulls_first, Value};
use crate::types::SqlType;

pub use clause::{
    Method, PartDefClause, PartitionClause, Retention, RetentionUnit, TableExtras, ValuesClause,
};
pub use define::{check_layout, define, new_parts, PartIds};
pub use render::{part_text, render_bound, render_clause};
pub use retention::retention_needs_range;

/// The most partitions a table may have (MariaDB's limit).
pub const MAX_PARTITIONS: usize = 8192;

/// Where one partition's rows may be.
#[derive(Clone, Debug, PartialEq)]
pub enum PartBound {
    /// A HASH or KEY partition.
    None,
    /// RANGE: values below this (`None`: MAXVALUE).
    IntLessThan(Option<i128>),
    /// RANGE COLUMNS: tuples below this, compared column by column (`None`: MAXVALUE).
    ColumnsLessThan(Vec<Option<Value>>),
    /// LIST: these values (`None`: NULL).
    IntIn(Vec<Option<i128>>),
    /// LIST COLUMNS: these tuples.
    ColumnsIn(Vec<Vec<Value>>),
}

/// One partition.
#[derive(Clone, Debug, PartialEq)]
pub struct PartDef {
    pub name: String,
    /// Names its trees: `db/t/#<id>/<index>` (design.md PRT3).
    pub id: u64,
    pub bound: PartBound,
    pub comment: Option<String>,
    /// Options kept only to be shown again (MAX_ROWS, MIN_ROWS, DATA/INDEX DIRECTORY).
    pub options: Vec<(String, String)>,
}

/// The function of RANGE, LIST and HASH: an integer expression over the row.
#[derive(Clone, Debug)]
pub struct PartFunc {
    pub expr: Expr,
    /// As SHOW CREATE TABLE prints it (`to_days(`d`)`).
    pub text: String,
}

/// How a table is partitioned.
#[derive(Clone, Debug)]
pub struct Partitioning {
    pub method: Method,
    pub linear: bool,
    /// RANGE COLUMNS / LIST COLUMNS.
    pub columns_form: bool,
    /// RANGE, LIST, HASH: the expression.
    pub func: Option<PartFunc>,
    /// The table columns the function reads: the COLUMNS / KEY list in its order, or the
    /// columns the expression names.
    pub columns: Vec<usize>,
    /// KEY: the column list was written (`KEY (a)`), not taken from the primary key (`KEY ()`).
    pub key_listed: bool,
    /// HASH / KEY given by `PARTITIONS n` alone (partitions named p0, p1, ...).
    pub auto: bool,
    pub parts: Vec<PartDef>,
    /// The id the next new partition gets (PRT3).
    pub next_id: u64,
    /// Key encodings and types of `columns` (KEY's hash input).
    key_columns: Vec<KeyColumn>,
    types: Vec<SqlType>,
    /// Collations of `columns` (COLUMNS comparisons).
    collations: Vec<Collation>,
}

/// A partition function's value on a row.
enum FuncValue {
    Int(Option<i128>),
    Tuple(Vec<Value>),
}

impl Partitioning {
    /// The index in `parts` of the partition `row` belongs to (1526 when none takes it).
    pub fn part_of(&self, row: &[Value]) -> DbResult<usize> {
        match self.value_of(row)? {
            FuncValue::Int(v) => self.part_of_int(v),
            FuncValue::Tuple(t) => self.part_of_tuple(&t),
        }
    }

    /// Gives the partitions the ids the catalog stored for them (header `parts=`, `next_part=`).
    pub fn set_ids(&mut self, ids: &PartIds) -> DbResult<()> {
        if self.parts.len() != ids.ids.len() {
            return Err(DbError::internal(format!(
                "a catalog entry names {} partitions, its text {}",
                ids.ids.len(),
                self.parts.len()
            )));
        }
        for (part, id) in self.parts.iter_mut().zip(&ids.ids) {
            part.id = *id;
        }
        self.next_id = ids.next;
        Ok(())
    }

    /// The index of the partition named `name` (case-insensitive, as MariaDB).
    pub fn position(&self, name: &str) -> Option<usize> {
        self.parts
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(name))
    }

    fn value_of(&self, row: &[Value]) -> DbResult<FuncValue> {
        if let Some(f) = &self.func {
            let v = eval(&f.expr, &EvalCtx::row(row))?;
            return Ok(FuncValue::Int(int_value(&v)));
        }
        let vals: Vec<Value> = self.columns.iter().map(|&c| row[c].clone()).collect();
        if self.method == Method::Key {
            let h = key_hash::hash(&self.key_columns, &self.types, &vals)?;
            return Ok(FuncValue::Int(Some(i128::from(h))));
        }
        Ok(FuncValue::Tuple(vals))
    }

    /// RANGE, LIST, HASH and KEY on an integer value (`None`: NULL).
    fn part_of_int(&self, v: Option<i128>) -> DbResult<usize> {
        let n = self.parts.len();
        match self.method {
            Method::Hash | Method::Key => Ok(self.hash_part(v, n)),
            Method::Range => {
                // NULL is below every value (MariaDB puts it in the first partition).
                let Some(v) = v else { return Ok(0) };
                let p = self.parts.partition_point(|p| match p.bound {
                    PartBound::IntLessThan(Some(b)) => b <= v,
                    _ => false,
                });
                if p < n {
                    Ok(p)
                } else {
                    Err(no_partition(&v.to_string()))
                }
            }
            Method::List => self
                .parts
                .iter()
                .position(|p| matches!(&p.bound, PartBound::IntIn(l) if l.contains(&v)))
                .ok_or_else(|| no_partition(&v.map_or("NULL".into(), |v| v.to_string()))),
        }
    }

    /// HASH: `|v mod n|` of the value as a signed 64-bit integer, NULL counting as its
    /// smallest value (as MariaDB computes it); LINEAR: MySQL's folding by the next power of two.
    fn hash_part(&self, v: Option<i128>, n: usize) -> usize {
        let x = v.map_or(i64::MIN, |v| v as i64);
        if self.linear {
            let mut mask = (n as u64).next_power_of_two() - 1;
            let mut p = x as u64 & mask;
            if p >= n as u64 {
                mask = ((mask + 1) >> 1) - 1;
                p = x as u64 & mask;
            }
            p as usize
        } else {
            (x % n as i64).unsigned_abs() as usize
        }
    }

    /// RANGE COLUMNS and LIST COLUMNS.
    fn part_of_tuple(&self, t: &[Value]) -> DbResult<usize> {
        let found = match self.method {
            Method::Range => self.parts.iter().position(|p| match &p.bound {
                PartBound::ColumnsLessThan(b) => self.cmp_bound(t, b) == Ordering::Less,
                _ => false,
            }),
            _ => self.parts.iter().position(|p| match &p.bound {
                PartBound::ColumnsIn(l) => l.iter().any(|v| self.cmp_tuple(t, v).is_eq()),
                _ => false,
            }),
        };
        found.ok_or_else(|| no_partition("from column_list"))
    }

    /// A tuple against a RANGE COLUMNS bound (MAXVALUE above everything).
    pub(crate) fn cmp_bound(&self, t: &[Value], bound: &[Option<Value>]) -> Ordering {
        for (i, (v, b)) in t.iter().zip(bound).enumerate() {
            let o = match b {
                None => Ordering::Less,
                Some(b) => cmp_nulls_first(v, b, self.collations[i]),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// Two RANGE COLUMNS bounds, MAXVALUE above every value.
    pub(crate) fn cmp_bound_pair(&self, a: &[Option<Value>], b: &[Option<Value>]) -> Ordering {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let o = match (x, y) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(x), Some(y)) => cmp_nulls_first(x, y, self.collations[i]),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// Two tuples of the COLUMNS list, NULL first.
    pub(crate) fn cmp_tuple(&self, a: &[Value], b: &[Value]) -> Ordering {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let o = cmp_nulls_first(x, y, self.collations[i]);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// The collation of the function's `i`-th column.
    pub fn collation(&self, i: usize) -> Collation {
        self.collations[i]
    }

    /// Partitions a HASH or KEY row with function value `v` may be in (pruning).
    pub fn hash_part_of(&self, v: Option<i128>) -> usize {
        self.hash_part(v, self.parts.len())
    }

    /// The partition of an integer function value for RANGE and LIST (pruning); `None` when no
    /// partition takes it.
    pub fn int_part_of(&self, v: Option<i128>) -> Option<usize> {
        self.part_of_int(v).ok()
    }
}

/// An integer value of the partition function (`None`: NULL). Non-integer results are
/// truncated, as MariaDB does for DECIMAL columns.
pub fn int_value(v: &Value) -> Option<i128> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        other => other.to_f64_lenient().map(|f| f.trunc() as i128),
    }
}

/// 1526 for a row no partition takes.
pub fn no_partition(value: &str) -> DbError {
    DbError::new(
        ErrorCode::NoPartitionForGivenValue,
        format!("Table has no partition for value {value}"),
    )
}
