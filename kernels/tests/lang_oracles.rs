//! The three oracles of the kernel language on the same random inputs: the CPU
//! interpreter (`lang::interp`), the PTX lowering in the PTX interpreter (`ptx_sim`), and
//! the AMDGPU lowering on the emulated devices. Every example kernel is built once per
//! target and must give
//!
//! - on a wave32 target (sm_90, gfx1100): the same output bits in all three (the kernel
//!   built for sm_90 and for gfx1100 is the same program: both waves are 32 lanes, so
//!   the reductions add in the same order);
//! - on the wave64 targets (gfx908, gfx90a, gfx942): the interpreter's bits for that
//!   target on the emulator.
//!
//! Exact except the row softmax: its `div` is the AMDGPU lowering's Newton-refined
//! reciprocal (the IR allows 1 ulp) and its `exp2` the emulator's f64 `exp2` rounded to
//! f32 (a double rounding: at most 1 ulp from the correctly rounded value the other two
//! compute); one ulp of an exponential moves the row sum by at most 2⁻²⁴ relative, so the
//! outputs may differ by 1 (div) + 1 (own exp2) + 1 (sum) = 3 ulps: checked at 4.

mod common;
#[allow(dead_code)]
mod ptx_sim;

use common::emu;
use common::lang::run;
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::Target;
use rocm_kernels::lang::interp::{self, Arg};
use rocm_kernels::lang::{amdgpu, examples, ptx, KernelDef, Scalar};

/// xorshift64*, uniform in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (r >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn floats<T: interp::Element>(rng: &mut Rng, n: usize, f: impl Fn(f64) -> T) -> Arg {
    Arg::buffer(&(0..n).map(|_| f(rng.next())).collect::<Vec<T>>())
}

/// One launch of an example: its name, grid, block and arguments.
struct Case {
    name: &'static str,
    build: fn(&Target) -> rocm_core::Result<KernelDef>,
    grid: u32,
    block: u32,
    args: Vec<Arg>,
    /// Ulps allowed between the AMDGPU result and the others (f32 buffers).
    ulps: u32,
}

fn workgroup_sum_f32(t: &Target) -> rocm_core::Result<KernelDef> {
    examples::workgroup_sum(t, Scalar::F32)
}

fn workgroup_sum_f64(t: &Target) -> rocm_core::Result<KernelDef> {
    examples::workgroup_sum(t, Scalar::F64)
}

fn cases(rng: &mut Rng) -> Vec<Case> {
    let n = 700usize;
    let n32 = Arg::u32(n as u32);
    let (rows, cols) = (3usize, 300u32);
    vec![
        Case {
            name: "vector_add",
            build: examples::vector_add,
            grid: n.div_ceil(128) as u32,
            block: 128,
            args: vec![
                floats(rng, n, |v| v as f32),
                floats(rng, n, |v| v as f32),
                Arg::buffer(&vec![0f32; n]),
                n32.clone(),
            ],
            ulps: 0,
        },
        Case {
            name: "axpy",
            build: examples::axpy,
            grid: 2,
            block: 128,
            args: vec![
                n32.clone(),
                Arg::f64(rng.next()),
                floats(rng, n, |v| v),
                floats(rng, n, |v| v),
            ],
            ulps: 0,
        },
        Case {
            name: "convert_f16",
            build: examples::convert_f16,
            grid: n.div_ceil(64) as u32,
            block: 64,
            args: vec![
                n32.clone(),
                floats(rng, n, |v| (v * 1e5) as f32),
                Arg::buffer(&vec![0u16; n]),
            ],
            ulps: 0,
        },
        Case {
            name: "workgroup_sum_f32",
            build: workgroup_sum_f32,
            grid: 4,
            block: 128,
            args: vec![
                n32.clone(),
                floats(rng, n, |v| v as f32),
                Arg::buffer(&[0f32; 4]),
            ],
            ulps: 0,
        },
        Case {
            name: "workgroup_sum_f64",
            build: workgroup_sum_f64,
            grid: 4,
            block: 256,
            args: vec![n32.clone(), floats(rng, n, |v| v), Arg::buffer(&[0f64; 4])],
            ulps: 0,
        },
        Case {
            name: "divergent",
            build: examples::divergent,
            grid: n.div_ceil(64) as u32,
            block: 64,
            args: vec![
                n32.clone(),
                floats(rng, n, |v| v as f32),
                Arg::buffer(&vec![0f32; n]),
                Arg::buffer(&vec![0u32; n]),
            ],
            ulps: 0,
        },
        Case {
            name: "varying_loop",
            build: examples::varying_loop,
            grid: n.div_ceil(64) as u32,
            block: 64,
            args: vec![
                n32.clone(),
                floats(rng, n, |v| ((v + 1.0) * 20.0) as u32),
                floats(rng, n, |v| v as f32),
                Arg::buffer(&vec![0f32; n]),
            ],
            ulps: 0,
        },
        Case {
            name: "wave_ops",
            build: examples::wave_ops,
            grid: 2,
            block: 128,
            args: vec![
                floats(rng, 256, |v| (v * 4e9) as i64 as u32),
                Arg::buffer(&[0u32; 4 * 256]),
                Arg::buffer(&[0u64; 3 * 256]),
            ],
            ulps: 0,
        },
        Case {
            name: "softmax_row",
            build: examples::softmax_row,
            grid: rows as u32,
            block: 128,
            args: vec![
                Arg::u32(cols),
                floats(rng, rows * cols as usize, |v| (v * 3.0) as f32),
                Arg::buffer(&vec![0f32; rows * cols as usize]),
            ],
            ulps: 4,
        },
    ]
}

