//! Accounts and grants: CREATE / DROP / ALTER / RENAME USER, SET PASSWORD, GRANT and REVOKE,
//! over the catalog's account entries (grammar: parser/users.rs; design.md ACC1-ACC9).
//!
//! Invariants: every statement acts on exactly the `'user'@'host'` pairs it names (ACC1); only
//! root creates, drops or changes another account or grants (an account may change its own
//! password); the last root account cannot be dropped or renamed away; grants are
//! database-level (any privilege grants use of the database, `*` every database:
//! docs/mysql-compat.md); a password is kept only in its plugin's stored form (ACC4), a plugin
//! Betula lacks is refused (1524, ACC8).

use crate::catalog::credentials::{auth_string, valid_auth_string, AuthPlugin};
use crate::catalog::users::REPLICATION_SLAVE;
use crate::catalog::UserDef;
use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::parser::users::{
    Credential, GrantOn, Identified, NewUser, Replication, RequireSsl, UserName,
};
use crate::result::Output;

/// 1396 for `op` on the named accounts.
fn failed(op: &str, users: &[&UserName]) -> DbError {
    let names: Vec<String> = users
        .iter()
        .map(|u| format!("'{}'@'{}'", u.name, u.host))
        .collect();
    DbError::new(
        ErrorCode::CannotUser,
        format!("Operation {op} failed for {}", names.join(",")),
    )
}

fn plugin_named(name: &str) -> DbResult<AuthPlugin> {
    AuthPlugin::from_name(name).ok_or_else(|| {
        DbError::new(
            ErrorCode::PluginIsNotLoaded,
            format!("Plugin '{name}' is not loaded"),
        )
    })
}

/// The stored form `credential` gives for `plugin` (1372 for a malformed stored form).
fn stored_form(plugin: AuthPlugin, credential: &Credential) -> DbResult<String> {
    match credential {
        Credential::Empty => Ok(String::new()),
        Credential::Clear(pw) => Ok(auth_string(plugin, pw.as_bytes())),
        Credential::Stored(s) if valid_auth_string(plugin, s) => Ok(s.clone()),
        Credential::Stored(_) => Err(DbError::new(
            ErrorCode::PasswdLength,
            match plugin {
                AuthPlugin::Native => "Password hash should be a 41-digit hexadecimal number",
                AuthPlugin::Ed25519 => "Password hash should be 43 characters long",
                AuthPlugin::CachingSha2 => "Password hash should be 70 characters long",
            },
        )),
    }
}

/// Applies an IDENTIFIED clause: its plugin (native when it names none) and stored form.
fn identify(u: &mut UserDef, auth: &Identified) -> DbResult<()> {
    let plugin = match &auth.plugin {
        Some(name) => plugin_named(name)?,
        None => AuthPlugin::Native,
    };
    u.auth = stored_form(plugin, &auth.credential)?;
    u.plugin = plugin;
    Ok(())
}

fn is_own(cx: &Context, user: &UserName) -> bool {
    user.name == cx.account_user && user.host == cx.account_host
}

/// CREATE USER [IF NOT EXISTS] user [IDENTIFIED ...], ... [REQUIRE ...]
pub fn create_user(
    cx: &mut Context,
    if_not_exists: bool,
    users: &[NewUser],
    require: RequireSsl,
) -> DbResult<Output> {
    cx.need_root("CREATE USER")?;
    let mut missing = Vec::new();
    for NewUser { user, auth } in users {
        let UserName { name, host } = user;
        if cx.engine.catalog.user(name, host).is_some() {
            if if_not_exists {
                cx.note(
                    ErrorCode::UserCreateExists,
                    format!("Can't create user '{name}'@'{host}'; it already exists"),
                );
            } else {
                missing.push(user);
            }
            continue;
        }
        let mut u = UserDef {
            name: name.clone(),
            host: host.clone(),
            require_ssl: require.unwrap_or(false),
            ..UserDef::default()
        };
        if let Some(auth) = auth {
            identify(&mut u, auth)?;
        }
        cx.engine.catalog.put_user(u)?;
    }
    if missing.is_empty() {
        Ok(Output::done(0))
    } else {
        Err(failed("CREATE USER", &missing))
    }
}

/// Whether dropping or renaming `'name'@'host'` would leave no root account.
fn last_root(cx: &Context, name: &str, host: &str) -> bool {
    name == "root"
        && !cx
            .engine
            .catalog
            .users()
            .iter()
            .any(|u| u.name == "root" && u.host != host)
}

