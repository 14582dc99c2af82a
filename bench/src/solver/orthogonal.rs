//! The orthogonal-factorisation routines of `rocm-bench solver`: geqrf, gelqf, gels,
//! syevd, gesvd.
//!
//! Inputs: random matrices for geqrf and gelqf (n×n) and gels (a 2n×n least-squares
//! problem, one right-hand side); for syevd and gesvd, matrices with a known spectrum
//! (H₁·H₂·D·H₂·H₁ and H₁·Σ·H₂, H random Householder reflectors), so that a values-only
//! run has a ratio too. Ratios (LAPACK's, below 30 passes), of the first problem:
//! - geqrf / gelqf: ‖A − Q·R‖ / (n·‖A‖·ε), ‖A − L·Q‖ / (n·‖A‖·ε) with Q from ORGQR/ORGLQ;
//! - gels: ‖Aᴴ·(B − A·X)‖ / (m·‖A‖·(‖A‖·‖X‖ + ‖B‖)·ε) (xQRT17);
//! - syevd: ‖A − Z·Λ·Zᴴ‖ / (n·‖A‖·ε) with vectors, else max|λ − λ_exact| / (n·‖A‖·ε);
//! - gesvd: ‖A − U·Σ·Vᴴ‖ / (n·‖A‖·ε) with (thin) vectors, else max|σ − σ_exact| /
//!   (n·‖A‖·ε).
//!
//! Operation counts are LAPACK's for the reductions and back-transformations (real
//! flops, ×4 for complex); the eigen- and singular value iterations, whose cost depends
//! on the data, are not counted.

use super::{cast, norm1, random, Routine, SolverArgs};
use rocm_blas::Blas;
use rocm_core::linalg::{Transpose, Uplo};
use rocm_core::scalar::Scalar;
use rocm_core::{Device, Result as CoreResult};
use rocm_solver::{Evect, Real, Solver, Svect};
use std::time::Instant;

/// Whether `r` runs here.
pub(super) fn handles(r: Routine) -> bool {
    matches!(
        r,
        Routine::Geqrf | Routine::Gelqf | Routine::Gels | Routine::Syevd | Routine::Gesvd
    )
}

/// Real flops of `r` at order n (gels: the 2n×n problem, one right-hand side).
pub(super) fn flops(r: Routine, n: usize, vectors: bool) -> f64 {
    let n = n as f64;
    let v = if vectors { 1.0 } else { 0.0 };
    match r {
        // 2·m·n² − 2n³/3 with m = n.
        Routine::Geqrf | Routine::Gelqf => 4.0 / 3.0 * n * n * n,
        // GEQRF of 2n×n, ORMQR (4·m·n − 2n²) and TRSM (n²) for one right-hand side.
        Routine::Gels => 10.0 / 3.0 * n * n * n + 7.0 * n * n,
        // SYTRD 4n³/3; ORMTR 2n³.
        Routine::Syevd => 4.0 / 3.0 * n * n * n + v * 2.0 * n * n * n,
        // GEBRD 8n³/3; the two back-transformations 2n³ each.
        Routine::Gesvd => 8.0 / 3.0 * n * n * n + v * 4.0 * n * n * n,
        _ => 0.0,
    }
}

/// C = op(A)·op(B) (m×n, k inner) through rocm-blas; A and B column-major with the given
/// leading dimensions.
#[allow(clippy::too_many_arguments)]
fn product<T: Scalar>(
    blas: &Blas,
    (ta, tb): (Transpose, Transpose),
    (m, n, k): (usize, usize, usize),
    a: &[T],
    lda: usize,
    b: &[T],
    ldb: usize,
) -> CoreResult<Vec<T>> {
    let dev = blas.device();
    let (ab, bb) = (dev.upload(a)?, dev.upload(b)?);
    let mut c = dev.alloc::<T>((m * n).max(1))?;
    blas.gemm(
        ta,
        tb,
        m,
        n,
        k,
        T::one(),
        &ab.as_slice(),
        lda.max(1),
        &bb.as_slice(),
        ldb.max(1),
        T::zero(),
        &mut c.as_slice_mut(),
        m.max(1),
    )?;
    c.to_vec()
}

/// ‖A − B‖₁ for two m×n column-major matrices (ld = m).
fn diff_norm<T: Scalar>(a: &[T], b: &[T], m: usize, n: usize) -> f64 {
    let d: Vec<T> = a.iter().zip(b).map(|(&x, &y)| x - y).collect();
    norm1(&d, m, n)
}

