//! The browser interface's JSON API, in-process on an ephemeral port: a whole game, illegal
//! moves and their reasons, undo, agent replies, cancelling searches, the dashboard's runs,
//! and bad requests of every kind (each a JSON error, none a panic).

use checkers_zero::games::Game;
use checkers_zero::gui::{GuiOptions, Server};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn start(runs: &Path) -> Server {
    Server::start(&GuiOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        open: false,
        models: vec![PathBuf::from("models")],
        runs: vec![runs.to_path_buf()],
    })
    .unwrap()
}

fn fixture_runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/runs")
}

/// One HTTP/1.1 request; the status and the body.
fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
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

fn ok(addr: SocketAddr, method: &str, path: &str, body: Value) -> Value {
    let (status, v) = json_request(addr, method, path, body);
    assert!(
        (200..300).contains(&status),
        "{method} {path}: {status} {v}"
    );
    v
}

/// The error of a request that must fail with `status`.
fn error(addr: SocketAddr, method: &str, path: &str, body: &str, status: u16) -> String {
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
    let server = start(&fixture_runs());
    let a = server.addr;
    let info = ok(a, "GET", "/api/info", Value::Null);
    assert_eq!(info["ballots"].as_array().unwrap().len(), 157);
    assert!(
        info["models"]
            .as_array()
            .unwrap()
            .contains(&json!("models/default.bin"))
    );
    let kinds: Vec<&str> = info["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["random", "mcts", "az", "alphabeta", "td", "ga", "pso"]
    );

    let s = ok(a, "POST", "/api/games", json!({"start": "initial"}));
    let id = s["id"].as_u64().unwrap();
    assert_eq!(s["turn"], "black");
    assert_eq!(s["legal"].as_array().unwrap().len(), 7);
    let cells = s["board"].as_array().unwrap();
    assert_eq!(cells.len(), 64);
    assert_eq!(cells[1], json!({"square": 1, "piece": "b"}));
    assert_eq!(cells[0], Value::Null);
    assert_eq!(cells[56], json!({"square": 29, "piece": "w"}));
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
    let analysis = events.next("analysis", Duration::from_secs(60));
    assert_eq!(analysis["value_for"], "white");
    assert_eq!(analysis["score_kind"], "value");
    assert_eq!(analysis["pv"][0], analysis["best"]["move"]);
    assert!(!analysis["moves"].as_array().unwrap().is_empty());
    let s = state_after(&mut events, 1);
    assert_eq!(s["ply"], 2);
    assert_eq!(s["moves"][1]["move"], analysis["best"]["move"]);
    assert!(
        s["pdn"]
            .as_str()
            .unwrap()
            .contains("[White \"alphabeta:depth=4\"]")
    );

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
    let hint = events.next("analysis", Duration::from_secs(60));
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
    assert_eq!(error(a, "GET", &g, "", 404), format!("no game {id}"));
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
        json!({"agent": "alphabeta:time=600000"}),
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
        json!({"agent": "alphabeta:time=600000", "play": false}),
    );
    let s = ok(a, "POST", &format!("{g}/move"), json!({"move": "22-18"}));
    assert_eq!(s["searching"], false);
    let games: Vec<String> = (0..4).map(|_| new()).collect();
    for g in &games {
        ok(
            a,
            "POST",
            &format!("{g}/search"),
            json!({"agent": "alphabeta:time=600000"}),
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
    assert_eq!(
        error(a, "GET", &games[0], "", 404),
        format!("no game {}", &games[0][11..])
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
            "unknown game \"chess\": expected checkers",
        ),
        (
            "POST",
            "/api/games",
            r#"{"game": "othello"}"#,
            400,
            "checkers only",
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
            "bad FEN",
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
            "/api/runs/fixture/plots/loss.png",
            "",
            404,
            "as NAME.svg",
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

#[test]
fn the_dashboard_lists_runs_and_follows_a_growing_one() {
    // A copy of the fixture run, so the test can grow its metrics.jsonl.
    let runs = std::env::temp_dir().join(format!("cz-gui-runs-{}", std::process::id()));
    let run = runs.join("fixture");
    std::fs::create_dir_all(run.join("games")).unwrap();
    let src = fixture_runs().join("fixture");
    for f in ["config.json", "metrics.jsonl", "games/iter-0001.pdn"] {
        std::fs::copy(src.join(f), run.join(f)).unwrap();
    }
    let lines: Vec<String> = std::fs::read_to_string(src.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let server = start(&runs);
    let a = server.addr;
    let list = ok(a, "GET", "/api/runs", Value::Null);
    assert_eq!(list[0]["name"], "fixture");
    assert_eq!(list[0]["iterations"].as_u64(), Some(lines.len() as u64));
    let metrics = ok(a, "GET", "/api/runs/fixture/metrics", Value::Null);
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
            .all(|m| m.as_str().unwrap().starts_with("models/"))
    );

    // Every chart, as the `plot` command draws it.
    let plots = ok(a, "GET", "/api/runs/fixture/plots", Value::Null);
    let names: Vec<&str> = plots
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"loss") && names.contains(&"gauntlet"),
        "{names:?}"
    );
    for name in names {
        let (status, svg) = request(a, "GET", &format!("/api/runs/fixture/plots/{name}.svg"), "");
        assert_eq!(status, 200, "{name}");
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{name}");
    }

    // A line appended by a running `train` arrives as an event; half a line does not yet.
    let mut events = Events::open(a, "/api/runs/fixture/events");
    std::thread::sleep(Duration::from_millis(300));
    let mut next: Value = serde_json::from_str(&lines[0]).unwrap();
    next["iteration"] = json!(lines.len() + 1);
    let text = next.to_string();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(run.join("metrics.jsonl"))
        .unwrap();
    f.write_all(&text.as_bytes()[..10]).unwrap();
    f.flush().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    f.write_all(format!("{}\n", &text[10..]).as_bytes())
        .unwrap();
    let got = events.next("metrics", Duration::from_secs(10));
    assert_eq!(got["iteration"].as_u64(), Some(lines.len() as u64 + 1));
    drop(server);
    std::fs::remove_dir_all(&runs).unwrap();
}
