//! Checkers' endgame databases: the index against the published counts, values against an
//! independent solver and known results, distances against an exhaustive search, resuming,
//! and damaged or foreign folders refused.

use checkers_zero::endgame::egdb::{
    self, BuildOptions, Endgames, Value, indexed_positions, random_position,
};
use checkers_zero::games::checkers::{Color, Position, legal_moves, parse_fen};
use rand::SeedableRng;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cz-egdb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn build(pieces: u32, out: &Path) -> Vec<egdb::SliceReport> {
    let opts = BuildOptions {
        pieces,
        kings_only: 0,
        out: out.to_path_buf(),
        progress: false,
    };
    egdb::build(&opts).expect("the build runs")
}

/// The four-piece databases, built once for the tests of this binary.
fn four() -> &'static Endgames {
    static DB: OnceLock<Endgames> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = scratch("four");
        build(4, &dir);
        Endgames::open(&dir).expect("the folder opens")
    })
}

#[test]
fn the_index_holds_the_published_number_of_positions() {
    // Piece placements of 1 to 5 pieces (each counted once, as the published table does).
    assert_eq!(
        indexed_positions(5),
        [120, 6_972, 261_224, 7_092_774, 148_688_232]
    );
}

/// Every position of up to `n` pieces with `turn` to move, found without the database's index.
fn all_positions(n: u32) -> Vec<Position> {
    let mut out = Vec::new();
    // Each square holds nothing, a black man or king, or a white man or king.
    fn place(sq: u8, left: u32, b: u32, w: u32, k: u32, out: &mut Vec<Position>) {
        if sq == 32 || left == 0 {
            if b | w != 0 {
                for turn in [Color::Black, Color::White] {
                    out.push(Position::from_bitboards(b, w, k, turn).expect("disjoint"));
                }
            }
            return;
        }
        let bit = 1u32 << sq;
        place(sq + 1, left, b, w, k, out);
        if sq < 28 {
            place(sq + 1, left - 1, b | bit, w, k, out);
        }
        place(sq + 1, left - 1, b | bit, w, k | bit, out);
        if sq >= 4 {
            place(sq + 1, left - 1, b, w | bit, k, out);
        }
        place(sq + 1, left - 1, b, w | bit, k | bit, out);
    }
    place(0, n, 0, 0, 0, &mut out);
    out
}

