//! Prepared statements in SQL, as MariaDB has them: `PREPARE name FROM 'text' | @var | expr`,
//! `EXECUTE name [USING expr, ...]`, `EXECUTE IMMEDIATE 'text' [USING ...]` and `{DEALLOCATE |
//! DROP} PREPARE name`. They are the binary protocol's prepared statements (mod.rs
//! `prepare_text`, `Session::run`) kept under a name instead of a number.
//!
//! Invariants:
//! * Names are per session and case-insensitive; PREPARE of a known name drops the old
//!   statement first, so a PREPARE that fails leaves no statement of that name (as MariaDB).
//! * The statement text and the USING values are expressions evaluated once, as a `SELECT` of
//!   them would be; a text that is NULL is 1064.
//! * 1243 for an unknown name, 1210 when USING gives another number of values than the
//!   statement has `?`, 1295 for a PREPARE / EXECUTE / DEALLOCATE inside a prepared statement.

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::exec::query;
use crate::parser::statement::Statement;
use crate::parser::tokens::{expect_end, syntax, Cursor, Lexer, Tok};
use crate::result::{Output, RowSink};
use crate::types::value::Value;

use super::{Run, Session};

/// One statement of this grammar.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// `PREPARE name FROM <expr>`: the expression's text.
    Prepare { name: String, text: String },
    /// `EXECUTE name [USING a, b]`: the USING list's text, if any.
    Execute { name: String, using: Option<String> },
    /// `EXECUTE IMMEDIATE <expr> [USING ...]`.
    Immediate { text: String, using: Option<String> },
    /// `DEALLOCATE PREPARE name` / `DROP PREPARE name`.
    Deallocate { name: String },
}

/// Whether the first keyword of `sql` is one of this grammar's.
fn starts_here(sql: &str) -> bool {
    match Lexer::new(sql).next() {
        Some((Tok::Word { upper, quoted, .. }, _)) if !quoted => {
            matches!(
                upper.as_str(),
                "PREPARE" | "EXECUTE" | "DEALLOCATE" | "DROP"
            )
        }
        _ => false,
    }
}

/// The command `sql` is, if it is one of this grammar (`None`: another statement).
pub fn parse(sql: &str) -> Option<DbResult<Command>> {
    if !starts_here(sql) {
        return None;
    }
    let mut c = Cursor::new(sql);
    if c.kw("PREPARE") {
        return Some(prepare(&mut c));
    }
    if c.kws(&["DEALLOCATE", "PREPARE"]) || c.kws(&["DROP", "PREPARE"]) {
        return Some(name(&mut c).and_then(|name| {
            expect_end(&c)?;
            Ok(Command::Deallocate { name })
        }));
    }
    if c.kw("EXECUTE") {
        return Some(execute(&mut c));
    }
    None
}

fn name(c: &mut Cursor<'_>) -> DbResult<String> {
    match c.peek() {
        Some(Tok::Word { .. }) => c.name().ok_or_else(|| syntax(c)),
        _ => Err(syntax(c)),
    }
}

fn prepare(c: &mut Cursor<'_>) -> DbResult<Command> {
    let name = name(c)?;
    if !c.kw("FROM") || c.at_end() {
        return Err(syntax(c));
    }
    Ok(Command::Prepare {
        name,
        text: c.rest().to_string(),
    })
}

fn execute(c: &mut Cursor<'_>) -> DbResult<Command> {
    let save = c.pos;
    // `EXECUTE immediate` alone runs a statement named so.
    if c.kw("IMMEDIATE") && !c.at_end() && c.peek_kw() != Some("USING") {
        let start = c.offset();
        let end = using_at(c);
        let text = c.src[start..end].trim().to_string();
        if text.is_empty() {
            return Err(syntax(c));
        }
        return Ok(Command::Immediate {
            text,
            using: using_list(c)?,
        });
    }
    c.pos = save;
    let name = name(c)?;
    let using = using_list(c)?;
    Ok(Command::Execute { name, using })
}

/// Moves to a top-level USING (or the end); returns its byte offset.
fn using_at(c: &mut Cursor<'_>) -> usize {
    let mut depth = 0i32;
    while let Some(t) = c.peek() {
        match t {
            Tok::Sym('(') => depth += 1,
            Tok::Sym(')') => depth -= 1,
            Tok::Word { upper, quoted, .. } if depth == 0 && !quoted && upper == "USING" => break,
            _ => {}
        }
        c.pos += 1;
    }
    c.offset()
}

fn using_list(c: &mut Cursor<'_>) -> DbResult<Option<String>> {
    if c.at_end() {
        return Ok(None);
    }
    if !c.kw("USING") || c.at_end() {
        return Err(syntax(c));
    }
    Ok(Some(c.rest().to_string()))
}

/// 1295 for a statement of this grammar given to PREPARE.
fn check_preparable(text: &str) -> DbResult<()> {
    if parse(text).is_some() {
        return Err(DbError::new(
            ErrorCode::UnsupportedPs,
            "This command is not supported in the prepared statement protocol yet",
        ));
    }
    Ok(())
}

fn unknown(name: &str, to: &str) -> DbError {
    DbError::new(
        ErrorCode::UnknownStmtHandler,
        format!("Unknown prepared statement handler ({name}) given to {to}"),
    )
}

