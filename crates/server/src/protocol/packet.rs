//! Packet framing: every MySQL packet is a 3-byte little-endian payload
//! length, a 1-byte sequence id and the payload. A payload of 2^24-1 bytes or
//! more is split into chunks of exactly 0xFFFFFF bytes followed by a shorter
//! (possibly empty) last chunk; both directions handle this.
//!
//! Invariants:
//! * one [`PacketStream`] owns one sequence counter shared by reads and
//!   writes: a reply carries the sequence id following the request's;
//!   [`PacketStream::reset_seq`] is called at each command boundary;
//! * the first chunk of a logical packet may carry any sequence id (the
//!   counter resynchronises on it); continuation chunks must be consecutive,
//!   otherwise `ProtocolError::OutOfOrder`;
//! * the accumulated payload is checked against `max_packet` before each
//!   chunk is read, so a hostile length never allocates more than the limit.

use std::io::{self, Read, Write};

use super::error::ProtocolError;

/// Largest payload of a single physical packet.
pub const MAX_CHUNK: usize = 0xff_ffff;

/// Default `max_allowed_packet` (64 MiB, as MySQL 8).
pub const DEFAULT_MAX_PACKET: usize = 64 << 20;

/// A framed, sequenced packet channel over a reader and a writer.
pub struct PacketStream<R, W> {
    reader: R,
    writer: W,
    seq: u8,
    max_packet: usize,
}

impl<R: Read, W: Write> PacketStream<R, W> {
    pub fn new(reader: R, writer: W, max_packet: usize) -> Self {
        PacketStream {
            reader,
            writer,
            seq: 0,
            max_packet,
        }
    }

    /// Starts a new command exchange: the next packet is sequence 0.
    pub fn reset_seq(&mut self) {
        self.seq = 0;
    }

    pub fn seq(&self) -> u8 {
        self.seq
    }

    pub fn max_packet(&self) -> usize {
        self.max_packet
    }

