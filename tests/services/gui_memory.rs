//! The server's memory stays bounded with many games against `az` open and the computer
//! thinking in several at once: only the searches running and the few games kept hold an
//! agent (its search tree and evaluation cache), each held to the server's limits. The
//! bound is docs/gui.md's: the server's own memory, and for each agent held its tree limit
//! and its cache at most.

use super::gui_api::ok;
use super::gui_archive::serve_with;
use crate::common::ScratchDir;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The server with the built-in network loaded and its games' records, before any agent:
/// docs/gui.md's figure.
const SERVER_MIB: u64 = 200;
/// The most an `az` evaluation cache entry holds, with the table's own overhead.
const CACHE_ENTRY_BYTES: u64 = 400;

/// The peak resident memory of process `pid` so far (Linux's VmHWM).
fn peak_resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib << 10
}

#[test]
fn many_games_against_az_stay_within_the_stated_memory() {
    let (kept, thinking, tree_mib) = (2u64, 2u64, 64u64);
    let cache = 131_072u64; // az's default, which this server allows
    let bound =
        (SERVER_MIB << 20) + (kept + thinking) * ((tree_mib << 20) + cache * CACHE_ENTRY_BYTES);
    let dir = ScratchDir::new("memory");
    let (mut server, a) = serve_with(
        &dir.0.join("games.sqlite"),
        &[
            "--kept-agents",
            &kept.to_string(),
            "--max-thinking",
            &thinking.to_string(),
            "--max-tree-mb",
            &tree_mib.to_string(),
        ],
    );
    // 24 games whose computer thinks two seconds (the Strong level) before its first move:
    // were every game to keep its agent, each would hold a tree and a cache of 40-150 MB.
    let games: Vec<String> = (0..24)
        .map(|_| {
            let s = ok(a, "POST", "/api/games", json!({"black": "az:time=2000"}));
            format!("/api/games/{}", s["id"])
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(300);
    for g in &games {
        loop {
            let s = ok(a, "GET", g, Value::Null);
            if s["ply"] == 1 {
                break;
            }
            assert!(Instant::now() < deadline, "the computer has not moved: {s}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    let peak = peak_resident(server.id());
    server.kill().unwrap();
    server.wait().unwrap();
    eprintln!(
        "peak resident memory: {} MiB (bound {} MiB)",
        peak >> 20,
        bound >> 20
    );
    assert!(
        peak < bound,
        "peak resident memory {} MiB, over the bound of {} MiB",
        peak >> 20,
        bound >> 20
    );
}
