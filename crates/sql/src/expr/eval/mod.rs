//! Evaluation of compiled expressions: [`eval`] gives the value of an [`Expr`] on a row.
//! `eval_inner` only routes by kind of expression to the files here:
//!
//! | file | evaluates |
//! | --- | --- |
//! | `arith.rs` | `+ - * / DIV %`, unary `-` and `~`, bit operators |
//! | `compare.rs` | comparisons, `<=>`, IN (list), BETWEEN, LIKE |
//!
//! REGEXP and ANY/ALL evaluate in their own modules (expr/regexp/, expr/quantified.rs).
//! | `logic.rs` | AND, OR, XOR, NOT, `IS [NOT] TRUE/FALSE`, CASE |
//! | `cast.rs` | CAST, and the text and DATETIME forms of a value |
//!
//! Scalar functions are functions/'s (DATE_ADD included).
//!
//! Owns MySQL's value semantics for operators: three-valued logic (NULL = unknown), integer
//! arithmetic with overflow errors (1690), DECIMAL arithmetic for exact operands (division gives
//! 4 more digits of scale, as `div_precision_increment`), DOUBLE when either side is approximate
//! or a string, comparisons through [`crate::types::value::sql_cmp`] under the compiled collation.
//! Invariant: no input value makes evaluation panic; bad input is NULL or a `DbError`.

mod arith;
mod cast;
mod cast_text;
mod compare;
pub mod div_zero;
mod logic;

pub use crate::expr::functions::is_known_function;
pub use arith::{arith, negate_literal};
pub use cast::{cast, cast_reporting, micros_per_sec, text_of, to_datetime};
pub use compare::{compare, comparison, like_match};

use crate::error::db_error::DbResult;
use crate::expr::{BinOp, Expr};
use crate::types::collation::Collation;
use crate::types::value::Value;

/// The rows an expression reads.
#[derive(Clone, Copy, Default)]
pub struct EvalCtx<'a> {
    pub row: &'a [Value],
    pub aggs: &'a [Value],
    pub insert: &'a [Value],
    /// The row's window function values (exec/window.rs).
    pub wins: &'a [Value],
    /// Runs correlated subqueries (expr/correlated.rs); `None` where the executor does not.
    pub subq: Option<&'a dyn crate::expr::correlated::SubqueryRunner>,
}

impl<'a> EvalCtx<'a> {
    pub fn row(row: &'a [Value]) -> EvalCtx<'a> {
        EvalCtx {
            row,
            aggs: &[],
            insert: &[],
            wins: &[],
            subq: None,
        }
    }
}

/// `None` = NULL (unknown).
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Decimal(d) => Some(!d.is_zero()),
        other => other.to_f64_lenient().map(|f| f != 0.0),
    }
}

/// Evaluates `e` against `cx`.
pub fn eval(e: &Expr, cx: &EvalCtx<'_>) -> DbResult<Value> {
    match e {
        // Leaves recurse no further: no stack check.
        Expr::Lit(v) => Ok(v.clone()),
        Expr::Col(i) => Ok(cx.row.get(*i).cloned().unwrap_or(Value::Null)),
        _ => stacker::maybe_grow(64 * 1024, 1024 * 1024, || eval_inner(e, cx)),
    }
}

