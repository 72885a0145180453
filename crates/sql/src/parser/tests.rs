//! The front end: first-keyword dispatch and statement text → [`Statement`].

use super::alter::AlterOp;
use super::handler::{Dir, HandlerStmt};
use super::servers::ServerStmt;
use super::show::{Show, ShowStatement};
use super::statement::{MaintenanceOp, Statement as S, TableIndexes};
use super::users::{Credential, GrantOn, Identified};
use super::*;
use crate::error::code::ErrorCode;

fn p(sql: &str) -> Statement {
    parse_statement(&read(sql).text).unwrap_or_else(|e| panic!("{sql}: {e:?}"))
}

fn code(sql: &str) -> ErrorCode {
    match parse_statement(&read(sql).text) {
        Ok(s) => panic!("{sql} parsed: {s:?}"),
        Err(e) => e.code,
    }
}

fn show(sql: &str) -> Show {
    match p(sql) {
        S::Show(s) => s.what,
        other => panic!("{sql}: {other:?}"),
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_first_keyword_skips_space_and_comments() {
    let mut lx = Lexer::new("  /* a */ -- b\n # c\n\tSELECT 1");
    assert_eq!(
        lx.next().map(|(t, at)| (keyword(Some(t)), at)),
        Some((Some("SELECT".to_string()), 21))
    );
    // the lexer stops after the token asked for
    assert_eq!(lx.offset(), 27);
    for sql in [
        "SHOW TABLES",
        "show tables",
        "  /* c */ Show -- x\n tables",
        "# comment\nSHOW TABLES",
        "/*!40101 SHOW TABLES */",
        "LOAD INDEX INTO CACHE t",
        "EXPLAIN t",
        "explain `select`",
        "CREATE OR REPLACE SERVER s",
        "create unique index i on t (a)",
        "SET PASSWORD = 'x'",
    ] {
        assert_eq!(grammar_of(sql), Grammar::Own, "{sql}");
    }
    for sql in [
        "SELECT 1",
        "(SELECT 1)",
        "`SHOW` TABLES",
        "EXPLAIN SELECT 1",
        "EXPLAIN (SELECT 1)",
        "SET @a = 1",
        "LOAD x",
        "",
        "/* only a comment */",
    ] {
        assert_eq!(grammar_of(sql), Grammar::Sqlparser, "{sql}");
    }
    for sql in [
        "CREATE OR REPLACE TABLE t (a INT)",
        "CREATE TABLE t (a INT)",
        "create temporary table t (a int)",
    ] {
        assert_eq!(grammar_of(sql), Grammar::CreateTable, "{sql}");
    }
    assert_eq!(
        grammar_of("EXPLAIN PARTITIONS SELECT 1"),
        Grammar::ExplainPartitions
    );
    assert_eq!(
        grammar_of("explain extended select 1"),
        Grammar::ExplainExtended
    );
    assert_eq!(grammar_of(" insert into t values (1)"), Grammar::Insert);
    assert_eq!(grammar_of("/**/DELETE FROM t"), Grammar::UpdateDelete);
    assert_eq!(
        grammar_of("load data infile 'f' into table t"),
        Grammar::Load
    );
    assert_eq!(
        grammar_of("LOAD XML INFILE 'f' INTO TABLE t"),
        Grammar::Load
    );
    assert_eq!(grammar_of("Handler t OPEN"), Grammar::Handler);
}

#[test]
fn one_pass_finds_comments_to_expand_and_diagnostics_readers() {
    let r = read("/*!40101 SHOW TABLES */");
    assert!(matches!(r.text, Cow::Owned(_)));
    assert!(matches!(
        parse_statement(&r.text),
        Ok(S::Show(ShowStatement {
            what: Show::Tables { .. },
            ..
        }))
    ));
    assert!(matches!(read("SELECT 1").text, Cow::Borrowed(_)));
    // a newer version's comment is dropped
    assert!(matches!(p("/*!99999 SHOW TABLES */ SELECT 1"), S::Sql(_)));
    for sql in [
        "SHOW WARNINGS",
        "show  errors",
        "SHOW /* c */ WARNINGS LIMIT 1",
        "SELECT @@warning_count",
        "select @@Error_Count",
    ] {
        assert!(read(sql).reads_diagnostics, "{sql}");
    }
    for sql in [
        "SELECT 1",
        "SHOW TABLES",
        "SHOW COUNT(*) WARNINGS",
        "SELECT @warning_count",
    ] {
        assert!(!read(sql).reads_diagnostics, "{sql}");
    }
    let deep = format!("SELECT {}", vec!["1"; 100].join("+"));
    assert!(read(&deep).nesting >= 99);
}

#[test]
fn show_and_describe() {
    assert_eq!(
        show("SHOW FULL TABLES FROM db LIKE 'a%'"),
        Show::Tables {
            full: true,
            db: Some("db".into()),
            like: Some("a%".into())
        }
    );
    assert_eq!(show("show warnings"), Show::Warnings { errors_only: false });
    assert_eq!(show("SHOW ERRORS"), Show::Warnings { errors_only: true });
    assert_eq!(
        show("SHOW COLUMNS FROM t FROM db LIKE 'x'"),
        Show::Columns {
            full: false,
            table: strings(&["db", "t"]),
            like: Some("x".into())
        }
    );
    assert_eq!(
        show("DESCRIBE db.t c"),
        Show::Columns {
            full: false,
            table: strings(&["db", "t"]),
            like: Some("c".into())
        }
    );
    assert_eq!(
        show("SHOW GLOBAL VARIABLES LIKE 'max%'"),
        Show::Variables {
            global: true,
            like: Some("max%".into())
        }
    );
    assert_eq!(
        show("SHOW CREATE USER 'u'@'localhost'"),
        Show::CreateUser {
            user: "u".into(),
            host: "localhost".into()
        }
    );
    assert_eq!(show("SHOW TRIGGERS FROM db LIKE 'x'"), Show::Triggers);
    match p("SHOW TABLES WHERE Tables_in_db = 'a'") {
        S::Show(s) => assert_eq!(s.filter.unwrap().to_string(), "Tables_in_db = 'a'"),
        other => panic!("{other:?}"),
    }
    assert_eq!(code("SHOW FOO"), ErrorCode::ParseError);
    assert_eq!(code("SHOW TABLES garbage"), ErrorCode::ParseError);
    assert_eq!(code("SHOW COLUMNS t"), ErrorCode::ParseError);
    assert_eq!(code("DESCRIBE t a b"), ErrorCode::ParseError);
    assert!(matches!(
        p("SHOW CREATE VIEW d.v"),
        S::Show(ShowStatement { what: Show::CreateView { table }, .. }) if table == strings(&["d", "v"])
    ));
    assert_eq!(code("SHOW CREATE TRIGGER tr"), ErrorCode::NotSupportedYet);
}

#[test]
fn session_and_maintenance_statements() {
    assert!(matches!(p("/* hi */ BEGIN"), S::Begin));
    assert!(matches!(p("start transaction read only"), S::Begin));
    assert_eq!(code("START"), ErrorCode::ParseError);
    assert!(matches!(p("COMMIT AND CHAIN"), S::Commit));
    assert!(matches!(
        p("ROLLBACK WORK TO SAVEPOINT s1"),
        S::Rollback { to_savepoint: Some(n) } if n == "s1"
    ));
    assert!(matches!(p("ROLLBACK"), S::Rollback { to_savepoint: None }));
    assert!(matches!(p("SAVEPOINT `a b`"), S::Savepoint(n) if n == "a b"));
    assert_eq!(code("RELEASE s"), ErrorCode::ParseError);
    assert!(matches!(p("USE `db`"), S::Use(d) if d == "db"));
    assert!(matches!(p("KILL QUERY 12"), S::Kill(12, true)));
    assert!(matches!(p("KILL CONNECTION 3"), S::Kill(3, false)));
    assert!(matches!(p("KILL HARD 4"), S::Kill(4, false)));
    assert!(matches!(p("shutdown"), S::Shutdown));
    assert_eq!(code("KILL x"), ErrorCode::ParseError);
    assert!(matches!(p("FLUSH TABLES"), S::FlushTables { .. }));
    assert!(matches!(p("FLUSH LOGS"), S::Binlog(_)));
    assert!(matches!(p("LOCK TABLES t READ"), S::LockTables(_)));
    assert!(matches!(
        p("OPTIMIZE NO_WRITE_TO_BINLOG TABLE t, db.u"),
        S::Maintenance { op: MaintenanceOp::Optimize, tables } if tables.len() == 2
    ));
    assert!(matches!(
        p("CHECK TABLE t FOR UPGRADE"),
        S::Maintenance {
            op: MaintenanceOp::Check,
            ..
        }
    ));
    assert_eq!(code("ANALYZE t"), ErrorCode::ParseError);
    assert!(matches!(
        p("CHECKSUM TABLE a, b QUICK"),
        S::Checksum { quick: true, tables } if tables.len() == 2
    ));
    assert_eq!(code("CHECKSUM TABLE a junk"), ErrorCode::ParseError);
    match p("CACHE INDEX t1 INDEX (i, j), t2 IN c") {
        S::CacheIndex { tables, cache } => {
            assert_eq!(cache, "c");
            assert_eq!(
                tables[0],
                TableIndexes {
                    table: strings(&["t1"]),
                    indexes: strings(&["i", "j"])
                }
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        p("LOAD INDEX INTO CACHE t IGNORE LEAVES"),
        S::LoadIndex { tables } if tables.len() == 1
    ));
    assert_eq!(
        code("LOAD INDEX INTO CACHE t IGNORE"),
        ErrorCode::ParseError
    );
}

#[test]
fn ddl_statements() {
    assert!(matches!(
        p("CREATE DATABASE IF NOT EXISTS d DEFAULT CHARSET utf8mb4"),
        S::CreateDatabase { name, if_not_exists: true, options } if name == "d"
            && options.charset.as_deref() == Some("utf8mb4")
    ));
    assert!(matches!(
        p("CREATE DATABASE d CHARACTER SET = latin1 COLLATE latin1_bin COMMENT 'c'"),
        S::CreateDatabase { options, .. } if options.collate.as_deref() == Some("latin1_bin")
            && options.charset.as_deref() == Some("latin1")
            && options.comment.as_deref() == Some("c")
    ));
    assert!(matches!(
        p("ALTER DATABASE CHARACTER SET ascii"),
        S::AlterDatabase { name: None, options } if options.charset.as_deref() == Some("ascii")
    ));
    assert!(matches!(
        p("ALTER SCHEMA d DEFAULT COLLATE utf8mb4_bin"),
        S::AlterDatabase { name: Some(n), .. } if n == "d"
    ));
    for bad in [
        "CREATE DATABASE d ENGINE=x",
        "ALTER DATABASE d",
        "ALTER DATABASE",
        "CREATE DATABASE d CHARSET",
    ] {
        assert!(crate::parser::parse_statement(bad).is_err(), "{bad}");
    }
    assert!(matches!(
        p("drop schema if exists d"),
        S::DropDatabase { name, if_exists: true } if name == "d"
    ));
    match p("DROP TEMPORARY TABLE IF EXISTS a, b.c RESTRICT") {
        S::DropTables {
            names,
            if_exists,
            temporary,
        } => {
            assert!(if_exists && temporary);
            assert_eq!(names, vec![strings(&["a"]), strings(&["b", "c"])]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(code("DROP TABLE a b"), ErrorCode::ParseError);
    assert!(
        matches!(p("DROP VIEW v"), S::DropViews { names, if_exists: false } if names.len() == 1)
    );
    assert_eq!(code("DROP VIEW v w"), ErrorCode::ParseError);
    assert!(matches!(
        p("RENAME TABLE a TO b, c TO d.e"),
        S::RenameTables(pairs) if pairs.len() == 2 && pairs[1].1 == strings(&["d", "e"])
    ));
    assert!(matches!(p("TRUNCATE t"), S::Truncate { table } if table == strings(&["t"])));
    match p("CREATE UNIQUE INDEX i ON t (a(10), b DESC) USING BTREE") {
        S::CreateIndex {
            name,
            table,
            spec,
            unique,
        } => {
            assert!(unique);
            assert_eq!((name.as_str(), table), ("i", strings(&["t"])));
            assert_eq!(spec.columns, strings(&["a", "b"]));
            assert_eq!(spec.prefix, vec![Some(10), None]);
            assert_eq!(spec.using.as_deref(), Some("BTREE"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(code("CREATE INDEX i ON t (a) junk"), ErrorCode::ParseError);
    assert!(matches!(
        p("DROP INDEX i ON db.t"),
        S::DropIndex { name, table } if name == "i" && table.len() == 2
    ));
    match p("ALTER ONLINE TABLE t ADD COLUMN c INT AFTER a, DROP INDEX i") {
        S::AlterTable { table, ops, online } => {
            assert!(online);
            assert_eq!(table, strings(&["t"]));
            assert_eq!(ops.len(), 2);
            assert!(matches!(&ops[0], AlterOp::AddColumn { def, .. } if def == "c INT"));
            assert!(matches!(&ops[1], AlterOp::DropIndex { name, .. } if name == "i"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        code("ALTER TABLE t ADD SPATIAL INDEX (g)"),
        ErrorCode::NotSupportedYet
    );
    assert_eq!(code("ALTER TABLE t DISABLE"), ErrorCode::ParseError);
    assert!(matches!(p("ALTER VIEW v AS SELECT 1"), S::CreateView(v) if v.alter));
    assert_eq!(code("ALTER VIEW v AS DELETE FROM t"), ErrorCode::ParseError);
    assert!(matches!(
        p("CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'h', PORT 3306)"),
        S::Server(ServerStmt::Create { options, .. }) if options.len() == 2
    ));
    assert_eq!(
        code("CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (COLOR 'red')"),
        ErrorCode::ParseError
    );
    assert!(matches!(
        p("DROP SERVER IF EXISTS s"),
        S::Server(ServerStmt::Drop {
            if_exists: true,
            ..
        })
    ));
}

#[test]
fn account_statements() {
    match p("CREATE USER 'u'@'h' IDENTIFIED BY 'p', v REQUIRE SSL") {
        S::CreateUser {
            if_not_exists,
            users,
            require,
        } => {
            assert!(!if_not_exists);
            assert_eq!(require, Some(true));
            assert_eq!(users.len(), 2);
            assert_eq!(users[0].user.host, "h");
            assert_eq!(
                users[0].auth,
                Some(Identified {
                    plugin: None,
                    credential: Credential::Clear("p".into())
                })
            );
            assert_eq!(users[1].user.host, "%");
            assert_eq!(users[1].auth, None);
        }
        other => panic!("{other:?}"),
    }
    let auth_of = |sql: &str| match p(sql) {
        S::CreateUser { users, .. } | S::AlterUser { users, .. } => users[0].auth.clone().unwrap(),
        other => panic!("{other:?}"),
    };
    let via = |plugin: &str, credential| Identified {
        plugin: Some(plugin.into()),
        credential,
    };
    assert_eq!(
        auth_of("CREATE USER u IDENTIFIED VIA ed25519 USING PASSWORD('pw')"),
        via("ed25519", Credential::Clear("pw".into()))
    );
    assert_eq!(
        auth_of("ALTER USER u IDENTIFIED WITH caching_sha2_password BY 'pw'"),
        via("caching_sha2_password", Credential::Clear("pw".into()))
    );
    assert_eq!(
        auth_of("CREATE USER u IDENTIFIED WITH 'mysql_native_password' AS '*AB'"),
        via("mysql_native_password", Credential::Stored("*AB".into()))
    );
    assert_eq!(
        auth_of("CREATE USER u IDENTIFIED BY PASSWORD '*AB'"),
        Identified {
            plugin: None,
            credential: Credential::Stored("*AB".into())
        }
    );
    assert_eq!(
        auth_of("ALTER USER u IDENTIFIED VIA ed25519"),
        via("ed25519", Credential::Empty)
    );
    assert_eq!(
        code("CREATE USER u REQUIRE X509"),
        ErrorCode::NotSupportedYet
    );
    assert!(matches!(
        p("RENAME USER a TO b@'10.%'"),
        S::RenameUsers(pairs) if pairs[0].1.host == "10.%"
    ));
    assert!(matches!(
        p("GRANT SELECT, INSERT ON db.* TO u"),
        S::Grant { on: GrantOn::Database(d), revoke: false, .. } if d == "db"
    ));
    assert!(matches!(
        p("REVOKE ALL ON * FROM u"),
        S::Grant {
            on: GrantOn::Current,
            revoke: true,
            ..
        }
    ));
    assert!(matches!(
        p("GRANT ALL ON t TO u WITH GRANT OPTION"),
        S::Grant {
            on: GrantOn::CurrentTable,
            ..
        }
    ));
    assert!(matches!(
        p("SET PASSWORD FOR u = '*AB'"),
        S::SetPassword { user: Some(u), credential: Credential::Stored(s) } if u.name == "u" && s == "*AB"
    ));
    assert!(matches!(
        p("SET PASSWORD = PASSWORD('x')"),
        S::SetPassword { user: None, credential: Credential::Clear(s) } if s == "x"
    ));
    assert!(
        matches!(p("DROP USER IF EXISTS a, b@c"), S::DropUser { users, .. } if users.len() == 2)
    );
}

#[test]
fn data_statements() {
    assert!(matches!(p("INSERT INTO t VALUES (1)"), S::Insert(_)));
    assert!(matches!(p("INSERT INTO t VALUES (1+1)"), S::Sql(_)));
    assert!(matches!(p("UPDATE t SET a = 1"), S::Sql(_)));
    assert!(matches!(p("update t1, t2 set t1.a = 1"), S::MultiTable(_)));
    assert!(matches!(p("LOAD DATA INFILE 'f' INTO TABLE t"), S::Load(_)));
    assert!(matches!(
        p("HANDLER t OPEN AS h"),
        S::Handler(HandlerStmt::Open { alias: Some(a), .. }) if a == "h"
    ));
    match p("HANDLER h READ k >= (1, 2) WHERE a > 0 LIMIT 3") {
        S::Handler(HandlerStmt::Read {
            alias,
            key,
            dir: Dir::Cmp(op, vals),
            tail: Some(_),
        }) => {
            assert_eq!(
                (alias.as_str(), key.as_deref(), op.as_str()),
                ("h", Some("k"), ">=")
            );
            assert_eq!(vals.len(), 2);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        p("HANDLER h READ NEXT"),
        S::Handler(HandlerStmt::Read {
            key: None,
            dir: Dir::Next,
            tail: None,
            ..
        })
    ));
    assert_eq!(code("HANDLER h READ k <> (1)"), ErrorCode::ParseError);
    assert!(matches!(p("SELECT 1"), S::Sql(_)));
    assert!(matches!(p("EXPLAIN SELECT 1"), S::Sql(_)));
    assert_eq!(code(""), ErrorCode::EmptyQuery);
    assert_eq!(code("-- nothing"), ErrorCode::EmptyQuery);
    assert_eq!(code("SELEC 1"), ErrorCode::ParseError);
    assert_eq!(code("SELECT 1; SELECT 2"), ErrorCode::ParseError);
    assert!(!is_own_grammar("SELECT 1"));
    assert!(is_own_grammar("SHOW TABLES junk"));
    assert!(is_own_grammar("UPDATE t1, t2 SET"));
    assert!(!is_own_grammar("UPDATE t SET"));
}

#[test]
fn nested_subqueries_and_parentheses_parse_up_to_the_recursion_limit() {
    // MariaDB's main suite nests 32 subqueries (subselect_notembedded)
    let mut q = String::from("SELECT SUM(a), a FROM t1 WHERE a > (SELECT SUM(a) FROM t1 ");
    let mut tail = String::from(") GROUP BY a");
    for _ in 0..31 {
        q.push_str("WHERE a > (SELECT SUM(a) FROM t1 ");
        tail = format!(") GROUP BY b LIMIT 1 {tail}");
    }
    let deep = format!("{q}{tail}");
    let parens = |n: usize| format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n));
    // a statement nesting less than the session's DEEP levels parses on a connection thread's
    // own 2 MiB stack
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            assert!(parse(&deep).is_ok());
            assert!(parse(&format!("EXPLAIN {deep}")).is_ok());
            assert!(parse(&parens(64)).is_ok());
            let err = parse(&parens(RECURSION_LIMIT + 1)).unwrap_err();
            assert_eq!(err.code, ErrorCode::ParseError);
            assert!(err.message.contains("nested too deeply"), "{}", err.message);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn assignments_in_expressions_are_found_outside_quotes() {
    assert!(assigns_user_vars("SELECT @k := JSON_NORMALIZE(@j)"));
    assert!(assigns_user_vars("select 0*(@c:=@c+1) from t"));
    assert!(!assigns_user_vars("SELECT ':=' AS a /* := */"));
    assert!(!assigns_user_vars("SELECT @a = 1"));
    assert!(!assigns_user_vars("SELECT a : = 1"));
}
