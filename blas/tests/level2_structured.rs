//! Level 2 on structured storage — gbmv; symv/hemv, sbmv/hbmv, spmv/hpmv; syr/her,
//! syr2/her2, spr/hpr, spr2/hpr2; tbmv/tbsv, tpmv/tpsv — against dense references built
//! from BLAS's storage formulas (`reference::band_to_dense`, `packed_to_dense`), on every
//! dtype, uplo/trans/diag, odd sizes and bandwidths, padded lda, negative increments.
//!
//! Tolerances (ε the dtype's epsilon, × 4 for complex arithmetic):
//! - matrix-vector products: (n + 2)·ε·(|α|·Σ|a||x| + |β||y|).
//! - rank-1/rank-2 updates: one or two products and a sum per element:
//!   4ε·(|a| + |α|·(|x_i||x_j| (+ |x_i||y_j| + |y_i||x_j|))).
//! - triangular solves: by residual, (n + 4)·ε·(|op(A)||x̂| + |b|), diagonally dominant A.

mod common;

use common::*;
use proptest::prelude::*;
use rocm_blas::check::{vector_extent, vector_index};
use rocm_blas::{reference, Blas, Diag, Real, Scalar, Side, Transpose, Uplo};
use rocm_core::{Complex32, Complex64, Device, Error};

#[derive(Debug, Clone, Copy)]
enum Storage {
    Dense,
    Band(usize),
    Packed,
}

fn nan<T: Scalar>() -> T {
    T::from_real(num_traits::Float::nan())
}

fn strided<T: Scalar>(r: &mut Rng64, n: usize, inc: isize) -> Vec<T> {
    random_vec(r, vector_extent(n, inc).max(1))
}

fn logical<T: Scalar>(v: &[T], n: usize, inc: isize) -> Vec<T> {
    (0..n).map(|i| v[vector_index(i, n, inc)]).collect()
}

/// A random array for `storage` and its lda (pad added for dense and band).
fn stored<T: Scalar>(r: &mut Rng64, s: Storage, n: usize, pad: usize) -> (Vec<T>, usize) {
    match s {
        Storage::Dense => {
            let lda = n.max(1) + pad;
            (random_vec(r, lda * n.max(1)), lda)
        }
        Storage::Band(k) => {
            let lda = k + 1 + pad;
            (random_vec(r, lda * n.max(1)), lda)
        }
        Storage::Packed => (random_vec(r, (n * (n + 1) / 2).max(1)), 0),
    }
}

/// The dense n×n (ld = n) matrix holding the stored `uplo` triangle, zero elsewhere.
fn dense_triangle<T: Scalar>(s: Storage, uplo: Uplo, n: usize, a: &[T], lda: usize) -> Vec<T> {
    match s {
        Storage::Dense => (0..n * n)
            .map(|q| {
                let (i, j) = (q % n, q / n);
                if uplo.contains(i, j) {
                    a[i + j * lda]
                } else {
                    T::zero()
                }
            })
            .collect(),
        Storage::Band(k) => reference::tri_band_to_dense(uplo, n, k, a, lda),
        Storage::Packed => reference::packed_to_dense(uplo, n, a),
    }
}

