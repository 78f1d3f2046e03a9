// The parts of the page every game view shares: the board, the status line, the message
// area, the "viewing the position after 12. 11-15" notice and the board options. One object, so the play page and
// the tutorial draw on the same board without knowing of each other.

import { BoardView } from "./board.js";

const $ = (id) => document.getElementById(id);

export const screen = {
  board: null,
  prefs: { numbers: true, arrows: "scores" }, // the orientation is each session's own
  session: null, // the GameSession on the board now

  init() {
    this.board = new BoardView($("board"), (square) => this.session?.click(square));
    bindToggle("show-numbers", (on) => (this.prefs.numbers = on));
    bindToggle("flip", (on) => {
      if (this.session) this.session.flipped = on;
    });
    $("arrows-mode").addEventListener("change", (e) => {
      this.prefs.arrows = e.target.value;
      this.redraw();
    });
    $("back-to-game").addEventListener("click", () => this.session?.backToGame());
  },

  /** Puts a session on the board, taking it off the previous one. */
  show(session) {
    if (this.session && this.session !== session) this.session.deactivate();
    this.session = session;
    $("flip").checked = session.flipped;
    return session.activate();
  },

  redraw() {
    this.session?.render();
  },

  /** Turns a session's board (Black at the bottom when on). */
  setFlipped(session, on) {
    session.flipped = on;
    if (session !== this.session) return;
    $("flip").checked = on;
    this.redraw();
  },

  /** A line in the message area: kind "error", "info", "ok", or "" to clear it. */
  say(text, kind = "info") {
    const el = $("message");
    el.textContent = text || "";
    el.className = text ? `message ${kind}` : "message";
  },

  setStatus(text, tone = "") {
    const el = $("status");
    el.textContent = text;
    el.dataset.tone = tone;
  },

  /** Names the position viewed ("after 12. 11-15"), or null when the game's own is shown. */
  setViewing(name) {
    const el = $("viewing");
    el.hidden = name === null;
    if (name !== null) $("viewing-ply").textContent = name;
  },

  setThinking(on) {
    document.body.dataset.thinking = on ? "1" : "0";
  },

  markReady() {
    document.body.dataset.ready = "1";
  },
};

function bindToggle(id, apply) {
  $(id).addEventListener("change", (e) => {
    apply(e.target.checked);
    screen.redraw();
  });
}
