//! ALTER TABLE (and CREATE INDEX / DROP INDEX, which are ALTER TABLE with one operation).
//!
//! Owns: applying the statement's operations ([`AlterOp`]s, grammar: parser/alter.rs) to a
//! [`Draft`] of the table, and choosing how to carry the result out:
//! * **instant** when every stored row still decodes to the new columns by its own row version
//!   (instant.rs, design.md INS1-INS8: columns added anywhere, dropped, renamed, moved, widened,
//!   defaults and NULL-ability relaxed, table options other than ROW_FORMAT / COMPRESSION): only
//!   the catalog entry is rewritten, with the evolved row layout;
//! * **in place** when it is instant but adds secondary indexes: they are built from the primary
//!   tree, dropped ones' trees removed;
//! * **rebuild** otherwise (rebuild.rs): the rows are copied into the next generation's trees.
//!
//! ALGORITHM= and LOCK= are held against that plan (instant.rs) before anything is written.
//!
//! Invariants: the statement is all-or-nothing: every operation is checked against the draft
//! before anything is written; the catalog entry is written once, after the new trees are
//! complete, and trees the old definition used and the new one does not are dropped after it
//! (ddl ordering: the catalog never names a missing tree). ALTER runs under the exclusive
//! schema lock, so no transaction writes the table meanwhile; an instant ALTER holds it for the
//! catalog write only (INS4), and LOCK=NONE refuses a rebuild (INS8).

use std::sync::atomic::Ordering;

use std::sync::Arc;

use crate::catalog::partition::{self, PartitionClause, Retention};
use crate::catalog::{charset_clause, create_table, TableDef};
use crate::codec::row::RowLayout;
use crate::context::Context;
use crate::ddl::foreign_key_columns;
use crate::ddl::instant::{self, Plan, Why};
use crate::ddl::partitions;
use crate::ddl::rebuild;
use crate::ddl::table_draft::{parse_column, Draft};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::parser::alter::{AlterAlgorithm, AlterLock, AlterOp};
use crate::result::Output;
use crate::types::collation::Collation;

/// ALTER TABLE's table options on the new definition: COMMENT, ROW_FORMAT / COMPRESSION (the
/// codec and level of the table's trees: the statement rebuilds the table, see [`recompresses`]),
/// AUTO_INCREMENT (raises the counter), the shown options, ENGINE (the name shown, ddl.rs),
/// [DEFAULT] CHARACTER SET / COLLATE (the table's default collation; columns keep theirs);
/// PASSWORD, INSERT_METHOD, UNION and STATS_* are accepted and ignored.
fn apply_options(
    new: &mut TableDef,
    opts: &[(String, String)],
    db_default: Collation,
) -> DbResult<()> {
    let mut shown = create_table::TableOptions {
        shown: new.options.clone(),
        ..Default::default()
    };
    let charset = opts.iter().rev().find(|(k, _)| k == "CHARSET");
    let collate = opts.iter().rev().find(|(k, _)| k == "COLLATE");
    if charset.is_some() || collate.is_some() {
        // The table's default only: existing columns keep theirs (shown with their own clause).
        new.collation = charset_clause::resolve(
            charset.map(|(_, v)| v.as_str()),
            collate.map(|(_, v)| v.as_str()),
            db_default,
        )?;
    }
    for (k, v) in opts {
        match k.as_str() {
            "ENGINE" => new.engine = create_table::shown_engine(v),
            "CHARSET" | "COLLATE" => {}
            "COMMENT" => new.comment = Some(v.clone()),
            "ROW_FORMAT" | "COMPRESSION" => {
                if k == "ROW_FORMAT" {
                    new.row_format = Some(v.clone());
                } else {
                    new.compression = Some(v.clone());
                }
                new.codec = create_table::table_codec(&new.row_format, &new.compression)?;
            }
            "AUTO_INCREMENT" => {
                let n: u64 = v.parse().map_err(|_| DbError::syntax(v))?;
                if new.auto_inc_col().is_some() {
                    new.counters.auto_inc.fetch_max(n, Ordering::SeqCst);
                }
            }
            "PASSWORD" | "INSERT_METHOD" | "UNION" | "STATS_PERSISTENT" | "STATS_AUTO_RECALC"
            | "STATS_SAMPLE_PAGES" => {}
            _ => shown.set(k, v.clone()),
        }
    }
    new.options = shown.shown;
    Ok(())
}

