//! Side lines beside a game, as an analysis board keeps them: moves played from one of the
//! game's earlier positions (or from a position of another side line) instead of the move
//! that followed there. A position of the game or of a side line is a [`Node`]. PDN writes
//! side lines as RAV, `( ... )` after the move they replace, and reads them back.

use super::record::{Game, move_number};
use super::rules::Rules;
use super::side::NotationError;
use std::collections::BTreeMap;

/// A line's number: [`GAME`] is the game itself; each side line keeps its own number
/// (never reused), so a page's reference to one stays valid while others come and go.
pub type LineId = u32;

/// The game's own line.
pub const GAME: LineId = 0;

/// A position of the game or of a side line: the line, and plies from the game's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    pub line: LineId,
    pub ply: usize,
}

impl Node {
    pub fn new(line: LineId, ply: usize) -> Self {
        Node { line, ply }
    }
}

/// Moves played from a position of another line instead of that line's own move there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideLine<M> {
    /// The line it leaves.
    pub parent: LineId,
    /// It starts from the parent's position after this many plies, which the parent
    /// continues from with another move.
    pub from: usize,
    /// At least one.
    pub moves: Vec<M>,
}

impl<M> SideLine<M> {
    /// The ply of its last position.
    pub fn end(&self) -> usize {
        self.from + self.moves.len()
    }
}

/// The side lines of one game, by number.
#[derive(Clone, Debug)]
pub struct Variations<G: Rules> {
    lines: BTreeMap<LineId, SideLine<G::Move>>,
    next: LineId,
}

impl<G: Rules> Default for Variations<G> {
    fn default() -> Self {
        Variations {
            lines: BTreeMap::new(),
            next: GAME + 1,
        }
    }
}

