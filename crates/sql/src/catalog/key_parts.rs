//! Key parts of an index: which columns, and how much of each (`KEY (b(32))`: a prefix).
//!
//! Owns: reading key parts from sqlparser's index columns ([`key_parts`]), checking prefix
//! lengths as MariaDB does ([`check_prefix`]: 1089, 1391, 1071) and the rule that a BLOB/TEXT
//! column is keyed only on a prefix ([`check_lob_keys`]: 1170), and rendering a key part back
//! (`` `b`(32) ``).
//!
//! Invariants: a kept prefix is at least 1 and shorter than the column's declared length (a
//! prefix equal to the length of a CHAR/VARCHAR/BINARY/VARBINARY is dropped, as MariaDB shows
//! Sub_part NULL for it); it is counted in characters for text and in bytes for binary types;
//! prefixes only on string types. 1170 is checked for user DDL only, never when the catalog is
//! read back, so tables created before prefixes were kept stay readable.

use sqlparser::ast;

use crate::catalog::create_table::quote_ident;
use crate::catalog::TableDef;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::object_name_parts;
use crate::types::{Column, SqlType};

/// InnoDB's limit on the bytes of one key part (large-prefix row formats).
pub const MAX_KEY_BYTES: u64 = 3072;

/// Column positions and prefix lengths of an index's columns.
pub fn key_parts(
    def: &[ast::IndexColumn],
    cols: &[Column],
) -> DbResult<(Vec<usize>, Vec<Option<u32>>)> {
    let mut out = Vec::new();
    let mut prefix = Vec::new();
    for ic in def {
        let (name, len) = match &ic.column.expr {
            ast::Expr::Identifier(i) => (i.value.clone(), None),
            // `b(32)` parses as a call of `b`.
            ast::Expr::Function(f) => {
                let args = f.args.to_string();
                let inner = args.trim().trim_start_matches('(').trim_end_matches(')');
                let n = inner.trim().parse::<u64>().map_err(|_| {
                    DbError::syntax(format!("{}{args}", object_name_parts(&f.name).join(".")))
                })?;
                (object_name_parts(&f.name).join("."), Some(n))
            }
            other => (other.to_string(), None),
        };
        let pos = cols
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&name))
            .ok_or_else(|| {
                DbError::new(
                    ErrorCode::KeyColumnDoesNotExits,
                    format!("Key column '{name}' doesn't exist in table"),
                )
            })?;
        out.push(pos);
        prefix.push(check_prefix(&cols[pos], len)?);
    }
    Ok((out, prefix))
}

fn bad_prefix() -> DbError {
    DbError::new(
        ErrorCode::WrongSubKey,
        "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys",
    )
}

/// The prefix length kept for `col` keyed on its first `len` characters (bytes), or the error
/// MariaDB gives.
pub fn check_prefix(col: &Column, len: Option<u64>) -> DbResult<Option<u32>> {
    let Some(n) = len else { return Ok(None) };
    if n == 0 {
        return Err(DbError::new(
            ErrorCode::KeyPart0,
            format!("Key part '{}' length cannot be 0", col.name),
        ));
    }
    let declared: u64 = match col.sql_type {
        SqlType::Char { len } | SqlType::VarChar { len } => len.into(),
        SqlType::Binary { len } | SqlType::VarBinary { len } => len.into(),
        SqlType::Text(size) | SqlType::Blob(size) => size.max_bytes(),
        _ => return Err(bad_prefix()),
    };
    if n > declared {
        return Err(bad_prefix());
    }
    let per_char = if col.sql_type.is_binary() { 1 } else { 4 };
    if n * per_char > MAX_KEY_BYTES {
        return Err(DbError::new(
            ErrorCode::TooLongKey,
            format!("Specified key was too long; max key length is {MAX_KEY_BYTES} bytes"),
        ));
    }
    let lob = matches!(col.sql_type, SqlType::Text(_) | SqlType::Blob(_));
    Ok((lob || n < declared).then_some(n as u32))
}

/// User DDL: a BLOB/TEXT column in the primary key or a non-unique index needs a prefix (1170).
/// (MariaDB turns a UNIQUE key over a whole BLOB into a hash key; Betula keys the whole value.)
pub fn check_lob_keys(t: &TableDef) -> DbResult<()> {
    let keys = std::iter::once((&t.pk, &t.pk_prefix)).chain(
        t.indexes
            .iter()
            .filter(|ix| !ix.unique)
            .map(|ix| (&ix.columns, &ix.prefix)),
    );
    for (cols, prefix) in keys {
        for (p, &c) in cols.iter().enumerate() {
            check_lob_part(&t.columns[c], prefix.get(p).copied().flatten())?;
        }
    }
    Ok(())
}

/// 1170 if `col` is a BLOB/TEXT keyed without a prefix length.
pub fn check_lob_part(col: &Column, prefix: Option<u32>) -> DbResult<()> {
    if matches!(col.sql_type, SqlType::Text(_) | SqlType::Blob(_)) && prefix.is_none() {
        return Err(DbError::new(
            ErrorCode::BlobKeyWithoutLength,
            format!(
                "BLOB/TEXT column '{}' used in key specification without a key length",
                col.name
            ),
        ));
    }
    Ok(())
}

/// A key's column list as SHOW CREATE TABLE writes it: `` `a`,`b`(32) ``.
pub fn render_parts(t: &TableDef, cols: &[usize], prefix: &[Option<u32>]) -> String {
    cols.iter()
        .enumerate()
        .map(|(p, &c)| {
            let name = quote_ident(&t.columns[c].name);
            match prefix.get(p).copied().flatten() {
                Some(n) => format!("{name}({n})"),
                None => name,
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}
