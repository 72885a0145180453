//! The grammar of the view statements (design.md "Views"):
//!
//! ```text
//! CREATE [OR REPLACE] [ALGORITHM = {UNDEFINED | MERGE | TEMPTABLE}] [DEFINER = user]
//!     [SQL SECURITY {DEFINER | INVOKER}] VIEW [IF NOT EXISTS] [db.]v [(col, ...)]
//!     AS select [WITH [CASCADED | LOCAL] CHECK OPTION]
//! ALTER [ALGORITHM = ...] [DEFINER = user] [SQL SECURITY ...] VIEW [db.]v [(col, ...)] AS select ...
//! DROP VIEW [IF EXISTS] [db.]v [, ...] [RESTRICT | CASCADE]
//! ```
//!
//! Invariants: the SELECT is read by sqlparser (one statement, a query, else 1064) and its text
//! is also kept exactly as written, which is what the catalog stores (VIEW1); `WITH ... CHECK
//! OPTION` is recognised only as the statement's last tokens.

use sqlparser::ast;

use crate::catalog::view_def::{CheckOption, ViewAlgorithm, ViewSecurity};
use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::Statement;
use crate::parser::tokens::{expect_end, lex, syntax, Cursor, Tok};

/// CREATE / ALTER VIEW as written.
#[derive(Debug, Clone)]
pub struct ViewStmt {
    pub name: Vec<String>,
    /// ALTER VIEW (the view must exist).
    pub alter: bool,
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub algorithm: Option<ViewAlgorithm>,
    /// DEFINER = user@host (`None`: not given, or CURRENT_USER).
    pub definer: Option<(String, String)>,
    pub security: Option<ViewSecurity>,
    pub columns: Vec<String>,
    /// The SELECT's text as written.
    pub select_text: String,
    pub query: Box<ast::Query>,
    pub check: CheckOption,
}

/// Whether `sql` is CREATE [OR REPLACE] or ALTER of a view: its first words, past any view
/// options, reach VIEW (`CREATE DEFINER = u TRIGGER ...` is not one).
pub fn is_view_statement(sql: &str) -> bool {
    let mut c = Cursor::new(sql);
    if !c.kw("CREATE") && !c.kw("ALTER") {
        return false;
    }
    c.kws(&["OR", "REPLACE"]);
    loop {
        if c.kw("ALGORITHM") {
            c.sym('=');
            c.name();
        } else if c.kw("DEFINER") {
            c.sym('=');
            if definer_clause(&mut c).is_err() {
                return false;
            }
        } else if c.kws(&["SQL", "SECURITY"]) {
            c.name();
        } else {
            return c.kw("VIEW");
        }
    }
}

/// After `CREATE [OR REPLACE]` or `ALTER`, at the view options.
pub fn parse_create(c: &mut Cursor<'_>, or_replace: bool, alter: bool) -> DbResult<Statement> {
    let mut algorithm = None;
    let mut definer = None;
    let mut security = None;
    loop {
        if c.kw("ALGORITHM") {
            c.sym('=');
            let name = c.name().ok_or_else(|| syntax(c))?;
            algorithm = Some(ViewAlgorithm::from_name(&name).ok_or_else(|| syntax(c))?);
        } else if c.kw("DEFINER") {
            c.sym('=');
            definer = definer_clause(c)?;
        } else if c.kws(&["SQL", "SECURITY"]) {
            let name = c.name().ok_or_else(|| syntax(c))?;
            security = Some(ViewSecurity::from_name(&name).ok_or_else(|| syntax(c))?);
        } else {
            break;
        }
    }
    if !c.kw("VIEW") {
        return Err(syntax(c));
    }
    let if_not_exists = !alter && c.kws(&["IF", "NOT", "EXISTS"]);
    if if_not_exists && or_replace {
        return Err(DbError::new(
            crate::error::code::ErrorCode::WrongUsage,
            "Incorrect usage of OR REPLACE and IF NOT EXISTS",
        ));
    }
    let name = c.qualified().ok_or_else(|| syntax(c))?;
    let columns = column_list(c)?;
    if !c.kw("AS") {
        return Err(syntax(c));
    }
    let (select_text, check) = split_check_option(c.rest());
    let query = parse_select(select_text)?;
    Ok(Statement::CreateView(Box::new(ViewStmt {
        name,
        alter,
        or_replace,
        if_not_exists,
        algorithm,
        definer,
        security,
        columns,
        select_text: select_text.to_string(),
        query,
        check,
    })))
}

