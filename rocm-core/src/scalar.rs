//! The floating-point vocabulary every library shares: which types are real or complex,
//! their precision, and exact conversions for references and tolerances.
//!
//! Two ladders over the sealed [`Element`] types:
//!
//! - *storage*: [`FloatElement`] is every floating element type a buffer may hold (f16,
//!   bf16, f32, f64, Complex32, Complex64); [`RealElement`] its real members, each with
//!   the type it is computed in ([`RealElement::Compute`]: f32 for the 16-bit types,
//!   as rocBLAS's `_ex` routines, rocFFT's half precision and MIOpen do) and its rounding
//!   constants; [`Half`] the two 16-bit types.
//! - *arithmetic*: [`Scalar`] is the four types the math runs on (f32, f64, Complex32,
//!   Complex64: BLAS's s, d, c, z), with conjugation, parts, magnitudes and widenings for
//!   references; [`Real`] its real members (f32, f64) with `num_traits::Float`.
//!
//! Libraries add their own operations in small traits that take these as supertraits
//! (rocm-fft's SIMD vector type, rocm-dnn's in-place f32 views, rocm-ccl's reductions).
//!
//! The two ladders stay apart on purpose: f32 and f64 are on both, but a bound of both a
//! `RealElement` and `num_traits::Float` would make `x.to_f64()` ambiguous (Float's
//! `ToPrimitive::to_f64` returns an `Option`); [`Real::as_f64`] is the arithmetic side's
//! name for the same exact widening.

use crate::{Element, KernelArg};
use half::{bf16, f16};
use num_complex::{Complex, Complex32, Complex64};
use num_traits::{Float, FloatConst, NumAssign};
use std::fmt::{Debug, Display};
use std::iter::Sum;
use std::ops::Neg;

mod sealed {
    pub trait Sealed {}
}

/// A floating element type: f16, bf16, f32, f64, Complex32, Complex64. Sealed.
pub trait FloatElement: Element + sealed::Sealed {
    /// The real part and the imaginary part (0 for reals), exactly, as f64.
    fn components(self) -> [f64; 2];
}

/// A real floating element type: f16, bf16, f32, f64.
pub trait RealElement: FloatElement + PartialOrd {
    /// The type values are computed in: f32 for f16 and bf16, the type itself for f32
    /// and f64.
    type Compute: Real;
    /// The unit roundoff u = 2^-p of rounding to nearest (half the machine epsilon:
    /// f16 2⁻¹¹, bf16 2⁻⁸, f32 2⁻²⁴, f64 2⁻⁵³).
    const UNIT_ROUNDOFF: f64;
    /// The smallest positive (subnormal) value, as f64: below the normal range, a
    /// rounding into the type errs by up to half of it, whatever the value.
    const MIN_SUBNORMAL: f64;
    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// The value as f32: exact for f16, bf16 and f32; f64 rounds to nearest even.
    fn to_f32(self) -> f32;
    /// `v` in this type: exact for f32 and f64; f16 and bf16 round to nearest even
    /// (overflow gives ±∞, NaN stays NaN).
    fn from_f32(v: f32) -> Self;
    /// The value in its compute type (exact).
    fn load(self) -> Self::Compute;
    /// `x` rounded to this type (to nearest even; exact for f32 and f64).
    fn store(x: Self::Compute) -> Self;
}

/// A 16-bit float (f16 or bf16): stored in 16 bits, computed on in f32.
pub trait Half: RealElement<Compute = f32> {}

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
    )*};
}
float_element!(f16, bf16, f32, f64, Complex32, Complex64);

macro_rules! real_element {
    ($t:ty, $c:ty, $u:expr, $s:expr, $to64:expr, $to32:expr, $from32:expr, $load:expr, $store:expr) => {
        impl FloatElement for $t {
            fn components(self) -> [f64; 2] {
                [RealElement::to_f64(self), 0.0]
            }
        }
        impl RealElement for $t {
            type Compute = $c;
            const UNIT_ROUNDOFF: f64 = $u;
            const MIN_SUBNORMAL: f64 = $s;
            #[inline(always)]
            fn to_f64(self) -> f64 {
                $to64(self)
            }
            #[inline(always)]
            fn to_f32(self) -> f32 {
                $to32(self)
            }
            #[inline(always)]
            fn from_f32(v: f32) -> Self {
                $from32(v)
            }
            #[inline(always)]
            fn load(self) -> $c {
                $load(self)
            }
            #[inline(always)]
            fn store(x: $c) -> Self {
                $store(x)
            }
        }
    };
}

