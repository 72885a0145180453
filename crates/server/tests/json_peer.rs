//! The JSON type and the JSON functions answer as MariaDB 10.11 answers them: the same statements
//! go to a private MariaDB (InnoDB) and to Betula through the `mariadb` client, and the outputs
//! (rows, warnings after `SHOW WARNINGS`, or the error line) must be equal byte for byte. Each
//! statement runs on a connection of its own, so a `SHOW WARNINGS` reads that statement's.
//!
//! Only the engine name of SHOW CREATE TABLE is made equal (MariaDB's `InnoDB` against Betula's
//! own). Not compared here (docs/mysql-compat.md lists them): the `Error` row MariaDB adds to
//! SHOW WARNINGS after a failed statement; information_schema.COLUMNS' quoting of a string
//! default; JSON_TABLE, which Betula refuses with 1235; the text of 1064 messages (JSON_OBJECTAGG
//! of one argument); a path MariaDB finds in a document before the point where the document
//! stops being JSON (its parser streams; Betula's reads the whole document first and gives
//! NULL; JSON_OVERLAPS 0).
//!
//! Needs `mariadbd` (Debian's mariadb-server) and the `mariadb` client; without `mariadbd` the
//! test says so and passes without comparing.

mod betula;
mod mariadb_peer;

const SETUP: &str = "CREATE DATABASE IF NOT EXISTS peer; USE peer;
CREATE TABLE j (id INT PRIMARY KEY, doc JSON, d JSON NOT NULL DEFAULT '{}', t TEXT,
  lt LONGTEXT CHECK (json_valid(lt)));
INSERT INTO j VALUES
  (1, '{\"a\": 1, \"b\": [1, 2, {\"c\": \"x\"}], \"s\": \"h\\\\u00e9\"}', '[]', '[1,2]', '[1, 2]'),
  (2, '[10, 20, [30, 40]]', '{\"k\":true}', 'plain', NULL),
  (3, NULL, '{}', NULL, '{\"z\":null}'),
  (4, '\"str\"', '1.5', '{\"a\":1}', '3'),
  (5, '{\"a\": {\"a\": {\"a\": 7}}, \"n\": null, \"f\": false}', '[[]]', '', '[]');
CREATE TABLE k (c JSON CHECK (json_length(c) > 0), e JSON COLLATE utf8mb4_general_ci);
CREATE TABLE l (id INT PRIMARY KEY, c JSON, CONSTRAINT cc CHECK (c <> '')) CHARSET latin1;
CREATE TABLE ag (id INT PRIMARY KEY, g INT, a INT, s VARCHAR(10), doc JSON, b TEXT COLLATE utf8mb4_bin);
INSERT INTO ag VALUES (1, 1, 1, 'x', '[1, 2]', '[\"Abc\"]'), (2, 1, NULL, 'y\"q', NULL, NULL),
  (3, 1, 3, NULL, '{\"a\" :  1}', '{\"k\": \"abc\"}'), (4, 2, 4, 'z', '3', '[\"x\"]'), (5, 2, 4, 'z', '3', NULL);";