/// `user@host`, `CURRENT_USER` or `CURRENT_USER()` (None).
fn definer_clause(c: &mut Cursor<'_>) -> DbResult<Option<(String, String)>> {
    if c.kw("CURRENT_USER") {
        if c.sym('(') && !c.sym(')') {
            return Err(syntax(c));
        }
        return Ok(None);
    }
    Ok(Some(c.user().ok_or_else(|| syntax(c))?))
}

/// `(col, ...)` after the view's name, if there is one.
fn column_list(c: &mut Cursor<'_>) -> DbResult<Vec<String>> {
    let mut cols = Vec::new();
    if !c.sym('(') {
        return Ok(cols);
    }
    loop {
        cols.push(c.name().ok_or_else(|| syntax(c))?);
        if c.sym(')') {
            return Ok(cols);
        }
        if !c.sym(',') {
            return Err(syntax(c));
        }
    }
}

/// The SELECT's text without a trailing `WITH [CASCADED | LOCAL] CHECK OPTION`, and the option.
fn split_check_option(text: &str) -> (&str, CheckOption) {
    let toks = lex(text);
    let kw = |i: usize| match toks.get(i) {
        Some((
            Tok::Word {
                upper,
                quoted: false,
                ..
            },
            _,
        )) => upper.as_str(),
        _ => "",
    };
    let n = toks.len();
    if n < 3 || kw(n - 2) != "CHECK" || kw(n - 1) != "OPTION" {
        return (text.trim_end(), CheckOption::None);
    }
    let (with_at, check) = match kw(n - 3) {
        "WITH" => (n - 3, CheckOption::Cascaded),
        "CASCADED" if n >= 4 && kw(n - 4) == "WITH" => (n - 4, CheckOption::Cascaded),
        "LOCAL" if n >= 4 && kw(n - 4) == "WITH" => (n - 4, CheckOption::Local),
        _ => return (text.trim_end(), CheckOption::None),
    };
    (text[..toks[with_at].1].trim_end(), check)
}

/// A view's SELECT as sqlparser reads it: exactly one query (1064 otherwise).
pub fn parse_select(text: &str) -> DbResult<Box<ast::Query>> {
    let mut stmts = crate::parser::parse(text)?;
    match (stmts.len(), stmts.pop()) {
        (1, Some(ast::Statement::Query(q))) => Ok(q),
        _ => Err(DbError::syntax(text.chars().take(80).collect::<String>())),
    }
}

/// The body's one SELECT if it has the shape of an updatable view (exec/dml/view_target.rs):
/// one SELECT over one table or view, without DISTINCT, GROUP BY, HAVING, LIMIT, window or WITH.
pub fn simple_select(q: &ast::Query) -> Option<&ast::Select> {
    if q.with.is_some() || q.limit_clause.is_some() || q.fetch.is_some() || !q.locks.is_empty() {
        return None;
    }
    let ast::SetExpr::Select(s) = &*q.body else {
        return None;
    };
    let grouped = match &s.group_by {
        ast::GroupByExpr::Expressions(e, m) => !e.is_empty() || !m.is_empty(),
        ast::GroupByExpr::All(_) => true,
    };
    let plain = s.distinct.is_none()
        && !grouped
        && s.having.is_none()
        && s.named_window.is_empty()
        && s.qualify.is_none()
        && s.top.is_none()
        && s.into.is_none()
        && s.from.len() == 1
        && s.from[0].joins.is_empty();
    plain.then_some(&**s)
}

