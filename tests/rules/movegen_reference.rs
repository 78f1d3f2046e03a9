//! The bitboard move generator against a deliberately plain one written here on an 8x8 array,
//! on random positions (men, kings, long multi-jumps, crowning captures).

use checkers_zero::games::checkers::{Color, Move, Position, legal_moves, parse_fen, to_fen};
use proptest::prelude::*;
use std::collections::BTreeSet;

#[derive(Clone, Copy, PartialEq, Debug)]
struct Piece {
    black: bool,
    king: bool,
}

type Board = [[Option<Piece>; 8]; 8];

/// Square number (1-32) of a dark square; row 0 holds 1-4, and squares sit at odd columns in
/// even rows, even columns in odd rows.
fn number(row: i32, col: i32) -> u8 {
    (row * 4 + col / 2 + 1) as u8
}

fn dark(row: i32, col: i32) -> bool {
    (0..8).contains(&row) && (0..8).contains(&col) && (row + col) % 2 == 1
}

fn board_of(fen_pieces: &[(u8, Piece)]) -> Board {
    let mut b: Board = [[None; 8]; 8];
    for &(n, p) in fen_pieces {
        let i = (n - 1) as i32;
        let row = i / 4;
        let col = 2 * (i % 4) + if row % 2 == 0 { 1 } else { 0 };
        b[row as usize][col as usize] = Some(p);
    }
    b
}

/// (from, landing squares, captured squares sorted) for every legal move, all routes.
fn reference_moves(b: &Board, black: bool) -> BTreeSet<(u8, Vec<u8>, Vec<u8>)> {
    let mut captures = BTreeSet::new();
    let mut steps = BTreeSet::new();
    for r in 0..8 {
        for c in 0..8 {
            let Some(p) = b[r as usize][c as usize] else {
                continue;
            };
            if p.black != black {
                continue;
            }
            let forward = if black { 1 } else { -1 };
            let dirs: Vec<(i32, i32)> = if p.king {
                vec![(1, 1), (1, -1), (-1, 1), (-1, -1)]
            } else {
                vec![(forward, 1), (forward, -1)]
            };
            for &(dr, dc) in &dirs {
                let (r1, c1) = (r + dr, c + dc);
                if dark(r1, c1) && b[r1 as usize][c1 as usize].is_none() {
                    steps.insert((number(r, c), vec![number(r1, c1)], vec![]));
                }
            }
            let mut board = *b;
            board[r as usize][c as usize] = None; // the mover has left its square
            jumps(
                &board,
                p,
                black,
                number(r, c),
                r,
                c,
                &mut vec![],
                &mut vec![],
                &mut captures,
            );
        }
    }
    if captures.is_empty() { steps } else { captures }
}

#[allow(clippy::too_many_arguments)]
fn jumps(
    b: &Board,
    p: Piece,
    black: bool,
    from: u8,
    r: i32,
    c: i32,
    path: &mut Vec<u8>,
    taken: &mut Vec<(i32, i32)>,
    out: &mut BTreeSet<(u8, Vec<u8>, Vec<u8>)>,
) {
    let forward = if black { 1 } else { -1 };
    let dirs: Vec<(i32, i32)> = if p.king {
        vec![(1, 1), (1, -1), (-1, 1), (-1, -1)]
    } else {
        vec![(forward, 1), (forward, -1)]
    };
    let mut any = false;
    for &(dr, dc) in &dirs {
        let (mr, mc, lr, lc) = (r + dr, c + dc, r + 2 * dr, c + 2 * dc);
        if !dark(lr, lc) {
            continue;
        }
        let over = b[mr as usize][mc as usize];
        let enemy = matches!(over, Some(q) if q.black != black) && !taken.contains(&(mr, mc));
        if !enemy || b[lr as usize][lc as usize].is_some() {
            continue;
        }
        any = true;
        path.push(number(lr, lc));
        taken.push((mr, mc));
        let crowned = !p.king && lr == if black { 7 } else { 0 };
        if crowned {
            record(from, path, taken, out);
        } else {
            jumps(b, p, black, from, lr, lc, path, taken, out);
        }
        path.pop();
        taken.pop();
    }
    if !any && !path.is_empty() {
        record(from, path, taken, out);
    }
}

fn record(from: u8, path: &[u8], taken: &[(i32, i32)], out: &mut BTreeSet<(u8, Vec<u8>, Vec<u8>)>) {
    let mut caps: Vec<u8> = taken.iter().map(|&(r, c)| number(r, c)).collect();
    caps.sort();
    out.insert((from, path.to_vec(), caps));
}

fn ours(pos: &Position) -> BTreeSet<(u8, Vec<u8>, Vec<u8>)> {
    let moves: Vec<Move> = legal_moves(pos);
    let set: BTreeSet<_> = moves
        .iter()
        .map(|m| {
            let caps: Vec<u8> = (0..32u8)
                .filter(|s| m.captured() & (1 << s) != 0)
                .map(|s| s + 1)
                .collect();
            (m.from() + 1, m.path().iter().map(|s| s + 1).collect(), caps)
        })
        .collect();
    assert_eq!(
        set.len(),
        moves.len(),
        "duplicate moves generated in {}",
        to_fen(pos)
    );
    set
}

