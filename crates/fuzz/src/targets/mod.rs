//! The fuzz targets: each takes arbitrary bytes and must return (never panic, never loop); an `Err` is a
//! wrong answer the target detected (a value that does not survive its own round trip).

pub mod binlog;
pub mod protocol;
pub mod sql;
pub mod storage;

/// One target.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]) -> Result<(), String>,
}

/// Every target, in the order `betula-fuzz all` runs them.
pub const ALL: &[Target] = &[
    Target {
        name: "node",
        run: storage::node,
    },
    Target {
        name: "basement",
        run: storage::basement,
    },
    Target {
        name: "buffer",
        run: storage::buffer,
    },
    Target {
        name: "columnar",
        run: storage::columnar,
    },
    Target {
        name: "columnar_buffer",
        run: storage::columnar_buffer,
    },
    Target {
        name: "log",
        run: storage::log,
    },
    Target {
        name: "catalog",
        run: storage::catalog,
    },
    Target {
        name: "block_table",
        run: storage::block_table,
    },
    Target {
        name: "row",
        run: sql::row,
    },
    Target {
        name: "key",
        run: sql::key,
    },
    Target {
        name: "sql",
        run: sql::statement,
    },
    Target {
        name: "packet",
        run: protocol::packet,
    },
    Target {
        name: "handshake",
        run: protocol::handshake,
    },
    Target {
        name: "execute",
        run: protocol::execute,
    },
    Target {
        name: "binlog",
        run: binlog::file,
    },
];

/// The target of a name.
pub fn by_name(name: &str) -> Option<&'static Target> {
    ALL.iter().find(|t| t.name == name)
}
