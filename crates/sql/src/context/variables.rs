//! System variables: the built-in list with MySQL-compatible defaults, and their types.
//!
//! Owns [`defaults`] (name → default value; names are lower case) and [`normalize`] (the value
//! a SET stores: booleans become 0/1 for ON/OFF variables, strings stay strings). Context values
//! start as copies of the global values. Unknown names are accepted by SET with a warning
//! (MySQL refuses them with 1193; some tools send variables of other servers) and refused by
//! SELECT @@name with 1193, as MySQL does.

use std::collections::HashMap;

use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

/// The version string reported by `VERSION()` and `@@version`.
pub fn version() -> String {
    format!("8.0.35-betula-{}", env!("CARGO_PKG_VERSION"))
}

/// Variables whose value is ON/OFF (stored as 0/1).
pub const BOOLEAN: &[&str] = &[
    "autocommit",
    "betula_commit_sync",
    "tokudb_commit_sync",
    "foreign_key_checks",
    "unique_checks",
    "sql_safe_updates",
    "transaction_read_only",
    "tx_read_only",
    "sql_log_bin",
    "log_bin",
    "gtid_strict_mode",
    "big_tables",
    "sql_quote_show_create",
    "local_infile",
    "sql_notes",
    "sql_warnings",
    "sql_log_off",
];

