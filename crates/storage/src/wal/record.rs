//! Log records and their framing (file-format.md §4).
//!
//! Frame: `len u32 | crc32c u32 | lsn u64 | kind u8 | body`, where `len` and the checksum cover
//! `lsn..body`. Since format version 5 the log writes only packed frames (kind 41): the records of one
//! group-commit write as entries `len varint | kind u8 | body`, compressed together, with dense LSNs from
//! the frame's. Single-record frames (versions 1-4) are still read. Decoding never panics; a short or
//! failing frame is reported as the end of the valid log.

use crate::compress::Codec;
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::tree::in_memory::message::{MessageKind, Msn, Op, TxnId};
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
const KIND_PACKED: u8 = 41;

/// Bytes of a packed frame before its payload, at most: prefix, LSN, kind, count, codec, raw length.
const PACKED_HEADER_MAX: usize = FRAME_PREFIX_BYTES + 8 + 1 + 10 + 1 + 10;

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

/// Appends the entry of `Record::Message { tree, txn, key, op }` (the bytes
/// [`Record::encode_entry`] writes for it) without building the record.
pub fn encode_message_entry(out: &mut Vec<u8>, tree: u64, txn: u64, key: &[u8], op: &Op) {
    let start = out.len();
    out.push(0);
    out.put_u8(op.kind() as u8);
    out.put_varint(tree);
    out.put_varint(txn);
    out.put_bytes(key);
    op.encode_body(out);
    seal_entry(out, start);
}

