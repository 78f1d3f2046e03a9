//! The charts of a training run, declared once: `checkers-zero plot` draws each into files
//! and the dashboard fetches the list (`GET /api/charts`) and draws the same charts
//! interactively. A chart's lines name the fields of the run's metrics lines they read, so
//! both draw them by the same rule: a metric is `field / per * scale` of each line (`per`
//! where given); an opponents chart is one line per gauntlet opponent, at `field`, with its
//! 95% interval from `field_low` and `field_high`.

use serde::Serialize;

/// What a chart's x axis counts: `field * scale` of each line.
#[derive(Serialize, Debug, PartialEq)]
pub struct Axis {
    pub id: &'static str,
    pub label: &'static str,
    /// The metrics field it reads, and the factor to its unit.
    pub field: &'static str,
    pub scale: f64,
    /// Whether its values are whole numbers (iterations).
    pub whole: bool,
    /// Said of runs that lack the field (older builds): "CPU times (...)".
    pub missing: Option<&'static str>,
    /// The end of `plot`'s file names for a chart over this axis.
    #[serde(skip)]
    pub suffix: &'static str,
}

pub const ITERATION: Axis = Axis {
    id: "iteration",
    label: "iteration",
    field: "iteration",
    scale: 1.0,
    whole: true,
    missing: None,
    suffix: "",
};

/// Wall-clock hours of training, over every resumed process of the run.
pub const HOURS: Axis = Axis {
    id: "hours",
    label: "hours of training",
    field: "elapsed_s",
    scale: 1.0 / 3600.0,
    whole: false,
    missing: None,
    suffix: "_hours",
};

/// CPU hours: the trainer's threads together, so the work done on a shared machine.
pub const CPU_HOURS: Axis = Axis {
    id: "cpu_hours",
    label: "CPU hours of training (all threads)",
    field: "cpu_s",
    scale: 1.0 / 3600.0,
    whole: false,
    missing: Some("CPU times (runs of older builds lack them)"),
    suffix: "_cpu_hours",
};

/// The axes, in the order the dashboard offers them.
pub const AXES: &[&Axis] = &[&ITERATION, &HOURS, &CPU_HOURS];

/// One chart; see the module.
#[derive(Serialize, Debug)]
pub struct Chart {
    /// `plot`'s file stem (before the axis suffix) and the page's element id.
    pub id: &'static str,
    pub title: &'static str,
    pub y_label: &'static str,
    pub lines: Lines,
    /// A fixed y range (scores); else from the data.
    pub y_range: Option<(f64, f64)>,
    pub reference: Option<Reference>,
    /// What is missing when there is nothing to draw ("no gauntlet"), and how to get it.
    pub nothing: &'static str,
    pub how: &'static str,
    /// The axes `plot` writes a file for (the dashboard offers every axis).
    #[serde(skip)]
    pub files: &'static [&'static Axis],
}

/// What a chart's lines are made of.
#[derive(Serialize, Debug)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Lines {
    /// One line per metric of the iterations' lines.
    Metrics { metrics: &'static [Metric] },
    /// One line per gauntlet opponent (`gauntlet` in each line of `source`).
    Opponents { source: Source, field: &'static str },
}

/// Where an opponents chart's lines come from.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The in-run gauntlet, in the metrics lines.
    Metrics,
    /// The learning curve played afterwards (`checkers-zero curve`), in its own file.
    Curve,
}

/// One line of a metrics chart: `field / per * scale` of each iteration's line.
#[derive(Serialize, Debug)]
pub struct Metric {
    /// Its name in the legend (none where the chart draws one metric).
    pub name: Option<&'static str>,
    pub field: &'static str,
    pub per: Option<&'static str>,
    pub scale: f64,
}

/// A horizontal line drawn across a chart.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Reference {
    /// Level play (a score of one half, an Elo difference of zero).
    Level(f64),
    /// The run's gating threshold (its config's `threshold`), where the runs drawn agree.
    Threshold,
}

const fn metric(field: &'static str) -> Metric {
    Metric {
        name: None,
        field,
        per: None,
        scale: 1.0,
    }
}

const SCORE: &str = "score (win 1, draw 1/2), 95% interval";

/// A chart of metrics by iteration, its range from the data, no reference line.
const fn by_iteration(
    id: &'static str,
    title: &'static str,
    y_label: &'static str,
    metrics: &'static [Metric],
) -> Chart {
    Chart {
        id,
        title,
        y_label,
        lines: Lines::Metrics { metrics },
        y_range: None,
        reference: None,
        nothing: "no iterations",
        how: "checkers-zero train",
        files: &[&ITERATION],
    }
}

