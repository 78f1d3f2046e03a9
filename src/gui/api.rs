//! The JSON API of the play page (docs/gui.md): games, moves, agents' searches, and their
//! events.

use super::archive::{Filter, Listing};
use super::boards::{Board, standard_ballots};
use super::clock::TimeControl;
use super::error::ApiError;
use super::levels::{DEFAULT_LEVEL, LEVELS};
use super::library::Library;
use super::sessions::{Event, HUMAN, Kept, Opened, SearchAsk, Session, Table};
use super::view::{self, GameView, Players};
use super::{AppState, Shared};
use crate::agents::{AgentGame, AgentSpec, Limits, kinds, settings};
use crate::games::{
    Color, DrawReason, GAME, Game, GameName, LineId, Node, Outcome, Rules, Variations, WinReason,
    on_game,
};
use crate::names::Named;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, Path, Query, RawQuery, Request, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use futures_util::Stream;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/api/info", get(info))
        .route("/api/games", post(create_game).get(list_games))
        .route("/api/games/{id}", get(get_game).delete(delete_game))
        .route("/api/games/{id}/ply/{n}", get(get_ply))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/lines", post(play_in_line))
        .route("/api/games/{id}/lines/{line}", delete(delete_line))
        .route("/api/games/{id}/explain", post(explain))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/search", post(search))
        .route("/api/games/{id}/stop", post(stop))
        .route("/api/games/{id}/pdn", get(pdn))
        .route("/api/games/{id}/analyses", get(analyses))
        .route("/api/games/{id}/events", get(events))
}

/// A JSON request body, read with the API's own errors: a body that is not JSON, or not
/// what the endpoint takes, gets a one-line reason (unknown fields are refused so that a
/// misspelt one is not silently ignored). An empty body reads as `{}`.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::new(e.status(), format!("request body: {}", e.body_text())))?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(bytes)
            .map(Body)
            .map_err(|e| ApiError::bad_request(format!("malformed JSON body: {e}")))
    }
}

/// A game id from the path.
fn game_id(text: &str) -> Result<u64, ApiError> {
    text.parse()
        .map_err(|_| ApiError::bad_request(format!("game id {text:?}: expected a number")))
}

fn table(state: &AppState, id: &str) -> Result<Table, ApiError> {
    state.sessions.get(game_id(id)?)
}

/// The endgame database folders an agent's `egdb` may name here: `none`, and the folder
/// agents use by default where it holds databases.
fn databases() -> Vec<String> {
    let mut folders = vec!["none".to_string()];
    folders.extend(crate::endgame::checkers::default_dir().map(|d| d.display().to_string()));
    folders
}

