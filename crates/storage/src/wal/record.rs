//! Log records and their framing (file-format.md §4).
//!
//! Frame: `len u32 | crc32c u32 | lsn u64 | kind u8 | body`, where `len` and the checksum cover
//! `lsn..body`. Decoding never panics; a short or failing frame is reported as the end of the valid log.

use crate::compress::Codec;
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::tree::message::{MessageKind, Msn, Op, TxnId};
use crate::tree::options::TreeOptions;

/// Bytes of the frame before `lsn`.
pub const FRAME_PREFIX_BYTES: usize = 8;
/// Largest record accepted when reading (guards against a garbage length).
pub const MAX_RECORD_BYTES: usize = 1 << 30;

const KIND_CREATE_TREE: u8 = 32;
const KIND_DROP_TREE: u8 = 33;
const KIND_RENAME_TREE: u8 = 34;
const KIND_CHECKPOINT: u8 = 35;
const KIND_TXN_BEGIN: u8 = 36;
const KIND_TXN_COMMIT: u8 = 37;
const KIND_TXN_ABORT: u8 = 38;
const KIND_TXNS_OPEN: u8 = 39;
const KIND_REPLACE_TREES: u8 = 40;

/// One log record (without its LSN).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A message for a tree.
    Message {
        tree: u64,
        txn: TxnId,
        key: Vec<u8>,
        op: Op,
    },
    CreateTree {
        id: u64,
        name: String,
        options: TreeOptions,
    },
    DropTree {
        id: u64,
    },
    RenameTree {
        id: u64,
        name: String,
    },
    /// Marks the begin of checkpoint `seq`.
    Checkpoint {
        seq: u64,
    },
    /// A transaction begins; this record's LSN is its id.
    TxnBegin,
    /// Transaction `txn` committed.
    TxnCommit {
        txn: TxnId,
    },
    /// Transaction `txn` rolled back; its Abort messages precede this record.
    TxnAbort {
        txn: TxnId,
    },
    /// Atomically: each `old` tree is dropped and each `new` tree takes its name (bulk load swap-in).
    ReplaceTrees {
        pairs: Vec<(u64, u64)>,
    },
    /// Transactions open when a checkpoint began (logged right after its `Checkpoint` record), so recovery
    /// knows to roll them back if their commit never comes.
    TxnsOpen {
        txns: Vec<TxnId>,
    },
}

/// Encodes tree options (shared with the catalog, file-format.md §2).
pub fn encode_options(o: &TreeOptions, out: &mut Vec<u8>) {
    out.put_u32(o.node_size_bytes);
    out.put_u32(o.basement_size_bytes);
    out.put_u16(o.fanout);
    out.put_u8(o.codec as u8);
    out.put_u8(o.level as u8);
}

pub fn decode_options(d: &mut Decoder<'_>) -> Result<TreeOptions, DecodeError> {
    let o = TreeOptions {
        node_size_bytes: d.u32()?,
        basement_size_bytes: d.u32()?,
        fanout: d.u16()?,
        codec: {
            let c = d.u8()?;
            Codec::from_u8(c).ok_or_else(|| DecodeError(format!("unknown codec {c}")))?
        },
        level: d.u8()? as i8,
    };
    o.validate().map_err(|e| DecodeError(e.to_string()))?;
    Ok(o)
}

fn utf8(b: &[u8]) -> Result<String, DecodeError> {
    String::from_utf8(b.to_vec()).map_err(|_| DecodeError("name is not UTF-8".into()))
}

impl Record {
    fn kind(&self) -> u8 {
        match self {
            Record::Message { op, .. } => op.kind() as u8,
            Record::CreateTree { .. } => KIND_CREATE_TREE,
            Record::DropTree { .. } => KIND_DROP_TREE,
            Record::RenameTree { .. } => KIND_RENAME_TREE,
            Record::Checkpoint { .. } => KIND_CHECKPOINT,
            Record::TxnBegin => KIND_TXN_BEGIN,
            Record::TxnCommit { .. } => KIND_TXN_COMMIT,
            Record::TxnAbort { .. } => KIND_TXN_ABORT,
            Record::TxnsOpen { .. } => KIND_TXNS_OPEN,
            Record::ReplaceTrees { .. } => KIND_REPLACE_TREES,
        }
    }

