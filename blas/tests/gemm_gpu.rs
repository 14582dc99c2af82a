//! GEMM on CUDA devices (our generated kernels) against the f64 reference: shapes of 1,
//! primes and non-multiples of every tile (the 128×128 and 64×64 defaults and the
//! k-slab of 8), both transposes, leading dimensions above the rows (including ones
//! that forbid vector loads), α/β special cases (β = 0 with NaN in C, α = 0, k = 0),
//! operands starting off vector alignment, strided batches and arrays of matrices.
//! Skipped, with a printed reason, where no CUDA device is present.
//!
//! Tolerance: each element of α·op(A)·op(B) + β·C is a k-term dot product (in any
//! summation order) plus two scalings, so |error| <= (k + 2)·u·(|α|·Σ|a||b| + |β||c|),
//! the standard γ_{k+2} bound to first order (u = ε of the element type; `assert_close`).
//! tf32 adds 2^-10 of the same magnitude (each input rounded to 11 significant bits).

mod common;

use common::gemm::{self, Call, Case, Coef};
use common::*;
use rocm_blas::{Scalar, Transpose};
use rocm_core::Device;

/// One case against the reference: (k + 2)·u, plus 2^-9 relative per product through
/// tf32 (tf32 keeps 11 significant bits of each input: rounded (mma.sync path) a product
/// is off by up to 2·2^-11 relative, truncated (wgmma reads f32 data as tf32 by dropping
/// the low bits; compute capability 9.0, op(A) = Aᵀ, op(B) = B) by up to 2·2^-10).
fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    let tf32 = if c.tf32 {
        2f64.powi(-9) / eps::<T>()
    } else {
        0.0
    };
    gemm::check::<T>(dev, c, seed, (c.k + 2) as f64 + tf32);
}

/// Deterministic cases: every tile edge of the defaults, and the special cases.
fn cases() -> Vec<Case> {
    use Transpose::{C, N, T};
    let base = Case {
        ta: N,
        tb: N,
        m: 1,
        n: 1,
        k: 1,
        pads: (0, 0, 0),
        alpha: Coef::Random,
        beta: Coef::Random,
        batch: 1,
        offset: 0,
        call: Call::Strided,
        tf32: false,
    };
    let mut out = Vec::new();
    // Shapes around the tiles (m, n: 32, 64, 128; k: the slab of 8) and primes.
    let shapes = [
        (1, 1, 1),
        (1, 129, 9),
        (131, 1, 17),
        (128, 128, 8),
        (127, 129, 7),
        (129, 127, 9),
        (64, 64, 64),
        (65, 63, 33),
        (37, 61, 13),
        (257, 131, 300),
        (200, 300, 1),
    ];
    for (m, n, k) in shapes {
        for (ta, tb) in [(N, N), (N, T), (T, N), (T, T)] {
            out.push(Case {
                ta,
                tb,
                m,
                n,
                k,
                ..base
            });
        }
    }
    // Leading dimensions above the rows, aligned (pad 4) and not (pad 1, 3).
    for (pads, (ta, tb)) in [
        ((1, 3, 2), (N, N)),
        ((4, 4, 4), (N, T)),
        ((3, 1, 1), (T, N)),
        ((2, 2, 5), (T, T)),
        ((4, 0, 0), (C, C)),
    ] {
        out.push(Case {
            ta,
            tb,
            m: 133,
            n: 71,
            k: 45,
            pads,
            ..base
        });
    }
    // Operands starting one element past alignment (vector loads must step aside).
    for (ta, tb) in [(N, N), (T, T)] {
        out.push(Case {
            ta,
            tb,
            m: 96,
            n: 80,
            k: 24,
            offset: 1,
            ..base
        });
    }
    // α/β special cases, k = 0 and α = 0 (C = β·C), β = 0 over NaN.
    for (alpha, beta, k) in [
        (Coef::Random, Coef::Zero, 19),
        (Coef::One, Coef::One, 19),
        (Coef::Zero, Coef::Random, 19),
        (Coef::Zero, Coef::Zero, 19),
        (Coef::Random, Coef::Random, 0),
        (Coef::Random, Coef::Zero, 0),
        (Coef::Random, Coef::One, 0),
    ] {
        out.push(Case {
            m: 70,
            n: 33,
            k,
            alpha,
            beta,
            pads: (1, 0, 2),
            ta: T,
            ..base
        });
    }
    // Batches: strided (odd strides misalign later problems) and arrays of matrices.
    for (batch, call, (m, n, k)) in [
        (3, Call::Strided, (45, 37, 29)),
        (7, Call::Strided, (1, 1, 1)),
        (5, Call::Strided, (130, 129, 20)),
        (1, Call::Arrays, (33, 17, 9)),
        (4, Call::Arrays, (65, 66, 67)),
    ] {
        out.push(Case {
            m,
            n,
            k,
            batch,
            call,
            tb: T,
            beta: Coef::Zero,
            ..base
        });
    }
    out
}

