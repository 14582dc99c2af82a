//! Rank-1 and rank-2 updates of a matrix (f32, f64, Complex32, Complex64), one kernel
//! written in the kernel language ([`crate::lang::level2::rank`]) for every target:
//!
//! | op | update | region |
//! | --- | --- | --- |
//! | `Ger` (geru) | A ← α·x·yᵀ + A | all m×n |
//! | `Gerc` | A ← α·x·yᴴ + A | all m×n |
//! | `Syr` (spr) | A ← α·x·xᵀ + A | the `uplo` triangle |
//! | `Her` (hpr) | A ← α·x·xᴴ + A, α real | the `uplo` triangle, diagonal kept real |
//! | `Syr2` (spr2) | A ← α·x·yᵀ + α·y·xᵀ + A | the `uplo` triangle |
//! | `Her2` (hpr2) | A ← α·x·yᴴ + ᾱ·y·xᴴ + A | the `uplo` triangle, diagonal kept real |
//!
//! The matrix is the whole cost (each stored element read and written once), so the
//! layout serves A: a work-item owns one row i of a workgroup's `block` consecutive rows
//! (a warp's loads and stores of A are 32 consecutive elements of a column), and walks
//! the columns `cols` at a time, all `cols` loads of A issued before the first store.
//! Column groups are spread over `gridDim.y` and repeated with a grid stride, so any n
//! fits the 65535 limit of that dimension. x(i) (and y(i)) are loaded once per
//! work-item; y(j) (and x(j)) are the same address for the whole warp (a broadcast).
//! Elements outside the stored triangle are neither read nor written; with
//! [`Storage::Packed`] the triangle's columns are consecutive in `ap`.
//!
//! Each element gets A(i, j) + x(i)·c1(j) [+ y(i)·c2(j)] with c1 = α·op(y(j)),
//! c2 = α'·op(x(j)) computed first (op = conj for gerc/her/her2, α' = ᾱ for her2):
//! complex products are four fused multiply-adds. With S = |a| + |x||c1| + |y||c2|,
//! every partial sum on the way to a real of the result is at most S, so the (at most
//! four) roundings of the passes over A add 4u·S; each real of c1 (c2) carries at most
//! 2u·|c1| (two roundings), which adds 2√2u·|x||c1| (|y||c2|). To first order:
//! reals |error| ≤ 3u·S; complex each real ≤ (4 + 2√2)u·S, the magnitude ≤ 10u·S,
//! whatever m and n.
//!
//! Kernel `rocm_blas_rank_update(m: u64, n: u64, a: u64, lda: u64, x: u64, incx: s64,
//! y: u64, incy: s64, alpha.., flags: u32)`: x and y are the addresses of their logical
//! element 0 (the far end for a negative increment); syr/her pass x as y; scalars are
//! the reals of α (complex: re, im); `flags` holds [`UPPER`]. Launch:
//! grid (⌈m / block⌉, min(⌈n / cols⌉, 65535)) of `block` work-items ([`RankParams::grid`]);
//! any grid y covers every column (the column groups repeat with its stride).

use super::element::Storage;
use crate::generator::{Generator, LaunchRule, Program};
use rocm_core::{DType, Error, Result, Target};

/// Name of the kernel.
pub const KERNEL: &str = "rocm_blas_rank_update";
/// Flag: the upper triangle is stored (triangle ops only).
pub const UPPER: u32 = 1;

/// Which update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RankOp {
    Ger,
    Gerc,
    Syr,
    Her,
    Syr2,
    Her2,
}

/// What an op does, as data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Traits {
    /// Only the `uplo` triangle of an n×n matrix.
    pub triangle: bool,
    /// The second term y(i)·α'·op(x(j)).
    pub rank2: bool,
    /// op = conj on the column factors (yᴴ, xᴴ).
    pub conj: bool,
    /// Hermitian: α' = ᾱ and the diagonal's imaginary part becomes zero.
    pub hermitian: bool,
}

impl RankOp {
    /// Every op.
    pub const ALL: [RankOp; 6] = [
        RankOp::Ger,
        RankOp::Gerc,
        RankOp::Syr,
        RankOp::Her,
        RankOp::Syr2,
        RankOp::Her2,
    ];

    pub(crate) fn traits(self) -> Traits {
        let t = |triangle, rank2, conj, hermitian| Traits {
            triangle,
            rank2,
            conj,
            hermitian,
        };
        match self {
            RankOp::Ger => t(false, false, false, false),
            RankOp::Gerc => t(false, false, true, false),
            RankOp::Syr => t(true, false, false, false),
            RankOp::Her => t(true, false, true, true),
            RankOp::Syr2 => t(true, true, false, false),
            RankOp::Her2 => t(true, true, true, true),
        }
    }
}

/// One rank-update kernel variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankParams {
    pub dtype: DType,
    pub op: RankOp,
    /// Dense (`lda`) or packed; packed only for the triangle ops.
    pub storage: Storage,
    /// Work-items (rows) per workgroup: a multiple of 32 up to 1024.
    pub block: u32,
    /// Columns per work-item per step (1..=8): loads of A in flight.
    pub cols: u32,
}

