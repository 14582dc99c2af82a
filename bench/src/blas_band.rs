//! `rocm-bench blas band`: gbmv, tbsv and tpsv on their band or packed storage, ours
//! beside cuBLAS's (`--vendor`, same data, same run).
//!
//! The matrix is n×n: gbmv with kl = ku = k (band storage, lda = 2k + 1), tbsv a lower
//! band of k subdiagonals (lda = k + 1), tpsv a lower packed triangle. The triangles have
//! a unit diagonal and off-diagonal entries below 0.5 / k in magnitude (1 / (2n) packed),
//! so ‖L − I‖∞ < 1/2: the solves run repeatedly on the same vector without overflow or
//! underflow (each solve scales its norm by a factor in [2/3, 2]). GB/s counts the stored
//! matrix plus the vectors (gbmv: x once, y read and written; solves: x read and written).
//! After the timing, one call of each side from the same starting vector is compared:
//! the largest difference relative to the largest magnitude of the result.

use crate::blas::time;
use rocm_blas::Blas;
use rocm_core::linalg::{Diag, Transpose, Uplo};
use rocm_core::scalar::Scalar;
use rocm_core::{Device, DeviceBuffer, Error, Result};

#[derive(clap::Args)]
pub struct BandArgs {
    #[arg(long)]
    pub device: Option<String>,
    /// gbmv, tbsv or tpsv.
    #[arg(long, default_value = "gbmv")]
    pub op: String,
    /// f32 or f64.
    #[arg(long, default_value = "f64")]
    pub dtype: String,
    /// n or t.
    #[arg(long, default_value = "n")]
    pub trans: String,
    /// Order of the matrix (default: 2^20 for gbmv and tbsv, 16384 for tpsv).
    #[arg(long)]
    pub n: Option<usize>,
    /// Bandwidth: gbmv kl = ku = k, tbsv k subdiagonals (tpsv ignores it).
    #[arg(long, default_value_t = 32)]
    pub k: usize,
    /// Also run cuBLAS (needs `--features vendor` and a CUDA device).
    #[arg(long)]
    pub vendor: bool,
    #[arg(long, default_value_t = 20)]
    pub iters: u32,
}

/// Which routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Gbmv,
    Tbsv,
    Tpsv,
}

/// The problem as both sides see it.
#[derive(Debug, Clone, Copy)]
struct Problem {
    op: Op,
    trans: bool,
    n: usize,
    k: usize,
}

impl Problem {
    /// Elements of A's storage, checked (the saturated factors overflow the product).
    fn stored(&self) -> Result<usize> {
        use rocm_core::host_alloc::elements;
        match self.op {
            Op::Gbmv => elements(
                "--n/--k: (2k + 1) * n",
                &[self.k.saturating_mul(2).saturating_add(1), self.n],
            ),
            Op::Tbsv => elements("--n/--k: (k + 1) * n", &[self.k.saturating_add(1), self.n]),
            Op::Tpsv => Ok(elements("--n: n * (n + 1)", &[self.n, self.n.saturating_add(1)])? / 2),
        }
    }

    /// Bytes one call must move.
    fn bytes(&self, esize: usize) -> f64 {
        let vectors = if self.op == Op::Gbmv { 3 } else { 2 };
        ((self.stored().unwrap_or(0) + vectors * self.n) * esize) as f64
    }
}

pub fn run(a: &BandArgs) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let op = match a.op.as_str() {
        "gbmv" => Op::Gbmv,
        "tbsv" => Op::Tbsv,
        "tpsv" => Op::Tpsv,
        o => return Err(Error::invalid("--op", format!("`{o}`: gbmv, tbsv or tpsv")).into()),
    };
    let trans = match a.trans.as_str() {
        "n" | "N" => false,
        "t" | "T" => true,
        o => return Err(Error::invalid("--trans", format!("`{o}`: n or t")).into()),
    };
    let n = a.n.unwrap_or(if op == Op::Tpsv { 16384 } else { 1 << 20 });
    if n == 0 || (op != Op::Tpsv && a.k == 0) {
        return Err(Error::invalid("--n/--k", "n and (gbmv, tbsv) k must be positive").into());
    }
    let p = Problem {
        op,
        trans,
        n,
        k: a.k.min(n - 1),
    };
    match a.dtype.as_str() {
        "f32" => bench::<f32>(&dev, a, p),
        "f64" => bench::<f64>(&dev, a, p),
        o => Err(Error::invalid("--dtype", format!("`{o}`: f32 or f64")).into()),
    }
}