// f16 and bf16 round from f32 with the `half` crate's `from_f32` (round to nearest
// even); its bf16 `from_f64` does not round correctly in every case (e.g. the f32
// 0x34868006), so nothing here converts from f64 directly.
real_element!(
    f16,
    f32,
    1.0 / 2048.0,
    5.960464477539063e-8, // 2^-24
    f16::to_f64,
    f16::to_f32,
    f16::from_f32,
    f16::to_f32,
    f16::from_f32
);
real_element!(
    bf16,
    f32,
    1.0 / 256.0,
    9.183549615799121e-41, // 2^-133: bf16 shares f32's exponent range
    bf16::to_f64,
    bf16::to_f32,
    bf16::from_f32,
    bf16::to_f32,
    bf16::from_f32
);
real_element!(
    f32,
    f32,
    f32::EPSILON as f64 / 2.0,
    f32::from_bits(1) as f64,
    f64::from,
    |v: f32| v,
    |v: f32| v,
    |v: f32| v,
    |v: f32| v
);
real_element!(
    f64,
    f64,
    f64::EPSILON / 2.0,
    f64::from_bits(1),
    |v: f64| v,
    |v: f64| v as f32,
    f64::from,
    |v: f64| v,
    |v: f64| v
);

impl Half for f16 {}
impl Half for bf16 {}

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

/// An element type the math runs on: f32, f64, Complex32 or Complex64 (BLAS's s, d,
/// c, z; rocSPARSE's four value types).
pub trait Scalar:
    FloatElement + NumAssign + Neg<Output = Self> + Copy + Send + Sync + Debug + Display + Sum + 'static
{
    /// The real type of the same precision.
    type Real: Real;
    /// The type references accumulate in (f64 or Complex64).
    type Wide: Scalar;
    /// Whether the type is complex.
    const IS_COMPLEX: bool;
    /// The BLAS precision letter (s, d, c, z).
    const PREFIX: char;
    /// Machine epsilon of the real type (2⁻²³ or 2⁻⁵²), as f64.
    const EPS: f64;

    /// Complex conjugate (identity for reals).
    fn conj(self) -> Self;
    /// Real part.
    fn re(self) -> Self::Real;
    /// Imaginary part (zero for reals).
    fn im(self) -> Self::Real;
    /// The value with real part `re` and imaginary part `im` (`im` ignored for reals).
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// Real scalar as `Self`.
    fn from_real(r: Self::Real) -> Self {
        Self::from_parts(r, <Self::Real as num_traits::Zero>::zero())
    }
    /// |re| + |im|, the magnitude BLAS's i?amax and ?asum use.
    fn abs1(self) -> Self::Real {
        self.re().abs() + self.im().abs()
    }
    /// The modulus |x| (for complex values `hypot(re, im)`).
    fn modulus(self) -> Self::Real;
    /// The principal square root (for reals, NaN below zero).
    fn principal_sqrt(self) -> Self;
    /// `self / rhs`; for complex values by [`crate::complex_div::div`], which stays
    /// accurate where the textbook formula squares |rhs| into overflow or underflow.
    fn robust_div(self, rhs: Self) -> Self;
    /// `1 / self`, as [`Scalar::robust_div`].
    fn robust_recip(self) -> Self {
        Self::one().robust_div(self)
    }
    /// Machine epsilon of the precision, in the real type.
    fn eps() -> Self::Real {
        <Self::Real as Float>::epsilon()
    }
    /// Whether any component is NaN.
    fn has_nan(self) -> bool {
        self.re().is_nan() || self.im().is_nan()
    }
    /// Widens for reference accumulation (exact).
    fn widen(self) -> Self::Wide;
    /// Rounds back from the wide type.
    fn narrow(w: Self::Wide) -> Self;
    /// Exact widening to Complex64.
    fn to_c64(self) -> Complex64;
    /// Rounding from Complex64 (the imaginary part is dropped for real types).
    fn from_c64(z: Complex64) -> Self;
    /// Rounding from a real f64.
    fn from_f64(x: f64) -> Self {
        Self::from_c64(Complex64::new(x, 0.0))
    }
}

/// A real [`Scalar`]: f32 or f64, with `num_traits::Float` arithmetic.
pub trait Real:
    Scalar<Real = Self> + Float + FloatConst + Display + Sum + PartialOrd + KernelArg
{
    /// The value as f64 (exact).
    fn as_f64(self) -> f64;
}

