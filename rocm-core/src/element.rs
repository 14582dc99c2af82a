//! The element types device buffers hold.
//!
//! [`Element`] is sealed: it is implemented for exactly the types listed in [`DType`], each
//! of which is plain old data (any bit pattern is a valid value), so buffers can be moved
//! between host and device as raw bytes.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::fmt;

/// The runtime tag of an element type.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    F16,
    Bf16,
    F32,
    F64,
    C32,
    C64,
    I8,
    U8,
    I32,
    U32,
    I64,
}

impl DType {
    /// Every dtype, in a stable order.
    pub const ALL: [DType; 11] = [
        DType::F16,
        DType::Bf16,
        DType::F32,
        DType::F64,
        DType::C32,
        DType::C64,
        DType::I8,
        DType::U8,
        DType::I32,
        DType::U32,
        DType::I64,
    ];

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 => 1,
            DType::F16 | DType::Bf16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::C32 | DType::I64 => 8,
            DType::C64 => 16,
        }
    }

    /// The short name used on command lines and in catalogs (`f32`, `c64`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C32 => "c32",
            DType::C64 => "c64",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
        }
    }

    /// Whether the type is a complex number.
    pub const fn is_complex(self) -> bool {
        matches!(self, DType::C32 | DType::C64)
    }

    /// Whether the type is floating point (real or complex).
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16 | DType::Bf16 | DType::F32 | DType::F64 | DType::C32 | DType::C64
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DType {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        DType::ALL
            .iter()
            .copied()
            .find(|d| d.name() == s)
            .ok_or_else(|| {
                crate::Error::invalid(
                    "dtype",
                    format!(
                        "`{s}` is not one of {}",
                        DType::ALL.map(|d| d.name()).join(", ")
                    ),
                )
            })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A type a device buffer can hold. Sealed: see [`DType`] for the list.
pub trait Element:
    sealed::Sealed + bytemuck::Pod + Copy + Send + Sync + fmt::Debug + PartialEq + Default + 'static
{
    /// The runtime tag of this type.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}

element! {
    f16 => F16,
    bf16 => Bf16,
    f32 => F32,
    f64 => F64,
    Complex32 => C32,
    Complex64 => C64,
    i8 => I8,
    u8 => U8,
    i32 => I32,
    u32 => U32,
    i64 => I64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Element>() {
        assert_eq!(std::mem::size_of::<T>(), T::DTYPE.size(), "{}", T::DTYPE);
    }

    #[test]
    fn sizes_match_rust_types() {
        check::<f16>();
        check::<bf16>();
        check::<f32>();
        check::<f64>();
        check::<Complex32>();
        check::<Complex64>();
        check::<i8>();
        check::<u8>();
        check::<i32>();
        check::<u32>();
        check::<i64>();
    }

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(d.name().parse::<DType>().unwrap(), d);
        }
        assert!("f128".parse::<DType>().is_err());
    }
}
