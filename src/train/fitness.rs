//! Games between networks of a population (GA) or swarm (PSO): each game is independent, so
//! a generation's games run in parallel on the rayon pool; results depend only on the seeds.

use crate::agents::learned::NetAgent;
use crate::arena::openings::ArenaGame;
use crate::arena::{GameConfig, OpeningSet, play_game};
use crate::games::Checkers;
use crate::games::checkers::{Color, Game, Outcome, WinReason};
use crate::net::value_net::{ValueArch, ValueNet};
use crate::seeds::derive_seed;
use rayon::prelude::*;

/// A player: an architecture (its king value included) and flat weights.
#[derive(Clone, Debug)]
pub struct Player {
    pub arch: ValueArch,
    pub weights: Vec<f32>,
}

impl Player {
    pub fn agent(&self, depth: u32, seed: u64) -> NetAgent<Checkers, ValueNet> {
        let net = ValueNet::from_weights(self.arch.clone(), &self.weights);
        NetAgent::new(
            net,
            depth,
            seed,
            format!("{}-player", self.arch.learner.kind()),
        )
    }
}

/// One game to play: indices into the players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub black: usize,
    pub white: usize,
}

/// How the games of a generation are played.
#[derive(Clone, Copy, Debug)]
pub struct Arena {
    /// Search depth of both players.
    pub depth: u32,
    /// Games reaching this many plies are draws (as in the studies: no adjudication).
    pub max_plies: usize,
    pub openings: OpeningSet,
}

/// Points for a win, a draw and a loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Points {
    pub win: f64,
    pub draw: f64,
    pub loss: f64,
}

/// The winner of a fitness game: a game stopped by the length cap counts as a draw.
pub fn winner(game: &Game) -> Option<Color> {
    match game.outcome() {
        Some(Outcome::Win(c, WinReason::NoMoves | WinReason::Resignation | WinReason::Proven)) => {
            Some(c)
        }
        _ => None,
    }
}

/// Plays every pairing (in parallel) and returns each game's winner; `seed` and the pairing's
/// index decide the opening and the players' tie-breaks.
pub fn play(
    players: &[Player],
    pairings: &[Pairing],
    arena: Arena,
    seed: u64,
) -> Vec<Option<Color>> {
    let starts = Checkers::starting_games(arena.openings);
    pairings
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let s = derive_seed(seed, i as u64, 0);
            let start = starts[(s % starts.len() as u64) as usize].1.clone();
            let mut black = players[p.black].agent(arena.depth, derive_seed(s, 1, 0));
            let mut white = players[p.white].agent(arena.depth, derive_seed(s, 2, 0));
            let config = GameConfig {
                max_plies: Some(arena.max_plies),
                exact_endings: false,
            };
            winner(&play_game(&mut black, &mut white, start, config))
        })
        .collect()
}

/// Each player's points over the games (both players of a game score).
pub fn scores(
    players: usize,
    pairings: &[Pairing],
    winners: &[Option<Color>],
    points: Points,
) -> Vec<f64> {
    let mut out = vec![0.0; players];
    for (p, w) in pairings.iter().zip(winners) {
        let (b, wh) = match w {
            Some(Color::Black) => (points.win, points.loss),
            Some(Color::White) => (points.loss, points.win),
            None => (points.draw, points.draw),
        };
        out[p.black] += b;
        out[p.white] += wh;
    }
    out
}

/// Mean score (win 1, draw 1/2) of player `a` against `b` over `games` games, colours
/// alternating (a has Black first).
pub fn head_to_head(a: &Player, b: &Player, games: usize, arena: Arena, seed: u64) -> f64 {
    let players = [a.clone(), b.clone()];
    let pairings: Vec<Pairing> = (0..games)
        .map(|g| {
            if g % 2 == 0 {
                Pairing { black: 0, white: 1 }
            } else {
                Pairing { black: 1, white: 0 }
            }
        })
        .collect();
    let points = Points {
        win: 1.0,
        draw: 0.5,
        loss: 0.0,
    };
    scores(
        2,
        &pairings,
        &play(&players, &pairings, arena, seed),
        points,
    )[0] / games.max(1) as f64
}