macro_rules! real_scalar {
    ($t:ty, $p:literal) => {
        impl Scalar for $t {
            type Real = $t;
            type Wide = f64;
            const IS_COMPLEX: bool = false;
            const PREFIX: char = $p;
            const EPS: f64 = <$t>::EPSILON as f64;
            #[inline(always)]
            fn conj(self) -> Self {
                self
            }
            #[inline(always)]
            fn re(self) -> Self {
                self
            }
            #[inline(always)]
            fn im(self) -> Self {
                0.0
            }
            #[inline(always)]
            fn from_parts(re: Self, _: Self) -> Self {
                re
            }
            #[inline(always)]
            fn modulus(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn principal_sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn robust_div(self, rhs: Self) -> Self {
                self / rhs
            }
            #[inline(always)]
            fn widen(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn narrow(w: f64) -> Self {
                w as $t
            }
            #[inline(always)]
            fn to_c64(self) -> Complex64 {
                Complex64::new(self as f64, 0.0)
            }
            #[inline(always)]
            fn from_c64(z: Complex64) -> Self {
                z.re as $t
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
        }
        impl Real for $t {
            #[inline(always)]
            fn as_f64(self) -> f64 {
                self as f64
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
            const EPS: f64 = <$r>::EPSILON as f64;
            #[inline(always)]
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            #[inline(always)]
            fn re(self) -> $r {
                self.re
            }
            #[inline(always)]
            fn im(self) -> $r {
                self.im
            }
            #[inline(always)]
            fn from_parts(re: $r, im: $r) -> Self {
                Complex::new(re, im)
            }
            #[inline(always)]
            fn modulus(self) -> $r {
                self.re.hypot(self.im)
            }
            #[inline(always)]
            fn principal_sqrt(self) -> Self {
                Complex::sqrt(self)
            }
            #[inline]
            fn robust_div(self, rhs: Self) -> Self {
                let (re, im) = crate::complex_div::div(self.re, self.im, rhs.re, rhs.im);
                Complex::new(re, im)
            }
            #[inline(always)]
            fn widen(self) -> Complex64 {
                Complex64::new(self.re as f64, self.im as f64)
            }
            #[inline(always)]
            fn narrow(w: Complex64) -> Self {
                Complex::new(w.re as $r, w.im as $r)
            }
            #[inline(always)]
            fn to_c64(self) -> Complex64 {
                Complex64::new(self.re as f64, self.im as f64)
            }
            #[inline(always)]
            fn from_c64(z: Complex64) -> Self {
                Complex::new(z.re as $r, z.im as $r)
            }
        }
    };
}
complex_scalar!(Complex32, f32, 'c');
complex_scalar!(Complex64, f64, 'z');

#[cfg(test)]
mod tests {
    use super::*;

    /// The rounding constants against the types' own: u = ε/2 and the smallest
    /// subnormal is the bit pattern 1 (for bf16, f32's pattern 1 << 16).
    #[test]
    fn rounding_constants_match_the_types() {
        assert_eq!(f16::UNIT_ROUNDOFF, f16::EPSILON.to_f64() / 2.0);
        assert_eq!(bf16::UNIT_ROUNDOFF, bf16::EPSILON.to_f64() / 2.0);
        assert_eq!(<f32 as RealElement>::UNIT_ROUNDOFF, 2f64.powi(-24));
        assert_eq!(<f64 as RealElement>::UNIT_ROUNDOFF, 2f64.powi(-53));
        assert_eq!(f16::MIN_SUBNORMAL, f16::from_bits(1).to_f64());
        assert_eq!(bf16::MIN_SUBNORMAL, bf16::from_bits(1).to_f64());
        assert_eq!(
            <f32 as RealElement>::MIN_SUBNORMAL,
            f32::from_bits(1) as f64
        );
        assert_eq!(<f64 as RealElement>::MIN_SUBNORMAL, f64::from_bits(1));
    }

    #[test]
    fn storage_rounds_to_nearest_even() {
        // 1 + 2^-11 is halfway between f16 1 and 1 + 2^-10: ties to the even 1.
        assert_eq!(f16::store(1.0 + 2f32.powi(-11)), f16::ONE);
        assert_eq!(
            f16::store(1.0 + 3.0 * 2f32.powi(-11)).load(),
            1.0 + 2f32.powi(-9)
        );
        assert_eq!(bf16::from_f32(3.0).load(), 3.0);
        assert_eq!(f64::store(0.1).load(), 0.1);
        assert_eq!(f32::store(0.1f32).to_f64(), 0.1f32 as f64);
    }

    #[test]
    fn parts_and_widenings_are_exact() {
        let z = Complex32::new(1.5, -2.25);
        assert_eq!(z.components(), [1.5, -2.25]);
        assert_eq!(z.to_c64(), Complex64::new(1.5, -2.25));
        assert_eq!(z.widen(), Complex64::new(1.5, -2.25));
        assert_eq!(Complex32::narrow(z.widen()), z);
        assert_eq!(Scalar::conj(z), Complex32::new(1.5, 2.25));
        assert_eq!(z.abs1(), 3.75);
        assert_eq!(Complex32::new(3.0, 4.0).modulus(), 5.0);
        assert_eq!((-2.5f64).modulus(), 2.5);
        assert_eq!(1.5f32.to_c64(), Complex64::new(1.5, 0.0));
        assert_eq!(f32::from_c64(Complex64::new(0.1, 7.0)), 0.1f32);
        assert_eq!(Complex64::from_f64(2.0), Complex64::new(2.0, 0.0));
        assert_eq!(
            Complex64::new(-4.0, 0.0).principal_sqrt(),
            Complex64::new(0.0, 2.0)
        );
        assert_eq!(9f32.principal_sqrt(), 3.0);
        assert!(Complex64::new(0.0, f64::NAN).has_nan());
        assert_eq!(
            (<f32 as Scalar>::EPS, f64::EPS),
            (2f64.powi(-23), 2f64.powi(-52))
        );
        assert_eq!(
            [
                f32::PREFIX,
                f64::PREFIX,
                Complex32::PREFIX,
                Complex64::PREFIX
            ],
            ['s', 'd', 'c', 'z']
        );
        assert_eq!(Complex64::eps(), f64::EPSILON);
        assert_eq!(1.5f32.as_f64(), 1.5);
    }
}
