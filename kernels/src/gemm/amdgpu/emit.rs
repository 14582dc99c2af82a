//! The instructions of one GEMM kernel, from a [`Plan`]. The module docs of
//! [`super`] state the algorithm; this file follows it section by section: prologue
//! (arguments, batch and tile bases, per-lane addresses), the k loop (global → staging
//! VGPRs → LDS → operand VGPRs → matrix instructions) and the epilogue (α·acc + β·C,
//! conversion, stores).

use super::plan::{CdMap, FmaTile, OperandPlan, Plan};
use crate::amdgpu::{AssembledKernel, Assembler, Label, Sgpr, Vgpr};
use crate::signature::Signature;
use rocm_core::isa::amdgpu::{IsaFamily, Op, Operand};
use rocm_core::{DType, Error, Result};

/// Labels of the main loop, for the issue model.
pub const LOOP_LABEL: &str = "main_loop";
pub const LOOP_END_LABEL: &str = "last_tile";
/// Prefixes of the labels opening and closing an edge-load block.
pub const SAFE_PREFIX: &str = "safe_";
pub const JOIN_PREFIX: &str = "join_";

fn log2(x: u32) -> i8 {
    x.trailing_zeros() as i8
}

fn imm(x: u32) -> Operand {
    Operand::imm32(i64::from(x))
}

/// Registers and constants of one of A, B.
struct Side {
    plan: OperandPlan,
    ptr: Sgpr,
    ld: Sgpr,
    step: Sgpr,
    edge: Sgpr,
    /// Elements along mn left from the tile's first row/column (≥ 1).
    rem: Sgpr,
    /// Unit 0's position: mn index and k index inside the tile.
    mn0: Vgpr,
    k0: Vgpr,
    /// Fast-path byte offsets, per unit and vector.
    offs: Vec<Vec<Vgpr>>,
    /// Staging registers per unit (all vectors back to back).
    staging: Vec<Vgpr>,
    /// Packed words per unit (mn-contiguous with several k per word).
    packed: Vec<Option<Vgpr>>,
    /// LDS write address of unit 0 and read address of the wave's first block.
    write: Vgpr,
    read: Vgpr,
    /// Operand registers per block and k step.
    ops: Vec<Vec<Vgpr>>,
    name: char,
}

/// Accumulator storage: VGPRs or AGPRs.
#[derive(Clone, Copy)]
enum Acc {
    V(Vgpr),
    A(crate::amdgpu::Agpr),
}

impl Acc {
    /// Registers `first .. first + n` of the tuple.
    fn sub(self, first: u8, n: u8) -> Acc {
        match self {
            Acc::V(v) => Acc::V(v.sub(first, n)),
            Acc::A(a) => Acc::A(a.sub(first, n)),
        }
    }

    fn op(self) -> Operand {
        match self {
            Acc::V(v) => v.op(),
            Acc::A(a) => a.op(),
        }
    }
}

struct Gen<'a> {
    p: &'a Plan,
    k: Assembler,
    labels: u32,
    sel_lo: Option<Sgpr>,
    /// 0x7fff, for rounding to bf16.
    round: Option<Sgpr>,
    sel_hi: Option<Sgpr>,
    tmp: Sgpr,
    kpart: Sgpr,
    krem: Sgpr,
    saved: Sgpr,
    /// Stage deltas of the write and read addresses.
    deltas: (Sgpr, Sgpr),
    /// 16-bit element temporaries of the edge loads.
    temps: Vec<Vgpr>,
    vt: Vgpr,
    vt2: Vgpr,
}

impl Gen<'_> {
    fn label(&mut self, name: &str) -> Label {
        self.labels += 1;
        let n = format!("{name}{}", self.labels);
        self.k.label(&n)
    }

    fn op(&mut self, op: Op, o: impl Into<Vec<Operand>>) {
        self.k.op(op, o);
    }

    /// `d = a + c` (VOP2, the constant in src0).
    fn vadd_const(&mut self, d: Vgpr, a: Vgpr, c: u32) {
        self.op(Op::VAddU32, [d.op(), imm(c), a.op()]);
    }

    fn vshl(&mut self, d: Vgpr, a: Vgpr, sh: u32) {
        self.op(Op::VLshlrevB32, [d.op(), Operand::Int(sh as i8), a.op()]);
    }

    /// 64-bit `dst += src` on SGPR pairs.
    fn add64(&mut self, dst: Sgpr, src: Sgpr) {
        self.op(
            Op::SAddU32,
            [dst.at(0).op(), dst.at(0).op(), src.at(0).op()],
        );
        self.op(
            Op::SAddcU32,
            [dst.at(1).op(), dst.at(1).op(), src.at(1).op()],
        );
    }

    /// `dst = a * b` as a 64-bit product of two u32s.
    fn mul64(&mut self, dst: Sgpr, a: Operand, b: Operand) {
        self.op(Op::SMulI32, [dst.at(0).op(), a, b]);
        self.op(Op::SMulHiU32, [dst.at(1).op(), a, b]);
    }

    fn shl64(&mut self, d: Sgpr, sh: u32) {
        if sh > 0 {
            self.op(Op::SLshlB64, [d.op(), d.op(), Operand::Int(sh as i8)]);
        }
    }

    fn gload_op(bytes: u32) -> Op {
        match bytes {
            2 => Op::GlobalLoadUshort,
            4 => Op::GlobalLoadDword,
            8 => Op::GlobalLoadDwordx2,
            _ => Op::GlobalLoadDwordx4,
        }
    }

    fn gstore_op(bytes: u32) -> Op {
        match bytes {
            2 => Op::GlobalStoreShort,
            4 => Op::GlobalStoreDword,
            8 => Op::GlobalStoreDwordx2,
            _ => Op::GlobalStoreDwordx4,
        }
    }

    fn ds_read_op(bytes: u32) -> Op {
        match bytes {
            4 => Op::DsReadB32,
            8 => Op::DsReadB64,
            _ => Op::DsReadB128,
        }
    }

    fn ds_write_op(bytes: u32) -> Op {
        match bytes {
            4 => Op::DsWriteB32,
            8 => Op::DsWriteB64,
            _ => Op::DsWriteB128,
        }
    }

    fn and_saveexec(&mut self) {
        let vcc = self.k.vcc();
        self.k.and_saveexec(self.saved, vcc);
    }

    /// `exec &= vcc`.
    fn and_exec_vcc(&mut self) {
        let (exec, vcc) = (self.k.exec(), self.k.vcc());
        let op = if self.p.target.wave_size() == 32 {
            Op::SAndB32
        } else {
            Op::SAndB64
        };
        self.op(op, [exec, exec, vcc]);
    }

    /// A 16-bit conversion; gfx11's `_e32` 16-bit forms reach only v0..v127, so it
    /// takes the VOP3 form there.
    fn cvt(&mut self, op: Op, d: Vgpr, a: Vgpr) {
        let i = rocm_core::isa::amdgpu::Instr::new(op, [d.op(), a.op()]);
        if self.p.target.family() == IsaFamily::Gfx11 {
            self.k.emit(i.e64());
        } else {
            self.k.emit(i);
        }
    }

    fn restore_exec(&mut self) {
        self.k.restore_exec(self.saved);
    }
}

