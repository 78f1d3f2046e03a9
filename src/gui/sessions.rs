//! The games the server holds, and the agents' searches on them: each search runs on a
//! blocking thread with a stop flag, so the async threads never wait on one and a game
//! abandoned or a `stop` pressed ends it.

use super::error::ApiError;
use super::view::{self, GameView, MoveView, side_name};
use crate::agents::{Agent, AgentSpec, Analysis, Limits, ScoreKind, StopFlag};
use crate::games::Game;
use axum::http::StatusCode;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast};

/// Games held at once; a page that leaves without deleting its game leaves it here.
pub const MAX_GAMES: usize = 1000;
/// Searches running at once over all games (each may use every core).
pub const MAX_SEARCHES: usize = 4;

/// A server-sent event: its name and JSON data.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: &'static str,
    pub data: String,
}

/// All games, and the permits that bound the searches.
pub struct Sessions {
    games: Mutex<HashMap<u64, Arc<Session>>>,
    next_id: AtomicU64,
    next_search: AtomicU64,
    permits: Arc<Semaphore>,
}

/// One game and what is happening on it.
pub struct Session {
    pub id: u64,
    inner: Mutex<SessionState>,
    events: broadcast::Sender<Event>,
}

struct SessionState {
    game: Game,
    /// Who played each side (`human` or the agent's spec), for the PDN's tags.
    players: [String; 2],
    search: Option<Running>,
    /// The agent of the last search, kept so its next search can reuse what it learnt
    /// (a search tree), with the spec it was built from.
    agent: Option<(String, Box<dyn Agent>)>,
    closed: bool,
}

struct Running {
    id: u64,
    stop: StopFlag,
}

/// The `analysis` event: what the agent thinks of the position it searched.
#[derive(Serialize, Debug)]
pub struct AnalysisView {
    pub search: u64,
    pub ply: usize,
    pub agent: String,
    #[serde(rename = "final")]
    pub done: bool,
    pub value: f32,
    pub value_for: &'static str,
    pub score_kind: &'static str,
    pub moves: Vec<ScoredMove>,
    pub pv: Vec<String>,
    pub summary: String,
    /// The move the agent chose.
    pub best: MoveView,
}

#[derive(Serialize, Debug)]
pub struct ScoredMove {
    #[serde(flatten)]
    pub mv: MoveView,
    pub score: f32,
    pub prior: Option<f32>,
}

impl AnalysisView {
    fn of(search: u64, game: &Game, agent: String, best: MoveView, a: &Analysis) -> Self {
        AnalysisView {
            search,
            ply: game.ply(),
            agent,
            done: true,
            value: a.value,
            value_for: side_name(game.turn()),
            score_kind: match a.score_kind {
                ScoreKind::Value => "value",
                ScoreKind::VisitShare => "visits",
            },
            moves: a
                .moves
                .iter()
                .map(|m| ScoredMove {
                    mv: MoveView::of(&m.mv),
                    score: m.score,
                    prior: m.prior,
                })
                .collect(),
            pv: a
                .pv
                .iter()
                .map(crate::games::checkers::move_to_pdn)
                .collect(),
            summary: a.summary.clone(),
            best,
        }
    }
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            games: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            next_search: AtomicU64::new(1),
            permits: Arc::new(Semaphore::new(MAX_SEARCHES)),
        }
    }
}

/// A lock whose holder panicked still guards consistent data here (every change is one
/// assignment or one `Game` call), so a poisoned lock is used as is.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Sessions {
    pub fn create(&self, game: Game) -> Result<Arc<Session>, ApiError> {
        let mut games = lock(&self.games);
        if games.len() >= MAX_GAMES {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the server holds {MAX_GAMES} games: delete some (DELETE /api/games/ID)"),
            ));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let session = Arc::new(Session {
            id,
            inner: Mutex::new(SessionState {
                game,
                players: ["human".into(), "human".into()],
                search: None,
                agent: None,
                closed: false,
            }),
            events: broadcast::channel(64).0,
        });
        games.insert(id, session.clone());
        Ok(session)
    }

    pub fn get(&self, id: u64) -> Result<Arc<Session>, ApiError> {
        lock(&self.games)
            .get(&id)
            .cloned()
            .ok_or_else(|| ApiError::not_found(format!("no game {id}")))
    }

    /// Forgets a game; its search, if any, stops.
    pub fn remove(&self, id: u64) -> Result<(), ApiError> {
        let session = lock(&self.games)
            .remove(&id)
            .ok_or_else(|| ApiError::not_found(format!("no game {id}")))?;
        let mut inner = lock(&session.inner);
        inner.closed = true;
        inner.cancel_search();
        Ok(())
    }

    /// A permit to run a search, or why not now.
    pub fn permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.permits.clone().try_acquire_owned().map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("{MAX_SEARCHES} searches are running: try again when one ends"),
            )
        })
    }

    pub fn search_id(&self) -> u64 {
        self.next_search.fetch_add(1, Ordering::Relaxed)
    }
}

