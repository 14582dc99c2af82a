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

use common::*;
use proptest::prelude::*;
use rocm_blas::{reference, Blas, Diag, Real, Scalar, Side, Transpose, Uplo};
use rocm_core::{Complex32, Complex64, Device, Error};

#[derive(Debug, Clone, Copy)]
enum Coef {
    Zero,
    One,
    Random,
}

fn coef<T: Scalar>(c: Coef, r: &mut Rng64) -> T {
    match c {
        Coef::Zero => T::zero(),
        Coef::One => T::one(),
        Coef::Random => random(r),
    }
}

fn nan<T: Scalar>() -> T {
    T::from_real(num_traits::Float::nan())
}

/// A ka×ka triangular matrix (both triangles filled, so reading the wrong one shows):
/// off-diagonal entries of size <= 1/ka, diagonal entries of modulus >= 2 — diagonally
/// dominant, so well conditioned.
fn triangular<T: Scalar>(r: &mut Rng64, ka: usize, lda: usize) -> Vec<T> {
    let mut a: Vec<T> = random_vec(r, lda * ka.max(1));
    let s = T::from_real(real(1.0 / ka.max(1) as f64));
    for j in 0..ka {
        for i in 0..ka {
            a[i + j * lda] = if i == j {
                let v: T = random(r);
                T::from_parts(real(2.0 + v.re().as_f64().abs()), v.im())
            } else {
                a[i + j * lda] * s
            };
        }
    }
    a
}

