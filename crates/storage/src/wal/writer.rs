//! The log writer with group commit (design.md, "Write-ahead log and durability").
//!
//! Appends go to an in-memory buffer under a mutex as packed-frame entries and get dense LSNs. One thread
//! at a time (the leader) takes the whole buffer, packs it into one frame (compressed with the log's codec
//! outside the mutex, file-format.md §4), writes it at the end of the current segment and, when asked to,
//! fsyncs; threads that want durability up to an LSN the leader covers simply wait for it. The buffer
//! always holds exactly the records after `written_lsn`, so a leader knows the frame's first LSN.
//! Segments roll over at the configured size; a new segment's name is made durable (directory fsync)
//! before anything is written to it.
//!
//! A failed write or fsync latches the environment (no fsync retry) and wakes every waiter with the error.

use super::record::{encode_message_entry, pack, Record};
use super::syncer::SyncRequests;
use super::{free_segment_name, segment_name};
use crate::compress::Codec;
use crate::error::{Error, Result};
use crate::health::Health;
use crate::tree::in_memory::message::{Msn, Op};
use crate::vfs::{Vfs, VfsFile};
use parking_lot::{Condvar, Mutex};
use std::path::PathBuf;
use std::sync::Arc;

/// Records [`Wal::append_messages`] encodes under one hold of the log's mutex.
const MESSAGES_PER_HOLD: usize = 256;

struct Segment {
    file: Arc<dyn VfsFile>,
    first_lsn: Msn,
    len: u64,
    /// The file's length when the segment began: writes below it overwrite (a reused file or a spare,
    /// SEG1, SPR1), writes past it grow the file.
    room: u64,
}

struct Inner {
    buf: Vec<u8>,
    next_lsn: Msn,
    /// Everything ≤ this is written to the OS.
    written_lsn: Msn,
    /// Everything ≤ this is durable.
    durable_lsn: Msn,
    /// A leader is writing.
    busy: bool,
    seg: Segment,
    /// Bytes of frames written to segments since the log started (after compression).
    bytes_written: u64,
    /// First LSNs of all segments on disk, ascending.
    segments: Vec<Msn>,
    bytes_appended: u64,
    /// Obsolete segment files kept for reuse (SEG1), at most `Wal::recycle_max`.
    free: Vec<PathBuf>,
    /// Segments started since the last retirement (the demand the pool of `free` serves, SEG3).
    started: usize,
    /// Spares written since the log started (SPR1-SPR5).
    spares: u64,
    /// Writing a spare failed; none is tried again (design.md SPR4).
    spares_stopped: bool,
    /// A running backup needs every segment holding records from this LSN on (design.md BKP2).
    hold: Option<Msn>,
}

/// The write-ahead log of an environment.
pub struct Wal {
    pub(super) vfs: Arc<dyn Vfs>,
    pub(super) dir: PathBuf,
    pub(super) segment_bytes: u64,
    /// Compression of packed frames.
    codec: Codec,
    /// Obsolete segments kept for reuse at most (SEG1).
    recycle_max: usize,
    health: Arc<Health>,
    inner: Mutex<Inner>,
    cond: Condvar,
    /// Early-sync requests served by the environment's log syncer thread (wal/syncer.rs).
    pub syncer: SyncRequests,
    /// How long each fsync of a log segment took (statistics).
    pub fsync_latency: crate::latency::LatencyHistogram,
}

/// Buffered bytes above which an append writes the buffer out even without a commit.
const BUFFER_FLUSH_BYTES: usize = 4 << 20;

