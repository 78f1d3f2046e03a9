//! `play`: a person against an agent in the terminal.
//!
//! Line by line on any reader and writer (no raw terminal mode), so scripted input can
//! drive it in tests. The person types moves in the game's notation or commands; see
//! `HELP`.

use crate::agents::{Agent, AgentGame, AgentSpec, Analysis, Limits, ScoreKind};
use crate::dates::utc_date;
use crate::games::checkers::{self, Checkers};
use crate::games::othello::{self, Othello};
use crate::games::{Color, Game, Outcome, Rules, WinReason};
use crate::input::read_line;
use std::io::{self, BufRead, Write};
use std::time::SystemTime;

/// A game people can play in the terminal: how its board is drawn and its moves listed.
pub trait PlayGame: AgentGame {
    /// A move to show in the greeting.
    const EXAMPLE_MOVE: &'static str;
    /// The help lines on typing moves and reading the board.
    const MOVE_HELP: &'static str;
    const BOARD_HELP: &'static str;
    /// The board as the person sees it, the last move marked, and a note on it if any
    /// (after a blank line).
    fn show(game: &Game<Self>, human: Color) -> String;
    /// The legal moves in the order a person looks for them.
    fn sort_for_people(_moves: &mut [Self::Move]) {}
}

impl PlayGame for Checkers {
    const EXAMPLE_MOVE: &'static str = "11-15";
    const MOVE_HELP: &'static str =
        "  11-15, 15x24x31, 15x31   play a move in PDN (a multi-jump by its whole path or from-to)";
    const BOARD_HELP: &'static str = "board: b/w men, B/W kings, numbers on empty squares, [ ] \
        the last move, x the pieces\n  it captured";

    fn show(game: &Game, human: Color) -> String {
        let last = game.moves().last();
        let highlight = last.map_or(0, move_squares);
        let captured = last.map_or(0, checkers::Move::captured);
        let mut s = checkers::board_diagram_from(game.position(), highlight, captured, human);
        if captured != 0 {
            let squares: Vec<String> = (0..32)
                .filter(|sq| captured & (1 << sq) != 0)
                .map(|sq| (sq + 1).to_string())
                .collect();
            s += &format!("\nx: captured by the last move ({}).", squares.join(", "));
        }
        s
    }

    /// By starting square, so a person finds a piece's moves together.
    fn sort_for_people(moves: &mut [checkers::Move]) {
        moves.sort_by(|a, b| (a.from(), a.path()).cmp(&(b.from(), b.path())));
    }
}

impl PlayGame for Othello {
    const EXAMPLE_MOVE: &'static str = "d3";
    const MOVE_HELP: &'static str =
        "  d3, pass                 play a move (a square, or pass when you have none)";
    const BOARD_HELP: &'static str = "board: X Black, O White, * the squares the side to move \
        may play";

    fn show(game: &Game<Othello>, _human: Color) -> String {
        let pos = game.position();
        let mut s = othello::board_diagram(pos, pos.legal_moves_mask());
        if let Some(mv) = game.moves().last() {
            s += &format!("\nLast move: {}.", othello::move_to_text(*mv));
        }
        s
    }
}

/// What `checkers-zero play` was asked for.
#[derive(Clone, Debug)]
pub struct PlayOptions<G: Rules = Checkers> {
    pub agent: AgentSpec,
    /// The person's colour.
    pub human: Color,
    pub start: G::Position,
    pub seed: u64,
}

/// The commands' help; `{moves}` and `{board}` take the game's lines.
const HELP: &str = "\
commands:
{moves}
  moves    list the legal moves
  board    draw the board again
  hint     ask the agent what it would play here (search agents: every move's visits
           and, with a network, its prior)
  undo     take back your last move and the agent's reply
  resign   give up the game
  quit     stop without a result
  help     this list
{board}
agent lines: value = its estimate for the side named (az, mcts: -1 lost to +1 won;
  alphabeta: men); visits = each move's share of the search; prior = the network's
  probability for the move before searching (az only)";

