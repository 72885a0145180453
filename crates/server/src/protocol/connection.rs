//! One client connection: the connection phase (greeting, authentication,
//! session opening) and the command loop.
//!
//! Invariants:
//! * every command gets exactly one reply, except COM_QUIT, COM_STMT_CLOSE
//!   and COM_STMT_SEND_LONG_DATA which get none (per protocol);
//! * errors in a command's *content* (unknown command, malformed execute,
//!   unknown statement, backend errors) are answered with ERR and the loop
//!   continues; framing errors (oversized packet, sequence out of order) are
//!   answered with ERR and the connection is closed; I/O errors close it;
//! * the session's prepared statements are closed in the backend when the
//!   connection ends, however it ends;
//! * a killed session (`Session::killed`) gets the reply of the command it
//!   was running, then the connection closes without reading another one;
//! * after an SSLRequest the credentials and every command are read through
//!   TLS only (tls.rs; design.md TLS1-TLS4).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::Ordering;

use super::auth;
use super::authenticate::{authenticate, Login};
use super::backend::{Backend, DumpRequest, EventSink, PreparedInfo, Session, SessionContext};
use super::capabilities::*;
use super::column::{charset, encode_column_def, ColumnDef, ColumnType};
use super::command::Command;
use super::error::{codes, ProtocolError, SqlError};
use super::handshake::{
    decode_client_hello, encode_greeting, greeting_capabilities, ClientHello, HandshakeResponse,
};
use super::packet::PacketStream;
use super::response::{encode_end, encode_err, encode_ok, Completion, OK_HEADER};
use super::resultset::ResultWriter;
use super::server::Shared;
use super::statement::{PreparedStatement, StatementTable};
use super::status::StatusFlags;
use super::tls::{start_tls, ConnReader, ConnWriter, TlsAcceptor, TlsInfo};
use super::wire::{put_u16, put_u32, WireReader};

/// The connection's packets, over the plain socket or, after an SSLRequest, TLS (tls.rs).
type Stream = PacketStream<ConnReader, ConnWriter>;

/// A dump's events as packets (`0x00`, then the event), flushed one by one.
struct DumpPackets<'a> {
    stream: &'a mut Stream,
    /// The socket failed: the connection ends.
    failed: Option<ProtocolError>,
}

impl EventSink for DumpPackets<'_> {
    fn event(&mut self, bytes: &[u8]) -> Result<(), SqlError> {
        let mut p = Vec::with_capacity(bytes.len() + 1);
        p.push(0);
        p.extend_from_slice(bytes);
        let r = self
            .stream
            .write_packet(&p)
            .and_then(|()| self.stream.flush());
        r.map_err(|e| {
            let msg = e.to_string();
            self.failed = Some(e);
            SqlError::new(codes::ER_NET_ERROR_ON_WRITE, b"08S01", &msg)
        })
    }
}

/// An authenticated connection: its session and negotiated capabilities.
type Established = (Box<dyn Session>, Capabilities);

/// Serves one accepted socket until the client quits or the connection fails.
pub(crate) fn serve(
    socket: TcpStream,
    connection_id: u32,
    backend: &dyn Backend,
    shared: &Shared,
) -> Result<(), ProtocolError> {
    let _ = socket.set_nodelay(true);
    let client_host = socket
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let reader = ConnReader::plain(socket.try_clone()?);
    let writer = ConnWriter::plain(socket);
    let mut stream = PacketStream::new(reader, writer, shared.config.max_packet);
    let tls = shared.config.tls.as_ref();
    let connected = connect(&mut stream, connection_id, client_host, backend, tls);
    let Some((session, caps)) = connected? else {
        stream.writer_mut().close();
        return Ok(());
    };
    let mut conn = Connection {
        stream,
        session,
        caps,
        multi_statements: caps.has(CLIENT_MULTI_STATEMENTS),
        stmts: StatementTable::default(),
        shared,
        buf: Vec::with_capacity(256),
    };
    let result = conn.command_loop();
    for id in conn.stmts.drain_ids() {
        conn.session.close_statement(id);
    }
    conn.stream.writer_mut().close();
    result
}

