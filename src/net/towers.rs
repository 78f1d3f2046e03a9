//! The "informed" value network of a TD(lambda) Othello learner: three parallel convolutional
//! towers over the board seen under its 8 symmetries, then a 64-32-1 tanh head.
//!
//! The input is (n, planes, 8, 8); the planes are meant to be [`Discs::planes`], the board
//! from the side to move (+1 own disc, -1 opponent's, 0 empty) under each symmetry of the
//! square, so that each window of a tower reads every orientation of the cells it covers.
//!
//! - **Lines**: a 1x8 window over each row and an 8x1 window over each column (two convs of
//!   `lines` filters each): 8 outputs per filter, one per row or column.
//! - **Corners**: a 3x3 window at stride 5, which on an 8x8 board lands exactly on the four
//!   corner regions (rows and columns 0..3 and 5..8): 4 outputs per filter. Stride says
//!   this with one ordinary conv, where cropping would take four crops and a join.
//! - **Diagonals**: the [`DIAGONALS`] diagonals of both directions that are long enough for a
//!   flip along them (3 to 8 cells) are gathered into the rows of a (DIAGONALS, 8) plane, then
//!   a 1x8 window reads each row: one output per diagonal and filter. In its row each cell
//!   keeps its own column, and the columns a short diagonal does not reach are zero: so the
//!   window's weight j always meets column j, as the row window's does, and an empty cell and
//!   a missing one read alike, as zeros.
//!
//! Each tower's outputs pass through tanh and are flattened and joined; the head is then
//! Linear -> 64 -> tanh -> Linear -> 32 -> tanh -> Linear -> 1 -> tanh, reading "64-32-1" as
//! two hidden layers of 64 and 32 units before the single output (`hidden` sets the widths).
//!
//! The value is **not** invariant under the board's symmetries, though the towers see all 8
//! orientations: the planes of the board turned by g are the planes of the board in another
//! order (plane s of g(b) is plane s∘g of b), and a conv weighs each input channel with its
//! own weights, so reordering the channels changes the value. Invariance would need each
//! filter to share its weights across the 8 planes (or the value averaged over the 8 images).

use super::value_model::ValueModel;
use crate::nn::{Conv2d, Ctx, Linear, Module};
use crate::tensor::{Device, Tensor, Var};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Rows and columns of the board.
const SIDE: usize = 8;
const CELLS: usize = SIDE * SIDE;
/// The symmetries of the square: [`Discs::planes`] gives one plane for each.
pub const SYMMETRIES: usize = 8;

/// A board from the side to move: bit i of each mask is cell i, at row i / 8 and column i % 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Discs {
    pub own: u64,
    pub opponent: u64,
}

/// Where symmetry `s` moves the cell at (row, column), in the order of the Othello rules'
/// `Symmetry::ALL` (there a column is a file and a row a rank): the identity, the quarter,
/// half and three-quarter turns, then the flips that swap rows, that swap columns, and across
/// the two diagonals.
const fn image(s: usize, row: usize, col: usize) -> (usize, usize) {
    let last = SIDE - 1;
    match s {
        0 => (row, col),
        1 => (last - col, row),
        2 => (last - row, last - col),
        3 => (col, last - row),
        4 => (last - row, col),
        5 => (row, last - col),
        6 => (col, row),
        _ => (last - col, last - row),
    }
}

impl Discs {
    /// The board (+1 own disc, -1 opponent's, 0 empty) under each symmetry: plane s is its
    /// image under symmetry s, as a (SYMMETRIES, 8, 8) array in row-major order.
    pub fn planes(self) -> [f32; SYMMETRIES * CELLS] {
        assert_eq!(self.own & self.opponent, 0, "a cell holds at most one disc");
        let mut out = [0.0; SYMMETRIES * CELLS];
        for cell in 0..CELLS {
            let value = match ((self.own >> cell) & 1, (self.opponent >> cell) & 1) {
                (1, _) => 1.0,
                (_, 1) => -1.0,
                _ => continue,
            };
            for s in 0..SYMMETRIES {
                let (row, col) = image(s, cell / SIDE, cell % SIDE);
                out[s * CELLS + row * SIDE + col] = value;
            }
        }
        out
    }
}