impl SessionState {
    fn check_can_search(&self, id: u64) -> Result<(), ApiError> {
        if self.closed {
            return Err(ApiError::not_found(format!("no game {id}")));
        }
        if let Some(outcome) = self.game.outcome() {
            return Err(ApiError::conflict(format!("the game is over: {outcome}")));
        }
        if self.search.is_some() {
            return Err(ApiError::conflict(
                "a search is running on this game: wait for it or stop it",
            ));
        }
        Ok(())
    }

    fn view(&self, id: u64) -> GameView {
        let tags = [
            ("Event", "checkers-zero gui".to_string()),
            ("Black", self.players[0].clone()),
            ("White", self.players[1].clone()),
        ];
        view::game_view(id, &self.game, self.search.is_some(), &tags)
    }

    /// Stops a running search and drops its result: the game it searched has changed.
    fn cancel_search(&mut self) {
        if let Some(running) = self.search.take() {
            running.stop.stop();
        }
    }
}

impl Session {
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    pub fn view(&self) -> GameView {
        let inner = lock(&self.inner);
        inner.view(self.id)
    }

    fn send(&self, name: &'static str, data: &impl Serialize) {
        let data = serde_json::to_string(data).expect("views serialise");
        // No page listening is not an error.
        let _ = self.events.send(Event { name, data });
    }

    /// Changes the game with `change` (after cancelling a search: the game it searched is no
    /// longer the one on the board), then tells the listeners. An error leaves the game as
    /// it was.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut Game) -> Result<T, ApiError>,
    ) -> Result<(T, GameView), ApiError> {
        let mut inner = lock(&self.inner);
        let mut game = inner.game.clone();
        let out = change(&mut game)?;
        inner.cancel_search();
        inner.game = game;
        let view = inner.view(self.id);
        drop(inner);
        self.send("state", &view);
        Ok((out, view))
    }

    /// Reads the game.
    pub fn with_game<T>(&self, read: impl FnOnce(&Game) -> T) -> T {
        read(&lock(&self.inner).game)
    }

    /// Why no search can start now, if so.
    pub fn check_can_search(&self) -> Result<(), ApiError> {
        lock(&self.inner).check_can_search(self.id)
    }

    /// The kept agent if it was built from `spec`.
    pub fn take_agent(&self, spec: &str) -> Option<Box<dyn Agent>> {
        let mut inner = lock(&self.inner);
        match inner.agent.take() {
            Some((s, agent)) if s == spec => Some(agent),
            other => {
                inner.agent = other;
                None
            }
        }
    }

    /// Starts `agent` searching the game on a blocking thread; `play` plays its move when
    /// it is done. Returns the search's number.
    pub fn start_search(
        self: &Arc<Self>,
        search: u64,
        spec: AgentSpec,
        mut agent: Box<dyn Agent>,
        play: bool,
        permit: OwnedSemaphorePermit,
    ) -> Result<u64, ApiError> {
        let stop = StopFlag::default();
        let snapshot = {
            let mut inner = lock(&self.inner);
            inner.check_can_search(self.id)?;
            inner.search = Some(Running {
                id: search,
                stop: stop.clone(),
            });
            let view = inner.view(self.id);
            self.send("state", &view);
            inner.game.clone()
        };
        let session = self.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let limits = Limits {
                stop: Some(stop),
                ..Limits::default()
            };
            let decision = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                agent.select(&snapshot, &limits)
            }));
            session.finish_search(search, spec, agent, &snapshot, decision, play);
        });
        Ok(search)
    }

    /// Reports a finished search and, if asked and the game is still the one searched,
    /// plays its move.
    fn finish_search(
        &self,
        search: u64,
        spec: AgentSpec,
        agent: Box<dyn Agent>,
        searched: &Game,
        decision: std::thread::Result<crate::agents::Decision>,
        play: bool,
    ) {
        let mut inner = lock(&self.inner);
        if inner.search.as_ref().is_none_or(|r| r.id != search) {
            return; // cancelled: the game changed or was abandoned
        }
        inner.search = None;
        let decision = match decision {
            Ok(d) => d,
            Err(_) => {
                let view = inner.view(self.id);
                drop(inner);
                self.send(
                    "search_error",
                    &serde_json::json!({"search": search, "error": "the agent failed during its search"}),
                );
                self.send("state", &view);
                return;
            }
        };
        let name = spec.to_string();
        inner.agent = Some((name.clone(), agent));
        if let Some(a) = &decision.analysis {
            let best = MoveView::of(&decision.mv);
            self.send(
                "analysis",
                &AnalysisView::of(search, searched, name.clone(), best, a),
            );
        }
        if play {
            let side = inner.game.turn();
            inner.game.play(decision.mv);
            inner.players[side.index()] = name;
        }
        let view = inner.view(self.id);
        drop(inner);
        self.send("state", &view);
    }

    /// Stops the running search (its move so far is still played if asked); false if none
    /// runs.
    pub fn stop(&self) -> bool {
        let inner = lock(&self.inner);
        inner.search.as_ref().map(|r| r.stop.stop()).is_some()
    }
}
