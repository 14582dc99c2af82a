//! geam and dgmm on GPUs: one launch of `rocm_kernels::extension`'s kernels over every
//! problem of a strided batch (a single call is a batch of one). NVIDIA: f32 and f64
//! (complex types answer `Unsupported` from the generator, named for the routine and
//! the device); AMD devices: f32, f64, Complex32 and Complex64 (AMDGPU kernels with
//! 32-bit offsets inside a problem, checked here). Complex scalars are passed as their
//! real then imaginary part; a conjugate transpose sets the operand's CONJ flag.

#![allow(clippy::too_many_arguments)]

use crate::extension::{DgmmShape, GeamShape};
use crate::gpu::level2::load;
use crate::{Blas, Scalar, Side, Transpose};
use rocm_core::target::Family;
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

/// A scalar argument: its real part, then for complex types its imaginary part.
pub(crate) fn push_scalar<T: Scalar>(args: &mut KernelArgs, v: T) {
    args.push(v.re());
    if T::IS_COMPLEX {
        args.push(v.im());
    }
}

/// The AMDGPU kernels address inside a problem with 32-bit byte offsets: `cols` columns
/// at leading dimension `ld` must span less than 4 GiB there; a larger (valid) matrix is
/// `Unsupported` on that device, naming the argument.
pub(crate) fn offsets_fit<T: Scalar>(
    blas: &Blas,
    what: &str,
    ld: usize,
    cols: usize,
) -> Result<()> {
    if blas.device().target().family() == Family::Nvidia {
        return Ok(());
    }
    let bytes = (ld as u128 + 1) * cols as u128 * std::mem::size_of::<T>() as u128;
    if bytes >= 1 << 32 {
        return Err(Error::unsupported(
            format!(
                "{what} = {ld} with {cols} columns: a matrix spanning 2^32 bytes or more \
                 (the AMDGPU kernels' 32-bit offsets)"
            ),
            blas.device(),
        ));
    }
    Ok(())
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
    let (ka, kb) = (
        if s.transa == Transpose::N { s.n } else { s.m },
        if s.transb == Transpose::N { s.n } else { s.m },
    );
    offsets_fit::<T>(blas, "lda", s.lda, ka)?;
    offsets_fit::<T>(blas, "ldb", s.ldb, kb)?;
    offsets_fit::<T>(blas, "ldc", s.ldc, s.n)?;
    let dev = blas.device();
    let zero = T::zero();
    let op_flags = |t: Transpose, trans: u32, conj: u32| match t {
        Transpose::N => 0,
        Transpose::T => trans,
        Transpose::C if T::IS_COMPLEX => trans | conj,
        Transpose::C => trans,
    };
    let flags = op_flags(s.transa, kern::TRANS_A, kern::CONJ_A)
        | op_flags(s.transb, kern::TRANS_B, kern::CONJ_B)
        | if alpha != zero { kern::READ_A } else { 0 }
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
        .push(stride_c as u64);
    push_scalar(&mut args, alpha);
    push_scalar(&mut args, beta);
    args.push(flags);
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
    offsets_fit::<T>(blas, "lda", s.lda, s.n)?;
    offsets_fit::<T>(blas, "ldc", s.ldc, s.n)?;
    offsets_fit::<T>(blas, "incx", s.incx.unsigned_abs(), s.x_len())?;
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
