//! The games the server holds, and the agents' searches on them: each search runs on a
//! blocking thread with a stop flag, so the async threads never wait on one and a game
//! abandoned or a `stop` pressed ends it.
//!
//! Games are kept while they are used: one idle for longer than the expiry is forgotten,
//! and when the server holds its most games a new one takes the place of the finished game
//! idle longest (else of the game idle longest), so a newcomer is never refused.

use super::archive::{Archive, StoredGame};
use super::boards::{Board, MoveView};
use super::clock::{self, GameClock, TimeControl};
use super::error::ApiError;
use super::limits::AgentLimits;
use super::view::{self, GameView, Players, PlyView, side_name};
use crate::agents::{Agent, AgentSpec, Analysis, Decision, Limits, Proven, ScoreKind, StopFlag};
use crate::endgame::Value;
use crate::events::event;
use crate::games::{
    Checkers, Color, GAME, Game, GameName, LineId, Node, Othello, Variations, on_game,
};
use axum::http::StatusCode;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast};

/// Games held at once by default.
pub const MAX_GAMES: usize = 1000;
/// How long a game nobody looks at is kept by default.
pub const GAME_EXPIRY: Duration = Duration::from_secs(24 * 60 * 60);

/// A server-sent event: its name and JSON data.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: &'static str,
    pub data: String,
}

/// A game of either kind: one variant per game, named as `GameName`'s, so that
/// `games::on_game!` reaches its session whichever game it plays.
#[derive(Clone)]
pub enum Table {
    Checkers(Arc<Session<Checkers>>),
    Othello(Arc<Session<Othello>>),
}

impl Table {
    fn idle(&self) -> Duration {
        on_game!(Table(s) in self => s.used().elapsed())
    }

    fn finished(&self) -> bool {
        on_game!(Table(s) in self => s.with_game(|g| g.outcome().is_some()))
    }

    fn close(&self) {
        on_game!(Table(s) in self => s.close())
    }
}

/// All games, and the permits that bound the searches.
pub struct Sessions {
    games: Mutex<HashMap<u64, Table>>,
    next_id: AtomicU64,
    slots: Arc<Slots>,
    max_games: usize,
    expiry: Duration,
    /// Where every game is kept beyond memory (none: games live while the server holds them).
    archive: Option<Arc<Archive>>,
}

/// What every game's searches share: the permits that bound them and their numbers.
struct Slots {
    permits: Arc<Semaphore>,
    /// How many permits there are (`AgentLimits::thinking`).
    thinking: usize,
    /// Every search but an analysis until Stop is stopped after this long.
    move_time: Duration,
    next_search: AtomicU64,
    /// The games keeping their agents between moves, the one that searched last at the
    /// back; at most `AgentLimits::kept_agents`.
    kept: Mutex<VecDeque<(u64, Weak<dyn KeepsAgent>)>>,
    /// What agents may ask; `kept_agents` bounds `kept`.
    limits: AgentLimits,
}

/// A game that can let its kept agent go (a session of either game).
trait KeepsAgent: Send + Sync {
    fn let_agent_go(&self);
}

impl Slots {
    fn search_id(&self) -> u64 {
        self.next_search.fetch_add(1, Ordering::Relaxed)
    }

    /// Game `id` has just kept its agent: it becomes the most recent, and the agents of the
    /// games beyond the most kept are let go (their memory with them: a search tree, an
    /// evaluation cache).
    fn keep(&self, id: u64, game: Weak<dyn KeepsAgent>) {
        let gone: Vec<_> = {
            let mut kept = lock(&self.kept);
            kept.retain(|(other, _)| *other != id);
            kept.push_back((id, game));
            let over = kept.len().saturating_sub(self.limits.kept_agents.max(1));
            kept.drain(..over).collect()
        };
        // Each game's own lock is taken after the list's is let go: a game keeping its
        // agent holds neither.
        for (_, game) in gone {
            if let Some(game) = game.upgrade() {
                game.let_agent_go();
            }
        }
    }
}

