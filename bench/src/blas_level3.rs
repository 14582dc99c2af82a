//! `rocm-bench blas trsm|trmm|syrk|symm`: one Level 3 problem timed through rocm-blas
//! and (with `--vendor`, built with `--features vendor`, on a CUDA device) through
//! cuBLAS in the same run, on copies of the same data.
//!
//! Flops counted per call (the standard counts): trsm and trmm m²n (side L) or mn² (R),
//! syrk n²k, symm 2m²n (L) or 2mn² (R). The row gives ms per call and TFLOP/s for each
//! side, our speed over cuBLAS's (cuBLAS time / ours) and, as a sanity check (not a
//! test), the largest difference between one call of each on identical inputs relative
//! to the largest |result|.
//!
//! Data: A is diagonally dominant in its triangle (diagonal in [1, 2), off-diagonal
//! entries of size ≤ 1/order), so repeated in-place trsm/trmm calls keep B of moderate
//! size; B and C are uniform in [-0.5, 0.5). α = 1, β = 0.5 (symm, syrk).

use crate::blas::time;
use rocm_blas::Blas;
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
use rocm_core::scalar::Scalar;
use rocm_core::{Device, DeviceBuffer, Error, Result};

/// A Level 3 routine of the bench.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Trsm,
    Trmm,
    Syrk,
    Symm,
}

#[derive(clap::Args)]
pub struct Level3Args {
    #[arg(long)]
    pub device: Option<String>,
    /// f32 or f64.
    #[arg(long, default_value = "f32")]
    pub dtype: String,
    /// Rows of B and C (trsm, trmm, symm); syrk takes --n and --k.
    #[arg(long, default_value_t = 8192)]
    pub m: usize,
    #[arg(long, default_value_t = 8192)]
    pub n: usize,
    /// syrk's inner dimension.
    #[arg(long, default_value_t = 8192)]
    pub k: usize,
    /// L or R.
    #[arg(long, default_value = "L")]
    pub side: String,
    /// L or U.
    #[arg(long, default_value = "L")]
    pub uplo: String,
    /// N or T.
    #[arg(long, default_value = "N")]
    pub trans: String,
    /// Unit diagonal (trsm, trmm).
    #[arg(long)]
    pub unit: bool,
    /// Also run cuBLAS (needs `--features vendor` and a CUDA device).
    #[arg(long)]
    pub vendor: bool,
    /// Timed calls per side.
    #[arg(long, default_value_t = 10)]
    pub iters: u32,
}

struct Problem {
    op: Op,
    side: Side,
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    m: usize,
    n: usize,
    k: usize,
}

impl Problem {
    /// Order of A (trsm/trmm/symm), or rows × cols of syrk's stored A.
    fn a_dims(&self) -> (usize, usize) {
        match self.op {
            Op::Syrk => self.trans.stored_dims(self.n, self.k),
            _ => {
                let ka = if self.side == Side::Left {
                    self.m
                } else {
                    self.n
                };
                (ka, ka)
            }
        }
    }

    /// Rows × cols of B (or syrk's C).
    fn b_dims(&self) -> (usize, usize) {
        match self.op {
            Op::Syrk => (self.n, self.n),
            _ => (self.m, self.n),
        }
    }

    fn flops(&self) -> f64 {
        let (m, n, k) = (self.m as f64, self.n as f64, self.k as f64);
        let left = self.side == Side::Left;
        match self.op {
            Op::Trsm | Op::Trmm if left => m * m * n,
            Op::Trsm | Op::Trmm => m * n * n,
            Op::Syrk => n * n * k,
            Op::Symm if left => 2.0 * m * m * n,
            Op::Symm => 2.0 * m * n * n,
        }
    }
}

fn parse<V: Copy>(what: &str, v: &str, table: &[(&str, V)]) -> Result<V> {
    table
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(v))
        .map(|&(_, x)| x)
        .ok_or_else(|| {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            Error::invalid(what, format!("`{v}`: one of {}", names.join(", ")))
        })
}

