//! Level 1 beyond the four BLAS types: fill, conversions, and the f16/bf16 routines of
//! rocBLAS's `_ex` family with an f32 compute type.
//!
//! - [`Blas::fill`]: x = α, for every [`FloatElement`] (f16, bf16, f32, f64, Complex32,
//!   Complex64). `copy` and `swap` ([`crate::level1`]) take the same types.
//! - [`Blas::convert`]: y = x rounded to nearest even into y's type, for the pairs in
//!   [`CONVERSIONS`] (f32 ↔ f16, f32 ↔ bf16, f64 ↔ f32); others are `Unsupported`.
//! - `scal_ex`, `axpy_ex`, `axpby_ex`, `dot_ex`, `nrm2_ex` over one [`Half`] type
//!   (f16 or bf16): scalars and arithmetic in f32, one rounding into the storage type at
//!   the end of each element (`y = round(fma(α, x, β·y))`); dot returns the f32 sum (the
//!   product of two 16-bit floats is exact in f32), nrm2 the f32 root of a sum of squares
//!   that cannot overflow or underflow (f64 on the CPU).
//!
//! `dot_ex_into` and `nrm2_ex_into` store the f32 result in a device buffer as the
//! handle's [`crate::PointerMode`] says (see [`crate::level1`]).
//!
//! On GPUs each routine runs the Level 1 kernel of its op for the storage dtype; where a
//! family has no such kernel the routine answers that kernel's `Unsupported`.

#![allow(clippy::too_many_arguments)]

use crate::gpu::level1::{self as gpu, ScalarArg};
use crate::handle::Dispatch;
use crate::level1::{element_args, vec_of};
use crate::{check, cpu, Blas, FloatElement, Half, RealElement};
use rocm_core::{BufferSlice, BufferSliceMut, DType, Error, Result};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::level1::L1Op;

/// The (from, to) pairs [`Blas::convert`] handles.
pub const CONVERSIONS: [(DType, DType); 6] = [
    (DType::F32, DType::F16),
    (DType::F16, DType::F32),
    (DType::F32, DType::Bf16),
    (DType::Bf16, DType::F32),
    (DType::F64, DType::F32),
    (DType::F32, DType::F64),
];

impl Blas {
    /// x = α at every element.
    pub fn fill<T: FloatElement>(
        &self,
        n: usize,
        alpha: T,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        self.l1_out("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => cpu::level1_ex::fill(n, alpha, check::host_mut("x", x)?, incx),
            Dispatch::Gpu => {
                let mut s = Vec::new();
                element_args(alpha, &mut s);
                let xv = vec_of::<T>("x", DeviceView::write(x), incx);
                gpu::elementwise(self, "fill", L1Op::Fill, T::DTYPE, n, xv, None, &s)?
            }
        }
        Ok(())
    }

