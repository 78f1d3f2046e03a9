//! The line protocol on stdin/stdout, for scripts, GUIs and other engines (README.md's
//! "Engine protocol" section describes it for users).
//!
//! One command per line. Every non-blank line gets exactly one reply line, except `go`
//! (`info` lines as the search reports, then `bestmove`), `help` (several lines), `stop`
//! and `quit` (none), so a script can read one reply per command, skipping `info` lines. A
//! bad line gets one `error ...` line and leaves the session as it was.
//!
//! A reader thread keeps reading while a search runs on its own thread, so `stop`, `quit`
//! and `isready` act at once; other commands wait for the search to end and are then
//! answered in order.

mod clock;
pub use clock::Clocks;

use crate::agents::settings::{self, Describe, Setting, SettingValue};
use crate::agents::{
    Agent, AgentError, AgentGame, AgentSpec, Analysis, Decision, Limits, Line, StopFlag, pv_text,
};
use crate::games::{Checkers, Color, Game, NotationError, Rules};
use crate::input::read_line;
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

/// The agent a session starts with (its own default depth is 6 in checkers).
const DEFAULT_AGENT: &str = "alphabeta";

const COMMANDS: &str = "isready, position, go, stop, legal, fen, newgame, setoption, help or quit";

const HELP: &[&str] = &[
    "isready: replies readyok (at once, even during a search)",
    "position startpos [moves M1 M2 ...] | position fen FEN [moves M1 M2 ...]: sets the position; replies ok",
    "go [depth N] [movetime MS] [nodes N] [wtime MS btime MS [winc MS binc MS] [movestogo N]] | go infinite: replies info lines, then bestmove MOVE (with clocks, the mover's time / moves to go (30 if not given) + 3/4 of its increment, at most half its time)",
    "stop: ends the running search at once, which then replies; no reply of its own",
    "legal: replies legal M1 M2 ... (every legal move; checkers: the full PDN path)",
    "fen: replies fen FEN (the current position in the game's text form)",
    "newgame: back to the start position, the agent forgets the last game; replies ok",
    "setoption name agent|seed|OPTION value V: replies ok agent SPEC seed N",
    "help: this list",
    "quit: stops any running search and ends the session once the commands sent before it are carried out",
    "during a search: stop, quit and isready act at once; other commands wait for its bestmove",
];

/// A one-line reason why a command was not carried out: the text of the protocol's
/// `error` reply, which is all a program at the other end receives of a cause.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct ProtocolError(String);

impl From<AgentError> for ProtocolError {
    fn from(e: AgentError) -> Self {
        ProtocolError(e.to_string())
    }
}

fn fail<T>(msg: impl Into<String>) -> Result<T, ProtocolError> {
    Err(ProtocolError(msg.into()))
}

/// The reply lines of one command.
type Reply = Result<Vec<String>, ProtocolError>;

fn ok() -> Reply {
    Ok(vec!["ok".into()])
}

/// What the session's threads tell its main loop.
enum Event<G: Rules> {
    Line(String),
    /// End of input, or why it could not be read.
    InputEnd(io::Result<()>),
    /// An `info` line: what the running search reports.
    Info(String),
    /// A search is over: the agent comes back with its decision, or the search's panic.
    Searched(Box<dyn Agent<G>>, std::thread::Result<Decision<G>>),
}

