//! Level 1 written in the language (`rocm_kernels::lang::level1`): every variant
//! declares the one signature (`level1::ptx_signature`), assembles with ptxas without
//! spills and lowers for every AMD target; and in the PTX interpreter every op on every
//! dtype gives the bits of the hand-written PTX generator (elementwise ops), the same
//! finished reductions within their bound, and the same iamax/iamin index.
//!
//! `LEVEL1_REGISTERS=1` prints each kernel's registers (ptxas on sm_90, VGPRs and
//! occupancy on the AMD targets): the table of bench/results/2026-12-01-lang-level1.txt.

#[allow(dead_code)]
mod ptx_sim;

use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::generator::Generator;
use rocm_kernels::lang::{self, ptx};
use rocm_kernels::level1::finish::{finish_index, finish_sum};
use rocm_kernels::level1::{
    partial_slots, ptx_signature, supports, L1Op, Level1, Level1Params, ALL_OPS, CONVERSIONS,
    DTYPES,
};
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};

/// Every supported (op, dtype), contiguous and strided, in three shapes: the fallback;
/// element-wide accesses with one unit per work-item; 4-byte accesses with two units
/// per work-item where they hold whole elements.
fn variants() -> Vec<Level1Params> {
    let ops = ALL_OPS.iter().flat_map(|op| DTYPES.map(|d| (*op, d)));
    let conversions = CONVERSIONS.map(|(from, to)| (L1Op::Convert { to }, from));
    let mut out = Vec::new();
    for (op, dtype) in ops.chain(conversions).filter(|(o, d)| supports(*o, *d)) {
        for contiguous in [true, false] {
            let mut p = Level1Params::fallback(op, dtype, contiguous);
            out.push(p.clone());
            p.vector_bytes = dtype.size() as u32;
            p.unroll = 1;
            p.block = 128;
            out.push(p.clone());
            if contiguous && dtype.size() <= 4 {
                p.vector_bytes = 4;
                p.unroll = 2;
                out.push(p);
            }
        }
    }
    out
}

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
    let all = variants();
    for p in &all {
        let def = lang::level1::kernel(p, &sm90).unwrap();
        assert_eq!(def.signature(), &ptx_signature(p).unwrap(), "{p:?}");
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
            assert_eq!(def.signature(), &ptx_signature(p).unwrap(), "{p:?} {t}");
            let k = lang::amdgpu::lower(&def).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}"));
            line += &format!(" {t} {} vgprs {} waves", k.report.vgprs, k.report.occupancy);
        }
        if report {
            eprintln!("{line}");
        }
    }
    eprintln!("{} variants lowered for sm_90 and 4 AMD targets", all.len());
}

struct Rng(u64);

