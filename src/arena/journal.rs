//! `match --journal FILE`: a match that survives being stopped. Each finished game is
//! appended to the file as one JSON line (and synced) as it ends; a match started again
//! with the same file and settings plays only the games the file lacks. Matches at a second
//! a move over all 314 ballot games take hours; this lets them span several sittings. A
//! journal of a shorter match of the same agents, openings and seed holds the first rounds
//! of a longer one (a round's opening, colours and seeds do not depend on the match's
//! length): the longer match takes it over, its header rewritten, and plays the rest. The
//! match holds a lock on the file while it plays, so a second one on it is refused.

use super::openings::{ArenaGame, OpeningSet};
use super::series::{
    MatchConfig, MatchGame, MatchReport, Thinking, match_length, names, play_rounds, round_start,
};
use crate::agents::{AgentError, AgentGame, AgentSpec, kinds};
use crate::errors::{Caused, Context};
use crate::files::{FileError, checksum, file_error};
use crate::games::{Color, DrawReason, Game, Outcome, WinReason};
use crate::names::Named;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// One finished game: its moves after the opening, and the result where a length cap or
/// the endgame databases imposed it (the rules give every other result again when the
/// moves are replayed).
#[derive(Serialize, Deserialize)]
struct Entry {
    round: usize,
    moves: Vec<String>,
    adjudicated: Option<String>,
    /// The result was the endgame databases' (`adjudicated` holds it), not a length cap's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    proven: bool,
    /// The first and the second agent's thinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thinking: Option<[Thinking; 2]>,
}

/// What identifies the match a journal belongs to; `networks` are the hashes of the files
/// of the networks the agents play, so that a journal is not resumed by other networks
/// under the same names (a model file trained on, the built-in network replaced).
fn header<G: ArenaGame + AgentGame>(config: &MatchConfig<G>, first: &str, second: &str) -> Value {
    json!({
        "journal": "checkers-zero match",
        "game": G::NAME.name(),
        "first": first,
        "second": second,
        "networks": [network_hash::<G>(first), network_hash::<G>(second)],
        "games": match_length(config),
        "openings": format!("{:?}", config.series.openings),
        "seed": config.series.seed,
        "max_plies": config.series.game.max_plies,
    })
}

/// FNV-1a 64 (hex) of the network file the agent named `name` plays: its `model` file, or
/// the built-in network for `az` without one; none for agents without a network (or whose
/// file cannot be read: building the agent says why).
fn network_hash<G: AgentGame>(name: &str) -> Option<String> {
    let spec: AgentSpec = name.parse().ok()?;
    let bytes = match spec.get(kinds::az::MODEL.key()) {
        Some(path) => std::fs::read(path).ok()?,
        None if spec.kind == kinds::AZ.kind => G::DEFAULT_MODEL.to_vec(),
        None => return None,
    };
    Some(format!("{:016x}", checksum(&bytes)))
}

fn entry<G: ArenaGame>(g: &MatchGame<G>, opening_plies: usize) -> Entry {
    let (adjudicated, proven) = match g.game.outcome() {
        Some(Outcome::Win(c, r @ (WinReason::Adjudication | WinReason::Proven))) => {
            (Some(c.name().to_lowercase()), r == WinReason::Proven)
        }
        Some(Outcome::Draw(r @ (DrawReason::Adjudication | DrawReason::Proven))) => {
            (Some("draw".into()), r == DrawReason::Proven)
        }
        _ => (None, false),
    };
    Entry {
        round: g.round,
        moves: g.game.moves()[opening_plies..]
            .iter()
            .map(G::format_move)
            .collect(),
        adjudicated,
        proven,
        thinking: g.thinking,
    }
}

