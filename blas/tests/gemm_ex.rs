//! `gemm_ex` / `gemm_strided_batched_ex` / `gemm_batched_ex` against an f64 (or exact
//! integer) reference, on the CPU, emulated AMD targets (one per family, small sizes),
//! and CUDA (skipped with a printed reason when absent).
//!
//! Float bound per element (see the module docs of `rocm_blas::gemm_ex`): products of
//! 16-bit values are exact in f32, the f32 sum of k terms plus α and β scaling errs by at
//! most (k + 2)·u₃₂·(|α|Σ|a||b| + |β||c|), then one rounding into C adds u_C·|want| (or
//! half a subnormal spacing below C's smallest normal). i8 → i32 is exact.

use half::{bf16, f16};
use rocm_blas::{Blas, GemmExInput, GemmExOutput, Transpose};
use rocm_core::{BackendKind, Device, Element, Error};

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 * 2.0 - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Test values per type, and the type's output rounding.
trait Val: Element {
    fn random(r: &mut Rng) -> Self;
    fn nan() -> Self;
    fn f64(self) -> f64;
    /// Unit roundoff and half the subnormal spacing (0, 0 for exact types).
    const ROUND: (f64, f64);
}

impl Val for f16 {
    fn random(r: &mut Rng) -> Self {
        f16::from_f64(r.unit() * 4.0)
    }
    fn nan() -> Self {
        f16::NAN
    }
    fn f64(self) -> f64 {
        self.to_f64()
    }
    const ROUND: (f64, f64) = (1.0 / 2048.0, 1.0 / (1u64 << 25) as f64);
}

impl Val for bf16 {
    fn random(r: &mut Rng) -> Self {
        bf16::from_f64(r.unit() * 4.0)
    }
    fn nan() -> Self {
        bf16::NAN
    }
    fn f64(self) -> f64 {
        self.to_f64()
    }
    const ROUND: (f64, f64) = (1.0 / 256.0, f32::MIN_POSITIVE as f64 / 256.0);
}

impl Val for f32 {
    fn random(r: &mut Rng) -> Self {
        r.unit() as f32 * 4.0
    }
    fn nan() -> Self {
        f32::NAN
    }
    fn f64(self) -> f64 {
        self as f64
    }
    const ROUND: (f64, f64) = (
        f32::EPSILON as f64 / 2.0,
        f32::MIN_POSITIVE as f64 * f32::EPSILON as f64 / 2.0,
    );
}

impl Val for i8 {
    fn random(r: &mut Rng) -> Self {
        (r.next() % 256) as u8 as i8
    }
    fn nan() -> Self {
        0
    }
    fn f64(self) -> f64 {
        self as f64
    }
    const ROUND: (f64, f64) = (0.0, 0.0);
}

impl Val for i32 {
    fn random(r: &mut Rng) -> Self {
        (r.next() % 20001) as i32 - 10000
    }
    fn nan() -> Self {
        i32::MIN
    }
    fn f64(self) -> f64 {
        self as f64
    }
    const ROUND: (f64, f64) = (0.0, 0.0);
}

/// α/β in the compute type from a small real (exact in both f32 and i32).
trait FromSmall {
    fn small(v: i32) -> Self;
    fn f64(self) -> f64;
}
impl FromSmall for f32 {
    fn small(v: i32) -> Self {
        v as f32 * 0.75
    }
    fn f64(self) -> f64 {
        self as f64
    }
}
impl FromSmall for i32 {
    fn small(v: i32) -> Self {
        v
    }
    fn f64(self) -> f64 {
        self as f64
    }
}

#[derive(Debug, Clone, Copy)]
struct Case {
    ta: Transpose,
    tb: Transpose,
    m: usize,
    n: usize,
    k: usize,
    pads: (usize, usize, usize),
    batch: usize,
    alpha: i32,
    /// 0: β = 0 with C full of NaN (i32::MIN for integers), which must not be read.
    beta: i32,
}