pub fn defaults(port: u16, datadir: &str) -> HashMap<String, Value> {
    let t = |s: &str| Value::Text(s.to_string());
    let i = Value::Int;
    let mut m = HashMap::new();
    let list: Vec<(&str, Value)> = vec![
        ("autocommit", i(1)),
        // ON: a commit returns once its log record is fsynced; OFF: it returns at once and the log is
        // synced by the next synchronous commit, the periodic sync or a checkpoint (per session).
        ("betula_commit_sync", i(1)),
        // LOAD DATA: sort memory per statement (bytes) before runs spill to compressed temp files.
        ("betula_load_memory", i(256 << 20)),
        // Seconds between two rounds of the retention thread (ddl/retention.rs; 0: no rounds).
        ("betula_retention_interval", i(60)),
        // Row counts and index cardinality (infoschema/estimates.rs): basements each tree's sample
        // reads, and the estimated rows up to which a tree is counted exactly instead.
        ("betula_stats_sample_basements", i(64)),
        ("betula_stats_exact_rows", i(20_000)),
        // LOAD DATA LOCAL allowed (the client must opt in too).
        ("local_infile", i(1)),
        // Shown only; the directory is set at server start (`--secure-file-priv`), never by SET.
        ("secure_file_priv", Value::Null),
        ("tokudb_commit_sync", i(1)),
        ("auto_increment_increment", i(1)),
        ("auto_increment_offset", i(1)),
        ("character_set_client", t("utf8mb4")),
        ("character_set_connection", t("utf8mb4")),
        ("character_set_database", t("utf8mb4")),
        ("character_set_results", t("utf8mb4")),
        ("character_set_server", t("utf8mb4")),
        ("character_set_system", t("utf8mb3")),
        ("collation_connection", t("utf8mb4_general_ci")),
        ("collation_database", t("utf8mb4_general_ci")),
        ("collation_server", t("utf8mb4_general_ci")),
        ("datadir", t(datadir)),
        ("default_storage_engine", t("Betula")),
        ("default_tmp_storage_engine", t("Betula")),
        ("storage_engine", t("Betula")),
        ("div_precision_increment", i(4)),
        ("explicit_defaults_for_timestamp", i(1)),
        ("foreign_key_checks", i(1)),
        (
            "group_concat_max_len",
            i(crate::expr::GROUP_CONCAT_MAX_LEN_DEFAULT as i64),
        ),
        ("have_ssl", t("DISABLED")),
        ("have_openssl", t("DISABLED")),
        // DATA DIRECTORY / INDEX DIRECTORY are not supported (mysql-compat.md).
        ("have_symlink", t("NO")),
        ("hostname", t("localhost")),
        ("init_connect", t("")),
        ("innodb_lock_wait_timeout", i(50)),
        ("lock_wait_timeout", i(31_536_000)),
        ("interactive_timeout", i(28800)),
        ("wait_timeout", i(28800)),
        ("net_read_timeout", i(30)),
        ("net_write_timeout", i(60)),
        ("net_buffer_length", i(16384)),
        ("license", t("Apache-2.0")),
        ("lower_case_table_names", i(0)),
        ("max_allowed_packet", i(67_108_864)),
        ("max_connections", i(151)),
        // MariaDB's default (MySQL 8.0: 1024): SHOW WARNINGS lists at most this many
        ("max_error_count", i(64)),
        ("max_execution_time", i(0)),
        // MariaDB 10.11's default: a recursive CTE stops after this many iterations (warning 1931)
        ("max_recursive_iterations", i(1000)),
        // MariaDB's default: a procedure may not CALL itself (design.md RTN5)
        ("max_sp_recursion_depth", i(0)),
        ("performance_schema", i(0)),
        ("port", i(port as i64)),
        ("protocol_version", i(10)),
        (
            "optimizer_switch",
            t(crate::context::optimizer_switch::DEFAULT),
        ),
        // MariaDB's join and optimizer tuning knobs (10.11 defaults): accepted and shown; they
        // change no result, and Betula's planner does not read them
        ("join_cache_level", i(2)),
        ("join_buffer_size", i(262_144)),
        ("join_buffer_space_limit", i(2_097_152)),
        ("optimizer_search_depth", i(62)),
        ("rowid_merge_buff_size", i(8_388_608)),
        ("optimizer_use_condition_selectivity", i(4)),
        ("query_cache_size", i(0)),
        ("query_cache_type", t("OFF")),
        ("read_only", i(0)),
        ("socket", t("")),
        ("sql_auto_is_null", i(0)),
        // OFF: notes (level Note) are not recorded for SHOW WARNINGS (mariadb-dump sets it).
        ("sql_notes", i(1)),
        // Shown and settable only: Betula has no general query log to keep a session out of.
        ("sql_log_off", i(0)),
        ("sql_warnings", i(0)),
        ("sql_mode", t(crate::types::sql_mode::DEFAULT)),
        ("sql_require_primary_key", i(0)),
        ("sql_safe_updates", i(0)),
        ("sql_select_limit", Value::UInt(u64::MAX)),
        ("system_time_zone", t("UTC")),
        ("time_zone", t("SYSTEM")),
        ("transaction_isolation", t("REPEATABLE-READ")),
        ("tx_isolation", t("REPEATABLE-READ")),
        ("transaction_read_only", i(0)),
        ("tx_read_only", i(0)),
        ("unique_checks", i(1)),
        ("version", t(&version())),
        (
            "version_comment",
            t("Betula (Apache-2.0), a write-optimized MySQL-compatible database"),
        ),
        ("version_compile_machine", t(std::env::consts::ARCH)),
        ("version_compile_os", t(std::env::consts::OS)),
        ("default_authentication_plugin", t("mysql_native_password")),
        ("session_track_gtids", t("OFF")),
        ("session_track_schema", i(1)),
        ("session_track_state_change", i(0)),
        ("session_track_system_variables", t("")),
        ("session_track_transaction_info", t("OFF")),
        // TLS (set at server start from --ssl-cert / --ssl-key / --ssl-ca; shown only).
        ("ssl_ca", t("")),
        ("ssl_capath", t("")),
        ("ssl_cert", t("")),
        ("ssl_cipher", t("")),
        ("ssl_crl", t("")),
        ("ssl_crlpath", t("")),
        ("ssl_key", t("")),
        ("tls_version", t("TLSv1.2,TLSv1.3")),
        ("version_ssl_library", t("rustls 0.23 (ring)")),
        // The group table's memory budget is min(tmp_table_size, max_heap_table_size)
        // (exec/group_table.rs, design.md GSP1); tmp_memory_table_size is tmp_table_size's other
        // name in MariaDB 10.11 ([`ALIASES`]). MariaDB's defaults and bounds ([`BOUNDED`]).
        ("tmp_table_size", Value::UInt(16_777_216)),
        ("tmp_memory_table_size", Value::UInt(16_777_216)),
        // Bytes a sort holds in memory before it spills sorted runs to disk (exec/external_sort.rs,
        // design.md XSR1); MariaDB 10.11's default and bounds ([`BOUNDED`]).
        ("sort_buffer_size", Value::UInt(2_097_152)),
        ("max_heap_table_size", Value::UInt(16_777_216)),
        ("long_query_time", Value::Double(10.0)),
        ("binlog_format", t("ROW")),
        ("binlog_row_image", t("FULL")),
        ("sql_log_bin", i(1)),
        ("binlog_checksum", t("CRC32")),
        ("log_bin", i(0)),
        ("log_bin_basename", t("")),
        ("log_bin_index", t("")),
        ("server_id", i(1)),
        ("gtid_domain_id", i(0)),
        ("gtid_slave_pos", t("")),
        ("gtid_strict_mode", i(0)),
        ("max_binlog_size", i(1_073_741_824)),
        ("binlog_expire_logs_seconds", i(0)),
        ("expire_logs_days", Value::Double(0.0)),
        ("gtid_mode", t("OFF")),
        ("enforce_gtid_consistency", t("OFF")),
        ("innodb_buffer_pool_size", i(536_870_912)),
        ("betula_cache_size", i(536_870_912)),
        // Key format of tables CREATE TABLE makes (catalog.rs `KEY_FORMAT`); 1 = the layout of
        // versions before key formats, for compatibility tests.
        ("betula_key_format", i(2)),
        ("betula_durability", t("sync")),
        ("betula_compression", t("zstd")),
    ];
    for (k, v) in list {
        m.insert(k.to_string(), v);
    }
    m
}

