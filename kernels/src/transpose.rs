//! Out-of-place matrix transpose, batched: `dst_q[j + i·ld_dst] = src_q[i + j·ld_src]`
//! for the `rows × cols` column-major matrices `src_q` (q < batch), which become
//! `cols × rows` matrices. Written in the kernel language: one definition for every
//! target with a kernel ISA.
//!
//! The GEMM plan uses it to hand a kernel whose operand layouts are fixed (the sm_90a
//! tf32 `wgmma` kernel reads K-major A and B only) the transposed copies it needs.
//!
//! Kernel `rocm_transpose`, arguments as [`signature`] declares them. Launch: grid
//! `(⌈rows / 32⌉, ⌈cols / 32⌉, batch)` of [`BLOCK`] work-items. A workgroup moves one
//! 32 × 32 tile through shared memory (rows padded to 33 elements, so the column-wise
//! reads hit 32 different banks): work-item (x = tid mod 32, y = tid / 32) loads source
//! rows `x` of columns `y + 8s` and stores destination rows `x` (source columns) of
//! columns `y + 8s` (source rows), so both the loads and the stores of a wave are 32
//! consecutive elements. Elements are moved as bits (any type of the size): 2-byte
//! elements as the low half of a shared word (shared accesses are at least 4 bytes on
//! every target), 8-byte ones as word pairs.

use crate::generator::{Generator, LaunchRule, Program};
use crate::lang::{self, Access, Axis, Builder, Cache, KernelDef, Scalar, Special, Type, Value};
use crate::plan::{Arg, ProgramRef, Step};
use crate::signature::{Signature, Value as SigValue};
use rocm_core::{DType, Error, Result, Target};

/// The kernel's entry name.
pub const KERNEL: &str = "rocm_transpose";
/// Work-items per workgroup (32 × 8).
pub const BLOCK: u32 = 256;
/// Tile edge.
pub const TILE: u32 = 32;

/// One transpose kernel: the element size.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TransposeParams {
    /// Bytes per element: 2, 4 or 8.
    pub element_bytes: u32,
}

/// The transpose generator.
pub struct Transpose;

impl Generator for Transpose {
    type Params = TransposeParams;
    const NAME: &'static str = "transpose";
    const VERSION: u32 = 2;

    fn generate(p: &TransposeParams, target: &Target) -> Result<Program> {
        lang::program(
            &[kernel(p, target)?],
            LaunchRule::Fixed {
                grid: 1,
                block: BLOCK,
            },
        )
    }

    fn signatures(p: &TransposeParams, target: &Target) -> Result<Vec<Signature>> {
        Ok(vec![signature(p, target)?])
    }
}

/// The element type the pointers name (the kernel moves bits: f16 for any 2-byte
/// element, f32 for 4, f64 for 8).
fn element(p: &TransposeParams) -> Result<DType> {
    match p.element_bytes {
        2 => Ok(DType::F16),
        4 => Ok(DType::F32),
        8 => Ok(DType::F64),
        other => Err(Error::invalid(
            "element_bytes",
            format!("{other}: transposes move 2-, 4- or 8-byte elements"),
        )),
    }
}

/// The transpose's arguments: `dst` (written), `src` (read), `rows, cols, ld_src,
/// ld_dst` (u32; `src` is `rows × cols`), `stride_src, stride_dst` (u64, elements
/// between batch entries), as the kernel declares them.
pub fn signature(p: &TransposeParams, target: &Target) -> Result<Signature> {
    Ok(kernel(p, target)?.signature)
}