fn check_untouched<T: Scalar>(got: &[T], orig: &[T], keep: impl Fn(usize) -> bool, what: &str) {
    for (q, (g, o)) in got.iter().zip(orig).enumerate() {
        if keep(q) {
            assert!(
                g == o || (g.has_nan() && o.has_nan()),
                "{what}: wrote element {q} outside its output"
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_tri<T: Scalar>(
    solve: bool,
    (side, uplo, trans, diag): (Side, Uplo, Transpose, Diag),
    (m, n): (usize, usize),
    (pa, pb): (usize, usize),
    ca: Coef,
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let ka = if side == Side::Left { m } else { n };
    let (lda, ldb) = (ka.max(1) + pa, m.max(1) + pb);
    let alpha: T = coef(ca, &mut r);
    let a: Vec<T> = triangular(&mut r, ka, lda);
    let b: Vec<T> = random_vec(&mut r, ldb * n.max(1));
    let ad = dev.upload(&a).unwrap();
    let mut bd = dev.upload(&b).unwrap();
    let name = if solve { "trsm" } else { "trmm" };
    let args = (side, uplo, trans, diag);
    let what = format!("{}{name} {args:?} m={m} n={n}", T::PREFIX);
    let f = if solve {
        Blas::trsm::<T>
    } else {
        Blas::trmm::<T>
    };
    f(
        &blas,
        side,
        uplo,
        trans,
        diag,
        m,
        n,
        alpha,
        &ad.as_slice(),
        lda,
        &mut bd.as_slice_mut(),
        ldb,
    )
    .unwrap();
    let got = bd.to_vec().unwrap();
    check_untouched(&got, &b, |q| q % ldb >= m || q / ldb >= n, &what);
    if solve {
        // Residual: op(A)·X (or X·op(A)) against α·B.
        let (ax, mag) =
            reference::trmm(side, uplo, trans, diag, m, n, T::one(), &a, lda, &got, ldb);
        for j in 0..n {
            for i in 0..m {
                let ab = alpha * b[i + j * ldb];
                let want = alpha.widen() * b[i + j * ldb].widen();
                let got_ij = T::narrow(ax[i + j * m]);
                let bound_mag = mag[i + j * m] + abs(ab);
                assert_close(
                    got_ij,
                    want,
                    bound_mag,
                    (ka + 4) as f64,
                    &format!("{what} ({i},{j})"),
                );
            }
        }
    } else {
        let (want, mag) = reference::trmm(side, uplo, trans, diag, m, n, alpha, &a, lda, &b, ldb);
        for j in 0..n {
            for i in 0..m {
                assert_close(
                    got[i + j * ldb],
                    want[i + j * m],
                    mag[i + j * m],
                    (ka + 2) as f64,
                    &format!("{what} ({i},{j})"),
                );
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_rank_k<T: Scalar>(
    two: bool,
    hermitian: bool,
    uplo: Uplo,
    trans: Transpose,
    (n, k): (usize, usize),
    (pa, pc): (usize, usize),
    (ca, cb): (Coef, Coef),
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let (ar, ac) = trans.stored_dims(n, k);
    let (lda, ldc) = (ar.max(1) + pa, n.max(1) + pc);
    let mut alpha: T = coef(ca, &mut r);
    let mut beta: T = coef(cb, &mut r);
    if hermitian {
        beta = T::from_real(beta.re());
        if !two {
            alpha = T::from_real(alpha.re());
        }
    }
    let a: Vec<T> = random_vec(&mut r, lda * ac.max(1));
    let b: Vec<T> = random_vec(&mut r, lda * ac.max(1));
    let mut c: Vec<T> = random_vec(&mut r, ldc * n.max(1));
    if matches!(cb, Coef::Zero) {
        c.iter_mut().for_each(|x| *x = nan());
    }
    let (ad, bd) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut cd = dev.upload(&c).unwrap();
    let (a_s, b_s, mut c_s) = (ad.as_slice(), bd.as_slice(), cd.as_slice_mut());
    match (two, hermitian) {
        (false, false) => blas.syrk(uplo, trans, n, k, alpha, &a_s, lda, beta, &mut c_s, ldc),
        (false, true) => blas.herk(
            uplo,
            trans,
            n,
            k,
            alpha.re(),
            &a_s,
            lda,
            beta.re(),
            &mut c_s,
            ldc,
        ),
        (true, false) => blas.syr2k(
            uplo, trans, n, k, alpha, &a_s, lda, &b_s, lda, beta, &mut c_s, ldc,
        ),
        (true, true) => blas.her2k(
            uplo,
            trans,
            n,
            k,
            alpha,
            &a_s,
            lda,
            &b_s,
            lda,
            beta.re(),
            &mut c_s,
            ldc,
        ),
    }
    .unwrap();
    let got = cd.to_vec().unwrap();
    let bref = if two { Some((&b[..], lda)) } else { None };
    let (want, mag) = reference::rank_k(
        uplo, trans, n, k, alpha, &a, lda, bref, beta, &c, ldc, hermitian,
    );
    let what = format!(
        "{} two={two} herm={hermitian} {uplo:?} {trans} n={n} k={k}",
        T::PREFIX
    );
    let quick = (matches!(ca, Coef::Zero) || k == 0) && matches!(cb, Coef::One);
    check_untouched(
        &got,
        &c,
        |q| {
            let (i, j) = (q % ldc, q / ldc);
            i >= n || j >= n || !uplo.contains(i, j) || quick
        },
        &what,
    );
    if quick {
        return;
    }
    let terms = if two { 2 * k + 2 } else { k + 2 };
    for j in 0..n {
        for i in 0..n {
            if uplo.contains(i, j) {
                let g = got[i + j * ldc];
                assert_close(
                    g,
                    want[i + j * n],
                    mag[i + j * n],
                    terms as f64,
                    &format!("{what} ({i},{j})"),
                );
                if hermitian && i == j {
                    assert_eq!(
                        g.im(),
                        num_traits::Zero::zero(),
                        "{what}: diagonal not real"
                    );
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_symm<T: Scalar>(
    hermitian: bool,
    side: Side,
    uplo: Uplo,
    (m, n): (usize, usize),
    (pa, pb, pc): (usize, usize, usize),
    (ca, cb): (Coef, Coef),
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let ka = if side == Side::Left { m } else { n };
    let (lda, ldb, ldc) = (ka.max(1) + pa, m.max(1) + pb, m.max(1) + pc);
    let alpha: T = coef(ca, &mut r);
    let beta: T = coef(cb, &mut r);
    let a: Vec<T> = random_vec(&mut r, lda * ka.max(1));
    let b: Vec<T> = random_vec(&mut r, ldb * n.max(1));
    let mut c: Vec<T> = random_vec(&mut r, ldc * n.max(1));
    if matches!(cb, Coef::Zero) {
        c.iter_mut().for_each(|x| *x = nan());
    }
    let (ad, bd) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut cd = dev.upload(&c).unwrap();
    let f = if hermitian {
        Blas::hemm::<T>
    } else {
        Blas::symm::<T>
    };
    f(
        &blas,
        side,
        uplo,
        m,
        n,
        alpha,
        &ad.as_slice(),
        lda,
        &bd.as_slice(),
        ldb,
        beta,
        &mut cd.as_slice_mut(),
        ldc,
    )
    .unwrap();
    let got = cd.to_vec().unwrap();
    let what = format!(
        "{} herm={hermitian} {side:?} {uplo:?} m={m} n={n}",
        T::PREFIX
    );
    check_untouched(&got, &c, |q| q % ldc >= m || q / ldc >= n, &what);
    let (want, mag) = reference::symm(
        side, uplo, m, n, alpha, &a, lda, &b, ldb, beta, &c, ldc, hermitian,
    );
    for j in 0..n {
        for i in 0..m {
            assert_close(
                got[i + j * ldc],
                want[i + j * m],
                mag[i + j * m],
                (ka + 2) as f64,
                &format!("{what} ({i},{j})"),
            );
        }
    }
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
                    check_tri::<$t>(solve, (side, uplo, tr, diag), (m, n), (p.0, p.1), ca, seed);
                }

                #[test]
                fn rank_k(two in any::<bool>(), herm in any::<bool>(), uplo in uplos(), tr in trans(),
                          n in dims(), k in dims(), p in pads(), ca in coefs(), cb in coefs(),
                          seed in any::<u64>()) {
                    let tr = rank_k_trans::<$t>(tr, herm);
                    check_rank_k::<$t>(two, herm, uplo, tr, (n, k), (p.0, p.1), (ca, cb), seed);
                }

                #[test]
                fn symm(herm in any::<bool>(), side in sides(), uplo in uplos(), m in dims(),
                        n in dims(), p in pads(), ca in coefs(), cb in coefs(), seed in any::<u64>()) {
                    check_symm::<$t>(herm, side, uplo, (m, n), p, (ca, cb), seed);
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
                check_tri::<f64>(
                    true,
                    (side, uplo, tr, Diag::NonUnit),
                    (130, 110),
                    (1, 2),
                    Coef::Random,
                    seed,
                );
                check_tri::<Complex32>(
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
            check_tri::<f64>(true, args, (90, 1100), (1, 0), Coef::Random, seed);
            let args = (Side::Right, uplo, tr, Diag::Unit);
            check_tri::<Complex32>(true, args, (1050, 70), (0, 1), Coef::One, seed);
        }
    }
    for uplo in Uplo::ALL {
        check_rank_k::<f64>(
            false,
            false,
            uplo,
            Transpose::N,
            (150, 40),
            (1, 1),
            (Coef::Random, Coef::Random),
            7,
        );
        check_rank_k::<Complex64>(
            false,
            true,
            uplo,
            Transpose::C,
            (140, 30),
            (0, 2),
            (Coef::One, Coef::Zero),
            8,
        );
        check_rank_k::<f32>(
            true,
            false,
            uplo,
            Transpose::T,
            (131, 20),
            (2, 0),
            (Coef::Random, Coef::One),
            9,
        );
        check_symm::<Complex32>(
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
