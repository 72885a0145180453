//! Grafana's and Metabase's MySQL data sources against the real server: the statements they send,
//! taken from their public source, replayed unchanged over TCP on a sensor-style table, with
//! the rows, column names and types MariaDB 10.11 (InnoDB) answers on the same data.
//!
//! * Grafana (`pkg/tsdb/mysql`: schema.go's table, column and column-value queries, macros.go's
//!   `$__timeGroupAlias`, `$__timeFilter`, `$__timeFrom`/`$__timeTo`, `$__unixEpochFilter`,
//!   `$__timeEpoch` expanded for the range 2024-01-01 00:00 - 01:00 UTC; the query editor's
//!   metadata queries (mySqlMetaQuery.ts, meta_query.ts) and the query builder's SQL
//!   (sqlUtil.ts `toRawSql`, with its VARIANCE and STDDEV functions); the health check's ping).
//! * Metabase (`metabase.driver.mysql`: db-default-timezone, describe-fields and describe-fks
//!   SQL with their parameters, the sync's SELECT probe and fallback metadata query, SET
//!   time_zone, and questions in the shapes its query processor writes: date truncation through
//!   STR_TO_DATE/DATE_FORMAT/YEARWEEK/MAKEDATE, extraction, TIMESTAMPDIFF, split-part through
//!   SUBSTRING_INDEX, a breakout over a joined table). The JDBC half (DatabaseMetaData through
//!   MariaDB Connector/J, which Metabase uses for MySQL) is clients/BiMetadata.java; it needs
//!   `apt-get install -y default-jdk-headless libmariadb-java` and fails with that hint.
//!
//! Grafana's legacy query builder (before version 8) also sends `findMetricTable`, a query of
//! correlated subqueries.

mod betula;
mod java;

use mysql::consts::ColumnType;
use mysql::prelude::*;
use mysql::Conn;

