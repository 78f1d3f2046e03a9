//! Move text (`d3`, `pass`) and the one-line position text many Othello tools use: 64
//! characters a1..h1, a2..h2, ..., h8 (`X` Black, `O` White, `-` empty), a space, and the
//! side to move (`X` or `O`).
//!
//! Parsing never panics: bad input is a [`NotationError`] whose message says what was
//! expected, or, for a well-formed move that is not legal, why it is not.

use super::board::{Squares, file_of, rank_of, square};
use super::moves::{Move, flips};
use super::position::{Color, Position};
use crate::input::quoted;

pub use crate::games::side::NotationError;

fn err<T>(msg: impl Into<String>) -> Result<T, NotationError> {
    Err(NotationError(msg.into()))
}

/// A square's name, `a1`..`h8`.
pub fn square_name(sq: u8) -> String {
    format!("{}{}", (b'a' + file_of(sq)) as char, rank_of(sq) + 1)
}

/// Parses a square name, file letter in either case then rank digit (`d3`, `D3`).
pub fn parse_square(text: &str) -> Result<u8, NotationError> {
    match text.as_bytes() {
        [f @ (b'a'..=b'h' | b'A'..=b'H'), r @ b'1'..=b'8'] => {
            Ok(square(f.to_ascii_lowercase() - b'a', r - b'1'))
        }
        _ => err(format!(
            "{} is not a square: expected a file a-h then a rank 1-8, like d3",
            quoted(text)
        )),
    }
}

/// A move's text: its square's name, or `pass`.
pub fn move_to_text(mv: Move) -> String {
    match mv {
        Move::Play(sq) => square_name(sq),
        Move::Pass => "pass".into(),
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&move_to_text(*self))
    }
}

/// Parses a move (`d3`, `D3` or `pass`, any case, surrounding spaces ignored) and checks it
/// is legal in `pos`, saying why not when it is not.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let text = text.trim();
    let expected = "expected a square a1-h8 (like d3) or pass";
    if text.is_empty() {
        return err(format!("empty move: {expected}"));
    }
    let mv = if text.eq_ignore_ascii_case("pass") {
        Move::Pass
    } else {
        match parse_square(text) {
            Ok(sq) => Move::Play(sq),
            Err(_) => return err(format!("{} is not a move: {expected}", quoted(text))),
        }
    };
    if pos.is_terminal() {
        return err(format!(
            "the game is over: neither side can move (Black {}, White {})",
            pos.count(Color::Black),
            pos.count(Color::White)
        ));
    }
    let side = pos.turn();
    let mask = pos.legal_moves_mask();
    match mv {
        Move::Pass if mask != 0 => err(format!(
            "{side} cannot pass while it has a move: {}",
            list_moves(mask)
        )),
        Move::Play(_) if mask == 0 => err(format!("{side} has no legal move and must pass")),
        Move::Play(sq) if mask & (1 << sq) == 0 => {
            let name = square_name(sq);
            let why = match pos.disc_at(sq) {
                Some(color) => format!("{name} is occupied by a {color} disc"),
                None => {
                    debug_assert_eq!(flips(pos.mover(), pos.opponent(), sq), 0);
                    format!("a disc on {name} flips no {} disc", side.opposite())
                }
            };
            err(format!("{why}; {side} can play {}", list_moves(mask)))
        }
        _ => Ok(mv),
    }
}

fn list_moves(mask: u64) -> String {
    Squares(mask).map(square_name).collect::<Vec<_>>().join(" ")
}

/// The position's text: 64 squares a1..h8 as `X`, `O` or `-`, a space, the side to move.
pub fn to_text(pos: &Position) -> String {
    let mut s: String = (0..64u8)
        .map(|sq| match pos.disc_at(sq) {
            Some(Color::Black) => 'X',
            Some(Color::White) => 'O',
            None => '-',
        })
        .collect();
    s.push(' ');
    s.push(match pos.turn() {
        Color::Black => 'X',
        Color::White => 'O',
    });
    s
}

