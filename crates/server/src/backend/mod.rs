//! The glue between the protocol layer and the SQL engine: [`SqlBackend`] implements
//! `protocol::Backend` over a `betula_sql::Engine`, [`SqlSession`] implements
//! `protocol::Session` over an engine session.
//!
//! Invariants: KILL CONNECTION and SHUTDOWN reach the server through the hooks [`install_hooks`]
//! lends the engine, and server shutdown interrupts every session's statement first; multi-statement text is split here (split.rs in the SQL crate) and each result is
//! sent in order; the first failing statement's error ends the reply (after rows already sent, as
//! an ERR in place of the end of the result set). Plain queries send their rows to the client as
//! the engine reads them ([`Stream`]); results that need every row first (sorting, grouping) are
//! materialized by the engine, then sent row by row.

mod client_charset;
mod convert;
mod replication;

use std::sync::Arc;

use betula_sql::parser::split::split_statements;
use betula_sql::Session as EngineSession;
use betula_sql::{DbError, DbResult, Engine, ErrorCode, OutCol, Output, RowSink};

use betula_sql::context::connection_charset::ConnectionCharsets;
use betula_sql::context::interrupt::ServerHooks;
use betula_sql::context::status::TlsStatus;
use client_charset::Plan;

use crate::protocol::{
    Backend, ColumnDef, Completion, PreparedInfo, ResultSink, Session, SessionContext,
    ShutdownHandle, SqlError, StatementId, StatusFlags, UserAuth, Value,
};

pub use convert::{error, from_protocol, to_protocol, to_protocol_typed, ColumnText};

pub struct SqlBackend {
    pub engine: Arc<Engine>,
}

impl Backend for SqlBackend {
    fn user_auth(&self, user: &str, client_host: &str) -> Option<UserAuth> {
        self.engine.user_auth(user, client_host).map(|u| UserAuth {
            account_user: u.name,
            account_host: u.host,
            plugin: u.plugin,
            auth_string: u.auth,
            require_ssl: u.require_ssl,
        })
    }

    fn rsa_key_file(&self) -> Option<std::path::PathBuf> {
        Some(
            self.engine
                .config
                .datadir
                .join(crate::protocol::auth_sha2::RSA_KEY_FILE),
        )
    }

    fn open_session(&self, ctx: SessionContext) -> Result<Box<dyn Session>, SqlError> {
        let mut sess = self
            .engine
            .session(ctx.connection_id as u64, &ctx.user, &ctx.client_host);
        sess.account_user = ctx.account_user;
        sess.account_host = ctx.account_host;
        sess.client_found_rows =
            ctx.capabilities & crate::protocol::capabilities::CLIENT_FOUND_ROWS != 0;
        sess.tls = ctx.tls.map(|t| TlsStatus {
            version: t.version,
            cipher: t.cipher,
        });
        if let Some(cs) = ConnectionCharsets::from_handshake(u16::from(ctx.charset)) {
            sess.set_connection_charsets(cs);
        }
        if let Some(db) = ctx.database.as_deref().filter(|d| !d.is_empty()) {
            sess.use_db(db).map_err(error)?;
        }
        betula_sql::context::metrics::add(&self.engine.metrics.connections, 1);
        Ok(Box::new(SqlSession { sess }))
    }

    fn shutdown(&self) {
        self.engine.interrupt_all();
    }

    /// @@version: MariaDB's form (`10.11.99-Betula-...-log`) while the binary log is on, since
    /// a MariaDB replica uses GTIDs only with a primary of major version 10 or later.
    fn server_version(&self) -> String {
        match self.engine.globals.read().get("version") {
            Some(betula_sql::types::value::Value::Text(v)) => v.clone(),
            _ => betula_sql::context::variables::version(),
        }
    }
}

