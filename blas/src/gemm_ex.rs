//! Mixed-precision GEMM (rocBLAS `gemm_ex`, cuBLAS `cublasGemmEx`):
//! C = α·op(A)·op(B) + β·C with A and B of one input type, C of an output type, and
//! α, β and the arithmetic in the compute type.
//!
//! | input | compute | outputs |
//! |---|---|---|
//! | f16 | f32 | f16, f32 |
//! | bf16 | f32 | bf16, f32 |
//! | i8 | i32 | i32 |
//!
//! The [`GemmExInput`] / [`GemmExOutput`] traits encode this table, so another pairing
//! does not compile. Arithmetic: every product of two 16-bit floats is exact in f32;
//! sums accumulate in f32 and the result is rounded once into C's type (to nearest
//! even), so |error| ≤ (k + 2)·u₃₂·(|α|·Σ|a||b| + |β||c|) + u_C·|c'| where u_C is C's unit
//! roundoff. i8 products accumulate in i32 with wrap-around on overflow, as the vendor
//! libraries' integer GEMMs do (|a·b| ≤ 2^14, so k ≤ 2^17 never overflows).
//! op(A) = Aᴴ is Aᵀ (the types are real). As BLAS: β = 0 never reads C, α = 0 or
//! k = 0 only scales C, m = 0 or n = 0 does nothing.
//!
//! Devices:
//! - CPU: A and B widened to the compute type, f32 through the CPU GEMM engine
//!   (faer's matmul), i32 through a column-parallel integer loop; C rounded once.
//! - CUDA: the generated kernels: sm_90 `wgmma` for the classes in the target's
//!   catalog where A and B meet its 16-byte copy rule (it writes f32, f16 or bf16),
//!   else `mma.sync` m16n8k16 with f32 output. 16-bit C on the `mma.sync` path is
//!   staged: C widened into an f32 device temporary (when β ≠ 0), the f32-output kernel
//!   run on it with the same ldc and stride, then rounded back into C column by column
//!   (one conversion when ldc = m and the problems are packed).
//! - AMD (emulated, HIP): the MFMA/WMMA kernels with f32 output, 16-bit C staged as
//!   above.
//! - i8 on GPUs: `Unsupported` (no integer GEMM kernel is generated yet).

#![allow(clippy::too_many_arguments)]

use crate::check;
use crate::gemm::GemmShape;
use crate::gpu::gemm::{self as gpu, Coefficient, Operand};
use crate::gpu::level1 as gpu_l1;
use crate::handle::Dispatch;
use crate::level1::vec_of;
use crate::{cpu, Blas, Transpose};
use half::{bf16, f16};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, DType, Element, Error, Result};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::level1::L1Op;

mod sealed {
    pub trait Input {}
    pub trait Output<In> {}
}

/// An input (A and B) type of [`Blas::gemm_ex`]: f16, bf16 or i8. Sealed.
pub trait GemmExInput: Element + sealed::Input {
    /// The type α, β and the arithmetic take: f32 for f16/bf16, i32 for i8.
    type Compute: Element;
    /// The value in the compute type (exact).
    fn widen(self) -> Self::Compute;
}

/// An output (C) type of [`Blas::gemm_ex`] for inputs `In`. Sealed.
pub trait GemmExOutput<In: GemmExInput>: Element + sealed::Output<In> {
    /// The value in the compute type (exact).
    fn widen(self) -> In::Compute;
    /// A compute-type value rounded to this type (nearest even; exact for f32 and i32).
    fn narrow(v: In::Compute) -> Self;
}

macro_rules! float_input {
    ($($t:ty),*) => {$(
        impl sealed::Input for $t {}
        impl GemmExInput for $t {
            type Compute = f32;
            fn widen(self) -> f32 {
                self.to_f32()
            }
        }
        impl sealed::Output<$t> for $t {}
        impl GemmExOutput<$t> for $t {
            fn widen(self) -> f32 {
                self.to_f32()
            }
            fn narrow(v: f32) -> Self {
                <$t>::from_f32(v)
            }
        }
        impl sealed::Output<$t> for f32 {}
        impl GemmExOutput<$t> for f32 {
            fn widen(self) -> f32 {
                self
            }
            fn narrow(v: f32) -> Self {
                v
            }
        }
    )*};
}
float_input!(f16, bf16);

