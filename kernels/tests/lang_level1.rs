//! Level 1 written in the language (`rocm_kernels::lang::level1`): every variant
//! declares the one signature (`level1::signature`), assembles with ptxas without
//! spills and lowers for every AMD target; and in the PTX interpreter every op on every
//! dtype gives the bits of the hand-written PTX generator (elementwise ops), the same
//! finished reductions within their bound, and the same iamax/iamin index.
//!
//! `LEVEL1_REGISTERS=1` prints each kernel's registers (ptxas on sm_90, VGPRs and
//! occupancy on the AMD targets): the table of bench/results/2026-12-01-lang-level1.txt.

mod common;
#[allow(dead_code)]
mod ptx_sim;

use common::host::Rng;
use rocm_core::{DType, Device, KernelArgs, LaunchConfig, Target};
use rocm_kernels::generator::Generator;
use rocm_kernels::lang::{self, ptx, ParamType};
use rocm_kernels::level1::{
    partial_slots, signature, supports, L1Op, Level1, Level1Params, ALL_OPS, CONVERSIONS, DTYPES,
};
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};

#[test]
fn every_variant_declares_one_signature_and_lowers_everywhere() {
    let report = std::env::var_os("LEVEL1_REGISTERS").is_some();
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas not found ({HOW_TO_GET}): PTX is lowered but not assembled");
    }
    let sm90: Target = "sm_90".parse().unwrap();
    let amd: Vec<Target> = ["gfx908", "gfx90a", "gfx942", "gfx1100"]
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    let all = Level1Params::coverage();
    for p in &all {
        let def = lang::level1::kernel(p, &sm90).unwrap();
        assert_eq!(def.signature(), &signature(p).unwrap(), "{p:?}");
        let text = ptx::lower(&def).unwrap();
        let mut line = format!("{p:?}");
        if let Some(ptxas) = &ptxas {
            let r = ptxas
                .compile(&text, &sm90)
                .unwrap_or_else(|e| panic!("{p:?}: {e}\n{text}"));
            assert!(r.warnings.is_empty(), "{p:?}: {:?}", r.warnings);
            let k = r.kernel(&def.name).unwrap();
            assert_eq!(
                (k.spill_loads, k.spill_stores, k.stack_bytes),
                (0, 0, 0),
                "{p:?} spills"
            );
            line += &format!(" sm_90 {} regs", k.registers);
        }
        for t in &amd {
            let def = lang::level1::kernel(p, t).unwrap();
            assert_eq!(def.signature(), &signature(p).unwrap(), "{p:?} {t}");
            let k = lang::amdgpu::lower(&def).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}"));
            line += &format!(" {t} {} vgprs {} waves", k.report.vgprs, k.report.occupancy);
        }
        if report {
            eprintln!("{line}");
        }
    }
    eprintln!("{} variants lowered for sm_90 and 4 AMD targets", all.len());
}

/// The bytes of `v` as one real of `d`'s real type.
fn real_bytes(d: DType, v: f64) -> Vec<u8> {
    match d {
        DType::F32 | DType::C32 => (v as f32).to_le_bytes().to_vec(),
        DType::F64 | DType::C64 => v.to_le_bytes().to_vec(),
        DType::F16 => rocm_core::f16::from_f64(v).to_le_bytes().to_vec(),
        DType::Bf16 => rocm_core::bf16::from_f64(v).to_le_bytes().to_vec(),
        d => unreachable!("{d}"),
    }
}

fn reals(d: DType) -> u64 {
    if d.is_complex() {
        2
    } else {
        1
    }
}

/// One run's memory after the kernel: x's and y's bytes and the partials.
type Outcome = (Vec<u8>, Vec<u8>, Vec<f64>);

/// The arguments of one run: n, the vectors' bytes and increments, the scalars' bits.
struct Run<'a> {
    p: &'a Level1Params,
    n: u64,
    grid: u32,
    x: &'a [u8],
    y: &'a [u8],
    incx: i64,
    incy: i64,
    scalars: &'a [u64],
}

