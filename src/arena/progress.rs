//! How far a series of games is, on stderr: a bar on a terminal, a line a minute in a log.

use super::stats::Tally;
use crate::progress::progress;
use indicatif::{HumanDuration, ProgressBar};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a series in a log (stderr not a terminal) says how far it is.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// A series' progress on stderr. On a terminal, a bar; in a log, where no bar is drawn (a
/// match run under nohup), a line at most every `LOG_EVERY` and at the end, with the first
/// agent's score so far.
pub(super) struct Progress {
    bar: ProgressBar,
    log: Option<Mutex<Logged>>,
    label: String,
    total: usize,
}

struct Logged {
    /// This process's start and its games so far (the ETA's base; a journal's earlier games
    /// were played by another process).
    start: Instant,
    played: usize,
    last: Instant,
    tally: Tally,
}

impl Progress {
    pub(super) fn new(show: bool, total: usize, earlier: Tally, label: String) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = progress(
            total as u64,
            earlier.games() as u64,
            "games",
            show && terminal,
        );
        bar.set_message(label.clone());
        let log = (show && !terminal).then(|| {
            Mutex::new(Logged {
                start: Instant::now(),
                played: 0,
                last: Instant::now(),
                tally: earlier,
            })
        });
        Progress {
            bar,
            log,
            label,
            total,
        }
    }

    /// A game ended with the first agent scoring `score`.
    pub(super) fn game_done(&self, score: f64) {
        self.bar.inc(1);
        let Some(log) = &self.log else { return };
        let mut l = log.lock().unwrap_or_else(|e| e.into_inner());
        l.tally.add(score);
        l.played += 1;
        let games = l.tally.games() as usize;
        if games < self.total && l.last.elapsed() < LOG_EVERY {
            return;
        }
        l.last = Instant::now();
        let left = match self.total.saturating_sub(games) {
            0 => String::new(),
            n => {
                let each = l.start.elapsed().div_f64(l.played as f64);
                format!(", {} left", HumanDuration(each.mul_f64(n as f64)))
            }
        };
        eprintln!(
            "{}: {games}/{} games, {}{left}",
            self.label,
            self.total,
            l.tally.summary()
        );
    }

    /// Takes the bar off the terminal.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
