//! Reading game records back from PDN: each game of the text with its tags, its `FEN`
//! set-up if any, its moves checked one by one against the rules, and the result the record
//! gives (what `Game::to_pdn` and `match --pdn` write, and what other programs write:
//! comments, move numbers, results).

use super::record::Game;
use super::rules::Rules;
use super::side::{Color, DrawReason, NotationError, Outcome, WinReason};
use super::variations::{GAME, Node, Variations};

/// Result tokens that end a game's movetext.
const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// One game of a PDN text: its tags and the game, every move checked; where the board has
/// not ended the game, the result the record gives (its movetext's result, else its
/// `Result` tag) ends it as recorded.
#[derive(Clone, Debug)]
pub struct PdnRecord<G: Rules> {
    pub tags: Vec<(String, String)>,
    pub game: Game<G>,
    /// The record's variations (RAV), as side lines of the game.
    pub variations: Variations<G>,
}

impl<G: Rules> PdnRecord<G> {
    /// The tag `name`'s value (names compare without case).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every game in `text`, in order (at least one); an error names the game by its
    /// number where the text holds several.
    pub fn read_all(text: &str) -> Result<Vec<Self>, NotationError> {
        let chunks = games_of(text);
        let several = chunks.len() > 1;
        chunks
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                let (mut record, result) = Self::read(chunk).map_err(|e| match several {
                    true => NotationError(format!("game {}: {}", i + 1, e.0)),
                    false => e,
                })?;
                record.impose_recorded(result);
                Ok(record)
            })
            .collect()
    }

    /// The one game `text` holds (the first, if several), and the result it records, not
    /// yet imposed.
    fn read(text: &str) -> Result<(Self, Option<String>), NotationError> {
        let (tags, movetext) = split_tags(text)?;
        let start = match tags.iter().find(|(k, _)| k.eq_ignore_ascii_case("FEN")) {
            Some((_, fen)) => {
                G::parse_position(fen).map_err(|e| NotationError(format!("PDN FEN tag: {e}")))?
            }
            None => G::start(),
        };
        let mut game = Game::from_position(start);
        let mut variations = Variations::default();
        let mut result = None;
        // In a variation: the node its moves continue from, and the node before its last
        // move (where a variation inside it would start); the enclosing ones on the stack.
        let mut here: Option<(Node, Option<Node>)> = None;
        let mut enclosing = Vec::new();
        for token in move_tokens(&movetext)? {
            match token {
                "(" => {
                    // A variation replaces the move just played, in the game or in the
                    // variation it sits in.
                    let before = match here {
                        None => game.ply().checked_sub(1).map(|ply| Node::new(GAME, ply)),
                        Some((_, before)) => before,
                    };
                    let before = before.ok_or_else(|| {
                        NotationError(
                            "PDN variation: a '(' before any move it could replace".into(),
                        )
                    })?;
                    enclosing.push(here);
                    here = Some((before, None));
                }
                ")" => here = enclosing.pop().expect("move_tokens checks the parentheses"),
                // A result inside a variation ends only the variation.
                _ if RESULTS.contains(&token) && here.is_some() => {}
                _ if RESULTS.contains(&token) => {
                    result = Some(token.to_string());
                    break;
                }
                _ => match &mut here {
                    Some((node, before)) => {
                        let after = variations.play(&game, *node, token).map_err(|e| {
                            NotationError(format!("PDN variation move {}: {e}", node.ply + 1))
                        })?;
                        *before = Some(*node);
                        *node = after;
                    }
                    None => {
                        if game.outcome().is_some() {
                            return Err(NotationError(format!(
                                "PDN move {} ({token}) comes after the game ended",
                                game.ply() + 1
                            )));
                        }
                        game.play_text(token).map_err(|e| {
                            NotationError(format!("PDN move {}: {e}", game.ply() + 1))
                        })?;
                    }
                },
            }
        }
        let record = PdnRecord {
            tags,
            game,
            variations,
        };
        let result = result.or_else(|| record.tag("Result").map(str::to_string));
        Ok((record, result))
    }

    /// Ends a game the board has not ended with the `result` its record gives.
    fn impose_recorded(&mut self, result: Option<String>) {
        // `Outcome::pdn_result`'s convention: 1-0 is White's win.
        let recorded = match result.as_deref() {
            Some("1-0") => Outcome::Win(Color::White, WinReason::Recorded),
            Some("0-1") => Outcome::Win(Color::Black, WinReason::Recorded),
            Some("1/2-1/2") => Outcome::Draw(DrawReason::Recorded),
            _ => return,
        };
        if self.game.outcome().is_none() {
            self.game.impose(recorded);
        }
    }
}

impl<G: Rules> Game<G> {
    /// The first game in `text`, its moves only (a result it records is left to the
    /// caller: [`PdnRecord::read_all`] imposes it); every move must be legal in turn. The
    /// error names the move's number in the game and why it is not legal.
    pub fn from_pdn(text: &str) -> Result<Self, NotationError> {
        PdnRecord::read(text).map(|(r, _)| r.game)
    }
}

/// The text of each game: a game's tags begin after the movetext of the one before.
fn games_of(text: &str) -> Vec<String> {
    let mut games = vec![String::new()];
    let mut in_moves = false;
    for line in text.lines() {
        let tag = line.trim_start().starts_with('[');
        if tag && in_moves {
            games.push(String::new());
            in_moves = false;
        }
        in_moves |= !tag && !line.trim().is_empty();
        let game = games.last_mut().expect("one at least");
        game.push_str(line);
        game.push('\n');
    }
    games
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

/// The moves, variations' parentheses and result of a movetext, without comments
/// (`{...}`), move numbers (`12.`, `12...`) and annotation marks (`!`, `?`).
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
            '(' if !in_comment => {
                depth += 1;
                tokens.push(&movetext[i..i + 1]);
            }
            ')' if !in_comment => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| NotationError("PDN movetext: a ')' without its '('".into()))?;
                tokens.push(&movetext[i..i + 1]);
            }
            _ if !separator && start.is_none() && !in_comment => start = Some(i),
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
    use super::PdnRecord;
    use crate::games::{Checkers, Color, Game, Othello, Outcome, WinReason};

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
        // Every game, with its tags and the result it records where the board has not
        // ended it.
        let all = PdnRecord::<Checkers>::read_all(text).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(
            (all[0].tag("black"), all[1].tag("Event")),
            (Some("a"), Some("y"))
        );
        assert_eq!(
            all[0].game.outcome(),
            Some(Outcome::Win(Color::White, WinReason::Recorded))
        );
        assert_eq!((all[1].game.ply(), all[1].game.outcome()), (1, None));
        let bad = PdnRecord::<Checkers>::read_all("1. 11-15 *\n\n[Event \"z\"]\n1. 11-19\n");
        assert!(bad.unwrap_err().0.starts_with("game 2: PDN move 1"));
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
