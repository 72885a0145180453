//! Property tests of the key codec: bytewise order of encodings equals SQL tuple order, reversible
//! columns decode back, prefix successors bound prefix scans, malformed keys are errors, and
//! prefix key columns (`KEY (c(n))`) keep SQL order non-strictly and key a value as its prefix,
//! and ENUM/SET columns of key format 2 order by member number / bitmask and decode back.

mod common;

use std::cmp::Ordering;

use betula_sql::codec::key::{decode_key, encode_key, prefix_successor, KeyColumn};
use betula_sql::types::value::{cmp_nulls_first, Value};
use rand::Rng;

fn random_cols(r: &mut rand::rngs::SmallRng) -> Vec<KeyColumn> {
    let n = r.gen_range(1..=3);
    (0..n)
        .map(|_| {
            let sql_type = common::random_type(r);
            KeyColumn {
                sql_type,
                collation: common::random_collation(r, &sql_type),
                descending: r.gen_range(0..4) == 0,
                prefix: None,
                members: None,
            }
        })
        .collect()
}

fn sql_tuple_cmp(cols: &[KeyColumn], a: &[Value], b: &[Value]) -> Ordering {
    for ((c, x), y) in cols.iter().zip(a).zip(b) {
        let o = cmp_nulls_first(x, y, c.collation);
        let o = if c.descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

fn encode(cols: &[KeyColumn], vals: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_key(cols, vals, &mut out).unwrap_or_else(|e| panic!("{e}: {cols:?} {vals:?}"));
    out
}

#[test]
fn key_order_matches_sql_order() {
    let mut r = common::rng(0xBE7A);
    let (mut equal_but_different, mut less, mut compared) = (0, 0, 0);
    for _ in 0..3000 {
        let cols = random_cols(&mut r);
        let tuples: Vec<Vec<Value>> = (0..12)
            .map(|_| {
                cols.iter()
                    .map(|c| common::random_value(&mut r, &c.sql_type, 15))
                    .collect()
            })
            .collect();
        let keys: Vec<Vec<u8>> = tuples.iter().map(|t| encode(&cols, t)).collect();
        for i in 0..tuples.len() {
            for j in 0..tuples.len() {
                let want = sql_tuple_cmp(&cols, &tuples[i], &tuples[j]);
                let got = keys[i].cmp(&keys[j]);
                assert_eq!(
                    got, want,
                    "cols {cols:?}\n a {:?}\n b {:?}",
                    tuples[i], tuples[j]
                );
                compared += 1;
                less += (want == Ordering::Less) as u32;
                equal_but_different += (want == Ordering::Equal && tuples[i] != tuples[j]) as u32;
            }
        }
    }
    // The generator must exercise collation / -0.0 equalities and real orderings.
    assert_eq!(compared, 3000 * 144);
    assert!(
        equal_but_different > 50 && less > 100_000,
        "{equal_but_different} {less}"
    );
}

#[test]
fn reversible_columns_decode_to_the_value() {
    let mut r = common::rng(7);
    for _ in 0..5000 {
        let cols = random_cols(&mut r);
        let vals: Vec<Value> = cols
            .iter()
            .map(|c| common::random_value(&mut r, &c.sql_type, 10))
            .collect();
        let key = encode(&cols, &vals);
        let got = decode_key(&cols, &key).unwrap();
        for ((c, v), g) in cols.iter().zip(&vals).zip(&got) {
            match g {
                Some(g) => assert_eq!(g, v, "{c:?}"),
                None => assert!(!c.is_reversible() && !v.is_null(), "{c:?} {v:?}"),
            }
        }
    }
}

#[test]
fn prefix_successor_bounds_every_extension() {
    let mut r = common::rng(11);
    for _ in 0..3000 {
        let cols = random_cols(&mut r);
        let vals: Vec<Value> = cols
            .iter()
            .map(|c| common::random_value(&mut r, &c.sql_type, 10))
            .collect();
        let key = encode(&cols, &vals);
        // Prefix = encoding of the first k columns: the full key lies in [prefix, successor).
        let k = r.gen_range(0..=cols.len());
        let prefix = encode(&cols[..k], &vals[..k]);
        assert!(key.starts_with(&prefix));
        if let Some(s) = prefix_successor(&prefix) {
            assert!(prefix < s && key < s, "{prefix:?} {s:?} {key:?}");
        } else {
            assert!(prefix.iter().all(|&b| b == 0xFF));
        }
    }
}

#[test]
fn malformed_keys_never_panic() {
    let mut r = common::rng(13);
    for _ in 0..5000 {
        let cols = random_cols(&mut r);
        let vals: Vec<Value> = cols
            .iter()
            .map(|c| common::random_value(&mut r, &c.sql_type, 10))
            .collect();
        let key = encode(&cols, &vals);
        // Every strict prefix is missing bytes: always an error.
        let cut = r.gen_range(0..key.len());
        assert!(decode_key(&cols, &key[..cut]).is_err());
        // Random mutations and garbage: any result, but no panic.
        let mut m = key.clone();
        for _ in 0..r.gen_range(1..4) {
            let i = r.gen_range(0..m.len());
            m[i] = r.gen();
        }
        let _ = decode_key(&cols, &m);
        let garbage: Vec<u8> = (0..r.gen_range(0..40)).map(|_| r.gen()).collect();
        let _ = decode_key(&cols, &garbage);
    }
}

/// The first `n` characters (text) or bytes (binary) of a string value.
fn truncated(v: &Value, n: u32) -> Value {
    match v {
        Value::Text(s) => Value::Text(s.chars().take(n as usize).collect()),
        Value::Bytes(b) => Value::Bytes(b[..b.len().min(n as usize)].to_vec()),
        other => other.clone(),
    }
}

#[test]
fn prefix_columns_keep_order_and_key_the_prefix() {
    let mut r = common::rng(17);
    let mut strict = 0;
    for _ in 0..3000 {
        let sql_type = common::random_type(&mut r);
        if !(sql_type.is_text() || sql_type.is_binary()) || sql_type.has_members() {
            continue;
        }
        let n = r.gen_range(1..6);
        let whole = KeyColumn {
            sql_type,
            collation: common::random_collation(&mut r, &sql_type),
            descending: r.gen_range(0..4) == 0,
            prefix: None,
            members: None,
        };
        let col = whole.clone().with_prefix(Some(n));
        assert!(!col.is_reversible());
        let vals: Vec<Value> = (0..10)
            .map(|_| common::random_value(&mut r, &sql_type, 10))
            .collect();
        for a in &vals {
            let ka = encode(std::slice::from_ref(&col), std::slice::from_ref(a));
            // the key of a value is the whole-value key of its prefix
            assert_eq!(
                ka,
                encode(std::slice::from_ref(&whole), &[truncated(a, n)]),
                "{col:?} {a:?}"
            );
            assert_eq!(
                decode_key(std::slice::from_ref(&col), &ka).unwrap(),
                vec![if a.is_null() { Some(Value::Null) } else { None }]
            );
            for b in &vals {
                // Under PAD SPACE a bound whose prefix holds a space or control character is
                // not used by range reads (range.rs: stripped spaces vs. characters below
                // U+0020); every other pair must keep its order.
                let unordered = matches!(b, Value::Text(t)
                    if t.chars().take(n as usize).any(|ch| ch <= ' '));
                if col.collation.pad_space() && unordered {
                    continue;
                }
                let want = sql_tuple_cmp(
                    std::slice::from_ref(&whole),
                    std::slice::from_ref(a),
                    std::slice::from_ref(b),
                );
                let got = ka.cmp(&encode(std::slice::from_ref(&col), std::slice::from_ref(b)));
                // a < b gives key(a) <= key(b): never the reverse order
                assert!(got == want || got == Ordering::Equal, "{col:?} {a:?} {b:?}");
                strict += (got != want) as u32;
            }
        }
    }
    assert!(strict > 100, "{strict}");
}

/// Random members for an ENUM/SET column (distinct, some differing only in case).
fn random_members(r: &mut rand::rngs::SmallRng, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    while out.len() < r.gen_range(1..=max) {
        let m: String = (0..r.gen_range(1..4))
            .map(|_| ['a', 'B', 'b', 'z', ' ', '1'][r.gen_range(0..6)])
            .collect();
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

#[test]
fn member_keys_order_by_number_and_decode() {
    use betula_sql::types::member_codes::member_code;
    use betula_sql::types::member_codes::member_text;
    use betula_sql::types::SqlType;
    let mut r = common::rng(0xE5E7);
    for _ in 0..500 {
        let set = r.gen_bool(0.5);
        let members: std::sync::Arc<[String]> = random_members(&mut r, 12).into();
        let n = members.len();
        let sql_type = if set {
            SqlType::Set { count: n as u8 }
        } else {
            SqlType::Enum { count: n as u16 }
        };
        let base = KeyColumn {
            sql_type,
            collation: betula_sql::types::collation::Collation::default(),
            descending: r.gen_range(0..3) == 0,
            prefix: None,
            members: None,
        };
        let col = base.by_member_code(&members);
        assert!(col.is_reversible() && col.orders_as_sql());
        let vals: Vec<Value> = (0..10)
            .map(|_| {
                if r.gen_range(0..8) == 0 {
                    return Value::Null;
                }
                let code = if set {
                    r.gen_range(0..1u64 << n)
                } else {
                    r.gen_range(0..=n as u64)
                };
                Value::Text(member_text(sql_type, &members, code).unwrap())
            })
            .collect();
        let number = |v: &Value| match v {
            Value::Text(s) => Some(member_code(sql_type, &members, s).unwrap()),
            _ => None,
        };
        for a in &vals {
            let ka = encode(std::slice::from_ref(&col), std::slice::from_ref(a));
            assert_eq!(
                decode_key(std::slice::from_ref(&col), &ka).unwrap(),
                vec![Some(a.clone())]
            );
            for b in &vals {
                // NULL first, then by member number / bitmask (Option's order); DESC reversed
                let want = number(a).cmp(&number(b));
                let want = if col.descending { want.reverse() } else { want };
                let kb = encode(std::slice::from_ref(&col), std::slice::from_ref(b));
                assert_eq!(ka.cmp(&kb), want, "{members:?} {a:?} {b:?}");
            }
        }
        // A value that is no member is an error, never a panic.
        let mut out = Vec::new();
        let bad = Value::Text("no such member,x".into());
        assert!(
            betula_sql::codec::key::encode_key(std::slice::from_ref(&col), &[bad], &mut out)
                .is_err()
        );
    }
}
