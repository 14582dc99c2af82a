//! Every sample kernel on every target it supports, printed as LLVM assembly, built by
//! `llvm-mc-19` + `ld.lld-19`, and read back: the instruction bytes, descriptor and
//! metadata must equal what our assembler built. Skips (with a printed reason) when the
//! LLVM tools are missing; CI installs them.

use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_kernels::amdgpu::samples::{self, tile_targets};
use rocm_kernels::amdgpu::{AssembledKernel, Assembler};
mod common;

use common::{agree, tools_present};

macro_rules! need_tools {
    () => {
        if !tools_present() {
            println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
            return;
        }
    };
}

#[test]
fn vector_add_and_reduction_match_llvm_on_every_target() {
    need_tools!();
    for t in IsaTarget::ALL {
        let va = samples::vector_add(t).unwrap();
        let red = samples::reduce_sum(t).unwrap();
        agree(&[va, red]);
    }
}

#[test]
fn matrix_tiles_match_llvm() {
    need_tools!();
    let pairs = tile_targets();
    // Every gfx9 target has f32, f16, bf16; f64 on gfx90a/942; xf32 on gfx942; WMMA on gfx11.
    assert_eq!(pairs.len(), 3 * 3 + 2 + 1 + 3 * 4, "{pairs:?}");
    for (kind, t) in pairs {
        agree(&[samples::matrix_tile(t, kind).unwrap()]);
    }
}

#[test]
fn fault_samples_match_llvm() {
    need_tools!();
    for t in IsaTarget::ALL {
        agree(&[samples::missing_waitcnt(t).unwrap()]);
        agree(&[samples::oob_store(t).unwrap()]);
        if t.family() == rocm_core::isa::amdgpu::IsaFamily::Gfx9 {
            agree(&[samples::missing_mfma_nop(t).unwrap()]);
        }
    }
}

// ---- assembler unit tests (no LLVM needed) ----------------------------------------------

fn branch_offset(k: &AssembledKernel, idx: usize) -> i32 {
    match k.code[idx].instr.operands[0] {
        Operand::Imm(x) => x,
        ref o => panic!("not a branch offset: {o:?}"),
    }
}

#[test]
fn branch_offsets_forward_and_backward() {
    let t = IsaTarget::Gfx90a;
    let mut k = Assembler::new(t, "branches", 64, 1).unwrap();
    let s = k.sgprs(1).unwrap();
    let top = k.label("top");
    let end = k.label("done");
    k.op(Op::SMovB32, [s.op(), Operand::Int(3)]); // 0: 1 dword
    k.bind(top);
    k.op(Op::SSubU32, [s.op(), s.op(), Operand::Int(1)]); // 1: pc 4
    k.op(Op::SCmpEqU32, [s.op(), Operand::Literal(1000)]); // 2: pc 8, 2 dwords
    k.cbranch(Op::SCbranchScc1, end); // 3: pc 16
    k.branch(top); // 4: pc 20
    k.bind(end);
    k.s_endpgm(); // 5: pc 24
    let built = k.finish().unwrap();
    assert_eq!(built.code[3].pc, 16);
    // Forward: (24 - (16 + 4)) / 4 = 1. Backward: (4 - (20 + 4)) / 4 = -5.
    assert_eq!(branch_offset(&built, 3), 1);
    assert_eq!(branch_offset(&built, 4), -5);
    assert!(built.listing.contains("s_branch top"), "{}", built.listing);
}

#[test]
fn unbound_and_twice_bound_labels_are_errors() {
    let t = IsaTarget::Gfx1100;
    let mut k = Assembler::new(t, "bad", 32, 1).unwrap();
    let l = k.label("nowhere");
    k.branch(l);
    k.s_endpgm();
    let e = k.finish().unwrap_err().to_string();
    assert!(e.contains("nowhere"), "{e}");
    let mut k = Assembler::new(t, "bad", 32, 1).unwrap();
    let l = k.label("twice");
    k.bind(l);
    k.s_endpgm();
    k.bind(l);
    assert!(k.finish().is_err());
}

#[test]
fn duplicate_and_reserved_label_names_are_errors() {
    // `end` is the printer's own `.L<kernel>_end`; two labels of one name print the same
    // `.L` label twice. Either would make llvm-mc reject or misplace our text.
    for names in [["end", "other"], ["again", "again"]] {
        let mut k = Assembler::new(IsaTarget::Gfx90a, "labels", 64, 1).unwrap();
        let first = k.label(names[0]);
        let second = k.label(names[1]);
        k.cbranch(Op::SCbranchScc1, first);
        k.bind(first);
        k.branch(second);
        k.bind(second);
        k.s_endpgm();
        let e = k.finish().unwrap_err().to_string();
        assert!(e.contains(&format!("`{}`", names[0])), "{e}");
    }
}