/// Builds the kernel of plan `p` with the arguments `signature` declares
/// ([`crate::gemm::signature`]).
pub fn kernel(p: &Plan, signature: &Signature) -> Result<AssembledKernel> {
    let t = p.target;
    let (mut k, args) = Assembler::from_signature(t, signature, p.threads, 3)?;
    let [a_ptr, b_ptr, c_ptr, m, n, kk, lda, ldb, ldc, stride_a, stride_b, stride_c, alpha, beta] =
        [
            "a", "b", "c", "m", "n", "k", "lda", "ldb", "ldc", "stride_a", "stride_b", "stride_c",
            "alpha", "beta",
        ]
        .map(|name| args.get(name));
    let (a_ptr, b_ptr, c_ptr) = (a_ptr?, b_ptr?, c_ptr?);
    let (m, n, kk, lda, ldb, ldc) = (m?, n?, kk?, lda?, ldb?, ldc?);
    let (stride_a, stride_b, stride_c, alpha, beta) =
        (stride_a?, stride_b?, stride_c?, alpha?, beta?);
    // The kernel's only LDS block: at offset 0, where the plan's offsets start.
    k.lds(p.lds_bytes(), 16)
        .map_err(|e| Error::invalid("tile_k", format!("LDS of {} bytes: {e}", p.lds_bytes())))?;
    let (wg_x, wg_y, wg_z) = (k.workgroup_id(0)?, k.workgroup_id(1)?, k.workgroup_id(2)?);
    let tid = k.workitem_id(0)?;
    let s = |k: &mut Assembler, n: u8| k.sgprs(n);
    let tmp = s(&mut k, 2)?;
    let tmp2 = s(&mut k, 2)?;
    let kpart = s(&mut k, 1)?;
    let krem = s(&mut k, 1)?;
    let iter = s(&mut k, 1)?;
    let row0 = s(&mut k, 1)?;
    let col0 = s(&mut k, 1)?;
    let m_rem = s(&mut k, 1)?;
    let n_rem = s(&mut k, 1)?;
    let a_edge = s(&mut k, 1)?;
    let b_edge = s(&mut k, 1)?;
    let a_step = s(&mut k, 2)?;
    let b_step = s(&mut k, 2)?;
    let wave_id = s(&mut k, 1)?;
    let wm = s(&mut k, 1)?;
    let wn = s(&mut k, 1)?;
    let saved = k.mask_sgprs()?;
    let pack16 = p.es == 2;
    let (sel_lo, sel_hi) = if pack16 {
        (Some(s(&mut k, 1)?), Some(s(&mut k, 1)?))
    } else {
        (None, None)
    };
    let round = if p.c == DType::Bf16 {
        Some(s(&mut k, 1)?)
    } else {
        None
    };
    let vt = k.vgprs(1)?;
    let vt2 = k.vgprs(1)?;
    let mut g = Gen {
        p,
        k,
        labels: 0,
        sel_lo,
        round,
        sel_hi,
        tmp,
        kpart,
        krem,
        saved,
        temps: Vec::new(),
        deltas: (kpart, kpart),
        vt,
        vt2,
    };
    g.k.wait_lgkm(0);

    // ---- batch and tile bases -------------------------------------------------------
    // ptr += z * stride * es, with the 64-bit stride.
    for (ptr, stride, es) in [
        (a_ptr, stride_a, p.es),
        (b_ptr, stride_b, p.es),
        (c_ptr, stride_c, p.es_c),
    ] {
        g.mul64(tmp, stride.at(0).op(), wg_z.op());
        g.op(Op::SMulI32, [tmp2.at(0).op(), stride.at(1).op(), wg_z.op()]);
        g.op(
            Op::SAddU32,
            [tmp.at(1).op(), tmp.at(1).op(), tmp2.at(0).op()],
        );
        g.shl64(tmp, es.trailing_zeros());
        g.add64(ptr, tmp);
    }
    g.op(
        Op::SLshlB32,
        [row0.op(), wg_x.op(), Operand::Int(log2(p.tile_m))],
    );
    g.op(
        Op::SLshlB32,
        [col0.op(), wg_y.op(), Operand::Int(log2(p.tile_n))],
    );
    // A's tile: rows row0.. (column-major: + row0, transposed: + row0 * lda).
    let tile_base = |g: &mut Gen, ptr: Sgpr, first: Sgpr, ld: Sgpr, along_ld: bool, es: u32| {
        if along_ld {
            g.mul64(tmp, first.op(), ld.op());
        } else {
            g.op(Op::SMovB32, [tmp.at(0).op(), first.op()]);
            g.op(Op::SMovB32, [tmp.at(1).op(), Operand::Int(0)]);
        }
        g.shl64(tmp, es.trailing_zeros());
        g.add64(ptr, tmp);
    };
    tile_base(&mut g, a_ptr, row0, lda, !p.a.mn_contig, p.es);
    tile_base(&mut g, b_ptr, col0, ldb, !p.b.mn_contig, p.es);
    tile_base(&mut g, c_ptr, row0, ldc, false, p.es_c);
    tile_base(&mut g, c_ptr, col0, ldc, true, p.es_c);
    g.op(Op::SSubU32, [m_rem.op(), m.op(), row0.op()]);
    g.op(Op::SSubU32, [n_rem.op(), n.op(), col0.op()]);
    g.op(Op::SCmpLtU32, [m_rem.op(), imm(p.tile_m)]);
    g.op(
        Op::SCselectB32,
        [a_edge.op(), Operand::Int(1), Operand::Int(0)],
    );
    g.op(Op::SCmpLtU32, [n_rem.op(), imm(p.tile_n)]);
    g.op(
        Op::SCselectB32,
        [b_edge.op(), Operand::Int(1), Operand::Int(0)],
    );
    g.op(Op::SSubU32, [iter.op(), kk.op(), Operand::Int(1)]);
    g.op(
        Op::SLshrB32,
        [iter.op(), iter.op(), Operand::Int(log2(p.tile_k))],
    );
    g.op(Op::SMovB32, [krem.op(), kk.op()]);
    // Pointer steps per k tile: along ld when the operand is stored mn-contiguous.
    for (step, plan, ld) in [(a_step, p.a, lda), (b_step, p.b, ldb)] {
        if plan.mn_contig {
            g.mul64(step, ld.op(), imm(p.tile_k * p.es));
        } else {
            g.op(Op::SMovB32, [step.at(0).op(), imm(p.tile_k * p.es)]);
            g.op(Op::SMovB32, [step.at(1).op(), Operand::Int(0)]);
        }
    }
    if let Some(r) = round {
        g.op(Op::SMovB32, [r.op(), Operand::Literal(0x7fff)]);
    }
    if p.stages == 2 {
        let (wd, rd) = (g.k.sgprs(1)?, g.k.sgprs(1)?);
        g.op(Op::SMovB32, [wd.op(), imm(p.stage_stride)]);
        g.op(Op::SMovB32, [rd.op(), imm(p.stage_stride)]);
        g.deltas = (wd, rd);
    }
    if let (Some(lo), Some(hi)) = (sel_lo, sel_hi) {
        // v_perm_b32 selectors: {lo.lo16, hi.lo16} and {lo.hi16, hi.hi16}.
        g.op(Op::SMovB32, [lo.op(), Operand::Literal(0x0504_0100)]);
        g.op(Op::SMovB32, [hi.op(), Operand::Literal(0x0706_0302)]);
    }

    // ---- per-lane coordinates -----------------------------------------------------
    let lane = g.k.vgprs(1)?;
    g.op(Op::VAndB32, [lane.op(), imm(p.wave - 1), tid.op()]);
    g.op(
        Op::VLshrrevB32,
        [vt.op(), Operand::Int(log2(p.wave)), tid.op()],
    );
    g.op(Op::VReadfirstlaneB32, [wave_id.op(), vt.op()]);
    g.op(Op::SAndB32, [wm.op(), wave_id.op(), imm(p.warps_m - 1)]);
    g.op(
        Op::SLshrB32,
        [wn.op(), wave_id.op(), Operand::Int(log2(p.warps_m))],
    );

    let mut sides = Vec::new();
    for (name, plan, ptr, ld, step, edge, rem, wave_coord, wave_tile, inst_mn, blocks) in [
        (
            'a',
            p.a,
            a_ptr,
            lda,
            a_step,
            a_edge,
            m_rem,
            wm,
            p.wave_tile().0,
            p.shape.m,
            p.blocks_m,
        ),
        (
            'b',
            p.b,
            b_ptr,
            ldb,
            b_step,
            b_edge,
            n_rem,
            wn,
            p.wave_tile().1,
            p.shape.n,
            p.blocks_n,
        ),
    ] {
        sides.push(side(
            &mut g, name, plan, ptr, ld, step, edge, rem, tid, lane, wave_coord, wave_tile,
            inst_mn, blocks,
        )?);
    }
    // Edge-load temporaries for 16-bit elements (shared by A and B: each side packs its
    // own before the other starts).
    if pack16 {
        let most = sides.iter().map(|s| s.plan.vw).max().unwrap_or(0);
        for _ in 0..most {
            let v = g.k.vgprs(1)?;
            g.temps.push(v);
        }
    }

    // Accumulators, zeroed.
    // MFMA/WMMA: one tuple per instruction block. FMA: one per column of the lane's
    // tile (its thread_m rows), so the epilogue walks columns like blocks.
    let (acc_tuples, acc_regs) = match p.fma {
        Some(f) => (f.thread_n, p.shape.cd_regs / f.thread_n as u8),
        None => (p.blocks_m * p.blocks_n, p.shape.cd_regs),
    };
    let mut acc = Vec::new();
    for _ in 0..acc_tuples {
        // (The plan keeps the FMA kernel's accumulators in VGPRs: v_fma writes no AGPR.)
        let a = if p.acc_agpr {
            Acc::A(g.k.agprs(acc_regs)?)
        } else {
            Acc::V(g.k.vgprs(acc_regs)?)
        };
        for r in 0..acc_regs {
            match a {
                Acc::V(v) => g.op(Op::VMovB32, [v.at(r).op(), Operand::Int(0)]),
                Acc::A(x) => g.op(Op::VAccvgprWriteB32, [x.at(r).op(), Operand::Int(0)]),
            }
        }
        acc.push(a);
    }

    // ---- the k loop -----------------------------------------------------------------
    let main_loop = g.k.label(LOOP_LABEL);
    let last = g.k.label(LOOP_END_LABEL);
    // k = 0 (the host's "C = β·C" calls): nothing to multiply, and `iter` above wrapped
    // around, so go straight to the epilogue with the zeroed accumulators. k is uniform,
    // so every wave of the workgroup takes the same branch (no barrier is left waiting).
    let epilogue_start = g.k.label("epilogue_start");
    g.op(Op::SCmpEqU32, [kk.op(), Operand::Int(0)]);
    g.k.cbranch(Op::SCbranchScc1, epilogue_start);
    load_tile(&mut g, &mut sides)?;
    g.k.wait_vm(0);
    write_lds(&mut g, &sides);
    g.k.wait_lgkm(0);
    g.k.s_barrier();
    if p.stages == 2 {
        toggle(&mut g, &sides, true, false);
    }
    g.op(Op::SCmpEqU32, [iter.op(), Operand::Int(0)]);
    g.k.cbranch(Op::SCbranchScc1, last);
    g.k.bind(main_loop);
    if p.stages == 2 {
        load_tile(&mut g, &mut sides)?;
        compute(&mut g, &sides, &acc);
    } else {
        compute(&mut g, &sides, &acc);
        g.k.s_barrier();
        load_tile(&mut g, &mut sides)?;
    }
    g.k.wait_vm(0);
    write_lds(&mut g, &sides);
    g.k.wait_lgkm(0);
    g.k.s_barrier();
    if p.stages == 2 {
        toggle(&mut g, &sides, true, true);
    }
    g.op(Op::SSubU32, [iter.op(), iter.op(), Operand::Int(1)]);
    g.op(Op::SCmpLgU32, [iter.op(), Operand::Int(0)]);
    g.k.cbranch(Op::SCbranchScc1, main_loop);
    g.k.bind(last);
    compute(&mut g, &sides, &acc);
    g.k.bind(epilogue_start);

    // ---- epilogue -------------------------------------------------------------------
    // The FMA kernel's operand registers are dead here (its last k waited for every LDS
    // read, and VALU instructions issue in order): the epilogue's registers come from
    // them first. (MFMA operands are left alone: a VALU write after an MFMA read of its
    // sources is a hazard class the kernels need not meet.)
    let mut pool = Pool {
        free: match p.fma {
            Some(_) => sides
                .iter()
                .flat_map(|s| s.ops.iter().flatten().copied())
                .collect(),
            None => Vec::new(),
        },
    };
    let lane_row_q = pool.take(&mut g, 1)?;
    let erow = pool.take(&mut g, 1)?;
    let ecol = pool.take(&mut g, 1)?;
    let max_run = 16 / p.es_c.max(4);
    let (cd, blocks) = match p.fma {
        Some(f) => {
            // erow = wm * wave_tile_m + (lane % lanes_m) * chunk_m,
            // ecol = wn * wave_tile_n + (lane / lanes_m) * chunk_n.
            g.op(Op::VAndB32, [vt.op(), imm(f.lanes_m - 1), lane.op()]);
            g.op(
                Op::SLshlB32,
                [tmp.at(0).op(), wm.op(), Operand::Int(log2(p.wave_tile().0))],
            );
            g.op(
                Op::VLshlAddU32,
                [
                    erow.op(),
                    vt.op(),
                    Operand::Int(log2(f.chunk_m)),
                    tmp.at(0).op(),
                ],
            );
            g.op(
                Op::VLshrrevB32,
                [vt.op(), Operand::Int(log2(f.lanes_m)), lane.op()],
            );
            g.op(
                Op::SLshlB32,
                [tmp.at(0).op(), wn.op(), Operand::Int(log2(p.wave_tile().1))],
            );
            g.op(
                Op::VLshlAddU32,
                [
                    ecol.op(),
                    vt.op(),
                    Operand::Int(log2(f.chunk_n)),
                    tmp.at(0).op(),
                ],
            );
            (
                CdMap::fma(&f, p.es_c, max_run),
                EpiBlocks {
                    cols: f.thread_n,
                    col_step: 1,
                    col_chunk: (f.chunk_n, f.lanes_n * f.chunk_n),
                    rows: 1,
                    row_step: 0,
                },
            )
        }
        None => {
            let cd = CdMap::new(p.op, t, max_run)?;
            // erow = wm * wave_tile_m + stride * (lane / n); ecol = wn * wave_tile_n + lane % n.
            g.op(
                Op::VLshrrevB32,
                [lane_row_q.op(), Operand::Int(log2(p.shape.n)), lane.op()],
            );
            g.op(
                Op::SLshlB32,
                [tmp.at(0).op(), wm.op(), Operand::Int(log2(p.wave_tile().0))],
            );
            g.op(
                Op::VMulU32U24,
                [erow.op(), imm(cd.lane_row_stride), lane_row_q.op()],
            );
            g.op(Op::VAddU32, [erow.op(), tmp.at(0).op(), erow.op()]);
            g.op(
                Op::SLshlB32,
                [tmp.at(0).op(), wn.op(), Operand::Int(log2(p.wave_tile().1))],
            );
            g.op(Op::VAndB32, [ecol.op(), imm(p.shape.n - 1), lane.op()]);
            g.op(Op::VAddU32, [ecol.op(), tmp.at(0).op(), ecol.op()]);
            (
                cd,
                EpiBlocks {
                    cols: p.blocks_n,
                    col_step: p.shape.n,
                    col_chunk: (p.blocks_n, 0),
                    rows: p.blocks_m,
                    row_step: p.shape.m,
                },
            )
        }
    };
    let scratch = Scratch::new(&mut g, &mut pool, &cd)?;
    let ep = Epi {
        scratch,
        c_ptr,
        ldc,
        alpha,
        beta,
        m_rem,
        n_rem,
        erow,
        ecol,
        cd,
        blocks,
    };
    let edge = g.label("epilogue_edge");
    let done = g.label("done");
    let plain = g.label("epilogue_plain");
    let edge_plain = g.label("epilogue_edge_plain");
    // β = 0 (either sign) skips every read of C.
    if p.f64 {
        g.op(
            Op::SAndB32,
            [
                tmp.at(0).op(),
                beta.at(1).op(),
                Operand::Literal(0x7fff_ffff),
            ],
        );
        g.op(
            Op::SOrB32,
            [tmp.at(0).op(), tmp.at(0).op(), beta.at(0).op()],
        );
    } else {
        g.op(
            Op::SAndB32,
            [tmp.at(0).op(), beta.op(), Operand::Literal(0x7fff_ffff)],
        );
    }
    g.op(
        Op::SCselectB32,
        [kpart.op(), Operand::Int(1), Operand::Int(0)],
    );
    g.op(Op::SOrB32, [tmp.at(0).op(), a_edge.op(), b_edge.op()]);
    g.k.cbranch(Op::SCbranchScc1, edge);
    g.op(Op::SCmpEqU32, [kpart.op(), Operand::Int(0)]);
    g.k.cbranch(Op::SCbranchScc1, plain);
    epilogue(&mut g, &ep, &acc, false, true)?;
    g.k.branch(done);
    g.k.bind(plain);
    epilogue(&mut g, &ep, &acc, false, false)?;
    g.k.branch(done);
    g.k.bind(edge);
    g.op(Op::SCmpEqU32, [kpart.op(), Operand::Int(0)]);
    g.k.cbranch(Op::SCbranchScc1, edge_plain);
    epilogue(&mut g, &ep, &acc, true, true)?;
    g.k.branch(done);
    g.k.bind(edge_plain);
    epilogue(&mut g, &ep, &acc, true, false)?;
    g.k.bind(done);
    g.k.s_endpgm();
    g.k.finish()
}

