//! The corpus every run starts from, made with the encoders themselves (`betula-fuzz seed-corpus` writes
//! it under `crates/fuzz/corpus/<target>/`, where it is committed): valid node blocks under each codec,
//! basements, buffers with every message kind, columnar frames of the target tables' rows, log frames (single and packed), catalogs, block tables,
//! rows and keys of the target tables, statements, packets, handshakes and execute bodies.

use std::collections::{BTreeMap, HashMap};

use betula_sql::codec::key::encode_key;
use betula_sql::codec::row::encode_row;
use betula_sql::types::value::Value;
use betula_storage::block::table::{BlockLoc, TranslationTable};
use betula_storage::encoding::Encode;
use betula_storage::env::{Catalog, CatalogEntry};
use betula_storage::tree::format::columnar;
use betula_storage::tree::format::node_codec::encode;
use betula_storage::tree::in_memory::basement::Basement;
use betula_storage::tree::in_memory::buffer::Buffer;
use betula_storage::tree::in_memory::message::Message;
use betula_storage::tree::in_memory::mvcc::{Cell, Version};
use betula_storage::tree::in_memory::node::{BasementSlot, BufferSlot, Node};
use betula_storage::wal::record::{pack, Record};
use betula_storage::{Codec, Op, TreeOptions};

use crate::targets::sql::tables;
use crate::targets::storage::NODE_BLOCKNUM;

/// The seed inputs of a target (empty for an unknown name).
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    match target {
        "node" => nodes(),
        "basement" => vec![basement(3).encode(), basement(40).encode()],
        "buffer" => vec![buffer().encode()],
        "columnar" => columnar_frames(),
        "columnar_buffer" => columnar_buffers(),
        "log" => log(),
        "catalog" => vec![catalog().encode(), Catalog::default().encode()],
        "block_table" => vec![block_table()],
        "row" => rows().into_iter().map(|(_, b)| b).collect(),
        "key" => keys(),
        "sql" => STATEMENTS.iter().map(|s| s.as_bytes().to_vec()).collect(),
        "packet" => packets(),
        "handshake" => vec![handshake(true), handshake(false)],
        "execute" => executes(),
        "binlog" => binlog_files(),
        _ => Vec::new(),
    }
}

fn basement(n: u32) -> Basement {
    let entries = (0..n)
        .map(|i| {
            let key = format!("key{i:05}").into_bytes();
            let cell = if i % 3 == 0 {
                Cell::Versions(vec![
                    Version {
                        txn: 100 + u64::from(i),
                        value: Some(vec![b'a'; i as usize % 7]),
                    },
                    Version {
                        txn: 200 + u64::from(i),
                        value: None,
                    },
                ])
            } else {
                Cell::Plain(vec![i as u8; 5 + i as usize % 11])
            };
            (key, cell)
        })
        .collect();
    Basement::from_sorted(entries)
}

fn ops() -> Vec<Op> {
    vec![
        Op::Put(b"value".to_vec()),
        Op::Delete,
        Op::Upsert {
            func: 1,
            arg: 7u64.to_le_bytes().to_vec(),
        },
        Op::RangeDelete {
            end: b"zz".to_vec(),
        },
        Op::Broadcast {
            func: 2,
            arg: b"arg".to_vec(),
            end: Vec::new(),
        },
    ]
}

fn buffer() -> Buffer {
    let mut b = Buffer::default();
    for (i, op) in ops().into_iter().enumerate() {
        b.push(Message {
            msn: 10 + i as u64,
            txn: if i % 2 == 0 { 0 } else { 5 },
            key: format!("k{i}").into_bytes(),
            op,
        });
    }
    b
}

fn nodes() -> Vec<Vec<u8>> {
    let leaf = Node::Leaf {
        pivots: vec![b"key00020".to_vec()].into(),
        basements: vec![
            BasementSlot::new(basement(20)),
            BasementSlot::new(basement(10)),
        ],
    };
    let internal = Node::Internal {
        height: 1,
        pivots: vec![b"m".to_vec()].into(),
        children: vec![3, 4],
        buffers: vec![
            BufferSlot::new(buffer()),
            BufferSlot::new(Buffer::default()),
        ],
    };
    let mut out = Vec::new();
    for codec in [Codec::None, Codec::Lz4, Codec::Zstd] {
        out.push(encode(&leaf, NODE_BLOCKNUM, codec, 0, 256, None).bytes);
        out.push(encode(&internal, NODE_BLOCKNUM, codec, 0, 256, None).bytes);
    }
    out
}