impl Session {
    /// Runs a command of this grammar; `sink` gets the rows of an executed query.
    pub(super) fn sql_prepared(
        &mut self,
        cmd: Command,
        input: Option<&mut dyn std::io::Read>,
        sink: Option<&mut dyn RowSink>,
    ) -> DbResult<Output> {
        match cmd {
            Command::Prepare { name, text } => {
                self.warnings.clear();
                let key = name.to_lowercase();
                self.named.remove(&key);
                let text = self.statement_text(&text)?;
                check_preparable(&text)?;
                let (p, _) = self.prepare_text(&text)?;
                self.named.insert(key, p);
                Ok(Output::Done {
                    affected: 0,
                    last_insert_id: 0,
                    info: "Statement prepared".into(),
                })
            }
            Command::Deallocate { name } => {
                self.warnings.clear();
                match self.named.remove(&name.to_lowercase()) {
                    Some(_) => Ok(Output::done(0)),
                    None => Err(unknown(&name, "DEALLOCATE PREPARE")),
                }
            }
            Command::Execute { name, using } => {
                let params = self.using_values(using.as_deref())?;
                let Some(p) = self.named.get(&name.to_lowercase()) else {
                    return Err(unknown(&name, "EXECUTE"));
                };
                let call = Call::of(p);
                self.run_named(call, &params, input, sink)
            }
            Command::Immediate { text, using } => {
                let text = self.statement_text(&text)?;
                check_preparable(&text)?;
                let params = self.using_values(using.as_deref())?;
                let (p, _) = self.prepare_text(&text)?;
                self.run_named(Call::of(&p), &params, input, sink)
            }
        }
    }

    /// Runs a prepared statement with `params` (1210 unless there is one per placeholder).
    fn run_named(
        &mut self,
        call: Call,
        params: &[Value],
        input: Option<&mut dyn std::io::Read>,
        sink: Option<&mut dyn RowSink>,
    ) -> DbResult<Output> {
        if call.want != params.len() {
            return Err(DbError::new(
                ErrorCode::WrongArguments,
                "Incorrect arguments to EXECUTE",
            ));
        }
        let run = Run {
            sql: &call.sql,
            nesting: call.nesting,
            reads_diagnostics: call.reads_diagnostics,
            stmt: call.stmt,
        };
        self.run(run, params, input, sink)
    }

    /// The values of a comma-separated list of expressions, as `SELECT list` gives them.
    fn select_values(&mut self, list: &str) -> DbResult<Vec<Value>> {
        let sql = format!("SELECT {list}");
        let Statement::Sql(stmt) = crate::parser::parse_statement(&sql)? else {
            return Err(DbError::syntax(list));
        };
        let sqlparser::ast::Statement::Query(q) = &*stmt else {
            return Err(DbError::syntax(list));
        };
        self.params.clear();
        self.cur_sql = sql.clone();
        match query::run_query(&mut self.cx, q)? {
            Output::Rows { mut rows, .. } if rows.len() == 1 => Ok(rows.remove(0)),
            _ => Err(DbError::syntax(list)),
        }
    }

    /// The text of the statement PREPARE's expression gives.
    fn statement_text(&mut self, expr: &str) -> DbResult<String> {
        let v = self.select_values(expr)?;
        match v.as_slice() {
            [v] => crate::expr::eval::text_of(v).ok_or_else(|| DbError::syntax("NULL")),
            _ => Err(DbError::new(
                ErrorCode::OperandColumns,
                "Operand should contain 1 column(s)",
            )),
        }
    }

    fn using_values(&mut self, using: Option<&str>) -> DbResult<Vec<Value>> {
        match using {
            None => Ok(vec![]),
            Some(list) => self.select_values(list),
        }
    }
}

/// What running a prepared statement needs of it, taken out of the session's map.
struct Call {
    sql: String,
    stmt: super::RunStatement,
    nesting: usize,
    reads_diagnostics: bool,
    /// Its placeholders.
    want: usize,
}

impl Call {
    fn of(p: &super::Prepared) -> Call {
        let (sql, stmt) = p.for_run();
        Call {
            sql,
            stmt,
            nesting: p.parsed.nesting,
            reads_diagnostics: p.reads_diagnostics,
            want: p.params,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_reads_names_texts_and_using_lists() {
        assert_eq!(parse("SELECT 1"), None);
        assert_eq!(parse("DROP TABLE t"), None);
        assert_eq!(
            parse("PREPARE s FROM 'SELECT ?'"),
            Some(Ok(Command::Prepare {
                name: "s".into(),
                text: "'SELECT ?'".into()
            }))
        );
        assert_eq!(
            parse("execute S using @a, 1 + 2"),
            Some(Ok(Command::Execute {
                name: "S".into(),
                using: Some("@a, 1 + 2".into())
            }))
        );
        assert_eq!(
            parse("EXECUTE IMMEDIATE CONCAT('SELECT ', ?) USING 5"),
            Some(Ok(Command::Immediate {
                text: "CONCAT('SELECT ', ?)".into(),
                using: Some("5".into())
            }))
        );
        assert_eq!(
            parse("DROP PREPARE s"),
            Some(Ok(Command::Deallocate { name: "s".into() }))
        );
        assert!(matches!(parse("DEALLOCATE PREPARE"), Some(Err(_))));
        assert!(matches!(parse("PREPARE s"), Some(Err(_))));
        assert!(matches!(parse("EXECUTE s junk"), Some(Err(_))));
    }
}
