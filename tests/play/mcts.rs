//! MCTS end to end: UCT and PUCT find the winning shot in tactical positions (each checked
//! with alpha-beta first), and batches gathered under virtual loss give the same search as
//! one leaf at a time where that must hold exactly.

use crate::count_in;
use checkers_zero::agents::{AgentSpec, Analysis, AzConfig, Limits, Proven, ScoreKind};
use checkers_zero::endgame::Value;
use checkers_zero::games::Checkers;
use checkers_zero::games::checkers::{Game, Move, parse_fen, parse_move};
use checkers_zero::mcts::{
    EvalInput, Evaluation, Evaluator, MaterialEvaluator, Puct, PuctConfig, ROOT, Tree, hops_of,
    most_visited,
};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::path::PathBuf;
use std::time::Duration;

/// (position, the shot, the line): one move wins material by force, every other move does
/// not. Found by alpha-beta in random positions of equal material.
const SHOTS: &[(&str, &str, &str)] = &[
    (
        "B:W17,21,22,23,25,26,27,28,29:B2,4,5,6,7,9,12,13,15",
        "15-18",
        "2 for 1 and a crown: 15-18 22x15 13x22x31",
    ),
    (
        "B:W17,18,20,25,29,30,31,32:B1,4,5,7,9,10,11,12",
        "9-14",
        "2 for 1: 9-14 18x9 5x14x21",
    ),
    (
        "W:W11,21,25,26,27,28,29,30:B1,2,4,6,8,9,16,18",
        "26-23",
        "White's 2 for 1: 26-23 8x15 23x14x5",
    ),
    (
        "W:W22,23,24,25,27,28,29,30,31:B3,4,6,7,9,10,12,15,16",
        "24-19",
        "White's 3 for 1 and a crown: 24-19 15x24 27x20x11x2",
    ),
];

fn shot(fen: &str, mv: &str) -> (Game, Move) {
    let pos = parse_fen(fen).unwrap();
    (Game::from_position(pos), parse_move(&pos, mv).unwrap())
}

#[test]
fn the_shots_win_material_and_nothing_else_does() {
    let mut ab = agent("alphabeta:depth=7");
    for &(fen, mv, line) in SHOTS {
        let (game, best) = shot(fen, mv);
        let a = ab.analyse(&game, &Limits::default()).unwrap();
        assert_eq!(a.moves[0].mv, best, "{line}: {}", a.summary);
        // Scores are in men: the shot gains at least a man more than any other move.
        assert!(
            a.moves[0].score >= a.moves[1].score + 0.9,
            "{line}: {:?}",
            a.moves
        );
    }
}

#[test]
fn uct_finds_the_shots() {
    for &(fen, mv, line) in SHOTS {
        let (game, best) = shot(fen, mv);
        let mut agent = "mcts:searches=3000"
            .parse::<AgentSpec>()
            .unwrap()
            .build::<Checkers>(7)
            .unwrap();
        let d = agent.select(&game, &Limits::default());
        assert_eq!(d.mv, best, "{line}: {}", d.analysis.unwrap().summary);
    }
}

fn puct_move(game: &Game, batch: usize, simulations: u32) -> Move {
    let config = PuctConfig {
        batch,
        ..AzConfig::default().puct
    };
    let mut search = Puct::new(config, game);
    let mut rng = StdRng::seed_from_u64(1);
    search.run(&mut MaterialEvaluator::default(), simulations, &mut rng);
    assert_eq!(search.tree().root().visits, simulations);
    search.tree().pick_move(most_visited)
}

#[test]
fn puct_finds_the_shots_with_one_leaf_and_with_batches() {
    for &(fen, mv, line) in SHOTS {
        let (game, best) = shot(fen, mv);
        for batch in [1, 8] {
            assert_eq!(puct_move(&game, batch, 1500), best, "{line}, batch {batch}");
        }
    }
}

