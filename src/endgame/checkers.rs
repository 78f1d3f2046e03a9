//! Checkers' databases as a [`Perfect`] oracle: where to find them, and their values under
//! the 40-move rule.

use super::egdb::{Endgames, Probe, Value};
use super::{Exact, Oracle, Perfect};
use crate::games::Checkers;
use crate::games::checkers::record::FORTY_MOVE_PLIES;
use crate::games::checkers::{Move, Position};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

/// The environment variable naming the default database folder.
pub const EGDB_VAR: &str = "CHECKERS_ZERO_EGDB";

/// The folder a command line names for the whole process (`match --egdb DIR`, or `none`),
/// set once before any agent is built.
static NAMED: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Names the default folder for this process (`None`: no databases); the first call wins.
pub fn name_default_dir(dir: Option<PathBuf>) {
    let _ = NAMED.set(dir);
}

/// The folder used when an agent names none: the one the command line named, else
/// `$CHECKERS_ZERO_EGDB`, else the user's data folder ([`data_dir`]), when it holds a
/// finished build.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(named) = NAMED.get() {
        return named.clone();
    }
    // Unit tests answer alike on every machine, whatever databases it has installed.
    if cfg!(test) {
        return None;
    }
    let dir = std::env::var_os(EGDB_VAR)
        .map(PathBuf::from)
        .or_else(data_dir)?;
    dir.join("egdb.json").is_file().then_some(dir)
}

/// Where `egdb build` puts the databases when no `--out` is given, and where agents look
/// for them: egdb/ in the program's data folder ([`crate::files::data_home`]).
pub fn data_dir() -> Option<PathBuf> {
    crate::files::data_home().map(|d| d.join("egdb"))
}

/// The databases in `dir`, opened once per process and shared (every agent of a match, every
/// self-play worker).
pub fn shared(dir: &Path) -> Result<Arc<Endgames>, super::egdb::EgdbError> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Arc<Endgames>>>> = OnceLock::new();
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut open = OPEN
        .get_or_init(Default::default)
        .lock()
        .expect("egdb lock");
    if let Some(db) = open.get(&key) {
        return Ok(db.clone());
    }
    let db = Arc::new(Endgames::open(dir)?);
    open.insert(key, db.clone());
    Ok(db)
}

/// The oracle of the databases in `dir`.
pub fn oracle(dir: &Path) -> Result<Oracle<Checkers>, super::egdb::EgdbError> {
    Ok(shared(dir)?)
}

/// A probe's value under the 40-move rule with `quiet` plies already played: exact when the
/// distance to conversion fits in the plies left (conversion restarts the count; up to 5
/// pieces no distance reaches 80 plies, with 6 the longest is 82, with 7 kings 77); unknown
/// otherwise, as the count could then draw a won ending.
fn within_rule(probe: Probe, quiet: u32) -> Option<Exact> {
    let left = FORTY_MOVE_PLIES.saturating_sub(quiet);
    (probe.value == Value::Draw || u32::from(probe.distance) <= left).then_some(Exact {
        value: probe.value,
        distance: probe.distance,
    })
}

impl Perfect<Checkers> for Endgames {
    fn exact(&self, pos: &Position, quiet: u32) -> Option<Exact> {
        within_rule(self.probe(pos)?, quiet)
    }

    fn perfect_move(
        &self,
        pos: &Position,
        quiet: u32,
        _stop: Option<&AtomicBool>,
    ) -> Option<(Move, Exact)> {
        let (mv, probe) = self.perfect_move(pos)?;
        Some((mv, within_rule(probe, quiet)?))
    }

    fn describe(&self, pos: &Position, quiet: u32) -> Option<String> {
        let probe = self.probe(pos)?;
        let text = probe.describe(pos.turn());
        Some(match within_rule(probe, quiet) {
            Some(_) => format!("database: {text}"),
            None => format!("database: {text}, beyond the 40-move count"),
        })
    }
}
