//! The learner's game source: games from the actors' stream instead of its own self-play.
//!
//! Exactly-once, across kills of the learner and restarts of Redis:
//! - a record read from the stream is checked, appended to `inbox.bin` in the run folder and
//!   synced, and only then acknowledged and deleted in Redis. A kill in between leaves it
//!   pending in the group, and it is read again; records the learner already holds (by id)
//!   are acknowledged and dropped;
//! - before training, `ingest.json` names the iteration and the ids it trains on (those
//!   after `before`, up to `through`); the run's checkpoint marks the iteration done. On
//!   resume the iteration after the checkpoint takes the same inbox records again, and ids up
//!   to the last checkpointed iteration's `through` are never used twice.
//!
//! The learner publishes the best network (the model file's bytes) at the start and after
//! each checkpoint that changed it; its version is the best network's iteration.

use super::link::{Entry, Link, LinkError, PublishedModel, RedisTarget};
use super::record;
use crate::events::event;
use crate::files::write_atomic;
use crate::nn::checksum;
use crate::progress::progress;
use crate::selfplay::{InferenceStats, SelfPlayGame, SelfPlayReport};
use crate::train::alphazero::{AzGame, GameSource, IngestReport, Pipeline, config_json};
use crate::train::errors::{TrainError, io_error as io};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A stream entry id (`milliseconds-sequence`), ordered as Redis orders them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamId(u64, u64);

impl StreamId {
    pub fn parse(text: &str) -> Option<StreamId> {
        let (ms, seq) = text.split_once('-')?;
        Some(StreamId(ms.parse().ok()?, seq.parse().ok()?))
    }

    /// The id right after this one.
    fn next(self) -> StreamId {
        match self.1.checked_add(1) {
            Some(seq) => StreamId(self.0, seq),
            None => StreamId(self.0 + 1, 0),
        }
    }
}

impl std::fmt::Display for StreamId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.0, self.1)
    }
}

impl Serialize for StreamId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for StreamId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        StreamId::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a stream id")))
    }
}

/// The learner's identity in the run folder (`learner.json`): the stream's name and the
/// owner id it claims the stream with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct LearnerFile {
    name: String,
    owner: String,
}

/// `ingest.json`: iteration `iteration` trains on the inbox records after `before` up to
/// `through`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct IngestMark {
    iteration: u32,
    before: StreamId,
    through: StreamId,
}

/// One record held in the inbox.
#[derive(Serialize, Deserialize)]
struct InboxRecord {
    id: StreamId,
    actor: String,
    bytes: Vec<u8>,
}

/// `inbox.bin`: received records not yet trained on, as frames of (length u32, FNV-1a u64,
/// bincode record), appended and synced. A frame cut short by a kill is dropped on opening.
struct Inbox {
    path: PathBuf,
    file: std::fs::File,
}

fn frame(r: &InboxRecord) -> Vec<u8> {
    let body = bincode::serde::encode_to_vec(r, bincode::config::standard()).expect("plain data");
    let mut out = Vec::with_capacity(12 + body.len());
    out.extend((body.len() as u32).to_le_bytes());
    out.extend(checksum(&body).to_le_bytes());
    out.extend(body);
    out
}

impl Inbox {
    /// Opens (or creates) the inbox; its whole records.
    fn open(path: &Path) -> Result<(Inbox, Vec<InboxRecord>), TrainError> {
        let (records, torn) = read_inbox(path)?;
        if torn > 0 {
            event("learner", "torn record")
                .with("file", path)
                .with("bytes", torn)
                .say(format_args!(
                    "{} ended in a record cut short ({torn} bytes), dropped: it was never \
                     acknowledged, so Redis delivers it again",
                    path.display()
                ));
        }
        // Rewritten whole: drops a torn tail and leaves a file to append to.
        let whole: Vec<u8> = records.iter().flat_map(frame).collect();
        write_atomic(path, &whole).map_err(io(path))?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io(path))?;
        Ok((
            Inbox {
                path: path.to_owned(),
                file,
            },
            records,
        ))
    }

    fn append(&mut self, records: &[InboxRecord]) -> Result<(), TrainError> {
        let bytes: Vec<u8> = records.iter().flat_map(frame).collect();
        self.file
            .write_all(&bytes)
            .and_then(|_| self.file.sync_data())
            .map_err(io(&self.path))
    }

    /// Keeps only `records` (written atomically, then appended to again).
    fn rewrite(&mut self, records: &[InboxRecord]) -> Result<(), TrainError> {
        let whole: Vec<u8> = records.iter().flat_map(frame).collect();
        write_atomic(&self.path, &whole).map_err(io(&self.path))?;
        self.file = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(io(&self.path))?;
        Ok(())
    }
}

