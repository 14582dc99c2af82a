//! The AMDGPU GEMM kernels (`rocm_kernels::gemm::amdgpu`) on the emulated targets against
//! an f64 host reference on random data; LLVM's build of their text (one kernel per
//! family); the resource report and issue model of the default tiles; refusals.
//!
//! Tolerance (per element, derived from the arithmetic):
//! - 16-bit products are exact in f32; f32 products round once; the instruction then sums
//!   k terms in the accumulation type in an unspecified order: |acc − Σab| ≤ (k + 1)·u·Σ|a||b|
//!   (u = 2⁻²⁴ for f32, 2⁻⁵³ for f64 accumulation; the standard γ_k bound, any order).
//! - `v_mul` by α and `v_fma` with β·C add two roundings of at most u·(|α·acc| + |β·c|).
//! - The conversion to C's type adds u_c·|d| (u_c = 2⁻¹¹ f16, 2⁻⁸ bf16, 2⁻²⁴ f32, 2⁻⁵³ f64),
//!   plus half of C's smallest subnormal for results below C's normal range.
//!
//! So `|d − ref| ≤ 2·(k + 3)·u·(|α|·Σ|a||b| + |β|·|c|) + u_c·|ref| + tiny_c`, the factor 2
//! covering the magnitudes of the intermediates (|α·acc| ≤ |α|·Σ|a||b|·(1 + k·u)).
//! Everything outside the logical matrices (leading-dimension and batch padding) holds NaN
//! and must be neither read (a NaN would reach the result) nor written (checked bitwise).
//!
//! Skips with a printed reason while the emulator or the LLVM tools are missing.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{
    bf16, f16, DType, Device, DeviceBuffer, Error, KernelArgs, LaunchConfig, ModuleImage,
};
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::gemm::amdgpu::model::{analyse, default_params, fma_default};
use rocm_kernels::gemm::amdgpu::plan::{lds_conflicts, Plan};
use rocm_kernels::gemm::amdgpu::{generate, kernel_name};
use rocm_kernels::gemm::{GemmInstruction, GemmParams};
mod common;

use common::{agree, emu, tools_present};

/// xorshift64*.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `x` rounded to `d` and back.
fn round_to(d: DType, x: f64) -> f64 {
    match d {
        DType::F16 => f16::from_f64(x).to_f64(),
        DType::Bf16 => bf16::from_f64(x).to_f64(),
        DType::F32 => f64::from(x as f32),
        _ => x,
    }
}

/// Unit roundoff and half the smallest subnormal of `d`.
fn unit_roundoff(d: DType) -> (f64, f64) {
    match d {
        DType::F16 => (2f64.powi(-11), 2f64.powi(-25)),
        DType::Bf16 => (2f64.powi(-8), 2f64.powi(-134)),
        DType::F32 => (2f64.powi(-24), 2f64.powi(-150)),
        _ => (2f64.powi(-53), 0.0),
    }
}

/// A device buffer of one of the element types, from and to f64 values.
enum Buf {
    H(DeviceBuffer<f16>),
    B(DeviceBuffer<bf16>),
    F(DeviceBuffer<f32>),
    D(DeviceBuffer<f64>),
}

impl Buf {
    fn upload(dev: &Device, d: DType, x: &[f64]) -> Buf {
        match d {
            DType::F16 => Buf::H(
                dev.upload(&x.iter().map(|&v| f16::from_f64(v)).collect::<Vec<_>>())
                    .unwrap(),
            ),
            DType::Bf16 => Buf::B(
                dev.upload(&x.iter().map(|&v| bf16::from_f64(v)).collect::<Vec<_>>())
                    .unwrap(),
            ),
            DType::F32 => Buf::F(
                dev.upload(&x.iter().map(|&v| v as f32).collect::<Vec<_>>())
                    .unwrap(),
            ),
            _ => Buf::D(dev.upload(x).unwrap()),
        }
    }
    fn push(&self, args: &mut KernelArgs) {
        match self {
            Buf::H(b) => args.push(b),
            Buf::B(b) => args.push(b),
            Buf::F(b) => args.push(b),
            Buf::D(b) => args.push(b),
        };
    }
    fn download(&self) -> Vec<f64> {
        match self {
            Buf::H(b) => b.to_vec().unwrap().iter().map(|v| v.to_f64()).collect(),
            Buf::B(b) => b.to_vec().unwrap().iter().map(|v| v.to_f64()).collect(),
            Buf::F(b) => b.to_vec().unwrap().iter().map(|&v| f64::from(v)).collect(),
            Buf::D(b) => b.to_vec().unwrap(),
        }
    }
}

