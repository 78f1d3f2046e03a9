//! A training run's curves as charts: `checkers-zero plot` writes them as PNG and SVG, and
//! the browser dashboard serves the same SVG.

use anyhow::Result;
use std::path::{Path, PathBuf};

/// One chart the dashboard and `plot` offer.
pub struct PlotKind {
    /// File stem and URL name, e.g. "loss".
    pub name: &'static str,
    pub title: &'static str,
}

/// The charts, in the order the dashboard shows them.
pub const PLOTS: &[PlotKind] = &[];

/// A run's metrics.jsonl, one record per finished iteration.
pub struct RunMetrics;

/// Reads `run/metrics.jsonl`.
pub fn read_metrics(_run: &Path) -> Result<RunMetrics> {
    anyhow::bail!("not yet")
}

/// The chart `name` (one of [`PLOTS`]) as an SVG document; `None` for an unknown name.
pub fn svg(_metrics: &RunMetrics, _name: &str) -> Option<String> {
    None
}

/// Writes every chart as `out/<name>.svg` and `out/<name>.png`; returns the files written.
pub fn write_plots(_run: &Path, _out: &Path) -> Result<Vec<PathBuf>> {
    anyhow::bail!("not yet")
}
