// The training dashboard: the runs the server knows (new ones appear, live ones are marked,
// iteration counts follow the runs as `train` writes them), the ticked runs' metrics as
// interactive charts overlaid to compare them, and one run's details: its latest iteration,
// config and sample games.

import { api, messageOf } from "./api.js";
import { DASHES, LineChart, PALETTE, formatNumber } from "./charts.js";
import { screen } from "./screen.js";

const $ = (id) => document.getElementById(id);
const runPath = (name) => `/api/runs/${encodeURIComponent(name)}`;

/** How often the run list (and the shown runs' metrics, when they changed) is asked for. */
const POLL_MS = 3000;

/** The x axes a chart can be drawn over. */
const X_AXES = {
  iteration: { label: "iteration", whole: true, of: (line) => line.iteration },
  hours: { label: "hours of training", whole: false, of: (line) => line.elapsed_s / 3600 },
  // The trainer's CPU time: the work done on a shared machine (older runs lack it: no points).
  cpu: { label: "CPU hours of training", whole: false, of: (line) => line.cpu_s / 3600 },
};

/** One line a run: `value` of each metrics line. */
const field = (value) => (lines, x) => [{ name: null, points: lines.map((l) => [x(l), value(l)]) }];

/** One line per gauntlet opponent; `pick(result)` is [value, low, high] of the 95% interval. */
const opponents = (pick) => (lines, x) => {
  const byName = new Map();
  for (const line of lines) {
    for (const result of Array.isArray(line.gauntlet) ? line.gauntlet : []) {
      const [value, low, high] = pick(result);
      const name = `vs ${result.opponent}`;
      if (!byName.has(name)) byName.set(name, []);
      const note = Number.isFinite(low) && Number.isFinite(high) ? `95% ${formatNumber(low)} to ${formatNumber(high)}` : "";
      byName.get(name).push([x(line), value, note]);
    }
  }
  return [...byName].map(([name, points]) => ({ name, points }));
};

/** A chart of scores against fixed opponents, one line per opponent. */
const SCORES = {
  yLabel: "score (win 1, draw ½)",
  yRange: [0, 1],
  reference: 0.5,
  lines: opponents((g) => [g.score, g.score_low, g.score_high]),
};

/**
 * The charts, from the fields of `train`'s metrics lines, or with `source: "curve"` from the
 * points of the run's learning curve played afterwards (docs/gui.md).
 */
const CHARTS = [
  {
    id: "policy-loss",
    title: "Policy loss (cross-entropy)",
    yLabel: "loss per sample",
    lines: field((l) => l.policy_loss),
  },
  {
    id: "value-loss",
    title: "Value loss (squared error)",
    yLabel: "loss per sample",
    lines: field((l) => l.value_loss),
  },
  {
    id: "gauntlet",
    title: "Gauntlet: the best network against fixed opponents",
    ...SCORES,
    empty: "no gauntlet in these runs (train --gauntlet-every N)",
  },
  {
    id: "curve",
    title: "Learning curve: the best networks, played afterwards",
    ...SCORES,
    empty: "no learning curve in these runs (checkers-zero curve RUN)",
    source: "curve",
  },
  {
    id: "elo",
    title: "Elo difference to each gauntlet opponent",
    yLabel: "Elo difference",
    reference: 0,
    empty: "no finite Elo in these runs (train --gauntlet-every N)",
    lines: opponents((g) => [g.elo, g.elo_low, g.elo_high]),
  },
  {
    id: "gating",
    title: "Gating: each new network against the best",
    yLabel: "score against the best",
    yRange: [0, 1],
    reference: 0.5,
    empty: "no gating in these runs",
    lines: field((l) => l.gating_score),
  },
  {
    id: "lr",
    title: "Learning rate",
    yLabel: "learning rate",
    lines: field((l) => l.lr),
  },
  {
    id: "games",
    title: "Self-play games per hour",
    yLabel: "games per hour",
    lines: field((l) => (l.games / l.selfplay_s) * 3600),
  },
  {
    id: "simulations",
    title: "Self-play simulations per second",
    yLabel: "simulations per second",
    lines: field((l) => l.simulations_per_s),
  },
  {
    id: "length",
    title: "Mean self-play game length",
    yLabel: "plies per game",
    lines: field((l) => l.mean_plies),
  },
];

export class Dashboard {
  /** onReplay(pdn, game): loads a sample game on the board. */
  constructor(onReplay) {
    this.onReplay = onReplay;
    this.runs = null; // the list as last served
    this.compared = new Set(); // the ticked runs
    this.ticked = false; // whether people ticked or unticked a run
    this.details = null; // the run whose details show
    this.detailsShown = ""; // which run and state the details were drawn for
    this.metrics = new Map(); // run name -> {stamp, lines}
    this.colors = new Map(); // run name -> colour, kept while the page lives
    this.rows = new Map(); // run name -> its row in the table
    this.charts = [];
    this.timer = null;
    this.polling = false;
  }