#[test]
fn misaligned_tuples_are_rejected_with_the_instruction() {
    let t = IsaTarget::Gfx942;
    let mut k = Assembler::new(t, "bad", 64, 1).unwrap();
    let p = k.arg_pointer("p").unwrap();
    k.wait_lgkm(0);
    k.global_load(
        Op::GlobalLoadDwordx2,
        rocm_kernels::amdgpu::Vgpr::range(1, 2),
        rocm_kernels::amdgpu::Vgpr::one(0),
        p,
        0,
    );
    k.s_endpgm();
    let e = k.finish().unwrap_err().to_string();
    assert!(e.contains("v[1:2]") && e.contains("multiple of 2"), "{e}");
    // gfx908 accepts the same tuple.
    let mut k = Assembler::new(IsaTarget::Gfx908, "ok", 64, 1).unwrap();
    let p = k.arg_pointer("p").unwrap();
    k.wait_lgkm(0);
    k.global_load(
        Op::GlobalLoadDwordx2,
        rocm_kernels::amdgpu::Vgpr::range(1, 2),
        rocm_kernels::amdgpu::Vgpr::one(0),
        p,
        0,
    );
    k.wait_vm(0);
    k.s_endpgm();
    k.finish().unwrap();
}

#[test]
fn allocations_follow_alignment_and_launch_state() {
    let mut k = Assembler::new(IsaTarget::Gfx908, "alloc", 64, 3).unwrap();
    // gfx908: work-item ids in v0..v2, so the first free VGPR is v3.
    assert_eq!(k.vgprs(1).unwrap().first(), 3);
    assert_eq!(k.workitem_id(2).unwrap().first(), 2);
    // s[0:1] kernarg, s2..s4 workgroup ids: a pair starts at s6.
    assert_eq!(k.sgprs(2).unwrap().first(), 6);
    assert_eq!(k.workgroup_id(1).unwrap().first(), 3);
    let mut k = Assembler::new(IsaTarget::Gfx90a, "alloc", 64, 2).unwrap();
    assert_eq!(k.vgprs(1).unwrap().first(), 1);
    assert_eq!(k.vgprs(2).unwrap().first(), 2);
    assert_eq!(k.sgprs(4).unwrap().first(), 4);
    assert!(k.workgroup_id(2).is_err());
}

#[test]
fn kernel_arguments_lay_out_naturally() {
    let mut k = Assembler::new(IsaTarget::Gfx1100, "args", 32, 1).unwrap();
    let n = k.arg_u32("n").unwrap();
    let p = k.arg_pointer("p").unwrap();
    let m = k.arg_u32("m").unwrap();
    k.wait_lgkm(0);
    k.s_endpgm();
    let built = k.finish().unwrap();
    let args = &built.kernel.metadata.args;
    assert_eq!(
        args.iter().map(|a| (a.offset, a.size)).collect::<Vec<_>>(),
        [(0, 4), (8, 8), (16, 4)]
    );
    assert_eq!(built.resources.kernarg_bytes, 20);
    assert_eq!(n.first(), 3);
    assert_eq!(p.first(), 4);
    assert_eq!(m.first(), 6);
    // The loads read the offsets of the layout.
    let offs: Vec<i32> = built.code[..3]
        .iter()
        .map(|p| p.instr.mods.offset)
        .collect();
    assert_eq!(offs, [0, 8, 16]);
}

#[test]
fn resources_count_the_registers_named() {
    let t = IsaTarget::Gfx90a;
    let k = samples::matrix_tile(t, samples::TileKind::MfmaF16).unwrap();
    let r = &k.resources;
    // The highest VGPR named is the end of the 16-register D tuple.
    let max_v = k
        .code
        .iter()
        .flat_map(|p| p.instr.operands.iter())
        .filter_map(|o| match o {
            Operand::Vgpr(r) => Some(r.end()),
            _ => None,
        })
        .max()
        .unwrap();
    assert_eq!(u32::from(r.vgprs), max_v);
    assert_eq!(r.agprs, 0);
    assert_eq!(r.kernarg_bytes, 24);
    let red = samples::reduce_sum(IsaTarget::Gfx1100).unwrap();
    assert_eq!(red.resources.group_segment_bytes, 1024);
    assert!(red.resources.reserve_vcc);
    assert_eq!(red.report.waves_per_workgroup, 8);
    let red9 = samples::reduce_sum(IsaTarget::Gfx942).unwrap();
    assert_eq!(red9.report.waves_per_workgroup, 4);
    let m908 = samples::matrix_tile(IsaTarget::Gfx908, samples::TileKind::MfmaF32).unwrap();
    assert_eq!(m908.resources.agprs, 16);
}

