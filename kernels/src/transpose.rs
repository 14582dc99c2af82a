//! Out-of-place matrix transpose, batched: `dst_q[j + i·ld_dst] = src_q[i + j·ld_src]`
//! for the `rows × cols` column-major matrices `src_q` (q < batch), which become
//! `cols × rows` matrices.
//!
//! The GEMM host uses it to hand a kernel whose operand layouts are fixed (the sm_90a
//! tf32 `wgmma` kernel reads K-major A and B only) the transposed copies it needs.
//!
//! Kernel `rocm_transpose` (PTX), arguments as [`signature`] declares them. Launch: grid `(⌈rows / 32⌉, ⌈cols / 32⌉, batch)` of
//! [`BLOCK`] work-items. A block moves one 32 × 32 tile through shared memory (rows
//! padded to 33 elements, so the column-wise reads hit 32 different banks): work-item
//! (x = tid mod 32, y = tid / 32) loads source rows `x` of columns `y + 8s` and stores
//! destination rows `x` (source columns) of columns `y + 8s` (source rows), so both the
//! loads and the stores of a warp are 32 consecutive elements. Elements are moved as
//! bits (any type of the size).

use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, Module, Special, Ty};
use crate::signature::{Access, ScalarType, Signature};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

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
    const VERSION: u32 = 1;

    fn generate(p: &TransposeParams, target: &Target) -> Result<Program> {
        if target.caps().kernel_isa != KernelIsa::Ptx {
            return Err(Error::unsupported("transpose kernels", target.to_string()));
        }
        let (ty, _) = element(p)?;
        let sig = signature(p)?;
        let mut module = Module::new(target)?;
        module.push(&build(ty, &sig)?);
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![KERNEL.into()],
            signatures: vec![sig],
            launch: LaunchRule::Fixed {
                grid: 1,
                block: BLOCK,
            },
        })
    }
}

/// The bits the kernel moves per element, and the element type its pointers name.
fn element(p: &TransposeParams) -> Result<(Ty, DType)> {
    match p.element_bytes {
        2 => Ok((Ty::B16, DType::F16)),
        4 => Ok((Ty::B32, DType::F32)),
        8 => Ok((Ty::B64, DType::F64)),
        other => Err(Error::invalid(
            "element_bytes",
            format!("{other}: transposes move 2-, 4- or 8-byte elements"),
        )),
    }
}

/// The transpose's arguments: `dst` (written), `src` (read), `rows, cols, ld_src,
/// ld_dst` (u32; `src` is `rows × cols`), `stride_src, stride_dst` (u64, elements
/// between batch entries). The kernel moves bits: the pointers' element type names the
/// element size only (f16 for any 2-byte element, f32 for 4, f64 for 8).
pub fn signature(p: &TransposeParams) -> Result<Signature> {
    let (_, elem) = element(p)?;
    Ok(Signature::new(KERNEL)
        .pointer("dst", elem, Access::Write)
        .pointer("src", elem, Access::Read)
        .scalar("rows", ScalarType::U32)
        .scalar("cols", ScalarType::U32)
        .scalar("ld_src", ScalarType::U32)
        .scalar("ld_dst", ScalarType::U32)
        .scalar("stride_src", ScalarType::U64)
        .scalar("stride_dst", ScalarType::U64))
}

