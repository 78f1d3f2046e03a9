//! The browser interface's JSON API, in-process on an ephemeral port: a whole game, illegal
//! moves and their reasons, undo, agent replies, cancelling searches, the dashboard's runs,
//! and bad requests of every kind (each a JSON error, none a panic).

use crate::common;
use checkers_zero::games::Game;
use checkers_zero::gui::{AgentLimits, GuiOptions, Server};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn start(runs: &Path) -> Server {
    Server::start(&GuiOptions {
        models: vec![PathBuf::from("models")],
        runs: vec![runs.to_path_buf()],
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    })
    .unwrap()
}

fn fixture_runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/runs")
}

/// One HTTP/1.1 request; the status and the body.
pub(crate) fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let (status, _, body) = request_with_head(addr, method, path, body);
    (status, body)
}

/// One HTTP/1.1 request; the status, the response's head (status line and headers) and the
/// body.
fn request_with_head(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, String, String) {
    request_with_headers(addr, method, path, "", body)
}

/// One HTTP/1.1 request with `headers` (each line ending in CRLF) added; the status, the
/// response's head and its body.
fn request_with_headers(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let sent = write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{headers}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // A server refusing an oversized body answers and closes before reading all of it: the
    // rest of the write then meets a reset, and the answer is still there to read.
    let mut raw = Vec::new();
    let read = s.read_to_end(&mut raw);
    for result in [sent, read.map(drop)] {
        if let Err(e) = result {
            let reset = matches!(e.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset);
            assert!(reset && !raw.is_empty(), "{method} {path}: {e}");
        }
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

fn json_request(addr: SocketAddr, method: &str, path: &str, body: Value) -> (u16, Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let (status, text) = request(addr, method, path, &body);
    let value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text:?}"));
    (status, value)
}

pub(crate) fn ok(addr: SocketAddr, method: &str, path: &str, body: Value) -> Value {
    let (status, v) = json_request(addr, method, path, body);
    assert!(
        (200..300).contains(&status),
        "{method} {path}: {status} {v}"
    );
    v
}

/// The error of a request that must fail with `status`.
pub(crate) fn error(addr: SocketAddr, method: &str, path: &str, body: &str, status: u16) -> String {
    let (got, text) = request(addr, method, path, body);
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{method} {path} {body}: error not JSON ({e}): {text:?}"));
    assert_eq!(got, status, "{method} {path} {body}: {v}");
    v["error"].as_str().unwrap().to_string()
}

/// A server-sent event stream, read event by event.
struct Events {
    reader: BufReader<TcpStream>,
}

impl Events {
    fn open(addr: SocketAddr, path: &str) -> Events {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        Events {
            reader: BufReader::new(s),
        }
    }

    /// The next event named `name` (others skipped) within `within`.
    fn next(&mut self, name: &str, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        let mut event = String::new();
        loop {
            assert!(Instant::now() < deadline, "no {name} event in {within:?}");
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).unwrap();
            assert!(n > 0, "the event stream ended before a {name} event");
            let line = line.trim_end();
            if let Some(e) = line.strip_prefix("event: ") {
                event = e.to_string();
            } else if let Some(data) = line.strip_prefix("data: ")
                && event == name
            {
                return serde_json::from_str(data).unwrap();
            }
        }
    }
}

/// A search's final analysis (the snapshots sent while it searched are skipped).
fn final_analysis(events: &mut Events) -> Value {
    loop {
        let a = events.next("analysis", Duration::from_secs(60));
        if a["final"] == true {
            return a;
        }
    }
}

/// The state after a search's move: waits for a `state` event past `ply`.
fn state_after(events: &mut Events, ply: u64) -> Value {
    loop {
        let s = events.next("state", Duration::from_secs(60));
        if s["ply"].as_u64().unwrap() > ply && s["searching"] == false {
            return s;
        }
    }
}