/// A load whose result is used without `s_waitcnt`, as `finish` must reject it.
fn unwaited(t: IsaTarget, wait: bool, through_branch: bool) -> rocm_core::Result<AssembledKernel> {
    let mut k = Assembler::new(t, "unwaited", t.wave_size(), 1)?;
    let p = k.arg_pointer("p")?;
    let tid = k.workitem_id(0)?;
    let x = k.vgprs(1)?;
    k.wait_lgkm(0);
    k.global_load(Op::GlobalLoadDword, x, tid, p, 0);
    if through_branch {
        // The load is outstanding on both paths into `join`.
        let join = k.label("join");
        k.cbranch(Op::SCbranchScc1, join);
        k.op(Op::SNop, [Operand::Imm(0)]);
        k.bind(join);
    }
    if wait {
        k.wait_vm(0);
    }
    k.op(Op::VAddF32, [x.op(), x.op(), x.op()]);
    k.global_store(Op::GlobalStoreDword, tid, x, p, 0);
    k.s_endpgm();
    k.finish()
}

#[test]
fn a_missing_waitcnt_is_rejected_naming_the_instruction() {
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        unwaited(t, true, false).unwrap();
        unwaited(t, true, true).unwrap();
        for branch in [false, true] {
            let e = unwaited(t, false, branch).unwrap_err().to_string();
            let add = if branch { "#6" } else { "#4" };
            assert!(
                e.contains(add) && e.contains("v_add_f32") && e.contains("s_waitcnt"),
                "{t}: {e}"
            );
        }
    }
    // The unchecked build keeps it as written.
    let k = samples::missing_waitcnt(IsaTarget::Gfx942).unwrap();
    assert!(!k.code.iter().any(|p| p.instr.op == Op::SWaitcnt
        && matches!(p.instr.operands[0], Operand::Waitcnt(w) if w.vm == 0)));
}

/// Wait states of the `s_nop`s inserted right before code index `idx`.
fn nops_before(k: &AssembledKernel, idx: usize) -> u32 {
    k.code[..idx]
        .iter()
        .rev()
        .take_while(|p| p.instr.op == Op::SNop && p.inserted_for.is_some())
        .map(|p| match p.instr.operands[0] {
            Operand::Imm(n) => n as u32 + 1,
            _ => 0,
        })
        .sum()
}

/// MFMA 32x32x8 f16 whose D is stored (gfx90a/942) or read out (gfx908) right after.
fn mfma_then_read(t: IsaTarget) -> AssembledKernel {
    let mut k = Assembler::new(t, "mfma_read", 64, 1).unwrap();
    let p = k.arg_pointer("p").unwrap();
    let tid = k.workitem_id(0).unwrap();
    let ab = k.vgprs(4).unwrap();
    k.wait_lgkm(0);
    k.global_load(Op::GlobalLoadDwordx4, ab, tid, p, 0);
    k.wait_vm(0);
    let d = k.vgprs(16).unwrap();
    if t == IsaTarget::Gfx908 {
        let acc = k.agprs(16).unwrap();
        k.op(
            Op::VMfmaF32_32x32x8F16,
            [acc.op(), ab.sub(0, 2).op(), ab.sub(2, 2).op(), acc.op()],
        );
        k.op(Op::VAccvgprReadB32, [d.at(0).op(), acc.at(0).op()]);
    } else {
        k.op(
            Op::VMfmaF32_32x32x8F16,
            [
                d.op(),
                ab.sub(0, 2).op(),
                ab.sub(2, 2).op(),
                Operand::Int(0),
            ],
        );
    }
    k.global_store(Op::GlobalStoreDword, tid, d.at(0), p, 0);
    k.s_endpgm();
    k.finish().unwrap()
}

#[test]
fn mfma_result_hazard_nops_match_clang() {
    // clang-19 -O2 for a 32x32x8 f16 MFMA whose D is read next (amdgpu.md §1.3):
    // gfx908 s_nop 7; s_nop 7; s_nop 1 (18), gfx90a s_nop 7; s_nop 7; s_nop 2 (19),
    // gfx942 s_nop 7; s_nop 2 (11 wait states as NOPs).
    for (t, waits) in [
        (IsaTarget::Gfx908, 18),
        (IsaTarget::Gfx90a, 19),
        (IsaTarget::Gfx942, 11),
    ] {
        let k = mfma_then_read(t);
        let mfma = k
            .code
            .iter()
            .position(|p| p.instr.op == Op::VMfmaF32_32x32x8F16)
            .unwrap();
        let nops = k.code[mfma + 1..]
            .iter()
            .take_while(|p| p.instr.op == Op::SNop)
            .count();
        let reader = mfma + 1 + nops;
        assert_eq!(nops_before(&k, reader), waits, "{t}\n{}", k.listing);
        assert!(k.code[reader].inserted_for.is_none());
        // Unchecked: the same code without the NOPs.
        let raw = samples::missing_mfma_nop(t).unwrap();
        assert!(raw.code.iter().all(|p| p.instr.op != Op::SNop));
    }
}

