//! MariaDB statement forms sqlparser refuses, rewritten into equivalent ones it reads, for
//! [`super::parse`]'s retry (MariaDB's Spider engine sends both to its data nodes):
//!
//! - a user variable named by a quoted string, `` @`name` ``, `@'name'` or `@"name"` (Spider sets
//!   `` @`spider_lc_./db/table` ``), becomes the plain variable `@betula_qv_<name in hex>`, which
//!   the expression and SET code turn back into `name` (expr's `user_var_name`);
//! - a generated column's `PERSISTENT` (after the expression's `)`) becomes `STORED`, its
//!   synonym;
//! - the infix operator `a MOD b` (MariaDB prints `%` so in a generated column's expression)
//!   becomes `a % b`;
//! - a trailing `LOCK IN SHARE MODE` becomes `FOR SHARE` (a locking read either way,
//!   plan/locks.rs).
//!
//! - `LIMIT m, n` / `LIMIT n OFFSET m` inside GROUP_CONCAT / JSON_ARRAYAGG becomes
//!   `LIMIT(m,n)` ([`with_concat_limit_pair`]).
//! - `INTERVAL x MINUTE_SECOND` and the other compound units become `__IV_<letter>( x)`, and
//!   `EXTRACT(DAY_HOUR FROM x)` becomes `__EX_<letter>(              x)`
//!   ([`with_compound_interval_units`]), which the compiler reads as the interval or EXTRACT.
//! - the function `INTERVAL(N, N1, ...)` becomes `__INTRVL(N, N1, ...)`
//!   ([`with_interval_function`]), which the compiler calls INTERVAL.
//! - a SET statement's `@v := value` becomes `@v  = value` ([`with_set_assignments_as_eq`]).
//! - `TRIM(BOTH FROM s)`, `TRIM(LEADING FROM s)` and `TRIM(TRAILING FROM s)` (spaces trimmed)
//!   become `TRIM(s)`, `LTRIM(s)` and `RTRIM(s)`, padded with spaces to the same length
//!   ([`with_trim_of_spaces`]).
//!
//! And two forms handled before sqlparser sees them: the JSON arrows `->` / `->>`, which
//! MariaDB 10.11 does not have, are refused ([`json_arrow`]); `REGEXP NULL` / `RLIKE NULL`
//! becomes `REGEXP -NULL`, which sqlparser reads as MariaDB reads the first
//! ([`with_regexp_null_as_pattern`]).
//!
//! Rewrites keep every token where it was where they can (a computed column is named by the
//! text at its place in the statement as written).
//!
//! Invariant: text inside quotes and comments is never changed (the lexer skips it); `'u'@'h'`
//! account names are left alone (the `@` follows a quote). A variable literally named
//! `betula_qv_` followed by hex digits is read as the name they encode.

use super::tokens::{lex, Lexer, Tok};
use crate::expr::compile::{COMPOUND_EXTRACT_MARK, COMPOUND_INTERVAL_MARK};
use crate::expr::functions::INTERVAL_FUNCTION;
use crate::expr::IntervalUnit;

use crate::expr::quoted_user_var;

/// Where the token starting at byte `start` of `sql` ends.
fn token_end(sql: &str, start: usize) -> usize {
    let mut l = Lexer::new(&sql[start..]);
    l.next();
    start + l.offset()
}

/// Applies `(start, end, replacement)` edits (in order, not overlapping) to `sql`.
fn apply(sql: &str, edits: Vec<(usize, usize, String)>) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(sql.len() + 8);
    let mut from = 0;
    for (a, b, text) in edits {
        out.push_str(&sql[from..a]);
        out.push_str(&text);
        from = b;
    }
    out.push_str(&sql[from..]);
    Some(out)
}

/// `sql` with every `` @`name` `` / `@'name'` / `@"name"` written `@betula_qv_<hex>`; `None` if
/// there is none.
pub fn with_quoted_user_vars(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for w in toks.windows(2) {
        let [(
            Tok::Word {
                text: at,
                quoted: false,
                ..
            },
            at_pos,
        ), (next, start)] = w
        else {
            continue;
        };
        if at != "@" || *start != at_pos + 1 || sql[..*at_pos].ends_with(['\'', '"', '`']) {
            continue;
        }
        let name = match next {
            Tok::Word {
                text, quoted: true, ..
            } => text,
            Tok::Str(s) => s,
            _ => continue,
        };
        edits.push((
            *at_pos,
            token_end(sql, *start),
            format!("@{}", quoted_user_var(name)),
        ));
    }
    apply(sql, edits)
}