/// The game an entry records, replayed from its opening.
fn replay<G: ArenaGame>(start: Game<G>, e: &Entry) -> Result<Game<G>, String> {
    let mut game = start;
    for mv in &e.moves {
        game.play_text(mv).map_err(|err| err.0)?;
    }
    match e.adjudicated.as_deref() {
        None => {}
        Some(result) => game.impose(match (result, e.proven) {
            ("black", false) => Outcome::Win(Color::Black, WinReason::Adjudication),
            ("white", false) => Outcome::Win(Color::White, WinReason::Adjudication),
            ("draw", false) => Outcome::Draw(DrawReason::Adjudication),
            ("black", true) => Outcome::Win(Color::Black, WinReason::Proven),
            ("white", true) => Outcome::Win(Color::White, WinReason::Proven),
            ("draw", true) => Outcome::Draw(DrawReason::Proven),
            (other, _) => {
                return Err(format!(
                    "adjudicated {other:?}: expected black, white or draw"
                ));
            }
        }),
    }
    if game.outcome().is_none() {
        return Err("the game has no result".into());
    }
    Ok(game)
}

/// A journal as read: the games it holds and how many of its bytes are whole lines.
struct Journal<G: ArenaGame> {
    games: Vec<MatchGame<G>>,
    whole: usize,
    /// The games of the shorter match it was the journal of, where this match extends it.
    extends: Option<usize>,
}

/// Whether a journal's header `found` is that of the match `want`: the same fields, the
/// agents compared as the agents their names build, so a journal written under an earlier
/// form of the same agent's name (`az:searches=200,time=100`, now `az:time=100`) resumes.
fn same_match<G: AgentGame>(found: &Value, want: &Value) -> bool {
    let canonical = |header: &Value| {
        let mut header = header.clone();
        // Journals from before networks were recorded resume on the names alone.
        if let Some(h) = header.as_object_mut()
            && found.get("networks").is_none()
        {
            h.remove("networks");
        }
        for key in ["first", "second"] {
            let built = header[key]
                .as_str()
                .and_then(|name| name.parse::<AgentSpec>().ok())
                .and_then(|spec| spec.build::<G>(0).ok());
            if let Some(agent) = built {
                header[key] = json!(agent.name());
            }
        }
        header
    };
    found == want || canonical(found) == canonical(want)
}

/// Why a journal cannot be read, resumed or written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error(transparent)]
    File(#[from] FileError),
    /// Another match's journal, one being written, a damaged line.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// A line that is not one of the journal's entries.
    #[error(transparent)]
    Unreadable(#[from] Caused),
}

type Result<T, E = JournalError> = std::result::Result<T, E>;

/// Reads the journal at `path` (none yet: empty), checking it belongs to this match.
fn read<G: ArenaGame + AgentGame>(
    config: &MatchConfig<G>,
    path: &Path,
    want: &Value,
) -> Result<Journal<G>> {
    let total = match_length(config);
    let starts = G::starting_games(config.series.openings);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(file_error("read", path)(e).into()),
    };
    // Only whole lines count: a line cut short by a kill is dropped.
    let whole = text.rfind('\n').map_or(0, |end| end + 1);
    let mut lines = text[..whole].lines();
    let mut games: Vec<MatchGame<G>> = Vec::new();
    let mut extends = None;
    if let Some(line) = lines.next() {
        let found: Value = serde_json::from_str(line).map_err(|e| {
            JournalError::Refused(format!("{}: not a match journal ({e})", path.display()))
        })?;
        if found
            .get("networks")
            .is_some_and(|n| *n != want["networks"])
        {
            return Err(JournalError::Refused(format!(
                "{}: its games were played by the networks {} and this match's are {} (a \
                 model file changed, or the built-in network); give another journal, or \
                 remove it to start again",
                path.display(),
                found["networks"],
                want["networks"]
            )));
        }
        // A round's opening, colours and seeds do not depend on the match's length, so a
        // shorter match's games are the first rounds of a longer one.
        let shorter = found["games"]
            .as_u64()
            .map(|n| n as usize)
            .filter(|&n| n < total);
        let mut as_long = found.clone();
        if shorter.is_some() {
            as_long["games"] = want["games"].clone();
        }
        extends = shorter;
        if !same_match::<G>(&as_long, want) {
            return Err(JournalError::Refused(format!(
                "{} is the journal of another match ({found}); this one is {want}: give \
                 another file, or remove it to start again",
                path.display()
            )));
        }
    }
    for (i, line) in lines.enumerate() {
        let bad = |why: String| {
            JournalError::Refused(format!("{} line {}: {why}", path.display(), i + 2))
        };
        let e: Entry =
            serde_json::from_str(line).context(|| format!("{} line {}", path.display(), i + 2))?;
        if e.round >= total || games.iter().any(|g| g.round == e.round) {
            return Err(bad(format!("round {} is out of range or twice", e.round)));
        }
        let (opening, first_color, start) = round_start(&starts, e.round);
        let game = replay(start, &e).map_err(bad)?;
        games.push(MatchGame {
            round: e.round,
            opening,
            first_color,
            game,
            thinking: e.thinking,
        });
    }
    games.sort_by_key(|g| g.round);
    Ok(Journal {
        games,
        whole,
        extends,
    })
}

