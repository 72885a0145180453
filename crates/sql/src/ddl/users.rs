//! Accounts and grants: CREATE / DROP / ALTER USER, SET PASSWORD, GRANT and REVOKE, over the
//! catalog's user entries (grammar: parser/users.rs).
//!
//! Invariants: only root creates, drops or changes another account or grants; root cannot be
//! dropped; grants are database-level (any privilege grants use of the database, `*` every
//! database: docs/mysql-compat.md); a password is kept only as its hash (empty: none).

use crate::catalog::users::REPLICATION_SLAVE;
use crate::catalog::UserDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::users::{GrantOn, NewUser, Replication, UserName};
use crate::result::Output;

fn hash(cx: &Context, pw: &str) -> Option<[u8; 20]> {
    if pw.is_empty() {
        None
    } else {
        Some((cx.engine.config.password_hash)(pw.as_bytes()))
    }
}

/// CREATE USER [IF NOT EXISTS] user [IDENTIFIED BY 'pw'], ...
pub fn create_user(cx: &mut Context, if_not_exists: bool, users: &[NewUser]) -> DbResult<Output> {
    cx.need_root("CREATE USER")?;
    for NewUser { user, password } in users {
        let UserName { name, host } = user;
        if cx.engine.catalog.user(name).is_some() {
            if !if_not_exists {
                return Err(DbError::new(
                    ErrorCode::CannotUser,
                    format!("Operation CREATE USER failed for '{name}'@'{host}'"),
                ));
            }
        } else {
            cx.engine.catalog.put_user(UserDef {
                name: name.clone(),
                password_hash: password.as_deref().and_then(|p| hash(cx, p)),
                grants: vec![],
            })?;
        }
    }
    Ok(Output::done(0))
}

/// DROP USER [IF EXISTS] user, ...
pub fn drop_user(cx: &mut Context, if_exists: bool, users: &[UserName]) -> DbResult<Output> {
    cx.need_root("CREATE USER")?;
    for UserName { name, host } in users {
        let failed = || {
            DbError::new(
                ErrorCode::CannotUser,
                format!("Operation DROP USER failed for '{name}'@'{host}'"),
            )
        };
        if name == "root" {
            return Err(failed());
        }
        if !cx.engine.catalog.drop_user(name)? && !if_exists {
            return Err(failed());
        }
    }
    Ok(Output::done(0))
}

/// ALTER USER user [IDENTIFIED BY 'pw'].
pub fn alter_user(cx: &mut Context, user: &UserName, password: Option<&str>) -> DbResult<Output> {
    let UserName { name, host } = user;
    if *name != cx.user {
        cx.need_root("CREATE USER")?;
    }
    let mut u = cx.engine.catalog.user(name).ok_or_else(|| {
        DbError::new(
            ErrorCode::CannotUser,
            format!("Operation ALTER USER failed for '{name}'@'{host}'"),
        )
    })?;
    if let Some(pw) = password {
        u.password_hash = hash(cx, pw);
    }
    cx.engine.catalog.put_user(u)?;
    Ok(Output::done(0))
}

/// SET PASSWORD [FOR user] = 'pw' (the session's own account without FOR).
pub fn set_password(cx: &mut Context, user: Option<&str>, password: &str) -> DbResult<Output> {
    let user = user.map_or_else(|| cx.user.clone(), str::to_string);
    if user != cx.user {
        cx.need_root("CREATE USER")?;
    }
    let mut u = cx.engine.catalog.user(&user).ok_or_else(|| {
        DbError::new(
            ErrorCode::PasswordNoMatch,
            "Can't find any matching row in the user table",
        )
    })?;
    u.password_hash = hash(cx, password);
    cx.engine.catalog.put_user(u)?;
    Ok(Output::done(0))
}

/// GRANT privs ON db.* TO user / REVOKE privs ON db.* FROM user (database level: any
/// privilege grants use of the database; see docs/mysql-compat.md).
pub fn grant(
    cx: &mut Context,
    on: &GrantOn,
    user: &UserName,
    revoke: bool,
    replication: Replication,
) -> DbResult<Output> {
    cx.need_root("GRANT OPTION")?;
    let db = match on {
        GrantOn::Database(db) => db.clone(),
        GrantOn::Current => cx.db.clone().unwrap_or_else(|| "*".into()),
        GrantOn::CurrentTable => cx.db.clone().ok_or_else(DbError::no_db)?,
    };
    let UserName { name, host } = user;
    let mut u = cx.engine.catalog.user(name).ok_or_else(|| {
        if revoke {
            DbError::new(
                ErrorCode::NonexistingGrant,
                format!("There is no such grant defined for user '{name}' on host '{host}'"),
            )
        } else {
            DbError::new(
                ErrorCode::CantCreateUserWithGrant,
                "You are not allowed to create a user with GRANT",
            )
        }
    })?;
    let mut names = Vec::new();
    if replication != Replication::Only {
        names.push(db);
    }
    if replication != Replication::None {
        names.push(REPLICATION_SLAVE.to_string());
    }
    for db in names {
        if revoke {
            u.grants.retain(|g| *g != db);
        } else if !u.grants.contains(&db) {
            u.grants.push(db);
        }
    }
    cx.engine.catalog.put_user(u)?;
    Ok(Output::done(0))
}
