//! Result sets sent as they are read (`Session::execute_to`): a plain query sends its rows to the
//! sink in the order, window (LIMIT/OFFSET) and form the materialized path gives; queries that need
//! every row first (sorting off the key order, grouping, DISTINCT) still return their rows; a sink
//! that fails mid-result ends the statement and leaves the session usable.

mod sessions;

use betula_sql::types::value::Value;
use betula_sql::{DbError, DbResult, ErrorCode, OutCol, Output, RowSink, Session};
use sessions::{exec, open, rows};

#[derive(Default)]
struct Collect {
    cols: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Fail on the row after this many.
    fail_after: Option<usize>,
}

impl RowSink for Collect {
    fn columns(&mut self, cols: &[OutCol]) -> DbResult<()> {
        assert!(self.cols.is_empty(), "columns sent twice");
        self.cols = cols.iter().map(|c| c.name.clone()).collect();
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> DbResult<()> {
        assert!(!self.cols.is_empty(), "a row before the columns");
        assert_eq!(row.len(), self.cols.len());
        if self.fail_after == Some(self.rows.len()) {
            return Err(DbError::new(ErrorCode::NetErrorOnWrite, "client went away"));
        }
        self.rows.push(
            row.iter()
                .map(|v| match v {
                    Value::Null => "NULL".to_string(),
                    v => String::from_utf8_lossy(&v.to_text(None).unwrap()).into_owned(),
                })
                .collect(),
        );
        Ok(())
    }
}

/// Runs `sql` both ways: returns (streamed?, rows) and checks the rows equal the materialized ones.
fn both_ways(s: &mut Session, sql: &str) -> (bool, Vec<Vec<String>>) {
    let expected = rows(s, sql);
    let mut sink = Collect::default();
    let out = s.execute_to(sql, &[], &mut sink).unwrap();
    match out {
        Output::Sent { rows: n } => {
            assert_eq!(n as usize, sink.rows.len(), "{sql}");
            assert_eq!(sink.rows, expected, "{sql}");
            (true, sink.rows)
        }
        Output::Rows { .. } => {
            assert!(sink.cols.is_empty() && sink.rows.is_empty(), "{sql}");
            (false, expected)
        }
        other => panic!("{sql}: {other:?}"),
    }
}

#[test]
fn plain_queries_stream_the_same_rows_the_materialized_path_returns() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &["CREATE TABLE t (id INT PRIMARY KEY, g INT, v VARCHAR(20), KEY kg (g))"],
    );
    let values: Vec<String> = (0..3000)
        .map(|i| format!("({i}, {}, 'v{}')", i % 7, i * 3))
        .collect();
    exec(
        &mut s,
        &format!("INSERT INTO t VALUES {}", values.join(",")),
    );
    for sql in [
        "SELECT * FROM t",
        "SELECT id, v FROM t WHERE id BETWEEN 100 AND 250",
        "SELECT id FROM t WHERE g = 3 LIMIT 10",
        "SELECT * FROM t LIMIT 5 OFFSET 2990",
        "SELECT * FROM t LIMIT 0",
        "SELECT v FROM t ORDER BY id DESC LIMIT 7",
        "SELECT a.id, b.v FROM t a JOIN t b ON b.id = a.id + 1 WHERE a.id < 20",
        "SELECT id FROM t WHERE v LIKE 'v1%' AND g > 4",
    ] {
        let (streamed, got) = both_ways(&mut s, sql);
        assert!(streamed, "{sql} was not streamed");
        assert!(!got.is_empty() || sql.contains("LIMIT 0"), "{sql}");
    }
    for sql in [
        "SELECT g, COUNT(*) FROM t GROUP BY g",
        "SELECT DISTINCT g FROM t",
        "SELECT id FROM t ORDER BY v LIMIT 3",
        "SELECT id + 1 FROM t WHERE id < 3",
    ] {
        let (streamed, got) = both_ways(&mut s, sql);
        assert!(!streamed, "{sql} needs every row (or value) first");
        assert!(!got.is_empty(), "{sql}");
    }
}

#[test]
fn a_sink_failing_mid_result_ends_the_statement_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
            "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (4, 40)",
        ],
    );
    exec(&mut s, "BEGIN");
    exec(&mut s, "UPDATE t SET v = 21 WHERE id = 2");
    let mut sink = Collect {
        fail_after: Some(2),
        ..Default::default()
    };
    let err = s.execute_to("SELECT * FROM t", &[], &mut sink).unwrap_err();
    assert_eq!(err.code.number(), 1160);
    assert_eq!(sink.rows.len(), 2);
    // The transaction's earlier change survives the failed read; the session keeps working.
    exec(&mut s, "COMMIT");
    assert_eq!(
        rows(&mut s, "SELECT v FROM t ORDER BY id"),
        vec![vec!["10"], vec!["21"], vec!["30"], vec!["40"]]
    );
}
