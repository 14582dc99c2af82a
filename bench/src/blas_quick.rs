//! `rocm-bench suite`'s BLAS section: Level 1, 2 and 3 once each, in f32 and f64, on
//! small random data on the chosen device, against `rocm_blas::reference`.
//!
//! Each routine's error is measured against the bound its arithmetic allows and the
//! section fails when any exceeds it:
//! - products and sums (dot, gemv, ger, gemm, syrk, symm, trmm, axpy): |got − want| ≤
//!   (k + 2)·ε·m, with k the length of the inner sum and m the reference's magnitude
//!   (|α|·Σ|a||b| + |β||c|);
//! - nrm2: relative error ≤ (n + 2)·ε;
//! - iamax: the reference's index exactly (random values: no ties);
//! - triangular solves (trsv, trsm) on diagonally dominant triangles: the residual
//!   |op(A)·x − α·b| ≤ 4·(n + 2)·ε·|op(A)|·|x| (backward stability), computed by the
//!   reference trmm.
//!
//! A routine the device does not run (`Error::Unsupported`) is listed as such and does
//! not fail the section.

use rocm_blas::reference as rf;
use rocm_blas::Blas;
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
use rocm_core::scalar::Scalar;
use rocm_core::{Device, DeviceBuffer, Error, Result};

/// The worst ratio error / bound over the elements (0 for none).
fn worst<T: Scalar>(got: &[T], want: &[T::Wide], mag: &[f64], k: usize) -> f64 {
    let eps = num_traits::ToPrimitive::to_f64(&T::eps()).unwrap_or(f64::EPSILON);
    got.iter()
        .zip(want)
        .zip(mag)
        .map(|((&g, &w), &m)| {
            let err = rf::abs_wide(g.widen() - w);
            let bound = (k as f64 + 2.0) * eps * m.max(f64::MIN_POSITIVE);
            if err.is_nan() {
                f64::INFINITY
            } else {
                err / bound
            }
        })
        .fold(0.0, f64::max)
}

/// Uniform values in [-1, 1), never all equal (xorshift, fixed seed).
struct Values(u64);

impl Values {
    fn take<T: Scalar>(&mut self, n: usize) -> Vec<T> {
        (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                let v = (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0;
                T::from_real(num_traits::NumCast::from(v).unwrap_or_else(num_traits::Zero::zero))
            })
            .collect()
    }

    /// An n×n triangle (the other part random too: it must be ignored) whose diagonal
    /// dominates its rows, so solves are well conditioned.
    fn triangle<T: Scalar>(&mut self, n: usize) -> Vec<T> {
        let mut a = self.take::<T>(n * n);
        for i in 0..n {
            a[i + i * n] = T::from_real(num_traits::NumCast::from(n as f64 + 1.0).unwrap());
        }
        a
    }
}

/// One routine's outcome: the worst error over its bound, or why it did not run.
type Outcome = std::result::Result<f64, Error>;

fn level1<T: Scalar>(
    blas: &Blas,
    dev: &Device,
    v: &mut Values,
) -> Result<Vec<(&'static str, Outcome)>> {
    let n = 1000;
    let (x, y) = (v.take::<T>(n), v.take::<T>(n));
    let dx = DeviceBuffer::from_slice(dev, &x)?;
    let mut out = Vec::new();
    // axpy: y ← αx + y, one rounding of a product and a sum per element.
    let alpha = v.take::<T>(1)[0];
    let mut dy = DeviceBuffer::from_slice(dev, &y)?;
    let r = blas
        .axpy(n, alpha, &dx.as_slice(), 1, &mut dy.as_slice_mut(), 1)
        .and_then(|_| {
            let got = dy.to_vec()?;
            let want: Vec<T::Wide> = (0..n)
                .map(|i| alpha.widen() * x[i].widen() + y[i].widen())
                .collect();
            let mag: Vec<f64> = (0..n)
                .map(|i| rf::abs_wide(alpha) * rf::abs_wide(x[i]) + rf::abs_wide(y[i]))
                .collect();
            Ok(worst(&got, &want, &mag, 0))
        });
    out.push(("axpy", r));
    let dy = DeviceBuffer::from_slice(dev, &y)?;
    let r = blas
        .dot(n, &dx.as_slice(), 1, &dy.as_slice(), 1)
        .map(|got| {
            let (want, mag) = rf::dot(n, &x, 1, &y, 1, false);
            worst(&[got], &[want], &[mag], n)
        });
    out.push(("dot", r));
    let r = blas.nrm2(n, &dx.as_slice(), 1).map(|got| {
        let want = rf::nrm2(n, &x, 1);
        let got = num_traits::ToPrimitive::to_f64(&got).unwrap_or(f64::NAN);
        let eps = num_traits::ToPrimitive::to_f64(&T::eps()).unwrap_or(f64::EPSILON);
        ((got - want) / want).abs() / ((n as f64 + 2.0) * eps)
    });
    out.push(("nrm2", r));
    let r = blas.iamax(n, &dx.as_slice(), 1).map(|got| {
        let want = rf::iamax(n, &x, 1, true);
        if got == want {
            0.0
        } else {
            f64::INFINITY
        }
    });
    out.push(("iamax", r));
    Ok(out)
}

