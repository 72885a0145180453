//! What names mean to an expression: [`Scope`], the columns visible to it ([`ScopeCol`]: name,
//! qualifiers, type, collation, ENUM/SET members), and [`Scope::resolve`], the lookup of a
//! possibly qualified column name.
//!
//! Also what a column's type means to the compiler: [`Scope::numeric`] turns an ENUM/SET column
//! read as a number into its member number (`k + 0` is 2 for the second member).
//!
//! Invariants: a name matches case-insensitively, its qualifiers (table alias, database) exactly;
//! a name that matches two columns is an error (1052) naming the clause, never the first match;
//! a column of [`Scope::qualified_only`] matches only a qualified name.

use crate::error::db_error::{DbError, DbResult};
use crate::expr::{Expr, UnOp, ZoneShift};
use crate::types::collation::Collation;
use crate::types::time_zone::TimeZone;
use crate::types::value::Value;
use crate::types::SqlType;

/// One column visible to expressions.
#[derive(Clone, Debug)]
pub struct ScopeCol {
    /// Table alias (or name) the column is qualified with.
    pub table: String,
    pub db: String,
    /// The underlying table's real name (for result metadata).
    pub org_table: String,
    pub name: String,
    pub ty: Option<SqlType>,
    pub collation: Collation,
    pub flags: u16,
    /// Display length for result metadata when the type alone does not give it (ENUM, SET);
    /// 0 = the type's.
    pub length: u32,
    /// The members of an ENUM or SET column (empty otherwise).
    pub members: std::sync::Arc<[String]>,
    /// A TIMESTAMP column of a table: its values are UTC, and expressions read them in the
    /// session's time zone ([`Expr::InZone`]).
    pub stored_utc: bool,
    /// A JSON column (its CHECK is `json_valid(col)`): JSON functions embed its text as JSON.
    pub json: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub cols: Vec<ScopeCol>,
    /// The query these columns belong to has exactly one row (an INSERT's VALUES record): an
    /// aggregate of only its columns in a subquery aggregates that one row (compile/call.rs).
    pub one_row: bool,
    /// Columns only a qualified name finds: the copies a `JOIN ... USING` or NATURAL JOIN does
    /// not show (the column it shows once is the other operand's; plan/join_using.rs).
    pub qualified_only: Vec<usize>,
}

impl Scope {
    /// Position of a column by optional qualifier; errors 1054 / 1052 name `place`.
    pub fn resolve(
        &self,
        db: Option<&str>,
        table: Option<&str>,
        name: &str,
        place: &str,
    ) -> DbResult<Option<usize>> {
        let mut found = None;
        for (i, c) in self.cols.iter().enumerate() {
            if !c.name.eq_ignore_ascii_case(name) {
                continue;
            }
            if table.is_some_and(|t| t != c.table) || db.is_some_and(|d| d != c.db) {
                continue;
            }
            if table.is_none() && self.qualified_only.contains(&i) {
                continue;
            }
            if found.is_some() {
                return Err(DbError::ambiguous(name, place));
            }
            found = Some(i);
        }
        Ok(found)
    }
}

impl Scope {
    /// Column `i` as expressions read it: a TIMESTAMP of a table in time zone `tz`.
    pub fn column_expr(&self, i: usize, tz: TimeZone) -> Expr {
        match self.cols.get(i) {
            Some(c) if c.stored_utc && !tz.is_utc() => {
                Expr::InZone(Box::new(Expr::Col(i)), tz, ZoneShift::ToLocal)
            }
            _ => Expr::Col(i),
        }
    }
}

/// Functions whose text result keeps the collation of their text arguments (MariaDB derives
/// it from them): the first argument that has one gives it.
const KEEPS_COLLATION: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
    "LOWER",
    "LCASE",
    "UPPER",
    "UCASE",
    "SUBSTRING",
    "SUBSTR",
    "MID",
    "LEFT",
    "RIGHT",
    "TRIM",
    "LTRIM",
    "RTRIM",
    "TRIM_CHARS",
    "LTRIM_CHARS",
    "RTRIM_CHARS",
    "REPLACE",
    "REVERSE",
    "LPAD",
    "RPAD",
    "REPEAT",
    "IF",
    "IFNULL",
    "NVL",
    "COALESCE",
    "NULLIF",
    "GREATEST",
    "LEAST",
    "SUBSTRING_INDEX",
    "ELT",
];

