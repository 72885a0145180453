//! Row counts and index cardinality (infoschema/estimates.rs, design.md STA1-STA5): SHOW TABLE
//! STATUS Rows and Avg_row_length, information_schema.TABLES.TABLE_ROWS, PARTITIONS.TABLE_ROWS,
//! SHOW INDEX and information_schema.STATISTICS.CARDINALITY, and EXPLAIN's rows.
//!
//! Estimates are tested on trees made of tiny nodes (8 KiB nodes, 1 KiB basements, fanout 8), so
//! that tens of thousands of rows make trees of several levels, with `betula_stats_exact_rows`
//! lowered to 0 so that no tree is counted exactly; small tables are checked exact under the
//! defaults.

mod common;

use std::sync::Arc;

use betula_sql::{Engine, Session};
use betula_storage::{Codec, TreeOptions};
use common::engine::{config, exec, rows};

/// An engine whose trees have tiny nodes, and a session in database `d`.
fn engine(dir: &std::path::Path) -> (Arc<Engine>, Session) {
    let mut cfg = config(dir);
    cfg.env.default_tree = TreeOptions {
        node_size_bytes: 8 << 10,
        basement_size_bytes: 1 << 10,
        fanout: 8,
        codec: Codec::Lz4,
        level: 0,
    };
    let e = Engine::open(cfg).unwrap();
    let mut s = e.session(1, "root", "localhost");
    exec(&mut s, "CREATE DATABASE d");
    exec(&mut s, "USE d");
    (e, s)
}

/// `t (id, g, u, s)` with ids `1..=n`: `g = id % 100`, `u = id` (UNIQUE unless the table is
/// partitioned: `extra`), `s` one of 7 strings.
fn create_and_fill(s: &mut Session, table: &str, extra: &str, n: u64) {
    let unique = if extra.is_empty() { "UNIQUE" } else { "" };
    exec(
        s,
        &format!(
            "CREATE TABLE {table} (id INT PRIMARY KEY, g INT, u INT, s VARCHAR(20), \
             KEY kg (g), {unique} KEY ku (u), KEY kgs (g, s)) {extra}"
        ),
    );
    let mut id = 1;
    while id <= n {
        let values: Vec<String> = (id..(id + 1000).min(n + 1))
            .map(|i| format!("({i}, {}, {i}, 's{}')", i % 100, i % 7))
            .collect();
        exec(
            s,
            &format!("INSERT INTO {table} VALUES {}", values.join(",")),
        );
        id += 1000;
    }
}

fn one(s: &mut Session, sql: &str) -> u64 {
    let r = rows(s, sql);
    r[0].parse()
        .unwrap_or_else(|_| panic!("{sql}: not a number: {r:?}"))
}

fn assert_within(got: u64, want: u64, percent: u64, what: &str) {
    let (lo, hi) = (want * (100 - percent) / 100, want * (100 + percent) / 100);
    assert!(
        (lo..=hi).contains(&got),
        "{what}: {got}, expected {want} ± {percent}%"
    );
}

/// SHOW INDEX of `table` as (key name, column, cardinality).
fn cardinality(s: &mut Session, table: &str) -> Vec<(String, String, u64)> {
    rows(s, &format!("SHOW INDEX FROM {table}"))
        .iter()
        .map(|r| {
            let f: Vec<&str> = r.split('|').collect();
            (f[2].to_string(), f[4].to_string(), f[6].parse().unwrap())
        })
        .collect()
}

/// The status Rows, TABLE_ROWS, AVG_ROW_LENGTH and DATA_LENGTH of table `t` agree; returns the rows.
fn table_rows(s: &mut Session, table: &str) -> u64 {
    let status = rows(s, &format!("SHOW TABLE STATUS LIKE '{table}'"));
    let f: Vec<&str> = status[0].split('|').collect();
    let (n, avg, data): (u64, u64, u64) = (
        f[4].parse().unwrap(),
        f[5].parse().unwrap(),
        f[6].parse().unwrap(),
    );
    let q = format!(
        "SELECT CONCAT(TABLE_ROWS, '|', AVG_ROW_LENGTH, '|', DATA_LENGTH) \
         FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = '{table}'"
    );
    assert_eq!(rows(s, &q), vec![format!("{n}|{avg}|{data}")]);
    assert_eq!(avg, data.checked_div(n).unwrap_or(0));
    n
}

