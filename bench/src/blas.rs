//! `rocm-bench blas`: BLAS routines timed on one device (like rocblas-bench).
//!
//! `blas l1` times copy, axpy, dot, nrm2, asum and iamax at a large n (2^28 f32, 2^27 f64
//! on GPUs: 1 GiB vectors) and reports GB/s counting the bytes each routine must move,
//! beside the device-to-device copy bandwidth measured in the same run.

use rocm_blas::{Blas, Scalar};
use rocm_core::{BackendKind, Device, DeviceBuffer, Result};
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum BlasCommand {
    /// Level 1 bandwidth: copy, axpy, dot, nrm2, asum, iamax.
    L1(L1Args),
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
}

pub fn run(cmd: &BlasCommand) -> Result<(), Box<dyn std::error::Error>> {
    match cmd {
        BlasCommand::L1(a) => l1(a),
    }
}

/// Mean seconds per call over `iters` calls after 2 warm-ups, synchronised at the end.
fn time(dev: &Device, iters: u32, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
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

fn rows<T: Scalar>(dev: &Device, n: usize, iters: u32, copy_gbs: f64) -> Result<()> {
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
    let report = |name: &str, secs: f64, bytes: f64| {
        let gbs = bytes / secs / 1e9;
        println!(
            "{:<6} {:<4} {:>12} {:>10.3} {:>10.1} {:>8.1}%",
            name,
            T::DTYPE,
            n,
            secs * 1e3,
            gbs,
            100.0 * gbs / copy_gbs
        );
    };
    let xs = x.as_slice();
    let t = time(dev, iters, || {
        blas.copy(n, &xs, 1, &mut y.as_slice_mut(), 1)
    })?;
    report("copy", t, 2.0 * n as f64 * esize);
    let t = time(dev, iters, || {
        blas.axpy(n, alpha, &xs, 1, &mut y.as_slice_mut(), 1)
    })?;
    report("axpy", t, 3.0 * n as f64 * esize);
    let ys = y.as_slice();
    let t = time(dev, iters, || blas.dot(n, &xs, 1, &ys, 1).map(|_| ()))?;
    report("dot", t, 2.0 * n as f64 * esize);
    let t = time(dev, iters, || blas.nrm2(n, &xs, 1).map(|_| ()))?;
    report("nrm2", t, n as f64 * esize);
    let t = time(dev, iters, || blas.asum(n, &xs, 1).map(|_| ()))?;
    report("asum", t, n as f64 * esize);
    let t = time(dev, iters, || blas.iamax(n, &xs, 1).map(|_| ()))?;
    report("iamax", t, n as f64 * esize);
    Ok(())
}

fn l1(a: &L1Args) -> Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let n = a.n.unwrap_or(if dev.is_cpu() { 1 << 24 } else { 1 << 28 });
    // The peer: device-to-device copy of the same byte count (f32 vector size).
    let bytes = n * 4;
    let src = dev.alloc::<u8>(bytes)?;
    let mut dst = dev.alloc::<u8>(bytes)?;
    let stream = dev.default_stream();
    let copy_secs = time(&dev, a.iters, || {
        if dev.kind() == BackendKind::Cuda {
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
        "{:<6} {:<4} {:>12} {:>10} {:>10} {:>9}",
        "op", "type", "n", "ms", "GB/s", "of copy"
    );
    drop((src, dst));
    rows::<f32>(&dev, n, a.iters, copy_gbs)?;
    rows::<f64>(&dev, n / 2, a.iters, copy_gbs)?;
    Ok(())
}
