//! Generated columns answer as in MariaDB 10.11: the same statements go to a private MariaDB
//! (InnoDB) and to Betula through the `mariadb` client, and the outputs (rows, or the error
//! line) must be equal byte for byte: SHOW CREATE TABLE and information_schema.COLUMNS (the
//! printed expression, EXTRA, IS_GENERATED), the computed values after INSERT, REPLACE, UPDATE,
//! ON DUPLICATE KEY UPDATE and ALTER TABLE, error 1906 in strict mode and its warning
//! otherwise, and the refusals (1901, 1903, 4029, 1054). Then a mariadb-dump of MariaDB's table
//! (which writes the generated values in its INSERTs, under a non-strict sql_mode) loads into
//! Betula, so does a mariadb-dump of Betula's, and the definitions survive a restart.
//!
//! SHOW CREATE TABLE differs only in `ENGINE=` (Betula names itself), which is compared after
//! writing Betula's as InnoDB. Not compared: the VIRTUAL columns MariaDB accepts with a
//! function of the session or of time (`AS (rand()) VIRTUAL`), which Betula refuses (1901: it
//! stores every generated value, design.md GEN2).
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

use mariadb_peer::{answers, assert_same_answers, client, MariaDb};

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE g (id INT PRIMARY KEY, a INT, b VARCHAR(10), v INT AS (a * 2) VIRTUAL,
  s VARCHAR(20) GENERATED ALWAYS AS (concat(b, 'x')) STORED, p INT AS (a + 1) PERSISTENT,
  w INT AS (p * 3) VIRTUAL, KEY (p), KEY kw (w, s));
INSERT INTO g (id, a, b) VALUES (1, 2, 'q'), (2, 3, 'r'), (3, NULL, 's'), (4, -4, NULL);
CREATE TABLE x (a INT, b VARCHAR(10), c VARCHAR(30) AS (CONCAT(b, '-', LOWER(b))) VIRTUAL,
  d INT AS ((a+1)*(a-1)) STORED, e INT AS (a DIV 2), f INT AS (IF(a > 1, a, -a)) PERSISTENT,
  g INT AS (length(b)), h INT AS (a BETWEEN 1 AND 5), i INT AS (a IN (1,2)),
  j INT AS (CASE WHEN a > 0 THEN 1 ELSE 0 END), k INT AS (a IS NULL), l INT AS (a % 3) COMMENT 'm');
INSERT INTO x (a, b) VALUES (1, 'Ab'), (NULL, NULL), (4, 'xY'), (-7, '');";

const QUERIES: &[&str] = &[
    "SHOW CREATE TABLE g",
    "SHOW CREATE TABLE x",
    "SELECT column_name, column_default, is_nullable, extra, is_generated, generation_expression FROM information_schema.columns WHERE table_schema = 'peer' AND table_name IN ('g', 'x') ORDER BY table_name, ordinal_position",
    "SHOW COLUMNS FROM g",
    "SELECT * FROM g ORDER BY id",
    "SELECT * FROM x ORDER BY a",
    "INSERT INTO g (id, a, b) VALUES (10, 5, 'z'); SELECT * FROM g WHERE id = 10",
    "INSERT INTO g VALUES (11, 1, 'y', 5, DEFAULT, DEFAULT, DEFAULT)",
    "INSERT INTO g SET id = 12, a = 1, s = 'no'",
    "UPDATE g SET v = 3",
    "UPDATE g SET v = DEFAULT, a = a + 1 WHERE id = 1; SELECT * FROM g ORDER BY id",
    "SET sql_mode = ''; INSERT INTO g VALUES (13, 2, 'x', 9, 'nine', 9, DEFAULT); SHOW WARNINGS; SELECT * FROM g WHERE id = 13",
    "INSERT IGNORE INTO g VALUES (14, 7, 'i', 1, 2, 3, 4); SHOW WARNINGS; SELECT * FROM g WHERE id = 14",
    "SET sql_mode = ''; UPDATE g SET p = 1 WHERE id = 2; SHOW WARNINGS; SELECT * FROM g WHERE id = 2",
    "UPDATE g SET a = a + 10 WHERE id <= 3; SELECT * FROM g ORDER BY id",
    "UPDATE g SET b = NULL WHERE id = 2; SELECT * FROM g ORDER BY id",
    "REPLACE INTO g (id, a, b) VALUES (1, 100, 'r'); SELECT * FROM g ORDER BY id",
    "REPLACE INTO g VALUES (2, 1, 'no', 1, DEFAULT, DEFAULT, DEFAULT)",
    "INSERT INTO g (id, a, b) VALUES (1, 0, 'd') ON DUPLICATE KEY UPDATE a = a * 2, b = 'odku'; SELECT * FROM g ORDER BY id",
    "SELECT id, p FROM g WHERE p = 4",
    "SELECT id, w, s FROM g WHERE w > 10 ORDER BY w",
    "SELECT b, c, g FROM x WHERE c LIKE 'x%'",
    "CREATE TABLE e1 (a INT, b INT AS (rand()) STORED)",
    "CREATE TABLE e2 (a INT, b DATETIME AS (now()) STORED)",
    "CREATE TABLE e3 (a INT, b INT AS (@x) STORED)",
    "CREATE TABLE e4 (a INT, b VARCHAR(20) AS (@@sql_mode) STORED)",
    "CREATE TABLE e5 (a INT, b INT AS ((SELECT 1)))",
    "CREATE TABLE e6 (a INT, b INT AS (sum(a)))",
    "CREATE TABLE e7 (a INT AUTO_INCREMENT PRIMARY KEY, b INT AS (a + 1) STORED)",
    "CREATE TABLE e8 (a INT, b INT AS (c + 1), c INT AS (a + 1))",
    "CREATE TABLE e9 (a INT, b INT AS (b + 1))",
    "CREATE TABLE e10 (a INT, b INT AS (zz + 1))",
    "CREATE TABLE e11 (a INT, b INT AS (a + 1) STORED, PRIMARY KEY (b))",
    "CREATE TABLE e12 (a INT, b VARCHAR(10) AS (uuid()) STORED)",
    "CREATE TABLE e13 (a INT, b INT AS (connection_id()) STORED)",
    "CREATE TABLE e14 (a INT, b INT AS (unix_timestamp()) STORED)",
    "CREATE TABLE ok1 (a INT, b INT AS (c + 1), c INT); INSERT INTO ok1 (a, c) VALUES (1, 2); SELECT * FROM ok1",
    "CREATE TABLE ok2 (a INT AUTO_INCREMENT PRIMARY KEY, b INT AS (a * 10) VIRTUAL); INSERT INTO ok2 (a) VALUES (NULL), (NULL); SELECT * FROM ok2",
    "CREATE TABLE st (a INT, c TINYINT AS (a * 100) STORED); INSERT INTO st (a) VALUES (2)",
    "CREATE TABLE vt (a INT, c TINYINT AS (a * 100) VIRTUAL); INSERT INTO vt (a) VALUES (2), (-1); SELECT * FROM vt",
    "CREATE TABLE tr (a VARCHAR(10), c VARCHAR(3) AS (concat(a, 'xyz')) STORED); INSERT INTO tr (a) VALUES ('1')",
    "ALTER TABLE x ADD COLUMN m INT AS (a * 10) STORED, ADD KEY (m); SHOW CREATE TABLE x; SELECT a, m FROM x ORDER BY a",
    "ALTER TABLE x DROP COLUMN c; SELECT * FROM x ORDER BY a",
    "ALTER TABLE x MODIFY d BIGINT AS (a * a) STORED; SELECT a, d FROM x ORDER BY a",
    "ALTER TABLE x MODIFY e INT AS (a DIV 2) STORED",
    "ALTER TABLE x MODIFY b VARCHAR(10) AS (a) VIRTUAL",
    "ALTER TABLE x MODIFY g INT",
    "ALTER TABLE x MODIFY b VARCHAR(20) AS (concat(a, '!')) STORED, MODIFY h INT AS (a BETWEEN 1 AND 5) VIRTUAL; SELECT * FROM x ORDER BY a",
    "ALTER TABLE x MODIFY f INT; UPDATE x SET a = 2; SELECT a, d, f FROM x",
    "ALTER TABLE x DROP COLUMN a",
    "ALTER TABLE x ADD COLUMN z INT AS (q + 1)",
    "ALTER TABLE x ADD COLUMN z INT AS (rand()) STORED",
];

