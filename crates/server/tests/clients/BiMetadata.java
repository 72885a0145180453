// JDBC client for crates/server/tests/bi_tools.rs: syncs a database the way Metabase's MySQL
// driver does through MariaDB Connector/J (Metabase ships that driver for MySQL and MariaDB):
// its connection options, DatabaseMetaData.getTables / getColumns / getPrimaryKeys /
// getIndexInfo, the SELECT probe it runs per table, its describe-fields and describe-fks SQL
// (prepared, with parameters), its time zone query and a question's SQL read back with typed
// getters. The database `bi` with the table `readings` (see bi_tools.rs) must exist. Exits
// non-zero with a message on the first difference from MariaDB's answer; prints "bi jdbc ok".
// Usage: java BiMetadata <port>.

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

public class BiMetadata {
    static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("MISMATCH: " + what);
            System.exit(1);
        }
    }

    static void eq(Object got, Object want, String what) {
        check(Objects.equals(got, want), what + ": got " + got + ", want " + want);
    }

    /// Metabase's sql-jdbc sync: the tables of catalog `bi`, with the types it asks for.
    static void tables(DatabaseMetaData md) throws SQLException {
        String[] types = {"TABLE", "PARTITIONED TABLE", "VIEW", "FOREIGN TABLE", "MATERIALIZED VIEW",
            "EXTERNAL TABLE", "DYNAMIC_TABLE"};
        List<String> names = new ArrayList<>();
        try (ResultSet r = md.getTables("bi", null, "%", types)) {
            while (r.next()) {
                names.add(r.getString("TABLE_NAME"));
                eq(r.getString("TABLE_CAT"), "bi", "getTables TABLE_CAT");
                eq(r.getString("TABLE_TYPE"), "TABLE", "getTables TABLE_TYPE of " + r.getString("TABLE_NAME"));
                r.getString("REMARKS");
            }
        }
        eq(names.toString(), "[hosts, readings]", "getTables names");
    }

    /// MariaDB 10.2+ shows "no default" of a nullable column as the text NULL, MySQL as NULL;
    /// Metabase reads both as none.
    static String noDefault(String def) {
        return "NULL".equalsIgnoreCase(def) ? null : def;
    }

    /// Metabase's jdbc-fields-metadata: TYPE_NAME, COLUMN_DEF, NULLABLE, IS_AUTOINCREMENT, REMARKS.
    static void columns(DatabaseMetaData md) throws SQLException {
        StringBuilder got = new StringBuilder();
        try (ResultSet r = md.getColumns("bi", null, "readings", null)) {
            while (r.next()) {
                got.append(r.getString("COLUMN_NAME")).append(':').append(r.getString("TYPE_NAME"))
                    .append(':').append(r.getInt("NULLABLE")).append(':').append(r.getString("IS_AUTOINCREMENT"))
                    .append(':').append(noDefault(r.getString("COLUMN_DEF"))).append(':').append(r.getString("REMARKS"))
                    .append(' ');
            }
        }
        eq(got.toString().trim(),
            "id:BIGINT:0:YES:null: ts:DATETIME:0:NO:null: sensor_id:INT:0:NO:null: host:VARCHAR:0:NO:null:"
                + " value:DOUBLE:1:NO:null: temp:DECIMAL:1:NO:null: ok:BIT:1:NO:1: note:TEXT:1:NO:null:sensor note"
                + " epoch:BIGINT:1:NO:null:",
            "getColumns");
    }

    static void keys(DatabaseMetaData md) throws SQLException {
        try (ResultSet r = md.getPrimaryKeys("bi", null, "readings")) {
            check(r.next(), "getPrimaryKeys finds a key");
            eq(r.getString("COLUMN_NAME"), "id", "primary key column");
            eq(r.getShort("KEY_SEQ"), (short) 1, "KEY_SEQ");
            check(!r.next(), "one primary key column");
        }
        StringBuilder got = new StringBuilder();
        try (ResultSet r = md.getIndexInfo("bi", null, "readings", false, false)) {
            while (r.next()) {
                got.append(r.getString("INDEX_NAME")).append(':').append(r.getBoolean("NON_UNIQUE"))
                    .append(':').append(r.getShort("ORDINAL_POSITION")).append(':')
                    .append(r.getString("COLUMN_NAME")).append(' ');
            }
        }
        eq(got.toString().trim(),
            "PRIMARY:false:1:id sensor_ts:false:1:sensor_id sensor_ts:false:2:ts idx_ts:true:1:ts",
            "getIndexInfo");
        try (ResultSet r = md.getIndexInfo("bi", null, "readings", true, false)) {
            int n = 0;
            while (r.next()) {
                check(!r.getBoolean("NON_UNIQUE"), "unique=true lists unique indexes only");
                n++;
            }
            eq(n, 3, "unique index columns");
        }
    }

    /// Metabase's describe-fields SQL for MySQL (honeysql, backquoted, `?` parameters).
    static final String DESCRIBE_FIELDS = "SELECT `c`.`column_name` AS `name`, `c`.`ordinal_position` - 1 AS `database-position`,"
        + " NULL AS `table-schema`, `c`.`table_name` AS `table-name`,"
        + " IF(`column_type` = 'tinyint(1)', 'BIT', UPPER(`c`.`data_type`)) AS `database-type`,"
        + " `c`.`extra` = 'auto_increment' AS `database-is-auto-increment`,"
        + " ((`column_default` IS NULL) OR (LOWER(`column_default`) = 'null')) AND (`is_nullable` = 'NO')"
        + " AND NOT (`c`.`extra` = 'auto_increment') AS `database-required`,"
        + " `c`.`column_key` = 'PRI' AS `pk?`, `is_nullable` = 'YES' AS `database-is-nullable`,"
        + " IF(LOWER(`column_default`) = 'null', NULL, `column_default`) AS `database-default`,"
        + " (`generation_expression` IS NOT NULL) AND (`generation_expression` <> ?) AS `database-is-generated`,"
        + " NULLIF(`c`.`column_comment`, '') AS `field-comment`"
        + " FROM `information_schema`.`columns` AS `c`"
        + " WHERE c.table_schema not in ('information_schema','performance_schema','sys','mysql')"
        + " AND c.table_name not in ('innodb_table_stats', 'innodb_index_stats')"
        + " AND (`c`.`table_schema` = ?) AND (LOWER(`c`.`table_name`) IN (?, ?))"
        + " ORDER BY `c`.`table_name` ASC, `c`.`ordinal_position` ASC";

    static void describeFields(Connection c) throws SQLException {
        StringBuilder got = new StringBuilder();
        try (PreparedStatement p = c.prepareStatement(DESCRIBE_FIELDS)) {
            p.setString(1, "");
            p.setString(2, "bi");
            p.setString(3, "readings");
            p.setString(4, "hosts");
            try (ResultSet r = p.executeQuery()) {
                ResultSetMetaData m = r.getMetaData();
                eq(m.getColumnLabel(8), "pk?", "describe-fields column 8 label");
                while (r.next()) {
                    got.append(r.getString("table-name")).append('.').append(r.getString("name")).append(':')
                        .append(r.getInt("database-position")).append(':').append(r.getString("database-type"))
                        .append(':').append(r.getInt("database-is-auto-increment")).append(r.getInt("database-required"))
                        .append(r.getInt("pk?")).append(r.getInt("database-is-nullable"))
                        .append(r.getInt("database-is-generated")).append(':').append(r.getString("database-default"))
                        .append(':').append(r.getString("field-comment")).append(' ');
                }
            }
        }
        eq(got.toString().trim(),
            "hosts.host:0:VARCHAR:01100:null:null hosts.rack:1:VARCHAR:00010:null:null"
                + " readings.id:0:BIGINT:10100:null:null readings.ts:1:DATETIME:01000:null:null"
                + " readings.sensor_id:2:INT:01000:null:null readings.host:3:VARCHAR:01000:null:null"
                + " readings.value:4:DOUBLE:00010:null:null readings.temp:5:DECIMAL:00010:null:null"
                + " readings.ok:6:BIT:00010:1:null readings.note:7:TEXT:00010:null:sensor note"
                + " readings.epoch:8:BIGINT:00010:null:null",
            "describe-fields");
    }

    /// Metabase's describe-fks SQL: no foreign keys here, the statement must run.
    static void describeFks(Connection c) throws SQLException {
        String sql = "SELECT NULL AS `pk-table-schema`, `a`.`referenced_table_name` AS `pk-table-name`,"
            + " `a`.`referenced_column_name` AS `pk-column-name`, NULL AS `fk-table-schema`,"
            + " `a`.`table_name` AS `fk-table-name`, `a`.`column_name` AS `fk-column-name`"
            + " FROM `information_schema`.`key_column_usage` AS `a`"
            + " INNER JOIN `information_schema`.`table_constraints` AS `b`"
            + " USING (`constraint_schema`, `constraint_name`, `table_name`)"
            + " WHERE (`b`.`constraint_type` = 'FOREIGN KEY') AND (`a`.`referenced_table_schema` IS NOT NULL)"
            + " AND (`a`.`table_name` IN (?, ?)) ORDER BY `a`.`table_name` ASC";
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, "readings");
            p.setString(2, "hosts");
            try (ResultSet r = p.executeQuery()) {
                eq(r.getMetaData().getColumnCount(), 6, "describe-fks columns");
                check(!r.next(), "describe-fks finds no foreign key");
            }
        }
    }

    static void probeAndSession(Connection c) throws SQLException {
        // have-select-privilege?: prepared, with Metabase's 15 s query timeout.
        try (PreparedStatement p = c.prepareStatement("SELECT TRUE AS `_` FROM `readings` WHERE 1 <> 1 LIMIT 0")) {
            p.setQueryTimeout(15);
            check(p.execute(), "probe returns a result set");
            try (ResultSet r = p.getResultSet()) {
                check(!r.next(), "probe returns no row");
            }
        }
        // fallback-metadata-query.
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT * FROM `readings` WHERE 1 <> 1 LIMIT 0")) {
            ResultSetMetaData m = r.getMetaData();
            eq(m.getColumnCount(), 9, "fallback metadata column count");
            eq(m.getColumnTypeName(2), "DATETIME", "fallback ts type");
            eq(m.getColumnTypeName(5), "DOUBLE", "fallback value type");
            eq(m.getColumnTypeName(6), "DECIMAL", "fallback temp type");
            check(m.isAutoIncrement(1), "fallback id is auto-increment");
        }
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT @@GLOBAL.time_zone AS global_tz, @@system_time_zone AS system_tz,"
                    + " time_format(   timediff(      now(), convert_tz(now(), @@GLOBAL.time_zone, '+00:00')   ),"
                    + "   '%H:%i' ) AS 'offset';")) {
                check(r.next(), "time zone row");
                eq(r.getString("global_tz"), "SYSTEM", "global_tz");
                check(r.getString("system_tz") != null, "system_tz");
                check(r.getString("offset").matches("-?\\d\\d:\\d\\d"), "offset " + r.getString("offset"));
            }
            try (PreparedStatement p = c.prepareStatement("show global variables like ?")) {
                p.setString(1, "local_infile");
                try (ResultSet r = p.executeQuery()) {
                    check(r.next(), "local_infile row");
                    eq(r.getString(2), "ON", "local_infile");
                }
            }
            s.execute("SET @@session.time_zone = 'UTC';");
        }
    }

    /// A question "count of readings by day, average value" as Metabase's query processor writes it.
    static void question(Connection c) throws SQLException {
        String sql = "SELECT CAST(`readings`.`ts` AS date) AS `ts`, COUNT(*) AS `count`, AVG(`readings`.`value`) AS `avg`"
            + " FROM `readings` WHERE `readings`.`host` = ? GROUP BY CAST(`readings`.`ts` AS date)"
            + " ORDER BY CAST(`readings`.`ts` AS date) ASC";
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, "web-01");
            try (ResultSet r = p.executeQuery()) {
                check(r.next(), "question row");
                eq(r.getObject(1, LocalDate.class), LocalDate.of(2024, 1, 1), "day");
                eq(r.getLong(2), 12L, "count");
                check(Math.abs(r.getDouble(3) - 21.1) < 1e-9, "avg " + r.getDouble(3));
                check(!r.next(), "one day");
            }
        }
        String month = "SELECT str_to_date(concat(date_format(`readings`.`ts`, '%Y-%m'), '-01'), '%Y-%m-%d') AS `ts`,"
            + " max(`readings`.`ts`) AS `last` FROM `readings` GROUP BY 1 ORDER BY 1 ASC";
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(month)) {
            check(r.next(), "month row");
            eq(r.getObject(1, LocalDate.class), LocalDate.of(2024, 1, 1), "month start");
            eq(r.getObject(2, LocalDateTime.class), LocalDateTime.of(2024, 1, 1, 0, 11), "last reading");
        }
    }

    /// Connector/J asks for CLIENT_FOUND_ROWS (unless useAffectedRows=true): an UPDATE counts the
    /// rows it matched, also those it left as they were.
    static void updateCounts(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            eq(s.executeUpdate("UPDATE readings SET host = host WHERE host = 'web-01'"), 12, "rows matched");
            eq(s.executeUpdate("UPDATE readings SET ok = 1 WHERE id <= 6"), 6, "rows matched, some changed");
        }
    }

    public static void main(String[] args) throws Exception {
        // Metabase's default-connection-args and the options its MySQL driver adds.
        String url = "jdbc:mariadb://127.0.0.1:" + args[0] + "/bi?zeroDateTimeBehavior=convertToNull&useUnicode=true"
            + "&characterEncoding=UTF8&characterSetResults=UTF8&useCompression=true&useLocalSessionState=true"
            + "&useSSL=false&connectionAttributes=program_name:Metabase";
        try (Connection c = DriverManager.getConnection(url, "root", "")) {
            DatabaseMetaData md = c.getMetaData();
            check(md.getDatabaseMajorVersion() * 10 + md.getDatabaseMinorVersion() >= 57,
                "version at least 5.7: " + md.getDatabaseProductVersion());
            eq(c.getCatalog(), "bi", "catalog");
            tables(md);
            columns(md);
            keys(md);
            describeFields(c);
            describeFks(c);
            probeAndSession(c);
            question(c);
            updateCounts(c);
        }
        System.out.println("bi jdbc ok");
    }
}
