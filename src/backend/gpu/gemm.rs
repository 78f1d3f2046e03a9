//! The host side of the tiled matrix product shared by matmul and conv (shaders/gemm.wgsl):
//! tile sizes, the launch grid, and split-K.
//!
//! When the output has too few tiles to occupy the device but the inner dimension is long
//! (e.g. a weight gradient summed over a whole batch), the k range is split over several
//! workgroups writing separate partial products, which one reduction then adds.

use super::pipelines::{Kernel, Shader};
use super::{Gpu, GpuBuf, reduce, to_u32};
use bytemuck::{Pod, Zeroable};

/// Output tile BM x BN per workgroup, BK-deep slices of the operands staged in workgroup
/// memory, TM x TN outputs per invocation. Written into the shader source (pipelines.rs).
pub(super) struct Tile {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
}

pub(super) const TILE: Tile = Tile {
    bm: 64,
    bn: 64,
    bk: 16,
    tm: 4,
    tn: 4,
};
const _: () = assert!(TILE.bm.is_multiple_of(TILE.tm) && TILE.bn.is_multiple_of(TILE.tn));

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

    /// Workgroup memory of the two staged slices.
    pub(super) const fn workgroup_bytes(&self) -> u32 {
        self.bk * (self.bm + self.bn) * 4
    }
}

/// Split k when the output has fewer tiles than this...
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
    /// The launch of `batch` products (m x k) (k x n), with k split when that helps.
    pub(super) fn plan(m: usize, n: usize, k: usize, batch: usize) -> GemmHeader {
        let tiles_m = m.div_ceil(TILE.bm as usize);
        let tiles_n = n.div_ceil(TILE.bn as usize);
        let tiles = (tiles_m * tiles_n * batch).max(1);
        let splits = (TARGET_GROUPS / tiles).clamp(1, (k / MIN_SPLIT_K).max(1));
        let k_split = k
            .div_ceil(splits)
            .next_multiple_of(TILE.bk as usize)
            .max(TILE.bk as usize);
        GemmHeader {
            m: to_u32(m),
            n: to_u32(n),
            k: to_u32(k),
            batch: to_u32(batch),
            k_split: to_u32(k_split),
            splits: to_u32(k.div_ceil(k_split).max(1)),
            tiles_m: to_u32(tiles_m),
            tiles_n: to_u32(tiles_n),
        }
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
    let mut buffers = vec![&out];
    buffers.extend_from_slice(inputs);
    let groups = (h.tiles_m * h.tiles_n * h.batch) as usize * splits;
    gpu.launch(
        Kernel {
            shader,
            entry: "main",
        },
        params,
        &buffers,
        groups,
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
            let h = GemmHeader::plan(m, n, k, batch);
            let (ks, s) = (h.k_split as usize, h.splits as usize);
            assert!(s >= 1 && ks % TILE.bk as usize == 0);
            assert!(
                ks * s >= k && ks * (s - 1) < k.max(1),
                "{m}x{n}x{k}: {s} splits of {ks}"
            );
        }
        assert!(
            GemmHeader::plan(7, 5, 600, 1).splits > 1,
            "a long thin product is split"
        );
        assert_eq!(
            GemmHeader::plan(1000, 1000, 4096, 1).splits,
            1,
            "a wide product is not"
        );
    }
}