fn cases(seed: u64, max: usize, count: usize) -> Vec<Case> {
    let mut r = Rng(seed | 1);
    let dims = [0, 1, 2, 3, 7, 13, 16, 17, 31, 33, max];
    let trans = [Transpose::N, Transpose::T, Transpose::C];
    (0..count)
        .map(|i| Case {
            ta: trans[r.below(3)],
            tb: trans[r.below(3)],
            m: dims[r.below(dims.len())].min(max),
            n: dims[r.below(dims.len())].min(max),
            // k = 0 and odd k appear; the first case is never empty.
            k: if i == 0 {
                5
            } else {
                dims[r.below(dims.len())].min(max)
            },
            pads: (r.below(3), r.below(3), r.below(3)),
            batch: 1 + r.below(3),
            alpha: [0, 1, -2, 3][r.below(4)],
            beta: [0, 1, 2, -1][r.below(4)],
        })
        .collect()
}

/// Runs one case through `gemm_strided_batched_ex` (or `gemm_ex` / `gemm_batched_ex` for
/// batch 1 / every third seed) and checks C element by element, padding included.
fn check<In, Out>(dev: &Device, c: Case, seed: u64)
where
    In: GemmExInput + Val,
    Out: GemmExOutput<In> + Val,
    In::Compute: FromSmall,
{
    let blas = Blas::new(dev);
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (ar, ac) = if c.ta == Transpose::N {
        (c.m, c.k)
    } else {
        (c.k, c.m)
    };
    let (br, bc) = if c.tb == Transpose::N {
        (c.k, c.n)
    } else {
        (c.n, c.k)
    };
    let (lda, ldb, ldc) = (
        ar.max(1) + c.pads.0,
        br.max(1) + c.pads.1,
        c.m.max(1) + c.pads.2,
    );
    let (sa, sb, sc) = (lda * ac + 1, ldb * bc + 2, ldc * c.n + 3);
    let a: Vec<In> = (0..sa * c.batch).map(|_| In::random(&mut r)).collect();
    let b: Vec<In> = (0..sb * c.batch).map(|_| In::random(&mut r)).collect();
    let c0: Vec<Out> = (0..sc * c.batch)
        .map(|i| {
            let inside = (i % sc) < ldc * c.n && (i % sc) % ldc < c.m;
            if c.beta == 0 && inside {
                Out::nan()
            } else {
                Out::random(&mut r)
            }
        })
        .collect();
    let (alpha, beta) = (In::Compute::small(c.alpha), In::Compute::small(c.beta));
    let da = dev.upload(&a).unwrap();
    let db = dev.upload(&b).unwrap();
    let mut dc = dev.upload(&c0).unwrap();
    let what = format!("{} -> {} on {}: {c:?}", In::DTYPE, Out::DTYPE, dev.id());
    let res = if c.batch == 1 && seed % 2 == 0 {
        blas.gemm_ex(
            c.ta,
            c.tb,
            c.m,
            c.n,
            c.k,
            alpha,
            &da.as_slice(),
            lda,
            &db.as_slice(),
            ldb,
            beta,
            &mut dc.as_slice_mut(),
            ldc,
        )
    } else {
        blas.gemm_strided_batched_ex(
            c.ta,
            c.tb,
            c.m,
            c.n,
            c.k,
            alpha,
            &da.as_slice(),
            lda,
            sa,
            &db.as_slice(),
            ldb,
            sb,
            beta,
            &mut dc.as_slice_mut(),
            ldc,
            sc,
            c.batch,
        )
    };
    res.unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = dc.to_vec().unwrap();
    let u32_ = f32::EPSILON as f64 / 2.0;
    let (u_c, half_sub) = Out::ROUND;
    for q in 0..c.batch {
        for idx in 0..sc {
            let at = q * sc + idx;
            let (i, j) = (idx % ldc, idx / ldc);
            if j >= c.n || i >= c.m {
                assert_eq!(
                    bytemuck::bytes_of(&got[at]),
                    bytemuck::bytes_of(&c0[at]),
                    "{what}: element {idx} of problem {q} outside C changed"
                );
                continue;
            }
            let (mut sum, mut mag) = (0.0f64, 0.0f64);
            for l in 0..c.k {
                let x = if c.ta == Transpose::N {
                    a[q * sa + i + l * lda]
                } else {
                    a[q * sa + l + i * lda]
                };
                let y = if c.tb == Transpose::N {
                    b[q * sb + l + j * ldb]
                } else {
                    b[q * sb + j + l * ldb]
                };
                sum += x.f64() * y.f64();
                mag += (x.f64() * y.f64()).abs();
            }
            let old = if c.beta == 0 { 0.0 } else { c0[at].f64() };
            let want = alpha.f64() * sum + beta.f64() * old;
            let scale = alpha.f64().abs() * mag + beta.f64().abs() * old.abs();
            let bound = if u_c == 0.0 {
                0.0
            } else {
                (c.k as f64 + 2.0) * u32_ * scale + u_c * want.abs() + half_sub
            };
            let g = got[at].f64();
            assert!(
                (g - want).abs() <= bound,
                "{what}: C[{i}][{j}] of problem {q}: got {g}, want {want}, bound {bound:e}"
            );
        }
    }
    // The array form agrees with the strided one bit for bit (same kernels per problem).
    if seed % 3 == 0 && c.batch > 1 {
        let up = |v: &[In], st: usize, q: usize| dev.upload(&v[q * st..(q + 1) * st]).unwrap();
        let ab: Vec<_> = (0..c.batch).map(|q| up(&a, sa, q)).collect();
        let bb: Vec<_> = (0..c.batch).map(|q| up(&b, sb, q)).collect();
        let mut cb: Vec<_> = (0..c.batch)
            .map(|q| dev.upload(&c0[q * sc..(q + 1) * sc]).unwrap())
            .collect();
        let av: Vec<_> = ab.iter().map(|x| x.as_slice()).collect();
        let bv: Vec<_> = bb.iter().map(|x| x.as_slice()).collect();
        let mut cv: Vec<_> = cb.iter_mut().map(|x| x.as_slice_mut()).collect();
        blas.gemm_batched_ex(
            c.ta, c.tb, c.m, c.n, c.k, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc,
        )
        .unwrap_or_else(|e| panic!("{what} (array form): {e}"));
        drop(cv);
        for (q, buf) in cb.iter().enumerate() {
            let one = buf.to_vec().unwrap();
            assert_eq!(
                bytemuck::cast_slice::<Out, u8>(&one),
                bytemuck::cast_slice::<Out, u8>(&got[q * sc..(q + 1) * sc]),
                "{what}: array form differs from the strided form in problem {q}"
            );
        }
    }
}

