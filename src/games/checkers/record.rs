//! A game in progress: its positions and moves, the draw rules, the outcome, and PDN output.

use super::moves::{Move, legal_moves};
use super::notation::{NotationError, move_to_pdn, parse_move, to_fen};
use super::position::{Color, Position};

/// Plies without a man move or a capture after which the game is drawn: the WCDF 40-move
/// rule counts 40 moves of each player.
pub const FORTY_MOVE_PLIES: u32 = 80;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The same position with the same side to move occurred a third time.
    Repetition,
    /// 40 moves by each side without a man moving or a piece being captured.
    FortyMoveRule,
    /// A game driver's length cap ended the game level on material.
    Adjudication,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// The loser had no legal move on its turn.
    NoMoves,
    /// A game driver's length cap ended the game; the winner had more pieces, or as many
    /// pieces and more kings.
    Adjudication,
    /// The loser resigned.
    Resignation,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win(Color, WinReason),
    Draw(DrawReason),
}

impl Outcome {
    /// The PDN result tag ("1-0" White won, "0-1" Black won, "1/2-1/2").
    pub fn pdn_result(&self) -> &'static str {
        match self {
            Outcome::Win(Color::White, _) => "1-0",
            Outcome::Win(Color::Black, _) => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }

    /// Score for `color`: 1 win, 0.5 draw, 0 loss.
    pub fn score_for(&self, color: Color) -> f64 {
        match self {
            Outcome::Win(c, _) if *c == color => 1.0,
            Outcome::Win(..) => 0.0,
            Outcome::Draw(_) => 0.5,
        }
    }

    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win(c, _) => Some(*c),
            Outcome::Draw(_) => None,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Win(c, WinReason::NoMoves) => {
                write!(f, "{c} wins: {} has no legal move", c.opposite())
            }
            Outcome::Win(c, WinReason::Adjudication) => {
                write!(
                    f,
                    "{c} wins on adjudication (more material at the length cap)"
                )
            }
            Outcome::Win(c, WinReason::Resignation) => {
                write!(f, "{c} wins: {} resigned", c.opposite())
            }
            Outcome::Draw(DrawReason::Repetition) => write!(f, "draw by threefold repetition"),
            Outcome::Draw(DrawReason::FortyMoveRule) => write!(f, "draw by the 40-move rule"),
            Outcome::Draw(DrawReason::Adjudication) => {
                write!(f, "draw on adjudication (level material at the length cap)")
            }
        }
    }
}

/// The adjudicated result of a position when a driver's length cap stops a game: more pieces
/// wins; with equal pieces, more kings wins; otherwise a draw.
pub fn adjudicate(pos: &Position) -> Outcome {
    let count = |c: Color| (pos.pieces(c).count_ones(), pos.kings_of(c).count_ones());
    let (black, white) = (count(Color::Black), count(Color::White));
    match black.cmp(&white) {
        std::cmp::Ordering::Greater => Outcome::Win(Color::Black, WinReason::Adjudication),
        std::cmp::Ordering::Less => Outcome::Win(Color::White, WinReason::Adjudication),
        std::cmp::Ordering::Equal => Outcome::Draw(DrawReason::Adjudication),
    }
}

/// A game from some starting position: every position, move and hash so far.
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    hashes: Vec<u64>,
    /// For each position, plies since the last man move or capture (the 40-move count).
    quiet: Vec<u32>,
    moves: Vec<Move>,
    /// A result imposed from outside the rules (adjudication by a game driver).
    imposed: Option<Outcome>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Game {
    pub fn new() -> Game {
        Game::from_position(Position::start())
    }

    pub fn from_position(pos: Position) -> Game {
        Game {
            positions: vec![pos],
            hashes: vec![pos.hash()],
            quiet: vec![0],
            moves: Vec::new(),
            imposed: None,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game always has a position")
    }

    pub fn start_position(&self) -> &Position {
        &self.positions[0]
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Positions from the start to now (one more than the moves).
    pub fn positions(&self) -> &[Position] {
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

    /// Plies since the last man move or capture.
    pub fn quiet_plies(&self) -> u32 {
        *self.quiet.last().expect("a game always has a position")
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome().is_some() {
            Vec::new()
        } else {
            legal_moves(self.position())
        }
    }

    /// How many times the current position (with the same side to move) has occurred.
    pub fn repetitions(&self) -> usize {
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

    /// The result if the game has ended, by the rules or by an imposed adjudication.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.imposed.is_some() {
            return self.imposed;
        }
        let pos = self.position();
        if legal_moves(pos).is_empty() {
            return Some(Outcome::Win(pos.turn().opposite(), WinReason::NoMoves));
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if self.quiet_plies() >= FORTY_MOVE_PLIES {
            return Some(Outcome::Draw(DrawReason::FortyMoveRule));
        }
        None
    }

    /// Ends the game with a result from outside the rules (a driver's length cap, a
    /// resignation).
    pub fn impose(&mut self, outcome: Outcome) {
        self.imposed = Some(outcome);
    }

    /// Plays a move that is legal in the current position (from the generator or the parser).
    pub fn play(&mut self, mv: Move) {
        let pos = *self.position();
        debug_assert!(legal_moves(&pos).contains(&mv), "illegal move {mv}");
        let next = pos.apply(&mv);
        let quiet = if pos.is_irreversible(&mv) {
            0
        } else {
            self.quiet_plies() + 1
        };
        self.positions.push(next);
        self.hashes.push(next.hash());
        self.quiet.push(quiet);
        self.moves.push(mv);
    }

    /// Parses a PDN move and plays it; the game must not be over.
    pub fn play_text(&mut self, text: &str) -> Result<Move, NotationError> {
        if let Some(outcome) = self.outcome() {
            return Err(NotationError(format!("the game is over: {outcome}")));
        }
        let mv = parse_move(self.position(), text)?;
        self.play(mv);
        Ok(mv)
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        self.hashes.pop();
        self.quiet.pop();
        self.imposed = None;
        Some(mv)
    }

    /// The movetext: `1. 11-15 23-19 2. ...`, numbered by Black-White move pairs.
    pub fn movetext(&self) -> String {
        let mut out = Vec::new();
        let first_white = self.start_position().turn() == Color::White;
        let mut number = 1;
        for (i, mv) in self.moves.iter().enumerate() {
            let black_move = (i % 2 == 0) != first_white;
            if black_move {
                out.push(format!("{number}."));
            } else if i == 0 {
                out.push(format!("{number}..."));
            }
            out.push(move_to_pdn(mv));
            if !black_move {
                number += 1;
            }
        }
        out.join(" ")
    }

    /// The whole game as PDN with the given tags (Event, Black, White, ...). The result is
    /// both the PDN result code and, as a comment, in words.
    pub fn to_pdn(&self, tags: &[(&str, String)]) -> String {
        let mut s = String::new();
        for (k, v) in tags {
            s.push_str(&format!("[{k} \"{}\"]\n", v.replace('"', "'")));
        }
        let outcome = self.outcome();
        let result = outcome.map_or("*", |o| o.pdn_result());
        s.push_str(&format!("[Result \"{result}\"]\n"));
        if *self.start_position() != Position::start() {
            s.push_str(&format!(
                "[SetUp \"1\"]\n[FEN \"{}\"]\n",
                to_fen(self.start_position())
            ));
        }
        let mut text = self.movetext();
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