/// Lends the engine the server's part of KILL CONNECTION (shutting a connection's socket down)
/// and of SHUTDOWN (the same stop as SIGTERM).
pub fn install_hooks(
    engine: &Engine,
    server: &ShutdownHandle,
    replica: Option<Arc<dyn betula_sql::context::interrupt::ReplicaControl>>,
) {
    let closer = server.clone();
    let stopper = server.clone();
    engine.install_server_hooks(ServerHooks {
        close_connection: Some(Box::new(move |id| {
            if let Ok(id) = u32::try_from(id) {
                closer.close_connection(id);
            }
        })),
        shutdown: Some(Box::new(move || stopper.shutdown())),
        replica,
    });
}

pub struct SqlSession {
    sess: EngineSession,
}

/// The engine's row sink over the client's result set: rows go out as the query reads them.
struct Stream<'a> {
    out: &'a mut dyn ResultSink,
    buf: Vec<Value>,
    /// The result columns' SQL types (how BIT values are sent).
    types: Vec<ColumnText>,
    /// What the client is told when sending failed (see [`Stream::write_error`]).
    failed: Option<SqlError>,
    charsets: ConnectionCharsets,
    /// How the result's text is converted for the client (client_charset.rs).
    plan: Plan,
}

impl<'a> Stream<'a> {
    fn new(out: &'a mut dyn ResultSink, charsets: ConnectionCharsets) -> Stream<'a> {
        Stream {
            out,
            buf: Vec::new(),
            types: Vec::new(),
            failed: None,
            charsets,
            plan: Plan::none(),
        }
    }

    /// A failure to send part of a result set (the client went away, or takes no second
    /// result): the statement ends with [`ErrorCode::NetErrorOnWrite`], and the client is told the
    /// protocol layer's error as it is, as when a materialized result fails to send.
    fn write_error(&mut self, e: SqlError) -> DbError {
        let err = DbError::new(ErrorCode::NetErrorOnWrite, e.message.clone());
        self.failed = Some(e);
        err
    }

    /// The statement's result as the client sees it: a failure to send is the protocol layer's
    /// error, any other failure the engine's.
    fn result<T>(mut self, r: DbResult<T>) -> Result<T, SqlError> {
        r.map_err(|e| match self.failed.take() {
            Some(sent) if e.code == ErrorCode::NetErrorOnWrite => sent,
            _ => error(e),
        })
    }
}

impl RowSink for Stream<'_> {
    fn columns(&mut self, cols: &[OutCol]) -> DbResult<()> {
        let mut defs: Vec<ColumnDef> = cols
            .iter()
            .enumerate()
            .map(|(i, c)| convert::column(c, i, &[]))
            .collect();
        self.plan = column_plan(&mut defs, cols, &self.charsets);
        self.types = cols.iter().map(ColumnText::of).collect();
        let r = self.out.begin_rows(&defs);
        r.map_err(|e| self.write_error(e))
    }

    fn row(&mut self, row: &[betula_sql::types::value::Value]) -> DbResult<()> {
        self.buf.clear();
        let types = &self.types;
        self.buf.extend(
            row.iter()
                .enumerate()
                .map(|(i, v)| to_protocol_typed(v, &types.get(i).copied().unwrap_or_default())),
        );
        self.plan.convert_row(&mut self.buf);
        let r = self.out.row(&self.buf);
        r.map_err(|e| self.write_error(e))
    }
}

/// Rewrites `defs` for the connection's results character set; how their values convert.
fn column_plan(defs: &mut [ColumnDef], cols: &[OutCol], cs: &ConnectionCharsets) -> Plan {
    if cs.results == Some(betula_sql::types::charset::Charset::Utf8mb4) {
        return Plan::none();
    }
    let own: Vec<_> = cols
        .iter()
        .map(|c| c.ty.filter(|t| t.is_text()).map(|_| c.collation))
        .collect();
    Plan::for_columns(defs, &own, cs)
}

