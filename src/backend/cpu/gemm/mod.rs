//! Our SGEMM: a packed-panel driver over SIMD micro-kernels chosen at run time by CPU
//! features (AVX-512, AVX2+FMA), with `matrixmultiply` as the portable path for other CPUs.
//!
//! A product C (m x n) = A (m x k) * B (k x n) runs in blocks of at most `KC` of k. A is packed
//! once into the kernel's tile order ([`PackedA`]; a convolution keeps its packed weights per
//! weight buffer). Within a block each run of `NR` columns of B is packed into a panel (kc rows
//! of NR values, zero past the matrix's last column) by its [`Panels`] source, a strided matrix
//! or a bordered image (`conv::bordered`, no column matrix), and then met by every `MR`-row
//! tile of A.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

use std::sync::OnceLock;

/// Which kernel computes products.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// 8 x 32 tiles on 512-bit vectors.
    Avx512,
    /// 6 x 16 tiles on 256-bit vectors with fused multiply-add.
    Avx2,
    /// `matrixmultiply`'s SGEMM (which picks its own SIMD kernel).
    Portable,
}

/// The environment variable that names a kernel to use instead of the fastest the CPU runs
/// (`avx512`, `avx2` or `portable`), to measure one path against another on one machine.
pub const KERNEL_VAR: &str = "CHECKERS_ZERO_KERNEL";

impl Kernel {
    /// Every kernel this CPU can run, fastest first; the last is always `Portable`.
    pub fn supported() -> Vec<Kernel> {
        let mut out = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                out.push(Kernel::Avx512);
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                out.push(Kernel::Avx2);
            }
        }
        out.push(Kernel::Portable);
        out
    }

    /// The kernel products use: the fastest supported, unless [`KERNEL_VAR`] names another
    /// this CPU supports (a name it does not know or a kernel the CPU lacks is reported once on
    /// stderr and ignored).
    pub fn selected() -> Kernel {
        static SELECTED: OnceLock<Kernel> = OnceLock::new();
        *SELECTED.get_or_init(|| {
            let supported = Kernel::supported();
            let Ok(name) = std::env::var(KERNEL_VAR) else {
                return supported[0];
            };
            match Kernel::from_name(&name) {
                Some(k) if supported.contains(&k) => k,
                Some(_) => {
                    eprintln!(
                        "{KERNEL_VAR}={name}: this CPU cannot run that kernel; using {}",
                        supported[0].name()
                    );
                    supported[0]
                }
                None => {
                    eprintln!(
                        "{KERNEL_VAR}={name}: expected avx512, avx2 or portable; using {}",
                        supported[0].name()
                    );
                    supported[0]
                }
            }
        })
    }

    fn from_name(name: &str) -> Option<Kernel> {
        match name.trim().to_ascii_lowercase().as_str() {
            "avx512" | "avx512f" => Some(Kernel::Avx512),
            "avx2" | "avx2+fma" | "fma" => Some(Kernel::Avx2),
            "portable" => Some(Kernel::Portable),
            _ => None,
        }
    }

    /// The name benchmarks report; the portable path names the kernel `matrixmultiply` runs.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Avx512 => "avx512f",
            Kernel::Avx2 => "avx2+fma",
            Kernel::Portable => portable_kernel(),
        }
    }

    /// Whether this is one of our micro-kernels (which take packed panels from any source).
    pub fn is_ours(self) -> bool {
        self != Kernel::Portable
    }
}

/// The SIMD kernel `matrixmultiply` runs on this CPU: it picks one at run time by CPU features,
/// and this repeats its order of checks so that benchmarks can say which path ran.
fn portable_kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "portable (matrixmultiply avx512f)";
        }
        if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
        {
            return "portable (matrixmultiply fma+avx2)";
        }
        if std::arch::is_x86_feature_detected!("avx") {
            return "portable (matrixmultiply avx)";
        }
    }
    #[cfg(target_arch = "aarch64")]
    if std::arch::is_aarch64_feature_detected!("neon") {
        return "portable (matrixmultiply neon)";
    }
    "portable (matrixmultiply)"
}

