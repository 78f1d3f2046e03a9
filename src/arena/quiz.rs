//! The endgame quiz: an agent's moves in random database positions, judged by the databases.
//! A fine-grained measure of playing accuracy where match scores are coarse.

use crate::agents::{AgentError, AgentSpec, Limits};
use crate::endgame::Value;
use crate::endgame::egdb::{Endgames, random_position};
use crate::games::checkers::{Position, dedup_routes_of, legal_moves};
use crate::games::{Checkers, Game};
use crate::seeds::derive_seed;
use rand::SeedableRng;
use rayon::prelude::*;

/// One piece count's results.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct QuizRow {
    pub pieces: u32,
    pub positions: u64,
    /// The agent's move kept the position's value.
    pub kept: u64,
    /// The position was won and the move drew or lost it.
    pub threw_win: u64,
    /// The position was drawn and the move lost it.
    pub lost_draw: u64,
}

/// Whether a position tests a player: a choice of moves and at least one that changes its
/// value (where every move keeps it, any move is right).
pub fn is_question(db: &Endgames, pos: &Position) -> bool {
    let Some(root) = db.probe(pos) else {
        return false;
    };
    let moves = dedup_routes_of(legal_moves(pos));
    moves.len() >= 2
        && moves.iter().any(|m| {
            db.probe(&pos.apply(m))
                .is_some_and(|c| c.value.flipped() != root.value)
        })
}

/// `positions` random questions per piece count in `pieces`, drawn from `seed`, each
/// answered by a fresh agent of `spec`; the same positions for any agent and thread count.
pub fn quiz(
    spec: &AgentSpec,
    db: &Endgames,
    pieces: std::ops::RangeInclusive<u32>,
    positions: usize,
    seed: u64,
    on_done: &(dyn Fn() + Sync),
) -> Result<Vec<QuizRow>, AgentError> {
    spec.build::<Checkers>(seed)?;
    let mut rows = Vec::new();
    for n in pieces {
        let mut rng = rand::rngs::StdRng::seed_from_u64(derive_seed(seed, n as u64, 9));
        let mut questions = Vec::with_capacity(positions);
        let mut tries = 0usize;
        while questions.len() < positions && tries < positions * 1000 {
            tries += 1;
            let pos = random_position(n, &mut rng);
            if is_question(db, &pos) {
                questions.push(pos);
            }
        }
        let answers: Vec<Result<(Value, Value), AgentError>> = questions
            .par_iter()
            .enumerate()
            .map(|(i, pos)| {
                let mut agent = spec.build::<Checkers>(derive_seed(seed, i as u64, n as u64))?;
                let game = Game::<Checkers>::from_position(*pos);
                let mv = agent.select(&game, &Limits::default()).mv;
                let root = db.probe(pos).expect("a question is in the databases").value;
                let after = db
                    .probe(&pos.apply(&mv))
                    .expect("fewer pieces after a move");
                on_done();
                Ok((root, after.value.flipped()))
            })
            .collect();
        let mut row = QuizRow {
            pieces: n,
            ..QuizRow::default()
        };
        for answer in answers {
            let (root, played) = answer?;
            row.positions += 1;
            match (root, played) {
                (r, p) if r == p => row.kept += 1,
                (Value::Win, _) => row.threw_win += 1,
                (Value::Draw, Value::Loss) => row.lost_draw += 1,
                _ => unreachable!("no move improves on a position's value"),
            }
        }
        rows.push(row);
    }
    Ok(rows)
}
