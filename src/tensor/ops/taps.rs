//! Tap convolution: a convolution whose taps a table gives ([`TapTable`]), for boards whose
//! cells are not a grid. Shapes: x (n, c_in, cells_in), weight (c_out, c_in x taps), bias
//! (c_out) -> (n, c_out, cells_out). The backward: the weight gradient is its own kernel; the
//! input gradient is a tap convolution of the output gradient through the transposed table
//! with the weight's channel axes swapped.

use super::super::{Tensor, Var, dispatch};
use crate::backend::{Backend, NO_CELL, TapDims};
use std::sync::Arc;

/// Which input cell each tap of each output cell reads: `index[s * taps + t]`, or
/// [`NO_CELL`]. No tap reads one input cell for two output cells (as for any translation),
/// which is what makes the transposed table, the input gradient's, a table too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapTable {
    cells_in: usize,
    taps: usize,
    index: Arc<[u32]>,
    /// Output cell s reads input cell u through tap t <=> `transposed[u * taps + t] == s`.
    transposed: Arc<[u32]>,
}

impl TapTable {
    /// The table of `index` (output cells x `taps`) over `cells_in` input cells.
    pub fn new(cells_in: usize, taps: usize, index: Vec<u32>) -> TapTable {
        assert!(
            taps > 0 && index.len().is_multiple_of(taps),
            "a tap table of {} entries is not whole rows of {taps} taps",
            index.len()
        );
        let mut transposed = vec![NO_CELL; cells_in * taps];
        for (i, &cell) in index.iter().enumerate() {
            if cell == NO_CELL {
                continue;
            }
            let (s, t) = (i / taps, i % taps);
            assert!(
                (cell as usize) < cells_in,
                "tap table cell {cell} of {cells_in}"
            );
            let slot = &mut transposed[cell as usize * taps + t];
            assert_eq!(*slot, NO_CELL, "tap {t} reads cell {cell} twice");
            *slot = s as u32;
        }
        TapTable {
            cells_in,
            taps,
            index: index.into(),
            transposed: transposed.into(),
        }
    }

    pub fn cells_out(&self) -> usize {
        self.index.len() / self.taps
    }

    pub fn taps(&self) -> usize {
        self.taps
    }

    /// The entries, output cell-major.
    pub fn index(&self) -> &[u32] {
        &self.index
    }

    /// The table from output cells back to input cells.
    fn transposed(&self) -> TapTable {
        TapTable {
            cells_in: self.cells_out(),
            taps: self.taps,
            index: self.transposed.clone(),
            transposed: self.index.clone(),
        }
    }

    fn dims(&self, x: &[usize], w: &[usize]) -> TapDims {
        let ([n, c_in, cells_in], [c_out, patch]) = (x, w) else {
            panic!(
                "tap_conv takes x (n, c, cells) and weight (c_out, c_in x taps), got {x:?} and {w:?}"
            )
        };
        assert_eq!(
            *cells_in, self.cells_in,
            "tap_conv input has {cells_in} cells, its table {}",
            self.cells_in
        );
        assert_eq!(
            c_in * self.taps,
            *patch,
            "tap_conv weight has {patch} columns, the input {c_in} channels x {} taps",
            self.taps
        );
        TapDims {
            n: *n,
            c_in: *c_in,
            cells_in: *cells_in,
            c_out: *c_out,
            cells_out: self.cells_out(),
            taps: self.taps,
        }
    }
}

impl Tensor {
    /// relu?(tap_conv(weight) + bias? + residual?), `residual` shaped like the output.
    pub fn tap_conv(
        &self,
        weight: &Tensor,
        bias: Option<&Tensor>,
        residual: Option<&Tensor>,
        relu: bool,
        table: &TapTable,
    ) -> Tensor {
        let d = table.dims(self.shape(), weight.shape());
        let out = vec![d.n, d.c_out, d.cells_out];
        if let Some(b) = bias {
            assert_eq!(b.shape(), [d.c_out], "tap_conv bias shape");
        }
        if let Some(r) = residual {
            assert_eq!(r.shape(), &out[..], "tap_conv residual shape");
        }
        let t = table.index();
        let storage = match (bias.map(Tensor::storage), residual.map(Tensor::storage)) {
            (None, None) => dispatch!(self.storage(), weight.storage() =>
                |be, x, w| be.tap_conv(x, w, None, None, relu, d, t)),
            (Some(b), None) => dispatch!(self.storage(), weight.storage(), b =>
                |be, x, w, b| be.tap_conv(x, w, Some(b), None, relu, d, t)),
            (None, Some(r)) => dispatch!(self.storage(), weight.storage(), r =>
                |be, x, w, r| be.tap_conv(x, w, None, Some(r), relu, d, t)),
            (Some(b), Some(r)) => dispatch!(self.storage(), weight.storage(), b, r =>
                |be, x, w, b, r| be.tap_conv(x, w, Some(b), Some(r), relu, d, t)),
        };
        Tensor::from_storage(storage, out)
    }

    /// The weight gradient of a tap convolution of `self` given the output gradient `g`.
    pub fn tap_conv_grad_weight(&self, g: &Tensor, w_shape: &[usize], table: &TapTable) -> Tensor {
        let d = table.dims(self.shape(), w_shape);
        let t = table.index();
        let storage = dispatch!(self.storage(), g.storage() =>
            |be, x, g| be.tap_conv_grad_weight(x, g, d, t));
        Tensor::from_storage(storage, w_shape.to_vec())
    }

    /// The input gradient of a tap convolution given the output gradient `self`: the output
    /// gradient convolved through the transposed table, the weight (c_out, c_in, taps) read as
    /// (c_in, c_out, taps).
    pub fn tap_conv_grad_input(&self, weight: &Tensor, table: &TapTable) -> Tensor {
        let [c_out, patch] = *weight.shape() else {
            panic!(
                "tap_conv weight is (c_out, c_in x taps), got {:?}",
                weight.shape()
            )
        };
        let (taps, c_in) = (table.taps(), patch / table.taps());
        let swapped = weight
            .reshape(&[c_out, c_in, taps])
            .permute(&[1, 0, 2])
            .reshape(&[c_in, c_out * taps]);
        self.tap_conv(&swapped, None, None, false, &table.transposed())
    }
}

impl Var {
    /// tap_conv(weight) + bias?, recorded.
    pub fn tap_conv(&self, weight: &Var, bias: Option<&Var>, table: &TapTable) -> Var {
        let value = self
            .value()
            .tap_conv(weight.value(), bias.map(Var::value), None, false, table);
        let (x, w, table) = (self.value().clone(), weight.value().clone(), table.clone());
        let mut inputs = vec![self, weight];
        inputs.extend(bias);
        Var::record(&inputs, value, move |g, needs| {
            let mut grads = vec![
                needs[0].then(|| g.tap_conv_grad_input(&w, &table)),
                needs[1].then(|| x.tap_conv_grad_weight(g, w.shape(), &table)),
            ];
            if needs.len() == 3 {
                grads.push(needs[2].then(|| {
                    let [n, c, cells] = *g.shape() else {
                        unreachable!("a tap convolution's output is (n, c, cells)")
                    };
                    g.reshape(&[n, c, cells, 1]).sum_channels()
                }));
            }
            grads
        })
    }
}
