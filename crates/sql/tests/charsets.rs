//! Table and column character sets through the engine: kept and shown as MariaDB 10.11 shows
//! them (also after a reopen: the catalog stores SHOW CREATE TABLE text), ALTER TABLE changing
//! the table default or converting the columns, values outside a character set refused (strict)
//! or replaced by `?` (non-strict) with 1366, and MariaDB's errors for bad names.

mod sessions;

use sessions::{err_code, exec, open, rows};

fn show_create(s: &mut betula_sql::Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

#[test]
fn character_sets_are_kept_shown_and_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let expected = "CREATE TABLE `t` (\n  \
         `a` int(11) DEFAULT NULL,\n  \
         `b` char(8) DEFAULT NULL,\n  \
         `c` varchar(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_bin DEFAULT NULL,\n  \
         `d` text CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci DEFAULT NULL,\n  \
         KEY `kb` (`b`)\n\
         ) ENGINE=MEMORY DEFAULT CHARSET=latin1 COLLATE=latin1_general_cs";
    {
        let (_e, mut s) = open(
            dir.path(),
            &[
                "CREATE TABLE t (a INT, b CHAR(8), c VARCHAR(10) CHARACTER SET utf8 COLLATE utf8_bin, \
                 d TEXT CHARACTER SET utf8mb4, KEY kb (b)) \
                 ENGINE=memory CHARACTER SET latin1 COLLATE latin1_general_cs",
                "INSERT INTO t VALUES (1, 'é€', 'Ā', '😀')",
            ],
        );
        assert_eq!(show_create(&mut s, "t"), expected);
    }
    let (_e, mut s) = open(dir.path(), &[]);
    assert_eq!(show_create(&mut s, "t"), expected);
    assert_eq!(
        rows(&mut s, "SELECT b, c, d FROM t WHERE b = 'é€'"),
        vec![vec!["é€", "Ā", "😀"]]
    );
    let status = rows(&mut s, "SHOW TABLE STATUS LIKE 't'");
    assert_eq!(
        (status[0][1].as_str(), status[0][14].as_str()),
        ("MEMORY", "latin1_general_cs")
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLUMN_NAME, CHARACTER_SET_NAME, COLLATION_NAME, CHARACTER_OCTET_LENGTH \
             FROM information_schema.COLUMNS WHERE TABLE_NAME = 't' AND DATA_TYPE <> 'int' \
             ORDER BY ORDINAL_POSITION"
        ),
        vec![
            vec!["b", "latin1", "latin1_general_cs", "8"],
            vec!["c", "utf8mb3", "utf8mb3_bin", "30"],
            vec!["d", "utf8mb4", "utf8mb4_general_ci", "65535"],
        ]
    );
}

#[test]
fn alter_table_changes_the_default_or_converts_the_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (a INT, b CHAR(8)) CHARACTER SET latin1",
            "INSERT INTO t VALUES (1, 'z')",
        ],
    );
    exec(&mut s, "ALTER TABLE t CONVERT TO CHARACTER SET utf8");
    assert!(show_create(&mut s, "t").ends_with(
        "`b` char(8) DEFAULT NULL\n) ENGINE=Betula DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci"
    ));
    exec(
        &mut s,
        "ALTER TABLE t DEFAULT CHARACTER SET = latin1 COLLATE latin1_general_ci",
    );
    assert!(show_create(&mut s, "t").contains(
        "`b` char(8) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci DEFAULT NULL\n\
         ) ENGINE=Betula DEFAULT CHARSET=latin1 COLLATE=latin1_general_ci"
    ));
    // a column added afterwards takes the new default
    exec(&mut s, "ALTER TABLE t ADD c VARCHAR(3)");
    assert!(show_create(&mut s, "t").contains("`c` varchar(3) DEFAULT NULL"));
    exec(&mut s, "ALTER TABLE t ENGINE=MyISAM");
    assert!(show_create(&mut s, "t").contains(") ENGINE=MyISAM DEFAULT CHARSET=latin1"));
    exec(&mut s, "ALTER TABLE t ENGINE=InnoDB");
    assert!(show_create(&mut s, "t").contains(") ENGINE=Betula DEFAULT CHARSET=latin1"));
    assert_eq!(rows(&mut s, "SELECT a, b FROM t"), vec![vec!["1", "z"]]);
}

#[test]
fn values_outside_the_character_set_are_1366() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE t (id INT PRIMARY KEY, l VARCHAR(5) CHARACTER SET latin1, \
           u VARCHAR(5) CHARACTER SET utf8mb3)",
        ],
    );
    assert_eq!(err_code(&mut s, "INSERT INTO t VALUES (1, 'aĀ', '')"), 1366);
    let e = s
        .execute("INSERT INTO t VALUES (1, '', 'x😀')", &[])
        .unwrap_err();
    assert_eq!(e.code.number(), 1366);
    assert_eq!(
        e.message,
        "Incorrect string value: '\\xF0\\x9F\\x98\\x80' for column `test`.`t`.`u` at row 1"
    );
    exec(&mut s, "SET sql_mode = ''");
    exec(&mut s, "INSERT INTO t VALUES (1, 'aĀé', 'x😀y')");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS")
            .iter()
            .map(|w| w[1].clone())
            .collect::<Vec<_>>(),
        vec!["1366", "1366"]
    );
    assert_eq!(rows(&mut s, "SELECT l, u FROM t"), vec![vec!["a?é", "x?y"]]);
}