/// A search whose batches are evaluated on threads of their own (three batches in flight
/// over two threads) still finds every shot, and completes exactly its simulations.
#[test]
fn puct_finds_the_shots_with_batches_on_threads() {
    use checkers_zero::mcts::ThreadedEvaluator;
    let mut eval = ThreadedEvaluator::new(vec![MaterialEvaluator::default(); 2]).unwrap();
    for &(fen, mv, line) in SHOTS {
        let (game, best) = shot(fen, mv);
        let mut search = Puct::new(AzConfig::default().puct, &game);
        search.run(&mut eval, 1500, &mut StdRng::seed_from_u64(1));
        assert_eq!(search.tree().root().visits, 1500, "{line}");
        assert_eq!(search.tree().pick_move(most_visited), best, "{line}");
    }
}

/// Every position looks won for its side to move, so a child just evaluated is worth -1 to
/// the parent — exactly what virtual loss assumes of a child still waiting.
struct MoverWins;

impl Evaluator for MoverWins {
    fn evaluate(&mut self, inputs: &[EvalInput]) -> Vec<Evaluation> {
        inputs
            .iter()
            .map(|i| Evaluation {
                priors: vec![1.0 / i.actions.len() as f32; i.actions.len()],
                value: 1.0,
            })
            .collect()
    }
}

fn searched(batch: usize, simulations: u32) -> Tree {
    let config = PuctConfig {
        batch,
        ..AzConfig::default().puct
    };
    let mut search = Puct::new(config, &Game::new());
    search.run(&mut MoverWins, simulations, &mut StdRng::seed_from_u64(0));
    search.tree().clone()
}

#[test]
fn a_batch_under_virtual_loss_equals_one_leaf_at_a_time_in_a_controlled_case() {
    // The start position has 7 moves: the root's evaluation, then one batch of 7 leaves.
    let one = searched(1, 8);
    let batched = searched(7, 8);
    assert_eq!(one.len(), batched.len());
    for id in 0..one.len() as u32 {
        let (a, b) = (one.node(id), batched.node(id));
        assert_eq!(
            (a.action, a.visits, a.value_sum),
            (b.action, b.visits, b.value_sum)
        );
        assert_eq!(b.virtual_loss, 0, "virtual losses are all taken back");
    }
    assert!(one.children(ROOT).all(|c| one.node(c).visits == 1));
}

#[test]
fn the_tree_is_reused_after_a_move_and_a_reply() {
    let mut game = Game::new();
    let mut search = Puct::new(AzConfig::default().puct, &game);
    let mut rng = StdRng::seed_from_u64(2);
    search.run(&mut MaterialEvaluator::default(), 800, &mut rng);
    let tree = search.tree();
    let mv = tree.pick_move(most_visited);
    let child = tree
        .children(ROOT)
        .max_by_key(|&c| tree.node(c).visits)
        .unwrap();
    let reply = tree
        .children(child)
        .max_by_key(|&c| tree.node(c).visits)
        .unwrap();
    let kept = tree.node(reply).visits;
    assert!(kept > 10);
    game.play(mv);
    // One move in from the start there are no captures: each reply is a single hop.
    let reply_move = *game
        .legal_moves()
        .iter()
        .find(|m| hops_of(m) == [tree.node(reply).action])
        .unwrap();
    game.play(reply_move);
    search.follow(&game);
    assert_eq!(search.tree().root().visits, kept);
    assert_eq!(*search.tree().root().state.position(), *game.position());
    search.run(&mut MaterialEvaluator::default(), 100, &mut rng);
    assert_eq!(search.tree().root().visits, kept + 100);
}