/// `sql` with each `PERSISTENT` that follows a `)` written `STORED`; `None` if it has none.
pub fn with_persistent_as_stored(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for w in toks.windows(2) {
        if let [(Tok::Sym(')'), _), (
            Tok::Word {
                upper,
                quoted: false,
                ..
            },
            at,
        )] = w
        {
            if upper == "PERSISTENT" {
                edits.push((*at, at + "PERSISTENT".len(), "STORED".to_string()));
            }
        }
    }
    apply(sql, edits)
}

/// `sql` with each infix `MOD` (a `MOD` not followed by `(`) written `%`; `None` if it has none.
pub fn with_mod_as_percent(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for (i, (t, at)) in toks.iter().enumerate() {
        let is_mod = matches!(t, Tok::Word { upper, quoted: false, .. } if upper == "MOD")
            && !matches!(toks.get(i + 1), Some((Tok::Sym('('), _)))
            && i > 0;
        if is_mod {
            edits.push((*at, at + 3, "%".to_string()));
        }
    }
    apply(sql, edits)
}

/// A SET statement's `name := value` assignments written `name  = value` (MariaDB's SET takes
/// `:=` as well as `=`; sqlparser only `=`): the first `:=` of each top-level assignment;
/// `None` if `sql` is not a SET or has none.
pub fn with_set_assignments_as_eq(sql: &str) -> Option<String> {
    let toks = lex(sql);
    if !toks.first().is_some_and(|(t, _)| is_word(t, "SET")) {
        return None;
    }
    let (mut depth, mut assigned) = (0usize, false);
    let mut edits = Vec::new();
    for w in toks.windows(2) {
        match w {
            [(Tok::Sym('('), _), _] => depth += 1,
            [(Tok::Sym(')'), _), _] => depth = depth.saturating_sub(1),
            [(Tok::Sym(','), _), _] if depth == 0 => assigned = false,
            [(Tok::Sym('='), _), _] if depth == 0 => assigned = true,
            [(Tok::Sym(':'), at), (Tok::Sym('='), eq)]
                if depth == 0 && !assigned && *eq == at + 1 =>
            {
                edits.push((*at, at + 2, " =".to_string()));
                assigned = true;
            }
            _ => {}
        }
    }
    apply(sql, edits)
}

/// `sql` with a final `LOCK IN SHARE MODE` written `FOR SHARE`; `None` if it has none.
pub fn with_share_mode_as_for_share(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let n = toks.len();
    if n < 4 {
        return None;
    }
    let words: Vec<&str> = toks[n - 4..]
        .iter()
        .filter_map(|(t, _)| match t {
            Tok::Word {
                upper,
                quoted: false,
                ..
            } => Some(upper.as_str()),
            _ => None,
        })
        .collect();
    if words != ["LOCK", "IN", "SHARE", "MODE"] {
        return None;
    }
    let (start, last) = (toks[n - 4].1, toks[n - 1].1);
    apply(sql, vec![(start, token_end(sql, last), "FOR SHARE".into())])
}

/// `sql` with each string literal that is a window frame bound (`'abc' PRECEDING`, MariaDB's
/// grammar takes any literal there) in parentheses; `None` if there is none. sqlparser reads a
/// string there as an INTERVAL and refuses the text; in parentheses it is an expression, which
/// the window compiler refuses with MariaDB's 4020 / 4021.
pub fn with_string_frame_bounds(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for w in toks.windows(2) {
        let [(Tok::Str(_), at), (next, _)] = w else {
            continue;
        };
        if is_word(next, "PRECEDING") || is_word(next, "FOLLOWING") {
            let end = token_end(sql, *at);
            edits.push((*at, end, format!("({})", &sql[*at..end])));
        }
    }
    apply(sql, edits)
}

