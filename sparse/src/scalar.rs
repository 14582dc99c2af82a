//! The value and index types sparse matrices are generic over.
//!
//! [`Scalar`] covers the four rocSPARSE value types (f32, f64, Complex32, Complex64);
//! [`Index`] covers its two index types (i32, i64). Both are sealed through
//! [`rocm_core::Element`], so a matrix of any of them can live in a device buffer.

use num_complex::{Complex32, Complex64};
use num_traits::NumAssign;
use rocm_core::Element;
use std::fmt::{Debug, Display};
use std::ops::Neg;

/// A sparse value type: f32, f64, Complex32 or Complex64.
///
/// Arithmetic comes from [`NumAssign`]; the methods below add what sparse algorithms need
/// (conjugation, magnitudes, square roots) and an exact widening to [`Complex64`], which
/// the [`reference`](crate::reference) implementations accumulate in.
pub trait Scalar: Element + NumAssign + Neg<Output = Self> + Display + Send + Sync {
    /// Whether values have an imaginary part.
    const IS_COMPLEX: bool;
    /// Machine epsilon of the underlying real type.
    const EPS: f64;
    /// Complex conjugate (identity for real types).
    fn conj(self) -> Self;
    /// |self| as f64.
    fn abs(self) -> f64;
    /// The principal square root.
    fn sqrt(self) -> Self;
    /// Exact widening to Complex64.
    fn to_c64(self) -> Complex64;
    /// Rounding from Complex64 (the imaginary part is dropped for real types).
    fn from_c64(z: Complex64) -> Self;
    /// From a real f64.
    fn from_f64(x: f64) -> Self {
        Self::from_c64(Complex64::new(x, 0.0))
    }
}

macro_rules! real_scalar {
    ($t:ty) => {
        impl Scalar for $t {
            const IS_COMPLEX: bool = false;
            const EPS: f64 = <$t>::EPSILON as f64;
            fn conj(self) -> Self {
                self
            }
            fn abs(self) -> f64 {
                <$t>::abs(self) as f64
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn to_c64(self) -> Complex64 {
                Complex64::new(self as f64, 0.0)
            }
            fn from_c64(z: Complex64) -> Self {
                z.re as $t
            }
        }
    };
}

macro_rules! complex_scalar {
    ($t:ty, $r:ty) => {
        impl Scalar for $t {
            const IS_COMPLEX: bool = true;
            const EPS: f64 = <$r>::EPSILON as f64;
            fn conj(self) -> Self {
                <$t>::conj(&self)
            }
            fn abs(self) -> f64 {
                self.norm() as f64
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn to_c64(self) -> Complex64 {
                Complex64::new(self.re as f64, self.im as f64)
            }
            fn from_c64(z: Complex64) -> Self {
                <$t>::new(z.re as $r, z.im as $r)
            }
        }
    };
}

real_scalar!(f32);
real_scalar!(f64);
complex_scalar!(Complex32, f32);
complex_scalar!(Complex64, f64);

/// A sparse index type: i32 or i64 (rocSPARSE's `rocsparse_indextype_i32/i64`).
///
/// Indices are 0-based. Matrices validate at construction that every stored index is
/// non-negative and in bounds, so kernels may convert with [`Index::to_usize`] freely.
pub trait Index: Element + Ord + Eq + std::hash::Hash + Debug + Display + Send + Sync {
    /// Largest representable value as usize.
    const MAX_USIZE: usize;
    /// Converts a validated (non-negative) index.
    fn to_usize(self) -> usize;
    /// Converts any stored value, `None` when negative.
    fn try_to_usize(self) -> Option<usize>;
    /// Converts a count or position, `None` when it does not fit.
    fn try_from_usize(x: usize) -> Option<Self>;
    /// Converts a value known to fit (checked by the caller against [`Index::MAX_USIZE`]).
    fn from_usize(x: usize) -> Self;
    /// The padding marker of ELL storage (-1).
    const PAD: Self;
}

macro_rules! index {
    ($t:ty) => {
        impl Index for $t {
            const MAX_USIZE: usize = <$t>::MAX as usize;
            const PAD: Self = -1;
            #[inline(always)]
            fn to_usize(self) -> usize {
                self as usize
            }
            fn try_to_usize(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            fn try_from_usize(x: usize) -> Option<Self> {
                <$t>::try_from(x).ok()
            }
            #[inline(always)]
            fn from_usize(x: usize) -> Self {
                x as $t
            }
        }
    };
}

index!(i32);
index!(i64);

/// Checks that a size fits the index type `I`.
pub(crate) fn check_fits<I: Index>(what: &str, n: usize) -> rocm_core::Result<()> {
    rocm_core::ensure_arg!(
        n <= I::MAX_USIZE,
        what,
        "{n} does not fit the index type {}",
        I::DTYPE
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_is_exact() {
        assert_eq!(1.5f32.to_c64(), Complex64::new(1.5, 0.0));
        assert_eq!(
            Complex32::new(1.0, -2.0).to_c64(),
            Complex64::new(1.0, -2.0)
        );
        assert_eq!(
            <Complex32 as Scalar>::conj(Complex32::new(1.0, 2.0)).im,
            -2.0
        );
        assert_eq!(<i32 as Index>::try_from_usize(1 << 40), None);
        assert_eq!((-1i64).try_to_usize(), None);
    }
}
