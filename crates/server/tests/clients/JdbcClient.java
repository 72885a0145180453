// JDBC client for crates/server/tests/jdbc_client.rs: drives a running Betula server through a
// JDBC driver (MariaDB Connector/J from Debian's libmariadb-java) with server-side prepared
// statements, and exits non-zero with a message on the first result that differs from what
// MySQL returns. Prints "jdbc ok" on success. Usage: java JdbcClient <port> [extra URL options,
// e.g. "&useSsl=true&trustServerCertificate=true": then every connection must be TLS].

import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.Objects;

public class JdbcClient {
    static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("MISMATCH: " + what);
            System.exit(1);
        }
    }

    static void eq(Object got, Object want, String what) {
        check(Objects.equals(got, want), what + ": got " + got + ", want " + want);
    }

    static long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            check(r.next(), "COUNT(*) returns a row");
            return r.getLong(1);
        }
    }

    public static void main(String[] args) throws Exception {
        String port = args[0];
        String base = "jdbc:mariadb://127.0.0.1:" + port + "/";
        String extra = args.length > 1 ? args[1] : "";
        String opts = "?useServerPrepStmts=true" + extra;

        // Root (no password, loopback only) creates a database and a user with a password.
        try (Connection root = DriverManager.getConnection(base + opts, "root", "")) {
            try (Statement s = root.createStatement()) {
                s.execute("CREATE DATABASE jdbc");
                s.execute("CREATE USER 'app'@'%' IDENTIFIED BY 's3cret pw'");
                s.execute("GRANT ALL ON jdbc.* TO 'app'@'%'");
            }
        }
        // A wrong password is refused with 1045 / 28000.
        try {
            DriverManager.getConnection(base + "jdbc" + opts, "app", "wrong").close();
            check(false, "wrong password accepted");
        } catch (SQLException e) {
            eq(e.getErrorCode(), 1045, "wrong password error code");
            eq(e.getSQLState(), "28000", "wrong password SQLState");
        }

        try (Connection c = DriverManager.getConnection(base + "jdbc" + opts, "app", "s3cret pw")) {
            DatabaseMetaData md = c.getMetaData();
            check(md.getDatabaseProductVersion().contains("betula"), "product version " + md.getDatabaseProductVersion());
            eq(c.getCatalog(), "jdbc", "current catalog");
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, big BIGINT, d DOUBLE, amount DECIMAL(10,3),"
                        + " name VARCHAR(40), at DATETIME, note VARCHAR(10))");
            }

            // Server-side prepared single inserts with every type, including NULLs.
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                p.setInt(1, 1);
                p.setLong(2, 9007199254740993L);
                p.setDouble(3, 2.5);
                p.setBigDecimal(4, new BigDecimal("1234567.125"));
                p.setString(5, "héllo 'quoted'");
                p.setTimestamp(6, Timestamp.valueOf("2024-02-29 13:14:15"));
                p.setNull(7, Types.VARCHAR);
                eq(p.executeUpdate(), 1, "insert row 1 count");
                p.setInt(1, 2);
                p.setLong(2, -1L);
                p.setNull(3, Types.DOUBLE);
                p.setNull(4, Types.DECIMAL);
                p.setString(5, "");
                p.setNull(6, Types.TIMESTAMP);
                p.setString(7, "x");
                eq(p.executeUpdate(), 1, "insert row 2 count");
            }

            // Batch insert of prepared rows.
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t (id, big, name) VALUES (?, ?, ?)")) {
                for (int i = 10; i < 20; i++) {
                    p.setInt(1, i);
                    p.setLong(2, (long) i * 1_000_000_000_000L);
                    p.setString(3, "row" + i);
                    p.addBatch();
                }
                int[] counts = p.executeBatch();
                eq(counts.length, 10, "batch result count");
                for (int n : counts) {
                    check(n == 1 || n == Statement.SUCCESS_NO_INFO, "batch row count " + n);
                }
            }
            eq(count(c, "t"), 12L, "rows after batch");

            // Parameterized SELECT reading every type back.
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT id, big, d, amount, name, at, note FROM t WHERE id <= ? AND name LIKE ? ORDER BY id")) {
                p.setInt(1, 2);
                p.setString(2, "%");
                try (ResultSet r = p.executeQuery()) {
                    ResultSetMetaData m = r.getMetaData();
                    eq(m.getColumnCount(), 7, "column count");
                    eq(m.getColumnName(5), "name", "column 5 name");
                    eq(m.getColumnType(1), Types.INTEGER, "id type");
                    eq(m.getColumnType(2), Types.BIGINT, "big type");
                    eq(m.getColumnType(3), Types.DOUBLE, "d type");
                    eq(m.getColumnType(4), Types.DECIMAL, "amount type");
                    eq(m.getColumnType(5), Types.VARCHAR, "name type");
                    eq(m.getColumnType(6), Types.TIMESTAMP, "at type");
                    check(r.next(), "row 1 present");
                    eq(r.getInt(1), 1, "row 1 id");
                    eq(r.getLong(2), 9007199254740993L, "row 1 big");
                    eq(r.getDouble(3), 2.5, "row 1 d");
                    eq(r.getBigDecimal(4), new BigDecimal("1234567.125"), "row 1 amount");
                    eq(r.getString(5), "héllo 'quoted'", "row 1 name");
                    eq(r.getTimestamp(6), Timestamp.valueOf("2024-02-29 13:14:15"), "row 1 at");
                    eq(r.getString(7), null, "row 1 note");
                    check(r.wasNull(), "row 1 note wasNull");
                    check(r.next(), "row 2 present");
                    eq(r.getInt(1), 2, "row 2 id");
                    eq(r.getLong(2), -1L, "row 2 big");
                    r.getDouble(3);
                    check(r.wasNull(), "row 2 d is NULL");
                    eq(r.getBigDecimal(4), null, "row 2 amount");
                    eq(r.getString(5), "", "row 2 name");
                    eq(r.getTimestamp(6), null, "row 2 at");
                    eq(r.getString(7), "x", "row 2 note");
                    check(!r.next(), "only two rows");
                }
                // Re-execute the same statement with other parameters.
                p.setInt(1, 15);
                p.setString(2, "row1%");
                try (ResultSet r = p.executeQuery()) {
                    int n = 0;
                    long sum = 0;
                    while (r.next()) {
                        n++;
                        sum += r.getLong(2);
                    }
                    eq(n, 6, "rows 10..15");
                    eq(sum, 75_000_000_000_000L, "sum of big over rows 10..15");
                }
            }

            // Text-protocol query with the same values (Statement, not prepared).
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(
                    "SELECT big, amount, at, note FROM t WHERE id = 1")) {
                check(r.next(), "text row");
                eq(r.getLong(1), 9007199254740993L, "text big");
                eq(r.getBigDecimal(2), new BigDecimal("1234567.125"), "text amount");
                eq(r.getTimestamp(3), Timestamp.valueOf("2024-02-29 13:14:15"), "text at");
                eq(r.getObject(4), null, "text note");
            }

            // Transactions: rollback discards, commit keeps, another session sees only commits.
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t (id, name) VALUES (?, ?)")) {
                p.setInt(1, 100);
                p.setString(2, "rolled back");
                p.executeUpdate();
                eq(count(c, "t"), 13L, "own uncommitted row visible");
                c.rollback();
                eq(count(c, "t"), 12L, "rollback discards");
                p.setInt(1, 101);
                p.setString(2, "committed");
                p.executeUpdate();
                try (Connection other = DriverManager.getConnection(base + "jdbc" + opts, "app", "s3cret pw")) {
                    eq(count(other, "t"), 12L, "uncommitted row invisible to another session");
                    c.commit();
                    eq(count(other, "t"), 13L, "committed row visible to another session");
                }
            }
            c.setAutoCommit(true);

            // Duplicate key: 1062 / 23000 through the driver, for prepared and plain statements.
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t (id, name) VALUES (?, ?)")) {
                p.setInt(1, 1);
                p.setString(2, "dup");
                p.executeUpdate();
                check(false, "duplicate key accepted (prepared)");
            } catch (SQLException e) {
                eq(e.getErrorCode(), 1062, "prepared duplicate error code");
                eq(e.getSQLState(), "23000", "prepared duplicate SQLState");
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO t (id, name) VALUES (2, 'dup')");
                check(false, "duplicate key accepted (text)");
            } catch (SQLException e) {
                eq(e.getErrorCode(), 1062, "text duplicate error code");
                eq(e.getSQLState(), "23000", "text duplicate SQLState");
            }
            // A batch that hits a duplicate reports it too.
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t (id, name) VALUES (?, ?)")) {
                p.setInt(1, 200);
                p.setString(2, "ok");
                p.addBatch();
                p.setInt(1, 10);
                p.setString(2, "dup");
                p.addBatch();
                p.executeBatch();
                check(false, "duplicate key accepted (batch)");
            } catch (BatchUpdateException e) {
                eq(e.getErrorCode(), 1062, "batch duplicate error code");
                eq(e.getSQLState(), "23000", "batch duplicate SQLState");
            }
            eq(count(c, "t"), 14L, "first batch row kept (autocommit per statement)");

            // Metadata calls tools make after connecting.
            try (ResultSet r = md.getTables("jdbc", null, "t", null)) {
                check(r.next(), "getTables finds t");
                eq(r.getString("TABLE_NAME"), "t", "getTables name");
            }
            try (ResultSet r = md.getColumns("jdbc", null, "t", null)) {
                int n = 0;
                while (r.next()) {
                    n++;
                    if (n == 1) {
                        eq(r.getString("COLUMN_NAME"), "id", "first column");
                    }
                }
                eq(n, 7, "getColumns count");
            }
            try (ResultSet r = md.getPrimaryKeys("jdbc", null, "t")) {
                check(r.next(), "getPrimaryKeys finds a key");
                eq(r.getString("COLUMN_NAME"), "id", "primary key column");
            }
            try (ResultSet r = md.getCatalogs()) {
                boolean found = false;
                while (r.next()) {
                    found |= "jdbc".equals(r.getString(1));
                }
                check(found, "getCatalogs lists jdbc");
            }
            check(c.isValid(5), "isValid (COM_PING)");
        }

        // Binary values both ways: server-side prepares send them as parameters; client-side
        // prepares (Connector/J's default) inline them as `_binary '...'` literals of raw bytes,
        // so the query text is not UTF-8.
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        for (String mode : new String[] {"?useServerPrepStmts=true", "?useServerPrepStmts=false"}) {
            try (Connection c = DriverManager.getConnection(base + "jdbc" + mode, "app", "s3cret pw")) {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS bin");
                    s.execute("CREATE TABLE bin (id INT PRIMARY KEY, b BLOB, v VARCHAR(20))");
                }
                try (PreparedStatement p = c.prepareStatement("INSERT INTO bin VALUES (?, ?, ?)")) {
                    p.setInt(1, 1);
                    p.setBytes(2, all);
                    p.setString(3, "it's \\ \"é\"");
                    eq(p.executeUpdate(), 1, mode + " insert bytes");
                    for (int i = 2; i <= 4; i++) {
                        p.setInt(1, i);
                        p.setBytes(2, new byte[] {(byte) i, 0, (byte) 0xff});
                        p.setString(3, "b" + i);
                        p.addBatch();
                    }
                    eq(p.executeBatch().length, 3, mode + " batch of bytes");
                }
                try (PreparedStatement p = c.prepareStatement("SELECT b, v FROM bin WHERE id = ? OR v = ? ORDER BY id")) {
                    p.setInt(1, 1);
                    p.setString(2, "b3");
                    try (ResultSet r = p.executeQuery()) {
                        check(r.next(), mode + " bytes row");
                        check(java.util.Arrays.equals(r.getBytes(1), all), mode + " 256 byte values round-trip");
                        eq(r.getString(2), "it's \\ \"é\"", mode + " escaped text");
                        check(r.next(), mode + " second bytes row");
                        check(java.util.Arrays.equals(r.getBytes(1), new byte[] {3, 0, (byte) 0xff}), mode + " batch bytes");
                        check(!r.next(), mode + " two rows");
                    }
                }
            }
        }
        if (!extra.isEmpty()) {
            try (Connection c = DriverManager.getConnection(base + opts, "root", "");
                 Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SHOW STATUS LIKE 'Ssl_version'")) {
                check(r.next(), "Ssl_version row");
                check(r.getString(2).startsWith("TLSv1."), "Ssl_version with " + extra + ": " + r.getString(2));
            }
        }
        System.out.println("jdbc ok");
    }
}