/// Registers and addresses of one operand.
#[allow(clippy::too_many_arguments)]
fn side(
    g: &mut Gen,
    name: char,
    plan: OperandPlan,
    ptr: Sgpr,
    ld: Sgpr,
    step: Sgpr,
    edge: Sgpr,
    rem: Sgpr,
    tid: Vgpr,
    lane: Vgpr,
    wave_coord: Sgpr,
    wave_tile: u32,
    inst_mn: u32,
    blocks: u32,
) -> Result<Side> {
    let p = g.p;
    let (vt, vt2) = (g.vt, g.vt2);
    let cu = g.k.vgprs(1)?;
    let ou = g.k.vgprs(1)?;
    g.op(Op::VAndB32, [cu.op(), imm(plan.c_units - 1), tid.op()]);
    g.op(
        Op::VLshrrevB32,
        [ou.op(), Operand::Int(log2(plan.c_units)), tid.op()],
    );
    let mn0 = g.k.vgprs(1)?;
    let k0 = g.k.vgprs(1)?;
    let write = g.k.vgprs(1)?;
    let lds_base = plan.lds_offset;
    if plan.mn_contig {
        g.vshl(mn0, cu, plan.vw.trailing_zeros());
        g.vshl(k0, ou, p.word_k.trailing_zeros());
        // LDS: word row ou, column mn0.
        g.op(Op::VMulU32U24, [write.op(), imm(plan.pitch), ou.op()]);
    } else {
        g.vshl(k0, cu, plan.vw.trailing_zeros());
        g.op(Op::VMovB32, [mn0.op(), ou.op()]);
        // LDS: word row k0 / word_k, column mn0.
        g.op(
            Op::VLshrrevB32,
            [vt.op(), Operand::Int(log2(p.word_k)), k0.op()],
        );
        g.op(Op::VMulU32U24, [write.op(), imm(plan.pitch), vt.op()]);
    }
    g.op(
        Op::VLshlAddU32,
        [
            write.op(),
            mn0.op(),
            Operand::Int(log2(p.wbytes)),
            write.op(),
        ],
    );
    if lds_base > 0 {
        g.vadd_const(write, write, lds_base);
    }
    // Fast-path global offsets.
    let vectors = plan.vectors(p.word_k);
    let mut offs = Vec::new();
    let mut staging = Vec::new();
    let mut packed = Vec::new();
    let vec_dwords = (plan.vw * p.es).div_ceil(4);
    for w in 0..plan.units {
        let mut per = Vec::new();
        for r in 0..vectors {
            let off = g.k.vgprs(1)?;
            // The strided index (k for mn-contiguous, mn for k-contiguous) and the
            // contiguous one.
            let (strided, contig, add) = if plan.mn_contig {
                (k0, mn0, w * plan.ostep * p.word_k + r)
            } else {
                (mn0, k0, w * plan.ostep)
            };
            g.vadd_const(vt, strided, add);
            g.op(Op::VMulLoU32, [vt.op(), ld.op(), vt.op()]);
            g.op(
                Op::VAddLshlU32,
                [off.op(), vt.op(), contig.op(), Operand::Int(log2(p.es))],
            );
            per.push(off);
        }
        offs.push(per);
        staging.push(g.k.vgprs((vectors * vec_dwords) as u8)?);
        packed.push(if plan.mn_contig && p.word_k > 1 {
            Some(g.k.vgprs((plan.vw * p.wbytes / 4) as u8)?)
        } else {
            None
        });
    }
    let read = g.k.vgprs(1)?;
    let ops = match p.fma {
        Some(f) => fma_reads(g, f, name, read, lane, wave_coord, wave_tile, lds_base)?,
        None => {
            // LDS read address: lane (mn_l, h) of the instruction layout.
            let lanes_mn = if p.wmma { 16 } else { inst_mn };
            g.op(Op::VAndB32, [vt.op(), imm(lanes_mn - 1), lane.op()]);
            g.op(
                Op::SLshlB32,
                [
                    g.tmp.at(0).op(),
                    wave_coord.op(),
                    Operand::Int(log2(wave_tile)),
                ],
            );
            g.op(Op::VAddU32, [vt.op(), g.tmp.at(0).op(), vt.op()]);
            g.vshl(read, vt, p.wbytes.trailing_zeros());
            if !p.wmma {
                g.op(
                    Op::VLshrrevB32,
                    [vt2.op(), Operand::Int(log2(inst_mn)), lane.op()],
                );
                g.op(
                    Op::VMulU32U24,
                    [vt2.op(), imm(p.wpl * plan.pitch), vt2.op()],
                );
                g.op(Op::VAddU32, [read.op(), read.op(), vt2.op()]);
            }
            if lds_base > 0 {
                g.vadd_const(read, read, lds_base);
            }
            // One tuple per block and word group (the steps one word feeds).
            let regs = (p.spw * p.kl * p.es).div_ceil(4) as u8;
            let mut ops = Vec::new();
            for _ in 0..blocks {
                let mut per = Vec::new();
                for _ in 0..p.steps / p.spw {
                    per.push(g.k.vgprs(regs)?);
                }
                ops.push(per);
            }
            ops
        }
    };
    Ok(Side {
        plan,
        ptr,
        ld,
        step,
        edge,
        rem,
        mn0,
        k0,
        offs,
        staging,
        packed,
        write,
        read,
        ops,
        name,
    })
}

