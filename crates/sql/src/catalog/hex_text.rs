//! Text fields of catalog entries stored as lowercase hex (roll-up and view definitions): any
//! bytes survive the line-based entry formats. `unhex(hex(s)) == Some(s)` for every string.

/// `s`'s UTF-8 bytes as lowercase hex, two digits per byte.
pub(super) fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The string [`hex`] made `s` from; None if `s` is not such a text.
pub(super) fn unhex(s: &str) -> Option<String> {
    if s.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_odd_or_invalid_text() {
        for s in ["", "a", "SELECT `x` FROM t\nWHERE y = 'é'"] {
            assert_eq!(unhex(&hex(s)).as_deref(), Some(s));
        }
        assert_eq!(hex("A\n"), "410a");
        assert_eq!(unhex("410"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("ff"), None);
    }
}
