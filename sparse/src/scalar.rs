//! The value and index types sparse matrices are generic over.
//!
//! [`Scalar`] covers the four rocSPARSE value types (f32, f64, Complex32, Complex64);
//! [`Index`] covers its two index types (i32, i64). Both are sealed through
//! [`rocm_core::Element`], so a matrix of any of them can live in a device buffer.

use rocm_core::Element;
use std::fmt::{Debug, Display};

/// A sparse value type: f32, f64, Complex32 or Complex64 — rocm-core's [`Scalar`]
/// (arithmetic from `NumAssign`, conjugation, magnitudes, square roots and the exact
/// widening to Complex64 the [`reference`](crate::reference) implementations accumulate
/// in).
pub use rocm_core::scalar::Scalar;

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
    fn index_conversions_are_checked() {
        assert_eq!(<i32 as Index>::try_from_usize(1 << 40), None);
        assert_eq!((-1i64).try_to_usize(), None);
    }
}
