//! BLAS Level 1 elementwise kernels for AMDGPU, built with the [`Assembler`] from the same
//! [`Level1Params`] as the PTX generator ([`crate::level1`]). First slice: copy, swap,
//! scal, axpby and real dot and asum, contiguous and strided; the other reductions
//! (nrm2, sum, iamax), complex dot and complex scal/axpby are not generated yet (`Error::Unsupported`).
//!
//! | Op | dtypes | Arguments (kernarg order) |
//! |---|---|---|
//! | `Copy` (y = x) | f32, f64, c32, c64 | `x: *const T, y: *mut T, n: u32, groups: u32` |
//! | `Swap` (x ↔ y) | f32, f64, c32, c64 | `x: *mut T, y: *mut T, n: u32, groups: u32` |
//! | `Scal` (x = α·x) | f32, f64 | `x: *mut T, n: u32, groups: u32, alpha` |
//! | `Axpby` (y = α·x + β·y) | f32, f64 | `x: *const T, y: *mut T, n: u32, groups: u32, alpha, beta` |
//! | `Dot` (Σ x·y) | f32, f64 | `x: *const T, y: *const T, n: u32, groups: u32, partials: *mut f64` |
//! | `Asum` (Σ \|x\|) | f32, f64 | `x: *const T, n: u32, groups: u32, partials: *mut f64` |
//!
//! Strided kernels take `incx: i32` (and `incy: i32` where there is a y) right after
//! `groups`, before `alpha`/`beta`: e.g. axpby `x, y, n, groups, incx, incy, alpha, beta`.
//!
//! `alpha`/`beta` are one `u32` holding the f32 bits, or for f64 two `u32`s (`*_lo`,
//! `*_hi`: the little-endian halves of the f64). `groups` is the number of workgroups
//! launched (the grid); the kernel does not read the dispatch packet.
//!
//! Rules:
//! - Work-item `g = wg·block + tid` handles 16-byte vectors `g, g + groups·block, …`
//!   (grid-stride loop, `global_load_dwordx4`/`global_store_dwordx4`, exec-masked
//!   `g < n·size/16`), so any grid ≥ 1 covers the whole vector.
//! - The `n mod (16/size)` elements past the last whole vector are done by workgroup 0,
//!   one element per lane (exec-masked tail).
//! - Strided: work-item `g` handles elements `g, g + groups·block, …`, one per lane
//!   (loads of one element: 4, 8 or 16 bytes), at byte offset `i·inc·size + start`,
//!   `start = (1 - n)·inc·size` for `inc < 0` (BLAS: element 0 is the last in memory).
//! - Dot/asum: each lane accumulates `acc = fma(x, y, acc)` (asum: `acc + |x|`) in T over its elements, the
//!   workgroup sums its lanes by a fixed LDS tree (block a power of two), work-item 0
//!   writes `partials[wg]` as f64 — the PTX generator's layout (slot 0 of
//!   `partial_slots`), one partial per workgroup; the host sums the `groups` partials in
//!   order, so the result is the same run to run for a given grid.
//! - Addresses are 32-bit byte offsets: `n·size` must be below 2³².
//! - axpby computes `y = fma(α, x, β·y)`: one rounding of `β·y` (`v_mul`), then one
//!   fused multiply-add (`v_fma`). With `read_y = false` (β = 0) y is never read and
//!   `y = α·x` (one `v_mul`).

use super::asm::{AssembledKernel, Assembler};
use super::regs::{Sgpr, Vgpr};
use crate::generator::{LaunchRule, Program};
use crate::level1::{L1Op, Level1Params};
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// Bytes per contiguous load/store per lane.
pub const VECTOR_BYTES: u32 = 16;

/// Bytes of one element of `d`, for the dtypes Level 1 supports.
fn elem_bytes(d: DType) -> Result<u32> {
    match d {
        DType::F32 => Ok(4),
        DType::F64 | DType::C32 => Ok(8),
        DType::C64 => Ok(16),
        d => Err(Error::unsupported(
            format!("Level 1 kernels for {d}"),
            "AMDGPU",
        )),
    }
}

