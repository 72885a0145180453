//! LOAD DATA LOCAL INFILE on the wire: the server asks the client for a file and streams it.
//!
//! Exchange (MySQL client/server protocol, "LOCAL INFILE Request"): in reply to the COM_QUERY
//! the server sends one packet `0xFB <file name>`; the client answers with the file's contents
//! in any number of packets, then one empty packet (an immediately empty packet when it will not
//! or cannot send the file); the server then sends the statement's OK or ERR.
//!
//! Invariants: only for connections that negotiated CLIENT_LOCAL_FILES; the reader hands out
//! the bytes as they arrive (nothing is buffered beyond one packet); whatever the backend does
//! with it, dropping the reader drains the client's remaining packets up to the empty one so the
//! connection stays in sync before the reply; an I/O error is recorded in the writer's failure
//! slot so the connection is closed after the command.

use std::io::{self, Read, Write};

use super::error::ProtocolError;
use super::packet::PacketStream;

/// The client's file, read from its packets.
pub struct LocalFile<'a, R: Read, W: Write> {
    stream: &'a mut PacketStream<R, W>,
    failed: &'a mut Option<ProtocolError>,
    packet: Vec<u8>,
    pos: usize,
    done: bool,
}

impl<'a, R: Read, W: Write> LocalFile<'a, R, W> {
    /// Sends the request for `filename` and returns the reader of the reply.
    pub fn request(
        stream: &'a mut PacketStream<R, W>,
        failed: &'a mut Option<ProtocolError>,
        filename: &str,
    ) -> Option<LocalFile<'a, R, W>> {
        if failed.is_some() {
            return None;
        }
        let mut p = Vec::with_capacity(filename.len() + 1);
        p.push(0xFB);
        p.extend_from_slice(filename.as_bytes());
        if let Err(e) = stream.write_packet(&p).and_then(|_| stream.flush()) {
            *failed = Some(e);
            return None;
        }
        Some(LocalFile {
            stream,
            failed,
            packet: Vec::new(),
            pos: 0,
            done: false,
        })
    }
}

impl<R: Read, W: Write> Read for LocalFile<'_, R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.pos < self.packet.len() {
                let n = buf.len().min(self.packet.len() - self.pos);
                buf[..n].copy_from_slice(&self.packet[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            if self.failed.is_some() {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "connection to the client lost",
                ));
            }
            match self.stream.read_packet() {
                Ok(p) => {
                    if p.is_empty() {
                        self.done = true;
                    }
                    self.packet = p;
                    self.pos = 0;
                }
                Err(e) => {
                    let msg = e.to_string();
                    *self.failed = Some(e);
                    return Err(io::Error::new(io::ErrorKind::ConnectionAborted, msg));
                }
            }
        }
    }
}

impl<R: Read, W: Write> Drop for LocalFile<'_, R, W> {
    fn drop(&mut self) {
        while !self.done && self.failed.is_none() {
            match self.stream.read_packet() {
                Ok(p) if p.is_empty() => self.done = true,
                Ok(_) => {}
                Err(e) => *self.failed = Some(e),
            }
        }
    }
}
