//! bf16 products on Intel's AMX tiles: `precision=mixed` on the CPU. A tile product
//! (`TDPBF16PS`) multiplies 16 x 32 bf16 values by 32 x 16 and adds them into 16 x 16 f32
//! sums, about eight times what AVX-512's f32 multiply-adds do in the same cycles. Operands
//! are rounded to bf16 (8 bits of precision, to nearest even: off by at most 2^-8 of their
//! size), sums stay f32: each product is off by at most 2^-7 of its size, so a sum by at most
//! 2^-7 * sum |a| |b| (tested against the f32 path in conv/taps.rs).
//!
//! Which products take it is a property of the thread, set for the length of a scope
//! ([`mixed_scope`]) by whoever asked for mixed precision (a network evaluator,
//! `bench nn --precision mixed`), so that two agents in one process can differ and a
//! training step beside mixed self-play stays f32. Products with no bf16 path stay f32.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether evaluators made without a precision of their own compute mixed: the process's
/// `--precision` (`train`'s self-play).
static EVALUATORS: AtomicBool = AtomicBool::new(false);

/// Evaluators made from now on without a precision of their own compute mixed (where
/// [`available`]): for a command line's `--precision mixed` on the CPU.
pub fn mix_evaluators() {
    EVALUATORS.store(true, Ordering::Relaxed);
}

/// Whether evaluators made without a precision of their own compute mixed.
pub fn evaluators_mixed() -> bool {
    EVALUATORS.load(Ordering::Relaxed)
}

thread_local! {
    static MIXED: Cell<bool> = const { Cell::new(false) };
}

/// While it lives, this thread's products take their bf16 path where they have one.
pub struct MixedScope(bool);

/// Products on this thread run mixed (`on`) or strict until the scope ends.
pub fn mixed_scope(on: bool) -> MixedScope {
    MixedScope(MIXED.replace(on))
}

impl Drop for MixedScope {
    fn drop(&mut self) {
        MIXED.set(self.0);
    }
}

/// Whether this thread's products are to take their bf16 path (and the CPU has one).
pub(crate) fn mixed() -> bool {
    MIXED.get() && available()
}

/// Whether this CPU and its OS run AMX's bf16 tile products: CPUID says the CPU has them,
/// and the kernel grants the process the tiles' state (Linux asks for it per process).
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(detect)
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect() -> bool {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    const AMX_BF16: u32 = 1 << 22;
    const AMX_TILE: u32 = 1 << 24;
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // The panels are packed with AVX-512 (BF16's conversions, BW's shuffles).
    let packing = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512bf16");
    if __cpuid(0).eax < 7 || !packing {
        return false;
    }
    let edx = __cpuid_count(7, 0).edx;
    if edx & (AMX_BF16 | AMX_TILE) != AMX_BF16 | AMX_TILE {
        return false;
    }
    // SAFETY: a plain system call with integer arguments; it fails (non-zero) where the
    // kernel does not know the request or refuses it.
    unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        ) == 0
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn detect() -> bool {
    false
}

/// `x` rounded to bf16 (to nearest, ties to even), as its 16 bits.
pub(crate) fn bf16(x: f32) -> u16 {
    let u = x.to_bits();
    (u.wrapping_add(0x7FFF + ((u >> 16) & 1)) >> 16) as u16
}

/// Rows of a tile and bf16 values a tile row holds (64 bytes).
pub(crate) const ROWS: usize = 16;
pub(crate) const DEPTH: usize = 32;
/// bf16 values in a tile.
pub(crate) const TILE: usize = ROWS * DEPTH;

/// A (m x k) in tiles of 16 rows by 32 of k, bf16, zero past k: tile (i, kb) holds rows
/// 16i.. and k 32kb.., each row 64 bytes. The products take 32 rows at a time, so m is a
/// multiple of 32.
pub(crate) struct PackedA {
    m: usize,
    k: usize,
    tiles: Vec<u16>,
}

impl PackedA {
    /// `a`'s rows, `k` values each.
    pub fn new(a: &[f32], m: usize, k: usize) -> PackedA {
        assert!(
            m.is_multiple_of(2 * ROWS) && a.len() == m * k,
            "A is 32n rows of k"
        );
        let blocks = k.div_ceil(DEPTH);
        let mut tiles = vec![0u16; m * blocks * DEPTH];
        for (i, rows) in a.chunks_exact(ROWS * k).enumerate() {
            for kb in 0..blocks {
                let tile = &mut tiles[(i * blocks + kb) * TILE..][..TILE];
                for (r, row) in rows.chunks_exact(k).enumerate() {
                    let part = &row[kb * DEPTH..k.min((kb + 1) * DEPTH)];
                    for (o, &v) in tile[r * DEPTH..].iter_mut().zip(part) {
                        *o = bf16(v);
                    }
                }
            }
        }
        PackedA { m, k, tiles }
    }

