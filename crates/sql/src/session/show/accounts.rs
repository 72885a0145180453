//! SHOW GRANTS and SHOW CREATE USER.
//!
//! Invariant: grants are shown as MySQL writes database-level ones (`GRANT ALL PRIVILEGES ON
//! `db`.* TO ...`), after the account's `GRANT USAGE ON *.*`, for host `%` (Betula's accounts
//! have no host).

use super::t;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;

/// SHOW GRANTS [FOR user] (the session's own account without FOR).
pub fn grants(cx: &Context, user: Option<&str>) -> DbResult<Output> {
    let user = user.map_or_else(|| cx.user.clone(), str::to_string);
    let u = cx.engine.catalog.user(&user).ok_or_else(|| {
        DbError::new(
            ErrorCode::NonexistingGrant,
            format!("There is no such grant defined for user '{user}' on host '%'"),
        )
    })?;
    let mut rows = vec![vec![t(format!("GRANT USAGE ON *.* TO `{user}`@`%`"))]];
    for g in &u.grants {
        if g == crate::catalog::users::REPLICATION_SLAVE {
            rows.push(vec![t(format!(
                "GRANT REPLICATION SLAVE ON *.* TO `{user}`@`%`"
            ))]);
            continue;
        }
        let on = if g == "*" {
            "*.*".to_string()
        } else {
            format!("`{g}`.*")
        };
        rows.push(vec![t(format!(
            "GRANT ALL PRIVILEGES ON {on} TO `{user}`@`%`"
        ))]);
    }
    Ok(Output::text(&[&format!("Grants for {user}@%")], rows))
}

pub fn create_user(user: &str, host: &str) -> Output {
    Output::text(
        &[&format!("CREATE USER for {user}@{host}")],
        vec![vec![t(format!(
            "CREATE USER '{user}'@'{host}' IDENTIFIED WITH 'mysql_native_password'"
        ))]],
    )
}
