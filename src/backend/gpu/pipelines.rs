//! WGSL sources and the pipeline cache: each (shader variant, entry point) is compiled once.
//!
//! Shader constants (workgroup and tile sizes, the conv mode and layer shape) are
//! written into the source from the Rust constants that launch the kernels, replacing
//! `{{NAME}}` placeholders, so the shaders and the host cannot disagree. Every placeholder
//! must be filled and every value given must be used; the tests below also read the compiled
//! workgroup sizes back.

use super::fast_hash::FastMap;
use super::tile::TileShape;
use std::sync::{Arc, Mutex};

/// Invocations per workgroup of the one-dimensional kernels (a power of two: the reductions
/// halve it).
pub(super) const WG: u32 = 256;
const _: () = assert!(WG.is_power_of_two());

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
const ELEMENTWISE: &str = include_str!("../../../shaders/elementwise.wgsl");
const REDUCE: &str = include_str!("../../../shaders/reduce.wgsl");
const LAYOUT: &str = include_str!("../../../shaders/layout.wgsl");
const OPTIM: &str = include_str!("../../../shaders/optim.wgsl");
const LOSS: &str = include_str!("../../../shaders/loss.wgsl");
const WORKGROUP: &str = include_str!("../../../shaders/workgroup.wgsl");
const GEMM_OPERANDS: &str = include_str!("../../../shaders/gemm_operands.wgsl");
const GEMM: &str = include_str!("../../../shaders/gemm.wgsl");
const GEMM_TENSOR: &str = include_str!("../../../shaders/gemm_tensor.wgsl");
const MATMUL: &str = include_str!("../../../shaders/matmul.wgsl");
const CONV_IO: &str = include_str!("../../../shaders/conv_io.wgsl");
const CONV: &str = include_str!("../../../shaders/conv.wgsl");
const CONV_MOMENTS: &str = include_str!("../../../shaders/conv_moments.wgsl");
const EPILOGUE: &str = include_str!("../../../shaders/epilogue.wgsl");
const SPLIT_SUM: &str = include_str!("../../../shaders/split_sum.wgsl");
const TAP_CONV: &str = include_str!("../../../shaders/tap_conv.wgsl");
const WINOGRAD: &str = include_str!("../../../shaders/winograd.wgsl");
const WINOGRAD_OUT: &str = include_str!("../../../shaders/winograd_out.wgsl");
const WINOGRAD_IN: &str = include_str!("../../../shaders/winograd_in.wgsl");
const WINOGRAD_PLANE: &str = include_str!("../../../shaders/winograd_plane.wgsl");
const NORM: &str = include_str!("../../../shaders/norm/common.wgsl");
const NORM_STATISTICS: &str = include_str!("../../../shaders/norm/statistics.wgsl");

/// The passes of training-mode batch norm, each its own module (shaders/norm/).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum NormPass {
    Stats,
    /// The statistics from a convolution's moments (`ConvMode::ForwardMoments`).
    Moments,
    Normalize,
    GradStats,
    GradInput,
    /// Per-channel sums alone (a conv's bias gradient).
    ChannelSum,
}

impl NormPass {
    #[cfg(test)]
    const ALL: [NormPass; 6] = [
        NormPass::Stats,
        NormPass::Moments,
        NormPass::Normalize,
        NormPass::GradStats,
        NormPass::GradInput,
        NormPass::ChannelSum,
    ];

    fn source(self) -> String {
        let statistics = |source: &str| format!("{NORM_STATISTICS}\n{source}");
        match self {
            NormPass::Stats => statistics(include_str!("../../../shaders/norm/stats.wgsl")),
            NormPass::Moments => statistics(include_str!("../../../shaders/norm/moments.wgsl")),
            NormPass::Normalize => include_str!("../../../shaders/norm/normalize.wgsl").to_string(),
            NormPass::GradStats => {
                include_str!("../../../shaders/norm/grad_stats.wgsl").to_string()
            }
            NormPass::GradInput => {
                include_str!("../../../shaders/norm/grad_input.wgsl").to_string()
            }
            NormPass::ChannelSum => {
                include_str!("../../../shaders/norm/channel_sum.wgsl").to_string()
            }
        }
    }
}

