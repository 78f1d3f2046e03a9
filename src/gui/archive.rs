//! Every game the server holds, kept in an SQLite database (by default games.sqlite in the
//! program's data folder): a game is written whole (its record with the side lines, players
//! and result) each time it changes, in one transaction, so a server killed at any moment
//! and started again on the same file has every game as it last stood.
//!
//! The schema is versioned (`PRAGMA user_version` counts the migrations applied); a file
//! that is not a sound SQLite database, or one a newer program has migrated further, is
//! refused before anything is written to it.

use super::clock::ClockView;
use super::error::ApiError;
use super::view::{GameView, Players};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The database's file name in the data folder.
pub const FILE_NAME: &str = "games.sqlite";

/// The schema's migrations in order; a database has had the first `user_version` of them.
/// A change to the schema is a new entry at the end, never an edit of one before it.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        game TEXT NOT NULL,
        black TEXT NOT NULL,
        white TEXT NOT NULL,
        black_name TEXT,
        white_name TEXT,
        result TEXT,
        opening TEXT,
        moves INTEGER NOT NULL,
        pdn TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL
    );
    CREATE INDEX games_by_update ON games (updated, id);",
    // The last finished analysis of each of the game's positions: a JSON array.
    "ALTER TABLE games ADD COLUMN analyses TEXT NOT NULL DEFAULT '[]';",
    // The clocks of a game with a time control, as the state's `clock` shows them: JSON.
    "ALTER TABLE games ADD COLUMN clock TEXT;",
    // The archive's count of writes when the game was last written: two changes within one
    // millisecond share an `updated` stamp, so the listing orders by this instead.
    "ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET revision = (SELECT count(*) FROM games AS g
        WHERE g.updated < games.updated OR (g.updated = games.updated AND g.id <= games.id));
    DROP INDEX games_by_update;
    CREATE INDEX games_by_revision ON games (revision);",
];

/// Why the games database cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("cannot create the folder of {}: {source}", path.display())]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{} is not a sound games database ({detail}); it was left as it is: move it away, \
         or give --archive another file",
        path.display()
    )]
    Damaged { path: PathBuf, detail: String },
    #[error(
        "{} has schema version {found}, newer than this program's {known}; it was left as it \
         is: open it with a newer checkers-zero",
        path.display()
    )]
    Newer {
        path: PathBuf,
        found: i64,
        known: usize,
    },
    #[error(
        "{} is in use by another checkers-zero gui: give this one --archive another file, or \
         --no-archive",
        path.display()
    )]
    InUse { path: PathBuf },
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("games database {}: {source}", path.display())]
    Sql {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

/// The games database failed: the server's fault, told in its one line.
impl From<ArchiveError> for ApiError {
    fn from(e: ArchiveError) -> Self {
        ApiError::internal(e.to_string())
    }
}

/// A game as the archive keeps it.
pub struct StoredGame {
    /// `checkers` or `othello`.
    pub game: String,
    pub players: Players,
    pub names: Option<Players>,
    /// The record with its side lines (RAV) and result.
    pub pdn: String,
    /// The analyses kept with it (as the `analysis` events sent them).
    pub analyses: Vec<serde_json::Value>,
    /// Its clocks as they stood when it was last written, in a game with a time control.
    pub clock: Option<ClockView>,
}

/// One game of `GET /api/games`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct GameSummary {
    pub id: u64,
    pub game: String,
    pub players: Players,
    pub names: Option<Players>,
    /// `1-0`, `0-1`, `1/2-1/2`, or none while it goes on.
    pub result: Option<String>,
    pub opening: Option<String>,
    /// Plies played in the game (side lines aside).
    pub moves: u64,
    /// When it was started and last changed, RFC 3339 in UTC.
    pub created: String,
    pub updated: String,
}

/// Which games a listing shows, newest change first.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub game: Option<String>,
    /// A player's spec or name, in part (`az`, `human`, `Tinsley`).
    pub player: Option<String>,
    /// Finished games only (`Some(true)`), unfinished ones only (`Some(false)`).
    pub finished: Option<bool>,
    pub limit: u32,
    pub offset: u64,
}

