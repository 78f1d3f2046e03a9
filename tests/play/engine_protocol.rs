//! A scripted session with the real binary's `engine` subcommand, one command at a time:
//! each reply is read before the next command is sent, as a GUI or script would, which
//! also checks that every reply is flushed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// Long enough for a depth-4 search on a slow CI machine; a missing flush fails instead of
/// hanging the test run.
const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// What "at once" means for `stop`, `quit` and `isready` during a search: far above what
/// they take (milliseconds), yet far below the searches they interrupt (unbounded).
const PROMPT: Duration = Duration::from_secs(5);

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

const BIN: &str = env!("CARGO_BIN_EXE_checkers-zero");

/// `checkers-zero ARGS` with its address space capped (KiB) by the shell, so that a large
/// allocation fails on any machine, however much memory it has.
#[cfg(unix)]
fn with_memory_cap(kib: u64, args: &[&str]) -> Command {
    let mut command = crate::common::without_installed_databases_in(Command::new("sh"));
    command
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args);
    command
}

impl Engine {
    fn start() -> Engine {
        let mut command = crate::common::program();
        command.arg("engine");
        Engine::spawn(command)
    }

    fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start checkers-zero engine");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").expect("write to the engine");
        self.stdin.flush().expect("flush to the engine");
    }

    fn reply(&self, after: &str) -> String {
        self.reply_within(after, REPLY_TIMEOUT)
    }

    /// The next line written, `info` lines included.
    fn line_within(&self, after: &str, timeout: Duration) -> String {
        self.lines
            .recv_timeout(timeout)
            .unwrap_or_else(|e| panic!("no reply to {after:?} within {timeout:?}: {e}"))
    }

    /// The next line that is not an `info` line: a running search reports at any time.
    fn reply_within(&self, after: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.line_within(after, left);
            if !line.starts_with("info ") {
                return line;
            }
        }
    }

    /// Asserts that nothing but `info` lines is written for `quiet` (a search still
    /// running).
    fn searching_for(&self, quiet: Duration, after: &str) {
        let deadline = Instant::now() + quiet;
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            assert!(
                line.starts_with("info "),
                "{after:?}: expected no reply yet, got {line:?}"
            );
        }
    }

    /// Sends `stop` and returns the running search's move, which must come promptly.
    fn stop(&mut self) -> String {
        self.send("stop");
        let line = self.reply_within("stop", PROMPT);
        let mv = line.strip_prefix("bestmove ");
        mv.unwrap_or_else(|| panic!("after stop: {line:?}"))
            .to_string()
    }

    /// Waits (boundedly) for the process to end.
    fn exits_within(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the engine") {
                return status;
            }
            if start.elapsed() > timeout {
                let _ = self.child.kill();
                panic!("the engine did not end within {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends a command that has a one-line reply and returns it.
    fn ask(&mut self, command: &str) -> String {
        self.send(command);
        self.reply(command)
    }

    /// Sends `go ...` and returns its `info` lines and the move after `bestmove`.
    fn go(&mut self, command: &str) -> (Vec<String>, String) {
        self.send(command);
        let mut info = Vec::new();
        loop {
            let line = self.line_within(command, REPLY_TIMEOUT);
            match line.strip_prefix("bestmove ") {
                Some(mv) => return (info, mv.to_string()),
                None if line.starts_with("info ") => info.push(line),
                None => panic!("{command}: expected info or bestmove, got {line:?}"),
            }
        }
    }
}

/// A failed test must not leave an engine searching forever.
impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn words(line: &str) -> Vec<&str> {
    let mut w: Vec<&str> = line.split_whitespace().collect();
    w.sort_unstable();
    w
}

#[test]
fn scripted_session() {
    let mut e = Engine::start();
    assert_eq!(e.ask("isready"), "readyok");

    assert_eq!(e.ask("position startpos moves 11-15 23-19"), "ok");
    let legal = e.ask("legal");
    assert_eq!(
        words(&legal),
        words("legal 7-11 8-11 9-13 9-14 10-14 12-16 15-18")
    );

    let (info, best) = e.go("go depth 4");
    assert!(info.iter().any(|l| l.contains("depth 4")), "{info:?}");
    assert!(
        words(&legal).contains(&best.as_str()),
        "{best} is not in {legal}"
    );

    let reply = e.ask("position startpos moves 11-15 22-18 9-14");
    assert!(
        reply.starts_with("error ") && reply.contains("capture is compulsory: 15x22 is available"),
        "{reply}"
    );
    assert_eq!(
        e.ask("fen"),
        "fen B:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
    );

    assert_eq!(
        e.ask("setoption name depth value 3"),
        "ok agent alphabeta:depth=3 seed 0"
    );
    assert!(
        e.ask("setoption name depth value banana")
            .starts_with("error alphabeta option depth: expected a search depth")
    );
    assert_eq!(
        e.ask("setoption name agent value random"),
        "ok agent random seed 0"
    );
    let (info, best) = e.go("go");
    assert!(info.is_empty(), "random has no analysis: {info:?}");
    assert!(
        words(&legal).contains(&best.as_str()),
        "{best} is not in {legal}"
    );

    for garbage in [
        "flibbertigibbet",
        "go depth -3",
        "position fen Z",
        "setoption name",
        "\u{1b}[A",
    ] {
        let reply = e.ask(garbage);
        assert!(reply.starts_with("error "), "{garbage:?} got {reply:?}");
    }
    e.send("");
    assert_eq!(e.ask("isready"), "readyok", "a blank line gets no reply");

    e.send("quit");
    let status = e.child.wait().expect("the engine exits");
    assert!(status.success(), "{status}");
    assert!(
        e.lines.recv_timeout(REPLY_TIMEOUT).is_err(),
        "nothing after quit"
    );
}

#[test]
fn the_az_agent_plays_the_built_in_network_or_a_named_model() {
    let mut e = Engine::start();
    assert_eq!(e.ask("setoption name agent value az"), "ok agent az seed 0");
    assert_eq!(
        e.ask("setoption name searches value 16"),
        "ok agent az:searches=16 seed 0"
    );
    assert_eq!(e.ask("position startpos moves 11-15 23-19"), "ok");
    let legal = e.ask("legal");
    let (_, best) = e.go("go");
    assert!(
        words(&legal).contains(&best.as_str()),
        "{best} is not in {legal}"
    );
    e.send("go infinite");
    e.searching_for(Duration::from_millis(300), "go infinite");
    let best = e.stop();
    assert!(
        words(&legal).contains(&best.as_str()),
        "{best} is not in {legal}"
    );
    let reply = e.ask("setoption name model value /nonexistent/net.ckpt");
    assert!(
        reply.starts_with("error ") && reply.contains("no model file at /nonexistent/net.ckpt"),
        "{reply}"
    );
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

/// A table size in range that memory cannot hold is a one-line error, in the engine (which
/// keeps its agent) and on the command line, never an abort.
#[cfg(unix)]
#[test]
fn a_table_too_big_for_memory_is_an_error() {
    // 2 GiB of address space: plenty for the program, not for a 64 GiB table.
    const CAP_KIB: u64 = 2 << 20;
    let mut e = Engine::spawn(with_memory_cap(CAP_KIB, &["engine"]));
    let expected = "error alphabeta hash=65536: could not allocate 65536 MiB for the \
                    transposition table";
    assert_eq!(e.ask("setoption name hash value 65536"), expected);
    assert_eq!(
        e.ask("setoption name agent value alphabeta:hash=65536"),
        expected
    );
    assert_eq!(e.ask("isready"), "readyok");
    assert_eq!(
        e.ask("setoption name depth value 3"),
        "ok agent alphabeta:depth=3 seed 0",
        "the old agent stays"
    );
    e.send("quit");
    assert!(e.child.wait().unwrap().success());

    for args in [
        &["match", "alphabeta:hash=65536", "random", "--games", "1"][..],
        &["play", "--agent", "alphabeta:hash=65536"],
    ] {
        let out = with_memory_cap(CAP_KIB, args)
            .stdin(Stdio::null())
            .output()
            .expect("run checkers-zero");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!("error: {}", &expected["error ".len()..]),
            "{args:?}"
        );
    }
}

/// `go infinite` searches until `stop`, for every kind of agent (random too: its move waits
/// for `stop`); `isready` is answered during the search, other commands after its bestmove.
#[test]
fn go_infinite_until_stop() {
    let mut e = Engine::start();
    assert_eq!(e.ask("position startpos moves 11-15 23-19"), "ok");
    let legal = e.ask("legal");
    for agent in ["alphabeta", "mcts", "random"] {
        let reply = e.ask(&format!("setoption name agent value {agent}"));
        assert!(reply.starts_with("ok agent "), "{reply}");
        e.send("go infinite");
        e.searching_for(Duration::from_millis(300), "go infinite");
        e.send("isready");
        assert_eq!(e.reply_within("isready", PROMPT), "readyok", "{agent}");
        e.send("fen");
        e.searching_for(Duration::from_millis(300), "fen during a search");
        let best = e.stop();
        assert!(
            words(&legal).contains(&best.as_str()),
            "{agent}: {best} is not in {legal}"
        );
        assert!(e.reply("fen").starts_with("fen B:"), "{agent}");
    }
    // Nothing to stop: no reply, and the session goes on.
    e.send("stop");
    assert_eq!(e.ask("isready"), "readyok");
    e.send("quit");
    assert!(e.exits_within(PROMPT).success());
}

/// A search reports as it goes: `go infinite` writes `info` lines before any `stop`, for
/// alpha-beta (a line each depth) and for the tree searches (a line every 200 ms).
#[test]
fn go_infinite_reports_while_it_searches() {
    let mut e = Engine::start();
    assert_eq!(e.ask("position startpos moves 11-15 23-19"), "ok");
    for agent in ["alphabeta", "mcts", "az"] {
        let reply = e.ask(&format!("setoption name agent value {agent}"));
        assert!(reply.starts_with("ok agent "), "{reply}");
        e.send("go infinite");
        for _ in 0..2 {
            let line = e.line_within("go infinite", REPLY_TIMEOUT);
            assert!(line.starts_with("info value "), "{agent}: {line:?}");
        }
        e.stop();
    }
    e.send("quit");
    assert!(e.exits_within(PROMPT).success());
}

/// `quit` during a search that would never end stops it and ends the session at once; a
/// movetime too large for the clock is no panic.
#[test]
fn quit_during_a_long_search() {
    let mut e = Engine::start();
    e.send("go movetime 18446744073709551615");
    e.send("isready");
    assert_eq!(e.reply_within("isready", PROMPT), "readyok");
    let best = e.stop();
    assert!(!best.is_empty());
    e.send("go movetime 18446744073709551615");
    e.searching_for(Duration::from_millis(300), "go movetime");
    e.send("quit");
    assert!(e.exits_within(PROMPT).success());
}
