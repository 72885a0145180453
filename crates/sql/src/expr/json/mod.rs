//! The JSON functions as MariaDB 10.11 evaluates them: a [`JsonCall`] node (in a tree as
//! `Expr::Json`). MariaDB's JSON is text (LONGTEXT with `CHECK (json_valid(col))`); every
//! function reads its document from text and gives text.
//!
//! | file | owns |
//! | --- | --- |
//! | `doc.rs` | [`doc::Json`]: text → tree with MariaDB's errors, tree → MariaDB's text |
//! | `path.rs` | [`path::Path`]: `$.a[1].*` and the values a path selects |
//! | `build.rs` | SQL values → JSON values (JSON_OBJECT, JSON_ARRAY, JSON_SET's values) |
//! | `read.rs` | the functions that read a document (JSON_EXTRACT, JSON_LENGTH, ...) |
//! | `edit.rs` | the functions that give a changed document (JSON_SET, JSON_REMOVE, JSON_MERGE, ...) |
//! | `search.rs` | JSON_SEARCH: the paths of the scalars matching a LIKE pattern |
//! | `format.rs` | JSON_COMPACT, JSON_LOOSE, JSON_DETAILED / JSON_PRETTY: a document rewritten |
//! | `compare.rs` | JSON_NORMALIZE, JSON_EQUALS, JSON_OVERLAPS |
//!
//! Semantics (MariaDB's `item_jsonfunc.cc`):
//! * NULL in a document or path argument gives NULL; a value argument that is NULL is JSON
//!   `null` (JSON_OBJECT, JSON_ARRAY, JSON_SET, ...).
//! * A document or path that does not parse gives NULL with a warning (4036..4042), raised
//!   through [`crate::error::pending`]; JSON_VALID gives 0 with the same condition as a note,
//!   JSON_OVERLAPS 0 with the warning; JSON_VALUE, JSON_QUERY, JSON_KEYS and JSON_EXISTS give
//!   NULL without one. Warnings name JSON_MERGE `json_merge_preserve` and JSON_PRETTY
//!   `json_detailed`, as MariaDB's do.
//! * An argument that is itself JSON (a JSON column, a JSON function's or JSON aggregate's
//!   result) is embedded as JSON by the functions that build documents, any other string as a
//!   JSON string; a comparison, `TRUE`/`FALSE` or a JSON function giving a truth value as a
//!   JSON boolean ([`ArgKind`]).
//! * A wrong argument count is 1582 when the statement is compiled.
//! * The aggregates JSON_ARRAYAGG and JSON_OBJECTAGG are accumulated in expr/aggregate.rs and
//!   joined in expr/concat.rs.

mod build;
mod compare;
pub mod doc;
mod edit;
mod format;
pub mod path;
mod read;
mod search;
#[cfg(test)]
mod tests;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::{Warning, WarningLevel};
use crate::expr::eval::{eval, EvalCtx};
use crate::expr::Expr;
use crate::types::collation::Collation;
use crate::types::value::Value;

use doc::{Json, ParseError};
use path::{Path, PathError};

/// Which function of the family a node computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonFunc {
    Valid,
    Extract,
    Value,
    Query,
    Unquote,
    Quote,
    Type,
    Length,
    Depth,
    Keys,
    Contains,
    ContainsPath,
    Exists,
    Object,
    Array,
    Set,
    Insert,
    Replace,
    Remove,
    ArrayAppend,
    MergePatch,
    ArrayInsert,
    /// JSON_MERGE and JSON_MERGE_PRESERVE.
    Merge,
    MergePreserve,
    Search,
    Compact,
    Loose,
    Detailed,
    /// JSON_PRETTY: JSON_DETAILED's other name.
    Pretty,
    Normalize,
    Equals,
    Overlaps,
}