/// DROP USER [IF EXISTS] user, ...
pub fn drop_user(cx: &mut Context, if_exists: bool, users: &[UserName]) -> DbResult<Output> {
    cx.need_root("CREATE USER")?;
    let mut failures = Vec::new();
    for user in users {
        let UserName { name, host } = user;
        if last_root(cx, name, host) {
            failures.push(user);
        } else if !cx.engine.catalog.drop_user(name, host)? {
            if if_exists {
                cx.note(
                    ErrorCode::UserDropExists,
                    format!("Can't drop user '{name}'@'{host}'; it doesn't exist"),
                );
            } else {
                failures.push(user);
            }
        }
    }
    if failures.is_empty() {
        Ok(Output::done(0))
    } else {
        Err(failed("DROP USER", &failures))
    }
}

/// ALTER USER [IF EXISTS] user [IDENTIFIED ...], ... [REQUIRE ...]
pub fn alter_user(
    cx: &mut Context,
    if_exists: bool,
    users: &[NewUser],
    require: RequireSsl,
) -> DbResult<Output> {
    if users.iter().any(|u| !is_own(cx, &u.user)) || require.is_some() {
        cx.need_root("CREATE USER")?;
    }
    let mut failures = Vec::new();
    for NewUser { user, auth } in users {
        let Some(mut u) = cx.engine.catalog.user(&user.name, &user.host) else {
            if if_exists {
                cx.note(
                    ErrorCode::CannotUser,
                    format!(
                        "Operation ALTER USER failed for '{}'@'{}'",
                        user.name, user.host
                    ),
                );
            } else {
                failures.push(user);
            }
            continue;
        };
        if let Some(auth) = auth {
            identify(&mut u, auth)?;
        }
        if let Some(ssl) = require {
            u.require_ssl = ssl;
        }
        cx.engine.catalog.put_user(u)?;
    }
    if failures.is_empty() {
        Ok(Output::done(0))
    } else {
        Err(failed("ALTER USER", &failures))
    }
}

/// RENAME USER a TO b, ...: each pair whose source exists and target does not is renamed (with
/// its password and grants); the others fail the statement (1396) after the rest are done.
pub fn rename_users(cx: &mut Context, pairs: &[(UserName, UserName)]) -> DbResult<Output> {
    cx.need_root("CREATE USER")?;
    let mut failures = Vec::new();
    for (from, to) in pairs {
        let src = cx.engine.catalog.user(&from.name, &from.host);
        let taken = cx.engine.catalog.user(&to.name, &to.host).is_some();
        let (Some(mut u), false) = (src, taken) else {
            failures.push(from);
            continue;
        };
        if to.name != "root" && last_root(cx, &from.name, &from.host) {
            failures.push(from);
            continue;
        }
        cx.engine.catalog.drop_user(&from.name, &from.host)?;
        u.name = to.name.clone();
        u.host = to.host.clone();
        u.legacy_key = false;
        cx.engine.catalog.put_user(u)?;
    }
    if failures.is_empty() {
        Ok(Output::done(0))
    } else {
        Err(failed("RENAME USER", &failures))
    }
}

/// SET PASSWORD [FOR user] = ... (the session's own account without FOR); the account keeps its
/// plugin.
pub fn set_password(
    cx: &mut Context,
    user: Option<&UserName>,
    credential: &Credential,
) -> DbResult<Output> {
    let own = UserName {
        name: cx.account_user.clone(),
        host: cx.account_host.clone(),
    };
    let user = user.unwrap_or(&own);
    if !is_own(cx, user) {
        cx.need_root("CREATE USER")?;
    }
    let mut u = cx
        .engine
        .catalog
        .user(&user.name, &user.host)
        .ok_or_else(no_matching_row)?;
    u.auth = stored_form(u.plugin, credential)?;
    cx.engine.catalog.put_user(u)?;
    Ok(Output::done(0))
}

/// 1133 ER_PASSWORD_NO_MATCH.
pub fn no_matching_row() -> DbError {
    DbError::new(
        ErrorCode::PasswordNoMatch,
        "Can't find any matching row in the user table",
    )
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
    let mut u = cx.engine.catalog.user(name, host).ok_or_else(|| {
        if revoke {
            DbError::new(
                ErrorCode::NonexistingGrant,
                format!("There is no such grant defined for user '{name}' on host '{host}'"),
            )
        } else {
            no_matching_row()
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
