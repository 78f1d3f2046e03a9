// Interactive line charts on uPlot (web/vendor/uplot/, MIT): named series of (x, y) points
// drawn over one x axis, with readable axes, a legend that shows the values under the
// pointer, drag to zoom (double-click to zoom out), and exponential smoothing. The chart
// knows nothing of training runs; the dashboard decides what to draw.

import uPlot from "./vendor/uplot/uPlot.esm.js";

/** Line colours, each at least 4.5:1 against white, so they also serve as text. */
export const PALETTE = ["#1b6ca8", "#b8400b", "#1a7f37", "#7b3fa0", "#8a5a00", "#c0186a", "#00798c", "#555555"];

/** Dash patterns that tell apart the lines of one colour (e.g. one run's two losses). */
export const DASHES = [[], [7, 4], [2, 3], [10, 3, 2, 3]];

const FONT = '13px system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';
const LABEL_FONT = `600 ${FONT}`;
const TEXT = "#3d3d3d";
const GRID = "rgba(0, 0, 0, 0.08)";
const REFERENCE = "#767676";
const HEIGHT = 260;
/** Tick steps for whole-number axes (iterations), so no tick is repeated. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000];
/** The narrowest y axis (CSS pixels), so that short tick labels keep clear of the axis label. */
const MIN_AXIS_WIDTH = 40;

/**
 * Exponential moving average of the points' y values, debiased at the start (as
 * TensorBoard smooths): `weight` 0 leaves them as they are, near 1 smooths the most.
 */
export function smooth(points, weight) {
  if (!(weight > 0)) return points;
  let average = 0;
  let count = 0;
  return points.map(([x, y, ...rest]) => {
    average = average * weight + (1 - weight) * y;
    count += 1;
    return [x, average / (1 - weight ** count), ...rest];
  });
}

/**
 * A number as people read it: at most four significant digits, an exponent when tiny or
 * huge (`8.08e-4`, trailing zeros dropped).
 */
export function formatNumber(x) {
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  const abs = Math.abs(x);
  if (abs !== 0 && (abs < 0.001 || abs >= 1e6)) return x.toExponential(3).replace(/\.?0+e/, "e");
  return String(Number(x.toPrecision(4)));
}

/**
 * One chart in `parent`. `options`: `id`, `title`, `yLabel`, `yRange` ([low, high], else from
 * the data).
 */
export class LineChart {
  constructor(parent, options) {
    this.options = options;
    this.figure = document.createElement("figure");
    this.figure.className = "chart";
    this.figure.dataset.chart = options.id;
    const caption = Object.assign(document.createElement("figcaption"), { textContent: options.title });
    this.body = document.createElement("div");
    this.body.className = "chart-body";
    this.figure.append(caption, this.body);
    parent.append(this.figure);
    this.plot = null;
    this.shape = "";
    this.series = [];
    this.raw = [];
    this.smoothing = 0;
    this.resizer = new ResizeObserver(() => this.plot?.setSize(this.size()));
    this.resizer.observe(this.body);
  }

