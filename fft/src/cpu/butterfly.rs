//! Radix butterflies: small DFTs `b_j = Σ_k a_k ω_r^{±jk}` on arrays held in registers.
//!
//! `FWD` selects the sign of the exponent at compile time. Radices 2, 4, 8 and 16 use the
//! exact constants ±i and (±1 ± i)/√2; 16 also cos(π/8) and sin(π/8). Odd primes use the
//! symmetric form `b_j = a_0 + Σ_k cos(2πjk/p)(a_k + a_{p−k}) ∓ i Σ_k sin(2πjk/p)(a_k − a_{p−k})`,
//! which halves the multiplications and pairs outputs `j` and `p − j`.

use crate::scalar::Real;
use num_complex::Complex;

type C<T> = Complex<T>;

/// Multiplies by −i (forward) or +i (backward).
#[inline(always)]
pub fn rot<T: Real, const FWD: bool>(z: C<T>) -> C<T> {
    if FWD {
        C::new(z.im, -z.re)
    } else {
        C::new(-z.im, z.re)
    }
}

#[inline(always)]
pub fn bf2<T: Real>(a: [C<T>; 2]) -> [C<T>; 2] {
    [a[0] + a[1], a[0] - a[1]]
}

#[inline(always)]
pub fn bf4<T: Real, const FWD: bool>(a: [C<T>; 4]) -> [C<T>; 4] {
    let t0 = a[0] + a[2];
    let t1 = a[0] - a[2];
    let t2 = a[1] + a[3];
    let t3 = rot::<T, FWD>(a[1] - a[3]);
    [t0 + t2, t1 + t3, t0 - t2, t1 - t3]
}

/// Multiplies by ω_8 = (1 ∓ i)/√2.
#[inline(always)]
fn w8_1<T: Real, const FWD: bool>(z: C<T>) -> C<T> {
    let h = T::FRAC_1_SQRT_2();
    if FWD {
        C::new((z.re + z.im) * h, (z.im - z.re) * h)
    } else {
        C::new((z.re - z.im) * h, (z.im + z.re) * h)
    }
}

/// Multiplies by ω_8^3 = (−1 ∓ i)/√2.
#[inline(always)]
fn w8_3<T: Real, const FWD: bool>(z: C<T>) -> C<T> {
    let h = T::FRAC_1_SQRT_2();
    if FWD {
        C::new((z.im - z.re) * h, -(z.re + z.im) * h)
    } else {
        C::new(-(z.re + z.im) * h, (z.re - z.im) * h)
    }
}

#[inline(always)]
pub fn bf8<T: Real, const FWD: bool>(a: [C<T>; 8]) -> [C<T>; 8] {
    let e = bf4::<T, FWD>([a[0], a[2], a[4], a[6]]);
    let o = bf4::<T, FWD>([a[1], a[3], a[5], a[7]]);
    let o1 = w8_1::<T, FWD>(o[1]);
    let o2 = rot::<T, FWD>(o[2]);
    let o3 = w8_3::<T, FWD>(o[3]);
    [
        e[0] + o[0],
        e[1] + o1,
        e[2] + o2,
        e[3] + o3,
        e[0] - o[0],
        e[1] - o1,
        e[2] - o2,
        e[3] - o3,
    ]
}

#[inline(always)]
pub fn bf16<T: Real, const FWD: bool>(a: [C<T>; 16]) -> [C<T>; 16] {
    let e = bf8::<T, FWD>(std::array::from_fn(|k| a[2 * k]));
    let o = bf8::<T, FWD>(std::array::from_fn(|k| a[2 * k + 1]));
    // ω_16^k for k = 0..8 (forward sign; conjugated for backward).
    let c1 = T::of(0.923_879_532_511_286_7);
    let s1 = T::of(0.382_683_432_365_089_8);
    let h = T::FRAC_1_SQRT_2();
    let sg = if FWD { -T::one() } else { T::one() };
    let w = [
        C::new(T::one(), T::zero()),
        C::new(c1, sg * s1),
        C::new(h, sg * h),
        C::new(s1, sg * c1),
        C::new(T::zero(), sg),
        C::new(-s1, sg * c1),
        C::new(-h, sg * h),
        C::new(-c1, sg * s1),
    ];
    let mut out = [C::new(T::zero(), T::zero()); 16];
    out[0] = e[0] + o[0];
    out[8] = e[0] - o[0];
    let o4 = rot::<T, FWD>(o[4]);
    out[4] = e[4] + o4;
    out[12] = e[4] - o4;
    for k in [1, 2, 3, 5, 6, 7] {
        let t = o[k] * w[k];
        out[k] = e[k] + t;
        out[k + 8] = e[k] - t;
    }
    out
}