#[test]
fn a_whole_game_with_an_agent_undo_and_pdn() {
    crate::common::without_installed_databases();
    let server = start(&fixture_runs());
    let a = server.addr;
    let info = ok(a, "GET", "/api/info", Value::Null);
    assert_eq!(info["ballots"].as_array().unwrap().len(), 157);
    let models = info["models"].as_array().unwrap();
    assert!(models.contains(&json!({"name": "models/default.bin", "game": "checkers"})));
    assert!(models.contains(&json!({"name": "models/othello.bin", "game": "othello"})));
    let kinds: Vec<&str> = info["agents"]["checkers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["random", "mcts", "az", "alphabeta", "td", "ga", "pso"]
    );
    // A path option says what it names, so the form offers models for `model` and database
    // folders (here only `none`: the tests see no installed databases) for `egdb`.
    let az = &info["agents"]["checkers"][2]["options"];
    let domain = |key: &str| {
        let option = az.as_array().unwrap().iter().find(|o| o["key"] == key);
        option.unwrap()["domain"].clone()
    };
    assert_eq!(domain("model"), json!({"type": "path", "of": "model"}));
    assert_eq!(domain("egdb"), json!({"type": "path", "of": "databases"}));
    assert_eq!(info["databases"], json!(["none"]));

    let s = ok(a, "POST", "/api/games", json!({"start": "initial"}));
    let id = s["id"].as_u64().unwrap();
    assert_eq!(s["turn"], "black");
    assert_eq!(s["legal"].as_array().unwrap().len(), 7);
    let cells = s["board"].as_array().unwrap();
    assert_eq!(cells.len(), 64);
    assert_eq!(cells[1], json!({"square": 1, "name": "1", "piece": "b"}));
    assert_eq!(cells[0], Value::Null);
    assert_eq!(cells[56], json!({"square": 29, "name": "29", "piece": "w"}));
    let g = format!("/api/games/{id}");
    let mut events = Events::open(a, &format!("{g}/events"));
    assert_eq!(events.next("state", Duration::from_secs(5))["ply"], 0);

    // The person's move, then the agent's reply pushed as events.
    let s = ok(a, "POST", &format!("{g}/move"), json!({"move": "11-15"}));
    assert_eq!(
        (s["ply"].as_u64(), s["turn"].as_str()),
        (Some(1), Some("white"))
    );
    let r = ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "alphabeta:depth=4", "play": true}),
    );
    assert!(r["search"].as_u64().is_some());
    let analysis = final_analysis(&mut events);
    assert_eq!(analysis["value_for"], "white");
    assert_eq!(analysis["score_kind"], "value");
    assert_eq!(analysis["pv"][0], analysis["best"]["move"]);
    assert!(!analysis["moves"].as_array().unwrap().is_empty());
    let s = state_after(&mut events, 1);
    assert_eq!(s["ply"], 2);
    assert_eq!(s["moves"][1]["move"], analysis["best"]["move"]);
    // An agent asked for one move does not take over the side.
    assert_eq!(s["players"], json!({"black": "human", "white": "human"}));

    // An illegal move gets the terminal game's reason, and changes nothing.
    let mut game = Game::new();
    game.play_text("11-15").unwrap();
    game.play_text(s["moves"][1]["move"].as_str().unwrap())
        .unwrap();
    let want = game.clone().play_text("15-10").unwrap_err().0;
    let got = error(a, "POST", &format!("{g}/move"), r#"{"move": "15-10"}"#, 422);
    assert_eq!(got, want);
    assert_eq!(ok(a, "GET", &g, Value::Null)["ply"], 2);
    let why = ok(a, "POST", &format!("{g}/explain"), json!({"square": 1}));
    assert_eq!(why["movable"], false);
    assert_eq!(why["reason"], "the piece on 1 has no legal move");

    // Stepping back through the game, and undo.
    let p1 = ok(a, "GET", &format!("{g}/ply/1"), Value::Null);
    assert_eq!(p1["last_move"]["move"], "11-15");
    assert_eq!(p1["turn"], "white");
    let s = ok(a, "POST", &format!("{g}/undo"), json!({"plies": 2}));
    assert_eq!(s["ply"], 0);
    assert_eq!(s["fen"], s["start_fen"]);

    // A hint does not play; a human-agent game to its end by resignation; the PDN file.
    ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "az:searches=50", "play": false}),
    );
    let hint = final_analysis(&mut events);
    assert_eq!(hint["score_kind"], "visits");
    assert!(hint["moves"][0]["prior"].as_f64().is_some());
    let shares: f64 = hint["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["score"].as_f64().unwrap())
        .sum();
    // Shares of the root moves' visits.
    assert!((shares - 1.0).abs() <= 1e-6, "visit shares: {shares}");
    let s = events.next("state", Duration::from_secs(60));
    assert_eq!(
        (s["ply"].as_u64(), s["searching"].as_bool()),
        (Some(0), Some(false))
    );
    let s = ok(a, "POST", &format!("{g}/resign"), json!({"side": "black"}));
    assert_eq!(s["result"]["score"], "1-0");
    assert_eq!(s["result"]["reason"], "White wins: Black resigned");
    assert!(s["legal"].as_array().unwrap().is_empty());
    let err = error(a, "POST", &format!("{g}/move"), r#"{"move": "11-15"}"#, 422);
    assert!(err.contains("the game is over"), "{err}");
    let (status, pdn) = request(a, "GET", &format!("{g}/pdn"), "");
    assert_eq!(status, 200);
    assert!(pdn.contains("[Result \"1-0\"]"), "{pdn}");
    assert_eq!(request(a, "DELETE", &g, "").0, 204);
    assert!(error(a, "GET", &g, "", 404).starts_with(&format!("no game {id}: it was deleted")));
}

#[test]
fn multi_jumps_ballots_fens_pdn_and_draw_offers() {
    let server = start(&fixture_runs());
    let a = server.addr;
    // A double jump entered by its whole path, and by from-to.
    for text in ["9x18x27", "9x27"] {
        let s = ok(
            a,
            "POST",
            "/api/games",
            json!({"start": "fen", "fen": "B:W14,23:B9"}),
        );
        assert_eq!(s["legal"][0]["path"], json!([18, 27]));
        assert_eq!(s["legal"][0]["captured"], json!([14, 23]));
        let g = format!("/api/games/{}", s["id"]);
        let s = ok(a, "POST", &format!("{g}/move"), json!({"move": text}));
        assert_eq!(s["last_move"]["move"], "9x18x27");
        assert_eq!(s["result"]["winner"], "black");
    }
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"start": "ballot", "ballot": 0}),
    );
    assert_eq!(s["ply"], 3);
    let pdn = "[Event \"x\"]\n1. 11-15 23-19 2. 8-11 22-17 *";
    let s = ok(a, "POST", "/api/games", json!({"start": "pdn", "pdn": pdn}));
    assert_eq!(s["moves"][3]["move"], "22-17");
    let g = format!("/api/games/{}", s["id"]);
    // Two people agree; an agent far ahead declines.
    let d = ok(a, "POST", &format!("{g}/draw"), json!({}));
    assert_eq!(
        (
            d["accepted"].as_bool(),
            d["state"]["result"]["score"].as_str()
        ),
        (Some(true), Some("1/2-1/2"))
    );
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"start": "fen", "fen": "B:W32:B1,2,3,K10"}),
    );
    let g = format!("/api/games/{}", s["id"]);
    let d = ok(
        a,
        "POST",
        &format!("{g}/draw"),
        json!({"agent": "alphabeta:depth=4", "side": "white"}),
    );
    assert_eq!(d["accepted"], false, "{d}");
    assert_eq!(d["state"]["result"], Value::Null);
    // An even position is no reason to take a draw.
    let s = ok(a, "POST", "/api/games", json!({}));
    let g = format!("/api/games/{}", s["id"]);
    let d = ok(
        a,
        "POST",
        &format!("{g}/draw"),
        json!({"agent": "alphabeta:depth=3", "side": "black"}),
    );
    assert_eq!(d["accepted"], false, "{d}");
    assert_eq!(
        d["reason"],
        "alphabeta:depth=3 does not think its side is worse (+0.00 on its own scale) and plays on"
    );
}

