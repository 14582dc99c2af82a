//! Every default NVIDIA GEMM variant assembles with `ptxas` for sm_80 and sm_90a:
//! no warnings, no spills, no stack, the declared shared memory, and a register count
//! that keeps at least one block resident (printed, so a change shows in the log).
//!
//! Numerical correctness is tested on CUDA devices by rocm-blas's `gemm_gpu` tests.

use rocm_core::{ModuleImage, Target};
use rocm_kernels::gemm::{ptx, Gemm, GemmInstruction};
use rocm_kernels::generator::Generator;
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};

#[test]
fn every_default_variant_passes_ptxas() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: ptxas not found ({HOW_TO_GET})");
        return;
    };
    let variants = ptx::default_variants();
    assert!(variants.len() >= 8, "f32 and f64, every transpose");
    for target in ["sm_80", "sm_90a"] {
        let target: Target = target.parse().unwrap();
        for p in &variants {
            let prog = Gemm::generate(p, &target).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            let ModuleImage::Ptx(text) = &prog.image else {
                panic!("{p:?}: not PTX")
            };
            let report = ptxas
                .compile(text, &target)
                .unwrap_or_else(|e| panic!("{p:?} on {target}: {e}"));
            assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
            let k = report.kernel(ptx::KERNEL).unwrap();
            assert_eq!(k.spill_loads + k.spill_stores, 0, "{p:?} spills");
            assert_eq!(k.stack_bytes, 0, "{p:?} uses a stack frame");
            let threads = p.threads(&target);
            // 64 Ki registers per SM: one block of `threads` must fit, at most 255 each.
            assert!(
                k.registers <= 255 && k.registers * threads <= 65536,
                "{p:?}: {} registers × {threads} threads",
                k.registers
            );
            assert!(
                k.shared_bytes <= 48 * 1024,
                "{p:?}: {} bytes",
                k.shared_bytes
            );
            eprintln!(
                "{target} {}{} {} {}x{}x{} {}x{} warps, {:?}, {} stages: {} registers, {} B shared",
                if p.trans_a { 'T' } else { 'N' },
                if p.trans_b { 'T' } else { 'N' },
                p.ab,
                p.tile_m,
                p.tile_n,
                p.tile_k,
                p.warps_m,
                p.warps_n,
                p.instruction,
                p.stages,
                k.registers,
                k.shared_bytes
            );
        }
    }
}

/// The sm_90a `wgmma` kernels: ptxas-clean for sm_90a (no warnings, spills or stack),
/// no static shared memory (the ring is dynamic), within the register file; other
/// NVIDIA targets refuse them.
#[test]
fn every_wgmma_variant_passes_ptxas() {
    let sm80: Target = "sm_80".parse().unwrap();
    for p in ptx::wgmma_variants() {
        assert!(Gemm::generate(&p, &sm80).is_err(), "{p:?} on sm_80");
    }
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: ptxas not found ({HOW_TO_GET})");
        return;
    };
    for target in ["sm_90", "sm_90a"] {
        let target: Target = target.parse().unwrap();
        for p in ptx::wgmma_variants() {
            let prog = Gemm::generate(&p, &target).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            let ModuleImage::Ptx(text) = &prog.image else {
                panic!("{p:?}: not PTX")
            };
            assert!(text.contains(".target sm_90a"), "wgmma needs sm_90a");
            // The module is sm_90a whatever CC 9.0 target asked for it.
            let sm90a: Target = "sm_90a".parse().unwrap();
            let report = ptxas
                .compile(text, &sm90a)
                .unwrap_or_else(|e| panic!("{p:?}: {e}"));
            assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
            let k = report.kernel(ptx::KERNEL).unwrap();
            assert_eq!(k.spill_loads + k.spill_stores, 0, "{p:?} spills");
            assert_eq!(k.stack_bytes, 0, "{p:?} uses a stack frame");
            let threads = p.threads(&target);
            assert!(
                k.registers <= 255 && k.registers * threads <= 65536,
                "{p:?}: {} registers × {threads} threads",
                k.registers
            );
            assert_eq!(k.shared_bytes, 0, "{p:?}: static shared memory");
            let dynamic = ptx::dynamic_shared_bytes(&p);
            assert!(dynamic <= 227 * 1024, "{p:?}: {dynamic} bytes");
            eprintln!(
                "{target} {}{} {}->{} {}x{}x{} {}x{} warps, {:?}, {} stages: {} registers, {} B dynamic shared",
                if p.trans_a { 'T' } else { 'N' },
                if p.trans_b { 'T' } else { 'N' },
                p.ab,
                p.c,
                p.tile_m,
                p.tile_n,
                p.tile_k,
                p.warps_m,
                p.warps_n,
                p.instruction,
                p.stages,
                k.registers,
                dynamic
            );
        }
    }
    // tf32 takes K-major operands only; too many stages do not fit.
    let mut p = ptx::wgmma(
        rocm_core::DType::F32,
        rocm_core::DType::F32,
        false,
        false,
        128,
        4,
    );
    let sm90a: Target = "sm_90a".parse().unwrap();
    assert!(Gemm::generate(&p, &sm90a).is_err());
    p.trans_a = true;
    p.stages = 8;
    assert!(Gemm::generate(&p, &sm90a).is_err());
}

