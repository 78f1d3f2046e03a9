//! A training run's folder: owned by one process at a time, with its metrics log, and the
//! repairs a run owes to a predecessor that was killed (temporary files, metrics lines of an
//! iteration that never reached its checkpoint).

use super::errors::{TrainError, io_error as io};
use crate::files::remove_stale_temps;
use serde::Serialize;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The lock file of a run folder; it holds the owner's pid while the owner runs.
pub const LOCK_FILE: &str = "run.lock";
const METRICS_FILE: &str = "metrics.jsonl";

/// A run folder claimed by this process: `best.ckpt` (the network to play), `state.ckpt` (to
/// resume), `metrics.jsonl` (one JSON object per line, appended) and the lock.
pub struct RunDir {
    pub dir: PathBuf,
    /// Opened on the first line logged, so that trimming never races an open handle.
    metrics: Option<File>,
    _lock: RunLock,
    /// The pid in a lock file left by a process that died without releasing it.
    pub taken_over_from: Option<String>,
}

/// Where a run writes and whether it continues an earlier one.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The run folder.
    pub dir: PathBuf,
    /// Continue the run in `dir` from its `state.ckpt`, whose configuration replaces the
    /// given one.
    pub resume: bool,
    pub progress: bool,
}

/// Claims the run folder of `opts` for a classic learner, whose state lives in `state.ckpt`: a
/// new run's state comes from `new` (which validates its settings before the folder is
/// made); a resumed run's from `load`, and metrics lines past its progress (`key`, as
/// counted by `done`) are dropped.
pub fn open_run<S>(
    opts: &RunOptions,
    key: &str,
    new: impl FnOnce() -> Result<S, TrainError>,
    load: impl FnOnce(&Path) -> Result<S, TrainError>,
    done: impl FnOnce(&S) -> u64,
) -> Result<(RunDir, S), TrainError> {
    if opts.resume {
        let mut dir = RunDir::resume(&opts.dir)?;
        let state = load(&dir.require_state()?)?;
        dir.resume_metrics_at(key, done(&state))?;
        Ok((dir, state))
    } else {
        let state = new()?;
        Ok((RunDir::create(&opts.dir, &["state.ckpt"])?, state))
    }
}

impl RunDir {
    /// Claims `dir` for a new run, creating it; refuses a folder that already holds a run.
    /// `run_files` are the files whose presence means a run was started there.
    pub fn create(dir: &Path, run_files: &[&str]) -> Result<RunDir, TrainError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut run = RunDir::claim(dir)?;
        if let Some(f) = run_files.iter().find(|f| dir.join(f).exists()) {
            return Err(TrainError::Config(format!(
                "{} already holds a run (it has {f}); continue it with --resume {0}, or choose \
                 another --out",
                dir.display()
            )));
        }
        // Lines a killed first iteration logged before any checkpoint: that run starts over.
        run.keep_metrics(|_| false)?;
        Ok(run)
    }

    /// Claims the existing run folder `dir` to continue the run in it.
    pub fn resume(dir: &Path) -> Result<RunDir, TrainError> {
        if !dir.is_dir() {
            return Err(TrainError::Config(format!(
                "--resume {}: no such run folder (expected the folder a trainer wrote, holding \
                 state.ckpt)",
                dir.display()
            )));
        }
        RunDir::claim(dir)
    }

    /// Takes the lock, then removes what interrupted writes left behind: nobody else writes
    /// here while we hold the lock, so every temporary file is stale.
    fn claim(dir: &Path) -> Result<RunDir, TrainError> {
        let (lock, taken_over_from) = RunLock::acquire(dir)?;
        if let Some(pid) = &taken_over_from {
            eprintln!(
                "note: {} was left locked by process {pid}, which is gone; taking it over",
                dir.display()
            );
        }
        for sub in [dir.to_owned(), dir.join("models"), dir.join("games")] {
            if sub.is_dir() {
                remove_stale_temps(&sub).map_err(io(&sub))?;
            }
        }
        Ok(RunDir {
            dir: dir.to_owned(),
            metrics: None,
            _lock: lock,
            taken_over_from,
        })
    }

    /// The run's `state.ckpt`, which a resumed run needs.
    pub fn require_state(&self) -> Result<PathBuf, TrainError> {
        let path = self.state();
        if path.is_file() {
            return Ok(path);
        }
        Err(TrainError::Config(format!(
            "{}: no state.ckpt to resume from (the run stopped before its first checkpoint); \
             start it again with --out {0}",
            self.dir.display()
        )))
    }

    pub fn best(&self) -> PathBuf {
        self.dir.join("best.ckpt")
    }

    pub fn state(&self) -> PathBuf {
        self.dir.join("state.ckpt")
    }

    fn metrics_path(&self) -> PathBuf {
        self.dir.join(METRICS_FILE)
    }

    /// Keeps only the metrics lines of work the checkpoint holds: those whose `key` (the
    /// trainer's progress counter: iteration, games, generation) is at most `done`. A trainer
    /// logs a step's line before the checkpoint that marks the step done, so a kill between
    /// the two leaves a line that the resumed run writes again; this drops it. Returns the
    /// last line kept, whose running totals the resumed run carries on from.
    pub fn resume_metrics_at(
        &mut self,
        key: &str,
        done: u64,
    ) -> Result<Option<serde_json::Value>, TrainError> {
        self.keep_metrics(|record| record[key].as_u64().is_some_and(|n| n <= done))
    }

    /// Rewrites metrics.jsonl with the lines `keep` accepts (a torn last line is never kept);
    /// returns the last line kept.
    pub(super) fn keep_metrics(
        &mut self,
        keep: impl Fn(&serde_json::Value) -> bool,
    ) -> Result<Option<serde_json::Value>, TrainError> {
        let path = self.metrics_path();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
        };
        let mut last = None;
        let mut kept = String::new();
        for line in text.lines() {
            if let Ok(record) = serde_json::from_str::<serde_json::Value>(line)
                && keep(&record)
            {
                kept.push_str(line);
                kept.push('\n');
                last = Some(record);
            }
        }
        if kept != text {
            self.metrics = None;
            crate::files::write_atomic(&path, kept.as_bytes()).map_err(io(&path))?;
        }
        Ok(last)
    }

    /// Logs a trainer's report with a `"trainer"` key naming the trainer.
    pub fn log_report(&mut self, trainer: &str, report: &impl Serialize) -> Result<(), TrainError> {
        let mut record = serde_json::to_value(report).expect("plain data");
        record["trainer"] = trainer.into();
        self.log(&record)
    }

    /// Appends one line to metrics.jsonl and flushes it to the disk, so that the line is
    /// there before the checkpoint that follows it.
    pub fn log(&mut self, record: &impl Serialize) -> Result<(), TrainError> {
        let path = self.metrics_path();
        if self.metrics.is_none() {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(io(&path))?;
            self.metrics = Some(file);
        }
        let file = self.metrics.as_mut().expect("opened above");
        let line = serde_json::to_string(record).expect("metrics are plain data");
        writeln!(file, "{line}")
            .and_then(|()| file.sync_data())
            .map_err(io(&path))
    }
}

