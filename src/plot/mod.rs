//! Training runs' curves as chart files: `checkers-zero plot` writes them as PNG and SVG,
//! one drawing function for both backends; several runs are drawn on the same charts, to
//! compare recipes by their learning curves. (The browser dashboard draws its own
//! interactive charts from the metrics.)

use crate::files::{CURVE_FILE, FileError, complete_json_lines, file_error};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One chart `plot` writes.
struct PlotKind {
    /// File stem and URL name, e.g. "loss".
    name: &'static str,
    title: &'static str,
}

/// The charts.
const PLOTS: &[PlotKind] = &[
    PlotKind {
        name: "gauntlet",
        title: "Gauntlet: the best network against fixed opponents",
    },
    PlotKind {
        name: "gauntlet_hours",
        title: "Gauntlet by hours of training",
    },
    PlotKind {
        name: "gauntlet_cpu_hours",
        title: "Gauntlet by CPU hours of training",
    },
    PlotKind {
        name: "curve_hours",
        title: "Learning curve: the best networks played afterwards, by hours",
    },
    PlotKind {
        name: "curve_cpu_hours",
        title: "Learning curve: the best networks played afterwards, by CPU hours",
    },
    PlotKind {
        name: "elo",
        title: "Elo difference to each gauntlet opponent",
    },
    PlotKind {
        name: "elo_hours",
        title: "Elo difference by hours of training",
    },
    PlotKind {
        name: "loss",
        title: "Training loss",
    },
    PlotKind {
        name: "gating",
        title: "Gating: each new network against the best",
    },
    PlotKind {
        name: "lr",
        title: "Learning rate",
    },
    PlotKind {
        name: "games",
        title: "Self-play games per hour",
    },
    PlotKind {
        name: "simulations",
        title: "Self-play simulations per second",
    },
    PlotKind {
        name: "length",
        title: "Mean self-play game length",
    },
];

/// Chart size in pixels.
const SIZE: (u32, u32) = (800, 450);
const FONT: &str = "sans-serif";

/// One line of metrics.jsonl, as far as the charts read it. Every field but the iteration
/// may be missing (runs from older builds) or null (serde_json writes a NaN loss as null):
/// such a value is NaN here, and charts skip it.
#[derive(Deserialize, Debug, Clone)]
struct Record {
    iteration: u32,
    #[serde(default = "nan", deserialize_with = "nullable")]
    games: f64,
    #[serde(default = "nan", deserialize_with = "nullable")]
    mean_plies: f64,
    #[serde(default = "nan", deserialize_with = "nullable")]
    policy_loss: f64,
    #[serde(default = "nan", deserialize_with = "nullable")]
    value_loss: f64,
    #[serde(default = "nan", deserialize_with = "nullable")]
    lr: f64,
    #[serde(default)]
    gating_score: Option<f64>,
    #[serde(default)]
    gauntlet: Option<Vec<GauntletPoint>>,
    #[serde(default = "nan", deserialize_with = "nullable")]
    selfplay_s: f64,
    #[serde(default = "nan", deserialize_with = "nullable")]
    simulations_per_s: f64,
    /// Training time so far, over every resumed process of the run.
    #[serde(default = "nan", deserialize_with = "nullable")]
    elapsed_s: f64,
    /// CPU time so far, all the trainer's threads (runs from older builds have none).
    #[serde(default = "nan", deserialize_with = "nullable")]
    cpu_s: f64,
}

fn nan() -> f64 {
    f64::NAN
}

fn nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[derive(Deserialize, Debug, Clone)]
struct GauntletPoint {
    opponent: String,
    #[serde(default = "nan", deserialize_with = "nullable")]
    score: f64,
    #[serde(default = "nan", deserialize_with = "nullable")]
    score_low: f64,
    #[serde(default = "nan", deserialize_with = "nullable")]
    score_high: f64,
    #[serde(default)]
    elo: Option<f64>,
    #[serde(default)]
    elo_low: Option<f64>,
    #[serde(default)]
    elo_high: Option<f64>,
}