fn build(ty: Ty, sig: &Signature) -> Result<KernelBuilder> {
    let es = ty.size();
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let pdst = params.get("dst")?.clone();
    let psrc = params.get("src")?.clone();
    let prows = params.get("rows")?.clone();
    let pcols = params.get("cols")?.clone();
    let pld_src = params.get("ld_src")?.clone();
    let pld_dst = params.get("ld_dst")?.clone();
    let pstride_src = params.get("stride_src")?.clone();
    let pstride_dst = params.get("stride_dst")?.clone();
    let dst0 = k.ld_param_global_ptr(&pdst);
    let src0 = k.ld_param_global_ptr(&psrc);
    let rows = k.ld_param(&prows);
    let cols = k.ld_param(&pcols);
    let ld_src = k.ld_param(&pld_src);
    let ld_dst = k.ld_param(&pld_dst);
    let stride_src = k.ld_param(&pstride_src);
    let stride_dst = k.ld_param(&pstride_dst);
    let pitch = TILE + 1;
    let tile = k.shared_array("rocm_transpose_tile", TILE * pitch * es, 8);

    let tid = k.special(Special::TidX);
    let x = k.reg(Ty::U32);
    k.emit(format!("and.b32 {x}, {tid}, 31"));
    let y = k.shr(Ty::U32, tid, 5);
    let bx = k.special(Special::CtaidX);
    let by = k.special_named("%ctaid.y");
    let bz = k.special_named("%ctaid.z");
    let r0 = k.mul(Ty::U32, bx, TILE);
    let c0 = k.mul(Ty::U32, by, TILE);
    // The batch's matrices.
    let z = k.cvt(Ty::U64, bz);
    let zs = k.mul(Ty::U64, z, stride_src);
    let zs_bytes = k.mul(Ty::U64, zs, es);
    let src = k.add(Ty::U64, src0, zs_bytes);
    let zd = k.mul(Ty::U64, z, stride_dst);
    let zd_bytes = k.mul(Ty::U64, zd, es);
    let dst = k.add(Ty::U64, dst0, zd_bytes);

    // Load: source row r0 + x, columns c0 + y + 8s → tile[y + 8s][x].
    let row = k.add(Ty::U32, r0, x);
    let row_in = k.setp(Cmp::Lt, Ty::U32, row, rows);
    for s in 0..TILE / 8 {
        let col = k.add(Ty::U32, c0, y);
        let col = if s == 0 {
            col
        } else {
            k.add(Ty::U32, col, 8 * s)
        };
        let col_in = k.setp(Cmp::Lt, Ty::U32, col, cols);
        let inside = k.and_pred(row_in, col_in);
        let el = k.mul_wide_u32(col, ld_src);
        let row64 = k.cvt(Ty::U64, row);
        let el = k.add(Ty::U64, el, row64);
        let off = k.mul(Ty::U64, el, es);
        let addr = k.add(Ty::U64, src, off);
        let v = k.ld_global_guarded(ty, addr, 0, inside);
        let slot_row = if s == 0 { y } else { k.add(Ty::U32, y, 8 * s) };
        let slot = k.fma(Ty::U32, slot_row, pitch, x);
        let slot_bytes = k.mul(Ty::U32, slot, es);
        let at = k.add(Ty::U32, tile, slot_bytes);
        k.when(inside, false).st_shared(at, 0, v);
    }
    k.bar_sync();
    // Store: destination row c0 + x (a source column), columns r0 + y + 8s (source
    // rows) ← tile[x][y + 8s].
    let drow = k.add(Ty::U32, c0, x);
    let drow_in = k.setp(Cmp::Lt, Ty::U32, drow, cols);
    for s in 0..TILE / 8 {
        let dcol = k.add(Ty::U32, r0, y);
        let dcol = if s == 0 {
            dcol
        } else {
            k.add(Ty::U32, dcol, 8 * s)
        };
        let dcol_in = k.setp(Cmp::Lt, Ty::U32, dcol, rows);
        let inside = k.and_pred(drow_in, dcol_in);
        let slot_col = if s == 0 { y } else { k.add(Ty::U32, y, 8 * s) };
        let slot = k.fma(Ty::U32, x, pitch, slot_col);
        let slot_bytes = k.mul(Ty::U32, slot, es);
        let at = k.add(Ty::U32, tile, slot_bytes);
        let v = k.ld_shared_guarded(ty, at, 0, inside);
        let el = k.mul_wide_u32(dcol, ld_dst);
        let drow64 = k.cvt(Ty::U64, drow);
        let el = k.add(Ty::U64, el, drow64);
        let off = k.mul(Ty::U64, el, es);
        let addr = k.add(Ty::U64, dst, off);
        k.when(inside, false).st_global(addr, 0, &[v]);
    }
    k.ret();
    Ok(k)
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