#[test]
fn unsupported_types_and_families_are_errors() {
    let sm90: Target = "sm_90a".parse().unwrap();
    assert!(ptx::fallback(rocm_core::DType::C32, false, false).is_err());
    let mut p = ptx::fallback(rocm_core::DType::F32, false, false).unwrap();
    p.ab = rocm_core::DType::F16;
    assert!(Gemm::generate(&p, &sm90).is_err());
    let mut p = ptx::fallback(rocm_core::DType::F32, true, true).unwrap();
    p.instruction = GemmInstruction::Mfma { m: 32, n: 32, k: 8 };
    assert!(Gemm::generate(&p, &sm90).is_err());
}

mod ptx_sim;

use rocm_kernels::gemm::GemmParams;

/// An element type of the SIMT kernels, for the simulator's memory.
trait El: Copy {
    const SIZE: usize;
    const EPS: f64;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn bits(self) -> u64;
    fn from_le(b: &[u8]) -> Self;
    fn le(self) -> Vec<u8>;
}

impl El for f32 {
    const SIZE: usize = 4;
    const EPS: f64 = f32::EPSILON as f64 / 2.0;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_le(b: &[u8]) -> Self {
        f32::from_le_bytes(b.try_into().unwrap())
    }
    fn le(self) -> Vec<u8> {
        self.to_le_bytes().to_vec()
    }
}

impl El for f64 {
    const SIZE: usize = 8;
    const EPS: f64 = f64::EPSILON / 2.0;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_le(b: &[u8]) -> Self {
        f64::from_le_bytes(b.try_into().unwrap())
    }
    fn le(self) -> Vec<u8> {
        self.to_le_bytes().to_vec()
    }
}

/// Test data for 16-bit inputs: multiples of 1/64 in [-1, 1], exact in f16 and bf16
/// (so every product is exact and only the f32 accumulation rounds).
fn quantize(v: f64) -> f32 {
    ((v * 64.0).round() / 64.0) as f32
}

/// An f16 value (normal numbers, zero and NaN, all the test data needs).
#[derive(Clone, Copy)]
struct F16(u16);

impl El for F16 {
    const SIZE: usize = 2;
    const EPS: f64 = 4.8828125e-4;
    fn from_f64(v: f64) -> Self {
        if v.is_nan() {
            return F16(0x7E00);
        }
        let x = quantize(v);
        if x == 0.0 {
            return F16(0);
        }
        let bits = x.to_bits();
        let exp = ((bits >> 23) & 0xFF) as i32 - 127 + 15;
        assert!((1..31).contains(&exp), "{x} is not a normal f16");
        F16((((bits >> 31) << 15) | ((exp as u32) << 10) | ((bits >> 13) & 0x3FF)) as u16)
    }
    fn to_f64(self) -> f64 {
        ptx_sim::f16_to_f64(self.0)
    }
    fn bits(self) -> u64 {
        self.0 as u64
    }
    fn from_le(b: &[u8]) -> Self {
        F16(u16::from_le_bytes(b.try_into().unwrap()))
    }
    fn le(self) -> Vec<u8> {
        self.0.to_le_bytes().to_vec()
    }
}

/// A bf16 value (the top half of an f32).
#[derive(Clone, Copy)]
struct Bf16(u16);

impl El for Bf16 {
    const SIZE: usize = 2;
    const EPS: f64 = 3.90625e-3;
    fn from_f64(v: f64) -> Self {
        Bf16((quantize(v).to_bits() >> 16) as u16)
    }
    fn to_f64(self) -> f64 {
        f32::from_bits((self.0 as u32) << 16) as f64
    }
    fn bits(self) -> u64 {
        self.0 as u64
    }
    fn from_le(b: &[u8]) -> Self {
        Bf16(u16::from_le_bytes(b.try_into().unwrap()))
    }
    fn le(self) -> Vec<u8> {
        self.0.to_le_bytes().to_vec()
    }
}