/// The server plays the computer's moves itself: a game made through the API between two
/// agents advances with no page open (nobody listens to its events), and one where the
/// computer moves first has its move made without being asked.
/// Ballots and games carry the names of data/opening_names.tsv: /api/info's ballots, each
/// game made from a ballot, and a game whose moves play out the table's longest line (its
/// name then, not the shorter lines' it passed through). Othello has none.
#[test]
fn ballots_and_games_carry_their_opening_names() {
    let server = start(&fixture_runs());
    let a = server.addr;
    let info = ok(a, "GET", "/api/info", Value::Null);
    let ballots = info["ballots"].as_array().unwrap();
    let named: Vec<&Value> = ballots.iter().filter(|b| b["name"].is_string()).collect();
    assert!(!named.is_empty() && ballots.iter().all(|b| b.get("name").is_some()));
    for b in ballots {
        let s = ok(
            a,
            "POST",
            "/api/games",
            json!({"start": "ballot", "ballot": b["index"]}),
        );
        assert_eq!(s["opening"], b["name"], "{}", b["label"]);
    }
    let table = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/opening_names.tsv"),
    )
    .unwrap();
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("moves\t"))
        .map(|l| l.split('\t').collect())
        .collect();
    let longest = rows.iter().max_by_key(|r| r[0].split(' ').count()).unwrap();
    let s = ok(a, "POST", "/api/games", json!({}));
    assert_eq!(s["opening"], Value::Null);
    let g = format!("/api/games/{}", s["id"]);
    let mut s = s;
    for mv in longest[0].split(' ') {
        s = ok(a, "POST", &format!("{g}/move"), json!({"move": mv}));
        let named_here = rows.iter().any(|r| r[1] == s["opening"]);
        assert!(named_here || s["opening"].is_null(), "{}", s["opening"]);
    }
    assert_eq!(s["opening"], longest[1]);
    let s = ok(a, "POST", "/api/games", json!({"game": "othello"}));
    assert_eq!(s["opening"], Value::Null);
}

#[test]
fn the_server_plays_the_computers_moves_with_no_page_open() {
    let server = start(&fixture_runs());
    let a = server.addr;
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"black": "alphabeta:depth=2", "white": "alphabeta:depth=3"}),
    );
    let g = format!("/api/games/{}", s["id"]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let s = loop {
        let s = ok(a, "GET", &g, Value::Null);
        if s["ply"].as_u64().unwrap() >= 12 || !s["result"].is_null() {
            break s;
        }
        assert!(Instant::now() < deadline, "the game stood still: {s}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(s["moves"].as_array().unwrap().len() >= 2, "{s}");
    assert_eq!(
        s["players"],
        json!({"black": "alphabeta:depth=2", "white": "alphabeta:depth=3"})
    );
    // The computer as Black moves first, by itself; then it is the person's turn and the
    // game waits.
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"black": "alphabeta:depth=2", "white": "human"}),
    );
    let g = format!("/api/games/{}", s["id"]);
    let mut events = Events::open(a, &format!("{g}/events"));
    let s = state_after(&mut events, 0);
    assert_eq!(
        (s["ply"].as_u64(), s["turn"].as_str()),
        (Some(1), Some("white"))
    );
    std::thread::sleep(Duration::from_millis(300));
    let s = ok(a, "GET", &g, Value::Null);
    assert_eq!(
        (s["ply"].as_u64(), s["searching"].as_bool()),
        (Some(1), Some(false))
    );
}

#[test]
fn othello_games_with_passes_records_and_the_built_in_network() {
    let server = start(&fixture_runs());
    let a = server.addr;
    let info = ok(a, "GET", "/api/info", Value::Null);
    assert_eq!(info["games"], json!(["checkers", "othello"]));
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"game": "othello", "black": "human", "white": "az"}),
    );
    assert_eq!(s["game"], "othello");
    assert_eq!(s["players"], json!({"black": "human", "white": "az"}));
    let legal: Vec<&str> = s["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(legal, ["d3", "c4", "f5", "e6"]);
    let g = format!("/api/games/{}", s["id"]);
    let s = ok(a, "POST", &format!("{g}/move"), json!({"move": "f5"}));
    // f5 flips e5 (square 37: a1 is 1, rank by rank).
    assert_eq!(s["last_move"]["captured"], json!([37]));
    let e = error(a, "POST", &format!("{g}/move"), r#"{"move": "a1"}"#, 422);
    assert!(e.contains("a disc on a1 flips no Black disc"), "{e}");
    let why = ok(a, "POST", &format!("{g}/explain"), json!({"square": 1}));
    assert_eq!(why["movable"], false);
    // The built-in network answers: the server plays the computer's moves itself.
    let mut events = Events::open(a, &format!("{g}/events"));
    let s = state_after(&mut events, 1);
    assert_eq!(s["moves_text"].as_str().unwrap().len(), 4);
    // The position before the first move, analysed while the game stays at ply 2.
    ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "alphabeta:depth=3", "ply": 0}),
    );
    let analysis = final_analysis(&mut events);
    assert_eq!(
        (analysis["ply"].as_u64(), analysis["value_for"].as_str()),
        (Some(0), Some("black"))
    );
    // An analysis without limits runs until stopped, and stopping it plays nothing.
    ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "alphabeta", "infinite": true}),
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(ok(a, "GET", &g, Value::Null)["searching"], true);
    assert_eq!(
        ok(a, "POST", &format!("{g}/stop"), json!({}))["stopped"],
        true
    );
    let analysis = final_analysis(&mut events);
    assert_eq!(analysis["ply"], 2);
    assert_eq!(state_after(&mut events, 1)["ply"], 2);
    let e = error(
        a,
        "POST",
        &format!("{g}/search"),
        r#"{"agent": "random", "ply": 9}"#,
        422,
    );
    assert_eq!(e, "ply 9: the game has plies 0-2");

    // A whole game, each side playing its first legal move (this line has passes), then
    // the same game loaded from its move list, where passes are left out.
    let s = ok(a, "POST", "/api/games", json!({"game": "othello"}));
    let g = format!("/api/games/{}", s["id"]);
    let mut s = s;
    let mut passes = 0;
    while s["result"].is_null() {
        let first = s["legal"][0]["move"].as_str().unwrap().to_string();
        passes += usize::from(first == "pass");
        s = ok(a, "POST", &format!("{g}/move"), json!({"move": first}));
    }
    assert!(passes >= 1, "no pass in this game: {}", s["moves_text"]);
    let text = s["moves_text"].as_str().unwrap();
    assert!(!text.contains("pass"));
    let loaded = ok(
        a,
        "POST",
        "/api/games",
        json!({"game": "othello", "start": "pdn", "pdn": text}),
    );
    assert_eq!(loaded["moves"], s["moves"]);
    assert_eq!(loaded["result"], s["result"]);
    let e = error(
        a,
        "POST",
        "/api/games",
        r#"{"game": "othello", "start": "pdn", "pdn": "f5f5"}"#,
        400,
    );
    assert!(e.starts_with("move 2: f5 is occupied"), "{e}");
}

