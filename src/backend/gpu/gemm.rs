//! The host side of the tiled matrix product shared by matmul and conv (shaders/gemm.wgsl):
//! the choice among the tile shapes (tile.rs), the launch grid, and split-K.
//!
//! Large tiles reuse each loaded value more often but leave a small product with too few
//! workgroups to fill the device, so each product takes the largest tile that still gives
//! enough workgroups. When the output has too few tiles even so but the inner dimension is
//! long (e.g. a weight gradient summed over a whole batch), the k range is split over several
//! workgroups writing separate partial products, which one reduction then adds.

use super::pipelines::{Kernel, Shader};
use super::tile::TileShape;
use super::{Gpu, GpuBuf, reduce, to_u32};
use bytemuck::{Pod, Zeroable};

/// How many workgroups a product should have to fill the adapter, and the largest tile worth
/// its registers there: each product takes the largest tile up to `widest` giving at least
/// `min_groups` workgroups (split-K parts included), and splits k when its output has fewer
/// tiles than `target_groups`. Under mixed precision (`tensor`) every product takes the
/// tensor tile instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Occupancy {
    pub min_groups: usize,
    pub target_groups: usize,
    pub widest: TileShape,
    pub tensor: bool,
}

impl Occupancy {
    /// A software adapter runs a workgroup per CPU thread at a time: a few large tiles.
    pub(super) const SOFTWARE: Occupancy = Occupancy {
        min_groups: 64,
        target_groups: 128,
        widest: TileShape::Wide,
        tensor: false,
    };
    /// A hardware GPU hides memory latency with many workgroups per multiprocessor. On an
    /// NVIDIA H200 (132 multiprocessors) the 64 x 64 tile beat the 64 x 128 one at every
    /// batch (az-small inference at 1024 positions: 291k against 187k positions/s, training
    /// at 256: 36k against 27k), and the 32 x 32 tile beat both below about 512 workgroups.
    pub(super) const HARDWARE: Occupancy = Occupancy {
        min_groups: 512,
        target_groups: 512,
        widest: TileShape::Square,
        tensor: false,
    };
}

/// Split k into parts of at least this many.
const MIN_SPLIT_K: usize = 256;

/// Mirrors `GemmHeader` in gemm.wgsl: the first field of each product's parameters.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
pub(super) struct GemmHeader {
    m: u32,
    n: u32,
    k: u32,
    batch: u32,
    k_split: u32,
    splits: u32,
    tiles_m: u32,
    tiles_n: u32,
}

impl GemmHeader {
    /// The tile shape and launch of `batch` products (m x k) (k x n) on an adapter wanting
    /// `occupancy`, with k split when that helps and `may_split` allows it.
    pub(super) fn plan(
        (m, n, k): (usize, usize, usize),
        batch: usize,
        may_split: bool,
        occupancy: Occupancy,
    ) -> (TileShape, GemmHeader) {
        let max_splits = if may_split {
            (k / MIN_SPLIT_K).max(1)
        } else {
            1
        };
        let groups = |shape: TileShape| {
            let (tm, tn) = shape.tiles(m, n);
            tm * tn * batch * max_splits
        };
        let shape = TileShape::forced().unwrap_or_else(|| {
            if occupancy.tensor {
                return TileShape::Tensor;
            }
            TileShape::ALL
                .into_iter()
                .skip_while(|&s| s != occupancy.widest)
                .find(|&s| groups(s) >= occupancy.min_groups)
                .unwrap_or(TileShape::Small)
        });
        let bk = shape.tile().bk as usize;
        let (tiles_m, tiles_n) = shape.tiles(m, n);
        let tiles = (tiles_m * tiles_n * batch).max(1);
        let splits = (occupancy.target_groups / tiles).clamp(1, max_splits);
        let k_split = k.div_ceil(splits).next_multiple_of(bk).max(bk);
        let header = GemmHeader {
            m: to_u32(m),
            n: to_u32(n),
            k: to_u32(k),
            batch: to_u32(batch),
            k_split: to_u32(k_split),
            splits: to_u32(k.div_ceil(k_split).max(1)),
            tiles_m: to_u32(tiles_m),
            tiles_n: to_u32(tiles_n),
        };
        (shape, header)
    }
}

impl GemmHeader {
    /// Values of one (batch, m, n) output.
    fn len(&self) -> usize {
        (self.batch * self.m * self.n) as usize
    }

    /// Workgroups of the launch, split-K parts included.
    pub(super) fn groups(&self) -> usize {
        (self.tiles_m * self.tiles_n * self.batch * self.splits) as usize
    }

    pub(super) fn splits(&self) -> usize {
        self.splits as usize
    }

    /// Output tiles along n (the columns).
    pub(super) fn tiles_n(&self) -> usize {
        self.tiles_n as usize
    }
}

