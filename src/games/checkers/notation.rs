//! PDN move text (`11-15`, `15x24`, `15x24x31`) and PDN FEN (`B:W21,...,32:B1,...,12`).
//!
//! Parsing never panics: bad input is a [`NotationError`] whose message says what was
//! expected, or, for a well-formed move that is not legal, why it is not.

use super::board::{Bitboard, Squares, neighbour};
use super::movegen::legal_moves;
use super::moves::Move;
use super::position::{Color, Position};
use crate::input::quoted;
use std::fmt::Write;

pub use crate::games::side::NotationError;

fn err<T>(msg: impl Into<String>) -> Result<T, NotationError> {
    Err(NotationError(msg.into()))
}

/// Full PDN text of a move: `11-15` for a step, every landing square for a capture.
pub fn move_to_pdn(mv: &Move) -> String {
    let sep = if mv.is_capture() { 'x' } else { '-' };
    let mut s = format!("{}", mv.from() + 1);
    for &sq in mv.path() {
        let _ = write!(s, "{sep}{}", sq + 1);
    }
    s
}

/// Parses a square number 1..=32 (digits only: no sign, no spaces) into a 0-based square.
fn parse_square(tok: &str, what: &str) -> Result<u8, NotationError> {
    let digits = !tok.is_empty() && tok.len() <= 2 && tok.bytes().all(|b| b.is_ascii_digit());
    match tok.parse::<u8>() {
        Ok(n @ 1..=32) if digits => Ok(n - 1),
        _ => err(format!(
            "{what}: expected a square number 1-32, got {}",
            quoted(tok)
        )),
    }
}

/// Parses a move in PDN (`11-15`, `15x24`, `15x24x31`, or the short from-to form of a
/// multi-jump `15x31`) and checks it is legal in `pos`.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let text = text.trim();
    let expected = "expected a move like 11-15, 15x24 or 15x24x31";
    if text.is_empty() {
        return err(format!("empty move: {expected}"));
    }
    let lower = text.to_ascii_lowercase();
    let mut squares = Vec::new();
    for tok in lower.split(['-', 'x']) {
        match tok.parse::<u8>() {
            Ok(n @ 1..=32) => squares.push(n - 1),
            _ => {
                return err(format!(
                    "{} is not a move: {expected} (squares 1-32)",
                    quoted(text)
                ));
            }
        }
    }
    if squares.len() < 2 {
        return err(format!("{} is not a move: {expected}", quoted(text)));
    }
    let legal = legal_moves(pos);
    if legal.is_empty() {
        return err(format!("no legal moves: {} has lost", pos.turn()));
    }
    let (from, rest) = (squares[0], &squares[1..]);
    let matches: Vec<Move> = legal
        .iter()
        .filter(|m| {
            m.from() == from && (m.path() == rest || (rest.len() == 1 && m.to() == rest[0]))
        })
        .copied()
        .collect();
    if let Some(first) = matches.first() {
        if matches.iter().all(|m| m.captured() == first.captured()) {
            return Ok(*first);
        }
        let mut routes: Vec<String> = Vec::new();
        for m in &matches {
            if !matches
                .iter()
                .take_while(|o| *o != m)
                .any(|o| o.captured() == m.captured())
            {
                routes.push(move_to_pdn(m));
            }
        }
        return err(format!(
            "{text} is ambiguous: it matches different captures {}; give the full path",
            routes.join(" and ")
        ));
    }
    err(format!(
        "{text} is not legal: {}",
        why_illegal(pos, &legal, &squares)
    ))
}

/// Why the piece on `from` (0-based) cannot move now, in the words [`parse_move`] uses for a
/// move from there; `None` when it has a legal move. For boards that let a person pick a
/// piece before a destination.
pub fn why_immobile(pos: &Position, from: u8) -> Option<String> {
    let legal = legal_moves(pos);
    if legal.iter().any(|m| m.from() == from) {
        None
    } else if legal.is_empty() {
        Some(format!("no legal moves: {} has lost", pos.turn()))
    } else {
        Some(why_illegal(pos, &legal, &[from]))
    }
}

