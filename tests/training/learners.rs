//! The classic learners (src/train): resume round trips that continue exactly as an
//! uninterrupted run, and the learned agents playing through the agent registry.

use checkers_zero::agents::{AgentGame, AgentSpec};
use checkers_zero::arena::openings::ArenaGame;
use checkers_zero::arena::{GameConfig, play_game};
use checkers_zero::games::{Checkers, Game, Othello};
use checkers_zero::train::ga::{GaConfig, Population, Scheme};
use checkers_zero::train::pso::{self, PsoConfig, Swarm, Topology};
use checkers_zero::train::run_dir::RunOptions;
use checkers_zero::train::td::{self, NetKind, TdConfig, TdGame};
use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cz-learners-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn small_ga(scheme: Scheme) -> GaConfig {
    GaConfig {
        scheme,
        games: 1,
        depth: 1,
        max_plies: 40,
        hidden: vec![4, 3],
        seed: 9,
        ..GaConfig::default()
    }
}

#[test]
fn ga_resumes_exactly() {
    for scheme in [Scheme::Durham, Scheme::Blondie24] {
        let mut straight = Population::new(small_ga(scheme)).unwrap();
        straight.step();
        straight.step();
        let dir = temp(&format!("ga-{scheme:?}"));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.ckpt");
        let mut first = Population::new(small_ga(scheme)).unwrap();
        first.step();
        first.save(&path).unwrap();
        let mut resumed = Population::load(&path).unwrap();
        assert_eq!(resumed.members, first.members);
        assert_eq!(resumed.champions, first.champions);
        resumed.step();
        assert_eq!(resumed.members, straight.members, "{scheme:?}");
        assert_eq!(resumed.generation, 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn pso_resumes_exactly() {
    let config = PsoConfig {
        particles: 6,
        hidden: 3,
        games: 2,
        max_plies: 40,
        topology: Topology::VonNeumann,
        seed: 4,
        ..PsoConfig::default()
    };
    let mut straight = Swarm::new(config.clone()).unwrap();
    straight.step();
    straight.step();
    let dir = temp("pso");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state.ckpt");
    let mut first = Swarm::new(config).unwrap();
    first.step();
    first.save(&path).unwrap();
    let mut resumed = Swarm::load(&path).unwrap();
    assert_eq!(resumed.particles, first.particles);
    resumed.step();
    assert_eq!(resumed.particles, straight.particles);
    assert_eq!(resumed.best, straight.best);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// train-pso's final evaluation is logged once per length: a finished run resumed to the same
/// length replaces its line, one resumed further adds the new one.
#[test]
fn pso_logs_one_final_evaluation_per_length() {
    let config = PsoConfig {
        particles: 2,
        hidden: 2,
        games: 1,
        max_plies: 20,
        seed: 5,
        ..PsoConfig::default()
    };
    let dir = temp("pso-final");
    let run = |resume: bool, iterations: u64| {
        let opts = RunOptions {
            dir: dir.clone(),
            resume,
            progress: false,
        };
        pso::train_pso(config.clone(), iterations, 1, &opts).unwrap();
    };
    let finals = || {
        std::fs::read_to_string(dir.join("metrics.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| l.contains("final_vs_random"))
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["iteration"].clone())
            .collect::<Vec<_>>()
    };
    run(false, 1);
    run(true, 1);
    assert_eq!(finals(), [1], "the same length: one final line");
    run(true, 2);
    assert_eq!(finals(), [1, 2], "a longer run: its own final line");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A short TD run of game `G` with network `choice`, straight and split by a resume: both end
/// with the same network file. Returns the run's folder.
fn td_resumes_exactly<G: TdGame>(name: &str, choice: G::NetChoice) -> PathBuf {
    let config = TdConfig {
        hidden: vec![8],
        eval_every: 2,
        eval_games: 1,
        max_plies: 60,
        seed: 3,
        ..TdConfig::default()
    };
    let run = |dir: &PathBuf, resume: bool, games: u64| {
        let opts = RunOptions {
            dir: dir.clone(),
            resume,
            progress: false,
        };
        td::train_td::<G>(config.clone(), choice.clone(), games, &opts).unwrap();
    };
    let (a, b) = (temp(&format!("{name}-a")), temp(&format!("{name}-b")));
    run(&a, false, 4);
    run(&b, false, 2);
    assert_eq!(td::game_of_run(&b), G::NAME, "the run state names its game");
    run(&b, true, 4);
    let read = |d: &PathBuf| std::fs::read(d.join("latest.ckpt")).unwrap();
    assert_eq!(
        read(&a),
        read(&b),
        "{name}: a resumed run continues as the straight one"
    );
    let lines = std::fs::read_to_string(b.join("metrics.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 2);
    std::fs::remove_dir_all(&b).unwrap();
    a
}

/// The `td` agent of the network at `model` plays whole games against random for game `G`.
fn td_agent_plays<G: AgentGame + ArenaGame>(model: &Path) {
    for depth in [1, 3] {
        let spec: AgentSpec = format!("td:model={},depth={depth}", model.display())
            .parse()
            .unwrap();
        let mut td = spec.build::<G>(1).unwrap();
        // The name leaves out the default depth, 1.
        let name = match depth {
            1 => format!("td:model={}", model.display()),
            _ => spec.to_string(),
        };
        assert_eq!(td.name(), name);
        let mut random = "random"
            .parse::<AgentSpec>()
            .unwrap()
            .build::<G>(2)
            .unwrap();
        let config = GameConfig {
            max_plies: Some(120),
            exact_endings: false,
        };
        let game = play_game(td.as_mut(), random.as_mut(), Game::<G>::at_start(), config);
        assert!(game.outcome().is_some());
    }
}

fn build_error<G: AgentGame>(spec: &str) -> String {
    spec.parse::<AgentSpec>()
        .unwrap()
        .build::<G>(0)
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

#[test]
fn td_resumes_exactly_and_its_agent_plays_through_the_registry() {
    let a = td_resumes_exactly::<Checkers>("td", ());
    let model = a.join("best.ckpt");
    td_agent_plays::<Checkers>(&model);
    for (spec, needle) in [
        ("td".to_string(), "needs model=PATH"),
        (format!("ga:model={}", model.display()), "not a ga network"),
        (
            "pso:model=/nonexistent.ckpt".to_string(),
            "cannot read /nonexistent.ckpt",
        ),
        (
            "td:model=models/default.bin".to_string(),
            "not a TD, GA or PSO value network",
        ),
        (
            format!("td:model={},depth=0", model.display()),
            "td option depth: expected a search depth",
        ),
    ] {
        let e = build_error::<Checkers>(&spec);
        assert!(e.contains(needle), "{spec}: {e}");
    }
    // A checkers network is no Othello one.
    let e = build_error::<Othello>(&format!("td:model={}", model.display()));
    assert!(e.contains("not an Othello value network"), "{e}");
    std::fs::remove_dir_all(&a).unwrap();
}

#[test]
fn othello_td_resumes_exactly_with_either_network_and_its_agent_plays() {
    for kind in [NetKind::Towers, NetKind::Plain] {
        let choice = Othello::choose_net(kind, &[8]).unwrap();
        let a = td_resumes_exactly::<Othello>(&format!("othello-td-{kind:?}"), choice);
        let model = a.join("best.ckpt");
        td_agent_plays::<Othello>(&model);
        // An Othello network is no checkers one.
        let e = build_error::<Checkers>(&format!("td:model={}", model.display()));
        assert!(e.contains("not a TD, GA or PSO value network"), "{e}");
        std::fs::remove_dir_all(&a).unwrap();
    }
    let e = Checkers::choose_net(NetKind::Towers, &[8]).unwrap_err();
    assert!(e.to_string().contains("Othello's tower network"), "{e}");
}