impl Rng {
    /// Uniform in [-1, 1).
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
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

/// The finished result of a first pass's partials (`grid` per slot), as f64s: sums per
/// slot, nrm2's Blue combination, iamax's index.
fn finished(op: L1Op, dtype: DType, partials: &[f64], grid: usize) -> Vec<f64> {
    let slots: Vec<&[f64]> = partials.chunks(grid).collect();
    match op {
        L1Op::Iamax { max } => {
            vec![finish_index(slots[0], slots[1], max).map_or(-1.0, |i| i as f64)]
        }
        L1Op::Nrm2 => vec![rocm_kernels::level1::blue_finish(
            finish_sum(slots[0]),
            finish_sum(slots[1]),
            finish_sum(slots[2]),
        )],
        _ => (0..partial_slots(op, dtype))
            .map(|s| finish_sum(slots[s]))
            .collect(),
    }
}

/// Both kernels in the PTX interpreter on the same random data, odd lengths, every
/// vector width, strided with negative increments, one workgroup per tile and
/// grid-stride: elementwise ops write the same bytes; reductions finish to the same
/// index (iamax/iamin) or within 2⁻¹⁸·Σ|terms| (both accumulate at least in f32, at
/// most 32 terms per work-item, and combine 64 work-items in a tree of depth 6 and 3
/// workgroups: each sum is within (32 + 6 + 3)·2⁻²⁴·Σ|terms| < 2⁻¹⁹·Σ|terms| of the
/// exact one).
#[test]
fn every_op_matches_the_ptx_generator_in_the_ptx_interpreter() {
    let t: Target = "sm_90".parse().unwrap();
    let mut rng = Rng(7);
    let ops = ALL_OPS.iter().flat_map(|op| DTYPES.map(|d| (*op, d)));
    let conversions = CONVERSIONS.map(|(from, to)| (L1Op::Convert { to }, from));
    let mut checked = 0;
    for (op, dtype) in ops.chain(conversions).filter(|(o, d)| supports(*o, *d)) {
        let to = match op {
            L1Op::Convert { to } => to,
            _ => dtype,
        };
        let es = dtype.size() as i64;
        let ys = to.size() as i64;
        let shapes = [
            (true, 16, 1, 1),
            (true, es as u32, 1, 1),
            (false, es as u32, 3, -2),
            (false, es as u32, -1, 1),
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
                let old = match Level1::generate(&p, &t).unwrap().image {
                    ModuleImage::Ptx(text) => ptx_sim::Kernel::parse(&text),
                    _ => unreachable!("PTX on sm_90"),
                };
                let def = lang::level1::kernel(&p, &t).unwrap();
                let new = ptx_sim::Kernel::parse(&ptx::lower(&def).unwrap());
                for n in [1u64, 37, 1001] {
                    let grid = if p.loops() {
                        p.grid
                    } else {
                        n.div_ceil(p.elements_per_tile().unwrap()) as u32
                    };
                    let vector = |rng: &mut Rng, d: DType, inc: i64| -> Vec<u8> {
                        let len = (n as i64 - 1) * inc.abs() + 1;
                        (0..len as u64 * reals(d))
                            .flat_map(|_| real_bytes(d, rng.next() * 4.0))
                            .collect()
                    };
                    let xs = vector(&mut rng, dtype, incx);
                    let yv = vector(&mut rng, to, incy);
                    let scalar_f64 = matches!(dtype, DType::F64 | DType::C64);
                    let scalars: Vec<u64> = (0..8)
                        .map(|_| {
                            let v = rng.next();
                            if scalar_f64 {
                                v.to_bits()
                            } else {
                                (v as f32).to_bits() as u64
                            }
                        })
                        .collect();
                    let slots = partial_slots(op, dtype);
                    let run = |k: &ptx_sim::Kernel| -> (Vec<u8>, Vec<u8>, Vec<f64>) {
                        let mut mem = ptx_sim::Memory::default();
                        let (xa, ya) = (mem.alloc(xs.clone()), mem.alloc(yv.clone()));
                        let pa = mem.alloc(vec![0u8; slots * grid as usize * 8]);
                        // Address of logical element 0: the last one for a negative step.
                        let start = |a: u64, inc: i64, len: usize, size: i64| {
                            if inc < 0 {
                                a + len as u64 - size as u64
                            } else {
                                a
                            }
                        };
                        let mut params = vec![n, start(xa, incx, xs.len(), es), incx as u64];
                        if op.has_y() {
                            params.push(start(ya, incy, yv.len(), ys));
                            params.push(incy as u64);
                        }
                        let sig = def.signature();
                        let fixed = params.len() + usize::from(op.is_reduction());
                        params.extend(&scalars[..sig.params.len() - fixed]);
                        if op.is_reduction() {
                            params.push(pa);
                        }
                        k.run([grid, 1, 1], p.block, &params, &mut mem);
                        let partials = mem
                            .bytes(pa)
                            .chunks(8)
                            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
                            .collect();
                        (mem.bytes(xa).to_vec(), mem.bytes(ya).to_vec(), partials)
                    };
                    let (want, got) = (run(&old), run(&new));
                    if op.is_reduction() {
                        let g = grid as usize;
                        let (w, r) = (
                            finished(op, dtype, &want.2, g),
                            finished(op, dtype, &got.2, g),
                        );
                        // Σ|terms| ≤ 32·n (|reals| < 4, a complex product's 4 terms).
                        let bound = 2f64.powi(-18) * 32.0 * n as f64;
                        for (a, b) in w.iter().zip(&r) {
                            if matches!(op, L1Op::Iamax { .. }) {
                                assert_eq!(a, b, "{p:?} n = {n}");
                            } else {
                                assert!((a - b).abs() <= bound, "{p:?} n = {n}: {a} vs {b}");
                            }
                        }
                    } else {
                        assert!(want.0 == got.0, "{p:?} n = {n}: x differs");
                        assert!(want.1 == got.1, "{p:?} n = {n}: y differs");
                    }
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} runs compared");
}