/// Whether the options name a ROW_FORMAT or COMPRESSION: the table is rebuilt, so every row is
/// written again with the (new) codec, level and column layout, as InnoDB rebuilds a table for
/// a ROW_FORMAT.
fn recompresses(opts: &[(String, String)]) -> bool {
    opts.iter()
        .any(|(k, _)| k == "ROW_FORMAT" || k == "COMPRESSION")
}

fn note(cx: &mut Context, code: ErrorCode, message: String) {
    cx.warnings.push(Warning {
        level: WarningLevel::Note,
        code,
        message,
    });
}

fn not_supported(what: &str, reason: Option<&str>, try_: &str) -> DbError {
    match reason {
        None => DbError::new(
            ErrorCode::AlterOperationNotSupported,
            format!("{what} is not supported for this operation. Try {try_}"),
        ),
        Some(r) => DbError::new(
            ErrorCode::AlterOperationNotSupportedReason,
            format!("{what} is not supported. Reason: {r}. Try {try_}"),
        ),
    }
}

/// ALTER [ONLINE] TABLE db.t ops.
pub fn alter_table(
    cx: &mut Context,
    db: &str,
    t: &str,
    ops: Vec<AlterOp>,
    online: bool,
) -> DbResult<Output> {
    cx.get_table(db, t)?;
    execute(cx, db, t, ops, online)?;
    Ok(Output::done(0))
}

/// What the operations asked for besides the draft.
#[derive(Default)]
struct Extras {
    options: Vec<(String, String)>,
    rename: Option<Vec<String>>,
    order: Vec<(String, bool)>,
    force: bool,
    lock: AlterLock,
    algorithm: AlterAlgorithm,
    /// ADD CHECK: name and expression text; DROP CONSTRAINT: name and IF EXISTS.
    checks: Vec<(Option<String>, String)>,
    dropped_checks: Vec<(String, bool)>,
    /// ADD / CHANGE / MODIFY COLUMN: the column's name before (None when added) and the
    /// CHECK constraints its new definition writes (they replace the column's old ones).
    column_checks: Vec<(Option<String>, Vec<crate::catalog::CheckDef>)>,
    /// PARTITION BY (`Some(Some(..))`) or REMOVE PARTITIONING (`Some(None)`).
    partition: Option<Option<Box<PartitionClause>>>,
    /// RETENTION = ... (`Some(None)`: RETENTION = NONE).
    retention: Option<Option<Retention>>,
}