/// Applies H = I − 2·v·vᴴ/(vᴴ·v) to the n×n M from the left (`left`) or the right.
fn reflect<T: Scalar>(m: &mut [T], n: usize, v: &[T], left: bool) {
    let vv: T::Real = v.iter().map(|x| (x.conj() * *x).re()).sum();
    let f = T::from_real(cast::<T>(2.0) / vv);
    if left {
        for j in 0..n {
            let col = &mut m[j * n..(j + 1) * n];
            let w: T = v.iter().zip(col.iter()).map(|(&x, &y)| x.conj() * y).sum();
            col.iter_mut().zip(v).for_each(|(c, &x)| *c -= f * x * w);
        }
    } else {
        let mut w = vec![T::zero(); n];
        for (j, &vj) in v.iter().enumerate() {
            for (i, wi) in w.iter_mut().enumerate() {
                *wi += m[i + j * n] * vj;
            }
        }
        for (j, &vj) in v.iter().enumerate() {
            for i in 0..n {
                m[i + j * n] -= f * w[i] * vj.conj();
            }
        }
    }
}

/// An n×n matrix with a known spectrum and the spectrum: Hermitian H₁·H₂·D·H₂·H₁ with
/// eigenvalues evenly spread in [−1, 1] (`hermitian`), or H₁·Σ·H₂ with singular values
/// evenly spread in [1/n, 1] (descending).
fn with_spectrum<T: Scalar>(n: usize, seed: u64, hermitian: bool) -> (Vec<T>, Vec<f64>) {
    let vals: Vec<f64> = (0..n)
        .map(|i| {
            let t = if n > 1 {
                i as f64 / (n - 1) as f64
            } else {
                0.0
            };
            if hermitian {
                -1.0 + 2.0 * t
            } else {
                1.0 - t * (1.0 - 1.0 / n as f64)
            }
        })
        .collect();
    let mut m = vec![T::zero(); n * n];
    for (i, &x) in vals.iter().enumerate() {
        m[i + i * n] = T::from_real(cast::<T>(x));
    }
    let v1 = random::<T>(n, seed);
    let v2 = random::<T>(n, seed + 1);
    if n > 0 {
        if hermitian {
            for v in [&v2, &v1] {
                reflect(&mut m, n, v, true);
                reflect(&mut m, n, v, false);
            }
            // Exactly Hermitian in T.
            for j in 0..n {
                for i in j..n {
                    let x = (m[i + j * n] + m[j + i * n].conj()) * T::from_real(cast::<T>(0.5));
                    m[i + j * n] = x;
                    m[j + i * n] = x.conj();
                }
                m[j + j * n] = T::from_real(m[j + j * n].re());
            }
        } else {
            reflect(&mut m, n, &v1, true);
            reflect(&mut m, n, &v2, false);
        }
    }
    (m, vals)
}

/// max |x_i − y_i| / (n·‖A‖·ε).
fn values_ratio<T: Scalar>(x: &[f64], y: &[f64], n: usize, anorm: f64) -> f64 {
    let d = crate::report::nan_max(x.iter().zip(y).map(|(a, b)| (a - b).abs()));
    d / (n.max(1) as f64 * anorm * T::eps().as_f64())
}

/// The outputs of the last timed call.
#[derive(Default)]
struct Outputs<T: Scalar> {
    a: Vec<T>,
    tau: Vec<T>,
    b: Vec<T>,
    w: Vec<T::Real>,
    u: Vec<T>,
    vt: Vec<T>,
}