    /// y = x converted to y's type, rounding to nearest even (NaN stays NaN, overflow
    /// gives ±∞). The pair must be one of [`CONVERSIONS`].
    pub fn convert<S: RealElement, D: RealElement>(
        &self,
        n: usize,
        x: &BufferSlice<'_, S>,
        incx: isize,
        y: &mut BufferSliceMut<'_, D>,
        incy: isize,
    ) -> Result<()> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        let pair = (S::DTYPE, D::DTYPE);
        if !CONVERSIONS.contains(&pair) {
            return Err(Error::unsupported(
                format!(
                    "blas convert from {} to {} (pairs: {})",
                    pair.0,
                    pair.1,
                    CONVERSIONS.map(|(a, b)| format!("{a}->{b}")).join(", ")
                ),
                self.device(),
            ));
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host("x", x)?;
                cpu::level1_ex::convert(n, x, incx, check::host_mut("y", y)?, incy)
            }
            Dispatch::Gpu => {
                let op = L1Op::Convert { to: D::DTYPE };
                let (xv, yv) = (
                    vec_of::<S>("x", DeviceView::read(x), incx),
                    vec_of::<D>("y", DeviceView::write(y), incy),
                );
                gpu::elementwise(self, "convert", op, S::DTYPE, n, xv, Some(yv), &[])?
            }
        }
        Ok(())
    }

    /// x = α·x, computed in f32 and rounded to T.
    pub fn scal_ex<T: Half>(
        &self,
        n: usize,
        alpha: f32,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        self.l1_out("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => cpu::level1_ex::scal_ex(n, alpha, check::host_mut("x", x)?, incx),
            Dispatch::Gpu => {
                let xv = vec_of::<T>("x", DeviceView::write(x), incx);
                let s = [ScalarArg::F32(alpha)];
                gpu::elementwise(self, "scal_ex", L1Op::Scal, T::DTYPE, n, xv, None, &s)?
            }
        }
        Ok(())
    }

    /// y = α·x + y, computed in f32 and rounded to T.
    pub fn axpy_ex<T: Half>(
        &self,
        n: usize,
        alpha: f32,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.axpby_ex(n, alpha, x, incx, 1.0, y, incy)
    }

    /// y = α·x + β·y, computed in f32 and rounded to T (β = 0 does not read y).
    pub fn axpby_ex<T: Half>(
        &self,
        n: usize,
        alpha: f32,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: f32,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host("x", x)?;
                let y = check::host_mut("y", y)?;
                cpu::level1_ex::axpby_ex(n, alpha, x, incx, beta, y, incy)
            }
            Dispatch::Gpu => {
                let op = L1Op::Axpby {
                    read_y: beta != 0.0,
                };
                let (xv, yv) = (
                    vec_of::<T>("x", DeviceView::read(x), incx),
                    vec_of::<T>("y", DeviceView::write(y), incy),
                );
                let s = [ScalarArg::F32(alpha), ScalarArg::F32(beta)];
                gpu::elementwise(self, "axpby_ex", op, T::DTYPE, n, xv, Some(yv), &s)?
            }
        }
        Ok(())
    }

    /// Σ xᵢ·yᵢ, accumulated and returned in f32.
    pub fn dot_ex<T: Half>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
    ) -> Result<f32> {
        self.dot_ex_impl(n, x, incx, y, incy, None)
    }

    /// [`Blas::dot_ex`] into `result[0]`, as the handle's [`crate::PointerMode`] says.
    pub fn dot_ex_into<T: Half>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        result: &mut BufferSliceMut<'_, f32>,
    ) -> Result<()> {
        self.dot_ex_impl(n, x, incx, y, incy, Some(result))
            .map(drop)
    }

    fn dot_ex_impl<T: Half>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        result: Option<&mut BufferSliceMut<'_, f32>>,
    ) -> Result<f32> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_in("y", "incy", y, n, incy)?;
        let (xv, yv) = (
            vec_of::<T>("x", DeviceView::read(x), incx),
            vec_of::<T>("y", DeviceView::read(y), incy),
        );
        let cpu = || {
            let (x, y) = (check::host("x", x)?, check::host("y", y)?);
            Ok(cpu::level1_ex::dot_ex(n, x, incx, y, incy))
        };
        let op = L1Op::Dot { conj: false };
        self.reduction("dot_ex", op, T::DTYPE, n, xv, Some(yv), cpu, result)
    }

    /// ‖x‖₂ as f32, without overflow or underflow of the intermediate sum.
    pub fn nrm2_ex<T: Half>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<f32> {
        self.nrm2_ex_impl(n, x, incx, None)
    }

    /// [`Blas::nrm2_ex`] into `result[0]`, as the handle's [`crate::PointerMode`] says.
    pub fn nrm2_ex_into<T: Half>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: &mut BufferSliceMut<'_, f32>,
    ) -> Result<()> {
        self.nrm2_ex_impl(n, x, incx, Some(result)).map(drop)
    }

    fn nrm2_ex_impl<T: Half>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: Option<&mut BufferSliceMut<'_, f32>>,
    ) -> Result<f32> {
        self.l1_in("x", "incx", x, n, incx)?;
        let xv = vec_of::<T>("x", DeviceView::read(x), incx);
        let cpu = || Ok(cpu::level1_ex::nrm2_ex(n, check::host("x", x)?, incx));
        self.reduction("nrm2_ex", L1Op::Nrm2, T::DTYPE, n, xv, None, cpu, result)
    }
}