fn records() -> Vec<Record> {
    let mut recs: Vec<Record> = ops()
        .into_iter()
        .map(|op| Record::Message {
            tree: 3,
            txn: 9,
            key: b"key".to_vec(),
            op,
        })
        .collect();
    recs.extend([
        Record::CreateTree {
            id: 4,
            name: "db/t/PRIMARY".into(),
            options: TreeOptions::default(),
        },
        Record::DropTree { id: 2 },
        Record::RenameTree {
            id: 4,
            name: "db/u/PRIMARY".into(),
        },
        Record::Checkpoint { seq: 3 },
        Record::TxnBegin,
        Record::TxnCommit { txn: 9 },
        Record::TxnAbort { txn: 8 },
        Record::ReplaceTrees {
            pairs: vec![(2, 5)],
        },
        Record::TxnsOpen { txns: vec![7, 9] },
    ]);
    recs
}

fn log() -> Vec<Vec<u8>> {
    let recs = records();
    let mut single = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        r.encode_framed(100 + i as u64, &mut single);
    }
    let mut entries = Vec::new();
    for r in &recs {
        r.encode_entry(&mut entries);
    }
    let mut out = vec![single];
    for codec in [Codec::None, Codec::Lz4] {
        let mut packed = Vec::new();
        pack(200, recs.len() as u64, &entries, codec, &mut packed);
        out.push(packed);
    }
    out
}

fn catalog() -> Catalog {
    let mut trees = BTreeMap::new();
    for (id, name) in [(1, "\u{0}catalog"), (3, "db/t/PRIMARY"), (4, "db/t/by_v")] {
        trees.insert(
            id,
            CatalogEntry {
                name: name.into(),
                options: TreeOptions::default(),
                ckpt_seq: id,
            },
        );
    }
    Catalog {
        next_tree_id: 5,
        trees,
        aborted: vec![11, 42],
    }
}

fn block_table() -> Vec<u8> {
    let map: HashMap<u64, BlockLoc> = (0..4)
        .map(|i| {
            (
                i,
                BlockLoc {
                    offset: 8192 + i * 4096,
                    len: 4000,
                    prefix_len: 64,
                },
            )
        })
        .collect();
    TranslationTable { map }.encode()
}

/// Candidate values for a column, tried in turn until the row codec accepts one.
fn candidates(rotation: usize) -> Vec<Value> {
    let mut c = vec![
        Value::Int(7),
        Value::UInt(3),
        Value::Text("ab".into()),
        Value::Bytes(b"xy".to_vec()),
        Value::Double(2.5),
        Value::Float(1.5),
        Value::Null,
    ];
    let n = c.len();
    c.rotate_left(rotation % n);
    c
}

/// Rows the row codec accepts for each table: (table index, input with the table's byte first).
fn rows() -> Vec<(usize, Vec<u8>)> {
    let mut out = Vec::new();
    for (t, def) in tables().iter().enumerate() {
        for rotation in 0..4 {
            let mut values = vec![Value::Null; def.columns.len()];
            for i in 0..values.len() {
                for v in candidates(rotation + i) {
                    values[i] = v;
                    let mut probe = Vec::new();
                    if encode_row(&def.layout, &values, &mut probe).is_ok() {
                        break;
                    }
                }
            }
            let mut bytes = vec![t as u8];
            if encode_row(&def.layout, &values, &mut bytes).is_ok() {
                out.push((t, bytes));
            }
        }
    }
    out
}

/// Up to 24 (primary key, row) pairs of target table `t`: its seed rows in turn under keys 0..
/// (a key that does not encode is left out).
fn keyed_rows(t: usize, def: &betula_sql::catalog::TableDef) -> Vec<(Vec<u8>, Vec<u8>)> {
    let rows: Vec<Vec<u8>> = rows()
        .into_iter()
        .filter(|(r, _)| *r == t)
        .map(|(_, bytes)| bytes[1..].to_vec())
        .collect();
    let mut out = Vec::new();
    for (i, row) in rows.iter().cycle().take(24).enumerate() {
        let mut key = Vec::new();
        if encode_key(&def.pk_key_columns(), &key_values(def, i), &mut key).is_ok() {
            out.push((key, row.clone()));
        }
    }
    out
}