pub(super) fn run<T: Scalar>(args: &SolverArgs) -> Result<(), Box<dyn std::error::Error>> {
    let dev = Device::open(&args.device)?;
    let solver = Solver::new(&dev);
    let blas = Blas::new(&dev);
    let (n, r) = (args.n, args.routine);
    let batch = args.batch.unwrap_or(1);
    if args.batch.is_some() && !matches!(r, Routine::Geqrf | Routine::Gels) {
        return Err("--batch is supported for getrf, potrf, geqrf and gels".into());
    }
    let m = if r == Routine::Gels {
        n.checked_mul(2)
            .ok_or_else(|| rocm_core::Error::invalid("-n", "2n rows overflow"))?
    } else {
        n
    };
    let stride = rocm_core::host_alloc::elements("-n: m * n", &[m, n])?;
    let total = rocm_core::host_alloc::elements("-n and --batch: m * n * batch", &[stride, batch])?;
    let mut a = rocm_core::host_alloc::try_with_capacity::<T>("A", total)?;
    let mut exact = Vec::new();
    for i in 0..batch {
        let seed = 1 + i as u64 % 7;
        match r {
            Routine::Syevd | Routine::Gesvd => {
                let (mat, vals) = with_spectrum::<T>(n, seed, r == Routine::Syevd);
                a.extend(mat);
                if i == 0 {
                    exact = vals;
                }
            }
            _ => a.extend(random::<T>(stride, seed)),
        }
    }
    let rhs = random::<T>(m * batch, 99);
    let evect = if args.vectors {
        Evect::Original
    } else {
        Evect::None
    };
    let svect = if args.vectors {
        Svect::Singular
    } else {
        Svect::None
    };
    let k = m.min(n);
    let mut times = Vec::new();
    let mut infos = Vec::new();
    let mut out = Outputs::<T>::default();
    for _ in 0..args.iters.max(1) {
        let mut ab = dev.upload(&a)?;
        let mut tau = dev.alloc::<T>(k.max(1) * batch)?;
        let mut b = dev.upload(&rhs)?;
        let mut w = dev.alloc::<T::Real>(n.max(1))?;
        let vec_len = if args.vectors { (n * n).max(1) } else { 1 };
        let mut u = dev.alloc::<T>(vec_len)?;
        let mut vt = dev.alloc::<T>(vec_len)?;
        let ld_vec = if args.vectors { n.max(1) } else { 1 };
        let t0 = Instant::now();
        infos = match (r, args.batch) {
            (Routine::Geqrf, Some(_)) => {
                solver.geqrf_strided_batched(
                    m,
                    n,
                    &mut ab.as_slice_mut(),
                    m.max(1),
                    stride,
                    &mut tau.as_slice_mut(),
                    k,
                    batch,
                )?;
                Vec::new()
            }
            (Routine::Geqrf, None) => {
                solver.geqrf(
                    m,
                    n,
                    &mut ab.as_slice_mut(),
                    m.max(1),
                    &mut tau.as_slice_mut(),
                )?;
                Vec::new()
            }
            (Routine::Gelqf, _) => {
                solver.gelqf(
                    m,
                    n,
                    &mut ab.as_slice_mut(),
                    m.max(1),
                    &mut tau.as_slice_mut(),
                )?;
                Vec::new()
            }
            (Routine::Gels, Some(_)) => solver.gels_strided_batched(
                Transpose::N,
                m,
                n,
                1,
                &mut ab.as_slice_mut(),
                m.max(1),
                stride,
                &mut b.as_slice_mut(),
                m.max(1),
                m,
                batch,
            )?,
            (Routine::Gels, None) => vec![solver.gels(
                Transpose::N,
                m,
                n,
                1,
                &mut ab.as_slice_mut(),
                m.max(1),
                &mut b.as_slice_mut(),
                m.max(1),
            )?],
            (Routine::Syevd, _) => vec![solver.syevd(
                evect,
                Uplo::Lower,
                n,
                &mut ab.as_slice_mut(),
                n.max(1),
                &mut w.as_slice_mut(),
            )?],
            (Routine::Gesvd, _) => vec![solver.gesvd(
                svect,
                svect,
                n,
                n,
                &mut ab.as_slice_mut(),
                n.max(1),
                &mut w.as_slice_mut(),
                &mut u.as_slice_mut(),
                ld_vec,
                &mut vt.as_slice_mut(),
                ld_vec,
            )?],
            _ => return Err(format!("{r:?} is not an orthogonal routine").into()),
        };
        times.push(t0.elapsed().as_secs_f64());
        out = Outputs {
            a: ab.to_vec()?,
            tau: tau.to_vec()?,
            b: b.to_vec()?,
            w: w.to_vec()?,
            u: u.to_vec()?,
            vt: vt.to_vec()?,
        };
    }
    times.sort_by(f64::total_cmp);
    let t = times[times.len() / 2];
    let failed = infos.iter().filter(|i| !i.is_ok()).count();
    let ratio = ratio::<T>(&solver, &blas, args, &a[..stride], &rhs[..m], &exact, &out)?;
    let scale = if T::IS_COMPLEX { 4.0 } else { 1.0 };
    let gflops = scale * flops(r, n, args.vectors) * batch as f64 / t / 1e9;
    let mode = match r {
        Routine::Syevd | Routine::Gesvd if args.vectors => " vectors",
        Routine::Syevd | Routine::Gesvd => " values",
        _ => "",
    };
    super::report(args, batch, mode, &dev, t, gflops, ratio, failed)
}

