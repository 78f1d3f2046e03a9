//! Probing a database folder: every slice file memory-mapped, decompressed blocks kept in a
//! small direct-mapped cache shared by all threads.

use super::build::{Holds, read_manifest, slice_path};
use super::file::{BLOCK, RawBlock, SliceFile};
use super::index::{Material, locate};
use super::{EgdbError, Value};
use crate::games::checkers::{Color, Move, Position, dedup_routes_of, legal_moves};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Decompressed blocks kept (each 20 or 36 KB: values and distances of 16,384 positions).
const CACHE_SLOTS: usize = 256;

/// A database's answer for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// For the side to move.
    pub value: Value,
    /// Plies to the next conversion (capture or man move) under best play; 0 for a draw.
    pub distance: u16,
}

impl Probe {
    /// "win for White, 17 plies to conversion" for a position with `turn` to move.
    pub fn describe(&self, turn: Color) -> String {
        let winner = match self.value {
            Value::Win => turn,
            Value::Loss => turn.opposite(),
            Value::Draw => return "draw".to_string(),
        };
        format!("win for {winner}, {} plies to conversion", self.distance)
    }
}

/// A move with the value it keeps for the side that plays it.
#[derive(Clone, Copy, Debug)]
pub struct ScoredMove {
    pub mv: Move,
    pub value: Value,
    /// Plies to conversion through this move (1 when the move itself converts).
    pub distance: u16,
}

type Block = Arc<RawBlock>;
/// A cache slot: which block of which slice it holds, and the block.
type Slot = Mutex<Option<((Material, usize), Block)>>;

/// An opened database folder.
pub struct Endgames {
    dir: PathBuf,
    holds: Holds,
    slices: HashMap<Material, SliceFile>,
    cache: Vec<Slot>,
}

impl std::fmt::Debug for Endgames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Endgames({}, {} pieces",
            self.dir.display(),
            self.holds.pieces
        )?;
        if self.holds.kings_only > 0 {
            write!(f, ", kings only to {}", self.holds.kings_only)?;
        }
        write!(f, ")")
    }
}

impl Endgames {
    /// Opens a folder egdb build made, checking every file (header, length, checksums).
    pub fn open(dir: &Path) -> Result<Endgames, EgdbError> {
        let name = dir.display().to_string();
        if !dir.is_dir() {
            return Err(EgdbError::NotFolder(name, "no such folder".into()));
        }
        let holds = read_manifest(dir)?
            .filter(|h| h.pieces > 0)
            .ok_or_else(|| {
                EgdbError::NotFolder(name.clone(), "it has no finished build (egdb.json)".into())
            })?;
        let mut slices = HashMap::new();
        for m in holds.slices() {
            let path = slice_path(dir, m);
            if !path.exists() {
                return Err(EgdbError::Missing(name, m.name(), holds.arguments()));
            }
            let file = SliceFile::open(&path)?;
            if file.summary.material != m {
                return Err(EgdbError::Damaged(
                    path.display().to_string(),
                    format!("it holds the slice {}", file.summary.material.name()),
                ));
            }
            slices.insert(m, file);
        }
        Ok(Endgames {
            dir: dir.to_path_buf(),
            holds,
            slices,
            cache: (0..CACHE_SLOTS).map(|_| Mutex::new(None)).collect(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The most pieces a position may have to be in the databases (kings-only slices
    /// aside).
    pub fn pieces(&self) -> u32 {
        self.holds.pieces
    }

    /// Every slice of kings only of up to this many pieces is in the databases too (0 when
    /// none beyond `pieces`).
    pub fn kings_only(&self) -> u32 {
        self.holds.kings_only
    }

    /// The value of `pos` for its side to move, when its slice is in the databases.
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        let occupied = pos.occupied();
        if !self
            .holds
            .covers(occupied.count_ones(), pos.kings() == occupied)
        {
            return None;
        }
        let (material, index) = locate(pos);
        let file = self.slices.get(&material)?;
        let (b, i) = (index as usize / BLOCK, index as usize % BLOCK);
        let block = self.block(file, material, b)?;
        Some(Probe {
            value: Value::from_code(block.value(i))?,
            distance: block.distance(i),
        })
    }

    fn block(&self, file: &SliceFile, material: Material, b: usize) -> Option<Block> {
        let key = (material, b);
        let slot = {
            let m = material;
            let h = (m.men as usize)
                .wrapping_mul(31)
                .wrapping_add(m.kings as usize)
                .wrapping_mul(31)
                .wrapping_add(m.other_men as usize)
                .wrapping_mul(31)
                .wrapping_add(m.other_kings as usize);
            (h.wrapping_mul(0x9E37_79B9).wrapping_add(b)) % CACHE_SLOTS
        };
        if let Some((k, block)) = &*self.cache[slot].lock().expect("cache lock")
            && *k == key
        {
            return Some(block.clone());
        }
        // Blocks were checked when the file was opened; a failure here is not expected.
        let block: Block = Arc::new(file.block(b).ok()?);
        *self.cache[slot].lock().expect("cache lock") = Some((key, block.clone()));
        Some(block)
    }

    /// Every distinct move of a database position with the value it keeps for the mover,
    /// best first: wins by the shortest distance, then draws, then losses by the longest.
    pub fn scored_moves(&self, pos: &Position) -> Option<Vec<ScoredMove>> {
        self.probe(pos)?;
        let mut out = Vec::new();
        for mv in dedup_routes_of(legal_moves(pos)) {
            let child = self.probe(&pos.apply(&mv))?;
            let distance = if pos.is_irreversible(&mv) {
                1
            } else {
                child.distance + 1
            };
            out.push(ScoredMove {
                mv,
                value: child.value.flipped(),
                distance,
            });
        }
        out.sort_by_key(|s| match s.value {
            Value::Win => (0, s.distance as i32),
            Value::Draw => (1, 0),
            Value::Loss => (2, -(s.distance as i32)),
        });
        Some(out)
    }

    /// The perfect move of a won or lost database position: the shortest way to the next
    /// conversion when winning, the longest resistance when losing. `None` for draws (every
    /// drawing move keeps the value; the agents' own search chooses among them) and outside
    /// the databases.
    pub fn perfect_move(&self, pos: &Position) -> Option<(Move, Probe)> {
        let probe = self.probe(pos)?;
        if probe.value == Value::Draw {
            return None;
        }
        let best = *self.scored_moves(pos)?.first()?;
        Some((best.mv, probe))
    }
}
