//! The line protocol on stdin/stdout, for scripts, GUIs and other engines
//! (docs/engine-protocol.md describes it for users).
//!
//! One command per line. Every non-blank line gets exactly one reply line, except `go`
//! (its `bestmove` may follow `info` lines), `help` (several lines) and `quit` (none), so a
//! script can read one reply per command. A bad line gets one `error ...` line and leaves
//! the session as it was.

use crate::agents::settings::{self, Setting};
use crate::agents::{Agent, AgentError, AgentSpec, Analysis, Limits};
use crate::game::{Game, NotationError, Position, move_to_pdn, parse_fen, to_fen};
use crate::input::read_line;
use std::fmt::Display;
use std::io::{self, BufRead, Write};
use std::str::FromStr;
use std::time::Duration;

/// The agent a session starts with (its own default depth is 6).
const DEFAULT_AGENT: &str = "alphabeta";

const COMMANDS: &str = "isready, position, go, legal, fen, newgame, setoption, help or quit";

const HELP: &[&str] = &[
    "isready: replies readyok",
    "position startpos [moves M1 M2 ...] | position fen FEN [moves M1 M2 ...]: sets the position; replies ok",
    "go [depth N] [movetime MS] [nodes N]: replies info lines, then bestmove MOVE",
    "legal: replies legal M1 M2 ... (every legal move, full PDN path)",
    "fen: replies fen FEN (the current position)",
    "newgame: back to the start position, the agent forgets the last game; replies ok",
    "setoption name agent|seed|OPTION value V: replies ok agent SPEC seed N",
    "help: this list",
    "quit: ends the session",
];

/// A one-line reason why a command was not carried out.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct ProtocolError(String);

impl From<AgentError> for ProtocolError {
    fn from(e: AgentError) -> Self {
        ProtocolError(e.0)
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

/// Runs a protocol session until `quit` or end of input.
pub fn run(mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut engine = Engine::new();
    while let Some(line) = read_line(&mut input)? {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            continue;
        };
        if command.eq_ignore_ascii_case("quit") {
            break;
        }
        let reply = engine
            .execute(command, args)
            .unwrap_or_else(|e| vec![format!("error {e}")]);
        for line in reply {
            writeln!(output, "{}", one_line(&line))?;
        }
        // Scripts wait for each reply line by line.
        output.flush()?;
    }
    Ok(())
}

/// Control characters (newlines above all) would split a reply; garbage input can carry
/// them into error messages.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A session's state: the game so far and the agent that answers `go`.
struct Engine {
    game: Game,
    spec: AgentSpec,
    seed: u64,
    agent: Box<dyn Agent>,
}

impl Engine {
    fn new() -> Engine {
        let spec = AgentSpec::new(DEFAULT_AGENT);
        let agent = spec.build(0).expect("the default agent spec is valid");
        Engine {
            game: Game::new(),
            spec,
            seed: 0,
            agent,
        }
    }

    fn execute(&mut self, command: &str, args: &[&str]) -> Reply {
        match command.to_ascii_lowercase().as_str() {
            "isready" => no_args(command, args).map(|()| vec!["readyok".into()]),
            "position" => self.position(args),
            "go" => self.go(args),
            "legal" => no_args(command, args).map(|()| vec![self.legal()]),
            "fen" => {
                no_args(command, args)?;
                Ok(vec![format!("fen {}", to_fen(self.game.position()))])
            }
            "newgame" => {
                no_args(command, args)?;
                self.game = Game::new();
                self.agent.new_game();
                ok()
            }
            "setoption" => self.set_option(args),
            "help" => Ok(HELP.iter().map(|line| format!("help {line}")).collect()),
            _ => fail(format!("unknown command {command:?}: expected {COMMANDS}")),
        }
    }

