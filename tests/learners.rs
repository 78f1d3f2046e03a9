//! The classic learners (src/train): resume round trips that continue exactly as an
//! uninterrupted run, and the learned agents playing through the agent registry.

use checkers_zero::agents::AgentSpec;
use checkers_zero::arena::{GameConfig, play_game};
use checkers_zero::games::Checkers;
use checkers_zero::games::checkers::Game;
use checkers_zero::train::ga::{GaConfig, Population, Scheme};
use checkers_zero::train::pso::{PsoConfig, Swarm, Topology};
use checkers_zero::train::run_dir::RunOptions;
use checkers_zero::train::td::{self, TdConfig};
use std::path::PathBuf;

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

#[test]
fn td_resumes_exactly_and_its_agent_plays_through_the_registry() {
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
        td::train(config.clone(), games, &opts).unwrap();
    };
    let (a, b) = (temp("td-a"), temp("td-b"));
    run(&a, false, 4);
    run(&b, false, 2);
    run(&b, true, 4);
    let read = |d: &PathBuf| std::fs::read(d.join("latest.ckpt")).unwrap();
    assert_eq!(
        read(&a),
        read(&b),
        "a resumed run continues as the straight one"
    );
    let lines = std::fs::read_to_string(b.join("metrics.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 2);

    let model = a.join("best.ckpt");
    for depth in [1, 3] {
        let spec: AgentSpec = format!("td:model={},depth={depth}", model.display())
            .parse()
            .unwrap();
        let mut td = spec.build::<Checkers>(1).unwrap();
        assert_eq!(td.name(), spec.to_string());
        let mut random = "random"
            .parse::<AgentSpec>()
            .unwrap()
            .build::<Checkers>(2)
            .unwrap();
        let config = GameConfig {
            max_plies: Some(120),
        };
        let game = play_game(td.as_mut(), random.as_mut(), Game::new(), config);
        assert!(game.outcome().is_some());
    }
    for (spec, needle) in [
        ("td".to_string(), "needs model=PATH"),
        (format!("ga:model={}", model.display()), "not a ga network"),
        ("pso:model=/nonexistent.ckpt".to_string(), "cannot access"),
        (
            "td:model=models/default.bin".to_string(),
            "holds an AlphaZero model, not a TD, GA or PSO value network",
        ),
        (
            format!("td:model={},depth=0", model.display()),
            "td option depth: expected a search depth",
        ),
    ] {
        let e = spec
            .parse::<AgentSpec>()
            .unwrap()
            .build::<Checkers>(0)
            .map(|_| ())
            .unwrap_err();
        assert!(e.0.contains(needle), "{spec}: {e}");
    }
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}