    pub fn fits(&self, m: usize, k: usize) -> bool {
        (self.m, self.k) == (m, k)
    }

    /// Blocks of 32 of k.
    pub fn blocks(&self) -> usize {
        self.k.div_ceil(DEPTH)
    }
}

/// The tiles configured on this thread for [`Tiles::product`]: eight of 16 rows of 64
/// bytes; released when dropped.
pub(crate) struct Tiles(());

#[repr(C, align(64))]
struct Config([u8; 64]);

#[cfg(target_arch = "x86_64")]
impl Tiles {
    /// # Safety
    /// [`available`] is true.
    pub unsafe fn new() -> Tiles {
        let mut config = Config([0; 64]);
        config.0[0] = 1; // palette 1
        for t in 0..8 {
            config.0[16 + 2 * t] = 64; // bytes a row
            config.0[48 + t] = ROWS as u8;
        }
        // SAFETY: the configuration is 64 bytes, aligned, and valid for palette 1.
        unsafe { std::arch::asm!("ldtilecfg [{}]", in(reg) config.0.as_ptr(), options(nostack)) };
        Tiles(())
    }

    /// C (rows 32i.. of A, 32 columns) = A's rows times B, one image's 32 columns in
    /// `b`'s tiles: per k block, the tiles of columns 0-15 and of 16-31, each 16 pairs of k
    /// by 16 columns (a column's two values of a pair side by side, as `TDPBF16PS` reads
    /// them). C's rows are `c_row` f32 apart.
    ///
    /// # Safety
    /// `b` holds `a.blocks()` k blocks of two tiles; `c` is valid for 32 rows of 32 values
    /// `c_row` apart.
    pub unsafe fn product(&self, a: &PackedA, i: usize, b: &[u16], c: *mut f32, c_row: usize) {
        let blocks = a.blocks();
        assert!(b.len() >= blocks * 2 * TILE && (i + 1) * 2 * ROWS <= a.m);
        let stride = 64usize;
        let c_stride = c_row * 4;
        let a0 = a.tiles[2 * i * blocks * TILE..].as_ptr();
        let a1 = a.tiles[(2 * i + 1) * blocks * TILE..].as_ptr();
        // SAFETY: the tiles are configured (`new`); every load reads 16 rows of 64 bytes
        // inside `a.tiles` or `b` (checked above), every store of C is
        // inside `c`.
        unsafe {
            std::arch::asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                options(nostack, nomem)
            );
            for kb in 0..blocks {
                std::arch::asm!(
                    "tileloadd tmm4, [{a0} + {s}*1]",
                    "tileloadd tmm5, [{a1} + {s}*1]",
                    "tileloadd tmm6, [{b0} + {s}*1]",
                    "tileloadd tmm7, [{b1} + {s}*1]",
                    "tdpbf16ps tmm0, tmm4, tmm6",
                    "tdpbf16ps tmm1, tmm4, tmm7",
                    "tdpbf16ps tmm2, tmm5, tmm6",
                    "tdpbf16ps tmm3, tmm5, tmm7",
                    a0 = in(reg) a0.add(kb * TILE),
                    a1 = in(reg) a1.add(kb * TILE),
                    b0 = in(reg) b.as_ptr().add(2 * kb * TILE),
                    b1 = in(reg) b.as_ptr().add((2 * kb + 1) * TILE),
                    s = in(reg) stride,
                    options(nostack, readonly)
                );
            }
            std::arch::asm!(
                "tilestored [{c00} + {s}*1], tmm0",
                "tilestored [{c01} + {s}*1], tmm1",
                "tilestored [{c10} + {s}*1], tmm2",
                "tilestored [{c11} + {s}*1], tmm3",
                c00 = in(reg) c,
                c01 = in(reg) c.add(ROWS),
                c10 = in(reg) c.add(ROWS * c_row),
                c11 = in(reg) c.add(ROWS * c_row + ROWS),
                s = in(reg) c_stride,
                options(nostack)
            );
        }
    }
}

impl Drop for Tiles {
    fn drop(&mut self) {
        // SAFETY: the tiles were configured by `new`.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!("tilerelease", options(nostack, nomem))
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(bf16(1.0), 0x3F80);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even 1.
        assert_eq!(bf16(1.0 + 1.0 / 256.0), 0x3F80);
        // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: it rounds up.
        assert_eq!(bf16(1.0 + 3.0 / 256.0), 0x3F82);
        assert_eq!(bf16(-2.5), 0xC020);
        assert_eq!(bf16(0.0), 0);
    }
}
