//! `egdb`: build, probe, check and measure checkers' endgame databases.

use super::thread_pool;
use anyhow::{Context, Result, bail};
use checkers_zero::agents::{AgentGame, AgentSpec, kinds};
use checkers_zero::arena::Tally;
use checkers_zero::endgame::egdb::{self, BuildOptions, Endgames, SliceReport};
use checkers_zero::games::Checkers;
use checkers_zero::games::checkers::{parse_fen, to_fen};
use rand::SeedableRng;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// Placements of 1 to 6 pieces (either side to move counts once) as published.
const PUBLISHED: [u64; 6] = [120, 6_972, 261_224, 7_092_774, 148_688_232, 2_503_611_964];

#[derive(clap::Subcommand)]
pub enum EgdbCommand {
    /// Solve every position of up to N pieces by retrograde analysis into a folder (started
    /// again over the same folder, it keeps the slices already finished).
    Build {
        /// The most pieces on the board (both sides together).
        #[arg(long)]
        pieces: u32,
        /// Also every position of kings only with up to this many pieces (more than
        /// --pieces): `--pieces 6 --kings-only 7` adds four kings against three, the ending
        /// that must be won by forcing exchanges.
        #[arg(long, default_value_t = 0)]
        kings_only: u32,
        /// The database folder (new, empty, or one an earlier build made); default: the
        /// folder agents look in, ~/.local/share/checkers-zero/egdb.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// A position's value for the side to move, its distance to conversion and every move's.
    Probe {
        /// The database folder.
        dir: PathBuf,
        /// The position, in PDN FEN (`W:WK10,K14:B3`).
        fen: String,
    },
    /// Re-check every position of a folder against the results of its moves.
    Verify {
        /// The database folder.
        dir: PathBuf,
        /// Check only the slices of up to this many pieces (default: all).
        #[arg(long)]
        pieces: Option<u32>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// The number of positions the index holds per piece count, beside the published table.
    Count {
        /// Up to this many pieces.
        #[arg(long, default_value_t = 6)]
        pieces: u32,
    },
    /// An agent's accuracy: its moves in random database positions that test it (a choice,
    /// and a move that changes the value), judged by the databases. Agents with an egdb
    /// option play without databases unless the spec names a folder.
    Quiz {
        /// The agent spec, e.g. alphabeta:depth=8 or az:searches=200.
        agent: String,
        /// The database folder that judges.
        #[arg(long)]
        egdb: PathBuf,
        /// Piece counts: one (5) or a range (4..6).
        #[arg(long, default_value = "4..5")]
        pieces: String,
        /// Positions per piece count.
        #[arg(long, default_value_t = 2000, value_parser = super::at_least_one::<usize>)]
        positions: usize,
        /// Seed of the positions drawn (the same for every agent) and of the agents.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Probe speed: random positions of each piece count, probed one after another.
    Speed {
        /// The database folder.
        dir: PathBuf,
        /// Probes per piece count.
        #[arg(long, default_value_t = 1_000_000)]
        probes: u64,
        /// Seed of the random positions.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(command: EgdbCommand) -> Result<()> {
    match command {
        EgdbCommand::Build {
            pieces,
            kings_only,
            out,
            threads,
        } => build(pieces, kings_only, out, threads),
        EgdbCommand::Probe { dir, fen } => probe(dir, &fen),
        EgdbCommand::Verify {
            dir,
            pieces,
            threads,
        } => {
            let pool = thread_pool(threads)?;
            let start = Instant::now();
            let (checked, wrong) =
                pool.install(|| egdb::verify(&dir, pieces, std::io::stderr().is_terminal()))?;
            for w in &wrong {
                println!("{w}");
            }
            if !wrong.is_empty() {
                bail!(
                    "{} positions disagree with their moves' results",
                    wrong.len()
                );
            }
            println!(
                "{checked} positions agree with their moves' results ({:.1} s)",
                start.elapsed().as_secs_f64()
            );
            Ok(())
        }
        EgdbCommand::Count { pieces } => {
            if !(1..=PUBLISHED.len() as u32).contains(&pieces) {
                bail!("--pieces must be 1 to {}, not {pieces}", PUBLISHED.len());
            }
            for (n, count) in egdb::indexed_positions(pieces).into_iter().enumerate() {
                let published = PUBLISHED[n];
                let check = if count == published {
                    "matches"
                } else {
                    "DIFFERS"
                };
                println!(
                    "{} pieces: {count} positions; published {published}: {check}",
                    n + 1
                );
            }
            Ok(())
        }
        EgdbCommand::Speed { dir, probes, seed } => speed(dir, probes, seed),
        EgdbCommand::Quiz {
            agent,
            egdb,
            pieces,
            positions,
            seed,
            threads,
        } => quiz(&agent, &egdb, &pieces, positions, seed, threads),
    }
}

fn build(pieces: u32, kings_only: u32, out: Option<PathBuf>, threads: Option<usize>) -> Result<()> {
    let out = match out {
        Some(o) => o,
        None => checkers_zero::endgame::checkers::data_dir()
            .context("no --out given and no home folder to put the databases in")?,
    };
    let pool = thread_pool(threads)?;
    let start = Instant::now();
    let opts = BuildOptions {
        pieces,
        kings_only,
        out: out.clone(),
        progress: std::io::stderr().is_terminal(),
    };
    let reports = pool.install(|| egdb::build(&opts))?;
    println!(
        "pieces  positions       wins        losses      draws       longest  bytes        solve s"
    );
    for n in 1..=pieces.max(kings_only) {
        let rows: Vec<&SliceReport> = reports
            .iter()
            .filter(|r| r.summary.material.pieces() == n)
            .collect();
        let label = if n > pieces {
            format!("{n} kings")
        } else {
            n.to_string()
        };
        let sum = |f: &dyn Fn(&SliceReport) -> u64| rows.iter().map(|r| f(r)).sum::<u64>();
        let longest = rows.iter().map(|r| r.summary.longest).max().unwrap_or(0);
        let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
        let reused = rows.iter().all(|r| r.reused);
        println!(
            "{label:<7} {:<15} {:<11} {:<11} {:<11} {longest:<8} {:<12} {}",
            sum(&|r| r.summary.positions()),
            sum(&|r| r.summary.counts[0]),
            sum(&|r| r.summary.counts[1]),
            sum(&|r| r.summary.counts[2]),
            sum(&|r| r.bytes),
            if reused {
                "(built before)".to_string()
            } else {
                format!("{seconds:.1}")
            },
        );
    }
    println!(
        "built {} in {:.1} s",
        out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn probe(dir: PathBuf, fen: &str) -> Result<()> {
    let pos = parse_fen(fen)?;
    let db = Endgames::open(&dir)?;
    let Some(found) = db.probe(&pos) else {
        let kings = match db.kings_only() {
            0 => String::new(),
            k => format!(", and kings only up to {k}"),
        };
        bail!(
            "{} has {} pieces; the databases in {} hold up to {}{kings}",
            to_fen(&pos),
            pos.occupied().count_ones(),
            dir.display(),
            db.pieces()
        );
    };
    println!("{}: {}", to_fen(&pos), found.describe(pos.turn()));
    for m in db.scored_moves(&pos).unwrap_or_default() {
        let probe = egdb::Probe {
            value: m.value,
            distance: m.distance,
        };
        println!("  {}: {}", m.mv, probe.describe(pos.turn()));
    }
    Ok(())
}

fn speed(dir: PathBuf, probes: u64, seed: u64) -> Result<()> {
    let db = Endgames::open(&dir)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for n in 1..=db.pieces() {
        let positions: Vec<_> = (0..probes.min(1 << 20))
            .map(|_| egdb::random_position(n, &mut rng))
            .collect();
        let start = Instant::now();
        let mut found = 0u64;
        for i in 0..probes {
            found += db.probe(&positions[i as usize % positions.len()]).is_some() as u64;
        }
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{{\"pieces\":{n},\"probes\":{probes},\"found\":{found},\"seconds\":{seconds:.3},\"probes_per_s\":{:.0}}}",
            probes as f64 / seconds
        );
    }
    Ok(())
}

/// `4..6` or `5`, within what the folder holds.
fn piece_range(text: &str, most: u32) -> Result<std::ops::RangeInclusive<u32>> {
    let number = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (2..=most).contains(n))
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "--pieces {:?}: expected a piece count 2 to {most} (what the databases hold) \
                     or a range like 4..{most}",
                    text
                )
            })
    };
    Ok(match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                bail!("--pieces {text}: the range runs backwards");
            }
            a..=b
        }
        None => {
            let n = number(text)?;
            n..=n
        }
    })
}

