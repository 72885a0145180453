"""Exercises the Betula protocol server with PyMySQL (text protocol,
no DEPRECATE_EOF). Usage: pymysql_client.py PORT. Exits non-zero on failure."""
import sys

import pymysql
from pymysql.constants import CLIENT

port = int(sys.argv[1])
conn = pymysql.connect(host="127.0.0.1", port=port, user="alice", password="secret",
                       database="test", client_flag=CLIENT.MULTI_STATEMENTS, autocommit=None)
cur = conn.cursor()

# Client-side parameter interpolation, OK packets with affected rows / insert id.
assert cur.execute("insert into kv values (%s, %s)", (4, "four")) == 1
assert cur.lastrowid == 4, cur.lastrowid
cur.execute("select k, v from kv")
assert cur.fetchall() == ((4, "four"),), "kv rows"
assert [d[0] for d in cur.description] == ["k", "v"]

# Typed text-protocol values.
cur.execute("select types")
row = cur.fetchone()
assert row[0] == -5 and row[1] == 2**64 - 1 and row[5] == 2.5, row
assert str(row[7]) == "12.340", row[7]
assert str(row[8]) == "2024-02-29" and str(row[9]) == "2024-02-29 13:14:15.000123", row
assert row[11] == "héllo" and row[12] == b"\x00\x01\x02\xff" and row[13] is None, row

# Multi-statements: several result sets.
cur.execute("select seq 2; select seq 3")
assert len(cur.fetchall()) == 2
assert cur.nextset()
assert len(cur.fetchall()) == 3
assert not cur.nextset()

# Server status flags follow the session (IN_TRANS after BEGIN).
cur.execute("begin")
assert conn.server_status & 1, conn.server_status
cur.execute("commit")
assert not conn.server_status & 1 and conn.server_status & 2, conn.server_status

# Errors keep the connection usable.
try:
    cur.execute("bogus")
    raise SystemExit("expected an error")
except pymysql.err.ProgrammingError as e:
    assert e.args[0] == 1064, e.args
conn.ping(reconnect=False)
conn.select_db("test")
try:
    conn.select_db("nosuchdb")
    raise SystemExit("expected an error")
except pymysql.err.OperationalError as e:
    assert e.args[0] == 1049, e.args

# A large streamed result through an unbuffered cursor, abandoned midway.
ss = conn.cursor(pymysql.cursors.SSCursor)
ss.execute("select seq 50000")
n = sum(1 for _ in ss)
assert n == 50000, n
ss.close()
cur.execute("select database()")
assert cur.fetchone() == ("test",)
conn.close()
print("pymysql ok")