/// A run's metrics.jsonl, one record per finished iteration, its gating threshold, and its
/// name (the folder's) to tell runs apart on a shared chart; with the points of its
/// learning curve played afterwards (`checkers-zero curve`), if it has one.
struct RunMetrics {
    name: String,
    records: Vec<Record>,
    curve: Vec<Record>,
    threshold: Option<f64>,
}

/// Why a run's charts could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error(transparent)]
    File(#[from] FileError),
    /// A metrics line that is no iteration record, a run with none yet, a failed drawing.
    #[error("{0}")]
    Data(String),
}

type Result<T, E = PlotError> = std::result::Result<T, E>;

/// Reads `run/metrics.jsonl` (and the threshold from `run/config.json`, if there). A last
/// line without its newline is one `train` is still writing, and is left out.
fn read_metrics(run: &Path) -> Result<RunMetrics> {
    let path = run.join("metrics.jsonl");
    let text = std::fs::read_to_string(&path).map_err(file_error("read", &path))?;
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    let mut records = Vec::new();
    for (i, line) in complete.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: Record = serde_json::from_str(line).map_err(|e| {
            PlotError::Data(format!(
                "{} line {}: not an AlphaZero iteration record ({e})",
                path.display(),
                i + 1
            ))
        })?;
        records.push(record);
    }
    let threshold = std::fs::read_to_string(run.join("config.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|c| c.get("threshold")?.as_f64());
    let name = run.file_name().map_or_else(
        || run.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    // The curve's points have a metrics line's iteration, times and gauntlet; its first
    // line (the settings it was played with) has no iteration.
    let curve = std::fs::read_to_string(run.join(CURVE_FILE))
        .map(|t| complete_json_lines(&t))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|l| serde_json::from_value(l).ok())
        .collect();
    Ok(RunMetrics {
        name,
        records,
        curve,
        threshold,
    })
}

/// A line of points with, where it has one, a 95% interval at each point.
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
    /// (x, low, value, high).
    intervals: Vec<(f64, f64, f64, f64)>,
}

impl Series {
    fn of(name: &str, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.to_string(),
            points: points.into_iter().filter(|p| p.1.is_finite()).collect(),
            intervals: Vec::new(),
        }
    }
}

/// What one chart shows.
struct Chart {
    title: &'static str,
    x: XAxis,
    y_label: &'static str,
    series: Vec<Series>,
    /// A fixed y range (scores); else from the data.
    y_range: Option<(f64, f64)>,
    /// A horizontal line: its value and label (the gating threshold, level 50%).
    reference: Option<(f64, String)>,
    /// Said in place of the chart when no series has a point.
    empty: &'static str,
}

/// The chart `kind` of several runs together: each run's lines, named after the run where
/// there is more than one; a reference line only where the runs agree on it.
fn chart(runs: &[RunMetrics], kind: &PlotKind) -> Option<Chart> {
    let mut together: Option<Chart> = None;
    for run in runs {
        let mut c = run_chart(run, kind)?;
        if runs.len() > 1 {
            for s in &mut c.series {
                s.name = format!("{}: {}", run.name, s.name);
            }
        }
        match &mut together {
            None => together = Some(c),
            Some(all) => {
                if all.reference != c.reference {
                    all.reference = None;
                }
                all.series.extend(c.series);
            }
        }
    }
    together
}