/// The FMA kernel's LDS read address and operand registers of one side: lane
/// `(l % lanes_m, l / lanes_m)` reads its `thread_m` rows (A) or `thread_n` columns (B) of
/// a k row, chunk by chunk ([`FmaTile`]); the address is that of its first chunk. Two
/// register sets, so one k's reads are in flight while the previous k's FMAs issue.
#[allow(clippy::too_many_arguments)]
fn fma_reads(
    g: &mut Gen,
    f: FmaTile,
    name: char,
    read: Vgpr,
    lane: Vgpr,
    wave_coord: Sgpr,
    wave_tile: u32,
    lds_base: u32,
) -> Result<Vec<Vec<Vgpr>>> {
    let p = g.p;
    let vt = g.vt;
    let (per, chunk) = if name == 'a' {
        g.op(Op::VAndB32, [vt.op(), imm(f.lanes_m - 1), lane.op()]);
        (f.thread_m, f.chunk_m)
    } else {
        g.op(
            Op::VLshrrevB32,
            [vt.op(), Operand::Int(log2(f.lanes_m)), lane.op()],
        );
        (f.thread_n, f.chunk_n)
    };
    // read = (wave_coord * wave_tile + lane index * chunk) * es + lds_base
    g.op(
        Op::SLshlB32,
        [
            g.tmp.at(0).op(),
            wave_coord.op(),
            Operand::Int(log2(wave_tile)),
        ],
    );
    g.op(
        Op::VLshlAddU32,
        [
            vt.op(),
            vt.op(),
            Operand::Int(log2(chunk)),
            g.tmp.at(0).op(),
        ],
    );
    g.vshl(read, vt, p.es.trailing_zeros());
    if lds_base > 0 {
        g.vadd_const(read, read, lds_base);
    }
    let regs = (per * p.es / 4) as u8;
    Ok(vec![vec![g.k.vgprs(regs)?, g.k.vgprs(regs)?]])
}

