//! Where self-play games start: the start position, or for a share of them a position from
//! games played elsewhere (a match's lost games), with the moves that led there, so that the
//! network learns from positions its own play would rarely reach (KataGo starts some of its
//! games from positions outside self-play for the same reason).

use crate::games::{Game, Rules};
use crate::seeds::derive_seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Games whose positions self-play may start from, and the share of games that do.
#[derive(Clone, Debug)]
pub struct Starts<G: Rules> {
    games: Vec<Game<G>>,
    share: f64,
}

impl<G: Rules> Default for Starts<G> {
    /// Every game from the start position.
    fn default() -> Self {
        Starts {
            games: Vec::new(),
            share: 0.0,
        }
    }
}

impl<G: Rules> Starts<G> {
    /// A `share` (0 to 1) of games starts at a position drawn uniformly from those that
    /// `games` passed through before each of their moves.
    pub fn new(games: Vec<Game<G>>, share: f64) -> Self {
        Starts { games, share }
    }

    /// Positions in all: each game's before each of its moves.
    pub fn positions(&self) -> usize {
        self.games.iter().map(Game::ply).sum()
    }

    /// Game `index`'s beginning: drawn from `seed` and `index` alone, so that a game is the
    /// same whichever worker plays it.
    pub fn game(&self, seed: u64, index: u64) -> Game<G> {
        let mut rng = StdRng::seed_from_u64(derive_seed(seed, index, 1));
        let positions = self.positions();
        if positions == 0 || !rng.random_bool(self.share) {
            return Game::at_start();
        }
        let mut at = rng.random_range(0..positions);
        for game in &self.games {
            if at < game.ply() {
                let mut start = game.clone();
                while start.ply() > at {
                    start.undo();
                }
                return start;
            }
            at -= game.ply();
        }
        unreachable!("a position below the count lies in some game")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Checkers;

    /// About the share of games begins inside the given games, each at one of their
    /// positions with the moves that led there; the rest at the start.
    #[test]
    fn a_share_of_games_starts_from_the_given_games_positions() {
        let mut game = Game::<Checkers>::at_start();
        for _ in 0..10 {
            game.play(game.legal_moves()[0]);
        }
        let starts = Starts::new(vec![game.clone()], 0.5);
        assert_eq!(starts.positions(), 10);
        let mut inside = 0;
        let mut plies = std::collections::HashSet::new();
        for index in 0..400 {
            let start = starts.game(7, index);
            assert_eq!(start.moves(), &game.moves()[..start.ply()]);
            if start.ply() > 0 {
                inside += 1;
                plies.insert(start.ply());
            }
        }
        // Ply 0 is also one of the ten positions: about 0.5 * 0.9 of games start later.
        assert!((140..220).contains(&inside), "{inside} of 400");
        assert_eq!(plies.len(), 9, "{plies:?}");
        let none = Starts::<Checkers>::default();
        assert!((0..50).all(|i| none.game(7, i).ply() == 0));
    }
}
