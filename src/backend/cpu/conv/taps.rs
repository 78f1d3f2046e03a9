//! Tap convolutions ([`TapDims`]) on our SGEMM: out (c_out x cells) = W (c_out x c_in*taps) *
//! B, where B's row (c, t) and column (image g, cell s) is image g's channel c at the cell that
//! tap t of cell s reads. Packing reads those cells straight from the images into the
//! micro-kernel's panels, so no column matrix is made; the bias, residual and ReLU go into the
//! store as for the grid convolutions.

use super::super::gemm::{Kernel, PackedA, Panels, tile_shape};
use super::super::{CpuBuf, amx};
use super::{ConvRows, Epilogue, MAX_GROUP, Operand, Packing, cached_as};
use crate::backend::TapDims;
use rayon::prelude::*;
use std::ops::Range;

/// Some images of a tap convolution's input, as the SGEMM's B.
pub(super) struct TapPanels<'a> {
    /// The images, (images, c_in, cells_in).
    x: &'a [f32],
    d: TapDims,
    /// The table tap-major: `by_tap[t * cells_out + s]` is the cell tap t of cell s reads.
    by_tap: &'a [u32],
    /// On our SIMD kernels, for images of 32 cells in and out (a dark-square layer).
    #[cfg(target_arch = "x86_64")]
    fast: Option<&'a Fast>,
}

impl Panels for TapPanels<'_> {
    fn pack(&self, k: Range<usize>, cols: Range<usize>, nr: usize, dst: &mut [f32]) {
        let d = &self.d;
        #[cfg(target_arch = "x86_64")]
        if let Some(fast) = self.fast
            && fast.pack(self.x, d, k.clone(), cols.clone(), nr, dst)
        {
            return;
        }
        let width = cols.len();
        for ((c, t), row) in channel_taps(k, d.taps).zip(dst.chunks_exact_mut(nr)) {
            let reads = &self.by_tap[t * d.cells_out..][..d.cells_out];
            // The columns a run an image: cells s0.. of image g.
            let (mut j, mut at) = (cols.start, 0);
            while j < cols.end {
                let (g, s0) = (j / d.cells_out, j % d.cells_out);
                let len = (d.cells_out - s0).min(cols.end - j);
                let plane = &self.x[(g * d.c_in + c) * d.cells_in..][..d.cells_in];
                let out = &mut row[at..at + len];
                // NO_CELL is past every plane: it reads zero.
                for (o, &cell) in out.iter_mut().zip(&reads[s0..s0 + len]) {
                    *o = plane.get(cell as usize).copied().unwrap_or(0.0);
                }
                (j, at) = (j + len, at + len);
            }
            row[width..].fill(0.0);
        }
    }
}

/// The (channel, tap) of each of the product's rows `k`, counted on rather than divided
/// out: a division a row cost as much as packing the row.
fn channel_taps(k: Range<usize>, taps: usize) -> impl Iterator<Item = (usize, usize)> {
    let first = (k.start / taps, k.start % taps);
    std::iter::successors(Some(first), move |&(c, t)| {
        Some(if t + 1 == taps {
            (c + 1, 0)
        } else {
            (c, t + 1)
        })
    })
    .take(k.len())
}

/// Cells of an image the SIMD packings serve, in and out: a dark-square layer's 32.
#[cfg(target_arch = "x86_64")]
const CELLS: usize = 32;

/// A 32-cell tap table laid out for one of our kernels' packings, which move a channel's
/// cells with vector permutes where the plain loop reads them one by one (the loop was most
/// of a dark-square network's inference time on AVX2).
#[cfg(target_arch = "x86_64")]
enum Fast {
    Avx512(avx512::Lanes),
    Avx2(avx2::Lanes),
}

