//! The names MariaDB gives a view's select items when it stores the view (`sql_view.cc`'s
//! make_valid_column_names and check_duplicate_names), for view_text.rs.
//!
//! Invariant: only auto names (an item without an alias) change; names written by the user
//! are left for the duplicate check (1060).

/// MariaDB's names for a view's items: an auto name that is no valid column name is
/// `Name_exp_<n>`; in the first SELECT an auto name equal to an earlier name is `My_exp_<name>`
/// (`My_exp_<k>_<name>` when that is taken too).
pub(super) fn valid_names(names: &mut [String], auto: &[bool], first: bool) {
    for (i, n) in names.iter_mut().enumerate() {
        if auto[i] && !valid_column_name(n) {
            *n = format!("Name_exp_{}", i + 1);
        }
    }
    if !first {
        return;
    }
    for i in 0..names.len() {
        for j in 0..i {
            if !names[i].eq_ignore_ascii_case(&names[j]) {
                continue;
            }
            let target = if auto[i] {
                i
            } else if auto[j] {
                j
            } else {
                continue;
            };
            let base = names[target].clone();
            let mut attempt = 0;
            let fresh = loop {
                let c = match attempt {
                    0 => format!("My_exp_{base}"),
                    k => format!("My_exp_{k}_{base}"),
                };
                if !names
                    .iter()
                    .enumerate()
                    .any(|(k, n)| k != target && n.eq_ignore_ascii_case(&c))
                {
                    break c;
                }
                attempt += 1;
            };
            names[target] = fresh;
        }
    }
}

/// MariaDB's `check_column_name`: not empty, not ending in a space, at most 64 characters.
fn valid_column_name(n: &str) -> bool {
    !n.is_empty() && !n.ends_with(char::is_whitespace) && n.chars().count() <= 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_and_repeated_auto_names_are_renamed_as_mariadb_does() {
        // view_alias.test: SELECT 'c1', 'c2 ', ' c3', ' c4 ', 'Name_exp_2' (leading spaces
        // already dropped from the auto names).
        let mut names: Vec<String> = ["c1", "c2 ", "c3", "c4 ", "Name_exp_2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        valid_names(&mut names, &[true; 5], true);
        assert_eq!(
            names,
            ["c1", "Name_exp_2", "c3", "Name_exp_4", "My_exp_Name_exp_2"]
        );
        let long = "x".repeat(65);
        let mut names = vec![long.clone(), "x".repeat(64)];
        valid_names(&mut names, &[true, true], false);
        assert_eq!(names, ["Name_exp_1".to_string(), "x".repeat(64)]);
        // Two columns of one name are no auto names: left for the duplicate check (1060).
        let mut names = vec!["a".to_string(), "a".to_string()];
        valid_names(&mut names, &[false, false], true);
        assert_eq!(names, ["a", "a"]);
    }
}
