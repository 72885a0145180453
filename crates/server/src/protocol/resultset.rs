//! [`ResultWriter`]: the protocol layer's [`ResultSink`], streaming the
//! results of one command (COM_QUERY in text protocol, COM_STMT_EXECUTE in
//! binary protocol) straight to the client.
//!
//! Invariants:
//! * each result's terminating packet (OK, or EOF/OK-0xFE after rows) is held
//!   back until it is known whether another result follows, so that
//!   MORE_RESULTS_EXISTS is set exactly on non-final results; only that one
//!   small packet is ever buffered, rows are written as they come;
//! * a second result is refused unless the client negotiated MULTI_RESULTS
//!   (text) or PS_MULTI_RESULTS (binary);
//! * after the first write failure every call fails fast and
//!   [`ResultWriter::finish`] reports the I/O error so the connection closes;
//! * `finish` always leaves the client in sync: exactly one final packet
//!   (OK, end-of-rows, or ERR) without MORE_RESULTS_EXISTS.

use std::io::{Read, Write};

use super::backend::ResultSink;
use super::capabilities::{
    Capabilities, CLIENT_LOCAL_FILES, CLIENT_MULTI_RESULTS, CLIENT_PS_MULTI_RESULTS,
};
use super::column::{encode_column_def, ColumnDef, ColumnType};
use super::error::{ProtocolError, SqlError};
use super::local_infile::LocalFile;
use super::packet::PacketStream;
use super::response::{encode_end, encode_err, encode_ok, Completion, OK_HEADER};
use super::row::{encode_binary_row, encode_text_row};
use super::status::StatusFlags;
use super::value::Value;
use super::wire::put_lenenc_int;

enum Pending {
    Ok(Completion),
    EndRows { warnings: u16, status: StatusFlags },
}

pub struct ResultWriter<'a, R, W> {
    stream: &'a mut PacketStream<R, W>,
    caps: Capabilities,
    binary: bool,
    multi_statements: bool,
    /// Status announced in the EOF after column definitions.
    base_status: StatusFlags,
    /// Column types of the open result set, `None` between results.
    open: Option<Vec<ColumnType>>,
    pending: Option<Pending>,
    failed: Option<ProtocolError>,
    buf: Vec<u8>,
}

fn lost() -> SqlError {
    SqlError::new(2013, b"HY000", "Lost connection to client during query")
}

impl<'a, R: Read, W: Write> ResultWriter<'a, R, W> {
    pub fn new(
        stream: &'a mut PacketStream<R, W>,
        caps: Capabilities,
        binary: bool,
        multi_statements: bool,
        base_status: StatusFlags,
    ) -> Self {
        ResultWriter {
            stream,
            caps,
            binary,
            multi_statements,
            base_status: base_status.session_only(),
            open: None,
            pending: None,
            failed: None,
            buf: Vec::with_capacity(256),
        }
    }

    fn send_buf(&mut self) -> Result<(), SqlError> {
        if self.failed.is_some() {
            return Err(lost());
        }
        if let Err(e) = self.stream.write_packet(&self.buf) {
            self.failed = Some(e);
            return Err(lost());
        }
        Ok(())
    }

