//! EXPLAIN output in MariaDB 10.11's format (id, select_type, table, type, possible_keys, key,
//! key_len, ref, rows, Extra) rendered from the [`SelectPlan`] the executor runs.
//!
//! Invariants: every row describes the access path the executor uses (`Source::access`, its
//! key order and the sort/grouping steps); nothing is printed that Betula does not do.
//! - type: `const` (unique key fully equal to constants), `eq_ref` (unique key fully equal to
//!   values of earlier tables), `ref` (leading key columns equal), `range` (IN list or bounds),
//!   `index` (the whole key read in key order: a covering secondary index, or the primary key
//!   read in ORDER BY order), `ALL` (every row in primary key order).
//! - key_len: the bytes of the key parts used, computed as MariaDB does (fixed sizes, CHAR/
//!   VARCHAR at 4 bytes a character for utf8mb4, +2 for a variable length, +1 for NULL).
//! - rows: 1 for a point read, otherwise the table's row count (information_schema's count;
//!   1 for an empty table, InnoDB's estimate).
//! - derived tables: MariaDB merges them or shows `<derivedN>` rows, which Betula's plan is
//!   not; EXPLAIN of a query reading one is refused ([`check_no_derived`]).
//! - Extra: `Using index condition` when conditions are checked on the index entries before
//!   the rows are fetched (index_condition.rs), `Using where` when conditions remain to be
//!   checked on the rows read beyond those the key range applies (or pushed), `Using index`
//!   for a covering read (a full read of the primary tree counts as an `index` read of PRIMARY
//!   when the primary key columns are all the query needs, as InnoDB's clustered key is), `Using temporary` for GROUP BY or
//!   DISTINCT (hashed; aggregates without GROUP BY are one group summed as rows are read) and for window functions (computed over the rows kept), `Using filesort`
//!   for an ORDER BY the key order does not give; an empty string when none applies.
//! - subqueries: an uncorrelated subquery is run once while the statement is planned (its
//!   value is a constant of the plan); EXPLAIN shows it as a `SUBQUERY` block after the
//!   `PRIMARY` one, with the rows of the plan that ran it.

use crate::catalog::index_entry::covers;
use crate::catalog::TableDef;
use crate::context::Context;
use crate::expr::{BinOp, Expr};
use crate::plan::access::Access;
use crate::plan::from::{Source, SrcKind};
use crate::plan::select::SelectPlan;
use crate::result::Output;
use crate::types::value::Value;
use crate::types::{Column, SqlType};

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// MariaDB's key_len contribution of one column.
fn key_part_len(c: &Column) -> u64 {
    let mb = if c.sql_type.is_binary() { 1 } else { 4 };
    let frac = |fsp: u8| u64::from(fsp).div_ceil(2);
    #[allow(unreachable_patterns)] // column types added later fall back to their display size
    let n = match c.sql_type {
        SqlType::Int { width, .. } => width.bytes() as u64,
        SqlType::Float { .. } => 4,
        SqlType::Double { .. } => 8,
        SqlType::Decimal {
            precision, scale, ..
        } => decimal_bytes(precision, scale),
        SqlType::Char { len } => u64::from(len) * mb,
        SqlType::VarChar { len } => u64::from(len) * mb + 2,
        SqlType::Binary { len } => u64::from(len),
        SqlType::VarBinary { len } => u64::from(len) + 2,
        SqlType::Text(_) | SqlType::Blob(_) => 2 + 255 * mb,
        SqlType::Date => 3,
        SqlType::DateTime { fsp } => 5 + frac(fsp),
        SqlType::Timestamp { fsp } => 4 + frac(fsp),
        SqlType::Time { fsp } => 3 + frac(fsp),
        SqlType::Year => 1,
        SqlType::Enum { count } => crate::codec::row::enum_width(count) as u64,
        // MariaDB packs a SET in 1, 2, 3, 4 or 8 bytes.
        SqlType::Set { count } => match count.div_ceil(8) {
            n @ 1..=4 => u64::from(n),
            _ => 8,
        },
        _ => u64::from(c.sql_type.display_length(c.collation)),
    };
    n + u64::from(c.nullable)
}