/// Parses the text of [`to_text`]; spaces around the whole are ignored, nothing else is:
/// exactly 64 squares of `X`, `O` or `-`, one space, and `X` or `O`. Any arrangement of
/// discs is accepted (tools set up positions no game reaches, e.g. for endgame tests).
pub fn parse_position(text: &str) -> Result<Position, NotationError> {
    let expected = "expected 64 squares a1..h8 of X, O or -, a space, then X or O to move";
    let text = text.trim();
    if text.is_empty() {
        return err(format!("empty position: {expected}"));
    }
    let Some((board, side)) = text.split_once(' ') else {
        return err(format!("{} has no side to move: {expected}", quoted(text)));
    };
    let squares = board.chars().count();
    if squares != 64 {
        return err(format!("the board has {squares} squares: {expected}"));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (sq, c) in (0u8..).zip(board.chars()) {
        match c {
            'X' => black |= 1 << sq,
            'O' => white |= 1 << sq,
            '-' => {}
            _ => {
                return err(format!(
                    "square {} holds {c:?}: expected X (Black), O (White) or - (empty)",
                    square_name(sq)
                ));
            }
        }
    }
    let turn = match side {
        "X" => Color::Black,
        "O" => Color::White,
        _ => {
            return err(format!(
                "the side to move must be X (Black) or O (White), got {}",
                quoted(side)
            ));
        }
    };
    Ok(Position::from_discs(black, white, turn).expect("a square holds one character"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "---------------------------OX------XO--------------------------- X";

    #[test]
    fn start_text_round_trips() {
        assert_eq!(to_text(&Position::start()), START);
        assert_eq!(parse_position(START).unwrap(), Position::start());
        assert_eq!(
            parse_position(&format!("  {START}\n")).unwrap(),
            Position::start()
        );
    }

    #[test]
    fn bad_positions_say_why() {
        let board = &START[..64];
        for (bad, needle) in [
            ("", "empty position"),
            (board, "no side to move"),
            (&format!("{board}- X"), "65 squares"),
            (&START[1..], "63 squares"),
            (
                &format!("{}x{} X", &board[..2], &board[3..]),
                "square c1 holds 'x'",
            ),
            (&format!("{board} B"), "got \"B\""),
            (&format!("{board}  X"), "got \" X\""),
            (&format!("{board} X O"), "got \"X O\""),
        ] {
            let e = parse_position(bad).unwrap_err().0;
            assert!(e.contains(needle), "{bad:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn moves_parse_and_illegal_ones_are_explained() {
        let start = Position::start();
        assert_eq!(parse_move(&start, " D3 ").unwrap(), Move::Play(19));
        assert_eq!(move_to_text(Move::Play(19)), "d3");
        assert_eq!(Move::Pass.to_string(), "pass");
        for (bad, needle) in [
            ("", "empty move"),
            ("i1", "\"i1\" is not a move"),
            ("d9", "\"d9\" is not a move"),
            (
                "d4",
                "d4 is occupied by a White disc; Black can play d3 c4 f5 e6",
            ),
            ("e4", "e4 is occupied by a Black disc"),
            ("a1", "a disc on a1 flips no White disc"),
            ("pass", "Black cannot pass while it has a move: d3 c4 f5 e6"),
        ] {
            let e = parse_move(&start, bad).unwrap_err().0;
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
        // White b1 next to Black a1 with c1 empty: White must pass.
        let must_pass = Position::from_discs(1, 2, Color::White).unwrap();
        assert_eq!(parse_move(&must_pass, "PASS").unwrap(), Move::Pass);
        let e = parse_move(&must_pass, "c1").unwrap_err().0;
        assert_eq!(e, "White has no legal move and must pass");
        let over = Position::from_discs(1, 0, Color::White).unwrap();
        let e = parse_move(&over, "pass").unwrap_err().0;
        assert_eq!(
            e,
            "the game is over: neither side can move (Black 1, White 0)"
        );
    }

    #[test]
    fn squares_name_and_parse() {
        for sq in 0..64 {
            assert_eq!(parse_square(&square_name(sq)).unwrap(), sq);
        }
        assert_eq!(square_name(0), "a1");
        assert_eq!(square_name(63), "h8");
        assert!(parse_square("a10").is_err() && parse_square("é1").is_err());
    }
}