/// Diagonals with at least this many cells: the fewest along which a disc can be flipped (the
/// placed disc, the flipped one, the anchor). The shorter ones lie inside the corner windows.
const MIN_DIAGONAL: usize = 3;
/// How many diagonals the diagonal tower reads: 11 in each direction.
pub const DIAGONALS: usize = 2 * (2 * (SIDE - MIN_DIAGONAL) + 1);
/// The column of zeros appended to a flattened plane, read where a diagonal has no cell.
const ZERO_CELL: u32 = CELLS as u32;

/// For each row of the diagonal plane, the board cell (row * 8 + column) at each of its 8
/// columns, or [`ZERO_CELL`]: first the down-right diagonals (column - row = -5..=5), then the
/// down-left ones (row + column = 2..=12).
const DIAGONAL_CELLS: [u32; DIAGONALS * SIDE] = {
    let reach = (SIDE - MIN_DIAGONAL) as i32;
    let half = DIAGONALS / 2;
    let mut out = [ZERO_CELL; DIAGONALS * SIDE];
    let mut d = 0;
    while d < DIAGONALS {
        let mut col = 0;
        while col < SIDE {
            let row = if d < half {
                col as i32 - (d as i32 - reach)
            } else {
                (d - half) as i32 + (SIDE as i32 - 1 - reach) - col as i32
            };
            if row >= 0 && row < SIDE as i32 {
                out[d * SIDE + col] = (row as usize * SIDE + col) as u32;
            }
            col += 1;
        }
        d += 1;
    }
    out
};

/// (n, c, 8, 8) -> (n, c, DIAGONALS, 8): each plane's diagonals as rows (see the module
/// documentation), by a zero column appended to the flattened planes and a column gather.
fn diagonal_rows(x: &Var) -> Var {
    let [n, c, _, _] = *x.shape() else {
        unreachable!("the network checked its input is 4-D")
    };
    x.reshape(&[n * c, CELLS])
        .pad2d([0, 0, 0, 1], 0.0)
        .gather_cols(&DIAGONAL_CELLS)
        .reshape(&[n, c, DIAGONALS, SIDE])
}

/// The sizes of a [`TowerNet`] (its checkpoints are [`super::othello_value`]'s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TowerArch {
    /// Input planes: [`SYMMETRIES`] for [`Discs::planes`].
    pub planes: usize,
    /// Filters of the row window, and as many of the column window.
    pub lines: usize,
    /// Filters of the corner window.
    pub corners: usize,
    /// Filters of the diagonal window.
    pub diagonals: usize,
    /// Widths of the head's hidden layers, each followed by tanh.
    pub hidden: Vec<usize>,
}

impl Default for TowerArch {
    /// The reference's head (64, 32) behind small towers of 4 filters each: 14 001 parameters.
    fn default() -> TowerArch {
        TowerArch {
            planes: SYMMETRIES,
            lines: 4,
            corners: 4,
            diagonals: 4,
            hidden: vec![64, 32],
        }
    }
}

impl TowerArch {
    /// The towers' outputs, which the head reads: 8 per row and per column filter, 4 per
    /// corner filter, one per diagonal and diagonal filter.
    pub fn features(&self) -> usize {
        2 * SIDE * self.lines + 4 * self.corners + DIAGONALS * self.diagonals
    }

    /// Why a network of these sizes cannot be built (a zero size), if it cannot.
    pub(super) fn check(&self) -> Result<(), String> {
        let sizes = [self.planes, self.lines, self.corners, self.diagonals];
        if sizes.contains(&0) || self.hidden.contains(&0) {
            return Err(format!("a tower network with a size of 0: {self}"));
        }
        Ok(())
    }
}

impl std::fmt::Display for TowerArch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden: Vec<String> = self.hidden.iter().map(|h| h.to_string()).collect();
        write!(
            f,
            "tower value net ({} planes; filters: lines {}, corners {}, diagonals {}; \
             hidden [{}] tanh)",
            self.planes,
            self.lines,
            self.corners,
            self.diagonals,
            hidden.join(", ")
        )
    }
}

/// The tower network: (n, planes, 8, 8) -> values (n) in (-1, 1) for the side to move.
#[derive(Clone, Debug)]
pub struct TowerNet {
    arch: TowerArch,
    rows: Conv2d,
    cols: Conv2d,
    corners: Conv2d,
    diagonals: Conv2d,
    /// The hidden layers, then the output layer.
    head: Vec<Linear>,
    device: Device,
}

