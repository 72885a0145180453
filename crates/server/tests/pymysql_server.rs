//! PyMySQL (client-side parameters, executemany as one multi-row INSERT, explicit COMMIT)
//! against the real server. Needs python3 and pymysql (`apt-get install -y python3-pymysql` or
//! `pip install pymysql`); fails with that message if they are missing.

mod betula;

use std::process::Command;

const SCRIPT: &str = r#"
import sys, decimal, datetime
import pymysql
c = pymysql.connect(host='127.0.0.1', port=int(sys.argv[1]), user='root', database='test')
cur = c.cursor()
cur.execute("CREATE TABLE py (id INT PRIMARY KEY, v VARCHAR(10), d DECIMAL(6,2), t DATETIME)")
cur.executemany("INSERT INTO py VALUES (%s, %s, %s, %s)",
                [(1, 'a', '1.50', '2024-01-02 03:04:05'), (2, "it's", None, None)])
c.commit()
cur.execute("SELECT id, v, d, t FROM py WHERE id >= %s ORDER BY id", (1,))
rows = cur.fetchall()
assert rows == ((1, 'a', decimal.Decimal('1.50'), datetime.datetime(2024, 1, 2, 3, 4, 5)),
                (2, "it's", None, None)), rows
try:
    cur.execute("INSERT INTO py VALUES (1, 'dup', NULL, NULL)")
    raise SystemExit("duplicate accepted")
except pymysql.err.IntegrityError as e:
    assert e.args[0] == 1062, e.args
c.rollback()
cur.execute("SELECT COUNT(*), SUM(id), AVG(id) FROM py")
assert cur.fetchone() == (2, decimal.Decimal('3'), decimal.Decimal('1.5000'))
print("ok")
"#;

#[test]
fn pymysql_round_trip() {
    let probe = Command::new("python3")
        .args(["-c", "import pymysql"])
        .output();
    match probe {
        Ok(o) if o.status.success() => {}
        _ => panic!("python3 with pymysql is required: apt-get install -y python3-pymysql"),
    }
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let out = Command::new("python3")
        .args(["-c", SCRIPT, &server.port.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pymysql script failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
}