/// Columnar frames of each target table's primary tree: its seed rows under keys 0.., some with a
/// NULL column, and one entry the layout does not fit (stored plain beside the columns).
fn columnar_frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (t, def) in tables().iter().enumerate() {
        let layout = def.column_layouts().remove(0).1;
        let mut raw = Vec::new();
        let mut count = 0;
        for (key, row) in keyed_rows(t, def) {
            put_entry(&key, &row, &mut raw);
            count += 1;
        }
        put_entry(b"\xff", b"not a row", &mut raw);
        count += 1;
        if let Some(frame) = columnar::encode(&raw, 0, count, &layout) {
            out.push(frame);
        }
    }
    out
}

/// Columnar message buffers of each target table's primary tree: Puts of its seed rows (some with
/// a NULL column), a Put the layout does not fit, a delete and an upsert (plain bodies).
fn columnar_buffers() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (t, def) in tables().iter().enumerate() {
        let layout = def.column_layouts().remove(0).1;
        let mut msgs = Vec::new();
        for (i, (key, row)) in keyed_rows(t, def).into_iter().enumerate() {
            msgs.push(msg(10 + i as u64, key, Op::Put(row)));
        }
        let n = msgs.len() as u64;
        msgs.push(msg(
            20 + n,
            b"\xff".to_vec(),
            Op::Put(b"not a row".to_vec()),
        ));
        msgs.push(msg(21 + n, b"\xfe".to_vec(), Op::Delete));
        msgs.push(msg(
            22 + n,
            b"\xfd".to_vec(),
            Op::Upsert {
                func: 1,
                arg: vec![1, 2],
            },
        ));
        let mut raw = Vec::new();
        raw.put_varint(msgs.len() as u64);
        for m in &msgs {
            m.encode(&mut raw);
        }
        if let Some(form) = columnar::messages::encode(&raw, &layout) {
            out.push(form);
        }
    }
    out
}

/// A message of transaction 0.
fn msg(msn: u64, key: Vec<u8>, op: Op) -> Message {
    Message {
        msn,
        txn: 0,
        key,
        op,
    }
}

/// A committed entry as a frame's raw bytes hold it (file-format.md §3.3).
fn put_entry(key: &[u8], value: &[u8], out: &mut Vec<u8>) {
    out.put_bytes(key);
    Cell::encode_plain(value, out);
}

/// Primary key values of the `i`-th seed entry of `def`: distinct, increasing integers or texts.
fn key_values(def: &betula_sql::catalog::TableDef, i: usize) -> Vec<Value> {
    let cols = def.pk_key_columns();
    (0..cols.len())
        .map(|p| {
            if p + 1 == cols.len() {
                Value::Int(i as i64)
            } else {
                Value::Int(7)
            }
        })
        .collect()
}

/// Keys of every table's primary key and indexes, from the seed rows' values.
fn keys() -> Vec<Vec<u8>> {
    let defs = tables();
    let mut out = Vec::new();
    for (t, def) in defs.iter().enumerate() {
        for choice in 0..=def.indexes.len() {
            let (cols, positions): (_, Vec<usize>) = if choice == 0 {
                (def.pk_key_columns(), def.pk.clone())
            } else {
                (
                    def.index_key_columns(choice - 1),
                    def.indexes[choice - 1].columns.clone(),
                )
            };
            for rotation in 0..4 {
                let values: Vec<Value> = positions
                    .iter()
                    .map(|p| candidates(rotation + p)[0].clone())
                    .collect();
                let pick = (t + choice * defs.len()) as u8;
                let mut bytes = vec![pick];
                if values.len() == cols.len() && encode_key(&cols, &values, &mut bytes).is_ok() {
                    out.push(bytes);
                }
            }
        }
    }
    out
}

