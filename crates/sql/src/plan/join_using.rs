//! Joins by column names (MariaDB's natural join columns, `store_natural_using_join_columns`):
//! `JOIN ... USING (c, ...)` joins the named columns, NATURAL JOIN the columns whose names
//! (case-insensitively) both operands show. Each such pair is joined by equality (the ON these
//! equalities make; none for a NATURAL JOIN without common columns, a cross join) and shown once.
//!
//! Invariants:
//! 1. an operand's shown columns are scope positions in `SELECT *` order; the join shows the
//!    joined columns first, in its first operand's order and as the first operand's copy, then
//!    the first operand's other columns, then the second's. The first operand is the left one,
//!    the right one for RIGHT JOIN (whose rows are the right operand's, null-extended on the left).
//! 2. The copy not shown is found only by a qualified name ([`Scope::qualified_only`]).
//! 3. A joined name that the second operand shows twice, or that two columns of the first match,
//!    is 1052 (named at the second such column of the first operand, as MariaDB's
//!    `mark_common_columns` finds it), a USING name that one operand does not show is 1054, both
//!    naming the clause `FROM` as MariaDB does.

use sqlparser::ast;

use crate::error::db_error::{DbError, DbResult};
use crate::expr::{object_name_parts, Scope};

/// Where a MariaDB error names the join's clause.
const PLACE: &str = "FROM";

/// Which columns a join by names joins.
#[derive(Clone, Copy)]
pub enum JoinNames<'a> {
    /// `USING (c, ...)`.
    Using(&'a [ast::ObjectName]),
    /// NATURAL: every name both operands show.
    Natural,
}

/// A join by names: its ON (None when no column is joined) and what it shows.
#[derive(Debug)]
pub struct NamedJoin {
    pub on: Option<ast::Expr>,
    /// The join's columns in `SELECT *` order (invariant 1).
    pub shown: Vec<usize>,
    /// The second operand's copies of the joined columns (invariant 2).
    pub copies: Vec<usize>,
}

/// The joined columns of operands showing columns named `first` and `second`: pairs of
/// indexes into them, in `first`'s order (invariants 1 and 3).
pub fn pair_columns(
    first: &[&str],
    second: &[&str],
    names: JoinNames,
) -> DbResult<Vec<(usize, usize)>> {
    let using: Option<Vec<String>> = match names {
        JoinNames::Using(cols) => Some(
            cols.iter()
                .map(|c| object_name_parts(c).join("."))
                .collect(),
        ),
        JoinNames::Natural => None,
    };
    let wanted = |name: &str| match &using {
        Some(u) => u.iter().any(|n| n.eq_ignore_ascii_case(name)),
        None => true,
    };
    // MariaDB's mark_common_columns: the first operand's columns in order, each matched against
    // the second's; a second column matched twice, or found twice for a joined name, is 1052
    // named by the column being matched.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (i, name) in first.iter().enumerate() {
        let joined = wanted(name);
        let mut found = None;
        for (j, other) in second.iter().enumerate() {
            if !other.eq_ignore_ascii_case(name) {
                continue;
            }
            if pairs.iter().any(|p| p.1 == j) || (found.is_some() && joined) {
                return Err(DbError::ambiguous(name, PLACE));
            }
            found = Some(j);
        }
        if let (Some(j), true) = (found, joined) {
            pairs.push((i, j));
        }
    }
    if let Some(u) = &using {
        let joined = |n: &String| pairs.iter().any(|&(i, _)| first[i].eq_ignore_ascii_case(n));
        if let Some(missing) = u.iter().find(|n| !joined(n)) {
            return Err(DbError::bad_field(missing, PLACE));
        }
    }
    Ok(pairs)
}

/// What a join of operands showing `first` and `second` joined by `pairs` shows, in order
/// (invariant 1): each pair's first column, then the first operand's other columns, then the
/// second's.
pub fn shown_columns<T: Copy>(first: &[T], second: &[T], pairs: &[(usize, usize)]) -> Vec<T> {
    let mut shown: Vec<T> = pairs.iter().map(|&(a, _)| first[a]).collect();
    shown.extend(
        (0..first.len())
            .filter(|i| pairs.iter().all(|p| p.0 != *i))
            .map(|i| first[i]),
    );
    shown.extend(
        (0..second.len())
            .filter(|j| pairs.iter().all(|p| p.1 != *j))
            .map(|j| second[j]),
    );
    shown
}

/// `l1 = r1 AND l2 = r2 ...` of the pairs of columns (None for none).
pub fn equalities(pairs: impl Iterator<Item = (ast::Expr, ast::Expr)>) -> Option<ast::Expr> {
    pairs
        .map(|(l, r)| ast::Expr::BinaryOp {
            left: Box::new(l),
            op: ast::BinaryOperator::Eq,
            right: Box::new(r),
        })
        .reduce(|acc, e| ast::Expr::BinaryOp {
            left: Box::new(acc),
            op: ast::BinaryOperator::And,
            right: Box::new(e),
        })
}