impl Run<'_> {
    fn sizes(&self) -> (u64, u64) {
        let to = match self.p.op {
            L1Op::Convert { to } => to,
            _ => self.p.dtype,
        };
        (self.p.dtype.size() as u64, to.size() as u64)
    }

    /// Byte offset of logical element 0: the last element for a negative increment.
    fn start(inc: i64, len: usize, size: u64) -> u64 {
        if inc < 0 {
            len as u64 - size
        } else {
            0
        }
    }

    fn partial_count(&self) -> usize {
        partial_slots(self.p.op, self.p.dtype) * self.grid as usize
    }

    /// The kernel's parameters with x, y and partials at `xa`, `ya`, `pa`.
    fn params(
        &self,
        sig: &rocm_kernels::signature::Signature,
        xa: u64,
        ya: u64,
        pa: u64,
    ) -> Vec<u64> {
        let (es, ys) = self.sizes();
        let op = self.p.op;
        let mut params = vec![
            self.n,
            xa + Self::start(self.incx, self.x.len(), es),
            self.incx as u64,
        ];
        if op.has_y() {
            params.push(ya + Self::start(self.incy, self.y.len(), ys));
            params.push(self.incy as u64);
        }
        let fixed = params.len() + usize::from(op.is_reduction());
        params.extend(&self.scalars[..sig.params.len() - fixed]);
        if op.is_reduction() {
            params.push(pa);
        }
        params
    }

    fn ptx(&self, k: &ptx_sim::Kernel, sig: &rocm_kernels::signature::Signature) -> Outcome {
        let mut mem = ptx_sim::Memory::default();
        let (xa, ya) = (mem.alloc(self.x.to_vec()), mem.alloc(self.y.to_vec()));
        let pa = mem.alloc(vec![0u8; self.partial_count() * 8]);
        let params = self.params(sig, xa, ya, pa);
        k.run([self.grid, 1, 1], self.p.block, &params, &mut mem);
        let partials = mem
            .bytes(pa)
            .chunks(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        (mem.bytes(xa).to_vec(), mem.bytes(ya).to_vec(), partials)
    }

    fn amd(&self, dev: &Device, prog: &rocm_kernels::generator::Program) -> Outcome {
        let sig = &prog.signatures[0];
        let m = dev.load_module(&prog.image).unwrap();
        let f = m.kernel(&prog.kernels[0]).unwrap();
        let up = |b: &[u8]| {
            dev.upload(if b.is_empty() { &[0u8][..] } else { b })
                .unwrap()
        };
        let (xd, yd) = (up(self.x), up(self.y));
        let pd = dev
            .upload(&vec![0f64; self.partial_count().max(1)])
            .unwrap();
        let params = self.params(sig, xd.address(), yd.address(), pd.address());
        let mut args = KernelArgs::new();
        for (v, param) in params.iter().zip(&sig.params) {
            match param.ty {
                ParamType::Pointer { .. } => args.push_pointer(*v, dev),
                ParamType::Scalar(t) if t.size() == 8 => args.push(*v),
                ParamType::Scalar(_) => args.push(*v as u32),
                other => panic!("no Level 1 parameter is a {other:?}"),
            };
        }
        let cfg = LaunchConfig::linear(self.grid, self.p.block);
        // SAFETY: the arguments follow the kernel's signature; the vectors hold every
        // element the increments reach and the partials `slots × grid` f64s; the
        // emulated device checks every access against the buffers.
        unsafe { f.launch(dev.default_stream(), &cfg, &args).unwrap() };
        dev.synchronize().unwrap();
        let mut partials = pd.to_vec().unwrap();
        partials.truncate(self.partial_count());
        let (mut x, mut y) = (xd.to_vec().unwrap(), yd.to_vec().unwrap());
        x.truncate(self.x.len());
        y.truncate(self.y.len());
        (x, y, partials)
    }
}

