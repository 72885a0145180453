//! Compiled expressions: [`Expr`], what a sqlparser expression becomes once its names are
//! resolved against a [`Scope`], and [`Compiler`], which does that resolution.
//!
//! Invariants:
//! * Column references are positions in the flat row of the scope (tables side by side);
//!   `InsertValue(i)` is column `i` of the row an INSERT tried to write (`VALUES(col)`).
//! * Everything fixed for the statement is folded at compile time: parameters, `@@vars`,
//!   `@vars`, `NOW()` (statement start), `DATABASE()`, uncorrelated subqueries (run once and
//!   materialized). Correlated subqueries are not supported (the inner name fails to resolve).
//! * Aggregates are only accepted where the compiler has an aggregate list; each becomes
//!   `Agg(i)`, evaluated by the grouping operator.

pub mod aggregate;
pub mod eval;
pub mod fold;
pub mod functions;
pub mod row_in;

use sqlparser::ast::{self as ast, BinaryOperator, UnaryOperator};

use crate::error::db_error::{DbError, DbResult};
use crate::types::collation::Collation;
use crate::types::decimal::Decimal;
use crate::types::value::Value;
use crate::types::SqlType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    Eq,
    NullSafeEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastTo {
    Signed,
    Unsigned,
    Char,
    Binary,
    Decimal(u8, u8),
    Double,
    Date,
    DateTime,
    Time,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Lit(Value),
    Col(usize),
    InsertValue(usize),
    Agg(usize),
    Unary(UnOp, Box<Expr>),
    /// Binary operator; the collation is the one text comparisons use.
    Binary(BinOp, Box<Expr>, Box<Expr>, Collation),
    IsNull(Box<Expr>, bool),
    IsTrue(Box<Expr>, bool, bool),
    InList(Box<Expr>, Vec<Expr>, bool, Collation),
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool, Collation),
    Like(Box<Expr>, Box<Expr>, bool, char, Collation),
    Case(
        Option<Box<Expr>>,
        Vec<(Expr, Expr)>,
        Option<Box<Expr>>,
        Collation,
    ),
    Cast(Box<Expr>, CastTo),
    DateAdd(Box<Expr>, Box<Expr>, IntervalUnit, bool),
    Func(String, Vec<Expr>),
}

impl Expr {
    pub fn lit(v: Value) -> Expr {
        Expr::Lit(v)
    }
    /// Calls `f` on every column this expression reads.
    pub fn visit_cols(&self, f: &mut dyn FnMut(usize)) {
        match self {
            Expr::Col(i) => f(*i),
            Expr::Lit(_) | Expr::InsertValue(_) | Expr::Agg(_) => {}
            Expr::Unary(_, a) | Expr::IsNull(a, _) | Expr::IsTrue(a, _, _) | Expr::Cast(a, _) => {
                a.visit_cols(f)
            }
            Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
                a.visit_cols(f);
                b.visit_cols(f)
            }
            Expr::InList(a, l, _, _) => {
                a.visit_cols(f);
                l.iter().for_each(|e| e.visit_cols(f))
            }
            Expr::Between(a, b, c, _, _) => {
                a.visit_cols(f);
                b.visit_cols(f);
                c.visit_cols(f)
            }
            Expr::Case(o, w, e, _) => {
                if let Some(o) = o {
                    o.visit_cols(f)
                }
                for (a, b) in w {
                    a.visit_cols(f);
                    b.visit_cols(f)
                }
                if let Some(e) = e {
                    e.visit_cols(f)
                }
            }
            Expr::Func(_, a) => a.iter().for_each(|e| e.visit_cols(f)),
        }
    }
    /// True if the expression reads no column of the row (and no aggregate).
    pub fn is_const(&self) -> bool {
        let mut c = true;
        self.visit_cols(&mut |_| c = false);
        c && !self.has_agg()
    }
    pub fn has_agg(&self) -> bool {
        match self {
            Expr::Agg(_) => true,
            Expr::Lit(_) | Expr::Col(_) | Expr::InsertValue(_) => false,
            Expr::Unary(_, a) | Expr::IsNull(a, _) | Expr::IsTrue(a, _, _) | Expr::Cast(a, _) => {
                a.has_agg()
            }
            Expr::Binary(_, a, b, _) | Expr::Like(a, b, _, _, _) | Expr::DateAdd(a, b, _, _) => {
                a.has_agg() || b.has_agg()
            }
            Expr::InList(a, l, _, _) => a.has_agg() || l.iter().any(|e| e.has_agg()),
            Expr::Between(a, b, c, _, _) => a.has_agg() || b.has_agg() || c.has_agg(),
            Expr::Case(o, w, e, _) => {
                o.as_ref().is_some_and(|o| o.has_agg())
                    || w.iter().any(|(a, b)| a.has_agg() || b.has_agg())
                    || e.as_ref().is_some_and(|e| e.has_agg())
            }
            Expr::Func(_, a) => a.iter().any(|e| e.has_agg()),
        }
    }
    /// The column's collation, when this is a column reference of a text type.
    fn text_collation(&self, scope: &Scope) -> Option<Collation> {
        match self {
            Expr::Col(i) => scope.cols.get(*i).and_then(|c| match c.ty {
                Some(t) if t.is_text() => Some(c.collation),
                Some(t) if t.is_binary() => Some(Collation::Binary),
                _ => None,
            }),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    Count,
    CountStar,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
    BitAnd,
    BitOr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AggSpec {
    pub func: AggFunc,
    pub arg: Vec<Expr>,
    pub distinct: bool,
    pub separator: String,
    pub order: Vec<(Expr, bool)>,
}

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
}

#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub cols: Vec<ScopeCol>,
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
            if found.is_some() {
                return Err(DbError::ambiguous(name, place));
            }
            found = Some(i);
        }
        Ok(found)
    }
}

