//! [`ViewDef`]: a view's definition as the catalog keeps it (design.md VIEW1), its catalog entry
//! (`V\0<db>\0<view>`, docs/file-format.md "View definitions") and its `SHOW CREATE VIEW` text.
//!
//! Invariants: decoding what [`ViewDef::encode`] wrote gives the same definition; the SELECT text
//! is kept byte for byte as CREATE VIEW made it (MariaDB's printed form, plan/view_text.rs, or
//! the text as written; it is parsed again at each reference, by the front end, never here);
//! every name in the header is hex, so no value can break a line.

use super::hex_text::{hex, unhex};
use crate::catalog::create_table::quote_ident;

/// ALGORITHM = ... (kept and shown; every view is planned as a derived table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewAlgorithm {
    #[default]
    Undefined,
    Merge,
    TempTable,
}

/// SQL SECURITY ...
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewSecurity {
    #[default]
    Definer,
    Invoker,
}

/// WITH [CASCADED | LOCAL] CHECK OPTION (`None`: no check option).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CheckOption {
    #[default]
    None,
    Cascaded,
    Local,
}

/// One view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewDef {
    pub db: String,
    pub name: String,
    /// The column list after the view's name (empty: the SELECT's own names).
    pub columns: Vec<String>,
    /// The SELECT as MariaDB prints it (or as written: docs/file-format.md "View definitions").
    pub select: String,
    pub algorithm: ViewAlgorithm,
    /// DEFINER's user and host.
    pub definer: (String, String),
    pub security: ViewSecurity,
    pub check: CheckOption,
    /// `character_set_client` when the view was made.
    pub client_charset: String,
    /// `collation_connection` when the view was made.
    pub connection_collation: String,
}

impl ViewAlgorithm {
    pub fn name(self) -> &'static str {
        match self {
            ViewAlgorithm::Undefined => "UNDEFINED",
            ViewAlgorithm::Merge => "MERGE",
            ViewAlgorithm::TempTable => "TEMPTABLE",
        }
    }
    pub fn from_name(s: &str) -> Option<ViewAlgorithm> {
        [Self::Undefined, Self::Merge, Self::TempTable]
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s))
    }
}

impl ViewSecurity {
    pub fn name(self) -> &'static str {
        match self {
            ViewSecurity::Definer => "DEFINER",
            ViewSecurity::Invoker => "INVOKER",
        }
    }
    pub fn from_name(s: &str) -> Option<ViewSecurity> {
        [Self::Definer, Self::Invoker]
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s))
    }
}

impl CheckOption {
    pub fn name(self) -> &'static str {
        match self {
            CheckOption::None => "NONE",
            CheckOption::Cascaded => "CASCADED",
            CheckOption::Local => "LOCAL",
        }
    }
    pub fn from_name(s: &str) -> Option<CheckOption> {
        [Self::None, Self::Cascaded, Self::Local]
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s))
    }
}

impl ViewDef {
    /// The entry's value (docs/file-format.md "View definitions").
    pub fn encode(&self) -> Vec<u8> {
        let columns: Vec<String> = self.columns.iter().map(|c| hex(c)).collect();
        format!(
            "version=2\nalgorithm={}\ndefiner={}@{}\nsecurity={}\ncheck={}\nclient={}\n\
             connection={}\ncolumns={}\nas\n{}",
            self.algorithm.name(),
            hex(&self.definer.0),
            hex(&self.definer.1),
            self.security.name(),
            self.check.name(),
            self.client_charset,
            self.connection_collation,
            columns.join(","),
            self.select
        )
        .into_bytes()
    }

