//! Sequence tables (`seq_1_to_10`, `seq_1_to_10_step_3`, `seq_10_to_1`: MariaDB's Sequence
//! engine) answer as MariaDB 10.11 answers them: their values in the order a scan reads them,
//! in any database (even one that does not exist), joined, aggregated and inserted from; the
//! names that are no sequence (1146), step 0 (1030), every write refused (1031); and the
//! SEQUENCE row of information_schema.ENGINES. The same statements go to a private MariaDB and
//! to Betula through the `mariadb` client, and the outputs must be equal byte for byte.
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing (catalog/sequence_table.rs's unit tests cover
//! the values).

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer;";

const QUERIES: &[&str] = &[
    "SELECT * FROM seq_1_to_3",
    "SELECT * FROM seq_5_to_1",
    "SELECT * FROM seq_1_to_10_step_3",
    "SELECT * FROM seq_10_to_2_step_3",
    "SELECT * FROM seq_1_to_0",
    "SELECT * FROM seq_0_to_1_step_18446744073709551615",
    "SELECT * FROM seq_18446744073709551615_to_18446744073709551614",
    "SELECT * FROM seq_1_to_18446744073709551615 LIMIT 3",
    "SELECT * FROM nosuchdb.seq_1_to_2",
    "SELECT SUM(seq), COUNT(*), MIN(seq), MAX(seq) FROM seq_1_to_100",
    "SELECT a.seq, b.seq FROM seq_1_to_2 a, seq_1_to_2 b ORDER BY 1, 2",
    "SELECT seq FROM seq_1_to_3 s WHERE s.seq = 2",
    "SELECT seq FROM seq_1_to_3 WHERE seq IN (SELECT seq FROM seq_2_to_5)",
    "SELECT seq, ROW_NUMBER() OVER (ORDER BY seq DESC) FROM seq_1_to_4 ORDER BY seq",
    "CREATE TABLE sq (a INT, b INT); INSERT INTO sq SELECT seq, seq * 2 FROM seq_1_to_5; \
     SELECT * FROM sq; DROP TABLE sq",
    "CREATE TABLE sx AS SELECT * FROM seq_1_to_2; SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE \
     FROM information_schema.COLUMNS WHERE TABLE_NAME = 'sx'; DROP TABLE sx",
    "SELECT * FROM SEQ_1_TO_2",
    "SELECT * FROM seq_1_to_2x",
    "SELECT * FROM seq_1_to_2_step_",
    "SELECT * FROM seq_3_to_3_step_0",
    "INSERT INTO seq_1_to_3 VALUES (4)",
    "UPDATE seq_1_to_3 SET seq = 1",
    "DELETE FROM seq_1_to_3",
    "TRUNCATE seq_1_to_3",
    "SELECT ENGINE, SUPPORT, COMMENT, TRANSACTIONS, XA, SAVEPOINTS FROM information_schema.ENGINES \
     WHERE ENGINE = 'SEQUENCE'",
];

#[test]
fn sequence_tables_answer_as_mariadb() {
    mariadb_peer::compare_with_mariadb(SETUP, QUERIES);
}
