// The board as SVG (checkers or Othello), drawn afresh from a plain model on every change
// (64 cells are cheap, and a full redraw cannot leave stale markers behind).
//
// Every playable square is a <g data-square="N"> holding its piece and markers (so a click on
// the piece selects the square), focusable: Tab reaches the board, the arrow keys move
// between squares and Enter or Space clicks the square in focus. Destination markers have
// class `dest` and `data-square`; the selected square's group has class `selected`; Othello's
// legal squares have class `legal`; analysis arrows have class `arrow`.

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 100;
const SIZE = 8 * CELL;
// Labels on one square are this far apart: a label is 30 high, so three fit a square.
const LABEL_STEP = 32;
// The square's name in its top-left corner ends this far above and left of the centre: a
// label stacked that high moves right, clear of it.
const NAME_BOTTOM = -32;
const NAME_RIGHT = -26;

/** Creates an SVG element with attributes and children. */
export function svgEl(tag, attrs = {}, children = []) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) el.setAttribute(key, value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

// A crown centred on (0, 0), about a third of a square wide.
const CROWN_PATH =
  "M-18,9 L-20,-9 L-9,0 L0,-15 L9,0 L20,-9 L18,9 Z M-18,12 H18 V17 H-18 Z";

export class BoardView {
  /**
   * @param {SVGSVGElement} svg the <svg id="board"> to draw into
   * @param {(square: number) => void} onSquareClick called with 1..32
   */
  constructor(svg, onSquareClick) {
    this.svg = svg;
    this.focused = null; // the square in keyboard focus, kept across redraws
    svg.setAttribute("viewBox", `0 0 ${SIZE} ${SIZE}`);
    svg.addEventListener("click", (event) => {
      const target = event.target.closest("[data-square]");
      if (target && svg.contains(target)) onSquareClick(Number(target.dataset.square));
    });
    svg.addEventListener("focusin", (event) => {
      const target = event.target.closest("[data-square]");
      if (target) this.focused = Number(target.dataset.square);
    });
    svg.addEventListener("keydown", (event) => this.key(event, onSquareClick));
    this.dragging(onSquareClick);
  }

  /**
   * Drag and drop: a checkers piece pressed and carried to another square is the two
   * clicks (the piece, then where it goes), the piece following the pointer meanwhile; a
   * press released on the same square stays an ordinary click. Othello's moves are one
   * click, so its discs are not carried.
   */
  dragging(onSquareClick) {
    const svg = this.svg;
    const squareAt = (x, y) => document.elementFromPoint(x, y)?.closest?.("[data-square]");
    let drag = null;
    svg.addEventListener("pointerdown", (event) => {
      const group = event.target.closest("[data-square]");
      const piece = group?.querySelector(".piece");
      if (!piece || event.button !== 0 || this.model?.still) return;
      drag = { from: Number(group.dataset.square), group, piece, x: event.clientX, y: event.clientY, moved: false };
    });
    // The window, not the board, follows the pointer: capturing it on the board would turn
    // an ordinary click's target into the board itself.
    window.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const scale = SIZE / svg.getBoundingClientRect().width;
      const [dx, dy] = [(event.clientX - drag.x) * scale, (event.clientY - drag.y) * scale];
      if (Math.hypot(dx, dy) > 8) drag.moved = true;
      if (drag.moved && drag.piece.isConnected) {
        // SVG paints in document order: the square carrying the piece goes last, so the
        // piece passes over the squares drawn after its own.
        if (drag.next === undefined) {
          drag.next = drag.group.nextSibling;
          drag.group.parentNode.append(drag.group);
        }
        const base = drag.base ?? (drag.base = drag.piece.getAttribute("transform"));
        drag.piece.setAttribute("transform", `translate(${dx},${dy}) ${base}`);
        drag.piece.classList.add("dragged");
      }
    });
    const end = (event, drop) => {
      const done = drag;
      drag = null;
      if (!done) return;
      if (done.base && done.piece.isConnected) {
        done.piece.setAttribute("transform", done.base);
        done.piece.classList.remove("dragged");
        done.group.parentNode.insertBefore(done.group, done.next);
      }
      const target = drop ? squareAt(event.clientX, event.clientY) : null;
      const to = target && svg.contains(target) ? Number(target.dataset.square) : null;
      if (to === null || to === done.from) return;
      // The release ends no click on a square (the press was on another): these are the two.
      if (this.model?.selected !== done.from) onSquareClick(done.from);
      onSquareClick(to);
    };
    window.addEventListener("pointerup", (event) => end(event, true));
    window.addEventListener("pointercancel", (event) => end(event, false));
  }

  /** Enter or Space clicks the square in focus; the arrow keys move the focus. */
  key(event, onSquareClick) {
    const target = event.target.closest?.("[data-square]");
    if (!target) return;
    const square = Number(target.dataset.square);
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onSquareClick(square);
      return;
    }
    const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const step = steps[event.key];
    if (!step) return;
    event.preventDefault();
    event.stopPropagation();
    const next = this.neighbour(square, step);
    if (next !== null) this.focus(next);
  }

  /**
   * The playable square next to `square` in direction (rows, cols) on the screen: left and
   * right go along the row, up and down to the nearest square of the next row that has one
   * (checkers' dark squares sit diagonally, so that is a column to one side, the centre's
   * side first). Rows and columns together reach every square.
   */
  neighbour(square, [dr, dc]) {
    const flip = this.model?.flipped ? -1 : 1;
    const cells = this.model?.board || [];
    const index = cells.findIndex((c) => c && c.square === square);
    if (index < 0) return null;
    const [row, col] = [Math.floor(index / 8), index % 8];
    const [down, right] = [dr * flip, dc * flip];
    const at = (r, c) => (r >= 0 && r < 8 && c >= 0 && c < 8 ? cells[r * 8 + c] : null);
    if (down === 0) {
      for (let c = col + right; c >= 0 && c < 8; c += right) if (at(row, c)) return at(row, c).square;
      return null;
    }
    const inward = col < 4 ? 1 : -1;
    for (let r = row + down; r >= 0 && r < 8; r += down) {
      for (let d = 0; d < 8; d += 1) {
        const cell = at(r, col + d * inward) || at(r, col - d * inward);
        if (cell) return cell.square;
      }
    }
    return null;
  }

  focus(square) {
    this.focused = square;
    this.svg.querySelector(`[data-square="${square}"]`)?.focus();
  }

  /**
   * model: { board (64 cells), flipped, numbers, lastMove {from, path, captured} | null,
   * selected, partial (squares landed on so far), dests [{square, final}], arrows
   * [{from, path, weight 0..1, label, kind: "score" | "share" | "prior", title}], still: pieces are not
   * carried (the editor's clicks place pieces, not moves) }
   */
  render(model) {
    // Echoes of an unchanged state are common (every event stream starts with one): keeping
    // the elements lets a click that straddles the echo land, and stops needless flicker.
    const key = JSON.stringify(model);
    if (key === this.drawn) return;
    this.drawn = key;
    this.model = model;
    const hadFocus = this.svg.contains(document.activeElement);
    const centres = squareCentres(model.board, model.flipped);
    const marks = squareMarks(model);
    const squares = svgEl("g", { class: "squares" });
    model.board.forEach((cell, index) => {
      squares.append(drawCell(cell, index, model, marks, centres));
    });
    const arrows = svgEl("g", { class: "arrows" });
    // Labels of arrows ending on one square stand one above another, not on top.
    const ending = (arrow) => arrow.path.at(-1) ?? arrow.from;
    const sharing = new Map();
    for (const arrow of model.arrows || []) sharing.set(ending(arrow), (sharing.get(ending(arrow)) || 0) + 1);
    const placed = new Map();
    for (const arrow of model.arrows || []) {
      const square = ending(arrow);
      const k = placed.get(square) || 0;
      placed.set(square, k + 1);
      const drawn = drawArrow(arrow, centres, (k - (sharing.get(square) - 1) / 2) * LABEL_STEP);
      if (drawn) arrows.append(drawn);
    }
    this.svg.replaceChildren(defs(), squares, arrows);
    // Only the square in focus (else the first) is a Tab stop: the arrows move inside.
    const stop = this.svg.querySelector(`[data-square="${this.focused}"]`) || this.svg.querySelector("[data-square]");
    stop?.setAttribute("tabindex", "0");
    if (hadFocus) stop?.focus();
  }
}

