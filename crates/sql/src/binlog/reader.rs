//! Reading a binlog file's events back (SHOW BINLOG EVENTS, the dump thread, the GTID index of
//! a file): the magic, then events one after another, each checked against its own size and
//! end position, and its CRC32 when the file's FORMAT_DESCRIPTION says so.
//!
//! Invariant: reading never panics and never reads past the bytes given; the first event that
//! does not check out ends the reading with an error naming its position.

use super::codes::{event, CHECKSUM_CRC32, CHECKSUM_LEN, FIRST_EVENT_POS, HEADER_LEN, MAGIC};
use super::control::Gtid;
use super::event::Header;

/// One event of a file: where it starts and its bytes (checksum included).
#[derive(Clone, Debug)]
pub struct RawEvent<'a> {
    pub pos: u64,
    pub header: Header,
    pub bytes: &'a [u8],
}

impl RawEvent<'_> {
    /// The body without header and checksum.
    pub fn body(&self, checksum: bool) -> &[u8] {
        let end = self.bytes.len() - if checksum { CHECKSUM_LEN } else { 0 };
        &self.bytes[HEADER_LEN.min(end)..end]
    }
}

/// Reads the events of `data` (a whole file or a prefix of one) from `from` on.
pub struct EventReader<'a> {
    data: &'a [u8],
    pos: u64,
    /// CRC32 trailers follow each event (learnt from the FORMAT_DESCRIPTION).
    pub checksum: bool,
}

impl<'a> EventReader<'a> {
    /// A reader of `data` from its first event; the magic is checked. `checksum` is learnt
    /// from the file's FORMAT_DESCRIPTION as soon as it is read.
    pub fn new(data: &'a [u8]) -> Result<EventReader<'a>, String> {
        if data.len() < 4 || &data[..4] != MAGIC {
            return Err("not a binlog file (bad magic)".into());
        }
        let mut r = EventReader {
            data,
            pos: FIRST_EVENT_POS,
            checksum: false,
        };
        // The FORMAT_DESCRIPTION decides the checksum of every event, itself included.
        if let Some(Ok(fde)) = r.peek() {
            if fde.header.type_code == event::FORMAT_DESCRIPTION {
                r.checksum = fde.bytes.len() >= HEADER_LEN + 57 + CHECKSUM_LEN
                    && fde.bytes[fde.bytes.len() - CHECKSUM_LEN - 1] == CHECKSUM_CRC32;
            }
        }
        Ok(r)
    }

    pub fn pos(&self) -> u64 {
        self.pos
    }
    /// Continues at `pos` (an event's start).
    pub fn seek(&mut self, pos: u64) {
        self.pos = pos;
    }

    fn peek(&self) -> Option<Result<RawEvent<'a>, String>> {
        let at = self.pos as usize;
        if at >= self.data.len() {
            return None;
        }
        let rest = &self.data[at..];
        let bad = |why: &str| Some(Err(format!("bad event at position {at}: {why}")));
        let Some(h) = Header::parse(rest) else {
            return bad("truncated header");
        };
        let size = h.size as usize;
        if size < HEADER_LEN || size > rest.len() {
            return bad("size past the end of the file");
        }
        if h.end_pos as u64 != self.pos + size as u64 && h.end_pos != 0 {
            return bad("end position does not match its size");
        }
        let bytes = &rest[..size];
        let check = self.checksum
            || (at == FIRST_EVENT_POS as usize
                && h.type_code == event::FORMAT_DESCRIPTION
                && bytes[size - CHECKSUM_LEN - 1] == CHECKSUM_CRC32);
        if check {
            if size < HEADER_LEN + CHECKSUM_LEN {
                return bad("too short for its checksum");
            }
            let (data, crc) = bytes.split_at(size - CHECKSUM_LEN);
            if crc32fast::hash(data).to_le_bytes() != crc {
                return bad("checksum mismatch");
            }
        }
        Some(Ok(RawEvent {
            pos: self.pos,
            header: h,
            bytes,
        }))
    }
}

impl<'a> Iterator for EventReader<'a> {
    type Item = Result<RawEvent<'a>, String>;
    fn next(&mut self) -> Option<Self::Item> {
        let r = self.peek()?;
        match &r {
            Ok(e) => self.pos += e.bytes.len() as u64,
            Err(_) => self.pos = self.data.len() as u64,
        }
        Some(r)
    }
}

/// The GTID a GTID event's body names.
pub fn gtid_of(ev: &RawEvent<'_>, checksum: bool) -> Option<Gtid> {
    let b = ev.body(checksum);
    (ev.header.type_code == event::GTID && b.len() >= 12).then(|| Gtid {
        seq: u64::from_le_bytes(b[..8].try_into().unwrap_or_default()),
        domain: u32::from_le_bytes(b[8..12].try_into().unwrap_or_default()),
        server_id: ev.header.server_id,
    })
}

/// The GTIDs a GTID_LIST event's body lists.
pub fn gtid_list_of(ev: &RawEvent<'_>, checksum: bool) -> Option<Vec<Gtid>> {
    let b = ev.body(checksum);
    if ev.header.type_code != event::GTID_LIST || b.len() < 4 {
        return None;
    }
    let n = (u32::from_le_bytes(b[..4].try_into().ok()?) & 0x0fff_ffff) as usize;
    let entries = b.get(4..4 + 16 * n)?;
    Some(
        entries
            .chunks(16)
            .map(|c| Gtid {
                domain: u32::from_le_bytes(c[..4].try_into().unwrap_or_default()),
                server_id: u32::from_le_bytes(c[4..8].try_into().unwrap_or_default()),
                seq: u64::from_le_bytes(c[8..16].try_into().unwrap_or_default()),
            })
            .collect(),
    )
}
