//! `rocm-bench blas`: BLAS routines timed on one device (like rocblas-bench).
//!
//! `blas l1` times copy, axpy, dot, nrm2, asum and iamax at a large n (2^28 f32, 2^27 f64
//! on GPUs: 1 GiB vectors) and reports GB/s counting the bytes each routine must move,
//! beside the device-to-device copy bandwidth measured in the same run, and, when built
//! with `--features vendor` on a CUDA device, the same routines through cuBLAS on the same
//! buffers (our speed over cuBLAS's: cuBLAS time / our time). `--repeat R` alternates
//! whole ours-then-cuBLAS rounds R times and reports median times, the median ratio and
//! the range of the per-round ratios: at the memory-bandwidth limit both sides differ by
//! about a percent, which one round cannot tell from noise.
//!
//! `blas gemm` times C = op(A)·op(B) (α = 1, β = 0, strided batched when `--batch` > 1)
//! and reports TFLOP/s (2·m·n·k·batch per call); with `--vendor` (and `--features
//! vendor`) cuBLAS runs the same problem on the same A and B in the same run, and the
//! row adds cuBLAS's TFLOP/s, our speed over cuBLAS's and the largest difference between
//! the two results relative to the largest |C| (a sanity check, not a test).
//! `--sweep` runs squares 256..16384; `--plot FILE` draws the sweep as SVG.
//!
//! `blas gemv`: see [`crate::blas_level2`]. `blas trsm|trmm|syrk|symm`: see
//! [`crate::blas_level3`].

use rocm_blas::Blas;
use rocm_core::scalar::Scalar;
use rocm_core::{Device, DeviceBuffer, Result};
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum BlasCommand {
    /// Level 1 bandwidth: copy, axpy, dot, nrm2, asum, iamax.
    L1(L1Args),
    /// GEMM TFLOP/s, ours and (with --vendor) cuBLAS's in the same run.
    Gemm(GemmArgs),
    /// gemv GB/s beside copy bandwidth and (with --vendor) cuBLAS's.
    Gemv(crate::blas_level2::GemvArgs),
    /// trsm TFLOP/s, ours and (with --vendor) cuBLAS's in the same run.
    Trsm(crate::blas_level3::Level3Args),
    /// trmm TFLOP/s, ours and (with --vendor) cuBLAS's.
    Trmm(crate::blas_level3::Level3Args),
    /// syrk TFLOP/s, ours and (with --vendor) cuBLAS's.
    Syrk(crate::blas_level3::Level3Args),
    /// symm TFLOP/s, ours and (with --vendor) cuBLAS's.
    Symm(crate::blas_level3::Level3Args),
    /// gbmv, tbsv or tpsv on band/packed storage, ours and (with --vendor) cuBLAS's.
    Band(crate::blas_band::BandArgs),
}

#[derive(clap::Args)]
pub struct GemmArgs {
    #[arg(long)]
    pub device: Option<String>,
    /// f32, tf32 (f32 with reduced-precision math), f64, f16, bf16, c32 or c64.
    #[arg(long, default_value = "f32")]
    pub dtype: String,
    #[arg(long, default_value_t = 8192)]
    pub m: usize,
    #[arg(long, default_value_t = 8192)]
    pub n: usize,
    #[arg(long, default_value_t = 8192)]
    pub k: usize,
    /// Problems in a strided batch.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// N or T.
    #[arg(long, default_value = "N")]
    pub transa: String,
    #[arg(long, default_value = "N")]
    pub transb: String,
    /// Also run cuBLAS (needs `--features vendor` and a CUDA device).
    #[arg(long)]
    pub vendor: bool,
    /// Squares 256, 512, ..., 16384 instead of one problem.
    #[arg(long)]
    pub sweep: bool,
    /// Write the sweep as an SVG plot.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// Timed calls per problem (default: about 2·10^13 flops' worth, 3..200).
    #[arg(long)]
    pub iters: Option<u32>,
    /// Print each problem's GEMM plan (steps, programs with params, geometry, shared
    /// bytes, arguments, workspace) before measuring it.
    #[arg(long)]
    pub explain: bool,
}

