//! A [`PartitionClause`] checked against its table and made a [`Partitioning`] ([`define`]), and
//! new partitions for an existing one ([`new_parts`], ALTER TABLE ADD / REORGANIZE PARTITION).
//!
//! Every refusal is MariaDB's error for it: 1492 (RANGE/LIST without definitions), 1479/1480
//! (missing or misplaced VALUES), 1504 and 1499 (partition counts), 1517 (duplicate names), 1493
//! and 1481 (bounds not increasing, MAXVALUE not last), 1495 (a LIST value twice), 1697 (a
//! RANGE/LIST value not an integer), 1653/1654/1658 (COLUMNS values of the wrong shape or type),
//! 1566 (NULL in VALUES LESS THAN), 1488/1652/1659/1502 (function columns), 1503 (a key without
//! the function's columns, PRT2).

use std::cmp::Ordering;

use super::expr_check::{self, type_not_allowed};
use super::{
    int_value, Method, PartBound, PartDef, PartDefClause, PartFunc, PartitionClause, Partitioning,
    ValuesClause, MAX_PARTITIONS,
};
use crate::catalog::create_table::const_value;
use crate::catalog::TableDef;
use crate::codec::key::KeyColumn;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::compile_standalone;
use crate::types::coerce::{coerce_to_column, SqlMode};
use crate::types::value::Value;
use crate::types::SqlType;
use sqlparser::ast;

/// The ids of a stored table's partitions (catalog header `parts=`, `next_part=`).
#[derive(Clone, Debug, PartialEq)]
pub struct PartIds {
    pub ids: Vec<u64>,
    pub next: u64,
}

fn err(code: ErrorCode, msg: impl Into<String>) -> DbError {
    DbError::new(code, msg)
}

/// The partitioning `clause` describes for table `t`; `ids` are the stored ids (a new table's
/// partitions are numbered from 0).
pub fn define(
    clause: &PartitionClause,
    t: &TableDef,
    ids: Option<&PartIds>,
) -> DbResult<Partitioning> {
    let (func, columns, key_listed) = function(clause, t)?;
    let defs = definitions(clause)?;
    let mut p = Partitioning {
        method: clause.method,
        linear: clause.linear,
        columns_form: clause.columns_form,
        func,
        key_columns: columns
            .iter()
            .map(|&c| KeyColumn::from_column(&t.columns[c]))
            .collect(),
        collations: columns.iter().map(|&c| t.columns[c].collation).collect(),
        types: columns.iter().map(|&c| t.columns[c].sql_type).collect(),
        columns,
        key_listed,
        auto: clause.defs.is_empty(),
        parts: Vec::new(),
        next_id: 0,
    };
    p.parts = new_parts(&p, t, &defs)?;
    match ids {
        Some(ids) => p.set_ids(ids)?,
        None => p.next_id = p.parts.len() as u64,
    }
    check_layout(&p)?;
    check_keys(t, &p)?;
    Ok(p)
}

/// The partition definitions, named p0, p1, ... for HASH / KEY given by a count.
fn definitions(clause: &PartitionClause) -> DbResult<Vec<PartDefClause>> {
    let n = clause.count.unwrap_or(clause.defs.len().max(1) as u64);
    if clause.count == Some(0) {
        return Err(err(
            ErrorCode::NoPartsError,
            "Number of partitions = 0 is not an allowed value",
        ));
    }
    if n as usize > MAX_PARTITIONS || clause.defs.len() > MAX_PARTITIONS {
        return Err(err(
            ErrorCode::TooManyPartitionsError,
            "Too many partitions (including subpartitions) were defined",
        ));
    }
    if !clause.defs.is_empty()
        && clause
            .count
            .is_some_and(|c| c as usize != clause.defs.len())
    {
        return Err(DbError::syntax(
            "Wrong number of partitions defined, mismatch with previous setting",
        ));
    }
    match clause.method {
        Method::Range | Method::List if clause.defs.is_empty() => Err(err(
            ErrorCode::PartitionsMustBeDefinedError,
            format!(
                "For {} partitions each partition must be defined",
                clause.method.keyword()
            ),
        )),
        Method::Hash | Method::Key if clause.defs.is_empty() => Ok((0..n)
            .map(|i| PartDefClause {
                name: format!("p{i}"),
                ..Default::default()
            })
            .collect()),
        _ => Ok(clause.defs.clone()),
    }
}