/// Which product a conv kernel computes (the shader's MODE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum ConvMode {
    Forward = 0,
    GradInput = 1,
    GradWeight = 2,
    /// The forward writing its output's moments too (shaders/conv_moments.wgsl).
    ForwardMoments = 3,
}

/// The shape of a convolution layer, batch size aside: compiled into its kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct ConvShape {
    pub c_in: u32,
    pub h: u32,
    pub w: u32,
    pub c_out: u32,
    pub kh: u32,
    pub kw: u32,
    pub pad_h: u32,
    pub pad_w: u32,
    pub stride_h: u32,
    pub stride_w: u32,
}

impl ConvShape {
    fn shader_consts(&self) -> [(&'static str, u32); 10] {
        [
            ("C_IN", self.c_in),
            ("H", self.h),
            ("W", self.w),
            ("C_OUT", self.c_out),
            ("KH", self.kh),
            ("KW", self.kw),
            ("PAD_H", self.pad_h),
            ("PAD_W", self.pad_w),
            ("STRIDE_H", self.stride_h),
            ("STRIDE_W", self.stride_w),
        ]
    }
}

/// The shape of a tap convolution layer (tensor/ops/taps.rs), batch size and table aside:
/// compiled into its kernels (the table is bound, as it is data rather than shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct TapShape {
    pub c_in: u32,
    pub cells_in: u32,
    pub c_out: u32,
    pub cells_out: u32,
    pub taps: u32,
}

impl TapShape {
    fn shader_consts(&self) -> [(&'static str, u32); 5] {
        [
            ("C_IN", self.c_in),
            ("CELLS_IN", self.cells_in),
            ("C_OUT", self.c_out),
            ("CELLS_OUT", self.cells_out),
            ("TAPS", self.taps),
        ]
    }
}

/// Which product a Winograd kernel computes (winograd.wgsl's MODE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum WinogradMode {
    Forward = 0,
    GradInput = 1,
    /// The forward from transforms made ahead (`Shader::WinogradIn`).
    Ahead = 2,
}

/// A Winograd layer's shape, batch size aside: `c_k` channels in, `c_m` out, `h` x `w`
/// planes (the product's k, its m, and the plane its tiles cover).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct WinogradShape {
    pub c_k: u32,
    pub c_m: u32,
    pub h: u32,
    pub w: u32,
}

/// Invocations per workgroup of the Winograd output transform: columns of one channel.
pub(super) const WINOGRAD_OUT_WG: u32 = 64;
const _: () = assert!(WINOGRAD_OUT_WG.is_power_of_two());

/// A shader module: a kernel family with its specialisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Shader {
    Elementwise,
    Reduce,
    Layout,
    Optim,
    Loss,
    Norm(NormPass),
    Matmul(TileShape),
    Conv {
        mode: ConvMode,
        tile: TileShape,
        shape: ConvShape,
    },
    /// The sum of a split forward convolution's parts, with its epilogue.
    SplitSum,
    /// A tap convolution's forward or weight gradient (the only modes it has).
    TapConv {
        mode: ConvMode,
        tile: TileShape,
        shape: TapShape,
    },
    /// The 36 products of a Winograd F(4x4, 3x3) convolution, both transforms in their loads.
    Winograd {
        mode: WinogradMode,
        tile: TileShape,
        shape: WinogradShape,
    },
    /// A Winograd convolution's output transform with the forward's epilogue, and with the
    /// output's moments for a batch norm where `moments`. Only `c_m`, `h` and `w` of the shape
    /// matter.
    WinogradOut {
        shape: WinogradShape,
        moments: bool,
    },
    /// A Winograd convolution's filter and input transforms made ahead of its products
    /// (entry points `filters` and `inputs`).
    WinogradIn(WinogradShape),
    /// A module that does not compile, for the test that such a kernel fails loudly.
    #[cfg(test)]
    Broken,
}

