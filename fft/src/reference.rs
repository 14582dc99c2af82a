//! Reference transforms for tests: obviously correct, in higher precision.
//!
//! * [`dft_f64`]: the defining sum `X_k = Σ_j x_j ω_N^{±jk}` in `f64` with exactly reduced
//!   exponents (`jk mod N`); O(N²).
//! * [`fft_f64`] / [`fft_dd`]: the textbook recursive decimation in time
//!   (`X_k = Σ_r ω_N^{rk} Y_r[k mod N/p]`, `Y_r` the transform of `x_{pj+r}`, `p` the
//!   smallest prime factor), with the defining sum for prime lengths; `fft_dd` computes
//!   in double-double arithmetic (about 106 bits) with twiddles from a double-double
//!   Taylor series, so it is a reference for `f64` plans.
//! * [`real_forward`], [`real_inverse`], [`transform_nd`]: real and multi-dimensional
//!   transforms defined through the complex ones.

use num_complex::Complex;
use std::ops::{Add, Mul, Neg, Sub};

type C64 = Complex<f64>;

/// The defining sum in `f64`.
pub fn dft_f64(x: &[C64], forward: bool) -> Vec<C64> {
    let n = x.len();
    let w: Vec<C64> = (0..n)
        .map(|k| crate::twiddle::root_dir(k as u64, n as u64, forward))
        .collect();
    (0..n)
        .map(|k| {
            x.iter()
                .enumerate()
                .fold(C64::new(0.0, 0.0), |acc, (j, &xj)| {
                    acc + xj * w[(j * k) % n]
                })
        })
        .collect()
}

/// A complex number type the recursive reference can compute in.
pub trait RefNum: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    fn zero() -> Self;
    fn from_c64(z: C64) -> Self;
    fn to_c64(self) -> C64;
    /// ω_n^{±k}.
    fn root(k: u64, n: u64, forward: bool) -> Self;
}

impl RefNum for C64 {
    fn zero() -> Self {
        C64::new(0.0, 0.0)
    }
    fn from_c64(z: C64) -> Self {
        z
    }
    fn to_c64(self) -> C64 {
        self
    }
    fn root(k: u64, n: u64, forward: bool) -> Self {
        crate::twiddle::root_dir(k, n, forward)
    }
}

/// The recursive reference in `f64`.
pub fn fft_f64(x: &[C64], forward: bool) -> Vec<C64> {
    fft_rec::<C64>(x, forward)
}

/// The recursive reference in double-double, rounded to `f64` at the end.
pub fn fft_dd(x: &[C64], forward: bool) -> Vec<C64> {
    fft_rec::<CDd>(x, forward)
}

fn fft_rec<R: RefNum>(x: &[C64], forward: bool) -> Vec<C64> {
    let n = x.len();
    let w: Vec<R> = (0..n)
        .map(|k| R::root(k as u64, n as u64, forward))
        .collect();
    let xr: Vec<R> = x.iter().map(|&z| R::from_c64(z)).collect();
    rec(&xr, &w, 1).into_iter().map(R::to_c64).collect()
}

/// Transform of `x` (length `n`); `w[step·k]` is ω_n^k.
fn rec<R: RefNum>(x: &[R], w: &[R], step: usize) -> Vec<R> {
    let n = x.len();
    if n <= 1 {
        return x.to_vec();
    }
    let p = crate::plan::prime_factors(n)[0];
    if p == n {
        return (0..n)
            .map(|k| {
                x.iter().enumerate().fold(R::zero(), |acc, (j, &xj)| {
                    acc + xj * w[step * ((j * k) % n)]
                })
            })
            .collect();
    }
    let m = n / p;
    let subs: Vec<Vec<R>> = (0..p)
        .map(|r| {
            let xs: Vec<R> = (0..m).map(|j| x[p * j + r]).collect();
            rec(&xs, w, step * p)
        })
        .collect();
    (0..n)
        .map(|k| {
            subs.iter().enumerate().fold(R::zero(), |acc, (r, y)| {
                acc + y[k % m] * w[step * ((r * k) % n)]
            })
        })
        .collect()
}

/// R2C reference: the first `N/2 + 1` outputs of the complex transform of real `x`.
pub fn real_forward(x: &[f64], dd: bool) -> Vec<C64> {
    let c: Vec<C64> = x.iter().map(|&r| C64::new(r, 0.0)).collect();
    let full = if dd {
        fft_dd(&c, true)
    } else {
        fft_f64(&c, true)
    };
    full[..x.len() / 2 + 1].to_vec()
}