/// Applies `ops` to the table `db`.`t` (under the schema lock).
pub fn execute(
    cx: &mut Context,
    db: &str,
    t: &str,
    mut ops: Vec<AlterOp>,
    online: bool,
) -> DbResult<()> {
    cx.check_db_access(db)?;
    cx.begin_ddl()?;
    if let Some(at) = ops.iter().position(partitions::is_management) {
        // A partition operation stands alone (LOCK= and ALGORITHM= aside), as in MariaDB.
        let alone = ops
            .iter()
            .enumerate()
            .all(|(i, o)| i == at || matches!(o, AlterOp::Lock(_) | AlterOp::Algorithm(_)));
        if !alone {
            return Err(DbError::syntax(
                "partition operation with other ALTER TABLE operations",
            ));
        }
        return partitions::manage(cx, db, t, ops.swap_remove(at));
    }
    let retention = ops.iter().any(|o| matches!(o, AlterOp::Retention(_)));
    if retention && cx.engine.binlog().is_some() && !ops.iter().all(AlterOp::is_retention_or_lock) {
        // RET7: the statement is logged for replicas, which do not know the option.
        return Err(DbError::unsupported(
            "RETENTION together with other ALTER TABLE changes while the binary log is on \
             (change RETENTION in a statement of its own)",
        ));
    }
    let old = cx.get_table(db, t)?;
    let mut draft = Draft::of(&old);
    let mut ex = Extras {
        lock: if online {
            AlterLock::None
        } else {
            AlterLock::Default
        },
        ..Default::default()
    };
    for op in ops {
        apply(cx, db, &old, &mut draft, &mut ex, op)?;
    }
    if old.temporary.is_some() {
        // No other session can use a temporary table: any ALTER is "online" (as in MariaDB).
        ex.lock = AlterLock::Default;
    }
    let fin = draft.finish(&old)?;
    let mut new = fin.def;
    let renames = foreign_key_columns::renamed(&old, &new, &fin.origin);
    foreign_key_columns::rename_self_references(&mut new, &renames);
    foreign_key_columns::check_types(cx, &old, &new, &renames)?;
    crate::ddl::foreign_key_ops::validate(cx, &new, &old.foreign_keys)?;
    crate::ddl::foreign_key_ops::check_existing_rows(cx, &old, &new)?;
    apply_options(&mut new, &ex.options, cx.database_collation(db))?;
    crate::ddl::check_ops::apply(&mut new, &ex.checks, &ex.dropped_checks)?;
    crate::ddl::check_ops::apply_column_checks(&mut new, &ex.column_checks)?;
    apply_partitioning(&old, &mut new, &ex)?;
    let mut order = Vec::new();
    for (name, desc) in &ex.order {
        let i = new
            .col_index(name)
            .ok_or_else(|| DbError::bad_field(name, "ORDER BY"))?;
        order.push((i, *desc));
    }
    if !order.is_empty() && !new.pk.is_empty() {
        cx.warn(
            ErrorCode::UnknownError,
            format!(
                "ORDER BY ignored as there is a user-defined clustered index in the table '{t}'"
            ),
        );
        order.clear();
    }
    if ex.lock == AlterLock::None {
        check_no_lock(&ex)?;
    }
    let fresh = carry_out(
        cx,
        &old,
        &mut new,
        (&fin.origin, &fin.index_origin),
        &order,
        &ex,
    )?;
    let published = partitions::publish(cx, &old, new)?;
    foreign_key_columns::follow_renames(cx, &published, &renames)?;
    // Snapshots older than the new trees may not read them (design.md OIX7).
    let store = &cx.engine.store;
    store.births.record(fresh, store.env().next_lsn());
    if let Some(r) = ex.rename {
        let (tdb, tt) = cx.resolve_table_name(&r)?;
        if (tdb.as_str(), tt.as_str()) != (db, t) {
            crate::ddl::tables::rename_table(cx, db, t, &tdb, &tt)?;
        }
    }
    Ok(())
}

