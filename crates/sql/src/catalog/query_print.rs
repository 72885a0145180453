//! A query as MariaDB prints a stored one (`st_select_lex_unit::print`, `st_select_lex::print`,
//! `TABLE_LIST::print`): a view's definition in SHOW CREATE VIEW and
//! information_schema.VIEWS.VIEW_DEFINITION.
//!
//! The printer is purely syntactic: it prints the names it is given (plan/view_text.rs qualifies
//! them first). Its forms, as MariaDB 10.11 prints them: keywords in lower case; select items
//! separated by `,` and named `expr AS `name`` where the query has a name; `with [recursive]
//! name(`c`,...) as (...)` followed directly by the body; tables of a comma list joined by
//! ` join ` without parentheses, each written JOIN in parentheses (`(`a` join `b` on(...))`);
//! a derived table as `(select ...) `alias``; `limit offset,count`.
//!
//! Invariant: the printed text reads back (the front end, MySQL dialect) as a query of the same
//! rows; a form the printer does not know is printed as sqlparser prints it, identifiers quoted.

use sqlparser::ast::{self, SetExpr, TableFactor};

use super::expr_print::{print_expr, quoted, Style};

/// `q` as MariaDB prints it.
pub fn query_text(q: &ast::Query, st: &Style) -> String {
    let mut out = String::new();
    query(q, st, &mut out);
    out
}

/// What marks the CYCLE clause's columns that the front end keeps in a WITH element's `from`
/// (parser/cycle_clause.rs): the mark, then each column after a mark.
pub const CYCLE_MARK: char = '\u{0}';

/// The CYCLE clause's columns of `cte`, if it has one.
pub fn cycle_columns(cte: &ast::Cte) -> Option<Vec<String>> {
    let rest = cte.from.as_ref()?.value.strip_prefix(CYCLE_MARK)?;
    Some(rest.split(CYCLE_MARK).map(str::to_string).collect())
}

pub(super) fn query(q: &ast::Query, st: &Style, out: &mut String) {
    if let Some(w) = &q.with {
        with(w, st, out);
    }
    set_expr(&q.body, st, out);
    if let Some(ob) = &q.order_by {
        if let ast::OrderByKind::Expressions(items) = &ob.kind {
            out.push_str(" order by ");
            order_items(items, st, out);
        }
    }
    match &q.limit_clause {
        Some(ast::LimitClause::LimitOffset {
            limit: Some(l),
            offset,
            ..
        }) => {
            out.push_str(" limit ");
            if let Some(o) = offset {
                print_expr(&o.value, st, out);
                out.push(',');
            }
            print_expr(l, st, out);
        }
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            out.push_str(" limit ");
            print_expr(offset, st, out);
            out.push(',');
            print_expr(limit, st, out);
        }
        _ => {}
    }
}

fn with(w: &ast::With, st: &Style, out: &mut String) {
    out.push_str(if w.recursive {
        "with recursive "
    } else {
        "with "
    });
    for (i, cte) in w.cte_tables.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&cte.alias.name.value);
        if !cte.alias.columns.is_empty() {
            let cols: Vec<String> = cte
                .alias
                .columns
                .iter()
                .map(|c| quoted(&c.name.value))
                .collect();
            out.push_str(&format!("({})", cols.join(",")));
        }
        out.push_str(" as (");
        query(&cte.query, st, out);
        out.push(')');
        if let Some(cycle) = cycle_columns(cte) {
            let cols: Vec<String> = cycle.iter().map(|c| quoted(c)).collect();
            out.push_str(&format!(" CYCLE {} RESTRICT ", cols.join(",")));
        }
    }
}

fn set_expr(body: &SetExpr, st: &Style, out: &mut String) {
    match body {
        SetExpr::Select(s) => select(s, st, out),
        SetExpr::Query(q) => {
            out.push('(');
            query(q, st, out);
            out.push(')');
        }
        SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } => {
            set_expr(left, st, out);
            out.push(' ');
            out.push_str(&op.to_string().to_ascii_lowercase());
            match set_quantifier {
                ast::SetQuantifier::All => out.push_str(" all "),
                _ => out.push(' '),
            }
            set_expr(right, st, out);
        }
        other => out.push_str(&other.to_string()),
    }
}

