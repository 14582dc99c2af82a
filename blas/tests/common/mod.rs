//! Shared test helpers: random data and tolerance checks.

#![allow(dead_code)]

pub mod emu;
pub mod gemm;
pub mod level1;
pub mod level2;
pub mod level3;

use num_complex::Complex64;
use num_traits::NumCast;
use rand::{Rng, SeedableRng};
use rocm_blas::reference::{abs_wide, to_c64};
use rocm_blas::{Real, Scalar};

pub type Rng64 = rand::rngs::StdRng;

pub fn rng(seed: u64) -> Rng64 {
    Rng64::seed_from_u64(seed)
}

pub fn real<R: Real>(v: f64) -> R {
    <R as NumCast>::from(v).unwrap()
}

/// A random value with components uniform in [-1, 1).
pub fn random<T: Scalar>(r: &mut Rng64) -> T {
    T::from_parts(
        real(r.random_range(-1.0..1.0)),
        real(r.random_range(-1.0..1.0)),
    )
}

pub fn random_vec<T: Scalar>(r: &mut Rng64, n: usize) -> Vec<T> {
    (0..n).map(|_| random(r)).collect()
}

/// Rounding factor for complex arithmetic: a complex multiply-add costs up to ~2√2 real
/// roundings relative to the modulus.
pub fn complex_factor<T: Scalar>() -> f64 {
    if T::IS_COMPLEX {
        4.0
    } else {
        1.0
    }
}

pub fn eps<T: Scalar>() -> f64 {
    T::eps().as_f64()
}

/// Asserts |got − want| <= terms · ε · magnitude (· complex factor) + a tiny absolute slack
/// for results that cancel to zero.
pub fn assert_close<T: Scalar, W: Scalar>(got: T, want: W, magnitude: f64, terms: f64, what: &str) {
    let g = Complex64::new(got.re().as_f64(), got.im().as_f64());
    let w = to_c64(want);
    let bound = terms * eps::<T>() * magnitude * complex_factor::<T>() + f64::MIN_POSITIVE;
    let err = (g - w).norm();
    assert!(
        err <= bound,
        "{what}: got {g}, want {w}, error {err:e} > bound {bound:e} ({terms} terms, magnitude {magnitude:e})"
    );
}

pub fn abs<T: Scalar>(x: T) -> f64 {
    abs_wide(x)
}

/// The CUDA devices present; when there are none, prints that `what` (e.g. "the GPU
/// GEMM tests") skips, so a run without a GPU says so instead of passing silently.
pub fn cuda_devices(what: &str) -> Vec<rocm_core::Device> {
    let found: Vec<rocm_core::Device> = rocm_core::Device::enumerate()
        .into_iter()
        .filter_map(|d| rocm_core::Device::open(&d.id).ok())
        .filter(|d| d.kind() == rocm_core::BackendKind::Cuda)
        .collect();
    if found.is_empty() {
        eprintln!("skipped: no CUDA device present for {what}");
    }
    found
}