fn why_illegal(pos: &Position, legal: &[Move], squares: &[u8]) -> String {
    let side = pos.turn();
    let from = squares[0];
    let from_bit = 1u32 << from;
    if pos.pieces(side) & from_bit == 0 {
        return if pos.pieces(side.opposite()) & from_bit != 0 {
            format!(
                "{} holds a {} piece and {side} is to move",
                from + 1,
                side.opposite()
            )
        } else {
            format!("there is no piece on {}", from + 1)
        };
    }
    let captures: Vec<String> = legal.iter().map(move_to_pdn).collect();
    if legal[0].is_capture() {
        let own: Vec<&String> = captures
            .iter()
            .zip(legal)
            .filter(|(_, m)| m.from() == from)
            .map(|(s, _)| s)
            .collect();
        return if own.is_empty() {
            format!(
                "capture is compulsory: {} available",
                list_available(&captures)
            )
        } else {
            let own: Vec<String> = own.into_iter().cloned().collect();
            format!(
                "this piece must capture: {} available",
                list_available(&own)
            )
        };
    }
    let to = squares[squares.len() - 1];
    if squares.len() == 2 {
        let adjacent = super::board::Dir::ALL
            .iter()
            .find(|&&d| neighbour(from, d) == Some(to));
        if let Some(&dir) = adjacent {
            if pos.occupied() & (1u32 << to) != 0 {
                return format!("{} is occupied", to + 1);
            }
            if pos.kings() & from_bit == 0 && !side.forward().contains(&dir) {
                return "a man cannot move backwards".into();
            }
        }
    }
    let own: Vec<String> = legal
        .iter()
        .filter(|m| m.from() == from)
        .map(move_to_pdn)
        .collect();
    if own.is_empty() {
        format!("the piece on {} has no legal move", from + 1)
    } else {
        format!("the piece on {} can play {}", from + 1, own.join(" "))
    }
}

fn list_available(moves: &[String]) -> String {
    match moves.len() {
        1 => format!("{} is", moves[0]),
        _ => format!("{} are", moves.join(", ")),
    }
}

