//! Framed basements (file-format.md §3.4): in a version 3 node block a leaf partition is stored as frames,
//! runs of whole entries compressed one by one behind a table naming each frame's first key. A point read
//! that misses the cache decompresses and walks the one frame that can hold its key, half of the
//! basement by default, instead of the whole basement (design.md, "Reading one frame").
//!
//! Invariants:
//! - the frames cut the basement encoding at entry boundaries; frame 0 starts with the encoding's header
//!   (encoding byte, entry count), so the frames' raw bytes, concatenated in order, are the encoding;
//! - a frame's first key is the key of its first entry (frame 0 of an empty basement: the empty key), so
//!   first keys strictly increase and key *x* can only be in the last frame whose first key is ≤ *x*;
//! - the table has its own CRC-32C and each frame has one of its stored bytes, so one frame is checked
//!   without the rest (the partition directory's CRC still covers the whole partition for full reads);
//! - in a version 6 block ("tagged" frames) each stored frame starts with its transform byte: 0 = its raw
//!   bytes compressed, 1 = columnar (tree/format/columnar/, design.md COL1-COL5); the raw length in the
//!   table is the plain bytes' either way, so what a frame decodes to does not depend on its transform.

use super::columnar::{self, ColumnLayout};
use crate::compress::Codec;
use crate::encoding::{varint_len, DecodeError, Decoder, Encode};
use crate::tree::in_memory::basement::ENCODING_PLAIN;
use crate::tree::in_memory::mvcc::Cell;

/// Where a frame starts in a basement's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    /// Byte offset of the frame in the encoding (0 for frame 0, which holds the header).
    pub start: usize,
    /// Index of the frame's first entry.
    pub index: usize,
    /// Offset and length of that entry's key in the encoding ((0, 0) for an empty basement).
    pub key: (usize, usize),
}

/// Where to cut an encoding whose entries start at the given offsets: a new frame starts at the first
/// entry at least `target` bytes after the current frame's start. `entries` yields (entry start, key
/// offset, key length) in order.
pub fn plan(entries: impl Iterator<Item = (usize, usize, usize)>, target: usize) -> Vec<Cut> {
    let mut cuts: Vec<Cut> = Vec::new();
    for (i, (start, key_off, key_len)) in entries.enumerate() {
        match cuts.last() {
            None => cuts.push(Cut {
                start: 0,
                index: 0,
                key: (key_off, key_len),
            }),
            Some(last) if start - last.start >= target => cuts.push(Cut {
                start,
                index: i,
                key: (key_off, key_len),
            }),
            Some(_) => {}
        }
    }
    if cuts.is_empty() {
        cuts.push(Cut {
            start: 0,
            index: 0,
            key: (0, 0),
        });
    }
    cuts
}

/// Transform byte of a tagged frame: its raw bytes, compressed.
pub(super) const TRANSFORM_PLAIN: u8 = 0;
/// Transform byte of a tagged frame: its columnar form, compressed.
pub(super) const TRANSFORM_COLUMNAR: u8 = 1;

/// How frames are stored.
#[derive(Debug, Clone, Copy)]
pub enum FrameStyle<'a> {
    /// Version 3-5: each frame is its raw bytes compressed.
    Untagged,
    /// Version 6: a transform byte, then the frame; columnar when a layout is given and fits.
    Tagged(Option<&'a ColumnLayout>),
}

/// One frame's stored bytes, and whether it is columnar.
fn store_frame(
    frame: &[u8],
    prefix_len: usize,
    count: usize,
    codec: Codec,
    level: i32,
    style: FrameStyle<'_>,
) -> (Vec<u8>, bool) {
    let layout = match style {
        FrameStyle::Untagged => return (codec.compress(frame, level), false),
        FrameStyle::Tagged(layout) => layout,
    };
    let col = layout.and_then(|l| columnar::encode(frame, prefix_len, count, l));
    store_transformed(frame, col, codec, level)
}

/// The stored bytes of tagged `raw` (a frame, or a version 7 message buffer): transform 1 and the
/// columnar form `col` when it is shorter than `raw`, else transform 0 and `raw` (nothing more when
/// empty), compressed; also says whether the columnar form was kept.
pub(super) fn store_transformed(
    raw: &[u8],
    col: Option<Vec<u8>>,
    codec: Codec,
    level: i32,
) -> (Vec<u8>, bool) {
    // A columnar form is kept only when it is shorter, which bounds what a reader must accept.
    if let Some(col) = col.filter(|c| c.len() < raw.len()) {
        let body = codec.compress(&col, level);
        let mut out = Vec::with_capacity(body.len() + 6);
        out.put_u8(TRANSFORM_COLUMNAR);
        out.put_varint(col.len() as u64);
        out.extend_from_slice(&body);
        return (out, true);
    }
    let mut out = vec![TRANSFORM_PLAIN];
    if !raw.is_empty() {
        out.extend_from_slice(&codec.compress(raw, level));
    }
    (out, false)
}

