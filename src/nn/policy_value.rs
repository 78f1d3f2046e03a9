//! The policy-value network family (built in PyTorch too, by bench/pytorch_reference.py): a
//! 3x3 conv stem, a body of residual (or plain) blocks, a policy head (see [`PolicyHead`]:
//! checkers' 128 logits, 32 dark squares x 4 diagonal directions, or a dense head for any
//! other action space) and a value head giving a value in (-1, 1). A checkers network can
//! instead compute on the dark squares alone ([`Body::Dark`]): the same stem, blocks and heads
//! with each 3x3 conv a dark-square conv (a square and its diagonal neighbours) and each 1x1
//! conv a per-square linear map.

mod export;

pub use export::{ONNX_INPUT, ONNX_POLICY, ONNX_VALUE};

use super::layers::{BoardConv, DarkConv, DarkInput, SQUARES, dark_cells};
use super::{
    BatchNorm2d, Checkpoint, CheckpointError, Conv2d, Ctx, Linear, Module, Optimizer, ResidualBlock,
};
use crate::backend::Activation;
use crate::tensor::{Device, Tensor, Var};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Policy outputs of the dark-square head: 32 dark squares x 4 diagonal directions.
pub const POLICY_SIZE: usize = 128;
const BOARD: usize = 8;
const POLICY_PLANES: usize = 4;
/// Planes before the dense head's linear layer (AlphaGo Zero's policy head has 2).
const DENSE_PLANES: usize = 2;

/// How the policy logits are read off the body. Not part of [`Architecture`] (whose record
/// in checkpoints predates it): the game a model is for decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyHead {
    /// A 1x1 conv to 4 planes, of which the 128 dark-square entries are the logits:
    /// checkers' hops, one per square and diagonal direction, with no extra weights.
    DarkSquares,
    /// A 1x1 conv to 2 planes, then a linear layer to `outputs` logits (AlphaGo Zero's
    /// head): for actions that are not one per cell and direction, like Othello's 64
    /// squares and a pass.
    Dense { outputs: usize },
}

impl PolicyHead {
    /// Number of logits.
    pub fn outputs(self) -> usize {
        match self {
            PolicyHead::DarkSquares => POLICY_SIZE,
            PolicyHead::Dense { outputs } => outputs,
        }
    }
}

/// What a checkpoint records to rebuild a network.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Architecture {
    pub name: String,
    pub input_planes: usize,
    pub channels: usize,
    /// Residual blocks after the stem; for a plain network, conv layers including the stem.
    pub blocks: usize,
    pub body: Body,
    /// Planes of the value head's 1x1 conv, which its MLP reads (AlphaZero's head has 1).
    pub value_planes: usize,
    /// Outputs of the auxiliary head on the value MLP's hidden layer, each in (-1, 1) (0:
    /// none). Training alone reads it: inference, play and ONNX export leave it out.
    pub aux: usize,
}

/// An architecture as checkpoints of format version 2 and before stored it: one value plane.
#[derive(Deserialize)]
struct ArchitectureV2 {
    name: String,
    input_planes: usize,
    channels: usize,
    blocks: usize,
    body: Body,
}

/// An architecture as checkpoints of format versions 3 and 4 stored it: no auxiliary head.
/// bincode writes a struct's fields one after another, so today's layout reads as this one
/// followed by `aux`.
#[derive(Deserialize)]
struct ArchitectureV4 {
    name: String,
    input_planes: usize,
    channels: usize,
    blocks: usize,
    body: Body,
    value_planes: usize,
}

