//! The host side of the tiled matrix product shared by matmul and conv (shaders/gemm.wgsl):
//! the tile shapes, the choice among them, the launch grid, and split-K.
//!
//! Large tiles reuse each loaded value more often but leave a small product with too few
//! workgroups to fill the device, so each product takes the largest tile that still gives
//! enough workgroups. When the output has too few tiles even so but the inner dimension is
//! long (e.g. a weight gradient summed over a whole batch), the k range is split over several
//! workgroups writing separate partial products, which one reduction then adds.

use super::pipelines::{Kernel, Shader};
use super::{Gpu, GpuBuf, reduce, to_u32};
use bytemuck::{Pod, Zeroable};

/// Output tile BM x BN per workgroup, BK-deep slices of the operands staged in workgroup
/// memory (two buffers), TM x TN outputs per invocation. Written into the shader source
/// (pipelines.rs).
pub(super) struct Tile {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
}

/// The tile shapes, largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum TileShape {
    /// 64 x 128, 8 x 8 per invocation: a layer's 64 filters over many board cells.
    Wide,
    /// 64 x 64, 8 x 4 per invocation.
    Square,
    /// 32 x 32, 4 x 4 per invocation: small products.
    Small,
}

impl TileShape {
    pub(super) const ALL: [TileShape; 3] = [TileShape::Wide, TileShape::Square, TileShape::Small];

    pub(super) const fn tile(self) -> Tile {
        let (bm, bn, tm, tn) = match self {
            TileShape::Wide => (64, 128, 8, 8),
            TileShape::Square => (64, 64, 8, 4),
            TileShape::Small => (32, 32, 4, 4),
        };
        Tile {
            bm,
            bn,
            bk: 8,
            tm,
            tn,
        }
    }

    /// Output tiles of an m x n product.
    fn tiles(self, m: usize, n: usize) -> (usize, usize) {
        let t = self.tile();
        (m.div_ceil(t.bm as usize), n.div_ceil(t.bn as usize))
    }
}

/// What the shader assumes of a tile: invocations own whole quads of rows and columns, and
/// the quads of each operand slice divide evenly among the invocations.
const fn well_formed(t: &Tile) -> bool {
    t.tm.is_multiple_of(4)
        && t.tn.is_multiple_of(4)
        && t.bk.is_multiple_of(4)
        && t.bm.is_multiple_of(t.tm)
        && t.bn.is_multiple_of(t.tn)
        && (t.bm * t.bk / 4).is_multiple_of(t.threads())
        && (t.bn * t.bk / 4).is_multiple_of(t.threads())
}
const _: () = assert!(
    well_formed(&TileShape::Wide.tile())
        && well_formed(&TileShape::Square.tile())
        && well_formed(&TileShape::Small.tile())
);

impl Tile {
    pub(super) fn shader_consts(&self) -> [(&'static str, u32); 5] {
        [
            ("BM", self.bm),
            ("BN", self.bn),
            ("BK", self.bk),
            ("TM", self.tm),
            ("TN", self.tn),
        ]
    }

    /// Invocations per workgroup.
    pub(super) const fn threads(&self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Workgroup memory of the two buffers of staged slices.
    pub(super) const fn workgroup_bytes(&self) -> u32 {
        2 * self.bk * (self.bm + self.bn) * 4
    }
}

/// Take the largest tile giving at least this many workgroups (split-K parts included)...
const MIN_GROUPS: usize = 64;
/// ...and split k when the output has fewer tiles than this...
const TARGET_GROUPS: usize = 128;
/// ...into parts of at least this many k.
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
    /// The tile shape and launch of `batch` products (m x k) (k x n), with k split when that
    /// helps and `may_split` allows it.
    pub(super) fn plan(
        m: usize,
        n: usize,
        k: usize,
        batch: usize,
        may_split: bool,
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
        let shape = TileShape::ALL
            .into_iter()
            .find(|&s| groups(s) >= MIN_GROUPS)
            .unwrap_or(TileShape::Small);
        let bk = shape.tile().bk as usize;
        let (tiles_m, tiles_n) = shape.tiles(m, n);
        let tiles = (tiles_m * tiles_n * batch).max(1);
        let splits = (TARGET_GROUPS / tiles).clamp(1, max_splits);
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
    let len = (h.batch * h.m * h.n) as usize;
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
    let groups = (h.tiles_m * h.tiles_n * h.batch) as usize * splits;
    let flops = 2 * u64::from(h.batch) * u64::from(h.m) * u64::from(h.n) * u64::from(h.k);
    gpu.0.context.record(
        Kernel {
            shader,
            entry: "main",
        },
        bytemuck::bytes_of(params),
        &storage,
        to_u32(groups),
        flops,
    );
    if splits > 1 {
        reduce::sum_axis(gpu, &out, 1, splits, len)
    } else {
        out
    }
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
            let (shape, h) = GemmHeader::plan(m, n, k, batch, true);
            let bk = shape.tile().bk as usize;
            let (ks, s) = (h.k_split as usize, h.splits as usize);
            assert!(s >= 1 && ks % bk == 0);
            assert!(
                ks * s >= k && ks * (s - 1) < k.max(1),
                "{m}x{n}x{k}: {s} splits of {ks}"
            );
        }
        assert!(
            GemmHeader::plan(7, 5, 600, 1, true).1.splits > 1,
            "a long thin product is split"
        );
        assert_eq!(
            GemmHeader::plan(7, 5, 600, 1, false).1.splits,
            1,
            "unless splitting is ruled out"
        );
        assert_eq!(
            GemmHeader::plan(1000, 1000, 4096, 1, true).1.splits,
            1,
            "a wide product is not"
        );
    }

    #[test]
    fn tiles_follow_the_problem_shape() {
        // 64 filters over a batch of 256 boards: the wide tile still fills the device.
        assert_eq!(
            GemmHeader::plan(64, 256 * 64, 576, 1, false).0,
            TileShape::Wide
        );
        // 64 boards: half the wide tiles, enough square ones.
        assert_eq!(
            GemmHeader::plan(64, 64 * 64, 576, 1, false).0,
            TileShape::Square
        );
        // One board: small tiles.
        assert_eq!(GemmHeader::plan(64, 64, 576, 1, false).0, TileShape::Small);
        // A weight gradient over 256 boards: wide tiles, k split among them.
        let (shape, h) = GemmHeader::plan(64, 576, 256 * 64, 1, true);
        assert_eq!(shape, TileShape::Wide);
        assert!(h.splits > 8, "{} splits", h.splits);
    }
}
