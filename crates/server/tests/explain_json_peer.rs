//! EXPLAIN FORMAT=JSON answers as MariaDB 10.11 answers it for the shapes Betula describes
//! (plan/explain_json/): the same statements go to a private MariaDB (InnoDB) and to Betula
//! through the `mariadb` client, and the documents must be equal byte for byte.
//!
//! * one table read whole (`ALL`, or `index` for a covering or key-ordered read), with
//!   `possible_keys`/`key`/`key_length`/`used_key_parts`/`using_index` as EXPLAIN has them;
//! * window functions: `window_functions_computation` with MariaDB's sorts (calls sorted by
//!   their windows, compatible windows sharing a sort by the longest key list, an empty OVER ()
//!   sorting by the temporary table's first field), around `temporary_table`;
//! * GROUP BY (`temporary_table`, in a `filesort` by GROUP BY or ORDER BY unless ORDER BY
//!   NULL), DISTINCT (`duplicate_removal` over window functions), ORDER BY (`filesort`, or
//!   `read_sorted_file` for a plain read), HAVING over select-list aliases;
//! * no table: `"message": "No tables used"`.
//!
//! What is not described (WHERE, LIMIT, joins, subqueries, derived tables, UNION, `FORMAT
//! JSON` without `=`) is refused with 1235, checked on Betula alone.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! comparison says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE t1 (pk INT PRIMARY KEY, a INT, b INT, c CHAR(10), d DECIMAL(10,3), e REAL);
INSERT INTO t1 VALUES (1,0,1,'one',0.1,0.001), (2,0,2,'two',0.2,0.002), (3,0,3,'three',0.3,0.003),
  (4,1,2,'x',0.4,0.004);
CREATE TABLE t0 (a INT, b INT, c INT);
INSERT INTO t0 VALUES (1,2,3), (4,5,6);
CREATE TABLE e (x INT);
CREATE TABLE k (id INT PRIMARY KEY, v INT, w VARCHAR(10), KEY kv (v), KEY kw (w, v));
INSERT INTO k VALUES (1,1,'a'), (2,2,'b'), (3,3,'c');";