/// Bytes of MariaDB's binary DECIMAL: 4 per 9 digits, the rest by table, each side of the point.
fn decimal_bytes(precision: u8, scale: u8) -> u64 {
    const REST: [u64; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let side = |d: u8| u64::from(d / 9) * 4 + REST[usize::from(d % 9)];
    side(precision.saturating_sub(scale)) + side(scale)
}

/// The key columns the access path uses: equality parts, plus the IN/range column.
fn used_parts(a: &Access, t: &TableDef) -> usize {
    let cols = a.key_cols(t);
    let extra = usize::from(a.in_list.is_some() || a.lower.is_some() || a.upper.is_some());
    if a.is_full_scan() {
        cols.len()
    } else {
        (a.eq.len() + extra).min(cols.len())
    }
}

/// How many conjuncts the key range applies (the rest are checked on each row).
fn consumed(a: &Access) -> usize {
    a.eq.len()
        + usize::from(a.in_list.is_some())
        + usize::from(a.lower.is_some())
        + usize::from(a.upper.is_some())
}

/// The EXPLAIN rows of `plan`, then those of each uncorrelated subquery its planning ran
/// (`subqueries`, in the order they were met): MariaDB's `PRIMARY` block with id 1 and a
/// `SUBQUERY` block each, numbered from 2. `primary`: the statement has other SELECTs that
/// show no rows (unreferenced WITH elements), which makes its own `PRIMARY` too.
pub fn explain(
    cx: &Context,
    plan: &SelectPlan,
    subqueries: Vec<Vec<Vec<Value>>>,
    primary: bool,
) -> Output {
    Output::text(&NAMES, blocks(cx, plan, subqueries, primary))
}

/// EXPLAIN's result set of `rows` (built elsewhere, such as a UNION's).
pub fn explain_output(rows: Vec<Vec<Value>>) -> Output {
    Output::text(&NAMES, rows)
}

/// EXPLAIN EXTENDED's rows: EXPLAIN's with MariaDB's `filtered` column before Extra, the
/// planner's estimate of the share of rows its conditions leave: Betula makes none, so 100.00
/// for each table read (NULL where no table is read, as in MariaDB).
pub fn explain_extended(
    cx: &Context,
    plan: &SelectPlan,
    subqueries: Vec<Vec<Vec<Value>>>,
    primary: bool,
) -> Output {
    extended_output(blocks(cx, plan, subqueries, primary))
}

/// EXPLAIN EXTENDED's result set of EXPLAIN's `rows`: the `filtered` column added.
pub fn extended_output(mut rows: Vec<Vec<Value>>) -> Output {
    let mut names: Vec<&str> = NAMES[..9].to_vec();
    names.extend(["filtered", "Extra"]);
    for row in &mut rows {
        // no table read (`No tables used`), or a UNION RESULT row (its id is NULL)
        let filtered = match (&row[0], &row[2]) {
            (Value::Null, _) | (_, Value::Null) => Value::Null,
            _ => text("100.00"),
        };
        row.insert(9, filtered);
    }
    Output::text(&names, rows)
}

/// The rows of the `PRIMARY` block and of each `SUBQUERY` block.
fn blocks(
    cx: &Context,
    plan: &SelectPlan,
    subqueries: Vec<Vec<Vec<Value>>>,
    primary: bool,
) -> Vec<Vec<Value>> {
    let mut rows = plan_rows(cx, plan);
    if primary {
        for r in rows.iter_mut() {
            r[1] = text("PRIMARY");
        }
    }
    with_subqueries(&mut rows, subqueries);
    rows
}

/// `rows`, the statement's own, followed by those of each uncorrelated subquery (a block of
/// [`subquery_rows`] or [`union_rows`]): the statement's select_type becomes `PRIMARY` when
/// there are any, and the subqueries' SELECTs are numbered from 2 in the order the planner met
/// them (a UNION RESULT row names the ids of its union's SELECTs).
fn with_subqueries(rows: &mut Vec<Vec<Value>>, subqueries: Vec<Vec<Vec<Value>>>) {
    if !subqueries.is_empty() {
        for r in rows.iter_mut() {
            r[1] = text("PRIMARY");
        }
    }
    let mut next = 2i64;
    for block in subqueries {
        let base = next;
        for mut r in block {
            match r[0] {
                Value::Int(k) => {
                    r[0] = Value::Int(base + k);
                    next = next.max(base + k + 1);
                }
                _ => {
                    let ids: Vec<String> = (base..next).map(|id| id.to_string()).collect();
                    r[2] = text(&format!("<union{}>", ids.join(",")));
                }
            }
            rows.push(r);
        }
    }
}

/// The rows of an uncorrelated subquery's SELECT, a block of [`with_subqueries`].
pub fn subquery_rows(cx: &Context, plan: &SelectPlan) -> Vec<Vec<Value>> {
    let mut rows = plan_rows(cx, plan);
    for r in &mut rows {
        r[0] = Value::Int(0);
        r[1] = text("SUBQUERY");
    }
    rows
}

/// The rows of an uncorrelated subquery that is a UNION of `selects` (in order), a block of
/// [`with_subqueries`]: the first SELECT's rows are `SUBQUERY`, the others' `UNION`, and a
/// `UNION RESULT` row reads the rows they put together.
pub fn union_rows(cx: &Context, selects: &[&SelectPlan]) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for (k, s) in selects.iter().enumerate() {
        for mut r in plan_rows(cx, s) {
            r[0] = Value::Int(k as i64);
            r[1] = text(if k == 0 { "SUBQUERY" } else { "UNION" });
            rows.push(r);
        }
    }
    let mut result = vec![Value::Null, text("UNION RESULT"), Value::Null, text("ALL")];
    result.extend(vec![Value::Null; 5]);
    result.push(text(""));
    rows.push(result);
    rows
}

