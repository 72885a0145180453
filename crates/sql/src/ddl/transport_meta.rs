//! The metadata file of a table export, `table.cfg` (file-format.md §8): which file holds which index's
//! tree, each file's length and CRC-32C, and the definition the rows and keys were encoded for.
//!
//! Invariant: the file's own CRC-32C covers every byte before it; a reader refuses any other version.

use betula_storage::encoding::{DecodeError, Decoder, Encode};

const MAGIC: &[u8; 8] = b"BETULAEX";
const VERSION: u32 = 1;

/// File name of the metadata in an export directory.
pub const META_FILE: &str = "table.cfg";

/// One index's tree in the export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedTree {
    /// `PRIMARY` or the index's name.
    pub index: String,
    /// The tree file's name in the export directory.
    pub file: String,
    pub rows: u64,
    pub len: u64,
    pub crc: u32,
}

/// The metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportMeta {
    pub db: String,
    pub table: String,
    /// The table's definition as its catalog entry renders it (without the AUTO_INCREMENT counter).
    pub create_sql: String,
    /// Columns every stored row holds, and the key format (sql-encoding.md).
    pub full_columns: u64,
    pub key_format: u8,
    /// The next AUTO_INCREMENT value when exported.
    pub auto_inc: u64,
    pub trees: Vec<ExportedTree>,
}

impl ExportMeta {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.put_u32(VERSION);
        for s in [&self.db, &self.table, &self.create_sql] {
            out.put_bytes(s.as_bytes());
        }
        out.put_u64(self.full_columns);
        out.put_u8(self.key_format);
        out.put_u64(self.auto_inc);
        out.put_varint(self.trees.len() as u64);
        for t in &self.trees {
            out.put_bytes(t.index.as_bytes());
            out.put_bytes(t.file.as_bytes());
            out.put_u64(t.rows);
            out.put_u64(t.len);
            out.put_u32(t.crc);
        }
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        out
    }

    pub fn decode(raw: &[u8]) -> Result<ExportMeta, DecodeError> {
        if raw.len() < 16 {
            return Err(DecodeError("too short".into()));
        }
        let (body, crc) = raw.split_at(raw.len() - 4);
        if crc32c::crc32c(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err(DecodeError("checksum mismatch".into()));
        }
        let mut d = Decoder::new(body);
        if d.take(8)? != MAGIC || d.u32()? != VERSION {
            return Err(DecodeError(
                "not a Betula table export of this version".into(),
            ));
        }
        let (db, table, create_sql) = (text(&mut d)?, text(&mut d)?, text(&mut d)?);
        let (full_columns, key_format, auto_inc) = (d.u64()?, d.u8()?, d.u64()?);
        let n = d.varint()?;
        if n > d.remaining() as u64 / 22 {
            return Err(DecodeError(format!("{n} trees overrun the file")));
        }
        let mut trees = Vec::with_capacity(n as usize);
        for _ in 0..n {
            trees.push(ExportedTree {
                index: text(&mut d)?,
                file: text(&mut d)?,
                rows: d.u64()?,
                len: d.u64()?,
                crc: d.u32()?,
            });
        }
        d.finish()?;
        Ok(ExportMeta {
            db,
            table,
            create_sql,
            full_columns,
            key_format,
            auto_inc,
            trees,
        })
    }
}

fn text(d: &mut Decoder<'_>) -> Result<String, DecodeError> {
    String::from_utf8(d.bytes()?.to_vec()).map_err(|_| DecodeError("name is not UTF-8".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_damage() {
        let m = ExportMeta {
            db: "d".into(),
            table: "t".into(),
            create_sql: "CREATE TABLE `t` (\n  `a` int(11) NOT NULL\n)".into(),
            full_columns: 1,
            key_format: 2,
            auto_inc: 7,
            trees: vec![ExportedTree {
                index: "PRIMARY".into(),
                file: "PRIMARY.bt".into(),
                rows: 3,
                len: 16384,
                crc: 9,
            }],
        };
        let raw = m.encode();
        assert_eq!(ExportMeta::decode(&raw).unwrap(), m);
        for i in 0..raw.len() {
            let mut bad = raw.clone();
            bad[i] ^= 1;
            assert!(ExportMeta::decode(&bad).is_err(), "byte {i}");
        }
    }
}
