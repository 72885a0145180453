//! Secondary index entries: the value part, and reading rows back from entries alone
//! (covering reads).
//!
//! Owns: [`entry_value`] (what a row's entry in an index stores besides its key), [`covers`]
//! (whether an index gives back every column a query needs), [`decode_entry`] and
//! [`EntryDecoder`] (the same for the entries of one scan).
//!
//! An entry's key is `encode_key(index columns ++ primary key columns)` (catalog.rs). Under key
//! format 1 its value is empty, so a column whose key does not decode (text under a
//! case-insensitive or PAD SPACE collation: the key holds its sort key) can only be read from
//! the row. Under key format 2 the value carries the text of exactly those key columns, so such
//! an index covers them too:
//!
//! ```text
//! for each key column (index columns, then primary key columns) that is not a prefix part and
//! whose key does not decode, in key order, if the row's value is not NULL:
//!     varint  length of the text in bytes (LEB128)
//!     bytes   the text as stored in the row (UTF-8)
//! ```
//!
//! NULLs take no bytes (the key's NULL marker says NULL). Nothing else is stored: an index whose
//! key columns all decode has empty values in every format. Invariant: the value is a function
//! of the row's key columns, so an update rewrites an entry when its key or its value changes.
//!
//! A clustering index ([`IndexDef::clustering`](crate::catalog::IndexDef)) carries the row
//! instead, in any key format (sql-encoding.md "Clustering indexes", design.md CIX1-CIX4): the
//! value is the row encoding of the primary tree with NULL in every column the key gives back
//! (a key part, not a prefix, whose key decodes); reading decodes the row, then sets those
//! columns from the key. Such an index covers every column, and its value is a function of the
//! whole row.

use crate::catalog::TableDef;
use crate::codec::key::{KeyColumn, KeyDecoder};
use crate::codec::row::{decode_row, encode_row};
use crate::error::db_error::DbResult;
use crate::error::sql_error::SqlError;
use crate::types::value::Value;
use crate::types::SqlType;

/// The table columns of index `ix`'s key, in key order (index columns then primary key
/// columns; `None` for the hidden row id).
fn key_columns(t: &TableDef, ix: usize) -> Vec<Option<usize>> {
    let mut cols: Vec<Option<usize>> = t.indexes[ix].columns.iter().copied().map(Some).collect();
    if t.pk.is_empty() {
        cols.push(None);
    } else {
        cols.extend(t.pk.iter().copied().map(Some));
    }
    cols
}

/// Whether key column `kc` has its text carried in the entry value of a table of `format`.
fn carried(format: u8, kc: &KeyColumn) -> bool {
    format >= 2 && kc.prefix.is_none() && !kc.is_reversible()
}

/// Per table column: whether clustering index `ix`'s key (its key columns `kcols`) gives its
/// value back exactly, so the entry's row leaves it NULL. FLOAT and DOUBLE stay in the row: their
/// keys write `-0.0` as `0.0`.
fn from_key(t: &TableDef, ix: usize, kcols: &[KeyColumn]) -> Vec<bool> {
    let mut out = vec![false; t.columns.len()];
    for (kc, col) in kcols.iter().zip(key_columns(t, ix)) {
        if let Some(c) = col {
            let float = matches!(kc.sql_type, SqlType::Float { .. } | SqlType::Double { .. });
            out[c] |= kc.prefix.is_none() && kc.is_reversible() && !float;
        }
    }
    out
}

/// The value of `row`'s entry in clustering index `ix`: the row, minus what the key gives back.
fn clustering_value(t: &TableDef, ix: usize, row: &[Value]) -> DbResult<Vec<u8>> {
    let masked: Vec<Value> = row
        .iter()
        .zip(from_key(t, ix, &t.index_key_columns(ix)))
        .map(|(v, keyed)| if keyed { Value::Null } else { v.clone() })
        .collect();
    let mut out = Vec::new();
    encode_row(&t.layout, &masked, &mut out)?;
    Ok(out)
}

