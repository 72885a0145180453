//! Table rebuild: copies every row of a table into the trees of its next generation under a new
//! definition (ALTER TABLE that changes column types, order or nullability, drops a column,
//! changes the primary key, FORCE, ORDER BY).
//!
//! Protocol (design.md "Table rebuild"; the caller holds the schema lock exclusively, so no
//! transaction writes the table meanwhile):
//! 1. Create the new generation's trees (`TableDef::generation` + 1: names no current table
//!    owns), empty.
//! 2. Scan the old primary tree; convert each row to the new columns (values by `origin`,
//!    converted as INSERT converts them, with its warnings; added columns take their default or
//!    the next AUTO_INCREMENT value); push the primary entry and every index entry into external
//!    sorters.
//! 3. `Store::bulk_replace` builds the new trees bottom-up from the sorted streams (the rows never
//!    reach the log), checking primary and unique keys for duplicates on the way.
//! 4. The caller writes the new definition to the catalog (one write: the switch), then drops
//!    the old trees. A crash before the catalog write leaves the old table intact plus orphan
//!    trees, dropped at the next start (catalog.rs).
//!
//! On any error, a KILL of the connection included (checked at each row copied and each entry
//! built), the new trees are dropped and the old table is untouched.

use std::cell::RefCell;
use std::ops::Bound;
use std::rc::Rc;

use crate::catalog::TableDef;
use crate::codec::key::{encode_key, KeyColumn, KeyDecoder};
use crate::codec::row::{decode_row, encode_row};
use crate::context::interrupt::Interrupt;
use crate::context::Context;
use crate::ddl::part_streams::{sort_key, split, Entries};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::load::sorter::{Sorter, TempDir};
use crate::types::coerce::{coerce_to_column, SqlMode};
use crate::types::value::Value;
use crate::types::SqlType;

/// How the rows of the new table are made from the old ones.
pub struct Plan<'a> {
    pub old: &'a TableDef,
    /// The new definition; its `generation` names the trees to fill.
    pub new: &'a TableDef,
    /// Per new column: the old column it takes its values from (`None`: an added column).
    pub origin: &'a [Option<usize>],
    /// ALTER TABLE ... ORDER BY for a table without primary key: new columns, descending.
    pub order: &'a [(usize, bool)],
    /// The old partitions whose rows are copied (`None`: every row of the table).
    pub from_parts: Option<&'a [usize]>,
    /// The new partitions whose trees are built (`None`: all of the new table's trees); a row
    /// that belongs to another partition is an error (1526).
    pub into_parts: Option<&'a [usize]>,
}

impl Plan<'_> {
    /// The new partitions built (`[None]`: a table that is not partitioned).
    fn targets(&self) -> Vec<Option<usize>> {
        match self.into_parts {
            Some(v) => v.iter().map(|&p| Some(p)).collect(),
            None => self.new.parts(),
        }
    }
    /// The old partitions read.
    fn sources(&self) -> Vec<Option<usize>> {
        match self.from_parts {
            Some(v) => v.iter().map(|&p| Some(p)).collect(),
            None => self.old.parts(),
        }
    }
}

/// Memory budget of the sorters together.
const SORT_BUDGET: usize = 64 << 20;

/// Builds the trees of `plan.new` from the rows of `plan.old`; returns the number of rows.
pub fn copy_rows(cx: &mut Context, plan: &Plan<'_>) -> DbResult<u64> {
    let store = &cx.engine.store;
    let opts = crate::ddl::tables::tree_opts(cx, plan.new);
    let trees: Vec<String> = plan
        .targets()
        .into_iter()
        .flat_map(|p| plan.new.trees_of(p))
        .collect();
    for tree in &trees {
        store.drop_tree(tree)?;
        store.create_tree(tree, Some(opts))?;
    }
    // The rows are bulk built columnar (design.md COL5).
    store.set_column_layouts(
        plan.new
            .column_layouts()
            .into_iter()
            .filter(|(name, _)| trees.contains(name))
            .collect(),
    )?;
    let r = fill(cx, plan);
    if r.is_err() {
        for tree in &trees {
            let _ = cx.engine.store.drop_tree(tree);
        }
    }
    r
}

