//! The scalar types BLAS routines are generic over: rocm-core's one scalar vocabulary.
//!
//! [`Scalar`] covers f32, f64, Complex32 and Complex64 — the four BLAS precisions
//! (s, d, c, z). Each has a real type ([`Scalar::Real`]) for norms and a wider type
//! ([`Scalar::Wide`]) the reference implementations accumulate in.
//!
//! The data-movement routines (copy, swap, fill) and the `_ex` family reach further:
//! [`FloatElement`] is every floating element type a Level 1 vector may hold (the four
//! BLAS types plus f16 and bf16), [`RealElement`] its real members (what
//! [`crate::Blas::convert`] converts between), and [`Half`] the 16-bit types the `_ex`
//! routines compute on in f32, as rocBLAS's `*_ex` with an f32 compute type.

pub use rocm_core::scalar::{FloatElement, Half, Real, RealElement, Scalar};
