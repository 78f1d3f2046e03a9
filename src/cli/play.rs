//! `play` in the terminal and `engine`, the line protocol.

use super::{parse_spec, start_position};
use anyhow::Result;
use checkers_zero::engine;
use checkers_zero::games::{Color, GameName, on_game};
use checkers_zero::play::PlayGame;
use clap::ValueEnum;

#[derive(Clone, Copy, ValueEnum)]
enum Side {
    Black,
    White,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    /// The opponent, any agent spec: `random`, `alphabeta:depth=8`, `alphabeta:time=2000`,
    /// `mcts:searches=1000`, `az` (the built-in trained network), `az:model=PATH`,
    /// `td:model=PATH`, `ga:model=PATH`, `pso:model=PATH` (`checkers-zero agents` lists
    /// every kind and option).
    #[arg(long, default_value = "alphabeta:depth=6")]
    pub(super) agent: String,
    /// Your colour (Black moves first).
    #[arg(long, value_enum, default_value_t = Side::Black)]
    color: Side,
    /// The game.
    #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Checkers)]
    pub(super) game: GameName,
    /// Start from this position (checkers: a PDN FEN; othello: 64 squares of X, O and -
    /// from a1 to h8, then the side to move).
    #[arg(long)]
    pub(super) fen: Option<String>,
    /// Seed of the agent's random choices (tie-breaks, sampling).
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
}

pub fn run(args: PlayArgs) -> Result<()> {
    on_game!(args.game, G => play_for::<G>(args))
}

fn play_for<G: PlayGame>(args: PlayArgs) -> Result<()> {
    let opts = checkers_zero::play::PlayOptions::<G> {
        agent: parse_spec::<G>(&args.agent)?,
        human: match args.color {
            Side::Black => Color::Black,
            Side::White => Color::White,
        },
        start: start_position::<G>(args.fen.as_deref())?,
        seed: args.seed,
    };
    checkers_zero::play::run(&opts, std::io::stdin().lock(), std::io::stdout())?;
    Ok(())
}

pub fn engine(game: GameName) -> Result<()> {
    // The engine reads on a thread of its own, which the stdin lock cannot move to.
    let stdin = std::io::BufReader::new(std::io::stdin());
    on_game!(game, G => engine::run::<G>(stdin, std::io::stdout()))?;
    Ok(())
}