/// The FMA kernel's tile: for each k, the LDS reads of the lane's A and B chunks (one
/// per chunk of at most 16 bytes, the widest LDS access; chunk `c` is `c·lanes·chunk`
/// elements from the first), issued one k ahead into the other register set, then
/// `thread_m × thread_n` FMAs; each k waits only for its own reads.
fn fma_compute(g: &mut Gen, f: FmaTile, sides: &[Side], acc: &[Acc]) {
    let p = g.p;
    let er = (p.es / 4) as u8;
    let reads = |g: &mut Gen, kstep: u32| -> u32 {
        let set = (kstep % 2) as usize;
        let mut count = 0;
        for s in sides {
            let regs = s.ops[0][set];
            let bytes = u32::from(regs.count()) * 4;
            let chunk = bytes.min(16);
            let lanes = if s.name == 'a' { f.lanes_m } else { f.lanes_n };
            for i in 0..bytes / chunk {
                g.k.ds_read(
                    Gen::ds_read_op(chunk),
                    regs.sub((i * chunk / 4) as u8, (chunk / 4) as u8),
                    s.read,
                    (kstep * s.plan.pitch + i * lanes * chunk) as u16,
                );
                count += 1;
            }
        }
        count
    };
    reads(g, 0);
    for kstep in 0..p.tile_k {
        if kstep + 1 < p.tile_k {
            let ahead = reads(g, kstep + 1);
            g.k.wait_lgkm(ahead as u8);
        } else {
            g.k.wait_lgkm(0);
        }
        let set = (kstep % 2) as usize;
        let (a, b) = (sides[0].ops[0][set], sides[1].ops[0][set]);
        for j in 0..f.thread_n as u8 {
            for i in 0..f.thread_m as u8 {
                let di = acc[j as usize].sub(i * er, er);
                g.op(
                    p.op,
                    [
                        di.op(),
                        a.sub(i * er, er).op(),
                        b.sub(j * er, er).op(),
                        di.op(),
                    ],
                );
            }
        }
    }
}

