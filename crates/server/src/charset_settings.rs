//! The server's default character set in `betula serve`'s config file and flags, under MariaDB's
//! my.cnf names: `character_set_server` (`character-set-server`) and `collation_server`
//! (`collation-server`). They become the global `character_set_server` / `collation_server`
//! (and the `_database` pair shown while no database is selected) from the server's start, so a
//! database created without a character set, and a table in it, get them.
//!
//! Invariants: a character set alone means its default collation, a collation alone its
//! character set; a pair that does not belong together, or an unknown name, is refused at start
//! with the setting's name (as MariaDB refuses to start), never replaced by another.

use betula_sql::types::charset::Charset;
use betula_sql::types::collation::Collation;

#[derive(Debug, Clone, Default)]
pub struct CharsetSettings {
    charset: Option<Charset>,
    collation: Option<Collation>,
}

impl CharsetSettings {
    /// Applies `key = value` if it is one of these settings (Ok(false): not one).
    pub fn set(&mut self, key: &str, v: &str) -> Result<bool, String> {
        match key {
            "character_set_server" => {
                self.charset = Some(
                    Charset::from_name(v)
                        .ok_or_else(|| format!("unknown character_set_server '{v}'"))?,
                )
            }
            "collation_server" => {
                self.collation = Some(
                    Collation::from_name(v)
                        .ok_or_else(|| format!("unknown collation_server '{v}'"))?,
                )
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The server's default collation, None when neither setting is given (utf8mb4_general_ci).
    pub fn server_collation(&self) -> Result<Option<Collation>, String> {
        match (self.charset, self.collation) {
            (None, None) => Ok(None),
            (Some(cs), None) => Ok(Some(cs.default_collation())),
            (None, Some(c)) => Ok(Some(c)),
            (Some(cs), Some(c)) if c.charset() == cs => Ok(Some(c)),
            (Some(cs), Some(c)) => Err(format!(
                "collation_server '{}' is not valid for character_set_server '{}'",
                c.name(),
                cs.name()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_the_pair_as_mariadb() {
        let mut s = CharsetSettings::default();
        assert_eq!(s.server_collation(), Ok(None));
        assert_eq!(s.set("port", "1"), Ok(false));
        s.set("character_set_server", "latin1").unwrap();
        assert_eq!(s.server_collation(), Ok(Some(Collation::Latin1SwedishCi)));
        s.set("collation_server", "latin1_bin").unwrap();
        assert_eq!(s.server_collation(), Ok(Some(Collation::Latin1Bin)));
        s.set("collation_server", "utf8mb4_bin").unwrap();
        let e = s.server_collation().unwrap_err();
        assert!(
            e.contains("not valid for character_set_server 'latin1'"),
            "{e}"
        );
        let mut only = CharsetSettings::default();
        only.set("collation_server", "UTF8MB4_UNICODE_CI").unwrap();
        assert_eq!(
            only.server_collation(),
            Ok(Some(Collation::Utf8mb4UnicodeCi))
        );
        assert!(only.set("character_set_server", "klingon").is_err());
        assert!(only.set("collation_server", "latin1_klingon_ci").is_err());
        assert_eq!(
            only.server_collation(),
            Ok(Some(Collation::Utf8mb4UnicodeCi)),
            "a bad value changes nothing"
        );
    }
}