/** Where each square's centre lies in the drawing, given the orientation. */
function squareCentres(board, flipped) {
  const centres = new Map();
  board.forEach((cell, index) => {
    if (!cell) return;
    const { x, y } = cellOrigin(index, flipped);
    centres.set(cell.square, { x: x + CELL / 2, y: y + CELL / 2 });
  });
  return centres;
}

/** Top-left corner of board cell `index` (row-major from the top as White sees it). */
function cellOrigin(index, flipped) {
  let row = Math.floor(index / 8);
  let col = index % 8;
  if (flipped) {
    row = 7 - row;
    col = 7 - col;
  }
  return { x: col * CELL, y: row * CELL };
}

/** The sets of squares each highlight applies to. */
function squareMarks(model) {
  const last = model.lastMove;
  return {
    last: new Set(last ? [last.from, ...last.path] : []),
    captured: new Set(last ? last.captured : []),
    partial: new Set(model.partial || []),
    dests: new Map((model.dests || []).map((d) => [d.square, d])),
    legal: new Set(model.game === "othello" ? (model.legal || []).map((m) => m.from) : []),
    mustCapture: new Set(model.mustCapture || []),
  };
}

function drawCell(cell, index, model, marks, centres) {
  const { x, y } = cellOrigin(index, model.flipped);
  if (!cell) return svgEl("rect", { class: "light", x, y, width: CELL, height: CELL });
  const square = cell.square;
  const othello = model.game === "othello";
  const classes = ["sq"];
  if (marks.last.has(square)) classes.push("last");
  if (marks.partial.has(square)) classes.push("partial");
  if (model.selected === square) classes.push("selected");
  if (marks.legal.has(square)) classes.push("legal");
  if (marks.mustCapture.has(square)) classes.push("must");
  const group = svgEl("g", {
    class: classes.join(" "),
    "data-square": square,
    tabindex: "-1",
    role: "button",
    "aria-label": squareLabel(cell, othello, marks),
  });
  group.append(svgEl("rect", { class: othello ? "green" : "dark", x, y, width: CELL, height: CELL }));
  if (classes.length > 1) {
    group.append(svgEl("rect", { class: "highlight", x, y, width: CELL, height: CELL }));
  }
  if (model.numbers) group.append(squareNumber(cell.name, x, y));
  const { x: cx, y: cy } = centres.get(square);
  if (marks.captured.has(square) && !cell.piece) group.append(capturedMark(cx, cy));
  if (cell.piece) group.append(othello ? drawDisc(cell.piece, cx, cy, marks.captured.has(square)) : drawPiece(cell.piece, cx, cy));
  if (othello && marks.legal.has(square)) group.append(svgEl("circle", { class: "legal-dot", cx, cy, r: 12 }));
  const dest = marks.dests.get(square);
  if (dest) group.append(destMarker(dest, cx, cy));
  return group;
}

