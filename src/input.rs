//! Reading lines typed by people or sent by scripts, which need not be valid UTF-8.

use std::io::{self, BufRead};

/// The next line without its line ending, invalid UTF-8 replaced (so bad bytes become a
/// clear error message instead of ending the session); `None` at end of input.
pub(crate) fn read_line(input: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut bytes = Vec::new();
    if input.read_until(b'\n', &mut bytes)? == 0 {
        return Ok(None);
    }
    let line = String::from_utf8_lossy(&bytes);
    Ok(Some(line.trim_end_matches(['\n', '\r']).to_string()))
}

/// `text` quoted for an error message, cut to its first characters with a count of the rest,
/// so that a pasted 100 KB line is not echoed back whole.
pub(crate) fn quoted(text: &str) -> String {
    const SHOWN: usize = 40;
    let len = text.chars().count();
    if len <= SHOWN {
        return format!("{text:?}");
    }
    let head: String = text.chars().take(SHOWN).collect();
    format!("{head:?}... ({} more characters)", len - SHOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_is_cut_in_messages() {
        assert_eq!(quoted("11-15"), "\"11-15\"");
        let long = "x".repeat(100_000);
        let q = quoted(&long);
        assert!(
            q.len() < 80 && q.ends_with("(99960 more characters)"),
            "{q}"
        );
        assert_eq!(
            quoted(&"é".repeat(41)),
            format!("{:?}... (1 more characters)", "é".repeat(40))
        );
    }

    #[test]
    fn lines_end_at_newlines_or_end_of_input() {
        let mut input = io::Cursor::new(b"go\r\n\xffx\nlast".to_vec());
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("go"));
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("\u{fffd}x"));
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("last"));
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
