//! Scalar types: the precision a plan computes in ([`Real`]) and the precision its data is
//! stored in ([`Storage`]).
//!
//! Plans compute in `f32` or `f64`. Data may be stored in the compute type or, for `f32`
//! plans, in `f16`/`bf16` (converted on load and rounded on store, as rocFFT's half
//! precision does).

use half::{bf16, f16};
use num_complex::Complex;
use num_traits::{Float, FloatConst};
use rocm_core::DType;
use std::fmt::Debug;

/// A floating-point type transforms are computed in: `f32` or `f64`.
pub trait Real:
    Float + FloatConst + Send + Sync + Debug + Default + bytemuck::Pod + 'static
{
    /// Machine epsilon (unit roundoff times two).
    const EPS: f64;
    /// The widest complex vector of this type the CPU passes use when the CPU has AVX2
    /// and FMA (see [`crate::cpu::simd`]); one lane elsewhere.
    type Vector: crate::cpu::simd::Cv<T = Self>;
    /// Rounds an `f64` to this type.
    fn of(x: f64) -> Self;
    /// Widens to `f64`.
    fn f64(self) -> f64;
}

impl Real for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    #[cfg(target_arch = "x86_64")]
    type Vector = crate::cpu::simd::F32x4;
    #[cfg(not(target_arch = "x86_64"))]
    type Vector = Complex<f32>;
    #[inline(always)]
    fn of(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self as f64
    }
}

impl Real for f64 {
    const EPS: f64 = f64::EPSILON;
    #[cfg(target_arch = "x86_64")]
    type Vector = crate::cpu::simd::F64x2;
    #[cfg(not(target_arch = "x86_64"))]
    type Vector = Complex<f64>;
    #[inline(always)]
    fn of(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn f64(self) -> f64 {
        self
    }
}

/// Rounds a complex `f64` to `T`.
#[inline(always)]
pub fn cast<T: Real>(z: Complex<f64>) -> Complex<T> {
    Complex::new(T::of(z.re), T::of(z.im))
}

/// A real scalar that data is stored in, with the type it is computed in.
pub trait Storage: bytemuck::Pod + Send + Sync + Debug + 'static {
    /// The compute type.
    type Compute: Real;
    /// Converts to the compute type.
    fn load(self) -> Self::Compute;
    /// Rounds from the compute type.
    fn store(x: Self::Compute) -> Self;
}

impl Storage for f32 {
    type Compute = f32;
    #[inline(always)]
    fn load(self) -> f32 {
        self
    }
    #[inline(always)]
    fn store(x: f32) -> Self {
        x
    }
}

impl Storage for f64 {
    type Compute = f64;
    #[inline(always)]
    fn load(self) -> f64 {
        self
    }
    #[inline(always)]
    fn store(x: f64) -> Self {
        x
    }
}

impl Storage for f16 {
    type Compute = f32;
    #[inline(always)]
    fn load(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn store(x: f32) -> Self {
        f16::from_f32(x)
    }
}

impl Storage for bf16 {
    type Compute = f32;
    #[inline(always)]
    fn load(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn store(x: f32) -> Self {
        bf16::from_f32(x)
    }
}

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