/// The journal at `path`, opened to append and locked: one match writes it at a time (two
/// would play the same games and write each round twice).
fn open_locked(path: &Path) -> Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(file_error("open", path))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(JournalError::Refused(format!(
            "{} is being written by another match (the same command started twice?): wait \
             for it to end or stop it",
            path.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(file_error("lock", path)(e).into()),
    }
}

/// Rewrites the journal at `path` (its first `whole` bytes) under the header `want` of the
/// longer match it now belongs to, whole or not at all; returns it opened and locked again,
/// as the file at `path` is a new one.
fn extend(path: &Path, whole: usize, want: &Value) -> Result<std::fs::File> {
    let text = std::fs::read_to_string(path).map_err(file_error("read", path))?;
    let body = text[..whole].split_once('\n').map_or("", |(_, rest)| rest);
    let bytes = format!("{want}\n{body}");
    crate::files::write_atomic(path, bytes.as_bytes()).map_err(file_error("write", path))?;
    open_locked(path)
}

/// The games the journal at `path` holds so far, as a report, and how many the match has
/// in all; plays nothing and writes nothing (a match may be adding to the file meanwhile).
pub fn journal_status<G: ArenaGame + AgentGame>(
    config: &MatchConfig<G>,
    path: &Path,
) -> Result<(MatchReport<G>, usize)> {
    let (first, second) = names(config)?;
    let journal = read(config, path, &header(config, &first, &second))?;
    let report = MatchReport {
        first,
        second,
        games: journal.games,
    };
    Ok((report, match_length(config)))
}

/// Every finished game a journal of game `G` holds, whatever its match, replayed from its
/// opening, with the colour its first agent played: match records as data (the classic
/// evaluation's weights are fitted to them; self-play starts from their positions).
pub fn journal_games<G: ArenaGame>(path: &Path) -> Result<Vec<(Game<G>, Color)>> {
    let text = std::fs::read_to_string(path).map_err(file_error("read", path))?;
    let refused = |why: String| JournalError::Refused(format!("{}: {why}", path.display()));
    let mut lines = text.lines();
    let header: Value = lines
        .next()
        .and_then(|line| serde_json::from_str(line).ok())
        .filter(|h: &Value| h["journal"] == "checkers-zero match")
        .ok_or_else(|| refused("not a match journal".into()))?;
    if header["game"] != G::NAME.name() {
        return Err(refused(format!(
            "a journal of {}, not {}",
            header["game"],
            G::NAME.name()
        )));
    }
    let openings = OpeningSet::ALL
        .iter()
        .find(|o| header["openings"] == format!("{o:?}"))
        .ok_or_else(|| refused(format!("openings {}: not known", header["openings"])))?;
    let starts = G::starting_games(*openings);
    lines
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let bad = |why: String| refused(format!("line {}: {why}", i + 2));
            let e: Entry = serde_json::from_str(line)
                .context(|| format!("{}: line {}", path.display(), i + 2))?;
            let (_, first_color, start) = round_start(&starts, e.round);
            Ok((replay(start, &e).map_err(bad)?, first_color))
        })
        .collect()
}