/// Runs a protocol session of game `G` until `quit` or end of input. At end of input a
/// running search is finished first (stopped, if it is `go infinite`), so piped scripts get
/// every reply.
pub fn run<G: AgentGame>(
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
) -> io::Result<()> {
    let (events, inbox) = channel();
    let reader = events.clone();
    // Detached: it may be blocked reading when `quit` ends the session.
    std::thread::spawn(move || read_lines(input, reader));
    let mut engine = Engine::<G>::new(events);
    let mut held: VecDeque<String> = VecDeque::new();
    let mut input_end = None;
    let mut quitting = false;
    loop {
        // Commands held during a search run once it is over, until one starts another.
        while engine.search.is_none()
            && let Some(line) = held.pop_front()
        {
            if engine.command(&line, &mut output)? == Flow::Quit {
                return Ok(());
            }
        }
        if let Some(end) = &mut input_end {
            match &engine.search {
                None => return std::mem::replace(end, Ok(())),
                // No `stop` can come any more.
                Some(search) if search.infinite => engine.stop(&mut output)?,
                Some(_) => {}
            }
        }
        let event = inbox.recv().expect("the engine holds a sender");
        match event {
            // Nothing read after `quit` is carried out.
            Event::Line(_) if quitting => {}
            Event::Line(line) => {
                if engine.search.is_none() {
                    if engine.command(&line, &mut output)? == Flow::Quit {
                        return Ok(());
                    }
                    continue;
                }
                let word = line.split_whitespace().next().map(str::to_ascii_lowercase);
                match word.as_deref() {
                    None => {}
                    Some("stop") => engine.stop(&mut output)?,
                    // The running search stops; commands received before `quit` are still
                    // carried out, in order, as at the end of input, and then the session ends.
                    Some("quit") => {
                        engine.stop(&mut output)?;
                        if held.is_empty() {
                            engine.wait(&inbox, &mut output)?;
                            return Ok(());
                        }
                        held.push_back(line);
                        quitting = true;
                        input_end.get_or_insert(Ok(()));
                    }
                    Some("isready") if held.is_empty() => {
                        engine.command(&line, &mut output)?;
                    }
                    Some(_) => held.push_back(line),
                }
            }
            Event::InputEnd(end) => input_end = Some(end),
            Event::Info(line) => write_lines(&mut output, &[line])?,
            Event::Searched(agent, result) => engine.searched(agent, result, &mut output)?,
        }
    }
}

/// The reader thread: every input line, then the end.
fn read_lines<G: Rules>(mut input: impl BufRead, events: Sender<Event<G>>) {
    loop {
        let event = match read_line(&mut input) {
            Ok(Some(line)) => Event::Line(line),
            Ok(None) => Event::InputEnd(Ok(())),
            Err(e) => Event::InputEnd(Err(e)),
        };
        let last = matches!(event, Event::InputEnd(_));
        if events.send(event).is_err() || last {
            return;
        }
    }
}