/// EXPLAIN of a single-table UPDATE that reads every row of `t` (named `alias`) in primary
/// key order, checking `filtered` conditions on each (MariaDB's `Using where`; a WHERE that
/// planning made constant, such as an uncorrelated EXISTS, checks none), then the rows of the
/// uncorrelated subqueries its planning ran.
pub fn update_full_scan(
    cx: &Context,
    t: &TableDef,
    alias: &str,
    filtered: bool,
    subqueries: Vec<Vec<Vec<Value>>>,
) -> Output {
    let mut row = vec![Value::Int(1), text("SIMPLE"), text(alias), text("ALL")];
    row.extend(vec![Value::Null; 4]);
    row.push(Value::UInt(estimate(cx, t)));
    row.push(text(if filtered { "Using where" } else { "" }));
    let mut rows = vec![row];
    with_subqueries(&mut rows, subqueries);
    Output::text(&NAMES, rows)
}

/// EXPLAIN PARTITIONS: EXPLAIN's rows with MariaDB's `partitions` column after `table`: the
/// partitions each table source reads (its PARTITION (...) list narrowed by pruning), NULL for a
/// table that is not partitioned.
pub fn explain_partitions(cx: &Context, plan: &SelectPlan) -> Output {
    let mut names: Vec<&str> = NAMES[..3].to_vec();
    names.push("partitions");
    names.extend(&NAMES[3..]);
    let mut rows = plan_rows(cx, plan);
    let offset = usize::from(plan.from.sources.is_empty());
    for (i, row) in rows.iter_mut().enumerate() {
        let parts = i
            .checked_sub(offset)
            .and_then(|s| plan.from.sources.get(s))
            .and_then(partition_names);
        row.insert(3, parts.map_or(Value::Null, Value::Text));
    }
    Output::text(&names, rows)
}

/// The partitions a table source reads, comma-separated (`None`: not a partitioned table, or
/// none is read).
fn partition_names(s: &Source) -> Option<String> {
    let SrcKind::Table(t) = &s.kind else {
        return None;
    };
    let p = t.partitioning.as_ref()?;
    let names: Vec<&str> = s
        .access
        .read_parts(t)
        .into_iter()
        .flatten()
        .map(|i| p.parts[i].name.as_str())
        .collect();
    (!names.is_empty()).then(|| names.join(","))
}

