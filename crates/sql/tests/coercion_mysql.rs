//! INSERT coercion against the results MySQL 8 gives, in strict and non-strict mode.

use betula_sql::error::sql_error::{SqlError, Warning, WarningLevel};
use betula_sql::types::coerce::{coerce_to_column, SqlMode};
use betula_sql::types::decimal::Decimal;
use betula_sql::types::temporal::DateTime;
use betula_sql::types::time_zone::TimeZone;
use betula_sql::types::value::Value;
use betula_sql::types::{Column, IntWidth, LobSize, SqlType};

const STRICT: SqlMode = SqlMode {
    strict: true,
    time_zone: TimeZone::UTC,
    no_zero_date: true,
};
const LAX: SqlMode = SqlMode {
    strict: false,
    time_zone: TimeZone::UTC,
    no_zero_date: false,
};

fn col(t: SqlType) -> Column {
    Column::new(1, "c", t)
}
fn int(width: IntWidth, unsigned: bool) -> Column {
    col(SqlType::Int { width, unsigned })
}
fn t(s: &str) -> Value {
    Value::Text(s.into())
}
fn dec(s: &str) -> Value {
    Value::Decimal(Decimal::parse(s).unwrap())
}

/// (value, warnings) or the error.
fn run(v: Value, c: &Column, mode: SqlMode) -> Result<(Value, Vec<Warning>), SqlError> {
    let mut w = Vec::new();
    coerce_to_column(&v, c, 1, mode, &mut w).map(|v| (v, w))
}
fn ok(v: Value, c: &Column, mode: SqlMode) -> Value {
    let (v, w) = run(v, c, mode).unwrap();
    assert!(w.iter().all(|w| w.level == WarningLevel::Note), "{w:?}");
    v
}
fn err_code(v: Value, c: &Column) -> u16 {
    run(v, c, STRICT).unwrap_err().code().number()
}
/// Non-strict: the value stored and the single warning's code.
fn lax(v: Value, c: &Column) -> (Value, u16) {
    let (v, w) = run(v, c, LAX).unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].level, WarningLevel::Warning);
    (v, w[0].code.number())
}

#[test]
fn strings_into_integers() {
    let c = int(IntWidth::Int, false);
    assert_eq!(ok(t("12"), &c, STRICT), Value::Int(12));
    assert_eq!(ok(t("3.7"), &c, STRICT), Value::Int(4));
    assert_eq!(ok(t("-2.5"), &c, STRICT), Value::Int(-3));
    assert_eq!(ok(t(" 1e3 "), &c, STRICT), Value::Int(1000));
    assert_eq!(err_code(t("abc"), &c), 1366);
    assert_eq!(
        run(t("abc"), &c, STRICT).unwrap_err().to_string(),
        "Incorrect integer value: 'abc' for column 'c' at row 1"
    );
    assert_eq!(lax(t("abc"), &c), (Value::Int(0), 1366));
    assert_eq!(err_code(t(""), &c), 1366);
    assert_eq!(err_code(t("12abc"), &c), 1265);
    assert_eq!(lax(t("12abc"), &c), (Value::Int(12), 1265));
    assert_eq!(err_code(t("99999999999"), &c), 1264);
    assert_eq!(lax(t("99999999999"), &c), (Value::Int(2_147_483_647), 1264));
    assert_eq!(lax(t("-1e60"), &c), (Value::Int(-2_147_483_648), 1264));
}

