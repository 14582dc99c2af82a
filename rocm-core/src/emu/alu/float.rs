//! Floating-point helpers shared by the vector ops: correctly rounded conversions to
//! f16 and bf16 (the `half` crate's f64 path truncates before rounding, so it is used
//! only as a test reference), IEEE-mode min/max, NaN canonicalisation, output
//! modifiers and clamp.

/// The quiet NaN hardware generates (and that every NaN result here is reduced to).
pub const NAN_F32: u32 = 0x7fc0_0000;
pub const NAN_F64: u64 = 0x7ff8_0000_0000_0000;
pub const NAN_F16: u16 = 0x7e00;
pub const NAN_BF16: u16 = 0x7fc0;

/// Rounding modes of the conversions the ISA has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// Round to nearest, ties to even (the default mode).
    NearestEven,
    /// Round toward zero (`v_cvt_pkrtz_f16_f32`).
    TowardZero,
}

/// `x + tail` rounded to f16, where `tail` is what `x` lost when it was rounded to f64
/// (0 when `x` is exact, `|tail| <= ulp(x)/2`); the tail only matters when `x` sits
/// exactly on an f16 rounding boundary. NaN gives the canonical quiet NaN.
pub fn f16_round(x: f64, tail: f64, mode: Round) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return NAN_F16;
    }
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a == 0.0 {
        // x is zero: the tail decides nothing under either mode except the sign of an
        // exact zero, which it cannot have (x exact means tail = 0).
        return sign;
    }
    // Exponent of a (f64 subnormals are far below f16's range and behave as 2^-1074).
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-1074);
    // Quantum of f16 at this magnitude: 2^(e-10) for normals, 2^-24 for subnormals.
    let q = e.max(-14) - 10;
    let m = a * pow2(-q); // exact: a power-of-two scaling that stays in range
    let fl = m.floor();
    let frac = m - fl;
    // The tail, in the direction of |x|: positive means the true |value| is larger.
    let t = if x.is_sign_negative() { -tail } else { tail };
    let n = match mode {
        Round::NearestEven => {
            if frac > 0.5 || (frac == 0.5 && (t > 0.0 || (t == 0.0 && fl % 2.0 != 0.0))) {
                fl + 1.0
            } else {
                fl
            }
        }
        Round::TowardZero => {
            if frac == 0.0 && t < 0.0 {
                fl - 1.0
            } else {
                fl
            }
        }
    };
    encode_f16(sign, n, q, mode)
}

/// Encodes `n * 2^q` (n an integer below 2^12) as an f16 with `sign`, overflowing to
/// infinity (nearest) or the largest finite value (toward zero).
fn encode_f16(sign: u16, n: f64, q: i32, mode: Round) -> u16 {
    let (mut n, mut q) = (n as u32, q);
    if n == 0 {
        return sign;
    }
    while n >= 2048 {
        n >>= 1;
        q += 1;
    }
    if n < 1024 {
        // Subnormal (only possible with q = -24).
        return sign | n as u16;
    }
    let field = q + 10 + 15;
    if field >= 31 {
        return match mode {
            Round::NearestEven => sign | 0x7c00,
            Round::TowardZero => sign | 0x7bff,
        };
    }
    sign | (field as u16) << 10 | (n - 1024) as u16
}

/// 2^k as f64 for -1074 <= k <= 1023.
fn pow2(k: i32) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// f32 → f16, round to nearest even.
pub fn f16_from_f32(x: f32) -> u16 {
    f16_round(f64::from(x), 0.0, Round::NearestEven)
}

/// f16 bits → f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// f16 bits → f64 (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    f64::from(f16_to_f32(h))
}

/// bf16 bits → f32 (exact: bf16 is the high half of an f32).
pub fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits(u32::from(b) << 16)
}

/// f32 → bf16, round to nearest even; NaN gives the canonical quiet NaN.
pub fn bf16_from_f32(x: f32) -> u16 {
    if x.is_nan() {
        return NAN_BF16;
    }
    let b = x.to_bits();
    let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    (rounded >> 16) as u16
}

/// `a * b + c` on f16 values, rounded once. The product is exact in f64; the sum's
/// rounding error is carried as the tail so the f16 rounding sees the exact value.
/// (For f16 operands the f64 sum can only be inexact when `|a*b| < 2^-26 <= ulp(c)/2`,
/// so the tail never decides a tie in practice; it keeps the function correct without
/// relying on that argument. Rounding through f32 instead would double-round: see the
/// `f16_fma_rounds_once` test.)
pub fn f16_fma(a: u16, b: u16, c: u16) -> u16 {
    let p = f16_to_f64(a) * f16_to_f64(b);
    let c = f16_to_f64(c);
    let s = p + c;
    if !s.is_finite() {
        return f16_round(s, 0.0, Round::NearestEven);
    }
    // Knuth's two-sum: s + err == p + c exactly.
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    f16_round(s, err, Round::NearestEven)
}

/// A float type's bit-level facts, so min/max/clamp/omod are written once.
pub trait FloatBits: Copy + PartialOrd {
    fn is_nan(self) -> bool;
    fn neg_zero(self) -> bool;
    fn zero() -> Self;
    fn one() -> Self;
}

impl FloatBits for f32 {
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn neg_zero(self) -> bool {
        self == 0.0 && self.is_sign_negative()
    }
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
}

impl FloatBits for f64 {
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn neg_zero(self) -> bool {
        self == 0.0 && self.is_sign_negative()
    }
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
}

/// IEEE-mode minimum: a NaN operand yields the other operand, two NaNs a NaN; -0 is
/// below +0.
pub fn min_ieee<T: FloatBits>(a: T, b: T) -> T {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a < b || (a == b && a.neg_zero()) {
        a
    } else {
        b
    }
}

/// IEEE-mode maximum (see [`min_ieee`]).
pub fn max_ieee<T: FloatBits>(a: T, b: T) -> T {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a > b || (a == b && b.neg_zero()) {
        a
    } else {
        b
    }
}

/// `v_med3_f32`: with any NaN operand the min3 of the three (ISA pseudocode), else the
/// middle value.
pub fn med3(a: f32, b: f32, c: f32) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return min_ieee(min_ieee(a, b), c);
    }
    let mx = max_ieee(max_ieee(a, b), c);
    if mx == a {
        max_ieee(b, c)
    } else if mx == b {
        max_ieee(a, c)
    } else {
        max_ieee(a, b)
    }
}

/// The VOP3 clamp of floats: to [0, 1], NaN to +0 (DX10 clamp mode, the default).
pub fn clamp01<T: FloatBits>(x: T) -> T {
    if x.is_nan() || x < T::zero() {
        T::zero()
    } else if x > T::one() {
        T::one()
    } else {
        x
    }
}

/// The factor of a VOP3 output modifier (`omod`): 1 ×2, 2 ×4, 3 ÷2.
pub fn omod_factor(omod: u8) -> f64 {
    match omod & 3 {
        1 => 2.0,
        2 => 4.0,
        3 => 0.5,
        _ => 1.0,
    }
}