/// Betula's SHOW CREATE TABLE names its engine; MariaDB's says InnoDB.
fn as_innodb(out: String) -> String {
    out.replace("ENGINE=Betula", "ENGINE=InnoDB")
}

#[test]
fn generated_columns_answer_as_mariadb() {
    let Some(maria) = MariaDb::start() else {
        eprintln!("mariadbd is not installed: nothing compared");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let betula = betula::BetulaServer::start(dir.path());
    let want = answers(maria.port, SETUP, QUERIES);
    let got: Vec<String> = answers(betula.port, SETUP, QUERIES)
        .into_iter()
        .map(as_innodb)
        .collect();
    assert_same_answers(QUERIES, &want, &got);

    // mariadb-dump of MariaDB's table loads into Betula (its INSERT carries the generated
    // values, ignored with a warning under the dump's non-strict sql_mode).
    let dump = String::from_utf8(maria.dump(&["peer", "g", "x"])).unwrap();
    let load = format!("CREATE DATABASE restored; USE restored;\n{dump}");
    assert!(
        client(betula.port, &load).trim().is_empty(),
        "the dump loads"
    );
    let check = [
        "SHOW CREATE TABLE g",
        "SHOW CREATE TABLE x",
        "SELECT * FROM g ORDER BY id",
        "SELECT * FROM x ORDER BY a",
    ];
    let read = |port: u16, db: &str| -> Vec<String> {
        check
            .iter()
            .map(|q| as_innodb(client(port, &format!("USE {db};\n{q};\n"))))
            .collect()
    };
    let from_maria = read(maria.port, "peer");
    assert_same_answers(&check, &from_maria, &read(betula.port, "restored"));

    // mariadb-dump of Betula's tables loads back into Betula.
    let o = std::process::Command::new("mariadb-dump")
        .args(["--no-defaults", "-h127.0.0.1", "-uroot"])
        .arg(format!("-P{}", betula.port))
        .args(["restored", "g", "x"])
        .output()
        .expect("run mariadb-dump");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let load = format!(
        "CREATE DATABASE again; USE again;\n{}",
        String::from_utf8(o.stdout).unwrap()
    );
    assert!(
        client(betula.port, &load).trim().is_empty(),
        "Betula's dump loads"
    );
    assert_same_answers(&check, &from_maria, &read(betula.port, "again"));

    // The definitions and values survive a restart.
    betula.stop();
    let betula = betula::BetulaServer::start(dir.path());
    assert_same_answers(&check, &from_maria, &read(betula.port, "restored"));
    assert_same_answers(&check, &from_maria, &read(betula.port, "peer"));
}
