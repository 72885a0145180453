//! The tree catalog and the environment header (file-format.md §1 and §2).
//!
//! The catalog maps tree ids to names and options. A checkpoint writes it whole to `catalog-<seq>.bin` and
//! then names that file in the environment header slot `seq % 2`.

use crate::block::slots;
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::tree::options::TreeOptions;
use crate::wal::record::{decode_options, encode_options};
use std::collections::BTreeMap;

pub const ENV_MAGIC: &[u8; 8] = b"BETULAEN";
pub const ENV_PAYLOAD_BYTES: usize = 32;
const CATALOG_MAGIC: &[u8; 8] = b"BETULACT";

/// One tree in the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    pub name: String,
    pub options: TreeOptions,
    /// The tree's checkpoint sequence written by the checkpoint that wrote this catalog (0: none yet). A tree
    /// header older than this means the newer header slot was damaged after it was durable.
    pub ckpt_seq: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    pub next_tree_id: u64,
    pub trees: BTreeMap<u64, CatalogEntry>,
    /// Rolled-back transactions whose versions may remain in the trees (readers skip them).
    pub aborted: Vec<u64>,
}

impl Catalog {
    pub fn id_of(&self, name: &str) -> Option<u64> {
        self.trees
            .iter()
            .find(|(_, e)| e.name == name)
            .map(|(id, _)| *id)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(CATALOG_MAGIC);
        out.put_u64(self.next_tree_id);
        out.put_u32(self.trees.len() as u32);
        for (id, e) in &self.trees {
            out.put_u64(*id);
            out.put_bytes(e.name.as_bytes());
            encode_options(&e.options, &mut out);
            out.put_u64(e.ckpt_seq);
        }
        out.put_varint(self.aborted.len() as u64);
        for t in &self.aborted {
            out.put_varint(*t);
        }
        out
    }

    pub fn decode(raw: &[u8]) -> Result<Catalog, DecodeError> {
        let mut d = Decoder::new(raw);
        if d.take(8)? != CATALOG_MAGIC {
            return Err(DecodeError("bad catalog magic".into()));
        }
        let next_tree_id = d.u64()?;
        let n = d.u32()?;
        let mut trees = BTreeMap::new();
        for _ in 0..n {
            let id = d.u64()?;
            let name = String::from_utf8(d.bytes()?.to_vec())
                .map_err(|_| DecodeError("tree name is not UTF-8".into()))?;
            let options = decode_options(&mut d)?;
            let ckpt_seq = d.u64()?;
            if id >= next_tree_id {
                return Err(DecodeError(format!(
                    "tree id {id} ≥ next id {next_tree_id}"
                )));
            }
            trees.insert(
                id,
                CatalogEntry {
                    name,
                    options,
                    ckpt_seq,
                },
            );
        }
        let n = d.varint()?;
        if n > raw.len() as u64 {
            return Err(DecodeError(format!(
                "{n} aborted transactions overrun the catalog"
            )));
        }
        let mut aborted = Vec::with_capacity(n as usize);
        for _ in 0..n {
            aborted.push(d.varint()?);
        }
        d.finish()?;
        Ok(Catalog {
            next_tree_id,
            trees,
            aborted,
        })
    }
}

/// The environment header's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvHeader {
    pub seq: u64,
    pub replay_lsn: u64,
    pub next_lsn: u64,
    pub catalog_len: u32,
    pub catalog_crc: u32,
}

impl EnvHeader {
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(ENV_PAYLOAD_BYTES);
        p.put_u64(self.seq);
        p.put_u64(self.replay_lsn);
        p.put_u64(self.next_lsn);
        p.put_u32(self.catalog_len);
        p.put_u32(self.catalog_crc);
        slots::encode_slot(ENV_MAGIC, &p)
    }

    pub fn decode(p: &[u8]) -> EnvHeader {
        let u = |i: usize| u64::from_le_bytes(p[i..i + 8].try_into().unwrap());
        EnvHeader {
            seq: u(0),
            replay_lsn: u(8),
            next_lsn: u(16),
            catalog_len: u32::from_le_bytes(p[24..28].try_into().unwrap()),
            catalog_crc: u32::from_le_bytes(p[28..32].try_into().unwrap()),
        }
    }
}

/// File name of the catalog written by checkpoint `seq`.
pub fn catalog_name(seq: u64) -> String {
    format!("catalog-{seq}.bin")
}

/// File name of tree `id`.
pub fn tree_file_name(id: u64) -> String {
    format!("tree-{id}.bt")
}
