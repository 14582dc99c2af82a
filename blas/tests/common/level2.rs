//! Level 2 checks on one device against an f64 reference loop (shared by the CUDA tests
//! in `level2_gpu.rs` and the emulated AMD tests in `level2_emu.rs`).
//!
//! The rank updates, symmetric/triangular products and solves and gbmv (moved from
//! `level2_more_gpu.rs`, whose module doc states their tolerances) follow gemv.
//!
//! gemv tolerance: each output is a k-term dot (k = n for N, m for T/C) summed in a
//! fixed order plus the α and β scalings, so |error| ≤ (k + 2)·u·(|α|·Σ|a||x| + |β||y|)
//! (γ_{k+2}, first order; complex ×4 via `assert_close`).

use super::*;
use num_complex::Complex64;
use rocm_blas::check::{vector_extent, vector_index};
use rocm_blas::reference::to_c64;
use rocm_blas::{Blas, Diag, Scalar, Transpose, Uplo};
use rocm_core::Device;
use rocm_kernels::level2::gemv::GemvTuning;

#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub trans: Transpose,
    pub m: usize,
    pub n: usize,
    pub pad: usize,
    pub incx: isize,
    pub incy: isize,
    /// 0: α random, β = 0 (NaN in y); 1: both random; 2: α = 0, β random.
    pub coefs: u8,
    pub offset: usize,
}

pub fn len_of(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        1 + (n - 1) * inc.unsigned_abs()
    }
}

/// Index of logical element i of a vector of n at `inc` (BLAS: negative walks backwards).
pub fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

pub fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    check_tuned::<T>(dev, c, seed, GemvTuning::default())
}

