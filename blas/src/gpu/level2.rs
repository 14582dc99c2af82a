//! Level 2 on GPUs through `rocm_kernels::level2`, PTX kernels on CUDA devices: gemv
//! here; the rank updates ([`rank`]), the products with a stored triangle or a band
//! ([`trimv`]: symv/hemv/spmv/hpmv/sbmv/hbmv, trmv/tpmv/tbmv, gbmv) and the blocked
//! trsv on dense, packed and band storage ([`trsv`]: trsv, tpsv, tbsv) in the
//! submodules. No routine copies a packed or band matrix into a dense one: each kernel
//! reads the storage it is given.
//! On AMD devices (HIP and emulated) the same generators build AMDGPU kernels with the
//! same contract where they have that back end ([`AMDGPU_KERNELS`]); routines needing
//! another answer `Unsupported` naming the routine and the device.
//!
//! gemv: the call is described to the kernels crate, whose plan
//! ([`rocm_kernels::level2::plan`]: catalog entry and tuning, aligned wide loads, the
//! column chunks of `N` and its split finish as a dependent step, the AMDGPU 32-bit
//! indexing limits) the executor runs on the handle's stream, with the handle's
//! workspace for the partials.

use crate::gpu::level1::ScalarArg;
use crate::Blas;
use rocm_core::target::Family;
use rocm_core::{DType, Error, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::exec::{execute, DeviceView};
use rocm_kernels::level2::gemv::{GemvTrans, GemvTuning};
use rocm_kernels::level2::plan::{self as l2plan, GemvProblem, Matrix, Vector};

pub(crate) mod rank;
pub(crate) mod trimv;
pub(crate) mod trsv;

/// One gemv on device addresses.
pub(crate) struct GemvCall<'a> {
    pub trans: GemvTrans,
    pub dtype: DType,
    pub m: usize,
    pub n: usize,
    /// Lowest address of A.
    pub a: u64,
    pub lda: usize,
    /// Lowest addresses of the x and y views and their increments.
    pub x: (u64, isize),
    pub y: (u64, isize),
    /// α then β, reals (complex: re, im); β is dropped when `read_y` is false.
    pub alpha: &'a [ScalarArg],
    pub beta: &'a [ScalarArg],
    pub read_y: bool,
}

/// The Level 2 kernel generators a routine launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernels {
    Gemv,
    Rank,
    TriMv,
    Trsv,
}

/// The generators with an AMDGPU back end (`rocm_kernels::amdgpu::level2`); a routine
/// needing another answers `Unsupported` on AMD devices before it launches anything.
const AMDGPU_KERNELS: &[Kernels] = &[Kernels::Gemv, Kernels::TriMv, Kernels::Rank, Kernels::Trsv];

/// `Unsupported` for `routine` unless the handle's device has every kernel it `needs`:
/// all of them on CUDA devices, those of [`AMDGPU_KERNELS`] on AMD devices.
pub(crate) fn require(blas: &Blas, routine: &str, needs: &[Kernels]) -> Result<()> {
    let ok = match blas.device().target().family() {
        Family::Nvidia => true,
        Family::Cdna | Family::Rdna3 | Family::Rdna4 => {
            needs.iter().all(|k| AMDGPU_KERNELS.contains(k))
        }
        Family::Cpu => false,
    };
    if !ok {
        return Err(blas.unsupported(routine));
    }
    Ok(())
}

/// A view of `elements` elements of `es` bytes from `address` (a vector's or matrix's
/// lowest element), for a routine that holds addresses its caller checked.
///
/// # Safety
/// The range must lie inside a view the caller checked on the handle's device and keep
/// it alive until the stream has run the work queued on it.
pub(crate) unsafe fn raw_view(
    blas: &Blas,
    address: u64,
    elements: u64,
    es: usize,
    writable: bool,
) -> DeviceView<'_> {
    // SAFETY: forwarded from this function's contract.
    unsafe { DeviceView::from_raw(address, elements * es as u64, blas.device(), writable) }
}

/// Elements a vector of `len` at increment `inc` spans from its lowest element.
pub(crate) fn vector_span(len: usize, inc: isize) -> u64 {
    if len == 0 {
        0
    } else {
        (len as u64 - 1) * inc.unsigned_abs() as u64 + 1
    }
}

/// A kernels-side `Unsupported` as the routine's: `blas <routine> (<why>)`.
pub(crate) fn routine_error(blas: &Blas, routine: &str, e: Error) -> Error {
    match e {
        Error::Unsupported { op, .. } => {
            Error::unsupported(format!("blas {routine} ({op})"), blas.device())
        }
        other => other,
    }
}

/// The plan's operands of a Level 2 call: A in view slot 0, x in slot 1, y in slot 2.
pub(crate) fn operands(
    a: u64,
    lda: usize,
    x: (u64, isize),
    y: (u64, isize),
) -> (Matrix, Vector, Vector) {
    let vector = |slot, (address, inc): (u64, isize)| Vector {
        slot,
        address,
        inc: inc as i64,
    };
    (
        Matrix {
            slot: 0,
            address: a,
            lda: lda as u64,
        },
        vector(1, x),
        vector(2, y),
    )
}

/// y = α·op(A)·x + β·y on a GPU (m, n ≥ 1; views checked by the caller): the kernels
/// crate's plan ([`rocm_kernels::level2::plan`]) run by the executor.
pub(crate) fn gemv(blas: &Blas, call: &GemvCall<'_>, tuning: GemvTuning) -> Result<()> {
    let routine = "gemv";
    let target = blas.device().target();
    let es = call.dtype.size();
    let (a, x, y) = operands(call.a, call.lda, call.x, call.y);
    let problem = GemvProblem {
        trans: call.trans,
        dtype: call.dtype,
        m: call.m as u64,
        n: call.n as u64,
        a,
        x,
        y,
        alpha: call.alpha,
        beta: call.beta,
        read_y: call.read_y,
    };
    let plan = l2plan::plan(&problem, tuning, target, Catalog::for_target(target))
        .map_err(|e| routine_error(blas, routine, e))?;
    let (lx, ly) = match call.trans {
        GemvTrans::N => (call.n, call.m),
        _ => (call.m, call.n),
    };
    let a_elements = ((call.n - 1) * call.lda + call.m) as u64;
    // SAFETY: the caller checked A (m×n at lda from its lowest element), x and y (their
    // lengths at their increments from their lowest elements) on this device and holds
    // them across the queued work.
    let views = unsafe {
        [
            raw_view(blas, call.a, a_elements, es, false),
            raw_view(blas, call.x.0, vector_span(lx, call.x.1), es, false),
            raw_view(blas, call.y.0, vector_span(ly, call.y.1), es, true),
        ]
    };
    if plan.workspace_bytes == 0 {
        return execute(&plan, blas.stream(), &views, None);
    }
    // The handle's workspace (f64 elements) outlives the queued kernels.
    blas.with_workspace(plan.workspace_bytes.div_ceil(8) as usize, |work| {
        execute(
            &plan,
            blas.stream(),
            &views,
            Some(&DeviceView::buffer(work)),
        )
    })
}