  init() {
    this.charts = CHARTS.map((spec) => ({ spec, chart: new LineChart($("charts"), spec) }));
    $("runs").addEventListener("change", (e) => {
      const name = e.target.dataset.run;
      if (name === undefined) return;
      if (e.target.name === "details-run") this.showDetails(name);
      else this.compare(name, e.target.checked);
    });
    $("smoothing").addEventListener("input", (e) => {
      const weight = Number(e.target.value);
      $("smoothing-value").textContent = weight.toFixed(2);
      for (const { chart } of this.charts) chart.setSmoothing(weight);
    });
    $("x-axis").addEventListener("change", () => this.drawCharts());
    $("run-games").addEventListener("click", (e) => {
      const button = e.target.closest("button[data-file]");
      if (button) this.replay(button.dataset.file, Number(button.dataset.index || 0), button.closest("li"));
    });
  }

  /** The tab was opened: follow the runs while it shows. */
  async show() {
    this.timer ??= setInterval(() => this.poll(), POLL_MS);
    await this.poll();
  }

  /** One look at the runs; skipped while the tab is hidden or the last look is under way. */
  async poll() {
    if (this.polling || document.hidden || $("dashboard-view").hidden) return;
    this.polling = true;
    try {
      await this.update();
    } finally {
      this.polling = false;
    }
  }

  async update() {
    let runs;
    try {
      runs = await api("/api/runs");
    } catch (err) {
      $("dash-status").textContent = `cannot list the runs: ${messageOf(err)}`;
      return;
    }
    const first = this.runs === null;
    this.runs = runs;
    const names = new Set(runs.map((r) => r.name));
    const gone = [...this.compared].filter((name) => !names.has(name));
    for (const name of gone) this.compared.delete(name);
    if (!names.has(this.details)) this.details = null;
    // Until people tick runs themselves, the run trained most recently, the one they
    // usually want to watch.
    const latest = [...runs].sort((a, b) => (b.modified ?? 0) - (a.modified ?? 0))[0];
    const autoTick = Boolean(latest) && !this.ticked && !this.compared.size;
    if (autoTick) this.compared.add(latest.name);
    if (this.details === null && latest) this.details = latest.name;
    for (const run of runs) if (!this.colors.has(run.name)) this.colors.set(run.name, PALETTE[this.colors.size % PALETTE.length]);
    this.drawTable();
    // No run: how to start one instead of empty charts.
    $("dashboard-empty").hidden = runs.length > 0;
    $("dashboard-body").hidden = runs.length === 0;
    $("dash-status").textContent = `updated ${new Date().toLocaleTimeString()}`;
    const changed = await this.loadMetrics([...this.compared, this.details].filter(Boolean));
    if (first || autoTick || gone.length || [...this.compared].some((n) => changed.has(n))) this.drawCharts();
    await this.drawDetails();
  }

  /**
   * Fetches the metrics of `names` whose files changed since they were last read (their
   * line count or time of change), with their learning curves; returns the names fetched.
   */
  async loadMetrics(names) {
    const changed = new Set();
    await Promise.all(
      [...new Set(names)].map(async (name) => {
        const run = this.run(name);
        const stamp = `${run?.iterations}/${run?.modified}/${run?.curve_points}`;
        if (this.metrics.get(name)?.stamp === stamp) return;
        const list = (value) => (Array.isArray(value) ? value : []);
        try {
          const [lines, curve] = await Promise.all([
            api(`${runPath(name)}/metrics`),
            run?.curve_points ? api(`${runPath(name)}/curve`) : [],
          ]);
          this.metrics.set(name, { stamp, lines: list(lines), curve: list(curve) });
        } catch (err) {
          this.metrics.set(name, { stamp, lines: [], curve: [], error: messageOf(err) });
        }
        changed.add(name);
      }),
    );
    return changed;
  }

  run(name) {
    return this.runs?.find((r) => r.name === name);
  }

  async compare(name, on) {
    this.ticked = true;
    if (on) this.compared.add(name);
    else this.compared.delete(name);
    await this.loadMetrics([name]);
    this.drawCharts();
  }

  async showDetails(name) {
    this.details = name;
    await this.loadMetrics([name]);
    await this.drawDetails();
  }

  // ---- the run table -----------------------------------------------------------------

