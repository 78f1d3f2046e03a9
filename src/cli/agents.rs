//! `agents`: every agent kind of a game with its options, from their declarations.

use checkers_zero::agents::AgentGame;
use checkers_zero::games::GameName;
use checkers_zero::games::on_game;

#[derive(clap::Args)]
pub struct AgentsArgs {
    /// The game.
    #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Checkers)]
    game: GameName,
}

pub fn run(args: AgentsArgs) -> anyhow::Result<()> {
    print!("{}", on_game!(args.game, G => listing::<G>()));
    Ok(())
}

/// One paragraph per kind: `kind: summary`, then its options one a line.
fn listing<G: AgentGame>() -> String {
    let mut text = String::from(
        "Agent specs are kind[:key=value,...], e.g. alphabeta:depth=8 or az:time=1000.\n",
    );
    for kind in G::kinds() {
        text += &format!("\n{}: {}\n", kind.kind, kind.summary);
        if kind.options.is_empty() {
            text += "  (no options)\n";
        }
        for option in kind.options {
            text += &format!("  {}\n", option.help_item());
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkers_zero::games::{Checkers, Othello};

    /// The listing is made from the declarations: every kind and option is in it.
    #[test]
    fn every_kind_and_option_is_listed() {
        let text = listing::<Checkers>();
        for kind in Checkers::kinds() {
            assert!(text.contains(&format!("\n{}: ", kind.kind)), "{text}");
            for option in kind.options {
                assert!(text.contains(&option.help_item()), "{}", option.key);
            }
        }
        assert!(!listing::<Othello>().contains("\nga: "));
    }
}
