//! The baseline agents: alpha-beta against a plain minimax, determinism, limits, and the
//! yardstick result that alpha-beta depth 6 never loses to random over the ballots.

use checkers_zero::agents::{AgentSpec, Limits, Player};
use checkers_zero::arena::{GameConfig, MatchConfig, OpeningSet, Series, run_match};
use checkers_zero::games::Checkers;
use checkers_zero::games::checkers::{Color, Game, Position, dedup_routes_of, legal_moves};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

const WIN: i32 = 1_000_000;

/// Material from the side to move, in hundredths of a man (king 1.5).
fn player(spec: &str) -> Player {
    spec.parse::<AgentSpec>().unwrap().into()
}

fn material(pos: &Position) -> i32 {
    let side =
        |c: Color| pos.men(c).count_ones() as i32 * 100 + pos.kings_of(c).count_ones() as i32 * 150;
    side(pos.turn()) - side(pos.turn().opposite())
}

/// Minimax without pruning or tables: loss at ply p scores -(WIN - p); at depth 0 a position
/// whose side must capture is searched on (the capture extension).
fn minimax(pos: &Position, depth: i32, ply: i32) -> i32 {
    let moves = dedup_routes_of(legal_moves(pos));
    if moves.is_empty() {
        return -(WIN - ply);
    }
    if depth <= 0 && !moves[0].is_capture() {
        return material(pos);
    }
    moves
        .iter()
        .map(|m| -minimax(&pos.apply(m), (depth - 1).max(0), ply + 1))
        .max()
        .unwrap()
}

fn in_men(score: i32) -> f32 {
    if score.abs() >= WIN - 10_000 {
        score.signum() as f32 * (1000.0 - (WIN - score.abs()) as f32)
    } else {
        score as f32 / 100.0
    }
}

/// Positions from random games, kept only while no king exists (no repetitions possible).
fn men_only_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::start();
        for _ in 0..rng.random_range(4..40) {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.apply(&moves[rng.random_range(0..moves.len())]);
        }
        if pos.kings() == 0 && !legal_moves(&pos).is_empty() {
            out.push(pos);
        }
    }
    out
}

/// Quiet series over the standard ballots.
fn series(games: Option<usize>, seed: u64) -> Series {
    Series {
        games,
        openings: OpeningSet::Standard,
        seed,
        game: GameConfig::default(),
        progress: false,
    }
}

#[test]
fn alphabeta_scores_equal_plain_minimax() {
    for depth in [1u32, 3, 4] {
        let spec: AgentSpec = format!("alphabeta:depth={depth}").parse().unwrap();
        for pos in men_only_positions(60, depth as u64) {
            let mut agent = spec.build::<Checkers>(7).unwrap();
            let game = Game::from_position(pos);
            let analysis = agent.analyse(&game, &Limits::default()).unwrap();
            let roots = dedup_routes_of(legal_moves(&pos));
            assert_eq!(analysis.moves.len(), roots.len());
            for ms in &analysis.moves {
                let expected = in_men(-minimax(&pos.apply(&ms.mv), depth as i32 - 1, 1));
                assert_eq!(
                    ms.score,
                    expected,
                    "move {} at depth {depth} in {}",
                    ms.mv,
                    checkers_zero::games::checkers::to_fen(&pos)
                );
            }
            assert!(analysis.moves.iter().all(|m| !m.upper_bound));
            // select() searches with pruning but must find a move of the same best value, and
            // each other move's score is exact or marked as an upper bound.
            // A fresh agent: the analysis's exact table entries would hide the bounds.
            let mut fresh = spec.build::<Checkers>(7).unwrap();
            let chosen = fresh.select(&game, &Limits::default()).analysis.unwrap();
            let best = analysis.moves[0].score;
            let fen = checkers_zero::games::checkers::to_fen(&pos);
            assert_eq!(chosen.value, best, "depth {depth} {fen}");
            assert!(!chosen.moves[0].upper_bound, "{fen}");
            for ms in &chosen.moves {
                let exact = in_men(-minimax(&pos.apply(&ms.mv), depth as i32 - 1, 1));
                if ms.upper_bound {
                    assert!(ms.score >= exact, "{} at depth {depth} in {fen}", ms.mv);
                } else {
                    assert_eq!(ms.score, exact, "{} at depth {depth} in {fen}", ms.mv);
                }
            }
        }
    }
}

#[test]
fn alphabeta_is_deterministic_for_a_seed() {
    let config = MatchConfig {
        first: player("alphabeta:depth=4"),
        second: player("alphabeta:depth=3"),
        series: series(Some(6), 11),
    };
    let a = run_match(&config).unwrap();
    let b = run_match(&config).unwrap();
    assert_eq!(a.pdn(), b.pdn());
}