/// One problem: sizes, transposes, leading-dimension padding, batch, scalars.
#[derive(Debug, Clone, Copy)]
struct Case {
    m: usize,
    n: usize,
    k: usize,
    pad: usize,
    batch: usize,
    beta_zero: bool,
}

/// A column-major matrix of `rows × cols` at leading dimension `ld` per batch entry,
/// `stride` elements apart; NaN everywhere else.
struct Stored {
    ld: usize,
    stride: usize,
    data: Vec<f64>,
}

fn stored(
    rng: &mut Rng,
    d: DType,
    rows: usize,
    cols: usize,
    pad: usize,
    batch: usize,
    fill: bool,
) -> Stored {
    let ld = rows + pad;
    let stride = ld * cols + pad * 3;
    let len = stride * (batch - 1) + ld * cols;
    let mut data = vec![f64::NAN; len];
    if fill {
        for b in 0..batch {
            for j in 0..cols {
                for i in 0..rows {
                    data[b * stride + i + j * ld] = round_to(d, rng.unit() * 2.0);
                }
            }
        }
    }
    Stored { ld, stride, data }
}

fn launch(dev: &Device, k: &AssembledKernel, grid: [u32; 3], block: u32, args: &KernelArgs) {
    let module = dev
        .load_module(&ModuleImage::CodeObject(k.to_elf().unwrap()))
        .unwrap();
    let f = module.kernel(k.name()).unwrap();
    let cfg = LaunchConfig {
        grid,
        block: [block, 1, 1],
        shared_bytes: 0,
    };
    // SAFETY: the arguments follow the GEMM kernel contract (`rocm_kernels::gemm`) and
    // the emulated device checks every access against the buffers.
    unsafe { f.launch(dev.default_stream(), &cfg, args).unwrap() };
    dev.synchronize().unwrap();
}

/// Runs `p` on `dev` for case `c` and checks every element of C's buffer.
fn check(rng: &mut Rng, dev: &Device, t: IsaTarget, p: &GemmParams, k: &AssembledKernel, c: Case) {
    check_with(rng, dev, t, p, k, c, p.ab)
}

