//! Host-side helpers of the interpreter tests: element types as bytes, a deterministic
//! value stream, and one kernel picked out of a module.

// Not every test binary that includes the interpreter uses these.
#![allow(dead_code)]

use rocm_core::DType;

pub trait El: Copy + PartialEq + std::fmt::Debug {
    const DTYPE: DType;
    const EPS: f64;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn le(self) -> Vec<u8>;
    fn from_le(b: &[u8]) -> Self;
    fn fma(a: Self, b: Self, c: Self) -> Self;
}

impl El for f32 {
    const DTYPE: DType = DType::F32;
    const EPS: f64 = f32::EPSILON as f64;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn le(self) -> Vec<u8> {
        self.to_le_bytes().to_vec()
    }
    fn from_le(b: &[u8]) -> Self {
        f32::from_le_bytes(b.try_into().unwrap())
    }
    fn fma(a: Self, b: Self, c: Self) -> Self {
        a.mul_add(b, c)
    }
}

impl El for f64 {
    const DTYPE: DType = DType::F64;
    const EPS: f64 = f64::EPSILON;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn le(self) -> Vec<u8> {
        self.to_le_bytes().to_vec()
    }
    fn from_le(b: &[u8]) -> Self {
        f64::from_le_bytes(b.try_into().unwrap())
    }
    fn fma(a: Self, b: Self, c: Self) -> Self {
        a.mul_add(b, c)
    }
}

/// A small deterministic generator of values in [-1, 1).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

pub fn bytes<T: El>(v: &[T]) -> Vec<u8> {
    v.iter().flat_map(|x| x.le()).collect()
}

pub fn values<T: El>(b: &[u8]) -> Vec<T> {
    let es = std::mem::size_of::<T>();
    b.chunks(es).map(T::from_le).collect()
}

/// Kernel `name` of a module's PTX text, parsed alone (the interpreter reads the first
/// entry): the module's header followed by that entry.
pub fn entry(text: &str, name: &str) -> super::Kernel {
    let first = text.find(".visible .entry").expect("an entry");
    let start = text
        .find(&format!(".visible .entry {name}("))
        .unwrap_or_else(|| panic!("no kernel {name}"));
    let end = text[start + 1..]
        .find(".visible .entry")
        .map_or(text.len(), |e| start + 1 + e);
    super::Kernel::parse(&format!("{}{}", &text[..first], &text[start..end]))
}
