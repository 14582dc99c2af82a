//! Level 3 (trsm, trmm, syrk/herk, syr2k/her2k, symm/hemm) against the reference on every
//! dtype, every side/uplo/trans/diag combination, odd sizes, leading dimensions > rows,
//! α/β special cases, and sizes that cross the block boundaries of the CPU kernels.
//!
//! Tolerances (ε the dtype's epsilon, × 4 for complex arithmetic):
//! - trmm, symm/hemm, syrk/herk, syr2k/her2k: each element is a k-term (ka-term) dot
//!   product (two for rank-2k) plus two scalings: (k + 2)·ε·(Σ|terms| + |β||c|).
//! - trsm: checked by residual, op(A)·X − α·B (or X·op(A) − α·B). A triangular solve is
//!   componentwise backward stable, |ΔT| <= γ_ka·|T|, and the blocked form adds GEMM
//!   updates of the same order, so |residual| <= (ka + 4)·ε·(|op(A)||X| + |αB|). The
//!   matrices are diagonally dominant, so X stays of the size of B.

mod common;

use common::level3::*;
use proptest::prelude::*;
use rocm_blas::{Blas, Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{Complex32, Complex64, Device, Error};

/// The shared checks on the CPU device (trsm by substitution: κ = 1).
fn check_tri_cpu<T: Scalar>(
    solve: bool,
    args: (Side, Uplo, Transpose, Diag),
    dims: (usize, usize),
    pads: (usize, usize),
    ca: Coef,
    seed: u64,
) {
    check_tri::<T>(&Device::cpu(), 1.0, solve, args, dims, pads, ca, seed)
}

#[allow(clippy::too_many_arguments)]
fn check_rank_k_cpu<T: Scalar>(
    two: bool,
    hermitian: bool,
    uplo: Uplo,
    trans: Transpose,
    dims: (usize, usize),
    pads: (usize, usize),
    coefs: (Coef, Coef),
    seed: u64,
) {
    check_rank_k::<T>(
        &Device::cpu(),
        two,
        hermitian,
        uplo,
        trans,
        dims,
        pads,
        coefs,
        seed,
    )
}

fn check_symm_cpu<T: Scalar>(
    hermitian: bool,
    side: Side,
    uplo: Uplo,
    dims: (usize, usize),
    pads: (usize, usize, usize),
    coefs: (Coef, Coef),
    seed: u64,
) {
    check_symm::<T>(
        &Device::cpu(),
        hermitian,
        side,
        uplo,
        dims,
        pads,
        coefs,
        seed,
    )
}

fn dims() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(7),
        Just(16),
        Just(17),
        Just(33),
        0usize..40
    ]
}

fn coefs() -> impl Strategy<Value = Coef> {
    prop_oneof![
        Just(Coef::Zero),
        Just(Coef::One),
        Just(Coef::Random),
        Just(Coef::Random)
    ]
}

fn sides() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::Left), Just(Side::Right)]
}
fn uplos() -> impl Strategy<Value = Uplo> {
    prop_oneof![Just(Uplo::Upper), Just(Uplo::Lower)]
}
fn trans() -> impl Strategy<Value = Transpose> {
    prop_oneof![Just(Transpose::N), Just(Transpose::T), Just(Transpose::C)]
}
fn diags() -> impl Strategy<Value = Diag> {
    prop_oneof![Just(Diag::NonUnit), Just(Diag::Unit)]
}
fn pads() -> impl Strategy<Value = (usize, usize, usize)> {
    (0usize..3, 0usize..3, 0usize..3)
}

/// The trans values a rank-k update accepts for T.
fn rank_k_trans<T: Scalar>(t: Transpose, hermitian: bool) -> Transpose {
    match (T::IS_COMPLEX, hermitian, t) {
        (true, false, Transpose::C) => Transpose::T,
        (true, true, Transpose::T) => Transpose::C,
        _ => t,
    }
}

macro_rules! level3_props {
    ($name:ident, $t:ty) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(40))]
                #[test]
                fn trsm_trmm(solve in any::<bool>(), side in sides(), uplo in uplos(), tr in trans(),
                             diag in diags(), m in dims(), n in dims(), p in pads(), ca in coefs(),
                             seed in any::<u64>()) {
                    check_tri_cpu::<$t>(solve, (side, uplo, tr, diag), (m, n), (p.0, p.1), ca, seed);
                }

                #[test]
                fn rank_k(two in any::<bool>(), herm in any::<bool>(), uplo in uplos(), tr in trans(),
                          n in dims(), k in dims(), p in pads(), ca in coefs(), cb in coefs(),
                          seed in any::<u64>()) {
                    let tr = rank_k_trans::<$t>(tr, herm);
                    check_rank_k_cpu::<$t>(two, herm, uplo, tr, (n, k), (p.0, p.1), (ca, cb), seed);
                }

                #[test]
                fn symm(herm in any::<bool>(), side in sides(), uplo in uplos(), m in dims(),
                        n in dims(), p in pads(), ca in coefs(), cb in coefs(), seed in any::<u64>()) {
                    check_symm_cpu::<$t>(herm, side, uplo, (m, n), p, (ca, cb), seed);
                }
            }
        }
    };
}
level3_props!(s_level3, f32);
level3_props!(d_level3, f64);
level3_props!(c_level3, Complex32);
level3_props!(z_level3, Complex64);

