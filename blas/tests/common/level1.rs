//! One Level 1 routine on one device against `rocm_blas::reference`, for any device.
//!
//! Every vector is a view at an element offset into a buffer one element longer than it
//! needs (so a misaligned start and a guard after the end are both exercised); positions
//! a routine must not write are compared bit for bit with what was uploaded.
//!
//! Tolerances (ε the dtype's epsilon; `assert_close` multiplies by 4 for complex types):
//! - scal: one (complex) product per element: 2ε·|α||x|.
//! - axpy/axpby: a product and a multiply-add per element: 2ε·(|α x| + |β y|).
//! - rot: two products and a sum: 3ε·(|c| + |s|)(|x| + |y|); rotm likewise with the h's.
//! - dot/dotc/sum/asum: n-term sums in any order: (n + 1)ε·Σ|terms|.
//! - nrm2: a sum of n squares and a square root: (n + 4)ε·‖x‖.
//! - copy/swap/iamax/iamin: exact (no arithmetic, or comparisons in the working precision
//!   as the reference does them).

use super::*;
use rocm_blas::check::{vector_extent, vector_index};
use rocm_blas::{reference, Blas, Real, Scalar};
use rocm_core::{Complex32, Complex64, DType, Device, Result};

/// The Level 1 routines, as the tests enumerate them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routine {
    Scal,
    Axpy,
    Axpby,
    /// axpby with β = 0: y is never read (its old values are NaN here).
    AxpbyBeta0,
    Copy,
    Swap,
    Dot,
    Dotc,
    Sum,
    Asum,
    Nrm2,
    Iamax,
    Iamin,
    Rot,
    Rotm,
}

impl Routine {
    pub const ALL: [Routine; 15] = [
        Routine::Scal,
        Routine::Axpy,
        Routine::Axpby,
        Routine::AxpbyBeta0,
        Routine::Copy,
        Routine::Swap,
        Routine::Dot,
        Routine::Dotc,
        Routine::Sum,
        Routine::Asum,
        Routine::Nrm2,
        Routine::Iamax,
        Routine::Iamin,
        Routine::Rot,
        Routine::Rotm,
    ];

    /// Whether BLAS defines the routine for `dtype` (rotm is real only).
    pub fn applies(self, dtype: DType) -> bool {
        self != Routine::Rotm || !dtype.is_complex()
    }
}

/// The BLAS dtypes.
pub const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

/// One problem: length, increments, element offsets of the views, data seed.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub n: usize,
    pub incx: isize,
    pub incy: isize,
    pub offx: usize,
    pub offy: usize,
    pub seed: u64,
}

/// Runs `routine` for `dtype` on `dev` and checks it; the routine's own error (e.g.
/// `Unsupported`) is returned, mismatches panic.
pub fn check_routine(dev: &Device, routine: Routine, dtype: DType, case: Case) -> Result<()> {
    match (routine, dtype) {
        (Routine::Rotm, DType::F32) => check_rotm::<f32>(dev, case),
        (Routine::Rotm, DType::F64) => check_rotm::<f64>(dev, case),
        (Routine::Rotm, _) => panic!("rotm is not defined for {dtype}"),
        (_, DType::F32) => check::<f32>(dev, routine, case),
        (_, DType::F64) => check::<f64>(dev, routine, case),
        (_, DType::C32) => check::<Complex32>(dev, routine, case),
        (_, DType::C64) => check::<Complex64>(dev, routine, case),
        _ => panic!("no Level 1 routines for {dtype}"),
    }
}

/// A buffer of `off + extent + 1` random elements: the view starts at `off`.
fn buffer<T: Scalar>(r: &mut Rng64, case: Case, inc: isize, off: usize) -> Vec<T> {
    random_vec(r, off + vector_extent(case.n, inc) + 1)
}

/// Expected contents of a whole buffer: `Some((value, magnitude, terms))` where the routine
/// writes, `None` where the buffer must be unchanged.
type Expected<W> = Vec<Option<(W, f64, f64)>>;

fn compare<T: Scalar, W: Scalar>(got: &[T], old: &[T], want: &Expected<W>, what: &str) {
    assert_eq!(got.len(), old.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        match w {
            Some((v, mag, terms)) => assert_close(*g, *v, *mag, *terms, &format!("{what} [{i}]")),
            None => assert!(
                g == &old[i] || (g.has_nan() && old[i].has_nan()),
                "{what} [{i}]: wrote {g:?} where it must not (was {:?})",
                old[i]
            ),
        }
    }
}

