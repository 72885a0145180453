//! A backup's manifest (file-format.md §7): what the backup holds and the checksum of each piece, written
//! last (design.md BKP6), so a directory without a valid one is not a backup.
//!
//! Invariants: the manifest's own CRC-32C covers every byte before it; every file it lists has its length
//! and CRC-32C, every tree block its length and XXH3-128 hash (BKP8); a block's source is this backup's
//! block file or the base chain, never anything else.

use crate::encoding::{DecodeError, Decoder, Encode};
use std::path::PathBuf;

const MAGIC: &[u8; 8] = b"BETULABK";
/// Version of the manifest's layout.
const VERSION: u32 = 1;

/// File name of the manifest in a backup directory.
pub const MANIFEST_FILE: &str = "backup.manifest";

/// File name of the blocks a backup holds of tree `id`.
pub fn block_file_name(id: u64) -> String {
    format!("tree-{id}.blocks")
}

/// Where a block's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockSource {
    /// In this backup's block file of the tree, at this offset.
    Here(u64),
    /// In the base chain (an incremental backup's base, or the base's base, ...).
    Base,
}

/// One block of a tree as the backup's checkpoint had it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEntry {
    pub bn: u64,
    pub len: u32,
    pub prefix_len: u32,
    pub source: BlockSource,
    /// XXH3-128 of the block's bytes.
    pub hash: u128,
}

/// One tree: its checkpoint header's fields and its blocks in block-number order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    pub id: u64,
    pub seq: u64,
    pub msn: u64,
    pub root: u64,
    pub next_bn: u64,
    pub blocks: Vec<BlockEntry>,
}

/// A file copied as it is (the environment header, the catalog, log segments), by its path relative to the
/// backup directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub name: String,
    pub len: u64,
    pub crc: u32,
}

/// The manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Random, to tell backups apart (a base is checked by it).
    pub id: u64,
    /// 0 for a full backup.
    pub base_id: u64,
    /// The base backup's directory as given when this one was made (empty for a full backup).
    pub base_dir: PathBuf,
    pub created_unix_secs: u64,
    /// The final round's checkpoint: its sequence and begin LSN (where the copy's recovery starts).
    pub checkpoint_seq: u64,
    pub begin_lsn: u64,
    /// The last log record the backup holds (design.md BKP5).
    pub end_lsn: u64,
    pub files: Vec<FileEntry>,
    pub trees: Vec<TreeEntry>,
}

