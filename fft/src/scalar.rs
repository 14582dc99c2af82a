//! Scalar types: the precision a plan computes in ([`FftReal`]) and the precision its data
//! is stored in ([`Storage`]), both from rocm-core's scalar vocabulary.
//!
//! Plans compute in `f32` or `f64`. Data may be stored in the compute type or, for `f32`
//! plans, in `f16`/`bf16` (converted on load and rounded on store, as rocFFT's half
//! precision does).

use half::{bf16, f16};
use num_complex::Complex;
use rocm_core::scalar::{Real, RealElement};
use rocm_core::DType;

/// A floating-point type transforms are computed in (`f32` or `f64`, rocm-core's
/// [`Real`]), with the vector type the CPU kernels use for it.
pub trait FftReal: Real {
    /// The widest complex vector of this type the CPU passes use when the CPU has AVX2
    /// and FMA (see [`crate::cpu::simd`]); one lane elsewhere.
    type Vector: crate::cpu::simd::Cv<T = Self>;
}

impl FftReal for f32 {
    #[cfg(target_arch = "x86_64")]
    type Vector = crate::cpu::simd::F32x4;
    #[cfg(not(target_arch = "x86_64"))]
    type Vector = Complex<f32>;
}

impl FftReal for f64 {
    #[cfg(target_arch = "x86_64")]
    type Vector = crate::cpu::simd::F64x2;
    #[cfg(not(target_arch = "x86_64"))]
    type Vector = Complex<f64>;
}

/// Rounds a complex `f64` to `T`.
#[inline(always)]
pub fn cast<T: FftReal>(z: Complex<f64>) -> Complex<T> {
    Complex::new(T::from_f64(z.re), T::from_f64(z.im))
}

/// A real scalar that data is stored in (f16, bf16, f32, f64: rocm-core's
/// [`RealElement`]), whose compute type transforms run in: values are widened with
/// [`RealElement::load`] and rounded back with [`RealElement::store`].
pub trait Storage: RealElement<Compute: FftReal> {}

impl<S: RealElement<Compute: FftReal>> Storage for S {}

/// The precision of a plan's data: what its buffers hold and what it computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    /// `f16` data, `f32` computation.
    F16,
    /// `bf16` data, `f32` computation.
    Bf16,
    /// `f32` data and computation.
    F32,
    /// `f64` data and computation.
    F64,
}

impl Precision {
    /// Every precision, in a stable order.
    pub const ALL: [Precision; 4] = [
        Precision::F16,
        Precision::Bf16,
        Precision::F32,
        Precision::F64,
    ];

    /// Bytes of one real scalar of data.
    pub const fn scalar_bytes(self) -> usize {
        match self {
            Precision::F16 | Precision::Bf16 => 2,
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// Bytes of one real scalar of computation.
    pub const fn compute_bytes(self) -> usize {
        match self {
            Precision::F64 => 8,
            _ => 4,
        }
    }

    /// Machine epsilon of the computation.
    pub const fn compute_eps(self) -> f64 {
        match self {
            Precision::F64 => f64::EPSILON,
            _ => f32::EPSILON as f64,
        }
    }

    /// Machine epsilon of the stored data.
    pub fn storage_eps(self) -> f64 {
        match self {
            Precision::F16 => f16::EPSILON.to_f64(),
            Precision::Bf16 => bf16::EPSILON.to_f64(),
            p => p.compute_eps(),
        }
    }

    /// The short name used on command lines (`f16`, `bf16`, `f32`, `f64`).
    pub const fn name(self) -> &'static str {
        match self {
            Precision::F16 => "f16",
            Precision::Bf16 => "bf16",
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    /// The element dtypes a buffer of this precision may have: the real scalar, and the
    /// interleaved complex type where rocm-core has one.
    pub(crate) fn accepts(self, d: DType) -> bool {
        matches!(
            (self, d),
            (Precision::F16, DType::F16)
                | (Precision::Bf16, DType::Bf16)
                | (Precision::F32, DType::F32 | DType::C32)
                | (Precision::F64, DType::F64 | DType::C64)
        )
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Precision {
    type Err = rocm_core::Error;
    fn from_str(s: &str) -> rocm_core::Result<Self> {
        Precision::ALL
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                rocm_core::Error::invalid(
                    "precision",
                    format!("`{s}` is not f16, bf16, f32 or f64"),
                )
            })
    }
}
