//! The SQL front end: statement text to one [`Statement`].
//!
//! Per statement, on the success path:
//! 1. [`read`] makes one pass over the text (split.rs's scanner) for the expression nesting
//!    bound, executable comments (`/*!`, `/*M!`: only then is the text rewritten, versioned.rs)
//!    and references to `@@warning_count` / `@@error_count`.
//! 2. [`parse_statement`] reads the first keyword (and at most two more) with the lazy lexer of
//!    tokens.rs, which skips whitespace and comments and stops there, and hands the text to
//!    exactly one grammar:
//!
//! | first keyword(s) | grammar | statement |
//! | --- | --- | --- |
//! | INSERT, REPLACE | fast_insert.rs (literal-only), else sqlparser | `Insert`, `Sql` |
//! | UPDATE, DELETE | multi_table.rs (several tables, modifiers), else sqlparser | `MultiTable`, `Sql` |
//! | LOAD DATA, LOAD XML | load.rs | `Load` |
//! | HANDLER | handler.rs | `Handler` |
//! | DO | do_statement.rs (the expressions: sqlparser) | `Do` |
//! | SHOW; DESCRIBE, DESC, EXPLAIN table | show.rs | `Show` |
//! | CREATE {DATABASE, SCHEMA, [UNIQUE] [CLUSTERING] INDEX, USER, [OR REPLACE] SERVER, ROLLUP}, CREATE [OR REPLACE] [view options] VIEW, DROP, TRUNCATE, RENAME, ALTER | ddl.rs (alter.rs, users.rs, servers.rs, rollup.rs, views.rs) | `CreateDatabase`, `DropTables`, `AlterTable`, ... |
//! | SET PASSWORD, GRANT, REVOKE | users.rs | `SetPassword`, `Grant` |
//! | SET CHARACTER SET | here | `SetCharacterSet` |
//! | USE, BEGIN, START, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, XA (refused), KILL, FLUSH, PURGE, RESET, CHECKPOINT, LOCK, UNLOCK, ANALYZE, OPTIMIZE, CHECK, CHECKSUM, CACHE, LOAD INDEX | admin.rs | `Use`, `Begin`, ... |
//! | CREATE [OR REPLACE] [DEFINER = u] {FUNCTION, PROCEDURE}, CALL | routines.rs (the body: routine_body.rs) | `CreateRoutine`, `DropRoutine`, `Call` |
//! | CREATE [OR REPLACE] [TEMPORARY] TABLE | clustering.rs (clustering keys rewritten), partition.rs (PARTITION BY, RETENTION), the rest sqlparser | `CreateTableWith`, `Sql` |
//! | anything else (SELECT, WITH, SET, EXPLAIN SELECT, ...) | sqlparser | `Sql` |
//!
//! Invariants: a grammar gets the whole text and nothing else parses it, so a statement is
//! lexed once, except: the first words read to choose the grammar; an INSERT the fast path
//! declines (then read by sqlparser); UPDATE / DELETE up to SET or past DELETE FROM's name list
//! (multi_table.rs decides from those tokens), and multi-table ones whose pieces sqlparser reads
//! after the split; the expressions inside Betula's grammars that sqlparser reads (SHOW ...
//! WHERE, HANDLER's key values and tail, LOAD DATA's SET); and a statement sqlparser refuses,
//! which [`parse`] retries once with MariaDB syntax sqlparser does not accept rewritten
//! (index_syntax.rs; `REAL(M,D)`, ZEROFILL, `NUMERIC UNSIGNED` in tokens.rs; quoted user
//! variable names, LOCK IN SHARE MODE and a GROUP_CONCAT's `LIMIT m, n` in mariadb_forms.rs):
//! mostly DDL from dumps; `REGEXP NULL` (mariadb_forms.rs) and the string escapes `\a`, `\f`
//! (escapes.rs) are rewritten before the first try, a WITH element's `CYCLE ... RESTRICT`
//! is blanked out before it and written into the parse after (cycle_clause.rs), and calls of
//! PERCENTILE_CONT, PERCENTILE_DISC and MEDIAN outside MariaDB's grammar are refused
//! (inverse_distribution.rs), as are calls of the window-only functions (ROW_NUMBER, RANK,
//! LEAD, ...) without OVER or with the wrong number of arguments (window_call.rs) and WINDOW
//! as a table alias (window_alias.rs). Parsing
//! reads no session state: a [`Statement`] depends on its text only.

