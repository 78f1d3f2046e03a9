//! The dashboard's API: training runs, their metrics, charts, config and sample games, and
//! the metrics as they grow while `train` runs.

use super::error::ApiError;
use super::sessions::Event;
use super::{AppState, Shared};
use crate::plot;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures_util::Stream;
use serde_json::{Value, json};
use std::convert::Infallible;
use std::path::{Path as FsPath, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often a watched run's metrics.jsonl is looked at.
const POLL: Duration = Duration::from_secs(1);

/// The lock file a training process keeps in its run folder (`train::run_dir::LOCK_FILE`):
/// it holds the process's id while the process runs and is emptied when it ends cleanly.
const LOCK_FILE: &str = "run.lock";

/// Where processes cannot be looked up (no /proc), a run whose lock names an owner counts
/// as live while its last write is at most this old.
const QUIET_LIMIT: Duration = Duration::from_secs(30 * 60);

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/api/runs", get(list))
        .route("/api/runs/{name}/metrics", get(metrics))
        .route("/api/runs/{name}/config", get(config))
        .route("/api/runs/{name}/plots", get(plots))
        .route("/api/runs/{name}/plots/{file}", get(plot_svg))
        .route("/api/runs/{name}/games", get(games))
        .route("/api/runs/{name}/games/{file}", get(game))
        .route("/api/runs/{name}/events", get(events))
}

fn read_text(path: &FsPath) -> Result<String, ApiError> {
    std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ApiError::not_found(format!("{} does not exist", path.display()))
        } else {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("cannot read {}: {e}", path.display()),
            )
        }
    })
}

/// The complete lines of metrics.jsonl as JSON (a line still being written is left out).
fn metric_lines(text: &str) -> Vec<Value> {
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    complete
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

async fn list(State(state): State<Shared>) -> Result<Json<Vec<Value>>, ApiError> {
    let runs = state.library.runs();
    // Every run's files are read: off the server's async threads.
    let list = tokio::task::spawn_blocking(move || {
        runs.iter()
            .map(|run| run_summary(&run.name, &run.path))
            .collect()
    })
    .await
    .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "listing the runs failed"))?;
    Ok(Json(list))
}

/// A run as `GET /api/runs` lists it.
fn run_summary(name: &str, dir: &FsPath) -> Value {
    let config: Option<Value> = std::fs::read_to_string(dir.join("config.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let metrics = dir.join("metrics.jsonl");
    let iterations = std::fs::read_to_string(&metrics).map_or(0, |t| metric_lines(&t).len());
    let modified = |path: &FsPath| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let metrics_modified = modified(&metrics);
    let last_write = metrics_modified.max(modified(&dir.join(LOCK_FILE)));
    json!({
        "name": name,
        // A config.json without a game is an older run's: checkers, as `train` reads it.
        "game": config.as_ref().map(|c| c.get("game").cloned().unwrap_or(json!("checkers"))),
        "network": config.as_ref().and_then(|c| c.get("network")),
        "iterations": iterations,
        "modified": metrics_modified
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_secs()),
        "live": is_live(dir, last_write),
    })
}

/// Whether a process is still writing the run in `dir`: its lock file names a process that
/// exists. A process killed while training leaves its id behind, and a clean exit none.
fn is_live(dir: &FsPath, last_write: Option<SystemTime>) -> bool {
    let recent = || {
        last_write
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age <= QUIET_LIMIT)
    };
    match std::fs::read_to_string(dir.join(LOCK_FILE)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        // Windows keeps a locked file from being read: only the owner's writes tell.
        Err(_) => recent(),
        Ok(owner) => match owner.trim().parse::<u32>() {
            Err(_) => false,
            Ok(pid) if FsPath::new("/proc/self").exists() => {
                FsPath::new("/proc").join(pid.to_string()).exists()
            }
            Ok(_) => recent(),
        },
    }
}

fn run_dir(state: &AppState, name: &str) -> Result<PathBuf, ApiError> {
    state.library.run_path(name)
}

async fn metrics(
    State(state): State<Shared>,
    Path(name): Path<String>,
) -> Result<Json<Vec<Value>>, ApiError> {
    let text = read_text(&run_dir(&state, &name)?.join("metrics.jsonl"))?;
    Ok(Json(metric_lines(&text)))
}

async fn config(
    State(state): State<Shared>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let path = run_dir(&state, &name)?.join("config.json");
    let text = read_text(&path)?;
    serde_json::from_str(&text).map(Json).map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("{} is not JSON: {e}", path.display()),
        )
    })
}

async fn plots(
    State(state): State<Shared>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    run_dir(&state, &name)?;
    let list: Vec<Value> = plot::PLOTS
        .iter()
        .map(|p| json!({"name": p.name, "title": p.title}))
        .collect();
    Ok(Json(Value::Array(list)))
}

async fn plot_svg(
    State(state): State<Shared>,
    Path((name, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let dir = run_dir(&state, &name)?;
    let kind = file
        .strip_suffix(".svg")
        .and_then(|stem| plot::PLOTS.iter().find(|p| p.name == stem))
        .ok_or_else(|| {
            let names: Vec<&str> = plot::PLOTS.iter().map(|p| p.name).collect();
            ApiError::not_found(format!(
                "no plot {file:?}: expected one of {}, as NAME.svg",
                names.join(", ")
            ))
        })?;
    let svg = tokio::task::spawn_blocking(move || {
        let metrics =
            plot::read_metrics(&dir).map_err(|e| ApiError::unprocessable(format!("{e:#}")))?;
        plot::svg(&metrics, kind.name).ok_or_else(|| ApiError::not_found("no such plot"))
    })
    .await
    .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "drawing the plot failed"))??;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

/// The sample games a run saved (games/iter-NNNN.pdn), by name.
fn game_files(dir: &FsPath) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("games"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".pdn") && !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

async fn games(
    State(state): State<Shared>,
    Path(name): Path<String>,
) -> Result<Json<Vec<String>>, ApiError> {
    Ok(Json(game_files(&run_dir(&state, &name)?)))
}

async fn game(
    State(state): State<Shared>,
    Path((name, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let dir = run_dir(&state, &name)?;
    // Only a listed file: the name cannot lead out of the run's games folder.
    if !game_files(&dir).contains(&file) {
        return Err(ApiError::not_found(format!(
            "run {name:?} has no game file {file:?}"
        )));
    }
    let text = read_text(&dir.join("games").join(&file))?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// `metrics` events: each line metrics.jsonl gains from now on.
async fn events(
    State(state): State<Shared>,
    Path(name): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<axum::response::sse::Event, Infallible>>>, ApiError> {
    let path = run_dir(&state, &name)?.join("metrics.jsonl");
    let seen = std::fs::read_to_string(&path).map_or(0, |t| metric_lines(&t).len());
    let stream = futures_util::stream::unfold(
        (path, seen, Vec::<Value>::new()),
        |(path, mut seen, mut pending)| async move {
            loop {
                if let Some(line) = pending.pop() {
                    let event = Event {
                        name: "metrics",
                        data: line.to_string(),
                    };
                    return Some((super::api::sse(event), (path, seen, pending)));
                }
                tokio::time::sleep(POLL).await;
                let lines = tokio::fs::read_to_string(&path)
                    .await
                    .map_or_else(|_| Vec::new(), |t: String| metric_lines(&t));
                if lines.len() < seen {
                    seen = 0; // the run was started again in the same folder
                }
                // Popped from the end: oldest last.
                pending = lines[seen..].iter().rev().cloned().collect();
                seen = lines.len();
            }
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