fn dtype_name(d: DType) -> &'static str {
    match d {
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::C32 => "c32",
        _ => "c64",
    }
}

/// The kernel name of `p`: `l1_<op>_<dtype>_<contiguous|strided>`.
pub fn kernel_name(p: &Level1Params) -> String {
    let op = match p.op {
        L1Op::Scal => "scal",
        L1Op::Axpby { read_y: true } => "axpby",
        L1Op::Axpby { read_y: false } => "axpby_b0",
        L1Op::Copy => "copy",
        L1Op::Swap => "swap",
        L1Op::Dot { conj: false } => "dot",
        L1Op::Dot { conj: true } => "dotc",
        L1Op::Sum => "sum",
        L1Op::Asum => "asum",
        L1Op::Nrm2 => "nrm2",
        L1Op::Iamax { max: true } => "iamax",
        L1Op::Iamax { max: false } => "iamin",
        L1Op::Fill => "fill",
        L1Op::Rot => "rot",
        L1Op::Rotm => "rotm",
        L1Op::Convert { to } => return format!("l1_convert_{}_{}_{}", p.dtype, to, layout_name(p)),
    };
    format!("l1_{op}_{}_{}", dtype_name(p.dtype), layout_name(p))
}

fn layout_name(p: &Level1Params) -> &'static str {
    if p.contiguous {
        "contiguous"
    } else {
        "strided"
    }
}

/// The [`Program`] of `p` for `target`: the code object of [`generate`]'s kernel, launched
/// like the PTX kernels (elementwise: enough workgroups to cover `n`; reductions: the
/// fixed `grid`). The kernels loop grid-stride and read the grid from their `groups`
/// argument, so any grid is correct.
pub fn program(p: &Level1Params, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    let k = generate(t, p)?;
    let launch = if p.op.is_reduction() {
        LaunchRule::Fixed {
            grid: p.grid,
            block: p.block,
        }
    } else {
        LaunchRule::Cover {
            block: p.block,
            units_per_item: p.unroll,
        }
    };
    Ok(Program {
        image: ModuleImage::CodeObject(k.to_elf()?),
        kernels: vec![k.name().to_string()],
        launch,
    })
}

/// The kernel of `p` on `t`.
pub fn generate(t: IsaTarget, p: &Level1Params) -> Result<AssembledKernel> {
    let es = elem_bytes(p.dtype)?;
    let real = matches!(p.dtype, DType::F32 | DType::F64);
    let unsupported = || Error::unsupported(kernel_name(p), t.name());
    if p.contiguous && p.vector_bytes != VECTOR_BYTES {
        return Err(Error::invalid(
            "vector_bytes",
            format!(
                "{} (the AMDGPU kernels load 16 bytes per lane)",
                p.vector_bytes
            ),
        ));
    }
    if p.block == 0 || p.block > 1024 || p.block % t.wave_size() != 0 {
        return Err(Error::invalid(
            "block",
            format!(
                "{} is not a multiple of the wave size {} up to 1024",
                p.block,
                t.wave_size()
            ),
        ));
    }
    let kind = match p.op {
        L1Op::Copy => Elementwise::Copy,
        L1Op::Swap => Elementwise::Swap,
        L1Op::Scal if real => Elementwise::Scal,
        L1Op::Axpby { read_y } if real => Elementwise::Axpby { read_y },
        L1Op::Dot { .. } if real => Elementwise::Dot,
        L1Op::Asum if real => Elementwise::Asum,
        _ => return Err(unsupported()),
    };
    if matches!(kind, Elementwise::Dot | Elementwise::Asum) && !p.block.is_power_of_two() {
        return Err(Error::invalid(
            "block",
            format!("{} is not a power of two (the LDS tree halves it)", p.block),
        ));
    }
    elementwise(t, p, es, kind)
}