/// [`check`] with A and B values exact in `values` (a type no wider than `p.ab`).
fn check_with(
    rng: &mut Rng,
    dev: &Device,
    t: IsaTarget,
    p: &GemmParams,
    k: &AssembledKernel,
    c: Case,
    values: DType,
) {
    let what = format!("{} on {t}, {c:?}", kernel_name(p));
    let (ar, ac) = if p.trans_a { (c.k, c.m) } else { (c.m, c.k) };
    let (br, bc) = if p.trans_b { (c.n, c.k) } else { (c.k, c.n) };
    let a = stored(rng, values, ar, ac, c.pad, c.batch, true);
    let b = stored(rng, values, br, bc, c.pad + 1, c.batch, true);
    let cm = stored(rng, p.c, c.m, c.n, c.pad + 2, c.batch, !c.beta_zero);
    let alpha = round_to(p.compute, rng.unit() * 2.0);
    let beta = if c.beta_zero {
        0.0
    } else {
        round_to(p.compute, rng.unit() * 2.0)
    };
    let (da, db, dc) = (
        Buf::upload(dev, p.ab, &a.data),
        Buf::upload(dev, p.ab, &b.data),
        Buf::upload(dev, p.c, &cm.data),
    );
    let mut args = KernelArgs::new();
    da.push(&mut args);
    db.push(&mut args);
    dc.push(&mut args);
    for v in [c.m, c.n, c.k, a.ld, b.ld, cm.ld] {
        args.push(v as u32);
    }
    for v in [a.stride, b.stride, cm.stride] {
        args.push(v as u64);
    }
    if p.compute == DType::F64 {
        args.push(alpha).push(beta);
    } else {
        args.push(alpha as f32).push(beta as f32);
    }
    let grid = [
        c.m.div_ceil(p.tile_m as usize) as u32,
        c.n.div_ceil(p.tile_n as usize) as u32,
        c.batch as u32,
    ];
    launch(dev, k, grid, p.threads(&t_target(t)), &args);
    let got = dc.download();
    let (u, _) = unit_roundoff(p.compute);
    let (uc, tiny) = unit_roundoff(p.c);
    let opa = |bt: usize, i: usize, l: usize| {
        let (r, col) = if p.trans_a { (l, i) } else { (i, l) };
        a.data[bt * a.stride + r + col * a.ld]
    };
    let opb = |bt: usize, l: usize, j: usize| {
        let (r, col) = if p.trans_b { (j, l) } else { (l, j) };
        b.data[bt * b.stride + r + col * b.ld]
    };
    let mut inside = vec![false; got.len()];
    for bt in 0..c.batch {
        for j in 0..c.n {
            for i in 0..c.m {
                let at = bt * cm.stride + i + j * cm.ld;
                inside[at] = true;
                let (mut s, mut sa) = (0.0, 0.0);
                for l in 0..c.k {
                    let x = opa(bt, i, l) * opb(bt, l, j);
                    s += x;
                    sa += x.abs();
                }
                let c0 = if c.beta_zero { 0.0 } else { cm.data[at] };
                let want = alpha * s + beta * c0;
                let tol = 2.0 * (c.k as f64 + 3.0) * u * (alpha.abs() * sa + (beta * c0).abs())
                    + uc * want.abs()
                    + tiny;
                let g = got[at];
                assert!(
                    (g - want).abs() <= tol,
                    "{what}: D[{i}][{j}] batch {bt} = {g}, want {want} (tol {tol:e})"
                );
            }
        }
    }
    // Outside the matrices: untouched (NaN stays NaN).
    for (at, (&g, &o)) in got.iter().zip(&cm.data).enumerate() {
        if !inside[at] {
            assert!(
                g.is_nan() && o.is_nan(),
                "{what}: padding element {at} written: {g}"
            );
        }
    }
}

fn t_target(t: IsaTarget) -> rocm_core::Target {
    Device::open(&format!("emu:{}", t.name()))
        .map(|d| d.target().clone())
        .unwrap_or_else(|e| panic!("{t}: {e}"))
}

#[allow(clippy::too_many_arguments)]
fn params(
    ab: DType,
    c: DType,
    tile: [u32; 3],
    warps: (u32, u32),
    instruction: GemmInstruction,
    stages: u32,
    trans: (bool, bool),
) -> GemmParams {
    let f64 = ab == DType::F64;
    GemmParams {
        ab,
        c,
        compute: if f64 { DType::F64 } else { DType::F32 },
        trans_a: trans.0,
        trans_b: trans.1,
        tile_m: tile[0],
        tile_n: tile[1],
        tile_k: tile[2],
        warps_m: warps.0,
        warps_n: warps.1,
        instruction,
        stages,
        reduced_f32: false,
        tma: false,
    }
}

/// Problem sizes: 1, primes, tile ± 1 and non-multiples in every dimension, batches.
fn cases(rng: &mut Rng, p: &GemmParams) -> Vec<Case> {
    let (tm, tn, tk) = (p.tile_m as usize, p.tile_n as usize, p.tile_k as usize);
    let mut v = vec![
        Case {
            m: 1,
            n: 1,
            k: 1,
            pad: 0,
            batch: 1,
            beta_zero: false,
        },
        Case {
            m: tm,
            n: tn,
            k: 2 * tk,
            pad: 0,
            batch: 1,
            beta_zero: false,
        },
        Case {
            m: tm + 1,
            n: tn - 1,
            k: tk + 3,
            pad: 3,
            batch: 2,
            beta_zero: true,
        },
        Case {
            m: 2 * tm - 3,
            n: tn + 5,
            k: 3 * tk - 1,
            pad: 1,
            batch: 1,
            beta_zero: false,
        },
    ];
    // A random small case with primes.
    let primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    v.push(Case {
        m: primes[rng.below(primes.len())],
        n: primes[rng.below(primes.len())],
        k: primes[rng.below(primes.len())],
        pad: rng.below(3),
        batch: 1 + rng.below(3),
        beta_zero: rng.below(2) == 0,
    });
    v
}

/// A kernel family under test: A/B type, C type, tile, waves, instruction, stages.
type Kind = (DType, DType, [u32; 3], (u32, u32), GemmInstruction, u32);

