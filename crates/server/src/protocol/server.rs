//! [`Server`]: the TCP listener, one std thread per connection, connection
//! ids, the max-connections limit and clean shutdown.
//!
//! Invariants:
//! * every accepted socket gets TCP_NODELAY before anything is written;
//! * a connection's failure or panic (client garbage, a disconnect
//!   mid-result, a backend bug) ends only that connection's thread; the
//!   registry entry is removed by a drop guard whatever happens;
//! * beyond `max_connections` live connections a new client gets ERR 1040
//!   (Too many connections) instead of a greeting and is closed;
//! * shutdown stops accepting, tells the backend (which interrupts running
//!   statements), shuts down the read half of every live socket (which ends a
//!   blocked read and lets a statement send its reply), gives connections
//!   [`SHUTDOWN_GRACE`] to end, then shuts their sockets down completely (a
//!   thread blocked writing to a client that does not read) and joins all
//!   threads before returning;
//! * KILL CONNECTION of another connection shuts down the read half of its
//!   socket ([`ShutdownHandle::close_connection`]): a connection blocked
//!   reading ends at once, a running one after its reply. The registry holds
//!   the TCP socket itself, so this holds for a connection that switched to
//!   TLS too (its TLS stream reads from the same socket).

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::backend::Backend;
use super::connection::{refuse, serve};
use super::error::{codes, SqlError};
use super::packet::DEFAULT_MAX_PACKET;
use super::tls::TlsAcceptor;

#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Live connections allowed at once (MySQL's `max_connections`).
    pub max_connections: usize,
    /// Largest client packet accepted (MySQL's `max_allowed_packet`).
    pub max_packet: usize,
    /// The certificate clients may switch to TLS with (`--ssl-cert`/`--ssl-key`); None: plain
    /// connections only, CLIENT_SSL not offered.
    pub tls: Option<TlsAcceptor>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_connections: 151,
            max_packet: DEFAULT_MAX_PACKET,
            tls: None,
        }
    }
}

/// Counters reported by COM_STATISTICS.
#[derive(Debug)]
pub(crate) struct Stats {
    pub started: Instant,
    pub questions: AtomicU64,
}

/// State shared by the accept loop and connection threads.
pub(crate) struct Shared {
    pub config: ServerConfig,
    pub stats: Stats,
    shutdown: AtomicBool,
    next_id: AtomicU32,
    /// Live connections: id -> a clone of the socket (to shut it down).
    live: Mutex<HashMap<u32, TcpStream>>,
}

impl Stats {
    /// The COM_STATISTICS text, given the number of live connections.
    pub fn summary(&self, threads: usize) -> String {
        let up = self.started.elapsed().as_secs();
        let q = self.questions.load(Ordering::Relaxed);
        format!(
            "Uptime: {up}  Threads: {threads}  Questions: {q}  Slow queries: 0  Opens: 0  Open tables: 0  Queries per second avg: {:.3}",
            q as f64 / up.max(1) as f64
        )
    }
}

/// How long shutdown waits for connections to send their last reply and end.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

impl Shared {
    pub fn live_count(&self) -> usize {
        self.live().len()
    }

    fn shutdown_sockets(&self, how: Shutdown) {
        for s in self.live().values() {
            let _ = s.shutdown(how);
        }
    }

    fn live(&self) -> MutexGuard<'_, HashMap<u32, TcpStream>> {
        // A poisoned registry is still a valid map.
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Removes a connection from the registry when its thread ends.
struct LiveGuard<'a> {
    shared: &'a Shared,
    id: u32,
}

impl Drop for LiveGuard<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.shared.live().remove(&self.id) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

pub struct Server {
    listener: TcpListener,
    backend: Arc<dyn Backend>,
    shared: Arc<Shared>,
}