fn level2<T: Scalar>(
    blas: &Blas,
    dev: &Device,
    v: &mut Values,
) -> Result<Vec<(&'static str, Outcome)>> {
    let (m, n) = (97, 83);
    let lda = m + 3;
    let a = v.take::<T>(lda * n);
    let da = DeviceBuffer::from_slice(dev, &a)?;
    let (alpha, beta) = (v.take::<T>(1)[0], v.take::<T>(1)[0]);
    let mut out = Vec::new();
    for (name, trans, (rows, cols)) in [
        ("gemv N", Transpose::N, (m, n)),
        ("gemv T", Transpose::T, (n, m)),
    ] {
        let (x, y) = (v.take::<T>(cols), v.take::<T>(rows));
        let dx = DeviceBuffer::from_slice(dev, &x)?;
        let mut dy = DeviceBuffer::from_slice(dev, &y)?;
        let r = blas
            .gemv(
                trans,
                m,
                n,
                alpha,
                &da.as_slice(),
                lda,
                &dx.as_slice(),
                1,
                beta,
                &mut dy.as_slice_mut(),
                1,
            )
            .and_then(|_| {
                let (want, mag) = rf::gemv(trans, m, n, alpha, &a, lda, &x, 1, beta, &y, 1);
                Ok(worst(&dy.to_vec()?, &want, &mag, cols))
            });
        out.push((name, r));
    }
    // ger: A ← αxyᵀ + A.
    let (x, y) = (v.take::<T>(m), v.take::<T>(n));
    let (dx, dy) = (
        DeviceBuffer::from_slice(dev, &x)?,
        DeviceBuffer::from_slice(dev, &y)?,
    );
    let mut dg = DeviceBuffer::from_slice(dev, &a)?;
    let r = blas
        .ger(
            m,
            n,
            alpha,
            &dx.as_slice(),
            1,
            &dy.as_slice(),
            1,
            &mut dg.as_slice_mut(),
            lda,
        )
        .and_then(|_| {
            let got = dg.to_vec()?;
            let (mut g, mut want, mut mag) = (Vec::new(), Vec::new(), Vec::new());
            for j in 0..n {
                for i in 0..m {
                    g.push(got[i + j * lda]);
                    want.push(alpha.widen() * x[i].widen() * y[j].widen() + a[i + j * lda].widen());
                    mag.push(
                        rf::abs_wide(alpha) * rf::abs_wide(x[i]) * rf::abs_wide(y[j])
                            + rf::abs_wide(a[i + j * lda]),
                    );
                }
            }
            Ok(worst(&g, &want, &mag, 1))
        });
    out.push(("ger", r));
    // trsv: L·x = b, checked by the residual.
    let t = v.triangle::<T>(n);
    let b = v.take::<T>(n);
    let dt = DeviceBuffer::from_slice(dev, &t)?;
    let mut dxs = DeviceBuffer::from_slice(dev, &b)?;
    let one = T::from_real(num_traits::One::one());
    let r = blas
        .trsv(
            Uplo::Lower,
            Transpose::N,
            Diag::NonUnit,
            n,
            &dt.as_slice(),
            n,
            &mut dxs.as_slice_mut(),
            1,
        )
        .and_then(|_| Ok(residual(Side::Left, &t, &dxs.to_vec()?, &b, n, 1, one)));
    out.push(("trsv", r));
    Ok(out)
}

