//! BLAS Level 1: vector-vector operations.
//!
//! Vectors are `(buffer view, n, inc)`; a negative increment walks the vector from its far
//! end, as BLAS defines it. Increments must be non-zero. Scalar results (dot, nrm2, asum,
//! iamax...) are returned to the host.

#![allow(clippy::too_many_arguments)]

use crate::gpu::level1::{self as gpu, Reduced, Vector};
use crate::handle::Dispatch;
use crate::{check, cpu, Blas, Real, Scalar};
use num_traits::NumCast;
use rocm_core::{BufferSlice, BufferSliceMut, Result};
use rocm_kernels::level1::L1Op;

fn vec_of(address: u64, inc: isize) -> Vector {
    Vector { address, inc }
}

fn real_of<R: Real>(v: f64) -> R {
    <R as NumCast>::from(v).unwrap_or_else(R::nan)
}

impl Blas {
    fn l1_in<T: Scalar>(
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

    fn l1_out<T: Scalar>(
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
        match self.dispatch("scal")? {
            Dispatch::Cpu => cpu::level1::scal(n, alpha, check::host_mut("x", x)?, incx),
            Dispatch::Gpu => {
                let xv = vec_of(x.address(), incx);
                gpu::elementwise(self, L1Op::Scal, n, xv, None, alpha, T::zero())?
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
        match self.dispatch("axpby")? {
            Dispatch::Cpu => {
                let x = check::host("x", x)?;
                cpu::level1::axpby(n, alpha, x, incx, beta, check::host_mut("y", y)?, incy)
            }
            Dispatch::Gpu => {
                let op = L1Op::Axpby {
                    read_y: beta != T::zero(),
                };
                let (xv, yv) = (vec_of(x.address(), incx), vec_of(y.address(), incy));
                gpu::elementwise(self, op, n, xv, Some(yv), alpha, beta)?
            }
        }
        Ok(())
    }

    /// y = x
    pub fn copy<T: Scalar>(
        &self,
        n: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.l1_in("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        match self.dispatch("copy")? {
            Dispatch::Cpu => {
                let x = check::host("x", x)?;
                cpu::level1::copy(n, x, incx, check::host_mut("y", y)?, incy)
            }
            Dispatch::Gpu => {
                let (xv, yv) = (vec_of(x.address(), incx), vec_of(y.address(), incy));
                gpu::elementwise(self, L1Op::Copy, n, xv, Some(yv), T::one(), T::zero())?
            }
        }
        Ok(())
    }

    /// x ↔ y
    pub fn swap<T: Scalar>(
        &self,
        n: usize,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.l1_out("x", "incx", x, n, incx)?;
        self.l1_out("y", "incy", y, n, incy)?;
        match self.dispatch("swap")? {
            Dispatch::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::swap(n, x, incx, check::host_mut("y", y)?, incy)
            }
            Dispatch::Gpu => {
                let (xv, yv) = (vec_of(x.address(), incx), vec_of(y.address(), incy));
                gpu::elementwise(self, L1Op::Swap, n, xv, Some(yv), T::one(), T::zero())?
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
        match self.dispatch(op)? {
            Dispatch::Cpu => Ok(cpu::level1::dot(
                n,
                check::host("x", x)?,
                incx,
                check::host("y", y)?,
                incy,
                conj,
            )),
            Dispatch::Gpu => {
                let (xv, yv) = (vec_of(x.address(), incx), vec_of(y.address(), incy));
                match gpu::reduce::<T>(self, L1Op::Dot { conj }, n, xv, Some(yv))? {
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
        match self.dispatch("sum")? {
            Dispatch::Cpu => Ok(cpu::level1::sum(n, check::host("x", x)?, incx)),
            Dispatch::Gpu => {
                match gpu::reduce::<T>(self, L1Op::Sum, n, vec_of(x.address(), incx), None)? {
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
        match self.dispatch("asum")? {
            Dispatch::Cpu => Ok(cpu::level1::asum(n, check::host("x", x)?, incx)),
            Dispatch::Gpu => {
                match gpu::reduce::<T>(self, L1Op::Asum, n, vec_of(x.address(), incx), None)? {
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
        match self.dispatch("nrm2")? {
            Dispatch::Cpu => Ok(cpu::level1::nrm2(n, check::host("x", x)?, incx)),
            Dispatch::Gpu => {
                match gpu::reduce::<T>(self, L1Op::Nrm2, n, vec_of(x.address(), incx), None)? {
                    Reduced::Nrm2(v) => Ok(real_of(v)),
                    _ => Err(self.unsupported("nrm2")),
                }
            }
        }
    }

    /// 1-based index of the first element of largest |re| + |im| (0 when n = 0).
    pub fn iamax<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.dispatch("iamax")? {
            Dispatch::Cpu => Ok(cpu::level1::iamax(n, check::host("x", x)?, incx, true)),
            Dispatch::Gpu => self.gpu_iamax::<T>(n, x, incx, true),
        }
    }

    /// 1-based index of the first element of smallest |re| + |im| (0 when n = 0).
    pub fn iamin<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.dispatch("iamin")? {
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
        match self.dispatch("rot")? {
            Dispatch::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::rot(n, x, incx, check::host_mut("y", y)?, incy, c, s)
            }
            Dispatch::Gpu => return Err(self.unsupported("rot")),
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
        match self.dispatch("rotm")? {
            Dispatch::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::rotm(n, x, incx, check::host_mut("y", y)?, incy, param)
            }
            Dispatch::Gpu => return Err(self.unsupported("rotm")),
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
        match gpu::reduce::<T>(
            self,
            L1Op::Iamax { max },
            n,
            vec_of(x.address(), incx),
            None,
        )? {
            // All-NaN input: the first element, as on the CPU.
            Reduced::Index(i) => Ok(i.map_or(1, |i| i as usize + 1)),
            _ => Err(self.unsupported("iamax")),
        }
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
