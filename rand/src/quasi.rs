//! The quasi-random generators' fills (Sobol32/64, plain and scrambled: [`crate::sobol`])
//! in cuRAND's host layout: a call of `n` values with `D` dimensions writes
//! `n / D` consecutive points of each dimension, dimension after dimension (`out[d·n/D
//! + i]` is point `offset + i` of dimension `d`), and advances the offset by `n / D`
//! points; `n` must be a multiple of `D`. One value per point, by cuRAND's transforms
//! of a point `x` (checked against its output by `tests/vendor_sequences.rs`):
//!
//! | dist | Sobol32 (`x` 32 bits) | Sobol64 (`x` 64 bits) |
//! |---|---|---|
//! | bits | `x` (u32) | `x` (u64, stored in an i64 buffer) |
//! | uniform f32 | `fma(f32(x), 2⁻³², 2⁻³³)` | the same of `x >> 32` |
//! | uniform f64 | `x·2⁻³² + 2⁻³²` | `(x >> 11)·2⁻⁵³ + 2⁻⁵⁴` |
//! | normal, log-normal | `mean + stddev·Φ⁻¹(u)` of the uniform `u` of the same precision (the inverse CDF, which keeps the points' low discrepancy; Box–Muller would not) | the same |
//!
//! The normal quantile is cuRAND's mirrored form (the lower tail of the point or of its
//! complement: [`quantile32`], [`quantile64`]), computed in f64 ([`inverse_normal_cdf`])
//! and rounded to the value's precision; cuRAND's is CUDA's `erfcinv[f]`, so the
//! normals agree within a few ulps, not bit for bit (the bound is stated in the vendor
//! test).

use crate::dist::{Dist, Kind};
use crate::math::exp;
use crate::ops::{FloatOps, Host};
use rayon::prelude::*;
use rocm_core::{DType, Element, Error, Result};

use crate::sobol::{Dimension, Word};

/// Points per parallel task.
const CHUNK_POINTS: usize = 1 << 14;

/// The value type a quasi generator's `dist` is written in, or an error naming the
/// types it has.
pub fn check_dtype(kind: Kind, dist: Dist, dtype: DType) -> Result<()> {
    let bits = if kind.sobol_bits() == 64 {
        DType::I64
    } else {
        DType::U32
    };
    let ok = match dist {
        Dist::Bits => dtype == bits,
        Dist::Uniform | Dist::Normal | Dist::LogNormal => {
            matches!(dtype, DType::F32 | DType::F64)
        }
        _ => {
            return Err(Error::unsupported(
                format!("{} values from {}", dist.name(), kind.name()),
                "rocm-rand (the quasi-random generators give bits, uniform, normal and \
                 log-normal values)",
            ))
        }
    };
    if ok {
        return Ok(());
    }
    let has = match (dist, bits) {
        (Dist::Bits, DType::I64) => "u64 (an i64 buffer)",
        (Dist::Bits, _) => "u32",
        _ => "f32 or f64",
    };
    Err(Error::invalid(
        "dtype",
        format!(
            "{} values of {} are {has}, not {dtype}",
            dist.name(),
            kind.name()
        ),
    ))
}