/// A small deterministic generator (xorshift), values in [-1, 1).
struct Rand(u64);
impl Rand {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

#[derive(Debug, Clone, Copy)]
struct Problem {
    m: usize,
    n: usize,
    k: usize,
    pads: (usize, usize, usize),
    batch: usize,
    /// Elements every operand starts past its allocation (misaligns vectors).
    offset: usize,
    alpha: f64,
    /// None: β = 0 with C full of NaN.
    beta: Option<f64>,
}

/// Runs the generated kernel for `p` in the simulator and checks every element of C
/// against an f64 reference, with |error| <= (k + 2)·u·(|α|Σ|a||b| + |β||c|) (the
/// γ_{k+2} bound; plus 2^-10·|α|Σ|a||b| for tf32), and that nothing outside C changed.
fn simulate<A: El, C: El>(p: &GemmParams, pr: Problem, seed: u64) {
    let target: Target = "sm_90a".parse().unwrap();
    let prog = Gemm::generate(p, &target).unwrap();
    let ModuleImage::Ptx(text) = &prog.image else {
        panic!()
    };
    let mut kernel = ptx_sim::Kernel::parse(text);
    let dynamic = ptx::dynamic_shared_bytes(p) as usize;
    if dynamic > 0 {
        kernel.set_dynamic_shared(dynamic);
    }
    let (m, n, k) = (pr.m, pr.n, pr.k);
    let (ar, ac) = if p.trans_a { (k, m) } else { (m, k) };
    let (br, bc) = if p.trans_b { (n, k) } else { (k, n) };
    // The wgmma kernels copy 16-byte vectors: A's and B's columns and batches aligned.
    let v = match p.instruction {
        GemmInstruction::Wgmma { .. } => {
            assert_eq!(pr.offset, 0, "wgmma operands start aligned");
            16 / A::SIZE
        }
        _ => 1,
    };
    let up = |x: usize| x.div_ceil(v) * v;
    let (lda, ldb, ldc) = (
        up(ar.max(1) + pr.pads.0),
        up(br.max(1) + pr.pads.1),
        m.max(1) + pr.pads.2,
    );
    let (sa, sb, sc) = (up(lda * ac + 1), up(ldb * bc + 3), ldc * n + 1);
    let mut r = Rand(seed | 1);
    let off = pr.offset;
    let a: Vec<A> = (0..off + sa * pr.batch)
        .map(|_| A::from_f64(r.next()))
        .collect();
    let b: Vec<A> = (0..off + sb * pr.batch)
        .map(|_| A::from_f64(r.next()))
        .collect();
    let c: Vec<C> = match pr.beta {
        Some(_) => (0..off + sc * pr.batch)
            .map(|_| C::from_f64(r.next()))
            .collect(),
        None => vec![C::from_f64(f64::NAN); off + sc * pr.batch],
    };
    fn bytes<X: El>(v: &[X]) -> Vec<u8> {
        v.iter().flat_map(|x| x.le()).collect()
    }
    let mut mem = ptx_sim::Memory::default();
    let (pa, pb, pc) = (
        mem.alloc(bytes(&a)),
        mem.alloc(bytes(&b)),
        mem.alloc(bytes(&c)),
    );
    let at = |base: u64, size: usize| base + (off * size) as u64;
    // α and β in the compute type: f64 for f64, else f32 (16-bit outputs too).
    let scalar = |v: f64| {
        if C::SIZE == 8 {
            v.to_bits()
        } else {
            (v as f32).to_bits() as u64
        }
    };
    let (alpha, beta) = (scalar(pr.alpha), scalar(pr.beta.unwrap_or(0.0)));
    let params = [
        at(pa, A::SIZE),
        at(pb, A::SIZE),
        at(pc, C::SIZE),
        m as u64,
        n as u64,
        k as u64,
        lda as u64,
        ldb as u64,
        ldc as u64,
        sa as u64,
        sb as u64,
        sc as u64,
        alpha,
        beta,
    ];
    let grid = [
        m.div_ceil(p.tile_m as usize) as u32,
        n.div_ceil(p.tile_n as usize) as u32,
        pr.batch as u32,
    ];
    kernel.run(grid, p.threads(&target), &params, &mut mem);
    let out: Vec<C> = mem
        .bytes(pc)
        .chunks(C::SIZE)
        .map(|ch| C::from_le(ch))
        .collect();
    let what = format!("{p:?} {pr:?}");
    for q in 0..pr.batch {
        let (a0, b0, c0) = (off + q * sa, off + q * sb, off + q * sc);
        let opa =
            |i: usize, l: usize| a[a0 + if p.trans_a { l + i * lda } else { i + l * lda }].to_f64();
        let opb =
            |l: usize, j: usize| b[b0 + if p.trans_b { j + l * ldb } else { l + j * ldb }].to_f64();
        for j in 0..n {
            for i in 0..m {
                let (mut acc, mut mag) = (0.0, 0.0);
                for l in 0..k {
                    acc += opa(i, l) * opb(l, j);
                    mag += (opa(i, l) * opb(l, j)).abs();
                }
                let mut want = pr.alpha * acc;
                mag *= pr.alpha.abs();
                if let Some(be) = pr.beta {
                    let old = c[c0 + i + j * ldc].to_f64();
                    want += be * old;
                    mag += (be * old).abs();
                }
                let got = out[c0 + i + j * ldc].to_f64();
                // tf32 rounds each input to 11 significant bits: each product is off
                // by up to 2·2^-11 relative, on top of the f32 sum's (k + 2)·u.
                let tf32 = if p.reduced_f32 { 2f64.powi(-10) } else { 0.0 };
                let bound = ((k + 2) as f64 * C::EPS + tf32) * mag + f64::MIN_POSITIVE;
                assert!(
                    (got - want).abs() <= bound,
                    "{what}: batch {q} ({i},{j}) got {got}, want {want}, bound {bound:e}"
                );
            }
        }
    }
    // Everything outside the m×n matrices is untouched (bit for bit, NaN included).
    for (idx, (o, g)) in c.iter().zip(&out).enumerate() {
        let inside = idx >= off && {
            let rel = idx - off;
            let within = rel % sc;
            rel / sc < pr.batch && within < ldc * n && within % ldc < m
        };
        if !inside {
            assert_eq!(
                o.bits(),
                g.bits(),
                "{what}: element {idx} outside C changed"
            );
        }
    }
}

fn problems() -> Vec<Problem> {
    let p = |m, n, k| Problem {
        m,
        n,
        k,
        pads: (0, 0, 0),
        batch: 1,
        offset: 0,
        alpha: 0.75,
        beta: Some(-0.5),
    };
    vec![
        p(1, 1, 1),
        // Interior tiles: whole vectors.
        Problem {
            pads: (0, 0, 3),
            ..p(64, 64, 24)
        },
        // Edges in every dimension, leading dimensions that forbid vectors.
        Problem {
            pads: (1, 3, 2),
            ..p(37, 45, 19)
        },
        // β = 0 over NaN, a batch of two with odd strides, misaligned operands.
        Problem {
            beta: None,
            batch: 2,
            offset: 1,
            ..p(33, 30, 9)
        },
        // k = 0: D = β·C.
        Problem {
            alpha: 0.0,
            ..p(20, 9, 0)
        },
        Problem {
            alpha: 0.0,
            beta: None,
            ..p(20, 9, 0)
        },
    ]
}

#[test]
fn simt_kernels_compute_gemm_in_the_simulator() {
    let mut seed = 1;
    for p in ptx::default_variants() {
        let small = p.tile_m * p.tile_n <= 32 * 32;
        let list: Vec<Problem> = if small {
            problems()
        } else {
            // The big tiles: one edge-heavy and one aligned problem each (slow to simulate).
            vec![
                problems()[2],
                Problem {
                    m: 130,
                    ..problems()[1]
                },
            ]
        };
        for pr in list {
            seed += 1;
            match p.ab {
                rocm_core::DType::F32 => simulate::<f32, f32>(&p, pr, seed),
                rocm_core::DType::F16 => simulate::<F16, f32>(&p, pr, seed),
                rocm_core::DType::Bf16 => simulate::<Bf16, f32>(&p, pr, seed),
                _ => simulate::<f64, f64>(&p, pr, seed),
            }
        }
    }
}

/// The `cp.async` ring of the register-tiled kernels (f64 DMMA m8n8k4 and, on compute
/// capability 9.0, m16n8k4/8/16; tf32 m16n8k8; f32 and f64 SIMT), 3 to 5 stages deep, every
/// transpose: the problems cover k edges inside a chunk, misaligned operands (copied
/// element by element), k = 0 and several trips around the ring (k = 150).
#[test]
fn ring_kernels_compute_gemm_in_the_simulator() {
    let mut seed = 500;
    for ta in [false, true] {
        for tb in [false, true] {
            let mut variants = vec![
                ptx::dmma(32, 8, 3, ta, tb),
                GemmParams {
                    instruction: GemmInstruction::MmaSync { m: 16, n: 8, k: 16 },
                    ..ptx::dmma(64, 16, 4, ta, tb)
                },
                GemmParams {
                    stages: 3,
                    tile_m: 64,
                    tile_n: 64,
                    warps_n: 2,
                    ..ptx::fallback_tf32(ta, tb)
                },
            ];
            // SIMT (FMA) rings: operands contiguous along k are scattered into k-major
            // tiles element by element.
            for (ab, stages) in [(rocm_core::DType::F32, 3), (rocm_core::DType::F64, 4)] {
                variants.push(GemmParams {
                    stages,
                    tile_k: 16,
                    ..ptx::simt(ab, 64, 4, ta, tb)
                });
            }
            let mut k4 = ptx::dmma(64, 8, 5, ta, tb);
            k4.tile_n = 32;
            k4.instruction = GemmInstruction::MmaSync { m: 16, n: 8, k: 4 };
            variants.push(k4);
            for p in variants {
                let mut list = problems();
                list.push(Problem {
                    m: 70,
                    n: 41,
                    k: 150,
                    ..problems()[2]
                });
                for pr in list {
                    seed += 1;
                    if p.ab == rocm_core::DType::F64 {
                        simulate::<f64, f64>(&p, pr, seed);
                    } else {
                        simulate::<f32, f32>(&p, pr, seed);
                    }
                }
            }
        }
    }
}

/// Register-tiled kernels whose tiles exceed the 48 KiB of static shared memory keep
/// them in dynamic shared memory (sized by the launch): a 128×128×64 f32 SIMT tile in
/// two stages (about 130 KiB), NN and TT, over several k slabs with edges.
#[test]
fn simt_kernels_with_dynamic_shared_memory_in_the_simulator() {
    for (ta, tb) in [(false, false), (true, true)] {
        let mut p = ptx::fallback(rocm_core::DType::F32, ta, tb).unwrap();
        p.tile_k = 64;
        assert!(ptx::dynamic_shared_bytes(&p) > 48 * 1024, "{p:?}");
        let pr = Problem {
            m: 131,
            n: 129,
            k: 150,
            ..problems()[2]
        };
        simulate::<f32, f32>(&p, pr, 77);
    }
}

/// Every GEMM entry of the sm_90 catalog (or of the file `ROCM_KERNELS_CATALOG` names,
/// so candidate catalogs can be checked before a tuning run) parses, assembles cleanly
/// and computes an edge-heavy problem correctly in the simulator.
#[test]
fn catalog_gemm_entries_assemble_and_compute() {
    let target: Target = "sm_90a".parse().unwrap();
    let catalog = rocm_kernels::catalog::Catalog::for_target(&target);
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas not found ({HOW_TO_GET}): only the simulator checks run");
    }
    let mut count = 0;
    for (i, e) in catalog.entries.iter().enumerate() {
        if e.generator != Gemm::NAME {
            continue;
        }
        let p: GemmParams = serde_json::from_value(e.params.clone())
            .unwrap_or_else(|err| panic!("entry {i} ({}): {err}", e.key));
        // Tensor-copy entries are simulated with cp.async staging (same tiles, ring and
        // epilogue; the interpreter models no mbarriers or tensor copies): their own
        // staging is checked by ptxas below and on CUDA (gemm_gpu's wgmma test).
        // A register-tiled entry may read another layout than its key's (the call
        // transposes those operands first: `rocm-bench tune gemm --flip`); everything
        // else about the class must agree.
        let wgmma = matches!(p.instruction, GemmInstruction::Wgmma { .. });
        let key = |ta: bool, tb: bool| {
            GemmParams::key(p.ab, p.c, p.compute, ta, tb)
                + if p.reduced_f32 { "/tf32" } else { "" }
                + if wgmma { "/wgmma" } else { "" }
        };
        let layouts = [(false, false), (false, true), (true, false), (true, true)];
        assert!(
            e.key == key(p.trans_a, p.trans_b)
                || (!wgmma && layouts.iter().any(|&(ta, tb)| e.key == key(ta, tb))),
            "entry {i}: key {} and params {p:?} disagree",
            e.key
        );
        if let Some(ptxas) = &ptxas {
            let prog = Gemm::generate(&p, &target).unwrap_or_else(|err| panic!("{p:?}: {err}"));
            let ModuleImage::Ptx(text) = &prog.image else {
                panic!("{p:?}: not PTX")
            };
            let report = ptxas.compile(text, &target).unwrap();
            assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
        }
        let pr = Problem {
            m: p.tile_m as usize + 3,
            n: p.tile_n as usize + 1,
            k: p.tile_k as usize * 2 + 1,
            pads: (1, 0, 2),
            batch: 1,
            offset: 0,
            alpha: 1.25,
            beta: Some(0.5),
        };
        // The simulator's epilogue checks take f32 (or f64) C with α/β of that type: an
        // entry with 16-bit output is simulated with the same tile and pipeline writing
        // f32; its conversion epilogue is checked on CUDA (gemm_gpu's
        // wgmma_gemm_matches_reference).
        // (A tensor-copy ring of 2 slots becomes the 3 a cp.async ring needs.)
        let mut p = GemmParams {
            tma: false,
            stages: if p.tma { p.stages.max(3) } else { p.stages },
            ..p
        };
        if matches!(p.c, rocm_core::DType::F16 | rocm_core::DType::Bf16) {
            p.c = rocm_core::DType::F32;
        }
        match p.ab {
            rocm_core::DType::F32 => simulate::<f32, f32>(&p, pr, 77 + i as u64),
            rocm_core::DType::F16 => simulate::<F16, f32>(&p, pr, 77 + i as u64),
            rocm_core::DType::Bf16 => simulate::<Bf16, f32>(&p, pr, 77 + i as u64),
            _ => simulate::<f64, f64>(&p, pr, 77 + i as u64),
        }
        count += 1;
    }
    eprintln!("{count} catalog GEMM entries checked");
}

