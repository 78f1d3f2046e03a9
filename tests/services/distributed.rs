//! A learner and actors through a real Redis (`redis-server`, started by each test on a
//! loopback port in a temporary folder, with its append-only file on and an ACL user instead
//! of the default one): end to end over TLS (certificates made with `openssl`), and through
//! kills of the learner and of an actor, Redis restarts, and bad records.
//! Without `redis-server` (or `openssl`) the tests skip, unless `CHECKERS_ZERO_REQUIRE_ALL=1`: then they fail.

use crate::common;
use checkers_zero::distributed::learner::held_ids;
use checkers_zero::distributed::record::{self, RecordHeader};
use checkers_zero::games::Checkers;
use checkers_zero::selfplay::{SelfPlayConfig, SelfPlayGame, material_games};
use checkers_zero::train::alphazero::TrainConfig;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A redis-server of the test's own.
struct Redis {
    child: Child,
    port: u16,
    dir: PathBuf,
    /// The certificate authority of its TLS certificate, when it speaks TLS.
    ca: Option<PathBuf>,
}

/// The ACL user every client of the tests' servers logs in as (the default user is off).
const USER: &str = "cz";
const PASSWORD: &str = "s3cret-pw";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether `program` runs; `None` after [`common::skip`] where it does not.
fn installed(program: &str) -> Option<()> {
    if Command::new(program).arg("--version").output().is_ok() {
        return Some(());
    }
    common::skip(&format!("{program} is not installed (.ci/run installs it)"));
    None
}

/// Makes a certificate authority and a server certificate for 127.0.0.1 signed by it in
/// `dir`; the authority's certificate.
fn certificates(dir: &Path) -> PathBuf {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "openssl {args:?}: {err}");
    };
    let ext = "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n";
    std::fs::write(dir.join("server.ext"), ext).unwrap();
    let new_key = ["-newkey", "rsa:2048", "-nodes"];
    run(&[
        &["req", "-x509", "-days", "2"][..],
        &new_key,
        &["-keyout", "ca.key", "-out", "ca.pem"],
        &["-subj", "/CN=checkers-zero test CA"],
    ]
    .concat());
    run(&[
        &["req"][..],
        &new_key,
        &["-keyout", "server.key", "-out", "server.csr"],
        &["-subj", "/CN=127.0.0.1"],
    ]
    .concat());
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    dir.join("ca.pem")
}

impl Redis {
    /// Starts one in `dir` (speaking TLS only when `tls`), or `None` (after saying why) where
    /// redis-server or openssl is missing and `CI` is not set.
    fn start(dir: &Path, tls: bool) -> Option<Redis> {
        installed("redis-server")?;
        std::fs::create_dir_all(dir).unwrap();
        let ca = if tls {
            installed("openssl")?;
            Some(certificates(dir))
        } else {
            None
        };
        let port = free_port();
        let listen = match ca {
            Some(_) => format!(
                "port 0\ntls-port {port}\ntls-cert-file server.pem\ntls-key-file server.key\n\
                 tls-ca-cert-file ca.pem\ntls-auth-clients no\n"
            ),
            None => format!("port {port}\n"),
        };
        let config = format!(
            "{listen}bind 127.0.0.1\nappendonly yes\nappendfsync always\nsave \"\"\n\
             user default off\nuser {USER} on >{PASSWORD} ~* &* +@all\n"
        );
        std::fs::write(dir.join("redis.conf"), config).unwrap();
        let mut r = Redis {
            child: Command::new("true").spawn().unwrap(),
            port,
            dir: dir.to_owned(),
            ca,
        };
        r.spawn();
        Some(r)
    }

    fn spawn(&mut self) {
        self.child = Command::new("redis-server")
            .arg("redis.conf")
            .current_dir(&self.dir)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.con().is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        let scheme = if self.ca.is_some() { "rediss" } else { "redis" };
        format!("{scheme}://{USER}:{PASSWORD}@127.0.0.1:{}", self.port)
    }

