//! Building a database folder slice pair by slice pair, resumably, and checking one.
//!
//! Slices are solved in an order where every move leads to a slice solved before or to the
//! pair itself: by pieces, then by men (a crowning turns a man into a king). A finished pair's
//! files are written atomically; a build started again over the same folder opens them
//! (checking every block) instead of solving them again, so a killed build loses at most the
//! pair it was solving. The folder's `egdb.json` names its format, rules and pieces; a folder
//! of another kind is refused.

use super::file::{self, SliceFile, Summary};
use super::index::{Config, Material};
use super::solve::{Known, Lookup, Table, implied, solve_pair};
use super::{EgdbError, MAX_BUILD_PIECES};
use crate::files::{file_error, write_atomic};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `egdb build` is asked for.
pub struct BuildOptions {
    pub pieces: u32,
    /// Also every slice of kings only of up to this many pieces (more than `pieces`; 0 for
    /// none): the long king endings just beyond the full databases, which need only
    /// kings-only slices of one piece fewer.
    pub kings_only: u32,
    pub out: PathBuf,
    pub progress: bool,
}

/// One slice of a finished build.
#[derive(Clone, Debug)]
pub struct SliceReport {
    pub summary: Summary,
    pub bytes: u64,
    /// Seconds spent solving its pair (0 when it was already on disk).
    pub seconds: f64,
    pub reused: bool,
}

/// The folder's description, `egdb.json`.
#[derive(serde::Serialize, serde::Deserialize)]
struct Manifest {
    format: u32,
    rules: String,
    pieces: u32,
    /// Left out when 0, as in folders built before kings-only slices existed.
    #[serde(default, skip_serializing_if = "is_zero")]
    kings_only: u32,
}

/// What a folder holds complete: every slice of up to `pieces` pieces, and the kings-only
/// slices of up to `kings_only` (0, or more than `pieces`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holds {
    pub pieces: u32,
    pub kings_only: u32,
}

impl Holds {
    /// The slices in the order they are solved; each pair once (the first of a material and
    /// its mirror).
    pub fn pair_order(self) -> Vec<Material> {
        let mut out = Vec::new();
        for n in 1..=self.pieces.max(self.kings_only) {
            let mut all = Material::all_with(n);
            all.retain(|m| n <= self.pieces || m.total_men() == 0);
            all.sort_by_key(|m| (m.total_men(), *m));
            for m in all {
                if !out.contains(&m.mirrored()) {
                    out.push(m);
                }
            }
        }
        out
    }

    /// Every slice, mirrors included.
    pub fn slices(self) -> Vec<Material> {
        self.pair_order().into_iter().flat_map(pair_of).collect()
    }

    /// Whether a position of `pieces` pieces, kings only or not, is in the slices.
    pub fn covers(self, pieces: u32, kings_only: bool) -> bool {
        pieces <= self.pieces || kings_only && pieces <= self.kings_only
    }

    /// What a folder that held `self` holds after a build of `asked`: kings-only slices
    /// count only beyond the full ones.
    fn joined(self, asked: Holds) -> Holds {
        let pieces = self.pieces.max(asked.pieces);
        let kings_only = self.kings_only.max(asked.kings_only);
        Holds {
            pieces,
            kings_only: if kings_only > pieces { kings_only } else { 0 },
        }
    }

    /// The `egdb build` arguments that make it.
    pub fn arguments(self) -> String {
        if self.kings_only > self.pieces {
            format!("--pieces {} --kings-only {}", self.pieces, self.kings_only)
        } else {
            format!("--pieces {}", self.pieces)
        }
    }
}

const MANIFEST: &str = "egdb.json";

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A slice's file in a folder.
pub fn slice_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(format!("slice-{}.egdb", material.name()))
}

/// What a folder holds complete (its manifest), after checking it is a database folder of
/// this program's format and rules.
pub fn read_manifest(dir: &Path) -> Result<Option<Holds>, EgdbError> {
    let name = dir.display().to_string();
    let path = dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(file_error("read", &path)(e).into()),
    };
    let m: Manifest = serde_json::from_str(&text).map_err(|e| {
        EgdbError::NotFolder(name.clone(), format!("its {MANIFEST} does not read: {e}"))
    })?;
    if m.format != file::FORMAT {
        return Err(EgdbError::Format(path.display().to_string(), m.format));
    }
    if m.rules != file::RULES {
        return Err(EgdbError::Rules(path.display().to_string(), m.rules));
    }
    Ok(Some(Holds {
        pieces: m.pieces,
        kings_only: m.kings_only,
    }))
}