fn check<T: Scalar>(dev: &Device, routine: Routine, case: Case) -> Result<()> {
    let blas = Blas::new(dev);
    let Case {
        n,
        incx,
        incy,
        offx,
        offy,
        seed,
    } = case;
    let mut r = rng(seed);
    let x: Vec<T> = buffer(&mut r, case, incx, offx);
    let mut y: Vec<T> = buffer(&mut r, case, incy, offy);
    let (alpha, beta): (T, T) = (random(&mut r), random(&mut r));
    let (ex, ey) = (vector_extent(n, incx), vector_extent(n, incy));
    let xi = |i: usize| offx + vector_index(i, n, incx);
    let yi = |i: usize| offy + vector_index(i, n, incy);
    // The logical vectors, for the reference reductions.
    let xs: Vec<T> = (0..n).map(|i| x[xi(i)]).collect();
    let ys: Vec<T> = (0..n).map(|i| y[yi(i)]).collect();
    let p = T::PREFIX;
    let what = format!("{p}{routine:?} n={n} incx={incx} incy={incy} off=({offx},{offy}) on {dev}");
    let xd = dev.upload(&x)?;
    let xv = xd.slice(offx..offx + ex)?;

    let unchanged = |len: usize| -> Expected<T::Wide> { vec![None; len] };
    match routine {
        Routine::Scal => {
            let mut xd = dev.upload(&x)?;
            blas.scal(n, alpha, &mut xd.slice_mut(offx..offx + ex)?, incx)?;
            let mut want = unchanged(x.len());
            for i in 0..n {
                let v = x[xi(i)];
                want[xi(i)] = Some((alpha.widen() * v.widen(), abs(alpha) * abs(v), 2.0));
            }
            compare(&xd.to_vec()?, &x, &want, &what);
        }
        Routine::Axpy | Routine::Axpby | Routine::AxpbyBeta0 => {
            let b = match routine {
                Routine::Axpy => T::one(),
                Routine::Axpby => beta,
                _ => T::zero(),
            };
            if routine == Routine::AxpbyBeta0 {
                // β = 0 must not read y: NaN there would poison a product.
                for i in 0..n {
                    y[yi(i)] = T::from_real(<T::Real as num_traits::Float>::nan());
                }
            }
            let mut yd = dev.upload(&y)?;
            let mut yv = yd.slice_mut(offy..offy + ey)?;
            if routine == Routine::Axpy {
                blas.axpy(n, alpha, &xv, incx, &mut yv, incy)?;
            } else {
                blas.axpby(n, alpha, &xv, incx, b, &mut yv, incy)?;
            }
            let mut want = unchanged(y.len());
            for i in 0..n {
                let (a, c) = (x[xi(i)], y[yi(i)]);
                let (v, mag) = if b == T::zero() {
                    (alpha.widen() * a.widen(), abs(alpha) * abs(a))
                } else {
                    (
                        alpha.widen() * a.widen() + b.widen() * c.widen(),
                        abs(alpha) * abs(a) + abs(b) * abs(c),
                    )
                };
                want[yi(i)] = Some((v, mag, 2.0));
            }
            compare(&yd.to_vec()?, &y, &want, &what);
        }
        Routine::Copy => {
            let mut yd = dev.upload(&y)?;
            blas.copy(n, &xv, incx, &mut yd.slice_mut(offy..offy + ey)?, incy)?;
            let mut want = unchanged(y.len());
            for i in 0..n {
                want[yi(i)] = Some((x[xi(i)].widen(), 0.0, 0.0));
            }
            compare(&yd.to_vec()?, &y, &want, &what);
        }
        Routine::Swap => {
            let (mut xd, mut yd) = (dev.upload(&x)?, dev.upload(&y)?);
            blas.swap(
                n,
                &mut xd.slice_mut(offx..offx + ex)?,
                incx,
                &mut yd.slice_mut(offy..offy + ey)?,
                incy,
            )?;
            let (mut wx, mut wy) = (unchanged(x.len()), unchanged(y.len()));
            for i in 0..n {
                wx[xi(i)] = Some((y[yi(i)].widen(), 0.0, 0.0));
                wy[yi(i)] = Some((x[xi(i)].widen(), 0.0, 0.0));
            }
            compare(&xd.to_vec()?, &x, &wx, &format!("{what} x"));
            compare(&yd.to_vec()?, &y, &wy, &format!("{what} y"));
        }
        Routine::Dot | Routine::Dotc => {
            let conj = routine == Routine::Dotc;
            let yd = dev.upload(&y)?;
            let yv = yd.slice(offy..offy + ey)?;
            let got = if conj {
                blas.dotc(n, &xv, incx, &yv, incy)?
            } else {
                blas.dot(n, &xv, incx, &yv, incy)?
            };
            let (want, mag) = reference::dot(n, &xs, 1, &ys, 1, conj);
            assert_close(got, want, mag, (n + 1) as f64, &what);
        }
        Routine::Sum => {
            let got = blas.sum(n, &xv, incx)?;
            let ones = vec![T::one(); n];
            let (want, mag) = reference::dot(n, &xs, 1, &ones, 1, false);
            assert_close(got, want, mag, (n + 1) as f64, &what);
        }
        Routine::Asum => {
            let got = blas.asum(n, &xv, incx)?;
            let want = reference::asum(n, &xs, 1);
            assert_close(got, want, want, (n + 1) as f64, &what);
        }
        Routine::Nrm2 => {
            let got = blas.nrm2(n, &xv, incx)?;
            let want = reference::nrm2(n, &xs, 1);
            assert_close(got, want, want, (n + 4) as f64, &what);
        }
        Routine::Iamax | Routine::Iamin => {
            let max = routine == Routine::Iamax;
            let got = if max {
                blas.iamax(n, &xv, incx)?
            } else {
                blas.iamin(n, &xv, incx)?
            };
            assert_eq!(got, reference::iamax(n, &xs, 1, max), "{what}");
        }
        Routine::Rot => {
            let theta: f64 = r.random_range(0.0..std::f64::consts::TAU);
            let c: T::Real = real(theta.cos());
            let s = T::from_parts(real(theta.sin() * 0.6), real(theta.sin() * 0.8));
            let (mut xd, mut yd) = (dev.upload(&x)?, dev.upload(&y)?);
            blas.rot(
                n,
                &mut xd.slice_mut(offx..offx + ex)?,
                incx,
                &mut yd.slice_mut(offy..offy + ey)?,
                incy,
                c,
                s,
            )?;
            let cw = T::from_real(c);
            let (mut wx, mut wy) = (unchanged(x.len()), unchanged(y.len()));
            for i in 0..n {
                let (a, b) = (x[xi(i)], y[yi(i)]);
                let mag = (abs(cw) + abs(s)) * (abs(a) + abs(b));
                wx[xi(i)] = Some((cw.widen() * a.widen() + s.widen() * b.widen(), mag, 3.0));
                wy[yi(i)] = Some((
                    cw.widen() * b.widen() - s.conj().widen() * a.widen(),
                    mag,
                    3.0,
                ));
            }
            compare(&xd.to_vec()?, &x, &wx, &format!("{what} x"));
            compare(&yd.to_vec()?, &y, &wy, &format!("{what} y"));
        }
        Routine::Rotm => panic!("rotm goes through check_rotm"),
    }
    Ok(())
}

