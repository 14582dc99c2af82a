//! The operations the generators and transforms are written in, implemented twice: by
//! plain Rust values ([`Host`], the CPU path) and by the kernel language's
//! [`Builder`] (the GPU kernels). Every generator ([`crate::bits`]) and transform
//! ([`crate::math`], [`crate::dist`]) is one generic function over these traits, so the
//! CPU and every device compute the same operations in the same order.
//!
//! Only exactly rounded operations appear here (integer arithmetic, float add, sub, mul,
//! fma, exact conversions of 32-bit integers, comparisons, bit casts): no division,
//! square root or transcendental of either ISA, whose lowerings may differ by an ulp.

use rocm_kernels::lang::{Builder, Scalar, Type, Value};

/// The integer operations: 32-bit words (the generators' arithmetic), 64-bit counters,
/// 32-bit signed exponents and predicates.
pub trait Ops {
    type U32: Copy;
    type U64: Copy;
    type I32: Copy;
    type Pred: Copy;

    fn u32(&mut self, c: u32) -> Self::U32;
    fn add32(&mut self, a: Self::U32, b: Self::U32) -> Self::U32;
    fn xor32(&mut self, a: Self::U32, b: Self::U32) -> Self::U32;
    fn or32(&mut self, a: Self::U32, b: Self::U32) -> Self::U32;
    fn shl32(&mut self, a: Self::U32, n: u32) -> Self::U32;
    fn shr32(&mut self, a: Self::U32, n: u32) -> Self::U32;
    /// The 64-bit product as its (high, low) words.
    fn mul_hilo32(&mut self, a: Self::U32, b: Self::U32) -> (Self::U32, Self::U32);
    /// Rotation left by a constant.
    fn rotl32(&mut self, a: Self::U32, n: u32) -> Self::U32 {
        let l = self.shl32(a, n);
        let r = self.shr32(a, 32 - n);
        self.or32(l, r)
    }

    fn u64(&mut self, c: u64) -> Self::U64;
    fn add64(&mut self, a: Self::U64, b: Self::U64) -> Self::U64;
    fn shl64(&mut self, a: Self::U64, n: u32) -> Self::U64;
    fn shr64(&mut self, a: Self::U64, n: u32) -> Self::U64;
    /// `a − b` (callers keep it non-negative).
    fn sub64(&mut self, a: Self::U64, b: Self::U64) -> Self::U64;
    /// The low `n` bits (`a mod 2^n`, `n < 64`).
    fn low_bits64(&mut self, a: Self::U64, n: u32) -> Self::U64;
    fn lo32(&mut self, a: Self::U64) -> Self::U32;
    fn hi32(&mut self, a: Self::U64) -> Self::U32;
    /// `lo | hi << 32`.
    fn join64(&mut self, lo: Self::U32, hi: Self::U32) -> Self::U64;

    fn i32(&mut self, c: i32) -> Self::I32;
    fn iadd(&mut self, a: Self::I32, b: Self::I32) -> Self::I32;
    fn isub(&mut self, a: Self::I32, b: Self::I32) -> Self::I32;
    /// Arithmetic shift right.
    fn ishr(&mut self, a: Self::I32, n: u32) -> Self::I32;
    /// `a & mask != 0`.
    fn itest(&mut self, a: Self::I32, mask: i32) -> Self::Pred;
}

/// A floating-point precision the transforms are written for (f32, f64): its bit
/// layout and constants.
pub trait Real: Copy + Send + Sync + 'static {
    /// The language scalar of the values and of their bits.
    const SCALAR: Scalar;
    const BITS_SCALAR: Scalar;
    /// Stored mantissa bits.
    const MANT: u32;
    const BIAS: i32;
    /// Words of a uniform value: 1 (f32) or 2 (f64).
    const WORDS: usize;
    /// `x` rounded to this precision, as f64.
    fn round(x: f64) -> f64;
    /// The bits of `x` rounded to this precision.
    fn bits_of(x: f64) -> u64;
}

impl Real for f32 {
    const SCALAR: Scalar = Scalar::F32;
    const BITS_SCALAR: Scalar = Scalar::U32;
    const MANT: u32 = 23;
    const BIAS: i32 = 127;
    const WORDS: usize = 1;
    fn round(x: f64) -> f64 {
        x as f32 as f64
    }
    fn bits_of(x: f64) -> u64 {
        (x as f32).to_bits() as u64
    }
}

impl Real for f64 {
    const SCALAR: Scalar = Scalar::F64;
    const BITS_SCALAR: Scalar = Scalar::U64;
    const MANT: u32 = 52;
    const BIAS: i32 = 1023;
    const WORDS: usize = 2;
    fn round(x: f64) -> f64 {
        x
    }
    fn bits_of(x: f64) -> u64 {
        x.to_bits()
    }
}