#[test]
fn the_search_agents_play_whole_games_with_legal_moves() {
    let mut mcts = "mcts:searches=100"
        .parse::<AgentSpec>()
        .unwrap()
        .build::<Checkers>(1)
        .unwrap();
    let mut random = "random"
        .parse::<AgentSpec>()
        .unwrap()
        .build::<Checkers>(2)
        .unwrap();
    for first in 0..2 {
        let mut game = Game::new();
        while game.outcome().is_none() && game.ply() < 300 {
            let agent = if (game.ply() + first).is_multiple_of(2) {
                &mut mcts
            } else {
                &mut random
            };
            let mv = agent.select(&game, &Limits::default()).mv;
            assert!(game.legal_moves().contains(&mv));
            game.play(mv);
        }
        mcts.new_game();
    }
}

/// The tree searches report more than once during a search of 0.6 s, and each report is
/// consistent: the moves' shares are of the root moves' visits (the summary's `visits`),
/// so they sum to 1 and are whole counts of it. On a fresh tree every simulation but the
/// first (the root's own evaluation) reaches a move; a second search of the same position
/// starts from the first's visits (`kept`) and adds one a simulation.
#[test]
fn tree_search_reports_are_consistent_snapshots() {
    let game = Game::new();
    for spec in ["mcts", "az:device=cpu"] {
        let mut agent = agent(spec);
        let limits = Limits {
            movetime: Some(Duration::from_millis(600)),
            ..Limits::default()
        };
        let mut reports: Vec<Analysis> = Vec::new();
        let listener = &mut |a: &Analysis| reports.push(a.clone());
        let d = agent.select_reporting(&game, &limits, Some(listener));
        assert!(reports.len() >= 3, "{spec}: {} reports", reports.len());
        assert_eq!(reports.last(), d.analysis.as_ref(), "{spec}");
        let counts = |a: &Analysis| {
            let count = |key| count_in(&a.summary, key);
            (count("simulations"), count("visits"), count("kept"))
        };
        for a in &reports {
            let (simulations, visits, kept) = counts(a);
            assert_eq!(
                (visits, kept),
                (simulations - 1, 0),
                "{spec}: {}",
                a.summary
            );
            let total: f64 = a.moves.iter().map(|m| f64::from(m.score)).sum();
            assert!((total - 1.0).abs() <= 1e-6, "{spec}: shares sum to {total}");
            let whole: Vec<f64> = a
                .moves
                .iter()
                .map(|m| f64::from(m.score) * visits as f64)
                .collect();
            // An f32 share is within a relative 2^-24 of the exact one.
            assert!(
                whole
                    .iter()
                    .all(|n| (n - n.round()).abs() <= 1e-6 * visits as f64),
                "{spec}: {whole:?}"
            );
            assert_eq!(whole.iter().map(|n| n.round() as u64).sum::<u64>(), visits);
        }
        let before = counts(reports.last().unwrap()).1;
        let again = agent.select(
            &game,
            &Limits {
                nodes: Some(100),
                ..Limits::default()
            },
        );
        let (simulations, visits, kept) = counts(&again.analysis.unwrap());
        assert_eq!(
            (simulations, kept, visits),
            (100, before, before + 100),
            "{spec}"
        );
    }
}

/// The tree says when it proves the root's value: here either White move takes Black's last
/// piece, so the tree search's value is the win itself.
#[test]
fn a_tree_proof_is_reported_as_proven() {
    let game = Game::from_position(parse_fen("W:W22,23:B18").unwrap());
    let a = agent("mcts:searches=50")
        .select(&game, &Limits::default())
        .analysis
        .unwrap();
    let win = Proven {
        result: Value::Win,
        distance: None,
    };
    assert_eq!((a.proven, a.value), (Some(win), 1.0), "{}", a.summary);
    assert_eq!(win.describe(), "proven win");
}

/// The checkers agent of a spec that must build.
fn agent(spec: &str) -> Box<dyn checkers_zero::agents::Agent<Checkers>> {
    spec.parse::<AgentSpec>()
        .unwrap()
        .build::<Checkers>(0)
        .unwrap()
}

