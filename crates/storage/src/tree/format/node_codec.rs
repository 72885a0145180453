//! Serialization of nodes into blocks (file-format.md §3.3).
//!
//! A block is a fixed header, a partition directory, a compressed meta chunk (pivots, child numbers), a filter
//! chunk (one key filter per partition) and one compressed chunk per partition. The prefix (header, directory,
//! meta and filters) is enough to route a search and to rule out partitions that lack a key; one basement can
//! then be read, checked and decompressed alone. Decoders never panic: any inconsistency is a
//! [`DecodeError`] that the caller reports as corruption naming the file and block.

use super::buffer_chunk;
use super::columnar::ColumnLayout;
use super::frames::{self, FrameStyle};
use super::key_filter::KeyFilter;
use crate::compress::Codec;
use crate::encoding::{DecodeError, Decoder, Encode};
use crate::format::{readable, FORMAT_VERSION};
use crate::tree::in_memory::basement::Basement;
use crate::tree::in_memory::buffer::Buffer;
use crate::tree::in_memory::node::{BasementSlot, BlockNum, BufferSlot, Node, PartLoc};
use std::borrow::Cow;
use std::sync::Arc;

const MAGIC: &[u8; 4] = b"BNOD";
/// Fixed header size in bytes.
pub const HEADER_BYTES: usize = 48;
const DIR_ENTRY_BYTES: usize = 16;
/// Upper bound on partitions per node accepted by the decoder.
pub const MAX_PARTS: u32 = 1 << 16;

const KIND_LEAF: u8 = 0;
const KIND_INTERNAL: u8 = 1;

/// A serialized node.
pub struct EncodedNode {
    pub bytes: Vec<u8>,
    pub prefix_len: u32,
    pub parts: Vec<PartLoc>,
    /// The key filter written for each partition.
    pub filters: Vec<Option<Arc<KeyFilter>>>,
    /// Basement frames written, and of them columnar ones.
    pub frames: usize,
    pub columnar_frames: usize,
    /// Basements whose stored copy was written (TREE6).
    pub reused: usize,
}

/// What the prefix of a block says.
#[derive(Debug)]
pub struct NodePrefix {
    pub height: u32,
    pub codec: Codec,
    pub pivots: Vec<Vec<u8>>,
    /// Internal nodes only.
    pub children: Vec<BlockNum>,
    pub parts: Vec<PartLoc>,
    /// One per partition (all None in a version 1 block).
    pub filters: Vec<Option<Arc<KeyFilter>>>,
}

/// A partition's stored bytes, their CRC-32C and its raw length.
/// A partition's stored bytes (made now, or a stored copy's), their CRC and the plain length.
type StoredPart<'a> = (Cow<'a, [u8]>, u32, usize);

fn chunk(codec: Codec, level: i32, raw: &[u8]) -> (Vec<u8>, u32) {
    let stored = if raw.is_empty() {
        Vec::new()
    } else {
        codec.compress(raw, level)
    };
    let crc = crc32c::crc32c(&stored);
    (stored, crc)
}

/// Serializes a fully loaded node; a leaf's basements are stored as frames of about `frame_bytes`
/// (tree/format/frames.rs), columnar where `layout` fits their entries (tree/format/columnar/).
pub fn encode(
    node: &Node,
    blocknum: BlockNum,
    codec: Codec,
    level: i32,
    frame_bytes: usize,
    layout: Option<&ColumnLayout>,
) -> EncodedNode {
    encode_as(
        node,
        blocknum,
        codec,
        level,
        Written::Current(frame_bytes, layout),
    )
}

/// As [`encode`], the block a version 5 build wrote (untagged frames, Bloom filters only).
#[cfg(test)]
pub fn encode_version_5(
    node: &Node,
    blocknum: BlockNum,
    codec: Codec,
    level: i32,
    frame_bytes: usize,
) -> EncodedNode {
    encode_as(node, blocknum, codec, level, Written::Version5(frame_bytes))
}