fn send(
    out: Output,
    warnings: u16,
    sink: &mut dyn ResultSink,
    cs: &ConnectionCharsets,
) -> Result<(), SqlError> {
    match out {
        Output::Sent { .. } => sink.end_rows(&Completion {
            warnings,
            ..Default::default()
        }),
        Output::Rows { cols, rows } => {
            let mut defs: Vec<ColumnDef> = cols
                .iter()
                .enumerate()
                .map(|(i, c)| convert::column(c, i, &rows))
                .collect();
            let plan = column_plan(&mut defs, &cols, cs);
            sink.begin_rows(&defs)?;
            let mut buf = Vec::with_capacity(defs.len());
            let texts: Vec<ColumnText> = cols.iter().map(ColumnText::of).collect();
            for r in &rows {
                buf.clear();
                buf.extend(r.iter().zip(&texts).map(|(v, c)| to_protocol_typed(v, c)));
                plan.convert_row(&mut buf);
                sink.row(&buf)?;
            }
            sink.end_rows(&Completion {
                warnings,
                ..Default::default()
            })
        }
        Output::Done {
            affected,
            last_insert_id,
            info,
        } => sink.ok(&Completion {
            affected_rows: affected,
            last_insert_id,
            warnings,
            info,
            ..Default::default()
        }),
    }
}

impl SqlSession {
    fn warnings(&self) -> u16 {
        self.sess.warnings.len().min(u16::MAX as usize) as u16
    }

    /// The result sets the statement's stored procedures produced, in order.
    fn send_routine_results(&mut self, out: &mut dyn ResultSink) -> Result<(), SqlError> {
        let cs = self.sess.charsets;
        for r in std::mem::take(&mut self.sess.cx.routine_results) {
            send(r, 0, out, &cs)?;
        }
        Ok(())
    }
}