/** What a screen reader says of a square: its name, its piece, and the markers on it. */
function squareLabel(cell, othello, marks) {
  const names = { b: "black man", w: "white man", B: "black king", W: "white king" };
  const piece = cell.piece ? (othello ? `${cell.piece === "b" ? "black" : "white"} disc` : names[cell.piece]) : "empty";
  const notes = [];
  if (marks.last.has(cell.square)) notes.push("last move");
  if (marks.legal.has(cell.square)) notes.push("legal move");
  if (marks.mustCapture.has(cell.square)) notes.push("must capture");
  return [`${cell.name}`, piece, ...notes].join(", ");
}

/** An Othello disc; one the last move flipped carries a small dot. */
function drawDisc(piece, cx, cy, flipped) {
  const colour = piece === "b" ? "black" : "white";
  const group = svgEl("g", { class: `piece disc piece-${colour}`, transform: `translate(${cx},${cy})` });
  group.append(
    svgEl("circle", { class: "shadow", cx: 0, cy: 3, r: 40 }),
    svgEl("circle", { class: "body", r: 40, fill: `url(#grad-${colour})` }),
  );
  if (flipped) group.append(svgEl("circle", { class: "flipped", r: 6 }));
  return group;
}

/** A square's name in its top-left corner, clear of a piece or disc (radius 40 about the
 * centre, its shadow 3-4 lower) and of arrow labels, which sit about the centre. */
function squareNumber(name, x, y) {
  const text = svgEl("text", { class: "sq-number", x: x + 3, y: y + 15 });
  text.textContent = name;
  return text;
}

/** A man or king: a shaded disc with a rim and an inner ring; kings carry a crown. */
function drawPiece(piece, cx, cy) {
  const colour = piece.toLowerCase() === "b" ? "black" : "white";
  const king = piece === "B" || piece === "W";
  const group = svgEl("g", {
    class: `piece piece-${colour}${king ? " king" : ""}`,
    transform: `translate(${cx},${cy})`,
  });
  group.append(
    svgEl("circle", { class: "shadow", cx: 0, cy: 4, r: 38 }),
    svgEl("circle", { class: "body", r: 38, fill: `url(#grad-${colour})` }),
    svgEl("circle", { class: "ring", r: 28 }),
  );
  if (king) group.append(svgEl("path", { class: "crown", d: CROWN_PATH }));
  return group;
}

/** A faint red cross where the last move took a piece. */
function capturedMark(cx, cy) {
  return svgEl("g", { class: "captured-mark", transform: `translate(${cx},${cy})` }, [
    svgEl("circle", { r: 34 }),
    svgEl("path", { d: "M-15,-15 L15,15 M15,-15 L-15,15" }),
  ]);
}