  /** Updates the table in place (rows keep their focus), adding new runs and dropping gone ones. */
  drawTable() {
    const body = $("runs").tBodies[0];
    const names = new Set(this.runs.map((r) => r.name));
    for (const [name, row] of this.rows) {
      if (!names.has(name)) {
        row.remove();
        this.rows.delete(name);
      }
    }
    this.runs.forEach((run, i) => {
      let row = this.rows.get(run.name);
      if (!row) {
        row = runRow(run.name, this.colors.get(run.name));
        this.rows.set(run.name, row);
      }
      // In the list's order; a row already in place is not moved (it would lose focus).
      if (body.rows[i] !== row) body.insertBefore(row, body.rows[i] ?? null);
      row.querySelector("input[type=checkbox]").checked = this.compared.has(run.name);
      row.querySelector("input[type=radio]").checked = this.details === run.name;
      const cell = (key) => row.querySelector(`td[data-key="${key}"]`);
      cell("game").textContent = run.game ?? "unknown";
      cell("network").textContent = run.network ?? "—";
      cell("iterations").textContent = String(run.iterations);
      const status = cell("status");
      status.textContent = run.live ? "live" : formatTime(run.modified) || "no metrics yet";
      status.classList.toggle("live", Boolean(run.live));
      status.title = run.live ? "a training process is writing this run" : "no process is writing this run";
    });
  }

  // ---- charts ------------------------------------------------------------------------

  drawCharts() {
    const x = X_AXES[$("x-axis").value] ?? X_AXES.iteration;
    const runs = this.runs?.filter((r) => this.compared.has(r.name)) ?? [];
    for (const { spec, chart } of this.charts) {
      const dashes = new Map(); // line name -> its dash, the same in every run
      const dash = (name) => {
        if (!dashes.has(name)) dashes.set(name, DASHES[dashes.size % DASHES.length]);
        return dashes.get(name);
      };
      const series = runs.flatMap((run) =>
        spec.lines(this.metrics.get(run.name)?.[spec.source ?? "lines"] ?? [], x.of).map((line) => ({
          label: line.name ? `${run.name}: ${line.name}` : run.name,
          color: this.colors.get(run.name),
          dash: dash(line.name),
          points: line.points,
        })),
      );
      chart.draw(series, x);
    }
    $("charts-note").textContent = this.chartsNote(runs);
  }

  /** Says which ticked runs have nothing to chart, and why. */
  chartsNote(runs) {
    if (!runs.length) return "Tick one or more runs to chart them.";
    const notes = runs.flatMap((run) => {
      const m = this.metrics.get(run.name);
      if (m?.error) return [`${run.name}: ${m.error}`];
      const lines = m?.lines ?? [];
      if (!lines.length) return [`${run.name}: no iteration finished yet`];
      if (!lines.some((l) => Number.isFinite(l.iteration))) {
        return [`${run.name}: its metrics are not AlphaZero iterations (trainer ${lines[0].trainer ?? "unknown"}); see its details`];
      }
      return [];
    });
    return notes.join(" · ");
  }

  // ---- details of one run ------------------------------------------------------------

  /** Redraws the details when their run or its metrics changed. */
  async drawDetails() {
    const name = this.details;
    const run = this.run(name);
    const shown = name === null ? "" : `${name}/${this.metrics.get(name)?.stamp}`;
    if (shown === this.detailsShown) return;
    this.detailsShown = shown;
    $("details").hidden = !run;
    if (!run) return;
    $("details-title").textContent = `${name}: ${[run.game, run.network, `${run.iterations} iterations`].filter(Boolean).join(", ")}`;
    const m = this.metrics.get(name);
    const latest = m?.lines.at(-1);
    fillTable($("latest"), m?.error ? [["", m.error]] : latest ? metricRows(latest) : [["", "no iteration finished yet"]]);
    await Promise.all([this.loadConfig(name), this.loadGames(run)]);
  }

  async loadConfig(name) {
    try {
      const config = await api(`${runPath(name)}/config`);
      if (this.details !== name) return;
      fillTable($("config"), Object.entries(config || {}).map(([k, v]) => [k, formatValue(v)]));
    } catch (err) {
      fillTable($("config"), [["", messageOf(err)]]);
    }
  }

  async loadGames(run) {
    const list = $("run-games");
    $("run-games-note").textContent = sampleGamesNote(run.game);
    try {
      const files = await api(`${runPath(run.name)}/games`);
      if (this.details !== run.name) return;
      list.replaceChildren(...files.map((file) => sampleGameItem(run, file)));
      if (!files.length) list.append(note("No sample games saved yet."));
    } catch (err) {
      list.replaceChildren(note(messageOf(err)));
    }
  }

  /**
   * Replays game `index` of a sample file on the board; a file of several games then lists
   * them all in its item, each one click away.
   */
  async replay(file, index, item) {
    const name = this.details;
    try {
      const pdn = String(await api(`${runPath(name)}/games/${encodeURIComponent(file)}`));
      const count = pdnGameCount(pdn);
      if (count > 1 && item && !item.querySelector("button[data-index]")) {
        const games = Array.from({ length: count }, (_, i) => {
          const button = Object.assign(document.createElement("button"), { type: "button", className: "link", textContent: `game ${i + 1}` });
          button.dataset.file = file;
          button.dataset.index = String(i);
          button.title = `Replay game ${i + 1} of ${file} on the board`;
          return button;
        });
        item.append(" ", ...games);
      }
      await this.onReplay(pdn, this.run(name)?.game ?? "checkers", index);
    } catch (err) {
      screen.say(messageOf(err), "error");
    }
  }
}

