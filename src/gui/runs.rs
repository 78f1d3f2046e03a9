//! The dashboard's API: the charts it draws, training runs (with whether a process is still
//! writing them), their metrics, config and sample games. The page draws the charts from the
//! metrics and asks for the list again every few seconds to follow runs as they grow.

use super::error::ApiError;
use super::{AppState, Shared};
use crate::files::{CURVE_FILE, complete_json_lines};
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};
use std::path::{Path as FsPath, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The lock file a training process keeps in its run folder (`train::run_dir::LOCK_FILE`):
/// the process holds an advisory lock on it while it runs.
const LOCK_FILE: &str = "run.lock";

/// Where the lock cannot be probed, a run counts as live while its last write is at most
/// this old.
const QUIET_LIMIT: Duration = Duration::from_secs(30 * 60);

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/api/charts", get(charts))
        .route("/api/runs", get(list))
        .route("/api/runs/{name}/metrics", get(metrics))
        .route("/api/runs/{name}/curve", get(curve))
        .route("/api/runs/{name}/config", get(config))
        .route("/api/runs/{name}/games", get(games))
        .route("/api/runs/{name}/games/{file}", get(game))
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

/// The charts the dashboard draws (`crate::charts`, which `plot` draws too) and their axes.
async fn charts() -> Json<Value> {
    Json(crate::charts::served())
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
    let iterations = std::fs::read_to_string(&metrics).map_or(0, |t| complete_json_lines(&t).len());
    let curve_points = curve_points(dir).len();
    let modified = |path: &FsPath| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let metrics_modified = modified(&metrics);
    let last_write = metrics_modified.max(modified(&dir.join(LOCK_FILE)));
    json!({
        "name": name,
        // A config.json without a game is an older run's: checkers, as `train` reads it.
        "game": config.as_ref().map(|c| c.get("game").cloned().unwrap_or(json!("checkers"))),
        "network": config.as_ref().and_then(|c| c.get("network")),
        // The gating chart's reference line.
        "threshold": config.as_ref().and_then(|c| c.get("threshold")),
        "iterations": iterations,
        "curve_points": curve_points,
        "modified": metrics_modified
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_secs()),
        "live": is_live(dir, last_write),
    })
}

/// Whether a process is still writing the run in `dir`: one holds the lock on its lock file
/// (the trainer's `RunLock`, which the system drops when that process ends, however it
/// ends). The pid inside is not trusted: a dead trainer's pid may belong to another
/// process by now. Probing takes a shared lock for an instant (a trainer starting then
/// tries again).
fn is_live(dir: &FsPath, last_write: Option<SystemTime>) -> bool {
    let recent = || {
        last_write
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age <= QUIET_LIMIT)
    };
    let file = match std::fs::File::open(dir.join(LOCK_FILE)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        // Windows keeps a locked file from being opened: only the owner's writes tell.
        Err(_) => return recent(),
        Ok(file) => file,
    };
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        Err(std::fs::TryLockError::Error(_)) => recent(),
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
    Ok(Json(complete_json_lines(&text)))
}

/// The points of the run's learning curve played afterwards (`checkers-zero curve`): the
/// lines of curve.jsonl after its settings, none where it has no curve.
fn curve_points(dir: &FsPath) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(CURVE_FILE)).unwrap_or_default();
    complete_json_lines(&text).into_iter().skip(1).collect()
}

async fn curve(
    State(state): State<Shared>,
    Path(name): Path<String>,
) -> Result<Json<Vec<Value>>, ApiError> {
    Ok(Json(curve_points(&run_dir(&state, &name)?)))
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
