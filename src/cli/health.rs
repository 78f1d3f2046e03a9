//! The `health` subcommand: a container's health check of its long-running command.

use anyhow::{Result, bail};
use checkers_zero::health::{FILE_VARIABLE, check};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct HealthArgs {
    /// The file the command keeps fresh.
    #[arg(long, env = FILE_VARIABLE, value_name = "FILE")]
    file: PathBuf,
}

/// Prints how the command is and succeeds when it is well; fails with why it is not.
pub fn run(a: HealthArgs) -> Result<()> {
    match check(&a.file, std::time::SystemTime::now()) {
        Ok(line) => {
            println!("{line}");
            Ok(())
        }
        Err(why) => bail!("unhealthy: {why}"),
    }
}