/// The wgmma kernels with f32 output in the simulator (its `wgmma` is an independent
/// reading of the descriptor, swizzle and fragment layouts): every transpose, edges
/// (m, n, k off the tiles, k = 0), several pipeline trips, β = 0 over NaN and β ≠ 0,
/// batches.
#[test]
fn wgmma_kernels_compute_gemm_in_the_simulator() {
    let variants: Vec<GemmParams> = ptx::wgmma_variants()
        .into_iter()
        // The interpreter models no mbarriers or tensor copies: the TMA variants run on
        // CUDA (gemm_gpu's wgmma test).
        .filter(|p| !p.tma)
        .filter(|p| p.c == rocm_core::DType::F32)
        .collect();
    for (i, p) in variants.iter().enumerate() {
        let (tm, tn, tk) = (p.tile_m as usize, p.tile_n as usize, p.tile_k as usize);
        let cases = [
            // One partial tile, one k step.
            Problem {
                m: 5,
                n: 3,
                k: 7,
                pads: (1, 2, 1),
                batch: 1,
                offset: 0,
                alpha: 1.0,
                beta: None,
            },
            // Tiles ± 1, more k steps than stages (the ring wraps), β ≠ 0, two batches.
            Problem {
                m: tm + 1,
                n: tn - 1,
                k: tk * (p.stages as usize + 1) + 3,
                pads: (0, 3, 2),
                batch: 2,
                offset: 0,
                alpha: -1.5,
                beta: Some(0.5),
            },
            // k = 0: D = β·C.
            Problem {
                m: 9,
                n: 4,
                k: 0,
                pads: (0, 0, 0),
                batch: 1,
                offset: 0,
                alpha: 1.0,
                beta: Some(2.0),
            },
            // Whole tiles, β = 0 over NaN, ldc a multiple of 16 bytes: batch 0 takes the
            // staged epilogue; batch 1 starts 4 bytes past a 16-byte boundary (odd batch
            // stride) and takes the direct one.
            staged_case(p),
        ];
        for (j, pr) in cases.into_iter().enumerate() {
            let seed = 1000 + 10 * i as u64 + j as u64;
            match p.ab {
                rocm_core::DType::F16 => simulate::<F16, f32>(p, pr, seed),
                rocm_core::DType::Bf16 => simulate::<Bf16, f32>(p, pr, seed),
                _ => simulate::<f32, f32>(p, pr, seed),
            }
        }
        eprintln!("simulated {p:?}");
    }
}