fn eval_inner(e: &Expr, cx: &EvalCtx<'_>) -> DbResult<Value> {
    Ok(match e {
        Expr::Lit(v) => v.clone(),
        Expr::Col(i) => cx.row.get(*i).cloned().unwrap_or(Value::Null),
        Expr::InsertValue(i) => cx.insert.get(*i).cloned().unwrap_or(Value::Null),
        Expr::Agg(i) => cx.aggs.get(*i).cloned().unwrap_or(Value::Null),
        Expr::Win(i) => cx.wins.get(*i).cloned().unwrap_or(Value::Null),
        Expr::Unary(op, a) => arith::unary(*op, &eval(a, cx)?)?,
        Expr::Binary(op, a, b, coll) => binary(*op, a, b, *coll, cx)?,
        Expr::IsNull(a, neg) => Value::Int((eval(a, cx)?.is_null() != *neg) as i64),
        Expr::IsTrue(a, want, neg) => logic::is_true(&eval(a, cx)?, *want, *neg),
        Expr::InList(a, list, neg, coll) => compare::in_list(a, list, *neg, *coll, cx)?,
        Expr::Between(a, lo, hi, neg, coll) => {
            let x = eval(a, cx)?;
            let l = eval(lo, cx)?;
            compare::between(&x, &l, &eval(hi, cx)?, *neg, *coll)
        }
        Expr::Like(a, p, neg, esc, coll) => {
            let x = eval(a, cx)?;
            compare::like(&x, &eval(p, cx)?, *neg, *esc, *coll)
        }
        Expr::Case(op, whens, el, coll) => {
            logic::case(op.as_deref(), whens, el.as_deref(), *coll, cx)?
        }
        Expr::Cast(a, to) => cast_reporting(&eval(a, cx)?, *to),
        Expr::Member(a, ty, members) => cast::member_number(eval(a, cx)?, *ty, members),
        Expr::InZone(a, tz, shift) => cast::in_zone(eval(a, cx)?, *tz, *shift),
        Expr::DateAdd(d, n, unit, sub) => {
            let dv = eval(d, cx)?;
            let nv = eval(n, cx)?;
            crate::expr::functions::date_add(&dv, &nv, *unit, *sub)
        }
        Expr::Func(name, args) => {
            // IF / IFNULL / COALESCE / CASE-like functions evaluate lazily.
            if let Some(v) = crate::expr::functions::eval_lazy(name, args, cx) {
                return v;
            }
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(eval(a, cx)?);
            }
            crate::expr::functions::call(name, &vals)?
        }
        Expr::Rand(seed, rng) => {
            let seed = match seed {
                Some(s) if rng.needs_seed() => Some(eval(s, cx)?),
                _ => None,
            };
            rng.next(seed.as_ref())
        }
        Expr::Subquery(s) => crate::expr::correlated::eval_correlated(s, cx)?,
        Expr::Regexp(r) => r.eval(cx)?,
        Expr::Json(j) => j.eval(cx)?,
        Expr::Quantified(q) => q.eval(cx)?,
        Expr::UserVar(slot) => slot.get(),
        Expr::SetUserVar(e, slot) => {
            let v = eval(e, cx)?;
            slot.set(v.clone());
            v
        }
        Expr::Sleep(secs, interrupt) => {
            // MariaDB: NULL, negative and tiny waits return at once.
            let secs = eval(secs, cx)?.to_f64_lenient().unwrap_or(0.0);
            if secs >= 0.00001 {
                let d = std::time::Duration::try_from_secs_f64(secs)
                    .unwrap_or(std::time::Duration::MAX);
                interrupt.sleep(d)?;
            }
            Value::Int(0)
        }
    })
}

