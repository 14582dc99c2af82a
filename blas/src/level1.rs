//! BLAS Level 1: vector-vector operations.
//!
//! Vectors are `(buffer view, n, inc)`; a negative increment walks the vector from its far
//! end, as BLAS defines it. Increments must be non-zero.
//!
//! Scalar results (dot, dotc, sum, asum, nrm2, iamax, iamin) are returned to the host by
//! the plain routines, or stored in element 0 of a device buffer by their `_into` forms
//! as the handle's [`PointerMode`] says (rocBLAS's host and device pointer modes; the
//! index of `iamax_into` / `iamin_into` is an `i64`). On GPUs both go through the same
//! two passes: per-workgroup f64 partials, then one workgroup's final pass on the device
//! ([`rocm_kernels::level1::finish`]), so the value is the same bits in either mode and
//! run to run; host mode downloads the one finished element.

#![allow(clippy::too_many_arguments)]

use crate::gpu::level1::{self as gpu, ScalarArg, Vector};
use crate::handle::Dispatch;
use crate::{check, cpu, Blas, FloatElement, PointerMode, Real, Scalar};
use rocm_core::{BufferSlice, BufferSliceMut, DType, Element, Error, Result};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::level1::L1Op;

pub(crate) fn vec_of<'a, T: Element>(
    name: &'static str,
    view: DeviceView<'a>,
    inc: isize,
) -> Vector<'a> {
    Vector {
        name,
        view,
        inc,
        dtype: T::DTYPE,
    }
}

/// A real as the kernel argument of its precision.
fn real_arg<R: Real>(r: R) -> ScalarArg {
    match R::DTYPE {
        rocm_core::DType::F32 => ScalarArg::F32(r.as_f64() as f32),
        _ => ScalarArg::F64(r.as_f64()),
    }
}

/// An element as kernel arguments: its real part, then (complex) its imaginary part, in
/// the precision the kernels compute in (f64 for f64/Complex64, else f32).
pub(crate) fn element_args<T: FloatElement>(v: T, out: &mut Vec<ScalarArg>) {
    let [re, im] = v.components();
    let arg = |c: f64| match T::DTYPE {
        rocm_core::DType::F64 | rocm_core::DType::C64 => ScalarArg::F64(c),
        _ => ScalarArg::F32(c as f32),
    };
    out.push(arg(re));
    if T::DTYPE.is_complex() {
        out.push(arg(im));
    }
}

impl Blas {
    pub(crate) fn l1_in<T: Element>(
        &self,
        name: &str,
        inc_name: &str,
        x: &BufferSlice<'_, T>,
        n: usize,
        inc: isize,
    ) -> Result<()> {
        check::vector(name, inc_name, x.len(), n, inc)?;
        self.check_device(name, x.device())
    }

    pub(crate) fn l1_out<T: Element>(
        &self,
        name: &str,
        inc_name: &str,
        x: &BufferSliceMut<'_, T>,
        n: usize,
        inc: isize,
    ) -> Result<()> {
        check::vector(name, inc_name, x.len(), n, inc)?;
        self.check_device(name, x.device())
    }

    /// x = α·x
    pub fn scal<T: Scalar>(
        &self,
        n: usize,
        alpha: T,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        self.l1_out("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => cpu::level1::scal(n, alpha, check::host_mut("x", x)?, incx),
            Dispatch::Gpu => {
                let xv = vec_of::<T>("x", DeviceView::write(x), incx);
                let mut s = Vec::new();
                element_args(alpha, &mut s);
                gpu::elementwise(self, "scal", L1Op::Scal, T::DTYPE, n, xv, None, &s)?
            }
        }
        Ok(())
    }

    /// y = α·x + y
    pub fn axpy<T: Scalar>(
        &self,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.axpby(n, alpha, x, incx, T::one(), y, incy)
    }