fn quiz(
    agent: &str,
    dir: &std::path::Path,
    pieces: &str,
    positions: usize,
    seed: u64,
    threads: Option<usize>,
) -> Result<()> {
    let mut spec: AgentSpec = agent.parse()?;
    let egdb = &kinds::EGDB;
    if Checkers::kind(&spec.kind).is_some_and(|k| k.decl.declares(egdb))
        && spec.get(egdb.key()).is_none()
    {
        spec.set(egdb.key(), "none");
    }
    let db = Endgames::open(dir)?;
    let range = piece_range(pieces, db.pieces())?;
    let pool = thread_pool(threads)?;
    let total = positions as u64 * (range.end() - range.start() + 1) as u64;
    let bar =
        checkers_zero::progress::progress(total, 0, "positions", std::io::stderr().is_terminal());
    let start = Instant::now();
    let rows = pool.install(|| {
        checkers_zero::arena::quiz::quiz(&spec, &db, range, positions, seed, &|| bar.inc(1))
    })?;
    bar.finish_and_clear();
    println!("{spec}: moves judged by the databases in {}", dir.display());
    println!("pieces  positions  kept              threw a win       lost a draw");
    for r in &rows {
        let cell = |n: u64| {
            let (p, half) = wilson(n, r.positions);
            format!("{:5.1}% +-{:4.1}", 100.0 * p, 100.0 * half)
        };
        println!(
            "{:<7} {:<10} {:<17} {:<17} {}",
            r.pieces,
            r.positions,
            cell(r.kept),
            cell(r.threw_win),
            cell(r.lost_draw)
        );
    }
    for r in &rows {
        println!(
            "{}",
            serde_json::json!({"agent": spec.to_string(), "pieces": r.pieces, "positions": r.positions,
                "kept": r.kept, "threw_win": r.threw_win, "lost_draw": r.lost_draw,
                "seconds": start.elapsed().as_secs_f64()})
        );
    }
    Ok(())
}

/// A share and the half-width of its 95% interval (the matches' Wilson interval, with the
/// share's hits as wins and the rest as losses).
fn wilson(k: u64, n: u64) -> (f64, f64) {
    let tally = Tally {
        wins: k as u32,
        draws: 0,
        losses: (n - k) as u32,
    };
    let (lo, hi) = tally.score_interval();
    (k as f64 / n.max(1) as f64, (hi - lo) / 2.0)
}