/// PDN FEN of a position: side to move, then White's and Black's squares, `K` marking kings.
pub fn to_fen(pos: &Position) -> String {
    let side = match pos.turn() {
        Color::Black => 'B',
        Color::White => 'W',
    };
    let list = |color: Color| -> String {
        Squares(pos.pieces(color))
            .map(|sq| {
                let k = if pos.kings() & (1u32 << sq) != 0 {
                    "K"
                } else {
                    ""
                };
                format!("{k}{}", sq + 1)
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    format!("{side}:W{}:B{}", list(Color::White), list(Color::Black))
}

/// Most pieces a side can have: a position with more is not one a game can reach.
const MAX_PIECES: u32 = 12;

/// Parses PDN FEN: `B:W21,22,...:B1,...`, lists in either order, `K` before kings, ranges
/// such as `1-12` or `K1-3`, spaces around the separators and a trailing period. Text that is
/// not a position is refused with the reason: stray characters, a square outside 1-32, more
/// than 12 pieces a side, a man on its own crowning row.
pub fn parse_fen(text: &str) -> Result<Position, NotationError> {
    let example = "expected e.g. B:W21-32:B1-12";
    let body = text.trim();
    let body = body.strip_suffix('.').unwrap_or(body).trim_end();
    if body.is_empty() {
        return err(format!("empty FEN: {example}"));
    }
    let mut parts = body.split(':').map(str::trim);
    let first = parts.next().unwrap_or("");
    let turn = match first {
        "B" | "b" => Color::Black,
        "W" | "w" => Color::White,
        _ => {
            return err(format!(
                "FEN must start with the side to move, B or W, got {}: {example}",
                quoted(first)
            ));
        }
    };
    let mut sets: [Option<(Bitboard, Bitboard)>; 2] = [None, None];
    for part in parts {
        let mut chars = part.chars();
        let color = match chars.next().map(|c| c.to_ascii_uppercase()) {
            Some('W') => Color::White,
            Some('B') => Color::Black,
            _ => {
                return err(format!(
                    "FEN piece list must start with W or B, got {}: {example}",
                    quoted(part)
                ));
            }
        };
        if sets[color.index()].is_some() {
            return err(format!("FEN lists {color}'s pieces twice"));
        }
        let (pieces, kings) = parse_piece_list(chars.as_str().trim_start(), color)?;
        if pieces.count_ones() > MAX_PIECES {
            return err(format!(
                "FEN gives {color} {} pieces; a side has at most {MAX_PIECES}",
                pieces.count_ones()
            ));
        }
        sets[color.index()] = Some((pieces, kings));
    }
    let (Some((black, black_kings)), Some((white, white_kings))) = (sets[0], sets[1]) else {
        return err(format!(
            "FEN must list both White's and Black's pieces: {example}"
        ));
    };
    if let Some(sq) = Squares(black & white).next() {
        return err(format!("square {} is given to both sides", sq + 1));
    }
    for (color, men) in [
        (Color::Black, black & !black_kings),
        (Color::White, white & !white_kings),
    ] {
        if let Some(sq) = Squares(men & color.crown_row()).next() {
            return err(format!(
                "a {color} man cannot stand on {} (its king row); write K{} for a king",
                sq + 1,
                sq + 1
            ));
        }
    }
    // The side not to move made the last move, with a piece it must still have (a side left
    // without pieces has lost, and moves no more).
    let last_mover = turn.opposite();
    if [black, white][last_mover.index()] == 0 {
        return err(format!(
            "{last_mover} has no pieces, so it cannot have made the last move: give {last_mover} a piece, or make it {last_mover}'s turn"
        ));
    }
    Position::from_bitboards(black, white, black_kings | white_kings, turn)
        .ok_or_else(|| NotationError("inconsistent FEN piece lists".into()))
}

/// Parses `21,22,K30,1-4` into (all pieces, kings); spaces may stand around `,` and `-` but
/// not inside a number.
fn parse_piece_list(list: &str, color: Color) -> Result<(Bitboard, Bitboard), NotationError> {
    let mut pieces = 0u32;
    let mut kings = 0u32;
    if list.is_empty() {
        return Ok((0, 0));
    }
    for item in list.split(',').map(str::trim) {
        let (king, body) = match item.strip_prefix(['K', 'k']) {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let what = format!("{color} piece {}", quoted(item));
        let (lo, hi) = match body.split_once('-') {
            Some((a, b)) => (
                parse_square(a.trim(), &what)?,
                parse_square(b.trim(), &what)?,
            ),
            None => {
                let s = parse_square(body, &what)?;
                (s, s)
            }
        };
        if lo > hi {
            return err(format!("{what}: a range must run from low to high"));
        }
        for sq in lo..=hi {
            let bit = 1u32 << sq;
            if pieces & bit != 0 {
                return err(format!("{color} square {} is listed twice", sq + 1));
            }
            pieces |= bit;
            if king {
                kings |= bit;
            }
        }
    }
    Ok((pieces, kings))
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&move_to_pdn(self))
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&move_to_pdn(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immobile_pieces_get_the_move_parsers_reasons() {
        let start = Position::start();
        assert_eq!(why_immobile(&start, 8), None); // 9 can move to 13 or 14
        let one = |pos: &Position, sq: u8| why_immobile(pos, sq - 1).unwrap();
        assert_eq!(one(&start, 1), "the piece on 1 has no legal move");
        assert_eq!(
            one(&start, 21),
            "21 holds a White piece and Black is to move"
        );
        assert_eq!(one(&start, 16), "there is no piece on 16");
        let capture = parse_fen("B:W14:B9,1").unwrap();
        assert_eq!(one(&capture, 1), "capture is compulsory: 9x18 is available");
        assert_eq!(why_immobile(&capture, 8), None);
        let lost = parse_fen("B:W14:B").unwrap();
        assert_eq!(one(&lost, 14), "no legal moves: Black has lost");
    }

    #[test]
    fn start_fen_round_trips() {
        let fen = to_fen(&Position::start());
        assert_eq!(
            fen,
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
        assert_eq!(parse_fen(&fen).unwrap(), Position::start());
        assert_eq!(parse_fen("B:W21-32:B1-12").unwrap(), Position::start());
        assert_eq!(
            parse_fen(" b : b1-12 : w21-32 .").unwrap(),
            Position::start()
        );
    }

    #[test]
    fn kings_and_errors() {
        let p = parse_fen("W:WK1,18:BK32,K3-4").unwrap();
        assert_eq!(p.turn(), Color::White);
        assert_eq!(to_fen(&p), "W:WK1,18:BK3,K4,K32");
        for bad in [
            "",
            "X:W1:B2",
            "B:W1",
            "B:W1:B1",
            "B:W1,1:B2",
            "B:W33:B1",
            "B:W5-2:B1",
            "B:W1:B30",
            "B:Wx:B1",
        ] {
            let e = parse_fen(bad).unwrap_err();
            assert!(!e.0.is_empty() && !e.0.contains('\n'), "{bad}: {e}");
        }
        assert!(parse_fen("B:W1:B30").unwrap_err().0.contains("king row"));
    }

    /// Text that PDN FEN allows is read; text that is not a reachable position is refused
    /// with its reason, never read as something else.
    #[test]
    fn what_is_not_a_position_is_refused() {
        let start = Position::start();
        for ok in [
            "B:W21-32:B1-12",
            "B:W 21 - 32 : B 1-12",
            "B:W21, 22,23,24,25,26,27,28,29,30,31,32:B1-12.",
        ] {
            assert_eq!(parse_fen(ok).unwrap(), start, "{ok}");
        }
        for (bad, needle) in [
            ("B:W21-32:B1-13", "at most 12"),
            ("B:W20-32:B1-12", "at most 12"),
            ("B:W+21:B1", "\"+21\""),
            ("B:W 2 1:B1", "\"2 1\""),
            ("B:W21,,22:B1", "\"\""),
            ("B:W021:B1", "\"021\""),
            ("B:W21:B1;", "\"1;\""),
            ("B:W21:B1-33", "\"33\""),
            ("B:WK 21:B1", "\" 21\""),
        ] {
            let e = parse_fen(bad).unwrap_err().0;
            assert!(e.contains(needle), "{bad}: {e}");
        }
        // A side to move without pieces has lost: a position, as the last move left it.
        assert_eq!(parse_fen("W:W:B19").unwrap().turn(), Color::White);
        // A side without pieces cannot have made the last move.
        for bad in ["B:W:B19", "W:W19:B", "B:W:B", "W:W:B"] {
            let e = parse_fen(bad).unwrap_err().0;
            assert!(e.contains("cannot have made the last move"), "{bad}: {e}");
        }
        let long = format!("B:W{}:B1", "1".repeat(100_000));
        let e = parse_fen(&long).unwrap_err().0;
        assert!(
            e.len() < 200,
            "a long input is cut in the message: {} bytes",
            e.len()
        );
    }

    #[test]
    fn move_text_round_trips_and_explains() {
        let start = Position::start();
        let mv = parse_move(&start, "11-15").unwrap();
        assert_eq!(move_to_pdn(&mv), "11-15");
        let e = parse_move(&start, "11-14").unwrap_err().0;
        assert!(e.contains("can play 11-15 11-16"), "{e}");
        let e = parse_move(&start, "22-18").unwrap_err().0;
        assert!(e.contains("White piece"), "{e}");
        let e = parse_move(&start, "15-19").unwrap_err().0;
        assert!(e.contains("no piece on 15"), "{e}");
        let e = parse_move(&start, "eleven").unwrap_err().0;
        assert!(e.contains("expected a move"), "{e}");
    }
}