/// What the compiler needs from the session.
pub trait CompileEnv {
    fn system_var(&mut self, name: &str, global: bool) -> DbResult<Value>;
    fn user_var(&mut self, name: &str) -> Value;
    fn param(&mut self, index: usize) -> DbResult<Value>;
    /// Runs an uncorrelated subquery to completion.
    fn subquery(&mut self, q: &ast::Query) -> DbResult<Vec<Vec<Value>>>;
    /// `DATABASE()`, `NOW()`, `USER()`, ... (functions of the session, folded to constants).
    fn session_fn(&mut self, name: &str, args: &[Value]) -> Option<DbResult<Value>>;
    /// A warning of compiling the statement (e.g. 1916 for a too long number literal); dropped
    /// where there is no session.
    fn warn(&mut self, _w: crate::error::sql_error::Warning) {}
}

pub struct Compiler<'a> {
    pub scope: &'a Scope,
    pub env: &'a mut dyn CompileEnv,
    /// Where aggregates go; `None` = aggregates are an error here.
    pub aggs: Option<&'a mut Vec<AggSpec>>,
    /// Columns of the INSERT row for `VALUES(col)` (ON DUPLICATE KEY UPDATE).
    pub insert_scope: Option<&'a Scope>,
    /// Select-list aliases usable by name (HAVING, ORDER BY).
    pub aliases: &'a [(String, Expr)],
    /// For error messages: "field list", "where clause", ...
    pub place: &'static str,
}

fn ident_name(id: &ast::Ident) -> String {
    id.value.clone()
}

pub fn object_name_parts(n: &ast::ObjectName) -> Vec<String> {
    n.0.iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(i) => i.value.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// MariaDB computes decimals with at most 81 digits: a literal with more (and no exponent) is
/// "truncated" to the largest DECIMAL (65 nines) with warning 1916.
const MAX_LITERAL_DIGITS: usize = 81;

/// True if the literal `s` has more than 81 significant digits and no exponent.
pub fn literal_overflows(s: &str) -> bool {
    !s.contains(['e', 'E'])
        && s.trim_start_matches(['-', '+', '0'])
            .bytes()
            .filter(u8::is_ascii_digit)
            .count()
            > MAX_LITERAL_DIGITS
}

/// A numeric literal as MySQL types it: integer, DECIMAL or DOUBLE (with exponent).
pub fn number_literal(s: &str) -> DbResult<Value> {
    if s.contains(['e', 'E']) {
        return s
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| DbError::syntax(s));
    }
    if !s.contains('.') {
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Value::Int(i));
        }
        if let Ok(u) = s.parse::<u64>() {
            return Ok(Value::UInt(u));
        }
    }
    match Decimal::parse(s) {
        Ok(d) => Ok(Value::Decimal(d)),
        Err(_) => s
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| DbError::syntax(s)),
    }
}

pub fn interval_unit(f: &ast::DateTimeField) -> DbResult<IntervalUnit> {
    use ast::DateTimeField as D;
    Ok(match f {
        D::Microsecond | D::Microseconds => IntervalUnit::Microsecond,
        D::Second | D::Seconds => IntervalUnit::Second,
        D::Minute | D::Minutes => IntervalUnit::Minute,
        D::Hour | D::Hours => IntervalUnit::Hour,
        D::Day | D::Days => IntervalUnit::Day,
        D::Week(_) | D::Weeks => IntervalUnit::Week,
        D::Month | D::Months => IntervalUnit::Month,
        D::Quarter => IntervalUnit::Quarter,
        D::Year | D::Years => IntervalUnit::Year,
        other => return Err(DbError::unsupported(format!("INTERVAL unit {other}"))),
    })
}

