//! The games archive: every game the server holds is in its SQLite file as it last stood,
//! through a kill -9 and a restart; `GET /api/games` lists them; a damaged or newer file is
//! refused and left as it was.

use super::gui_api::{error, ok, request};
use crate::common::{ScratchDir, program};
use checkers_zero::gui::{GuiOptions, Server};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Stdio};

/// `checkers-zero gui` on any free port with the archive `file`, and its address (from the
/// `listening` event it writes first).
fn serve(file: &Path) -> (Child, SocketAddr) {
    serve_with(file, &[])
}

/// [`serve`] with the further flags `args`.
pub(crate) fn serve_with(file: &Path, args: &[&str]) -> (Child, SocketAddr) {
    let mut child = program()
        .args(["--log-format", "json", "gui", "--port", "0", "--archive"])
        .arg(file)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let event: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first:?}"));
    assert_eq!(event["event"], "listening", "{first}");
    let url = event["url"].as_str().unwrap();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    (child, addr)
}

fn in_process(file: &Path) -> Result<Server, String> {
    Server::start(&GuiOptions {
        archive: Some(file.to_owned()),
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    })
    .map_err(|e| e.to_string())
}

/// The game's kept analyses once there are `n`.
fn wait_for_analyses(a: SocketAddr, game: &str, n: usize) -> Value {
    let start = std::time::Instant::now();
    loop {
        let kept = ok(a, "GET", &format!("{game}/analyses"), Value::Null);
        if kept.as_array().unwrap().len() >= n {
            return kept;
        }
        assert!(start.elapsed().as_secs() < 60, "no analysis kept: {kept}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn listing(a: SocketAddr, query: &str) -> Value {
    ok(a, "GET", &format!("/api/games{query}"), Value::Null)
}

#[test]
fn games_survive_a_kill_and_a_restart_with_their_side_lines() {
    let dir = ScratchDir::new("archive-kill");
    let file = dir.0.join("data/games.sqlite");
    let (mut server, a) = serve(&file);
    let s = ok(a, "POST", "/api/games", json!({}));
    let id = s["id"].as_u64().unwrap();
    let g = format!("/api/games/{id}");
    for mv in ["11-15", "23-19", "8-11"] {
        ok(a, "POST", &format!("{g}/move"), json!({"move": mv}));
    }
    ok(
        a,
        "POST",
        &format!("{g}/lines"),
        json!({"ply": 1, "move": "22-18"}),
    );
    // A game on a clock keeps its clocks.
    let othello = ok(
        a,
        "POST",
        "/api/games",
        json!({"game": "othello", "clock": "10+5"}),
    );
    ok(
        a,
        "POST",
        &format!("/api/games/{}/move", othello["id"]),
        json!({"move": "f5"}),
    );
    // An analysis of the game's position is kept with it.
    ok(
        a,
        "POST",
        &format!("{g}/search"),
        json!({"agent": "alphabeta:depth=2", "play": false}),
    );
    let analysed = wait_for_analyses(a, &g, 1);
    assert_eq!(analysed[0]["ply"], 3, "{analysed}");
    let before = ok(a, "GET", &g, Value::Null);
    server.kill().unwrap(); // SIGKILL: no chance to write anything more
    server.wait().unwrap();

    let (mut server, a) = serve(&file);
    let list = listing(a, "");
    assert_eq!(list["total"], 2, "{list}");
    // The newest change first: the checkers game's analysis came after Othello's move.
    assert_eq!(list["games"][1]["game"], "othello", "{list}");
    let listed = &list["games"][0];
    assert_eq!(
        (
            &listed["id"],
            &listed["game"],
            &listed["moves"],
            &listed["result"]
        ),
        (&json!(id), &json!("checkers"), &json!(3), &Value::Null),
        "{list}"
    );
    assert_eq!(
        listed["players"],
        json!({"black": "human", "white": "human"})
    );
    // The game's address works again: its moves, side line and record as they were.
    let after = ok(a, "GET", &g, Value::Null);
    for key in ["moves_text", "fen", "variations", "opening", "players"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    assert_eq!(after["variations"][0]["moves"][0]["move"], "22-18");
    // The analyses kept with it: the computer's search of the position after 8-11.
    let kept = ok(a, "GET", &format!("{g}/analyses"), Value::Null);
    assert_eq!(kept, analysed, "{kept}");
    // The clocks as the last move left them: Black's untimed first move earned it its
    // increment, and White's clock, which was running, runs again.
    let clock = &ok(
        a,
        "GET",
        &format!("/api/games/{}", othello["id"]),
        Value::Null,
    )["clock"];
    assert_eq!(
        (&clock["control"], &clock["black_ms"], &clock["running"]),
        (&json!("10+5"), &json!(605_000), &json!("white")),
        "{clock}"
    );
    assert!(
        (540_000..=600_000).contains(&clock["white_ms"].as_u64().unwrap()),
        "{clock}"
    );
    // It goes on, and new games are numbered after the kept ones.
    let moved = ok(a, "POST", &format!("{g}/move"), json!({"move": "22-17"}));
    assert_eq!(moved["ply"], 4);
    let next = ok(a, "POST", "/api/games", json!({}));
    assert!(next["id"].as_u64().unwrap() > othello["id"].as_u64().unwrap());
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn the_listing_follows_the_order_of_writes_not_the_clock() {
    let dir = ScratchDir::new("archive-order");
    let file = dir.0.join("games.sqlite");
    let (mut server, a) = serve(&file);
    let ids: Vec<Value> = (0..3)
        .map(|_| {
            let id = ok(a, "POST", "/api/games", json!({}))["id"].clone();
            ok(
                a,
                "POST",
                &format!("/api/games/{id}/move"),
                json!({"move": "11-15"}),
            );
            id
        })
        .collect();
    server.kill().unwrap();
    server.wait().unwrap();
    // The file as the schema before write counts left it, with stamps from a clock that has
    // since been set back: the second and third games share one to the millisecond.
    let conn = rusqlite::Connection::open(&file).unwrap();
    conn.execute_batch(&format!(
        "DROP INDEX games_by_revision;
         ALTER TABLE games DROP COLUMN revision;
         CREATE INDEX games_by_update ON games (updated, id);
         UPDATE games SET updated = '2099-01-02T00:00:00.000Z' WHERE id = {};
         UPDATE games SET updated = '2099-01-01T00:00:00.000Z' WHERE id IN ({}, {});
         PRAGMA user_version = 3;",
        ids[0], ids[1], ids[2]
    ))
    .unwrap();
    drop(conn);
    let (mut server, a) = serve(&file);
    let order = |a| {
        let list = listing(a, "");
        let games = list["games"].as_array().unwrap();
        games.iter().map(|g| g["id"].clone()).collect::<Vec<_>>()
    };
    // Upgraded in the order the stamps gave, ties by number...
    assert_eq!(order(a), [&ids[0], &ids[2], &ids[1]].map(Value::clone));
    // ...and from then on in the order of writes, whatever the clock says.
    ok(
        a,
        "POST",
        &format!("/api/games/{}/move", ids[1]),
        json!({"move": "23-19"}),
    );
    assert_eq!(order(a), [&ids[1], &ids[0], &ids[2]].map(Value::clone));
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn the_archive_lists_filters_pages_and_forgets() {
    let dir = ScratchDir::new("archive-list");
    let server = in_process(&dir.0.join("games.sqlite")).unwrap();
    let a = server.addr;
    // One server a file: a second would number its games as the first does.
    let e = in_process(&dir.0.join("games.sqlite")).err().unwrap();
    assert!(e.contains("is in use by another checkers-zero gui"), "{e}");
    let game = |body: Value, first_move: &str| {
        let id = ok(a, "POST", "/api/games", body)["id"].clone();
        let mv = json!({"move": first_move});
        ok(a, "POST", &format!("/api/games/{id}/move"), mv);
        id
    };
    let first = game(json!({}), "11-15");
    let second = game(json!({"white": "random"}), "11-15");
    game(json!({"game": "othello"}), "f5");
    // A scratch position (the tutorial's) is not kept, nor a board nobody played on.
    game(json!({"scratch": true}), "11-15");
    ok(a, "POST", "/api/games", json!({}));
    ok(
        a,
        "POST",
        &format!("/api/games/{first}/resign"),
        json!({"side": "black"}),
    );
    let all = listing(a, "");
    assert_eq!(all["total"], 3, "{all}");
    let page = listing(a, "?limit=2&offset=2");
    assert_eq!((&page["total"], &page["offset"]), (&json!(3), &json!(2)));
    assert_eq!(page["games"].as_array().unwrap().len(), 1);
    assert_eq!(listing(a, "?game=othello")["total"], 1);
    let finished = listing(a, "?finished=true");
    assert_eq!(finished["total"], 1, "{finished}");
    assert_eq!(finished["games"][0]["id"], first);
    assert_eq!(finished["games"][0]["result"], "1-0");
    assert_eq!(listing(a, "?finished=false")["total"], 2);
    let by_player = listing(a, "?player=random");
    assert_eq!(by_player["total"], 1);
    assert_eq!(by_player["games"][0]["id"], second);
    for (query, needle) in [
        ("?limit=0", "limit 0: expected 1-200"),
        ("?limit=x", "limit"),
        ("?colour=black", "unknown field"),
        (
            "?game=chess",
            "game \"chess\": expected checkers or othello",
        ),
        ("?finished=maybe", "finished"),
    ] {
        let e = error(a, "GET", &format!("/api/games{query}"), "", 400);
        assert!(e.contains(needle), "{query}: {e}");
    }
    // A deleted game is gone from memory and the archive alike.
    let (status, _) = request(a, "DELETE", &format!("/api/games/{second}"), "");
    assert_eq!(status, 204);
    assert_eq!(listing(a, "")["total"], 2);
    let e = error(a, "GET", &format!("/api/games/{second}"), "", 404);
    assert!(e.contains("deleted"), "{e}");
}

#[test]
fn a_damaged_or_newer_database_is_refused_and_left_as_it_was() {
    let dir = ScratchDir::new("archive-refused");
    let damaged = dir.0.join("damaged.sqlite");
    let junk: Vec<u8> = b"not a database, but a file someone cares about\n"
        .repeat(100)
        .to_vec();
    std::fs::write(&damaged, &junk).unwrap();
    let e = in_process(&damaged)
        .err()
        .expect("a damaged file is refused");
    assert!(e.contains("is not a sound games database"), "{e}");
    assert_eq!(std::fs::read(&damaged).unwrap(), junk, "left as it was");

    let newer = dir.0.join("newer.sqlite");
    {
        let conn = rusqlite::Connection::open(&newer).unwrap();
        conn.execute_batch("CREATE TABLE games (id INTEGER); PRAGMA user_version = 99;")
            .unwrap();
    }
    let bytes = std::fs::read(&newer).unwrap();
    let e = in_process(&newer).err().expect("a newer file is refused");
    assert!(
        e.contains("schema version 99, newer than this program's 4"),
        "{e}"
    );
    assert_eq!(std::fs::read(&newer).unwrap(), bytes, "left as it was");

    // The program says so in one line and stops.
    let out = program()
        .args(["gui", "--port", "0", "--archive"])
        .arg(&damaged)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.starts_with("error: ") && text.contains("not a sound games database"),
        "{text}"
    );
    assert_eq!(text.trim_end().lines().count(), 1, "{text}");
}
