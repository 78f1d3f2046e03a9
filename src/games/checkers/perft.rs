//! perft: the number of move sequences of a given length, the standard check of a move
//! generator. A multi-jump is one move; different capture routes count separately unless
//! `unique` folds those with the same start, end and captured pieces.

use super::movegen::{count_moves, generate};
use super::moves::{Move, dedup_routes};
use super::position::Position;

/// Per-depth move buffers, so the recursion allocates nothing after warm-up.
struct Buffers(Vec<Vec<Move>>);

impl Buffers {
    fn new(depth: u32) -> Self {
        Buffers((0..=depth).map(|_| Vec::with_capacity(64)).collect())
    }
}

fn moves_of(pos: &Position, unique: bool, out: &mut Vec<Move>) {
    out.clear();
    generate(pos, out);
    if unique {
        dedup_routes(out);
    }
}

fn perft_rec(pos: &Position, depth: u32, unique: bool, bufs: &mut [Vec<Move>]) -> u64 {
    let (mine, rest) = bufs.split_first_mut().expect("one buffer per ply");
    if depth == 1 {
        return count_moves(pos, unique, mine);
    }
    moves_of(pos, unique, mine);
    let mut nodes = 0;
    for mv in mine.iter() {
        nodes += perft_rec(&pos.apply(mv), depth - 1, unique, rest);
    }
    nodes
}

/// perft on one thread.
pub fn perft(pos: &Position, depth: u32, unique: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut bufs = Buffers::new(depth);
    perft_rec(pos, depth, unique, &mut bufs.0)
}

/// The root moves with the perft count below each (`--divide`), computed in parallel on
/// the current rayon pool.
pub fn divide(pos: &Position, depth: u32, unique: bool) -> Vec<(Move, u64)> {
    divide_with(pos, depth, unique, &|_, _| {})
}

/// [`divide`], calling `on_move(done, total)` as each root move's count ends.
pub fn divide_with(
    pos: &Position,
    depth: u32,
    unique: bool,
    on_move: &(dyn Fn(usize, usize) + Sync),
) -> Vec<(Move, u64)> {
    let mut root = Vec::new();
    moves_of(pos, unique, &mut root);
    let below = |mv: &Move| (*mv, perft(&pos.apply(mv), depth.saturating_sub(1), unique));
    crate::games::map_items(&root, below, on_move)
}

/// perft spread over the current rayon pool: the positions two plies down are the work items,
/// enough of them (~50 from the start) to keep every thread busy to the end.
pub fn perft_parallel(pos: &Position, depth: u32, unique: bool) -> u64 {
    perft_parallel_with(pos, depth, unique, &|_, _| {})
}

/// [`perft_parallel`], calling `on_item(done, total)` as each work item ends (a long perft's
/// progress).
pub fn perft_parallel_with(
    pos: &Position,
    depth: u32,
    unique: bool,
    on_item: &(dyn Fn(usize, usize) + Sync),
) -> u64 {
    if depth <= 3 {
        return perft(pos, depth, unique);
    }
    let mut root = Vec::new();
    moves_of(pos, unique, &mut root);
    let mut frontier = Vec::new();
    let mut replies = Vec::new();
    for mv in &root {
        let child = pos.apply(mv);
        moves_of(&child, unique, &mut replies);
        frontier.extend(replies.iter().map(|r| child.apply(r)));
    }
    crate::games::sum_items(&frontier, |p| perft(p, depth - 2, unique), on_item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_counts_from_the_start() {
        let start = Position::start();
        let expected = [1u64, 7, 49, 302, 1469, 7361];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&start, d as u32, false), n, "depth {d}");
        }
        assert_eq!(perft_parallel(&start, 5, false), 7361);
        // Progress: every work item (positions two plies down) reported once, the last as
        // `total` of `total`.
        let seen = std::sync::Mutex::new(Vec::new());
        let nodes = perft_parallel_with(&start, 5, false, &|done, total| {
            seen.lock().unwrap().push((done, total));
        });
        assert_eq!(nodes, 7361);
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let expected: Vec<_> = (1..=49).map(|d| (d, 49)).collect();
        assert_eq!(seen, expected);
        let div = divide(&start, 3, false);
        assert_eq!(div.len(), 7);
        assert_eq!(div.iter().map(|d| d.1).sum::<u64>(), 302);
    }
}
