//! `bench ingest`: the learner's intake through Redis.

use checkers_zero::distributed::learner::{LearnerOptions, RemoteGames};
use checkers_zero::distributed::link::{Link, LinkError, RedisTarget};
use checkers_zero::distributed::record::{self, RecordHeader};
use checkers_zero::games::Checkers;
use checkers_zero::selfplay::material_games;
use checkers_zero::tensor::Device;
use checkers_zero::train::alphazero::{GameSource, Pipeline, TrainConfig};
use serde_json::json;
use std::time::Instant;

/// The learner's intake through Redis at `redis`: `records` game records (real games, from a
/// self-play of the material evaluator with the CPU preset's searches, so of a trained run's
/// size) pushed by `producers` connections at once, then taken in by the learner's own code
/// (each checked, written to its inbox and synced, acknowledged and deleted), then checked
/// again and decoded as an iteration does. One JSON line; the run's keys are deleted after.
pub fn ingest(redis: &RedisTarget, records: u64, producers: usize) -> anyhow::Result<()> {
    let name = format!("bench-ingest-{}", std::process::id());
    let dir = std::env::temp_dir().join(&name);
    let config = TrainConfig {
        games_per_iteration: records as u32,
        ..TrainConfig::cpu()
    };
    let pipeline = Pipeline::<Checkers>::create(&dir, config, Device::Cpu, false)?;
    let result = ingest_into(&pipeline, redis, &name, records, producers.max(1));
    let _ = std::fs::remove_dir_all(&dir);
    let line = result?;
    println!("{line}");
    Ok(())
}

fn ingest_into(
    pipeline: &Pipeline<Checkers>,
    redis: &RedisTarget,
    name: &str,
    records: u64,
    producers: usize,
) -> anyhow::Result<serde_json::Value> {
    let options = LearnerOptions {
        redis: redis.clone(),
        name: Some(name.to_string()),
        backlog: records * 2,
    };
    let mut source = RemoteGames::open(pipeline, &options)?;
    let header = RecordHeader {
        game: "checkers".into(),
        network: pipeline.state().model.to_string(),
        model_version: 0,
        actor: "bench".into(),
    };
    let encoded: Vec<_> = material_games(&pipeline.state().config.self_play(), 16, 0)
        .iter()
        .map(|g| record::encode(&header, g))
        .collect();
    let bytes = encoded.iter().map(Vec::len).sum::<usize>() / encoded.len();

    let start = Instant::now();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..producers)
            .map(|p| {
                let encoded = &encoded;
                scope.spawn(move || {
                    let mut link = Link::open(redis, name, "producer")?;
                    for i in (p as u64..records).step_by(producers) {
                        let r = &encoded[i as usize % encoded.len()];
                        link.push_game(&format!("producer-{p}"), r, records * 2)?;
                    }
                    Ok::<_, LinkError>(())
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("no producer panicked"))
    })?;
    let push_s = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let (games, report) = source.games(1, pipeline)?;
    let total_s = start.elapsed().as_secs_f64();
    let report = report.expect("a learner reports its intake");
    let mut link = Link::open(redis, name, "bench")?;
    link.forget()?;
    Ok(
        json!({"bench": "ingest", "records": records, "producers": producers,
        "bytes_per_record": bytes, "games": games.games.len(),
        "push_per_s": records as f64 / push_s,
        "ingest_per_s": report.ingest_per_s,
        "ingest_and_decode_per_s": records as f64 / total_s}),
    )
}