/// `|op(A)·X − α·B|` over its backward-stability bound for a lower, non-unit, not
/// transposed triangle A (n×n, left) and X, B of n×cols (or cols×n, right).
fn residual<T: Scalar>(
    side: Side,
    a: &[T],
    x: &[T],
    b: &[T],
    n: usize,
    cols: usize,
    alpha: T,
) -> f64 {
    let (rows, cs) = if side == Side::Left {
        (n, cols)
    } else {
        (cols, n)
    };
    let one = T::from_real(num_traits::One::one());
    let (ax, mag) = rf::trmm(
        side,
        Uplo::Lower,
        Transpose::N,
        Diag::NonUnit,
        rows,
        cs,
        one,
        a,
        n,
        x,
        rows,
    );
    let want: Vec<T::Wide> = b.iter().map(|&v| alpha.widen() * v.widen()).collect();
    let got: Vec<T> = ax.into_iter().map(T::narrow).collect();
    // `worst` allows (k + 2)·ε·magnitude: k = 4n + 6 gives the documented 4·(n + 2)·ε
    // (the backward error of the solve, with the residual rounded once more on narrowing).
    worst(&got, &want, &mag, 4 * n + 6)
}

fn level3<T: Scalar>(
    blas: &Blas,
    dev: &Device,
    v: &mut Values,
) -> Result<Vec<(&'static str, Outcome)>> {
    let (m, n, k) = (70, 50, 40);
    let (alpha, beta) = (v.take::<T>(1)[0], v.take::<T>(1)[0]);
    let mut out = Vec::new();
    // gemm NN and TN.
    for (name, ta) in [("gemm NN", Transpose::N), ("gemm TN", Transpose::T)] {
        let lda = if ta == Transpose::N { m } else { k };
        let a = v.take::<T>(lda * if ta == Transpose::N { k } else { m });
        let b = v.take::<T>(k * n);
        let c = v.take::<T>(m * n);
        let (da, db) = (
            DeviceBuffer::from_slice(dev, &a)?,
            DeviceBuffer::from_slice(dev, &b)?,
        );
        let mut dc = DeviceBuffer::from_slice(dev, &c)?;
        let r = blas
            .gemm(
                ta,
                Transpose::N,
                m,
                n,
                k,
                alpha,
                &da.as_slice(),
                lda,
                &db.as_slice(),
                k,
                beta,
                &mut dc.as_slice_mut(),
                m,
            )
            .and_then(|_| {
                let (want, mag) = rf::gemm(
                    ta,
                    Transpose::N,
                    m,
                    n,
                    k,
                    alpha,
                    &a,
                    lda,
                    &b,
                    k,
                    beta,
                    &c,
                    m,
                );
                Ok(worst(&dc.to_vec()?, &want, &mag, k))
            });
        out.push((name, r));
    }
    // trsm (left, lower): L·X = α·B by the residual; trmm against the reference.
    let t = v.triangle::<T>(m);
    let b = v.take::<T>(m * n);
    let dt = DeviceBuffer::from_slice(dev, &t)?;
    let mut dx = DeviceBuffer::from_slice(dev, &b)?;
    let r = blas
        .trsm(
            Side::Left,
            Uplo::Lower,
            Transpose::N,
            Diag::NonUnit,
            m,
            n,
            alpha,
            &dt.as_slice(),
            m,
            &mut dx.as_slice_mut(),
            m,
        )
        .and_then(|_| Ok(residual(Side::Left, &t, &dx.to_vec()?, &b, m, n, alpha)));
    out.push(("trsm", r));
    let mut db = DeviceBuffer::from_slice(dev, &b)?;
    let r = blas
        .trmm(
            Side::Left,
            Uplo::Lower,
            Transpose::N,
            Diag::NonUnit,
            m,
            n,
            alpha,
            &dt.as_slice(),
            m,
            &mut db.as_slice_mut(),
            m,
        )
        .and_then(|_| {
            let (want, mag) = rf::trmm(
                Side::Left,
                Uplo::Lower,
                Transpose::N,
                Diag::NonUnit,
                m,
                n,
                alpha,
                &t,
                m,
                &b,
                m,
            );
            Ok(worst(&db.to_vec()?, &want, &mag, m))
        });
    out.push(("trmm", r));
    // syrk (lower, C ← αA·Aᵀ + βC over the lower triangle only).
    let a = v.take::<T>(n * k);
    let c = v.take::<T>(n * n);
    let da = DeviceBuffer::from_slice(dev, &a)?;
    let mut dc = DeviceBuffer::from_slice(dev, &c)?;
    let r = blas
        .syrk(
            Uplo::Lower,
            Transpose::N,
            n,
            k,
            alpha,
            &da.as_slice(),
            n,
            beta,
            &mut dc.as_slice_mut(),
            n,
        )
        .and_then(|_| {
            let got = dc.to_vec()?;
            let (want, mag) = rf::rank_k(
                Uplo::Lower,
                Transpose::N,
                n,
                k,
                alpha,
                &a,
                n,
                None,
                beta,
                &c,
                n,
                false,
            );
            let keep = |i: usize| Uplo::Lower.contains(i % n, i / n);
            let pick = |v: &[T]| {
                v.iter()
                    .enumerate()
                    .filter(|(i, _)| keep(*i))
                    .map(|(_, &x)| x)
                    .collect::<Vec<T>>()
            };
            let want: Vec<T::Wide> = want
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .map(|(_, &x)| x)
                .collect();
            let mag: Vec<f64> = mag
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .map(|(_, &x)| x)
                .collect();
            Ok(worst(&pick(&got), &want, &mag, k))
        });
    out.push(("syrk", r));
    // symm (left, lower): C ← αA·B + βC with A symmetric m×m.
    let s = v.take::<T>(m * m);
    let b = v.take::<T>(m * n);
    let c = v.take::<T>(m * n);
    let (ds, db) = (
        DeviceBuffer::from_slice(dev, &s)?,
        DeviceBuffer::from_slice(dev, &b)?,
    );
    let mut dc = DeviceBuffer::from_slice(dev, &c)?;
    let r = blas
        .symm(
            Side::Left,
            Uplo::Lower,
            m,
            n,
            alpha,
            &ds.as_slice(),
            m,
            &db.as_slice(),
            m,
            beta,
            &mut dc.as_slice_mut(),
            m,
        )
        .and_then(|_| {
            let (want, mag) = rf::symm(
                Side::Left,
                Uplo::Lower,
                m,
                n,
                alpha,
                &s,
                m,
                &b,
                m,
                beta,
                &c,
                m,
                false,
            );
            Ok(worst(&dc.to_vec()?, &want, &mag, m))
        });
    out.push(("symm", r));
    Ok(out)
}