/// `sql` with each window frame's EXCLUDE clause (`EXCLUDE CURRENT ROW | GROUP | TIES | NO
/// OTHERS` after a frame bound, which sqlparser does not read) blanked out, and whether one
/// excludes rows (all but NO OTHERS: MariaDB refuses them with 4022); `None` if there is none.
pub fn without_frame_exclusion(sql: &str) -> Option<(String, bool)> {
    let toks = lex(sql);
    let mut blanked = sql.to_string();
    let (mut found, mut excludes) = (false, false);
    for i in 1..toks.len() {
        let after_bound = ["PRECEDING", "FOLLOWING", "ROW"]
            .iter()
            .any(|w| is_word(&toks[i - 1].0, w));
        if !after_bound || !is_word(&toks[i].0, "EXCLUDE") {
            continue;
        }
        let word = |k: usize, w: &str| toks.get(i + k).is_some_and(|t| is_word(&t.0, w));
        let len = if (word(1, "CURRENT") && word(2, "ROW")) || (word(1, "NO") && word(2, "OTHERS"))
        {
            3
        } else if word(1, "GROUP") || word(1, "TIES") {
            2
        } else {
            continue;
        };
        excludes |= !word(1, "NO");
        found = true;
        let (start, end) = (toks[i].1, token_end(sql, toks[i + len - 1].1));
        blanked.replace_range(start..end, &" ".repeat(end - start));
    }
    found.then_some((blanked, excludes))
}

/// `sql` with each `INTERVAL` followed by a parenthesized list of two or more expressions (the
/// function INTERVAL(N, N1, ...), not an interval `INTERVAL (expr) unit`) written
/// [`INTERVAL_FUNCTION`]; `None` if there is none.
pub fn with_interval_function(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for (i, (t, at)) in toks.iter().enumerate() {
        if !is_word(t, "INTERVAL") || !matches!(toks.get(i + 1), Some((Tok::Sym('('), _))) {
            continue;
        }
        let mut depth = 0usize;
        for (t, _) in &toks[i + 1..] {
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') if depth == 1 => break,
                Tok::Sym(')') => depth -= 1,
                Tok::Sym(',') if depth == 1 => {
                    edits.push((*at, at + "INTERVAL".len(), INTERVAL_FUNCTION.to_string()));
                    break;
                }
                _ => {}
            }
        }
    }
    apply(sql, edits)
}

/// `sql` with each `INTERVAL x DAY_HOUR` (any compound unit, [`IntervalUnit::COMPOUND`])
/// written as the call `__IV_<letter>( x)` padded with spaces to its length, which the compiler
/// reads as that interval, and each `EXTRACT(DAY_HOUR FROM x)` as `__EX_<letter>(` and spaces
/// (expr/compile/compound_call.rs); `None` if there is none. The compound
/// units are reserved words in MariaDB, so a bare one is always a unit.
pub fn with_compound_interval_units(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for (i, (t, at)) in toks.iter().enumerate() {
        let Tok::Word {
            upper,
            quoted: false,
            ..
        } = t
        else {
            continue;
        };
        let Some(k) = IntervalUnit::COMPOUND.iter().position(|(n, _)| n == upper) else {
            continue;
        };
        let letter = char::from(b'A' + k as u8);
        if let Some((extract, from)) = extract_around(&toks, i) {
            let mark = format!("{COMPOUND_EXTRACT_MARK}{letter}");
            edits.push((extract, extract + "EXTRACT".len(), format!("{mark:<7}")));
            let end = token_end(sql, from);
            edits.push((*at, end, " ".repeat(end - at)));
            continue;
        }
        let Some(start) = opening_interval(&toks[..i]) else {
            continue;
        };
        let mark = format!("{COMPOUND_INTERVAL_MARK}{letter}(");
        edits.push((start, start + "INTERVAL".len(), format!("{mark:<8}")));
        let end = token_end(sql, *at);
        edits.push((*at, end, format!("{:<1$}", ")", end - at)));
    }
    edits.sort_by_key(|e| e.0);
    apply(sql, edits)
}

/// Where `EXTRACT` and `FROM` start when the unit at `toks[i]` is written `EXTRACT(unit FROM`.
fn extract_around(toks: &[(Tok, usize)], i: usize) -> Option<(usize, usize)> {
    let [(e, extract), (Tok::Sym('('), _)] = toks.get(i.checked_sub(2)?..i)? else {
        return None;
    };
    let (f, from) = toks.get(i + 1)?;
    (is_word(e, "EXTRACT") && is_word(f, "FROM")).then_some((*extract, *from))
}