/// Issues the global loads of the next k tile into the staging registers (the fast path
/// when the tile lies inside the matrix, the edge path otherwise), then advances the
/// pointers and the k count.
fn load_tile(g: &mut Gen, sides: &mut [Side]) -> Result<()> {
    let p = g.p;
    let (tmp, kpart, krem) = (g.tmp, g.kpart, g.krem);
    g.op(Op::SCmpLtU32, [krem.op(), imm(p.tile_k)]);
    g.op(
        Op::SCselectB32,
        [kpart.op(), Operand::Int(1), Operand::Int(0)],
    );
    for s in sides.iter() {
        let safe = g.label(&format!("{SAFE_PREFIX}{}", s.name));
        let join = g.label(&format!("{JOIN_PREFIX}{}", s.name));
        g.op(Op::SOrB32, [tmp.at(0).op(), kpart.op(), s.edge.op()]);
        g.k.cbranch(Op::SCbranchScc1, safe);
        fast_loads(g, s);
        g.k.branch(join);
        g.k.bind(safe);
        safe_loads(g, s)?;
        g.k.bind(join);
    }
    for s in sides.iter() {
        g.add64(s.ptr, s.step);
    }
    g.op(Op::SSubU32, [krem.op(), krem.op(), imm(p.tile_k)]);
    Ok(())
}

fn fast_loads(g: &mut Gen, s: &Side) {
    let p = g.p;
    let bytes = s.plan.vw * p.es;
    let vec_dwords = bytes.div_ceil(4) as u8;
    for (w, offs) in s.offs.iter().enumerate() {
        for (r, &off) in offs.iter().enumerate() {
            let dst = s.staging[w].sub(r as u8 * vec_dwords, vec_dwords);
            g.k.global_load(Gen::gload_op(bytes), dst, off, s.ptr, 0);
        }
    }
}

