//! A self-play actor: fetches the learner's best network from Redis, plays games with the
//! local batched inference service (the workers `train` uses), pushes each finished game as
//! one record as soon as it ends, and checks for a newer network after each: then it starts no
//! more games, finishes those under way, and goes on with the newer one.

use super::link::{Link, LinkError, PublishedModel, RedisTarget};
use super::record::{self, RecordHeader};
use crate::errors::{Caused, Context};
use crate::events::event;
use crate::games::{GameName, on_game};
use crate::net::model_from_bytes;
use crate::nn::checksum;
use crate::tensor::Device;
use crate::train::alphazero::{AzGame, Games, SelfPlayer, parse_config_json};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How an actor runs.
#[derive(Clone, Debug)]
pub struct ActorOptions {
    pub redis: RedisTarget,
    /// The run's name in Redis.
    pub name: String,
    /// The actor's name in records and in the learner's reports.
    pub id: String,
    pub device: Device,
    /// Self-play worker threads.
    pub threads: usize,
    /// Stop after pushing this many games (none: run until stopped).
    pub games: Option<u64>,
}

/// Why an actor stopped.
#[derive(Debug, thiserror::Error)]
pub enum ActorError {
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error("the published model: {0}")]
    Model(String),
    /// The published model does not load.
    #[error("the published model: {0}")]
    Unloadable(#[from] Caused),
}

/// What an actor did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActorReport {
    pub games: u64,
    pub elapsed: Duration,
}

/// The actor's name in events: `actor ID`.
pub fn source(o: &ActorOptions) -> String {
    format!("actor {}", o.id)
}

/// Runs the actor until it has pushed `o.games` games (or forever).
pub fn run_actor(o: &ActorOptions) -> Result<ActorReport, ActorError> {
    let mut link = Link::open(&o.redis, &o.name, &source(o))?;
    let start = Instant::now();
    let mut pushed = 0;
    let mut waiting = false;
    while o.games.is_none_or(|n| pushed < n) {
        let Some(model) = link.fetch_model()? else {
            if !waiting {
                let key = link.key("model");
                event(source(o), "waiting")
                    .with("key", &key)
                    .say(format_args!("waiting for a learner to publish {key}"));
                waiting = true;
            }
            std::thread::sleep(Duration::from_secs(2));
            continue;
        };
        waiting = false;
        let game: GameName = model
            .game
            .parse()
            .map_err(|_| ActorError::Model(format!("an unknown game {:?}", model.game)))?;
        let mut session = Session {
            link: &mut link,
            options: o,
            pushed: &mut pushed,
            start,
        };
        on_game!(game, G => session.play::<G>(&model))?;
    }
    Ok(ActorReport {
        games: pushed,
        elapsed: start.elapsed(),
    })
}

/// An actor's games with one published model.
struct Session<'a> {
    link: &'a mut Link,
    options: &'a ActorOptions,
    pushed: &'a mut u64,
    start: Instant,
}

impl Session<'_> {
    /// Plays games with `m` until a newer model is published (the games under way are
    /// finished and pushed) or enough games are pushed.
    fn play<G: AzGame>(&mut self, m: &PublishedModel) -> Result<(), ActorError> {
        let o = self.options;
        let bad = |what: String| ActorError::Model(format!("version {}: {what}", m.version));
        if format!("{:016x}", checksum(&m.blob)) != m.hash {
            return Err(bad("the blob does not match its hash".into()));
        }
        let version = || format!("version {}", m.version);
        let ckpt = model_from_bytes::<G>(&m.blob).context(version)?;
        if ckpt.arch.model.to_string() != m.network {
            return Err(bad(format!(
                "the blob holds {}, published as {}",
                ckpt.arch.model, m.network
            )));
        }
        let (config_game, config) = parse_config_json(&m.config).context(version)?;
        if config_game != G::NAME {
            return Err(bad("the config names another game".into()));
        }
        let (net, _) = ckpt.arch.model.restore(&ckpt, &o.device).context(version)?;
        let games = Games {
            // Until stopped: a newer model, enough games, or a failed push.
            games: o
                .games
                .map_or(UNTIL_STOPPED, |n| n.saturating_sub(*self.pushed)),
            workers: o.threads,
            // Fresh at every start, so that a restarted actor does not replay its games.
            seed: rand::random(),
        };
        let mut player = SelfPlayer::<G>::new(
            &config,
            net,
            ckpt.arch.model.encoding,
            o.device.clone(),
            games,
        )
        .context(version)?;
        event(source(o), "playing")
            .with("version", m.version)
            .with("hash", &m.hash)
            .with("device", o.device.describe())
            .say(format_args!(
                "playing with model version {} ({}) on {}",
                m.version,
                m.hash,
                o.device.describe()
            ));
        let header = RecordHeader {
            game: G::NAME.name().to_string(),
            network: m.network.clone(),
            model_version: m.version,
            actor: o.id.clone(),
        };
        let start = self.start;
        let pushing = Mutex::new(Pushing {
            link: &mut *self.link,
            pushed: &mut *self.pushed,
            failure: None,
            reported: Instant::now(),
        });
        player.play_each(&|g| {
            let bytes = record::encode(&header, &g);
            let mut p = pushing.lock().expect("no push panicked");
            p.push(o, m, &bytes, start)
        });
        match pushing.into_inner().expect("no push panicked").failure {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}

/// "Until stopped", as a game count (the game counter must stay below 2^63).
const UNTIL_STOPPED: u64 = 1 << 48;

/// How often the actor reports its rate.
const REPORT_EVERY: Duration = Duration::from_secs(60);

/// The pushing side of a session, shared by the self-play workers.
struct Pushing<'a> {
    link: &'a mut Link,
    pushed: &'a mut u64,
    failure: Option<LinkError>,
    reported: Instant,
}

impl Pushing<'_> {
    /// Pushes one finished game; whether to start more games with the model `m` (not after
    /// a failure, nor once a newer model is published).
    fn push(&mut self, o: &ActorOptions, m: &PublishedModel, bytes: &[u8], start: Instant) -> bool {
        if self.failure.is_some() {
            return false;
        }
        let published = self
            .link
            .push_game(&o.id, bytes, m.backlog)
            .and_then(|_| self.link.model_version());
        match published {
            Ok(version) => {
                *self.pushed += 1;
                if self.reported.elapsed() >= REPORT_EVERY {
                    self.reported = Instant::now();
                    let hours = start.elapsed().as_secs_f64() / 3600.0;
                    let rate = *self.pushed as f64 / hours.max(1e-9);
                    event(source(o), "progress")
                        .with("version", m.version)
                        .with("games", *self.pushed)
                        .with("games_per_hour", rate)
                        .say(format_args!(
                            "model version {}, {} games pushed, {rate:.0} games/hour",
                            m.version, self.pushed
                        ));
                }
                version.is_none_or(|(v, h)| (v, h) == (m.version, m.hash.clone()))
            }
            Err(e) => {
                self.failure = Some(e);
                false
            }
        }
    }
}