/// The sensor data both tools read: three hosts, one reading a minute for twelve minutes.
fn setup(conn: &mut Conn) {
    let mut rows = Vec::new();
    for m in 0..12u32 {
        let ts = format!("2024-01-01 00:{m:02}:00");
        let epoch = 1_704_067_200 + 60 * m as i64;
        let ok = if m % 4 == 3 { 0 } else { 1 };
        for (host, sensor) in [("web-01", 1), ("web-02", 2), ("db-01", 3)] {
            let value = match host {
                "web-01" => Some(20.0 + m as f64 * 0.2),
                "web-02" => Some(30.0 + m as f64),
                _ if m == 5 => None,
                _ => Some(m as f64 * 1.5),
            };
            let (v, t) = match value {
                Some(v) => (format!("{}", (v * 1e6).round() / 1e6), format!("{v:.2}")),
                None => ("NULL".into(), "NULL".into()),
            };
            let note = if m == 7 && host == "web-02" {
                "'restart'"
            } else {
                "NULL"
            };
            rows.push(format!(
                "('{ts}',{sensor},'{host}',{v},{t},{ok},{note},{epoch})"
            ));
        }
    }
    for sql in [
        "CREATE DATABASE bi".to_string(),
        "USE bi".into(),
        "CREATE TABLE hosts (host VARCHAR(32) NOT NULL PRIMARY KEY, rack VARCHAR(8))".into(),
        "INSERT INTO hosts VALUES ('web-01','r1'),('web-02','r1'),('db-01','r2')".into(),
        "CREATE TABLE readings (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, ts DATETIME NOT NULL, \
         sensor_id INT NOT NULL, host VARCHAR(32) NOT NULL, value DOUBLE, temp DECIMAL(6,2), \
         ok TINYINT(1) DEFAULT 1, note TEXT COMMENT 'sensor note', epoch BIGINT, \
         UNIQUE KEY sensor_ts (sensor_id, ts), KEY idx_ts (ts))"
            .into(),
        format!(
            "INSERT INTO readings (ts, sensor_id, host, value, temp, ok, note, epoch) VALUES {}",
            rows.join(",")
        ),
    ] {
        conn.query_drop(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// The rows of a text-protocol query, columns joined by tabs.
fn rows(conn: &mut Conn, sql: &str) -> Vec<String> {
    let result: Vec<mysql::Row> = conn
        .query(sql)
        .unwrap_or_else(|e| panic!("{e}\n  statement: {sql}"));
    result.iter().map(line).collect()
}

fn line(r: &mysql::Row) -> String {
    (0..r.len())
        .map(|i| betula::render(&r.as_ref(i).cloned().unwrap_or(mysql::Value::NULL)))
        .collect::<Vec<_>>()
        .join("\t")
}

fn check(conn: &mut Conn, sql: &str, want: &[&str]) {
    assert_eq!(rows(conn, sql), want, "statement: {sql}");
}

/// Column names and types of a query's result.
fn columns(conn: &mut Conn, sql: &str) -> Vec<(String, ColumnType)> {
    let result = conn
        .query_iter(sql)
        .unwrap_or_else(|e| panic!("{e}\n  statement: {sql}"));
    result
        .columns()
        .as_ref()
        .iter()
        .map(|c| (c.name_str().into_owned(), c.column_type()))
        .collect()
}

/// Doubles compared to 1e-9 (MariaDB and Betula may add in another order).
fn check_numbers(conn: &mut Conn, sql: &str, want: &[&[&str]]) {
    let got = rows(conn, sql);
    assert_eq!(got.len(), want.len(), "statement: {sql}\n got {got:?}");
    for (g, w) in got.iter().zip(want) {
        for (a, b) in g.split('\t').zip(w.iter()) {
            let same = match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                _ => a == *b,
            };
            assert!(same, "statement: {sql}\n got {g:?}, want {w:?}");
        }
    }
}

const FROM: i64 = 1_704_067_200; // 2024-01-01 00:00:00 UTC
const TO: i64 = 1_704_070_800; // 2024-01-01 01:00:00 UTC

/// `$__timeFilter(c)` as macros.go expands it.
fn time_filter(c: &str) -> String {
    format!("{c} BETWEEN FROM_UNIXTIME({FROM}) AND FROM_UNIXTIME({TO})")
}

/// `$__timeGroupAlias(c, 'n s')` as macros.go expands it.
fn time_group_alias(c: &str, secs: u32) -> String {
    format!("UNIX_TIMESTAMP({c}) DIV {secs} * {secs} AS \"time\"")
}

#[test]
fn grafana_schema_discovery() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let mut conn = server.conn(None);
    setup(&mut conn);
    // The data source's DSN: collation=utf8mb4_unicode_ci, time_zone from its settings.
    conn.query_drop("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci")
        .unwrap();
    conn.query_drop("SET time_zone='+00:00'").unwrap();
    conn.ping().expect("health check (COM_PING)");
    // schema.go: tables, then each table's columns (a prepared statement with a parameter).
    check(
        &mut conn,
        "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE IN ('BASE TABLE', 'VIEW') ORDER BY TABLE_NAME",
        &["hosts", "readings"],
    );
    let cols: Vec<mysql::Row> = conn
        .exec(
            "SELECT COLUMN_NAME, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE\n\t\t FROM INFORMATION_SCHEMA.COLUMNS\n\t\t WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?\n\t\t ORDER BY ORDINAL_POSITION",
            ("readings",),
        )
        .unwrap();
    assert_eq!(
        cols.iter().map(line).collect::<Vec<_>>(),
        [
            "id\tbigint\t19\t0",
            "ts\tdatetime\tNULL\tNULL",
            "sensor_id\tint\t10\t0",
            "host\tvarchar\tNULL\tNULL",
            "value\tdouble\t22\tNULL",
            "temp\tdecimal\t6\t2",
            "ok\ttinyint\t3\t0",
            "note\ttext\tNULL\tNULL",
            "epoch\tbigint\t19\t0",
        ]
    );
    // schema.go ColumnValues: distinct values of several columns in one UNION ALL.
    let values = rows(
        &mut conn,
        "SELECT 'host' AS col_name, CAST(`host` AS CHAR) AS val FROM (SELECT DISTINCT `host` FROM `readings` WHERE `host` IS NOT NULL ORDER BY `host` LIMIT 100) sub_0 UNION ALL SELECT 'temp' AS col_name, CAST(`temp` AS CHAR) AS val FROM (SELECT DISTINCT `temp` FROM `readings` WHERE `temp` IS NOT NULL ORDER BY `temp` LIMIT 100) sub_1 UNION ALL SELECT 'ts' AS col_name, CAST(`ts` AS CHAR) AS val FROM (SELECT DISTINCT `ts` FROM `readings` WHERE `ts` IS NOT NULL ORDER BY `ts` LIMIT 100) sub_2",
    );
    assert_eq!(values.len(), 3 + 35 + 12, "{values:?}");
    assert_eq!(
        &values[..4],
        ["host\tdb-01", "host\tweb-01", "host\tweb-02", "temp\t0.00"]
    );
    assert_eq!(values[3 + 34], "temp\t41.00");
    assert_eq!(values[49], "ts\t2024-01-01 00:11:00");
    // The query editor: datasets, tables, fields by kind (mySqlMetaQuery.ts, meta_query.ts).
    check(
        &mut conn,
        "SELECT DISTINCT TABLE_SCHEMA from information_schema.TABLES where TABLE_TYPE != 'SYSTEM VIEW' ORDER BY TABLE_SCHEMA",
        &["bi"],
    );
    check(
        &mut conn,
        "SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_schema != 'information_schema' ORDER BY table_schema",
        &["bi"],
    );
    check(
        &mut conn,
        "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema != 'information_schema' ORDER BY table_schema, table_name",
        &["bi\thosts", "bi\treadings"],
    );
    for q in [
        "SELECT table_name FROM information_schema.tables WHERE table_schema = database() ORDER BY table_name",
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'bi' ORDER BY table_name",
    ] {
        check(&mut conn, q, &["hosts", "readings"]);
    }
    check(
        &mut conn,
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'bi' AND table_name = 'readings' ORDER BY column_name",
        &[
            "epoch\tbigint", "host\tvarchar", "id\tbigint", "note\ttext", "ok\ttinyint",
            "sensor_id\tint", "temp\tdecimal", "ts\tdatetime", "value\tdouble",
        ],
    );
    let by_kind = "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = database() AND table_name = 'readings'";
    check(
        &mut conn,
        &format!("{by_kind} AND data_type IN ('timestamp','datetime','bigint','int','double','float') ORDER BY column_name"),
        &["epoch\tbigint", "id\tbigint", "sensor_id\tint", "ts\tdatetime", "value\tdouble"],
    );
    check(
        &mut conn,
        &format!("{by_kind} AND data_type IN ('text','tinytext','mediumtext','longtext','varchar','char') ORDER BY column_name"),
        &["host\tvarchar", "note\ttext"],
    );
    check(
        &mut conn,
        &format!("{by_kind} AND data_type IN ('bigint','int','smallint','mediumint','tinyint','double','decimal','float') AND column_name <> 'ts' ORDER BY column_name"),
        &["epoch\tbigint", "id\tbigint", "ok\ttinyint", "sensor_id\tint", "temp\tdecimal", "value\tdouble"],
    );
    check(
        &mut conn,
        "\nSELECT data_type\nFROM information_schema.columns\nWHERE  table_name = 'readings' AND column_name = 'temp'",
        &["decimal"],
    );
    check(
        &mut conn,
        &format!(
            "SELECT DISTINCT QUOTE(host) FROM readings WHERE {} ORDER BY 1 LIMIT 100",
            time_filter("ts")
        ),
        &["'db-01'", "'web-01'", "'web-02'"],
    );
}

#[test]
fn grafana_time_series_panels() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let mut conn = server.conn(None);
    setup(&mut conn);
    conn.query_drop("SET time_zone='+00:00'").unwrap();
    // The panel query of Grafana's documentation: $__timeGroupAlias, a metric column, $__timeFilter.
    let panel = format!(
        "SELECT\n  {},\n  avg(value) AS \"value\",\n  host AS metric\nFROM readings\nWHERE {}\nGROUP BY 1, host\nORDER BY 1, host",
        time_group_alias("ts", 300),
        time_filter("ts")
    );
    check(
        &mut conn,
        &panel,
        &[
            "1704067200\t3\tdb-01",
            "1704067200\t20.4\tweb-01",
            "1704067200\t32\tweb-02",
            "1704067500\t11.25\tdb-01",
            "1704067500\t21.4\tweb-01",
            "1704067500\t37\tweb-02",
            "1704067800\t15.75\tdb-01",
            "1704067800\t22.1\tweb-01",
            "1704067800\t40.5\tweb-02",
        ],
    );
    // Grafana reads `time` as a time column only if it is numeric or temporal, values as floats.
    let types = columns(&mut conn, &panel);
    assert_eq!(
        types,
        [
            ("time".to_string(), ColumnType::MYSQL_TYPE_LONGLONG),
            ("value".to_string(), ColumnType::MYSQL_TYPE_DOUBLE),
            ("metric".to_string(), ColumnType::MYSQL_TYPE_VAR_STRING),
        ]
    );
    // GROUP BY the alias `time`, several aggregates, a constant metric.
    check(
        &mut conn,
        &format!(
            "SELECT\n  {},\n  min(value),\n  max(temp),\n  'min' as metric\nFROM readings\nWHERE ts BETWEEN FROM_UNIXTIME({FROM}) AND FROM_UNIXTIME({})\nGROUP BY time\nORDER BY time",
            time_group_alias("ts", 120),
            FROM + 300
        ),
        &["1704067200\t0\t31.00\tmin", "1704067320\t3\t33.00\tmin", "1704067440\t6\t35.00\tmin"],
    );
    // $__timeEpoch (`UNIX_TIMESTAMP(c) as time_sec`).
    check(
        &mut conn,
        &format!(
            "SELECT\n  UNIX_TIMESTAMP(ts) as time_sec,\n  value as value,\n  host as metric\nFROM readings\nWHERE ts BETWEEN FROM_UNIXTIME({FROM}) AND FROM_UNIXTIME({}) AND host IN ('web-01','db-01')\nORDER BY ts, host",
            FROM + 60
        ),
        &["1704067200\t0\tdb-01", "1704067200\t20\tweb-01", "1704067260\t1.5\tdb-01", "1704067260\t20.2\tweb-01"],
    );
    // $__unixEpochGroupAlias and $__unixEpochFilter over an epoch column.
    check(
        &mut conn,
        &format!(
            "SELECT epoch DIV 600 * 600 AS \"time\", count(*) AS n, sum(ok) AS oks FROM readings WHERE epoch >= {FROM} AND epoch <= {TO} GROUP BY 1 ORDER BY 1"
        ),
        &["1704067200\t30\t24", "1704067800\t6\t3"],
    );
    // $__timeFrom() / $__timeTo() and a DATETIME time column.
    check(
        &mut conn,
        &format!(
            "SELECT ts AS \"time\", value FROM readings WHERE ts >= FROM_UNIXTIME({}) AND ts <= FROM_UNIXTIME({}) AND host = 'web-02' ORDER BY ts",
            FROM + 300,
            FROM + 360
        ),
        &["2024-01-01 00:05:00\t35", "2024-01-01 00:06:00\t36"],
    );
    // An annotation query (time, text, tags).
    check(
        &mut conn,
        &format!(
            "SELECT ts AS time, note AS text, host AS tags FROM readings WHERE {} AND note IS NOT NULL ORDER BY ts",
            time_filter("ts")
        ),
        &["2024-01-01 00:07:00\trestart\tweb-02"],
    );
    // The query builder (toRawSql) with its VARIANCE and STDDEV functions.
    check_numbers(
        &mut conn,
        &format!(
            "SELECT AVG(value), VARIANCE(value), STDDEV(value), host FROM bi.readings WHERE {} GROUP BY host ORDER BY host ASC LIMIT 50 ",
            time_filter("ts")
        ),
        &[
            &["8.318181818181818", "29.194214876033058", "5.403167115316077", "db-01"],
            &["21.1", "0.47666666666666346", "0.6904105059069303", "web-01"],
            &["35.5", "11.916666666666666", "3.452052529534663", "web-02"],
        ],
    );
    // The legacy query builder's findMetricTable: a correlated scalar subquery per table. Its
    // LIMIT 1 without ORDER BY may give either table; without the LIMIT, both rows.
    let legacy = "SELECT table_name as table_name, ( SELECT column_name as column_name FROM information_schema.columns c WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.data_type IN ('timestamp', 'datetime') ORDER BY ordinal_position LIMIT 1 ) AS time_column FROM information_schema.tables t WHERE t.table_schema = database() LIMIT 1";
    let got = rows(&mut conn, legacy);
    assert!(
        got == ["hosts\tNULL"] || got == ["readings\tts"],
        "findMetricTable: {got:?}"
    );
    check(
        &mut conn,
        &format!(
            "{} ORDER BY table_name",
            legacy.trim_end_matches(" LIMIT 1")
        ),
        &["hosts\tNULL", "readings\tts"],
    );
}