#[test]
fn values_match_an_independent_solver_for_every_position_of_up_to_three_pieces() {
    // Repeated sweeps until nothing changes: won if a move reaches a lost position, lost if
    // every move reaches a won one (or there is no move); what is left is drawn. This uses
    // only the move generator: no index, no slices, no backward moves.
    let positions = all_positions(3);
    let mut value: HashMap<Position, Value> = HashMap::new();
    loop {
        let mut changed = false;
        for pos in &positions {
            if value.contains_key(pos) {
                continue;
            }
            let children: Vec<Option<Value>> = legal_moves(pos)
                .iter()
                .map(|m| {
                    let next = pos.apply(m);
                    if next.pieces(next.turn()) == 0 {
                        Some(Value::Loss)
                    } else {
                        value.get(&next).copied()
                    }
                })
                .collect();
            let v = if children.contains(&Some(Value::Loss)) {
                Some(Value::Win)
            } else if children.iter().all(|c| *c == Some(Value::Win)) {
                Some(Value::Loss)
            } else {
                None
            };
            if let Some(v) = v {
                value.insert(*pos, v);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let db = four();
    let mut counts = HashMap::new();
    for pos in &positions {
        let expected = value.get(pos).copied().unwrap_or(Value::Draw);
        let probed = db.probe(pos).expect("in the databases").value;
        assert_eq!(
            probed,
            expected,
            "{}",
            checkers_zero::games::checkers::to_fen(pos)
        );
        *counts.entry(expected).or_insert(0) += 1;
    }
    // All three values occur, so the comparison is not of one constant.
    assert_eq!(counts.len(), 3, "{counts:?}");
}

/// Whether the winner forces, within `plies` plies, a conversion that keeps its win, from
/// `pos` with the winner to move (`winner_to_move`) or the loser: the search to the end of
/// the king manoeuvres that a distance claims.
fn forces_conversion(db: &Endgames, pos: &Position, plies: u16, winner_to_move: bool) -> bool {
    let moves = legal_moves(pos);
    if !winner_to_move && moves.is_empty() {
        return true;
    }
    if plies == 0 {
        return false;
    }
    let mut results = moves.iter().map(|m| {
        let next = pos.apply(m);
        if pos.is_irreversible(m) {
            // Converting ends the phase; it counts for the winner when the result is still
            // won for it (lost for the side then to move after the winner's move, won after
            // the loser's).
            let after = db.probe(&next).expect("in the databases").value;
            after
                == if winner_to_move {
                    Value::Loss
                } else {
                    Value::Win
                }
        } else {
            forces_conversion(db, &next, plies - 1, !winner_to_move)
        }
    });
    if winner_to_move {
        results.any(|r| r)
    } else {
        results.all(|r| r)
    }
}

#[test]
fn distances_to_conversion_are_exact_against_a_search_to_the_end() {
    let db = four();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut checked = [0; 2];
    for _ in 0..20_000 {
        let pos = random_position(4, &mut rng);
        let probe = db.probe(&pos).expect("four pieces");
        if probe.value == Value::Draw || probe.distance > 7 || legal_moves(&pos).is_empty() {
            continue;
        }
        let d = probe.distance;
        match probe.value {
            Value::Win => {
                assert!(
                    forces_conversion(db, &pos, d, true),
                    "{pos:?} not won in {d}"
                );
                assert!(
                    !forces_conversion(db, &pos, d - 1, true),
                    "{pos:?} won before {d}"
                );
                checked[0] += 1;
            }
            _ => {
                // The winner (to move next) converts within d - 1 plies after any reply,
                // and some reply holds it off for d - 2.
                let replies = legal_moves(&pos);
                let converts_after = |m: &checkers_zero::games::checkers::Move, p: u16| {
                    pos.is_irreversible(m) || forces_conversion(db, &pos.apply(m), p, true)
                };
                assert!(replies.iter().all(|m| converts_after(m, d - 1)));
                if d >= 2 {
                    assert!(!replies.iter().all(|m| converts_after(m, d - 2)));
                }
                checked[1] += 1;
            }
        }
        if checked.iter().all(|&c| c >= 40) {
            break;
        }
    }
    assert!(
        checked.iter().all(|&c| c >= 40),
        "too few positions checked: {checked:?}"
    );
}

#[test]
fn known_endings_have_their_known_values() {
    let db = four();
    let value = |fen: &str| db.probe(&parse_fen(fen).unwrap()).unwrap().value;
    // A king against a king draws (neither can be cornered).
    assert_eq!(value("B:WK32:BK1"), Value::Draw);
    assert_eq!(value("W:WK14:BK27"), Value::Draw);
    // Two kings against one win, with either side to move.
    assert_eq!(value("B:WK32:BK1,K2"), Value::Win);
    assert_eq!(value("W:WK32:BK1,K2"), Value::Loss);
    // First Position (White: king 15, man 20; Black: king 28, man 12), White to move wins.
    assert_eq!(value("W:W20,K15:B12,K28"), Value::Win);
    // The perfect move of a won position keeps the win, one ply nearer conversion.
    let pos = parse_fen("B:WK32:BK1,K2").unwrap();
    let (mv, probe) = db.perfect_move(&pos).unwrap();
    let after = db.probe(&pos.apply(&mv)).unwrap();
    assert_eq!(after.value, Value::Loss);
    assert_eq!(after.distance + 1, probe.distance);
}

#[test]
fn a_build_resumed_after_a_kill_writes_the_same_files_and_the_check_passes() {
    let whole = scratch("whole");
    build(3, &whole);
    // What a kill leaves: the pairs finished before it, written whole (the last pairs and
    // the manifest's final count are missing), and the temporary it was writing.
    let resumed = scratch("resumed");
    build(2, &resumed);
    let name = ".slice-2010.egdb.tmp4000000";
    std::fs::write(resumed.join(name), b"half a slice").unwrap();
    let reports = build(3, &resumed);
    let reused = reports.iter().filter(|r| r.reused).count();
    assert_eq!(
        reused,
        reports
            .iter()
            .filter(|r| r.summary.material.pieces() <= 2)
            .count()
    );
    assert!(!resumed.join(name).exists());
    let mut compared = 0;
    for entry in std::fs::read_dir(&whole).unwrap() {
        let entry = entry.unwrap();
        let other = resumed.join(entry.file_name());
        assert_eq!(
            std::fs::read(entry.path()).unwrap(),
            std::fs::read(&other).unwrap(),
            "{}",
            entry.file_name().to_string_lossy()
        );
        compared += 1;
    }
    assert_eq!(compared, std::fs::read_dir(&resumed).unwrap().count());
    let (checked, wrong) = egdb::verify(&resumed, None, false).unwrap();
    assert_eq!(checked, 120 + 6_972 + 261_224);
    assert!(wrong.is_empty(), "{wrong:?}");
}

/// Kings-only slices built on a folder of fewer pieces are the full build's, byte for byte;
/// the folder answers for every kings-only position of that many pieces, for no other, and
/// its check passes.
#[test]
fn kings_only_slices_are_the_full_builds() {
    let dir = scratch("kings");
    let opts = BuildOptions {
        pieces: 3,
        kings_only: 4,
        out: dir.clone(),
        progress: false,
    };
    let reports = egdb::build(&opts).unwrap();
    let full = four();
    let mut kings_slices = 0;
    for r in reports.iter().filter(|r| r.summary.material.pieces() == 4) {
        assert_eq!(r.summary.material.total_men(), 0);
        let name = format!("slice-{}.egdb", r.summary.material.name());
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(full.dir().join(&name)).unwrap(),
            "{name}"
        );
        kings_slices += 1;
    }
    // 4-0, 3-1, 2-2, 1-3 and 0-4 kings.
    assert_eq!(kings_slices, 5);
    let db = Endgames::open(&dir).unwrap();
    assert_eq!((db.pieces(), db.kings_only()), (3, 4));
    let (mut kings, mut others) = (0, 0);
    for pos in all_positions(4) {
        if pos.occupied().count_ones() < 4 {
            continue;
        }
        if pos.kings() == pos.occupied() {
            assert_eq!(db.probe(&pos), full.probe(&pos), "{pos:?}");
            kings += 1;
        } else {
            assert_eq!(db.probe(&pos), None, "{pos:?}");
            others += 1;
        }
    }
    assert!(kings > 0 && others > 0);
    let (checked, wrong) = egdb::verify(&dir, None, false).unwrap();
    // Stored with Black to move only: each placement once, where `kings` counted both turns.
    assert_eq!(checked, 120 + 6_972 + 261_224 + kings / 2);
    assert!(wrong.is_empty(), "{wrong:?}");
    // A build asking for fewer keeps what the folder holds.
    build(3, &dir);
    assert_eq!(Endgames::open(&dir).unwrap().kings_only(), 4);
    // Kings-only slices of no more pieces than the full ones are refused, not ignored.
    let e = egdb::build(&BuildOptions {
        kings_only: 3,
        ..opts
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("--kings-only must be more than --pieces (3)"),
        "{e}"
    );
}

#[test]
fn damaged_files_and_foreign_folders_are_refused() {
    let dir = scratch("damaged");
    build(2, &dir);
    let file = dir.join("slice-1010.egdb");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let e = Endgames::open(&dir).unwrap_err().to_string();
    assert!(e.contains("damaged") && e.contains("slice-1010"), "{e}");
    // A build over it solves the damaged pair again and repairs it.
    build(2, &dir);
    Endgames::open(&dir).unwrap();
    // Another format's file is named as such.
    bytes = std::fs::read(&file).unwrap();
    bytes[8] = 9;
    std::fs::write(&file, &bytes).unwrap();
    let e = Endgames::open(&dir).unwrap_err().to_string();
    assert!(e.contains("format 9"), "{e}");
    // A folder holding other files is not built into.
    let foreign = scratch("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let opts = BuildOptions {
        pieces: 2,
        kings_only: 0,
        out: foreign.clone(),
        progress: false,
    };
    let e = egdb::build(&opts).unwrap_err().to_string();
    assert!(e.contains("other files"), "{e}");
    let e = Endgames::open(&foreign).unwrap_err().to_string();
    assert!(e.contains("not an endgame database folder"), "{e}");
}

/// At a won database position the agents play the databases' move, and their analysis says
/// the win is the databases', with the databases' distance to conversion.
#[test]
fn agents_with_the_databases_play_perfect_moves() {
    use checkers_zero::agents::{AgentSpec, Distance, Limits, Proven};
    use checkers_zero::games::Game;
    let db = four();
    let dir = db.dir().display().to_string();
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for spec in [
        format!("alphabeta:depth=1,egdb={dir}"),
        format!("az:searches=8,device=cpu,egdb={dir}"),
    ] {
        let spec: AgentSpec = spec.parse().unwrap();
        let mut agent = spec.build::<checkers_zero::games::Checkers>(1).unwrap();
        let mut found = 0;
        while found < 25 {
            let pos = random_position(4, &mut rng);
            let probe = db.probe(&pos).unwrap();
            if probe.value != Value::Win || probe.distance < 3 {
                continue;
            }
            let d = agent.select(&Game::from_position(pos), &Limits::default());
            let proven = d.analysis.unwrap().proven;
            let conversion = Distance::Conversion(probe.distance.into());
            assert_eq!(
                proven,
                Some(Proven {
                    result: Value::Win,
                    distance: Some(conversion)
                }),
                "{spec} in {pos:?}"
            );
            let words = format!("database win, conversion in {} plies", probe.distance);
            assert_eq!(proven.unwrap().describe(), words);
            let mv = d.mv;
            let after = db.probe(&pos.apply(&mv)).unwrap();
            assert_eq!(after.value, Value::Loss, "{spec} in {pos:?}");
            assert_eq!(after.distance + 1, probe.distance, "{spec} in {pos:?}");
            found += 1;
        }
    }
}

#[test]
fn a_match_ends_games_at_database_positions_with_their_exact_result() {
    let db = four();
    let journal = scratch("journal").with_extension("jsonl");
    let out = crate::common::program()
        .args([
            "match",
            "alphabeta:depth=3",
            "alphabeta:depth=1",
            "--games",
            "4",
        ])
        .args(["--seed", "3", "--threads", "1", "--egdb"])
        .arg(db.dir())
        .arg("--journal")
        .arg(&journal)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&journal).unwrap();
    let proven: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["proven"] == true)
        .collect();
    assert!(!proven.is_empty(), "no game reached four pieces:\n{text}");
    // Replaying a proven game's moves reaches a database position whose value is the
    // result the journal holds.
    use checkers_zero::arena::{ArenaGame, OpeningSet};
    let starts = checkers_zero::games::Checkers::starting_games(OpeningSet::Standard);
    for e in &proven {
        let round = e["round"].as_u64().unwrap() as usize;
        let mut game = starts[(round / 2) % starts.len()].1.clone();
        for mv in e["moves"].as_array().unwrap() {
            game.play_text(mv.as_str().unwrap()).unwrap();
        }
        let pos = *game.position();
        let probe = db.probe(&pos).expect("the game ended inside the databases");
        let winner = match probe.value {
            Value::Win => Some(pos.turn()),
            Value::Loss => Some(pos.turn().opposite()),
            Value::Draw => None,
        };
        let want = winner.map_or("draw".to_string(), |c| c.name().to_lowercase());
        assert_eq!(e["adjudicated"], want.as_str());
    }
}
