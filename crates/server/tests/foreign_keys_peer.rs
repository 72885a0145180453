//! FOREIGN KEY constraints answer as in MariaDB 10.11 (InnoDB): the same statements go to a
//! private MariaDB and to Betula through the `mariadb` client, and the outputs (rows, or the
//! error line) must be equal byte for byte: SHOW CREATE TABLE and SHOW INDEX (the constraint
//! lines and the index made for them), information_schema REFERENTIAL_CONSTRAINTS,
//! TABLE_CONSTRAINTS and KEY_COLUMN_USAGE, the errors (1452, 1451, 1005, 1239, 1091, 1553, 1701,
//! 1506, DROP TABLE's 1451, a constraint name taken in the database: 1005 errno 121 and 1061,
//! a referencing or referenced column's type changed: 1832, 1833; renamed: the constraints follow),
//! the rows after CASCADE and SET NULL, RENAME TABLE of a referenced
//! table, `foreign_key_checks = 0`, and a mariadb-dump of MariaDB's tables loaded into Betula.
//!
//! SHOW CREATE TABLE differs only in `ENGINE=`, compared after writing Betula's as InnoDB. Not
//! compared: ALTER TABLE ADD FOREIGN KEY over rows that break it (MariaDB names its temporary
//! `#sql-alter-...` table in the message, Betula the table), and a second constraint over the
//! columns of an existing one's index (InnoDB may rename that index).
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

use mariadb_peer::{answers, assert_same_answers, client, MariaDb};

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE p (id INT PRIMARY KEY, b INT, UNIQUE KEY (b)) ENGINE=InnoDB;
CREATE TABLE c (id INT PRIMARY KEY, pid INT,
  FOREIGN KEY (pid) REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE) ENGINE=InnoDB;
CREATE TABLE c2 (id INT PRIMARY KEY, pid INT, pb INT,
  CONSTRAINT fkx FOREIGN KEY (pid) REFERENCES p(id) ON DELETE SET NULL,
  FOREIGN KEY idxn (pb) REFERENCES p(b), CHECK (id > 0)) ENGINE=InnoDB;
CREATE TABLE c3 (id INT PRIMARY KEY, pid INT, KEY (pid),
  FOREIGN KEY (pid) REFERENCES p(id) ON DELETE RESTRICT ON UPDATE NO ACTION) ENGINE=InnoDB;
CREATE TABLE c4 (id INT PRIMARY KEY, pid INT REFERENCES p(id)) ENGINE=InnoDB;
CREATE TABLE c5 (id INT PRIMARY KEY, a INT, b INT, CONSTRAINT zc5 FOREIGN KEY (a) REFERENCES p(id),
  FOREIGN KEY (b) REFERENCES p(id)) ENGINE=InnoDB;
CREATE TABLE s (id INT PRIMARY KEY, pid INT,
  FOREIGN KEY (pid) REFERENCES s(id) ON DELETE CASCADE) ENGINE=InnoDB;
INSERT INTO p VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO c VALUES (1, 1), (2, 2), (3, NULL);
INSERT INTO c2 VALUES (1, 1, 10), (2, 2, NULL);
INSERT INTO s VALUES (1, NULL), (2, 1), (3, 2), (4, NULL);";

