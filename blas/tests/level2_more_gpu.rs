//! GPU Level 2 beyond gemv on CUDA against independent f64 (Complex64) references: the
//! rank updates ger/geru/gerc, syr/her, syr2/her2, spr/hpr, spr2/hpr2; the products
//! symv/hemv, spmv/hpmv, sbmv/hbmv, trmv, tpmv, tbmv (bandwidths 0, 1, 5, 40); and trsv,
//! tpsv, tbsv; gbmv. Every dtype, uplo, trans and diag, sizes
//! 0, 1, 2, primes up to a few hundred (and 1031 for the blocked trsv), lda > rows,
//! increments ±1 and ±3, α and β random, one, or zero (β = 0: y holds NaN that must not
//! be read; α = 0 with NaN in A, which must not be read either). Storage a routine must
//! not write (the other triangle, the rows past m below each column, the gaps of strided
//! vectors) is compared exactly. CUDA tests skip with a printed reason without a device;
//! the same harness runs on the CPU device here, so the oracle itself is checked. Every
//! routine on emulated AMD devices answers `Unsupported` naming the device.
//!
//! Tolerances (ε the dtype's epsilon; `assert_close` multiplies by 4 for complex):
//! - rank updates: one product and one or two fused additions per element:
//!   4ε·(|a| + |α||x||y| (+ |α||y||x|)).
//! - symv/hemv/spmv/hpmv/sbmv/hbmv/trmv/tpmv/tbmv: (n + 66)·ε·(|α|·Σ|a||x| + |β||y|): the kernel adds
//!   each output's n products in a tree of depth at most n + 64 (`rocm_kernels::level2::
//!   trimv`), plus the α and β roundings.
//! - trsv/tpsv/tbsv (the last two solve a dense copy of the triangle), by residual on
//!   diagonally dominant A:
//!   |op(A)·x̂ − b| ≤ (2n + 8)·ε·(|op(A)||x̂| + |b|): blocked substitution (each block
//!   one forward substitution, each later row one gemv update per block) is backward
//!   stable with about twice the unblocked constant (Higham, §8.3).

mod common;

use common::*;
use num_complex::Complex64;
use rocm_blas::check::{vector_extent, vector_index};
use rocm_blas::reference::to_c64;
use rocm_blas::{Blas, Diag, Real, Scalar, Transpose, Uplo};
use rocm_core::{Complex32, Device, Error};

const SIZES: [usize; 9] = [0, 1, 2, 7, 31, 33, 67, 131, 257];
const INCS: [isize; 4] = [1, -1, 3, -3];

fn nan<T: Scalar>() -> T {
    T::from_real(num_traits::Float::nan())
}

fn same<T: Scalar>(a: T, b: T) -> bool {
    a == b || (a.has_nan() && b.has_nan())
}

/// A strided vector of n random values (at least one element of storage).
fn strided<T: Scalar>(r: &mut Rng64, n: usize, inc: isize) -> Vec<T> {
    random_vec(r, vector_extent(n, inc).max(1))
}

fn logical<T: Scalar>(v: &[T], n: usize, inc: isize) -> Vec<Complex64> {
    (0..n).map(|i| to_c64(v[vector_index(i, n, inc)])).collect()
}

/// Where the matrix lives: dense at lda, packed, or band (lda, k off-diagonals).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Store {
    Dense(usize),
    Packed,
    Band(usize, usize),
}

impl Store {
    fn len(self, n: usize) -> usize {
        match self {
            Store::Dense(lda) | Store::Band(lda, _) => (lda * n).max(1),
            Store::Packed => (n * (n + 1) / 2).max(1),
        }
    }
    /// Storage index of (i, j) of the `uplo` triangle (any (i, j) when dense).
    fn index(self, uplo: Uplo, n: usize, i: usize, j: usize) -> usize {
        match (self, uplo) {
            (Store::Dense(lda), _) => i + j * lda,
            (Store::Packed, Uplo::Upper) => i + j * (j + 1) / 2,
            (Store::Packed, Uplo::Lower) => i + j * n - j * (j + 1) / 2,
            (Store::Band(lda, k), Uplo::Upper) => k + i - j + j * lda,
            (Store::Band(lda, _), Uplo::Lower) => i - j + j * lda,
        }
    }
    /// Whether (i, j) is stored: in the `uplo` triangle and, for a band, within k of
    /// the diagonal.
    fn holds(self, uplo: Uplo, i: usize, j: usize) -> bool {
        uplo.contains(i, j)
            && match self {
                Store::Band(_, k) => i.abs_diff(j) <= k,
                _ => true,
            }
    }
}

