//! What became of one workload on one server: measured figures, or why not — "not supported yet" when the
//! server rejects a statement the workload needs as unknown syntax or an unsupported feature, "failed"
//! for any other error. Never a silent skip.

/// The state of a report cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Ok,
    NotSupported(String),
    Failed(String),
}

impl Status {
    pub fn label(&self) -> String {
        match self {
            Status::Ok => "ok".into(),
            Status::NotSupported(why) => format!("not supported yet: {why}"),
            Status::Failed(why) => format!("failed: {why}"),
        }
    }
}

/// MySQL error codes that mean "this server does not have that yet": ER_PARSE_ERROR (1064),
/// ER_NOT_SUPPORTED_YET (1235), ER_UNKNOWN_STORAGE_ENGINE (1286), ER_FEATURE_DISABLED (1289),
/// ER_SP_DOES_NOT_EXIST for a function (1305), ER_NOT_ALLOWED_COMMAND (1148: e.g. LOAD DATA LOCAL).
const UNSUPPORTED_CODES: [u16; 6] = [1064, 1148, 1235, 1286, 1289, 1305];

/// Whether MySQL error `code` means "this server does not have that yet".
pub fn is_unsupported_code(code: u16) -> bool {
    UNSUPPORTED_CODES.contains(&code)
}

/// The first `max` characters of a statement, for messages.
pub fn excerpt(sql: &str, max: usize) -> String {
    let one_line: String = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!("{}…", one_line.chars().take(max).collect::<String>())
    }
}

/// Classifies an error `err` returned for statement `sql`.
pub fn classify(err: &mysql::Error, sql: &str) -> Status {
    let what = excerpt(sql, 120);
    match err {
        mysql::Error::MySqlError(e) if UNSUPPORTED_CODES.contains(&e.code) => Status::NotSupported(
            format!("`{what}` → ERROR {} ({}): {}", e.code, e.state, e.message),
        ),
        mysql::Error::MySqlError(e) => Status::Failed(format!(
            "`{what}` → ERROR {} ({}): {}",
            e.code, e.state, e.message
        )),
        other => Status::Failed(format!("`{what}` → {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server_error(code: u16) -> mysql::Error {
        mysql::Error::MySqlError(mysql::MySqlError {
            state: "42000".into(),
            message: "nope".into(),
            code,
        })
    }

    #[test]
    fn unsupported_vs_failed() {
        let s = classify(
            &server_error(1235),
            "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a=1",
        );
        assert!(
            matches!(&s, Status::NotSupported(m) if m.contains("ERROR 1235") && m.contains("ON DUPLICATE"))
        );
        assert!(matches!(
            classify(&server_error(1064), "X"),
            Status::NotSupported(_)
        ));
        let f = classify(&server_error(1213), "UPDATE t SET a=1");
        assert!(matches!(&f, Status::Failed(m) if m.contains("ERROR 1213")));
        assert!(f.label().starts_with("failed: "));
    }

    #[test]
    fn excerpt_shortens_and_flattens() {
        assert_eq!(excerpt("SELECT  1\n FROM t", 50), "SELECT 1 FROM t");
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
}