/** A dot on a next hop, a ring on a final square further away. */
function destMarker(dest, cx, cy) {
  return svgEl("circle", {
    class: dest.final ? "dest final" : "dest",
    "data-square": dest.square,
    cx,
    cy,
    r: dest.final ? 20 : 15,
  });
}

/** Gradients for the pieces' shading. */
function defs() {
  const gradient = (id, inner, outer) =>
    svgEl("radialGradient", { id, cx: "40%", cy: "35%", r: "70%" }, [
      svgEl("stop", { offset: "0%", "stop-color": inner }),
      svgEl("stop", { offset: "100%", "stop-color": outer }),
    ]);
  return svgEl("defs", {}, [
    gradient("grad-black", "#5a5550", "#1d1b19"),
    gradient("grad-white", "#ffffff", "#ddd5c4"),
  ]);
}

/**
 * An arrow along a move's path (from, each landing square), its width and opacity by weight,
 * labelled at the head. Null when a square is unknown.
 */
function drawArrow(arrow, centres, labelShift = 0) {
  const points = [arrow.from, ...arrow.path].map((sq) => centres.get(sq));
  if (points.some((p) => !p)) return null;
  if (points.length === 1) return spotMark(arrow, points[0]);
  const weight = Math.max(0, Math.min(1, arrow.weight));
  const width = 7 + 15 * weight;
  const head = width * 1.7;
  const tip = points[points.length - 1];
  const before = points[points.length - 2];
  const angle = Math.atan2(tip.y - before.y, tip.x - before.x);
  // The tip stops short of the destination's centre, where the label sits.
  const short = arrow.label ? 26 : 10;
  const end = { x: tip.x - short * Math.cos(angle), y: tip.y - short * Math.sin(angle) };
  const shaftEnd = { x: end.x - head * Math.cos(angle), y: end.y - head * Math.sin(angle) };
  const shaft = [...points.slice(0, -1), shaftEnd].map((p) => `${p.x},${p.y}`).join(" ");
  const group = svgEl("g", {
    class: `arrow arrow-${arrow.kind}`,
    "data-move": arrow.move,
    opacity: (0.35 + 0.55 * weight).toFixed(2),
  });
  group.append(
    svgEl("polyline", { class: "shaft", points: shaft, "stroke-width": width }),
    svgEl("polygon", { class: "head", points: arrowHead(end, angle, head, width) }),
  );
  if (arrow.label) {
    const high = labelShift - LABEL_HALF < NAME_BOTTOM;
    const dx = high ? Math.max(0, labelWidth(arrow.label) / 2 + NAME_RIGHT) : 0;
    group.append(arrowLabel(arrow, { x: tip.x + dx, y: tip.y + labelShift }));
  }
  return group;
}

/** A move that is one square (Othello's): a ring on it, as strong as an arrow would be. */
function spotMark(arrow, at) {
  const weight = Math.max(0, Math.min(1, arrow.weight));
  const group = svgEl("g", {
    class: `arrow arrow-${arrow.kind}`,
    "data-move": arrow.move,
    opacity: (0.45 + 0.5 * weight).toFixed(2),
  });
  group.append(svgEl("circle", { class: "spot", cx: at.x, cy: at.y, r: 30, "stroke-width": 5 + 7 * weight }));
  if (arrow.label) group.append(arrowLabel(arrow, at));
  return group;
}

function arrowHead(end, angle, length, width) {
  const half = width * 1.15;
  const back = { x: end.x - length * Math.cos(angle), y: end.y - length * Math.sin(angle) };
  const nx = -Math.sin(angle) * half;
  const ny = Math.cos(angle) * half;
  return [
    `${end.x},${end.y}`,
    `${back.x + nx},${back.y + ny}`,
    `${back.x - nx},${back.y - ny}`,
  ].join(" ");
}

const LABEL_HALF = 15;
const labelWidth = (label) => 11 * label.length + 12;

/**
 * The label sits on the destination square, on a small pill so it reads on any colour, its
 * meaning in words on hover.
 */
function arrowLabel(arrow, at) {
  const { x, y } = at;
  const width = labelWidth(arrow.label);
  const group = svgEl("g", { class: "arrow-label", transform: `translate(${x},${y})` });
  group.append(
    svgEl("rect", { x: -width / 2, y: -LABEL_HALF, width, height: 2 * LABEL_HALF, rx: LABEL_HALF }),
    Object.assign(svgEl("text", { x: 0, y: 7, "text-anchor": "middle" }), {
      textContent: arrow.label,
    }),
  );
  if (arrow.title) group.append(Object.assign(svgEl("title"), { textContent: arrow.title }));
  return group;
}