pub mod admin;
pub mod alter;
pub mod binlog;
pub mod clustering;
pub mod cycle_clause;
pub mod ddl;
pub mod do_statement;
pub mod escapes;
pub mod fast_insert;
pub mod handler;
pub mod index_syntax;
pub mod inverse_distribution;
pub mod load;
pub mod locks;
pub mod mariadb_forms;
pub mod multi_table;
pub mod num_text;
pub mod partition;
pub mod replica;
pub mod rollup;
pub mod routine_body;
pub mod routines;
pub mod servers;
pub mod show;
pub mod split;
pub mod statement;
pub mod tokens;
pub mod users;
pub mod versioned;
pub mod views;
pub mod window_alias;
pub mod window_call;

use std::borrow::Cow;

use crate::expr::dialect::dialect;
use sqlparser::ast;
use sqlparser::parser::Parser;

use crate::catalog::partition::TableExtras;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
pub use statement::Statement;
use tokens::{Cursor, Lexer, Tok};

/// sqlparser's statements of `sql`, retried with MariaDB syntax rewritten when it refuses them
/// (also used for the catalog's stored CREATE TABLE text and the pieces Betula's grammars hand
/// to sqlparser).
pub fn parse(sql: &str) -> DbResult<Vec<ast::Statement>> {
    if let Some(at) = mariadb_forms::json_arrow(sql) {
        return Err(DbError::syntax_near(sql, at));
    }
    if let Some(at) = inverse_distribution::syntax_error(sql) {
        return Err(DbError::syntax_near(sql, at));
    }
    if let Some(at) = window_call::syntax_error(sql) {
        return Err(DbError::syntax_near(sql, at));
    }
    if let Some(at) = window_alias::syntax_error(sql) {
        return Err(DbError::syntax_near(sql, at));
    }
    let escaped = escapes::with_mariadb_escapes(sql);
    let sql = escaped.as_deref().unwrap_or(sql);
    let regexp_null = mariadb_forms::with_regexp_null_as_pattern(sql);
    let sql = regexp_null.as_deref().unwrap_or(sql);
    // CYCLE ... RESTRICT after a WITH element: blanked out, read back into the parse
    if let Some((text, clauses)) = cycle_clause::take(sql) {
        let mut stmts = parse_without_cycle(&text)?;
        match stmts.as_mut_slice() {
            [one] => cycle_clause::attach(sql, one, &clauses)?,
            _ => return Err(DbError::unsupported("CYCLE ... RESTRICT here")),
        }
        return Ok(stmts);
    }
    parse_without_cycle(sql)
}