#[derive(clap::Args)]
pub struct L1Args {
    #[arg(long)]
    device: Option<String>,
    /// Elements per vector for f32 (f64 uses half as many); default 2^28 on GPUs, 2^24 on the CPU.
    #[arg(long)]
    n: Option<usize>,
    #[arg(long, default_value_t = 20)]
    iters: u32,
    /// Rounds of (ours, cuBLAS) timings; the table gives medians and the ratio range.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// Print the kernel plans of axpy and dot (f32, f64) at this size first.
    #[arg(long)]
    explain: bool,
}

pub fn run(cmd: &BlasCommand) -> Result<(), Box<dyn std::error::Error>> {
    match cmd {
        BlasCommand::L1(a) => l1(a),
        BlasCommand::Gemm(a) => crate::blas_gemm::run(a),
        BlasCommand::Gemv(a) => crate::blas_level2::run(a),
        BlasCommand::Trsm(a) => crate::blas_level3::run(crate::blas_level3::Op::Trsm, a),
        BlasCommand::Trmm(a) => crate::blas_level3::run(crate::blas_level3::Op::Trmm, a),
        BlasCommand::Syrk(a) => crate::blas_level3::run(crate::blas_level3::Op::Syrk, a),
        BlasCommand::Symm(a) => crate::blas_level3::run(crate::blas_level3::Op::Symm, a),
        BlasCommand::Band(a) => crate::blas_band::run(a),
    }
}

/// Mean seconds per call over `iters` calls after 2 warm-ups, synchronised at the end.
pub(crate) fn time(dev: &Device, iters: u32, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..2 {
        f()?;
    }
    dev.synchronize()?;
    let t = Instant::now();
    for _ in 0..iters {
        f()?;
    }
    dev.synchronize()?;
    Ok(t.elapsed().as_secs_f64() / iters as f64)
}

/// The element types the vendor peer knows (all of ours when the peer is not built).
#[cfg(feature = "vendor")]
trait Peer: crate::vendor::CublasL1 {}
#[cfg(not(feature = "vendor"))]
trait Peer {}
impl Peer for f32 {}
impl Peer for f64 {}

/// One timed routine: name, seconds per call, bytes it must move.
type Timing = (&'static str, f64, f64);

/// The median of `v` (the mean of the middle two for an even count; 0 when empty).
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}