/// Random cases over the same space (fixed seed, so a failure reproduces).
fn random_cases(count: usize, seed: u64) -> Vec<Case> {
    use rand::Rng;
    let mut r = rng(seed);
    let dims = [
        1usize, 2, 7, 8, 9, 31, 33, 63, 64, 65, 127, 128, 129, 131, 200,
    ];
    let pick = |r: &mut Rng64| dims[r.random_range(0..dims.len())];
    let tr = [Transpose::N, Transpose::T];
    let coefs = [Coef::Zero, Coef::One, Coef::Random, Coef::Random];
    (0..count)
        .map(|_| Case {
            ta: tr[r.random_range(0..2)],
            tb: tr[r.random_range(0..2)],
            m: pick(&mut r),
            n: pick(&mut r),
            k: pick(&mut r),
            pads: (
                r.random_range(0..5),
                r.random_range(0..5),
                r.random_range(0..5),
            ),
            alpha: coefs[r.random_range(0..4)],
            beta: coefs[r.random_range(0..4)],
            batch: [1, 1, 2, 3][r.random_range(0..4)],
            offset: r.random_range(0..2),
            call: if r.random_range(0..4) == 0 {
                Call::Arrays
            } else {
                Call::Strided
            },
            tf32: false,
        })
        .collect()
}

#[test]
fn sgemm_gpu_matches_reference() {
    for dev in cuda_devices("the GPU GEMM tests") {
        for (i, c) in cases().into_iter().chain(random_cases(60, 1)).enumerate() {
            check::<f32>(&dev, c, i as u64);
        }
    }
}

#[test]
fn dgemm_gpu_matches_reference() {
    for dev in cuda_devices("the GPU GEMM tests") {
        for (i, c) in cases().into_iter().chain(random_cases(60, 2)).enumerate() {
            check::<f64>(&dev, c, 1000 + i as u64);
        }
    }
}

#[test]
fn tf32_sgemm_gpu_matches_reference() {
    // The deterministic cases through tf32 tensor cores, and the large ones.
    for dev in cuda_devices("the GPU GEMM tests") {
        let mut all = cases();
        all.push(Case {
            m: 515,
            n: 389,
            k: 1031,
            ..all[0]
        });
        // Aᵀ·B with 16-byte-aligned columns: the wgmma kernel on compute capability 9.0.
        for (m, n, k) in [(515, 389, 1032), (256, 256, 96), (3, 300, 4)] {
            all.push(Case {
                ta: Transpose::T,
                tb: Transpose::N,
                m,
                n,
                k,
                pads: (0, 0, 1),
                batch: 1,
                offset: 0,
                ..all[0]
            });
        }
        // The other layouts: the same wgmma kernel on transposed copies of A and/or B
        // (compute capability 9.0), batched with odd strides too.
        for (ta, tb) in [
            (Transpose::N, Transpose::N),
            (Transpose::N, Transpose::T),
            (Transpose::T, Transpose::T),
        ] {
            for (m, n, k, batch) in [(256, 256, 96, 1), (77, 130, 45, 3), (1, 33, 260, 2)] {
                all.push(Case {
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    pads: (3, 1, 2),
                    batch,
                    ..all[0]
                });
            }
        }
        for (i, mut c) in all.into_iter().enumerate() {
            c.tf32 = true;
            check::<f32>(&dev, c, 5000 + i as u64);
        }
    }
}

