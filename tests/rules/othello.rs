//! Othello rules: perft against the published counts, the bitboard move generator against a
//! naive square-by-square one, random playouts, notation round trips, symmetries, and
//! parsers fed random bytes.

use checkers_zero::games::othello::{
    Color, Move, Outcome, Position, Symmetry, move_to_text, parse_move, parse_position, perft,
    to_text,
};
use checkers_zero::games::side::{DrawReason, WinReason};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::time::Instant;

/// Published perft counts from the start, depths 0-9 (a pass is a move; no game ends
/// before ply 9).
const PERFT: [u64; 10] = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288];

#[test]
fn perft_from_the_start_matches_published_counts_to_depth_9() {
    let start = Position::start();
    for depth in 0..=7 {
        assert_eq!(
            perft::perft(&start, depth),
            PERFT[depth as usize],
            "depth {depth}"
        );
    }
    for depth in [8, 9] {
        let t = Instant::now();
        assert_eq!(perft::perft(&start, depth), PERFT[depth as usize]);
        let one = t.elapsed();
        let t = Instant::now();
        assert_eq!(perft::perft_parallel(&start, depth), PERFT[depth as usize]);
        eprintln!(
            "perft {depth}: {one:?} on one thread, {:?} in parallel",
            t.elapsed()
        );
    }
    let div = perft::divide(&start, 7);
    assert_eq!(div.iter().map(|d| d.1).sum::<u64>(), PERFT[7]);
}

/// The naive rules: an 8x8 array, each direction walked square by square.
struct Reference {
    cells: [Option<Color>; 64],
    turn: Color,
}

const STEPS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

impl Reference {
    fn of(pos: &Position) -> Self {
        let mut cells = [None; 64];
        for (sq, cell) in cells.iter_mut().enumerate() {
            *cell = pos.disc_at(sq as u8);
        }
        Reference {
            cells,
            turn: pos.turn(),
        }
    }

    /// The discs `side` flips by playing on (file, rank), walking each direction.
    fn flips(&self, side: Color, file: i32, rank: i32) -> Vec<usize> {
        let mut all = Vec::new();
        if self.cells[(rank * 8 + file) as usize].is_some() {
            return all;
        }
        for (df, dr) in STEPS {
            let (mut f, mut r) = (file + df, rank + dr);
            let mut line = Vec::new();
            while (0..8).contains(&f) && (0..8).contains(&r) {
                match self.cells[(r * 8 + f) as usize] {
                    Some(c) if c == side.opposite() => line.push((r * 8 + f) as usize),
                    Some(_) => {
                        all.extend(&line);
                        break;
                    }
                    None => break,
                }
                f += df;
                r += dr;
            }
        }
        all
    }

    fn squares(&self, side: Color) -> Vec<Move> {
        (0..64)
            .filter(|&sq| !self.flips(side, sq % 8, sq / 8).is_empty())
            .map(|sq| Move::Play(sq as u8))
            .collect()
    }

    fn legal_moves(&self) -> Vec<Move> {
        let mine = self.squares(self.turn);
        if mine.is_empty() && !self.squares(self.turn.opposite()).is_empty() {
            vec![Move::Pass]
        } else {
            mine
        }
    }

    fn apply(&self, mv: Move) -> Position {
        let mut cells = self.cells;
        if let Move::Play(sq) = mv {
            let sq = i32::from(sq);
            for i in self.flips(self.turn, sq % 8, sq / 8) {
                cells[i] = Some(self.turn);
            }
            cells[sq as usize] = Some(self.turn);
        }
        let bits = |color| {
            (0..64)
                .filter(|&i| cells[i] == Some(color))
                .fold(0u64, |b, i| b | 1 << i)
        };
        Position::from_discs(bits(Color::Black), bits(Color::White), self.turn.opposite()).unwrap()
    }
}