/// The function of the clause: its compiled expression (RANGE, LIST, HASH), the columns it
/// reads, and whether KEY named its columns.
fn function(
    clause: &PartitionClause,
    t: &TableDef,
) -> DbResult<(Option<PartFunc>, Vec<usize>, bool)> {
    if let Some(e) = &clause.expr {
        let checked = expr_check::check(e, t)?;
        let expr = compile_standalone(&t.scope(&t.name), e, "partition function")?;
        let func = PartFunc {
            expr,
            text: checked.text,
        };
        return Ok((Some(func), checked.columns, false));
    }
    let listed = !clause.columns.is_empty();
    let names: Vec<String> = if listed {
        clause.columns.clone()
    } else if clause.method == Method::Key {
        key_default_columns(t)?
    } else {
        return Err(DbError::syntax("PARTITION BY"));
    };
    if names.len() > 16 {
        return Err(err(
            ErrorCode::TooManyPartitionFuncFieldsError,
            "Too many fields in 'list of partition fields'",
        ));
    }
    let mut cols = Vec::new();
    for n in &names {
        let c = t.col_index(n).ok_or_else(|| {
            err(
                ErrorCode::FieldNotFoundPartError,
                "Field in list of fields for partition function not found in table",
            )
        })?;
        if cols.contains(&c) {
            return Err(err(
                ErrorCode::SameNamePartitionField,
                format!("Duplicate partition field name '{n}'"),
            ));
        }
        check_column_type(clause.method, &t.columns[c])?;
        cols.push(c);
    }
    Ok((None, cols, listed))
}

/// `KEY ()`: the primary key's columns, else the first UNIQUE key's (1488 without either).
fn key_default_columns(t: &TableDef) -> DbResult<Vec<String>> {
    let cols = if !t.pk.is_empty() {
        t.pk.clone()
    } else if let Some(ix) = t.indexes.iter().find(|ix| ix.unique) {
        ix.columns.clone()
    } else {
        return Err(err(
            ErrorCode::FieldNotFoundPartError,
            "Field in list of fields for partition function not found in table",
        ));
    };
    Ok(cols.iter().map(|&c| t.columns[c].name.clone()).collect())
}

/// Types a COLUMNS list (integers, dates, short strings) or KEY (all but BLOB/TEXT) takes.
fn check_column_type(method: Method, c: &crate::types::Column) -> DbResult<()> {
    let blob = matches!(c.sql_type, SqlType::Text(_) | SqlType::Blob(_));
    if blob {
        return Err(err(
            ErrorCode::BlobFieldInPartFuncError,
            "A BLOB field is not allowed in partition function",
        ));
    }
    let allowed = method == Method::Key
        || matches!(
            c.sql_type,
            SqlType::Int { .. }
                | SqlType::Date
                | SqlType::DateTime { .. }
                | SqlType::Char { .. }
                | SqlType::VarChar { .. }
                | SqlType::Binary { .. }
                | SqlType::VarBinary { .. }
        );
    if allowed {
        Ok(())
    } else {
        Err(type_not_allowed(&c.name))
    }
}

/// Partitions made from `defs` under `p`'s function, with ids from `p.next_id` on.
pub fn new_parts(p: &Partitioning, t: &TableDef, defs: &[PartDefClause]) -> DbResult<Vec<PartDef>> {
    let mut out = Vec::with_capacity(defs.len());
    for (i, d) in defs.iter().enumerate() {
        if d.name.is_empty() || d.name.len() > 64 || d.name.contains(['/', '\0']) {
            return Err(err(
                ErrorCode::WrongPartitionName,
                "Incorrect partition name",
            ));
        }
        out.push(PartDef {
            name: d.name.clone(),
            id: p.next_id + i as u64,
            bound: bound(p, t, d)?,
            comment: d.comment.clone(),
            options: d.options.clone(),
        });
    }
    Ok(out)
}

fn wrong_values(method: Method, values: &str) -> DbError {
    let (only, kw) = match values {
        "IN" => ("LIST", "IN"),
        _ => ("RANGE", "LESS THAN"),
    };
    let _ = method;
    err(
        ErrorCode::PartitionWrongValuesError,
        format!("Only {only} PARTITIONING can use VALUES {kw} in partition definition"),
    )
}