const QUERIES: &[&str] = &[
    "SHOW CREATE TABLE c",
    "SHOW CREATE TABLE c2",
    "SHOW CREATE TABLE c3",
    "SHOW CREATE TABLE c4",
    "SHOW CREATE TABLE c5",
    "SHOW INDEX FROM c2",
    "SELECT * FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'peer' ORDER BY CONSTRAINT_NAME",
    "SELECT CONSTRAINT_NAME, TABLE_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'peer' ORDER BY TABLE_NAME, CONSTRAINT_TYPE, CONSTRAINT_NAME",
    "SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'peer' ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION",
    "INSERT INTO c VALUES (10, 9)",
    "UPDATE c SET pid = 8 WHERE id = 1",
    "INSERT INTO c2 VALUES (10, NULL, 11)",
    "INSERT INTO c VALUES (11, 3), (12, 7)",
    "SELECT * FROM c ORDER BY id",
    "INSERT INTO c3 VALUES (1, 3)",
    "DELETE FROM p WHERE id = 3",
    "UPDATE p SET id = 33 WHERE id = 3",
    "DELETE FROM c3",
    "UPDATE p SET id = 5 WHERE id = 2; SELECT * FROM c ORDER BY id; SELECT * FROM c2 ORDER BY id",
    "DELETE FROM p WHERE id = 1",
    "DELETE FROM c2 WHERE pb = 10; DELETE FROM p WHERE id = 1; SELECT * FROM c ORDER BY id; SELECT * FROM c2 ORDER BY id",
    "UPDATE p SET b = 21 WHERE id = 5",
    "DELETE FROM s WHERE id = 1; SELECT * FROM s ORDER BY id",
    "CREATE TABLE cl LIKE c; SHOW CREATE TABLE cl",
    "CREATE TABLE s3 LIKE s; INSERT INTO s3 SELECT * FROM s; ALTER TABLE s3 ADD FOREIGN KEY (pid) REFERENCES s3(id) ON DELETE CASCADE; INSERT INTO s3 VALUES (10, NULL), (11, 10), (12, 11); DELETE FROM s3; SELECT ROW_COUNT(); SELECT count(*) FROM s3",
    "INSERT INTO s VALUES (5, 6), (6, 5)",
    "INSERT INTO s VALUES (7, 7); SELECT * FROM s ORDER BY id",
    "DROP TABLE p",
    "TRUNCATE TABLE p",
    "CREATE TABLE x1 (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p(nope)) ENGINE=InnoDB",
    "CREATE TABLE x2 (id INT, pid INT, FOREIGN KEY (pid) REFERENCES nope(id)) ENGINE=InnoDB",
    "CREATE TABLE x3 (id INT, pid BIGINT, FOREIGN KEY (pid) REFERENCES p(id)) ENGINE=InnoDB",
    "CREATE TABLE x4 (id INT, a INT, b INT, FOREIGN KEY (a, b) REFERENCES p(id)) ENGINE=InnoDB",
    "CREATE TABLE x5 (id INT, pid INT NOT NULL, FOREIGN KEY (pid) REFERENCES p(id) ON DELETE SET NULL) ENGINE=InnoDB",
    "CREATE TABLE x6 (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p(id)) ENGINE=InnoDB PARTITION BY HASH(id) PARTITIONS 2",
    "CREATE TEMPORARY TABLE x7 (id INT, pid INT, FOREIGN KEY (pid) REFERENCES p(id)) ENGINE=InnoDB",
    "ALTER TABLE c4 ADD FOREIGN KEY (pid) REFERENCES p(id); ALTER TABLE c4 ADD CONSTRAINT zz FOREIGN KEY (id) REFERENCES p(id); SHOW CREATE TABLE c4",
    "ALTER TABLE c4 DROP FOREIGN KEY nope",
    "ALTER TABLE c4 DROP FOREIGN KEY zz; SHOW CREATE TABLE c4",
    "RENAME TABLE s TO s2; SHOW CREATE TABLE s2; RENAME TABLE s2 TO s",
    "RENAME TABLE p TO p9; SHOW CREATE TABLE c; INSERT INTO c VALUES (20, 99); RENAME TABLE p9 TO p",
    "ALTER TABLE c4 ADD CONSTRAINT c4_ibfk_1 FOREIGN KEY (pid) REFERENCES p(id)",
    "ALTER TABLE c4 DROP INDEX pid",
    "ALTER TABLE c4 DROP COLUMN pid",
    "CREATE TABLE d1 (id INT PRIMARY KEY, pid INT, CONSTRAINT FKX FOREIGN KEY (pid) REFERENCES p(id)) ENGINE=InnoDB",
    "SET foreign_key_checks = 0; CREATE TABLE d2 (id INT PRIMARY KEY, pid INT, CONSTRAINT zc5 FOREIGN KEY (pid) REFERENCES p(id)) ENGINE=InnoDB",
    "CREATE TABLE d3 (id INT PRIMARY KEY, pid INT, qid INT, CONSTRAINT dd FOREIGN KEY (pid) REFERENCES p(id), CONSTRAINT dd FOREIGN KEY (qid) REFERENCES p(id)) ENGINE=InnoDB",
    "ALTER TABLE c3 ADD CONSTRAINT fkx FOREIGN KEY (pid) REFERENCES p(id)",
    "CREATE TABLE d4 (id INT PRIMARY KEY, pid INT, CONSTRAINT d4k FOREIGN KEY (pid) REFERENCES p(id)) ENGINE=InnoDB; ALTER TABLE d4 DROP FOREIGN KEY d4k, ADD CONSTRAINT d4k FOREIGN KEY (pid) REFERENCES p(id)",
    "SELECT CONSTRAINT_NAME, TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'peer' ORDER BY CONSTRAINT_NAME, TABLE_NAME",
    "CREATE TABLE tp (id INT PRIMARY KEY) ENGINE=InnoDB; CREATE TABLE tc (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES tp (id)) ENGINE=InnoDB",
    "ALTER TABLE tc MODIFY pid BIGINT",
    "ALTER TABLE tp MODIFY id BIGINT",
    "ALTER TABLE tc MODIFY pid INT NOT NULL COMMENT 'x'; ALTER TABLE tc CHANGE pid pid2 INT; SHOW CREATE TABLE tc",
    "ALTER TABLE tp CHANGE id id2 INT; SHOW CREATE TABLE tc",
    "ALTER TABLE tc MODIFY pid2 SMALLINT",
    "ALTER TABLE tp MODIFY id2 INT UNSIGNED",
    "SET foreign_key_checks = 0; ALTER TABLE tc MODIFY pid2 BIGINT",
    "ALTER TABLE tp RENAME COLUMN id2 TO id3; SHOW CREATE TABLE tc; INSERT INTO tc VALUES (1, 5)",
    "SET foreign_key_checks = 0; CREATE TABLE late (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES later(id)) ENGINE=InnoDB; INSERT INTO late VALUES (1, 99); SHOW CREATE TABLE late; DELETE FROM p; SELECT count(*) FROM c",
    "INSERT INTO late VALUES (2, 98)",
    "SET foreign_key_checks = 0; DROP TABLE p; SHOW TABLES",
];

/// Betula's SHOW CREATE TABLE names its engine; MariaDB's says InnoDB.
fn as_innodb(out: String) -> String {
    out.replace("ENGINE=Betula", "ENGINE=InnoDB")
}

#[test]
fn foreign_keys_answer_as_mariadb() {
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

    // A dump of MariaDB's tables (which turns foreign_key_checks off) loads into Betula and
    // shows the same definitions.
    let dump = String::from_utf8(maria.dump(&["peer", "c", "c2", "c3", "s"])).unwrap();
    let load = format!("CREATE DATABASE restored; USE restored;\n{dump}");
    assert!(
        client(betula.port, &load).trim().is_empty(),
        "the dump loads"
    );
    let check = [
        "SHOW CREATE TABLE c",
        "SHOW CREATE TABLE c2",
        "SHOW CREATE TABLE s",
        "SELECT * FROM s ORDER BY id",
    ];
    let read = |port: u16, db: &str| -> Vec<String> {
        check
            .iter()
            .map(|q| as_innodb(client(port, &format!("USE {db};\n{q};\n"))))
            .collect()
    };
    assert_same_answers(
        &check,
        &read(maria.port, "peer"),
        &read(betula.port, "restored"),
    );
}
