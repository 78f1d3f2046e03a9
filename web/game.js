// One game on the server, shown on the shared board: its state, the piece selection and
// multi-jump paths, stepping through past plies, and the game's event stream. The play page
// and the tutorial each own one; only the active one draws on the board.
//
// Rules live on the server: the board offers exactly the moves in `state.legal`, and every
// refusal (a piece that cannot move, an illegal attempt) shows the server's own reason.

import { api, post, messageOf } from "./api.js";
import { screen } from "./screen.js";

export const capitalise = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const pieceSide = (piece) => (piece.toLowerCase() === "b" ? "black" : "white");

/** Othello's discs on the board, `{black, white}`; null for checkers. */
export function discCount(state) {
  if (state?.game !== "othello") return null;
  const count = (piece) => state.board.filter((cell) => cell?.piece === piece).length;
  return { black: count("b"), white: count("w") };
}

/** "Black 34 · White 30" */
export function discText(discs) {
  return `Black ${discs.black} · White ${discs.white}`;
}

/** "1-0 · Black wins: white has no legal move", with Othello's final disc count. */
export function resultText(result, discs = null) {
  const reason = result.reason || "";
  const score = discs ? ` (${discText(discs)})` : "";
  // The server's reason is usually the whole sentence ("white wins: black resigned").
  if (/\bwins\b|^draw\b/i.test(reason)) return `${result.score} · ${capitalise(reason)}${score}`;
  const who = result.winner ? `${capitalise(result.winner)} wins` : "Draw";
  return `${result.score} · ${who}${reason ? `: ${reason}` : ""}${score}`;
}

export class GameSession {
  /**
   * hooks: mayMove(state) -> null or why the person may not move now; onState(state, cause)
   * with cause "create" | "move" | "undo" | "event" | "action"; onAnalysis(analysis);
   * onSearchError(text); onView(); onExplain(square, reason) after a refused piece;
   * statusNote(state) -> extra words for the status line; shows(analysis) -> whether the
   * page may show an analysis (the computer's thinking is hidden while it plays you).
   */
  constructor(hooks = {}) {
    this.hooks = hooks;
    this.id = null;
    this.state = null;
    // A position other than the game's own, of the game or a side line ({line, ply, fen,
    // turn, board, last_move, legal, result}), or null for the game.
    this.view = null;
    this.wanted = null; // the position asked for and not yet shown, {line, ply}
    this.selection = null; // {from, hops}
    this.analyses = new Map(); // "line:ply" -> the latest analysis searched there
    this.events = null;
    this.active = false;
    this.flipped = false; // Black at the bottom
    this.busy = false; // a move or explain request is in flight
  }

  // ---- lifecycle ---------------------------------------------------------------------

  /** Creates a game on the server (body as POST /api/games wants) and shows it. */
  async create(body) {
    const state = await post("/api/games", body);
    this.attach(state);
    return state;
  }

  /** Shows a game the server holds (a reload, a second tab); throws if it has gone. */
  async open(id) {
    this.attach(await api(`/api/games/${id}`));
  }

  attach(state) {
    this.id = state.id;
    this.view = null;
    this.wanted = null;
    this.selection = null;
    this.analyses.clear();
    this.openEvents();
    this.hooks.onAttach?.(state);
    this.setState(state, "create");
    this.loadKept(state.id);
  }

  /**
   * The analyses the server kept of the game's positions (the computer's moves, earlier
   * analyses and reviews), so that a reload or a game reopened from the archive shows its
   * evaluation bar and graph again. Analyses that arrived meanwhile are newer and stay.
   */
  async loadKept(id) {
    let kept;
    try {
      kept = await api(`/api/games/${id}/analyses`);
    } catch {
      return; // the graph is an aid: without it the game plays on
    }
    if (this.id !== id || !kept.length) return;
    for (const a of kept) if (!this.analyses.has(nodeKey(a))) this.analyses.set(nodeKey(a), a);
    this.hooks.onKept?.(kept.at(-1));
    this.render();
  }

  /** Subscribes to the game's events; resolves once connected (or after a short wait). */
  openEvents() {
    this.events?.close();
    const source = new EventSource(`/api/games/${this.id}/events`);
    this.events = source;
    const id = this.id;
    const parse = (handler) => (event) => {
      if (this.events !== source || this.id !== id) return;
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      handler(data);
    };
    source.addEventListener(
      "state",
      parse((s) => {
        if (s.id === undefined || s.id === id) this.setState(s, "event");
      }),
    );
    source.addEventListener("analysis", parse((a) => this.receiveAnalysis(a)));
    source.addEventListener(
      "search_error",
      parse((e) => this.hooks.onSearchError?.(e.error || "the search failed")),
    );
    this.connected = new Promise((resolve) => {
      source.addEventListener("open", () => resolve(true), { once: true });
      setTimeout(() => resolve(false), 1500);
    });
  }

