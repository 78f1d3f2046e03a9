//! The openings matches start from: for checkers the ACF three-move ballots, embedded so the
//! binary needs no outside file; for Othello every position after four plies, up to the
//! board's symmetries.

use crate::endgame::EndgameGame;
use crate::games::checkers::{self, Checkers};
use crate::games::othello::Othello;
use crate::games::{Game, Rules};
use std::collections::HashSet;
use std::sync::OnceLock;

/// A game a match can be played in: where its games start.
pub trait ArenaGame: EndgameGame {
    /// The games a match starts from, each with a label: one per opening (the start
    /// position alone for [`OpeningSet::None`]).
    fn starting_games(set: OpeningSet) -> Vec<(String, Game<Self>)>;
}

impl ArenaGame for Checkers {
    fn starting_games(set: OpeningSet) -> Vec<(String, Game)> {
        match set {
            OpeningSet::None => vec![("start position".to_string(), Game::new())],
            _ => ballots()
                .into_iter()
                .filter(|b| set == OpeningSet::All || b.standard)
                .map(|b| (b.label(), b.game()))
                .collect(),
        }
    }
}

/// Plies of Othello's openings: after four, the 244 move sequences reach a few dozen
/// positions that no symmetry of the board maps onto each other.
const OTHELLO_OPENING_PLIES: usize = 4;

impl ArenaGame for Othello {
    /// `Standard` and `All` are the same set here: the positions after four plies, one per
    /// class of symmetric positions (the first sequence reaching it, in move order).
    fn starting_games(set: OpeningSet) -> Vec<(String, Game<Othello>)> {
        if set == OpeningSet::None {
            return vec![("start position".to_string(), Game::at_start())];
        }
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut stack = vec![Game::<Othello>::at_start()];
        while let Some(game) = stack.pop() {
            if game.ply() == OTHELLO_OPENING_PLIES {
                let canonical = Othello::SYMMETRIES
                    .iter()
                    .map(|&s| Othello::hash(&Othello::transform_state(s, game.position())))
                    .min()
                    .expect("the identity at least");
                if seen.insert(canonical) {
                    out.push((format!("opening {}", game.movetext()), game));
                }
                continue;
            }
            // Reversed so the stack pops the moves in generation order.
            for mv in game.legal_moves().into_iter().rev() {
                let mut next = game.clone();
                next.play(mv);
                stack.push(next);
            }
        }
        out
    }
}

const BALLOTS_TSV: &str = include_str!("../../data/three_move_ballots.tsv");

crate::names::named_enum! {
    /// Which openings a match starts from.
    pub enum OpeningSet {
        /// The 157 standard ballots (those not known to be lost).
        Standard = "standard",
        /// All 174 ballots, the 17 lost for one side included.
        All = "all",
        /// The starting position only.
        None = "none",
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub id: String,
    /// The three moves in PDN.
    pub moves: Vec<String>,
    /// False for the ballots known to be lost for one side.
    pub standard: bool,
    /// PDN FEN after the three moves.
    pub fen: String,
}

impl Opening {
    /// The game after the opening moves, played from the start position.
    pub fn game(&self) -> Game {
        let mut game = Game::new();
        for mv in &self.moves {
            game.play_text(mv)
                .unwrap_or_else(|e| panic!("embedded ballot {}: {e}", self.id));
        }
        game
    }

    pub fn label(&self) -> String {
        format!("ballot {}: {}", self.id, self.moves.join(" "))
    }

    /// The ballot's name in checkers literature, if its moves begin a named opening
    /// ([`opening_name`]).
    pub fn name(&self) -> Option<&'static str> {
        opening_name(self.game().moves())
    }
}

const NAMES_TSV: &str = include_str!("../../data/opening_names.tsv");

/// A named opening: the moves that form it, from the start position.
struct NamedOpening {
    moves: Vec<checkers::Move>,
    name: String,
}

