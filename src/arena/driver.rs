//! Plays one game between two agents.

use crate::agents::{Agent, Limits};
use crate::endgame::EndgameGame;
use crate::games::{Color, Game};

/// How a driver runs a game. Real play has no cap; training and mass matches may cap the
/// length and adjudicate (`Rules::adjudicate`: checkers' more pieces, then more kings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameConfig {
    /// Stop after this many plies (opening moves included) and adjudicate.
    pub max_plies: Option<usize>,
    /// End a game at a position the game's perfect endgames know (checkers' default
    /// databases, when present) with its exact result.
    pub exact_endings: bool,
}

/// Plays `game` to its end, `black` and `white` moving in turn.
pub fn play_game<G: EndgameGame>(
    black: &mut dyn Agent<G>,
    white: &mut dyn Agent<G>,
    mut game: Game<G>,
    config: GameConfig,
) -> Game<G> {
    black.new_game();
    white.new_game();
    let oracle = config.exact_endings.then(G::default_oracle).flatten();
    while game.outcome().is_none() {
        if let Some(proven) = oracle.as_ref().and_then(|o| G::proven_outcome(o, &game)) {
            game.impose(proven);
            break;
        }
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