impl Shader {
    /// The complete WGSL of this module.
    pub(super) fn source(self) -> String {
        let gemm = |family: &str, shape: TileShape, end_tile: &str| {
            let tile = shape.tile();
            if shape == TileShape::Tensor {
                assert!(
                    end_tile.is_empty(),
                    "the tensor core has no end to its tiles"
                );
                let consts = numbers(&[("BK", tile.bk), ("THREADS", shape.threads())]);
                return (format!("{GEMM_OPERANDS}\n{GEMM_TENSOR}\n{family}"), consts);
            }
            let mut consts = tile.register_block().to_vec();
            consts.extend(numbers(&tile.shader_consts()));
            consts.push(("END_TILE", end_tile.to_string()));
            (format!("{GEMM_OPERANDS}\n{GEMM}\n{family}"), consts)
        };
        let (body, mut consts) = match self {
            Shader::Elementwise => (ELEMENTWISE.to_string(), vec![]),
            Shader::Reduce => (format!("{WORKGROUP}\n{REDUCE}"), vec![]),
            Shader::Layout => (LAYOUT.to_string(), vec![]),
            Shader::Optim => (OPTIM.to_string(), vec![]),
            Shader::Loss => (format!("{WORKGROUP}\n{LOSS}"), vec![]),
            Shader::Norm(pass) => (format!("{WORKGROUP}\n{NORM}\n{}", pass.source()), vec![]),
            Shader::Matmul(tile) => gemm(MATMUL, tile, ""),
            Shader::Conv { mode, tile, shape } => {
                // Only the forward with moments has an end to its tiles and notes its values.
                let conv = format!("{CONV_IO}\n{CONV}\n{EPILOGUE}");
                let (family, end_tile, note) = if mode == ConvMode::ForwardMoments {
                    let family = format!("{conv}\n{CONV_MOMENTS}");
                    (
                        family,
                        "    end_tile(at.row0, at.col0, lid, li);",
                        "        note_output(i, y);",
                    )
                } else {
                    (conv, "", "")
                };
                let (body, mut c) = gemm(&family, tile, end_tile);
                c.push(("NOTE_OUTPUT", note.to_string()));
                c.extend(numbers(&[("MODE", mode as u32)]));
                c.extend(numbers(&shape.shader_consts()));
                (body, c)
            }
            Shader::SplitSum => (format!("{SPLIT_SUM}\n{EPILOGUE}"), vec![]),
            Shader::Winograd { mode, tile, shape } => {
                let (body, mut c) = gemm(&format!("{WINOGRAD_PLANE}\n{WINOGRAD}"), tile, "");
                c.extend(numbers(&[
                    ("MODE", mode as u32),
                    ("C_K", shape.c_k),
                    ("C_M", shape.c_m),
                    ("H", shape.h),
                    ("W", shape.w),
                ]));
                (body, c)
            }
            Shader::WinogradOut { shape, moments } => {
                // Without moments, a private array stands in for the binding.
                let binding = if moments {
                    "@group(0) @binding(5) var<storage, read_write> moments: array<f32>;"
                } else {
                    "var<private> moments: array<f32, 3>;"
                };
                let mut c = numbers(&[
                    ("C", shape.c_m),
                    ("H", shape.h),
                    ("W", shape.w),
                    ("OUT_WG", WINOGRAD_OUT_WG),
                ]);
                c.push(("MOMENTS", moments.to_string()));
                c.push(("MOMENTS_BINDING", binding.to_string()));
                (format!("{WINOGRAD_PLANE}\n{WINOGRAD_OUT}\n{EPILOGUE}"), c)
            }
            Shader::WinogradIn(shape) => {
                let c = numbers(&[
                    ("C_K", shape.c_k),
                    ("C_M", shape.c_m),
                    ("H", shape.h),
                    ("W", shape.w),
                ]);
                (format!("{WINOGRAD_PLANE}\n{WINOGRAD_IN}"), c)
            }
            Shader::TapConv { mode, tile, shape } => {
                assert!(
                    matches!(mode, ConvMode::Forward | ConvMode::GradWeight),
                    "a tap convolution has no {mode:?} kernel"
                );
                let (body, mut c) = gemm(&format!("{CONV_IO}\n{TAP_CONV}\n{EPILOGUE}"), tile, "");
                c.extend(numbers(&[("MODE", mode as u32)]));
                c.extend(numbers(&shape.shader_consts()));
                (body, c)
            }
            #[cfg(test)]
            Shader::Broken => ("fn main() { let x: u32 = 1.5; }".to_string(), vec![]),
        };
        consts.extend(numbers(&[("WG", WG)]));
        // Enables come before any declaration.
        let enables = if self.tile() == Some(TileShape::Tensor) {
            "enable f16;\nenable wgpu_cooperative_matrix;\n"
        } else {
            ""
        };
        fill_placeholders(&format!("{enables}{COMMON}\n{body}"), &consts)
    }