/// `Φ⁻¹(u)` for `u` in (0, 1): an initial guess from the logistic-like tail form, then
/// Halley steps on `Φ(z) − u` with `Φ` from `erfc` (libm, under 1 ulp), the residual
/// taken on the smaller tail so it keeps its relative precision.
pub fn inverse_normal_cdf(u: f64) -> f64 {
    if u <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if u >= 1.0 {
        return f64::INFINITY;
    }
    // Work on the lower tail p = min(u, 1 − u) and restore the sign.
    let (p, sign) = if u < 0.5 { (u, -1.0) } else { (1.0 - u, 1.0) };
    if p == 0.5 {
        return 0.0;
    }
    // Guess: the tail's t = √(−2 ln p), z ≈ t − (2.515517 + 0.802853 t + 0.010328 t²)
    // / (1 + 1.432788 t + 0.189269 t² + 0.001308 t³) (Abramowitz & Stegun 26.2.23, error
    // below 4.5e-4), then three Halley steps (cubic convergence: 4.5e-4 → 1e-10 → below
    // f64's rounding).
    let t = (-2.0 * p.ln()).sqrt();
    let mut z = t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t)
            / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    // z > 0 is the upper quantile of p: solve Q(z) = p, Q(z) = erfc(z/√2)/2.
    for _ in 0..3 {
        let q = 0.5 * libm::erfc(z / std::f64::consts::SQRT_2);
        let pdf = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let e = q - p;
        // Newton on Q: dz = e / pdf; Halley's correction with Q'' = z·pdf.
        let dz = e / pdf;
        z += dz / (1.0 - 0.5 * z * dz);
    }
    sign * z
}

/// What one point becomes, as f64 (exact for every value type written).
#[derive(Clone, Copy)]
struct Transform {
    dist: Dist,
    dtype: DType,
    mean: f64,
    stddev: f64,
}

/// The standard normal quantile of a 32-bit point, as cuRAND mirrors it: the tail
/// `p = (min(x, 2³² − 1 − x) + ½)·2⁻³²` (exact), `Φ⁻¹(p)`, negated for the upper half.
fn quantile32(x: u32) -> f64 {
    let upper = x > 1 << 31;
    let m = if upper { u32::MAX - x } else { x };
    let z = inverse_normal_cdf((m as f64 + 0.5) * 2f64.powi(-32));
    if upper {
        -z
    } else {
        z
    }
}

/// The same of a 64-bit point, in 53 bits: `p = (min(x, 2⁶⁴ − 1 − x) >> 11)·2⁻⁵³ +
/// 2⁻⁵⁴` (exact).
fn quantile64(x: u64) -> f64 {
    let upper = x > 1 << 63;
    let m = if upper { u64::MAX - x } else { x };
    let z = inverse_normal_cdf((m >> 11) as f64 * 2f64.powi(-53) + 2f64.powi(-54));
    if upper {
        -z
    } else {
        z
    }
}

impl Transform {
    fn uniform32(&self, x: u32) -> f64 {
        match self.dtype {
            DType::F32 => (x as f32).mul_add(2f32.powi(-32), 2f32.powi(-33)) as f64,
            _ => x as f64 * 2f64.powi(-32) + 2f64.powi(-32),
        }
    }

    fn uniform64(&self, x: u64) -> f64 {
        match self.dtype {
            DType::F32 => self.uniform32((x >> 32) as u32),
            _ => (x >> 11) as f64 * 2f64.powi(-53) + 2f64.powi(-54),
        }
    }

    /// The value of a standard normal quantile `z` (`mean + stddev·z`, or its `e^·`),
    /// in the value's precision.
    fn of_quantile(&self, z: f64) -> f64 {
        match self.dtype {
            DType::F32 => self.in_precision::<f32>(z),
            _ => self.in_precision::<f64>(z),
        }
    }

    fn in_precision<R: crate::ops::Real>(&self, z: f64) -> f64
    where
        Host: FloatOps<R>,
        <Host as FloatOps<R>>::F: Into<f64>,
    {
        let h = &mut Host;
        let (z, sd, m) = (
            FloatOps::<R>::fc(h, z),
            FloatOps::<R>::fc(h, self.stddev),
            FloatOps::<R>::fc(h, self.mean),
        );
        let x = FloatOps::<R>::fma(h, z, sd, m);
        if self.dist == Dist::LogNormal {
            exp::<R, Host>(h, x).into()
        } else {
            x.into()
        }
    }

    fn of32(&self, x: u32) -> f64 {
        match self.dist {
            Dist::Uniform => self.uniform32(x),
            _ => self.of_quantile(quantile32(x)),
        }
    }

