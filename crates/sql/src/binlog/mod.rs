//! The binary log in MariaDB's format (docs/design.md "Binary log", docs/file-format.md §
//! "Binary log files"): event encoders, the files and their index, the log that orders
//! committed groups into the files, its recovery from the binlog tree, and reading the files
//! back (SHOW BINLOG EVENTS, dump threads).
//!
//! | module | owns |
//! | --- | --- |
//! | `codes` | MariaDB's event type, column type and flag numbers (the only place they are written) |
//! | `event` | one event's header, sealing (size, end position, CRC32), splitting unsealed groups |
//! | `control` | FORMAT_DESCRIPTION, GTID_LIST, BINLOG_CHECKPOINT, GTID, XID, ROTATE, HEARTBEAT; [`Gtid`] |
//! | `query` | the QUERY event (DDL) |
//! | `column_type` | a column's TABLE_MAP type code and metadata |
//! | `table_map` | the TABLE_MAP event |
//! | `row_image` | row values in MariaDB's binary row format |
//! | `rows` | WRITE/UPDATE/DELETE_ROWS (v1) events |
//! | `group` | a transaction's and a DDL statement's event group; the row-image policy |
//! | `files` | file names, the index, file operations |
//! | `writer` | appending groups, rotating, new files' headers |
//! | `log` | [`Binlog`]: sequence numbers, ordering, syncing and pruning the tree, purge, reset |
//! | `recovery` | cutting the files back to the marker and writing the tree's groups again |
//! | `reader` | reading a file's events back, checked |
//! | `describe` | SHOW BINLOG EVENTS' Info column |
//! | `dump` | a dump thread: from a file position or a GTID position to the live end |

pub mod codes;
pub mod column_type;
pub mod control;
pub mod describe;
pub mod dump;
pub mod event;
pub mod files;
pub mod group;
pub mod log;
pub mod query;
pub mod reader;
mod recovery;
pub mod row_image;
pub mod rows;
pub mod table_map;
mod writer;

pub use control::Gtid;
pub use log::{Binlog, BinlogConfig};