/// The FLOP/s a kernel's vector FMAs reach on `threads` threads at once, each running
/// independent FMAs for about `seconds` (a multiply-add counted as 2 FLOPs): the machine's
/// peak for that kernel as it clocks under load, which no product can exceed. None for the
/// portable path, whose kernel is not ours.
pub fn fma_peak(kernel: Kernel, threads: usize, seconds: f64) -> Option<f64> {
    let (run, flops_per_iter): (fn(u64) -> f32, f64) = match kernel {
        // SAFETY (both): `supported` checked the features.
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 if Kernel::supported().contains(&kernel) => {
            (|n| unsafe { avx512::fma_loop(n) }, avx512::LOOP_FLOPS)
        }
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 if Kernel::supported().contains(&kernel) => {
            (|n| unsafe { avx2::fma_loop(n) }, avx2::LOOP_FLOPS)
        }
        _ => return None,
    };
    // Calibrate the iterations to the time asked for on one thread, then run all at once.
    let probe = 1u64 << 20;
    let start = std::time::Instant::now();
    std::hint::black_box(run(probe));
    let per_iter = start.elapsed().as_secs_f64() / probe as f64;
    let iters = ((seconds / per_iter.max(1e-12)) as u64).max(probe);
    let start = std::time::Instant::now();
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..threads.max(1))
            .map(|_| s.spawn(move || std::hint::black_box(run(iters))))
            .collect();
        runs.into_iter().for_each(|r| {
            r.join().expect("an FMA loop panicked");
        });
    });
    let secs = start.elapsed().as_secs_f64();
    Some(iters as f64 * flops_per_iter * threads.max(1) as f64 / secs)
}

/// The most of k a block takes: a panel of 256 x 32 values is 32 KB, inside a core's L1.
const KC: usize = 256;

/// How a tile is written: added to C or over it, and with a ReLU after.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Store {
    pub accumulate: bool,
    pub relu: bool,
}

/// A micro-kernel: one MR x NR tile of C from one packed tile of A and one packed panel of B.
pub(crate) trait MicroKernel {
    const MR: usize;
    const NR: usize;
    /// C[i][j] (= or +=) sum over p < kc of A[i][p] * B[p][j], then max(0, .) if `relu`.
    ///
    /// # Safety
    /// The CPU has the kernel's features; `a` has kc * MR readable values (A[i][p] at
    /// `p * MR + i`); `b` has kc * NR (B[p][j] at `p * NR + j`); `c` has MR rows `ldc` apart of
    /// NR writable values.
    unsafe fn tile(kc: usize, a: *const f32, b: *const f32, c: *mut f32, ldc: usize, store: Store);
}

/// The k blocks of a product: `count` blocks of `len` (the last shorter).
#[derive(Clone, Copy, Debug)]
struct Blocks {
    count: usize,
    len: usize,
}

impl Blocks {
    fn of(k: usize) -> Self {
        let count = k.div_ceil(KC).max(1);
        Blocks {
            count,
            len: k.div_ceil(count),
        }
    }
}

/// A packed for one micro-kernel: for each k block, each tile of MR rows as kc x MR values
/// (zero rows past m), so the kernel reads it in order. A convolution packs its weights once a
/// call and shares them between its tasks (and the inference path keeps them per model).
pub(crate) struct PackedA {
    kernel: Kernel,
    m: usize,
    k: usize,
    mr: usize,
    data: Aligned,
}

impl PackedA {
    /// A (m x k) given by element strides (row, column), packed for `kernel` (one of ours).
    pub fn new(
        kernel: Kernel,
        (m, k): (usize, usize),
        a: &[f32],
        (rs, cs): (usize, usize),
    ) -> Self {
        let mr = tile_shape(kernel).0;
        let tiles = m.div_ceil(mr);
        assert!(
            m == 0 || k == 0 || (m - 1) * rs + (k - 1) * cs < a.len(),
            "pack: A too small"
        );
        let mut data = Aligned::new(tiles * mr * k);
        let out = data.slice(tiles * mr * k);
        let blocks = Blocks::of(k);
        let mut at = 0;
        for blk in 0..if k == 0 { 0 } else { blocks.count } {
            let k0 = blk * blocks.len;
            let kc = blocks.len.min(k - k0);
            for t in 0..tiles {
                let tile = &mut out[at..at + kc * mr];
                for r in 0..mr.min(m - t * mr) {
                    let row = &a[(t * mr + r) * rs + k0 * cs..];
                    let dst = tile[r..].iter_mut().step_by(mr);
                    if cs == 1 {
                        dst.zip(&row[..kc]).for_each(|(o, &v)| *o = v);
                    } else {
                        dst.zip(row.iter().step_by(cs)).for_each(|(o, &v)| *o = v);
                    }
                }
                at += kc * mr;
            }
        }
        PackedA {
            kernel,
            m,
            k,
            mr,
            data,
        }
    }