/// How many of the agent's move scores a hint shows.
const HINT_MOVES: usize = 5;

/// Runs one game, reading the person's commands from `input` and drawing on `output`.
pub fn run<G: PlayGame>(
    opts: &PlayOptions<G>,
    input: impl BufRead,
    output: impl Write,
) -> io::Result<()> {
    let agent = opts
        .agent
        .build::<G>(opts.seed)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let mut session = Session {
        game: Game::from_position(opts.start),
        agent,
        human: opts.human,
        input,
        out: output,
    };
    session.play()
}

/// Why the game stopped.
enum End {
    Over(Outcome),
    Resigned,
    Quit,
    InputClosed,
}

/// What the person's turn led to.
enum Turn {
    /// A move was played or taken back: the game goes on from the new position.
    Continue,
    Stop(End),
}

struct Session<G: Rules, R, W> {
    game: Game<G>,
    agent: Box<dyn Agent<G>>,
    human: Color,
    input: R,
    out: W,
}

impl<G: PlayGame, R: BufRead, W: Write> Session<G, R, W> {
    fn play(&mut self) -> io::Result<()> {
        writeln!(
            self.out,
            "You play {} against {}. Type a move such as {}, or help for commands.",
            self.human,
            self.agent.name(),
            G::EXAMPLE_MOVE
        )?;
        let end = loop {
            if let Some(outcome) = self.game.outcome() {
                break End::Over(outcome);
            }
            if self.game.turn() == self.human {
                if let Turn::Stop(end) = self.human_turn()? {
                    break end;
                }
            } else {
                self.agent_turn()?;
            }
        };
        self.finish(end)
    }

    /// Shows the position, then reads lines until one plays a move, undoes or ends the game.
    fn human_turn(&mut self) -> io::Result<Turn> {
        self.show_position()?;
        loop {
            write!(self.out, "your move> ")?;
            self.out.flush()?;
            let Some(line) = read_line(&mut self.input)? else {
                writeln!(self.out)?;
                return Ok(Turn::Stop(End::InputClosed));
            };
            let line = line.trim();
            match line.to_ascii_lowercase().as_str() {
                "" => {}
                "help" | "?" => writeln!(
                    self.out,
                    "{}",
                    HELP.replace("{moves}", G::MOVE_HELP)
                        .replace("{board}", G::BOARD_HELP)
                )?,
                "moves" => self.list_moves()?,
                "board" => self.show_position()?,
                "hint" => self.hint()?,
                "undo" => {
                    if self.undo()? {
                        return Ok(Turn::Continue);
                    }
                }
                "resign" => return Ok(Turn::Stop(End::Resigned)),
                "quit" | "exit" => return Ok(Turn::Stop(End::Quit)),
                _ => match self.game.play_text(line) {
                    Ok(mv) => {
                        writeln!(self.out, "You play {}.", G::format_move(&mv))?;
                        return Ok(Turn::Continue);
                    }
                    Err(e) => writeln!(
                        self.out,
                        "{e}. Try again (moves lists them, help the commands)."
                    )?,
                },
            }
        }
    }

    fn agent_turn(&mut self) -> io::Result<()> {
        let decision = self.agent.select(&self.game, &Limits::default());
        let side = self.game.turn();
        let note = decision
            .analysis
            .as_ref()
            .map_or_else(|| ".".into(), |a| describe(a, side));
        writeln!(
            self.out,
            "{side} ({}) plays {}{note}",
            self.agent.name(),
            G::format_move(&decision.mv)
        )?;
        if let Some(table) = decision.analysis.as_ref().and_then(move_table) {
            write!(self.out, "{table}")?;
        }
        self.game.play(decision.mv);
        Ok(())
    }

    fn show_position(&mut self) -> io::Result<()> {
        writeln!(self.out, "\n{}", G::show(&self.game, self.human))?;
        if self.game.outcome().is_none() {
            writeln!(self.out, "{} to move.", self.game.turn())?;
            self.list_moves()?;
        }
        Ok(())
    }

