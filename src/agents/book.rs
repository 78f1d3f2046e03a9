//! Opening books: positions a long search has settled, each with the move it chose there,
//! which `az` plays at once instead of searching (`az:book=FILE`). A book holds every
//! position of a deep search's tree whose node gathered at least a set number of
//! simulations, so each move in it was chosen by more search than play can afford a move.
//! `checkers-zero book` grows one over a game's openings (src/arena/book.rs).
//!
//! A book is text, one position a line (`position<TAB>move<TAB>visits<TAB>value`, in the
//! game's own notations), under a header naming the game and a line for each position a
//! search started from (`# searched<TAB>position`): it reads and diffs as what it is.

use super::AgentError;
use crate::files::file_error;
use crate::games::Rules;
use crate::mcts::{NodeId, ROOT, Tree};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The first line of every book: the game's name follows it.
const HEADER: &str = "# checkers-zero opening book, game ";
/// Begins the line of each position a search started from.
const SEARCHED: &str = "# searched\t";

/// The move a book gives for a position, and how well it was searched.
#[derive(Clone, Debug, PartialEq)]
pub struct BookMove<G: Rules> {
    pub mv: G::Move,
    /// Simulations the position's node gathered.
    pub visits: u32,
    /// The search's value of `mv` for the side to move (-1 lost to 1 won).
    pub value: f32,
}

/// Positions and their moves.
#[derive(Clone, Debug)]
pub struct Book<G: Rules> {
    entries: HashMap<G::Position, BookMove<G>>,
    /// The positions searches started from (a build resumes past them).
    roots: HashSet<G::Position>,
}

impl<G: Rules> Default for Book<G> {
    fn default() -> Self {
        Book {
            entries: HashMap::new(),
            roots: HashSet::new(),
        }
    }
}

impl<G: Rules> Book<G> {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book's move in `pos`, if it has one.
    pub fn get(&self, pos: &G::Position) -> Option<&BookMove<G>> {
        self.entries.get(pos)
    }

    /// Adds `pos`'s move; where the book has the position already (a transposition, or
    /// another opening's search), the better searched of the two stays.
    pub fn insert(&mut self, pos: G::Position, entry: BookMove<G>) {
        let kept = self
            .entries
            .get(&pos)
            .is_some_and(|e| e.visits >= entry.visits);
        if !kept {
            self.entries.insert(pos, entry);
        }
    }

    /// Whether a search of the book started from `pos`.
    pub fn searched(&self, pos: &G::Position) -> bool {
        self.roots.contains(pos)
    }

    /// Records that a search started from `pos`.
    pub fn mark_searched(&mut self, pos: G::Position) {
        self.roots.insert(pos);
    }

    /// Adds `other`'s positions and searches.
    pub fn merge(&mut self, other: Book<G>) {
        self.roots.extend(other.roots);
        for (pos, entry) in other.entries {
            self.insert(pos, entry);
        }
    }

    /// Adds every position of `tree` whose node holds at least `min_visits` simulations,
    /// with its most visited move, walking down from the root through such nodes only
    /// (the root must be a turn start). Returns how many positions it found.
    pub fn add_tree(&mut self, tree: &Tree<G>, min_visits: u32) -> usize {
        let mut found = 0;
        let mut open: Vec<NodeId> = vec![ROOT];
        while let Some(id) = open.pop() {
            let node = tree.node(id);
            let Some(pos) = G::position(&node.state).filter(|_| node.visits >= min_visits) else {
                continue;
            };
            let stats = tree.move_stats_at(id);
            // Most visited first, ties to the higher prior: the choice play makes.
            let Some(best) = stats.first().filter(|s| s.visits > 0) else {
                continue;
            };
            self.insert(
                pos,
                BookMove {
                    mv: best.mv,
                    visits: node.visits,
                    value: best.q.unwrap_or(0.0),
                },
            );
            found += 1;
            open.extend(stats.iter().filter_map(|s| s.node));
        }
        found
    }

    /// The book as its file holds it: the header, then the positions in the order of their
    /// text.
    pub fn to_text(&self) -> String {
        let mut lines: Vec<String> = (self.entries.iter())
            .map(|(pos, e)| {
                format!(
                    "{}\t{}\t{}\t{:.4}",
                    G::format_position(pos),
                    G::format_move(&e.mv),
                    e.visits,
                    e.value
                )
            })
            .collect();
        lines.sort();
        let mut roots: Vec<String> = self.roots.iter().map(G::format_position).collect();
        roots.sort();
        let mut text = format!("{HEADER}{}\n", G::NAME.name());
        for root in roots {
            text += &format!("{SEARCHED}{root}\n");
        }
        for line in lines {
            text += &line;
            text.push('\n');
        }
        text
    }

