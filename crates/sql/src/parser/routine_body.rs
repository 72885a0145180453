//! The grammar of a stored routine's body (design.md RTN2): MariaDB's compound statements over the
//! tokenizer, each plain statement handed to the one statement grammar ([`parse_statement`]).
//!
//! ```text
//! step  = [label:] BEGIN [decl; ...] [step; ...] END [label]
//!       | DECLARE var [, var ...] type [DEFAULT expr]
//!       | SET var = expr [, var = expr ...]          (every target a declared variable)
//!       | IF expr THEN steps [ELSEIF expr THEN steps ...] [ELSE steps] END IF
//!       | CASE [expr] WHEN expr THEN steps ... [ELSE steps] END CASE
//!       | [label:] WHILE expr DO steps END WHILE [label]
//!       | [label:] REPEAT steps UNTIL expr END REPEAT [label]
//!       | [label:] LOOP steps END LOOP [label]
//!       | LEAVE label | ITERATE label | RETURN expr
//!       | SELECT ... INTO target [, target ...] ...    (a local variable or @user variable)
//!       | any other statement, to its `;`
//! ```
//!
//! Invariants: a step's text ends at a `;` outside parentheses (or at the end of the body); an
//! expression ends at its clause's keyword outside parentheses and outside a CASE ... END of its
//! own; names of variables and labels compare case-insensitively; nothing here reads session
//! state. DECLARE of a HANDLER, CURSOR or CONDITION, SIGNAL, RESIGNAL, OPEN, FETCH, CLOSE and GET
//! DIAGNOSTICS are refused (1235).

use sqlparser::ast;
use sqlparser::parser::Parser;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::expr::dialect::dialect;
use crate::parser::statement::Statement;
use crate::parser::tokens::{syntax, Cursor, Tok};

/// One step of a body.
#[derive(Debug, Clone)]
pub enum Step {
    /// A statement of its own, and its text (result columns are named from it).
    Statement(Box<Statement>, String),
    /// `SELECT ... INTO targets`: the query without its INTO clause.
    SelectInto {
        query: Box<ast::Query>,
        targets: Vec<Target>,
    },
    Declare {
        names: Vec<String>,
        /// The type's text as written.
        ty: String,
        default: Option<ast::Expr>,
    },
    SetVars(Vec<(String, ast::Expr)>),
    If {
        arms: Vec<(ast::Expr, Vec<Step>)>,
        otherwise: Option<Vec<Step>>,
    },
    Case {
        operand: Option<ast::Expr>,
        arms: Vec<(ast::Expr, Vec<Step>)>,
        otherwise: Option<Vec<Step>>,
    },
    Block {
        label: Option<String>,
        steps: Vec<Step>,
    },
    Loop {
        label: Option<String>,
        kind: LoopKind,
        body: Vec<Step>,
    },
    Leave(String),
    Iterate(String),
    Return(ast::Expr),
}

/// What ends a loop.
#[derive(Debug, Clone)]
pub enum LoopKind {
    /// LOOP: only LEAVE.
    Plain,
    /// WHILE cond DO: checked before each round.
    While(ast::Expr),
    /// REPEAT ... UNTIL cond: checked after each round.
    Repeat(ast::Expr),
}

/// Where SELECT ... INTO puts a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Local(String),
    User(String),
}

/// Reads a body: `params` are the routine's parameter names, `function` whether RETURN is allowed.
pub fn parse_body(text: &str, params: &[String], function: bool) -> DbResult<Vec<Step>> {
    let mut p = BodyParser {
        c: Cursor::new(text),
        labels: Vec::new(),
        scopes: vec![params.iter().map(|s| s.to_lowercase()).collect()],
        function,
        returns: false,
    };
    let step = p.step()?;
    p.c.sym(';');
    if !p.c.at_end() {
        return Err(syntax(&p.c));
    }
    if function && !p.returns {
        // routine/ddl.rs names the function in the message (the database is the session's)
        return Err(DbError::new(
            ErrorCode::SpNoreturn,
            "No RETURN found in FUNCTION",
        ));
    }
    Ok(vec![step])
}