/// A problem of two whole tiles along m whose first batch meets the staged epilogue's
/// conditions (β = 0, C's columns 16-byte aligned) and whose second does not.
fn staged_case(p: &GemmParams) -> Problem {
    let pad = 16 / p.c.size();
    Problem {
        m: 2 * p.tile_m as usize,
        n: p.tile_n as usize,
        k: 2 * p.tile_k as usize + 5,
        pads: (0, 0, pad),
        batch: 2,
        offset: 0,
        alpha: -1.25,
        beta: None,
    }
}

/// The wgmma kernels with 16-bit output (same type as A and B) in the simulator, through
/// both epilogues (staged for whole aligned tiles with β = 0, direct otherwise).
#[test]
fn wgmma_kernels_with_16_bit_output_in_the_simulator() {
    let variants: Vec<GemmParams> = ptx::wgmma_variants()
        .into_iter()
        // The interpreter models no mbarriers or tensor copies: the TMA variants run on
        // CUDA (gemm_gpu's wgmma test).
        .filter(|p| !p.tma)
        .filter(|p| p.c == p.ab && p.c != rocm_core::DType::F32)
        .collect();
    assert!(!variants.is_empty());
    for (i, p) in variants.iter().enumerate() {
        let direct = Problem {
            m: p.tile_m as usize + 3,
            n: 17,
            k: 11,
            pads: (0, 0, 1),
            batch: 1,
            offset: 0,
            alpha: 0.5,
            beta: Some(-1.0),
        };
        for (j, pr) in [staged_case(p), direct].into_iter().enumerate() {
            let seed = 5000 + 10 * i as u64 + j as u64;
            match p.ab {
                rocm_core::DType::F16 => simulate::<F16, F16>(p, pr, seed),
                _ => simulate::<Bf16, Bf16>(p, pr, seed),
            }
        }
        eprintln!("simulated {p:?}");
    }
}

