//! `rocm-bench sparse`: rocSPARSE-style benchmarks (like rocsparse-bench) of SpMV, SpMM,
//! SpGEMM and SpSV on a Matrix Market file or a generated matrix, printing time,
//! GFLOP/s, GB/s and the error against a reference.

use num_complex::{Complex32, Complex64};
use rocm_core::{DType, Device, DeviceBuffer, Result};
use rocm_sparse::mm::{self, MmMatrix};
use rocm_sparse::ops::*;
use rocm_sparse::reference::spmv_entries;
use rocm_sparse::{gen, BlockLayout, Csr, Index, Scalar, SparseMatrix};
use std::time::Instant;

#[derive(clap::Args, Clone)]
pub struct SparseArgs {
    #[command(subcommand)]
    op: SparseOp,
}

#[derive(clap::Subcommand, Clone)]
enum SparseOp {
    /// y = alpha * op(A) * x + beta * y
    Spmv(Common),
    /// C = alpha * op(A) * B + beta * C, B and C dense with --nrhs columns
    Spmm(Common),
    /// C = A * A (A square)
    Spgemm(Common),
    /// Solve op(L) y = x with L the lower triangle of A
    Spsv(Common),
}

#[derive(clap::Args, Clone)]
struct Common {
    /// Read the matrix from a Matrix Market file.
    #[arg(long, conflicts_with = "gen")]
    mtx: Option<String>,
    /// Generate the matrix: poisson2d:N, poisson3d:N, banded:N:L:U, uniform:M:N:K,
    /// powerlaw:N:AVG[:EXP], rmat:SCALE:EDGES_PER_ROW, blocks:MB:BD:K.
    #[arg(long, default_value = "poisson3d:64")]
    gen: String,
    /// Value type: f32, f64, c32, c64.
    #[arg(long, default_value = "f64")]
    dtype: DType,
    /// Use 64-bit indices.
    #[arg(long)]
    i64: bool,
    /// Storage format for SpMV/SpMM: csr, csc, coo, bsr, ell.
    #[arg(long, default_value = "csr")]
    format: String,
    /// BSR block size.
    #[arg(long, default_value_t = 4)]
    block: usize,
    /// Operation on A: n, t, c.
    #[arg(long, default_value = "n")]
    op: String,
    /// Right-hand sides for SpMM.
    #[arg(long, default_value_t = 8)]
    nrhs: usize,
    /// Timed repetitions (the median is reported).
    #[arg(long, default_value_t = 10)]
    iters: usize,
    /// Device: `cpu`, or a GPU (`cuda:0`, `emu:gfx942`) for the generated kernels
    /// (SpMV CSR, op n, f32/f64).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Print the analysis (row-length statistics, chosen kernel) of a GPU SpMV.
    #[arg(long)]
    explain: bool,
}

pub fn run(a: &SparseArgs) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let (op, c) = match &a.op {
        SparseOp::Spmv(c) => ("spmv", c),
        SparseOp::Spmm(c) => ("spmm", c),
        SparseOp::Spgemm(c) => ("spgemm", c),
        SparseOp::Spsv(c) => ("spsv", c),
    };
    macro_rules! go {
        ($i:ty) => {
            match c.dtype {
                DType::F32 => bench::<$i, f32>(op, c),
                DType::F64 => bench::<$i, f64>(op, c),
                DType::C32 => bench::<$i, Complex32>(op, c),
                DType::C64 => bench::<$i, Complex64>(op, c),
                d => Err(rocm_core::Error::invalid(
                    "dtype",
                    format!("{d} is not a sparse value type (f32, f64, c32, c64)"),
                )),
            }
        };
    }
    if c.nrhs == 0 {
        return Err("--nrhs must be at least 1".into());
    }
    let err = if c.i64 { go!(i64) } else { go!(i32) }?;
    // A NaN or infinite error means the result (or the matrix) holds NaN/Inf.
    if !err.is_finite() {
        return Err(format!("sparse {op}: error against the reference is {err}").into());
    }
    Ok(())
}