/// A's storage: a pattern in (−0.5, 0.5) scaled by `off` off the diagonal, 1 on it.
fn matrix<T: Scalar>(p: &Problem) -> Result<Vec<T>> {
    use rocm_core::host_alloc::try_from_fn;
    let stored = p.stored()?;
    let real = |v: f64| T::from_real(num_traits::cast(v).unwrap_or_else(num_traits::Zero::zero));
    let pattern = |i: usize| (((i * 7 + 3) % 1000) as f64) * 1e-3 - 0.5;
    let n = p.n;
    match p.op {
        // Any values: a product, not a solve.
        Op::Gbmv => try_from_fn("band matrix", stored, |i| real(pattern(i))),
        Op::Tbsv => {
            let off = 1.0 / p.k as f64;
            try_from_fn("band matrix", stored, |i| {
                let diagonal = i % (p.k + 1) == 0;
                real(if diagonal { 1.0 } else { pattern(i) * off })
            })
        }
        Op::Tpsv => {
            // Column j of the packed lower triangle starts at j·n − j(j − 1)/2 with its
            // diagonal.
            let mut v: Vec<T> =
                try_from_fn("packed matrix", stored, |i| real(pattern(i) / n as f64))?;
            for j in 0..n {
                v[j * n - j * j.saturating_sub(1) / 2] = real(1.0);
            }
            Ok(v)
        }
    }
}

fn bench<T: Scalar + Peer>(
    dev: &Device,
    a: &BandArgs,
    p: Problem,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let esize = std::mem::size_of::<T>();
    let real = |v: f64| T::from_real(num_traits::cast(v).unwrap_or_else(num_traits::Zero::zero));
    let x0: Vec<T> = rocm_core::host_alloc::try_from_fn("x", p.n, |i| {
        real((((i * 13 + 5) % 997) as f64) * 1e-3 - 0.5)
    })?;
    let y0: Vec<T> = rocm_core::host_alloc::try_from_fn("y", p.n, |i| {
        real((((i * 11 + 1) % 991) as f64) * 1e-3 - 0.5)
    })?;
    let ad = DeviceBuffer::from_slice(dev, &matrix::<T>(&p)?)?;
    let mut yd = DeviceBuffer::from_slice(dev, &y0)?;
    let blas = Blas::new(dev);
    let trans = if p.trans { Transpose::T } else { Transpose::N };
    let (alpha, beta) = (real(1.0), real(0.5));
    // One call of ours: gbmv into y, the solves in place on x.
    let call = |xd: &mut DeviceBuffer<T>, yd: &mut DeviceBuffer<T>| -> Result<()> {
        let av = ad.as_slice();
        match p.op {
            Op::Gbmv => blas.gbmv(
                trans,
                p.n,
                p.n,
                p.k,
                p.k,
                alpha,
                &av,
                2 * p.k + 1,
                &xd.as_slice(),
                1,
                beta,
                &mut yd.as_slice_mut(),
                1,
            ),
            Op::Tbsv => blas.tbsv(
                Uplo::Lower,
                trans,
                Diag::NonUnit,
                p.n,
                p.k,
                &av,
                p.k + 1,
                &mut xd.as_slice_mut(),
                1,
            ),
            Op::Tpsv => blas.tpsv(
                Uplo::Lower,
                trans,
                Diag::NonUnit,
                p.n,
                &av,
                &mut xd.as_slice_mut(),
                1,
            ),
        }
    };
    let mut xt = DeviceBuffer::from_slice(dev, &x0)?;
    let ours = time(dev, a.iters, || call(&mut xt, &mut yd))?;
    // One call from the starting vectors, for the comparison.
    let mut xo = DeviceBuffer::from_slice(dev, &x0)?;
    let mut yo = DeviceBuffer::from_slice(dev, &y0)?;
    call(&mut xo, &mut yo)?;
    dev.synchronize()?;
    let our_result = if p.op == Op::Gbmv {
        yo.to_vec()?
    } else {
        xo.to_vec()?
    };

    let bytes = p.bytes(esize);
    println!(
        "device {} ({}): {}{:?} trans={} n={} k={} ({} stored elements)",
        dev.id(),
        dev.info().name,
        T::PREFIX,
        p.op,
        if p.trans { "T" } else { "N" },
        p.n,
        p.k,
        p.stored()?
    );
    println!(
        "ours:   {:>10.3} ms {:>9.1} GB/s",
        ours * 1e3,
        bytes / ours / 1e9
    );
    if a.vendor {
        match T::vendor(dev, &p, &ad, &x0, &y0, a.iters) {
            Ok((secs, theirs)) => {
                let scale = crate::report::nan_max(theirs.iter().map(|v| magnitude(*v)));
                let diff = crate::report::nan_max(
                    our_result
                        .iter()
                        .zip(&theirs)
                        .map(|(a, b)| magnitude(*a - *b)),
                );
                println!(
                    "cuBLAS: {:>10.3} ms {:>9.1} GB/s   ours/cuBLAS {:.3}x   max diff {:.1e} (relative to max |result|)",
                    secs * 1e3,
                    bytes / secs / 1e9,
                    secs / ours,
                    crate::report::relative(diff, scale)
                );
            }
            Err(e) => eprintln!("cuBLAS peer: {e}"),
        }
    }
    Ok(())
}

