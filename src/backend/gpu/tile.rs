//! The tile shapes of the GPU's matrix product, and what each writes into the shader
//! source: its sizes and each invocation's register block (pipelines.rs compiles them,
//! gemm.rs chooses among them).

use std::sync::atomic::{AtomicU8, Ordering};

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
pub enum TileShape {
    /// 64 x 128, 8 x 8 per invocation: a layer's 64 filters over many board cells.
    Wide,
    /// 64 x 64, 8 x 4 per invocation.
    Square,
    /// 32 x 32, 4 x 4 per invocation: small products.
    Small,
    /// 64 x 64 on cooperative matrices (shaders/gemm_tensor.wgsl): every product under
    /// `precision=mixed`, never planned by size.
    Tensor,
}

/// Invocations of a `Tensor` workgroup: four subgroups of 32 (the context refuses mixed
/// precision where subgroups may be wider).
pub(super) const TENSOR_THREADS: u32 = 128;

/// The tile every product takes instead of the planned one (0: none, else 1 + its index in
/// `TileShape::ALL`): the parity tests force each tile path through it, and
/// `CHECKERS_ZERO_GPU_TILE` (wide, square, small) times one tile against another.
static FORCED: AtomicU8 = AtomicU8::new(0);

/// The variable naming a tile for every product, read when the context is made.
pub(super) const TILE_VARIABLE: &str = "CHECKERS_ZERO_GPU_TILE";

impl TileShape {
    pub(super) const ALL: [TileShape; 3] = [TileShape::Wide, TileShape::Square, TileShape::Small];

    /// Its name as `CHECKERS_ZERO_GPU_TILE` gives it.
    pub fn name(self) -> &'static str {
        match self {
            TileShape::Wide => "wide",
            TileShape::Square => "square",
            TileShape::Small => "small",
            TileShape::Tensor => "tensor",
        }
    }

    pub fn from_name(name: &str) -> Option<TileShape> {
        TileShape::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Makes every product take `tile` (None: each its planned one again).
    pub(super) fn force(tile: Option<TileShape>) {
        let code = tile.map_or(0, |t| {
            1 + TileShape::ALL.iter().position(|&a| a == t).unwrap_or(0)
        });
        FORCED.store(code as u8, Ordering::Relaxed);
    }

    pub(super) fn forced() -> Option<TileShape> {
        match FORCED.load(Ordering::Relaxed) {
            0 => None,
            code => TileShape::ALL.get(code as usize - 1).copied(),
        }
    }

    pub(super) const fn tile(self) -> Tile {
        let (bm, bn, bk, tm, tn) = match self {
            TileShape::Wide => (64, 128, 8, 8, 8),
            TileShape::Square => (64, 64, 8, 8, 4),
            TileShape::Small => (32, 32, 8, 4, 4),
            // Its "register block" is the cooperative matrices' 16 x 16.
            TileShape::Tensor => (64, 64, 32, 16, 16),
        };
        Tile { bm, bn, bk, tm, tn }
    }

    /// Invocations per workgroup.
    pub(super) const fn threads(self) -> u32 {
        match self {
            TileShape::Tensor => TENSOR_THREADS,
            _ => self.tile().threads(),
        }
    }

    /// Workgroup memory: the f32 cores' two buffers of staged slices, or the tensor core's
    /// f16 slices and its f32 output tile.
    pub(super) const fn workgroup_bytes(self) -> u32 {
        let t = self.tile();
        match self {
            TileShape::Tensor => t.bk * (t.bm + t.bn) * 2 + t.bm * t.bn * 4,
            _ => 2 * t.bk * (t.bm + t.bn) * 4,
        }
    }

    /// Output tiles of an m x n product.
    pub(super) fn tiles(self, m: usize, n: usize) -> (usize, usize) {
        let t = self.tile();
        (m.div_ceil(t.bm as usize), n.div_ceil(t.bn as usize))
    }
}