/// The charts, in the order they are shown.
pub const CHARTS: &[Chart] = &[
    by_iteration(
        "policy_loss",
        "Policy loss (cross-entropy)",
        "loss per sample",
        &[metric("policy_loss")],
    ),
    by_iteration(
        "value_loss",
        "Value loss (squared error)",
        "loss per sample",
        &[metric("value_loss")],
    ),
    Chart {
        id: "gauntlet",
        title: "Gauntlet: the best network against fixed opponents",
        y_label: SCORE,
        lines: Lines::Opponents {
            source: Source::Metrics,
            field: "score",
        },
        y_range: Some((0.0, 1.0)),
        reference: Some(Reference::Level(0.5)),
        nothing: "no gauntlet",
        how: "train --gauntlet-every N",
        files: AXES,
    },
    Chart {
        id: "curve",
        title: "Learning curve: the best networks, played afterwards",
        y_label: SCORE,
        lines: Lines::Opponents {
            source: Source::Curve,
            field: "score",
        },
        y_range: Some((0.0, 1.0)),
        reference: Some(Reference::Level(0.5)),
        nothing: "no curve",
        how: "checkers-zero curve RUN",
        files: &[&HOURS, &CPU_HOURS],
    },
    Chart {
        id: "elo",
        title: "Elo difference to each gauntlet opponent",
        y_label: "Elo difference, 95% interval",
        lines: Lines::Opponents {
            source: Source::Metrics,
            field: "elo",
        },
        y_range: None,
        reference: Some(Reference::Level(0.0)),
        nothing: "no finite Elo",
        how: "train --gauntlet-every N",
        files: &[&ITERATION, &HOURS],
    },
    Chart {
        y_range: Some((0.0, 1.0)),
        reference: Some(Reference::Threshold),
        nothing: "no gating",
        how: "train --gating-games N; without it every network is promoted",
        ..by_iteration(
            "gating",
            "Gating: each new network against the best",
            "score against the best",
            &[metric("gating_score")],
        )
    },
    by_iteration("lr", "Learning rate", "learning rate", &[metric("lr")]),
    by_iteration(
        "games",
        "Self-play games per hour",
        "games per hour",
        &[Metric {
            name: None,
            field: "games",
            per: Some("selfplay_s"),
            scale: 3600.0,
        }],
    ),
    by_iteration(
        "simulations",
        "Self-play simulations per second",
        "simulations per second",
        &[metric("simulations_per_s")],
    ),
    by_iteration(
        "length",
        "Mean self-play game length",
        "plies per game",
        &[metric("mean_plies")],
    ),
];

impl Chart {
    /// What a chart over `axis` says when it has nothing to draw.
    pub fn empty(&self, axis: &Axis) -> String {
        match axis.missing {
            Some(what) => format!("{} with {what}", self.nothing),
            None => format!("{} yet ({})", self.nothing, self.how),
        }
    }
}

/// The list as the dashboard fetches it, each chart with what it says when empty over
/// each axis (`empty`, by axis id).
pub fn served() -> serde_json::Value {
    let charts: Vec<serde_json::Value> = CHARTS
        .iter()
        .map(|chart| {
            let mut value = serde_json::to_value(chart).expect("plain data");
            let empty: serde_json::Map<String, serde_json::Value> = (AXES.iter())
                .map(|axis| (axis.id.to_string(), chart.empty(axis).into()))
                .collect();
            value["empty"] = empty.into();
            value
        })
        .collect();
    serde_json::json!({ "axes": AXES, "charts": charts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_each_chart_writes_a_file() {
        let mut ids: Vec<&str> = CHARTS.iter().map(|c| c.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), CHARTS.len());
        assert!(CHARTS.iter().all(|c| !c.files.is_empty()));
        let served = served();
        assert_eq!(served["charts"].as_array().unwrap().len(), CHARTS.len());
        assert_eq!(served["charts"][2]["lines"]["kind"], "opponents");
        assert_eq!(served["charts"][5]["reference"], "threshold");
        assert_eq!(served["charts"][2]["reference"]["level"], 0.5);
        assert_eq!(
            served["charts"][2]["empty"]["cpu_hours"],
            "no gauntlet with CPU times (runs of older builds lack them)"
        );
        assert_eq!(served["axes"][2]["field"], "cpu_s");
    }
}
