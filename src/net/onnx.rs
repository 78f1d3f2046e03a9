//! A model file's network as ONNX (`checkers-zero export MODEL --onnx FILE`): the network's
//! inference graph ([`crate::nn::PolicyValueNet::to_onnx`]) with the game, the input encoding and the
//! lineage in the model's metadata, so that the file says how it is to be fed.

use super::model::{NetGame, model_from_bytes, model_game, parse_file};
use crate::games::on_game;
use crate::nn::CheckpointError;
use crate::tensor::Device;
use std::path::Path;

/// An exported network: the ONNX file's bytes and the model it was made from.
pub struct OnnxModel {
    pub bytes: Vec<u8>,
    /// The model file's record in words: network, game, encoding and lineage.
    pub model: String,
    /// The input's planes and the policy's logits.
    pub planes: usize,
    pub policy_size: usize,
}

/// The network of the model file at `path`, for the game the file declares, as ONNX;
/// errors name the file.
pub fn model_file_to_onnx(path: &Path) -> Result<OnnxModel, CheckpointError> {
    parse_file(
        path,
        |bytes| on_game!(model_game(bytes), G => to_onnx::<G>(bytes)),
    )
}

fn to_onnx<G: NetGame>(bytes: &[u8]) -> Result<OnnxModel, CheckpointError> {
    let ckpt = model_from_bytes::<G>(bytes)?;
    let file = &ckpt.arch;
    let (net, _) = file.model.restore(&ckpt, &Device::Cpu)?;
    let planes = G::planes(&file.model.encoding);
    let metadata = [
        ("game", G::NAME.name().to_string()),
        ("network", file.model.arch.to_string()),
        // As the model file records it (Rust's Debug form of the game's Encoding).
        ("encoding", format!("{:?}", file.model.encoding)),
        ("input_planes", planes.to_string()),
        ("policy_size", G::POLICY_SIZE.to_string()),
        ("lineage", file.lineage.to_string()),
    ];
    Ok(OnnxModel {
        bytes: net.to_onnx(&metadata),
        model: file.to_string(),
        planes,
        policy_size: G::POLICY_SIZE,
    })
}
