//! `average`: one network whose weights are the mean of several model files'.

use anyhow::{Context, Result};
use checkers_zero::files::{check_writable, file_error, write_atomic};
use checkers_zero::net::average_model_files;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct AverageArgs {
    /// The model files: networks of one model (game, network, encoding), such as a run's
    /// models/iter-NNNN.ckpt from its later iterations (`runs/r/models/iter-00{20..42}.ckpt`).
    #[arg(required = true, num_args = 2.., value_name = "MODEL")]
    models: Vec<PathBuf>,
    /// Write the averaged network's model file here.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub fn run(args: AverageArgs) -> Result<()> {
    let out = &args.out;
    check_writable(out).with_context(|| format!("--out {}", out.display()))?;
    let mean = average_model_files(&args.models)?;
    write_atomic(out, &mean.bytes).map_err(file_error("write", out))?;
    println!("{}: {}", out.display(), mean.description);
    Ok(())
}