/// Reads the layout of the checkpoint being decoded (bincode cannot tell them apart).
impl<'de> Deserialize<'de> for Architecture {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Architecture, D::Error> {
        use super::checkpoint::{NO_AHEAD_VERSION, ONE_VALUE_PLANE_VERSION, decoding_version};
        let version = decoding_version();
        let (old, aux) = if version > NO_AHEAD_VERSION {
            <(ArchitectureV4, usize)>::deserialize(d)?
        } else if version > ONE_VALUE_PLANE_VERSION {
            (ArchitectureV4::deserialize(d)?, 0)
        } else {
            let old = ArchitectureV2::deserialize(d)?;
            let old = ArchitectureV4 {
                name: old.name,
                input_planes: old.input_planes,
                channels: old.channels,
                blocks: old.blocks,
                body: old.body,
                value_planes: 1,
            };
            (old, 0)
        };
        Ok(Architecture {
            name: old.name,
            input_planes: old.input_planes,
            channels: old.channels,
            blocks: old.blocks,
            body: old.body,
            value_planes: old.value_planes,
            aux,
        })
    }
}

/// What a network's body is made of. Checkpoints store it as one byte (bincode writes a unit
/// variant as its index): `Plain` and `Residual` are the bytes 0 and 1 of the `residual`
/// flag it replaced, so older checkpoints read as they are. Keep the order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// Plain 3x3 conv layers over the 8x8 board.
    Plain,
    /// Residual blocks of 3x3 convs over the 8x8 board.
    Residual,
    /// Residual blocks over checkers' 32 dark squares (the dark-square policy head only).
    Dark,
}

crate::names::named_enum! {
    /// The networks a run or a benchmark names (as PRESETS in bench/pytorch_reference.py).
    pub enum NetPreset {
        /// 8 input planes, 32 channels, 4 residual blocks.
        AzTiny = "az-tiny",
        /// 8 input planes, 64 channels, 6 residual blocks.
        AzSmall = "az-small",
        /// 8 input planes, 128 channels, 10 residual blocks.
        AzLarge = "az-large",
        /// 14 input planes, 7 plain conv layers of 128 channels.
        Plain7x128 = "plain-7x128",
        /// 8 input planes, 32 channels, 4 residual blocks on the dark squares (checkers).
        DarkTiny = "dark-tiny",
        /// 8 input planes, 64 channels, 6 residual blocks on the dark squares (checkers).
        DarkSmall = "dark-small",
    }
}
crate::names::serde_as_text!(NetPreset);

impl Architecture {
    pub fn preset(preset: NetPreset) -> Architecture {
        let (input_planes, channels, blocks, body) = match preset {
            NetPreset::AzTiny => (8, 32, 4, Body::Residual),
            NetPreset::AzSmall => (8, 64, 6, Body::Residual),
            NetPreset::AzLarge => (8, 128, 10, Body::Residual),
            NetPreset::Plain7x128 => (14, 128, 7, Body::Plain),
            NetPreset::DarkTiny => (8, 32, 4, Body::Dark),
            NetPreset::DarkSmall => (8, 64, 6, Body::Dark),
        };
        Architecture {
            name: preset.name().to_string(),
            input_planes,
            channels,
            blocks,
            body,
            value_planes: 1,
            aux: 0,
        }
    }

    /// The same network reading another number of input planes.
    pub fn with_input_planes(self, input_planes: usize) -> Architecture {
        Architecture {
            input_planes,
            ..self
        }
    }

    /// The same network with another number of value planes.
    pub fn with_value_planes(self, value_planes: usize) -> Architecture {
        Architecture {
            value_planes,
            ..self
        }
    }

    /// The same network with an auxiliary head of `aux` outputs (0: none).
    pub fn with_aux(self, aux: usize) -> Architecture {
        Architecture { aux, ..self }
    }

    /// Whether `self` is `other` with at least as many value planes, with or without an
    /// auxiliary head: what [`PolicyValueNet::widen_value_head`] and
    /// [`PolicyValueNet::with_aux`] make of `other`.
    pub fn widens(&self, other: &Architecture) -> bool {
        *self
            == (other.clone())
                .with_value_planes(self.value_planes)
                .with_aux(self.aux)
            && self.value_planes >= other.value_planes
    }

