//! `checkers-zero gui`: the browser interface, served by the program itself (docs/gui.md).
//! The page's files are built in (web/, src/gui/assets.rs); the JSON API plays games
//! (api.rs, sessions.rs, view.rs) and shows training runs (runs.rs) from the folders the
//! server was given (library.rs).

mod api;
mod assets;
mod boards;
mod error;
mod levels;
mod library;
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
}
use axum::Router;
use axum::extract::DefaultBodyLimit;
use library::Library;
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
        }
    }
}

/// What every request handler shares.
pub struct AppState {
    library: Library,
    sessions: Sessions,
}

type Shared = Arc<AppState>;

/// The whole application: API, events and the page.
fn app(opts: &GuiOptions) -> Router {
    let state = Arc::new(AppState {
        library: Library::new(opts.models.clone(), opts.runs.clone()),
        sessions: Sessions::new(opts.max_games, opts.game_expiry),
    });
    Router::new()
        .merge(api::routes())
        .merge(runs::routes())
        .merge(assets::routes())
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::wrong_method)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// A server running on its own threads until dropped (tests, and `serve`).
pub struct Server {
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
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
        let app = app(opts);
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
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
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

/// `checkers-zero gui`: serves until Ctrl-C (the server writes nothing to disk, so being
/// stopped at any moment loses nothing).
pub fn serve(opts: GuiOptions) -> Result<(), GuiError> {
    let server = Server::start(&opts)?;
    let url = server.url();
    println!("checkers-zero gui: open {url} (Ctrl-C stops the server)");
    if !opts.addr.ip().is_loopback() {
        println!(
            "note: serving on {}: anyone who can reach it can use it",
            opts.addr.ip()
        );
    }
    if opts.open {
        open_browser(&url);
    }
    server.wait();
    Ok(())
}

/// Opens `url` in the desktop's browser; says so when none can be started.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("could not open a browser ({opener}: {e}): open {url} yourself");
    }
}
