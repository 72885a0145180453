//! Storage decoders: node blocks, basements, message buffers and columnar frames (the payloads inside a
//! node block, fuzzed directly because a block's checksum stops most mutations early), log frames, the
//! catalog and a tree's block table. A payload that decodes must encode back to bytes that decode to the
//! same encoding.

use betula_storage::block::table::TranslationTable;
use betula_storage::encoding::Decoder;
use betula_storage::env::Catalog;
use betula_storage::tree::format::columnar;
use betula_storage::tree::format::node_codec::{decode_node, decode_prefix};
use betula_storage::tree::in_memory::basement::Basement;
use betula_storage::tree::in_memory::buffer::Buffer;
use betula_storage::wal::record::Record;

/// The block number the node corpus was encoded with (a block names its own number).
pub const NODE_BLOCKNUM: u64 = 9;

pub fn node(data: &[u8]) -> Result<(), String> {
    let _ = decode_prefix(data, NODE_BLOCKNUM);
    let _ = decode_node(data, NODE_BLOCKNUM, false);
    let _ = decode_node(data, NODE_BLOCKNUM, true);
    Ok(())
}

pub fn basement(data: &[u8]) -> Result<(), String> {
    let Ok(b) = Basement::decode(data) else {
        return Ok(());
    };
    let once = b.encode();
    let again = Basement::decode(&once)
        .map_err(|e| format!("a decoded basement's encoding does not decode: {e}"))?;
    if again.encode() != once {
        return Err("a basement changed across encode and decode".into());
    }
    Ok(())
}

pub fn buffer(data: &[u8]) -> Result<(), String> {
    let Ok(b) = Buffer::decode(data) else {
        return Ok(());
    };
    let once = b.encode();
    let again = Buffer::decode(&once)
        .map_err(|e| format!("a decoded buffer's encoding does not decode: {e}"))?;
    if again.encode() != once {
        return Err("a buffer changed across encode and decode".into());
    }
    Ok(())
}

/// A columnar frame: what decodes is a frame's raw bytes, which the frame's own layout must encode
/// into a frame that decodes to the same raw bytes (when the layout fits any of its entries).
pub fn columnar(data: &[u8]) -> Result<(), String> {
    let Ok(raw) = columnar::decode(data) else {
        return Ok(());
    };
    let mut d = Decoder::new(data);
    let header = (|| {
        Ok::<_, betula_storage::encoding::DecodeError>((d.bytes()?.len(), d.varint()?, d.bytes()?))
    })();
    let (prefix_len, count, layout) =
        header.map_err(|e| format!("a decoded frame's header does not parse: {e}"))?;
    let layout = columnar::ColumnLayout::decode(layout)
        .map_err(|e| format!("a decoded frame's layout does not decode: {e}"))?;
    let Some(again) = columnar::encode(&raw, prefix_len, count as usize, &layout) else {
        return Ok(());
    };
    match columnar::decode(&again) {
        Ok(back) if back == raw => Ok(()),
        Ok(_) => Err("a frame's raw bytes changed across encode and decode".into()),
        Err(e) => Err(format!("a re-encoded frame does not decode: {e}")),
    }
}

/// A columnar message buffer: what decodes is a buffer's raw encoding, which the form's own layout
/// must encode into a form that decodes to the same raw bytes (when the layout fits any message).
pub fn columnar_buffer(data: &[u8]) -> Result<(), String> {
    let Ok((raw, layout)) = columnar::messages::decode_with_layout(data) else {
        return Ok(());
    };
    let Some(again) = columnar::messages::encode(&raw, &layout) else {
        return Ok(());
    };
    match columnar::messages::decode(&again) {
        Ok(back) if back == raw => Ok(()),
        Ok(_) => Err("a buffer's raw bytes changed across encode and decode".into()),
        Err(e) => Err(format!("a re-encoded buffer does not decode: {e}")),
    }
}

/// A log segment's bytes: frames decoded one after another, as recovery reads them.
pub fn log(data: &[u8]) -> Result<(), String> {
    let mut at = 0;
    while at < data.len() {
        match Record::decode_frame(&data[at..]) {
            Ok((_, _, used)) if used > 0 => at += used,
            _ => break,
        }
    }
    Ok(())
}

pub fn catalog(data: &[u8]) -> Result<(), String> {
    let Ok(c) = Catalog::decode(data) else {
        return Ok(());
    };
    let once = c.encode();
    let again = Catalog::decode(&once)
        .map_err(|e| format!("a decoded catalog's encoding does not decode: {e}"))?;
    if again.encode() != once {
        return Err("a catalog changed across encode and decode".into());
    }
    Ok(())
}

pub fn block_table(data: &[u8]) -> Result<(), String> {
    let _ = TranslationTable::decode(data, 1 << 30);
    Ok(())
}
