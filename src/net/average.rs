//! The mean of model files' weights (`checkers-zero average`): stochastic weight averaging
//! after the fact. The networks of a run's later iterations, or of runs started from one
//! network, differ mostly by the noise of their last training steps; their mean keeps what
//! they share (in checkers it beat the best of them at equal time: docs/RESULTS.md).

use super::model::{Lineage, ModelFile, NetGame, model_game, read_model_file};
use crate::games::on_game;
use crate::nn::{Checkpoint, CheckpointError, TensorData, read_header};
use std::path::PathBuf;

/// An averaged network: its model file's bytes and what it holds, in words.
pub struct AveragedModel {
    pub bytes: Vec<u8>,
    /// The model and its lineage (the networks it is the mean of).
    pub description: String,
}

/// The mean of the weights (parameters and batch-norm statistics) of the model files at
/// `paths`, for the game the first declares. Every file must hold the same model: game,
/// network and input encoding. Saved optimizers are left out. Errors name the file.
pub fn average_model_files(paths: &[PathBuf]) -> Result<AveragedModel, CheckpointError> {
    let first = paths.first().ok_or_else(|| {
        CheckpointError::Mismatch("no model files to average: expected at least one".into())
    })?;
    on_game!(model_game(&read_header(first)), G => average::<G>(paths))
}

fn average<G: NetGame>(paths: &[PathBuf]) -> Result<AveragedModel, CheckpointError> {
    let files = paths
        .iter()
        .map(|p| read_model_file::<G>(p))
        .collect::<Result<Vec<_>, _>>()?;
    let model = files[0].arch.model.clone();
    for (file, path) in files.iter().zip(paths) {
        let in_file = |error| CheckpointError::InFile {
            path: path.to_owned(),
            error: Box::new(error),
        };
        if file.arch.model != model {
            return Err(in_file(CheckpointError::Architecture {
                file: file.arch.model.to_string(),
                model: format!("{model} (in {})", paths[0].display()),
            }));
        }
        let sizes = |f: &Checkpoint<ModelFile<G>>| -> Vec<Vec<usize>> {
            (f.params.iter().chain(&f.buffers))
                .map(|t| {
                    vec![t.data.len()]
                        .into_iter()
                        .chain(t.shape.clone())
                        .collect()
                })
                .collect()
        };
        if sizes(file) != sizes(&files[0]) {
            return Err(in_file(CheckpointError::Mismatch(format!(
                "its tensors' shapes differ from those of {}",
                paths[0].display()
            ))));
        }
    }
    let lineage = Lineage {
        averaged: files.iter().map(|f| f.arch.lineage.clone()).collect(),
        ..Lineage::default()
    };
    let mean = Checkpoint {
        params: mean_of(&files, |f| &f.params),
        buffers: mean_of(&files, |f| &f.buffers),
        arch: ModelFile { model, lineage },
        optimizer: None,
    };
    Ok(AveragedModel {
        description: mean.arch.to_string(),
        bytes: mean.to_bytes(),
    })
}

/// The element-wise mean of each tensor the files list in the same place (same shapes).
fn mean_of<A>(
    files: &[Checkpoint<A>],
    tensors: impl Fn(&Checkpoint<A>) -> &Vec<TensorData>,
) -> Vec<TensorData> {
    let n = files.len() as f32;
    (0..tensors(&files[0]).len())
        .map(|i| {
            let first = &tensors(&files[0])[i];
            let data = (0..first.data.len())
                .map(|j| files.iter().map(|f| tensors(f)[i].data[j]).sum::<f32>() / n)
                .collect();
            TensorData {
                shape: first.shape.clone(),
                data,
            }
        })
        .collect()
}
