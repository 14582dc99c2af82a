//! Reduction operators and the element types collectives accept.
//!
//! A reduction combines the contributions `x_0, ..., x_{n-1}` of the `n` ranks element by
//! element: `sum = x_0 + ... + x_{n-1}`, `prod = x_0 * ... * x_{n-1}`, `min`, `max`, and
//! `avg = sum / n`. Every combine is commutative bit for bit (IEEE `+` and `*` are), so two
//! ranks that combine the same two values in either order get the same bits; the
//! algorithms rely on this to leave identical results on every rank.
//!
//! Integers wrap on overflow (as NCCL does); `avg` of integers truncates toward zero.
//! `f16`/`bf16` combine in their compute type `f32` (rocm-core's
//! [`RealElement::Compute`]) and round once per combine. Complex numbers support
//! `sum`, `prod` and `avg`; `min`/`max` are not defined for them and are rejected.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use rocm_core::scalar::{FloatElement, RealElement};
use rocm_core::{DType, Element, Error, Result};
use std::fmt;

/// A reduction operator (NCCL's `ncclRedOp_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    /// The sum divided by the number of ranks.
    Avg,
}

impl ReduceOp {
    /// Every operator, in a stable order.
    pub const ALL: [ReduceOp; 5] = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::Avg,
    ];

    /// The name nccl-tests prints (`sum`, `prod`, `min`, `max`, `avg`).
    pub const fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::Avg => "avg",
        }
    }

    /// A small stable code, used in the wire header.
    pub(crate) const fn code(self) -> u8 {
        match self {
            ReduceOp::Sum => 1,
            ReduceOp::Prod => 2,
            ReduceOp::Min => 3,
            ReduceOp::Max => 4,
            ReduceOp::Avg => 5,
        }
    }

    /// The operator whose code is `c`.
    pub(crate) fn from_code(c: u8) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|op| op.code() == c)
    }

    /// Whether `dtype` supports this operator.
    pub const fn supports(self, dtype: DType) -> bool {
        !(dtype.is_complex() && matches!(self, ReduceOp::Min | ReduceOp::Max))
    }

    /// `Ok` if `dtype` supports this operator, else an error naming both.
    pub fn check(self, dtype: DType) -> Result<()> {
        if self.supports(dtype) {
            Ok(())
        } else {
            Err(Error::invalid(
                "op",
                format!(
                    "`{}` is not defined for {dtype} (complex numbers are not ordered)",
                    self.name()
                ),
            ))
        }
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ReduceOp {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        ReduceOp::ALL
            .into_iter()
            .find(|op| op.name() == s)
            .ok_or_else(|| {
                Error::invalid(
                    "op",
                    format!("`{s}` is not one of sum, prod, min, max, avg"),
                )
            })
    }
}

/// An element type the collectives can reduce. Implemented for every [`Element`].
pub trait Reducible: Element {
    /// `op(a, b)` for the binary operators (`Avg` combines as `Sum`).
    fn combine(op: ReduceOp, a: Self, b: Self) -> Self;

    /// `a / n`: the last step of `Avg`.
    fn div_ranks(a: Self, n: usize) -> Self;

    /// The value as `f64` (real part for complex), for tests and error checks.
    fn to_f64(self) -> f64;

    /// The imaginary part as `f64` (zero for real types).
    fn imag_f64(self) -> f64 {
        0.0
    }
}