/// Metabase's describe-fields SQL (metabase.driver.mysql, formatted by honeysql for MySQL).
const DESCRIBE_FIELDS: &str = "SELECT `c`.`column_name` AS `name`, `c`.`ordinal_position` - 1 AS `database-position`, NULL AS `table-schema`, `c`.`table_name` AS `table-name`, IF(`column_type` = 'tinyint(1)', 'BIT', UPPER(`c`.`data_type`)) AS `database-type`, `c`.`extra` = 'auto_increment' AS `database-is-auto-increment`, ((`column_default` IS NULL) OR (LOWER(`column_default`) = 'null')) AND (`is_nullable` = 'NO') AND NOT (`c`.`extra` = 'auto_increment') AS `database-required`, `c`.`column_key` = 'PRI' AS `pk?`, `is_nullable` = 'YES' AS `database-is-nullable`, IF(LOWER(`column_default`) = 'null', NULL, `column_default`) AS `database-default`, (`generation_expression` IS NOT NULL) AND (`generation_expression` <> ?) AS `database-is-generated`, NULLIF(`c`.`column_comment`, '') AS `field-comment` FROM `information_schema`.`columns` AS `c` WHERE c.table_schema not in ('information_schema','performance_schema','sys','mysql') AND c.table_name not in ('innodb_table_stats', 'innodb_index_stats') AND (`c`.`table_schema` = ?) AND (LOWER(`c`.`table_name`) IN (?, ?)) ORDER BY `c`.`table_name` ASC, `c`.`ordinal_position` ASC";