    /// y = α·x + β·y (β = 0 does not read y).
    pub fn axpby<T: Scalar>(
        &self,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host("x", x)?;
                cpu::level1::axpby(n, alpha, x, incx, beta, check::host_mut("y", y)?, incy)
            }
            Dispatch::Gpu => {
                let op = L1Op::Axpby {
                    read_y: beta != T::zero(),
                };
                let (xv, yv) = (
                    vec_of::<T>("x", DeviceView::read(x), incx),
                    vec_of::<T>("y", DeviceView::write(y), incy),
                );
                let mut s = Vec::new();
                element_args(alpha, &mut s);
                element_args(beta, &mut s);
                gpu::elementwise(self, "axpby", op, T::DTYPE, n, xv, Some(yv), &s)?
            }
        }
        Ok(())
    }

    /// y = x (also f16 and bf16).
    pub fn copy<T: FloatElement>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host("x", x)?;
                cpu::level1::copy(n, x, incx, check::host_mut("y", y)?, incy)
            }
            Dispatch::Gpu => {
                let (xv, yv) = (
                    vec_of::<T>("x", DeviceView::read(x), incx),
                    vec_of::<T>("y", DeviceView::write(y), incy),
                );
                gpu::elementwise(self, "copy", L1Op::Copy, T::DTYPE, n, xv, Some(yv), &[])?
            }
        }
        Ok(())
    }

    /// x ↔ y (also f16 and bf16).
    pub fn swap<T: FloatElement>(
        &self,
        n: usize,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.l1_out("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::swap(n, x, incx, check::host_mut("y", y)?, incy)
            }
            Dispatch::Gpu => {
                let (xv, yv) = (
                    vec_of::<T>("x", DeviceView::write(x), incx),
                    vec_of::<T>("y", DeviceView::write(y), incy),
                );
                gpu::elementwise(self, "swap", L1Op::Swap, T::DTYPE, n, xv, Some(yv), &[])?
            }
        }
        Ok(())
    }

    /// Σ op(xᵢ)·yᵢ to `result[0]` (None: returned), op = conj when `conj`.
    fn dot_impl<T: Scalar>(
        &self,
        op: &str,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        conj: bool,
        result: Option<&mut BufferSliceMut<'_, T>>,
    ) -> Result<T> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_in("y", "incy", y, n, incy)?;
        let (xv, yv) = (
            vec_of::<T>("x", DeviceView::read(x), incx),
            vec_of::<T>("y", DeviceView::read(y), incy),
        );
        let cpu = || {
            let (x, y) = (check::host("x", x)?, check::host("y", y)?);
            Ok(cpu::level1::dot(n, x, incx, y, incy, conj))
        };
        self.reduction(
            op,
            L1Op::Dot { conj },
            T::DTYPE,
            n,
            xv,
            Some(yv),
            cpu,
            result,
        )
    }

    /// Σ xᵢ·yᵢ (unconjugated: BLAS's dotu for complex types).
    pub fn dot<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
    ) -> Result<T> {
        self.dot_impl("dot", n, x, incx, y, incy, false, None)
    }

    /// [`Blas::dot`] into `result[0]`, as the handle's [`PointerMode`] says.
    pub fn dot_into<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        result: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.dot_impl("dot", n, x, incx, y, incy, false, Some(result))
            .map(drop)
    }

    /// Σ conj(xᵢ)·yᵢ (equals `dot` for real types).
    pub fn dotc<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
    ) -> Result<T> {
        self.dot_impl("dotc", n, x, incx, y, incy, true, None)
    }

    /// [`Blas::dotc`] into `result[0]`, as the handle's [`PointerMode`] says.
    pub fn dotc_into<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        result: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.dot_impl("dotc", n, x, incx, y, incy, true, Some(result))
            .map(drop)
    }

    /// Σ xᵢ
    pub fn sum<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<T> {
        self.sum_impl(n, x, incx, None)
    }

    /// [`Blas::sum`] into `result[0]`, as the handle's [`PointerMode`] says.
    pub fn sum_into<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.sum_impl(n, x, incx, Some(result)).map(drop)
    }

    fn sum_impl<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: Option<&mut BufferSliceMut<'_, T>>,
    ) -> Result<T> {
        self.l1_in("x", "incx", x, n, incx)?;
        let xv = vec_of::<T>("x", DeviceView::read(x), incx);
        let cpu = || Ok(cpu::level1::sum(n, check::host("x", x)?, incx));
        self.reduction("sum", L1Op::Sum, T::DTYPE, n, xv, None, cpu, result)
    }

    /// Σ |re xᵢ| + |im xᵢ|
    pub fn asum<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
    ) -> Result<T::Real> {
        self.asum_impl(n, x, incx, None)
    }

    /// [`Blas::asum`] into `result[0]`, as the handle's [`PointerMode`] says.
    pub fn asum_into<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: &mut BufferSliceMut<'_, T::Real>,
    ) -> Result<()> {
        self.asum_impl(n, x, incx, Some(result)).map(drop)
    }

    fn asum_impl<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: Option<&mut BufferSliceMut<'_, T::Real>>,
    ) -> Result<T::Real> {
        self.l1_in("x", "incx", x, n, incx)?;
        let xv = vec_of::<T>("x", DeviceView::read(x), incx);
        let cpu = || Ok(cpu::level1::asum(n, check::host("x", x)?, incx));
        self.reduction("asum", L1Op::Asum, T::DTYPE, n, xv, None, cpu, result)
    }

    /// ‖x‖₂, scaled so that it overflows or underflows only when the result does.
    pub fn nrm2<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
    ) -> Result<T::Real> {
        self.nrm2_impl(n, x, incx, None)
    }

    /// [`Blas::nrm2`] into `result[0]`, as the handle's [`PointerMode`] says.
    pub fn nrm2_into<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: &mut BufferSliceMut<'_, T::Real>,
    ) -> Result<()> {
        self.nrm2_impl(n, x, incx, Some(result)).map(drop)
    }

    fn nrm2_impl<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: Option<&mut BufferSliceMut<'_, T::Real>>,
    ) -> Result<T::Real> {
        self.l1_in("x", "incx", x, n, incx)?;
        let xv = vec_of::<T>("x", DeviceView::read(x), incx);
        let cpu = || Ok(cpu::level1::nrm2(n, check::host("x", x)?, incx));
        self.reduction("nrm2", L1Op::Nrm2, T::DTYPE, n, xv, None, cpu, result)
    }

    /// 1-based index of the first element of largest |re| + |im| (0 when n = 0).
    pub fn iamax<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        Ok(self.iamax_impl(n, x, incx, true, None)? as usize)
    }

    /// [`Blas::iamax`] into `result[0]` (as i64), as the handle's [`PointerMode`] says.
    pub fn iamax_into<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: &mut BufferSliceMut<'_, i64>,
    ) -> Result<()> {
        self.iamax_impl(n, x, incx, true, Some(result)).map(drop)
    }

    /// 1-based index of the first element of smallest |re| + |im| (0 when n = 0).
    pub fn iamin<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        Ok(self.iamax_impl(n, x, incx, false, None)? as usize)
    }

    /// [`Blas::iamin`] into `result[0]` (as i64), as the handle's [`PointerMode`] says.
    pub fn iamin_into<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        result: &mut BufferSliceMut<'_, i64>,
    ) -> Result<()> {
        self.iamax_impl(n, x, incx, false, Some(result)).map(drop)
    }

    fn iamax_impl<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        max: bool,
        result: Option<&mut BufferSliceMut<'_, i64>>,
    ) -> Result<i64> {
        self.l1_in("x", "incx", x, n, incx)?;
        let routine = if max { "iamax" } else { "iamin" };
        let xv = vec_of::<T>("x", DeviceView::read(x), incx);
        let cpu = || Ok(cpu::level1::iamax(n, check::host("x", x)?, incx, max) as i64);
        self.reduction(
            routine,
            L1Op::Iamax { max },
            T::DTYPE,
            n,
            xv,
            None,
            cpu,
            result,
        )
    }

    /// Plane rotation: x ← c·x + s·y, y ← c·y − conj(s)·x.
    pub fn rot<T: Scalar>(
        &self,
        n: usize,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
        c: T::Real,
        s: T,
    ) -> Result<()> {
        self.l1_out("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::rot(n, x, incx, check::host_mut("y", y)?, incy, c, s)
            }
            Dispatch::Gpu => {
                let mut args = vec![real_arg(c)];
                element_args(s, &mut args);
                let (xv, yv) = (
                    vec_of::<T>("x", DeviceView::write(x), incx),
                    vec_of::<T>("y", DeviceView::write(y), incy),
                );
                gpu::elementwise(self, "rot", L1Op::Rot, T::DTYPE, n, xv, Some(yv), &args)?
            }
        }
        Ok(())
    }

    /// Modified Givens rotation with `param` = [flag, h11, h21, h12, h22] (real types).
    pub fn rotm<R: Real>(
        &self,
        n: usize,
        x: &mut BufferSliceMut<'_, R>,
        incx: isize,
        y: &mut BufferSliceMut<'_, R>,
        incy: isize,
        param: [R; 5],
    ) -> Result<()> {
        self.l1_out("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        // flag = −2: H is the identity.
        let Some(h) = rotm_matrix(param) else {
            return Ok(());
        };
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::rotm(n, x, incx, check::host_mut("y", y)?, incy, h)
            }
            Dispatch::Gpu => {
                let args = h.map(real_arg);
                let (xv, yv) = (
                    vec_of::<R>("x", DeviceView::write(x), incx),
                    vec_of::<R>("y", DeviceView::write(y), incy),
                );
                gpu::elementwise(self, "rotm", L1Op::Rotm, R::DTYPE, n, xv, Some(yv), &args)?
            }
        }
        Ok(())
    }
}