/// The chart `kind` of one run.
fn run_chart(m: &RunMetrics, kind: &PlotKind) -> Option<Chart> {
    let per_iteration = |f: fn(&Record) -> f64| -> Vec<(f64, f64)> {
        m.records
            .iter()
            .map(|r| (r.iteration as f64, f(r)))
            .collect()
    };
    let axis = XAxis::of(kind.name);
    let x = axis.value();
    let base = |y_label, series| Chart {
        title: kind.title,
        x: axis,
        y_label,
        series,
        y_range: None,
        reference: None,
        empty: "no iterations yet",
    };
    Some(match kind.name {
        // Scores against fixed opponents: the in-run gauntlet's, or the curve's played
        // afterwards.
        "gauntlet" | "gauntlet_hours" | "gauntlet_cpu_hours" | "curve_hours"
        | "curve_cpu_hours" => {
            let curve = kind.name.starts_with("curve");
            Chart {
                y_range: Some((0.0, 1.0)),
                reference: Some((0.5, "level".into())),
                empty: match (curve, axis) {
                    (false, XAxis::CpuHours) => {
                        "no gauntlet with CPU times (runs of older builds lack them)"
                    }
                    (false, _) => "no gauntlet yet (train --gauntlet-every N)",
                    (true, XAxis::CpuHours) => {
                        "no curve with CPU times (runs of older builds lack them)"
                    }
                    (true, _) => "no curve played (checkers-zero curve RUN)",
                },
                ..base(
                    "score (win 1, draw 1/2), 95% interval",
                    gauntlet_series(if curve { &m.curve } else { &m.records }, x, |g| {
                        Some((g.score, g.score_low, g.score_high))
                    }),
                )
            }
        }
        "elo" | "elo_hours" => Chart {
            reference: Some((0.0, "level".into())),
            empty: "no finite Elo yet (train --gauntlet-every N)",
            ..base(
                "Elo difference, 95% interval",
                gauntlet_series(&m.records, x, |g| Some((g.elo?, g.elo_low?, g.elo_high?))),
            )
        },
        "loss" => base(
            "loss per sample",
            vec![
                Series::of("policy (cross-entropy)", per_iteration(|r| r.policy_loss)),
                Series::of("value (squared error)", per_iteration(|r| r.value_loss)),
            ],
        ),
        "gating" => Chart {
            y_range: Some((0.0, 1.0)),
            reference: m.threshold.map(|t| (t, format!("threshold {t:.2}"))),
            empty: "no gating (a run without it promotes every network)",
            ..base(
                "score against the best",
                vec![Series::of(
                    "new network",
                    m.records
                        .iter()
                        .filter_map(|r| Some((r.iteration as f64, r.gating_score?)))
                        .collect(),
                )],
            )
        },
        "lr" => base(
            "learning rate",
            vec![Series::of("learning rate", per_iteration(|r| r.lr))],
        ),
        "games" => base(
            "games per hour",
            vec![Series::of(
                "self-play",
                per_iteration(|r| r.games / r.selfplay_s * 3600.0),
            )],
        ),
        "simulations" => base(
            "simulations per second",
            vec![Series::of(
                "self-play",
                per_iteration(|r| r.simulations_per_s),
            )],
        ),
        "length" => base(
            "plies per game",
            vec![Series::of("self-play", per_iteration(|r| r.mean_plies))],
        ),
        _ => return None,
    })
}

/// What a chart's x axis counts.
#[derive(Clone, Copy, PartialEq, Debug)]
enum XAxis {
    Iteration,
    /// Wall-clock hours of training.
    Hours,
    /// CPU hours: the trainer's threads together, so the work done on a shared machine.
    CpuHours,
}

impl XAxis {
    /// From a chart's name: `..._cpu_hours`, `..._hours`, else iterations.
    fn of(name: &str) -> XAxis {
        if name.ends_with("_cpu_hours") {
            XAxis::CpuHours
        } else if name.ends_with("_hours") {
            XAxis::Hours
        } else {
            XAxis::Iteration
        }
    }

    /// A record's place on the axis (NaN where the record lacks it).
    fn value(self) -> fn(&Record) -> f64 {
        match self {
            XAxis::Iteration => |r| r.iteration as f64,
            XAxis::Hours => |r| r.elapsed_s / 3600.0,
            XAxis::CpuHours => |r| r.cpu_s / 3600.0,
        }
    }

    fn label(self) -> &'static str {
        match self {
            XAxis::Iteration => "iteration",
            XAxis::Hours => "hours of training",
            XAxis::CpuHours => "CPU hours of training (all threads)",
        }
    }
}

