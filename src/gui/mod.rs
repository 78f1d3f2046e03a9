//! `checkers-zero gui`: the browser interface, served by the program itself (docs/gui.md).
//! The page's files are built in (web/, src/gui/assets.rs); the JSON API plays games
//! (api.rs, sessions.rs, view.rs), keeps every game in an SQLite database (archive.rs), and
//! shows training runs (runs.rs) from the folders the server was given (library.rs).

mod access;
mod api;
mod archive;
mod assets;
mod boards;
mod clock;
mod error;
mod levels;
mod library;
mod limits;
mod runs;
mod sessions;
mod view;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum GuiError {
    #[error("could not start the server's threads: {0}")]
    Threads(#[source] std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Archive(#[from] archive::ArchiveError),
}
use crate::events::event;
use crate::health;
pub use access::fresh_token;
use archive::Archive;
pub use archive::ArchiveError;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use library::Library;
pub use limits::AgentLimits;
use sessions::Sessions;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The largest request body (a pasted PDN game is a few KiB).
const MAX_BODY: usize = 1 << 20;

/// What `checkers-zero gui` was asked for.
#[derive(Clone, Debug)]
pub struct GuiOptions {
    pub addr: SocketAddr,
    pub open: bool,
    /// Folders of models offered (default: models).
    pub models: Vec<PathBuf>,
    /// Folders of training runs offered (default: runs).
    pub runs: Vec<PathBuf>,
    /// Games held at once: a new game takes the place of the one idle longest.
    pub max_games: usize,
    /// How long a game nobody looks at is kept.
    pub game_expiry: Duration,
    /// What the agents requests name may ask of the server.
    pub limits: AgentLimits,
    /// The access token every request must carry (`None`: none is asked).
    pub token: Option<String>,
    /// The games database every game is kept in (`None`: games live in memory only).
    pub archive: Option<PathBuf>,
}

/// Where `gui` keeps its games unless told otherwise: games.sqlite in the program's data
/// folder (`$XDG_DATA_HOME/checkers-zero`, else `~/.local/share/checkers-zero`).
pub fn default_archive() -> Option<PathBuf> {
    crate::files::data_home().map(|d| d.join(archive::FILE_NAME))
}

impl GuiOptions {
    /// The defaults (models/ and runs/ of the current folder) on `addr`.
    pub fn at(addr: SocketAddr) -> Self {
        GuiOptions {
            addr,
            open: false,
            models: Vec::new(),
            runs: Vec::new(),
            max_games: sessions::MAX_GAMES,
            game_expiry: sessions::GAME_EXPIRY,
            limits: AgentLimits::default(),
            token: None,
            archive: None,
        }
    }
}

/// What every request handler shares.
pub struct AppState {
    library: Library,
    sessions: Sessions,
    limits: AgentLimits,
}

type Shared = Arc<AppState>;

/// The whole application: API, events and the page.
fn app(opts: &GuiOptions) -> Result<Router, GuiError> {
    let archive = opts.archive.as_deref().map(Archive::open).transpose()?;
    let state = Arc::new(AppState {
        library: Library::new(opts.models.clone(), opts.runs.clone()),
        sessions: Sessions::new(opts.max_games, opts.game_expiry, opts.limits, archive)?,
        limits: opts.limits,
    });
    let router = Router::new()
        .merge(api::routes())
        .merge(runs::routes())
        .merge(assets::routes())
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::wrong_method)
        .layer(DefaultBodyLimit::max(MAX_BODY));
    let router = match &opts.token {
        Some(token) => router.layer(axum::middleware::from_fn_with_state(
            Arc::new(token.clone()),
            access::require,
        )),
        None => router,
    };
    Ok(router.with_state(state))
}

/// A server running on its own threads until dropped (tests, and `serve`).
pub struct Server {
    pub addr: SocketAddr,
    token: Option<String>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The archive's lock, let go once the server has stopped.
    _archive: Option<std::fs::File>,
}