/// What kind of block to write.
#[derive(Clone, Copy)]
enum Written<'a> {
    /// This format version: tagged frames of about this many bytes, columnar where the layout fits.
    Current(usize, Option<&'a ColumnLayout>),
    /// A version 5 block (untagged frames of about this many bytes), which only tests of older
    /// formats want.
    #[cfg(test)]
    Version5(usize),
    /// A version 2 block (each basement one chunk), which only tests of older formats want.
    #[cfg(test)]
    Version2,
}

impl<'a> Written<'a> {
    fn version(self) -> u16 {
        match self {
            Written::Current(..) => FORMAT_VERSION as u16,
            #[cfg(test)]
            Written::Version5(_) => 5,
            #[cfg(test)]
            Written::Version2 => 2,
        }
    }
    /// Frame size and style of a leaf's basements (None: one chunk each).
    fn frames(self) -> Option<(usize, FrameStyle<'a>)> {
        match self {
            Written::Current(bytes, layout) => Some((bytes, FrameStyle::Tagged(layout))),
            #[cfg(test)]
            Written::Version5(bytes) => Some((bytes, FrameStyle::Untagged)),
            #[cfg(test)]
            Written::Version2 => None,
        }
    }
}

fn encode_as(
    node: &Node,
    blocknum: BlockNum,
    codec: Codec,
    level: i32,
    written: Written<'_>,
) -> EncodedNode {
    let mut frame_count = (0usize, 0usize);
    let mut reused = 0;
    let mut meta = Vec::new();
    for p in node.pivots().iter() {
        meta.put_bytes(p);
    }
    let (stored_parts, filters): (Vec<StoredPart>, Vec<Option<Arc<KeyFilter>>>) = match node {
        Node::Leaf { basements, .. } => basements
            .iter()
            .map(|slot| {
                let b = slot
                    .loaded
                    .as_ref()
                    .expect("encode needs a fully loaded leaf");
                if let (Written::Current(..), Some(copy)) = (written, slot.current_copy()) {
                    // Unchanged since the node's last block: its bytes again (TREE6).
                    reused += 1;
                    frame_count.0 += copy.parts.frames;
                    frame_count.1 += copy.parts.columnar;
                    let filter = copy
                        .parts
                        .filter
                        .clone()
                        .unwrap_or_else(|| Arc::new(b.key_filter()));
                    let stored = (
                        Cow::Borrowed(&copy.parts.bytes[..]),
                        copy.parts.crc,
                        copy.parts.raw_len as usize,
                    );
                    return (stored, Some(filter));
                }
                let filter = Some(Arc::new(match written {
                    Written::Current(..) => b.key_filter(),
                    #[cfg(test)]
                    _ => b.bloom_filter(),
                }));
                let Some((frame_bytes, style)) = written.frames() else {
                    let raw = b.encode();
                    let (stored, crc) = chunk(codec, level, &raw);
                    return ((Cow::Owned(stored), crc, raw.len()), filter);
                };
                let (raw, cuts) = b.encode_cut(frame_bytes);
                let (stored, col) = frames::encode(&raw, b.len(), &cuts, codec, level, style);
                frame_count.0 += cuts.len();
                frame_count.1 += col;
                let crc = crc32c::crc32c(&stored);
                ((Cow::Owned(stored), crc, raw.len()), filter)
            })
            .unzip(),
        Node::Internal {
            children, buffers, ..
        } => {
            for c in children {
                meta.put_u64(*c);
            }
            buffers
                .iter()
                .map(|b| {
                    let raw = b.get().encode();
                    let stored = match written {
                        Written::Current(_, layout) => {
                            buffer_chunk::store(&raw, codec, level, layout).0
                        }
                        #[cfg(test)]
                        _ => chunk(codec, level, &raw).0,
                    };
                    let crc = crc32c::crc32c(&stored);
                    (
                        (Cow::Owned(stored), crc, raw.len()),
                        b.get().key_filter().map(Arc::new),
                    )
                })
                .unzip()
        }
    };
    let mut filter_chunk = Vec::new();
    for f in &filters {
        filter_chunk.put_bytes(&f.as_ref().map_or_else(Vec::new, |f| f.encode()));
    }
    let filter_crc = crc32c::crc32c(&filter_chunk);
    let n = stored_parts.len();
    let (meta_stored, meta_crc) = chunk(codec, level, &meta);
    let prefix_len = HEADER_BYTES + n * DIR_ENTRY_BYTES + meta_stored.len() + filter_chunk.len();
    let mut parts = Vec::with_capacity(n);
    let mut off = prefix_len;
    for (s, c, raw_len) in &stored_parts {
        parts.push(PartLoc {
            offset: off as u32,
            stored_len: s.len() as u32,
            raw_len: *raw_len as u32,
            crc: *c,
            codec,
            framed: node.is_leaf() && written.frames().is_some(),
            tagged: matches!(written, Written::Current(..)),
        });
        off += s.len();
    }
    let mut out = Vec::with_capacity(off);
    out.extend_from_slice(MAGIC);
    out.put_u16(written.version());
    out.put_u8(if node.is_leaf() {
        KIND_LEAF
    } else {
        KIND_INTERNAL
    });
    out.put_u8(codec as u8);
    out.put_u32(node.height());
    out.put_u32(n as u32);
    out.put_u64(blocknum);
    out.put_u32(meta_stored.len() as u32);
    out.put_u32(meta.len() as u32);
    out.put_u32(meta_crc);
    out.put_u32(filter_chunk.len() as u32);
    out.put_u32(filter_crc);
    for p in &parts {
        out.put_u32(p.offset);
        out.put_u32(p.stored_len);
        out.put_u32(p.raw_len);
        out.put_u32(p.crc);
    }
    let mut crc = crc32c::crc32c(&out[..44]);
    crc = crc32c::crc32c_append(crc, &out[44..]);
    out.splice(44..44, crc.to_le_bytes());
    debug_assert_eq!(out.len(), HEADER_BYTES + n * DIR_ENTRY_BYTES);
    out.extend_from_slice(&meta_stored);
    out.extend_from_slice(&filter_chunk);
    for (s, _, _) in stored_parts {
        out.extend_from_slice(&s);
    }
    EncodedNode {
        bytes: out,
        prefix_len: prefix_len as u32,
        parts,
        filters,
        frames: frame_count.0,
        columnar_frames: frame_count.1,
        reused,
    }
}

