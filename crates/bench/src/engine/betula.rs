//! Betula's storage engine: one environment, one tree named "bench", default tree options (4 MiB nodes,
//! 32 KiB basements, fanout 16, zstd).

use super::{BenchResult, DurabilityMode, Engine, EngineConfig};
use betula_storage::{Durability, Env, EnvOptions, Op, TreeHandle, UpdateRegistry};
use std::ops::Bound;
use std::path::Path;

pub struct BetulaEngine {
    env: Env,
    tree: TreeHandle,
    opts: EnvOptions,
}

impl BetulaEngine {
    pub fn open(dir: &Path, cfg: &EngineConfig) -> BenchResult<BetulaEngine> {
        let opts = EnvOptions {
            cache_bytes: cfg.cache_bytes,
            durability: match cfg.durability {
                DurabilityMode::Sync => Durability::Sync,
                DurabilityMode::Periodic(d) => Durability::Periodic(d),
                DurabilityMode::NoSync => Durability::NoSync,
            },
            default_tree: cfg.betula_tree.unwrap_or_default(),
            wal_recycle_segments: cfg
                .betula_wal_recycle
                .unwrap_or(EnvOptions::default().wal_recycle_segments),
            ..EnvOptions::default()
        };
        let env = Env::open(dir, opts.clone(), UpdateRegistry::new())?;
        let tree = env.create_tree("bench", None)?;
        Ok(BetulaEngine { env, tree, opts })
    }
}

impl Engine for BetulaEngine {
    fn write_batch(&self, rows: Vec<(Vec<u8>, Vec<u8>)>) -> BenchResult<()> {
        let ops = rows.into_iter().map(|(k, v)| (k, Op::Put(v))).collect();
        Ok(self.tree.write_batch(ops)?)
    }

    fn get(&self, key: &[u8]) -> BenchResult<Option<Vec<u8>>> {
        Ok(self.tree.get(key)?)
    }

    fn scan(&self, start: &[u8], limit: usize) -> BenchResult<(usize, usize)> {
        let mut rows = 0;
        let mut bytes = 0;
        for item in self
            .tree
            .range(Bound::Included(start), Bound::Unbounded, false)
            .take(limit)
        {
            let (k, v) = item?;
            rows += 1;
            bytes += k.len() + v.len();
        }
        Ok((rows, bytes))
    }

    fn settle(&self) -> BenchResult<()> {
        Ok(self.env.checkpoint()?)
    }

    fn background_events(&self) -> u64 {
        self.env.stats().checkpoints
    }

    fn extra_stats(&self) -> Vec<(String, String)> {
        let s = self.env.stats();
        let t = self.tree.stats();
        vec![
            ("checkpoints".into(), s.checkpoints.to_string()),
            (
                "last checkpoint ms".into(),
                s.last_checkpoint_ms.to_string(),
            ),
            (
                "node bytes written".into(),
                s.node_bytes_written.to_string(),
            ),
            (
                "wal bytes appended".into(),
                s.wal_bytes_appended.to_string(),
            ),
            (
                "wal bytes written (packed, compressed)".into(),
                s.wal_bytes_written.to_string(),
            ),
            ("wal segments".into(), s.wal_segments.to_string()),
            (
                "wal segments kept for reuse".into(),
                s.wal_free_segments.to_string(),
            ),
            (
                "wal spare segments made".into(),
                s.wal_spares_made.to_string(),
            ),
            ("node reads".into(), s.node_reads.to_string()),
            (
                "cache bytes held by internal nodes".into(),
                s.cache_internal_bytes.to_string(),
            ),
            ("cache used bytes".into(), s.cache_used_bytes.to_string()),
            ("tree height".into(), t.height.to_string()),
            ("tree file bytes".into(), t.file_bytes.to_string()),
            ("tree free bytes".into(), t.free_bytes.to_string()),
        ]
    }

    fn settings(&self) -> Vec<(String, String)> {
        let o = &self.opts;
        let t = &o.default_tree;
        vec![
            ("cache_bytes".into(), o.cache_bytes.to_string()),
            ("durability".into(), format!("{:?}", o.durability)),
            (
                "checkpoint_interval".into(),
                format!("{:?}", o.checkpoint_interval),
            ),
            (
                "checkpoint_log_bytes".into(),
                o.checkpoint_log_bytes.to_string(),
            ),
            ("wal_segment_bytes".into(), o.wal_segment_bytes.to_string()),
            ("wal_codec".into(), o.wal_codec.name().to_string()),
            (
                "wal_recycle_segments".into(),
                o.wal_recycle_segments.to_string(),
            ),
            ("node_size_bytes".into(), t.node_size_bytes.to_string()),
            (
                "basement_size_bytes".into(),
                t.basement_size_bytes.to_string(),
            ),
            ("fanout".into(), t.fanout.to_string()),
            ("codec".into(), format!("{:?} level {}", t.codec, t.level)),
        ]
    }

    fn version(&self) -> String {
        format!("betula-storage {}", env!("CARGO_PKG_VERSION"))
    }

    fn close(self: Box<Self>) -> BenchResult<()> {
        let BetulaEngine { env, tree, .. } = *self;
        drop(tree);
        Ok(env.close()?)
    }
}
