//! The `optimizer_switch` system variable, as MariaDB 10.11 has it: a list of `flag=on|off`.
//!
//! Owns: [`DEFAULT`] (MariaDB 10.11's default value, flag for flag), [`assign`] (the value a
//! `SET optimizer_switch = '...'` leaves, from the current one) and [`enabled`].
//!
//! Rules, as MariaDB applies them: the new text is a comma-separated list of `flag=on`,
//! `flag=off`, `flag=default` (names and values in any case, trailing spaces ignored) and the
//! word `default` (every flag to its default, whatever its position); flags not named keep
//! their value. An unknown flag, another value or a flag named twice is error 1231 naming that
//! item. `engine_condition_pushdown=on` is accepted with warning 1681 (deprecated) and leaves
//! the flag off. Divergence: MariaDB also takes a number (a bitmask of the flags); Betula
//! refuses it with 1231.
//!
//! Only `index_condition_pushdown` is read by Betula: it decides whether EXPLAIN shows
//! `Using index condition` (explain.rs). The other flags are kept and shown, and change nothing.

use crate::context::Context;
use crate::error::code::ErrorCode;
use crate::error::db_error::{DbError, DbResult};
use crate::types::value::Value;

/// MariaDB 10.11's default `optimizer_switch`.
pub const DEFAULT: &str = "index_merge=on,index_merge_union=on,index_merge_sort_union=on,\
index_merge_intersection=on,index_merge_sort_intersection=off,engine_condition_pushdown=off,\
index_condition_pushdown=on,derived_merge=on,derived_with_keys=on,firstmatch=on,loosescan=on,\
materialization=on,in_to_exists=on,semijoin=on,partial_match_rowid_merge=on,\
partial_match_table_scan=on,subquery_cache=on,mrr=off,mrr_cost_based=off,mrr_sort_keys=off,\
outer_join_with_cache=on,semijoin_with_cache=on,join_cache_incremental=on,join_cache_hashed=on,\
join_cache_bka=on,optimize_join_buffer_size=on,table_elimination=on,extended_keys=on,\
exists_to_in=on,orderby_uses_equalities=on,condition_pushdown_for_derived=on,\
split_materialized=on,condition_pushdown_for_subquery=on,rowid_filter=on,\
condition_pushdown_from_having=on,not_null_range_scan=off,hash_join_cardinality=off,\
cset_narrowing=off";

/// The flags of a value in MariaDB's order: (name, on).
fn flags(text: &str) -> Vec<(String, bool)> {
    text.split(',')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), v == "on"))
        .collect()
}

fn render(flags: &[(String, bool)]) -> String {
    flags
        .iter()
        .map(|(k, on)| format!("{k}={}", if *on { "on" } else { "off" }))
        .collect::<Vec<_>>()
        .join(",")
}

/// The value of `optimizer_switch` after assigning `setting` to `current`, and the warnings
/// (code, message) the assignment gives.
pub fn assign(current: &str, setting: &Value) -> DbResult<(String, Vec<(ErrorCode, String)>)> {
    let refuse = |item: &str| {
        DbError::new(
            ErrorCode::WrongValueForVar,
            format!("Variable 'optimizer_switch' can't be set to the value of '{item}'"),
        )
    };
    let Value::Text(text) = setting else {
        let shown = match setting {
            Value::Null => "NULL".to_string(),
            v => crate::expr::eval::text_of(v).unwrap_or_default(),
        };
        return Err(refuse(&shown));
    };
    let defaults = flags(DEFAULT);
    let mut now = flags(current);
    if now.len() != defaults.len() {
        now = defaults.clone();
    }
    let mut warnings = Vec::new();
    let mut named: Vec<usize> = Vec::new();
    let mut sets: Vec<(usize, bool)> = Vec::new();
    let mut reset = false;
    if !text.is_empty() {
        for item in text.split(',') {
            let trimmed = item.trim_end_matches(' ');
            if trimmed.eq_ignore_ascii_case("default") {
                reset = true;
                continue;
            }
            let (k, v) = trimmed.split_once('=').ok_or_else(|| refuse(item))?;
            let i = defaults
                .iter()
                .position(|(name, _)| name.eq_ignore_ascii_case(k))
                .ok_or_else(|| refuse(item))?;
            if named.contains(&i) {
                return Err(refuse(item));
            }
            named.push(i);
            let on = match v.to_ascii_lowercase().as_str() {
                "on" => true,
                "off" => false,
                "default" => defaults[i].1,
                _ => return Err(refuse(item)),
            };
            if defaults[i].0 == "engine_condition_pushdown" && on {
                warnings.push((
                    ErrorCode::WarnDeprecatedSyntaxNoReplacement,
                    format!("'{trimmed}' is deprecated and will be removed in a future release"),
                ));
                continue;
            }
            sets.push((i, on));
        }
    }
    if reset {
        now = defaults;
    }
    for (i, on) in sets {
        now[i].1 = on;
    }
    Ok((render(&now), warnings))
}

