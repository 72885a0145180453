//! TLS for client connections (design.md "TLS", TLS1-TLS6): loading the certificate, key and
//! optional CA into a rustls server configuration ([`TlsAcceptor`]), the connection's transport
//! halves ([`ConnReader`] / [`ConnWriter`]: the plain socket or one rustls stream), and the
//! switch from one to the other after an SSLRequest ([`start_tls`]).
//!
//! Invariants:
//! * a plain connection reads and writes through `BufReader`/`BufWriter` on the socket exactly as
//!   without TLS: one enum branch per call, no allocation;
//! * bytes the client sent after its SSLRequest that the plain reader already buffered are the
//!   start of its TLS handshake and go to rustls first, never to the packet reader;
//! * after [`start_tls`] every byte in either direction goes through the rustls stream; the socket
//!   stays the same one the server's registry holds, so a TCP shutdown (KILL, server shutdown)
//!   ends a TLS connection as it ends a plain one;
//! * a failed handshake is an error of this connection only ([`TlsError`]).

use std::cell::RefCell;
use std::fmt;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConnection, StreamOwned};

/// How long a client may take to complete its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Size of a TLS connection's write buffer (as the plain writer's).
const WRITE_BUFFER: usize = 64 * 1024;

/// The files of `--ssl-cert`, `--ssl-key` and `--ssl-ca`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// When set, a client certificate, if presented, must chain to one of these.
    pub ca: Option<PathBuf>,
}

/// What is wrong with the configured certificate, key or CA (a startup error).
#[derive(Debug, thiserror::Error)]
pub enum TlsConfigError {
    #[error("cannot read {what} {path}: {source}")]
    Read {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("{what} {path} holds no PEM {expected}: {detail}")]
    Pem {
        what: &'static str,
        path: PathBuf,
        expected: &'static str,
        detail: String,
    },
    #[error("certificate {cert} and key {key} do not make a TLS configuration: {detail}")]
    Config {
        cert: PathBuf,
        key: PathBuf,
        detail: String,
    },
}

/// A failed TLS handshake with one client.
#[derive(Debug, thiserror::Error)]
#[error("TLS handshake failed: {0}")]
pub struct TlsError(pub String);

/// The negotiated protocol version and cipher of a TLS connection, as MariaDB names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsInfo {
    /// `TLSv1.2` or `TLSv1.3` (`Ssl_version`).
    pub version: String,
    /// The OpenSSL name of the cipher suite (`Ssl_cipher`), else rustls' name.
    pub cipher: String,
}

/// The server's TLS configuration, loaded and checked once at startup.
#[derive(Clone)]
pub struct TlsAcceptor {
    config: Arc<rustls::ServerConfig>,
    files: TlsFiles,
}

impl fmt::Debug for TlsAcceptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsAcceptor")
            .field("files", &self.files)
            .finish()
    }
}

fn read_file(what: &'static str, path: &Path) -> Result<Vec<u8>, TlsConfigError> {
    std::fs::read(path).map_err(|source| TlsConfigError::Read {
        what,
        path: path.to_path_buf(),
        source,
    })
}

/// The certificates of a PEM file (at least one).
fn certificates(
    what: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, TlsConfigError> {
    let pem = read_file(what, path)?;
    let bad = |detail: String| TlsConfigError::Pem {
        what,
        path: path.to_path_buf(),
        expected: "certificate",
        detail,
    };
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if certs.is_empty() {
        return Err(bad("no CERTIFICATE block".into()));
    }
    Ok(certs)
}

fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsConfigError> {
    let pem = read_file("key", path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|e| TlsConfigError::Pem {
        what: "key",
        path: path.to_path_buf(),
        expected: "private key",
        detail: e.to_string(),
    })
}

impl TlsAcceptor {
    /// Loads and checks the files: a missing file, a file without PEM certificate or key, or a
    /// key that does not match the certificate is an error.
    pub fn load(files: &TlsFiles) -> Result<TlsAcceptor, TlsConfigError> {
        let certs = certificates("certificate", &files.cert)?;
        let key = private_key(&files.key)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config_error = |detail: String| TlsConfigError::Config {
            cert: files.cert.clone(),
            key: files.key.clone(),
            detail,
        };
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| config_error(e.to_string()))?;
        let builder = match &files.ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let mut roots = RootCertStore::empty();
                for c in certificates("CA", ca)? {
                    roots.add(c).map_err(|e| TlsConfigError::Pem {
                        what: "CA",
                        path: ca.clone(),
                        expected: "CA certificate",
                        detail: e.to_string(),
                    })?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .allow_unauthenticated()
                        .build()
                        .map_err(|e| config_error(e.to_string()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder
            .with_single_cert(certs, key)
            .map_err(|e| config_error(e.to_string()))?;
        Ok(TlsAcceptor {
            config: Arc::new(config),
            files: files.clone(),
        })
    }

    pub fn files(&self) -> &TlsFiles {
        &self.files
    }
}

/// One TLS stream, shared by the connection's reading and writing halves (both on the
/// connection's own thread).
type Shared = Rc<RefCell<StreamOwned<ServerConnection, TcpStream>>>;

/// The reading half of a TLS stream.
pub struct TlsReader(Shared);

/// The writing half of a TLS stream.
pub struct TlsWriter(Shared);

impl Read for TlsReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.borrow_mut().read(buf) {
            // A peer that closes the socket without close_notify (or a TCP shutdown by KILL)
            // ends the connection as a plain close does: the packet reader sees the end.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
            r => r,
        }
    }
}

impl Write for TlsWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// The connection's reading transport.
pub enum ConnReader {
    Plain(BufReader<TcpStream>),
    Tls(TlsReader),
}

/// The connection's writing transport.
pub enum ConnWriter {
    Plain(BufWriter<TcpStream>),
    Tls(BufWriter<TlsWriter>),
}

impl ConnReader {
    pub fn plain(socket: TcpStream) -> ConnReader {
        ConnReader::Plain(BufReader::with_capacity(16 * 1024, socket))
    }
}

impl ConnWriter {
    pub fn plain(socket: TcpStream) -> ConnWriter {
        ConnWriter::Plain(BufWriter::with_capacity(WRITE_BUFFER, socket))
    }

    /// Ends a TLS connection with close_notify (best effort); nothing for a plain one.
    pub fn close(&mut self) {
        if let ConnWriter::Tls(w) = self {
            let _ = w.flush();
            let tls = &w.get_ref().0;
            let mut s = tls.borrow_mut();
            s.conn.send_close_notify();
            let _ = s.flush();
        }
    }
}

impl Read for ConnReader {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            ConnReader::Plain(r) => r.read(buf),
            ConnReader::Tls(r) => r.read(buf),
        }
    }

    #[inline]
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        match self {
            ConnReader::Plain(r) => r.read_exact(buf),
            ConnReader::Tls(r) => r.read_exact(buf),
        }
    }
}