impl Session for SqlSession {
    fn decode_text<'a>(&self, bytes: &'a [u8]) -> std::borrow::Cow<'a, str> {
        client_charset::decode_statement(bytes, self.sess.charsets.client)
    }

    fn query(&mut self, sql: &str, out: &mut dyn ResultSink) -> Result<(), SqlError> {
        // Executable comments (`/*!40101 ... */`) are statements, not comments, for the splitter.
        let expanded;
        let sql = if sql.contains("/*!") {
            expanded = betula_sql::parser::versioned::expand(sql);
            expanded.as_str()
        } else {
            sql
        };
        let stmts = split_statements(sql);
        if stmts.is_empty() {
            return Err(error(DbError::new(
                ErrorCode::EmptyQuery,
                "Query was empty",
            )));
        }
        if stmts.len() > 1 && !out.multi_statements() {
            return Err(error(betula_sql::DbError::syntax(
                stmts[1].chars().take(80).collect::<String>(),
            )));
        }
        for s in stmts {
            let r = match betula_sql::load::local_request(&self.sess, s) {
                // LOAD DATA LOCAL: the client's file streams in through the sink.
                Some(file) => {
                    let mut input = out.local_infile(&file);
                    let r = self.sess.execute_with_input(
                        s,
                        &[],
                        input.as_mut().map(|b| &mut **b as &mut dyn std::io::Read),
                    );
                    drop(input);
                    r.map_err(error)
                }
                None => {
                    let mut stream = Stream::new(out, self.sess.charsets);
                    let r = self.sess.execute_to(s, &[], &mut stream);
                    stream.result(r)
                }
            };
            // A CALL's result sets come before its own OK or error (design.md RTN3).
            self.send_routine_results(out)?;
            let r = r?;
            let w = self.warnings();
            send(r, w, out, &self.sess.charsets)?;
        }
        Ok(())
    }

    fn prepare(&mut self, stmt: StatementId, sql: &str) -> Result<PreparedInfo, SqlError> {
        let (n, cols) = self.sess.prepare(stmt, sql).map_err(error)?;
        let mut columns: Vec<ColumnDef> = cols
            .iter()
            .enumerate()
            .map(|(i, c)| convert::column(c, i, &[]))
            .collect();
        column_plan(&mut columns, &cols, &self.sess.charsets);
        Ok(PreparedInfo {
            param_count: n.min(u16::MAX as usize) as u16,
            columns,
        })
    }

    fn execute(
        &mut self,
        stmt: StatementId,
        params: &[Value],
        out: &mut dyn ResultSink,
    ) -> Result<(), SqlError> {
        let client = self.sess.charsets.client;
        let params: Vec<_> = params
            .iter()
            .map(|p| match p {
                Value::Bytes(b) if !b.is_ascii() => {
                    match client_charset::decode_parameter(b, client) {
                        Some(s) => betula_sql::types::value::Value::Text(s),
                        None => betula_sql::types::value::Value::Bytes(b.clone()),
                    }
                }
                other => from_protocol(other),
            })
            .collect();
        let cs = self.sess.charsets;
        let mut stream = Stream::new(out, cs);
        let r = self
            .sess
            .execute_prepared_to(stmt, &params, Some(&mut stream));
        let r = stream.result(r);
        self.send_routine_results(out)?;
        let r = r?;
        let w = self.warnings();
        send(r, w, out, &self.sess.charsets)
    }

    fn close_statement(&mut self, stmt: StatementId) {
        self.sess.prepared.remove(&stmt);
    }

    fn init_db(&mut self, db: &str) -> Result<(), SqlError> {
        self.sess.use_db(db).map_err(error)
    }

    fn field_list(&mut self, table: &str, wildcard: &str) -> Result<Vec<ColumnDef>, SqlError> {
        let (db, name) = self
            .sess
            .resolve_table_name(&[table.to_string()])
            .map_err(error)?;
        if let Some(v) = self.sess.engine.catalog.view(&db, &name) {
            // A view's columns: its body as planned now (design.md VIEW3).
            let (_, cols) = betula_sql::plan::view::plan_view(&mut self.sess, &v).map_err(error)?;
            return Ok(cols
                .into_iter()
                .filter(|c| {
                    wildcard.is_empty()
                        || betula_sql::expr::eval::like_match(&c.name, wildcard, '\\', true)
                })
                .map(|mut c| {
                    c.table = name.clone();
                    c.org_table = name.clone();
                    c.db = db.clone();
                    convert::column(&c, 0, &[])
                })
                .collect());
        }
        let t = self
            .sess
            .engine
            .catalog
            .get_table(&db, &name)
            .map_err(error)?;
        let mut out = Vec::new();
        for c in &t.columns {
            if !wildcard.is_empty()
                && !betula_sql::expr::eval::like_match(&c.name, wildcard, '\\', true)
            {
                continue;
            }
            let oc = betula_sql::OutCol {
                name: c.name.clone(),
                table: t.name.clone(),
                org_table: t.name.clone(),
                db: db.clone(),
                ty: Some(c.sql_type),
                flags: c.protocol_flags(),
                collation: c.collation,
                length: c.display_length(),
                members: c.members.clone(),
                double_decimals: None,
            };
            let mut d = convert::column(&oc, 0, &[]);
            d.default = c
                .default
                .as_ref()
                .and_then(|v| v.to_text(Some(&c.sql_type)));
            out.push(d);
        }
        Ok(out)
    }

    fn status_flags(&self) -> StatusFlags {
        let mut f = StatusFlags::default();
        if self.sess.autocommit() {
            f = f.with(StatusFlags::AUTOCOMMIT, true);
        }
        if self.sess.in_transaction() {
            f = f.with(StatusFlags::IN_TRANS, true);
        }
        f
    }

    fn reset(&mut self) -> Result<(), SqlError> {
        self.sess.rollback();
        self.sess.user_vars.clear();
        self.sess.warnings.clear();
        Ok(())
    }

    fn killed(&self) -> bool {
        self.sess.interrupt.connection_killed()
    }

    fn process_kill(&mut self, id: u32) -> Result<(), SqlError> {
        let r = self.sess.execute(&format!("KILL CONNECTION {id}"), &[]);
        r.map(|_| ()).map_err(error)
    }

    fn shutdown_server(&mut self) -> Result<(), SqlError> {
        self.sess
            .execute("SHUTDOWN", &[])
            .map(|_| ())
            .map_err(error)
    }

    fn register_replica(&mut self, server_id: u32) -> Result<(), SqlError> {
        self.register(server_id)
    }

    fn binlog_dump(
        &mut self,
        req: &crate::protocol::DumpRequest,
        out: &mut dyn crate::protocol::EventSink,
    ) -> Result<(), SqlError> {
        self.dump(req, out)
    }
}
