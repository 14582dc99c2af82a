//! The GPU path: generated kernels from rocm-kernels, launched through rocm-core.

pub mod extension;
pub mod gemm;
pub mod gemm_complex;
pub mod level1;
pub mod level2;
pub mod level3;
pub(crate) mod plan_cache;
