//! mysql_native_password: scramble generation and verification.
//!
//! The client sends `SHA1(pw) XOR SHA1(scramble ++ SHA1(SHA1(pw)))`; the
//! server stores only `SHA1(SHA1(pw))` and checks a response by recovering
//! `SHA1(pw)` and hashing it once more.
//!
//! Invariants: scrambles are 20 bytes of printable ASCII (never NUL, which
//! would truncate the handshake's NUL-terminated part 2); verification runs
//! in constant time over the 20 bytes.

use rand::Rng;
use sha1::{Digest, Sha1};

pub const NATIVE_PASSWORD_PLUGIN: &str = "mysql_native_password";
pub const SCRAMBLE_LEN: usize = 20;

pub type Scramble = [u8; SCRAMBLE_LEN];

/// A fresh random scramble (printable ASCII, no NUL, no '$').
pub fn new_scramble() -> Scramble {
    let mut rng = rand::thread_rng();
    let mut s = [0u8; SCRAMBLE_LEN];
    for b in &mut s {
        *b = rng.gen_range(0x21u8..=0x7e);
        if *b == b'$' {
            *b = b'%';
        }
    }
    s
}

fn sha1(parts: &[&[u8]]) -> [u8; 20] {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// `SHA1(SHA1(password))`: what a user store keeps for native auth.
pub fn hash_password(password: &[u8]) -> [u8; 20] {
    sha1(&[&sha1(&[password])])
}

/// What a client computes for `password` and `scramble`.
pub fn scramble_response(password: &[u8], scramble: &[u8]) -> [u8; 20] {
    let stage1 = sha1(&[password]);
    let stage2 = sha1(&[&stage1]);
    let mask = sha1(&[scramble, &stage2]);
    let mut out = [0u8; 20];
    for i in 0..20 {
        out[i] = stage1[i] ^ mask[i];
    }
    out
}

/// Checks a client's auth response against the stored `SHA1(SHA1(pw))`.
/// `stored == None` means the account has no password: only an empty
/// response is accepted.
pub fn verify(stored: Option<&[u8; 20]>, scramble: &[u8], response: &[u8]) -> bool {
    let Some(stored) = stored else {
        return response.is_empty();
    };
    if response.len() != 20 {
        return false;
    }
    let mask = sha1(&[scramble, stored]);
    let mut stage1 = [0u8; 20];
    for i in 0..20 {
        stage1[i] = response[i] ^ mask[i];
    }
    let candidate = sha1(&[&stage1]);
    let mut diff = 0u8;
    for i in 0..20 {
        diff |= candidate[i] ^ stored[i];
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// Vector computed independently with Python:
    /// ```text
    /// import hashlib
    /// pw=b'secret'; scr=b'abcdefghijklmnopqrst'
    /// s1=hashlib.sha1(pw).digest(); s2=hashlib.sha1(s1).digest()
    /// x=hashlib.sha1(scr+s2).digest()
    /// s2.hex()                                  -> 14e65567abdb5135d0cfd9a70b3032c179a49ee7
    /// bytes(a^b for a,b in zip(s1,x)).hex()     -> 8817c50fa779daef010ee7577825b0847df9842e
    /// ```
    #[test]
    fn known_vector() {
        let scramble = b"abcdefghijklmnopqrst";
        assert_eq!(
            hex(&hash_password(b"secret")),
            "14e65567abdb5135d0cfd9a70b3032c179a49ee7"
        );
        let resp = scramble_response(b"secret", scramble);
        assert_eq!(hex(&resp), "8817c50fa779daef010ee7577825b0847df9842e");
        let stored = hash_password(b"secret");
        assert!(verify(Some(&stored), scramble, &resp));
        assert!(!verify(
            Some(&stored),
            scramble,
            &scramble_response(b"Secret", scramble)
        ));
        assert!(!verify(Some(&stored), scramble, b""));
        assert!(!verify(Some(&stored), scramble, &resp[..19]));
    }

    #[test]
    fn empty_password_accounts() {
        assert!(verify(None, b"x", b""));
        assert!(!verify(None, b"x", b"a"));
    }

    #[test]
    fn scramble_is_printable() {
        for _ in 0..100 {
            let s = new_scramble();
            assert!(s.iter().all(|&b| (0x21..=0x7e).contains(&b) && b != b'$'));
        }
    }
}