impl<G: Rules> Variations<G> {
    /// The side lines in the order they were made.
    pub fn lines(&self) -> impl Iterator<Item = (LineId, &SideLine<G::Move>)> {
        self.lines.iter().map(|(&id, line)| (id, line))
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn line(&self, id: LineId) -> Result<&SideLine<G::Move>, NotationError> {
        self.lines
            .get(&id)
            .ok_or_else(|| NotationError(format!("no side line {id}")))
    }

    /// The node named by the line that holds its position: a side line's first position
    /// is its parent's. Refused: a line that does not exist, a ply outside the line.
    pub fn resolve(&self, game: &Game<G>, node: Node) -> Result<Node, NotationError> {
        let (first, last) = match node.line {
            GAME => (0, game.ply()),
            id => {
                let line = self.line(id)?;
                (line.from, line.end())
            }
        };
        if node.ply < first || node.ply > last {
            let name = match node.line {
                GAME => "the game".to_string(),
                id => format!("side line {id}"),
            };
            return Err(NotationError(format!(
                "ply {}: {name} has plies {first}-{last}",
                node.ply
            )));
        }
        let mut node = node;
        while node.line != GAME {
            let line = &self.lines[&node.line];
            if node.ply > line.from {
                break;
            }
            node.line = line.parent;
        }
        Ok(node)
    }

    /// The game as played to `node`, from the game's start, so that repetitions and the
    /// quiet-ply count see the whole history.
    pub fn game_at(&self, game: &Game<G>, node: Node) -> Result<Game<G>, NotationError> {
        let node = self.resolve(game, node)?;
        // The side lines from the game out to the node's, outermost first.
        let mut chain = Vec::new();
        let mut id = node.line;
        while id != GAME {
            let line = &self.lines[&id];
            chain.push(line);
            id = line.parent;
        }
        chain.reverse();
        let mut at = game.clone();
        let cut = chain.first().map_or(node.ply, |line| line.from);
        while at.ply() > cut {
            at.undo();
        }
        for (i, line) in chain.iter().enumerate() {
            let upto = chain.get(i + 1).map_or(node.ply, |next| next.from);
            for &mv in &line.moves[..upto - line.from] {
                at.play(mv);
            }
        }
        Ok(at)
    }

    /// The move the node's own line plays next, if it goes on.
    fn next_move(&self, game: &Game<G>, node: Node) -> Option<G::Move> {
        match node.line {
            GAME => game.moves().get(node.ply).copied(),
            id => {
                let line = &self.lines[&id];
                line.moves.get(node.ply - line.from).copied()
            }
        }
    }

    /// Plays the move `text` (in the game's notation) at `node` and returns the node after
    /// it: the line's own next move is followed, as is a side line that starts with it
    /// there; at a side line's end the line grows; else a new side line starts. The game's
    /// own position is the game's to move from, not a side line's.
    pub fn play(&mut self, game: &Game<G>, node: Node, text: &str) -> Result<Node, NotationError> {
        let node = self.resolve(game, node)?;
        if node == Node::new(GAME, game.ply()) {
            return Err(NotationError(
                "that is the game's own position: a move there is played in the game".into(),
            ));
        }
        let mv = self.game_at(game, node)?.play_text(text)?;
        let after = Node::new(node.line, node.ply + 1);
        if self.next_move(game, node) == Some(mv) {
            return Ok(after);
        }
        let existing = self
            .lines()
            .find(|(_, l)| l.parent == node.line && l.from == node.ply && l.moves[0] == mv);
        if let Some((id, _)) = existing {
            return Ok(Node::new(id, node.ply + 1));
        }
        if let Some(line) = self.lines.get_mut(&node.line)
            && line.end() == node.ply
        {
            line.moves.push(mv);
            return Ok(after);
        }
        let id = self.next;
        self.next += 1;
        self.lines.insert(
            id,
            SideLine {
                parent: node.line,
                from: node.ply,
                moves: vec![mv],
            },
        );
        Ok(Node::new(id, node.ply + 1))
    }

    /// Deletes a side line and the side lines that leave it; returns the node it left from.
    pub fn remove(&mut self, id: LineId) -> Result<Node, NotationError> {
        let line = self.line(id)?;
        let left = Node::new(line.parent, line.from);
        self.lines.remove(&id);
        self.drop_orphans();
        Ok(left)
    }

    /// Keeps the side lines that still leave the game now that it changed from `old` to
    /// `new` (a move, a take-back): those from a position both share and that `new` goes
    /// on from.
    pub fn follow(&mut self, old: &Game<G>, new: &Game<G>) {
        let same_start = old.start_position() == new.start_position();
        let shared = match same_start {
            true => old
                .moves()
                .iter()
                .zip(new.moves())
                .take_while(|(a, b)| a == b)
                .count(),
            false => 0,
        };
        let keep = shared.min(new.ply());
        self.lines
            .retain(|_, line| line.parent != GAME || line.from < keep);
        self.drop_orphans();
    }

    fn drop_orphans(&mut self) {
        loop {
            let orphans: Vec<LineId> = self
                .lines
                .iter()
                .filter(|(_, l)| l.parent != GAME && !self.lines.contains_key(&l.parent))
                .map(|(&id, _)| id)
                .collect();
            if orphans.is_empty() {
                return;
            }
            for id in orphans {
                self.lines.remove(&id);
            }
        }
    }

    /// The game's movetext with its side lines as RAV: `1. 11-15 23-19 (1... 22-18 15x22)
    /// 2. 8-11`, each side line right after the move it replaces.
    pub fn movetext(&self, game: &Game<G>) -> String {
        let mut out = Vec::new();
        self.write_line(game, GAME, &mut out);
        // RAV's parentheses sit against the moves they enclose.
        out.join(" ").replace("( ", "(").replace(" )", ")")
    }

    fn write_line(&self, game: &Game<G>, id: LineId, out: &mut Vec<String>) {
        let (from, moves) = match id {
            GAME => (0, game.moves()),
            id => {
                let line = &self.lines[&id];
                (line.from, &line.moves[..])
            }
        };
        let white_first = G::side_to_move(game.start_position()) == super::Color::White;
        let mut numbered = false;
        for (i, mv) in moves.iter().enumerate() {
            let ply = from + i;
            out.extend(move_number(white_first, ply, !numbered));
            out.push(G::format_move(mv));
            numbered = true;
            for (child, line) in self.lines() {
                if line.parent == id && line.from == ply {
                    out.push("(".into());
                    self.write_line(game, child, out);
                    out.push(")".into());
                    numbered = false;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Checkers, PdnRecord};

    fn game(moves: &[&str]) -> Game<Checkers> {
        let mut game = Game::new();
        for mv in moves {
            game.play_text(mv).unwrap();
        }
        game
    }

    fn texts(game: &Game<Checkers>) -> Vec<String> {
        game.moves().iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn moves_from_earlier_positions_make_follow_and_grow_side_lines() {
        let game = game(&["11-15", "23-19", "8-11", "22-17"]);
        let mut v = Variations::default();
        // The game's own next move is followed, not copied.
        let g1 = Node::new(GAME, 1);
        assert_eq!(v.play(&game, g1, "23-19"), Ok(Node::new(GAME, 2)));
        assert!(v.is_empty());
        let a = v.play(&game, g1, "22-18").unwrap();
        assert_eq!(a, Node::new(1, 2));
        // At its end the side line grows; the same move again from its start follows it.
        assert_eq!(v.play(&game, a, "15x22"), Ok(Node::new(1, 3)));
        assert_eq!(v.play(&game, Node::new(1, 3), "25x18"), Ok(Node::new(1, 4)));
        assert_eq!(v.play(&game, g1, "22-18"), Ok(a));
        // From inside it, another move starts a side line of the side line.
        let b = v.play(&game, Node::new(1, 3), "26x17").unwrap();
        assert_eq!(b, Node::new(2, 4));
        assert_eq!(v.line(2).map(|l| (l.parent, l.from)), Ok((1, 3)));
        // Positions: a side line's first ply is its parent's.
        assert_eq!(v.resolve(&game, Node::new(2, 3)), Ok(Node::new(1, 3)));
        assert_eq!(v.resolve(&game, Node::new(1, 1)), Ok(g1));
        let at = v.game_at(&game, b).unwrap();
        assert_eq!(texts(&at), ["11-15", "22-18", "15x22", "26x17"]);
        // Refusals: the game's own position, an illegal move, a ply or line that is not there.
        let e = v.play(&game, Node::new(GAME, 4), "9-13").unwrap_err();
        assert!(e.0.contains("played in the game"), "{e}");
        assert!(v.play(&game, Node::new(GAME, 2), "11-16").is_err());
        let e = v.resolve(&game, Node::new(1, 5)).unwrap_err();
        assert_eq!(e.0, "ply 5: side line 1 has plies 1-4");
        assert_eq!(
            v.resolve(&game, Node::new(9, 1)).unwrap_err().0,
            "no side line 9"
        );
        let e = v.resolve(&game, Node::new(GAME, 5)).unwrap_err();
        assert_eq!(e.0, "ply 5: the game has plies 0-4");
    }

    #[test]
    fn deleting_a_side_line_or_taking_back_the_game_drops_what_leaves_it() {
        let mut game = game(&["11-15", "23-19", "8-11", "22-17"]);
        let mut v = Variations::default();
        let a = v.play(&game, Node::new(GAME, 1), "22-18").unwrap();
        let a = v.play(&game, a, "15x22").unwrap();
        v.play(&game, a, "25x18").unwrap();
        v.play(&game, a, "26x17").unwrap();
        v.play(&game, Node::new(GAME, 3), "24-20").unwrap();
        v.play(&game, Node::new(GAME, 3), "21-17").unwrap();
        assert_eq!(v.lines().count(), 4);
        assert_eq!(v.remove(3), Ok(Node::new(GAME, 3)));
        assert!(v.remove(3).is_err());
        let old = game.clone();
        game.undo();
        game.undo();
        v.follow(&old, &game);
        // Only the side line from ply 1, and the one leaving it, leave a position the game
        // still goes on from.
        let left: Vec<_> = v.lines().map(|(id, l)| (id, l.from)).collect();
        assert_eq!(left, [(1, 1), (2, 3)]);
        let old = game.clone();
        game.undo();
        v.follow(&old, &game);
        assert!(v.is_empty());
        // A new move in the game keeps them.
        v.play(&game, Node::new(GAME, 0), "9-13").unwrap();
        let old = game.clone();
        game.play_text("22-18").unwrap();
        v.follow(&old, &game);
        assert_eq!(v.lines().count(), 1);
    }

    #[test]
    fn side_lines_write_as_rav_and_read_back() {
        let game = game(&["11-15", "23-19", "8-11", "22-17"]);
        let mut v = Variations::default();
        let mut at = Node::new(GAME, 1);
        for mv in ["22-18", "15x22", "25x18"] {
            at = v.play(&game, at, mv).unwrap();
        }
        v.play(&game, Node::new(1, 3), "26x17").unwrap();
        v.play(&game, Node::new(GAME, 0), "9-14").unwrap();
        let text = v.movetext(&game);
        assert_eq!(
            text,
            "1. 11-15 (1. 9-14) 1... 23-19 (1... 22-18 2. 15x22 25x18 (2... 26x17)) 2. 8-11 22-17"
        );
        let record = PdnRecord::<Checkers>::read_all(&game.to_pdn_with(&[], text.clone()))
            .unwrap()
            .remove(0);
        assert_eq!(record.game.moves(), game.moves());
        assert_eq!(record.variations.movetext(&record.game), text);
        for bad in [
            "1. 11-15 (1. 11-19) 23-19",
            "(1. 9-14) 1. 11-15",
            "1. 11-15 ((9-14))",
        ] {
            assert!(PdnRecord::<Checkers>::read_all(bad).is_err(), "{bad}");
        }
    }
}
