//! SQL codecs and front end: rows decoded with the layouts of a few tables covering the column types, keys
//! decoded with their primary and secondary key columns, and statement text parsed. A decoded row or key
//! must encode back to bytes that decode to the same values (rows compared by their encodings).

use std::sync::OnceLock;

use betula_sql::catalog::create_table::table_from_create;
use betula_sql::catalog::TableDef;
use betula_sql::codec::key::{decode_key, encode_key, KeyColumn};
use betula_sql::codec::row::{decode_row, encode_row};
use betula_sql::parser::{parse, parse_statement};

/// The tables whose layouts and keys the row and key targets use; the first input byte picks one.
pub const TABLES: &[&str] = &[
    "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), d DOUBLE, KEY by_v (v))",
    "CREATE TABLE t (a BIGINT UNSIGNED NOT NULL, b CHAR(4) NOT NULL, c DECIMAL(12,3), dt DATETIME(3), \
     PRIMARY KEY (a, b), KEY by_c (c, dt))",
    "CREATE TABLE t (id TINYINT, e ENUM('x','y','z'), s SET('p','q'), bt BIT(10), f FLOAT, \
     tm TIME, dy DATE, ts TIMESTAMP NULL, y YEAR, KEY by_e (e, s))",
    "CREATE TABLE t (id VARBINARY(16) PRIMARY KEY, tx TEXT, bl BLOB, \
     p VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, KEY by_p (p(10)))",
];

/// The table definitions of [`TABLES`].
pub fn tables() -> &'static [TableDef] {
    static DEFS: OnceLock<Vec<TableDef>> = OnceLock::new();
    DEFS.get_or_init(|| {
        TABLES
            .iter()
            .map(|sql| match parse(sql).expect("fuzz table").remove(0) {
                sqlparser::ast::Statement::CreateTable(ct) => {
                    table_from_create("db", &ct, &Default::default()).expect("fuzz table")
                }
                _ => unreachable!("CREATE TABLE"),
            })
            .collect()
    })
}

pub fn row(data: &[u8]) -> Result<(), String> {
    let Some((&pick, bytes)) = data.split_first() else {
        return Ok(());
    };
    let defs = tables();
    let def = &defs[pick as usize % defs.len()];
    let Ok(values) = decode_row(&def.layout, bytes) else {
        return Ok(());
    };
    let mut again = Vec::new();
    if encode_row(&def.layout, &values, &mut again).is_err() {
        return Ok(());
    }
    // Compared as encodings: a stored NaN decodes to a value unequal to itself.
    let back = decode_row(&def.layout, &again)
        .map_err(|e| format!("row {values:?} encoded to bytes that do not decode: {e}"))?;
    let mut third = Vec::new();
    encode_row(&def.layout, &back, &mut third)
        .map_err(|e| format!("row {back:?} decoded from an encoding does not encode: {e}"))?;
    if third != again {
        return Err(format!("row {values:?} came back as {back:?}"));
    }
    Ok(())
}

/// The key columns an input byte picks: a table's primary key or one of its indexes.
fn key_columns(pick: u8) -> Vec<KeyColumn> {
    let defs = tables();
    let def = &defs[pick as usize % defs.len()];
    let choice = (pick as usize / defs.len()) % (def.indexes.len() + 1);
    if choice == 0 {
        def.pk_key_columns()
    } else {
        def.index_key_columns(choice - 1)
    }
}

pub fn key(data: &[u8]) -> Result<(), String> {
    let Some((&pick, bytes)) = data.split_first() else {
        return Ok(());
    };
    let cols = key_columns(pick);
    let Ok(values) = decode_key(&cols, bytes) else {
        return Ok(());
    };
    // Only whole, reversible keys can be encoded again.
    let Some(full): Option<Vec<_>> = values.iter().cloned().collect() else {
        return Ok(());
    };
    if full.len() != cols.len() || !cols.iter().all(|c| c.is_reversible()) {
        return Ok(());
    }
    let mut again = Vec::new();
    if encode_key(&cols, &full, &mut again).is_err() {
        return Ok(());
    }
    match decode_key(&cols, &again) {
        Ok(back) if back == values => Ok(()),
        Ok(back) => Err(format!("key {values:?} came back as {back:?}")),
        Err(e) => Err(format!(
            "key {values:?} encoded to bytes that do not decode: {e}"
        )),
    }
}

/// The front end the server dispatches through (`parse_statement`), and the sqlparser path beside it.
pub fn statement(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let _ = parse_statement(&text);
    let _ = parse(&text);
    Ok(())
}