/// |v| as f64 (NaN where it does not convert, so a comparison shows it).
fn magnitude<T: Scalar>(v: T) -> f64 {
    num_traits::cast(v.modulus()).unwrap_or(f64::NAN)
}

/// The element types the cuBLAS peer knows.
trait Peer: Scalar {
    /// cuBLAS's seconds per call and its result from the starting vectors.
    fn vendor(
        dev: &Device,
        p: &Problem,
        a: &DeviceBuffer<Self>,
        x0: &[Self],
        y0: &[Self],
        iters: u32,
    ) -> Result<(f64, Vec<Self>)>;
}

#[cfg(feature = "vendor")]
impl<T: Scalar + crate::vendor::CublasBand> Peer for T {
    fn vendor(
        dev: &Device,
        p: &Problem,
        a: &DeviceBuffer<T>,
        x0: &[T],
        y0: &[T],
        iters: u32,
    ) -> Result<(f64, Vec<T>)> {
        use crate::vendor::Cublas;
        let h = Cublas::for_device(dev)?;
        let (n, k) = (crate::vendor::int("n", p.n)?, crate::vendor::int("k", p.k)?);
        let half = T::from_real(num_traits::cast(0.5).unwrap_or_else(num_traits::Zero::zero));
        let one = T::one();
        let aa = a.as_slice().address();
        let call = |h: &Cublas, x: u64, y: u64| -> Result<()> {
            // SAFETY: A holds the problem's stored elements, x and y n each (allocated
            // below and alive until this function returns).
            unsafe {
                match p.op {
                    Op::Gbmv => T::gbmv(h, p.trans, n, k, one, aa, x, half, y),
                    Op::Tbsv => T::tbsv(h, p.trans, n, k, aa, x),
                    Op::Tpsv => T::tpsv(h, p.trans, n, aa, x),
                }
            }
        };
        let xt = DeviceBuffer::from_slice(dev, x0)?;
        let yt = DeviceBuffer::from_slice(dev, y0)?;
        let (xa, ya) = (xt.as_slice().address(), yt.as_slice().address());
        let secs = h.time(iters, |h| call(h, xa, ya))?;
        let xo = DeviceBuffer::from_slice(dev, x0)?;
        let yo = DeviceBuffer::from_slice(dev, y0)?;
        call(&h, xo.as_slice().address(), yo.as_slice().address())?;
        // cuBLAS ran on the legacy default stream: wait for it before reading back.
        h.synchronize()?;
        let result = if p.op == Op::Gbmv {
            yo.to_vec()?
        } else {
            xo.to_vec()?
        };
        Ok((secs, result))
    }
}

#[cfg(not(feature = "vendor"))]
impl<T: Scalar> Peer for T {
    fn vendor(
        dev: &Device,
        _p: &Problem,
        _a: &DeviceBuffer<T>,
        _x0: &[T],
        _y0: &[T],
        _iters: u32,
    ) -> Result<(f64, Vec<T>)> {
        Err(Error::unsupported(
            "the cuBLAS peer (build rocm-bench with --features vendor)",
            dev.id(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed triangle's diagonal lands where column j starts; the band's on every
    /// (k + 1)-th element.
    #[test]
    fn triangles_have_unit_diagonals_and_small_off_diagonals() {
        let p = Problem {
            op: Op::Tpsv,
            trans: false,
            n: 5,
            k: 0,
        };
        let v = matrix::<f64>(&p).unwrap();
        let mut start = 0;
        for j in 0..5 {
            assert_eq!(v[start], 1.0, "column {j}");
            for i in 1..5 - j {
                assert!(v[start + i].abs() < 0.5 / 5.0 + 1e-12);
            }
            start += 5 - j;
        }
        let p = Problem {
            op: Op::Tbsv,
            trans: false,
            n: 7,
            k: 3,
        };
        let v = matrix::<f32>(&p).unwrap();
        for (i, x) in v.iter().enumerate() {
            if i % 4 == 0 {
                assert_eq!(*x, 1.0);
            } else {
                assert!(x.abs() < 0.5 / 3.0 + 1e-6);
            }
        }
    }

    /// The subcommand runs on the CPU device (no peer): every routine and transpose.
    #[test]
    fn runs_on_the_cpu() {
        for op in ["gbmv", "tbsv", "tpsv"] {
            for trans in ["n", "t"] {
                let a = BandArgs {
                    device: Some("cpu".into()),
                    op: op.into(),
                    dtype: "f64".into(),
                    trans: trans.into(),
                    n: Some(300),
                    k: 7,
                    vendor: false,
                    iters: 2,
                };
                run(&a).unwrap();
            }
        }
    }
}