/// The kernel for `p` on `target`.
pub fn kernel(p: &TransposeParams, target: &Target) -> Result<KernelDef> {
    let dtype = element(p)?;
    let es = p.element_bytes;
    // An element's value and the bytes it takes in the shared tile.
    let (ty, word) = match es {
        8 => (Type::vec(Scalar::U32, 2), 8),
        _ => (Type::U32, 4),
    };
    let pitch = TILE + 1;
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(BLOCK);
    let dst = k.ptr_dtype("dst", dtype, Scalar::U32, Access::Write);
    let src = k.ptr_dtype("src", dtype, Scalar::U32, Access::Read);
    let rows = k.param("rows", Scalar::U32);
    let cols = k.param("cols", Scalar::U32);
    let ld_src = k.param("ld_src", Scalar::U32);
    let ld_dst = k.param("ld_dst", Scalar::U32);
    let stride_src = k.param("stride_src", Scalar::U64);
    let stride_dst = k.param("stride_dst", Scalar::U64);
    let tile = k.shared("tile", Scalar::U32, TILE * pitch * word / 4);

    let tid = k.thread_id();
    let x = k.and(tid, 31u32);
    let y = k.shr(tid, 5u32);
    let bx = k.special(Special::WorkgroupId(Axis::X));
    let by = k.special(Special::WorkgroupId(Axis::Y));
    let bz = k.special(Special::WorkgroupId(Axis::Z));
    let r0 = k.mul(bx, TILE);
    let c0 = k.mul(by, TILE);
    // The batch entry's matrices, as byte offsets.
    let z = k.convert(bz, Scalar::U64);
    let zs = k.mul(z, stride_src);
    let src_at = k.mul(zs, u64::from(es));
    let zd = k.mul(z, stride_dst);
    let dst_at = k.mul(zd, u64::from(es));
    // Byte offset of element (row, col) of a matrix with leading dimension `ld` at `at`.
    let offset = |k: &mut Builder, row: Value, col: Value, ld: Value, at: Value| {
        let el = k.mul_wide(col, ld);
        let row = k.convert(row, Scalar::U64);
        let el = k.add(el, row);
        k.fma(el, u64::from(es), at)
    };

    // Load: source row r0 + x, columns c0 + y + 8s -> tile[y + 8s][x].
    let row = k.add(r0, x);
    let row_in = k.lt(row, rows);
    for s in 0..TILE / 8 {
        let ys = k.add(y, 8 * s);
        let col = k.add(c0, ys);
        let col_in = k.lt(col, cols);
        let inside = k.and(row_in, col_in);
        k.if_(inside, |k| {
            let off = offset(k, row, col, ld_src, src_at);
            let v = k.load_with(src, off, ty, es, es, Cache::ReadOnly);
            let slot = k.fma(ys, pitch, x);
            let at = k.mul(slot, word);
            k.store_with(tile, at, v, word, word, Cache::Default);
        });
    }
    k.barrier();
    // Store: destination row c0 + x (a source column), columns r0 + y + 8s (source
    // rows) <- tile[x][y + 8s].
    let drow = k.add(c0, x);
    let drow_in = k.lt(drow, cols);
    for s in 0..TILE / 8 {
        let ys = k.add(y, 8 * s);
        let dcol = k.add(r0, ys);
        let dcol_in = k.lt(dcol, rows);
        let inside = k.and(drow_in, dcol_in);
        k.if_(inside, |k| {
            let slot = k.fma(x, pitch, ys);
            let at = k.mul(slot, word);
            let v = k.load_with(tile, at, ty, word, word, Cache::Default);
            let off = offset(k, drow, dcol, ld_dst, dst_at);
            k.store_with(dst, off, v, es, es, Cache::Default);
        });
    }
    k.finish()
}

/// Most batch entries one launch covers (the grid's z limit).
pub const MAX_BATCH_PER_LAUNCH: usize = 65535;

/// A batched transpose: `batch` `rows × cols` matrices (leading dimension `ld_src`,
/// `stride_src` elements apart) into `cols × rows` ones (`ld_dst`, `stride_dst` apart),
/// of `element_bytes`-byte elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub element_bytes: u32,
    pub rows: usize,
    pub cols: usize,
    pub ld_src: usize,
    pub ld_dst: usize,
    pub stride_src: usize,
    pub stride_dst: usize,
    pub batch: usize,
}