/// The suite's sparse section: every operation once on a small stencil and a small
/// power-law matrix (f64, CPU), failing if an error against the reference exceeds
/// `1e-10` (the errors are relative to the largest entry; these operations on these
/// well-conditioned matrices stay within a few hundred ulps).
pub fn quick() -> std::result::Result<(), Box<dyn std::error::Error>> {
    for gen in ["poisson3d:24", "powerlaw:20000:8"] {
        for op in ["spmv", "spmm", "spgemm", "spsv"] {
            let c = Common {
                mtx: None,
                gen: gen.into(),
                dtype: DType::F64,
                i64: false,
                format: "csr".into(),
                block: 4,
                op: "n".into(),
                nrhs: 4,
                iters: 3,
                device: "cpu".into(),
                explain: false,
            };
            let err = bench::<i32, f64>(op, &c)?;
            if err.is_nan() || err > 1e-10 {
                return Err(format!("sparse {op} on {gen}: error {err:.2e} > 1e-10").into());
            }
        }
    }
    Ok(())
}

fn load<I: Index, T: Scalar>(c: &Common) -> Result<(String, Csr<I, T>)> {
    match &c.mtx {
        Some(path) => {
            let (_, m) = mm::read_file::<I, T>(path)?;
            let csr = match m {
                MmMatrix::Sparse(coo) => coo.to_csr()?,
                MmMatrix::Dense(d) => Csr::from_dense(&d)?,
            };
            Ok((path.to_string(), csr))
        }
        None => Ok((c.gen.clone(), gen::from_spec(&c.gen)?)),
    }
    .and_then(|(name, a): (String, Csr<I, T>)| {
        if a.nrows() == 0 || a.ncols() == 0 {
            return Err(rocm_core::Error::invalid(
                "matrix",
                format!("{name} is {}x{}: nothing to run", a.nrows(), a.ncols()),
            ));
        }
        Ok((name, a))
    })
}

fn parse_op(s: &str) -> Result<Transpose> {
    s.parse()
}

/// Median wall time of `iters` runs of `f` (after one warm-up run).
fn time(iters: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut t = Vec::with_capacity(iters.max(1));
    for _ in 0..iters.max(1) {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    t.sort_by(|a, b| a.total_cmp(b));
    Ok(t[t.len() / 2])
}

fn vec_of<T: Scalar>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = gen::Rng::new(seed);
    (0..n).map(|_| rng.value()).collect()
}

/// max_i |got_i - want_i| / max_i |want_i|.
fn rel_err<T: Scalar>(got: &[T], want: &[Complex64]) -> f64 {
    let scale = crate::report::nan_max(want.iter().map(|v| v.norm()));
    let worst = crate::report::nan_max(got.iter().zip(want).map(|(g, w)| (g.to_c64() - w).norm()));
    crate::report::relative(worst, scale)
}

fn widen<T: Scalar>(x: &[T]) -> Vec<Complex64> {
    x.iter().map(|v| v.to_c64()).collect()
}

