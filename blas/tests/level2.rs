//! Level 2 against the reference on every dtype, transpose/uplo/diag combination, odd
//! sizes, leading dimensions > rows, positive and negative increments, α/β special cases.
//!
//! Tolerances (ε the dtype's epsilon, × 4 for complex arithmetic):
//! - gemv: each element is a k-term dot product plus two scalings:
//!   (k + 2)·ε·(|α|·Σ|a||x| + |β||y|).
//! - ger: one multiply-add per element: 3ε·(|a| + |α||x||y|).
//! - trmv: n-term dot products: (n + 2)·ε·Σ|a||x|.
//! - trsv: by residual, as trsm: |op(A)·x̂ − b| <= (n + 4)·ε·(|op(A)||x̂| + |b|) on
//!   diagonally dominant A.

mod common;

use common::*;
use proptest::prelude::*;
use rocm_blas::check::{vector_extent, vector_index};
use rocm_blas::{reference, Blas, Diag, Real, Scalar, Side, Transpose, Uplo};
use rocm_core::{Complex32, Complex64, Device, Error};

fn nan<T: Scalar>() -> T {
    T::from_real(num_traits::Float::nan())
}

fn strided<T: Scalar>(r: &mut Rng64, n: usize, inc: isize) -> Vec<T> {
    random_vec(r, vector_extent(n, inc).max(1))
}

