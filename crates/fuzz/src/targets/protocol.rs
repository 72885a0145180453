//! The wire protocol's parsers: a stream of packets as a client sends them, the client's handshake
//! response, and the parameters of COM_STMT_EXECUTE (decoded twice, as a re-execution without types
//! would be).

use std::io::Cursor;

use betula_server::protocol::handshake::decode_client_hello;
use betula_server::protocol::packet::PacketStream;
use betula_server::protocol::statement::PreparedStatement;

/// Packets read from one input before giving up (each read consumes at least a header).
const MAX_PACKETS: usize = 10_000;

pub fn packet(data: &[u8]) -> Result<(), String> {
    let mut s = PacketStream::new(Cursor::new(data), std::io::sink(), 1 << 20);
    for _ in 0..MAX_PACKETS {
        if s.read_packet().is_err() {
            break;
        }
    }
    Ok(())
}

pub fn handshake(data: &[u8]) -> Result<(), String> {
    let _ = decode_client_hello(data);
    Ok(())
}

/// The first byte is the statement's parameter count (below 64); the rest the execute packet's body
/// after the statement id.
pub fn execute(data: &[u8]) -> Result<(), String> {
    let Some((&count, body)) = data.split_first() else {
        return Ok(());
    };
    let mut stmt = PreparedStatement::new(1, u16::from(count % 64), Vec::new());
    if stmt.decode_params(body).is_ok() {
        let _ = stmt.decode_params(body);
    }
    Ok(())
}
