// The play page: a game against an agent or between two people at one screen, the agent's
// searches and analysis, the move list, and the game tools (undo, resign, draw, PDN, FEN).

import { api, post, messageOf } from "./api.js";
import { AgentForm } from "./agentform.js";
import { Clocks } from "./clocks.js";
import {
  GameSession,
  blackShare,
  capitalise,
  discCount,
  moveNumber,
  moveShare,
  networkScale,
  percentOf,
  resultText,
  signed,
  valueForBlack,
} from "./game.js";
import { screen } from "./screen.js";
import { svgEl } from "./board.js";

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Hints in a game between two people ask this agent (the form's agent if one is chosen).
const HINT_AGENT = "alphabeta";

// The "Show its thinking" choice, kept in the browser's storage (where it has any).
const THINKING_KEY = "checkers-zero.show-thinking";
function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // A browser without storage forgets the choice at the next reload.
  }
}

export class PlayPage {
  constructor() {
    this.form = new AgentForm();
    this.clocks = new Clocks();
    this.match = { agent: null, user: "black" }; // fixed when the game starts
    this.search = null; // {play, agent, game, ply, id} while a search runs
    this.analysis = null; // the latest analysis of this game
    this.asked = new Set(); // the searches this page asked for (hints, analyses)
    this.session = new GameSession({
      shows: (analysis) => this.shows(analysis),
      mayMove: (state) => this.mayMove(state),
      onState: (state, cause) => this.onState(state, cause),
      onAnalysis: (analysis) => this.onAnalysis(analysis),
      onKept: (latest) => {
        this.restoreReview();
        this.analysis ??= latest;
        this.renderAnalysis();
      },
      onSearchError: (text) => this.onSearchError(text),
      onView: () => {
        this.renderPanel();
        this.followShown();
      },
      onAttach: (state) => this.onAttach(state),
      statusNote: (state) => this.statusNote(state),
    });
  }

  init(info) {
    this.form.init(info);
    this.bindButtons();
    this.bindKeys();
    // Whether to show the computer's search while it plays you: a player's choice, kept.
    const thinking = $("show-thinking");
    thinking.checked = stored(THINKING_KEY) === "1";
    thinking.addEventListener("change", () => {
      store(THINKING_KEY, thinking.checked ? "1" : "0");
      this.session.render();
      this.renderPanel();
    });
  }

  /**
   * Whether the computer's thinking is hidden: in a game against it, still going, unless the
   * player asked to see it. Its moves then come as a person's would, with no arrows, lines,
   * evaluation or graph telling the player what it saw.
   */
  thinkingHidden() {
    return Boolean(this.match.agent) && !this.session.state?.result && !$("show-thinking").checked;
  }

  /** Whether an analysis may show: always, but the computer's own while its thinking is hidden. */
  shows(analysis) {
    return !this.thinkingHidden() || this.asked.has(analysis.search);
  }