/// A freshly initialised az-tiny network saved as `tiny.bin` in its own temporary folder,
/// returned with the folder for the caller to remove.
fn tiny_model(name: &str) -> (PathBuf, PathBuf) {
    use checkers_zero::net::save_model;
    use checkers_zero::nn::{Architecture, NetPreset, PolicyValueNet};
    use checkers_zero::tensor::Device;
    let dir = std::env::temp_dir().join(format!("cz-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tiny.bin");
    let arch = Architecture::preset(NetPreset::AzTiny);
    let net = PolicyValueNet::new(arch, &Device::Cpu, &mut StdRng::seed_from_u64(0));
    save_model::<checkers_zero::games::Checkers>(
        &path,
        &net,
        Default::default(),
        &Default::default(),
        None,
    )
    .unwrap();
    (dir, path)
}

#[test]
fn az_needs_a_model_file_and_plays_with_one() {
    let missing = "az:model=/nonexistent/net.bin"
        .parse::<AgentSpec>()
        .unwrap()
        .build::<Checkers>(0)
        .err()
        .unwrap();
    assert!(missing.to_string().contains("no model file"), "{missing}");
    let bad = "az:searches=x"
        .parse::<AgentSpec>()
        .unwrap()
        .build::<Checkers>(0)
        .err();
    assert!(
        bad.unwrap()
            .to_string()
            .contains("expected a number of simulations")
    );

    let (dir, path) = tiny_model("az");
    let spec = format!(
        "az:model={},searches=24,leaf_batch=4,device=cpu",
        path.display()
    );
    let mut az = agent(&spec);
    let mut game = Game::new();
    for _ in 0..4 {
        let d = az.select(&game, &Limits::default());
        assert!(game.legal_moves().contains(&d.mv));
        assert!(d.analysis.unwrap().summary.contains("simulations 24"));
        game.play(d.mv);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn az_analysis_gives_every_legal_move_its_prior() {
    let (dir, path) = tiny_model("az-priors");
    // The start; and a position where 1x10 goes on to 17 or 19 beside 11x18 and 11x20, so a
    // move's prior is a product of hop priors, or shared out while 10 is not yet expanded.
    let games = [
        Game::new(),
        Game::from_position(parse_fen("B:W6,14,15,16:B1,11").unwrap()),
    ];
    for searches in [1, 64] {
        let spec = format!(
            "az:model={},searches={searches},leaf_batch=4,check=0,endgame=0,device=cpu",
            path.display()
        );
        let mut az = agent(&spec);
        for game in &games {
            let a = az.analyse(game, &Limits::default()).unwrap();
            assert_eq!(a.score_kind, ScoreKind::VisitShare);
            let mut listed: Vec<Move> = a.moves.iter().map(|m| m.mv).collect();
            let mut legal = game.legal_moves();
            listed.sort_by_key(|m| m.to_string());
            legal.sort_by_key(|m| m.to_string());
            assert_eq!(listed, legal, "every legal move once");
            let priors: Vec<f32> = a.moves.iter().map(|m| m.prior.unwrap()).collect();
            assert!(priors.iter().all(|p| (0.0..=1.0).contains(p)), "{priors:?}");
            // A softmax renormalised over the legal hops, in f32: rounding is ~1e-6 per move.
            let sum: f32 = priors.iter().sum();
            assert!(
                (sum - 1.0).abs() < 1e-4,
                "{searches} searches: {:?}",
                a.moves
            );
            if searches == 1 && a.moves.len() == 4 {
                // One search expands only the root: 1x10's prior is split between its ends.
                let prior = |text: &str| a.moves.iter().find(|m| m.mv.to_string() == text);
                let (p17, p19) = (prior("1x10x17").unwrap(), prior("1x10x19").unwrap());
                assert_eq!(p17.prior, p19.prior);
            }
            let shares: f32 = a.moves.iter().map(|m| m.score).sum();
            // One search only evaluates the root, so no move has a visit yet.
            assert!(
                (searches == 1 || shares > 0.0) && shares <= 1.0 + 1e-6,
                "{shares}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    // Rollout MCTS has no policy: it reports visit shares and no priors.
    let mut mcts = agent("mcts:searches=50");
    let a = mcts.analyse(&Game::new(), &Limits::default()).unwrap();
    assert_eq!(a.score_kind, ScoreKind::VisitShare);
    assert!(a.moves.iter().all(|m| m.prior.is_none()));
}

#[test]
fn self_play_can_search_again_at_each_hop_of_a_multi_jump() {
    // After the first shot's 15-18 22x15, Black's 13x22x31 is two hops.
    let (mut game, _) = shot(SHOTS[0].0, SHOTS[0].1);
    for m in ["15-18", "22x15"] {
        game.play_text(m).unwrap();
    }
    let self_play = checkers_zero::train::alphazero::TrainConfig::cpu().self_play();
    let mut search = Puct::new(self_play.puct, &game);
    let mut rng = StdRng::seed_from_u64(4);
    let mut hops = Vec::new();
    while hops.is_empty() || !search.tree().root().state.is_turn_start() {
        search.run(&mut MaterialEvaluator::default(), 200, &mut rng);
        let target = search.policy_target();
        assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-5);
        let hop = search.tree().node(most_visited(search.tree(), ROOT)).action;
        hops.push(hop);
        search.advance_action(hop);
        let root = &search.tree().root().state;
        let mover = game.position().turn();
        let expected = if root.is_turn_start() {
            mover.opposite()
        } else {
            mover
        };
        assert_eq!(
            root.turn(),
            expected,
            "the mover keeps the turn inside a jump"
        );
    }
    let mv =
        *checkers_zero::games::checkers::hops::move_of_hops(&game.legal_moves(), &hops).unwrap();
    assert_eq!(mv.to_string(), "13x22x31");
    let visits = search.tree().root().visits;
    game.play(mv);
    search.follow(&game);
    assert_eq!(search.tree().root().visits, visits, "the tree is kept");
}

#[test]
fn an_evaluation_cache_changes_nothing_but_the_number_of_calls() {
    use checkers_zero::mcts::CachedEvaluator;
    let (game, _) = shot(SHOTS[1].0, SHOTS[1].1);
    let run = |eval: &mut dyn Evaluator| {
        let mut search = Puct::new(AzConfig::default().puct, &game);
        search.run(eval, 2000, &mut StdRng::seed_from_u64(0));
        let t = search.tree();
        (0..t.len() as u32)
            .map(|i| (t.node(i).visits, t.node(i).value_sum))
            .collect::<Vec<_>>()
    };
    let mut cached = CachedEvaluator::new(MaterialEvaluator::default(), 1 << 16);
    assert_eq!(run(&mut MaterialEvaluator::default()), run(&mut cached));
    // The same search again finds every position in the cache.
    let misses = cached.misses;
    run(&mut cached);
    assert_eq!(cached.misses, misses);
    assert!(cached.hits >= misses);
}

/// The trainer's gating plays networks from memory (`AzNetwork`): such a player plays exactly
/// the games of the `az` agent that loads the same network from its file.
#[test]
fn a_network_in_memory_plays_as_its_file_does() {
    use checkers_zero::agents::{AzNetwork, Player};
    use checkers_zero::arena::{GameConfig, MatchConfig, OpeningSet, Series, run_match};
    use checkers_zero::mcts::{PuctConfig, SearchKind};
    use checkers_zero::net::NetGame;
    use checkers_zero::tensor::Device;
    use checkers_zero::train::alphazero::TrainConfig;
    use std::sync::Arc;

    let (net, encoding, _) = checkers_zero::games::Checkers::default_model(&Device::Cpu).unwrap();
    let path = std::env::temp_dir().join(format!("cz-mem-{}.ckpt", std::process::id()));
    checkers_zero::net::save_model::<checkers_zero::games::Checkers>(
        &path,
        &net,
        encoding,
        &Default::default(),
        None,
    )
    .unwrap();
    let games = |first: Player| {
        let report = run_match(&MatchConfig {
            first,
            second: "alphabeta:depth=2".parse::<AgentSpec>().unwrap().into(),
            series: Series {
                games: Some(4),
                openings: OpeningSet::Standard,
                seed: 9,
                game: GameConfig {
                    max_plies: Some(60),
                    exact_endings: false,
                },
                progress: false,
            },
        })
        .unwrap();
        report.pdn()
    };
    // An in-memory network plays its search alone, as gating compares networks.
    let d = AzConfig {
        check: Some(0),
        endgame: Some(0),
        policy_temperature: Some(1.0),
        ..AzConfig::default()
    };
    let gumbel = AzConfig {
        searches: 16,
        puct: PuctConfig {
            search: TrainConfig {
                search: SearchKind::Gumbel,
                ..TrainConfig::cpu()
            }
            .search(false),
            ..d.puct
        },
        ..d.clone()
    };
    let puct = AzConfig { searches: 16, ..d };
    for config in [puct, gumbel] {
        // The name is the spec that plays the same network from its file.
        let spec = AzConfig {
            model: Some(path.clone()),
            ..config.clone()
        }
        .name();
        let from_file: Player = format!("{spec},device=cpu")
            .parse::<AgentSpec>()
            .unwrap()
            .into();
        let in_memory: Player = Arc::new(AzNetwork {
            net: net.clone(),
            encoding,
            device: Device::Cpu,
            config,
            name: spec,
        });
        assert_eq!(games(from_file), games(in_memory));
    }
    std::fs::remove_file(&path).unwrap();
}

/// An `az` agent given a time per move searches until it runs out (a generous bound: the
/// clock is read between batches of leaves) and plays legal moves, with either search; a
/// forced move (the game's own moves depend on the search, so one may come) is played at once.
#[test]
fn az_with_a_time_per_move_stops_on_time() {
    use std::time::{Duration, Instant};
    let (dir, path) = tiny_model("az-time");
    for search in ["puct", "gumbel", "puct,threads=2"] {
        let spec = format!(
            "az:model={},time=150,leaf_batch=4,device=cpu,search={search}",
            path.display()
        );
        let mut az = agent(&spec);
        assert!(az.name().contains("time=150"), "{}", az.name());
        let mut game = Game::new();
        for _ in 0..3 {
            use checkers_zero::games::Rules;
            let forced = Checkers::distinct_moves(game.position()).len() == 1;
            let start = Instant::now();
            let d = az.select(&game, &Limits::default());
            let took = start.elapsed();
            if forced {
                assert!(
                    took < Duration::from_millis(150),
                    "{search}, forced: {took:?}"
                );
            } else {
                assert!(
                    took >= Duration::from_millis(150) && took < Duration::from_millis(2150),
                    "{search}: {took:?}"
                );
            }
            assert!(game.legal_moves().contains(&d.mv));
            game.play(d.mv);
        }
        // The caller's limits come first: a node limit replaces the agent's time.
        let limits = Limits {
            nodes: Some(12),
            ..Limits::default()
        };
        let d = az.select(&game, &limits);
        assert!(d.analysis.unwrap().summary.contains("simulations 12"));
    }
    for (bad, needle) in [
        (
            "az:search=minimax",
            "az option search: expected a search, one of puct, gumbel, got \"minimax\"",
        ),
        ("az:time=0", "az option time: expected milliseconds"),
        (
            "az:threads=0",
            "az option threads: expected a number of threads, a whole number 1-256",
        ),
        (
            "az:gumbel_considered=0",
            "az option gumbel_considered: expected a number of root actions",
        ),
        (
            "az:gumbel_c_visit=-1",
            "az option gumbel_c_visit: expected a constant, a number of at least 0",
        ),
    ] {
        let e = bad.parse::<AgentSpec>().unwrap().build::<Checkers>(0).err();
        let e = e.expect(bad).to_string();
        assert!(e.contains(needle), "{bad}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
