//! How expressions see a connection: [`CompileEnv`] for [`Context`]. Variables, parameters and
//! session functions come from the context; an uncorrelated subquery is run here, by the
//! executor, when the expression that holds it is compiled (a correlated one: subqueries.rs).

use sqlparser::ast;

use crate::context::Context;
use crate::error::db_error::{DbError, DbResult};
use crate::error::sql_error::Warning;
use crate::exec::query;
use crate::expr::{CompileEnv, Scope, ScopeCol, SubqueryRun};
use crate::result::Output;
use crate::types::value::Value;

impl CompileEnv for Context {
    fn warn(&mut self, w: Warning) {
        self.warnings.push(w);
    }
    fn source_text(&self, span: sqlparser::tokenizer::Span) -> Option<String> {
        Context::source_text(self, span)
    }
    fn printed(&self, e: &ast::Expr) -> String {
        crate::catalog::expr_print::mariadb_text(e)
    }
    fn system_var(&mut self, name: &str, global: bool) -> DbResult<Value> {
        self.sysvar_value(name, global)
            .ok_or_else(|| DbError::unknown_var(name))
    }
    fn user_var(&mut self, name: &str) -> Value {
        self.user_vars.get(name)
    }
    fn user_var_slot(&mut self, name: &str, assign: bool) -> Option<crate::expr::UserVarSlot> {
        (assign || self.assigns_user_vars).then(|| self.user_vars.slot(name))
    }
    fn param(&mut self, index: usize) -> DbResult<Value> {
        self.params
            .get(index)
            .cloned()
            .ok_or_else(|| DbError::syntax("?"))
    }
    fn subquery(&mut self, q: &ast::Query) -> DbResult<Vec<Vec<Value>>> {
        let saved = std::mem::take(&mut self.cur_sql);
        let r = match self.explained_subqueries.as_ref().map(Vec::len) {
            Some(slot) => query::explain_subquery(self, q, slot),
            None => query::run_query(self, q),
        };
        self.cur_sql = saved;
        match r? {
            Output::Rows { rows, .. } => Ok(rows),
            _ => Ok(vec![]),
        }
    }
    fn subquery_in(&mut self, q: &ast::Query, scope: &Scope) -> DbResult<SubqueryRun> {
        self.subquery_of_scope(q, scope)
    }
    fn outer_column(
        &mut self,
        db: Option<&str>,
        table: Option<&str>,
        name: &str,
        place: &str,
    ) -> DbResult<Option<(Value, ScopeCol)>> {
        self.outer_name(db, table, name, place)
    }
    fn stored_function(
        &mut self,
        db: Option<&str>,
        name: &str,
        args: &[ast::Expr],
    ) -> Option<DbResult<ast::Expr>> {
        crate::plan::stored_function::expand(self, db, name, args)
    }
    fn end_stored_function(&mut self) {
        self.routine_stack.pop();
    }
    fn outer_reads(&self) -> usize {
        self.outer_reads
    }
    fn outer_reads_many(&self) -> usize {
        self.outer_reads_many
    }
    fn session_fn(&mut self, name: &str, args: &[Value]) -> Option<DbResult<Value>> {
        self.session_function(name, args)
    }
    fn rand_seed(&mut self) -> Option<u64> {
        Some(self.new_rand_seed())
    }
    fn interrupt(&self) -> Option<crate::error::interrupt::Interrupt> {
        Some(self.interrupt.clone())
    }
    fn time_zone(&self) -> crate::types::time_zone::TimeZone {
        self.time_zone
    }
}
