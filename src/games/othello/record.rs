//! Othello's game records: the move list Othello programs exchange. The game record itself
//! is generic (`games::record::Game`).

use super::moves::Move;
use super::notation::{NotationError, square_name};
use super::rules::Othello;
use crate::games::Game;

/// A game as the move list Othello programs exchange: the squares played run together
/// (`f5d6c3d3c4`), passes left out (a side with no move passes by rule).
pub fn transcript(moves: &[Move]) -> String {
    moves
        .iter()
        .filter_map(|mv| match mv {
            Move::Play(sq) => Some(square_name(*sq)),
            Move::Pass => None,
        })
        .collect()
}

/// Reads a move list from the start position: squares run together or apart (`f5d6c3`,
/// `F5 d6, c3`), passes written or not (a side that must pass passes before the next
/// square). The error names the move's number and why it is not legal.
pub fn parse_transcript(text: &str) -> Result<Game<Othello>, NotationError> {
    let mut game = Game::<Othello>::at_start();
    let mut rest: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, ',' | '-' | '.'))
        .collect::<String>()
        .to_ascii_lowercase();
    if rest.is_empty() {
        return Err(NotationError(
            "an empty move list: expected squares like f5d6c3".into(),
        ));
    }
    while !rest.is_empty() {
        let token = if rest.starts_with("pass") {
            "pass".to_string()
        } else {
            rest.chars().take(2).collect()
        };
        rest.drain(..token.len());
        if token != "pass" && game.position().legal_moves() == [Move::Pass] {
            game.play(Move::Pass);
        }
        game.play_text(&token)
            .map_err(|e| NotationError(format!("move {}: {e}", game.ply() + 1)))?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcripts_round_trip_with_passes_left_out() {
        use rand::prelude::*;
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut passes = 0;
        for _ in 0..200 {
            let mut game = Game::<Othello>::at_start();
            while game.outcome().is_none() {
                let moves = game.legal_moves();
                passes += usize::from(moves == [Move::Pass]);
                game.play(*moves.choose(&mut rng).unwrap());
            }
            let text = transcript(game.moves());
            assert!(!text.contains("pass"));
            let read = parse_transcript(&text).unwrap();
            assert_eq!(read.moves(), game.moves());
            // Spaced, upper case, passes written: the same game.
            let spaced: Vec<String> = game
                .moves()
                .iter()
                .map(|m| m.to_string().to_uppercase())
                .collect();
            assert_eq!(
                parse_transcript(&spaced.join(" ")).unwrap().moves(),
                game.moves()
            );
        }
        assert!(passes > 0, "no game passed: the test saw no implied pass");
    }

    #[test]
    fn a_bad_transcript_says_which_move_and_why() {
        let e = parse_transcript("f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1 f1")
            .unwrap_err()
            .0;
        assert!(e.starts_with("move 19: "), "{e}");
        assert_eq!(
            parse_transcript("f5 f5").unwrap_err().0,
            "move 2: f5 is occupied by a Black disc; White can play f4 d6 f6"
        );
        assert!(parse_transcript("  ").is_err());
        assert!(
            parse_transcript("f5z9")
                .unwrap_err()
                .0
                .starts_with("move 2: ")
        );
    }
}