/// Stores basement encoding `raw` of `count` entries, cut at `cuts` (from [`plan`]), each frame
/// compressed with `codec` in the given style; also says how many frames are columnar.
pub fn encode(
    raw: &[u8],
    count: usize,
    cuts: &[Cut],
    codec: Codec,
    level: i32,
    style: FrameStyle<'_>,
) -> (Vec<u8>, usize) {
    let mut columnar = 0;
    let mut table = Vec::with_capacity(cuts.len() * 32 + 8);
    table.put_varint(cuts.len() as u64);
    let mut frames = Vec::with_capacity(raw.len() / 2);
    for (i, c) in cuts.iter().enumerate() {
        let (end, next_index) = cuts
            .get(i + 1)
            .map_or((raw.len(), count), |n| (n.start, n.index));
        let frame = &raw[c.start..end];
        // Frame 0 begins with the basement's header: its encoding byte and entry count.
        let prefix_len = if i == 0 {
            (1 + varint_len(count as u64)).min(frame.len())
        } else {
            0
        };
        let (stored, col) =
            store_frame(frame, prefix_len, next_index - c.index, codec, level, style);
        columnar += usize::from(col);
        table.put_varint(frame.len() as u64);
        table.put_varint(stored.len() as u64);
        table.put_u32(crc32c::crc32c(&stored));
        table.put_varint((next_index - c.index) as u64);
        table.put_bytes(&raw[c.key.0..c.key.0 + c.key.1]);
        frames.extend_from_slice(&stored);
    }
    let crc = crc32c::crc32c(&table);
    table.put_u32(crc);
    table.extend_from_slice(&frames);
    (table, columnar)
}

/// One frame as the table describes it.
#[derive(Debug)]
struct Frame<'a> {
    raw_len: usize,
    stored: &'a [u8],
    crc: u32,
    count: usize,
    first_key: &'a [u8],
}

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

/// Reads and checks the frame table of a stored partition.
fn table(stored: &[u8]) -> Result<Vec<Frame<'_>>, DecodeError> {
    let mut d = Decoder::new(stored);
    let n = d.varint()?;
    if n == 0 || n > stored.len() as u64 {
        return Err(err(format!("bad frame count {n}")));
    }
    let mut metas = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let raw_len = d.varint()?;
        let stored_len = d.varint()?;
        let crc = d.u32()?;
        let count = d.varint()?;
        let first_key = d.bytes()?;
        metas.push((raw_len, stored_len, crc, count, first_key));
    }
    let table_len = d.position();
    let table_crc = d.u32()?;
    if crc32c::crc32c(&stored[..table_len]) != table_crc {
        return Err(err("frame table checksum mismatch"));
    }
    let mut frames = Vec::with_capacity(metas.len());
    let mut prev: Option<&[u8]> = None;
    for (raw_len, stored_len, crc, count, first_key) in metas {
        if usize::try_from(stored_len).map_or(true, |l| l > d.remaining()) {
            return Err(err("frame lies outside the partition"));
        }
        if raw_len > u64::from(u32::MAX) || count > raw_len {
            return Err(err(format!(
                "frame of {raw_len} bytes with {count} entries"
            )));
        }
        if prev.is_some_and(|p| p >= first_key) {
            return Err(err("frame first keys not strictly increasing"));
        }
        prev = Some(first_key);
        frames.push(Frame {
            raw_len: raw_len as usize,
            stored: d.take(stored_len as usize)?,
            crc,
            count: count as usize,
            first_key,
        });
    }
    d.finish()?;
    Ok(frames)
}

/// The frames of a stored tagged partition, and how many of them are columnar; checks the frame
/// table (a stored copy is reused only when it reads back, tree/in_memory/stored_copy.rs).
pub fn tagged_frame_counts(stored: &[u8]) -> Result<(usize, usize), DecodeError> {
    let frames = table(stored)?;
    let columnar = frames
        .iter()
        .filter(|f| f.stored.first() == Some(&TRANSFORM_COLUMNAR))
        .count();
    Ok((frames.len(), columnar))
}

/// The raw bytes of frame `f`: decompressed, and for a tagged frame undone from its transform.
fn decompress(f: &Frame<'_>, codec: Codec, tagged: bool) -> Result<Vec<u8>, DecodeError> {
    if !tagged {
        if f.raw_len == 0 {
            return Ok(Vec::new());
        }
        return codec
            .decompress(f.stored, f.raw_len)
            .map_err(|e| err(format!("frame: {e}")));
    }
    load_transformed(f.stored, codec, f.raw_len, "frame", columnar::decode)
}