    fn flush_pending(
        &mut self,
        more: bool,
        status_override: Option<StatusFlags>,
    ) -> Result<(), SqlError> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        self.buf.clear();
        let deprecate_eof = self.caps.deprecate_eof();
        match p {
            Pending::Ok(c) => {
                let st = status_override.unwrap_or(c.status.session_only());
                encode_ok(
                    &mut self.buf,
                    &c,
                    st.with(StatusFlags::MORE_RESULTS_EXISTS, more),
                    OK_HEADER,
                );
            }
            Pending::EndRows { warnings, status } => {
                let st = status_override.unwrap_or(status.session_only());
                encode_end(
                    &mut self.buf,
                    deprecate_eof,
                    warnings,
                    st.with(StatusFlags::MORE_RESULTS_EXISTS, more),
                );
            }
        }
        self.send_buf()
    }

    /// Called before a new result starts: flushes the previous one with
    /// MORE_RESULTS_EXISTS, if the client can take several results.
    fn next_result(&mut self) -> Result<(), SqlError> {
        if self.failed.is_some() {
            return Err(lost());
        }
        if self.open.is_some() {
            return Err(SqlError::unknown(
                "result set started before the previous one ended",
            ));
        }
        if self.pending.is_some() {
            let cap = if self.binary {
                CLIENT_PS_MULTI_RESULTS
            } else {
                CLIENT_MULTI_RESULTS
            };
            if !self.caps.has(cap) {
                return Err(SqlError::new(
                    1312,
                    b"0A000",
                    "the client does not accept multiple results (CLIENT_MULTI_RESULTS)",
                ));
            }
            self.flush_pending(true, None)?;
        }
        Ok(())
    }

    /// Ends the command: writes the final terminator or the ERR packet and
    /// flushes. `status` is the session status after the command.
    pub fn finish(
        mut self,
        result: Result<(), SqlError>,
        status: StatusFlags,
    ) -> Result<(), ProtocolError> {
        let status = status.session_only();
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        match result {
            Ok(()) => {
                if let Some(_types) = self.open.take() {
                    // The backend forgot end_rows: close the result set.
                    self.pending = Some(Pending::EndRows {
                        warnings: 0,
                        status,
                    });
                }
                if self.pending.is_none() {
                    self.pending = Some(Pending::Ok(Completion::default()));
                }
                let _ = self.flush_pending(false, Some(status));
            }
            Err(e) => {
                if self.open.take().is_none() && self.pending.is_some() {
                    let cap = if self.binary {
                        CLIENT_PS_MULTI_RESULTS
                    } else {
                        CLIENT_MULTI_RESULTS
                    };
                    if self.caps.has(cap) {
                        let _ = self.flush_pending(true, None);
                    } else {
                        self.pending = None;
                    }
                }
                // An ERR also terminates an open result set mid-rows.
                self.pending = None;
                self.buf.clear();
                encode_err(&mut self.buf, &e);
                let _ = self.send_buf();
            }
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.stream.flush()
    }
}

