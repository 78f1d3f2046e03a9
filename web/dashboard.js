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

/** A metrics line's `field` as a number (NaN where it lacks one: no point there). */
const num = (line, field) => (typeof line?.[field] === "number" ? line[field] : NaN);

/** An axis as the server declares it: `field * scale` of each line. */
const axisOf = (axis) => ({ ...axis, of: (line) => num(line, axis.field) * axis.scale });

/** One line per gauntlet opponent at `field`, with its 95% interval from `field_low` and `field_high`. */
function opponents(lines, x, field) {
  const byName = new Map();
  for (const line of lines) {
    for (const result of Array.isArray(line.gauntlet) ? line.gauntlet : []) {
      const [value, low, high] = [field, `${field}_low`, `${field}_high`].map((f) => num(result, f));
      const name = `vs ${result.opponent}`;
      if (!byName.has(name)) byName.set(name, []);
      const note = Number.isFinite(low) && Number.isFinite(high) ? `95% ${formatNumber(low)} to ${formatNumber(high)}` : "";
      byName.get(name).push([x(line), value, note]);
    }
  }
  return [...byName].map(([name, points]) => ({ name, points }));
}

/**
 * A chart's lines for one run (`m`: its metrics lines and curve points) over `x`, by the
 * chart's declaration (`GET /api/charts`, which `checkers-zero plot` draws too): a metric is
 * `field / per * scale` of each line; an opponents chart one line per gauntlet opponent.
 */
function chartLines(spec, m, x) {
  const { kind, source, field, metrics } = spec.lines;
  if (kind === "opponents") return opponents((source === "curve" ? m.curve : m.lines) ?? [], x, field);
  const value = (l, metric) => (num(l, metric.field) / (metric.per ? num(l, metric.per) : 1)) * metric.scale;
  return metrics.map((metric) => ({ name: metric.name, points: (m.lines ?? []).map((l) => [x(l), value(l, metric)]) }));
}

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
    this.ready = this.loadCharts();
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

  /** The charts and their x axes, as the server lists them. */
  async loadCharts() {
    try {
      const { axes, charts } = await api("/api/charts");
      this.axes = new Map(axes.map((a) => [a.id, axisOf(a)]));
      $("x-axis").replaceChildren(...axes.map((a) => new Option(a.label, a.id)));
      this.charts = charts.map((spec) =>
        ({ spec, chart: new LineChart($("charts"), { id: spec.id, title: spec.title, yLabel: spec.y_label, yRange: spec.y_range }) }));
    } catch (err) {
      $("dash-status").textContent = `cannot list the charts: ${messageOf(err)}`;
    }
  }

  /** The tab was opened: follow the runs while it shows. */
  async show() {
    await this.ready;
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
    const x = this.axes?.get($("x-axis").value) ?? this.axes?.values().next().value;
    const runs = this.runs?.filter((r) => this.compared.has(r.name)) ?? [];
    // The gating threshold where the runs drawn agree on one.
    const thresholds = new Set(runs.map((r) => r.threshold));
    const threshold = thresholds.size === 1 ? [...thresholds][0] : undefined;
    for (const { spec, chart } of this.charts) {
      const dashes = new Map(); // line name -> its dash, the same in every run
      const dash = (name) => {
        if (!dashes.has(name)) dashes.set(name, DASHES[dashes.size % DASHES.length]);
        return dashes.get(name);
      };
      const series = runs.flatMap((run) =>
        chartLines(spec, this.metrics.get(run.name) ?? {}, x.of).map((line) => ({
          label: line.name ? `${run.name}: ${line.name}` : run.name,
          color: this.colors.get(run.name),
          dash: dash(line.name),
          points: line.points,
        })),
      );
      const reference = spec.reference === "threshold" ? (threshold ?? undefined) : spec.reference?.level;
      chart.draw(series, x, { empty: spec.empty[x.id], reference: Number.isFinite(reference) ? reference : undefined });
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