/// The raw bytes (`raw_len` of them) of what [`store_transformed`] wrote; `what` names the thing in
/// errors, `decode_columnar` undoes its columnar form.
pub(super) fn load_transformed(
    stored: &[u8],
    codec: Codec,
    raw_len: usize,
    what: &str,
    decode_columnar: fn(&[u8]) -> Result<Vec<u8>, DecodeError>,
) -> Result<Vec<u8>, DecodeError> {
    let mut d = Decoder::new(stored);
    let raw = match d.u8()? {
        TRANSFORM_PLAIN => {
            let body = d.take(d.remaining())?;
            if raw_len == 0 && body.is_empty() {
                return Ok(Vec::new());
            }
            codec
                .decompress(body, raw_len)
                .map_err(|e| err(format!("{what}: {e}")))?
        }
        TRANSFORM_COLUMNAR => {
            let len = d.varint()?;
            // Writers keep a columnar form only when it is shorter than the raw bytes.
            if len >= raw_len as u64 {
                return Err(err(format!(
                    "columnar form of {len} bytes for a {what} of {raw_len}"
                )));
            }
            let body = d.take(d.remaining())?;
            let col = codec
                .decompress(body, len as usize)
                .map_err(|e| err(format!("columnar {what}: {e}")))?;
            decode_columnar(&col).map_err(|e| err(format!("columnar {what}: {e}")))?
        }
        t => return Err(err(format!("unknown {what} transform {t}"))),
    };
    if raw.len() != raw_len {
        return Err(err(format!(
            "{what} decodes to {} bytes, its directory says {raw_len}",
            raw.len()
        )));
    }
    Ok(raw)
}

/// The whole basement encoding (`raw_len` bytes) of a stored partition whose bytes were checked against
/// the directory's CRC; `tagged`: its frames start with their transform byte (version 6).
pub fn decode_all(
    stored: &[u8],
    codec: Codec,
    raw_len: usize,
    tagged: bool,
) -> Result<Vec<u8>, DecodeError> {
    let frames = table(stored)?;
    if frames.iter().map(|f| f.raw_len).sum::<usize>() != raw_len {
        return Err(err("frames do not add up to the partition's raw length"));
    }
    let mut raw = Vec::with_capacity(raw_len);
    for f in &frames {
        if f.raw_len == 0 {
            continue;
        }
        if raw.is_empty() {
            raw = decompress(f, codec, tagged)?;
            raw.reserve(raw_len - raw.len());
        } else {
            raw.extend_from_slice(&decompress(f, codec, tagged)?);
        }
    }
    Ok(raw)
}