// ---- sample games ----------------------------------------------------------------------

/** How many games a PDN text holds: a game's tags begin after the movetext of the one before. */
function pdnGameCount(text) {
  let count = 0;
  let inMoves = false;
  for (const line of text.split("\n")) {
    const tag = line.trimStart().startsWith("[");
    if (tag && (inMoves || count === 0)) count += 1;
    if (!tag && line.trim() && count === 0) count = 1;
    inMoves = tag ? false : inMoves || Boolean(line.trim());
  }
  return count;
}

/** The games the play page's board can replay. */
const BOARD_GAMES = new Set(["checkers", "othello"]);

/**
 * One sample game of `run` in the list: a game the board can show replays there (a button
 * whose data-file the dashboard loads); any other opens as its record, as text, saying
 * which game it is, never as a checkers game. A game the play page learns goes in
 * BOARD_GAMES (and its replay in app.js).
 */
function sampleGameItem(run, file) {
  const item = document.createElement("li");
  if (BOARD_GAMES.has(run.game)) {
    const button = Object.assign(document.createElement("button"), { type: "button", className: "link", textContent: file });
    button.dataset.file = file;
    button.title = `Replay this ${run.game} game on the board`;
    item.append(button);
  } else {
    const link = Object.assign(document.createElement("a"), {
      href: `${runPath(run.name)}/games/${encodeURIComponent(file)}`,
      target: "_blank",
      rel: "noopener",
      textContent: file,
    });
    item.append(link, ` (${run.game ?? "unknown game"}, as text)`);
  }
  return item;
}

function sampleGamesNote(game) {
  if (BOARD_GAMES.has(game)) return "Click a game to replay it on the board.";
  const which = game ? `${game[0].toUpperCase()}${game.slice(1)} games` : "This run's game is unknown (no config.json): its games";
  return `${which} cannot be shown on the board yet; each record opens as text.`;
}

// ---- formatting ------------------------------------------------------------------------

/** A run's row: its tick box and colour, name, game, network, iterations, status, details. */
function runRow(name, color) {
  const row = document.createElement("tr");
  row.dataset.run = name;
  const swatch = Object.assign(document.createElement("span"), { className: "swatch" });
  swatch.style.background = color;
  const label = Object.assign(document.createElement("label"), { className: "run-name" });
  label.append(choice("checkbox", name, `chart ${name}`), swatch, name);
  row.insertCell().append(label);
  for (const key of ["game", "network", "iterations", "status"]) row.insertCell().dataset.key = key;
  row.insertCell().append(choice("radio", name, `details of ${name}`));
  return row;
}

function choice(type, run, label) {
  const input = Object.assign(document.createElement("input"), { type });
  if (type === "radio") input.name = "details-run";
  input.dataset.run = run;
  input.setAttribute("aria-label", label);
  return input;
}

/** The latest metrics line as rows; gauntlet results get one readable row per opponent. */
function metricRows(line) {
  const rows = [];
  for (const [key, value] of Object.entries(line)) {
    if (key === "gauntlet" && Array.isArray(value)) {
      for (const g of value) rows.push([`gauntlet vs ${g.opponent}`, gauntletText(g)]);
    } else if (key === "gauntlet" && value === null) {
      continue;
    } else {
      rows.push([key, formatValue(value)]);
    }
  }
  return rows;
}

function gauntletText(g) {
  const elo = (x) => (typeof x === "number" ? Math.round(x) : "?");
  return `score ${formatNumber(g.score)} (+${g.wins} =${g.draws} −${g.losses} of ${g.games}), Elo ${elo(g.elo)} [${elo(g.elo_low)}, ${elo(g.elo_high)}]`;
}

function formatValue(value) {
  if (typeof value === "number") return formatNumber(value);
  if (Array.isArray(value)) return value.map(formatValue).join(" / ");
  if (value && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function formatTime(seconds) {
  if (typeof seconds !== "number") return "";
  return `last written ${new Date(seconds * 1000).toLocaleString()}`;
}

function fillTable(table, rows) {
  const body = document.createElement("tbody");
  for (const [key, value] of rows) {
    const row = body.insertRow();
    Object.assign(row.insertCell(), { textContent: key, className: "key" });
    row.insertCell().textContent = value;
  }
  table.replaceChildren(body);
}

function note(text) {
  return Object.assign(document.createElement("p"), { className: "placeholder", textContent: text });
}