/// C2R reference of length `n`: extend the Hermitian half (imaginary parts of `X_0`
/// and, for even `n`, `X_{n/2}` dropped), transform backward, keep the real parts.
pub fn real_inverse(h: &[C64], n: usize, dd: bool) -> Vec<f64> {
    let mut full = vec![C64::new(0.0, 0.0); n];
    for k in 0..n {
        full[k] = if k <= n / 2 { h[k] } else { h[n - k].conj() };
    }
    full[0].im = 0.0;
    if n % 2 == 0 {
        full[n / 2].im = 0.0;
    }
    let t = if dd {
        fft_dd(&full, false)
    } else {
        fft_f64(&full, false)
    };
    t.iter().map(|z| z.re).collect()
}

/// A multi-dimensional complex transform of contiguous data (`lens[0]` innermost),
/// applying the 1-D reference along each axis.
pub fn transform_nd(x: &[C64], lens: &[usize], forward: bool, dd: bool) -> Vec<C64> {
    let mut data = x.to_vec();
    let total: usize = lens.iter().product();
    let mut stride = 1;
    for &len in lens {
        let block = len * stride;
        for b in 0..total / block {
            for i in 0..stride {
                let line: Vec<C64> = (0..len).map(|j| data[b * block + j * stride + i]).collect();
                let t = if dd {
                    fft_dd(&line, forward)
                } else {
                    fft_f64(&line, forward)
                };
                for (j, v) in t.into_iter().enumerate() {
                    data[b * block + j * stride + i] = v;
                }
            }
        }
        stride *= len;
    }
    data
}

/// Relative L2 error `‖a − b‖₂ / ‖b‖₂` (0 when both are zero).
pub fn rel_l2(a: &[C64], b: &[C64]) -> f64 {
    let num: f64 = a.iter().zip(b).map(|(x, y)| (x - y).norm_sqr()).sum();
    let den: f64 = b.iter().map(|y| y.norm_sqr()).sum();
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}

// ---------------------------------------------------------------------------
// Double-double arithmetic.

/// An unevaluated sum `hi + lo` with `|lo| <= ulp(hi)/2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dd {
    pub hi: f64,
    pub lo: f64,
}

#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[inline]
fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

impl Dd {
    pub const fn new(x: f64) -> Self {
        Dd { hi: x, lo: 0.0 }
    }

    fn norm(hi: f64, lo: f64) -> Self {
        let (h, l) = quick_two_sum(hi, lo);
        Dd { hi: h, lo: l }
    }

    /// Division by a double.
    pub fn div_f(self, d: f64) -> Self {
        let q1 = self.hi / d;
        let r = (-q1).mul_add(d, self.hi) + self.lo;
        Dd::norm(q1, r / d)
    }
}

impl std::ops::Neg for Dd {
    type Output = Dd;
    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl Add for Dd {
    type Output = Dd;
    fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = quick_two_sum(s, e + t);
        Dd::norm(s, e + f)
    }
}

impl Sub for Dd {
    type Output = Dd;
    fn sub(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, -o.hi);
        let (t, f) = two_sum(self.lo, -o.lo);
        let (s, e) = quick_two_sum(s, e + t);
        Dd::norm(s, e + f)
    }
}

impl Mul for Dd {
    type Output = Dd;
    fn mul(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
        Dd::norm(p, e)
    }
}

/// π in double-double.
const PI_DD: Dd = Dd {
    hi: std::f64::consts::PI,
    lo: 1.224_646_799_147_353_2e-16,
};

/// (cos φ, sin φ) for φ = π·num/den ∈ [0, π/4], by Taylor series in double-double.
fn cos_sin_dd(num: u64, den: u64) -> (Dd, Dd) {
    // num/den exactly enough: num and den < 2^53 in every use here.
    let q = Dd::new(num as f64).div_f(den as f64);
    let phi = PI_DD * q;
    let p2 = phi * phi;
    let (mut c, mut s) = (Dd::new(1.0), phi);
    let (mut tc, mut ts) = (Dd::new(1.0), phi);
    for k in 1..20 {
        let k2 = 2.0 * k as f64;
        tc = (tc * p2).div_f(k2 * (k2 - 1.0)).neg();
        ts = (ts * p2).div_f(k2 * (k2 + 1.0)).neg();
        c = c + tc;
        s = s + ts;
    }
    (c, s)
}

