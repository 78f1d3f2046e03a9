//! Benchmarks printing one JSON object per measurement. `nn` uses the keys and the timing
//! method of bench/pytorch_reference.py, so one run can set us beside PyTorch.

use checkers_zero::agents::{Agent, AgentSpec, Limits};
use checkers_zero::backend::cpu::amx;
use checkers_zero::games::checkers::{Position, perft};
use checkers_zero::games::{DrawReason, Game, GameName, Othello, Outcome, WinReason, othello};
use checkers_zero::nn::{
    Architecture, Ctx, LossScale, Module, NetPreset, Optimizer, PolicyValueNet, alphazero_loss,
    step_reading,
};
use checkers_zero::tensor::{Device, Precision, Tensor, Var};
use checkers_zero::train::alphazero::{AzGame, Games, SelfPlayer, TrainConfig};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use serde_json::json;
use std::time::Instant;

/// perft of `game` from its start position `repeat` times on the current rayon pool (one thread: the
/// serial search); one line per run, then one with the median.
pub fn perft(game: GameName, depth: u32, threads: usize, repeat: usize, unique: bool) {
    let count: Box<dyn Fn() -> u64> = match (game, threads) {
        (GameName::Othello, 1) => {
            Box::new(|| othello::perft::perft(&othello::Position::start(), depth))
        }
        (GameName::Othello, _) => {
            Box::new(|| othello::perft::perft_parallel(&othello::Position::start(), depth))
        }
        (_, 1) => Box::new(|| perft::perft(&Position::start(), depth, unique)),
        _ => Box::new(|| perft::perft_parallel(&Position::start(), depth, unique)),
    };
    let mut runs = Vec::new();
    // A bar over the runs, its clock ticking (on a terminal; depth 15 takes minutes a run).
    let bar = checkers_zero::progress::progress(repeat.max(1) as u64, 0, "runs", true);
    bar.set_message(format!("perft {depth}"));
    bar.enable_steady_tick(std::time::Duration::from_millis(500));
    for run in 0..repeat.max(1) {
        let t = Instant::now();
        let nodes = count();
        let secs = t.elapsed().as_secs_f64();
        bar.inc(1);
        runs.push((secs, nodes));
        let line = json!({"bench": "perft", "impl": "checkers-zero", "game": game.name(),
            "depth": depth, "unique": unique, "threads": threads, "run": run, "nodes": nodes,
            "seconds": secs, "nodes_per_s": nodes as f64 / secs});
        bar.suspend(|| println!("{line}"));
    }
    bar.finish_and_clear();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (secs, nodes) = runs[runs.len() / 2];
    println!(
        "{}",
        json!({"bench": "perft", "impl": "checkers-zero", "game": game.name(), "depth": depth,
            "unique": unique, "threads": threads, "stat": "median", "runs": runs.len(),
            "nodes": nodes, "seconds": secs, "nodes_per_s": nodes as f64 / secs})
    );
}

/// `bench endgame`: `count` Othello positions with `empties` empty squares made by seeded
/// playouts from the start (6 random plies, then `player`'s moves, or random ones without
/// it), each solved once (exactly, or win/loss/draw with `wld`) on this thread; one line per
/// position, then a summary.
pub fn othello_endgame(
    empties: u32,
    count: usize,
    seed: u64,
    player: Option<&AgentSpec>,
    wld: bool,
) -> anyhow::Result<()> {
    use checkers_zero::endgame::othello::{solve, solve_wld};
    let play = player.map_or("random".to_string(), |spec| spec.to_string());
    let mut rng = StdRng::seed_from_u64(seed);
    let mut agent = player.map(|spec| spec.build::<Othello>(seed)).transpose()?;
    let mut seconds = Vec::new();
    let mut total_nodes = 0;
    for index in 0..count {
        let pos = loop {
            if let Some(pos) = othello_playout(&mut rng, empties, agent.as_deref_mut()) {
                break pos;
            }
        };
        let t = Instant::now();
        let solved = if wld {
            solve_wld(&pos, None)
        } else {
            solve(&pos, None)
        };
        let secs = t.elapsed().as_secs_f64();
        let solved = solved.expect("no stop flag");
        seconds.push(secs);
        total_nodes += solved.nodes;
        let line = json!({"bench": "endgame", "game": "othello", "play": play, "wld": wld,
            "index": index, "position": othello::to_text(&pos), "empties": empties,
            "score": solved.score, "best": solved.best.map(othello::move_to_text),
            "nodes": solved.nodes, "seconds": secs, "nodes_per_s": solved.nodes as f64 / secs});
        println!("{line}");
    }
    let total: f64 = seconds.iter().sum();
    seconds.sort_by(f64::total_cmp);
    println!(
        "{}",
        json!({"bench": "endgame", "game": "othello", "play": play, "wld": wld,
            "stat": "summary", "positions": count, "empties": empties, "seed": seed,
            "median_seconds": seconds[seconds.len() / 2], "max_seconds": seconds[seconds.len() - 1],
            "nodes_per_s": total_nodes as f64 / total})
    );
    Ok(())
}

