//! Reading a game record back from PDN: the first game of the text, its `FEN` set-up if
//! any, and its moves checked one by one against the rules (what `Game::to_pdn` and
//! `match --pdn` write, and what other programs write: comments, move numbers, results).

use super::record::Game;
use super::rules::Rules;
use super::side::NotationError;

/// Result tokens that end a game's movetext.
const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

impl<G: Rules> Game<G> {
    /// The first game in `text`; every move must be legal in turn. The error names the
    /// move's number in the game and why it is not legal.
    pub fn from_pdn(text: &str) -> Result<Self, NotationError> {
        let (tags, movetext) = split_tags(text)?;
        let start = match tags.iter().find(|(k, _)| k.eq_ignore_ascii_case("FEN")) {
            Some((_, fen)) => {
                G::parse_position(fen).map_err(|e| NotationError(format!("PDN FEN tag: {e}")))?
            }
            None => G::start(),
        };
        let mut game = Game::from_position(start);
        for token in move_tokens(&movetext)? {
            if RESULTS.contains(&token) {
                break;
            }
            if game.outcome().is_some() {
                return Err(NotationError(format!(
                    "PDN move {} ({token}) comes after the game ended",
                    game.ply() + 1
                )));
            }
            game.play_text(token)
                .map_err(|e| NotationError(format!("PDN move {}: {e}", game.ply() + 1)))?;
        }
        Ok(game)
    }
}

/// The tag pairs before the first game's movetext, and the movetext up to the next game's
/// tags.
fn split_tags(text: &str) -> Result<(Vec<(String, String)>, String), NotationError> {
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(tag) = line.strip_prefix('[') {
            if !movetext.trim().is_empty() {
                break; // the next game's tags
            }
            let bad = || NotationError(format!("PDN tag {line:?}: expected [Name \"value\"]"));
            let tag = tag.strip_suffix(']').ok_or_else(bad)?;
            let (name, value) = tag.split_once(char::is_whitespace).ok_or_else(bad)?;
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .ok_or_else(bad)?;
            tags.push((name.to_string(), value.to_string()));
        } else {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    Ok((tags, movetext))
}

/// The moves and result of a movetext, without comments (`{...}`), variations (`(...)`),
/// move numbers (`12.`, `12...`) and annotation marks (`!`, `?`).
fn move_tokens(movetext: &str) -> Result<Vec<&str>, NotationError> {
    let mut tokens = Vec::new();
    let mut depth = 0usize;
    let mut in_comment = false;
    let mut start = None;
    for (i, c) in movetext.char_indices().chain([(movetext.len(), ' ')]) {
        let separator = c.is_whitespace() || matches!(c, '{' | '}' | '(' | ')');
        if separator && let Some(s) = start.take() {
            tokens.push(&movetext[s..i]);
        }
        match c {
            '{' if !in_comment => in_comment = true,
            '}' if in_comment => in_comment = false,
            '(' if !in_comment => depth += 1,
            ')' if !in_comment => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| NotationError("PDN movetext: a ')' without its '('".into()))?
            }
            _ if !separator && start.is_none() && !in_comment && depth == 0 => start = Some(i),
            _ => {}
        }
    }
    if in_comment || depth > 0 {
        return Err(NotationError(
            "PDN movetext: a comment or variation is not closed".into(),
        ));
    }
    Ok(tokens
        .into_iter()
        .map(|t| without_move_number(t).trim_end_matches(['!', '?']))
        .filter(|t| !t.is_empty())
        .collect())
}

/// `12.11-15` -> `11-15`, `12...` -> ``; a move itself (`11-15`, `d3`) is left alone.
fn without_move_number(token: &str) -> &str {
    let rest = token.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() < token.len() && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        token
    }
}

#[cfg(test)]
mod tests {
    use crate::games::{Checkers, Game, Othello, Outcome};

    #[test]
    fn written_games_read_back() {
        let mut game = Game::new();
        for mv in ["11-15", "23-19", "8-11", "22-17", "4-8"] {
            game.play_text(mv).unwrap();
        }
        let read = Game::<Checkers>::from_pdn(&game.to_pdn(&[("Event", "t".into())])).unwrap();
        assert_eq!(read.moves(), game.moves());
        // From a set-up position, with a finished game's result comment.
        let mut set_up = Game::<Checkers>::from_position(
            crate::games::checkers::parse_fen("W:W18:B14").unwrap(),
        );
        set_up.play_text("18x9").unwrap();
        assert!(matches!(set_up.outcome(), Some(Outcome::Win(..))));
        let read = Game::<Checkers>::from_pdn(&set_up.to_pdn(&[])).unwrap();
        assert_eq!(read.position(), set_up.position());
        assert_eq!(read.outcome(), set_up.outcome());
        let othello = Game::<Othello>::from_pdn("[GameType \"othello\"]\n1. d3 c5 *").unwrap();
        assert_eq!(othello.ply(), 2);
    }

    #[test]
    fn other_programs_pdn_reads_and_only_the_first_game_counts() {
        let text = "[Event \"x\"]\n[Black \"a\"]\n1.11-15 {book} 23-19! 2. 8-11 (2. 9-13 22-18) \
                    22-17?\n3...\n1-0\n\n[Event \"y\"]\n1. 9-13 *\n";
        let game = Game::<Checkers>::from_pdn(text).unwrap();
        let moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
        assert_eq!(moves, ["11-15", "23-19", "8-11", "22-17"]);
    }

    #[test]
    fn bad_pdn_says_where_and_why() {
        for (text, needle) in [
            ("1. 11-15 23-16", "PDN move 2: 23-16 is not legal"),
            ("[FEN \"X:W1\"]\n*", "PDN FEN tag"),
            ("[Event x]\n1. 11-15", "PDN tag"),
            ("1. 11-15 {open", "not closed"),
            ("1. 11-15 )", "without its '('"),
            (
                "[FEN \"W:W18:B14\"]\n18x9 10-14",
                "comes after the game ended",
            ),
        ] {
            let e = Game::<Checkers>::from_pdn(text).unwrap_err();
            assert!(e.0.contains(needle), "{text:?}: {e}");
        }
    }
}
