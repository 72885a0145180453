//! SHOW SLAVE STATUS: MariaDB 10.11's columns in its order, filled from the replica's settings and
//! what its thread last saw; no row when no CHANGE MASTER ever ran (as MariaDB).
//!
//! Invariants: `Seconds_Behind_Master` is NULL while the I/O side is not connected, 0 once a
//! heartbeat arrived outside a transaction (nothing left to apply), otherwise the age of the last
//! event applied; `Gtid_Slave_Pos`-style positions come from `mysql.gtid_slave_pos`, never memory.

use betula_sql::types::value::Value;
use betula_sql::types::SqlType;
use betula_sql::{OutCol, Output};

use super::position::{list_text, Gtid};
use super::settings::Settings;
use super::IoState;

/// What the thread last saw.
#[derive(Clone, Debug)]
pub struct Status {
    pub io: IoState,
    pub sql_running: bool,
    pub log_file: String,
    pub read_pos: u64,
    pub exec_pos: u64,
    pub behind: Option<u64>,
    pub applied: u64,
    pub last_io_error: Option<(u16, String)>,
    pub last_sql_error: Option<(u16, String)>,
}

impl Default for Status {
    fn default() -> Self {
        Status {
            io: IoState::No,
            sql_running: false,
            log_file: String::new(),
            read_pos: 4,
            exec_pos: 4,
            behind: None,
            applied: 0,
            last_io_error: None,
            last_sql_error: None,
        }
    }
}

const COLUMNS: [&str; 57] = [
    "Slave_IO_State",
    "Master_Host",
    "Master_User",
    "Master_Port",
    "Connect_Retry",
    "Master_Log_File",
    "Read_Master_Log_Pos",
    "Relay_Log_File",
    "Relay_Log_Pos",
    "Relay_Master_Log_File",
    "Slave_IO_Running",
    "Slave_SQL_Running",
    "Replicate_Rewrite_DB",
    "Replicate_Do_DB",
    "Replicate_Ignore_DB",
    "Replicate_Do_Table",
    "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table",
    "Replicate_Wild_Ignore_Table",
    "Last_Errno",
    "Last_Error",
    "Skip_Counter",
    "Exec_Master_Log_Pos",
    "Relay_Log_Space",
    "Until_Condition",
    "Until_Log_File",
    "Until_Log_Pos",
    "Master_SSL_Allowed",
    "Master_SSL_CA_File",
    "Master_SSL_CA_Path",
    "Master_SSL_Cert",
    "Master_SSL_Cipher",
    "Master_SSL_Key",
    "Seconds_Behind_Master",
    "Master_SSL_Verify_Server_Cert",
    "Last_IO_Errno",
    "Last_IO_Error",
    "Last_SQL_Errno",
    "Last_SQL_Error",
    "Replicate_Ignore_Server_Ids",
    "Master_Server_Id",
    "Master_SSL_Crl",
    "Master_SSL_Crlpath",
    "Using_Gtid",
    "Gtid_IO_Pos",
    "Replicate_Do_Domain_Ids",
    "Replicate_Ignore_Domain_Ids",
    "Parallel_Mode",
    "SQL_Delay",
    "SQL_Remaining_Delay",
    "Slave_SQL_Running_State",
    "Slave_DDL_Groups",
    "Slave_Non_Transactional_Groups",
    "Slave_Transactional_Groups",
    "Retried_transactions",
    "Max_relay_log_size",
    "Executed_log_entries",
];

fn yes_no(on: bool) -> Value {
    Value::Text(if on { "Yes" } else { "No" }.into())
}

fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

/// The statement's result.
pub fn render(settings: Option<&Settings>, st: &Status, pos: &[Gtid]) -> Output {
    let cols: Vec<OutCol> = COLUMNS
        .iter()
        .map(|c| OutCol::named(c, Some(SqlType::VarChar { len: 256 })))
        .collect();
    let Some(s) = settings else {
        return Output::Rows {
            cols,
            rows: Vec::new(),
        };
    };
    let (io_errno, io_error) = st.last_io_error.clone().unwrap_or((0, String::new()));
    let (sql_errno, sql_error) = st.last_sql_error.clone().unwrap_or((0, String::new()));
    let io_state = match st.io {
        IoState::Yes => "Waiting for master to send event",
        IoState::Connecting => "Connecting to master",
        IoState::No => "",
    };
    let behind = match (st.io, st.behind) {
        (IoState::Yes, Some(b)) => Value::UInt(b),
        _ => Value::Null,
    };
    let row = vec![
        text(io_state),
        text(&s.host),
        text(&s.user),
        Value::UInt(s.port as u64),
        Value::UInt(s.connect_retry),
        text(&st.log_file),
        Value::UInt(st.read_pos),
        text(""),
        Value::UInt(0),
        text(&st.log_file),
        match st.io {
            IoState::Yes => text("Yes"),
            IoState::Connecting => text("Connecting"),
            IoState::No => text("No"),
        },
        yes_no(st.sql_running),
        text(""),
        text(""),
        text(""),
        text(""),
        text(""),
        text(""),
        text(""),
        Value::UInt(sql_errno as u64),
        text(&sql_error),
        Value::UInt(0),
        Value::UInt(st.exec_pos),
        Value::UInt(0),
        text("None"),
        text(""),
        Value::UInt(0),
        text("No"),
        text(""),
        text(""),
        text(""),
        text(""),
        text(""),
        behind,
        text("No"),
        Value::UInt(io_errno as u64),
        text(&io_error),
        Value::UInt(sql_errno as u64),
        text(&sql_error),
        text(""),
        Value::UInt(0),
        text(""),
        text(""),
        text(s.use_gtid.name()),
        text(list_text(pos)),
        text(""),
        text(""),
        text("none"),
        Value::UInt(0),
        Value::Null,
        text(if st.sql_running {
            "Slave has read all relay log; waiting for more updates"
        } else {
            ""
        }),
        Value::UInt(0),
        Value::UInt(0),
        Value::UInt(st.applied),
        Value::UInt(0),
        Value::UInt(1_073_741_824),
        Value::UInt(st.applied),
    ];
    Output::Rows {
        cols,
        rows: vec![row],
    }
}
