//! A game in progress, for any game under [`Rules`]: its positions and moves, the draws by
//! history (repetition, a quiet-ply limit), the outcome, and PDN-style output.

use super::checkers::Checkers;
use super::rules::Rules;
use super::side::{Color, DrawReason, NotationError, Outcome};

/// A game from some starting position: every position, move and hash so far. Checkers is
/// the default game, so `Game` alone is a checkers game.
#[derive(Clone, Debug)]
pub struct Game<G: Rules = Checkers> {
    positions: Vec<G::Position>,
    hashes: Vec<u64>,
    /// For each position, plies since the last irreversible move (checkers' 40-move count).
    quiet: Vec<u32>,
    moves: Vec<G::Move>,
    /// A result imposed from outside the rules (adjudication by a game driver, resignation).
    imposed: Option<Outcome>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Game {
    /// A checkers game from the start position (for any game: [`Game::at_start`]).
    pub fn new() -> Game {
        Game::at_start()
    }
}

impl<G: Rules> Game<G> {
    /// A game from the standard start position.
    pub fn at_start() -> Self {
        Self::from_position(G::start())
    }

    pub fn from_position(pos: G::Position) -> Self {
        Game {
            positions: vec![pos],
            hashes: vec![G::hash(&pos)],
            quiet: vec![0],
            moves: Vec::new(),
            imposed: None,
        }
    }

    /// The current position.
    pub fn position(&self) -> &G::Position {
        self.positions.last().expect("a game always has a position")
    }

    pub fn start_position(&self) -> &G::Position {
        &self.positions[0]
    }

    /// The side to move now.
    pub fn turn(&self) -> Color {
        G::side_to_move(self.position())
    }

    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// Positions from the start to now (one more than the moves).
    pub fn positions(&self) -> &[G::Position] {
        &self.positions
    }

    /// Hashes of the positions since the last irreversible move, oldest first; the current
    /// position's hash is last. Only these can repeat.
    pub fn reversible_hashes(&self) -> &[u64] {
        let n = self.hashes.len();
        &self.hashes[n - 1 - self.quiet_plies() as usize..]
    }

    pub fn hash(&self) -> u64 {
        *self.hashes.last().expect("a game always has a position")
    }

    /// Plies played so far.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Plies since the last irreversible move.
    pub fn quiet_plies(&self) -> u32 {
        *self.quiet.last().expect("a game always has a position")
    }

    pub fn legal_moves(&self) -> Vec<G::Move> {
        if self.outcome().is_some() {
            Vec::new()
        } else {
            G::legal_moves(self.position())
        }
    }

    /// How many times the current position (with the same side to move) has occurred.
    pub fn repetitions(&self) -> usize {
        if G::REPETITION_DRAW.is_none() {
            return 1;
        }
        let now = self.hash();
        let pos = self.position();
        let n = self.positions.len();
        // Same side to move: every second position back, within the reversible stretch.
        (0..=self.quiet_plies() as usize)
            .step_by(2)
            .filter(|&back| {
                let i = n - 1 - back;
                self.hashes[i] == now && self.positions[i] == *pos
            })
            .count()
    }

    /// The result if the game has ended, by the rules or by an imposed result.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.imposed.is_some() {
            return self.imposed;
        }
        if let Some(outcome) = G::outcome(&G::turn_start(self.position())) {
            return Some(outcome);
        }
        if G::REPETITION_DRAW.is_some_and(|n| self.repetitions() >= n) {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if G::QUIET_DRAW_PLIES.is_some_and(|n| self.quiet_plies() >= n) {
            return Some(Outcome::Draw(DrawReason::FortyMoveRule));
        }
        None
    }

    /// Whether the result was imposed ([`Game::impose`]) rather than reached by the rules.
    pub fn is_imposed(&self) -> bool {
        self.imposed.is_some()
    }