/// Times every routine, ours then cuBLAS's, `repeat` rounds in a row, so that both sides
/// see the same clocks and temperature (a whole ours-then-peer table per round); prints
/// the median time of each side and the median and range of the per-round ratios.
fn rows<T: Scalar + Peer>(
    dev: &Device,
    n: usize,
    iters: u32,
    repeat: u32,
    copy_gbs: f64,
) -> Result<()> {
    let blas = Blas::new(dev);
    let esize = std::mem::size_of::<T>() as f64;
    let real =
        |v: f64| T::from_real(num_traits::NumCast::from(v).unwrap_or_else(num_traits::Zero::zero));
    let host: Vec<T> = (0..n)
        .map(|i| real(((i % 1000) as f64) * 1e-3 - 0.5))
        .collect();
    let x = DeviceBuffer::from_slice(dev, &host)?;
    let mut y = DeviceBuffer::from_slice(dev, &host)?;
    let alpha = real(0.5);
    let bytes = |vectors: f64| vectors * n as f64 * esize;
    let mut ours_runs: Vec<Vec<Timing>> = Vec::new();
    let mut peer_runs: Vec<Vec<Timing>> = Vec::new();
    let mut peer_error = None;
    for _ in 0..repeat.max(1) {
        let mut ours: Vec<Timing> = Vec::new();
        let xs = x.as_slice();
        let t = time(dev, iters, || {
            blas.copy(n, &xs, 1, &mut y.as_slice_mut(), 1)
        })?;
        ours.push(("copy", t, bytes(2.0)));
        let t = time(dev, iters, || {
            blas.axpy(n, alpha, &xs, 1, &mut y.as_slice_mut(), 1)
        })?;
        ours.push(("axpy", t, bytes(3.0)));
        let ys = y.as_slice();
        let t = time(dev, iters, || blas.dot(n, &xs, 1, &ys, 1).map(|_| ()))?;
        ours.push(("dot", t, bytes(2.0)));
        let t = time(dev, iters, || blas.nrm2(n, &xs, 1).map(|_| ()))?;
        ours.push(("nrm2", t, bytes(1.0)));
        let t = time(dev, iters, || blas.asum(n, &xs, 1).map(|_| ()))?;
        ours.push(("asum", t, bytes(1.0)));
        let t = time(dev, iters, || blas.iamax(n, &xs, 1).map(|_| ()))?;
        ours.push(("iamax", t, bytes(1.0)));
        ours_runs.push(ours);
        match vendor_rows::<T>(dev, n, iters, xs.address(), y.as_slice().address()) {
            Ok(p) => peer_runs.push(p),
            Err(e) => peer_error = Some(e),
        }
    }
    for (k, &(name, _, b)) in ours_runs[0].iter().enumerate() {
        let secs = median(&ours_runs.iter().map(|r| r[k].1).collect::<Vec<_>>());
        let gbs = b / secs / 1e9;
        print!(
            "{:<6} {:<4} {:>12} {:>10.4} {:>10.1} {:>8.1}%",
            name,
            T::DTYPE,
            n,
            secs * 1e3,
            gbs,
            100.0 * gbs / copy_gbs
        );
        if peer_error.is_none() && peer_runs.len() == ours_runs.len() {
            let psecs = median(&peer_runs.iter().map(|r| r[k].1).collect::<Vec<_>>());
            let ratios: Vec<f64> = peer_runs
                .iter()
                .zip(&ours_runs)
                .map(|(p, o)| p[k].1 / o[k].1)
                .collect();
            let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = ratios.iter().copied().fold(0.0, f64::max);
            println!(
                " {:>10.4} {:>10.1} {:>8.3}x {:>6.3}-{:.3}",
                psecs * 1e3,
                b / psecs / 1e9,
                median(&ratios),
                lo,
                hi
            );
        } else {
            println!();
        }
    }
    if let Some(e) = peer_error {
        println!("(no vendor peer: {e})");
    }
    Ok(())
}

/// The same routines through cuBLAS on the same buffers (`--features vendor`, CUDA only).
#[cfg(feature = "vendor")]
fn vendor_rows<T: Scalar + Peer>(
    dev: &Device,
    n: usize,
    iters: u32,
    x: u64,
    y: u64,
) -> Result<Vec<Timing>> {
    use crate::vendor::Cublas;
    let h = Cublas::for_device(dev)?;
    let m = i32::try_from(n).map_err(|_| rocm_core::Error::invalid("n", "above i32::MAX"))?;
    let esize = std::mem::size_of::<T>() as f64;
    let bytes = |vectors: f64| vectors * n as f64 * esize;
    let alpha = T::from_real(num_traits::NumCast::from(0.5).unwrap_or_else(num_traits::Zero::zero));
    // SAFETY (every call below): `x` and `y` are the addresses of live device buffers of
    // `n` elements of T on this device, kept alive by the caller for the whole run.
    Ok(vec![
        (
            "copy",
            h.time(iters, |h| unsafe { T::copy(h, m, x, y) })?,
            bytes(2.0),
        ),
        (
            "axpy",
            h.time(iters, |h| unsafe { T::axpy(h, m, alpha, x, y) })?,
            bytes(3.0),
        ),
        (
            "dot",
            h.time(iters, |h| unsafe { T::dot(h, m, x, y).map(|_| ()) })?,
            bytes(2.0),
        ),
        (
            "nrm2",
            h.time(iters, |h| unsafe { T::nrm2(h, m, x).map(|_| ()) })?,
            bytes(1.0),
        ),
        (
            "asum",
            h.time(iters, |h| unsafe { T::asum(h, m, x).map(|_| ()) })?,
            bytes(1.0),
        ),
        (
            "iamax",
            h.time(iters, |h| unsafe { T::iamax(h, m, x).map(|_| ()) })?,
            bytes(1.0),
        ),
    ])
}

