//! [`DatabaseDef`]: a database's default collation (CREATE/ALTER DATABASE ... CHARACTER SET,
//! COLLATE) and comment, and its catalog entry.
//!
//! Entry value (`D\0<db>`): lines `collation=<name>` and `comment=<text with \n and \\ escaped>`,
//! in any order; unknown lines are skipped. An empty value (written before databases had a
//! character set) is utf8mb4_general_ci without comment, what such databases always were.
//!
//! Invariant: decoding what [`DatabaseDef::encode`] wrote gives the same definition.

use crate::types::collation::Collation;

/// A database's defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatabaseDef {
    /// New tables take it when they name no character set or collation.
    pub collation: Collation,
    pub comment: Option<String>,
}

impl DatabaseDef {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = format!("collation={}\n", self.collation.name());
        if let Some(c) = &self.comment {
            let escaped = c.replace('\\', "\\\\").replace('\n', "\\n");
            out.push_str(&format!("comment={escaped}\n"));
        }
        out.into_bytes()
    }

    pub fn decode(bytes: &[u8]) -> DatabaseDef {
        let mut def = DatabaseDef::default();
        for line in String::from_utf8_lossy(bytes).lines() {
            match line.split_once('=') {
                Some(("collation", name)) => {
                    if let Some(c) = Collation::from_name(name) {
                        def.collation = c;
                    }
                }
                Some(("comment", text)) => def.comment = Some(unescape(text)),
                _ => {}
            }
        }
        def
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(ch) = chars.next() {
        match (ch, ch == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_old_ones_read_as_utf8mb4() {
        let def = DatabaseDef {
            collation: Collation::from_name("latin1_bin").unwrap(),
            comment: Some("two\nlines \\ and = signs".into()),
        };
        assert_eq!(DatabaseDef::decode(&def.encode()), def);
        let old = DatabaseDef::decode(b"");
        assert_eq!(old.collation.name(), "utf8mb4_general_ci");
        assert_eq!(old.comment, None);
        let newer = DatabaseDef::decode(b"future=1\ncollation=ascii_bin\n");
        assert_eq!(newer.collation.name(), "ascii_bin");
    }
}