/// What the shader assumes of a tile: invocations own whole quads of rows and columns, the
/// quads of each operand slice divide evenly among the invocations, and the moments'
/// BM x COLS slots fit in either operand's two staged slices (conv_moments.wgsl parks them
/// there).
const fn well_formed(t: &Tile) -> bool {
    let slots = t.bm * (t.bn / t.tn);
    t.tm.is_multiple_of(4)
        && t.tn.is_multiple_of(4)
        && t.bk.is_multiple_of(4)
        && t.bm.is_multiple_of(t.tm)
        && t.bn.is_multiple_of(t.tn)
        && (t.bm * t.bk / 4).is_multiple_of(t.threads())
        && (t.bn * t.bk / 4).is_multiple_of(t.threads())
        && slots <= 2 * t.bk * t.bm
        && slots <= 2 * t.bk * t.bn
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

    /// The code of each invocation's share of the work, written out for this tile with
    /// every register named and every index a constant (gemm.wgsl says why): the
    /// `{{NAME}}` sections of the shader's `main`.
    pub(super) fn register_block(&self) -> [(&'static str, String); 6] {
        let (quads_a, quads_b) = (self.bm * self.bk / 4, self.bn * self.bk / 4);
        let (staged_a, staged_b) = (quads_a / self.threads(), quads_b / self.threads());
        let (row_quads, col_quads) = (self.tm / 4, self.tn / 4);
        let lines = |f: &mut dyn FnMut(&mut Vec<String>)| {
            let mut out = Vec::new();
            f(&mut out);
            out.join("\n")
        };
        // One line per staged quad of either operand: (operand, quads, its tile's origin).
        let operands = [("a", staged_a, "at.row0"), ("b", staged_b, "at.col0")];
        let per_quad = |line: &dyn Fn(&str, u32, &str) -> String| {
            lines(&mut |o| {
                for (op, quads, origin) in operands {
                    (0..quads).for_each(|q| o.push(line(op, q, origin)));
                }
            })
        };
        let staged = per_quad(&|op, q, _| format!("    var staged_{op}{q}: vec4<f32>;"));
        let load = per_quad(&|op, q, origin| {
            format!(
                "        staged_{op}{q} = fetch_{op}(at.bat, {origin}, k0, at.k_end, li + {q}u * THREADS);"
            )
        });
        let stash = per_quad(&|op, q, _| {
            format!("        stash_{op}(buf, li + {q}u * THREADS, staged_{op}{q});")
        });
        let accumulators = lines(&mut |o| {
            for r in 0..self.tm {
                (0..col_quads).for_each(|c| o.push(format!("    var acc_{r}_{c} = vec4(0.0);")));
            }
        });
        let multiply = lines(&mut |o| {
            for q in 0..row_quads {
                o.push(format!(
                    "            let a{q} = tile_a[buf][kk * (BM / 4u) + {q}u * ROWS + lid.y];"
                ));
            }
            for c in 0..col_quads {
                o.push(format!(
                    "            let b{c} = tile_b[buf][kk * (BN / 4u) + {c}u * COLS + lid.x];"
                ));
            }
            for r in 0..self.tm {
                let (q, lane) = (r / 4, ["x", "y", "z", "w"][r as usize % 4]);
                for c in 0..col_quads {
                    o.push(format!(
                        "            acc_{r}_{c} = fma(vec4(a{q}.{lane}), b{c}, acc_{r}_{c});"
                    ));
                }
            }
        });
        let store = lines(&mut |o| {
            for r in 0..self.tm {
                let row = format!("at.row0 + ({}u * ROWS + lid.y) * 4u + {}u", r / 4, r % 4);
                for c in 0..col_quads {
                    o.push(format!(
                        "    store_quad(at.split, at.bat, {row}, at.col0 + ({c}u * COLS + lid.x) * 4u, acc_{r}_{c});"
                    ));
                }
            }
        });
        [
            ("STAGED", staged),
            ("LOAD_SLICE", load),
            ("STASH_SLICE", stash),
            ("ACCUMULATORS", accumulators),
            ("MULTIPLY", multiply),
            ("STORE", store),
        ]
    }

    /// Invocations per workgroup of the f32 core: one per register block.
    pub(super) const fn threads(&self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }
}