#[test]
fn integer_ranges() {
    let tiny = int(IntWidth::Tiny, false);
    assert_eq!(err_code(Value::Int(300), &tiny), 1264);
    assert_eq!(
        run(Value::Int(300), &tiny, STRICT).unwrap_err().to_string(),
        "Out of range value for column 'c' at row 1"
    );
    assert_eq!(lax(Value::Int(300), &tiny), (Value::Int(127), 1264));
    assert_eq!(lax(Value::Int(-300), &tiny), (Value::Int(-128), 1264));
    let utiny = int(IntWidth::Tiny, true);
    assert_eq!(lax(Value::Int(-1), &utiny), (Value::UInt(0), 1264));
    assert_eq!(ok(Value::Int(255), &utiny, STRICT), Value::UInt(255));
    let med = int(IntWidth::Medium, false);
    assert_eq!(
        lax(Value::Int(9_000_000), &med),
        (Value::Int(8_388_607), 1264)
    );
    let ubig = int(IntWidth::Big, true);
    assert_eq!(
        ok(t("18446744073709551615"), &ubig, STRICT),
        Value::UInt(u64::MAX)
    );
    assert_eq!(err_code(t("18446744073709551616"), &ubig), 1264);
    let big = int(IntWidth::Big, false);
    assert_eq!(
        lax(Value::UInt(u64::MAX), &big),
        (Value::Int(i64::MAX), 1264)
    );
    // Exact numbers round half away from zero; doubles round half to even (rint).
    assert_eq!(ok(dec("2.5"), &big, STRICT), Value::Int(3));
    assert_eq!(ok(Value::Double(2.5), &big, STRICT), Value::Int(2));
    assert_eq!(ok(Value::Double(3.5), &big, STRICT), Value::Int(4));
    assert_eq!(ok(Value::Double(-2.7), &big, STRICT), Value::Int(-3));
}

#[test]
fn nulls() {
    let c = int(IntWidth::Int, false).not_null();
    let e = run(Value::Null, &c, STRICT).unwrap_err();
    assert_eq!(
        (
            e.code().number(),
            e.code().sqlstate(),
            e.to_string().as_str()
        ),
        (1048, "23000", "Column 'c' cannot be null")
    );
    assert_eq!(lax(Value::Null, &c), (Value::Int(0), 1048));
    assert_eq!(
        ok(Value::Null, &int(IntWidth::Int, false), STRICT),
        Value::Null
    );
}

#[test]
fn decimals() {
    let c = col(SqlType::decimal(5, 2));
    assert_eq!(ok(t("1.5"), &c, STRICT).to_text(None).unwrap(), b"1.50");
    // Rounding to the scale is a note, not an error, even in strict mode.
    let (v, w) = run(t("1.005"), &c, STRICT).unwrap();
    assert_eq!(v, dec("1.01"));
    assert_eq!(
        (w.len(), w[0].level, w[0].code.number()),
        (1, WarningLevel::Note, 1265)
    );
    assert_eq!(ok(Value::Int(-999), &c, STRICT), dec("-999.00"));
    assert_eq!(err_code(Value::Int(1000), &c), 1264);
    assert_eq!(lax(Value::Int(1000), &c), (dec("999.99"), 1264));
    assert_eq!(lax(t("-123456"), &c), (dec("-999.99"), 1264));
    assert_eq!(err_code(t("999.995"), &c), 1264); // rounds up to 1000.00
    assert_eq!(err_code(t("x"), &c), 1366);
    assert_eq!(ok(Value::Double(0.1), &c, STRICT), dec("0.10"));
}

#[test]
fn floats() {
    let d = col(SqlType::DOUBLE);
    assert_eq!(ok(t("1.5e3"), &d, STRICT), Value::Double(1500.0));
    assert_eq!(err_code(t("1.5x"), &d), 1265);
    assert_eq!(lax(t("x"), &d), (Value::Double(0.0), 1265));
    let f = col(SqlType::FLOAT);
    assert_eq!(err_code(Value::Double(1e39), &f), 1264);
    assert_eq!(
        lax(Value::Double(-1e39), &f),
        (Value::Float(-f32::MAX), 1264)
    );
    assert_eq!(ok(Value::Int(3), &f, STRICT), Value::Float(3.0));
}

#[test]
fn strings() {
    let v = col(SqlType::VarChar { len: 3 });
    assert_eq!(ok(t("héé"), &v, STRICT), t("héé")); // 3 characters, 5 bytes
    assert_eq!(err_code(t("abcd"), &v), 1406);
    assert_eq!(
        run(t("abcd"), &v, STRICT).unwrap_err().to_string(),
        "Data too long for column 'c' at row 1"
    );
    assert_eq!(lax(t("héllo"), &v), (t("hél"), 1265));
    // Cutting only spaces is a note in both modes.
    let (s, w) = run(t("ab    "), &v, STRICT).unwrap();
    assert_eq!(
        (s, w[0].level, w[0].code.number()),
        (t("ab "), WarningLevel::Note, 1265)
    );
    assert_eq!(ok(Value::Int(-12), &v, STRICT), t("-12"));
    assert_eq!(ok(Value::Double(0.5), &v, STRICT), t("0.5"));
    let ch = col(SqlType::Char { len: 5 });
    assert_eq!(ok(t("ab  "), &ch, STRICT), t("ab"));
    assert_eq!(err_code(Value::Bytes(vec![b'a', 0xFF]), &ch), 1366);
    assert_eq!(lax(Value::Bytes(vec![b'a', 0xFF]), &ch), (t("a"), 1366));
    let tiny = col(SqlType::Text(LobSize::Tiny));
    assert_eq!(err_code(t(&"é".repeat(128)), &tiny), 1406); // 256 bytes > 255
    let (s, _) = lax(t(&"é".repeat(128)), &tiny);
    assert_eq!(s, t(&"é".repeat(127)));
}