#[test]
fn games_have_their_own_address_and_expire_but_newcomers_are_never_refused() {
    // A server that holds 20 games, each kept 2 seconds idle.
    let runs = fixture_runs();
    let server = Server::start(&GuiOptions {
        runs: vec![runs],
        models: vec![PathBuf::from("models")],
        max_games: 20,
        game_expiry: Duration::from_secs(2),
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    })
    .unwrap();
    let a = server.addr;
    let new = |body: Value| ok(a, "POST", "/api/games", body)["id"].as_u64().unwrap();
    // A finished game and a game in progress, then many abandoned ones.
    let finished = new(json!({}));
    ok(
        a,
        "POST",
        &format!("/api/games/{finished}/resign"),
        json!({"side": "white"}),
    );
    let kept = new(json!({}));
    ok(
        a,
        "POST",
        &format!("/api/games/{kept}/move"),
        json!({"move": "11-15"}),
    );
    let mut ids = Vec::new();
    for _ in 0..18 {
        ids.push(new(json!({"game": "othello"})));
    }
    // Full: the next newcomer takes the finished game's place, not the one going on.
    let newcomer = new(json!({}));
    let e = error(a, "GET", &format!("/api/games/{finished}"), "", 404);
    assert!(e.contains("idle for more than 2 seconds"), "{e}");
    assert_eq!(
        ok(a, "GET", &format!("/api/games/{kept}"), Value::Null)["ply"],
        1
    );
    // Then the game idle longest (the first abandoned one; `kept` was just looked at).
    new(json!({}));
    error(a, "GET", &format!("/api/games/{}", ids[0]), "", 404);
    ok(a, "GET", &format!("/api/games/{kept}"), Value::Null);
    ok(a, "GET", &format!("/api/games/{newcomer}"), Value::Null);
    // 200 more newcomers on a full server: each is served.
    for _ in 0..200 {
        new(json!({}));
    }
    // Idle games expire: after the expiry, the next newcomer's arrival sweeps them away.
    let last = new(json!({}));
    std::thread::sleep(Duration::from_millis(2500));
    new(json!({}));
    error(a, "GET", &format!("/api/games/{last}"), "", 404);
}

#[test]
fn searches_stop_cancel_and_are_limited() {
    let server = start(&fixture_runs());
    let a = server.addr;
    let new = || {
        let s = ok(a, "POST", "/api/games", json!({}));
        format!("/api/games/{}", s["id"])
    };
    // `stop` ends a long search at once and its move so far is played.
    let g = new();
    let mut events = Events::open(a, &format!("{g}/events"));
    ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "alphabeta:time=60000"}),
    );
    let err = error(
        a,
        "POST",
        &format!("{g}/search"),
        r#"{"agent": "random"}"#,
        409,
    );
    assert!(err.contains("a search is running"), "{err}");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    assert_eq!(
        ok(a, "POST", &format!("{g}/stop"), Value::Null)["stopped"],
        true
    );
    let s = state_after(&mut events, 0);
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "stopped in {:?}",
        t.elapsed()
    );
    assert_eq!(s["ply"], 1);
    assert_eq!(
        ok(a, "POST", &format!("{g}/stop"), Value::Null)["stopped"],
        false
    );

    // A person's move cancels a hint; deleting a game cancels its search and frees its slot.
    ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "alphabeta:time=60000", "play": false}),
    );
    let s = ok(a, "POST", &format!("{g}/move"), json!({"move": "22-18"}));
    assert_eq!(s["searching"], false);
    let games: Vec<String> = (0..4).map(|_| new()).collect();
    for g in &games {
        ok(
            a,
            "POST",
            &format!("{g}/search"),
            json!({"agent": "alphabeta:time=60000"}),
        );
    }
    let busy = new();
    let err = error(
        a,
        "POST",
        &format!("{busy}/search"),
        r#"{"agent": "random"}"#,
        503,
    );
    assert!(err.contains("searches are running"), "{err}");
    let (status, _) = request(a, "DELETE", &games[0], "");
    assert_eq!(status, 204);
    assert!(
        error(a, "GET", &games[0], "", 404)
            .starts_with(&format!("no game {}: it was deleted", &games[0][11..]))
    );
    // The deleted game's search ends on its stop flag and gives its slot back.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, _) = request(
            a,
            "POST",
            &format!("{busy}/search"),
            r#"{"agent": "random"}"#,
        );
        if status == 202 {
            break;
        }
        assert!(Instant::now() < deadline, "the slot was not freed");
        std::thread::sleep(Duration::from_millis(50));
    }
    for g in &games[1..] {
        ok(a, "POST", &format!("{g}/stop"), Value::Null);
    }
}

