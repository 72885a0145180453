//! One event's bytes: the 19-byte common header over a body, built *unsealed* (size = header +
//! body, end position 0, no checksum) and sealed when its place in a file is known
//! ([`seal`]: size and end position patched, CRC32 appended when checksums are on).
//!
//! Invariant: sealing is a pure function of (unsealed bytes, start position, checksum on), so
//! a group regenerated from the binlog tree after a crash has exactly the bytes it had
//! (design.md BLG3).

use super::codes::{CHECKSUM_LEN, HEADER_LEN};

/// An unsealed event: header (size = header + body) and body.
pub fn unsealed(type_code: u8, server_id: u32, timestamp: u32, flags: u16, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&timestamp.to_le_bytes());
    out.push(type_code);
    out.extend_from_slice(&server_id.to_le_bytes());
    out.extend_from_slice(&((HEADER_LEN + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// The sealed length of an unsealed event.
pub fn sealed_len(unsealed: &[u8], checksum: bool) -> usize {
    unsealed.len() + if checksum { CHECKSUM_LEN } else { 0 }
}

/// Appends `ev` (unsealed) to `out` as it lies at file position `pos`: size and end position
/// patched, CRC32 appended when `checksum`. Returns the end position.
pub fn seal(ev: &[u8], pos: u64, checksum: bool, out: &mut Vec<u8>) -> u64 {
    let start = out.len();
    let len = sealed_len(ev, checksum);
    let end = pos + len as u64;
    out.extend_from_slice(ev);
    out[start + 9..start + 13].copy_from_slice(&(len as u32).to_le_bytes());
    out[start + 13..start + 17].copy_from_slice(&(end as u32).to_le_bytes());
    if checksum {
        let crc = crc32fast::hash(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
    end
}

/// Splits a concatenation of unsealed events into events (each by its size field); None if
/// the bytes do not split exactly.
pub fn split_unsealed(mut bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        if bytes.len() < HEADER_LEN {
            return None;
        }
        let size = u32::from_le_bytes(bytes[9..13].try_into().ok()?) as usize;
        if size < HEADER_LEN || size > bytes.len() {
            return None;
        }
        out.push(&bytes[..size]);
        bytes = &bytes[size..];
    }
    Some(out)
}

/// The common header of a sealed event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub timestamp: u32,
    pub type_code: u8,
    pub server_id: u32,
    pub size: u32,
    pub end_pos: u32,
    pub flags: u16,
}

impl Header {
    pub fn parse(b: &[u8]) -> Option<Header> {
        if b.len() < HEADER_LEN {
            return None;
        }
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Some(Header {
            timestamp: u32_at(0),
            type_code: b[4],
            server_id: u32_at(5),
            size: u32_at(9),
            end_pos: u32_at(13),
            flags: u16::from_le_bytes([b[17], b[18]]),
        })
    }
}

/// A MySQL length-encoded integer.
pub fn put_lenenc(out: &mut Vec<u8>, n: u64) {
    if n < 251 {
        out.push(n as u8);
    } else if n < 1 << 16 {
        out.push(0xfc);
        out.extend_from_slice(&(n as u16).to_le_bytes());
    } else if n < 1 << 24 {
        out.push(0xfd);
        out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xfe);
        out.extend_from_slice(&n.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealing_patches_size_position_and_checksum() {
        let ev = unsealed(16, 7, 0x6b0ad58c, 0, &7u64.to_le_bytes());
        assert_eq!(ev.len(), 27);
        let mut out = Vec::new();
        let end = seal(&ev, 875, true, &mut out);
        assert_eq!(end, 906, "an XID event is 31 bytes with its checksum");
        let h = Header::parse(&out).unwrap();
        assert_eq!(
            (h.size, h.end_pos, h.type_code, h.server_id),
            (31, 906, 16, 7)
        );
        assert_eq!(
            u32::from_le_bytes(out[27..31].try_into().unwrap()),
            crc32fast::hash(&out[..27])
        );
        let mut plain = Vec::new();
        assert_eq!(seal(&ev, 4, false, &mut plain), 31);
        assert_eq!(plain.len(), 27);
        let two = [ev.clone(), ev.clone()].concat();
        assert_eq!(split_unsealed(&two).unwrap().len(), 2);
        assert!(split_unsealed(&two[..30]).is_none());
    }

    #[test]
    fn lenenc_boundaries() {
        for (n, len) in [(250u64, 1), (251, 3), (65535, 3), (65536, 4), (1 << 24, 9)] {
            let mut v = Vec::new();
            put_lenenc(&mut v, n);
            assert_eq!(v.len(), len, "{n}");
        }
    }
}