impl RankParams {
    /// 256 rows × 4 columns per step.
    pub fn fallback(dtype: DType, op: RankOp, storage: Storage) -> Self {
        RankParams {
            dtype,
            op,
            storage,
            block: 256,
            cols: 4,
        }
    }

    /// The launch grid for an m×n matrix (x rows, y column groups).
    pub fn grid(&self, m: usize, n: usize) -> [u32; 3] {
        let rows = m.div_ceil(self.block as usize).max(1);
        let groups = n.div_ceil(self.cols as usize).clamp(1, 65535);
        [rows.min(i32::MAX as usize) as u32, groups as u32, 1]
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if !super::gemv::DTYPES.contains(&self.dtype) {
            return Err(Error::unsupported(
                format!("rank-update kernels for {}", self.dtype),
                "any target",
            ));
        }
        if self.block == 0 || self.block % 32 != 0 || self.block > 1024 {
            return Err(Error::invalid(
                "block",
                format!("{} is not a multiple of 32 in 32..=1024", self.block),
            ));
        }
        if !(1..=8).contains(&self.cols) {
            return Err(Error::invalid(
                "cols",
                format!("{} is not in 1..=8", self.cols),
            ));
        }
        if self.storage == Storage::Band {
            return Err(Error::invalid(
                "storage",
                "rank updates take dense or packed storage, not band",
            ));
        }
        if self.storage == Storage::Packed && !self.op.traits().triangle {
            return Err(Error::invalid(
                "storage",
                format!(
                    "{:?} updates a general matrix, which has no packed form",
                    self.op
                ),
            ));
        }
        Ok(())
    }
}

/// The rank-update generator.
pub struct Rank;

impl Generator for Rank {
    type Params = RankParams;
    const NAME: &'static str = "rank_update";
    const VERSION: u32 = 1;

    fn generate(p: &RankParams, target: &Target) -> Result<Program> {
        let def = crate::lang::level2::rank::kernel(p, target)?;
        let rule = LaunchRule::Cover {
            block: p.block,
            units_per_item: 1,
        };
        crate::lang::program(&[def], rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocm_core::ModuleImage;

    /// Every dtype × op × storage the host launches, plus odd shapes.
    pub(crate) fn variants() -> Vec<RankParams> {
        let mut v = Vec::new();
        for dtype in super::super::gemv::DTYPES {
            for op in RankOp::ALL {
                for storage in [Storage::Dense, Storage::Packed] {
                    let f = RankParams::fallback(dtype, op, storage);
                    if f.validate().is_err() {
                        continue;
                    }
                    v.push(f.clone());
                    v.push(RankParams {
                        block: 64,
                        cols: 1,
                        ..f.clone()
                    });
                    v.push(RankParams {
                        block: 128,
                        cols: 8,
                        ..f
                    });
                }
            }
        }
        v
    }

    #[test]
    fn variants_pass_ptxas_without_spills_or_warnings() {
        crate::ptxas::assert_clean::<Rank>(&variants());
    }

    #[test]
    fn parameters_follow_the_documented_order() {
        let p = RankParams::fallback(DType::C64, RankOp::Her2, Storage::Packed);
        let params = crate::generator::declared_params::<Rank>(&p);
        let want = [
            "u64 p_m",
            "u64 p_n",
            "u64 p_a",
            "u64 p_lda",
            "u64 p_x",
            "s64 p_incx",
            "u64 p_y",
            "s64 p_incy",
            "f64 p_alpha0",
            "f64 p_alpha1",
            "u32 p_flags",
        ];
        assert_eq!(params, want);
    }

    #[test]
    fn bad_params_and_targets_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        let p = RankParams::fallback(DType::F32, RankOp::Ger, Storage::Packed);
        assert!(matches!(
            Rank::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        let p = RankParams {
            cols: 9,
            ..RankParams::fallback(DType::F32, RankOp::Syr, Storage::Dense)
        };
        assert!(matches!(
            Rank::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        let p = RankParams::fallback(DType::F16, RankOp::Syr, Storage::Dense);
        assert!(matches!(
            Rank::generate(&p, &sm90),
            Err(Error::Unsupported { .. })
        ));
        // AMD targets get the AMDGPU kernel of the same contract.
        let p = RankParams::fallback(DType::F32, RankOp::Syr, Storage::Dense);
        let prog = Rank::generate(&p, &"gfx90a".parse().unwrap()).unwrap();
        assert!(matches!(prog.image, ModuleImage::CodeObject(_)));
        assert_eq!(prog.kernels, vec![KERNEL.to_string()]);
        let p = RankParams::fallback(DType::F16, RankOp::Syr, Storage::Dense);
        assert!(matches!(
            Rank::generate(&p, &"gfx1100".parse().unwrap()),
            Err(Error::Unsupported { .. })
        ));
    }

    #[test]
    fn grid_covers_rows_and_caps_column_groups() {
        let p = RankParams::fallback(DType::F32, RankOp::Ger, Storage::Dense);
        assert_eq!(p.grid(257, 9), [2, 3, 1]);
        assert_eq!(p.grid(1, 1 << 20), [1, 65535, 1]);
        assert_eq!(p.grid(0, 0), [1, 1, 1]);
    }
}
