//! Opening the log after a start or a crash: the files are cut back to the marker (the last
//! place known durable in a file, with every group before it gone from the tree) and every
//! group still in the binlog tree is appended again, in sequence order, so that afterwards the
//! files hold exactly the committed transactions (design.md BLG3).

use std::collections::BTreeMap;
use std::ops::Bound;

use betula_storage::TreeHandle;

use super::control::Gtid;
use super::files::{io_err, Naming};
use super::log::{decode_marker, group_key, BinlogConfig, FileMeta, State, MARKER_KEY};
use super::reader::{gtid_list_of, EventReader};
use super::writer::Writer;
use crate::error::db_error::{DbError, DbResult};

/// The recovered state: files cut to the marker, groups after it appended again.
pub(super) fn recover(cfg: &BinlogConfig, naming: &Naming, tree: &TreeHandle) -> DbResult<State> {
    let listed = naming.read_index()?;
    let marker = match tree.get(MARKER_KEY)? {
        Some(v) => Some(decode_marker(&v).ok_or_else(|| DbError::internal("binlog: bad marker"))?),
        None => None,
    };
    for stray in naming.strays(&listed) {
        naming.remove(&stray)?;
    }
    let log = Recovering { cfg, naming };
    let (mut st, last_seq) = match marker {
        Some((file, pos, last)) if listed.contains(&file) => log.cut_back(&listed, &file, pos, last)?,
        Some((_, _, last)) if listed.is_empty() => log.fresh(last)?,
        None if listed.is_empty() => log.fresh(None)?,
        Some((file, ..)) => {
            return Err(DbError::internal(format!(
                "binlog: the index does not list {file}, where the data says the log continues"
            )))
        }
        None => {
            return Err(DbError::internal(format!(
                "binlog: {} lists files but the data directory has no binlog position (files of another server?)",
                naming.file_name(0).trim_end_matches(".000000")
            )))
        }
    };
    // Groups still in the tree are after the marker: write them again.
    let lo = group_key(last_seq + 1);
    let mut groups = Vec::new();
    for kv in tree.range(Bound::Included(&lo[..]), Bound::Excluded(&b"h"[..]), false) {
        let (k, v) = kv?;
        let seq = u64::from_be_bytes(k[1..9].try_into().unwrap_or_default());
        groups.push((seq, v));
    }
    let max = groups.last().map_or(last_seq, |g| g.0).max(last_seq);
    st.next_seq = max + 1;
    st.next_write = max + 1;
    st.pruned_seq = last_seq;
    let writer = Writer { cfg, naming };
    for (_, g) in groups {
        writer.append(&mut st, &g)?;
    }
    Ok(st)
}

struct Recovering<'a> {
    cfg: &'a BinlogConfig,
    naming: &'a Naming,
}

impl Recovering<'_> {
    /// No files yet: the first one, starting after `last`.
    fn fresh(&self, last: Option<Gtid>) -> DbResult<(State, u64)> {
        let name = self.naming.file_name(1);
        let mut st = State::empty(self.naming.open_at(&name, 0)?);
        if let Some(g) = last {
            st.last.insert(g.domain, g);
        }
        Writer {
            cfg: self.cfg,
            naming: self.naming,
        }
        .start_file(&mut st, &name)?;
        Ok((st, last.map_or(0, |g| g.seq)))
    }

    /// Files up to `file` kept (it cut to `pos`), later ones deleted.
    fn cut_back(
        &self,
        listed: &[String],
        file: &str,
        pos: u64,
        last: Option<Gtid>,
    ) -> DbResult<(State, u64)> {
        let keep = listed.iter().position(|f| f == file).unwrap_or(0) + 1;
        let mut files = Vec::with_capacity(keep);
        for name in &listed[..keep] {
            files.push(FileMeta {
                name: name.clone(),
                start: start_state(self.naming, name),
            });
        }
        let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
        self.naming.write_index(&names)?;
        for gone in &listed[keep..] {
            self.naming.remove(gone)?;
        }
        let cur = self.naming.open_at(file, pos)?;
        cur.sync_all()
            .map_err(|e| io_err("sync", &self.naming.path(file), e))?;
        let mut cur = cur;
        use std::io::Seek;
        cur.seek(std::io::SeekFrom::End(0))
            .map_err(|e| io_err("seek", &self.naming.path(file), e))?;
        let mut st = State::empty(cur);
        st.files = files;
        st.cur_len = pos;
        let mut last_by_domain = BTreeMap::new();
        if let Some(g) = last {
            last_by_domain.insert(g.domain, g);
        }
        st.last = last_by_domain;
        Ok((st, last.map_or(0, |g| g.seq)))
    }
}

/// The GTID_LIST a file starts with (empty if it cannot be read).
pub(super) fn start_state(naming: &Naming, name: &str) -> Vec<Gtid> {
    let Ok(bytes) = std::fs::read(naming.path(name)) else {
        return Vec::new();
    };
    let Ok(mut r) = EventReader::new(&bytes) else {
        return Vec::new();
    };
    let checksum = r.checksum;
    r.by_ref()
        .take(3)
        .filter_map(Result::ok)
        .find_map(|e| gtid_list_of(&e, checksum))
        .unwrap_or_default()
}