    /// Ends the game with a result from outside the rules (a driver's length cap, a
    /// resignation).
    pub fn impose(&mut self, outcome: Outcome) {
        self.imposed = Some(outcome);
    }

    /// Plays a move that is legal in the current position (from the generator or the parser).
    pub fn play(&mut self, mv: G::Move) {
        let pos = *self.position();
        debug_assert!(
            G::legal_moves(&pos).contains(&mv),
            "illegal move {}",
            G::format_move(&mv)
        );
        let next = G::apply_move(&pos, &mv);
        let quiet = if G::move_is_irreversible(&pos, &mv) {
            0
        } else {
            self.quiet_plies() + 1
        };
        self.positions.push(next);
        self.hashes.push(G::hash(&next));
        self.quiet.push(quiet);
        self.moves.push(mv);
    }

    /// Parses a move in the game's notation and plays it; the game must not be over.
    pub fn play_text(&mut self, text: &str) -> Result<G::Move, NotationError> {
        if let Some(outcome) = self.outcome() {
            return Err(NotationError(format!("the game is over: {outcome}")));
        }
        let mv = G::parse_move(self.position(), text)?;
        self.play(mv);
        Ok(mv)
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<G::Move> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        self.hashes.pop();
        self.quiet.pop();
        self.imposed = None;
        Some(mv)
    }

    /// The movetext: `1. 11-15 23-19 2. ...`, numbered by Black-White move pairs.
    pub fn movetext(&self) -> String {
        let white_first = G::side_to_move(self.start_position()) == Color::White;
        let mut out = Vec::new();
        for (ply, mv) in self.moves.iter().enumerate() {
            out.extend(move_number(white_first, ply, ply == 0));
            out.push(G::format_move(mv));
        }
        out.join(" ")
    }

    /// The whole game as PDN with the given tags (Event, Black, White, ...). The result is
    /// both the PDN result code and, as a comment, in words. A game other than checkers
    /// writes its name in a `GameType` tag and its own move and position notation.
    pub fn to_pdn(&self, tags: &[(&str, String)]) -> String {
        self.to_pdn_with(tags, self.movetext())
    }

    /// The game as PDN with `movetext` for its moves (one with side lines, say).
    pub fn to_pdn_with(&self, tags: &[(&str, String)], movetext: String) -> String {
        let mut s = String::new();
        if G::NAME != super::GameName::Checkers {
            s.push_str(&format!("[GameType \"{}\"]\n", G::NAME.name()));
        }
        for (k, v) in tags {
            s.push_str(&format!("[{k} \"{}\"]\n", v.replace('"', "'")));
        }
        let outcome = self.outcome();
        let result = outcome.map_or("*", |o| o.pdn_result());
        s.push_str(&format!("[Result \"{result}\"]\n"));
        if *self.start_position() != G::start() {
            s.push_str(&format!(
                "[SetUp \"1\"]\n[FEN \"{}\"]\n",
                G::format_position(self.start_position())
            ));
        }
        let mut text = movetext;
        if let Some(o) = outcome {
            text.push_str(&format!(" {{{o}}}"));
        }
        text.push(' ');
        text.push_str(result);
        s.push_str(&wrap(text.trim_start(), 80));
        s.push_str("\n\n");
        s
    }
}

/// Breaks text at spaces into lines of at most `width` characters (PDN keeps lines short).
fn wrap(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("non-empty");
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join("\n")
}

/// The move number before the move at `ply` (0: the first): `12.` before Black's move,
/// `12...` before White's where the text resumes there (`fresh`: the start, or after a
/// side line), nothing before White's move in the middle of a pair.
pub fn move_number(white_first: bool, ply: usize, fresh: bool) -> Option<String> {
    let index = ply + usize::from(white_first);
    let number = index / 2 + 1;
    match (index.is_multiple_of(2), fresh) {
        (true, _) => Some(format!("{number}.")),
        (false, true) => Some(format!("{number}...")),
        (false, false) => None,
    }
}