/// Where the `INTERVAL` that a unit after `toks` closes starts: the nearest one before it at
/// the same parenthesis depth.
fn opening_interval(toks: &[(Tok, usize)]) -> Option<usize> {
    let mut depth = 0usize;
    for (t, at) in toks.iter().rev() {
        match t {
            Tok::Sym(')') => depth += 1,
            Tok::Sym('(') if depth == 0 => return None,
            Tok::Sym('(') => depth -= 1,
            Tok::Sym(',' | ';') if depth == 0 => return None,
            t if depth == 0 && is_word(t, "INTERVAL") => return Some(*at),
            _ => {}
        }
    }
    None
}

/// `sql` with each `TRIM(BOTH | LEADING | TRAILING FROM` written `TRIM(`, `LTRIM(` or `RTRIM(`
/// and spaces up to its length; `None` if there is none.
pub fn with_trim_of_spaces(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    for w in toks.windows(4) {
        let [(trim, at), (Tok::Sym('('), _), (side, _), (from, from_at)] = w else {
            continue;
        };
        if !is_word(trim, "TRIM") || !is_word(from, "FROM") {
            continue;
        }
        let call = if is_word(side, "BOTH") {
            "TRIM("
        } else if is_word(side, "LEADING") {
            "LTRIM("
        } else if is_word(side, "TRAILING") {
            "RTRIM("
        } else {
            continue;
        };
        let end = token_end(sql, *from_at);
        edits.push((*at, end, format!("{call:<width$}", width = end - at)));
    }
    apply(sql, edits)
}

/// True if `t` is the unquoted word `word` (upper case).
fn is_word(t: &Tok, word: &str) -> bool {
    matches!(t, Tok::Word { upper, quoted: false, .. } if upper == word)
}

/// `sql` with each `NULL` right after `REGEXP` / `RLIKE` written `-NULL` (the space before it
/// taken, so every other token keeps its place and computed columns keep their names; `(NULL)`
/// where no space or tab precedes it); `None` if there is none. sqlparser takes a `NULL` after
/// those keywords for the `NOT NULL` of a column definition and then reads the pattern from what
/// follows (a 1064, or a wrong pattern when an expression follows), where MariaDB reads `NULL`
/// as the pattern; `-NULL` is NULL wherever `NULL` is (`x REGEXP NULL + 1` is `x REGEXP (NULL +
/// 1)` in both). Applied before every parse of a text that names either keyword.
pub fn with_regexp_null_as_pattern(sql: &str) -> Option<String> {
    let named = |kw: &[u8]| {
        sql.as_bytes()
            .windows(kw.len())
            .any(|w| w.eq_ignore_ascii_case(kw))
    };
    if !named(b"REGEXP") && !named(b"RLIKE") {
        return None;
    }
    let toks = lex(sql);
    let mut edits = Vec::new();
    for w in toks.windows(2) {
        let [(op, _), (null, at)] = w else { continue };
        if (is_word(op, "REGEXP") || is_word(op, "RLIKE")) && is_word(null, "NULL") {
            let end = at + "NULL".len();
            edits.push(match sql.as_bytes()[at - 1] {
                b' ' | b'\t' => (at - 1, end, format!("-{}", &sql[*at..end])),
                _ => (*at, end, format!("({})", &sql[*at..end])),
            });
        }
    }
    apply(sql, edits)
}

/// `sql` with the `LIMIT m, n` / `LIMIT n OFFSET m` of a GROUP_CONCAT or JSON_ARRAYAGG call
/// written `LIMIT(m,n)` (sqlparser reads one expression after a call's LIMIT; the compiler
/// takes the pair as offset and count), padded with spaces to the length it had so computed
/// columns keep their names (longer only when the clause holds too little space); `None` if
/// there is none.
pub fn with_concat_limit_pair(sql: &str) -> Option<String> {
    let toks = lex(sql);
    let mut edits = Vec::new();
    // For each open parenthesis: whether it opens a GROUP_CONCAT / JSON_ARRAYAGG call.
    let mut opens: Vec<bool> = Vec::new();
    for (i, (t, _)) in toks.iter().enumerate() {
        match t {
            Tok::Sym('(') => {
                let call = i > 0
                    && (is_word(&toks[i - 1].0, "GROUP_CONCAT")
                        || is_word(&toks[i - 1].0, "JSON_ARRAYAGG"));
                opens.push(call);
            }
            Tok::Sym(')') => {
                opens.pop();
            }
            t if is_word(t, "LIMIT") && opens.last() == Some(&true) => {
                if let Some(edit) = limit_pair(sql, &toks, i) {
                    edits.push(edit);
                }
            }
            _ => {}
        }
    }
    apply(sql, edits)
}

