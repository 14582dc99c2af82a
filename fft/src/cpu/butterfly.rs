//! Radix butterflies: small DFTs `b_j = Σ_k a_k ω_r^{±jk}` on arrays held in registers.
//!
//! `FWD` selects the sign of the exponent at compile time. Radices 2, 4, 8 and 16 use the
//! exact constants ±i and (±1 ± i)/√2; 16 also cos(π/8) and sin(π/8). Odd primes use the
//! symmetric form `b_j = a_0 + Σ_k cos(2πjk/p)(a_k + a_{p−k}) ∓ i Σ_k sin(2πjk/p)(a_k − a_{p−k})`,
//! which halves the multiplications and pairs outputs `j` and `p − j`.

use super::simd::Cv;
use crate::scalar::FftReal;
use num_complex::Complex;
use num_traits::{FloatConst, One};
use rocm_core::Scalar as _;

type C<T> = Complex<T>;

#[inline(always)]
pub fn bf2<V: Cv>(a: [V; 2]) -> [V; 2] {
    [a[0] + a[1], a[0] - a[1]]
}

#[inline(always)]
pub fn bf4<V: Cv, const FWD: bool>(a: [V; 4]) -> [V; 4] {
    let t0 = a[0] + a[2];
    let t1 = a[0] - a[2];
    let t2 = a[1] + a[3];
    let t3 = (a[1] - a[3]).rot::<FWD>();
    [t0 + t2, t1 + t3, t0 - t2, t1 - t3]
}

/// Multiplies by ω_8 = (1 ∓ i)/√2: `(z ∓ i·z)/√2`.
#[inline(always)]
fn w8_1<V: Cv, const FWD: bool>(z: V) -> V {
    (z + z.rot::<FWD>()).scale(V::T::FRAC_1_SQRT_2())
}

/// Multiplies by ω_8^3 = (−1 ∓ i)/√2: `(∓i·z − z)/√2`.
#[inline(always)]
fn w8_3<V: Cv, const FWD: bool>(z: V) -> V {
    (z.rot::<FWD>() - z).scale(V::T::FRAC_1_SQRT_2())
}

