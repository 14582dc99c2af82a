//! The scalar types BLAS routines are generic over.
//!
//! [`Scalar`] covers f32, f64, Complex32 and Complex64 — the four BLAS precisions
//! (s, d, c, z). Each has a real type ([`Scalar::Real`]) for norms and a wider type
//! ([`Scalar::Wide`]) the reference implementations accumulate in.

use num_complex::{Complex, Complex32, Complex64};
use num_traits::{Float, NumAssign};
use rocm_core::Element;
use std::fmt::{Debug, Display};
use std::iter::Sum;
use std::ops::Neg;

/// f32 or f64.
pub trait Real:
    Scalar<Real = Self> + Float + Display + Sum + PartialOrd + rocm_core::KernelArg
{
    /// The value as f64 (exact).
    fn as_f64(self) -> f64;
}
impl Real for f32 {
    fn as_f64(self) -> f64 {
        self as f64
    }
}
impl Real for f64 {
    fn as_f64(self) -> f64 {
        self
    }
}

/// A BLAS element type: f32, f64, Complex32 or Complex64.
pub trait Scalar:
    Element + NumAssign + Neg<Output = Self> + Copy + Send + Sync + Debug + Sum + 'static
{
    /// The real type of the same precision.
    type Real: Real;
    /// The type references accumulate in (f64 or Complex64).
    type Wide: Scalar;
    /// Whether the type is complex.
    const IS_COMPLEX: bool;
    /// The BLAS precision letter (s, d, c, z).
    const PREFIX: char;

    /// Complex conjugate (identity for reals).
    fn conj(self) -> Self;
    /// Real part.
    fn re(self) -> Self::Real;
    /// Imaginary part (zero for reals).
    fn im(self) -> Self::Real;
    /// The value with real part `re` and imaginary part `im` (`im` ignored for reals).
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// |re| + |im|, the magnitude BLAS's i?amax and ?asum use.
    fn abs1(self) -> Self::Real {
        self.re().abs() + self.im().abs()
    }
    /// The modulus.
    fn modulus(self) -> Self::Real {
        self.re().hypot(self.im())
    }
    /// Widens for reference accumulation.
    fn widen(self) -> Self::Wide;
    /// Rounds back from the wide type.
    fn narrow(w: Self::Wide) -> Self;
    /// Machine epsilon of the precision (2^-23 or 2^-52).
    fn eps() -> Self::Real {
        <Self::Real as Float>::epsilon()
    }
    /// Whether any component is NaN.
    fn has_nan(self) -> bool {
        self.re().is_nan() || self.im().is_nan()
    }
    /// Real scalar as `Self`.
    fn from_real(r: Self::Real) -> Self {
        Self::from_parts(r, <Self::Real as num_traits::Zero>::zero())
    }
}

macro_rules! real_scalar {
    ($t:ty, $p:literal) => {
        impl Scalar for $t {
            type Real = $t;
            type Wide = f64;
            const IS_COMPLEX: bool = false;
            const PREFIX: char = $p;
            fn conj(self) -> Self {
                self
            }
            fn re(self) -> Self {
                self
            }
            fn im(self) -> Self {
                0.0
            }
            fn from_parts(re: Self, _: Self) -> Self {
                re
            }
            fn widen(self) -> f64 {
                self as f64
            }
            fn narrow(w: f64) -> Self {
                w as $t
            }
        }
    };
}
real_scalar!(f32, 's');
real_scalar!(f64, 'd');

macro_rules! complex_scalar {
    ($t:ty, $r:ty, $p:literal) => {
        impl Scalar for $t {
            type Real = $r;
            type Wide = Complex64;
            const IS_COMPLEX: bool = true;
            const PREFIX: char = $p;
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            fn re(self) -> $r {
                self.re
            }
            fn im(self) -> $r {
                self.im
            }
            fn from_parts(re: $r, im: $r) -> Self {
                Complex::new(re, im)
            }
            fn widen(self) -> Complex64 {
                Complex64::new(self.re as f64, self.im as f64)
            }
            fn narrow(w: Complex64) -> Self {
                Complex::new(w.re as $r, w.im as $r)
            }
        }
    };
}
complex_scalar!(Complex32, f32, 'c');
complex_scalar!(Complex64, f64, 'z');