/// The ANALYZE rows of `plan` after it ran and read what `stats` counts: EXPLAIN's columns with
/// MariaDB's `r_rows` (rows read per loop), `filtered` (the planner's estimate of the rows left
/// by the conditions: Betula makes none, so 100) and `r_filtered` (the share that really
/// passed) after `rows`.
pub fn analyzed(cx: &Context, plan: &SelectPlan, stats: &JoinStats) -> Output {
    let mut names: Vec<&str> = NAMES[..9].to_vec();
    names.extend(["r_rows", "filtered", "r_filtered", "Extra"]);
    let mut rows = plan_rows(cx, plan);
    for (i, row) in rows.iter_mut().enumerate() {
        let fixed = |n: f64| Value::Text(format!("{n:.2}"));
        let loops = stats.loops.get(i).copied().unwrap_or(0);
        let read = stats.rows.get(i).copied().unwrap_or(0);
        let passed = stats.passed.get(i).copied().unwrap_or(0);
        let r_rows = (loops > 0).then(|| fixed(read as f64 / loops as f64));
        let r_filtered = (read > 0).then(|| fixed(100.0 * passed as f64 / read as f64));
        let extra = row.pop().unwrap_or(Value::Null);
        row.push(r_rows.unwrap_or(Value::Null));
        row.push(fixed(100.0));
        row.push(r_filtered.unwrap_or(Value::Null));
        row.push(extra);
    }
    Output::text(&names, rows)
}

/// What a join read, per source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Times the source was read (once per row of the sources before it).
    pub loops: Vec<u64>,
    /// Rows its access path handed out, over all loops.
    pub rows: Vec<u64>,
    /// Rows that passed its ON clause (the last source: ON and WHERE).
    pub passed: Vec<u64>,
}

impl JoinStats {
    /// Zero counts for `sources` sources.
    pub fn new(sources: usize) -> JoinStats {
        JoinStats {
            loops: vec![0; sources],
            rows: vec![0; sources],
            passed: vec![0; sources],
        }
    }
}

const NAMES: [&str; 10] = [
    "id",
    "select_type",
    "table",
    "type",
    "possible_keys",
    "key",
    "key_len",
    "ref",
    "rows",
    "Extra",
];

/// Whether `plan` reads a derived table (a subquery in FROM, a CTE or a view run as one):
/// MariaDB shows it merged into the query or as `<derivedN>` with a `DERIVED` block, neither
/// of which Betula's plan is, so its EXPLAIN is refused.
pub fn has_derived(plan: &SelectPlan) -> bool {
    plan.from
        .sources
        .iter()
        .any(|s| matches!(s.kind, SrcKind::Derived(_)))
}

/// [`has_derived`] as the error EXPLAIN answers (1235).
pub fn check_no_derived(plan: &SelectPlan) -> crate::error::db_error::DbResult<()> {
    if has_derived(plan) {
        return Err(crate::error::db_error::DbError::unsupported(
            "EXPLAIN of a derived table",
        ));
    }
    Ok(())
}

/// EXPLAIN's rows of one SELECT: a row per table source in join order (`No tables used` when
/// there is none), with id 1 and select_type `SIMPLE` (callers renumber them).
pub fn plan_rows(cx: &Context, plan: &SelectPlan) -> Vec<Vec<Value>> {
    let from = &plan.from;
    let mut out = Vec::new();
    if from.sources.is_empty() {
        let mut r = vec![Value::Int(1), text("SIMPLE")];
        r.extend(vec![Value::Null; 7]);
        r.push(text("No tables used"));
        out.push(r);
    }
    for (i, s) in from.sources.iter().enumerate() {
        out.push(source_row(cx, plan, i, s));
    }
    out
}

/// EXPLAIN's rows for a read of every row of `t`: its row count, and 1 for an empty table, as
/// InnoDB estimates it for the optimizer (a zero count is not trusted without locks).
fn estimate(cx: &Context, t: &TableDef) -> u64 {
    crate::infoschema::row_count(cx, t).max(1)
}