const TRANSPOSES: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];

fn run_family(t: IsaTarget, seed: u64, kinds: &[Kind]) {
    let dev = emu(t);
    let mut rng = Rng(seed);
    for &(ab, c, tile, warps, inst, stages) in kinds {
        for trans in TRANSPOSES {
            let p = params(ab, c, tile, warps, inst, stages, trans);
            let k = generate(&p, t).unwrap_or_else(|e| panic!("{}: {e}", kernel_name(&p)));
            for case in cases(&mut rng, &p) {
                check(&mut rng, &dev, t, &p, &k, case);
            }
        }
    }
}

const MFMA32X2: GemmInstruction = GemmInstruction::Mfma { m: 32, n: 32, k: 2 };
const MFMA16X4: GemmInstruction = GemmInstruction::Mfma { m: 16, n: 16, k: 4 };
const MFMA32X8: GemmInstruction = GemmInstruction::Mfma { m: 32, n: 32, k: 8 };
const MFMA16X16: GemmInstruction = GemmInstruction::Mfma {
    m: 16,
    n: 16,
    k: 16,
};

#[test]
fn gfx90a_f32() {
    run_family(
        IsaTarget::Gfx90a,
        1,
        &[
            (DType::F32, DType::F32, [64, 64, 8], (2, 2), MFMA32X2, 2),
            (DType::F32, DType::F32, [32, 32, 8], (2, 2), MFMA16X4, 1),
        ],
    );
}

#[test]
fn gfx90a_f16_bf16() {
    run_family(
        IsaTarget::Gfx90a,
        2,
        &[
            (DType::F16, DType::F32, [64, 64, 16], (2, 2), MFMA32X8, 2),
            (DType::F16, DType::F16, [32, 32, 32], (2, 2), MFMA16X16, 1),
            (DType::Bf16, DType::Bf16, [64, 32, 16], (2, 1), MFMA32X8, 2),
            // The pre-1k bf16 form (one register of two bf16 per lane).
            (
                DType::Bf16,
                DType::F32,
                [32, 32, 8],
                (1, 1),
                GemmInstruction::Mfma { m: 32, n: 32, k: 4 },
                2,
            ),
        ],
    );
}

#[test]
fn gfx90a_f64() {
    run_family(
        IsaTarget::Gfx90a,
        3,
        &[(DType::F64, DType::F64, [32, 32, 8], (2, 2), MFMA16X4, 2)],
    );
}

#[test]
fn gfx942_all() {
    run_family(
        IsaTarget::Gfx942,
        4,
        &[
            (DType::F32, DType::F32, [32, 64, 8], (1, 2), MFMA32X2, 2),
            (DType::F16, DType::Bf16, [64, 64, 16], (2, 2), MFMA32X8, 2),
            (DType::Bf16, DType::F32, [32, 32, 32], (2, 2), MFMA16X16, 2),
            (DType::F64, DType::F64, [32, 32, 8], (2, 1), MFMA16X4, 1),
        ],
    );
}

#[test]
fn gfx908_agpr_accumulators() {
    run_family(
        IsaTarget::Gfx908,
        5,
        &[
            (DType::F32, DType::F32, [64, 32, 8], (2, 1), MFMA32X2, 2),
            (DType::F16, DType::F16, [32, 32, 16], (1, 1), MFMA32X8, 1),
            (
                DType::Bf16,
                DType::Bf16,
                [64, 64, 8],
                (2, 2),
                GemmInstruction::Mfma { m: 32, n: 32, k: 4 },
                2,
            ),
        ],
    );
}

const WMMA: GemmInstruction = GemmInstruction::Wmma;

#[test]
fn gfx1100_wmma() {
    run_family(
        IsaTarget::Gfx1100,
        6,
        &[
            (DType::F16, DType::F32, [32, 32, 32], (2, 2), WMMA, 2),
            (DType::Bf16, DType::Bf16, [64, 32, 16], (2, 1), WMMA, 1),
            (DType::F16, DType::F16, [16, 32, 16], (1, 2), WMMA, 2),
        ],
    );
}

