//! Tensor maps: the 128-byte descriptors through which NVIDIA's tensor memory
//! accelerator (sm_90+, `cp.async.bulk.tensor`) copies boxes of a strided tensor in
//! global memory into shared memory, zero-filling what lies outside the tensor and
//! swizzling rows as the map says. The encoding is the driver's
//! (`cuTensorMapEncodeTiled`) and opaque; kernels take the map by value as a
//! `.param .align 64 .b8 [128]` argument ([`TensorMap::push_to`]).

use crate::{DType, Error, KernelArgs, Result};

/// How rows of a box are laid out in shared memory: 16-byte chunk `c` of row `r` lands
/// at chunk `c ⊕ (r mod span/16)` within each `span`-byte row (the PTX ISA's swizzled
/// matrix layouts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorMapSwizzle {
    /// Rows land as they are.
    None,
    /// 128-byte swizzle: rows of at most 128 bytes, 8 rows per pattern.
    Bytes128,
}

impl TensorMapSwizzle {
    /// The most bytes a box row may span under this swizzle (no limit: u32::MAX).
    pub fn row_limit(self) -> u32 {
        match self {
            TensorMapSwizzle::None => u32::MAX,
            TensorMapSwizzle::Bytes128 => 128,
        }
    }
}

/// A tiled tensor map's description: a tensor of `dims` elements (innermost first)
/// at `address`, `strides[i]` bytes between consecutive indices of dimension `i + 1`
/// (dimension 0 is contiguous), copied in boxes of `box_dims` elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMapDesc {
    pub dtype: DType,
    pub address: u64,
    pub dims: Vec<u64>,
    pub strides: Vec<u64>,
    pub box_dims: Vec<u32>,
    pub swizzle: TensorMapSwizzle,
}

/// The most dimensions a tensor map describes.
pub const MAX_RANK: usize = 5;
/// The most elements of a box along one dimension.
pub const MAX_BOX: u32 = 256;

impl TensorMapDesc {
    /// Checks the driver's documented rules, naming the first one broken: rank 1..=5,
    /// a 16-byte aligned base, strides multiples of 16 below 2⁴⁰, dimensions
    /// 1..=2³², boxes 1..=256 elements with a first dimension of whole 16-byte units
    /// within the swizzle's row limit, and an element type the accelerator copies.
    pub fn validate(&self) -> Result<()> {
        let rank = self.dims.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(Error::invalid(
                "tensor map dims",
                format!("rank {rank}: must be 1..={MAX_RANK}"),
            ));
        }
        if self.strides.len() + 1 != rank || self.box_dims.len() != rank {
            return Err(Error::invalid(
                "tensor map",
                format!(
                    "{rank} dims need {} strides and {rank} box dims, got {} and {}",
                    rank - 1,
                    self.strides.len(),
                    self.box_dims.len()
                ),
            ));
        }
        if !matches!(
            self.dtype,
            DType::F16 | DType::Bf16 | DType::F32 | DType::F64 | DType::U8 | DType::I32
        ) {
            return Err(Error::invalid(
                "tensor map dtype",
                format!(
                    "{} is not copied by the tensor memory accelerator",
                    self.dtype
                ),
            ));
        }
        if self.address % 16 != 0 {
            return Err(Error::invalid(
                "tensor map address",
                format!("{:#x} is not 16-byte aligned", self.address),
            ));
        }
        if let Some(s) = self.strides.iter().find(|&&s| s % 16 != 0 || s >= 1 << 40) {
            return Err(Error::invalid(
                "tensor map strides",
                format!("{s} bytes: must be a multiple of 16 below 2^40"),
            ));
        }
        if let Some(d) = self.dims.iter().find(|&&d| d == 0 || d > 1 << 32) {
            return Err(Error::invalid(
                "tensor map dims",
                format!("{d}: must be 1..=2^32"),
            ));
        }
        if let Some(b) = self.box_dims.iter().find(|&&b| b == 0 || b > MAX_BOX) {
            return Err(Error::invalid(
                "tensor map box",
                format!("{b} elements: must be 1..={MAX_BOX}"),
            ));
        }
        let row = self.box_dims[0] * self.dtype.size() as u32;
        if row % 16 != 0 || row > self.swizzle.row_limit() {
            return Err(Error::invalid(
                "tensor map box",
                format!(
                    "a {row}-byte box row: must be whole 16-byte units and at most {} bytes under {:?}",
                    self.swizzle.row_limit(),
                    self.swizzle
                ),
            ));
        }
        Ok(())
    }
}

/// An encoded tensor map, as kernels take it.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct TensorMap(pub [u8; 128]);

impl std::fmt::Debug for TensorMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TensorMap(..)")
    }
}

impl TensorMap {
    /// Appends the map as a by-value kernel argument (`.param .align 64 .b8 [128]`).
    pub fn push_to(&self, args: &mut KernelArgs) {
        args.push_bytes(&self.0, 64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc() -> TensorMapDesc {
        TensorMapDesc {
            dtype: DType::Bf16,
            address: 0x1000,
            dims: vec![100, 37, 1],
            strides: vec![208, 208 * 37],
            box_dims: vec![64, 128, 1],
            swizzle: TensorMapSwizzle::Bytes128,
        }
    }

    #[test]
    fn validation_names_the_rule_broken() {
        assert!(desc().validate().is_ok());
        let cases: Vec<(&str, TensorMapDesc)> = vec![
            (
                "rank",
                TensorMapDesc {
                    dims: vec![],
                    ..desc()
                },
            ),
            (
                "strides",
                TensorMapDesc {
                    strides: vec![208],
                    ..desc()
                },
            ),
            (
                "address",
                TensorMapDesc {
                    address: 0x1008,
                    ..desc()
                },
            ),
            (
                "multiple of 16",
                TensorMapDesc {
                    strides: vec![200, 208 * 37],
                    ..desc()
                },
            ),
            (
                "1..=2^32",
                TensorMapDesc {
                    dims: vec![100, 0, 1],
                    ..desc()
                },
            ),
            (
                "1..=256",
                TensorMapDesc {
                    box_dims: vec![64, 512, 1],
                    ..desc()
                },
            ),
            (
                "128 bytes",
                TensorMapDesc {
                    box_dims: vec![128, 128, 1],
                    ..desc()
                },
            ),
            (
                "16-byte units",
                TensorMapDesc {
                    box_dims: vec![12, 128, 1],
                    ..desc()
                },
            ),
            (
                "accelerator",
                TensorMapDesc {
                    dtype: DType::C64,
                    ..desc()
                },
            ),
        ];
        for (want, d) in cases {
            let e = d.validate().expect_err(want).to_string();
            assert!(e.contains(want), "{want}: {e}");
        }
    }
}