/// A complex double-double.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CDd {
    pub re: Dd,
    pub im: Dd,
}

impl Add for CDd {
    type Output = CDd;
    fn add(self, o: CDd) -> CDd {
        CDd {
            re: self.re + o.re,
            im: self.im + o.im,
        }
    }
}

impl Sub for CDd {
    type Output = CDd;
    fn sub(self, o: CDd) -> CDd {
        CDd {
            re: self.re - o.re,
            im: self.im - o.im,
        }
    }
}

impl Mul for CDd {
    type Output = CDd;
    fn mul(self, o: CDd) -> CDd {
        CDd {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
}

impl RefNum for CDd {
    fn zero() -> Self {
        CDd {
            re: Dd::new(0.0),
            im: Dd::new(0.0),
        }
    }
    fn from_c64(z: C64) -> Self {
        CDd {
            re: Dd::new(z.re),
            im: Dd::new(z.im),
        }
    }
    fn to_c64(self) -> C64 {
        C64::new(self.re.hi + self.re.lo, self.im.hi + self.im.lo)
    }
    /// Octant reduction as in [`crate::twiddle::root`], then the series.
    fn root(k: u64, n: u64, forward: bool) -> Self {
        let k = k % n;
        let conj = 2 * k > n;
        let k = if conj { n - k } else { k };
        let (k8, n1) = (8 * k as u128, n as u128);
        // θ = 2πk/n ∈ [0, π]; (cos θ, sin θ):
        let (c, s) = if k8 <= n1 {
            cos_sin_dd(2 * k, n)
        } else if k8 <= 2 * n1 {
            let (cp, sp) = cos_sin_dd(n - 4 * k, 2 * n);
            (sp, cp)
        } else if k8 <= 3 * n1 {
            let (cp, sp) = cos_sin_dd(4 * k - n, 2 * n);
            (sp.neg(), cp)
        } else {
            let (cp, sp) = cos_sin_dd(n - 2 * k, n);
            (cp.neg(), sp)
        };
        // e^{−iθ} forward; a conjugated fold flips the sign of the angle.
        let sign_neg = forward != conj;
        CDd {
            re: c,
            im: if sign_neg { s.neg() } else { s },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize) -> Vec<C64> {
        (0..n)
            .map(|j| C64::new((j as f64 * 0.37).sin() - 0.2, (j as f64 * 0.71 + 0.5).cos()))
            .collect()
    }

    #[test]
    fn double_double_roots_are_exact_to_f64() {
        for n in [1u64, 3, 7, 8, 12, 100, 1 << 16] {
            for k in 0..n.min(300) {
                let z = CDd::root(k, n, true);
                let w = crate::twiddle::root(k, n);
                // The f64 table is within about one ulp of the exact value.
                assert!(
                    (z.to_c64() - w).norm() < 3e-16,
                    "n {n} k {k}: {:?} vs {w}",
                    z.to_c64()
                );
                // |z| = 1 to double-double accuracy.
                let m = z.re * z.re + z.im * z.im - Dd::new(1.0);
                assert!(m.hi.abs() < 1e-30, "n {n} k {k}: {m:?}");
            }
        }
    }

    #[test]
    fn recursive_references_match_the_defining_sum() {
        for n in [1usize, 2, 3, 4, 6, 9, 12, 17, 30, 64, 105] {
            let x = data(n);
            for fwd in [true, false] {
                let d = dft_f64(&x, fwd);
                // Each reference's error is a few ε·‖x‖·√n.
                assert!(rel_l2(&fft_f64(&x, fwd), &d) < 1e-14, "n {n}");
                assert!(rel_l2(&fft_dd(&x, fwd), &d) < 1e-14, "n {n}");
            }
        }
    }

    #[test]
    fn real_and_nd_references_agree_with_complex() {
        let x: Vec<f64> = (0..10).map(|j| (j as f64 * 1.1).sin()).collect();
        let h = real_forward(&x, false);
        let back = real_inverse(&h, 10, true);
        for (a, b) in back.iter().zip(&x) {
            assert!((a / 10.0 - b).abs() < 1e-14);
        }
        let v = data(12);
        let t = transform_nd(&v, &[3, 4], true, false);
        let t2 = transform_nd(&t, &[3, 4], false, true);
        assert!(rel_l2(&t2.iter().map(|z| z / 12.0).collect::<Vec<_>>(), &v) < 1e-14);
    }
}
