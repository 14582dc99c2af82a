//! BLAS Level 1: vector-vector operations.
//!
//! Vectors are `(buffer view, n, inc)`; a negative increment walks the vector from its far
//! end, as BLAS defines it. Increments must be non-zero. Scalar results (dot, nrm2, asum,
//! iamax...) are returned to the host.

#![allow(clippy::too_many_arguments)]

use crate::gpu::level1::{self as gpu, Reduced, ScalarArg, Vector};
use crate::handle::Dispatch;
use crate::{check, cpu, Blas, FloatElement, Real, Scalar};
use num_traits::NumCast;
use rocm_core::{BufferSlice, BufferSliceMut, Element, Result};
use rocm_kernels::level1::L1Op;

pub(crate) fn vec_of<T: Element>(name: &'static str, address: u64, inc: isize) -> Vector {
    Vector {
        name,
        address,
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

fn real_of<R: Real>(v: f64) -> R {
    <R as NumCast>::from(v).unwrap_or_else(R::nan)
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
                let xv = vec_of::<T>("x", x.address(), incx);
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
                    vec_of::<T>("x", x.address(), incx),
                    vec_of::<T>("y", y.address(), incy),
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
                    vec_of::<T>("x", x.address(), incx),
                    vec_of::<T>("y", y.address(), incy),
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
                    vec_of::<T>("x", x.address(), incx),
                    vec_of::<T>("y", y.address(), incy),
                );
                gpu::elementwise(self, "swap", L1Op::Swap, T::DTYPE, n, xv, Some(yv), &[])?
            }
        }
        Ok(())
    }

    fn dot_impl<T: Scalar>(
        &self,
        op: &str,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        conj: bool,
    ) -> Result<T> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_in("y", "incy", y, n, incy)?;
        match self.dispatch() {
            Dispatch::Cpu => Ok(cpu::level1::dot(
                n,
                check::host("x", x)?,
                incx,
                check::host("y", y)?,
                incy,
                conj,
            )),
            Dispatch::Gpu => {
                let (xv, yv) = (
                    vec_of::<T>("x", x.address(), incx),
                    vec_of::<T>("y", y.address(), incy),
                );
                match gpu::reduce(self, op, L1Op::Dot { conj }, T::DTYPE, n, xv, Some(yv))? {
                    Reduced::Sum(re, im) => Ok(T::from_parts(real_of(re), real_of(im))),
                    _ => Err(self.unsupported(op)),
                }
            }
        }
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
        self.dot_impl("dot", n, x, incx, y, incy, false)
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
        self.dot_impl("dotc", n, x, incx, y, incy, true)
    }

    /// Σ xᵢ
    pub fn sum<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<T> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => Ok(cpu::level1::sum(n, check::host("x", x)?, incx)),
            Dispatch::Gpu => {
                match gpu::reduce(
                    self,
                    "sum",
                    L1Op::Sum,
                    T::DTYPE,
                    n,
                    vec_of::<T>("x", x.address(), incx),
                    None,
                )? {
                    Reduced::Sum(re, im) => Ok(T::from_parts(real_of(re), real_of(im))),
                    _ => Err(self.unsupported("sum")),
                }
            }
        }
    }

    /// Σ |re xᵢ| + |im xᵢ|
    pub fn asum<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
    ) -> Result<T::Real> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => Ok(cpu::level1::asum(n, check::host("x", x)?, incx)),
            Dispatch::Gpu => {
                match gpu::reduce(
                    self,
                    "asum",
                    L1Op::Asum,
                    T::DTYPE,
                    n,
                    vec_of::<T>("x", x.address(), incx),
                    None,
                )? {
                    Reduced::Sum(re, _) => Ok(real_of(re)),
                    _ => Err(self.unsupported("asum")),
                }
            }
        }
    }

    /// ‖x‖₂, scaled so that it overflows or underflows only when the result does.
    pub fn nrm2<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
    ) -> Result<T::Real> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => Ok(cpu::level1::nrm2(n, check::host("x", x)?, incx)),
            Dispatch::Gpu => {
                match gpu::reduce(
                    self,
                    "nrm2",
                    L1Op::Nrm2,
                    T::DTYPE,
                    n,
                    vec_of::<T>("x", x.address(), incx),
                    None,
                )? {
                    Reduced::Nrm2(v) => Ok(real_of(v)),
                    _ => Err(self.unsupported("nrm2")),
                }
            }
        }
    }

    /// 1-based index of the first element of largest |re| + |im| (0 when n = 0).
    pub fn iamax<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => Ok(cpu::level1::iamax(n, check::host("x", x)?, incx, true)),
            Dispatch::Gpu => self.gpu_iamax::<T>(n, x, incx, true),
        }
    }

    /// 1-based index of the first element of smallest |re| + |im| (0 when n = 0).
    pub fn iamin<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.dispatch() {
            Dispatch::Cpu => Ok(cpu::level1::iamax(n, check::host("x", x)?, incx, false)),
            Dispatch::Gpu => self.gpu_iamax::<T>(n, x, incx, false),
        }
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
                    vec_of::<T>("x", x.address(), incx),
                    vec_of::<T>("y", y.address(), incy),
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
                    vec_of::<R>("x", x.address(), incx),
                    vec_of::<R>("y", y.address(), incy),
                );
                gpu::elementwise(self, "rotm", L1Op::Rotm, R::DTYPE, n, xv, Some(yv), &args)?
            }
        }
        Ok(())
    }
}

impl Blas {
    fn gpu_iamax<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        max: bool,
    ) -> Result<usize> {
        if n == 0 {
            return Ok(0);
        }
        let routine = if max { "iamax" } else { "iamin" };
        match gpu::reduce(
            self,
            routine,
            L1Op::Iamax { max },
            T::DTYPE,
            n,
            vec_of::<T>("x", x.address(), incx),
            None,
        )? {
            // All-NaN input: the first element, as on the CPU.
            Reduced::Index(i) => Ok(i.map_or(1, |i| i as usize + 1)),
            _ => Err(self.unsupported(routine)),
        }
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
