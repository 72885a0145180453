//! An expression as MariaDB prints a stored one (`Item::print`): a generated column's
//! `GENERATED ALWAYS AS (...)` in SHOW CREATE TABLE and information_schema.COLUMNS'
//! GENERATION_EXPRESSION.
//!
//! MariaDB prints from its parsed tree, not from the text written: identifiers in backquotes,
//! function names in lower case (some under another name: `lower` is `lcase`, `length` is
//! `octet_length`), arguments separated by `,` without a space, operators between spaces, `%`
//! as `MOD`, keywords (`like`, `between`, `is null`, `in`, `case`) in lower case, and
//! parentheses only where precedence needs them (`(a + 1) * 2`, `a - (b - c)`).
//!
//! Invariant: the printed text reads back (sqlparser, MySQL dialect) as an expression of the
//! same value; a form this printer does not know is printed as sqlparser prints it, with
//! identifiers quoted, which reads back the same even where MariaDB would spell it otherwise.

use std::cell::Cell;

use sqlparser::ast::{self, BinaryOperator as B, Expr as E, UnaryOperator as U};

/// MariaDB's operator precedences (`enum precedence`, item.h), lowest first.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Prec {
    Or = 2,
    Xor,
    And,
    Cmp = 7,
    BitOr,
    BitAnd,
    Shift,
    Add,
    Mul,
    BitXor,
    Neg = 15,
    Highest = 20,
}

impl Prec {
    /// The precedence a right operand must exceed to print without parentheses.
    fn higher(self) -> u8 {
        self as u8 + 1
    }
}

/// How names are printed.
#[derive(Clone, Debug, Default)]
pub struct Style {
    /// A database whose name is left out of qualified names (`db`.`t`.`c` is `t`.`c`, table
    /// `db`.`t` is `t`): SHOW CREATE VIEW's compact form.
    pub omit_db: Option<String>,
    /// Printed after name resolution, as MariaDB prints a view's body: a non-boolean operand of
    /// AND / OR is `x <> 0`, NOT of a comparison is the opposite comparison, NOT of another
    /// condition `!(x)` and NOT of a value `x = 0`.
    pub resolved: bool,
    /// Each SELECT printed is preceded by `/* select#N */`, N counting them in the order they
    /// are printed (the text's order), as MariaDB prints a statement of several SELECTs in
    /// EXPLAIN EXTENDED's note; the count is left here.
    pub select_numbers: Option<Cell<u32>>,
}

/// `e` as MariaDB prints it.
pub fn mariadb_text(e: &ast::Expr) -> String {
    let mut out = String::new();
    print(e, &Style::default(), &mut out);
    out
}

/// Appends `e` as MariaDB prints it in style `st`.
pub fn print_expr(e: &ast::Expr, st: &Style, out: &mut String) {
    print(e, st, out)
}

/// Prints `e`, in parentheses when its precedence is below `min`.
fn print_in(e: &ast::Expr, min: u8, st: &Style, out: &mut String) {
    let e = strip_nested(e);
    if (precedence(e) as u8) < min {
        out.push('(');
        print(e, st, out);
        out.push(')');
    } else {
        print(e, st, out);
    }
}

fn strip_nested(mut e: &ast::Expr) -> &ast::Expr {
    while let E::Nested(inner) = e {
        e = inner;
    }
    e
}

fn precedence(e: &ast::Expr) -> Prec {
    match e {
        E::BinaryOp { op, .. } => binary(op).map_or(Prec::Highest, |(_, p)| p),
        E::IsNull(_) | E::IsNotNull(_) | E::Like { .. } | E::InList { .. } | E::Between { .. } => {
            Prec::Cmp
        }
        E::UnaryOp { op: U::Minus, .. } => Prec::Neg,
        _ => Prec::Highest,
    }
}

/// MariaDB's spelling and precedence of a binary operator it prints between its operands.
fn binary(op: &B) -> Option<(&'static str, Prec)> {
    Some(match op {
        B::Or | B::StringConcat => ("or", Prec::Or),
        B::Xor => ("xor", Prec::Xor),
        B::And => ("and", Prec::And),
        B::Eq => ("=", Prec::Cmp),
        B::NotEq => ("<>", Prec::Cmp),
        B::Lt => ("<", Prec::Cmp),
        B::LtEq => ("<=", Prec::Cmp),
        B::Gt => (">", Prec::Cmp),
        B::GtEq => (">=", Prec::Cmp),
        B::Spaceship => ("<=>", Prec::Cmp),
        B::BitwiseOr => ("|", Prec::BitOr),
        B::BitwiseAnd => ("&", Prec::BitAnd),
        B::PGBitwiseShiftLeft => ("<<", Prec::Shift),
        B::PGBitwiseShiftRight => (">>", Prec::Shift),
        B::Plus => ("+", Prec::Add),
        B::Minus => ("-", Prec::Add),
        B::Multiply => ("*", Prec::Mul),
        B::Divide => ("/", Prec::Mul),
        B::MyIntegerDivide => ("DIV", Prec::Mul),
        B::Modulo => ("MOD", Prec::Mul),
        B::BitwiseXor => ("^", Prec::BitXor),
        _ => return None,
    })
}