/// Runs and prints one benchmark; returns its error against the reference.
fn bench<I: Index, T: Scalar>(what: &str, c: &Common) -> Result<f64> {
    if c.device != "cpu" {
        return device_bench::<I, T>(what, c);
    }
    let dev = Device::cpu();
    let (name, a) = load::<I, T>(c)?;
    let (m, n, nnz) = (a.nrows(), a.ncols(), a.nnz());
    let (vs, is) = (
        std::mem::size_of::<T>() as f64,
        std::mem::size_of::<I>() as f64,
    );
    let op = parse_op(&c.op)?;
    let flop_mul = if T::IS_COMPLEX { 4.0 } else { 1.0 };
    println!(
        "sparse {what}: {name} {m}x{n} nnz {nnz} {}/{} threads {}",
        T::DTYPE,
        I::DTYPE,
        rayon::current_num_threads()
    );
    let (secs, flops, bytes, err) = match what {
        "spmv" | "spmm" => {
            let coo = a.to_coo();
            let csc = a.to_csc();
            let bsr = a.to_bsr(c.block, BlockLayout::RowMajor)?;
            let ell = if c.format == "ell" {
                Some(a.to_ell()?)
            } else {
                None
            };
            let mat: SpMat<'_, I, T> = match (c.format.as_str(), &ell) {
                ("csr", _) => (&a).into(),
                ("csc", _) => (&csc).into(),
                ("coo", _) => (&coo).into(),
                ("bsr", _) => (&bsr).into(),
                ("ell", Some(e)) => e.into(),
                (f, _) => {
                    return Err(rocm_core::Error::invalid(
                        "format",
                        format!("`{f}` is not csr, csc, coo, bsr or ell"),
                    ))
                }
            };
            let (rows, cols) = if op == Transpose::N { (m, n) } else { (n, m) };
            let stored = match mat {
                SpMat::Bsr(b) => b.values().len(),
                SpMat::Ell(e) => e.values().len(),
                _ => nnz,
            };
            if what == "spmv" {
                let x = vec_of::<T>(cols, 1);
                let y0 = vec_of::<T>(rows, 2);
                let xb = DeviceBuffer::from_slice(&dev, &x)?;
                let mut yb = DeviceBuffer::from_slice(&dev, &y0)?;
                let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.5));
                let plan = Spmv::analysis(&dev, op, mat, SpmvAlg::MergePath)?;
                plan.compute(alpha, mat, &xb.as_slice(), beta, &mut yb.as_slice_mut())?;
                let want = spmv_entries(
                    op,
                    alpha.to_c64(),
                    &a,
                    &widen(&x),
                    beta.to_c64(),
                    &widen(&y0),
                )?;
                let err = rel_err(&yb.to_vec()?, &want);
                let t = time(c.iters, || {
                    plan.compute(alpha, mat, &xb.as_slice(), beta, &mut yb.as_slice_mut())
                })?;
                let bytes = stored as f64 * (vs + is)
                    + (m + 1) as f64 * is
                    + cols as f64 * vs
                    + 2.0 * rows as f64 * vs;
                (t, 2.0 * nnz as f64 * flop_mul, bytes, err)
            } else {
                let k = c.nrhs;
                let bn = rocm_core::host_alloc::elements("--nrhs: cols * nrhs", &[cols, k])?;
                let cn = rocm_core::host_alloc::elements("--nrhs: rows * nrhs", &[rows, k])?;
                rocm_core::host_alloc::bytes_of::<T>("--nrhs: cols * nrhs", bn)?;
                rocm_core::host_alloc::bytes_of::<T>("--nrhs: rows * nrhs", cn)?;
                let mut rng = gen::Rng::new(3);
                let b: Vec<T> = rocm_core::host_alloc::try_from_fn("B", bn, |_| rng.value())?;
                let bb = DeviceBuffer::from_slice(&dev, &b)?;
                let mut cb = DeviceBuffer::<T>::zeros(&dev, cn)?;
                let plan = Spmm::analysis(&dev, op, mat)?;
                let bd = DnMat::new(cols, k, k.max(1), Order::RowMajor, bb.as_slice())?;
                let run = |cb: &mut DeviceBuffer<T>| -> Result<()> {
                    let mut cd =
                        DnMatMut::new(rows, k, k.max(1), Order::RowMajor, cb.as_slice_mut())?;
                    plan.compute(T::one(), mat, &bd, T::zero(), &mut cd)
                };
                run(&mut cb)?;
                // Reference: column 0 and column k-1 through the entry-wise SpMV.
                let got = cb.to_vec()?;
                let mut err: f64 = 0.0;
                for j in [0, k.saturating_sub(1)].into_iter().filter(|_| k > 0) {
                    let xj: Vec<Complex64> = (0..cols).map(|i| b[i * k + j].to_c64()).collect();
                    let want = spmv_entries(
                        op,
                        Complex64::new(1.0, 0.0),
                        &a,
                        &xj,
                        Complex64::new(0.0, 0.0),
                        &vec![Complex64::new(0.0, 0.0); rows],
                    )?;
                    let gj: Vec<T> = (0..rows).map(|i| got[i * k + j]).collect();
                    err = err.max(rel_err(&gj, &want));
                }
                let t = time(c.iters, || run(&mut cb))?;
                let bytes = stored as f64 * (vs + is)
                    + (m + 1) as f64 * is
                    + (cols + rows) as f64 * k as f64 * vs;
                (t, 2.0 * nnz as f64 * k as f64 * flop_mul, bytes, err)
            }
        }
        "spgemm" => {
            let run = || -> Result<Csr<I, T>> {
                let plan = Spgemm::analysis(&dev, &a, &a, None)?;
                plan.compute(T::one(), &a, &a, T::zero(), None)
            };
            let cm = run()?;
            // Freivalds check: (A A) x against A (A x) for a random x.
            let x = widen(&vec_of::<T>(n, 4));
            let zero = vec![Complex64::new(0.0, 0.0); m];
            let one = Complex64::new(1.0, 0.0);
            let ax = spmv_entries(Transpose::N, one, &a, &x, Complex64::new(0.0, 0.0), &zero)?;
            let want = spmv_entries(Transpose::N, one, &a, &ax, Complex64::new(0.0, 0.0), &zero)?;
            let cx = spmv_entries(Transpose::N, one, &cm, &x, Complex64::new(0.0, 0.0), &zero)?;
            let scale = crate::report::nan_max(want.iter().map(|v| v.norm()));
            let worst = crate::report::nan_max(cx.iter().zip(&want).map(|(g, w)| (g - w).norm()));
            let err = crate::report::relative(worst, scale);
            let products: usize = (0..m)
                .map(|i| {
                    a.row_range(i)
                        .map(|k| a.row_range(a.col_idx()[k].to_usize()).len())
                        .sum::<usize>()
                })
                .sum();
            let t = time(c.iters, || run().map(|_| ()))?;
            let bytes = 2.0 * nnz as f64 * (vs + is)
                + cm.nnz() as f64 * (vs + is)
                + 2.0 * (m + 1) as f64 * is;
            println!("C = A*A: nnz {}, {products} products", cm.nnz());
            (t, 2.0 * products as f64 * flop_mul, bytes, err)
        }
        "spsv" => {
            // L: A's strict lower triangle and in every row a stored diagonal larger than
            // the row's absolute sum, so the solve is well posed. (Rows of a power-law
            // matrix often store no diagonal; the solve rejects such a zero pivot.)
            let (mut ptr, mut cols, mut vals) = (vec![I::from_usize(0)], vec![], vec![]);
            for i in 0..m {
                let s: f64 = a
                    .row_range(i)
                    .map(|k| rocm_core::Real::as_f64(a.values()[k].modulus()))
                    .sum();
                for k in a.row_range(i) {
                    if a.col_idx()[k].to_usize() < i {
                        cols.push(a.col_idx()[k]);
                        vals.push(a.values()[k]);
                    }
                }
                if i < n {
                    cols.push(I::from_usize(i));
                    vals.push(T::from_f64(s + 1.0));
                }
                ptr.push(I::from_usize(cols.len()));
            }
            let l = Csr::new(m, n, ptr, cols, vals)?;
            let x = vec_of::<T>(m, 5);
            let xb = DeviceBuffer::from_slice(&dev, &x)?;
            let mut yb = DeviceBuffer::<T>::zeros(&dev, m)?;
            let plan = Spsv::analysis(&dev, op, Uplo::Lower, Diag::NonUnit, (&l).into())?;
            println!("level schedule: {} levels for {m} rows", plan.levels());
            plan.compute(
                T::one(),
                (&l).into(),
                &xb.as_slice(),
                &mut yb.as_slice_mut(),
            )?;
            // Residual: op(L) y against x, with L the lower triangle of l.
            let (mut r, mut cidx, mut v) = (vec![], vec![], vec![]);
            for i in 0..m {
                for k in l.row_range(i).filter(|&k| l.col_idx()[k].to_usize() <= i) {
                    r.push(I::from_usize(i));
                    cidx.push(l.col_idx()[k]);
                    v.push(l.values()[k]);
                }
            }
            let lt = rocm_sparse::Coo::new(m, n, r, cidx, v)?;
            let y = yb.to_vec()?;
            let ly = spmv_entries(
                op,
                Complex64::new(1.0, 0.0),
                &lt,
                &widen(&y),
                Complex64::new(0.0, 0.0),
                &vec![Complex64::new(0.0, 0.0); m],
            )?;
            let err = rel_err(&x, &ly);
            let t = time(c.iters, || {
                plan.compute(
                    T::one(),
                    (&l).into(),
                    &xb.as_slice(),
                    &mut yb.as_slice_mut(),
                )
            })?;
            let bytes = nnz as f64 * (vs + is) + (m + 1) as f64 * is + 2.0 * m as f64 * vs;
            (t, nnz as f64 * flop_mul, bytes, err)
        }
        other => return Err(rocm_core::Error::invalid("operation", other)),
    };
    println!(
        "time {:.3} ms  {:.2} GFLOP/s  {:.2} GB/s  rel. error vs reference {:.2e}",
        secs * 1e3,
        flops / secs / 1e9,
        bytes / secs / 1e9,
        err
    );
    Ok(err)
}