pub fn run(op: Op, a: &Level3Args) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dev = match &a.device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let p = Problem {
        op,
        side: parse("--side", &a.side, &[("L", Side::Left), ("R", Side::Right)])?,
        uplo: parse("--uplo", &a.uplo, &[("L", Uplo::Lower), ("U", Uplo::Upper)])?,
        trans: parse(
            "--trans",
            &a.trans,
            &[("N", Transpose::N), ("T", Transpose::T)],
        )?,
        diag: if a.unit { Diag::Unit } else { Diag::NonUnit },
        m: a.m,
        n: a.n,
        k: a.k,
    };
    match a.dtype.as_str() {
        "f32" => bench::<f32>(&dev, &p, a),
        "f64" => bench::<f64>(&dev, &p, a),
        o => Err(Error::invalid("--dtype", format!("`{o}`: f32 or f64")).into()),
    }
}

fn real<T: Scalar>(v: f64) -> T {
    T::from_real(num_traits::NumCast::from(v).unwrap_or_else(num_traits::Zero::zero))
}

/// A diagonally dominant matrix of `rows × cols` (ld = rows) for the triangle of A.
fn a_values<T: Scalar>((rows, cols): (usize, usize)) -> Result<Vec<T>> {
    let scale = 1.0 / rows.max(cols).max(1) as f64;
    let len = rocm_core::host_alloc::elements("--m/--n/--k: A's rows * cols", &[rows, cols])?;
    let mut v = rocm_core::host_alloc::try_with_capacity("A", len)?;
    for j in 0..cols {
        for i in 0..rows {
            let u = ((i * 7 + j * 13) % 1000) as f64 * 1e-3;
            v.push(real(if i == j { 1.0 + u } else { (u - 0.5) * scale }));
        }
    }
    Ok(v)
}

fn b_values<T: Scalar>((rows, cols): (usize, usize), salt: usize) -> Result<Vec<T>> {
    let len = rocm_core::host_alloc::elements("--m/--n/--k: rows * cols", &[rows, cols])?;
    rocm_core::host_alloc::try_from_fn("operand", len, |i| {
        real((((i * 11 + salt) % 1000) as f64) * 1e-3 - 0.5)
    })
}

fn bench<T: Scalar>(
    dev: &Device,
    p: &Problem,
    args: &Level3Args,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let blas = Blas::new(dev);
    let (ar, ac) = p.a_dims();
    let (br, bc) = p.b_dims();
    let a = DeviceBuffer::from_slice(dev, &a_values::<T>((ar, ac))?)?;
    // syrk's A is dense: reuse B's pattern for it.
    let a = if p.op == Op::Syrk {
        DeviceBuffer::from_slice(dev, &b_values::<T>((ar, ac), 5)?)?
    } else {
        a
    };
    let b0 = b_values::<T>((br, bc), 1)?;
    let (alpha, beta) = (T::one(), real::<T>(0.5));
    let mut ours = DeviceBuffer::from_slice(dev, &b0)?;
    // symm reads B and writes C.
    let bsym = DeviceBuffer::from_slice(dev, &b_values::<T>((p.m, p.n), 3)?)?;
    let (lda, ldb) = (ar, br);
    let call = |out: &mut DeviceBuffer<T>| -> Result<()> {
        let (av, mut ov) = (a.as_slice(), out.as_slice_mut());
        match p.op {
            Op::Trsm => blas.trsm(
                p.side, p.uplo, p.trans, p.diag, p.m, p.n, alpha, &av, lda, &mut ov, ldb,
            ),
            Op::Trmm => blas.trmm(
                p.side, p.uplo, p.trans, p.diag, p.m, p.n, alpha, &av, lda, &mut ov, ldb,
            ),
            Op::Syrk => blas.syrk(
                p.uplo, p.trans, p.n, p.k, alpha, &av, lda, beta, &mut ov, br,
            ),
            Op::Symm => blas.symm(
                p.side,
                p.uplo,
                p.m,
                p.n,
                alpha,
                &av,
                lda,
                &bsym.as_slice(),
                p.m,
                beta,
                &mut ov,
                br,
            ),
        }
    };
    // One checked call of each side on the same inputs, then the timings.
    call(&mut ours)?;
    dev.synchronize()?;
    let our_result = ours.to_vec()?;
    let secs = time(dev, args.iters, || call(&mut ours))?;
    let flops = p.flops();
    print!(
        "{:<5} {:<4} side={:?} uplo={:?} trans={} m={} n={} k={}  ours {:>9.3} ms {:>7.2} TFLOP/s",
        format!("{:?}", p.op).to_lowercase(),
        T::DTYPE,
        p.side,
        p.uplo,
        p.trans,
        p.m,
        p.n,
        p.k,
        secs * 1e3,
        flops / secs / 1e12
    );
    if args.vendor {
        let theirs = DeviceBuffer::from_slice(dev, &b0)?;
        let vcall = |out: &DeviceBuffer<T>| vendor::Call {
            op: p.op,
            f64: T::DTYPE == rocm_core::DType::F64,
            right: p.side == Side::Right,
            upper: p.uplo == Uplo::Upper,
            trans: p.trans.is_trans(),
            unit: p.diag == Diag::Unit,
            m: if p.op == Op::Syrk { p.n } else { p.m },
            n: p.n,
            k: p.k,
            a: a.as_slice().address(),
            lda,
            b: if p.op == Op::Symm {
                bsym.as_slice().address()
            } else {
                out.as_slice().address()
            },
            ldb: if p.op == Op::Symm { p.m } else { ldb },
            c: out.as_slice().address(),
            ldc: br,
            alpha: 1.0,
            beta: 0.5,
        };
        let c = vcall(&theirs);
        vendor::once(dev, &c)?;
        let their_result = theirs.to_vec()?;
        let vsecs = vendor::time(dev, &c, args.iters)?;
        let (mut diff, mut big) = (0.0f64, 0.0f64);
        for (o, t) in our_result.iter().zip(&their_result) {
            diff = diff.max(rocm_blas::reference::abs_wide(*o - *t));
            big = big.max(rocm_blas::reference::abs_wide(*t));
        }
        println!(
            "  cuBLAS {:>9.3} ms {:>7.2} TFLOP/s  ratio {:>6.3}x  rel.diff {:.1e}",
            vsecs * 1e3,
            flops / vsecs / 1e12,
            vsecs / secs,
            diff / big.max(f64::MIN_POSITIVE)
        );
    } else {
        println!();
    }
    Ok(())
}

