//! `gui`, the browser interface, and `plot`, a run's charts.

#[cfg(any(feature = "gui", feature = "plot"))]
use anyhow::Result;

#[derive(clap::Args)]
pub struct GuiArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to bind: the loopback interface unless another one is asked for (0.0.0.0
    /// serves every interface, e.g. a remote training machine; anyone who can reach it can
    /// use it).
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
    /// Folders of models offered for the agents (default: models).
    #[arg(long = "models")]
    models: Vec<std::path::PathBuf>,
    /// Folders of training runs offered on the dashboard (default: runs).
    #[arg(long = "runs")]
    runs: Vec<std::path::PathBuf>,
    /// Games held at once (default 1000); a new game takes the place of the finished game
    /// idle longest, else of the game idle longest.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_games: Option<u32>,
    /// Seconds a game nobody looks at is kept (default: a day).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    game_expiry: Option<u64>,
    /// The longest any agent may think about a move, in milliseconds: a spec asking more
    /// is refused, and every search but an analysis until Stop is stopped there (default:
    /// 60000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    max_move_ms: Option<u64>,
    /// The most simulations an agent may ask for a move (default: 1000000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    max_searches: Option<u64>,
    /// The most threads one search may use (default: the cores here).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_threads: Option<u32>,
    /// The access token every page and API call must carry (default: one made at start
    /// when --host is not the loopback, printed in the address; "" asks none).
    #[arg(long)]
    token: Option<String>,
    /// The SQLite database every game is kept in, written as each move is played (default:
    /// games.sqlite in the data folder, ~/.local/share/checkers-zero).
    #[arg(long, value_name = "FILE", conflicts_with = "no_archive")]
    archive: Option<std::path::PathBuf>,
    /// Keep games in memory only: they are gone when the server stops.
    #[arg(long)]
    no_archive: bool,
    /// Searches running at once over all games; the others wait (default: 4).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_thinking: Option<u32>,
    /// The most evaluations an agent may keep in its cache (default: 131072, az's own
    /// default, about 60 MB filled).
    #[arg(long, value_parser = clap::value_parser!(u64))]
    max_cache: Option<u64>,
    /// The most memory an agent's search tree may hold, in MiB: a spec asking more is
    /// refused, one leaving it out gets this (default: 128).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_tree_mb: Option<u64>,
    /// The largest transposition table an alpha-beta agent may ask, in MiB (default: 256).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_hash_mb: Option<u64>,
    /// Games whose agents (search trees and caches) are kept between moves; the others'
    /// are built again at their next move (default: 4).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    kept_agents: Option<u32>,
}

#[derive(clap::Args)]
pub struct PlotArgs {
    /// The run folders (each with its metrics.jsonl); several are drawn on the same charts.
    #[arg(required = true)]
    runs: Vec<std::path::PathBuf>,
    /// Folder for the PNG and SVG files (created if missing).
    #[arg(long)]
    out: std::path::PathBuf,
}

#[cfg(feature = "gui")]
pub fn serve(args: GuiArgs) -> Result<()> {
    let defaults =
        checkers_zero::gui::GuiOptions::at(std::net::SocketAddr::new(args.host, args.port));
    let archive = match (args.no_archive, args.archive) {
        (true, _) => None,
        (false, Some(file)) => Some(file),
        (false, None) => Some(checkers_zero::gui::default_archive().ok_or_else(|| {
            anyhow::anyhow!(
                "no data folder for the games archive (neither XDG_DATA_HOME nor HOME is set): \
                 give --archive FILE or --no-archive"
            )
        })?),
    };
    checkers_zero::gui::serve(checkers_zero::gui::GuiOptions {
        open: args.open,
        archive,
        models: args.models,
        runs: args.runs,
        max_games: args.max_games.map_or(defaults.max_games, |n| n as usize),
        game_expiry: args
            .game_expiry
            .map_or(defaults.game_expiry, std::time::Duration::from_secs),
        token: match args.token {
            Some(t) if t.is_empty() => None,
            Some(t) => Some(t),
            None if !args.host.is_loopback() => Some(checkers_zero::gui::fresh_token()),
            None => None,
        },
        limits: checkers_zero::gui::AgentLimits {
            move_time: args
                .max_move_ms
                .map_or(defaults.limits.move_time, std::time::Duration::from_millis),
            searches: args.max_searches.unwrap_or(defaults.limits.searches),
            threads: args
                .max_threads
                .map_or(defaults.limits.threads, |n| n as usize),
            thinking: args
                .max_thinking
                .map_or(defaults.limits.thinking, |n| n as usize),
            cache: args.max_cache.unwrap_or(defaults.limits.cache),
            tree_mb: args.max_tree_mb.unwrap_or(defaults.limits.tree_mb),
            hash_mb: args.max_hash_mb.unwrap_or(defaults.limits.hash_mb),
            kept_agents: args
                .kept_agents
                .map_or(defaults.limits.kept_agents, |n| n as usize),
        },
        ..defaults
    })?;
    Ok(())
}

#[cfg(feature = "plot")]
pub fn plot(args: PlotArgs) -> Result<()> {
    for file in checkers_zero::plot::write_plots(&args.runs, &args.out)? {
        println!("{}", file.display());
    }
    Ok(())
}
