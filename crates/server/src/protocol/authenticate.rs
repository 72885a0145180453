//! The authentication exchange of the connection phase (design.md ACC3-ACC8): the client is
//! matched to one account, then that account's plugin checks the client's answer, switching the
//! client to it (AuthSwitchRequest) when it answered the greeting for another plugin.
//!
//! Invariants: the account is chosen before any password is looked at and only its plugin is
//! run; every refusal is the same 1045 (ACC5), sent here; a password reaches the server in
//! cleartext only over a secure connection, else RSA-encrypted; a REQUIRE SSL account is refused
//! on a connection that is not secure.

use std::io::{Read, Write};

use betula_sql::catalog::credentials::{
    caching_sha2_matches, ed25519_key_of, ed25519_public_key, native_stage2, AuthPlugin,
};

use super::auth::{self, Scramble, NATIVE_PASSWORD_PLUGIN};
use super::auth_ed25519::{self, CLIENT_ED25519_PLUGIN};
use super::auth_sha2::{self as sha2auth, RsaKeys, CACHING_SHA2_PLUGIN};
use super::backend::{Backend, UserAuth};
use super::capabilities::{Capabilities, CLIENT_PLUGIN_AUTH};
use super::error::{codes, ProtocolError, SqlError};
use super::handshake::HandshakeResponse;
use super::packet::PacketStream;

/// One connection's login: what the client sent and what the server offered.
pub(super) struct Login<'a> {
    pub hello: &'a HandshakeResponse,
    pub caps: Capabilities,
    /// The greeting's scramble.
    pub scramble: &'a Scramble,
    pub client_host: &'a str,
    /// The connection is encrypted (TLS).
    pub secure: bool,
}

/// The client's answers so far, as the exchange goes.
struct Exchange<'s, R, W> {
    stream: &'s mut PacketStream<R, W>,
    /// The last answer was not empty (the "using password" of 1045).
    used_password: bool,
}

impl<R: Read, W: Write> Exchange<'_, R, W> {
    fn send(&mut self, payload: &[u8]) -> Result<(), ProtocolError> {
        self.stream.write_packet(payload)?;
        self.stream.flush()
    }
    fn read(&mut self) -> Result<Vec<u8>, ProtocolError> {
        let p = self.stream.read_packet()?;
        self.used_password |= !p.is_empty();
        Ok(p)
    }
    /// An AuthSwitchRequest to `plugin` with `data`, and the client's answer.
    fn switch(&mut self, plugin: &str, data: &[u8]) -> Result<Vec<u8>, ProtocolError> {
        let mut p = vec![0xfe];
        p.extend_from_slice(plugin.as_bytes());
        p.push(0);
        p.extend_from_slice(data);
        self.send(&p)?;
        self.read()
    }
    /// The answer for `plugin`: the greeting's if the client answered with that plugin, else
    /// the answer to a switch (None: the client cannot switch).
    /// A plugin whose data is not the greeting's scramble (ed25519) always switches.
    fn answer_for(
        &mut self,
        login: &Login<'_>,
        plugin: &str,
        data: &[u8],
    ) -> Result<Option<Vec<u8>>, ProtocolError> {
        let client_plugin = login
            .hello
            .auth_plugin
            .as_deref()
            .unwrap_or(NATIVE_PASSWORD_PLUGIN);
        if client_plugin == plugin && data.starts_with(login.scramble) {
            return Ok(Some(login.hello.auth_response.clone()));
        }
        if !login.caps.has(CLIENT_PLUGIN_AUTH) {
            return Ok(None);
        }
        self.switch(plugin, data).map(Some)
    }
}