/// Whether a view whose body is `q` can be written through (information_schema.VIEWS'
/// IS_UPDATABLE): [`simple_select`] with a select list of plain column names or `*`.
pub fn is_updatable(q: &ast::Query) -> bool {
    simple_select(q).is_some_and(|s| {
        s.selection.as_ref().is_none_or(|w| !has_subquery(w))
            && s.projection.iter().all(|item| match item {
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                    matches!(
                        e,
                        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
                    )
                }
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => true,
                _ => false,
            })
    })
}

/// Whether `e` holds a subquery (a view whose WHERE has one is not written through).
pub fn has_subquery(e: &ast::Expr) -> bool {
    lex(&e.to_string())
        .iter()
        .any(|(t, _)| matches!(t, Tok::Word { upper, quoted: false, .. } if upper == "SELECT"))
}

/// After `DROP VIEW`.
pub fn parse_drop(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let names = super::admin::table_names(c)?;
    if !c.kw("RESTRICT") {
        c.kw("CASCADE");
    }
    expect_end(c)?;
    Ok(Statement::DropViews { names, if_exists })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_statement;

    fn view(sql: &str) -> ViewStmt {
        match parse_statement(sql).unwrap() {
            Statement::CreateView(v) => *v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn create_view_reads_options_columns_and_check_option() {
        let v = view(
            "CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER \
             VIEW d.v (x, `y z`) AS select a, b from t where a > 1 WITH LOCAL CHECK OPTION",
        );
        assert_eq!(v.name, vec!["d".to_string(), "v".to_string()]);
        assert!(v.or_replace && !v.alter && !v.if_not_exists);
        assert_eq!(v.algorithm, Some(ViewAlgorithm::Merge));
        assert_eq!(v.definer, Some(("root".into(), "localhost".into())));
        assert_eq!(v.security, Some(ViewSecurity::Invoker));
        assert_eq!(v.columns, vec!["x".to_string(), "y z".to_string()]);
        assert_eq!(v.select_text, "select a, b from t where a > 1");
        assert_eq!(v.check, CheckOption::Local);
        let plain = view("create view if not exists v as select 1 with check option");
        assert!(plain.if_not_exists);
        assert_eq!(plain.check, CheckOption::Cascaded);
        assert_eq!(plain.select_text, "select 1");
        let alter = view("ALTER DEFINER = CURRENT_USER() VIEW v AS SELECT 2");
        assert!(alter.alter && alter.definer.is_none());
    }

    #[test]
    fn dumps_view_form_parses_and_bad_forms_are_refused() {
        let sql = crate::parser::read(
            "/*!50001 CREATE ALGORITHM=UNDEFINED */\n/*!50013 DEFINER=`root`@`localhost` \
             SQL SECURITY DEFINER */\n/*!50001 VIEW `v1` AS select `t`.`a` AS `a` from `t` */",
        )
        .text
        .into_owned();
        let v = view(&sql);
        assert_eq!(v.name, vec!["v1".to_string()]);
        assert_eq!(v.select_text, "select `t`.`a` AS `a` from `t`");
        assert!(parse_statement("CREATE VIEW v AS INSERT INTO t VALUES (1)").is_err());
        assert!(parse_statement("CREATE VIEW v").is_err());
        assert!(parse_statement("CREATE OR REPLACE VIEW IF NOT EXISTS v AS SELECT 1").is_err());
        match parse_statement("DROP VIEW IF EXISTS a, d.b CASCADE").unwrap() {
            Statement::DropViews { names, if_exists } => {
                assert!(if_exists);
                assert_eq!(names.len(), 2);
            }
            other => panic!("{other:?}"),
        }
    }
}