    fn list_moves(&mut self) -> io::Result<()> {
        let mut moves = self.game.legal_moves();
        G::sort_for_people(&mut moves);
        let text: Vec<String> = moves.iter().map(G::format_move).collect();
        writeln!(self.out, "Legal moves: {}", text.join(" "))
    }

    /// The agent's view of the position: its full analysis if it has one, else its choice.
    fn hint(&mut self) -> io::Result<()> {
        let limits = Limits::default();
        let side = self.game.turn();
        let Some(analysis) = self.agent.analyse(&self.game, &limits) else {
            let decision = self.agent.select(&self.game, &limits);
            let note = decision
                .analysis
                .as_ref()
                .map_or_else(|| ".".into(), |a| describe(a, side));
            return writeln!(
                self.out,
                "Hint: {} would play {}{note}",
                self.agent.name(),
                G::format_move(&decision.mv)
            );
        };
        let Some(best) = analysis.moves.first() else {
            return writeln!(
                self.out,
                "Hint: {}{}",
                self.agent.name(),
                describe(&analysis, side)
            );
        };
        writeln!(
            self.out,
            "Hint: {} would play {}{}",
            self.agent.name(),
            G::format_move(&best.mv),
            describe(&analysis, side)
        )?;
        if let Some(table) = move_table(&analysis) {
            return write!(self.out, "{table}");
        }
        let scores: Vec<String> = analysis
            .moves
            .iter()
            .take(HINT_MOVES)
            .map(|s| format!("{} {:+.2}", G::format_move(&s.mv), s.score))
            .collect();
        writeln!(self.out, "      scores: {}", scores.join(", "))
    }

    /// Takes back moves up to and including the person's last one (so the agent's reply
    /// goes too); false, with a message, if the person has not moved yet.
    fn undo(&mut self) -> io::Result<bool> {
        let positions = self.game.positions();
        let moved = positions[..positions.len() - 1]
            .iter()
            .any(|p| G::side_to_move(p) == self.human);
        if !moved {
            writeln!(self.out, "Nothing to undo: you have not moved yet.")?;
            return Ok(false);
        }
        let mut taken = Vec::new();
        loop {
            let mover = self.game.turn().opposite();
            let Some(mv) = self.game.undo() else { break };
            taken.push(G::format_move(&mv));
            if mover == self.human {
                break;
            }
        }
        taken.reverse();
        writeln!(self.out, "Took back {}.", taken.join(" "))?;
        Ok(true)
    }

    fn finish(&mut self, end: End) -> io::Result<()> {
        let agent_side = self.human.opposite();
        let tags = self.tags();
        match end {
            End::Over(outcome) => {
                self.show_position()?;
                writeln!(self.out, "Result: {outcome}.")?;
            }
            End::Resigned => {
                self.game
                    .impose(Outcome::Win(agent_side, WinReason::Resignation));
                writeln!(self.out, "You resign: {agent_side} wins.")?;
            }
            End::Quit => writeln!(self.out, "Game stopped unfinished.")?,
            End::InputClosed => writeln!(self.out, "End of input: game stopped unfinished.")?,
        }
        writeln!(self.out, "\n{}", self.game.to_pdn(&tags).trim_end())?;
        self.out.flush()
    }

    fn tags(&self) -> Vec<(&'static str, String)> {
        let (agent, person) = (self.agent.name(), "human".to_string());
        let (black, white) = if self.human == Color::Black {
            (person, agent)
        } else {
            (agent, person)
        };
        vec![
            ("Event", "checkers-zero play".to_string()),
            ("Date", pdn_date(SystemTime::now())),
            ("Black", black),
            ("White", white),
        ]
    }
}

/// The squares a checkers move touches: where it started and every landing square.
fn move_squares(mv: &checkers::Move) -> u32 {
    mv.path()
        .iter()
        .fold(1u32 << mv.from(), |acc, &sq| acc | (1u32 << sq))
}