#[test]
fn binary_strings() {
    let b = col(SqlType::Binary { len: 4 });
    assert_eq!(
        ok(t("ab"), &b, STRICT),
        Value::Bytes(vec![b'a', b'b', 0, 0])
    );
    assert_eq!(err_code(t("abcde"), &b), 1406);
    let vb = col(SqlType::VarBinary { len: 2 });
    assert_eq!(
        lax(Value::Bytes(vec![1, 2, 3]), &vb),
        (Value::Bytes(vec![1, 2]), 1265)
    );
    assert_eq!(err_code(t("  "), &col(SqlType::VarBinary { len: 1 })), 1406); // no space exception
}

#[test]
fn dates_and_times() {
    let d = col(SqlType::Date);
    let dt = |s: &str| Value::DateTime(DateTime::parse(s).unwrap());
    assert_eq!(
        ok(t("2024-02-29"), &d, STRICT).to_text(None).unwrap(),
        b"2024-02-29"
    );
    assert_eq!(
        ok(Value::Int(20240305), &d, STRICT).to_text(None).unwrap(),
        b"2024-03-05"
    );
    assert_eq!(
        ok(Value::Int(240305), &d, STRICT).to_text(None).unwrap(),
        b"2024-03-05"
    );
    let e = run(t("2023-02-29"), &d, STRICT).unwrap_err();
    assert_eq!((e.code().number(), e.code().sqlstate()), (1292, "22007"));
    assert_eq!(
        e.to_string(),
        "Incorrect date value: '2023-02-29' for column 'c' at row 1"
    );
    let (v, code) = lax(t("2023-02-29"), &d);
    assert_eq!(
        (v.to_text(None).unwrap(), code),
        (b"0000-00-00".to_vec(), 1265)
    );
    assert_eq!(err_code(t("0000-00-00"), &d), 1292);
    assert_eq!(run(t("0000-00-00"), &d, LAX).unwrap().1.len(), 0);
    let (v, w) = run(t("2024-01-02 10:00:00"), &d, STRICT).unwrap();
    assert_eq!(
        (v.to_text(None).unwrap(), w[0].level),
        (b"2024-01-02".to_vec(), WarningLevel::Note)
    );

    let c3 = col(SqlType::DateTime { fsp: 3 });
    let ty = c3.sql_type;
    // Digits beyond the column's precision are cut off, as MariaDB stores them.
    let v = ok(t("2024-12-31 23:59:59.9996"), &c3, STRICT);
    assert_eq!(v.to_text(Some(&ty)).unwrap(), b"2024-12-31 23:59:59.999");
    let c0 = col(SqlType::DateTime { fsp: 0 });
    assert_eq!(
        ok(t("2024-01-01 10:00:00.5"), &c0, STRICT),
        dt("2024-01-01 10:00:00")
    );
    assert_eq!(
        ok(Value::Int(20240102030405), &c0, STRICT),
        dt("2024-01-02 03:04:05")
    );
    assert_eq!(err_code(t("2024-01-01 25:00:00"), &c0), 1292);
    assert_eq!(err_code(t("not a date"), &c0), 1292);

    let ts = col(SqlType::Timestamp { fsp: 0 });
    assert_eq!(
        ok(t("2038-01-19 03:14:07"), &ts, STRICT),
        dt("2038-01-19 03:14:07")
    );
    assert_eq!(err_code(t("2038-01-19 03:14:08"), &ts), 1292);
    assert_eq!(err_code(t("1970-01-01 00:00:00"), &ts), 1292);
    assert_eq!(
        lax(t("1969-12-31 00:00:00"), &ts),
        (Value::DateTime(DateTime::ZERO), 1264)
    );

    let tm = col(SqlType::Time { fsp: 0 });
    let txt = |v: Value| String::from_utf8(v.to_text(None).unwrap()).unwrap();
    assert_eq!(txt(ok(t("12:34:56"), &tm, STRICT)), "12:34:56");
    assert_eq!(txt(ok(Value::Int(123456), &tm, STRICT)), "12:34:56");
    assert_eq!(txt(ok(t("1 01:00:00"), &tm, STRICT)), "25:00:00");
    assert_eq!(err_code(t("900:00:00"), &tm), 1292);
    let (v, code) = lax(t("-900:00:00"), &tm);
    assert_eq!((txt(v), code), ("-838:59:59".to_string(), 1264));
}

