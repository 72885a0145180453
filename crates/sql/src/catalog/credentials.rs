//! What an account stores for its password, per authentication plugin (design.md ACC4), and the
//! checks that need only the stored form. The DDL computes stored forms here and the server's
//! wire exchanges check against them here, so the two never disagree.
//!
//! Stored forms (the account's auth string, as SHOW CREATE USER shows it):
//! * mysql_native_password: `*` + uppercase hex of SHA1(SHA1(pw)) (41 characters);
//! * caching_sha2_password: `$A$005$` + 20-byte salt + 43-character SHA-256 crypt hash (5000
//!   rounds, MySQL's format); salts are printable ASCII without `$`;
//! * ed25519: MariaDB's 43-character base64 (no padding) of the public key whose secret scalar is
//!   SHA-512(pw) clamped.
//!
//! Invariants: an empty password stores an empty string whatever the plugin; nothing here keeps
//! or returns the password.

use rand::Rng;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

/// An authentication plugin Betula has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AuthPlugin {
    #[default]
    Native,
    CachingSha2,
    Ed25519,
}

impl AuthPlugin {
    /// The server-side plugin name (as CREATE USER ... IDENTIFIED WITH names it).
    pub fn name(self) -> &'static str {
        match self {
            AuthPlugin::Native => "mysql_native_password",
            AuthPlugin::CachingSha2 => "caching_sha2_password",
            AuthPlugin::Ed25519 => "ed25519",
        }
    }
    /// The plugin named `name` (case-insensitive), if Betula has it.
    pub fn from_name(name: &str) -> Option<AuthPlugin> {
        [
            AuthPlugin::Native,
            AuthPlugin::CachingSha2,
            AuthPlugin::Ed25519,
        ]
        .into_iter()
        .find(|p| p.name().eq_ignore_ascii_case(name))
    }
}

/// The stored form of `password` for `plugin` (ACC4); empty for an empty password.
pub fn auth_string(plugin: AuthPlugin, password: &[u8]) -> String {
    if password.is_empty() {
        return String::new();
    }
    match plugin {
        AuthPlugin::Native => native_auth_string(&sha1(&sha1(password))),
        AuthPlugin::CachingSha2 => {
            let salt = new_salt();
            format!(
                "$A$005${}{}",
                String::from_utf8_lossy(&salt),
                sha256_crypt(password, &salt, CRYPT_ROUNDS)
            )
        }
        AuthPlugin::Ed25519 => base64_no_pad(&ed25519_public_key(password)),
    }
}

/// Whether `s` is a well-formed stored form for `plugin` (IDENTIFIED BY PASSWORD / AS '...').
pub fn valid_auth_string(plugin: AuthPlugin, s: &str) -> bool {
    s.is_empty()
        || match plugin {
            AuthPlugin::Native => native_stage2(s).is_some(),
            AuthPlugin::CachingSha2 => split_sha2(s).is_some(),
            AuthPlugin::Ed25519 => ed25519_key_of(s).is_some(),
        }
}

fn sha1(data: &[u8]) -> [u8; 20] {
    Sha1::digest(data).into()
}

