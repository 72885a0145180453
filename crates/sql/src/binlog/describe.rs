//! SHOW BINLOG EVENTS' Info column for an event, in MariaDB's words.

use super::codes::{event, ROWS_STMT_END};
use super::reader::{gtid_list_of, gtid_of, RawEvent};

/// The Info text of `ev` (`checksum`: its file has CRC32 trailers).
pub fn info(ev: &RawEvent<'_>, checksum: bool) -> String {
    let b = ev.body(checksum);
    let u64_at = |i: usize| {
        b.get(i..i + 8)
            .map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap_or_default()))
    };
    let u48_at = |i: usize| {
        b.get(i..i + 6).map_or(0, |s| {
            let mut w = [0u8; 8];
            w[..6].copy_from_slice(s);
            u64::from_le_bytes(w)
        })
    };
    match ev.header.type_code {
        event::FORMAT_DESCRIPTION => {
            let v = b.get(2..52).unwrap_or_default();
            let v = String::from_utf8_lossy(v.split(|&c| c == 0).next().unwrap_or_default());
            format!("Server ver: {v}, Binlog ver: 4")
        }
        event::GTID_LIST => {
            let list = gtid_list_of(ev, checksum).unwrap_or_default();
            let parts: Vec<String> = list.iter().map(ToString::to_string).collect();
            format!("[{}]", parts.join(","))
        }
        event::BINLOG_CHECKPOINT => {
            String::from_utf8_lossy(b.get(4..).unwrap_or_default()).into_owned()
        }
        event::GTID => match gtid_of(ev, checksum) {
            Some(g)
                if b.get(12)
                    .is_some_and(|f| f & super::codes::gtid_flag::STANDALONE != 0) =>
            {
                format!("GTID {g}")
            }
            Some(g) => format!("BEGIN GTID {g}"),
            None => String::new(),
        },
        event::QUERY => {
            let db_len = b.get(8).copied().unwrap_or(0) as usize;
            let status = b
                .get(11..13)
                .map_or(0, |s| u16::from_le_bytes([s[0], s[1]])) as usize;
            let db_at = 13 + status;
            let db = String::from_utf8_lossy(b.get(db_at..db_at + db_len).unwrap_or_default());
            let q = String::from_utf8_lossy(b.get(db_at + db_len + 1..).unwrap_or_default());
            if db.is_empty() {
                q.into_owned()
            } else {
                format!("use `{db}`; {q}")
            }
        }
        event::TABLE_MAP => {
            let n = b.get(8).copied().unwrap_or(0) as usize;
            let db = String::from_utf8_lossy(b.get(9..9 + n).unwrap_or_default());
            let m = b.get(10 + n).copied().unwrap_or(0) as usize;
            let t = String::from_utf8_lossy(b.get(11 + n..11 + n + m).unwrap_or_default());
            format!("table_id: {} ({db}.{t})", u48_at(0))
        }
        event::WRITE_ROWS_V1 | event::UPDATE_ROWS_V1 | event::DELETE_ROWS_V1 => {
            let flags = b.get(6..8).map_or(0, |s| u16::from_le_bytes([s[0], s[1]]));
            if flags & ROWS_STMT_END != 0 {
                format!("table_id: {} flags: STMT_END_F", u48_at(0))
            } else {
                format!("table_id: {}", u48_at(0))
            }
        }
        event::XID => format!("COMMIT /* xid={} */", u64_at(0)),
        event::ROTATE => format!(
            "{};pos={}",
            String::from_utf8_lossy(b.get(8..).unwrap_or_default()),
            u64_at(0)
        ),
        _ => String::new(),
    }
}
