//! tpsv and tbsv on CUDA devices: the packed or band triangle is unpacked into a dense
//! n×n matrix in the handle's outer workspace (`rocm_kernels::level2::unpack`, an exact
//! copy with zeros elsewhere), which the blocked trsv then solves against. The copy
//! costs n² elements of workspace and one pass; the solve is the dense one (O(n²) work
//! for a band too, against the O(n·k) a band solve needs: correct first, a band kernel
//! would follow where bands are narrow and n large).

use super::trsv::{trsv, TrsvCall};
use super::{load, require_ptx};
use crate::Blas;
use rocm_core::{KernelArgs, Result};
use rocm_kernels::level2::unpack::{self, Unpack, UnpackParams, KERNEL, UPPER};
use rocm_kernels::level2::Storage;

/// x ← op(A)⁻¹·x for A stored as `storage` at `a` (leading dimension `lda` and
/// bandwidth `band` for band storage); `call` describes the dense solve (its `a` and
/// `lda` are replaced by the unpacked copy's).
pub(crate) fn solve(
    blas: &Blas,
    routine: &str,
    (storage, a, lda, band): (Storage, u64, usize, usize),
    call: &TrsvCall<'_>,
) -> Result<()> {
    require_ptx(blas, routine)?;
    let n = call.n;
    let cfg = unpack::launch_config(n)?;
    let p = UnpackParams {
        dtype: call.dtype,
        storage,
    };
    let loaded = load::<Unpack>(blas, routine, &p)?;
    let es = call.dtype.size();
    blas.with_outer_workspace((n * n * es).div_ceil(8), |work| {
        let dense = work.as_slice_mut().address();
        let dev = blas.device();
        let mut args = KernelArgs::new();
        args.push(n as u64)
            .push_pointer(a, dev)
            .push(lda as u64)
            .push_pointer(dense, dev)
            .push(if call.upper { UPPER } else { 0 });
        if storage == Storage::Band {
            args.push(band as u64);
        }
        let kernel = loaded.module.kernel(KERNEL)?;
        // SAFETY: the caller checked A's packed triangle (n(n+1)/2 elements) or band
        // (lda ≥ k + 1 by n) inside its view; the kernel reads only stored elements and
        // writes the n×n dense matrix inside the workspace (n² elements).
        unsafe { kernel.launch(blas.stream(), &cfg, &args)? };
        let dense_call = TrsvCall {
            a: dense,
            lda: n,
            ..*call
        };
        trsv(blas, routine, &dense_call)
    })
}