    /// The arguments that reach this server: `--redis URL`, and `--tls-ca` with TLS.
    fn args(&self) -> Vec<String> {
        let mut args = vec!["--redis".to_string(), self.url()];
        if let Some(ca) = &self.ca {
            args.extend(["--tls-ca".to_string(), ca.display().to_string()]);
        }
        args
    }

    fn con(&self) -> redis::RedisResult<redis::Connection> {
        let client = match &self.ca {
            Some(ca) => redis::Client::build_with_tls(
                self.url(),
                redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(std::fs::read(ca).unwrap()),
                },
            )?,
            None => redis::Client::open(self.url())?,
        };
        let mut c = client.get_connection()?;
        redis::cmd("PING").query::<String>(&mut c)?;
        Ok(c)
    }

    /// kill -9, then the same server again on its data.
    fn crash_and_restart(&mut self, down: Duration) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::thread::sleep(down);
        self.spawn();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cz-dist-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small run: a few games an iteration, tiny searches.
fn tiny(iterations: u32, games: u32) -> Vec<String> {
    let mut flags = vec!["--iterations".to_string(), iterations.to_string()];
    flags.extend(common::tiny_run(games));
    flags
}

/// The program with its events (stdout) and errors (stderr) in one log file.
fn spawn(args: &[String], log: &Path) -> Child {
    let file = std::fs::File::create(log).unwrap();
    common::program()
        .args(args)
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap()
}

fn learner(redis: &Redis, name: &str, run: &Path, extra: &[String], log: &Path) -> Child {
    let mut args: Vec<String> = vec!["learner".into(), "--name".into(), name.into()];
    args.extend(redis.args());
    args.extend(extra.iter().cloned());
    args.push(if run.exists() { "--resume" } else { "--out" }.into());
    args.push(run.display().to_string());
    spawn(&args, log)
}

fn actor(redis: &Redis, name: &str, id: &str, log: &Path) -> Child {
    let mut args: Vec<String> = ["actor", "--name", name, "--id", id, "--threads", "1"]
        .map(String::from)
        .to_vec();
    args.extend(["--device".into(), "cpu".into()]);
    args.extend(redis.args());
    spawn(&args, log)
}