/// How one source of a plan is read, as EXPLAIN describes it (the tabular rows here, the JSON
/// document in explain_json/): the columns of its row but the first two and Extra, and what
/// Extra says of it.
pub struct SourceRead {
    pub access_type: String,
    pub possible_keys: Option<String>,
    pub key: Option<String>,
    /// The key's columns used (table column numbers): MariaDB's used_key_parts.
    pub key_parts: Vec<usize>,
    pub key_len: Option<u64>,
    pub refs: Option<String>,
    pub rows: Option<u64>,
    /// `Using index condition`: conditions checked on the index entries.
    pub index_condition: bool,
    /// `Using where`: conditions checked on the rows read.
    pub using_where: bool,
    /// `Using index`: a covering read.
    pub using_index: bool,
}

/// The EXPLAIN row of source `i` of `plan`.
fn source_row(cx: &Context, plan: &SelectPlan, i: usize, s: &Source) -> Vec<Value> {
    let r = source_read(cx, plan, i, s);
    let mut extra: Vec<&str> = Vec::new();
    if r.index_condition {
        extra.push("Using index condition");
    }
    if r.using_where {
        extra.push("Using where");
    }
    if r.using_index {
        extra.push("Using index");
    }
    if i == 0 {
        // Window functions are computed over the rows kept in memory (exec/window.rs); the
        // aggregates of a query without GROUP BY are one group, summed as rows are read.
        if !plan.group_by.is_empty() || plan.distinct || !plan.windows.is_empty() {
            extra.push("Using temporary");
        }
        if plan.sorted() {
            extra.push("Using filesort");
        }
    }
    let opt = |v: Option<String>| v.map(|s| text(&s)).unwrap_or(Value::Null);
    vec![
        Value::Int(1),
        text("SIMPLE"),
        text(&s.alias),
        text(&r.access_type),
        opt(r.possible_keys),
        opt(r.key),
        opt(r.key_len.map(|n| n.to_string())),
        opt(r.refs),
        r.rows.map_or(Value::Null, Value::UInt),
        // MariaDB's Extra is an empty string when there is nothing to say.
        text(&extra.join("; ")),
    ]
}

