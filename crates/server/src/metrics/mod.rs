//! The HTTP metrics endpoint (`metrics_port`, off unless configured; docs/monitoring.md): a listener
//! on its own thread that answers `GET /metrics` with the engine's and server's figures in Prometheus's
//! text format (exposition.rs), over the little HTTP of http.rs.
//!
//! Invariants: one request is answered at a time, each connection closed after its answer, and a
//! client gets [`CLIENT_TIMEOUT`] to send its request and take the answer, so a slow or silent client
//! holds the endpoint for at most that long and never a MySQL connection or a lock of the engine; a
//! panic while answering (a bug) ends that connection only; [`MetricsServer::stop`] ends the thread.

pub mod exposition;
pub mod http;

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use betula_sql::Engine;

/// How long a client may take to send its request, and to take the answer.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The running endpoint.
pub struct MetricsServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Listens on `addr` and serves `engine`'s metrics on a thread of its own.
    pub fn start(addr: &str, engine: Arc<Engine>) -> io::Result<MetricsServer> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::Builder::new()
            .name("betula-metrics".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else {
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    };
                    let _ = catch_unwind(AssertUnwindSafe(|| answer(conn, &engine)));
                }
            })?;
        Ok(MetricsServer {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops the thread (wakes its accept with a connection of its own) and waits for it.
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(if wake.is_ipv4() {
                std::net::Ipv4Addr::LOCALHOST.into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads one request from `conn` and answers it.
fn answer(mut conn: TcpStream, engine: &Engine) {
    let _ = conn.set_read_timeout(Some(CLIENT_TIMEOUT));
    let _ = conn.set_write_timeout(Some(CLIENT_TIMEOUT));
    let response = match http::read_request(&mut conn) {
        Ok(req) => http::route(&req, || exposition::render(engine)),
        Err(http::BadRequest::Malformed) => http::Response::bad_request(),
        Err(http::BadRequest::Incomplete) => return,
    };
    let _ = response.write_to(&mut conn);
    // Closing a socket with unread input resets it, which can lose the answer: end the write side, then
    // read what the client still sends (a request body), for a moment.
    let _ = conn.shutdown(std::net::Shutdown::Write);
    let _ = conn.set_read_timeout(Some(Duration::from_millis(200)));
    let mut sink = [0u8; 4096];
    let mut drained = 0;
    while drained < 1 << 16 {
        match io::Read::read(&mut conn, &mut sink) {
            Ok(n) if n > 0 => drained += n,
            _ => break,
        }
    }
}