fn select(s: &ast::Select, st: &Style, out: &mut String) {
    if let Some(n) = &st.select_numbers {
        n.set(n.get() + 1);
        out.push_str(&format!("/* select#{} */ ", n.get()));
    }
    out.push_str("select ");
    if matches!(s.distinct, Some(ast::Distinct::Distinct)) {
        out.push_str("distinct ");
    }
    for (i, item) in s.projection.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match item {
            ast::SelectItem::UnnamedExpr(e) => print_expr(e, st, out),
            ast::SelectItem::ExprWithAlias { expr, alias } => {
                print_expr(expr, st, out);
                out.push_str(" AS ");
                out.push_str(&quoted(&alias.value));
            }
            other => out.push_str(&other.to_string()),
        }
    }
    if !s.from.is_empty() {
        out.push_str(" from ");
        for (i, t) in s.from.iter().enumerate() {
            if i > 0 {
                out.push_str(" join ");
            }
            table_with_joins(t, st, out);
        }
    } else if s.selection.is_some() {
        out.push_str(" from DUAL ");
    }
    if let Some(w) = &s.selection {
        out.push_str(" where ");
        print_expr(w, st, out);
    }
    if let ast::GroupByExpr::Expressions(g, _) = &s.group_by {
        if !g.is_empty() {
            out.push_str(" group by ");
            for (i, e) in g.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                print_expr(e, st, out);
            }
        }
    }
    if let Some(h) = &s.having {
        out.push_str(" having ");
        print_expr(h, st, out);
    }
}

/// `a [join b on(..)]...`: each join nests what came before in parentheses.
fn table_with_joins(t: &ast::TableWithJoins, st: &Style, out: &mut String) {
    let mut text = String::new();
    factor(&t.relation, st, &mut text);
    for j in &t.joins {
        let (kw, constraint) = match &j.join_operator {
            ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (" left join ", c),
            ast::JoinOperator::Join(c)
            | ast::JoinOperator::Inner(c)
            | ast::JoinOperator::CrossJoin(c) => (" join ", c),
            ast::JoinOperator::StraightJoin(c) => (" straight_join ", c),
            _ => {
                out.push_str(&t.to_string());
                return;
            }
        };
        let mut right = String::new();
        factor(&j.relation, st, &mut right);
        let mut on = String::new();
        match constraint {
            ast::JoinConstraint::On(e) => {
                on.push_str(" on(");
                print_expr(e, st, &mut on);
                on.push(')');
            }
            ast::JoinConstraint::None => {}
            _ => {
                out.push_str(&t.to_string());
                return;
            }
        }
        text = format!("({text}{kw}{right}{on})");
    }
    out.push_str(&text);
}

fn factor(f: &TableFactor, st: &Style, out: &mut String) {
    match f {
        TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } => {
            let parts: Vec<&str> = name
                .0
                .iter()
                .filter_map(|p| p.as_ident().map(|i| i.value.as_str()))
                .collect();
            let skip = usize::from(parts.len() == 2 && st.omit_db.as_deref() == Some(parts[0]));
            let names: Vec<String> = parts[skip..].iter().map(|p| quoted(p)).collect();
            out.push_str(&names.join("."));
            if let Some(a) = alias {
                if !a
                    .name
                    .value
                    .eq_ignore_ascii_case(parts.last().copied().unwrap_or_default())
                {
                    out.push(' ');
                    out.push_str(&quoted(&a.name.value));
                }
            }
        }
        TableFactor::Derived {
            subquery,
            alias: Some(a),
            lateral: false,
            ..
        } if a.columns.is_empty() => {
            out.push('(');
            query(subquery, st, out);
            out.push_str(") ");
            out.push_str(&quoted(&a.name.value));
        }
        TableFactor::NestedJoin {
            table_with_joins,
            alias: None,
        } => table_with_joins_nested(table_with_joins, st, out),
        other => out.push_str(&other.to_string()),
    }
}

/// A parenthesized join: printed as its join (which brings its own parentheses), a single table
/// in parentheses of its own.
fn table_with_joins_nested(t: &ast::TableWithJoins, st: &Style, out: &mut String) {
    if t.joins.is_empty() {
        out.push('(');
        factor(&t.relation, st, out);
        out.push(')');
    } else {
        table_with_joins(t, st, out);
    }
}

