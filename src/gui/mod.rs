//! `checkers-zero gui`: the browser interface, served by the program itself (docs/gui.md).

use anyhow::Result;
use std::net::SocketAddr;
use std::path::PathBuf;

/// What `checkers-zero gui` was asked for.
#[derive(Clone, Debug)]
pub struct GuiOptions {
    pub addr: SocketAddr,
    pub open: bool,
    pub models: Vec<PathBuf>,
    pub runs: Vec<PathBuf>,
}

pub fn serve(_opts: GuiOptions) -> Result<()> {
    anyhow::bail!("not yet")
}
