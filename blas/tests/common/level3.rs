//! Level 3 checks on one device against `rocm_blas::reference` (shared by the CPU
//! property tests in `level3.rs` and the GPU tests in `level3_gpu.rs`).
//!
//! Tolerances (ε the dtype's epsilon, × 4 for complex arithmetic):
//! - trmm, symm/hemm, syrk/herk, syr2k/her2k: each element is a k-term (ka-term) dot
//!   product (two for rank-2k) plus two scalings: (k + 2)·ε·(Σ|terms| + |β||c|), in any
//!   order of summation (the blocked CPU and GPU forms sum in different orders).
//! - trsm: checked by residual, op(A)·X − α·B (or X·op(A) − α·B). A triangular solve is
//!   componentwise backward stable, |ΔT| <= γ_ka·|T|, and the blocked form adds GEMM
//!   updates of the same order, so |residual| <= κ·(ka + 4)·ε·(|op(A)||X| + |αB|) with
//!   κ = 1 for substitution. The GPU solves its diagonal blocks by multiplying with
//!   computed inverses, whose residual carries the blocks' condition number: for the
//!   diagonally dominant test matrices (|a_ii| ≥ 2, |a_ij| ≤ 1/ka, so every block's
//!   ∞-norm condition number is at most (2 + 1)/(2 − 1) = 3) the GPU tests pass κ = 3.

use super::*;
use rocm_blas::{reference, Blas, Diag, Real, Scalar, Side, Transpose, Uplo};
use rocm_core::Device;

#[derive(Debug, Clone, Copy)]
pub enum Coef {
    Zero,
    One,
    Random,
}

pub fn coef<T: Scalar>(c: Coef, r: &mut Rng64) -> T {
    match c {
        Coef::Zero => T::zero(),
        Coef::One => T::one(),
        Coef::Random => random(r),
    }
}

pub fn nan<T: Scalar>() -> T {
    T::from_real(num_traits::Float::nan())
}

/// A ka×ka triangular matrix (both triangles filled, so reading the wrong one shows):
/// off-diagonal entries of size <= 1/ka, diagonal entries of modulus >= 2 — diagonally
/// dominant, so well conditioned.
pub fn triangular<T: Scalar>(r: &mut Rng64, ka: usize, lda: usize) -> Vec<T> {
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

pub fn check_untouched<T: Scalar>(got: &[T], orig: &[T], keep: impl Fn(usize) -> bool, what: &str) {
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
pub fn check_tri<T: Scalar>(
    dev: &Device,
    kappa: f64,
    solve: bool,
    (side, uplo, trans, diag): (Side, Uplo, Transpose, Diag),
    (m, n): (usize, usize),
    (pa, pb): (usize, usize),
    ca: Coef,
    seed: u64,
) {
    let blas = Blas::new(dev);
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
                    kappa * (ka + 4) as f64,
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
pub fn check_rank_k<T: Scalar>(
    dev: &Device,
    two: bool,
    hermitian: bool,
    uplo: Uplo,
    trans: Transpose,
    (n, k): (usize, usize),
    (pa, pc): (usize, usize),
    (ca, cb): (Coef, Coef),
    seed: u64,
) {
    let blas = Blas::new(dev);
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
pub fn check_symm<T: Scalar>(
    dev: &Device,
    hermitian: bool,
    side: Side,
    uplo: Uplo,
    (m, n): (usize, usize),
    (pa, pb, pc): (usize, usize, usize),
    (ca, cb): (Coef, Coef),
    seed: u64,
) {
    let blas = Blas::new(dev);
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

/// trtri on `dev` by residual T·X − I (tolerance: see `extension.rs`'s module docs:
/// (n + 4)·κ·ε·(|T||X|)ᵢⱼ, κ = 1 on the CPU, 3 on GPUs); elements outside the written
/// triangle must be untouched.
pub fn check_trtri<T: Scalar>(
    dev: &Device,
    kappa: f64,
    (uplo, diag): (Uplo, Diag),
    n: usize,
    (pa, pi): (usize, usize),
    seed: u64,
) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (lda, ldi) = (n.max(1) + pa, n.max(1) + pi);
    let mut a: Vec<T> = random_vec(&mut r, lda * n.max(1));
    let shrink = T::from_real(real(1.0 / n.max(1) as f64));
    for j in 0..n {
        for i in 0..n {
            let v = a[i + j * lda];
            a[i + j * lda] = if i == j {
                T::from_parts(real(2.0 + v.re().as_f64().abs()), v.im())
            } else {
                v * shrink
            };
        }
    }
    let inv0: Vec<T> = random_vec(&mut r, ldi * n.max(1));
    let ad = dev.upload(&a).unwrap();
    let mut id = dev.upload(&inv0).unwrap();
    blas.trtri(
        uplo,
        diag,
        n,
        &ad.as_slice(),
        lda,
        &mut id.as_slice_mut(),
        ldi,
    )
    .unwrap();
    let got = id.to_vec().unwrap();
    let what = format!("{}trtri {uplo:?} {diag:?} n={n}", T::PREFIX);
    for q in 0..got.len() {
        let (i, j) = (q % ldi, q / ldi);
        let written = i < n && j < n && uplo.contains(i, j) && !(i == j && diag == Diag::Unit);
        if !written {
            assert_eq!(got[q], inv0[q], "{what}: wrote ({i},{j})");
        }
    }
    // X as a dense triangular matrix (unit diagonal filled in), then T·X against I.
    let mut x = vec![T::zero(); n * n];
    for j in 0..n {
        for i in 0..n {
            x[i + j * n] = reference::tri_at(uplo, diag, &got, ldi, i, j);
        }
    }
    let (tx, mag) = reference::trmm(
        Side::Left,
        uplo,
        Transpose::N,
        diag,
        n,
        n,
        T::one(),
        &a,
        lda,
        &x,
        n.max(1),
    );
    for j in 0..n {
        for i in 0..n {
            let id = if i == j { T::one() } else { T::zero() };
            assert_close(
                T::narrow(tx[i + j * n]),
                id.widen(),
                mag[i + j * n],
                kappa * (n + 4) as f64,
                &format!("{what} ({i},{j})"),
            );
        }
    }
}