#[cfg(target_arch = "x86_64")]
impl Fast {
    /// For `kernel`'s panels of a table of 32 cells in and out, tap-major (`by_tap`).
    fn new(kernel: Kernel, d: &TapDims, by_tap: &[u32]) -> Option<Fast> {
        if d.cells_in != CELLS || d.cells_out != CELLS {
            return None;
        }
        match kernel {
            Kernel::Avx512 => Some(Fast::Avx512(avx512::Lanes::new(by_tap))),
            Kernel::Avx2 => avx2::Lanes::new(by_tap).map(Fast::Avx2),
            Kernel::Portable => None,
        }
    }

    /// Packs rows `k` of columns `cols` when they are one whole panel of one image (as every
    /// panel is when the images are grouped), and says whether it did.
    fn pack(
        &self,
        x: &[f32],
        d: &TapDims,
        k: Range<usize>,
        cols: Range<usize>,
        nr: usize,
        dst: &mut [f32],
    ) -> bool {
        let width = match self {
            Fast::Avx512(_) => avx512::WIDTH,
            Fast::Avx2(_) => avx2::WIDTH,
        };
        if cols.len() != width || nr != width || !cols.start.is_multiple_of(width) {
            return false;
        }
        let image = &x[cols.start / CELLS * d.c_in * CELLS..];
        // SAFETY: each layout is made only for its kernel, which runs only on a CPU with its
        // instructions; the image's planes and the panel's rows are in bounds.
        match self {
            Fast::Avx512(lanes) => unsafe { avx512::pack(image, d, lanes, k, dst) },
            Fast::Avx2(lanes) => {
                let half = cols.start % CELLS / avx2::WIDTH;
                unsafe { avx2::pack(image, d, lanes, half, k, dst) }
            }
        }
        true
    }
}

/// Packing half a 32-cell image's panel row (the AVX2 tile's 16 columns) as two vectors of 8:
/// each permuted out of the one or two 8-cell vectors of the channel it reads (a dark-square
/// tap reads cells of the two board rows around its own, so at most two) and blended, and
/// zero in the lanes that read nothing.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{CELLS, TapDims};
    use crate::backend::NO_CELL;
    use std::arch::x86_64::*;
    use std::ops::Range;

    /// Columns of a panel: the AVX2 tile's width.
    pub const WIDTH: usize = 16;
    /// Vectors of 8 cells in an image.
    const VECTORS: usize = CELLS / 8;

    /// How one output vector of a tap is made: the lane each output reads in its source
    /// vector, the lanes (all ones) that read the second source and those that read any, and
    /// the two source vectors.
    #[derive(Clone, Copy, Default)]
    struct Gather {
        index: [i32; 8],
        second: [i32; 8],
        keep: [i32; 8],
        from: [usize; 2],
    }

    /// Per tap, its output vectors' gathers.
    pub struct Lanes(Vec<[Gather; VECTORS]>);

    impl Lanes {
        /// For a table of 32 cells in and out, tap-major; none when an output vector reads
        /// more than two of the image's vectors (the plain loop packs such tables).
        pub fn new(by_tap: &[u32]) -> Option<Lanes> {
            let mut lanes = Lanes(vec![[Gather::default(); VECTORS]; by_tap.len() / CELLS]);
            for (gathers, reads) in lanes.0.iter_mut().zip(by_tap.chunks_exact(CELLS)) {
                for (g, reads) in gathers.iter_mut().zip(reads.chunks_exact(8)) {
                    let mut from: Vec<usize> = reads
                        .iter()
                        .filter(|&&cell| cell != NO_CELL)
                        .map(|&cell| cell as usize / 8)
                        .collect();
                    from.sort_unstable();
                    from.dedup();
                    if from.len() > 2 {
                        return None;
                    }
                    g.from = [from.first(), from.last()].map(|v| v.copied().unwrap_or(0));
                    for (lane, &cell) in reads.iter().enumerate() {
                        if cell != NO_CELL {
                            g.index[lane] = (cell % 8) as i32;
                            g.keep[lane] = -1;
                            if cell as usize / 8 != g.from[0] {
                                g.second[lane] = -1;
                            }
                        }
                    }
                }
            }
            Some(lanes)
        }
    }

    /// Panel rows `k` (16 values each) of half `half` (0 or 1) of the image whose planes start
    /// `x`.
    ///
    /// # Safety
    /// The CPU has AVX2; `x` holds the image's `c_in` planes of 32 cells; `dst` holds
    /// `k.len()` rows of 16.
    #[target_feature(enable = "avx2")]
    pub unsafe fn pack(
        x: &[f32],
        d: &TapDims,
        lanes: &Lanes,
        half: usize,
        k: Range<usize>,
        dst: &mut [f32],
    ) {
        for ((c, t), row) in super::channel_taps(k, d.taps).zip(dst.chunks_exact_mut(WIDTH)) {
            let plane = &x[c * CELLS..][..CELLS];
            for (h, g) in lanes.0[t][2 * half..][..2].iter().enumerate() {
                // SAFETY: every load and store is of 8 values inside `plane`, `g` or `row`
                // (`from` holds vectors of the plane).
                unsafe {
                    let vector = |v: usize| _mm256_loadu_ps(plane.as_ptr().add(8 * v));
                    let mask =
                        |m: &[i32; 8]| _mm256_castsi256_ps(_mm256_loadu_si256(m.as_ptr().cast()));
                    let at = _mm256_loadu_si256(g.index.as_ptr().cast());
                    let first = _mm256_permutevar8x32_ps(vector(g.from[0]), at);
                    let second = _mm256_permutevar8x32_ps(vector(g.from[1]), at);
                    let both = _mm256_blendv_ps(first, second, mask(&g.second));
                    _mm256_storeu_ps(
                        row.as_mut_ptr().add(8 * h),
                        _mm256_and_ps(both, mask(&g.keep)),
                    );
                }
            }
        }
    }
}

