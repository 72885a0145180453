//! Command bytes: the first byte of every packet a client sends after the
//! handshake. Unknown bytes are kept (`Command::Unknown`) so the connection
//! can answer ER_UNKNOWN_COM_ERROR and keep going.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Quit,
    InitDb,
    Query,
    FieldList,
    Shutdown,
    Statistics,
    ProcessKill,
    Ping,
    ChangeUser,
    StmtPrepare,
    StmtExecute,
    StmtSendLongData,
    StmtClose,
    StmtReset,
    SetOption,
    StmtFetch,
    ResetConnection,
    /// COM_BINLOG_DUMP: stream the binary log (binlog_dump.rs).
    BinlogDump,
    /// COM_REGISTER_SLAVE: a replica announces itself before dumping.
    RegisterSlave,
    Unknown(u8),
}

impl Command {
    pub fn from_byte(b: u8) -> Command {
        match b {
            0x01 => Command::Quit,
            0x02 => Command::InitDb,
            0x03 => Command::Query,
            0x04 => Command::FieldList,
            0x08 => Command::Shutdown,
            0x09 => Command::Statistics,
            0x0c => Command::ProcessKill,
            0x0e => Command::Ping,
            0x11 => Command::ChangeUser,
            0x12 => Command::BinlogDump,
            0x15 => Command::RegisterSlave,
            0x16 => Command::StmtPrepare,
            0x17 => Command::StmtExecute,
            0x18 => Command::StmtSendLongData,
            0x19 => Command::StmtClose,
            0x1a => Command::StmtReset,
            0x1b => Command::SetOption,
            0x1c => Command::StmtFetch,
            0x1f => Command::ResetConnection,
            other => Command::Unknown(other),
        }
    }
}
