//! `match`, `tournament`, `gauntlet` and `curve`: agents against each other over the
//! openings.

use super::{at_least_one, parse_player, thread_pool};
use anyhow::{Context, Result};
use checkers_zero::agents::AgentGame;
use checkers_zero::arena::{
    ArenaGame, DEFAULT_OPPONENTS, GameConfig, GauntletConfig, MatchConfig, OpeningSet, Series,
    TournamentConfig, journal_status, run_gauntlet as play_gauntlet, run_match as play_match,
    run_match_journaled, run_tournament as play_tournament,
};
use checkers_zero::files::CURVE_FILE;
use checkers_zero::games::{GameName, on_game};
use checkers_zero::train::alphazero::{
    CurveConfig, CurvePoint, CurveSettings, run_curve as play_curve, run_game,
};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct TournamentArgs {
    /// Agent specs, e.g. `random alphabeta:depth=2 pso:model=runs/pso/best.ckpt`.
    #[arg(required = true, num_args = 2..)]
    pub(super) players: Vec<String>,
    #[command(flatten)]
    pub(super) series: SeriesArgs,
}

#[derive(clap::Args)]
pub struct GauntletArgs {
    /// The agent to measure, e.g. `az:model=runs/az/best.ckpt,searches=200`.
    pub(super) agent: String,
    /// Opponent specs, separated by `;` (specs hold commas) or given by repeating the flag.
    #[arg(long, value_delimiter = ';', default_values = DEFAULT_OPPONENTS.to_vec())]
    pub(super) opponents: Vec<String>,
    /// Print one JSON object per opponent instead of the table (time and notes go to stderr).
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) series: SeriesArgs,
}

#[derive(clap::Args)]
pub struct CurveArgs {
    /// The run folder `train` wrote (it keeps every iteration's network in models/).
    pub(super) run: PathBuf,
    /// A point every this many iterations (and at iteration 0 and the last).
    #[arg(long, default_value_t = 8, value_parser = at_least_one::<u32>)]
    pub(super) every: u32,
    /// How each network plays: an az spec without model= (by default its search alone, with
    /// neither the tactical check nor the hand-off in endings, as a curve compares networks).
    #[arg(long, default_value = "az:searches=200,check=0,endgame=0,device=cpu")]
    pub(super) agent: String,
    /// Opponent specs, separated by `;` (specs hold commas) or given by repeating the flag.
    #[arg(
        long,
        value_delimiter = ';',
        default_value = "alphabeta:depth=4;alphabeta:depth=6"
    )]
    pub(super) opponents: Vec<String>,
    /// Games per opponent and point (default: every opening twice, once from each side).
    #[arg(long, value_parser = at_least_one::<usize>)]
    pub(super) games: Option<usize>,
    /// Seed of the agents' random choices and of the opening order, the same at every point.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Games played at a time, each on one core (default: all cores). Results do not
    /// depend on it.
    #[arg(long)]
    pub(super) threads: Option<usize>,
}

#[derive(clap::Args)]
pub struct MatchArgs {
    /// First agent spec, e.g. `alphabeta:depth=6` (`checkers-zero agents` lists them).
    pub(super) agent1: String,
    /// Second agent spec, e.g. `random`.
    pub(super) agent2: String,
    /// Record each finished game in this file as it ends; run the same match again with
    /// the same file to play only the games it lacks (a long match stopped part-way).
    #[arg(long)]
    pub(super) journal: Option<PathBuf>,
    /// With --journal: report the games the journal holds so far and play nothing (safe
    /// while another process is adding to it).
    #[arg(long, requires = "journal")]
    pub(super) status: bool,
    #[command(flatten)]
    pub(super) series: SeriesArgs,
}

