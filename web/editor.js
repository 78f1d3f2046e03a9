// The board editor: sets up a position by placing pieces on the shared board, either game,
// and starts a game from it through POST /api/games (start "fen", the position's text as the
// server reads it). It is a session of the board as the play page's game is (screen.show), so
// the board's clicks and keys come here while it edits. The server judges the position: a
// position the rules refuse gets the server's one-line reason in the message area.

import { capitalise } from "./game.js";
import { screen } from "./screen.js";

const $ = (id) => document.getElementById(id);

// What a click can put on a square, per game: [id suffix, piece (as the state's cells write
// it: b, w men or discs, B, W kings; "" empties), label].
const PALETTES = {
  checkers: [
    ["black-man", "b", "Black man"],
    ["black-king", "B", "Black king"],
    ["white-man", "w", "White man"],
    ["white-king", "W", "White king"],
    ["empty", "", "Empty"],
  ],
  othello: [
    ["black-disc", "b", "Black disc"],
    ["white-disc", "w", "White disc"],
    ["empty", "", "Empty"],
  ],
};

/** The 64 cells of an empty board, as the server's state writes them. */
function emptyCells(game) {
  if (game === "othello") {
    return Array.from({ length: 64 }, (_, i) => ({
      square: i + 1,
      name: `${"abcdefgh"[i % 8]}${Math.floor(i / 8) + 1}`,
      piece: null,
    }));
  }
  // Checkers' 32 dark squares, numbered from the top row as src/games/checkers/board.rs's
  // row_col places them.
  const cells = Array(64).fill(null);
  for (let sq = 0; sq < 32; sq += 1) {
    const row = Math.floor(sq / 4);
    const col = 2 * (sq % 4) + (row % 2 === 0 ? 1 : 0);
    cells[row * 8 + col] = { square: sq + 1, name: String(sq + 1), piece: null };
  }
  return cells;
}

/** Each game's start position: checkers' men on 1-12 and 21-32, Othello's four discs. */
function startCells(game) {
  const cells = emptyCells(game);
  const start =
    game === "othello"
      ? { 28: "w", 29: "b", 36: "b", 37: "w" }
      : Object.fromEntries(Array.from({ length: 32 }, (_, i) => [i + 1, i < 12 ? "b" : i >= 20 ? "w" : null]));
  for (const cell of cells) if (cell) cell.piece = start[cell.square] ?? null;
  return cells;
}

/** The position's text as the server's parser reads it: checkers' FEN, Othello's 64 squares. */
function positionText(game, cells, turn) {
  const squares = cells.filter(Boolean).sort((a, b) => a.square - b.square);
  if (game === "othello") {
    const discs = squares.map((c) => (c.piece === "b" ? "X" : c.piece === "w" ? "O" : "-")).join("");
    return `${discs} ${turn === "black" ? "X" : "O"}`;
  }
  const side = (man) =>
    squares
      .filter((c) => c.piece && c.piece.toLowerCase() === man)
      .map((c) => `${c.piece === man ? "" : "K"}${c.square}`)
      .join(",");
  return `${turn === "black" ? "B" : "W"}:W${side("w")}:B${side("b")}`;
}

export class PositionEditor {
  /** play: the play page, whose form (game, players) and games the editor uses. */
  constructor(play) {
    this.play = play;
    this.game = "checkers";
    this.cells = emptyCells(this.game);
    this.turn = "black";
    this.flipped = false;
    this.active = false;
  }

  init() {
    $("edit-position").addEventListener("click", () => this.open());
    $("editor-clear").addEventListener("click", () => this.set(emptyCells(this.game), this.turn));
    $("editor-start").addEventListener("click", () => this.set(startCells(this.game), "black"));
    $("editor-game").addEventListener("click", () => this.fromGame());
    $("editor-turn").addEventListener("change", (e) => {
      this.turn = e.target.value;
      this.render();
    });
    $("editor-play").addEventListener("click", () => this.playFromHere());
    $("editor-cancel").addEventListener("click", () => this.close());
    // Another game chosen while editing: its start position, to edit.
    $("game-kind").addEventListener("change", () => {
      if (!this.active) return;
      this.game = this.play.form.game();
      this.buildPalette();
      this.set(startCells(this.game), "black");
    });
  }