/// `: value +0.25 for White (depth 6 ...)`: the agent's value, from the view of `side` (the
/// side to move where it searched, which is not the side to move on the board shown next),
/// what it proves (`value +999.00 for White, win in 1 move`), and the agent's own summary.
fn describe<G: Rules>(analysis: &Analysis<G>, side: Color) -> String {
    let summary = analysis.summary.trim();
    let mut value = format!(": value {:+.2} for {side}", analysis.value);
    if let Some(proven) = analysis.proven {
        value += &format!(", {}", proven.describe());
    }
    if summary.is_empty() {
        value
    } else {
        format!("{value} ({summary})")
    }
}

/// Width of the visit bar in [`move_table`] at a 100% share.
const BAR_WIDTH: usize = 20;

/// A search agent's view of every legal move, one line each, most visited first: its share
/// of the visits (with a bar) and, where a network guided the search, its prior. `None` for
/// analyses whose scores are not visit shares.
fn move_table<G: Rules>(analysis: &Analysis<G>) -> Option<String> {
    if analysis.score_kind != ScoreKind::VisitShare || analysis.moves.is_empty() {
        return None;
    }
    let names: Vec<String> = analysis
        .moves
        .iter()
        .map(|m| G::format_move(&m.mv))
        .collect();
    let width = names
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max("move".len());
    let with_priors = analysis.moves.iter().any(|m| m.prior.is_some());
    let mut s = format!("  {:<width$}  {:>6}", "move", "visits");
    if with_priors {
        s += &format!("  {:>6}", "prior");
    }
    s += "\n";
    for (m, name) in analysis.moves.iter().zip(&names) {
        s += &format!("  {name:<width$}  {:>5.1}%", 100.0 * m.score);
        if with_priors {
            s += &m.prior.map_or_else(
                || format!("  {:>6}", "-"),
                |p| format!("  {:>5.1}%", 100.0 * p),
            );
        }
        let bar = (m.score.clamp(0.0, 1.0) * BAR_WIDTH as f32).round() as usize;
        if bar > 0 {
            s += &format!("  {}", "#".repeat(bar));
        }
        s.push('\n');
    }
    Some(s)
}