/// A random position: each square empty or holding one of four piece kinds; men on their
/// own king row become kings; a side's pieces past 12 are left off, as FEN refuses them.
fn arb_position() -> impl Strategy<Value = (Vec<(u8, Piece)>, bool)> {
    (proptest::collection::vec(0u8..10, 32), any::<bool>()).prop_map(|(cells, black_to_move)| {
        let mut pieces: Vec<(u8, Piece)> = Vec::new();
        for (i, &k) in cells.iter().enumerate() {
            let n = i as u8 + 1;
            let piece = match k {
                0 | 1 => Piece {
                    black: true,
                    king: false,
                },
                2 => Piece {
                    black: true,
                    king: true,
                },
                3 | 4 => Piece {
                    black: false,
                    king: false,
                },
                5 => Piece {
                    black: false,
                    king: true,
                },
                _ => continue,
            };
            if pieces
                .iter()
                .filter(|(_, p)| p.black == piece.black)
                .count()
                == 12
            {
                continue;
            }
            let on_crown_row = if piece.black { n >= 29 } else { n <= 4 };
            pieces.push((
                n,
                Piece {
                    king: piece.king || on_crown_row,
                    ..piece
                },
            ));
        }
        // The side that made the last move has a piece (the parser refuses a position where
        // it has none): where it has none, it is the side to move instead, a finished game.
        let last_mover_black = !black_to_move;
        let black_to_move = match pieces.iter().any(|(_, p)| p.black == last_mover_black) {
            true => black_to_move,
            false => !black_to_move,
        };
        (pieces, black_to_move)
    })
}

fn fen_of(pieces: &[(u8, Piece)], black: bool) -> String {
    let list = |b: bool| {
        pieces
            .iter()
            .filter(|(_, p)| p.black == b)
            .map(|(n, p)| format!("{}{n}", if p.king { "K" } else { "" }))
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "{}:W{}:B{}",
        if black { "B" } else { "W" },
        list(false),
        list(true)
    )
}

/// The shrunk failure committed beside this file is run again before new cases: the
/// configuration reads the regressions file where it is kept.
#[test]
fn the_committed_regressions_are_read() {
    let config = crate::common::proptest_config(1);
    let persistence = config.failure_persistence.expect("failures are persisted");
    let seeds = persistence.load_persisted_failures2(Some(file!()));
    assert!(
        !seeds.is_empty(),
        "no seed read from {}'s .{} file",
        file!(),
        crate::common::REGRESSIONS
    );
}

proptest! {
    #![proptest_config(crate::common::proptest_config(3000))]

    #[test]
    fn generator_matches_reference((pieces, black) in arb_position()) {
        let pos = parse_fen(&fen_of(&pieces, black)).unwrap();
        prop_assert_eq!(pos.turn() == Color::Black, black);
        let expected = reference_moves(&board_of(&pieces), black);
        prop_assert_eq!(ours(&pos), expected, "position {}", to_fen(&pos));
    }

    #[test]
    fn fen_round_trips((pieces, black) in arb_position()) {
        let pos = parse_fen(&fen_of(&pieces, black)).unwrap();
        prop_assert_eq!(parse_fen(&to_fen(&pos)).unwrap(), pos);
    }

    #[test]
    fn parsers_never_panic(text in "\\PC{0,40}") {
        let _ = parse_fen(&text);
        let _ = checkers_zero::games::checkers::parse_move(&Position::start(), &text);
    }

    #[test]
    fn near_miss_inputs_never_panic(text in "[BWKbwk:,x0-9 .-]{0,40}") {
        let _ = parse_fen(&text);
        let _ = checkers_zero::games::checkers::parse_move(&Position::start(), &text);
    }
}

#[test]
fn king_loop_routes_are_distinct_moves() {
    // A king on 1 can jump 6, 15, 14 ... and come back a different way: routes with the same
    // captured set are separate moves, as perft counts them.
    let pos = parse_fen("B:W6,7,14,15,22,23:BK1").unwrap();
    let expected = reference_moves(
        &board_of(&[
            (
                1,
                Piece {
                    black: true,
                    king: true,
                },
            ),
            (
                6,
                Piece {
                    black: false,
                    king: false,
                },
            ),
            (
                7,
                Piece {
                    black: false,
                    king: false,
                },
            ),
            (
                14,
                Piece {
                    black: false,
                    king: false,
                },
            ),
            (
                15,
                Piece {
                    black: false,
                    king: false,
                },
            ),
            (
                22,
                Piece {
                    black: false,
                    king: false,
                },
            ),
            (
                23,
                Piece {
                    black: false,
                    king: false,
                },
            ),
        ]),
        true,
    );
    assert_eq!(ours(&pos), expected);
}
