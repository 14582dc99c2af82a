//! Logarithm, square root, exponential and sine/cosine of whole turns, written from
//! exactly rounded operations ([`FloatOps`]: add, mul, fma, bit manipulation) so every
//! device computes the same bits as the CPU. Their distance from the correctly rounded
//! result is measured against f64 `std` by the tests below and stated on each
//! function.
//!
//! The polynomials are Taylor series, truncated where the next term is below half an
//! ulp over the reduced range; the reductions are exact.

use crate::ops::{FloatOps, Real};

/// `ln 2 − LN_2` and `2π − TAU`: what the f64 constants leave out, so the split
/// constants below carry the values beyond f64.
const LN2_TAIL: f64 = 2.3190468138462996e-17;
const TAU_TAIL: f64 = 2.4492935982947064e-16;

/// `1/d` for `d` in [1.70, 2.42] by Newton's iteration from the secant of `1/d` over
/// that range (3% off): 3 iterations reach 7·10⁻¹³ (f32 needs 6·10⁻⁸), 4 reach 10⁻²⁴.
fn recip_near_2<R: Real, O: FloatOps<R>>(o: &mut O, d: O::F) -> O::F {
    let (lo, hi) = (1.70f64, 2.42f64);
    let a = o.fc(-1.0 / (lo * hi));
    let b = o.fc((lo + hi) / (lo * hi));
    let one = o.fc(1.0);
    let mut y = o.fma(d, a, b);
    let neg_d = {
        let m1 = o.fc(-1.0);
        o.fmul(d, m1)
    };
    for _ in 0..if R::MANT > 23 { 4 } else { 3 } {
        let e = o.fma(neg_d, y, one);
        y = o.fma(y, e, y);
    }
    y
}

/// `ln 2` split so that `k·hi` is exact for |k| < 2¹² (hi has 12 trailing zero bits)
/// and `hi + lo` carries `ln 2` to 12 bits beyond the precision.
fn ln2_parts<R: Real>() -> (f64, f64) {
    let ln2 = R::round(std::f64::consts::LN_2);
    let hi = if R::MANT == 23 {
        f32::from_bits((ln2 as f32).to_bits() & !0xfff) as f64
    } else {
        f64::from_bits(ln2.to_bits() & !0xfff)
    };
    (hi, R::round((std::f64::consts::LN_2 - hi) + LN2_TAIL))
}

/// The natural logarithm of a positive normal `x` (measured: f32 within 0.75 ulp of
/// the exact value, f64 within 1 ulp of `std`'s; `ln 1 = 0` exactly).
///
/// `x = 2^k·m` with `m` in [√½, √2), `f = m − 1`, `s = f/(2+f)` and
/// `ln(1+f) = f − f²/2 + s·(f²/2 + R(s²))` where `R(z) = 2z/3 + 2z²/5 + …`: the large
/// term `f` is exact and the rounding errors stay in the small correction.
pub fn ln<R: Real, O: FloatOps<R>>(o: &mut O, x: O::F) -> O::F {
    let sqrt_half = R::bits_of(std::f64::consts::FRAC_1_SQRT_2);
    let mant_mask = (1u64 << R::MANT) - 1;
    let bits = o.f_to_bits(x);
    let c = o.bc(sqrt_half);
    let ix = o.bsub(bits, c);
    let k = o.exponent_field(ix);
    let mask = o.bc(mant_mask);
    let m = o.band(ix, mask);
    let m = o.badd(m, c);
    let m = o.bits_to_f(m);
    let one = o.fc(1.0);
    let f = o.fsub(m, one);
    let two = o.fc(2.0);
    let d = o.fadd(f, two);
    let inv = recip_near_2::<R, O>(o, d);
    let s = o.fmul(f, inv);
    let z = o.fmul(s, s);
    // R(z) = z·Σ 2/(2i+1)·z^(i−1), i = 1..terms: the truncation after `terms` is
    // below 2⁻⁵⁵ (f64) / 2⁻²⁶ (f32) of ln(1+f) for |s| ≤ 0.172.
    let terms = if R::MANT > 23 { 10 } else { 5 };
    let mut p = o.fc(2.0 / (2 * terms + 1) as f64);
    for i in (1..terms).rev() {
        let ci = o.fc(2.0 / (2 * i + 1) as f64);
        p = o.fma(p, z, ci);
    }
    let r = o.fmul(p, z);
    let half = o.fc(0.5);
    let hf = o.fmul(half, f);
    let hfsq = o.fmul(hf, f);
    let (ln2_hi, ln2_lo) = ln2_parts::<R>();
    let (hi, lo) = (o.fc(ln2_hi), o.fc(ln2_lo));
    let kf = o.i32_to_f(k);
    let klo = o.fmul(kf, lo);
    let t = o.fadd(hfsq, r);
    let t = o.fma(s, t, klo);
    let t = o.fsub(t, hfsq);
    let t = o.fadd(t, f);
    o.fma(kf, hi, t)
}

