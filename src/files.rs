//! Files written so that a killed run never leaves one half-written.

use std::io::Write;
use std::path::{Path, PathBuf};

/// An I/O failure on a named file: `cannot read runs/x/metrics.jsonl: ...`.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", path.display())]
pub struct FileError {
    action: &'static str,
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

/// Names an I/O failure to `action` (read, write, open, ...) `path`.
pub fn file_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> FileError + 'a {
    move |source| FileError {
        action,
        path: path.to_owned(),
        source,
    }
}

/// The program's data folder (endgame databases, the browser's games):
/// `$XDG_DATA_HOME/checkers-zero`, else `~/.local/share/checkers-zero` (on Windows
/// `%APPDATA%\checkers-zero`).
pub fn data_home() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .or_else(|| std::env::var_os("APPDATA").map(PathBuf::from))?;
    Some(base.join("checkers-zero"))
}

/// FNV-1a, 64-bit: enough to tell a damaged file from a sound one, or one model file from
/// another (a run's lineage).
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The file in a training run's folder that holds its learning curve, played afterwards
/// from the networks the run kept (`train::alphazero::curve`; `plot` and the dashboard draw it).
pub const CURVE_FILE: &str = "curve.jsonl";

/// The complete lines of a JSON-lines file as JSON values: a last line without its newline
/// is one a writer is still appending, and is left out, as are lines that are not JSON.
pub fn complete_json_lines(text: &str) -> Vec<serde_json::Value> {
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    complete
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it over `path`.
/// The temporary is locked while it is written, so the temporaries of writers that were
/// killed mid-write (`.NAME.tmpPID`, unlocked once their process is gone) are removed first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a file path", path.display()),
        )
    })?;
    let prefix = format!(".{}.tmp", name.to_string_lossy());
    remove_abandoned(dir, &prefix);
    let tmp = dir.join(format!("{prefix}{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        // A lock another process cannot take tells it this temporary is being written.
        let _ = f.try_lock();
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes the temporaries in `dir` named `prefix` + a process id that no writer holds
/// locked (best effort: one that cannot be opened or removed stays).
fn remove_abandoned(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let is_temp = name.to_str().is_some_and(|n| {
            n.strip_prefix(prefix)
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        });
        let abandoned =
            is_temp && std::fs::File::open(entry.path()).is_ok_and(|f| f.try_lock().is_ok());
        if abandoned {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Removes the temporary files `write_atomic` leaves in `dir` when its process is killed
/// mid-write (`.NAME.tmpPID`); the caller must own the folder, so that none is in use.
pub fn remove_stale_temps(dir: &Path) -> std::io::Result<usize> {
    let mut removed = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_temp = name.starts_with('.')
            && name
                .rsplit_once(".tmp")
                .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if is_temp && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Checks, before long work starts, that `path` can be written when the work is done: its
/// folder exists and takes a new file, and `path` is not a folder.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let fail = |msg: String| Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, msg));
    if path.is_dir() {
        return fail(format!("{} is a folder, not a file", path.display()));
    }
    if !dir.is_dir() {
        return fail(format!("folder {} does not exist", dir.display()));
    }
    let probe = dir.join(format!(".write-probe.tmp{}", std::process::id()));
    std::fs::File::create(&probe)?;
    std::fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_whole_file() {
        let dir = std::env::temp_dir().join(format!("cz-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.txt");
        super::write_atomic(&p, b"first").unwrap();
        super::write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "second");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary left behind"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A writer killed mid-write leaves its temporary, unlocked: the next write of the same
    /// file removes it, but not one a live writer holds locked, nor other files' temporaries.
    #[test]
    fn temporaries_of_killed_writers_are_removed() {
        let dir = std::env::temp_dir().join(format!("cz-files-k-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stale = dir.join(".games.pdn.tmp4000001");
        let live = dir.join(".games.pdn.tmp4000002");
        let other = dir.join(".other.pdn.tmp4000003");
        for p in [&stale, &live, &other] {
            std::fs::write(p, "half a game").unwrap();
        }
        let writer = std::fs::File::open(&live).unwrap();
        writer.lock().unwrap();
        super::write_atomic(&dir.join("games.pdn"), b"[Event]").unwrap();
        assert!(!stale.exists() && live.exists() && other.exists());
        drop(writer);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writability_is_checked_before_the_work() {
        let dir = std::env::temp_dir().join(format!("cz-files-w-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(super::check_writable(&dir.join("games.pdn")).is_ok());
        let e = super::check_writable(&dir.join("missing/games.pdn")).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert!(
            super::check_writable(&dir).is_err(),
            "a folder is not a file"
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no probe left");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