/// Name, function, least and most argument count, and whether the result is JSON.
const FUNCS: &[(&str, JsonFunc, usize, usize, bool)] = &[
    ("JSON_VALID", JsonFunc::Valid, 1, 1, false),
    ("JSON_EXTRACT", JsonFunc::Extract, 2, usize::MAX, true),
    ("JSON_VALUE", JsonFunc::Value, 2, 2, false),
    ("JSON_QUERY", JsonFunc::Query, 2, 2, true),
    ("JSON_UNQUOTE", JsonFunc::Unquote, 1, 1, false),
    ("JSON_QUOTE", JsonFunc::Quote, 1, 1, false),
    ("JSON_TYPE", JsonFunc::Type, 1, 1, false),
    ("JSON_LENGTH", JsonFunc::Length, 1, 2, false),
    ("JSON_DEPTH", JsonFunc::Depth, 1, 1, false),
    ("JSON_KEYS", JsonFunc::Keys, 1, 2, false),
    ("JSON_CONTAINS", JsonFunc::Contains, 2, 3, false),
    (
        "JSON_CONTAINS_PATH",
        JsonFunc::ContainsPath,
        3,
        usize::MAX,
        false,
    ),
    ("JSON_EXISTS", JsonFunc::Exists, 2, 2, false),
    ("JSON_OBJECT", JsonFunc::Object, 0, usize::MAX, true),
    ("JSON_ARRAY", JsonFunc::Array, 0, usize::MAX, true),
    ("JSON_SET", JsonFunc::Set, 3, usize::MAX, true),
    ("JSON_INSERT", JsonFunc::Insert, 3, usize::MAX, true),
    ("JSON_REPLACE", JsonFunc::Replace, 3, usize::MAX, true),
    ("JSON_REMOVE", JsonFunc::Remove, 2, usize::MAX, true),
    (
        "JSON_ARRAY_APPEND",
        JsonFunc::ArrayAppend,
        3,
        usize::MAX,
        true,
    ),
    (
        "JSON_MERGE_PATCH",
        JsonFunc::MergePatch,
        2,
        usize::MAX,
        true,
    ),
    (
        "JSON_ARRAY_INSERT",
        JsonFunc::ArrayInsert,
        3,
        usize::MAX,
        true,
    ),
    ("JSON_MERGE", JsonFunc::Merge, 2, usize::MAX, true),
    (
        "JSON_MERGE_PRESERVE",
        JsonFunc::MergePreserve,
        2,
        usize::MAX,
        true,
    ),
    ("JSON_SEARCH", JsonFunc::Search, 3, usize::MAX, true),
    ("JSON_COMPACT", JsonFunc::Compact, 1, 1, true),
    ("JSON_LOOSE", JsonFunc::Loose, 1, 1, true),
    ("JSON_DETAILED", JsonFunc::Detailed, 1, 2, true),
    ("JSON_PRETTY", JsonFunc::Pretty, 1, 2, true),
    ("JSON_NORMALIZE", JsonFunc::Normalize, 1, 1, true),
    ("JSON_EQUALS", JsonFunc::Equals, 2, 2, false),
    ("JSON_OVERLAPS", JsonFunc::Overlaps, 2, 2, false),
];

impl JsonFunc {
    /// The function of an upper-case name.
    pub fn of_name(name: &str) -> Option<JsonFunc> {
        FUNCS.iter().find(|f| f.0 == name).map(|f| f.1)
    }

    fn entry(self) -> &'static (&'static str, JsonFunc, usize, usize, bool) {
        FUNCS
            .iter()
            .find(|f| f.1 == self)
            .expect("every function is listed")
    }

    /// The lower-case name MariaDB's warnings use (JSON_MERGE's are JSON_MERGE_PRESERVE's,
    /// JSON_PRETTY's JSON_DETAILED's).
    pub fn name(self) -> String {
        let called = match self {
            JsonFunc::Merge => JsonFunc::MergePreserve,
            JsonFunc::Pretty => JsonFunc::Detailed,
            other => other,
        };
        called.entry().0.to_ascii_lowercase()
    }

    /// True if the result is a number.
    pub fn gives_number(self) -> bool {
        matches!(self, JsonFunc::Length | JsonFunc::Depth) || self.gives_truth()
    }

    /// True if the result is a truth value (embedded as `true` / `false` in a document).
    pub fn gives_truth(self) -> bool {
        matches!(
            self,
            JsonFunc::Valid
                | JsonFunc::Contains
                | JsonFunc::ContainsPath
                | JsonFunc::Exists
                | JsonFunc::Equals
                | JsonFunc::Overlaps
        )
    }

    /// True if the result is JSON (embedded as such by the functions that build documents).
    pub fn gives_json(self) -> bool {
        self.entry().4
    }

    /// Checks the argument count (1582 otherwise).
    pub fn check_arity(self, n: usize) -> DbResult<()> {
        let (name, _, min, max, _) = *self.entry();
        let paired = match self {
            JsonFunc::Object => n % 2 == 0,
            JsonFunc::Set
            | JsonFunc::Insert
            | JsonFunc::Replace
            | JsonFunc::ArrayAppend
            | JsonFunc::ArrayInsert => n % 2 == 1,
            _ => true,
        };
        if n < min || n > max || !paired {
            return Err(DbError::wrong_args(&name.to_ascii_lowercase()));
        }
        Ok(())
    }
}