const QUERIES: &[&str] = &[
    // an empty OVER () sorts by the temporary table's first field
    "EXPLAIN FORMAT=JSON SELECT pk, ROW_NUMBER() OVER () FROM t1",
    "EXPLAIN FORMAT=JSON SELECT row_number() over (), pk FROM t1",
    "EXPLAIN FORMAT=JSON SELECT a+1, ROW_NUMBER() OVER () FROM t1",
    "EXPLAIN FORMAT=JSON SELECT a AS x, ROW_NUMBER() OVER () FROM t1",
    "EXPLAIN FORMAT=JSON SELECT 1, a, ROW_NUMBER() OVER () FROM t1",
    "EXPLAIN FORMAT=JSON SELECT SUM(b) OVER (), a FROM t1",
    "EXPLAIN FORMAT=JSON SELECT ROW_NUMBER() OVER (), SUM(b) OVER () FROM t1",
    "EXPLAIN FORMAT=JSON SELECT *, ROW_NUMBER() OVER () FROM t1",
    "EXPLAIN FORMAT=JSON SELECT a+1 AS `date`, ROW_NUMBER() OVER () FROM t1",
    "EXPLAIN FORMAT=JSON SELECT a+1 AS rn1, ROW_NUMBER() OVER () AS `1a` FROM t1",
    // window sorts
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (ORDER BY a) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT a, RANK() OVER (ORDER BY SUM(b)) FROM t0 GROUP BY a",
    "EXPLAIN FORMAT=JSON SELECT a, RANK() OVER (ORDER BY SUM(b)) FROM t0 GROUP BY a ORDER BY NULL",
    "EXPLAIN FORMAT=JSON SELECT b, MAX(a) AS MX, RANK() OVER (ORDER BY b) FROM t0 GROUP BY b \
     HAVING MX IN (3,5,7)",
    "EXPLAIN FORMAT=JSON SELECT b, MAX(a) AS mx FROM t0 GROUP BY b HAVING MX BETWEEN 1 AND 5 AND mx <> 4",
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (PARTITION BY c ORDER BY a) AS r1, \
     RANK() OVER (PARTITION BY c ORDER BY a) AS r2 FROM t0",
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (PARTITION BY c ORDER BY a), \
     COUNT(*) OVER (PARTITION BY c) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT COUNT(*) OVER (PARTITION BY c), \
     RANK() OVER (PARTITION BY c ORDER BY a) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT *, ROW_NUMBER() OVER (ORDER BY a, b) AS X FROM t0 ORDER BY X DESC",
    "EXPLAIN FORMAT=JSON SELECT DISTINCT RANK() OVER (PARTITION BY c ORDER BY a) AS r FROM t0",
    "EXPLAIN FORMAT=JSON SELECT a, b, c, ROW_NUMBER() OVER (PARTITION BY a), \
     ROW_NUMBER() OVER (PARTITION BY a, b) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (ORDER BY a), RANK() OVER (ORDER BY b) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT a, b, RANK() OVER (ORDER BY a), RANK() OVER (ORDER BY b) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT b, a, RANK() OVER (ORDER BY a), RANK() OVER (ORDER BY b) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (ORDER BY a DESC), RANK() OVER (ORDER BY a) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (PARTITION BY b ORDER BY a), \
     RANK() OVER (PARTITION BY a ORDER BY b), RANK() OVER (ORDER BY c) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (PARTITION BY a, b ORDER BY c), \
     RANK() OVER (PARTITION BY a ORDER BY c) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT ROW_NUMBER() OVER (), RANK() OVER (ORDER BY a) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT SUM(a) OVER (PARTITION BY b), \
     MAX(c) OVER (PARTITION BY c ORDER BY a), a FROM t0",
    "EXPLAIN FORMAT=JSON SELECT LAG(c) OVER (ORDER BY a), LEAD(b) OVER (ORDER BY c) FROM t0",
    "EXPLAIN FORMAT=JSON SELECT pk, SUM(d) OVER (PARTITION BY a ORDER BY pk \
     ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s1, \
     SUM(d) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING) AS s2 FROM t1",
    "EXPLAIN FORMAT=JSON SELECT a, RANK() OVER (ORDER BY a) FROM t0 ORDER BY b",
    "EXPLAIN FORMAT=JSON SELECT DISTINCT a, RANK() OVER (ORDER BY a) FROM t0 ORDER BY a",
    "EXPLAIN FORMAT=JSON SELECT v, ROW_NUMBER() OVER (ORDER BY v) FROM k",
    // no window functions
    "EXPLAIN FORMAT=JSON SELECT DISTINCT a FROM t0",
    "EXPLAIN FORMAT=JSON SELECT a, COUNT(*) FROM t0 GROUP BY a",
    "EXPLAIN FORMAT=JSON SELECT a, COUNT(*) FROM t0 GROUP BY a ORDER BY NULL",
    "EXPLAIN FORMAT=JSON SELECT a, COUNT(*) FROM t0 GROUP BY a ORDER BY a DESC",
    "EXPLAIN FORMAT=JSON SELECT a, COUNT(*) FROM t0 GROUP BY a ORDER BY COUNT(*)",
    "EXPLAIN FORMAT=JSON SELECT COUNT(*) FROM t1",
    "EXPLAIN FORMAT=JSON SELECT SUM(a) FROM t1",
    "EXPLAIN FORMAT=JSON SELECT * FROM t1 ORDER BY pk",
    "EXPLAIN FORMAT=JSON SELECT * FROM t1 ORDER BY a DESC, b",
    "EXPLAIN FORMAT=JSON SELECT * FROM t1 AS x ORDER BY x.a",
    "EXPLAIN FORMAT=JSON SELECT pk FROM t1",
    "EXPLAIN FORMAT=JSON SELECT 1",
    "EXPLAIN FORMAT=JSON SELECT * FROM e",
    "EXPLAIN FORMAT=JSON SELECT * FROM k",
    "EXPLAIN FORMAT=JSON SELECT v FROM k",
    "EXPLAIN FORMAT=JSON SELECT w FROM k",
    "EXPLAIN FORMAT=JSON SELECT * FROM k ORDER BY v",
];

#[test]
fn explain_format_json_answers_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}

/// Shapes whose document Betula does not know are refused, never printed otherwise.
const REFUSED: &[&str] = &[
    "EXPLAIN FORMAT=JSON SELECT a FROM t1 WHERE a = 0",
    "EXPLAIN FORMAT=JSON SELECT * FROM t1 WHERE pk = 1",
    "EXPLAIN FORMAT=JSON SELECT * FROM t1 ORDER BY a LIMIT 2",
    "EXPLAIN FORMAT=JSON SELECT * FROM t1, t0",
    "EXPLAIN FORMAT=JSON SELECT (SELECT 1 FROM t0 LIMIT 1) FROM t1",
    "EXPLAIN FORMAT=JSON SELECT * FROM (SELECT * FROM t1) d",
    "EXPLAIN FORMAT=JSON SELECT * FROM t1 UNION SELECT * FROM t1",
    "EXPLAIN FORMAT=JSON SELECT b, MAX(a) FROM t0 GROUP BY b HAVING MAX(a) > 1",
    "EXPLAIN FORMAT=JSON SELECT a, SUM(a) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) \
     AS s FROM t0 ORDER BY s",
    "EXPLAIN FORMAT=JSON SELECT RANK() OVER (ORDER BY a), RANK() OVER (ORDER BY b) FROM t0 ORDER BY b",
    "EXPLAIN FORMAT JSON SELECT pk FROM t1",
];

#[test]
fn explain_format_json_refuses_what_it_does_not_describe() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    assert!(mariadb_peer::client(server.port, SETUP).trim().is_empty());
    for q in REFUSED {
        let out = mariadb_peer::client(server.port, &format!("USE peer;\n{q};\n"));
        assert!(out.contains("\nERROR 1235 (42000)"), "{q}: {out}");
    }
}
