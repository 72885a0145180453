//! [`RoutineDef`]: a stored function's or procedure's definition as the catalog keeps it (design.md
//! RTN1), its catalog entry (`R\0<db>\0<F|P>\0<lower-case name>`, docs/file-format.md "Routine
//! definitions") and its `SHOW CREATE FUNCTION / PROCEDURE` text.
//!
//! Invariants: decoding what [`RoutineDef::encode`] wrote gives the same definition; the parameter
//! list, the return type and the body are kept byte for byte as the statement wrote them (they are
//! parsed again at each call, by the front end, never here); every name is hex in the header, so
//! no value can break a line.

use super::hex_text::{hex, unhex};
use crate::catalog::create_table::{quote_ident, quote_str};

/// FUNCTION or PROCEDURE: separate name spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoutineKind {
    Function,
    Procedure,
}

impl RoutineKind {
    /// `FUNCTION` / `PROCEDURE`.
    pub fn name(self) -> &'static str {
        match self {
            RoutineKind::Function => "FUNCTION",
            RoutineKind::Procedure => "PROCEDURE",
        }
    }
    /// The letter of the catalog key.
    pub fn letter(self) -> &'static str {
        match self {
            RoutineKind::Function => "F",
            RoutineKind::Procedure => "P",
        }
    }
    pub fn from_letter(s: &str) -> Option<RoutineKind> {
        match s {
            "F" => Some(RoutineKind::Function),
            "P" => Some(RoutineKind::Procedure),
            _ => None,
        }
    }
}

/// CONTAINS SQL, NO SQL, READS SQL DATA, MODIFIES SQL DATA (kept and shown, not enforced).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DataAccess {
    #[default]
    ContainsSql,
    NoSql,
    ReadsSqlData,
    ModifiesSqlData,
}

impl DataAccess {
    /// The words as SQL writes them.
    pub fn sql(self) -> &'static str {
        match self {
            DataAccess::ContainsSql => "CONTAINS SQL",
            DataAccess::NoSql => "NO SQL",
            DataAccess::ReadsSqlData => "READS SQL DATA",
            DataAccess::ModifiesSqlData => "MODIFIES SQL DATA",
        }
    }
    fn stored(self) -> String {
        self.sql().replace(' ', "_")
    }
    fn from_stored(s: &str) -> Option<DataAccess> {
        [
            DataAccess::ContainsSql,
            DataAccess::NoSql,
            DataAccess::ReadsSqlData,
            DataAccess::ModifiesSqlData,
        ]
        .into_iter()
        .find(|a| a.stored() == s)
    }
}

/// The characteristics after the parameter list (and RETURNS).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Characteristics {
    pub deterministic: bool,
    pub access: DataAccess,
    /// SQL SECURITY INVOKER (else DEFINER; both run with the caller's rights here).
    pub invoker: bool,
    pub comment: String,
}

/// One stored routine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoutineDef {
    pub db: String,
    pub kind: RoutineKind,
    /// The name as written (the catalog key holds it in lower case).
    pub name: String,
    pub definer: (String, String),
    /// The parameter list's text between its parentheses, as written.
    pub params: String,
    /// A function's RETURNS type text, as written.
    pub returns: Option<String>,
    pub traits: Characteristics,
    pub sql_mode: String,
    pub client_charset: String,
    pub connection_collation: String,
    pub database_collation: String,
    /// Seconds since 1970 (UTC).
    pub created: i64,
    pub modified: i64,
    /// The body as written.
    pub body: String,
}

impl RoutineDef {
    /// The key parts after `R`: database, kind letter, lower-case name.
    pub fn key_parts(&self) -> [String; 3] {
        [
            self.db.clone(),
            self.kind.letter().to_string(),
            self.name.to_lowercase(),
        ]
    }

    /// The entry's value (docs/file-format.md "Routine definitions").
    pub fn encode(&self) -> Vec<u8> {
        let mut s = format!(
            "version=1\nname={}\ndefiner={}@{}\nparams={}\n",
            hex(&self.name),
            hex(&self.definer.0),
            hex(&self.definer.1),
            hex(&self.params)
        );
        if let Some(r) = &self.returns {
            s.push_str(&format!("returns={}\n", hex(r)));
        }
        s.push_str(&format!(
            "deterministic={}\naccess={}\nsecurity={}\ncomment={}\nsql_mode={}\nclient={}\n\
             connection={}\ndatabase_collation={}\ncreated={}\nmodified={}\nbody\n{}",
            self.traits.deterministic as u8,
            self.traits.access.stored(),
            if self.traits.invoker {
                "INVOKER"
            } else {
                "DEFINER"
            },
            hex(&self.traits.comment),
            self.sql_mode,
            self.client_charset,
            self.connection_collation,
            self.database_collation,
            self.created,
            self.modified,
            self.body
        ));
        s.into_bytes()
    }