#[inline(always)]
pub fn bf8<V: Cv, const FWD: bool>(a: [V; 8]) -> [V; 8] {
    let e = bf4::<V, FWD>([a[0], a[2], a[4], a[6]]);
    let o = bf4::<V, FWD>([a[1], a[3], a[5], a[7]]);
    let o1 = w8_1::<V, FWD>(o[1]);
    let o2 = o[2].rot::<FWD>();
    let o3 = w8_3::<V, FWD>(o[3]);
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

/// Radix 16 as two radix-8 butterflies. The inputs are split and the outputs formed in
/// loops, not with `array::from_fn`: a 16-value `from_fn` is not inlined, and its
/// closure, compiled without AVX, called every vector add out of line (plans with a
/// radix-16 pass ran 3x slower, session 15).
#[inline(always)]
pub fn bf16<V: Cv, const FWD: bool>(a: [V; 16]) -> [V; 16] {
    let mut ev = [a[0]; 8];
    let mut od = [a[1]; 8];
    for k in 0..8 {
        ev[k] = a[2 * k];
        od[k] = a[2 * k + 1];
    }
    let e = bf8::<V, FWD>(ev);
    let o = bf8::<V, FWD>(od);
    // ω_16^k for k = 1, 3, 5, 7 (forward sign; conjugated for backward); the even
    // ones are exact (ω_8 multiples).
    let c1 = V::T::from_f64(0.923_879_532_511_286_7);
    let s1 = V::T::from_f64(0.382_683_432_365_089_8);
    let sg = if FWD { -V::T::one() } else { V::T::one() };
    let w = |re: V::T, im: V::T| V::splat(C::new(re, sg * im));
    let t = [
        o[0],
        o[1].mul(w(c1, s1)),
        w8_1::<V, FWD>(o[2]),
        o[3].mul(w(s1, c1)),
        o[4].rot::<FWD>(),
        o[5].mul(w(-s1, c1)),
        w8_3::<V, FWD>(o[6]),
        o[7].mul(w(-c1, s1)),
    ];
    let mut out = [a[0]; 16];
    for k in 0..8 {
        out[k] = e[k] + t[k];
        out[k + 8] = e[k] - t[k];
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

impl<T: FftReal> OddConsts<T> {
    pub fn new(p: usize, forward: bool) -> Self {
        let w: Vec<_> = (0..p)
            .map(|t| crate::twiddle::root_dir(t as u64, p as u64, forward))
            .collect();
        OddConsts {
            cos: w.iter().map(|z| T::from_f64(z.re)).collect(),
            sin: w.iter().map(|z| T::from_f64(z.im)).collect(),
        }
    }
}

/// An odd-length DFT in symmetric form; `P` known at compile time.
#[inline(always)]
pub fn bf_odd<V: Cv, const P: usize>(a: [V; P], k: &OddConsts<V::T>) -> [V; P] {
    let h = (P - 1) / 2;
    let cos = &k.cos[..P];
    let sin = &k.sin[..P];
    let mut sp = [a[0]; P];
    let mut sm = [a[0]; P];
    let mut out = [a[0]; P];
    let mut y0 = a[0];
    for j in 1..=h {
        sp[j] = a[j] + a[P - j];
        sm[j] = a[j] - a[P - j];
        y0 = y0 + sp[j];
    }
    out[0] = y0;
    for j in 1..=h {
        let mut re = a[0].add_scaled(sp[1], cos[j % P]);
        let mut im = sm[1].scale(sin[j % P]);
        for kk in 2..=h {
            let t = (j * kk) % P;
            re = re.add_scaled(sp[kk], cos[t]);
            im = im.add_scaled(sm[kk], sin[t]);
        }
        // b_j = re + i·im, b_{p−j} = re − i·im (sin already carries the sign).
        let iim = im.rot::<false>();
        out[j] = re + iim;
        out[P - j] = re - iim;
    }
    out
}

/// A radix-3 DFT: `b_{1,2} = a_0 − t/2 ∓ i(√3/2)(a_1 − a_2)` (forward sign), `t = a_1 + a_2`.
#[inline(always)]
pub fn bf3<V: Cv, const FWD: bool>(a: [V; 3]) -> [V; 3] {
    let t = a[1] + a[2];
    let d = (a[1] - a[2])
        .rot::<FWD>()
        .scale(V::T::from_f64(0.866_025_403_784_438_6));
    let m = a[0].add_scaled(t, V::T::from_f64(-0.5));
    [a[0] + t, m + d, m - d]
}

/// A radix-9 DFT as 3 × 3: DFTs of `(a_{n2}, a_{3+n2}, a_{6+n2})`, twiddles
/// `ω_9^{n2·k1}`, then DFTs across `n2`; output `k1 + 3·k2`.
#[inline(always)]
pub fn bf9<V: Cv, const FWD: bool>(a: [V; 9]) -> [V; 9] {
    let b0 = bf3::<V, FWD>([a[0], a[3], a[6]]);
    let b1 = bf3::<V, FWD>([a[1], a[4], a[7]]);
    let b2 = bf3::<V, FWD>([a[2], a[5], a[8]]);
    // ω_9^e for e = 1, 2, 4 (forward sign; conjugated backward).
    let sg = if FWD { -V::T::one() } else { V::T::one() };
    let w = |c: f64, s: f64| V::splat(C::new(V::T::from_f64(c), sg * V::T::from_f64(s)));
    let w1 = w(0.766_044_443_118_978, 0.642_787_609_686_539_4);
    let w2 = w(0.173_648_177_666_930_36, 0.984_807_753_012_208);
    let w4 = w(-0.939_692_620_785_908_4, 0.342_020_143_325_668_7);
    let c0 = bf3::<V, FWD>([b0[0], b1[0], b2[0]]);
    let c1 = bf3::<V, FWD>([b0[1], b1[1].mul(w1), b2[1].mul(w2)]);
    let c2 = bf3::<V, FWD>([b0[2], b1[2].mul(w2), b2[2].mul(w4)]);
    [
        c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2],
    ]
}

/// A DFT of `N = N1·N2` for coprime `N1`, `N2` by the prime-factor (Good–Thomas) map,
/// which needs no twiddles: input `n = (N2·n1 + N1·n2) mod N` is `(n1, n2)`, and
/// output `k` is the one with `k ≡ k1 (mod N1)`, `k ≡ k2 (mod N2)`, that is
/// `k = (E1·k1 + E2·k2) mod N` with `E1 ≡ 1 (mod N1)`, `E1 ≡ 0 (mod N2)` and `E2` the
/// other way round; then `X_k = Σ_{n1} ω_{N1}^{n1·k1} Σ_{n2} ω_{N2}^{n2·k2} x_n`.
/// Radix-`N1` butterflies over `n1` for each `n2`, then radix-`N2` ones over `n2`.
/// Written out in loops over constant bounds (no closures: see [`bf16`]).
macro_rules! prime_factor {
    ($(#[$doc:meta])* $name:ident, $n:literal = $n1:literal ($f1:ident) x $n2:literal ($f2:ident), $e1:literal, $e2:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name<V: Cv, const FWD: bool>(a: [V; $n]) -> [V; $n] {
            const _: () = assert!($e1 % $n1 == 1 && $e1 % $n2 == 0);
            const _: () = assert!($e2 % $n2 == 1 && $e2 % $n1 == 0);
            // mid[n2·N1 + k1]
            let mut mid = a;
            for n2 in 0..$n2 {
                let mut col = [a[0]; $n1];
                for n1 in 0..$n1 {
                    col[n1] = a[($n2 * n1 + $n1 * n2) % $n];
                }
                let col = $f1::<V, FWD>(col);
                for k1 in 0..$n1 {
                    mid[n2 * $n1 + k1] = col[k1];
                }
            }
            let mut out = a;
            for k1 in 0..$n1 {
                let mut row = [a[0]; $n2];
                for n2 in 0..$n2 {
                    row[n2] = mid[n2 * $n1 + k1];
                }
                let row = $f2::<V, FWD>(row);
                for k2 in 0..$n2 {
                    out[($e1 * k1 + $e2 * k2) % $n] = row[k2];
                }
            }
            out
        }
    };
}

#[inline(always)]
fn bf2_<V: Cv, const FWD: bool>(a: [V; 2]) -> [V; 2] {
    bf2(a)
}

prime_factor!(
    /// A radix-12 DFT as 3 × 4 (prime-factor map).
    bf12, 12 = 3 (bf3) x 4 (bf4), 4, 9
);
prime_factor!(
    /// A radix-18 DFT as 2 × 9 (prime-factor map).
    bf18, 18 = 2 (bf2_) x 9 (bf9), 9, 10
);

/// An odd prime DFT of runtime length `p = a.len()` over vectors (the generic radix):
/// the symmetric form of [`bf_odd`] with `sp`, `sm` (at least `(p + 1)/2` long) as
/// scratch.
#[inline(always)]
pub fn bf_generic_v<V: Cv>(
    a: &[V],
    out: &mut [V],
    k: &OddConsts<V::T>,
    sp: &mut [V],
    sm: &mut [V],
) {
    let p = a.len();
    let h = (p - 1) / 2;
    let mut y0 = a[0];
    for j in 1..=h {
        sp[j] = a[j] + a[p - j];
        sm[j] = a[j] - a[p - j];
        y0 = y0 + sp[j];
    }
    out[0] = y0;
    for j in 1..=h {
        let mut re = a[0];
        let mut im = sm[1].scale(k.sin[j]);
        re = re.add_scaled(sp[1], k.cos[j]);
        let mut t = j;
        for kk in 2..=h {
            t += j;
            if t >= p {
                t -= p;
            }
            re = re.add_scaled(sp[kk], k.cos[t]);
            im = im.add_scaled(sm[kk], k.sin[t]);
        }
        let iim = im.rot::<false>();
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
        type Z = C<f64>;
        check::<2>(bf2::<Z>, true);
        check::<4>(bf4::<Z, true>, true);
        check::<4>(bf4::<Z, false>, false);
        check::<8>(bf8::<Z, true>, true);
        check::<8>(bf8::<Z, false>, false);
        check::<16>(bf16::<Z, true>, true);
        check::<16>(bf16::<Z, false>, false);
        check::<3>(bf3::<Z, true>, true);
        check::<3>(bf3::<Z, false>, false);
        check::<9>(bf9::<Z, true>, true);
        check::<9>(bf9::<Z, false>, false);
        check::<12>(bf12::<Z, true>, true);
        check::<12>(bf12::<Z, false>, false);
        check::<18>(bf18::<Z, true>, true);
        check::<18>(bf18::<Z, false>, false);
        for fwd in [true, false] {
            let k3 = OddConsts::new(3, fwd);
            check::<3>(|a| bf_odd(a, &k3), fwd);
            let k13 = OddConsts::new(13, fwd);
            check::<13>(|a| bf_odd(a, &k13), fwd);
            check::<19>(
                |a| {
                    let z = C::new(0.0, 0.0);
                    let (mut o, mut sp, mut sm) = ([z; 19], [z; 10], [z; 10]);
                    bf_generic_v(&a, &mut o, &OddConsts::new(19, fwd), &mut sp, &mut sm);
                    o
                },
                fwd,
            );
        }
    }
}
