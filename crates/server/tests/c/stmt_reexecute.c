/* Prepared-statement client on libmariadb (the library sysbench uses).
 * libmariadb sends parameter types only on the first execute after
 * mysql_stmt_bind_param (new-params-bound-flag = 1); re-executing without
 * re-binding sends flag 0 and the server must reuse the stored types.
 * Usage: stmt_reexecute PORT. Prints one line per fetched row. */
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(MYSQL *m, MYSQL_STMT *s, const char *what) {
    fprintf(stderr, "%s failed: %s\n", what, s ? mysql_stmt_error(s) : mysql_error(m));
    exit(1);
}

static void fetch_all(MYSQL *m, MYSQL_STMT *st, int ncols) {
    char buf[4][256];
    unsigned long len[4];
    my_bool isnull[4];
    MYSQL_BIND res[4];
    memset(res, 0, sizeof res);
    for (int i = 0; i < ncols; i++) {
        res[i].buffer_type = MYSQL_TYPE_STRING;
        res[i].buffer = buf[i];
        res[i].buffer_length = sizeof buf[i];
        res[i].length = &len[i];
        res[i].is_null = &isnull[i];
    }
    if (mysql_stmt_bind_result(st, res)) die(m, st, "bind_result");
    if (mysql_stmt_store_result(st)) die(m, st, "store_result");
    while (mysql_stmt_fetch(st) == 0) {
        for (int i = 0; i < ncols; i++)
            printf("%s%.*s", i ? "|" : "", isnull[i] ? 4 : (int)len[i], isnull[i] ? "NULL" : buf[i]);
        printf("\n");
    }
    mysql_stmt_free_result(st);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    MYSQL *m = mysql_init(NULL);
    if (!mysql_real_connect(m, "127.0.0.1", "alice", "secret", "test", atoi(argv[1]), NULL, 0))
        die(m, NULL, "connect");

    MYSQL_STMT *st = mysql_stmt_init(m);
    const char *q = "select ?, ?";
    if (mysql_stmt_prepare(st, q, strlen(q))) die(m, st, "prepare");
    int id = 51;
    char s[64] = "ab";
    unsigned long slen = 2;
    MYSQL_BIND p[2];
    memset(p, 0, sizeof p);
    p[0].buffer_type = MYSQL_TYPE_LONG;
    p[0].buffer = &id;
    p[1].buffer_type = MYSQL_TYPE_STRING;
    p[1].buffer = s;
    p[1].buffer_length = sizeof s;
    p[1].length = &slen;
    if (mysql_stmt_bind_param(st, p)) die(m, st, "bind_param");
    for (int round = 0; round < 3; round++) {
        /* Only the bound buffers change: no re-bind, so no types resent. */
        if (round == 1) { id = 13056; strcpy(s, "xyz"); slen = 3; }
        if (round == 2) { id = -1; slen = 0; }
        if (mysql_stmt_execute(st)) die(m, st, "execute");
        fetch_all(m, st, 2);
    }

    /* Long data for the second parameter. */
    p[1].buffer_type = MYSQL_TYPE_BLOB;
    if (mysql_stmt_bind_param(st, p)) die(m, st, "bind_param 2");
    id = 7;
    if (mysql_stmt_send_long_data(st, 1, "long ", 5)) die(m, st, "send_long_data");
    if (mysql_stmt_send_long_data(st, 1, "data", 4)) die(m, st, "send_long_data");
    if (mysql_stmt_execute(st)) die(m, st, "execute long data");
    fetch_all(m, st, 2);
    if (mysql_stmt_reset(st)) die(m, st, "reset");
    mysql_stmt_close(st);

    /* Binary rows of every type, fetched as strings by libmariadb. */
    st = mysql_stmt_init(m);
    q = "select k, v from kv";
    if (mysql_query(m, "insert into kv values (5, 'five')")) die(m, NULL, "insert");
    if (mysql_stmt_prepare(st, q, strlen(q))) die(m, st, "prepare 2");
    if (mysql_stmt_execute(st)) die(m, st, "execute 2");
    fetch_all(m, st, 2);
    mysql_stmt_close(st);
    mysql_close(m);
    return 0;
}
