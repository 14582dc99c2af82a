//! The element types DNN tensors hold: f32, f16 and bf16.
//!
//! Every operation computes in f32 whatever the storage type (f16 and bf16 are widened on
//! load and rounded once on store), as MIOpen does for its mixed-precision kernels: the
//! storage types are rocm-core's [`RealElement`]s whose compute type is f32, which gives
//! the conversions (`to_f32`, `from_f32`) and rounding constants (`UNIT_ROUNDOFF`,
//! `MIN_SUBNORMAL`).

use half::{bf16, f16};
use rocm_core::scalar::RealElement;
use rocm_core::{BufferSlice, BufferSliceMut};

/// A storage type of DNN tensors.
pub trait DnnFloat: RealElement<Compute = f32> {
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
    fn f32_view(s: BufferSlice<'_, f32>) -> Option<BufferSlice<'_, f32>> {
        Some(s)
    }
    fn f32_view_mut(s: BufferSliceMut<'_, f32>) -> Option<BufferSliceMut<'_, f32>> {
        Some(s)
    }
}

impl DnnFloat for f16 {}

impl DnnFloat for bf16 {}
