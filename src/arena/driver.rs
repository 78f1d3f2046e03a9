//! Plays one game between two agents.

use crate::agents::{Agent, Limits};
use crate::games::{Color, Game, Rules};

/// How a driver runs a game. Real play has no cap; training and mass matches may cap the
/// length and adjudicate (`Rules::adjudicate`: checkers' more pieces, then more kings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameConfig {
    /// Stop after this many plies (opening moves included) and adjudicate.
    pub max_plies: Option<usize>,
}

/// Plays `game` to its end, `black` and `white` moving in turn.
pub fn play_game<G: Rules>(
    black: &mut dyn Agent<G>,
    white: &mut dyn Agent<G>,
    mut game: Game<G>,
    config: GameConfig,
) -> Game<G> {
    black.new_game();
    white.new_game();
    while game.outcome().is_none() {
        if config.max_plies.is_some_and(|cap| game.ply() >= cap) {
            game.impose(G::adjudicate(game.position()));
            break;
        }
        let agent: &mut dyn Agent<G> = match game.turn() {
            Color::Black => &mut *black,
            Color::White => &mut *white,
        };
        let decision = agent.select(&game, &Limits::default());
        game.play(decision.mv);
    }
    game
}