#[test]
fn bad_character_set_clauses_are_mariadb_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(dir.path(), &[]);
    assert_eq!(
        err_code(&mut s, "CREATE TABLE t (a CHAR(1)) CHARACTER SET koi9"),
        1115
    );
    assert_eq!(
        err_code(&mut s, "CREATE TABLE t (a CHAR(1) COLLATE latin1_nope)"),
        1273
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE TABLE t (a CHAR(1) CHARACTER SET latin1 COLLATE utf8mb4_bin)"
        ),
        1253
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE TABLE t (a CHAR(1)) CHARACTER SET utf8 COLLATE latin1_bin"
        ),
        1253
    );
    exec(&mut s, "CREATE TABLE t (a CHAR(1))");
    assert_eq!(
        err_code(&mut s, "ALTER TABLE t CONVERT TO CHARACTER SET nope"),
        1115
    );
}

#[test]
fn varchar_length_limits_follow_the_character_set() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, mut s) = open(
        dir.path(),
        &[
            "CREATE TABLE v (a VARCHAR(65532), b VARCHAR(21844) CHARACTER SET utf8, \
           c VARCHAR(16383) CHARACTER SET utf8mb4) CHARACTER SET latin1",
        ],
    );
    assert_eq!(
        rows(&mut s, "SHOW COLUMNS FROM v")
            .into_iter()
            .map(|r| r[1].clone())
            .collect::<Vec<_>>(),
        vec!["varchar(65532)", "varchar(21844)", "varchar(16383)"]
    );
    let e = s
        .execute("CREATE TABLE w (a VARCHAR(21845) CHARACTER SET utf8)", &[])
        .unwrap_err();
    assert_eq!(
        (e.code.number(), e.message.as_str()),
        (
            1074,
            "Column length too big for column 'a' (max = 21844); use BLOB or TEXT instead"
        )
    );
    assert_eq!(
        err_code(
            &mut s,
            "CREATE TABLE w (a VARCHAR(65533)) CHARACTER SET latin1"
        ),
        1074
    );
    // non-strict: too long becomes TEXT with note 1246, sized for the character set's bytes
    exec(&mut s, "SET sql_mode = ''");
    exec(
        &mut s,
        "CREATE TABLE w (a VARCHAR(70000)) CHARACTER SET latin1",
    );
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1246");
    assert_eq!(rows(&mut s, "SHOW COLUMNS FROM w")[0][1], "mediumtext");
}

/// Server → database → table → column, as MariaDB: a database takes `collation_server` unless
/// it names its own, a table its database's, and both survive a reopen.
#[test]
fn databases_have_defaults_that_tables_inherit() {
    let dir = tempfile::tempdir().unwrap();
    let db_text =
        "CREATE DATABASE `l1` /*!40100 DEFAULT CHARACTER SET latin1 COLLATE latin1_bin */ \
                   COMMENT 'legacy'";
    {
        let (_e, mut s) = open(
            dir.path(),
            &[
                "SET character_set_server = latin1",
                "CREATE DATABASE l1 COMMENT 'legacy'",
                "ALTER DATABASE l1 COLLATE latin1_bin",
                "CREATE DATABASE u1 CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
            ],
        );
        assert_eq!(rows(&mut s, "SHOW CREATE DATABASE l1")[0][1], db_text);
        exec(&mut s, "USE l1");
        assert_eq!(
            rows(
                &mut s,
                "SELECT @@character_set_database, @@collation_database"
            ),
            vec![vec!["latin1", "latin1_bin"]]
        );
        exec(
            &mut s,
            "CREATE TABLE t (a VARCHAR(3), b VARCHAR(3) CHARACTER SET utf8mb4)",
        );
    }
    let (e, mut s) = open(dir.path(), &[]);
    assert_eq!(rows(&mut s, "SHOW CREATE DATABASE l1")[0][1], db_text);
    assert_eq!(
        show_create(&mut s, "l1.t"),
        "CREATE TABLE `t` (\n  `a` varchar(3) DEFAULT NULL,\n  \
         `b` varchar(3) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci DEFAULT NULL\n\
         ) ENGINE=Betula DEFAULT CHARSET=latin1 COLLATE=latin1_bin"
    );
    exec(&mut s, "CREATE TABLE u1.t (a TEXT)");
    assert!(show_create(&mut s, "u1.t").ends_with("DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"));
    assert_eq!(
        rows(
            &mut s,
            "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME, SCHEMA_COMMENT \
             FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'l1'"
        ),
        vec![vec!["latin1", "latin1_bin", "legacy"]]
    );
    // SET GLOBAL reaches new sessions; the two server variables move together.
    exec(&mut s, "SET GLOBAL collation_server = ascii_bin");
    let mut s2 = e.session(2, "root", "localhost");
    assert_eq!(
        rows(
            &mut s2,
            "SELECT @@character_set_server, @@character_set_database"
        ),
        vec![vec!["ascii", "ascii"]]
    );
    exec(&mut s2, "CREATE DATABASE a1");
    assert!(rows(&mut s2, "SHOW CREATE DATABASE a1")[0][1]
        .contains("CHARACTER SET ascii COLLATE ascii_bin"));
    assert_eq!(err_code(&mut s, "SET character_set_server = bogus"), 1115);
    assert_eq!(err_code(&mut s, "SET collation_server = bogus"), 1273);
    assert_eq!(
        err_code(
            &mut s,
            "CREATE DATABASE x CHARACTER SET latin1 COLLATE utf8mb4_bin"
        ),
        1253
    );
    assert_eq!(
        err_code(&mut s, "ALTER DATABASE nosuch CHARACTER SET latin1"),
        1049
    );
}