impl Server {
    /// Binds `opts.addr` (port 0: any free port) and serves on a runtime of its own.
    pub fn start(opts: &GuiOptions) -> Result<Server, GuiError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("gui")
            .build()
            .map_err(GuiError::Threads)?;
        let listen = |source| GuiError::Listen {
            addr: opts.addr,
            source,
        };
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(opts.addr))
            .map_err(listen)?;
        let addr = listener.local_addr().map_err(listen)?;
        let archive_lock = opts.archive.as_deref().map(archive::lock).transpose()?;
        let app = app(opts)?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async {
                tokio::select! {
                    result = axum::serve(listener, app) => {
                        if let Err(e) = result {
                            eprintln!("error: the server stopped: {e}");
                        }
                    }
                    _ = rx => {}
                }
            });
            // Open event streams and searches do not hold the process.
            runtime.shutdown_background();
        });
        Ok(Server {
            addr,
            token: opts.token.clone(),
            shutdown: Some(tx),
            thread: Some(thread),
            _archive: archive_lock,
        })
    }

    /// The page's address, with the access token where one is asked.
    pub fn url(&self) -> String {
        match &self.token {
            Some(token) => format!("http://{}/?token={token}", self.addr),
            None => format!("http://{}/", self.addr),
        }
    }

    /// Serves until the process is stopped.
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `checkers-zero gui`: serves until Ctrl-C (every change is committed to the archive as it
/// is made, so being stopped at any moment loses at most a search under way).
pub fn serve(opts: GuiOptions) -> Result<(), GuiError> {
    let server = Server::start(&opts)?;
    let url = server.url();
    event("gui", "listening")
        .with("url", &url)
        .say(format_args!("open {url} (Ctrl-C stops the server)"));
    match &opts.archive {
        Some(file) => event("gui", "archive")
            .with("file", file)
            .say(format_args!("games are kept in {}", file.display())),
        None => event("gui", "archive")
            .say("games are kept in memory only (--no-archive): they end with the server"),
    }
    if !opts.addr.ip().is_loopback() {
        event("gui", "open to all")
            .with("ip", opts.addr.ip())
            .say(format_args!(
                "serving on {}: anyone who can reach it can use it",
                opts.addr.ip()
            ));
    }
    let (addr, token) = (server.addr, opts.token.clone());
    health::start(
        "gui",
        Some(Box::new(move || answers(addr, token.as_deref()))),
    );
    if opts.open {
        open_browser(&url);
    }
    server.wait();
    Ok(())
}

/// Whether the server at `addr` answers `GET /api/info` with 200 within a few seconds: the
/// health check's probe, which a hung server fails although its port still accepts.
fn answers(addr: SocketAddr, token: Option<&str>) -> Result<(), String> {
    use std::io::{Read, Write};
    let mut target = addr;
    if target.ip().is_unspecified() {
        target.set_ip(if addr.is_ipv4() {
            std::net::Ipv4Addr::LOCALHOST.into()
        } else {
            std::net::Ipv6Addr::LOCALHOST.into()
        });
    }
    let fail = |e: std::io::Error| format!("the server at {target} does not answer: {e}");
    let wait = Duration::from_secs(5);
    let mut stream = std::net::TcpStream::connect_timeout(&target, wait).map_err(fail)?;
    stream.set_read_timeout(Some(wait)).map_err(fail)?;
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request =
        format!("GET /api/info HTTP/1.1\r\nHost: localhost\r\n{auth}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(fail)?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).map_err(fail)?;
    match &head[9..12] {
        b"200" => Ok(()),
        status => Err(format!(
            "the server at {target} answers /api/info with {}",
            String::from_utf8_lossy(status)
        )),
    }
}

/// Opens `url` in the desktop's browser, in the background; says in one line to open it by
/// hand when no browser could be started (the opener's own messages are not shown).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    // explorer exits with 1 even when it opened the page: there only its start counts.
    let check_exit = !cfg!(windows);
    let url = url.to_string();
    std::thread::spawn(move || {
        if let Err(why) = run_opener(&[opener, &url], check_exit) {
            eprintln!("could not open a browser ({why}): open {url} yourself");
        }
    });
}

/// Runs `command` (a program and its arguments) with its output discarded; why it could
/// not be started or, where `check_exit`, why it failed.
fn run_opener(command: &[&str], check_exit: bool) -> Result<(), String> {
    let (program, args) = command.split_first().ok_or("no program")?;
    let status = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("{program}: {e}"))?;
    match status.code() {
        _ if !check_exit => Ok(()),
        Some(0) => Ok(()),
        Some(code) => Err(format!("{program} exited with {code}")),
        None => Err(format!("{program} was stopped by a signal")),
    }
}

#[cfg(test)]
mod tests {
    use super::{GuiOptions, Server, answers, run_opener};

    #[test]
    fn the_health_probe_asks_the_server_and_fails_when_nobody_answers() {
        let token = "t0ken".to_string();
        let server = Server::start(&GuiOptions {
            token: Some(token.clone()),
            ..GuiOptions::at("0.0.0.0:0".parse().unwrap())
        })
        .unwrap();
        let addr = server.addr;
        assert_eq!(answers(addr, Some(&token)), Ok(()));
        let refused = answers(addr, Some("wrong")).expect_err("a wrong token");
        assert!(refused.ends_with("answers /api/info with 401"), "{refused}");
        drop(server);
        let down = answers(addr, Some(&token)).expect_err("the server is stopped");
        assert!(down.contains("does not answer"), "{down}");
    }

    #[test]
    #[cfg(unix)]
    fn a_failing_opener_is_one_reason_not_its_own_output() {
        assert_eq!(run_opener(&["true"], true), Ok(()));
        // An opener that writes its complaints and fails (as xdg-open does without a
        // browser): its words are discarded, its exit status is the reason.
        let noisy = ["sh", "-c", "echo one >&2; echo two; exit 3"];
        assert_eq!(
            run_opener(&noisy, true),
            Err("sh exited with 3".to_string())
        );
        // Where the exit status says nothing (explorer), only a failed start is a failure.
        assert_eq!(run_opener(&noisy, false), Ok(()));
        let missing = run_opener(&["no-such-opener-here"], false).expect_err("no such program");
        assert!(missing.starts_with("no-such-opener-here: "), "{missing}");
    }
}