/// SpMV CSR (op n) with the generated kernels on `c.device`: the analysis (printed with
/// `--explain`), the error against the reference and the median time of `iters`
/// products (each waited for). Bytes: values and column indices once, row pointers, `x`
/// once, `y` read and written.
fn device_bench<I: Index, T: Scalar>(what: &str, c: &Common) -> Result<f64> {
    use rocm_sparse::gpu::{spmv::CsrSpmv, DeviceCsr};
    if what != "spmv" || c.format != "csr" || parse_op(&c.op)? != Transpose::N {
        return Err(rocm_core::Error::unsupported(
            format!("sparse {what} --format {} --op {}", c.format, c.op),
            &c.device,
        ));
    }
    let dev = Device::open(&c.device)?;
    let (name, a) = load::<I, T>(c)?;
    let (m, n, nnz) = (a.nrows(), a.ncols(), a.nnz());
    println!(
        "sparse spmv: {name} {m}x{n} nnz {nnz} {}/{} on {}",
        T::DTYPE,
        I::DTYPE,
        dev.id()
    );
    let d = DeviceCsr::upload(&dev, &a)?;
    let plan = CsrSpmv::analysis(&d)?;
    if c.explain {
        println!("  analysis: {}", plan.analysis_result());
    }
    let x = vec_of::<T>(n, 1);
    let y0 = vec_of::<T>(m, 2);
    let xb = DeviceBuffer::from_slice(&dev, &x)?;
    let mut yb = DeviceBuffer::from_slice(&dev, &y0)?;
    let (alpha, beta) = (T::from_f64(1.0), T::from_f64(0.5));
    let stream = dev.default_stream();
    plan.compute(
        stream,
        alpha,
        &d,
        &xb.as_slice(),
        beta,
        &mut yb.as_slice_mut(),
    )?;
    stream.synchronize()?;
    let want = spmv_entries(
        Transpose::N,
        alpha.to_c64(),
        &a,
        &widen(&x),
        beta.to_c64(),
        &widen(&y0),
    )?;
    let err = rel_err(&yb.to_vec()?, &want);
    let t = time(c.iters, || {
        plan.compute(
            stream,
            alpha,
            &d,
            &xb.as_slice(),
            beta,
            &mut yb.as_slice_mut(),
        )?;
        stream.synchronize()
    })?;
    let (vs, is) = (
        std::mem::size_of::<T>() as f64,
        std::mem::size_of::<I>() as f64,
    );
    let bytes = nnz as f64 * (vs + is) + (m + 1) as f64 * is + n as f64 * vs + 2.0 * m as f64 * vs;
    println!(
        "  ours: {:.3} ms  {:.1} GFLOP/s  {:.1} GB/s  error {err:.2e}",
        t * 1e3,
        2.0 * nnz as f64 / t / 1e9,
        bytes / t / 1e9
    );
    Ok(err)
}

#[cfg(test)]
mod tests {
    /// The suite's sparse section runs to the end: every operation on both generated
    /// matrices within its error bound. (Its triangular solve once stopped the suite: the
    /// power-law matrix stores no diagonal in some rows.)
    #[test]
    fn suite_section_passes() {
        super::quick().unwrap();
    }
}