    fn of64(&self, x: u64) -> f64 {
        match (self.dist, self.dtype) {
            (Dist::Uniform, _) => self.uniform64(x),
            (_, DType::F32) => self.of_quantile(quantile32((x >> 32) as u32)),
            _ => self.of_quantile(quantile64(x)),
        }
    }
}

/// The points of one dimension as values of `T`.
fn write_points<W: Word, T: Element>(
    dim: &Dimension<W>,
    first: u64,
    t: Transform,
    value: impl Fn(&Transform, W) -> f64 + Sync,
    bits: impl Fn(W) -> T + Sync,
    out: &mut [T],
) {
    out.par_chunks_mut(CHUNK_POINTS)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut pts = vec![W::default(); chunk.len()];
            dim.points(first + (c * CHUNK_POINTS) as u64, &mut pts);
            for (slot, &x) in chunk.iter_mut().zip(&pts) {
                *slot = if t.dist == Dist::Bits {
                    bits(x)
                } else {
                    from_f64::<T>(value(&t, x))
                };
            }
        });
}

/// An exact f64 value as `T` (f32 values are already rounded).
fn from_f64<T: Element>(v: f64) -> T {
    match T::DTYPE {
        DType::F32 => bytemuck::cast(v as f32),
        DType::F64 => bytemuck::cast(v),
        _ => unreachable!("check_dtype admits floats only for the float transforms"),
    }
}

/// Checks a call of `n` values of `dist` in `dtype` (`dims` dimensions, from point
/// `offset`) and returns its points per dimension: `n` a multiple of `dims`, the
/// points inside the sequence (2³² points for Sobol32, 2⁶⁴ − 1 for Sobol64).
pub fn check(kind: Kind, dims: u32, dist: Dist, dtype: DType, offset: u64, n: u64) -> Result<u64> {
    check_dtype(kind, dist, dtype)?;
    if dims == 0 || n % dims as u64 != 0 {
        return Err(Error::invalid(
            "length",
            format!("{n} values are not a multiple of the generator's {dims} dimensions"),
        ));
    }
    let per = n / dims as u64;
    let period = if kind.sobol_bits() == 32 {
        1u64 << 32
    } else {
        u64::MAX
    };
    if offset.checked_add(per).is_none_or(|end| end > period) {
        return Err(Error::invalid(
            "offset",
            format!(
                "points {offset} + {per} pass the end of {}'s {period}-point sequence",
                kind.name()
            ),
        ));
    }
    Ok(per)
}

/// Points `first..` of dimension `dim` of `kind` as values of `dist` into `out`.
fn fill_dimension<T: Element>(
    kind: Kind,
    dim: u32,
    t: Transform,
    first: u64,
    out: &mut [T],
) -> Result<()> {
    if kind.sobol_bits() == 32 {
        let d = Dimension::<u32>::new(dim, kind.scrambled())?;
        write_points(
            &d,
            first,
            t,
            |t, x| t.of32(x),
            bytemuck::cast::<u32, T>,
            out,
        );
    } else {
        let d = Dimension::<u64>::new(dim, kind.scrambled())?;
        write_points(
            &d,
            first,
            t,
            |t, x| t.of64(x),
            bytemuck::cast::<u64, T>,
            out,
        );
    }
    Ok(())
}

/// Fills `out` with `kind`'s values of `dist` (`dims` dimensions) from point `offset`
/// of every dimension on the CPU; returns the offset's advance (points per dimension).
pub fn fill<T: Element>(
    kind: Kind,
    dims: u32,
    dist: Dist,
    offset: u64,
    mean: f64,
    stddev: f64,
    out: &mut [T],
) -> Result<u64> {
    let n = out.len() as u64;
    fill_window(kind, dims, dist, offset, n, 0, mean, stddev, out)?;
    Ok(n / dims.max(1) as u64)
}

