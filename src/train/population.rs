//! The run loop the population learners (GA, PSO) share: open or resume the run folder, then
//! step by step (a generation, an iteration) save the best network, log the step's report and
//! save the run state, behind a progress bar.

use super::errors::TrainError;
use super::run_dir::{RunDir, RunOptions, open_run};
use crate::net::value_net::ValueNet;
use crate::progress::progress;
use serde::Serialize;
use std::path::Path;

pub trait PopulationTrainer: Sized {
    /// The trainer's name in metrics and on the progress bar ("ga").
    const NAME: &'static str;
    /// What one step is ("generation"); its plural counts them on the bar.
    const STEP: &'static str;
    type Report: Serialize;

    /// Steps done so far (a resumed run's included).
    fn steps(&self) -> u64;
    fn step(&mut self) -> Self::Report;
    /// The network to play, once there is one.
    fn best_net(&self) -> Option<ValueNet>;
    /// The progress bar's message after a step.
    fn summary(report: &Self::Report) -> String;
    fn save(&self, path: &Path) -> Result<(), TrainError>;
    fn load(path: &Path) -> Result<Self, TrainError>;
}

/// Steps until `total` steps are done (counting a resumed run's); returns the run folder and
/// the trainer.
pub fn run<T: PopulationTrainer>(
    new: impl FnOnce() -> Result<T, TrainError>,
    total: u64,
    opts: &RunOptions,
) -> Result<(RunDir, T), TrainError> {
    let (mut dir, mut trainer) = open_run(opts, T::STEP, new, T::load, T::steps)?;
    let unit = format!("{}s", T::STEP);
    let bar = progress(total, trainer.steps(), &unit, opts.progress);
    bar.set_message(format!("train-{}", T::NAME));
    while trainer.steps() < total {
        let report = trainer.step();
        if let Some(net) = trainer.best_net() {
            net.save(&dir.best())?;
        }
        // The checkpoint marks the step done, so it comes after its metrics line.
        dir.log_report(T::NAME, &report)?;
        trainer.save(&dir.state())?;
        bar.set_message(format!("train-{} {}", T::NAME, T::summary(&report)));
        bar.inc(1);
    }
    bar.finish();
    Ok((dir, trainer))
}