fn err(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

/// Length of the header + directory, readable from the first [`HEADER_BYTES`] bytes.
pub fn header_and_dir_len(head: &[u8]) -> Result<usize, DecodeError> {
    let mut d = Decoder::new(head);
    d.take(12)?;
    let n = d.u32()?;
    if n == 0 || n > MAX_PARTS {
        return Err(err(format!("bad partition count {n}")));
    }
    Ok(HEADER_BYTES + n as usize * DIR_ENTRY_BYTES)
}

/// Decodes the prefix of a block (at least `prefix_len` bytes of it).
pub fn decode_prefix(buf: &[u8], blocknum: BlockNum) -> Result<NodePrefix, DecodeError> {
    let mut d = Decoder::new(buf);
    if d.take(4)? != MAGIC {
        return Err(err("bad node magic"));
    }
    let version = d.u16()?;
    if !readable(u32::from(version)) {
        return Err(err(format!("node format version {version}")));
    }
    let kind = d.u8()?;
    let codec = d.u8()?;
    let codec = Codec::from_u8(codec).ok_or_else(|| err(format!("unknown codec {codec}")))?;
    let height = d.u32()?;
    let n = d.u32()?;
    if n == 0 || n > MAX_PARTS {
        return Err(err(format!("bad partition count {n}")));
    }
    let stored_bn = d.u64()?;
    let meta_stored = d.u32()? as usize;
    let meta_raw = d.u32()? as usize;
    let meta_crc = d.u32()?;
    let filters_len = d.u32()? as usize;
    let filters_crc = d.u32()?;
    let header_crc = d.u32()?;
    let dir_len = n as usize * DIR_ENTRY_BYTES;
    let dir = d.take(dir_len)?;
    let mut crc = crc32c::crc32c(&buf[..44]);
    crc = crc32c::crc32c_append(crc, dir);
    if crc != header_crc {
        return Err(err("node header checksum mismatch"));
    }
    if stored_bn != blocknum {
        return Err(err(format!(
            "block holds node {stored_bn}, expected node {blocknum}"
        )));
    }
    if (kind == KIND_LEAF) != (height == 0) || kind > KIND_INTERNAL {
        return Err(err(format!("node kind {kind} with height {height}")));
    }
    let mut parts = Vec::with_capacity(n as usize);
    let mut dd = Decoder::new(dir);
    for _ in 0..n {
        parts.push(PartLoc {
            offset: dd.u32()?,
            stored_len: dd.u32()?,
            raw_len: dd.u32()?,
            crc: dd.u32()?,
            codec,
            framed: kind == KIND_LEAF && version >= 3,
            tagged: if kind == KIND_LEAF {
                version >= 6
            } else {
                version >= 7
            },
        });
    }
    let meta_stored_bytes = d.take(meta_stored)?;
    if crc32c::crc32c(meta_stored_bytes) != meta_crc {
        return Err(err("node meta chunk checksum mismatch"));
    }
    let meta = if meta_raw == 0 {
        Vec::new()
    } else {
        codec
            .decompress(meta_stored_bytes, meta_raw)
            .map_err(|e| err(format!("meta chunk: {e}")))?
    };
    let mut m = Decoder::new(&meta);
    let mut pivots = Vec::with_capacity(n as usize - 1);
    for _ in 1..n {
        pivots.push(m.bytes()?.to_vec());
    }
    if pivots.windows(2).any(|w| w[0] >= w[1]) {
        return Err(err("pivots not strictly increasing"));
    }
    let mut children = Vec::new();
    if kind == KIND_INTERNAL {
        for _ in 0..n {
            children.push(m.u64()?);
        }
    }
    m.finish()?;
    let filters = decode_filters(d.take(filters_len)?, filters_crc, n as usize)?;
    Ok(NodePrefix {
        height,
        codec,
        pivots,
        children,
        parts,
        filters,
    })
}

/// Decodes the filter chunk: `n` entries (an empty chunk, as version 1 blocks have: no filters).
fn decode_filters(
    chunk: &[u8],
    crc: u32,
    n: usize,
) -> Result<Vec<Option<Arc<KeyFilter>>>, DecodeError> {
    if crc32c::crc32c(chunk) != crc {
        return Err(err("node filter chunk checksum mismatch"));
    }
    if chunk.is_empty() {
        return Ok(vec![None; n]);
    }
    let mut d = Decoder::new(chunk);
    let mut filters = Vec::with_capacity(n);
    for _ in 0..n {
        let raw = d.bytes()?;
        filters.push(if raw.is_empty() {
            None
        } else {
            Some(Arc::new(KeyFilter::decode(raw)?))
        });
    }
    d.finish()?;
    Ok(filters)
}

/// Checks and decompresses one partition, given the bytes at its place.
pub fn decode_part_bytes(stored: &[u8], loc: &PartLoc) -> Result<Vec<u8>, DecodeError> {
    if stored.len() != loc.stored_len as usize {
        return Err(err("partition length mismatch"));
    }
    if crc32c::crc32c(stored) != loc.crc {
        return Err(err(format!(
            "partition checksum mismatch at offset {}",
            loc.offset
        )));
    }
    if loc.framed {
        return frames::decode_all(stored, loc.codec, loc.raw_len as usize, loc.tagged)
            .map_err(|e| err(format!("partition at offset {}: {e}", loc.offset)));
    }
    if loc.tagged {
        return buffer_chunk::load(stored, loc.codec, loc.raw_len as usize)
            .map_err(|e| err(format!("partition at offset {}: {e}", loc.offset)));
    }
    if loc.raw_len == 0 {
        return Ok(Vec::new());
    }
    loc.codec
        .decompress(stored, loc.raw_len as usize)
        .map_err(|e| err(format!("partition at offset {}: {e}", loc.offset)))
}

fn part_slice<'a>(block: &'a [u8], loc: &PartLoc) -> Result<&'a [u8], DecodeError> {
    let start = loc.offset as usize;
    let end = start
        .checked_add(loc.stored_len as usize)
        .ok_or_else(|| err("partition place overflows"))?;
    block
        .get(start..end)
        .ok_or_else(|| err("partition lies outside the block"))
}

