//! Convolution over checkers' 32 dark squares. Pieces only ever stand and move on the dark
//! squares, and a square's neighbours are its four diagonal ones, so a filter reading a square
//! and its diagonal neighbours (5 taps) sees what a 3x3 filter over the whole 8x8 board sees
//! of a dark square's surroundings, for 32 x 5 = 160 multiply-adds per channel pair instead of
//! 64 x 9 = 576. It is a tap convolution (`Tensor::tap_conv`) through a table of those
//! neighbours; its output is (n, c_out, 32), which a batch norm reads as (n, c_out, 32, 1).

use super::fold::{FoldCache, add_residual};
use super::{BatchNorm2d, uniform_fan_in};
use crate::backend::NO_CELL;
use crate::nn::onnx::{Attr, Graph};
use crate::nn::{Ctx, Module, Param};
use crate::tensor::{Device, TapTable, Var};
use rand::Rng;

/// The dark squares of a board.
pub const SQUARES: usize = 32;
const BOARD: usize = 8;

/// The 8x8 cells (row-major) of the dark squares, in square order: row by row, left to right
/// (the cells where row + column is odd, as the networks' dark-square policy head reads them).
pub fn dark_cells() -> impl Iterator<Item = usize> {
    (0..BOARD * BOARD).filter(|cell| (cell / BOARD + cell % BOARD) % 2 == 1)
}

/// What a dark-square layer reads, per position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DarkInput {
    /// The network's input planes, (n, planes, 8, 8): the light squares are not read.
    Planes(usize),
    /// A dark-square layer's output, (n, channels, 32).
    Squares(usize),
}

impl DarkInput {
    fn channels(self) -> usize {
        match self {
            DarkInput::Planes(c) | DarkInput::Squares(c) => c,
        }
    }

    fn cells(self) -> usize {
        match self {
            DarkInput::Planes(_) => BOARD * BOARD,
            DarkInput::Squares(_) => SQUARES,
        }
    }
}

/// The taps of each square: itself, then its diagonal neighbours up-left, up-right,
/// down-left, down-right (None off the board).
fn diagonal_taps(cells: &[usize]) -> Vec<[Option<usize>; 5]> {
    let square_at = |row: i32, col: i32| {
        let inside = (0..BOARD as i32).contains(&row) && (0..BOARD as i32).contains(&col);
        let cell = (row * BOARD as i32 + col) as usize;
        inside
            .then(|| cells.iter().position(|&c| c == cell))
            .flatten()
    };
    cells
        .iter()
        .enumerate()
        .map(|(square, &cell)| {
            let (row, col) = ((cell / BOARD) as i32, (cell % BOARD) as i32);
            [
                Some(square),
                square_at(row - 1, col - 1),
                square_at(row - 1, col + 1),
                square_at(row + 1, col - 1),
                square_at(row + 1, col + 1),
            ]
        })
        .collect()
}

/// A convolution over the dark squares: 5 taps (a square and its diagonal neighbours), or
/// 1 (the square alone: a per-square linear map, like a 1x1 conv).
#[derive(Clone, Debug)]
pub struct DarkConv {
    /// (c_out, c_in x taps).
    weight: Param,
    bias: Option<Param>,
    input: DarkInput,
    table: TapTable,
    /// The last batch norm folded into this layer for inference.
    folded: FoldCache,
}

impl DarkConv {
    /// A layer from `input` to `c_out` channels reading each square and its diagonal
    /// neighbours (`diagonal`) or each square alone.
    pub fn new(
        input: DarkInput,
        c_out: usize,
        diagonal: bool,
        bias: bool,
        device: &Device,
        rng: &mut impl Rng,
    ) -> DarkConv {
        let cells: Vec<usize> = dark_cells().collect();
        let taps: Vec<Vec<Option<usize>>> = if diagonal {
            diagonal_taps(&cells).into_iter().map(Vec::from).collect()
        } else {
            (0..SQUARES).map(|s| vec![Some(s)]).collect()
        };
        // A square's cell in the input: its 8x8 cell in the planes, else itself.
        let cell_of = |square: usize| match input {
            DarkInput::Planes(_) => cells[square],
            DarkInput::Squares(_) => square,
        };
        let index = taps
            .iter()
            .flatten()
            .map(|tap| tap.map_or(NO_CELL, |s| cell_of(s) as u32))
            .collect();
        let table = TapTable::new(input.cells(), taps[0].len(), index);
        let fan_in = table.taps() * input.channels();
        DarkConv {
            weight: uniform_fan_in(&[c_out, fan_in], fan_in, device, rng),
            bias: bias.then(|| uniform_fan_in(&[c_out], fan_in, device, rng)),
            input,
            table,
            folded: FoldCache::default(),
        }
    }

    /// `x` as the tap convolution reads it, (n, c_in, cells).
    fn cells(&self, x: &Var) -> Var {
        let per_image = self.input.channels() * self.input.cells();
        let n = x.value().numel() / per_image;
        x.reshape(&[n, self.input.channels(), self.input.cells()])
    }