/// A playout from Othello's start to `empties` empty squares with the game still going, or
/// `None` when it ended first: 6 random plies (so the games differ), then `agent`'s moves,
/// or random ones without an agent.
fn othello_playout(
    rng: &mut StdRng,
    empties: u32,
    mut agent: Option<&mut (dyn Agent<Othello> + 'static)>,
) -> Option<othello::Position> {
    let mut game = Game::<Othello>::at_start();
    if let Some(agent) = agent.as_deref_mut() {
        agent.new_game();
    }
    while game.position().empty().count_ones() > empties {
        let moves = game.legal_moves();
        let &random = moves.choose(rng)?;
        let mv = match agent.as_deref_mut() {
            Some(agent) if game.ply() >= 6 => agent.select(&game, &Limits::default()).mv,
            _ => random,
        };
        game.play(mv);
    }
    let pos = *game.position();
    (!pos.is_terminal()).then_some(pos)
}

/// What `bench nn` measures.
pub struct NnBench {
    pub nets: Vec<NetPreset>,
    pub device: Device,
    pub threads: usize,
    pub batches: Vec<usize>,
    /// Batches of the timed training step (none: inference only).
    pub train_batches: Vec<usize>,
    pub seconds: f64,
    /// Time each GPU kernel with timestamp queries after each measurement.
    pub profile: bool,
    /// Inference's precision (on the CPU its training step computes in f32).
    pub precision: Precision,
}

/// Calls `f` twice to warm up, then until `seconds` have passed (checked every 4 calls, as
/// the reference does); returns calls and elapsed seconds.
fn timed(seconds: f64, f: &mut dyn FnMut()) -> (usize, f64) {
    f();
    f();
    let (mut n, t0) = (0usize, Instant::now());
    loop {
        f();
        n += 1;
        if n % 4 == 0 {
            let el = t0.elapsed().as_secs_f64();
            if el >= seconds {
                return (n, el);
            }
        }
    }
}

/// Times `f` (one call handles `batch` positions) and prints its line; on a GPU with what one
/// call did (dispatches, submits, waits, bytes each way, the host's recording time and its
/// time in the queue's submit calls in milliseconds: `host_ms`, `submit_ms`), then the
/// kernel profile if asked.
fn measure(
    b: &NnBench,
    net: &str,
    params: usize,
    mode: &str,
    batch: usize,
    f: &mut dyn FnMut(),
) -> anyhow::Result<()> {
    let (n, el) = timed(b.seconds, f);
    let per_s = (n * batch) as f64 / el;
    let precision = match mode {
        "inference" => b.precision,
        _ if b.device.mixed() => Precision::Mixed,
        _ => Precision::Strict,
    };
    let mut record = json!({"impl": "checkers-zero", "device": b.device.name(),
        "kernel": b.device.kernel(), "precision": precision.name(), "threads": b.threads,
        "net": net, "params": params, "mode": mode, "batch": batch,
        "positions_per_s": (per_s * 10.0).round() / 10.0});
    if let (Some(r), Some(serde_json::Value::Object(c))) =
        (record.as_object_mut(), gpu_work(&b.device, f))
    {
        r.extend(c);
    }
    println!("{record}");
    if b.profile {
        profile(b, net, mode, batch, f)?;
    }
    Ok(())
}

/// What one call of `f` asked of the GPU, as JSON; None on the CPU.
fn gpu_work(device: &Device, f: &mut dyn FnMut()) -> Option<serde_json::Value> {
    #[cfg(feature = "gpu")]
    if let Device::Gpu(g) = device {
        let before = g.counters();
        f();
        let used = g.counters() - before;
        let mut work = serde_json::to_value(used).ok()?;
        // The host's recording and uploads, beside the device's kernel time; apart from the
        // queue's submit calls, in which lavapipe waits for the submission before.
        let ms = |ns: u64| (ns as f64 / 1e3).round() / 1e3;
        work["host_ms"] = json!(ms(used.host_ns.saturating_sub(used.submit_ns)));
        work["submit_ms"] = json!(ms(used.submit_ns));
        return Some(work);
    }
    let _ = (device, f);
    None
}

/// Calls of `f` under the GPU profiler: one JSON line per kernel (its share of device time,
/// milliseconds, GFLOP/s and GB/s per call of `f`) and a table on stderr.
fn profile(
    b: &NnBench,
    net: &str,
    mode: &str,
    batch: usize,
    f: &mut dyn FnMut(),
) -> anyhow::Result<()> {
    #[cfg(feature = "gpu")]
    if let Device::Gpu(g) = &b.device {
        const CALLS: usize = 3;
        g.start_profile()?;
        (0..CALLS).for_each(|_| f());
        let kernels = g.finish_profile();
        let total: f64 = kernels.iter().map(|k| k.seconds).sum();
        eprintln!(
            "{net} {mode} batch {batch}: {:.3} ms of kernels per call",
            total * 1e3 / CALLS as f64
        );
        eprintln!(
            "  {:>6} {:>9} {:>6} {:>9} {:>8}  kernel",
            "share", "ms/call", "calls", "GFLOP/s", "GB/s"
        );
        for k in &kernels {
            let per_s = |x: u64| {
                if k.seconds > 0.0 {
                    x as f64 / k.seconds * 1e-9
                } else {
                    0.0
                }
            };
            let (share, ms) = (k.seconds / total.max(1e-12), k.seconds * 1e3 / CALLS as f64);
            let calls = k.calls as f64 / CALLS as f64;
            eprintln!(
                "  {:>5.1}% {ms:>9.3} {calls:>6.1} {:>9.1} {:>8.1}  {}",
                share * 100.0,
                per_s(k.flops),
                per_s(k.bytes),
                k.kernel
            );
            println!(
                "{}",
                json!({"profile": mode, "net": net, "batch": batch, "kernel": k.kernel,
                "share": share, "ms_per_call": ms, "dispatches_per_call": calls,
                "gflop_s": per_s(k.flops), "gb_s": per_s(k.bytes)})
            );
        }
        return Ok(());
    }
    let _ = (b, net, mode, batch, f);
    anyhow::bail!("--profile times GPU kernels: use it with --device gpu")
}

/// Inference at each batch size (outputs read back, as an inference service must), then one
/// full training step — forward, AlphaZero loss, backward, SGD with momentum and weight
/// decay — at the training batch, with the loss read back every step.
pub fn nn(b: &NnBench) -> anyhow::Result<()> {
    if !(b.seconds.is_finite() && b.seconds >= 0.0) {
        anyhow::bail!(
            "--seconds {}: expected a number of seconds, 0 or more (0: a fixed few calls)",
            b.seconds
        );
    }
    for &preset in &b.nets {
        let (name, arch) = (preset.name(), Architecture::preset(preset));
        let mut rng = StdRng::seed_from_u64(0);
        let mut net = PolicyValueNet::new(arch.clone(), &b.device, &mut rng);
        let params = net.num_params();
        net.set_train(false);
        for &batch in &b.batches {
            let x = Tensor::randn(&[batch, arch.input_planes, 8, 8], 1.0, &mut rng, &b.device);
            let mut call = || {
                let _products = amx::mixed_scope(b.precision == Precision::Mixed);
                let (policy, value) = net.predict(&x);
                std::hint::black_box(Tensor::to_vecs(&[&policy, &value]));
            };
            measure(b, name, params, "inference", batch, &mut call)?;
        }
        net.set_train(true);
        let mut opt = Optimizer::sgd(0.01, 0.9, 1e-4, &net);
        // As the trainer steps: under a loss scale where the products are mixed.
        let mut scale = LossScale::for_device(&b.device);
        for &batch in &b.train_batches {
            let x = Tensor::randn(&[batch, arch.input_planes, 8, 8], 1.0, &mut rng, &b.device);
            let pi = Tensor::randn(&[batch, 128], 1.0, &mut rng, &b.device).softmax(-1);
            let z = Tensor::uniform(&[batch], 1.0, &mut rng, &b.device);
            let mut call = || {
                let ctx = Ctx::training();
                let (logits, value) = net.forward(&ctx, &Var::constant(x.clone()));
                let loss = alphazero_loss(&logits, &value, &pi, &z);
                let total = loss.total.value();
                let read = step_reading(
                    &ctx,
                    &mut net,
                    &mut opt,
                    &loss.total,
                    scale.as_mut(),
                    &[total],
                );
                std::hint::black_box(read);
            };
            measure(b, name, params, "train", batch, &mut call)?;
        }
        b.device.check()?;
    }
    Ok(())
}

/// Self-play with the network of `model_file`, else a freshly initialised network of
/// `config.network` (its games are those of an untrained network: longer and more drawn
/// than a trained one's).
pub fn selfplay<G: AzGame>(
    config: &TrainConfig,
    model_file: Option<&std::path::Path>,
    device: &Device,
    threads: usize,
    repeat: usize,
) -> anyhow::Result<()> {
    let (net, encoding) = match model_file {
        Some(path) => {
            let (net, encoding, _) = checkers_zero::net::load_model::<G>(path, device)?;
            (net, encoding)
        }
        None => {
            let model = config.model::<G>()?;
            (
                model.build(device, &mut StdRng::seed_from_u64(0)),
                model.encoding,
            )
        }
    };
    let mut runs = Vec::new();
    for run in 0..repeat.max(1) {
        // The loop `train` runs, its evaluation cache included (fresh for each run).
        let games = Games {
            games: config.games_per_iteration as u64,
            workers: config.threads as usize,
            seed: run as u64,
        };
        let mut player =
            SelfPlayer::<G>::new(config, net.clone(), encoding, device.clone(), games)?;
        let r = player.play(None);
        let secs = r.elapsed.as_secs_f64();
        let record = json!({"bench": "selfplay", "impl": "checkers-zero", "game": G::NAME.name(),
            "device": device.name(), "kernel": device.kernel(),
            "threads": threads, "workers": config.threads, "net": config.network,
            "searches": config.searches, "run": run, "games": r.games.len(),
            "plies": r.positions(), "seconds": secs,
            "model": model_file.map(|p| p.display().to_string()),
            "exact_endings": config.exact_endings,
            "proven_games": r.games.iter().filter(|g| g.game.outcome().is_some_and(|o| matches!(o,
                Outcome::Win(_, WinReason::Proven) | Outcome::Draw(DrawReason::Proven)))).count(),
            "plies_per_game": r.games.iter().map(|g| g.game.ply()).sum::<usize>() as f64
                / r.games.len().max(1) as f64,
            "games_per_hour": r.games.len() as f64 * 3600.0 / secs,
            "simulations_per_s": r.simulations() as f64 / secs,
            "evaluations_per_s": r.inference.positions as f64 / secs,
            "cache_hit_rate": r.cache_hit_rate,
            "mean_batch": r.inference.mean_batch()});
        println!("{record}");
        runs.push(record);
    }
    let rate = |r: &serde_json::Value| r["games_per_hour"].as_f64().unwrap_or(0.0);
    runs.sort_by(|a, b| rate(a).total_cmp(&rate(b)));
    let mut median = runs[runs.len() / 2].clone();
    median["stat"] = json!("median");
    median["runs"] = json!(runs.len());
    println!("{median}");
    Ok(())
}