    /// Whether this is A (m x k) packed for `kernel`.
    pub fn fits(&self, kernel: Kernel, (m, k): (usize, usize)) -> bool {
        (self.kernel, self.m, self.k) == (kernel, m, k)
    }

    /// The packed tile of rows from `i0` (a multiple of MR) in k block `blk`.
    fn tile(&self, blk: usize, i0: usize) -> *const f32 {
        let blocks = Blocks::of(self.k);
        let tiles = self.m.div_ceil(self.mr);
        let start = blk * blocks.len * tiles * self.mr;
        let kc = blocks.len.min(self.k - blk * blocks.len);
        self.data.0.as_flattened()[start + (i0 / self.mr) * kc * self.mr..].as_ptr()
    }
}

/// A micro-kernel's tile, (MR, NR) (the portable path has none: (1, 1)).
pub(crate) fn tile_shape(kernel: Kernel) -> (usize, usize) {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => (avx512::Tile::MR, avx512::Tile::NR),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => (avx2::Tile::MR, avx2::Tile::NR),
        _ => (1, 1),
    }
}

/// The columns of B as packed panels.
pub(crate) trait Panels: Sync {
    /// Writes rows `k` and columns `cols` of B into `dst` (k.len() rows of `nr` values, row p
    /// at `p * nr`); columns past `cols.len()` are zero.
    fn pack(
        &self,
        k: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
        nr: usize,
        dst: &mut [f32],
    );
}

/// B given by element strides (row, column).
pub(crate) struct Strided<'a> {
    pub b: &'a [f32],
    pub rs: usize,
    pub cs: usize,
}

impl Panels for Strided<'_> {
    fn pack(
        &self,
        k: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
        nr: usize,
        dst: &mut [f32],
    ) {
        let width = cols.len();
        for (p, row) in k.zip(dst.chunks_exact_mut(nr)) {
            let src = &self.b[p * self.rs + cols.start * self.cs..];
            if self.cs == 1 {
                row[..width].copy_from_slice(&src[..width]);
            } else {
                let from = src.iter().step_by(self.cs);
                row[..width].iter_mut().zip(from).for_each(|(o, &v)| *o = v);
            }
            row[width..].fill(0.0);
        }
    }
}

/// Where C's cells lie: its columns come in blocks of `block`, block `b` from
/// `b * block_stride` on, and within a block rows are `ldc` apart. A plain matrix is one block;
/// a convolution's output (images x channels x pixels) is a block of `pixels` columns an image,
/// so the product writes it in place.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutLayout {
    pub ldc: usize,
    pub block: usize,
    pub block_stride: usize,
}

impl OutLayout {
    /// A row-major matrix of rows `ldc` apart.
    pub fn matrix(ldc: usize) -> Self {
        OutLayout {
            ldc,
            block: usize::MAX,
            block_stride: 0,
        }
    }

    fn at(&self, i: usize, j: usize) -> usize {
        (j / self.block) * self.block_stride + i * self.ldc + j % self.block
    }

    /// The furthest cell an m x n product may write.
    fn last(&self, m: usize, n: usize) -> usize {
        let blocks = (n - 1) / self.block;
        let col = if blocks == 0 { n - 1 } else { self.block - 1 };
        blocks * self.block_stride + (m - 1) * self.ldc + col
    }

    /// Whether no tile `nr` wide straddles two blocks of an `n`-column product.
    pub fn fits(&self, n: usize, nr: usize) -> bool {
        n <= self.block || self.block.is_multiple_of(nr)
    }
}

