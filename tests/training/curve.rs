//! A run's learning curve played afterwards: a point at iteration 0, every few iterations and
//! the last, each the best network then, placed at the run's clock; a stopped curve resumes
//! without replaying; a point whose best network played for an earlier one reuses its games;
//! other settings and agents that are no network's are refused.

use checkers_zero::arena::GameConfig;
use checkers_zero::games::Checkers;
use checkers_zero::tensor::Device;
use checkers_zero::train::alphazero::{
    CurveConfig, CurvePoint, CurveSettings, IterationRecord, Pipeline, TrainConfig, run_curve,
};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cz-curve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A three-iteration run that promotes every network (no gating), so each iteration's best
/// is its own network.
fn short_run(dir: &Path) -> Vec<IterationRecord> {
    let config = TrainConfig {
        iterations: 3,
        games_per_iteration: 2,
        searches: 4,
        fast_searches: 2,
        max_plies: 20,
        batch_size: 8,
        games_per_thread: 2,
        threads: 1,
        saved_games: 0,
        gating: false,
        ..TrainConfig::cpu()
    };
    let mut p = Pipeline::<Checkers>::create(dir, config, Device::Cpu, false).unwrap();
    p.run().unwrap();
    std::fs::read_to_string(dir.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn config(run: &Path, every: u32, seed: u64) -> CurveConfig {
    CurveConfig {
        run: run.to_owned(),
        every,
        settings: CurveSettings {
            agent: "az:searches=4,device=cpu".into(),
            opponents: vec!["random".into()],
            games: Some(2),
            seed,
        },
        game: GameConfig {
            max_plies: Some(30),
            exact_endings: false,
        },
        progress: false,
    }
}

/// Runs the curve, returning its points and which of them were played (not reused).
fn curve(config: &CurveConfig) -> (Vec<CurvePoint>, Vec<(u32, bool)>) {
    let mut seen = Vec::new();
    let points =
        run_curve::<Checkers>(config, |p, played| seen.push((p.iteration, played))).unwrap();
    (points, seen)
}

#[test]
fn a_curve_places_each_best_network_at_the_runs_clock_and_resumes_without_replaying() {
    let run = scratch("run");
    let metrics = short_run(&run);
    assert!(metrics.iter().all(|m| m.best_iteration == m.iteration));

    let (points, seen) = curve(&config(&run, 2, 1));
    assert_eq!(
        seen,
        [(0, true), (2, true), (3, true)],
        "iteration 0, every 2nd, the last"
    );
    assert_eq!(points[0].elapsed_s, 0.0);
    assert_eq!(points[0].cpu_s, Some(0.0));
    for p in &points[1..] {
        let m = &metrics[p.iteration as usize - 1];
        assert_eq!(
            (p.elapsed_s, p.cpu_s),
            (m.elapsed_s, m.cpu_s),
            "the run's clock then"
        );
    }
    for p in &points {
        let g = &p.gauntlet[0];
        assert_eq!((g.games, g.opponent.as_str()), (2, "random"));
        let network = format!("iter-{:04}.ckpt", p.best_iteration);
        assert!(g.player.contains(&network), "{} plays {network}", g.player);
    }
    let file = run.join("curve.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 4, "the settings, then a line a point");

    // Again with the same settings: nothing to play, the file as it was.
    let (again, seen) = curve(&config(&run, 2, 1));
    assert!(seen.is_empty(), "{seen:?}");
    let results = |ps: &[CurvePoint]| -> Vec<(u32, u32, [u32; 3])> {
        let wdl = |p: &CurvePoint| {
            [
                p.gauntlet[0].wins,
                p.gauntlet[0].draws,
                p.gauntlet[0].losses,
            ]
        };
        ps.iter()
            .map(|p| (p.iteration, p.best_iteration, wdl(p)))
            .collect()
    };
    assert_eq!(results(&again), results(&points));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // A finer curve with the same settings plays only the points it lacks.
    let (finer, seen) = curve(&config(&run, 1, 1));
    assert_eq!(seen, [(1, true)]);
    assert_eq!(
        finer.iter().map(|p| p.iteration).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );

    // Other settings would mix two curves in one file.
    let e = run_curve::<Checkers>(&config(&run, 2, 9), |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("other settings"), "{e}");
    // A curve's agent must be a network's search, its network left to each point.
    let mut bad = config(&run, 2, 1);
    bad.settings.agent = "alphabeta:depth=2".into();
    std::fs::remove_file(&file).unwrap();
    let e = run_curve::<Checkers>(&bad, |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be an az spec without model="), "{e}");
    std::fs::remove_dir_all(&run).unwrap();
}

#[test]
fn a_point_whose_best_network_already_played_reuses_its_games() {
    let run = scratch("reuse");
    short_run(&run);
    // As if gating had kept iteration 1's network through iterations 2 and 3.
    let path = run.join("metrics.jsonl");
    let kept: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["best_iteration"] = 1.into();
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&path, kept).unwrap();
    let (points, seen) = curve(&config(&run, 1, 1));
    assert_eq!(seen, [(0, true), (1, true), (2, false), (3, false)]);
    assert_eq!(points[2].gauntlet, points[1].gauntlet);
    assert_eq!(points[3].best_iteration, 1);
    assert_ne!(
        points[3].elapsed_s, points[1].elapsed_s,
        "placed at its own iteration"
    );

    // A network the run no longer has cannot play.
    std::fs::remove_file(run.join("curve.jsonl")).unwrap();
    std::fs::remove_file(run.join("models/iter-0001.ckpt")).unwrap();
    let e = run_curve::<Checkers>(&config(&run, 1, 1), |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("iter-0001.ckpt: missing"), "{e}");
    std::fs::remove_dir_all(&run).unwrap();
}