impl Server {
    pub fn bind(
        addr: impl ToSocketAddrs,
        backend: Arc<dyn Backend>,
        config: ServerConfig,
    ) -> io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        Ok(Server {
            listener,
            backend,
            shared: Arc::new(Shared {
                config,
                stats: Stats {
                    started: Instant::now(),
                    questions: AtomicU64::new(0),
                },
                shutdown: AtomicBool::new(false),
                next_id: AtomicU32::new(1),
                live: Mutex::new(HashMap::new()),
            }),
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle that can stop this server from another thread.
    pub fn shutdown_handle(&self) -> io::Result<ShutdownHandle> {
        Ok(ShutdownHandle {
            shared: self.shared.clone(),
            addr: self.local_addr()?,
        })
    }

    /// Accepts connections until shut down, then joins every connection thread.
    pub fn run(self) -> io::Result<()> {
        let mut threads: Vec<JoinHandle<()>> = Vec::new();
        loop {
            let accepted = self.listener.accept();
            if self.shared.shutdown.load(Ordering::SeqCst) {
                break;
            }
            let (socket, _) = match accepted {
                Ok(a) => a,
                // Transient (EMFILE, ECONNABORTED...): back off a little.
                Err(_) => {
                    thread::sleep(Duration::from_millis(10));
                    continue;
                }
            };
            let _ = socket.set_nodelay(true);
            threads.retain(|t| !t.is_finished());
            self.accept_one(socket, &mut threads);
        }
        self.backend.shutdown();
        self.shared.shutdown_sockets(Shutdown::Read);
        let deadline = Instant::now() + SHUTDOWN_GRACE;
        while threads.iter().any(|t| !t.is_finished()) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
        }
        self.shared.shutdown_sockets(Shutdown::Both);
        for t in threads {
            let _ = t.join();
        }
        Ok(())
    }

    fn accept_one(&self, mut socket: TcpStream, threads: &mut Vec<JoinHandle<()>>) {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        {
            let mut live = self.shared.live();
            if live.len() >= self.shared.config.max_connections {
                drop(live);
                let _ = socket.set_write_timeout(Some(Duration::from_secs(1)));
                refuse(
                    &mut socket,
                    &SqlError::new(codes::ER_CON_COUNT_ERROR, b"08004", "Too many connections"),
                );
                return;
            }
            match socket.try_clone() {
                Ok(clone) => {
                    live.insert(id, clone);
                }
                Err(_) => return,
            }
        }
        let shared = self.shared.clone();
        let backend = self.backend.clone();
        let spawned = thread::Builder::new()
            .name(format!("betula-conn-{id}"))
            .spawn(move || {
                let _guard = LiveGuard {
                    shared: &shared,
                    id,
                };
                let _ = catch_unwind(AssertUnwindSafe(|| {
                    serve(socket, id, backend.as_ref(), &shared)
                }));
            });
        match spawned {
            Ok(t) => threads.push(t),
            Err(_) => {
                if let Some(s) = self.shared.live().remove(&id) {
                    let _ = s.shutdown(Shutdown::Both);
                }
            }
        }
    }

    /// Runs the accept loop on a background thread.
    pub fn spawn(self) -> io::Result<ServerHandle> {
        let handle = self.shutdown_handle()?;
        let thread = thread::Builder::new()
            .name("betula-accept".into())
            .spawn(move || self.run())?;
        Ok(ServerHandle { handle, thread })
    }
}

/// Stops a running server (cloneable; usable from a signal-handling thread).
#[derive(Clone)]
pub struct ShutdownHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
}

impl ShutdownHandle {
    /// Requests shutdown: the accept loop wakes up, closes every live
    /// connection and returns from `Server::run`.
    pub fn shutdown(&self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        // Wake the blocking accept() with a throwaway connection.
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(if wake.is_ipv4() {
                Ipv4Addr::LOCALHOST.into()
            } else {
                Ipv6Addr::LOCALHOST.into()
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
    }

    /// Number of live connections.
    pub fn connections(&self) -> usize {
        self.shared.live().len()
    }

    /// KILL CONNECTION `id`: shuts down the read half of its socket, if it is live (its thread
    /// ends at its next read; a reply it is sending still goes out).
    pub fn close_connection(&self, id: u32) {
        if let Some(s) = self.shared.live().get(&id) {
            let _ = s.shutdown(Shutdown::Read);
        }
    }
}

/// A server running on a background thread.
pub struct ServerHandle {
    handle: ShutdownHandle,
    thread: JoinHandle<io::Result<()>>,
}

impl ServerHandle {
    pub fn local_addr(&self) -> SocketAddr {
        self.handle.addr
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.handle.clone()
    }

    pub fn connections(&self) -> usize {
        self.handle.connections()
    }

    /// Stops the server and waits for every thread to end.
    pub fn shutdown(self) -> io::Result<()> {
        self.handle.shutdown();
        self.thread
            .join()
            .map_err(|_| io::Error::other("accept thread panicked"))?
    }
}