/// One series per gauntlet opponent, in order of first appearance, at `x` of each record:
/// `pick` gives a point's value and interval, or none.
fn gauntlet_series(
    records: &[Record],
    x: fn(&Record) -> f64,
    pick: fn(&GauntletPoint) -> Option<(f64, f64, f64)>,
) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for r in records {
        for g in r.gauntlet.iter().flatten() {
            let Some((y, low, high)) =
                pick(g).filter(|p| [p.0, p.1, p.2].iter().all(|v| v.is_finite()))
            else {
                continue;
            };
            let at_x = x(r);
            if !at_x.is_finite() {
                continue;
            }
            let at = match series.iter().position(|s| s.name == g.opponent) {
                Some(i) => i,
                None => {
                    series.push(Series::of(&g.opponent, Vec::new()));
                    series.len() - 1
                }
            };
            series[at].points.push((at_x, y));
            series[at].intervals.push((at_x, low, y, high));
        }
    }
    series
}

/// The range `values` span, widened 5% each side (and to a unit around a single value).
fn padded_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return None;
    }
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        lo.abs().max(1.0) * 0.5
    };
    Some((lo - pad, hi + pad))
}

/// The text font, registered once (the bitmap backend has no system fonts to fall back on).
fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        static BYTES: &[u8] = include_bytes!("../data/fonts/DejaVuSans.ttf");
        plotters::style::register_font(FONT, FontStyle::Normal, BYTES)
            .unwrap_or_else(|_| panic!("the built-in font data/fonts/DejaVuSans.ttf is sound"));
    });
}

/// Draws `c` on `root` (either backend).
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    c: &Chart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    register_font();
    root.fill(&WHITE)?;
    let root = root.titled(c.title, (FONT, 22))?;
    let xs = || c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = || {
        c.series.iter().flat_map(|s| {
            s.points
                .iter()
                .map(|p| p.1)
                .chain(s.intervals.iter().flat_map(|i| [i.1, i.3]))
        })
    };
    let (Some((x0, x1)), Some(data_y)) = (padded_range(xs()), padded_range(ys())) else {
        root.draw(&Text::new(
            c.empty,
            (40, SIZE.1 as i32 / 2 - 20),
            (FONT, 18).into_font().color(&BLACK.mix(0.6)),
        ))?;
        return root.present();
    };
    // Ranges from the data get headroom for the legend, which sits top right.
    let (y0, y1) = c
        .y_range
        .unwrap_or((data_y.0, data_y.1 + (data_y.1 - data_y.0) * 0.3));
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(c.x.label())
        .x_label_formatter(&|x| match c.x {
            XAxis::Iteration => format!("{x:.0}"),
            XAxis::Hours | XAxis::CpuHours => format!("{x:.1}"),
        })
        .y_desc(c.y_label)
        .axis_desc_style((FONT, 15))
        .label_style((FONT, 13))
        .light_line_style(BLACK.mix(0.05))
        .draw()?;
    if let Some((y, label)) = &c.reference {
        let grey = BLACK.mix(0.45);
        chart
            .draw_series(LineSeries::new([(x0, *y), (x1, *y)], grey.stroke_width(1)))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], grey));
    }
    for (i, s) in c.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(s.points.clone(), color.stroke_width(2)))?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        chart.draw_series(
            s.intervals
                .iter()
                .map(|&(x, lo, y, hi)| ErrorBar::new_vertical(x, lo, y, hi, color, 6)),
        )?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()?;
    root.present()
}

/// The chart `name` (one of [`PLOTS`]) as an SVG document; `None` for an unknown name.
fn svg(runs: &[RunMetrics], name: &str) -> Option<String> {
    let kind = PLOTS.iter().find(|p| p.name == name)?;
    let c = chart(runs, kind)?;
    let mut out = String::new();
    draw(
        SVGBackend::with_string(&mut out, SIZE).into_drawing_area(),
        &c,
    )
    .expect("drawing into a string cannot fail");
    Some(out)
}

/// The chart `kind` as a PNG file's bytes.
fn png(runs: &[RunMetrics], kind: &PlotKind) -> Result<Vec<u8>> {
    let c = chart(runs, kind).expect("every listed plot has a chart");
    let mut rgb = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
    draw(
        BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area(),
        &c,
    )
    .map_err(|e| PlotError::Data(format!("drawing {}: {e}", kind.name)))?;
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(&rgb))
        .map_err(|e| PlotError::Data(format!("encoding {}'s PNG: {e}", kind.name)))?;
    Ok(out)
}

