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
//! gemv:
//! The host picks the variant (the target's catalog entry `gemv/<dtype>/<n|t|c>`, else
//! [`GemvParams::fallback`]; a [`GemvTuning`] overrides single fields), passes x and y as the address of their *logical* element 0 (the far
//! end for a negative increment), and for `N` chooses the column chunks: enough
//! workgroups to fill the device (`TARGET_GROUPS`, 4 per SM of a 132-SM H100), each chunk
//! at least `MIN_CHUNK_COLS` columns. One chunk runs the variant without split (α and β
//! applied in place); more write compute-type partials to the handle's workspace
//! (chunks × m elements) and the finish kernel sums them in chunk order. `T`/`C` use
//! wide lane loads only when a [`GemvTuning`] asks and the views are aligned (the
//! default is element loads until a GPU sweep picks).

use crate::gpu::level1::ScalarArg;
use crate::Blas;
use rocm_core::target::Family;
use rocm_core::{DType, Error, KernelArgs, LaunchConfig, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::generator;
use rocm_kernels::level2::gemv::{Gemv, GemvParams, GemvTrans, GemvTuning, FINISH, KERNEL};

pub(crate) mod rank;
pub(crate) mod trimv;
pub(crate) mod trsv;

/// Workgroups for `N`: 4 per SM of a 132-SM GPU. At 16384² f32 (rows 2: 32 row groups,
/// so 17 chunks) this runs at 0.354 ms against the 8-per-SM rule's 0.376 ms (H100,
/// bench/results/2026-11-24-h100-gemv-sweep-session6.txt and the session-5 run): half-filled SMs
/// already saturate HBM, and fewer chunks write fewer partials.
const TARGET_GROUPS: u64 = 132 * 4;
/// Fewest columns per chunk (below this the partials cost more than they save).
const MIN_CHUNK_COLS: u64 = 64;

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

/// The AMDGPU Level 2 kernels form element indices and byte strides in 32 bits (module
/// doc of `rocm_kernels::amdgpu::level2`): on AMD devices every span of elements a
/// kernel indexes (`elements`) and every stride in bytes (`strides` in elements, times
/// the element size `es`) must stay below 2³¹; larger problems answer `Unsupported`
/// there. CUDA devices take any size.
pub(crate) fn check_amdgpu_extent(
    blas: &Blas,
    routine: &str,
    es: usize,
    elements: &[u128],
    strides: &[u128],
) -> Result<()> {
    if blas.device().target().family() == Family::Nvidia {
        return Ok(());
    }
    let limit = 1u128 << 31;
    let fits =
        elements.iter().all(|&e| e < limit) && strides.iter().all(|&s| s * (es as u128) < limit);
    if !fits {
        return Err(Error::unsupported(
            format!("blas {routine} indexing 2³¹ or more elements or bytes per stride (AMDGPU Level 2 kernels index in 32 bits)"),
            blas.device(),
        ));
    }
    Ok(())
}

/// `G`'s program for `params` on the handle's device; a generator's `Unsupported`
/// becomes one naming the routine and the device.
pub(crate) fn load<G: generator::Generator>(
    blas: &Blas,
    routine: &str,
    params: &G::Params,
) -> Result<generator::Loaded> {
    generator::load::<G>(blas.device(), params).map_err(|e| match e {
        Error::Unsupported { op, .. } => {
            Error::unsupported(format!("blas {routine} (no kernel: {op})"), blas.device())
        }
        other => other,
    })
}

/// An index range of `len` elements in A's storage (m×n at lda, or a packed triangle)
/// must be addressable with 64-bit offsets.
pub(crate) fn check_span(elements: u128) -> Result<()> {
    if elements > i64::MAX as u128 {
        return Err(Error::invalid(
            "lda",
            "the matrix spans more than 2⁶³ elements",
        ));
    }
    Ok(())
}

pub(crate) fn logical_start(address: u64, inc: isize, len: usize, esize: u64) -> u64 {
    if inc >= 0 || len == 0 {
        address
    } else {
        address + (len as u64 - 1) * inc.unsigned_abs() as u64 * esize
    }
}

pub(crate) fn push_scalars(args: &mut KernelArgs, s: &[ScalarArg]) {
    for v in s {
        match *v {
            ScalarArg::F32(v) => args.push(v),
            ScalarArg::F64(v) => args.push(v),
        };
    }
}

/// Column chunks of an `N` launch with `groups_x` row groups.
fn chunks_for(n: usize, groups_x: u64) -> u32 {
    let by_fill = TARGET_GROUPS.div_ceil(groups_x.max(1));
    let by_cols = (n as u64 / MIN_CHUNK_COLS).max(1);
    by_fill.min(by_cols).clamp(1, 65535) as u32
}

/// y = α·op(A)·x + β·y on a GPU (m, n ≥ 1; views checked by the caller).
pub(crate) fn gemv(blas: &Blas, call: &GemvCall<'_>, tuning: GemvTuning) -> Result<()> {
    let routine = "gemv";
    require(blas, routine, &[Kernels::Gemv])?;
    let (ix, iy) = (
        call.x.1.unsigned_abs() as u128,
        call.y.1.unsigned_abs() as u128,
    );
    let (m128, n128, lda) = (call.m as u128, call.n as u128, call.lda as u128);
    check_amdgpu_extent(
        blas,
        routine,
        call.dtype.size(),
        &[lda * n128 + m128, ix * n128.max(m128), iy * n128.max(m128)],
        &[lda, ix, iy],
    )?;
    let (m, n) = (call.m as u64, call.n as u64);
    if i64::try_from(m.saturating_mul(call.lda as u64)).is_err() {
        return Err(Error::invalid(
            "lda",
            "the matrix spans more than 2⁶³ elements",
        ));
    }
    let fallback = GemvParams::fallback(call.dtype, call.trans, call.read_y);
    let key = GemvParams::key(call.dtype, call.trans);
    let mut p: GemvParams = Catalog::for_target(blas.device().target()).select(
        "gemv",
        &key,
        m.saturating_mul(n),
        fallback.clone(),
    );
    if p.dtype != call.dtype || p.trans != call.trans {
        p = fallback;
    }
    p.read_y = call.read_y;
    p.block = tuning.block.unwrap_or(p.block);
    p.rows = tuning.rows.unwrap_or(p.rows);
    p.cols = tuning.cols.unwrap_or(p.cols);
    p.warps_per_column = match (call.trans, tuning.warps_per_column) {
        (GemvTrans::N, _) => 1,
        (_, Some(w)) => w,
        // The catalog's groups, halved until they divide a tuned block.
        (_, None) => {
            let mut w = p.warps_per_column.max(1);
            while w > 1 && p.block % (32 * w) != 0 {
                w /= 2;
            }
            w
        }
    };
    // Wide loads only where every lane load is aligned: A and each column start (lda)
    // multiples of the load; for N m a multiple of its rows (a load never crosses the
    // column's end), for T/C x contiguous and aligned.
    let esize = call.dtype.size() as u64;
    let wanted = tuning.vector.unwrap_or(p.vector);
    p.vector = 1;
    let bytes = wanted as u64 * esize;
    let operands = match call.trans {
        GemvTrans::N => m.checked_rem(wanted as u64) == Some(0),
        _ => call.x.1 == 1 && call.x.0 % bytes == 0,
    };
    if operands
        && bytes.is_power_of_two()
        && call.a % bytes == 0
        && (call.lda as u64 * esize) % bytes == 0
    {
        p.vector = wanted;
    }
    // (At least 1: shapes that produce no output per group fail validation at the load
    // below, with an error naming the field.)
    let groups_x = m.div_ceil(p.outputs_per_group().max(1) as u64);
    let chunks = match call.trans {
        GemvTrans::N => tuning
            .chunks
            .unwrap_or_else(|| chunks_for(call.n, groups_x))
            .clamp(1, 65535),
        _ => 1,
    };
    p.split = chunks > 1;
    let (lx, ly) = match call.trans {
        GemvTrans::N => (call.n, call.m),
        _ => (call.m, call.n),
    };
    let x = logical_start(call.x.0, call.x.1, lx, esize);
    let y = logical_start(call.y.0, call.y.1, ly, esize);
    let loaded = generator::load::<Gemv>(blas.device(), &p).map_err(|e| match e {
        Error::Unsupported { op, .. } => {
            Error::unsupported(format!("blas {routine} (no kernel: {op})"), blas.device())
        }
        other => other,
    })?;
    let dev = blas.device();
    let mut head = KernelArgs::new();
    head.push(m)
        .push(n)
        .push_pointer(call.a, dev)
        .push(call.lda as u64)
        .push_pointer(x, dev)
        .push(call.x.1 as i64);
    let tail = |args: &mut KernelArgs| {
        args.push_pointer(y, dev).push(call.y.1 as i64);
        push_scalars(args, call.alpha);
        if call.read_y {
            push_scalars(args, call.beta);
        }
    };
    let main = loaded.module.kernel(KERNEL)?;
    match call.trans {
        GemvTrans::N if p.split => {
            let work_len = (chunks as u64 * m * esize).div_ceil(8) as usize;
            blas.with_workspace(work_len, |work| {
                let mut args = head;
                args.push_pointer(work.address(), dev);
                let cfg = LaunchConfig {
                    grid: [groups_x as u32, chunks, 1],
                    block: [p.block, 1, 1],
                    shared_bytes: 0,
                };
                // SAFETY: the caller checked that A holds m×n at lda and x and y their
                // lengths at their increments; the kernel reads exactly those and writes
                // chunks × m partials, which the workspace holds (work_len f64s).
                unsafe { main.launch(blas.stream(), &cfg, &args)? };
                let finish = loaded.module.kernel(FINISH)?;
                let mut args = KernelArgs::new();
                args.push(m)
                    .push(chunks as u64)
                    .push_pointer(work.address(), dev);
                tail(&mut args);
                let cfg = LaunchConfig::linear(m.div_ceil(p.block as u64) as u32, p.block);
                // SAFETY: reads the partials just written (same stream; as a dependent
                // launch it waits for them with griddepcontrol.wait before any access)
                // and writes y's m elements, which the caller checked.
                unsafe { finish.launch_dependent(blas.stream(), &cfg, &args) }
            })
        }
        GemvTrans::N => {
            let mut args = head;
            tail(&mut args);
            let cfg = LaunchConfig::linear(groups_x as u32, p.block);
            // SAFETY: as above, launched with one chunk (the variant has no split).
            unsafe { main.launch(blas.stream(), &cfg, &args) }
        }
        _ => {
            let mut args = head;
            tail(&mut args);
            let groups = n.div_ceil(p.outputs_per_group().max(1) as u64);
            let cfg = LaunchConfig::linear(groups as u32, p.block);
            // SAFETY: one group of warps per column of A (whole groups past n leave, and
            // each group's barrier counts only its own warps); reads A, x
            // within the checked views and writes y's n elements.
            unsafe { main.launch(blas.stream(), &cfg, &args) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_fill_the_device_but_keep_columns() {
        // 16384²: 32 row groups of 512 rows, ⌈528 / 32⌉ = 17 chunks of ≥ 64 columns.
        assert_eq!(chunks_for(16384, 32), 17);
        // Columns cap the split: 640 columns allow 10 chunks of 64.
        assert_eq!(chunks_for(640, 32), 10);
        // Few columns: no split.
        assert_eq!(chunks_for(100, 32), 1);
        // Many row groups already fill the device.
        assert_eq!(chunks_for(1 << 20, 5000), 1);
    }

    #[test]
    fn negative_increments_start_at_the_far_end() {
        assert_eq!(logical_start(1000, -3, 5, 8), 1000 + 4 * 3 * 8);
        assert_eq!(logical_start(1000, 2, 5, 8), 1000);
    }
}
