//! ALTER TABLE (and CREATE INDEX / DROP INDEX, which are ALTER TABLE with one operation).
//!
//! Owns: the statement's grammar ([`parse_ops`] into [`AlterOp`]s), applying them to a
//! [`Draft`] of the table, and choosing how to carry the result out:
//! * **in place** when every old column keeps its position, type, collation and (if rows may
//!   lack it) default, and the primary key is unchanged: the catalog entry is rewritten
//!   (metadata, columns appended at the end: old rows read them as their default), new
//!   secondary indexes are built from the primary tree, dropped ones' trees removed;
//! * **rebuild** otherwise (rebuild.rs): the rows are copied into the next generation's trees.
//!
//! Invariants: the statement is all-or-nothing: every operation is checked against the draft
//! before anything is written; the catalog entry is written once, after the new trees are
//! complete, and trees the old definition used and the new one does not are dropped after it
//! (ddl ordering: the catalog never names a missing tree). ALTER runs under the exclusive
//! schema lock, so no transaction writes the table meanwhile (also with ONLINE / LOCK=NONE,
//! which are accepted where MariaDB's InnoDB accepts them: docs/mysql-compat.md).

use std::sync::atomic::Ordering;

use crate::catalog::{charset_clause, create_table, TableDef};
use crate::codec::row::RowLayout;
use crate::context::Context;
use crate::ddl::rebuild;
use crate::ddl::rebuild::Plan;
use crate::ddl::table_draft::{parse_column, Draft, IndexSpec, Place};
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::exec::scan::Output;
use crate::parser::tokens::{Cursor, Tok};
use crate::types::collation::Collation;

/// One operation of an ALTER TABLE statement.
#[derive(Clone, Debug)]
pub enum AlterOp {
    AddColumn {
        def: String,
        place: Place,
        if_not_exists: bool,
    },
    /// CHANGE old def / MODIFY def (`old` = the name in `def`).
    Change {
        old: String,
        def: String,
        place: Place,
        if_exists: bool,
    },
    DropColumn {
        name: String,
        if_exists: bool,
    },
    /// ALTER COLUMN c SET DEFAULT expr (`Some(text)`) / DROP DEFAULT (`None`).
    Default {
        column: String,
        value: Option<String>,
    },
    RenameColumn {
        from: String,
        to: String,
    },
    AddIndex {
        name: Option<String>,
        spec: IndexSpec,
        unique: bool,
        if_not_exists: bool,
    },
    AddPrimary {
        name: Option<String>,
        spec: IndexSpec,
    },
    DropIndex {
        name: String,
        if_exists: bool,
    },
    RenameIndex {
        from: String,
        to: String,
    },
    Option(String, String),
    /// CONVERT TO CHARACTER SET cs [COLLATE coll]: the table's and every text column's collation.
    Convert(String, Option<String>),
    RenameTable(Vec<String>),
    OrderBy(Vec<(String, bool)>),
    Force,
    /// DISABLE / ENABLE KEYS.
    Keys,
    /// LOCK=NONE (true) or another LOCK value.
    Lock(bool),
    /// ALGORITHM=INSTANT (true) or another algorithm.
    Algorithm(bool),
}

fn syntax(c: &Cursor<'_>) -> DbError {
    DbError::syntax(c.rest().chars().take(80).collect::<String>())
}

/// `USING BTREE|HASH` after the keyword USING (the type's upper-case name).
fn index_type(c: &mut Cursor<'_>) -> DbResult<String> {
    for t in ["BTREE", "HASH"] {
        if c.kw(t) {
            return Ok(t.to_string());
        }
    }
    Err(syntax(c))
}

