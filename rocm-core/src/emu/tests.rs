//! End-to-end tests of the emulated device: hand-built kernels (`Instr` lists through
//! `codeobj::Kernel::build` and `CodeObject::to_elf`) loaded through the module API and
//! launched, checked against host references computed independently of the emulator.

use super::dispatch::with_instruction_budget;
use crate::isa::amdgpu::codeobj::{
    CodeObject, CodeObjectTarget, Kernel as CoKernel, KernelArg as CoArg, KernelResources,
};
use crate::isa::amdgpu::*;
use crate::{Device, Error, KernelArgs, LaunchConfig, Module, ModuleImage, Result};
use rand::{Rng, SeedableRng};

/// One emulated target of each ISA family the emulator models.
const TARGETS: [IsaTarget; 4] = [
    IsaTarget::Gfx908,
    IsaTarget::Gfx90a,
    IsaTarget::Gfx942,
    IsaTarget::Gfx1100,
];

fn device(t: IsaTarget) -> Device {
    Device::open(&format!("emu:{}", t.name())).unwrap()
}

/// The wave's lane-mask operand for `vcc`.
fn vcc(t: IsaTarget) -> Operand {
    if t.wave_size() == 64 {
        Operand::Vcc
    } else {
        Operand::VccLo
    }
}

/// An SGPR lane mask (a pair on wave64, one SGPR on wave32).
fn smask(t: IsaTarget, first: u16) -> Operand {
    sr(first, t.mask_sgprs())
}

fn exec(t: IsaTarget) -> Operand {
    if t.wave_size() == 64 {
        Operand::Exec
    } else {
        Operand::ExecLo
    }
}

fn saveexec(t: IsaTarget) -> Op {
    if t.wave_size() == 64 {
        Op::SAndSaveexecB64
    } else {
        Op::SAndSaveexecB32
    }
}

fn smov_mask(t: IsaTarget) -> Op {
    if t.wave_size() == 64 {
        Op::SMovB64
    } else {
        Op::SMovB32
    }
}

fn wait(t: IsaTarget, vm: Option<u8>, lgkm: Option<u8>) -> Instr {
    let m = Waitcnt::max(t.family());
    Instr::new(
        Op::SWaitcnt,
        [Operand::Waitcnt(Waitcnt {
            vm: vm.unwrap_or(m.vm),
            exp: m.exp,
            lgkm: lgkm.unwrap_or(m.lgkm),
        })],
    )
}

fn words(i: &Instr, t: IsaTarget) -> usize {
    encode(i, t).unwrap().len()
}

/// Byte offset of instruction `k` of `code`.
fn pc_of(code: &[Instr], k: usize, t: IsaTarget) -> u64 {
    code[..k].iter().map(|i| words(i, t) as u64 * 4).sum()
}

/// Sets the branch at `from` to jump to instruction `to`.
fn patch_branch(code: &mut [Instr], from: usize, to: usize, t: IsaTarget) {
    let next = pc_of(code, from + 1, t) as i64;
    let target = pc_of(code, to, t) as i64;
    code[from].operands = vec![Operand::Imm(((target - next) / 4) as i32)];
}

fn resources(t: IsaTarget, sgprs: u16, vgprs: u16, kernarg: u32) -> KernelResources {
    let mut r = KernelResources::new(t);
    r.sgprs = sgprs;
    r.vgprs = vgprs;
    r.kernarg_bytes = kernarg;
    r
}

fn code_object(
    t: IsaTarget,
    name: &str,
    code: &[Instr],
    r: &KernelResources,
    args: Vec<CoArg>,
) -> Vec<u8> {
    let ct = CodeObjectTarget::new(t);
    let k = CoKernel::build(ct, name, code, r, args, 1024).unwrap();
    CodeObject {
        target: ct,
        kernels: vec![k],
    }
    .to_elf()
    .unwrap()
}

fn load(t: IsaTarget, name: &str, code: &[Instr], r: &KernelResources, args: Vec<CoArg>) -> Module {
    let elf = code_object(t, name, code, r, args);
    device(t)
        .load_module(&ModuleImage::CodeObject(elf))
        .unwrap()
}

fn launch(m: &Module, name: &str, cfg: LaunchConfig, args: &KernelArgs) -> Result<()> {
    let k = m.kernel(name)?;
    // SAFETY: the emulated device checks every access of the kernel.
    unsafe { k.launch(m.device().default_stream(), &cfg, args) }
}

fn ptr_args(n: usize) -> Vec<CoArg> {
    (0..n)
        .map(|i| CoArg::global_buffer(&format!("p{i}"), 8 * i as u32))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Vector add

/// `c[i] = a[i] + b[i]` for `i < n`, guarded by `v_cmp` + `s_and_saveexec`. Kernargs:
/// a, b, c pointers, n. Returns the code and the index of the store.
fn vector_add_code(t: IsaTarget) -> (Vec<Instr>, usize) {
    let mut code = vec![
        Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
        Instr::new(Op::SLoadDwordx2, [sr(8, 2), sr(0, 2)]).offset(16),
        Instr::new(Op::SLoadDword, [s(10), sr(0, 2)]).offset(24),
        wait(t, None, Some(0)),
        // s11 = workgroup id (s2) * 256
        Instr::new(Op::SLshlB32, [s(11), s(2), Operand::Int(8)]),
        Instr::new(Op::VAddU32, [v(1), s(11), v(0)]),
        Instr::new(Op::VCmpGtU32, [vcc(t), s(10), v(1)]),
        Instr::new(saveexec(t), [smask(t, 12), vcc(t)]),
        Instr::new(Op::SCbranchExecz, [Operand::Imm(0)]),
        Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(2), v(1)]),
        Instr::new(Op::GlobalLoadDword, [v(2), v(1), sr(4, 2)]),
        Instr::new(Op::GlobalLoadDword, [v(3), v(1), sr(6, 2)]),
        wait(t, Some(0), None),
        Instr::new(Op::VAddF32, [v(2), v(2), v(3)]),
        Instr::new(Op::GlobalStoreDword, [v(1), v(2), sr(8, 2)]),
        Instr::new(Op::SEndpgm, []),
    ];
    let end = code.len() - 1;
    patch_branch(&mut code, 8, end, t);
    (code, 14)
}

fn vector_add_module(t: IsaTarget) -> (Module, Vec<Instr>, usize) {
    let (code, store) = vector_add_code(t);
    let mut args = ptr_args(3);
    args.push(CoArg::by_value("n", 24, 4));
    let m = load(t, "vadd", &code, &resources(t, 14, 4, 28), args);
    (m, code, store)
}

#[test]
fn vector_add_f32_with_an_odd_size_on_every_target() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for t in IsaTarget::ALL {
        let dev = device(t);
        let (m, _, _) = vector_add_module(t);
        let n = 1000 + rng.random_range(0..24) * 2 + 1;
        let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        // One workgroup more than needed, and a tail past n that must stay untouched.
        let pad = 300;
        let sentinel = f32::from_bits(0x7fc0_1234);
        let mut c = dev.upload(&vec![sentinel; n + pad]).unwrap();
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut args = KernelArgs::new();
        args.push(&da)
            .push(&db)
            .push(&c.as_slice_mut())
            .push(n as u32);
        let groups = (n + pad).div_ceil(256) as u32;
        launch(&m, "vadd", LaunchConfig::linear(groups, 256), &args).unwrap();
        let got = c.to_vec().unwrap();
        for i in 0..n {
            // One IEEE f32 addition each side: results must be bit-identical.
            assert_eq!(got[i].to_bits(), (a[i] + b[i]).to_bits(), "{t} element {i}");
        }
        assert!(
            got[n..].iter().all(|x| x.to_bits() == sentinel.to_bits()),
            "{t}: tail written"
        );
    }
}

/// Kernel lookups are remembered per module (shared by its clones); a name the module
/// lacks stays an error every time and is not remembered.
#[test]
fn kernel_lookups_are_remembered_and_misses_stay_errors() {
    let t = IsaTarget::Gfx90a;
    let (m, _, _) = vector_add_module(t);
    let copy = m.clone();
    assert_eq!(m.kernel("vadd").unwrap().name(), "vadd");
    assert_eq!(copy.kernel("vadd").unwrap().name(), "vadd");
    assert_eq!(
        m.kernels.lock().unwrap().len(),
        1,
        "one lookup shared by both clones"
    );
    for _ in 0..2 {
        assert!(m.kernel("vsub").is_err());
    }
    assert_eq!(
        m.kernels.lock().unwrap().len(),
        1,
        "a miss is not remembered"
    );
}

#[test]
fn out_of_bounds_store_faults_naming_kernel_pc_lane_and_address() {
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let dev = device(t);
        let (m, code, store) = vector_add_module(t);
        let n = 100usize;
        let a = dev.upload(&vec![1.0f32; n]).unwrap();
        let b = dev.upload(&vec![2.0f32; n]).unwrap();
        // c is 3 elements short: element 97 is the first outside it.
        let mut c = dev.alloc::<f32>(n - 3).unwrap();
        let mut args = KernelArgs::new();
        args.push(&a)
            .push(&b)
            .push(&c.as_slice_mut())
            .push(n as u32);
        let err = launch(&m, "vadd", LaunchConfig::linear(1, 128), &args).unwrap_err();
        match &err {
            Error::KernelFault {
                kernel,
                pc,
                lane,
                address,
                what,
            } => {
                assert_eq!(kernel, "vadd");
                assert_eq!(*pc, pc_of(&code, store, t), "{t}");
                let first_bad = 97u64;
                let wave = t.wave_size() as u64;
                assert_eq!(*lane, Some((first_bad % wave) as u32), "{t}");
                assert_eq!(*address, Some(c.address() + 4 * first_bad), "{t}");
                assert!(what.contains("global_store"), "{what}");
            }
            other => panic!("{other:?}"),
        }
        let msg = err.to_string();
        assert!(msg.contains("vadd") && msg.contains("lane"), "{msg}");
        // The in-bounds lanes of earlier waves stored before the fault.
        assert_eq!(c.to_vec().unwrap()[0], 3.0);
    }
}

