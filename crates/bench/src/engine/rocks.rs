//! RocksDB through the `rocksdb` crate, set up to match Betula: WAL on, the same durability, a block cache of
//! the same size, zstd on every level. Everything else is RocksDB's default (64 MiB memtables, which are
//! *not* charged to the block cache; no bloom filter — Betula has none either).

use super::{BenchResult, DurabilityMode, Engine, EngineConfig};
use rocksdb::{BlockBasedOptions, Cache, DBCompressionType, Options, WriteBatch, WriteOptions, DB};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The `rocksdb` crate version pinned in Cargo.toml.
pub const CRATE_VERSION: &str = "rocksdb crate 0.20.1 (librocksdb-sys 0.10.0+7.9.2 bindings)";

pub struct RocksEngine {
    db: Arc<DB>,
    opts: Options,
    write_opts: WriteOptions,
    durability: DurabilityMode,
    cache_bytes: u64,
    stop: Arc<AtomicBool>,
    syncer: Option<JoinHandle<()>>,
}

impl RocksEngine {
    pub fn open(dir: &Path, cfg: &EngineConfig) -> BenchResult<RocksEngine> {
        let cache = Cache::new_lru_cache(cfg.cache_bytes as usize)?;
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&cache);
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.set_compression_type(DBCompressionType::Zstd);
        opts.set_bottommost_compression_type(DBCompressionType::Zstd);
        opts.set_block_based_table_factory(&table);
        opts.set_max_background_jobs(2);
        opts.enable_statistics();
        let db = Arc::new(DB::open(&opts, dir)?);
        let mut write_opts = WriteOptions::default();
        write_opts.set_sync(cfg.durability == DurabilityMode::Sync);
        write_opts.disable_wal(false);
        let stop = Arc::new(AtomicBool::new(false));
        let syncer = match cfg.durability {
            DurabilityMode::Periodic(every) => {
                let db = db.clone();
                let stop = stop.clone();
                Some(std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(every);
                        if let Err(e) = db.flush_wal(true) {
                            eprintln!("rocksdb periodic WAL sync failed: {e}");
                        }
                    }
                }))
            }
            _ => None,
        };
        Ok(RocksEngine {
            db,
            opts,
            write_opts,
            durability: cfg.durability,
            cache_bytes: cfg.cache_bytes,
            stop,
            syncer,
        })
    }

    fn int_property(&self, name: &str) -> u64 {
        self.db.property_int_value(name).ok().flatten().unwrap_or(0)
    }

    /// A ticker's COUNT from the statistics dump ("rocksdb.compact.write.bytes COUNT : 123").
    fn ticker(stats: &str, name: &str) -> Option<u64> {
        stats.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?.trim_start();
            let rest = rest.strip_prefix("COUNT")?.trim_start().strip_prefix(':')?;
            rest.trim().parse().ok()
        })
    }

    pub fn stop_syncer(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.syncer.take() {
            let _ = h.join();
        }
    }
}

impl Engine for RocksEngine {
    fn write_batch(&self, rows: Vec<(Vec<u8>, Vec<u8>)>) -> BenchResult<()> {
        let mut b = WriteBatch::default();
        for (k, v) in &rows {
            b.put(k, v);
        }
        Ok(self.db.write_opt(b, &self.write_opts)?)
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<Vec<u8>>> {
        Ok(self.db.get(key)?)
    }

    fn scan(&self, start: &[u8], limit: usize) -> BenchResult<(usize, usize)> {
        let mut it = self.db.raw_iterator();
        it.seek(start);
        let mut rows = 0;
        let mut bytes = 0;
        while rows < limit && it.valid() {
            // Copy like Betula's iterator does, so both hand the caller owned rows.
            let k = it.key().map(<[u8]>::to_vec).unwrap_or_default();
            let v = it.value().map(<[u8]>::to_vec).unwrap_or_default();
            rows += 1;
            bytes += k.len() + v.len();
            it.next();
        }
        it.status()?;
        Ok((rows, bytes))
    }

    fn settle(&self) -> BenchResult<()> {
        self.db.flush()?;
        // Wait until no flush or compaction is pending or running.
        loop {
            let busy = self.int_property("rocksdb.compaction-pending")
                + self.int_property("rocksdb.num-running-compactions")
                + self.int_property("rocksdb.num-running-flushes")
                + self.int_property("rocksdb.mem-table-flush-pending");
            if busy == 0 {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn background_events(&self) -> u64 {
        self.int_property("rocksdb.num-running-compactions")
            + self.int_property("rocksdb.num-running-flushes")
    }

    fn extra_stats(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let stats = self.opts.get_statistics().unwrap_or_default();
        for t in [
            "rocksdb.flush.write.bytes",
            "rocksdb.compact.write.bytes",
            "rocksdb.compact.read.bytes",
            "rocksdb.wal.bytes",
            "rocksdb.wal.synced",
            "rocksdb.stall.micros",
            "rocksdb.block.cache.miss",
            "rocksdb.block.cache.hit",
        ] {
            if let Some(v) = Self::ticker(&stats, t) {
                out.push((t.to_string(), v.to_string()));
            }
        }
        for p in [
            "rocksdb.total-sst-files-size",
            "rocksdb.num-files-at-level0",
            "rocksdb.num-files-at-level1",
            "rocksdb.num-files-at-level2",
            "rocksdb.num-files-at-level3",
            "rocksdb.estimate-num-keys",
            "rocksdb.block-cache-usage",
        ] {
            out.push((p.to_string(), self.int_property(p).to_string()));
        }
        out
    }

    fn settings(&self) -> Vec<(String, String)> {
        vec![
            ("block_cache (LRU) bytes".into(), self.cache_bytes.to_string()),
            (
                "WriteOptions.sync".into(),
                (self.durability == DurabilityMode::Sync).to_string(),
            ),
            ("WAL".into(), "on".into()),
            (
                "periodic WAL sync".into(),
                match self.durability {
                    DurabilityMode::Periodic(d) => format!("flush_wal(sync) every {d:?}"),
                    _ => "none".into(),
                },
            ),
            ("compression".into(), "zstd (all levels, bottommost too)".into()),
            ("max_background_jobs".into(), "2".into()),
            (
                "other".into(),
                "RocksDB defaults (64 MiB write buffer outside the block cache, 4 KiB blocks, no bloom filter)"
                    .into(),
            ),
        ]
    }

    fn version(&self) -> String {
        let lib = std::process::Command::new("dpkg-query")
            .args(["-W", "-f", "${Version}", "librocksdb-dev"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_else(|| "unknown".into());
        format!("librocksdb {lib} (system library), {CRATE_VERSION}")
    }

    fn close(mut self: Box<Self>) -> BenchResult<()> {
        self.stop_syncer();
        self.db.flush_wal(true)?;
        Ok(())
    }
}

impl Drop for RocksEngine {
    fn drop(&mut self) {
        self.stop_syncer();
    }
}

#[cfg(test)]
mod tests {
    use super::RocksEngine;

    #[test]
    fn parses_ticker_lines() {
        let s = "rocksdb.block.cache.miss COUNT : 12\nrocksdb.compact.write.bytes COUNT : 4096\n";
        assert_eq!(
            RocksEngine::ticker(s, "rocksdb.compact.write.bytes"),
            Some(4096)
        );
        assert_eq!(RocksEngine::ticker(s, "rocksdb.block.cache.miss"), Some(12));
        assert_eq!(RocksEngine::ticker(s, "rocksdb.wal.bytes"), None);
    }
}