/// `[USING type] (col [(len)] [ASC|DESC], ...) [index options]`: the key parts (columns and
/// prefix lengths), COMMENT and the index type; KEY_BLOCK_SIZE, VISIBLE and ASC/DESC are
/// accepted and ignored.
pub fn index_columns(c: &mut Cursor<'_>) -> DbResult<IndexSpec> {
    let mut spec = IndexSpec::default();
    if c.kw("USING") {
        spec.using = Some(index_type(c)?);
    }
    if !c.sym('(') {
        return Err(syntax(c));
    }
    loop {
        spec.columns.push(c.name().ok_or_else(|| syntax(c))?);
        let mut prefix = None;
        if c.sym('(') {
            let n = c.name().ok_or_else(|| syntax(c))?;
            prefix = Some(n.parse::<u32>().map_err(|_| syntax(c))?);
            if !c.sym(')') {
                return Err(syntax(c));
            }
        }
        spec.prefix.push(prefix);
        c.kw("ASC");
        c.kw("DESC");
        if !c.sym(',') {
            break;
        }
    }
    if !c.sym(')') {
        return Err(syntax(c));
    }
    loop {
        if c.kw("USING") {
            spec.using = Some(index_type(c)?);
        } else if c.kw("COMMENT") {
            spec.comment = Some(c.string().ok_or_else(|| syntax(c))?);
        } else if c.kw("KEY_BLOCK_SIZE") {
            c.sym('=');
            c.name().ok_or_else(|| syntax(c))?;
        } else if !(c.kw("VISIBLE") || c.kw("INVISIBLE")) {
            break;
        }
    }
    Ok(spec)
}

/// A column definition up to a top-level `,` or the end, and FIRST / AFTER col after it.
fn column_clause(c: &mut Cursor<'_>) -> DbResult<(String, Place)> {
    let start = c.offset();
    let first = c.pos;
    let mut depth = 0i32;
    while let Some(t) = c.peek() {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            Tok::Sym(',') if depth <= 0 => break,
            _ if depth <= 0
                && c.pos > first + 1
                && matches!(c.peek_kw(), Some("FIRST" | "AFTER")) =>
            {
                break
            }
            _ => {}
        }
        c.pos += 1;
    }
    let def = c.src[start..c.offset()].trim().to_string();
    if def.is_empty() {
        return Err(syntax(c));
    }
    let place = if c.kw("FIRST") {
        Place::First
    } else if c.kw("AFTER") {
        Place::After(c.name().ok_or_else(|| syntax(c))?)
    } else {
        Place::Last
    };
    Ok((def, place))
}

fn if_not_exists(c: &mut Cursor<'_>) -> bool {
    c.kws(&["IF", "NOT", "EXISTS"])
}

fn if_exists(c: &mut Cursor<'_>) -> bool {
    c.kws(&["IF", "EXISTS"])
}

fn parse_add(c: &mut Cursor<'_>, ops: &mut Vec<AlterOp>) -> DbResult<()> {
    // CONSTRAINT [symbol]: the symbol is not kept
    if c.kw("CONSTRAINT")
        && !matches!(
            c.peek_kw(),
            Some("PRIMARY" | "UNIQUE" | "FOREIGN" | "CHECK")
        )
    {
        c.name();
    }
    if c.kw("PRIMARY") {
        if !c.kw("KEY") {
            return Err(syntax(c));
        }
        let name = if matches!(c.peek(), Some(Tok::Sym('('))) || c.peek_kw() == Some("USING") {
            None
        } else {
            c.name()
        };
        let spec = index_columns(c)?;
        ops.push(AlterOp::AddPrimary { name, spec });
        return Ok(());
    }
    let unique = c.kw("UNIQUE");
    if matches!(c.peek_kw(), Some("FULLTEXT" | "SPATIAL")) {
        return Err(DbError::unsupported(format!(
            "{} indexes",
            c.peek_kw().unwrap_or_default()
        )));
    }
    if c.kw("FOREIGN") || c.kw("CHECK") {
        // Not kept (as in CREATE TABLE): docs/mysql-compat.md.
        c.clause();
        return Ok(());
    }
    if unique || c.kw("INDEX") || c.kw("KEY") {
        if unique {
            let _ = c.kw("INDEX") || c.kw("KEY");
        }
        let ine = if_not_exists(c);
        let name = if matches!(c.peek(), Some(Tok::Sym('('))) || c.peek_kw() == Some("USING") {
            None
        } else {
            c.name()
        };
        let spec = index_columns(c)?;
        ops.push(AlterOp::AddIndex {
            name,
            spec,
            unique,
            if_not_exists: ine,
        });
        return Ok(());
    }
    c.kw("COLUMN");
    let ine = if_not_exists(c);
    if c.sym('(') {
        loop {
            let def = c.clause().trim().to_string();
            ops.push(AlterOp::AddColumn {
                def,
                place: Place::Last,
                if_not_exists: ine,
            });
            if !c.sym(',') {
                break;
            }
        }
        if !c.sym(')') {
            return Err(syntax(c));
        }
        return Ok(());
    }
    let (def, place) = column_clause(c)?;
    ops.push(AlterOp::AddColumn {
        def,
        place,
        if_not_exists: ine,
    });
    Ok(())
}