/// Positions a strided vector does not own must be untouched.
fn check_vec_untouched<T: Scalar>(got: &[T], orig: &[T], n: usize, inc: isize, what: &str) {
    let owned: std::collections::HashSet<usize> = (0..n).map(|i| vector_index(i, n, inc)).collect();
    for q in 0..got.len() {
        if !owned.contains(&q) {
            assert!(
                got[q] == orig[q] || (got[q].has_nan() && orig[q].has_nan()),
                "{what}: wrote {q}"
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_gemv<T: Scalar>(
    trans: Transpose,
    (m, n): (usize, usize),
    pad: usize,
    (incx, incy): (isize, isize),
    (ca, cb): (u8, u8),
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let lda = m.max(1) + pad;
    let coef = |c: u8, r: &mut Rng64| match c {
        0 => T::zero(),
        1 => T::one(),
        _ => random(r),
    };
    let (alpha, beta) = (coef(ca, &mut r), coef(cb, &mut r));
    let (lx, ly) = if trans.is_trans() { (m, n) } else { (n, m) };
    let a: Vec<T> = random_vec(&mut r, lda * n.max(1));
    let x: Vec<T> = strided(&mut r, lx, incx);
    let mut y: Vec<T> = strided(&mut r, ly, incy);
    if cb == 0 {
        y.iter_mut().for_each(|v| *v = nan());
    }
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y).unwrap();
    blas.gemv(
        trans,
        m,
        n,
        alpha,
        &ad.as_slice(),
        lda,
        &xd.as_slice(),
        incx,
        beta,
        &mut yd.as_slice_mut(),
        incy,
    )
    .unwrap();
    let got = yd.to_vec().unwrap();
    let what = format!(
        "{}gemv {trans} m={m} n={n} incx={incx} incy={incy}",
        T::PREFIX
    );
    check_vec_untouched(&got, &y, ly, incy, &what);
    let quick = m == 0 || n == 0 || (ca == 0 && cb == 1);
    if quick {
        return assert!(
            got.iter()
                .zip(&y)
                .all(|(g, o)| g == o || (g.has_nan() && o.has_nan())),
            "{what}: quick return wrote"
        );
    }
    let (want, mag) = reference::gemv(trans, m, n, alpha, &a, lda, &x, incx, beta, &y, incy);
    for i in 0..ly {
        assert_close(
            got[vector_index(i, ly, incy)],
            want[i],
            mag[i],
            (lx + 2) as f64,
            &format!("{what} i={i}"),
        );
    }
}

fn check_ger<T: Scalar>(
    (m, n): (usize, usize),
    pad: usize,
    (incx, incy): (isize, isize),
    conj: bool,
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let lda = m.max(1) + pad;
    let alpha: T = random(&mut r);
    let a: Vec<T> = random_vec(&mut r, lda * n.max(1));
    let x: Vec<T> = strided(&mut r, m, incx);
    let y: Vec<T> = strided(&mut r, n, incy);
    let (xd, yd) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
    let mut ad = dev.upload(&a).unwrap();
    let f = if conj {
        Blas::gerc::<T>
    } else {
        Blas::geru::<T>
    };
    f(
        &blas,
        m,
        n,
        alpha,
        &xd.as_slice(),
        incx,
        &yd.as_slice(),
        incy,
        &mut ad.as_slice_mut(),
        lda,
    )
    .unwrap();
    let got = ad.to_vec().unwrap();
    for j in 0..n {
        for i in 0..m {
            let (xi, yj) = (x[vector_index(i, m, incx)], y[vector_index(j, n, incy)]);
            let yj = if conj { yj.conj() } else { yj };
            let aij = a[i + j * lda];
            let want = aij.widen() + alpha.widen() * xi.widen() * yj.widen();
            let mag = abs(aij) + abs(alpha) * abs(xi) * abs(yj);
            assert_close(
                got[i + j * lda],
                want,
                mag,
                3.0,
                &format!("{}ger conj={conj} ({i},{j})", T::PREFIX),
            );
        }
        for i in m..lda {
            if i + j * lda < got.len() {
                assert_eq!(got[i + j * lda], a[i + j * lda], "ger wrote outside A");
            }
        }
    }
}

fn check_trv<T: Scalar>(
    solve: bool,
    (uplo, trans, diag): (Uplo, Transpose, Diag),
    n: usize,
    pad: usize,
    incx: isize,
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let lda = n.max(1) + pad;
    // Diagonally dominant: off-diagonal <= 1/n, diagonal modulus >= 2.
    let mut a: Vec<T> = random_vec(&mut r, lda * n.max(1));
    for j in 0..n {
        for i in 0..n {
            let v = a[i + j * lda];
            a[i + j * lda] = if i == j {
                T::from_parts(real(2.0 + v.re().as_f64().abs()), v.im())
            } else {
                v * T::from_real(real(1.0 / n as f64))
            };
        }
    }
    let x: Vec<T> = strided(&mut r, n, incx);
    let ad = dev.upload(&a).unwrap();
    let mut xd = dev.upload(&x).unwrap();
    let f = if solve {
        Blas::trsv::<T>
    } else {
        Blas::trmv::<T>
    };
    f(
        &blas,
        uplo,
        trans,
        diag,
        n,
        &ad.as_slice(),
        lda,
        &mut xd.as_slice_mut(),
        incx,
    )
    .unwrap();
    let got = xd.to_vec().unwrap();
    let what = format!(
        "{} solve={solve} {uplo:?} {trans} {diag:?} n={n} incx={incx}",
        T::PREFIX
    );
    check_vec_untouched(&got, &x, n, incx, &what);
    let logical = |v: &[T]| -> Vec<T> { (0..n).map(|i| v[vector_index(i, n, incx)]).collect() };
    let (xs, gs) = (logical(&x), logical(&got));
    let arg = if solve { &gs } else { &xs };
    let (prod, mag) = reference::trmm(
        Side::Left,
        uplo,
        trans,
        diag,
        n,
        1,
        T::one(),
        &a,
        lda,
        arg,
        n.max(1),
    );
    for i in 0..n {
        if solve {
            assert_close(
                T::narrow(prod[i]),
                xs[i].widen(),
                mag[i] + abs(xs[i]),
                (n + 4) as f64,
                &format!("{what} i={i}"),
            );
        } else {
            assert_close(
                gs[i],
                prod[i],
                mag[i],
                (n + 2) as f64,
                &format!("{what} i={i}"),
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
        Just(17),
        Just(33),
        0usize..60
    ]
}
fn incs() -> impl Strategy<Value = isize> {
    prop_oneof![Just(1isize), Just(1), Just(2), Just(-1), Just(-3)]
}
fn trans() -> impl Strategy<Value = Transpose> {
    prop_oneof![Just(Transpose::N), Just(Transpose::T), Just(Transpose::C)]
}
fn tri_args() -> impl Strategy<Value = (Uplo, Transpose, Diag)> {
    (
        prop_oneof![Just(Uplo::Upper), Just(Uplo::Lower)],
        trans(),
        prop_oneof![Just(Diag::NonUnit), Just(Diag::Unit)],
    )
}

macro_rules! level2_props {
    ($name:ident, $t:ty) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(40))]
                #[test]
                fn gemv(tr in trans(), m in dims(), n in dims(), pad in 0usize..3, incx in incs(),
                        incy in incs(), ca in 0u8..3, cb in 0u8..3, seed in any::<u64>()) {
                    check_gemv::<$t>(tr, (m, n), pad, (incx, incy), (ca, cb), seed);
                }

                #[test]
                fn ger(m in dims(), n in dims(), pad in 0usize..3, incx in incs(), incy in incs(),
                       conj in any::<bool>(), seed in any::<u64>()) {
                    check_ger::<$t>((m, n), pad, (incx, incy), conj, seed);
                }

                #[test]
                fn trmv_trsv(solve in any::<bool>(), args in tri_args(), n in dims(), pad in 0usize..3,
                             incx in incs(), seed in any::<u64>()) {
                    check_trv::<$t>(solve, args, n, pad, incx, seed);
                }
            }
        }
    };
}
level2_props!(s_level2, f32);
level2_props!(d_level2, f64);
level2_props!(c_level2, Complex32);
level2_props!(z_level2, Complex64);

