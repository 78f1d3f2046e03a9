// The rules tutorials: five short lessons of checkers and three of Othello (the game chosen on
// the Play page), each a position played on the shared board through the API (human vs
// human), with a task per step that the game's state confirms. The rule reasons shown are
// the server's (the same words as the terminal game).

import { messageOf } from "./api.js";
import { GameSession } from "./game.js";
import { screen } from "./screen.js";

const $ = (id) => document.getElementById(id);

const last = (state) => state.last_move;
const lastMover = (state) => state.moves[state.moves.length - 1]?.side;
const pieceOn = (state, square) => state.board.find((c) => c && c.square === square)?.piece;
const landing = (move) => move.path[move.path.length - 1];

/**
 * Each lesson: a title, paragraphs, a FEN, and steps {task, done(state, event)} where event
 * is {kind: "move"} after a move or {kind: "explain", square, reason} after a refused piece.
 */
const LESSONS = [
  {
    title: "Moving men",
    text: [
      "Checkers is played on the 32 dark squares, numbered 1 to 32 (Square names under the board turns the numbers off and on). Black starts at the top (squares 1–12) and moves first in a game; here White is to move.",
      "A man moves one square diagonally forward onto an empty square: White's men move up the board, Black's men down.",
    ],
    fen: "W:W22,23,30:B6,7,11",
    steps: [
      {
        task: "Click White's man on 22, then one of the dots.",
        done: (s, e) => e.kind === "move" && lastMover(s) === "white" && !last(s).captured.length,
      },
      {
        task: "Now play a move for Black (you play both sides here): its men move down.",
        done: (s, e) => e.kind === "move" && lastMover(s) === "black",
      },
    ],
  },
  {
    title: "Capturing is compulsory",
    text: [
      "A man captures by jumping over an adjacent enemy piece onto the empty square just behind it; the jumped piece is removed.",
      "When a capture is available, you must capture: no other move is legal.",
    ],
    fen: "W:W22,24:B18,2,3",
    steps: [
      {
        task: "Try to move White's man on 24. The board says why you may not.",
        done: (s, e) => e.kind === "explain" && e.square === 24,
      },
      {
        task: "Now capture: click 22, then 15.",
        done: (s, e) => e.kind === "move" && last(s)?.captured.length > 0,
      },
    ],
  },
  {
    title: "Multiple jumps",
    text: [
      "If the capturing piece can jump again from where it lands, it must go on jumping in the same move, taking every piece it jumps.",
      "Click the landing squares one by one, or the final square directly when only one route ends there.",
    ],
    fen: "W:W31,21:B26,18,11,4",
    steps: [
      {
        task: "Capture three black men with the man on 31: 31, then 22, 15 and 8 (or 31 then 8).",
        done: (s, e) => e.kind === "move" && last(s)?.captured.length >= 3,
      },
    ],
  },
  {
    title: "Crowning and kings",
    text: [
      "A man that reaches the far row is crowned: it becomes a king (marked with a crown). A man crowned by a capture ends its move there.",
      "Kings move and capture diagonally both forwards and backwards, one square at a time.",
    ],
    fen: "W:W6,22:B13,K27",
    steps: [
      {
        task: "Crown White's man on 6: move it to 1 or 2.",
        done: (s, e) => e.kind === "move" && last(s)?.from === 6 && pieceOn(s, landing(last(s))) === "W",
      },
      {
        task: "Black has a king on 27. Black's men move down, but its king may go back up: move it to 23 or 24.",
        done: (s, e) => e.kind === "move" && last(s)?.from === 27 && [23, 24].includes(landing(last(s))),
      },
    ],
  },
  {
    title: "Draws",
    text: [
      "A player who cannot move (no pieces left, or all blocked) loses. The game is drawn when the same position occurs for the third time with the same side to move (threefold repetition), when 40 moves by each player pass without a capture or a man's move (the 40-move rule), or when both players agree (Offer draw on the Play page).",
      "Here only two kings are left: neither side can win.",
    ],
    fen: "W:WK18:BK1",
    steps: [
      {
        task: "Repeat the position: play 18-22, 1-5, 22-18, 5-1, then the same four moves again.",
        done: (s) => Boolean(s.result) && !s.result.winner,
      },
    ],
  },
];

const START = `${"-".repeat(27)}OX${"-".repeat(6)}XO${"-".repeat(27)} X`;

/** An Othello position: Black's and White's squares (numbered 1-64 from a1), side to move. */
function othelloPosition(black, white, turn) {
  const cells = Array.from({ length: 64 }, (_, i) =>
    black.includes(i + 1) ? "X" : white.includes(i + 1) ? "O" : "-",
  );
  return `${cells.join("")} ${turn === "black" ? "X" : "O"}`;
}

