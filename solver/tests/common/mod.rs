//! Test matrices (random, ill-conditioned, rank-deficient, special) and helpers.

#![allow(dead_code)]

use num_complex::Complex64;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rocm_solver::reference::Wide;
use rocm_solver::{BlockSizes, Scalar, Solver};

/// Tiny blocks, so the blocked paths (panels, TRSM/HERK/GEMM updates, recursion) run on
/// small matrices; `small = 0` keeps the whole-matrix unblocked shortcut off.
pub const TINY: BlockSizes = BlockSizes {
    getrf: 8,
    potrf: 6,
    getri: 5,
    geqrf: 4,
    sytrd: 3,
    gebrd: 3,
    unblocked: 3,
    small: 0,
};

pub fn solvers() -> Vec<(&'static str, Solver)> {
    let dev = rocm_core::Device::cpu();
    vec![
        ("blocked-tiny", Solver::new(&dev).with_block_sizes(TINY)),
        ("cpu-table", Solver::new(&dev)),
    ]
}

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

fn entry(rng: &mut StdRng, complex: bool) -> Complex64 {
    let re = rng.random_range(-1.0..1.0);
    let im = if complex {
        rng.random_range(-1.0..1.0)
    } else {
        0.0
    };
    Complex64::new(re, im)
}

pub fn random(rng: &mut StdRng, m: usize, n: usize, complex: bool) -> Wide {
    let mut w = Wide::zeros(m, n);
    w.data.iter_mut().for_each(|x| *x = entry(rng, complex));
    w
}

/// A random Householder reflector I − 2·v·vᴴ/(vᴴ·v) (unitary).
pub fn reflector(rng: &mut StdRng, n: usize, complex: bool) -> Wide {
    let v = random(rng, n, 1, complex);
    let vv: f64 = v.data.iter().map(|x| x.norm_sqr()).sum();
    let mut h = Wide::identity(n);
    for j in 0..n {
        for i in 0..n {
            let d = h.at(i, j) - v.data[i] * v.data[j].conj() * (2.0 / vv.max(1e-300));
            h.set(i, j, d);
        }
    }
    h
}

/// Singular values spread geometrically from 1 to 1/cond between two products of
/// reflectors: condition number `cond` (in the 2-norm).
pub fn ill_conditioned(rng: &mut StdRng, n: usize, cond: f64, complex: bool) -> Wide {
    let q1 = reflector(rng, n, complex).mul(&reflector(rng, n, complex));
    let q2 = reflector(rng, n, complex).mul(&reflector(rng, n, complex));
    let mut s = Wide::zeros(n, n);
    for i in 0..n {
        let t = if n > 1 {
            i as f64 / (n - 1) as f64
        } else {
            0.0
        };
        s.set(i, i, Complex64::new(cond.powf(-t), 0.0));
    }
    q1.mul(&s).mul(&q2)
}

/// Rank `r` (< min(m, n)): a product of m×r and r×n random factors.
pub fn rank_deficient(rng: &mut StdRng, m: usize, n: usize, r: usize, complex: bool) -> Wide {
    random(rng, m, r, complex).mul(&random(rng, r, n, complex))
}

/// Random Hermitian positive definite with eigenvalues in [1/cond, 1].
pub fn spd(rng: &mut StdRng, n: usize, cond: f64, complex: bool) -> Wide {
    let q = reflector(rng, n, complex).mul(&reflector(rng, n, complex));
    let mut s = Wide::zeros(n, n);
    for i in 0..n {
        let t = if n > 1 {
            i as f64 / (n - 1) as f64
        } else {
            0.0
        };
        s.set(i, i, Complex64::new(cond.powf(-t), 0.0));
    }
    let a = q.mul(&s).mul(&q.adjoint());
    a.hermitian_from(true)
}

