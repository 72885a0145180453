//! MariaDB's ed25519 plugin (client side `client_ed25519`): the server sends a 32-byte random
//! nonce, the client answers with the 64-byte Ed25519 signature of the nonce made with the key
//! derived from its password, and the server verifies it against the account's stored public key
//! (design.md ACC4, ACC6; the key's derivation is `betula_sql::catalog::credentials`).
//!
//! Invariant: only a signature by the stored key over this connection's nonce is accepted.

use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use rand::RngCore;

/// The client plugin an ed25519 account switches to.
pub const CLIENT_ED25519_PLUGIN: &str = "client_ed25519";
pub const NONCE_LEN: usize = 32;

/// A fresh random nonce.
pub fn new_nonce() -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    rand::thread_rng().fill_bytes(&mut n);
    n
}

/// Whether `signature` is the signature of `nonce` by `public_key`.
pub fn verify(public_key: &[u8; 32], nonce: &[u8], signature: &[u8]) -> bool {
    let Ok(key) = VerifyingKey::from_bytes(public_key) else {
        return false;
    };
    let Ok(sig) = Signature::from_slice(signature) else {
        return false;
    };
    key.verify(nonce, &sig).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use betula_sql::catalog::credentials::ed25519_public_key;
    use ed25519_dalek::hazmat::{raw_sign, ExpandedSecretKey};
    use sha2::{Digest, Sha512};

    /// What client_ed25519 sends: the nonce signed with SHA-512(pw) as the expanded secret key.
    fn client_answer(pw: &[u8], nonce: &[u8]) -> [u8; 64] {
        let h: [u8; 64] = Sha512::digest(pw).into();
        let esk = ExpandedSecretKey::from_bytes(&h);
        let vk = VerifyingKey::from(&esk);
        raw_sign::<Sha512>(&esk, nonce, &vk).to_bytes()
    }

    #[test]
    fn signatures_of_the_password_verify() {
        let nonce = new_nonce();
        let key = ed25519_public_key(b"secret");
        assert!(verify(&key, &nonce, &client_answer(b"secret", &nonce)));
        assert!(!verify(&key, &nonce, &client_answer(b"Secret", &nonce)));
        assert!(!verify(
            &key,
            &new_nonce(),
            &client_answer(b"secret", &nonce)
        ));
        assert!(!verify(&key, &nonce, b"short"));
    }
}
