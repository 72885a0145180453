//! The binary log's readers (betula_sql::binlog): a file read back event by event as SHOW BINLOG
//! EVENTS and a dump thread read it (each event's Info text, its GTID or GTID list), and a stored
//! group split into its unsealed events as recovery splits it. An event the reader returns must
//! lie inside the input and end where the next one starts; a split group must add up to the input.

use betula_sql::binlog::describe::info;
use betula_sql::binlog::event::split_unsealed;
use betula_sql::binlog::reader::{gtid_list_of, gtid_of, EventReader};

/// Events read from one input before giving up (each consumes at least a header).
const MAX_EVENTS: usize = 100_000;

pub fn file(data: &[u8]) -> Result<(), String> {
    if let Some(events) = split_unsealed(data) {
        let total: usize = events.iter().map(|e| e.len()).sum();
        if total != data.len() {
            return Err(format!("split {total} of {} bytes", data.len()));
        }
    }
    let Ok(mut r) = EventReader::new(data) else {
        return Ok(());
    };
    let checksum = r.checksum;
    let mut expect = r.pos();
    for ev in r.by_ref().take(MAX_EVENTS) {
        let Ok(ev) = ev else { break };
        if ev.pos != expect || ev.pos as usize + ev.bytes.len() > data.len() {
            return Err(format!(
                "event at {} of {} bytes, expected at {expect}",
                ev.pos,
                ev.bytes.len()
            ));
        }
        expect = ev.pos + ev.bytes.len() as u64;
        let _ = info(&ev, checksum);
        let _ = gtid_of(&ev, checksum);
        let _ = gtid_list_of(&ev, checksum);
    }
    Ok(())
}