/// The test ratio of the first problem (see the module docs).
fn ratio<T: Scalar>(
    solver: &Solver,
    blas: &Blas,
    args: &SolverArgs,
    a: &[T],
    b: &[T],
    exact: &[f64],
    out: &Outputs<T>,
) -> CoreResult<f64> {
    let (n, r) = (args.n, args.routine);
    let eps = T::eps().as_f64();
    let nf = n.max(1) as f64;
    let dev = solver.device();
    let (nn, z) = (n * n, T::zero());
    let anorm_n = norm1(a, n, n);
    let reals = |w: &[T::Real]| -> Vec<f64> { w[..n].iter().map(|x| x.as_f64()).collect() };
    Ok(match r {
        Routine::Geqrf | Routine::Gelqf => {
            let f = &out.a[..nn];
            let mut q = dev.upload(f)?;
            let tau = dev.upload(&out.tau[..n.max(1)])?;
            // The triangle (R upper or L lower) and the explicit Q.
            let upper = r == Routine::Geqrf;
            let mut tri = vec![z; nn];
            for j in 0..n {
                for i in 0..n {
                    if (upper && i <= j) || (!upper && i >= j) {
                        tri[i + j * n] = f[i + j * n];
                    }
                }
            }
            if upper {
                solver.orgqr(n, n, n, &mut q.as_slice_mut(), n.max(1), &tau.as_slice())?;
            } else {
                solver.orglq(n, n, n, &mut q.as_slice_mut(), n.max(1), &tau.as_slice())?;
            }
            let q = q.to_vec()?;
            let nt = (Transpose::N, Transpose::N);
            let prod = if upper {
                product(blas, nt, (n, n, n), &q, n, &tri, n)?
            } else {
                product(blas, nt, (n, n, n), &tri, n, &q, n)?
            };
            diff_norm(a, &prod, n, n) / (nf * anorm_n * eps)
        }
        Routine::Gels => {
            let m = 2 * n;
            let x = &out.b[..n];
            let ax = product(blas, (Transpose::N, Transpose::N), (m, 1, n), a, m, x, n)?;
            let resid: Vec<T> = b.iter().zip(&ax).map(|(&p, &q)| p - q).collect();
            let ar = product(
                blas,
                (Transpose::C, Transpose::N),
                (n, 1, m),
                a,
                m,
                &resid,
                m,
            )?;
            let an = norm1(a, m, n);
            norm1(&ar, n, 1) / (m as f64 * an * (an * norm1(x, n, 1) + norm1(b, m, 1)) * eps)
        }
        Routine::Syevd if args.vectors => {
            let w = reals(&out.w);
            let zv = &out.a[..nn];
            let mut zl = zv.to_vec();
            for j in 0..n {
                let s = T::from_real(cast::<T>(w[j]));
                zl[j * n..(j + 1) * n].iter_mut().for_each(|x| *x *= s);
            }
            let prod = product(blas, (Transpose::N, Transpose::C), (n, n, n), &zl, n, zv, n)?;
            diff_norm(a, &prod, n, n) / (nf * anorm_n * eps)
        }
        Routine::Gesvd if args.vectors => {
            let s = reals(&out.w);
            let mut us = out.u[..nn].to_vec();
            for j in 0..n {
                let f = T::from_real(cast::<T>(s[j]));
                us[j * n..(j + 1) * n].iter_mut().for_each(|x| *x *= f);
            }
            let prod = product(
                blas,
                (Transpose::N, Transpose::N),
                (n, n, n),
                &us,
                n,
                &out.vt[..nn],
                n,
            )?;
            diff_norm(a, &prod, n, n) / (nf * anorm_n * eps)
        }
        Routine::Syevd | Routine::Gesvd => values_ratio::<T>(&reals(&out.w), exact, n, anorm_n),
        _ => {
            return Err(rocm_core::Error::invalid(
                "routine",
                format!("{r:?} is not an orthogonal routine"),
            ))
        }
    })
}