impl Write for ConnWriter {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            ConnWriter::Plain(w) => w.write(buf),
            ConnWriter::Tls(w) => w.write(buf),
        }
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            ConnWriter::Plain(w) => w.write_all(buf),
            ConnWriter::Tls(w) => w.write_all(buf),
        }
    }

    #[inline]
    fn flush(&mut self) -> io::Result<()> {
        match self {
            ConnWriter::Plain(w) => w.flush(),
            ConnWriter::Tls(w) => w.flush(),
        }
    }
}

/// Performs the server side of the TLS handshake on a plain connection whose SSLRequest was
/// just read, and switches both halves to TLS. On error the connection is unusable (close it).
pub fn start_tls(
    reader: &mut ConnReader,
    writer: &mut ConnWriter,
    acceptor: &TlsAcceptor,
) -> Result<TlsInfo, TlsError> {
    let io_err = |e: io::Error| TlsError(e.to_string());
    let (ConnReader::Plain(plain_r), ConnWriter::Plain(plain_w)) = (&*reader, &mut *writer) else {
        return Err(TlsError("the connection already uses TLS".into()));
    };
    plain_w.flush().map_err(io_err)?;
    let mut socket = plain_w.get_ref().try_clone().map_err(io_err)?;
    let mut conn =
        ServerConnection::new(acceptor.config.clone()).map_err(|e| TlsError(e.to_string()))?;
    // The client's first handshake bytes may already sit in the plain reader's buffer.
    let mut early: &[u8] = plain_r.buffer();
    while !early.is_empty() {
        if conn.read_tls(&mut early).map_err(io_err)? == 0 {
            break;
        }
        conn.process_new_packets()
            .map_err(|e| TlsError(e.to_string()))?;
    }
    socket
        .set_read_timeout(Some(HANDSHAKE_TIMEOUT))
        .map_err(io_err)?;
    while conn.is_handshaking() {
        conn.complete_io(&mut socket).map_err(io_err)?;
    }
    socket.set_read_timeout(None).map_err(io_err)?;
    let info = info(&conn);
    let shared: Shared = Rc::new(RefCell::new(StreamOwned::new(conn, socket)));
    *reader = ConnReader::Tls(TlsReader(shared.clone()));
    *writer = ConnWriter::Tls(BufWriter::with_capacity(WRITE_BUFFER, TlsWriter(shared)));
    Ok(info)
}

fn info(conn: &ServerConnection) -> TlsInfo {
    let version = match conn.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
        Some(v) => format!("{v:?}"),
        None => String::new(),
    };
    let cipher = conn
        .negotiated_cipher_suite()
        .map(|s| openssl_cipher_name(s.suite()))
        .unwrap_or_default();
    TlsInfo { version, cipher }
}

/// OpenSSL's name of a cipher suite (what MariaDB's `Ssl_cipher` shows), else rustls' name.
pub fn openssl_cipher_name(suite: rustls::CipherSuite) -> String {
    use rustls::CipherSuite as C;
    let name = match suite {
        C::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        C::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        C::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        C::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        C::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        C::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-ECDSA-CHACHA20-POLY1305",
        C::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        C::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        C::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        other => return format!("{other:?}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cipher_names_follow_openssl() {
        use rustls::CipherSuite as C;
        assert_eq!(
            openssl_cipher_name(C::TLS13_AES_256_GCM_SHA384),
            "TLS_AES_256_GCM_SHA384"
        );
        assert_eq!(
            openssl_cipher_name(C::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
            "ECDHE-RSA-AES128-GCM-SHA256"
        );
    }

    #[test]
    fn load_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = TlsFiles {
            cert: dir.path().join("nope.pem"),
            key: dir.path().join("nope.key"),
            ca: None,
        };
        let e = TlsAcceptor::load(&missing).unwrap_err().to_string();
        assert!(
            e.contains("cannot read certificate") && e.contains("nope.pem"),
            "{e}"
        );
        let junk = dir.path().join("junk.pem");
        std::fs::write(&junk, "not a certificate\n").unwrap();
        let bad = TlsFiles {
            cert: junk.clone(),
            key: junk,
            ca: None,
        };
        let e = TlsAcceptor::load(&bad).unwrap_err().to_string();
        assert!(e.contains("holds no PEM certificate"), "{e}");
    }
}
