//! Byte layouts, DESC order, prefixes, member codes and round trips of the key codec.

use super::*;
use crate::types::decimal::Decimal;
use crate::types::temporal::{DateTime, Time};
use crate::types::value::Value;
use crate::types::IntWidth;

fn col(t: SqlType) -> KeyColumn {
    let collation = if t.is_binary() {
        Collation::Binary
    } else {
        Collation::default()
    };
    KeyColumn {
        sql_type: t,
        collation,
        descending: false,
        prefix: None,
        members: None,
    }
}
fn enc(c: &KeyColumn, v: Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_key_value(c, &v, &mut out).unwrap();
    out
}

#[test]
fn layouts() {
    let int = col(SqlType::Int {
        width: IntWidth::Int,
        unsigned: false,
    });
    assert_eq!(enc(&int, Value::Int(1)), [1, 0x80, 0, 0, 1]);
    assert_eq!(enc(&int, Value::Int(-1)), [1, 0x7F, 0xFF, 0xFF, 0xFF]);
    assert_eq!(enc(&int, Value::Null), [0]);
    let s = col(SqlType::VarBinary { len: 10 });
    assert_eq!(
        enc(&s, Value::Bytes(b"a\0b".to_vec())),
        [1, b'a', 0, 0xFF, b'b', 0, 1]
    );
    let t = col(SqlType::VarChar { len: 10 });
    assert_eq!(enc(&t, Value::Text("Ab  ".into())), [1, b'A', b'B', 0, 1]);
    let d = col(SqlType::DOUBLE);
    assert_eq!(enc(&d, Value::Double(-0.0)), enc(&d, Value::Double(0.0)));
    assert!(enc(&d, Value::Double(-1.0)) < enc(&d, Value::Double(-0.5)));
    let mut out = Vec::new();
    assert!(encode_key_value(&d, &Value::Double(f64::NAN), &mut out).is_err());
    let tiny = col(SqlType::Int {
        width: IntWidth::Tiny,
        unsigned: false,
    });
    assert!(encode_key_value(&tiny, &Value::Int(300), &mut out).is_err());
}

#[test]
fn desc_and_prefixes() {
    let mut c = col(SqlType::Int {
        width: IntWidth::Small,
        unsigned: true,
    });
    c.descending = true;
    assert!(enc(&c, Value::UInt(5)) > enc(&c, Value::UInt(6)));
    assert!(enc(&c, Value::Null) > enc(&c, Value::UInt(6)));
    assert_eq!(
        decode_key(std::slice::from_ref(&c), &enc(&c, Value::UInt(5))).unwrap(),
        vec![Some(Value::UInt(5))]
    );
    assert_eq!(prefix_successor(&[1, 2, 0xFF]), Some(vec![1, 3]));
    assert_eq!(prefix_successor(&[0xFF, 0xFF]), None);
    assert_eq!(prefix_successor(&[]), None);
}

#[test]
fn members_keyed_by_number_order_and_decode() {
    let members: Arc<[String]> = ["b", "a", "c"].iter().map(|s| s.to_string()).collect();
    let e = col(SqlType::Enum { count: 3 }).by_member_code(&members);
    assert!(e.is_reversible() && e.orders_as_sql());
    assert_eq!(enc(&e, Value::Text("a".into())), [1, 2]);
    assert!(enc(&e, Value::Text("b".into())) < enc(&e, Value::Text("a".into())));
    assert!(encode_key_value(&e, &Value::Text("x".into()), &mut Vec::new()).is_err());
    let s = col(SqlType::Set { count: 3 }).by_member_code(&members);
    let k = enc(&s, Value::Text("b,c".into()));
    assert_eq!(k, [1, 5]);
    assert_eq!(
        decode_key(std::slice::from_ref(&s), &k).unwrap(),
        vec![Some(Value::Text("b,c".into()))]
    );
    assert!(decode_key(std::slice::from_ref(&s), &[1, 8]).is_err());
    let text = col(SqlType::Set { count: 3 });
    assert!(!text.is_reversible() && !text.orders_as_sql());
}

#[test]
fn decode_round_trip_and_skip() {
    let cols = [
        col(SqlType::VarChar { len: 5 }),
        col(SqlType::decimal(10, 2)),
        col(SqlType::DateTime { fsp: 0 }),
        col(SqlType::Time { fsp: 6 }),
    ];
    let vals = [
        Value::Text("hi".into()),
        Value::Decimal(Decimal::new(-12345, 2).unwrap()),
        Value::DateTime(DateTime::parse("2024-01-02 03:04:05").unwrap()),
        Value::Time(Time::parse("-12:00:00.5").unwrap()),
    ];
    let mut key = Vec::new();
    encode_key(&cols, &vals, &mut key).unwrap();
    let got = decode_key(&cols, &key).unwrap();
    assert_eq!(got[0], None);
    assert_eq!(
        got[1..]
            .iter()
            .map(|v| v.clone().unwrap())
            .collect::<Vec<_>>(),
        vals[1..]
    );
    assert!(decode_key(&cols, &key[..key.len() - 1]).is_err());
    let mut longer = key.clone();
    longer.push(0);
    assert!(decode_key(&cols, &longer).is_err());
}