/// The edit for the LIMIT at token `i` inside a call: up to the call's `)`, a `,` or `OFFSET`
/// at the LIMIT's depth splits it.
fn limit_pair(sql: &str, toks: &[(Tok, usize)], i: usize) -> Option<(usize, usize, String)> {
    let (limit_at, start) = (toks[i].1, token_end(sql, toks[i].1));
    let mut depth = 0usize;
    let mut split = None;
    for (t, at) in &toks[i + 1..] {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') if depth == 0 => {
                let (a, b, offset_first) = split?;
                let first = sql[start..a].trim();
                let second = sql[b..*at].trim();
                let (m, n) = if offset_first {
                    (first, second)
                } else {
                    (second, first)
                };
                let written = &sql[limit_at..*at];
                let mut text = format!("{}({m},{n})", &written[..5]);
                if !written.contains('\n') {
                    while text.len() < written.len() {
                        text.push(' ');
                    }
                }
                return Some((limit_at, *at, text));
            }
            Tok::Sym(')') => depth -= 1,
            Tok::Sym(',') if depth == 0 => split = Some((*at, at + 1, true)),
            t if depth == 0 && is_word(t, "OFFSET") => {
                split = Some((*at, at + "OFFSET".len(), false))
            }
            _ => {}
        }
    }
    None
}