/// Every position of `games` random playouts from the start, the final ones included.
fn playout_positions(games: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start();
        loop {
            out.push(pos);
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.apply(moves[rng.random_range(0..moves.len())]);
        }
    }
    out
}

/// Checks the bitboard rules against the reference on one position and all its moves.
fn assert_matches_reference(pos: &Position) {
    let reference = Reference::of(pos);
    let moves = pos.legal_moves();
    assert_eq!(moves, reference.legal_moves(), "{}", to_text(pos));
    let mask = moves.iter().fold(0u64, |m, mv| match mv {
        Move::Play(sq) => m | 1 << sq,
        Move::Pass => m,
    });
    assert_eq!(pos.legal_moves_mask(), mask, "{}", to_text(pos));
    assert_eq!(pos.is_terminal(), moves.is_empty());
    for mv in moves {
        assert!(pos.is_legal(mv));
        assert_eq!(
            pos.apply(mv),
            reference.apply(mv),
            "{} after {mv}",
            to_text(pos)
        );
    }
}

#[test]
fn bitboard_moves_match_the_reference_on_playout_positions() {
    let positions = playout_positions(100, 1);
    assert!(positions.len() > 5000, "{}", positions.len());
    for pos in &positions {
        assert_matches_reference(pos);
    }
}

#[test]
fn playouts_end_in_a_legal_finished_game() {
    let mut rng = StdRng::seed_from_u64(2);
    let mut results = HashMap::new();
    for _ in 0..500 {
        let mut pos = Position::start();
        let mut plies = 0;
        loop {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            let before = pos.count(Color::Black) + pos.count(Color::White);
            let next = pos.apply(mv);
            let after = next.count(Color::Black) + next.count(Color::White);
            assert_eq!(after, before + u32::from(mv != Move::Pass), "{mv}");
            assert_eq!(next.turn(), pos.turn().opposite());
            pos = next;
            plies += 1;
            assert!(plies <= 120, "a game cannot last this long");
        }
        assert!(pos.is_terminal());
        let (b, w) = (pos.count(Color::Black), pos.count(Color::White));
        assert!(b + w <= 64 && plies >= 9, "{b} {w} in {plies}");
        let expected = match b.cmp(&w) {
            std::cmp::Ordering::Greater => Outcome::Win(Color::Black, WinReason::MoreDiscs),
            std::cmp::Ordering::Less => Outcome::Win(Color::White, WinReason::MoreDiscs),
            std::cmp::Ordering::Equal => Outcome::Draw(DrawReason::EqualDiscs),
        };
        assert_eq!(pos.outcome(), Some(expected));
        *results.entry(format!("{expected:?}")).or_insert(0) += 1;
    }
    assert!(
        results.len() >= 2,
        "random games should not all end alike: {results:?}"
    );
}

#[test]
fn text_and_moves_round_trip() {
    for pos in playout_positions(30, 3) {
        let text = to_text(&pos);
        assert_eq!(text.len(), 66);
        assert_eq!(parse_position(&text).unwrap(), pos, "{text}");
        for mv in pos.legal_moves() {
            assert_eq!(parse_move(&pos, &move_to_text(mv)).unwrap(), mv);
            let upper = move_to_text(mv).to_ascii_uppercase();
            assert_eq!(parse_move(&pos, &upper).unwrap(), mv);
        }
    }
}

#[test]
fn symmetries_map_legal_moves_to_legal_moves() {
    let positions = playout_positions(30, 4);
    for pos in &positions {
        let moves = pos.legal_moves();
        for s in Symmetry::ALL {
            let image = s.position(pos);
            let mut mapped: Vec<Move> = moves.iter().map(|&m| s.apply_move(m)).collect();
            mapped.sort_by_key(|m| match m {
                Move::Play(sq) => *sq,
                Move::Pass => 64,
            });
            assert_eq!(image.legal_moves(), mapped, "{s:?} of {}", to_text(pos));
            assert_eq!(image.count(Color::Black), pos.count(Color::Black));
            assert_eq!(s.inverse().position(&image), *pos);
            for &mv in &moves {
                assert_eq!(s.position(&pos.apply(mv)), image.apply(s.apply_move(mv)));
            }
        }
    }
    // A position from the middle of a game keeps its perft count under every symmetry.
    let mid = positions[20];
    let n = perft::perft(&mid, 4);
    for s in Symmetry::ALL {
        assert_eq!(perft::perft(&s.position(&mid), 4), n, "{s:?}");
    }
}

