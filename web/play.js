// The play page: a game against an agent or between two people at one screen, the agent's
// searches and analysis, the move list, and the game tools (undo, resign, draw, PDN, FEN).

import { api, post, messageOf } from "./api.js";
import { AgentForm } from "./agentform.js";
import { GameSession, capitalise, resultText, signed } from "./game.js";
import { screen } from "./screen.js";

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Hints in a game between two people ask this agent (the form's agent if one is chosen).
const HINT_AGENT = "alphabeta";

export class PlayPage {
  constructor() {
    this.form = new AgentForm();
    this.match = { agent: null, user: "black" }; // fixed when the game starts
    this.search = null; // {play, agent, game, ply, id} while a search runs
    this.analysis = null; // the latest analysis of this game
    this.session = new GameSession({
      mayMove: (state) => this.mayMove(state),
      onState: (state, cause) => this.onState(state, cause),
      onAnalysis: (analysis) => this.onAnalysis(analysis),
      onSearchError: (text) => this.onSearchError(text),
      onView: () => this.renderPanel(),
      statusNote: (state) => this.statusNote(state),
    });
  }

  init(info) {
    this.form.init(info);
    this.bindButtons();
    this.bindKeys();
  }

  bindButtons() {
    const on = (id, handler) => $(id).addEventListener("click", handler);
    on("new-game", () => this.newGame());
    on("hint", () => this.hint());
    on("stop", () => this.stop());
    on("undo", () => this.undo());
    on("resign", () => this.resign());
    on("draw", () => this.offerDraw());
    on("copy-fen", () => this.copyFen());
    on("load-pdn", () => this.loadPdn($("pdn-text").value));
    on("nav-first", () => this.session.viewPly(0));
    on("nav-prev", () => this.session.step(-1));
    on("nav-next", () => this.session.step(1));
    on("nav-last", () => this.session.backToGame());
    $("moves").addEventListener("click", (event) => {
      const move = event.target.closest(".move");
      if (move) this.session.viewPly(Number(move.dataset.ply));
    });
  }

  /** Arrow keys step through the game, unless the person is typing in a field. */
  bindKeys() {
    document.addEventListener("keydown", (event) => {
      if (document.body.dataset.tab !== "play") return;
      if (event.target.closest("input, textarea, select")) return;
      const actions = {
        ArrowLeft: () => this.session.step(-1),
        ArrowRight: () => this.session.step(1),
        Home: () => this.session.viewPly(0),
        End: () => this.session.backToGame(),
        Escape: () => this.session.backToGame(),
      };
      const action = actions[event.key];
      if (action) {
        event.preventDefault();
        action();
      }
    });
  }

  // ---- starting games ----------------------------------------------------------------

  /** The first game when the page opens: the form's choice (human vs human unless changed). */
  async start() {
    await this.newGame();
  }

  async newGame() {
    const agent = this.form.spec();
    const user = this.form.userColor();
    const body = this.form.startBody();
    if (body.start === "fen" && !body.fen) {
      screen.say("Paste a FEN first, e.g. B:W18,22,K30:B14,K1.", "error");
      return;
    }
    await this.beginGame(body, { agent, user });
    screen.setFlipped(this.session, agent !== null && user === "black");
    this.startAgentIfDue();
  }

  /** Loads a PDN game to replay it from its start; both sides are then played here. */
  async loadPdn(pdn) {
    if (!pdn.trim()) {
      screen.say("Paste a PDN game first.", "error");
      return false;
    }
    const ok = await this.beginGame({ start: "pdn", pdn }, { agent: null, user: "black" });
    if (!ok) return false;
    screen.setFlipped(this.session, false);
    await this.session.viewPly(0);
    screen.say("Game loaded: step through it with ⟨ ⟩ or the arrow keys.", "ok");
    return true;
  }

  /** Creates the game on the server; the previous game stays if the server refuses. */
  async beginGame(body, match) {
    const previous = this.match;
    this.match = match;
    this.search = null;
    this.analysis = null;
    this.updateThinking();
    try {
      await this.session.create(body);
      screen.say("");
      return true;
    } catch (err) {
      this.match = previous;
      screen.say(messageOf(err), "error");
      this.renderPanel();
      return false;
    }
  }

  // ---- the game's flow ---------------------------------------------------------------

  mayMove(state) {
    if (this.search?.play) return `Wait: ${this.match.agent} is thinking (Stop makes it move now).`;
    if (this.search) return "A hint search is running: wait for it or press Stop.";
    if (this.match.agent && state.turn !== this.match.user) {
      return `It is ${capitalise(state.turn)}'s move: ${this.match.agent} plays it.`;
    }
    return null;
  }

  onState(state, cause) {
    // The agent's move (or any other change of position) ends the search that played it.
    if (this.search?.play && state.ply !== this.search.ply) this.endSearch();
    this.renderPanel();
    if (cause === "move") this.startAgentIfDue();
  }

  /** The agent moves when it is its turn in a game going on. */
  startAgentIfDue() {
    const state = this.session.state;
    if (!state || state.result || !this.match.agent || this.search) return;
    if (state.turn !== this.match.user) this.requestSearch(true, this.match.agent);
  }

  async requestSearch(play, agent) {
    const game = this.session.id;
    const token = { play, agent, game, ply: this.session.state.ply, id: null };
    this.search = token;
    this.updateThinking();
    await this.session.connected; // so the analysis and state events are not missed
    if (this.search !== token) return;
    try {
      const answer = await post(`/api/games/${game}/search`, { agent, play });
      token.id = answer?.search ?? null;
    } catch (err) {
      if (this.search === token) this.endSearch();
      screen.say(messageOf(err), "error");
      return;
    }
    this.watchSearch(token);
  }

  /**
   * Backs up the event stream: polls the game while the search runs, so a lost event cannot
   * leave the page thinking forever.
   */
  async watchSearch(token) {
    let idle = 0;
    while (this.search === token) {
      await sleep(1000);
      if (this.search !== token) return;
      let state;
      try {
        state = await api(`/api/games/${token.game}`);
      } catch {
        continue;
      }
      if (this.search !== token || state.searching) {
        idle = 0;
        continue;
      }
      idle += 1;
      // A hint's final analysis follows its end closely: give it a second to arrive.
      if (token.play || idle >= 2) {
        this.endSearch();
        if (state.ply !== this.session.state?.ply) this.session.setState(state, "poll");
        return;
      }
    }
  }

  onAnalysis(analysis) {
    this.analysis = analysis;
    const search = this.search;
    if (search && !search.play && analysis.final && (search.id === null || analysis.search === search.id)) {
      this.endSearch();
    }
    this.renderAnalysis();
  }

  onSearchError(text) {
    this.endSearch();
    screen.say(text, "error");
  }

  endSearch() {
    this.search = null;
    this.updateThinking();
    this.renderPanel();
  }

  // ---- buttons -----------------------------------------------------------------------

  hint() {
    const state = this.session.state;
    if (!state || this.search) return;
    if (this.session.view) return screen.say("Go back to the game to ask for a hint.", "info");
    if (state.result) return screen.say("The game is over.", "info");
    if (this.match.agent && state.turn !== this.match.user) {
      return screen.say("Hints are for your own move.", "info");
    }
    const agent = this.match.agent || this.form.spec() || HINT_AGENT;
    screen.say("");
    this.requestSearch(false, agent);
  }

  async stop() {
    if (!this.search) return;
    try {
      await post(`/api/games/${this.search.game}/stop`);
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  async undo() {
    const state = this.session.state;
    if (!state || this.search) return;
    const plies = this.pliesToUndo(state);
    if (plies === 0) {
      screen.say(
        this.match.agent ? "Nothing to undo: you have not moved yet." : "Nothing to undo.",
        "info",
      );
      return;
    }
    await this.act("undo", { plies });
  }

  /** Against an agent, back to before the person's last move (the agent's reply goes too). */
  pliesToUndo(state) {
    if (!this.match.agent) return state.ply > 0 ? 1 : 0;
    for (let i = state.moves.length - 1, count = 1; i >= 0; i -= 1, count += 1) {
      if (state.moves[i].side === this.match.user) return count;
    }
    return 0;
  }

  async resign() {
    const state = this.session.state;
    if (!state || state.result || this.search) return;
    const side = this.match.agent ? this.match.user : state.turn;
    if (!window.confirm(`${capitalise(side)} resigns?`)) return;
    await this.act("resign", { side });
  }

  async offerDraw() {
    const state = this.session.state;
    if (!state || state.result || this.search) return;
    const agent = this.match.agent;
    if (!agent && !window.confirm("Do both players agree to a draw?")) return;
    // The agent plays the side that did not offer; asking it is a search, which takes a while.
    if (agent) screen.say(`Asking ${agent}…`, "info");
    try {
      const body = agent ? { agent, side: this.match.user } : {};
      const answer = await post(`/api/games/${this.session.id}/draw`, body);
      this.session.setState(answer.state, "action");
      const verdict = answer.accepted ? "Draw agreed" : "Draw declined";
      screen.say(answer.reason ? `${verdict}: ${answer.reason}` : `${verdict}.`, answer.accepted ? "ok" : "info");
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  /** An action whose answer is the new state (undo, resign). */
  async act(action, body) {
    try {
      const state = await post(`/api/games/${this.session.id}/${action}`, body);
      screen.say("");
      this.session.backToGame();
      this.session.setState(state, action);
      this.startAgentIfDue();
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  async copyFen() {
    const fen = (this.session.view || this.session.state)?.fen;
    if (!fen) return;
    try {
      await navigator.clipboard.writeText(fen);
      screen.say(`Copied ${fen}`, "ok");
    } catch {
      // Clipboard access can be refused (permissions, insecure origin): show it instead.
      screen.say(`FEN: ${fen}`, "info");
    }
  }

  // ---- drawing the panel -------------------------------------------------------------

  statusNote(state) {
    if (this.search?.play) return `${this.match.agent} is thinking…`;
    if (!this.match.agent) return "";
    return state.turn === this.match.user ? "your move" : "";
  }

  updateThinking() {
    const search = this.search;
    screen.setThinking(Boolean(search));
    $("thinking").hidden = !search;
    if (search) {
      $("thinking-text").textContent = search.play
        ? `${search.agent} is thinking…`
        : `Hint: ${search.agent} is searching…`;
    }
    this.updateButtons();
    this.session.render();
  }

  /** Each button is enabled only when it can do something. */
  updateButtons() {
    const state = this.session.state;
    const busy = Boolean(this.search) || !state;
    const over = Boolean(state?.result);
    $("stop").disabled = !this.search;
    $("undo").disabled = busy || state.ply === 0;
    for (const id of ["hint", "resign", "draw"]) $(id).disabled = busy || over;
  }

  renderPanel() {
    const state = this.session.state;
    if (!state) return;
    this.updateButtons();
    this.renderPlayers();
    this.renderMoves(state);
    this.renderAnalysis();
    $("download-pdn").href = `/api/games/${this.session.id}/pdn`;
    const result = $("result");
    result.hidden = !state.result;
    if (state.result) result.textContent = resultText(state.result);
  }

  renderPlayers() {
    const { agent, user } = this.match;
    const name = (side) => (agent ? (side === user ? "You" : agent) : "Human");
    const row = (side) => {
      const el = document.createElement("div");
      el.className = `player player-${side}`;
      if (this.session.state?.turn === side && !this.session.state.result) el.classList.add("to-move");
      el.append(
        Object.assign(document.createElement("span"), { className: "disc" }),
        Object.assign(document.createElement("span"), { className: "side", textContent: capitalise(side) }),
        Object.assign(document.createElement("span"), { className: "name", textContent: name(side) }),
      );
      return el;
    };
    $("players").replaceChildren(row("black"), row("white"));
  }

  /** Numbered pairs; a game that starts with White to move begins "1. … 22-18". */
  renderMoves(state) {
    const list = $("moves");
    const whiteFirst = (state.start_fen || "B").trim().toUpperCase().startsWith("W");
    const offset = whiteFirst ? 1 : 0;
    const shown = this.session.shownPly();
    const rows = new Map();
    for (const m of state.moves) {
      const number = Math.floor((m.ply - 1 + offset) / 2) + 1;
      if (!rows.has(number)) rows.set(number, rowElement(number, whiteFirst && m.ply === 1));
      const cell = Object.assign(document.createElement("button"), {
        className: `move${m.ply === shown ? " current" : ""}`,
        textContent: m.move,
        type: "button",
      });
      cell.dataset.ply = String(m.ply);
      rows.get(number).append(cell);
    }
    list.replaceChildren(...rows.values());
    keepInView(list, list.querySelector(".current"));
  }

  renderAnalysis() {
    const panel = $("analysis");
    const a = this.analysis;
    if (!a) {
      panel.replaceChildren(
        Object.assign(document.createElement("p"), {
          className: "placeholder",
          textContent: "The agent's evaluation and its view of each move appear here (Hint asks for one).",
        }),
      );
      return;
    }
    panel.replaceChildren(...analysisElements(a, this.session.state?.ply));
  }
}

/** Scrolls the list itself (never the page) so the move shown is visible. */
function keepInView(list, item) {
  if (!item) {
    list.scrollTop = list.scrollHeight;
    return;
  }
  const top = item.offsetTop; // the list is position: relative, so this is within it
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

function rowElement(number, ellipsis) {
  const li = document.createElement("li");
  li.value = number;
  li.append(Object.assign(document.createElement("span"), { className: "num", textContent: `${number}.` }));
  if (ellipsis) li.append(Object.assign(document.createElement("span"), { className: "move-gap", textContent: "…" }));
  return li;
}

// ---- the analysis panel ----------------------------------------------------------------------

function analysisElements(a, currentPly) {
  const el = (tag, className, text) =>
    Object.assign(document.createElement(tag), { className, textContent: text ?? "" });
  const head = el("div", "eval");
  const value = el("strong", `value ${a.value > 0 ? "pos" : a.value < 0 ? "neg" : ""}`, signed(a.value));
  const kind = String(a.agent || "").split(":")[0];
  const prefix = a.score_kind === "visits" ? "value " : "";
  const unit = kind === "alphabeta" ? " (alpha-beta, men)" : kind ? ` (${kind})` : "";
  head.append(prefix, value, ` for ${capitalise(a.value_for)}${unit}`);
  const where = a.ply === currentPly ? "this position" : `searched at ply ${a.ply}`;
  const meta = el("div", "meta", `${a.agent} · ${where} · ${a.final ? "final" : "searching…"}`);
  const parts = [head, meta];
  if (a.summary) parts.push(el("div", "summary", a.summary));
  if (a.pv?.length) {
    const pv = el("div", "pv");
    pv.append(el("span", "label", "PV "), a.pv.join(" "));
    parts.push(pv);
  }
  if (a.moves?.length) parts.push(scoreTable(a));
  return parts;
}

/** Each move's visit share (with a bar) or value, and the network's prior when it has one. */
function scoreTable(a) {
  const visits = a.score_kind === "visits";
  const withPriors = a.moves.some((m) => typeof m.prior === "number");
  const table = document.createElement("table");
  table.className = "scores";
  const header = table.createTHead().insertRow();
  for (const title of ["move", visits ? "visits" : "score", ...(withPriors ? ["prior"] : [])]) {
    header.append(Object.assign(document.createElement("th"), { textContent: title }));
  }
  const body = table.createTBody();
  const sorted = [...a.moves].sort((x, y) => y.score - x.score).slice(0, 12);
  for (const m of sorted) {
    const row = body.insertRow();
    row.insertCell().textContent = m.move;
    const score = row.insertCell();
    if (visits) {
      const bar = Object.assign(document.createElement("span"), { className: "bar" });
      bar.style.width = `${Math.round(100 * Math.max(0, Math.min(1, m.score)))}%`;
      score.append(bar, `${(100 * m.score).toFixed(1)}%`);
    } else {
      score.textContent = signed(m.score);
    }
    if (withPriors) {
      row.insertCell().textContent = typeof m.prior === "number" ? `${(100 * m.prior).toFixed(1)}%` : "–";
    }
  }
  return table;
}