/// Runs the exchange. `Some(account)`: authenticated (the caller sends OK); `None`: refused, the
/// 1045 was sent.
pub(super) fn authenticate<R: Read, W: Write>(
    stream: &mut PacketStream<R, W>,
    backend: &dyn Backend,
    login: &Login<'_>,
) -> Result<Option<UserAuth>, ProtocolError> {
    let mut ex = Exchange {
        stream,
        used_password: !login.hello.auth_response.is_empty(),
    };
    let account = backend.user_auth(&login.hello.user, login.client_host);
    let ok = match &account {
        Some(a) if a.require_ssl && !login.secure => false,
        Some(a) => run_plugin(&mut ex, login, a, backend)?,
        None => {
            // No account: read an answer as for a native account, so the client cannot tell.
            let mut data = login.scramble.to_vec();
            data.push(0);
            ex.answer_for(login, NATIVE_PASSWORD_PLUGIN, &data)?;
            false
        }
    };
    if ok {
        return Ok(account);
    }
    let msg = format!(
        "Access denied for user '{}'@'{}' (using password: {})",
        login.hello.user,
        login.client_host,
        if ex.used_password { "YES" } else { "NO" }
    );
    let mut buf = Vec::new();
    super::response::encode_err(
        &mut buf,
        &SqlError::new(codes::ER_ACCESS_DENIED_ERROR, b"28000", msg),
    );
    ex.send(&buf)?;
    Ok(None)
}

/// The exchange of the account's plugin; whether the client proved the password.
fn run_plugin<R: Read, W: Write>(
    ex: &mut Exchange<'_, R, W>,
    login: &Login<'_>,
    account: &UserAuth,
    backend: &dyn Backend,
) -> Result<bool, ProtocolError> {
    let mut scramble_nul = login.scramble.to_vec();
    scramble_nul.push(0);
    match account.plugin {
        AuthPlugin::Native => {
            let Some(answer) = ex.answer_for(login, NATIVE_PASSWORD_PLUGIN, &scramble_nul)? else {
                return Ok(false);
            };
            let stored = native_stage2(&account.auth_string);
            if stored.is_none() && !account.auth_string.is_empty() {
                return Ok(false);
            }
            Ok(auth::verify(stored.as_ref(), login.scramble, &answer))
        }
        AuthPlugin::Ed25519 => {
            let nonce = auth_ed25519::new_nonce();
            let Some(answer) = ex.answer_for(login, CLIENT_ED25519_PLUGIN, &nonce)? else {
                return Ok(false);
            };
            let key = if account.auth_string.is_empty() {
                Some(ed25519_public_key(b""))
            } else {
                ed25519_key_of(&account.auth_string)
            };
            Ok(key.is_some_and(|k| auth_ed25519::verify(&k, &nonce, &answer)))
        }
        AuthPlugin::CachingSha2 => {
            let Some(answer) = ex.answer_for(login, CACHING_SHA2_PLUGIN, &scramble_nul)? else {
                return Ok(false);
            };
            caching_sha2(ex, login, account, backend, &answer)
        }
    }
}

/// caching_sha2_password after the client's first answer: the fast path if the account is
/// cached, else a full authentication (design.md ACC7).
fn caching_sha2<R: Read, W: Write>(
    ex: &mut Exchange<'_, R, W>,
    login: &Login<'_>,
    account: &UserAuth,
    backend: &dyn Backend,
    answer: &[u8],
) -> Result<bool, ProtocolError> {
    let auth = &account.auth_string;
    if auth.is_empty() || answer.is_empty() {
        return Ok(auth.is_empty() && answer.is_empty());
    }
    let key = (account.account_user.clone(), account.account_host.clone());
    if let Some(digest) = sha2auth::cached(&key, auth) {
        if sha2auth::verify_fast(&digest, login.scramble, answer) {
            ex.send(&[0x01, sha2auth::FAST_AUTH_OK])?;
            return Ok(true);
        }
    }
    ex.send(&[0x01, sha2auth::PERFORM_FULL_AUTH])?;
    let mut reply = ex.read()?;
    let password = if login.secure {
        if reply.last() == Some(&0) {
            reply.pop();
        }
        reply
    } else {
        let Some(keys) = backend
            .rsa_key_file()
            .and_then(|f| RsaKeys::shared(&f).ok())
        else {
            return Ok(false);
        };
        if reply == [sha2auth::REQUEST_PUBLIC_KEY] {
            let mut p = vec![0x01];
            p.extend_from_slice(keys.public_pem.as_bytes());
            ex.send(&p)?;
            reply = ex.read()?;
        }
        match keys.decrypt_password(login.scramble, &reply) {
            Some(pw) => pw,
            None => return Ok(false),
        }
    };
    let ok = caching_sha2_matches(auth, &password);
    if ok {
        sha2auth::remember(key, auth, &password);
    }
    Ok(ok)
}