    /// Appends the framed record with `lsn` to `out`.
    pub fn encode_framed(&self, lsn: Msn, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0u8; FRAME_PREFIX_BYTES]);
        out.put_u64(lsn);
        out.put_u8(self.kind());
        match self {
            Record::Message { tree, txn, key, op } => {
                out.put_varint(*tree);
                out.put_varint(*txn);
                out.put_bytes(key);
                op.encode_body(out);
            }
            Record::CreateTree { id, name, options } => {
                out.put_u64(*id);
                out.put_bytes(name.as_bytes());
                encode_options(options, out);
            }
            Record::DropTree { id } => out.put_u64(*id),
            Record::RenameTree { id, name } => {
                out.put_u64(*id);
                out.put_bytes(name.as_bytes());
            }
            Record::Checkpoint { seq } => out.put_u64(*seq),
            Record::TxnBegin => {}
            Record::ReplaceTrees { pairs } => {
                out.put_varint(pairs.len() as u64);
                for (old, new) in pairs {
                    out.put_u64(*old);
                    out.put_u64(*new);
                }
            }
            Record::TxnCommit { txn } | Record::TxnAbort { txn } => out.put_varint(*txn),
            Record::TxnsOpen { txns } => {
                out.put_varint(txns.len() as u64);
                for t in txns {
                    out.put_varint(*t);
                }
            }
        }
        let body = &out[start + FRAME_PREFIX_BYTES..];
        let len = body.len() as u32;
        let crc = crc32c::crc32c(body);
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
        out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
    }

    /// Decodes the record at the start of `buf`; returns it, its LSN and the bytes it took.
    pub fn decode_framed(buf: &[u8]) -> Result<(Msn, Record, usize), DecodeError> {
        let mut d = Decoder::new(buf);
        let len = d.u32()? as usize;
        let crc = d.u32()?;
        if !(9..=MAX_RECORD_BYTES).contains(&len) {
            return Err(DecodeError(format!("bad record length {len}")));
        }
        let body = d.take(len)?;
        if crc32c::crc32c(body) != crc {
            return Err(DecodeError("record checksum mismatch".into()));
        }
        let mut d = Decoder::new(body);
        let lsn = d.u64()?;
        let kind = d.u8()?;
        let rec = match kind {
            KIND_CREATE_TREE => Record::CreateTree {
                id: d.u64()?,
                name: utf8(d.bytes()?)?,
                options: decode_options(&mut d)?,
            },
            KIND_DROP_TREE => Record::DropTree { id: d.u64()? },
            KIND_RENAME_TREE => Record::RenameTree {
                id: d.u64()?,
                name: utf8(d.bytes()?)?,
            },
            KIND_CHECKPOINT => Record::Checkpoint { seq: d.u64()? },
            KIND_TXN_BEGIN => Record::TxnBegin,
            KIND_REPLACE_TREES => {
                let n = d.varint()?;
                if n > body.len() as u64 {
                    return Err(DecodeError(format!("{n} pairs overrun the record")));
                }
                let mut pairs = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    pairs.push((d.u64()?, d.u64()?));
                }
                Record::ReplaceTrees { pairs }
            }
            KIND_TXN_COMMIT => Record::TxnCommit { txn: d.varint()? },
            KIND_TXN_ABORT => Record::TxnAbort { txn: d.varint()? },
            KIND_TXNS_OPEN => {
                let n = d.varint()?;
                if n > body.len() as u64 {
                    return Err(DecodeError(format!("{n} transactions overrun the record")));
                }
                let mut txns = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    txns.push(d.varint()?);
                }
                Record::TxnsOpen { txns }
            }
            k => {
                let mk = MessageKind::from_u8(k)
                    .ok_or_else(|| DecodeError(format!("unknown record kind {k}")))?;
                let tree = d.varint()?;
                let txn = d.varint()?;
                let key = d.bytes()?.to_vec();
                let op = Op::decode_body(mk, &mut d)?;
                Record::Message { tree, txn, key, op }
            }
        };
        d.finish()?;
        Ok((lsn, rec, FRAME_PREFIX_BYTES + len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_torn_frames_fail() {
        let recs = [
            Record::Message {
                tree: 3,
                txn: 0,
                key: b"k".to_vec(),
                op: Op::Put(b"v".to_vec()),
            },
            Record::Message {
                tree: 3,
                txn: 9,
                key: b"a".to_vec(),
                op: Op::RangeDelete { end: b"b".to_vec() },
            },
            Record::CreateTree {
                id: 4,
                name: "db.t".into(),
                options: TreeOptions::default(),
            },
            Record::DropTree { id: 4 },
            Record::RenameTree {
                id: 4,
                name: "x".into(),
            },
            Record::Checkpoint { seq: 2 },
            Record::TxnBegin,
            Record::ReplaceTrees {
                pairs: vec![(1, 7), (2, 8)],
            },
            Record::TxnCommit { txn: 9 },
            Record::TxnAbort { txn: 9 },
            Record::TxnsOpen {
                txns: vec![9, 1 << 40],
            },
            Record::Message {
                tree: 1,
                txn: 9,
                key: b"k".to_vec(),
                op: Op::Abort,
            },
        ];
        let mut buf = Vec::new();
        for (i, r) in recs.iter().enumerate() {
            r.encode_framed(i as u64 + 10, &mut buf);
        }
        let mut pos = 0;
        for (i, r) in recs.iter().enumerate() {
            let (lsn, got, n) = Record::decode_framed(&buf[pos..]).unwrap();
            assert_eq!(lsn, i as u64 + 10);
            assert_eq!(&got, r);
            for cut in 0..n {
                assert!(Record::decode_framed(&buf[pos..pos + cut]).is_err());
            }
            pos += n;
        }
        assert_eq!(pos, buf.len());
    }
}
