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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_newlines_or_end_of_input() {
        let mut input = io::Cursor::new(b"go\r\n\xffx\nlast".to_vec());
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("go"));
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("\u{fffd}x"));
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("last"));
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