/// The cuBLAS peer: one call, or the mean seconds per call, on device addresses.
mod vendor {
    use super::Op;
    use rocm_core::{Device, Result};

    #[cfg_attr(not(feature = "vendor"), allow(dead_code))]
    pub struct Call {
        pub op: Op,
        pub f64: bool,
        pub right: bool,
        pub upper: bool,
        pub trans: bool,
        pub unit: bool,
        pub m: usize,
        pub n: usize,
        pub k: usize,
        pub a: u64,
        pub lda: usize,
        pub b: u64,
        pub ldb: usize,
        pub c: u64,
        pub ldc: usize,
        pub alpha: f64,
        pub beta: f64,
    }

    #[cfg(feature = "vendor")]
    fn cublas_call(c: &Call) -> crate::vendor::L3Call {
        use crate::vendor::{L3Call, L3Op};
        L3Call {
            op: match c.op {
                Op::Trsm => L3Op::Trsm,
                Op::Trmm => L3Op::Trmm,
                Op::Syrk => L3Op::Syrk,
                Op::Symm => L3Op::Symm,
            },
            f64: c.f64,
            right: c.right,
            upper: c.upper,
            trans: c.trans,
            unit: c.unit,
            m: c.m,
            n: c.n,
            k: c.k,
            a: c.a,
            lda: c.lda,
            b: c.b,
            ldb: c.ldb,
            c: c.c,
            ldc: c.ldc,
            alpha: c.alpha,
            beta: c.beta,
        }
    }

    #[cfg(feature = "vendor")]
    pub fn once(dev: &Device, c: &Call) -> Result<()> {
        let h = crate::vendor::Cublas::for_device(dev)?;
        let g = cublas_call(c);
        // SAFETY: the caller passes addresses of live device buffers sized for the
        // problem (`bench` keeps them alive across this call).
        unsafe { h.level3(&g) }?;
        dev.synchronize()
    }

    #[cfg(feature = "vendor")]
    pub fn time(dev: &Device, c: &Call, iters: u32) -> Result<f64> {
        let h = crate::vendor::Cublas::for_device(dev)?;
        let g = cublas_call(c);
        // SAFETY: as in `once`.
        h.time(iters, |h| unsafe { h.level3(&g) })
    }

    #[cfg(not(feature = "vendor"))]
    pub fn once(dev: &Device, _c: &Call) -> Result<()> {
        Err(rocm_core::Error::unsupported(
            "the cuBLAS peer (build rocm-bench with --features vendor)",
            dev.id(),
        ))
    }

    #[cfg(not(feature = "vendor"))]
    pub fn time(dev: &Device, _c: &Call, _iters: u32) -> Result<f64> {
        once(dev, _c).map(|()| 0.0)
    }
}
