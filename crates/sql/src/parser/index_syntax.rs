//! MariaDB index syntax that sqlparser rejects, rewritten into a form it accepts with the same
//! meaning: an index type written before the column list (`UNIQUE INDEX USING HASH (a)`) moves
//! after it (`UNIQUE INDEX (a) USING HASH`, which sqlparser keeps as an index option), and an
//! index's `KEY_BLOCK_SIZE [=] n` option inside a CREATE TABLE column list is dropped (InnoDB
//! ignores it too; a table's KEY_BLOCK_SIZE after the list is kept).
//!
//! Invariant: only these tokens move or go; the rest of the text is copied byte for byte, so
//! literals, comments and identifiers are untouched. Used only after sqlparser has failed on
//! the original text.

use crate::parser::tokens::{lex, Tok};

fn is_kw(t: &Tok, k: &str) -> bool {
    matches!(t, Tok::Word { upper, quoted: false, .. } if upper == k)
}

/// The rewritten statement, or `None` when there is nothing to rewrite.
pub fn rewrite(sql: &str) -> Option<String> {
    let toks = lex(sql);
    // (from, to, insert): replace sql[from..to] with `insert`.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < toks.len() {
        let (t, at) = &toks[i];
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            _ => {}
        }
        let kind = toks.get(i + 1).map(|x| &x.0);
        if is_kw(t, "USING")
            && kind.is_some_and(|k| is_kw(k, "BTREE") || is_kw(k, "HASH"))
            && toks.get(i + 2).map(|x| &x.0) == Some(&Tok::Sym('('))
        {
            if let Some(close) = matching_paren(&toks, i + 2) {
                let Some(Tok::Word { upper, .. }) = kind else {
                    unreachable!("checked above")
                };
                edits.push((*at, toks[i + 2].1, String::new()));
                let after = toks[close].1 + 1;
                edits.push((after, after, format!(" USING {upper}")));
                i += 2;
                continue;
            }
        }
        if depth >= 1 && is_kw(t, "KEY_BLOCK_SIZE") {
            let mut j = i + 1;
            if toks.get(j).map(|x| &x.0) == Some(&Tok::Sym('=')) {
                j += 1;
            }
            if matches!(
                toks.get(j).map(|x| &x.0),
                Some(Tok::Num(_) | Tok::Word { .. })
            ) {
                let end = toks.get(j + 1).map_or(sql.len(), |x| x.1);
                edits.push((*at, end, " ".into()));
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(sql.len() + 16);
    let mut from = 0;
    for (a, b, ins) in edits {
        if a < from {
            return None; // overlapping edits: leave the statement alone
        }
        out.push_str(&sql[from..a]);
        out.push_str(&ins);
        from = b;
    }
    out.push_str(&sql[from..]);
    Some(out)
}

/// Index of the `)` matching the `(` at `open`.
fn matching_paren(toks: &[(Tok, usize)], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (k, (t, _)) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn moves_index_type_after_columns_and_drops_index_key_block_size() {
        assert_eq!(
            rewrite("CREATE TABLE t (a INT, UNIQUE INDEX USING HASH (a))").unwrap(),
            "CREATE TABLE t (a INT, UNIQUE INDEX (a) USING HASH)"
        );
        assert_eq!(
            rewrite(
                "CREATE TABLE t (a INT, KEY (a) KEY_BLOCK_SIZE=8 COMMENT 'x') KEY_BLOCK_SIZE=4"
            )
            .unwrap(),
            "CREATE TABLE t (a INT, KEY (a)  COMMENT 'x') KEY_BLOCK_SIZE=4"
        );
        assert_eq!(rewrite("SELECT 1"), None);
    }
}