    /// Reads one 4-byte header. `Ok(None)` means clean EOF before any byte.
    fn read_header(&mut self) -> Result<Option<(usize, u8)>, ProtocolError> {
        let mut hdr = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.reader.read(&mut hdr[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(ProtocolError::Closed),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let len = u32::from_le_bytes([hdr[0], hdr[1], hdr[2], 0]) as usize;
        Ok(Some((len, hdr[3])))
    }

    /// Reads one logical packet, joining split chunks.
    pub fn read_packet(&mut self) -> Result<Vec<u8>, ProtocolError> {
        let mut payload = Vec::new();
        let mut first = true;
        loop {
            let (len, seq) = match self.read_header()? {
                Some(h) => h,
                None => return Err(ProtocolError::Closed),
            };
            if !first && seq != self.seq {
                return Err(ProtocolError::OutOfOrder {
                    expected: self.seq,
                    got: seq,
                });
            }
            first = false;
            self.seq = seq.wrapping_add(1);
            let total = payload.len() + len;
            if total > self.max_packet {
                return Err(ProtocolError::PacketTooLarge {
                    size: total,
                    max: self.max_packet,
                });
            }
            let start = payload.len();
            payload.resize(total, 0);
            self.reader.read_exact(&mut payload[start..]).map_err(|e| {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    ProtocolError::Closed
                } else {
                    ProtocolError::Io(e)
                }
            })?;
            if len < MAX_CHUNK {
                return Ok(payload);
            }
        }
    }

    /// Writes one logical packet, splitting it when needed. Not flushed.
    pub fn write_packet(&mut self, payload: &[u8]) -> Result<(), ProtocolError> {
        let mut rest = payload;
        loop {
            let n = rest.len().min(MAX_CHUNK);
            let len = (n as u32).to_le_bytes();
            self.writer.write_all(&[len[0], len[1], len[2], self.seq])?;
            self.writer.write_all(&rest[..n])?;
            self.seq = self.seq.wrapping_add(1);
            rest = &rest[n..];
            if n < MAX_CHUNK {
                return Ok(());
            }
        }
    }

    pub fn flush(&mut self) -> Result<(), ProtocolError> {
        self.writer.flush()?;
        Ok(())
    }

    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// Both halves at once (to replace the transport, e.g. by TLS; the sequence id continues).
    pub fn transport_mut(&mut self) -> (&mut R, &mut W) {
        (&mut self.reader, &mut self.writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn frame(payload: &[u8], seq: u8) -> Vec<u8> {
        let mut s = PacketStream::new(io::empty(), Vec::new(), usize::MAX);
        s.seq = seq;
        s.write_packet(payload).unwrap();
        s.writer
    }

    fn read_all(bytes: Vec<u8>, max: usize) -> Result<Vec<u8>, ProtocolError> {
        PacketStream::new(Cursor::new(bytes), io::sink(), max).read_packet()
    }

    #[test]
    fn small_packet() {
        let w = frame(b"hello", 3);
        assert_eq!(w, b"\x05\x00\x00\x03hello");
        assert_eq!(read_all(w, 100).unwrap(), b"hello");
    }

    #[test]
    fn empty_packet() {
        let w = frame(b"", 0);
        assert_eq!(w, [0, 0, 0, 0]);
        assert_eq!(read_all(w, 100).unwrap(), b"");
    }

    #[test]
    fn split_boundaries() {
        for size in [
            MAX_CHUNK - 1,
            MAX_CHUNK,
            MAX_CHUNK + 1,
            2 * MAX_CHUNK,
            2 * MAX_CHUNK + 7,
        ] {
            let payload: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            let w = frame(&payload, 0);
            let chunks = size / MAX_CHUNK + 1;
            assert_eq!(w.len(), size + 4 * chunks, "size {size}");
            // Sequence ids of the chunks are consecutive.
            let mut off = 0;
            for c in 0..chunks {
                let len = u32::from_le_bytes([w[off], w[off + 1], w[off + 2], 0]) as usize;
                assert_eq!(w[off + 3] as usize, c);
                if c + 1 < chunks {
                    assert_eq!(len, MAX_CHUNK);
                } else {
                    assert_eq!(len, size % MAX_CHUNK);
                }
                off += 4 + len;
            }
            let back = read_all(w, usize::MAX).unwrap();
            assert!(back == payload, "round trip of {size} bytes");
        }
    }

    #[test]
    fn too_large_is_an_error_not_an_allocation() {
        let w = frame(&vec![1u8; 1000], 0);
        assert!(matches!(
            read_all(w, 999),
            Err(ProtocolError::PacketTooLarge {
                size: 1000,
                max: 999
            })
        ));
        // A header claiming 16 MiB with no body: rejected before reading.
        let w = vec![0xff, 0xff, 0xff, 0];
        assert!(matches!(
            read_all(w, 1 << 20),
            Err(ProtocolError::PacketTooLarge { .. })
        ));
    }

    #[test]
    fn out_of_order_continuation() {
        let mut w = frame(&vec![0u8; MAX_CHUNK + 1], 0);
        w[4 + MAX_CHUNK + 3] = 9;
        assert!(matches!(
            read_all(w, usize::MAX),
            Err(ProtocolError::OutOfOrder {
                expected: 1,
                got: 9
            })
        ));
    }

    #[test]
    fn truncated_stream_is_closed() {
        assert!(matches!(read_all(vec![], 10), Err(ProtocolError::Closed)));
        assert!(matches!(
            read_all(vec![5, 0], 10),
            Err(ProtocolError::Closed)
        ));
        assert!(matches!(
            read_all(vec![5, 0, 0, 0, 1], 10),
            Err(ProtocolError::Closed)
        ));
    }

    #[test]
    fn sequence_is_shared_between_read_and_write() {
        let mut s = PacketStream::new(Cursor::new(frame(b"\x0e", 0)), Vec::new(), 100);
        s.read_packet().unwrap();
        s.write_packet(b"ok").unwrap();
        assert_eq!(s.writer[3], 1);
    }
}