  bindButtons() {
    const on = (id, handler) => $(id).addEventListener("click", handler);
    on("new-game", () => this.newGame());
    on("hint", () => this.hint());
    on("analyse", () => this.analyse(true));
    on("review", () => this.reviewGame());
    $("eval-graph").addEventListener("click", (event) => {
      const state = this.session.state;
      if (!state) return;
      const box = event.currentTarget.getBoundingClientRect();
      this.session.viewPly(Math.round(((event.clientX - box.left) / box.width) * state.ply));
    });
    on("stop", () => this.stop());
    on("undo", () => this.undo());
    on("resign", () => this.resign());
    on("draw", () => this.offerDraw());
    on("copy-fen", () => this.copyFen());
    on("copy-moves", () => this.copyMoves());
    on("pass", () => screen.session?.playMove("pass"));
    $("move-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.typedMove();
    });
    on("load-pdn", () => this.loadPdn($("pdn-text").value));
    on("nav-first", () => this.session.viewPly(0));
    on("nav-prev", () => this.session.step(-1));
    on("nav-next", () => this.session.step(1));
    on("nav-last", () => this.session.backToGame());
    $("moves").addEventListener("click", (event) => {
      const remove = event.target.closest(".delete-line");
      if (remove) return this.deleteLine(Number(remove.dataset.line));
      const move = event.target.closest(".move");
      if (move) this.session.viewNode({ line: Number(move.dataset.line || 0), ply: Number(move.dataset.ply) });
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

  /**
   * The first game when the page opens: the game named in the address (a reload, a second
   * tab) if the server still holds it, else a new game against the computer.
   */
  async start() {
    const id = new URLSearchParams(location.search).get("game");
    let gone = null;
    if (id !== null) {
      try {
        await this.session.open(id);
        this.form.showPlayers(this.session.state.players);
        this.form.showClock(this.session.state.clock);
        return;
      } catch (err) {
        gone = `${messageOf(err)}. This is a new game.`;
      }
    }
    await this.newGame();
    // Said after the new game begins, whose start clears the status line.
    if (gone) screen.say(gone, "info");
  }

  /** The game's own address, and who plays it, follow the game shown. */
  onAttach(state) {
    const url = new URL(location.href);
    url.searchParams.set("game", state.id);
    history.replaceState(null, "", url);
    this.match = matchOf(state.players);
    this.form.setGame(state.game);
    // A review belongs to the game it reviewed.
    if (this.review && this.review.game !== state.id) {
      this.review = null;
      renderReviewSummary(null);
    }
    screen.setFlipped(this.session, this.match.agent !== null && this.match.user === "black" && state.game === "checkers");
  }

  async newGame() {
    const body = this.form.startBody();
    if (body.start === "fen" && !body.fen) {
      screen.say("Paste a position first.", "error");
      return;
    }
    await this.beginGame({ ...body, ...this.form.players(), ...this.form.clock() });
  }

  /**
   * Loads a game record (PDN, or Othello's move list) as a new game at its own address,
   * shown from its start; both sides are then played here. The game in progress stays at
   * its address.
   */
  async loadPdn(pdn, game = this.form.game(), index = 0) {
    if (!pdn.trim()) {
      screen.say("Paste a game first.", "error");
      return false;
    }
    const previous = this.session.id;
    const ok = await this.beginGame({ game, start: "pdn", pdn, ...(index ? { index } : {}) });
    if (!ok) return false;
    await this.session.viewPly(0);
    const kept = previous !== null ? ` Your previous game is kept at ?game=${previous}.` : "";
    screen.say(`Game loaded: step through it with ⟨ ⟩ or the arrow keys.${kept}`, "ok");
    return true;
  }

  /** Creates the game on the server; the previous game stays if the server refuses. */
  async beginGame(body) {
    this.search = null;
    this.analysis = null;
    this.updateThinking();
    try {
      await this.session.create(body);
      screen.say("");
      return true;
    } catch (err) {
      screen.say(messageOf(err), "error");
      this.renderPanel();
      return false;
    }
  }

  /** A move typed in the box, for the game on the board: played if legal, else the reason. */
  async typedMove() {
    const session = screen.session;
    const input = $("move-input");
    const text = input.value.trim();
    if (!text || !session?.state) return;
    const refusal = session.refusal(session.state);
    if (refusal) {
      screen.say(refusal, "info");
      return;
    }
    const before = session.shownNode();
    await session.playMove(text);
    const after = session.shownNode();
    if (after.line !== before.line || after.ply !== before.ply) input.value = "";
  }

  // ---- the game's flow ---------------------------------------------------------------

  /** How a player reads an agent: a level by its name (`the computer (Strong)`), else its spec. */
  nameOf(spec) {
    const level = this.form.levelOf(spec);
    return level ? `the computer (${level.name})` : spec;
  }

  mayMove(state) {
    if (this.search?.play) {
      const stop = this.thinkingHidden() ? "" : " (Stop makes it move now)";
      return `Wait: ${this.nameOf(this.match.agent)} is thinking${stop}.`;
    }
    if (this.search) return "A hint search is running: wait for it or press Stop.";
    if (this.match.agent && state.turn !== this.match.user) {
      return `It is ${capitalise(state.turn)}'s move: ${this.nameOf(this.match.agent)} plays it.`;
    }
    return null;
  }

  onState(state) {
    this.followAgent(state);
    this.clocks.show(state, () => this.session.flipped);
    this.renderPanel();
  }

  /**
   * The server plays the computer's moves, page or no page: while it searches one the page
   * shows the agent thinking (after a reload too), and its move (or any other change of
   * position) ends that.
   */
  followAgent(state) {
    if (this.search?.play && (state.ply !== this.search.ply || !state.searching)) this.endSearch();
    const agentToMove = this.match.agent && !state.result && state.turn !== this.match.user;
    if (state.searching && agentToMove && !this.search) {
      const token = { play: true, agent: this.match.agent, game: state.id, ply: state.ply, infinite: false, id: null };
      this.search = token;
      this.updateThinking();
      this.watchSearch(token);
    }
  }

  /**
   * Starts a search that plays nothing (the server plays the agents' moves): a hint, or an
   * analysis of the position at `ply` (an earlier one too) that runs until Stop when
   * `infinite`.
   */
  async requestSearch(agent, { ply = null, line = 0, infinite = false } = {}) {
    const game = this.session.id;
    const at = ply ?? this.session.state.ply;
    const play = false;
    const token = { play, agent, game, ply: at, line, infinite, id: null };
    this.search = token;
    this.updateThinking();
    // Stop waits for this: a Stop (or a step to another position) that comes before the
    // server has the search would otherwise end nothing and leave it running forever.
    token.started = this.startSearch(token, { agent, play, ply, line, infinite });
    if (await token.started) this.watchSearch(token);
  }

  /** Sends `token`'s search to the server; whether it started. */
  async startSearch(token, { agent, play, ply, line, infinite }) {
    await this.session.connected; // so the analysis and state events are not missed
    if (this.search !== token) return false;
    try {
      const body = { agent, play };
      const lines = Number($("lines").value);
      if (lines > 1) body.lines = lines;
      if (ply !== null) body.ply = ply;
      if (line) body.line = line;
      if (infinite) body.infinite = true;
      const answer = await post(`/api/games/${token.game}/search`, body);
      token.id = answer?.search ?? null;
      if (token.id !== null) {
        // Its analyses may have come before this answer: shown now that they are known.
        this.asked.add(token.id);
        this.renderAnalysis();
        this.session.render();
      }
      return true;
    } catch (err) {
      if (this.search === token) this.endSearch();
      screen.say(messageOf(err), "error");
      return false;
    }
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
    this.review?.waiting?.(analysis);
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
    const ended = this.search;
    this.search = null;
    this.updateThinking();
    this.renderPanel();
    if (ended?.restart && ended.game === this.session.id) this.analyse(true);
  }

  /**
   * A running analysis follows the position shown: stepping to another position (of the
   * game or a side line) stops it and starts it again there.
   */
  followShown() {
    const search = this.search;
    if (!search?.infinite || search.restart) return;
    const node = this.session.shownNode();
    if (search.line === node.line && search.ply === node.ply) return;
    search.restart = true;
    this.stop();
  }

  // ---- buttons -----------------------------------------------------------------------

  /** A hint for the person's move, or the agent's view of the earlier position shown. */
  hint() {
    this.analyse(false);
  }

  /**
   * Asks the agent for its view of the position on the board (the game's, or an earlier
   * one being viewed); `infinite` keeps it searching, updating live, until Stop.
   */
  analyse(infinite) {
    const state = this.session.state;
    if (!state || this.search) return;
    const viewing = this.session.view;
    if (!viewing && state.result) return screen.say("The game is over: step back to a position to analyse it.", "info");
    if (viewing?.result) return screen.say("This line ends here: step back to a position to analyse it.", "info");
    if (!viewing && !infinite && this.match.agent && state.turn !== this.match.user) {
      return screen.say("Hints are for your own move.", "info");
    }
    // The opponent, else the form's agent, else alpha-beta.
    const agent = this.match.agent || this.form.spec() || HINT_AGENT;
    screen.say("");
    this.requestSearch(agent, { ply: viewing ? viewing.ply : null, line: viewing?.line ?? 0, infinite });
  }

  async stop() {
    const search = this.search;
    if (!search) return;
    await search.started;
    if (this.search !== search) return;
    try {
      await post(`/api/games/${search.game}/stop`);
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
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  /** Deletes a side line (and those leaving it); the board shows where it left from. */
  async deleteLine(line) {
    try {
      const answer = await api(`/api/games/${this.session.id}/lines/${line}`, { method: "DELETE" });
      this.session.setState(answer.state, "line");
      this.session.showPosition(answer.position);
      screen.say("Side line deleted.", "ok");
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  copyFen() {
    return copy((this.session.view || this.session.state)?.fen, "Position");
  }

  copyMoves() {
    return copy(this.session.state?.moves_text, "Moves");
  }

  // ---- drawing the panel -------------------------------------------------------------

  /** The opening's name (a named checkers line), then whose move it is against an agent. */
  statusNote(state) {
    const turn = this.search?.play
      ? `${capitalise(this.nameOf(this.match.agent))} is thinking…`
      : this.match.agent && state.turn === this.match.user
        ? "your move"
        : "";
    return [state.opening, turn].filter(Boolean).join(" · ");
  }

  updateThinking() {
    const search = this.search;
    screen.setThinking(Boolean(search));
    $("thinking").hidden = !search;
    if (search) {
      $("thinking-text").textContent = search.play
        ? `${capitalise(this.nameOf(search.agent))} is thinking…`
        : search.infinite
          ? `Analysing ${positionWords(this.session.state, search.ply, search.line)} with ${this.nameOf(search.agent)}: Stop ends it`
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
    // The computer playing you is not hurried unless you watch it think.
    $("stop").disabled = !this.search || (this.search.play && this.thinkingHidden());
    $("undo").disabled = busy || state.ply === 0;
    for (const id of ["resign", "draw"]) $(id).disabled = busy || over;
    $("hint").disabled = busy || (over && !this.session.view);
    $("analyse").disabled = busy;
  }

  renderPanel() {
    const state = this.session.state;
    if (!state) return;
    this.updateButtons();
    this.renderPlayers();
    this.renderMoves(state);
    this.renderAnalysis();
    $("download-pdn").href = `/api/games/${this.session.id}/pdn`;
    const moves = $("download-moves");
    moves.href = `data:text/plain;charset=utf-8,${encodeURIComponent(state.moves_text + "\n")}`;
    moves.download = `${state.game}-game-${state.id}.txt`;

    const result = $("result");
    result.hidden = !state.result;
    if (state.result) result.textContent = resultText(state.result, discCount(state));
  }

  renderPlayers() {
    const { agent, user } = this.match;
    // The computer at a level is named by its level; any agent's spec is in the tooltip.
    const level = agent ? this.form.levelOf(agent) : null;
    // A spec breaks after its commas and colons, not mid-word.
    const computer = level ? `The computer (${level.name})` : agent?.replace(/([,:])/g, "$1\u200b");
    // A loaded record's own names, else who plays here.
    const names = this.session.state?.names;
    const name = (side) => names?.[side] ?? (agent ? (side === user ? "You" : computer) : "Human");
    const discs = discCount(this.session.state);
    const row = (side) => {
      const el = document.createElement("div");
      el.className = `player player-${side}`;
      if (this.session.state?.turn === side && !this.session.state.result) el.classList.add("to-move");
      el.append(
        Object.assign(document.createElement("span"), { className: "disc" }),
        Object.assign(document.createElement("span"), { className: "side", textContent: capitalise(side) }),
        Object.assign(document.createElement("span"), {
          className: "name",
          textContent: name(side),
          title: agent && side !== user ? agent : "",
        }),
      );
      if (discs) {
        const count = Object.assign(document.createElement("span"), { className: "count", textContent: discs[side] });
        count.title = `${capitalise(side)}'s discs on the board`;
        el.append(count);
      }
      return el;
    };
    $("players").replaceChildren(row("black"), row("white"));
  }

  /**
   * Numbered pairs; a game that starts with White to move begins "1. … 22-18". The side
   * lines leaving the game follow the row of the move they replace, each with its own
   * side lines in parentheses, as the PDN writes them.
   */
  renderMoves(state) {
    const list = $("moves");
    const whiteFirst = state.moves[0]?.side === "white";
    const offset = whiteFirst ? 1 : 0;
    const shown = this.session.shownNode();
    const rows = new Map();
    const sideLines = state.variations || [];
    const leaving = (line, ply) => sideLines.filter((l) => l.parent === line && l.from === ply);
    const items = [];
    for (const m of state.moves) {
      const number = Math.floor((m.ply - 1 + offset) / 2) + 1;
      if (!rows.has(number)) {
        rows.set(number, rowElement(number, whiteFirst && m.ply === 1));
        items.push(rows.get(number));
      }
      const lost = this.review?.lost.get(m.ply);
      const cell = moveButton(m, 0, shown, lost ? `${m.move}${lost.mark}` : m.move);
      if (lost) {
        cell.classList.add("lost");
        cell.title = `${capitalise(lost.grade)}: this move lost ${Math.round(100 * lost.loss)}% of ${capitalise(m.side)}'s expected result`;
      }
      rows.get(number).append(cell);
      const branches = leaving(0, m.ply - 1);
      if (branches.length) items.push(sideLinesRow(branches, { leaving, offset, shown }));
    }
    list.replaceChildren(...items);
    keepInView(list, list.querySelector(".current"), shown.ply);
  }

  /**
   * Reviews the game: the analysis agent looks at every position in turn (quickly), the
   * eval graph fills in, and the moves that lost the most for their side are marked.
   */
  async reviewGame() {
    const state = this.session.state;
    if (!state || this.search || this.review?.running) return;
    const agent = reviewAgent(state.game);
    this.review = { running: true, lost: new Map(), shares: new Map(), agent, game: state.id };
    renderReviewSummary(null);
    const review = this.review;
    for (let ply = 0; ply <= state.ply && this.review === review; ply += 1) {
      const position = ply === state.ply ? state : null;
      if (position?.result) break;
      // A position the review's agent has searched already (the server keeps its analyses).
      const kept = this.reviewed(ply, agent);
      if (kept) {
        review.shares.set(ply, blackShare(kept));
        continue;
      }
      screen.say(`Reviewing: position ${ply} of ${state.ply} with ${agent}…`, "info");
      const done = new Promise((resolve) => {
        review.waiting = (a) => a.final && a.ply === ply && !a.line && resolve(a);
        setTimeout(() => resolve(null), 30000);
      });
      await this.requestSearch(agent, { ply });
      const a = await done;
      if (a) review.shares.set(ply, blackShare(a));
    }
    review.waiting = null;
    review.running = false;
    if (this.review !== review) return;
    markLosses(review, this.session.state);
    renderReviewSummary(review);
    const costly = [...review.lost.values()].filter((l) => l.grade !== "inaccuracy").sort((a, b) => b.loss - a.loss);
    const worst = costly.slice(0, 3).map((l) => moveName(this.session.state, l));
    screen.say(worst.length ? `Review done. The costliest moves: ${worst.join(", ")}.` : "Review done: no move lost much.", "ok");
    this.renderPanel();
    this.renderPanel();
  }

  /** The review agent's finished analysis of the game's position after `ply` plies, if kept. */
  reviewed(ply, agent) {
    const a = this.session.analyses.get(`0:${ply}`);
    return a?.final && a.agent === agent ? a : null;
  }

  /**
   * A game reopened (a reload, the Games tab) whose every position the review's agent has
   * analysed shows its review again, from the analyses the server kept, without searching.
   */
  restoreReview() {
    const state = this.session.state;
    if (!state || this.review?.game === state.id) return;
    const agent = reviewAgent(state.game);
    const last = state.result ? state.ply - 1 : state.ply;
    const shares = new Map();
    for (let ply = 0; ply <= last; ply += 1) {
      const a = this.reviewed(ply, agent);
      if (!a) return;
      shares.set(ply, blackShare(a));
    }
    this.review = { running: false, lost: new Map(), shares, agent, game: state.id };
    markLosses(this.review, state);
    renderReviewSummary(this.review);
    this.renderPanel();
  }

  renderAnalysis() {
    const panel = $("analysis");
    // The analysis of the position shown (a review's, stepping back), else the latest.
    const latest = this.analysis && this.session.shows(this.analysis) ? this.analysis : null;
    const a = this.session.shownAnalysis() || latest;
    if (!a) {
      renderEvalBar(null);
      this.renderGraph();
      panel.replaceChildren(
        Object.assign(document.createElement("p"), {
          className: "placeholder",
          textContent: this.thinkingHidden()
            ? "The computer's thinking is hidden while it plays you (tick Show its thinking to see it); Hint asks for a view of your move."
            : "The agent's evaluation and its view of each move appear here (Hint asks for one).",
        }),
      );
      return;
    }
    // In words a player reads: a level by its name, a position by its move.
    const level = this.form.levelOf(a.agent);
    const words = {
      agent: level ? `The computer (${level.name})` : a.agent,
      position: positionWords(this.session.state, a.ply, a.line),
    };
    panel.replaceChildren(...analysisElements(a, this.session.shownNode(), words));
    renderEvalBar(a);
    this.renderGraph();
  }

  /** Black's expected share at each ply analysed (the review's, else the latest), clickable. */
  renderGraph() {
    const state = this.session.state;
    const svg = $("eval-graph");
    const shares = new Map(this.review?.shares || []);
    for (const a of this.session.gameAnalyses()) if (!shares.has(a.ply)) shares.set(a.ply, blackShare(a));
    // `hidden` is a property of HTML elements only: an SVG element needs the attribute.
    const hide = !state || shares.size < 2;
    svg.toggleAttribute("hidden", hide);
    if (hide) return;
    const width = 300;
    const height = 90;
    const x = (ply) => (state.ply ? (ply / state.ply) * width : 0);
    const y = (share) => height - share * height;
    const points = [...shares.entries()].sort((p, q) => p[0] - q[0]);
    const path = points.map(([ply, share], i) => `${i ? "L" : "M"}${x(ply).toFixed(1)},${y(share).toFixed(1)}`).join(" ");
    // The graph plots the game: a side line's position marks the game's own.
    const node = this.session.shownNode();
    const shown = node.line ? state.ply : node.ply;
    svg.replaceChildren(
      svgEl("rect", { x: 0, y: 0, width, height, class: "graph-bg" }),
      svgEl("line", { x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "graph-mid" }),
      svgEl("path", { d: `${path} L${x(points.at(-1)[0])},${height} L${x(points[0][0])},${height} Z`, class: "graph-area" }),
      svgEl("path", { d: path, class: "graph-line" }),
      svgEl("line", { x1: x(shown), x2: x(shown), y1: 0, y2: height, class: "graph-now" }),
    );
  }
}

/** A quick agent for reviewing every position of a game. */
function reviewAgent(game) {
  return game === "othello" ? "alphabeta:depth=4" : "alphabeta:depth=6";
}

/**
 * How costly a move was, by the share of its side's expected result it lost: the grades of
 * the lichess review (winning chances, -1 to 1, dropping by 0.3, 0.2 and 0.1), in
 * expected-result points (0 to 1): half as much. Giving away a man from an even position,
 * alpha-beta's 16%, is a blunder.
 */
const GRADES = [
  { name: "blunder", mark: "??", from: 0.15 },
  { name: "mistake", mark: "?", from: 0.1 },
  { name: "inaccuracy", mark: "?!", from: 0.05 },
];

/**
 * Grades every move the review saw both sides of, and sums up each side: its accuracy (the
 * mean over its moves of 100·e^(−loss/10%): a move that loses nothing scores 100, one that
 * loses 10% of the expected result 37) and its count of each grade.
 */
function markLosses(review, state) {
  review.lost = new Map();
  const sides = Object.fromEntries(
    ["black", "white"].map((side) => [side, { moves: 0, accuracy: 0, ...Object.fromEntries(GRADES.map((g) => [g.name, 0])) }]),
  );
  for (const m of state.moves) {
    const before = review.shares.get(m.ply - 1);
    const after = review.shares.get(m.ply);
    if (before === undefined || after === undefined) continue;
    const loss = Math.max(0, m.side === "black" ? before - after : after - before);
    const side = sides[m.side];
    side.moves += 1;
    side.accuracy += 100 * Math.exp(-loss / 0.1);
    const grade = GRADES.find((g) => loss >= g.from);
    if (!grade) continue;
    side[grade.name] += 1;
    review.lost.set(m.ply, { ply: m.ply, move: m.move, side: m.side, loss, mark: grade.mark, grade: grade.name });
  }
  for (const side of Object.values(sides)) side.accuracy = side.moves ? side.accuracy / side.moves : null;
  review.summary = sides;
}

/** The review's summary: each side's accuracy and its inaccuracies, mistakes and blunders. */
function renderReviewSummary(review) {
  const box = $("review-summary");
  box.hidden = !review?.summary;
  if (!review?.summary) return;
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const title of ["", "accuracy", ...GRADES.slice().reverse().map((g) => `${g.name === "inaccuracy" ? "inaccuracies" : `${g.name}s`} (${g.mark})`)]) {
    head.append(Object.assign(document.createElement("th"), { textContent: title }));
  }
  const body = table.createTBody();
  for (const [name, side] of Object.entries(review.summary)) {
    const row = body.insertRow();
    row.dataset.side = name;
    row.insertCell().textContent = capitalise(name);
    row.insertCell().textContent = side.accuracy === null ? "–" : `${Math.round(side.accuracy)}%`;
    for (const g of GRADES.slice().reverse()) row.insertCell().textContent = String(side[g.name]);
  }
  const note = Object.assign(document.createElement("p"), {
    className: "meta",
    textContent: `Against ${review.agent}. Accuracy: each move scores 100 when it keeps its side's expected result, less the more it loses.`,
  });
  box.replaceChildren(table, note);
}

/**
 * A position as a player names it: "the position after 12. 11-15", "the starting position",
 * "the side line's position after 12…" (by move number, not ply).
 */
function positionWords(state, ply, line) {
  if (!ply) return "the starting position";
  if (line) return `the side line's position after ${moveNumber(state, ply)}`;
  const m = state?.moves?.[ply - 1];
  return m ? `the position after ${moveName(state, m)}` : `the position after ${moveNumber(state, ply)}`;
}

/** "12. 11-15" for Black's twelfth move, "12… 22-18" for White's. */
function moveName(state, m) {
  return `${moveNumber(state, m.ply)} ${m.move}`;
}

/** The evaluation bar beside the board: Black's share from the bottom. */
function renderEvalBar(a) {
  const bar = $("eval-bar");
  bar.hidden = !a;
  if (!a) return;
  const share = blackShare(a);
  $("eval-fill").style.height = `${(100 * share).toFixed(1)}%`;
  // Black's expected result in percent, at the end of the side ahead (lichess's place); the
  // bar holds the number, its tooltip says what it is.
  const percent = `${Math.round(100 * share)}%`;
  const text = $("eval-text");
  text.textContent = String(Math.round(100 * share));
  text.classList.toggle("black-ahead", share >= 0.5);
  bar.title = `Black's expected result: ${percent} (${unitsText(a)})`;
  bar.setAttribute("aria-label", `Evaluation: ${bar.title}`);
}

/** Who plays: the person's side (the one side a human plays) and the agent of the other. */
function matchOf(players) {
  const black = players?.black ?? "human";
  const white = players?.white ?? "human";
  if (black === "human" && white !== "human") return { agent: white, user: "black" };
  if (white === "human" && black !== "human") return { agent: black, user: "white" };
  return { agent: null, user: "black" };
}

async function copy(text, what) {
  if (!text) return;
  try {
    await navigator.clipboard.writeText(text);
    screen.say(`Copied ${text}`, "ok");
  } catch {
    // Clipboard access can be refused (permissions, insecure origin): show it instead.
    screen.say(`${what}: ${text}`, "info");
  }
}

/** Scrolls the list itself (never the page) so the move shown is visible: the top at ply 0. */
function keepInView(list, item, shown) {
  if (!item) {
    list.scrollTop = shown === 0 ? 0 : list.scrollHeight;
    return;
  }
  const top = item.offsetTop; // the list is position: relative, so this is within it
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top + item.offsetHeight - list.clientHeight;
  }
}

/** A move of the game (line 0) or of a side line, marked when it is the position shown. */
function moveButton(m, line, shown, text) {
  const current = shown.line === line && shown.ply === m.ply;
  const cell = Object.assign(document.createElement("button"), {
    className: `move${current ? " current" : ""}`,
    textContent: text,
    type: "button",
  });
  cell.dataset.ply = String(m.ply);
  cell.dataset.line = String(line);
  return cell;
}

/**
 * The side lines that leave one position, below the row of the move they replace: each its
 * moves numbered as the PDN writes them, its own side lines in parentheses after the move
 * they replace, and a button that deletes it.
 */
function sideLinesRow(branches, context) {
  const li = Object.assign(document.createElement("li"), { className: "side-lines" });
  for (const branch of branches) {
    const block = Object.assign(document.createElement("div"), { className: "side-line" });
    block.append(...sideLineParts(branch, context));
    const remove = Object.assign(document.createElement("button"), {
      className: "delete-line",
      type: "button",
      textContent: "×",
      title: "Delete this side line",
    });
    remove.dataset.line = String(branch.line);
    remove.setAttribute("aria-label", `Delete the side line ${branch.moves[0].move}`);
    block.append(remove);
    li.append(block);
  }
  return li;
}

function sideLineParts(branch, context) {
  const { leaving, offset, shown } = context;
  const parts = [];
  let fresh = true;
  for (const m of branch.moves) {
    const number = Math.floor((m.ply - 1 + offset) / 2) + 1;
    const black = (m.ply - 1 + offset) % 2 === 0;
    if (black || fresh) {
      parts.push(Object.assign(document.createElement("span"), { className: "num", textContent: black ? `${number}.` : `${number}…` }));
    }
    parts.push(moveButton(m, branch.line, shown, m.move));
    fresh = false;
    for (const inner of leaving(branch.line, m.ply - 1)) {
      parts.push("(", ...sideLineParts(inner, context), ")");
      fresh = true;
    }
  }
  return parts;
}

function rowElement(number, ellipsis) {
  const li = document.createElement("li");
  li.value = number;
  li.append(Object.assign(document.createElement("span"), { className: "num", textContent: `${number}.` }));
  if (ellipsis) li.append(Object.assign(document.createElement("span"), { className: "move-gap", textContent: "…" }));
  return li;
}

// ---- the analysis panel ----------------------------------------------------------------------

/** "Black 62%" (Black's expected result), or the proven result in words ("White: win in 7 moves"). */
export function valueText(a) {
  if (a.proven?.text) return `${capitalise(a.value_for)}: ${a.proven.text}`;
  return `Black ${percentOf(blackShare(a))}`;
}

/** The value in the agent's own units, for a tooltip: "+1.50 men for Black (alpha-beta's count)". */
export function unitsText(a) {
  const v = valueForBlack(a);
  if (a.proven?.text) return `${capitalise(a.value_for)}: ${a.proven.text}`;
  return `${signed(v)} for Black in ${unitsOf(a)}`;
}

/** What an agent's values count. */
function unitsOf(a) {
  if (networkScale(a)) return "the network's value, from -1 (a loss) to +1 (a win)";
  if (String(a.agent || "").startsWith("alphabeta")) return "men (alpha-beta's evaluation)";
  return "the agent's units";
}

function analysisElements(a, current, words) {
  const el = (tag, className, text) =>
    Object.assign(document.createElement(tag), { className, textContent: text ?? "" });
  const head = el("div", "eval");
  const v = valueForBlack(a);
  const value = el("strong", `value ${v > 0 ? "pos" : v < 0 ? "neg" : ""}`, valueText(a));
  value.title = unitsText(a);
  head.append(value);
  const here = a.ply === current.ply && (a.line || 0) === current.line;
  const where = here ? "this position" : words.position;
  const meta = el("div", "meta", `${words.agent} · ${where} · ${a.final ? "final" : "searching…"}`);
  const parts = [head, meta];
  if (a.summary) {
    const summary = el("div", "summary", summaryWords(a.summary));
    summary.title = a.summary; // the engine protocol's own words
    parts.push(summary);
  }
  if (a.lines?.length) {
    // The best moves' lines, each with its value on the plain scale.
    const lines = el("ol", "lines");
    for (const line of a.lines) {
      const share = moveShare(a, { score: line.value, proven: line.proven });
      const item = el("li", "", "");
      const value = el("strong", "", line.proven ? line.proven.text : `Black ${percentOf(share)}`);
      value.title = `${signed(line.value)} for ${capitalise(a.value_for)} in ${unitsOf(a)}`;
      item.append(value, " ", line.pv.join(" "));
      lines.append(item);
    }
    parts.push(lines);
  } else if (a.pv?.length) {
    const pv = el("div", "pv");
    pv.append(el("span", "label", "Best line "), a.pv.join(" "));
    parts.push(pv);
  }
  if (a.moves?.length) parts.push(scoreTable(a));
  return parts;
}

/**
 * The agent's summary, written for the engine protocol ("depth 6 nodes 1234 pv ...",
 * "simulations 200 visits 512 kept 312 nodes 900 sims/s 4200 pv ..."), in words:
 * "6 plies deep, 1,234 positions", "200 simulations (512 with the 312 kept from earlier
 * moves), 4,200 a second". A note before it (the databases' verdict) stays as it is.
 */
function summaryWords(summary) {
  const cut = summary.lastIndexOf("; ");
  const note = cut >= 0 ? summary.slice(0, cut + 1) + " " : "";
  const words = summary.slice(cut + 1).trim().split(/\s+/);
  const kv = {};
  for (let i = 0; i + 1 < words.length && words[i] !== "pv"; i += 2) kv[words[i]] = Number(words[i + 1]);
  const n = (x) => Math.round(x).toLocaleString("en");
  const parts = [];
  if (Number.isFinite(kv.depth)) parts.push(`depth ${kv.depth}, ${n(kv.nodes || 0)} positions`);
  if (Number.isFinite(kv.simulations)) {
    const kept = kv.kept > 0 ? ` (${n(kv.visits)} with the ${n(kv.kept)} kept from earlier moves)` : "";
    parts.push(`${n(kv.simulations)} simulations${kept}`);
    if (Number.isFinite(kv["sims/s"])) parts.push(`${n(kv["sims/s"])} a second`);
  }
  return parts.length ? `${note}${parts.join(", ")}` : summary;
}

/** Each move's visit share (with a bar) or value, and the network's prior when it has one. */
function scoreTable(a) {
  const visits = a.score_kind === "visits";
  const withPriors = a.moves.some((m) => typeof m.prior === "number");
  const table = document.createElement("table");
  table.className = "scores";
  const header = table.createTHead().insertRow();
  for (const title of ["move", visits ? "share of visits" : "Black's expected result", ...(withPriors ? ["prior"] : [])]) {
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
      // A proven result in words, with whose it is ("White: win in 4 moves"), not its
      // score's stand-in number under Black's percentages.
      score.textContent = m.proven ? `${capitalise(a.value_for)}: ${m.proven.text}` : percentOf(moveShare(a, m));
      score.title = `${signed(m.score)} for ${capitalise(a.value_for)} in ${unitsOf(a)}`;
    }
    if (withPriors) {
      row.insertCell().textContent = typeof m.prior === "number" ? `${(100 * m.prior).toFixed(1)}%` : "–";
    }
  }
  return table;
}