fn check_gbmv<T: Scalar>(
    trans: Transpose,
    (m, n, kl, ku): (usize, usize, usize, usize),
    pad: usize,
    (incx, incy): (isize, isize),
    zero_beta: bool,
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let lda = kl + ku + 1 + pad;
    let alpha: T = random(&mut r);
    let beta: T = if zero_beta { T::zero() } else { random(&mut r) };
    let (lx, ly) = if trans.is_trans() { (m, n) } else { (n, m) };
    let a: Vec<T> = random_vec(&mut r, lda * n.max(1));
    let x: Vec<T> = strided(&mut r, lx, incx);
    let mut y: Vec<T> = strided(&mut r, ly, incy);
    if zero_beta {
        y.iter_mut().for_each(|v| *v = nan());
    }
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y).unwrap();
    blas.gbmv(
        trans,
        m,
        n,
        kl,
        ku,
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
    if m == 0 || n == 0 {
        return;
    }
    let dense = reference::band_to_dense(m, n, kl, ku, &a, lda);
    let (want, mag) = reference::gemv(trans, m, n, alpha, &dense, m, &x, incx, beta, &y, incy);
    for i in 0..ly {
        assert_close(
            got[vector_index(i, ly, incy)],
            want[i],
            mag[i],
            (lx + 2) as f64,
            &format!(
                "{}gbmv {trans} m={m} n={n} kl={kl} ku={ku} i={i}",
                T::PREFIX
            ),
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn check_sym_mv<T: Scalar>(
    s: Storage,
    herm: bool,
    uplo: Uplo,
    n: usize,
    pad: usize,
    (incx, incy): (isize, isize),
    zero_beta: bool,
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let (a, lda) = stored::<T>(&mut r, s, n, pad);
    let alpha: T = random(&mut r);
    let beta: T = if zero_beta { T::zero() } else { random(&mut r) };
    let x: Vec<T> = strided(&mut r, n, incx);
    let mut y: Vec<T> = strided(&mut r, n, incy);
    if zero_beta {
        y.iter_mut().for_each(|v| *v = nan());
    }
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y).unwrap();
    let (av, xv, mut yv) = (ad.as_slice(), xd.as_slice(), yd.as_slice_mut());
    match (s, herm) {
        (Storage::Dense, false) => {
            blas.symv(uplo, n, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
        }
        (Storage::Dense, true) => {
            blas.hemv(uplo, n, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
        }
        (Storage::Band(k), false) => {
            blas.sbmv(uplo, n, k, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
        }
        (Storage::Band(k), true) => {
            blas.hbmv(uplo, n, k, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
        }
        (Storage::Packed, false) => blas.spmv(uplo, n, alpha, &av, &xv, incx, beta, &mut yv, incy),
        (Storage::Packed, true) => blas.hpmv(uplo, n, alpha, &av, &xv, incx, beta, &mut yv, incy),
    }
    .unwrap();
    let got = yd.to_vec().unwrap();
    let tri = dense_triangle(s, uplo, n, &a, lda);
    let full: Vec<T> = (0..n * n)
        .map(|q| reference::sym_at(uplo, &tri, n.max(1), q % n, q / n, herm))
        .collect();
    let (want, mag) = reference::gemv(
        Transpose::N,
        n,
        n,
        alpha,
        &full,
        n.max(1),
        &x,
        incx,
        beta,
        &y,
        incy,
    );
    for i in 0..n {
        assert_close(
            got[vector_index(i, n, incy)],
            want[i],
            mag[i],
            (n + 2) as f64,
            &format!("{} {s:?} herm={herm} {uplo:?} n={n} i={i}", T::PREFIX),
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn check_update<T: Scalar>(
    packed: bool,
    herm: bool,
    two: bool,
    uplo: Uplo,
    n: usize,
    pad: usize,
    (incx, incy): (isize, isize),
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let s = if packed {
        Storage::Packed
    } else {
        Storage::Dense
    };
    let (a, lda) = stored::<T>(&mut r, s, n, pad);
    let mut alpha: T = random(&mut r);
    if herm && !two {
        alpha = T::from_real(alpha.re());
    }
    let x: Vec<T> = strided(&mut r, n, incx);
    let y: Vec<T> = strided(&mut r, n, incy);
    let (xd, yd) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
    let mut ad = dev.upload(&a).unwrap();
    let (xv, yv, mut av) = (xd.as_slice(), yd.as_slice(), ad.as_slice_mut());
    match (packed, herm, two) {
        (false, false, false) => blas.syr(uplo, n, alpha, &xv, incx, &mut av, lda),
        (false, true, false) => blas.her(uplo, n, alpha.re(), &xv, incx, &mut av, lda),
        (false, false, true) => blas.syr2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av, lda),
        (false, true, true) => blas.her2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av, lda),
        (true, false, false) => blas.spr(uplo, n, alpha, &xv, incx, &mut av),
        (true, true, false) => blas.hpr(uplo, n, alpha.re(), &xv, incx, &mut av),
        (true, false, true) => blas.spr2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av),
        (true, true, true) => blas.hpr2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av),
    }
    .unwrap();
    let got = ad.to_vec().unwrap();
    let what = format!(
        "{} packed={packed} herm={herm} two={two} {uplo:?} n={n}",
        T::PREFIX
    );
    if !packed {
        // The other triangle and the padding rows are not touched.
        for q in 0..got.len() {
            let (i, j) = (q % lda, q / lda);
            if i >= n || j >= n || !uplo.contains(i, j) {
                assert_eq!(got[q], a[q], "{what}: wrote ({i},{j})");
            }
        }
    }
    let (before, after) = (
        dense_triangle(s, uplo, n, &a, lda),
        dense_triangle(s, uplo, n, &got, lda),
    );
    let (xs, ys) = (logical(&x, n, incx), logical(&y, n, incy));
    let cj = |v: T| if herm { v.conj() } else { v };
    for j in 0..n {
        for i in 0..n {
            if !uplo.contains(i, j) {
                continue;
            }
            let d = before[i + j * n];
            let d = if herm && i == j {
                T::from_real(d.re())
            } else {
                d
            };
            let (mut want, mut mag) = (d.widen(), abs(d));
            if two {
                want += alpha.widen() * xs[i].widen() * cj(ys[j]).widen()
                    + cj(alpha).widen() * ys[i].widen() * cj(xs[j]).widen();
                mag += abs(alpha) * (abs(xs[i]) * abs(ys[j]) + abs(ys[i]) * abs(xs[j]));
            } else {
                want += alpha.widen() * xs[i].widen() * cj(xs[j]).widen();
                mag += abs(alpha) * abs(xs[i]) * abs(xs[j]);
            }
            let g = after[i + j * n];
            if herm && i == j {
                assert_eq!(
                    g.im(),
                    num_traits::Zero::zero(),
                    "{what}: diagonal not real"
                );
                want = <T::Wide as Scalar>::from_real(want.re());
            }
            assert_close(g, want, mag, 4.0, &format!("{what} ({i},{j})"));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_tri<T: Scalar>(
    s: Storage,
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
    let (mut a, lda) = stored::<T>(&mut r, s, n, pad);
    // Diagonally dominant: shrink everything, then put diagonals of modulus >= 2 back.
    let shrink = T::from_real(real(1.0 / n.max(1) as f64));
    a.iter_mut().for_each(|v| *v *= shrink);
    let diag_pos: Vec<usize> = (0..n)
        .map(|j| match s {
            Storage::Dense => j + j * lda,
            Storage::Band(k) => (if uplo == Uplo::Upper { k } else { 0 }) + j * lda,
            Storage::Packed if uplo == Uplo::Upper => j * (j + 1) / 2 + j,
            Storage::Packed => j * n - j * j.saturating_sub(1) / 2,
        })
        .collect();
    for &p in &diag_pos {
        let v: T = random(&mut r);
        a[p] = T::from_parts(real(2.0 + v.re().as_f64().abs()), v.im());
    }
    let x: Vec<T> = strided(&mut r, n, incx);
    let ad = dev.upload(&a).unwrap();
    let mut xd = dev.upload(&x).unwrap();
    let (av, mut xv) = (ad.as_slice(), xd.as_slice_mut());
    match (s, solve) {
        (Storage::Dense, _) => unreachable!("dense triangles are tested in level2.rs"),
        (Storage::Band(k), false) => blas.tbmv(uplo, trans, diag, n, k, &av, lda, &mut xv, incx),
        (Storage::Band(k), true) => blas.tbsv(uplo, trans, diag, n, k, &av, lda, &mut xv, incx),
        (Storage::Packed, false) => blas.tpmv(uplo, trans, diag, n, &av, &mut xv, incx),
        (Storage::Packed, true) => blas.tpsv(uplo, trans, diag, n, &av, &mut xv, incx),
    }
    .unwrap();
    let got = xd.to_vec().unwrap();
    let tri = dense_triangle(s, uplo, n, &a, lda);
    let (xs, gs) = (logical(&x, n, incx), logical(&got, n, incx));
    let arg = if solve { &gs } else { &xs };
    let (prod, mag) = reference::trmm(
        Side::Left,
        uplo,
        trans,
        diag,
        n,
        1,
        T::one(),
        &tri,
        n.max(1),
        arg,
        n.max(1),
    );
    let what = format!(
        "{} {s:?} solve={solve} {uplo:?} {trans} {diag:?} n={n} incx={incx}",
        T::PREFIX
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
        0usize..40
    ]
}
fn bands() -> impl Strategy<Value = usize> {
    prop_oneof![Just(0usize), Just(1), Just(3), 0usize..45]
}
fn incs() -> impl Strategy<Value = isize> {
    prop_oneof![Just(1isize), Just(2), Just(-1), Just(-3)]
}
fn uplos() -> impl Strategy<Value = Uplo> {
    prop_oneof![Just(Uplo::Upper), Just(Uplo::Lower)]
}
fn trans() -> impl Strategy<Value = Transpose> {
    prop_oneof![Just(Transpose::N), Just(Transpose::T), Just(Transpose::C)]
}
fn storages() -> impl Strategy<Value = Storage> {
    prop_oneof![
        Just(Storage::Dense),
        Just(Storage::Packed),
        bands().prop_map(Storage::Band)
    ]
}
fn tri_storages() -> impl Strategy<Value = Storage> {
    prop_oneof![Just(Storage::Packed), bands().prop_map(Storage::Band)]
}

macro_rules! structured_props {
    ($name:ident, $t:ty) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(40))]
                #[test]
                fn gbmv(tr in trans(), m in dims(), n in dims(), kl in bands(), ku in bands(),
                        pad in 0usize..3, incx in incs(), incy in incs(), zb in any::<bool>(),
                        seed in any::<u64>()) {
                    check_gbmv::<$t>(tr, (m, n, kl, ku), pad, (incx, incy), zb, seed);
                }

                #[test]
                fn sym_mv(s in storages(), herm in any::<bool>(), uplo in uplos(), n in dims(),
                          pad in 0usize..3, incx in incs(), incy in incs(), zb in any::<bool>(),
                          seed in any::<u64>()) {
                    check_sym_mv::<$t>(s, herm, uplo, n, pad, (incx, incy), zb, seed);
                }

                #[test]
                fn updates(packed in any::<bool>(), herm in any::<bool>(), two in any::<bool>(),
                           uplo in uplos(), n in dims(), pad in 0usize..3, incx in incs(),
                           incy in incs(), seed in any::<u64>()) {
                    check_update::<$t>(packed, herm, two, uplo, n, pad, (incx, incy), seed);
                }

                #[test]
                fn triangular(s in tri_storages(), solve in any::<bool>(), uplo in uplos(), tr in trans(),
                              unit in any::<bool>(), n in dims(), pad in 0usize..3, incx in incs(),
                              seed in any::<u64>()) {
                    let diag = if unit { Diag::Unit } else { Diag::NonUnit };
                    check_tri::<$t>(s, solve, (uplo, tr, diag), n, pad, incx, seed);
                }
            }
        }
    };
}
structured_props!(s_structured, f32);
structured_props!(d_structured, f64);
structured_props!(c_structured, Complex32);
structured_props!(z_structured, Complex64);

#[test]
fn parallel_sizes() {
    // Past the single-thread threshold (2^15 stored elements) and the 256-column chunk.
    for tr in Transpose::ALL {
        check_gbmv::<f64>(tr, (700, 650, 30, 40), 1, (1, -1), false, 1);
    }
    for uplo in [Uplo::Upper, Uplo::Lower] {
        check_sym_mv::<Complex32>(Storage::Dense, true, uplo, 300, 1, (-2, 1), false, 2);
        check_sym_mv::<f32>(Storage::Band(60), false, uplo, 700, 0, (1, 1), true, 3);
        check_update::<Complex64>(false, true, true, uplo, 260, 2, (1, -1), 4);
    }
}

#[test]
fn argument_errors_name_the_argument() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let a = dev.alloc::<f32>(20).unwrap();
    let x = dev.alloc::<f32>(8).unwrap();
    let mut y = dev.alloc::<f32>(8).unwrap();
    let name = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        other => panic!("{other:?}"),
    };
    let (av, xv) = (a.as_slice(), x.as_slice());
    let err = blas
        .gbmv(
            Transpose::N,
            4,
            4,
            1,
            1,
            1.0,
            &av,
            2,
            &xv,
            1,
            0.0,
            &mut y.as_slice_mut(),
            1,
        )
        .unwrap_err();
    assert_eq!(name(err), "lda");
    let err = blas
        .gbmv(
            Transpose::N,
            4,
            7,
            1,
            1,
            1.0,
            &av,
            3,
            &xv,
            1,
            0.0,
            &mut y.as_slice_mut(),
            1,
        )
        .unwrap_err();
    assert_eq!(name(err), "a");
    let err = blas
        .spmv(
            Uplo::Upper,
            6,
            1.0,
            &av,
            &xv,
            1,
            0.0,
            &mut y.as_slice_mut(),
            1,
        )
        .unwrap_err();
    assert_eq!(name(err), "ap");
    let err = blas
        .sbmv(
            Uplo::Upper,
            4,
            2,
            1.0,
            &av,
            2,
            &xv,
            1,
            0.0,
            &mut y.as_slice_mut(),
            1,
        )
        .unwrap_err();
    assert_eq!(name(err), "lda");
    let err = blas
        .tpsv(
            Uplo::Lower,
            Transpose::T,
            Diag::Unit,
            4,
            &av,
            &mut y.as_slice_mut(),
            0,
        )
        .unwrap_err();
    assert_eq!(name(err), "incx");
    let err = blas
        .syr2(
            Uplo::Lower,
            4,
            1.0,
            &xv,
            1,
            &xv,
            3,
            &mut y.as_slice_mut(),
            4,
        )
        .unwrap_err();
    assert_eq!(name(err), "y");
}