impl Manifest {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.put_u32(VERSION);
        out.put_u64(self.id);
        out.put_u64(self.base_id);
        out.put_bytes(self.base_dir.to_string_lossy().as_bytes());
        for v in [
            self.created_unix_secs,
            self.checkpoint_seq,
            self.begin_lsn,
            self.end_lsn,
        ] {
            out.put_u64(v);
        }
        out.put_varint(self.files.len() as u64);
        for f in &self.files {
            out.put_bytes(f.name.as_bytes());
            out.put_u64(f.len);
            out.put_u32(f.crc);
        }
        out.put_varint(self.trees.len() as u64);
        for t in &self.trees {
            for v in [t.id, t.seq, t.msn, t.root, t.next_bn] {
                out.put_u64(v);
            }
            out.put_varint(t.blocks.len() as u64);
            for b in &t.blocks {
                out.put_u64(b.bn);
                out.put_u32(b.len);
                out.put_u32(b.prefix_len);
                match b.source {
                    BlockSource::Here(offset) => {
                        out.put_u8(0);
                        out.put_u64(offset);
                    }
                    BlockSource::Base => out.put_u8(1),
                }
                out.extend_from_slice(&b.hash.to_le_bytes());
            }
        }
        let crc = crc32c::crc32c(&out);
        out.put_u32(crc);
        out
    }

    pub fn decode(raw: &[u8]) -> Result<Manifest, DecodeError> {
        if raw.len() < 12 {
            return Err(DecodeError("manifest too short".into()));
        }
        let (body, crc) = raw.split_at(raw.len() - 4);
        if crc32c::crc32c(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err(DecodeError("manifest checksum mismatch".into()));
        }
        let mut d = Decoder::new(body);
        if d.take(8)? != MAGIC {
            return Err(DecodeError("not a backup manifest".into()));
        }
        let version = d.u32()?;
        if version != VERSION {
            return Err(DecodeError(format!("manifest version {version}")));
        }
        let id = d.u64()?;
        let base_id = d.u64()?;
        let base_dir = PathBuf::from(text(d.bytes()?)?);
        let (created_unix_secs, checkpoint_seq, begin_lsn, end_lsn) =
            (d.u64()?, d.u64()?, d.u64()?, d.u64()?);
        let n = count(&mut d, 13)?;
        let mut files = Vec::with_capacity(n);
        for _ in 0..n {
            files.push(FileEntry {
                name: text(d.bytes()?)?,
                len: d.u64()?,
                crc: d.u32()?,
            });
        }
        let n = count(&mut d, 41)?;
        let mut trees = Vec::with_capacity(n);
        for _ in 0..n {
            let (id, seq, msn, root, next_bn) = (d.u64()?, d.u64()?, d.u64()?, d.u64()?, d.u64()?);
            let nb = count(&mut d, 33)?;
            let mut blocks = Vec::with_capacity(nb);
            for _ in 0..nb {
                let (bn, len, prefix_len) = (d.u64()?, d.u32()?, d.u32()?);
                let source = match d.u8()? {
                    0 => BlockSource::Here(d.u64()?),
                    1 => BlockSource::Base,
                    k => return Err(DecodeError(format!("unknown block source {k}"))),
                };
                let hash = u128::from_le_bytes(d.take(16)?.try_into().expect("16 bytes"));
                blocks.push(BlockEntry {
                    bn,
                    len,
                    prefix_len,
                    source,
                    hash,
                });
            }
            trees.push(TreeEntry {
                id,
                seq,
                msn,
                root,
                next_bn,
                blocks,
            });
        }
        d.finish()?;
        Ok(Manifest {
            id,
            base_id,
            base_dir,
            created_unix_secs,
            checkpoint_seq,
            begin_lsn,
            end_lsn,
            files,
            trees,
        })
    }

    /// The tree `id`'s entry.
    pub fn tree(&self, id: u64) -> Option<&TreeEntry> {
        self.trees.iter().find(|t| t.id == id)
    }
}

/// A count read from the manifest, trusted only as far as the bytes left can hold entries of at least
/// `min_entry` bytes.
fn count(d: &mut Decoder<'_>, min_entry: usize) -> Result<usize, DecodeError> {
    let n = d.varint()?;
    if n > (d.remaining() / min_entry) as u64 {
        return Err(DecodeError(format!("{n} entries overrun the manifest")));
    }
    Ok(n as usize)
}

fn text(b: &[u8]) -> Result<String, DecodeError> {
    String::from_utf8(b.to_vec()).map_err(|_| DecodeError("name is not UTF-8".into()))
}

/// XXH3-128 of a block's bytes (design.md BKP8).
pub fn block_hash(bytes: &[u8]) -> u128 {
    twox_hash::XxHash3_128::oneshot(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            id: 7,
            base_id: 3,
            base_dir: PathBuf::from("/backups/full"),
            created_unix_secs: 1_700_000_000,
            checkpoint_seq: 12,
            begin_lsn: 900,
            end_lsn: 1200,
            files: vec![FileEntry {
                name: "wal/00000000000000000900.wal".into(),
                len: 4096,
                crc: 0xdead_beef,
            }],
            trees: vec![TreeEntry {
                id: 4,
                seq: 5,
                msn: 880,
                root: 1,
                next_bn: 9,
                blocks: vec![
                    BlockEntry {
                        bn: 1,
                        len: 5000,
                        prefix_len: 80,
                        source: BlockSource::Here(0),
                        hash: 1 << 100,
                    },
                    BlockEntry {
                        bn: 3,
                        len: 100,
                        prefix_len: 60,
                        source: BlockSource::Base,
                        hash: 42,
                    },
                ],
            }],
        }
    }

    #[test]
    fn round_trips() {
        let m = sample();
        assert_eq!(Manifest::decode(&m.encode()).unwrap(), m);
    }

    #[test]
    fn every_flipped_bit_and_truncation_is_refused() {
        let raw = sample().encode();
        for i in 0..raw.len() * 8 {
            let mut bad = raw.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert!(Manifest::decode(&bad).is_err(), "bit {i}");
        }
        for n in 0..raw.len() {
            assert!(Manifest::decode(&raw[..n]).is_err(), "length {n}");
        }
    }
}