/// The value of `row`'s entry in secondary index `ix`.
pub fn entry_value(t: &TableDef, ix: usize, row: &[Value]) -> DbResult<Vec<u8>> {
    if t.indexes[ix].clustering {
        return clustering_value(t, ix, row);
    }
    let mut out = Vec::new();
    if t.key_format < 2 {
        return Ok(out);
    }
    let kcols = t.index_key_columns(ix);
    for (kc, col) in kcols.iter().zip(key_columns(t, ix)) {
        let Some(c) = col else { continue };
        if !carried(t.key_format, kc) || row[c].is_null() {
            continue;
        }
        let bytes = row[c]
            .str_bytes()
            .ok_or_else(|| SqlError::Internal(format!("index column {} holds {:?}", c, row[c])))?;
        let mut n = bytes.len() as u64;
        loop {
            let b = (n & 0x7F) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        }
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// True if index `ix`'s entries give back every column in `needed` (by table column).
pub fn covers(t: &TableDef, ix: usize, needed: &[bool]) -> bool {
    if t.indexes[ix].clustering {
        return true;
    }
    let kcols = t.index_key_columns(ix);
    let cols = key_columns(t, ix);
    needed.iter().enumerate().all(|(c, &n)| {
        !n || cols
            .iter()
            .zip(&kcols)
            .any(|(&col, kc)| col == Some(c) && (kc.is_reversible() || carried(t.key_format, kc)))
    })
}

fn corrupt(what: &str) -> SqlError {
    SqlError::CorruptKey(format!("index entry value: {what}"))
}

/// Reads one carried text from `value` at `*pos`.
fn read_text(value: &[u8], pos: &mut usize) -> Result<String, SqlError> {
    let mut n: u64 = 0;
    let mut shift = 0;
    loop {
        let b = *value.get(*pos).ok_or_else(|| corrupt("truncated"))?;
        *pos += 1;
        if shift >= 35 {
            return Err(corrupt("length too long"));
        }
        n |= u64::from(b & 0x7F) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    let end = usize::try_from(n)
        .ok()
        .and_then(|n| pos.checked_add(n))
        .filter(|&e| e <= value.len())
        .ok_or_else(|| corrupt("truncated text"))?;
    let s = std::str::from_utf8(&value[*pos..end]).map_err(|_| corrupt("invalid UTF-8"))?;
    *pos = end;
    Ok(s.to_string())
}

/// The row an entry of index `ix` gives (columns the entry does not hold are NULL; a clustering
/// index's entries hold them all) and where the primary key bytes start in `key`.
pub fn decode_entry(
    t: &TableDef,
    ix: usize,
    key: &[u8],
    value: &[u8],
) -> DbResult<(Vec<Value>, usize)> {
    EntryDecoder::new(t, ix).decode(key, value)
}

/// [`decode_entry`] for many entries of one index: what the index's key holds is worked out once.
pub struct EntryDecoder<'t> {
    t: &'t TableDef,
    kcols: Vec<KeyColumn>,
    /// The table column of each key column (`None`: the hidden row id).
    cols: Vec<Option<usize>>,
    /// Key columns of the index itself (the primary key's follow).
    nix: usize,
    clustering: bool,
    /// Per table column: whether the key's value is the column's (a clustering entry's row
    /// lacks exactly these; every column for other indexes).
    keyed: Vec<bool>,
}

impl<'t> EntryDecoder<'t> {
    pub fn new(t: &'t TableDef, ix: usize) -> EntryDecoder<'t> {
        let kcols = t.index_key_columns(ix);
        let clustering = t.indexes[ix].clustering;
        let keyed = if clustering {
            from_key(t, ix, &kcols)
        } else {
            vec![true; t.columns.len()]
        };
        EntryDecoder {
            t,
            kcols,
            cols: key_columns(t, ix),
            nix: t.indexes[ix].columns.len(),
            clustering,
            keyed,
        }
    }

    /// The row entry (`key`, `value`) gives and where the primary key bytes start in `key`.
    pub fn decode(&self, key: &[u8], value: &[u8]) -> DbResult<(Vec<Value>, usize)> {
        let t = self.t;
        let mut row = if self.clustering {
            decode_row(&t.layout, value)?
        } else {
            vec![Value::Null; t.columns.len()]
        };
        let mut d = KeyDecoder::new(key);
        let mut pos = 0;
        let mut pk_start = 0;
        for (p, (kc, col)) in self.kcols.iter().zip(&self.cols).enumerate() {
            if p == self.nix {
                pk_start = d.position();
            }
            let v = match d.next(kc)? {
                Some(v) => Some(v),
                None if !self.clustering && carried(t.key_format, kc) => {
                    Some(Value::Text(read_text(value, &mut pos)?))
                }
                None => None,
            };
            if let (Some(c), Some(v)) = (*col, v) {
                if self.keyed[c] {
                    row[c] = v;
                }
            }
        }
        if !d.is_at_end() {
            return Err(SqlError::CorruptKey("trailing bytes in index key".into()).into());
        }
        if !self.clustering && pos != value.len() {
            return Err(corrupt("trailing bytes").into());
        }
        Ok((row, pk_start))
    }
}
