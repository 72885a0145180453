//! The stored form of a table entry of the catalog tree: an optional header line, then the
//! table's CREATE TABLE text.
//!
//! The header `#betula generation=<n> full_columns=<k> keys=<f>[ parts=<id>.<id>... next_part=<m>][ rows=<layout>][ rollup=<definition>]\n`
//! is written when the table's trees are of generation n > 0, old rows lack columns, its key
//! format f is not 1 ([`TableDef::key_format`]), it is partitioned (its partitions' ids in
//! order and the next id, design.md PRT3), or its row layout is not plain (`rows`: slots, schema
//! version and kind history after instant ALTERs, file-format.md §9, design.md INS1-INS3), or
//! it is a roll-up (`rollup`: its definition, rollup.rs, design.md RUP1).
//! Invariants: an entry without the header is generation 0, every column in every row, key format
//! 1, a plain row layout; unknown `key=value` pairs are ignored (a newer version's), an unknown key
//! format is an error.

use crate::catalog::partition::PartIds;
use crate::catalog::{TableDef, KEY_FORMAT};
use crate::error::db_error::{DbError, DbResult};

const HEADER: &str = "#betula ";

/// The stored value of a table entry: a header line when the generation is not 0, some
/// columns are missing from old rows or the key format is not 1
/// (`#betula generation=N full_columns=K keys=F`), then the CREATE TABLE text.
pub(super) fn encode_table_entry(t: &TableDef, sql: &str) -> DbResult<Vec<u8>> {
    let parts = t.part_ids();
    let plain = t.layout.is_plain();
    if t.generation == 0
        && t.full_columns == t.columns.len()
        && t.key_format == 1
        && parts.is_none()
        && plain
        && t.rollup.is_none()
    {
        return Ok(sql.as_bytes().to_vec());
    }
    let mut head = format!(
        "{HEADER}generation={} full_columns={} keys={}",
        t.generation, t.full_columns, t.key_format
    );
    if let Some(p) = parts {
        let ids: Vec<String> = p.ids.iter().map(u64::to_string).collect();
        head.push_str(&format!(" parts={} next_part={}", ids.join("."), p.next));
    }
    if !plain {
        head.push_str(" rows=");
        head.push_str(&t.layout.to_text()?);
    }
    if let Some(r) = &t.rollup {
        head.push_str(" rollup=");
        head.push_str(&r.to_text());
    }
    Ok(format!("{head}\n{sql}").into_bytes())
}

/// What a stored table entry's header says (absent pairs: `None`).
#[derive(Debug, PartialEq)]
pub(super) struct EntryHeader {
    pub(super) generation: u64,
    pub(super) full_columns: Option<usize>,
    /// The key format; no `keys` pair means format 1 (written before formats existed).
    pub(super) key_format: u8,
    /// A partitioned table's partition ids (`parts=`, `next_part=`).
    pub(super) parts: Option<PartIds>,
    /// The row layout's text when it is not plain (`rows=`).
    pub(super) rows: Option<String>,
    /// A roll-up's definition text (`rollup=`).
    pub(super) rollup: Option<String>,
}

/// The header of a stored table entry and its CREATE TABLE text. Unknown `key=value` pairs of
/// the header are ignored (written by a newer version); a key format this version does not know
/// is an error, as its keys would be misread.
pub(super) fn decode_table_entry(v: &str) -> DbResult<(EntryHeader, &str)> {
    let mut h = EntryHeader {
        generation: 0,
        full_columns: None,
        key_format: 1,
        parts: None,
        rows: None,
        rollup: None,
    };
    let Some(rest) = v.strip_prefix(HEADER) else {
        return Ok((h, v));
    };
    let bad = || DbError::internal(format!("bad catalog entry: {}", &v[..v.len().min(60)]));
    let (head, sql) = rest.split_once('\n').ok_or_else(bad)?;
    for pair in head.split(' ') {
        let (k, n) = pair.split_once('=').ok_or_else(bad)?;
        match k {
            "generation" => h.generation = n.parse().map_err(|_| bad())?,
            "full_columns" => h.full_columns = Some(n.parse().map_err(|_| bad())?),
            "keys" => {
                h.key_format = n.parse().map_err(|_| bad())?;
                if !(1..=KEY_FORMAT).contains(&h.key_format) {
                    return Err(bad());
                }
            }
            "parts" => {
                let ids = n
                    .split('.')
                    .map(|i| i.parse::<u64>().map_err(|_| bad()))
                    .collect::<DbResult<Vec<u64>>>()?;
                let next = h.parts.as_ref().map_or(0, |p| p.next);
                h.parts = Some(PartIds { ids, next });
            }
            "next_part" => {
                let next = n.parse().map_err(|_| bad())?;
                h.parts
                    .get_or_insert(PartIds {
                        ids: vec![],
                        next: 0,
                    })
                    .next = next;
            }
            "rows" => h.rows = Some(n.to_string()),
            "rollup" => h.rollup = Some(n.to_string()),
            _ => {}
        }
    }
    Ok((h, sql))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_entries_round_trip_their_header() {
        let mut t = crate::context::engine::test_table();
        let h = |generation, full_columns, key_format| EntryHeader {
            generation,
            full_columns,
            key_format,
            parts: None,
            rows: None,
            rollup: None,
        };
        let sql = "CREATE TABLE `t` (\n  `a` int(11) DEFAULT NULL\n) ENGINE=Betula";
        t.key_format = 1;
        assert_eq!(encode_table_entry(&t, sql).unwrap(), sql.as_bytes());
        assert_eq!(decode_table_entry(sql).unwrap(), (h(0, None, 1), sql));
        t.generation = 7;
        t.full_columns = 2;
        let v = String::from_utf8(encode_table_entry(&t, sql).unwrap()).unwrap();
        assert_eq!(decode_table_entry(&v).unwrap(), (h(7, Some(2), 1), sql));
        let newer = format!("#betula generation=3 future=x full_columns=1\n{sql}");
        assert_eq!(decode_table_entry(&newer).unwrap(), (h(3, Some(1), 1), sql));
        assert!(decode_table_entry("#betula generation=x\nCREATE").is_err());
        assert!(decode_table_entry("#betula generation=3").is_err());
        // Format 2 alone needs the header; an unknown format is refused.
        t.generation = 0;
        t.full_columns = t.columns.len();
        t.key_format = KEY_FORMAT;
        let v = String::from_utf8(encode_table_entry(&t, sql).unwrap()).unwrap();
        assert!(v.starts_with("#betula generation=0 full_columns=3 keys=2\n"));
        assert_eq!(decode_table_entry(&v).unwrap(), (h(0, Some(3), 2), sql));
        assert!(decode_table_entry(&format!("#betula keys=3\n{sql}")).is_err());
    }
}
