// The players' clocks above and below the board, for a game with a time control. The server
// keeps the time (a state's `clock`: each side's milliseconds left when it was sent, and
// whose runs); the page counts the running one down from when the state came, so it ticks
// between states, and shows the server's figures again with each new state.

const $ = (id) => document.getElementById(id);

/** Tenths of a second show below this much time left. */
const TENTHS_BELOW_MS = 10_000;
/** A clock with less than this left is marked as short of time. */
const LOW_MS = 20_000;

export class Clocks {
  constructor() {
    this.clock = null; // the state's clock, and when it came
    this.at = 0;
    this.flipped = () => false;
    this.timer = null;
  }

  /**
   * Shows `state`'s clocks (none: hides them); `flipped()` says whether Black is at the
   * bottom now (a flip while the clocks tick turns them too).
   */
  show(state, flipped) {
    this.clock = state?.clock ?? null;
    this.over = Boolean(state?.result);
    this.at = performance.now();
    this.flipped = flipped;
    this.render();
    const ticking = this.clock?.running && !this.over;
    if (ticking && !this.timer) this.timer = setInterval(() => this.render(), 100);
    if (!ticking && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** The milliseconds `side` has left now. */
  left(side) {
    const kept = this.clock[`${side}_ms`];
    if (this.clock.running !== side || this.over) return kept;
    return Math.max(0, kept - (performance.now() - this.at));
  }

  render() {
    const shown = Boolean(this.clock);
    for (const id of ["clock-top", "clock-bottom"]) $(id).hidden = !shown;
    if (!shown) return;
    const bottom = this.flipped() ? "black" : "white";
    const top = bottom === "black" ? "white" : "black";
    this.renderOne($("clock-top"), top);
    this.renderOne($("clock-bottom"), bottom);
  }

  renderOne(el, side) {
    const ms = this.left(side);
    el.dataset.side = side;
    el.querySelector(".clock-side").textContent = side === "black" ? "Black" : "White";
    el.querySelector(".clock-time").textContent = clockText(ms);
    el.classList.toggle("running", this.clock.running === side && !this.over);
    el.classList.toggle("low", ms < LOW_MS);
    el.classList.toggle("out", ms <= 0);
    el.title = `${side === "black" ? "Black" : "White"}'s clock (${this.clock.control})`;
  }
}

/** `4:05`, `1:02:03`, and `0:09.4` in the last ten seconds. */
export function clockText(ms) {
  const tenths = Math.floor(ms / 100);
  const seconds = Math.floor(tenths / 10);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const ss = String(s).padStart(2, "0");
  if (h > 0) return `${h}:${String(m).padStart(2, "0")}:${ss}`;
  if (ms < TENTHS_BELOW_MS) return `${m}:${ss}.${tenths % 10}`;
  return `${m}:${ss}`;
}