/// Statements of every kind the front end handles.
pub const STATEMENTS: &[&str] = &[
    "SELECT 1",
    "SELECT a, b + 1 AS c FROM t WHERE a > 3 AND b IN (1, 2, 3) ORDER BY a DESC LIMIT 10 OFFSET 2",
    "SELECT t.a, COUNT(*), SUM(u.v) FROM t JOIN u ON t.a = u.a LEFT JOIN w USING (a) GROUP BY t.a HAVING COUNT(*) > 1",
    "SELECT * FROM t WHERE a = (SELECT MAX(a) FROM u) UNION ALL SELECT * FROM v",
    "SELECT CAST('2024-01-02' AS DATE), CONCAT('a', NULL), COALESCE(NULL, 1.5e3), x'4142', _utf8mb4'é' COLLATE utf8mb4_bin",
    "SELECT * FROM t FORCE INDEX (by_v) WHERE v LIKE 'ab%' FOR UPDATE",
    "INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b') ON DUPLICATE KEY UPDATE v = VALUES(v)",
    "INSERT INTO counters (k, n) VALUES (1, 1) ON DUPLICATE KEY UPDATE n = n + 1",
    "REPLACE INTO t SET id = 3, v = 'c'",
    "UPDATE t SET v = CONCAT(v, 'x') WHERE id BETWEEN 1 AND 10",
    "DELETE FROM t WHERE id = 3",
    "CREATE TABLE t (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20) DEFAULT 'x', d DECIMAL(10,2), e ENUM('a','b'), KEY by_v (v)) ENGINE=InnoDB",
    "CREATE TABLE p (id INT, ts DATETIME) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)",
    "ALTER TABLE t ADD COLUMN w INT AFTER v, ADD INDEX by_w (w), MODIFY v VARCHAR(80) NOT NULL",
    "ALTER TABLE t DROP INDEX by_v, ENGINE=TokuDB",
    "LOAD DATA LOCAL INFILE 'x.csv' INTO TABLE t FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\n' IGNORE 1 LINES (id, @v) SET v = UPPER(@v)",
    "BEGIN; SELECT balance FROM accounts WHERE id IN (1, 2) FOR UPDATE; COMMIT",
    "START TRANSACTION WITH CONSISTENT SNAPSHOT",
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
    "SET NAMES utf8mb4; SET @@autocommit = 0; SET @x := 5",
    "SHOW CREATE TABLE t",
    "SHOW TABLE STATUS LIKE 't%'",
    "SHOW VARIABLES WHERE Variable_name = 'version'",
    "EXPLAIN SELECT * FROM t WHERE id = 1",
    "ANALYZE SELECT * FROM t",
    "FLUSH TABLES",
    "CHECK TABLE t",
    "DROP TABLE IF EXISTS t, u",
    "CREATE DATABASE IF NOT EXISTS d; USE d",
    "HANDLER t OPEN; HANDLER t READ FIRST; HANDLER t CLOSE",
    "CREATE TEMPORARY TABLE tt AS SELECT * FROM t",
    "SELECT /*+ MAX_EXECUTION_TIME(10) */ 1 /*! , 2 */ -- comment",
];

/// A packet: 3-byte length, sequence number, payload.
fn framed(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    out.push(seq);
    out.extend_from_slice(payload);
    out
}

fn packets() -> Vec<Vec<u8>> {
    let mut query = vec![3u8];
    query.extend_from_slice(b"SELECT * FROM t WHERE id = 1");
    let mut prepare = vec![0x16u8];
    prepare.extend_from_slice(b"INSERT INTO t VALUES (?, ?)");
    let mut stream = framed(0, &query);
    stream.extend(framed(0, &prepare));
    stream.extend(framed(0, &[0x0e]));
    let mut execute = vec![0x17u8];
    execute.extend_from_slice(&1u32.to_le_bytes());
    execute.extend_from_slice(&executes()[0][1..]);
    stream.extend(framed(0, &execute));
    vec![
        stream,
        framed(0, &[1]),
        framed(0, &handshake(true)),
        framed(0, &[0x02, b'd', b'b']),
    ]
}