/// Looks `key` up in a stored partition, reading the table and the one frame that can hold it (each
/// checked against its own CRC): the entry's cell, or None when the basement has no entry for `key`.
pub fn lookup(
    stored: &[u8],
    codec: Codec,
    tagged: bool,
    key: &[u8],
) -> Result<Option<Cell>, DecodeError> {
    let frames = table(stored)?;
    let i = frames.partition_point(|f| f.first_key <= key);
    if i == 0 {
        // Below the first key (frame 0's first key is the basement's smallest).
        return Ok(None);
    }
    let f = &frames[i - 1];
    if crc32c::crc32c(f.stored) != f.crc {
        return Err(err(format!("frame {} checksum mismatch", i - 1)));
    }
    let raw = decompress(f, codec, tagged)?;
    let mut d = Decoder::new(&raw);
    if i == 1 {
        let enc = d.u8()?;
        if enc != ENCODING_PLAIN {
            return Err(err(format!("unknown basement encoding {enc}")));
        }
        d.varint()?;
    }
    for _ in 0..f.count {
        let k = d.bytes()?;
        match k.cmp(key) {
            std::cmp::Ordering::Less => {
                Cell::skip(&mut d)?;
            }
            std::cmp::Ordering::Equal => return Cell::decode(&mut d).map(Some),
            std::cmp::Ordering::Greater => return Ok(None),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::in_memory::basement::Basement;

    fn basement(n: usize, seed: u64) -> Basement {
        let mut rows: Vec<(Vec<u8>, Vec<u8>)> = (0..n as u64)
            .map(|i| {
                let k = (i.wrapping_mul(2_654_435_761) ^ seed)
                    .to_be_bytes()
                    .to_vec();
                let v = vec![b'a' + (i % 26) as u8; (i % 90) as usize];
                (k, v)
            })
            .collect();
        rows.sort();
        rows.dedup_by(|a, b| a.0 == b.0);
        Basement::from_plain(rows)
    }

    /// Keys are 8-byte big-endian integers, values bytes: a layout that fits every entry.
    fn layout() -> ColumnLayout {
        ColumnLayout {
            key: vec![columnar::KeyField {
                kind: columnar::FieldKind::UintBe { bytes: 8 },
                marker: false,
                inverted: false,
            }],
            value: columnar::ValueLayout::Opaque,
        }
    }

    const STYLES: [(bool, bool); 3] = [(false, false), (true, false), (true, true)];

    fn style(tagged: bool, columns: bool, l: &ColumnLayout) -> FrameStyle<'_> {
        match (tagged, columns) {
            (false, _) => FrameStyle::Untagged,
            (true, c) => FrameStyle::Tagged(c.then_some(l)),
        }
    }

    fn stored(
        b: &Basement,
        target: usize,
        codec: Codec,
        (tagged, columns): (bool, bool),
    ) -> (Vec<u8>, Vec<u8>, usize) {
        let (raw, cuts) = b.encode_cut(target);
        let l = layout();
        let (s, _) = encode(&raw, b.len(), &cuts, codec, 0, style(tagged, columns, &l));
        (s, raw.into_owned(), cuts.len())
    }

    #[test]
    fn frames_round_trip_and_every_key_is_found_in_its_frame() {
        for codec in [Codec::None, Codec::Zstd, Codec::Lz4] {
            for (n, target) in [(0, 64), (1, 64), (300, 1), (300, 512), (300, 1 << 20)] {
                for (packed, st) in [false, true]
                    .into_iter()
                    .flat_map(|p| STYLES.map(|st| (p, st)))
                {
                    let tagged = st.0;
                    let mut b = basement(n, 7);
                    if packed {
                        b = Basement::decode(&b.encode()).unwrap();
                    }
                    let (s, raw, frames) = stored(&b, target, codec, st);
                    assert_eq!(raw, b.encode());
                    if n == 300 && target == 512 {
                        assert!(frames > 10, "{frames} frames");
                    }
                    if target == 1 << 20 {
                        assert_eq!(frames, 1);
                    }
                    assert_eq!(decode_all(&s, codec, raw.len(), tagged).unwrap(), raw);
                    for (k, c) in b.entries().iter() {
                        assert_eq!(lookup(&s, codec, tagged, k).unwrap().as_ref(), Some(c));
                        let mut above = k.clone();
                        above.push(0);
                        assert_eq!(lookup(&s, codec, tagged, &above).unwrap(), None);
                    }
                    assert_eq!(lookup(&s, codec, tagged, b"").unwrap(), None);
                    assert_eq!(lookup(&s, codec, tagged, &[0xff; 9]).unwrap(), None);
                }
            }
        }
    }

    #[test]
    fn columnar_frames_are_smaller_for_fitting_entries() {
        let b = basement(300, 7);
        let (plain, _, _) = stored(&b, 512, Codec::Zstd, STYLES[1]);
        let (col, _, _) = stored(&b, 512, Codec::Zstd, STYLES[2]);
        assert!(col.len() < plain.len(), "{} vs {}", col.len(), plain.len());
    }

    #[test]
    fn damaged_frames_are_errors_not_panics() {
        for st in STYLES {
            damaged_frames_in_style(st);
        }
    }

    fn damaged_frames_in_style(st: (bool, bool)) {
        let tagged = st.0;
        let b = basement(200, 3);
        let (s, raw, _) = stored(&b, 400, Codec::Zstd, st);
        let keys: Vec<Vec<u8>> = b.entries().iter().map(|(k, _)| k.clone()).collect();
        let mut caught = 0;
        for at in 0..s.len() {
            let mut bad = s.clone();
            bad[at] ^= 1 << (at % 8);
            // A full decode is checked by the directory's CRC first; without it, decoding either fails
            // or yields bytes of the right length that the basement parser then checks.
            if let Ok(r) = decode_all(&bad, Codec::Zstd, raw.len(), tagged) {
                assert_eq!(r.len(), raw.len());
            }
            // Every key is either found as it is or the damage is reported: the table and each frame
            // have their own checksum.
            for k in keys.iter().step_by(3) {
                match lookup(&bad, Codec::Zstd, tagged, k) {
                    Ok(c) => assert_eq!(c.as_ref(), b.get(k).as_deref(), "flip at {at}"),
                    Err(_) => caught += 1,
                }
            }
        }
        assert!(
            caught > s.len() / 2,
            "only {caught} lookups saw {} flips",
            s.len()
        );
        for n in 0..s.len() {
            let _ = decode_all(&s[..n], Codec::Zstd, raw.len(), tagged);
            let _ = lookup(&s[..n], Codec::Zstd, tagged, &keys[0]);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_decoders() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..400usize {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            for codec in [Codec::None, Codec::Zstd] {
                for tagged in [false, true] {
                    let _ = decode_all(&bytes, codec, len, tagged);
                    let _ = lookup(&bytes, codec, tagged, b"key");
                }
            }
        }
    }
}
