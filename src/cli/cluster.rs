//! The `learner` and `actor` subcommands: training across machines through Redis.

use super::train::AzArgs;
#[cfg(feature = "cluster")]
use super::train::{az_game, finished, open_pipeline};
#[cfg(feature = "cluster")]
use anyhow::{Context, Result, bail};
#[cfg(feature = "cluster")]
use checkers_zero::distributed::actor::{ActorOptions, run_actor, source};
#[cfg(feature = "cluster")]
use checkers_zero::distributed::learner::{DEFAULT_NAME, LearnerOptions, RemoteGames};
#[cfg(feature = "cluster")]
use checkers_zero::distributed::link::{RedisTarget, with_password};
#[cfg(feature = "cluster")]
use checkers_zero::games::on_game;
use checkers_zero::tensor::DeviceChoice;
#[cfg(feature = "cluster")]
use checkers_zero::train::alphazero::AzGame;
#[cfg(feature = "cluster")]
use checkers_zero::{events::event, health};
use std::path::PathBuf;

/// Where the run lives in Redis.
#[derive(clap::Args)]
pub struct RedisArgs {
    /// redis://[user:password@]host[:port][/db], or rediss://... for TLS.
    #[arg(long, value_name = "URL")]
    redis: String,
    /// With rediss://: the certificate (PEM) of the authority that signed the server's, when
    /// it is not a public one (a self-signed server certificate).
    #[arg(long, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
    /// A file whose first line is the password (a container's secret), for a --redis URL
    /// without one.
    #[arg(long, value_name = "FILE")]
    redis_password_file: Option<PathBuf>,
    /// The run's name in Redis (prefix of its keys): one learner and its actors share it
    /// [default: checkers-zero; a resumed learner: its run's].
    #[arg(long)]
    name: Option<String>,
}

#[cfg(feature = "cluster")]
impl RedisArgs {
    fn target(&self) -> Result<RedisTarget> {
        let url = match &self.redis_password_file {
            None => self.redis.clone(),
            Some(file) => {
                let text = std::fs::read_to_string(file)
                    .with_context(|| format!("--redis-password-file {}", file.display()))?;
                let password = text.lines().next().unwrap_or("");
                if password.is_empty() {
                    bail!(
                        "--redis-password-file {}: expected the password on its first line",
                        file.display()
                    );
                }
                with_password(&self.redis, password)
                    .map_err(|e| anyhow::anyhow!("--redis-password-file: {e}"))?
            }
        };
        Ok(RedisTarget {
            url,
            ca: self.tls_ca.clone(),
        })
    }
}

/// Train on games from self-play actors (`actor`) through Redis.
#[derive(clap::Args)]
pub struct LearnerArgs {
    #[command(flatten)]
    redis: RedisArgs,
    /// Unread games the stream keeps at most (actors trim the oldest beyond it; default: ten
    /// iterations' games).
    #[arg(long, value_parser = super::at_least_one::<u64>)]
    backlog: Option<u64>,
    #[command(flatten)]
    train: AzArgs,
}

#[cfg(feature = "cluster")]
pub fn learner(mut a: LearnerArgs) -> Result<()> {
    a.train.command = "learner --redis URL";
    on_game!(az_game(&a.train)?, G => learner_for::<G>(a))
}

#[cfg(feature = "cluster")]
fn learner_for<G: AzGame>(a: LearnerArgs) -> Result<()> {
    let mut pipeline = open_pipeline::<G>(&a.train)?;
    let games = pipeline.state().config.games_per_iteration as u64;
    let options = LearnerOptions {
        redis: a.redis.target()?,
        name: a.redis.name,
        backlog: a.backlog.unwrap_or(10 * games),
    };
    let mut source = RemoteGames::open(&pipeline, &options)?;
    health::start("learner", None);
    event("learner", "started")
        .with("redis", source.url())
        .with("name", source.name())
        .say(format_args!(
            "games from {} (run {:?}); start actors with: checkers-zero actor --redis URL \
             --name {}",
            source.url(),
            source.name(),
            source.name()
        ));
    pipeline.run_on(&mut source)?;
    finished(&pipeline, &a.train);
    Ok(())
}

/// Play self-play games for a learner (`learner`) with its latest network.
#[derive(clap::Args)]
pub struct ActorArgs {
    #[command(flatten)]
    redis: RedisArgs,
    /// Where the network computes.
    #[arg(long, value_parser = super::named::<DeviceChoice>(), default_value_t = DeviceChoice::Auto)]
    device: DeviceChoice,
    /// Self-play worker threads (default: all cores).
    #[arg(long, value_parser = super::at_least_one::<usize>)]
    threads: Option<usize>,
    /// This actor's name in the learner's reports (default: host name and process id).
    #[arg(long)]
    id: Option<String>,
    /// Stop after pushing this many games (default: run until stopped).
    #[arg(long, value_parser = super::at_least_one::<u64>)]
    games: Option<u64>,
}

#[cfg(feature = "cluster")]
pub fn actor(a: ActorArgs) -> Result<()> {
    let device = super::open_device(a.device, checkers_zero::tensor::Precision::Strict)?;
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "actor".into());
    let options = ActorOptions {
        redis: a.redis.target()?,
        name: a.redis.name.unwrap_or_else(|| DEFAULT_NAME.to_string()),
        id: a
            .id
            .unwrap_or_else(|| format!("{host}-{}", std::process::id())),
        device,
        threads: a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        games: a.games,
    };
    health::start("actor", None);
    let report = run_actor(&options)?;
    event(source(&options), "finished")
        .with("games", report.games)
        .with("elapsed_s", report.elapsed.as_secs_f64())
        .say(format_args!(
            "{} games pushed in {:.0} s",
            report.games,
            report.elapsed.as_secs_f64()
        ));
    Ok(())
}