#[test]
fn large_gemm_gpu_matches_reference() {
    // Many k-slabs and blocks on both default tiles.
    for dev in cuda_devices("the GPU GEMM tests") {
        for (ta, tb) in [
            (Transpose::N, Transpose::N),
            (Transpose::T, Transpose::N),
            (Transpose::N, Transpose::T),
            (Transpose::T, Transpose::T),
        ] {
            let c = Case {
                ta,
                tb,
                m: 515,
                n: 389,
                k: 1031,
                pads: (0, 0, 0),
                alpha: Coef::Random,
                beta: Coef::Random,
                batch: 1,
                offset: 0,
                call: Call::Strided,
                tf32: false,
            };
            check::<f32>(&dev, c, 7);
            check::<f64>(&dev, c, 8);
        }
    }
}

/// Few output tiles and a long k take split-K on CUDA (k cut into slices of whole
/// k-tiles plus a remainder, the slices' products summed in order by a finish pass):
/// every transpose, β = 0 over NaN, β ≠ 0, and k just above a slice multiple. The
/// bound is the same (k + 2)·u: the finish adds at most 16 more terms per element,
/// which the slices' shorter sums leave room for.
#[test]
fn split_k_gemm_matches_reference() {
    for dev in cuda_devices("the GPU GEMM tests") {
        for (i, (m, n, k, beta)) in [
            (64, 96, 4099, Coef::Zero),
            (130, 70, 2051, Coef::Random),
            (1, 257, 6000, Coef::One),
        ]
        .into_iter()
        .enumerate()
        {
            for (ta, tb) in [
                (Transpose::N, Transpose::N),
                (Transpose::T, Transpose::N),
                (Transpose::N, Transpose::T),
                (Transpose::C, Transpose::T),
            ] {
                let c = Case {
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    pads: (1, 2, 3),
                    alpha: Coef::Random,
                    beta,
                    batch: 1,
                    offset: 1,
                    call: Call::Strided,
                    tf32: false,
                };
                check::<f32>(&dev, c, 40 + i as u64);
                check::<f64>(&dev, c, 50 + i as u64);
                check::<f32>(&dev, Case { tf32: true, ..c }, 60 + i as u64);
            }
        }
    }
}

// Complex GEMM (CUDA and the emulated AMD targets): `gemm_complex_gpu.rs`.

/// Small cases for the emulator (its speed: tens of millions of lane-instructions per
/// second): tile edges of the 128×128 (MFMA, WMMA) and 64×64 (FMA) defaults (exactly
/// one FMA tile, and m, n up to one row past a tile; k across the 8- and 16-deep slabs),
/// every transpose, primes, padded leading dimensions, β = 0 over NaN, α = 0, k = 0,
/// strided batches and arrays of matrices.
fn emu_cases() -> Vec<Case> {
    use Transpose::{N, T};
    let base = cases()[0];
    let mut out = Vec::new();
    for (i, (m, n, k)) in [
        (1, 1, 1),
        (5, 7, 3),
        (37, 19, 17),
        (130, 65, 40),
        (64, 64, 16),
        (65, 63, 29),
    ]
    .into_iter()
    .enumerate()
    {
        let (ta, tb) = [(N, N), (N, T), (T, N), (T, T)][i % 4];
        for (ta, tb) in [(ta, tb), (tb, ta)] {
            out.push(Case {
                ta,
                tb,
                m,
                n,
                k,
                pads: (i % 3, (i + 1) % 3, i % 2),
                ..base
            });
        }
    }
    for (alpha, beta, k) in [
        (Coef::Random, Coef::Zero, 9),
        (Coef::Zero, Coef::Random, 9),
        (Coef::Random, Coef::Random, 0),
        (Coef::Random, Coef::Zero, 0),
    ] {
        out.push(Case {
            m: 23,
            n: 11,
            k,
            alpha,
            beta,
            ..base
        });
    }
    for (batch, call) in [(3, Call::Strided), (2, Call::Arrays)] {
        out.push(Case {
            m: 13,
            n: 9,
            k: 7,
            batch,
            call,
            tb: T,
            beta: Coef::Zero,
            ..base
        });
    }
    out
}