/// C (rows `rows` of A's m, every column of B; laid out by `out`) = or += A * B (k x n), with a
/// ReLU after if asked, on the micro-kernel A was packed for. `rows` starts at a multiple of the
/// kernel's MR, so that tasks can share out A's rows.
pub(crate) fn product(
    a: &PackedA,
    rows: std::ops::Range<usize>,
    (b, n): (&dyn Panels, usize),
    c: &mut [f32],
    out: OutLayout,
    store: Store,
) {
    match a.kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => drive::<avx512::Tile>(a, rows, (b, n), c, out, store),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => drive::<avx2::Tile>(a, rows, (b, n), c, out, store),
        kernel => panic!("product: {kernel:?} is not a micro-kernel"),
    }
}

/// A 64-byte aligned scratch buffer of floats (a packed panel, an edge tile).
struct Aligned(Vec<[f32; 16]>);

impl Aligned {
    fn new(len: usize) -> Self {
        Aligned(vec![[0.0; 16]; len.div_ceil(16)])
    }
    fn slice(&mut self, len: usize) -> &mut [f32] {
        &mut self.0.as_flattened_mut()[..len]
    }
}

fn drive<K: MicroKernel>(
    a: &PackedA,
    rows: std::ops::Range<usize>,
    (b, n): (&dyn Panels, usize),
    c: &mut [f32],
    out: OutLayout,
    store: Store,
) {
    let (mr, nr) = (K::MR, K::NR);
    let k = a.k;
    assert!(
        rows.end <= a.m && rows.start.is_multiple_of(mr),
        "product: rows {rows:?} of A"
    );
    if rows.is_empty() || n == 0 {
        return;
    }
    let m = rows.len();
    assert!(
        out.fits(n, nr),
        "product: a tile would straddle two blocks of C"
    );
    assert!(out.last(m, n) < c.len(), "product: C too small");
    let ldc = out.ldc;
    if k == 0 {
        if !store.accumulate {
            for j0 in (0..n).step_by(nr) {
                let width = nr.min(n - j0);
                (0..m).for_each(|i| c[out.at(i, j0)..][..width].fill(0.0));
            }
        }
        return;
    }
    let blocks = Blocks::of(k);
    let mut panel = Aligned::new(blocks.len * nr);
    let mut edge = Aligned::new(mr * nr);
    for blk in 0..blocks.count {
        let k0 = blk * blocks.len;
        let kc = blocks.len.min(k - k0);
        let store = Store {
            accumulate: store.accumulate || blk > 0,
            relu: store.relu && blk + 1 == blocks.count,
        };
        for j0 in (0..n).step_by(nr) {
            let width = nr.min(n - j0);
            let panel = panel.slice(kc * nr);
            b.pack(k0..k0 + kc, j0..j0 + width, nr, panel);
            for i0 in (0..m).step_by(mr) {
                let height = mr.min(m - i0);
                let ap = a.tile(blk, rows.start + i0);
                let at = out.at(i0, j0);
                if height == mr && width == nr {
                    // SAFETY: drive is reached only through `product`, for a kernel the CPU
                    // runs (A was packed for it); the asserts above keep the tile inside C.
                    unsafe { K::tile(kc, ap, panel.as_ptr(), c[at..].as_mut_ptr(), ldc, store) };
                    continue;
                }
                // An edge tile goes through a full-size copy of its cells (A's packed tile is
                // always full: zero rows past m).
                let tmp = edge.slice(mr * nr);
                if store.accumulate {
                    for r in 0..height {
                        tmp[r * nr..r * nr + width].copy_from_slice(&c[at + r * ldc..][..width]);
                    }
                }
                // SAFETY: as above, with a full-size tile.
                unsafe { K::tile(kc, ap, panel.as_ptr(), tmp.as_mut_ptr(), nr, store) };
                for r in 0..height {
                    c[at + r * ldc..][..width].copy_from_slice(&tmp[r * nr..r * nr + width]);
                }
            }
        }
    }
}

