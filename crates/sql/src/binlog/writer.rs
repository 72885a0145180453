//! Appending to the log's files: a group's events sealed at the current end, the ROTATE that
//! closes a full file, and a new file's header (magic, FORMAT_DESCRIPTION, GTID_LIST,
//! BINLOG_CHECKPOINT). Used by the running log and by recovery alike, so a group written
//! again after a crash gets the bytes it had (design.md BLG3).

use std::io::Write;
use std::time::SystemTime;

use super::codes::{event, FIRST_EVENT_POS, MAGIC};
use super::control::{self, Gtid};
use super::event::{seal, split_unsealed};
use super::files::{io_err, Naming};
use super::log::{BinlogConfig, FileMeta, State};
use crate::error::db_error::{DbError, DbResult};

pub(super) fn now_secs() -> u32 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32)
}

pub(super) struct Writer<'a> {
    pub cfg: &'a BinlogConfig,
    pub naming: &'a Naming,
}

impl Writer<'_> {
    /// Appends one group (unsealed events) at the end of the current file, rotating after it
    /// when the file has reached `max_binlog_size`.
    pub fn append(&self, st: &mut State, group: &[u8]) -> DbResult<()> {
        let events = split_unsealed(group)
            .ok_or_else(|| DbError::internal("binlog: a stored group does not parse"))?;
        let mut out = Vec::with_capacity(group.len() + 4 * events.len());
        let mut pos = st.cur_len;
        for ev in &events {
            if let Some(g) = gtid_in(ev) {
                st.last.insert(g.domain, g);
            }
            pos = seal(ev, pos, self.cfg.checksum, &mut out);
        }
        self.write_cur(st, &out)?;
        if st.cur_len >= self.cfg.max_size {
            self.rotate(st)?;
        }
        Ok(())
    }

    fn write_cur(&self, st: &mut State, bytes: &[u8]) -> DbResult<()> {
        let name = st.files.last().map(|f| f.name.clone()).unwrap_or_default();
        st.cur
            .write_all(bytes)
            .map_err(|e| io_err("write", &self.naming.path(&name), e))?;
        st.cur_len += bytes.len() as u64;
        st.dirty = true;
        Ok(())
    }

    /// Closes the current file with a ROTATE event (fsynced) and starts the next one.
    pub fn rotate(&self, st: &mut State) -> DbResult<()> {
        let cur = st.files.last().map(|f| f.name.clone()).unwrap_or_default();
        let n = self.naming.number(&cur).unwrap_or(0) + 1;
        let next = self.naming.file_name(n);
        let ev = control::rotate(self.cfg.server_id, now_secs(), &next, FIRST_EVENT_POS, 0);
        let mut out = Vec::new();
        seal(&ev, st.cur_len, self.cfg.checksum, &mut out);
        self.write_cur(st, &out)?;
        st.cur
            .sync_data()
            .map_err(|e| io_err("sync", &self.naming.path(&cur), e))?;
        self.start_file(st, &next)
    }

    /// Creates `name` with its header, fsynced, then lists it in the index; it becomes the
    /// current file.
    pub fn start_file(&self, st: &mut State, name: &str) -> DbResult<()> {
        let mut f = self.naming.open_at(name, 0)?;
        let start: Vec<Gtid> = st.last.values().copied().collect();
        let header = self.file_header(name, &start);
        f.write_all(&header)
            .map_err(|e| io_err("write", &self.naming.path(name), e))?;
        f.sync_data()
            .map_err(|e| io_err("sync", &self.naming.path(name), e))?;
        st.cur = f;
        st.cur_len = header.len() as u64;
        st.dirty = true;
        st.files.push(FileMeta {
            name: name.to_string(),
            start,
        });
        let names: Vec<String> = st.files.iter().map(|f| f.name.clone()).collect();
        self.naming.write_index(&names)
    }

    fn file_header(&self, name: &str, start: &[Gtid]) -> Vec<u8> {
        let (sid, ts) = (self.cfg.server_id, now_secs());
        let mut out = MAGIC.to_vec();
        let mut pos = FIRST_EVENT_POS;
        for ev in [
            control::format_description(sid, ts, &self.cfg.version, self.cfg.checksum),
            control::gtid_list(sid, ts, start),
            control::binlog_checkpoint(sid, ts, name),
        ] {
            pos = seal(&ev, pos, self.cfg.checksum, &mut out);
        }
        out
    }
}

/// The GTID of an unsealed GTID event.
fn gtid_in(ev: &[u8]) -> Option<Gtid> {
    (ev.len() >= 19 + 12 && ev[4] == event::GTID).then(|| Gtid {
        seq: u64::from_le_bytes(ev[19..27].try_into().unwrap_or_default()),
        domain: u32::from_le_bytes(ev[27..31].try_into().unwrap_or_default()),
        server_id: u32::from_le_bytes(ev[5..9].try_into().unwrap_or_default()),
    })
}