    /// Why no network of this architecture with policy head `head` can be built, if none can.
    fn fault(&self, head: PolicyHead) -> Option<String> {
        if self.input_planes == 0
            || self.channels == 0
            || self.blocks == 0
            || self.value_planes == 0
        {
            return Some(format!("empty architecture {self}"));
        }
        (self.body == Body::Dark && head != PolicyHead::DarkSquares)
            .then(|| format!("{self} needs the dark-square policy head"))
    }

    /// A lower bound on the parameters of this architecture's network, found without building
    /// it (saturating): its stem's, body's and value head's weights each hold at least their
    /// inputs times their outputs.
    fn fewest_params(&self) -> usize {
        let stem = self.input_planes.saturating_mul(self.channels);
        let block = self.channels.saturating_mul(self.channels);
        let body = self.body_blocks().saturating_mul(block);
        let value = self
            .value_planes
            .saturating_mul(self.cells())
            .saturating_mul(64);
        let aux = self.aux.saturating_mul(64);
        stem.saturating_add(body)
            .saturating_add(value)
            .saturating_add(aux)
    }

    /// The cells the body computes on: the dark squares or the whole board.
    fn cells(&self) -> usize {
        match self.body {
            Body::Dark => SQUARES,
            Body::Plain | Body::Residual => BOARD * BOARD,
        }
    }

    /// Blocks in the body: a plain network's stem is one of its conv layers.
    fn body_blocks(&self) -> usize {
        match self.body {
            Body::Residual | Body::Dark => self.blocks,
            Body::Plain => self.blocks.saturating_sub(1),
        }
    }
}

impl crate::nn::CheckpointKind for Architecture {
    const KIND: &'static str = "a policy-value network";
}

impl std::fmt::Display for Architecture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.body {
            Body::Residual => "residual blocks",
            Body::Plain => "plain conv layers",
            Body::Dark => "residual blocks on the dark squares",
        };
        write!(
            f,
            "{} ({} input planes, {} channels, {} {kind}",
            self.name, self.input_planes, self.channels, self.blocks
        )?;
        if self.value_planes != 1 {
            write!(f, ", {} value planes", self.value_planes)?;
        }
        match self.aux {
            0 => f.write_str(")"),
            aux => write!(f, ", {aux} auxiliary outputs)"),
        }
    }
}

/// Flat indices into the policy conv's (4, 8, 8) output of the 128 dark-square entries, in the
/// order of torch's boolean mask `mask[:, r, col] = (r + col) % 2 == 1` applied to the flattened
/// output: plane-major, then row, then column.
pub fn dark_square_index() -> Vec<u32> {
    (0..POLICY_PLANES)
        .flat_map(|plane| dark_cells().map(move |cell| (plane * BOARD * BOARD + cell) as u32))
        .collect()
}

#[derive(Clone, Debug)]
pub struct PolicyValueNet {
    arch: Architecture,
    head: PolicyHead,
    stem: BoardConv,
    stem_bn: BatchNorm2d,
    body: Vec<ResidualBlock>,
    policy: BoardConv,
    /// The dense head's linear layer (none for the dark-square head).
    policy_fc: Option<Linear>,
    value_conv: BoardConv,
    value_bn: BatchNorm2d,
    value_fc1: Linear,
    value_fc2: Linear,
    /// The auxiliary head, on the value MLP's hidden layer (`arch.aux` outputs).
    aux: Option<Linear>,
    /// Where the dark-square head's logits are, in policy order (direction-major, then
    /// square), in the 8x8 policy conv's output flattened per position.
    dark: Option<Vec<u32>>,
}

impl PolicyValueNet {
    /// A freshly initialised network with the dark-square (checkers) head, in training mode.
    pub fn new(arch: Architecture, device: &Device, rng: &mut impl Rng) -> PolicyValueNet {
        PolicyValueNet::with_head(arch, PolicyHead::DarkSquares, device, rng)
    }