fn fill(cx: &mut Context, plan: &Plan<'_>) -> DbResult<u64> {
    let (old, new) = (plan.old, plan.new);
    let tmp = TempDir::new(&cx.engine.config.datadir)?;
    let share = SORT_BUDGET / (2 + new.indexes.len());
    let mut primary = Sorter::new(tmp.path(), "primary", share);
    let mut indexes: Vec<Sorter> = (0..new.indexes.len())
        .map(|i| Sorter::new(tmp.path(), &format!("index{i}"), share))
        .collect();
    let reorder = !plan.order.is_empty() && new.pk.is_empty();
    let keep_keys = new.pk.is_empty() && old.pk.is_empty() && !reorder;
    let mut ordered = reorder.then(|| Sorter::new(tmp.path(), "order", share));
    let mode = cx.coerce_mode(cx.strict());
    let mut warnings = Vec::new();
    let mut next_auto = plan
        .old
        .auto_inc_col()
        .map_or(1, |_| {
            old.counters
                .auto_inc
                .load(std::sync::atomic::Ordering::SeqCst)
        })
        .max(1);
    let mut rows = 0u64;
    let mut bytes = Vec::new();
    let targets = plan.targets();
    let total = crate::infoschema::row_count(cx, old);
    cx.progress.stage("copy to tmp table", 1, 2, total);
    let mut sources = Vec::new();
    for part in plan.sources() {
        sources.push(cx.engine.store.tree(&old.primary_tree_of(part))?);
    }
    let scans = sources
        .iter()
        .flat_map(|s| s.range(Bound::Unbounded, Bound::Unbounded, false));
    for item in scans {
        let (old_key, v) = item?;
        cx.check_interrupted()?;
        rows += 1;
        if rows % 1024 == 0 {
            cx.progress.set_done(rows);
        }
        let old_row = decode_row(&old.layout, &v)?;
        let row = convert(
            cx,
            plan,
            &old_row,
            rows,
            mode,
            &mut next_auto,
            &mut warnings,
        )?;
        bytes.clear();
        encode_row(&new.layout, &row, &mut bytes)?;
        if let Some(s) = ordered.as_mut() {
            s.push(&order_key(new, plan.order, &row)?, rows, &bytes)?;
            continue;
        }
        let pk = if keep_keys {
            old_key
        } else {
            new.encode_pk(&row)?
        };
        let part = target_of(new, &targets, &row)?;
        push(
            new,
            part,
            &mut primary,
            &mut indexes,
            &pk,
            rows,
            &row,
            &bytes,
        )?;
    }
    if let Some(s) = ordered {
        for e in s.finish()? {
            let (_, seq, bytes) = e?;
            cx.check_interrupted()?;
            let row = decode_row(&new.layout, &bytes)?;
            let pk = new.encode_pk(&row)?;
            let part = target_of(new, &targets, &row)?;
            push(
                new,
                part,
                &mut primary,
                &mut indexes,
                &pk,
                seq,
                &row,
                &bytes,
            )?;
        }
    }
    if new.auto_inc_col().is_some() {
        new.counters
            .auto_inc
            .fetch_max(next_auto, std::sync::atomic::Ordering::SeqCst);
    }
    cx.progress.stage("copy to tmp table", 2, 2, 1);
    let mut loads = Vec::new();
    for (part, entries) in targets.iter().zip(split(primary.finish()?, &targets)) {
        loads.push(primary_load(new, *part, entries));
    }
    for (i, s) in indexes.into_iter().enumerate() {
        for (part, entries) in targets.iter().zip(split(s.finish()?, &targets)) {
            loads.push(index_load(new, i, *part, entries));
        }
    }
    build(cx, new, loads)?;
    cx.warnings.extend(warnings);
    Ok(rows)
}

/// The partition of the new table `row` goes to, which must be one being built.
fn target_of(new: &TableDef, targets: &[Option<usize>], row: &[Value]) -> DbResult<Option<usize>> {
    let part = new.part_of_row(row)?;
    if !targets.contains(&part) {
        return Err(crate::catalog::partition::no_partition(
            "outside the partitions being reorganized",
        ));
    }
    Ok(part)
}

#[allow(clippy::too_many_arguments)] // one row's entries: where, what and its order
fn push(
    new: &TableDef,
    part: Option<usize>,
    primary: &mut Sorter,
    indexes: &mut [Sorter],
    pk: &[u8],
    seq: u64,
    row: &[Value],
    bytes: &[u8],
) -> DbResult<()> {
    primary.push(&sort_key(part, pk), seq, bytes)?;
    for (i, s) in indexes.iter_mut().enumerate() {
        let value = sort_value(new, i, row, bytes)?;
        s.push(
            &sort_key(part, &new.encode_index_key(i, row, pk)?),
            seq,
            &value,
        )?;
    }
    Ok(())
}