/// Writes every chart of the runs in `runs` (drawn together) as `out/<name>.svg` and
/// `out/<name>.png`; returns the files written.
pub fn write_plots(runs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>> {
    let mut metrics = Vec::new();
    for run in runs {
        let m = read_metrics(run)?;
        if m.records.is_empty() {
            return Err(PlotError::Data(format!(
                "{}: no finished iteration yet",
                run.join("metrics.jsonl").display()
            )));
        }
        metrics.push(m);
    }
    if metrics.is_empty() {
        return Err(PlotError::Data("no run to draw".into()));
    }
    // Runs in folders of the same name are told apart by their paths as given.
    let names: std::collections::HashSet<&str> = metrics.iter().map(|m| &*m.name).collect();
    if names.len() < metrics.len() {
        for (m, run) in metrics.iter_mut().zip(runs) {
            m.name = run.display().to_string();
        }
    }
    std::fs::create_dir_all(out).map_err(file_error("create", out))?;
    let mut written = Vec::new();
    for kind in PLOTS {
        let svg = svg(&metrics, kind.name).expect("a listed plot");
        for (ext, bytes) in [("svg", svg.into_bytes()), ("png", png(&metrics, kind)?)] {
            let path = out.join(format!("{}.{ext}", kind.name));
            crate::files::write_atomic(&path, &bytes).map_err(file_error("write", &path))?;
            written.push(path);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/runs/fixture")
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cz-plot-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Every `<polyline points="x,y x,y ...">` of an SVG, as points.
    fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
        svg.split("<polyline")
            .skip(1)
            .map(|el| {
                let points = el
                    .split("points=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                points
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn metrics_read_with_a_partial_last_line_left_out_and_errors_placed() {
        let m = read_metrics(&fixture()).unwrap();
        let lines = std::fs::read_to_string(fixture().join("metrics.jsonl")).unwrap();
        assert_eq!(m.records.len(), lines.lines().count());
        assert_eq!(m.threshold, Some(0.550000011920929));
        let dir = scratch("read");
        let first = lines.lines().next().unwrap();
        std::fs::write(
            dir.join("metrics.jsonl"),
            format!("{first}\n{}", &first[..20]),
        )
        .unwrap();
        assert_eq!(read_metrics(&dir).unwrap().records.len(), 1);
        std::fs::write(
            dir.join("metrics.jsonl"),
            format!("{first}\n{{\"loss\": 1}}\n{first}\n"),
        )
        .unwrap();
        let e = format!("{:#}", read_metrics(&dir).err().unwrap());
        assert!(
            e.contains("metrics.jsonl line 2: not an AlphaZero iteration record"),
            "{e}"
        );
        let e = format!("{:#}", read_metrics(&dir.join("none")).err().unwrap());
        assert!(
            e.contains("cannot read") && e.contains("none/metrics.jsonl"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The loss chart's lines carry the fixture's values: one point per iteration, at
    /// heights that are one linear map of the losses.
    #[test]
    fn charts_carry_the_values_they_plot() {
        let m = read_metrics(&fixture()).unwrap();
        let svg = svg(std::slice::from_ref(&m), "loss").unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("Training loss"));
        let n = m.records.len();
        let lines: Vec<Vec<(f64, f64)>> = polylines(&svg)
            .into_iter()
            .filter(|l| l.len() == n)
            .collect();
        assert_eq!(lines.len(), 2, "policy and value");
        let values: Vec<f64> = m.records.iter().map(|r| r.policy_loss).collect();
        let (i, j) = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .max_by(|a, b| {
                let d = |(i, j): (usize, usize)| (values[i] - values[j]).abs();
                d(*a).total_cmp(&d(*b))
            })
            .unwrap();
        let line = &lines[0];
        let scale = (line[j].1 - line[i].1) / (values[j] - values[i]);
        assert!(scale < 0.0, "larger values are drawn higher up");
        for k in 0..n {
            let want = line[i].1 + scale * (values[k] - values[i]);
            assert!(
                (line[k].1 - want).abs() <= 1.0,
                "point {k}: {} vs {want}",
                line[k].1
            );
        }
        // Evenly spaced iterations are evenly spaced across.
        let step = line[1].0 - line[0].0;
        assert!(
            line.windows(2)
                .all(|w| (w[1].0 - w[0].0 - step).abs() <= 1.0)
        );
        assert!(super::svg(&[m], "nothing").is_none());
    }

    /// The distinct x positions of a chart's points (its interval markers are circles) are
    /// one linear map of `want`, in order.
    fn assert_points_at(svg: &str, want: &[f64]) {
        let mut xs: Vec<f64> = svg
            .split("<circle cx=\"")
            .skip(1)
            .map(|el| el.split('"').next().unwrap().parse().unwrap())
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup_by(|a, b| (*a - *b).abs() < 0.5);
        assert_eq!(xs.len(), want.len(), "one x a point: {xs:?}");
        let scale = (xs[xs.len() - 1] - xs[0]) / (want[want.len() - 1] - want[0]);
        for (x, h) in xs.iter().zip(want) {
            let expected = xs[0] + scale * (h - want[0]);
            assert!((x - expected).abs() <= 1.0, "{x} against {expected}");
        }
    }

    /// A learning curve played afterwards is drawn from its own file, at its points' CPU
    /// times, its settings line skipped; the gauntlet charts keep to the metrics.
    #[test]
    fn a_curve_is_drawn_from_its_file_at_its_points_cpu_times() {
        let dir = scratch("curve");
        let metrics = std::fs::read_to_string(fixture().join("metrics.jsonl")).unwrap();
        std::fs::write(dir.join("metrics.jsonl"), &metrics).unwrap();
        let no_curve = svg(&[read_metrics(&dir).unwrap()], "curve_cpu_hours").unwrap();
        assert!(no_curve.contains("no curve with CPU times"), "{no_curve}");
        let record = serde_json::json!({"opponent": "alphabeta:depth=5", "score": 0.25,
            "score_low": 0.1, "score_high": 0.5});
        let cpu_hours = [0.0, 0.3, 1.2];
        let mut text =
            String::from(r#"{"curve": {"agent": "az", "opponents": [], "games": 2, "seed": 0}}"#);
        text.push('\n');
        for (i, h) in cpu_hours.iter().enumerate() {
            let point = serde_json::json!({"iteration": i * 4, "best_iteration": i * 4,
                "elapsed_s": 100.0 * i as f64, "cpu_s": h * 3600.0, "gauntlet": [record]});
            text.push_str(&format!("{point}\n"));
        }
        std::fs::write(dir.join(CURVE_FILE), text).unwrap();
        let m = read_metrics(&dir).unwrap();
        assert_eq!(m.curve.len(), 3);
        let curve = svg(std::slice::from_ref(&m), "curve_cpu_hours").unwrap();
        assert!(
            curve.contains("alphabeta:depth=5"),
            "the curve's opponent in its legend"
        );
        assert_points_at(&curve, &cpu_hours);
        let gauntlet = svg(&[m], "gauntlet").unwrap();
        assert!(
            !gauntlet.contains("alphabeta:depth=5"),
            "the curve stays off the gauntlet chart"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The CPU-hours chart puts each gauntlet at its record's CPU time, not its wall time
    /// or iteration; a run whose metrics have no CPU times says so instead of drawing.
    #[test]
    fn cpu_hours_place_points_at_their_cpu_time() {
        let dir = scratch("cpu");
        let lines: Vec<serde_json::Value> =
            std::fs::read_to_string(fixture().join("metrics.jsonl"))
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect();
        let gauntlet = lines.iter().find(|v| !v["gauntlet"].is_null()).unwrap()["gauntlet"].clone();
        let mut cpu_hours = Vec::new();
        let text: String = lines
            .into_iter()
            .map(|mut v| {
                // A gauntlet every iteration, at uneven CPU steps (unlike iterations and the
                // fixture's wall times).
                let it = v["iteration"].as_u64().unwrap() as f64;
                v["cpu_s"] = (it * it * 360.0).into();
                v["gauntlet"] = gauntlet.clone();
                cpu_hours.push(it * it * 0.1);
                format!("{v}\n")
            })
            .collect();
        std::fs::write(dir.join("metrics.jsonl"), text).unwrap();
        let svg = svg(&[read_metrics(&dir).unwrap()], "gauntlet_cpu_hours").unwrap();
        assert!(svg.contains("CPU hours of training"));
        assert_points_at(&svg, &cpu_hours);
        let none = super::svg(&[read_metrics(&fixture()).unwrap()], "gauntlet_cpu_hours").unwrap();
        assert!(none.contains("no gauntlet with CPU times"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Several runs share each chart: every run's lines, named after their run, and a
    /// reference line only where the runs agree on it.
    #[test]
    fn runs_drawn_together_keep_their_own_lines() {
        let dir = scratch("together");
        let other = dir.join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::copy(fixture().join("metrics.jsonl"), other.join("metrics.jsonl")).unwrap();
        let runs = [
            read_metrics(&fixture()).unwrap(),
            read_metrics(&other).unwrap(),
        ];
        let one = svg(&runs[..1], "gauntlet_hours").unwrap();
        let both = svg(&runs, "gauntlet_hours").unwrap();
        assert!(one.contains("hours of training") && both.contains("hours of training"));
        let points = |svg: &str| svg.matches("<circle").count();
        assert!(points(&one) > 0);
        assert_eq!(points(&both), 2 * points(&one));
        for run in ["fixture", "other"] {
            assert!(both.contains(&format!("{run}: alphabeta:depth=8")), "{run}");
        }
        // The gating threshold: the fixture's config has one, the other run none.
        assert!(
            svg(&runs[..1], "gating")
                .unwrap()
                .contains("threshold 0.55")
        );
        assert!(!svg(&runs, "gating").unwrap().contains("threshold"));
        std::fs::copy(fixture().join("config.json"), other.join("config.json")).unwrap();
        let runs = [
            read_metrics(&fixture()).unwrap(),
            read_metrics(&other).unwrap(),
        ];
        assert!(svg(&runs, "gating").unwrap().contains("threshold 0.55"));
        let e = write_plots(&[], &dir.join("out")).err().unwrap();
        assert!(e.to_string().contains("no run"), "{e}");
        // Two runs in folders of the same name are named by their paths.
        let twin = dir.join("twin").join("fixture");
        std::fs::create_dir_all(&twin).unwrap();
        std::fs::copy(fixture().join("metrics.jsonl"), twin.join("metrics.jsonl")).unwrap();
        write_plots(&[fixture(), twin.clone()], &dir.join("out")).unwrap();
        let both = std::fs::read_to_string(dir.join("out/gauntlet.svg")).unwrap();
        for run in [fixture(), twin] {
            let name = format!("{}: alphabeta:depth=8", run.display());
            assert!(both.contains(&name), "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_chart_is_written_as_png_and_svg() {
        let dir = scratch("write");
        let files = write_plots(&[fixture()], &dir.join("out")).unwrap();
        assert_eq!(files.len(), 2 * PLOTS.len());
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            match f.extension().unwrap().to_str().unwrap() {
                "png" => assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{}", f.display()),
                _ => assert!(bytes.starts_with(b"<svg"), "{}", f.display()),
            }
        }
        // The fixture's gauntlet opponents are in the gauntlet chart's legend.
        let svg = std::fs::read_to_string(dir.join("out/gauntlet.svg")).unwrap();
        assert!(svg.contains("alphabeta:depth=8"), "legend");
        let hours = std::fs::read_to_string(dir.join("out/elo_hours.svg")).unwrap();
        assert!(
            hours.contains("hours of training"),
            "the hours chart's axis"
        );
        // A run with no gauntlet says so instead of drawing an empty frame.
        let none = RunMetrics {
            name: "none".into(),
            records: Vec::new(),
            curve: Vec::new(),
            threshold: None,
        };
        assert!(
            super::svg(&[none], "gauntlet")
                .unwrap()
                .contains("no gauntlet yet")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