fn metrics(run: &Path) -> Vec<Value> {
    std::fs::read_to_string(run.join("metrics.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn wait_for(what: &str, secs: u64, log: &Path, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn finish(child: &mut Child, log: &Path, secs: u64) {
    wait_for("the learner to finish", secs, log, || {
        child.try_wait().unwrap().is_some()
    });
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "learner failed; log:\n{}",
        std::fs::read_to_string(log).unwrap()
    );
}

fn kill9(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

fn ingest(line: &Value) -> &Value {
    line.get("ingest")
        .expect("a learner's metrics carry ingest")
}

fn id(v: &Value) -> (u64, u64) {
    let s = v.as_str().unwrap();
    let (a, b) = s.split_once('-').unwrap();
    (a.parse().unwrap(), b.parse().unwrap())
}

#[test]
fn a_learner_and_two_actors_train_end_to_end() {
    let dir = temp("e2e");
    let Some(redis) = Redis::start(&dir.join("redis"), true) else {
        return;
    };
    let run = dir.join("run");
    let log = dir.join("learner.log");
    let mut l = learner(&redis, "e2e", &run, &tiny(3, 4), &log);
    let mut a1 = actor(&redis, "e2e", "a1", &dir.join("a1.log"));
    let mut a2 = actor(&redis, "e2e", "a2", &dir.join("a2.log"));
    // An actor killed mid-game and started again rejoins under its name.
    wait_for("the first iteration", 300, &log, || {
        !metrics(&run).is_empty()
    });
    kill9(&mut a1);
    let mut a1 = actor(&redis, "e2e", "a1", &dir.join("a1-again.log"));
    finish(&mut l, &log, 300);
    kill9(&mut a1);
    kill9(&mut a2);

    let lines = metrics(&run);
    assert_eq!(lines.len(), 3);
    let mut actors = std::collections::BTreeSet::new();
    let mut last = (0, 0);
    for line in &lines {
        let ing = ingest(line);
        let by_actor = ing["games_by_actor"].as_object().unwrap();
        let total: u64 = by_actor.values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(total, 4, "{line}");
        actors.extend(by_actor.keys().cloned());
        assert!(id(&ing["first_id"]) > last, "iterations take later games");
        assert!(id(&ing["last_id"]) >= id(&ing["first_id"]));
        last = id(&ing["last_id"]);
        assert!(ing["rejected"].as_object().unwrap().is_empty(), "{line}");
    }
    assert!(actors.contains("a1") && actors.contains("a2"), "{actors:?}");
    // The published model is the run's best.
    let mut con = redis.con().unwrap();
    let version: u32 = redis::cmd("HGET")
        .arg("e2e:model")
        .arg("version")
        .query(&mut con)
        .unwrap();
    assert_eq!(version as u64, lines[2]["best_iteration"].as_u64().unwrap());
    assert!(run.join("games/iter-0003.pdn").exists());

    // One learner per stream: another run on the same name is refused.
    let other = dir.join("other");
    let out = common::program()
        .args(["learner", "--name", "e2e", "--out"])
        .arg(&other)
        .args(redis.args())
        .args(tiny(1, 4))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("belongs to another learner"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Finished games of a material-evaluator self-play, as an actor would send them.
fn games(n: u64) -> Vec<SelfPlayGame<Checkers>> {
    let config = SelfPlayConfig {
        max_plies: 40,
        ..TrainConfig {
            searches: 4,
            fast_searches: 2,
            ..TrainConfig::cpu()
        }
        .self_play()
    };
    material_games(&config, n, 3)
}

fn push(con: &mut redis::Connection, actor: &str, bytes: &[u8]) -> String {
    redis::cmd("XADD")
        .arg("faults:games")
        .arg("*")
        .arg("actor")
        .arg(actor)
        .arg("record")
        .arg(bytes)
        .query(con)
        .unwrap()
}

#[test]
fn the_learner_loses_nothing_through_kills_restarts_and_bad_records() {
    let dir = temp("faults");
    let Some(mut redis) = Redis::start(&dir.join("redis"), false) else {
        return;
    };
    let run = dir.join("run");
    let log = dir.join("learner.log");
    let mut l = learner(&redis, "faults", &run, &tiny(4, 5), &log);
    wait_for("the published model", 120, &log, || {
        redis
            .con()
            .and_then(|mut c| {
                redis::cmd("HGET")
                    .arg("faults:model")
                    .arg("network")
                    .query(&mut c)
            })
            .is_ok_and(|n: Option<String>| n.is_some())
    });
    let mut con = redis.con().unwrap();
    let network: String = redis::cmd("HGET")
        .arg("faults:model")
        .arg("network")
        .query(&mut con)
        .unwrap();
    let header = |actor: &str| RecordHeader {
        game: "checkers".into(),
        network: network.clone(),
        model_version: 0,
        actor: actor.into(),
    };
    let games = games(30);
    let mut valid = Vec::new();
    for g in &games[..12] {
        valid.push(push(&mut con, "p1", &record::encode(&header("p1"), g)));
    }

    // The learner killed mid-run (after its first iteration), Redis killed while it is down.
    wait_for("the first iteration", 120, &log, || {
        !metrics(&run).is_empty()
    });
    kill9(&mut l);
    redis.crash_and_restart(Duration::ZERO);
    let log2 = dir.join("learner2.log");
    let mut l = learner(&redis, "faults", &run, &[], &log2);
    // Redis killed under the running learner, and back after two seconds.
    wait_for("the resumed learner", 120, &log2, || {
        std::fs::read_to_string(&log2).is_ok_and(|t| t.contains("published model"))
    });
    redis.crash_and_restart(Duration::from_secs(2));
    let mut con = redis.con().unwrap();

    // Bad records of every kind, then the rest of the games.
    push(&mut con, "junk", b"not a record at all");
    let mut old = record::encode(&header("p6"), &games[0]);
    old[4] = 0; // the format number after the magic
    push(&mut con, "p6", &old);
    let other_net = RecordHeader {
        network: "another network".into(),
        ..header("p2")
    };
    push(&mut con, "p2", &record::encode(&other_net, &games[0]));
    let othello = RecordHeader {
        game: "othello".into(),
        ..header("p3")
    };
    push(&mut con, "p3", &record::encode(&othello, &games[0]));
    let mut flipped = record::encode(&header("p4"), &games[0]);
    *flipped.last_mut().unwrap() ^= 0x55;
    push(&mut con, "p4", &flipped);
    let _: String = redis::cmd("XADD")
        .arg("faults:games")
        .arg("*")
        .arg("actor")
        .arg("p5")
        .query(&mut con)
        .unwrap();
    for g in &games[12..] {
        valid.push(push(&mut con, "p1", &record::encode(&header("p1"), g)));
    }
    finish(&mut l, &log2, 300);

    let lines = metrics(&run);
    assert_eq!(lines.len(), 4, "one line per iteration, none repeated");
    let parsed: Vec<(u64, u64)> = valid.iter().map(|v| id(&Value::from(v.as_str()))).collect();
    // Each iteration trained on the next five games pushed, in order: none lost, none twice.
    for (i, line) in lines.iter().enumerate() {
        let ing = ingest(line);
        assert_eq!(id(&ing["first_id"]), parsed[5 * i], "iteration {}", i + 1);
        assert_eq!(
            id(&ing["last_id"]),
            parsed[5 * i + 4],
            "iteration {}",
            i + 1
        );
        assert_eq!(ing["games_by_actor"]["p1"], 5);
    }
    // The other ten are held by the learner or still in the stream: none lost, and nothing
    // trained on is left in the stream (a Redis kill can leave acknowledged entries behind;
    // the learner trims everything up to what it trained on after each iteration).
    let held: Vec<String> = held_ids(&run)
        .unwrap()
        .iter()
        .map(|i| i.to_string())
        .collect();
    let mut con = redis.con().unwrap();
    type Fields = Vec<(String, Vec<u8>)>;
    let stream: Vec<(String, Fields)> = redis::cmd("XRANGE")
        .arg("faults:games")
        .arg("-")
        .arg("+")
        .query(&mut con)
        .unwrap();
    let stream: Vec<String> = stream.into_iter().map(|(id, _)| id).collect();
    let seen = format!("held {held:?}, in the stream {stream:?}, valid {valid:?}");
    for v in &valid[20..] {
        assert!(held.contains(v) || stream.contains(v), "{v} lost: {seen}");
    }
    for e in &stream {
        assert!(valid[20..].contains(e), "{e} in the stream: {seen}");
    }
    assert!(held.iter().all(|h| valid[20..].contains(h)), "{held:?}");
    // Every bad record was refused, counted and named with its actor.
    let mut rejected = std::collections::BTreeMap::<String, u64>::new();
    for line in &lines {
        for (k, v) in ingest(line)["rejected"].as_object().unwrap() {
            *rejected.entry(k.clone()).or_default() += v.as_u64().unwrap();
        }
    }
    let want = [
        ("checksum", 1),
        ("format", 1),
        ("garbage", 2),
        ("other game", 1),
        ("other network", 1),
    ];
    assert_eq!(
        rejected,
        want.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        "{}",
        std::fs::read_to_string(&log2).unwrap()
    );
    let text = std::fs::read_to_string(&log2).unwrap();
    for who in ["junk", "p2", "p3", "p4", "p5", "p6"] {
        assert!(text.contains(&format!("from {who}:")), "{who}: {text}");
    }
    assert!(text.contains("trying again"), "{text}");
    assert!(text.contains("is back"), "{text}");
    assert!(
        !text.contains(PASSWORD),
        "the password stays out of the log: {text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