fn send_err<R: Read, W: Write>(
    stream: &mut PacketStream<R, W>,
    e: &SqlError,
) -> Result<(), ProtocolError> {
    let mut buf = Vec::new();
    encode_err(&mut buf, e);
    stream.write_packet(&buf)?;
    stream.flush()
}

/// Reads the client's reply to the greeting; a reply that does not decode is answered with
/// ER_HANDSHAKE_ERROR (`Ok(None)`: close).
fn read_hello<R: Read, W: Write>(
    stream: &mut PacketStream<R, W>,
) -> Result<Option<ClientHello>, ProtocolError> {
    match stream.read_packet().and_then(|p| decode_client_hello(&p)) {
        Ok(h) => Ok(Some(h)),
        Err(ProtocolError::Malformed(m)) => {
            send_err(stream, &handshake_error(format!("Bad handshake: {m}")))?;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

fn handshake_error(message: impl Into<String>) -> SqlError {
    SqlError::new(codes::ER_HANDSHAKE_ERROR, b"08S01", message)
}

/// The client's HandshakeResponse41, read over TLS when it sent an SSLRequest first (design.md
/// TLS1, TLS2), with the connection's TLS parameters. `Ok(None)`: refused (an ERR was sent, or
/// the TLS handshake failed) and the connection should close.
fn handshake_response(
    stream: &mut Stream,
    tls: Option<&TlsAcceptor>,
) -> Result<Option<(HandshakeResponse, Option<TlsInfo>)>, ProtocolError> {
    match read_hello(stream)? {
        None => Ok(None),
        Some(ClientHello::Response(r)) => Ok(Some((r, None))),
        Some(ClientHello::SslRequest) => {
            let Some(acceptor) = tls else {
                let msg = "SSL connections are not supported by this server";
                send_err(stream, &handshake_error(msg))?;
                return Ok(None);
            };
            let (reader, writer) = stream.transport_mut();
            // A failed handshake ends this connection only (TLS4); nothing more can be sent.
            let Ok(info) = start_tls(reader, writer, acceptor) else {
                return Ok(None);
            };
            match read_hello(stream)? {
                Some(ClientHello::Response(r)) => Ok(Some((r, Some(info)))),
                Some(ClientHello::SslRequest) => {
                    send_err(
                        stream,
                        &handshake_error("Bad handshake: a second SSLRequest"),
                    )?;
                    Ok(None)
                }
                None => Ok(None),
            }
        }
    }
}

/// The connection phase. `Ok(None)` means the client was refused (an ERR
/// was sent) and the connection should close.
fn connect(
    stream: &mut Stream,
    connection_id: u32,
    client_host: String,
    backend: &dyn Backend,
    tls: Option<&TlsAcceptor>,
) -> Result<Option<Established>, ProtocolError> {
    let scramble = auth::new_scramble();
    let mut buf = Vec::new();
    encode_greeting(
        &mut buf,
        &backend.server_version(),
        connection_id,
        &scramble,
        StatusFlags::AUTOCOMMIT,
        greeting_capabilities(tls.is_some()),
    );
    stream.write_packet(&buf)?;
    stream.flush()?;

    let Some((resp, tls)) = handshake_response(stream, tls)? else {
        return Ok(None);
    };
    let caps = Capabilities::negotiate(resp.capabilities);

    let login = Login {
        hello: &resp,
        caps,
        scramble: &scramble,
        client_host: &client_host,
        secure: tls.is_some(),
    };
    let Some(account) = authenticate(stream, backend, &login)? else {
        return Ok(None);
    };
    let ctx = SessionContext {
        connection_id,
        user: resp.user.clone(),
        account_user: account.account_user,
        account_host: account.account_host,
        client_host,
        database: resp
            .database
            .clone()
            .filter(|_| caps.has(CLIENT_CONNECT_WITH_DB)),
        capabilities: caps.0,
        local_infile: caps.has(CLIENT_LOCAL_FILES),
        charset: resp.charset,
        attributes: resp.attributes,
        tls,
    };
    let session = match backend.open_session(ctx) {
        Ok(s) => s,
        Err(e) => {
            send_err(stream, &e)?;
            return Ok(None);
        }
    };
    buf.clear();
    encode_ok(
        &mut buf,
        &Completion::default(),
        session.status_flags().session_only(),
        OK_HEADER,
    );
    stream.write_packet(&buf)?;
    stream.flush()?;
    Ok(Some((session, caps)))
}

struct Connection<'s> {
    stream: Stream,
    session: Box<dyn Session>,
    caps: Capabilities,
    multi_statements: bool,
    stmts: StatementTable,
    shared: &'s Shared,
    buf: Vec<u8>,
}

/// What to do after a command.
enum Next {
    Continue,
    Close,
}

impl Connection<'_> {
    fn command_loop(&mut self) -> Result<(), ProtocolError> {
        loop {
            if self.session.killed() {
                return Ok(());
            }
            self.stream.reset_seq();
            let packet = match self.stream.read_packet() {
                Ok(p) => p,
                Err(ProtocolError::Closed) => return Ok(()),
                Err(e) => {
                    if let Some(err) = e.to_sql_error() {
                        let _ = send_err(&mut self.stream, &err);
                    }
                    return Err(e);
                }
            };
            self.shared.stats.questions.fetch_add(1, Ordering::Relaxed);
            match self.dispatch(&packet)? {
                Next::Continue => {}
                Next::Close => return Ok(()),
            }
        }
    }

    fn status(&self) -> StatusFlags {
        self.session.status_flags().session_only()
    }

    fn send_ok(&mut self, c: &Completion) -> Result<(), ProtocolError> {
        self.buf.clear();
        let st = self.status();
        encode_ok(&mut self.buf, c, st, OK_HEADER);
        self.stream.write_packet(&self.buf)?;
        self.stream.flush()
    }

    fn send_end(&mut self) -> Result<(), ProtocolError> {
        self.buf.clear();
        let st = self.status();
        encode_end(&mut self.buf, self.caps.deprecate_eof(), 0, st);
        self.stream.write_packet(&self.buf)?;
        self.stream.flush()
    }

    fn reply(&mut self, r: Result<(), SqlError>) -> Result<(), ProtocolError> {
        match r {
            Ok(()) => self.send_ok(&Completion::default()),
            Err(e) => send_err(&mut self.stream, &e),
        }
    }

    fn dispatch(&mut self, packet: &[u8]) -> Result<Next, ProtocolError> {
        let Some((&cmd, body)) = packet.split_first() else {
            send_err(
                &mut self.stream,
                &SqlError::malformed("empty command packet"),
            )?;
            return Ok(Next::Continue);
        };
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        match Command::from_byte(cmd) {
            Command::Quit => return Ok(Next::Close),
            Command::Ping => self.send_ok(&Completion::default())?,
            Command::InitDb => {
                let r = self.session.init_db(&text(body));
                self.reply(r)?;
            }
            Command::Query => self.query(&self.session.decode_text(body))?,
            Command::FieldList => self.field_list(body)?,
            Command::ProcessKill => {
                let r = match WireReader::new(body).u32() {
                    Ok(id) => self.session.process_kill(id),
                    Err(_) => Err(SqlError::malformed("COM_PROCESS_KILL too short")),
                };
                self.reply(r)?;
            }
            Command::Shutdown => match self.session.shutdown_server() {
                Ok(()) => self.send_end()?,
                Err(e) => send_err(&mut self.stream, &e)?,
            },
            Command::Statistics => {
                let s = self.shared.stats.summary(self.shared.live_count());
                self.stream.write_packet(s.as_bytes())?;
                self.stream.flush()?;
            }
            Command::StmtPrepare => self.prepare(&self.session.decode_text(body))?,
            Command::StmtExecute => self.execute(body)?,
            Command::StmtClose => {
                if let Ok(id) = WireReader::new(body).u32() {
                    if self.stmts.remove(id).is_some() {
                        self.session.close_statement(id);
                    }
                }
            }
            Command::StmtSendLongData => {
                let mut r = WireReader::new(body);
                if let (Ok(id), Ok(param)) = (r.u32(), r.u16()) {
                    if let Some(s) = self.stmts.get_mut(id) {
                        s.append_long_data(param, r.rest());
                    }
                }
            }
            Command::StmtReset => {
                let r = match WireReader::new(body)
                    .u32()
                    .ok()
                    .and_then(|id| self.stmts.get_mut(id))
                {
                    Some(s) => {
                        s.reset();
                        Ok(())
                    }
                    None => Err(unknown_stmt("mysqld_stmt_reset")),
                };
                self.reply(r)?;
            }
            Command::SetOption => match WireReader::new(body).u16() {
                Ok(0) => {
                    self.multi_statements = true;
                    self.send_end()?;
                }
                Ok(1) => {
                    self.multi_statements = false;
                    self.send_end()?;
                }
                _ => send_err(
                    &mut self.stream,
                    &SqlError::new(codes::ER_UNKNOWN_COM_ERROR, b"08S01", "Unknown command"),
                )?,
            },
            Command::ResetConnection => {
                for id in self.stmts.drain_ids() {
                    self.session.close_statement(id);
                }
                self.multi_statements = self.caps.has(CLIENT_MULTI_STATEMENTS);
                let r = self.session.reset();
                self.reply(r)?;
            }
            Command::RegisterSlave => {
                let r = match WireReader::new(body).u32() {
                    Ok(id) => self.session.register_replica(id),
                    Err(_) => Err(SqlError::malformed("COM_REGISTER_SLAVE too short")),
                };
                self.reply(r)?;
            }
            Command::BinlogDump => return self.binlog_dump(body),
            Command::ChangeUser | Command::StmtFetch | Command::Unknown(_) => {
                send_err(
                    &mut self.stream,
                    &SqlError::new(codes::ER_UNKNOWN_COM_ERROR, b"08S01", "Unknown command"),
                )?;
            }
        }
        Ok(Next::Continue)
    }

    /// COM_BINLOG_DUMP: the session streams events until the replica goes away, the
    /// connection is killed, or (non-blocking) the log's end; the connection then closes.
    fn binlog_dump(&mut self, body: &[u8]) -> Result<Next, ProtocolError> {
        let mut r = WireReader::new(body);
        let req = match (r.u32(), r.u16(), r.u32()) {
            (Ok(pos), Ok(flags), Ok(server_id)) => DumpRequest {
                pos,
                flags,
                server_id,
                file: String::from_utf8_lossy(r.rest())
                    .trim_end_matches('\0')
                    .to_string(),
            },
            _ => {
                send_err(
                    &mut self.stream,
                    &SqlError::malformed("COM_BINLOG_DUMP too short"),
                )?;
                return Ok(Next::Continue);
            }
        };
        let mut sink = DumpPackets {
            stream: &mut self.stream,
            failed: None,
        };
        let r = self.session.binlog_dump(&req, &mut sink);
        if let Some(e) = sink.failed {
            return Err(e);
        }
        match r {
            Ok(()) if req.flags & DumpRequest::NON_BLOCK != 0 => {
                self.send_end()?;
                Ok(Next::Continue)
            }
            Ok(()) => Ok(Next::Close),
            Err(e) => {
                send_err(&mut self.stream, &e)?;
                Ok(Next::Close)
            }
        }
    }

    fn query(&mut self, sql: &str) -> Result<(), ProtocolError> {
        let base = self.status();
        let mut w = ResultWriter::new(
            &mut self.stream,
            self.caps,
            false,
            self.multi_statements,
            base,
        );
        let r = self.session.query(sql, &mut w);
        let st = self.session.status_flags();
        w.finish(r, st)
    }

    fn field_list(&mut self, body: &[u8]) -> Result<(), ProtocolError> {
        let mut r = WireReader::new(body);
        let table = String::from_utf8_lossy(r.nul_bytes()).into_owned();
        let wildcard = String::from_utf8_lossy(r.rest()).into_owned();
        match self.session.field_list(&table, &wildcard) {
            Ok(cols) => {
                for c in &cols {
                    self.buf.clear();
                    encode_column_def(&mut self.buf, c, true);
                    self.stream.write_packet(&self.buf)?;
                }
                self.send_end()
            }
            Err(e) => send_err(&mut self.stream, &e),
        }
    }

    fn prepare(&mut self, sql: &str) -> Result<(), ProtocolError> {
        let prepared = self
            .stmts
            .next_id()
            .and_then(|id| self.session.prepare(id, sql).map(|info| (id, info)));
        let (id, info) = match prepared {
            Ok(p) => p,
            Err(e) => return send_err(&mut self.stream, &e),
        };
        let PreparedInfo {
            param_count,
            columns,
        } = info;
        let mut b = Vec::new();
        b.push(0);
        put_u32(&mut b, id);
        put_u16(&mut b, columns.len() as u16);
        put_u16(&mut b, param_count);
        b.push(0);
        put_u16(&mut b, 0);
        self.stream.write_packet(&b)?;
        let eof = !self.caps.deprecate_eof();
        if param_count > 0 {
            let mut p = ColumnDef::new("?", ColumnType::VAR_STRING);
            p.charset = charset::BINARY;
            for _ in 0..param_count {
                b.clear();
                encode_column_def(&mut b, &p, false);
                self.stream.write_packet(&b)?;
            }
            if eof {
                b.clear();
                encode_end(&mut b, false, 0, self.status());
                self.stream.write_packet(&b)?;
            }
        }
        if !columns.is_empty() {
            for c in &columns {
                b.clear();
                encode_column_def(&mut b, c, false);
                self.stream.write_packet(&b)?;
            }
            if eof {
                b.clear();
                encode_end(&mut b, false, 0, self.status());
                self.stream.write_packet(&b)?;
            }
        }
        self.stmts
            .insert(PreparedStatement::new(id, param_count, columns));
        self.stream.flush()
    }

    fn execute(&mut self, body: &[u8]) -> Result<(), ProtocolError> {
        let mut r = WireReader::new(body);
        let Ok(id) = r.u32() else {
            return send_err(
                &mut self.stream,
                &SqlError::malformed("COM_STMT_EXECUTE too short"),
            );
        };
        let Some(stmt) = self.stmts.get_mut(id) else {
            return send_err(&mut self.stream, &unknown_stmt("mysqld_stmt_execute"));
        };
        let params = match stmt.decode_params(r.rest()) {
            Ok(p) => p,
            Err(e) => return send_err(&mut self.stream, &e),
        };
        let base = self.status();
        let mut w = ResultWriter::new(&mut self.stream, self.caps, true, false, base);
        let r = self.session.execute(id, &params, &mut w);
        let st = self.session.status_flags();
        w.finish(r, st)
    }
}

fn unknown_stmt(what: &str) -> SqlError {
    SqlError::new(
        codes::ER_UNKNOWN_STMT_HANDLER,
        b"HY000",
        format!("Unknown prepared statement handler given to {what}"),
    )
}

/// Writes the ERR packet sent instead of a greeting when the server is full.
pub(crate) fn refuse(socket: &mut TcpStream, e: &SqlError) {
    let mut payload = Vec::new();
    encode_err(&mut payload, e);
    let mut frame = Vec::new();
    put_u32(&mut frame, payload.len() as u32);
    frame[3] = 0;
    frame.extend_from_slice(&payload);
    let _ = socket.write_all(&frame);
    let _ = socket.flush();
}