    /// A freshly initialised network with the given policy head, in training mode.
    pub fn with_head(
        arch: Architecture,
        head: PolicyHead,
        device: &Device,
        rng: &mut impl Rng,
    ) -> PolicyValueNet {
        if let Some(fault) = arch.fault(head) {
            panic!("{fault}");
        }
        let c = arch.channels;
        // Layers in the order of the network's parameters (the checkpoint's order).
        let (stem, body): (BoardConv, Vec<ResidualBlock>) = if arch.body == Body::Dark {
            let input = DarkInput::Planes(arch.input_planes);
            let stem = BoardConv::Dark(DarkConv::new(input, c, true, false, device, rng));
            let body = (0..arch.body_blocks())
                .map(|_| ResidualBlock::dark(c, device, rng))
                .collect();
            (stem, body)
        } else {
            let stem = Conv2d::new(arch.input_planes, c, 3, 1, false, device, rng);
            let residual = arch.body == Body::Residual;
            let body = (0..arch.body_blocks())
                .map(|_| ResidualBlock::new(c, residual, device, rng))
                .collect();
            (BoardConv::Grid(stem), body)
        };
        let stem_bn = BatchNorm2d::new(c, device);
        // A 1x1 conv over the body's cells, with or without bias.
        let pointwise = |c_out: usize, bias: bool, mut rng: &mut dyn rand::RngCore| match arch.body
        {
            Body::Dark => {
                let input = DarkInput::Squares(c);
                BoardConv::Dark(DarkConv::new(input, c_out, false, bias, device, &mut rng))
            }
            Body::Plain | Body::Residual => {
                BoardConv::Grid(Conv2d::new(c, c_out, 1, 0, bias, device, &mut rng))
            }
        };
        let (policy, policy_fc) = match head {
            PolicyHead::DarkSquares => (pointwise(POLICY_PLANES, true, rng), None),
            PolicyHead::Dense { outputs } => {
                let conv = pointwise(DENSE_PLANES, true, rng);
                let fc = Linear::new(DENSE_PLANES * BOARD * BOARD, outputs, true, device, rng);
                (conv, Some(fc))
            }
        };
        let value_conv = pointwise(arch.value_planes, false, rng);
        let value_bn = BatchNorm2d::new(arch.value_planes, device);
        let value_fc1 = Linear::new(arch.value_planes * arch.cells(), 64, true, device, rng);
        // The dark-square body's policy is already (direction, square), the policy's order.
        let dark = (arch.body != Body::Dark).then(dark_square_index);
        let value_fc2 = Linear::new(64, 1, true, device, rng);
        let aux = (arch.aux > 0).then(|| Linear::new(64, arch.aux, true, device, rng));
        PolicyValueNet {
            arch,
            head,
            stem,
            stem_bn,
            body,
            policy,
            policy_fc,
            value_conv,
            value_bn,
            value_fc1,
            value_fc2,
            aux,
            dark,
        }
    }

    pub fn arch(&self) -> &Architecture {
        &self.arch
    }

    pub fn head(&self) -> PolicyHead {
        self.head
    }

    /// Inference (nothing recorded) in the network's current mode — evaluation mode for a
    /// network that serves self-play: input (n, planes, 8, 8) -> (move probabilities (n, 128),
    /// values (n)) — 128 for the dark-square head.
    pub fn predict(&self, x: &Tensor) -> (Tensor, Tensor) {
        let (logits, value) = self.forward(&Ctx::inference(), &Var::constant(x.clone()));
        (logits.value().softmax(-1), value.into_value())
    }

    /// Writes a checkpoint of the network (and its optimizer).
    pub fn save(&self, path: &Path, optimizer: Option<&Optimizer>) -> Result<(), CheckpointError> {
        Checkpoint::capture(self.arch.clone(), self, optimizer).save(path)
    }

    /// Rebuilds a network with the dark-square head (in training mode) and its saved
    /// optimizer, if any, from a checkpoint.
    pub fn load(
        path: &Path,
        device: &Device,
    ) -> Result<(PolicyValueNet, Option<Optimizer>), CheckpointError> {
        let ckpt = Checkpoint::<Architecture>::load(path)?;
        PolicyValueNet::from_checkpoint(&ckpt.arch, PolicyHead::DarkSquares, &ckpt, device)
    }

