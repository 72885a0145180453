//! MySQL's executable comments: `/*! text */` and `/*!NNNNN text */` run `text` when the server
//! version is at least NNNNN (ours: 8.0.35 = 80035); MariaDB's `/*M!NNNNNN text */` is
//! MariaDB-only and is dropped. Dump and import tools send them (`mysqlimport` starts with
//! `/*!40101 set @@character_set_database=binary */`).
//!
//! Invariant: only comments in code are expanded (never inside quotes); an unterminated comment
//! is left as it is (the parser reports it); text without `/*!` or `/*M!` is returned unchanged.

/// The server version executable comments are compared with.
pub const VERSION_ID: u32 = 80035;

/// `sql` with executable comments expanded (or dropped when their version is newer).
pub fn expand(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut start = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' && q != b'`' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if c == b'\'' || c == b'"' || c == b'`' {
            quote = Some(c);
            i += 1;
            continue;
        }
        let mariadb = sql[i..].starts_with("/*M!");
        if sql[i..].starts_with("/*!") || mariadb {
            let Some(end) = sql[i..].find("*/") else {
                break;
            };
            let body_start = i + if mariadb { 4 } else { 3 };
            let body = &sql[body_start..i + end];
            let digits = body.bytes().take_while(|d| d.is_ascii_digit()).count();
            let version: u32 = if digits >= 5 {
                body[..digits].parse().unwrap_or(u32::MAX)
            } else {
                0
            };
            let text = if digits >= 5 { &body[digits..] } else { body };
            out.push_str(&sql[start..i]);
            out.push(' ');
            if !mariadb && version <= VERSION_ID {
                out.push_str(text);
                out.push(' ');
            }
            i += end + 2;
            start = i;
            continue;
        }
        i += 1;
    }
    out.push_str(&sql[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn expands_old_versions_and_drops_new_and_mariadb_ones() {
        assert_eq!(
            expand("/*!40101 set @@character_set_database=binary */").trim(),
            "set @@character_set_database=binary"
        );
        assert_eq!(expand("SELECT 1 /*!99999 + 1 */").trim(), "SELECT 1");
        assert_eq!(expand("SELECT /*! 2 */").trim(), "SELECT   2");
        assert_eq!(expand("SELECT 1 /*M!100100 + 1 */").trim(), "SELECT 1");
        assert_eq!(expand("SELECT '/*!1 x */'"), "SELECT '/*!1 x */'");
        assert_eq!(expand("SELECT 1 /* plain */"), "SELECT 1 /* plain */");
        assert_eq!(expand("SELECT /*!40101 open"), "SELECT /*!40101 open");
    }
}