pub(super) fn order_items(items: &[ast::OrderByExpr], st: &Style, out: &mut String) {
    for (i, o) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        print_expr(&o.expr, st, out);
        if matches!(o.options.sort, Some(ast::OrderBySort::Desc)) {
            out.push_str(" desc");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(sql: &str, omit_db: Option<&str>) -> String {
        let stmts =
            sqlparser::parser::Parser::parse_sql(crate::expr::dialect::dialect(), sql).unwrap();
        let ast::Statement::Query(q) = &stmts[0] else {
            panic!("not a query: {sql}")
        };
        let st = Style {
            omit_db: omit_db.map(str::to_string),
            resolved: true,
            select_numbers: None,
        };
        query_text(q, &st)
    }

    #[test]
    fn queries_print_as_mariadb_prints_them() {
        // Each pair as MariaDB 10.11 shows it (VIEW_DEFINITION, then SHOW CREATE VIEW).
        for (stored, shown) in [
            (
                "select `test`.`t1`.`a` AS `a` from ((`test`.`t1` left join `test`.`t2` on(`test`.`t1`.`a` = `test`.`t2`.`a`)) join `test`.`t2` `x` on(`x`.`d` = `test`.`t1`.`c`))",
                "select `t1`.`a` AS `a` from ((`t1` left join `t2` on(`t1`.`a` = `t2`.`a`)) join `t2` `x` on(`x`.`d` = `t1`.`c`))",
            ),
            (
                "(select 1 AS `1`) union (select 2 AS `2`)",
                "(select 1 AS `1`) union (select 2 AS `2`)",
            ),
            (
                "select distinct `test`.`t1`.`a` AS `a` from `test`.`t1` where `test`.`t1`.`b` like 'x%' limit 1,3",
                "select distinct `t1`.`a` AS `a` from `t1` where `t1`.`b` like 'x%' limit 1,3",
            ),
            (
                "with recursive r(`n`) as (select 1 AS `n` union all select `r`.`n` + 1 AS `n+1` from `r` where `r`.`n` < 3)select `r`.`n` AS `n` from `r`",
                "with recursive r(`n`) as (select 1 AS `n` union all select `r`.`n` + 1 AS `n+1` from `r` where `r`.`n` < 3)select `r`.`n` AS `n` from `r`",
            ),
            (
                "select `test`.`t1`.`a` AS `a` from `test`.`t1` where !exists(select 1 from `test`.`t2` where `test`.`t2`.`a` = `test`.`t1`.`a` limit 1)",
                "select `t1`.`a` AS `a` from `t1` where !exists(select 1 from `t2` where `t2`.`a` = `t1`.`a` limit 1)",
            ),
            (
                "select `vb`.`a` AS `a`,count(0) AS `cnt` from `test`.`vb` group by `vb`.`a` having `cnt` > 1 order by count(0) desc",
                "select `vb`.`a` AS `a`,count(0) AS `cnt` from `vb` group by `vb`.`a` having `cnt` > 1 order by count(0) desc",
            ),
            (
                "select `test`.`t1`.`c` / count(0) over ( partition by `test`.`t1`.`c` order by `test`.`t1`.`pk` rows between 1 preceding  and 2 following ) AS `CNT` from `test`.`t1`",
                "select `t1`.`c` / count(0) over ( partition by `t1`.`c` order by `t1`.`pk` rows between 1 preceding  and 2 following ) AS `CNT` from `t1`",
            ),
        ] {
            assert_eq!(printed(stored, None), stored);
            assert_eq!(printed(stored, Some("test")), shown);
        }
    }

    #[test]
    fn a_written_join_prints_in_parentheses() {
        // Stored `a join b` (a comma list) reads back as a written join: SHOW CREATE VIEW
        // then shows it in parentheses, as MariaDB does.
        assert_eq!(
            printed(
                "select `x`.`a` AS `a` from `t1` `x` join `t3` `y` where 1",
                None
            ),
            "select `x`.`a` AS `a` from (`t1` `x` join `t3` `y`) where 1"
        );
        assert_eq!(
            printed(
                "select `x`.`a` AS `a` from `t1` `x`, `t3` `y` where 1",
                None
            ),
            "select `x`.`a` AS `a` from `t1` `x` join `t3` `y` where 1"
        );
        assert_eq!(
            printed("select 1 from (`t1` join `t2`)", None),
            "select 1 from (`t1` join `t2`)"
        );
        assert_eq!(
            printed("select `t`.`a` from t join u on t.a = u.a", None),
            "select `t`.`a` from (`t` join `u` on(`t`.`a` = `u`.`a`))"
        );
    }
}