/// One game and what is happening on it.
pub struct Session<G: Board> {
    pub id: u64,
    inner: Mutex<SessionState<G>>,
    events: broadcast::Sender<Event>,
    slots: Arc<Slots>,
    archive: Option<Arc<Archive>>,
    /// Whether the archive has the game: from its first move or side line on (a board
    /// opened and left untouched is not a game worth listing), or since it was reopened.
    archived: std::sync::atomic::AtomicBool,
}

/// A game and its side lines (a record's variations).
pub type Opened<G> = (Game<G>, Variations<G>);

/// A side played by a person (any other player is an agent's spec).
pub const HUMAN: &str = "human";

struct SessionState<G: Board> {
    game: Game<G>,
    /// Side lines played from the game's earlier positions (analysis).
    variations: Variations<G>,
    players: Players,
    /// The players' names a loaded record gives (its Black and White tags).
    names: Option<Players>,
    search: Option<Running>,
    /// The agent of the last search, kept so its next search can reuse what it learnt
    /// (a search tree), with the spec it was built from.
    agent: Option<(String, Box<dyn Agent<G>>)>,
    closed: bool,
    used: Instant,
    /// The number of the last view made ([`GameView::version`]).
    version: u64,
    /// The last finished analysis of each of the game's own positions, by ply (as the
    /// `analysis` event sent it): the evaluation bar and graph of a page opened later, and
    /// of the game reopened from the archive.
    analyses: BTreeMap<usize, serde_json::Value>,
    /// The players' clocks, in a game with a time control.
    clock: Option<GameClock>,
}

/// What a game holds beside its moves: who plays it, its analyses and clocks.
pub struct Kept {
    pub players: Players,
    /// The players' names a loaded record gives (its Black and White tags).
    pub names: Option<Players>,
    pub analyses: BTreeMap<usize, serde_json::Value>,
    pub clock: Option<GameClock>,
}

impl Kept {
    /// A new game's: its players and names, and clocks set to `control`.
    pub fn new(players: Players, names: Option<Players>, control: Option<TimeControl>) -> Self {
        Kept {
            players,
            names,
            analyses: BTreeMap::new(),
            clock: control.map(GameClock::new),
        }
    }
}

/// What a search is for.
pub struct SearchAsk {
    /// Play its move when it ends.
    pub play: bool,
    /// Search this position of the game or of a side line (analysis only), not the game's.
    pub at: Option<Node>,
    /// Search until stopped.
    pub infinite: bool,
    /// The move of the agent to move at this ply: refused if the game has moved on.
    pub for_ply: Option<usize>,
    /// How many of the best moves to report with their lines (MultiPV; 1: the best).
    pub lines: usize,
}

struct Running {
    id: u64,
    stop: StopFlag,
}

/// The `analysis` event: what the agent thinks of the position it searched.
#[derive(Serialize, Debug)]
pub struct AnalysisView {
    pub search: u64,
    /// The line that holds the position searched (0: the game) and its ply.
    pub line: LineId,
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
    /// The move the agent chose (while it searches: its best so far).
    pub best: MoveView,
    /// Where `value` is a proven result: which, for `value_for`, and in words.
    pub proven: Option<ProvenView>,
    /// The best moves' own lines (MultiPV), best first, where more than one was asked for.
    pub lines: Vec<LineView>,
}

/// One of the best moves' lines: its value for `value_for` in the agent's units, whether
/// proven, and the line of play, the move first.
#[derive(Serialize, Debug)]
pub struct LineView {
    pub value: f32,
    pub proven: Option<ProvenView>,
    pub pv: Vec<String>,
}

#[derive(Serialize, Debug)]
pub struct ProvenView {
    /// `win`, `loss` or `draw`.
    pub result: &'static str,
    /// "win in 4 moves", "database win, conversion in 17 plies", "draw".
    pub text: String,
}