#[test]
fn limits_are_respected() {
    let game = Game::new();
    let mut agent = "alphabeta:depth=64"
        .parse::<AgentSpec>()
        .unwrap()
        .build::<Checkers>(0)
        .unwrap();
    let start = Instant::now();
    let d = agent.select(
        &game,
        &Limits {
            movetime: Some(Duration::from_millis(100)),
            ..Limits::default()
        },
    );
    // Generous bound: the check is that the clock stops the search at all, not its speed.
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(legal_moves(game.position()).contains(&d.mv));
    let d = agent.select(
        &game,
        &Limits {
            nodes: Some(5000),
            ..Limits::default()
        },
    );
    let summary = d.analysis.unwrap().summary;
    let nodes: u64 = summary
        .split("nodes ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(nodes <= 5000, "{summary}");
}

#[test]
fn alphabeta_depth_6_never_loses_to_random_over_the_ballots() {
    let config = MatchConfig {
        first: player("alphabeta:depth=6"),
        second: player("random"),
        series: series(None, 2026),
    };
    let report = run_match(&config).unwrap();
    let tally = report.tally(None);
    assert_eq!(tally.games(), 314, "157 ballots from both sides");
    assert_eq!(tally.losses, 0, "{}", report.summary());
}

#[test]
fn deeper_alphabeta_beats_shallower() {
    let config = MatchConfig {
        first: player("alphabeta:depth=6"),
        second: player("alphabeta:depth=2"),
        series: series(Some(40), 5),
    };
    let t = run_match(&config).unwrap().tally(None);
    assert!(t.score() > 0.6, "depth 6 vs depth 2: {}", t.summary());
}

#[test]
fn tournament_cross_table_and_elo_order() {
    use checkers_zero::arena::{TournamentConfig, run_tournament};
    let config = TournamentConfig {
        players: ["random", "alphabeta:depth=1", "alphabeta:depth=4"]
            .iter()
            .map(|s| player(s))
            .collect(),
        series: series(Some(16), 9),
    };
    let report = run_tournament(&config).unwrap();
    assert_eq!(report.pairs.len(), 3);
    assert!(report.pairs.iter().all(|(_, _, t)| t.games() == 16));
    // random is the anchor; deeper search rates higher.
    assert_eq!(report.anchor, 0);
    assert_eq!(report.ratings[0].elo, 0.0);
    assert!(
        report.ratings[2].elo > report.ratings[1].elo && report.ratings[1].elo > 0.0,
        "{}",
        report.table()
    );
    let table = report.table();
    assert!(
        table.contains("0 (anchor)") && table.lines().count() == 5,
        "{table}"
    );
    assert_eq!(report.pdn.matches("[Event").count(), 48);
}

#[test]
fn gauntlet_rows_add_up_and_print_as_json_lines() {
    use checkers_zero::arena::{GauntletConfig, run_gauntlet};
    let config = GauntletConfig {
        player: player("alphabeta:depth=1"),
        opponents: ["random", "alphabeta:depth=1,king=2"]
            .iter()
            .map(|s| player(s))
            .collect(),
        series: series(Some(6), 3),
    };
    let report = run_gauntlet(&config).unwrap();
    assert_eq!(report.player, "alphabeta:depth=1");
    assert_eq!(report.rows.len(), 2);
    for r in &report.rows {
        let t = r.tally;
        assert_eq!(t.wins + t.draws + t.losses, 6);
        assert_eq!(
            (r.as_black.games(), r.as_white.games()),
            (3, 3),
            "colours alternate"
        );
        assert_eq!(r.as_black.wins + r.as_white.wins, t.wins);
        assert_eq!(r.as_black.losses + r.as_white.losses, t.losses);
    }
    assert_eq!(report.pdn.matches("[Event").count(), 12);

    let json = report.json_lines();
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 2);
    for (line, row) in lines.iter().zip(&report.rows) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["opponent"], row.opponent.as_str());
        let count = |k: &str| v[k].as_u64().unwrap();
        assert_eq!(count("games"), 6);
        assert_eq!(count("wins") + count("draws") + count("losses"), 6);
        let score = v["score"].as_f64().unwrap();
        assert!(v["score_low"].as_f64().unwrap() <= score);
        assert!(score <= v["score_high"].as_f64().unwrap());
        // JSON has no infinity: a perfect or zero score leaves the Elo null.
        assert_eq!(v["elo"].is_null(), score == 0.0 || score == 1.0, "{line}");
    }

    let table = report.to_string();
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(table.contains("alphabeta:depth=1,king=2"), "{table}");

    let none = GauntletConfig {
        opponents: Vec::new(),
        ..config
    };
    assert!(
        run_gauntlet(&none)
            .unwrap_err()
            .0
            .contains("at least one opponent")
    );
}