#[test]
fn other_gfx11_targets() {
    for (i, t) in [IsaTarget::Gfx1101, IsaTarget::Gfx1102, IsaTarget::Gfx1151]
        .into_iter()
        .enumerate()
    {
        run_family(
            t,
            7 + i as u64,
            &[(DType::Bf16, DType::F32, [32, 32, 16], (2, 2), WMMA, 2)],
        );
    }
}

/// The register-tiled FMA kernel's instruction with `m × n` results per lane.
const fn fma(thread_m: u32, thread_n: u32) -> GemmInstruction {
    GemmInstruction::Simt { thread_m, thread_n }
}

/// The register-tiled FMA kernel on gfx11 (wave32): f32 and f64, one and two LDS stages,
/// lane tiles of 4×4, 4×2 and 2×4, and the defaults' 8×8 (two 16-byte LDS reads per
/// side and k in f32, four in f64) with 8×4 and 4×8.
#[test]
fn gfx1100_fma() {
    run_family(
        IsaTarget::Gfx1100,
        31,
        &[
            (DType::F32, DType::F32, [64, 64, 16], (2, 4), fma(4, 4), 2),
            (DType::F32, DType::F32, [32, 32, 8], (2, 2), fma(4, 2), 1),
            (DType::F64, DType::F64, [32, 32, 8], (2, 2), fma(4, 2), 2),
            (DType::F64, DType::F64, [32, 32, 4], (1, 4), fma(2, 4), 1),
        ],
    );
}

#[test]
fn gfx1100_fma_large_lane_tiles() {
    run_family(
        IsaTarget::Gfx1100,
        35,
        &[
            (DType::F32, DType::F32, [64, 64, 8], (2, 1), fma(8, 8), 2),
            (DType::F64, DType::F64, [64, 64, 8], (1, 2), fma(8, 8), 2),
            (DType::F64, DType::F64, [64, 32, 4], (2, 1), fma(8, 4), 1),
        ],
    );
}

/// The FMA kernel on gfx9 (wave64): f64 on gfx908 (no f64 MFMA there), and f32/f64 on
/// gfx90a and gfx942, which have MFMA but must build it too.
#[test]
fn gfx9_fma() {
    run_family(
        IsaTarget::Gfx908,
        32,
        &[
            (DType::F64, DType::F64, [64, 64, 8], (2, 2), fma(4, 4), 2),
            (DType::F64, DType::F64, [32, 32, 4], (1, 1), fma(4, 4), 1),
        ],
    );
    run_family(
        IsaTarget::Gfx90a,
        33,
        &[(DType::F32, DType::F32, [32, 64, 8], (2, 2), fma(2, 4), 2)],
    );
    // The gfx908 f64 default's 8×8 lanes, one wave; 4×8 f32.
    run_family(
        IsaTarget::Gfx908,
        36,
        &[(DType::F64, DType::F64, [64, 64, 8], (1, 1), fma(8, 8), 2)],
    );
    run_family(
        IsaTarget::Gfx942,
        37,
        &[(DType::F32, DType::F32, [32, 64, 8], (1, 1), fma(4, 8), 2)],
    );
    run_family(
        IsaTarget::Gfx942,
        34,
        &[(DType::F64, DType::F64, [64, 32, 8], (2, 2), fma(4, 2), 2)],
    );
}

#[test]
fn gfx942_xf32() {
    let t = IsaTarget::Gfx942;
    let dev = emu(t);
    let mut rng = Rng(11);
    for trans in [(false, true), (true, false)] {
        let mut p = params(
            DType::F32,
            DType::F32,
            [64, 32, 8],
            (2, 1),
            GemmInstruction::Mfma { m: 32, n: 32, k: 4 },
            2,
            trans,
        );
        p.reduced_f32 = true;
        let k = generate(&p, t).unwrap();
        for mut case in cases(&mut rng, &p) {
            // xf32 keeps 10 explicit mantissa bits: checked with inputs that are exact
            // in it (f16 values), so the f32 accumulation bound applies unchanged.
            case.pad = case.pad.min(2);
            check_with(&mut rng, &dev, t, &p, &k, case, DType::F16);
        }
    }
}