impl<R: Read, W: Write> ResultSink for ResultWriter<'_, R, W> {
    fn begin_rows(&mut self, columns: &[ColumnDef]) -> Result<(), SqlError> {
        if columns.is_empty() {
            return Err(SqlError::unknown("result set without columns"));
        }
        self.next_result()?;
        self.buf.clear();
        put_lenenc_int(&mut self.buf, columns.len() as u64);
        self.send_buf()?;
        for c in columns {
            self.buf.clear();
            encode_column_def(&mut self.buf, c, false);
            self.send_buf()?;
        }
        if !self.caps.deprecate_eof() {
            self.buf.clear();
            encode_end(&mut self.buf, false, 0, self.base_status);
            self.send_buf()?;
        }
        self.open = Some(columns.iter().map(|c| c.column_type).collect());
        Ok(())
    }

    fn row(&mut self, values: &[Value]) -> Result<(), SqlError> {
        if self.failed.is_some() {
            return Err(lost());
        }
        let Some(types) = self.open.as_ref() else {
            return Err(SqlError::unknown("row sent outside a result set"));
        };
        if values.len() != types.len() {
            return Err(SqlError::unknown(format!(
                "row has {} values for {} columns",
                values.len(),
                types.len()
            )));
        }
        self.buf.clear();
        if self.binary {
            encode_binary_row(&mut self.buf, values, types)?;
        } else {
            encode_text_row(&mut self.buf, values);
        }
        self.send_buf()
    }

    fn end_rows(&mut self, done: &Completion) -> Result<(), SqlError> {
        if self.open.take().is_none() {
            return Err(SqlError::unknown("end_rows without an open result set"));
        }
        self.pending = Some(Pending::EndRows {
            warnings: done.warnings,
            status: done.status,
        });
        Ok(())
    }

    fn ok(&mut self, done: &Completion) -> Result<(), SqlError> {
        self.next_result()?;
        self.pending = Some(Pending::Ok(done.clone()));
        Ok(())
    }

    fn multi_statements(&self) -> bool {
        self.multi_statements
    }

    fn local_infile(&mut self, filename: &str) -> Option<Box<dyn Read + '_>> {
        if !self.caps.has(CLIENT_LOCAL_FILES) || self.open.is_some() {
            return None;
        }
        if self.pending.is_some() && self.next_result().is_err() {
            return None;
        }
        LocalFile::request(self.stream, &mut self.failed, filename)
            .map(|f| Box::new(f) as Box<dyn Read + '_>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::capabilities::CLIENT_DEPRECATE_EOF;
    use std::io;

    /// Runs `f` against a writer and returns the payloads it sent.
    fn capture(
        caps: u32,
        binary: bool,
        f: impl FnOnce(&mut dyn ResultSink) -> Result<(), SqlError>,
    ) -> Vec<Vec<u8>> {
        let mut stream = PacketStream::new(io::empty(), Vec::new(), 1 << 20);
        let mut w = ResultWriter::new(
            &mut stream,
            Capabilities(caps),
            binary,
            true,
            StatusFlags::AUTOCOMMIT,
        );
        let r = f(&mut w);
        w.finish(r, StatusFlags::AUTOCOMMIT).unwrap();
        let bytes = stream.writer_mut().clone();
        let mut back = PacketStream::new(io::Cursor::new(bytes), io::sink(), 1 << 20);
        let mut out = Vec::new();
        while let Ok(p) = back.read_packet() {
            out.push(p);
        }
        out
    }

    fn status_of_ok(p: &[u8]) -> u16 {
        // header, 1-byte affected rows, 1-byte insert id (small values here)
        u16::from_le_bytes([p[3], p[4]])
    }

    fn status_of_eof(p: &[u8]) -> u16 {
        u16::from_le_bytes([p[3], p[4]])
    }

    const MORE: u16 = StatusFlags::MORE_RESULTS_EXISTS.0;

    fn cols() -> Vec<ColumnDef> {
        vec![ColumnDef::new("a", ColumnType::LONGLONG)]
    }

    #[test]
    fn more_results_flag_on_all_but_last() {
        let p = capture(CLIENT_MULTI_RESULTS, false, |s| {
            s.ok(&Completion::affected(1))?;
            s.begin_rows(&cols())?;
            s.row(&[Value::Int(1)])?;
            s.end_rows(&Completion::default())?;
            s.ok(&Completion::affected(2))
        });
        // OK, count, coldef, EOF, row, EOF, OK
        assert_eq!(p.len(), 7);
        assert_eq!(status_of_ok(&p[0]) & MORE, MORE);
        assert_eq!(p[5][0], 0xfe);
        assert_eq!(status_of_eof(&p[5]) & MORE, MORE);
        assert_eq!(p[6][1], 2);
        assert_eq!(status_of_ok(&p[6]) & MORE, 0);
    }

    #[test]
    fn error_after_results_and_mid_rows() {
        let p = capture(CLIENT_MULTI_RESULTS, false, |s| {
            s.ok(&Completion::default())?;
            Err(SqlError::unknown("boom"))
        });
        assert_eq!(p.len(), 2);
        assert_eq!(status_of_ok(&p[0]) & MORE, MORE);
        assert_eq!(p[1][0], 0xff);
        let p = capture(CLIENT_DEPRECATE_EOF, false, |s| {
            s.begin_rows(&cols())?;
            s.row(&[Value::Int(1)])?;
            Err(SqlError::unknown("boom"))
        });
        // count, coldef (no EOF with DEPRECATE_EOF), row, ERR
        assert_eq!(p.len(), 4);
        assert_eq!(p[3][0], 0xff);
    }

    #[test]
    fn second_result_refused_without_multi_results() {
        let p = capture(0, false, |s| {
            s.ok(&Completion::default())?;
            s.ok(&Completion::default())
        });
        assert_eq!(
            p.len(),
            1,
            "only the ERR: the client cannot read two results"
        );
        assert_eq!(p[0][0], 0xff);
    }

    #[test]
    fn sink_misuse_is_an_error_not_a_panic() {
        let p = capture(0, true, |s| {
            assert!(s.row(&[Value::Int(1)]).is_err());
            assert!(s.end_rows(&Completion::default()).is_err());
            assert!(s.begin_rows(&[]).is_err());
            s.begin_rows(&cols())?;
            assert!(s.row(&[]).is_err());
            assert!(s.row(&[Value::from("nan")]).is_err(), "not an integer");
            s.row(&[Value::Null])?;
            Ok(()) // forgot end_rows: finish closes the result set
        });
        // count, coldef, EOF, row, EOF
        assert_eq!(p.len(), 5);
        assert_eq!(p[3], [0x00, 0b100]);
        assert_eq!(p[4][0], 0xfe);
    }

    #[test]
    fn empty_success_is_an_ok() {
        let p = capture(0, false, |_| Ok(()));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0][0], 0x00);
        assert_eq!(status_of_ok(&p[0]), StatusFlags::AUTOCOMMIT.0);
    }
}