/// `*` and the uppercase hex of SHA1(SHA1(pw)).
pub fn native_auth_string(stage2: &[u8; 20]) -> String {
    let mut s = String::from("*");
    for b in stage2 {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

/// SHA1(SHA1(pw)) from a native stored form.
pub fn native_stage2(auth: &str) -> Option<[u8; 20]> {
    let hex = auth.strip_prefix('*')?;
    if hex.len() != 40 || !hex.is_ascii() {
        return None;
    }
    let mut h = [0u8; 20];
    for (i, b) in h.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(h)
}

/// MySQL's caching_sha2_password rounds: `005` means 5 × 1000.
pub const CRYPT_ROUNDS: usize = 5000;
const SALT_LEN: usize = 20;

fn new_salt() -> [u8; SALT_LEN] {
    let mut rng = rand::thread_rng();
    let mut s = [0u8; SALT_LEN];
    for b in &mut s {
        *b = rng.gen_range(0x21u8..=0x7e);
        if *b == b'$' {
            *b = b'%';
        }
    }
    s
}

/// (salt, hash) of a caching_sha2_password stored form.
fn split_sha2(auth: &str) -> Option<(&[u8], &str)> {
    let rest = auth.strip_prefix("$A$005$")?.as_bytes();
    if rest.len() != SALT_LEN + 43 {
        return None;
    }
    let hash = std::str::from_utf8(&rest[SALT_LEN..]).ok()?;
    Some((&rest[..SALT_LEN], hash))
}

/// Whether `password` is the one a caching_sha2_password stored form was made of.
pub fn caching_sha2_matches(auth: &str, password: &[u8]) -> bool {
    if auth.is_empty() || password.is_empty() {
        return auth.is_empty() && password.is_empty();
    }
    match split_sha2(auth) {
        Some((salt, hash)) => {
            let got = sha256_crypt(password, salt, CRYPT_ROUNDS);
            got.len() == hash.len()
                && got
                    .bytes()
                    .zip(hash.bytes())
                    .fold(0u8, |d, (a, b)| d | (a ^ b))
                    == 0
        }
        None => false,
    }
}

const CRYPT_B64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// `len` bytes of `digest` repeated.
fn repeat_to(digest: &[u8; 32], len: usize) -> Vec<u8> {
    digest.iter().copied().cycle().take(len).collect()
}

/// The SHA-256 crypt hash (Drepper's algorithm, as glibc's `$5$` and MySQL's `$A$` use it) of
/// `pw` with `salt` (any length: MySQL's salts are 20 bytes) in `rounds` rounds: 43 characters.
pub fn sha256_crypt(pw: &[u8], salt: &[u8], rounds: usize) -> String {
    let b = sha256(&[pw, salt, pw]);
    let mut a = Sha256::new();
    a.update(pw);
    a.update(salt);
    let mut n = pw.len();
    while n > 32 {
        a.update(b);
        n -= 32;
    }
    a.update(&b[..n]);
    let mut n = pw.len();
    while n > 0 {
        if n & 1 == 1 {
            a.update(b);
        } else {
            a.update(pw);
        }
        n >>= 1;
    }
    let a: [u8; 32] = a.finalize().into();
    let dp = sha256(&[pw.repeat(pw.len()).as_slice()]);
    let p = repeat_to(&dp, pw.len());
    let ds = sha256(&vec![salt; 16 + a[0] as usize]);
    let s = repeat_to(&ds, salt.len());
    let mut c = a;
    for i in 0..rounds {
        let mut h = Sha256::new();
        h.update(if i & 1 == 1 { &p[..] } else { &c[..] });
        if i % 3 != 0 {
            h.update(&s);
        }
        if i % 7 != 0 {
            h.update(&p);
        }
        h.update(if i & 1 == 1 { &c[..] } else { &p[..] });
        c = h.finalize().into();
    }
    crypt_base64(&c)
}

/// The crypt alphabet encoding of a SHA-256 crypt result, in its byte order.
fn crypt_base64(c: &[u8; 32]) -> String {
    const GROUPS: [(usize, usize, usize); 10] = [
        (0, 10, 20),
        (21, 1, 11),
        (12, 22, 2),
        (3, 13, 23),
        (24, 4, 14),
        (15, 25, 5),
        (6, 16, 26),
        (27, 7, 17),
        (18, 28, 8),
        (9, 19, 29),
    ];
    let mut out = String::with_capacity(43);
    let mut put = |w: u32, n: usize| {
        let mut w = w;
        for _ in 0..n {
            out.push(CRYPT_B64[(w & 0x3f) as usize] as char);
            w >>= 6;
        }
    };
    for (x, y, z) in GROUPS {
        put(
            (u32::from(c[x]) << 16) | (u32::from(c[y]) << 8) | u32::from(c[z]),
            4,
        );
    }
    put((u32::from(c[31]) << 8) | u32::from(c[30]), 3);
    out
}

/// MariaDB's ed25519 public key of `password`: SHA-512(pw) is the expanded secret key, its first
/// half clamped is the scalar multiplied by the base point.
pub fn ed25519_public_key(password: &[u8]) -> [u8; 32] {
    let h: [u8; 64] = Sha512::digest(password).into();
    let esk = ed25519_dalek::hazmat::ExpandedSecretKey::from_bytes(&h);
    ed25519_dalek::VerifyingKey::from(&esk).to_bytes()
}

/// The public key of an ed25519 stored form.
pub fn ed25519_key_of(auth: &str) -> Option<[u8; 32]> {
    let bytes = base64_decode(auth)?;
    (auth.len() == 43).then_some(())?;
    bytes.try_into().ok()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 without the `=` padding (MariaDB's form of ed25519 keys).
pub fn base64_no_pad(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let mut w = 0u32;
        for (i, b) in chunk.iter().enumerate() {
            w |= u32::from(*b) << (16 - 8 * i);
        }
        for i in 0..=chunk.len() {
            out.push(B64[((w >> (18 - 6 * i)) & 0x3f) as usize] as char);
        }
    }
    out
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut w, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = B64.iter().position(|&x| x == c)? as u32;
        w = (w << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((w >> bits) as u8);
            w &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors from `openssl passwd -5 -salt <salt> <pw>` (glibc's `$5$`, default 5000 rounds).
    #[test]
    fn sha256_crypt_matches_openssl() {
        let cases: [(&str, &str, &str); 3] = [
            (
                "Hello world!",
                "saltstring",
                "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5",
            ),
            (
                "secret",
                "0123456789abcdef",
                "r6nzC5LUC0uVXFw52gWstJ181ms.XFW71j20yui2zG7",
            ),
            (
                "a password that is longer than thirty-two bytes",
                "abcd",
                "C.g9bByusC9GQ5.zi.vYrMKx.NpjVM2xhSZ7unyonX1",
            ),
        ];
        for (pw, salt, want) in cases {
            assert_eq!(sha256_crypt(pw.as_bytes(), salt.as_bytes(), 5000), want);
        }
    }

    #[test]
    fn caching_sha2_stored_form() {
        let a = auth_string(AuthPlugin::CachingSha2, b"secret");
        assert!(a.starts_with("$A$005$") && a.len() == 7 + 20 + 43, "{a}");
        assert!(!a[7..27].contains('$'));
        assert!(caching_sha2_matches(&a, b"secret"));
        assert!(!caching_sha2_matches(&a, b"Secret"));
        assert_ne!(a, auth_string(AuthPlugin::CachingSha2, b"secret"), "salted");
        assert!(valid_auth_string(AuthPlugin::CachingSha2, &a));
    }

    /// MariaDB 10.11: `CREATE USER s2 IDENTIFIED VIA ed25519 USING PASSWORD('secret')` stores this.
    #[test]
    fn ed25519_matches_mariadb() {
        assert_eq!(
            auth_string(AuthPlugin::Ed25519, b"secret"),
            "ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY"
        );
        let k = ed25519_key_of("ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY").unwrap();
        assert_eq!(k, ed25519_public_key(b"secret"));
        assert!(ed25519_key_of("short").is_none());
    }

    /// MariaDB: `SELECT PASSWORD('secret')`.
    #[test]
    fn native_stored_form() {
        let a = auth_string(AuthPlugin::Native, b"secret");
        assert_eq!(a, "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7");
        assert_eq!(native_auth_string(&native_stage2(&a).unwrap()), a);
        assert!(native_stage2("*14E6").is_none());
        assert_eq!(auth_string(AuthPlugin::Ed25519, b""), "");
        assert_eq!(AuthPlugin::from_name("ED25519"), Some(AuthPlugin::Ed25519));
        assert_eq!(AuthPlugin::from_name("sha256_password"), None);
    }
}