/// The default large tile of every target and input type: its resource report (it must
/// fit the register file, one workgroup per CU at least) and the main loop's issue
/// model, which must reach 0.8 for the default (TN) layout; the other layouts are
/// printed (`--nocapture`) with their numbers.
#[test]
fn default_tiles_resources_and_issue_model() {
    let targets = [
        (
            IsaTarget::Gfx908,
            &[DType::F32, DType::F16, DType::Bf16][..],
        ),
        (
            IsaTarget::Gfx90a,
            &[DType::F32, DType::F16, DType::Bf16, DType::F64][..],
        ),
        (
            IsaTarget::Gfx942,
            &[DType::F32, DType::F16, DType::Bf16, DType::F64][..],
        ),
        (
            IsaTarget::Gfx1100,
            &[DType::F16, DType::Bf16, DType::F32, DType::F64][..],
        ),
        (IsaTarget::Gfx1101, &[DType::F16, DType::F32][..]),
        (IsaTarget::Gfx1151, &[DType::F16, DType::F64][..]),
        (IsaTarget::Gfx908, &[DType::F64][..]),
    ];
    for (t, types) in targets {
        for &ab in types {
            let base = default_params(t, ab).unwrap();
            for trans in TRANSPOSES {
                let p = GemmParams {
                    trans_a: trans.0,
                    trans_b: trans.1,
                    ..base.clone()
                };
                let (report, model) = analyse(&p, t).unwrap();
                let default = p == base;
                let plan = Plan::new(&p, t).unwrap();
                let (ca, ia) = lds_conflicts(&plan, 0);
                let (cb, ib) = lds_conflicts(&plan, 1);
                println!(
                    "{}{}: {report}\n    main loop: {model}\n    LDS cycles (bank model) A {ca}/{ia}, B {cb}/{ib} ideal; pitches {} {}",
                    kernel_name(&p),
                    if default { " (default)" } else { "" },
                    plan.a.pitch,
                    plan.b.pitch
                );
                assert!(report.occupancy >= 1, "{}: {report}", kernel_name(&p));
                let fma = matches!(p.instruction, GemmInstruction::Simt { .. });
                if fma {
                    // The FMA kernel's intended occupancy, stated with its defaults
                    // (`FMA_DEFAULTS`: 8-10 waves per SIMD for gfx11 f32, 4 for gfx11
                    // f64, 1 for gfx908 f64 at about 230 of its 256 VGPRs).
                    // Its lanes read consecutive 16-byte chunks: no LDS bank conflicts in
                    // the bank model, for writes (the chosen pitch) and reads alike.
                    if default {
                        assert_eq!((ca, cb), (ia, ib), "{}", kernel_name(&p));
                    }
                    let want = fma_default(t, ab).map_or(1, |d| d.occupancy);
                    assert!(
                        report.occupancy >= want,
                        "{}: {report}, want {want} waves per SIMD",
                        kernel_name(&p)
                    );
                }
                // The FMA kernel: its v_fma fraction of the issue model (8×8 lane
                // tiles: 64 FMAs per k against 4 (f32) or 8 (f64) 16-byte LDS reads);
                // a static number, not a performance claim.
                if default {
                    assert!(
                        model.matrix_fraction() >= 0.8,
                        "{} on {t}: {model}",
                        kernel_name(&p)
                    );
                }
            }
        }
    }
}

/// LLVM 19 assembles our text of one kernel per family to the same bytes.
#[test]
fn llvm_agrees() {
    if !tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for (t, ab) in [
        (IsaTarget::Gfx908, DType::Bf16),
        (IsaTarget::Gfx90a, DType::F16),
        (IsaTarget::Gfx90a, DType::F64),
        (IsaTarget::Gfx942, DType::F32),
        (IsaTarget::Gfx942, DType::Bf16),
        (IsaTarget::Gfx908, DType::F32),
        (IsaTarget::Gfx1100, DType::F16),
        (IsaTarget::Gfx1100, DType::Bf16),
        // The FMA kernel: its defaults on gfx11 and gfx908.
        (IsaTarget::Gfx1100, DType::F32),
        (IsaTarget::Gfx1151, DType::F64),
        (IsaTarget::Gfx908, DType::F64),
    ] {
        let mut p = default_params(t, ab).unwrap();
        // Every epilogue and load path: 16-bit C for the 16-bit inputs.
        if matches!(ab, DType::F16 | DType::Bf16) {
            p.c = ab;
        }
        p.trans_a = true;
        agree(&[generate(&p, t).unwrap()]);
    }
    // The FMA kernel on the gfx9 targets with aligned tuples, in another layout.
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx942] {
        for ab in [DType::F32, DType::F64] {
            let p = GemmParams {
                ab,
                c: ab,
                compute: ab,
                ..default_params(IsaTarget::Gfx908, DType::F64).unwrap()
            };
            let p = GemmParams {
                trans_a: false,
                trans_b: true,
                ..p
            };
            agree(&[generate(&p, t).unwrap()]);
        }
    }
}

