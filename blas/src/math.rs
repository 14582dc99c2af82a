//! Math modes: whether f32 products may use reduced-precision matrix hardware.

/// The f32 math mode of a handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MathMode {
    /// IEEE f32 products (default).
    #[default]
    Default,
    /// f32 GEMM may use tf32 (NVIDIA) or xf32 (gfx942) inputs with f32 accumulation.
    ReducedPrecisionF32,
}