// ---------------------------------------------------------------------------------------
// Work-item and workgroup ids

/// Writes one 32-byte record per work-item at its global linear id: the raw id VGPRs
/// (v0; and v1, v2 on gfx908) at dwords 0..3, workgroup ids x, y, z and a marker 1 at
/// dwords 4..8. Kernargs: out, bx, by, gx, gy, block size.
fn ids_code(t: IsaTarget) -> Vec<Instr> {
    let gfx908 = t == IsaTarget::Gfx908;
    let (x, y, z) = if gfx908 { (0, 1, 2) } else { (1, 2, 3) };
    let mut code = vec![
        Instr::new(Op::SLoadDwordx4, [sr(8, 4), sr(0, 2)]),
        Instr::new(Op::SLoadDwordx2, [sr(12, 2), sr(0, 2)]).offset(16),
        Instr::new(Op::SLoadDword, [s(14), sr(0, 2)]).offset(24),
    ];
    if !gfx908 {
        code.extend([
            Instr::new(Op::VAndB32, [v(1), Operand::Literal(0x3ff), v(0)]),
            Instr::new(
                Op::VBfeU32,
                [v(2), v(0), Operand::Int(10), Operand::Int(10)],
            ),
            Instr::new(
                Op::VBfeU32,
                [v(3), v(0), Operand::Int(20), Operand::Int(10)],
            ),
        ]);
    }
    code.extend([
        wait(t, None, Some(0)),
        Instr::new(Op::VMadU32U24, [v(4), v(z), s(11), v(y)]),
        Instr::new(Op::VMadU32U24, [v(4), v(4), s(10), v(x)]),
        Instr::new(Op::SMulI32, [s(15), s(4), s(13)]),
        Instr::new(Op::SAddU32, [s(15), s(15), s(3)]),
        Instr::new(Op::SMulI32, [s(15), s(15), s(12)]),
        Instr::new(Op::SAddU32, [s(15), s(15), s(2)]),
        Instr::new(Op::SMulI32, [s(15), s(15), s(14)]),
        Instr::new(Op::VAddU32, [v(4), s(15), v(4)]),
        Instr::new(Op::VLshlrevB32, [v(4), Operand::Int(5), v(4)]),
        Instr::new(Op::VMovB32, [v(6), s(2)]),
        Instr::new(Op::VMovB32, [v(7), s(3)]),
        Instr::new(Op::VMovB32, [v(8), s(4)]),
        Instr::new(Op::VMovB32, [v(9), Operand::Int(1)]),
        Instr::new(Op::GlobalStoreDword, [v(4), v(0), sr(8, 2)]),
        Instr::new(Op::GlobalStoreDwordx4, [v(4), vr(6, 4), sr(8, 2)]).offset(16),
    ]);
    if gfx908 {
        code.extend([
            Instr::new(Op::GlobalStoreDword, [v(4), v(1), sr(8, 2)]).offset(4),
            Instr::new(Op::GlobalStoreDword, [v(4), v(2), sr(8, 2)]).offset(8),
        ]);
    }
    code.push(Instr::new(Op::SEndpgm, []));
    code
}

