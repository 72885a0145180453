//! Typed errors of the storage engine.
//!
//! Corruption errors say which file and block failed which check, and carry the source line that detected
//! the problem, so a report can be traced to the exact check. I/O errors keep the operation and path.

use std::fmt;

/// Result type of the storage engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where corruption was found and which check found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptionReport {
    /// File the bad bytes were read from.
    pub file: String,
    /// Block (byte offset in the file) or other place in the file, if known.
    pub block: Option<u64>,
    /// What failed, e.g. "checksum mismatch in basement 3".
    pub what: String,
    /// The source file and line of the check that detected it.
    pub detected_at: &'static str,
}

impl fmt::Display for CorruptionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(b) = self.block {
            write!(f, " block at offset {b}")?;
        }
        write!(f, ": {} (detected at {})", self.what, self.detected_at)
    }
}

/// Errors returned by the storage engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O call failed.
    #[error("I/O error during {op} on {path}: {source}")]
    Io {
        op: &'static str,
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Bytes on disk failed a check.
    #[error("corruption: {0}")]
    Corruption(Box<CorruptionReport>),
    /// An earlier write or fsync failed; the environment refuses writes until it is reopened.
    #[error("environment failed earlier and refuses writes until reopened: {0}")]
    Poisoned(String),
    /// The environment has been closed.
    #[error("environment is closed")]
    Closed,
    /// No tree of that name exists.
    #[error("no tree named {0:?}")]
    NoSuchTree(String),
    /// A tree of that name exists already.
    #[error("a tree named {0:?} exists already")]
    TreeExists(String),
    /// An upsert or broadcast names a function that was not registered.
    #[error("update function {0} is not registered")]
    UnknownFunction(u32),
    /// A caller-supplied argument is out of bounds (key too long, bad option, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The on-disk format is newer or older than this build understands.
    #[error("unsupported format version {found} in {file} (this build reads version {supported})")]
    UnsupportedVersion {
        file: String,
        found: u32,
        supported: u32,
    },
    /// A row lock was not granted within the transaction's lock timeout.
    #[error("lock wait timeout exceeded")]
    LockTimeout,
    /// Waiting for a row lock would close a cycle of waiting transactions; this one was chosen to fail.
    #[error("deadlock found when trying to get lock")]
    Deadlock,
    /// A long operation (a backup) was cancelled by its caller.
    #[error("cancelled")]
    Cancelled,
    /// Another process holds the environment's lock.
    #[error("environment {0} is in use by another process")]
    Locked(String),
}

impl Error {
    /// Builds an I/O error.
    pub fn io(op: &'static str, path: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// Builds an I/O error of a block read or write: the path names the block's offset, as corruption
    /// reports do, so a failing disk region can be found from the message.
    pub fn io_at(op: &'static str, path: &str, offset: u64, source: std::io::Error) -> Error {
        Error::io(op, format!("{path} block at offset {offset}"), source)
    }
}

/// Builds an [`Error::Corruption`] that records the source line of the check.
#[macro_export]
macro_rules! corruption {
    ($file:expr, $block:expr, $($arg:tt)*) => {
        $crate::Error::Corruption(Box::new($crate::error::CorruptionReport {
            file: ($file).to_string(),
            block: $block,
            what: format!($($arg)*),
            detected_at: concat!(file!(), ":", line!()),
        }))
    };
}