impl ProvenView {
    fn of(p: &Proven) -> Self {
        ProvenView {
            result: match p.result {
                Value::Win => "win",
                Value::Loss => "loss",
                Value::Draw => "draw",
            },
            text: p.describe(),
        }
    }
}

#[derive(Serialize, Debug)]
pub struct ScoredMove {
    #[serde(flatten)]
    pub mv: MoveView,
    pub score: f32,
    pub prior: Option<f32>,
    /// Where `score` is a proven result for the side to move: which, and in words.
    pub proven: Option<ProvenView>,
}

impl AnalysisView {
    fn of<G: Board>(
        search: u64,
        (line, game): (LineId, &Game<G>),
        agent: String,
        best: MoveView,
        a: &Analysis<G>,
    ) -> Self {
        let pos = game.position();
        AnalysisView {
            search,
            line,
            ply: game.ply(),
            agent,
            done: true,
            proven: a.proven.as_ref().map(ProvenView::of),
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
                    mv: G::move_view(pos, &m.mv),
                    score: m.score,
                    prior: m.prior,
                    proven: m.proven.as_ref().map(ProvenView::of),
                })
                .collect(),
            pv: a.pv.iter().map(G::format_move).collect(),
            lines: a
                .lines
                .iter()
                .map(|l| LineView {
                    value: l.value,
                    proven: l.proven.as_ref().map(ProvenView::of),
                    pv: l.pv.iter().map(G::format_move).collect(),
                })
                .collect(),
            summary: a.summary.clone(),
            best,
        }
    }
}

/// A lock whose holder panicked still guards consistent data here (every change is one
/// assignment or one `Game` call), so a poisoned lock is used as is.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Says how long "idle" is in words: "24 hours", "90 seconds".
pub fn describe_expiry(expiry: Duration) -> String {
    let s = expiry.as_secs();
    match s {
        _ if s >= 3600 && s.is_multiple_of(3600) => format!("{} hours", s / 3600),
        _ if s >= 60 && s.is_multiple_of(60) => format!("{} minutes", s / 60),
        _ => format!("{s} seconds"),
    }
}

impl Sessions {
    /// At most `max_games` (at least 1) games in memory, each let go after `expiry` idle,
    /// their searches held to `limits`; with an archive, every game is kept there too, and a
    /// game let go comes back when it is asked for.
    pub fn new(
        max_games: usize,
        expiry: Duration,
        limits: AgentLimits,
        archive: Option<Archive>,
    ) -> Result<Self, super::archive::ArchiveError> {
        let thinking = limits.thinking.max(1);
        let last = match &archive {
            Some(a) => a.last_id()?,
            None => 0,
        };
        Ok(Sessions {
            games: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(last + 1),
            slots: Arc::new(Slots {
                permits: Arc::new(Semaphore::new(thinking)),
                thinking,
                move_time: limits.move_time,
                next_search: AtomicU64::new(1),
                kept: Mutex::new(VecDeque::new()),
                limits,
            }),
            max_games: max_games.max(1),
            expiry,
            archive: archive.map(Arc::new),
        })
    }