fn write_manifest(dir: &Path, holds: Holds) -> Result<(), EgdbError> {
    let m = Manifest {
        format: file::FORMAT,
        rules: file::RULES.to_string(),
        pieces: holds.pieces,
        kings_only: holds.kings_only,
    };
    let path = dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&m).expect("a manifest serialises");
    write_atomic(&path, text.as_bytes()).map_err(|e| file_error("write", &path)(e).into())
}

/// A slice and its mirror, solved and checked together (one slice when it is its own).
fn pair_of(material: Material) -> Vec<Material> {
    if material.mirrored() == material {
        vec![material]
    } else {
        vec![material, material.mirrored()]
    }
}

/// Positions a slice indexes (men never share a square).
fn valid_positions(material: Material) -> u64 {
    let configs = (0..material.configs())
        .into_par_iter()
        .filter(|&n| Config::at(material, n).is_some())
        .count() as u64;
    configs * material.kings_per_config()
}

/// Positions (piece placements with Black to move) indexed for each number of pieces, 1 to
/// `pieces`: the figures published tables give (1: 120, 2: 6,972, ...).
pub fn indexed_positions(pieces: u32) -> Vec<u64> {
    (1..=pieces)
        .map(|n| Material::all_with(n).into_iter().map(valid_positions).sum())
        .collect()
}

/// Builds (or finishes building) the databases of up to `opts.pieces` pieces in `opts.out`.
/// Returns every slice's figures.
pub fn build(opts: &BuildOptions) -> Result<Vec<SliceReport>, EgdbError> {
    if !(1..=MAX_BUILD_PIECES).contains(&opts.pieces) {
        return Err(EgdbError::Pieces(opts.pieces));
    }
    if opts.kings_only != 0 && !(opts.pieces + 1..=MAX_BUILD_PIECES).contains(&opts.kings_only) {
        return Err(EgdbError::KingsOnly(opts.kings_only, opts.pieces));
    }
    let dir = &opts.out;
    let name = dir.display().to_string();
    if dir.exists() {
        let has_manifest = read_manifest(dir)?.is_some();
        let foreign = std::fs::read_dir(dir)
            .map_err(file_error("read", dir))?
            .filter_map(|e| e.ok())
            .any(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                !(n == MANIFEST || n.starts_with("slice-") || n.starts_with('.'))
            });
        if foreign
            || !has_manifest
                && std::fs::read_dir(dir)
                    .map(|mut d| d.next().is_some())
                    .unwrap_or(false)
        {
            return Err(EgdbError::NotFolder(
                name,
                "it holds other files; give a new or empty folder, or one egdb build made".into(),
            ));
        }
    } else {
        std::fs::create_dir_all(dir).map_err(file_error("create", dir))?;
    }
    let before = read_manifest(dir)?.unwrap_or_default();
    write_manifest(dir, before)?;
    crate::files::remove_stale_temps(dir).map_err(file_error("clean", dir))?;
    let asked = Holds {
        pieces: opts.pieces,
        kings_only: opts.kings_only,
    };
    let order = asked.pair_order();
    let total: u64 = order
        .iter()
        .map(|&m| valid_positions(m) * pair_of(m).len() as u64)
        .sum();
    let bar = crate::progress::progress(total, 0, "positions", opts.progress);
    let mut known = Known::default();
    let mut reports = Vec::new();
    for &material in &order {
        let pair = pair_of(material);
        bar.set_message(format!("slice {}", material.name()));
        if let Some(files) = finished(dir, &pair) {
            for f in files {
                known.insert(f.summary.material, &decode_values(&f)?);
                bar.inc(f.summary.positions());
                reports.push(SliceReport {
                    bytes: std::fs::metadata(slice_path(dir, f.summary.material))
                        .map(|m| m.len())
                        .unwrap_or(0),
                    summary: f.summary,
                    seconds: 0.0,
                    reused: true,
                });
            }
            continue;
        }
        let start = Instant::now();
        let tables = solve_pair(material, &known, &|n| bar.inc(n));
        let seconds = start.elapsed().as_secs_f64();
        for t in &tables {
            let bytes = file::encode(t.material, &t.values, &t.distances);
            let path = slice_path(dir, t.material);
            write_atomic(&path, &bytes).map_err(file_error("write", &path))?;
            let summary = SliceFile::open(&path)?.summary;
            reports.push(SliceReport {
                summary,
                bytes: bytes.len() as u64,
                seconds: seconds / tables.len() as f64,
                reused: false,
            });
            known.insert(t.material, &t.values);
        }
    }
    bar.finish_and_clear();
    write_manifest(dir, before.joined(asked))?;
    Ok(reports)
}

