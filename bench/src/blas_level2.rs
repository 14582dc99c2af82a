//! `rocm-bench blas gemv`: our gemv beside cuBLAS's and the copy bandwidth, same run.
//!
//! y = α·op(A)·x + β·y (α = 1, β = 0.5 so y is read), A m×n column-major with lda = m,
//! unit increments. Bytes counted per call: the matrix plus the vectors (x once, y read
//! and written: m·n + lx + 2·ly elements). The copy peer moves the matrix's byte count
//! (read + write counted, as `blas l1`), so "of copy" is our GB/s over the device's
//! streaming bandwidth. With `--vendor` (and `--features vendor`) cuBLAS runs the same
//! problem on the same A and x into its own y; the last column is cuBLAS time / ours.
//! `--sweep` runs a grid of kernel shapes (rows per thread, columns per step, column
//! chunks for N; block, loads per lane and elements per load for T) and prints one row
//! each, for tuning; `--shape block,rows,cols,chunks,vector[,warps]` (repeatable) adds
//! chosen shapes.

use crate::blas::time;
use rocm_blas::Blas;
use rocm_core::linalg::Transpose;
use rocm_core::scalar::Scalar;
use rocm_core::{Device, DeviceBuffer, Error, Result};
use rocm_kernels::level2::gemv::GemvTuning;

#[derive(clap::Args)]
pub struct GemvArgs {
    #[arg(long)]
    pub device: Option<String>,
    /// f32 or f64.
    #[arg(long, default_value = "f32")]
    pub dtype: String,
    /// n or t.
    #[arg(long, default_value = "n")]
    pub trans: String,
    #[arg(long, default_value_t = 16384)]
    pub m: usize,
    #[arg(long, default_value_t = 16384)]
    pub n: usize,
    /// Also run cuBLAS (needs `--features vendor` and a CUDA device).
    #[arg(long)]
    pub vendor: bool,
    /// Run a grid of kernel shapes instead of the default one.
    #[arg(long)]
    pub sweep: bool,
    /// Also run this kernel shape (repeatable): `block,rows,cols,chunks,vector[,warps]`,
    /// each a number or `auto` (the catalog's or the host's choice).
    #[arg(long = "shape")]
    pub shapes: Vec<String>,
    #[arg(long, default_value_t = 50)]
    pub iters: u32,
}

pub fn run(a: &GemvArgs) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let trans = match a.trans.as_str() {
        "n" | "N" => Transpose::N,
        "t" | "T" => Transpose::T,
        o => return Err(Error::invalid("--trans", format!("`{o}`: n or t")).into()),
    };
    match a.dtype.as_str() {
        "f32" => bench::<f32>(&dev, a, trans),
        "f64" => bench::<f64>(&dev, a, trans),
        o => Err(Error::invalid("--dtype", format!("`{o}`: f32 or f64")).into()),
    }
}

/// The sweep's shapes: N over block × rows × cols × chunks (None = the host's rule) ×
/// lane load width, T over block × loads per lane × lane load width × warps per column.
fn shapes(trans: Transpose, esize: usize) -> Vec<GemvTuning> {
    let mut v = vec![GemvTuning::default()];
    if trans == Transpose::N {
        // Workgroups covering 256 to 8192 rows (with the load width): longer column
        // segments per workgroup, fewer row groups.
        let blocks = [
            (128, 2),
            (256, 1),
            (256, 2),
            (256, 8),
            (512, 2),
            (512, 8),
            (1024, 4),
            (1024, 8),
        ];
        for (block, rows) in blocks {
            for cols in [2, 4, 8] {
                for chunks in [None, Some(17), Some(32), Some(64)] {
                    // A lane load is at most 16 bytes.
                    for vector in [1u32, 2, 4]
                        .into_iter()
                        .filter(|&v| v as usize * esize <= 16)
                    {
                        v.push(GemvTuning {
                            block: Some(block),
                            rows: Some(rows),
                            cols: Some(cols),
                            chunks,
                            vector: Some(vector),
                            warps_per_column: None,
                        });
                    }
                }
            }
        }
    } else {
        for block in [64, 128, 256, 512, 1024] {
            for rows in [1, 2, 4, 8] {
                // A lane load is at most 16 bytes.
                for vector in [1u32, 2, 4]
                    .into_iter()
                    .filter(|&v| v as usize * esize <= 16)
                {
                    // One warp per column, two, or the whole workgroup on one column.
                    let mut groups = vec![1, 2, block / 32];
                    groups.dedup();
                    for warps_per_column in groups {
                        v.push(GemvTuning {
                            block: Some(block),
                            rows: Some(rows),
                            vector: Some(vector),
                            warps_per_column: Some(warps_per_column),
                            ..GemvTuning::default()
                        });
                    }
                }
            }
        }
    }
    v
}