/// The new row made from an old one.
fn convert(
    cx: &Context,
    plan: &Plan<'_>,
    old_row: &[Value],
    rownum: u64,
    mode: SqlMode,
    next_auto: &mut u64,
    warnings: &mut Vec<Warning>,
) -> DbResult<Vec<Value>> {
    let new = plan.new;
    let mut row = Vec::with_capacity(new.columns.len());
    for (i, c) in new.columns.iter().enumerate() {
        if new.generated[i].is_some() {
            // computed below, from the new row
            row.push(Value::Null);
            continue;
        }
        let v = match plan.origin[i] {
            Some(j) => {
                let before = warnings.len();
                // A TIMESTAMP's stored UTC stays as it is in a TIMESTAMP, and is read in the
                // session's time zone by any other type (as MariaDB's copy does).
                let (old_v, mode) = match (
                    plan.old.columns[j].sql_type.is_timestamp(),
                    c.sql_type.is_timestamp(),
                ) {
                    (true, true) => (old_row[j].clone(), SqlMode::utc(mode.strict)),
                    (true, false) => match &old_row[j] {
                        Value::DateTime(dt) => {
                            (Value::DateTime(cx.time_zone.utc_to_local(*dt)), mode)
                        }
                        v => (v.clone(), mode),
                    },
                    _ => (old_row[j].clone(), mode),
                };
                let v = coerce_to_column(&old_v, c, rownum, mode, warnings).map_err(|e| {
                    match e {
                        // MySQL's word for a NULL met by ALTER TABLE in a NOT NULL column
                        crate::error::sql_error::SqlError::NotNull { .. } => {
                            DbError::new(ErrorCode::InvalidUseOfNull, "Invalid use of NULL value")
                        }
                        e => e.into(),
                    }
                })?;
                as_copy_warnings(&old_row[j], &c.sql_type, &mut warnings[before..]);
                v
            }
            None if c.auto_increment => Value::Null,
            None if new.default_now[i] => {
                coerce_to_column(&Value::DateTime(cx.now), c, rownum, mode, warnings)?
            }
            None => c.default_value(),
        };
        let v = if c.auto_increment && (v.is_null() || v.to_f64_lenient() == Some(0.0)) {
            let id = *next_auto;
            *next_auto += 1;
            coerce_to_column(&Value::UInt(id), c, rownum, mode, warnings)?
        } else {
            if c.auto_increment {
                if let Some(n) = v.to_f64_lenient() {
                    if n >= 1.0 {
                        *next_auto = (*next_auto).max(n as u64 + 1);
                    }
                }
            }
            v
        };
        row.push(v);
    }
    // Generated values are computed again: their expressions or the columns they read may have
    // changed (design.md GEN1).
    crate::exec::dml::compute_generated(new, &mut row, rownum, mode, warnings)?;
    crate::exec::dml::check_row(new, &row)?;
    Ok(row)
}

/// MariaDB words a bad string converted to a number by ALTER TABLE's copy as 1292 "Truncated
/// incorrect INTEGER value: 'x'" (INSERT's 1366 names the column and row instead).
fn as_copy_warnings(from: &Value, to: &SqlType, new: &mut [Warning]) {
    let kind = match to {
        SqlType::Int { .. } | SqlType::Year => "INTEGER",
        SqlType::Decimal { .. } => "DECIMAL",
        SqlType::Float { .. } | SqlType::Double { .. } => "DOUBLE",
        _ => return,
    };
    let Value::Text(s) = from else { return };
    for w in new.iter_mut().filter(|w| {
        w.code == ErrorCode::TruncatedWrongValueForField || w.code == ErrorCode::WarnDataTruncated
    }) {
        *w = Warning {
            level: WarningLevel::Warning,
            code: ErrorCode::TruncatedWrongValue,
            message: format!("Truncated incorrect {kind} value: '{s}'"),
        };
    }
}

/// The sort key of ALTER TABLE ... ORDER BY: each column's key encoding, complemented for
/// DESC (key encodings are prefix-free, so the complement sorts in reverse).
fn order_key(t: &TableDef, order: &[(usize, bool)], row: &[Value]) -> DbResult<Vec<u8>> {
    let mut out = Vec::new();
    for &(c, desc) in order {
        let start = out.len();
        encode_key(
            &[KeyColumn::from_column(&t.columns[c])],
            std::slice::from_ref(&row[c]),
            &mut out,
        )?;
        if desc {
            for b in &mut out[start..] {
                *b = !*b;
            }
        }
    }
    Ok(out)
}

/// The first duplicate-key error met while the trees are built.
type Failure = Rc<RefCell<Option<DbError>>>;

fn fail(f: &Failure, e: DbError) -> betula_storage::Error {
    let msg = e.message.clone();
    f.borrow_mut().get_or_insert(e);
    betula_storage::Error::InvalidArgument(msg)
}

