//! The Redis side: one connection that comes back after Redis restarts or the network drops
//! (with back-off, saying so), the keys of a training run, and the commands actors and the
//! learner use.
//!
//! Keys, under the run's name `NAME` (`--name`):
//! - `NAME:games`: the stream of game records; actors `XADD`, the learner reads it in the
//!   consumer group `learner`, and acknowledges and deletes an entry once it is on its disk.
//! - `NAME:model`: a hash holding the current best network: `version`, `hash`, `game`,
//!   `network`, `config` (the run's settings as JSON), `blob` (the model file), `backlog`.
//! - `NAME:owner`: the learner that owns the run (one owner per stream).

use crate::errors::{Caused, Context};
use crate::events::event;
use crate::health;
use redis::{Connection, ErrorKind, RedisError, TlsCertificates, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub const GROUP: &str = "learner";

/// Why Redis could not do what was asked (after retrying what can be retried).
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("--redis {0}: expected redis://[user:password@]host[:port][/db] or rediss://...")]
    Url(String),
    #[error("--tls-ca {0}: {1}")]
    Ca(String, String),
    #[error(
        "redis {url}: {err} (a server certificate signed by an authority of your own needs --tls-ca FILE)"
    )]
    Tls { url: String, err: RedisError },
    #[error("redis {url}: {err}")]
    Redis { url: String, err: RedisError },
    #[error("redis {url}: {what}")]
    Reply { url: String, what: String },
    /// The certificate authority's file does not load.
    #[error(transparent)]
    Certificate(#[from] Caused),
}

/// Where Redis is: its URL and, for TLS with a certificate authority of one's own (a
/// self-signed server certificate), that authority's certificate in PEM.
#[derive(Clone, Debug)]
pub struct RedisTarget {
    pub url: String,
    pub ca: Option<PathBuf>,
}

impl RedisTarget {
    /// A URL, with the public certificate authorities for `rediss://`.
    pub fn url(url: &str) -> RedisTarget {
        RedisTarget {
            url: url.to_string(),
            ca: None,
        }
    }
}

/// `url` with `password` as its user's password (percent-encoded), for a password kept in a
/// file (a container's secret) rather than in the URL; a URL that has one already is refused.
pub fn with_password(url: &str, password: &str) -> Result<String, String> {
    let Some(s) = url.find("://").map(|s| s + 3) else {
        return Err(format!(
            "{}: expected redis://host[:port] to put the password in",
            redact(url)
        ));
    };
    let (user, rest) = match url[s..].split_once('@') {
        Some((user, _)) if user.contains(':') => {
            return Err(format!("{} has a password already", redact(url)));
        }
        Some((user, rest)) => (user, rest),
        None => ("", &url[s..]),
    };
    let mut encoded = String::new();
    for b in password.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            encoded.push(b as char);
        } else {
            encoded += &format!("%{b:02X}");
        }
    }
    Ok(format!("{}{user}:{encoded}@{rest}", &url[..s]))
}

/// A stream entry as the learner reads it: the id, the actor it names, the record's bytes
/// (`None` when the entry was trimmed away while pending).
pub struct Entry {
    pub id: String,
    pub actor: String,
    pub record: Option<Vec<u8>>,
}

/// The published model as actors fetch it.
#[derive(Clone, Debug)]
pub struct PublishedModel {
    pub version: u32,
    pub hash: String,
    pub game: String,
    pub network: String,
    pub config: String,
    pub backlog: u64,
    pub blob: Vec<u8>,
}

/// A connection to the Redis of one training run.
pub struct Link {
    client: redis::Client,
    /// The URL without its password, for messages.
    url: String,
    con: Option<Connection>,
    name: String,
    /// What is printed when the connection is lost ("learner", "actor a1").
    who: String,
    /// Connections made so far (a new one after each loss).
    connections: u64,
}