/// C (m x n, row-major, `n` apart) += or = A * B on `kernel`, with A and B given by element
/// strides. `accumulate` adds to C instead of overwriting it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    kernel: Kernel,
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    (rsa, csa): (usize, usize),
    b: &[f32],
    (rsb, csb): (usize, usize),
    c: &mut [f32],
    accumulate: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(
        k == 0 || (m - 1) * rsa + (k - 1) * csa < a.len(),
        "gemm: A too small"
    );
    assert!(
        k == 0 || (k - 1) * rsb + (n - 1) * csb < b.len(),
        "gemm: B too small"
    );
    assert!(c.len() >= m * n, "gemm: C too small");
    if kernel.is_ours() {
        let store = Store {
            accumulate,
            relu: false,
        };
        let a = PackedA::new(kernel, (m, k), a, (rsa, csa));
        let b = Strided {
            b,
            rs: rsb,
            cs: csb,
        };
        return product(&a, 0..m, (&b, n), c, OutLayout::matrix(n), store);
    }
    let beta = if accumulate { 1.0 } else { 0.0 };
    // SAFETY: the asserts above keep every index the kernel reads or writes inside the slices.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            rsa as isize,
            csa as isize,
            b.as_ptr(),
            rsb as isize,
            csb as isize,
            beta,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::backend::cpu::test_values as values;

    /// Every kernel this CPU runs against the portable path, on shapes with edge tiles in m
    /// and n, several k blocks, transposed operands and accumulation.
    #[test]
    fn every_supported_kernel_computes_what_the_portable_one_does() {
        let shapes = [
            (1, 1, 1),
            (8, 576, 64),
            (64, 576, 64),
            (7, 3, 33),
            (13, 300, 50),
            (70, 600, 129),
            (6, 1000, 16),
            (3, 0, 5),
        ];
        for kernel in Kernel::supported() {
            for &(m, k, n) in &shapes {
                for (ta, tb, acc) in [
                    (false, false, false),
                    (true, false, true),
                    (false, true, true),
                    (true, true, false),
                ] {
                    let a = values(m * k, 1);
                    let b = values(k * n, 2);
                    let sa = if ta { (1, m) } else { (k, 1) };
                    let sb = if tb { (1, k) } else { (n, 1) };
                    let c0 = values(m * n, 3);
                    let (mut want, mut got) = (c0.clone(), c0);
                    gemm(Kernel::Portable, m, k, n, &a, sa, &b, sb, &mut want, acc);
                    gemm(kernel, m, k, n, &a, sa, &b, sb, &mut got, acc);
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        // Sums of k products of values below 2 in size, in another order.
                        let tol = 1e-5 * (k as f32 * 4.0 + 1.0);
                        assert!(
                            (g - w).abs() <= tol,
                            "{kernel:?} ({m}, {k}, {n}) ta {ta} tb {tb} acc {acc}: \
                             cell {i}: {g} vs {w}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_relu_store_clamps_after_the_last_block() {
        for kernel in Kernel::supported().into_iter().filter(|k| k.is_ours()) {
            let (m, k, n) = (9, 700, 40);
            let (a, b) = (values(m * k, 4), values(k * n, 5));
            let mut plain = vec![0.0; m * n];
            gemm(kernel, m, k, n, &a, (k, 1), &b, (n, 1), &mut plain, false);
            let mut clamped = vec![0.0; m * n];
            let store = Store {
                accumulate: false,
                relu: true,
            };
            let strided = Strided {
                b: &b,
                rs: n,
                cs: 1,
            };
            let packed = PackedA::new(kernel, (m, k), &a, (k, 1));
            let out = OutLayout::matrix(n);
            product(&packed, 0..m, (&strided, n), &mut clamped, out, store);
            let want: Vec<f32> = plain.iter().map(|v| v.max(0.0)).collect();
            assert_eq!(clamped, want, "{kernel:?}");
            assert!(
                plain.iter().any(|&v| v < 0.0),
                "the test needs negative sums"
            );
        }
    }

    #[test]
    fn kernel_names_parse() {
        assert_eq!(Kernel::from_name("AVX512"), Some(Kernel::Avx512));
        assert_eq!(Kernel::from_name("avx2"), Some(Kernel::Avx2));
        assert_eq!(Kernel::from_name("portable"), Some(Kernel::Portable));
        assert_eq!(Kernel::from_name("sse"), None);
        assert_eq!(Kernel::supported().last(), Some(&Kernel::Portable));
    }
}