/// The bound of definition `d` under `p`'s method.
fn bound(p: &Partitioning, t: &TableDef, d: &PartDefClause) -> DbResult<PartBound> {
    match (p.method, &d.values) {
        (Method::Range, Some(ValuesClause::LessThan(v))) => range_bound(p, t, d, v),
        (Method::List, Some(ValuesClause::In(items))) => list_bound(p, t, d, items),
        (Method::Hash | Method::Key, None) => Ok(PartBound::None),
        (_, Some(ValuesClause::LessThan(_))) => Err(wrong_values(p.method, "LESS THAN")),
        (_, Some(ValuesClause::In(_))) => Err(wrong_values(p.method, "IN")),
        (m, None) => {
            Err(err(
                ErrorCode::PartitionRequiresValuesError,
                format!(
                "Syntax error: {} PARTITIONING requires definition of VALUES {} for each partition",
                m.keyword(),
                if m == Method::Range { "LESS THAN" } else { "IN" }
            ),
            ))
        }
    }
}

fn column_list_error() -> DbError {
    err(
        ErrorCode::PartitionColumnListError,
        "Inconsistency in usage of column lists for partitioning",
    )
}

fn range_bound(
    p: &Partitioning,
    t: &TableDef,
    d: &PartDefClause,
    values: &[Option<ast::Expr>],
) -> DbResult<PartBound> {
    let ncols = if p.columns_form { p.columns.len() } else { 1 };
    if values.len() != ncols {
        return Err(column_list_error());
    }
    let null_err = || {
        err(
            ErrorCode::NullInValuesLessThan,
            "Not allowed to use NULL value in VALUES LESS THAN",
        )
    };
    if !p.columns_form {
        return Ok(PartBound::IntLessThan(match &values[0] {
            None => None,
            Some(e) => match int_constant(e, &d.name)? {
                Some(v) => Some(v),
                None => return Err(null_err()),
            },
        }));
    }
    let mut out = Vec::new();
    for (i, v) in values.iter().enumerate() {
        out.push(match v {
            None => None,
            Some(e) => {
                let v = column_constant(t, p.columns[i], e)?;
                if v.is_null() {
                    return Err(null_err());
                }
                Some(v)
            }
        });
    }
    Ok(PartBound::ColumnsLessThan(out))
}

fn list_bound(
    p: &Partitioning,
    t: &TableDef,
    d: &PartDefClause,
    items: &[(bool, Vec<ast::Expr>)],
) -> DbResult<PartBound> {
    let ncols = if p.columns_form { p.columns.len() } else { 1 };
    if !p.columns_form {
        let mut out = Vec::new();
        for (row, vals) in items {
            if *row || vals.len() != 1 {
                return Err(err(
                    ErrorCode::RowSinglePartitionFieldError,
                    "Row expressions in VALUES IN only allowed for multi-field column partitioning",
                ));
            }
            out.push(int_constant(&vals[0], &d.name)?);
        }
        return Ok(PartBound::IntIn(out));
    }
    let mut out = Vec::new();
    for (row, vals) in items {
        if ncols == 1 && *row {
            return Err(err(
                ErrorCode::RowSinglePartitionFieldError,
                "Row expressions in VALUES IN only allowed for multi-field column partitioning",
            ));
        }
        if vals.len() != ncols || (ncols > 1 && !*row) {
            return Err(column_list_error());
        }
        let mut tuple = Vec::new();
        for (i, e) in vals.iter().enumerate() {
            tuple.push(column_constant(t, p.columns[i], e)?);
        }
        out.push(tuple);
    }
    Ok(PartBound::ColumnsIn(out))
}

/// An integer constant of RANGE / LIST (`None`: NULL); 1697 for anything else.
fn int_constant(e: &ast::Expr, part: &str) -> DbResult<Option<i128>> {
    let not_int = || {
        err(
            ErrorCode::ValuesIsNotIntTypeError,
            format!("VALUES value for partition '{part}' must have type INT"),
        )
    };
    match const_value(e).map_err(|_| not_int())? {
        Some(Value::Null) | None => Ok(None),
        Some(v @ (Value::Int(_) | Value::UInt(_))) => Ok(int_value(&v)),
        Some(_) => Err(not_int()),
    }
}

