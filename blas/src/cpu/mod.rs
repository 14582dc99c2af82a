//! The CPU path: host slices in, rayon and faer's matmul underneath.

pub mod elementwise;
pub mod gemm;
pub mod level1;
pub mod level1_ex;
pub mod level2;
pub mod mat;
pub mod rank_k;
pub mod structured;
pub mod symm;
pub mod tri;
