//! SHOW GRANTS and SHOW CREATE USER, per account (design.md ACC1).
//!
//! Invariants: an account is shown as MariaDB 10.11 shows it: `IDENTIFIED BY PASSWORD '*hex'`
//! for mysql_native_password, `IDENTIFIED VIA <plugin> [USING '<stored form>']` for the others,
//! then ` REQUIRE SSL` when required; grants are shown as MySQL writes database-level ones
//! (`GRANT ALL PRIVILEGES ON `db`.* TO ...`) after the account's `GRANT USAGE ON *.*` line. Only
//! root sees another account's.

use super::t;
use crate::catalog::credentials::AuthPlugin;
use crate::catalog::users::REPLICATION_SLAVE;
use crate::catalog::UserDef;
use crate::context::Context;
use crate::ddl::users::no_matching_row;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::result::Output;

/// `` `user`@`host` ``.
fn quoted(u: &UserDef) -> String {
    format!("`{}`@`{}`", u.name, u.host)
}

/// What SHOW CREATE USER and SHOW GRANTS write after the account's name.
fn identified(u: &UserDef) -> String {
    let mut s = match (u.plugin, u.auth.is_empty()) {
        (AuthPlugin::Native, true) => String::new(),
        (AuthPlugin::Native, false) => format!(" IDENTIFIED BY PASSWORD '{}'", u.auth),
        (p, true) => format!(" IDENTIFIED VIA {}", p.name()),
        (p, false) => format!(" IDENTIFIED VIA {} USING '{}'", p.name(), u.auth),
    };
    if u.require_ssl {
        s.push_str(" REQUIRE SSL");
    }
    s
}

/// The account `(name, host)`, or the session's own for `None`; root for another's.
fn account(cx: &Context, user: Option<(&str, &str)>) -> DbResult<Option<UserDef>> {
    let own = (cx.account_user.as_str(), cx.account_host.as_str());
    let (name, host) = user.unwrap_or(own);
    if name != cx.account_user || host != cx.account_host {
        cx.need_root("SELECT")?;
    }
    Ok(cx.engine.catalog.user(name, host))
}

/// SHOW GRANTS [FOR user] (the session's own account without FOR).
pub fn grants(cx: &Context, user: Option<&(String, String)>) -> DbResult<Output> {
    let key = user.map(|(n, h)| (n.as_str(), h.as_str()));
    let u = account(cx, key)?.ok_or_else(|| {
        let (name, host) = key.unwrap_or((cx.account_user.as_str(), cx.account_host.as_str()));
        DbError::new(
            ErrorCode::NonexistingGrant,
            format!("There is no such grant defined for user '{name}' on host '{host}'"),
        )
    })?;
    let to = quoted(&u);
    let mut rows = vec![vec![t(format!(
        "GRANT USAGE ON *.* TO {to}{}",
        identified(&u)
    ))]];
    for g in &u.grants {
        let line = if g == REPLICATION_SLAVE {
            format!("GRANT REPLICATION SLAVE ON *.* TO {to}")
        } else if g == "*" {
            format!("GRANT ALL PRIVILEGES ON *.* TO {to}")
        } else {
            format!("GRANT ALL PRIVILEGES ON `{g}`.* TO {to}")
        };
        rows.push(vec![t(line)]);
    }
    Ok(Output::text(
        &[&format!("Grants for {}@{}", u.name, u.host)],
        rows,
    ))
}

/// SHOW CREATE USER user.
pub fn create_user(cx: &Context, user: &str, host: &str) -> DbResult<Output> {
    let u = account(cx, Some((user, host)))?.ok_or_else(no_matching_row)?;
    Ok(Output::text(
        &[&format!("CREATE USER for {user}@{host}")],
        vec![vec![t(format!(
            "CREATE USER {}{}",
            quoted(&u),
            identified(&u)
        ))]],
    ))
}