/// The length of the one step `text` starts with (up to the token after it).
pub fn step_len(text: &str, params: &[String], function: bool) -> DbResult<usize> {
    let mut p = BodyParser {
        c: Cursor::new(text),
        labels: Vec::new(),
        scopes: vec![params.iter().map(|s| s.to_lowercase()).collect()],
        function,
        returns: false,
    };
    p.step()?;
    Ok(p.c.offset())
}

struct BodyParser<'a> {
    c: Cursor<'a>,
    /// Labels around the current step: name (lower case) and whether it names a loop.
    labels: Vec<(String, bool)>,
    /// Declared names by block (lower case); the first holds the parameters.
    scopes: Vec<Vec<String>>,
    function: bool,
    /// A RETURN was read.
    returns: bool,
}

const REFUSED: &[&str] = &["SIGNAL", "RESIGNAL", "OPEN", "FETCH", "CLOSE", "GET"];

impl BodyParser<'_> {
    fn step(&mut self) -> DbResult<Step> {
        if let Some(label) = self.label()? {
            return self.labelled(Some(label));
        }
        let k = self.c.peek_kw().unwrap_or("").to_string();
        match k.as_str() {
            "BEGIN" | "LOOP" | "WHILE" | "REPEAT" => self.labelled(None),
            "DECLARE" => Err(DbError::syntax(self.c.rest())),
            "IF" => {
                self.c.pos += 1;
                self.if_step()
            }
            "CASE" => {
                self.c.pos += 1;
                self.case_step()
            }
            "LEAVE" | "ITERATE" => {
                self.c.pos += 1;
                self.jump(&k)
            }
            "RETURN" => {
                self.c.pos += 1;
                if !self.function {
                    return Err(DbError::new(
                        ErrorCode::SpBadreturn,
                        "RETURN is only allowed in a FUNCTION",
                    ));
                }
                self.returns = true;
                Ok(Step::Return(self.expr_until(&[])?))
            }
            "SET" => self.set_step(),
            k if REFUSED.contains(&k) => Err(DbError::unsupported(format!("{k} in a routine"))),
            _ => self.plain(),
        }
    }

    /// `name:` before BEGIN / LOOP / WHILE / REPEAT.
    fn label(&mut self) -> DbResult<Option<String>> {
        let save = self.c.pos;
        if let Some(Tok::Word { text, .. }) = self.c.peek().cloned() {
            self.c.pos += 1;
            if self.c.peek() == Some(&Tok::Sym(':')) {
                self.c.pos += 1;
                if self
                    .labels
                    .iter()
                    .any(|(l, _)| l.eq_ignore_ascii_case(&text))
                {
                    return Err(DbError::new(
                        ErrorCode::SpLabelRedefine,
                        format!("Redefining label {text}"),
                    ));
                }
                return Ok(Some(text));
            }
        }
        self.c.pos = save;
        Ok(None)
    }

    fn labelled(&mut self, label: Option<String>) -> DbResult<Step> {
        let k = self.c.peek_kw().unwrap_or("").to_string();
        self.c.pos += 1;
        let is_loop = k != "BEGIN";
        if let Some(l) = &label {
            self.labels.push((l.to_lowercase(), is_loop));
        }
        let step = match k.as_str() {
            "BEGIN" => self.block(label.clone()),
            "LOOP" => {
                let body = self.steps_until(&["END"])?;
                self.end_with("LOOP")?;
                Ok(Step::Loop {
                    label: label.clone(),
                    kind: LoopKind::Plain,
                    body,
                })
            }
            "WHILE" => {
                let cond = self.expr_until(&["DO"])?;
                self.expect("DO")?;
                let body = self.steps_until(&["END"])?;
                self.end_with("WHILE")?;
                Ok(Step::Loop {
                    label: label.clone(),
                    kind: LoopKind::While(cond),
                    body,
                })
            }
            "REPEAT" => {
                let body = self.steps_until(&["UNTIL"])?;
                self.expect("UNTIL")?;
                let cond = self.expr_until(&["END"])?;
                self.end_with("REPEAT")?;
                Ok(Step::Loop {
                    label: label.clone(),
                    kind: LoopKind::Repeat(cond),
                    body,
                })
            }
            _ => Err(syntax(&self.c)),
        }?;
        if let Some(l) = &label {
            self.labels.pop();
            self.end_label(l)?;
        }
        Ok(step)
    }

    /// After BEGIN: declarations, then steps, to END.
    fn block(&mut self, label: Option<String>) -> DbResult<Step> {
        self.scopes.push(Vec::new());
        let mut steps = Vec::new();
        while self.c.peek_kw() == Some("DECLARE") {
            self.c.pos += 1;
            steps.push(self.declare()?);
            self.semicolon()?;
        }
        steps.extend(self.steps_until(&["END"])?);
        self.expect("END")?;
        self.scopes.pop();
        Ok(Step::Block { label, steps })
    }

    fn declare(&mut self) -> DbResult<Step> {
        let mut names = Vec::new();
        loop {
            let name = self.c.name().ok_or_else(|| syntax(&self.c))?;
            if matches!(
                name.to_ascii_uppercase().as_str(),
                "CONTINUE" | "EXIT" | "UNDO"
            ) || matches!(self.c.peek_kw(), Some("CURSOR" | "CONDITION" | "HANDLER"))
            {
                return Err(DbError::unsupported(
                    "DECLARE ... HANDLER, CURSOR or CONDITION",
                ));
            }
            let lower = name.to_lowercase();
            let scope = self.scopes.last_mut().expect("a block's scope");
            if scope.contains(&lower) {
                return Err(DbError::new(
                    ErrorCode::SpDupVar,
                    format!("Duplicate variable: {name}"),
                ));
            }
            scope.push(lower);
            names.push(name);
            if !self.c.sym(',') {
                break;
            }
        }
        let start = self.c.offset();
        while !self.c.at_end() && self.c.peek() != Some(&Tok::Sym(';')) {
            if self.c.peek_kw() == Some("DEFAULT") {
                break;
            }
            self.c.pos += 1;
        }
        let ty = self.c.src[start..self.c.offset()].trim().to_string();
        if ty.is_empty() {
            return Err(syntax(&self.c));
        }
        let default = if self.c.kw("DEFAULT") {
            Some(self.expr_until(&[])?)
        } else {
            None
        };
        Ok(Step::Declare { names, ty, default })
    }

    fn if_step(&mut self) -> DbResult<Step> {
        let mut arms = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.expr_until(&["THEN"])?;
            self.expect("THEN")?;
            let steps = self.steps_until(&["ELSEIF", "ELSE", "END"])?;
            arms.push((cond, steps));
            if self.c.kw("ELSEIF") {
                continue;
            }
            if self.c.kw("ELSE") {
                otherwise = Some(self.steps_until(&["END"])?);
            }
            self.end_with("IF")?;
            return Ok(Step::If { arms, otherwise });
        }
    }

    fn case_step(&mut self) -> DbResult<Step> {
        let operand = if self.c.peek_kw() == Some("WHEN") {
            None
        } else {
            Some(self.expr_until(&["WHEN"])?)
        };
        let mut arms = Vec::new();
        while self.c.kw("WHEN") {
            let cond = self.expr_until(&["THEN"])?;
            self.expect("THEN")?;
            arms.push((cond, self.steps_until(&["WHEN", "ELSE", "END"])?));
        }
        if arms.is_empty() {
            return Err(syntax(&self.c));
        }
        let otherwise = if self.c.kw("ELSE") {
            Some(self.steps_until(&["END"])?)
        } else {
            None
        };
        self.end_with("CASE")?;
        Ok(Step::Case {
            operand,
            arms,
            otherwise,
        })
    }

    fn jump(&mut self, k: &str) -> DbResult<Step> {
        let label = self.c.name().ok_or_else(|| syntax(&self.c))?;
        let lower = label.to_lowercase();
        let found = self.labels.iter().rev().find(|(l, _)| *l == lower);
        match found {
            Some((_, is_loop)) if k == "LEAVE" || *is_loop => Ok(if k == "LEAVE" {
                Step::Leave(lower)
            } else {
                Step::Iterate(lower)
            }),
            _ => Err(DbError::new(
                ErrorCode::SpLilabelMismatch,
                format!("{k} with no matching label: {label}"),
            )),
        }
    }

    /// SET of declared variables; any other SET is a statement of its own.
    fn set_step(&mut self) -> DbResult<Step> {
        let save = self.c.pos;
        self.c.pos += 1;
        let mut pairs = Vec::new();
        loop {
            let name = match self.c.peek().cloned() {
                Some(Tok::Word { text, .. }) if self.is_var(&text) => text,
                _ if pairs.is_empty() => {
                    self.c.pos = save;
                    return self.plain();
                }
                _ => return Err(DbError::unsupported("SET of variables of several kinds")),
            };
            self.c.pos += 1;
            if !(self.c.sym('=') || (self.c.sym(':') && self.c.sym('='))) {
                return Err(syntax(&self.c));
            }
            pairs.push((name.to_lowercase(), self.expr_until(&[])?));
            if !self.c.sym(',') {
                return Ok(Step::SetVars(pairs));
            }
        }
    }

    fn is_var(&self, name: &str) -> bool {
        let lower = name.to_lowercase();
        self.scopes.iter().any(|s| s.contains(&lower))
    }

    /// A statement of its own, to its `;`; SELECT ... INTO of variables becomes [`Step::SelectInto`].
    fn plain(&mut self) -> DbResult<Step> {
        let start = self.c.offset();
        let mut depth = 0i32;
        let mut into = None;
        while let Some(t) = self.c.peek() {
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                Tok::Sym(';') if depth <= 0 => break,
                Tok::Word {
                    upper,
                    quoted: false,
                    ..
                } if depth == 0 && upper == "INTO" && into.is_none() => {
                    into = Some((self.c.pos, self.c.offset()));
                }
                _ => {}
            }
            self.c.pos += 1;
        }
        let end = self.c.offset();
        let first = self.c.src[start..end]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        if first == "SELECT" || first.starts_with("(") {
            if let Some((at, into_off)) = into {
                return self.select_into(start, at, into_off, end);
            }
        }
        let text = &self.c.src[start..end];
        if text.trim().is_empty() {
            return Err(syntax(&self.c));
        }
        let stmt = crate::parser::parse_statement(text)?;
        Ok(Step::Statement(Box::new(stmt), text.to_string()))
    }

    fn select_into(
        &mut self,
        start: usize,
        at: usize,
        into_off: usize,
        end: usize,
    ) -> DbResult<Step> {
        let back = self.c.pos;
        self.c.pos = at + 1;
        let mut targets = Vec::new();
        loop {
            let name = self.c.name().ok_or_else(|| syntax(&self.c))?;
            let target = match name.strip_prefix('@') {
                Some(u) => Target::User(u.to_string()),
                None if self.is_var(&name) => Target::Local(name.to_lowercase()),
                None => {
                    return Err(DbError::new(
                        ErrorCode::SpUndeclaredVar,
                        format!("Undeclared variable: {name}"),
                    ))
                }
            };
            targets.push(target);
            if !self.c.sym(',') {
                break;
            }
        }
        let after = self.c.offset().min(end);
        self.c.pos = back;
        let text = format!(
            "{} {}",
            &self.c.src[start..into_off],
            &self.c.src[after..end]
        );
        match crate::parser::parse_statement(&text)? {
            Statement::Sql(s) => match *s {
                ast::Statement::Query(query) => Ok(Step::SelectInto { query, targets }),
                _ => Err(DbError::syntax(text)),
            },
            _ => Err(DbError::syntax(text)),
        }
    }

    /// Steps, each ended by `;`, until one of `stops` is next.
    fn steps_until(&mut self, stops: &[&str]) -> DbResult<Vec<Step>> {
        let mut steps = Vec::new();
        loop {
            match self.c.peek_kw() {
                Some(k) if stops.contains(&k) => return Ok(steps),
                _ if self.c.at_end() => return Err(syntax(&self.c)),
                _ => {}
            }
            steps.push(self.step()?);
            self.semicolon()?;
        }
    }

    /// The expression from here to a stop keyword, a `;` or a `,` outside parentheses and CASE.
    fn expr_until(&mut self, stops: &[&str]) -> DbResult<ast::Expr> {
        let start = self.c.offset();
        let (mut depth, mut cases) = (0i32, 0i32);
        while let Some(t) = self.c.peek() {
            match t {
                Tok::Sym('(') => depth += 1,
                Tok::Sym(')') => depth -= 1,
                Tok::Sym(';' | ',') if depth <= 0 => break,
                Tok::Word {
                    upper,
                    quoted: false,
                    ..
                } if depth <= 0 => {
                    if upper == "CASE" {
                        cases += 1;
                    } else if upper == "END" && cases > 0 {
                        cases -= 1;
                    } else if cases == 0 && stops.contains(&upper.as_str()) {
                        break;
                    }
                }
                _ => {}
            }
            self.c.pos += 1;
        }
        let text = &self.c.src[start..self.c.offset()];
        parse_expr(text)
    }

    fn expect(&mut self, kw: &str) -> DbResult<()> {
        if self.c.kw(kw) {
            Ok(())
        } else {
            Err(syntax(&self.c))
        }
    }

    fn end_with(&mut self, kw: &str) -> DbResult<()> {
        self.expect("END")?;
        self.expect(kw)
    }

    /// An optional label after END ...; it must repeat the step's own (1310).
    fn end_label(&mut self, label: &str) -> DbResult<()> {
        if let Some(Tok::Word { text, .. }) = self.c.peek().cloned() {
            if self.c.peek() != Some(&Tok::Sym(';')) && !text.eq_ignore_ascii_case("END") {
                if !text.eq_ignore_ascii_case(label) {
                    return Err(DbError::new(
                        ErrorCode::SpLabelMismatch,
                        format!("End-label {text} without match"),
                    ));
                }
                self.c.pos += 1;
            }
        }
        Ok(())
    }

    fn semicolon(&mut self) -> DbResult<()> {
        if self.c.sym(';') {
            Ok(())
        } else {
            Err(syntax(&self.c))
        }
    }
}

