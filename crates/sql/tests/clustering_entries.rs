//! Clustering index entries round-trip (sql-encoding.md "Clustering indexes"): for random rows
//! of a table with every column type, each clustering index's entry (its key and value) decodes
//! to exactly the row and its primary key, in both key formats, whichever columns the key gives
//! back (integers, temporals, ENUM / SET by number) and whichever it cannot (text under a
//! case-insensitive collation, prefix parts, FLOAT / DOUBLE, which keep `-0.0`).

mod common;

use betula_sql::catalog::index_entry::{covers, decode_entry, entry_value};
use betula_sql::catalog::TableDef;
use betula_sql::types::value::Value;
use common::{random_value, rng};

const TABLE: &str = "CREATE TABLE t (id INT NOT NULL, i BIGINT, u INT UNSIGNED NOT NULL, \
    f FLOAT, d DOUBLE, dec1 DECIMAL(20,4), ch CHAR(5), v VARCHAR(10), vb VARCHAR(10) COLLATE utf8mb4_bin, \
    tx TEXT, b VARBINARY(8), dt DATETIME(3), dd DATE, tm TIME, e ENUM('a','b','c'), s SET('x','y'), \
    bt BIT(5), y YEAR, PRIMARY KEY (id, v), \
    CLUSTERING KEY k1 (vb, f, ch), CLUSTERING KEY k2 (tx(3), e, s, dt), \
    UNIQUE CLUSTERING KEY k3 (i, b, bt, y, dec1), CLUSTERING KEY k4 (d, dd, tm, u))";

fn table() -> TableDef {
    let (ct, extras) = betula_sql::parser::parse_create_table(TABLE).unwrap();
    betula_sql::catalog::create_table::table_from_create("db", &ct, &extras).unwrap()
}

#[test]
fn entries_decode_to_their_rows() {
    let mut t = table();
    assert!(t.indexes.iter().all(|ix| ix.clustering));
    let mut g = rng(11);
    for format in [1u8, 2] {
        t.key_format = format;
        for _ in 0..3000 {
            let row: Vec<Value> = t
                .columns
                .iter()
                .map(|c| {
                    let null_pct = if c.nullable { 15 } else { 0 };
                    random_value(&mut g, &c.sql_type, null_pct)
                })
                .collect();
            let pk = t.encode_pk(&row).unwrap();
            for ix in 0..t.indexes.len() {
                let key = t.encode_index_key(ix, &row, &pk).unwrap();
                let value = entry_value(&t, ix, &row).unwrap();
                let (back, at) = decode_entry(&t, ix, &key, &value).unwrap();
                assert_eq!(&key[at..], pk.as_slice());
                assert_eq!(back.len(), row.len());
                for (c, (a, b)) in back.iter().zip(&row).enumerate() {
                    // same value and, for floats, the same bits (-0.0 stays -0.0)
                    let same = match (a, b) {
                        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
                        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
                        _ => a == b,
                    };
                    assert!(
                        same,
                        "format {format}, index {ix}, column {c}: {a:?} != {b:?}"
                    );
                }
                assert!(covers(&t, ix, &vec![true; row.len()]));
            }
        }
    }
}

#[test]
fn an_entry_leaves_out_what_its_key_gives_back() {
    let t = table();
    let mut g = rng(5);
    let row: Vec<Value> = t
        .columns
        .iter()
        .map(|c| random_value(&mut g, &c.sql_type, 0))
        .collect();
    // k4's key decodes d? no (DOUBLE stays in the row); dd, tm, u and the primary key's id do.
    let k4 = t.indexes.iter().position(|ix| ix.name == "k4").unwrap();
    let mut masked = row.clone();
    for name in ["dd", "tm", "u", "id"] {
        masked[t.col_index(name).unwrap()] = Value::Null;
    }
    let mut want = Vec::new();
    betula_sql::codec::row::encode_row(&t.layout, &masked, &mut want).unwrap();
    assert_eq!(entry_value(&t, k4, &row).unwrap(), want);
}
