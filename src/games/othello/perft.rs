//! perft: the number of move sequences of a given length, the standard check of a move
//! generator.
//!
//! Convention: a pass is a move (one ply), and a finished game is a leaf with no moves, so
//! `perft(p, 0) == 1` for every position and `perft(p, d) == 0` for a finished `p` and
//! `d > 0`. This gives the published counts from the start (1, 4, 12, 56, 244, ...).

use super::board::Squares;
use super::moves::Move;
use super::position::Position;

/// perft on one thread. The last ply is counted from the move mask without playing it.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mask = pos.legal_moves_mask();
    if mask == 0 {
        if pos.opponent_moves_mask() == 0 {
            return 0;
        }
        return perft(&pos.apply(Move::Pass), depth - 1);
    }
    if depth == 1 {
        return u64::from(mask.count_ones());
    }
    Squares(mask)
        .map(|sq| perft(&pos.apply(Move::Play(sq)), depth - 1))
        .sum()
}

/// The root moves with the perft count below each, computed in parallel on the current
/// rayon pool.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    divide_with(pos, depth, &|_, _| {})
}

/// [`divide`], calling `on_move(done, total)` as each root move's count ends.
pub fn divide_with(
    pos: &Position,
    depth: u32,
    on_move: &(dyn Fn(usize, usize) + Sync),
) -> Vec<(Move, u64)> {
    let below = |&mv: &Move| (mv, perft(&pos.apply(mv), depth.saturating_sub(1)));
    crate::games::map_items(&pos.legal_moves(), below, on_move)
}

/// perft spread over the current rayon pool: the positions three plies down are the work
/// items (56 from the start; Othello's early branching is small, so two plies would leave
/// only 12).
pub fn perft_parallel(pos: &Position, depth: u32) -> u64 {
    perft_parallel_with(pos, depth, &|_, _| {})
}

/// [`perft_parallel`], calling `on_item(done, total)` as each work item ends (a long perft's
/// progress).
pub fn perft_parallel_with(
    pos: &Position,
    depth: u32,
    on_item: &(dyn Fn(usize, usize) + Sync),
) -> u64 {
    const SPLIT: u32 = 3;
    if depth <= SPLIT + 1 {
        return perft(pos, depth);
    }
    let mut frontier = vec![*pos];
    for _ in 0..SPLIT {
        frontier = frontier
            .iter()
            .flat_map(|p| p.legal_moves().into_iter().map(|mv| p.apply(mv)))
            .collect();
    }
    crate::games::sum_items(&frontier, |p| perft(p, depth - SPLIT), on_item)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::othello::Color;

    #[test]
    fn shallow_counts_from_the_start() {
        let start = Position::start();
        for (d, n) in [1u64, 4, 12, 56, 244, 1396].into_iter().enumerate() {
            assert_eq!(perft(&start, d as u32), n, "depth {d}");
        }
        assert_eq!(perft_parallel(&start, 6), 8200);
        let div = divide(&start, 4);
        assert_eq!(div.len(), 4);
        assert!(
            div.iter().all(|&(_, n)| n == 61),
            "the 4 openings are symmetric"
        );
    }

    #[test]
    fn passes_count_and_finished_games_are_empty_leaves() {
        // White must pass, Black then plays c1 and the game is over.
        let p = Position::from_discs(1, 2, Color::White).unwrap();
        assert_eq!([0, 1, 2, 3].map(|d| perft(&p, d)), [1, 1, 1, 0]);
    }
}