/// `block,rows,cols,chunks,vector[,warps]` with `auto` for the default of a field.
fn parse_shape(s: &str) -> Result<GemvTuning> {
    let bad = || {
        Error::invalid(
            "--shape",
            format!("`{s}`: block,rows,cols,chunks,vector[,warps], each a number or auto"),
        )
    };
    let fields = s
        .split(',')
        .map(|f| match f.trim() {
            "auto" => Ok(None),
            v => v.parse::<u32>().map(Some).map_err(|_| bad()),
        })
        .collect::<Result<Vec<_>>>()?;
    if !(5..=6).contains(&fields.len()) {
        return Err(bad());
    }
    Ok(GemvTuning {
        block: fields[0],
        rows: fields[1],
        cols: fields[2],
        chunks: fields[3],
        vector: fields[4],
        warps_per_column: fields.get(5).copied().flatten(),
    })
}

fn bench<T: Scalar>(
    dev: &Device,
    a: &GemvArgs,
    trans: Transpose,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let (m, n) = (a.m, a.n);
    let (lx, ly) = if trans == Transpose::N {
        (n, m)
    } else {
        (m, n)
    };
    let esize = std::mem::size_of::<T>();
    let real =
        |v: f64| T::from_real(num_traits::NumCast::from(v).unwrap_or_else(num_traits::Zero::zero));
    let pattern = |len: usize, salt: usize| -> Result<Vec<T>> {
        rocm_core::host_alloc::try_from_fn("gemv operand", len, |i| {
            real((((i * 7 + salt) % 1000) as f64) * 1e-3 - 0.5)
        })
    };
    let mn = rocm_core::host_alloc::elements("--m/--n: m * n", &[m, n])?;
    rocm_core::host_alloc::bytes_of::<T>("--m/--n: m * n", mn)?;
    let ad = DeviceBuffer::from_slice(dev, &pattern(mn, 1)?)?;
    let xd = DeviceBuffer::from_slice(dev, &pattern(lx, 2)?)?;
    let y0 = pattern(ly, 3)?;
    let mut yd = DeviceBuffer::from_slice(dev, &y0)?;
    let bytes = ((m * n + lx + 2 * ly) * esize) as f64;

    // Copy peer of the matrix's size.
    let copy_gbs = {
        let cb = m * n * esize;
        let src = dev.alloc::<u8>(cb)?;
        let mut dst = dev.alloc::<u8>(cb)?;
        let stream = dev.default_stream();
        let secs = time(dev, a.iters, || {
            if !dev.is_cpu() {
                rocm_kernels::copy::copy(stream, &mut dst.as_slice_mut(), &src.as_slice())
            } else {
                dst.as_slice_mut().copy_from(&src.as_slice())
            }
        })?;
        2.0 * cb as f64 / secs / 1e9
    };
    let blas = Blas::new(dev);
    let (alpha, beta) = (real(1.0), real(0.5));
    let (av, xv) = (ad.as_slice(), xd.as_slice());
    let mut run = |t: GemvTuning| -> Result<f64> {
        time(dev, a.iters, || {
            blas.gemv_tuned(
                trans,
                m,
                n,
                alpha,
                &av,
                m,
                &xv,
                1,
                beta,
                &mut yd.as_slice_mut(),
                1,
                t,
            )
        })
    };
    let vendor = if a.vendor {
        match vendor_time::<T>(
            dev,
            trans,
            m,
            n,
            ad.as_slice().address(),
            xd.as_slice().address(),
            &y0,
            a.iters,
        ) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("cuBLAS peer: {e}");
                None
            }
        }
    } else {
        None
    };
    println!(
        "device {} ({}): {}gemv {} m={m} n={n}, copy {:.1} GB/s (read + write, {} bytes)",
        dev.id(),
        dev.info().name,
        T::PREFIX,
        a.trans,
        copy_gbs,
        m * n * esize
    );
    if let Some(v) = vendor {
        println!(
            "cuBLAS: {:.3} ms, {:.1} GB/s, {:.1}% of copy",
            v * 1e3,
            bytes / v / 1e9,
            100.0 * bytes / v / 1e9 / copy_gbs
        );
    }
    println!(
        "{:<6} {:<6} {:<6} {:<8} {:<6} {:<6} {:>10} {:>10} {:>9} {:>11}",
        "block",
        "rows",
        "cols",
        "chunks",
        "vector",
        "warps",
        "ms",
        "GB/s",
        "of copy",
        "ours/cuBLAS"
    );
    let mut list = if a.sweep {
        shapes(trans, esize)
    } else {
        vec![GemvTuning::default()]
    };
    for s in &a.shapes {
        list.push(parse_shape(s)?);
    }
    let opt = |v: Option<u32>| v.map_or("auto".to_string(), |v| v.to_string());
    let sweep = a.sweep || !a.shapes.is_empty();
    for t in list {
        let secs = match run(t) {
            Ok(s) => s,
            // A sweep shape the device cannot run is reported and skipped.
            Err(e) if sweep => {
                eprintln!("{t:?}: {e}");
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let gbs = bytes / secs / 1e9;
        println!(
            "{:<6} {:<6} {:<6} {:<8} {:<6} {:<6} {:>10.3} {:>10.1} {:>8.1}% {:>11}",
            opt(t.block),
            opt(t.rows),
            opt(t.cols),
            opt(t.chunks),
            opt(t.vector),
            opt(t.warps_per_column),
            secs * 1e3,
            gbs,
            100.0 * gbs / copy_gbs,
            vendor.map_or("-".to_string(), |v| format!("{:.3}x", v / secs))
        );
    }
    Ok(())
}

#[cfg(feature = "vendor")]
#[allow(clippy::too_many_arguments)]
fn vendor_time<T: Scalar>(
    dev: &Device,
    trans: Transpose,
    m: usize,
    n: usize,
    a: u64,
    x: u64,
    y0: &[T],
    iters: u32,
) -> Result<f64> {
    use crate::vendor::{Cublas, GemvCall};
    let h = Cublas::for_device(dev)?;
    let yv = DeviceBuffer::from_slice(dev, y0)?;
    let g = GemvCall {
        f64: std::mem::size_of::<T>() == 8,
        trans: trans != Transpose::N,
        m,
        n,
        a,
        lda: m,
        x,
        y: yv.as_slice().address(),
        alpha: 1.0,
        beta: 0.5,
    };
    // SAFETY: A and x are the caller's live buffers of the problem's sizes, y is `yv`,
    // alive until the timing returns.
    h.time(iters, |h| unsafe { h.gemv(&g) })
}

#[cfg(not(feature = "vendor"))]
#[allow(clippy::too_many_arguments)]
fn vendor_time<T: Scalar>(
    dev: &Device,
    _trans: Transpose,
    _m: usize,
    _n: usize,
    _a: u64,
    _x: u64,
    _y0: &[T],
    _iters: u32,
) -> Result<f64> {
    Err(Error::unsupported(
        "the cuBLAS peer (build rocm-bench with --features vendor)",
        dev.id(),
    ))
}
