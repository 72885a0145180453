//! Conformance suite: runs every `tests/sql/*.test` script against the real server.
//!
//! Script format (one record after another, separated by blank lines; `#` lines are comments):
//! ```text
//! statement ok              the statement must succeed
//! <sql>
//!
//! statement error <code>    the statement must fail with this MySQL error code
//! <sql>
//!
//! query [sorted]            the rows must equal the lines after ----, columns separated by
//! <sql>                     one tab, NULL for NULL (`sorted`: compare after sorting the lines)
//! ----
//! <expected rows>
//! ```
//! SQL may span several lines. Each file runs in its own fresh database named after the file.
//! A failure names the file, the line and the statement.

mod betula;

use mysql::prelude::*;

fn run_file(server: &betula::BetulaServer, path: &std::path::Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = path
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .replace('-', "_");
    let db = format!("conf_{name}");
    let mut conn = server.conn(None);
    conn.query_drop(format!("DROP DATABASE IF EXISTS {db}"))
        .unwrap();
    conn.query_drop(format!("CREATE DATABASE {db}")).unwrap();
    conn.query_drop(format!("USE {db}")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut count = 0;
    while i < lines.len() {
        let l = lines[i].trim_end();
        if l.is_empty() || l.starts_with('#') {
            i += 1;
            continue;
        }
        let head_line = i + 1;
        let head: Vec<&str> = l.split_whitespace().collect();
        i += 1;
        let mut sql = Vec::new();
        while i < lines.len() && !lines[i].trim().is_empty() && lines[i].trim_end() != "----" {
            sql.push(lines[i]);
            i += 1;
        }
        let sql = sql.join("\n");
        let ctx =
            |msg: String| format!("{}:{head_line}: {msg}\n  statement: {sql}", path.display());
        count += 1;
        match head.as_slice() {
            ["statement", "ok"] => {
                conn.query_drop(&sql)
                    .map_err(|e| ctx(format!("expected success, got {e}")))?;
            }
            ["statement", "error", code] => {
                let want: u16 = code.parse().map_err(|_| ctx("bad code".into()))?;
                match conn.query_drop(&sql) {
                    Err(mysql::Error::MySqlError(e)) if e.code == want => {}
                    Err(e) => return Err(ctx(format!("expected error {want}, got {e}"))),
                    Ok(()) => return Err(ctx(format!("expected error {want}, got success"))),
                }
            }
            ["query", rest @ ..] => {
                let sorted = rest.contains(&"sorted");
                if i >= lines.len() || lines[i].trim_end() != "----" {
                    return Err(ctx("query without ---- line".into()));
                }
                i += 1;
                let mut expected = Vec::new();
                while i < lines.len() && !lines[i].trim().is_empty() {
                    expected.push(lines[i].trim_end().to_string());
                    i += 1;
                }
                let rows: Vec<mysql::Row> = conn
                    .query(&sql)
                    .map_err(|e| ctx(format!("query failed: {e}")))?;
                let mut got: Vec<String> = rows
                    .into_iter()
                    .map(|r| {
                        r.unwrap()
                            .iter()
                            .map(betula::render)
                            .collect::<Vec<_>>()
                            .join("\t")
                            .trim_end()
                            .to_string()
                    })
                    .collect();
                if sorted {
                    got.sort();
                    expected.sort();
                }
                if got != expected {
                    return Err(ctx(format!(
                        "rows differ\n  expected:\n    {}\n  got:\n    {}",
                        expected.join("\n    "),
                        got.join("\n    ")
                    )));
                }
            }
            _ => return Err(ctx(format!("unknown record header '{l}'"))),
        }
    }
    Ok(count)
}

#[test]
fn conformance_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let sql_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sql");
    let mut files: Vec<_> = std::fs::read_dir(&sql_dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "test"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .test files in {}", sql_dir.display());
    let mut failures = Vec::new();
    let mut total = 0;
    for f in &files {
        match run_file(&server, f) {
            Ok(n) => total += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
    assert!(total > 50, "only {total} records ran");
}