/// [`parse`] of a text whose CYCLE clauses are blanked out.
fn parse_without_cycle(sql: &str) -> DbResult<Vec<ast::Statement>> {
    match parse_sql(sql) {
        Ok(s) => Ok(s),
        // sqlparser rejects some MariaDB syntax: an index type before the column list or an index's
        // KEY_BLOCK_SIZE (index_syntax.rs), `REAL(M,D)` / `DOUBLE PRECISION(M,D)` (synonyms of
        // `DOUBLE(M,D)`), ZEROFILL and `NUMERIC UNSIGNED`, quoted user variable names and
        // LOCK IN SHARE MODE, a generated column's PERSISTENT, the
        // infix MOD, a GROUP_CONCAT's `LIMIT m, n`, the function INTERVAL(N, N1, ...), TRIM
        // without the characters to trim, SET's `:=`, a string literal as a window frame
        // bound, a frame's EXCLUDE clause (refused with 4022 once the rest parses, but for
        // EXCLUDE NO OTHERS) (mariadb_forms.rs); retry with them
        // rewritten.
        Err(e) => {
            let alt = index_syntax::rewrite(sql);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = tokens::with_double_for_real_digits(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = tokens::with_numeric_modifiers_as_types(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_quoted_user_vars(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_share_mode_as_for_share(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_persistent_as_stored(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_mod_as_percent(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_concat_limit_pair(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_interval_function(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_compound_interval_units(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_trim_of_spaces(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_set_assignments_as_eq(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let alt = mariadb_forms::with_string_frame_bounds(cur).or(alt);
            let cur = alt.as_deref().unwrap_or(sql);
            let (alt, excludes) = match mariadb_forms::without_frame_exclusion(cur) {
                Some((text, excludes)) => (Some(text), excludes),
                None => (alt, false),
            };
            match alt {
                Some(alt) => {
                    let stmts = parse_sql(&alt).map_err(|_| DbError::parse_error(sql, e))?;
                    if excludes {
                        return Err(DbError::new(
                            ErrorCode::FrameExclusionNotSupported,
                            "Frame exclusion is not supported yet",
                        ));
                    }
                    Ok(stmts)
                }
                None => Err(DbError::parse_error(sql, e)),
            }
        }
    }
}

/// Whether `sql` assigns a user variable in an expression (`@v := expr`): a `:=` outside
/// quotes and comments. (SET's `:=` counts too; its reads then see the same values.)
pub fn assigns_user_vars(sql: &str) -> bool {
    sql.contains(":=")
        && tokens::lex(sql)
            .windows(2)
            .any(|w| matches!(w, [(Tok::Sym(':'), at), (Tok::Sym('='), next)] if *next == at + 1))
}

/// How deeply sqlparser may recurse (its default is 50): about 40 nested subqueries or 128
/// nested parentheses, where MariaDB's own tests nest 32 subqueries. Deeper statements are 1064
/// ("statement nested too deeply"). A statement nesting more than the session's `DEEP` levels is
/// parsed on a large stack segment (session/mod.rs), so this depth cannot overflow a stack.
pub const RECURSION_LIMIT: usize = 128;

/// sqlparser's statements of `sql` (MySQL dialect, [`RECURSION_LIMIT`]).
fn parse_sql(sql: &str) -> Result<Vec<ast::Statement>, sqlparser::parser::ParserError> {
    Parser::new(dialect())
        .with_recursion_limit(RECURSION_LIMIT)
        .try_with_sql(sql)?
        .parse_statements()
}

/// The one statement of `sql` as sqlparser reads it (1065 if there is none).
fn sql_statement(sql: &str) -> DbResult<Statement> {
    let mut stmts = parse(sql)?;
    match stmts.len() {
        1 => Ok(Statement::Sql(Box::new(stmts.remove(0)))),
        0 => Err(DbError::new(ErrorCode::EmptyQuery, "Query was empty")),
        _ => Err(DbError::syntax(sql)),
    }
}

/// A statement's text as the session runs it, with what one pass over it found.
pub struct Source<'a> {
    /// The text, executable comments expanded.
    pub text: Cow<'a, str>,
    /// The expression nesting bound (split::nesting_cost) of `text`.
    pub nesting: usize,
    /// The statement reads the previous statement's diagnostics (SHOW WARNINGS / ERRORS,
    /// `@@warning_count`, `@@error_count`): they must be kept for it.
    pub reads_diagnostics: bool,
}

/// One pass over `sql` (a second one only when it holds executable comments, after expanding
/// them).
pub fn read(sql: &str) -> Source<'_> {
    let mut scan = split::prescan(sql);
    let text = if scan.versioned {
        let expanded = versioned::expand(sql);
        scan = split::prescan(&expanded);
        Cow::Owned(expanded)
    } else {
        Cow::Borrowed(sql)
    };
    let reads_diagnostics = scan.counters || {
        let mut words = Lexer::new(&text).map(|(t, _)| t);
        keyword(words.next()).as_deref() == Some("SHOW")
            && matches!(
                keyword(words.next()).as_deref(),
                Some("WARNINGS" | "ERRORS")
            )
    };
    Source {
        text,
        nesting: scan.nesting,
        reads_diagnostics,
    }
}

/// The grammar a statement goes to, from its first keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grammar {
    Sqlparser,
    Insert,
    UpdateDelete,
    Load,
    Handler,
    /// ANALYZE of a statement (MariaDB's `ANALYZE SELECT ...`), not ANALYZE TABLE.
    Analyze,
    /// `EXPLAIN PARTITIONS <query>`.
    ExplainPartitions,
    /// `EXPLAIN EXTENDED <query>`.
    ExplainExtended,
    /// `DO expr, ...` (do_statement.rs).
    Do,
    /// Betula's grammars over tokens.rs's Cursor (show, ddl, users, admin).
    Own,
    /// CREATE [OR REPLACE] [TEMPORARY] TABLE: partition.rs takes out PARTITION BY and
    /// RETENTION, sqlparser reads the rest.
    CreateTable,
}

/// The first keyword of a token (upper case), if it is an unquoted word.
fn keyword(t: Option<Tok>) -> Option<String> {
    match t? {
        Tok::Word {
            upper,
            quoted: false,
            ..
        } => Some(upper),
        _ => None,
    }
}

/// Keywords that start a statement of Betula's own grammars whatever follows.
const OWN: &[&str] = &[
    "SHOW",
    "USE",
    "BEGIN",
    "START",
    "COMMIT",
    "ROLLBACK",
    "DESCRIBE",
    "DESC",
    "DROP",
    "TRUNCATE",
    "RENAME",
    "ALTER",
    "GRANT",
    "REVOKE",
    "FLUSH",
    "KILL",
    "SHUTDOWN",
    "LOCK",
    "UNLOCK",
    "ANALYZE",
    "OPTIMIZE",
    "CHECK",
    "SAVEPOINT",
    "XA",
    "RELEASE",
    "CHECKPOINT",
    "CHECKSUM",
    "CACHE",
    "BACKUP",
    "CHANGE",
    "STOP",
    "PURGE",
    "RESET",
    "CALL",
];

fn grammar_of(sql: &str) -> Grammar {
    let mut toks = Lexer::new(sql).map(|(t, _)| t);
    let Some(first) = keyword(toks.next()) else {
        return Grammar::Sqlparser;
    };
    let mut next = || keyword(toks.next());
    match first.as_str() {
        "INSERT" | "REPLACE" => Grammar::Insert,
        "UPDATE" | "DELETE" => Grammar::UpdateDelete,
        "HANDLER" => Grammar::Handler,
        "DO" => Grammar::Do,
        "LOAD" => match next().as_deref() {
            Some("DATA" | "XML") => Grammar::Load,
            Some("INDEX") => Grammar::Own,
            _ => Grammar::Sqlparser,
        },
        "EXPLAIN" => match toks.next() {
            Some(Tok::Word {
                upper,
                quoted: false,
                ..
            }) if upper == "PARTITIONS" => Grammar::ExplainPartitions,
            Some(Tok::Word {
                upper,
                quoted: false,
                ..
            }) if upper == "EXTENDED" => Grammar::ExplainExtended,
            // EXPLAIN of a table is DESCRIBE
            Some(Tok::Word { upper, quoted, .. })
                if quoted
                    || !matches!(
                        upper.as_str(),
                        "SELECT"
                            | "FORMAT"
                            | "ANALYZE"
                            | "EXTENDED"
                            | "INSERT"
                            | "UPDATE"
                            | "DELETE"
                            | "REPLACE"
                            | "WITH"
                            | "PARTITIONS"
                    ) =>
            {
                Grammar::Own
            }
            _ => Grammar::Sqlparser,
        },
        "ANALYZE" => match toks.next() {
            Some(Tok::Word {
                upper,
                quoted: false,
                ..
            }) if matches!(
                upper.as_str(),
                "SELECT" | "WITH" | "FORMAT" | "INSERT" | "UPDATE" | "DELETE" | "REPLACE"
            ) =>
            {
                Grammar::Analyze
            }
            Some(Tok::Sym('(')) => Grammar::Analyze,
            _ => Grammar::Own,
        },
        "CREATE" if views::is_view_statement(sql) => Grammar::Own,
        "CREATE" if routines::is_routine_statement(sql) => Grammar::Own,
        "CREATE" => match next().as_deref() {
            Some("OR") => match (next().as_deref(), next().as_deref()) {
                (Some("REPLACE"), Some("SERVER")) => Grammar::Own,
                (Some("REPLACE"), Some("TABLE" | "TEMPORARY")) => Grammar::CreateTable,
                _ => Grammar::Sqlparser,
            },
            Some(
                "DATABASE" | "SCHEMA" | "INDEX" | "UNIQUE" | "CLUSTERING" | "USER" | "SERVER"
                | "ROLLUP",
            ) => Grammar::Own,
            Some("TABLE" | "TEMPORARY") => Grammar::CreateTable,
            _ => Grammar::Sqlparser,
        },
        "SET" => match next().as_deref() {
            Some("PASSWORD" | "CHARACTER" | "CHARSET") => Grammar::Own,
            _ => Grammar::Sqlparser,
        },
        k if OWN.contains(&k) => Grammar::Own,
        _ => Grammar::Sqlparser,
    }
}

/// Parses one statement (text as [`read`] gives it: executable comments expanded, no trailing
/// `;`) with the one grammar its first keywords choose (see the module header).
pub fn parse_statement(sql: &str) -> DbResult<Statement> {
    match grammar_of(sql) {
        Grammar::Sqlparser => sql_statement(sql),
        Grammar::Insert => match fast_insert::parse(sql) {
            Some(f) => Ok(Statement::Insert(Box::new(f))),
            None => sql_statement(sql),
        },
        Grammar::UpdateDelete => match multi_table::parse(sql)? {
            Some(m) => Ok(Statement::MultiTable(m)),
            None => sql_statement(sql),
        },
        Grammar::Load => Ok(Statement::Load(Box::new(load::parse(sql)?))),
        Grammar::Handler => Ok(Statement::Handler(handler::parse(sql)?)),
        Grammar::Analyze => analyze(sql),
        Grammar::Do => do_statement::parse(sql),
        Grammar::ExplainPartitions => explain_partitions(sql),
        Grammar::ExplainExtended => explain_extended(sql),
        Grammar::Own => own(sql),
        Grammar::CreateTable => create_table(&clustering::rewrite_create(sql)?),
    }
}

/// CREATE TABLE (clustering keys already rewritten): PARTITION BY and RETENTION taken out by
/// partition.rs, the rest read by sqlparser.
fn create_table(sql: &str) -> DbResult<Statement> {
    match partition::split_create(sql)? {
        None => sql_statement(sql),
        Some((rest, extras)) => match sql_statement(&rest)? {
            Statement::Sql(s) => match *s {
                ast::Statement::CreateTable(table) => Ok(Statement::CreateTableWith {
                    table: Box::new(table),
                    extras: Box::new(extras),
                }),
                _ => Err(DbError::syntax(sql)),
            },
            _ => Err(DbError::syntax(sql)),
        },
    }
}

/// A CREATE TABLE text (the catalog's stored form, or one rendered by DDL) as sqlparser's
/// statement and the clauses Betula reads itself.
pub fn parse_create_table(sql: &str) -> DbResult<(ast::CreateTable, TableExtras)> {
    let sql = &*clustering::rewrite_create(sql)?;
    let (text, extras) = match partition::split_create(sql)? {
        Some((rest, extras)) => (Cow::Owned(rest), extras),
        None => (Cow::Borrowed(sql), TableExtras::default()),
    };
    match parse(&text)?.into_iter().next() {
        Some(ast::Statement::CreateTable(ct)) => Ok((ct, extras)),
        _ => Err(DbError::internal(format!("not a CREATE TABLE: {sql}"))),
    }
}

/// Whether a statement is read by Betula's own grammars rather than sqlparser's (before
/// prepared statements were parsed at PREPARE, only sqlparser's were checked then).
pub fn is_own_grammar(sql: &str) -> bool {
    match grammar_of(sql) {
        Grammar::Own | Grammar::Handler => true,
        Grammar::UpdateDelete => multi_table::is_own(sql),
        Grammar::Sqlparser
        | Grammar::Insert
        | Grammar::Load
        | Grammar::Analyze
        | Grammar::Do
        | Grammar::ExplainPartitions
        | Grammar::ExplainExtended
        | Grammar::CreateTable => false,
    }
}

/// `ANALYZE <query>`: the query, read by sqlparser. ANALYZE of other statements and ANALYZE
/// FORMAT=JSON are refused.
fn analyze(sql: &str) -> DbResult<Statement> {
    let mut c = Cursor::new(sql);
    c.pos += 1;
    if matches!(
        c.peek_kw(),
        Some("FORMAT" | "INSERT" | "UPDATE" | "DELETE" | "REPLACE")
    ) {
        let what = c.peek_kw().unwrap_or_default().to_string();
        return Err(DbError::unsupported(format!("ANALYZE {what}")));
    }
    let rest = c.rest();
    match sql_statement(rest)? {
        Statement::Sql(s) => match *s {
            ast::Statement::Query(q) => Ok(Statement::Analyze(q)),
            _ => Err(DbError::syntax(rest)),
        },
        _ => Err(DbError::syntax(rest)),
    }
}

/// `EXPLAIN PARTITIONS <query>`: the query, read by sqlparser.
fn explain_partitions(sql: &str) -> DbResult<Statement> {
    let mut c = Cursor::new(sql);
    c.pos += 2;
    let rest = c.rest();
    match sql_statement(rest)? {
        Statement::Sql(s) => match *s {
            ast::Statement::Query(q) => Ok(Statement::ExplainPartitions(q)),
            _ => Err(DbError::unsupported("EXPLAIN PARTITIONS of this statement")),
        },
        _ => Err(DbError::syntax(rest)),
    }
}

/// `EXPLAIN EXTENDED <query>`: the query, read by sqlparser, and its text. EXPLAIN EXTENDED of
/// other statements is refused.
fn explain_extended(sql: &str) -> DbResult<Statement> {
    let mut c = Cursor::new(sql);
    c.pos += 2;
    let rest = c.rest();
    match sql_statement(rest)? {
        Statement::Sql(s) => match *s {
            ast::Statement::Query(q) => Ok(Statement::ExplainExtended {
                query: q,
                text: rest.to_string(),
            }),
            _ => Err(DbError::unsupported("EXPLAIN EXTENDED of this statement")),
        },
        _ => Err(DbError::syntax(rest)),
    }
}

/// The statements of the Cursor grammars.
fn own(sql: &str) -> DbResult<Statement> {
    let mut c = Cursor::new(sql);
    let k = c.peek_kw().unwrap_or("").to_string();
    c.pos += 1;
    let c = &mut c;
    match k.as_str() {
        "SHOW" => match replica::parse_status(c) {
            Some(r) => r,
            None => Ok(Statement::Show(show::parse_show(c)?)),
        },
        "CHANGE" => replica::parse_change(c),
        "START" | "STOP" | "RESET" => match replica::parse_control(&k, c) {
            Some(r) => r,
            None => admin::parse(&k, c),
        },
        "DESCRIBE" | "DESC" | "EXPLAIN" => Ok(Statement::Show(show::parse_describe(c)?)),
        "CREATE" => ddl::parse_create(c),
        "DROP" => ddl::parse_drop(c),
        "TRUNCATE" => ddl::parse_truncate(c),
        "RENAME" => ddl::parse_rename(c),
        "ALTER" => ddl::parse_alter(c),
        "SET" if c.kws(&["CHARACTER", "SET"]) || c.kw("CHARSET") => {
            let name = c
                .name()
                .ok_or_else(|| DbError::syntax("SET CHARACTER SET"))?;
            let charset = (!name.eq_ignore_ascii_case("DEFAULT")).then_some(name);
            Ok(Statement::SetCharacterSet { charset })
        }
        "SET" => users::parse_set_password(c),
        "GRANT" => users::parse_grant(c, false),
        "CALL" => routines::parse_call(c),
        "REVOKE" => users::parse_grant(c, true),
        _ => admin::parse(&k, c),
    }
}

#[cfg(test)]
mod tests;
