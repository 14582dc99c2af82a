//! CPU vector helpers: the runtime AVX2 + FMA check and an exponential the compiler can
//! vectorise.
//!
//! `f32::exp` is a call into libm, so a loop of them runs one lane at a time. [`exp`]
//! is straight-line arithmetic (no calls, no branches but a final select), which LLVM
//! turns into 8-lane AVX2 code inside a `#[target_feature(enable = "avx2,fma")]` function
//! and 4-lane SSE2 code elsewhere.

/// Whether this CPU runs the AVX2 + FMA instantiations of the vector kernels.
pub(crate) fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// e^x for x ≤ 88, within 2 ulp of the correctly rounded result for x ≥ −87; 0 below
/// −87 (where e^x < 1.7·10⁻³⁸ sits at the bottom of the normal range); NaN stays NaN.
///
/// x = k·ln 2 + r with k = round(x / ln 2) and |r| ≤ ln 2 / 2, ln 2 split into a 16-bit
/// head (k·LN2_HI is exact for |k| < 2⁸) and a tail (Cody–Waite), so r carries no
/// cancellation error; e^r by its Taylor polynomial of degree 7 (truncation
/// r⁸/8! < 5·10⁻⁹ relative, below half an ulp), then scaled by 2^k built in the
/// exponent bits. k is rounded by adding 1.5·2²³, which leaves k in the low mantissa bits.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 = LN2_HI + LN2_LO: the head keeps 15 significant bits, the tail is the f32
    // nearest to the rest (1.4286068e-6).
    const LN2_HI: f32 = f32::from_bits(0x3F31_7200); // 0.693145751953125
    const LN2_LO: f32 = f32::from_bits(0x35BF_BE8E);
    const ROUND: f32 = 12_582_912.0; // 1.5 · 2²³
    let t = x * LOG2E + ROUND;
    let k = t - ROUND;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // The low bits of t hold k + 2²² (two's complement in the 23-bit mantissa field).
    let ki = (t.to_bits() as i32).wrapping_sub(0x4B40_0000);
    let scale = f32::from_bits((ki.wrapping_add(127) as u32) << 23);
    if x < -87.0 {
        0.0
    } else {
        p * scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units of the last place of the f64 value, at f32 precision.
    fn ulps(got: f32, want: f64) -> f64 {
        let ulp = (want.abs() as f32).max(f32::MIN_POSITIVE);
        let ulp = f32::from_bits(ulp.to_bits() + 1) - ulp;
        (got as f64 - want).abs() / ulp as f64
    }

    #[test]
    fn exp_is_within_two_ulp_on_its_range() {
        // Every 97th f32 bit pattern in [-87, 88] (about 22 million values) against the
        // f64 exponential (itself within 1 ulp of f64, far below an f32 ulp).
        let mut worst = (0.0f64, 0.0f32);
        let mut check = |x: f32| {
            let u = ulps(exp(x), (x as f64).exp());
            if u > worst.0 {
                worst = (u, x);
            }
        };
        for bits in (0u32..87f32.to_bits()).step_by(97) {
            check(f32::from_bits(bits | 0x8000_0000));
        }
        for bits in (0u32..88f32.to_bits()).step_by(97) {
            check(f32::from_bits(bits));
        }
        for x in [0.0f32, -0.0, 1.0, -1.0, 0.5, -0.346_573_6, -87.0, 88.0] {
            check(x);
        }
        assert!(worst.0 <= 2.0, "{} ulp at x = {}", worst.0, worst.1);
        assert_eq!(exp(0.0), 1.0);
    }

    #[test]
    fn exp_flushes_below_its_range_and_keeps_nan() {
        for x in [-87.01f32, -100.0, -1e30, f32::MIN, f32::NEG_INFINITY] {
            assert_eq!(exp(x), 0.0, "exp({x})");
        }
        assert!(exp(f32::NAN).is_nan());
    }
}