/// The arguments and registers shared by the contiguous and strided bodies.
struct Prologue {
    k: Assembler,
    a: Operands,
    n: Sgpr,
    groups: Sgpr,
    incs: Option<(Sgpr, Option<Sgpr>)>,
    partials: Option<Sgpr>,
}

fn prologue(t: IsaTarget, p: &Level1Params, es: u32, kind: Elementwise) -> Result<Prologue> {
    let mut k = Assembler::new(t, &kernel_name(p), p.block, 1)?;
    let x = k.arg_pointer("x")?;
    let y = match kind {
        Elementwise::Scal | Elementwise::Asum => None,
        _ => Some(k.arg_pointer("y")?),
    };
    let n = k.arg_u32("n")?;
    let groups = k.arg_u32("groups")?;
    let incs = if p.contiguous {
        None
    } else {
        let incx = k.arg_u32("incx")?;
        let incy = match y {
            Some(_) => Some(k.arg_u32("incy")?),
            None => None,
        };
        Some((incx, incy))
    };
    let partials = match kind {
        Elementwise::Dot | Elementwise::Asum => Some(k.arg_pointer("partials")?),
        _ => None,
    };
    let (alpha, beta) = match kind {
        Elementwise::Copy | Elementwise::Swap | Elementwise::Dot | Elementwise::Asum => {
            (None, None)
        }
        Elementwise::Scal | Elementwise::Axpby { read_y: false } => {
            (Some(Scalar::load(&mut k, "alpha", es)?), None)
        }
        Elementwise::Axpby { read_y: true } => {
            let a = Scalar::load(&mut k, "alpha", es)?;
            (Some(a), Some(Scalar::load(&mut k, "beta", es)?))
        }
    };
    let xv = k.vgprs(4)?;
    // y's data registers only where y is read (copy and axpy with β = 0 store from xv).
    let yv = match kind {
        Elementwise::Swap | Elementwise::Axpby { read_y: true } | Elementwise::Dot => k.vgprs(4)?,
        _ => xv,
    };
    let acc = match kind {
        Elementwise::Dot | Elementwise::Asum => {
            let acc = k.vgprs((es / 4) as u8)?;
            for r in 0..acc.count() {
                k.op(Op::VMovB32, [acc.at(r).op(), Operand::Int(0)]);
            }
            Some(acc)
        }
        _ => None,
    };
    let a = Operands {
        kind,
        xv,
        yv,
        acc,
        x,
        y,
        alpha,
        beta,
    };
    Ok(Prologue {
        k,
        a,
        n,
        groups,
        incs,
        partials,
    })
}

/// One increment's byte stride and start: `bytes = inc·es`, `start = (1 - n)·bytes` when
/// `inc < 0` (BLAS: element i lives at `(i + (1 - n)) · inc` then), else 0; the lane's
/// offset `gid·bytes + start` and the loop step `step·bytes`.
fn strided_offset(
    k: &mut Assembler,
    inc: Sgpr,
    n: Sgpr,
    step: Sgpr,
    gid: Vgpr,
    es: u32,
) -> Result<(Vgpr, Sgpr)> {
    let (bytes, start, step_bytes) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let off = k.vgprs(1)?;
    k.op(
        Op::SMulI32,
        [bytes.op(), inc.op(), Operand::imm32(i64::from(es))],
    );
    k.op(Op::SSubU32, [start.op(), Operand::Int(1), n.op()]);
    k.op(Op::SMulI32, [start.op(), start.op(), bytes.op()]);
    k.op(Op::SCmpLtI32, [inc.op(), Operand::Int(0)]);
    k.op(Op::SCselectB32, [start.op(), start.op(), Operand::Int(0)]);
    k.op(Op::SMulI32, [step_bytes.op(), step.op(), bytes.op()]);
    k.op(Op::VMulLoU32, [off.op(), gid.op(), bytes.op()]);
    k.op(Op::VAddU32, [off.op(), start.op(), off.op()]);
    Ok((off, step_bytes))
}

