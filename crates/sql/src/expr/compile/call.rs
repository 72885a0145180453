//! Calls: function calls by name (scalar functions, session functions, aggregates, `VALUES(col)`,
//! DATE_ADD/DATE_SUB), and the SQL syntax forms that are calls (EXTRACT, SUBSTRING ... FROM ...
//! FOR, TRIM ... FROM, CEIL, FLOOR, POSITION ... IN).
//!
//! Invariants:
//! * A call with OVER is a window function call (window.rs); clauses the evaluator does not
//!   implement (FILTER, IGNORE NULLS, WITHIN GROUP) are refused (1235), never ignored.
//! * A session function with constant arguments folds to its value here; RAND becomes an
//!   [`Expr::Rand`] with its own generator, SLEEP an [`Expr::Sleep`] waiting on the connection's
//!   interrupt flag; any other name must be a known scalar function (functions/) or a stored
//!   function the environment expands (design.md RTN6), or is 1305; `db.f()` is always stored.
//! * An aggregate's argument is compiled without aggregates (nested aggregates are 1111); equal
//!   aggregate calls share one `Agg(i)`.

use sqlparser::ast;

use super::compound_call::compound_extract_call;
use super::operators::interval_operand;
use super::{interval_unit, object_name_parts, Compiler};
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::aggregate::Accumulator;
use crate::expr::eval::EvalCtx;
use crate::expr::functions::Rng;
use crate::expr::{AggFunc, AggSpec, Expr, IntervalUnit, ZoneShift};
use crate::types::value::Value;

/// Whether `e` is a text literal or a function of literals only, at least one of them text.
fn literal_text(e: &Expr) -> bool {
    match e {
        Expr::Lit(Value::Text(_)) => true,
        Expr::Func(_, args) => {
            args.iter()
                .all(|a| matches!(a, Expr::Lit(_)) || literal_text(a))
                && args.iter().any(literal_text)
        }
        _ => false,
    }
}

/// Clauses of a call that the evaluator does not implement are refused, never ignored.
fn refuse_unsupported_call_clauses(f: &ast::Function) -> DbResult<()> {
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

/// GROUP_CONCAT's SEPARATOR (`,` by default) and ORDER BY.
pub(super) fn aggregate_clauses(f: &ast::Function) -> (String, Vec<ast::OrderByExpr>) {
    let mut separator = ",".to_string();
    let mut order = Vec::new();
    if let ast::FunctionArguments::List(l) = &f.args {
        for c in &l.clauses {
            match c {
                ast::FunctionArgumentClause::Separator(v) => {
                    separator = match &v.value {
                        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                            s.clone()
                        }
                        other => other.to_string(),
                    }
                }
                ast::FunctionArgumentClause::OrderBy(obs) => order = obs.clone(),
                _ => {}
            }
        }
    }
    (separator, order)
}

pub(super) fn agg_func(name: &str) -> Option<AggFunc> {
    Some(match name {
        "COUNT" => AggFunc::Count,
        "SUM" => AggFunc::Sum,
        "AVG" => AggFunc::Avg,
        "MIN" => AggFunc::Min,
        "MAX" => AggFunc::Max,
        "GROUP_CONCAT" => AggFunc::GroupConcat,
        "JSON_ARRAYAGG" => AggFunc::JsonArrayAgg,
        "JSON_OBJECTAGG" => AggFunc::JsonObjectAgg,
        "BIT_AND" => AggFunc::BitAnd,
        "BIT_OR" => AggFunc::BitOr,
        "BIT_XOR" => AggFunc::BitXor,
        "FIRST" => AggFunc::First,
        "LAST" => AggFunc::Last,
        "DELTA" => AggFunc::Delta,
        "RATE" => AggFunc::Rate,
        "STD" | "STDDEV" | "STDDEV_POP" => AggFunc::StdPop,
        "STDDEV_SAMP" => AggFunc::StdSamp,
        "VARIANCE" | "VAR_POP" => AggFunc::VarPop,
        "VAR_SAMP" => AggFunc::VarSamp,
        _ => return None,
    })
}

