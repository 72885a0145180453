//! `CHARACTER SET x` / `COLLATE y` clauses of DDL (a column, a table, CONVERT TO) resolved to one
//! [`Collation`], with MariaDB's errors, and the matching SHOW CREATE TABLE text.
//!
//! Rules (MariaDB 10.11): neither clause → the context's default (the table's collation for a
//! column, the database's for a table, the session's `collation_server` for a database); a character set alone → its default
//! collation; a collation alone → that collation (its character set implied); both → the
//! collation, which must belong to the character set. Unknown names are 1115 (character set)
//! and 1273 (collation); a collation of another character set is 1253. `DEFAULT` as either
//! value means the context's default. A column's `BINARY` attribute is the `_bin` collation of
//! its character set (given, else the context's); with a COLLATE it is 1302. SHOW CREATE TABLE prints a text column's
//! `CHARACTER SET cs COLLATE coll` exactly when its collation differs from the table's.

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::charset::Charset;
use crate::types::collation::Collation;

pub fn unknown_charset(name: &str) -> DbError {
    DbError::new(
        ErrorCode::UnknownCharacterSet,
        format!("Unknown character set: '{name}'"),
    )
}

pub fn unknown_collation(name: &str) -> DbError {
    DbError::new(
        ErrorCode::UnknownCollation,
        format!("Unknown collation: '{name}'"),
    )
}

/// The character set a DDL clause names.
pub fn charset_named(name: &str) -> DbResult<Charset> {
    Charset::from_name(name).ok_or_else(|| unknown_charset(name))
}

/// The collation a DDL clause names.
pub fn collation_named(name: &str) -> DbResult<Collation> {
    Collation::from_name(name).ok_or_else(|| unknown_collation(name))
}

/// Resolves the optional clauses against `default` (see the module rules).
pub fn resolve(
    charset: Option<&str>,
    collate: Option<&str>,
    default: Collation,
) -> DbResult<Collation> {
    let is_default = |s: &&str| s.eq_ignore_ascii_case("DEFAULT");
    let cs = match charset.filter(|s| !is_default(s)) {
        Some(n) => Some(charset_named(n)?),
        None => None,
    };
    let coll = match collate.filter(|s| !is_default(s)) {
        Some(n) => Some(collation_named(n)?),
        None => None,
    };
    match (cs, coll) {
        (None, None) => Ok(default),
        (Some(cs), None) => Ok(cs.default_collation()),
        (None, Some(c)) => Ok(c),
        (Some(cs), Some(c)) if c.charset() == cs => Ok(c),
        (Some(cs), Some(c)) => Err(DbError::new(
            ErrorCode::CollationCharsetMismatch,
            format!(
                "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                c.name(),
                cs.name()
            ),
        )),
    }
}

/// [`resolve`] for a column with the `BINARY` attribute: its character set's `_bin`
/// collation; 1302 with a COLLATE clause.
pub fn resolve_binary(
    charset: Option<&str>,
    collate: Option<&str>,
    default: Collation,
) -> DbResult<Collation> {
    if let Some(c) = collate {
        return Err(DbError::new(
            ErrorCode::ConflictingDeclarations,
            format!("Conflicting declarations: 'BINARY' and 'COLLATE {c}'"),
        ));
    }
    Ok(resolve(charset, None, default)?.charset().bin_collation())
}

/// The table options' text: `DEFAULT CHARSET=cs COLLATE=coll`.
pub fn table_clause(c: Collation) -> String {
    format!(
        "DEFAULT CHARSET={} COLLATE={}",
        c.charset().name(),
        c.name()
    )
}

/// A text column's clause (with a leading space) when its collation is not the table's.
pub fn column_clause(column: Collation, table: Collation) -> String {
    if column == table || column == Collation::Binary {
        String::new()
    } else {
        format!(
            " CHARACTER SET {} COLLATE {}",
            column.charset().name(),
            column.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_resolve_as_mariadb() {
        let d = Collation::Utf8mb4GeneralCi;
        assert_eq!(resolve(None, None, d).unwrap(), d);
        assert_eq!(
            resolve(Some("utf8"), None, d).unwrap(),
            Collation::Utf8mb3GeneralCi
        );
        assert_eq!(
            resolve(None, Some("latin1_bin"), d).unwrap(),
            Collation::Latin1Bin
        );
        assert_eq!(
            resolve(Some("utf8"), Some("utf8_general_ci"), d).unwrap(),
            Collation::Utf8mb3GeneralCi
        );
        assert_eq!(resolve(Some("DEFAULT"), None, d).unwrap(), d);
        assert_eq!(
            resolve(Some("koi9"), None, d).unwrap_err().code,
            ErrorCode::UnknownCharacterSet
        );
        assert_eq!(
            resolve(None, Some("latin1_x"), d).unwrap_err().code,
            ErrorCode::UnknownCollation
        );
        let e = resolve(Some("latin1"), Some("utf8mb4_bin"), d).unwrap_err();
        assert_eq!(e.code, ErrorCode::CollationCharsetMismatch);
        assert_eq!(
            e.message,
            "COLLATION 'utf8mb4_bin' is not valid for CHARACTER SET 'latin1'"
        );
    }

    #[test]
    fn binary_attribute_is_the_charsets_bin_collation() {
        let d = Collation::Latin1SwedishCi;
        assert_eq!(resolve_binary(None, None, d).unwrap(), Collation::Latin1Bin);
        assert_eq!(
            resolve_binary(Some("utf8mb4"), None, d).unwrap(),
            Collation::Utf8mb4Bin
        );
        let e = resolve_binary(None, Some("latin1_german1_ci"), d).unwrap_err();
        assert_eq!(e.code, ErrorCode::ConflictingDeclarations);
        assert_eq!(
            e.message,
            "Conflicting declarations: 'BINARY' and 'COLLATE latin1_german1_ci'"
        );
    }

    #[test]
    fn clauses_render_as_mariadb() {
        let (l, u) = (Collation::Latin1GeneralCi, Collation::Utf8mb3GeneralCi);
        assert_eq!(
            table_clause(l),
            "DEFAULT CHARSET=latin1 COLLATE=latin1_general_ci"
        );
        assert_eq!(
            column_clause(u, l),
            " CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci"
        );
        assert_eq!(column_clause(l, l), "");
    }
}
