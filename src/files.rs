//! Files written so that a killed run never leaves one half-written.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it over `path`.
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
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