fn parse_drop(c: &mut Cursor<'_>, ops: &mut Vec<AlterOp>) -> DbResult<()> {
    if c.kws(&["PRIMARY", "KEY"]) {
        ops.push(AlterOp::DropIndex {
            name: "PRIMARY".into(),
            if_exists: false,
        });
    } else if c.kw("INDEX") || c.kw("KEY") {
        let ie = if_exists(c);
        let name = c.name().ok_or_else(|| syntax(c))?;
        ops.push(AlterOp::DropIndex {
            name,
            if_exists: ie,
        });
    } else if c.kws(&["FOREIGN", "KEY"]) || c.kw("CONSTRAINT") || c.kw("CHECK") {
        // Foreign keys and checks are not kept: nothing to drop.
        if_exists(c);
        c.name().ok_or_else(|| syntax(c))?;
    } else {
        c.kw("COLUMN");
        let ie = if_exists(c);
        let name = c.name().ok_or_else(|| syntax(c))?;
        ops.push(AlterOp::DropColumn {
            name,
            if_exists: ie,
        });
    }
    Ok(())
}

/// The operations of `ALTER TABLE t <ops>` (the cursor is after the table name).
pub fn parse_ops(c: &mut Cursor<'_>) -> DbResult<Vec<AlterOp>> {
    let mut ops = Vec::new();
    loop {
        if c.at_end() {
            break;
        }
        if c.kw("ADD") {
            parse_add(c, &mut ops)?;
        } else if c.kw("DROP") {
            parse_drop(c, &mut ops)?;
        } else if c.kw("MODIFY") {
            c.kw("COLUMN");
            let ie = if_exists(c);
            let save = c.pos;
            let old = c.name().ok_or_else(|| syntax(c))?;
            c.pos = save;
            let (def, place) = column_clause(c)?;
            ops.push(AlterOp::Change {
                old,
                def,
                place,
                if_exists: ie,
            });
        } else if c.kw("CHANGE") {
            c.kw("COLUMN");
            let ie = if_exists(c);
            let old = c.name().ok_or_else(|| syntax(c))?;
            let (def, place) = column_clause(c)?;
            ops.push(AlterOp::Change {
                old,
                def,
                place,
                if_exists: ie,
            });
        } else if c.kw("ALTER") {
            c.kw("COLUMN");
            let column = c.name().ok_or_else(|| syntax(c))?;
            let value = if c.kws(&["SET", "DEFAULT"]) {
                Some(c.clause().trim().to_string())
            } else if c.kws(&["DROP", "DEFAULT"]) {
                None
            } else {
                return Err(syntax(c));
            };
            ops.push(AlterOp::Default { column, value });
        } else if c.kw("RENAME") {
            if c.kw("COLUMN") || c.kw("INDEX") || c.kw("KEY") {
                let column = matches!(c.toks_back(1), Some("COLUMN"));
                let from = c.name().ok_or_else(|| syntax(c))?;
                if !c.kw("TO") {
                    return Err(syntax(c));
                }
                let to = c.name().ok_or_else(|| syntax(c))?;
                ops.push(if column {
                    AlterOp::RenameColumn { from, to }
                } else {
                    AlterOp::RenameIndex { from, to }
                });
            } else {
                let _ = c.kw("TO") || c.kw("AS");
                ops.push(AlterOp::RenameTable(
                    c.qualified().ok_or_else(|| syntax(c))?,
                ));
            }
        } else if c.kws(&["ORDER", "BY"]) {
            let mut cols = Vec::new();
            loop {
                let n = c.name().ok_or_else(|| syntax(c))?;
                let desc = c.kw("DESC");
                c.kw("ASC");
                cols.push((n, desc));
                if !c.sym(',') {
                    break;
                }
            }
            ops.push(AlterOp::OrderBy(cols));
            continue;
        } else if c.kw("FORCE") {
            ops.push(AlterOp::Force);
        } else if c.kw("DISABLE") || c.kw("ENABLE") {
            if !c.kw("KEYS") {
                return Err(syntax(c));
            }
            ops.push(AlterOp::Keys);
        } else if c.kws(&["CONVERT", "TO"]) {
            if !(c.kws(&["CHARACTER", "SET"]) || c.kw("CHARSET")) {
                return Err(syntax(c));
            }
            let cs = c.name().ok_or_else(|| syntax(c))?;
            let coll = if c.kw("COLLATE") {
                Some(c.name().ok_or_else(|| syntax(c))?)
            } else {
                None
            };
            ops.push(AlterOp::Convert(cs, coll));
        } else if c.kw("LOCK") || c.kw("ALGORITHM") {
            let lock = matches!(c.toks_back(1), Some("LOCK"));
            c.sym('=');
            let v = c.name().ok_or_else(|| syntax(c))?.to_ascii_uppercase();
            ops.push(if lock {
                AlterOp::Lock(v == "NONE")
            } else {
                AlterOp::Algorithm(v == "INSTANT")
            });
        } else if let Some(opt) = table_option(c) {
            c.sym('=');
            let value = if c.sym('(') {
                // UNION = (t1, t2): MERGE tables only, accepted and ignored
                while !c.at_end() && !c.sym(')') {
                    c.pos += 1;
                }
                String::new()
            } else {
                c.name().ok_or_else(|| syntax(c))?
            };
            ops.push(AlterOp::Option(opt, value));
            if table_option_next(c) {
                continue;
            }
        } else {
            return Err(DbError::unsupported(format!(
                "ALTER TABLE {}",
                c.rest().chars().take(40).collect::<String>()
            )));
        }
        if !c.sym(',') {
            break;
        }
    }
    if c.at_end() {
        Ok(ops)
    } else {
        Err(syntax(c))
    }
}