/// How a value argument enters a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A string is a JSON string, a number a JSON number.
    Plain,
    /// JSON text, embedded as JSON.
    Json,
    /// A truth value: `true` / `false`.
    Bool,
}

/// A call of the family with its compiled arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonCall {
    pub func: JsonFunc,
    pub args: Vec<Expr>,
    pub kinds: Vec<ArgKind>,
    /// The collation of the document argument (JSON_SEARCH's LIKE compares under it).
    pub doc_collation: Collation,
    /// JSON_EXTRACT where a number is wanted (arithmetic, a comparison with a number, CAST):
    /// the value it finds read as MariaDB's `val_real` / `val_int` read it ([`number_of`]).
    pub numeric: bool,
}

impl JsonCall {
    pub fn eval(&self, cx: &EvalCtx<'_>) -> DbResult<Value> {
        let mut vals = Vec::with_capacity(self.args.len());
        for a in &self.args {
            vals.push(eval(a, cx)?);
        }
        let call = Call {
            func: self.func,
            vals: &vals,
            kinds: &self.kinds,
            doc_collation: self.doc_collation,
        };
        let v = match self.func {
            JsonFunc::Object | JsonFunc::Array => build::construct(&call),
            JsonFunc::Set
            | JsonFunc::Insert
            | JsonFunc::Replace
            | JsonFunc::Remove
            | JsonFunc::ArrayAppend
            | JsonFunc::MergePatch
            | JsonFunc::ArrayInsert
            | JsonFunc::Merge
            | JsonFunc::MergePreserve => edit::call(&call),
            JsonFunc::Search => search::call(&call),
            JsonFunc::Compact | JsonFunc::Loose | JsonFunc::Detailed | JsonFunc::Pretty => {
                format::call(&call)
            }
            JsonFunc::Normalize | JsonFunc::Equals | JsonFunc::Overlaps => compare::call(&call),
            _ => read::call(&call),
        };
        Ok(if self.numeric { number_of(v) } else { v })
    }
}

/// JSON_EXTRACT's text `v` where a number is wanted, as MariaDB reads it: a number as written,
/// a string's content (converted as any text then), `true` 1, `false`, `null` and containers 0.
fn number_of(v: Value) -> Value {
    let Value::Text(text) = &v else {
        return v;
    };
    match doc::parse(text) {
        Ok(Json::Number(n)) => Value::Text(n),
        Ok(Json::Str(s)) => Value::Text(doc::unescape(&s)),
        Ok(Json::Bool(b)) => Value::Int(b as i64),
        Ok(_) => Value::Int(0),
        Err(_) => v,
    }
}

/// One evaluation: the function, its argument values and their kinds.
pub(crate) struct Call<'a> {
    pub func: JsonFunc,
    pub vals: &'a [Value],
    pub kinds: &'a [ArgKind],
    pub doc_collation: Collation,
}