/// Parameters a target cannot run are refused with the field named.
#[test]
fn refusals_name_the_field() {
    let field = |r: Result<AssembledKernel, Error>| match r {
        Err(Error::InvalidArgument { what, .. }) => what.to_string(),
        Err(Error::Unsupported { op, .. }) => format!("unsupported: {op}"),
        Err(e) => format!("other: {e}"),
        Ok(_) => "accepted".to_string(),
    };
    let base = params(
        DType::F32,
        DType::F32,
        [64, 64, 8],
        (2, 2),
        MFMA32X2,
        2,
        (false, false),
    );
    let t = IsaTarget::Gfx90a;
    assert_eq!(
        field(generate(
            &GemmParams {
                tile_m: 48,
                ..base.clone()
            },
            t
        )),
        "tile_m"
    );
    assert_eq!(
        field(generate(
            &GemmParams {
                tile_m: 32,
                ..base.clone()
            },
            t
        )),
        "tile_m"
    );
    assert_eq!(
        field(generate(
            &GemmParams {
                tile_k: 1,
                ..base.clone()
            },
            t
        )),
        "tile_k"
    );
    assert_eq!(
        field(generate(
            &GemmParams {
                stages: 3,
                ..base.clone()
            },
            t
        )),
        "stages"
    );
    assert_eq!(
        field(generate(
            &GemmParams {
                compute: DType::F64,
                ..base.clone()
            },
            t
        )),
        "compute"
    );
    assert_eq!(
        field(generate(
            &GemmParams {
                instruction: GemmInstruction::Wmma,
                ..base.clone()
            },
            t
        )),
        "instruction"
    );
    assert_eq!(field(generate(&base, IsaTarget::Gfx1100)), "instruction");
    // LDS: 256x256x64 f32 in two stages is far past 64 KiB.
    let big = GemmParams {
        tile_m: 256,
        tile_n: 256,
        tile_k: 64,
        ..base.clone()
    };
    assert_eq!(field(generate(&big, t)), "tile_k");
    // gfx908 has no f64 MFMA; xf32 is gfx942's alone.
    let f64p = params(
        DType::F64,
        DType::F64,
        [32, 32, 8],
        (2, 2),
        MFMA16X4,
        2,
        (false, false),
    );
    assert!(field(generate(&f64p, IsaTarget::Gfx908)).starts_with("unsupported"));
    let xf = GemmParams {
        reduced_f32: true,
        instruction: GemmInstruction::Mfma { m: 32, n: 32, k: 4 },
        ..base.clone()
    };
    assert!(field(generate(&xf, t)).starts_with("unsupported"));
    assert_eq!(
        field(generate(
            &GemmParams {
                reduced_f32: true,
                ..f64p.clone()
            },
            IsaTarget::Gfx942
        )),
        "reduced_f32"
    );
    // gfx908 has only the old bf16 forms (32x32x4), not the _1k 32x32x8.
    let bf = params(
        DType::Bf16,
        DType::F32,
        [64, 64, 16],
        (2, 2),
        MFMA32X8,
        2,
        (false, false),
    );
    assert!(field(generate(&bf, IsaTarget::Gfx908)).starts_with("unsupported"));
    assert_eq!(field(generate(&bf, IsaTarget::Gfx90a)), "accepted");
    // f64 inputs need f64 C; complex inputs are not generated here.
    assert_eq!(
        field(generate(
            &GemmParams {
                c: DType::F32,
                ..f64p.clone()
            },
            t
        )),
        "c"
    );
    assert!(field(generate(
        &GemmParams {
            ab: DType::C32,
            ..base.clone()
        },
        t
    ))
    .starts_with("unsupported"));
    // The FMA kernel: f32/f64 only, lane tiles that cover the wave's tile exactly, and
    // at most 64 bytes of operands per lane and side (8×8 f64 is the largest tile).
    let fma = params(
        DType::F32,
        DType::F32,
        [64, 64, 16],
        (2, 2),
        fma(4, 4),
        2,
        (false, false),
    );
    assert_eq!(field(generate(&fma, IsaTarget::Gfx942)), "accepted");
    assert_eq!(field(generate(&fma, IsaTarget::Gfx1100)), "instruction");
    assert!(field(generate(
        &GemmParams {
            ab: DType::F16,
            ..fma.clone()
        },
        IsaTarget::Gfx942
    ))
    .starts_with("unsupported"));
    assert!(field(generate(
        &GemmParams {
            reduced_f32: true,
            ..fma.clone()
        },
        IsaTarget::Gfx942
    ))
    .starts_with("unsupported"));
    let fma64 = GemmParams {
        ab: DType::F64,
        c: DType::F64,
        compute: DType::F64,
        tile_m: 128,
        instruction: GemmInstruction::Simt {
            thread_m: 16,
            thread_n: 2,
        },
        ..fma.clone()
    };
    assert_eq!(field(generate(&fma64, IsaTarget::Gfx908)), "instruction");
    // 8×8 f64 lanes: 128 accumulator VGPRs, accepted.
    let fma88 = GemmParams {
        tile_m: 128,
        tile_n: 128,
        tile_k: 8,
        instruction: GemmInstruction::Simt {
            thread_m: 8,
            thread_n: 8,
        },
        ..fma64.clone()
    };
    assert_eq!(field(generate(&fma88, IsaTarget::Gfx908)), "accepted");
    assert_eq!(
        field(generate(
            &GemmParams {
                instruction: GemmInstruction::Simt {
                    thread_m: 3,
                    thread_n: 4,
                },
                ..fma.clone()
            },
            IsaTarget::Gfx942
        )),
        "instruction"
    );
    // Accepted as a control.
    assert_eq!(field(generate(&base, t)), "accepted");
}

