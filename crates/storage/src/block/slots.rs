//! Two alternating checksummed header slots at the start of a file (file-format.md §1 and §3.1).
//!
//! A slot is `magic (8) | format version (4) | payload | CRC-32C of everything before it`, zero-padded to
//! [`HEADER_SLOT_BYTES`]. Writers write the slot `seq % 2`, so the previously valid slot survives a torn
//! write; readers take the valid slot with the higher sequence number in its payload.

use crate::format::{FORMAT_VERSION, HEADER_SLOT_BYTES};
use crate::vfs::VfsFile;
use std::io;

/// Encodes a slot.
pub fn encode_slot(magic: &[u8; 8], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_SLOT_BYTES as usize);
    out.extend_from_slice(magic);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    assert!(out.len() <= HEADER_SLOT_BYTES as usize);
    out.resize(HEADER_SLOT_BYTES as usize, 0);
    out
}

/// Writes slot `seq % 2` (not synced).
pub fn write_slot(file: &dyn VfsFile, seq: u64, slot: &[u8]) -> io::Result<()> {
    file.write_all_at(slot, (seq % 2) * HEADER_SLOT_BYTES)
}

/// What one slot holds.
pub enum SlotState {
    /// Never written (all zero or beyond the end of the file).
    Empty,
    /// Magic and checksum check out.
    Valid { version: u32, payload: Vec<u8> },
    /// Something is there but it does not check out.
    Invalid,
}

/// Reads both slots.
pub fn read_slots(
    file: &dyn VfsFile,
    magic: &[u8; 8],
    payload_len: usize,
) -> io::Result<[SlotState; 2]> {
    let len = file.len()?;
    let mut out = [SlotState::Empty, SlotState::Empty];
    for (i, state) in out.iter_mut().enumerate() {
        let off = i as u64 * HEADER_SLOT_BYTES;
        if len < off + HEADER_SLOT_BYTES {
            continue;
        }
        let mut buf = vec![0u8; HEADER_SLOT_BYTES as usize];
        file.read_exact_at(&mut buf, off)?;
        if buf.iter().all(|&b| b == 0) {
            continue;
        }
        let body = 12 + payload_len;
        let crc = u32::from_le_bytes(buf[body..body + 4].try_into().unwrap());
        if &buf[..8] != magic || crc32c::crc32c(&buf[..body]) != crc {
            *state = SlotState::Invalid;
            continue;
        }
        *state = SlotState::Valid {
            version: u32::from_le_bytes(buf[8..12].try_into().unwrap()),
            payload: buf[12..body].to_vec(),
        };
    }
    Ok(out)
}

/// Reads both slots of `file` and returns the newest valid payload (by `seq_of`) with the format version
/// its slot was written in, None if both slots are empty, or an error: unsupported version, or slots
/// present but none valid (corruption naming `path`).
pub fn newest_valid<T>(
    file: &dyn VfsFile,
    path: &str,
    magic: &[u8; 8],
    payload_len: usize,
    decode: impl Fn(&[u8]) -> T,
    seq_of: impl Fn(&T) -> u64,
) -> crate::error::Result<Option<(T, u32)>> {
    use crate::error::Error;
    let slots = read_slots(file, magic, payload_len)
        .map_err(|e| Error::io("read header", path.to_string(), e))?;
    let mut best: Option<(T, u32)> = None;
    let mut invalid = 0;
    for s in slots {
        match s {
            SlotState::Valid { version, payload } => {
                if !crate::format::readable(version) {
                    return Err(Error::UnsupportedVersion {
                        file: path.to_string(),
                        found: version,
                        supported: FORMAT_VERSION,
                    });
                }
                let h = decode(&payload);
                if best.as_ref().is_none_or(|(b, _)| seq_of(&h) > seq_of(b)) {
                    best = Some((h, version));
                }
            }
            SlotState::Invalid => invalid += 1,
            SlotState::Empty => {}
        }
    }
    if best.is_none() && invalid > 0 {
        return Err(crate::corruption!(path, Some(0), "no valid header slot"));
    }
    Ok(best)
}