/// A COLUMNS constant converted to column `c`'s type (1654 when it does not convert exactly).
fn column_constant(t: &TableDef, c: usize, e: &ast::Expr) -> DbResult<Value> {
    let bad = || {
        err(
            ErrorCode::WrongTypeColumnValueError,
            "Partition column values of incorrect type",
        )
    };
    let v = const_value(e).map_err(|_| bad())?.unwrap_or(Value::Null);
    let col = &t.columns[c];
    // A number for a string column or a string for an integer one is refused, as MariaDB does.
    let kinds_match = match (&v, col.sql_type.is_numeric()) {
        (Value::Null, _) => true,
        (Value::Text(_) | Value::Bytes(_), numeric) => !numeric,
        (Value::Int(_) | Value::UInt(_), numeric) => numeric,
        _ => false,
    };
    if !kinds_match {
        return Err(bad());
    }
    let mut warnings = Vec::new();
    // A bound is a constant of the definition, the same in every session: read in UTC.
    let out = coerce_to_column(&v, col, 1, SqlMode::utc(true), &mut warnings).map_err(|_| bad())?;
    if !warnings.is_empty() {
        return Err(bad());
    }
    Ok(out)
}

/// Names unique (1517); RANGE bounds strictly increasing with MAXVALUE only last (1493, 1481);
/// no LIST value twice (1495).
pub fn check_layout(p: &Partitioning) -> DbResult<()> {
    for (i, a) in p.parts.iter().enumerate() {
        if p.parts[..i]
            .iter()
            .any(|b| b.name.eq_ignore_ascii_case(&a.name))
        {
            return Err(err(
                ErrorCode::SameNamePartition,
                format!("Duplicate partition name {}", a.name),
            ));
        }
    }
    match p.method {
        Method::Range => check_increasing(p),
        Method::List => check_distinct(p),
        _ => Ok(()),
    }
}

fn check_increasing(p: &Partitioning) -> DbResult<()> {
    let not_increasing = || {
        err(
            ErrorCode::RangeNotIncreasingError,
            "VALUES LESS THAN value must be strictly increasing for each partition",
        )
    };
    for w in p.parts.windows(2) {
        match (&w[0].bound, &w[1].bound) {
            (PartBound::IntLessThan(None), _) => {
                return Err(err(
                    ErrorCode::PartitionMaxvalueError,
                    "MAXVALUE can only be used in last partition definition",
                ))
            }
            (PartBound::IntLessThan(Some(a)), PartBound::IntLessThan(Some(b))) if a >= b => {
                return Err(not_increasing())
            }
            (PartBound::ColumnsLessThan(a), PartBound::ColumnsLessThan(b))
                if p.cmp_bound_pair(a, b) != Ordering::Less =>
            {
                return Err(not_increasing())
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_distinct(p: &Partitioning) -> DbResult<()> {
    let dup = || {
        err(
            ErrorCode::MultipleDefConstInListPartError,
            "Multiple definition of same constant in list partitioning",
        )
    };
    let mut ints = std::collections::HashSet::new();
    let mut tuples: Vec<&Vec<Value>> = Vec::new();
    for part in &p.parts {
        match &part.bound {
            PartBound::IntIn(l) => {
                for v in l {
                    if !ints.insert(*v) {
                        return Err(dup());
                    }
                }
            }
            PartBound::ColumnsIn(l) => {
                for t in l {
                    if tuples.iter().any(|u| p.cmp_tuple(t, u).is_eq()) {
                        return Err(dup());
                    }
                    tuples.push(t);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// PRT2: the primary key and every UNIQUE key hold every column of the function, whole (1503).
fn check_keys(t: &TableDef, p: &Partitioning) -> DbResult<()> {
    let covers = |cols: &[usize], prefix: &[Option<u32>]| {
        p.columns.iter().all(|c| {
            cols.iter()
                .zip(prefix)
                .any(|(k, pre)| k == c && pre.is_none())
        })
    };
    if !t.pk.is_empty() && !covers(&t.pk, &t.pk_prefix) {
        return Err(need_all("PRIMARY KEY"));
    }
    for ix in t.indexes.iter().filter(|ix| ix.unique) {
        if !covers(&ix.columns, &ix.prefix) {
            return Err(need_all("UNIQUE INDEX"));
        }
    }
    Ok(())
}

fn need_all(what: &str) -> DbError {
    err(
        ErrorCode::UniqueKeyNeedAllFieldsInPf,
        format!("A {what} must include all columns in the table's partitioning function"),
    )
}