impl TowerNet {
    /// A network with PyTorch's default initialisation on `device`.
    pub fn new(arch: TowerArch, device: &Device, rng: &mut impl Rng) -> TowerNet {
        if let Err(e) = arch.check() {
            panic!("{e}");
        }
        let p = arch.planes;
        let mut conv = |c_out, kernel| Conv2d::rect(p, c_out, kernel, (0, 0), true, device, rng);
        let rows = conv(arch.lines, (1, SIDE));
        let cols = conv(arch.lines, (SIDE, 1));
        let corners = conv(arch.corners, (3, 3)).with_stride((5, 5));
        let diagonals = conv(arch.diagonals, (1, SIDE));
        let mut widths = vec![arch.features()];
        widths.extend(&arch.hidden);
        widths.push(1);
        let head = widths
            .windows(2)
            .map(|w| Linear::new(w[0], w[1], true, device, rng))
            .collect();
        TowerNet {
            arch,
            rows,
            cols,
            corners,
            diagonals,
            head,
            device: device.clone(),
        }
    }

    pub fn arch(&self) -> &TowerArch {
        &self.arch
    }

    /// The layers in visit order: the four tower convs, then the head.
    fn parts(&self) -> impl Iterator<Item = &dyn Module<Output = Var>> {
        let towers: [&dyn Module<Output = Var>; 4] =
            [&self.rows, &self.cols, &self.corners, &self.diagonals];
        towers
            .into_iter()
            .chain(self.head.iter().map(|l| l as &dyn Module<Output = Var>))
    }

    fn parts_mut(&mut self) -> impl Iterator<Item = &mut dyn Module<Output = Var>> {
        let towers: [&mut dyn Module<Output = Var>; 4] = [
            &mut self.rows,
            &mut self.cols,
            &mut self.corners,
            &mut self.diagonals,
        ];
        towers.into_iter().chain(
            self.head
                .iter_mut()
                .map(|l| l as &mut dyn Module<Output = Var>),
        )
    }
}

impl ValueModel for TowerNet {
    type Input = Discs;

    /// The network's input for boards: (n, SYMMETRIES, 8, 8) on its device. Needs an
    /// architecture of [`SYMMETRIES`] planes.
    fn encode(&self, boards: &[Discs]) -> Tensor {
        assert_eq!(
            self.arch.planes, SYMMETRIES,
            "the network reads {} planes, not the board's symmetries",
            self.arch.planes
        );
        let data: Vec<f32> = boards.iter().flat_map(|b| b.planes()).collect();
        Tensor::from_vec(data, &[boards.len(), SYMMETRIES, SIDE, SIDE], &self.device)
    }
}