#[test]
fn metabase_sync_and_questions() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    let mut conn = server.conn(None);
    setup(&mut conn);
    // db-default-timezone.
    let tz = rows(
        &mut conn,
        "SELECT @@GLOBAL.time_zone AS global_tz, @@system_time_zone AS system_tz, time_format(   timediff(      now(), convert_tz(now(), @@GLOBAL.time_zone, '+00:00')   ),   '%H:%i' ) AS 'offset';",
    );
    let tz: Vec<&str> = tz[0].split('\t').collect();
    assert_eq!(tz[0], "SYSTEM");
    assert!(!tz[1].is_empty() && tz[1] != "NULL", "{tz:?}");
    assert!(
        tz[2].trim_start_matches('-').len() == 5 && tz[2].as_bytes()[tz[2].len() - 3] == b':',
        "offset {tz:?}"
    );
    check(&mut conn, "SELECT DATABASE()", &["bi"]);
    check(&mut conn, "SHOW TABLES", &["hosts", "readings"]);
    check(&mut conn, "SHOW VARIABLES LIKE 'partial_revokes';", &[]);
    // `show global variables like ?`: Connector/J fills the parameter in on the client (MariaDB,
    // like Betula, refuses a server-side prepared SHOW with a parameter: 1064).
    check(
        &mut conn,
        "show global variables like 'local_infile'",
        &["local_infile\tON"],
    );
    assert_eq!(
        betula::code(conn.exec_drop("show global variables like ?", ("local_infile",))),
        1064
    );
    // describe-fields, prepared: `pk?` is an alias, not a parameter.
    let fields: Vec<mysql::Row> = conn
        .exec(DESCRIBE_FIELDS, ("", "bi", "readings", "hosts"))
        .unwrap();
    assert_eq!(
        fields.iter().map(line).collect::<Vec<_>>(),
        [
            "host\t0\tNULL\thosts\tVARCHAR\t0\t1\t1\t0\tNULL\t0\tNULL",
            "rack\t1\tNULL\thosts\tVARCHAR\t0\t0\t0\t1\tNULL\t0\tNULL",
            "id\t0\tNULL\treadings\tBIGINT\t1\t0\t1\t0\tNULL\t0\tNULL",
            "ts\t1\tNULL\treadings\tDATETIME\t0\t1\t0\t0\tNULL\t0\tNULL",
            "sensor_id\t2\tNULL\treadings\tINT\t0\t1\t0\t0\tNULL\t0\tNULL",
            "host\t3\tNULL\treadings\tVARCHAR\t0\t1\t0\t0\tNULL\t0\tNULL",
            "value\t4\tNULL\treadings\tDOUBLE\t0\t0\t0\t1\tNULL\t0\tNULL",
            "temp\t5\tNULL\treadings\tDECIMAL\t0\t0\t0\t1\tNULL\t0\tNULL",
            "ok\t6\tNULL\treadings\tBIT\t0\t0\t0\t1\t1\t0\tNULL",
            "note\t7\tNULL\treadings\tTEXT\t0\t0\t0\t1\tNULL\t0\tsensor note",
            "epoch\t8\tNULL\treadings\tBIGINT\t0\t0\t0\t1\tNULL\t0\tNULL",
        ]
    );
    // describe-fks: no foreign key, the join of two information_schema views USING three columns.
    let fks: Vec<mysql::Row> = conn
        .exec(
            "SELECT NULL AS `pk-table-schema`, `a`.`referenced_table_name` AS `pk-table-name`, `a`.`referenced_column_name` AS `pk-column-name`, NULL AS `fk-table-schema`, `a`.`table_name` AS `fk-table-name`, `a`.`column_name` AS `fk-column-name` FROM `information_schema`.`key_column_usage` AS `a` INNER JOIN `information_schema`.`table_constraints` AS `b` USING (`constraint_schema`, `constraint_name`, `table_name`) WHERE (`b`.`constraint_type` = 'FOREIGN KEY') AND (`a`.`referenced_table_schema` IS NOT NULL) AND (`a`.`table_name` IN (?, ?)) ORDER BY `a`.`table_name` ASC",
            ("readings", "hosts"),
        )
        .unwrap();
    assert!(fks.is_empty());
    // The sync's SELECT probe and fallback metadata query.
    check(
        &mut conn,
        "SELECT TRUE AS `_` FROM `readings` WHERE 1 <> 1 LIMIT 0",
        &[],
    );
    let fallback = columns(&mut conn, "SELECT * FROM `readings` WHERE 1 <> 1 LIMIT 0");
    assert_eq!(fallback.len(), 9);
    assert_eq!(fallback[1], ("ts".into(), ColumnType::MYSQL_TYPE_DATETIME));
    assert_eq!(fallback[4], ("value".into(), ColumnType::MYSQL_TYPE_DOUBLE));
    assert_eq!(
        fallback[5],
        ("temp".into(), ColumnType::MYSQL_TYPE_NEWDECIMAL)
    );
    conn.query_drop("SET @@session.time_zone = 'UTC';").unwrap();
    metabase_questions(&mut conn);
    // Without CLIENT_FOUND_ROWS (this client does not ask for it) an UPDATE counts the rows it
    // changed; BiMetadata.java checks the rows matched with the flag.
    conn.query_drop("UPDATE readings SET host = host WHERE host = 'web-01'")
        .unwrap();
    assert_eq!(conn.affected_rows(), 0);
}

