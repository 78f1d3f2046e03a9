//! How a long-running command is, for a container's health check. Where
//! `CHECKERS_ZERO_HEALTH_FILE` names a file, `gui`, `learner`, `actor` and `train` rewrite it
//! every few seconds with their state (from a probe of their own, such as the server
//! answering, and the trouble others report, such as Redis being down); `checkers-zero
//! health` reads it and fails when the file is stale or names trouble.

use crate::files::write_atomic;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The variable that names the file.
pub const FILE_VARIABLE: &str = "CHECKERS_ZERO_HEALTH_FILE";
/// How often the state is written.
const EVERY: Duration = Duration::from_secs(5);
/// A file older than this belongs to a process that stopped or hangs.
pub const STALE: Duration = Duration::from_secs(60);

/// What is wrong now, as others report it (`None`: nothing).
static TROUBLE: Mutex<Option<String>> = Mutex::new(None);

/// Reports trouble (Redis unreachable): the state says so until [`recovered`].
pub fn trouble(why: impl Into<String>) {
    *TROUBLE.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.into());
}

/// The trouble reported is over.
pub fn recovered() {
    *TROUBLE.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// A command's own check of itself: `Err(why)` when it is not well.
pub type Probe = Box<dyn Fn() -> Result<(), String> + Send>;

/// The file's content.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct State {
    pub command: String,
    pub pid: u32,
    /// When it was written, in seconds since 1970.
    pub updated: u64,
    /// What is wrong, if anything.
    pub trouble: Option<String>,
}

/// Starts keeping the health file of `command` fresh for the rest of the process, where
/// the variable names one; `probe` (if any) runs before each write.
pub fn start(command: &str, probe: Option<Probe>) {
    let Some(path) = std::env::var_os(FILE_VARIABLE).map(PathBuf::from) else {
        return;
    };
    let command = command.to_string();
    std::thread::spawn(move || {
        loop {
            let reported = TROUBLE.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let trouble = probe.as_ref().and_then(|p| p().err()).or(reported);
            let state = State {
                command: command.clone(),
                pid: std::process::id(),
                updated: seconds(SystemTime::now()),
                trouble,
            };
            let text = serde_json::to_string(&state).expect("plain data");
            // A file that cannot be written makes the check fail, which says why.
            let _ = write_atomic(&path, text.as_bytes());
            std::thread::sleep(EVERY);
        }
    });
}

fn seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Reads the file at `path`: `Ok` with a line on the command's health, `Err(why)` where it
/// is missing, stale or names trouble.
pub fn check(path: &Path, now: SystemTime) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e} (no long-running command here has written it)",
            path.display()
        )
    })?;
    let state: State = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a health file ({e})", path.display()))?;
    let age = seconds(now).saturating_sub(state.updated);
    let who = format!("{} (pid {})", state.command, state.pid);
    if age > STALE.as_secs() {
        return Err(format!(
            "{who}: last heard {age} s ago (it stopped or hangs)"
        ));
    }
    match state.trouble {
        Some(why) => Err(format!("{who}: {why}")),
        None => Ok(format!("{who}: well, {age} s ago")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, state: &State) -> PathBuf {
        let path = dir.join("health");
        std::fs::write(&path, serde_json::to_string(state).unwrap()).unwrap();
        path
    }

    #[test]
    fn a_fresh_file_is_well_a_stale_or_troubled_or_missing_one_is_not() {
        let dir = std::env::temp_dir().join(format!("cz-health-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let mut state = State {
            command: "learner".into(),
            pid: 7,
            updated: 1_000_000 - 3,
            trouble: None,
        };
        let path = write(&dir, &state);
        assert_eq!(
            check(&path, now),
            Ok("learner (pid 7): well, 3 s ago".into())
        );
        state.updated = 1_000_000 - 61;
        let path = write(&dir, &state);
        assert!(check(&path, now).unwrap_err().contains("61 s ago"));
        state.updated = 1_000_000;
        state.trouble = Some("redis redis://redis:6379: connection refused".into());
        let path = write(&dir, &state);
        assert_eq!(
            check(&path, now),
            Err("learner (pid 7): redis redis://redis:6379: connection refused".into())
        );
        std::fs::write(&path, "{").unwrap();
        assert!(check(&path, now).unwrap_err().contains("not a health file"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            check(&path, now)
                .unwrap_err()
                .contains("no long-running command")
        );
    }
}
