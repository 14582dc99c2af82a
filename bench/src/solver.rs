//! `rocm-bench solver <routine> -n N [--batch B]`: times one rocm-solver routine (like
//! rocsolver-bench) and reports time, GFLOP/s from LAPACK's operation counts, and the
//! routine's LAPACK test ratio (computed with rocm-blas GEMM in the working precision,
//! as LAPACK's test programs do; below 30 passes).
//!
//! The orthogonal-factorisation routines (geqrf, gelqf, gels, syevd, gesvd) live in
//! [`orthogonal`]: geqrf/gelqf/gels on random matrices (gels on a 2n×n least-squares
//! problem), syevd and gesvd on matrices built with a known spectrum, so that the
//! values-only runs have a ratio too.

use num_complex::{Complex32, Complex64};
use rocm_blas::Blas;
use rocm_core::linalg::{Diag, Transpose, Uplo};
use rocm_core::scalar::Scalar;
use rocm_core::{Device, Result as CoreResult};
use rocm_solver::{Real, Solver};
use std::time::Instant;

mod orthogonal;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routine {
    Getrf,
    Gesv,
    Getri,
    Potrf,
    Posv,
    Potri,
    Trtri,
    Geqrf,
    Gelqf,
    Gels,
    Syevd,
    Gesvd,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Dtype {
    F32,
    F64,
    C32,
    C64,
}

#[derive(clap::Args, Clone)]
pub struct SolverArgs {
    /// The routine.
    #[arg(value_enum)]
    pub routine: Routine,
    /// Matrix order.
    #[arg(short, long, default_value_t = 1024)]
    pub n: usize,
    /// Strided-batched problems (getrf, potrf, geqrf and gels).
    #[arg(long)]
    pub batch: Option<usize>,
    /// syevd / gesvd: compute the vectors too (thin U and V^H for gesvd).
    #[arg(long)]
    pub vectors: bool,
    /// Element type.
    #[arg(long, value_enum, default_value_t = Dtype::F64)]
    pub dtype: Dtype,
    /// Timed repetitions (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub iters: usize,
    /// Device (default: cpu).
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Print how the routine runs on the device (host or hybrid panels) and exit.
    #[arg(long)]
    pub explain: bool,
}

impl SolverArgs {
    /// A quick run for `rocm-bench suite`.
    pub fn quick(routine: Routine, n: usize) -> Self {
        SolverArgs {
            routine,
            n,
            batch: None,
            vectors: true,
            dtype: Dtype::F64,
            iters: 3,
            device: "cpu".into(),
            explain: false,
        }
    }
}

pub fn run(args: &SolverArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.explain {
        let dev = Device::open(&args.device)?;
        let name = clap::ValueEnum::to_possible_value(&args.routine)
            .map_or_else(|| "routine".to_string(), |v| v.get_name().to_string());
        println!("{}", Solver::new(&dev).explain(&name));
        return Ok(());
    }
    match args.dtype {
        Dtype::F32 => run_typed::<f32>(args),
        Dtype::F64 => run_typed::<f64>(args),
        Dtype::C32 => run_typed::<Complex32>(args),
        Dtype::C64 => run_typed::<Complex64>(args),
    }
}

/// LAPACK operation counts (real flops; complex ones count 4 per multiply-add pair).
fn flops<T: Scalar>(r: Routine, n: usize) -> f64 {
    let n = n as f64;
    let real = match r {
        Routine::Getrf => 2.0 / 3.0 * n * n * n,
        Routine::Gesv => 2.0 / 3.0 * n * n * n + 2.0 * n * n,
        Routine::Getri => 4.0 / 3.0 * n * n * n,
        Routine::Potrf => n * n * n / 3.0,
        Routine::Posv => n * n * n / 3.0 + 2.0 * n * n,
        Routine::Potri => 2.0 / 3.0 * n * n * n,
        Routine::Trtri => n * n * n / 3.0,
        _ => orthogonal::flops(r, n as usize, false),
    };
    if T::IS_COMPLEX {
        4.0 * real
    } else {
        real
    }
}

/// A deterministic pseudo-random matrix (splitmix64), entries in [-1, 1).
fn random<T: Scalar>(len: usize, seed: u64) -> Vec<T> {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..len)
        .map(|_| {
            let (re, im) = (next(), next());
            T::from_parts(cast::<T>(re), cast::<T>(im))
        })
        .collect()
}