/// Control characters (newlines above all) would split a reply; garbage input can carry
/// them into error messages.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Writes reply lines and flushes them: scripts wait for each reply line by line.
fn write_lines(output: &mut impl Write, lines: &[String]) -> io::Result<()> {
    for line in lines {
        writeln!(output, "{}", one_line(line))?;
    }
    output.flush()
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// A search on its own thread.
struct Search<G: Rules> {
    stop: StopFlag,
    /// `go infinite`: its bestmove waits for `stop`, even if the search ends earlier.
    infinite: bool,
    /// The decision of an infinite search that ended before `stop`.
    result: Option<Decision<G>>,
}

/// A session's state: the game so far and the agent that answers `go`.
struct Engine<G: Rules = Checkers> {
    game: Game<G>,
    spec: AgentSpec,
    seed: u64,
    /// `None` while a search has it.
    agent: Option<Box<dyn Agent<G>>>,
    search: Option<Search<G>>,
    /// Where searches report.
    events: Sender<Event<G>>,
    /// How many of the best moves a search reports (`setoption name multipv`).
    lines: usize,
}

impl<G: AgentGame> Engine<G> {
    fn new(events: Sender<Event<G>>) -> Self {
        let spec = AgentSpec::new(DEFAULT_AGENT);
        let agent = spec.build(0).expect("the default agent spec is valid");
        Engine {
            game: Game::at_start(),
            spec,
            seed: 0,
            agent: Some(agent),
            search: None,
            lines: 1,
            events,
        }
    }

    /// Carries out one line and writes its reply (none for `stop`, `quit` and `go`, whose
    /// reply comes when its search ends).
    fn command(&mut self, line: &str, output: &mut impl Write) -> io::Result<Flow> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return Ok(Flow::Continue);
        };
        let reply = match command.to_ascii_lowercase().as_str() {
            "quit" => return Ok(Flow::Quit),
            // A stop with no search running has nothing to stop (it may have just ended).
            "stop" => return Ok(Flow::Continue),
            _ => self
                .execute(command, args)
                .unwrap_or_else(|e| vec![format!("error {e}")]),
        };
        write_lines(output, &reply)?;
        Ok(Flow::Continue)
    }

    fn execute(&mut self, command: &str, args: &[&str]) -> Reply {
        match command.to_ascii_lowercase().as_str() {
            "isready" => no_args(command, args).map(|()| vec!["readyok".into()]),
            "position" => self.position(args),
            "go" => self.go(args),
            "legal" => no_args(command, args).map(|()| vec![self.legal()]),
            "fen" => {
                no_args(command, args)?;
                Ok(vec![format!(
                    "fen {}",
                    G::format_position(self.game.position())
                )])
            }
            "newgame" => {
                no_args(command, args)?;
                self.game = Game::at_start();
                self.agent_mut().new_game();
                ok()
            }
            "setoption" => self.set_option(args),
            "help" => Ok(HELP.iter().map(|line| format!("help {line}")).collect()),
            _ => fail(format!("unknown command {command:?}: expected {COMMANDS}")),
        }
    }

    /// The agent; commands other than `stop`, `quit` and `isready` wait while a search has it.
    fn agent_mut(&mut self) -> &mut Box<dyn Agent<G>> {
        self.agent
            .as_mut()
            .expect("commands that use the agent wait for the search to end")
    }

    /// `position startpos|fen FEN [moves ...]`: the new game replaces the old one only if
    /// the start and every move are valid.
    fn position(&mut self, args: &[&str]) -> Reply {
        let (setup, moves) = match args.iter().position(|a| a.eq_ignore_ascii_case("moves")) {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let mut game = Game::from_position(start_position::<G>(setup)?);
        for (i, text) in moves.iter().enumerate() {
            game.play_text(text).map_err(|e| move_error(i, e))?;
        }
        self.game = game;
        ok()
    }

    /// Starts the search on its own thread; its reply comes with [`Event::Searched`].
    fn go(&mut self, args: &[&str]) -> Reply {
        let mut limits = parse_limits(args, self.game.turn())?;
        if let Some(outcome) = self.game.outcome() {
            return fail(format!("game over: {outcome}"));
        }
        let stop = StopFlag::default();
        limits.stop = Some(stop.clone());
        limits.lines = self.lines;
        let mut agent = self.agent.take().expect("go waits for the last search");
        let game = self.game.clone();
        let events = self.events.clone();
        let infinite = limits.infinite;
        std::thread::spawn(move || {
            let info = events.clone();
            let mut report = move |a: &Analysis<G>| {
                let _ = info.send(Event::Info(info_line(a)));
                for (rank, line) in a.lines.iter().enumerate() {
                    let _ = info.send(Event::Info(multipv_line(rank + 1, line)));
                }
            };
            // A panicking search is re-raised on the main thread instead of leaving it
            // waiting for a reply that never comes.
            let result = catch_unwind(AssertUnwindSafe(|| {
                agent.select_reporting(&game, &limits, Some(&mut report))
            }));
            let _ = events.send(Event::Searched(agent, result));
        });
        self.search = Some(Search {
            stop,
            infinite,
            result: None,
        });
        Ok(Vec::new())
    }

    /// A search ended: its reply, unless it is `go infinite` and `stop` has not come yet.
    fn searched(
        &mut self,
        agent: Box<dyn Agent<G>>,
        result: std::thread::Result<Decision<G>>,
        output: &mut impl Write,
    ) -> io::Result<()> {
        self.agent = Some(agent);
        let decision = result.unwrap_or_else(|panic| resume_unwind(panic));
        let search = self.search.as_mut().expect("a search was running");
        if search.infinite && !search.stop.is_set() {
            search.result = Some(decision);
            return Ok(());
        }
        self.search = None;
        write_lines(output, &[bestmove(&decision)])
    }

    /// Makes the running search (if any) return at once; an infinite search that already
    /// ended replies now.
    fn stop(&mut self, output: &mut impl Write) -> io::Result<()> {
        let Some(search) = &mut self.search else {
            return Ok(());
        };
        search.stop.stop();
        if let Some(decision) = search.result.take() {
            self.search = None;
            write_lines(output, &[bestmove(&decision)])?;
        }
        Ok(())
    }

    /// Waits for the running search (if any) to report and end, ignoring other input.
    fn wait(&mut self, inbox: &Receiver<Event<G>>, output: &mut impl Write) -> io::Result<()> {
        while self.search.is_some() {
            match inbox.recv().expect("the engine holds a sender") {
                Event::Info(line) => write_lines(output, &[line])?,
                Event::Searched(agent, result) => self.searched(agent, result, output)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn legal(&self) -> String {
        let moves = self.game.legal_moves();
        std::iter::once("legal".to_string())
            .chain(moves.iter().map(G::format_move))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `setoption name N value V`. `agent` picks a fresh spec (`alphabeta` or a whole spec
    /// such as `alphabeta:depth=4`), `seed` the seed, any other name one option of the spec.
    fn set_option(&mut self, args: &[&str]) -> Reply {
        let usage =
            "expected setoption name <name> value <value>, e.g. setoption name depth value 6";
        let [name_kw, name, value_kw, value @ ..] = args else {
            return fail(usage);
        };
        if !name_kw.eq_ignore_ascii_case("name")
            || !value_kw.eq_ignore_ascii_case("value")
            || value.is_empty()
        {
            return fail(usage);
        }
        let value = value.join(" ");
        match name.to_ascii_lowercase().as_str() {
            "agent" => self.install(value.parse()?, self.seed),
            "multipv" => {
                self.lines = settings::LINES
                    .parse(&value)
                    .map_err(|e| ProtocolError(format!("multipv: {e}")))?;
                Ok(vec![self.in_force()])
            }
            "seed" => match value.parse() {
                Ok(seed) => self.install(self.spec.clone(), seed),
                Err(_) => fail(format!(
                    "seed {value:?}: expected a whole number 0-{}",
                    u64::MAX
                )),
            },
            _ => {
                let mut spec = self.spec.clone();
                spec.set(name, &value);
                self.install(spec, self.seed)
            }
        }
    }

    /// Builds the agent first, so an invalid spec leaves the previous one in force.
    fn install(&mut self, spec: AgentSpec, seed: u64) -> Reply {
        self.agent = Some(spec.build(seed)?);
        self.spec = spec;
        self.seed = seed;
        Ok(vec![self.in_force()])
    }

    /// `ok agent SPEC seed N`, and ` multipv N` where more than one line is asked for.
    fn in_force(&self) -> String {
        let lines = match self.lines {
            1 => String::new(),
            n => format!(" multipv {n}"),
        };
        format!("ok agent {} seed {}{lines}", self.spec, self.seed)
    }
}

fn no_args(command: &str, args: &[&str]) -> Result<(), ProtocolError> {
    match args.first() {
        None => Ok(()),
        Some(extra) => fail(format!("{command} takes no arguments, got {extra:?}")),
    }
}

/// The position named by the words before `moves`: `startpos` or `fen` and the FEN, which
/// may contain spaces.
fn start_position<G: Rules>(setup: &[&str]) -> Result<G::Position, ProtocolError> {
    match setup.split_first() {
        Some((kind, [])) if kind.eq_ignore_ascii_case("startpos") => Ok(G::start()),
        Some((kind, fen)) if kind.eq_ignore_ascii_case("fen") => {
            G::parse_position(&fen.join(" ")).map_err(|e| ProtocolError(format!("bad FEN: {e}")))
        }
        _ => fail("expected position startpos [moves M1 ...] or position fen <FEN> [moves M1 ...]"),
    }
}

fn move_error(index: usize, e: NotationError) -> ProtocolError {
    ProtocolError(format!("move {} of the moves list: {e}", index + 1))
}

/// `depth N`, `movetime MS`, `nodes N` and the clocks in any order; those not given keep the
/// agent's own. The values are checked as agent specs check `depth=`, `time=` and `nodes=`.
/// Clocks (`wtime`, `btime`, `winc`, `binc`, `movestogo`) become a time for this move for
/// `mover` ([`Clocks::move_time`]); with `movetime` too, the shorter one.
fn parse_limits(args: &[&str], mover: Color) -> Result<Limits, ProtocolError> {
    let mut limits = Limits::default();
    if let Some((first, rest)) = args.split_first()
        && first.eq_ignore_ascii_case("infinite")
    {
        return match rest.first() {
            None => Ok(Limits {
                infinite: true,
                ..limits
            }),
            Some(extra) => fail(format!(
                "go infinite searches until stop and takes no other limit, got {extra:?}"
            )),
        };
    }
    let mut clocks = Clocks::default();
    let mut words = args.iter();
    while let Some(key) = words.next() {
        let value = words.next().copied();
        let ms = |value| limit(key, value, &settings::CLOCK_MS);
        match key.to_ascii_lowercase().as_str() {
            "depth" => limits.depth = Some(limit(key, value, &settings::DEPTH)?),
            "movetime" => {
                let ms = limit(key, value, &settings::MOVETIME_MS)?;
                limits.movetime = Some(Duration::from_millis(ms));
            }
            "nodes" => limits.nodes = Some(limit(key, value, &settings::NODES)?),
            "wtime" => clocks.time[0] = Some(ms(value)?),
            "btime" => clocks.time[1] = Some(ms(value)?),
            "winc" => clocks.increment[0] = ms(value)?,
            "binc" => clocks.increment[1] = ms(value)?,
            "movestogo" => clocks.moves_to_go = Some(limit(key, value, &settings::MOVES_TO_GO)?),
            _ => {
                return fail(format!(
                    "go: unknown limit {key:?}: expected depth N, movetime MS, nodes N, wtime \
                     MS, btime MS, winc MS, binc MS, movestogo N or infinite"
                ));
            }
        }
    }
    // A protocol error is the line the program is sent back: the cause's text is all of it.
    if let Some(t) = clocks
        .move_time(mover)
        .map_err(|e| ProtocolError(e.to_string()))?
    {
        limits.movetime = Some(limits.movetime.map_or(t, |m| m.min(t)));
    }
    Ok(limits)
}

/// The value after a `go` limit.
fn limit<T: SettingValue>(
    key: &str,
    value: Option<&str>,
    setting: &Setting<T>,
) -> Result<T, ProtocolError> {
    let Some(text) = value else {
        return fail(format!(
            "go {key}: expected {} after {key}",
            setting.expected()
        ));
    };
    setting
        .parse(text)
        .map_err(|e| ProtocolError(format!("go {key}: {e}")))
}

/// The last line of a `go`'s reply (its `info` lines came as the search reported).
fn bestmove<G: Rules>(decision: &Decision<G>) -> String {
    format!("bestmove {}", G::format_move(&decision.mv))
}

/// `info multipv K value V [PROOF] pv M1 M2 ...`: the K-th best move's line.
fn multipv_line<G: Rules>(rank: usize, line: &Line<G>) -> String {
    let mut text = format!("info multipv {rank} value {:+.2}", line.value);
    if let Some(proven) = line.proven {
        text += &format!(" [{}]", proven.describe());
    }
    text + " pv " + &pv_text::<G>(&line.pv)
}

/// `info value V [PROOF] SUMMARY`: the proof in brackets where the value is proven.
fn info_line<G: Rules>(analysis: &Analysis<G>) -> String {
    let mut line = format!("info value {:+.2}", analysis.value);
    if let Some(proven) = analysis.proven {
        line += &format!(" [{}]", proven.describe());
    }
    let summary = analysis.summary.trim();
    if !summary.is_empty() {
        line += &format!(" {summary}");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::{Position, parse_move};
    use proptest::prelude::*;

    /// Runs a whole session and returns its output lines.
    fn session(script: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        run::<Checkers>(io::Cursor::new(script.to_vec()), &mut out)
            .expect("writing to a Vec cannot fail");
        String::from_utf8(out)
            .expect("replies are UTF-8")
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn position_legal_and_fen() {
        let out = session(b"isready\n\n  \nposition startpos moves 11-15 23-19\nlegal\nfen\n");
        assert_eq!(out[0], "readyok");
        assert_eq!(out[1], "ok");
        assert_eq!(out[2], "legal 8-11 9-13 10-14 12-16 15-18 7-11 9-14");
        assert_eq!(
            out[3],
            "fen B:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
        );
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn fen_may_contain_spaces_and_moves_may_be_short() {
        // 1x10x19 written from-to; the FEN split over several words.
        let out = session(b"position fen B : W6,15 : B1 moves 1x19\nfen\nlegal\ngo\n");
        assert_eq!(out[0], "ok");
        assert_eq!(out[1], "fen W:W:B19");
        assert_eq!(out[2], "legal");
        assert_eq!(
            out[3],
            "error game over: Black wins: White has no legal move"
        );
    }

    /// The lines that are not `info` lines.
    fn replies(out: &[String]) -> Vec<&str> {
        out.iter()
            .map(String::as_str)
            .filter(|l| !l.starts_with("info "))
            .collect()
    }

    /// Alpha-beta reports each depth it completes, deepest last, before its move; a search
    /// stopped inside a depth reports its last completed depth again with its final count of
    /// nodes.
    #[test]
    fn go_answers_a_legal_move_and_keeps_the_position() {
        let out =
            session(b"position startpos moves 11-15\ngo depth 4\nfen\ngo nodes 50 movetime 1000\n");
        for depth in 1..=4 {
            let line = &out[depth];
            assert!(line.starts_with("info value "), "{out:?}");
            assert!(line.contains(&format!(" depth {depth} nodes ")), "{out:?}");
        }
        let mv = out[5].strip_prefix("bestmove ").expect("a bestmove line");
        let after_11_15 =
            Position::start().apply(&parse_move(&Position::start(), "11-15").unwrap());
        assert!(parse_move(&after_11_15, mv).is_ok(), "{mv}");
        assert!(
            out[6].starts_with("fen W:"),
            "go must not play its move: {out:?}"
        );
        let [.., last_depth, stopped, best] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(best.starts_with("bestmove "), "{out:?}");
        let depth_of = |l: &str| l.split(" nodes ").next().map(str::to_string);
        assert_eq!(depth_of(last_depth), depth_of(stopped), "{out:?}");
        assert!(stopped.contains(" nodes 50 "), "{out:?}");
    }

    /// `setoption name multipv value N` asks for the N best moves: each report is followed
    /// by one `info multipv K` line per move, best first, the first the move played; a bad
    /// count is refused and changes nothing.
    #[test]
    fn several_lines_each_get_an_info_line() {
        let out = session(
            b"setoption name multipv value 3
setoption name multipv value 0
go depth 3
",
        );
        assert_eq!(out[0], "ok agent alphabeta seed 0 multipv 3");
        assert!(
            out[1].starts_with("error multipv: expected a number of lines"),
            "{out:?}"
        );
        let best = out.last().unwrap().strip_prefix("bestmove ").unwrap();
        let last: Vec<&String> = out
            .iter()
            .rev()
            .skip(1)
            .take_while(|l| l.starts_with("info multipv "))
            .collect();
        let ranks: Vec<&str> = last
            .iter()
            .rev()
            .map(|l| l.split(' ').nth(2).unwrap())
            .collect();
        assert_eq!(ranks, ["1", "2", "3"], "{out:?}");
        assert!(
            last.last().unwrap().ends_with(&format!(" pv {best}"))
                || last.last().unwrap().contains(&format!(" pv {best} ")),
            "{out:?}"
        );
    }

    /// A proven value says so, in brackets, in the words of `Proven::describe`.
    #[test]
    fn proven_values_say_so() {
        let out = session(b"position fen W:W22:B18,10\ngo\n");
        assert_eq!(
            out[1..],
            [
                "info value +999.00 [win in 1 move] depth 1 nodes 1 pv 22x15x6",
                "bestmove 22x15x6"
            ]
        );
    }

    /// Commands sent during a search are answered after its bestmove, in order; at the end
    /// of input `go infinite` is stopped, since no `stop` can come.
    #[test]
    fn piped_scripts_get_replies_in_order() {
        let out = session(b"go depth 3\nfen\ngo infinite\nisready\nlegal 1\n");
        assert!(out[..3].iter().all(|l| l.starts_with("info ")), "{out:?}");
        let replies = replies(&out);
        assert!(replies[0].starts_with("bestmove "), "{out:?}");
        assert!(replies[1].starts_with("fen B:"), "{out:?}");
        assert!(replies[2].starts_with("bestmove "), "{out:?}");
        assert_eq!(replies[3], "readyok");
        assert!(replies[4].starts_with("error legal takes no arguments"));
        assert_eq!(replies.len(), 5, "{out:?}");
        let out = session(b"go infinite depth 3\ngo movetime 0\n");
        assert_eq!(
            out[0],
            "error go infinite searches until stop and takes no other limit, got \"depth\""
        );
        assert!(out[1].starts_with("error go movetime: expected milliseconds"));
    }

    #[test]
    fn illegal_moves_are_explained_and_the_old_position_stays() {
        let out = session(
            b"position startpos moves 11-15\nposition startpos moves 11-15 22-18 9-14\nfen\n",
        );
        assert_eq!(
            out[1],
            "error move 3 of the moves list: 9-14 is not legal: capture is compulsory: 15x22 is available"
        );
        assert!(out[2].starts_with("fen W:"), "{out:?}");
    }

    #[test]
    fn options_are_validated_by_building_the_agent() {
        let out = session(
            b"setoption name depth value 2\nsetoption name depht value 3\nsetoption name depth value 0\n\
              setoption name seed value 7\nsetoption name seed value -1\nsetoption name agent value random\n\
              setoption name depth value 3\nsetoption name agent value alphabeta:depth=3\n\
              setoption name agent value minimax\nsetoption depth 3\n",
        );
        assert_eq!(out[0], "ok agent alphabeta:depth=2 seed 0");
        assert!(
            out[1].starts_with("error agent alphabeta has no option \"depht\""),
            "{}",
            out[1]
        );
        assert!(
            out[2].starts_with("error alphabeta option depth: expected a search depth"),
            "{}",
            out[2]
        );
        assert_eq!(out[3], "ok agent alphabeta:depth=2 seed 7");
        assert!(out[4].starts_with("error seed \"-1\""), "{}", out[4]);
        assert_eq!(out[5], "ok agent random seed 7");
        assert!(out[6].contains("takes no options"), "{}", out[6]);
        assert_eq!(out[7], "ok agent alphabeta:depth=3 seed 7");
        assert!(
            out[8].starts_with("error unknown agent \"minimax\""),
            "{}",
            out[8]
        );
        assert!(
            out[9].starts_with("error expected setoption name"),
            "{}",
            out[9]
        );
        assert_eq!(out.len(), 10);
    }

    /// An option's older spelling sets the option as it is now called, replacing its value.
    #[test]
    fn older_option_spellings_set_the_option_they_are_now() {
        let out = session(
            b"setoption name agent value az:searches=2,device=cpu\nsetoption name batch value 4\n\
              setoption name leaf_batch value 2\nsetoption name c_visit value 30\n",
        );
        assert_eq!(
            out[1],
            "ok agent az:searches=2,device=cpu,leaf_batch=4 seed 0"
        );
        assert_eq!(
            out[2],
            "ok agent az:searches=2,device=cpu,leaf_batch=2 seed 0"
        );
        assert_eq!(
            out[3],
            "ok agent az:searches=2,device=cpu,leaf_batch=2,gumbel_c_visit=30 seed 0"
        );
    }

    /// Clocks become the mover's time for this move; a missing clock of the mover or a bad
    /// value is a one-line error.
    #[test]
    fn clocks_give_the_mover_a_share_of_its_time() {
        let time = |args: &str, mover| {
            let words: Vec<&str> = args.split_whitespace().collect();
            parse_limits(&words, mover)
                .map(|l| l.movetime.map(|t| t.as_millis()))
                .map_err(|e| e.0)
        };
        let w = Color::White;
        let b = Color::Black;
        assert_eq!(time("wtime 60000 btime 30000", w), Ok(Some(2000)));
        assert_eq!(time("wtime 60000 btime 30000", b), Ok(Some(1000)));
        assert_eq!(time("btime 30000 binc 400", b), Ok(Some(1300)));
        assert_eq!(time("btime 30000 movestogo 10", b), Ok(Some(3000)));
        // Never more than half the time left, never less than 1 ms; movetime caps it.
        assert_eq!(time("btime 3000 movestogo 1 binc 100", b), Ok(Some(1500)));
        assert_eq!(time("btime 0", b), Ok(Some(1)));
        assert_eq!(time("btime 60000 movetime 500", b), Ok(Some(500)));
        assert_eq!(time("depth 3", b), Ok(None));
        for (bad, needle) in [
            (
                "wtime 1000",
                "Black is to move, so its clock btime MS is needed",
            ),
            ("btime -1", "go btime: expected milliseconds"),
            (
                "btime 100 movestogo 0",
                "go movestogo: expected a number of moves",
            ),
            ("btime", "go btime: expected milliseconds"),
        ] {
            let e = time(bad, b).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    /// A depth, time or node count gets the same verdict and message whether it comes in an
    /// agent spec (play, match, tournaments), by `setoption` or as a `go` limit.
    #[test]
    fn limits_are_judged_alike_by_every_route() {
        for (spec_key, go_key, value, other) in [
            ("depth", "depth", "0", "nodes 100"),
            ("depth", "depth", "65", "nodes 100"),
            ("depth", "depth", "64", "nodes 100"),
            ("depth", "depth", "x", "nodes 100"),
            ("time", "movetime", "0", "depth 1"),
            ("time", "movetime", "1", "depth 1"),
            ("time", "movetime", "18446744073709551616", "depth 1"),
            ("nodes", "nodes", "0", "depth 1"),
            ("nodes", "nodes", "-5", "depth 1"),
            ("nodes", "nodes", "100", "depth 1"),
        ] {
            let by_spec = format!("alphabeta:{spec_key}={value}")
                .parse::<AgentSpec>()
                .and_then(|s| s.build::<crate::games::Checkers>(0).map(|_| ()));
            let out = session(
                format!("setoption name {spec_key} value {value}\ngo {go_key} {value} {other}\n")
                    .as_bytes(),
            );
            let case = format!("{spec_key}={value}: {out:?}");
            match by_spec {
                Ok(()) => {
                    assert!(out[0].starts_with("ok agent "), "{case}");
                    assert!(out.last().unwrap().starts_with("bestmove "), "{case}");
                }
                Err(e) => {
                    let e = e.to_string();
                    let message = e
                        .strip_prefix(&format!("alphabeta option {spec_key}: "))
                        .unwrap_or_else(|| panic!("{case}: {e}"));
                    assert_eq!(out[0], format!("error {e}"), "{case}");
                    assert_eq!(out[1], format!("error go {go_key}: {message}"), "{case}");
                    assert_eq!(out.len(), 2, "{case}");
                }
            }
        }
    }

    #[test]
    fn newgame_resets_and_quit_ends() {
        let out = session(b"position startpos moves 11-15\nnewgame\nfen\nquit\nisready\n");
        assert_eq!(
            out,
            [
                "ok",
                "ok",
                "fen B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
            ]
        );
    }

    #[test]
    fn bad_lines_get_one_error_line_each() {
        let script = "hello\nposition\nposition startpos 11-15\nposition fen X:W1:B2\n\
                      position startpos moves 11-15 banana\ngo depth\ngo depth x\ngo depth 0\n\
                      go speed 3\nisready now\nlegal 3\n";
        let out = session(script.as_bytes());
        let expected = [
            "error unknown command \"hello\": expected isready",
            "error expected position startpos",
            "error expected position startpos",
            "error bad FEN: FEN must start with the side to move",
            "error move 2 of the moves list: \"banana\" is not a move",
            "error go depth: expected a search depth, a whole number 1-64 after depth",
            "error go depth: expected a search depth, a whole number 1-64, got \"x\"",
            "error go depth: expected a search depth, a whole number 1-64, got \"0\"",
            "error go: unknown limit \"speed\"",
            "error isready takes no arguments",
            "error legal takes no arguments",
        ];
        assert_eq!(out.len(), expected.len(), "{out:?}");
        for (line, start) in out.iter().zip(expected) {
            assert!(
                line.starts_with(start),
                "{line:?} should start with {start:?}"
            );
        }
    }

    /// `quit` during a search stops it, but the commands sent before it still get their
    /// replies, in order: a search one of them starts runs to its limit, then the session ends
    /// and nothing after `quit` is carried out.
    #[test]
    fn quit_after_queued_commands_answers_them_first() {
        let out = session(
            b"go infinite\nfen\nposition startpos moves 11-15\ngo depth 2\nlegal\nquit\nfen\n",
        );
        let replies = replies(&out);
        assert_eq!(replies.len(), 5, "{out:?}");
        assert!(replies[0].starts_with("bestmove "), "{out:?}");
        assert!(replies[1].starts_with("fen B:W"), "{out:?}");
        assert_eq!(replies[2], "ok");
        assert!(replies[3].starts_with("bestmove "), "{out:?}");
        assert!(replies[4].starts_with("legal "), "{out:?}");
    }

    #[test]
    fn help_lists_every_command() {
        let out = session(b"help\n");
        for command in [
            "isready",
            "position",
            "go",
            "legal",
            "fen",
            "newgame",
            "setoption",
            "stop",
            "quit",
        ] {
            assert!(
                out.iter()
                    .any(|l| l.starts_with(&format!("help {command}"))),
                "{command}"
            );
        }
    }

    /// Words the protocol knows, so random lines reach deep into the parsers.
    const VOCABULARY: &[&str] = &[
        "position",
        "startpos",
        "fen",
        "moves",
        "go",
        "depth",
        "movetime",
        "nodes",
        "infinite",
        "stop",
        "legal",
        "isready",
        "newgame",
        "setoption",
        "name",
        "value",
        "agent",
        "seed",
        "random",
        "alphabeta",
        "king",
        "hash",
        "help",
        "B:W21-32:B1-12",
        "W:WK1:B2",
        "B:W:B",
        "11-15",
        "22-18",
        "15x22",
        "9x18x27",
        "1",
        "2",
        "3",
        "0",
        "-1",
        "x",
        "18446744073709551616",
        "\u{0}",
        "\r",
        "é",
        "K",
    ];

    fn garbage_line() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,40}",
            prop::collection::vec(prop::sample::select(VOCABULARY), 0..8).prop_map(|w| w.join(" ")),
        ]
    }

    proptest! {
        #![proptest_config(crate::test_support::proptest_config(200))]

        /// Nothing panics, and every reply line is one of the protocol's.
        #[test]
        fn garbage_never_panics(lines in prop::collection::vec(garbage_line(), 0..12)) {
            // Small searches keep the cases fast; the garbage may change them again.
            let script = format!("setoption name depth value 3\n{}\n", lines.join("\n"));
            for line in session(script.as_bytes()) {
                let known = ["readyok", "ok", "legal", "fen ", "info ", "bestmove ", "help ", "error "];
                prop_assert!(known.iter().any(|k| line.starts_with(k)), "{:?}", line);
            }
        }

        #[test]
        fn raw_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            session(&bytes);
        }
    }
}