    /// Holds a new game, kept in the archive unless `scratch` (a position looked at, not a
    /// game: the tutorial's lessons).
    pub fn create<G: Board>(
        &self,
        game: Opened<G>,
        kept: Kept,
        scratch: bool,
        wrap: fn(Arc<Session<G>>) -> Table,
    ) -> Arc<Session<G>> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let archive = self.archive.clone().filter(|_| !scratch);
        let session = self.hold(id, game, kept, (archive, false), wrap);
        session.changed(lock(&session.inner));
        session.go_on();
        session
    }

    /// Holds game `id` in memory: expired games go first, then, if the server is full, the
    /// finished game idle longest, else the game idle longest.
    fn hold<G: Board>(
        &self,
        id: u64,
        (game, variations): Opened<G>,
        kept: Kept,
        (archive, archived): (Option<Arc<Archive>>, bool),
        wrap: fn(Arc<Session<G>>) -> Table,
    ) -> Arc<Session<G>> {
        let mut games = lock(&self.games);
        let expired: Vec<u64> = games
            .iter()
            .filter(|(_, t)| t.idle() > self.expiry)
            .map(|(&id, _)| id)
            .collect();
        for id in expired {
            if let Some(t) = games.remove(&id) {
                t.close();
            }
        }
        if games.len() >= self.max_games {
            let oldest = games
                .iter()
                .max_by_key(|(_, t)| (t.finished(), t.idle()))
                .map(|(&id, _)| id);
            if let Some(t) = oldest.and_then(|id| games.remove(&id)) {
                t.close();
            }
        }
        let session = Arc::new(Session {
            id,
            inner: Mutex::new(SessionState {
                game,
                variations,
                players: kept.players,
                names: kept.names,
                search: None,
                agent: None,
                closed: false,
                used: Instant::now(),
                version: 0,
                analyses: kept.analyses,
                clock: kept.clock,
            }),
            events: broadcast::channel(64).0,
            slots: self.slots.clone(),
            archive,
            archived: archived.into(),
        });
        games.insert(id, wrap(session.clone()));
        session
    }

    /// Game `id` from the archive, held again; `None` if the archive lacks it.
    fn reopen(&self, id: u64) -> Result<Option<Table>, ApiError> {
        let Some(archive) = &self.archive else {
            return Ok(None);
        };
        let stored = archive.load(id).map_err(ApiError::from)?;
        let Some(StoredGame {
            game,
            players,
            names,
            pdn,
            analyses,
            clock,
        }) = stored
        else {
            return Ok(None);
        };
        let kind: GameName = game
            .parse()
            .map_err(|_| ApiError::internal(format!("game {id} in the archive: {game:?}")))?;
        on_game!(kind, G, Table(wrap) => {
            let record = G::load(&pdn)?.into_iter().next().ok_or_else(|| {
                ApiError::internal(format!("game {id} in the archive holds no game"))
            })?;
            let opened = (record.game, record.variations);
            let analyses = analyses
                .into_iter()
                .filter_map(|a| Some((a["ply"].as_u64()? as usize, a)))
                .collect();
            let clock = clock.and_then(|c| GameClock::restore(&c, Instant::now()));
            let kept = Kept { players, names, analyses, clock };
            let session = self.hold(id, opened, kept, (Some(archive.clone()), true), wrap);
            session.go_on();
            Ok(Some(wrap(session)))
        })
    }

    /// The game, marked as used now: from memory, else from the archive.
    pub fn get(&self, id: u64) -> Result<Table, ApiError> {
        let held = lock(&self.games).get(&id).cloned();
        let table = match held {
            Some(t) => t,
            None => self.reopen(id)?.ok_or_else(|| self.missing(id))?,
        };
        on_game!(Table(s) in &table => s.touch());
        Ok(table)
    }

    fn missing(&self, id: u64) -> ApiError {
        ApiError::not_found(match self.archive {
            Some(_) => format!("no game {id}: it was deleted, or never played here"),
            None => format!(
                "no game {id}: it was deleted, idle for more than {}, or the server restarted \
                 (it keeps no archive)",
                describe_expiry(self.expiry)
            ),
        })
    }

    /// Forgets a game, in memory and in the archive; its search, if any, stops.
    pub fn remove(&self, id: u64) -> Result<(), ApiError> {
        let held = lock(&self.games).remove(&id);
        let archived = match &self.archive {
            Some(a) => a.delete(id).map_err(ApiError::from)?,
            None => false,
        };
        match held {
            Some(table) => table.close(),
            None if archived => {}
            None => return Err(self.missing(id)),
        }
        Ok(())
    }

    /// The archive, if games are kept.
    pub fn archive(&self) -> Option<&Archive> {
        self.archive.as_deref()
    }

    /// How long an idle game is kept.
    pub fn expiry(&self) -> Duration {
        self.expiry
    }

    /// A permit to run a search, or why not now.
    pub fn permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        self.slots.permits.clone().try_acquire_owned().map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "{} searches are running: try again when one ends",
                    self.slots.thinking
                ),
            )
        })
    }

    pub fn search_id(&self) -> u64 {
        self.slots.search_id()
    }
}