async fn info(State(state): State<Shared>) -> Json<Value> {
    let ballots: Vec<Value> = standard_ballots()
        .iter()
        .enumerate()
        .map(|(i, b)| json!({"index": i, "label": b.label(), "moves": b.moves, "name": b.name()}))
        .collect();
    let models: Vec<Value> = state
        .library
        .models()
        .into_iter()
        .map(|name| json!({"name": name, "game": Library::model_game(&name).name()}))
        .collect();
    let agents: serde_json::Map<String, Value> = GameName::ALL
        .iter()
        .map(|&game| {
            let kinds = on_game!(game, G => G::kinds().map(|k| k.describe()).collect::<Vec<_>>());
            (game.name().to_string(), json!(kinds))
        })
        .collect();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "games": GameName::NAMES,
        "agents": agents,
        "levels": LEVELS,
        "default_level": DEFAULT_LEVEL,
        "models": models,
        "databases": databases(),
        "ballots": ballots,
        "game_expiry_s": state.sessions.expiry().as_secs(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    game: Option<String>,
    start: Option<String>,
    ballot: Option<usize>,
    fen: Option<String>,
    pdn: Option<String>,
    /// Which game of a PDN text holding several (0, the first, by default).
    index: Option<usize>,
    /// Who plays each side: `human` (the default) or an agent spec.
    black: Option<String>,
    white: Option<String>,
    /// A position to look at, not a game to keep: left out of the archive.
    scratch: Option<bool>,
    /// The time control: `3+2` (minutes each, seconds added a move) or `none` (the
    /// default).
    clock: Option<String>,
}

/// The game a `POST /api/games` body asks for, and the players' names a record gives.
fn new_game<G: Board>(req: &NewGame) -> Result<(Opened<G>, Option<Players>), ApiError> {
    let missing = |field: &str, start: &str| {
        ApiError::bad_request(format!("start {start:?} needs the field {field:?}"))
    };
    let mut ballots = G::ballots();
    let has_ballots = !ballots.is_empty();
    if req.index.is_some() && req.start.as_deref() != Some("pdn") {
        return Err(ApiError::bad_request(
            "index picks a game of a PDN text: give start \"pdn\"",
        ));
    }
    let game = match req.start.as_deref().unwrap_or("initial") {
        "initial" => Ok(Game::at_start()),
        "ballot" if has_ballots => {
            let index = req.ballot.ok_or_else(|| missing("ballot", "ballot"))?;
            let last = ballots.len() - 1;
            (index <= last)
                .then(|| ballots.swap_remove(index))
                .ok_or_else(|| {
                    ApiError::bad_request(format!(
                        "ballot {index}: expected 0-{last} (the standard ballots)"
                    ))
                })
        }
        "fen" => {
            let fen = req.fen.as_deref().ok_or_else(|| missing("fen", "fen"))?;
            G::parse_position(fen)
                .map(Game::from_position)
                .map_err(|e| ApiError::bad_request(format!("bad position: {e}")))
        }
        "pdn" => {
            let mut records = G::load(req.pdn.as_deref().ok_or_else(|| missing("pdn", "pdn"))?)?;
            let (index, count) = (req.index.unwrap_or(0), records.len());
            if index >= count {
                return Err(ApiError::bad_request(format!(
                    "index {index}: the text holds {count} game{}, 0-{}",
                    if count == 1 { "" } else { "s" },
                    count - 1
                )));
            }
            let record = records.swap_remove(index);
            let name = |tag| record.tag(tag).unwrap_or("?").to_string();
            let named = record.tag("Black").is_some() || record.tag("White").is_some();
            let names = named.then(|| Players {
                black: name("Black"),
                white: name("White"),
            });
            return Ok(((record.game, record.variations), names));
        }
        other => Err(ApiError::bad_request(format!(
            "start {other:?}: expected initial, {}fen or pdn",
            if has_ballots { "ballot, " } else { "" }
        ))),
    };
    game.map(|g| ((g, Variations::default()), None))
}

/// Holds a new game of `G` for the request.
fn create<G: Board>(
    state: &AppState,
    req: &NewGame,
    wrap: fn(Arc<Session<G>>) -> Table,
) -> Result<GameView, ApiError> {
    let (game, names) = new_game::<G>(req)?;
    // An agent is built once here, so that a spec its kind refuses (an unknown kind, a bad
    // option or value) is this request's error, not a game that never gets its move.
    let player = |spec: &Option<String>| -> Result<String, ApiError> {
        match spec.as_deref() {
            None | Some(HUMAN) => Ok(HUMAN.into()),
            Some(text) => {
                let spec = agent_spec::<G>(state, text)?;
                spec.build::<G>(0).map_err(ApiError::bad_request)?;
                Ok(spec.to_string())
            }
        }
    };
    let players = Players {
        black: player(&req.black)?,
        white: player(&req.white)?,
    };
    let control = match req.clock.as_deref().map(str::trim) {
        None | Some("none" | "") => None,
        Some(text) => Some(text.parse::<TimeControl>().map_err(ApiError::bad_request)?),
    };
    let scratch = req.scratch.unwrap_or(false);
    let kept = Kept::new(players, names, control);
    Ok(state.sessions.create(game, kept, scratch, wrap).view())
}

/// The game a `POST /api/games` body names (checkers when it names none).
fn new_game_name(req: &NewGame) -> Result<GameName, ApiError> {
    let Some(text) = req.game.as_deref() else {
        return Ok(GameName::Checkers);
    };
    text.parse().map_err(|_| {
        ApiError::bad_request(format!(
            "unknown game {text:?}: expected {}",
            GameName::NAMES.join(" or ")
        ))
    })
}

async fn create_game(State(state): State<Shared>, Body(req): Body<NewGame>) -> Response {
    let made = new_game_name(&req)
        .and_then(|game| on_game!(game, G, Table(wrap) => create::<G>(&state, &req, wrap)));
    match made {
        Ok(view) => (StatusCode::CREATED, Json(view)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `GET /api/games`'s query: a page of the archive's games, filtered.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GamesQuery {
    limit: Option<u32>,
    offset: Option<u64>,
    game: Option<String>,
    player: Option<String>,
    finished: Option<bool>,
}

/// The most games one page lists.
const MAX_PAGE: u32 = 200;

async fn list_games(
    State(state): State<Shared>,
    query: Result<Query<GamesQuery>, QueryRejection>,
) -> Result<Json<Listing>, ApiError> {
    let Query(q) = query.map_err(|e| {
        ApiError::bad_request(format!(
            "{}; expected limit (1-{MAX_PAGE}), offset, game, player or finished (true or false)",
            e.body_text()
        ))
    })?;
    let archive = state.sessions.archive().ok_or_else(|| {
        ApiError::not_found("this server keeps no archive of its games (started with --no-archive)")
    })?;
    let limit = q.limit.unwrap_or(50);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit {limit}: expected 1-{MAX_PAGE} games a page"
        )));
    }
    let game = q
        .game
        .map(|g| {
            g.parse::<GameName>()
                .map(|g| g.name().to_string())
                .map_err(|_| {
                    ApiError::bad_request(format!(
                        "game {g:?}: expected {}",
                        GameName::NAMES.join(" or ")
                    ))
                })
        })
        .transpose()?;
    let filter = Filter {
        game,
        player: q.player.filter(|p| !p.is_empty()),
        finished: q.finished,
        limit,
        offset: q.offset.unwrap_or(0),
    };
    archive.list(&filter).map(Json).map_err(ApiError::from)
}

