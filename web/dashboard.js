// The training dashboard: a run's plots (inline SVG from the server, the same drawings as
// `checkers-zero plot`), its latest iteration's numbers, its config and its sample games,
// refreshed live as `train` appends metrics.

import { api, messageOf } from "./api.js";
import { screen } from "./screen.js";

const $ = (id) => document.getElementById(id);
const runPath = (name) => `/api/runs/${encodeURIComponent(name)}`;

// Re-fetching everything once per burst of metrics lines is enough.
const REFRESH_DELAY_MS = 1000;

export class Dashboard {
  /** onReplay(pdn, title): loads a sample game on the board. */
  constructor(onReplay) {
    this.onReplay = onReplay;
    this.run = null;
    this.events = null;
    this.loaded = false;
    this.refreshTimer = null;
  }

  init() {
    $("run").addEventListener("change", (e) => this.selectRun(e.target.value));
    $("run-games").addEventListener("click", (e) => {
      const button = e.target.closest("[data-file]");
      if (button) this.replay(button.dataset.file);
    });
  }

  /** Loads the run list the first time the tab opens. */
  async show() {
    if (this.loaded) return;
    this.loaded = true;
    await this.loadRuns();
  }

  async loadRuns() {
    let runs;
    try {
      runs = await api("/api/runs");
    } catch (err) {
      this.say(messageOf(err), "error");
      return;
    }
    const select = $("run");
    select.replaceChildren(...runs.map((r) => new Option(runLabel(r), r.name)));
    if (!runs.length) {
      this.say("No training runs found (the server's --runs folders hold none).", "info");
      return;
    }
    // The run trained most recently is the one people usually want to watch.
    const latest = [...runs].sort((a, b) => (b.modified ?? 0) - (a.modified ?? 0))[0];
    select.value = latest.name;
    this.runs = runs;
    await this.selectRun(latest.name);
  }

  async selectRun(name) {
    this.run = name;
    this.say("");
    this.listen(name);
    const info = this.runs?.find((r) => r.name === name);
    $("run-info").textContent = info
      ? [info.game, info.network, `${info.iterations} iterations`, formatTime(info.modified)]
          .filter(Boolean)
          .join(" · ")
      : "";
    await Promise.all([this.loadPlots(name), this.loadMetrics(name), this.loadConfig(name), this.loadGames(name)]);
  }

  /** Follows the run's metrics as training appends them. */
  listen(name) {
    this.events?.close();
    const source = new EventSource(`${runPath(name)}/events`);
    this.events = source;
    source.addEventListener("metrics", (event) => {
      if (this.events !== source) return;
      let line = null;
      try {
        line = JSON.parse(event.data);
      } catch {
        // an unreadable line still means the run moved on
      }
      $("live").textContent = line?.iteration ? `iteration ${line.iteration} just finished` : "updated";
      clearTimeout(this.refreshTimer);
      this.refreshTimer = setTimeout(() => this.refresh(name), REFRESH_DELAY_MS);
    });
    source.addEventListener("open", () => {
      if (this.events === source) $("live").textContent = "live";
    });
  }

  async refresh(name) {
    if (this.run !== name) return;
    await Promise.all([this.loadPlots(name), this.loadMetrics(name), this.loadGames(name)]);
  }

  // ---- plots -------------------------------------------------------------------------

  async loadPlots(name) {
    let plots;
    try {
      plots = await api(`${runPath(name)}/plots`);
    } catch (err) {
      this.say(messageOf(err), "error");
      return;
    }
    if (this.run !== name) return;
    const container = $("plots");
    const figures = plots.map((plot) => plotFigure(container, plot));
    container.replaceChildren(...figures.map((f) => f.figure));
    if (!plots.length) container.append(note("No plots yet: they appear after the first iteration."));
    await Promise.all(figures.map((f) => this.fillPlot(name, f)));
  }

  async fillPlot(name, { plot, holder }) {
    try {
      const text = await api(`${runPath(name)}/plots/${encodeURIComponent(plot.name)}.svg`);
      if (this.run !== name) return;
      const svg = inlineSvg(text, `plot-${plot.name}`);
      holder.replaceChildren(svg || note("This plot could not be read."));
    } catch (err) {
      holder.replaceChildren(note(messageOf(err)));
    }
  }