/// Whether flag `name` is on in the session's `optimizer_switch`.
pub fn enabled(cx: &Context, name: &str) -> bool {
    let text = match cx.vars.get("optimizer_switch") {
        Some(Value::Text(t)) => t.as_str(),
        _ => DEFAULT,
    };
    flag_on(text, name)
}

/// Whether `text` (a switch's `flag=on|off,...` list) has `name=on` as one of its items.
fn flag_on(text: &str, name: &str) -> bool {
    // `name=on` as a whole item: at the start or after a comma, and followed by a comma or the end.
    text.match_indices(name).any(|(at, _)| {
        let before = at == 0 || text.as_bytes()[at - 1] == b',';
        let rest = &text[at + name.len()..];
        before && (rest == "=on" || rest.starts_with("=on,"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(cur: &str, s: &str) -> DbResult<(String, Vec<(ErrorCode, String)>)> {
        assign(cur, &Value::Text(s.into()))
    }

    #[test]
    fn a_flag_is_on_only_as_a_whole_item() {
        let text = "mrr=on,mrr_cost_based=off,index_merge_union=off,index_merge=on,x=onx";
        assert!(flag_on(text, "mrr"));
        assert!(!flag_on(text, "mrr_cost_based"));
        assert!(!flag_on(text, "cost_based"));
        assert!(!flag_on(text, "index_merge_union"));
        assert!(flag_on(text, "index_merge"));
        assert!(!flag_on(text, "merge"));
        assert!(!flag_on(text, "x"));
        assert!(!flag_on(text, "absent"));
        assert!(flag_on(DEFAULT, "index_condition_pushdown"));
        assert!(!flag_on(DEFAULT, "engine_condition_pushdown"));
        let (off, _) = set(DEFAULT, "index_condition_pushdown=off").unwrap();
        assert!(!flag_on(&off, "index_condition_pushdown"));
    }

    #[test]
    fn flags_change_one_at_a_time_and_default_resets() {
        let (v, w) = set(DEFAULT, "index_condition_pushdown=off,MRR=ON ").unwrap();
        assert!(w.is_empty());
        assert!(v.contains("index_condition_pushdown=off") && v.contains(",mrr=on,"));
        let (v2, _) = set(&v, "mrr=default").unwrap();
        assert!(v2.contains(",mrr=off,") && v2.contains("index_condition_pushdown=off"));
        assert_eq!(
            set(&v, "mrr=on,default").unwrap().0,
            DEFAULT.replace(",mrr=off,", ",mrr=on,")
        );
        assert_eq!(set(&v, "").unwrap().0, v);
    }

    #[test]
    fn deprecated_and_bad_items() {
        let (v, w) = set(DEFAULT, "engine_condition_pushdown=on").unwrap();
        assert_eq!(v, DEFAULT);
        assert_eq!(w[0].0, ErrorCode::WarnDeprecatedSyntaxNoReplacement);
        assert!(w[0]
            .1
            .starts_with("'engine_condition_pushdown=on' is deprecated"));
        for bad in ["foo=on", "mrr", "mrr=1", "mrr=on,mrr=off", " mrr=on"] {
            let e = set(DEFAULT, bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::WrongValueForVar, "{bad}");
        }
        assert_eq!(
            assign(DEFAULT, &Value::Null).unwrap_err().code,
            ErrorCode::WrongValueForVar
        );
        assert_eq!(
            assign(DEFAULT, &Value::Int(5)).unwrap_err().code,
            ErrorCode::WrongValueForVar
        );
    }
}