/// Makes `new` real: instant (the evolved layout), in place (index builds: online unless
/// LOCK=SHARED / EXCLUSIVE asks writers to wait, design.md OIX1) or by a copy of every row, as
/// ALGORITHM= and LOCK= allow (instant.rs); the caller then publishes it. Returns the trees
/// made with rows (built indexes, or every tree of a copy).
fn carry_out(
    cx: &mut Context,
    old: &TableDef,
    new: &mut TableDef,
    (origin, index_origin): (&[Option<usize>], &[Option<usize>]),
    order: &[(usize, bool)],
    ex: &Extras,
) -> DbResult<Vec<String>> {
    let copied = ex.force
        || ex.algorithm == AlterAlgorithm::Copy
        || !order.is_empty()
        || recompresses(&ex.options)
        || layout_changed(old, new);
    let evolved = if copied {
        Err(Why::default())
    } else {
        instant::evolve(old, new, origin)
    };
    let build: Vec<usize> = (0..new.indexes.len())
        .filter(|&i| index_origin[i].is_none())
        .collect();
    // A new index may reuse a dropped index's name: its tree must not be the old one.
    let kept: Vec<String> = old.all_trees();
    let reused = new.parts().into_iter().any(|p| {
        build
            .iter()
            .any(|&i| kept.contains(&new.index_tree_of(p, i)))
    });
    let (plan, why) = match &evolved {
        Err(why) => (Plan::Copy, *why),
        Ok(_) if reused => (Plan::Copy, Why::default()),
        Ok(_) if build.is_empty() => (Plan::Instant, Why::default()),
        Ok(_) => (Plan::Inplace, Why::default()),
    };
    instant::check_how(ex.algorithm, ex.lock, plan, why)?;
    match evolved {
        Ok(layout) if plan != Plan::Copy => {
            new.full_columns = old.full_columns;
            new.layout = layout;
            let online =
                matches!(ex.lock, AlterLock::None | AlterLock::Default) && old.temporary.is_none();
            if build.is_empty() {
            } else if online {
                crate::ddl::online_index::build(cx, new, &build)?;
            } else {
                rebuild::build_indexes(cx, new, &build)?;
            }
            let parts = new.parts();
            Ok(parts
                .iter()
                .flat_map(|&p| build.iter().map(move |&i| (p, i)))
                .map(|(p, i)| new.index_tree_of(p, i))
                .collect())
        }
        _ => {
            new.generation = old.generation + 1;
            new.full_columns = new.columns.len();
            new.key_format = crate::catalog::KEY_FORMAT;
            new.layout = RowLayout::new(1, new.columns.clone());
            fresh_part_ids(old, new);
            rebuild::copy_rows(
                cx,
                &rebuild::Plan {
                    old,
                    new,
                    origin,
                    order,
                    from_parts: None,
                    into_parts: None,
                },
            )?;
            Ok(new.all_trees())
        }
    }
}

/// PARTITION BY, REMOVE PARTITIONING and RETENTION on the new definition: the new partitions
/// are numbered after the old ones' ids (PRT3); a retention kept or set must suit the new
/// definition (RET2, RET4).
fn apply_partitioning(old: &TableDef, new: &mut TableDef, ex: &Extras) -> DbResult<()> {
    if let Some(change) = &ex.partition {
        match change {
            None if old.partitioning.is_none() => {
                return Err(DbError::new(
                    ErrorCode::PartitionMgmtOnNonpartitioned,
                    "Partition management on a not partitioned table is not possible",
                ))
            }
            None => new.partitioning = None,
            Some(clause) => {
                let p = partition::define(clause, new, None)?;
                new.partitioning = Some(Arc::new(p));
                fresh_part_ids(old, new);
            }
        }
    }
    if let Some(r) = ex.retention {
        new.retention = r;
    }
    match new.retention {
        Some(r) => crate::catalog::retention::check(new, r),
        None => Ok(()),
    }
}

/// Gives every partition of `new` an id above all of `old`'s and `new`'s (a rebuild writes new
/// trees: none may carry the name of one the old definition still names, PRT3).
fn fresh_part_ids(old: &TableDef, new: &mut TableDef) {
    let floor = old.partitioning.as_ref().map_or(0, |p| p.next_id);
    if let Some(p) = new.partitioning.as_mut() {
        let p = Arc::make_mut(p);
        let mut next = p.next_id.max(floor);
        for part in &mut p.parts {
            part.id = next;
            next += 1;
        }
        p.next_id = next;
    }
}

/// Whether the partitioning's function or partitions changed (the rows must move).
fn layout_changed(old: &TableDef, new: &TableDef) -> bool {
    let text = |t: &TableDef| {
        t.partitioning
            .as_ref()
            .map(|p| partition::render_clause(p, t))
    };
    text(old) != text(new)
}