fn cast<T: Scalar>(x: f64) -> T::Real {
    <T::Real as num_traits::NumCast>::from(x).unwrap_or_else(num_traits::Zero::zero)
}

/// One-norm of an n×n column-major matrix.
fn norm1<T: Scalar>(a: &[T], rows: usize, cols: usize) -> f64 {
    (0..cols)
        .map(|j| {
            a[j * rows..(j + 1) * rows]
                .iter()
                .map(|x| x.modulus().as_f64())
                .sum::<f64>()
        })
        .fold(0.0, |m, v| {
            if m.is_nan() || v.is_nan() {
                f64::NAN
            } else {
                m.max(v)
            }
        })
}

/// The input of `routine`: random, made Hermitian positive definite (A·Aᴴ + n·I) for the
/// Cholesky routines and diagonally weighted for TRTRI.
fn input<T: Scalar>(blas: &Blas, r: Routine, n: usize, seed: u64) -> CoreResult<Vec<T>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let g = random::<T>(n * n, seed);
    match r {
        Routine::Potrf | Routine::Posv | Routine::Potri => {
            let dev = blas.device();
            let gb = dev.upload(&g)?;
            let mut c = dev.alloc::<T>(n * n)?;
            blas.gemm(
                Transpose::N,
                Transpose::C,
                n,
                n,
                n,
                T::one(),
                &gb.as_slice(),
                n,
                &gb.as_slice(),
                n,
                T::zero(),
                &mut c.as_slice_mut(),
                n,
            )?;
            let mut c = c.to_vec()?;
            for i in 0..n {
                c[i + i * n] += T::from_real(cast::<T>(n as f64));
            }
            Ok(c)
        }
        Routine::Trtri => {
            let mut g = g;
            for i in 0..n {
                g[i + i * n] = T::from_real(cast::<T>(n as f64));
            }
            Ok(g)
        }
        _ => Ok(g),
    }
}

/// C (n×n) = A·B − C with rocm-blas, returning the one-norm of the result.
fn residual<T: Scalar>(
    blas: &Blas,
    n: usize,
    a: &[T],
    b: &[T],
    c: &[T],
    ta: Transpose,
    tb: Transpose,
) -> CoreResult<f64> {
    let dev = blas.device();
    let (ab, bb) = (dev.upload(a)?, dev.upload(b)?);
    let mut cb = dev.upload(c)?;
    blas.gemm(
        ta,
        tb,
        n,
        n,
        n,
        T::one(),
        &ab.as_slice(),
        n,
        &bb.as_slice(),
        n,
        -T::one(),
        &mut cb.as_slice_mut(),
        n,
    )?;
    Ok(norm1(&cb.to_vec()?, n, n))
}