/// A page of a listing and how many games the filter matches in all.
#[derive(Serialize, Debug)]
pub struct Listing {
    pub total: u64,
    pub offset: u64,
    pub games: Vec<GameSummary>,
}

pub struct Archive {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl Archive {
    /// Opens the database at `path`, made (with its folder) if missing and migrated to this
    /// program's schema; a damaged or newer file is refused and left as it was.
    pub fn open(path: &Path) -> Result<Archive, ArchiveError> {
        let sql = |source| ArchiveError::Sql {
            path: path.to_owned(),
            source,
        };
        make_folder(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(sql)?;
        // Reads only, until the file is known sound: a refused file stays byte for byte.
        let damaged = |detail: &dyn std::fmt::Display| ArchiveError::Damaged {
            path: path.to_owned(),
            detail: detail.to_string(),
        };
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| damaged(&e))?;
        let check: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| damaged(&e))?;
        if check != "ok" {
            return Err(damaged(&check));
        }
        if version > MIGRATIONS.len() as i64 {
            return Err(ArchiveError::Newer {
                path: path.to_owned(),
                found: version,
                known: MIGRATIONS.len(),
            });
        }
        if version > 0 {
            let has_games: bool = conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'games'",
                    [],
                    |r| r.get(0),
                )
                .map_err(sql)?;
            if !has_games {
                return Err(damaged(&format!("version {version} but no games table")));
            }
        }
        // Write-ahead logging: a commit survives the process being killed without a sync
        // per move, and readers do not wait on the writer.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql)?;
        for (i, step) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let batch = format!("BEGIN; {step}; PRAGMA user_version = {}; COMMIT;", i + 1);
            conn.execute_batch(&batch).map_err(sql)?;
        }
        Ok(Archive {
            path: path.to_owned(),
            conn: Mutex::new(conn),
        })
    }

    fn sql(&self, source: rusqlite::Error) -> ArchiveError {
        ArchiveError::Sql {
            path: self.path.clone(),
            source,
        }
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A writer that panicked left no transaction open (each is one statement).
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes the game `view` shows, as it now stands, with its `analyses` (a JSON array).
    pub fn save(&self, view: &GameView, analyses: &str) -> Result<(), ArchiveError> {
        let now = crate::dates::rfc3339_now();
        let names = view.names.as_ref();
        let clock = view
            .clock
            .as_ref()
            .map(|c| serde_json::to_string(c).expect("clocks serialise"));
        self.conn()
            .execute(
                "INSERT INTO games (id, game, black, white, black_name, white_name, result,
                    opening, moves, pdn, created, updated, analyses, clock, revision)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13,
                    (SELECT coalesce(max(revision), 0) + 1 FROM games))
                 ON CONFLICT (id) DO UPDATE SET game = ?2, black = ?3, white = ?4,
                    black_name = ?5, white_name = ?6, result = ?7, opening = ?8, moves = ?9,
                    pdn = ?10, updated = ?11, analyses = ?12, clock = ?13,
                    revision = excluded.revision",
                params![
                    view.id as i64,
                    view.game,
                    view.players.black,
                    view.players.white,
                    names.map(|n| &n.black),
                    names.map(|n| &n.white),
                    view.result.as_ref().map(|r| r.score),
                    view.opening,
                    view.moves.len() as i64,
                    view.pdn,
                    now,
                    analyses,
                    clock,
                ],
            )
            .map(drop)
            .map_err(|e| self.sql(e))
    }

    /// The game `id`, if the archive holds it.
    pub fn load(&self, id: u64) -> Result<Option<StoredGame>, ArchiveError> {
        self.conn()
            .query_row(
                "SELECT game, black, white, black_name, white_name, pdn, analyses, clock
                 FROM games WHERE id = ?1",
                [id as i64],
                |r| {
                    Ok(StoredGame {
                        game: r.get(0)?,
                        players: players(r, 1)?,
                        names: names(r, 3)?,
                        pdn: r.get(5)?,
                        // Written by this program; a damaged value loses the graph only.
                        analyses: serde_json::from_str(&r.get::<_, String>(6)?).unwrap_or_default(),
                        // Likewise: a damaged value loses the clocks, and the game goes on
                        // untimed.
                        clock: r
                            .get::<_, Option<String>>(7)?
                            .and_then(|c| serde_json::from_str(&c).ok()),
                    })
                },
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    /// Forgets the game `id`; whether it was there.
    pub fn delete(&self, id: u64) -> Result<bool, ArchiveError> {
        self.conn()
            .execute("DELETE FROM games WHERE id = ?1", [id as i64])
            .map(|n| n > 0)
            .map_err(|e| self.sql(e))
    }

    /// The highest game id kept (0 for none): new games are numbered after it.
    pub fn last_id(&self) -> Result<u64, ArchiveError> {
        self.conn()
            .query_row("SELECT coalesce(max(id), 0) FROM games", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|id| id as u64)
            .map_err(|e| self.sql(e))
    }

    /// The games `filter` asks for, the most recently changed first.
    pub fn list(&self, filter: &Filter) -> Result<Listing, ArchiveError> {
        let player = filter.player.as_ref().map(|p| format!("%{p}%"));
        let finished = filter.finished.map(i64::from);
        let clause = "WHERE (?1 IS NULL OR game = ?1)
            AND (?2 IS NULL OR black LIKE ?2 OR white LIKE ?2 OR black_name LIKE ?2
                 OR white_name LIKE ?2)
            AND (?3 IS NULL OR (result IS NOT NULL) = ?3)";
        let conn = self.conn();
        let total: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM games {clause}"),
                params![filter.game, player, finished],
                |r| r.get(0),
            )
            .map_err(|e| self.sql(e))?;
        let mut rows = conn
            .prepare(&format!(
                "SELECT id, game, black, white, black_name, white_name, result, opening, moves,
                    created, updated
                 FROM games {clause} ORDER BY revision DESC LIMIT ?4 OFFSET ?5"
            ))
            .map_err(|e| self.sql(e))?;
        let games = rows
            .query_map(
                params![
                    filter.game,
                    player,
                    finished,
                    filter.limit,
                    filter.offset as i64
                ],
                |r| {
                    Ok(GameSummary {
                        id: r.get::<_, i64>(0)? as u64,
                        game: r.get(1)?,
                        players: players(r, 2)?,
                        names: names(r, 4)?,
                        result: r.get(6)?,
                        opening: r.get(7)?,
                        moves: r.get::<_, i64>(8)? as u64,
                        created: r.get(9)?,
                        updated: r.get(10)?,
                    })
                },
            )
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.sql(e))?;
        Ok(Listing {
            total: total as u64,
            offset: filter.offset,
            games,
        })
    }
}

/// The folder the database `path` goes in, made if missing.
fn make_folder(path: &Path) -> Result<(), ArchiveError> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|source| ArchiveError::Folder {
            path: path.to_owned(),
            source,
        }),
        None => Ok(()),
    }
}

/// The lock file beside the database `path` (`games.sqlite.lock`), locked for the server
/// that holds it: two servers on one file would number their new games alike and write over
/// each other's.
pub fn lock(path: &Path) -> Result<std::fs::File, ArchiveError> {
    make_folder(path)?;
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = PathBuf::from(name);
    let failed = |source| ArchiveError::Lock {
        path: lock_path.clone(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(failed)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(ArchiveError::InUse {
            path: path.to_owned(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(failed(e)),
    }
}

/// The players in the columns `at` (Black) and `at + 1` (White).
fn players(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Players> {
    Ok(Players {
        black: r.get(at)?,
        white: r.get(at + 1)?,
    })
}

/// The names a loaded record gave, in the columns `at` and `at + 1`, if it gave them.
fn names(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Option<Players>> {
    match (r.get::<_, Option<String>>(at)?, r.get(at + 1)?) {
        (Some(black), Some(white)) => Ok(Some(Players { black, white })),
        _ => Ok(None),
    }
}
