//! CALL: a procedure's arguments bound to its parameters, its body run by the interpreter in
//! the procedure's database, OUT and INOUT parameters copied back to the caller's user variables
//! (design.md RTN3, RTN5).
//!
//! Invariants: the arguments are evaluated in the caller's scope before the body runs; the body
//! sees its own variables only (the caller's frames are set aside while it runs and put back
//! after, error or not), and runs with the procedure's database as the current one; the routine
//! stack is popped whatever way the body ends; OUT / INOUT values reach the caller only when the
//! body succeeded, as in MariaDB.

use sqlparser::ast;

use crate::catalog::routine_def::RoutineKind;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::routine_body::parse_body;
use crate::parser::routines::{parse_params, user_var_of, ParamMode};
use crate::result::Output;
use crate::routine::interpreter::Interpreter;
use crate::routine::vars::Vars;
use crate::routine::{qualify, Dispatch};
use crate::types::value::Value;

/// CALLs nest at most this deep, whatever `max_sp_recursion_depth` says (RTN5).
pub const MAX_CALL_DEPTH: usize = 64;

/// CALL `name`(`args`).
pub fn call(
    cx: &mut Context,
    name: &[String],
    args: &[ast::Expr],
    dispatch: Dispatch,
) -> DbResult<Output> {
    let (db, pname) = qualify(cx, name)?;
    let def = cx
        .engine
        .catalog
        .routine(&db, RoutineKind::Procedure, &pname)
        .ok_or_else(|| {
            DbError::new(
                ErrorCode::SpDoesNotExist,
                format!("PROCEDURE {db}.{pname} does not exist"),
            )
        })?;
    let lower = def.name.to_lowercase();
    let running = cx
        .routine_stack
        .iter()
        .filter(|(k, d, n)| *k == RoutineKind::Procedure && *d == def.db && *n == lower)
        .count();
    let limit = cx.int_var("max_sp_recursion_depth").min(255) as usize;
    if running > limit || cx.routine_stack.len() >= MAX_CALL_DEPTH {
        return Err(DbError::new(
            ErrorCode::SpRecursionLimit,
            format!(
                "Recursive limit {limit} (as set by the max_sp_recursion_depth variable) was exceeded for routine {}",
                def.name
            ),
        ));
    }
    let params = parse_params(&def.params, RoutineKind::Procedure)?;
    if params.len() != args.len() {
        return Err(DbError::new(
            ErrorCode::SpWrongNoOfArgs,
            format!(
                "Incorrect number of arguments for PROCEDURE {}.{}; expected {}, got {}",
                def.db,
                def.name,
                params.len(),
                args.len()
            ),
        ));
    }
    let mut outs = Vec::new();
    let mut vars = Vars::default();
    for (i, (p, a)) in params.iter().zip(args).enumerate() {
        if p.mode != ParamMode::In {
            let var = user_var_of(a).ok_or_else(|| {
                DbError::new(
                    ErrorCode::SpNotVarArg,
                    format!(
                        "OUT or INOUT argument {} for routine {}.{} is not a variable or NEW pseudo-variable in BEFORE trigger",
                        i + 1,
                        def.db,
                        def.name
                    ),
                )
            })?;
            outs.push((p.name.clone(), var));
        }
        let v = match p.mode {
            ParamMode::Out => Value::Null,
            _ => Vars::default().eval(cx, a)?,
        };
        vars.declare(cx, &p.name, &p.ty, v)?;
    }
    let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    let body = parse_body(&def.body, &names, false)?;
    let frames = std::mem::take(&mut cx.outer_frames);
    let caller_db = cx.db.replace(def.db.clone());
    cx.routine_stack
        .push((RoutineKind::Procedure, def.db.clone(), lower));
    let mut interpreter = Interpreter::new(vars, dispatch);
    let r = interpreter.steps(cx, &body);
    cx.routine_stack.pop();
    cx.db = caller_db;
    cx.outer_frames = frames;
    r?;
    for (param, var) in outs {
        let v = interpreter.vars.get(&param).cloned().unwrap_or(Value::Null);
        cx.user_vars.set(&var, v);
    }
    Ok(Output::done(0))
}
