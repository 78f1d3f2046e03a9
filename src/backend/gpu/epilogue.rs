//! What a forward convolution adds to its products as it stores them (shaders/epilogue.wgsl):
//! shared by the implicit GEMM (conv.rs), the tap convolution (taps.rs) and Winograd's output
//! transform (winograd.rs).

use super::GpuBuf;

/// relu?(product + bias? + residual?), the bias per output channel, the residual shaped like
/// the output.
#[derive(Clone, Copy, Default)]
pub(super) struct Epilogue<'a> {
    pub bias: Option<&'a GpuBuf>,
    pub residual: Option<&'a GpuBuf>,
    pub relu: bool,
}