    /// Reads a book's text; the error names the line and what it expected.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        let Some(game) = header.strip_prefix(HEADER) else {
            return Err(format!(
                "line 1: expected the header {HEADER:?} and a game's name"
            ));
        };
        if game.trim() != G::NAME.name() {
            return Err(format!(
                "line 1: a book of {}, not {}",
                game.trim(),
                G::NAME.name()
            ));
        }
        let mut book = Book::default();
        for (i, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let at = |what: String| format!("line {}: {what}", i + 2);
            if let Some(root) = line.strip_prefix(SEARCHED) {
                let pos = G::parse_position(root).map_err(|e| at(e.to_string()))?;
                book.mark_searched(pos);
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let [pos, mv, visits, value] = fields[..] else {
                return Err(at(format!(
                    "expected position, move, visits and value separated by tabs, found {} \
                     fields",
                    fields.len()
                )));
            };
            let pos = G::parse_position(pos).map_err(|e| at(e.to_string()))?;
            let mv = G::parse_move(&pos, mv).map_err(|e| at(e.to_string()))?;
            let visits = visits
                .parse()
                .map_err(|_| at(format!("visits {visits:?}: expected a whole number")))?;
            let value: f32 = value
                .parse()
                .ok()
                .filter(|v: &f32| (-1.0..=1.0).contains(v))
                .ok_or_else(|| at(format!("value {value:?}: expected a number from -1 to 1")))?;
            book.insert(pos, BookMove { mv, visits, value });
        }
        Ok(book)
    }

    /// Reads the book file at `path`.
    pub fn load(path: &Path) -> Result<Self, AgentError> {
        let text = std::fs::read_to_string(path)
            .map_err(file_error("read the book", path))
            .map_err(|e| AgentError::Invalid(e.to_string()))?;
        Book::parse(&text).map_err(|e| AgentError::Invalid(format!("book {}: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::Checkers;
    use crate::games::{Game, Rules};
    use crate::mcts::puct::TEST_PUCT;
    use crate::mcts::{MaterialEvaluator, Puct};

    fn searched_tree(simulations: u64) -> Tree<Checkers> {
        let game = Game::<Checkers>::new();
        let mut search = Puct::new(TEST_PUCT, &game);
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(1);
        let mut eval = MaterialEvaluator::default();
        search.run_while(&mut eval, simulations, &mut rng, |_, _| true);
        search.tree().clone()
    }

    /// Every position a book takes from a tree had its node searched at least as much as
    /// asked, holds the most visited move there, and the walk reaches below the root.
    #[test]
    fn a_tree_gives_its_well_searched_positions_and_their_most_visited_moves() {
        let tree = searched_tree(3000);
        let mut book = Book::<Checkers>::default();
        let found = book.add_tree(&tree, 200);
        assert!(found > 1, "only the root: {found}");
        assert_eq!(book.len(), found);
        let start = Checkers::start();
        let root = book.get(&start).expect("the root is in the book");
        assert_eq!(root.visits, tree.root().visits);
        assert_eq!(root.mv, tree.move_stats()[0].mv);
        for (pos, entry) in &book.entries {
            assert!(entry.visits >= 200, "{entry:?}");
            assert!(Checkers::legal_moves(pos).contains(&entry.mv));
        }
        // A higher bar keeps fewer positions; one above the root's visits none.
        assert!(Book::<Checkers>::default().add_tree(&tree, 1000) < found);
        assert_eq!(Book::<Checkers>::default().add_tree(&tree, 3001), 0);
    }

    #[test]
    fn a_book_reads_back_what_it_wrote() {
        let mut book = Book::<Checkers>::default();
        book.add_tree(&searched_tree(1000), 100);
        book.mark_searched(Checkers::start());
        let again = Book::<Checkers>::parse(&book.to_text()).expect("its own text");
        assert_eq!(again.len(), book.len());
        assert_eq!(again.roots, book.roots);
        for (pos, entry) in &book.entries {
            let read = again.get(pos).expect("every position");
            assert_eq!((read.mv, read.visits), (entry.mv, entry.visits));
            assert!((read.value - entry.value).abs() <= 5e-5);
        }
    }

    /// The better searched of two entries for one position stays, whichever comes first.
    #[test]
    fn a_position_keeps_its_better_searched_move() {
        let pos = Checkers::start();
        let moves = Checkers::legal_moves(&pos);
        let entry = |k: usize, visits| BookMove::<Checkers> {
            mv: moves[k],
            visits,
            value: 0.0,
        };
        let mut book = Book::default();
        book.insert(pos, entry(0, 10));
        book.insert(pos, entry(1, 20));
        book.insert(pos, entry(2, 15));
        assert_eq!(book.get(&pos).unwrap().mv, moves[1]);
    }

    #[test]
    fn a_bad_book_says_which_line_and_what_it_expected() {
        let header = format!("{HEADER}checkers\n");
        let start = Checkers::format_position(&Checkers::start());
        for (text, expected) in [
            ("".to_string(), "line 1: expected the header"),
            (
                format!("{HEADER}othello\n"),
                "line 1: a book of othello, not checkers",
            ),
            (
                format!("{header}{start}\t9-13\n"),
                "line 2: expected position, move",
            ),
            (format!("{header}{start}\t1-5\t10\t0.1\n"), "line 2: "),
            (
                format!("{header}\n{start}\t9-13\tmany\t0.1\n"),
                "line 3: visits \"many\"",
            ),
            (
                format!("{header}{start}\t9-13\t10\t2\n"),
                "line 2: value \"2\"",
            ),
            (format!("{header}{SEARCHED}x\n"), "line 2: "),
        ] {
            let err = Book::<Checkers>::parse(&text).expect_err(&text);
            assert!(err.starts_with(expected), "{err:?} for {text:?}");
        }
    }
}