/// Today's date as PDN writes it, `YYYY.MM.DD` (UTC).
fn pdn_date(now: SystemTime) -> String {
    let ((y, m, d), _) = utc_date(now);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::MoveScore;
    use crate::games::checkers::{Position, parse_fen};
    use std::time::{Duration, UNIX_EPOCH};

    /// Plays a scripted session and returns everything it wrote.
    fn play(agent: &str, human: Color, fen: Option<&str>, script: &str) -> String {
        let opts = PlayOptions::<Checkers> {
            agent: agent.parse().expect("valid spec"),
            human,
            start: fen.map_or(Position::start(), |f| parse_fen(f).expect("valid FEN")),
            seed: 1,
        };
        let mut out = Vec::new();
        run(&opts, io::Cursor::new(script.as_bytes().to_vec()), &mut out)
            .expect("a Vec never fails");
        String::from_utf8(out).expect("UTF-8 output")
    }

    /// Othello: the board says the disc counts and play says whose turn it is, once.
    #[test]
    fn othello_says_whose_turn_it_is_once() {
        let opts = PlayOptions::<Othello> {
            agent: "random".parse().expect("valid spec"),
            human: Color::Black,
            start: crate::games::othello::Position::start(),
            seed: 1,
        };
        let mut out = Vec::new();
        run(&opts, io::Cursor::new(b"d3\nquit\n".to_vec()), &mut out).expect("a Vec");
        let out = String::from_utf8(out).expect("UTF-8 output");
        let first = out.split("your move>").next().expect("a prompt");
        assert_eq!(first.matches("to move").count(), 1, "{first}");
        assert!(
            first.contains("X Black 2, O White 2\n\nBlack to move."),
            "{first}"
        );
        assert!(out.contains("You play d3."), "{out}");
    }

    #[test]
    fn illegal_moves_are_explained_and_the_game_goes_on() {
        let out = play(
            "alphabeta:depth=2",
            Color::Black,
            None,
            "11-14\n22-18\nhelp\n11-15\nquit\n",
        );
        assert!(
            out.contains("Legal moves: 9-13 9-14 10-14 10-15 11-15 11-16 12-16"),
            "{out}"
        );
        assert!(
            out.contains("11-14 is not legal: the piece on 11 can play 11-15 11-16. Try again"),
            "{out}"
        );
        assert!(
            out.contains("22-18 is not legal: 22 holds a White piece"),
            "{out}"
        );
        assert!(out.contains("undo     take back"), "{out}");
        assert!(out.contains("You play 11-15."), "{out}");
        assert!(out.contains("White (alphabeta:depth=2) plays "), "{out}");
        // The value is White's (the agent's), though Black is to move on the board shown next.
        let (_, line) = out
            .split_once("White (alphabeta:depth=2) plays ")
            .expect("the agent's move");
        let line = line.lines().next().unwrap();
        assert!(
            line.contains(": value ") && line.contains(" for White (depth 2 nodes"),
            "{line}"
        );
        assert!(
            out.contains("Game stopped unfinished.") && out.contains("[Result \"*\"]"),
            "{out}"
        );
        assert!(out.contains("1. 11-15 "), "{out}");
    }

    #[test]
    fn compulsory_capture_is_explained() {
        let out = play("random", Color::Black, Some("B:W14,30:B9,1"), "1-5\n");
        assert!(
            out.contains("1-5 is not legal: capture is compulsory: 9x18 is available."),
            "{out}"
        );
        assert!(
            out.contains("End of input: game stopped unfinished."),
            "{out}"
        );
    }

    #[test]
    fn undo_takes_back_the_persons_move_and_the_reply() {
        let out = play("random", Color::Black, None, "undo\n11-15\nundo\nquit\n");
        assert!(
            out.contains("Nothing to undo: you have not moved yet."),
            "{out}"
        );
        let (_, rest) = out
            .split_once("Took back 11-15 ")
            .expect("a take-back message");
        let reply = rest.lines().next().unwrap_or_default();
        assert!(
            reply.ends_with('.') && !reply.contains(' '),
            "one reply taken back: {reply}"
        );
        // Back at the start: the PDN has no moves.
        assert!(out.trim_end().ends_with("\n*"), "{out}");
        assert_eq!(
            out.matches("Legal moves: 9-13 9-14 10-14 10-15 11-15 11-16 12-16")
                .count(),
            2
        );
    }

    #[test]
    fn undo_when_the_agent_moved_first() {
        // White to play: the agent's first move cannot be taken back on its own.
        let out = play("random", Color::White, None, "undo\n");
        assert!(out.contains("Black (random) plays "), "{out}");
        assert!(out.contains("Nothing to undo"), "{out}");
    }

    #[test]
    fn a_short_won_game_ends_with_the_result_and_pdn() {
        // 1-5 leaves White only 21-17, which Black captures: White has nothing left.
        let out = play(
            "alphabeta:depth=3",
            Color::Black,
            Some("B:W21:B1,13"),
            "1-5\n13x22\n",
        );
        assert!(
            out.contains("White (alphabeta:depth=3) plays 21-17"),
            "{out}"
        );
        assert!(
            out.contains("Result: Black wins: White has no legal move."),
            "{out}"
        );
        // The final board (Black's view) marks 13x22's squares and the man it took on 17.
        let (_, last_board) = out.rsplit_once("White (alphabeta").unwrap();
        assert!(
            last_board.contains("  | 20      19      18      x      |  20..17"),
            "{last_board}"
        );
        assert!(
            last_board.contains("x: captured by the last move (17)."),
            "{last_board}"
        );
        assert_eq!(out.matches("x: captured").count(), 1, "{out}");
        for tag in [
            "[Event \"checkers-zero play\"]",
            "[Black \"human\"]",
            "[White \"alphabeta:depth=3\"]",
        ] {
            assert!(out.contains(tag), "{tag}: {out}");
        }
        assert!(
            out.contains("[Date \"") && out.contains("[Result \"0-1\"]"),
            "{out}"
        );
        assert!(out.contains("[FEN \"B:W21:B1,13\"]"), "{out}");
        assert!(
            out.contains("1. 1-5 21-17 2. 13x22 {Black wins: White has no legal move} 0-1"),
            "{out}"
        );
    }

    #[test]
    fn multi_jumps_by_short_form_for_either_colour() {
        let out = play("random", Color::White, Some("W:W22:B18,10"), "22x6\n");
        assert!(out.contains("You play 22x15x6."), "{out}");
        assert!(
            out.contains("Result: White wins: Black has no legal move.") && out.contains("1-0"),
            "{out}"
        );
        let out = play("random", Color::Black, Some("B:W6,15:B1"), "1x19\n");
        assert!(out.contains("You play 1x10x19."), "{out}");
        assert!(out.contains("[Result \"0-1\"]"), "{out}");
    }

    #[test]
    fn a_finished_start_position_and_resigning() {
        let out = play("random", Color::White, Some("W:W:B1"), "");
        assert!(
            out.contains("Result: Black wins: White has no legal move."),
            "{out}"
        );
        assert!(!out.contains("your move>"), "{out}");
        let out = play("random", Color::Black, None, "resign\n");
        assert!(out.contains("You resign: White wins."), "{out}");
        assert!(out.contains("[Result \"1-0\"]"), "{out}");
        assert!(out.contains("{White wins: Black resigned} 1-0"), "{out}");
    }

    #[test]
    fn hints_show_the_agents_choice() {
        let out = play(
            "alphabeta:depth=2",
            Color::Black,
            Some("B:W14,30:B9,1"),
            "hint\nquit\n",
        );
        assert!(
            out.contains("Hint: alphabeta:depth=2 would play 9x18: value +1.00 for Black"),
            "{out}"
        );
        assert!(out.contains("scores: 9x18 "), "{out}");
        let out = play(
            "random",
            Color::Black,
            Some("B:W14,30:B9,1"),
            "hint\nquit\n",
        );
        assert!(out.contains("Hint: random would play 9x18"), "{out}");
    }

    #[test]
    fn search_agents_show_every_moves_visits() {
        let out = play(
            "mcts:searches=40",
            Color::Black,
            None,
            "hint\n11-15\nquit\n",
        );
        assert!(out.contains("Hint: mcts:searches=40 would play "), "{out}");
        // Rollout MCTS has no network: visits without a prior column, the hint's table and
        // the table after its own move each list all 7 opening moves.
        assert_eq!(out.matches("  move   visits\n").count(), 2, "{out}");
        assert!(!out.contains("prior"), "{out}");
        let (_, after) = out.split_once("White (mcts").expect("the agent moved");
        let rows = after.lines().skip(2).take_while(|l| l.contains('%'));
        assert_eq!(rows.count(), 7, "{out}");
    }

    #[test]
    fn move_tables_show_priors_and_bars() {
        let pos = Position::start();
        let moves = crate::games::checkers::legal_moves(&pos);
        let analysis: Analysis = Analysis {
            moves: vec![
                MoveScore {
                    mv: moves[0],
                    score: 0.75,
                    prior: Some(0.5),
                    upper_bound: false,
                    proven: None,
                },
                MoveScore {
                    mv: moves[1],
                    score: 0.0,
                    prior: Some(0.125),
                    upper_bound: false,
                    proven: None,
                },
            ],
            score_kind: ScoreKind::VisitShare,
            value: 0.1,
            proven: None,
            summary: String::new(),
            pv: Vec::new(),
            lines: Vec::new(),
        };
        let table = move_table(&analysis).unwrap();
        let want = "  move   visits   prior
  9-13    75.0%   50.0%  ###############
  10-14    0.0%   12.5%
";
        assert_eq!(table, want, "{table}");
        let values = Analysis {
            score_kind: ScoreKind::Value,
            ..analysis
        };
        assert_eq!(move_table(&values), None);
    }

    #[test]
    fn dates_are_pdn_style() {
        let at = |secs: u64| pdn_date(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970.01.01");
        assert_eq!(at(951_782_400), "2000.02.29");
        assert_eq!(at(1_709_251_199), "2024.02.29");
    }
}