/// The whole records of the inbox at `path` and the bytes after them (a frame cut short).
fn read_inbox(path: &Path) -> Result<(Vec<InboxRecord>, usize), TrainError> {
    let mut bytes = Vec::new();
    if path.exists() {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(io(path))?;
    }
    let mut records = Vec::new();
    let mut at = 0;
    while let Some(head) = bytes.get(at..at + 12) {
        let len = u32::from_le_bytes(head[..4].try_into().expect("4")) as usize;
        let sum = u64::from_le_bytes(head[4..].try_into().expect("8"));
        let Some(body) = bytes.get(at + 12..at + 12 + len) else {
            break;
        };
        if checksum(body) != sum {
            break;
        }
        match bincode::serde::decode_from_slice(body, bincode::config::standard()) {
            Ok((r, _)) => records.push(r),
            Err(_) => break,
        }
        at += 12 + len;
    }
    Ok((records, bytes.len() - at))
}

/// The stream ids of the records the learner of the run in `dir` holds on its disk
/// (`inbox.bin`): received and acknowledged, not yet trained on by a finished iteration.
pub fn held_ids(dir: &Path) -> Result<Vec<StreamId>, TrainError> {
    Ok(read_inbox(&dir.join("inbox.bin"))?
        .0
        .iter()
        .map(|r| r.id)
        .collect())
}

/// The run's name in Redis when none is given.
pub const DEFAULT_NAME: &str = "checkers-zero";

/// How the learner takes games in.
#[derive(Clone, Debug)]
pub struct LearnerOptions {
    pub redis: RedisTarget,
    /// The run's name in Redis (the keys' prefix); by default the name the run folder was
    /// started with, or [`DEFAULT_NAME`] for a new one.
    pub name: Option<String>,
    /// Stream entries kept at most while no learner reads them (actors trim beyond it).
    pub backlog: u64,
}

/// Games from the actors' stream (see the module's description).
pub struct RemoteGames {
    link: Link,
    owner: String,
    backlog: u64,
    dir: PathBuf,
    inbox: Inbox,
    /// Received records after `trained`, in id order.
    held: Vec<InboxRecord>,
    /// The last id trained on by a checkpointed iteration.
    trained: StreamId,
    /// The iteration under way and the last id it takes.
    taking: Option<IngestMark>,
    /// Whether the pending entries have been read since the connection was made. They are
    /// read again after each new connection: a read whose reply was lost with the old one
    /// left its entries delivered but unseen, and a Redis restarted from an append-only file
    /// synced once a second (its default) may have lost acknowledgements; entries already
    /// held come back as duplicates and are acknowledged and deleted.
    read_pending: bool,
    /// The link's connections when the pending entries were last read.
    connections: u64,
    published: Option<u32>,
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, TrainError> {
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| TrainError::Config(format!("{}: {e}", path.display())))
}

/// Writes `value` as JSON to `path`, whole or not at all.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), TrainError> {
    let text = serde_json::to_string_pretty(value).expect("plain data");
    write_atomic(path, text.as_bytes()).map_err(io(path))
}

fn link_error(e: LinkError) -> TrainError {
    TrainError::Config(e.to_string())
}

impl RemoteGames {
    /// The learner of `run`: claims the stream, opens the inbox and works out what was
    /// trained on from the run's checkpoint.
    pub fn open<G: AzGame>(run: &Pipeline<G>, o: &LearnerOptions) -> Result<Self, TrainError> {
        if run.has_teacher() {
            return Err(TrainError::Config(
                "teacher: a learner's games are its actors', played by its best network; \
                 run the teacher's iterations with train, then resume them as a learner"
                    .into(),
            ));
        }
        if run.has_starts() {
            return Err(TrainError::Config(
                "starts: a learner's games are its actors', played from the start position; \
                 give starts to train"
                    .into(),
            ));
        }
        let dir = run.dir().to_owned();
        let meta_path = dir.join("learner.json");
        let meta = match (read_json::<LearnerFile>(&meta_path)?, &o.name) {
            (Some(m), Some(name)) if &m.name != name => {
                return Err(TrainError::Config(format!(
                    "{} learns from the stream named {:?}, not {name:?} (--name)",
                    dir.display(),
                    m.name,
                )));
            }
            (Some(m), _) => m,
            (None, name) => {
                let m = LearnerFile {
                    name: name.clone().unwrap_or_else(|| DEFAULT_NAME.to_string()),
                    owner: format!("{:016x}", rand::random::<u64>()),
                };
                write_json(&meta_path, &m)?;
                m
            }
        };
        let mut link = Link::open(&o.redis, &meta.name, "learner").map_err(link_error)?;
        let owner = format!("{} {}", meta.owner, dir.display());
        if let Some(holder) = link.claim(&owner).map_err(link_error)? {
            return Err(TrainError::Config(format!(
                "the stream {} belongs to another learner ({holder}); one learner per run: \
                 resume that one, or give this run another --name (if that learner's run \
                 folder is gone for good: redis-cli DEL {})",
                link.key("games"),
                link.key("owner")
            )));
        }
        link.ensure_group().map_err(link_error)?;

        let done = run.state().iteration;
        let mark = read_json::<IngestMark>(&dir.join("ingest.json"))?;
        let trained = match mark {
            None => StreamId::default(),
            Some(m) if m.iteration == done => m.through,
            Some(m) if m.iteration == done + 1 => m.before,
            Some(m) => {
                return Err(TrainError::Config(format!(
                    "{}: ingest.json names iteration {} but the run checkpointed {done}",
                    dir.display(),
                    m.iteration
                )));
            }
        };
        let (inbox, records) = Inbox::open(&dir.join("inbox.bin"))?;
        let mut held: Vec<InboxRecord> = records.into_iter().filter(|r| r.id > trained).collect();
        held.sort_by_key(|r| r.id);
        held.dedup_by_key(|r| r.id);
        Ok(RemoteGames {
            link,
            owner: meta.owner,
            backlog: o.backlog,
            dir,
            inbox,
            held,
            trained,
            taking: None,
            read_pending: false,
            connections: 0,
            published: None,
        })
    }