/// Packing a 32-cell image's panel rows with two permutes a row: a row of the panel is a
/// channel's 32 cells (two vectors) permuted by the tap, zero where the tap reads nothing.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{CELLS, TapDims};
    use crate::backend::NO_CELL;
    use crate::backend::cpu::amx;
    use std::arch::x86_64::*;
    use std::ops::Range;

    /// Columns of a panel: the AVX-512 tile's width, a whole image.
    pub const WIDTH: usize = CELLS;

    /// Per tap, the cell each of the 32 outputs reads (0 where none) and the mask of those
    /// that read one.
    pub struct Lanes {
        index: Vec<[i32; CELLS]>,
        mask: Vec<u32>,
    }

    impl Lanes {
        /// For a table of 32 cells in and out, tap-major.
        pub fn new(by_tap: &[u32]) -> Lanes {
            let taps = by_tap.len() / CELLS;
            let mut lanes = Lanes {
                index: vec![[0; CELLS]; taps],
                mask: vec![0; taps],
            };
            for (t, reads) in by_tap.chunks_exact(CELLS).enumerate() {
                for (s, &cell) in reads.iter().enumerate() {
                    if cell != NO_CELL {
                        lanes.index[t][s] = cell as i32;
                        lanes.mask[t] |= 1 << s;
                    }
                }
            }
            lanes
        }
    }

    /// Panel rows `k` (32 values each) of the image whose planes start `x`.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `x` holds the image's `c_in` planes of 32 cells; `dst` holds
    /// `k.len()` rows of 32.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn pack(x: &[f32], d: &TapDims, lanes: &Lanes, k: Range<usize>, dst: &mut [f32]) {
        for ((c, t), row) in super::channel_taps(k, d.taps).zip(dst.chunks_exact_mut(CELLS)) {
            let plane = &x[c * CELLS..][..CELLS];
            // SAFETY: the plane and `row` hold 32 values.
            unsafe {
                let [left, right] = lanes.read(
                    _mm512_loadu_ps(plane.as_ptr()),
                    _mm512_loadu_ps(plane.as_ptr().add(16)),
                    t,
                );
                _mm512_storeu_ps(row.as_mut_ptr(), left);
                _mm512_storeu_ps(row.as_mut_ptr().add(16), right);
            }
        }
    }

    impl Lanes {
        /// What tap `t` of the 32 cells reads of a channel's cells (`lo`: 0-15, `hi`:
        /// 16-31), in two vectors of 16 cells, zero where it reads nothing.
        #[target_feature(enable = "avx512f")]
        fn read(&self, lo: __m512, hi: __m512, t: usize) -> [__m512; 2] {
            let (index, mask) = (&self.index[t], self.mask[t]);
            [0, 1].map(|h| {
                // SAFETY: a load of 16 values inside `index`.
                let at = unsafe { _mm512_loadu_epi32(index.as_ptr().add(16 * h)) };
                _mm512_maskz_permutex2var_ps((mask >> (16 * h)) as u16, lo, at, hi)
            })
        }
    }

    /// The panel of the image whose planes start `x`, all `d.patch()` rows, as AMX's bf16
    /// tiles: per block of 32 rows, the tile of cells 0-15 and that of 16-31, each 16 rows
    /// of a pair of panel rows with a cell's two values side by side; zero past the panel.
    /// A channel's cells are loaded once for all its taps.
    ///
    /// # Safety
    /// The CPU has AVX-512F, BW and BF16; `x` holds the image's `c_in` planes of 32 cells;
    /// `dst` holds `d.patch().div_ceil(32)` blocks of two tiles.
    #[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
    pub unsafe fn pack_bf16(x: &[f32], d: &TapDims, lanes: &Lanes, dst: &mut [u16]) {
        let blocks = d.patch().div_ceil(amx::DEPTH);
        assert!(dst.len() >= blocks * 2 * amx::TILE && x.len() >= d.c_in * CELLS);
        let mut pair = 0;
        let mut put = |even: [__m512; 2], odd: [__m512; 2]| {
            for h in 0..2 {
                let tile = (pair / amx::ROWS) * 2 + h;
                let at = tile * amx::TILE + (pair % amx::ROWS) * amx::DEPTH;
                // SAFETY: the tile row of 32 values at `at` is inside `dst` (checked above).
                unsafe {
                    _mm512_storeu_si512(dst.as_mut_ptr().add(at).cast(), pairs(even[h], odd[h]))
                };
            }
            pair += 1;
        };
        let mut even = None;
        for plane in x.chunks_exact(CELLS).take(d.c_in) {
            // SAFETY: the plane holds 32 values.
            let (lo, hi) = unsafe {
                (
                    _mm512_loadu_ps(plane.as_ptr()),
                    _mm512_loadu_ps(plane.as_ptr().add(16)),
                )
            };
            for t in 0..d.taps {
                let row = lanes.read(lo, hi, t);
                match even.take() {
                    Some(first) => put(first, row),
                    None => even = Some(row),
                }
            }
        }
        let zero = [_mm512_setzero_ps(); 2];
        if let Some(first) = even {
            put(first, zero);
        }
        for _ in d.patch().div_ceil(2)..blocks * amx::ROWS {
            put(zero, zero);
        }
    }

    /// Each lane's value of `even` and of `odd` rounded to bf16 (to nearest, ties to even,
    /// as [`amx::bf16`] but for subnormals, which become zero), side by side, `even`'s first.
    #[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
    fn pairs(even: __m512, odd: __m512) -> __m512i {
        // `odd`'s 16 in the high half, `even`'s in the low.
        let halves: __m512i = unsafe { std::mem::transmute(_mm512_cvtne2ps_pbh(odd, even)) };
        let side_by_side = _mm512_set_epi16(
            31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6, 21, 5, 20,
            4, 19, 3, 18, 2, 17, 1, 16, 0,
        );
        _mm512_permutexvar_epi16(side_by_side, halves)
    }
}