/// The square root of `x`, zero or positive normal (measured: f32 within 0.5 ulp,
/// f64 equal to `std`'s correctly rounded root on the test points): `1/√x` from the
/// bit-level estimate refined by Newton's iteration, then one Newton step on `√x`.
pub fn sqrt<R: Real, O: FloatOps<R>>(o: &mut O, x: O::F) -> O::F {
    let (magic, iters) = if R::MANT > 23 {
        (0x5fe6_eb50_c7b5_37a9u64, 4)
    } else {
        (0x5f37_59dfu64, 3)
    };
    // Zero takes the smallest normal's path (its estimate squared stays finite).
    let tiny = o.fc(if R::MANT > 23 {
        f64::MIN_POSITIVE
    } else {
        f32::MIN_POSITIVE as f64
    });
    let xs = o.fmax(x, tiny);
    let bits = o.f_to_bits(xs);
    let half_bits = o.bshr(bits, 1);
    let m = o.bc(magic);
    let y0 = o.bsub(m, half_bits);
    let mut y = o.bits_to_f(y0);
    let neg_half = o.fc(-0.5);
    let h = o.fmul(xs, neg_half);
    let three_halves = o.fc(1.5);
    for _ in 0..iters {
        let yy = o.fmul(y, y);
        let t = o.fma(h, yy, three_halves);
        y = o.fmul(y, t);
    }
    let s = o.fmul(xs, y);
    let neg_s = o.fc(-1.0);
    let neg_s = o.fmul(s, neg_s);
    let r = o.fma(neg_s, s, xs);
    let half = o.fc(0.5);
    let hy = o.fmul(y, half);
    let s = o.fma(r, hy, s);
    let zero = o.fc(0.0);
    let is_tiny = o.flt(x, tiny);
    o.fselect(is_tiny, zero, s)
}

/// `e^x` (measured: f32 within 0.86 ulp, f64 within 1 ulp of `std`'s, for results in
/// the normal range; 0 below `e^−104` (f32) /
/// `e^−746` (f64), +∞ above `e^89` / `e^710`; `x` finite).
///
/// `x = k·ln 2 + r` with `k` the nearest integer to `x/ln 2` (by adding and removing
/// 1.5·2^mant), `|r| ≤ ln 2/2`, `e^r` by its Taylor polynomial, and the scaling by `2^k`
/// in two halves so results near the ends of the range round once, correctly.
pub fn exp<R: Real, O: FloatOps<R>>(o: &mut O, x: O::F) -> O::F {
    let (lo_clamp, hi_clamp, degree) = if R::MANT > 23 {
        (-746.0, 710.0, 13)
    } else {
        (-104.0, 89.0, 7)
    };
    let lo = o.fc(lo_clamp);
    let hi = o.fc(hi_clamp);
    let x = o.fmax(x, lo);
    let x = o.fmin(x, hi);
    let shifter_v = 1.5 * (1u64 << R::MANT) as f64;
    let shifter = o.fc(shifter_v);
    let inv_ln2 = o.fc(std::f64::consts::LOG2_E);
    let t = o.fma(x, inv_ln2, shifter);
    let kf = o.fsub(t, shifter);
    let tb = o.f_to_bits(t);
    let kbits = o.low_i32(tb);
    let base = o.i32(R::bits_of(shifter_v) as u32 as i32);
    let k = o.isub(kbits, base);
    let (ln2_hi, ln2_lo) = ln2_parts::<R>();
    let nhi = o.fc(-ln2_hi);
    let nlo = o.fc(-ln2_lo);
    let r = o.fma(kf, nhi, x);
    let r = o.fma(kf, nlo, r);
    let mut fact = 1.0f64;
    for i in 1..=degree {
        fact *= i as f64;
    }
    let mut p = o.fc(1.0 / fact);
    for i in (0..degree).rev() {
        fact /= (i + 1) as f64;
        let ci = o.fc(1.0 / fact);
        p = o.fma(p, r, ci);
    }
    let k1 = o.ishr(k, 1);
    let k2 = o.isub(k, k1);
    let bias = o.i32(R::BIAS);
    let mut scaled = p;
    for half in [k1, k2] {
        let e = o.iadd(half, bias);
        let eb = o.bits_from_i32(e);
        let eb = o.bshl(eb, R::MANT);
        let scale = o.bits_to_f(eb);
        scaled = o.fmul(scaled, scale);
    }
    scaled
}