    /// The routine of database `db` and kind `kind` from its entry's value; `None` when the value
    /// is damaged (no `body` line, a name that is not hex).
    pub fn decode(db: &str, kind: RoutineKind, bytes: &[u8]) -> Option<RoutineDef> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut def = RoutineDef {
            db: db.into(),
            kind,
            name: String::new(),
            definer: ("root".into(), "localhost".into()),
            params: String::new(),
            returns: None,
            traits: Characteristics::default(),
            sql_mode: String::new(),
            client_charset: "utf8mb4".into(),
            connection_collation: "utf8mb4_general_ci".into(),
            database_collation: "utf8mb4_general_ci".into(),
            created: 0,
            modified: 0,
            body: String::new(),
        };
        let mut rest = text;
        loop {
            let (line, after) = rest.split_once('\n')?;
            rest = after;
            if line == "body" {
                def.body = rest.to_string();
                return (!def.name.is_empty()).then_some(def);
            }
            def.read_header_line(line)?;
        }
    }

    fn read_header_line(&mut self, line: &str) -> Option<()> {
        let Some((k, v)) = line.split_once('=') else {
            return Some(());
        };
        match k {
            "name" => self.name = unhex(v)?,
            "definer" => {
                let (u, h) = v.split_once('@')?;
                self.definer = (unhex(u)?, unhex(h)?);
            }
            "params" => self.params = unhex(v)?,
            "returns" => self.returns = Some(unhex(v)?),
            "deterministic" => self.traits.deterministic = v == "1",
            "access" => self.traits.access = DataAccess::from_stored(v)?,
            "security" => self.traits.invoker = v == "INVOKER",
            "comment" => self.traits.comment = unhex(v)?,
            "sql_mode" => self.sql_mode = v.into(),
            "client" => self.client_charset = v.into(),
            "connection" => self.connection_collation = v.into(),
            "database_collation" => self.database_collation = v.into(),
            "created" => self.created = v.parse().ok()?,
            "modified" => self.modified = v.parse().ok()?,
            _ => {}
        }
        Some(())
    }

    /// `SHOW CREATE FUNCTION / PROCEDURE`'s text, in MariaDB's shape: `CREATE DEFINER=`u`@`h`
    /// FUNCTION `f`(params) RETURNS type`, each characteristic but the defaults on a line of its
    /// own indented by four spaces, then the body on the next line. `returns` is the RETURNS type
    /// as MariaDB prints it (the caller renders it from the parsed type).
    pub fn create_text(&self, returns: Option<&str>) -> String {
        let mut s = format!(
            "CREATE DEFINER={}@{} {} {}({})",
            quote_ident(&self.definer.0),
            quote_ident(&self.definer.1),
            self.kind.name(),
            quote_ident(&self.name),
            self.params
        );
        if let Some(r) = returns {
            s.push_str(" RETURNS ");
            s.push_str(r);
        }
        s.push('\n');
        if self.traits.deterministic {
            s.push_str("    DETERMINISTIC\n");
        }
        if self.traits.access != DataAccess::ContainsSql {
            s.push_str(&format!("    {}\n", self.traits.access.sql()));
        }
        if self.traits.invoker {
            s.push_str("    SQL SECURITY INVOKER\n");
        }
        if !self.traits.comment.is_empty() {
            s.push_str(&format!(
                "    COMMENT {}\n",
                quote_str(&self.traits.comment)
            ));
        }
        s.push_str(&self.body);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RoutineDef {
        RoutineDef {
            db: "test".into(),
            kind: RoutineKind::Function,
            name: "Add=One".into(),
            definer: ("root".into(), "localhost".into()),
            params: "x INT, y varchar(10)".into(),
            returns: Some("int".into()),
            traits: Characteristics {
                deterministic: true,
                access: DataAccess::ReadsSqlData,
                invoker: true,
                comment: "it's\nhere".into(),
            },
            sql_mode: "STRICT_TRANS_TABLES".into(),
            client_charset: "utf8mb4".into(),
            connection_collation: "utf8mb4_general_ci".into(),
            database_collation: "utf8mb4_general_ci".into(),
            created: 1_700_000_000,
            modified: 1_700_000_001,
            body: "BEGIN\n  RETURN x + 1;\nEND".into(),
        }
    }

    #[test]
    fn entries_round_trip() {
        let d = sample();
        let back = RoutineDef::decode("test", RoutineKind::Function, &d.encode()).unwrap();
        assert_eq!(back, d);
        let mut p = sample();
        p.kind = RoutineKind::Procedure;
        p.returns = None;
        let back = RoutineDef::decode("test", RoutineKind::Procedure, &p.encode()).unwrap();
        assert_eq!(back, p);
        assert_eq!(d.key_parts(), ["test", "F", "add=one"]);
    }

    #[test]
    fn damage_is_refused_and_unknown_lines_skipped() {
        assert!(RoutineDef::decode("t", RoutineKind::Function, b"name=zz\nbody\nx").is_none());
        assert!(RoutineDef::decode("t", RoutineKind::Function, b"name=66\n").is_none());
        let d = RoutineDef::decode(
            "t",
            RoutineKind::Function,
            b"later=1\nname=66\nbody\nRETURN 1",
        )
        .unwrap();
        assert_eq!((d.name.as_str(), d.body.as_str()), ("f", "RETURN 1"));
    }

    #[test]
    fn create_text_has_mariadbs_shape() {
        let d = sample();
        assert_eq!(
            d.create_text(Some("int(11)")),
            "CREATE DEFINER=`root`@`localhost` FUNCTION `Add=One`(x INT, y varchar(10)) RETURNS int(11)\n    DETERMINISTIC\n    READS SQL DATA\n    SQL SECURITY INVOKER\n    COMMENT 'it''s\\nhere'\nBEGIN\n  RETURN x + 1;\nEND"
        );
    }
}