/// The table option keyword at the cursor (consumed), as its canonical upper-case name.
fn table_option(c: &mut Cursor<'_>) -> Option<String> {
    const NAMES: &[&str] = &[
        "ENGINE",
        "COMMENT",
        "ROW_FORMAT",
        "COMPRESSION",
        "AUTO_INCREMENT",
        "PASSWORD",
        "INSERT_METHOD",
        "UNION",
        "STATS_PERSISTENT",
        "STATS_AUTO_RECALC",
        "STATS_SAMPLE_PAGES",
        "CHARSET",
        "COLLATE",
    ];
    let save = c.pos;
    c.kw("DEFAULT");
    if c.kws(&["CHARACTER", "SET"]) {
        return Some("CHARSET".into());
    }
    let k = c.peek_kw().map(str::to_string);
    match k {
        Some(k)
            if NAMES.contains(&k.as_str()) || create_table::SHOWN_OPTIONS.contains(&k.as_str()) =>
        {
            c.pos += 1;
            Some(k)
        }
        _ => {
            c.pos = save;
            None
        }
    }
}

/// True if another table option follows without a comma (`ENGINE=x COMMENT='y'`).
fn table_option_next(c: &mut Cursor<'_>) -> bool {
    let save = c.pos;
    let more = table_option(c).is_some();
    c.pos = save;
    more
}

