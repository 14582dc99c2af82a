//! BLAS Level 2 generators (PTX; AMD targets handed to [`crate::amdgpu::level2`], same
//! kernel contracts):
//! - [`gemv`]: y = α·op(A)·x + β·y.
//! - [`rank`]: rank-1 and rank-2 updates (ger/geru/gerc, syr/her, syr2/her2 and their
//!   packed forms spr/hpr, spr2/hpr2).
//! - [`trimv`]: products with a stored triangle: symv/hemv, spmv/hpmv (the triangle and
//!   its mirror) and trmv/tpmv (the triangle alone), over dense, packed or band storage.
//! - [`trimv`] also serves gbmv (a general band) and, with a window of rows and columns,
//!   the updates of the blocked trsv on packed and band storage.
//! - [`trsv`]: the diagonal-block solve of the blocked trsv (dense, packed or band).

pub(crate) mod element;
pub use element::Storage;
pub mod gemv;
pub mod plan;
pub mod rank;
pub mod solve;
pub mod trimv;
pub mod trsv;

pub mod signatures {
    //! The Level 2 kernels' declared arguments (the contracts in each generator's module
    //! docs). The PTX and AMDGPU kernels take the same list; only the names of scalar
    //! parameters differ (PTX `alpha0, alpha1`, AMDGPU `alpha` or `alpha_re, alpha_im`).

    use super::gemv::{GemvParams, GemvTrans, FINISH as GEMV_FINISH, KERNEL as GEMV};
    use super::rank::{RankParams, KERNEL as RANK};
    use super::trimv::{TriMvParams, KERNEL as TRI_MV};
    use super::trsv::{TrsvParams, KERNEL as TRSV};
    use super::Storage;
    use crate::signature::{Access, ScalarType, Signature};
    use rocm_core::{DType, Target};

    /// Whether `target` gets the AMDGPU kernels' scalar names.
    pub(crate) fn amdgpu(target: &Target) -> bool {
        rocm_core::isa::amdgpu::IsaTarget::try_from(target).is_ok()
    }

    /// The names of the scalar `name` of the element type `dtype`, in order.
    pub fn scalar_names(dtype: DType, name: &str, amdgpu: bool) -> Vec<String> {
        let comps = if dtype.is_complex() { 2 } else { 1 };
        (0..comps)
            .map(|c| match (amdgpu, comps, c) {
                (false, _, c) => format!("{name}{c}"),
                (true, 1, _) => name.to_string(),
                (true, _, 0) => format!("{name}_re"),
                _ => format!("{name}_im"),
            })
            .collect()
    }

    fn scalars(mut sig: Signature, dtype: DType, name: &str, amdgpu: bool) -> Signature {
        let ty = if matches!(dtype, DType::F64 | DType::C64) {
            ScalarType::F64
        } else {
            ScalarType::F32
        };
        for n in scalar_names(dtype, name, amdgpu) {
            sig = sig.scalar(n, ty);
        }
        sig
    }

    fn y_access(read_y: bool) -> Access {
        if read_y {
            Access::ReadWrite
        } else {
            Access::Write
        }
    }

    /// `m, n, a, lda, x, incx` of gemv and the rank updates.
    fn matrix_head(kernel: &str, dtype: DType, a: Access) -> Signature {
        Signature::new(kernel)
            .scalar("m", ScalarType::U64)
            .scalar("n", ScalarType::U64)
            .pointer("a", dtype, a)
            .scalar("lda", ScalarType::U64)
            .pointer("x", dtype, Access::Read)
            .scalar("incx", ScalarType::I64)
    }

    /// gemv's kernels: the main one (with `split` its partials go to `work`), then the
    /// finish kernel where the variant splits.
    pub fn gemv(p: &GemvParams, amdgpu: bool) -> Vec<Signature> {
        let d = p.dtype;
        let head = matrix_head(GEMV, d, Access::Read);
        let split = p.trans == GemvTrans::N && p.split;
        let main = if split {
            head.pointer("work", d, Access::Write)
        } else {
            let s = head
                .pointer("y", d, y_access(p.read_y))
                .scalar("incy", ScalarType::I64);
            let s = scalars(s, d, "alpha", amdgpu);
            if p.read_y {
                scalars(s, d, "beta", amdgpu)
            } else {
                s
            }
        };
        let mut out = vec![main];
        if p.splits() {
            let f = Signature::new(GEMV_FINISH)
                .scalar("m", ScalarType::U64)
                .scalar("chunks", ScalarType::U64)
                .pointer("work", d, Access::Read)
                .pointer("y", d, y_access(p.read_y))
                .scalar("incy", ScalarType::I64);
            let f = scalars(f, d, "alpha", amdgpu);
            out.push(if p.read_y {
                scalars(f, d, "beta", amdgpu)
            } else {
                f
            });
        }
        out
    }

    /// The rank update: A += α·x·op(y) (+ the second term), `flags` its variant bits;
    /// one kernel on every target, so the scalars have the PTX names everywhere.
    pub fn rank(p: &RankParams) -> Signature {
        let d = p.dtype;
        let s = matrix_head(RANK, d, Access::ReadWrite)
            .pointer("y", d, Access::Read)
            .scalar("incy", ScalarType::I64);
        scalars(s, d, "alpha", false).scalar("flags", ScalarType::U32)
    }

    /// The triangle/band product: `n, a, lda, x, incx, y, incy, alpha, [beta], flags,
    /// [band], [band_lower], [rows_from, rows_to, cols_from, cols_to]`.
    pub fn tri_mv(p: &TriMvParams, amdgpu: bool) -> Signature {
        let d = p.dtype;
        let s = Signature::new(TRI_MV)
            .scalar("n", ScalarType::U64)
            .pointer("a", d, Access::Read)
            .scalar("lda", ScalarType::U64)
            .pointer("x", d, Access::Read)
            .scalar("incx", ScalarType::I64)
            .pointer("y", d, y_access(p.read_y))
            .scalar("incy", ScalarType::I64);
        let mut s = scalars(s, d, "alpha", amdgpu);
        if p.read_y {
            s = scalars(s, d, "beta", amdgpu);
        }
        s = s.scalar("flags", ScalarType::U32);
        if p.storage == Storage::Band {
            s = s.scalar("band", ScalarType::U64);
        }
        if p.op.is_general() {
            s = s.scalar("band_lower", ScalarType::U64);
        }
        if p.window {
            for w in ["rows_from", "rows_to", "cols_from", "cols_to"] {
                s = s.scalar(w, ScalarType::U64);
            }
        }
        s
    }

    /// The diagonal-block solve: `n, k0, a, lda, x, incx, flags, [band]`.
    pub fn trsv_block(p: &TrsvParams) -> Signature {
        let d = p.dtype;
        let s = Signature::new(TRSV)
            .scalar("n", ScalarType::U64)
            .scalar("k0", ScalarType::U64)
            .pointer("a", d, Access::Read)
            .scalar("lda", ScalarType::U64)
            .pointer("x", d, Access::ReadWrite)
            .scalar("incx", ScalarType::I64)
            .scalar("flags", ScalarType::U32);
        if p.storage == Storage::Band {
            s.scalar("band", ScalarType::U64)
        } else {
            s
        }
    }
}
