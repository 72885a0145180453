//! The grammar of roll-ups, a Betula extension (executed by ddl/rollup.rs; docs/time-series.md):
//!
//! ```text
//! CREATE ROLLUP [IF NOT EXISTS] name ON base
//!     GROUP BY item [, item ...]
//!     AGGREGATE agg [, agg ...]
//! item = column [AS alias] | TIME_BUCKET(width, column) [AS alias]
//! agg  = function(* | column) [AS alias]
//! DROP ROLLUP [IF EXISTS] name
//! ```
//!
//! Invariants: the width is a literal (a string or a positive integer); a group item that is
//! another expression is refused here (1235); the aggregate's function is kept as written and
//! checked by the DDL (COUNT, SUM, MIN, MAX; 1235 for others); each statement must end after its
//! grammar.

use crate::error::db_error::{DbError, DbResult};
use crate::parser::statement::Statement;
use crate::parser::tokens::{expect_end, syntax, Cursor, Tok};
use crate::types::value::Value;

/// One GROUP BY item of CREATE ROLLUP.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupItem {
    pub column: String,
    /// TIME_BUCKET's width literal.
    pub width: Option<Value>,
    pub alias: Option<String>,
}

/// One aggregate of CREATE ROLLUP: the function (upper case) and its argument (`None`: `*`).
#[derive(Debug, Clone, PartialEq)]
pub struct AggItem {
    pub func: String,
    pub column: Option<String>,
    pub alias: Option<String>,
}

/// CREATE ROLLUP.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateRollup {
    pub name: Vec<String>,
    pub if_not_exists: bool,
    pub base: Vec<String>,
    pub groups: Vec<GroupItem>,
    pub aggs: Vec<AggItem>,
}

/// After `CREATE ROLLUP`.
pub fn parse_create(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let if_not_exists = c.kws(&["IF", "NOT", "EXISTS"]);
    let name = c.qualified().ok_or_else(|| syntax(c))?;
    if !c.kw("ON") {
        return Err(syntax(c));
    }
    let base = c.qualified().ok_or_else(|| syntax(c))?;
    if !c.kws(&["GROUP", "BY"]) {
        return Err(syntax(c));
    }
    let mut groups = Vec::new();
    loop {
        groups.push(group_item(c)?);
        if !c.sym(',') {
            break;
        }
    }
    if !c.kw("AGGREGATE") {
        return Err(syntax(c));
    }
    let mut aggs = Vec::new();
    loop {
        aggs.push(agg_item(c)?);
        if !c.sym(',') {
            break;
        }
    }
    expect_end(c)?;
    Ok(Statement::CreateRollup(Box::new(CreateRollup {
        name,
        if_not_exists,
        base,
        groups,
        aggs,
    })))
}

/// After `DROP ROLLUP`.
pub fn parse_drop(c: &mut Cursor<'_>) -> DbResult<Statement> {
    let if_exists = c.kws(&["IF", "EXISTS"]);
    let name = c.qualified().ok_or_else(|| syntax(c))?;
    expect_end(c)?;
    Ok(Statement::DropRollup { name, if_exists })
}

/// `[AS] alias` if one follows.
fn alias(c: &mut Cursor<'_>) -> DbResult<Option<String>> {
    if c.kw("AS") {
        return Ok(Some(c.name().ok_or_else(|| syntax(c))?));
    }
    Ok(None)
}

fn word(c: &mut Cursor<'_>) -> DbResult<String> {
    match c.peek() {
        Some(Tok::Word { .. }) => c.name().ok_or_else(|| syntax(c)),
        _ => Err(syntax(c)),
    }
}

