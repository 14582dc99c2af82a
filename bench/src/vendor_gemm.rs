//! The cuBLAS peer of `blas gemm`: a GEMM problem on device addresses, timed through
//! cuBLAS when rocm-bench is built with `--features vendor` on a CUDA device, and an
//! `Unsupported` error saying how to get it otherwise.

use crate::blas_gemm::Dtype;
use rocm_core::{Device, Result};

/// One column-major problem (strided batch when `batch` > 1), α = 1, β = 0.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "vendor"), allow(dead_code))]
pub struct Call {
    pub dtype: Dtype,
    pub ta: bool,
    pub tb: bool,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: u64,
    pub lda: usize,
    pub sa: usize,
    pub b: u64,
    pub ldb: usize,
    pub sb: usize,
    pub c: u64,
    pub ldc: usize,
    pub sc: usize,
    pub batch: usize,
}

/// Mean seconds per cuBLAS call over `iters` calls after warm-ups.
#[cfg(feature = "vendor")]
pub fn time(dev: &Device, call: &Call, iters: u32) -> Result<f64> {
    use crate::vendor::{Cublas, GemmCall, GemmType};
    let h = Cublas::for_device(dev)?;
    let g = GemmCall {
        dtype: match call.dtype {
            Dtype::F32 => GemmType::F32,
            Dtype::Tf32 => GemmType::Tf32,
            Dtype::F64 => GemmType::F64,
            Dtype::F16 => GemmType::F16,
            Dtype::Bf16 => GemmType::Bf16,
            Dtype::C32 => GemmType::C32,
            Dtype::C64 => GemmType::C64,
        },
        trans_a: call.ta,
        trans_b: call.tb,
        m: call.m,
        n: call.n,
        k: call.k,
        a: call.a,
        lda: call.lda,
        stride_a: call.sa,
        b: call.b,
        ldb: call.ldb,
        stride_b: call.sb,
        c: call.c,
        ldc: call.ldc,
        stride_c: call.sc,
        batch: call.batch,
    };
    // SAFETY: the caller passes addresses of live device buffers sized for the problem
    // (blas_gemm::measure keeps them alive across this call).
    h.time(iters, |h| unsafe { h.gemm(&g) })
}

#[cfg(not(feature = "vendor"))]
pub fn time(dev: &Device, _call: &Call, _iters: u32) -> Result<f64> {
    Err(rocm_core::Error::unsupported(
        "the cuBLAS peer (build rocm-bench with --features vendor)",
        dev.id(),
    ))
}