  /**
   * Draws `series`: [{label, color, dash, points: [[x, y, note?], ...]}] over the x axis
   * `x`: {label, whole} (whole: whole-number ticks). A point's note is shown beside its
   * value on hover; points whose x or y is not a finite number are left out. `view`:
   * `reference` (a y drawn as a dashed line) and `empty` (said when there is nothing to draw).
   */
  draw(series, x, view = {}) {
    this.view = view;
    this.series = series
      .map((s) => ({
        ...s,
        points: s.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1])).sort((a, b) => a[0] - b[0]),
      }))
      .filter((s) => s.points.length);
    this.raw = this.series.map((s) => new Map(s.points.map((p) => [p[0], p])));
    this.x = x;
    if (!this.series.length) {
      this.clear(view.empty || "nothing to draw yet");
      return;
    }
    const shape = JSON.stringify([x, view.reference, this.series.map((s) => [s.label, s.color, s.dash])]);
    if (this.plot && shape === this.shape) {
      this.plot.setData(this.data());
    } else {
      this.clear();
      this.shape = shape;
      this.plot = new uPlot(this.plotOptions(), this.data(), this.body);
    }
  }

  /** Smoothing weight in [0, 1). */
  setSmoothing(weight) {
    this.smoothing = weight;
    if (this.plot) this.plot.setData(this.data());
  }

  /** Removes the drawing; `text`, when given, is said in its place. */
  clear(text = "") {
    this.plot?.destroy();
    this.plot = null;
    this.shape = "";
    this.body.replaceChildren();
    if (text) this.body.append(Object.assign(document.createElement("p"), { className: "chart-empty", textContent: text }));
  }

  size() {
    return { width: Math.max(240, this.body.clientWidth), height: HEIGHT };
  }

  /** uPlot's columns: the union of the series' x values, each series undefined where it has no point. */
  data() {
    const tables = this.series.map((s) => {
      const points = smooth(s.points, this.smoothing);
      return [points.map((p) => p[0]), points.map((p) => p[1])];
    });
    return uPlot.join(tables);
  }

  plotOptions() {
    const { yLabel, yRange } = this.options;
    const { reference } = this.view;
    const axis = { stroke: TEXT, font: FONT, labelFont: LABEL_FONT, grid: { stroke: GRID, width: 1 }, ticks: { stroke: GRID } };
    return {
      ...this.size(),
      scales: { x: { time: false }, y: yRange ? { range: yRange } : {} },
      axes: [
        {
          ...axis,
          label: this.x.label,
          labelSize: 24,
          ...(this.x.whole ? { incrs: WHOLE_STEPS } : {}),
          values: (u, ticks) => ticks.map(formatNumber),
        },
        { ...axis, label: yLabel, labelSize: 24, size: axisWidth, values: (u, ticks) => ticks.map(formatNumber) },
      ],
      series: [
        { label: this.x.label, value: (u, v) => (v == null ? "—" : formatNumber(v)) },
        ...this.series.map((s, i) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          dash: s.dash,
          spanGaps: true,
          points: { size: 6, fill: s.color },
          value: (u, v, seriesIdx, idx) => this.hoverText(u, seriesIdx, this.raw[i], idx, v),
        })),
      ],
      // The pointer picks the nearest iteration wherever it is over the chart.
      cursor: { drag: { x: true, y: false } },
      // Solid lines get a filled marker, dashed ones an outline in their dash.
      legend: { live: true, markers: { fill: (u, i) => (i > 0 && !this.series[i - 1].dash?.length ? this.series[i - 1].color : "transparent") } },
      hooks: { draw: reference === undefined ? [] : [(u) => drawReference(u, reference)] },
    };
  }

  /**
   * A series' value under the pointer: smoothed (and the raw value), with its note. A run with
   * no point at the pointer's x (runs compared over different iterations or hours) shows its
   * nearest point, saying where that is.
   */
  hoverText(u, seriesIdx, points, idx, shown) {
    if (idx == null) return "—";
    let x = u.data[0][idx];
    let where = "";
    if (shown == null || !points.has(x)) {
      let near = null;
      for (const px of points.keys()) if (near === null || Math.abs(px - x) < Math.abs(near - x)) near = px;
      if (near === null) return "—";
      shown = u.data[seriesIdx][u.data[0].indexOf(near)];
      where = ` at ${formatNumber(near)}`;
      x = near;
    }
    const [, y, note] = points.get(x);
    let text = formatNumber(shown) + where;
    if (this.smoothing > 0) text += ` (raw ${formatNumber(y)})`;
    return note ? `${text}, ${note}` : text;
  }
}

/** The width a y axis needs for its longest tick label (uPlot asks until it settles). */
function axisWidth(u, values, axisIdx, cycleNum) {
  const axis = u.axes[axisIdx];
  if (cycleNum > 1) return axis._size;
  const longest = (values ?? []).reduce((a, v) => (v.length > a.length ? v : a), "");
  u.ctx.font = axis.font[0];
  const width = axis.ticks.size + axis.gap + u.ctx.measureText(longest).width / devicePixelRatio;
  return Math.ceil(Math.max(MIN_AXIS_WIDTH, width));
}

/** A dashed horizontal line at `y` (a level, a threshold) across the plotting area. */
function drawReference(u, y) {
  const at = u.valToPos(y, "y", true);
  const { left, top, width, height } = u.bbox;
  if (!(at >= top && at <= top + height)) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = REFERENCE;
  ctx.lineWidth = devicePixelRatio;
  ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
  ctx.beginPath();
  ctx.moveTo(left, at);
  ctx.lineTo(left + width, at);
  ctx.stroke();
  ctx.restore();
}