  /** Shows this session on the board (tab switch); refreshes from the server. */
  async activate() {
    this.active = true;
    this.render();
    if (this.id === null) return;
    try {
      this.setState(await api(`/api/games/${this.id}`), "refresh");
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  deactivate() {
    this.active = false;
  }

  // ---- state -------------------------------------------------------------------------

  setState(state, cause) {
    // A request's answer the event stream has overtaken (the computer's reply came first)
    // is older than what is shown: the server numbers its views.
    if (this.state && state.id === this.state.id && state.version < this.state.version) return;
    // An echo of a position already shown (our own move's event) keeps the selection the
    // person may have started since.
    const unchanged = this.state && state.fen === this.state.fen && state.ply === this.state.ply;
    this.state = state;
    if (!unchanged && !this.view) this.selection = null;
    // A position shown that the game no longer has (a take-back) gives way to the game.
    const view = this.view;
    const kept = view && (view.line === 0 ? view.ply < state.ply : state.variations?.some((l) => l.line === view.line));
    if (view && !kept) this.view = null;
    this.hooks.onState?.(state, cause);
    this.render();
  }

  receiveAnalysis(analysis) {
    this.analyses.set(nodeKey(analysis), analysis);
    this.hooks.onAnalysis?.(analysis);
    this.render();
  }

  /** The analysis searched at the position on the board, if any. */
  shownAnalysis() {
    const a = this.state ? this.analyses.get(nodeKey(this.shownNode())) : null;
    return a && this.shows(a) ? a : null;
  }

  /** Whether the page may show `analysis` now. */
  shows(analysis) {
    return Boolean(analysis) && (this.hooks.shows?.(analysis) ?? true);
  }

  /** The game's analyses by ply (its own line only) that the page may show. */
  gameAnalyses() {
    return [...this.analyses.values()].filter((a) => !a.line && this.shows(a));
  }

  // ---- viewing other positions: the game's earlier ones, and side lines -----------------

  /** The position on the board: `{line, ply}`, line 0 the game. */
  shownNode() {
    if (this.view) return { line: this.view.line, ply: this.view.ply };
    return { line: 0, ply: this.state ? this.state.ply : 0 };
  }

  /** A side line of the game by number, or undefined. */
  sideLine(line) {
    return this.state?.variations?.find((l) => l.line === line);
  }

  /** The last ply of a line (the game's own ply for the game). */
  lineEnd(line) {
    if (line === 0) return this.state.ply;
    const side = this.sideLine(line);
    return side ? side.from + side.moves.length : 0;
  }

  /** Shows the game's position after `ply` plies; the game's own ply returns to the game. */
  viewPly(ply) {
    return this.viewNode({ line: 0, ply });
  }

  /** Shows a position of the game or a side line; the game's own position returns to it. */
  async viewNode({ line, ply }) {
    if (!this.state) return;
    const first = line === 0 ? 0 : (this.sideLine(line)?.from ?? 0);
    const target = { line, ply: Math.max(first, Math.min(ply, this.lineEnd(line))) };
    if (target.line === 0 && target.ply === this.state.ply) return this.backToGame();
    // Steps pressed faster than the server answers count from the last one asked for, and
    // only the answer to the last one is shown.
    this.wanted = target;
    try {
      const snapshot = await api(`/api/games/${this.id}/ply/${target.ply}?line=${target.line}`);
      if (this.wanted !== target) return;
      this.wanted = null;
      this.showPosition(snapshot);
    } catch (err) {
      this.wanted = null;
      screen.say(messageOf(err), "error");
    }
  }

  /** Puts a position the server sent (`GET .../ply`) on the board. */
  showPosition(snapshot) {
    if (snapshot.line === 0 && snapshot.ply === this.state.ply) return this.backToGame();
    this.view = snapshot;
    this.selection = null;
    this.hooks.onView?.();
    this.render();
  }

  backToGame() {
    this.wanted = null;
    this.view = null;
    this.selection = null;
    this.hooks.onView?.();
    this.render();
  }

  /** One ply back or on along the line shown (back past a side line's start: its parent). */
  step(delta) {
    const from = this.wanted ?? this.shownNode();
    return this.viewNode({ line: from.line, ply: from.ply + delta });
  }

  /** The position moves are played from: the one viewed, else the game's. */
  shown() {
    return this.view || this.state;
  }

  // ---- moves -------------------------------------------------------------------------

  /**
   * Plays a move given in PDN: in the game, or, where an earlier position or a side line is
   * shown, in a side line from there. The server's reason is shown when it refuses.
   */
  async playMove(text) {
    this.busy = true;
    this.selection = null;
    try {
      if (this.view) {
        const { line, ply } = this.view;
        const answer = await post(`/api/games/${this.id}/lines`, { line, ply, move: text });
        screen.say("");
        this.setState(answer.state, "line");
        this.showPosition(answer.position);
        return;
      }
      const state = await post(`/api/games/${this.id}/move`, { move: text });
      screen.say("");
      this.setState(state, "move");
    } catch (err) {
      screen.say(messageOf(err), "error");
      this.render();
    } finally {
      this.busy = false;
    }
  }

  /** Asks the server why the piece on `square` cannot be selected. */
  async explain(square) {
    this.selection = null;
    this.render();
    try {
      const at = this.view ? { line: this.view.line, ply: this.view.ply } : {};
      const answer = await post(`/api/games/${this.id}/explain`, { square, ...at });
      if (answer.reason) screen.say(capitalise(answer.reason), "error");
      else screen.say(`${this.squareName(square)} can move.`, "info");
      this.hooks.onExplain?.(square, answer.reason);
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  // ---- clicks ------------------------------------------------------------------------

  /**
   * A click on a square. Checkers: select, extend a multi-jump path, move, or ask why not.
   * Othello: play there, or ask why not.
   */
  click(square) {
    if (!this.active || !this.state || this.busy) return;
    const state = this.shown();
    const refusal = this.refusal(this.state);
    if (refusal) {
      screen.say(refusal, "info");
      return;
    }
    if (state.game === "othello") {
      const move = state.legal.find((m) => m.from === square);
      return move ? this.playMove(move.move) : this.explain(square);
    }
    if (this.selection && this.advance(square)) return;
    const piece = state.board.find((c) => c && c.square === square)?.piece;
    if (piece && pieceSide(piece) === state.turn) return this.choosePiece(square);
    if (this.selection) return this.attempt(square);
    if (piece) return this.explain(square);
    this.selection = null;
    screen.say("Pick one of your pieces first: a move starts from its square.", "info");
    this.render();
  }

  /**
   * Why no move can be made on the board now, or null. A position viewed takes moves
   * whoever plays the game: they go into a side line.
   */
  refusal(state) {
    if (this.view) return this.view.result ? `This line ends here (${resultText(this.view.result)}).` : null;
    if (state.result) return `The game is over (${resultText(state.result)}).`;
    return this.hooks.mayMove?.(state) || null;
  }

  /** A piece of the side to move: select it (or unselect it), or ask why it cannot move. */
  choosePiece(square) {
    if (this.selection && this.selection.from === square && !this.selection.hops.length) {
      this.selection = null;
      this.render();
      return;
    }
    if (!this.shown().legal.some((m) => m.from === square)) return this.explain(square);
    this.selection = { from: square, hops: [] };
    screen.say("");
    this.render();
  }

  /** The legal moves that agree with the selection so far. */
  candidates() {
    const { from, hops } = this.selection;
    return this.shown().legal.filter(
      (m) => m.from === from && hops.every((sq, i) => m.path[i] === sq),
    );
  }

  /** A next hop or a final square of the selected piece: true when the click was used. */
  advance(square) {
    const candidates = this.candidates();
    const hopCount = this.selection.hops.length;
    const next = candidates.filter((m) => m.path[hopCount] === square);
    if (next.length) {
      const hops = [...this.selection.hops, square];
      const complete = next.find((m) => m.path.length === hops.length);
      if (complete) {
        this.playMove(complete.move);
      } else {
        this.selection = { ...this.selection, hops };
        this.render();
      }
      return true;
    }
    const ending = candidates.filter((m) => m.path[m.path.length - 1] === square);
    if (!ending.length) return false;
    // Routes that take the same pieces are the same move for the person; different ones
    // need the path clicked out, and the server says so for the from-to attempt.
    const captureSets = new Set(ending.map((m) => [...m.captured].sort((a, b) => a - b).join(",")));
    if (captureSets.size === 1) this.playMove(ending[0].move);
    else screen.say(`Several routes end on ${square}, taking different pieces: click the route square by square.`, "info");
    return true;
  }

  /**
   * A destination no legal move of the selected piece reaches: says why without asking the
   * server (a capture elsewhere is compulsory, or the square is out of reach).
   */
  attempt(square) {
    const { from } = this.selection;
    const legal = this.shown().legal;
    const captures = legal.filter((m) => m.captured.length);
    const capturers = [...new Set(captures.map((m) => m.from))];
    this.selection = null;
    this.render();
    if (capturers.length && !capturers.includes(from)) {
      screen.say(`A capture is compulsory: take with the piece on ${capturers.join(" or ")}.`, "error");
    } else {
      const reach = [...new Set(legal.filter((m) => m.from === from).map((m) => m.path.at(-1)))];
      screen.say(`The piece on ${from} cannot reach ${square}: it can go to ${reach.join(", ")}.`, "error");
    }
  }

  /** A square's name as moves write it (checkers' number, Othello's d3). */
  squareName(square) {
    return this.state?.board.find((c) => c && c.square === square)?.name ?? String(square);
  }

  /** The destination markers: next hops as dots, farther final squares as rings. */
  destinations() {
    if (!this.selection) return [];
    const hopCount = this.selection.hops.length;
    const dests = new Map();
    for (const m of this.candidates()) {
      const next = m.path[hopCount];
      if (next !== undefined) dests.set(next, { square: next, final: false });
    }
    for (const m of this.candidates()) {
      const last = m.path[m.path.length - 1];
      if (!dests.has(last)) dests.set(last, { square: last, final: true });
    }
    return [...dests.values()];
  }

  // ---- drawing -----------------------------------------------------------------------

  render() {
    if (!this.active) return;
    if (!this.state) {
      screen.setStatus("Loading…");
      return;
    }
    const shown = this.shown();
    screen.board.render({
      game: this.state.game,
      legal: shown.result ? [] : shown.legal,
      mustCapture: this.mustCapture(),
      board: shown.board,
      flipped: this.flipped,
      numbers: screen.prefs.numbers,
      lastMove: shown.last_move,
      selected: this.selection?.from ?? null,
      partial: this.selection?.hops ?? [],
      dests: this.destinations(),
      arrows: arrowsFor(this.shownAnalysis(), screen.prefs.arrows),
    });
    const legal = shown.legal;
    const mustPass = !shown.result && legal.length === 1 && legal[0].move === "pass";
    document.getElementById("pass").hidden = !mustPass;
    const tone = this.view ? this.viewTurn() : this.state.result ? "over" : this.state.turn;
    screen.setStatus(this.statusText(), tone);
    screen.setViewing(this.view ? this.viewName() : null);
    screen.markReady();
  }

  /** The squares of the pieces that must capture (checkers' compulsory capture), if any. */
  mustCapture() {
    const state = this.shown();
    if (state.result || this.state.game !== "checkers" || !state.legal.some((m) => m.captured.length)) return [];
    return [...new Set(state.legal.map((m) => m.from))];
  }

  statusText() {
    const state = this.state;
    if (this.view) return this.viewStatusText();
    const discs = discCount(state);
    if (state.result) return resultText(state.result, discs);
    const note = this.hooks.statusNote?.(state);
    const database = state.database ? ` · ${state.database}` : "";
    const count = discs ? ` · ${discText(discs)}` : "";
    return `${capitalise(state.turn)} to move${count}${note ? ` · ${note}` : ""}${database}`;
  }

  /** A position viewed: whose move it is there, and the game's result if it has one. */
  viewStatusText() {
    const discs = discCount({ game: this.state.game, board: this.view.board });
    if (this.view.result) return `${resultText(this.view.result, discs)} · ${this.viewName()}`;
    const count = discs ? ` · ${discText(discs)}` : "";
    const result = this.state.result ? ` · game: ${this.state.result.score}` : "";
    return `${capitalise(this.viewTurn())} to move${count} · ${this.viewName()}${result}`;
  }

  /**
   * The position shown as a player names it: "after 12. 11-15", "after 12… 22-18 in a side
   * line", "at the start".
   */
  viewName() {
    const { ply, line, last_move: last } = this.view;
    if (!ply || !last) return "at the start";
    return `after ${moveNumber(this.state, ply)} ${last.move}${line ? " in a side line" : ""}`;
  }

  /** The side to move in the past position shown (its FEN says so too). */
  viewTurn() {
    return this.view.turn || (this.view.fen.startsWith("W") ? "white" : "black");
  }
}

/** The number of the move that made ply `ply` (1 on): "12." for Black's, "12…" for White's. */
export function moveNumber(state, ply) {
  const turn = ply - 1 + (state?.moves?.[0]?.side === "white" ? 1 : 0);
  return `${Math.floor(turn / 2) + 1}${turn % 2 === 0 ? "." : "…"}`;
}

/** The key of a position in `analyses`: its line and ply. */
const nodeKey = (node) => `${node.line || 0}:${node.ply}`;

// ---- analysis arrows ---------------------------------------------------------------------

const MAX_ARROWS = 6;

/** The arrows an analysis draws: visit shares, value scores, or the network's priors. */
export function arrowsFor(analysis, mode) {
  if (!analysis || mode === "off" || !analysis.moves?.length) return [];
  if (mode === "priors") return priorArrows(analysis.moves);
  return analysis.score_kind === "visits"
    ? shareArrows(analysis.moves)
    : valueArrows(analysis);
}

export const percentOf = (x) => `${Math.round(100 * x)}%`;

// ---- one plain scale ----------------------------------------------------------------------
// Every agent's value becomes Black's expected result, 0 (a loss) to 1 (a win): networks
// value positions in -1..1, alpha-beta and the learned agents count about men.

/** Whether an analysis's values are a network's (-1..1). */
export function networkScale(a) {
  return a.score_kind === "visits" || String(a.agent).startsWith("az");
}

/** The analysis's value from Black's side (positive: good for Black), whoever moves. */
export function valueForBlack(a) {
  return a.value_for === "black" ? a.value : -a.value;
}

/** Black's expected result (0..1) of a value for Black in the analysis's units. */
function shareOfValue(a, v) {
  return networkScale(a) ? (v + 1) / 2 : 0.5 + 0.5 * Math.tanh(v / 3);
}

/** Black's expected result (0..1) of a proven result for `side`. */
function shareOfProven(proven, side) {
  const good = proven.result === "win" ? 1 : proven.result === "loss" ? 0 : 0.5;
  return side === "black" ? good : 1 - good;
}

/** Black's expected result (0..1) of the position analysed: the bar, the graph, the head. */
export function blackShare(a) {
  if (a.proven) return shareOfProven(a.proven, a.value_for);
  return Math.max(0, Math.min(1, shareOfValue(a, valueForBlack(a))));
}

/** Black's expected result (0..1) after a move whose value score (for the side to move) is `m`. */
export function moveShare(a, m) {
  if (m.proven) return shareOfProven(m.proven, a.value_for);
  const forBlack = a.value_for === "black" ? m.score : -m.score;
  return Math.max(0, Math.min(1, shareOfValue(a, forBlack)));
}
export const signed = (x) => (x >= 0 ? "+" : "") + Number(x).toFixed(2);

function shareArrows(moves) {
  const best = Math.max(...moves.map((m) => m.score), 1e-9);
  return [...moves]
    .sort((a, b) => b.score - a.score)
    .filter((m, i) => i === 0 || m.score >= 0.03)
    .slice(0, MAX_ARROWS)
    .map((m) => arrow(m, m.score / best, percentOf(m.score), "share", `${m.move}: ${percentOf(m.score)} of the search's visits`));
}

function priorArrows(moves) {
  const withPrior = moves.filter((m) => typeof m.prior === "number");
  if (!withPrior.length) return [];
  const best = Math.max(...withPrior.map((m) => m.prior), 1e-9);
  return [...withPrior]
    .sort((a, b) => b.prior - a.prior)
    .filter((m, i) => i === 0 || m.prior >= 0.03)
    .slice(0, MAX_ARROWS)
    .map((m) => arrow(m, m.prior / best, percentOf(m.prior), "prior", `${m.move}: the network's prior ${percentOf(m.prior)}`));
}

/**
 * Value scores have no common scale across agents: weigh by place between best and worst.
 * A proven result is labelled in a word, not by the large score that ranks it.
 */
function valueArrows(analysis) {
  const sorted = [...analysis.moves].sort((a, b) => b.score - a.score).slice(0, 4);
  const best = sorted[0].score;
  const spread = best - sorted[sorted.length - 1].score;
  return sorted.map((m) =>
    arrow(
      m,
      spread > 0 ? 1 - (0.8 * (best - m.score)) / spread : 1,
      m.proven ? m.proven.result : percentOf(moveShare(analysis, m)),
      "score",
      m.proven ? `${m.move}: ${m.proven.text}` : `${m.move}: Black's expected result ${percentOf(moveShare(analysis, m))}`,
    ),
  );
}

/**
 * An arrow of kind "score" (its label an expected result), "share" (a share of the visits,
 * drawn apart from results: italic on a dashed pill) or "prior"; `title` says in words what
 * its label counts.
 */
function arrow(m, weight, label, kind, title) {
  return { move: m.move, from: m.from, path: m.path, weight, label, kind, title };
}