/// The split-K finish pass (`gemm::splitk`): ptxas-clean for sm_80 and sm_90a in every
/// type pair, and in the simulator bit for bit the host's order (slices added from 0
/// in the compute type, times α, then β·C added by one fma, one rounding to C's type),
/// with edges (m off the block, one column, one slice), β = 0 over NaN, and C's rows
/// between m and ldc untouched.
#[test]
fn splitk_finish_assembles_and_sums_in_order() {
    use rocm_core::DType;
    use rocm_kernels::gemm::splitk::{SplitKFinish, SplitKParams, BLOCK, KERNEL};
    let pairs = [
        (DType::F32, DType::F32),
        (DType::F32, DType::F16),
        (DType::F32, DType::Bf16),
        (DType::F64, DType::F64),
    ];
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas part skipped: ptxas not found ({HOW_TO_GET})");
    }
    let sm90: Target = "sm_90a".parse().unwrap();
    let mut r = Rand(0x5b1f);
    for (compute, c) in pairs {
        for read_c in [false, true] {
            let p = SplitKParams { compute, c, read_c };
            for target in ["sm_80", "sm_90a"] {
                let target: Target = target.parse().unwrap();
                let prog = SplitKFinish::generate(&p, &target).unwrap();
                let ModuleImage::Ptx(text) = &prog.image else {
                    panic!("{p:?}: not PTX")
                };
                if let Some(ptxas) = &ptxas {
                    let report = ptxas
                        .compile(text, &target)
                        .unwrap_or_else(|e| panic!("{p:?} on {target}: {e}"));
                    assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
                    let k = report.kernel(KERNEL).unwrap();
                    assert_eq!(k.spill_loads + k.spill_stores + k.stack_bytes, 0, "{p:?}");
                }
            }
            let ModuleImage::Ptx(text) = SplitKFinish::generate(&p, &sm90).unwrap().image else {
                panic!()
            };
            let kernel = ptx_sim::Kernel::parse(&text);
            for (m, n, slices) in [
                (BLOCK as usize + 3, 2, 3),
                (1, 1, 1),
                (37, 5, 7),
                (9, 3, 8),
                (5, 2, 13),
            ] {
                let ldc = m + 2;
                let (ps, cs) = (compute.size(), c.size());
                // Partials and C as f64 values, then stored in their types.
                let part: Vec<f64> = (0..slices * m * n).map(|_| r.next() * 8.0).collect();
                let old: Vec<f64> = (0..ldc * n).map(|_| r.next()).collect();
                let (alpha, beta) = (r.next() * 3.0, if read_c { r.next() } else { 0.0 });
                let store = |v: f64, d: DType| -> Vec<u8> {
                    match d {
                        DType::F64 => v.to_le_bytes().to_vec(),
                        DType::F32 => (v as f32).to_le_bytes().to_vec(),
                        DType::F16 => rocm_core::f16::from_f64(v).to_le_bytes().to_vec(),
                        _ => rocm_core::bf16::from_f32(v as f32).to_le_bytes().to_vec(),
                    }
                };
                let load = |b: &[u8], d: DType| -> f64 {
                    match d {
                        DType::F64 => f64::from_le_bytes(b.try_into().unwrap()),
                        DType::F32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
                        DType::F16 => rocm_core::f16::from_le_bytes(b.try_into().unwrap()).to_f64(),
                        _ => rocm_core::bf16::from_le_bytes(b.try_into().unwrap()).to_f64(),
                    }
                };
                let pbytes: Vec<u8> = part.iter().flat_map(|&v| store(v, compute)).collect();
                let cbytes: Vec<u8> = old
                    .iter()
                    .map(|&v| if read_c { v } else { f64::NAN })
                    .flat_map(|v| store(v, c))
                    .collect();
                let mut mem = ptx_sim::Memory::default();
                let (pw, pc) = (mem.alloc(pbytes.clone()), mem.alloc(cbytes.clone()));
                let bits = |v: f64| match compute {
                    DType::F64 => v.to_bits(),
                    _ => (v as f32).to_bits() as u64,
                };
                let mut params = vec![m as u64, n as u64, slices as u64, pw, pc, ldc as u64];
                params.push(bits(alpha));
                if read_c {
                    params.push(bits(beta));
                }
                kernel.run(
                    [n as u32, m.div_ceil(BLOCK as usize) as u32, 1],
                    BLOCK,
                    &params,
                    &mut mem,
                );
                let out = mem.bytes(pc).to_vec();
                for j in 0..n {
                    for i in 0..ldc {
                        let at = (i + j * ldc) * cs;
                        let got = &out[at..at + cs];
                        if i >= m {
                            assert_eq!(got, &cbytes[at..at + cs], "{p:?}: row {i} written");
                            continue;
                        }
                        let pv = |s: usize| {
                            let e = (s * m * n + j * m + i) * ps;
                            load(&pbytes[e..e + ps], compute)
                        };
                        let cv = load(&cbytes[at..at + cs], c);
                        let want = if compute == DType::F64 {
                            let acc = (0..slices).fold(0.0f64, |a, s| a + pv(s));
                            let v = acc * alpha;
                            if read_c {
                                cv.mul_add(beta, v)
                            } else {
                                v
                            }
                        } else {
                            let acc = (0..slices).fold(0.0f32, |a, s| a + pv(s) as f32);
                            let v = acc * alpha as f32;
                            (if read_c {
                                (cv as f32).mul_add(beta as f32, v)
                            } else {
                                v
                            }) as f64
                        };
                        let want = match c {
                            DType::F16 => {
                                rocm_core::f16::from_f32(want as f32).to_le_bytes().to_vec()
                            }
                            _ => store(want, c),
                        };
                        assert_eq!(
                            got,
                            &want[..],
                            "{p:?} m {m} n {n} slices {slices}: ({i},{j})"
                        );
                    }
                }
            }
        }
    }
}