/// Element by element: lanes whose element lies outside the matrix (mn ≥ rem or
/// k ≥ krem) load nothing and keep the zero written first. 16-bit elements go to
/// temporaries and are packed in pairs per vector.
fn safe_loads(g: &mut Gen, s: &Side) -> Result<()> {
    let p = g.p;
    let (vt, vt2) = (g.vt, g.vt2);
    let vectors = s.plan.vectors(p.word_k);
    let vec_dwords = (s.plan.vw * p.es).div_ceil(4) as u8;
    let vcc = g.k.vcc();
    for w in 0..s.plan.units {
        for r in 0..vectors {
            let vector = s.staging[w as usize].sub(r as u8 * vec_dwords, vec_dwords);
            for c in 0..s.plan.vw {
                // (mn, k) of this element relative to the tile.
                let (dmn, dk) = if s.plan.mn_contig {
                    (c, w * s.plan.ostep * p.word_k + r)
                } else {
                    (w * s.plan.ostep, c)
                };
                g.vadd_const(vt, s.mn0, dmn);
                g.vadd_const(vt2, s.k0, dk);
                // Destination: a 16-bit temporary, or the staging register(s).
                let dst = if p.es == 2 {
                    g.temps[c as usize]
                } else {
                    let per = (p.es / 4) as u8;
                    vector.sub(c as u8 * per, per)
                };
                for i in 0..dst.count() {
                    g.op(Op::VMovB32, [dst.at(i).op(), Operand::Int(0)]);
                }
                g.op(Op::VCmpGtU32, [vcc, s.rem.op(), vt.op()]);
                g.and_saveexec();
                g.op(Op::VCmpGtU32, [vcc, g.krem.op(), vt2.op()]);
                g.and_exec_vcc();
                // Byte offset: (contig + strided * ld) * es.
                let (strided, contig) = if s.plan.mn_contig {
                    (vt2, vt)
                } else {
                    (vt, vt2)
                };
                g.op(Op::VMulLoU32, [strided.op(), s.ld.op(), strided.op()]);
                g.op(
                    Op::VAddLshlU32,
                    [vt.op(), strided.op(), contig.op(), Operand::Int(log2(p.es))],
                );
                g.k.global_load(Gen::gload_op(p.es), dst, vt, s.ptr, 0);
                g.restore_exec();
            }
            if p.es == 2 {
                // Pack pairs: dword = lo | hi << 16, in the fast path's order.
                g.k.wait_vm(0);
                for c in (0..s.plan.vw).step_by(2) {
                    let lo = g.temps[c as usize];
                    let dst = vector.at((c / 2) as u8);
                    if s.plan.vw == 1 {
                        g.op(Op::VMovB32, [dst.op(), lo.op()]);
                    } else {
                        let hi = g.temps[c as usize + 1];
                        g.op(
                            Op::VLshlOrB32,
                            [dst.op(), hi.op(), Operand::Int(16), lo.op()],
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// Staging registers → LDS (after `s_waitcnt vmcnt(0)`), packing k values into words
/// first where the operand is stored mn-contiguous.
fn write_lds(g: &mut Gen, sides: &[Side]) {
    let p = g.p;
    for s in sides {
        let plan = s.plan;
        let vec_dwords = (plan.vw * p.es).div_ceil(4) as u8;
        for w in 0..plan.units as usize {
            if plan.mn_contig {
                let unit_off = w as u32 * plan.ostep * plan.pitch;
                let data = match s.packed[w] {
                    None => s.staging[w],
                    Some(pk) => {
                        pack_words(g, s.staging[w], pk, plan.vw, vec_dwords);
                        pk
                    }
                };
                let total = plan.vw * p.wbytes;
                let chunk = total.min(16);
                for i in 0..total / chunk {
                    g.k.ds_write(
                        Gen::ds_write_op(chunk),
                        s.write,
                        data.sub((i * chunk / 4) as u8, (chunk / 4) as u8),
                        (unit_off + i * chunk) as u16,
                    );
                }
            } else {
                let unit_off = w as u32 * plan.ostep * p.wbytes;
                for q in 0..plan.vw / p.word_k {
                    let wd = (p.wbytes / 4) as u8;
                    g.k.ds_write(
                        Gen::ds_write_op(p.wbytes),
                        s.write,
                        s.staging[w].sub(q as u8 * wd, wd),
                        (unit_off + q * plan.pitch) as u16,
                    );
                }
            }
        }
    }
}

/// Transposes `word_k` vectors of `vw` elements (consecutive k) into `vw` words of
/// `word_k` consecutive k values (word c = element c of every vector).
fn pack_words(g: &mut Gen, staging: Vgpr, packed: Vgpr, vw: u32, vec_dwords: u8) {
    let p = g.p;
    let dwords_per_word = p.wbytes / 4;
    for c in 0..vw {
        for q in 0..dwords_per_word {
            let dst = packed.at((c * dwords_per_word + q) as u8);
            if p.es == 2 {
                // Dword q of word c holds k = 2q, 2q+1 of element c.
                let lo = staging.at((2 * q) as u8 * vec_dwords + (c / 2) as u8);
                let hi = staging.at((2 * q + 1) as u8 * vec_dwords + (c / 2) as u8);
                let sel = if c % 2 == 0 { g.sel_lo } else { g.sel_hi };
                if let Some(sel) = sel {
                    g.op(Op::VPermB32, [dst.op(), hi.op(), lo.op(), sel.op()]);
                }
            } else {
                // Dword q of word c: dword q % per of element c of vector q / per.
                let per = p.es / 4;
                let src = staging.at(((q / per) * u32::from(vec_dwords) + c * per + q % per) as u8);
                g.op(Op::VMovB32, [dst.op(), src.op()]);
            }
        }
    }
}

/// Moves the read and/or write addresses to the other LDS stage: each adds its delta
/// (± the stage stride), which then changes sign.
fn toggle(g: &mut Gen, sides: &[Side], write: bool, read: bool) {
    let (wd, rd) = g.deltas;
    for (on, delta, is_write) in [(write, wd, true), (read, rd, false)] {
        if !on {
            continue;
        }
        for s in sides {
            let addr = if is_write { s.write } else { s.read };
            g.op(Op::VAddU32, [addr.op(), delta.op(), addr.op()]);
        }
        g.op(Op::SSubI32, [delta.op(), Operand::Int(0), delta.op()]);
    }
}

/// LDS → operand registers for the whole tile, then the matrix instructions step by step,
/// each step waiting only for its own reads. Lane slice `h` of step `s` reads word row
/// `(s / spw)·slices·wpl + h·wpl + r` (r < wpl): a word of `spw` steps feeds them from its
/// consecutive `kl`-runs. A and B use the same rows, so each step pairs the same k values.
fn compute(g: &mut Gen, sides: &[Side], acc: &[Acc]) {
    let p = g.p;
    if let Some(f) = p.fma {
        fma_compute(g, f, sides, acc);
        return;
    }
    let wd = (p.wbytes / 4) as u8;
    let inst_mn = [p.shape.m, p.shape.n];
    let groups = p.steps / p.spw;
    let mut issued = Vec::new();
    let mut count = 0u32;
    for group in 0..groups {
        for (si, s) in sides.iter().enumerate() {
            for (blk, regs) in s.ops.iter().enumerate() {
                for r in 0..p.wpl {
                    let row = group * p.slices * p.wpl + r;
                    let off = row * s.plan.pitch + blk as u32 * inst_mn[si] * p.wbytes;
                    g.k.ds_read(
                        Gen::ds_read_op(p.wbytes),
                        regs[group as usize].sub(r as u8 * wd, wd),
                        s.read,
                        off as u16,
                    );
                    count += 1;
                }
            }
        }
        issued.push(count);
    }
    let max_lgkm = if p.target.family() == IsaFamily::Gfx11 {
        63
    } else {
        15
    };
    let step_regs = (p.kl * p.es).div_ceil(4) as u8;
    for step in 0..p.steps {
        let group = (step / p.spw) as usize;
        let part = (step % p.spw) as u8 * step_regs;
        if step % p.spw == 0 {
            let outstanding = (count - issued[group]).min(max_lgkm);
            g.k.wait_lgkm(outstanding as u8);
        }
        for bm in 0..p.blocks_m as usize {
            for bn in 0..p.blocks_n as usize {
                let d = acc[bm * p.blocks_n as usize + bn];
                let a = sides[0].ops[bm][group].sub(part, step_regs);
                let b = sides[1].ops[bn][group].sub(part, step_regs);
                g.op(p.op, [d.op(), a.op(), b.op(), d.op()]);
            }
        }
    }
}

/// Epilogue registers, shared by its four variants.
#[derive(Clone, Copy)]
struct Scratch {
    addr: Vgpr,
    cbuf: Vgpr,
    obuf: Vgpr,
    x: Vgpr,
    av: Vgpr,
    h: Vgpr,
}

impl Scratch {
    fn new(g: &mut Gen, pool: &mut Pool, cd: &CdMap) -> Result<Scratch> {
        let es_c = g.p.es_c;
        let elem_regs = cd.elem_regs;
        let max_run = cd.runs.iter().map(|r| r.1).max().unwrap_or(1);
        let buf = ((max_run * es_c).div_ceil(4)).max(elem_regs) as u8;
        Ok(Scratch {
            addr: pool.take(g, 1)?,
            cbuf: pool.take(g, buf)?,
            obuf: pool.take(g, buf)?,
            x: pool.take(g, elem_regs as u8)?,
            av: pool.take(g, elem_regs as u8)?,
            h: pool.take(g, 1)?,
        })
    }
}

/// VGPRs free again after the main loop, handed out before fresh ones.
struct Pool {
    free: Vec<Vgpr>,
}

impl Pool {
    /// `n` registers from the first free range that holds them at the target's tuple
    /// alignment (even for 2+ on gfx90a/gfx942), else fresh ones.
    fn take(&mut self, g: &mut Gen, n: u8) -> Result<Vgpr> {
        let align = if n >= 2 && g.p.target.aligned_vector_tuples() {
            2
        } else {
            1
        };
        for r in &mut self.free {
            let skip = ((align - r.first() % align) % align) as u8;
            if r.count() >= skip + n {
                let v = r.sub(skip, n);
                *r = r.sub(skip + n, r.count() - skip - n);
                return Ok(v);
            }
        }
        g.k.vgprs(n)
    }
}

/// Epilogue inputs.
struct Epi {
    scratch: Scratch,
    c_ptr: Sgpr,
    ldc: Sgpr,
    alpha: Sgpr,
    beta: Sgpr,
    m_rem: Sgpr,
    n_rem: Sgpr,
    erow: Vgpr,
    ecol: Vgpr,
    cd: CdMap,
    blocks: EpiBlocks,
}

/// How the accumulator tuples tile the lane's part of C: `cols` tuples along n,
/// `col_step` columns apart inside groups of `col_chunk.0` tuples whose starts are
/// `col_chunk.1` columns apart ([`EpiBlocks::col`]), each `rows` tuples along m,
/// `row_step` rows apart (tuple `row · cols + col`); inside a tuple, rows by [`CdMap`].
struct EpiBlocks {
    cols: u32,
    col_step: u32,
    col_chunk: (u32, u32),
    rows: u32,
    row_step: u32,
}

impl EpiBlocks {
    /// Column offset of tuple column `bn` from the lane's first column.
    fn col(&self, bn: u32) -> u32 {
        let (chunk, stride) = self.col_chunk;
        (bn / chunk) * stride + (bn % chunk) * self.col_step
    }
}

/// D = α·acc + β·C for every accumulator element: `edge` masks each element by
/// `row < m` and `col < n` (element stores), else whole runs of rows are stored as
/// vectors; `read_c` is false for β = 0, which never touches C.
fn epilogue(g: &mut Gen, e: &Epi, acc: &[Acc], edge: bool, read_c: bool) -> Result<()> {
    let p = g.p;
    let es_c = p.es_c;
    let Scratch {
        addr,
        cbuf,
        obuf,
        x,
        av,
        h,
    } = e.scratch;
    let vcc = g.k.vcc();
    let (tmp, vt) = (g.tmp, g.vt);
    // Registers of one C element.
    let one = es_c.div_ceil(4) as u8;
    let EpiBlocks {
        cols,
        rows,
        row_step,
        ..
    } = e.blocks;
    for bn in 0..cols {
        let col = e.blocks.col(bn);
        // addr = (erow + (ecol + col) * ldc) * es_c
        g.vadd_const(vt, e.ecol, col);
        g.op(Op::VMulLoU32, [vt.op(), e.ldc.op(), vt.op()]);
        g.op(
            Op::VAddLshlU32,
            [addr.op(), vt.op(), e.erow.op(), Operand::Int(log2(es_c))],
        );
        if edge {
            g.op(Op::SSubI32, [tmp.at(1).op(), e.n_rem.op(), imm(col)]);
        }
        for bm in 0..rows {
            let a = acc[(bm * cols + bn) as usize];
            for &(first, len, row) in &e.cd.runs {
                let row_off = bm * row_step + row;
                if edge {
                    for i in 0..len {
                        let r = row_off + i;
                        g.op(Op::SSubI32, [tmp.at(0).op(), e.m_rem.op(), imm(r)]);
                        g.op(Op::VCmpGtI32, [vcc, tmp.at(0).op(), e.erow.op()]);
                        g.and_saveexec();
                        g.op(Op::VCmpGtI32, [vcc, tmp.at(1).op(), e.ecol.op()]);
                        g.and_exec_vcc();
                        if read_c {
                            g.k.global_load(
                                Gen::gload_op(es_c),
                                cbuf.sub(0, one),
                                addr,
                                e.c_ptr,
                                (r * es_c) as i32,
                            );
                            g.k.wait_vm(0);
                        }
                        element(
                            g,
                            e,
                            a,
                            (first + i) * e.cd.elem_regs,
                            cbuf,
                            0,
                            read_c,
                            x,
                            av,
                            h,
                            obuf,
                            0,
                        );
                        g.k.global_store(
                            Gen::gstore_op(es_c),
                            addr,
                            obuf.sub(0, one),
                            e.c_ptr,
                            (r * es_c) as i32,
                        );
                        g.restore_exec();
                    }
                } else {
                    let bytes = len * es_c;
                    if read_c {
                        let n = bytes.div_ceil(4) as u8;
                        g.k.global_load(
                            Gen::gload_op(bytes),
                            cbuf.sub(0, n),
                            addr,
                            e.c_ptr,
                            (row_off * es_c) as i32,
                        );
                        g.k.wait_vm(0);
                    }
                    for i in 0..len {
                        element(
                            g,
                            e,
                            a,
                            (first + i) * e.cd.elem_regs,
                            cbuf,
                            i,
                            read_c,
                            x,
                            av,
                            h,
                            obuf,
                            i,
                        );
                    }
                    let n = bytes.div_ceil(4) as u8;
                    g.k.global_store(
                        Gen::gstore_op(bytes),
                        addr,
                        obuf.sub(0, n),
                        e.c_ptr,
                        (row_off * es_c) as i32,
                    );
                }
            }
        }
    }
    Ok(())
}

/// One output element: x = α·acc[reg] (+ β·C element `ci` of `cbuf`), converted to C's
/// type into element `oi` of `obuf`.
#[allow(clippy::too_many_arguments)]
fn element(
    g: &mut Gen,
    e: &Epi,
    a: Acc,
    reg: u32,
    cbuf: Vgpr,
    ci: u32,
    read_c: bool,
    x: Vgpr,
    av: Vgpr,
    h: Vgpr,
    obuf: Vgpr,
    oi: u32,
) {
    let p = g.p;
    let er = e.cd.elem_regs as u8;
    let src = match a {
        Acc::V(v) => v.sub(reg as u8, er),
        Acc::A(ag) => {
            for i in 0..er {
                g.op(
                    Op::VAccvgprReadB32,
                    [av.at(i).op(), ag.at(reg as u8 + i).op()],
                );
            }
            av
        }
    };
    if p.f64 {
        let (ci, oi) = (2 * ci as u8, 2 * oi as u8);
        g.op(Op::VMulF64, [x.op(), e.alpha.op(), src.op()]);
        if read_c {
            g.op(
                Op::VFmaF64,
                [x.op(), e.beta.op(), cbuf.sub(ci, 2).op(), x.op()],
            );
        }
        g.op(Op::VMovB32, [obuf.at(oi).op(), x.at(0).op()]);
        g.op(Op::VMovB32, [obuf.at(oi + 1).op(), x.at(1).op()]);
        return;
    }
    g.op(Op::VMulF32, [x.op(), e.alpha.op(), src.op()]);
    if read_c {
        // C element ci as f32.
        let c = match p.c {
            DType::F32 => cbuf.at(ci as u8),
            DType::F16 => {
                let word = cbuf.at((ci / 2) as u8);
                if ci % 2 == 1 {
                    g.op(Op::VLshrrevB32, [h.op(), Operand::Int(16), word.op()]);
                    g.cvt(Op::VCvtF32F16, h, h);
                } else {
                    g.cvt(Op::VCvtF32F16, h, word);
                }
                h
            }
            _ => {
                let word = cbuf.at((ci / 2) as u8);
                if ci % 2 == 1 {
                    g.op(
                        Op::VAndB32,
                        [h.op(), Operand::Literal(0xffff_0000), word.op()],
                    );
                } else {
                    g.op(Op::VLshlrevB32, [h.op(), Operand::Int(16), word.op()]);
                }
                h
            }
        };
        g.op(Op::VFmaF32, [x.op(), e.beta.op(), c.op(), x.op()]);
    }
    match p.c {
        DType::F32 => g.op(Op::VMovB32, [obuf.at(oi as u8).op(), x.op()]),
        DType::F16 => {
            g.cvt(Op::VCvtF16F32, h, x);
            let dst = obuf.at((oi / 2) as u8);
            if oi % 2 == 0 {
                g.op(Op::VMovB32, [dst.op(), h.op()]);
            } else {
                g.op(Op::VPackB32F16, [dst.op(), dst.op(), h.op()]);
            }
        }
        _ => {
            // bf16, round to nearest even; NaN stays a (quiet) NaN.
            g.op(
                Op::VBfeU32,
                [h.op(), x.op(), Operand::Int(16), Operand::Int(1)],
            );
            let round = g.round.map_or(Operand::Literal(0x7fff), |r| r.op());
            g.op(Op::VAdd3U32, [h.op(), x.op(), h.op(), round]);
            g.op(Op::VLshrrevB32, [h.op(), Operand::Int(16), h.op()]);
            let vcc = g.k.vcc();
            g.op(Op::VCmpNeqF32, [vcc, x.op(), x.op()]);
            g.op(Op::VLshrrevB32, [x.op(), Operand::Int(16), x.op()]);
            g.op(Op::VOrB32, [x.op(), Operand::Int(0x40), x.op()]);
            g.op(Op::VCndmaskB32, [h.op(), h.op(), x.op(), vcc]);
            let dst = obuf.at((oi / 2) as u8);
            if oi % 2 == 0 {
                g.op(Op::VMovB32, [dst.op(), h.op()]);
            } else {
                g.op(
                    Op::VLshlOrB32,
                    [dst.op(), h.op(), Operand::Int(16), dst.op()],
                );
            }
        }
    }
}
