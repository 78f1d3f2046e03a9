//! `export`: a model file's network in a format other programs run (ONNX).

use anyhow::{Context, Result};
use checkers_zero::files::{check_writable, file_error, write_atomic};
use checkers_zero::net::model_file_to_onnx;
use checkers_zero::nn::{ONNX_INPUT, ONNX_POLICY, ONNX_VALUE};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The model file (a `train` run's best.ckpt or models/iter-NNNN.ckpt, or
    /// models/default.bin, the built-in network); its game is the one the file records.
    model: PathBuf,
    /// Write the network's inference graph as ONNX (opset 17, batch norm folded) to FILE.
    #[arg(long, value_name = "FILE")]
    onnx: PathBuf,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let out = &args.onnx;
    check_writable(out).with_context(|| format!("--onnx {}", out.display()))?;
    let onnx = model_file_to_onnx(&args.model)?;
    write_atomic(out, &onnx.bytes).map_err(file_error("write", out))?;
    println!(
        "{}: {} as ONNX; input {ONNX_INPUT} (batch, {}, 8, 8), outputs {ONNX_POLICY} \
         (batch, {}: logits) and {ONNX_VALUE} (batch)",
        out.display(),
        onnx.model,
        onnx.planes,
        onnx.policy_size
    );
    Ok(())
}