#[test]
fn hazards_on_a_back_edge_get_nops_at_the_loop_top() {
    let t = IsaTarget::Gfx90a;
    let mut k = Assembler::new(t, "loop", 64, 1).unwrap();
    let p = k.arg_pointer("p").unwrap();
    let tid = k.workitem_id(0).unwrap();
    let n = k.sgprs(1).unwrap();
    let ab = k.vgprs(2).unwrap();
    let d = k.vgprs(4).unwrap();
    k.op(
        Op::VMovB32,
        [
            ab.at(0).op(),
            Operand::Float(rocm_core::isa::amdgpu::InlineFloat::One),
        ],
    );
    k.op(
        Op::VMovB32,
        [
            ab.at(1).op(),
            Operand::Float(rocm_core::isa::amdgpu::InlineFloat::Two),
        ],
    );
    for r in 0..4 {
        k.op(Op::VMovB32, [d.at(r).op(), Operand::Int(0)]);
    }
    k.op(Op::SMovB32, [n.op(), Operand::Int(3)]);
    k.wait_lgkm(0);
    let top = k.label("top");
    k.bind(top);
    // Reads D: right after the MFMA at the loop's end when coming round the back edge.
    k.global_store(Op::GlobalStoreDword, tid, d.at(0), p, 0);
    k.op(
        Op::VMfmaF32_16x16x4F32,
        [d.op(), ab.at(0).op(), ab.at(1).op(), d.op()],
    );
    k.op(Op::SSubU32, [n.op(), n.op(), Operand::Int(1)]);
    k.op(Op::SCmpLgU32, [n.op(), Operand::Int(0)]);
    k.cbranch(Op::SCbranchScc1, top);
    k.s_endpgm();
    let built = k.finish().unwrap();
    let store = built
        .code
        .iter()
        .position(|p| p.instr.op == Op::GlobalStoreDword)
        .unwrap();
    assert!(nops_before(&built, store) > 0, "{}", built.listing);
    // The label sits on the first NOP, and the back branch goes there.
    let first_nop = built.code[..store]
        .iter()
        .rposition(|p| p.inserted_for.is_none())
        .unwrap()
        + 1;
    assert_eq!(built.code[first_nop].labels, ["top"]);
    let br = built
        .code
        .iter()
        .position(|p| p.instr.op == Op::SCbranchScc1)
        .unwrap();
    let target = i64::from(built.code[br].pc) + 4 + 4 * i64::from(branch_offset(&built, br));
    assert_eq!(target, i64::from(built.code[first_nop].pc));
    // The straight-line version (no loop) needs no NOP before the store.
    let mut k = Assembler::new(t, "straight", 64, 1).unwrap();
    let p = k.arg_pointer("p").unwrap();
    let tid = k.workitem_id(0).unwrap();
    let x = k.vgprs(1).unwrap();
    k.op(Op::VMovB32, [x.op(), Operand::Int(0)]);
    k.wait_lgkm(0);
    k.global_store(Op::GlobalStoreDword, tid, x, p, 0);
    k.s_endpgm();
    let built = k.finish().unwrap();
    assert!(
        built.code.iter().all(|p| p.inserted_for.is_none()),
        "{}",
        built.listing
    );
}

#[test]
fn foreign_labels_and_lds_overflow_are_errors() {
    let t = IsaTarget::Gfx942;
    let mut other = Assembler::new(t, "other", 64, 1).unwrap();
    let _ = other.label("a");
    let foreign = other.label("b");
    let mut k = Assembler::new(t, "k", 64, 1).unwrap();
    k.branch(foreign);
    k.s_endpgm();
    assert!(k
        .finish()
        .unwrap_err()
        .to_string()
        .contains("does not belong"));
    let mut k = Assembler::new(t, "k", 64, 1).unwrap();
    assert_eq!(k.lds(100, 4).unwrap(), 0);
    assert_eq!(k.lds(8, 16).unwrap(), 112);
    assert!(k.lds(64 * 1024, 4).is_err());
    assert!(k.lds(4, 3).is_err());
}