async fn get_game(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<GameView>, ApiError> {
    Ok(Json(on_game!(Table(s) in table(&state, &id)? => s.view())))
}

async fn delete_game(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    state.sessions.remove(game_id(&id)?)?;
    Ok(StatusCode::NO_CONTENT)
}

/// The line a `?line=K` query names (the game without one); any other query is refused,
/// in the API's own JSON errors.
fn line_query(query: Option<&str>) -> Result<LineId, ApiError> {
    match query.filter(|q| !q.is_empty()) {
        None => Ok(GAME),
        Some(q) => match q.strip_prefix("line=") {
            Some(text) => line_id(Some(text)),
            None => Err(ApiError::bad_request(format!(
                "query {q:?}: expected line=K, a side line's number"
            ))),
        },
    }
}

fn line_id(text: Option<&str>) -> Result<LineId, ApiError> {
    text.map_or(Ok(GAME), |text| {
        text.parse().map_err(|_| {
            ApiError::bad_request(format!(
                "line {text:?}: expected a side line's number (0: the game)"
            ))
        })
    })
}

async fn get_ply(
    State(state): State<Shared>,
    Path((id, ply)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let t = table(&state, &id)?;
    let ply: usize = ply
        .parse()
        .map_err(|_| ApiError::bad_request(format!("ply {ply:?}: expected a number")))?;
    let node = Node::new(line_query(query.as_deref())?, ply);
    on_game!(Table(s) in t => s.with_lines(|g, v| {
        view::ply_view(g, v, node)
            .map(|v| Json(v).into_response())
            .map_err(|e| ApiError::not_found(e.0))
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineMoveRequest {
    /// The position's line (0, the default: the game) and ply.
    line: Option<LineId>,
    ply: usize,
    #[serde(rename = "move")]
    text: String,
}

/// A move played at an earlier position of the game or a side line: it follows the line
/// there, or grows or makes a side line. Answers the position it leads to and the game.
async fn play_in_line(
    State(state): State<Shared>,
    Path(id): Path<String>,
    Body(req): Body<LineMoveRequest>,
) -> Result<Json<Value>, ApiError> {
    let node = Node::new(req.line.unwrap_or(GAME), req.ply);
    let (position, state) = on_game!(Table(s) in table(&state, &id)? => {
        let (position, view) = s.vary(|g, v| {
            v.play(g, node, &req.text).map_err(|e| ApiError::unprocessable(e.0))
        })?;
        (json!(position), json!(view))
    });
    Ok(Json(json!({"position": position, "state": state})))
}

/// Deletes a side line and those that leave it. Answers the position it left from and the
/// game.
async fn delete_line(
    State(state): State<Shared>,
    Path((id, line)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let line = line_id(Some(&line))?;
    let (position, state) = on_game!(Table(s) in table(&state, &id)? => {
        let (position, view) = s.vary(|_, v| v.remove(line).map_err(|e| ApiError::not_found(e.0)))?;
        (json!(position), json!(view))
    });
    Ok(Json(json!({"position": position, "state": state})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    #[serde(rename = "move")]
    text: String,
}

async fn play_move(
    State(state): State<Shared>,
    Path(id): Path<String>,
    Body(req): Body<MoveRequest>,
) -> Result<Json<GameView>, ApiError> {
    on_game!(Table(s) in table(&state, &id)? => {
        let (_, view) = s.update(|g| {
            g.play_text(&req.text)
                .map(|_| ())
                .map_err(|e| ApiError::unprocessable(e.0))
        })?;
        Ok(Json(view))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplainRequest {
    square: u32,
    /// Another position than the game's: its line (0, the default: the game) and ply.
    line: Option<LineId>,
    ply: Option<usize>,
}

async fn explain(
    State(state): State<Shared>,
    Path(id): Path<String>,
    Body(req): Body<ExplainRequest>,
) -> Result<Json<Value>, ApiError> {
    let square = req.square;
    let reason = on_game!(Table(s) in table(&state, &id)? => s.with_lines(|g, v| {
        match (req.ply, req.line) {
            (None, None) => why_not(g, square),
            (None, Some(_)) => Err(ApiError::bad_request("line needs the ply of its position")),
            (Some(ply), line) => {
                let at = v
                    .game_at(g, Node::new(line.unwrap_or(GAME), ply))
                    .map_err(|e| ApiError::unprocessable(e.0))?;
                why_not(&at, square)
            }
        }
    }))?;
    Ok(Json(
        json!({"square": square, "movable": reason.is_none(), "reason": reason}),
    ))
}

/// Why `square` cannot start a move in the game now, in `G`'s words.
fn why_not<G: Board>(game: &Game<G>, square: u32) -> Result<Option<String>, ApiError> {
    match game.outcome() {
        Some(outcome) => Ok(Some(format!("the game is over: {outcome}"))),
        None => G::why_not(game.position(), square),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UndoRequest {
    plies: Option<usize>,
}

async fn undo(
    State(state): State<Shared>,
    Path(id): Path<String>,
    Body(req): Body<UndoRequest>,
) -> Result<Json<GameView>, ApiError> {
    let plies = req.plies.unwrap_or(1);
    on_game!(Table(s) in table(&state, &id)? => {
        let (_, view) = s.update(|g| {
            if plies == 0 || plies > g.ply() {
                return Err(ApiError::unprocessable(format!(
                    "cannot take back {plies} plies: the game has {} to take back",
                    g.ply()
                )));
            }
            for _ in 0..plies {
                g.undo();
            }
            Ok(())
        })?;
        Ok(Json(view))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResignRequest {
    side: String,
}

fn parse_side(text: &str) -> Result<Color, ApiError> {
    match text {
        "black" => Ok(Color::Black),
        "white" => Ok(Color::White),
        other => Err(ApiError::bad_request(format!(
            "side {other:?}: expected black or white"
        ))),
    }
}

async fn resign(
    State(state): State<Shared>,
    Path(id): Path<String>,
    Body(req): Body<ResignRequest>,
) -> Result<Json<GameView>, ApiError> {
    let side = parse_side(&req.side)?;
    let outcome = Outcome::Win(side.opposite(), WinReason::Resignation);
    on_game!(Table(s) in table(&state, &id)? => Ok(Json(s.update(|g| end_game(g, outcome))?.1)))
}

fn end_game<G: Rules>(game: &mut Game<G>, outcome: Outcome) -> Result<(), ApiError> {
    if let Some(o) = game.outcome() {
        return Err(ApiError::conflict(format!("the game is over: {o}")));
    }
    game.impose(outcome);
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawRequest {
    /// The agent asked; none when both players are at one screen and agreed.
    agent: Option<String>,
    /// The side that offers (the agent plays the other).
    side: Option<String>,
}

/// An agent accepts a draw when it values its own side below this (on its own scale: men
/// for alpha-beta, -1..1 for the networks): it takes a draw only when it is worse.
const DRAW_ACCEPT_BELOW: f32 = -0.1;

async fn draw(
    State(state): State<Shared>,
    Path(id): Path<String>,
    Body(req): Body<DrawRequest>,
) -> Result<Json<Value>, ApiError> {
    on_game!(Table(s) in table(&state, &id)? => offer_draw(&state, s, req).await)
}

async fn offer_draw<G: Board>(
    state: &AppState,
    s: Arc<Session<G>>,
    req: DrawRequest,
) -> Result<Json<Value>, ApiError> {
    s.with_game(|g| match g.outcome() {
        Some(o) => Err(ApiError::conflict(format!("the game is over: {o}"))),
        None => Ok(()),
    })?;
    let (accepted, reason) = match req.agent {
        None => (true, "both players agreed".to_string()),
        Some(text) => {
            let offering = parse_side(req.side.as_deref().unwrap_or("")).map_err(|e| {
                ApiError::bad_request(format!(
                    "a draw offer to an agent needs the offering side: {}",
                    e.message
                ))
            })?;
            let spec = agent_spec::<G>(state, &text)?;
            let mut agent = s.agent(&spec).await?;
            let permit = state.sessions.permit()?;
            let game = s.with_game(Game::clone);
            let value = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                let d = agent.select(&game, &Limits::default());
                let value = d.analysis.map_or(0.0, |a| a.value);
                // The analysis is from the side to move; the agent plays the other side
                // from the one offering.
                if game.turn() == offering {
                    -value
                } else {
                    value
                }
            })
            .await
            .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the agent failed"))?;
            let accepted = value < DRAW_ACCEPT_BELOW;
            // Adding 0 turns -0.00 into +0.00.
            let value = value + 0.0;
            let reason = if accepted {
                format!("{spec} thinks its side is worse ({value:+.2} on its own scale)")
            } else if value < 0.0 {
                format!(
                    "{spec} thinks its side is only a little worse ({value:+.2} on its own \
                     scale) and plays on"
                )
            } else {
                format!(
                    "{spec} does not think its side is worse ({value:+.2} on its own scale) \
                     and plays on"
                )
            };
            (accepted, reason)
        }
    };
    let view = if accepted {
        s.update(|g| end_game(g, Outcome::Draw(DrawReason::Agreement)))?
            .1
    } else {
        s.view()
    };
    Ok(Json(
        json!({"accepted": accepted, "reason": reason, "state": view}),
    ))
}

/// An agent spec from the page for game `G`: it parses, a `model` it names is one the
/// server listed, of this game, and it names no book (no other path is opened).
fn agent_spec<G: Board>(state: &AppState, text: &str) -> Result<AgentSpec, ApiError> {
    let spec: AgentSpec = text
        .parse()
        .map_err(|e: crate::agents::AgentError| ApiError::bad_request(e))?;
    state.limits.check(&spec).map_err(ApiError::bad_request)?;
    // A book is a file the page would name; the server opens no path it did not list.
    if spec.get(kinds::az::BOOK.key()).is_some() {
        return Err(ApiError::bad_request(
            "book: the browser's agents play without an opening book (`match` and the engine \
             take one)",
        ));
    }
    // `az` and the learned agents name their model alike.
    if let Some(model) = spec.get(kinds::az::MODEL.key()) {
        state.library.model_path(model)?;
        let plays = Library::model_game(model);
        if plays != G::NAME {
            return Err(ApiError::bad_request(format!(
                "model {model:?} plays {}, not {}",
                plays.name(),
                G::NAME.name()
            )));
        }
    }
    Ok(spec)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchRequest {
    agent: String,
    play: Option<bool>,
    /// Search the position after this many plies instead of the game's (analysis only).
    ply: Option<usize>,
    /// The line `ply` is of: a side line's number (0, the default: the game).
    line: Option<LineId>,
    /// Search until `stop` (analysis only).
    infinite: Option<bool>,
    /// How many of the best moves to report with their lines (MultiPV), 1-64.
    lines: Option<usize>,
}

async fn search(
    State(state): State<Shared>,
    Path(id): Path<String>,
    Body(req): Body<SearchRequest>,
) -> Result<Response, ApiError> {
    on_game!(Table(s) in table(&state, &id)? => start_search(&state, s, req).await)
}

async fn start_search<G: Board>(
    state: &AppState,
    s: Arc<Session<G>>,
    req: SearchRequest,
) -> Result<Response, ApiError> {
    let spec = agent_spec::<G>(state, &req.agent)?;
    let infinite = req.infinite.unwrap_or(false);
    let play = req.play.unwrap_or(req.ply.is_none() && !infinite);
    if play && infinite {
        return Err(ApiError::bad_request(
            "an infinite search cannot play its move: give play false",
        ));
    }
    if req.ply.is_none() {
        s.check_can_search()?;
    }
    let permit = state.sessions.permit()?;
    let agent = s.agent(&spec).await?;
    let search = state.sessions.search_id();
    let ask = SearchAsk {
        play,
        at: match (req.ply, req.line) {
            (Some(ply), line) => Some(Node::new(line.unwrap_or(GAME), ply)),
            (None, None) => None,
            (None, Some(_)) => return Err(ApiError::bad_request("line needs the ply it searches")),
        },
        infinite,
        for_ply: None,
        lines: match req.lines {
            None => 1,
            Some(n) => settings::LINES
                .check(n)
                .map_err(|e| ApiError::bad_request(format!("lines: {e}")))?,
        },
    };
    let search = s.start_search(search, spec, agent, ask, permit)?;
    Ok((StatusCode::ACCEPTED, Json(json!({"search": search}))).into_response())
}

async fn stop(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let stopped = on_game!(Table(s) in table(&state, &id)? => s.stop());
    Ok(Json(json!({"stopped": stopped})))
}

async fn pdn(State(state): State<Shared>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (game, text) = on_game!(Table(s) in table(&state, &id)? => {
        let view = s.view();
        (view.game, view.pdn)
    });
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{game}-game-{id}.pdn\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// The last finished analysis of each of the game's own positions, by ply.
async fn analyses(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Vec<Value>>, ApiError> {
    Ok(Json(
        on_game!(Table(s) in table(&state, &id)? => s.analyses()),
    ))
}

async fn events(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<axum::response::sse::Event, Infallible>>>, ApiError> {
    let (view, rx) = on_game!(Table(s) in table(&state, &id)? => (s.view(), s.subscribe()));
    let first = Event {
        name: "state",
        data: serde_json::to_string(&view).expect("views serialise"),
    };
    let stream = futures_util::stream::unfold((Some(first), rx), |(first, mut rx)| async move {
        if let Some(event) = first {
            return Some((sse(event), (None, rx)));
        }
        loop {
            match rx.recv().await {
                Ok(event) => return Some((sse(event), (None, rx))),
                // A slow page missed some events; the next `state` brings it up to date.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

pub fn sse(event: Event) -> Result<axum::response::sse::Event, Infallible> {
    Ok(axum::response::sse::Event::default()
        .event(event.name)
        .data(event.data))
}

/// The JSON 404 for any path the API does not have.
pub async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no such path {}", uri.path()))
}

/// The JSON 405 for a path used with the wrong method.
pub async fn wrong_method(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{method} is not allowed on {} (see docs/gui.md)",
            uri.path()
        ),
    )
}