impl<G: Board> SessionState<G> {
    fn check_can_search(&self, id: u64) -> Result<(), ApiError> {
        if let Some(outcome) = self.game.outcome() {
            return Err(ApiError::conflict(format!("the game is over: {outcome}")));
        }
        self.check_idle(id)
    }

    /// Why no search can start on the game now, whatever position it searches.
    fn check_idle(&self, id: u64) -> Result<(), ApiError> {
        if self.closed {
            return Err(ApiError::not_found(format!("no game {id}")));
        }
        if self.search.is_some() {
            return Err(ApiError::conflict(
                "a search is running on this game: wait for it or stop it",
            ));
        }
        Ok(())
    }

    fn view(&mut self, id: u64) -> GameView {
        let named = self.names.as_ref().unwrap_or(&self.players);
        let now = Instant::now();
        let mut tags = vec![
            ("Event", "checkers-zero gui".to_string()),
            ("Black", named.black.clone()),
            ("White", named.white.clone()),
        ];
        tags.extend(self.clock.iter().flat_map(|c| c.pdn_tags(now)));
        self.version += 1;
        let searching = self.search.is_some();
        let mut view = view::game_view(
            id,
            self.version,
            &self.game,
            &self.variations,
            searching,
            &self.players,
            &tags,
        );
        view.names = self.names.clone();
        view.clock = self.clock.as_ref().map(|c| c.view(now));
        view
    }

    /// Ends the game if the side to move's time has run out (its search stops); true if it
    /// did.
    fn check_flag(&mut self) -> bool {
        let now = Instant::now();
        let Some(flagged) = self.clock.as_ref().and_then(|c| c.flagged(now)) else {
            return false;
        };
        if self.game.outcome().is_some() {
            return false;
        }
        self.cancel_search();
        self.game
            .impose(clock::flag_fall::<G>(self.game.position(), flagged));
        self.settle_clock(None, now);
        true
    }

    /// The clocks after the game changed from `old` (none: only its result): a move added
    /// is the mover's, anything else restarts the side to move's clock; a game over stops
    /// them.
    fn settle_clock(&mut self, old: Option<&Game<G>>, now: Instant) {
        let Some(clock) = &mut self.clock else {
            return;
        };
        let game = &self.game;
        let one_more = old.is_some_and(|old| {
            game.ply() == old.ply() + 1 && game.moves().starts_with(old.moves())
        });
        if one_more {
            clock.moved(G::side_to_move(&game.positions()[game.ply() - 1]), now);
        } else {
            clock.restart(game.turn(), now);
        }
        if game.outcome().is_some() {
            clock.stop(now);
        }
    }

    /// Stops a running search and drops its result: the game it searched has changed.
    fn cancel_search(&mut self) {
        if let Some(running) = self.search.take() {
            running.stop.stop();
        }
    }
}

impl<G: Board> KeepsAgent for Session<G> {
    fn let_agent_go(&self) {
        lock(&self.inner).agent = None;
    }
}

impl<G: Board> Session<G> {
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    pub fn view(&self) -> GameView {
        let mut inner = lock(&self.inner);
        inner.view(self.id)
    }

    fn touch(&self) {
        lock(&self.inner).used = Instant::now();
    }

    fn used(&self) -> Instant {
        lock(&self.inner).used
    }

    fn close(&self) {
        let mut inner = lock(&self.inner);
        inner.closed = true;
        inner.cancel_search();
    }

