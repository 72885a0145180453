//! The connection phase: Protocol::HandshakeV10 (server greeting),
//! Protocol::HandshakeResponse41 / SSLRequest (client reply) and
//! Protocol::AuthSwitchRequest.
//!
//! Invariants: the greeting offers `SERVER_CAPABILITIES` (plus CLIENT_SSL
//! when the server has a certificate, see [`greeting_capabilities`]) and the
//! mysql_native_password plugin with a 20-byte scramble; decoding the
//! client's reply never panics and rejects pre-4.1 clients; an SSLRequest
//! (a 32-byte reply with CLIENT_SSL) is recognised, never misparsed as
//! credentials: the server then starts TLS or refuses it cleanly.

use super::auth::{Scramble, NATIVE_PASSWORD_PLUGIN};
use super::capabilities::*;
use super::column::charset;
use super::error::ProtocolError;
use super::status::StatusFlags;
use super::wire::{put_nul_bytes, put_u16, put_u32, WireReader};

/// The capabilities a greeting offers: CLIENT_SSL only when TLS is configured (design.md TLS3).
pub fn greeting_capabilities(tls: bool) -> u32 {
    if tls {
        SERVER_CAPABILITIES | CLIENT_SSL
    } else {
        SERVER_CAPABILITIES
    }
}

/// Builds the initial handshake packet payload offering `capabilities`.
pub fn encode_greeting(
    out: &mut Vec<u8>,
    server_version: &str,
    connection_id: u32,
    scramble: &Scramble,
    status: StatusFlags,
    capabilities: u32,
) {
    out.push(10);
    // A NUL inside the version would truncate it; drop such bytes.
    let version: Vec<u8> = server_version.bytes().filter(|&b| b != 0).collect();
    put_nul_bytes(out, &version);
    put_u32(out, connection_id);
    out.extend_from_slice(&scramble[..8]);
    out.push(0);
    put_u16(out, capabilities as u16);
    out.push(charset::UTF8MB4_GENERAL_CI as u8);
    put_u16(out, status.0);
    put_u16(out, (capabilities >> 16) as u16);
    out.push(scramble.len() as u8 + 1);
    out.extend_from_slice(&[0u8; 10]);
    put_nul_bytes(out, &scramble[8..]);
    put_nul_bytes(out, NATIVE_PASSWORD_PLUGIN.as_bytes());
}

/// The decoded HandshakeResponse41.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HandshakeResponse {
    /// The client's raw capability flags (not yet intersected).
    pub capabilities: u32,
    pub max_packet: u32,
    pub charset: u8,
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    /// The auth plugin the client used for `auth_response`.
    pub auth_plugin: Option<String>,
    /// Connection attributes (CLIENT_CONNECT_ATTRS), decoded leniently.
    pub attributes: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientHello {
    /// The client wants to switch to TLS before sending its credentials.
    SslRequest,
    Response(HandshakeResponse),
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Decodes the client's reply to the greeting.
pub fn decode_client_hello(payload: &[u8]) -> Result<ClientHello, ProtocolError> {
    let mut r = WireReader::new(payload);
    if payload.len() < 4 {
        return Err(ProtocolError::Malformed("handshake response too short"));
    }
    let caps = r.u32()?;
    if caps & CLIENT_PROTOCOL_41 == 0 {
        return Err(ProtocolError::Malformed(
            "client does not support protocol 4.1",
        ));
    }
    let max_packet = r.u32()?;
    let charset = r.u8()?;
    r.take(23)?;
    if caps & CLIENT_SSL != 0 && r.is_empty() {
        return Ok(ClientHello::SslRequest);
    }
    let user = text(r.nul_bytes());
    let auth_response = if caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        r.lenenc_bytes()?.to_vec()
    } else if caps & CLIENT_SECURE_CONNECTION != 0 {
        let n = r.u8()? as usize;
        r.take(n)?.to_vec()
    } else {
        r.nul_bytes().to_vec()
    };
    let mut resp = HandshakeResponse {
        capabilities: caps,
        max_packet,
        charset,
        user,
        auth_response,
        ..Default::default()
    };
    if caps & CLIENT_CONNECT_WITH_DB != 0 && !r.is_empty() {
        let db = r.nul_bytes();
        if !db.is_empty() {
            resp.database = Some(text(db));
        }
    }
    if caps & CLIENT_PLUGIN_AUTH != 0 && !r.is_empty() {
        resp.auth_plugin = Some(text(r.nul_bytes()));
    }
    if caps & CLIENT_CONNECT_ATTRS != 0 && !r.is_empty() {
        // Attributes are informational: a malformed block is ignored.
        if let Ok(block) = r.lenenc_bytes() {
            let mut a = WireReader::new(block);
            while !a.is_empty() {
                match (a.lenenc_bytes(), a.lenenc_bytes()) {
                    (Ok(k), Ok(v)) => resp.attributes.push((text(k), text(v))),
                    _ => break,
                }
            }
        }
    }
    Ok(ClientHello::Response(resp))
}

