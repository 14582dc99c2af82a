//! geam and dgmm on GPUs (f32, f64; NVIDIA): one launch of `rocm_kernels::extension`'s
//! kernels over every problem of a strided batch (a single call is a batch of one).
//! Complex types and AMD devices answer `Unsupported` from the generator, named for the
//! routine and the device.

#![allow(clippy::too_many_arguments)]

use crate::extension::{DgmmShape, GeamShape};
use crate::gpu::level2::load;
use crate::{Blas, Scalar, Side, Transpose};
use rocm_core::{Error, KernelArgs, Result};
use rocm_kernels::extension::{self as kern, Extension, ExtensionParams};

/// A device operand of a strided batch: address of problem 0 and the element stride.
pub(crate) type Strided = (u64, usize);

fn dim(name: &str, v: usize) -> Result<u32> {
    u32::try_from(v).map_err(|_| {
        Error::invalid(
            name,
            format!("{v} exceeds the geam/dgmm kernels' limit of 2^32 - 1"),
        )
    })
}

fn params<T: Scalar>() -> ExtensionParams {
    ExtensionParams { dtype: T::DTYPE }
}

/// C = α·op(A) + β·op(B) for `batch` strided problems (m, n ≥ 1, batch ≥ 1, operands
/// checked by the caller).
pub(crate) fn geam<T: Scalar>(
    blas: &Blas,
    s: &GeamShape,
    alpha: T,
    (a, stride_a): Strided,
    beta: T,
    (b, stride_b): Strided,
    (c, stride_c): Strided,
    batch: usize,
) -> Result<()> {
    let loaded = load::<Extension>(blas, "geam", &params::<T>())?;
    let dev = blas.device();
    let zero = T::zero();
    let flags = if s.transa != Transpose::N {
        kern::TRANS_A
    } else {
        0
    } | if s.transb != Transpose::N {
        kern::TRANS_B
    } else {
        0
    } | if alpha != zero { kern::READ_A } else { 0 }
        | if beta != zero { kern::READ_B } else { 0 };
    let mut args = KernelArgs::new();
    args.push_pointer(c, dev)
        .push_pointer(a, dev)
        .push_pointer(b, dev)
        .push(dim("m", s.m)?)
        .push(dim("n", s.n)?)
        .push(dim("lda", s.lda)?)
        .push(dim("ldb", s.ldb)?)
        .push(dim("ldc", s.ldc)?)
        .push(stride_a as u64)
        .push(stride_b as u64)
        .push(stride_c as u64)
        .push(alpha.re())
        .push(beta.re())
        .push(flags);
    let cfg = kern::config(s.m, s.n, batch);
    if cfg.grid[2] as usize != batch {
        return Err(Error::invalid(
            "batch_count",
            format!("{batch} exceeds 2^32 - 1"),
        ));
    }
    let kernel = loaded.module.kernel(kern::GEAM)?;
    // SAFETY: the caller checked that op(A), op(B) and C of every problem lie inside
    // their views (leading dimensions, extents, batch strides, C's problems disjoint);
    // the kernel reads A (B) only inside op(A)'s (op(B)'s) m×n where α (β) ≠ 0 and
    // writes only C's m×n, and the views stay borrowed until the call returns.
    unsafe { kernel.launch(blas.stream(), &cfg, &args) }
}

/// C = A·diag(x) or diag(x)·A for `batch` strided problems (m, n ≥ 1, batch ≥ 1,
/// operands checked by the caller; a negative increment walks x from its far end).
pub(crate) fn dgmm<T: Scalar>(
    blas: &Blas,
    s: &DgmmShape,
    (a, stride_a): Strided,
    (x, stride_x): Strided,
    (c, stride_c): Strided,
    batch: usize,
) -> Result<()> {
    let loaded = load::<Extension>(blas, "dgmm", &params::<T>())?;
    let dev = blas.device();
    let incx = i32::try_from(s.incx)
        .map_err(|_| Error::invalid("incx", format!("{} exceeds the kernel's 32 bits", s.incx)))?;
    // Element k of x is at x + k·incx from the start BLAS walks from.
    let start = if s.incx < 0 {
        let far = (s.x_len() - 1) as u64 * s.incx.unsigned_abs() as u64;
        x + far * std::mem::size_of::<T>() as u64
    } else {
        x
    };
    let flags = if s.side == Side::Left { kern::LEFT } else { 0 };
    let mut args = KernelArgs::new();
    args.push_pointer(c, dev)
        .push_pointer(a, dev)
        .push_pointer(start, dev)
        .push(dim("m", s.m)?)
        .push(dim("n", s.n)?)
        .push(dim("lda", s.lda)?)
        .push(dim("ldc", s.ldc)?)
        .push(incx)
        .push(stride_a as u64)
        .push(stride_x as u64)
        .push(stride_c as u64)
        .push(flags);
    let cfg = kern::config(s.m, s.n, batch);
    if cfg.grid[2] as usize != batch {
        return Err(Error::invalid(
            "batch_count",
            format!("{batch} exceeds 2^32 - 1"),
        ));
    }
    let kernel = loaded.module.kernel(kern::DGMM)?;
    // SAFETY: the caller checked A's and C's m×n and x's span (x_len elements at incx)
    // for every problem against their views and strides; the kernel touches nothing
    // else, and the views stay borrowed until the call returns.
    unsafe { kernel.launch(blas.stream(), &cfg, &args) }
}