fn all_pairs(dev: &Device, cases: &[Case], seed: u64) {
    for (i, &c) in cases.iter().enumerate() {
        let s = seed + 10 * i as u64;
        check::<f16, f16>(dev, c, s);
        check::<f16, f32>(dev, c, s + 1);
        check::<bf16, bf16>(dev, c, s + 2);
        check::<bf16, f32>(dev, c, s + 3);
    }
}

#[test]
fn cpu_gemm_ex_matches_reference() {
    let dev = Device::cpu();
    let cs = cases(11, 70, 40);
    all_pairs(&dev, &cs, 100);
    for (i, &c) in cs.iter().enumerate() {
        check::<i8, i32>(&dev, c, 5000 + i as u64);
    }
}

#[test]
fn emulated_gemm_ex_matches_reference() {
    for target in ["gfx908", "gfx90a", "gfx942", "gfx1100"] {
        let dev = Device::open(&format!("emu:{target}")).unwrap();
        all_pairs(&dev, &cases(23, 20, 8), 300);
    }
}

#[test]
fn cuda_gemm_ex_matches_reference() {
    let devs: Vec<Device> = Device::enumerate()
        .into_iter()
        .filter_map(|d| Device::open(&d.id).ok())
        .filter(|d| d.kind() == BackendKind::Cuda)
        .collect();
    if devs.is_empty() {
        eprintln!("skipped: no CUDA device present for the gemm_ex tests");
    }
    for dev in devs {
        all_pairs(&dev, &cases(37, 300, 40), 700);
        // 16-byte-aligned shapes that take the wgmma kernel on CC 9.0 (f16/bf16 output
        // directly, f32 output), several k steps and edges.
        for (m, n, k) in [(256, 264, 136), (136, 512, 64), (512, 256, 1000)] {
            for (ta, tb) in [
                (Transpose::N, Transpose::N),
                (Transpose::T, Transpose::N),
                (Transpose::N, Transpose::T),
                (Transpose::T, Transpose::T),
            ] {
                let c = Case {
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    pads: (0, 0, 0),
                    batch: 1,
                    alpha: 1,
                    beta: -1,
                };
                all_pairs(&dev, &[c], 900);
            }
        }
        // Few output tiles with a long k (split-K: slices of whole k-tiles plus a
        // remainder, summed by the finish pass), with leading dimensions that break the
        // wgmma copy rule (operands repacked) and batches whose problems are not back
        // to back (one repack copy per problem). α = 1 and k ≤ 3001 keep every result
        // inside f16's range (|C| ≲ 12·k here; f16 overflows above 65504).
        for (m, n, k, pads, batch, beta) in [
            (128, 256, 2100, (0, 0, 0), 1, 0),
            (64, 520, 3001, (1, 3, 2), 1, 2),
            (133, 77, 2050, (2, 1, 0), 1, -1),
            (97, 200, 300, (1, 1, 1), 3, 1),
        ] {
            for (ta, tb) in [(Transpose::N, Transpose::T), (Transpose::T, Transpose::N)] {
                let c = Case {
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    pads,
                    batch,
                    alpha: 1,
                    beta,
                };
                all_pairs(&dev, &[c], 1100);
            }
        }
    }
}