/// One element per lane per iteration at signed increments.
fn strided(t: IsaTarget, p: &Level1Params, es: u32, kind: Elementwise) -> Result<AssembledKernel> {
    let Prologue {
        mut k,
        a,
        n,
        groups,
        incs,
        partials,
    } = prologue(t, p, es, kind)?;
    let (incx, incy) = incs.ok_or_else(|| Error::invalid("contiguous", "strided kernel"))?;
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    let (step, tmp) = (k.sgprs(1)?, k.sgprs(1)?);
    let (saved, junk) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let gid = k.vgprs(1)?;
    let vcc = k.vcc();
    let exec = k.exec();
    let mov_mask = if t.wave_size() == 64 {
        Op::SMovB64
    } else {
        Op::SMovB32
    };
    let (lp, done) = (k.label("loop"), k.label("done"));
    k.wait_lgkm(0);
    k.op(
        Op::SMulI32,
        [step.op(), groups.op(), Operand::imm32(i64::from(p.block))],
    );
    k.op(
        Op::SMulI32,
        [tmp.op(), wg.op(), Operand::imm32(i64::from(p.block))],
    );
    k.op(Op::VAddU32, [gid.op(), tmp.op(), tid.op()]);
    let (ox, sx) = strided_offset(&mut k, incx, n, step, gid, es)?;
    let (oy, sy) = match incy {
        Some(incy) => strided_offset(&mut k, incy, n, step, gid, es)?,
        None => (ox, sx),
    };
    k.op(mov_mask, [saved.op(), exec]);
    k.bind(lp);
    k.op(Op::VCmpGtU32, [vcc, n.op(), gid.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, done);
    body(&mut k, &a, ox, oy, es, es);
    k.op(Op::VAddU32, [gid.op(), step.op(), gid.op()]);
    k.op(Op::VAddU32, [ox.op(), sx.op(), ox.op()]);
    if incy.is_some() {
        k.op(Op::VAddU32, [oy.op(), sy.op(), oy.op()]);
    }
    k.branch(lp);
    k.bind(done);
    k.op(mov_mask, [exec, saved.op()]);
    block_reduce(&mut k, p, &a, partials, tid, wg, es)?;
    k.s_endpgm();
    k.finish()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Elementwise {
    Copy,
    Scal,
    Axpby {
        read_y: bool,
    },
    Swap,
    /// Σ x·y into one per-lane accumulator, then the workgroup's LDS tree.
    Dot,
    /// Σ |x| into one per-lane accumulator, then the workgroup's LDS tree.
    Asum,
}

/// A real scalar argument: an SGPR (f32) or a VGPR pair (f64).
#[derive(Clone, Copy)]
enum Scalar {
    F32(Sgpr),
    F64(Vgpr),
}

impl Scalar {
    fn load(k: &mut Assembler, name: &str, es: u32) -> Result<Scalar> {
        if es == 4 {
            return Ok(Scalar::F32(k.arg_u32(name)?));
        }
        let lo = k.arg_u32(&format!("{name}_lo"))?;
        let hi = k.arg_u32(&format!("{name}_hi"))?;
        Ok(Scalar::F64(Scalar::pair(k, lo, hi)?))
    }

    fn pair(k: &mut Assembler, lo: Sgpr, hi: Sgpr) -> Result<Vgpr> {
        let v = k.vgprs(2)?;
        k.wait_lgkm(0);
        k.op(Op::VMovB32, [v.at(0).op(), lo.op()]);
        k.op(Op::VMovB32, [v.at(1).op(), hi.op()]);
        Ok(v)
    }

    /// `d = self · d` for the element at register `r` of `d`.
    fn mul(self, k: &mut Assembler, d: Vgpr) {
        match self {
            Scalar::F32(s) => k.op(Op::VMulF32, [d.op(), s.op(), d.op()]),
            Scalar::F64(v) => k.op(Op::VMulF64, [d.op(), v.op(), d.op()]),
        };
    }

    /// `d = fma(self, x, d)`.
    fn fma(self, k: &mut Assembler, d: Vgpr, x: Vgpr) {
        match self {
            Scalar::F32(s) => k.op(Op::VFmaF32, [d.op(), s.op(), x.op(), d.op()]),
            Scalar::F64(v) => k.op(Op::VFmaF64, [d.op(), v.op(), x.op(), d.op()]),
        };
    }
}

fn load_op(bytes: u32) -> Op {
    match bytes {
        4 => Op::GlobalLoadDword,
        8 => Op::GlobalLoadDwordx2,
        _ => Op::GlobalLoadDwordx4,
    }
}

fn store_op(bytes: u32) -> Op {
    match bytes {
        4 => Op::GlobalStoreDword,
        8 => Op::GlobalStoreDwordx2,
        _ => Op::GlobalStoreDwordx4,
    }
}

/// Pointers and scalars of one elementwise kernel.
struct Operands {
    kind: Elementwise,
    /// Data registers: 4 VGPRs each for x and y.
    xv: Vgpr,
    yv: Vgpr,
    /// The dot accumulator (one element).
    acc: Option<Vgpr>,
    x: Sgpr,
    y: Option<Sgpr>,
    alpha: Option<Scalar>,
    beta: Option<Scalar>,
}

/// Loads, computes and stores `bytes` bytes (whole elements of `es` bytes) at byte
/// offsets `ox` of x and `oy` of y.
fn body(k: &mut Assembler, a: &Operands, ox: Vgpr, oy: Vgpr, bytes: u32, es: u32) {
    let regs_per_elem = (es / 4) as u8;
    let elems = (bytes / es) as u8;
    let each = |v: Vgpr, e: u8| v.sub(e * regs_per_elem, regs_per_elem);
    let (xv, yv) = (
        a.xv.sub(0, (bytes / 4) as u8),
        a.yv.sub(0, (bytes / 4) as u8),
    );
    let (ld, st) = (load_op(bytes), store_op(bytes));
    k.global_load(ld, xv, ox, a.x, 0);
    let y = a.y.unwrap_or(a.x);
    if matches!(
        a.kind,
        Elementwise::Swap | Elementwise::Axpby { read_y: true } | Elementwise::Dot
    ) {
        k.global_load(ld, yv, oy, y, 0);
    }
    k.wait_vm(0);
    match (a.kind, a.alpha) {
        (Elementwise::Dot, _) => {
            if let Some(acc) = a.acc {
                let fma = if es == 4 { Op::VFmaF32 } else { Op::VFmaF64 };
                for e in 0..elems {
                    k.op(
                        fma,
                        [acc.op(), each(xv, e).op(), each(yv, e).op(), acc.op()],
                    );
                }
            }
        }
        (Elementwise::Asum, _) => {
            if let Some(acc) = a.acc {
                for e in 0..elems {
                    // |x|: clear the sign bit (the high dword's for f64), then add.
                    let v = each(xv, e);
                    let hi = v.at(regs_per_elem - 1);
                    k.op(Op::VAndB32, [hi.op(), Operand::imm32(0x7fff_ffff), hi.op()]);
                    let add = if es == 4 { Op::VAddF32 } else { Op::VAddF64 };
                    k.op(add, [acc.op(), acc.op(), v.op()]);
                }
            }
        }
        (Elementwise::Swap, _) => {
            k.global_store(st, ox, yv, a.x, 0);
            k.global_store(st, oy, xv, y, 0);
        }
        (Elementwise::Copy, _) | (_, None) => {
            k.global_store(st, oy, xv, y, 0);
        }
        (Elementwise::Scal, Some(alpha)) => {
            for e in 0..elems {
                alpha.mul(k, each(xv, e));
            }
            k.global_store(st, ox, xv, a.x, 0);
        }
        (Elementwise::Axpby { read_y: true }, Some(alpha)) => {
            for e in 0..elems {
                if let Some(beta) = a.beta {
                    beta.mul(k, each(yv, e));
                }
                alpha.fma(k, each(yv, e), each(xv, e));
            }
            k.global_store(st, oy, yv, y, 0);
        }
        (Elementwise::Axpby { read_y: false }, Some(alpha)) => {
            // β = 0: y = α·x, y never read.
            for e in 0..elems {
                alpha.mul(k, each(xv, e));
            }
            k.global_store(st, oy, xv, y, 0);
        }
    }
}

fn elementwise(
    t: IsaTarget,
    p: &Level1Params,
    es: u32,
    kind: Elementwise,
) -> Result<AssembledKernel> {
    if !p.contiguous {
        return strided(t, p, es, kind);
    }
    let block = p.block;
    let Prologue {
        mut k,
        a,
        n,
        groups,
        partials,
        ..
    } = prologue(t, p, es, kind)?;
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    let (vecs, step, step_bytes, tmp) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let (saved, junk) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let (gid, off) = (k.vgprs(1)?, k.vgprs(1)?);
    let per_vec_log2 = (VECTOR_BYTES / es).trailing_zeros();
    let es_log2 = es.trailing_zeros();
    let vcc = k.vcc();
    let exec = k.exec();
    let mov_mask = if t.wave_size() == 64 {
        Op::SMovB64
    } else {
        Op::SMovB32
    };
    let (lp, after, done) = (k.label("loop"), k.label("after"), k.label("done"));

    k.wait_lgkm(0);
    // vecs = n / (16 / es); step = groups·block vectors; gid = wg·block + tid.
    k.op(
        Op::SLshrB32,
        [vecs.op(), n.op(), Operand::Int(per_vec_log2 as i8)],
    );
    k.op(
        Op::SMulI32,
        [step.op(), groups.op(), Operand::imm32(i64::from(block))],
    );
    k.op(Op::SLshlB32, [step_bytes.op(), step.op(), Operand::Int(4)]);
    k.op(
        Op::SMulI32,
        [tmp.op(), wg.op(), Operand::imm32(i64::from(block))],
    );
    k.op(Op::VAddU32, [gid.op(), tmp.op(), tid.op()]);
    k.op(Op::VLshlrevB32, [off.op(), Operand::Int(4), gid.op()]);
    k.op(mov_mask, [saved.op(), exec]);
    k.bind(lp);
    k.op(Op::VCmpGtU32, [vcc, vecs.op(), gid.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, after);
    body(&mut k, &a, off, off, VECTOR_BYTES, es);
    k.op(Op::VAddU32, [gid.op(), step.op(), gid.op()]);
    k.op(Op::VAddU32, [off.op(), step_bytes.op(), off.op()]);
    k.branch(lp);
    k.bind(after);
    k.op(mov_mask, [exec, saved.op()]);
    // Tail: workgroup 0, lanes tid < n - vecs·(16/es), one element each.
    k.op(Op::SCmpLgU32, [wg.op(), Operand::Int(0)]);
    k.cbranch(Op::SCbranchScc1, done);
    k.op(
        Op::SLshlB32,
        [tmp.op(), vecs.op(), Operand::Int(per_vec_log2 as i8)],
    );
    k.op(Op::SSubU32, [tmp.op(), n.op(), tmp.op()]);
    k.op(Op::VCmpGtU32, [vcc, tmp.op(), tid.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, done);
    k.op(Op::SLshlB32, [tmp.op(), vecs.op(), Operand::Int(4)]);
    k.op(
        Op::VLshlAddU32,
        [off.op(), tid.op(), Operand::Int(es_log2 as i8), tmp.op()],
    );
    body(&mut k, &a, off, off, es, es);
    k.bind(done);
    k.op(mov_mask, [exec, saved.op()]);
    block_reduce(&mut k, p, &a, partials, tid, wg, es)?;
    k.s_endpgm();
    k.finish()
}

/// Dot only: the workgroup's accumulators summed by a tree in LDS (`stride = block/2,
/// …, 1`: work-items below `stride` add the slot `stride` above, `s_barrier` per step),
/// then work-item 0 stores the sum as an f64 at `partials[wg]` (f32 sums widened
/// exactly), the PTX generator's slot-0 layout.
fn block_reduce(
    k: &mut Assembler,
    p: &Level1Params,
    a: &Operands,
    partials: Option<Sgpr>,
    tid: Vgpr,
    wg: Sgpr,
    es: u32,
) -> Result<()> {
    let (Some(acc), Some(partials)) = (a.acc, partials) else {
        return Ok(());
    };
    let lds = k.lds(p.block * es, es)?;
    let (stride, bytes) = (k.sgprs(1)?, k.sgprs(1)?);
    let saved = k.mask_sgprs()?;
    let (addr, other) = (k.vgprs(1)?, k.vgprs(1)?);
    let tmp = k.vgprs((es / 4) as u8)?;
    let wide = k.vgprs(2)?;
    let (write, read, add) = if es == 4 {
        (Op::DsWriteB32, Op::DsReadB32, Op::VAddF32)
    } else {
        (Op::DsWriteB64, Op::DsReadB64, Op::VAddF64)
    };
    let vcc = k.vcc();
    let (step, end) = (k.label("tree"), k.label("partial_done"));
    k.op(
        Op::VLshlAddU32,
        [
            addr.op(),
            tid.op(),
            Operand::Int(es.trailing_zeros() as i8),
            Operand::imm32(i64::from(lds)),
        ],
    );
    k.ds_write(write, addr, acc, 0);
    k.op(
        Op::SMovB32,
        [stride.op(), Operand::imm32(i64::from(p.block / 2))],
    );
    k.wait_lgkm(0);
    k.s_barrier();
    if p.block > 1 {
        k.bind(step);
        k.op(Op::VCmpGtU32, [vcc, stride.op(), tid.op()]);
        k.and_saveexec(saved, vcc);
        k.op(
            Op::SLshlB32,
            [
                bytes.op(),
                stride.op(),
                Operand::Int(es.trailing_zeros() as i8),
            ],
        );
        k.op(Op::VAddU32, [other.op(), bytes.op(), addr.op()]);
        k.ds_read(read, acc, addr, 0);
        k.ds_read(read, tmp, other, 0);
        k.wait_lgkm(0);
        k.op(add, [acc.op(), acc.op(), tmp.op()]);
        k.ds_write(write, addr, acc, 0);
        k.wait_lgkm(0);
        k.restore_exec(saved);
        k.s_barrier();
        k.op(Op::SLshrB32, [stride.op(), stride.op(), Operand::Int(1)]);
        k.op(Op::SCmpLgU32, [stride.op(), Operand::Int(0)]);
        k.cbranch(Op::SCbranchScc1, step);
    }
    k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), tid.op()]);
    k.and_saveexec(saved, vcc);
    k.cbranch(Op::SCbranchExecz, end);
    k.ds_read(read, acc, addr, 0);
    k.wait_lgkm(0);
    let value = if es == 4 {
        k.op(Op::VCvtF64F32, [wide.op(), acc.op()]);
        wide
    } else {
        acc
    };
    k.op(Op::SLshlB32, [bytes.op(), wg.op(), Operand::Int(3)]);
    k.op(Op::VMovB32, [other.op(), bytes.op()]);
    k.global_store(Op::GlobalStoreDwordx2, other, value, partials, 0);
    k.bind(end);
    Ok(())
}