/// Joins `first` and `second` (shown columns of each operand, scope positions) by `names`.
/// The equalities are written with the left operand on the left (`left_first` false for
/// RIGHT JOIN, whose first operand is the right one).
pub fn join_by_names(
    scope: &Scope,
    (first, second): (&[usize], &[usize]),
    names: JoinNames,
    left_first: bool,
) -> DbResult<NamedJoin> {
    let name_list = |cols: &[usize]| -> Vec<&str> {
        cols.iter().map(|&i| scope.cols[i].name.as_str()).collect()
    };
    let pairs = pair_columns(&name_list(first), &name_list(second), names)?;
    let shown = shown_columns(first, second, &pairs);
    let on = equalities(pairs.iter().map(|&(a, b)| {
        let (a, b) = (column(scope, first[a]), column(scope, second[b]));
        if left_first {
            (a, b)
        } else {
            (b, a)
        }
    }));
    Ok(NamedJoin {
        on,
        shown,
        copies: pairs.iter().map(|&(_, b)| second[b]).collect(),
    })
}

/// Scope column `i` as a name qualified by its source (found even among the copies).
fn column(scope: &Scope, i: usize) -> ast::Expr {
    let c = &scope.cols[i];
    ast::Expr::CompoundIdentifier(vec![
        ast::Ident::with_quote('`', c.table.clone()),
        ast::Ident::with_quote('`', c.name.clone()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::ScopeCol;

    fn scope(cols: &[(&str, &str)]) -> Scope {
        Scope {
            cols: cols
                .iter()
                .map(|(t, n)| ScopeCol {
                    table: t.to_string(),
                    db: String::new(),
                    org_table: String::new(),
                    name: n.to_string(),
                    ty: None,
                    collation: Default::default(),
                    flags: 0,
                    length: 0,
                    members: Default::default(),
                    stored_utc: false,
                    json: false,
                })
                .collect(),
            ..Default::default()
        }
    }

    fn using(names: &[&str]) -> Vec<ast::ObjectName> {
        names
            .iter()
            .map(|n| ast::ObjectName::from(vec![ast::Ident::new(*n)]))
            .collect()
    }

    #[test]
    fn natural_shows_common_columns_first_in_the_first_operands_order() {
        // t1(a, b, c) NATURAL JOIN t2(c, d, A)
        let s = scope(&[
            ("t1", "a"),
            ("t1", "b"),
            ("t1", "c"),
            ("t2", "c"),
            ("t2", "d"),
            ("t2", "A"),
        ]);
        let j = join_by_names(&s, (&[0, 1, 2], &[3, 4, 5]), JoinNames::Natural, true).unwrap();
        assert_eq!(j.shown, vec![0, 2, 1, 4]);
        assert_eq!(j.copies, vec![5, 3]);
        assert_eq!(
            j.on.unwrap().to_string(),
            "`t1`.`a` = `t2`.`A` AND `t1`.`c` = `t2`.`c`"
        );
        // NATURAL RIGHT JOIN: the right operand first, the equalities still left = right.
        let j = join_by_names(&s, (&[3, 4, 5], &[0, 1, 2]), JoinNames::Natural, false).unwrap();
        assert_eq!(j.shown, vec![3, 5, 4, 1]);
        assert_eq!(
            j.on.unwrap().to_string(),
            "`t1`.`c` = `t2`.`c` AND `t1`.`a` = `t2`.`A`"
        );
    }

    #[test]
    fn natural_without_common_columns_is_a_cross_join() {
        let s = scope(&[("t1", "a"), ("t3", "x")]);
        let j = join_by_names(&s, (&[0], &[1]), JoinNames::Natural, true).unwrap();
        assert!(j.on.is_none());
        assert_eq!(j.shown, vec![0, 1]);
        assert!(j.copies.is_empty());
    }

    #[test]
    fn using_joins_only_the_named_columns_and_refuses_unknown_or_ambiguous_ones() {
        let s = scope(&[("t1", "a"), ("t1", "c"), ("t2", "c"), ("t2", "A")]);
        let u = using(&["a", "a"]);
        let j = join_by_names(&s, (&[0, 1], &[2, 3]), JoinNames::Using(&u), true).unwrap();
        assert_eq!(j.shown, vec![0, 1, 2]);
        let u = using(&["b"]);
        let e = join_by_names(&s, (&[0, 1], &[2, 3]), JoinNames::Using(&u), true).unwrap_err();
        assert_eq!(e.message, "Unknown column 'b' in 'FROM'");
        // The left operand shows `c` twice (t1 JOIN t2 ON ...): joining `c` is ambiguous.
        let s = scope(&[("t1", "c"), ("t2", "c"), ("t4", "c")]);
        let e = join_by_names(&s, (&[0, 1], &[2]), JoinNames::Natural, true).unwrap_err();
        assert_eq!(e.message, "Column 'c' in FROM is ambiguous");
        // MariaDB names the first column matched a second time: `c` before `A` here.
        let s = scope(&[
            ("t1", "a"),
            ("t1", "c"),
            ("t2", "c"),
            ("t2", "A"),
            ("t4", "a"),
            ("t4", "c"),
        ]);
        let e = join_by_names(&s, (&[0, 1, 2, 3], &[4, 5]), JoinNames::Natural, true).unwrap_err();
        assert_eq!(e.message, "Column 'c' in FROM is ambiguous");
    }
}
