//! The value networks of the classic learners: small MLPs from a board encoding to one tanh
//! value for the side to move. One [`ValueArch`] describes all three (TD, GA, PSO), and is the
//! architecture header of their checkpoints in the common format.

use super::value_model::ValueModel;
use crate::games::checkers::board::row_col;
use crate::games::checkers::{Color, Position};
use crate::nn::{Checkpoint, CheckpointError, Ctx, Linear, Module, Param};
use crate::tensor::{Device, Tensor, Var};
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Which trainer made a network; it names the agent kind that plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Learner {
    Td,
    Ga,
    Pso,
}

impl Learner {
    pub fn kind(self) -> &'static str {
        match self {
            Learner::Td => "td",
            Learner::Ga => "ga",
            Learner::Pso => "pso",
        }
    }
}

/// What the network reads. Both are seen from the side to move (the board rotated half a turn
/// for White), men +-1 and kings +-`king`, own pieces positive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Features {
    /// The 32 playable squares.
    Squares,
    /// The sums over every 3x3 to 8x8 sub-square of the board (36+25+16+9+4+1 = 91), as in
    /// Blondie24 and the Durham study.
    SubSquares,
}

/// The squashing function of a value network's hidden layers (the fused one of a linear
/// layer's inference form is `backend::Activation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HiddenActivation {
    Tanh,
    Sigmoid,
}

/// A value network: features -> hidden layers (`activation`) -> one tanh output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueArch {
    pub learner: Learner,
    pub features: Features,
    pub hidden: Vec<usize>,
    pub activation: HiddenActivation,
    /// A king's input value (a man is 1).
    pub king: f32,
}

impl ValueArch {
    pub fn inputs(&self) -> usize {
        match self.features {
            Features::Squares => 32,
            Features::SubSquares => SUB_SQUARES,
        }
    }
}

impl crate::nn::CheckpointKind for ValueArch {
    const KIND: &'static str = "a TD, GA or PSO value network";
}

impl std::fmt::Display for ValueArch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden: Vec<String> = self.hidden.iter().map(|h| h.to_string()).collect();
        write!(
            f,
            "{} value net ({} inputs, hidden [{}] {:?}, king {})",
            self.learner.kind(),
            self.inputs(),
            hidden.join(", "),
            self.activation,
            self.king
        )
    }
}

const SUB_SQUARES: usize = 91;

/// For each sub-square feature, the playable squares (0-based) inside it.
fn sub_square_masks() -> Vec<u32> {
    let mut masks = Vec::with_capacity(SUB_SQUARES);
    for size in 3..=8u8 {
        for top in 0..=8 - size {
            for left in 0..=8 - size {
                let inside = |sq: &u8| {
                    let (r, c) = row_col(*sq);
                    (top..top + size).contains(&r) && (left..left + size).contains(&c)
                };
                masks.push((0..32u8).filter(inside).fold(0, |m, sq| m | 1 << sq));
            }
        }
    }
    masks
}

#[derive(Clone, Debug)]
pub struct ValueNet {
    arch: ValueArch,
    layers: Vec<Linear>,
    /// Sub-square features only: the squares of each.
    masks: Vec<u32>,
}

impl ValueNet {
    /// A network with PyTorch's default initialisation, on the CPU (these nets are small;
    /// search calls them with a few positions at a time).
    pub fn new(arch: ValueArch, rng: &mut impl Rng) -> ValueNet {
        let mut widths = vec![arch.inputs()];
        widths.extend(&arch.hidden);
        widths.push(1);
        let layers = widths
            .windows(2)
            .map(|w| Linear::new(w[0], w[1], true, &Device::Cpu, rng))
            .collect();
        let masks = match arch.features {
            Features::Squares => Vec::new(),
            Features::SubSquares => sub_square_masks(),
        };
        ValueNet {
            arch,
            layers,
            masks,
        }
    }

    /// A network with the given flat weights (in [`ValueNet::weights`] order).
    pub fn from_weights(arch: ValueArch, weights: &[f32]) -> ValueNet {
        let mut net = ValueNet::new(arch, &mut StdRng::seed_from_u64(0));
        net.set_weights(weights);
        net
    }

