//! Betula's storage engine: sorted key/value data in write-optimized Bε-trees.
//!
//! An [`Env`] is a directory with one write-ahead log, one node-cache budget and many named trees, each in
//! its own file. Keys and values are byte strings; keys compare bytewise. Every change is a message (put,
//! delete, upsert, range delete, broadcast) that enters at the root and moves down in batches; reads apply
//! pending messages on the way. See docs/design.md for the protocols and docs/file-format.md for the bytes.
//!
//! ```
//! use betula_storage::{Env, EnvOptions, UpdateRegistry};
//! let dir = tempfile::tempdir().unwrap();
//! let env = Env::open(dir.path(), EnvOptions::default(), UpdateRegistry::new()).unwrap();
//! let t = env.create_tree("demo", None).unwrap();
//! t.put(b"k", b"v").unwrap();
//! assert_eq!(t.get(b"k").unwrap(), Some(b"v".to_vec()));
//! ```

// No unsafe code but one system call that rustix lacks (`vfs/real.rs`, `write_out`).
#![deny(unsafe_code)]

pub mod block;
pub mod cache_budget;
pub mod compress;
pub mod encoding;
pub mod env;
pub mod error;
pub mod format;
pub mod health;
pub mod latency;
pub mod tree;
pub mod txn;
pub mod vfs;
pub mod wal;

pub use compress::Codec;
pub use env::backup::{
    restore_backup, BackupOptions, BackupProgress, BackupSummary, RestoreSummary,
};
pub use env::{
    verify_environment, Durability, Env, EnvOptions, EnvStats, ExportStats, SortedRows, TreeHandle,
    VerifyReport,
};
pub use error::{Error, Result};
pub use latency::{LatencyHistogram, LatencySnapshot, BUCKET_BOUNDS_MICROS};
pub use tree::format::columnar::{ColumnLayout, FieldKind, KeyField, ValueLayout};
pub use tree::in_memory::message::{Op, UpdateRegistry};
pub use tree::operations::cursor::RangeIter;
pub use tree::operations::sample::{SampleOptions, SampledRun, TreeSample};
pub use tree::options::TreeOptions;
pub use tree::BuildStats;
pub use tree::TreeStats;
pub use txn::locks::WaitCancel;
pub use txn::{Isolation, Txn, TxnOptions};