/// The default large tiles themselves, on the emulator: a problem of exactly one tile
/// (interior loads and stores, two k slices) and one just past it in every dimension
/// (edge workgroups, k tail, batch 2), in the default layout and NN.
#[test]
fn default_tiles_on_the_emulator() {
    let mut rng = Rng(21);
    for (t, ab, c) in [
        (IsaTarget::Gfx90a, DType::F16, DType::F16),
        (IsaTarget::Gfx90a, DType::F64, DType::F64),
        (IsaTarget::Gfx942, DType::Bf16, DType::F32),
        (IsaTarget::Gfx942, DType::F32, DType::F32),
        (IsaTarget::Gfx908, DType::F32, DType::F32),
        (IsaTarget::Gfx1100, DType::F16, DType::Bf16),
        (IsaTarget::Gfx1100, DType::F32, DType::F32),
        (IsaTarget::Gfx1102, DType::F64, DType::F64),
        (IsaTarget::Gfx908, DType::F64, DType::F64),
    ] {
        let dev = emu(t);
        let base = GemmParams {
            c,
            ..default_params(t, ab).unwrap()
        };
        for p in [
            base.clone(),
            GemmParams {
                trans_a: false,
                trans_b: false,
                ..base.clone()
            },
        ] {
            let k = generate(&p, t).unwrap();
            let (tm, tn, tk) = (p.tile_m as usize, p.tile_n as usize, p.tile_k as usize);
            for case in [
                Case {
                    m: tm,
                    n: tn,
                    k: 2 * tk,
                    pad: 1,
                    batch: 1,
                    beta_zero: false,
                },
                Case {
                    m: tm + 3,
                    n: tn + 1,
                    k: tk + 5,
                    pad: 0,
                    batch: 2,
                    beta_zero: true,
                },
            ] {
                check(&mut rng, &dev, t, &p, &k, case);
            }
        }
    }
}

/// `Gemm::generate` routes AMD targets here: one code-object kernel of the right name.
#[test]
fn generator_routes_amd_targets() {
    use rocm_kernels::gemm::Gemm;
    use rocm_kernels::generator::Generator;
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let dev = emu(t);
        let p = default_params(t, DType::F16).unwrap();
        let prog = Gemm::generate(&p, dev.target()).unwrap();
        assert_eq!(prog.kernels, vec![kernel_name(&p)]);
        assert!(matches!(prog.image, ModuleImage::CodeObject(_)));
        dev.load_module(&prog.image).unwrap();
    }
}