// The real floats combine in their compute type (rocm-core's `RealElement::Compute`:
// f32 for f16 and bf16, so a 16-bit combine rounds once) and round back on store.
macro_rules! real_float {
    ($($t:ty => $c:ty),*) => {$(
        impl Reducible for $t {
            #[inline(always)]
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum | ReduceOp::Avg => <$t>::store(a.load() + b.load()),
                    ReduceOp::Prod => <$t>::store(a.load() * b.load()),
                    // Order by total order so that min/max are commutative bit for bit
                    // (-0 vs +0, NaNs) and every rank keeps the same value.
                    ReduceOp::Min => if a.total_cmp(&b).is_le() { a } else { b },
                    ReduceOp::Max => if a.total_cmp(&b).is_ge() { a } else { b },
                }
            }
            fn div_ranks(a: Self, n: usize) -> Self {
                <$t>::store(a.load() / n as $c)
            }
            fn to_f64(self) -> f64 {
                RealElement::to_f64(self)
            }
        }
    )*};
}
real_float!(f16 => f32, bf16 => f32, f32 => f32, f64 => f64);

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Reducible for $t {
            #[inline(always)]
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum | ReduceOp::Avg => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Min => if a < b { a } else { b },
                    ReduceOp::Max => if a > b { a } else { b },
                }
            }
            fn div_ranks(a: Self, n: usize) -> Self {
                // n <= 2^16 ranks always fits every integer type's range except i8/u8,
                // where a communicator of more than 127 ranks averages to 0.
                match <$t>::try_from(n) {
                    Ok(d) if d != 0 => a / d,
                    _ => 0,
                }
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
int!(i8, u8, i32, u32, i64);

macro_rules! complex {
    ($($t:ty => $r:ty),*) => {$(
        impl Reducible for $t {
            #[inline(always)]
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Prod => a * b,
                    // Min/Max are rejected before any data moves; Sum keeps this total.
                    _ => a + b,
                }
            }
            fn div_ranks(a: Self, n: usize) -> Self {
                a / n as $r
            }
            fn to_f64(self) -> f64 {
                self.components()[0]
            }
            fn imag_f64(self) -> f64 {
                self.components()[1]
            }
        }
    )*};
}
complex!(Complex32 => f32, Complex64 => f64);

/// The operator of code `c` as a constant expression, so that `T::combine(op_of(C), ..)`
/// inside a loop over a const `C` folds to the one operation (no match per element).
#[inline(always)]
const fn op_of(c: u8) -> ReduceOp {
    match c {
        1 => ReduceOp::Sum,
        2 => ReduceOp::Prod,
        3 => ReduceOp::Min,
        4 => ReduceOp::Max,
        _ => ReduceOp::Avg,
    }
}

/// Runs `$f::<T, C>(args)` with `C` the code of `$op` (`Avg` combines as `Sum`): one
/// dispatch per slice, and loops the compiler can vectorise.
macro_rules! per_op {
    ($op:expr, $f:ident::<$t:ty>($($arg:expr),*)) => {
        match $op {
            ReduceOp::Sum | ReduceOp::Avg => $f::<$t, 1>($($arg),*),
            ReduceOp::Prod => $f::<$t, 2>($($arg),*),
            ReduceOp::Min => $f::<$t, 3>($($arg),*),
            ReduceOp::Max => $f::<$t, 4>($($arg),*),
        }
    };
}

fn into_typed<T: Reducible, const C: u8>(dst: &mut [T], src: &[T]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = T::combine(op_of(C), *d, *s);
    }
}

fn from_typed<T: Reducible, const C: u8>(dst: &mut [T], a: &[T], b: &[T]) {
    for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
        *d = T::combine(op_of(C), *x, *y);
    }
}

fn into_unaligned<T: Reducible, const C: u8>(dst: &mut [T], src: &[u8]) {
    let size = std::mem::size_of::<T>();
    for (d, s) in dst.iter_mut().zip(src.chunks_exact(size)) {
        *d = T::combine(op_of(C), *d, bytemuck::pod_read_unaligned(s));
    }
}

fn from_unaligned<T: Reducible, const C: u8>(dst: &mut [T], a: &[T], src: &[u8]) {
    let size = std::mem::size_of::<T>();
    for ((d, x), s) in dst.iter_mut().zip(a).zip(src.chunks_exact(size)) {
        *d = T::combine(op_of(C), *x, bytemuck::pod_read_unaligned(s));
    }
}

/// `dst[i] = op(dst[i], src[i])`.
#[inline]
pub(crate) fn reduce_into<T: Reducible>(op: ReduceOp, dst: &mut [T], src: &[T]) {
    per_op!(op, into_typed::<T>(dst, src))
}

