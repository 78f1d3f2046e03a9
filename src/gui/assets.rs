//! The page's files (web/), built into the binary by build.rs. `CHECKERS_ZERO_WEB_DIR`
//! serves them from a folder instead, to work on the page without rebuilding.

use axum::Router;
use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::Shared;
use super::error::ApiError;

/// (file name, contents) of every file in web/.
const ASSETS: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/", get(|| asset(Path("index.html".to_string()))))
        .route("/{file}", get(asset))
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

async fn asset(Path(file): Path<String>) -> Result<Response, ApiError> {
    let missing = || ApiError::not_found(format!("no such path /{file}"));
    let body: Vec<u8> = match std::env::var_os("CHECKERS_ZERO_WEB_DIR") {
        // Only names the binary has, so the folder's other files stay unreachable.
        Some(dir) if ASSETS.iter().any(|(n, _)| *n == file) => {
            std::fs::read(std::path::Path::new(&dir).join(&file)).map_err(|_| missing())?
        }
        _ => ASSETS
            .iter()
            .find(|(n, _)| *n == file)
            .map(|(_, bytes)| bytes.to_vec())
            .ok_or_else(missing)?,
    };
    Ok(([(header::CONTENT_TYPE, content_type(&file))], body).into_response())
}
