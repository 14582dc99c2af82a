//! Complex division that neither overflows nor underflows where the quotient is
//! representable: the robust Smith algorithm of Baudin and Smith, "A Robust Complex
//! Division in Scilab" (2012), the method LAPACK's xLADIV uses.
//!
//! The textbook `(a+ib)/(c+id) = ((ac+bd) + i(bc-ad)) / (c²+d²)` (num-complex's `/`)
//! squares the divisor's modulus, so it overflows for |c+id| above √max and flushes to
//! zero below √min, far inside the range where the quotient itself is finite. Smith's
//! ratio `r = d/c` keeps every intermediate near the operands' magnitude; the robust
//! variant pre-scales operands near the range ends by powers of two (exact) and
//! reorders the products where `b·r` would underflow.

use num_traits::Float;

/// `(a + ib) / (c + id)` as `(re, im)`.
///
/// Follows xLADIV: a zero divisor gives NaN components (0/0 in the ratio), as LAPACK's
/// does; infinite or NaN operands propagate as NaN or infinity per IEEE arithmetic.
pub fn div<R: Float>(a: R, b: R, c: R, d: R) -> (R, R) {
    let (mut a, mut b, mut c, mut d) = (a, b, c, d);
    let two = R::one() + R::one();
    let ab = a.abs().max(b.abs());
    let cd = c.abs().max(d.abs());
    let half_max = R::max_value() / two;
    // Below this, Smith's ratio loses bits to gradual underflow; scale such operands up.
    let small = R::min_positive_value() * two / R::epsilon();
    let big_scale = two / (R::epsilon() * R::epsilon());
    let mut s = R::one();
    if ab >= half_max {
        a = a / two;
        b = b / two;
        s = s * two;
    }
    if cd >= half_max {
        c = c / two;
        d = d / two;
        s = s / two;
    }
    if ab <= small {
        a = a * big_scale;
        b = b * big_scale;
        s = s / big_scale;
    }
    if cd <= small {
        c = c * big_scale;
        d = d * big_scale;
        s = s * big_scale;
    }
    let (e, f) = if d.abs() <= c.abs() {
        smith(a, b, c, d)
    } else {
        // (a+ib)/(c+id) = conj((b+ia)/(d+ic)) with the roles of the parts swapped.
        let (e, f) = smith(b, a, d, c);
        (e, -f)
    };
    (e * s, f * s)
}

/// Smith's division for |d| ≤ |c|.
fn smith<R: Float>(a: R, b: R, c: R, d: R) -> (R, R) {
    let r = d / c;
    let t = R::one() / (c + d * r);
    (real_part(a, b, c, d, r, t), real_part(b, -a, c, d, r, t))
}