/// rotm with flag −1 (full H), 0, 1 (implied entries) or −2 (identity) by `seed mod 4`.
fn check_rotm<R: Real>(dev: &Device, case: Case) -> Result<()> {
    let blas = Blas::new(dev);
    let Case {
        n,
        incx,
        incy,
        offx,
        offy,
        seed,
    } = case;
    let mut r = rng(seed);
    let x: Vec<R> = buffer(&mut r, case, incx, offx);
    let y: Vec<R> = buffer(&mut r, case, incy, offy);
    // The flag from the seed (seed mod 4 = 3 is the identity), the rest at random.
    let flag = [-1.0, 0.0, 1.0, -2.0][(seed % 4) as usize];
    let h: [f64; 4] = std::array::from_fn(|_| r.random_range(-2.0..2.0));
    let param: [R; 5] = [real(flag), real(h[0]), real(h[1]), real(h[2]), real(h[3])];
    // The matrix H = [[h11, h12], [h21, h22]] BLAS's flag implies.
    let (h11, h21, h12, h22) = match flag as i32 {
        -1 => (h[0], h[1], h[2], h[3]),
        0 => (1.0, h[1], h[2], 1.0),
        1 => (h[0], -1.0, 1.0, h[3]),
        _ => (1.0, 0.0, 0.0, 1.0),
    };
    let (ex, ey) = (vector_extent(n, incx), vector_extent(n, incy));
    let (mut xd, mut yd) = (dev.upload(&x)?, dev.upload(&y)?);
    blas.rotm(
        n,
        &mut xd.slice_mut(offx..offx + ex)?,
        incx,
        &mut yd.slice_mut(offy..offy + ey)?,
        incy,
        param,
    )?;
    let xi = |i: usize| offx + vector_index(i, n, incx);
    let yi = |i: usize| offy + vector_index(i, n, incy);
    let (mut wx, mut wy): (Expected<f64>, Expected<f64>) =
        (vec![None; x.len()], vec![None; y.len()]);
    if flag != -2.0 {
        for i in 0..n {
            let (a, b) = (x[xi(i)].as_f64(), y[yi(i)].as_f64());
            let mx = (h11 * a).abs() + (h12 * b).abs();
            let my = (h21 * a).abs() + (h22 * b).abs();
            wx[xi(i)] = Some((h11 * a + h12 * b, mx, 3.0));
            wy[yi(i)] = Some((h21 * a + h22 * b, my, 3.0));
        }
    }
    let what = format!(
        "{}rotm flag={flag} n={n} incx={incx} incy={incy} on {dev}",
        R::PREFIX
    );
    compare(&xd.to_vec()?, &x, &wx, &format!("{what} x"));
    compare(&yd.to_vec()?, &y, &wy, &format!("{what} y"));
    Ok(())
}
