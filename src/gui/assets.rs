//! The page's files (web/ and its subfolders, e.g. the vendored chart library in
//! web/vendor/), built into the binary by build.rs, each served at its path under web/.
//! `CHECKERS_ZERO_WEB_DIR` serves them from a folder instead, to work on the page without
//! rebuilding.

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::Shared;
use super::error::ApiError;

/// (path under web/, contents) of every file in web/.
const ASSETS: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// A route for each file (and `/` for index.html), so that any other path still gets the
/// API's 404.
pub fn routes() -> Router<Shared> {
    ASSETS.iter().fold(Router::new(), |router, &(name, bytes)| {
        let serve = get(move || asset(name, bytes));
        let router = router.route(&format!("/{name}"), serve.clone());
        if name == "index.html" {
            router.route("/", serve)
        } else {
            router
        }
    })
}

fn content_type(name: &str) -> &'static str {
    match std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
    {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        // A licence file beside vendored code.
        None => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

async fn asset(name: &'static str, built_in: &'static [u8]) -> Result<Response, ApiError> {
    let body: Vec<u8> = match std::env::var_os("CHECKERS_ZERO_WEB_DIR") {
        // Only names the binary has, so the folder's other files stay unreachable.
        Some(dir) => std::fs::read(std::path::Path::new(&dir).join(name))
            .map_err(|e| ApiError::not_found(format!("cannot read /{name} in {dir:?}: {e}")))?,
        None => built_in.to_vec(),
    };
    Ok(([(header::CONTENT_TYPE, content_type(name))], body).into_response())
}