pub fn check_tuned<T: Scalar>(dev: &Device, c: Case, seed: u64, tuning: GemvTuning) {
    // A wide load is at most 16 bytes: the tunings name the f32 width, narrower types'
    // widths are capped (f64 at 2, Complex64 at 1).
    let widest = (16 / std::mem::size_of::<T>()).max(1) as u32;
    let tuning = GemvTuning {
        vector: tuning.vector.map(|v| v.min(widest)),
        ..tuning
    };
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (m, n) = (c.m, c.n);
    let lda = m.max(1) + c.pad;
    let (lx, ly) = match c.trans {
        Transpose::N => (n, m),
        _ => (m, n),
    };
    let off = c.offset;
    let mut a: Vec<T> = random_vec(&mut r, off + lda * n);
    if c.coefs == 2 && a.len() > off {
        // α = 0 must not read A: NaN there must not reach y.
        a[off] = T::from_real(num_traits::Float::nan());
    }
    let x: Vec<T> = random_vec(&mut r, off + len_of(lx, c.incx));
    let mut y0: Vec<T> = random_vec(&mut r, off + len_of(ly, c.incy));
    let alpha: T = if c.coefs == 2 {
        T::zero()
    } else {
        random(&mut r)
    };
    let beta: T = if c.coefs == 0 {
        T::zero()
    } else {
        random(&mut r)
    };
    if c.coefs == 0 {
        y0.iter_mut()
            .for_each(|v| *v = T::from_real(num_traits::Float::nan()));
    }
    let what = format!("{}gemv {c:?} {tuning:?}", T::PREFIX);
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y0).unwrap();
    {
        let (av, xv) = (ad.slice(off..).unwrap(), xd.slice(off..).unwrap());
        let mut yv = yd.slice_mut(off..).unwrap();
        blas.gemv_tuned(
            c.trans, m, n, alpha, &av, lda, &xv, c.incx, beta, &mut yv, c.incy, tuning,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let got: Vec<T> = yd.to_vec().unwrap();
    let (al, be) = (to_c64(alpha), to_c64(beta));
    let quick = m == 0 || n == 0 || (alpha == T::zero() && beta == T::one());
    for i in 0..ly {
        let yi = off + at(i, ly, c.incy);
        let (mut s, mut mag) = (Complex64::new(0.0, 0.0), 0.0);
        for k in 0..lx {
            let (row, col) = match c.trans {
                Transpose::N => (i, k),
                _ => (k, i),
            };
            let mut av = to_c64(a[off + row + col * lda]);
            if c.trans == Transpose::C {
                av = av.conj();
            }
            let xv = to_c64(x[off + at(k, lx, c.incx)]);
            s += av * xv;
            mag += av.norm() * xv.norm();
        }
        let (want, mag) = if quick {
            (to_c64(y0[yi]), 0.0)
        } else if alpha == T::zero() {
            let yv = to_c64(y0[yi]);
            (be * yv, be.norm() * yv.norm())
        } else if beta == T::zero() {
            (al * s, al.norm() * mag)
        } else {
            let yv = to_c64(y0[yi]);
            (al * s + be * yv, al.norm() * mag + be.norm() * yv.norm())
        };
        if quick {
            // A quick return leaves y as it was (NaN included), bit for bit.
            assert!(
                same(got[yi], y0[yi]),
                "{what}: y[{i}] changed on a quick return"
            );
            continue;
        }
        assert_close(
            got[yi],
            want,
            mag,
            (lx + 2) as f64,
            &format!("{what} y[{i}]"),
        );
    }
    // Elements between the strided entries are untouched.
    for (j, (g, w)) in got.iter().zip(&y0).enumerate() {
        let on = j >= off && (j - off) % c.incy.unsigned_abs() == 0;
        if !on {
            assert!(
                to_c64(*g) == to_c64(*w) || (to_c64(*g).re.is_nan() && to_c64(*w).re.is_nan()),
                "{what}: y storage {j} outside the vector changed"
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// Beyond gemv (shared by `level2_more_gpu.rs` and `level2_emu.rs`).

pub const SIZES: [usize; 9] = [0, 1, 2, 7, 31, 33, 67, 131, 257];
pub const INCS: [isize; 4] = [1, -1, 3, -3];

pub fn nan<T: Scalar>() -> T {
    T::from_real(num_traits::Float::nan())
}

pub fn same<T: Scalar>(a: T, b: T) -> bool {
    a == b || (a.has_nan() && b.has_nan())
}

/// A strided vector of n random values (at least one element of storage).
pub fn strided<T: Scalar>(r: &mut Rng64, n: usize, inc: isize) -> Vec<T> {
    random_vec(r, vector_extent(n, inc).max(1))
}

pub fn logical<T: Scalar>(v: &[T], n: usize, inc: isize) -> Vec<Complex64> {
    (0..n).map(|i| to_c64(v[vector_index(i, n, inc)])).collect()
}

/// Where the matrix lives: dense at lda, packed, or band (lda, k off-diagonals).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Store {
    Dense(usize),
    Packed,
    Band(usize, usize),
}

impl Store {
    pub fn len(self, n: usize) -> usize {
        match self {
            Store::Dense(lda) | Store::Band(lda, _) => (lda * n).max(1),
            Store::Packed => (n * (n + 1) / 2).max(1),
        }
    }
    /// Storage index of (i, j) of the `uplo` triangle (any (i, j) when dense).
    pub fn index(self, uplo: Uplo, n: usize, i: usize, j: usize) -> usize {
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
    pub fn holds(self, uplo: Uplo, i: usize, j: usize) -> bool {
        uplo.contains(i, j)
            && match self {
                Store::Band(_, k) => i.abs_diff(j) <= k,
                _ => true,
            }
    }
}

/// Bandwidth of band case `c`: the diagonal alone, narrow, and wider than most sizes.
pub fn bandwidth(c: usize) -> usize {
    [0, 1, 5, 40][c % 4]
}

/// Coefficient choices: 0 → zero, 1 → one, else random.
pub fn coef<T: Scalar>(c: u8, r: &mut Rng64) -> T {
    match c {
        0 => T::zero(),
        1 => T::one(),
        _ => random(r),
    }
}

// ---------------------------------------------------------------------------------
// Rank updates.

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RankRoutine {
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

pub use RankRoutine as R;

pub const RANK_ROUTINES: [RankRoutine; 10] = [
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
    pub fn traits(self) -> (bool, bool, bool, bool, bool) {
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
pub fn check_rank<T: Scalar>(
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

pub fn rank_cases<T: Scalar>(dev: &Device, seed: u64) {
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
pub enum SymRoutine {
    Symv,
    Hemv,
    Spmv,
    Hpmv,
    Sbmv,
    Hbmv,
}

#[allow(clippy::too_many_arguments)]
pub fn check_sym<T: Scalar>(
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

pub fn sym_cases<T: Scalar>(dev: &Device, seed: u64) {
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
pub enum TriRoutine {
    Trmv,
    Tpmv,
    Tbmv,
    Trsv,
    Tpsv,
    Tbsv,
}

#[allow(clippy::too_many_arguments)]
pub fn check_tri<T: Scalar>(
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
    check_tri_stored::<T>(dev, routine, store, (uplo, trans, diag), n, incx, seed)
}

/// [`check_tri`] with the storage given (a band's k and lda chosen by the caller).
pub fn check_tri_stored<T: Scalar>(
    dev: &Device,
    routine: TriRoutine,
    store: Store,
    (uplo, trans, diag): (Uplo, Transpose, Diag),
    n: usize,
    incx: isize,
    seed: u64,
) {
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

pub fn tri_cases<T: Scalar>(dev: &Device, seed: u64, sizes: &[usize]) {
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

pub fn all_cases<T: Scalar>(dev: &Device, seed: u64) {
    rank_cases::<T>(dev, seed);
    sym_cases::<T>(dev, seed + 10_000);
    tri_cases::<T>(dev, seed + 20_000, &SIZES);
    gbmv_cases::<T>(dev, seed + 30_000);
}

// ---------------------------------------------------------------------------------
// gbmv.

/// gbmv against the reference: the band (kl sub-, ku super-diagonals) in band storage
/// with NaN in its unused corners and padding, which must not be read; every trans,
/// increments, α/β cases (β = 0 over NaN y). Tolerance: each output is a k-term dot
/// (k = n for N, m for T/C) plus the α and β scalings: (k + 2)·ε·(|α|·Σ|a||x| + |β||y|).
#[allow(clippy::too_many_arguments)]
pub fn check_gbmv<T: Scalar>(
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

pub fn gbmv_cases<T: Scalar>(dev: &Device, seed: u64) {
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
