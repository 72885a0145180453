//! Moving a table between servers (design.md, "Moving a table between servers", EXP1-EXP5): the export
//! half of FLUSH TABLES ... FOR EXPORT (the session takes the READ locks, session/locking.rs), ALTER TABLE
//! ... IMPORT TABLESPACE and DISCARD TABLESPACE.
//!
//! An export directory is `<datadir>/#export/<db>/<table>/`: one standalone tree file per index
//! (`PRIMARY.bt`, `<index>.bt`) and `table.cfg` (transport_meta.rs). Copied to the same place in another
//! server's data directory, IMPORT TABLESPACE attaches it to a table of the same definition and removes it.
//! Names are written into paths with every byte outside `[A-Za-z0-9_$-]` as `@xx` (hex), so no name
//! leaves the directory.
//!
//! Invariant: an import checks the definition (EXP4) and every file's length and CRC-32C against the
//! metadata before the storage engine checks and copies the blocks; the table's trees are replaced all at
//! once or not at all (EXP2).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use crate::catalog::create_table::render_stored;
use crate::catalog::TableDef;
use crate::context::Context;
use crate::ddl::transport_meta::{ExportMeta, ExportedTree, META_FILE};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;

/// A name as it appears in an export path.
fn path_part(name: &str) -> String {
    let mut out = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'-' {
            out.push(b as char);
        } else {
            out.push_str(&format!("@{b:02x}"));
        }
    }
    out
}

/// The export directory of `db`.`table` in this server's data directory.
pub fn export_dir(cx: &Context, db: &str, table: &str) -> PathBuf {
    cx.engine
        .config
        .datadir
        .join("#export")
        .join(path_part(db))
        .join(path_part(table))
}

/// The definition as compared between export and import: the stored CREATE TABLE text after its name.
fn definition(def: &TableDef) -> DbResult<String> {
    let sql = render_stored(def);
    let mut text = sql
        .split_once('(')
        .map_or(sql.clone(), |(_, rest)| rest.to_string());
    if !def.layout.is_plain() {
        // rows are bytes of this layout: only a table with the same one may take them (EXP4)
        text.push_str("\nrows=");
        text.push_str(&def.layout.to_text()?);
    }
    Ok(text)
}

fn io(path: &Path, e: std::io::Error) -> DbError {
    DbError::new(
        ErrorCode::ErrorOnWrite,
        format!("Error writing file '{}' ({e})", path.display()),
    )
}

/// Exports every tree of `def` into its export directory (replacing an older export); returns the
/// directory. The caller holds READ locks on the table (EXP3).
pub fn export_table(cx: &Context, def: &TableDef) -> DbResult<PathBuf> {
    let dir = export_dir(cx, &def.db, &def.name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let env = cx.engine.store.env();
    let indexes =
        std::iter::once("PRIMARY".to_string()).chain(def.indexes.iter().map(|i| i.name.clone()));
    let mut trees = Vec::new();
    for (index, tree) in indexes.zip(def.all_trees()) {
        let file = format!("{}.bt", path_part(&index));
        let path = dir.join(&file);
        let stats = env.export_tree(&tree, &path)?;
        let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
        trees.push(ExportedTree {
            index,
            file,
            rows: stats.rows,
            len: bytes.len() as u64,
            crc: crc32c::crc32c(&bytes),
        });
    }
    let meta = ExportMeta {
        db: def.db.clone(),
        table: def.name.clone(),
        create_sql: definition(def)?,
        full_columns: def.full_columns as u64,
        key_format: def.key_format,
        auto_inc: def.counters.auto_inc.load(Ordering::SeqCst),
        trees,
    };
    let path = dir.join(META_FILE);
    std::fs::write(&path, meta.encode()).map_err(|e| io(&path, e))?;
    Ok(dir)
}

fn mismatch(why: impl std::fmt::Display) -> DbError {
    DbError::new(
        ErrorCode::TableSchemaMismatch,
        format!("Schema mismatch ({why})"),
    )
}

/// The export's metadata, checked against `def` and against its files (EXP4).
fn checked_meta(dir: &Path, def: &TableDef) -> DbResult<ExportMeta> {
    let path = dir.join(META_FILE);
    let raw = std::fs::read(&path).map_err(|_| {
        DbError::new(
            ErrorCode::TablespaceMissing,
            format!(
                "Tablespace is missing for table `{}`.`{}`",
                def.db, def.name
            ),
        )
    })?;
    let meta =
        ExportMeta::decode(&raw).map_err(|e| mismatch(format!("{}: {}", path.display(), e.0)))?;
    if meta.create_sql != definition(def)? {
        return Err(mismatch(
            "the exported table's definition differs from this table's",
        ));
    }
    if meta.full_columns != def.full_columns as u64 || meta.key_format != def.key_format {
        return Err(mismatch(
            "the exported rows or keys are stored in another format (rebuild one table with ALTER TABLE ... FORCE)",
        ));
    }
    let mut names: Vec<&str> = meta.trees.iter().map(|t| t.index.as_str()).collect();
    let mut want: Vec<&str> = std::iter::once("PRIMARY")
        .chain(def.indexes.iter().map(|i| i.name.as_str()))
        .collect();
    names.sort_unstable();
    want.sort_unstable();
    if names != want {
        return Err(mismatch("the exported indexes differ from this table's"));
    }
    for t in &meta.trees {
        let path = dir.join(&t.file);
        let bytes =
            std::fs::read(&path).map_err(|e| mismatch(format!("{}: {e}", path.display())))?;
        if bytes.len() as u64 != t.len || crc32c::crc32c(&bytes) != t.crc {
            return Err(mismatch(format!(
                "{} does not match the export's metadata",
                path.display()
            )));
        }
    }
    Ok(meta)
}

/// ALTER TABLE ... IMPORT TABLESPACE: replaces the table's rows, all at once, with the export found in
/// its export directory, then removes that directory.
pub fn import(cx: &mut Context, db: &str, table: &str) -> DbResult<Output> {
    cx.check_db_access(db)?;
    cx.need_root("FILE")?;
    cx.begin_ddl()?;
    let def = cx.get_table(db, table)?;
    if def.temporary.is_some() {
        return Err(DbError::unsupported(
            "IMPORT TABLESPACE of a temporary table",
        ));
    }
    if def.partitioning.is_some() {
        return Err(DbError::unsupported(
            "IMPORT TABLESPACE of a partitioned table",
        ));
    }
    let dir = export_dir(cx, db, table);
    let meta = checked_meta(&dir, &def)?;
    let files = |index: &str| {
        let t = meta
            .trees
            .iter()
            .find(|t| t.index == index)
            .expect("checked");
        dir.join(&t.file)
    };
    let mut pairs = vec![(def.primary_tree(), files("PRIMARY"))];
    for (i, ix) in def.indexes.iter().enumerate() {
        pairs.push((def.index_tree(i), files(&ix.name)));
    }
    cx.engine.store.import_trees(pairs)?;
    cx.engine.store.set_column_layouts(def.column_layouts())?;
    cx.engine.init_counters(&def)?;
    def.counters
        .auto_inc
        .fetch_max(meta.auto_inc, Ordering::SeqCst);
    std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
    Ok(Output::done(0))
}