/// AuthSwitchRequest asking the client to answer `scramble` with `plugin`.
pub fn encode_auth_switch(out: &mut Vec<u8>, plugin: &str, scramble: &Scramble) {
    out.push(0xfe);
    put_nul_bytes(out, plugin.as_bytes());
    put_nul_bytes(out, scramble);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::put_lenenc_bytes;

    fn response_bytes(
        caps: u32,
        user: &str,
        auth: &[u8],
        db: Option<&str>,
        plugin: &str,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        put_u32(&mut out, caps);
        put_u32(&mut out, 1 << 24);
        out.push(45);
        out.extend_from_slice(&[0; 23]);
        put_nul_bytes(&mut out, user.as_bytes());
        out.push(auth.len() as u8);
        out.extend_from_slice(auth);
        if let Some(db) = db {
            put_nul_bytes(&mut out, db.as_bytes());
        }
        put_nul_bytes(&mut out, plugin.as_bytes());
        out
    }

    #[test]
    fn greeting_layout() {
        let scramble = *b"ABCDEFGHIJKLMNOPQRST";
        let mut out = Vec::new();
        encode_greeting(
            &mut out,
            "8.0.35-betula",
            7,
            &scramble,
            StatusFlags::AUTOCOMMIT,
            greeting_capabilities(false),
        );
        assert_eq!(out[0], 10);
        let mut r = WireReader::new(&out[1..]);
        assert_eq!(r.nul_bytes(), b"8.0.35-betula");
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.take(8).unwrap(), b"ABCDEFGH");
        assert_eq!(r.u8().unwrap(), 0);
        let lo = r.u16().unwrap() as u32;
        r.u8().unwrap();
        assert_eq!(r.u16().unwrap(), 2);
        let hi = r.u16().unwrap() as u32;
        assert_eq!(lo | hi << 16, SERVER_CAPABILITIES);
        assert_eq!(lo & CLIENT_SSL, 0, "no certificate: no CLIENT_SSL");
        assert_eq!(r.u8().unwrap(), 21);
        r.take(10).unwrap();
        assert_eq!(r.nul_bytes(), b"IJKLMNOPQRST");
        assert_eq!(r.nul_bytes(), b"mysql_native_password");
        assert!(r.is_empty());
    }

    #[test]
    fn greeting_offers_ssl_with_a_certificate() {
        let mut out = Vec::new();
        let caps = greeting_capabilities(true);
        encode_greeting(&mut out, "v", 1, &[0; 20], StatusFlags::AUTOCOMMIT, caps);
        let lo = u16::from_le_bytes([out[1 + 2 + 4 + 8 + 1], out[1 + 2 + 4 + 8 + 2]]);
        assert_ne!(u32::from(lo) & CLIENT_SSL, 0);
    }

    #[test]
    fn decode_response() {
        let caps = CLIENT_PROTOCOL_41
            | CLIENT_SECURE_CONNECTION
            | CLIENT_CONNECT_WITH_DB
            | CLIENT_PLUGIN_AUTH;
        let b = response_bytes(
            caps,
            "root",
            &[1; 20],
            Some("test"),
            "caching_sha2_password",
        );
        let ClientHello::Response(r) = decode_client_hello(&b).unwrap() else {
            panic!("expected a response");
        };
        assert_eq!(r.user, "root");
        assert_eq!(r.auth_response, vec![1; 20]);
        assert_eq!(r.database.as_deref(), Some("test"));
        assert_eq!(r.auth_plugin.as_deref(), Some("caching_sha2_password"));
    }

    #[test]
    fn decode_attrs_and_lenenc_auth() {
        let caps = CLIENT_PROTOCOL_41
            | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | CLIENT_PLUGIN_AUTH
            | CLIENT_CONNECT_ATTRS;
        let mut out = Vec::new();
        put_u32(&mut out, caps);
        put_u32(&mut out, 0);
        out.push(45);
        out.extend_from_slice(&[0; 23]);
        put_nul_bytes(&mut out, b"u");
        put_lenenc_bytes(&mut out, b"xyz");
        put_nul_bytes(&mut out, b"mysql_native_password");
        let mut attrs = Vec::new();
        put_lenenc_bytes(&mut attrs, b"_client_name");
        put_lenenc_bytes(&mut attrs, b"libmariadb");
        put_lenenc_bytes(&mut out, &attrs);
        let ClientHello::Response(r) = decode_client_hello(&out).unwrap() else {
            panic!()
        };
        assert_eq!(r.auth_response, b"xyz");
        assert_eq!(
            r.attributes,
            vec![("_client_name".into(), "libmariadb".into())]
        );
    }

    #[test]
    fn ssl_request_and_garbage() {
        let mut out = Vec::new();
        put_u32(&mut out, CLIENT_PROTOCOL_41 | CLIENT_SSL);
        put_u32(&mut out, 0);
        out.push(45);
        out.extend_from_slice(&[0; 23]);
        assert_eq!(decode_client_hello(&out).unwrap(), ClientHello::SslRequest);
        assert!(decode_client_hello(&[1, 2]).is_err());
        assert!(decode_client_hello(&[0, 0, 0, 0, 0, 0]).is_err());
        let mut trunc = response_bytes(
            CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION,
            "u",
            &[9; 20],
            None,
            "",
        );
        trunc.truncate(40);
        assert!(decode_client_hello(&trunc).is_err());
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn random_client_hello_never_panics() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        for _ in 0..50_000 {
            let len = rng.gen_range(0..120);
            let mut b: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            if b.len() > 4 && rng.gen_bool(0.7) {
                b[1] |= (CLIENT_PROTOCOL_41 >> 8) as u8;
            }
            let _ = decode_client_hello(&b);
        }
    }
}