#[test]
fn large_tables_show_estimates_close_to_their_rows_and_distinct_values() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    let n = 30_000;
    create_and_fill(&mut s, "t", "", n);
    exec(&mut s, "SET betula_stats_exact_rows = 0");
    let est = table_rows(&mut s, "t");
    assert_within(est, n, 20, "Rows");
    let card = cardinality(&mut s, "t");
    let names: Vec<(&str, &str)> = card
        .iter()
        .map(|(k, c, _)| (k.as_str(), c.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("PRIMARY", "id"),
            ("kg", "g"),
            ("ku", "u"),
            ("kgs", "g"),
            ("kgs", "s")
        ]
    );
    // A primary or UNIQUE key has a value per row; the others about their distinct values.
    assert_eq!((card[0].2, card[2].2), (est, est));
    assert_within(card[1].2, 100, 50, "kg(g)");
    assert_within(card[3].2, 100, 50, "kgs(g)");
    assert_within(card[4].2, 700, 50, "kgs(g, s)");
    // information_schema.STATISTICS shows the same numbers.
    let stats: Vec<u64> = rows(
        &mut s,
        "SELECT CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_NAME = 't'",
    )
    .iter()
    .map(|c| c.parse().unwrap())
    .collect();
    assert_eq!(stats, card.iter().map(|c| c.2).collect::<Vec<_>>());
    // EXPLAIN's rows of a full scan is the table's estimate.
    let explain = rows(&mut s, "EXPLAIN SELECT * FROM t");
    assert_eq!(explain[0].split('|').nth(8), Some(est.to_string().as_str()));
    // Deleted rows leave the estimate.
    exec(&mut s, "DELETE FROM t WHERE id % 2 = 0");
    assert_within(table_rows(&mut s, "t"), n / 2, 20, "Rows after deletes");
    // Under the defaults the same table is estimated too (it is above betula_stats_exact_rows).
    exec(&mut s, "SET betula_stats_exact_rows = DEFAULT");
    assert_within(
        table_rows(&mut s, "t"),
        n / 2,
        20,
        "Rows under the defaults",
    );
}

#[test]
fn partitions_show_their_own_estimates() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    let n = 24_000;
    create_and_fill(&mut s, "p", "PARTITION BY HASH (id) PARTITIONS 3", n);
    exec(&mut s, "SET betula_stats_exact_rows = 0");
    let parts: Vec<u64> = rows(
        &mut s,
        "SELECT TABLE_ROWS FROM information_schema.PARTITIONS WHERE TABLE_NAME = 'p' \
         ORDER BY PARTITION_ORDINAL_POSITION",
    )
    .iter()
    .map(|r| r.parse().unwrap())
    .collect();
    assert_eq!(parts.len(), 3);
    for p in &parts {
        assert_within(*p, n / 3, 25, "a partition's TABLE_ROWS");
    }
    assert_eq!(table_rows(&mut s, "p"), parts.iter().sum::<u64>());
    // Each partition's distinct values add up (g's 100 values are in every partition: the sum
    // over-counts them, as MariaDB's estimates of partitioned tables are rough too); a key with a
    // value per row has about as many values as the table has rows.
    let card = cardinality(&mut s, "p");
    assert_within(card[1].2, 300, 50, "kg(g) over the partitions");
    assert_within(card[2].2, n, 25, "ku(u) over the partitions");
}

#[test]
fn small_tables_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = engine(dir.path());
    create_and_fill(&mut s, "t", "", 1_500);
    assert_eq!(table_rows(&mut s, "t"), 1_500);
    let card: Vec<u64> = cardinality(&mut s, "t").iter().map(|c| c.2).collect();
    assert_eq!(card, [1_500, 100, 1_500, 100, 700]);
    assert_eq!(
        one(
            &mut s,
            "SELECT TABLE_ROWS FROM information_schema.PARTITIONS WHERE TABLE_NAME = 't'"
        ),
        1_500
    );
    // NULLs are one value (InnoDB's nulls_equal), and an empty table has no values.
    exec(
        &mut s,
        "CREATE TABLE n (a INT, b INT, KEY (a, b), UNIQUE KEY (b))",
    );
    assert_eq!(
        cardinality(&mut s, "n")
            .iter()
            .map(|c| c.2)
            .collect::<Vec<_>>(),
        [0, 0, 0]
    );
    exec(
        &mut s,
        "INSERT INTO n VALUES (NULL, 1), (NULL, 2), (1, 3), (1, NULL), (2, NULL)",
    );
    assert_eq!(
        cardinality(&mut s, "n")
            .iter()
            .map(|c| c.2)
            .collect::<Vec<_>>(),
        [3, 5, 5]
    );
    assert_eq!(table_rows(&mut s, "n"), 5);
}