    /// The Redis URL (without its password).
    pub fn url(&self) -> &str {
        self.link.url()
    }

    /// The run's name in Redis.
    pub fn name(&self) -> &str {
        self.link.name()
    }

    /// Reads one batch from the stream into the inbox: checked records appended and synced,
    /// then everything read acknowledged and deleted. Counts into `report`.
    fn receive<G: AzGame>(
        &mut self,
        network: &str,
        report: &mut IngestReport,
    ) -> Result<usize, TrainError> {
        if self.link.connections() != self.connections {
            self.connections = self.link.connections();
            self.read_pending = false;
        }
        let pending = !self.read_pending;
        let entries = self
            .link
            .read_games(&self.owner, pending, 256, Duration::from_secs(2))
            .map_err(link_error)?;
        if pending && entries.is_empty() {
            self.read_pending = true;
        }
        let mut keep = Vec::new();
        let mut done = Vec::new();
        for Entry { id, actor, record } in entries {
            done.push(id.clone());
            let Some(sid) = StreamId::parse(&id) else {
                continue;
            };
            let known = sid <= self.trained
                || self.held.binary_search_by_key(&sid, |r| r.id).is_ok()
                || keep.iter().any(|r: &InboxRecord| r.id == sid);
            if known {
                report.duplicates += 1;
                continue;
            }
            let checked = match record {
                None => Err((
                    "trimmed",
                    "trimmed from the stream before it was read".to_string(),
                )),
                Some(bytes) => match record::decode::<G>(&bytes, network, 0) {
                    Ok(_) => Ok(bytes),
                    Err(e) => Err((e.kind(), e.to_string())),
                },
            };
            match checked {
                Ok(bytes) => keep.push(InboxRecord {
                    id: sid,
                    actor,
                    bytes,
                }),
                Err((kind, why)) => {
                    *report.rejected.entry(kind.to_string()).or_default() += 1;
                    let who = if actor.is_empty() {
                        "an unnamed actor"
                    } else {
                        &actor
                    };
                    event("learner", "rejected")
                        .with("entry", &id)
                        .with("actor", &actor)
                        .with("kind", kind)
                        .with("why", &why)
                        .say(format_args!("rejected stream entry {id} from {who}: {why}"));
                }
            }
        }
        self.inbox.append(&keep)?;
        self.held.extend(keep);
        self.held.sort_by_key(|r| r.id);
        self.link.ack_delete(&done).map_err(link_error)?;
        Ok(done.len())
    }

    fn publish<G: AzGame>(&mut self, run: &Pipeline<G>) -> Result<(), TrainError> {
        let s = run.state();
        if self.published == Some(s.best_iteration) {
            return Ok(());
        }
        let path = run.best_path();
        let blob = std::fs::read(&path).map_err(io(&path))?;
        let model = PublishedModel {
            version: s.best_iteration,
            hash: format!("{:016x}", checksum(&blob)),
            game: G::NAME.name().to_string(),
            network: s.model.to_string(),
            config: config_json(&s.config, G::NAME),
            backlog: self.backlog,
            blob,
        };
        self.link.publish(&model).map_err(link_error)?;
        self.published = Some(s.best_iteration);
        if run.progress() {
            let key = self.link.key("model");
            event("learner", "published")
                .with("version", model.version)
                .with("hash", &model.hash)
                .with("key", &key)
                .say(format_args!(
                    "published model version {} ({}) to {key}",
                    model.version, model.hash
                ));
        }
        Ok(())
    }
}