    /// After a change: the game's view, kept in the archive as it now stands (with its
    /// analyses), then sent to the listeners. A failed write is reported and the game goes
    /// on in memory.
    fn changed(&self, mut inner: MutexGuard<'_, SessionState<G>>) -> GameView {
        let view = inner.view(self.id);
        let played = !view.moves.is_empty() || !view.variations.is_empty();
        let archive = self
            .archive
            .as_ref()
            .filter(|_| played || self.archived.load(Ordering::Relaxed));
        let analyses = archive.map(|_| {
            let all: Vec<&serde_json::Value> = inner.analyses.values().collect();
            serde_json::to_string(&all).expect("analyses serialise")
        });
        drop(inner);
        if let (Some(archive), Some(analyses)) = (archive, analyses) {
            match archive.save(&view, &analyses) {
                Ok(()) => self.archived.store(true, Ordering::Relaxed),
                Err(e) => event("gui", "archive error")
                    .with("game", self.id)
                    .say(format!("game {} was not kept: {e}", self.id)),
            }
        }
        self.send("state", &view);
        view
    }

    /// The last finished analysis of each of the game's own positions, by ply.
    pub fn analyses(&self) -> Vec<serde_json::Value> {
        lock(&self.inner).analyses.values().cloned().collect()
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
        self: &Arc<Self>,
        change: impl FnOnce(&mut Game<G>) -> Result<T, ApiError>,
    ) -> Result<(T, GameView), ApiError> {
        let mut inner = lock(&self.inner);
        if inner.check_flag() {
            let outcome = inner.game.outcome().expect("a flag fall ends the game");
            self.changed(inner);
            return Err(ApiError::conflict(format!("the game is over: {outcome}")));
        }
        let mut game = inner.game.clone();
        let out = change(&mut game)?;
        inner.cancel_search();
        let old = std::mem::replace(&mut inner.game, game);
        inner.settle_clock(Some(&old), Instant::now());
        let SessionState {
            game,
            variations,
            analyses,
            ..
        } = &mut *inner;
        variations.follow(&old, game);
        // Positions up to the last move both games share are the same positions.
        let shared = old
            .moves()
            .iter()
            .zip(game.moves())
            .take_while(|(a, b)| a == b)
            .count();
        analyses.retain(|&ply, _| ply <= shared);
        let view = self.changed(inner);
        self.go_on();
        Ok((out, view))
    }

    /// Reads the game.
    pub fn with_game<T>(&self, read: impl FnOnce(&Game<G>) -> T) -> T {
        read(&lock(&self.inner).game)
    }

    /// Reads the game and its side lines.
    pub fn with_lines<T>(&self, read: impl FnOnce(&Game<G>, &Variations<G>) -> T) -> T {
        let inner = lock(&self.inner);
        read(&inner.game, &inner.variations)
    }

    /// Changes the side lines with `change`, which names the position to show after it
    /// (the game and its searches go on as they were), then tells the listeners. Returns
    /// that position and the game. An error leaves the side lines as they were.
    pub fn vary(
        &self,
        change: impl FnOnce(&Game<G>, &mut Variations<G>) -> Result<Node, ApiError>,
    ) -> Result<(PlyView, GameView), ApiError> {
        let mut inner = lock(&self.inner);
        let mut variations = inner.variations.clone();
        let node = change(&inner.game, &mut variations)?;
        let position = view::ply_view(&inner.game, &variations, node)
            .map_err(|e| ApiError::unprocessable(e.0))?;
        inner.variations = variations;
        let view = self.changed(inner);
        Ok((position, view))
    }

    /// Why no search can start now, if so.
    pub fn check_can_search(&self) -> Result<(), ApiError> {
        lock(&self.inner).check_can_search(self.id)
    }