    /// `position startpos|fen FEN [moves ...]`: the new game replaces the old one only if
    /// the start and every move are valid.
    fn position(&mut self, args: &[&str]) -> Reply {
        let (setup, moves) = match args.iter().position(|a| a.eq_ignore_ascii_case("moves")) {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let mut game = Game::from_position(start_position(setup)?);
        for (i, text) in moves.iter().enumerate() {
            game.play_text(text).map_err(|e| move_error(i, e))?;
        }
        self.game = game;
        ok()
    }

    fn go(&mut self, args: &[&str]) -> Reply {
        let limits = parse_limits(args)?;
        if let Some(outcome) = self.game.outcome() {
            return fail(format!("game over: {outcome}"));
        }
        let decision = self.agent.select(&self.game, &limits);
        let mut reply: Vec<String> = decision.analysis.iter().map(info_line).collect();
        reply.push(format!("bestmove {}", move_to_pdn(&decision.mv)));
        Ok(reply)
    }

    fn legal(&self) -> String {
        let moves = self.game.legal_moves();
        std::iter::once("legal".to_string())
            .chain(moves.iter().map(move_to_pdn))
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
        self.agent = spec.build(seed)?;
        self.spec = spec;
        self.seed = seed;
        Ok(vec![format!("ok agent {} seed {seed}", self.spec)])
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
fn start_position(setup: &[&str]) -> Result<Position, ProtocolError> {
    match setup.split_first() {
        Some((kind, [])) if kind.eq_ignore_ascii_case("startpos") => Ok(Position::start()),
        Some((kind, fen)) if kind.eq_ignore_ascii_case("fen") => {
            parse_fen(&fen.join(" ")).map_err(|e| ProtocolError(format!("bad FEN: {e}")))
        }
        _ => fail("expected position startpos [moves M1 ...] or position fen <FEN> [moves M1 ...]"),
    }
}

fn move_error(index: usize, e: NotationError) -> ProtocolError {
    ProtocolError(format!("move {} of the moves list: {e}", index + 1))
}

/// `depth N`, `movetime MS` and `nodes N` in any order; those not given keep the agent's own.
/// The values are checked as agent specs check `depth=`, `time=` and `nodes=`.
fn parse_limits(args: &[&str]) -> Result<Limits, ProtocolError> {
    let mut limits = Limits::default();
    let mut words = args.iter();
    while let Some(key) = words.next() {
        let value = words.next().copied();
        match key.to_ascii_lowercase().as_str() {
            "depth" => limits.depth = Some(limit(key, value, &settings::DEPTH)?),
            "movetime" => {
                let ms = limit(key, value, &settings::MOVETIME_MS)?;
                limits.movetime = Some(Duration::from_millis(ms));
            }
            "nodes" => limits.nodes = Some(limit(key, value, &settings::NODES)?),
            _ => {
                return fail(format!(
                    "go: unknown limit {key:?}: expected depth N, movetime MS or nodes N"
                ));
            }
        }
    }
    Ok(limits)
}

/// The value after a `go` limit.
fn limit<T: FromStr + Display>(
    key: &str,
    value: Option<&str>,
    setting: &Setting<T>,
) -> Result<T, ProtocolError> {
    let Some(text) = value else {
        return fail(format!(
            "go {key}: expected {} after {key}",
            setting.expected
        ));
    };
    setting
        .parse(text)
        .map_err(|e| ProtocolError(format!("go {key}: {e}")))
}

fn info_line(analysis: &Analysis) -> String {
    let summary = analysis.summary.trim();
    if summary.is_empty() {
        format!("info value {:+.2}", analysis.value)
    } else {
        format!("info value {:+.2} {summary}", analysis.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::parse_move;
    use proptest::prelude::*;

    /// Runs a whole session and returns its output lines.
    fn session(script: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        run(io::Cursor::new(script.to_vec()), &mut out).expect("writing to a Vec cannot fail");
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

    #[test]
    fn go_answers_a_legal_move_and_keeps_the_position() {
        let out =
            session(b"position startpos moves 11-15\ngo depth 4\nfen\ngo nodes 50 movetime 1000\n");
        assert!(
            out[1].starts_with("info value ") && out[1].contains("depth 4"),
            "{out:?}"
        );
        let mv = out[2].strip_prefix("bestmove ").expect("a bestmove line");
        let after_11_15 =
            Position::start().apply(&parse_move(&Position::start(), "11-15").unwrap());
        assert!(parse_move(&after_11_15, mv).is_ok(), "{mv}");
        assert!(
            out[3].starts_with("fen W:"),
            "go must not play its move: {out:?}"
        );
        assert!(out[5].starts_with("bestmove "), "{out:?}");
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
                .and_then(|s| s.build(0).map(|_| ()))
                .map_err(|e| e.0);
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
        #![proptest_config(ProptestConfig::with_cases(200))]

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