#[test]
fn workitem_and_workgroup_ids_on_every_target() {
    for t in IsaTarget::ALL {
        let dev = device(t);
        let mut r = resources(t, 16, 10, 28);
        r.workgroup_id = [true; 3];
        r.workitem_id_dims = 3;
        let mut args = ptr_args(1);
        for (i, name) in ["bx", "by", "gx", "gy", "bsize"].iter().enumerate() {
            args.push(CoArg::by_value(name, 8 + 4 * i as u32, 4));
        }
        let m = load(t, "ids", &ids_code(t), &r, args);
        for (grid, block) in [
            ([3u32, 1, 1], [70u32, 1, 1]),
            ([2, 3, 1], [8, 5, 1]),
            ([3, 2, 2], [5, 3, 2]),
            ([1, 2, 3], [8, 4, 3]),
        ] {
            let bsize = block.iter().product::<u32>();
            let total = (grid.iter().product::<u32>() * bsize) as usize;
            let mut out = dev.alloc::<u32>(8 * total).unwrap();
            let mut a = KernelArgs::new();
            a.push(&out.as_slice_mut())
                .push(block[0])
                .push(block[1])
                .push(grid[0])
                .push(grid[1])
                .push(bsize);
            let cfg = LaunchConfig {
                grid,
                block,
                shared_bytes: 0,
            };
            launch(&m, "ids", cfg, &a).unwrap();
            let got = out.to_vec().unwrap();
            let mut g = 0usize;
            for wz in 0..grid[2] {
                for wy in 0..grid[1] {
                    for wx in 0..grid[0] {
                        for tid in 0..bsize {
                            let (x, y, z) = (
                                tid % block[0],
                                tid / block[0] % block[1],
                                tid / (block[0] * block[1]),
                            );
                            let rec = &got[8 * g..8 * g + 8];
                            if t == IsaTarget::Gfx908 {
                                assert_eq!(
                                    &rec[0..3],
                                    &[x, y, z],
                                    "{t} {grid:?} {block:?} item {g}"
                                );
                            } else {
                                assert_eq!(rec[0], x | y << 10 | z << 20, "{t} item {g}");
                            }
                            assert_eq!(&rec[4..8], &[wx, wy, wz, 1], "{t} {grid:?} item {g}");
                            g += 1;
                        }
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// LDS reduction with barriers

/// Tree reduction of 4 waves' u32 values through LDS: `out[wg] = sum(in[wg*B..][..B])`.
/// Kernargs: in, out. `ds_write`, `ds_read` with offsets, `s_barrier` between steps,
/// EXEC narrowed per step and restored.
fn reduce_code(t: IsaTarget, block: u32) -> Vec<Instr> {
    let log = block.trailing_zeros();
    let mut code = vec![
        Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
        wait(t, None, Some(0)),
        Instr::new(Op::SMulI32, [s(8), s(2), Operand::Literal(block * 4)]),
        Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(2), v(0)]),
        Instr::new(Op::VAddU32, [v(2), s(8), v(1)]),
        Instr::new(Op::GlobalLoadDword, [v(3), v(2), sr(4, 2)]),
        wait(t, Some(0), None),
        Instr::new(Op::DsWriteB32, [v(1), v(3)]),
        wait(t, None, Some(0)),
        Instr::new(Op::SBarrier, []),
        Instr::new(smov_mask(t), [smask(t, 10), exec(t)]),
    ];
    for k in (0..log).rev() {
        let stride = 1u32 << k;
        code.extend([
            Instr::new(Op::VCmpGtU32, [vcc(t), Operand::imm32(stride as i64), v(0)]),
            Instr::new(saveexec(t), [smask(t, 12), vcc(t)]),
            Instr::new(Op::DsReadB32, [v(4), v(1)]),
            Instr::new(Op::DsReadB32, [v(5), v(1)]).offset(4 * stride as i32),
            wait(t, None, Some(0)),
            Instr::new(Op::VAddU32, [v(4), v(4), v(5)]),
            Instr::new(Op::DsWriteB32, [v(1), v(4)]),
            wait(t, None, Some(0)),
            Instr::new(smov_mask(t), [exec(t), smask(t, 10)]),
            Instr::new(Op::SBarrier, []),
        ]);
    }
    code.extend([
        Instr::new(Op::VCmpEqU32, [vcc(t), Operand::Int(0), v(0)]),
        Instr::new(saveexec(t), [smask(t, 12), vcc(t)]),
        Instr::new(Op::DsReadB32, [v(4), v(1)]),
        Instr::new(Op::VMovB32, [v(6), s(2)]),
        Instr::new(Op::VLshlrevB32, [v(6), Operand::Int(2), v(6)]),
        wait(t, None, Some(0)),
        Instr::new(Op::GlobalStoreDword, [v(6), v(4), sr(6, 2)]),
        Instr::new(Op::SEndpgm, []),
    ]);
    code
}

#[test]
fn lds_tree_reduction_across_four_waves_with_barriers() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    for t in TARGETS {
        let dev = device(t);
        let block = 4 * t.wave_size();
        let mut r = resources(t, 14, 8, 16);
        r.group_segment_bytes = block * 4;
        let m = load(t, "reduce", &reduce_code(t, block), &r, ptr_args(2));
        let groups = 3;
        let input: Vec<u32> = (0..groups * block).map(|_| rng.random()).collect();
        let din = dev.upload(&input).unwrap();
        let mut out = dev.alloc::<u32>(groups as usize).unwrap();
        let mut a = KernelArgs::new();
        a.push(&din).push(&out.as_slice_mut());
        launch(&m, "reduce", LaunchConfig::linear(groups, block), &a).unwrap();
        let expect: Vec<u32> = input
            .chunks(block as usize)
            .map(|c| c.iter().fold(0u32, |s, &x| s.wrapping_add(x)))
            .collect();
        assert_eq!(out.to_vec().unwrap(), expect, "{t}");
    }
}

#[test]
fn lds_access_past_the_group_segment_faults() {
    let t = IsaTarget::Gfx90a;
    // Each lane writes LDS dword v0 (address 4 * lane, from mbcnt over all lanes applied
    // four times); only 64 bytes are allocated, so lane 16 faults.
    let mut code = vec![];
    for _ in 0..4 {
        code.push(Instr::new(
            Op::VMbcntLoU32B32,
            [v(1), Operand::Int(-1), v(1)],
        ));
        code.push(Instr::new(
            Op::VMbcntHiU32B32,
            [v(1), Operand::Int(-1), v(1)],
        ));
    }
    code.extend([
        Instr::new(Op::DsWriteB32, [v(1), v(0)]),
        Instr::new(Op::SEndpgm, []),
    ]);
    let mut r = resources(t, 4, 4, 0);
    r.group_segment_bytes = 64;
    let m = load(t, "ldsoob", &code, &r, vec![]);
    let err = launch(
        &m,
        "ldsoob",
        LaunchConfig::linear(1, 64),
        &KernelArgs::new(),
    )
    .unwrap_err();
    match err {
        Error::KernelFault {
            kernel,
            pc,
            lane,
            address,
            what,
        } => {
            assert_eq!(kernel, "ldsoob");
            assert_eq!(pc, 8 * 8);
            assert_eq!(lane, Some(16));
            assert_eq!(address, Some(64));
            assert!(what.contains("LDS"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    // Dynamic LDS from the launch extends the segment: the same kernel now fits.
    let cfg = LaunchConfig {
        shared_bytes: 192,
        ..LaunchConfig::linear(1, 64)
    };
    launch(&m, "ldsoob", cfg, &KernelArgs::new()).unwrap();
}

// ---------------------------------------------------------------------------------------
// Cross-lane and wave-state instructions (no emu::alu needed)

#[test]
fn readlane_writelane_mbcnt_swizzle_and_bpermute() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let dev = device(t);
        let lanes = t.wave_size();
        let wide = lanes == 64;
        // v1 = lane id (mbcnt over all ones); v2 = 4 * lane (mbcnt applied four times).
        let mut code = vec![
            Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
            Instr::new(
                Op::VMbcntLoU32B32,
                [v(1), Operand::Int(-1), Operand::Int(0)],
            ),
        ];
        if wide {
            code.push(Instr::new(
                Op::VMbcntHiU32B32,
                [v(1), Operand::Int(-1), v(1)],
            ));
        }
        code.push(Instr::new(
            Op::VMbcntLoU32B32,
            [v(2), Operand::Int(-1), v(1)],
        ));
        for k in 0..3 {
            if wide {
                code.push(Instr::new(
                    Op::VMbcntHiU32B32,
                    [v(2), Operand::Int(-1), v(2)],
                ));
            }
            if k < 2 {
                code.push(Instr::new(
                    Op::VMbcntLoU32B32,
                    [v(2), Operand::Int(-1), v(2)],
                ));
            }
        }
        code.extend([
            wait(t, None, Some(0)),
            // v3 = in[lane]
            Instr::new(Op::GlobalLoadDword, [v(3), v(2), sr(4, 2)]),
            wait(t, Some(0), None),
            // s8 = in[5] via readlane; s9 = in[0] via readfirstlane
            Instr::new(Op::VReadlaneB32, [s(8), v(3), Operand::Int(5)]),
            Instr::new(Op::VReadfirstlaneB32, [s(9), v(3)]),
            // v4 = in[lane], except lane 7 which gets s8 (writelane)
            Instr::new(Op::VAccvgprWriteB32, [a(0), v(3)]),
            Instr::new(Op::VAccvgprReadB32, [v(4), a(0)]),
            Instr::new(Op::VWritelaneB32, [v(4), s(8), Operand::Int(7)]),
            // v5 = swizzle SWAP,1 of in (lane ^ 1); v6 = bpermute from lane (lane + 3) % 32
            Instr::new(Op::DsSwizzleB32, [v(5), v(3)]).offset(0x041f),
            Instr::new(Op::DsBpermuteB32, [v(6), v(2), v(3)]).offset(12),
            wait(t, None, Some(0)),
            Instr::new(Op::GlobalStoreDword, [v(2), v(4), sr(6, 2)]),
            Instr::new(Op::GlobalStoreDword, [v(2), v(5), sr(6, 2)]).offset(4 * lanes as i32),
            Instr::new(Op::GlobalStoreDword, [v(2), v(6), sr(6, 2)]).offset(8 * lanes as i32),
            // v7 = s9 on every lane: mbcnt of an empty mask plus s9.
            Instr::new(Op::VMbcntLoU32B32, [v(7), Operand::Int(0), s(9)]),
            Instr::new(Op::GlobalStoreDword, [v(2), v(7), sr(6, 2)]).offset(12 * lanes as i32),
            Instr::new(Op::SEndpgm, []),
        ]);
        if t == IsaTarget::Gfx1100 {
            // gfx11 has no AGPRs: copy through v4 directly.
            code.retain(|i| i.op != Op::VAccvgprWriteB32 && i.op != Op::VAccvgprReadB32);
            let at = code.iter().position(|i| i.op == Op::VWritelaneB32).unwrap();
            // The identity swizzle (and 0x1f, or 0, xor 0) copies v3.
            code.insert(at, Instr::new(Op::DsSwizzleB32, [v(4), v(3)]).offset(0x1f));
            code.insert(at + 1, wait(t, None, Some(0)));
        }
        let mut r = resources(t, 10, 8, 16);
        if t != IsaTarget::Gfx1100 {
            r.agprs = 1;
        }
        let m = load(t, "lanes", &code, &r, ptr_args(2));
        let input: Vec<u32> = (0..lanes).map(|_| rng.random()).collect();
        let din = dev.upload(&input).unwrap();
        let mut out = dev.alloc::<u32>(4 * lanes as usize).unwrap();
        let mut args = KernelArgs::new();
        args.push(&din).push(&out.as_slice_mut());
        launch(&m, "lanes", LaunchConfig::linear(1, lanes), &args).unwrap();
        let got = out.to_vec().unwrap();
        let n = lanes as usize;
        for l in 0..n {
            let expect_w = if l == 7 { input[5] } else { input[l] };
            assert_eq!(got[l], expect_w, "{t} writelane lane {l}");
            assert_eq!(got[n + l], input[l ^ 1], "{t} swizzle lane {l}");
            assert_eq!(got[2 * n + l], input[(l + 3) % n], "{t} bpermute lane {l}");
            assert_eq!(got[3 * n + l], input[0], "{t} readfirstlane");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Atomics

#[test]
fn global_atomics_add_u32_and_f32_with_and_without_return() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let t = IsaTarget::Gfx90a;
    let dev = device(t);
    // Every work-item adds in[gid] to counter[0] (u32, returning the old value into
    // old[gid]), to counter[1] (u32, no return) and to counter[2] (f32, no return), and
    // its small-integer float to counter[3] (f32 with return; sums of integers below
    // 2^24 are exact in f32).
    let code = [
        Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
        Instr::new(Op::SLoadDwordx2, [sr(8, 2), sr(0, 2)]).offset(16),
        wait(t, None, Some(0)),
        Instr::new(Op::SLshlB32, [s(11), s(2), Operand::Int(8)]),
        Instr::new(Op::VAddU32, [v(1), s(11), v(0)]),
        Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(2), v(1)]),
        Instr::new(Op::GlobalLoadDword, [v(2), v(1), sr(4, 2)]),
        Instr::new(Op::GlobalLoadDword, [v(6), v(1), sr(8, 2)]),
        wait(t, Some(0), None),
        Instr::new(Op::VAccvgprReadB32, [v(3), a(0)]), // v3 = 0 (fresh AGPR)
        Instr::new(Op::GlobalAtomicAddRtn, [v(4), v(3), v(2), sr(6, 2)]).cache(Cache::GLC),
        // A store may not join a soft clause that holds a load (XNACK replay; LLVM's
        // checkSoftClauseHazards): one wait state breaks the clause.
        Instr::new(Op::SNop, [Operand::Imm(0)]),
        Instr::new(Op::GlobalAtomicAdd, [v(3), v(2), sr(6, 2)]).offset(4),
        Instr::new(Op::GlobalAtomicAddF32, [v(3), v(6), sr(6, 2)]).offset(8),
        Instr::new(Op::GlobalAtomicAddF32Rtn, [v(5), v(3), v(6), sr(6, 2)])
            .offset(12)
            .cache(Cache::GLC),
        wait(t, Some(0), None),
        // old[gid] after the 4 counters.
        Instr::new(Op::GlobalStoreDword, [v(1), v(4), sr(6, 2)]).offset(16),
        Instr::new(Op::SEndpgm, []),
    ];
    let mut r = resources(t, 12, 8, 24);
    r.agprs = 1;
    let m = load(t, "atomics", &code, &r, ptr_args(3));
    let n = 3 * 256;
    let input: Vec<u32> = (0..n).map(|_| rng.random_range(0..1 << 20)).collect();
    let fin: Vec<f32> = (0..n)
        .map(|_| rng.random_range(-1000..1000) as f32)
        .collect();
    let din = dev.upload(&input).unwrap();
    let dfin = dev.upload(&fin).unwrap();
    let mut out = dev.alloc::<u32>(4 + n).unwrap();
    let mut a = KernelArgs::new();
    a.push(&din).push(&out.as_slice_mut()).push(&dfin);
    launch(&m, "atomics", LaunchConfig::linear(3, 256), &a).unwrap();
    let got = out.to_vec().unwrap();
    let total = input.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    let ftotal: f32 = fin.iter().sum();
    assert_eq!(got[0], total);
    assert_eq!(got[1], total);
    assert_eq!(f32::from_bits(got[2]), ftotal);
    assert_eq!(f32::from_bits(got[3]), ftotal);
    // The returned old values chain: sorted by old value, each old + in = the next old.
    let mut pairs: Vec<(u32, u32)> = (0..n).map(|g| (got[4 + g], input[g])).collect();
    pairs.sort();
    assert_eq!(pairs[0].0, 0);
    for w in pairs.windows(2) {
        assert_eq!(w[0].0 + w[0].1, w[1].0);
    }
    let last = pairs[n - 1];
    assert_eq!(last.0 + last.1, total);
}

// ---------------------------------------------------------------------------------------
// Errors

#[test]
fn wrong_target_code_object_is_rejected() {
    let code = [Instr::new(Op::SEndpgm, [])];
    let elf = code_object(
        IsaTarget::Gfx90a,
        "k",
        &code,
        &resources(IsaTarget::Gfx90a, 2, 1, 0),
        vec![],
    );
    for other in [IsaTarget::Gfx942, IsaTarget::Gfx908, IsaTarget::Gfx1100] {
        let err = device(other)
            .load_module(&ModuleImage::CodeObject(elf.clone()))
            .unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::Module(_)), "{err:?}");
        assert!(
            msg.contains("gfx90a") && msg.contains(other.name()),
            "{msg}"
        );
    }
    let m = device(IsaTarget::Gfx90a)
        .load_module(&ModuleImage::CodeObject(elf))
        .unwrap();
    launch(&m, "k", LaunchConfig::linear(2, 64), &KernelArgs::new()).unwrap();
    assert!(matches!(m.kernel("nope"), Err(Error::Module(_))));
    assert!(device(IsaTarget::Gfx90a)
        .load_module(&ModuleImage::Ptx(String::new()))
        .is_err());
}

#[test]
fn runaway_loop_exhausts_the_budget() {
    let t = IsaTarget::Gfx1100;
    let code = [
        Instr::new(Op::SNop, [Operand::Imm(0)]),
        Instr::new(Op::SBranch, [Operand::Imm(-2)]),
        Instr::new(Op::SEndpgm, []),
    ];
    let m = load(t, "spin", &code, &resources(t, 2, 1, 0), vec![]);
    let err = with_instruction_budget(10_000, || {
        launch(&m, "spin", LaunchConfig::linear(1, 32), &KernelArgs::new())
    })
    .unwrap_err();
    match err {
        Error::KernelFault { kernel, what, .. } => {
            assert_eq!(kernel, "spin");
            assert!(what.contains("budget"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_control_flow_and_registers_fault() {
    let t = IsaTarget::Gfx90a;
    // A branch into the literal of the first instruction.
    let code = [
        Instr::new(Op::SMovB32, [s(0), Operand::Literal(0xdead_beef)]),
        Instr::new(Op::SBranch, [Operand::Imm(-2)]),
        Instr::new(Op::SEndpgm, []),
    ];
    let m = load(t, "midjump", &code, &resources(t, 2, 1, 0), vec![]);
    let err = launch(
        &m,
        "midjump",
        LaunchConfig::linear(1, 64),
        &KernelArgs::new(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, Error::KernelFault { pc: 8, what, .. } if what.contains("0x4")),
        "{err:?}"
    );
    // Running off the end.
    let code = [Instr::new(Op::SNop, [Operand::Imm(0)])];
    let m = load(t, "noend", &code, &resources(t, 2, 1, 0), vec![]);
    let err = launch(&m, "noend", LaunchConfig::linear(1, 64), &KernelArgs::new()).unwrap_err();
    assert!(
        matches!(&err, Error::KernelFault { pc: 4, what, .. } if what.contains("s_endpgm")),
        "{err:?}"
    );
    // A VGPR beyond the allocation (8 VGPRs allocated on gfx90a: v8 is outside).
    let code = [
        Instr::new(Op::VAccvgprReadB32, [v(8), a(0)]),
        Instr::new(Op::SEndpgm, []),
    ];
    let mut r = resources(t, 2, 8, 0);
    r.agprs = 0;
    let elf = code_object(t, "vbig", &code, &r, vec![]);
    let m = device(t)
        .load_module(&ModuleImage::CodeObject(elf))
        .unwrap();
    let err = launch(&m, "vbig", LaunchConfig::linear(1, 64), &KernelArgs::new()).unwrap_err();
    assert!(
        matches!(&err, Error::KernelFault { pc: 0, what, .. } if what.contains("v8")),
        "{err:?}"
    );
    // Launch geometry the kernel does not allow.
    let err = launch(
        &m,
        "vbig",
        LaunchConfig::linear(1, 2048),
        &KernelArgs::new(),
    )
    .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
}

#[test]
fn kernel_arguments_too_short_are_rejected() {
    let t = IsaTarget::Gfx90a;
    let (m, _, _) = vector_add_module(t);
    let dev = device(t);
    let a = dev.alloc::<f32>(4).unwrap();
    let mut args = KernelArgs::new();
    args.push(&a).push(&a);
    let err = launch(&m, "vadd", LaunchConfig::linear(1, 64), &args).unwrap_err();
    assert!(err.to_string().contains("28 bytes"), "{err}");
}

#[test]
fn device_memory_is_bounds_checked_and_not_host_memory() {
    let dev = device(IsaTarget::Gfx942);
    let data: Vec<u32> = (0..1000).map(|i| i * 7 + 1).collect();
    let mut b = dev.upload(&data).unwrap();
    assert!(b.as_host().is_none());
    assert_eq!(b.to_vec().unwrap(), data);
    assert_eq!(b.slice(10..20).unwrap().to_vec().unwrap(), &data[10..20]);
    b.fill_zero().unwrap();
    assert!(b.to_vec().unwrap().iter().all(|&x| x == 0));
    let s = dev.new_stream().unwrap();
    let e0 = s.record().unwrap();
    let e1 = s.record().unwrap();
    assert!(e0.elapsed_ms(&e1).unwrap() >= 0.0);
}

// ---------------------------------------------------------------------------------------
// Scalar memory, dispatch packet and hidden arguments (no emu::alu needed)

/// `v{dst}` = 4 * lane id, from `v_mbcnt` over all lanes applied four times.
fn lane_bytes(t: IsaTarget, dst: u16) -> Vec<Instr> {
    let mut code = vec![];
    for _ in 0..4 {
        code.push(Instr::new(
            Op::VMbcntLoU32B32,
            [v(dst), Operand::Int(-1), v(dst)],
        ));
        if t.wave_size() == 64 {
            code.push(Instr::new(
                Op::VMbcntHiU32B32,
                [v(dst), Operand::Int(-1), v(dst)],
            ));
        }
    }
    code
}

/// Stores SGPRs `regs` (one per lane, lane k gets `regs[k]`) to `out[lane]` with the
/// output pointer in `s[base:base+1]`; uses v1 (address) and v2 (data).
fn store_sgprs(t: IsaTarget, regs: &[u16], base: u16) -> Vec<Instr> {
    let mut code = lane_bytes(t, 1);
    for (k, &r) in regs.iter().enumerate() {
        code.push(Instr::new(
            Op::VWritelaneB32,
            [v(2), s(r), Operand::Int(k as i8)],
        ));
    }
    code.push(Instr::new(Op::GlobalStoreDword, [v(1), v(2), sr(base, 2)]));
    code
}

#[test]
fn scalar_loads_dword_to_x16() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for t in [IsaTarget::Gfx908, IsaTarget::Gfx942, IsaTarget::Gfx1101] {
        let dev = device(t);
        // in: 31 dwords; loads: x16 at 0 -> s16..31, x8 at 64 -> s32..39, x4 at 96 ->
        // s40..43, x2 at 112 -> s44..45, dword at 120 -> s46.
        let mut code = vec![
            Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
            wait(t, None, Some(0)),
            Instr::new(Op::SLoadDwordx16, [sr(16, 16), sr(4, 2)]),
            Instr::new(Op::SLoadDwordx8, [sr(32, 8), sr(4, 2)]).offset(64),
            Instr::new(Op::SLoadDwordx4, [sr(40, 4), sr(4, 2)]).offset(96),
            Instr::new(Op::SLoadDwordx2, [sr(44, 2), sr(4, 2)]).offset(112),
            Instr::new(Op::SLoadDword, [s(46), sr(4, 2)]).offset(120),
            wait(t, None, Some(0)),
        ];
        let regs: Vec<u16> = (16..47).collect();
        code.extend(store_sgprs(t, &regs, 6));
        code.push(Instr::new(Op::SEndpgm, []));
        let m = load(t, "smem", &code, &resources(t, 48, 4, 16), ptr_args(2));
        let input: Vec<u32> = (0..31).map(|_| rng.random()).collect();
        let din = dev.upload(&input).unwrap();
        let mut out = dev.alloc::<u32>(t.wave_size() as usize).unwrap();
        let mut a = KernelArgs::new();
        a.push(&din).push(&out.as_slice_mut());
        launch(&m, "smem", LaunchConfig::linear(1, t.wave_size()), &a).unwrap();
        assert_eq!(&out.to_vec().unwrap()[..31], &input[..], "{t}");
        // A scalar load past the end of its buffer faults with the address.
        let mut code = vec![
            Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
            wait(t, None, Some(0)),
            Instr::new(Op::SLoadDwordx2, [sr(8, 2), sr(4, 2)]).offset(120),
        ];
        code.push(Instr::new(Op::SEndpgm, []));
        let m = load(t, "smemoob", &code, &resources(t, 12, 4, 16), ptr_args(2));
        let err = launch(&m, "smemoob", LaunchConfig::linear(1, 1), &a).unwrap_err();
        assert!(
            matches!(&err, Error::KernelFault { address: Some(x), .. } if *x == din.address() + 120),
            "{err:?}"
        );
    }
}

#[test]
fn dispatch_packet_dispatch_id_and_hidden_arguments() {
    let t = IsaTarget::Gfx90a;
    let dev = device(t);
    // User SGPRs: dispatch ptr s[0:1], kernarg ptr s[2:3], dispatch id s[4:5]; workgroup
    // id x in s6. Kernargs: out pointer, then hidden block counts x/y/z (u32), group
    // sizes x/y/z (u16), remainders (u16), grid dims (u16) as HIP's v5 layout puts them.
    let mut code = vec![
        Instr::new(Op::SLoadDwordx2, [sr(8, 2), sr(2, 2)]),
        Instr::new(Op::SLoadDwordx8, [sr(12, 8), sr(2, 2)]).offset(8),
        Instr::new(Op::SLoadDwordx8, [sr(20, 8), sr(0, 2)]),
        Instr::new(Op::SLoadDwordx4, [sr(28, 4), sr(0, 2)]).offset(32),
        wait(t, None, Some(0)),
    ];
    // Lanes 0..8: kernarg dwords 2..10; 8..16: packet dwords 0..12; 20, 21: dispatch id;
    // 22: workgroup id.
    let regs: Vec<u16> = (12..20).chain(20..32).chain([4, 5, 6]).collect();
    code.extend(store_sgprs(t, &regs, 8));
    code.push(Instr::new(Op::SEndpgm, []));
    let mut r = resources(t, 32, 4, 40);
    r.user_sgprs.dispatch_ptr = true;
    r.user_sgprs.dispatch_id = true;
    let mut args = ptr_args(1);
    let hidden = |name: &str, offset: u32, size: u32| CoArg {
        name: None,
        offset,
        size,
        value_kind: crate::isa::amdgpu::codeobj::ValueKind::Other(name.to_string()),
        address_space: None,
        actual_access: None,
    };
    args.extend([
        hidden("hidden_block_count_x", 8, 4),
        hidden("hidden_block_count_y", 12, 4),
        hidden("hidden_block_count_z", 16, 4),
        hidden("hidden_group_size_x", 20, 2),
        hidden("hidden_group_size_y", 22, 2),
        hidden("hidden_group_size_z", 24, 2),
        hidden("hidden_remainder_x", 26, 2),
        hidden("hidden_remainder_y", 28, 2),
        hidden("hidden_remainder_z", 30, 2),
        hidden("hidden_grid_dims", 38, 2),
    ]);
    let m = load(t, "packet", &code, &r, args);
    let mut out = dev.alloc::<u32>(64).unwrap();
    let mut a = KernelArgs::new();
    a.push(&out.as_slice_mut());
    let cfg = LaunchConfig {
        grid: [3, 2, 1],
        block: [4, 4, 2],
        shared_bytes: 0,
    };
    launch(&m, "packet", cfg, &a).unwrap();
    let got = out.to_vec().unwrap();
    // Every workgroup writes the same words (except its id); the last one (x=2, y=1)
    // wins.
    assert_eq!(&got[0..3], &[3, 2, 1], "block counts");
    assert_eq!(got[3], 4 | 4 << 16, "group size x, y");
    assert_eq!(got[4], 2, "group size z, remainder x");
    assert_eq!(got[5], 0, "remainders y, z");
    assert_eq!(got[7] >> 16, 3, "grid dims");
    // hsa_kernel_dispatch_packet_t: setup dims, workgroup sizes, grid sizes in items.
    assert_eq!(got[8] >> 16, 3, "packet setup: dimensions");
    assert_eq!(got[9], 4 | 4 << 16);
    assert_eq!(got[10] & 0xffff, 2);
    assert_eq!(&got[11..14], &[12, 8, 2], "grid sizes in work-items");
    let id = u64::from(got[20]) | u64::from(got[21]) << 32;
    assert_eq!(got[22], 2, "last workgroup id x");
    // A later launch gets a later dispatch id (other tests may launch on this device in
    // between).
    launch(&m, "packet", cfg, &a).unwrap();
    let got = out.to_vec().unwrap();
    assert!(u64::from(got[20]) | u64::from(got[21]) << 32 > id);
}

#[test]
fn unsupported_launch_state_is_named() {
    let t = IsaTarget::Gfx90a;
    let code = [Instr::new(Op::SEndpgm, [])];
    // The queue pointer and scratch are provided (clang's kernels ask for them).
    let mut r = resources(t, 8, 4, 0);
    r.user_sgprs.queue_ptr = true;
    let m = load(t, "qp", &code, &r, vec![]);
    launch(&m, "qp", LaunchConfig::linear(1, 64), &KernelArgs::new()).unwrap();
    let mut r = resources(t, 8, 4, 0);
    r.private_segment_bytes = 16;
    let m = load(t, "scratch", &code, &r, vec![]);
    launch(
        &m,
        "scratch",
        LaunchConfig::linear(1, 64),
        &KernelArgs::new(),
    )
    .unwrap();
    let hidden = CoArg {
        name: None,
        offset: 0,
        size: 8,
        value_kind: crate::isa::amdgpu::codeobj::ValueKind::Other("hidden_hostcall_buffer".into()),
        address_space: None,
        actual_access: None,
    };
    let m = load(t, "hc", &code, &resources(t, 8, 4, 8), vec![hidden]);
    let err = launch(&m, "hc", LaunchConfig::linear(1, 64), &KernelArgs::new()).unwrap_err();
    assert!(err.to_string().contains("hidden_hostcall_buffer"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Scoreboard

#[test]
fn missing_waitcnt_is_a_fault() {
    let t = IsaTarget::Gfx90a;
    let dev = device(t);
    // global_load_dword v5, then a store of v5 with no s_waitcnt vmcnt in between.
    let code = [
        Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
        wait(t, None, Some(0)),
        Instr::new(Op::GlobalLoadDword, [v(5), v(1), sr(4, 2)]),
        Instr::new(Op::GlobalStoreDword, [v(1), v(5), sr(6, 2)]),
        Instr::new(Op::SEndpgm, []),
    ];
    let m = load(t, "nowait", &code, &resources(t, 8, 8, 16), ptr_args(2));
    let src = dev.upload(&[1u32; 4]).unwrap();
    let mut dst = dev.alloc::<u32>(4).unwrap();
    let mut a = KernelArgs::new();
    a.push(&src).push(&dst.as_slice_mut());
    let err = launch(&m, "nowait", LaunchConfig::linear(1, 1), &a).unwrap_err();
    match err {
        Error::KernelFault { pc, what, .. } => {
            assert_eq!(pc, pc_of(&code, 3, t));
            assert!(what.contains("s_waitcnt") && what.contains("v5"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// MFMA and WMMA through memory (layouts written from reference/amdgpu.md §4, not from
// isa::amdgpu::matrix)

fn f16_bits(x: f32) -> half::f16 {
    half::f16::from_f32(x)
}

/// |error| bound of an f32 accumulation of `k` exact products plus C: each of the k
/// additions rounds once (relative 2^-24 of the running magnitude, at most the sum of
/// |terms|), doubled for margin.
fn tolerance(k: usize, abs_sum: f64) -> f64 {
    2.0 * k as f64 * f64::from(f32::EPSILON) / 2.0 * abs_sum + 1e-30
}

#[test]
fn mfma_f32_32x32x8_f16_tile_product_on_gfx9() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for t in [IsaTarget::Gfx908, IsaTarget::Gfx90a, IsaTarget::Gfx942] {
        let dev = device(t);
        let gfx908 = t == IsaTarget::Gfx908;
        // Kernargs A, B, C, D. A/B: 2 VGPRs per lane, lane-major in memory; C/D: 16.
        let mut code = vec![
            Instr::new(Op::SLoadDwordx8, [sr(4, 8), sr(0, 2)]),
            Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(3), v(0)]),
            Instr::new(Op::VLshlrevB32, [v(6), Operand::Int(6), v(0)]),
            wait(t, None, Some(0)),
            Instr::new(Op::GlobalLoadDwordx2, [vr(2, 2), v(1), sr(4, 2)]),
            Instr::new(Op::GlobalLoadDwordx2, [vr(4, 2), v(1), sr(6, 2)]),
        ];
        for q in 0..4u16 {
            code.push(
                Instr::new(Op::GlobalLoadDwordx4, [vr(8 + 4 * q, 4), v(6), sr(8, 2)])
                    .offset(16 * i32::from(q)),
            );
        }
        code.push(wait(t, Some(0), None));
        let acc = if gfx908 {
            for r in 0..16u16 {
                code.push(Instr::new(Op::VAccvgprWriteB32, [a(r), v(8 + r)]));
            }
            // gfx908: an MFMA reading an AGPR just written needs a wait state.
            code.push(Instr::new(Op::SNop, [Operand::Imm(1)]));
            ar(0, 16)
        } else {
            vr(8, 16)
        };
        code.push(Instr::new(
            Op::VMfmaF32_32x32x8F16,
            [acc, vr(2, 2), vr(4, 2), acc],
        ));
        // Wait states before reading the result (clang's counts, reference §1.3; three
        // s_nop 7 cover every gfx9 target).
        for _ in 0..3 {
            code.push(Instr::new(Op::SNop, [Operand::Imm(7)]));
        }
        if gfx908 {
            for r in 0..16u16 {
                code.push(Instr::new(Op::VAccvgprReadB32, [v(8 + r), a(r)]));
            }
        }
        for q in 0..4u16 {
            code.push(
                Instr::new(Op::GlobalStoreDwordx4, [v(6), vr(8 + 4 * q, 4), sr(10, 2)])
                    .offset(16 * i32::from(q)),
            );
        }
        code.push(Instr::new(Op::SEndpgm, []));
        let mut r = resources(t, 12, 24, 32);
        if gfx908 {
            r.agprs = 16;
        }
        let m = load(t, "mfma", &code, &r, ptr_args(4));
        let (mm, nn, kk) = (32usize, 32usize, 8usize);
        let am: Vec<f32> = (0..mm * kk)
            .map(|_| rng.random_range(-4.0f32..4.0))
            .collect();
        let bm: Vec<f32> = (0..kk * nn)
            .map(|_| rng.random_range(-4.0f32..4.0))
            .collect();
        let cm: Vec<f32> = (0..mm * nn)
            .map(|_| rng.random_range(-8.0f32..8.0))
            .collect();
        // Round inputs to f16 so the reference sees what the kernel sees.
        let am: Vec<f32> = am
            .iter()
            .map(|&x| half::f16::from_f32(x).to_f32())
            .collect();
        let bm: Vec<f32> = bm
            .iter()
            .map(|&x| half::f16::from_f32(x).to_f32())
            .collect();
        // A[i][k]: VGPR (k/2)%2, half k%2, lane 32*(k/4) + i; B[k][j] likewise with j.
        let mut abuf = vec![half::f16::ZERO; 64 * 4];
        let mut bbuf = vec![half::f16::ZERO; 64 * 4];
        for i in 0..32 {
            for k in 0..8 {
                let (lane, g, h) = (32 * (k / 4) + i, (k / 2) % 2, k % 2);
                abuf[lane * 4 + g * 2 + h] = f16_bits(am[i * kk + k]);
                bbuf[lane * 4 + g * 2 + h] = f16_bits(bm[k * nn + i]);
            }
        }
        // C/D[i][j]: VGPR 4*(i/8) + i%4, lane (32*(i/4)) % 64 + j.
        let cd_index = |i: usize, j: usize| ((32 * (i / 4)) % 64 + j) * 16 + 4 * (i / 8) + i % 4;
        let mut cbuf = vec![0f32; 64 * 16];
        for i in 0..32 {
            for j in 0..32 {
                cbuf[cd_index(i, j)] = cm[i * nn + j];
            }
        }
        let (da, db, dc) = (
            dev.upload(&abuf).unwrap(),
            dev.upload(&bbuf).unwrap(),
            dev.upload(&cbuf).unwrap(),
        );
        let mut dd = dev.alloc::<f32>(64 * 16).unwrap();
        let mut args = KernelArgs::new();
        args.push(&da).push(&db).push(&dc).push(&dd.as_slice_mut());
        launch(&m, "mfma", LaunchConfig::linear(1, 64), &args).unwrap();
        let got = dd.to_vec().unwrap();
        for i in 0..32 {
            for j in 0..32 {
                let mut sum = f64::from(cm[i * nn + j]);
                let mut abs = sum.abs();
                for k in 0..kk {
                    let p = f64::from(am[i * kk + k]) * f64::from(bm[k * nn + j]);
                    sum += p;
                    abs += p.abs();
                }
                let g = f64::from(got[cd_index(i, j)]);
                assert!(
                    (g - sum).abs() <= tolerance(kk + 1, abs),
                    "{t} D[{i}][{j}] = {g}, want {sum}"
                );
            }
        }
    }
}

#[test]
fn wmma_f32_16x16x16_f16_tile_product_on_gfx1100() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let t = IsaTarget::Gfx1100;
    let dev = device(t);
    // Kernargs A, B, C, D; A/B: 8 VGPRs per lane, C/D: 8 VGPRs per lane, lane-major.
    let mut code = vec![
        Instr::new(Op::SLoadDwordx8, [sr(4, 8), sr(0, 2)]),
        Instr::new(Op::VLshlrevB32, [v(24), Operand::Int(5), v(0)]),
        wait(t, None, Some(0)),
    ];
    for (base, sreg) in [(0u16, 4u16), (8, 6), (16, 8)] {
        for h in 0..2u16 {
            code.push(
                Instr::new(
                    Op::GlobalLoadDwordx4,
                    [vr(base + 4 * h, 4), v(24), sr(sreg, 2)],
                )
                .offset(16 * i32::from(h)),
            );
        }
    }
    code.extend([
        wait(t, Some(0), None),
        Instr::new(
            Op::VWmmaF32_16x16x16F16,
            [vr(16, 8), vr(0, 8), vr(8, 8), vr(16, 8)],
        ),
        Instr::new(Op::SNop, [Operand::Imm(7)]),
        Instr::new(Op::GlobalStoreDwordx4, [v(24), vr(16, 4), sr(10, 2)]),
        Instr::new(Op::GlobalStoreDwordx4, [v(24), vr(20, 4), sr(10, 2)]).offset(16),
        Instr::new(Op::SEndpgm, []),
    ]);
    let m = load(t, "wmma", &code, &resources(t, 12, 25, 32), ptr_args(4));
    let n = 16usize;
    let am: Vec<f32> = (0..n * n)
        .map(|_| half::f16::from_f32(rng.random_range(-4.0f32..4.0)).to_f32())
        .collect();
    let bm: Vec<f32> = (0..n * n)
        .map(|_| half::f16::from_f32(rng.random_range(-4.0f32..4.0)).to_f32())
        .collect();
    let cm: Vec<f32> = (0..n * n).map(|_| rng.random_range(-8.0f32..8.0)).collect();
    // A[i][k]: VGPR k/2, half k%2, lanes i and i+16 (replicated); B[k][j] with j.
    let mut abuf = vec![half::f16::ZERO; 32 * 16];
    let mut bbuf = vec![half::f16::ZERO; 32 * 16];
    for lane in 0..32 {
        for k in 0..16 {
            abuf[lane * 16 + k] = f16_bits(am[(lane % 16) * n + k]);
            bbuf[lane * 16 + k] = f16_bits(bm[k * n + lane % 16]);
        }
    }
    // C/D[i][j] (wave32, f32): VGPR i/2, lane 16*(i%2) + j.
    let cd_index = |i: usize, j: usize| (16 * (i % 2) + j) * 8 + i / 2;
    let mut cbuf = vec![0f32; 32 * 8];
    for i in 0..n {
        for j in 0..n {
            cbuf[cd_index(i, j)] = cm[i * n + j];
        }
    }
    let (da, db, dc) = (
        dev.upload(&abuf).unwrap(),
        dev.upload(&bbuf).unwrap(),
        dev.upload(&cbuf).unwrap(),
    );
    let mut dd = dev.alloc::<f32>(32 * 8).unwrap();
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dc).push(&dd.as_slice_mut());
    launch(&m, "wmma", LaunchConfig::linear(1, 32), &args).unwrap();
    let got = dd.to_vec().unwrap();
    for i in 0..n {
        for j in 0..n {
            let mut sum = f64::from(cm[i * n + j]);
            let mut abs = sum.abs();
            for k in 0..n {
                let p = f64::from(am[i * n + k]) * f64::from(bm[k * n + j]);
                sum += p;
                abs += p.abs();
            }
            let g = f64::from(got[cd_index(i, j)]);
            assert!(
                (g - sum).abs() <= tolerance(n + 1, abs),
                "D[{i}][{j}] = {g}, want {sum}"
            );
        }
    }
    // Unequal replicas of A (lane 20 differs from lane 4) are an error naming the mismatch.
    abuf[20 * 16 + 3] = half::f16::from_bits(abuf[20 * 16 + 3].to_bits() ^ 0x0400);
    let da = dev.upload(&abuf).unwrap();
    let mut args = KernelArgs::new();
    args.push(&da).push(&db).push(&dc).push(&dd.as_slice_mut());
    let err = launch(&m, "wmma", LaunchConfig::linear(1, 32), &args).unwrap_err();
    assert!(matches!(err, Error::KernelFault { .. }), "{err:?}");
}

#[test]
fn missing_mfma_hazard_nops_are_a_fault() {
    let t = IsaTarget::Gfx90a;
    // The MFMA result is read by the next instruction, without the wait states.
    let code = [
        Instr::new(
            Op::VMfmaF32_32x32x8F16,
            [vr(8, 16), vr(2, 2), vr(4, 2), Operand::Int(0)],
        ),
        Instr::new(Op::VAddF32, [v(1), v(8), v(1)]),
        Instr::new(Op::SEndpgm, []),
    ];
    let m = load(t, "hazard", &code, &resources(t, 2, 24, 0), vec![]);
    let err = launch(
        &m,
        "hazard",
        LaunchConfig::linear(1, 64),
        &KernelArgs::new(),
    )
    .unwrap_err();
    match err {
        Error::KernelFault {
            kernel, pc, what, ..
        } => {
            assert_eq!(kernel, "hazard");
            assert_eq!(pc, 8);
            assert!(what.contains("hazard") && what.contains("mfma"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// ALU plumbing: read-modify-write sources, typed inline constants, 16-bit destinations

#[test]
fn fmac_typed_constants_and_16_bit_destinations() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let dev = device(t);
        let lanes = t.wave_size() as usize;
        // Kernargs: A, B, C (f32), H (f16 pair per lane), out (4 dwords per lane).
        let code = vec![
            Instr::new(Op::SLoadDwordx8, [sr(4, 8), sr(0, 2)]),
            Instr::new(Op::SLoadDwordx2, [sr(12, 2), sr(0, 2)]).offset(32),
            Instr::new(Op::VLshlrevB32, [v(10), Operand::Int(2), v(0)]),
            Instr::new(Op::VLshlrevB32, [v(11), Operand::Int(4), v(0)]),
            wait(t, None, Some(0)),
            Instr::new(Op::GlobalLoadDword, [v(1), v(10), sr(4, 2)]),
            Instr::new(Op::GlobalLoadDword, [v(2), v(10), sr(6, 2)]),
            Instr::new(Op::GlobalLoadDword, [v(3), v(10), sr(8, 2)]),
            Instr::new(Op::GlobalLoadDword, [v(6), v(10), sr(10, 2)]),
            wait(t, Some(0), None),
            // v3 = a * b + c (fmac reads its destination)
            Instr::new(Op::VFmacF32, [v(3), v(1), v(2)]),
            Instr::new(Op::VMovB32, [v(5), v(3)]),
            // v4 = a * 0.5 + b (inline float as an f32 source of VOP3)
            Instr::new(
                Op::VFmaF32,
                [v(4), v(1), Operand::Float(InlineFloat::Half), v(2)],
            ),
            // v6.lo = x + x; v6.hi: zeroed on gfx9, kept on gfx11
            Instr::new(Op::VAddF16, [v(6), v(6), v(6)]),
            // s[16:17] = 1.0 as a double; lane 0/1 of v7 get its dwords
            Instr::new(Op::SMovB64, [sr(16, 2), Operand::Float(InlineFloat::One)]),
            Instr::new(Op::VMovB32, [v(7), Operand::Int(0)]),
            Instr::new(Op::VWritelaneB32, [v(7), s(16), Operand::Int(0)]),
            Instr::new(Op::VWritelaneB32, [v(7), s(17), Operand::Int(1)]),
            // out[lane] = [v4, v5, v6, v7]
            Instr::new(Op::GlobalStoreDwordx4, [v(11), vr(4, 4), sr(12, 2)]),
            Instr::new(Op::SEndpgm, []),
        ];
        let m = load(t, "plumb", &code, &resources(t, 18, 12, 40), ptr_args(5));
        let f = |rng: &mut rand::rngs::StdRng| -> Vec<f32> {
            (0..lanes)
                .map(|_| rng.random_range(-100.0f32..100.0))
                .collect()
        };
        let (av, bv, cv) = (f(&mut rng), f(&mut rng), f(&mut rng));
        let hv: Vec<u32> = (0..lanes)
            .map(|_| {
                let x = half::f16::from_f32(rng.random_range(-500.0f32..500.0)).to_bits();
                let y = half::f16::from_f32(rng.random_range(-500.0f32..500.0)).to_bits();
                u32::from(x) | u32::from(y) << 16
            })
            .collect();
        let bufs: Vec<_> = [&av, &bv, &cv]
            .iter()
            .map(|x| dev.upload(x).unwrap())
            .collect();
        let dh = dev.upload(&hv).unwrap();
        let mut out = dev.alloc::<u32>(4 * lanes).unwrap();
        let mut args = KernelArgs::new();
        args.push(&bufs[0])
            .push(&bufs[1])
            .push(&bufs[2])
            .push(&dh)
            .push(&out.as_slice_mut());
        launch(&m, "plumb", LaunchConfig::linear(1, lanes as u32), &args).unwrap();
        let got = out.to_vec().unwrap();
        let one = 1.0f64.to_bits();
        for l in 0..lanes {
            let rec = &got[4 * l..4 * l + 4];
            // fma rounds once, like f32::mul_add: bit-identical.
            assert_eq!(
                rec[0],
                av[l].mul_add(0.5, bv[l]).to_bits(),
                "{t} fma 0.5 lane {l}"
            );
            assert_eq!(
                rec[1],
                av[l].mul_add(bv[l], cv[l]).to_bits(),
                "{t} fmac lane {l}"
            );
            let x = half::f16::from_bits(hv[l] as u16);
            let sum = half::f16::from_f32(x.to_f32() * 2.0).to_bits();
            let high = if t.family() == IsaFamily::Gfx11 {
                hv[l] & 0xffff_0000
            } else {
                0
            };
            assert_eq!(rec[2], high | u32::from(sum), "{t} add_f16 lane {l}");
            let expect7 = match l {
                0 => one as u32,
                1 => (one >> 32) as u32,
                _ => 0,
            };
            assert_eq!(rec[3], expect7, "{t} s_mov_b64 1.0 lane {l}");
        }
    }
}

#[test]
fn getpc_points_into_the_loaded_code() {
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1102] {
        let dev = device(t);
        // s[8:9] = address of the instruction after s_getpc; load that dword (the code
        // is in device memory) and the next one; lanes 0, 1 store them.
        let mut code = vec![
            Instr::new(Op::SLoadDwordx2, [sr(4, 2), sr(0, 2)]),
            Instr::new(Op::SGetpcB64, [sr(8, 2)]),
            Instr::new(Op::SLoadDwordx2, [sr(10, 2), sr(8, 2)]),
            wait(t, None, Some(0)),
        ];
        code.extend(store_sgprs(t, &[10, 11], 4));
        code.push(Instr::new(Op::SEndpgm, []));
        let m = load(t, "getpc", &code, &resources(t, 12, 4, 8), ptr_args(1));
        let mut out = dev.alloc::<u32>(t.wave_size() as usize).unwrap();
        let mut a = KernelArgs::new();
        a.push(&out.as_slice_mut());
        launch(&m, "getpc", LaunchConfig::linear(1, t.wave_size()), &a).unwrap();
        let words = encode_all(&code[2..4], t).unwrap();
        assert_eq!(&out.to_vec().unwrap()[..2], &words[..2], "{t}");
    }
}

#[test]
fn wave_size_must_match_the_target() {
    let t = IsaTarget::Gfx1100;
    let mut r = resources(t, 2, 1, 0);
    r.wave32 = false;
    let m = load(t, "w64", &[Instr::new(Op::SEndpgm, [])], &r, vec![]);
    let err = launch(&m, "w64", LaunchConfig::linear(1, 64), &KernelArgs::new()).unwrap_err();
    assert!(
        matches!(&err, Error::Unsupported { op, .. } if op.contains("wave64")),
        "{err:?}"
    );
}

// ---------------------------------------------------------------------------------------
// LDS: every width, the two-address forms, atomics and permute

fn ds2(op: Op, ops: impl Into<Vec<Operand>>, offset0: i32, offset1: u8) -> Instr {
    Instr::new(op, ops).with_mods(Mods {
        offset: offset0,
        offset1,
        ..Mods::default()
    })
}

#[test]
fn lds_widths_two_address_forms_atomics_and_permute() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let dev = device(t);
        let n = t.wave_size() as usize;
        let code = vec![
            Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
            Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(2), v(0)]),
            Instr::new(Op::VLshlrevB32, [v(20), Operand::Int(4), v(0)]),
            Instr::new(Op::VLshlrevB32, [v(34), Operand::Int(7), v(0)]),
            Instr::new(Op::VAddU32, [v(21), Operand::Literal(1024), v(1)]),
            Instr::new(Op::VLshlrevB32, [v(22), Operand::Int(3), v(0)]),
            Instr::new(Op::VAddU32, [v(22), Operand::Literal(2048), v(22)]),
            Instr::new(Op::VMovB32, [v(23), Operand::Literal(4096)]),
            Instr::new(Op::VMovB32, [v(24), Operand::Int(1)]),
            Instr::new(Op::VMovB32, [v(25), Operand::Float(InlineFloat::One)]),
            Instr::new(Op::VAddU32, [v(27), Operand::Int(20), v(1)]),
            Instr::new(Op::VAndB32, [v(27), Operand::Literal(0xff), v(27)]),
            wait(t, None, Some(0)),
            Instr::new(Op::GlobalLoadDwordx4, [vr(4, 4), v(20), sr(4, 2)]),
            wait(t, Some(0), None),
            // Region A: b128 per lane, read back as b64 (upper half) and b96.
            Instr::new(Op::DsWriteB128, [v(20), vr(4, 4)]),
            Instr::new(Op::DsReadB64, [vr(8, 2), v(20)]).offset(8),
            Instr::new(Op::DsReadB96, [vr(10, 3), v(20)]),
            // Region B: write2_b32 (dword offsets 0 and 64), read2_b32 swapped.
            ds2(Op::DsWrite2B32, [v(21), v(4), v(5)], 0, 64),
            ds2(Op::DsRead2B32, [vr(14, 2), v(21)], 64, 0),
            // Region C: write2_b64 (qword offsets 0 and 64), read2_b64 swapped.
            ds2(Op::DsWrite2B64, [v(22), vr(4, 2), vr(6, 2)], 0, 64),
            ds2(Op::DsRead2B64, [vr(16, 4), v(22)], 64, 0),
            // Atomics at 4096: add_u32 of v4, max_u32 of v5, add_rtn_f32 1.0,
            // add_rtn_u32 1.
            Instr::new(Op::DsAddU32, [v(23), v(4)]),
            Instr::new(Op::DsMaxU32, [v(23), v(5)]).offset(4),
            Instr::new(Op::DsAddRtnF32, [v(33), v(23), v(25)]).offset(8),
            Instr::new(Op::DsAddRtnU32, [v(32), v(23), v(24)]).offset(12),
            Instr::new(Op::DsPermuteB32, [v(26), v(27), v(4)]),
            wait(t, None, Some(0)),
            Instr::new(Op::DsReadB128, [vr(28, 4), v(23)]),
            wait(t, None, Some(0)),
            Instr::new(Op::GlobalStoreDwordx2, [v(34), vr(8, 2), sr(6, 2)]),
            Instr::new(Op::GlobalStoreDwordx3, [v(34), vr(10, 3), sr(6, 2)]).offset(8),
            Instr::new(Op::GlobalStoreDwordx2, [v(34), vr(14, 2), sr(6, 2)]).offset(20),
            Instr::new(Op::GlobalStoreDwordx4, [v(34), vr(16, 4), sr(6, 2)]).offset(28),
            Instr::new(Op::GlobalStoreDword, [v(34), v(26), sr(6, 2)]).offset(44),
            Instr::new(Op::GlobalStoreDword, [v(34), v(32), sr(6, 2)]).offset(48),
            Instr::new(Op::GlobalStoreDword, [v(34), v(33), sr(6, 2)]).offset(52),
            Instr::new(Op::GlobalStoreDwordx4, [v(34), vr(28, 4), sr(6, 2)]).offset(64),
            Instr::new(Op::SEndpgm, []),
        ];
        let mut r = resources(t, 8, 36, 16);
        r.group_segment_bytes = 4096 + 16;
        let m = load(t, "ds", &code, &r, ptr_args(2));
        let input: Vec<u32> = (0..4 * n).map(|_| rng.random()).collect();
        let din = dev.upload(&input).unwrap();
        let mut out = dev.alloc::<u32>(32 * n).unwrap();
        let mut a = KernelArgs::new();
        a.push(&din).push(&out.as_slice_mut());
        launch(&m, "ds", LaunchConfig::linear(1, n as u32), &a).unwrap();
        let got = out.to_vec().unwrap();
        let x = |l: usize, k: usize| input[4 * l + k];
        let sum = (0..n).fold(0u32, |s, l| s.wrapping_add(x(l, 0)));
        let max = (0..n).map(|l| x(l, 1)).max().unwrap();
        let mut rtn_u: Vec<u32> = (0..n).map(|l| got[32 * l + 12]).collect();
        let mut rtn_f: Vec<f32> = (0..n).map(|l| f32::from_bits(got[32 * l + 13])).collect();
        rtn_u.sort();
        rtn_f.sort_by(f32::total_cmp);
        assert_eq!(rtn_u, (0..n as u32).collect::<Vec<_>>(), "{t}");
        assert_eq!(rtn_f, (0..n).map(|i| i as f32).collect::<Vec<_>>(), "{t}");
        for l in 0..n {
            let rec = &got[32 * l..32 * l + 20];
            assert_eq!(&rec[0..2], &[x(l, 2), x(l, 3)], "{t} b64 lane {l}");
            assert_eq!(&rec[2..5], &[x(l, 0), x(l, 1), x(l, 2)], "{t} b96 lane {l}");
            assert_eq!(&rec[5..7], &[x(l, 1), x(l, 0)], "{t} read2_b32 lane {l}");
            assert_eq!(
                &rec[7..11],
                &[x(l, 2), x(l, 3), x(l, 0), x(l, 1)],
                "{t} read2_b64 {l}"
            );
            assert_eq!(rec[11], x((l + n - 5) % n, 0), "{t} permute lane {l}");
            assert_eq!(
                &rec[16..20],
                &[sum, max, (n as f32).to_bits(), n as u32],
                "{t} atomics"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Generic (flat) addresses

/// One wave: each lane stores `lane + 100` to LDS through a generic address built from
/// `src_shared_base` (lane 0 at the aperture's first byte), reads it back with
/// `ds_read_b32`, stores it plus one to private offset 4 through `src_private_base`,
/// loads that back with `flat_load_dword`, writes it to `out[lane]` and adds the lane id
/// to `count[0]` with a flat atomic on the global address. Kernargs: out, count.
fn generic_code(t: IsaTarget) -> Vec<Instr> {
    let both = wait(t, Some(0), Some(0));
    vec![
        Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)]),
        wait(t, None, Some(0)),
        Instr::new(Op::VLshlrevB32, [v(1), Operand::Int(2), v(0)]),
        Instr::new(
            Op::SMovB64,
            [sr(10, 2), Operand::Aperture(Aperture::SharedBase)],
        ),
        Instr::new(Op::VMovB32, [v(2), v(1)]),
        Instr::new(Op::VMovB32, [v(3), s(11)]),
        Instr::new(Op::VAddU32, [v(4), Operand::Literal(100), v(0)]),
        Instr::new(Op::FlatStoreDword, [vr(2, 2), v(4)]),
        both.clone(),
        Instr::new(Op::DsReadB32, [v(5), v(1)]),
        wait(t, None, Some(0)),
        Instr::new(
            Op::SMovB32,
            [s(12), Operand::Aperture(Aperture::PrivateBase)],
        ),
        Instr::new(Op::VMovB32, [v(8), Operand::Int(4)]),
        Instr::new(Op::VMovB32, [v(9), s(12)]),
        Instr::new(Op::VAddU32, [v(10), Operand::Int(1), v(5)]),
        Instr::new(Op::FlatStoreDword, [vr(8, 2), v(10)]),
        both.clone(),
        Instr::new(Op::FlatLoadDword, [v(6), vr(8, 2)]),
        both.clone(),
        Instr::new(Op::GlobalStoreDword, [v(1), v(6), sr(4, 2)]),
        Instr::new(Op::VMovB32, [v(12), s(6)]),
        Instr::new(Op::VMovB32, [v(13), s(7)]),
        Instr::new(Op::FlatAtomicAdd, [vr(12, 2), v(0)]),
        both,
        Instr::new(Op::SEndpgm, []),
    ]
}

#[test]
fn flat_addresses_reach_lds_private_memory_and_global_memory() {
    for t in TARGETS {
        let dev = device(t);
        let lanes = t.wave_size();
        let mut r = resources(t, 16, 14, 16);
        r.group_segment_bytes = lanes * 4;
        r.private_segment_bytes = 16;
        let m = load(t, "generic", &generic_code(t), &r, ptr_args(2));
        let mut out = dev.alloc::<u32>(lanes as usize).unwrap();
        let mut count = dev.alloc::<u32>(1).unwrap();
        let mut a = KernelArgs::new();
        a.push(&out.as_slice_mut()).push(&count.as_slice_mut());
        launch(&m, "generic", LaunchConfig::linear(1, lanes), &a).unwrap();
        let want: Vec<u32> = (0..lanes).map(|l| l + 101).collect();
        assert_eq!(out.to_vec().unwrap(), want, "{t}");
        assert_eq!(count.to_vec().unwrap(), [lanes * (lanes - 1) / 2], "{t}");
    }
}

/// One lane stores to the generic address in its kernarg (a u64).
fn store_at(t: IsaTarget, address: u64) -> Result<()> {
    let code = [
        Instr::new(Op::SLoadDwordx2, [sr(4, 2), sr(0, 2)]),
        wait(t, None, Some(0)),
        Instr::new(Op::VMovB32, [v(2), s(4)]),
        Instr::new(Op::VMovB32, [v(3), s(5)]),
        Instr::new(Op::FlatStoreDword, [vr(2, 2), v(0)]),
        wait(t, Some(0), Some(0)),
        Instr::new(Op::SEndpgm, []),
    ];
    let mut r = resources(t, 8, 4, 8);
    r.group_segment_bytes = 64;
    r.private_segment_bytes = 16;
    let m = load(t, "store_at", &code, &r, vec![CoArg::by_value("a", 0, 8)]);
    let mut a = KernelArgs::new();
    a.push(address);
    launch(&m, "store_at", LaunchConfig::linear(1, 1), &a)
}

#[test]
fn flat_addresses_at_the_aperture_edges() {
    let shared = 0x1_0000u64 << 32;
    let private = 0x2_0000u64 << 32;
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        // Inside: the first and last dword of the 64 LDS bytes and the 16 private bytes.
        for ok in [shared, shared + 60, private, private + 12] {
            store_at(t, ok).unwrap_or_else(|e| panic!("{t} {ok:#x}: {e}"));
        }
        // Past the end of each space, below and above each aperture: a fault naming
        // the address, never a panic.
        for (bad, says) in [
            (shared + 64, "LDS"),
            (shared + 62, "LDS"),
            (shared | 0xffff_fffc, "LDS"),
            (private + 16, "private"),
            (private + 14, "private"),
            (shared - 4, "live allocation"),
            (shared + (1 << 32), "live allocation"),
            (private - 4, "live allocation"),
            (private + (1 << 32), "live allocation"),
        ] {
            match store_at(t, bad) {
                Err(Error::KernelFault { address, what, .. }) => {
                    assert_eq!(address, Some(bad), "{t}");
                    assert!(what.contains(says), "{t} {bad:#x}: {what}");
                }
                other => panic!("{t} {bad:#x}: {other:?}"),
            }
        }
    }
}

#[test]
fn aperture_registers_read_as_the_hardware_defines_them() {
    use super::wave::aperture_value;
    assert_eq!(aperture_value(Aperture::SharedBase, true), 0x1_0000 << 32);
    assert_eq!(aperture_value(Aperture::SharedBase, false), 0x1_0000);
    assert_eq!(
        aperture_value(Aperture::SharedLimit, true),
        0x1_0000 << 32 | 0xffff_ffff
    );
    assert_eq!(aperture_value(Aperture::PrivateBase, false), 0x2_0000);
    assert_eq!(
        aperture_value(Aperture::PrivateLimit, true),
        0x2_0000 << 32 | 0xffff_ffff
    );
}

#[test]
fn fma_mix_reads_an_inline_float_as_f16_where_op_sel_hi_says_f16() {
    let h15 = u32::from(half::f16::from_f32(1.5).to_bits());
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let mix = |d: u16, a: Operand, hi: u8| {
            let mut i = Instr::new(
                Op::VFmaMixF32,
                [v(d), a, Operand::Float(InlineFloat::NegHalf), v(2)],
            );
            i.mods.op_sel_hi = hi;
            i
        };
        let code = [
            Instr::new(Op::SLoadDwordx2, [sr(4, 2), sr(0, 2)]),
            Instr::new(Op::VMovB32, [v(1), Operand::Literal(3.0f32.to_bits())]),
            Instr::new(Op::VMovB32, [v(2), Operand::Literal(0.5f32.to_bits())]),
            Instr::new(Op::VMovB32, [v(4), Operand::Literal(h15)]),
            // f32 source, constant read as f16 (-0.5): 3 * -0.5 + 0.5.
            mix(3, v(1), 0b010),
            // f32 source, constant as f32.
            mix(5, v(1), 0b000),
            // f16 source and constant: 1.5 * -0.5 + 0.5.
            mix(6, v(4), 0b011),
            Instr::new(Op::VMovB32, [v(0), Operand::Int(0)]),
            wait(t, None, Some(0)),
            Instr::new(Op::GlobalStoreDword, [v(0), v(3), sr(4, 2)]),
            Instr::new(Op::GlobalStoreDword, [v(0), v(5), sr(4, 2)]).offset(4),
            Instr::new(Op::GlobalStoreDword, [v(0), v(6), sr(4, 2)]).offset(8),
            Instr::new(Op::SEndpgm, []),
        ];
        let m = load(t, "mix", &code, &resources(t, 8, 8, 8), ptr_args(1));
        let dev = device(t);
        let mut out = dev.alloc::<f32>(3).unwrap();
        let mut a = KernelArgs::new();
        a.push(&out.as_slice_mut());
        launch(&m, "mix", LaunchConfig::linear(1, 1), &a).unwrap();
        assert_eq!(out.to_vec().unwrap(), [-1.0, -1.0, -0.25], "{t}");
    }
}
