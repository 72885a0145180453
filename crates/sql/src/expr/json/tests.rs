use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::doc::{self, escape, parse, unescape, Json, ParseError};
use super::path::{self, Index, PathError, Step};

fn random_string(rng: &mut SmallRng) -> String {
    const CHARS: &[char] = &[
        'a', 'Z', '0', ' ', '"', '\\', '\n', '\t', 'é', '€', '\u{1}', '/',
    ];
    (0..rng.gen_range(0..6))
        .map(|_| CHARS[rng.gen_range(0..CHARS.len())])
        .collect()
}

fn random_number(rng: &mut SmallRng) -> String {
    let mut n = String::new();
    if rng.gen_bool(0.3) {
        n.push('-');
    }
    n.push_str(&rng.gen_range(0..100_000u32).to_string());
    if rng.gen_bool(0.3) {
        n.push_str(&format!(".{}", rng.gen_range(0..1000u32)));
    }
    if rng.gen_bool(0.2) {
        n.push_str(&format!(
            "E{}{}",
            ["", "+", "-"][rng.gen_range(0..3)],
            rng.gen_range(0..30)
        ));
    }
    n
}

fn random_doc(rng: &mut SmallRng, depth: usize) -> Json {
    let pick = if depth >= 5 {
        rng.gen_range(0..5)
    } else {
        rng.gen_range(0..7)
    };
    match pick {
        0 => Json::Null,
        1 => Json::Bool(rng.gen()),
        2 => Json::Number(random_number(rng)),
        3 | 4 => Json::string(&random_string(rng)),
        5 => Json::Array(
            (0..rng.gen_range(0..4))
                .map(|_| random_doc(rng, depth + 1))
                .collect(),
        ),
        _ => Json::Object(
            (0..rng.gen_range(0..4))
                .map(|_| (escape(&random_string(rng)), random_doc(rng, depth + 1)))
                .collect(),
        ),
    }
}

/// The document written with arbitrary whitespace between tokens, as a client might.
fn spaced(j: &Json, rng: &mut SmallRng) -> String {
    let ws = |rng: &mut SmallRng| [" ", "", "\n", "\t ", "\r\n"][rng.gen_range(0..5)].to_string();
    match j {
        Json::Array(items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|v| ws(rng) + &spaced(v, rng) + &ws(rng))
                .collect();
            format!("[{}{}]", ws(rng), inner.join(","))
        }
        Json::Object(m) => {
            let inner: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}\"{k}\"{}:{}", ws(rng), ws(rng), spaced(v, rng)))
                .collect();
            format!("{{{}{}}}", inner.join(","), ws(rng))
        }
        other => other.write(),
    }
}

#[test]
fn random_documents_round_trip_through_text() {
    let mut rng = SmallRng::seed_from_u64(0x15_0a);
    for _ in 0..3000 {
        let d = random_doc(&mut rng, 0);
        let text = d.write();
        assert_eq!(parse(&text), Ok(d.clone()), "{text}");
        let loose = spaced(&d, &mut rng);
        assert_eq!(parse(&loose), Ok(d.clone()), "{loose}");
        assert_eq!(parse(&loose).unwrap().write(), text);
    }
}

#[test]
fn strings_escape_and_unescape_back() {
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..2000 {
        let s = random_string(&mut rng);
        assert_eq!(unescape(&escape(&s)), s);
    }
    assert_eq!(unescape("\\u00e9\\ud83d\\ude00\\/"), "é😀/");
}

#[test]
fn containers_are_written_as_mariadb_writes_them() {
    assert_eq!(parse("[\"x\ny\"]"), Err(ParseError::BadChar(4)));
    let d = parse(r#"{"a" :1,"b":[ 1 ,2, {}],"c":{ }, "d":[], "n": 1.0E2}"#).unwrap();
    assert_eq!(
        d.write(),
        r#"{"a": 1, "b": [1, 2, {}], "c": {}, "d": [], "n": 1.0E2}"#
    );
}

#[test]
fn bad_documents_fail_with_mariadbs_positions() {
    assert_eq!(parse("bad"), Err(ParseError::Syntax(1)));
    assert_eq!(parse("01"), Err(ParseError::Syntax(2)));
    assert_eq!(parse(""), Err(ParseError::End));
    assert_eq!(parse("[1"), Err(ParseError::End));
    assert_eq!(parse("[1,]"), Err(ParseError::Syntax(4)));
    assert!(parse("\"\\x\"").is_ok());
    assert_eq!(parse("\"\\u12\""), Err(ParseError::Syntax(5)));
    let deep = "[".repeat(doc::MAX_DEPTH + 1);
    assert_eq!(parse(&deep), Err(ParseError::Depth(doc::MAX_DEPTH)));
    let limit = format!("{}{}", "[".repeat(31), "]".repeat(31));
    assert_eq!(parse(&limit).map(|j| j.depth()), Ok(31));
}

#[test]
fn paths_parse_into_steps() {
    let p = path::parse(r#"$.a."b c"[1][last-2][*].*[0 to last]**.d"#).unwrap();
    assert_eq!(
        p.steps,
        vec![
            Step::Key("a".into()),
            Step::Key("b c".into()),
            Step::Index(Index::At(1)),
            Step::Index(Index::Last(2)),
            Step::AnyIndex,
            Step::AnyKey,
            Step::Range(Index::At(0), Index::Last(0)),
            Step::Descend,
            Step::Key("d".into()),
        ]
    );
    assert_eq!(path::parse("a"), Err(PathError::Syntax(1)));
    assert_eq!(path::parse("$."), Err(PathError::End));
    assert_eq!(path::parse("$["), Err(PathError::End));
    assert_eq!(path::parse("$[a]"), Err(PathError::Syntax(3)));
    assert_eq!(path::parse("$**"), Err(PathError::Syntax(4)));
    assert_eq!(path::parse("lax $.a").map(|p| p.steps.len()), Ok(1));
}

#[test]
fn paths_select_in_document_order() {
    let d = parse(r#"{"a": {"b": [10, 20, 30]}, "c": [{"b": 1}]}"#).unwrap();
    let texts = |p: &str| -> Vec<String> {
        path::parse(p)
            .unwrap()
            .select(&d)
            .iter()
            .map(|j| j.write())
            .collect()
    };
    assert_eq!(texts("$.a.b[last]"), vec!["30"]);
    assert_eq!(texts("$.a.b[0 to 1]"), vec!["10", "20"]);
    assert_eq!(texts("$**.b"), vec!["[10, 20, 30]", "1"]);
    assert_eq!(
        texts("$.*"),
        vec![r#"{"b": [10, 20, 30]}"#, r#"[{"b": 1}]"#]
    );
    assert_eq!(texts("$.a[0].b[0]"), vec!["10"]);
    assert!(texts("$.x").is_empty());
}