    /// Rebuilds a network of architecture `arch` and policy head `head` (in training mode)
    /// and its saved optimizer, if any, from a checkpoint whose architecture record is
    /// `ckpt.arch` (an [`Architecture`] or a record that contains one).
    pub fn from_checkpoint<A>(
        arch: &Architecture,
        head: PolicyHead,
        ckpt: &Checkpoint<A>,
        device: &Device,
    ) -> Result<(PolicyValueNet, Option<Optimizer>), CheckpointError>
    where
        A: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Display,
    {
        // A damaged record must not build a network, or one larger than the file's.
        if let Some(fault) = arch.fault(head) {
            return Err(CheckpointError::Damaged(fault));
        }
        let saved: usize = ckpt.params.iter().map(|t| t.data.len()).sum();
        if arch.fewest_params() > saved {
            return Err(CheckpointError::Damaged(format!(
                "{arch} has more parameters than the {saved} the file holds"
            )));
        }
        // The initial values are overwritten; any seed does.
        let mut net =
            PolicyValueNet::with_head(arch.clone(), head, device, &mut StdRng::seed_from_u64(0));
        ckpt.restore(&mut net, &ckpt.arch)?;
        let optimizer = ckpt.optimizer(&net)?;
        Ok((net, optimizer))
    }

    /// This network with `planes` value planes, at least as many as it has. The new planes'
    /// conv starts random and their weights into the value MLP at zero, so the wider network
    /// computes exactly what this one does and training finds a use for them (Net2Net's
    /// function-preserving widening). Every other weight and statistic is copied; the new
    /// network is in training mode.
    pub fn widen_value_head(&self, planes: usize, rng: &mut impl Rng) -> PolicyValueNet {
        assert!(
            planes >= self.arch.value_planes,
            "{} cannot narrow to {planes} value planes",
            self.arch
        );
        let mut params = Vec::new();
        self.params(&mut |p| params.push(p.value().clone()));
        let device = params[0].device();
        let arch = self.arch.clone().with_value_planes(planes);
        let mut wide = PolicyValueNet::with_head(arch, self.head, &device, rng);
        let mut zero_weight = true; // the MLP's weight comes before its bias
        wide.value_fc1.params_mut(&mut |p| {
            if std::mem::take(&mut zero_weight) {
                p.set(Tensor::zeros(p.shape(), &device));
            }
        });
        let mut params = params.into_iter();
        wide.params_mut(&mut |p| p.set(embed(&params.next().expect("same layers"), p.value())));
        let mut buffers = Vec::new();
        self.buffers(&mut |t| buffers.push(t.clone()));
        let mut buffers = buffers.into_iter();
        wide.buffers_mut(&mut |t| *t = embed(&buffers.next().expect("same layers"), t));
        wide
    }

    /// This network with an auxiliary head of `aux` outputs (0: none): a fresh head where it
    /// had none or another size, its own where it has that one. The head is the last layer
    /// and feeds nothing else, so every other weight and statistic is copied and the policy
    /// and value are unchanged; the new network is in training mode.
    pub fn with_aux(&self, aux: usize, rng: &mut impl Rng) -> PolicyValueNet {
        if aux == self.arch.aux {
            let mut same = self.clone();
            same.set_train(true);
            return same;
        }
        let mut params = Vec::new();
        self.params(&mut |p| params.push(p.value().clone()));
        let mut head = 0;
        if let Some(layer) = &self.aux {
            layer.params(&mut |_| head += 1);
        }
        // The head's tensors are the last; the rest are the same layers in both networks.
        params.truncate(params.len() - head);
        let device = params[0].device();
        let arch = self.arch.clone().with_aux(aux);
        let mut out = PolicyValueNet::with_head(arch, self.head, &device, rng);
        let mut params = params.into_iter();
        out.params_mut(&mut |p| {
            if let Some(value) = params.next() {
                p.set(value);
            }
        });
        let mut buffers = Vec::new();
        self.buffers(&mut |t| buffers.push(t.clone()));
        let mut buffers = buffers.into_iter();
        out.buffers_mut(&mut |t| *t = buffers.next().expect("same layers"));
        out
    }