impl Module for TowerNet {
    /// Values (n).
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        let [n, planes, h, w] = *x.shape() else {
            panic!(
                "the tower network takes (n, planes, 8, 8), got {:?}",
                x.shape()
            )
        };
        assert!(
            planes == self.arch.planes && h == SIDE && w == SIDE,
            "the tower network takes (n, {}, 8, 8), got {:?}",
            self.arch.planes,
            x.shape()
        );
        let towers = [
            self.rows.forward(ctx, x),
            self.cols.forward(ctx, x),
            self.corners.forward(ctx, x),
            self.diagonals.forward(ctx, &diagonal_rows(x)),
        ]
        .map(|t| t.tanh().flatten());
        let features = Var::concat(&towers.each_ref(), 1);
        self.head
            .iter()
            .fold(features, |h, layer| layer.forward(ctx, &h).tanh())
            .reshape(&[n])
    }

    crate::nn::visit_parts!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::othello::Symmetry;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    /// Boards with every kind of cell, from a seeded generator.
    fn boards(count: usize, seed: u64) -> Vec<Discs> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..count)
            .map(|_| {
                let (a, b): (u64, u64) = (rng.random(), rng.random());
                Discs {
                    own: a & b,
                    opponent: a & !b,
                }
            })
            .collect()
    }

    fn plane(planes: &[f32], s: usize) -> &[f32] {
        &planes[s * CELLS..(s + 1) * CELLS]
    }

    #[test]
    fn planes_are_the_othello_symmetries_of_the_board() {
        for b in boards(20, 1) {
            let planes = b.planes();
            for (s, sym) in Symmetry::ALL.into_iter().enumerate() {
                let want = Discs {
                    own: sym.bits(b.own),
                    opponent: sym.bits(b.opponent),
                };
                let want: Vec<f32> = (0..CELLS)
                    .map(|i| match ((want.own >> i) & 1, (want.opponent >> i) & 1) {
                        (1, _) => 1.0,
                        (_, 1) => -1.0,
                        _ => 0.0,
                    })
                    .collect();
                assert_eq!(plane(&planes, s), want, "{sym:?}");
            }
        }
    }

    #[test]
    fn a_transformed_board_has_the_same_planes_in_another_order() {
        for b in boards(10, 2) {
            let planes = b.planes();
            for sym in Symmetry::ALL {
                let moved = Discs {
                    own: sym.bits(b.own),
                    opponent: sym.bits(b.opponent),
                }
                .planes();
                // Each plane of the moved board is a plane of the board, and each plane of the
                // board is matched once (the boards are random, so no two planes coincide).
                let mut matched = [false; SYMMETRIES];
                for s in 0..SYMMETRIES {
                    let t = (0..SYMMETRIES)
                        .find(|&t| !matched[t] && plane(&planes, t) == plane(&moved, s))
                        .unwrap_or_else(|| panic!("{sym:?}: plane {s} is no plane of the board"));
                    matched[t] = true;
                }
            }
        }
    }

    #[test]
    fn diagonal_rows_hold_each_diagonal_at_its_columns() {
        // Cell values 0..64 make every gathered entry name its cell.
        let x = Var::constant(Tensor::from_vec(
            (0..CELLS).map(|i| i as f32 + 1.0).collect(),
            &[1, 1, SIDE, SIDE],
            &Device::Cpu,
        ));
        let rows = diagonal_rows(&x).value().to_vec();
        let mut cells_seen = 0;
        for (d, row) in rows.chunks(SIDE).enumerate() {
            let cells: Vec<(usize, usize)> = row
                .iter()
                .enumerate()
                .filter(|(_, v)| **v != 0.0)
                .map(|(col, &v)| {
                    let cell = v as usize - 1;
                    assert_eq!(cell % SIDE, col, "diagonal {d}: a cell off its column");
                    (cell / SIDE, col)
                })
                .collect();
            assert!(cells.len() >= MIN_DIAGONAL, "diagonal {d} is too short");
            let down_right = d < DIAGONALS / 2;
            for w in cells.windows(2) {
                let step = if down_right { 1 } else { -1 };
                assert_eq!(w[1].0 as i32 - w[0].0 as i32, step, "diagonal {d}");
                assert_eq!(w[1].1, w[0].1 + 1, "diagonal {d} skips a column");
            }
            cells_seen += cells.len();
        }
        // Each direction: 64 cells less the 2 * (1 + 2) on its diagonals shorter than 3.
        assert_eq!(cells_seen, 2 * (CELLS - 6));
    }

    #[test]
    fn default_size_and_range() {
        let net = TowerNet::new(
            TowerArch::default(),
            &Device::Cpu,
            &mut StdRng::seed_from_u64(3),
        );
        assert_eq!(net.arch().features(), 168);
        assert_eq!(net.num_params(), 14_001);
        let values = net.values(&boards(5, 4));
        assert_eq!(values.len(), 5);
        assert!(values.iter().all(|v| v.abs() < 1.0), "{values:?}");
        let (value, grad) = net.value_and_grad(&boards(1, 4)[0]);
        assert_eq!(value, values[0]);
        assert_eq!(grad.len(), net.num_params());
        assert!(grad.iter().all(|g| g.is_finite()) && grad.iter().any(|&g| g != 0.0));
    }

    #[test]
    fn weights_round_trip() {
        let net = TowerNet::new(
            TowerArch::default(),
            &Device::Cpu,
            &mut StdRng::seed_from_u64(5),
        );
        let mut copy = TowerNet::new(
            net.arch().clone(),
            &Device::Cpu,
            &mut StdRng::seed_from_u64(0),
        );
        copy.set_weights(&net.weights());
        assert_eq!(copy.weights(), net.weights());
        let b = boards(3, 6);
        assert_eq!(copy.values(&b), net.values(&b));
    }
}
