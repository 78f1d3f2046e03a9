//! `bench`: benchmarks that print one JSON object per measurement.

use super::bench_runs;
use super::{at_least_one, list, named, needs, open_device, positive, thread_pool};
use anyhow::{Context, Result, bail};
use checkers_zero::games::{GameName, Othello, on_game};
use checkers_zero::nn::NetPreset;
use checkers_zero::tensor::{Device, DeviceChoice, Precision};
use checkers_zero::train::alphazero::Preset;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum BenchCommand {
    /// perft speed: nodes, seconds and nodes per second, one JSON line per run and a median.
    Perft {
        /// The game.
        #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Checkers)]
        game: GameName,
        /// Plies to count.
        #[arg(long, default_value_t = 12)]
        depth: u32,
        /// Worker threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Timed runs; the last line reports their median.
        #[arg(long, default_value_t = 3, value_parser = at_least_one::<usize>)]
        repeat: usize,
        /// Count capture routes with the same start, end and captured pieces once.
        #[arg(long)]
        unique: bool,
    },
    /// Policy-value network speed (inference at several batches, a training step), printed
    /// with the same JSON keys as bench/pytorch_reference.py.
    Nn {
        /// Networks, comma-separated.
        #[arg(long, value_parser = named::<NetPreset>(), value_delimiter = ',', default_value = "az-tiny,az-small,plain-7x128")]
        net: Vec<NetPreset>,
        /// Where the network computes.
        #[arg(long, value_parser = named::<DeviceChoice>(), default_value_t = DeviceChoice::Cpu)]
        device: DeviceChoice,
        /// How its products compute: strict (f32) or mixed (f32 sums of a GPU's tensor
        /// cores' f16 products, or on the CPU of AMX tiles' bf16 products, inference only).
        #[arg(long, value_parser = named::<Precision>(), default_value_t = Precision::Strict)]
        precision: Precision,
        /// CPU threads.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Inference batch sizes, comma-separated.
        #[arg(long, default_value = "1,16,64,256")]
        batches: String,
        /// Batch sizes of the timed training step, comma-separated (0: inference only).
        #[arg(long, default_value = "256")]
        train_batch: String,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// With --device gpu: time each kernel with timestamp queries after each measurement
        /// and print its share of device time, GFLOP/s and GB/s.
        #[arg(long)]
        profile: bool,
    },
    /// The GPU adapters wgpu sees, best first, one JSON line each; fails unless the first
    /// (the one `--device gpu` opens) is a hardware GPU: the gate of bench/gpu-hardware.sh.
    Adapter {
        /// Accept a software adapter (Mesa's lavapipe, llvmpipe) as the first.
        #[arg(long)]
        allow_software: bool,
    },
    /// The CPU's peak: the FLOP/s of each of our SIMD kernels' vector FMAs on all the threads
    /// at once (the ceiling for `bench nn`'s effective GFLOP/s), one JSON line per kernel.
    Peak {
        /// Threads running FMAs at once.
        #[arg(long, default_value_t = 2, value_parser = at_least_one::<usize>)]
        threads: usize,
        /// Seconds each kernel runs.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
    /// The exact endgame solver: one JSON line per position (empties, score, nodes,
    /// seconds, nodes per second), then the median and the maximum seconds.
    Endgame {
        /// The game (only Othello has a solver).
        #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Othello)]
        game: GameName,
        /// Empty squares left in each position.
        #[arg(long, default_value_t = 16, value_parser = at_least_one::<u32>)]
        empties: u32,
        /// Positions to solve.
        #[arg(long, default_value_t = 20, value_parser = at_least_one::<usize>)]
        positions: usize,
        /// Seed of the playouts that make the positions.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How the playouts choose moves after 6 random plies: `random`, or an agent spec
        /// whose moves make positions like real games' (random playouts give endgames
        /// that are easier to solve).
        #[arg(long, default_value = "alphabeta:depth=3")]
        play: String,
        /// Solve only win, loss or draw (one null window) instead of the exact score.
        #[arg(long)]
        wld: bool,
    },
    /// The learner's intake through Redis: records pushed per second by producers, and
    /// taken in (checked, written and synced, acknowledged) per second by the learner.
    Ingest {
        /// redis://[user:password@]host[:port][/db]; the bench uses keys of its own.
        #[arg(long, value_name = "URL")]
        redis: String,
        /// With rediss://: the certificate authority (PEM) that signed the server's.
        #[arg(long, value_name = "FILE")]
        tls_ca: Option<PathBuf>,
        /// Game records to push and take in.
        #[arg(long, default_value_t = 5000, value_parser = at_least_one::<u64>)]
        records: u64,
        /// Connections pushing at once.
        #[arg(long, default_value_t = 2, value_parser = at_least_one::<usize>)]
        producers: usize,
    },
    /// Self-play throughput of a fresh network: games/hour, simulations/s, network
    /// evaluations/s and mean inference batch, one JSON line per run and a median.
    Selfplay {
        /// The game.
        #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Checkers)]
        game: GameName,
        /// The network.
        #[arg(long, value_parser = named::<NetPreset>(), default_value_t = NetPreset::AzTiny)]
        net: NetPreset,
        /// Where the network computes.
        #[arg(long, value_parser = named::<DeviceChoice>(), default_value_t = DeviceChoice::Cpu)]
        device: DeviceChoice,
        /// How its products compute: strict (f32) or mixed (f32 sums of a GPU's tensor
        /// cores' f16 products, or on the CPU of AMX tiles' bf16 products).
        #[arg(long, value_parser = named::<Precision>(), default_value_t = Precision::Strict)]
        precision: Precision,
        /// CPU threads for the network.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Simulations per move (every move a full search).
        #[arg(long, default_value_t = 200)]
        searches: u32,
        /// Games per run.
        #[arg(long, default_value_t = 16)]
        games: u32,
        /// Take the workers, games per worker, leaves and inference batch of a training
        /// preset (the flags below still change them).
        #[arg(long, value_parser = named::<Preset>())]
        preset: Option<Preset>,
        /// Self-play worker threads [default: 1, or the preset's].
        #[arg(long)]
        workers: Option<u32>,
        /// Games each worker keeps going at once [default: 16, or the preset's].
        #[arg(long)]
        games_per_worker: Option<u32>,
        /// Leaves each search gathers per network call [default: 4, or the preset's].
        #[arg(long)]
        leaf_batch: Option<u32>,
        /// Positions per network call at most [default: 256, or the preset's].
        #[arg(long)]
        inference_batch: Option<u32>,
        /// Timed runs; the last line reports their median.
        #[arg(long, default_value_t = 3, value_parser = at_least_one::<usize>)]
        repeat: usize,
        /// A trained model file to play (e.g. models/default.bin) instead of a fresh
        /// network of --net.
        #[arg(long)]
        model: Option<PathBuf>,
        /// End games at positions the endgame databases hold (the default folder) with
        /// their exact result, and search such positions as solved.
        #[arg(long)]
        exact_endings: bool,
    },
}

/// The device a bench runs on, described on stderr beside its JSON lines.
fn bench_device(choice: DeviceChoice, precision: Precision) -> Result<Device> {
    let device = open_device(choice, precision)?;
    eprintln!("device: {}", device.describe());
    Ok(device)
}

/// Lists the adapters; an error unless the first is hardware or software is allowed.
#[cfg(feature = "gpu")]
fn adapter_gate(allow_software: bool) -> Result<()> {
    let adapters = checkers_zero::backend::gpu::Gpu::adapters();
    for a in &adapters {
        println!("{}", serde_json::to_string(a)?);
    }
    let Some(first) = adapters.first() else {
        bail!("wgpu sees no adapter that runs compute shaders (is a Vulkan driver installed?)");
    };
    if first.software && !allow_software {
        bail!(
            "the best adapter, {} ({}), is a software renderer on the CPU, not a GPU; \
             pass --allow-software to accept it",
            first.name,
            first.driver_info
        );
    }
    Ok(())
}

pub fn run(command: BenchCommand) -> Result<()> {
    match command {
        BenchCommand::Perft {
            game,
            depth,
            threads,
            repeat,
            unique,
        } => {
            if game == GameName::Othello && unique {
                bail!("--unique folds checkers capture routes; Othello has none");
            }
            thread_pool(Some(threads))?
                .install(|| bench_runs::perft(game, depth, threads, repeat, unique));
            Ok(())
        }
        BenchCommand::Nn {
            net,
            device,
            precision,
            threads,
            batches,
            train_batch,
            seconds,
            profile,
        } => {
            let batches = list(
                &batches,
                ',',
                "positive whole numbers separated by commas, e.g. 1,16,64",
                positive,
            )
            .context("--batches")?;
            let train_batches = match train_batch.as_str() {
                "0" => vec![],
                text => list(
                    text,
                    ',',
                    "positive whole numbers separated by commas, e.g. 256,1024 (or 0: none)",
                    positive,
                )
                .context("--train-batch")?,
            };
            let config = bench_runs::NnBench {
                nets: net,
                device: bench_device(device, precision)?,
                threads,
                batches,
                train_batches,
                seconds,
                profile,
                precision,
            };
            thread_pool(Some(threads))?.install(|| bench_runs::nn(&config))
        }
        BenchCommand::Adapter {
            allow_software: _allow_software,
        } => needs!("gpu", "bench adapter", adapter_gate(_allow_software)),
        BenchCommand::Peak { threads, seconds } => {
            if !(seconds.is_finite() && seconds > 0.0) {
                bail!("--seconds {seconds}: expected a positive number of seconds");
            }
            use checkers_zero::backend::cpu::{Kernel, fma_peak};
            for kernel in Kernel::supported() {
                if let Some(flops) = fma_peak(kernel, threads, seconds) {
                    let gflops = (flops / 1e6).round() / 1e3;
                    let line = serde_json::json!({"kernel": kernel.name(), "threads": threads, "gflops": gflops});
                    println!("{line}");
                }
            }
            Ok(())
        }
        BenchCommand::Endgame {
            game,
            empties,
            positions,
            seed,
            play,
            wld,
        } => {
            if game != GameName::Othello {
                bail!("--game {}: only Othello has an endgame solver", game.name());
            }
            if empties > 60 {
                bail!("--empties {empties}: Othello has 60 empty squares at the start");
            }
            let player = match play.as_str() {
                "random" => None,
                spec => Some(super::parse_spec::<Othello>(spec).context("--play")?),
            };
            bench_runs::othello_endgame(empties, positions, seed, player.as_ref(), wld)?;
            Ok(())
        }
        BenchCommand::Ingest {
            redis: _redis,
            tls_ca: _tls_ca,
            records: _records,
            producers: _producers,
        } => needs!("cluster", "bench ingest", {
            let target = checkers_zero::distributed::link::RedisTarget {
                url: _redis,
                ca: _tls_ca,
            };
            super::bench_ingest::ingest(&target, _records, _producers)
        }),
        BenchCommand::Selfplay {
            game,
            net,
            device,
            precision,
            threads,
            searches,
            games,
            workers,
            games_per_worker,
            leaf_batch,
            inference_batch,
            preset,
            repeat,
            model,
            exact_endings,
        } => {
            use checkers_zero::train::alphazero::TrainConfig;
            let base = preset.map(TrainConfig::preset).unwrap_or(TrainConfig {
                threads: 1,
                games_per_thread: 16,
                leaf_batch: 4,
                ..TrainConfig::cpu()
            });
            let config = TrainConfig {
                exact_endings,
                network: net,
                searches,
                full_search_probability: 1.0,
                threads: workers.unwrap_or(base.threads),
                games_per_thread: games_per_worker.unwrap_or(base.games_per_thread),
                leaf_batch: leaf_batch.unwrap_or(base.leaf_batch),
                inference_batch: inference_batch.unwrap_or(base.inference_batch),
                games_per_iteration: games,
                ..TrainConfig::cpu()
            };
            config.validate()?;
            let device = bench_device(device, precision)?;
            let pool = thread_pool(Some(threads))?;
            pool.install(|| {
                on_game!(game, G => bench_runs::selfplay::<G>(&config, model.as_deref(), &device, threads, repeat))
            })
        }
    }
}