/// One expression's text as sqlparser reads it (1064 if anything follows it).
pub fn parse_expr(text: &str) -> DbResult<ast::Expr> {
    let mut p = Parser::new(dialect())
        .with_recursion_limit(crate::parser::RECURSION_LIMIT)
        .try_with_sql(text)
        .map_err(|e| DbError::parse_error(text, e))?;
    let e = p.parse_expr().map_err(|e| DbError::parse_error(text, e))?;
    if p.peek_token().token != sqlparser::tokenizer::Token::EOF {
        return Err(DbError::syntax(text));
    }
    Ok(e)
}

/// Whether `steps` hold a SELECT that would send a result set (a function may not: 1415).
pub fn sends_result_set(steps: &[Step]) -> bool {
    steps.iter().any(|s| match s {
        Step::Statement(st, _) => {
            matches!(&**st, Statement::Sql(q) if matches!(**q, ast::Statement::Query(_)))
                || matches!(&**st, Statement::Show(_))
        }
        Step::If { arms, otherwise }
        | Step::Case {
            arms, otherwise, ..
        } => {
            arms.iter().any(|(_, b)| sends_result_set(b))
                || otherwise.as_deref().is_some_and(sends_result_set)
        }
        Step::Block { steps, .. } => sends_result_set(steps),
        Step::Loop { body, .. } => sends_result_set(body),
        _ => false,
    })
}