impl Blas {
    /// A reduction's result: `cpu` on the CPU device, the GPU passes elsewhere
    /// ([`gpu::reduce_into`]). With `result` the value is also stored in `result[0]`,
    /// as the [`PointerMode`] says; in device mode on a GPU the call only enqueues and
    /// returns `R::default()`.
    pub(crate) fn reduction<R: Element>(
        &self,
        routine: &str,
        op: L1Op,
        dtype: DType,
        n: usize,
        x: Vector<'_>,
        y: Option<Vector<'_>>,
        cpu: impl FnOnce() -> Result<R>,
        result: Option<&mut BufferSliceMut<'_, R>>,
    ) -> Result<R> {
        if let Some(r) = &result {
            self.check_device("result", r.device())?;
            if r.is_empty() {
                return Err(Error::invalid(
                    "result",
                    format!("{routine}: the result buffer is empty"),
                ));
            }
        }
        let value = match (self.dispatch(), self.pointer_mode(), result) {
            (Dispatch::Cpu, _, result) => {
                let v = cpu()?;
                if let Some(r) = result {
                    check::host_mut("result", r)?[0] = v;
                }
                return Ok(v);
            }
            (Dispatch::Gpu, PointerMode::Device, Some(r)) => {
                gpu::reduce_into(self, routine, op, dtype, n, x, y, gpu::Dest::Device(r))?;
                return Ok(R::default());
            }
            (Dispatch::Gpu, _, result) => {
                let mut v = R::default();
                gpu::reduce_into(self, routine, op, dtype, n, x, y, gpu::Dest::Host(&mut v))?;
                if let Some(r) = result {
                    r.slice_mut(..1)?.upload_on(self.stream(), &[v])?;
                }
                v
            }
        };
        Ok(value)
    }
}