/// One kernel, every target: the PTX lowering in the PTX interpreter and the AMDGPU
/// lowering on emu:gfx90a (wave64) and emu:gfx1100 (wave32) write the same bytes
/// (vectors and every workgroup's partials: the workgroup tree does not depend on the
/// wave size), on odd lengths, every vector width, strided with negative increments,
/// one workgroup per tile and grid-stride. The finished reductions are checked against
/// the host elsewhere (`level1_devices`, the BLAS tests); here the partials are also
/// required to be finite and, for the sums, not all zero.
#[test]
fn every_op_gives_the_same_bits_on_every_target() {
    let sm90: Target = "sm_90".parse().unwrap();
    let amd: Vec<(Target, Device)> = ["gfx90a", "gfx1100"]
        .iter()
        .map(|t| {
            (
                t.parse().unwrap(),
                Device::open(&format!("emu:{t}")).unwrap(),
            )
        })
        .collect();
    let mut rng = Rng(7);
    let ops = ALL_OPS.iter().flat_map(|op| DTYPES.map(|d| (*op, d)));
    let conversions = CONVERSIONS.map(|(from, to)| (L1Op::Convert { to }, from));
    let mut checked = 0;
    for (op, dtype) in ops.chain(conversions).filter(|(o, d)| supports(*o, *d)) {
        let to = match op {
            L1Op::Convert { to } => to,
            _ => dtype,
        };
        let es = dtype.size() as u32;
        let shapes = [
            (true, 16, 1, 1),
            (true, es, 1, 1),
            (false, es, 3, -2),
            (false, es, -1, 1),
        ];
        for (contiguous, vector_bytes, incx, incy) in shapes {
            for grid_stride in [false, true] {
                let p = Level1Params {
                    vector_bytes,
                    block: 64,
                    unroll: 2,
                    grid: 3,
                    grid_stride,
                    ..Level1Params::fallback(op, dtype, contiguous)
                };
                if op.is_reduction() && !grid_stride {
                    continue;
                }
                let def = lang::level1::kernel(&p, &sm90).unwrap();
                let ptx_kernel = ptx_sim::Kernel::parse(&ptx::lower(&def).unwrap());
                let programs: Vec<_> = amd
                    .iter()
                    .map(|(t, _)| Level1::generate(&p, t).unwrap())
                    .collect();
                for n in [1u64, 37, 1001] {
                    let grid = if p.loops() {
                        p.grid
                    } else {
                        n.div_ceil(p.elements_per_tile().unwrap()) as u32
                    };
                    let vector = |rng: &mut Rng, d: DType, inc: i64| -> Vec<u8> {
                        let len = (n as i64 - 1) * inc.abs() + 1;
                        (0..len as u64 * reals(d))
                            .flat_map(|_| real_bytes(d, rng.unit() * 4.0))
                            .collect()
                    };
                    let xs = vector(&mut rng, dtype, incx);
                    let ys = vector(&mut rng, to, incy);
                    let scalar_f64 = matches!(dtype, DType::F64 | DType::C64);
                    let scalars: Vec<u64> = (0..8)
                        .map(|_| {
                            let v = rng.unit();
                            if scalar_f64 {
                                v.to_bits()
                            } else {
                                (v as f32).to_bits() as u64
                            }
                        })
                        .collect();
                    let run = Run {
                        p: &p,
                        n,
                        grid,
                        x: &xs,
                        y: &ys,
                        incx,
                        incy,
                        scalars: &scalars,
                    };
                    let want = run.ptx(&ptx_kernel, def.signature());
                    if op.is_reduction() {
                        assert!(
                            want.2
                                .iter()
                                .all(|v| !v.is_nan() || matches!(op, L1Op::Iamax { .. })),
                            "{p:?}"
                        );
                        if !matches!(op, L1Op::Iamax { .. }) {
                            assert!(
                                want.2.iter().any(|v| *v != 0.0),
                                "{p:?} n = {n}: no partials"
                            );
                        }
                    } else {
                        assert!(
                            op == L1Op::Copy || n == 1 || (want.0 != xs) || (want.1 != ys),
                            "{p:?}: nothing written"
                        );
                    }
                    for ((t, dev), prog) in amd.iter().zip(&programs) {
                        let got = run.amd(dev, prog);
                        assert!(want.0 == got.0, "{p:?} n = {n} on {t}: x differs");
                        assert!(want.1 == got.1, "{p:?} n = {n} on {t}: y differs");
                        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                        assert_eq!(
                            bits(&want.2),
                            bits(&got.2),
                            "{p:?} n = {n} on {t}: partials"
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} runs compared on sm_90 (PTX interpreter), gfx90a and gfx1100");
}