/// An advisory lock on `run.lock` (flock on Unix, LockFileEx on Windows). The operating
/// system releases it when the owner exits, however it exits, so a lock left by a killed
/// process is free to take; the pid inside only names the owner in messages.
struct RunLock {
    file: File,
}

impl RunLock {
    /// The lock, and the pid a dead owner left in the file, if any.
    fn acquire(dir: &Path) -> Result<(RunLock, Option<String>), TrainError> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))?;
        // The dashboard probes the lock with a shared lock for an instant: try a few times.
        let mut locked = file.try_lock();
        for _ in 0..5 {
            if !matches!(locked, Err(TryLockError::WouldBlock)) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            locked = file.try_lock();
        }
        let mut owner = String::new();
        // On Windows a locked file cannot be read; the message then names no pid.
        let _ = file.read_to_string(&mut owner);
        let owner = owner.trim().chars().take(20).collect::<String>();
        match locked {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let who = if owner.is_empty() {
                    "another process".to_string()
                } else {
                    format!("process {owner}")
                };
                return Err(TrainError::InUse(format!(
                    "{} is in use by {who} (lock file {}); wait for it to end or stop it first",
                    dir.display(),
                    path.display()
                )));
            }
            Err(TryLockError::Error(e)) => return Err(io(&path)(e)),
        }
        let write = |file: &mut File| {
            file.set_len(0)?;
            (&*file).write_all(format!("{}\n", std::process::id()).as_bytes())
        };
        write(&mut file).map_err(io(&path))?;
        Ok((RunLock { file }, (!owner.is_empty()).then_some(owner)))
    }
}

impl Drop for RunLock {
    /// An empty lock file means a clean exit; the lock itself goes with the handle.
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cz-rundir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_folder_has_one_owner_and_a_dead_owners_lock_is_taken_over() {
        let dir = scratch("lock");
        let first = RunDir::create(&dir, &["state.ckpt"]).unwrap();
        assert_eq!(first.taken_over_from, None);
        let e = RunDir::resume(&dir).err().expect("second owner refused");
        let text = e.to_string();
        assert!(
            text.contains(&format!("process {}", std::process::id())) && text.contains("in use"),
            "{text}"
        );
        drop(first);
        assert_eq!(std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap(), "");
        // A process killed while it held the lock leaves its pid but no lock behind.
        std::fs::write(dir.join(LOCK_FILE), "4194999\n").unwrap();
        let again = RunDir::resume(&dir).unwrap();
        assert_eq!(again.taken_over_from.as_deref(), Some("4194999"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn claiming_removes_stale_temporaries_and_refuses_an_existing_run() {
        let dir = scratch("temps");
        std::fs::create_dir_all(dir.join("models")).unwrap();
        for f in [
            ".state.ckpt.tmp123",
            "models/.iter-0003.ckpt.tmp99",
            "keep.txt",
        ] {
            std::fs::write(dir.join(f), "x").unwrap();
        }
        let run = RunDir::resume(&dir).unwrap();
        assert!(!dir.join(".state.ckpt.tmp123").exists());
        assert!(!dir.join("models/.iter-0003.ckpt.tmp99").exists());
        assert!(dir.join("keep.txt").exists());
        drop(run);
        std::fs::write(dir.join("state.ckpt"), "x").unwrap();
        let e = RunDir::create(&dir, &["config.json", "state.ckpt"])
            .err()
            .unwrap();
        assert!(e.to_string().contains("already holds a run"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resumed_metrics_keep_the_checkpointed_lines_only() {
        let dir = scratch("metrics");
        let mut run = RunDir::create(&dir, &[]).unwrap();
        for i in 1..=4u64 {
            run.log(&serde_json::json!({ "iteration": i })).unwrap();
        }
        drop(run);
        // A kill in the middle of a line leaves it torn.
        let path = dir.join(METRICS_FILE);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text += "{\"iterat";
        std::fs::write(&path, text).unwrap();
        let mut run = RunDir::resume(&dir).unwrap();
        run.resume_metrics_at("iteration", 2).unwrap();
        run.log(&serde_json::json!({ "iteration": 3 })).unwrap();
        let lines: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(
            lines,
            [
                "{\"iteration\":1}",
                "{\"iteration\":2}",
                "{\"iteration\":3}"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