impl Call<'_> {
    /// Argument `i` as text; `None` when NULL.
    fn text(&self, i: usize) -> Option<String> {
        crate::expr::eval::text_of(self.vals.get(i)?)
    }

    /// Argument `i` as `'one'` (false) or `'all'` (true); anything else is NULL with 4046.
    fn one_or_all(&self, i: usize) -> Option<bool> {
        match self.text(i)?.to_ascii_lowercase().as_str() {
            "all" => Some(true),
            "one" => Some(false),
            _ => {
                self.warn(
                    WarningLevel::Warning,
                    ErrorCode::JsonOneOrAll,
                    format!(
                        "Argument {} to function '{}' must be \"one\" or \"all\".",
                        i + 1,
                        self.func.name()
                    ),
                );
                None
            }
        }
    }

    fn warn(&self, level: WarningLevel, code: ErrorCode, message: String) {
        crate::error::pending::push(Warning {
            level,
            code,
            message,
        });
    }

    /// Argument `i` as a document: `None` for NULL or (with a warning at `level`) bad text.
    fn doc_at(&self, i: usize, level: Option<WarningLevel>) -> Option<Json> {
        let text = self.text(i)?;
        match doc::parse(&text) {
            Ok(d) => Some(d),
            Err(e) => {
                if let Some(level) = level {
                    self.doc_error(i, e, level);
                }
                None
            }
        }
    }

    /// Argument `i` as a document, a warning when it does not parse.
    fn doc(&self, i: usize) -> Option<Json> {
        self.doc_at(i, Some(WarningLevel::Warning))
    }

    fn doc_error(&self, i: usize, e: ParseError, level: WarningLevel) {
        let (n, f) = (i + 1, self.func.name());
        let (code, message) = match e {
            ParseError::End => (
                ErrorCode::JsonEos,
                format!("Unexpected end of JSON text in argument {n} to function '{f}'"),
            ),
            ParseError::Syntax(p) => (
                ErrorCode::JsonSyntax,
                format!("Syntax error in JSON text in argument {n} to function '{f}' at position {p}"),
            ),
            ParseError::BadChar(p) => (
                ErrorCode::JsonNotJsonChr,
                format!("Character disallowed in JSON in argument {n} to function '{f}' at position {p}"),
            ),
            ParseError::Depth(p) => (
                ErrorCode::JsonDepth,
                format!("Limit of {} on JSON nested structures depth is reached in argument {n} to function '{f}' at position {p}", doc::MAX_DEPTH),
            ),
        };
        self.warn(level, code, message);
    }

    /// Argument `i` as a path: `None` for NULL or (with a warning) bad text.
    fn path(&self, i: usize) -> Option<Path> {
        let text = self.text(i)?;
        let (n, f) = (i + 1, self.func.name());
        let (code, message) = match path::parse(&text) {
            Ok(p) => return Some(p),
            Err(PathError::End) => (
                ErrorCode::JsonPathEos,
                format!("Unexpected end of JSON path in argument {n} to function '{f}'"),
            ),
            Err(PathError::Syntax(p)) => (
                ErrorCode::JsonPathSyntax,
                format!("Syntax error in JSON path in argument {n} to function '{f}' at position {p}"),
            ),
            Err(PathError::Depth(p)) => (
                ErrorCode::JsonPathDepth,
                format!("Limit of {} on JSON path depth is reached in argument {n} to function '{f}' at position {p}", path::MAX_PATH_STEPS),
            ),
        };
        self.warn(WarningLevel::Warning, code, message);
        None
    }

    /// Argument `i` as a path without wildcards (4044 otherwise).
    fn plain_path(&self, i: usize) -> Option<Path> {
        let p = self.path(i)?;
        if p.has_wildcard() {
            self.warn(
                WarningLevel::Warning,
                ErrorCode::JsonPathNoWildcard,
                format!(
                    "Wildcards or range in JSON path not allowed in argument {} to function '{}'",
                    i + 1,
                    self.func.name()
                ),
            );
            return None;
        }
        Some(p)
    }
}

/// The JSON text value `v` of kind `kind` adds to a document being built (JSON_ARRAYAGG,
/// JSON_OBJECTAGG): build.rs's member text.
pub(crate) fn member_text(v: &Value, kind: ArgKind) -> String {
    build::member_text(v, kind)
}

/// `s` escaped for the inside of a JSON string.
pub(crate) fn escape(s: &str) -> String {
    doc::escape(s)
}

/// The text of a document as a SQL value.
fn json_text(j: &Json) -> Value {
    Value::Text(j.write())
}