/// What LOCK=NONE cannot do whatever the plan, refused as MariaDB refuses it: renaming the
/// table, or moving it to another engine (the type changes and copies: instant.rs).
fn check_no_lock(ex: &Extras) -> DbResult<()> {
    if ex.rename.is_some() {
        return Err(not_supported("LOCK=NONE/SHARED", None, "LOCK=EXCLUSIVE"));
    }
    if ex.options.iter().any(|(k, v)| {
        k == "ENGINE" && !v.eq_ignore_ascii_case("Betula") && !v.eq_ignore_ascii_case("InnoDB")
    }) {
        return Err(not_supported(
            "LOCK=NONE",
            Some("COPY algorithm requires a lock"),
            "LOCK=SHARED",
        ));
    }
    Ok(())
}

/// CONVERT TO CHARACTER SET: every text column, and the table's default, take the collation.
fn convert_to(
    draft: &mut Draft,
    ex: &mut Extras,
    cs: &str,
    coll: Option<&str>,
    db_default: Collation,
) -> DbResult<()> {
    let to = charset_clause::resolve(Some(cs), coll, db_default)?;
    for c in draft.columns.iter_mut() {
        if c.col.sql_type.is_text() {
            c.col.collation = to;
        }
    }
    ex.options.push(("COLLATE".into(), to.name().into()));
    Ok(())
}

/// ENABLE / DISABLE KEYS, MyISAM's deferred index maintenance: Betula's indexes are always
/// maintained (as InnoDB's). Only non-unique indexes are concerned; without any, MariaDB says
/// nothing.
fn keys_note(cx: &mut Context, old: &TableDef) {
    if old.indexes.iter().any(|ix| !ix.unique) {
        note(
            cx,
            ErrorCode::IllegalHa,
            format!(
                "Storage engine Betula of the table `{}`.`{}` doesn't have this option",
                old.db, old.name
            ),
        );
    }
}