/// How the games of a match or of each tournament pairing are played.
#[derive(clap::Args)]
pub struct SeriesArgs {
    /// The game (checkers starts from the ACF ballots, othello from every position four
    /// plies in, up to symmetry).
    #[arg(long, value_parser = super::named::<GameName>(), default_value_t = GameName::Checkers)]
    pub(super) game: GameName,
    /// Games (per pair in a tournament, per opponent in a gauntlet; default: every opening
    /// twice, once from each side).
    #[arg(long, value_parser = at_least_one::<usize>)]
    pub(super) games: Option<usize>,
    /// Starting positions.
    #[arg(long, value_parser = super::named::<OpeningSet>(), default_value_t = OpeningSet::Standard)]
    pub(super) openings: OpeningSet,
    /// Write all games here as PDN.
    #[arg(long)]
    pub(super) pdn: Option<PathBuf>,
    /// Seed of the agents' random choices and of the opening order.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Games played at a time, each on one core (default: all cores). Results do not
    /// depend on it.
    #[arg(long)]
    pub(super) threads: Option<usize>,
    /// Adjudicate games that reach this many plies (checkers: more pieces, then more kings,
    /// wins; othello: more discs).
    #[arg(long, value_parser = at_least_one::<usize>)]
    pub(super) max_plies: Option<usize>,
    /// Checkers' endgame databases: games reaching a position they hold end with its exact
    /// result, and agents that name none use them (a folder, or none; default: the folder
    /// $CHECKERS_ZERO_EGDB, else ~/.local/share/checkers-zero/egdb, when present).
    #[arg(long)]
    pub(super) egdb: Option<String>,
}

impl SeriesArgs {
    /// Names the process's endgame databases as `--egdb` says, before any agent is built.
    fn name_endgames(&self) -> Result<()> {
        if let Some(egdb) = &self.egdb {
            let dir = (!egdb.eq_ignore_ascii_case("none")).then(|| std::path::PathBuf::from(egdb));
            if let Some(d) = &dir {
                checkers_zero::endgame::egdb::Endgames::open(d)?;
            }
            checkers_zero::endgame::checkers::name_default_dir(dir);
        }
        Ok(())
    }

    /// Runs `play` on the worker pool, prints its report and time, writes its PDN if asked.
    /// With `machine_output` stdout gets only the report; the time and notes go to stderr.
    fn run<R>(
        &self,
        play: impl FnOnce() -> Result<R> + Send,
        report: impl Fn(&R) -> (String, String),
        machine_output: bool,
    ) -> Result<()>
    where
        R: Send,
    {
        let note = |text: String| {
            if machine_output {
                eprintln!("{text}");
            } else {
                println!("{text}");
            }
        };
        let pool = thread_pool(self.threads)?;
        if let Some(path) = &self.pdn {
            // Found out now, not after hours of games.
            checkers_zero::files::check_writable(path)
                .with_context(|| format!("--pdn {}: cannot write there", path.display()))?;
        }
        let t = Instant::now();
        let result = pool.install(play)?;
        let (summary, pdn) = report(&result);
        print!("{summary}");
        note(format!("({:.1} s)", t.elapsed().as_secs_f64()));
        if let Some(path) = &self.pdn {
            checkers_zero::files::write_atomic(path, pdn.as_bytes())
                .with_context(|| format!("could not write {}", path.display()))?;
            note(format!("games written to {}", path.display()));
        }
        Ok(())
    }

    /// How each series of games is played, with a progress bar.
    fn series(&self) -> Series {
        Series {
            games: self.games,
            openings: self.openings,
            seed: self.seed,
            game: GameConfig {
                max_plies: self.max_plies,
                exact_endings: true,
            },
            progress: true,
        }
    }
}

pub fn run_tournament(args: TournamentArgs) -> Result<()> {
    args.series.name_endgames()?;
    on_game!(args.series.game, G => tournament_for::<G>(&args))
}

fn tournament_for<G: AgentGame + ArenaGame>(args: &TournamentArgs) -> Result<()> {
    let a = &args.series;
    let config = TournamentConfig::<G> {
        players: args
            .players
            .iter()
            .map(|p| parse_player::<G>(p))
            .collect::<Result<_>>()?,
        series: a.series(),
    };
    a.run(
        || Ok(play_tournament(&config)?),
        |r| (r.table(), r.pdn.clone()),
        false,
    )
}

pub fn run_match(args: MatchArgs) -> Result<()> {
    args.series.name_endgames()?;
    on_game!(args.series.game, G => match_for::<G>(&args))
}

