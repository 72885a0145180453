// Go client for crates/server/tests/go_client.rs: drives a running Betula server through
// database/sql and github.com/go-sql-driver/mysql (Debian's golang-github-go-sql-driver-mysql-dev,
// built in GOPATH mode). Queries with arguments use server-side prepared statements (the
// driver's default without interpolateParams). Exits non-zero with a message on the first
// result that differs from what MySQL returns; prints "go ok" on success.
// Usage: go run go_client.go <port> [extra DSN parameters, e.g. "&tls=skip-verify": then every
// connection must be TLS].
package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "MISMATCH: "+format+"\n", args...)
	os.Exit(1)
}

func eq(got, want interface{}, what string) {
	if !reflect.DeepEqual(got, want) {
		fail("%s: got %#v, want %#v", what, got, want)
	}
}

func must(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func count(q interface {
	QueryRow(string, ...interface{}) *sql.Row
}, what string) int64 {
	var n int64
	must(q.QueryRow("SELECT COUNT(*) FROM t").Scan(&n), what)
	return n
}

func mysqlErr(err error, what string) *mysql.MySQLError {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		fail("%s: expected a MySQL error, got %v", what, err)
	}
	return me
}

func main() {
	port := os.Args[1]
	extra := ""
	if len(os.Args) > 2 {
		extra = os.Args[2]
	}
	dsn := func(user, pass, db string) string {
		return fmt.Sprintf("%s:%s@tcp(127.0.0.1:%s)/%s?parseTime=true&loc=UTC%s", user, pass, port, db, extra)
	}

	root, err := sql.Open("mysql", dsn("root", "", ""))
	must(err, "open root")
	for _, q := range []string{
		"CREATE DATABASE godb",
		"CREATE USER 'gopher'@'%' IDENTIFIED BY 'p@ss word'",
		"GRANT ALL ON godb.* TO 'gopher'@'%'",
	} {
		_, err := root.Exec(q)
		must(err, q)
	}
	root.Close()

	bad, _ := sql.Open("mysql", dsn("gopher", "wrong", "godb"))
	err = bad.Ping()
	eq(mysqlErr(err, "wrong password").Number, uint16(1045), "wrong password error")
	bad.Close()

	db, err := sql.Open("mysql", dsn("gopher", "p@ss word", "godb"))
	must(err, "open")
	defer db.Close()
	must(db.Ping(), "ping")
	var cur string
	must(db.QueryRow("SELECT DATABASE()").Scan(&cur), "SELECT DATABASE()")
	eq(cur, "godb", "current database")

	_, err = db.Exec("CREATE TABLE t (id INT PRIMARY KEY, big BIGINT, d DOUBLE, amount DECIMAL(10,3)," +
		" name VARCHAR(40), at DATETIME, note VARCHAR(10))")
	must(err, "create table")

	// Server-side prepared inserts, one statement re-executed, with NULLs.
	ins, err := db.Prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)")
	must(err, "prepare insert")
	at := time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)
	res, err := ins.Exec(1, int64(9007199254740993), 2.5, "1234567.125", "héllo 'quoted'", at, nil)
	must(err, "insert 1")
	n, _ := res.RowsAffected()
	eq(n, int64(1), "insert 1 rows affected")
	_, err = ins.Exec(2, int64(-1), nil, nil, "", nil, "x")
	must(err, "insert 2")
	ins.Close()

	// A batch: one prepared statement executed for many rows inside a transaction, then one
	// multi-row INSERT with many placeholders.
	tx, err := db.Begin()
	must(err, "begin batch")
	bst, err := tx.Prepare("INSERT INTO t (id, big, name) VALUES (?, ?, ?)")
	must(err, "prepare batch")
	for i := 10; i < 15; i++ {
		_, err := bst.Exec(i, int64(i)*1000000000000, fmt.Sprintf("row%d", i))
		must(err, "batch row")
	}
	bst.Close()
	must(tx.Commit(), "commit batch")
	args := []interface{}{}
	for i := 15; i < 20; i++ {
		args = append(args, i, int64(i)*1000000000000, fmt.Sprintf("row%d", i))
	}
	res, err = db.Exec("INSERT INTO t (id, big, name) VALUES (?,?,?),(?,?,?),(?,?,?),(?,?,?),(?,?,?)", args...)
	must(err, "multi-row insert")
	n, _ = res.RowsAffected()
	eq(n, int64(5), "multi-row rows affected")
	eq(count(db, "count after batch"), int64(12), "rows after batch")

	// Parameterized SELECT reading every type back (binary protocol).
	rows, err := db.Query("SELECT id, big, d, amount, name, at, note FROM t WHERE id <= ? AND name LIKE ? ORDER BY id", 2, "%")
	must(err, "select")
	cols, err := rows.ColumnTypes()
	must(err, "column types")
	gotTypes := []string{}
	for _, c := range cols {
		gotTypes = append(gotTypes, c.DatabaseTypeName())
	}
	eq(gotTypes, []string{"INT", "BIGINT", "DOUBLE", "DECIMAL", "VARCHAR", "DATETIME", "VARCHAR"}, "column types")
	type row struct {
		id     int32
		big    int64
		d      sql.NullFloat64
		amount sql.NullString
		name   string
		at     sql.NullTime
		note   sql.NullString
	}
	var got []row
	for rows.Next() {
		var r row
		must(rows.Scan(&r.id, &r.big, &r.d, &r.amount, &r.name, &r.at, &r.note), "scan")
		got = append(got, r)
	}
	must(rows.Err(), "rows")
	rows.Close()
	want := []row{
		{1, 9007199254740993, sql.NullFloat64{Float64: 2.5, Valid: true}, sql.NullString{String: "1234567.125", Valid: true},
			"héllo 'quoted'", sql.NullTime{Time: at, Valid: true}, sql.NullString{}},
		{2, -1, sql.NullFloat64{}, sql.NullString{}, "", sql.NullTime{}, sql.NullString{String: "x", Valid: true}},
	}
	if !reflect.DeepEqual(got, want) {
		fail("select rows: got %+v, want %+v", got, want)
	}

	// Same values through the text protocol (no arguments: no prepare).
	var big int64
	var amount string
	var atText time.Time
	var note sql.NullString
	must(db.QueryRow("SELECT big, amount, at, note FROM t WHERE id = 1").Scan(&big, &amount, &atText, &note), "text select")
	eq(big, int64(9007199254740993), "text big")
	eq(amount, "1234567.125", "text amount")
	eq(atText, at, "text at")
	eq(note.Valid, false, "text note NULL")

	// Aggregates with a parameter.
	var sum int64
	var avg float64
	must(db.QueryRow("SELECT SUM(big), AVG(d) FROM t WHERE id BETWEEN ? AND ?", 10, 15).Scan(&sum, new(sql.NullFloat64)), "sum")
	eq(sum, int64(75000000000000), "sum of big over 10..15")
	must(db.QueryRow("SELECT AVG(id) FROM t WHERE id >= ?", 10).Scan(&avg), "avg")
	eq(avg, 14.5, "avg id")

	// Transactions: rollback discards, commit keeps, another connection sees only commits.
	tx, err = db.Begin()
	must(err, "begin")
	_, err = tx.Exec("INSERT INTO t (id, name) VALUES (?, ?)", 100, "rolled back")
	must(err, "insert in tx")
	eq(count(tx, "count in tx"), int64(13), "own uncommitted row visible")
	must(tx.Rollback(), "rollback")
	eq(count(db, "count after rollback"), int64(12), "rollback discards")
	tx, err = db.Begin()
	must(err, "begin 2")
	_, err = tx.Exec("INSERT INTO t (id, name) VALUES (?, ?)", 101, "committed")
	must(err, "insert in tx 2")
	eq(count(db, "count from other conn"), int64(12), "uncommitted row invisible to another connection")
	must(tx.Commit(), "commit")
	eq(count(db, "count after commit"), int64(13), "committed row visible")

	// Duplicate key: error 1062 with SQLSTATE 23000, prepared and text.
	_, err = db.Exec("INSERT INTO t (id, name) VALUES (?, ?)", 1, "dup")
	me := mysqlErr(err, "prepared duplicate")
	eq(me.Number, uint16(1062), "prepared duplicate number")
	_, err = db.Exec("INSERT INTO t (id, name) VALUES (2, 'dup')")
	me = mysqlErr(err, "text duplicate")
	eq(me.Number, uint16(1062), "text duplicate number")
	if len(me.Message) == 0 {
		fail("duplicate error has no message")
	}
	// A failed statement leaves the connection usable and the table unchanged.
	eq(count(db, "count after errors"), int64(13), "errors change nothing")

	// Unknown table surfaces 1146.
	_, err = db.Query("SELECT * FROM missing WHERE id = ?", 1)
	eq(mysqlErr(err, "missing table").Number, uint16(1146), "missing table number")

	// Metadata queries tools run after connecting.
	var tname string
	must(db.QueryRow("SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", "godb", "t").Scan(&tname), "information_schema.tables")
	eq(tname, "t", "information_schema table name")
	var ncols int
	must(db.QueryRow("SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = ? AND table_name = ?", "godb", "t").Scan(&ncols), "information_schema.columns")
	eq(ncols, 7, "information_schema column count")
	var version string
	must(db.QueryRow("SELECT VERSION()").Scan(&version), "version")
	var maxPacket int64
	must(db.QueryRow("SELECT @@max_allowed_packet").Scan(&maxPacket), "max_allowed_packet")
	if maxPacket <= 0 {
		fail("max_allowed_packet %d", maxPacket)
	}
	// Binary values both ways: as prepared-statement parameters, and inlined by the driver
	// (interpolateParams=true writes []byte as a _binary '...' literal of raw bytes).
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, mode := range []string{"", "&interpolateParams=true"} {
		bdb, err := sql.Open("mysql", dsn("gopher", "p@ss word", "godb")+mode)
		must(err, "open "+mode)
		_, err = bdb.Exec("DROP TABLE IF EXISTS bin")
		must(err, "drop bin")
		_, err = bdb.Exec("CREATE TABLE bin (id INT PRIMARY KEY, b BLOB, v VARCHAR(20), at DATETIME)")
		must(err, "create bin")
		_, err = bdb.Exec("INSERT INTO bin VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
			1, all, "it's \\ \"é\"", at, 2, []byte{0, 0xff}, nil, nil)
		must(err, "insert bytes "+mode)
		var b []byte
		var v sql.NullString
		var bat sql.NullTime
		must(bdb.QueryRow("SELECT b, v, at FROM bin WHERE id = ?", 1).Scan(&b, &v, &bat), "select bytes "+mode)
		eq(b, all, "256 byte values round-trip "+mode)
		eq(v.String, "it's \\ \"é\"", "escaped text "+mode)
		eq(bat.Time, at, "datetime "+mode)
		var id int
		must(bdb.QueryRow("SELECT id FROM bin WHERE b = ?", []byte{0, 0xff}).Scan(&id), "select by bytes "+mode)
		eq(id, 2, "row found by bytes "+mode)
		bdb.Close()
	}
	if extra != "" {
		tdb, err := sql.Open("mysql", dsn("root", "", ""))
		must(err, "open tls")
		var name, version string
		must(tdb.QueryRow("SHOW STATUS LIKE 'Ssl_version'").Scan(&name, &version), "Ssl_version")
		if !strings.HasPrefix(version, "TLSv1.") {
			fail("Ssl_version with %s: got %q", extra, version)
		}
		tdb.Close()
	}
	fmt.Println("go ok")
}