/// [`fill`]'s positions `start..start + out.len()` of a call of `n` values from point
/// `offset`: a window of a long call, made without the values before it.
#[allow(clippy::too_many_arguments)]
pub fn fill_window<T: Element>(
    kind: Kind,
    dims: u32,
    dist: Dist,
    offset: u64,
    n: u64,
    start: u64,
    mean: f64,
    stddev: f64,
    out: &mut [T],
) -> Result<()> {
    let per = check(kind, dims, dist, T::DTYPE, offset, n)?;
    if start
        .checked_add(out.len() as u64)
        .is_none_or(|end| end > n)
    {
        return Err(Error::invalid(
            "window",
            format!(
                "positions {start} + {} pass the call's {n} values",
                out.len()
            ),
        ));
    }
    let t = Transform {
        dist,
        dtype: T::DTYPE,
        mean,
        stddev,
    };
    // Runs of the window within one dimension.
    let mut p = start;
    let mut rest = out;
    while !rest.is_empty() {
        let (dim, i) = (p / per, p % per);
        let len = ((per - i) as usize).min(rest.len());
        let (run, tail) = rest.split_at_mut(len);
        fill_dimension(kind, dim as u32, t, offset + i, run)?;
        rest = tail;
        p += len as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_cdf_inverts_the_cdf() {
        // Φ(Φ⁻¹(u)) = u to within the CDF's own error at u (relative on the tail).
        for &u in &[
            1e-300,
            2f64.powi(-33),
            1e-9,
            0.001,
            0.1,
            0.3,
            0.5,
            0.7,
            0.99,
            1.0 - 1e-12,
        ] {
            let z = inverse_normal_cdf(u);
            let p = if u < 0.5 {
                0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
            } else {
                1.0 - 0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
            };
            // Conditioning: z rounded to f64 (half an ulp, |z|·ε/2) moves the tail
            // by its density, relatively |z|·δz; erfc's own error is about 1 ulp, and
            // 1 − Φ for u > ½ rounds once more (ε·u).
            let tail = u.min(1.0 - u);
            let eps = f64::EPSILON;
            let bound = tail * (4.0 * eps + z * z * eps) + eps * u;
            assert!((p - u).abs() <= bound, "u {u}: z {z} gives {p}");
        }
        assert_eq!(inverse_normal_cdf(0.5), 0.0);
        assert_eq!(inverse_normal_cdf(0.0), f64::NEG_INFINITY);
        // Known quantiles.
        assert!((inverse_normal_cdf(0.975) - 1.959_963_984_540_054).abs() < 1e-15);
        assert!((inverse_normal_cdf(0.841_344_746_068_542_9) - 1.0).abs() < 1e-14);
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut out = vec![0u32; 10];
        assert!(fill(Kind::Sobol32, 3, Dist::Bits, 0, 0.0, 1.0, &mut out).is_err());
        assert!(fill(
            Kind::Sobol32,
            2,
            Dist::Bits,
            (1 << 32) - 4,
            0.0,
            1.0,
            &mut out
        )
        .is_err());
        assert!(fill(
            Kind::Sobol32,
            2,
            Dist::Bits,
            (1 << 32) - 5,
            0.0,
            1.0,
            &mut out
        )
        .is_ok());
        assert!(fill(Kind::Sobol64, 1, Dist::Bits, 0, 0.0, 1.0, &mut out).is_err());
        assert!(fill(Kind::Sobol32, 1, Dist::Poisson, 0, 4.0, 1.0, &mut out).is_err());
        let mut f = vec![0f32; 4];
        assert!(fill(
            Kind::Sobol64,
            1,
            Dist::Uniform,
            u64::MAX - 3,
            0.0,
            1.0,
            &mut f
        )
        .is_err());
        assert!(fill(
            Kind::Sobol64,
            1,
            Dist::Uniform,
            u64::MAX - 4,
            0.0,
            1.0,
            &mut f
        )
        .is_ok());
    }
}
