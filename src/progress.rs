//! The progress bar of all long work: the trainers, matches, perft.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar on stderr over `len` steps named `unit`, starting at `done`; hidden unless `show`.
pub fn progress(len: u64, done: u64, unit: &str, show: bool) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if !show {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{eta}} left)"
        ))
        .expect("static template")
        .progress_chars("=> "),
    );
    bar.set_position(done);
    bar
}