/// The float operations of precision `R`, with the bits of its values (`u32` or `u64`).
pub trait FloatOps<R: Real>: Ops {
    type F: Copy;
    type Bits: Copy;

    /// `x` rounded to `R`.
    fn fc(&mut self, x: f64) -> Self::F;
    fn fadd(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn fsub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn fmul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `a·b + c`, rounded once.
    fn fma(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    fn fmin(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn fmax(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn flt(&mut self, a: Self::F, b: Self::F) -> Self::Pred;
    fn fselect(&mut self, p: Self::Pred, a: Self::F, b: Self::F) -> Self::F;
    /// The 32-bit unsigned integer, rounded to nearest.
    fn u32_to_f(&mut self, a: Self::U32) -> Self::F;
    /// The 32-bit signed integer, rounded to nearest.
    fn i32_to_f(&mut self, a: Self::I32) -> Self::F;

    fn f_to_bits(&mut self, a: Self::F) -> Self::Bits;
    fn bits_to_f(&mut self, a: Self::Bits) -> Self::F;
    fn bc(&mut self, c: u64) -> Self::Bits;
    fn band(&mut self, a: Self::Bits, b: Self::Bits) -> Self::Bits;
    fn badd(&mut self, a: Self::Bits, b: Self::Bits) -> Self::Bits;
    fn bsub(&mut self, a: Self::Bits, b: Self::Bits) -> Self::Bits;
    fn bshr(&mut self, a: Self::Bits, n: u32) -> Self::Bits;
    fn bshl(&mut self, a: Self::Bits, n: u32) -> Self::Bits;
    /// The bits read as a signed integer shifted right arithmetically by `R::MANT`
    /// (the biased exponent field with the sign spread above it).
    fn exponent_field(&mut self, a: Self::Bits) -> Self::I32;
    /// The low 32 bits as a signed integer.
    fn low_i32(&mut self, a: Self::Bits) -> Self::I32;
    /// A non-negative integer as bits.
    fn bits_from_i32(&mut self, a: Self::I32) -> Self::Bits;
}

/// Plain Rust values: the CPU path.
#[derive(Debug, Clone, Copy, Default)]
pub struct Host;

impl Ops for Host {
    type U32 = u32;
    type U64 = u64;
    type I32 = i32;
    type Pred = bool;

    #[inline(always)]
    fn u32(&mut self, c: u32) -> u32 {
        c
    }
    #[inline(always)]
    fn add32(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn xor32(&mut self, a: u32, b: u32) -> u32 {
        a ^ b
    }
    #[inline(always)]
    fn or32(&mut self, a: u32, b: u32) -> u32 {
        a | b
    }
    #[inline(always)]
    fn shl32(&mut self, a: u32, n: u32) -> u32 {
        a << n
    }
    #[inline(always)]
    fn shr32(&mut self, a: u32, n: u32) -> u32 {
        a >> n
    }
    #[inline(always)]
    fn mul_hilo32(&mut self, a: u32, b: u32) -> (u32, u32) {
        let p = a as u64 * b as u64;
        ((p >> 32) as u32, p as u32)
    }
    #[inline(always)]
    fn rotl32(&mut self, a: u32, n: u32) -> u32 {
        a.rotate_left(n)
    }
    #[inline(always)]
    fn u64(&mut self, c: u64) -> u64 {
        c
    }
    #[inline(always)]
    fn add64(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn shl64(&mut self, a: u64, n: u32) -> u64 {
        a << n
    }
    #[inline(always)]
    fn shr64(&mut self, a: u64, n: u32) -> u64 {
        a >> n
    }
    #[inline(always)]
    fn sub64(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    fn low_bits64(&mut self, a: u64, n: u32) -> u64 {
        a & ((1u64 << n) - 1)
    }
    #[inline(always)]
    fn lo32(&mut self, a: u64) -> u32 {
        a as u32
    }
    #[inline(always)]
    fn hi32(&mut self, a: u64) -> u32 {
        (a >> 32) as u32
    }
    #[inline(always)]
    fn join64(&mut self, lo: u32, hi: u32) -> u64 {
        lo as u64 | (hi as u64) << 32
    }
    #[inline(always)]
    fn i32(&mut self, c: i32) -> i32 {
        c
    }
    #[inline(always)]
    fn iadd(&mut self, a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn isub(&mut self, a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    fn ishr(&mut self, a: i32, n: u32) -> i32 {
        a >> n
    }
    #[inline(always)]
    fn itest(&mut self, a: i32, mask: i32) -> bool {
        a & mask != 0
    }
}

macro_rules! host_float {
    ($f:ty, $bits:ty, $signed:ty) => {
        impl FloatOps<$f> for Host {
            type F = $f;
            type Bits = $bits;

            #[inline(always)]
            fn fc(&mut self, x: f64) -> $f {
                x as $f
            }
            #[inline(always)]
            fn fadd(&mut self, a: $f, b: $f) -> $f {
                a + b
            }
            #[inline(always)]
            fn fsub(&mut self, a: $f, b: $f) -> $f {
                a - b
            }
            #[inline(always)]
            fn fmul(&mut self, a: $f, b: $f) -> $f {
                a * b
            }
            #[inline(always)]
            fn fma(&mut self, a: $f, b: $f, c: $f) -> $f {
                a.mul_add(b, c)
            }
            #[inline(always)]
            fn fmin(&mut self, a: $f, b: $f) -> $f {
                a.min(b)
            }
            #[inline(always)]
            fn fmax(&mut self, a: $f, b: $f) -> $f {
                a.max(b)
            }
            #[inline(always)]
            fn flt(&mut self, a: $f, b: $f) -> bool {
                a < b
            }
            #[inline(always)]
            fn fselect(&mut self, p: bool, a: $f, b: $f) -> $f {
                if p {
                    a
                } else {
                    b
                }
            }
            #[inline(always)]
            fn u32_to_f(&mut self, a: u32) -> $f {
                a as $f
            }
            #[inline(always)]
            fn i32_to_f(&mut self, a: i32) -> $f {
                a as $f
            }
            #[inline(always)]
            fn f_to_bits(&mut self, a: $f) -> $bits {
                a.to_bits()
            }
            #[inline(always)]
            fn bits_to_f(&mut self, a: $bits) -> $f {
                <$f>::from_bits(a)
            }
            #[inline(always)]
            fn bc(&mut self, c: u64) -> $bits {
                c as $bits
            }
            #[inline(always)]
            fn band(&mut self, a: $bits, b: $bits) -> $bits {
                a & b
            }
            #[inline(always)]
            fn badd(&mut self, a: $bits, b: $bits) -> $bits {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn bsub(&mut self, a: $bits, b: $bits) -> $bits {
                a.wrapping_sub(b)
            }
            #[inline(always)]
            fn bshr(&mut self, a: $bits, n: u32) -> $bits {
                a >> n
            }
            #[inline(always)]
            fn bshl(&mut self, a: $bits, n: u32) -> $bits {
                a << n
            }
            #[inline(always)]
            fn exponent_field(&mut self, a: $bits) -> i32 {
                ((a as $signed) >> <$f as Real>::MANT) as i32
            }
            #[inline(always)]
            fn low_i32(&mut self, a: $bits) -> i32 {
                a as u32 as i32
            }
            #[inline(always)]
            fn bits_from_i32(&mut self, a: i32) -> $bits {
                a as u32 as $bits
            }
        }
    };
}

host_float!(f32, u32, i32);
host_float!(f64, u64, i64);

/// The kernel language: every operation becomes one (or a few) language operations.
impl Ops for Builder {
    type U32 = Value;
    type U64 = Value;
    type I32 = Value;
    type Pred = Value;

    fn u32(&mut self, c: u32) -> Value {
        self.lit(c)
    }
    fn add32(&mut self, a: Value, b: Value) -> Value {
        self.add(a, b)
    }
    fn xor32(&mut self, a: Value, b: Value) -> Value {
        self.xor(a, b)
    }
    fn or32(&mut self, a: Value, b: Value) -> Value {
        self.or(a, b)
    }
    fn shl32(&mut self, a: Value, n: u32) -> Value {
        self.shl(a, n)
    }
    fn shr32(&mut self, a: Value, n: u32) -> Value {
        self.shr(a, n)
    }
    fn mul_hilo32(&mut self, a: Value, b: Value) -> (Value, Value) {
        // One widening multiply (PTX `mul.wide.u32`), split.
        let p = self.mul_wide(a, b);
        (self.hi32(p), self.lo32(p))
    }
    fn u64(&mut self, c: u64) -> Value {
        self.lit(c)
    }
    fn add64(&mut self, a: Value, b: Value) -> Value {
        self.add(a, b)
    }
    fn shl64(&mut self, a: Value, n: u32) -> Value {
        self.shl(a, n)
    }
    fn shr64(&mut self, a: Value, n: u32) -> Value {
        self.shr(a, n)
    }
    fn sub64(&mut self, a: Value, b: Value) -> Value {
        self.sub(a, b)
    }
    fn low_bits64(&mut self, a: Value, n: u32) -> Value {
        self.and(a, (1u64 << n) - 1)
    }
    fn lo32(&mut self, a: Value) -> Value {
        self.convert(a, Scalar::U32)
    }
    fn hi32(&mut self, a: Value) -> Value {
        let h = self.shr(a, 32u32);
        self.convert(h, Scalar::U32)
    }
    fn join64(&mut self, lo: Value, hi: Value) -> Value {
        let lo = self.convert(lo, Scalar::U64);
        let hi = self.convert(hi, Scalar::U64);
        let hi = self.shl(hi, 32u32);
        self.or(lo, hi)
    }
    fn i32(&mut self, c: i32) -> Value {
        self.lit(c)
    }
    fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.add(a, b)
    }
    fn isub(&mut self, a: Value, b: Value) -> Value {
        self.sub(a, b)
    }
    fn ishr(&mut self, a: Value, n: u32) -> Value {
        self.shr(a, n)
    }
    fn itest(&mut self, a: Value, mask: i32) -> Value {
        let m = self.and(a, mask);
        self.ne(m, 0i32)
    }
}

impl<R: Real> FloatOps<R> for Builder {
    type F = Value;
    type Bits = Value;

    fn fc(&mut self, x: f64) -> Value {
        self.constant_bits(Type::of(R::SCALAR), R::bits_of(x))
    }
    fn fadd(&mut self, a: Value, b: Value) -> Value {
        self.add(a, b)
    }
    fn fsub(&mut self, a: Value, b: Value) -> Value {
        self.sub(a, b)
    }
    fn fmul(&mut self, a: Value, b: Value) -> Value {
        self.mul(a, b)
    }
    fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        Builder::fma(self, a, b, c)
    }
    fn fmin(&mut self, a: Value, b: Value) -> Value {
        self.min(a, b)
    }
    fn fmax(&mut self, a: Value, b: Value) -> Value {
        self.max(a, b)
    }
    fn flt(&mut self, a: Value, b: Value) -> Value {
        self.lt(a, b)
    }
    fn fselect(&mut self, p: Value, a: Value, b: Value) -> Value {
        self.select(p, a, b)
    }
    fn u32_to_f(&mut self, a: Value) -> Value {
        self.convert(a, R::SCALAR)
    }
    fn i32_to_f(&mut self, a: Value) -> Value {
        self.convert(a, R::SCALAR)
    }
    fn f_to_bits(&mut self, a: Value) -> Value {
        self.bitcast(a, Type::of(R::BITS_SCALAR))
    }
    fn bits_to_f(&mut self, a: Value) -> Value {
        self.bitcast(a, Type::of(R::SCALAR))
    }
    fn bc(&mut self, c: u64) -> Value {
        self.constant_bits(Type::of(R::BITS_SCALAR), c)
    }
    fn band(&mut self, a: Value, b: Value) -> Value {
        self.and(a, b)
    }
    fn badd(&mut self, a: Value, b: Value) -> Value {
        self.add(a, b)
    }
    fn bsub(&mut self, a: Value, b: Value) -> Value {
        self.sub(a, b)
    }
    fn bshr(&mut self, a: Value, n: u32) -> Value {
        self.shr(a, n)
    }
    fn bshl(&mut self, a: Value, n: u32) -> Value {
        self.shl(a, n)
    }
    fn exponent_field(&mut self, a: Value) -> Value {
        // The word holding the exponent (the high word of an f64), read as signed.
        let (word, shift) = if R::BITS_SCALAR == Scalar::U64 {
            let h = self.shr(a, 32u32);
            (self.convert(h, Scalar::U32), R::MANT - 32)
        } else {
            (a, R::MANT)
        };
        let s = self.bitcast(word, Type::I32);
        self.shr(s, shift)
    }
    fn low_i32(&mut self, a: Value) -> Value {
        let lo = if R::BITS_SCALAR == Scalar::U64 {
            self.convert(a, Scalar::U32)
        } else {
            a
        };
        self.bitcast(lo, Type::I32)
    }
    fn bits_from_i32(&mut self, a: Value) -> Value {
        let u = self.bitcast(a, Type::U32);
        if R::BITS_SCALAR == Scalar::U64 {
            self.convert(u, Scalar::U64)
        } else {
            u
        }
    }
}

/// Rounding f32 values to f16 (round to nearest even), for the f16 uniforms.
pub trait HalfOps: FloatOps<f32> {
    type H: Copy;
    fn to_f16(&mut self, a: <Self as FloatOps<f32>>::F) -> Self::H;
}

impl HalfOps for Host {
    type H = half::f16;
    #[inline(always)]
    fn to_f16(&mut self, a: f32) -> half::f16 {
        half::f16::from_f32(a)
    }
}

impl HalfOps for Builder {
    type H = Value;
    fn to_f16(&mut self, a: Value) -> Value {
        self.convert(a, Scalar::F16)
    }
}
