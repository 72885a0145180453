//! MariaDB's grammar of the window-only functions, checked before sqlparser reads the statement
//! (sqlparser reads any `name(args)` as a call, and the compiler would answer a missing function
//! where MariaDB's parser refuses the text):
//!
//! ```text
//! ROW_NUMBER() | RANK() | DENSE_RANK() | PERCENT_RANK() | CUME_DIST()   OVER window
//! NTILE(expr) | FIRST_VALUE(expr)                                       OVER window
//! LEAD(expr [, expr]) | LAG(expr [, expr])                              OVER window
//! NTH_VALUE(expr, expr)                                                 OVER window
//! ```
//!
//! Anything else is 1064 at the token MariaDB's parser stops at: a missing OVER at the token
//! after the `)`, a missing argument at the `)`, one argument too many just after its `,`
//! (MariaDB's lexer starts the token after a comma), DISTINCT at itself. LAST_VALUE is left
//! out: without OVER it is MariaDB's LAST_VALUE(expr, ...) (the last of its arguments).
//!
//! MariaDB's lexer reads these names as function words only right before `(`; ROW_NUMBER is a
//! keyword everywhere. So `rank (...)` with a space is a call of a stored function named `rank`,
//! and then only an OVER after it is a syntax error (at the OVER).
//!
//! Invariant: only unqualified, unquoted names followed by `(` are read (not `db.rank(`); text
//! in quotes and comments is never read (the lexer skips it).

use super::tokens::{lex, Tok};

/// The names and their argument counts (least, most).
const FUNCTIONS: [(&str, usize, usize); 10] = [
    ("ROW_NUMBER", 0, 0),
    ("RANK", 0, 0),
    ("DENSE_RANK", 0, 0),
    ("PERCENT_RANK", 0, 0),
    ("CUME_DIST", 0, 0),
    ("NTILE", 1, 1),
    ("FIRST_VALUE", 1, 1),
    ("LEAD", 1, 2),
    ("LAG", 1, 2),
    ("NTH_VALUE", 2, 2),
];

/// The byte offset of the first syntax error in a window-only function call of `sql`, or `None`
/// when every such call (if any) has MariaDB's form.
pub fn syntax_error(sql: &str) -> Option<usize> {
    if !mentions(sql) {
        return None;
    }
    let toks = lex(sql);
    for i in 0..toks.len() {
        let Tok::Word {
            upper,
            quoted: false,
            ..
        } = &toks[i].0
        else {
            continue;
        };
        let Some(&(name, least, most)) = FUNCTIONS.iter().find(|f| f.0 == upper) else {
            continue;
        };
        let qualified = i > 0 && toks[i - 1].0 == Tok::Sym('.');
        let Some((Tok::Sym('('), paren)) = toks.get(i + 1) else {
            continue;
        };
        if qualified {
            continue;
        }
        let end_of_name = toks[i].1 + name.len();
        let r = Reader {
            toks: &toks,
            i: i + 2,
            end: sql.len(),
        };
        let result = if *paren == end_of_name || name == "ROW_NUMBER" {
            r.call(least, most)
        } else {
            r.stored_function_call()
        };
        if let Err(at) = result {
            return Some(at);
        }
    }
    None
}

/// Whether `sql` names one of the functions at all (most statements do not: no lexing then).
fn mentions(sql: &str) -> bool {
    let b = sql.as_bytes();
    let has = |word: &[u8]| b.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    [
        "rank",
        "row_number",
        "cume_dist",
        "ntile",
        "first_value",
        "lead",
        "lag",
        "nth_value",
    ]
    .iter()
    .any(|w| has(w.as_bytes()))
}

/// A walk over the tokens of one call; an `Err` is the offset of the syntax error.
struct Reader<'a> {
    toks: &'a [(Tok, usize)],
    i: usize,
    /// The text's length: the offset of an error at its end.
    end: usize,
}