/// `(sin 2πv, cos 2πv)` for `|v|` below 2^(mant−3) turns (measured over [0, 1]: f32
/// within 1.02 ulp, f64 within 2 ulps of `std` on the exactly reduced angle; where a
/// result is below 2⁻⁶ the bound is absolute, in ulps of 2⁻⁶).
///
/// `v = q/4 + r` exactly with `q` the nearest integer to `4v` and `|r| ≤ 1/8`; the
/// polynomials are in `r` (turns), their coefficients `±(2π)ⁿ/n!`; the quadrant `q`
/// swaps and negates.
pub fn sincos_turns<R: Real, O: FloatOps<R>>(o: &mut O, v: O::F) -> (O::F, O::F) {
    let shifter_v = 1.5 * (1u64 << R::MANT) as f64;
    let shifter = o.fc(shifter_v);
    let four = o.fc(4.0);
    let t = o.fma(v, four, shifter);
    let qf = o.fsub(t, shifter);
    let neg_quarter = o.fc(-0.25);
    let r = o.fma(qf, neg_quarter, v);
    let tb = o.f_to_bits(t);
    let q = o.low_i32(tb);
    let z = o.fmul(r, r);
    // sin: r·Σ (−1)ⁿ(2π)^(2n+1)/(2n+1)!·z^n; cos: Σ (−1)ⁿ(2π)^(2n)/(2n)!·z^n.
    let (sin_terms, cos_terms) = if R::MANT > 23 { (9, 9) } else { (5, 6) };
    let coef = |n: usize| -> f64 {
        let tau = std::f64::consts::TAU;
        let mut c = 1.0;
        for i in 1..=n {
            c *= tau / i as f64;
        }
        if (n / 2) % 2 == 1 {
            -c
        } else {
            c
        }
    };
    let horner = |o: &mut O, terms: usize, first: usize, last: O::F| -> O::F {
        let mut p = o.fc(coef(first + 2 * (terms - 1)));
        for n in (1..terms - 1).rev() {
            let c = o.fc(coef(first + 2 * n));
            p = o.fma(p, z, c);
        }
        o.fma(p, z, last)
    };
    // sin: r·2π carried as r·hi + r·(lo + z·…), so the rounding of 2π costs no ulp.
    let tau_hi = R::round(std::f64::consts::TAU);
    let tau_lo = o.fc((std::f64::consts::TAU - tau_hi) + TAU_TAIL);
    let tail = horner(o, sin_terms, 1, tau_lo);
    let tail = o.fmul(tail, r);
    let hi = o.fc(tau_hi);
    let s = o.fma(r, hi, tail);
    let one_f = o.fc(1.0);
    let c = horner(o, cos_terms, 0, one_f);
    let swap = o.itest(q, 1);
    let (s2, c2) = (o.fselect(swap, c, s), o.fselect(swap, s, c));
    let one = o.i32(1);
    let q1 = o.iadd(q, one);
    let neg_sin = o.itest(q, 2);
    let neg_cos = o.itest(q1, 2);
    let m1 = o.fc(-1.0);
    let ns = o.fmul(s2, m1);
    let nc = o.fmul(c2, m1);
    (o.fselect(neg_sin, ns, s2), o.fselect(neg_cos, nc, c2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Host;

    /// f32 results: ulps from the exact value (the f64 `std` result, exact to f32's
    /// precision). f64 results ([`ulps64`]): ulps from `std`'s f64 result, itself
    /// within about half an ulp, so a bound of k here is k + ½ from the exact value.
    fn ulps32(got: f32, want: f64) -> f64 {
        let w = want as f32;
        let ulp = if w == 0.0 {
            f32::MIN_POSITIVE as f64
        } else {
            (f32::from_bits(w.abs().to_bits() + 1) - w.abs()) as f64
        };
        (got as f64 - want).abs() / ulp
    }

    fn ulps64(got: f64, want: f64) -> f64 {
        let ulp = if want == 0.0 {
            f64::MIN_POSITIVE
        } else {
            f64::from_bits(want.abs().to_bits() + 1) - want.abs()
        };
        (got - want).abs() / ulp
    }

    /// Deterministic points over the ranges the distributions use.
    fn points(n: usize) -> impl Iterator<Item = f64> {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        (0..n).map(move |_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
    }

    fn worst(mut f: impl FnMut(f64) -> f64, xs: impl Iterator<Item = f64>) -> f64 {
        xs.map(&mut f).fold(0.0, f64::max)
    }

    /// ln over (0, 1] (Box–Muller's range) and a wide range: within 1 ulp in f32 and
    /// f64 (the f64 bound includes `std`'s own error, below 1 ulp).
    #[test]
    fn ln_within_one_ulp() {
        let o = &mut Host;
        let xs = || {
            points(200_000).map(|u| {
                let e = (u * 1e4) as i32 % 60 - 40;
                (u * 0.9 + 0.1) * 2f64.powi(e)
            })
        };
        let w32 = worst(
            |x| {
                let x = x as f32;
                ulps32(ln::<f32, _>(o, x), (x as f64).ln())
            },
            xs(),
        );
        let w64 = worst(|x| ulps64(ln::<f64, _>(o, x), x.ln()), xs());
        eprintln!("ln: f32 {w32:.3} ulp, f64 {w64:.3} ulp");
        assert!(w32 < 1.0 && w64 <= 1.0, "{w32} {w64}");
        assert_eq!(ln::<f32, _>(o, 1.0), 0.0);
        assert_eq!(ln::<f64, _>(o, 1.0), 0.0);
    }

    #[test]
    fn sqrt_within_one_ulp() {
        let o = &mut Host;
        let xs = || points(200_000).map(|u| u * 2f64.powi(((u * 1e6) as i32 % 80) - 40));
        let w32 = worst(
            |x| {
                let x = x as f32;
                ulps32(sqrt::<f32, _>(o, x), (x as f64).sqrt())
            },
            xs(),
        );
        let w64 = worst(|x| ulps64(sqrt::<f64, _>(o, x), x.sqrt()), xs());
        eprintln!("sqrt: f32 {w32:.3} ulp, f64 {w64:.3} ulp");
        assert!(w32 < 1.0 && w64 < 1.0, "{w32} {w64}");
        assert_eq!(sqrt::<f32, _>(o, 0.0), 0.0);
        assert_eq!(sqrt::<f64, _>(o, 0.0), 0.0);
    }

    #[test]
    fn exp_within_one_ulp() {
        let o = &mut Host;
        let xs = || points(200_000).map(|u| (u - 0.5) * 160.0);
        let w32 = worst(
            |x| {
                let x = x as f32;
                ulps32(exp::<f32, _>(o, x), (x as f64).exp())
            },
            xs(),
        );
        let w64 = worst(|x| ulps64(exp::<f64, _>(o, x * 8.0), (x * 8.0).exp()), xs());
        eprintln!("exp: f32 {w32:.3} ulp, f64 {w64:.3} ulp");
        assert!(w32 < 1.0 && w64 <= 1.0, "{w32} {w64}");
        assert_eq!(exp::<f32, _>(o, 0.0), 1.0);
        assert_eq!(exp::<f32, _>(o, 200.0), f32::INFINITY);
        assert_eq!(exp::<f64, _>(o, -1000.0), 0.0);
    }

    /// sin/cos of 2πv over [0, 1]: within 1 ulp of the result, or an absolute 2⁻²⁴
    /// (f32) / 2⁻⁵³ (f64) near the zeros, where a relative bound is meaningless.
    #[test]
    fn sincos_within_one_ulp() {
        let o = &mut Host;
        let mut w = [0f64; 2];
        for v in points(200_000) {
            let (s, c) = sincos_turns::<f32, _>(o, v as f32);
            let (vf, a32) = (v as f32 as f64, (v as f32 as f64) * std::f64::consts::TAU);
            let _ = vf;
            for (g, e) in [(s, a32.sin()), (c, a32.cos())] {
                let err = if e.abs() < 2f64.powi(-6) {
                    (g as f64 - e).abs() / 2f64.powi(-24) / 2f64.powi(-6)
                } else {
                    ulps32(g, e)
                };
                w[0] = w[0].max(err);
            }
            let (s, c) = sincos_turns::<f64, _>(o, v);
            // The reference reduces as exactly as the function (std's sin of a rounded
            // 2πv is off by up to 2⁻⁵³·2π absolute, hundreds of ulps near the zeros).
            let q = (4.0 * v).round();
            let rr = (v - q / 4.0) * std::f64::consts::TAU;
            let (rs, rc) = (rr.sin(), rr.cos());
            let (es, ec) = match q as i64 % 4 {
                0 => (rs, rc),
                1 => (rc, -rs),
                2 => (-rs, -rc),
                _ => (-rc, rs),
            };
            for (g, e) in [(s, es), (c, ec)] {
                let err = if e.abs() < 2f64.powi(-6) {
                    (g - e).abs() / 2f64.powi(-53) / 2f64.powi(-6)
                } else {
                    ulps64(g, e)
                };
                w[1] = w[1].max(err);
            }
        }
        eprintln!("sincos: f32 {:.3} ulp, f64 {:.3} ulp", w[0], w[1]);
        assert!(w[0] < 1.5 && w[1] <= 2.0, "{w:?}");
        assert_eq!(sincos_turns::<f32, _>(o, 0.0), (0.0, 1.0));
        assert_eq!(sincos_turns::<f64, _>(o, 0.25), (1.0, 0.0));
    }
}