/// The test ratio of one problem: `a` its input, `out` the routine's output.
#[allow(clippy::too_many_arguments)]
fn test_ratio<T: Scalar>(
    blas: &Blas,
    r: Routine,
    n: usize,
    a: &[T],
    out: &[T],
    ipiv: &[i32],
    x: &[T],
    b: &[T],
) -> CoreResult<f64> {
    let eps = T::eps().as_f64();
    let nf = n.max(1) as f64;
    let anorm = norm1(a, n, n);
    let zero = T::zero();
    let one = T::one();
    let tri = |lower: bool, unit: bool| -> Vec<T> {
        let mut t = vec![zero; n * n];
        for j in 0..n {
            for i in 0..n {
                if i == j && unit {
                    t[i + j * n] = one;
                } else if (lower && i >= j) || (!lower && i <= j) {
                    t[i + j * n] = out[i + j * n];
                }
            }
        }
        t
    };
    let identity = {
        let mut e = vec![zero; n * n];
        (0..n).for_each(|i| e[i + i * n] = one);
        e
    };
    let hermitian_lower = |m: &[T]| -> Vec<T> {
        let mut h = m.to_vec();
        for j in 0..n {
            for i in 0..j {
                h[i + j * n] = m[j + i * n].conj();
            }
        }
        h
    };
    Ok(match r {
        Routine::Getrf => {
            let mut pa = a.to_vec();
            for (i, &p) in ipiv.iter().enumerate() {
                let p = p as usize - 1;
                for j in 0..n {
                    pa.swap(i + j * n, p + j * n);
                }
            }
            residual(
                blas,
                n,
                &tri(true, true),
                &tri(false, false),
                &pa,
                Transpose::N,
                Transpose::N,
            )? / (nf * anorm * eps)
        }
        Routine::Potrf => {
            residual(
                blas,
                n,
                &tri(true, false),
                &tri(true, false),
                &hermitian_lower(a),
                Transpose::N,
                Transpose::C,
            )? / (nf * anorm * eps)
        }
        Routine::Gesv | Routine::Posv => {
            let a_full = if r == Routine::Posv {
                hermitian_lower(a)
            } else {
                a.to_vec()
            };
            // ‖A·X − B‖ / (n·‖A‖·‖X‖·ε) with nrhs = n.
            residual(blas, n, &a_full, x, b, Transpose::N, Transpose::N)?
                / (nf * anorm * norm1(x, n, n) * eps)
        }
        Routine::Getri => {
            residual(blas, n, a, out, &identity, Transpose::N, Transpose::N)?
                / (nf * anorm * norm1(out, n, n) * eps)
        }
        Routine::Potri => {
            let inv = hermitian_lower(out);
            residual(
                blas,
                n,
                &hermitian_lower(a),
                &inv,
                &identity,
                Transpose::N,
                Transpose::N,
            )? / (nf * anorm * norm1(&inv, n, n) * eps)
        }
        Routine::Geqrf | Routine::Gelqf | Routine::Gels | Routine::Syevd | Routine::Gesvd => {
            return Err(rocm_core::Error::invalid(
                "routine",
                "orthogonal routines have their own ratios (solver::orthogonal)",
            ))
        }
        Routine::Trtri => {
            let t = {
                let mut t = vec![zero; n * n];
                for j in 0..n {
                    for i in 0..=j {
                        t[i + j * n] = a[i + j * n];
                    }
                }
                t
            };
            let tn = norm1(&t, n, n);
            let inv = tri(false, false);
            residual(blas, n, &t, &inv, &identity, Transpose::N, Transpose::N)?
                / (nf * tn * norm1(&inv, n, n) * eps)
        }
    })
}

