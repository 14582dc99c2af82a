//! The element types DNN tensors hold: f32, f16 and bf16.
//!
//! Every operation computes in f32 whatever the storage type (f16 and bf16 are widened on
//! load and rounded once on store), as MIOpen does for its mixed-precision kernels.

use half::{bf16, f16};
use rocm_core::Element;

/// A storage type of DNN tensors.
pub trait DnnFloat: Element {
    /// The value widened to f32 (exact).
    fn to_f32(self) -> f32;
    /// `x` rounded to nearest.
    fn from_f32(x: f32) -> Self;
    /// Unit roundoff of the storage type (half the machine epsilon).
    const UNIT_ROUNDOFF: f32;
}

impl DnnFloat for f32 {
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(x: f32) -> Self {
        x
    }
    const UNIT_ROUNDOFF: f32 = f32::EPSILON / 2.0;
}

impl DnnFloat for f16 {
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    const UNIT_ROUNDOFF: f32 = 1.0 / 2048.0;
}

impl DnnFloat for bf16 {
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    const UNIT_ROUNDOFF: f32 = 1.0 / 256.0;
}
