//! Training runs' curves as chart files: `checkers-zero plot` writes them as PNG and SVG,
//! one drawing function for both backends; several runs are drawn on the same charts, to
//! compare recipes by their learning curves. The charts are [`crate::charts::CHARTS`], which the
//! browser dashboard fetches and draws interactively from the same metrics.

use crate::charts::{Axis, CHARTS, Chart as Spec, Lines, Reference, Source};
use crate::files::{CURVE_FILE, FileError, complete_json_lines, file_error};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Chart size in pixels.
const SIZE: (u32, u32) = (800, 450);
const FONT: &str = "sans-serif";

/// A metrics line's `field` as a number: NaN where a line lacks it (runs from older builds)
/// or holds null (serde_json writes a NaN loss as null), and charts skip such a point.
fn number(line: &Value, field: &str) -> f64 {
    line.get(field).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// Whether a line is an iteration's: an object with an iteration number.
fn is_iteration(line: &Value) -> bool {
    line.get("iteration").is_some_and(Value::is_u64)
}

/// A run's metrics.jsonl, one record per finished iteration, its gating threshold, and its
/// name (the folder's) to tell runs apart on a shared chart; with the points of its
/// learning curve played afterwards (`checkers-zero curve`), if it has one.
#[derive(Default)]
struct RunMetrics {
    name: String,
    records: Vec<Value>,
    curve: Vec<Value>,
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
        let record = serde_json::from_str(line).ok().filter(is_iteration);
        let record = record.ok_or_else(|| {
            PlotError::Data(format!(
                "{} line {}: not an AlphaZero iteration record",
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
        .filter(is_iteration)
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
            points: (points.into_iter())
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect(),
            intervals: Vec::new(),
        }
    }
}

/// One chart as drawn: a [`Spec`] over one axis, with the runs' lines.
struct Drawn {
    title: &'static str,
    x: &'static Axis,
    y_label: &'static str,
    series: Vec<Series>,
    y_range: Option<(f64, f64)>,
    /// A horizontal line: its value and label (the gating threshold, level play).
    reference: Option<(f64, String)>,
    /// Said in place of the chart when no series has a point.
    empty: String,
}

/// The chart `spec` over `axis` of several runs together: each run's lines, named after the
/// run where there is more than one; a reference line only where the runs agree on it.
fn chart(runs: &[RunMetrics], spec: &Spec, axis: &'static Axis) -> Drawn {
    let mut together: Option<Drawn> = None;
    for run in runs {
        let mut c = run_chart(run, spec, axis);
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
    together.unwrap_or_else(|| run_chart(&RunMetrics::default(), spec, axis))
}

/// The chart `spec` over `axis` of one run.
fn run_chart(m: &RunMetrics, spec: &Spec, axis: &'static Axis) -> Drawn {
    let x = |line: &Value| number(line, axis.field) * axis.scale;
    let series = match &spec.lines {
        Lines::Metrics { metrics } => metrics
            .iter()
            .map(|metric| {
                let y = |line: &Value| {
                    let per = metric.per.map_or(1.0, |per| number(line, per));
                    number(line, metric.field) / per * metric.scale
                };
                let points = m.records.iter().map(|l| (x(l), y(l))).collect();
                Series::of(metric.name.unwrap_or(spec.y_label), points)
            })
            .collect(),
        Lines::Opponents { source, field } => {
            let lines = match source {
                Source::Metrics => &m.records,
                Source::Curve => &m.curve,
            };
            opponent_series(lines, &x, field)
        }
    };
    Drawn {
        title: spec.title,
        x: axis,
        y_label: spec.y_label,
        series,
        y_range: spec.y_range,
        reference: spec.reference.and_then(|r| match r {
            Reference::Level(y) => Some((y, "level".into())),
            Reference::Threshold => m.threshold.map(|t| (t, format!("threshold {t:.2}"))),
        }),
        empty: spec.empty(axis),
    }
}

/// One series per gauntlet opponent, in order of first appearance, at `x` of each line:
/// its `field` with the 95% interval from `field_low` and `field_high`.
fn opponent_series(lines: &[Value], x: &dyn Fn(&Value) -> f64, field: &str) -> Vec<Series> {
    let (low, high) = (format!("{field}_low"), format!("{field}_high"));
    let mut series: Vec<Series> = Vec::new();
    for line in lines {
        let at_x = x(line);
        let results = line.get("gauntlet").and_then(Value::as_array);
        for g in results.into_iter().flatten() {
            let (y, lo, hi) = (number(g, field), number(g, &low), number(g, &high));
            if ![at_x, y, lo, hi].iter().all(|v| v.is_finite()) {
                continue;
            }
            let opponent = g.get("opponent").and_then(Value::as_str).unwrap_or("?");
            let at = match series.iter().position(|s| s.name == opponent) {
                Some(i) => i,
                None => {
                    series.push(Series::of(opponent, Vec::new()));
                    series.len() - 1
                }
            };
            series[at].points.push((at_x, y));
            series[at].intervals.push((at_x, lo, y, hi));
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
    c: &Drawn,
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
            c.empty.as_str(),
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
        .x_desc(c.x.label)
        .x_label_formatter(&|x| match c.x.whole {
            true => format!("{x:.0}"),
            false => format!("{x:.1}"),
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

/// The files `plot` writes: each chart over each of its axes, by file stem.
fn files() -> impl Iterator<Item = (String, &'static Spec, &'static Axis)> {
    CHARTS.iter().flat_map(|spec| {
        (spec.files.iter()).map(move |&axis| (format!("{}{}", spec.id, axis.suffix), spec, axis))
    })
}

/// The chart file `name` (a stem of [`files`]) as an SVG document; `None` for an unknown name.
fn svg(runs: &[RunMetrics], name: &str) -> Option<String> {
    let (_, spec, axis) = files().find(|(stem, ..)| stem == name)?;
    let mut out = String::new();
    draw(
        SVGBackend::with_string(&mut out, SIZE).into_drawing_area(),
        &chart(runs, spec, axis),
    )
    .expect("drawing into a string cannot fail");
    Some(out)
}

/// The chart `spec` over `axis` as a PNG file's bytes.
fn png(runs: &[RunMetrics], spec: &Spec, axis: &'static Axis) -> Result<Vec<u8>> {
    let mut rgb = vec![0u8; (SIZE.0 * SIZE.1 * 3) as usize];
    draw(
        BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area(),
        &chart(runs, spec, axis),
    )
    .map_err(|e| PlotError::Data(format!("drawing {}: {e}", spec.id)))?;
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Best);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(&rgb))
        .map_err(|e| PlotError::Data(format!("encoding {}'s PNG: {e}", spec.id)))?;
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
    for (stem, spec, axis) in files() {
        let svg = svg(&metrics, &stem).expect("a listed plot");
        for (ext, bytes) in [
            ("svg", svg.into_bytes()),
            ("png", png(&metrics, spec, axis)?),
        ] {
            let path = out.join(format!("{stem}.{ext}"));
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

    /// The policy loss chart's line carries the fixture's values: one point per iteration, at
    /// heights that are one linear map of the losses.
    #[test]
    fn charts_carry_the_values_they_plot() {
        let m = read_metrics(&fixture()).unwrap();
        let svg = svg(std::slice::from_ref(&m), "policy_loss").unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("Policy loss"));
        let n = m.records.len();
        let lines: Vec<Vec<(f64, f64)>> = polylines(&svg)
            .into_iter()
            .filter(|l| l.len() == n)
            .collect();
        assert_eq!(lines.len(), 1, "the policy loss");
        let values: Vec<f64> = m.records.iter().map(|r| number(r, "policy_loss")).collect();
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
        assert_eq!(files.len(), 2 * super::files().count());
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
            ..RunMetrics::default()
        };
        assert!(
            super::svg(&[none], "gauntlet")
                .unwrap()
                .contains("no gauntlet yet")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