/// Checks a whole block's checksums without decompressing its partitions: the header, directory, meta and
/// filter chunks (as [`decode_prefix`] does) and each partition's stored bytes. A backup checks every block
/// it copies this way (design.md, "Online backup and restore").
pub fn check_block(block: &[u8], blocknum: BlockNum) -> Result<(), DecodeError> {
    let prefix = decode_prefix(block, blocknum)?;
    for loc in &prefix.parts {
        if crc32c::crc32c(part_slice(block, loc)?) != loc.crc {
            return Err(err(format!(
                "partition checksum mismatch at offset {}",
                loc.offset
            )));
        }
    }
    Ok(())
}

/// Decodes a basement from the whole block bytes.
pub fn decode_basement(block: &[u8], loc: &PartLoc) -> Result<Basement, DecodeError> {
    let raw = decode_part_bytes(part_slice(block, loc)?, loc)?;
    Basement::decode_owned(raw)
}

/// Decodes a message buffer from the whole block bytes.
pub fn decode_buffer(block: &[u8], loc: &PartLoc) -> Result<Buffer, DecodeError> {
    let raw = decode_part_bytes(part_slice(block, loc)?, loc)?;
    Buffer::decode(&raw)
}

/// Decodes a whole block into a node, with every partition loaded unless `lazy` is set, in which case none
/// is (they are read on demand).
pub fn decode_node(block: &[u8], blocknum: BlockNum, lazy: bool) -> Result<Node, DecodeError> {
    let prefix = decode_prefix(block, blocknum)?;
    if prefix.height == 0 {
        let mut basements = Vec::with_capacity(prefix.parts.len());
        for (loc, filter) in prefix.parts.iter().zip(&prefix.filters) {
            let loaded = if lazy {
                None
            } else {
                Some(Arc::new(decode_basement(block, loc)?))
            };
            basements.push(BasementSlot {
                loaded,
                part: Some(*loc),
                filter: filter.clone(),
                cold_reads: Default::default(),
                stored: None,
            });
        }
        Ok(Node::Leaf {
            pivots: prefix.pivots.into(),
            basements,
        })
    } else {
        let mut buffers = Vec::with_capacity(prefix.parts.len());
        for (loc, filter) in prefix.parts.iter().zip(&prefix.filters) {
            let loaded = if lazy {
                None
            } else {
                Some(Arc::new(decode_buffer(block, loc)?))
            };
            buffers.push(BufferSlot {
                loaded,
                part: Some(*loc),
                filter: filter.clone(),
                cold_reads: Default::default(),
                stored: None,
            });
        }
        Ok(Node::Internal {
            height: prefix.height,
            pivots: prefix.pivots.into(),
            children: prefix.children,
            buffers,
        })
    }
}

#[cfg(test)]
#[path = "node_codec_tests.rs"]
mod tests;