    /// relu?(bn(self(x)) + residual?), `residual` shaped like the output, (n, c_out, 32).
    /// Inference with `bn` in evaluation mode (nothing recorded, no tracked input) runs as one
    /// fused tap convolution with the batch norm folded into its weight and bias.
    pub fn forward_bn(
        &self,
        ctx: &Ctx,
        bn: &BatchNorm2d,
        x: &Var,
        residual: Option<&Var>,
        relu: bool,
    ) -> Var {
        if let Some((w, b)) =
            self.folded
                .for_inference(ctx, x, residual, &self.weight, self.bias.as_ref(), bn)
        {
            let x = self.cells(x);
            let residual = residual.map(Var::value);
            let y = x
                .value()
                .tap_conv(&w, Some(&b), residual, relu, &self.table);
            return Var::constant(y);
        }
        let y = self.forward(ctx, x);
        let [n, c_out, cells] = *y.shape() else {
            unreachable!("a tap convolution's output is (n, c, cells)")
        };
        let bn_relu = relu && residual.is_none();
        let y = bn
            .forward_relu(ctx, &y.reshape(&[n, c_out, cells, 1]), bn_relu)
            .reshape(&[n, c_out, cells]);
        add_residual(y, residual, relu)
    }

    /// Adds this layer to an ONNX graph reading `x`, with `bn` (which must be in evaluation
    /// mode) folded in as inference folds it, its weights named `name.*`: the taps gathered
    /// (Reshape, Pad with a zero column, Gather, Reshape to a row per square), a Gemm, and
    /// back to (n, c_out, 32) (Reshape, Transpose). Returns the output.
    pub(crate) fn onnx(
        &self,
        g: &mut Graph,
        name: &str,
        bn: Option<&BatchNorm2d>,
        x: &str,
    ) -> String {
        let (weight, bias) = self.folded.exported(&self.weight, self.bias.as_ref(), bn);
        let (c_in, cells_in) = (self.input.channels(), self.input.cells());
        let (taps, cells_out, c_out) =
            (self.table.taps(), self.table.cells_out(), weight.shape()[0]);
        // Each square's row: its taps' values, channel-major as the weight's columns.
        let zero = (c_in * cells_in) as i64;
        let mut index = Vec::with_capacity(cells_out * c_in * taps);
        for square in self.table.index().chunks_exact(taps) {
            for c in 0..c_in {
                index.extend(square.iter().map(|&cell| match cell {
                    NO_CELL => zero,
                    cell => (c * cells_in) as i64 + cell as i64,
                }));
            }
        }
        let shape = g.int64s(&format!("{name}.images"), &[-1, zero]);
        let y = g.node("Reshape", &[x, &shape], &[]);
        // Begin then end of each axis: one zero column after the last.
        let pads = g.int64s(&format!("{name}.pads"), &[0, 0, 0, 1]);
        let y = g.node("Pad", &[&y, &pads], &[]);
        let index = g.int64s(&format!("{name}.taps"), &index);
        let y = g.node("Gather", &[&y, &index], &[Attr::Int("axis", 1)]);
        let rows = g.int64s(&format!("{name}.rows"), &[-1, (c_in * taps) as i64]);
        let y = g.node("Reshape", &[&y, &rows], &[]);
        let attrs = [Attr::Int("transB", 1)];
        let y = g.layer("Gemm", name, &y, &weight, bias.as_ref(), &attrs);
        let squares = g.int64s(
            &format!("{name}.squares"),
            &[-1, cells_out as i64, c_out as i64],
        );
        let y = g.node("Reshape", &[&y, &squares], &[]);
        g.node("Transpose", &[&y], &[Attr::Ints("perm", vec![0, 2, 1])])
    }
}

impl Module for DarkConv {
    type Output = Var;

    fn forward(&self, ctx: &Ctx, x: &Var) -> Var {
        let bias = self.bias.as_ref().map(|b| ctx.param(b));
        self.cells(x)
            .tap_conv(&ctx.param(&self.weight), bias.as_ref(), &self.table)
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        f(&self.weight);
        self.bias.iter().for_each(f);
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        f(&mut self.weight);
        self.bias.iter_mut().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_sees_its_diagonal_neighbours() {
        let cells: Vec<usize> = dark_cells().collect();
        assert_eq!(cells.len(), SQUARES);
        let taps = diagonal_taps(&cells);
        // Square 0 is cell 1 (row 0, column 1): nothing above it; below it cells 8 and 10,
        // squares 4 and 5.
        assert_eq!(taps[0], [Some(0), None, None, Some(4), Some(5)]);
        // Corner squares have one neighbour, edge squares two, inner squares four; each
        // neighbour relation runs both ways.
        let mut counts = [0; 5];
        for (s, t) in taps.iter().enumerate() {
            counts[t[1..].iter().flatten().count()] += 1;
            for (k, n) in t[1..].iter().enumerate() {
                if let Some(n) = n {
                    assert_eq!(taps[*n][4 - k], Some(s), "the opposite tap of {s}'s {k}");
                }
            }
        }
        assert_eq!(counts, [0, 2, 12, 0, 18]);
    }
}