impl Expr {
    /// The collation this expression's text compares, sorts and groups under, when it has one
    /// of its own: a text column's (a binary column, BINARY and CAST(... AS BINARY): binary), an
    /// explicit `COLLATE`, or the text arguments' of a function that returns them.
    pub fn text_collation(&self, scope: &Scope) -> Option<Collation> {
        match self {
            Expr::Col(i) => scope.cols.get(*i).and_then(|c| match c.ty {
                Some(t) if t.is_text() => Some(c.collation),
                Some(t) if t.is_binary() => Some(Collation::Binary),
                _ => None,
            }),
            Expr::Lit(Value::Bytes(_)) | Expr::Cast(_, crate::expr::CastTo::Binary(_)) => {
                Some(Collation::Binary)
            }
            _ if self.explicit_collation().is_some() => self.explicit_collation(),
            Expr::Func(name, args) if name == crate::expr::functions::IN_CHARSET => {
                match args.get(1) {
                    Some(Expr::Lit(Value::Text(n))) => Collation::from_name(n),
                    _ => None,
                }
            }
            Expr::Func(name, args) if KEEPS_COLLATION.contains(&name.as_str()) => {
                let skip = usize::from(name == "IF");
                args.iter().skip(skip).find_map(|a| a.text_collation(scope))
            }
            Expr::Case(_, whens, el, _) => whens
                .iter()
                .map(|(_, r)| r)
                .chain(el.as_deref())
                .find_map(|r| r.text_collation(scope)),
            _ => None,
        }
    }

    /// The collation named by `x COLLATE c` (MariaDB's explicit derivation, which wins over any
    /// other in a comparison).
    pub fn explicit_collation(&self) -> Option<Collation> {
        match self {
            Expr::Func(name, args) if name == "__COLLATE" => match args.get(1) {
                Some(Expr::Lit(Value::Text(n))) => Collation::from_name(n),
                _ => None,
            },
            _ => None,
        }
    }
}

impl Scope {
    /// The collation `e` sorts and groups under: its own, else the default.
    pub fn collation_of(&self, e: &Expr) -> Collation {
        e.text_collation(self).unwrap_or_default()
    }
}

impl Scope {
    /// `e` as MariaDB reads it where a number is wanted: a reference to an ENUM or SET column of
    /// this scope becomes its member number or bitmask ([`Expr::Member`]); JSON_EXTRACT reads
    /// its value as a number (json/mod.rs, [`crate::expr::json::JsonCall::numeric`]); anything
    /// else is unchanged.
    pub(super) fn numeric(&self, e: Expr) -> Expr {
        let e = match e {
            Expr::Json(mut j) if j.func == crate::expr::json::JsonFunc::Extract => {
                j.numeric = true;
                return Expr::Json(j);
            }
            other => other,
        };
        let Expr::Col(i) = e else {
            return e;
        };
        match self.cols.get(i) {
            Some(ScopeCol {
                ty: Some(ty),
                members,
                ..
            }) if ty.has_members() && !members.is_empty() => {
                Expr::Member(Box::new(e), *ty, members.clone())
            }
            _ => e,
        }
    }

    /// True if `e` is known at compile time to give a number: a number literal, a numeric column,
    /// arithmetic, a numeric CAST or function. A comparison of an ENUM column with such a value
    /// compares member numbers, as MariaDB's.
    pub(super) fn gives_number(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(v) => matches!(
                v,
                Value::Int(_)
                    | Value::UInt(_)
                    | Value::Decimal(_)
                    | Value::Float(_)
                    | Value::Double(_)
            ),
            Expr::Col(i) => self
                .cols
                .get(*i)
                .is_some_and(|c| c.ty.is_some_and(|t| t.is_numeric())),
            Expr::Member(..) | Expr::Rand(..) | Expr::Sleep(..) | Expr::Quantified(_) => true,
            Expr::Regexp(r) => matches!(
                r.func,
                crate::expr::regexp::RegexpFunc::Like | crate::expr::regexp::RegexpFunc::Instr
            ),
            Expr::Json(j) => j.func.gives_number(),
            Expr::Unary(op, _) => matches!(op, UnOp::Neg | UnOp::BitNot),
            Expr::Binary(op, ..) => op.is_arithmetic() || op.is_bitwise(),
            Expr::Cast(_, to) => to.is_numeric(),
            Expr::Func(name, _) => crate::expr::functions::reads_numbers(name),
            _ => false,
        }
    }
}