impl Wal {
    /// Starts a log whose next record gets `next_lsn`, in a new segment; `segments` lists the segments that
    /// already exist (first LSNs, ascending), `free` the obsolete segment files found for reuse (SEG1), of
    /// which up to `recycle_max` are kept and the others removed.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        vfs: Arc<dyn Vfs>,
        dir: PathBuf,
        segment_bytes: u64,
        codec: Codec,
        recycle_max: usize,
        health: Arc<Health>,
        next_lsn: Msn,
        mut segments: Vec<Msn>,
        mut free: Vec<PathBuf>,
    ) -> Result<Wal> {
        while free.len() > recycle_max {
            let path = free.pop().expect("longer than recycle_max");
            vfs.remove(&path)
                .map_err(|e| Error::io("remove log segment", path.display().to_string(), e))?;
        }
        let seg = Self::new_segment(&*vfs, &dir, next_lsn, &mut free)?;
        if segments.last() != Some(&next_lsn) {
            segments.push(next_lsn);
        }
        Ok(Wal {
            vfs,
            dir,
            segment_bytes,
            codec,
            recycle_max,
            health,
            inner: Mutex::new(Inner {
                buf: Vec::with_capacity(1 << 16),
                next_lsn,
                written_lsn: next_lsn - 1,
                durable_lsn: next_lsn - 1,
                busy: false,
                seg,
                bytes_written: 0,
                segments,
                bytes_appended: 0,
                free,
                started: 0,
                spares: 0,
                spares_stopped: false,
                hold: None,
            }),
            cond: Condvar::new(),
            syncer: SyncRequests::default(),
            fsync_latency: Default::default(),
        })
    }

    /// Continues the log after `scan`, as recovery does, with a fresh health latch (tests).
    #[cfg(test)]
    pub(crate) fn start_after(
        vfs: Arc<dyn Vfs>,
        dir: PathBuf,
        segment_bytes: u64,
        codec: Codec,
        recycle_max: usize,
        scan: super::reader::LogScan,
    ) -> Result<Wal> {
        let health = Arc::new(Health::default());
        let (next, segments, free) = (scan.next_lsn, scan.segments, scan.free);
        Wal::start(
            vfs,
            dir,
            segment_bytes,
            codec,
            recycle_max,
            health,
            next,
            segments,
            free,
        )
    }

    /// Opens segment `first_lsn`: an obsolete segment file from `free` renamed (its old records stay in it
    /// and are overwritten, SEG1), else a new empty file.
    fn new_segment(
        vfs: &dyn Vfs,
        dir: &std::path::Path,
        first_lsn: Msn,
        free: &mut Vec<PathBuf>,
    ) -> Result<Segment> {
        let path = dir.join(segment_name(first_lsn));
        let mut reused = false;
        if !vfs.exists(&path) {
            if let Some(old) = free.pop() {
                vfs.rename(&old, &path)
                    .map_err(|e| Error::io("rename log segment", old.display().to_string(), e))?;
                reused = true;
            }
        }
        let file = vfs
            .open(&path, true)
            .map_err(|e| Error::io("create log segment", path.display().to_string(), e))?;
        let room = if reused {
            file.len()
                .map_err(|e| Error::io("stat log segment", path.display().to_string(), e))?
        } else {
            file.set_len(0)
                .map_err(|e| Error::io("truncate log segment", path.display().to_string(), e))?;
            0
        };
        vfs.sync_dir(dir)
            .map_err(|e| Error::io("fsync directory", dir.display().to_string(), e))?;
        Ok(Segment {
            file,
            first_lsn,
            len: 0,
            room,
        })
    }

    /// Appends a record; returns its LSN. Not durable until [`Wal::sync_to`] (or a later flush).
    pub fn append(&self, rec: &Record) -> Result<Msn> {
        self.append_group(std::slice::from_ref(rec))
    }

    /// Appends `recs` under one hold of the log's lock; returns the LSN of the last. The records sit
    /// together in the buffer, which a leader always writes whole as one packed frame, so they become
    /// durable together or not at all (design.md WAL3).
    pub fn append_group(&self, recs: &[Record]) -> Result<Msn> {
        let mut g = self.inner.lock();
        let before = g.buf.len();
        for rec in recs {
            g.next_lsn += 1;
            rec.encode_entry(&mut g.buf);
        }
        let lsn = g.next_lsn - 1;
        g.bytes_appended += (g.buf.len() - before) as u64;
        let big = g.buf.len() >= BUFFER_FLUSH_BYTES && !g.busy;
        drop(g);
        if big {
            self.flush(lsn, false)?;
        }
        Ok(lsn)
    }

    /// Appends `Record::Message { tree, txn, key, op }` for each of `msgs`, in order, and pushes each
    /// one's LSN to `lsns`: [`MESSAGES_PER_HOLD`] records per hold of the log's mutex, with the same
    /// flush of a full buffer as [`Wal::append`] between holds.
    pub fn append_messages(
        &self,
        tree: u64,
        txn: u64,
        msgs: &[(Vec<u8>, Op)],
        lsns: &mut Vec<Msn>,
    ) -> Result<()> {
        for group in msgs.chunks(MESSAGES_PER_HOLD) {
            let mut g = self.inner.lock();
            let before = g.buf.len();
            for (key, op) in group {
                lsns.push(g.next_lsn);
                g.next_lsn += 1;
                encode_message_entry(&mut g.buf, tree, txn, key, op);
            }
            g.bytes_appended += (g.buf.len() - before) as u64;
            let last = g.next_lsn - 1;
            let big = g.buf.len() >= BUFFER_FLUSH_BYTES && !g.busy;
            drop(g);
            if big {
                self.flush(last, false)?;
            }
        }
        Ok(())
    }

    /// The last LSN known durable.
    pub fn durable_lsn(&self) -> Msn {
        self.inner.lock().durable_lsn
    }

    /// The LSN the next record will get.
    pub fn next_lsn(&self) -> Msn {
        self.inner.lock().next_lsn
    }

    /// Bytes of records appended since the log was started, before packing and compression (the work a
    /// recovery would replay).
    pub fn bytes_appended(&self) -> u64 {
        self.inner.lock().bytes_appended
    }

    /// Bytes written to log segments since the log was started: packed frames, compressed.
    pub fn bytes_written(&self) -> u64 {
        self.inner.lock().bytes_written
    }

    /// Returns once everything up to `lsn` is durable (group commit).
    pub fn sync_to(&self, lsn: Msn) -> Result<()> {
        self.flush(lsn, true)
    }

    /// The log syncer thread's loop: serves early-sync requests until the syncer is stopped. A failed
    /// fsync latches the environment inside `sync_to`; the loop then waits for the next request.
    pub fn run_syncer(&self) {
        let mut done = 0;
        while let Some(lsn) = self.syncer.next(done) {
            let _ = self.sync_to(lsn);
            done = lsn;
        }
    }

    /// Makes everything appended so far durable.
    pub fn sync_all(&self) -> Result<()> {
        let last = self.inner.lock().next_lsn - 1;
        self.sync_to(last)
    }

    /// Makes everything appended so far durable and starts a new segment for what comes next (unless the
    /// current one is still empty). A checkpoint rolls the log right before its `Checkpoint` record, so
    /// every segment before the new one ends before the checkpoint's begin LSN and is deleted once the
    /// checkpoint is durable: the log on disk after a checkpoint holds only what came after its begin.
    pub fn roll(&self) -> Result<()> {
        self.flush_with(0, true, true)
    }

    /// Writes everything appended so far without syncing it (tests of torn, unsynced tails).
    #[cfg(test)]
    pub(crate) fn write_unsynced(&self) -> Result<()> {
        let last = self.inner.lock().next_lsn - 1;
        self.flush(last, false)
    }

    /// Writes (and with `durable`, fsyncs) at least up to `lsn`.
    fn flush(&self, lsn: Msn, durable: bool) -> Result<()> {
        self.flush_with(lsn, durable, false)
    }

    /// `flush`; with `roll`, also leads once itself (whatever is already durable) and starts a new
    /// segment after writing everything buffered.
    fn flush_with(&self, lsn: Msn, durable: bool, mut roll_now: bool) -> Result<()> {
        let mut g = self.inner.lock();
        loop {
            self.health.check()?;
            let done = if durable {
                g.durable_lsn
            } else {
                g.written_lsn
            };
            if done >= lsn && !roll_now {
                return Ok(());
            }
            if g.busy {
                self.cond.wait(&mut g);
                continue;
            }
            // Become the leader for everything buffered now: the records after `written_lsn`. While
            // `busy`, no other thread changes the segment; a file pooled meanwhile waits for the next write.
            g.busy = true;
            let buf = std::mem::take(&mut g.buf);
            let upto = g.next_lsn - 1;
            let first = g.written_lsn + 1;
            let file = g.seg.file.clone();
            let (offset, room, pooled) = (g.seg.len, g.seg.room, !g.free.is_empty());
            drop(g);
            let mut frame = Vec::new();
            if !buf.is_empty() {
                pack(first, upto + 1 - first, &buf, self.codec, &mut frame);
            }
            let end = offset + frame.len() as u64;
            // Past the file's end, a pooled file (reused or spare) takes the next write (SPR1).
            let roll = end >= self.segment_bytes || (roll_now && end > 0) || (end > room && pooled);
            roll_now = false;
            let need_sync = durable || roll;
            let result = self.write_out(&*file, &frame, offset, need_sync);
            g = self.inner.lock();
            g.busy = false;
            match result {
                Ok(()) => {
                    g.seg.len += frame.len() as u64;
                    g.bytes_written += frame.len() as u64;
                    g.written_lsn = upto;
                    if need_sync {
                        g.durable_lsn = upto;
                    }
                    if roll {
                        let first = upto + 1;
                        let inner = &mut *g;
                        match Self::new_segment(&*self.vfs, &self.dir, first, &mut inner.free) {
                            Ok(seg) => {
                                g.seg = seg;
                                g.segments.push(first);
                                g.started += 1;
                            }
                            Err(e) => {
                                self.cond.notify_all();
                                return Err(self.health.fail(e));
                            }
                        }
                    }
                    let mut reuse = buf;
                    reuse.clear();
                    if g.buf.is_empty() && reuse.capacity() <= 1 << 20 {
                        g.buf = reuse;
                    }
                    self.cond.notify_all();
                }
                Err(e) => {
                    self.cond.notify_all();
                    return Err(self.health.fail(e));
                }
            }
        }
    }

    fn write_out(&self, file: &dyn VfsFile, buf: &[u8], offset: u64, sync: bool) -> Result<()> {
        let name = || self.dir.display().to_string();
        if !buf.is_empty() {
            file.write_all_at(buf, offset)
                .map_err(|e| Error::io("write log", name(), e))?;
        }
        if sync {
            let began = std::time::Instant::now();
            file.sync().map_err(|e| Error::io("fsync log", name(), e))?;
            self.fsync_latency.record(began.elapsed());
        }
        Ok(())
    }

    /// Retires segments whose records all precede `lsn` (after a checkpoint with that replay LSN is
    /// durable): each is renamed into the pool of files to reuse while the pool holds fewer than
    /// `recycle_max` and fewer than the segments started since the last call, else deleted (SEG1, SEG3).
    pub fn delete_before(&self, lsn: Msn) -> Result<()> {
        let (doomed, room, surplus) = {
            let mut g = self.inner.lock();
            // A backup copying the log from its hold keeps those segments (BKP2).
            let lsn = g.hold.map_or(lsn, |h| h.min(lsn));
            let current = g.seg.first_lsn;
            let segs = g.segments.clone();
            let mut doomed = Vec::new();
            for w in segs.windows(2) {
                if w[1] <= lsn && w[0] != current {
                    doomed.push(w[0]);
                }
            }
            g.segments.retain(|s| !doomed.contains(s));
            let cap = self.recycle_max.min(std::mem::take(&mut g.started));
            let keep = cap.min(g.free.len());
            let surplus = g.free.split_off(keep);
            let room = cap - g.free.len();
            (doomed, room, surplus)
        };
        for path in surplus {
            self.vfs
                .remove(&path)
                .map_err(|e| Error::io("remove log segment", path.display().to_string(), e))?;
        }
        let mut kept = Vec::new();
        for (i, first) in doomed.into_iter().rev().enumerate() {
            let path = self.dir.join(segment_name(first));
            if i < room {
                let to = self.dir.join(free_segment_name(first));
                self.vfs
                    .rename(&path, &to)
                    .map_err(|e| Error::io("rename log segment", path.display().to_string(), e))?;
                kept.push(to);
            } else {
                self.vfs
                    .remove(&path)
                    .map_err(|e| Error::io("remove log segment", path.display().to_string(), e))?;
            }
        }
        self.inner.lock().free.extend(kept);
        Ok(())
    }

    /// The number to name a spare by, if one is wanted now: design.md SPR3, and unless `even_quiet` (SPR5),
    /// the current segment holds at least a sixteenth of a segment.
    pub(super) fn spare_wanted(&self, even_quiet: bool) -> Option<Msn> {
        let g = self.inner.lock();
        let busy = even_quiet || g.seg.len >= self.segment_bytes / 16;
        (self.recycle_max > 0 && !g.spares_stopped && g.free.is_empty() && busy)
            .then_some(g.next_lsn)
    }

    /// No more spares until the log is reopened (design.md SPR4).
    pub(super) fn stop_spares(&self) {
        self.inner.lock().spares_stopped = true;
    }

    /// Puts a written and fsynced spare into the pool.
    pub(super) fn add_spare(&self, path: PathBuf) {
        let mut g = self.inner.lock();
        g.free.push(path);
        g.spares += 1;
    }

    /// Spares written since the log started (SPR1-SPR5).
    pub fn spares_made(&self) -> u64 {
        self.inner.lock().spares
    }

    /// Obsolete segment files kept for reuse.
    pub fn free_count(&self) -> usize {
        self.inner.lock().free.len()
    }

    /// Number of segment files.
    pub fn segment_count(&self) -> usize {
        self.inner.lock().segments.len()
    }

    /// Keeps every segment holding records from `lsn` on until the hold is lifted (None), whatever the
    /// checkpoints retire meanwhile (design.md BKP2).
    pub fn hold_from(&self, lsn: Option<Msn>) {
        self.inner.lock().hold = lsn;
    }

    /// First LSNs of the segments on disk, ascending; the last is the one being written, every earlier one
    /// is complete and durable (a roll fsyncs a segment before it names the next).
    pub fn segment_firsts(&self) -> Vec<Msn> {
        self.inner.lock().segments.clone()
    }

    /// The directory holding the segments.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }
}