/// Cosines and signed sines of 2πt/p for t < p: the constants of an odd radix.
#[derive(Debug, Clone)]
pub struct OddConsts<T> {
    pub cos: Vec<T>,
    /// −sin (forward) or +sin (backward).
    pub sin: Vec<T>,
}

impl<T: Real> OddConsts<T> {
    pub fn new(p: usize, forward: bool) -> Self {
        let w: Vec<_> = (0..p)
            .map(|t| crate::twiddle::root_dir(t as u64, p as u64, forward))
            .collect();
        OddConsts {
            cos: w.iter().map(|z| T::of(z.re)).collect(),
            sin: w.iter().map(|z| T::of(z.im)).collect(),
        }
    }
}

/// An odd-length DFT in symmetric form; `P` known at compile time.
#[inline(always)]
pub fn bf_odd<T: Real, const P: usize>(a: [C<T>; P], k: &OddConsts<T>) -> [C<T>; P] {
    let h = (P - 1) / 2;
    let cos = &k.cos[..P];
    let sin = &k.sin[..P];
    let mut sp = [C::new(T::zero(), T::zero()); P];
    let mut sm = [C::new(T::zero(), T::zero()); P];
    let mut out = [C::new(T::zero(), T::zero()); P];
    let mut y0 = a[0];
    for j in 1..=h {
        sp[j] = a[j] + a[P - j];
        sm[j] = a[j] - a[P - j];
        y0 = y0 + sp[j];
    }
    out[0] = y0;
    for j in 1..=h {
        let mut re = a[0];
        let mut im = C::new(T::zero(), T::zero());
        for kk in 1..=h {
            let t = (j * kk) % P;
            re = re + sp[kk] * cos[t];
            im = im + sm[kk] * sin[t];
        }
        // b_j = re + i·im, b_{p−j} = re − i·im (sin already carries the sign).
        let iim = C::new(-im.im, im.re);
        out[j] = re + iim;
        out[P - j] = re - iim;
    }
    out
}

/// An odd prime DFT of runtime length `p <= MAX` (the generic radix).
#[inline]
pub fn bf_generic<T: Real>(a: &[C<T>], out: &mut [C<T>], k: &OddConsts<T>) {
    let p = a.len();
    let h = (p - 1) / 2;
    let mut sp = [C::new(T::zero(), T::zero()); 64];
    let mut sm = [C::new(T::zero(), T::zero()); 64];
    let mut y0 = a[0];
    for j in 1..=h {
        sp[j] = a[j] + a[p - j];
        sm[j] = a[j] - a[p - j];
        y0 = y0 + sp[j];
    }
    out[0] = y0;
    for j in 1..=h {
        let mut re = a[0];
        let mut im = C::new(T::zero(), T::zero());
        let mut t = 0;
        for kk in 1..=h {
            t += j;
            if t >= p {
                t -= p;
            }
            re = re + sp[kk] * k.cos[t];
            im = im + sm[kk] * k.sin[t];
        }
        let iim = C::new(-im.im, im.re);
        out[j] = re + iim;
        out[p - j] = re - iim;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::dft_f64;

    fn check<const P: usize>(f: impl Fn([C<f64>; P]) -> [C<f64>; P], fwd: bool) {
        let a: [C<f64>; P] =
            std::array::from_fn(|k| C::new((k as f64 * 0.7).sin() + 0.3, (k as f64 * 1.3).cos()));
        let got = f(a);
        let want = dft_f64(&a, fwd);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).norm() < 1e-13, "radix {P} fwd {fwd}: {g} vs {w}");
        }
    }

    #[test]
    fn butterflies_match_the_dft() {
        check::<2>(bf2, true);
        check::<4>(bf4::<f64, true>, true);
        check::<4>(bf4::<f64, false>, false);
        check::<8>(bf8::<f64, true>, true);
        check::<8>(bf8::<f64, false>, false);
        check::<16>(bf16::<f64, true>, true);
        check::<16>(bf16::<f64, false>, false);
        for fwd in [true, false] {
            let k3 = OddConsts::new(3, fwd);
            check::<3>(|a| bf_odd(a, &k3), fwd);
            let k13 = OddConsts::new(13, fwd);
            check::<13>(|a| bf_odd(a, &k13), fwd);
            let k17 = OddConsts::new(17, fwd);
            check::<17>(
                |a| {
                    let mut o = [C::new(0.0, 0.0); 17];
                    bf_generic(&a, &mut o, &k17);
                    o
                },
                fwd,
            );
        }
    }
}