/// `dst[i] = op(a[i], b[i])`.
#[inline]
pub(crate) fn reduce_from<T: Reducible>(op: ReduceOp, dst: &mut [T], a: &[T], b: &[T]) {
    per_op!(op, from_typed::<T>(dst, a, b))
}

/// `dst[i] = op(dst[i], src[i])`, `src` given as raw little-endian bytes of whole elements
/// (it comes from a ring buffer or a socket buffer: aligned in practice, but any byte
/// offset is handled).
#[inline]
pub(crate) fn reduce_bytes_into<T: Reducible>(op: ReduceOp, dst: &mut [T], src: &[u8]) {
    match bytemuck::try_cast_slice::<u8, T>(src) {
        Ok(s) => reduce_into(op, dst, s),
        Err(_) => per_op!(op, into_unaligned::<T>(dst, src)),
    }
}

/// `dst[i] = op(a[i], src[i])` with `src` as raw bytes (see [`reduce_bytes_into`]).
#[inline]
pub(crate) fn reduce_bytes_from<T: Reducible>(op: ReduceOp, dst: &mut [T], a: &[T], src: &[u8]) {
    match bytemuck::try_cast_slice::<u8, T>(src) {
        Ok(s) => reduce_from(op, dst, a, s),
        Err(_) => per_op!(op, from_unaligned::<T>(dst, a, src)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_are_commutative_bitwise() {
        let vals = [0.0f32, -0.0, 1.0, -1.0, f32::NAN, f32::INFINITY];
        for &a in &vals {
            for &b in &vals {
                for op in [ReduceOp::Min, ReduceOp::Max, ReduceOp::Sum, ReduceOp::Prod] {
                    let x = f32::combine(op, a, b);
                    let y = f32::combine(op, b, a);
                    assert!(
                        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                        "{op} {a} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn complex_rejects_ordering() {
        assert!(ReduceOp::Min.check(DType::C32).is_err());
        assert!(ReduceOp::Max.check(DType::C64).is_err());
        assert!(ReduceOp::Sum.check(DType::C64).is_ok());
        assert!(ReduceOp::Max.check(DType::U8).is_ok());
    }

    #[test]
    fn names_round_trip() {
        for op in ReduceOp::ALL {
            assert_eq!(op.name().parse::<ReduceOp>().unwrap(), op);
            assert_eq!(ReduceOp::from_code(op.code()), Some(op));
        }
        assert!("xor".parse::<ReduceOp>().is_err());
    }

    /// The typed, aligned-bytes and unaligned-bytes paths against `combine`, every op.
    #[test]
    fn reduce_paths_agree_with_combine() {
        let a: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
        let b: Vec<f32> = (0..37).map(|i| (i as f32 * 0.91).cos() * 2.0).collect();
        let mut raw = [0u8; 37 * 4 + 1];
        raw[1..].copy_from_slice(bytemuck::cast_slice(&b));
        for op in ReduceOp::ALL {
            let want: Vec<f32> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| f32::combine(op, x, y))
                .collect();
            let mut d = a.clone();
            reduce_into(op, &mut d, &b);
            assert_eq!(d, want, "{op} typed");
            let mut d = vec![0f32; 37];
            reduce_from(op, &mut d, &a, &b);
            assert_eq!(d, want, "{op} typed from");
            // Offset by one byte: the unaligned path.
            let mut d = a.clone();
            reduce_bytes_into(op, &mut d, &raw[1..]);
            assert_eq!(d, want, "{op} unaligned");
            let mut d = vec![0f32; 37];
            reduce_bytes_from(op, &mut d, &a, &raw[1..]);
            assert_eq!(d, want, "{op} unaligned from");
        }
    }

    #[test]
    fn reduce_bytes_matches_combine() {
        let a = [1i32, -5, 7];
        let b = [10i32, 3, -2];
        let mut d = a;
        reduce_bytes_into(ReduceOp::Max, &mut d, bytemuck::cast_slice(&b));
        assert_eq!(d, [10, 3, 7]);
        let mut e = [0i32; 3];
        reduce_bytes_from(ReduceOp::Sum, &mut e, &a, bytemuck::cast_slice(&b));
        assert_eq!(e, [11, -2, 5]);
    }
}