    /// The policy logits (n, head outputs), the value (n) and, with `with_aux` where the
    /// network has the head, the auxiliary outputs (n, `arch.aux`): training's forward.
    pub fn forward_aux(&self, ctx: &Ctx, x: &Var) -> (Var, Var, Option<Var>) {
        self.outputs(ctx, x, true)
    }

    fn outputs(&self, ctx: &Ctx, x: &Var, with_aux: bool) -> (Var, Var, Option<Var>) {
        let [n, planes, h, w] = *x.shape() else {
            panic!("the network takes (n, planes, 8, 8), got {:?}", x.shape())
        };
        assert!(
            planes == self.arch.input_planes && h == BOARD && w == BOARD,
            "{} takes (n, {}, 8, 8), got {:?}",
            self.arch.name,
            self.arch.input_planes,
            x.shape()
        );
        let stem = self.stem.forward_bn(ctx, &self.stem_bn, x, None, true);
        let h = self
            .body
            .iter()
            .fold(stem, |h, block| block.forward(ctx, &h));
        let p = self.policy.forward(ctx, &h);
        let logits = match &self.policy_fc {
            None => {
                let p = p.reshape(&[n, p.value().numel() / n]);
                match &self.dark {
                    Some(dark) => p.gather_cols(dark),
                    None => p,
                }
            }
            // A ReLU between, as in AlphaGo Zero's head: without it conv and linear would
            // compose to one linear map of the body's output.
            Some(fc) => fc.forward(ctx, &p.reshape(&[n, DENSE_PLANES * BOARD * BOARD]).relu()),
        };
        let v = self
            .value_conv
            .forward_bn(ctx, &self.value_bn, &h, None, true);
        let v = v.reshape(&[n, v.value().numel() / n]);
        let hidden = self.value_fc1.forward_act(ctx, &v, Some(Activation::Relu));
        let v = self
            .value_fc2
            .forward_act(ctx, &hidden, Some(Activation::Tanh))
            .reshape(&[n]);
        let aux = (self.aux.as_ref())
            .filter(|_| with_aux)
            .map(|head| head.forward_act(ctx, &hidden, Some(Activation::Tanh)));
        (logits, v, aux)
    }

    /// The layers in visit order (torch's `named_parameters` order).
    fn parts(&self) -> impl Iterator<Item = &dyn Module<Output = Var>> {
        let head: [&dyn Module<Output = Var>; 2] = [&self.stem, &self.stem_bn];
        let tail: [&dyn Module<Output = Var>; 4] = [
            &self.value_conv,
            &self.value_bn,
            &self.value_fc1,
            &self.value_fc2,
        ];
        head.into_iter()
            .chain(self.body.iter().map(|b| b as &dyn Module<Output = Var>))
            .chain([&self.policy as &dyn Module<Output = Var>])
            .chain(
                self.policy_fc
                    .iter()
                    .map(|l| l as &dyn Module<Output = Var>),
            )
            .chain(tail)
            .chain(self.aux.iter().map(|l| l as &dyn Module<Output = Var>))
    }

    fn parts_mut(&mut self) -> impl Iterator<Item = &mut dyn Module<Output = Var>> {
        let head: [&mut dyn Module<Output = Var>; 2] = [&mut self.stem, &mut self.stem_bn];
        let tail: [&mut dyn Module<Output = Var>; 4] = [
            &mut self.value_conv,
            &mut self.value_bn,
            &mut self.value_fc1,
            &mut self.value_fc2,
        ];
        head.into_iter()
            .chain(
                self.body
                    .iter_mut()
                    .map(|b| b as &mut dyn Module<Output = Var>),
            )
            .chain([&mut self.policy as &mut dyn Module<Output = Var>])
            .chain(
                self.policy_fc
                    .iter_mut()
                    .map(|l| l as &mut dyn Module<Output = Var>),
            )
            .chain(tail)
            .chain(
                self.aux
                    .iter_mut()
                    .map(|l| l as &mut dyn Module<Output = Var>),
            )
    }
}