    /// The tile of a product's module.
    pub(super) fn tile(self) -> Option<TileShape> {
        match self {
            Shader::Matmul(tile)
            | Shader::Conv { tile, .. }
            | Shader::TapConv { tile, .. }
            | Shader::Winograd { tile, .. } => Some(tile),
            _ => None,
        }
    }

    /// Every kernel family, the products in each tile shape, and the conv modes for layer
    /// shapes that take each of the kernels' paths: a board's 3x3, a strided and padded
    /// non-square kernel, and a 1x1 on a board (B read as vec4s).
    #[cfg(test)]
    fn all() -> Vec<Shader> {
        let board = |c_in, kh, pad| ConvShape {
            c_in,
            h: 8,
            w: 8,
            c_out: 64,
            kh,
            kw: kh,
            pad_h: pad,
            pad_w: pad,
            stride_h: 1,
            stride_w: 1,
        };
        let strided = ConvShape {
            c_in: 3,
            h: 9,
            w: 7,
            c_out: 5,
            kh: 2,
            kw: 3,
            pad_h: 1,
            pad_w: 0,
            stride_h: 3,
            stride_w: 2,
        };
        let mut all = vec![
            Shader::Elementwise,
            Shader::Reduce,
            Shader::Layout,
            Shader::Optim,
            Shader::Loss,
            Shader::SplitSum,
        ];
        all.extend(NormPass::ALL.map(Shader::Norm));
        for tile in TileShape::ALL.into_iter().chain([TileShape::Tensor]) {
            all.push(Shader::Matmul(tile));
            for shape in [board(64, 3, 1), strided, board(32, 1, 0)] {
                for mode in [
                    ConvMode::Forward,
                    ConvMode::GradInput,
                    ConvMode::GradWeight,
                    ConvMode::ForwardMoments,
                ] {
                    // The forward with moments is never planned on the tensor core (conv.rs).
                    if !(tile == TileShape::Tensor && mode == ConvMode::ForwardMoments) {
                        all.push(Shader::Conv { mode, tile, shape });
                    }
                }
            }
            // A dark-square layer, and one whose sizes are multiples of nothing.
            for shape in [
                TapShape {
                    c_in: 32,
                    cells_in: 32,
                    c_out: 32,
                    cells_out: 32,
                    taps: 5,
                },
                TapShape {
                    c_in: 3,
                    cells_in: 6,
                    c_out: 4,
                    cells_out: 5,
                    taps: 3,
                },
            ] {
                for mode in [ConvMode::Forward, ConvMode::GradWeight] {
                    all.push(Shader::TapConv { mode, tile, shape });
                }
            }
            // A board layer, and a plane whose sides are no multiple of 4.
            for shape in [WINOGRAD_BOARD, WINOGRAD_ODD] {
                for mode in [
                    WinogradMode::Forward,
                    WinogradMode::GradInput,
                    WinogradMode::Ahead,
                ] {
                    all.push(Shader::Winograd { mode, tile, shape });
                }
            }
        }
        for shape in [WINOGRAD_BOARD, WINOGRAD_ODD] {
            for moments in [false, true] {
                all.push(Shader::WinogradOut { shape, moments });
            }
            all.push(Shader::WinogradIn(shape));
        }
        all
    }
}