  /** Starts editing, from the position the board shows when it is of the chosen game. */
  async open() {
    this.game = this.play.form.game();
    this.flipped = screen.session?.flipped ?? false;
    this.fromGame();
    await screen.show(this);
    $("palette").querySelector("input:checked")?.focus();
  }

  /** The game's position on the board (an earlier one being viewed, too), else the start. */
  fromGame() {
    const session = this.play.session;
    const shown = session.view || session.state;
    if (shown && session.state.game === this.game) {
      const turn = session.view ? session.viewTurn() : session.state.turn;
      this.set(shown.board.map((c) => c && { ...c }), turn);
    } else {
      this.set(startCells(this.game), "black");
    }
  }

  set(cells, turn) {
    screen.say("");
    this.cells = cells;
    this.turn = turn;
    $("editor-turn").value = turn;
    this.render();
  }

  /** The palette's choices for the game, keeping the piece chosen where the game has it. */
  buildPalette() {
    const palette = $("palette");
    const chosen = palette.querySelector("input:checked")?.value ?? "b";
    palette.querySelectorAll("label").forEach((l) => l.remove());
    const entries = PALETTES[this.game];
    const keep = entries.some(([, piece]) => piece === chosen) ? chosen : "b";
    for (const [id, piece, label] of entries) {
      const input = Object.assign(document.createElement("input"), {
        type: "radio",
        name: "palette",
        id: `palette-${id}`,
        value: piece,
        checked: piece === keep,
      });
      const row = document.createElement("label");
      row.append(input, label);
      palette.append(row);
    }
  }

  piece() {
    return $("palette").querySelector("input:checked")?.value || null;
  }

  // ---- the board's session -------------------------------------------------------------

  activate() {
    this.active = true;
    this.buildPalette();
    $("editor").hidden = false;
    $("edit-position").hidden = true;
    $("editor").closest("details").open = true;
    this.render();
  }

  /** The board went to a game (played, cancelled, or another tab): the editor closes. */
  deactivate() {
    this.active = false;
    $("editor").hidden = true;
    $("edit-position").hidden = false;
  }

  /**
   * Puts the chosen piece on the square; a square holding it already is emptied. A checkers
   * man put on the row where it would be crowned (Black's 29-32, White's 1-4) is a king
   * there, as the rules make it, and the message says so.
   */
  click(square) {
    const cell = this.cells.find((c) => c && c.square === square);
    if (!cell) return;
    let piece = this.piece();
    let note = "";
    const kingRow = { b: square >= 29, w: square <= 4 };
    if (this.game === "checkers" && kingRow[piece]) {
      const side = piece === "b" ? "Black" : "White";
      piece = piece.toUpperCase();
      note = `A ${side} man on ${square} is crowned: ${square} is its king row.`;
    }
    cell.piece = cell.piece === piece ? null : piece;
    screen.say(cell.piece ? note : "", "info");
    this.render();
  }

  render() {
    if (!this.active) return;
    screen.board.render({
      game: this.game,
      board: this.cells,
      flipped: this.flipped,
      numbers: screen.prefs.numbers,
      still: true,
    });
    $("pass").hidden = true;
    const count = (man) => this.cells.filter((c) => c?.piece?.toLowerCase() === man).length;
    screen.setStatus(`Editing · ${capitalise(this.turn)} to move · Black ${count("b")}, White ${count("w")}`, this.turn);
    screen.setViewing(null);
    screen.markReady();
  }

  /** A new game from the position, with the form's players; the server's reason if refused. */
  async playFromHere() {
    const body = {
      game: this.game,
      start: "fen",
      fen: positionText(this.game, this.cells, this.turn),
      ...this.play.form.players(),
    };
    if (await this.play.beginGame(body)) await this.close();
  }

  close() {
    return screen.show(this.play.session);
  }
}