impl Compiler<'_> {
    /// EXTRACT, SUBSTRING, TRIM, CEIL, FLOOR and POSITION written as SQL syntax.
    pub(super) fn call_syntax(&mut self, e: &ast::Expr) -> DbResult<Expr> {
        use ast::Expr as E;
        Ok(match e {
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
            E::Ceil { expr, .. } => Expr::Func(
                "CEIL".into(),
                vec![super::division::unrounded(self.compile(expr)?)],
            ),
            E::Floor { expr, .. } => Expr::Func(
                "FLOOR".into(),
                vec![super::division::unrounded(self.compile(expr)?)],
            ),
            E::Position { expr, r#in } => Expr::Func(
                "LOCATE".into(),
                vec![self.compile(expr)?, self.compile(r#in)?],
            ),
            other => return Err(DbError::unsupported(format!("expression {other}"))),
        })
    }

    pub(super) fn args(&mut self, f: &ast::Function) -> DbResult<(Vec<ast::Expr>, bool, bool)> {
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

    /// A stored function's expansion compiled; the function leaves the routine stack after.
    fn stored_call(&mut self, expansion: DbResult<ast::Expr>) -> DbResult<Expr> {
        let e = expansion?;
        let compiled = self.compile(&e);
        self.env.end_stored_function();
        compiled
    }

    pub(super) fn function(&mut self, f: &ast::Function) -> DbResult<Expr> {
        let name = object_name_parts(&f.name)
            .last()
            .cloned()
            .unwrap_or_default()
            .to_ascii_uppercase();
        // INTERVAL(N, N1, ...) as the parser's retry wrote it
        let name = match name.as_str() {
            crate::expr::functions::INTERVAL_FUNCTION => "INTERVAL".to_string(),
            _ => name,
        };
        if f.over.is_some() {
            return self.window_call(f, &name);
        }
        if let Some((unit, x)) = compound_extract_call(f) {
            return Ok(Expr::Func(
                format!("__EXTRACT_{unit:?}"),
                vec![self.compile(x)?],
            ));
        }
        refuse_unsupported_call_clauses(f)?;
        let (args, distinct, star) = self.args(f)?;
        // `db.f(...)`: a stored function, whatever built-in has the name (RTN6).
        let parts = object_name_parts(&f.name);
        if let [db, fname] = parts.as_slice() {
            let expansion = self.env.stored_function(Some(db), fname, &args);
            return match expansion {
                Some(e) => self.stored_call(e),
                None => Err(DbError::no_function(&format!("{db}.{fname}"))),
            };
        }
        if let Some(agg) = agg_func(&name) {
            return self.aggregate(agg, &name, f, args, distinct, star);
        }
        match name.as_str() {
            "VALUES" if self.insert_scope.is_some() => return self.insert_value(&args),
            "CHARSET" | "COLLATION" | "COERCIBILITY" => return self.charset_info(&name, &args),
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" => return self.date_add(&name, &args),
            "TIME_BUCKET" if matches!(args.first(), Some(ast::Expr::Interval(_))) => {
                return self.time_bucket(&args)
            }
            "TIMESTAMPDIFF" | "TIMESTAMPADD" => return self.timestamp_unit_call(&name, &args),
            "REGEXP_INSTR" | "REGEXP_SUBSTR" | "REGEXP_REPLACE" => {
                if let Some(e) = self.regexp_function(&name, &args) {
                    return e;
                }
            }
            n if n.starts_with("JSON_") => {
                if let Some(e) = self.json_function(&name, &args) {
                    return e;
                }
            }
            "RAND" => {
                if let Some(e) = self.rand(&args)? {
                    return Ok(e);
                }
            }
            "SLEEP" => {
                if let Some(interrupt) = self.env.interrupt() {
                    let [secs] = args.as_slice() else {
                        return Err(DbError::wrong_args("SLEEP"));
                    };
                    let secs = self.compile(secs)?;
                    return Ok(Expr::Sleep(Box::new(secs), interrupt));
                }
            }
            _ => {}
        }
        let mut compiled = Vec::with_capacity(args.len());
        let numbers = crate::expr::functions::reads_numbers(&name);
        for a in &args {
            let e = self.compile(a)?;
            compiled.push(if numbers { self.number(e) } else { e });
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
        if !crate::expr::functions::is_known_function(&name) {
            let written = parts.last().cloned().unwrap_or_default();
            if let Some(e) = self.env.stored_function(None, &written, &args) {
                return self.stored_call(e);
            }
            return Err(DbError::no_function(&name.to_ascii_lowercase()));
        }
        if matches!(name.as_str(), "HEX" | "LENGTH" | "OCTET_LENGTH") {
            compiled = compiled.into_iter().map(|e| self.in_own_bytes(e)).collect();
        }
        // ROUND(1/3, 8) and FLOOR(2/3*3) read the quotient's inner digits (compile/division.rs).
        let mut compiled = compiled;
        if matches!(
            name.as_str(),
            "ROUND" | "TRUNCATE" | "FLOOR" | "CEIL" | "CEILING"
        ) {
            if let Some(first) = compiled.first_mut() {
                let e = std::mem::replace(first, Expr::Lit(Value::Null));
                *first = super::division::unrounded(e);
            }
        }
        if name == "UNIX_TIMESTAMP" && compiled.len() == 1 {
            // The result's decimals follow the argument's type (decimals.rs); the evaluator
            // reads them as a second argument (functions/temporal.rs).
            let scale = crate::expr::decimals::unix_timestamp_decimals(self.scope, &compiled[0]);
            compiled.push(Expr::Lit(
                scale.map_or(Value::Null, |s| Value::UInt(u64::from(s))),
            ));
        }
        Ok(self.zoned_call(name, compiled))
    }

    /// `e` as the bytes of its character set where that is not UTF-8 (a latin1 or koi8r column's text:
    /// HEX and the byte lengths count its latin1 bytes, as MariaDB's do); else `e`.
    /// Text built of literals only is in the connection's character set (MariaDB's literals are).
    fn in_own_bytes(&mut self, e: Expr) -> Expr {
        use crate::types::charset::Charset;
        let own = match e.text_collation(self.scope) {
            Some(c) => Some(c.charset()),
            None if literal_text(&e) => Some(self.connection_collation().charset()),
            None => None,
        };
        match own {
            Some(cs @ (Charset::Latin1 | Charset::Ascii | Charset::Koi8r)) => Expr::Func(
                crate::expr::functions::CHARSET_BYTES.into(),
                vec![e, Expr::Lit(Value::Text(cs.name().into()))],
            ),
            _ => e,
        }
    }

    /// A call whose meaning depends on the session's time zone: UNIX_TIMESTAMP(d) reads `d` in
    /// it (a TIMESTAMP column gives its stored instant), FROM_UNIXTIME gives a time in it.
    fn zoned_call(&mut self, name: String, mut args: Vec<Expr>) -> Expr {
        let tz = self.env.time_zone();
        if tz.is_utc() {
            return Expr::Func(name, args);
        }
        let local = |e: Expr| Expr::InZone(Box::new(e), tz, ZoneShift::ToLocal);
        match (name.as_str(), args.len()) {
            ("UNIX_TIMESTAMP", 2) => {
                let utc = match args.remove(0) {
                    Expr::InZone(stored, _, ZoneShift::ToLocal) => *stored,
                    other => Expr::InZone(Box::new(other), tz, ZoneShift::ToUtc),
                };
                args.insert(0, utc);
                Expr::Func(name, args)
            }
            ("FROM_UNIXTIME", 1) => local(Expr::Func(name, args)),
            ("FROM_UNIXTIME", 2) => {
                let format = args.pop().unwrap_or(Expr::Lit(Value::Null));
                let when = local(Expr::Func(name, args));
                Expr::Func("DATE_FORMAT".into(), vec![when, format])
            }
            _ => Expr::Func(name, args),
        }
    }

    /// `VALUES(col)` in ON DUPLICATE KEY UPDATE: the column of the row the INSERT tried.
    fn insert_value(&mut self, args: &[ast::Expr]) -> DbResult<Expr> {
        let s = self.insert_scope.unwrap_or(self.scope);
        let parts = match args.first() {
            Some(ast::Expr::Identifier(i)) => vec![i.value.clone()],
            Some(ast::Expr::CompoundIdentifier(ids)) => {
                ids.iter().map(|i| i.value.clone()).collect()
            }
            _ => return Err(DbError::wrong_args("VALUES")),
        };
        let col = parts.last().cloned().unwrap_or_default();
        match s.resolve(None, None, &col, "SELECT")? {
            Some(i) => Ok(self.read_in_zone(s, i, Expr::InsertValue(i))),
            None => Err(DbError::bad_field(&col, "SELECT")),
        }
    }

    /// `RAND([seed])`, a generator per call (functions/random.rs); `None` where there is no
    /// session to seed it (a column DEFAULT), where RAND stays an unknown function.
    fn rand(&mut self, args: &[ast::Expr]) -> DbResult<Option<Expr>> {
        let Some(seed) = self.env.rand_seed() else {
            return Ok(None);
        };
        Ok(Some(match args {
            [] => Expr::Rand(None, Rng::seeded(seed)),
            [a] => {
                let a = self.compile(a)?;
                let rng = Rng::for_seed_argument(a.is_const());
                Expr::Rand(Some(Box::new(a)), rng)
            }
            _ => return Err(DbError::wrong_args("RAND")),
        }))
    }

    /// DATE_ADD(d, INTERVAL n unit), DATE_SUB, ADDDATE(d, n) (days), SUBDATE.
    fn date_add(&mut self, name: &str, args: &[ast::Expr]) -> DbResult<Expr> {
        if args.len() != 2 {
            return Err(DbError::wrong_args(name));
        }
        let sub = name == "DATE_SUB" || name == "SUBDATE";
        let d = self.compile(&args[0])?;
        let (n, unit) = match interval_operand(&args[1]) {
            Some(iv) => {
                let (unit, amount) = iv?;
                (self.compile(amount)?, unit)
            }
            None => (self.compile(&args[1])?, IntervalUnit::Day),
        };
        Ok(Expr::DateAdd(Box::new(d), Box::new(n), unit, sub))
    }

    /// TIME_BUCKET(INTERVAL n unit, ts [, origin]) as `__TIME_BUCKET_<Unit>(n, ts [, origin])`
    /// (functions/time_series.rs).
    fn time_bucket(&mut self, args: &[ast::Expr]) -> DbResult<Expr> {
        let (Some(ast::Expr::Interval(iv)), 2..=3) = (args.first(), args.len()) else {
            return Err(DbError::wrong_args("TIME_BUCKET"));
        };
        let unit = match &iv.leading_field {
            Some(f) => interval_unit(f)?,
            None => IntervalUnit::Second,
        };
        let mut compiled = vec![self.compile(&iv.value)?];
        for a in &args[1..] {
            compiled.push(self.compile(a)?);
        }
        Ok(Expr::Func(format!("__TIME_BUCKET_{unit:?}"), compiled))
    }

    /// TIMESTAMPDIFF(unit, a, b) as `__TIMESTAMPDIFF_<unit>(a, b)` and TIMESTAMPADD(unit, n, d)
    /// as `d + INTERVAL n unit`; the unit is a keyword (`SQL_TSI_` prefixed too), 1064 otherwise.
    fn timestamp_unit_call(&mut self, name: &str, args: &[ast::Expr]) -> DbResult<Expr> {
        let [unit, x, y] = args else {
            return Err(DbError::wrong_args(name));
        };
        let word = match unit {
            ast::Expr::Identifier(i) => i.value.to_ascii_uppercase(),
            other => return Err(DbError::syntax(format!("{other}"))),
        };
        let unit = match word.strip_prefix("SQL_TSI_").unwrap_or(&word) {
            "MICROSECOND" => IntervalUnit::Microsecond,
            "SECOND" => IntervalUnit::Second,
            "MINUTE" => IntervalUnit::Minute,
            "HOUR" => IntervalUnit::Hour,
            "DAY" => IntervalUnit::Day,
            "WEEK" => IntervalUnit::Week,
            "MONTH" => IntervalUnit::Month,
            "QUARTER" => IntervalUnit::Quarter,
            "YEAR" => IntervalUnit::Year,
            _ => return Err(DbError::syntax(word)),
        };
        let (x, y) = (self.compile(x)?, self.compile(y)?);
        Ok(if name == "TIMESTAMPADD" {
            Expr::DateAdd(Box::new(y), Box::new(x), unit, false)
        } else {
            Expr::Func(format!("__TIMESTAMPDIFF_{unit:?}"), vec![x, y])
        })
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
        let pair = matches!(
            func,
            AggFunc::First | AggFunc::Last | AggFunc::Delta | AggFunc::Rate
        );
        if pair && (args.len() != 2 || distinct) {
            return Err(DbError::wrong_args(name));
        }
        let json = matches!(func, AggFunc::JsonArrayAgg | AggFunc::JsonObjectAgg);
        if json {
            super::json::json_aggregate_form(func, name, f, args.len(), distinct)?;
        } else if func != AggFunc::CountStar
            && !pair
            && (args.is_empty()
                || (func != AggFunc::GroupConcat && func != AggFunc::Count && args.len() != 1))
        {
            return Err(DbError::syntax(format!("{name}(")));
        }
        let (separator, order_ast) = aggregate_clauses(f);
        let limit = self.concat_limit(f)?;
        // SUM, AVG, BIT_AND, BIT_OR and the deviations read numbers: an ENUM/SET column gives
        // its member number.
        let numbers = matches!(
            func,
            AggFunc::Sum
                | AggFunc::Avg
                | AggFunc::BitAnd
                | AggFunc::BitOr
                | AggFunc::BitXor
                | AggFunc::StdPop
                | AggFunc::StdSamp
                | AggFunc::VarPop
                | AggFunc::VarSamp
        );
        // The argument is evaluated on input rows: compile it without aggregates.
        let outer_before = self.env.outer_reads();
        let many_before = self.env.outer_reads_many();
        let saved = self.aggs.take();
        let Some(list) = saved else {
            return Err(DbError::new(
                ErrorCode::InvalidGroupFuncUse,
                "Invalid use of group function",
            ));
        };
        let mut arg = Vec::new();
        let mut order = Vec::new();
        // A window call in the argument is 4074.
        let in_agg = Some(ErrorCode::SumFuncWithWindowFuncAsArg);
        let saved_block = self
            .windows
            .as_mut()
            .map(|w| std::mem::replace(&mut w.blocked, in_agg));
        let mut json_kinds = Vec::new();
        let res = (|| -> DbResult<()> {
            for a in &args {
                let e = self.compile(a)?;
                if json {
                    json_kinds.push(self.json_arg_kind(a, &e));
                }
                arg.push(if numbers { self.number(e) } else { e });
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
        if let (Some(w), Some(b)) = (self.windows.as_mut(), saved_block) {
            w.blocked = b;
        }
        res?;
        let mut of_one_row = false;
        if self.env.outer_reads() > outer_before {
            // MariaDB aggregates an aggregate of only outer columns in the outer query: done
            // here when that query is one row (an INSERT's VALUES record), whose values the
            // arguments hold for this run of the subquery.
            let mut inner = false;
            for e in arg.iter().chain(order.iter().map(|(e, _)| e)) {
                e.visit_cols(&mut |_| inner = true);
            }
            if !inner && self.env.outer_reads_many() > many_before {
                return Err(DbError::unsupported(
                    "an aggregate of an enclosing query's columns in a subquery",
                ));
            }
            of_one_row = !inner;
        }
        let max_len_bytes = self.group_concat_max_len();
        let list = self.aggs.as_mut().expect("restored above");
        let collations = arg.iter().map(|e| self.scope.collation_of(e)).collect();
        let order_collations = order
            .iter()
            .map(|(e, _)| self.scope.collation_of(e))
            .collect();
        let spec = AggSpec {
            func,
            arg,
            distinct,
            separator,
            order,
            collations,
            order_collations,
            limit,
            max_len_bytes,
            json_kinds,
        };
        if of_one_row {
            let mut acc = Accumulator::new(&spec);
            acc.add(&spec, &EvalCtx::row(&[]))?;
            return Ok(Expr::Lit(acc.finish(&spec)));
        }
        if let Some(i) = list.iter().position(|s| *s == spec) {
            return Ok(Expr::Agg(i));
        }
        list.push(spec);
        Ok(Expr::Agg(list.len() - 1))
    }

    /// GROUP_CONCAT's / JSON_ARRAYAGG's `LIMIT n` as `(0, n)`; `LIMIT (m, n)` (parser/
    /// mariadb_forms.rs writes MariaDB's `LIMIT m, n` so) as `(m, n)`. Each a constant count
    /// (1064 otherwise).
    fn concat_limit(&mut self, f: &ast::Function) -> DbResult<Option<(u64, u64)>> {
        let ast::FunctionArguments::List(l) = &f.args else {
            return Ok(None);
        };
        let Some(e) = l.clauses.iter().find_map(|c| match c {
            ast::FunctionArgumentClause::Limit(e) => Some(e),
            _ => None,
        }) else {
            return Ok(None);
        };
        let parts: Vec<&ast::Expr> = match e {
            ast::Expr::Tuple(items) if items.len() == 2 => items.iter().collect(),
            other => vec![other],
        };
        let mut counts = Vec::with_capacity(2);
        for p in parts {
            let n = match self.compile(p)? {
                Expr::Lit(Value::Int(n)) if n >= 0 => n as u64,
                Expr::Lit(Value::UInt(n)) => n,
                _ => return Err(DbError::syntax(p)),
            };
            counts.push(n);
        }
        Ok(Some(match counts[..] {
            [m, n] => (m, n),
            [n] => (0, n),
            _ => unreachable!("one or two counts"),
        }))
    }

    /// group_concat_max_len of the session (MariaDB's default where there is none).
    fn group_concat_max_len(&mut self) -> u64 {
        match self.env.system_var("group_concat_max_len", false) {
            Ok(Value::Int(n)) if n >= 0 => n as u64,
            Ok(Value::UInt(n)) => n,
            _ => crate::expr::GROUP_CONCAT_MAX_LEN_DEFAULT,
        }
    }
}