/// Integer variables MariaDB keeps within bounds: `(name, least, greatest, block)`; a value is
/// rounded down to a multiple of `block`.
pub const BOUNDED: &[(&str, u64, u64, u64)] = &[
    ("sort_buffer_size", 1024, u64::MAX, 1),
    ("tmp_table_size", 0, u64::MAX, 16384),
    ("tmp_memory_table_size", 0, u64::MAX, 16384),
    ("max_heap_table_size", 16384, u64::MAX, 1024),
];

/// Variables that are one variable under two names (a SET of either sets both).
pub const ALIASES: &[(&str, &str)] = &[("tmp_table_size", "tmp_memory_table_size")];

/// The names a SET of `name` sets: `name`, and its alias if it has one.
pub fn names_of(name: &str) -> Vec<&str> {
    let alias = ALIASES.iter().find_map(|(a, b)| {
        if *a == name {
            Some(*b)
        } else if *b == name {
            Some(*a)
        } else {
            None
        }
    });
    std::iter::once(name).chain(alias).collect()
}

/// The warning of a value moved into its variable's bounds.
pub type Adjusted = (ErrorCode, String);

/// A SET value of a variable of [`BOUNDED`] (`None` for other variables): an integer, moved into
/// the bounds with warning 1292 `Truncated incorrect <name> value: '<v>'` as MariaDB does; any
/// other value (a string, a decimal, NULL) is error 1232.
pub fn bounded(name: &str, v: &Value) -> Option<DbResult<(Value, Option<Adjusted>)>> {
    let (_, least, greatest, block) = BOUNDED.iter().find(|(n, _, _, _)| *n == name)?;
    let n: i128 = match v {
        Value::Int(i) => i128::from(*i),
        Value::UInt(u) => i128::from(*u),
        _ => {
            return Some(Err(DbError::new(
                ErrorCode::WrongTypeForVar,
                format!("Incorrect argument type to variable '{name}'"),
            )))
        }
    };
    let kept = n.clamp(i128::from(*least), i128::from(*greatest));
    let kept = kept - kept % i128::from(*block);
    let warning = (kept != n).then(|| {
        (
            ErrorCode::TruncatedWrongValue,
            format!("Truncated incorrect {name} value: '{n}'"),
        )
    });
    Some(Ok((Value::UInt(kept as u64), warning)))
}

/// Converts a SET value to what the variable stores.
pub fn normalize(name: &str, v: Value) -> Value {
    if BOOLEAN.contains(&name) {
        let on = match &v {
            Value::Text(s) => {
                matches!(s.to_ascii_uppercase().as_str(), "ON" | "1" | "TRUE" | "YES")
            }
            Value::Bytes(b) => b == b"1" || b.eq_ignore_ascii_case(b"on"),
            other => other.to_f64_lenient().unwrap_or(0.0) != 0.0,
        };
        return Value::Int(on as i64);
    }
    if name == "group_concat_max_len" {
        // MariaDB's least value.
        if let Some(n) = v.to_f64_lenient() {
            return Value::Int((n as i64).max(4));
        }
    }
    if name == "transaction_isolation" || name == "tx_isolation" {
        if let Value::Text(s) = &v {
            return Value::Text(s.to_ascii_uppercase().replace(' ', "-"));
        }
    }
    v
}

/// The text SHOW VARIABLES prints.
pub fn show_text(name: &str, v: &Value) -> String {
    if BOOLEAN.contains(&name) {
        return if v.to_f64_lenient().unwrap_or(0.0) != 0.0 {
            "ON".into()
        } else {
            "OFF".into()
        };
    }
    crate::expr::eval::text_of(v).unwrap_or_default()
}