fn binary(op: BinOp, a: &Expr, b: &Expr, coll: Collation, cx: &EvalCtx<'_>) -> DbResult<Value> {
    match op {
        BinOp::And | BinOp::Or | BinOp::Xor => logic::logical(op, a, b, cx),
        BinOp::Eq
        | BinOp::Ne
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::NullSafeEq => {
            let x = eval(a, cx)?;
            Ok(compare::comparison(op, &x, &eval(b, cx)?, coll))
        }
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
            let x = eval(a, cx)?;
            Ok(arith::bits(op, &x, &eval(b, cx)?))
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::IntDiv | BinOp::Mod => {
            let x = eval(a, cx)?;
            arith(op, &x, &eval(b, cx)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::ErrorCode;
    use crate::error::db_error::DbError;
    use crate::expr::CompileEnv;
    use crate::expr::Compiler;
    use crate::expr::Scope;
    use sqlparser::ast;

    struct Env;
    impl CompileEnv for Env {
        fn system_var(&mut self, n: &str, _: bool) -> DbResult<Value> {
            Err(DbError::unknown_var(n))
        }
        fn user_var(&mut self, _: &str) -> Value {
            Value::Null
        }
        fn param(&mut self, i: usize) -> DbResult<Value> {
            Ok(Value::Int(i as i64 + 100))
        }
        fn subquery(&mut self, _: &ast::Query) -> DbResult<Vec<Vec<Value>>> {
            Ok(vec![vec![Value::Int(1)], vec![Value::Int(2)]])
        }
        fn session_fn(&mut self, _: &str, _: &[Value]) -> Option<DbResult<Value>> {
            None
        }
    }

    fn run(sql: &str) -> DbResult<Value> {
        run_on(sql, &Scope::default(), &[])
    }

    /// `sql` compiled against `scope` and evaluated on `row`.
    fn run_on(sql: &str, scope: &Scope, row: &[Value]) -> DbResult<Value> {
        let e = sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
            .try_with_sql(sql)
            .unwrap()
            .parse_expr()
            .unwrap();
        let mut env = Env;
        let mut c = Compiler {
            scope,
            env: &mut env,
            aggs: None,
            windows: None,
            insert_scope: None,
            aliases: &[],
            having_groups: None,
            place: "field list",
        };
        let ex = c.compile(&e)?;
        eval(&ex, &EvalCtx::row(row))
    }

    fn text(sql: &str) -> String {
        match run(sql).unwrap() {
            Value::Null => "NULL".into(),
            v => text_of(&v).unwrap(),
        }
    }

    #[test]
    fn arithmetic_follows_mysql_types() {
        assert_eq!(text("1 + 2 * 3"), "7");
        assert_eq!(text("7 / 2"), "3.5000");
        assert_eq!(text("1 / 0"), "NULL");
        assert_eq!(text("7 DIV 2"), "3");
        assert_eq!(text("-7 % 3"), "-1");
        assert_eq!(text("0.1 + 0.2"), "0.3");
        assert_eq!(text("2.50 * 2"), "5.00");
        assert_eq!(text("'3abc' + 1"), "4");
        assert_eq!(
            run("9223372036854775807 + 1").unwrap_err().code,
            ErrorCode::DataOutOfRange
        );
        assert_eq!(text("-9223372036854775808"), "-9223372036854775808");
    }

    #[test]
    fn three_valued_logic_and_comparisons() {
        assert_eq!(text("NULL AND 0"), "0");
        assert_eq!(text("NULL AND 1"), "NULL");
        assert_eq!(text("NULL OR 1"), "1");
        assert_eq!(text("NOT NULL"), "NULL");
        assert_eq!(text("NULL <=> NULL"), "1");
        assert_eq!(text("'abc' = 'ABC'"), "1");
        assert_eq!(text("2 IN (1, NULL)"), "NULL");
        assert_eq!(text("2 NOT IN (1, 3)"), "1");
        assert_eq!(text("5 BETWEEN 1 AND 5"), "1");
        assert_eq!(text("?1 + ?2"), "201");
        assert_eq!(text("2 IN (SELECT 1)"), "1");
    }

    #[test]
    fn strings_dates_and_like() {
        assert!(like_match("hello", "h%o", '\\', false));
        assert!(like_match("h_llo", "h\\_llo", '\\', false));
        assert!(!like_match("hallo", "h\\_llo", '\\', false));
        assert!(like_match("ABC", "a%", '\\', true));
        assert!(!like_match("ABC", "a%", '\\', false));
        assert_eq!(text("CONCAT('a', 1, 2.5)"), "a12.5");
        assert_eq!(
            text("DATE_ADD('2024-02-29', INTERVAL 1 YEAR)"),
            "2025-02-28"
        );
        assert_eq!(
            text("DATE_SUB('2024-01-01 00:00:00', INTERVAL 1 SECOND)"),
            "2023-12-31 23:59:59"
        );
        assert_eq!(
            text("DATE_FORMAT('2024-01-02 03:04:05', '%d/%m/%y %H-%i-%s')"),
            "02/01/24 03-04-05"
        );
        assert_eq!(text("FROM_UNIXTIME(0)"), "1970-01-01 00:00:00");
        // A string's integer prefix, as MariaDB reads it (not rounded).
        assert_eq!(text("CAST('12.6' AS UNSIGNED)"), "12");
        assert_eq!(text("CASE 2 WHEN 1 THEN 'a' WHEN 2 THEN 'b' END"), "b");
        assert_eq!(
            run("NO_SUCH(1)").unwrap_err().code,
            ErrorCode::SpDoesNotExist
        );
    }

    #[test]
    fn cast_to_decimal_takes_mariadbs_digits_and_refuses_its_out_of_range_ones() {
        // DECIMAL, DECIMAL(0) and DECIMAL(0,0) are DECIMAL(10,0), not one digit.
        assert_eq!(text("CAST(123 AS DECIMAL(0))"), "123");
        assert_eq!(text("CAST(123.456 AS DECIMAL(0,0))"), "123");
        assert_eq!(text("CAST(123.456 AS DECIMAL)"), "123");
        assert_eq!(text("CAST(12 AS DECIMAL(1,1))"), "0.9");
        assert_eq!(
            text("CAST(1.5 AS DECIMAL(65,38))"),
            "1.50000000000000000000000000000000000000"
        );
        let msg = |sql: &str| {
            let e = run(sql).unwrap_err();
            (e.code, e.message)
        };
        let m_above = "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '')";
        assert_eq!(
            msg("CAST(1 AS DECIMAL(5,6))"),
            (ErrorCode::MBiggerThanD, m_above.into())
        );
        assert_eq!(
            msg("CONVERT(1, DEC(0,2))"),
            (ErrorCode::MBiggerThanD, m_above.into())
        );
        assert_eq!(
            msg("CAST(1+2 AS DECIMAL(66,2))"),
            (
                ErrorCode::TooBigPrecision,
                "Too big precision specified for '1 + 2'. Maximum is 65".into()
            )
        );
        assert_eq!(
            msg("CONVERT('x', DECIMAL(30,39))"),
            (
                ErrorCode::TooBigScale,
                "Too big scale specified for 'x'. Maximum is 38".into()
            )
        );
        assert_eq!(
            msg("CAST(1 AS DOUBLE(30,31))"),
            (ErrorCode::MBiggerThanD, m_above.into())
        );
        assert_eq!(
            msg("CAST(-1 AS TIME(7))"),
            (
                ErrorCode::TooBigPrecision,
                "Too big precision specified for '-1'. Maximum is 6".into()
            )
        );
        // MariaDB's CAST has no NUMERIC, REAL or FLOAT(n); DOUBLE(M,D) rounding is not done.
        for sql in [
            "CAST(1 AS NUMERIC(5,2))",
            "CAST(1 AS REAL)",
            "CAST(1 AS FLOAT(10))",
        ] {
            assert_eq!(msg(sql).0, ErrorCode::ParseError, "{sql}");
        }
        assert_eq!(
            msg("CAST(1.25 AS DOUBLE(10,2))").0,
            ErrorCode::NotSupportedYet
        );
        assert_eq!(text("CAST(1.25 AS DOUBLE(65,31))"), "1.25");
        assert_eq!(text("CAST(1.25 AS FLOAT)"), "1.25");
    }

    #[test]
    fn enum_and_set_columns_are_numbers_where_numbers_are_read() {
        use crate::expr::ScopeCol;
        use crate::types::SqlType;
        let col = |name: &str, ty: SqlType, members: &[&str]| ScopeCol {
            table: "e".into(),
            db: "d".into(),
            org_table: "e".into(),
            name: name.into(),
            ty: Some(ty),
            collation: Collation::default(),
            flags: 0,
            length: 0,
            members: members.iter().map(|m| m.to_string()).collect(),
            stored_utc: false,
            json: false,
        };
        let scope = Scope {
            cols: vec![
                col("k", SqlType::Enum { count: 3 }, &["a", "b", "c"]),
                col("s", SqlType::Set { count: 3 }, &["x", "y", "z"]),
            ],
            one_row: false,
            qualified_only: Vec::new(),
        };
        let row = [Value::Text("b".into()), Value::Text("x,z".into())];
        let t = |sql: &str| match run_on(sql, &scope, &row).unwrap() {
            Value::Null => "NULL".to_string(),
            v => text_of(&v).unwrap(),
        };
        assert_eq!(t("k + 0"), "2");
        assert_eq!(t("k * 1"), "2");
        assert_eq!(t("k / 2"), "1");
        assert_eq!(t("s + 0"), "5");
        assert_eq!(t("k = 2"), "1");
        assert_eq!(t("k = 'b'"), "1");
        assert_eq!(t("k = 'B'"), "1");
        assert_eq!(t("k = '2'"), "0");
        assert_eq!(t("2 < k"), "0");
        assert_eq!(t("k IN (1, 2)"), "1");
        assert_eq!(t("k IN ('a', 'c')"), "0");
        assert_eq!(t("CAST(k AS SIGNED)"), "2");
        assert_eq!(t("CAST(k AS CHAR)"), "b");
        assert_eq!(t("CONCAT(k, '')"), "b");
        assert_eq!(t("ABS(k)"), "2");
        // An ENUM column's type without members (no catalog behind the scope): text as before.
        let bare = Scope {
            cols: vec![col("k", SqlType::Enum { count: 3 }, &[])],
            one_row: false,
            qualified_only: Vec::new(),
        };
        assert_eq!(run_on("k + 0", &bare, &row).unwrap(), Value::Double(0.0));
    }
}