const QUERIES: &[&str] = &[
    // The type: SHOW CREATE TABLE, information_schema, the constraint at work.
    "SHOW CREATE TABLE j",
    "SHOW CREATE TABLE k",
    "SHOW CREATE TABLE l",
    "SELECT column_name, column_type, data_type, is_nullable, character_set_name, collation_name \
     FROM information_schema.columns WHERE table_schema = 'peer' AND table_name = 'j' ORDER BY ordinal_position",
    "SELECT table_name, constraint_name, level, check_clause FROM information_schema.check_constraints \
     WHERE constraint_schema = 'peer' ORDER BY table_name, constraint_name",
    "SELECT table_name, constraint_name, constraint_type FROM information_schema.table_constraints \
     WHERE table_schema = 'peer' ORDER BY table_name, constraint_name",
    "INSERT INTO j (id, doc) VALUES (10, 'not json')",
    "INSERT INTO j (id, doc) VALUES (10, '{\"a\":1')",
    "INSERT INTO j (id, d) VALUES (10, NULL)",
    "INSERT INTO j (id, doc) VALUES (11, '[1, 2]'); SELECT id, doc, d FROM j WHERE id = 11",
    "UPDATE j SET doc = 'x' WHERE id = 2",
    "ALTER TABLE l ADD COLUMN m JSON; SHOW CREATE TABLE l",
    "ALTER TABLE l MODIFY c TEXT; SHOW CREATE TABLE l",
    "SELECT doc->'$.a' FROM j",
    "SELECT doc->>'$.a' FROM j",
    "SELECT * FROM j ORDER BY id",
    // JSON_VALID and its notes.
    "SELECT id, json_valid(doc), json_valid(t), json_valid(lt) FROM j ORDER BY id",
    "SELECT json_valid('bad'), json_valid('{\"a\":1}'), json_valid(NULL), json_valid(1), json_valid('  [1, 2 ] '), \
     json_valid(''), json_valid('01'), json_valid('{\"a\":1,\"a\":2}'); SHOW WARNINGS",
    "SELECT json_valid('\"\\\\u12\"'), json_valid('\"\\\\u12x4\"'), json_valid('\"a\\\\\"'); SHOW WARNINGS",
    "SELECT json_valid('[1,]'), json_valid('\"a\\tb\"'), json_valid('\"\\\\q\"'), json_valid('tru'), json_valid('[1] x'); SHOW WARNINGS",
    // JSON_EXTRACT: the text of what a path selects.
    "SELECT id, json_extract(doc, '$.a'), json_extract(doc, '$.b[1]'), json_extract(doc, '$[2]') FROM j ORDER BY id",
    "SELECT id, json_extract(doc, '$.b'), json_extract(doc, '$.s'), json_extract(doc, '$**.a') FROM j ORDER BY id",
    "SELECT json_extract('{\"a\": [1,  2,{\"x\" :  3}]}', '$.a'), json_extract('{\"a\":1,\"b\":2}', '$.*'), \
     json_extract('[1,2]', '$[0]', '$[1]')",
    "SELECT json_extract('{\"a\": [1.0E2,  -0, \"\\\\u00e9\\\\/\" ,{\"x\" :  3, \"y\":[ ]}, { }]}', '$.a'), \
     json_extract('[1.0E2, {\"b\" :1}]', '$[0]')",
    "SELECT json_extract('[1,2,3]', '$[last]'), json_extract('[1,2,3]', '$[1 to 2]'), json_extract('[1,2,3]', '$[last-1]'), \
     json_extract('[1,2]', '$[0 to 5]'), json_extract('[1,2]', '$[3 to 1]')",
    "SELECT json_extract('[1]', '$[0][0]'), json_extract('1', '$[0]'), json_extract('{\"a\":1}', '$[0].a'), \
     json_extract('[[1]]', '$[last][last]'), json_extract('{\"a b\":1}', '$.\"a b\"'), json_extract('{\"a\":1}', 'lax $.a')",
    "SELECT json_extract('{\"a\":1}', '$.b'), json_extract('{\"a\":1}', 'a'), json_extract('bad', '$'); SHOW WARNINGS",
    "SELECT json_extract('[1]', '$[0]', 'x'); SHOW WARNINGS",
    "SELECT json_extract('[1]', '$.'); SHOW WARNINGS",
    "SELECT json_extract('[1]', '$['); SHOW WARNINGS",
    "SELECT json_extract('[1]', '$[a]'); SHOW WARNINGS",
    "SELECT json_extract('[1]', '$**'); SHOW WARNINGS",
    "SELECT json_extract('[1]', '$ [0]'); SHOW WARNINGS",
    "SELECT json_extract('[1]')",
    // JSON_VALUE, JSON_QUERY, JSON_UNQUOTE, JSON_QUOTE.
    "SELECT id, json_value(doc, '$.a'), json_value(doc, '$.s'), json_query(doc, '$.b'), json_query(doc, '$.a') FROM j ORDER BY id",
    "SELECT json_value('{\"a\":\"x\\\\ny\"}', '$.a'), json_query('{\"a\":[1, 2]}', '$.a'), json_value('{\"a\":[1]}', '$.a'), \
     json_value('[1', '$'), json_query('[1', '$'), json_value('{\"a\":true}', '$.a'), \
     json_value('{\"a\":false}', '$.a'), json_value('{\"a\":null}', '$.a'), json_value('{\"a\":1.0e1}', '$.a')",
    "SELECT json_unquote(json_extract('{\"a\":\"x\\\\ny\"}', '$.a')), json_unquote('\"a\\\\tb\\\\u00e9\"'), json_unquote('abc'), \
     json_unquote('\"\\\\x\"'), json_unquote('[1]')",
    "SELECT json_unquote('\"abc'); SHOW WARNINGS",
    "SELECT json_quote('a\"b\\\\c\\n'), json_quote(1), json_quote(NULL), json_quote(''), json_quote(t) FROM j WHERE id = 1",
    // JSON_TYPE, JSON_LENGTH, JSON_DEPTH, JSON_KEYS.
    "SELECT json_type('1'), json_type('1.5'), json_type('\"s\"'), json_type('[]'), json_type('{}'), json_type('true'), \
     json_type('null'), json_type('1e2'), json_type('-3'), json_type('1.0e2')",
    "SELECT id, json_type(doc), json_length(doc), json_depth(doc), json_keys(doc), json_length(doc, '$.b') FROM j ORDER BY id",
    "SELECT json_type('x'); SHOW WARNINGS",
    "SELECT json_type(''); SHOW WARNINGS",
    "SELECT json_length('[1'), json_length('[1]', '$.a'), json_length('[1]', 'x'); SHOW WARNINGS",
    "SELECT json_depth('[1'); SHOW WARNINGS",
    "SELECT json_keys('{\"a\" :1, \"b\": {\"c\":1}}'), json_keys('{\"a\" :1, \"b\": {\"c\":1}}', '$.b'), json_keys('[1]'), \
     json_keys('[1'); SHOW WARNINGS",
    "SELECT json_length('{\"a\":1,\"b\":2}'), json_length('[1,[2,3]]', '$[1]'), json_length('1'), json_depth('[]'), \
     json_depth('[1,[2]]'), json_depth('1'), json_depth('{\"a\":{\"b\":[]}}')",
    // JSON_CONTAINS, JSON_CONTAINS_PATH, JSON_EXISTS.
    "SELECT json_contains('[1,2,{\"a\":[3]}]', '3', '$[2].a'), json_contains('{\"a\":1,\"b\":2}', '{\"a\":1}'), \
     json_contains('[1,2]', '[2,1]'), json_contains('[1,[2]]', '2'), json_contains('{\"a\":1}', '{\"a\":2}'), \
     json_contains('[\"a\"]', '\"a\"'), json_contains('1.0', '1'), json_contains('{\"a\":[1,2]}', '{\"a\":[2]}')",
    "SELECT id, json_contains(doc, '1'), json_contains(doc, '{\"a\": 1}'), json_contains_path(doc, 'one', '$.a', '$.z'), \
     json_contains_path(doc, 'all', '$.a', '$.b'), json_exists(doc, '$.b[2].c') FROM j ORDER BY id",
    "SELECT json_contains('[1', '1'); SHOW WARNINGS",
    "SELECT json_contains('[1]', '1', '$[*]'); SHOW WARNINGS",
    "SELECT json_contains_path('[1]', 'any', '$'); SHOW WARNINGS",
    "SELECT json_exists('[1]', '$[*]'), json_exists('{\"a\":1}', '$.b'), json_exists(NULL, '$'); SHOW WARNINGS",
    // Building documents: JSON_OBJECT, JSON_ARRAY and what they embed as JSON.
    "SELECT json_object('a', 1, 'b', json_array(1, 2)), json_array(1, 'x', NULL, TRUE, 1.5, json_object()), json_array()",
    "SELECT json_object('a', 1.50, 'b', 1e3, 'c', TRUE, 'd', NULL, 'e', CAST(1 AS DOUBLE), 'f', 1 IS NULL, \
     'g', 'q\"x', 'h', _binary 'ab', 'i', DATE '2020-01-01', 'j', 18446744073709551615, 'l', 1/3, 'm', 2 > 1)",
    "SELECT id, json_object('doc', doc, 't', t, 'lt', lt), json_array(doc, t, json_extract(doc, '$.a')) FROM j ORDER BY id",
    "SELECT json_array(json_value('[1]', '$[0]'), json_query('[[1]]', '$[0]'), json_extract('[\"s\"]', '$[0]'), \
     json_set('[1]', '$[0]', 2), json_keys('{\"a\":1}'), json_type('1'), json_length('[1]'), json_quote('x'), json_unquote('\"x\"'))",
    "SELECT json_object('a')",
    "SELECT json_object(NULL, 1), json_object('k', 'v\\n\"', 'a\\\\b', NULL)",
    "SELECT json_array(1, 2) = '[1, 2]', concat(json_array(1), 'x'), length(json_object('a', 1))",
    // Changing documents.
    "SELECT json_set('{\"a\" :1,  \"b\":[1 ,2]}', '$.c', 3), json_remove('{\"a\" :1,  \"b\":[1 ,2]}', '$.a'), \
     json_insert('[1 ,2]', '$[5]', 3), json_replace('{\"a\":1}', '$.a', 'x', '$.b', 2)",
    "SELECT json_set('{\"a\":1}', '$.a', 2, '$.b', json_array(1)), json_insert('{\"a\":1}', '$.a', 2, '$.b', 3), \
     json_set('[1,2]', '$[1]', 9, '$[7]', 8), json_set('1', '$[0]', 2), json_set('1', '$[1]', 2), json_insert('{\"a\":1}', '$[1]', 2)",
    "SELECT json_set('{\"a\":{\"b\":1}}', '$.a.b', NULL, '$.a.c', TRUE, '$.x.y', 1), json_replace('[1,2]', '$[last]', 0), \
     json_set('[1]', '$', 5)",
    "SELECT json_remove('[1,2,3]', '$[1]', '$[0]'), json_remove('{\"a\":{\"b\":1,\"c\":2}}', '$.a.b', '$.z'), json_remove('[1,2]', '$[last]')",
    "SELECT json_array_append('[1, [2]]', '$[1]', 3, '$[0]', 4), json_array_append('{\"a\":1}', '$.a', 2, '$', 3), \
     json_array_append('[]', '$', json_object('k', 1))",
    "SELECT json_merge_patch('{\"a\":1,\"b\":{\"c\":2}}', '{\"b\":{\"c\":null,\"d\":[1 ,2]},\"e\":3}'), json_merge_patch('[1]', '{\"a\":1}'), \
     json_merge_patch('{\"a\":1}', '[2]'), json_merge_patch('{\"a\":1}', '{\"a\":null}', '{\"b\":2}')",
    "SELECT id, json_set(doc, '$.new', id), json_remove(d, '$[0]'), json_merge_patch(d, '{\"p\":1}') FROM j ORDER BY id",
    "SELECT json_set('[1]', '$[*]', 1); SHOW WARNINGS",
    "SELECT json_remove('[1]', '$'); SHOW WARNINGS",
    "SELECT json_set('[1', '$', 1); SHOW WARNINGS",
    "SELECT json_set('[1]', '$')",
    "SELECT json_set('[1]')",
    // NULL arguments.
    "SELECT json_extract(NULL, '$'), json_extract('[1]', NULL), json_value(NULL, '$'), json_length(NULL), json_keys(NULL), \
     json_type(NULL), json_depth(NULL), json_unquote(NULL), json_set(NULL, '$', 1), json_set('[1]', NULL, 1), \
     json_set('[1]', '$[0]', NULL), json_remove('[1]', NULL), json_contains(NULL, '1'), json_contains('1', NULL), \
     json_contains_path('[1]', NULL, '$'), json_exists(NULL, '$'), json_merge_patch(NULL, '{}'), json_array_append(NULL, '$', 1)",
    // JSON_ARRAYAGG and JSON_OBJECTAGG; GROUP_CONCAT's order, LIMIT and group_concat_max_len.
    "SELECT g, json_arrayagg(a), json_arrayagg(s), json_arrayagg(doc), json_objectagg(s, a), json_objectagg(s, doc) \
     FROM ag GROUP BY g ORDER BY g",
    "SELECT json_arrayagg(a), json_objectagg(s, a), group_concat(a) FROM ag WHERE g = 9",
    "SELECT json_arrayagg(DISTINCT a ORDER BY a DESC), json_arrayagg(a ORDER BY a LIMIT 2), json_arrayagg(a ORDER BY a LIMIT 1, 3), \
     json_arrayagg(a LIMIT 0), json_arrayagg(DISTINCT doc), json_arrayagg(DISTINCT s) FROM ag",
    "SELECT json_arrayagg(a ORDER BY g), json_arrayagg(s ORDER BY g DESC), group_concat(a ORDER BY g), \
     group_concat(DISTINCT s ORDER BY g DESC), group_concat(a ORDER BY a LIMIT 2 OFFSET 1), group_concat(DISTINCT doc) FROM ag",
    "SELECT json_arrayagg(a > 1), json_arrayagg(a / 3), json_arrayagg(1.5e0 * a), json_arrayagg(json_object('a', a)), \
     json_arrayagg(_binary 'ab'), json_arrayagg(DATE '2020-01-01') FROM ag",
    "SELECT json_object('k', json_arrayagg(a)), json_array(json_objectagg(s, a)), json_extract(json_arrayagg(doc), '$[0]'), \
     json_detailed(json_arrayagg(a)) FROM ag",
    "SELECT json_objectagg(a > 1, a = 1), json_objectagg(doc, 1), json_objectagg(id, json_valid(doc)) FROM ag",
    "SET SESSION group_concat_max_len = 10; SELECT json_arrayagg(s), json_arrayagg(a), json_objectagg(s, a), group_concat(s), \
     json_arrayagg(doc ORDER BY id DESC) FROM ag; SHOW WARNINGS",
    "SELECT @@group_concat_max_len",
    "SELECT json_arrayagg(a, s) FROM ag",
    "SELECT json_arrayagg(a) OVER () FROM ag",
    "SELECT json_objectagg(s, a) OVER () FROM ag",
    "SELECT json_array(json_valid('1'), json_contains('[1]', '1'), json_exists('[1]', '$'), json_contains_path('[1]', 'one', '$'), \
     json_equals('1', '1'), json_overlaps('1', '2'))",
    // JSON_SEARCH.
    "SELECT json_search('{\"a\":\"abc\",\"b\":[\"abc\",\"x\",{\"c\":\"abd\"}]}', 'one', 'ab%'), \
     json_search('{\"a\":\"abc\",\"b\":[\"abc\",\"x\",{\"c\":\"abd\"}]}', 'all', 'ab%'), json_search('[\"a\",1,\"1\"]', 'all', '1'), \
     json_search('[\"a_b\",\"axb\"]', 'all', 'a|_b', '|'), json_search('[\"a\"]', 'all', 'z'), \
     json_search('{\"a\":[\"x\"],\"b\":\"x\"}', 'all', 'x', NULL, '$.a'), json_search('{\"a\":[\"x\"],\"b\":\"x\"}', 'all', 'x', NULL, '$.b', '$.a'), \
     json_search('[\"A\"]', 'one', 'a'), json_search('{\"a b\":\"x\"}', 'one', 'x'), json_search('[\"x\",\"x\"]', 'one', 'x')",
    "SELECT json_search('{\"a\":{\"b\":\"x\"},\"c\":[[\"x\"]]}', 'all', 'x', NULL, '$**.b', '$.c[0][*]'), \
     json_search('[\"x\",\"y\"]', 'all', '%', NULL, '$[last]'), json_search('[true, null, 1.50, \"1.5\"]', 'all', '%'), \
     json_search('[true, 1.50]', 'all', '1.5'), json_search('[\"\\\\u0041\", \"a\\\\\"b\"]', 'all', '%'), \
     json_search('{\"k\\\\\"\":\"x\"}', 'one', 'x'), json_search('[\"%\"]', 'one', '\\\\%'), json_search('[\"x\"]', 'one', 'x', '', '$[*]')",
    "SELECT id, json_search(doc, 'all', '1'), json_search(b, 'one', 'abc'), json_search(b, 'one', 'Abc') FROM ag ORDER BY id",
    "SELECT json_search(NULL, 'one', 'x'), json_search('[\"x\"]', NULL, 'x'), json_search('[\"x\"]', 'one', NULL), \
     json_search('[\"x\"]', 'ONE', 'x'), json_search('[\"x\"]', 'one', 'x', NULL, NULL), json_search('x', NULL, 'x')",
    "SELECT json_search('[1', 'one', 'x'); SHOW WARNINGS",
    "SELECT json_search('[1]', 'any', 'x'); SHOW WARNINGS",
    "SELECT json_search('[1]', 'one', 'x', 'ab')",
    "SELECT json_search('[1]', 'one', 'x', NULL, 'x'); SHOW WARNINGS",
    "SELECT json_search('[1]', 'one')",
    // JSON_ARRAY_INSERT, JSON_MERGE, JSON_MERGE_PRESERVE.
    "SELECT json_array_insert('[1, 2, 3]', '$[1]', 'x'), json_array_insert('[1,2]', '$[5]', 9), json_array_insert('{\"a\":[1]}', '$.a[0]', json_array(1)), \
     json_array_insert('[1,[2]]', '$[1][0]', 0, '$[0]', 'y'), json_array_insert('{\"a\":1}', '$.a[0]', 5), json_array_insert('1', '$[0]', 2)",
    "SELECT json_array_insert('[1,2,3]', '$[last]', 7), json_array_insert('[1,2,3]', '$[last-1]', 7), json_array_insert('[1,2,3]', '$[last-5]', 7), \
     json_array_insert('[]', '$[last]', 7), json_array_insert('{\"a\":[1]}', '$.b[0]', 7), json_array_insert('[[1]]', '$[0][1]', 7, '$[0][1]', 8), \
     json_array_insert('[1]', '$[0]', NULL), json_array_insert(NULL, '$[0]', 1), json_array_insert('[1]', NULL, 1)",
    "SELECT json_array_insert('[1]', '$', 1), json_array_insert('[1]', '$.a', 1); SHOW WARNINGS",
    "SELECT json_array_insert('[1]', '$[*]', 1); SHOW WARNINGS",
    "SELECT json_array_insert('[1', '$[0]', 1); SHOW WARNINGS",
    "SELECT json_array_insert('[1]', '$[0]')",
    "SELECT json_merge('[1, 2]', '[3]'), json_merge('{\"a\":1}', '{\"a\":2,\"b\":3}'), json_merge('1', '2'), json_merge('{\"a\":1}', '[2]'), \
     json_merge('[2]', '{\"a\":1}'), json_merge('{\"a\":{\"x\":1}}', '{\"a\":{\"x\":2,\"y\":[1]}}', '{\"c\":null}'), \
     json_merge_preserve('{\"a\" :  [1]}', '{\"a\":\"s\"}'), json_merge('\"s\"', '{\"k\":1}'), json_merge('{}', '{}'), json_merge('[]', '1')",
    "SELECT json_merge(NULL, '[2]'), json_merge('[1]', NULL), json_merge('{\"a\":1,\"a\":2}', '{\"a\":3}'), json_merge('{\"a\":[1]}', '{\"a\":{\"b\":1}}'), \
     json_merge_preserve('{\"a\":{\"b\":1}}', '{\"a\":[1]}'), json_merge_preserve(doc, d) FROM j WHERE id = 1",
    "SELECT json_merge('[1', '[2]'); SHOW WARNINGS",
    "SELECT json_merge_preserve('[1]', '[2'); SHOW WARNINGS",
    "SELECT json_merge('[1]')",
    "SELECT json_merge_preserve('[1]')",
    // JSON_COMPACT, JSON_LOOSE, JSON_DETAILED / JSON_PRETTY.
    "SELECT json_compact('{ \"a\" : 1, \"b\" : [ 1 , 2 , {\"c\":[]} ], \"d\":{} }'), json_loose('{\"a\":1,\"b\":[1,2,{\"c\":[]}],\"d\":{}}'), \
     json_compact(' 1.0E2 '), json_compact('\"x\\\\u00e9\"'), json_loose('[[],{},[[1]]]'), json_compact(doc), json_loose(d) FROM j WHERE id = 1",
    "SELECT json_detailed('{\"a\":1,\"b\":[1,2,{\"c\":[], \"e\":{}}],\"d\":{\"x\":null}, \"f\":[[1,2],[3]]}')",
    "SELECT json_pretty('[1,{\"a\":[]}]'), json_detailed('1'), json_detailed('[]'), json_detailed('{}'), json_detailed('[1,2]', 4), \
     json_detailed('[[1],[2]]'), json_detailed('[\"x\"]'), json_detailed('[[]]'), json_detailed('[{\"a\":1},{}]')",
    "SELECT json_detailed('[1,2]', 9), json_detailed('[1,2]', -1), json_detailed('[1,2]', NULL), json_detailed('[1,[2]]', 2), \
     json_detailed('[1,2]', '3'), json_detailed('[1,2]', 0), json_detailed(NULL), json_compact(NULL), json_loose(NULL)",
    "SELECT json_detailed('[1'); SHOW WARNINGS",
    "SELECT json_pretty('[1'); SHOW WARNINGS",
    "SELECT json_compact('[1'); SHOW WARNINGS",
    "SELECT json_loose('x'); SHOW WARNINGS",
    "SELECT json_pretty()",
    "SELECT json_compact('1', 2)",
    "SELECT json_detailed('1', 2, 3)",
    // JSON_NORMALIZE, JSON_EQUALS, JSON_OVERLAPS.
    "SELECT json_normalize('{\"b\":[1.0, 2E3, -0, \"x\\\\u00e9\", true], \"a\" : {\"d\":null,\"c\":1}}'), json_normalize('1'), \
     json_normalize('100'), json_normalize('0.1e-2'), json_normalize('-0.0'), json_normalize('12345678901234567890'), \
     json_normalize('{\"a\":1,\"a\":0}'), json_normalize(NULL), json_normalize(' -1.50 ')",
    "SELECT json_normalize('{\"bb\":1,\"a\":2,\"c\":3,\"B\":4}'), json_normalize('{\"\\\\u0062\":1,\"a\":2}'), \
     json_normalize('{\"a\":2,\"a\":10,\"a\":\"x\",\"a\":true}'), json_normalize('[1 , {}]')",
    "SELECT json_equals('{\"a\":1,\"b\":2}', '{\"b\":2,\"a\":1.0}'), json_equals('[1,2]', '[2,1]'), json_equals('1', '1e0'), \
     json_equals('\"a\"', '\"\\\\u0061\"'), json_equals(NULL, '1'), json_equals('true', '1'), json_equals('[]', '{}'), json_equals(' null ', 'null')",
    "SELECT json_overlaps('[1,2]', '[2,3]'), json_overlaps('[1,2]', '[3]'), json_overlaps('{\"a\":1,\"b\":2}', '{\"b\":2}'), \
     json_overlaps('{\"a\":1}', '{\"a\":2}'), json_overlaps('1', '1.0'), json_overlaps('[1,[2]]', '2'), json_overlaps('[1,[2]]', '[[2]]'), \
     json_overlaps('{\"a\":[1]}', '[{\"a\":[1]}]'), json_overlaps('[]', '[]'), json_overlaps('{}', '{}'), json_overlaps('true', '[true]'), \
     json_overlaps(NULL, '1')",
    "SELECT json_overlaps('{\"a\":{\"b\":1,\"c\":2}}', '{\"a\":{\"c\":2,\"b\":1}}'), json_overlaps('{\"a\":{\"b\":1}}', '{\"a\":{\"b\":1,\"c\":2}}'), \
     json_overlaps('[[1,2]]', '[[2,1]]'), json_overlaps('\"\\\\u0061\"', '\"a\"'), json_overlaps('{\"a\":1}', '[{\"a\":1}, 2]'), \
     json_overlaps('[[1]]', '[[1.0]]'), json_overlaps('1', 'true'), json_overlaps('[1, {\"a\":1}]', '{\"a\":1,\"b\":2}')",
    "SELECT json_normalize('[1'); SHOW WARNINGS",
    "SELECT json_equals('1', '[1'); SHOW WARNINGS",
    "SELECT json_overlaps('x', '1'); SHOW WARNINGS",
    "SELECT json_equals('1')",
    "SELECT json_overlaps('1')",
    "SELECT json_normalize()",
    // JSON_EXTRACT where a number is wanted.
    "SELECT json_extract('{\"k\":\"45\"}', '$.k') + 0, json_extract('{\"k\":true}', '$.k') = 1, CAST(json_extract('[1.5]', '$[0]') AS DECIMAL(10,2)), \
     json_extract('[2]', '$[0]') + 1, CAST(json_extract('{\"k\":\"45.5\"}', '$.k') AS DECIMAL(10,2)), json_extract('[null]', '$[0]') + 0, \
     json_extract('[[1]]', '$[0]') + 0, -json_extract('[\"3\"]', '$[0]'), \
     json_extract('[false]', '$[0]') + 0, \
     json_extract('[1e2]', '$[0]') * 1; SHOW WARNINGS",
    "SELECT id, json_extract(doc, '$.a') + 1, json_extract(doc, '$.a') = 1 FROM j ORDER BY id",
    // REGEXP / RLIKE with a literal NULL pattern.
    "SELECT 'a' REGEXP NULL, 'a' RLIKE NULL, 'abc' NOT REGEXP NULL, 'a' REGEXP NULL + 1, NULL REGEXP NULL, 'a' REGEXP 'NULL'",
    "SELECT 'abc' REGEXP NULL IS NULL, 'x' regexp NULL AND 1, 1 + 1 = 2 AND 'b' RLIKE   NULL",
    // In WHERE, GROUP BY and UPDATE.
    "SELECT id FROM j WHERE json_extract(doc, '$.a') = 1 ORDER BY id",
    "SELECT id FROM j WHERE json_contains(d, 'true', '$.k') ORDER BY id",
    "SELECT json_type(d) ty, COUNT(*) FROM j GROUP BY ty ORDER BY ty",
    "UPDATE j SET d = json_set(d, '$.u', id) WHERE json_type(d) = 'OBJECT'; SELECT id, d FROM j ORDER BY id",
];

#[test]
fn json_type_and_functions_answer_as_mariadb() {
    let Some(maria) = mariadb_peer::MariaDb::start() else {
        eprintln!("mariadbd is not installed: nothing compared");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let betula = betula::BetulaServer::start(dir.path());
    let engine = |a: String| {
        a.replace("ENGINE=InnoDB", "ENGINE=<engine>")
            .replace("ENGINE=Betula", "ENGINE=<engine>")
    };
    let want: Vec<String> = mariadb_peer::answers(maria.port, SETUP, QUERIES)
        .into_iter()
        .map(engine)
        .collect();
    let got: Vec<String> = mariadb_peer::answers(betula.port, SETUP, QUERIES)
        .into_iter()
        .map(engine)
        .collect();
    mariadb_peer::assert_same_answers(QUERIES, &want, &got);
}