impl<G: AzGame> GameSource<G> for RemoteGames {
    fn games(
        &mut self,
        it: u32,
        run: &Pipeline<G>,
    ) -> Result<(SelfPlayReport<G>, Option<IngestReport>), TrainError> {
        let start = Instant::now();
        let want = run.state().config.games_per_iteration as usize;
        let network = run.state().model.to_string();
        let mut report = IngestReport::default();
        let bar = progress(want as u64, 0, "games", run.progress());
        bar.set_message(format!(
            "iteration {it}: games from {}",
            self.link.key("games")
        ));
        let mut read = 0;
        while self.held.len() < want {
            bar.set_position(self.held.len() as u64);
            read += self.receive::<G>(&network, &mut report)?;
        }
        bar.finish_and_clear();
        let wait = start.elapsed();
        let taken = &self.held[..want];
        let mark = IngestMark {
            iteration: it,
            before: self.trained,
            through: taken.last().map_or(self.trained, |r| r.id),
        };
        let path = self.dir.join("ingest.json");
        write_json(&path, &mark)?;
        self.taking = Some(mark);

        let best = run.state().best_iteration;
        let mut games = Vec::with_capacity(want);
        let mut stale = Vec::with_capacity(want);
        for (i, r) in taken.iter().enumerate() {
            // Checked when received; checked again, as the inbox is a file on disk.
            let (header, game): (_, SelfPlayGame<G>) = record::decode(&r.bytes, &network, i as u64)
                .map_err(|e| {
                    TrainError::Config(format!("{}: record {}: {e}", path.display(), r.id))
                })?;
            *report.games_by_actor.entry(header.actor).or_default() += 1;
            stale.push(best.saturating_sub(header.model_version));
            games.push(game);
        }
        report.mean_staleness = stale.iter().map(|&s| s as f64).sum::<f64>() / want.max(1) as f64;
        report.max_staleness = stale.iter().copied().max().unwrap_or(0);
        report.ingest_per_s = read as f64 / wait.as_secs_f64().max(1e-9);
        report.first_id = taken.first().map(|r| r.id.to_string()).unwrap_or_default();
        report.last_id = mark.through.to_string();
        Ok((
            SelfPlayReport {
                games,
                elapsed: wait,
                inference: InferenceStats::default(),
                cache_hit_rate: 0.0,
            },
            Some(report),
        ))
    }

    fn committed(&mut self, run: &Pipeline<G>) -> Result<(), TrainError> {
        if let Some(mark) = self.taking.take()
            && mark.iteration == run.state().iteration
        {
            self.trained = mark.through;
            self.held.retain(|r| r.id > mark.through);
            self.inbox.rewrite(&self.held)?;
        }
        // Entries up to the trained mark were all trained on or refused. Acknowledged
        // ones can stay behind after Redis is killed (acknowledged and past the group's
        // last-delivered id, so never delivered again): they go here.
        if self.trained > StreamId::default() {
            self.link
                .trim_below(&self.trained.next().to_string())
                .map_err(link_error)?;
        }
        self.publish(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_order_as_redis_orders_them() {
        let a = StreamId::parse("1700000000000-5").unwrap();
        let b = StreamId::parse("1700000000000-12").unwrap();
        let c = StreamId::parse("1700000000001-0").unwrap();
        assert!(a < b && b < c);
        assert_eq!(b.to_string(), "1700000000000-12");
        assert_eq!(StreamId::parse("12"), None);
        assert_eq!(StreamId::parse("a-1"), None);
    }

    #[test]
    fn an_inbox_cut_short_keeps_its_whole_records() {
        let dir = std::env::temp_dir().join(format!("cz-inbox-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("inbox.bin");
        let _ = std::fs::remove_file(&path);
        let (mut inbox, none) = Inbox::open(&path).unwrap();
        assert!(none.is_empty());
        let rec = |i: u64| InboxRecord {
            id: StreamId(i, 0),
            actor: format!("a{i}"),
            bytes: vec![i as u8; 100],
        };
        inbox.append(&[rec(1), rec(2)]).unwrap();
        inbox.append(&[rec(3)]).unwrap();
        drop(inbox);
        // A kill mid-append: the last frame loses its end.
        let len = std::fs::metadata(&path).unwrap().len();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 7).unwrap();
        drop(f);
        let (mut inbox, back) = Inbox::open(&path).unwrap();
        let ids: Vec<_> = back.iter().map(|r| r.id).collect();
        assert_eq!(ids, vec![StreamId(1, 0), StreamId(2, 0)]);
        assert_eq!(back[1].actor, "a2");
        inbox.append(&[rec(4)]).unwrap();
        inbox.rewrite(&[rec(4)]).unwrap();
        inbox.append(&[rec(5)]).unwrap();
        let (_, back) = Inbox::open(&path).unwrap();
        let ids: Vec<_> = back.iter().map(|r| r.id.0).collect();
        assert_eq!(ids, vec![4, 5]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
