//! Throughput of the emulated AMD device: lane-instructions per second (criterion
//! `Throughput::Elements` counts lane-instructions: each issued wave instruction times
//! the lanes active in EXEC).
//!
//! Run: `cargo bench -p rocm-core --bench emu`. Two kernels on `emu:gfx90a` (wave64) and
//! `emu:gfx1100` (wave32): `own_ops` (cross-lane VALU, LDS swizzle with its `s_waitcnt`,
//! global load/store: instructions the interpreter executes itself) and `valu_f32` (an
//! unrolled f32 multiply-add chain through `emu::alu`). A kernel that faults is skipped
//! with the error printed.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rocm_core::isa::amdgpu::codeobj::{
    CodeObject, CodeObjectTarget, Kernel, KernelArg, KernelResources,
};
use rocm_core::isa::amdgpu::*;
use rocm_core::{Device, KernelArgs, LaunchConfig, ModuleImage};

const GROUPS: u32 = 64;
const BLOCK: u32 = 256;
const BODY: usize = 128;

fn wait_all(t: IsaTarget) -> Instr {
    let m = Waitcnt::max(t.family());
    Instr::new(
        Op::SWaitcnt,
        [Operand::Waitcnt(Waitcnt {
            vm: 0,
            exp: m.exp,
            lgkm: 0,
        })],
    )
}

/// Prologue: s[4:7] = (in, out); v1 = byte offset of the work-item in its workgroup's
/// slice; v2 = in[...].
fn prologue(t: IsaTarget) -> Vec<Instr> {
    let mut code = vec![Instr::new(Op::SLoadDwordx4, [sr(4, 4), sr(0, 2)])];
    for _ in 0..4 {
        code.push(Instr::new(
            Op::VMbcntLoU32B32,
            [v(1), Operand::Int(-1), v(1)],
        ));
        if t.wave_size() == 64 {
            code.push(Instr::new(
                Op::VMbcntHiU32B32,
                [v(1), Operand::Int(-1), v(1)],
            ));
        }
    }
    code.extend([
        wait_all(t),
        Instr::new(Op::GlobalLoadDword, [v(2), v(1), sr(4, 2)]),
        wait_all(t),
    ]);
    code
}

fn epilogue(code: &mut Vec<Instr>, t: IsaTarget, result: u16) {
    code.extend([
        wait_all(t),
        Instr::new(Op::GlobalStoreDword, [v(1), v(result), sr(6, 2)]),
        Instr::new(Op::SEndpgm, []),
    ]);
}

fn own_ops(t: IsaTarget) -> Vec<Instr> {
    let mut code = prologue(t);
    for _ in 0..BODY / 4 {
        code.extend([
            Instr::new(Op::VMbcntLoU32B32, [v(3), v(2), v(3)]),
            Instr::new(Op::DsSwizzleB32, [v(4), v(3)]).offset(0x041f),
            Instr::new(Op::VMbcntLoU32B32, [v(2), v(3), v(2)]),
            wait_all(t),
            Instr::new(Op::VMbcntLoU32B32, [v(3), v(4), v(3)]),
        ]);
    }
    epilogue(&mut code, t, 3);
    code
}

fn valu_f32(t: IsaTarget) -> Vec<Instr> {
    let mut code = prologue(t);
    code.push(Instr::new(
        Op::VMovB32,
        [v(3), Operand::Float(InlineFloat::Half)],
    ));
    for _ in 0..BODY / 4 {
        code.extend([
            Instr::new(
                Op::VFmaF32,
                [v(3), v(2), v(3), Operand::Float(InlineFloat::One)],
            ),
            Instr::new(Op::VMulF32, [v(4), v(3), v(2)]),
            Instr::new(Op::VAddF32, [v(3), v(4), v(3)]),
            Instr::new(Op::VAddU32, [v(5), v(1), v(5)]),
        ]);
    }
    epilogue(&mut code, t, 3);
    code
}

fn module(t: IsaTarget, name: &str, code: &[Instr]) -> rocm_core::Module {
    let ct = CodeObjectTarget::new(t);
    let mut r = KernelResources::new(t);
    r.sgprs = 8;
    r.vgprs = 6;
    r.kernarg_bytes = 16;
    let args = vec![
        KernelArg::global_buffer("in", 0),
        KernelArg::global_buffer("out", 8),
    ];
    let k = Kernel::build(ct, name, code, &r, args, 1024).expect("kernel builds");
    let elf = CodeObject {
        target: ct,
        kernels: vec![k],
    }
    .to_elf()
    .expect("code object");
    let dev = Device::open(&format!("emu:{t}")).expect("emulated device");
    dev.load_module(&ModuleImage::CodeObject(elf))
        .expect("module loads")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("emu");
    g.sample_size(10);
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let dev = Device::open(&format!("emu:{t}")).expect("emulated device");
        let n = (GROUPS * BLOCK) as usize;
        let input: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.01).collect();
        let din = dev.upload(&input).expect("upload");
        for (name, code) in [("own_ops", own_ops(t)), ("valu_f32", valu_f32(t))] {
            let m = module(t, name, &code);
            let k = m.kernel(name).expect("kernel");
            let mut out = dev.alloc::<f32>(n).expect("alloc");
            let mut args = KernelArgs::new();
            args.push(&din).push(&out.as_slice_mut());
            let cfg = LaunchConfig::linear(GROUPS, BLOCK);
            let stream = dev.default_stream().clone();
            // SAFETY: the emulator checks every access of the kernel.
            let run = || unsafe { k.launch(&stream, &cfg, &args) };
            let before = rocm_core::emu::executed();
            if let Err(e) = run() {
                eprintln!("emu/{name}/{t}: skipped ({e})");
                continue;
            }
            let lanes = rocm_core::emu::executed().lane_instructions - before.lane_instructions;
            g.throughput(Throughput::Elements(lanes));
            g.bench_function(format!("{name}/{t}"), |b| b.iter(|| run().expect("launch")));
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