/// The tuner's candidates (`ptx::tuning_candidates`): for each class on sm_90a, some
/// exist, each is listed once under the catalog key the host's selection reads for its
/// instruction, matches the class, and an even sample of them assembles with ptxas
/// without warnings (spills are allowed: the tuner times them and keeps the fastest).
#[test]
fn tuning_candidates_generate_under_their_keys() {
    use rocm_core::DType;
    let target: Target = "sm_90a".parse().unwrap();
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas part skipped: ptxas not found ({HOW_TO_GET})");
    }
    let classes = [
        (DType::F32, DType::F32, false, "f32-f32-f32/NT"),
        (DType::F32, DType::F32, true, "f32-f32-f32/NT/tf32"),
        (DType::F64, DType::F64, false, "f64-f64-f64/NT"),
        (DType::Bf16, DType::Bf16, false, "bf16-bf16-f32/NT/wgmma"),
        (DType::F16, DType::F32, false, "f16-f32-f32/NT/wgmma"),
    ];
    for (ab, c, reduced, key) in classes {
        let all = ptx::tuning_candidates(&target, ab, c, false, true, reduced);
        assert!(all.len() >= 8, "{key}: {} candidates", all.len());
        for (i, (k, p)) in all.iter().enumerate() {
            let wgmma = matches!(p.instruction, GemmInstruction::Wgmma { .. });
            let expected = if wgmma && !key.ends_with("/wgmma") {
                format!("{key}/wgmma")
            } else {
                key.to_string()
            };
            assert_eq!(*k, expected, "{p:?}");
            assert_eq!(
                (p.ab, p.c, p.trans_a, p.trans_b, p.reduced_f32),
                (ab, c, false, true, reduced)
            );
            assert!(all[..i].iter().all(|(_, q)| q != p), "{p:?} listed twice");
        }
        let Some(ptxas) = &ptxas else { continue };
        let step = all.len().div_ceil(6);
        for (_, p) in all.iter().step_by(step) {
            let prog = Gemm::generate(p, &target).unwrap();
            let ModuleImage::Ptx(text) = &prog.image else {
                panic!("{p:?}: not PTX")
            };
            let report = ptxas
                .compile(text, &target)
                .unwrap_or_else(|e| panic!("{p:?}: {e}"));
            assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
        }
        eprintln!("{key}: {} candidates", all.len());
    }
    // No NVIDIA candidates for an AMD target.
    let gfx: Target = "gfx90a".parse().unwrap();
    assert!(ptx::tuning_candidates(&gfx, DType::F32, DType::F32, false, false, false).is_empty());
}