#[test]
fn parallel_sizes() {
    // Past the single-thread threshold (2^15 elements) and the 512-row gemv chunk.
    for tr in Transpose::ALL {
        check_gemv::<f32>(tr, (1100, 70), 3, (1, -2), (2, 2), 1);
        check_gemv::<Complex64>(tr, (300, 700), 0, (-1, 1), (2, 0), 2);
    }
    check_ger::<f64>((600, 90), 1, (1, -1), false, 3);
    check_ger::<Complex32>((90, 500), 0, (2, 1), true, 4);
    check_trv::<f64>(
        true,
        (Uplo::Lower, Transpose::T, Diag::NonUnit),
        200,
        1,
        -1,
        5,
    );
    check_trv::<Complex64>(false, (Uplo::Upper, Transpose::C, Diag::Unit), 150, 0, 2, 6);
}

#[test]
fn argument_errors_name_the_argument() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let a = dev.alloc::<f64>(30).unwrap();
    let x = dev.alloc::<f64>(6).unwrap();
    let mut y = dev.alloc::<f64>(6).unwrap();
    let name = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        other => panic!("{other:?}"),
    };
    let gemv = |m, n, lda, incx, incy, y: &mut rocm_core::DeviceBuffer<f64>| {
        blas.gemv(
            Transpose::N,
            m,
            n,
            1.0,
            &a.as_slice(),
            lda,
            &x.as_slice(),
            incx,
            0.0,
            &mut y.as_slice_mut(),
            incy,
        )
    };
    assert_eq!(name(gemv(4, 4, 3, 1, 1, &mut y).unwrap_err()), "lda");
    assert_eq!(name(gemv(4, 4, 4, 0, 1, &mut y).unwrap_err()), "incx");
    assert_eq!(name(gemv(4, 4, 4, 1, 0, &mut y).unwrap_err()), "incy");
    assert_eq!(name(gemv(4, 4, 4, 2, 1, &mut y).unwrap_err()), "x");
    assert_eq!(name(gemv(4, 4, 4, 1, -2, &mut y).unwrap_err()), "y");
    assert_eq!(name(gemv(6, 6, 6, 1, 1, &mut y).unwrap_err()), "a");
    gemv(0, 0, 1, 1, 1, &mut y).unwrap();
    let mut am = dev.alloc::<f64>(30).unwrap();
    let err = blas
        .ger(
            3,
            3,
            1.0,
            &x.as_slice(),
            0,
            &x.as_slice(),
            1,
            &mut am.as_slice_mut(),
            3,
        )
        .unwrap_err();
    assert_eq!(name(err), "incx");
    let err = blas
        .ger(
            3,
            3,
            1.0,
            &x.as_slice(),
            1,
            &x.as_slice(),
            1,
            &mut am.as_slice_mut(),
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "lda");
    let err = blas
        .trsv(
            Uplo::Lower,
            Transpose::N,
            Diag::Unit,
            4,
            &a.as_slice(),
            3,
            &mut y.as_slice_mut(),
            1,
        )
        .unwrap_err();
    assert_eq!(name(err), "lda");
    let err = blas
        .trsv(
            Uplo::Lower,
            Transpose::N,
            Diag::Unit,
            4,
            &a.as_slice(),
            4,
            &mut y.as_slice_mut(),
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "x");
}
