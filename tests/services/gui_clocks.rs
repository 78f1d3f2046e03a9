//! Games with a time control through the API: both clocks in the state and the record, the
//! time a move takes off and the increment it adds, a flag fall that ends the game with
//! nobody asking, and the computer moving within its own clock.

use crate::gui_api::{error, ok};
use checkers_zero::gui::{GuiOptions, Server};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn start() -> Server {
    Server::start(&GuiOptions {
        models: vec![PathBuf::from("models")],
        ..GuiOptions::at("127.0.0.1:0".parse().unwrap())
    })
    .unwrap()
}

/// The game's state once `done` holds of it, polled (within 30 s).
fn until(a: SocketAddr, game: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = ok(a, "GET", game, Value::Null);
        if done(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "{what}: {s}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn ms(s: &Value, side: &str) -> u64 {
    s["clock"][format!("{side}_ms")].as_u64().unwrap()
}

#[test]
fn a_flag_falls_by_itself_and_loses_the_game_on_time() {
    let server = start();
    let a = server.addr;
    // 1.2 s each and half a second a move, two people at one screen.
    let s = ok(a, "POST", "/api/games", json!({"clock": "0.02+0.5"}));
    let g = format!("/api/games/{}", s["id"]);
    assert_eq!(
        s["clock"],
        json!({"control": "0.02+0.5", "black_ms": 1200, "white_ms": 1200, "running": null})
    );
    // The first move is not timed; it starts White's clock and earns Black its increment.
    std::thread::sleep(Duration::from_millis(300));
    let s = ok(a, "POST", &format!("{g}/move"), json!({"move": "11-15"}));
    assert_eq!(
        (ms(&s, "black"), s["clock"]["running"].as_str()),
        (1700, Some("white"))
    );
    assert!(ms(&s, "white") > 1100, "{s}");
    assert!(
        s["pdn"]
            .as_str()
            .unwrap()
            .contains("[TimeControl \"1.2+0.5\"]"),
        "{s}"
    );
    let t = Instant::now();
    let s = ok(a, "POST", &format!("{g}/move"), json!({"move": "23-19"}));
    let white = ms(&s, "white");
    assert!((1200..=1700).contains(&white), "{s}");
    // Black now waits out its clock: the game ends on time though nobody asks.
    let s = until(a, &g, "the flag fall", |s| !s["result"].is_null());
    assert!(
        t.elapsed() >= Duration::from_millis(1650),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(s["result"]["winner"], "white", "{s}");
    assert_eq!(
        s["result"]["reason"],
        "White wins on time: Black's clock ran out"
    );
    assert_eq!((ms(&s, "black"), ms(&s, "white")), (0, white));
    assert!(s["clock"]["running"].is_null(), "{s}");
    let pdn = s["pdn"].as_str().unwrap();
    for tag in ["[BlackClock \"0:00:00.0\"]", "[Result \"1-0\"]"] {
        assert!(pdn.contains(tag), "{tag} in {pdn}");
    }
    let e = error(a, "POST", &format!("{g}/move"), r#"{"move": "8-11"}"#, 422);
    assert!(e.contains("on time"), "{e}");
    // A clock the server cannot read is refused, and no game is made.
    let e = error(a, "POST", "/api/games", r#"{"clock": "fast"}"#, 400);
    assert_eq!(
        e,
        "clock \"fast\": expected MINUTES+SECONDS such as 3+2 or 10+0 (minutes each, seconds \
         added a move), or none"
    );
    let e = error(a, "POST", "/api/games", r#"{"clock": "0+5"}"#, 400);
    assert!(e.contains("minutes must be above 0"), "{e}");
}

#[test]
fn the_computer_moves_within_its_own_clock() {
    let server = start();
    let a = server.addr;
    // Alpha-beta asked to think a minute a move, on a 6-second clock: the clock decides.
    let agent = "alphabeta:time=60000";
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"white": agent, "clock": "0.1+0"}),
    );
    let g = format!("/api/games/{}", s["id"]);
    ok(a, "POST", &format!("{g}/move"), json!({"move": "11-15"}));
    let t = Instant::now();
    let s = until(a, &g, "the computer's move", |s| s["ply"] == 2);
    // Its share of 6 s over the 30 moves a game is taken to have left: 200 ms.
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let white = ms(&s, "white");
    assert!((5000..6000).contains(&white), "{s}");
    assert_eq!(s["clock"]["running"], "black");
    // Two computers on 3-second clocks play on without either flag falling.
    let s = ok(
        a,
        "POST",
        "/api/games",
        json!({"black": agent, "white": agent, "clock": "0.05+0"}),
    );
    let g = format!("/api/games/{}", s["id"]);
    let s = until(a, &g, "twelve moves", |s| {
        s["ply"].as_u64().unwrap() >= 12 || !s["result"].is_null()
    });
    let reason = s["result"]["reason"].as_str().unwrap_or("");
    assert!(!reason.contains("time"), "{s}");
    assert!(ms(&s, "black") > 0 && ms(&s, "white") > 0, "{s}");
}