/// Multiply-adds of a product small enough to compute on the calling thread: handing it to
/// the pool and waiting (a wake-up and a sleep each layer) cost more than splitting it saves.
/// dark-tiny's layer at batch 8 is 1.3 M.
const INLINE_MAX_MACS: usize = 1 << 22;

/// relu?(tap_conv(x, w) + bias? + residual?) on `kernel`, one of ours. The batch is shared
/// out over the threads in groups of at most `MAX_GROUP` images, each group one product;
/// a small batch is computed on the calling thread.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward(
    kernel: Kernel,
    x: &[f32],
    w: &CpuBuf,
    bias: Option<&[f32]>,
    residual: Option<&[f32]>,
    relu: bool,
    d: TapDims,
    table: &[u32],
) -> CpuBuf {
    let by_tap = tap_major(table, &d);
    #[cfg(target_arch = "x86_64")]
    let epi = Epilogue {
        bias,
        residual,
        relu,
    };
    if let Some(out) = forward_mixed(x, w, epi, d, &by_tap) {
        return out;
    }
    let k = d.patch();
    // Inference's weights are one buffer a model version: packed once, then kept.
    let fits = |p: &Packing| matches!(p, Packing::Gemm(a) if a.fits(kernel, (d.c_out, k)));
    let make = || Packing::Gemm(PackedA::new(kernel, (d.c_out, k), w.as_slice(), (k, 1)));
    let packing = cached_as(w, fits, make);
    let Packing::Gemm(packed) = &*packing else {
        unreachable!("a tap convolution's weights are packed for the SGEMM")
    };
    let w = w.as_slice();
    let pixels = d.cells_out;
    let image = d.c_out * pixels;
    let mut out = vec![0.0f32; d.n * image];
    let threads = rayon::current_num_threads().max(1);
    // Our kernels write a group's images in place, which needs every tile inside one image.
    let max_group = if pixels.is_multiple_of(tile_shape(kernel).1) {
        MAX_GROUP
    } else {
        1
    };
    let group = d.n.div_ceil(threads).clamp(1, max_group);
    let input = d.c_in * d.cells_in;
    #[cfg(target_arch = "x86_64")]
    let fast = Fast::new(kernel, &d, &by_tap);
    let compute = |product: &mut Vec<f32>, (j, dst): (usize, &mut [f32])| {
        let images = j * group..j * group + dst.len() / image;
        let panels = TapPanels {
            x: &x[images.start * input..images.end * input],
            d,
            by_tap: &by_tap,
            #[cfg(target_arch = "x86_64")]
            fast: fast.as_ref(),
        };
        let rows = ConvRows {
            packed: Some((packed, 0..d.c_out)),
            w,
            bias,
            residual: residual.map(|r| &r[images.start * image..images.end * image]),
            relu,
            k,
            pixels,
        };
        rows.compute(&Operand::Taps(panels), dst, product);
    };
    by_groups(&mut out, group * image, d.n * d.c_out * k * pixels, compute);
    CpuBuf::new(out)
}