/// A server with an access token serves no page and no API call without it (401, one JSON
/// line saying where it is), and serves them with it: as a bearer header, or from the
/// address's `?token=`, which sets the cookie that the page's later calls carry.
#[test]
fn a_server_with_a_token_serves_only_those_who_bring_it() {
    let server = Server::start(&GuiOptions {
        token: Some("5ecret".into()),
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    })
    .unwrap();
    let a = server.addr;
    assert!(server.url().ends_with("/?token=5ecret"), "{}", server.url());
    for path in ["/", "/api/info", "/api/runs", "/style.css"] {
        let (status, _, body) = request_with_headers(a, "GET", path, "", "");
        assert_eq!(status, 401, "{path}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(v["error"].as_str().unwrap().contains("?token="), "{body}");
        let wrong = request_with_headers(a, "GET", path, "Authorization: Bearer 5ecreT\r\n", "");
        assert_eq!(wrong.0, 401, "{path} with a wrong token");
    }
    let bearer = request_with_headers(
        a,
        "GET",
        "/api/info",
        "Authorization: Bearer 5ecret\r\n",
        "",
    );
    assert_eq!(bearer.0, 200);
    let (status, head, _) = request_with_headers(a, "GET", "/?token=5ecret", "", "");
    assert_eq!(status, 200);
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .unwrap_or_else(|| panic!("no cookie set: {head}"));
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    let pair = cookie.split(';').next().unwrap();
    let (status, _, body) = request_with_headers(
        a,
        "POST",
        "/api/games",
        &format!("Cookie: {pair}\r\n"),
        "{}",
    );
    assert_eq!(status, 201, "{body}");
}

/// Every agent a request names is held to the server's limits: a spec asking more is refused
/// with the limit and its flag named, and a search with no time bound of its own (a depth
/// of 40) is stopped at the longest thinking a move, and its move played.
#[test]
fn agents_are_held_to_the_servers_limits() {
    let server = Server::start(&GuiOptions {
        limits: AgentLimits {
            move_time: Duration::from_millis(300),
            searches: 1000,
            threads: 1,
            thinking: 1,
            cache: 4096,
            tree_mb: 16,
            hash_mb: 8,
            kept_agents: 1,
        },
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    })
    .unwrap();
    let a = server.addr;
    let refused = error(
        a,
        "POST",
        "/api/games",
        r#"{"white": "alphabeta:time=100000000"}"#,
        400,
    );
    assert!(
        refused.contains("time=100000000 is beyond this server's limit of 300 ms")
            && refused.contains("gui --max-move-ms"),
        "{refused}"
    );
    let s = ok(a, "POST", "/api/games", json!({}));
    let g = format!("/api/games/{}", s["id"]);
    let search = format!("{g}/search");
    let too_many = error(
        a,
        "POST",
        &search,
        r#"{"agent": "mcts:searches=5000"}"#,
        400,
    );
    assert!(too_many.contains("gui --max-searches"), "{too_many}");
    let threads = error(a, "POST", &search, r#"{"agent": "az:threads=2"}"#, 400);
    assert!(threads.contains("gui --max-threads"), "{threads}");
    let cache = error(a, "POST", &search, r#"{"agent": "az:cache=5000"}"#, 400);
    assert!(cache.contains("gui --max-cache"), "{cache}");

    let mut events = Events::open(a, &format!("{g}/events"));
    let t = Instant::now();
    ok(
        a,
        "POST",
        &search,
        json!({"agent": "alphabeta:depth=40", "play": true}),
    );
    // One search at a time on this server.
    let other = ok(a, "POST", "/api/games", json!({}));
    let busy = error(
        a,
        "POST",
        &format!("/api/games/{}/search", other["id"]),
        r#"{"agent": "random"}"#,
        503,
    );
    assert!(busy.contains("1 searches are running"), "{busy}");
    let s = state_after(&mut events, 0);
    assert_eq!(s["ply"], 1);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "played after {:?}",
        t.elapsed()
    );
}

#[test]
fn side_lines_from_earlier_positions_are_kept_searched_written_and_read_back() {
    let server = start(&fixture_runs());
    let a = server.addr;
    let s = ok(a, "POST", "/api/games", json!({}));
    let g = format!("/api/games/{}", s["id"]);
    for mv in ["11-15", "23-19", "8-11", "22-17"] {
        ok(a, "POST", &format!("{g}/move"), json!({"move": mv}));
    }
    // Every earlier position offers its moves.
    let p = ok(a, "GET", &format!("{g}/ply/1"), Value::Null);
    assert_eq!(
        (p["line"].as_u64(), p["turn"].as_str()),
        (Some(0), Some("white"))
    );
    assert_eq!(p["legal"].as_array().unwrap().len(), 7);
    // A move there starts a side line; the game stays as it was.
    let r = ok(
        a,
        "POST",
        &format!("{g}/lines"),
        json!({"ply": 1, "move": "22-18"}),
    );
    assert_eq!(
        (
            r["position"]["line"].as_u64(),
            r["position"]["ply"].as_u64()
        ),
        (Some(1), Some(2))
    );
    assert_eq!(r["state"]["ply"], 4);
    let line = &r["state"]["variations"][0];
    assert_eq!(
        (line["parent"].as_u64(), line["from"].as_u64()),
        (Some(0), Some(1))
    );
    // It grows from its end (a capture the rules force, then more).
    let mut at = r["position"].clone();
    for mv in ["15x22", "25x18"] {
        let r = ok(
            a,
            "POST",
            &format!("{g}/lines"),
            json!({"line": at["line"], "ply": at["ply"], "move": mv}),
        );
        at = r["position"].clone();
    }
    assert_eq!(
        (at["line"].as_u64(), at["ply"].as_u64()),
        (Some(1), Some(4))
    );
    let p = ok(a, "GET", &format!("{g}/ply/3?line=1"), Value::Null);
    assert_eq!(p["last_move"]["move"], "15x22");
    // A side line's first position is its parent's.
    assert_eq!(
        ok(a, "GET", &format!("{g}/ply/1?line=1"), Value::Null)["line"],
        0
    );
    // Analysis follows the position shown, side lines too.
    let mut events = Events::open(a, &format!("{g}/events"));
    ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "alphabeta:depth=2", "ply": 4, "line": 1}),
    );
    let analysis = final_analysis(&mut events);
    assert_eq!(
        (analysis["line"].as_u64(), analysis["ply"].as_u64()),
        (Some(1), Some(4))
    );
    assert_eq!(analysis["value_for"], "black");
    // The PDN holds it as RAV and reads back with it.
    let pdn = ok(a, "GET", &g, Value::Null)["pdn"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        pdn.contains("1. 11-15 23-19 (1... 22-18 2. 15x22 25x18) 2. 8-11"),
        "{pdn}"
    );
    let loaded = ok(a, "POST", "/api/games", json!({"start": "pdn", "pdn": pdn}));
    assert_eq!(
        loaded["variations"][0]["moves"].as_array().unwrap().len(),
        3
    );
    // Refusals, each a one-line reason.
    let bad = |body: &str, status| error(a, "POST", &format!("{g}/lines"), body, status);
    assert!(bad(r#"{"ply": 4, "move": "9-13"}"#, 422).contains("played in the game"));
    assert!(bad(r#"{"ply": 1, "move": "22-19"}"#, 422).contains("22-19"));
    assert_eq!(
        bad(r#"{"line": 7, "ply": 1, "move": "22-18"}"#, 422),
        "no side line 7"
    );
    assert!(bad(r#"{"ply": 1}"#, 400).contains("move"));
    let e = error(a, "GET", &format!("{g}/ply/9?line=1"), "", 404);
    assert_eq!(e, "ply 9: side line 1 has plies 1-4");
    assert!(error(a, "GET", &format!("{g}/ply/1?line=x"), "", 400).contains("line \"x\""));
    assert!(error(a, "GET", &format!("{g}/ply/1?depth=2"), "", 400).contains("expected line=K"));
    // Taking back the game below a side line's start drops it; deleting one drops it too.
    ok(
        a,
        "POST",
        &format!("{g}/lines"),
        json!({"ply": 3, "move": "24-20"}),
    );
    let r = ok(a, "DELETE", &format!("{g}/lines/2"), Value::Null);
    assert_eq!(
        (
            r["position"]["line"].as_u64(),
            r["position"]["ply"].as_u64()
        ),
        (Some(0), Some(3))
    );
    assert_eq!(
        error(a, "DELETE", &format!("{g}/lines/2"), "", 404),
        "no side line 2"
    );
    let s = ok(a, "POST", &format!("{g}/undo"), json!({"plies": 3}));
    assert_eq!(s["variations"].as_array().unwrap().len(), 0);
}

#[test]
fn bad_requests_get_one_line_json_errors() {
    let server = start(&fixture_runs());
    let a = server.addr;
    let s = ok(a, "POST", "/api/games", json!({}));
    let g = format!("/api/games/{}", s["id"]);
    let mv = format!("{g}/move");
    let search = format!("{g}/search");
    let big = format!(r#"{{"pdn": "{}"}}"#, "x".repeat(2 << 20));
    for (method, path, body, status, needle) in [
        (
            "POST",
            "/api/games",
            r#"{"game": "chess"}"#,
            400,
            "unknown game \"chess\": expected checkers or othello",
        ),
        (
            "POST",
            "/api/games",
            r#"{"game": "othello", "start": "ballot", "ballot": 1}"#,
            400,
            "expected initial, fen or pdn",
        ),
        (
            "POST",
            "/api/games",
            r#"{"game": "othello", "white": "az:model=models/default.bin"}"#,
            400,
            "model \"models/default.bin\" plays checkers, not othello",
        ),
        // An agent its kind refuses is refused with the game, not left to hang it.
        (
            "POST",
            "/api/games",
            r#"{"white": "stockfish"}"#,
            400,
            "unknown agent \"stockfish\" for checkers: expected one of random,",
        ),
        (
            "POST",
            "/api/games",
            r#"{"white": "az:searches=-5"}"#,
            400,
            "az option searches: expected a number of simulations",
        ),
        (
            "POST",
            "/api/games",
            r#"{"black": "az:foo=1"}"#,
            400,
            "agent az has no option \"foo\"",
        ),
        (
            "POST",
            "/api/games",
            r#"{"start": "middle"}"#,
            400,
            "expected initial, ballot, fen or pdn",
        ),
        (
            "POST",
            "/api/games",
            r#"{"start": "fen"}"#,
            400,
            "needs the field \"fen\"",
        ),
        (
            "POST",
            "/api/games",
            r#"{"start": "fen", "fen": "Q:W1"}"#,
            400,
            "bad position: FEN must start",
        ),
        (
            "POST",
            "/api/games",
            r#"{"start": "fen", "fen": "B:W:B1,K2"}"#,
            400,
            "bad position: White has no pieces, so it cannot have made the last move",
        ),
        (
            "POST",
            "/api/games",
            r#"{"start": "ballot", "ballot": 157}"#,
            400,
            "expected 0-156",
        ),
        (
            "POST",
            "/api/games",
            r#"{"start": "pdn", "pdn": "1. 11-18"}"#,
            400,
            "PDN move 1: 11-18 is not legal",
        ),
        (
            "POST",
            "/api/games",
            r#"{"strat": "initial"}"#,
            400,
            "unknown field `strat`",
        ),
        ("POST", "/api/games", "{bad", 400, "malformed JSON body"),
        ("POST", "/api/games", "[1, 2]", 400, "malformed JSON body"),
        ("POST", "/api/games", &big, 413, "request body"),
        (
            "GET",
            "/api/games/abc",
            "",
            400,
            "game id \"abc\": expected a number",
        ),
        ("GET", "/api/games/999999", "", 404, "no game 999999"),
        ("POST", &mv, r#"{"move": 1115}"#, 400, "malformed JSON body"),
        ("POST", &mv, r#"{"move": "11-15-"}"#, 422, "is not a move"),
        ("POST", &mv, r#"{}"#, 400, "missing field `move`"),
        (
            "POST",
            &format!("{g}/explain"),
            r#"{"square": 33}"#,
            400,
            "square 33: expected 1-32",
        ),
        (
            "POST",
            &format!("{g}/undo"),
            r#"{}"#,
            422,
            "the game has 0 to take back",
        ),
        (
            "POST",
            &format!("{g}/resign"),
            r#"{"side": "red"}"#,
            400,
            "expected black or white",
        ),
        (
            "GET",
            &format!("{g}/ply/5"),
            "",
            404,
            "the game has plies 0-0",
        ),
        ("GET", &format!("{g}/ply/x"), "", 400, "expected a number"),
        (
            "POST",
            &search,
            r#"{"agent": "minimax"}"#,
            422,
            "unknown agent \"minimax\"",
        ),
        (
            "POST",
            &search,
            r#"{"agent": "alphabeta:depth=0"}"#,
            422,
            "alphabeta option depth",
        ),
        (
            "POST",
            &search,
            r#"{"agent": "alphabeta:deph=3"}"#,
            422,
            "no option \"deph\"",
        ),
        (
            "POST",
            &search,
            r#"{"agent": ":"}"#,
            400,
            "empty agent spec",
        ),
        (
            "POST",
            &search,
            r#"{"agent": "random", "lines": 0}"#,
            400,
            "lines: expected a number of lines, a whole number 1-64",
        ),
        (
            "POST",
            &search,
            r#"{"agent": "az:model=/etc/passwd"}"#,
            404,
            "no model \"/etc/passwd\"",
        ),
        (
            "POST",
            &search,
            r#"{"agent": "td:model=models/../../x.ckpt"}"#,
            404,
            "no model",
        ),
        (
            "POST",
            &search,
            r#"{"agent": "az:book=/etc/passwd"}"#,
            400,
            "book: the browser's agents play without an opening book",
        ),
        (
            "POST",
            &search,
            r#"{"agent": "az", "play": "yes"}"#,
            400,
            "malformed JSON body",
        ),
        (
            "POST",
            &format!("{g}/draw"),
            r#"{"agent": "random"}"#,
            400,
            "needs the offering side",
        ),
        (
            "PUT",
            "/api/info",
            "",
            405,
            "PUT is not allowed on /api/info",
        ),
        ("GET", "/api/nothing", "", 404, "no such path /api/nothing"),
        ("GET", "/../Cargo.toml", "", 404, "no such path"),
        ("GET", "/api/runs/nope/metrics", "", 404, "no run \"nope\""),
        ("GET", "/api/runs/..%2F..%2Fsrc/config", "", 404, "no run"),
        (
            "GET",
            "/api/runs/fixture/games/..%2Fconfig.json",
            "",
            404,
            "has no game file",
        ),
        (
            "GET",
            "/vendor/uplot/nothing.js",
            "",
            404,
            "no such path /vendor/uplot/nothing.js",
        ),
    ] {
        let err = error(a, method, path, body, status);
        assert!(err.contains(needle), "{method} {path} {:.60}: {err}", body);
        assert!(!err.contains('\n'), "one line: {err}");
    }
    // A finished game takes no search.
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"start": "fen", "fen": "B:W14:B"}),
    );
    let err = error(
        a,
        "POST",
        &format!("/api/games/{}/search", s["id"]),
        r#"{"agent": "random"}"#,
        409,
    );
    assert!(err.contains("the game is over"), "{err}");
}

/// The fixture's metrics lines (a real az-tiny run's, as `train` wrote them).
pub(crate) fn fixture_lines() -> Vec<String> {
    std::fs::read_to_string(fixture_runs().join("fixture/metrics.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The run `name` as `GET /api/runs` lists it.
fn listed(a: SocketAddr, name: &str) -> Value {
    let list = ok(a, "GET", "/api/runs", Value::Null);
    list.as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed: {list}"))
        .clone()
}

#[test]
fn the_dashboard_lists_runs_their_metrics_config_and_games() {
    let server = start(&fixture_runs());
    let a = server.addr;
    let lines = fixture_lines();
    let run = listed(a, "fixture");
    assert_eq!(run["iterations"].as_u64(), Some(lines.len() as u64));
    assert_eq!(run["game"], "checkers");
    assert_eq!(run["network"], "az-tiny");
    assert_eq!(run["live"], false, "no process writes the fixture");
    assert_eq!(run["threshold"].as_f64(), Some(0.550000011920929));
    // The charts the page draws, as `plot` declares them: each names the metrics fields its
    // lines read, and every field a metrics chart reads is in the fixture's lines.
    let charts = ok(a, "GET", "/api/charts", Value::Null);
    assert_eq!(charts["axes"][0]["id"], "iteration");
    let first: Value = serde_json::from_str(&lines[0]).unwrap();
    for chart in charts["charts"].as_array().unwrap() {
        assert!(chart["empty"]["cpu_hours"].is_string(), "{chart}");
        for metric in chart["lines"]["metrics"].as_array().into_iter().flatten() {
            let field = metric["field"].as_str().unwrap();
            assert!(
                first[field].is_number(),
                "{field} is not in the metrics: {chart}"
            );
        }
    }
    let metrics = ok(a, "GET", "/api/runs/fixture/metrics", Value::Null);
    assert_eq!(metrics.as_array().unwrap().len(), lines.len());
    assert_eq!(metrics[2]["iteration"], 3);
    let config = ok(a, "GET", "/api/runs/fixture/config", Value::Null);
    assert_eq!(config["network"], "az-tiny");
    assert_eq!(
        ok(a, "GET", "/api/runs/fixture/games", Value::Null),
        json!(["iter-0001.pdn"])
    );
    let (status, pdn) = request(a, "GET", "/api/runs/fixture/games/iter-0001.pdn", "");
    assert_eq!(status, 200);
    let replay = ok(a, "POST", "/api/games", json!({"start": "pdn", "pdn": pdn}));
    assert!(replay["ply"].as_u64().unwrap() > 20);
    assert!(
        ok(a, "GET", "/api/info", Value::Null)["models"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["name"].as_str().unwrap().starts_with("models/"))
    );
}

/// A run's learning curve played afterwards (`checkers-zero curve`) is served beside its
/// metrics: its points without the settings line, a line still being written left out.
#[test]
fn the_dashboard_serves_a_runs_learning_curve() {
    let runs = common::ScratchDir::new("gui-curve-runs");
    let run = runs.0.join("curved");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(
        run.join("metrics.jsonl"),
        format!("{}\n", fixture_lines()[0]),
    )
    .unwrap();
    let server = start(&runs.0);
    let a = server.addr;
    assert_eq!(listed(a, "curved")["curve_points"], 0);
    assert_eq!(
        ok(a, "GET", "/api/runs/curved/curve", Value::Null),
        json!([])
    );
    let point = |i: u32| {
        json!({"iteration": i, "best_iteration": i, "elapsed_s": 60 * i, "cpu_s": 100 * i,
            "gauntlet": []})
    };
    let header = json!({"curve": {"agent": "az", "opponents": ["random"], "games": 2, "seed": 0}});
    let torn = point(8).to_string();
    std::fs::write(
        run.join("curve.jsonl"),
        format!("{header}\n{}\n{}\n{}", point(0), point(4), &torn[..10]),
    )
    .unwrap();
    assert_eq!(listed(a, "curved")["curve_points"], 2);
    assert_eq!(
        ok(a, "GET", "/api/runs/curved/curve", Value::Null),
        json!([point(0), point(4)])
    );
}

/// `live` follows the trainer's own lock (the run folder's `RunDir`), the metrics follow
/// the lines it logs, and runs started after the server appear in the list.
#[test]
fn the_dashboard_sees_live_runs_grow_and_new_runs_appear() {
    use checkers_zero::train::run_dir::RunDir;
    let runs = common::ScratchDir::new("gui-live-runs");
    let run = runs.0.join("growing");
    std::fs::create_dir_all(&run).unwrap();
    let lines = fixture_lines();
    std::fs::write(run.join("metrics.jsonl"), format!("{}\n", lines[0])).unwrap();
    let server = start(&runs.0);
    let a = server.addr;
    let before = listed(a, "growing");
    assert_eq!(before["iterations"], 1);
    assert_eq!(before["live"], false, "{before}");
    assert_eq!(
        before["game"],
        Value::Null,
        "no config.json: the game is unknown"
    );

    // A trainer claims the folder and logs an iteration, then half of the next one.
    let mut dir = RunDir::resume(&run).unwrap();
    assert_eq!(listed(a, "growing")["live"], true);
    let second: Value = serde_json::from_str(&lines[1]).unwrap();
    dir.log(&second).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(run.join("metrics.jsonl"))
        .unwrap();
    f.write_all(&lines[2].as_bytes()[..20]).unwrap();
    let now = listed(a, "growing");
    assert_eq!(now["iterations"], 2, "{now}");
    assert_eq!(now["live"], true);
    let metrics = ok(a, "GET", "/api/runs/growing/metrics", Value::Null);
    assert_eq!(
        metrics,
        json!([serde_json::from_str::<Value>(&lines[0]).unwrap(), second])
    );
    // It ends cleanly: the lock is emptied and the run is no longer live.
    drop(dir);
    assert_eq!(listed(a, "growing")["live"], false);
    // A trainer killed while training leaves its process id in the lock but no lock: not
    // live, whether that id is gone or now another running process's (here, this one's).
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    std::fs::write(run.join("run.lock"), format!("{}\n", gone.id())).unwrap();
    assert_eq!(listed(a, "growing")["live"], false);
    std::fs::write(run.join("run.lock"), format!("{}\n", std::process::id())).unwrap();
    assert_eq!(
        listed(a, "growing")["live"],
        false,
        "a reused pid is not a trainer"
    );

    // A run started after the server: listed with its game, and its metrics served.
    let new = runs.0.join("othello-new");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(
        new.join("config.json"),
        r#"{"game": "othello", "network": "az-tiny"}"#,
    )
    .unwrap();
    std::fs::write(
        new.join("metrics.jsonl"),
        format!("{}\n{}\n", lines[0], lines[1]),
    )
    .unwrap();
    let listed_new = listed(a, "othello-new");
    assert_eq!(listed_new["game"], "othello");
    assert_eq!(listed_new["iterations"], 2);
    let metrics = ok(a, "GET", "/api/runs/othello-new/metrics", Value::Null);
    assert_eq!(metrics.as_array().unwrap().len(), 2);
    // An older run's config.json names no game: checkers, as `train` reads it.
    std::fs::write(new.join("config.json"), r#"{"network": "az-tiny"}"#).unwrap();
    assert_eq!(listed(a, "othello-new")["game"], "checkers");
    // A folder with neither metrics nor config is no run.
    std::fs::create_dir_all(runs.0.join("empty")).unwrap();
    let names: Vec<Value> = ok(a, "GET", "/api/runs", Value::Null)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].clone())
        .collect();
    assert_eq!(
        names,
        json!(["growing", "othello-new"])
            .as_array()
            .unwrap()
            .clone()
    );
}

/// The page's files, the chart library in web/vendor/ among them, with their content types.
#[test]
fn the_page_and_its_chart_library_are_served() {
    let server = start(&fixture_runs());
    for (path, kind, needle) in [
        ("/", "text/html", "vendor/uplot/uPlot.min.css"),
        ("/dashboard.js", "text/javascript", "./charts.js"),
        (
            "/charts.js",
            "text/javascript",
            "./vendor/uplot/uPlot.esm.js",
        ),
        (
            "/vendor/uplot/uPlot.esm.js",
            "text/javascript",
            "export { uPlot as default }",
        ),
        ("/vendor/uplot/uPlot.min.css", "text/css", ".u-legend"),
        ("/vendor/uplot/LICENSE", "text/plain", "MIT"),
    ] {
        let (status, head, body) = request_with_head(server.addr, "GET", path, "");
        assert_eq!(status, 200, "{path}");
        let head = head.to_ascii_lowercase();
        assert!(
            head.contains(&format!("content-type: {kind}")),
            "{path}: {head}"
        );
        assert!(body.contains(needle), "{path} lacks {needle:?}");
    }
}