#[test]
fn blocked_sizes() {
    // Orders past the recursion base (16), the rank-k diagonal block (64) and the
    // column-panel split (96 columns), so every blocked path runs.
    let mut seed = 100;
    for side in Side::ALL {
        for uplo in Uplo::ALL {
            for tr in Transpose::ALL {
                seed += 1;
                check_tri_cpu::<f64>(
                    true,
                    (side, uplo, tr, Diag::NonUnit),
                    (130, 110),
                    (1, 2),
                    Coef::Random,
                    seed,
                );
                check_tri_cpu::<Complex32>(
                    false,
                    (side, uplo, tr, Diag::Unit),
                    (70, 101),
                    (0, 1),
                    Coef::One,
                    seed,
                );
            }
        }
    }
    // Right-hand sides wide enough (>= 256 per thread panel) for the explicit-inverse
    // diagonal blocks of trsm.
    for uplo in Uplo::ALL {
        for tr in Transpose::ALL {
            seed += 1;
            let args = (Side::Left, uplo, tr, Diag::NonUnit);
            check_tri_cpu::<f64>(true, args, (90, 1100), (1, 0), Coef::Random, seed);
            let args = (Side::Right, uplo, tr, Diag::Unit);
            check_tri_cpu::<Complex32>(true, args, (1050, 70), (0, 1), Coef::One, seed);
        }
    }
    for uplo in Uplo::ALL {
        check_rank_k_cpu::<f64>(
            false,
            false,
            uplo,
            Transpose::N,
            (150, 40),
            (1, 1),
            (Coef::Random, Coef::Random),
            7,
        );
        check_rank_k_cpu::<Complex64>(
            false,
            true,
            uplo,
            Transpose::C,
            (140, 30),
            (0, 2),
            (Coef::One, Coef::Zero),
            8,
        );
        check_rank_k_cpu::<f32>(
            true,
            false,
            uplo,
            Transpose::T,
            (131, 20),
            (2, 0),
            (Coef::Random, Coef::One),
            9,
        );
        check_symm_cpu::<Complex32>(
            true,
            Side::Right,
            uplo,
            (90, 120),
            (1, 0, 2),
            (Coef::Random, Coef::Random),
            10,
        );
    }
}

#[test]
fn argument_errors_name_the_argument() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let a = dev.alloc::<Complex64>(30).unwrap();
    let mut b = dev.alloc::<Complex64>(30).unwrap();
    let name = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        other => panic!("{other:?}"),
    };
    let one = Complex64::new(1.0, 0.0);
    let trsm = |m, n, lda, ldb, b: &mut rocm_core::DeviceBuffer<Complex64>| {
        blas.trsm(
            Side::Right,
            Uplo::Lower,
            Transpose::C,
            Diag::Unit,
            m,
            n,
            one,
            &a.as_slice(),
            lda,
            &mut b.as_slice_mut(),
            ldb,
        )
    };
    assert_eq!(name(trsm(3, 4, 3, 3, &mut b).unwrap_err()), "lda");
    assert_eq!(name(trsm(3, 4, 4, 2, &mut b).unwrap_err()), "ldb");
    assert_eq!(name(trsm(3, 6, 6, 3, &mut b).unwrap_err()), "a");
    assert_eq!(name(trsm(5, 5, 5, 7, &mut b).unwrap_err()), "b");
    trsm(0, 4, 4, 1, &mut b).unwrap();
    let err = blas
        .syrk(
            Uplo::Upper,
            Transpose::C,
            2,
            2,
            one,
            &a.as_slice(),
            2,
            one,
            &mut b.as_slice_mut(),
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "trans");
    let err = blas
        .herk(
            Uplo::Upper,
            Transpose::T,
            2,
            2,
            1.0,
            &a.as_slice(),
            2,
            1.0,
            &mut b.as_slice_mut(),
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "trans");
    let err = blas
        .herk(
            Uplo::Upper,
            Transpose::C,
            3,
            2,
            1.0,
            &a.as_slice(),
            1,
            1.0,
            &mut b.as_slice_mut(),
            3,
        )
        .unwrap_err();
    assert_eq!(name(err), "lda");
    let err = blas
        .symm(
            Side::Left,
            Uplo::Upper,
            3,
            2,
            one,
            &a.as_slice(),
            3,
            &a.as_slice(),
            3,
            one,
            &mut b.as_slice_mut(),
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "ldc");
}