    /// The view `db`.`name` from its entry's value; `None` when the value is damaged (no `as`
    /// line, a name that is not hex).
    pub fn decode(db: &str, name: &str, bytes: &[u8]) -> Option<ViewDef> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut def = ViewDef {
            db: db.into(),
            name: name.into(),
            columns: vec![],
            select: String::new(),
            algorithm: ViewAlgorithm::Undefined,
            definer: ("root".into(), "localhost".into()),
            security: ViewSecurity::Definer,
            check: CheckOption::None,
            client_charset: "utf8mb4".into(),
            connection_collation: "utf8mb4_general_ci".into(),
        };
        let mut rest = text;
        loop {
            let (line, after) = rest.split_once('\n')?;
            rest = after;
            if line == "as" {
                def.select = rest.to_string();
                return Some(def);
            }
            def.read_header_line(line)?;
        }
    }

    fn read_header_line(&mut self, line: &str) -> Option<()> {
        let Some((k, v)) = line.split_once('=') else {
            return Some(());
        };
        match k {
            "algorithm" => self.algorithm = ViewAlgorithm::from_name(v)?,
            "security" => self.security = ViewSecurity::from_name(v)?,
            "check" => self.check = CheckOption::from_name(v)?,
            "client" => self.client_charset = v.into(),
            "connection" => self.connection_collation = v.into(),
            "definer" => {
                let (u, h) = v.split_once('@')?;
                self.definer = (unhex(u)?, unhex(h)?);
            }
            "columns" if v.is_empty() => self.columns.clear(),
            "columns" => self.columns = v.split(',').map(unhex).collect::<Option<_>>()?,
            _ => {}
        }
        Some(())
    }

    /// `SHOW CREATE VIEW`'s text, in MariaDB's shape:
    /// `CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS ...`.
    /// `body` is the SELECT to show; `qualified` names the view with its database.
    pub fn create_text(&self, body: &str, qualified: bool) -> String {
        let name = match qualified {
            true => format!("{}.{}", quote_ident(&self.db), quote_ident(&self.name)),
            false => quote_ident(&self.name),
        };
        let mut s = format!(
            "CREATE ALGORITHM={} DEFINER={}@{} SQL SECURITY {} VIEW {name}",
            self.algorithm.name(),
            quote_ident(&self.definer.0),
            quote_ident(&self.definer.1),
            self.security.name(),
        );
        if !self.columns.is_empty() {
            let cols: Vec<String> = self.columns.iter().map(|c| quote_ident(c)).collect();
            s.push_str(&format!(" ({})", cols.join(",")));
        }
        s.push_str(" AS ");
        s.push_str(body);
        match self.check {
            CheckOption::None => {}
            CheckOption::Cascaded => s.push_str(" WITH CASCADED CHECK OPTION"),
            CheckOption::Local => s.push_str(" WITH LOCAL CHECK OPTION"),
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ViewDef {
        ViewDef {
            db: "d".into(),
            name: "v".into(),
            columns: vec!["a,b".into(), "c\nd".into()],
            select: "select a,\n b from t where x = 'as\n'".into(),
            algorithm: ViewAlgorithm::TempTable,
            definer: ("u@x".into(), "%".into()),
            security: ViewSecurity::Invoker,
            check: CheckOption::Local,
            client_charset: "latin1".into(),
            connection_collation: "latin1_swedish_ci".into(),
        }
    }

    #[test]
    fn entries_round_trip() {
        let v = sample();
        assert_eq!(ViewDef::decode("d", "v", &v.encode()), Some(v));
        let mut plain = sample();
        plain.columns.clear();
        assert_eq!(ViewDef::decode("d", "v", &plain.encode()), Some(plain));
    }

    #[test]
    fn unknown_lines_are_skipped_and_damage_is_refused() {
        let v = ViewDef::decode("d", "v", b"future=1\nsecurity=INVOKER\nas\nselect 1").unwrap();
        assert_eq!(v.security, ViewSecurity::Invoker);
        assert_eq!(v.select, "select 1");
        assert_eq!(v.algorithm, ViewAlgorithm::Undefined);
        assert_eq!(ViewDef::decode("d", "v", b"algorithm=UNDEFINED\n"), None);
        assert_eq!(ViewDef::decode("d", "v", b"columns=zz\nas\nselect 1"), None);
    }

    #[test]
    fn create_text_has_mariadbs_shape() {
        let mut v = sample();
        v.columns = vec!["x".into()];
        v.select = "select 1".into();
        v.definer = ("root".into(), "localhost".into());
        assert_eq!(
            v.create_text(&v.select, false),
            "CREATE ALGORITHM=TEMPTABLE DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW `v` \
             (`x`) AS select 1 WITH LOCAL CHECK OPTION"
        );
    }
}