/// `(a + b·r)·t`, reordered where `b·r` underflows so the product keeps its bits.
fn real_part<R: Float>(a: R, b: R, c: R, d: R, r: R, t: R) -> R {
    if r != R::zero() {
        let br = b * r;
        if br != R::zero() {
            (a + br) * t
        } else {
            a * t + (b * t) * r
        }
    } else {
        (a + d * (b / c)) * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The quotient with every intermediate exact or once-rounded: the operands are
    /// brought to unit scale by exact powers of two, divided in the textbook form (which
    /// cannot overflow at unit scale), then scaled back in two steps so that only the
    /// last multiplication can overflow or round into the subnormal range.
    fn reference(a: f64, b: f64, c: f64, d: f64) -> (f64, f64) {
        let scale = |x: f64, y: f64| {
            let m = x.abs().max(y.abs());
            if m == 0.0 {
                0
            } else {
                m.log2().floor() as i32
            }
        };
        let (ka, kc) = (scale(a, b), scale(c, d));
        let p2 = |k: i32| 2f64.powi(k);
        // Powers beyond ±1022 do not fit one f64; split them.
        let shift = |x: f64, k: i32| x * p2(k / 2) * p2(k - k / 2);
        let (a, b, c, d) = (shift(a, -ka), shift(b, -ka), shift(c, -kc), shift(d, -kc));
        let den = c * c + d * d;
        let (e, f) = ((a * c + b * d) / den, (b * c - a * d) / den);
        (shift(e, ka - kc), shift(f, ka - kc))
    }

    /// Relative error against the quotient's modulus. Smith's method is normwise stable:
    /// each component carries a few roundings of |q| (ratio, denominator, product, sum,
    /// scaling: at most 6u·|q| with u = ε/2, Baudin–Smith §3); the reference adds one
    /// more. 8ε bounds both with margin.
    fn close(got: (f64, f64), want: (f64, f64)) -> bool {
        let m = want.0.hypot(want.1);
        if !m.is_finite() || m == 0.0 {
            return got == want || (got.0.is_nan() && want.0.is_nan());
        }
        // A subnormal component is only known to the smallest subnormal.
        let slack = 8.0 * f64::EPSILON * m + 2.0 * f64::from_bits(1);
        (got.0 - want.0).abs() <= slack && (got.1 - want.1).abs() <= slack
    }

    /// 2^k for every k down to the smallest subnormal (one `powi` underflows early).
    fn p2(k: i32) -> f64 {
        2f64.powi(k / 2) * 2f64.powi(k - k / 2)
    }

    #[test]
    fn edges_the_textbook_formula_loses() {
        let cases: &[[f64; 4]] = &[
            // Divisor modulus squared overflows: textbook gives 0 or NaN.
            [1.0, 1.0, 1.0, 1e308],
            [1e308, 1e308, 1e308, 1e308],
            [1e300, 1e-300, 1e307, 1e-307],
            // Divisor modulus squared underflows: textbook gives inf.
            [1e-308, 1e-308, 1e-308, 1e-308],
            [1.0, 1.0, 1e-300, 1e-300],
            [1e-300, 1e-300, 1e-300, 1e-300],
            // Mixed exponents, subnormal results (Baudin–Smith's hard cases).
            [1.0, 1.0, 1.0, p2(1023)],
            [1.0, 1.0, p2(-1023), p2(-1023)],
            [p2(1023), p2(-1023), p2(677), p2(-677)],
            [p2(1020), p2(-844), p2(656), p2(-780)],
            [p2(-71), p2(1021), p2(1001), p2(-323)],
            [p2(-347), p2(-54), p2(-1037), p2(-1058)],
            [p2(-1074), p2(-1074), p2(-1073), p2(-1074)],
            [p2(1015), p2(-989), p2(1023), p2(1023)],
            [p2(-622), p2(-1071), p2(-343), p2(-1017)],
            [0.0, 1.0, 3.0, 4.0],
            [5.0, 0.0, 0.0, 2.0],
        ];
        for &[a, b, c, d] in cases {
            let got = div(a, b, c, d);
            let want = reference(a, b, c, d);
            assert!(
                close(got, want),
                "({a:e}+{b:e}i)/({c:e}+{d:e}i): {got:?} vs {want:?}"
            );
        }
        // The textbook form really fails on the first case (the test has teeth).
        let naive = num_complex::Complex64::new(1.0, 1.0) / num_complex::Complex64::new(1.0, 1e308);
        assert!(!close(
            (naive.re, naive.im),
            reference(1.0, 1.0, 1.0, 1e308)
        ));
    }

    #[test]
    fn non_finite_operands_propagate() {
        let inf = f64::INFINITY;
        let (e, f) = div(1.0, 1.0, 0.0, 0.0);
        assert!(e.is_nan() && f.is_nan(), "zero divisor is NaN as in xLADIV");
        let (e, f) = div(f64::NAN, 1.0, 2.0, 3.0);
        assert!(e.is_nan() && f.is_nan());
        let (e, f) = div(1.0, 2.0, inf, 1.0);
        assert!(e == 0.0 && f == 0.0, "finite/inf is zero: {e} {f}");
        let (e, _) = div(inf, 0.0, 2.0, 0.0);
        assert!(e == inf);
    }

    #[test]
    fn single_precision_against_double() {
        // f32 operands divide exactly enough in f64 (squares of f32 fit f64's range).
        let cases: &[[f32; 4]] = &[
            [1.0, 1.0, 1.0, 1e38],
            [1e-38, 1e-38, 1e-38, 1e-38],
            [1.0, 1.0, 1e-30, 1e-30],
            [3e38, 3e38, 3e38, 3e38],
            [1e-45, 1e-45, 3e-45, 1e-45],
        ];
        for &[a, b, c, d] in cases {
            let (e, f) = div(a, b, c, d);
            let z = num_complex::Complex64::new(a as f64, b as f64)
                / num_complex::Complex64::new(c as f64, d as f64);
            let m = z.norm();
            // 8ε₃₂ relative to |q|, plus the smallest f32 subnormal for subnormal parts.
            let slack = 8.0 * f32::EPSILON as f64 * m + f32::from_bits(1) as f64;
            assert!(
                ((e as f64) - z.re).abs() <= slack && ((f as f64) - z.im).abs() <= slack,
                "{a:e} {b:e} {c:e} {d:e}: {e:e} {f:e} vs {z}"
            );
        }
    }

    fn wide() -> impl Strategy<Value = f64> {
        (any::<bool>(), 1.0f64..2.0, -1070i32..1023).prop_map(|(neg, m, e)| {
            let v = m * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
            if neg {
                -v
            } else {
                v
            }
        })
    }

    proptest! {
        #[test]
        fn random_exponents_match_the_reference(a in wide(), b in wide(), c in wide(), d in wide()) {
            let want = reference(a, b, c, d);
            // Quotients outside the normal range are checked above; here both bounds hold.
            let m = want.0.hypot(want.1);
            prop_assume!(m.is_finite() && m > f64::MIN_POSITIVE * 1e4 && m < f64::MAX / 4.0);
            let got = div(a, b, c, d);
            prop_assert!(close(got, want), "({a:e}+{b:e}i)/({c:e}+{d:e}i): {got:?} vs {want:?}");
        }
    }
}
