//! HAVING as EXPLAIN FORMAT=JSON's `having_condition` prints it, from the statement's text: a
//! select-list alias is printed as the select list spells it (an `Item_ref` prints its name),
//! integers as written, `and` between conjuncts, operators between spaces, IN lists with `,`
//! and no space.
//!
//! Invariant: only conditions over aliases and integer literals are printed (`None`
//! otherwise): a column would be qualified and its comparisons rewritten by MariaDB's
//! optimizer in ways this printer does not follow.

use sqlparser::ast::{self, BinaryOperator as B, Expr as E};

use super::keywords::explain_name;

/// `having` printed against the select list `items`.
pub fn having_text(having: &ast::Expr, items: &[ast::SelectItem]) -> Option<String> {
    let aliases: Vec<&str> = items
        .iter()
        .filter_map(|i| match i {
            ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.as_str()),
            _ => None,
        })
        .collect();
    condition(having, &aliases)
}

fn condition(e: &ast::Expr, aliases: &[&str]) -> Option<String> {
    let op = |e: &ast::Expr| operand(e, aliases);
    Some(match e {
        E::Nested(inner) => return condition(inner, aliases),
        E::BinaryOp {
            left,
            op: B::And,
            right,
        } => format!(
            "{} and {}",
            condition(left, aliases)?,
            condition(right, aliases)?
        ),
        E::BinaryOp {
            left,
            op: bin,
            right,
        } => {
            let sign = match bin {
                B::Eq => "=",
                B::NotEq => "<>",
                B::Lt => "<",
                B::LtEq => "<=",
                B::Gt => ">",
                B::GtEq => ">=",
                B::Spaceship => "<=>",
                _ => return None,
            };
            format!("{} {sign} {}", op(left)?, op(right)?)
        }
        E::InList {
            expr,
            list,
            negated,
        } => {
            let items: Vec<String> = list.iter().map(op).collect::<Option<_>>()?;
            let not = if *negated { "not " } else { "" };
            format!("{} {not}in ({})", op(expr)?, items.join(","))
        }
        E::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let not = if *negated { "not " } else { "" };
            format!("{} {not}between {} and {}", op(expr)?, op(low)?, op(high)?)
        }
        E::IsNull(x) => format!("{} is null", op(x)?),
        E::IsNotNull(x) => format!("{} is not null", op(x)?),
        _ => return None,
    })
}

/// An alias of the select list, or an integer.
fn operand(e: &ast::Expr, aliases: &[&str]) -> Option<String> {
    match e {
        E::Identifier(id) => {
            let alias = aliases.iter().find(|a| a.eq_ignore_ascii_case(&id.value))?;
            explain_name(alias)
        }
        E::Value(v) => match &v.value {
            ast::Value::Number(n, _) if n.bytes().all(|b| b.is_ascii_digit()) => Some(n.clone()),
            _ => None,
        },
        E::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => match &**expr {
            E::Value(_) => Some(format!("-{}", operand(expr, aliases)?)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::parser::Parser;

    fn printed(select: &str) -> Option<String> {
        let stmt = Parser::parse_sql(&MySqlDialect {}, select)
            .unwrap()
            .remove(0);
        let ast::Statement::Query(q) = stmt else {
            panic!("a query")
        };
        let ast::SetExpr::Select(s) = &*q.body else {
            panic!("a select")
        };
        having_text(s.having.as_ref()?, &s.projection)
    }

    #[test]
    fn having_prints_as_mariadb_explain_prints_it() {
        let q = |h: &str| {
            printed(&format!(
                "select b, max(a) as MX from t1 group by b having {h}"
            ))
        };
        assert_eq!(q("MX in (3,5,7)").as_deref(), Some("MX in (3,5,7)"));
        assert_eq!(
            q("MX in (3, 5) and MX!=4").as_deref(),
            Some("MX in (3,5) and MX <> 4")
        );
        assert_eq!(
            q("mx between 1 and 5").as_deref(),
            Some("MX between 1 and 5")
        );
        assert_eq!(q("MX not in (1,2)").as_deref(), Some("MX not in (1,2)"));
        assert_eq!(q("MX is null").as_deref(), Some("MX is null"));
        assert_eq!(q("MX = -1").as_deref(), Some("MX = -1"));
        assert_eq!(q("b > 1"), None);
        assert_eq!(q("MX > 1 or MX < 0"), None);
    }
}