/// The name MariaDB prints for function `name` (lower case, some under their canonical name).
fn function_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "lower" => "lcase".into(),
        "upper" => "ucase".into(),
        "length" => "octet_length".into(),
        "substring" | "mid" => "substr".into(),
        "__intrvl" => "interval".into(),
        "now" | "current_timestamp" => "current_timestamp".into(),
        _ => lower,
    }
}

fn print(e: &ast::Expr, st: &Style, out: &mut String) {
    match e {
        E::Identifier(i) => out.push_str(&quoted(&i.value)),
        E::CompoundIdentifier(ids) => {
            let skip =
                usize::from(ids.len() == 3 && st.omit_db.as_deref() == Some(ids[0].value.as_str()));
            let parts: Vec<String> = ids[skip..].iter().map(|i| quoted(&i.value)).collect();
            out.push_str(&parts.join("."));
        }
        E::Subquery(q) => {
            out.push('(');
            super::query_print::query(q, st, out);
            out.push(')');
        }
        E::Exists { subquery, negated } => {
            out.push_str(if *negated { "!exists(" } else { "exists(" });
            super::query_print::query(subquery, st, out);
            if subquery.limit_clause.is_none() {
                out.push_str(" limit 1");
            }
            out.push(')');
        }
        E::InSubquery {
            expr,
            subquery,
            negated,
        } => {
            if *negated {
                out.push_str("!(");
            }
            print_in(expr, Prec::Cmp.higher(), st, out);
            out.push_str(" in (");
            super::query_print::query(subquery, st, out);
            out.push(')');
            if *negated {
                out.push(')');
            }
        }
        E::Substring {
            expr,
            substring_from: Some(from),
            substring_for,
            ..
        } => {
            let mut args = vec![(**expr).clone(), (**from).clone()];
            args.extend(substring_for.as_deref().cloned());
            out.push_str("substr(");
            print_list(&args, st, out);
            out.push(')');
        }
        E::Trim {
            expr,
            trim_where: None,
            trim_what: None,
            trim_characters: None,
        } => {
            out.push_str("trim(");
            print(expr, st, out);
            out.push(')');
        }
        E::Tuple(items) => {
            out.push('(');
            print_list(items, st, out);
            out.push(')');
        }
        E::IsTrue(x) | E::IsNotTrue(x) | E::IsFalse(x) | E::IsNotFalse(x) => {
            print_in(x, Prec::Cmp.higher(), st, out);
            out.push_str(match e {
                E::IsTrue(_) => " is true",
                E::IsNotTrue(_) => " is not true",
                E::IsFalse(_) => " is false",
                _ => " is not false",
            });
        }
        E::RLike {
            negated: false,
            expr,
            pattern,
            ..
        } => {
            print_in(expr, Prec::Cmp.higher(), st, out);
            out.push_str(" regexp ");
            print_in(pattern, Prec::Cmp.higher(), st, out);
        }
        E::Nested(inner) => print(inner, st, out),
        E::Value(v) => out.push_str(&literal(&v.value)),
        E::BinaryOp { left, op, right } => match binary(op) {
            Some((text, p)) if st.resolved && matches!(op, B::And | B::Or) => {
                condition(left, p as u8, st, out);
                out.push_str(&format!(" {text} "));
                condition(right, p.higher(), st, out);
            }
            Some((text, p)) => {
                print_in(left, p as u8, st, out);
                out.push_str(&format!(" {text} "));
                print_in(right, p.higher(), st, out);
            }
            None => fallback(e, out),
        },
        E::UnaryOp { op: U::Not, expr } if st.resolved => negation(expr, st, out),
        E::UnaryOp { op: U::Minus, expr } => {
            out.push('-');
            print_in(expr, Prec::Neg as u8, st, out);
        }
        E::IsNull(x) | E::IsNotNull(x) => {
            print_in(x, Prec::Cmp.higher(), st, out);
            let not = if matches!(e, E::IsNotNull(_)) {
                " not"
            } else {
                ""
            };
            out.push_str(&format!(" is{not} null"));
        }
        E::Like {
            negated,
            expr,
            pattern,
            escape_char: None,
            any: false,
        } => {
            print_in(expr, Prec::Cmp.higher(), st, out);
            out.push_str(if *negated { " not like " } else { " like " });
            print_in(pattern, Prec::Cmp.higher(), st, out);
        }
        E::Between {
            expr,
            negated,
            low,
            high,
        } => {
            print_in(expr, Prec::Cmp.higher(), st, out);
            out.push_str(if *negated {
                " not between "
            } else {
                " between "
            });
            print_in(low, Prec::Cmp.higher(), st, out);
            out.push_str(" and ");
            print_in(high, Prec::Cmp.higher(), st, out);
        }
        E::InList {
            expr,
            list,
            negated,
        } => {
            print_in(expr, Prec::Cmp.higher(), st, out);
            out.push_str(if *negated { " not in (" } else { " in (" });
            print_list(list, st, out);
            out.push(')');
        }
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            out.push_str("case ");
            if let Some(o) = operand {
                print(o, st, out);
                out.push(' ');
            }
            for w in conditions {
                out.push_str("when ");
                print(&w.condition, st, out);
                out.push_str(" then ");
                print(&w.result, st, out);
                out.push(' ');
            }
            if let Some(x) = else_result {
                out.push_str("else ");
                print(x, st, out);
                out.push(' ');
            }
            out.push_str("end");
        }
        E::Function(f) => function(e, f, st, out),
        _ => fallback(e, out),
    }
}