fn match_for<G: AgentGame + ArenaGame>(args: &MatchArgs) -> Result<()> {
    let a = &args.series;
    let config = MatchConfig::<G> {
        first: parse_player(&args.agent1)?,
        second: parse_player(&args.agent2)?,
        series: a.series(),
    };
    if let (true, Some(path)) = (args.status, &args.journal) {
        let (so_far, total) = journal_status(&config, path)?;
        println!("{} of {total} games played so far", so_far.games.len());
        if !so_far.games.is_empty() {
            println!("{}", so_far.summary());
        }
        return Ok(());
    }
    a.run(
        || match &args.journal {
            Some(path) => Ok(run_match_journaled(&config, path)?),
            None => Ok(play_match(&config)?),
        },
        |r| (r.summary(), r.pdn()),
        false,
    )
}

pub fn run_gauntlet(args: GauntletArgs) -> Result<()> {
    args.series.name_endgames()?;
    on_game!(args.series.game, G => gauntlet_for::<G>(&args))
}

fn gauntlet_for<G: AgentGame + ArenaGame>(args: &GauntletArgs) -> Result<()> {
    let a = &args.series;
    let opponents = args
        .opponents
        .iter()
        .filter(|o| !o.trim().is_empty())
        .map(|o| parse_player::<G>(o).with_context(|| format!("--opponents {o:?}")))
        .collect::<Result<Vec<_>>>()?;
    let config = GauntletConfig::<G> {
        player: parse_player(&args.agent)?,
        opponents,
        series: a.series(),
    };
    let json = args.json;
    a.run(
        || Ok(play_gauntlet(&config)?),
        |r| {
            let text = if json { r.json_lines() } else { r.to_string() };
            (text, r.pdn.clone())
        },
        json,
    )
}

pub fn run_curve(args: CurveArgs) -> Result<()> {
    let game = run_game(&args.run)?;
    on_game!(game, G => curve_for::<G>(&args))
}

fn curve_for<G: AgentGame + ArenaGame>(args: &CurveArgs) -> Result<()> {
    let opponents: Vec<String> = args
        .opponents
        .iter()
        .filter(|o| !o.trim().is_empty())
        .cloned()
        .collect();
    if opponents.is_empty() {
        anyhow::bail!("--opponents: expected at least one opponent spec");
    }
    // Checked here, before any point plays, so a typo names its flag.
    for o in &opponents {
        parse_player::<G>(o).with_context(|| format!("--opponents {o:?}"))?;
    }
    let config = CurveConfig {
        run: args.run.clone(),
        every: args.every,
        settings: CurveSettings {
            agent: args.agent.clone(),
            opponents,
            games: args.games,
            seed: args.seed,
        },
        game: GameConfig::default(),
        progress: true,
    };
    let pool = thread_pool(args.threads)?;
    let t = Instant::now();
    let points = pool
        .install(|| play_curve::<G>(&config, |p, played| println!("{}", point_line(p, played))))?;
    println!(
        "{} points in {} ({:.1} s)",
        points.len(),
        args.run.join(CURVE_FILE).display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `iteration 24 (best 22; 0.41 h, 0.38 CPU h): vs alphabeta:depth=4 62.5% (45.1-77.1%), ...`
fn point_line(p: &CurvePoint, played: bool) -> String {
    let cpu = p
        .cpu_s
        .map_or(String::new(), |s| format!(", {:.2} CPU h", s / 3600.0));
    let results: Vec<String> = p
        .gauntlet
        .iter()
        .map(|g| {
            format!(
                "vs {} {:.1}% ({:.1}-{:.1}%)",
                g.opponent,
                100.0 * g.score,
                100.0 * g.score_low,
                100.0 * g.score_high
            )
        })
        .collect();
    format!(
        "iteration {} (best {}; {:.2} h{cpu}): {}{}",
        p.iteration,
        p.best_iteration,
        p.elapsed_s / 3600.0,
        results.join(", "),
        if played {
            ""
        } else {
            " (its network's games, played for an earlier point)"
        }
    )
}
