//! caching_sha2_password: the client's fast-path answer, the server's cache of verified
//! accounts, and the RSA key pair a client over plaintext encrypts its password with
//! (design.md ACC4, ACC7).
//!
//! The fast path: the client sends `XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)) ++ scramble))`;
//! the server can check it only if it knows `SHA256(SHA256(pw))`, which it learns from a full
//! authentication (the password itself, over a secure connection or RSA-encrypted).
//!
//! Invariants: a cache entry is used only while the account's stored form is the one it was
//! filled under (a new password, even the same one, gets a new salt, so any change empties the
//! entry in effect); the key pair is made once per data directory and kept there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey, LineEnding};
use rsa::{Oaep, RsaPrivateKey};
use sha2::{Digest, Sha256};

pub const CACHING_SHA2_PLUGIN: &str = "caching_sha2_password";
/// The second byte of the server's `0x01` answers, and the client's key request.
pub const REQUEST_PUBLIC_KEY: u8 = 2;
pub const FAST_AUTH_OK: u8 = 3;
pub const PERFORM_FULL_AUTH: u8 = 4;

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// What a client sends on the fast path for `password` and `scramble`.
pub fn scramble_response(password: &[u8], scramble: &[u8]) -> [u8; 32] {
    let p1 = sha256(&[password]);
    let p2 = sha256(&[&p1]);
    let mask = sha256(&[&p2, scramble]);
    std::array::from_fn(|i| p1[i] ^ mask[i])
}

/// Checks a fast-path answer against the cached `SHA256(SHA256(pw))`.
pub fn verify_fast(cached: &[u8; 32], scramble: &[u8], response: &[u8]) -> bool {
    if response.len() != 32 {
        return false;
    }
    let mask = sha256(&[cached, scramble]);
    let p1: [u8; 32] = std::array::from_fn(|i| response[i] ^ mask[i]);
    let got = sha256(&[&p1]);
    got.iter().zip(cached).fold(0u8, |d, (a, b)| d | (a ^ b)) == 0
}

/// An account of the cache: (user, host pattern).
type Account = (String, String);

/// An account's cached full authentication: the stored form it passed under, `SHA256(SHA256(pw))`.
type Cached = (String, [u8; 32]);

/// Accounts that passed a full authentication: the stored form they passed under and
/// `SHA256(SHA256(pw))`. Process-wide: entries are bound to a salted stored form, which no other
/// account or server shares.
fn cache() -> &'static Mutex<HashMap<Account, Cached>> {
    static CACHE: OnceLock<Mutex<HashMap<Account, Cached>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The cached digest of `account` while its stored form is still `auth`.
pub fn cached(account: &Account, auth: &str) -> Option<[u8; 32]> {
    let c = cache().lock().ok()?;
    c.get(account).filter(|(a, _)| a == auth).map(|(_, d)| *d)
}

/// Records a full authentication of `account` (stored form `auth`) with `password`.
pub fn remember(account: Account, auth: &str, password: &[u8]) {
    let digest = sha256(&[&sha256(&[password])]);
    if let Ok(mut c) = cache().lock() {
        c.insert(account, (auth.to_string(), digest));
    }
}

/// The server's RSA key pair and its public key as PEM (SubjectPublicKeyInfo, as MySQL sends).
pub struct RsaKeys {
    private: RsaPrivateKey,
    pub public_pem: String,
}

/// The key file's name in the data directory.
pub const RSA_KEY_FILE: &str = "auth_rsa_private_key.pem";

impl RsaKeys {
    /// The key pair of `file`, made (2048 bits) and written there the first time.
    pub fn load_or_create(file: &Path) -> Result<RsaKeys, String> {
        let private = match std::fs::read_to_string(file) {
            Ok(pem) => RsaPrivateKey::from_pkcs8_pem(&pem).map_err(|e| e.to_string())?,
            Err(_) => {
                let key =
                    RsaPrivateKey::new(&mut rand::thread_rng(), 2048).map_err(|e| e.to_string())?;
                let pem = key
                    .to_pkcs8_pem(LineEnding::LF)
                    .map_err(|e| e.to_string())?;
                std::fs::write(file, pem.as_bytes()).map_err(|e| e.to_string())?;
                key
            }
        };
        let public_pem = private
            .to_public_key()
            .to_public_key_pem(LineEnding::LF)
            .map_err(|e| e.to_string())?;
        Ok(RsaKeys {
            private,
            public_pem,
        })
    }

    /// The keys of `file`, loaded once per process.
    pub fn shared(file: &Path) -> Result<Arc<RsaKeys>, String> {
        static KEYS: OnceLock<Mutex<HashMap<PathBuf, Arc<RsaKeys>>>> = OnceLock::new();
        let mut keys = KEYS
            .get_or_init(Default::default)
            .lock()
            .map_err(|e| e.to_string())?;
        if let Some(k) = keys.get(file) {
            return Ok(k.clone());
        }
        let k = Arc::new(RsaKeys::load_or_create(file)?);
        keys.insert(file.to_path_buf(), k.clone());
        Ok(k)
    }

    /// The password a client encrypted: OAEP (SHA-1) of `XOR(pw ++ NUL, scramble)`, as MySQL
    /// and PyMySQL send it. PKCS #1 v1.5 is not accepted: its padding check is an oracle.
    pub fn decrypt_password(&self, scramble: &[u8], data: &[u8]) -> Option<Vec<u8>> {
        let plain = self.private.decrypt(Oaep::new::<sha1::Sha1>(), data).ok()?;
        let mut pw: Vec<u8> = plain
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ scramble[i % scramble.len()])
            .collect();
        if pw.last() == Some(&0) {
            pw.pop();
        }
        Some(pw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vector computed independently with Python's hashlib:
    /// ```text
    /// p1=sha256(b'secret'); p2=sha256(p1); m=sha256(p2+b'abcdefghijklmnopqrst')
    /// bytes(a^b for a,b in zip(p1,m)).hex()
    /// ```
    #[test]
    fn fast_path_answer() {
        let scramble = b"abcdefghijklmnopqrst";
        let resp = scramble_response(b"secret", scramble);
        let hex: String = resp.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, PY_VECTOR);
        let cached = sha256(&[&sha256(&[b"secret"])]);
        assert!(verify_fast(&cached, scramble, &resp));
        assert!(!verify_fast(
            &cached,
            scramble,
            &scramble_response(b"x", scramble)
        ));
        assert!(!verify_fast(&cached, b"other scramble......", &resp));
    }

    const PY_VECTOR: &str = "c76e2898612a4cf042c77fa8c4702c4c64c0c2c557c53c4d75595aaa6abae809";

    #[test]
    fn cache_follows_the_stored_form() {
        let acct = ("cache_test".to_string(), "%".to_string());
        remember(acct.clone(), "$A$005$one", b"pw");
        assert!(cached(&acct, "$A$005$one").is_some());
        assert!(cached(&acct, "$A$005$two").is_none());
    }
}