impl Reader<'_> {
    /// The offset of an error at the next token: after it when it is a `,` (MariaDB's lexer
    /// starts the token after a comma).
    fn at(&self) -> usize {
        match self.toks.get(self.i) {
            Some((Tok::Sym(','), off)) => off + 1,
            Some((_, off)) => *off,
            None => self.end,
        }
    }

    fn is_over(&self) -> bool {
        matches!(self.toks.get(self.i), Some((Tok::Word { upper, quoted: false, .. }, _)) if upper == "OVER")
    }

    fn is_sym(&self, c: char) -> bool {
        matches!(self.toks.get(self.i), Some((Tok::Sym(s), _)) if *s == c)
    }

    fn is_distinct(&self) -> bool {
        matches!(self.toks.get(self.i), Some((Tok::Word { upper, quoted: false, .. }, _)) if upper == "DISTINCT")
    }

    /// After `name (`: between `least` and `most` arguments, the `)` and OVER.
    fn call(mut self, least: usize, most: usize) -> Result<(), usize> {
        if most == 0 {
            if !self.is_sym(')') {
                return Err(self.at());
            }
            self.i += 1;
        } else {
            let mut count = 0;
            loop {
                if self.is_sym(')') || self.is_sym(',') || self.is_distinct() {
                    return Err(self.at());
                }
                count += 1;
                let closed = self.skip_expr()?;
                if closed && count >= least {
                    break;
                }
                if closed || count == most {
                    // at the `)` of too few arguments, after the `,` of too many
                    self.i -= 1;
                    return Err(self.at());
                }
            }
        }
        if self.is_over() {
            Ok(())
        } else {
            Err(self.at())
        }
    }

    /// After `name (` with a space before the `(`: a stored function's arguments, then no OVER.
    fn stored_function_call(mut self) -> Result<(), usize> {
        while !self.skip_expr()? {}
        if self.is_over() {
            Err(self.at())
        } else {
            Ok(())
        }
    }

    /// Skips one expression up to the `,` or `)` that ends it at this depth (consumed); whether
    /// it was the `)`.
    fn skip_expr(&mut self) -> Result<bool, usize> {
        let mut depth = 0usize;
        while let Some((t, _)) = self.toks.get(self.i) {
            self.i += 1;
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') if depth == 0 => return Ok(true),
                Tok::Sym(',') if depth == 0 => return Ok(false),
                Tok::Sym(')') => depth -= 1,
                _ => {}
            }
        }
        Err(self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::syntax_error;

    fn near(sql: &str) -> Option<&str> {
        syntax_error(sql).map(|at| &sql[at..])
    }

    #[test]
    fn mariadb_forms_pass() {
        for sql in [
            "select row_number() over (order by a), rank() over w from t1 window w as ()",
            "select row_number ( ) over () from t1",
            "select ntile(if(a, 1, 2)) over (), nth_value(a, (1)) over () from t1",
            "select lead(a) over (), lag(a, 2) over (), first_value(a + 1) over () from t1",
            "select last_value(a), last_value(a, b) from t1",
            "select rank, lead from t1",
            "select test.rank() from t1",
            "select rank () from t1",
            "select 'rank()' from t1",
            "select `rank`() from t1",
        ] {
            assert_eq!(near(sql), None, "{sql}");
        }
    }

    /// The `near` text of MariaDB 10.11 for each statement.
    #[test]
    fn other_forms_stop_where_mariadb_stops() {
        let cases = [
            ("select row_number() from t1", "from t1"),
            ("select row_number(1) from t1", "1) from t1"),
            ("select rank () over () from t1", "over () from t1"),
            ("select ntile() over () from t1", ") over () from t1"),
            ("select ntile(2) from t1", "from t1"),
            ("select lead(a) from t1", "from t1"),
            (
                "select lead(a,1,2) over (order by a) from t1",
                "2) over (order by a) from t1",
            ),
            ("select nth_value(a) over () from t1", ") over () from t1"),
            (
                "select first_value(a,1) over () from t1",
                "1) over () from t1",
            ),
            ("select cume_dist(a) over () from t1", "a) over () from t1"),
            ("select percent_rank() , 1 from t1", " 1 from t1"),
            ("select count(*) from t1 where row_number() = 1", "= 1"),
            ("select dense_rank()\nfrom t1", "from t1"),
            ("select lag() over () from t1", ") over () from t1"),
            (
                "select lead(distinct a) over () from t1",
                "distinct a) over () from t1",
            ),
            (
                "select row_number() over (), cume_dist() from t1",
                "from t1",
            ),
            ("select rank()", ""),
        ];
        for (sql, rest) in cases {
            assert_eq!(near(sql), Some(rest), "{sql}");
        }
    }
}