#[test]
fn hashes_tell_distinct_positions_apart() {
    let mut seen: HashMap<u64, Position> = HashMap::new();
    for pos in playout_positions(50, 5) {
        if let Some(other) = seen.insert(pos.hash(), pos) {
            assert_eq!(other, pos, "hash collision");
        }
    }
    assert!(seen.len() > 2000, "{}", seen.len());
}

/// A message a person can read: one line, input echoed only in part.
fn assert_one_line(e: &str) {
    assert!(!e.is_empty() && !e.contains('\n') && e.len() < 300, "{e}");
}

proptest! {
    #![proptest_config(crate::common::proptest_config(2000))]

    /// Arbitrary disc arrangements, not only reachable ones, exercise every edge of the
    /// board, including runs that would wrap from one rank to the next.
    #[test]
    fn bitboard_moves_match_the_reference_on_any_board(
        black in any::<u64>(), white in any::<u64>(), white_to_move in any::<bool>()
    ) {
        let turn = if white_to_move { Color::White } else { Color::Black };
        let pos = Position::from_discs(black & !white, white, turn).unwrap();
        assert_matches_reference(&pos);
    }

    #[test]
    fn parsers_never_panic_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = parse_position(&text) {
            assert_one_line(&e.0);
        }
        if let Err(e) = parse_move(&Position::start(), &text) {
            assert_one_line(&e.0);
        }
    }

    /// Text close to a valid position: the right alphabet, about the right length.
    #[test]
    fn position_parser_on_near_valid_text(
        chars in proptest::collection::vec(prop::sample::select(vec!['X', 'O', '-', ' ', 'x', '\n', 'é']), 60..70)
    ) {
        let text: String = chars.into_iter().collect();
        match parse_position(&text) {
            Ok(pos) => assert_eq!(parse_position(&to_text(&pos)).unwrap(), pos),
            Err(e) => assert_one_line(&e.0),
        }
    }

    #[test]
    fn move_parser_on_any_short_text(text in "[a-jA-J0-9 pasPAS]{0,6}") {
        let start = Position::start();
        match parse_move(&start, &text) {
            Ok(mv) => assert!(start.is_legal(mv)),
            Err(e) => assert_one_line(&e.0),
        }
    }
}

/// Games that are over after exactly each number of plies up to `depth`.
fn finished_by_ply(pos: &Position, ply: usize, depth: usize, out: &mut [u64]) {
    if pos.is_terminal() {
        out[ply] += 1;
    } else if ply < depth {
        for mv in pos.legal_moves() {
            finished_by_ply(&pos.apply(mv), ply + 1, depth, out);
        }
    }
}

/// Past depth 9 the published counts (24,571,284 and 212,258,800) let a finished game go on
/// passing; ours give it no moves. The gap must be exactly one pass per finished game per
/// extra ply, as docs/RESULTS.md explains.
#[test]
fn published_counts_past_depth_9_differ_only_by_passes_of_finished_games() {
    let start = Position::start();
    let mut finished = [0u64; 11];
    finished_by_ply(&start, 0, 10, &mut finished);
    assert_eq!(
        finished[..9].iter().sum::<u64>(),
        0,
        "no game ends before ply 9"
    );
    assert_eq!(24_571_284 - perft::perft_parallel(&start, 10), finished[9]);
    assert_eq!(
        212_258_800 - perft::perft_parallel(&start, 11),
        finished[9] + finished[10]
    );
}