#[test]
fn gemm_on_emulated_amd_targets() {
    for dev in common::emu::emu_devices() {
        for (i, c) in emu_cases().into_iter().enumerate() {
            check::<f32>(&dev, c, 7000 + i as u64);
            check::<f64>(&dev, c, 8000 + i as u64);
        }
    }
}

/// The random cases of the CUDA tests (fixed seed) with every dimension cut to at most
/// 140 (a 128-wide FMA tile and its edge), on every emulated target in turn.
#[test]
fn random_gemm_on_emulated_amd_targets() {
    let devs = common::emu::emu_devices();
    for (i, c) in random_cases(28, 3).into_iter().enumerate() {
        let c = Case {
            m: c.m.min(140),
            n: c.n.min(140),
            k: c.k.min(140),
            ..c
        };
        let dev = &devs[i % devs.len()];
        check::<f32>(dev, c, 9000 + i as u64);
        check::<f64>(dev, c, 9500 + i as u64);
    }
}

/// An element type of the `wgmma` kernels' operands (and outputs), exact in f64.
trait WgElem: rocm_core::Element {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Unit roundoff of the type (for outputs rounded to it).
    const U: f64;
    /// Half the spacing of the type's subnormals: the absolute rounding error of an output
    /// below the smallest normal, where the relative bound `U·|x|` does not hold.
    const HALF_SUBNORMAL: f64;
}