const OTHELLO_LESSONS = [
  {
    title: "Placing a disc",
    text: [
      "Othello is played on all 64 squares. Black moves first. A move puts a disc of your colour on an empty square so that it outflanks: one or more of the opponent's discs lie in a straight line (across, up and down, or diagonally) between the new disc and another disc of yours.",
      "The outflanked discs are flipped to your colour. The dots show where the side to move may play.",
    ],
    fen: START,
    steps: [
      {
        task: "Play one of the dotted squares for Black.",
        done: (s, e) => e.kind === "move" && lastMover(s) === "black" && last(s).captured.length > 0,
      },
      {
        task: "Now White (you play both sides here): play a dotted square.",
        done: (s, e) => e.kind === "move" && lastMover(s) === "white",
      },
    ],
  },
  {
    title: "Flipping in several lines",
    text: [
      "A disc flips every line it outflanks at once, in all eight directions.",
      "Try a square that is not dotted to see why it is not a move.",
    ],
    fen: othelloPosition([26, 30, 44], [27, 29, 36], "black"),
    steps: [
      {
        task: "Click a1: it outflanks nothing.",
        done: (s, e) => e.kind === "explain" && e.square === 1,
      },
      {
        task: "Play d4: it flips three White discs, in three lines.",
        done: (s, e) => e.kind === "move" && last(s)?.from === 28 && last(s).captured.length === 3,
      },
    ],
  },
  {
    title: "Passing and the end",
    text: [
      "A player who can outflank nothing must pass, and the other plays on. When neither side can move (most often on a full board), the game ends: the player with more discs wins.",
      "Here White's only disc, b1, sits beside Black's a1 with nothing to outflank.",
    ],
    fen: othelloPosition([1], [2], "white"),
    steps: [
      {
        task: "White has no move: press Pass under the board.",
        done: (s, e) => e.kind === "move" && last(s)?.move === "pass",
      },
      {
        task: "Black plays c1 and flips White's last disc: the game is over.",
        done: (s) => Boolean(s.result),
      },
    ],
  },
];

/** Each game's lessons, and the title of its tutorial. */
const TUTORIALS = {
  checkers: { title: "Rules of English checkers", lessons: LESSONS },
  othello: { title: "Rules of Othello", lessons: OTHELLO_LESSONS },
};

export class Tutorial {
  constructor() {
    this.game = "checkers";
    this.index = 0;
    this.step = 0;
    this.session = new GameSession({
      onState: (state, cause) => {
        if (cause === "move") this.check(state, { kind: "move" });
      },
      onExplain: (square, reason) => this.check(this.session.state, { kind: "explain", square, reason }),
    });
  }

  init() {
    this.listLessons();
    $("lesson-reset").addEventListener("click", () => this.open(this.index));
    $("lesson-prev").addEventListener("click", () => this.open(this.index - 1));
    $("lesson-next").addEventListener("click", () => this.open(this.index + 1));
  }

  lessons() {
    return TUTORIALS[this.game].lessons;
  }

  listLessons() {
    const list = $("lessons");
    $("tutorial-title").textContent = TUTORIALS[this.game].title;
    list.replaceChildren();
    this.lessons().forEach((lesson, i) => {
      const button = Object.assign(document.createElement("button"), {
        type: "button",
        className: "lesson-link",
        textContent: `${i + 1}. ${lesson.title}`,
      });
      button.dataset.lesson = String(i);
      button.addEventListener("click", () => this.open(i));
      const item = document.createElement("li");
      item.append(button);
      list.append(item);
    });
  }

  /** Shows the tutorial of `game` on the board: the lesson in progress, or the first one. */
  async show(game = this.game) {
    if (game !== this.game) {
      this.game = game;
      this.index = 0;
      this.listLessons();
      return this.open(0);
    }
    if (this.session.id === null) await this.open(this.index);
    else await screen.show(this.session);
  }

  async open(index) {
    const lessons = this.lessons();
    if (index < 0 || index >= lessons.length) return;
    this.index = index;
    this.step = 0;
    this.renderLesson();
    try {
      // A lesson's position is not a game to keep in the archive.
      await this.session.create({ game: this.game, start: "fen", fen: lessons[index].fen, scratch: true });
      screen.setFlipped(this.session, false); // White, who moves in every lesson, at the bottom
      await screen.show(this.session);
      screen.say("");
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }

  /** Advances past every step the event completes (a person may skip ahead). */
  check(state, event) {
    const steps = this.lessons()[this.index].steps;
    for (let i = steps.length - 1; i >= this.step; i -= 1) {
      if (steps[i].done(state, event)) {
        this.step = i + 1;
        this.renderLesson();
        if (this.step === steps.length) screen.say("Well done! Lesson complete.", "ok");
        return;
      }
    }
  }

  renderLesson() {
    const lessons = this.lessons();
    const lesson = lessons[this.index];
    $("lesson-title").textContent = `${this.index + 1}. ${lesson.title}`;
    $("lesson-text").replaceChildren(
      ...lesson.text.map((t) => Object.assign(document.createElement("p"), { textContent: t })),
    );
    const complete = this.step >= lesson.steps.length;
    $("lesson-task").textContent = complete ? "" : `Try it: ${lesson.steps[this.step].task}`;
    $("lesson-task").hidden = complete;
    $("lesson-done").hidden = !complete;
    $("lesson-done").textContent =
      this.index + 1 < lessons.length
        ? "✓ Well done! On to the next lesson."
        : "✓ Well done! You know the rules: play a game on the Play page.";
    $("lesson-prev").disabled = this.index === 0;
    $("lesson-next").disabled = this.index + 1 >= lessons.length;
    for (const link of document.querySelectorAll(".lesson-link")) {
      link.classList.toggle("current", Number(link.dataset.lesson) === this.index);
    }
  }
}