#[cfg(not(feature = "vendor"))]
fn vendor_rows<T: Scalar + Peer>(
    dev: &Device,
    _n: usize,
    _iters: u32,
    _x: u64,
    _y: u64,
) -> Result<Vec<Timing>> {
    Err(rocm_core::Error::unsupported(
        "the cuBLAS peer (build rocm-bench with --features vendor)",
        dev.id(),
    ))
}

/// The plans the library runs for axpy and dot on `dev` (contiguous, 256-byte aligned
/// vectors of `n` f32 and `n / 2` f64 elements): one line per kernel launch.
fn explain_l1(dev: &Device, n: usize) -> Result<(), Box<dyn std::error::Error>> {
    use rocm_core::DType;
    use rocm_kernels::catalog::Catalog;
    use rocm_kernels::level1::plan::{self as l1, Problem, ResultAt, ScalarArg, Vector};
    use rocm_kernels::level1::L1Op;
    if dev.is_cpu() {
        println!(
            "explain: {} runs Level 1 on the CPU (no kernel plan)",
            dev.id()
        );
        return Ok(());
    }
    let target = dev.target();
    let catalog = Catalog::for_target(target);
    for (dtype, n, one) in [
        (DType::F32, n, ScalarArg::F32(1.0)),
        (DType::F64, n / 2, ScalarArg::F64(1.0)),
    ] {
        let vector = |slot: usize, name: &'static str| Vector {
            name,
            slot,
            address: 256 * (slot as u64 + 1),
            inc: 1,
            dtype,
        };
        let scalars = [one, one];
        let axpy = Problem {
            op: L1Op::Axpby { read_y: true },
            dtype,
            n: n as u64,
            x: vector(0, "x"),
            y: Some(vector(1, "y")),
            scalars: &scalars,
        };
        println!("axpy {dtype} n = {n} on {target}:");
        print!("{}", l1::plan(&axpy, target, catalog)?);
        let dot = Problem {
            op: L1Op::Dot { conj: false },
            scalars: &[],
            ..axpy
        };
        let r = l1::plan_reduction(&dot, dtype, ResultAt::Workspace, target, catalog)?;
        println!("dot {dtype} n = {n} on {target} (host pointer mode):");
        print!("{}", r.plan);
    }
    Ok(())
}

fn l1(a: &L1Args) -> Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let n = a.n.unwrap_or(if dev.is_cpu() { 1 << 24 } else { 1 << 28 });
    if a.explain {
        explain_l1(&dev, n)?;
    }
    // The peer: device-to-device copy of the same byte count (f32 vector size).
    let bytes = n * 4;
    let src = dev.alloc::<u8>(bytes)?;
    let mut dst = dev.alloc::<u8>(bytes)?;
    let stream = dev.default_stream();
    let copy_secs = time(&dev, a.iters, || {
        if !dev.is_cpu() {
            rocm_kernels::copy::copy(stream, &mut dst.as_slice_mut(), &src.as_slice())
        } else {
            dst.as_slice_mut().copy_from(&src.as_slice())
        }
    })?;
    let copy_gbs = 2.0 * bytes as f64 / copy_secs / 1e9;
    println!(
        "device {} ({}): device-to-device copy {:.1} GB/s (read + write, {} bytes)",
        dev.id(),
        dev.info().name,
        copy_gbs,
        bytes
    );
    println!(
        "{:<6} {:<4} {:>12} {:>10} {:>10} {:>9} {:>10} {:>10} {:>9} {:>13}",
        "op",
        "type",
        "n",
        "ms",
        "GB/s",
        "of copy",
        "cuBLAS ms",
        "GB/s",
        "ours/cuBLAS",
        "ratio range"
    );
    drop((src, dst));
    rows::<f32>(&dev, n, a.iters, a.repeat, copy_gbs)?;
    rows::<f64>(&dev, n / 2, a.iters, a.repeat, copy_gbs)?;
    Ok(())
}
