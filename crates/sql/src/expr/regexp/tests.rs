//! Unit tests of the translation and of evaluation against MariaDB 10.11's answers.

use super::*;

fn t(p: &str) -> String {
    translate(p.as_bytes(), true, End::Absolute)
        .map(|t| t.regex)
        .unwrap_or_else(|e| format!("ERR {e}"))
}

fn call(func: RegexpFunc, args: &[&str], coll: Collation) -> DbResult<Value> {
    let args = args
        .iter()
        .map(|a| Expr::Lit(Value::Text(a.to_string())))
        .collect();
    RegexpCall::new(func, args, coll)?.eval(&EvalCtx::row(&[]))
}

fn like(s: &str, p: &str) -> i64 {
    match call(RegexpFunc::Like, &[s, p], Collation::default()).unwrap() {
        Value::Int(i) => i,
        v => panic!("{v:?}"),
    }
}

#[test]
fn translation_writes_every_construct_explicitly() {
    assert_eq!(t("^a.c$"), r"^a.c\z");
    assert_eq!(
        t(r"\d+\w*\s?"),
        r"\p{Nd}+[\p{L}\p{N}_]*[\p{Z}\x09-\x0D\x{85}\x{180E}]?"
    );
    assert_eq!(t("[[:alpha:]_-]"), r"[\p{L}\_\-]");
    assert_eq!(t("[[:upper:]x]"), r"(?:(?-i:[\p{Lu}])|[x])");
    assert_eq!(t("a{2,3}?b{x"), r"a{2,3}?b\{x");
    assert_eq!(t("a{,2}"), r"a\{\,2\}");
    assert_eq!(t("[]a&&b]"), r"[\]a\&\&b]");
    assert_eq!(t(r"a\Q.*\Eb"), r"a\.\*b");
    assert_eq!(t("(?i)(?<n>x)(?#c)"), "(?i)(?P<n>x)");
    for bad in [
        r"(a)\1", "a(?=b)", "(?<=a)b", "(?>a)", "a++", "(?m)^a", "(?x) a", r"\h",
    ] {
        assert!(t(bad).starts_with("ERR"), "{bad}: {}", t(bad));
    }
}

#[test]
fn matching_follows_pcre2_with_ucp() {
    assert_eq!(like("ABC", "b"), 1);
    assert_eq!(like("é", "É"), 1);
    assert_eq!(like("١", r"\d"), 1);
    assert_eq!(like("²", r"\w"), 1);
    assert_eq!(like("a", "[[:upper:]]"), 0);
    assert_eq!(like("a", "[^[:upper:]]"), 1);
    assert_eq!(like("x\ry", "x.y"), 1);
    assert_eq!(like("x\ny", "x.y"), 0);
    assert_eq!(like("ab\n", "b$"), 1);
    assert_eq!(like("ab\nc", "b$"), 0);
    assert_eq!(like("Ab", "(?-i)ab"), 0);
    // PCRE2's `\p{L&}`: a cased letter
    assert_eq!(like("Я", r"\p{L&}"), 1);
    assert_eq!(like("갷", r"\p{L&}"), 0);
    assert_eq!(like("ප", r"[\p{L&}]"), 0);
    let bin = call(RegexpFunc::Like, &["ABC", "b"], Collation::Utf8mb4Bin).unwrap();
    assert_eq!(bin, Value::Int(0));
    let err = call(RegexpFunc::Like, &["ab\nc\n", "b$"], Collation::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::RegexpError);
}

#[test]
fn functions_answer_as_mariadb() {
    let c = Collation::default();
    let text = |v: Value| match v {
        Value::Text(s) => s,
        v => panic!("{v:?}"),
    };
    let r = |s: &str, p: &str, w: &str| text(call(RegexpFunc::Replace, &[s, p, w], c).unwrap());
    assert_eq!(r("abc", "x*", "-"), "abc");
    assert_eq!(r("abcabc", "(b)(c)", r"<\2\1\3\0\x>"), "a<cbbcx>a<cbbcx>");
    assert_eq!(r("aXbxc", "x", "_"), "a_b_c");
    assert_eq!(r("aaa", "a", "\\"), "");
    assert_eq!(r("abc", "(x)?b", r"[\1]"), "a[]c");
    assert_eq!(r("ab\n", "b$", "X"), "aX\n");
    let instr = call(RegexpFunc::Instr, &["ééab", "a"], c).unwrap();
    assert_eq!(instr, Value::Int(3));
    let sub = call(RegexpFunc::Substr, &["abc", "x"], c).unwrap();
    assert_eq!(sub, Value::Text(String::new()));
}

#[test]
fn a_rows_invalid_pattern_is_null_and_an_inexpressible_one_an_error() {
    let on_row = |p: &str| {
        let args = vec![Expr::Lit(Value::Text("ghi".into())), Expr::Col(0)];
        let call = RegexpCall::new(RegexpFunc::Like, args, Collation::default()).unwrap();
        call.eval(&EvalCtx::row(&[Value::Text(p.into())]))
    };
    // MariaDB: SELECT s1 REGEXP s2 with s2 = 'ghi[' is NULL; a literal 'ghi[' is 1139
    assert_eq!(on_row("ghi[").unwrap(), Value::Null);
    // an unclosed group is found by the `regex` crate, not the translation: still 1139 (MariaDB:
    // NULL), a refusal rather than an answer
    assert_eq!(on_row("(").unwrap_err().code, ErrorCode::RegexpError);
    assert_eq!(on_row("^g").unwrap(), Value::Int(1));
    let err = call(RegexpFunc::Like, &["ghi", "ghi["], Collation::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::RegexpError);
    // a back-reference is valid for PCRE2: refused, never NULL
    assert_eq!(on_row(r"(g)\1").unwrap_err().code, ErrorCode::RegexpError);
    assert!(is_unsupported(&t(r"(g)\1")) && !is_unsupported(&t("ghi[")));
}