/// Streams a sorted tree's entries, failing on two entries whose first `check.prefix` key
/// columns are equal and (in a secondary index) not NULL.
struct Checked<'a> {
    inner: Entries,
    interrupt: Interrupt,
    t: &'a TableDef,
    check: Option<Check>,
    prev: Option<Vec<u8>>,
    failure: Failure,
    values: Values,
}

struct Check {
    /// Key columns to decode, and how many of them must differ.
    columns: Vec<KeyColumn>,
    prefix: usize,
    /// The index (None: primary) for the error message.
    index: Option<usize>,
}

impl Checked<'_> {
    /// The bytes of the checked prefix of `key`, or None if one of its columns is NULL.
    fn prefix(&self, check: &Check, key: &[u8]) -> DbResult<Option<Vec<u8>>> {
        let mut d = KeyDecoder::new(key);
        for kc in &check.columns[..check.prefix] {
            let at = d.position();
            if key.get(at) == Some(&0) && check.index.is_some() {
                return Ok(None);
            }
            d.next(kc)?;
        }
        Ok(Some(key[..d.position()].to_vec()))
    }

    /// Error 1062 for the row `value` (every checked stream carries rows).
    fn duplicate(&self, check: &Check, value: &[u8]) -> DbError {
        let t = self.t;
        let (cols, name) = match check.index {
            None => (&t.pk, "PRIMARY".to_string()),
            Some(i) => (&t.indexes[i].columns, t.indexes[i].name.clone()),
        };
        match decode_row(&t.layout, value) {
            Ok(row) => DbError::duplicate(&t.dup_entry(cols, &row), &name),
            Err(e) => e.into(),
        }
    }
}

impl Iterator for Checked<'_> {
    type Item = betula_storage::Result<(Vec<u8>, Vec<u8>)>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Err(e) = self.interrupt.check() {
            return Some(Err(fail(&self.failure, e)));
        }
        let (key, _, value) = match self.inner.next()? {
            Ok(e) => e,
            Err(e) => return Some(Err(fail(&self.failure, e))),
        };
        if let Some(check) = self.check.take() {
            let r = self.prefix(&check, &key);
            let prefix = match r {
                Ok(p) => p,
                Err(e) => return Some(Err(fail(&self.failure, e))),
            };
            if let Some(p) = prefix {
                if self.prev.as_ref() == Some(&p) {
                    let e = self.duplicate(&check, &value);
                    return Some(Err(fail(&self.failure, e)));
                }
                self.prev = Some(p);
            }
            self.check = Some(check);
        }
        let value = match self.values {
            Values::Keep => value,
            Values::FromRow(ix) => {
                let r = decode_row(&self.t.layout, &value)
                    .map_err(DbError::from)
                    .and_then(|row| crate::catalog::index_entry::entry_value(self.t, ix, &row));
                match r {
                    Ok(v) => v,
                    Err(e) => return Some(Err(fail(&self.failure, e))),
                }
            }
        };
        Some(Ok((key, value)))
    }
}

/// What a sorted stream's values become in the tree.
#[derive(Clone, Copy)]
enum Values {
    /// Stored as they are (rows of the primary tree, entry values of a non-unique index).
    Keep,
    /// Rows, turned into the entry values of index `ix` (a unique index's entries carry the row
    /// until the build, for a duplicate's message).
    FromRow(usize),
}

/// The value sorted with `row`'s entry of index `i`: the row bytes for a unique index (see
/// [`Values::FromRow`]), else the entry's value.
fn sort_value(t: &TableDef, i: usize, row: &[Value], bytes: &[u8]) -> DbResult<Vec<u8>> {
    if t.indexes[i].unique {
        Ok(bytes.to_vec())
    } else {
        crate::catalog::index_entry::entry_value(t, i, row)
    }
}

/// One tree to build: its sorted entries and the key check on the way.
struct Load {
    tree: String,
    entries: Entries,
    check: Option<Check>,
    values: Values,
}

fn primary_load(t: &TableDef, part: Option<usize>, entries: Entries) -> Load {
    let columns = t.pk_key_columns();
    Load {
        tree: t.primary_tree_of(part),
        entries,
        check: Some(Check {
            prefix: columns.len(),
            columns,
            index: None,
        }),
        values: Values::Keep,
    }
}

fn index_load(t: &TableDef, i: usize, part: Option<usize>, entries: Entries) -> Load {
    let ix = &t.indexes[i];
    Load {
        tree: t.index_tree_of(part, i),
        entries,
        check: ix.unique.then(|| Check {
            columns: t.index_key_columns(i),
            prefix: ix.columns.len(),
            index: Some(i),
        }),
        values: if ix.unique {
            Values::FromRow(i)
        } else {
            Values::Keep
        },
    }
}