fn binop(op: &BinaryOperator) -> DbResult<BinOp> {
    use BinaryOperator as B;
    Ok(match op {
        B::Plus => BinOp::Add,
        B::Minus => BinOp::Sub,
        B::Multiply => BinOp::Mul,
        B::Divide => BinOp::Div,
        B::MyIntegerDivide | B::DuckIntegerDivide => BinOp::IntDiv,
        B::Modulo => BinOp::Mod,
        B::Eq => BinOp::Eq,
        B::Spaceship => BinOp::NullSafeEq,
        B::NotEq => BinOp::Ne,
        B::Lt => BinOp::Lt,
        B::LtEq => BinOp::Le,
        B::Gt => BinOp::Gt,
        B::GtEq => BinOp::Ge,
        B::And => BinOp::And,
        B::Or => BinOp::Or,
        B::Xor => BinOp::Xor,
        B::BitwiseAnd => BinOp::BitAnd,
        B::BitwiseOr => BinOp::BitOr,
        B::BitwiseXor => BinOp::BitXor,
        B::PGBitwiseShiftLeft => BinOp::Shl,
        B::PGBitwiseShiftRight => BinOp::Shr,
        other => return Err(DbError::unsupported(format!("operator {other}"))),
    })
}

pub fn cast_target(dt: &ast::DataType) -> DbResult<CastTo> {
    let s = dt.to_string().to_ascii_uppercase();
    let base = s.split(['(', ' ']).next().unwrap_or("");
    Ok(match base {
        "SIGNED" | "INT" | "INTEGER" | "BIGINT" => {
            if s.contains("UNSIGNED") {
                CastTo::Unsigned
            } else {
                CastTo::Signed
            }
        }
        "UNSIGNED" => CastTo::Unsigned,
        "CHAR" | "VARCHAR" | "TEXT" | "NCHAR" => CastTo::Char,
        "BINARY" | "VARBINARY" | "BLOB" => CastTo::Binary,
        "DECIMAL" | "NUMERIC" | "DEC" => {
            let nums: Vec<u8> = s
                .split(|c: char| !c.is_ascii_digit())
                .filter(|x| !x.is_empty())
                .filter_map(|x| x.parse().ok())
                .collect();
            let p = nums
                .first()
                .copied()
                .unwrap_or(10)
                .clamp(1, crate::types::decimal::MAX_PRECISION);
            let sc = nums
                .get(1)
                .copied()
                .unwrap_or(0)
                .min(p)
                .min(crate::types::decimal::MAX_SCALE);
            CastTo::Decimal(p, sc)
        }
        "DOUBLE" | "FLOAT" | "REAL" => CastTo::Double,
        "DATE" => CastTo::Date,
        "DATETIME" | "TIMESTAMP" => CastTo::DateTime,
        "TIME" => CastTo::Time,
        _ => return Err(DbError::syntax(s)),
    })
}

/// Clauses of a call that the evaluator does not implement are refused, never ignored: a
/// window function (`OVER`) evaluated as a plain aggregate would return one row instead of one
/// per input row.
fn refuse_unsupported_call_clauses(f: &ast::Function) -> DbResult<()> {
    if f.over.is_some() {
        return Err(DbError::unsupported("window functions"));
    }
    if f.filter.is_some() {
        return Err(DbError::unsupported(
            "FILTER (WHERE ...) in aggregate functions",
        ));
    }
    if f.null_treatment.is_some() {
        return Err(DbError::unsupported("IGNORE NULLS / RESPECT NULLS"));
    }
    if !f.within_group.is_empty() {
        return Err(DbError::unsupported("WITHIN GROUP"));
    }
    Ok(())
}

fn agg_func(name: &str) -> Option<AggFunc> {
    Some(match name {
        "COUNT" => AggFunc::Count,
        "SUM" => AggFunc::Sum,
        "AVG" => AggFunc::Avg,
        "MIN" => AggFunc::Min,
        "MAX" => AggFunc::Max,
        "GROUP_CONCAT" => AggFunc::GroupConcat,
        "BIT_AND" => AggFunc::BitAnd,
        "BIT_OR" => AggFunc::BitOr,
        _ => return None,
    })
}

