//! The dialect Betula's statements are read in: sqlparser's MySQL dialect, which it stands for
//! everywhere sqlparser asks (`dialect()` is MySQL's), with MariaDB's `!` added: the logical NOT
//! that binds tighter than any operator (`!1 + 1` is `(!1) + 1`, 1), as MariaDB's grammar reads
//! it (`'!' simple_expr`). `!!x` (one token for sqlparser) is `!(!x)`.
//!
//! And MariaDB's column attribute `BINARY` (`VARCHAR(10) BINARY`: the binary collation of the
//! column's character set), read as the column option `DialectSpecific([BINARY])` that
//! catalog/create_table resolves.
//!
//! And the assignment `@v := expr` binds loosest of all operators, as in MariaDB (`@v := a OR
//! b` assigns `a OR b`; sqlparser gives `:=` the precedence of `=`).
//!
//! And `||` is OR with OR's precedence, as in MariaDB without PIPES_AS_CONCAT (sqlparser reads
//! it as string concatenation binding like `*`); that mode is refused (types/sql_mode.rs).
//!
//! Invariant: every method the MySQL dialect defines is passed on to it unchanged; only
//! `parse_prefix` adds something, and only for a `!` / `!!` token, `parse_column_option`,
//! only for a `BINARY` keyword, and `get_next_precedence`, only for `:=` and `||`.

use std::any::TypeId;

use sqlparser::ast::{ColumnOption, Expr, Statement, UnaryOperator};
use sqlparser::dialect::{Dialect, MySqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Below every other infix operator's precedence: the right side of `:=` takes in any
/// expression.
const ASSIGNMENT_PRECEDENCE: u8 = 1;

/// Above every infix operator's precedence: the operand of `!` is one simple expression.
const BANG_OPERAND_PRECEDENCE: u8 = 200;

/// sqlparser's MySQL dialect with MariaDB's `!` (see the module doc).
#[derive(Debug, Default)]
pub struct MariaDbDialect(MySqlDialect);

static DIALECT: MariaDbDialect = MariaDbDialect(MySqlDialect {});

/// The dialect to read statements in.
pub fn dialect() -> &'static MariaDbDialect {
    &DIALECT
}

fn not(expr: Expr) -> Expr {
    Expr::UnaryOp {
        op: UnaryOperator::Not,
        expr: Box::new(expr),
    }
}

impl Dialect for MariaDbDialect {
    fn dialect(&self) -> TypeId {
        self.0.dialect()
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let double = match parser.peek_token_ref().token {
            Token::ExclamationMark => false,
            Token::DoubleExclamationMark => true,
            _ => return None,
        };
        parser.advance_token();
        let operand = parser.parse_subexpr(BANG_OPERAND_PRECEDENCE);
        Some(operand.map(|e| if double { not(not(e)) } else { not(e) }))
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        match parser.peek_token_ref().token {
            Token::Assignment => return Some(Ok(ASSIGNMENT_PRECEDENCE)),
            // `||` is OR (sql_mode without PIPES_AS_CONCAT, which Betula refuses).
            Token::StringConcat => return Some(Ok(self.prec_value(Precedence::Or))),
            _ => {}
        }
        self.0.get_next_precedence(parser)
    }

    fn parse_column_option(
        &self,
        parser: &mut Parser,
    ) -> Result<Option<Result<Option<ColumnOption>, ParserError>>, ParserError> {
        if parser.parse_keyword(Keyword::BINARY) {
            let attribute = ColumnOption::DialectSpecific(vec![Token::make_keyword("BINARY")]);
            return Ok(Some(Ok(Some(attribute))));
        }
        self.0.parse_column_option(parser)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        self.0.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.0.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.0.is_delimited_identifier_start(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.0.identifier_quote_style(identifier)
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        self.0.parse_infix(parser, expr, precedence)
    }
    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        self.0.parse_statement(parser)
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.0.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        self.0.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        self.0.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        self.0.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        self.0.supports_numeric_prefix()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        self.0.supports_bitwise_shift_operators()
    }
    fn supports_multiline_comment_hints(&self) -> bool {
        self.0.supports_multiline_comment_hints()
    }
    fn require_interval_qualifier(&self) -> bool {
        self.0.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        self.0.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        self.0.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        self.0.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        self.0.supports_user_host_grantee()
    }
    fn supports_table_hints(&self) -> bool {
        self.0.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        self.0.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        self.0.supports_match_against()
    }
    fn supports_select_modifiers(&self) -> bool {
        self.0.supports_select_modifiers()
    }
    fn supports_set_names(&self) -> bool {
        self.0.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        self.0.supports_comma_separated_set_assignments()
    }
    fn supports_update_order_by(&self) -> bool {
        self.0.supports_update_order_by()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        self.0.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        self.0.supports_cross_join_constraint()
    }
    fn supports_double_ampersand_operator(&self) -> bool {
        self.0.supports_double_ampersand_operator()
    }
    fn supports_binary_kw_as_cast(&self) -> bool {
        self.0.supports_binary_kw_as_cast()
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        self.0.supports_comment_optimizer_hint()
    }
    fn supports_constraint_keyword_without_name(&self) -> bool {
        self.0.supports_constraint_keyword_without_name()
    }
    fn supports_key_column_option(&self) -> bool {
        self.0.supports_key_column_option()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        self.0.supports_group_by_with_modifier()
    }
    fn supports_left_associative_joins_without_parens(&self) -> bool {
        self.0.supports_left_associative_joins_without_parens()
    }
}