/// The longest wait between reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Longer than any blocking read the learner makes, so that a dead server is noticed.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// `url` without the password of its user part.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let user = &url[s + 3..at];
            let user = user.split_once(':').map_or(user, |(u, _)| u);
            let user = if user.is_empty() { "" } else { user };
            format!("{}{user}:***{}", &url[..s + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

/// Whether an error passes with time (the server restarting or still loading its data, the
/// network down) rather than needing the user (a wrong password, a wrong type).
fn transient(e: &RedisError) -> bool {
    // A failed TLS handshake (a server certificate that is not trusted, a protocol the
    // server does not speak) needs the user, not time.
    if tls_failure(e) {
        return false;
    }
    e.is_io_error()
        || e.is_connection_refusal()
        || e.is_connection_dropped()
        || e.is_timeout()
        || matches!(
            e.kind(),
            ErrorKind::Server(redis::ServerErrorKind::BusyLoading)
                | ErrorKind::Server(redis::ServerErrorKind::TryAgain)
                | ErrorKind::Server(redis::ServerErrorKind::MasterDown)
        )
}

/// Whether `e` is rustls refusing the connection. redis keeps the I/O error behind an
/// `Arc`, and the I/O error holds rustls's.
fn tls_failure(e: &RedisError) -> bool {
    std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<Arc<dyn std::error::Error + Send + Sync>>())
        .and_then(|arc| arc.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::get_ref)
        .is_some_and(|inner| inner.is::<rustls::Error>())
}

impl Link {
    /// A link to `url` for the run `name`; nothing is connected until the first command.
    pub fn open(target: &RedisTarget, name: &str, who: &str) -> Result<Link, LinkError> {
        let url = &target.url;
        let bad_url = || LinkError::Url(redact(url));
        let client = match &target.ca {
            None => redis::Client::open(url.as_str()).map_err(|_| bad_url())?,
            Some(path) => {
                let shown = path.display().to_string();
                if !url.starts_with("rediss://") {
                    return Err(LinkError::Ca(
                        shown,
                        "a CA is for TLS: expected a rediss:// URL".into(),
                    ));
                }
                let flag = || format!("--tls-ca {shown}");
                let pem = std::fs::read(path).context(flag)?;
                let certs = TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem),
                };
                redis::Client::build_with_tls(url.as_str(), certs).context(flag)?
            }
        };
        Ok(Link {
            client,
            url: redact(url),
            con: None,
            name: name.to_string(),
            who: who.to_string(),
            connections: 0,
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Connections made so far: a change means the connection was lost and made again, and
    /// Redis may have restarted in between.
    pub fn connections(&self) -> u64 {
        self.connections
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn key(&self, what: &str) -> String {
        format!("{}:{what}", self.name)
    }

    fn err(&self, err: RedisError) -> LinkError {
        LinkError::Redis {
            url: self.url.clone(),
            err,
        }
    }

    fn reply(&self, what: impl Into<String>) -> LinkError {
        LinkError::Reply {
            url: self.url.clone(),
            what: what.into(),
        }
    }

    fn connect(&self) -> Result<Connection, RedisError> {
        let con = self
            .client
            .get_connection_with_timeout(Duration::from_secs(5))?;
        con.set_read_timeout(Some(READ_TIMEOUT))?;
        con.set_write_timeout(Some(READ_TIMEOUT))?;
        Ok(con)
    }

    /// Runs `op`, reconnecting and running it again while the failure is transient: waits
    /// 1 s, then twice as long each time up to 30 s, and says so in an event (and in the
    /// health file, until Redis is back). `op` must be safe
    /// to repeat (every caller's is: the learner deduplicates what it reads twice).
    pub fn call<T>(
        &mut self,
        mut op: impl FnMut(&mut Connection) -> Result<T, RedisError>,
    ) -> Result<T, LinkError> {
        let mut wait = Duration::from_secs(1);
        let mut failing = false;
        loop {
            let result = match self.con.as_mut() {
                Some(con) => op(con),
                None => self.connect().and_then(|mut con| {
                    self.connections += 1;
                    if self.connections == 1 {
                        event(&self.who, "connected")
                            .with("redis", &self.url)
                            .say(format_args!("connected to redis {}", self.url));
                    }
                    let r = op(&mut con);
                    self.con = Some(con);
                    r
                }),
            };
            match result {
                Ok(v) => {
                    if failing {
                        health::recovered();
                        event(&self.who, "redis back")
                            .with("redis", &self.url)
                            .with("connections", self.connections)
                            .say(format_args!("redis {} is back", self.url));
                    }
                    return Ok(v);
                }
                Err(e) if transient(&e) => {
                    self.con = None;
                    let why = format!("redis {}: {e}", self.url);
                    health::trouble(why.clone());
                    event(&self.who, "redis down")
                        .with("redis", &self.url)
                        .with("error", e.to_string())
                        .with("retry_s", wait.as_secs())
                        .say(format_args!("{why}; trying again in {} s", wait.as_secs()));
                    failing = true;
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(MAX_BACKOFF);
                }
                Err(err) if tls_failure(&err) => {
                    return Err(LinkError::Tls {
                        url: self.url.clone(),
                        err,
                    });
                }
                Err(e) => return Err(self.err(e)),
            }
        }
    }

    /// Appends a game record to the stream, keeping about `backlog` entries at most (the
    /// oldest unread games go first when no learner keeps up); its entry id.
    pub fn push_game(
        &mut self,
        actor: &str,
        record: &[u8],
        backlog: u64,
    ) -> Result<String, LinkError> {
        let key = self.key("games");
        self.call(|c| {
            redis::cmd("XADD")
                .arg(&key)
                .arg("MAXLEN")
                .arg("~")
                .arg(backlog)
                .arg("*")
                .arg("actor")
                .arg(actor)
                .arg("record")
                .arg(record)
                .query(c)
        })
    }

    /// Creates the learner's consumer group (reading from the stream's start) unless it exists.
    pub fn ensure_group(&mut self) -> Result<(), LinkError> {
        let key = self.key("games");
        self.call(|c| {
            match redis::cmd("XGROUP")
                .arg("CREATE")
                .arg(&key)
                .arg(GROUP)
                .arg("0")
                .arg("MKSTREAM")
                .query::<()>(c)
            {
                Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
                other => other,
            }
        })
    }

    /// Up to `count` entries for `consumer`: those delivered to it before and not yet
    /// acknowledged (`pending`), or new ones, waiting up to `block` for them.
    pub fn read_games(
        &mut self,
        consumer: &str,
        pending: bool,
        count: usize,
        block: Duration,
    ) -> Result<Vec<Entry>, LinkError> {
        let key = self.key("games");
        let reply: Value = loop {
            let r = self.call(|c| {
                let mut cmd = redis::cmd("XREADGROUP");
                cmd.arg("GROUP")
                    .arg(GROUP)
                    .arg(consumer)
                    .arg("COUNT")
                    .arg(count);
                if !pending {
                    cmd.arg("BLOCK").arg(block.as_millis() as u64);
                }
                cmd.arg("STREAMS")
                    .arg(&key)
                    .arg(if pending { "0" } else { ">" });
                cmd.query(c)
            });
            match r {
                // A Redis that lost its data (no append-only file) lost the group too.
                Err(LinkError::Redis { err, .. }) if err.code() == Some("NOGROUP") => {
                    event(&self.who, "group lost")
                        .with("redis", &self.url)
                        .say("the consumer group is gone (Redis lost its data?): made again");
                    self.ensure_group()?;
                }
                other => break other?,
            }
        };
        self.entries(reply)
    }

    fn entries(&self, reply: Value) -> Result<Vec<Entry>, LinkError> {
        let bad = |what: &str| self.reply(format!("unexpected XREADGROUP reply ({what})"));
        let streams = match reply {
            Value::Nil => return Ok(Vec::new()),
            Value::Array(streams) => streams
                .into_iter()
                .map(|s| match s {
                    Value::Array(mut kv) if kv.len() == 2 => Ok(kv.pop().expect("two")),
                    _ => Err(bad("a stream")),
                })
                .collect::<Result<Vec<_>, _>>()?,
            Value::Map(kv) => kv.into_iter().map(|(_, v)| v).collect(),
            _ => return Err(bad("the streams")),
        };
        let mut out = Vec::new();
        for entries in streams {
            let Value::Array(entries) = entries else {
                return Err(bad("the entries"));
            };
            for e in entries {
                let Value::Array(mut parts) = e else {
                    return Err(bad("an entry"));
                };
                if parts.len() != 2 {
                    return Err(bad("an entry's parts"));
                }
                let fields = parts.pop().expect("two");
                let id: String =
                    redis::from_redis_value(parts.pop().expect("two")).map_err(|_| bad("an id"))?;
                let mut entry = Entry {
                    id,
                    actor: String::new(),
                    record: None,
                };
                if let Value::Array(fields) = fields {
                    for pair in fields.chunks_exact(2) {
                        let name: String =
                            redis::from_redis_value(pair[0].clone()).unwrap_or_default();
                        match (name.as_str(), &pair[1]) {
                            ("actor", v) => {
                                entry.actor = redis::from_redis_value(v.clone()).unwrap_or_default()
                            }
                            ("record", Value::BulkString(b)) => entry.record = Some(b.clone()),
                            _ => {}
                        }
                    }
                    // An entry without a record field is garbage, not a trimmed one.
                    if entry.record.is_none() {
                        entry.record = Some(Vec::new());
                    }
                }
                out.push(entry);
            }
        }
        Ok(out)
    }

    /// Acknowledges and deletes entries the learner has on its disk (in one transaction).
    pub fn ack_delete(&mut self, ids: &[String]) -> Result<(), LinkError> {
        if ids.is_empty() {
            return Ok(());
        }
        let key = self.key("games");
        self.call(|c| {
            redis::pipe()
                .atomic()
                .cmd("XACK")
                .arg(&key)
                .arg(GROUP)
                .arg(ids)
                .ignore()
                .cmd("XDEL")
                .arg(&key)
                .arg(ids)
                .ignore()
                .query::<()>(c)
        })
    }

    /// Claims the run for the learner `owner`; the learner that holds it instead, if another
    /// does.
    pub fn claim(&mut self, owner: &str) -> Result<Option<String>, LinkError> {
        let key = self.key("owner");
        let held: Option<String> = self.call(|c| {
            let set: Option<String> = redis::cmd("SET").arg(&key).arg(owner).arg("NX").query(c)?;
            match set {
                Some(_) => Ok(None),
                None => redis::cmd("GET").arg(&key).query(c),
            }
        })?;
        Ok(held.filter(|h| h != owner))
    }

    /// Publishes the best network (all fields in one command, so readers never see half).
    pub fn publish(&mut self, m: &PublishedModel) -> Result<(), LinkError> {
        let key = self.key("model");
        self.call(|c| {
            redis::cmd("HSET")
                .arg(&key)
                .arg("version")
                .arg(m.version)
                .arg("hash")
                .arg(&m.hash)
                .arg("game")
                .arg(&m.game)
                .arg("network")
                .arg(&m.network)
                .arg("config")
                .arg(&m.config)
                .arg("backlog")
                .arg(m.backlog)
                .arg("blob")
                .arg(&m.blob)
                .query::<()>(c)
        })
    }

    /// The published model's version and hash, if one is published (cheap: no blob).
    pub fn model_version(&mut self) -> Result<Option<(u32, String)>, LinkError> {
        let key = self.key("model");
        let (v, h): (Option<u32>, Option<String>) = self.call(|c| {
            redis::cmd("HMGET")
                .arg(&key)
                .arg("version")
                .arg("hash")
                .query(c)
        })?;
        Ok(v.zip(h))
    }

    /// The published model, if one is published.
    pub fn fetch_model(&mut self) -> Result<Option<PublishedModel>, LinkError> {
        let key = self.key("model");
        let mut map: HashMap<String, Vec<u8>> =
            self.call(|c| redis::cmd("HGETALL").arg(&key).query(c))?;
        if map.is_empty() {
            return Ok(None);
        }
        let mut text = |field: &str| {
            map.remove(field)
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| self.reply(format!("{key} lacks a readable {field}")))
        };
        let number = |t: String, field: &str| {
            t.parse::<u64>()
                .map_err(|_| self.reply(format!("{key}: {field} {t:?} is not a number")))
        };
        let version = number(text("version")?, "version")? as u32;
        let backlog = number(text("backlog")?, "backlog")?;
        Ok(Some(PublishedModel {
            version,
            hash: text("hash")?,
            game: text("game")?,
            network: text("network")?,
            config: text("config")?,
            backlog,
            blob: map
                .remove("blob")
                .ok_or_else(|| self.reply(format!("{key} lacks the model blob")))?,
        }))
    }

    /// Deletes the stream's entries with ids below `min_id`.
    pub fn trim_below(&mut self, min_id: &str) -> Result<(), LinkError> {
        let key = self.key("games");
        self.call(|c| {
            redis::cmd("XTRIM")
                .arg(&key)
                .arg("MINID")
                .arg(min_id)
                .query::<()>(c)
        })
    }

    /// Deletes the run's keys: its stream, its published model and its owner.
    pub fn forget(&mut self) -> Result<(), LinkError> {
        let keys = ["games", "model", "owner"].map(|k| self.key(k));
        self.call(|c| redis::cmd("DEL").arg(&keys).query::<()>(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_from_a_file_goes_into_the_url_encoded() {
        assert_eq!(
            with_password("redis://redis:6379/0", "p@ss:w/rd").unwrap(),
            "redis://:p%40ss%3Aw%2Frd@redis:6379/0"
        );
        assert_eq!(
            with_password("rediss://actor@h", "x-Y_1.~").unwrap(),
            "rediss://actor:x-Y_1.~@h"
        );
        let twice = with_password("redis://:old@h", "new").unwrap_err();
        assert_eq!(twice, "redis://:***@h has a password already");
        assert!(with_password("h:6379", "x").is_err());
        // The redis crate decodes it back: the client accepts the URL.
        let url = with_password("redis://h:1", "p@ss w%rd").unwrap();
        assert!(redis::Client::open(url.as_str()).is_ok(), "{url}");
    }

    #[test]
    fn passwords_stay_out_of_messages() {
        assert_eq!(redact("redis://:pw@h:1/0"), "redis://:***@h:1/0");
        assert_eq!(redact("rediss://u:pw@h"), "rediss://u:***@h");
        assert_eq!(redact("redis://h:6379"), "redis://h:6379");
        assert!(matches!(
            Link::open(&RedisTarget::url("http://x"), "r", "t"),
            Err(LinkError::Url(_))
        ));
        let ca = RedisTarget {
            url: "redis://h".into(),
            ca: Some("ca.pem".into()),
        };
        assert!(matches!(Link::open(&ca, "r", "t"), Err(LinkError::Ca(..))));
    }
}