/// Whether `e` is a condition MariaDB keeps as it is under AND, OR and NOT.
fn is_condition(e: &ast::Expr) -> bool {
    match strip_nested(e) {
        E::BinaryOp { op, .. } => matches!(
            op,
            B::And
                | B::Or
                | B::Xor
                | B::Eq
                | B::NotEq
                | B::Lt
                | B::LtEq
                | B::Gt
                | B::GtEq
                | B::Spaceship
        ),
        E::UnaryOp { op: U::Not, .. }
        | E::IsNull(_)
        | E::IsNotNull(_)
        | E::IsTrue(_)
        | E::IsNotTrue(_)
        | E::IsFalse(_)
        | E::IsNotFalse(_)
        | E::Like { .. }
        | E::RLike { .. }
        | E::InList { .. }
        | E::InSubquery { .. }
        | E::Between { .. }
        | E::Exists { .. } => true,
        _ => false,
    }
}

/// An operand of AND / OR: a value `x` is `x <> 0`.
fn condition(e: &ast::Expr, min: u8, st: &Style, out: &mut String) {
    if is_condition(e) {
        print_in(e, min, st, out);
    } else {
        print_in(e, Prec::Cmp.higher(), st, out);
        out.push_str(" <> 0");
    }
}

/// NOT `e`.
fn negation(e: &ast::Expr, st: &Style, out: &mut String) {
    let e = strip_nested(e);
    let opposite = match e {
        E::BinaryOp { op: B::Eq, .. } => Some(B::NotEq),
        E::BinaryOp { op: B::NotEq, .. } => Some(B::Eq),
        E::BinaryOp { op: B::Lt, .. } => Some(B::GtEq),
        E::BinaryOp { op: B::GtEq, .. } => Some(B::Lt),
        E::BinaryOp { op: B::Gt, .. } => Some(B::LtEq),
        E::BinaryOp { op: B::LtEq, .. } => Some(B::Gt),
        _ => None,
    };
    match (e, opposite) {
        (E::Exists { subquery, negated }, _) => print(
            &E::Exists {
                subquery: subquery.clone(),
                negated: !negated,
            },
            st,
            out,
        ),
        (E::BinaryOp { left, right, .. }, Some(op)) => print(
            &E::BinaryOp {
                left: left.clone(),
                op,
                right: right.clone(),
            },
            st,
            out,
        ),
        _ if is_condition(e) => {
            out.push_str("!(");
            print(e, st, out);
            out.push(')');
        }
        _ => {
            print_in(e, Prec::Cmp.higher(), st, out);
            out.push_str(" = 0");
        }
    }
}