/// Builds the trees of `loads` (which must exist) from their sorters, all swapped in together.
fn build(cx: &Context, t: &TableDef, loads: Vec<Load>) -> DbResult<()> {
    let failure: Failure = Rc::default();
    let mut streams: Vec<(String, betula_storage::SortedRows<'_>)> = Vec::new();
    for l in loads {
        streams.push((
            l.tree,
            Box::new(Checked {
                inner: l.entries,
                interrupt: cx.interrupt.clone(),
                t,
                check: l.check,
                prev: None,
                failure: failure.clone(),
                values: l.values,
            }),
        ));
    }
    let r = cx.engine.store.bulk_replace(streams);
    if let Some(e) = failure.borrow_mut().take() {
        return Err(e);
    }
    r?;
    Ok(())
}

/// Builds new secondary indexes `which` of `t` (their trees are created here, empty, in every
/// partition) from the rows of its primary trees, checking UNIQUE ones; on error their trees are
/// dropped again.
pub fn build_indexes(cx: &mut Context, t: &TableDef, which: &[usize]) -> DbResult<()> {
    let built = create_index_trees(cx, t, which)?;
    let r = fill_indexes(cx, t, which, None);
    if r.is_err() {
        for tree in &built {
            let _ = cx.engine.store.drop_tree(tree);
        }
    }
    r
}

/// Creates the trees of new secondary indexes `which` of `t` in every partition, empty, with
/// their column layouts; returns their names.
pub fn create_index_trees(cx: &Context, t: &TableDef, which: &[usize]) -> DbResult<Vec<String>> {
    let store = &cx.engine.store;
    let opts = crate::ddl::tables::tree_opts(cx, t);
    let built: Vec<String> = t
        .parts()
        .iter()
        .flat_map(|&p| which.iter().map(move |&i| (p, i)))
        .map(|(p, i)| t.index_tree_of(p, i))
        .collect();
    for tree in &built {
        store.drop_tree(tree)?;
        store.create_tree(tree, Some(opts))?;
    }
    store.set_column_layouts(
        t.column_layouts()
            .into_iter()
            .filter(|(name, _)| built.contains(name))
            .collect(),
    )?;
    Ok(built)
}

/// Fills the (empty) trees of indexes `which` of `t` from its primary trees as `snap` sees them
/// (None: the latest committed rows), bottom-up from sorted streams, checking UNIQUE ones.
/// Reports stages 1 (rows read) and 2 (trees built) of `max_stage`.
pub fn fill_indexes(
    cx: &mut Context,
    t: &TableDef,
    which: &[usize],
    snap: Option<&betula_storage::Txn>,
) -> DbResult<()> {
    let parts = t.parts();
    let max_stage = if snap.is_some() { 3 } else { 2 };
    let total = crate::infoschema::row_count(cx, t);
    cx.progress.stage("altering table", 1, max_stage, total);
    let tmp = TempDir::new(&cx.engine.config.datadir)?;
    let share = SORT_BUDGET / which.len().max(1);
    let mut sorters: Vec<Sorter> = which
        .iter()
        .map(|i| Sorter::new(tmp.path(), &format!("index{i}"), share))
        .collect();
    let mut seq = 0;
    for &part in &parts {
        let primary = cx.engine.store.tree(&t.primary_tree_of(part))?;
        let rows = match snap {
            Some(s) => s.range(&primary, Bound::Unbounded, Bound::Unbounded, false),
            None => primary.range(Bound::Unbounded, Bound::Unbounded, false),
        };
        for item in rows {
            let (pk, v) = item?;
            cx.check_interrupted()?;
            seq += 1;
            if seq % 1024 == 0 {
                cx.progress.set_done(seq);
            }
            let row = decode_row(&t.layout, &v)?;
            for (s, &i) in sorters.iter_mut().zip(which) {
                let value = sort_value(t, i, &row, &v)?;
                let key = sort_key(part, &t.encode_index_key(i, &row, &pk)?);
                s.push(&key, seq, &value)?;
            }
        }
    }
    cx.progress.stage("altering table", 2, max_stage, 1);
    let mut loads = Vec::new();
    for (s, &i) in sorters.into_iter().zip(which) {
        for (part, entries) in parts.iter().zip(split(s.finish()?, &parts)) {
            loads.push(index_load(t, i, *part, entries));
        }
    }
    build(cx, t, loads)?;
    cx.progress.set_done(1);
    Ok(())
}