    pub fn arch(&self) -> &ValueArch {
        &self.arch
    }

    /// Sets the king's input value (the Blondie24 scheme evolves it).
    pub fn set_king(&mut self, king: f32) {
        self.arch.king = king;
    }

    /// The 32 squares from the side to move: own men +1, own kings +king, the opponent's
    /// negative; White's board is turned half a turn so both sides see themselves alike.
    pub fn board(&self, pos: &Position) -> [f32; 32] {
        let me = pos.turn();
        let mut out = [0.0; 32];
        for sq in 0..32u8 {
            if let Some(piece) = pos.piece_at(sq) {
                let value = if piece.king { self.arch.king } else { 1.0 };
                let sign = if piece.color == me { 1.0 } else { -1.0 };
                let index = if me == Color::Black { sq } else { 31 - sq };
                out[index as usize] = sign * value;
            }
        }
        out
    }

    /// The (rows, columns) of each layer's weight matrix in visit order: the layout
    /// crossover needs to find a hidden unit's incoming weights.
    pub fn layer_shapes(&self) -> Vec<(usize, usize)> {
        let mut widths = vec![self.arch.inputs()];
        widths.extend(&self.arch.hidden);
        widths.push(1);
        widths.windows(2).map(|w| (w[1], w[0])).collect()
    }

    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        Checkpoint::capture(self.arch.clone(), self, None).save(path)
    }

    pub fn load(path: &Path) -> Result<ValueNet, CheckpointError> {
        let ckpt = Checkpoint::<ValueArch>::load(path)?;
        let mut net = ValueNet::new(ckpt.arch.clone(), &mut StdRng::seed_from_u64(0));
        ckpt.restore(&mut net, &ckpt.arch)?;
        Ok(net)
    }
}

impl ValueModel for ValueNet {
    type Input = Position;

    /// The network's input for positions: (n, inputs).
    fn encode(&self, positions: &[Position]) -> Tensor {
        let mut data = Vec::with_capacity(positions.len() * self.arch.inputs());
        for pos in positions {
            let board = self.board(pos);
            match self.arch.features {
                Features::Squares => data.extend_from_slice(&board),
                Features::SubSquares => data.extend(self.masks.iter().map(|&m| {
                    crate::games::checkers::board::Squares(m)
                        .map(|sq| board[sq as usize])
                        .sum::<f32>()
                })),
            }
        }
        Tensor::from_vec(data, &[positions.len(), self.arch.inputs()], &Device::Cpu)
    }
}

impl Module for ValueNet {
    /// Values (n,).
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        let n = x.shape()[0];
        let last = self.layers.len() - 1;
        let mut h = x.clone();
        for (i, layer) in self.layers.iter().enumerate() {
            h = layer.forward(ctx, &h);
            h = match (i == last, self.arch.activation) {
                (true, _) | (false, HiddenActivation::Tanh) => h.tanh(),
                (false, HiddenActivation::Sigmoid) => h.sigmoid(),
            };
        }
        h.reshape(&[n])
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        self.layers.iter().for_each(|l| l.params(f));
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        self.layers.iter_mut().for_each(|l| l.params_mut(f));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_squares_count_and_cover() {
        let masks = sub_square_masks();
        assert_eq!(masks.len(), 91);
        // A 3x3 block holds 4 or 5 dark squares; the whole board all 32.
        assert!(masks[..36].iter().all(|m| matches!(m.count_ones(), 4 | 5)));
        assert_eq!(masks[90], u32::MAX);
    }

    #[test]
    fn both_sides_see_the_start_alike() {
        let arch = ValueArch {
            learner: Learner::Td,
            features: Features::Squares,
            hidden: vec![],
            activation: HiddenActivation::Tanh,
            king: 1.5,
        };
        let net = ValueNet::new(arch, &mut StdRng::seed_from_u64(0));
        let start = Position::start();
        assert_eq!(net.board(&start), net.board(&start.with_turn(Color::White)));
    }
}