impl sealed::Input for i8 {}
impl GemmExInput for i8 {
    type Compute = i32;
    fn widen(self) -> i32 {
        self as i32
    }
}
impl sealed::Output<i8> for i32 {}
impl GemmExOutput<i8> for i32 {
    fn widen(self) -> i32 {
        self
    }
    fn narrow(v: i32) -> Self {
        v
    }
}

impl Blas {
    /// C = α·op(A)·op(B) + β·C with `In` inputs, `Out` output and `In::Compute`
    /// arithmetic (see the [module docs](crate::gemm_ex) for the table and the error
    /// bound).
    pub fn gemm_ex<In: GemmExInput, Out: GemmExOutput<In>>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        k: usize,
        alpha: In::Compute,
        a: &BufferSlice<'_, In>,
        lda: usize,
        b: &BufferSlice<'_, In>,
        ldb: usize,
        beta: In::Compute,
        c: &mut BufferSliceMut<'_, Out>,
        ldc: usize,
    ) -> Result<()> {
        self.gemm_strided_batched_ex(
            transa, transb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1,
        )
    }

    /// `batch_count` mixed-precision GEMMs whose matrices sit `stride_*` elements apart
    /// (problem `i`'s A starts at `i * stride_a`); output strides must not overlap.
    pub fn gemm_strided_batched_ex<In: GemmExInput, Out: GemmExOutput<In>>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        k: usize,
        alpha: In::Compute,
        a: &BufferSlice<'_, In>,
        lda: usize,
        stride_a: usize,
        b: &BufferSlice<'_, In>,
        ldb: usize,
        stride_b: usize,
        beta: In::Compute,
        c: &mut BufferSliceMut<'_, Out>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = GemmShape {
            transa,
            transb,
            m,
            n,
            k,
            lda,
            ldb,
            ldc,
        };
        s.check_lds()?;
        check::batch("a", a.len(), s.a_extent(), stride_a, batch_count, false)?;
        check::batch("b", b.len(), s.b_extent(), stride_b, batch_count, false)?;
        check::batch("c", c.len(), s.c_extent(), stride_c, batch_count, true)?;
        self.check_device("a", a.device())?;
        self.check_device("b", b.device())?;
        self.check_device("c", c.device())?;
        if m == 0 || n == 0 || batch_count == 0 {
            return Ok(());
        }
        let strides = [stride_a, stride_b, stride_c];
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, b) = (check::host("a", a)?, check::host("b", b)?);
                let c = check::host_mut("c", c)?;
                cpu_gemm_ex(&s, alpha, a, b, beta, c, strides, batch_count);
                Ok(())
            }
            Dispatch::Gpu => {
                let (alpha, beta) = match (coefficient(alpha), coefficient(beta)) {
                    (Some(alpha), Some(beta)) => (alpha, beta),
                    _ => {
                        return Err(Error::unsupported(
                            format!(
                                "gemm_ex with {} inputs and {} output (no integer GEMM kernel)",
                                In::DTYPE,
                                Out::DTYPE
                            ),
                            self.device(),
                        ))
                    }
                };
                let op = |address, stride| Operand { address, stride };
                gpu_gemm_ex(
                    self,
                    &s,
                    (In::DTYPE, Out::DTYPE),
                    alpha,
                    op(a.address(), stride_a),
                    op(b.address(), stride_b),
                    beta,
                    op(c.address(), stride_c),
                    batch_count,
                )
            }
        }
    }

    /// One mixed-precision GEMM per entry of `a`, `b`, `c` (arrays of matrices of one
    /// shape; one call each).
    pub fn gemm_batched_ex<In: GemmExInput, Out: GemmExOutput<In>>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        k: usize,
        alpha: In::Compute,
        a: &[BufferSlice<'_, In>],
        lda: usize,
        b: &[BufferSlice<'_, In>],
        ldb: usize,
        beta: In::Compute,
        c: &mut [BufferSliceMut<'_, Out>],
        ldc: usize,
    ) -> Result<()> {
        let count = c.len();
        for (name, len) in [("a", a.len()), ("b", b.len())] {
            if len != count {
                return Err(Error::invalid(
                    name,
                    format!("{len} matrices for {count} in c"),
                ));
            }
        }
        for ((a, b), c) in a.iter().zip(b).zip(c.iter_mut()) {
            self.gemm_ex(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)?;
        }
        Ok(())
    }
}

/// α or β for the GPU kernels (f32 compute only).
fn coefficient<T: Element>(v: T) -> Option<Coefficient> {
    (T::DTYPE == DType::F32).then(|| Coefficient::F32(bytemuck::cast::<T, f32>(v)))
}

/// The CPU path: A and B widened once, the compute-type GEMM, C rounded once.
fn cpu_gemm_ex<In: GemmExInput, Out: GemmExOutput<In>>(
    s: &GemmShape,
    alpha: In::Compute,
    a: &[In],
    b: &[In],
    beta: In::Compute,
    c: &mut [Out],
    [stride_a, stride_b, stride_c]: [usize; 3],
    batch: usize,
) {
    let zero = In::Compute::default();
    let (ea, eb) = (s.a_extent(), s.b_extent());
    for q in 0..batch {
        let wa: Vec<In::Compute> = a[q * stride_a..][..ea].iter().map(|x| x.widen()).collect();
        let wb: Vec<In::Compute> = b[q * stride_b..][..eb].iter().map(|x| x.widen()).collect();
        let cq = &mut c[q * stride_c..];
        // W mirrors C's layout (same ldc); β = 0 never reads C.
        let mut w = vec![zero; s.c_extent()];
        if beta != zero {
            for j in 0..s.n {
                for i in 0..s.m {
                    w[i + j * s.ldc] = cq[i + j * s.ldc].widen();
                }
            }
        }
        match In::Compute::DTYPE {
            DType::F32 => cpu::gemm::gemm(
                s,
                bytemuck::cast::<_, f32>(alpha),
                bytemuck::cast_slice::<_, f32>(&wa),
                bytemuck::cast_slice::<_, f32>(&wb),
                bytemuck::cast::<_, f32>(beta),
                bytemuck::cast_slice_mut::<_, f32>(&mut w),
                true,
            ),
            _ => integer_gemm(
                s,
                bytemuck::cast::<_, i32>(alpha),
                bytemuck::cast_slice::<_, i32>(&wa),
                bytemuck::cast_slice::<_, i32>(&wb),
                bytemuck::cast::<_, i32>(beta),
                bytemuck::cast_slice_mut::<_, i32>(&mut w),
            ),
        }
        for j in 0..s.n {
            for i in 0..s.m {
                cq[i + j * s.ldc] = Out::narrow(w[i + j * s.ldc]);
            }
        }
    }
}

/// C = α·op(A)·op(B) + β·C in wrapping i32 arithmetic, one column of C per task; β = 0
/// leaves C's (zeroed) input unread.
fn integer_gemm(s: &GemmShape, alpha: i32, a: &[i32], b: &[i32], beta: i32, c: &mut [i32]) {
    let (ta, tb) = (s.transa.is_trans(), s.transb.is_trans());
    let opa = |i: usize, l: usize| {
        if ta {
            a[l + i * s.lda]
        } else {
            a[i + l * s.lda]
        }
    };
    let opb = |l: usize, j: usize| {
        if tb {
            b[j + l * s.ldb]
        } else {
            b[l + j * s.ldb]
        }
    };
    c.par_chunks_mut(s.ldc)
        .take(s.n)
        .enumerate()
        .for_each(|(j, col)| {
            let mut acc = vec![0i32; s.m];
            for l in 0..s.k {
                let blj = opb(l, j);
                for (i, x) in acc.iter_mut().enumerate() {
                    *x = x.wrapping_add(opa(i, l).wrapping_mul(blj));
                }
            }
            for (i, x) in acc.into_iter().enumerate() {
                let old = if beta == 0 {
                    0
                } else {
                    beta.wrapping_mul(col[i])
                };
                col[i] = alpha.wrapping_mul(x).wrapping_add(old);
            }
        });
}

/// The GPU path: one launch where a kernel writes C's type, else C staged through f32.
fn gpu_gemm_ex(
    blas: &Blas,
    s: &GemmShape,
    (ab, c_type): (DType, DType),
    alpha: Coefficient,
    a: Operand,
    b: Operand,
    beta: Coefficient,
    c: Operand,
    batch: usize,
) -> Result<()> {
    if (s.k == 0 || alpha == Coefficient::F32(0.0)) && beta == Coefficient::F32(1.0) {
        return Ok(());
    }
    if let Some(p) = gpu::ex_params(blas, s, ab, c_type, a, b, batch)? {
        return gpu::launch(blas, s, &p, alpha, a, b, beta, c, batch);
    }
    // 16-bit C without a kernel that writes it: W (f32, C's layout) = widen(C) where β
    // reads it, the f32-output kernel on W, then C = round(W) on the m×n parts only.
    let p = gpu::ex_params(blas, s, ab, DType::F32, a, b, batch)?
        .ok_or_else(|| Error::unsupported(format!("gemm_ex with {ab} inputs"), blas.device()))?;
    let len = c.stride * (batch - 1) + s.c_extent();
    // The handle's workspace (f64 elements, so half as many) outlives the queued
    // kernels; a fresh buffer would be freed under them.
    blas.with_workspace(len.div_ceil(2), |work| {
        let w = Operand {
            address: work.as_slice_mut().address(),
            stride: c.stride,
        };
        if beta != Coefficient::F32(0.0) {
            convert_c(blas, s, c, w, batch, c_type, DType::F32)?;
        }
        gpu::launch(blas, s, &p, alpha, a, b, beta, w, batch)?;
        convert_c(blas, s, w, c, batch, DType::F32, c_type)
    })
}

/// `to` = `from` converted, over the m×n part of each problem: one conversion when the
/// problems are packed (ldc = m and stride = m·n, or one problem), else one per column.
fn convert_c(
    blas: &Blas,
    s: &GemmShape,
    from: Operand,
    to: Operand,
    batch: usize,
    from_type: DType,
    to_type: DType,
) -> Result<()> {
    let op = L1Op::Convert { to: to_type };
    let run = |n: usize, offset: usize| {
        let x = vec_at(blas, from.address, offset, n, from_type, false);
        let y = vec_at(blas, to.address, offset, n, to_type, true);
        gpu_l1::elementwise(blas, "gemm_ex", op, from_type, n, x, Some(y), &[])
    };
    let packed = s.ldc == s.m && (batch == 1 || from.stride == s.m * s.n);
    if packed {
        return run(s.m * s.n * batch, 0);
    }
    for q in 0..batch {
        for j in 0..s.n {
            run(s.m, q * from.stride + j * s.ldc)?;
        }
    }
    Ok(())
}

/// The contiguous `n` elements of `dtype` from element `offset` of the matrix at
/// `base` (C's checked view or the handle's workspace, both held by the caller).
fn vec_at(
    blas: &Blas,
    base: u64,
    offset: usize,
    n: usize,
    dtype: DType,
    writable: bool,
) -> gpu_l1::Vector<'_> {
    let size = dtype.size();
    // SAFETY: the m×n parts of each problem lie inside C's view (checked against its
    // leading dimension and batch stride) or inside the workspace sized for them; both
    // outlive the queued conversion (the caller holds them across the stream's work).
    let view = unsafe {
        DeviceView::from_raw(
            base + (offset * size) as u64,
            (n * size) as u64,
            blas.device(),
            writable,
        )
    };
    let mut v = vec_of::<f32>("c", view, 1);
    v.dtype = dtype;
    v
}
