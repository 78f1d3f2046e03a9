//! Plain-text board diagrams for a terminal, in the usual Othello orientation: rank 1 at
//! the top, file a on the left, coordinates on all four sides so squares can be read off.

use super::board::{Bitboard, square};
use super::position::{Color, Position};

/// The board with `X` for Black, `O` for White, `.` for empty and `*` for the empty
/// squares in `marked` (e.g. the legal moves), then a line with the disc counts and, when the
/// game is over, the result.
pub fn board_diagram(pos: &Position, marked: Bitboard) -> String {
    let files = "    a b c d e f g h\n";
    let mut out = String::from(files);
    for rank in 0..8u8 {
        let mut row = format!("  {}", rank + 1);
        for file in 0..8u8 {
            let sq = square(file, rank);
            let c = match pos.disc_at(sq) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None if marked & (1 << sq) != 0 => '*',
                None => '.',
            };
            row.push(' ');
            row.push(c);
        }
        out.push_str(&format!("{row} {}\n", rank + 1));
    }
    out.push_str(files);
    // Whose turn it is, the caller says (play does, with the moves to choose from).
    let state = match pos.outcome() {
        None => String::new(),
        Some(outcome) => format!(": game over, {outcome}"),
    };
    out.push_str(&format!(
        "  X Black {}, O White {}{state}\n",
        pos.count(Color::Black),
        pos.count(Color::White)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_with_legal_moves_marked() {
        let start = Position::start();
        let d = board_diagram(&start, start.legal_moves_mask());
        let rows: Vec<&str> = d.lines().collect();
        assert_eq!(rows.len(), 11, "{d}");
        assert_eq!(rows[0], "    a b c d e f g h");
        assert_eq!(rows[1], "  1 . . . . . . . . 1");
        assert_eq!(rows[3], "  3 . . . * . . . . 3");
        assert_eq!(rows[4], "  4 . . * O X . . . 4");
        assert_eq!(rows[5], "  5 . . . X O * . . 5");
        assert_eq!(rows[6], "  6 . . . . * . . . 6");
        assert_eq!(rows[9], rows[0]);
        assert_eq!(rows[10], "  X Black 2, O White 2");
    }

    #[test]
    fn finished_games_show_the_result() {
        let won = Position::from_discs(1, 0, Color::White).unwrap();
        let d = board_diagram(&won, !0);
        assert!(d.contains("  1 X * * * * * * * 1"), "{d}");
        assert!(
            d.ends_with("X Black 1, O White 0: game over, Black wins on discs\n"),
            "{d}"
        );
        let drawn = Position::from_discs(1, 1 << 63, Color::Black).unwrap();
        assert!(board_diagram(&drawn, 0).ends_with("game over, draw: as many discs each\n"));
    }
}