/// f64 `mma.sync.m16n8k{4,8,16}` (compute capability 9.0): ptxas-clean for sm_90a (no
/// warnings, spills or stack), refused for sm_80, and in the simulator against the f64
/// reference over every transpose, edges, β = 0 over NaN and batches.
#[test]
fn f64_m16n8_mma_kernels_on_sm90() {
    use rocm_core::DType;
    let sm90: Target = "sm_90a".parse().unwrap();
    let sm80: Target = "sm_80".parse().unwrap();
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas part skipped: ptxas not found ({HOW_TO_GET})");
    }
    let mut count = 0;
    for k in [4, 8, 16] {
        for (tile, tile_k, warps, stages) in [
            (64, 16, (2, 2), 2),
            (64, 16, (1, 4), 1),
            (32, 16, (1, 2), 2),
        ] {
            for trans_a in [false, true] {
                for trans_b in [false, true] {
                    let mut p = ptx::dmma(tile, tile_k, stages, trans_a, trans_b);
                    p.instruction = GemmInstruction::MmaSync { m: 16, n: 8, k };
                    (p.warps_m, p.warps_n) = warps;
                    assert!(Gemm::generate(&p, &sm80).is_err(), "{p:?} on sm_80");
                    let prog = Gemm::generate(&p, &sm90).unwrap_or_else(|e| panic!("{p:?}: {e}"));
                    let ModuleImage::Ptx(text) = &prog.image else {
                        panic!("{p:?}: not PTX")
                    };
                    if let Some(ptxas) = &ptxas {
                        let report = ptxas.compile(text, &sm90).unwrap();
                        assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
                        let kr = report.kernel(ptx::KERNEL).unwrap();
                        assert_eq!(
                            kr.spill_loads + kr.spill_stores + kr.stack_bytes,
                            0,
                            "{p:?}"
                        );
                    }
                    let pr = Problem {
                        m: tile as usize + 5,
                        n: tile as usize / 2 + 3,
                        k: 2 * tile_k as usize + 3,
                        pads: (1, 2, 3),
                        batch: 2,
                        offset: 1,
                        alpha: -0.75,
                        beta: if trans_b { None } else { Some(1.5) },
                    };
                    simulate::<f64, f64>(&p, pr, 7000 + count);
                    count += 1;
                    assert_eq!(p.ab, DType::F64);
                }
            }
        }
    }
}