impl Compiler<'_> {
    fn col_collation(&self, a: &Expr, b: &Expr) -> Collation {
        a.text_collation(self.scope)
            .or_else(|| b.text_collation(self.scope))
            .unwrap_or_default()
    }

    fn sub(&mut self, e: &ast::Expr) -> DbResult<Box<Expr>> {
        Ok(Box::new(self.compile(e)?))
    }

    fn resolve_name(&mut self, parts: &[String]) -> DbResult<Expr> {
        let name = parts.last().cloned().unwrap_or_default();
        let (db, table) = match parts.len() {
            1 => (None, None),
            2 => (None, Some(parts[0].as_str())),
            3 => (Some(parts[0].as_str()), Some(parts[1].as_str())),
            _ => return Err(DbError::bad_field(&parts.join("."), self.place)),
        };
        if let Some(i) = self.scope.resolve(db, table, &name, self.place)? {
            return Ok(Expr::Col(i));
        }
        if parts.len() == 1 {
            if let Some((_, e)) = self
                .aliases
                .iter()
                .find(|(a, _)| a.eq_ignore_ascii_case(&name))
            {
                return Ok(e.clone());
            }
        }
        Err(DbError::bad_field(&parts.join("."), self.place))
    }

    fn variable(&mut self, parts: &[String]) -> DbResult<Option<Expr>> {
        let first = &parts[0];
        if let Some(rest) = first.strip_prefix("@@") {
            let (global, name) = match (rest.to_ascii_lowercase().as_str(), parts.len()) {
                ("global", 2) => (true, parts[1].clone()),
                ("session" | "local", 2) => (false, parts[1].clone()),
                (_, 1) => (false, rest.to_string()),
                _ => return Err(DbError::syntax(parts.join("."))),
            };
            return Ok(Some(Expr::Lit(self.env.system_var(&name, global)?)));
        }
        if let Some(rest) = first.strip_prefix('@') {
            let name = if parts.len() > 1 {
                format!("{rest}.{}", parts[1..].join("."))
            } else {
                rest.to_string()
            };
            return Ok(Some(Expr::Lit(self.env.user_var(&name))));
        }
        Ok(None)
    }

    pub fn compile(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        // Deep expressions recurse here: grow the stack on the heap instead of overflowing.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.compile_inner(e))
    }

    fn compile_inner(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        use ast::Expr as E;
        Ok(match e {
            E::Identifier(id) => {
                let parts = vec![ident_name(id)];
                if id.quote_style.is_none() {
                    if let Some(v) = self.variable(&parts)? {
                        return Ok(v);
                    }
                    match id.value.to_ascii_uppercase().as_str() {
                        "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "CURRENT_DATE"
                        | "CURRENT_TIME" | "CURRENT_USER" | "UTC_TIMESTAMP" | "UTC_DATE"
                            if self
                                .scope
                                .resolve(None, None, &id.value, self.place)?
                                .is_none() =>
                        {
                            let n = id.value.to_ascii_uppercase();
                            if let Some(v) = self.env.session_fn(&n, &[]) {
                                return Ok(Expr::Lit(v?));
                            }
                        }
                        _ => {}
                    }
                }
                self.resolve_name(&parts)?
            }
            E::CompoundIdentifier(ids) => {
                let parts: Vec<String> = ids.iter().map(ident_name).collect();
                if ids[0].quote_style.is_none() {
                    if let Some(v) = self.variable(&parts)? {
                        return Ok(v);
                    }
                }
                self.resolve_name(&parts)?
            }
            E::Value(v) => self.literal(&v.value)?,
            E::TypedString(ts) => {
                let s = match &ts.value.value {
                    ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                        s.clone()
                    }
                    other => other.to_string(),
                };
                let to = cast_target(&ts.data_type)?;
                Expr::Cast(Box::new(Expr::Lit(Value::Text(s))), to)
            }
            E::Nested(inner) => self.compile(inner)?,
            // A character set introducer (`_binary 'x'`, `_utf8mb4 'x'`, `_latin1 X'..'`), as
            // JDBC drivers send bytes in client-side prepared statements: `_binary` makes a byte
            // string, a text character set a text string.
            E::Prefixed { prefix, value } if prefix.quote_style.is_none() => {
                let charset = prefix.value.to_ascii_lowercase();
                let lit = self.compile(value)?;
                match (charset.as_str(), lit) {
                    ("_binary", Expr::Lit(Value::Text(s))) => {
                        Expr::Lit(Value::Bytes(s.into_bytes()))
                    }
                    ("_binary", lit) => lit,
                    (
                        "_utf8mb4" | "_utf8mb3" | "_utf8" | "_latin1" | "_ascii",
                        Expr::Lit(Value::Bytes(b)),
                    ) => Expr::Lit(match String::from_utf8(b) {
                        Ok(s) => Value::Text(s),
                        Err(e) => Value::Bytes(e.into_bytes()),
                    }),
                    ("_utf8mb4" | "_utf8mb3" | "_utf8" | "_latin1" | "_ascii", lit) => lit,
                    _ => {
                        return Err(DbError::unsupported(format!(
                            "character set introducer {}",
                            prefix.value
                        )))
                    }
                }
            }
            E::UnaryOp { op, expr } => {
                let a = self.sub(expr)?;
                match op {
                    UnaryOperator::Minus => {
                        // Fold negative literals (so `-9223372036854775808` fits).
                        if let Expr::Lit(v) = &*a {
                            if let Some(n) = crate::expr::eval::negate_literal(v) {
                                return Ok(Expr::Lit(n));
                            }
                        }
                        Expr::Unary(UnOp::Neg, a)
                    }
                    UnaryOperator::Plus => *a,
                    UnaryOperator::Not | UnaryOperator::BangNot => Expr::Unary(UnOp::Not, a),
                    UnaryOperator::BitwiseNot => Expr::Unary(UnOp::BitNot, a),
                    other => return Err(DbError::unsupported(format!("operator {other}"))),
                }
            }
            // `date + INTERVAL n unit`, `date - INTERVAL n unit`, `INTERVAL n unit + date`.
            E::BinaryOp { left, op, right }
                if matches!(op, ast::BinaryOperator::Plus | ast::BinaryOperator::Minus)
                    && (matches!(**right, E::Interval(_))
                        || (matches!(**left, E::Interval(_))
                            && matches!(op, ast::BinaryOperator::Plus))) =>
            {
                let (date, iv) = match (&**left, &**right) {
                    (d, E::Interval(iv)) => (d, iv),
                    (E::Interval(iv), d) => (d, iv),
                    _ => unreachable!("guarded above"),
                };
                let sub = matches!(op, ast::BinaryOperator::Minus);
                let unit = match &iv.leading_field {
                    Some(f) => interval_unit(f)?,
                    None => IntervalUnit::Second,
                };
                Expr::DateAdd(
                    Box::new(self.compile(date)?),
                    Box::new(self.compile(&iv.value)?),
                    unit,
                    sub,
                )
            }
            E::BinaryOp { left, op, right } => {
                let a = self.compile(left)?;
                let b = self.compile(right)?;
                let coll = self.col_collation(&a, &b);
                Expr::Binary(binop(op)?, Box::new(a), Box::new(b), coll)
            }
            E::IsNull(a) => Expr::IsNull(self.sub(a)?, false),
            E::IsNotNull(a) => Expr::IsNull(self.sub(a)?, true),
            E::IsTrue(a) => Expr::IsTrue(self.sub(a)?, true, false),
            E::IsNotTrue(a) => Expr::IsTrue(self.sub(a)?, true, true),
            E::IsFalse(a) => Expr::IsTrue(self.sub(a)?, false, false),
            E::IsNotFalse(a) => Expr::IsTrue(self.sub(a)?, false, true),
            E::IsDistinctFrom(a, b) => Expr::Unary(
                UnOp::Not,
                Box::new(Expr::Binary(
                    BinOp::NullSafeEq,
                    self.sub(a)?,
                    self.sub(b)?,
                    Collation::default(),
                )),
            ),
            E::IsNotDistinctFrom(a, b) => Expr::Binary(
                BinOp::NullSafeEq,
                self.sub(a)?,
                self.sub(b)?,
                Collation::default(),
            ),
            E::InList {
                expr,
                list,
                negated,
            } => {
                let a = self.compile(expr)?;
                let coll = a.text_collation(self.scope).unwrap_or_default();
                let l = list
                    .iter()
                    .map(|x| self.compile(x))
                    .collect::<DbResult<Vec<_>>>()?;
                Expr::InList(Box::new(a), l, *negated, coll)
            }
            E::InSubquery {
                expr,
                subquery,
                negated,
            } => {
                if let E::Tuple(items) = &**expr {
                    let mut cs = Vec::with_capacity(items.len());
                    let mut colls = Vec::with_capacity(items.len());
                    for it in items {
                        let c = self.compile(it)?;
                        colls.push(c.text_collation(self.scope).unwrap_or_default());
                        cs.push(c);
                    }
                    let rows = self.env.subquery(subquery)?;
                    return crate::expr::row_in::row_in(cs, colls, rows, *negated);
                }
                let a = self.compile(expr)?;
                let coll = a.text_collation(self.scope).unwrap_or_default();
                let rows = self.env.subquery(subquery)?;
                let mut l = Vec::with_capacity(rows.len());
                for r in rows {
                    if r.len() != 1 {
                        return Err(DbError::new(
                            1241,
                            "21000",
                            "Operand should contain 1 column(s)",
                        ));
                    }
                    l.push(Expr::Lit(r.into_iter().next().unwrap_or(Value::Null)));
                }
                Expr::InList(Box::new(a), l, *negated, coll)
            }
            E::Exists { subquery, negated } => {
                let rows = self.env.subquery(subquery)?;
                Expr::Lit(Value::Int((rows.is_empty() == *negated) as i64))
            }
            E::Subquery(q) => {
                let rows = self.env.subquery(q)?;
                if rows.len() > 1 {
                    return Err(DbError::new(
                        1242,
                        "21000",
                        "Subquery returns more than 1 row",
                    ));
                }
                match rows.into_iter().next() {
                    None => Expr::Lit(Value::Null),
                    Some(r) if r.len() == 1 => {
                        Expr::Lit(r.into_iter().next().unwrap_or(Value::Null))
                    }
                    Some(_) => {
                        return Err(DbError::new(
                            1241,
                            "21000",
                            "Operand should contain 1 column(s)",
                        ))
                    }
                }
            }
            E::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let a = self.compile(expr)?;
                let coll = a.text_collation(self.scope).unwrap_or_default();
                Expr::Between(Box::new(a), self.sub(low)?, self.sub(high)?, *negated, coll)
            }
            E::Like {
                negated,
                expr,
                pattern,
                escape_char,
                ..
            } => {
                let a = self.compile(expr)?;
                let coll = a.text_collation(self.scope).unwrap_or_default();
                let esc = match escape_char.as_deref() {
                    Some(ast::Expr::Value(v)) => match &v.value {
                        ast::Value::SingleQuotedString(s) => s.chars().next().unwrap_or('\\'),
                        _ => '\\',
                    },
                    _ => '\\',
                };
                Expr::Like(Box::new(a), self.sub(pattern)?, *negated, esc, coll)
            }
            E::RLike { .. } => return Err(DbError::unsupported("REGEXP")),
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let op = match operand {
                    Some(o) => Some(self.sub(o)?),
                    None => None,
                };
                let coll = op
                    .as_ref()
                    .and_then(|o| o.text_collation(self.scope))
                    .unwrap_or_default();
                let mut whens = Vec::new();
                for c in conditions {
                    whens.push((self.compile(&c.condition)?, self.compile(&c.result)?));
                }
                let el = match else_result {
                    Some(e) => Some(self.sub(e)?),
                    None => None,
                };
                Expr::Case(op, whens, el, coll)
            }
            E::Cast {
                expr, data_type, ..
            } => Expr::Cast(self.sub(expr)?, cast_target(data_type)?),
            E::Convert {
                expr,
                data_type: Some(dt),
                ..
            } => Expr::Cast(self.sub(expr)?, cast_target(dt)?),
            E::Convert { expr, .. } => self.compile(expr)?,
            E::Collate { expr, collation } => {
                let a = self.compile(expr)?;
                let name = object_name_parts(collation).join(".");
                let c = Collation::from_name(&name).ok_or_else(|| {
                    DbError::new(1273, "HY000", format!("Unknown collation: '{name}'"))
                })?;
                Expr::Func(
                    "__COLLATE".into(),
                    vec![a, Expr::Lit(Value::Text(c.name().into()))],
                )
            }
            E::Extract { field, expr, .. } => {
                let unit = interval_unit(field)?;
                Expr::Func(format!("__EXTRACT_{unit:?}"), vec![self.compile(expr)?])
            }
            E::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.compile(expr)?];
                if let Some(f) = substring_from {
                    args.push(self.compile(f)?);
                }
                if let Some(f) = substring_for {
                    args.push(self.compile(f)?);
                }
                Expr::Func("SUBSTRING".into(), args)
            }
            E::Trim {
                expr,
                trim_where,
                trim_what,
                ..
            } => {
                let mode = match trim_where {
                    Some(ast::TrimWhereField::Leading) => "LTRIM_CHARS",
                    Some(ast::TrimWhereField::Trailing) => "RTRIM_CHARS",
                    _ => "TRIM_CHARS",
                };
                let what = match trim_what {
                    Some(w) => self.compile(w)?,
                    None => Expr::Lit(Value::Text(" ".into())),
                };
                Expr::Func(mode.into(), vec![self.compile(expr)?, what])
            }
            E::Ceil { expr, .. } => Expr::Func("CEIL".into(), vec![self.compile(expr)?]),
            E::Floor { expr, .. } => Expr::Func("FLOOR".into(), vec![self.compile(expr)?]),
            E::Position { expr, r#in } => Expr::Func(
                "LOCATE".into(),
                vec![self.compile(expr)?, self.compile(r#in)?],
            ),
            E::Interval(_) => return Err(DbError::syntax("INTERVAL outside DATE_ADD/DATE_SUB")),
            E::Function(f) => self.function(f)?,
            other => return Err(DbError::unsupported(format!("expression {other}"))),
        })
    }

    fn literal(&mut self, v: &ast::Value) -> DbResult<Expr> {
        use ast::Value as V;
        Ok(Expr::Lit(match v {
            V::Number(s, _) if literal_overflows(s) => {
                self.env.warn(crate::error::sql_error::Warning {
                    level: crate::error::sql_error::WarningLevel::Warning,
                    code: 1916,
                    message: "Got overflow when converting '' to DECIMAL. Value truncated".into(),
                });
                let max = Decimal::max_for(crate::types::decimal::MAX_PRECISION, 0);
                Value::Decimal(if s.starts_with('-') { max.neg() } else { max })
            }
            V::Number(s, _) => number_literal(s)?,
            V::SingleQuotedString(s)
            | V::DoubleQuotedString(s)
            | V::NationalStringLiteral(s)
            | V::EscapedStringLiteral(s)
            | V::TripleSingleQuotedString(s)
            | V::TripleDoubleQuotedString(s) => Value::Text(s.clone()),
            // MySQL's b'0101' is a bit-value literal: the bits as bytes, big-endian.
            V::SingleQuotedByteStringLiteral(s) | V::DoubleQuotedByteStringLiteral(s)
                if s.bytes().all(|b| b == b'0' || b == b'1') =>
            {
                let pad = (8 - s.len() % 8) % 8;
                let bits: Vec<u8> = std::iter::repeat_n(b'0', pad).chain(s.bytes()).collect();
                Value::Bytes(
                    bits.chunks(8)
                        .map(|c| c.iter().fold(0u8, |acc, b| acc << 1 | (b - b'0')))
                        .collect(),
                )
            }
            V::SingleQuotedByteStringLiteral(s) | V::DoubleQuotedByteStringLiteral(s) => {
                Value::Bytes(s.as_bytes().to_vec())
            }
            V::HexStringLiteral(h) => {
                let h = if h.len() % 2 == 1 {
                    format!("0{h}")
                } else {
                    h.clone()
                };
                let mut out = Vec::new();
                for i in (0..h.len()).step_by(2) {
                    out.push(
                        u8::from_str_radix(&h[i..i + 2], 16).map_err(|_| DbError::syntax(&h))?,
                    );
                }
                Value::Bytes(out)
            }
            V::Boolean(b) => Value::Int(*b as i64),
            V::Null => Value::Null,
            V::Placeholder(p) => {
                let n: usize = p
                    .trim_start_matches(['?', '$', ':'])
                    .parse()
                    .map_err(|_| DbError::syntax(p))?;
                self.env.param(n.saturating_sub(1))?
            }
            other => return Err(DbError::unsupported(format!("literal {other}"))),
        }))
    }

    fn args(&mut self, f: &ast::Function) -> DbResult<(Vec<ast::Expr>, bool, bool)> {
        match &f.args {
            ast::FunctionArguments::None => Ok((vec![], false, false)),
            ast::FunctionArguments::Subquery(_) => Err(DbError::unsupported("subquery argument")),
            ast::FunctionArguments::List(l) => {
                let distinct = matches!(
                    l.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                );
                let mut out = Vec::new();
                let mut star = false;
                for a in &l.args {
                    let ae = match a {
                        ast::FunctionArg::Unnamed(x) => x,
                        ast::FunctionArg::Named { arg, .. } => arg,
                        ast::FunctionArg::ExprNamed { arg, .. } => arg,
                    };
                    match ae {
                        ast::FunctionArgExpr::Expr(e) => out.push(e.clone()),
                        _ => star = true,
                    }
                }
                Ok((out, distinct, star))
            }
        }
    }

    fn function(&mut self, f: &ast::Function) -> DbResult<Expr> {
        let name = object_name_parts(&f.name)
            .last()
            .cloned()
            .unwrap_or_default()
            .to_ascii_uppercase();
        refuse_unsupported_call_clauses(f)?;
        let (args, distinct, star) = self.args(f)?;
        if let Some(agg) = agg_func(&name) {
            return self.aggregate(agg, &name, f, args, distinct, star);
        }
        match name.as_str() {
            "VALUES" if self.insert_scope.is_some() => {
                let s = self.insert_scope.unwrap_or(self.scope);
                let parts = match args.first() {
                    Some(ast::Expr::Identifier(i)) => vec![i.value.clone()],
                    Some(ast::Expr::CompoundIdentifier(ids)) => {
                        ids.iter().map(|i| i.value.clone()).collect()
                    }
                    _ => return Err(DbError::wrong_args("VALUES")),
                };
                let col = parts.last().cloned().unwrap_or_default();
                return match s.resolve(None, None, &col, "field list")? {
                    Some(i) => Ok(Expr::InsertValue(i)),
                    None => Err(DbError::bad_field(&col, "field list")),
                };
            }
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" => {
                if args.len() != 2 {
                    return Err(DbError::wrong_args(&name));
                }
                let sub = name == "DATE_SUB" || name == "SUBDATE";
                let d = self.compile(&args[0])?;
                let (n, unit) = match &args[1] {
                    ast::Expr::Interval(iv) => (
                        self.compile(&iv.value)?,
                        match &iv.leading_field {
                            Some(f) => interval_unit(f)?,
                            None => IntervalUnit::Second,
                        },
                    ),
                    other => (self.compile(other)?, IntervalUnit::Day),
                };
                return Ok(Expr::DateAdd(Box::new(d), Box::new(n), unit, sub));
            }
            _ => {}
        }
        let mut compiled = Vec::with_capacity(args.len());
        for a in &args {
            compiled.push(self.compile(a)?);
        }
        // Context functions fold to constants when their arguments are constant.
        if compiled.iter().all(|e| matches!(e, Expr::Lit(_))) {
            let vals: Vec<Value> = compiled
                .iter()
                .map(|e| match e {
                    Expr::Lit(v) => v.clone(),
                    _ => Value::Null,
                })
                .collect();
            if let Some(v) = self.env.session_fn(&name, &vals) {
                return Ok(Expr::Lit(v?));
            }
        }
        if !crate::expr::eval::is_known_function(&name) {
            return Err(DbError::no_function(&name.to_ascii_lowercase()));
        }
        Ok(Expr::Func(name, compiled))
    }

    fn aggregate(
        &mut self,
        func: AggFunc,
        name: &str,
        f: &ast::Function,
        args: Vec<ast::Expr>,
        distinct: bool,
        star: bool,
    ) -> DbResult<Expr> {
        let func = if func == AggFunc::Count && star {
            AggFunc::CountStar
        } else {
            func
        };
        if func != AggFunc::CountStar
            && (args.is_empty()
                || (func != AggFunc::GroupConcat && func != AggFunc::Count && args.len() != 1))
        {
            return Err(DbError::syntax(format!("{name}(")));
        }
        let mut separator = ",".to_string();
        let mut order_ast = Vec::new();
        if let ast::FunctionArguments::List(l) = &f.args {
            for c in &l.clauses {
                match c {
                    ast::FunctionArgumentClause::Separator(v) => {
                        separator = match &v.value {
                            ast::Value::SingleQuotedString(s)
                            | ast::Value::DoubleQuotedString(s) => s.clone(),
                            other => other.to_string(),
                        }
                    }
                    ast::FunctionArgumentClause::OrderBy(obs) => order_ast = obs.clone(),
                    _ => {}
                }
            }
        }
        // The argument is evaluated on input rows: compile it without aggregates.
        let saved = self.aggs.take();
        let Some(list) = saved else {
            return Err(DbError::new(1111, "HY000", "Invalid use of group function"));
        };
        let mut arg = Vec::new();
        let mut order = Vec::new();
        let res = (|| -> DbResult<()> {
            for a in &args {
                arg.push(self.compile(a)?);
            }
            for o in &order_ast {
                order.push((
                    self.compile(&o.expr)?,
                    matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                ));
            }
            Ok(())
        })();
        self.aggs = Some(list);
        res?;
        let list = self.aggs.as_mut().expect("restored above");
        let spec = AggSpec {
            func,
            arg,
            distinct,
            separator,
            order,
        };
        if let Some(i) = list.iter().position(|s| *s == spec) {
            return Ok(Expr::Agg(i));
        }
        list.push(spec);
        Ok(Expr::Agg(list.len() - 1))
    }
}