/// The matrix [h11, h21, h12, h22] of BLAS's rotm `param` = [flag, h11, h21, h12, h22],
/// as reference BLAS reads the flag: −2 the identity (None: nothing to do), below zero
/// all four given, 0 a unit diagonal with h21, h12 given, above zero h11, h22 given with
/// h21 = −1 and h12 = 1.
pub(crate) fn rotm_matrix<R: Real>(param: [R; 5]) -> Option<[R; 4]> {
    let (one, zero) = (R::one(), R::zero());
    let [flag, h11, h21, h12, h22] = param;
    if flag == -(one + one) {
        None
    } else if flag < zero {
        Some([h11, h21, h12, h22])
    } else if flag == zero {
        Some([one, h21, h12, one])
    } else {
        Some([h11, -one, one, h22])
    }
}

/// Constructs a Givens rotation: returns (c, s, r, z) with [c s; −s c]·[a; b] = [r; 0],
/// as BLAS's srotg/drotg.
pub fn rotg<R: Real>(a: R, b: R) -> (R, R, R, R) {
    let zero = R::zero();
    let one = R::one();
    let roe = if a.abs() > b.abs() { a } else { b };
    let scale = a.abs() + b.abs();
    if scale == zero {
        return (one, zero, zero, zero);
    }
    let mut r = scale * ((a / scale).powi(2) + (b / scale).powi(2)).sqrt();
    if roe < zero {
        r = -r;
    }
    let c = a / r;
    let s = b / r;
    let z = if a.abs() > b.abs() {
        s
    } else if c != zero {
        one / c
    } else {
        one
    };
    (c, s, r, z)
}