/// L·D·Lᴴ with unit lower random L and D = 1 except D[k] = −1: leading minors of order
/// ≤ k are positive, the one of order k + 1 is negative (POTRF's info must be k + 1).
pub fn indefinite_at(rng: &mut StdRng, n: usize, k: usize, complex: bool) -> Wide {
    let mut l = random(rng, n, n, complex).triangle(true, true);
    for j in 0..n {
        for i in j + 1..n {
            let v = l.at(i, j) * 0.3;
            l.set(i, j, v);
        }
    }
    let mut d = Wide::identity(n);
    d.set(k, k, Complex64::new(-1.0, 0.0));
    l.mul(&d).mul(&l.adjoint()).hermitian_from(true)
}

/// The m×n matrix stored with leading dimension `ld` (padding filled with NaN-free junk
/// that must not be read into results).
pub fn store<T: Scalar>(w: &Wide, ld: usize) -> Vec<T> {
    let cols = w.cols;
    let mut v = vec![T::from_parts(real::<T>(7.5), real::<T>(-3.25)); (ld * cols).max(1)];
    for j in 0..cols {
        for i in 0..w.rows {
            let x = w.at(i, j);
            v[i + j * ld] = T::from_parts(real::<T>(x.re), real::<T>(x.im));
        }
    }
    v
}

pub fn real<T: Scalar>(x: f64) -> T::Real {
    <T::Real as num_traits::NumCast>::from(x).unwrap_or_else(num_traits::Zero::zero)
}

/// Pivots (1-based i32) as 0-based.
pub fn zero_based(ipiv: &[i32]) -> Vec<usize> {
    ipiv.iter().map(|&p| p as usize - 1).collect()
}

/// LAPACK's pass threshold for test ratios.
pub const THRESHOLD: f64 = 30.0;

/// U·Σ·Vᴴ (m×n) with U, V products of two random reflectors and Σ = diag(`sigma`)
/// (min(m, n) values): the singular values are exactly known.
pub fn with_singular_values(
    rng: &mut StdRng,
    m: usize,
    n: usize,
    sigma: &[f64],
    complex: bool,
) -> Wide {
    let u = reflector(rng, m, complex).mul(&reflector(rng, m, complex));
    let v = reflector(rng, n, complex).mul(&reflector(rng, n, complex));
    u.mul(&Wide::diagonal(m, n, sigma)).mul(&v.adjoint())
}

/// k values spread geometrically from 1 down to 1/cond.
pub fn geometric(k: usize, cond: f64) -> Vec<f64> {
    (0..k)
        .map(|i| {
            let t = if k > 1 {
                i as f64 / (k - 1) as f64
            } else {
                0.0
            };
            cond.powf(-t)
        })
        .collect()
}

/// Condition numbers of the ill-conditioned cases: 1e6 for double precision, 1e3 for
/// single (whose ε is 1.2e-7).
pub fn cond_for<T: Scalar>() -> f64 {
    if rocm_solver::reference::eps::<T>() < 1e-10 {
        1e6
    } else {
        1e3
    }
}

/// The matrix stored in `buf` (leading dimension `ld`) as Wide.
pub fn wide<T: Scalar>(
    buf: &rocm_core::DeviceBuffer<T>,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Wide {
    Wide::from(&buf.to_vec().unwrap(), rows, cols, ld)
}

/// op(A) for a Wide matrix.
pub fn op(a: &Wide, trans: rocm_solver::Transpose) -> Wide {
    match trans {
        rocm_solver::Transpose::N => a.clone(),
        rocm_solver::Transpose::T => a.transpose(),
        rocm_solver::Transpose::C => a.adjoint(),
    }
}

/// The transposes a Q or solver takes for `T`: N and C, plus T for real types.
pub fn q_ops<T: Scalar>() -> Vec<rocm_solver::Transpose> {
    use rocm_solver::Transpose;
    if T::IS_COMPLEX {
        vec![Transpose::N, Transpose::C]
    } else {
        vec![Transpose::N, Transpose::T, Transpose::C]
    }
}
