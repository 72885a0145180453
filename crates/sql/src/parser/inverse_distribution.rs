//! MariaDB's grammar of the inverse distribution functions, checked before sqlparser reads the
//! statement (sqlparser reads a wider form and would let the compiler see calls MariaDB's grammar
//! refuses):
//!
//! ```text
//! PERCENTILE_CONT ( expr ) WITHIN GROUP ( ORDER BY expr [ASC | DESC] ) OVER ( [PARTITION BY expr, ...] )
//! PERCENTILE_DISC ( expr ) WITHIN GROUP ( ORDER BY expr [ASC | DESC] ) OVER ( [PARTITION BY expr, ...] )
//! MEDIAN ( expr ) OVER ( [PARTITION BY expr, ...] )
//! ```
//!
//! Anything else after one of these names and `(` is 1064 at the token MariaDB's parser stops
//! at: an empty argument list at its `)`, a second argument or ORDER BY key just after the `,`
//! (MariaDB's lexer starts the token after a comma), a missing WITHIN GROUP or OVER at the
//! token in its place, a named window, a window ORDER BY or frame at its first word.
//!
//! Invariant: only these three names followed by `(` are read (not a qualified `db.median(`);
//! text in quotes and comments is never read (the lexer skips it).

use super::tokens::{lex, Tok};

/// The byte offset of the first syntax error in an inverse distribution function call of `sql`,
/// or `None` when every such call (if any) has MariaDB's form.
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
        let median = match upper.as_str() {
            "PERCENTILE_CONT" | "PERCENTILE_DISC" => false,
            "MEDIAN" => true,
            _ => continue,
        };
        let qualified = i > 0 && toks[i - 1].0 == Tok::Sym('.');
        if qualified || !matches!(toks.get(i + 1), Some((Tok::Sym('('), _))) {
            continue;
        }
        let mut r = Reader {
            toks: &toks,
            i: i + 2,
            end: sql.len(),
        };
        if let Err(at) = r.call(median) {
            return Some(at);
        }
    }
    None
}

/// Whether `sql` names one of the functions at all (most statements do not: no lexing then).
fn mentions(sql: &str) -> bool {
    let b = sql.as_bytes();
    let has = |word: &[u8]| b.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    has(b"median") || has(b"percentile_")
}

/// A walk over the tokens of one call; an `Err` is the offset of the syntax error.
struct Reader<'a> {
    toks: &'a [(Tok, usize)],
    i: usize,
    /// The text's length: the offset of an error at its end.
    end: usize,
}

impl Reader<'_> {
    fn at(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.1)
    }

    fn word(&self, kw: &str) -> bool {
        matches!(self.toks.get(self.i), Some((Tok::Word { upper, quoted: false, .. }, _)) if upper == kw)
    }

    fn sym(&self, c: char) -> bool {
        matches!(self.toks.get(self.i), Some((Tok::Sym(s), _)) if *s == c)
    }

    fn expect_word(&mut self, kw: &str) -> Result<(), usize> {
        if !self.word(kw) {
            return Err(self.at());
        }
        self.i += 1;
        Ok(())
    }

    fn expect_sym(&mut self, c: char) -> Result<(), usize> {
        if !self.sym(c) {
            return Err(self.at());
        }
        self.i += 1;
        Ok(())
    }

    /// Skips one expression up to the `,` or `)` that ends it at this depth; a `,` is an error
    /// just after it, a `)` is consumed.
    fn one_expr(&mut self) -> Result<(), usize> {
        let mut depth = 0usize;
        while let Some((t, off)) = self.toks.get(self.i) {
            self.i += 1;
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') if depth == 0 => return Ok(()),
                Tok::Sym(')') => depth -= 1,
                Tok::Sym(',') if depth == 0 => return Err(off + 1),
                _ => {}
            }
        }
        Err(self.end)
    }

    /// After `name (`: the argument, WITHIN GROUP (unless MEDIAN) and OVER.
    fn call(&mut self, median: bool) -> Result<(), usize> {
        if self.sym(')') || self.word("DISTINCT") || self.word("ALL") {
            return Err(self.at());
        }
        self.one_expr()?;
        if !median {
            self.expect_word("WITHIN")?;
            self.expect_word("GROUP")?;
            self.expect_sym('(')?;
            self.expect_word("ORDER")?;
            self.expect_word("BY")?;
            if self.sym(')') {
                return Err(self.at());
            }
            self.one_expr()?;
        }
        self.expect_word("OVER")?;
        self.expect_sym('(')?;
        if self.sym(')') {
            return Ok(());
        }
        self.expect_word("PARTITION")?;
        self.expect_word("BY")?;
        let mut depth = 0usize;
        while let Some((t, _)) = self.toks.get(self.i) {
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') if depth == 0 => return Ok(()),
                Tok::Sym(')') => depth -= 1,
                Tok::Word {
                    upper,
                    quoted: false,
                    ..
                } if depth == 0 && matches!(upper.as_str(), "ORDER" | "ROWS" | "RANGE") => {
                    return Err(self.at());
                }
                _ => {}
            }
            self.i += 1;
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
            "select percentile_cont(0.5) within group (order by a) over (partition by b, (c)) from t",
            "select PERCENTILE_DISC(if(a, 0.1, 0.2)) within group (order by f(a, b) desc) over () from t",
            "select median(a + (b)) over (partition by g) from t",
            "select median from t",
            "select x.median(a) from t",
            "select 'median(' from t",
        ] {
            assert_eq!(near(sql), None, "{sql}");
        }
    }

    #[test]
    fn other_forms_stop_where_mariadb_stops() {
        let cases = [
            (
                "select percentile_disc(0.5) within group(order by score,test) over (partition by name) from t1",
                "test) over (partition by name) from t1",
            ),
            (
                "select percentile_cont(0.5) within group() over (partition by name) from t1",
                ") over (partition by name) from t1",
            ),
            (
                "select percentile_disc() within group() over (partition by name) from t1",
                ") within group() over (partition by name) from t1",
            ),
            ("select median(a,b) over () from t", "b) over () from t"),
            ("select median() over () from t", ") over () from t"),
            ("select median(distinct a) over () from t", "distinct a) over () from t"),
            ("select median(a) from t", "from t"),
            ("select median(a) over (order by a) from t", "order by a) from t"),
            (
                "select percentile_cont(0.5) within group (order by a) over w from t",
                "w from t",
            ),
            (
                "select percentile_cont(0.5) within group (order by a) over (partition by a rows unbounded preceding) from t",
                "rows unbounded preceding) from t",
            ),
            ("select percentile_cont(0.5) over () from t", "over () from t"),
            ("select percentile_cont(0.5) within group (order by a)", ""),
        ];
        for (sql, rest) in cases {
            assert_eq!(near(sql), Some(rest), "{sql}");
        }
    }
}