fn group_item(c: &mut Cursor<'_>) -> DbResult<GroupItem> {
    let first = word(c)?;
    if !c.sym('(') {
        return Ok(GroupItem {
            column: first,
            width: None,
            alias: alias(c)?,
        });
    }
    if !first.eq_ignore_ascii_case("TIME_BUCKET") {
        return Err(DbError::unsupported(format!(
            "{} in a roll-up's GROUP BY (a column or TIME_BUCKET(width, column))",
            first.to_ascii_uppercase()
        )));
    }
    let width =
        match c.peek().cloned() {
            Some(Tok::Str(s)) => Value::Text(s),
            Some(Tok::Num(n)) => Value::Int(n.parse().map_err(|_| syntax(c))?),
            _ => return Err(DbError::unsupported(
                "a TIME_BUCKET width in a roll-up that is not a literal ('n unit' or an integer)",
            )),
        };
    c.pos += 1;
    if !c.sym(',') {
        return Err(syntax(c));
    }
    let column = word(c)?;
    if !c.sym(')') {
        return Err(DbError::unsupported(
            "TIME_BUCKET in a roll-up with an origin or an expression (width, column)",
        ));
    }
    Ok(GroupItem {
        column,
        width: Some(width),
        alias: alias(c)?,
    })
}

fn agg_item(c: &mut Cursor<'_>) -> DbResult<AggItem> {
    let func = word(c)?.to_ascii_uppercase();
    if !c.sym('(') {
        return Err(syntax(c));
    }
    let column = if c.sym('*') { None } else { Some(word(c)?) };
    if !c.sym(')') {
        return Err(DbError::unsupported(format!(
            "{func} of an expression in a roll-up (a column)"
        )));
    }
    Ok(AggItem {
        func,
        column,
        alias: alias(c)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;
    use crate::parser::parse_statement;

    fn create(sql: &str) -> CreateRollup {
        match parse_statement(sql).unwrap() {
            Statement::CreateRollup(r) => *r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn create_rollup_reads_groups_and_aggregates() {
        let r = create(
            "CREATE ROLLUP IF NOT EXISTS db.r ON sensordata GROUP BY sensor_id, \
             TIME_BUCKET('1 minute', ts) AS minute AGGREGATE COUNT(*), SUM(v) AS total, \
             min(v), MAX(`v`)",
        );
        assert!(r.if_not_exists);
        assert_eq!(r.name, vec!["db".to_string(), "r".to_string()]);
        assert_eq!(r.base, vec!["sensordata".to_string()]);
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.groups[0].column, "sensor_id");
        assert_eq!(r.groups[1].width, Some(Value::Text("1 minute".into())));
        assert_eq!(r.groups[1].alias.as_deref(), Some("minute"));
        let funcs: Vec<&str> = r.aggs.iter().map(|a| a.func.as_str()).collect();
        assert_eq!(funcs, ["COUNT", "SUM", "MIN", "MAX"]);
        assert_eq!(r.aggs[0].column, None);
        assert_eq!(r.aggs[1].alias.as_deref(), Some("total"));
        assert_eq!(r.aggs[3].column.as_deref(), Some("v"));
        let i = create("CREATE ROLLUP r ON t GROUP BY TIME_BUCKET(60, n) AGGREGATE COUNT(x)");
        assert_eq!(i.groups[0].width, Some(Value::Int(60)));
    }

    #[test]
    fn rollup_statements_refuse_what_they_do_not_read() {
        let code = |sql: &str| parse_statement(sql).unwrap_err().code;
        let (syntax, unsupported) = (ErrorCode::ParseError, ErrorCode::NotSupportedYet);
        assert_eq!(code("CREATE ROLLUP r ON t GROUP BY a AGGREGATE"), syntax);
        assert_eq!(code("CREATE ROLLUP r ON t AGGREGATE COUNT(*)"), syntax);
        assert_eq!(
            code("CREATE ROLLUP r ON t GROUP BY a AGGREGATE COUNT(*) x"),
            syntax
        );
        assert_eq!(
            code("CREATE ROLLUP r ON t GROUP BY YEAR(d) AGGREGATE COUNT(*)"),
            unsupported
        );
        assert_eq!(
            code("CREATE ROLLUP r ON t GROUP BY a AGGREGATE SUM(v + 1)"),
            unsupported
        );
        assert_eq!(
            code("CREATE ROLLUP r ON t GROUP BY TIME_BUCKET(w, ts) AGGREGATE COUNT(*)"),
            unsupported
        );
        match parse_statement("DROP ROLLUP IF EXISTS r").unwrap() {
            Statement::DropRollup { name, if_exists } => {
                assert!(if_exists);
                assert_eq!(name, vec!["r".to_string()]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(code("DROP ROLLUP r extra"), syntax);
    }
}