/// Runs the section on `device` (default: the best present); an error names the first
/// routine whose result exceeded its bound.
pub fn quick(device: Option<&str>) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let dev = match device {
        Some(d) => Device::open(d)?,
        None => Device::default()?,
    };
    let blas = Blas::new(&dev);
    let mut v = Values(0x2545_f491_4f6c_dd1d);
    let mut failures = Vec::new();
    println!(
        "{:<8} {:<6} {:<8} {:>12}",
        "level", "dtype", "routine", "error/bound"
    );
    for (dtype, rows) in [
        ("f32", run_all::<f32>(&blas, &dev, &mut v)?),
        ("f64", run_all::<f64>(&blas, &dev, &mut v)?),
    ] {
        for (level, name, r) in rows {
            match r {
                Ok(ratio) => {
                    let verdict = if ratio <= 1.0 { "ok" } else { "FAILED" };
                    println!("{level:<8} {dtype:<6} {name:<8} {ratio:>12.3e}  {verdict}");
                    if ratio > 1.0 {
                        failures.push(format!("{dtype} {name}: error {ratio:.2e}x its bound"));
                    }
                }
                Err(Error::Unsupported { .. }) => {
                    println!(
                        "{level:<8} {dtype:<6} {name:<8} {:>12}  unsupported on {}",
                        "-",
                        dev.id()
                    )
                }
                Err(e) => failures.push(format!("{dtype} {name}: {e}")),
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("blas on {}: {}", dev.id(), failures.join("; ")).into())
    }
}

type Rows = Vec<(&'static str, &'static str, Outcome)>;

fn run_all<T: Scalar>(blas: &Blas, dev: &Device, v: &mut Values) -> Result<Rows> {
    let mut rows = Vec::new();
    for (level, list) in [
        ("level 1", level1::<T>(blas, dev, v)?),
        ("level 2", level2::<T>(blas, dev, v)?),
        ("level 3", level3::<T>(blas, dev, v)?),
    ] {
        rows.extend(list.into_iter().map(|(n, r)| (level, n, r)));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_passes_on_the_cpu() {
        quick(Some("cpu")).unwrap();
    }

    /// Every routine of the section runs on the emulated AMD devices (one per family).
    #[test]
    fn the_section_passes_on_emulated_amd_devices() {
        quick(Some("emu:gfx90a")).unwrap();
        quick(Some("emu:gfx1100")).unwrap();
    }

    #[test]
    fn a_wrong_result_exceeds_its_bound() {
        // One ulp-scale error passes, a 1e-3 relative error in f32 does not.
        let want = [1.0f64, 2.0];
        let mag = [1.0, 2.0];
        assert!(worst(&[1.0f32, 2.0], &want, &mag, 10) <= 1.0);
        assert!(worst(&[1.0f32, 2.002], &want, &mag, 10) > 1.0);
        assert!(worst(&[f32::NAN, 2.0], &want, &mag, 10).is_infinite());
    }
}
