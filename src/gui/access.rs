//! The access token of a server bound beyond the loopback: every page and API call must
//! carry it (as Jupyter asks), since whoever reaches the server runs agents on it. The
//! address printed at start holds it (`?token=...`); a request that brings it so gets it
//! back as a cookie, so the page's own calls and event streams carry it from then on.
//! Scripts send `Authorization: Bearer TOKEN`.

use super::error::ApiError;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The cookie that carries the token.
const COOKIE: &str = "checkers_zero_token";

/// A fresh token: 24 random hexadecimal digits.
pub fn fresh_token() -> String {
    format!("{:024x}", rand::random::<u128>() >> 32)
}

/// The token a request brings, from where it may bring it, and whether it came in the
/// query (then it is set as a cookie).
fn presented(request: &Request) -> (Option<String>, bool) {
    let headers = request.headers();
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            c.trim()
                .strip_prefix(&format!("{COOKIE}="))
                .map(str::to_string)
        });
    let query = request.uri().query().and_then(|q| {
        q.split('&')
            .find_map(|p| p.strip_prefix("token=").map(str::to_string))
    });
    match (bearer.or(cookie), query) {
        (Some(t), _) => (Some(t), false),
        (None, Some(q)) => (Some(q), true),
        (None, None) => (None, false),
    }
}

/// Serves a request that carries `token`, refuses one that does not (401, one JSON line
/// saying where the token is).
pub async fn require(State(token): State<Arc<String>>, request: Request, next: Next) -> Response {
    let (given, from_query) = presented(&request);
    // Compared whole, in time independent of where the first difference is.
    let matches = given.as_deref().is_some_and(|g| {
        g.len() == token.len()
            && g.bytes()
                .zip(token.bytes())
                .fold(0, |d, (a, b)| d | (a ^ b))
                == 0
    });
    if !matches {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "this server needs its access token: open the address it printed at start \
             (it ends in ?token=...), or send Authorization: Bearer TOKEN",
        )
        .into_response();
    }
    let mut response = next.run(request).await;
    if from_query {
        let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_and_24_digits() {
        let (a, b) = (fresh_token(), fresh_token());
        assert_eq!(a.len(), 24);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