/// The pair's files when all are on disk and sound (a damaged one is solved again).
fn finished(dir: &Path, pair: &[Material]) -> Option<Vec<SliceFile>> {
    pair.iter()
        .map(|&m| {
            SliceFile::open(&slice_path(dir, m))
                .ok()
                .filter(|f| f.summary.material == m)
        })
        .collect()
}

fn decode_values(f: &SliceFile) -> Result<Vec<u8>, EgdbError> {
    let mut out = Vec::with_capacity(f.summary.entries as usize);
    for b in 0..f.blocks() {
        out.extend(f.values(b)?);
    }
    Ok(out)
}

fn decode_table(f: &SliceFile) -> Result<Table, EgdbError> {
    let mut distances = Vec::with_capacity(f.summary.entries as usize);
    for b in 0..f.blocks() {
        distances.extend(f.distances(b)?);
    }
    Ok(Table {
        material: f.summary.material,
        values: decode_values(f)?,
        distances,
    })
}

/// Re-checks every position of a folder against its moves' results: a win has a move to a
/// lost position and its distance is the shortest such; a loss has only moves to won
/// positions and its distance is the longest; a draw has a move to a drawn position and none
/// to a lost one. Returns the number of positions checked and the first few that disagree.
/// With `up_to`, only the slices of up to that many pieces are checked.
pub fn verify(
    dir: &Path,
    up_to: Option<u32>,
    progress: bool,
) -> Result<(u64, Vec<String>), EgdbError> {
    let built = read_manifest(dir)?.ok_or_else(|| {
        EgdbError::NotFolder(dir.display().to_string(), format!("it has no {MANIFEST}"))
    })?;
    let holds = Holds {
        pieces: up_to.map_or(built.pieces, |n| n.min(built.pieces)),
        kings_only: up_to.map_or(built.kings_only, |n| n.min(built.kings_only)),
    };
    let order = holds.pair_order();
    let mut known = Known::default();
    let files: Vec<Vec<SliceFile>> = order
        .iter()
        .map(|&m| {
            pair_of(m)
                .iter()
                .map(|&p| {
                    let path = slice_path(dir, p);
                    if !path.exists() {
                        return Err(EgdbError::Missing(
                            dir.display().to_string(),
                            p.name(),
                            holds.arguments(),
                        ));
                    }
                    SliceFile::open(&path)
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let total: u64 = files.iter().flatten().map(|f| f.summary.positions()).sum();
    let bar = crate::progress::progress(total, 0, "positions", progress);
    let mut checked = 0u64;
    let mut wrong = Vec::new();
    for pair in &files {
        let tables: Vec<Table> = pair.iter().map(decode_table).collect::<Result<_, _>>()?;
        let lookup = Lookup {
            known: &known,
            pair: [&tables[0], tables.last().expect("a table")],
        };
        for t in &tables {
            bar.set_message(format!("slice {}", t.material.name()));
            let per = t.material.kings_per_config();
            let bad: Vec<String> = (0..t.material.configs())
                .into_par_iter()
                .filter_map(|n| Config::at(t.material, n).map(|c| (n, c)))
                .flat_map_iter(|(n, config)| {
                    let mut moves = Vec::new();
                    let lookup = &lookup;
                    let bar = &bar;
                    let out: Vec<String> = (0..per)
                        .filter_map(move |k| {
                            let pos = config.position(t.material, k);
                            let i = (n * per + k) as usize;
                            let stored = (t.values[i], t.distances[i]);
                            let expect = implied(&pos, lookup, &mut moves);
                            (stored != expect).then(|| {
                                format!(
                                    "{}: stored {:?}, its moves give {:?}",
                                    crate::games::checkers::to_fen(&pos),
                                    stored,
                                    expect
                                )
                            })
                        })
                        .collect();
                    bar.inc(per);
                    out
                })
                .collect();
            wrong.extend(bad.into_iter().take(10));
            let counted: u64 = t.values.iter().filter(|&&v| v != 0).count() as u64;
            checked += counted;
            let summary = &pair
                .iter()
                .find(|f| f.summary.material == t.material)
                .expect("its file")
                .summary;
            if counted != summary.positions() {
                wrong.push(format!(
                    "slice {}: {} positions, its header says {}",
                    t.material.name(),
                    counted,
                    summary.positions()
                ));
            }
        }
        for t in tables {
            known.insert(t.material, &t.values);
        }
    }
    bar.finish_and_clear();
    Ok((checked, wrong))
}
