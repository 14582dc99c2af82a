//! The element types DNN tensors hold: f32, f16 and bf16.
//!
//! Every operation computes in f32 whatever the storage type (f16 and bf16 are widened on
//! load and rounded once on store), as MIOpen does for its mixed-precision kernels.

use half::{bf16, f16};
use rocm_core::{BufferSlice, BufferSliceMut, Element};

/// A storage type of DNN tensors.
pub trait DnnFloat: Element {
    /// The value widened to f32 (exact).
    fn to_f32(self) -> f32;
    /// `x` rounded to nearest.
    fn from_f32(x: f32) -> Self;
    /// Unit roundoff of the storage type (half the machine epsilon).
    const UNIT_ROUNDOFF: f32;
    /// The smallest positive subnormal of the storage type: below the normal range,
    /// rounding on store errs by up to half of it in absolute terms, whatever the value.
    const MIN_SUBNORMAL: f32;
    /// The view itself when the storage type is f32, so that the convolution solvers
    /// read the caller's packed tensors in place instead of widening a copy; `None` for
    /// the 16-bit types.
    fn f32_view(_s: BufferSlice<'_, Self>) -> Option<BufferSlice<'_, f32>> {
        None
    }
    /// The mutable counterpart of [`DnnFloat::f32_view`] (outputs written in place).
    fn f32_view_mut(_s: BufferSliceMut<'_, Self>) -> Option<BufferSliceMut<'_, f32>> {
        None
    }
}

impl DnnFloat for f32 {
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(x: f32) -> Self {
        x
    }
    const UNIT_ROUNDOFF: f32 = f32::EPSILON / 2.0;
    const MIN_SUBNORMAL: f32 = f32::from_bits(1);
    fn f32_view(s: BufferSlice<'_, f32>) -> Option<BufferSlice<'_, f32>> {
        Some(s)
    }
    fn f32_view_mut(s: BufferSliceMut<'_, f32>) -> Option<BufferSliceMut<'_, f32>> {
        Some(s)
    }
}

impl DnnFloat for f16 {
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    const UNIT_ROUNDOFF: f32 = 1.0 / 2048.0;
    // 2⁻²⁴
    const MIN_SUBNORMAL: f32 = 5.960_464_5e-8;
}

impl DnnFloat for bf16 {
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    const UNIT_ROUNDOFF: f32 = 1.0 / 256.0;
    // 2⁻¹³³: bf16 shares f32's exponent range.
    const MIN_SUBNORMAL: f32 = f32::from_bits(1 << 16);
}