#[cfg(test)]
const WINOGRAD_BOARD: WinogradShape = WinogradShape {
    c_k: 64,
    c_m: 64,
    h: 8,
    w: 8,
};
#[cfg(test)]
const WINOGRAD_ODD: WinogradShape = WinogradShape {
    c_k: 5,
    c_m: 3,
    h: 7,
    w: 9,
};

/// Numeric constants as placeholder values.
fn numbers(consts: &[(&'static str, u32)]) -> Vec<(&'static str, String)> {
    consts.iter().map(|&(k, v)| (k, v.to_string())).collect()
}

/// Replaces each `{{NAME}}` with its value (a number, or generated code); panics on a
/// placeholder left unfilled or a value with no placeholder (a shader and its launcher out
/// of step is a bug, caught at first use).
fn fill_placeholders(src: &str, consts: &[(&str, String)]) -> String {
    let mut out = src.to_string();
    for (name, value) in consts {
        let key = format!("{{{{{name}}}}}");
        assert!(out.contains(&key), "shader has no placeholder {key}");
        out = out.replace(&key, value);
    }
    if let Some(at) = out.find("{{") {
        panic!(
            "shader placeholder left unfilled: {}",
            out[at..].chars().take(40).collect::<String>()
        );
    }
    out
}

/// A kernel: an entry point of a shader module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Kernel {
    pub shader: Shader,
    pub entry: &'static str,
}

impl Kernel {
    /// Its name in profiles: the shader variant and the entry point.
    pub(super) fn name(&self) -> String {
        let family = match self.shader {
            Shader::Conv { mode, tile, shape } => {
                let s = shape;
                let stride = if (s.stride_h, s.stride_w) == (1, 1) {
                    String::new()
                } else {
                    format!(" stride {}x{}", s.stride_h, s.stride_w)
                };
                format!(
                    "Conv {mode:?} {}x{}x{} to {} {}x{}{stride} ({tile:?} tile)",
                    s.c_in, s.h, s.w, s.c_out, s.kh, s.kw
                )
            }
            Shader::TapConv { mode, tile, shape } => {
                let s = shape;
                format!(
                    "TapConv {mode:?} {}x{} to {}x{}, {} taps ({tile:?} tile)",
                    s.c_in, s.cells_in, s.c_out, s.cells_out, s.taps
                )
            }
            Shader::Winograd { mode, tile, shape } => {
                let s = shape;
                format!(
                    "Winograd {mode:?} {}x{}x{} to {} ({tile:?} tile)",
                    s.c_k, s.h, s.w, s.c_m
                )
            }
            Shader::WinogradOut { shape, moments } => {
                let with = if moments { " with moments" } else { "" };
                format!("WinogradOut {}x{}x{}{with}", shape.c_m, shape.h, shape.w)
            }
            Shader::WinogradIn(s) => format!("WinogradIn {}x{}x{} to {}", s.c_k, s.h, s.w, s.c_m),
            Shader::Matmul(tile) => format!("Matmul ({tile:?} tile)"),
            Shader::Norm(pass) => format!("Norm {pass:?}"),
            other => format!("{other:?}"),
        };
        format!("{family}::{}", self.entry)
    }
}

/// A compiled kernel and the layout of its bind group 0 (derived from the shader: binding 0
/// is the uniform parameters, then the storage buffers the entry point uses).
pub(super) struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

pub(super) struct PipelineCache {
    modules: Mutex<FastMap<Shader, wgpu::ShaderModule>>,
    pipelines: Mutex<FastMap<Kernel, Arc<Pipeline>>>,
    /// Every module compiled with wgpu's runtime checks, the products too (see `trusted`).
    checked: bool,
}

/// Set to 1, every shader module keeps wgpu's runtime checks: a build to compare against
/// when a product kernel is suspected of reading out of range.
pub(super) const CHECKS_VARIABLE: &str = "CHECKERS_ZERO_GPU_CHECKS";

impl Shader {
    /// Whether this module may be compiled without wgpu's runtime checks. The GEMM family
    /// (matmul and conv) qualifies: every global read and write sits behind an explicit test
    /// against the matrix's extent (`fetch_a`, `fetch_b` and `store_quad` of gemm.wgsl, the
    /// padding tests of conv.wgsl), the workgroup tiles are indexed by quads that the tile's
    /// shape keeps inside them (`well_formed` in tile.rs), and the register block is named
    /// variables. naga's checks would clamp every index and bound every loop with a counter
    /// (3.4x slower training on an H200). The tap convolution's table reads stay inside the
    /// table, whose length the host checks, and a table entry past the input reads zero.
    fn trusted(self) -> bool {
        matches!(
            self,
            Shader::Matmul(_)
                | Shader::Conv { .. }
                | Shader::TapConv { .. }
                | Shader::Winograd { .. }
        )
    }
}

impl PipelineCache {
    pub(super) fn new(checked: bool) -> PipelineCache {
        PipelineCache {
            modules: Mutex::default(),
            pipelines: Mutex::default(),
            checked,
        }
    }

    /// `kernel`, where it is compiled already.
    pub(super) fn compiled(&self, kernel: Kernel) -> Option<Arc<Pipeline>> {
        let pipelines = self.pipelines.lock().expect("pipeline cache poisoned");
        pipelines.get(&kernel).cloned()
    }

    /// The compiled kernel, or the error that kept it from compiling (a lost device, say):
    /// caught here, because asking an invalid pipeline for its layout would panic.
    pub(super) fn get(
        &self,
        device: &wgpu::Device,
        kernel: Kernel,
    ) -> Result<Arc<Pipeline>, wgpu::Error> {
        let mut pipelines = self.pipelines.lock().expect("pipeline cache poisoned");
        if let Some(p) = pipelines.get(&kernel) {
            return Ok(p.clone());
        }
        let scopes = [
            wgpu::ErrorFilter::Validation,
            wgpu::ErrorFilter::OutOfMemory,
            wgpu::ErrorFilter::Internal,
        ]
        .map(|filter| device.push_error_scope(filter));
        let mut modules = self.modules.lock().expect("shader cache poisoned");
        let module = modules.entry(kernel.shader).or_insert_with(|| {
            let descriptor = wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(kernel.shader.source().into()),
            };
            if self.checked || !kernel.shader.trusted() {
                return device.create_shader_module(descriptor);
            }
            // SAFETY: `Shader::trusted` holds only for modules whose every index is tested
            // against its range in the WGSL itself, and whose loops all have constant or
            // uniform bounds (the parity tests run them on every tile path).
            unsafe {
                device.create_shader_module_trusted(
                    descriptor,
                    wgpu::ShaderRuntimeChecks::unchecked(),
                )
            }
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(kernel.entry),
            layout: None,
            module,
            entry_point: Some(kernel.entry),
            compilation_options: Default::default(),
            cache: None,
        });
        // Scopes pop innermost first.
        for scope in scopes.into_iter().rev() {
            if let Some(e) = pollster::block_on(scope.pop()) {
                modules.remove(&kernel.shader);
                return Err(e);
            }
        }
        let layout = pipeline.get_bind_group_layout(0);
        let compiled = Arc::new(Pipeline { pipeline, layout });
        pipelines.insert(kernel, compiled.clone());
        Ok(compiled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu::naga;

    fn module(shader: Shader) -> naga::Module {
        let src = shader.source();
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{shader:?}: {}", e.emit_to_string(&src)));
        // The tensor core's f16, subgroups and cooperative matrices; nothing else.
        let capabilities = if shader.tile() == Some(TileShape::Tensor) {
            naga::valid::Capabilities::SHADER_FLOAT16
                | naga::valid::Capabilities::SUBGROUP
                | naga::valid::Capabilities::COOPERATIVE_MATRIX
        } else {
            naga::valid::Capabilities::empty()
        };
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
            .validate(&module)
            .unwrap_or_else(|e| panic!("{shader:?}: {}", e.emit_to_string(&src)));
        module
    }

    /// Every shader variant compiles, and every entry point has the workgroup size the host
    /// launches it with: WG for the one-dimensional kernels, one invocation per TM x TN block
    /// of a tile for the products.
    #[test]
    fn shaders_validate_with_the_host_workgroup_sizes() {
        for shader in Shader::all() {
            let m = module(shader);
            assert!(!m.entry_points.is_empty(), "{shader:?} has no entry point");
            for ep in &m.entry_points {
                let want = match (shader, shader.tile()) {
                    (_, Some(TileShape::Tensor)) => [TileShape::Tensor.threads(), 1, 1],
                    (_, Some(tile)) => {
                        let t = tile.tile();
                        [t.bn / t.tn, t.bm / t.tm, 1]
                    }
                    (Shader::WinogradOut { .. }, None) => [WINOGRAD_OUT_WG, 1, 1],
                    _ => [WG, 1, 1],
                };
                assert_eq!(ep.workgroup_size, want, "{shader:?}::{}", ep.name);
            }
        }
    }

    /// The uniform parameter struct of each shader is as large as the Rust struct written
    /// into it, so no field is missing on either side.
    #[test]
    fn params_structs_match_the_host() {
        use std::mem::size_of;
        for shader in Shader::all() {
            let host = match shader {
                Shader::Elementwise => size_of::<super::super::elementwise::Params>(),
                Shader::Reduce => size_of::<super::super::reduce::Params>(),
                Shader::Layout => size_of::<super::super::layout::Params>(),
                Shader::Optim => size_of::<super::super::optim::Params>(),
                Shader::Loss => size_of::<super::super::loss::Params>(),
                Shader::Norm(_) => size_of::<super::super::norm::Params>(),
                Shader::Matmul(_) => size_of::<super::super::matmul::Params>(),
                Shader::Conv { .. } | Shader::TapConv { .. } => {
                    size_of::<super::super::conv::Params>()
                }
                Shader::SplitSum => size_of::<super::super::conv::SplitSumParams>(),
                Shader::Winograd { .. } => size_of::<super::super::winograd::Params>(),
                Shader::WinogradOut { .. } => size_of::<super::super::winograd::OutParams>(),
                Shader::WinogradIn(_) => size_of::<super::super::winograd::InParams>(),
                Shader::Broken => unreachable!("not among Shader::all()"),
            };
            let m = module(shader);
            let var = m
                .global_variables
                .iter()
                .map(|(_, v)| v)
                .find(|v| v.space == naga::AddressSpace::Uniform)
                .expect("a uniform params binding");
            let span = m.types[var.ty].inner.size(m.to_ctx()) as usize;
            assert_eq!(span, host, "{shader:?} params");
        }
    }

    /// Dawn's compiler (browsers' WebGPU) accepts every variant too, where it is installed:
    /// it is stricter than naga in places (uniformity, integer literal ranges).
    #[test]
    fn shaders_compile_with_tint_where_it_is_installed() {
        let dir = std::env::temp_dir().join(format!("checkers-zero-tint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let run = |file: &std::path::Path| {
            std::process::Command::new("tint")
                .args(["--format", "wgsl"])
                .arg(file)
                .output()
        };
        let probe = dir.join("probe.wgsl");
        std::fs::write(&probe, "@compute @workgroup_size(1) fn main() {}\n").expect("a probe file");
        if run(&probe).is_err() {
            eprintln!("note: tint is not on the PATH; shaders validated with naga only");
            return;
        }
        // Dawn has no `wgpu_cooperative_matrix` (its own extension is another).
        let dawn = Shader::all()
            .into_iter()
            .filter(|s| s.tile() != Some(TileShape::Tensor));
        for (i, shader) in dawn.enumerate() {
            let file = dir.join(format!("shader-{i}.wgsl"));
            std::fs::write(&file, shader.source()).expect("a shader file");
            let out = run(&file).expect("tint ran a moment ago");
            assert!(
                out.status.success(),
                "tint rejects {shader:?}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn placeholders_must_all_be_filled() {
        let one = |k: &'static str| vec![(k, "1".to_string())];
        assert_eq!(
            fill_placeholders("a {{X}} b", &numbers(&[("X", 3)])),
            "a 3 b"
        );
        assert!(std::panic::catch_unwind(|| fill_placeholders("{{X}} {{Y}}", &one("X"))).is_err());
        assert!(std::panic::catch_unwind(|| fill_placeholders("{{X}}", &one("Z"))).is_err());
    }
}
