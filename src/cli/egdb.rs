//! `egdb`: build, probe, check and measure checkers' endgame databases.

use super::thread_pool;
use anyhow::{Result, bail};
use checkers_zero::endgame::egdb::{self, BuildOptions, Endgames, SliceReport};
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
        /// The database folder (new, empty, or one an earlier build made).
        #[arg(long)]
        out: PathBuf,
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
        dir: PathBuf,
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
    /// Probe speed: random positions of each piece count, probed one after another.
    Speed {
        dir: PathBuf,
        /// Probes per piece count.
        #[arg(long, default_value_t = 1_000_000)]
        probes: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(command: EgdbCommand) -> Result<()> {
    match command {
        EgdbCommand::Build {
            pieces,
            out,
            threads,
        } => build(pieces, out, threads),
        EgdbCommand::Probe { dir, fen } => probe(dir, &fen),
        EgdbCommand::Verify { dir, threads } => {
            let pool = thread_pool(threads)?;
            let start = Instant::now();
            let (checked, wrong) =
                pool.install(|| egdb::verify(&dir, std::io::stderr().is_terminal()))?;
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
    }
}

fn build(pieces: u32, out: PathBuf, threads: Option<usize>) -> Result<()> {
    let pool = thread_pool(threads)?;
    let start = Instant::now();
    let opts = BuildOptions {
        pieces,
        out: out.clone(),
        progress: std::io::stderr().is_terminal(),
    };
    let reports = pool.install(|| egdb::build(&opts))?;
    println!(
        "pieces  positions       wins        losses      draws       longest  bytes        solve s"
    );
    for n in 1..=pieces {
        let rows: Vec<&SliceReport> = reports
            .iter()
            .filter(|r| r.summary.material.pieces() == n)
            .collect();
        let sum = |f: &dyn Fn(&SliceReport) -> u64| rows.iter().map(|r| f(r)).sum::<u64>();
        let longest = rows.iter().map(|r| r.summary.longest).max().unwrap_or(0);
        let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
        let reused = rows.iter().all(|r| r.reused);
        println!(
            "{n:<7} {:<15} {:<11} {:<11} {:<11} {longest:<8} {:<12} {}",
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
        bail!(
            "{} has {} pieces; the databases in {} hold up to {}",
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