#[test]
fn integer_and_bad_arguments() {
    // i8 → i32 has no GPU kernel: a clear Unsupported naming the types.
    let dev = Device::open("emu:gfx90a").unwrap();
    let blas = Blas::new(&dev);
    let a = dev.upload(&[1i8; 4]).unwrap();
    let mut c = dev.upload(&[0i32; 4]).unwrap();
    let err = blas
        .gemm_ex::<i8, i32>(
            Transpose::N,
            Transpose::N,
            2,
            2,
            2,
            1,
            &a.as_slice(),
            2,
            &a.as_slice(),
            2,
            0,
            &mut c.as_slice_mut(),
            2,
        )
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("i8"), "{err}");
    // Leading dimensions and buffer sizes are checked on every device.
    let cpu = Device::cpu();
    let blas = Blas::new(&cpu);
    let a = cpu.upload(&[f16::ONE; 6]).unwrap();
    let mut c = cpu.upload(&[0f32; 6]).unwrap();
    let bad_lda = blas.gemm_ex::<f16, f32>(
        Transpose::N,
        Transpose::N,
        3,
        2,
        2,
        1.0,
        &a.as_slice(),
        2,
        &a.as_slice(),
        2,
        0.0,
        &mut c.as_slice_mut(),
        3,
    );
    assert!(bad_lda.unwrap_err().to_string().contains("lda"));
    let short_c = blas.gemm_ex::<f16, f32>(
        Transpose::N,
        Transpose::N,
        3,
        3,
        2,
        1.0,
        &a.as_slice(),
        3,
        &a.as_slice(),
        2,
        0.0,
        &mut c.as_slice_mut(),
        3,
    );
    assert!(short_c.unwrap_err().to_string().contains("c"));
}