/// How source `i` of `plan` is read.
pub fn source_read(cx: &Context, plan: &SelectPlan, i: usize, s: &Source) -> SourceRead {
    let from = &plan.from;
    // Conditions checked on this table's rows: its ON clause and the WHERE conjuncts whose
    // columns are all available once this table is read and that name it.
    let end = s.offset + s.ncols;
    let mine = |e: &Expr| {
        let (mut here, mut later) = (false, false);
        e.visit_cols(&mut |c| {
            here |= c >= s.offset && c < end;
            later |= c >= end;
        });
        here && !later
    };
    let mut conds = plan.where_conj.iter().filter(|e| mine(e)).count();
    if let Some(on) = &s.on_c {
        let mut v = Vec::new();
        crate::plan::access::conjuncts(on, &mut v);
        conds += v.len();
    }
    let mut read = SourceRead {
        access_type: "ALL".to_string(),
        possible_keys: None,
        key: None,
        key_parts: Vec::new(),
        key_len: None,
        refs: None,
        rows: None,
        index_condition: false,
        using_where: false,
        using_index: false,
    };
    match &s.kind {
        SrcKind::Rows(r) => read.rows = Some(r.len() as u64),
        SrcKind::Sequence(seq) => read.rows = Some(seq.row_count()),
        // Not reached from EXPLAIN (check_no_derived refuses it first).
        SrcKind::Derived(_) => {}
        SrcKind::Table(t) => {
            let a = &s.access;
            // A full read of the primary tree is an `index` read of PRIMARY when it gives
            // every column the query needs (MariaDB: InnoDB's clustered key is covering).
            let pk_covers = !t.pk.is_empty()
                && s.needed
                    .iter()
                    .enumerate()
                    .all(|(c, &n)| !n || t.pk.contains(&c));
            let scan_index = a.is_full_scan()
                && (a.index.is_some()
                    || (i == 0 && plan.key_ordered && !t.pk.is_empty())
                    || (pk_covers && s.hints.allows(None)));
            let kind = if scan_index {
                "index".to_string()
            } else if a.is_point(t) {
                if a.eq.iter().all(Expr::is_const) {
                    "const"
                } else {
                    "eq_ref"
                }
                .to_string()
            } else {
                a.kind(t).to_string()
            };
            let key = if a.is_full_scan() && !scan_index {
                None
            } else {
                Some(match a.index {
                    None => "PRIMARY".to_string(),
                    Some(ix) => t.indexes[ix].name.clone(),
                })
            };
            if key.is_some() {
                let cols = a.key_cols(t);
                read.key_parts = cols[..used_parts(a, t)].to_vec();
                read.key_len = Some(
                    read.key_parts
                        .iter()
                        .map(|&c| key_part_len(&t.columns[c]))
                        .sum::<u64>(),
                );
            }
            read.refs = (!a.eq.is_empty()).then(|| {
                a.eq.iter()
                    .map(|e| match e {
                        Expr::Col(c) => {
                            let sc = &from.scope.cols[*c];
                            format!("{}.{}.{}", sc.db, sc.table, sc.name)
                        }
                        _ if e.is_const() => "const".to_string(),
                        _ => "func".to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            });
            let covering = match a.index {
                Some(ix) => covers(t, ix, &s.needed),
                None => pk_covers,
            };
            if let Some(p) = &a.pushed {
                read.index_condition = true;
                read.using_where = p.left > 0;
            } else {
                read.using_where = conds > consumed(a) || (a.is_full_scan() && conds > 0);
            }
            read.using_index = covering && key.is_some();
            read.rows = Some(if a.is_point(t) { 1 } else { estimate(cx, t) });
            let chosen = key.clone().filter(|_| kind != "index");
            let conj: Vec<&Expr> = plan.where_conj.iter().filter(|e| mine(e)).collect();
            read.possible_keys = possible_keys(t, s, a, chosen, &conj);
            read.access_type = kind;
            read.key = key;
        }
    }
    read
}

/// EXPLAIN's possible_keys: the key read (unless the whole index is scanned), and the keys
/// MariaDB's range analysis also finds for `first_col NOT IN (...)` / `first_col <> const`
/// (ranges around the excluded values; Betula reads no ranges for them, the key is only a
/// candidate), in the table's key order.
fn possible_keys(
    t: &TableDef,
    s: &Source,
    a: &Access,
    chosen: Option<String>,
    conj: &[&Expr],
) -> Option<String> {
    let excluding = |col: usize| {
        conj.iter().any(|e| match e {
            Expr::InList(x, list, true, _) => {
                matches!(&**x, Expr::Col(c) if *c == s.offset + col)
                    && list.iter().all(Expr::is_const)
            }
            Expr::Binary(BinOp::Ne, x, y, _) => {
                matches!((&**x, &**y), (Expr::Col(c), o) | (o, Expr::Col(c))
                    if *c == s.offset + col && o.is_const())
            }
            _ => false,
        })
    };
    let mut keys: Vec<(Option<usize>, String, &[usize])> = Vec::new();
    if !t.pk.is_empty() {
        keys.push((None, "PRIMARY".into(), &t.pk));
    }
    for (i, ix) in t.indexes.iter().enumerate() {
        keys.push((Some(i), ix.name.clone(), &ix.columns));
    }
    let names: Vec<String> = keys
        .into_iter()
        .filter(|(ix, name, cols)| {
            (chosen.as_deref() == Some(name.as_str()) && a.index == *ix)
                || (s.hints.allows(*ix) && cols.first().is_some_and(|&c| excluding(c)))
        })
        .map(|(_, name, _)| name)
        .collect();
    (!names.is_empty()).then(|| names.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_key_bytes_follow_mariadb() {
        assert_eq!(decimal_bytes(10, 2), 5);
        assert_eq!(decimal_bytes(18, 9), 8);
        assert_eq!(decimal_bytes(65, 30), 30);
    }
}