/// A HandshakeResponse41 (with plugin auth and attributes when `full`).
fn handshake(full: bool) -> Vec<u8> {
    // PROTOCOL_41 | SECURE_CONNECTION | CONNECT_WITH_DB | PLUGIN_AUTH | CONNECT_ATTRS
    let caps: u32 = if full {
        0x200 | 0x8000 | 0x8 | 0x80000 | 0x100000
    } else {
        0x200 | 0x8000
    };
    let mut out = caps.to_le_bytes().to_vec();
    out.extend_from_slice(&(16u32 << 20).to_le_bytes());
    out.push(45);
    out.extend_from_slice(&[0; 23]);
    out.extend_from_slice(b"root\0");
    out.push(20);
    out.extend_from_slice(&[0x5a; 20]);
    if full {
        out.extend_from_slice(b"db\0mysql_native_password\0");
        let attrs = b"\x0c_client_name\x07libmysql";
        out.push(attrs.len() as u8);
        out.extend_from_slice(attrs);
    }
    out
}

/// Execute bodies (after the statement id), each behind its parameter count byte.
fn executes() -> Vec<Vec<u8>> {
    // Types: LONGLONG, VAR_STRING, DOUBLE, DATETIME, NULL.
    let types: [(u8, u8); 5] = [(8, 0), (253, 0), (5, 0), (12, 0), (6, 0)];
    let mut body = vec![0u8]; // flags
    body.extend_from_slice(&1u32.to_le_bytes()); // iterations
    body.push(0b0001_0000); // NULL bitmap: the fifth parameter
    body.push(1); // new params bound
    for (t, flags) in types {
        body.extend_from_slice(&[t, flags]);
    }
    body.extend_from_slice(&42i64.to_le_bytes());
    body.extend_from_slice(b"\x03abc");
    body.extend_from_slice(&1.5f64.to_le_bytes());
    body.extend_from_slice(&[7, 0xe8, 0x07, 1, 2, 3, 4, 5]);
    let mut with_count = vec![types.len() as u8];
    with_count.extend_from_slice(&body);
    let mut unsigned = with_count.clone();
    unsigned[8] = 0x80; // first parameter unsigned
    vec![with_count, unsigned, vec![0, 0, 1, 0, 0, 0]]
}

/// Binary log files as the log writes them (with and without CRC32 trailers: a transaction over
/// each fuzz table, a DDL, a ROTATE), and one stored group as the binlog tree keeps it.
fn binlog_files() -> Vec<Vec<u8>> {
    use betula_sql::binlog::group::{ddl_group, transaction_group, RowChange};
    use betula_sql::binlog::{codes, control, event, Gtid};
    use std::sync::Arc;
    let g = |seq| Gtid {
        domain: 0,
        server_id: 1,
        seq,
    };
    let mut group = Vec::new();
    for (i, def) in tables().iter().enumerate() {
        let Some((_, row)) = rows().into_iter().find(|(t, _)| *t == i) else {
            continue;
        };
        let Ok(values) = betula_sql::codec::row::decode_row(&def.layout, &row[1..]) else {
            continue;
        };
        let changes = vec![RowChange {
            table: Arc::new(def.clone()),
            before: Some(values.clone()),
            after: Some(values),
        }];
        if let Ok(t) = transaction_group(g(i as u64 + 2), 1, |_| i as u64 + 1, &changes) {
            group.extend(t);
        }
    }
    let ddl = ddl_group(g(1), 1, 7, "db", "CREATE TABLE t (id INT PRIMARY KEY)", 45);
    let mut out = vec![group.clone()];
    for checksum in [true, false] {
        let mut events = vec![
            control::format_description(1, 1, "10.11.99-Betula-fuzz-log", checksum),
            control::gtid_list(1, 1, &[g(9)]),
            control::binlog_checkpoint(1, 1, "betula-bin.000001"),
        ];
        let body = [ddl.clone(), group.clone()].concat();
        events.extend(
            event::split_unsealed(&body)
                .unwrap_or_default()
                .into_iter()
                .map(<[u8]>::to_vec),
        );
        events.push(control::rotate(1, 1, "betula-bin.000002", 4, 0));
        let mut file = codes::MAGIC.to_vec();
        let mut pos = codes::FIRST_EVENT_POS;
        for e in &events {
            pos = event::seal(e, pos, checksum, &mut file);
        }
        out.push(file);
    }
    out
}