/// A call with plain arguments: `name(a,b)`, `count(distinct a)`, `count(*)` as `count(0)`,
/// a window function with ` over ( ... )`; other calls as sqlparser prints them.
fn function(e: &ast::Expr, f: &ast::Function, st: &Style, out: &mut String) {
    let mut distinct = false;
    let args = match &f.args {
        ast::FunctionArguments::List(l) if l.clauses.is_empty() => {
            distinct = match l.duplicate_treatment {
                Some(ast::DuplicateTreatment::Distinct) => true,
                Some(ast::DuplicateTreatment::All) => return fallback(e, out),
                None => false,
            };
            let mut args = Vec::new();
            for a in &l.args {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                        args.push(x.clone())
                    }
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)
                        if l.args.len() == 1 =>
                    {
                        args.push(E::value(ast::Value::Number("0".into(), false)))
                    }
                    _ => return fallback(e, out),
                }
            }
            args
        }
        ast::FunctionArguments::None => Vec::new(),
        _ => return fallback(e, out),
    };
    if f.filter.is_some() || f.name.0.len() != 1 || !f.within_group.is_empty() {
        return fallback(e, out);
    }
    let over = match &f.over {
        None => None,
        Some(ast::WindowType::WindowSpec(w)) if w.window_name.is_none() => Some(w),
        Some(_) => return fallback(e, out),
    };
    out.push_str(&function_name(&f.name.to_string()));
    out.push('(');
    if distinct {
        out.push_str("distinct ");
    }
    print_list(&args, st, out);
    out.push(')');
    if let Some(w) = over {
        window(w, st, out);
    }
}

/// ` over ( partition by .. order by .. rows between .. )` as MariaDB spaces it.
fn window(w: &ast::WindowSpec, st: &Style, out: &mut String) {
    out.push_str(" over (");
    if !w.partition_by.is_empty() {
        out.push_str(" partition by ");
        print_list(&w.partition_by, st, out);
    }
    if !w.order_by.is_empty() {
        out.push_str(" order by ");
        super::query_print::order_items(&w.order_by, st, out);
    }
    if let Some(fr) = &w.window_frame {
        out.push_str(match fr.units {
            ast::WindowFrameUnits::Rows => " rows ",
            ast::WindowFrameUnits::Range => " range ",
            ast::WindowFrameUnits::Groups => " groups ",
        });
        out.push_str("between ");
        frame_bound(&fr.start_bound, st, out);
        out.push_str(" and ");
        let end = fr.end_bound.as_ref();
        frame_bound(end.unwrap_or(&ast::WindowFrameBound::CurrentRow), st, out);
    }
    out.push(')');
}

/// A frame bound as `Window_frame_bound::print` spaces it (` current row `, ` unbounded
/// preceding `, `3 following `).
fn frame_bound(b: &ast::WindowFrameBound, st: &Style, out: &mut String) {
    use ast::WindowFrameBound as W;
    let (offset, kind) = match b {
        W::CurrentRow => return out.push_str(" current row "),
        W::Preceding(o) => (o, " preceding "),
        W::Following(o) => (o, " following "),
    };
    match offset {
        Some(x) => print(x, st, out),
        None => out.push_str(" unbounded "),
    }
    out.push_str(kind);
}

fn print_list(list: &[ast::Expr], st: &Style, out: &mut String) {
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        print(x, st, out);
    }
}

/// `e` as sqlparser prints it, its identifiers quoted.
fn fallback(e: &ast::Expr, out: &mut String) {
    let mut e = e.clone();
    crate::catalog::check_def::quote_identifiers(&mut e);
    out.push_str(&e.to_string());
}

pub fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A literal as MariaDB prints it: strings in single quotes with `\` escapes.
fn literal(v: &ast::Value) -> String {
    match v {
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
            let mut out = String::from("'");
            for ch in s.chars() {
                match ch {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        ast::Value::Null => "NULL".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(sql: &str) -> String {
        let mut p = sqlparser::parser::Parser::new(crate::expr::dialect::dialect())
            .try_with_sql(sql)
            .unwrap();
        mariadb_text(&p.parse_expr().unwrap())
    }

    #[test]
    fn expressions_print_as_mariadb_prints_them() {
        // Each pair as MariaDB 10.11 shows it in information_schema.COLUMNS.
        for (written, shown) in [
            ("CONCAT(b, 'x')", "concat(`b`,'x')"),
            ("a*2+1", "`a` * 2 + 1"),
            ("IF(a>1,'y','n')", "if(`a` > 1,'y','n')"),
            ("a DIV 2", "`a` DIV 2"),
            ("LOWER(b)", "lcase(`b`)"),
            ("a IS NULL", "`a` is null"),
            ("-a", "-`a`"),
            ("a % 3", "`a` MOD 3"),
            ("(a+1)*(a-1)", "(`a` + 1) * (`a` - 1)"),
            ("length(b)", "octet_length(`b`)"),
            ("a between 1 and 5", "`a` between 1 and 5"),
            ("a in (1,2)", "`a` in (1,2)"),
            (
                "case when a > 0 then 1 else 0 end",
                "case when `a` > 0 then 1 else 0 end",
            ),
            ("a != 2", "`a` <> 2"),
            ("b like 'a%'", "`b` like 'a%'"),
            ("((a + 1)) + 2", "`a` + 1 + 2"),
            ("a - (b - c)", "`a` - (`b` - `c`)"),
        ] {
            assert_eq!(printed(written), shown, "{written}");
        }
    }
}