  // ---- tables ------------------------------------------------------------------------

  async loadMetrics(name) {
    try {
      const lines = await api(`${runPath(name)}/metrics`);
      if (this.run !== name) return;
      const latest = lines[lines.length - 1];
      fillTable($("latest"), latest ? metricRows(latest) : [["", "no iteration finished yet"]]);
    } catch (err) {
      this.say(messageOf(err), "error");
    }
  }

  async loadConfig(name) {
    try {
      const config = await api(`${runPath(name)}/config`);
      if (this.run !== name) return;
      fillTable($("config"), Object.entries(config || {}).map(([k, v]) => [k, formatValue(v)]));
    } catch (err) {
      fillTable($("config"), [["", messageOf(err)]]);
    }
  }

  // ---- sample games ------------------------------------------------------------------

  async loadGames(name) {
    const list = $("run-games");
    try {
      const files = await api(`${runPath(name)}/games`);
      if (this.run !== name) return;
      list.replaceChildren(...files.map(gameItem));
      if (!files.length) list.append(note("No sample games saved yet."));
    } catch (err) {
      list.replaceChildren(note(messageOf(err)));
    }
  }

  async replay(file) {
    try {
      const pdn = await api(`${runPath(this.run)}/games/${encodeURIComponent(file)}`);
      await this.onReplay(String(pdn), `${this.run}/${file}`);
    } catch (err) {
      this.say(messageOf(err), "error");
    }
  }

  say(text, kind = "info") {
    screen.say(text, kind);
  }
}

function runLabel(run) {
  const details = [run.network, `${run.iterations} it.`].filter(Boolean).join(", ");
  return `${run.name} (${details})`;
}

function plotFigure(container, plot) {
  const figure = document.createElement("figure");
  figure.className = "plot";
  figure.dataset.plot = plot.name;
  const caption = Object.assign(document.createElement("figcaption"), { textContent: plot.title || plot.name });
  // Keep the old drawing while the new one loads, so a live refresh does not flicker.
  const old = container.querySelector(`figure[data-plot="${CSS.escape(plot.name)}"] .svg-holder`);
  const holder = old || Object.assign(document.createElement("div"), { className: "svg-holder" });
  figure.append(caption, holder);
  return { plot, figure, holder };
}

/**
 * Parses an SVG document into an element for the page. Its ids get a prefix, since several
 * plots in one page would otherwise share clip-path and gradient ids.
 */
function inlineSvg(text, prefix) {
  const renamed = String(text)
    .replace(/\bid="([^"]+)"/g, `id="${prefix}-$1"`)
    .replace(/url\(#([^)]+)\)/g, `url(#${prefix}-$1)`)
    .replace(/href="#([^"]+)"/g, `href="#${prefix}-$1"`);
  const doc = new DOMParser().parseFromString(renamed, "image/svg+xml");
  const svg = doc.documentElement;
  if (svg.nodeName !== "svg" || doc.querySelector("parsererror")) return null;
  for (const script of svg.querySelectorAll("script, foreignObject")) script.remove();
  const width = parseFloat(svg.getAttribute("width"));
  const height = parseFloat(svg.getAttribute("height"));
  if (!svg.hasAttribute("viewBox") && width && height) svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  return document.importNode(svg, true);
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

function formatNumber(x) {
  if (Number.isInteger(x)) return String(x);
  const abs = Math.abs(x);
  if (abs !== 0 && (abs < 0.001 || abs >= 1e6)) return x.toExponential(3);
  return String(Number(x.toPrecision(4)));
}

function formatTime(value) {
  if (value === undefined || value === null || value === "") return "";
  const date = typeof value === "number" ? new Date(value * (value < 1e12 ? 1000 : 1)) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : `modified ${date.toLocaleString()}`;
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

function gameItem(file) {
  const item = document.createElement("li");
  const button = Object.assign(document.createElement("button"), {
    type: "button",
    className: "link",
    textContent: file,
  });
  button.dataset.file = file;
  item.append(button);
  return item;
}

function note(text) {
  return Object.assign(document.createElement("p"), { className: "placeholder", textContent: text });
}
