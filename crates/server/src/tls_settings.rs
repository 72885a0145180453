//! TLS settings of `betula serve`'s config file and flags, under MariaDB's names: `ssl_cert`,
//! `ssl_key` (`--ssl-cert`, `--ssl-key`: the server's certificate chain and private key, PEM),
//! `ssl_ca` (`--ssl-ca`: CA certificates a client certificate, when presented, must chain to) and
//! `ssl` (ON by default; OFF, as `skip-ssl`, keeps connections plain even with a certificate).
//! Other MariaDB TLS keys (`ssl_cipher`, `ssl_capath`, `ssl_crl`, `tls_version`) are not Betula
//! settings: a config file's are skipped with a warning, as any unknown key.
//!
//! Invariants (design.md TLS5): a certificate without key or a key without certificate, a CA
//! without both, an unreadable file, a file without PEM content or a key that does not fit the
//! certificate is refused at start with the setting's or file's name; TLS is never silently off
//! when a certificate was configured.

use std::path::PathBuf;

use crate::protocol::{TlsAcceptor, TlsFiles};

#[derive(Debug, Clone)]
pub struct TlsSettings {
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    ca: Option<PathBuf>,
    /// `ssl = OFF` turns TLS off whatever the files.
    enabled: bool,
}

impl Default for TlsSettings {
    fn default() -> Self {
        TlsSettings {
            cert: None,
            key: None,
            ca: None,
            enabled: true,
        }
    }
}

/// An empty value unsets a path (as MariaDB's `--ssl-ca=`).
fn path(v: &str) -> Option<PathBuf> {
    (!v.is_empty()).then(|| PathBuf::from(v))
}

impl TlsSettings {
    /// Applies `key = value` if it is one of these settings (Ok(false): not one).
    pub fn set(&mut self, key: &str, v: &str) -> Result<bool, String> {
        match key {
            "ssl_cert" => self.cert = path(v),
            "ssl_key" => self.key = path(v),
            "ssl_ca" => self.ca = path(v),
            "ssl" => {
                self.enabled = match v.to_ascii_uppercase().as_str() {
                    "" | "ON" | "1" | "TRUE" => true,
                    "OFF" | "0" | "FALSE" => false,
                    _ => return Err(format!("bad ssl '{v}' (ON or OFF)")),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The files TLS is configured with; None when it is off (no certificate, or `ssl = OFF`).
    pub fn files(&self) -> Result<Option<TlsFiles>, String> {
        if !self.enabled {
            return Ok(None);
        }
        match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => Ok(Some(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                ca: self.ca.clone(),
            })),
            (Some(_), None) => Err("ssl_cert is set without ssl_key".into()),
            (None, Some(_)) => Err("ssl_key is set without ssl_cert".into()),
            (None, None) if self.ca.is_some() => {
                Err("ssl_ca is set without ssl_cert and ssl_key".into())
            }
            (None, None) => Ok(None),
        }
    }

    /// Loads the configured files: the server's TLS configuration, or None when TLS is off.
    pub fn acceptor(&self) -> Result<Option<TlsAcceptor>, String> {
        match self.files()? {
            Some(f) => TlsAcceptor::load(&f).map(Some).map_err(|e| e.to_string()),
            None => Ok(None),
        }
    }

    /// The global system variables TLS shows (`have_ssl`, `ssl_cert`, ...), given whether it is on.
    pub fn globals(&self, on: bool) -> Vec<(&'static str, String)> {
        let shown = |p: &Option<PathBuf>| {
            p.as_ref()
                .filter(|_| on)
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        };
        let have = if on { "YES" } else { "DISABLED" };
        vec![
            ("have_ssl", have.to_string()),
            ("have_openssl", have.to_string()),
            ("ssl_cert", shown(&self.cert)),
            ("ssl_key", shown(&self.key)),
            ("ssl_ca", shown(&self.ca)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_pair_up() {
        let mut s = TlsSettings::default();
        assert_eq!(s.files(), Ok(None), "off without a certificate");
        assert!(s.set("ssl_cert", "/c.pem").unwrap());
        assert!(s.files().unwrap_err().contains("ssl_key"));
        s.set("ssl_key", "/k.pem").unwrap();
        s.set("ssl_ca", "/ca.pem").unwrap();
        let f = s.files().unwrap().unwrap();
        assert_eq!(f.ca, Some(PathBuf::from("/ca.pem")));
        let g = s.globals(true);
        assert_eq!(g[0], ("have_ssl", "YES".to_string()));
        assert_eq!(g[2], ("ssl_cert", "/c.pem".to_string()));
        s.set("ssl", "OFF").unwrap();
        assert_eq!(s.files(), Ok(None));
        assert!(s.set("ssl", "maybe").is_err());
        assert!(!s.set("ssl_cipher", "AES").unwrap(), "not a Betula setting");
        let mut ca_only = TlsSettings::default();
        ca_only.set("ssl_ca", "/ca.pem").unwrap();
        assert!(ca_only.files().unwrap_err().contains("ssl_ca"));
        assert_eq!(TlsSettings::default().globals(false)[0].1, "DISABLED");
    }
}