impl WgElem for half::f16 {
    fn from_f64(v: f64) -> Self {
        half::f16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
    const U: f64 = 1.0 / 2048.0;
    const HALF_SUBNORMAL: f64 = 1.0 / (1u64 << 25) as f64;
}

impl WgElem for half::bf16 {
    fn from_f64(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
    const U: f64 = 1.0 / 256.0;
    const HALF_SUBNORMAL: f64 = f32::MIN_POSITIVE as f64 / 256.0;
}

impl WgElem for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const U: f64 = f32::EPSILON as f64 / 2.0;
    const HALF_SUBNORMAL: f64 = f32::MIN_POSITIVE as f64 * f32::EPSILON as f64 / 2.0;
}

/// One `wgmma` problem: op(A) m×k, op(B) k×n, `batch` of them, α and β.
#[derive(Debug, Clone, Copy)]
struct WgCase {
    m: usize,
    n: usize,
    k: usize,
    batch: usize,
    alpha: f32,
    beta: f32,
}

/// Runs `p` on `dev` for one case and checks every element of C (and that C's padding
/// rows are untouched) against an f64 reference computed from the same (already
/// rounded) inputs.
///
/// Tolerance: products of 16-bit (or tf32) inputs are exact in f32; the k-term sum in f32
/// costs at most (k + 2)·u32 relative to Σ|a||b| per element for round-to-nearest
/// adds (γ_{k+2}); tensor cores may truncate partial sums instead, so twice that. A
/// 16-bit output adds one rounding of its own unit roundoff of |result|.
fn wg_check<A: WgElem, C: WgElem>(
    dev: &Device,
    p: &rocm_kernels::gemm::GemmParams,
    c: WgCase,
    r: &mut Rng64,
) {
    use rand::Rng;
    use rocm_core::DeviceBuffer;
    use rocm_kernels::catalog::Catalog;
    use rocm_kernels::exec::{self, DeviceView};
    use rocm_kernels::gemm::{self, GemmClass, GemmOperand, GemmProblem};
    let (ta, tb) = (p.trans_a, p.trans_b);
    let v = 16 / std::mem::size_of::<A>();
    let up = |x: usize| x.div_ceil(v) * v;
    // Stored shapes, leading dimensions padded to the 16-byte copy rule (plus one more
    // vector now and then), batch strides likewise.
    let (ar, ac) = if ta { (c.k, c.m) } else { (c.m, c.k) };
    let (br, bc) = if tb { (c.n, c.k) } else { (c.k, c.n) };
    let lda = up(ar.max(1)) + if r.random_bool(0.5) { v } else { 0 };
    let ldb = up(br.max(1)) + if r.random_bool(0.5) { v } else { 0 };
    let ldc = c.m + r.random_range(0..3usize);
    let (sa, sb, sc) = (up(lda * ac), up(ldb * bc), ldc * c.n + 1);
    // tf32 (f32 inputs): values with 10-bit mantissas, so the hardware's tf32 read is
    // exact; 16-bit types: random values rounded to the type.
    let gen = |r: &mut Rng64| -> A {
        let x: f64 = r.random_range(-1.0..1.0);
        if std::mem::size_of::<A>() == 4 {
            A::from_f64((x * 1024.0).round() / 1024.0)
        } else {
            A::from_f64(x)
        }
    };
    // At least one vector each (k = 0 stores nothing, but the pointers must be real).
    let a: Vec<A> = (0..(sa * c.batch).max(v)).map(|_| gen(r)).collect();
    let b: Vec<A> = (0..(sb * c.batch).max(v)).map(|_| gen(r)).collect();
    // β = 0: C holds NaN, which must not be read.
    let c0: Vec<C> = (0..sc * c.batch)
        .map(|_| {
            if c.beta == 0.0 {
                C::from_f64(f64::NAN)
            } else {
                C::from_f64(r.random_range(-1.0..1.0))
            }
        })
        .collect();
    let da = DeviceBuffer::from_slice(dev, &a).unwrap();
    let db = DeviceBuffer::from_slice(dev, &b).unwrap();
    let mut dc = DeviceBuffer::from_slice(dev, &c0).unwrap();
    // The variant as given, planned and run as the library runs any GEMM.
    let problem = GemmProblem {
        class: GemmClass::Params(p.clone()),
        trans_a: ta,
        trans_b: tb,
        m: c.m,
        n: c.n,
        k: c.k,
        lda,
        ldb,
        ldc,
        a: GemmOperand::at(da.as_slice().address(), sa),
        b: GemmOperand::at(db.as_slice().address(), sb),
        c: GemmOperand::at(dc.as_slice().address(), sc),
        batch: c.batch,
        alpha: c.alpha as f64,
        beta: c.beta as f64,
        compute_units: dev.info().compute_units,
    };
    let plan = gemm::plan(&problem, dev.target(), Catalog::for_target(dev.target())).unwrap();
    let mut work =
        DeviceBuffer::<f64>::zeros(dev, (plan.workspace_bytes as usize).div_ceil(8).max(1))
            .unwrap();
    let (a_view, b_view) = (da.as_slice(), db.as_slice());
    let mut c_view = dc.as_slice_mut();
    let views = [
        DeviceView::read(&a_view),
        DeviceView::read(&b_view),
        DeviceView::write(&mut c_view),
    ];
    exec::execute(
        &plan,
        dev.default_stream(),
        &views,
        Some(&DeviceView::buffer(&mut work)),
    )
    .unwrap();
    dev.synchronize().unwrap();
    let got = dc.to_vec().unwrap();
    let u32_ = f32::EPSILON as f64 / 2.0;
    let what = format!("{p:?} {c:?} lda {lda} ldb {ldb} ldc {ldc}");
    for q in 0..c.batch {
        for j in 0..c.n {
            for i in 0..ldc {
                let at = q * sc + j * ldc + i;
                if i >= c.m {
                    assert!(
                        got[at].to_f64().to_bits() == c0[at].to_f64().to_bits(),
                        "{what}: padding row {i} of column {j} changed"
                    );
                    continue;
                }
                let (mut sum, mut mag) = (0.0f64, 0.0f64);
                for l in 0..c.k {
                    let x = if ta {
                        a[q * sa + i * lda + l]
                    } else {
                        a[q * sa + l * lda + i]
                    };
                    let y = if tb {
                        b[q * sb + l * ldb + j]
                    } else {
                        b[q * sb + j * ldb + l]
                    };
                    sum += x.to_f64() * y.to_f64();
                    mag += (x.to_f64() * y.to_f64()).abs();
                }
                let alpha = c.alpha as f64;
                let beta = c.beta as f64;
                let old = if c.beta == 0.0 { 0.0 } else { c0[at].to_f64() };
                let want = alpha * sum + beta * old;
                let scale = alpha.abs() * mag + beta.abs() * old.abs();
                let bound =
                    2.0 * (c.k as f64 + 2.0) * u32_ * scale + C::U * want.abs() + C::HALF_SUBNORMAL;
                let g = got[at].to_f64();
                assert!(
                    (g - want).abs() <= bound,
                    "{what}: C[{i}][{j}] of problem {q}: got {g}, want {want}, bound {bound:e}"
                );
            }
        }
    }
}

/// The sm_90a warpgroup-MMA kernels on compute capability 9.0 devices: every transpose,
/// f16/bf16 with f32 and same-type output, tf32 (TN), shapes of 1, primes, tile ±1,
/// k = 0 and k spanning many pipeline stages, α/β (β = 0 with NaN in C), batches.
#[test]
fn wgmma_gemm_matches_reference() {
    use half::{bf16, f16};
    use rocm_core::{Arch, DType};
    use rocm_kernels::gemm::ptx;
    for dev in cuda_devices("the GPU GEMM tests") {
        if !matches!(dev.target().arch(), Arch::Sm90 | Arch::Sm90a) {
            eprintln!(
                "skipped on {}: wgmma needs compute capability 9.0",
                dev.id()
            );
            continue;
        }
        let mut r = rng(0x9a9a);
        let fixed = [
            (1, 1, 1, 1),
            (128, 128, 64, 1),
            (129, 127, 65, 2),
            (257, 255, 200, 1),
            (64, 8, 1000, 1),
            (7, 300, 13, 3),
            (200, 33, 0, 1),
        ];
        for p in ptx::wgmma_variants() {
            let mut cases: Vec<WgCase> = fixed
                .iter()
                .map(|&(m, n, k, batch)| WgCase {
                    m,
                    n,
                    k,
                    batch,
                    alpha: 1.0,
                    beta: 0.0,
                })
                .collect();
            for _ in 0..3 {
                use rand::Rng;
                cases.push(WgCase {
                    m: r.random_range(1..400),
                    n: r.random_range(1..400),
                    k: r.random_range(1..300),
                    batch: r.random_range(1..3),
                    alpha: r.random_range(-2.0..2.0),
                    beta: if r.random_bool(0.5) {
                        0.0
                    } else {
                        r.random_range(-2.0..2.0)
                    },
                });
            }
            cases[1].alpha = -0.5;
            cases[1].beta = 1.5;
            cases[6].beta = 0.75;
            for c in cases {
                match (p.ab, p.c) {
                    (DType::F16, DType::F32) => wg_check::<f16, f32>(&dev, &p, c, &mut r),
                    (DType::F16, DType::F16) => wg_check::<f16, f16>(&dev, &p, c, &mut r),
                    (DType::Bf16, DType::F32) => wg_check::<bf16, f32>(&dev, &p, c, &mut r),
                    (DType::Bf16, DType::Bf16) => wg_check::<bf16, bf16>(&dev, &p, c, &mut r),
                    (DType::F32, DType::F32) => wg_check::<f32, f32>(&dev, &p, c, &mut r),
                    other => panic!("no check for {other:?}"),
                }
            }
            eprintln!("wgmma ok: {p:?}");
        }
    }
}
