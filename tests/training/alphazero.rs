//! The AlphaZero pipeline end to end on a tiny configuration: a run writes its checkpoints and
//! metrics, a resumed run continues exactly where the last checkpoint left off, and damaged
//! or foreign state files are refused with a clear error.

use checkers_zero::games::Checkers;
use checkers_zero::mcts::SearchKind;
use checkers_zero::net::{load_model, read_model_file};
use checkers_zero::nn::{Checkpoint, FORMAT_VERSION, MAGIC, NetPreset, checksum};
use checkers_zero::tensor::Device;
use checkers_zero::train::alphazero::{
    AzState, ConfigOverrides, IterationRecord, Pipeline, TrainConfig,
};
use std::path::{Path, PathBuf};

fn tiny(iterations: u32) -> TrainConfig {
    TrainConfig {
        iterations,
        games_per_iteration: 4,
        gating_games: 2,
        searches: 8,
        fast_searches: 4,
        gating_searches: 6,
        max_plies: 40,
        batch_size: 16,
        games_per_thread: 2,
        threads: 2,
        saved_games: 1,
        gauntlet_every: 2,
        gauntlet_games: 2,
        gauntlet_opponents: "random".parse().unwrap(),
        ..TrainConfig::cpu()
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cz-az-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn metrics(dir: &Path) -> Vec<IterationRecord> {
    std::fs::read_to_string(dir.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every metrics line parses"))
        .collect()
}

fn weights(path: &Path) -> Vec<Vec<f32>> {
    let ckpt = Checkpoint::<AzState>::load(path).unwrap();
    ckpt.params.iter().map(|p| p.data.clone()).collect()
}

#[test]
fn a_short_run_checkpoints_and_a_resumed_run_continues_it_exactly() {
    let straight = scratch("straight");
    let mut p = Pipeline::<Checkers>::create(&straight, tiny(2), Device::Cpu, false).unwrap();
    p.run().unwrap();
    assert_eq!(p.state().iteration, 2);
    for file in [
        "config.json",
        "state.ckpt",
        "best.ckpt",
        "models/iter-0000.ckpt",
        "models/iter-0002.ckpt",
        "games/iter-0001.pdn",
    ] {
        assert!(straight.join(file).is_file(), "{file} written");
    }
    let m = metrics(&straight);
    assert_eq!(m.iter().map(|r| r.iteration).collect::<Vec<_>>(), [1, 2]);
    for r in &m {
        assert_eq!(r.games, 4);
        assert_eq!(r.black_wins + r.white_wins + r.draws, 4);
        assert!(r.samples > 0 && r.train_steps > 0 && r.policy_loss.is_finite());
        assert!(r.gating_wdl.unwrap().iter().sum::<u32>() == 2);
        assert!(r.simulations_per_s > 0.0 && r.mean_batch >= 1.0);
    }
    let cpu: Vec<f64> = m
        .iter()
        .map(|r| r.cpu_s.expect("CPU time recorded"))
        .collect();
    assert!(0.0 < cpu[0] && cpu[0] < cpu[1], "CPU time adds up: {cpu:?}");
    assert!(
        m[0].gauntlet.is_none(),
        "the gauntlet plays every second iteration"
    );
    let g = m[1]
        .gauntlet
        .as_ref()
        .expect("iteration 2 plays the gauntlet");
    assert_eq!(
        (g.len(), g[0].opponent.as_str(), g[0].games),
        (1, "random", 2)
    );
    let (best, _, _) = load_model::<Checkers>(&straight.join("best.ckpt"), &Device::Cpu).unwrap();
    assert_eq!(best.arch().name, "az-tiny");
    assert!(
        std::fs::read_to_string(straight.join("games/iter-0001.pdn"))
            .unwrap()
            .contains("[Event \"self-play iteration 1\"]")
    );

    // The same run stopped after one iteration (with the metrics line of a second iteration
    // that a killed run logged but never checkpointed) and resumed with more iterations.
    let split = scratch("split");
    Pipeline::<Checkers>::create(&split, tiny(1), Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let extra = std::fs::read_to_string(straight.join("metrics.jsonl")).unwrap();
    let second_line = extra.lines().nth(1).unwrap();
    let first_line = std::fs::read_to_string(split.join("metrics.jsonl")).unwrap();
    // A CPU time the resumed run must carry on from, far above the dropped line's.
    let mut first: serde_json::Value = serde_json::from_str(first_line.trim()).unwrap();
    first["cpu_s"] = 1000.0.into();
    let mut text = format!("{first}\n");
    text += &format!("{second_line}\n");
    std::fs::write(split.join("metrics.jsonl"), text).unwrap();
    let more = ConfigOverrides {
        iterations: Some(2),
        ..Default::default()
    };
    let mut resumed = Pipeline::<Checkers>::resume(&split, &more, Device::Cpu, false).unwrap();
    assert_eq!(resumed.state().iteration, 1);
    resumed.run().unwrap();
    assert_eq!(
        metrics(&split)
            .iter()
            .map(|r| r.iteration)
            .collect::<Vec<_>>(),
        [1, 2],
        "each iteration logged once"
    );
    let cpu = metrics(&split)[1].cpu_s.unwrap();
    assert!(
        cpu > 1000.0,
        "the resumed run counts on from its last line: {cpu}"
    );
    assert_eq!(
        weights(&straight.join("state.ckpt")),
        weights(&split.join("state.ckpt")),
        "a resumed run trains the same network as an uninterrupted one"
    );
    let a = Checkpoint::<AzState>::load(&straight.join("state.ckpt")).unwrap();
    let b = Checkpoint::<AzState>::load(&split.join("state.ckpt")).unwrap();
    assert_eq!(a.arch.replay, b.arch.replay);
    assert_eq!(a.arch.best_iteration, b.arch.best_iteration);

    // One process owns a run folder: a second one is told who holds it.
    let err = Pipeline::<Checkers>::resume(&split, &more, Device::Cpu, false)
        .err()
        .unwrap();
    let text = err.to_string();
    assert!(
        text.contains("in use by process") && text.contains(&std::process::id().to_string()),
        "{text}"
    );
    drop(resumed);

    // A resumed run keeps its network.
    let other = ConfigOverrides {
        network: Some(NetPreset::AzSmall),
        ..Default::default()
    };
    let err = Pipeline::<Checkers>::resume(&split, &other, Device::Cpu, false)
        .err()
        .unwrap();
    assert!(err.to_string().contains("keeps its network"), "{err}");
    // A new run does not overwrite one.
    let err = Pipeline::<Checkers>::create(&split, tiny(1), Device::Cpu, false)
        .err()
        .unwrap();
    assert!(err.to_string().contains("already holds a run"), "{err}");

    // A run whose lines have no CPU time (an older build's) records none from then on,
    // rather than a total that leaves out its first iterations.
    let text: String = std::fs::read_to_string(split.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            v.as_object_mut().unwrap().remove("cpu_s");
            format!("{v}\n")
        })
        .collect();
    std::fs::write(split.join("metrics.jsonl"), text).unwrap();
    let three = ConfigOverrides {
        iterations: Some(3),
        ..Default::default()
    };
    Pipeline::<Checkers>::resume(&split, &three, Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let m = metrics(&split);
    assert_eq!((m.len(), m[2].cpu_s), (3, None));

    for dir in [straight, split] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_gumbel_run_trains_on_improved_policies_and_resumes_exactly() {
    let gumbel = |iterations| TrainConfig {
        search: SearchKind::Gumbel,
        gumbel_considered: 4,
        ..tiny(iterations)
    };
    let straight = scratch("gumbel-straight");
    Pipeline::<Checkers>::create(&straight, gumbel(2), Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let split = scratch("gumbel-split");
    Pipeline::<Checkers>::create(&split, gumbel(1), Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let more = ConfigOverrides {
        iterations: Some(2),
        ..Default::default()
    };
    let mut resumed = Pipeline::<Checkers>::resume(&split, &more, Device::Cpu, false).unwrap();
    assert_eq!(resumed.state().config.search, SearchKind::Gumbel);
    resumed.run().unwrap();
    drop(resumed);
    assert_eq!(
        weights(&straight.join("state.ckpt")),
        weights(&split.join("state.ckpt")),
        "a resumed Gumbel run trains the same network as an uninterrupted one"
    );
    let state = Checkpoint::<AzState>::load(&straight.join("state.ckpt")).unwrap();
    // Gumbel's targets are the improved policy over every legal action: no zeros pruned
    // away as visit counts leave them.
    let samples: Vec<_> = state.arch.replay.samples().collect();
    assert!(!samples.is_empty());
    for s in samples {
        let total: f32 = s.policy.iter().map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-4, "a distribution: {total}");
        assert_eq!(s.policy.len(), s.input.actions.len(), "every legal action");
    }
    let m = metrics(&straight);
    let gauntlet = &m[1].gauntlet.as_ref().unwrap()[0];
    assert!(
        gauntlet.player.contains("search=gumbel"),
        "{}",
        gauntlet.player
    );
    for dir in [straight, split] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_run_starts_from_a_models_weights_records_its_lineage_and_warms_up() {
    // The shipped network is dark-tiny for checkers without extra planes.
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default.bin");
    let dir = scratch("init");
    let config = TrainConfig {
        init: Some(shipped.clone()),
        lr_warmup: 2,
        network: NetPreset::DarkTiny,
        ..tiny(1)
    };
    let mut p = Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false).unwrap();
    let hash = format!("{:016x}", checksum(&std::fs::read(&shipped).unwrap()));
    assert_eq!(p.state().config.init_hash.as_ref(), Some(&hash));
    let model_weights = |path: &Path| -> Vec<Vec<f32>> {
        let ckpt = read_model_file::<Checkers>(path).unwrap();
        ckpt.params.iter().map(|p| p.data.clone()).collect()
    };
    assert_eq!(
        model_weights(&dir.join("models/iter-0000.ckpt")),
        model_weights(&shipped),
        "iteration 0 is the given network"
    );
    p.run().unwrap();
    drop(p);
    let c = TrainConfig::cpu();
    assert_eq!(
        metrics(&dir)[0].lr,
        c.lr / 3.0,
        "a third of the rate, then two thirds"
    );
    let json = std::fs::read_to_string(dir.join("config.json")).unwrap();
    assert!(json.contains(&hash), "config.json records the lineage");
    // So does every model file of the run.
    let lineage = read_model_file::<Checkers>(&dir.join("models/iter-0001.ckpt"))
        .unwrap()
        .arch
        .lineage;
    assert_eq!(
        (
            lineage.parent.as_str(),
            lineage.parent_hash.as_str(),
            lineage.iteration
        ),
        (shipped.to_str().unwrap(), hash.as_str(), 1)
    );
    assert_eq!(lineage.run, dir.display().to_string());
    let best = read_model_file::<Checkers>(&dir.join("best.ckpt")).unwrap();
    assert_eq!(best.arch.lineage.parent_hash, hash);
    // A resumed run keeps where it started from.
    let other = ConfigOverrides {
        init: Some(None),
        ..Default::default()
    };
    let err = Pipeline::<Checkers>::resume(&dir, &other, Device::Cpu, false)
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("keeps the weights it started from"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // Another network, another game, or no model at all: refused before a folder is made.
    let small = TrainConfig {
        network: NetPreset::AzSmall,
        ..tiny(1)
    };
    let othello_model = scratch("init-othello").with_extension("bin");
    let (net, _, _) =
        <checkers_zero::games::Checkers as checkers_zero::net::NetGame>::default_model(
            &Device::Cpu,
        )
        .unwrap();
    checkers_zero::net::save_model::<checkers_zero::games::Othello>(
        &othello_model,
        &net,
        (),
        &Default::default(),
        None,
    )
    .unwrap();
    for (config, needle) in [
        (
            TrainConfig {
                init: Some(shipped.clone()),
                ..small
            },
            "but this run trains az-small",
        ),
        (
            TrainConfig {
                init: Some(othello_model.clone()),
                ..tiny(1)
            },
            "Othello",
        ),
        (
            TrainConfig {
                init: Some("/nonexistent/model.bin".into()),
                ..tiny(1)
            },
            "init: cannot read /nonexistent/model.bin: ",
        ),
    ] {
        let to = scratch("init-refused");
        let err = Pipeline::<Checkers>::create(&to, config, Device::Cpu, false)
            .err()
            .unwrap();
        assert!(err.to_string().contains(needle), "{err}");
        assert!(!to.exists(), "no run folder for a refused start");
    }
    std::fs::remove_file(&othello_model).unwrap();
}

/// A run with `aux_weight` gives the network it starts from the auxiliary head, trains it
/// on the samples' material leads ahead (reported in the metrics), and keeps it in its model
/// files; resuming it without the weight is refused.
#[test]
fn a_run_with_auxiliary_targets_trains_the_head_and_keeps_it() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default.bin");
    let dir = scratch("aux");
    let config = TrainConfig {
        init: Some(shipped.clone()),
        network: NetPreset::DarkTiny,
        aux_weight: 0.5,
        ..tiny(1)
    };
    Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let (given, _, _) = load_model::<Checkers>(&shipped, &Device::Cpu).unwrap();
    let (trained, _, _) = load_model::<Checkers>(&dir.join("best.ckpt"), &Device::Cpu).unwrap();
    assert_eq!(trained.arch(), &given.arch().clone().with_aux(2));
    let line = &metrics(&dir)[0];
    let aux = line.aux_loss.expect("the head's loss is reported");
    assert!(aux.is_finite() && aux > 0.0, "{aux}");
    let state = Checkpoint::<AzState>::load(&dir.join("state.ckpt")).unwrap();
    let samples: Vec<_> = state.arch.replay.samples().collect();
    assert!(!samples.is_empty());
    assert!(samples.iter().all(|s| s.ahead.is_some()));
    let off = ConfigOverrides {
        aux_weight: Some(0.0),
        iterations: Some(2),
        ..Default::default()
    };
    let err = Pipeline::<Checkers>::resume(&dir, &off, Device::Cpu, false)
        .err()
        .unwrap();
    assert!(err.to_string().contains("aux_weight"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run with more value planes than the network it starts from widens that network, which
/// still computes what it did; a run with fewer is refused.
#[test]
fn a_run_widens_the_value_head_of_the_network_it_starts_from() {
    use checkers_zero::nn::Module;
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default.bin");
    let dir = scratch("widen");
    let config = TrainConfig {
        init: Some(shipped.clone()),
        network: NetPreset::DarkTiny,
        value_planes: 4,
        ..tiny(1)
    };
    Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false).unwrap();
    let first = dir.join("models/iter-0000.ckpt");
    let (mut given, _, _) = load_model::<Checkers>(&shipped, &Device::Cpu).unwrap();
    let (mut wide, _, _) = load_model::<Checkers>(&first, &Device::Cpu).unwrap();
    assert_eq!(wide.arch(), &given.arch().clone().with_value_planes(4));
    given.set_train(false);
    wide.set_train(false);
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(3);
    let x = checkers_zero::tensor::Tensor::randn(&[8, 8, 8, 8], 1.0, &mut rng, &Device::Cpu);
    let ((p, v), (wp, wv)) = (given.predict(&x), wide.predict(&x));
    for (a, b) in [(p, wp), (v, wv)] {
        let most = a
            .to_vec()
            .iter()
            .zip(b.to_vec())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(most < 1e-5, "the widened network computes the same: {most}");
    }
    let narrow = TrainConfig {
        init: Some(first),
        network: NetPreset::DarkTiny,
        ..tiny(1)
    };
    let to = scratch("widen-refused");
    let err = Pipeline::<Checkers>::create(&to, narrow, Device::Cpu, false)
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("value_planes to at least its"),
        "{err}"
    );
    assert!(!to.exists(), "no run folder for a refused start");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_or_foreign_state_files_are_refused_clearly() {
    let dir = scratch("damaged");
    Pipeline::<Checkers>::create(&dir, tiny(1), Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let state = dir.join("state.ckpt");
    let good = std::fs::read(&state).unwrap();
    let resume = || {
        Pipeline::<Checkers>::resume(&dir, &ConfigOverrides::default(), Device::Cpu, false)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };

    std::fs::write(&state, &good[..good.len() / 2]).unwrap();
    assert!(resume().contains("truncated"), "{}", resume());

    let mut newer = good.clone();
    newer[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&state, &newer).unwrap();
    assert!(resume().contains("format version"), "{}", resume());

    // A model file is not a run state, and is called what it is.
    std::fs::copy(dir.join("best.ckpt"), &state).unwrap();
    assert!(
        resume().contains("holds an AlphaZero model with its lineage, not an AlphaZero run state"),
        "{}",
        resume()
    );
    // Every checkpoint error names its file.
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    std::fs::write(&state, &flipped).unwrap();
    assert!(
        resume().contains("damaged") && resume().contains(&state.display().to_string()),
        "{}",
        resume()
    );

    let err = Pipeline::<Checkers>::resume(
        &dir.join("nowhere"),
        &ConfigOverrides::default(),
        Device::Cpu,
        false,
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("no such run folder"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The checkpoint marks an iteration done, so the iteration's metrics line must be on disk
/// before it: when the line cannot be written, no checkpoint claims the iteration.
#[test]
fn an_iteration_is_checkpointed_only_after_its_metrics_line() {
    let dir = scratch("order");
    let mut p = Pipeline::<Checkers>::create(&dir, tiny(1), Device::Cpu, false).unwrap();
    // A folder where metrics.jsonl should be: appending to it fails.
    std::fs::create_dir(dir.join("metrics.jsonl")).unwrap();
    let err = p
        .iteration()
        .expect_err("the metrics line cannot be written");
    assert!(err.to_string().contains("metrics.jsonl"), "{err}");
    assert!(
        !dir.join("state.ckpt").exists(),
        "no checkpoint of an iteration whose metrics were lost"
    );
    drop(p);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A run that stopped before its first checkpoint restarts from config.json, which is replaced
/// atomically: a failure while restarting leaves the run's settings in place.
#[test]
fn restarting_a_run_never_loses_its_config() {
    let dir = scratch("config");
    std::fs::create_dir_all(&dir).unwrap();
    let text = serde_json::to_string_pretty(&tiny(1)).unwrap();
    std::fs::write(dir.join("config.json"), &text).unwrap();
    // A file where the models folder goes makes the restart fail part-way.
    std::fs::write(dir.join("models"), "not a folder").unwrap();
    let err = Pipeline::<Checkers>::resume(&dir, &ConfigOverrides::default(), Device::Cpu, false)
        .err()
        .expect("models/ cannot be made");
    assert!(err.to_string().contains("models"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("config.json")).unwrap(),
        text
    );
    std::fs::remove_file(dir.join("models")).unwrap();
    let p = Pipeline::<Checkers>::resume(&dir, &ConfigOverrides::default(), Device::Cpu, false)
        .unwrap();
    assert_eq!(p.state().config, tiny(1));
    drop(p);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every setting is checked before any work starts: a bad gauntlet opponent is refused before
/// the run folder is made, not after the first iteration.
#[test]
fn bad_settings_fail_before_any_work() {
    let dir = scratch("late");
    for (opponents, needle) in [
        ("random;alphabeta:depth=0", "depth"),
        ("random;alphabeta:dpeth=3", "no option"),
        ("td:model=/nonexistent/best.ckpt", "nonexistent"),
    ] {
        let config = TrainConfig {
            gauntlet_opponents: opponents.parse().unwrap(),
            ..tiny(1)
        };
        let err = Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false)
            .err()
            .expect("refused");
        let text = err.to_string();
        assert!(
            text.contains("gauntlet_opponents") && text.contains(needle),
            "{opponents}: {text}"
        );
        assert!(!dir.exists(), "nothing written for a refused run");
    }
}

#[test]
fn a_teacher_plays_the_first_iterations_self_play_whatever_its_network() {
    // The shipped network teaches a dark-tiny run for its first iteration of two.
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default.bin");
    let taught = |name: &str, network: NetPreset, teacher_iterations: u32| {
        let dir = scratch(name);
        let config = TrainConfig {
            network,
            teacher: (teacher_iterations > 0).then(|| shipped.clone()),
            teacher_iterations,
            ..tiny(2)
        };
        let mut p = Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false).unwrap();
        p.run().unwrap();
        drop(p);
        let games =
            |it: u32| std::fs::read_to_string(dir.join(format!("games/iter-{it:04}.pdn"))).unwrap();
        let (first, second) = (games(1), games(2));
        let flags: Vec<bool> = metrics(&dir).iter().map(|r| r.teacher).collect();
        std::fs::remove_dir_all(&dir).unwrap();
        (first, second, flags)
    };
    let (dark, dark_after, flags) = taught("teacher-dark", NetPreset::DarkTiny, 1);
    assert_eq!(flags, [true, false], "the teacher plays iteration 1 only");
    assert!(dark.contains("[Black \"teacher\"]"), "{dark}");
    assert!(!dark_after.contains("teacher"), "{dark_after}");
    // The same teacher plays the same games whatever network the run trains; untaught, the
    // run's own fresh network plays others.
    let (small, _, _) = taught("teacher-small", NetPreset::AzSmall, 1);
    assert_eq!(dark, small);
    let (alone, _, flags) = taught("teacher-none", NetPreset::DarkTiny, 0);
    assert_eq!(flags, [false, false]);
    let moves = |pdn: &str| {
        pdn.lines()
            .filter(|l| !l.starts_with('['))
            .collect::<String>()
    };
    assert_ne!(moves(&dark), moves(&alone));

    // A teacher of another encoding, none at all, or no file: refused before any work.
    let refused = [
        (
            TrainConfig {
                teacher: Some(shipped.clone()),
                teacher_iterations: 1,
                history: 1,
                ..tiny(1)
            },
            "its encoding is",
        ),
        (
            TrainConfig {
                teacher_iterations: 1,
                ..tiny(1)
            },
            "teacher_iterations needs a teacher",
        ),
        (
            TrainConfig {
                teacher: Some("/nonexistent/model.bin".into()),
                teacher_iterations: 1,
                ..tiny(1)
            },
            "teacher /nonexistent/model.bin",
        ),
    ];
    for (config, needle) in refused {
        let to = scratch("teacher-refused");
        let err = Pipeline::<Checkers>::create(&to, config, Device::Cpu, false)
            .err()
            .unwrap();
        assert!(err.to_string().contains(needle), "{err}");
        assert!(!to.exists(), "no run folder for a refused start");
    }
}

#[test]
fn a_run_with_average_plays_the_mean_of_its_last_networks_and_resumes_exactly() {
    let config = TrainConfig {
        average: 2,
        gating: false,
        gauntlet_every: 0,
        ..tiny(3)
    };
    let straight = scratch("average-straight");
    Pipeline::<Checkers>::create(&straight, config.clone(), Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let tensors = |path: &Path| {
        let file = read_model_file::<Checkers>(path).unwrap();
        (file.params.iter().chain(&file.buffers))
            .map(|t| t.data.clone())
            .collect::<Vec<_>>()
    };
    let models = straight.join("models");
    for it in 1..=3u32 {
        let from = it.saturating_sub(1).max(1);
        let parts: Vec<_> = (from..=it)
            .map(|i| tensors(&models.join(format!("iter-{i:04}.ckpt"))))
            .collect();
        let mean = tensors(&models.join(format!("mean-{it:04}.ckpt")));
        for (t, m) in mean.iter().enumerate() {
            for (j, &v) in m.iter().enumerate() {
                let want = parts.iter().map(|p| p[t][j]).sum::<f32>() / parts.len() as f32;
                assert!(
                    (v - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "{it} {t} {j}"
                );
            }
        }
    }
    // Iteration 2's self-play is played by iteration 1's mean, and the best file is the
    // last mean, whose lineage names the two networks it is the mean of.
    let games = std::fs::read_to_string(straight.join("games/iter-0002.pdn")).unwrap();
    assert!(games.contains("[Black \"mean-0001\"]"), "{games}");
    assert_eq!(
        std::fs::read(straight.join("best.ckpt")).unwrap(),
        std::fs::read(models.join("mean-0003.ckpt")).unwrap()
    );
    let best = read_model_file::<Checkers>(&straight.join("best.ckpt")).unwrap();
    let iterations: Vec<u32> = best
        .arch
        .lineage
        .averaged
        .iter()
        .map(|l| l.iteration)
        .collect();
    assert_eq!(iterations, [2, 3]);

    // Resumed after iteration 2, the run plays iteration 3 with the mean it had as the best,
    // so it trains the same network as the run that was never stopped.
    let split = scratch("average-split");
    let two = TrainConfig {
        iterations: 2,
        ..config
    };
    Pipeline::<Checkers>::create(&split, two, Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    let more = ConfigOverrides {
        iterations: Some(3),
        ..Default::default()
    };
    Pipeline::<Checkers>::resume(&split, &more, Device::Cpu, false)
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(
        weights(&straight.join("state.ckpt")),
        weights(&split.join("state.ckpt"))
    );
    let other = ConfigOverrides {
        average: Some(3),
        ..Default::default()
    };
    let err = Pipeline::<Checkers>::resume(&split, &other, Device::Cpu, false)
        .err()
        .unwrap();
    assert!(err.to_string().contains("keeps its average (2)"), "{err}");
    for dir in [straight, split] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn gating_on_the_cpu_from_the_files_plays_as_gating_from_memory() {
    use checkers_zero::train::alphazero::GatingDevice;
    let run = |device: GatingDevice| {
        let dir = scratch(&format!("gating-{device}"));
        let config = TrainConfig {
            gating_games: 6,
            gating_device: device,
            ..tiny(2)
        };
        Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false)
            .unwrap()
            .run()
            .unwrap();
        let games: Vec<_> = metrics(&dir)
            .iter()
            .map(|r| {
                let gauntlet: Vec<_> = (r.gauntlet.iter().flatten())
                    .map(|g| (g.opponent.clone(), g.black_wdl, g.white_wdl))
                    .collect();
                (r.gating_wdl, r.best_iteration, gauntlet)
            })
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        games
    };
    let (memory, files) = (run(GatingDevice::Run), run(GatingDevice::Cpu));
    assert!(memory.iter().all(|(wdl, ..)| wdl.is_some()));
    assert_eq!(memory, files);
}

/// With `starts`, self-play games begin at positions of the journal's games that its first
/// agent did not win, with the moves that led there; without it, at the start.
#[test]
fn self_play_starts_from_the_positions_of_a_journals_lost_games() {
    use checkers_zero::arena::journal_games;
    use checkers_zero::games::Rules;
    let journal = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results/az-forced-time1000-vs-alphabeta-classic-time1000-egdb6.jsonl");
    let not_won: Vec<Vec<String>> = journal_games::<Checkers>(&journal)
        .unwrap()
        .into_iter()
        .filter(|(g, first)| g.outcome().unwrap().score_for(*first) < 1.0)
        .map(|(g, _)| g.moves().iter().map(Checkers::format_move).collect())
        .collect();
    // Saved games whose first ten moves are those of a game the first agent did not win.
    let from_journal = |share: f32| {
        let dir = scratch(&format!("starts-{share}"));
        let config = TrainConfig {
            starts: Some(journal.clone()),
            start_share: share,
            saved_games: 4,
            ..tiny(1)
        };
        let mut p = Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false).unwrap();
        p.run().unwrap();
        drop(p);
        let pdn = std::fs::read_to_string(dir.join("games/iter-0001.pdn")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let games: Vec<Vec<String>> = pdn
            .split("\n\n")
            .map(|g| {
                (g.lines().filter(|l| !l.starts_with('[')))
                    .flat_map(str::split_whitespace)
                    .filter(|t| t.contains('-') || t.contains('x'))
                    .filter(|t| !t.contains('/') && *t != "1-0" && *t != "0-1")
                    .map(String::from)
                    .collect()
            })
            .filter(|moves: &Vec<String>| !moves.is_empty())
            .collect();
        assert_eq!(games.len(), 4);
        (games.iter())
            .filter(|g| g.len() >= 10 && not_won.iter().any(|j| j.starts_with(&g[..10])))
            .count()
    };
    assert!(from_journal(1.0) >= 2);
    assert_eq!(from_journal(0.0), 0);

    let to = scratch("starts-refused");
    let config = TrainConfig {
        starts: Some("/nonexistent/journal.jsonl".into()),
        ..tiny(1)
    };
    let err = Pipeline::<Checkers>::create(&to, config, Device::Cpu, false)
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("starts /nonexistent/journal.jsonl"),
        "{err}"
    );
    assert!(!to.exists(), "no run folder for a refused start");
}

/// With `mix`, self-play's searches value their leaves partly by alpha-beta: the same
/// network and seed record other root values than without it.
#[test]
fn self_play_with_mix_judges_its_leaves_by_alpha_beta() {
    use checkers_zero::nn::{Architecture, PolicyValueNet};
    use checkers_zero::train::alphazero::{Games, SelfPlayer};
    use rand::SeedableRng;
    let arch = Architecture::preset(NetPreset::AzTiny);
    let net = PolicyValueNet::new(
        arch,
        &Device::Cpu,
        &mut rand::rngs::StdRng::seed_from_u64(1),
    );
    let root_values = |mix: f32| {
        let config = TrainConfig {
            mix,
            mix_depth: 1,
            ..tiny(1)
        };
        let games = Games {
            games: 2,
            workers: 1,
            seed: 3,
        };
        let mut player = SelfPlayer::<Checkers>::new(
            &config,
            net.clone(),
            Default::default(),
            Device::Cpu,
            games,
        )
        .unwrap();
        let report = player.play(None);
        let q: Vec<f32> = (report.games.iter())
            .flat_map(|g| g.samples.iter().map(|s| s.q))
            .collect();
        assert!(!q.is_empty());
        q
    };
    assert_eq!(
        root_values(0.0),
        root_values(0.0),
        "self-play is repeatable"
    );
    assert_ne!(root_values(0.0), root_values(1.0));
}