/// Bandwidth of band case `c`: the diagonal alone, narrow, and wider than most sizes.
fn bandwidth(c: usize) -> usize {
    [0, 1, 5, 40][c % 4]
}

/// Coefficient choices: 0 → zero, 1 → one, else random.
fn coef<T: Scalar>(c: u8, r: &mut Rng64) -> T {
    match c {
        0 => T::zero(),
        1 => T::one(),
        _ => random(r),
    }
}

// ---------------------------------------------------------------------------------
// Rank updates.

#[derive(Debug, Clone, Copy, PartialEq)]
enum RankRoutine {
    Geru,
    Gerc,
    Syr,
    Her,
    Syr2,
    Her2,
    Spr,
    Hpr,
    Spr2,
    Hpr2,
}

use RankRoutine as R;

const RANK_ROUTINES: [RankRoutine; 10] = [
    R::Geru,
    R::Gerc,
    R::Syr,
    R::Her,
    R::Syr2,
    R::Her2,
    R::Spr,
    R::Hpr,
    R::Spr2,
    R::Hpr2,
];

impl RankRoutine {
    /// (general, packed, rank 2, conj, hermitian), as a table.
    fn traits(self) -> (bool, bool, bool, bool, bool) {
        match self {
            R::Geru => (true, false, false, false, false),
            R::Gerc => (true, false, false, true, false),
            R::Syr => (false, false, false, false, false),
            R::Her => (false, false, false, true, true),
            R::Syr2 => (false, false, true, false, false),
            R::Her2 => (false, false, true, true, true),
            R::Spr => (false, true, false, false, false),
            R::Hpr => (false, true, false, true, true),
            R::Spr2 => (false, true, true, false, false),
            R::Hpr2 => (false, true, true, true, true),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_rank<T: Scalar>(
    dev: &Device,
    routine: RankRoutine,
    uplo: Uplo,
    (m, n): (usize, usize),
    pad: usize,
    (incx, incy): (isize, isize),
    seed: u64,
) {
    let (general, packed, rank2, conj, herm) = routine.traits();
    let m = if general { m } else { n };
    let store = if packed {
        Store::Packed
    } else {
        Store::Dense(m.max(1) + pad)
    };
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let mut alpha: T = random(&mut r);
    if herm && !rank2 {
        alpha = T::from_real(alpha.re());
    }
    let a: Vec<T> = random_vec(&mut r, store.len(n));
    let x: Vec<T> = strided(&mut r, m, incx);
    let y: Vec<T> = strided(&mut r, n, incy);
    let (xd, yd) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
    let mut ad = dev.upload(&a).unwrap();
    let what = format!(
        "{}{routine:?} {uplo:?} m={m} n={n} {store:?} inc {incx},{incy}",
        T::PREFIX
    );
    {
        let (xv, yv, mut av) = (xd.as_slice(), yd.as_slice(), ad.as_slice_mut());
        let res = match (routine, store) {
            (R::Geru, Store::Dense(lda)) => {
                blas.geru(m, n, alpha, &xv, incx, &yv, incy, &mut av, lda)
            }
            (R::Gerc, Store::Dense(lda)) => {
                blas.gerc(m, n, alpha, &xv, incx, &yv, incy, &mut av, lda)
            }
            (R::Syr, Store::Dense(lda)) => blas.syr(uplo, n, alpha, &xv, incx, &mut av, lda),
            (R::Her, Store::Dense(lda)) => blas.her(uplo, n, alpha.re(), &xv, incx, &mut av, lda),
            (R::Syr2, Store::Dense(lda)) => {
                blas.syr2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av, lda)
            }
            (R::Her2, Store::Dense(lda)) => {
                blas.her2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av, lda)
            }
            (R::Spr, _) => blas.spr(uplo, n, alpha, &xv, incx, &mut av),
            (R::Hpr, _) => blas.hpr(uplo, n, alpha.re(), &xv, incx, &mut av),
            (R::Spr2, _) => blas.spr2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av),
            (R::Hpr2, _) => blas.hpr2(uplo, n, alpha, &xv, incx, &yv, incy, &mut av),
            _ => unreachable!(),
        };
        res.unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let got: Vec<T> = ad.to_vec().unwrap();
    let (xl, yl) = (logical(&x, m, incx), logical(&y, n, incy));
    // syr/her/spr/hpr: y is x.
    let yl = if general || rank2 { yl } else { xl.clone() };
    let op = |v: Complex64| if conj { v.conj() } else { v };
    let al = to_c64(alpha);
    let al2 = if herm { al.conj() } else { al };
    let mut touched = vec![false; got.len()];
    for j in 0..n {
        for i in 0..m {
            if !general && !uplo.contains(i, j) {
                continue;
            }
            let q = store.index(uplo, n, i, j);
            touched[q] = true;
            let a0 = to_c64(a[q]);
            let t1 = al * xl[i] * op(yl[j]);
            let mut want = a0 + t1;
            let mut mag = a0.norm() + t1.norm();
            if rank2 {
                let t2 = al2 * yl[i] * op(xl[j]);
                want += t2;
                mag += t2.norm();
            }
            if herm && i == j {
                want.im = 0.0;
            }
            assert_close(got[q], want, mag, 4.0, &format!("{what} ({i},{j})"));
            if herm && i == j && m > 0 {
                assert_eq!(
                    to_c64(got[q]).im,
                    0.0,
                    "{what}: diagonal ({i},{i}) not real"
                );
            }
        }
    }
    for q in 0..got.len() {
        if !touched[q] {
            assert!(
                same(got[q], a[q]),
                "{what}: storage {q} outside the update changed"
            );
        }
    }
}

fn rank_cases<T: Scalar>(dev: &Device, seed: u64) {
    let mut s = seed;
    for routine in RANK_ROUTINES {
        for uplo in Uplo::ALL {
            for (k, &n) in SIZES.iter().enumerate() {
                s += 1;
                let m = SIZES[(k + 3) % SIZES.len()];
                let incs = (INCS[k % 4], INCS[(k + 1) % 4]);
                check_rank::<T>(dev, routine, uplo, (m, n), k % 4, incs, s);
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// symv / hemv / spmv / hpmv.

#[derive(Debug, Clone, Copy, PartialEq)]
enum SymRoutine {
    Symv,
    Hemv,
    Spmv,
    Hpmv,
    Sbmv,
    Hbmv,
}

#[allow(clippy::too_many_arguments)]
fn check_sym<T: Scalar>(
    dev: &Device,
    routine: SymRoutine,
    uplo: Uplo,
    n: usize,
    pad: usize,
    (incx, incy): (isize, isize),
    (ca, cb): (u8, u8),
    seed: u64,
) {
    let herm = matches!(
        routine,
        SymRoutine::Hemv | SymRoutine::Hpmv | SymRoutine::Hbmv
    );
    let store = match routine {
        SymRoutine::Symv | SymRoutine::Hemv => Store::Dense(n.max(1) + pad),
        SymRoutine::Sbmv | SymRoutine::Hbmv => {
            let k = bandwidth(seed as usize);
            Store::Band(k + 1 + pad, k)
        }
        _ => Store::Packed,
    };
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (alpha, beta): (T, T) = (coef(ca, &mut r), coef(cb, &mut r));
    // The other triangle (dense) and what lies outside a band hold NaN: they must not
    // be read.
    let mut a: Vec<T> = vec![nan(); store.len(n)];
    for j in 0..n {
        for i in 0..n {
            if store.holds(uplo, i, j) {
                a[store.index(uplo, n, i, j)] = random(&mut r);
            }
        }
    }
    if alpha == T::zero() && !a.is_empty() {
        // α = 0 must not read A at all.
        a[0] = nan();
    }
    let x: Vec<T> = strided(&mut r, n, incx);
    let mut y0: Vec<T> = strided(&mut r, n, incy);
    if beta == T::zero() {
        y0.iter_mut().for_each(|v| *v = nan());
    }
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y0).unwrap();
    let what = format!(
        "{}{routine:?} {uplo:?} n={n} {store:?} inc {incx},{incy} coefs {ca}{cb}",
        T::PREFIX
    );
    {
        let (av, xv, mut yv) = (ad.as_slice(), xd.as_slice(), yd.as_slice_mut());
        let res = match (routine, store) {
            (SymRoutine::Symv, Store::Dense(lda)) => {
                blas.symv(uplo, n, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
            }
            (SymRoutine::Hemv, Store::Dense(lda)) => {
                blas.hemv(uplo, n, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
            }
            (SymRoutine::Spmv, _) => blas.spmv(uplo, n, alpha, &av, &xv, incx, beta, &mut yv, incy),
            (SymRoutine::Hpmv, _) => blas.hpmv(uplo, n, alpha, &av, &xv, incx, beta, &mut yv, incy),
            (SymRoutine::Sbmv, Store::Band(lda, k)) => {
                blas.sbmv(uplo, n, k, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
            }
            (SymRoutine::Hbmv, Store::Band(lda, k)) => {
                blas.hbmv(uplo, n, k, alpha, &av, lda, &xv, incx, beta, &mut yv, incy)
            }
            _ => unreachable!(),
        };
        res.unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let got: Vec<T> = yd.to_vec().unwrap();
    let xl = logical(&x, n, incx);
    let el = |i: usize, j: usize| -> Complex64 {
        let (r, c, mirrored) = if uplo.contains(i, j) {
            (i, j, false)
        } else {
            (j, i, true)
        };
        if !store.holds(uplo, r, c) {
            return Complex64::new(0.0, 0.0);
        }
        let v = to_c64(a[store.index(uplo, n, r, c)]);
        if herm && i == j {
            Complex64::new(v.re, 0.0)
        } else if herm && mirrored {
            v.conj()
        } else {
            v
        }
    };
    let (al, be) = (to_c64(alpha), to_c64(beta));
    let quick = n == 0 || (alpha == T::zero() && beta == T::one());
    for i in 0..n {
        let yi = vector_index(i, n, incy);
        let y_old = to_c64(y0[yi]);
        let (want, mag) = if quick {
            (y_old, 0.0)
        } else {
            let (mut s, mut mag) = (Complex64::new(0.0, 0.0), 0.0);
            if alpha != T::zero() {
                for (j, xj) in xl.iter().enumerate() {
                    s += el(i, j) * xj;
                    mag += el(i, j).norm() * xj.norm();
                }
            }
            let (mut want, mut mag) = (al * s, al.norm() * mag);
            if beta != T::zero() {
                want += be * y_old;
                mag += be.norm() * y_old.norm();
            }
            (want, mag)
        };
        if quick {
            assert!(
                same(got[yi], y0[yi]),
                "{what}: y[{i}] changed on a quick return"
            );
        } else {
            assert_close(
                got[yi],
                want,
                mag,
                n as f64 + 66.0,
                &format!("{what} y[{i}]"),
            );
        }
    }
    for q in 0..got.len() {
        if q % incy.unsigned_abs() != 0 {
            assert!(
                same(got[q], y0[q]),
                "{what}: y storage {q} outside the vector changed"
            );
        }
    }
}

fn sym_cases<T: Scalar>(dev: &Device, seed: u64) {
    let mut s = seed;
    for routine in [
        SymRoutine::Symv,
        SymRoutine::Hemv,
        SymRoutine::Spmv,
        SymRoutine::Hpmv,
        SymRoutine::Sbmv,
        SymRoutine::Hbmv,
    ] {
        for uplo in Uplo::ALL {
            for (k, &n) in SIZES.iter().enumerate() {
                // β = 0 (NaN y), α = β = random, α = 0, α = 1 with β = 1.
                for coefs in [(2, 0), (2, 2), (0, 2), (1, 1)] {
                    s += 1;
                    let incs = (INCS[(k + 2) % 4], INCS[k % 4]);
                    check_sym::<T>(dev, routine, uplo, n, k % 3, incs, coefs, s);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// trmv / tpmv / trsv.

#[derive(Debug, Clone, Copy, PartialEq)]
enum TriRoutine {
    Trmv,
    Tpmv,
    Tbmv,
    Trsv,
    Tpsv,
    Tbsv,
}

#[allow(clippy::too_many_arguments)]
fn check_tri<T: Scalar>(
    dev: &Device,
    routine: TriRoutine,
    (uplo, trans, diag): (Uplo, Transpose, Diag),
    n: usize,
    pad: usize,
    incx: isize,
    seed: u64,
) {
    let store = match routine {
        TriRoutine::Tpmv | TriRoutine::Tpsv => Store::Packed,
        TriRoutine::Tbmv | TriRoutine::Tbsv => {
            let k = bandwidth(seed as usize);
            Store::Band(k + 1 + pad, k)
        }
        _ => Store::Dense(n.max(1) + pad),
    };
    let solve = matches!(
        routine,
        TriRoutine::Trsv | TriRoutine::Tpsv | TriRoutine::Tbsv
    );
    let unit = diag == Diag::Unit;
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    // The other triangle (dense) and a unit diagonal hold NaN: neither may be read.
    // trsv's A is diagonally dominant (off-diagonal elements scaled by 1/n).
    let mut a: Vec<T> = vec![nan(); store.len(n)];
    for j in 0..n {
        for i in 0..n {
            if !store.holds(uplo, i, j) || (unit && i == j) {
                continue;
            }
            let v: T = random(&mut r);
            a[store.index(uplo, n, i, j)] = if solve && i == j {
                T::from_parts(real(2.0 + v.re().as_f64().abs()), v.im())
            } else if solve {
                v * T::from_real(real(1.0 / n as f64))
            } else {
                v
            };
        }
    }
    let b: Vec<T> = strided(&mut r, n, incx);
    let ad = dev.upload(&a).unwrap();
    let mut xd = dev.upload(&b).unwrap();
    let what = format!(
        "{}{routine:?} {uplo:?} {trans:?} {diag:?} n={n} {store:?} incx {incx}",
        T::PREFIX
    );
    {
        let (av, mut xv) = (ad.as_slice(), xd.as_slice_mut());
        let res = match (routine, store) {
            (TriRoutine::Trmv, Store::Dense(lda)) => {
                blas.trmv(uplo, trans, diag, n, &av, lda, &mut xv, incx)
            }
            (TriRoutine::Trsv, Store::Dense(lda)) => {
                blas.trsv(uplo, trans, diag, n, &av, lda, &mut xv, incx)
            }
            (TriRoutine::Tpmv, _) => blas.tpmv(uplo, trans, diag, n, &av, &mut xv, incx),
            (TriRoutine::Tbmv, Store::Band(lda, k)) => {
                blas.tbmv(uplo, trans, diag, n, k, &av, lda, &mut xv, incx)
            }
            (TriRoutine::Tpsv, _) => blas.tpsv(uplo, trans, diag, n, &av, &mut xv, incx),
            (TriRoutine::Tbsv, Store::Band(lda, k)) => {
                blas.tbsv(uplo, trans, diag, n, k, &av, lda, &mut xv, incx)
            }
            _ => unreachable!(),
        };
        res.unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let got: Vec<T> = xd.to_vec().unwrap();
    // op(A)(i, j).
    let el = |i: usize, j: usize| -> Complex64 {
        let (r, c) = if trans == Transpose::N {
            (i, j)
        } else {
            (j, i)
        };
        let v = if r == c && unit {
            Complex64::new(1.0, 0.0)
        } else if store.holds(uplo, r, c) {
            to_c64(a[store.index(uplo, n, r, c)])
        } else {
            Complex64::new(0.0, 0.0)
        };
        if trans == Transpose::C {
            v.conj()
        } else {
            v
        }
    };
    let (xl, bl) = (logical(&got, n, incx), logical(&b, n, incx));
    for i in 0..n {
        // trmv: (op(A)·b)_i against x̂_i; trsv: (op(A)·x̂)_i against b_i.
        let v = if solve { &xl } else { &bl };
        let (mut s, mut mag) = (Complex64::new(0.0, 0.0), 0.0);
        for (j, vj) in v.iter().enumerate() {
            s += el(i, j) * vj;
            mag += el(i, j).norm() * vj.norm();
        }
        if solve {
            let res = s - bl[i];
            let bound_mag = mag + bl[i].norm();
            assert_close(
                T::from_parts(real(res.re), real(res.im)),
                Complex64::new(0.0, 0.0),
                bound_mag,
                2.0 * n as f64 + 8.0,
                &format!("{what} residual row {i}"),
            );
        } else {
            assert_close(
                got[vector_index(i, n, incx)],
                s,
                mag,
                n as f64 + 66.0,
                &format!("{what} x[{i}]"),
            );
        }
    }
    for q in 0..got.len() {
        if q % incx.unsigned_abs() != 0 {
            assert!(
                same(got[q], b[q]),
                "{what}: x storage {q} outside the vector changed"
            );
        }
    }
}

fn tri_cases<T: Scalar>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut s = seed;
    for routine in [
        TriRoutine::Trmv,
        TriRoutine::Tpmv,
        TriRoutine::Tbmv,
        TriRoutine::Trsv,
        TriRoutine::Tpsv,
        TriRoutine::Tbsv,
    ] {
        for uplo in Uplo::ALL {
            for trans in Transpose::ALL {
                for diag in [Diag::NonUnit, Diag::Unit] {
                    for (k, &n) in sizes.iter().enumerate() {
                        s += 1;
                        let inc = INCS[(k + s as usize) % 4];
                        check_tri::<T>(dev, routine, (uplo, trans, diag), n, k % 3, inc, s);
                    }
                }
            }
        }
    }
}

fn all_cases<T: Scalar>(dev: &Device, seed: u64) {
    rank_cases::<T>(dev, seed);
    sym_cases::<T>(dev, seed + 10_000);
    tri_cases::<T>(dev, seed + 20_000, &SIZES);
    gbmv_cases::<T>(dev, seed + 30_000);
}

#[test]
fn level2_more_f32_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<f32>(&dev, 1);
    }
}

#[test]
fn level2_more_f64_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<f64>(&dev, 2);
    }
}

#[test]
fn level2_more_c32_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<Complex32>(&dev, 3);
    }
}

#[test]
fn level2_more_c64_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<num_complex::Complex<f64>>(&dev, 4);
    }
}

/// Many diagonal blocks (1031 = 16·64 + 7; 32 blocks of 32 + 7 for Complex64), lda > n.
#[test]
fn blocked_trsv_and_large_products_cuda_match_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        tri_cases::<f32>(&dev, 5, &[1031]);
        tri_cases::<f64>(&dev, 6, &[1031]);
        tri_cases::<num_complex::Complex<f64>>(&dev, 7, &[1031]);
        for uplo in Uplo::ALL {
            check_sym::<f64>(&dev, SymRoutine::Symv, uplo, 1031, 3, (1, -1), (2, 2), 8);
            check_sym::<Complex32>(&dev, SymRoutine::Hemv, uplo, 1031, 0, (-3, 1), (2, 0), 9);
            check_rank::<f32>(&dev, R::Her2, uplo, (1031, 1031), 1, (1, -3), 10);
        }
        check_rank::<num_complex::Complex<f64>>(
            &dev,
            R::Gerc,
            Uplo::Upper,
            (1031, 517),
            2,
            (-1, 3),
            11,
        );
    }
}

/// The harness (references, tolerances, untouched storage) on the CPU path, so the CUDA
/// tests compare against a checked oracle even where they skip. Smaller sizes keep it
/// quick.
#[test]
fn harness_accepts_the_cpu_path() {
    let dev = Device::cpu();
    all_cases::<f32>(&dev, 21);
    all_cases::<Complex32>(&dev, 22);
    tri_cases::<f64>(&dev, 23, &[300]);
}

/// One routine writing into the output view.
type Call<'a> = dyn Fn(&mut rocm_core::BufferSliceMut<'_, f32>) -> rocm_core::Result<()> + 'a;

/// Emulated AMD targets have no Level 2 kernels beyond the CPU: each routine answers
/// `Unsupported` naming the device, and leaves its output untouched.
#[test]
fn level2_on_emulated_amd_targets_is_unsupported() {
    for target in ["emu:gfx90a", "emu:gfx1100"] {
        let dev = Device::open(target).unwrap();
        let blas = Blas::new(&dev);
        let n = 3;
        let a = dev.upload(&[1.0f32; 9]).unwrap();
        let x = dev.upload(&[1.0f32; 3]).unwrap();
        let mut out = dev.upload(&[5.0f32; 9]).unwrap();
        let (av, xv) = (a.as_slice(), x.as_slice());
        let (u, t, d) = (Uplo::Upper, Transpose::N, Diag::NonUnit);
        let calls: Vec<(&str, Box<Call<'_>>)> = vec![
            (
                "ger",
                Box::new(|o| blas.ger(n, n, 1.0, &xv, 1, &xv, 1, o, n)),
            ),
            (
                "gerc",
                Box::new(|o| blas.gerc(n, n, 1.0, &xv, 1, &xv, 1, o, n)),
            ),
            ("syr", Box::new(|o| blas.syr(u, n, 1.0, &xv, 1, o, n))),
            ("her", Box::new(|o| blas.her(u, n, 1.0, &xv, 1, o, n))),
            (
                "syr2",
                Box::new(|o| blas.syr2(u, n, 1.0, &xv, 1, &xv, 1, o, n)),
            ),
            (
                "her2",
                Box::new(|o| blas.her2(u, n, 1.0, &xv, 1, &xv, 1, o, n)),
            ),
            ("spr", Box::new(|o| blas.spr(u, n, 1.0, &xv, 1, o))),
            (
                "spr2",
                Box::new(|o| blas.spr2(u, n, 1.0, &xv, 1, &xv, 1, o)),
            ),
            (
                "symv",
                Box::new(|o| blas.symv(u, n, 1.0, &av, n, &xv, 1, 0.0, o, 1)),
            ),
            (
                "symv α=0",
                Box::new(|o| blas.symv(u, n, 0.0, &av, n, &xv, 1, 0.0, o, 1)),
            ),
            (
                "hemv",
                Box::new(|o| blas.hemv(u, n, 1.0, &av, n, &xv, 1, 1.0, o, 1)),
            ),
            (
                "spmv",
                Box::new(|o| blas.spmv(u, n, 1.0, &av, &xv, 1, 1.0, o, 1)),
            ),
            (
                "sbmv",
                Box::new(|o| blas.sbmv(u, n, 1, 1.0, &av, 2, &xv, 1, 1.0, o, 1)),
            ),
            ("trmv", Box::new(|o| blas.trmv(u, t, d, n, &av, n, o, 1))),
            ("trsv", Box::new(|o| blas.trsv(u, t, d, n, &av, n, o, 1))),
            ("tpmv", Box::new(|o| blas.tpmv(u, t, d, n, &av, o, 1))),
            ("tpsv", Box::new(|o| blas.tpsv(u, t, d, n, &av, o, 1))),
            ("tbmv", Box::new(|o| blas.tbmv(u, t, d, n, 1, &av, 2, o, 1))),
        ];
        for (name, call) in &calls {
            let e = call(&mut out.as_slice_mut()).unwrap_err();
            assert!(
                matches!(e, Error::Unsupported { .. }),
                "{target} {name}: {e}"
            );
            let text = e.to_string();
            assert!(
                text.contains("gfx"),
                "{target} {name}: {text} does not name the device"
            );
        }
        assert_eq!(
            out.to_vec().unwrap(),
            vec![5.0; 9],
            "{target}: output written"
        );
    }
}

// ---------------------------------------------------------------------------------
// gbmv.

/// gbmv against the reference: the band (kl sub-, ku super-diagonals) in band storage
/// with NaN in its unused corners and padding, which must not be read; every trans,
/// increments, α/β cases (β = 0 over NaN y). Tolerance: each output is a k-term dot
/// (k = n for N, m for T/C) plus the α and β scalings: (k + 2)·ε·(|α|·Σ|a||x| + |β||y|).
#[allow(clippy::too_many_arguments)]
fn check_gbmv<T: Scalar>(
    dev: &Device,
    trans: Transpose,
    (m, n, kl, ku): (usize, usize, usize, usize),
    pad: usize,
    (incx, incy): (isize, isize),
    (ca, cb): (u8, u8),
    seed: u64,
) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (alpha, beta): (T, T) = (coef(ca, &mut r), coef(cb, &mut r));
    let lda = kl + ku + 1 + pad;
    let held = |i: usize, j: usize| i + ku >= j && i <= j + kl;
    let mut a: Vec<T> = vec![nan(); (lda * n).max(1)];
    for j in 0..n {
        for i in 0..m {
            if held(i, j) {
                a[ku + i - j + j * lda] = random(&mut r);
            }
        }
    }
    let (lx, ly) = if trans == Transpose::N {
        (n, m)
    } else {
        (m, n)
    };
    let x: Vec<T> = strided(&mut r, lx, incx);
    let mut y0: Vec<T> = strided(&mut r, ly, incy);
    if beta == T::zero() {
        y0.iter_mut().for_each(|v| *v = nan());
    }
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y0).unwrap();
    let what = format!(
        "{}gbmv {trans:?} {m}x{n} kl {kl} ku {ku} lda {lda} inc {incx},{incy} coefs {ca}{cb}",
        T::PREFIX
    );
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
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let got: Vec<T> = yd.to_vec().unwrap();
    let xl = logical(&x, lx, incx);
    // op(A)(i, j).
    let el = |i: usize, j: usize| -> Complex64 {
        let (r, c) = if trans == Transpose::N {
            (i, j)
        } else {
            (j, i)
        };
        if !held(r, c) {
            return Complex64::new(0.0, 0.0);
        }
        let v = to_c64(a[ku + r - c + c * lda]);
        if trans == Transpose::C {
            v.conj()
        } else {
            v
        }
    };
    let (al, be) = (to_c64(alpha), to_c64(beta));
    let quick = m == 0 || n == 0 || (alpha == T::zero() && beta == T::one());
    for i in 0..ly {
        let yi = vector_index(i, ly, incy);
        let y_old = to_c64(y0[yi]);
        if quick {
            assert!(
                same(got[yi], y0[yi]),
                "{what}: y[{i}] changed on a quick return"
            );
            continue;
        }
        let (mut s, mut mag) = (Complex64::new(0.0, 0.0), 0.0);
        if alpha != T::zero() {
            for (j, xj) in xl.iter().enumerate() {
                s += el(i, j) * xj;
                mag += el(i, j).norm() * xj.norm();
            }
        }
        let (mut want, mut mag) = (al * s, al.norm() * mag);
        if beta != T::zero() {
            want += be * y_old;
            mag += be.norm() * y_old.norm();
        }
        assert_close(
            got[yi],
            want,
            mag,
            lx as f64 + 2.0,
            &format!("{what} y[{i}]"),
        );
    }
    for q in 0..got.len() {
        if q % incy.unsigned_abs() != 0 {
            assert!(
                same(got[q], y0[q]),
                "{what}: y storage {q} outside the vector changed"
            );
        }
    }
}

fn gbmv_cases<T: Scalar>(dev: &Device, seed: u64) {
    let mut s = seed;
    let shapes = [
        (0, 5, 1, 1),
        (1, 1, 0, 0),
        (7, 31, 0, 2),
        (33, 7, 3, 0),
        (67, 131, 5, 9),
        (257, 67, 40, 1),
        (131, 131, 130, 130),
    ];
    for trans in Transpose::ALL {
        for (k, &shape) in shapes.iter().enumerate() {
            for coefs in [(2, 0), (2, 2), (0, 2), (1, 1)] {
                s += 1;
                let incs = (INCS[(k + 1) % 4], INCS[(k + s as usize) % 4]);
                check_gbmv::<T>(dev, trans, shape, k % 3, incs, coefs, s);
            }
        }
    }
}