fn run_typed<T: Scalar>(args: &SolverArgs) -> Result<(), Box<dyn std::error::Error>> {
    if orthogonal::handles(args.routine) {
        return orthogonal::run::<T>(args);
    }
    let dev = Device::open(&args.device)?;
    let solver = Solver::new(&dev);
    let blas = Blas::new(&dev);
    let n = args.n;
    let r = args.routine;
    let batch = args.batch.unwrap_or(1);
    if args.batch.is_some() && !matches!(r, Routine::Getrf | Routine::Potrf) {
        return Err("--batch is supported for getrf and potrf".into());
    }
    if batch == 0 {
        return Err("--batch must be at least 1".into());
    }
    // LAPACK's rule lda >= max(1, n): n = 0 is a quick return, not an invalid lda.
    let ld = n.max(1);
    let nn = rocm_core::host_alloc::elements("-n: n * n", &[n, n])?;
    let mut a = rocm_core::host_alloc::try_with_capacity(
        "solver inputs",
        rocm_core::host_alloc::elements("-n and --batch: n * n * batch", &[nn, batch])?,
    )?;
    let one = input::<T>(&blas, r, n, 1)?;
    for i in 0..batch {
        if i == 0 {
            a.extend_from_slice(&one);
        } else {
            a.extend(input::<T>(&blas, r, n, 1 + i as u64 % 7)?);
        }
    }
    let rhs = random::<T>(nn, 99);
    let mut times = Vec::new();
    let mut last = (Vec::new(), Vec::new(), Vec::new());
    let mut infos = Vec::new();
    for _ in 0..args.iters.max(1) {
        let mut ab = dev.upload(&a)?;
        let mut piv = dev.alloc::<i32>(n.max(1) * batch)?;
        let mut b = dev.upload(&rhs)?;
        let t0 = Instant::now();
        infos = match (r, args.batch) {
            (Routine::Getrf, Some(_)) => solver.getrf_strided_batched(
                n,
                n,
                &mut ab.as_slice_mut(),
                ld,
                nn,
                &mut piv.as_slice_mut(),
                n,
                batch,
            )?,
            (Routine::Potrf, Some(_)) => solver.potrf_strided_batched(
                Uplo::Lower,
                n,
                &mut ab.as_slice_mut(),
                ld,
                nn,
                batch,
            )?,
            (Routine::Getrf, None) => {
                vec![solver.getrf(n, n, &mut ab.as_slice_mut(), ld, &mut piv.as_slice_mut())?]
            }
            (Routine::Gesv, _) => vec![solver.gesv(
                n,
                n,
                &mut ab.as_slice_mut(),
                ld,
                &mut piv.as_slice_mut(),
                &mut b.as_slice_mut(),
                ld,
            )?],
            (Routine::Getri, _) => {
                let info =
                    solver.getrf(n, n, &mut ab.as_slice_mut(), ld, &mut piv.as_slice_mut())?;
                vec![if info.is_ok() {
                    solver.getri(n, &mut ab.as_slice_mut(), ld, &piv.as_slice())?
                } else {
                    info
                }]
            }
            (Routine::Potrf, None) => {
                vec![solver.potrf(Uplo::Lower, n, &mut ab.as_slice_mut(), ld)?]
            }
            (Routine::Posv, _) => vec![solver.posv(
                Uplo::Lower,
                n,
                n,
                &mut ab.as_slice_mut(),
                ld,
                &mut b.as_slice_mut(),
                ld,
            )?],
            (Routine::Potri, _) => {
                let info = solver.potrf(Uplo::Lower, n, &mut ab.as_slice_mut(), ld)?;
                vec![if info.is_ok() {
                    solver.potri(Uplo::Lower, n, &mut ab.as_slice_mut(), ld)?
                } else {
                    info
                }]
            }
            (Routine::Trtri, _) => {
                vec![solver.trtri(Uplo::Upper, Diag::NonUnit, n, &mut ab.as_slice_mut(), ld)?]
            }
            _ => return Err("orthogonal routines run through solver::orthogonal".into()),
        };
        times.push(t0.elapsed().as_secs_f64());
        last = (ab.to_vec()?, piv.to_vec()?, b.to_vec()?);
    }
    times.sort_by(f64::total_cmp);
    let t = times[times.len() / 2];
    let failed = infos.iter().filter(|i| !i.is_ok()).count();
    // The ratio of the first problem (the whole run for unbatched routines).
    let (out, ipiv, x) = &last;
    let ratio = if n == 0 {
        0.0
    } else {
        test_ratio::<T>(&blas, r, n, &a[..nn], &out[..nn], &ipiv[..n], x, &rhs)?
    };
    let gflops = flops::<T>(r, n) * batch as f64 / t / 1e9;
    report(args, batch, "", &dev, t, gflops, ratio, failed)
}

/// Prints one result line (`mode`: e.g. " vectors", or empty) and fails when the test
/// ratio is not below LAPACK's threshold of 30.
#[allow(clippy::too_many_arguments)]
fn report(
    args: &SolverArgs,
    batch: usize,
    mode: &str,
    dev: &Device,
    t: f64,
    gflops: f64,
    ratio: f64,
    failed: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    // A NaN ratio fails (it is not below 30).
    let pass = ratio < 30.0;
    println!(
        "routine {:?} dtype {:?} n {} batch {batch}{mode} device {} time {:.3} ms  {:.2} GFLOP/s  ratio {:.3} {}  info>0: {failed}",
        args.routine,
        args.dtype,
        args.n,
        dev.id(),
        t * 1e3,
        gflops,
        ratio,
        if pass { "PASS" } else { "FAIL" },
    );
    if !pass {
        return Err(format!("test ratio {ratio} is not below 30").into());
    }
    Ok(())
}
