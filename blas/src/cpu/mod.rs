//! The CPU path: host slices in, rayon and the `gemm` crate underneath.

pub mod gemm;
pub mod level1;
