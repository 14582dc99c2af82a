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
use half::{bf16, f16};
use rocm_blas::check::{vector_extent, vector_index};
use rocm_blas::level1_ex::CONVERSIONS;
use rocm_blas::{reference, Blas, FloatElement, Half, Real, RealElement, Scalar};
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
    /// x = α
    Fill,
    /// y = x converted to the given dtype (x's dtype is the case's).
    ConvertTo(DType),
    /// The f16/bf16 `_ex` routines (f32 compute).
    ScalEx,
    AxpyEx,
    AxpbyEx,
    AxpbyExBeta0,
    DotEx,
    Nrm2Ex,
}

impl Routine {
    pub const ALL: [Routine; 26] = [
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
        Routine::Fill,
        Routine::ConvertTo(DType::F16),
        Routine::ConvertTo(DType::Bf16),
        Routine::ConvertTo(DType::F32),
        Routine::ConvertTo(DType::F64),
        Routine::ScalEx,
        Routine::AxpyEx,
        Routine::AxpbyEx,
        Routine::AxpbyExBeta0,
        Routine::DotEx,
        Routine::Nrm2Ex,
    ];

    /// Whether the library defines the routine for `dtype`: the BLAS routines on the
    /// four BLAS types (rotm real only), copy/swap/fill on all six, conversions on the
    /// pairs of [`CONVERSIONS`], the `_ex` routines on f16 and bf16.
    pub fn applies(self, dtype: DType) -> bool {
        let half = matches!(dtype, DType::F16 | DType::Bf16);
        match self {
            Routine::Copy | Routine::Swap | Routine::Fill => true,
            Routine::Rotm => matches!(dtype, DType::F32 | DType::F64),
            Routine::ConvertTo(to) => CONVERSIONS.contains(&(dtype, to)),
            Routine::ScalEx
            | Routine::AxpyEx
            | Routine::AxpbyEx
            | Routine::AxpbyExBeta0
            | Routine::DotEx
            | Routine::Nrm2Ex => half,
            _ => !half,
        }
    }
}

/// The BLAS dtypes.
pub const BLAS_DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