/// `small` written over the front of `big` (from index 0 on every axis), the rest of `big`
/// kept: a layer's weights in the same layer with more outputs or inputs.
fn embed(small: &Tensor, big: &Tensor) -> Tensor {
    let (from, to) = (small.shape(), big.shape());
    assert!(
        from.len() == to.len() && from.iter().zip(to).all(|(a, b)| a <= b),
        "{from:?} does not fit in {to:?}"
    );
    let mut out = big.to_vec();
    let values = small.to_vec();
    // Each value's index along every axis is its index in `small`; its offset in `big` uses
    // `big`'s strides.
    for (i, &v) in values.iter().enumerate() {
        let (mut rest, mut at, mut stride) = (i, 0, 1);
        for (&n, &m) in from.iter().zip(to).rev() {
            at += (rest % n) * stride;
            rest /= n;
            stride *= m;
        }
        out[at] = v;
    }
    Tensor::from_vec(out, to, &big.device())
}

impl Module for PolicyValueNet {
    /// (policy logits (n, head outputs), value (n))
    type Output = (Var, Var);

    fn forward(&self, ctx: &Ctx, x: &Var) -> (Var, Var) {
        let (logits, value, _) = self.outputs(ctx, x, false);
        (logits, value)
    }

    crate::nn::module::visit_parts!();
}

#[cfg(test)]
mod tests {
    use super::{Architecture, Body, NetPreset, PolicyHead, PolicyValueNet};
    use crate::nn::{Checkpoint, CheckpointError};
    use crate::tensor::Device;
    use rand::{SeedableRng, rngs::StdRng};

    /// bincode's standard encoding, as checkpoints write it.
    fn bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
        bincode::serde::encode_to_vec(value, bincode::config::standard()).unwrap()
    }

    #[test]
    fn the_body_is_stored_as_the_residual_flag_was() {
        assert_eq!(bytes(&false), bytes(&Body::Plain));
        assert_eq!(bytes(&true), bytes(&Body::Residual));
        assert_eq!(bytes(&Body::Dark), [2]);
    }

    /// A checkpoint whose architecture record is damaged (an empty layer, a head it cannot
    /// have, or more channels, blocks or planes than its saved parameters hold) is refused
    /// before a network of that shape is built.
    #[test]
    fn a_damaged_architecture_is_refused_before_a_network_is_built() {
        let arch = Architecture::preset(NetPreset::DarkTiny);
        let net = PolicyValueNet::new(arch.clone(), &Device::Cpu, &mut StdRng::seed_from_u64(1));
        let restore = |arch: &Architecture, head: PolicyHead| {
            let ckpt = Checkpoint::capture(arch.clone(), &net, None);
            PolicyValueNet::from_checkpoint(arch, head, &ckpt, &Device::Cpu).map(|_| ())
        };
        restore(&arch, PolicyHead::DarkSquares).expect("the sound record restores");
        let damaged = [
            (arch.clone().with_input_planes(0), PolicyHead::DarkSquares),
            (arch.clone(), PolicyHead::Dense { outputs: 65 }),
            (
                Architecture {
                    channels: 1 << 40,
                    ..arch.clone()
                },
                PolicyHead::DarkSquares,
            ),
            (
                Architecture {
                    blocks: usize::MAX,
                    ..arch.clone()
                },
                PolicyHead::DarkSquares,
            ),
            (
                arch.clone().with_value_planes(1 << 20),
                PolicyHead::DarkSquares,
            ),
        ];
        for (record, head) in damaged {
            match restore(&record, head) {
                Err(CheckpointError::Damaged(_)) => {}
                other => panic!("{record} with {head:?}: {other:?}"),
            }
        }
    }
}