/// ALTER TABLE's table options on the new definition: COMMENT, ROW_FORMAT / COMPRESSION (kept
/// when they name the table's codec: a codec change of existing trees is not done),
/// AUTO_INCREMENT (raises the counter), the shown options, ENGINE (the name shown, ddl.rs),
/// [DEFAULT] CHARACTER SET / COLLATE (the table's default collation; columns keep theirs);
/// PASSWORD, INSERT_METHOD, UNION and STATS_* are accepted and ignored.
fn apply_options(new: &mut TableDef, opts: &[(String, String)]) -> DbResult<()> {
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
            Collation::default(),
        )?;
    }
    for (k, v) in opts {
        match k.as_str() {
            "ENGINE" => new.engine = create_table::shown_engine(v),
            "CHARSET" | "COLLATE" => {}
            "COMMENT" => new.comment = Some(v.clone()),
            "ROW_FORMAT" | "COMPRESSION" => {
                if create_table::option_codec(v)? == new.codec {
                    if k == "ROW_FORMAT" {
                        new.row_format = Some(v.clone());
                    } else {
                        new.compression = Some(v.clone());
                    }
                }
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

fn note(cx: &mut Context, code: u16, message: String) {
    cx.warnings.push(Warning {
        level: WarningLevel::Note,
        code,
        message,
    });
}

fn not_supported(what: &str, reason: Option<&str>, try_: &str) -> DbError {
    match reason {
        None => DbError::new(
            1845,
            "0A000",
            format!("{what} is not supported for this operation. Try {try_}"),
        ),
        Some(r) => DbError::new(
            1846,
            "0A000",
            format!("{what} is not supported. Reason: {r}. Try {try_}"),
        ),
    }
}

/// ALTER [ONLINE] TABLE db.t ops.
pub fn alter_table(
    cx: &mut Context,
    db: &str,
    t: &str,
    c: &mut Cursor<'_>,
    online: bool,
) -> DbResult<Output> {
    cx.get_table(db, t)?;
    let ops = parse_ops(c)?;
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
    no_lock: bool,
    instant: bool,
}

/// Applies `ops` to the table `db`.`t` (under the schema lock).
pub fn execute(
    cx: &mut Context,
    db: &str,
    t: &str,
    ops: Vec<AlterOp>,
    online: bool,
) -> DbResult<()> {
    cx.check_db_access(db)?;
    cx.begin_ddl()?;
    let old = cx.get_table(db, t)?;
    let mut draft = Draft::of(&old);
    let mut ex = Extras {
        no_lock: online,
        ..Default::default()
    };
    for op in ops {
        apply(cx, db, &old, &mut draft, &mut ex, op)?;
    }
    if old.temporary.is_some() {
        // No other session can use a temporary table: any ALTER is "online" (as in MariaDB).
        ex.no_lock = false;
    }
    let fin = draft.finish(&old)?;
    let mut new = fin.def;
    apply_options(&mut new, &ex.options)?;
    let mut order = Vec::new();
    for (name, desc) in &ex.order {
        let i = new
            .col_index(name)
            .ok_or_else(|| DbError::bad_field(name, "order clause"))?;
        order.push((i, *desc));
    }
    if !order.is_empty() && !new.pk.is_empty() {
        cx.warn(
            1105,
            format!(
                "ORDER BY ignored as there is a user-defined clustered index in the table '{t}'"
            ),
        );
        order.clear();
    }
    let type_change = fin.origin.iter().enumerate().any(|(i, o)| {
        o.is_some_and(|j| {
            old.columns[j].sql_type != new.columns[i].sql_type
                || old.columns[j].members != new.columns[i].members
                || old.columns[j].collation != new.columns[i].collation
        })
    });
    if ex.no_lock {
        if ex.rename.is_some() {
            return Err(not_supported("LOCK=NONE/SHARED", None, "LOCK=EXCLUSIVE"));
        }
        if type_change {
            return Err(not_supported(
                "LOCK=NONE",
                Some("Cannot change column type"),
                "LOCK=SHARED",
            ));
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
    }
    let rebuild = ex.force || !order.is_empty() || needs_rebuild(&old, &new, &fin.origin);
    if rebuild {
        if ex.instant {
            return Err(not_supported(
                "ALGORITHM=INSTANT",
                None,
                "ALGORITHM=INPLACE",
            ));
        }
        new.generation = old.generation + 1;
        new.full_columns = new.columns.len();
        new.key_format = crate::catalog::KEY_FORMAT;
        new.layout = RowLayout::new(1, new.columns.clone());
        rebuild::copy_rows(
            cx,
            &Plan {
                old: &old,
                new: &new,
                origin: &fin.origin,
                order: &order,
            },
        )?;
    } else {
        new.full_columns = old.full_columns;
        new.layout = RowLayout::new(1, new.columns.clone());
        let build: Vec<usize> = (0..new.indexes.len())
            .filter(|&i| fin.index_origin[i].is_none())
            .collect();
        if ex.instant && !build.is_empty() {
            return Err(not_supported(
                "ALGORITHM=INSTANT",
                None,
                "ALGORITHM=INPLACE",
            ));
        }
        if !build.is_empty() {
            // A new index may reuse a dropped index's name: its tree must not be the old one.
            let kept: Vec<String> = old.all_trees();
            if build.iter().any(|&i| kept.contains(&new.index_tree(i))) {
                new.generation = old.generation + 1;
                new.full_columns = new.columns.len();
                new.key_format = crate::catalog::KEY_FORMAT;
                rebuild::copy_rows(
                    cx,
                    &Plan {
                        old: &old,
                        new: &new,
                        origin: &fin.origin,
                        order: &[],
                    },
                )?;
            } else {
                rebuild::build_indexes(cx, &new, &build)?;
            }
        }
    }
    let sql = create_table::render_stored(&new);
    let new = cx.store_table(new, &sql)?;
    let keep = new.all_trees();
    let gone: Vec<String> = old
        .all_trees()
        .into_iter()
        .filter(|tr| !keep.contains(tr))
        .collect();
    if !gone.is_empty() {
        // The switch is durable before the old trees go.
        cx.engine.store.env().sync()?;
        for tree in gone {
            cx.engine.store.drop_tree(&tree)?;
        }
    }
    if let Some(r) = ex.rename {
        let (tdb, tt) = cx.resolve_table_name(&r)?;
        if (tdb.as_str(), tt.as_str()) != (db, t) {
            crate::session::admin::rename_table(cx, db, t, &tdb, &tt)?;
        }
    }
    Ok(())
}

/// Whether the new definition needs the rows rewritten (see the module docs).
fn needs_rebuild(old: &TableDef, new: &TableDef, origin: &[Option<usize>]) -> bool {
    let old_pk: Vec<Option<usize>> = new.pk.iter().map(|&i| origin[i]).collect();
    if old_pk != old.pk.iter().map(|&i| Some(i)).collect::<Vec<_>>() {
        return true;
    }
    if new.columns.len() < old.columns.len() {
        return true;
    }
    for (i, c) in new.columns.iter().enumerate() {
        match origin[i] {
            Some(j) if j == i => {
                let o = &old.columns[j];
                let default_changed =
                    o.default != c.default || old.default_now[j] != new.default_now[i];
                // ENUM/SET rows hold member numbers: new members mean new numbers
                if o.sql_type != c.sql_type
                    || o.members != c.members
                    || o.collation != c.collation
                    || (o.nullable && !c.nullable)
                    || (c.auto_increment && !o.auto_increment)
                    || (default_changed && i >= old.full_columns)
                {
                    return true;
                }
            }
            None if i >= old.columns.len() => {
                if c.auto_increment || new.default_now[i] {
                    return true;
                }
            }
            _ => return true,
        }
    }
    false
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
                note(cx, 1060, format!("Duplicate column name '{n}'"));
                return Ok(());
            }
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
                    1054,
                    format!("Unknown column '{name}' in '{}'", old.name),
                );
                return Ok(());
            }
            let p = parse_column(cx, db, &def, old.collation)?;
            draft.change_column(&name, p, &place)
        }
        AlterOp::DropColumn { name, if_exists } => {
            if !draft.drop_column(&name)? {
                let msg = format!("Can't DROP COLUMN `{name}`; check that it exists");
                if !if_exists {
                    return Err(DbError::new(1091, "42000", msg));
                }
                note(cx, 1091, msg);
            }
            Ok(())
        }
        AlterOp::Default { column, value } => {
            let Some(i) = draft.position(&column) else {
                return Err(DbError::bad_field(&column, &old.name));
            };
            match value {
                None => draft.set_default(&column, None, false),
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
                    draft.set_default(&column, p.column.col.default, now)
                }
            }
        }
        AlterOp::RenameColumn { from, to } => draft.rename_column(&from, &to),
        AlterOp::AddIndex {
            name,
            spec,
            unique,
            if_not_exists,
        } => {
            if let (true, Some(n)) = (if_not_exists, &name) {
                if draft.has_index(n) {
                    note(cx, 1061, format!("Duplicate key name '{n}'"));
                    return Ok(());
                }
            }
            draft.add_index(name, spec, unique)
        }
        AlterOp::AddPrimary { name, spec } => {
            if let Some(n) = name.filter(|n| !n.eq_ignore_ascii_case("PRIMARY")) {
                cx.warn(1280, format!("Name '{n}' ignored for PRIMARY key."));
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
                Err(e) if if_exists && e.code == 1091 => {
                    note(
                        cx,
                        1091,
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
            let to = charset_clause::resolve(Some(&cs), coll.as_deref(), Collation::default())?;
            for c in draft.columns.iter_mut() {
                if c.col.sql_type.is_text() {
                    c.col.collation = to;
                }
            }
            ex.options.push(("COLLATE".into(), to.name().into()));
            Ok(())
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
            // MyISAM's deferred index maintenance: Betula's indexes are always maintained (as
            // InnoDB's). Only non-unique indexes are concerned; without any, MariaDB says nothing.
            if old.indexes.iter().any(|ix| !ix.unique) {
                note(
                    cx,
                    1031,
                    format!(
                        "Storage engine Betula of the table `{}`.`{}` doesn't have this option",
                        old.db, old.name
                    ),
                );
            }
            Ok(())
        }
        AlterOp::Lock(none) => {
            ex.no_lock |= none;
            Ok(())
        }
        AlterOp::Algorithm(instant) => {
            ex.instant |= instant;
            Ok(())
        }
    }
}