/// Every dtype a Level 1 routine takes.
pub const DTYPES: [DType; 6] = [
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
    DType::F16,
    DType::Bf16,
];

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
    assert!(
        routine.applies(dtype),
        "{routine:?} is not defined for {dtype}"
    );
    let half = matches!(dtype, DType::F16 | DType::Bf16);
    match (routine, dtype) {
        (Routine::Rotm, DType::F32) => check_rotm::<f32>(dev, case),
        (Routine::Rotm, DType::F64) => check_rotm::<f64>(dev, case),
        (Routine::Copy | Routine::Swap | Routine::Fill, _) => match dtype {
            DType::F32 => check_move::<f32>(dev, routine, case),
            DType::F64 => check_move::<f64>(dev, routine, case),
            DType::C32 => check_move::<Complex32>(dev, routine, case),
            DType::C64 => check_move::<Complex64>(dev, routine, case),
            DType::F16 => check_move::<f16>(dev, routine, case),
            _ => check_move::<bf16>(dev, routine, case),
        },
        (Routine::ConvertTo(to), _) => match (dtype, to) {
            (DType::F32, DType::F16) => check_convert(dev, case, f16::from_f32),
            (DType::F16, DType::F32) => check_convert(dev, case, f16::to_f32),
            (DType::F32, DType::Bf16) => check_convert(dev, case, bf16::from_f32),
            (DType::Bf16, DType::F32) => check_convert(dev, case, bf16::to_f32),
            (DType::F64, DType::F32) => check_convert(dev, case, |v: f64| v as f32),
            _ => check_convert(dev, case, |v: f32| v as f64),
        },
        (_, DType::F16) => check_half::<f16>(dev, routine, case),
        (_, DType::Bf16) => check_half::<bf16>(dev, routine, case),
        _ if half => unreachable!(),
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
        _ => panic!("{routine:?} goes through its own check"),
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

/// An element type the tests can fill with random values.
pub trait TestElement: FloatElement {
    /// The real value `v` in this type (rounded; imaginary part 0).
    fn make(v: f64) -> Self;
    /// Components uniform in [-1, 1) (rounded into the type).
    fn random(r: &mut Rng64) -> Self;
}

macro_rules! test_element {
    ($($t:ty => $make:expr, $from_parts:expr);* $(;)?) => {$(
        impl TestElement for $t {
            fn make(v: f64) -> Self {
                $make(v)
            }
            fn random(r: &mut Rng64) -> Self {
                let (a, b): (f64, f64) = (r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
                $from_parts(a, b)
            }
        }
    )*};
}
test_element! {
    f32 => |v| v as f32, |a, _| a as f32;
    f64 => |v| v, |a, _| a;
    Complex32 => |v| Complex32::new(v as f32, 0.0), |a, b| Complex32::new(a as f32, b as f32);
    Complex64 => |v| Complex64::new(v, 0.0), Complex64::new;
    f16 => |v| f16::from_f32(v as f32), |a, _| f16::from_f32(a as f32);
    bf16 => |v| bf16::from_f32(v as f32), |a, _| bf16::from_f32(a as f32);
}

/// Every element equal to `want` where it is `Some`, to `old` elsewhere, bit for bit.
fn compare_exact<T: FloatElement>(got: &[T], old: &[T], want: &[Option<T>], what: &str) {
    assert_eq!(got.len(), old.len(), "{what}: length");
    for (i, g) in got.iter().enumerate() {
        let w = want[i].unwrap_or(old[i]);
        // The data holds no NaN, and copies keep the sign of zero: `==` is bitwise here.
        assert!(
            *g == w
                && g.components().map(f64::is_sign_negative)
                    == w.components().map(f64::is_sign_negative),
            "{what} [{i}]: got {g:?}, want {w:?} (was {:?}, written: {})",
            old[i],
            want[i].is_some()
        );
    }
}

/// copy, swap, fill: no arithmetic, so bit-exact.
fn check_move<T: TestElement>(dev: &Device, routine: Routine, case: Case) -> Result<()> {
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
    let mut random_buf = |inc: isize, off: usize| -> Vec<T> {
        (0..off + vector_extent(n, inc) + 1)
            .map(|_| T::random(&mut r))
            .collect()
    };
    let (x, y) = (random_buf(incx, offx), random_buf(incy, offy));
    let alpha = T::random(&mut rng(seed ^ 0x5eed));
    let (ex, ey) = (vector_extent(n, incx), vector_extent(n, incy));
    let xi = |i: usize| offx + vector_index(i, n, incx);
    let yi = |i: usize| offy + vector_index(i, n, incy);
    let what = format!(
        "{routine:?} {} n={n} incx={incx} incy={incy} off=({offx},{offy}) on {dev}",
        T::DTYPE
    );
    let (mut xd, mut yd) = (dev.upload(&x)?, dev.upload(&y)?);
    let (mut wx, mut wy) = (vec![None; x.len()], vec![None; y.len()]);
    match routine {
        Routine::Copy => {
            let xv = xd.slice(offx..offx + ex)?;
            blas.copy(n, &xv, incx, &mut yd.slice_mut(offy..offy + ey)?, incy)?;
            (0..n).for_each(|i| wy[yi(i)] = Some(x[xi(i)]));
        }
        Routine::Swap => {
            blas.swap(
                n,
                &mut xd.slice_mut(offx..offx + ex)?,
                incx,
                &mut yd.slice_mut(offy..offy + ey)?,
                incy,
            )?;
            for i in 0..n {
                wx[xi(i)] = Some(y[yi(i)]);
                wy[yi(i)] = Some(x[xi(i)]);
            }
        }
        _ => {
            blas.fill(n, alpha, &mut xd.slice_mut(offx..offx + ex)?, incx)?;
            (0..n).for_each(|i| wx[xi(i)] = Some(alpha));
        }
    }
    compare_exact(&xd.to_vec()?, &x, &wx, &format!("{what} x"));
    compare_exact(&yd.to_vec()?, &y, &wy, &format!("{what} y"));
    Ok(())
}

/// A source value for conversions: random in [-1, 1) scaled by a power of two from
/// 2⁻³⁰ to 2³⁰ (f16's subnormals and overflow, bf16's rounding), with ±∞ and NaN
/// sprinkled in.
fn convert_source<S: RealElement + TestElement>(r: &mut Rng64) -> S {
    let v: f64 = match r.random_range(0..40) {
        0 => f64::INFINITY,
        1 => f64::NEG_INFINITY,
        2 => f64::NAN,
        3 => 0.0,
        _ => r.random_range(-1.0..1.0) * 2f64.powi(r.random_range(-30..=30)),
    };
    S::make(v)
}

/// convert: bit-exact against the `half` crate's and Rust's own roundings (`reference`),
/// any NaN for a NaN.
fn check_convert<S: RealElement + TestElement, D: RealElement>(
    dev: &Device,
    case: Case,
    reference: impl Fn(S) -> D,
) -> Result<()> {
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
    let x: Vec<S> = (0..offx + vector_extent(n, incx) + 1)
        .map(|_| convert_source(&mut r))
        .collect();
    let y: Vec<D> = (0..offy + vector_extent(n, incy) + 1)
        .map(|_| D::from_f32(r.random_range(-1.0f32..1.0)))
        .collect();
    let (ex, ey) = (vector_extent(n, incx), vector_extent(n, incy));
    let xi = |i: usize| offx + vector_index(i, n, incx);
    let yi = |i: usize| offy + vector_index(i, n, incy);
    let xd = dev.upload(&x)?;
    let mut yd = dev.upload(&y)?;
    blas.convert(
        n,
        &xd.slice(offx..offx + ex)?,
        incx,
        &mut yd.slice_mut(offy..offy + ey)?,
        incy,
    )?;
    let got = yd.to_vec()?;
    let mut want: Vec<Option<D>> = vec![None; y.len()];
    (0..n).for_each(|i| want[yi(i)] = Some(reference(x[xi(i)])));
    let what = format!(
        "convert {}->{} n={n} incx={incx} incy={incy} off=({offx},{offy}) on {dev}",
        S::DTYPE,
        D::DTYPE
    );
    for (i, g) in got.iter().enumerate() {
        let w = want[i].unwrap_or(y[i]);
        let (gv, wv) = (g.to_f64(), w.to_f64());
        // to_f64 is exact: equal values of equal sign are equal bits, NaN aside.
        let same = gv == wv && gv.is_sign_negative() == wv.is_sign_negative();
        assert!(
            same || (gv.is_nan() && wv.is_nan()),
            "{what} [{i}]: got {g:?}, want {w:?}"
        );
    }
    Ok(())
}

/// The `_ex` routines on f16/bf16 (u = T's unit roundoff, u₃₂ = 2⁻²⁴ f32's, s = T's
/// smallest subnormal: the absolute error of a rounding into T near zero):
/// - scal_ex: α·x rounded in f32 then into T: (u + 2u₃₂)·|α x| + s/2.
/// - axpy_ex/axpby_ex: β·y and the fma in f32 then into T: (u + 4u₃₂)(|α x| + |β y|) + s/2.
/// - dot_ex: products exact in f32, an n-term f32 sum: (n + 1)·u₃₂·Σ|x y|.
/// - nrm2_ex: a sum of n squares and a root, in f32 at worst: (n + 2)·u₃₂·‖x‖.
fn check_half<T: Half + TestElement>(dev: &Device, routine: Routine, case: Case) -> Result<()> {
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
    let mut random_buf = |inc: isize, off: usize| -> Vec<T> {
        (0..off + vector_extent(n, inc) + 1)
            .map(|_| T::random(&mut r))
            .collect()
    };
    let (x, mut y) = (random_buf(incx, offx), random_buf(incy, offy));
    let mut r = rng(seed ^ 0xa1fa);
    let (alpha, beta) = (
        r.random_range(-2.0f32..2.0),
        match routine {
            Routine::AxpyEx => 1.0,
            Routine::AxpbyExBeta0 => 0.0,
            _ => r.random_range(-2.0f32..2.0),
        },
    );
    let (ex, ey) = (vector_extent(n, incx), vector_extent(n, incy));
    let xi = |i: usize| offx + vector_index(i, n, incx);
    let yi = |i: usize| offy + vector_index(i, n, incy);
    let xs: Vec<f64> = (0..n).map(|i| x[xi(i)].to_f64()).collect();
    let ys: Vec<f64> = (0..n).map(|i| y[yi(i)].to_f64()).collect();
    let (u, u32_, s) = (T::UNIT_ROUNDOFF, 2f64.powi(-24), T::MIN_SUBNORMAL);
    let what = format!(
        "{routine:?} {} n={n} incx={incx} incy={incy} off=({offx},{offy}) on {dev}",
        T::DTYPE
    );
    let xd = dev.upload(&x)?;
    let xv = xd.slice(offx..offx + ex)?;
    let (a, b) = (alpha as f64, beta as f64);
    // Elementwise results: (buffer after, buffer before, per position (value, bound)).
    let check_elems = |got: Vec<T>, old: &[T], want: Vec<Option<(f64, f64)>>| {
        for (i, g) in got.iter().enumerate() {
            match want[i] {
                Some((v, bound)) => {
                    let err = (g.to_f64() - v).abs();
                    assert!(
                        err <= bound,
                        "{what} [{i}]: got {g:?}, want {v}, error {err:e} > {bound:e}"
                    );
                }
                None => assert!(
                    g.to_f64() == old[i].to_f64(),
                    "{what} [{i}]: wrote {g:?} where it must not"
                ),
            }
        }
    };
    match routine {
        Routine::ScalEx => {
            let mut xd = dev.upload(&x)?;
            blas.scal_ex(n, alpha, &mut xd.slice_mut(offx..offx + ex)?, incx)?;
            let mut want = vec![None; x.len()];
            for (i, v) in xs.iter().enumerate() {
                want[xi(i)] = Some((a * v, (u + 2.0 * u32_) * (a * v).abs() + s / 2.0));
            }
            check_elems(xd.to_vec()?, &x, want);
        }
        Routine::AxpyEx | Routine::AxpbyEx | Routine::AxpbyExBeta0 => {
            if routine == Routine::AxpbyExBeta0 {
                // β = 0 must not read y.
                (0..n).for_each(|i| y[yi(i)] = T::from_f32(f32::NAN));
            }
            let mut yd = dev.upload(&y)?;
            let mut yv = yd.slice_mut(offy..offy + ey)?;
            if routine == Routine::AxpyEx {
                blas.axpy_ex(n, alpha, &xv, incx, &mut yv, incy)?;
            } else {
                blas.axpby_ex(n, alpha, &xv, incx, beta, &mut yv, incy)?;
            }
            let mut want = vec![None; y.len()];
            for i in 0..n {
                let by: f64 = if beta == 0.0 { 0.0 } else { b * ys[i] };
                let mag = (a * xs[i]).abs() + by.abs();
                want[yi(i)] = Some((a * xs[i] + by, (u + 4.0 * u32_) * mag + s / 2.0));
            }
            check_elems(yd.to_vec()?, &y, want);
        }
        Routine::DotEx => {
            let yd = dev.upload(&y)?;
            let got = blas.dot_ex(n, &xv, incx, &yd.slice(offy..offy + ey)?, incy)?;
            let (want, mag) = reference::dot(n, &xs, 1, &ys, 1, false);
            let bound = (n + 1) as f64 * u32_ * mag + f64::MIN_POSITIVE;
            let err = (got as f64 - want).abs();
            assert!(
                err <= bound,
                "{what}: got {got}, want {want}, error {err:e} > {bound:e}"
            );
        }
        Routine::Nrm2Ex => {
            let got = blas.nrm2_ex(n, &xv, incx)?;
            let want = reference::nrm2(n, &xs, 1);
            let bound = (n + 2) as f64 * u32_ * want + f64::MIN_POSITIVE;
            let err = (got as f64 - want).abs();
            assert!(
                err <= bound,
                "{what}: got {got}, want {want}, error {err:e} > {bound:e}"
            );
        }
        _ => panic!("{routine:?} is not an _ex routine"),
    }
    Ok(())
}