/// The table of data/opening_names.tsv, played out once: its moves are checked by a test, so
/// a row that is not a legal line is a fault of the build, not of any input.
fn named_openings() -> &'static [NamedOpening] {
    static TABLE: OnceLock<Vec<NamedOpening>> = OnceLock::new();
    TABLE.get_or_init(|| {
        NAMES_TSV
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("moves\t") && !l.trim().is_empty())
            .map(|line| {
                let cols: Vec<&str> = line.split('\t').collect();
                assert_eq!(cols.len(), 3, "embedded opening names row {line:?}");
                let mut game = Game::new();
                for mv in cols[0].split_whitespace() {
                    game.play_text(mv)
                        .unwrap_or_else(|e| panic!("embedded opening {:?}: {e}", cols[1]));
                }
                NamedOpening {
                    moves: game.moves().to_vec(),
                    name: cols[1].to_string(),
                }
            })
            .collect()
    })
}

/// The name of the opening that checkers games beginning with `moves` (played from the start
/// position) are in: the longest named sequence `moves` begins with. A named sequence longer
/// than `moves` does not name them (they may still turn into another).
pub fn opening_name(moves: &[checkers::Move]) -> Option<&'static str> {
    named_openings()
        .iter()
        .filter(|o| moves.starts_with(&o.moves))
        .max_by_key(|o| o.moves.len())
        .map(|o| o.name.as_str())
}

/// Every ballot in the embedded table, in table order.
pub fn ballots() -> Vec<Opening> {
    BALLOTS_TSV
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("id\t") && !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 4, "embedded ballot table row {line:?}");
            Opening {
                id: cols[0].to_string(),
                moves: cols[1]
                    .split_whitespace()
                    .map(strip_leading_zeros)
                    .collect(),
                standard: cols[2] == "standard",
                fen: cols[3].to_string(),
            }
        })
        .collect()
}

/// `05-09` -> `5-9`: the table pads square numbers; PDN does not.
fn strip_leading_zeros(mv: &str) -> String {
    let squares: Vec<&str> = mv.split('-').map(|sq| sq.trim_start_matches('0')).collect();
    squares.join("-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::{parse_fen, to_fen};

    /// Checks an opening's moves lead to its recorded position.
    pub fn verify(opening: &Opening) -> Result<(), String> {
        let played = opening.game();
        let recorded =
            parse_fen(&opening.fen).map_err(|e| format!("ballot {}: {e}", opening.id))?;
        if *played.position() == recorded {
            Ok(())
        } else {
            Err(format!(
                "ballot {}: moves give {} but the table says {}",
                opening.id,
                to_fen(played.position()),
                opening.fen
            ))
        }
    }

    /// Every named line is legal (the table loads), no two rows name the same moves, and
    /// the longest named prefix names a game: a ballot inside a longer named line keeps the
    /// shorter line's name.
    #[test]
    fn opening_names_name_the_longest_line_a_game_begins_with() {
        let table = named_openings();
        assert!(!table.is_empty());
        for (i, a) in table.iter().enumerate() {
            assert!(
                table[i + 1..].iter().all(|b| b.moves != a.moves),
                "{} is named twice",
                a.name
            );
            assert_eq!(opening_name(&a.moves), Some(a.name.as_str()));
            let mut longer = a.moves.clone();
            let mut game = Game::new();
            for mv in &a.moves {
                game.play(*mv);
            }
            if let Some(&next) = game.legal_moves().first() {
                longer.push(next);
                let named = opening_name(&longer).unwrap();
                assert!(
                    named == a.name
                        || table
                            .iter()
                            .any(|o| o.name == named && o.moves.len() > a.moves.len()),
                    "{longer:?} is named {named}"
                );
            }
        }
        assert_eq!(opening_name(&[]), None);
        let named = ballots().iter().filter(|b| b.name().is_some()).count();
        assert!(named > 0, "some ballot begins a named line");
    }

    #[test]
    fn all_174_ballots_reach_their_recorded_positions() {
        let all = ballots();
        assert_eq!(all.len(), 174);
        assert_eq!(all.iter().filter(|b| b.standard).count(), 157);
        for b in &all {
            verify(b).unwrap();
        }
    }
}