/// The byte offset of the `>` of a `->` / `->>` operator in `sql`, if it has one: MariaDB 10.11
/// has no JSON arrow operators and reads `-` then fails at the `>` (1064 near it), while
/// sqlparser would read them as JSON access.
pub fn json_arrow(sql: &str) -> Option<usize> {
    if !sql.contains("->") {
        return None;
    }
    let toks = lex(sql);
    toks.windows(2).find_map(|w| match (&w[0], &w[1]) {
        ((Tok::Sym('-'), a), (Tok::Sym('>'), b)) if *b == *a + 1 => Some(*b),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::user_var_name;

    #[test]
    fn trim_without_characters_becomes_a_call_of_the_same_length() {
        let sql = "SELECT TRIM(BOTH FROM a), TRIM( LEADING FROM b), TRIM(TRAILING FROM c), TRIM(BOTH 'x' FROM d)";
        let out = with_trim_of_spaces(sql).unwrap();
        assert_eq!(out.len(), sql.len());
        assert_eq!(
            out,
            "SELECT TRIM(          a), LTRIM(             b), RTRIM(             c), TRIM(BOTH 'x' FROM d)"
        );
        assert_eq!(with_trim_of_spaces("SELECT TRIM(a)"), None);
    }

    #[test]
    fn bang_is_a_not_that_binds_tighter_than_any_operator() {
        let shown = |sql: &str| match &super::super::parse(sql).unwrap()[0] {
            sqlparser::ast::Statement::Query(q) => q.body.to_string(),
            other => other.to_string(),
        };
        assert_eq!(shown("SELECT !1 + 1"), "SELECT NOT 1 + 1");
        assert_eq!(
            shown("SELECT !(1 + 1), !!a, 1 != 2"),
            "SELECT NOT (1 + 1), NOT NOT a, 1 <> 2"
        );
    }

    #[test]
    fn set_assignments_with_colon_equals_read_as_equals() {
        assert_eq!(
            with_set_assignments_as_eq("SET @a := 1, @b := (SELECT @c := 2)").as_deref(),
            Some("SET @a  = 1, @b  = (SELECT @c := 2)")
        );
        assert_eq!(
            with_set_assignments_as_eq("SET @a = @b := 1").as_deref(),
            None
        );
        assert_eq!(with_set_assignments_as_eq("SELECT @a := 1"), None);
    }

    #[test]
    fn quoted_user_variable_names_become_plain_ones() {
        let set = with_quoted_user_vars("set @`spider_lc_./s1/t` = '-x-'").unwrap();
        let var = set
            .strip_prefix("set @")
            .unwrap()
            .strip_suffix(" = '-x-'")
            .unwrap();
        assert_eq!(user_var_name(var), "spider_lc_./s1/t");
        assert_eq!(
            with_quoted_user_vars("select @'a b', @\"c\", @`d``e`").as_deref(),
            Some("select @betula_qv_612062, @betula_qv_63, @betula_qv_646065")
        );
        assert_eq!(user_var_name("betula_qv_646065"), "d`e");
        assert_eq!(user_var_name("plain"), "plain");
        assert_eq!(user_var_name("betula_qv_6"), "betula_qv_6");
        assert_eq!(user_var_name("betula_qv_zz"), "betula_qv_zz");
        // plain variables, strings and account names stay
        assert_eq!(with_quoted_user_vars("set @a = '@`x`'"), None);
        assert_eq!(with_quoted_user_vars("grant all on *.* to 'u'@'h'"), None);
        assert_eq!(with_quoted_user_vars("select @ `x`"), None);
    }

    #[test]
    fn regexp_null_becomes_a_pattern() {
        assert_eq!(
            with_regexp_null_as_pattern(
                "SELECT a REGEXP NULL, b not rlike null + 1, c REGEXP/**/NULL"
            )
            .as_deref(),
            Some("SELECT a REGEXP-NULL, b not rlike-null + 1, c REGEXP/**/(NULL)")
        );
        assert_eq!(
            with_regexp_null_as_pattern("SELECT 'x REGEXP NULL', a REGEXP 'NULL'"),
            None
        );
        assert_eq!(with_regexp_null_as_pattern("SELECT a IS NULL"), None);
    }

    #[test]
    fn concat_limit_pairs_become_tuples_of_the_same_length() {
        assert_eq!(
            with_concat_limit_pair(
                "SELECT group_concat(a ORDER BY f(b, c) LIMIT 1, 2), json_arrayagg(a LIMIT 3 OFFSET 4)"
            )
            .as_deref(),
            Some("SELECT group_concat(a ORDER BY f(b, c) LIMIT(1,2)), json_arrayagg(a LIMIT(4,3)      )")
        );
        assert_eq!(
            with_concat_limit_pair("SELECT group_concat(a limit 1,2)").as_deref(),
            Some("SELECT group_concat(a limit(1,2))")
        );
        assert_eq!(
            with_concat_limit_pair("SELECT (SELECT a FROM t LIMIT 1, 2), group_concat(a LIMIT 2)"),
            None
        );
    }

    #[test]
    fn interval_with_a_list_becomes_the_function() {
        assert_eq!(
            with_interval_function("select interval(55,10) as c, INTERVAL (1+2) DAY").as_deref(),
            Some("select __INTRVL(55,10) as c, INTERVAL (1+2) DAY")
        );
        assert_eq!(
            with_interval_function("select interval (f(1,2)) day, 'interval(1,2)'"),
            None
        );
        assert_eq!(
            with_interval_function("select interval((1), 2, 3)").as_deref(),
            Some("select __INTRVL((1), 2, 3)")
        );
    }

    #[test]
    fn infix_mod_becomes_percent() {
        let got = with_mod_as_percent("SELECT a MOD 3, MOD(a, 2), `mod` FROM t");
        assert_eq!(
            got.as_deref(),
            Some("SELECT a % 3, MOD(a, 2), `mod` FROM t")
        );
    }

    #[test]
    fn persistent_becomes_stored() {
        let got = with_persistent_as_stored(
            "CREATE TABLE t (a INT, b INT AS (a) PERSISTENT, persistent INT)",
        );
        assert_eq!(
            got.as_deref(),
            Some("CREATE TABLE t (a INT, b INT AS (a) STORED, persistent INT)")
        );
    }

    #[test]
    fn lock_in_share_mode_becomes_for_share() {
        assert_eq!(
            with_share_mode_as_for_share("select * from t where (a = 1) lock in share mode")
                .as_deref(),
            Some("select * from t where (a = 1) FOR SHARE")
        );
        assert_eq!(
            with_share_mode_as_for_share("select 'lock in share mode'"),
            None
        );
        assert_eq!(with_share_mode_as_for_share("select 1"), None);
    }
}