/// The parameters of a product kernel: a struct whose first field is its header.
pub(super) trait GemmParams: Pod {
    fn header(&self) -> GemmHeader;
}

/// Records a product kernel writing a fresh (batch, m, n) output, and adds up split-K
/// partial products. `inputs` follow the output in the shader's bindings.
pub(super) fn run<P: GemmParams>(
    gpu: &Gpu,
    shader: Shader,
    params: &P,
    inputs: &[&GpuBuf],
) -> GpuBuf {
    let h = params.header();
    let parts = run_parts(gpu, shader, params, inputs);
    if h.splits > 1 {
        reduce::sum_axis(gpu, &parts, 1, h.splits(), h.len())
    } else {
        parts
    }
}

/// Records a product kernel, leaving split-K's partial products unsummed: `splits` arrays
/// of (batch, m, n) one after another.
pub(super) fn run_parts<P: GemmParams>(
    gpu: &Gpu,
    shader: Shader,
    params: &P,
    inputs: &[&GpuBuf],
) -> GpuBuf {
    let h = params.header();
    let len = h.len();
    if len == 0 {
        return gpu.alloc(0);
    }
    let splits = h.splits as usize;
    let out = gpu.alloc(splits * len);
    // The shaders read the operands as vec4 arrays, so each is bound up to its last whole
    // 16-byte word (pooled buffers are multiples of 16 bytes); the words' tails past the
    // tensor are never used.
    let mut storage = vec![(&out.mem.buffer, out.offset, out.len as u64 * 4)];
    storage.extend(inputs.iter().map(|b| {
        let bytes = (b.len as u64 * 4).next_multiple_of(16).max(16);
        (
            &b.mem.buffer,
            b.offset,
            bytes.min(b.mem.buffer.size() - b.offset),
        )
    }));
    let flops = 2 * u64::from(h.batch) * u64::from(h.m) * u64::from(h.n) * u64::from(h.k);
    gpu.0.context.record(
        Kernel {
            shader,
            entry: "main",
        },
        bytemuck::bytes_of(params),
        &storage,
        to_u32(h.groups()),
        flops,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_cover_k_exactly_once() {
        for (m, n, k, batch) in [
            (7, 5, 600, 1),
            (64, 64, 100_000, 1),
            (1000, 1000, 4096, 1),
            (3, 3, 0, 2),
            (9, 9, 257, 4),
        ] {
            let (shape, h) = plan_soft((m, n, k), batch, true);
            let bk = shape.tile().bk as usize;
            let (ks, s) = (h.k_split as usize, h.splits as usize);
            assert!(s >= 1 && ks % bk == 0);
            assert!(
                ks * s >= k && ks * (s - 1) < k.max(1),
                "{m}x{n}x{k}: {s} splits of {ks}"
            );
        }
        assert!(
            plan_soft((7, 5, 600), 1, true).1.splits > 1,
            "a long thin product is split"
        );
        assert_eq!(
            plan_soft((7, 5, 600), 1, false).1.splits,
            1,
            "unless splitting is ruled out"
        );
        assert_eq!(
            plan_soft((1000, 1000, 4096), 1, true).1.splits,
            1,
            "a wide product is not"
        );
    }

    fn plan_soft(mnk: (usize, usize, usize), batch: usize, split: bool) -> (TileShape, GemmHeader) {
        GemmHeader::plan(mnk, batch, split, Occupancy::SOFTWARE)
    }

    #[test]
    fn a_hardware_gpu_gets_more_smaller_tiles() {
        let hw = |m, n, k| GemmHeader::plan((m, n, k), 1, false, Occupancy::HARDWARE).0;
        // az-small's 3x3 forward at 1024 and 4096 boards: square tiles (1024, 4096 of them).
        assert_eq!(hw(64, 1024 * 64, 576), TileShape::Square);
        assert_eq!(hw(64, 4096 * 64, 576), TileShape::Square);
        // 256 boards: 256 square tiles are too few, 1024 small ones are not.
        assert_eq!(hw(64, 256 * 64, 576), TileShape::Small);
    }

    #[test]
    fn tiles_follow_the_problem_shape() {
        // 64 filters over a batch of 256 boards: the wide tile still fills the device.
        assert_eq!(plan_soft((64, 256 * 64, 576), 1, false).0, TileShape::Wide);
        // 64 boards: half the wide tiles, enough square ones.
        assert_eq!(plan_soft((64, 64 * 64, 576), 1, false).0, TileShape::Square);
        // One board: small tiles.
        assert_eq!(plan_soft((64, 64, 576), 1, false).0, TileShape::Small);
        // A weight gradient over 256 boards: wide tiles, k split among them.
        let (shape, h) = plan_soft((64, 576, 256 * 64), 1, true);
        assert_eq!(shape, TileShape::Wide);
        assert!(h.splits > 8, "{} splits", h.splits);
    }
}