/// Questions in the shapes Metabase's query processor writes for MySQL.
fn metabase_questions(conn: &mut Conn) {
    let minute = "str_to_date(date_format(CAST(`readings`.`ts` AS datetime), '%Y-%m-%d %H:%i'), '%Y-%m-%d %H:%i')";
    check(
        conn,
        &format!("SELECT {minute} AS `ts`, count(*) AS `count` FROM `readings` GROUP BY {minute} ORDER BY {minute} ASC LIMIT 3"),
        &["2024-01-01 00:00:00\t3", "2024-01-01 00:01:00\t3", "2024-01-01 00:02:00\t3"],
    );
    assert_eq!(
        columns(
            conn,
            &format!("SELECT {minute} AS `ts` FROM `readings` LIMIT 1")
        )[0]
        .1,
        ColumnType::MYSQL_TYPE_DATETIME
    );
    check_numbers(
        conn,
        "SELECT str_to_date(date_format(CAST(`readings`.`ts` AS datetime), '%Y-%m-%d %H'), '%Y-%m-%d %H') AS `ts`, avg(`readings`.`value`) AS `avg` FROM `readings` GROUP BY 1 ORDER BY 1 ASC",
        &[&["2024-01-01 00:00:00", "22.02"]],
    );
    check(
        conn,
        "SELECT CAST(`readings`.`ts` AS date) AS `ts`, count(*) AS `count` FROM `readings` GROUP BY CAST(`readings`.`ts` AS date) ORDER BY CAST(`readings`.`ts` AS date) ASC",
        &["2024-01-01\t36"],
    );
    check(
        conn,
        "SELECT CAST(str_to_date(concat(yearweek(`readings`.`ts`), ' Sunday'), '%X%V %W') AS datetime) AS `ts`, count(*) AS `count` FROM `readings` GROUP BY 1 ORDER BY 1 ASC",
        &["2023-12-31 00:00:00\t36"],
    );
    let month_quarter_year = "SELECT str_to_date(concat(date_format(`readings`.`ts`, '%Y-%m'), '-01'), '%Y-%m-%d') AS `m`, str_to_date(concat(year(`readings`.`ts`), '-', ((quarter(`readings`.`ts`) * 3) - 2), '-01'), '%Y-%m-%d') AS `q`, makedate(year(`readings`.`ts`), 1) AS `y`, count(*) AS `count` FROM `readings` GROUP BY 1, 2, 3 ORDER BY 1 ASC";
    check(
        conn,
        month_quarter_year,
        &["2024-01-01\t2024-01-01\t2024-01-01\t36"],
    );
    assert_eq!(
        columns(conn, month_quarter_year)[0].1,
        ColumnType::MYSQL_TYPE_DATE
    );
    check(
        conn,
        "SELECT minute(`readings`.`ts`) AS `mi`, hour(`readings`.`ts`) AS `h`, dayofweek(`readings`.`ts`) AS `dow`, dayofmonth(`readings`.`ts`) AS `dom`, dayofyear(`readings`.`ts`) AS `doy`, week(`readings`.`ts`, 3) AS `w`, month(`readings`.`ts`) AS `mo`, quarter(`readings`.`ts`) AS `qu` FROM `readings` ORDER BY `readings`.`id` DESC LIMIT 1",
        &["11\t0\t2\t1\t1\t1\t1\t1"],
    );
    check(
        conn,
        "SELECT timestampdiff(minute, `readings`.`ts`, '2024-01-01 01:00:00') AS `d1`, datediff('2024-02-01', `readings`.`ts`) AS `d2`, timestampdiff(month, `readings`.`ts`, '2024-03-01') AS `d3`, date_add(`readings`.`ts`, INTERVAL 90 minute) AS `plus` FROM `readings` ORDER BY `readings`.`id` DESC LIMIT 1",
        &["49\t31\t1\t2024-01-01 01:41:00"],
    );
    check(
        conn,
        "SELECT `readings`.`host` AS `host`, CASE WHEN 2 < 1 THEN '' WHEN 2 > 1 + FLOOR((LENGTH(`readings`.`host`) - LENGTH(REPLACE(`readings`.`host`, '-', ''))) / LENGTH('-')) THEN '' ELSE SUBSTRING_INDEX(SUBSTRING_INDEX(`readings`.`host`, '-', 2), '-', -1) END AS `part`, char_length(`readings`.`host`) AS `len` FROM `readings` GROUP BY `readings`.`host` ORDER BY `readings`.`host` ASC",
        &["db-01\t01\t5", "web-01\t01\t6", "web-02\t02\t6"],
    );
    check(
        conn,
        "SELECT `readings`.`host` AS `host` FROM `readings` GROUP BY `readings`.`host` ORDER BY `readings`.`host` ASC LIMIT 1000",
        &["db-01", "web-01", "web-02"],
    );
    check(
        conn,
        "SELECT `readings`.`id` AS `id`, `readings`.`ts` AS `ts`, `readings`.`value` AS `value`, `readings`.`note` AS `note` FROM `readings` ORDER BY `readings`.`id` ASC LIMIT 3",
        &["1\t2024-01-01 00:00:00\t20\tNULL", "2\t2024-01-01 00:00:00\t30\tNULL", "3\t2024-01-01 00:00:00\t0\tNULL"],
    );
    check_numbers(
        conn,
        "SELECT `hosts`.`rack` AS `rack`, count(*) AS `count`, sum(`readings`.`value`) AS `sum` FROM `readings` LEFT JOIN `hosts` AS `hosts` ON `readings`.`host` = `hosts`.`host` GROUP BY `hosts`.`rack` ORDER BY `count` DESC, `hosts`.`rack` ASC",
        &[&["r1", "24", "679.2"], &["r2", "12", "91.5"]],
    );
    // Relative-date filters: now(6) and intervals.
    check(
        conn,
        "SELECT count(*) AS `count` FROM `readings` WHERE `readings`.`ts` < date_add(now(6), INTERVAL -1 day)",
        &["36"],
    );
}

#[test]
fn metabase_jdbc_database_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let server = betula::BetulaServer::start(dir.path());
    setup(&mut server.conn(None));
    let out = java::run_client("BiMetadata", server.port);
    assert_eq!(out.trim(), "bi jdbc ok");
}
