//! Othello's value networks for the TD learner and the `td` agent, both reading a position
//! from the side to move: the reference's informed tower network ([`super::towers`]), or a
//! plain fully connected network over the 64 cells (+1 own disc, -1 the opponent's, 0 empty),
//! the baseline the towers are measured against.

use super::towers::{Discs, TowerArch, TowerNet};
use super::value_model::ValueModel;
use crate::games::othello::Position;
use crate::nn::{Checkpoint, CheckpointError, Ctx, Linear, Module, Param};
use crate::tensor::{Device, Tensor, Var};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};
use std::path::Path;

const CELLS: usize = 64;

/// Which Othello value network, with its sizes; the architecture record of its checkpoints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum OthelloValueArch {
    Towers(TowerArch),
    /// Hidden layer widths of the plain network, each followed by tanh.
    Plain {
        hidden: Vec<usize>,
    },
}

impl OthelloValueArch {
    /// Why a network of these sizes cannot be built, if it cannot.
    fn check(&self) -> Result<(), String> {
        match self {
            OthelloValueArch::Towers(arch) => arch.check(),
            OthelloValueArch::Plain { hidden } if hidden.contains(&0) => {
                Err(format!("a plain value network with a width of 0: {self}"))
            }
            OthelloValueArch::Plain { .. } => Ok(()),
        }
    }
}

impl crate::nn::CheckpointKind for OthelloValueArch {
    const KIND: &'static str = "an Othello value network";
}

impl std::fmt::Display for OthelloValueArch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OthelloValueArch::Towers(arch) => write!(f, "{arch}"),
            OthelloValueArch::Plain { hidden } => {
                let hidden: Vec<String> = hidden.iter().map(|h| h.to_string()).collect();
                write!(
                    f,
                    "plain value net (64 cells; hidden [{}] tanh)",
                    hidden.join(", ")
                )
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Body {
    Towers(Box<TowerNet>),
    /// The hidden layers, then the output layer; tanh after each.
    Plain(Vec<Linear>),
}

/// An Othello value network: positions -> values in (-1, 1) for the side to move. On the CPU:
/// TD feeds it one position or one node's children at a time.
#[derive(Clone, Debug)]
pub struct OthelloValueNet {
    arch: OthelloValueArch,
    body: Body,
}

fn discs(pos: &Position) -> Discs {
    Discs {
        own: pos.mover(),
        opponent: pos.opponent(),
    }
}

impl OthelloValueNet {
    /// A network with PyTorch's default initialisation. Panics on an architecture with a
    /// size of 0, which the trainer's settings check refuses first.
    pub fn new(arch: OthelloValueArch, rng: &mut StdRng) -> OthelloValueNet {
        if let Err(e) = arch.check() {
            panic!("{e}");
        }
        let body = match &arch {
            OthelloValueArch::Towers(towers) => {
                Body::Towers(Box::new(TowerNet::new(towers.clone(), &Device::Cpu, rng)))
            }
            OthelloValueArch::Plain { hidden } => {
                let mut widths = vec![CELLS];
                widths.extend(hidden);
                widths.push(1);
                Body::Plain(
                    widths
                        .windows(2)
                        .map(|w| Linear::new(w[0], w[1], true, &Device::Cpu, rng))
                        .collect(),
                )
            }
        };
        OthelloValueNet { arch, body }
    }

    pub fn arch(&self) -> &OthelloValueArch {
        &self.arch
    }

    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        Checkpoint::capture(self.arch.clone(), self, None).save(path)
    }

    pub fn load(path: &Path) -> Result<OthelloValueNet, CheckpointError> {
        let ckpt = Checkpoint::<OthelloValueArch>::load(path)?;
        ckpt.arch.check().map_err(|e| CheckpointError::InFile {
            path: path.to_owned(),
            error: Box::new(CheckpointError::Damaged(e)),
        })?;
        let mut net = OthelloValueNet::new(ckpt.arch.clone(), &mut StdRng::seed_from_u64(0));
        ckpt.restore(&mut net, &ckpt.arch)?;
        Ok(net)
    }
}

impl ValueModel for OthelloValueNet {
    type Input = Position;

    /// The towers' symmetry planes (n, 8, 8, 8), or the plain network's cells (n, 64).
    fn encode(&self, positions: &[Position]) -> Tensor {
        let boards: Vec<Discs> = positions.iter().map(discs).collect();
        match &self.body {
            Body::Towers(net) => net.encode(&boards),
            Body::Plain(_) => {
                let data: Vec<f32> = boards
                    .iter()
                    .flat_map(|b| {
                        (0..CELLS).map(move |i| {
                            ((b.own >> i) & 1) as f32 - ((b.opponent >> i) & 1) as f32
                        })
                    })
                    .collect();
                Tensor::from_vec(data, &[positions.len(), CELLS], &Device::Cpu)
            }
        }
    }
}

impl Module for OthelloValueNet {
    /// Values (n).
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        match &self.body {
            Body::Towers(net) => net.forward(ctx, x),
            Body::Plain(layers) => {
                let n = x.shape()[0];
                layers
                    .iter()
                    .fold(x.clone(), |h, layer| layer.forward(ctx, &h).tanh())
                    .reshape(&[n])
            }
        }
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        match &self.body {
            Body::Towers(net) => net.params(f),
            Body::Plain(layers) => layers.iter().for_each(|l| l.params(f)),
        }
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        match &mut self.body {
            Body::Towers(net) => net.params_mut(f),
            Body::Plain(layers) => layers.iter_mut().for_each(|l| l.params_mut(f)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::othello::Othello;
    use crate::games::{Game, Rules};

    /// Positions of a seeded random game.
    fn positions() -> Vec<Position> {
        let mut rng = StdRng::seed_from_u64(3);
        let mut game = Game::<Othello>::at_start();
        while game.outcome().is_none() {
            let moves = game.legal_moves();
            game.play(moves[rand::Rng::random_range(&mut rng, 0..moves.len())]);
        }
        game.positions().to_vec()
    }

    #[test]
    fn plain_cells_are_the_board_from_the_mover() {
        let net = OthelloValueNet::new(
            OthelloValueArch::Plain { hidden: vec![4] },
            &mut StdRng::seed_from_u64(1),
        );
        let all = positions();
        let x = net.encode(&all).to_vec();
        for (pos, cells) in all.iter().zip(x.chunks(CELLS)) {
            for (sq, &v) in cells.iter().enumerate() {
                let want = match pos.disc_at(sq as u8) {
                    Some(c) if c == Othello::side_to_move(pos) => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
                assert_eq!(v, want, "{}", Othello::format_position(pos));
            }
        }
    }

    /// Both networks: a value per position, in (-1, 1), the same whether it is asked for alone
    /// or in a batch.
    #[test]
    fn values_are_per_position_alone_or_batched() {
        let all = positions();
        for arch in [
            OthelloValueArch::Towers(TowerArch::default()),
            OthelloValueArch::Plain {
                hidden: vec![16, 8],
            },
        ] {
            let net = OthelloValueNet::new(arch.clone(), &mut StdRng::seed_from_u64(2));
            let batch = net.values(&all);
            assert_eq!(batch.len(), all.len());
            for (pos, &v) in all.iter().zip(&batch) {
                assert!(v.abs() < 1.0);
                let alone = net.values(std::slice::from_ref(pos))[0];
                assert!((alone - v).abs() < 1e-5, "{arch}: {alone} vs {v}");
            }
        }
    }
}
