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

/// `e` as MariaDB prints it.
pub fn mariadb_text(e: &ast::Expr) -> String {
    let mut out = String::new();
    print(e, &mut out);
    out
}

/// Prints `e`, in parentheses when its precedence is below `min`.
fn print_in(e: &ast::Expr, min: u8, out: &mut String) {
    let e = strip_nested(e);
    if (precedence(e) as u8) < min {
        out.push('(');
        print(e, out);
        out.push(')');
    } else {
        print(e, out);
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
        _ => lower,
    }
}

fn print(e: &ast::Expr, out: &mut String) {
    match e {
        E::Identifier(i) => out.push_str(&quoted(&i.value)),
        E::CompoundIdentifier(ids) => {
            let parts: Vec<String> = ids.iter().map(|i| quoted(&i.value)).collect();
            out.push_str(&parts.join("."));
        }
        E::Nested(inner) => print(inner, out),
        E::Value(v) => out.push_str(&literal(&v.value)),
        E::BinaryOp { left, op, right } => match binary(op) {
            Some((text, p)) => {
                print_in(left, p as u8, out);
                out.push_str(&format!(" {text} "));
                print_in(right, p.higher(), out);
            }
            None => fallback(e, out),
        },
        E::UnaryOp { op: U::Minus, expr } => {
            out.push('-');
            print_in(expr, Prec::Neg as u8, out);
        }
        E::IsNull(x) | E::IsNotNull(x) => {
            print_in(x, Prec::Cmp.higher(), out);
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
            print_in(expr, Prec::Cmp.higher(), out);
            out.push_str(if *negated { " not like " } else { " like " });
            print_in(pattern, Prec::Cmp.higher(), out);
        }
        E::Between {
            expr,
            negated,
            low,
            high,
        } => {
            print_in(expr, Prec::Cmp.higher(), out);
            out.push_str(if *negated {
                " not between "
            } else {
                " between "
            });
            print_in(low, Prec::Cmp.higher(), out);
            out.push_str(" and ");
            print_in(high, Prec::Cmp.higher(), out);
        }
        E::InList {
            expr,
            list,
            negated,
        } => {
            print_in(expr, Prec::Cmp.higher(), out);
            out.push_str(if *negated { " not in (" } else { " in (" });
            print_list(list, out);
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
                print(o, out);
                out.push(' ');
            }
            for w in conditions {
                out.push_str("when ");
                print(&w.condition, out);
                out.push_str(" then ");
                print(&w.result, out);
                out.push(' ');
            }
            if let Some(x) = else_result {
                out.push_str("else ");
                print(x, out);
                out.push(' ');
            }
            out.push_str("end");
        }
        E::Function(f) => function(e, f, out),
        _ => fallback(e, out),
    }
}

/// A call with plain arguments: `name(a,b)`; other calls as sqlparser prints them.
fn function(e: &ast::Expr, f: &ast::Function, out: &mut String) {
    let args = match &f.args {
        ast::FunctionArguments::List(l)
            if l.duplicate_treatment.is_none() && l.clauses.is_empty() =>
        {
            let mut args = Vec::new();
            for a in &l.args {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                        args.push(x.clone())
                    }
                    _ => return fallback(e, out),
                }
            }
            args
        }
        ast::FunctionArguments::None => Vec::new(),
        _ => return fallback(e, out),
    };
    if f.over.is_some() || f.filter.is_some() || f.name.0.len() != 1 {
        return fallback(e, out);
    }
    out.push_str(&function_name(&f.name.to_string()));
    out.push('(');
    print_list(&args, out);
    out.push(')');
}

fn print_list(list: &[ast::Expr], out: &mut String) {
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        print(x, out);
    }
}

/// `e` as sqlparser prints it, its identifiers quoted.
fn fallback(e: &ast::Expr, out: &mut String) {
    let mut e = e.clone();
    crate::catalog::check_def::quote_identifiers(&mut e);
    out.push_str(&e.to_string());
}

fn quoted(name: &str) -> String {
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