    /// The game's kept agent if it was built from `spec`, else a new one (built off the
    /// async threads: loading a network takes a while).
    pub async fn agent(&self, spec: &AgentSpec) -> Result<Box<dyn Agent<G>>, ApiError> {
        {
            let mut inner = lock(&self.inner);
            match inner.agent.take() {
                Some((s, agent)) if s == spec.to_string() => return Ok(agent),
                other => inner.agent = other,
            }
        }
        let seed = self.slots.search_id();
        let spec = self.slots.limits.bounded(spec);
        tokio::task::spawn_blocking(move || spec.build::<G>(seed))
            .await
            .map_err(|_| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "building the agent failed",
                )
            })?
            .map_err(ApiError::unprocessable)
    }

    /// What goes on by itself after a change: the watch for a flag fall, and the agents'
    /// moves.
    fn go_on(self: &Arc<Self>) {
        self.watch_clock();
        self.play_agents();
    }

    /// Where a clock runs, ends the game when its flag falls (unless a move came first).
    fn watch_clock(self: &Arc<Self>) {
        let falls = lock(&self.inner)
            .clock
            .as_ref()
            .and_then(GameClock::falls_at);
        let (Some(at), Ok(runtime)) = (falls, tokio::runtime::Handle::try_current()) else {
            return;
        };
        let session = self.clone();
        runtime.spawn(async move {
            // A moment past the fall, so that the clock reads zero when looked at.
            tokio::time::sleep_until((at + Duration::from_millis(5)).into()).await;
            let mut inner = lock(&session.inner);
            if inner.check_flag() {
                session.changed(inner);
            }
        });
    }

    /// When an agent is to move in a game going on and nothing searches, starts its search,
    /// which plays its move when it ends (and so on, while agents are to move): the server
    /// plays the computer's moves, whether a page is open or not. It waits for a free
    /// search slot rather than give up.
    pub fn play_agents(self: &Arc<Self>) {
        let (spec, ply) = {
            let inner = lock(&self.inner);
            if inner.closed || inner.search.is_some() || inner.game.outcome().is_some() {
                return;
            }
            let mover = match inner.game.turn() {
                Color::Black => &inner.players.black,
                Color::White => &inner.players.white,
            };
            // Players are specs the server checked when the game was made.
            match mover.parse::<AgentSpec>() {
                Ok(spec) if mover != HUMAN => (spec, inner.game.ply()),
                _ => return,
            }
        };
        // Outside a server's runtime (a test driving sessions by hand) nobody plays.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let session = self.clone();
        runtime.spawn(async move {
            let Ok(permit) = session.slots.permits.clone().acquire_owned().await else {
                return;
            };
            let agent = match session.agent(&spec).await {
                Ok(agent) => agent,
                Err(e) => {
                    let error = format!("{spec} cannot play: {}", e.message);
                    session.send("search_error", &serde_json::json!({"error": error}));
                    return;
                }
            };
            let ask = SearchAsk {
                play: true,
                at: None,
                infinite: false,
                for_ply: Some(ply),
                lines: 1,
            };
            // Refused only when the game moved on meanwhile: its own update plays again.
            let _ = session.start_search(session.slots.search_id(), spec, agent, ask, permit);
        });
    }

    /// Starts `agent` searching the game on a blocking thread, as `ask` says. Returns the
    /// search's number.
    pub fn start_search(
        self: &Arc<Self>,
        search: u64,
        spec: AgentSpec,
        mut agent: Box<dyn Agent<G>>,
        ask: SearchAsk,
        permit: OwnedSemaphorePermit,
    ) -> Result<u64, ApiError> {
        let SearchAsk {
            play,
            at,
            infinite,
            for_ply,
            lines,
        } = ask;
        let stop = StopFlag::default();
        let (line, snapshot, budget) = {
            let mut inner = lock(&self.inner);
            let mut snapshot = inner.game.clone();
            if for_ply.is_some_and(|ply| ply != snapshot.ply()) {
                return Err(ApiError::conflict("the game has moved on"));
            }
            let line = match at {
                Some(_) if play => {
                    return Err(ApiError::bad_request(
                        "a search of an earlier position cannot play its move: give play false",
                    ));
                }
                Some(node) => {
                    let resolved = inner.variations.resolve(&snapshot, node);
                    let line = resolved.map_err(|e| ApiError::unprocessable(e.0))?.line;
                    snapshot = inner.variations.game_at(&snapshot, node).expect("resolved");
                    if let Some(outcome) = snapshot.outcome() {
                        return Err(ApiError::conflict(format!(
                            "the game is over at ply {}: {outcome}",
                            node.ply
                        )));
                    }
                    inner.check_idle(self.id)?;
                    line
                }
                None => {
                    inner.check_can_search(self.id)?;
                    GAME
                }
            };
            inner.search = Some(Running {
                id: search,
                stop: stop.clone(),
            });
            let view = inner.view(self.id);
            self.send("state", &view);
            // A move played on a clock has its share of the mover's time at most.
            let on_clock = inner.clock.as_ref().filter(|_| play);
            let budget = on_clock.map(|c| c.move_time(snapshot.turn(), Instant::now()));
            (line, snapshot, budget)
        };
        // The server's limit on a move's thinking holds whatever bounds the agent has.
        if !infinite {
            let limit = budget.map_or(self.slots.move_time, |b| b.min(self.slots.move_time));
            let stop = stop.clone();
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                stop.stop();
            });
        }
        let session = self.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let limits = Limits {
                stop: Some(stop),
                infinite,
                lines,
                ..Limits::default()
            };
            let name = spec.to_string();
            // Snapshots while it searches go out as they come: the page shows them live.
            let mut listener = |a: &Analysis<G>| {
                session.report(search, (line, &snapshot), &name, a);
            };
            let decision = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                agent.select_reporting(&snapshot, &limits, Some(&mut listener))
            }));
            session.finish_search(search, spec, agent, (line, &snapshot), decision, play);
        });
        Ok(search)
    }

    /// Sends a snapshot of a running search (`final: false`), unless it was cancelled.
    fn report(&self, search: u64, searched: (LineId, &Game<G>), agent: &str, a: &Analysis<G>) {
        let Some(best) = a.pv.first().or(a.moves.first().map(|m| &m.mv)) else {
            return;
        };
        let running = lock(&self.inner)
            .search
            .as_ref()
            .is_some_and(|r| r.id == search);
        if running {
            let best = G::move_view(searched.1.position(), best);
            let mut view = AnalysisView::of(search, searched, agent.to_string(), best, a);
            view.done = false;
            self.send("analysis", &view);
        }
    }

    /// Reports a finished search and, if asked and the game is still the one searched,
    /// plays its move.
    fn finish_search(
        self: &Arc<Self>,
        search: u64,
        spec: AgentSpec,
        agent: Box<dyn Agent<G>>,
        searched: (LineId, &Game<G>),
        decision: std::thread::Result<Decision<G>>,
        play: bool,
    ) {
        let mut inner = lock(&self.inner);
        if inner.search.as_ref().is_none_or(|r| r.id != search) {
            return; // cancelled: the game changed or was abandoned
        }
        inner.search = None;
        inner.used = Instant::now();
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
            let best = G::move_view(searched.1.position(), &decision.mv);
            let view = AnalysisView::of(search, searched, name, best, a);
            self.send("analysis", &view);
            if searched.0 == GAME {
                let kept = serde_json::to_value(&view).expect("views serialise");
                inner.analyses.insert(view.ply, kept);
            }
        }
        // The players stay those the game was made with: an agent asked for one move
        // does not take over the side. A move that comes after its flag fell is not played.
        if play && !inner.check_flag() {
            let old = inner.game.clone();
            inner.game.play(decision.mv);
            inner.settle_clock(Some(&old), Instant::now());
        }
        self.changed(inner);
        self.slots
            .keep(self.id, Arc::downgrade(self) as Weak<dyn KeepsAgent>);
        self.go_on();
    }

    /// Stops the running search (its move so far is still played if asked); false if none
    /// runs.
    pub fn stop(&self) -> bool {
        let inner = lock(&self.inner);
        inner.search.as_ref().map(|r| r.stop.stop()).is_some()
    }
}