/// Plays the match, recording each finished game in `path` and playing only the games it
/// does not hold yet.
pub fn run_match_journaled<G: ArenaGame + AgentGame>(
    config: &MatchConfig<G>,
    path: &Path,
) -> Result<MatchReport<G>> {
    let (first, second) = names(config)?;
    let want = header(config, &first, &second);
    let total = match_length(config);
    let starts = G::starting_games(config.series.openings);
    // Read only under the lock, so no other run's games land unseen.
    let mut file = open_locked(path)?;
    let Journal {
        games: mut done,
        whole,
        extends,
    } = read(config, path, &want)?;
    if let Some(from) = extends {
        file = extend(path, whole, &want)?;
        eprintln!(
            "{}: the journal of {from} games now holds the first rounds of this match of {total}",
            path.display()
        );
    }
    file.set_len(whole as u64)
        .and_then(|_| {
            use std::io::Seek;
            file.seek(std::io::SeekFrom::End(0))?;
            if whole == 0 {
                writeln!(file, "{want}")?;
            }
            file.sync_data()
        })
        .map_err(file_error("write", path))?;
    let file = Mutex::new(file);
    let rounds: Vec<usize> = (0..total)
        .filter(|r| !done.iter().any(|g| g.round == *r))
        .collect();
    let append = |g: &MatchGame<G>| -> Result<(), AgentError> {
        let opening_plies = round_start(&starts, g.round).2.ply();
        let line = serde_json::to_string(&entry(g, opening_plies)).expect("entries serialise");
        let mut f = file.lock().unwrap_or_else(|e| e.into_inner());
        writeln!(f, "{line}")
            .and_then(|_| f.sync_data())
            .map_err(|e| file_error("write", path)(e).into())
    };
    let mut games = play_rounds(config, rounds, &done, &first, &second, append)?;
    games.append(&mut done);
    games.sort_by_key(|g| g.round);
    Ok(MatchReport {
        first,
        second,
        games,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{GameConfig, OpeningSet, Series, run_match};
    use crate::games::Checkers;
    use crate::net::NetGame;

    fn config(games: usize, max_plies: Option<usize>) -> MatchConfig {
        let player = |s: &str| s.parse::<AgentSpec>().unwrap().into();
        MatchConfig {
            first: player("alphabeta:depth=2"),
            second: player("random"),
            series: Series {
                games: Some(games),
                openings: OpeningSet::Standard,
                seed: 4,
                game: GameConfig {
                    max_plies,
                    exact_endings: false,
                },
                progress: false,
            },
        }
    }

    /// The journal names the networks' files by hash: the same names with another file
    /// (a model trained on since) do not resume it; a journal from before hashes were kept
    /// resumes on the names.
    #[test]
    fn a_journal_resumes_only_with_the_networks_it_was_played_by() {
        let dir = std::env::temp_dir().join(format!("cz-journal-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (model, path) = (dir.join("net.bin"), dir.join("m.jsonl"));
        std::fs::write(&model, Checkers::DEFAULT_MODEL).unwrap();
        let spec = format!("az:model={},searches=2,device=cpu", model.display());
        let c = MatchConfig {
            first: spec.parse::<AgentSpec>().unwrap().into(),
            ..config(2, Some(12))
        };
        run_match_journaled(&c, &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let built_in = format!("{:016x}", checksum(Checkers::DEFAULT_MODEL));
        assert_eq!(header["networks"], json!([built_in, null]));
        assert_eq!(journal_status(&c, &path).unwrap().0.games.len(), 2);
        // The same file name, another network.
        let other = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/results/dark-swa10b-50-99.ckpt"
        );
        std::fs::copy(other, &model).unwrap();
        let e = journal_status(&c, &path).err().unwrap().to_string();
        assert!(e.contains("were played by the networks"), "{e}");
        // A journal without the networks' hashes resumes by its names.
        std::fs::write(&model, Checkers::DEFAULT_MODEL).unwrap();
        let mut old = header.clone();
        old.as_object_mut().unwrap().remove("networks");
        let rest: Vec<&str> = text.lines().skip(1).collect();
        std::fs::write(&path, format!("{old}\n{}\n", rest.join("\n"))).unwrap();
        assert_eq!(journal_status(&c, &path).unwrap().0.games.len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stopped_match_resumes_to_the_same_games() {
        let dir = std::env::temp_dir().join(format!("cz-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.jsonl");
        // Adjudicated games (a short cap) must come back with their imposed results.
        let c = config(6, Some(30));
        let straight = run_match(&c).unwrap();
        let full = run_match_journaled(&c, &path).unwrap();
        assert_eq!(full.pdn(), straight.pdn());
        // Keep the header and two games, and half of a third line (a kill mid-write).
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7);
        let cut = format!(
            "{}\n{}\n{}\n{}",
            lines[0],
            lines[3],
            lines[1],
            &lines[2][..9]
        );
        std::fs::write(&path, cut).unwrap();
        let (so_far, total) = journal_status(&c, &path).unwrap();
        assert_eq!((so_far.games.len(), total), (2, 6));
        // Lines are written as games end, in any order; the report is in round order.
        assert!(so_far.games[0].round < so_far.games[1].round);
        let resumed = run_match_journaled(&c, &path).unwrap();
        assert_eq!(resumed.pdn(), straight.pdn());
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 7);
        // Nothing left to play: the journal alone gives the report.
        assert_eq!(
            run_match_journaled(&c, &path).unwrap().summary(),
            straight.summary()
        );
        // Another match's journal is refused (a shorter match's too), as is a damaged line.
        let e = run_match_journaled(&config(4, Some(30)), &path)
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("is the journal of another match"),
            "{e}"
        );
        std::fs::write(
            &path,
            format!("{}\n{{\"round\": 1, \"moves\": [\"11-16\"]}}\n", lines[0]),
        )
        .unwrap();
        let e = format!("{:#}", run_match_journaled(&c, &path).err().unwrap());
        assert!(e.contains("m.jsonl line 2:"), "{e}");
        // While another match writes the journal, a second is refused and changes nothing.
        std::fs::write(&path, &text).unwrap();
        let other = std::fs::File::open(&path).unwrap();
        other.lock().unwrap();
        let e = run_match_journaled(&c, &path).err().unwrap().to_string();
        assert!(e.contains("is being written by another match"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        drop(other);
        assert_eq!(
            run_match_journaled(&c, &path).unwrap().summary(),
            straight.summary()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_shorter_matchs_journal_becomes_the_first_rounds_of_a_longer_one() {
        let dir = std::env::temp_dir().join(format!("cz-journal-ext-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.jsonl");
        let (short, long) = (config(4, Some(30)), config(8, Some(30)));
        run_match_journaled(&short, &path).unwrap();
        let before = std::fs::read_to_string(&path).unwrap();
        let extended = run_match_journaled(&long, &path).unwrap();
        assert_eq!(extended.pdn(), run_match(&long).unwrap().pdn());
        let after = std::fs::read_to_string(&path).unwrap();
        let (lines, old): (Vec<&str>, Vec<&str>) =
            (after.lines().collect(), before.lines().collect());
        assert_eq!(lines.len(), 9);
        let games = |line: &str| serde_json::from_str::<Value>(line).unwrap()["games"].clone();
        assert_eq!((games(old[0]), games(lines[0])), (json!(4), json!(8)));
        assert_eq!(
            lines[1..5],
            old[1..5],
            "the shorter match's games are kept as they were"
        );
        // Now the longer match's journal: the shorter match is another.
        let e = run_match_journaled(&short, &path)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("is the journal of another match"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The shipped journals were written when `az` named itself with its default
    /// `searches=200` and alpha-beta its default depth: the same matches under today's names
    /// still resume from them.
    #[test]
    fn journals_written_under_earlier_names_resume() {
        let first_line =
            |text: &str| -> Value { serde_json::from_str(text.lines().next().unwrap()).unwrap() };
        for (text, first, second) in [
            (
                include_str!("../../results/az-time100-vs-alphabeta-time100.jsonl"),
                "az:time=100,device=cpu",
                "alphabeta:time=100",
            ),
            (
                include_str!("../../results/az-time1000-vs-alphabeta-depth8.jsonl"),
                "az:time=1000",
                "alphabeta:depth=8",
            ),
        ] {
            let found = first_line(text);
            let c: MatchConfig = MatchConfig {
                first: first.parse::<AgentSpec>().unwrap().into(),
                second: second.parse::<AgentSpec>().unwrap().into(),
                series: Series {
                    games: None,
                    openings: OpeningSet::Standard,
                    seed: 1,
                    game: GameConfig::default(),
                    progress: false,
                },
            };
            let (a, b) = names(&c).unwrap();
            assert_ne!(found["first"], json!(a), "the name's form did change");
            assert!(same_match::<Checkers>(&found, &header(&c, &a, &b)));
            let other = header(&c, "az:time=200", &b);
            assert!(!same_match::<Checkers>(&found, &other));
        }
    }
}