fn apply(
    cx: &mut Context,
    db: &str,
    old: &TableDef,
    draft: &mut Draft,
    ex: &mut Extras,
    op: AlterOp,
) -> DbResult<()> {
    match op {
        AlterOp::AddColumn {
            def,
            place,
            if_not_exists,
        } => {
            let p = parse_column(cx, db, &def, old.collation)?;
            if if_not_exists && draft.position(&p.column.col.name).is_some() {
                let n = p.column.col.name.clone();
                note(
                    cx,
                    ErrorCode::DupFieldname,
                    format!("Duplicate column name '{n}'"),
                );
                return Ok(());
            }
            ex.column_checks.push((None, p.checks.clone()));
            draft.add_column(p, &place)
        }
        AlterOp::Change {
            old: name,
            def,
            place,
            if_exists,
        } => {
            if if_exists && draft.position(&name).is_none() {
                note(
                    cx,
                    ErrorCode::BadFieldError,
                    format!("Unknown column '{name}' in '{}'", old.name),
                );
                return Ok(());
            }
            let p = parse_column(cx, db, &def, old.collation)?;
            ex.column_checks
                .push((Some(name.clone()), p.checks.clone()));
            draft.change_column(&name, p, &place)
        }
        AlterOp::DropColumn { name, if_exists } => {
            if !draft.drop_column(&name)? {
                let msg = format!("Can't DROP COLUMN `{name}`; check that it exists");
                if !if_exists {
                    return Err(DbError::new(ErrorCode::CantDropFieldOrKey, msg));
                }
                note(cx, ErrorCode::CantDropFieldOrKey, msg);
            }
            Ok(())
        }
        AlterOp::Default { column, value } => set_default(cx, db, old, draft, &column, value),
        AlterOp::RenameColumn { from, to } => draft.rename_column(&from, &to),
        AlterOp::AddIndex {
            name,
            spec,
            unique,
            if_not_exists,
        } => {
            if let (true, Some(n)) = (if_not_exists, &name) {
                if draft.has_index(n) {
                    note(
                        cx,
                        ErrorCode::DupKeyname,
                        format!("Duplicate key name '{n}'"),
                    );
                    return Ok(());
                }
            }
            draft.add_index(name, spec, unique)
        }
        AlterOp::AddPrimary { name, spec } => {
            if let Some(n) = name.filter(|n| !n.eq_ignore_ascii_case("PRIMARY")) {
                cx.warn(
                    ErrorCode::WrongNameForIndex,
                    format!("Name '{n}' ignored for PRIMARY key."),
                );
            }
            draft.add_primary(spec.columns, spec.prefix)
        }
        AlterOp::DropIndex { name, if_exists } => {
            let r = if name.eq_ignore_ascii_case("PRIMARY") {
                draft.drop_primary()
            } else {
                draft.drop_index(&name)
            };
            match r {
                Err(e) if if_exists && e.code == ErrorCode::CantDropFieldOrKey => {
                    note(
                        cx,
                        ErrorCode::CantDropFieldOrKey,
                        format!("Can't DROP INDEX `{name}`; check that it exists"),
                    );
                    Ok(())
                }
                r => r,
            }
        }
        AlterOp::RenameIndex { from, to } => draft.rename_index(&from, &to),
        AlterOp::Option(k, v) => {
            ex.options.push((k, v));
            Ok(())
        }
        AlterOp::Convert(cs, coll) => {
            let db_default = cx.database_collation(db);
            convert_to(draft, ex, &cs, coll.as_deref(), db_default)
        }
        AlterOp::AddCheck { name, expr } => {
            ex.checks.push((name, expr));
            Ok(())
        }
        AlterOp::DropConstraint { name, if_exists } => {
            if !crate::ddl::foreign_key_ops::drop_constraint(draft, &name) {
                ex.dropped_checks.push((name, if_exists));
            }
            Ok(())
        }
        AlterOp::AddForeignKey {
            text,
            if_not_exists,
        } => crate::ddl::foreign_key_ops::add(cx, db, draft, &text, if_not_exists),
        AlterOp::DropForeignKey { name, if_exists } => {
            crate::ddl::foreign_key_ops::drop(cx, draft, &name, if_exists)
        }
        AlterOp::RenameTable(parts) => {
            ex.rename = Some(parts);
            Ok(())
        }
        AlterOp::OrderBy(cols) => {
            ex.order = cols;
            Ok(())
        }
        AlterOp::Force => {
            ex.force = true;
            Ok(())
        }
        AlterOp::Keys => {
            keys_note(cx, old);
            Ok(())
        }
        AlterOp::Lock(lock) => {
            ex.lock = lock;
            Ok(())
        }
        AlterOp::Algorithm(algorithm) => {
            ex.algorithm = algorithm;
            Ok(())
        }
        AlterOp::PartitionBy(clause) => {
            ex.partition = Some(Some(clause));
            Ok(())
        }
        AlterOp::RemovePartitioning => {
            ex.partition = Some(None);
            Ok(())
        }
        AlterOp::Retention(r) => {
            ex.retention = Some(r);
            Ok(())
        }
        AlterOp::AddPartitions { .. }
        | AlterOp::DropPartitions(_)
        | AlterOp::TruncatePartitions(_)
        | AlterOp::ReorganizePartitions { .. }
        | AlterOp::CoalescePartitions(_)
        | AlterOp::ExchangePartition { .. } => {
            Err(DbError::internal("partition operation with others"))
        }
    }
}

/// ALTER COLUMN c SET DEFAULT text (read as the column's definition with that default) / DROP
/// DEFAULT (`None`).
fn set_default(
    cx: &mut Context,
    db: &str,
    old: &TableDef,
    draft: &mut Draft,
    column: &str,
    value: Option<String>,
) -> DbResult<()> {
    let Some(i) = draft.position(column) else {
        return Err(DbError::bad_field(column, &old.name));
    };
    match value {
        None => draft.set_default(column, None, false),
        Some(text) => {
            let c = &draft.columns[i].col;
            let probe = format!(
                "{} {}{} DEFAULT {text}",
                create_table::quote_ident(&c.name),
                c.column_type(),
                if c.nullable { "" } else { " NOT NULL" }
            );
            let p = parse_column(cx, db, &probe, c.collation)?;
            let now = p.column.default_now;
            draft.set_default(column, p.column.col.default, now)
        }
    }
}