/// Writes the length of the entry begun at `start` (a one-byte placeholder) as its varint prefix.
fn seal_entry(out: &mut Vec<u8>, start: usize) {
    let len = (out.len() - start - 1) as u64;
    if len < 0x80 {
        out[start] = len as u8;
    } else {
        let mut prefix = Vec::with_capacity(10);
        prefix.put_varint(len);
        out.splice(start..start + 1, prefix);
    }
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

    /// Appends the record as a single-record frame with `lsn` (the framing of format versions 1-4, which
    /// recovery still reads; the log itself now writes [`pack`]ed frames).
    pub fn encode_framed(&self, lsn: Msn, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0u8; FRAME_PREFIX_BYTES]);
        out.put_u64(lsn);
        self.encode_kind_and_body(out);
        seal_frame(out, start);
    }

    /// Appends the record as an entry of a packed frame: `len varint | kind u8 | body`, `len` covering
    /// kind and body.
    pub fn encode_entry(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.push(0);
        self.encode_kind_and_body(out);
        seal_entry(out, start);
    }

    fn encode_kind_and_body(&self, out: &mut Vec<u8>) {
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
    }

    /// Decodes a record of `kind` from the rest of `d`, which it must use up.
    fn decode_body(kind: u8, d: &mut Decoder<'_>) -> Result<Record, DecodeError> {
        let limit = d.remaining() as u64;
        let rec = match kind {
            KIND_CREATE_TREE => Record::CreateTree {
                id: d.u64()?,
                name: utf8(d.bytes()?)?,
                options: decode_options(d)?,
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
                if n > limit {
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
                if n > limit {
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
                let op = Op::decode_body(mk, d)?;
                Record::Message { tree, txn, key, op }
            }
        };
        d.finish()?;
        Ok(rec)
    }

    /// Decodes the frame at the start of `buf`: its first LSN, its records (LSNs dense from the first) and
    /// the bytes it took. A packed frame yields all its records or fails whole.
    pub fn decode_frame(buf: &[u8]) -> Result<(Msn, Vec<Record>, usize), DecodeError> {
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
        let records = if kind == KIND_PACKED {
            decode_entries(&mut d)?
        } else {
            vec![Record::decode_body(kind, &mut d)?]
        };
        Ok((lsn, records, FRAME_PREFIX_BYTES + len))
    }
}

/// Fills in the length and checksum of the frame that begins at `start` and runs to the end of `out`.
fn seal_frame(out: &mut [u8], start: usize) {
    let body = &out[start + FRAME_PREFIX_BYTES..];
    let len = body.len() as u32;
    let crc = crc32c::crc32c(body);
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
}

/// Appends a packed frame to `out`: the `count` records whose entries ([`Record::encode_entry`]) are
/// `entries`, with LSNs from `first`. The entries are compressed with `codec` (at its default level)
/// unless that does not make them smaller, in which case they are stored raw (codec 0).
pub fn pack(first: Msn, count: u64, entries: &[u8], codec: Codec, out: &mut Vec<u8>) {
    let start = out.len();
    out.reserve(PACKED_HEADER_MAX + entries.len());
    out.extend_from_slice(&[0u8; FRAME_PREFIX_BYTES]);
    out.put_u64(first);
    out.put_u8(KIND_PACKED);
    out.put_varint(count);
    let compressed = (codec != Codec::None)
        .then(|| codec.compress(entries, 0))
        .filter(|c| c.len() < entries.len());
    let (codec, payload) = match &compressed {
        Some(c) => (codec, c.as_slice()),
        None => (Codec::None, entries),
    };
    out.put_u8(codec as u8);
    out.put_varint(entries.len() as u64);
    out.extend_from_slice(payload);
    seal_frame(out, start);
}

/// Decodes a packed frame's body after its kind: count, codec, raw length and the (compressed) entries.
fn decode_entries(d: &mut Decoder<'_>) -> Result<Vec<Record>, DecodeError> {
    let count = d.varint()?;
    let codec = {
        let c = d.u8()?;
        Codec::from_u8(c).ok_or_else(|| DecodeError(format!("unknown log codec {c}")))?
    };
    let raw_len = d.varint()?;
    // Every entry takes at least two bytes (length and kind); the raw length is bounded like a record's.
    if count == 0 || raw_len > MAX_RECORD_BYTES as u64 || count > raw_len / 2 {
        return Err(DecodeError(format!(
            "packed frame of {count} records in {raw_len} bytes"
        )));
    }
    let raw = codec
        .decompress(d.take(d.remaining())?, raw_len as usize)
        .map_err(|e| DecodeError(format!("packed frame: {e}")))?;
    let mut entries = Decoder::new(&raw);
    // `count` is bounded by the bytes, not by what a `Record` takes: reserve little up front.
    let mut records = Vec::with_capacity(count.min(1024) as usize);
    for _ in 0..count {
        let len = entries.varint()?;
        let len = usize::try_from(len).map_err(|_| DecodeError(format!("entry of {len} bytes")))?;
        let mut e = Decoder::new(entries.take(len)?);
        let kind = e.u8()?;
        if kind == KIND_PACKED {
            return Err(DecodeError("a packed frame inside a packed frame".into()));
        }
        records.push(Record::decode_body(kind, &mut e)?);
    }
    entries.finish()?;
    Ok(records)
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
            let (lsn, got, n) = Record::decode_frame(&buf[pos..]).unwrap();
            assert_eq!(lsn, i as u64 + 10);
            assert_eq!(got, vec![r.clone()]);
            for cut in 0..n {
                assert!(Record::decode_frame(&buf[pos..pos + cut]).is_err());
            }
            pos += n;
        }
        assert_eq!(pos, buf.len());
    }

    fn sample_records() -> Vec<Record> {
        let mut recs: Vec<Record> = (0..40u64)
            .map(|i| Record::Message {
                tree: 3,
                txn: i % 3,
                key: i.to_be_bytes().to_vec(),
                // Bodies on both sides of 128 bytes, so entry lengths take one and two varint bytes.
                op: Op::Put(vec![i as u8; (i as usize * 7) % 300]),
            })
            .collect();
        recs.push(Record::TxnBegin);
        recs.push(Record::TxnsOpen { txns: vec![1, 2] });
        recs.push(Record::CreateTree {
            id: 4,
            name: "db.t".into(),
            options: TreeOptions::default(),
        });
        recs
    }

    fn packed(recs: &[Record], first: Msn, codec: Codec) -> Vec<u8> {
        let mut entries = Vec::new();
        for r in recs {
            r.encode_entry(&mut entries);
        }
        let mut frame = Vec::new();
        pack(first, recs.len() as u64, &entries, codec, &mut frame);
        frame
    }

    #[test]
    fn packed_frames_round_trip_under_every_codec_and_fail_whole_when_torn_or_flipped() {
        let recs = sample_records();
        for codec in Codec::ALL {
            let frame = packed(&recs, 77, codec);
            let (lsn, got, n) = Record::decode_frame(&frame).unwrap();
            assert_eq!((lsn, n), (77, frame.len()), "{codec:?}");
            assert_eq!(got, recs, "{codec:?}");
            for cut in 0..frame.len() {
                assert!(
                    Record::decode_frame(&frame[..cut]).is_err(),
                    "{codec:?} cut {cut}"
                );
            }
            for i in (0..frame.len()).step_by(7) {
                let mut bad = frame.clone();
                bad[i] ^= 0x10;
                assert!(Record::decode_frame(&bad).is_err(), "{codec:?} flip {i}");
            }
        }
        // The sample compresses: lz4 stores it in fewer bytes than no codec.
        assert!(packed(&recs, 1, Codec::Lz4).len() < packed(&recs, 1, Codec::None).len());
    }

    #[test]
    fn entries_a_codec_cannot_shrink_are_stored_raw() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..2000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let recs = vec![Record::Message {
            tree: 1,
            txn: 0,
            key: b"k".to_vec(),
            op: Op::Put(noise),
        }];
        let lz4 = packed(&recs, 5, Codec::Lz4);
        assert_eq!(lz4, packed(&recs, 5, Codec::None), "stored raw, codec 0");
        assert_eq!(Record::decode_frame(&lz4).unwrap().1, recs);
    }

    /// Frames with a valid checksum around arbitrary bodies (the checksum alone would stop most garbage
    /// before the packed-frame decoder sees it), and arbitrary bytes, never panic the decoder.
    #[test]
    fn arbitrary_frames_never_panic_the_decoder() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let good = packed(&sample_records(), 9, Codec::Lz4);
        for round in 0..3000usize {
            let len = (next() % 300) as usize;
            let mut body: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if round % 3 == 0 && body.len() > 12 {
                // A packed frame's header (kind, count, codec, raw length) before the garbage.
                body[8] = KIND_PACKED;
                body[9] = (next() % 8) as u8;
                body[10] = (next() % 6) as u8;
                body[11] = (next() % 0x80) as u8;
            } else if round % 3 == 1 {
                // A real packed body with bytes changed.
                body = good[FRAME_PREFIX_BYTES..].to_vec();
                for _ in 0..1 + next() % 4 {
                    let i = (next() as usize) % body.len();
                    body[i] = next() as u8;
                }
            }
            let mut frame = Vec::new();
            frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
            frame.extend_from_slice(&crc32c::crc32c(&body).to_le_bytes());
            frame.extend_from_slice(&body);
            let _ = Record::decode_frame(&frame);
            let _ = Record::decode_frame(&body);
        }
    }

    #[test]
    fn a_message_entry_encodes_as_its_record_does() {
        let ops = [
            Op::Put(vec![7; 300]),
            Op::Delete,
            Op::Upsert {
                func: 3,
                arg: vec![1, 2],
            },
            Op::RangeDelete { end: vec![9] },
        ];
        for op in ops {
            let rec = Record::Message {
                tree: 5,
                txn: 1 << 40,
                key: vec![4; 130],
                op: op.clone(),
            };
            let (mut a, mut b) = (vec![1], vec![1]);
            rec.encode_entry(&mut a);
            encode_message_entry(&mut b, 5, 1 << 40, &[4; 130], &op);
            assert_eq!(a, b);
        }
    }
}
