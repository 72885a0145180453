//! Columnar message buffers (file-format.md §3.6, design.md COL6): an internal node's buffer stored
//! as columns of MSNs, transaction ids and kinds, with the keys and payloads of its Put messages split
//! by the tree's layout exactly as a frame's committed entries are (§3.5); every other message (a
//! delete, an upsert, a range message, a Put the layout does not fit) keeps its plain body.
//!
//! Invariant: [`decode`] of [`encode`]'s output is the buffer's raw encoding exactly (`Buffer::encode`,
//! §3.3): a Put goes into the columns only when its bytes are the canonical encoding of what is parsed
//! from them. [`decode`] never panics and allocates at most a bounded multiple of [`MAX_ROWS`] or of its
//! input: damage is a [`DecodeError`].

use super::layout::ColumnLayout;
use super::rows::{Joined, Split};
use super::{err, ints, MAX_ROWS, ROW_COLUMNAR, ROW_PLAIN};
use crate::encoding::{varint_len, DecodeError, Decoder, Encode};
use crate::tree::in_memory::message::{MessageKind, Op};

/// The columnar form of a buffer's raw encoding `raw` (a count, then messages in MSN order). None when
/// no message fits the layout or the bytes are not a well-formed buffer.
pub fn encode(raw: &[u8], layout: &ColumnLayout) -> Option<Vec<u8>> {
    let mut d = Decoder::new(raw);
    let count = d.varint().ok()?;
    if count > MAX_ROWS as u64 {
        return None;
    }
    let count = count as usize;
    let (mut msns, mut txns, mut kinds, mut rows) = (
        Vec::with_capacity(count),
        Vec::with_capacity(count),
        Vec::with_capacity(count),
        Vec::with_capacity(count),
    );
    let mut split = Split::new(layout);
    let mut plain = Vec::new();
    for _ in 0..count {
        // Each message is stepped over in place (no copies): its head, its key, its body.
        msns.push(d.u64().ok()? as i64);
        txns.push(d.u64().ok()? as i64);
        let kind = d.u8().ok()?;
        let body_start = d.position();
        d.bytes().ok()?;
        Op::skip_body(MessageKind::from_u8(kind)?, &mut d).ok()?;
        kinds.push(i64::from(kind));
        let body = &raw[body_start..d.position()];
        if let Some((key, value)) = canonical_put(body, kind) {
            if split.push(key, value) {
                rows.push(ROW_COLUMNAR);
                continue;
            }
        }
        rows.push(ROW_PLAIN);
        plain.put_bytes(body);
    }
    if d.remaining() != 0 || split.rows == 0 {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len() / 4);
    out.put_varint(count as u64);
    ints::encode(&msns, 8, false, &mut out);
    ints::encode(&txns, 8, false, &mut out);
    ints::encode(&kinds, 1, false, &mut out);
    out.put_bytes(&layout.encode());
    ints::encode(&rows, 1, false, &mut out);
    out.put_bytes(&plain);
    split.write_columns(&mut out);
    Some(out)
}

/// The key and payload of a Put message's body when the body is exactly their canonical encoding
/// (minimal length varints, nothing after the payload).
fn canonical_put(body: &[u8], kind: u8) -> Option<(&[u8], &[u8])> {
    if kind != MessageKind::Put as u8 {
        return None;
    }
    let mut d = Decoder::new(body);
    let key = d.bytes().ok()?;
    let value = d.bytes().ok()?;
    let canonical = d.remaining() == 0
        && body.len()
            == varint_len(key.len() as u64)
                + key.len()
                + varint_len(value.len() as u64)
                + value.len();
    canonical.then_some((key, value))
}

/// The buffer's raw encoding from its columnar form.
pub fn decode(columnar: &[u8]) -> Result<Vec<u8>, DecodeError> {
    decode_with_layout(columnar).map(|(raw, _)| raw)
}

/// As [`decode`], with the layout the form was split by.
pub fn decode_with_layout(columnar: &[u8]) -> Result<(Vec<u8>, ColumnLayout), DecodeError> {
    let mut d = Decoder::new(columnar);
    let count = d.varint()?;
    if count > MAX_ROWS as u64 {
        return Err(err(format!("columnar buffer of {count} messages")));
    }
    let count = count as usize;
    let msns = ints::decode(&mut d, count, 8, false)?;
    let txns = ints::decode(&mut d, count, 8, false)?;
    let kinds = ints::decode(&mut d, count, 1, false)?;
    let layout = ColumnLayout::decode(d.bytes()?)?;
    let rows = ints::decode(&mut d, count, 1, false)?;
    let plain = d.bytes()?;
    let mut columnar_rows = 0;
    for (&row, &kind) in rows.iter().zip(&kinds) {
        match row {
            ROW_PLAIN => {}
            ROW_COLUMNAR if kind == MessageKind::Put as i64 => columnar_rows += 1,
            _ => {
                return Err(err(format!(
                    "message row kind {row} of message kind {kind}"
                )))
            }
        }
    }
    let mut joined = Joined::read(&layout, &mut d, columnar_rows)?;
    d.finish()?;
    let mut out = Vec::with_capacity(columnar.len() * 4);
    out.put_varint(count as u64);
    let mut p = Decoder::new(plain);
    let (mut key, mut value) = (Vec::new(), Vec::new());
    for i in 0..count {
        out.put_u64(msns[i] as u64);
        out.put_u64(txns[i] as u64);
        out.put_u8(kinds[i] as u8);
        if rows[i] == ROW_PLAIN {
            out.extend_from_slice(p.bytes()?);
            continue;
        }
        key.clear();
        value.clear();
        joined.write_row(&mut key, &mut value)?;
        out.put_bytes(&key);
        out.put_bytes(&value);
    }
    p.finish()?;
    joined.finish()?;
    Ok((out, layout))
}