/// `compute` on each group of images of `out` (`len` values a group, with their index and a
/// scratch each task): on the calling thread for a product of at most `INLINE_MAX_MACS`
/// multiply-adds (`macs`), else shared out over the pool.
fn by_groups<T: Default + Send>(
    out: &mut [f32],
    len: usize,
    macs: usize,
    compute: impl Fn(&mut T, (usize, &mut [f32])) + Send + Sync,
) {
    if macs <= INLINE_MAX_MACS {
        let mut scratch = T::default();
        out.chunks_mut(len)
            .enumerate()
            .for_each(|task| compute(&mut scratch, task));
    } else {
        out.par_chunks_mut(len)
            .enumerate()
            .for_each_init(T::default, compute);
    }
}

/// The table (cell-major: `table[s * taps + t]`) tap-major.
fn tap_major(table: &[u32], d: &TapDims) -> Vec<u32> {
    (0..d.taps)
        .flat_map(|t| (0..d.cells_out).map(move |s| table[s * d.taps + t]))
        .collect()
}

/// [`forward`] with bf16 products on AMX tiles ([`amx`]), where this thread's products are
/// mixed and the tiles serve the layer (a dark-square layer: 32 cells in and out, channels
/// out a multiple of 32); `None` otherwise. Each image is one product, its panel packed
/// straight into bf16 tiles; the bias, residual and ReLU go over its output after.
#[cfg(target_arch = "x86_64")]
fn forward_mixed(
    x: &[f32],
    w: &CpuBuf,
    epi: Epilogue,
    d: TapDims,
    by_tap: &[u32],
) -> Option<CpuBuf> {
    let Epilogue {
        bias,
        residual,
        relu,
    } = epi;
    let served = d.cells_in == CELLS && d.cells_out == CELLS;
    if !(served && d.c_out.is_multiple_of(2 * amx::ROWS) && amx::mixed()) {
        return None;
    }
    let k = d.patch();
    let fits = |p: &Packing| matches!(p, Packing::Amx(a) if a.fits(d.c_out, k));
    let make = || Packing::Amx(amx::PackedA::new(w.as_slice(), d.c_out, k));
    let packing = cached_as(w, fits, make);
    let Packing::Amx(a) = &*packing else {
        unreachable!("packed as AMX tiles")
    };
    let lanes = avx512::Lanes::new(by_tap);
    let (input, image) = (d.c_in * CELLS, d.c_out * CELLS);
    let compute = |panel: &mut Vec<u16>, (j, dst): (usize, &mut [f32])| {
        panel.resize(a.blocks() * 2 * amx::TILE, 0);
        // SAFETY: `amx::mixed()` says the CPU has AMX (and so AVX-512F, BW and BF16) and this
        // process its tiles; each image's input and output are whole, the panel holds its
        // blocks.
        let tiles = unsafe { amx::Tiles::new() };
        for (g, out) in (j * MAX_GROUP..).zip(dst.chunks_exact_mut(image)) {
            unsafe {
                avx512::pack_bf16(&x[g * input..][..input], &d, &lanes, panel);
                for i in 0..d.c_out / (2 * amx::ROWS) {
                    let c = out[i * 2 * amx::ROWS * CELLS..].as_mut_ptr();
                    tiles.product(a, i, panel, c, CELLS);
                }
            }
            let residual = residual.map(|r| &r[g * image..][..image]);
            for (ch, row) in out.chunks_exact_mut(CELLS).enumerate() {
                let b = bias.map_or(0.0, |b| b[ch]);
                let r = residual.map(|r| &r[ch * CELLS..][..CELLS]);
                for (s, v) in row.iter_mut().enumerate() {
                    let sum = *v + b + r.map_or(0.0, |r| r[s]);
                    *v = if relu { sum.max(0.0) } else { sum };
                }
            }
        }
    };
    let mut out = vec![0.0f32; d.n * image];
    by_groups(
        &mut out,
        MAX_GROUP * image,
        d.n * d.c_out * k * CELLS,
        compute,
    );
    Some(CpuBuf::new(out))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::backend::NO_CELL;
    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    /// A tap-major table of 32 cells in and out whose taps read cells anywhere in the image
    /// (every 8-cell vector), some none.
    fn scattered_table(taps: usize, rng: &mut StdRng) -> Vec<u32> {
        let mut by_tap = Vec::new();
        for _ in 0..taps {
            let mut cells: Vec<u32> = (0..CELLS as u32).collect();
            cells.shuffle(rng);
            by_tap.extend(cells.iter().map(|&c| {
                if rng.random_range(0..5) == 0 {
                    NO_CELL
                } else {
                    c
                }
            }));
        }
        by_tap
    }

    /// A tap-major table of 32 cells in and out whose every 8 outputs read cells of their own
    /// 8 and of one neighbouring 8 (as a dark-square tap reads the board rows around its
    /// own), some none.
    fn local_table(taps: usize, rng: &mut StdRng) -> Vec<u32> {
        let mut by_tap = Vec::new();
        for _ in 0..taps {
            for q in 0..CELLS / 8 {
                let other = if q == 0 || (q < 3 && rng.random()) {
                    q + 1
                } else {
                    q - 1
                };
                for _ in 0..8 {
                    let v = if rng.random() { q } else { other };
                    by_tap.push(if rng.random_range(0..5) == 0 {
                        NO_CELL
                    } else {
                        (8 * v + rng.random_range(0..8)) as u32
                    });
                }
            }
        }
        by_tap
    }

    /// Each SIMD packing this CPU runs writes the panels the plain loop writes, bit for bit:
    /// every whole panel of three images, from a row block that starts mid-channel, for a
    /// table of local reads (which every packing takes) and one of scattered reads (which
    /// AVX-512's takes and AVX2's leaves to the plain loop).
    #[test]
    fn every_simd_packing_packs_what_the_plain_loop_does() {
        let d = TapDims {
            n: 3,
            c_in: 4,
            cells_in: CELLS,
            c_out: 1,
            cells_out: CELLS,
            taps: 5,
        };
        let x: Vec<f32> = (0..d.n * d.c_in * CELLS).map(|i| i as f32 + 0.5).collect();
        let rng = &mut StdRng::seed_from_u64(1);
        for (name, by_tap) in [
            ("local", local_table(d.taps, rng)),
            ("scattered", scattered_table(d.taps, rng)),
        ] {
            for kernel in Kernel::supported().into_iter().filter(|k| k.is_ours()) {
                let fast = Fast::new(kernel, &d, &by_tap);
                let taken = name == "local" || kernel == Kernel::Avx512;
                assert_eq!(fast.is_some(), taken, "{kernel:?} takes the {name} table");
                let Some(fast) = fast else { continue };
                let nr = tile_shape(kernel).1;
                let panels = |fast| TapPanels {
                    x: &x,
                    d,
                    by_tap: &by_tap,
                    fast,
                };
                let k = 3..d.patch();
                for j0 in (0..d.n * CELLS).step_by(nr) {
                    let mut want = vec![f32::NAN; k.len() * nr];
                    let mut got = want.clone();
                    panels(None).pack(k.clone(), j0..j0 + nr, nr, &mut want);
                    panels(Some(&fast)).pack(k.clone(), j0..j0 + nr, nr, &mut got);
                    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&got),
                        bits(&want),
                        "{kernel:?}, {name} table, columns from {j0}"
                    );
                }
            }
        }
    }

    /// AMX's bf16 tiles hold the panel the plain loop packs, rounded to bf16, a column's two
    /// rows of a pair side by side, zero past the panel's rows (35 here: two blocks of 32).
    #[test]
    fn bf16_tiles_hold_the_plain_panel_rounded() {
        let packs = ["avx512f", "avx512bw", "avx512bf16"];
        if !(std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512bf16"))
        {
            eprintln!("skipped: this CPU lacks one of {packs:?}");
            return;
        }
        let d = TapDims {
            n: 1,
            c_in: 7,
            cells_in: CELLS,
            c_out: 32,
            cells_out: CELLS,
            taps: 5,
        };
        let rng = &mut StdRng::seed_from_u64(2);
        let x: Vec<f32> = (0..d.c_in * CELLS)
            .map(|_| rng.random_range(-2.0..2.0))
            .collect();
        let by_tap = local_table(d.taps, rng);
        let k = d.patch();
        let mut panel = vec![0.0; k * CELLS];
        let plain = TapPanels {
            x: &x,
            d,
            by_tap: &by_tap,
            fast: None,
        };
        plain.pack(0..k, 0..CELLS, CELLS, &mut panel);
        let blocks = k.div_ceil(amx::DEPTH);
        let mut tiles = vec![u16::MAX; blocks * 2 * amx::TILE];
        // SAFETY: the CPU has AVX-512F, BW and BF16; x is one image, the tiles hold its
        // blocks.
        unsafe { avx512::pack_bf16(&x, &d, &avx512::Lanes::new(&by_tap), &mut tiles) };
        for row in 0..blocks * amx::DEPTH {
            for cell in 0..CELLS {
                let (pair, side) = (row / 2, row % 2);
                let tile = (pair / amx::ROWS) * 2 + cell / amx::ROWS;
                let at = tile * amx::TILE + (pair % amx::ROWS) * amx::DEPTH + (cell % 16) * 2;
                let want = if row < k {
                    amx::bf16(panel[row * CELLS + cell])
                } else {
                    0
                };
                assert_eq!(tiles[at + side], want, "row {row}, cell {cell}");
            }
        }
    }

    /// A tap convolution at mixed precision is within bf16's bound of the f32 one: each of
    /// an output's products has both operands rounded by at most 2^-8 of their size, so it
    /// is off by at most 2^-7 of its own, and the sums are f32 (2^-20 of the sum of sizes
    /// covers both paths' f32 rounding). With and without bias, residual and ReLU, on one
    /// thread and on the pool, at 32 and 64 channels out.
    #[test]
    fn mixed_tap_convolution_is_within_bf16s_bound() {
        if !amx::available() {
            eprintln!("skipped: this CPU or its OS offers no AMX tiles");
            return;
        }
        let rng = &mut StdRng::seed_from_u64(3);
        for (c_in, c_out, n) in [(32, 32, 3), (13, 32, 1), (64, 64, 9)] {
            let d = TapDims {
                n,
                c_in,
                cells_in: CELLS,
                c_out,
                cells_out: CELLS,
                taps: 5,
            };
            let k = d.patch();
            let mut values = |len: usize| -> Vec<f32> {
                (0..len).map(|_| rng.random_range(-2.0..2.0)).collect()
            };
            let x = values(n * c_in * CELLS);
            let w = CpuBuf::new(values(c_out * k));
            let bias = values(c_out);
            let residual = values(n * c_out * CELLS);
            let by_tap = local_table(d.taps, rng);
            let table: Vec<u32> = (0..CELLS)
                .flat_map(|s| (0..d.taps).map(move |t| (s, t)))
                .map(|(s, t)| by_tap[t * CELLS + s])
                .collect();
            // Per output, the sum of its products' sizes.
            let mut sizes = vec![0.0f32; n * c_out * CELLS];
            let mut panel = vec![0.0; k * CELLS];
            for g in 0..n {
                let plain = TapPanels {
                    x: &x[g * c_in * CELLS..][..c_in * CELLS],
                    d,
                    by_tap: &by_tap,
                    fast: None,
                };
                plain.pack(0..k, 0..CELLS, CELLS, &mut panel);
                for co in 0..c_out {
                    for s in 0..CELLS {
                        let weights = &w.as_slice()[co * k..][..k];
                        sizes[(g * c_out + co) * CELLS + s] = (weights.iter().enumerate())
                            .map(|(r, v)| (v * panel[r * CELLS + s]).abs())
                            .sum();
                    }
                }
            }
            for (b, r, relu) in [
                (None, None, false),
                (Some(&bias[..]), None, true),
                (Some(&bias[..]), Some(&residual[..]), true),
            ] {
                let on = |mixed| {
                    let _products = amx::mixed_scope(mixed);
                    forward(Kernel::selected(), &x, &w, b, r, relu, d, &table)
                };
                let (strict, mixed) = (on(false), on(true));
                let mut differ = false;
                for (i, (&m, &f)) in mixed.as_slice().iter().zip(strict.as_slice()).enumerate() {
                    let outside = b.map_or(0.0, |b| b[i / CELLS % c_out].abs())
                        + r.map_or(0.0, |r| r[i].abs());
                    let bound = sizes[i] * 2f32.powi(-7) + (sizes[i] + outside) * 2f32.powi(-20);
                    assert!(
                        (m - f).abs() <= bound,
                        "{c_in}->{c_out} x{n}, output {i}: mixed {m}, f32 {f}, bound {bound}"
                    );
                    differ |= m != f;
                }
                assert!(differ, "{c_in}->{c_out}: the mixed path computed in f32");
            }
        }
    }
}