/// Every buffer of `got` against `want`: equal bytes, or f32 words within `ulps`.
fn compare(what: &str, got: &[Arg], want: &[Arg], ulps: u32) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let (Arg::Buffer(g), Arg::Buffer(w)) = (g, w) else {
            continue;
        };
        for (e, (gc, wc)) in g.chunks(4).zip(w.chunks(4)).enumerate() {
            if gc == wc {
                continue;
            }
            let (x, y) = (
                f32::from_le_bytes(gc.try_into().unwrap()),
                f32::from_le_bytes(wc.try_into().unwrap()),
            );
            let apart = (x.to_bits() as i64 - y.to_bits() as i64).unsigned_abs();
            assert!(
                apart <= u64::from(ulps),
                "{what}: argument {i} word {e}: {x:e} vs {y:e} ({apart} ulps)"
            );
        }
    }
}

fn in_ptx_sim(def: &KernelDef, grid: u32, block: u32, args: &[Arg]) -> Vec<Arg> {
    let text = ptx::lower(def).unwrap();
    let kernel = ptx_sim::Kernel::parse(&text);
    let mut mem = ptx_sim::Memory::default();
    let params: Vec<u64> = args
        .iter()
        .map(|a| match a {
            Arg::Scalar(v) => *v,
            Arg::Buffer(b) => mem.alloc(b.clone()),
        })
        .collect();
    kernel.run([grid, 1, 1], block, &params, &mut mem);
    args.iter()
        .zip(&params)
        .map(|(a, p)| match a {
            Arg::Buffer(b) => Arg::Buffer(mem.bytes(*p)[..b.len()].to_vec()),
            other => other.clone(),
        })
        .collect()
}

fn in_interp(def: &KernelDef, grid: u32, block: u32, args: &[Arg]) -> Vec<Arg> {
    let mut out = args.to_vec();
    interp::run(def, [grid, 1, 1], [block, 1, 1], &mut out)
        .unwrap_or_else(|e| panic!("interpreter, {}: {e}", def.name));
    out
}

fn on_emu(t: IsaTarget, def: &KernelDef, grid: u32, block: u32, args: &[Arg]) -> Vec<Arg> {
    let k = amdgpu::lower(def).unwrap_or_else(|e| panic!("{} on {t}: {e}", def.name));
    let mut out = args.to_vec();
    run(&emu(t), def, &k, grid, block, &mut out);
    out
}

#[test]
fn wave32_interpreter_ptx_and_gfx1100_agree() {
    let mut rng = Rng(21);
    let (sm, gfx): (Target, Target) = ("sm_90".parse().unwrap(), "gfx1100".parse().unwrap());
    for c in cases(&mut rng) {
        let (dp, da) = ((c.build)(&sm).unwrap(), (c.build)(&gfx).unwrap());
        let want = in_interp(&dp, c.grid, c.block, &c.args);
        compare(
            &format!("{} ptx_sim vs interpreter", c.name),
            &in_ptx_sim(&dp, c.grid, c.block, &c.args),
            &want,
            0,
        );
        compare(
            &format!("{} gfx1100 interpreter vs sm_90 interpreter", c.name),
            &in_interp(&da, c.grid, c.block, &c.args),
            &want,
            0,
        );
        compare(
            &format!("{} emu:gfx1100 vs interpreter", c.name),
            &on_emu(IsaTarget::Gfx1100, &da, c.grid, c.block, &c.args),
            &want,
            c.ulps,
        );
    }
}

#[test]
fn wave64_interpreter_and_emulators_agree() {
    let mut rng = Rng(22);
    for t in [IsaTarget::Gfx908, IsaTarget::Gfx90a, IsaTarget::Gfx942] {
        let target: Target = t.name().parse().unwrap();
        for c in cases(&mut rng) {
            let def = (c.build)(&target).unwrap();
            compare(
                &format!("{} emu:{t} vs interpreter", c.name),
                &on_emu(t, &def, c.grid, c.block, &c.args),
                &in_interp(&def, c.grid, c.block, &c.args),
                c.ulps,
            );
        }
    }
}