/// Elements from a strided batch's first element to one past its last.
fn batch_extent(count: usize, stride: usize, rows: usize, cols: usize, ld: usize) -> Option<usize> {
    if count == 0 || rows == 0 || cols == 0 {
        return Some(0);
    }
    let one = ld.checked_mul(cols - 1)?.checked_add(rows)?;
    stride.checked_mul(count - 1)?.checked_add(one)
}

/// The launches of `p` on `target`, one per [`MAX_BATCH_PER_LAUNCH`] batch entries:
/// `src(offset, bytes)` and `dst(offset, bytes)` give the arguments addressing the
/// source and destination bytes a launch touches (offsets from the first matrix's
/// start), so a caller binds views or workspace ranges. Nothing for an empty problem.
pub fn steps(
    p: &Problem,
    target: &Target,
    src: impl Fn(u64, u64) -> Arg,
    dst: impl Fn(u64, u64) -> Arg,
) -> Result<Vec<Step>> {
    let params = TransposeParams {
        element_bytes: p.element_bytes,
    };
    let sig = signature(&params, target)?;
    let es = p.element_bytes as usize;
    let dim = |what: &str, v: usize| {
        u32::try_from(v).map_err(|_| Error::invalid("transpose", format!("{what} {v} exceeds u32")))
    };
    let too_big = || Error::invalid("transpose", format!("{p:?} spans more than 2^64 bytes"));
    let bytes = |elements: usize| -> Result<u64> {
        elements
            .checked_mul(es)
            .map(|b| b as u64)
            .ok_or_else(too_big)
    };
    let (rows, cols) = (dim("rows", p.rows)?, dim("cols", p.cols)?);
    if p.ld_src < p.rows.max(1) || p.ld_dst < p.cols.max(1) {
        return Err(Error::invalid(
            "transpose",
            format!(
                "leading dimensions {} and {} must be at least {} and {}",
                p.ld_src, p.ld_dst, p.rows, p.cols
            ),
        ));
    }
    let mut out = Vec::new();
    if p.rows == 0 || p.cols == 0 {
        return Ok(out);
    }
    for first in (0..p.batch).step_by(MAX_BATCH_PER_LAUNCH) {
        let count = (p.batch - first).min(MAX_BATCH_PER_LAUNCH);
        let src_at = bytes(first.checked_mul(p.stride_src).ok_or_else(too_big)?)?;
        let dst_at = bytes(first.checked_mul(p.stride_dst).ok_or_else(too_big)?)?;
        let src_len = batch_extent(count, p.stride_src, p.rows, p.cols, p.ld_src);
        let dst_len = batch_extent(count, p.stride_dst, p.cols, p.rows, p.ld_dst);
        let src_len = bytes(src_len.ok_or_else(too_big)?)?;
        let dst_len = bytes(dst_len.ok_or_else(too_big)?)?;
        out.push(Step::bind(
            ProgramRef::of::<Transpose>(params.clone()),
            sig.clone(),
            launch_config(p.rows, p.cols, count),
            vec![
                ("dst", dst(dst_at, dst_len)),
                ("src", src(src_at, src_len)),
                ("rows", Arg::Value(SigValue::U32(rows))),
                ("cols", Arg::Value(SigValue::U32(cols))),
                (
                    "ld_src",
                    Arg::Value(SigValue::U32(dim("ld_src", p.ld_src)?)),
                ),
                (
                    "ld_dst",
                    Arg::Value(SigValue::U32(dim("ld_dst", p.ld_dst)?)),
                ),
                ("stride_src", Arg::Value(SigValue::U64(p.stride_src as u64))),
                ("stride_dst", Arg::Value(SigValue::U64(p.stride_dst as u64))),
            ],
        )?);
    }
    Ok(out)
}

/// The launch of a `rows × cols` transpose of `batch` matrices.
pub fn launch_config(rows: usize, cols: usize, batch: usize) -> rocm_core::LaunchConfig {
    rocm_core::LaunchConfig {
        grid: [
            rows.div_ceil(TILE as usize).max(1) as u32,
            cols.div_ceil(TILE as usize).max(1) as u32,
            batch.max(1) as u32,
        ],
        block: [BLOCK, 1, 1],
        shared_bytes: 0,
    }
}
