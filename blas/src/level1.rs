//! BLAS Level 1: vector-vector operations.
//!
//! Vectors are `(buffer view, n, inc)`; a negative increment walks the vector from its far
//! end, as BLAS defines it. Increments must be non-zero. Scalar results (dot, nrm2, asum,
//! iamax...) are returned to the host.

#![allow(clippy::too_many_arguments)]

use crate::handle::Engine;
use crate::{check, cpu, Blas, Real, Scalar};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

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
        match self.engine("scal")? {
            Engine::Cpu => cpu::level1::scal(n, alpha, check::host_mut("x", x)?, incx),
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
        match self.engine("axpby")? {
            Engine::Cpu => {
                let x = check::host("x", x)?;
                cpu::level1::axpby(n, alpha, x, incx, beta, check::host_mut("y", y)?, incy)
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
        match self.engine("copy")? {
            Engine::Cpu => {
                let x = check::host("x", x)?;
                cpu::level1::copy(n, x, incx, check::host_mut("y", y)?, incy)
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
        match self.engine("swap")? {
            Engine::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::swap(n, x, incx, check::host_mut("y", y)?, incy)
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
        match self.engine(op)? {
            Engine::Cpu => Ok(cpu::level1::dot(
                n,
                check::host("x", x)?,
                incx,
                check::host("y", y)?,
                incy,
                conj,
            )),
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
        match self.engine("sum")? {
            Engine::Cpu => Ok(cpu::level1::sum(n, check::host("x", x)?, incx)),
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
        match self.engine("asum")? {
            Engine::Cpu => Ok(cpu::level1::asum(n, check::host("x", x)?, incx)),
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
        match self.engine("nrm2")? {
            Engine::Cpu => Ok(cpu::level1::nrm2(n, check::host("x", x)?, incx)),
        }
    }

    /// 1-based index of the first element of largest |re| + |im| (0 when n = 0).
    pub fn iamax<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.engine("iamax")? {
            Engine::Cpu => Ok(cpu::level1::iamax(n, check::host("x", x)?, incx, true)),
        }
    }

    /// 1-based index of the first element of smallest |re| + |im| (0 when n = 0).
    pub fn iamin<T: Scalar>(&self, n: usize, x: &BufferSlice<'_, T>, incx: isize) -> Result<usize> {
        self.l1_in("x", "incx", x, n, incx)?;
        match self.engine("iamin")? {
            Engine::Cpu => Ok(cpu::level1::iamax(n, check::host("x", x)?, incx, false)),
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
        match self.engine("rot")? {
            Engine::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::rot(n, x, incx, check::host_mut("y", y)?, incy, c, s)
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
        match self.engine("rotm")? {
            Engine::Cpu => {
                let x = check::host_mut("x", x)?;
                cpu::level1::rotm(n, x, incx, check::host_mut("y", y)?, incy, param)
            }
        }
        Ok(())
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
