//! The scalar types BLAS routines are generic over.
//!
//! [`Scalar`] covers f32, f64, Complex32 and Complex64 — the four BLAS precisions
//! (s, d, c, z). Each has a real type ([`Scalar::Real`]) for norms and a wider type
//! ([`Scalar::Wide`]) the reference implementations accumulate in.
//!
//! The data-movement routines (copy, swap, fill) and the `_ex` family reach further:
//! [`FloatElement`] is every floating element type a Level 1 vector may hold (the four
//! BLAS types plus f16 and bf16), [`RealElement`] its real members (what
//! [`crate::Blas::convert`] converts between), and [`Half`] the 16-bit types the `_ex`
//! routines compute on in f32, as rocBLAS's `*_ex` with an f32 compute type.

use half::{bf16, f16};
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

mod sealed {
    pub trait Sealed {}
}

/// A floating element type of a Level 1 vector: f16, bf16, f32, f64, Complex32,
/// Complex64. Sealed.
pub trait FloatElement: Element + sealed::Sealed {
    /// The real part and the imaginary part (0 for reals), exactly, as f64.
    fn components(self) -> [f64; 2];
}

/// A real floating element type: f16, bf16, f32, f64.
pub trait RealElement: FloatElement + PartialOrd {
    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// The value as f32: exact for f16, bf16 and f32; f64 rounds to nearest even.
    fn to_f32(self) -> f32;
    /// `v` in this type: exact for f32 and f64; f16 and bf16 round to nearest even
    /// (overflow gives ±∞, NaN stays NaN).
    fn from_f32(v: f32) -> Self;
}

/// A 16-bit float (f16 or bf16): stored in 16 bits, computed on in f32.
pub trait Half: RealElement {
    /// The unit roundoff u = 2^-p of rounding to nearest (f16 2⁻¹¹, bf16 2⁻⁸).
    const UNIT_ROUNDOFF: f64;
    /// The smallest positive (subnormal) value, as f64: the absolute error floor of a
    /// rounding into the type.
    const MIN_SUBNORMAL: f64;
}

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
    )*};
}
float_element!(f16, bf16, f32, f64, Complex32, Complex64);

macro_rules! real_element {
    ($t:ty, $to64:expr, $to32:expr, $from32:expr) => {
        impl FloatElement for $t {
            fn components(self) -> [f64; 2] {
                [RealElement::to_f64(self), 0.0]
            }
        }
        impl RealElement for $t {
            fn to_f64(self) -> f64 {
                $to64(self)
            }
            fn to_f32(self) -> f32 {
                $to32(self)
            }
            fn from_f32(v: f32) -> Self {
                $from32(v)
            }
        }
    };
}
// f16 and bf16 round from f32 with the `half` crate's `from_f32` (round to nearest
// even); its bf16 `from_f64` does not round correctly in every case (e.g. the f32
// 0x34868006), so nothing here converts from f64 directly.
real_element!(f16, f16::to_f64, f16::to_f32, f16::from_f32);
real_element!(bf16, bf16::to_f64, bf16::to_f32, bf16::from_f32);
real_element!(f32, f64::from, |v: f32| v, |v: f32| v);
real_element!(f64, |v: f64| v, |v: f64| v as f32, f64::from);

impl FloatElement for Complex32 {
    fn components(self) -> [f64; 2] {
        [self.re.into(), self.im.into()]
    }
}
impl FloatElement for Complex64 {
    fn components(self) -> [f64; 2] {
        [self.re, self.im]
    }
}

impl Half for f16 {
    const UNIT_ROUNDOFF: f64 = 1.0 / 2048.0;
    const MIN_SUBNORMAL: f64 = 5.960464477539063e-8; // 2^-24
}
impl Half for bf16 {
    const UNIT_ROUNDOFF: f64 = 1.0 / 256.0;
    const MIN_SUBNORMAL: f64 = 9.183549615799121e-41; // 2^-133
}

/// A BLAS element type: f32, f64, Complex32 or Complex64.
pub trait Scalar:
    FloatElement + NumAssign + Neg<Output = Self> + Copy + Send + Sync + Debug + Sum + 'static
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