#[test]
fn years() {
    let y = col(SqlType::Year);
    assert_eq!(ok(Value::Int(5), &y, STRICT), Value::UInt(2005));
    assert_eq!(ok(Value::Int(70), &y, STRICT), Value::UInt(1970));
    assert_eq!(ok(Value::Int(0), &y, STRICT), Value::UInt(0));
    assert_eq!(ok(t("0"), &y, STRICT), Value::UInt(2000));
    assert_eq!(ok(t("2155"), &y, STRICT), Value::UInt(2155));
    assert_eq!(err_code(Value::Int(1900), &y), 1264);
    assert_eq!(lax(Value::Int(2156), &y), (Value::UInt(0), 1264));
    assert_eq!(
        ok(Value::UInt(0), &y, STRICT)
            .to_text(Some(&SqlType::Year))
            .unwrap(),
        b"0000"
    );
}

#[test]
fn row_numbers_and_columns_in_messages() {
    let c = Column::new(
        7,
        "price",
        SqlType::Int {
            width: IntWidth::Small,
            unsigned: true,
        },
    );
    let mut w = Vec::new();
    let e = coerce_to_column(&Value::Int(-5), &c, 42, STRICT, &mut w).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Out of range value for column 'price' at row 42"
    );
}

#[test]
fn random_strings_into_every_type_never_panic() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let types = [
        SqlType::Int {
            width: IntWidth::Tiny,
            unsigned: false,
        },
        SqlType::Int {
            width: IntWidth::Big,
            unsigned: true,
        },
        SqlType::Year,
        SqlType::FLOAT,
        SqlType::DOUBLE,
        SqlType::decimal(38, 10),
        SqlType::decimal(3, 3),
        SqlType::Char { len: 2 },
        SqlType::VarChar { len: 3 },
        SqlType::Text(LobSize::Tiny),
        SqlType::Binary { len: 2 },
        SqlType::Blob(LobSize::Tiny),
        SqlType::Date,
        SqlType::DateTime { fsp: 6 },
        SqlType::Timestamp { fsp: 2 },
        SqlType::Time { fsp: 3 },
    ];
    let alphabet: Vec<char> = "0123456789999999-+.:eE T/ xé\u{0}".chars().collect();
    let mut r = SmallRng::seed_from_u64(99);
    for _ in 0..20_000 {
        let n = r.gen_range(0..30);
        let s: String = (0..n)
            .map(|_| alphabet[r.gen_range(0..alphabet.len())])
            .collect();
        let v = match r.gen_range(0..4) {
            0 => Value::Int(r.gen()),
            1 => Value::Double(f64::from_bits(r.gen())),
            2 => Value::Bytes((0..n).map(|_| r.gen()).collect()),
            _ => Value::Text(s),
        };
        for ty in &types {
            let c = col(*ty);
            for mode in [STRICT, LAX] {
                let mut w = Vec::new();
                match coerce_to_column(&v, &c, 1, mode, &mut w) {
                    // Whatever comes out must be storable.
                    Ok(out) => {
                        let layout = betula_sql::codec::row::RowLayout::new(1, vec![c.clone()]);
                        let mut buf = Vec::new();
                        betula_sql::codec::row::encode_row(
                            &layout,
                            std::slice::from_ref(&out),
                            &mut buf,
                        )
                        .unwrap_or_else(|e| panic!("{ty:?} {v:?} -> {out:?}: {e}"));
                    }
                    Err(e) => assert!(mode.strict, "non-strict error {e} for {ty:?} {v:?}"),
                }
            }
        }
    }
}
