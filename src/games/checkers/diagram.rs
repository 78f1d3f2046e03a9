//! Plain-text board diagrams for a terminal.
//!
//! Every playable square shows its piece (`b` black man, `B` black king, `w` white man,
//! `W` white king) or, when empty, its square number, so moves can be read off the board.
//! Light squares are blank. Each row ends with the range of square numbers it holds, which
//! names the occupied squares too. Squares can be marked: `[ ]` around those of the last
//! move, `x` on those whose pieces it captured.

use super::board::{Bitboard, row_col};
use super::position::{Color, Position};

/// Characters per square.
const CELL: usize = 4;

/// The board seen from White's side: square 1 top-left, square 29 the bottom-left corner.
/// Squares in `highlight` (e.g. those of the last move) are shown in brackets.
pub fn board_diagram(pos: &Position, highlight: Bitboard) -> String {
    board_diagram_from(pos, highlight, 0, Color::White)
}

/// The board with `viewer`'s side at the bottom. Black's view is White's turned half round,
/// so square 32 is top-left and each side's men move up the page for their own player.
/// Empty squares in `captured` show `x` instead of their number.
pub fn board_diagram_from(
    pos: &Position,
    highlight: Bitboard,
    captured: Bitboard,
    viewer: Color,
) -> String {
    let border = format!("  +{}+\n", "-".repeat(8 * CELL));
    let mut out = border.clone();
    for row in squares_by_row(viewer) {
        let cells: String = row
            .iter()
            .map(|cell| match cell {
                Some(sq) => square_text(pos, *sq, highlight, captured),
                None => " ".repeat(CELL),
            })
            .collect();
        let mut numbers = row.iter().flatten().map(|sq| sq + 1);
        let first = numbers.next().unwrap_or_default();
        let last = numbers.next_back().unwrap_or(first);
        out.push_str(&format!("  |{cells}|  {first}..{last}\n"));
    }
    out.push_str(&border);
    out
}

/// The 8x8 grid as the viewer sees it, top row first: the 0-based square on each dark square.
fn squares_by_row(viewer: Color) -> [[Option<u8>; 8]; 8] {
    let mut grid = [[None; 8]; 8];
    for sq in 0..32u8 {
        let (row, col) = row_col(sq);
        let (row, col) = match viewer {
            Color::White => (row, col),
            Color::Black => (7 - row, 7 - col),
        };
        grid[row as usize][col as usize] = Some(sq);
    }
    grid
}

/// One square's text, `CELL` characters wide: its piece letter, `x` or its number.
fn square_text(pos: &Position, sq: u8, highlight: Bitboard, captured: Bitboard) -> String {
    let body = match pos.piece_at(sq) {
        Some(piece) => {
            let letter = if piece.color == Color::Black {
                'b'
            } else {
                'w'
            };
            let letter = if piece.king {
                letter.to_ascii_uppercase()
            } else {
                letter
            };
            letter.to_string()
        }
        None if captured & (1u32 << sq) != 0 => "x".to_string(),
        None => (sq + 1).to_string(),
    };
    let body = if highlight & (1u32 << sq) != 0 {
        format!("[{body}]")
    } else {
        body
    };
    format!("{body:^CELL$}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::{parse_fen, parse_move};

    fn lines_of(diagram: &str) -> Vec<&str> {
        diagram.lines().collect()
    }

    #[test]
    fn start_position_from_whites_side() {
        let d = board_diagram(&Position::start(), 0);
        let rows = lines_of(&d);
        assert_eq!(rows.len(), 10, "{d}");
        assert_eq!(rows[0], format!("  +{}+", "-".repeat(32)));
        assert_eq!(rows[1], "  |     b       b       b       b  |  1..4");
        assert_eq!(rows[2], "  | b       b       b       b      |  5..8");
        assert_eq!(rows[4], "  | 13      14      15      16     |  13..16");
        assert_eq!(rows[5], "  |     17      18      19      20 |  17..20");
        assert_eq!(rows[8], "  | w       w       w       w      |  29..32");
        assert_eq!(rows[9], rows[0]);
    }

    #[test]
    fn kings_highlight_and_blacks_view() {
        let pos = parse_fen("W:WK1,18:BK32,10").unwrap();
        let mv = parse_move(&pos, "18-15").unwrap();
        let after = pos.apply(&mv);
        let d = board_diagram(&after, (1 << mv.from()) | (1 << mv.to()));
        let rows = lines_of(&d);
        assert_eq!(rows[1], "  |     W       2       3       4  |  1..4");
        assert_eq!(rows[3], "  |     9       b       11      12 |  9..12");
        assert_eq!(rows[4], "  | 13      14     [w]      16     |  13..16");
        assert_eq!(rows[5], "  |     17     [18]     19      20 |  17..20");
        assert_eq!(rows[8], "  | 29      30      31      B      |  29..32");

        // Turned round for Black: 32 top-left, 1 bottom-right, each row read right to left.
        let d = board_diagram_from(&after, 0, 0, Color::Black);
        let rows = lines_of(&d);
        assert_eq!(rows[1], "  |     B       31      30      29 |  32..29");
        assert_eq!(rows[5], "  |     16      w       14      13 |  16..13");
        assert_eq!(rows[8], "  | 4       3       2       W      |  4..1");
    }

    #[test]
    fn captured_squares_show_x() {
        let pos = parse_fen("B:W14,23:B9").unwrap();
        let mv = parse_move(&pos, "9x27").unwrap();
        let after = pos.apply(&mv);
        let marked = mv
            .path()
            .iter()
            .fold(1 << mv.from(), |m, &sq| m | (1 << sq));
        let d = board_diagram_from(&after, marked, mv.captured(), Color::White);
        let rows = lines_of(&d);
        assert_eq!(rows[3], "  |    [9]      10      11      12 |  9..12");
        assert_eq!(rows[4], "  | 13      x       15      16     |  13..16");
        assert_eq!(rows[5], "  |     17     [18]     19      20 |  17..20");
        assert_eq!(rows[6], "  | 21      22      x       24     |  21..24");
        assert_eq!(rows[7], "  |     25      26     [b]      28 |  25..28");
    }
}
