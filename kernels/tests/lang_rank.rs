//! The rank-update kernel written once in the language (`rocm_kernels::lang::level2::rank`,
//! what `level2::rank::Rank` returns on every target) against a CPU computation of the
//! documented arithmetic, on random problems (proptest): every dtype, op, dense or
//! packed storage, uplo, m and n (0, 1, primes, non-multiples of the workgroup and of
//! the column step), padded `lda`, increments (negative, non-unit), workgroup sizes,
//! columns per step and column-group grids (the grid-stride loop runs).
//!
//! The kernel's arithmetic is a fixed sequence of correctly rounded fused multiply-adds
//! (c1 = op(y(j))·α and c2 = op(x(j))·α' onto zero, then A + x(i)·c1 + y(i)·c2, complex
//! as four fmas each, `level2::rank`), so the CPU computes the same operations in the
//! same order and every backend must return A with the same bytes: the PTX interpreter
//! (`ptx_sim`), the language's interpreter (positive increments: its buffers start at
//! logical element 0), every emulated AMD target, and `cuda:0` (skipped with a printed
//! reason where none is present). Elements outside the stored triangle and the padding
//! below each column must keep their bits. That the documented sequence is within the
//! module's bound of the exact update (k·u·(|a| + |x||c1| + |y||c2|)) is
//! checked on the same data, in f64 against the rounded result: reals 3u, complex 10u
//! (module doc of `level2::rank`).

mod common;
#[allow(dead_code)]
mod ptx_sim;

use common::host::{Rng, Ty};
use proptest::prelude::*;
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Device, KernelArgs, LaunchConfig, ModuleImage, Target};
use rocm_kernels::generator::Generator;
use rocm_kernels::lang::interp::{self, Arg};
use rocm_kernels::lang::ParamType;
use rocm_kernels::level2::rank::{Rank, RankOp, RankParams, KERNEL, UPPER};
use rocm_kernels::level2::{signatures, Storage};

const AMD: [IsaTarget; 4] = [
    IsaTarget::Gfx908,
    IsaTarget::Gfx90a,
    IsaTarget::Gfx942,
    IsaTarget::Gfx1100,
];
const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

fn triangle(op: RankOp) -> bool {
    !matches!(op, RankOp::Ger | RankOp::Gerc)
}
fn rank2(op: RankOp) -> bool {
    matches!(op, RankOp::Syr2 | RankOp::Her2)
}
fn conj(op: RankOp) -> bool {
    matches!(op, RankOp::Gerc | RankOp::Her | RankOp::Her2)
}
fn hermitian(op: RankOp) -> bool {
    matches!(op, RankOp::Her | RankOp::Her2)
}

/// One problem: the kernel variant, its launch and its data (components as f64,
/// rounded to the real type; re, im interleaved).
#[derive(Debug, Clone)]
struct Case {
    p: RankParams,
    upper: bool,
    m: usize,
    n: usize,
    lda: usize,
    incx: isize,
    incy: isize,
    /// Column groups launched (grid y).
    groups: u32,
    a: Vec<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
    alpha: Vec<f64>,
}

/// Storage index of logical element i of a vector of `len` at `inc`.
fn at(i: usize, len: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (len - 1 - i) * inc.unsigned_abs()
    }
}

fn extent(len: usize, inc: isize) -> usize {
    1 + (len.max(1) - 1) * inc.unsigned_abs()
}

impl Case {
    fn new(dtype: DType, op: RankOp, packed: bool, shape: Shape, seed: u64) -> Case {
        let t = Ty::of(dtype);
        let storage = if packed && triangle(op) {
            Storage::Packed
        } else {
            Storage::Dense
        };
        let p = RankParams {
            block: shape.block,
            cols: shape.cols,
            ..RankParams::fallback(dtype, op, storage)
        };
        let (m, n) = if triangle(op) {
            (shape.n, shape.n)
        } else {
            (shape.m, shape.n)
        };
        // syr/her read x as y: the host passes x twice.
        let incy = if triangle(op) && !rank2(op) {
            shape.incx
        } else {
            shape.incy
        };
        let lda = m.max(1) + shape.pad;
        let len = match storage {
            Storage::Packed => n * (n + 1) / 2,
            _ => lda * n,
        };
        let mut rng = Rng(seed | 1);
        let mut alpha = common::host::random(&mut rng, t, 1);
        if op == RankOp::Her && t.comps == 2 {
            alpha[1] = 0.0;
        }
        let x = common::host::random(&mut rng, t, extent(m, shape.incx));
        let y = if triangle(op) && !rank2(op) {
            x.clone()
        } else {
            common::host::random(&mut rng, t, extent(n, incy))
        };
        Case {
            groups: p.grid(m, n)[1].min(shape.groups),
            upper: shape.upper,
            a: common::host::random(&mut rng, t, len.max(1)),
            p,
            m,
            n,
            lda,
            incx: shape.incx,
            incy,
            x,
            y,
            alpha,
        }
    }

    /// The case without its data.
    fn what(&self) -> String {
        format!(
            "{:?} upper {} m {} n {} lda {} incx {} incy {} groups {}",
            self.p, self.upper, self.m, self.n, self.lda, self.incx, self.incy, self.groups
        )
    }

    fn ty(&self) -> Ty {
        Ty::of(self.p.dtype)
    }

    fn index(&self, i: usize, j: usize) -> usize {
        match (self.p.storage, self.upper) {
            (Storage::Packed, true) => i + j * (j + 1) / 2,
            (Storage::Packed, false) => i + j * self.n - j * (j + 1) / 2,
            _ => i + j * self.lda,
        }
    }

    fn stored(&self, i: usize, j: usize) -> bool {
        !triangle(self.p.op) || if self.upper { i <= j } else { i >= j }
    }

    /// The element of a vector at logical index i.
    fn elem(&self, v: &[f64], i: usize, len: usize, inc: isize) -> Vec<f64> {
        let c = self.ty().comps;
        let q = at(i, len, inc) * c;
        v[q..q + c].to_vec()
    }

    /// A after the documented sequence of operations, and each element's bound term
    /// |a| + |x||c1| + |y||c2| (zero where the element is not updated).
    fn expected(&self) -> (Vec<f64>, Vec<f64>) {
        let t = self.ty();
        let c = t.comps;
        let op = self.p.op;
        let conj_of = |v: Vec<f64>| -> Vec<f64> {
            if conj(op) && c == 2 {
                vec![v[0], -v[1]]
            } else {
                v
            }
        };
        let alpha2 = if hermitian(op) {
            conj_of(self.alpha.clone())
        } else {
            self.alpha.clone()
        };
        let abs = |v: &[f64]| v.iter().map(|r| r * r).sum::<f64>().sqrt();
        let zero = vec![0.0; c];
        let mut a = self.a.clone();
        let mut mags = vec![0.0; a.len() / c];
        for j in 0..self.n {
            for i in 0..self.m {
                if !self.stored(i, j) {
                    continue;
                }
                let q = self.index(i, j);
                let old = &self.a[q * c..q * c + c];
                let xi = self.elem(&self.x, i, self.m, self.incx);
                let yj = conj_of(self.elem(&self.y, j, self.n, self.incy));
                let c1 = t.cfma(&zero, &yj, &self.alpha);
                let mut v = t.cfma(old, &xi, &c1);
                let mut mag = abs(old) + abs(&xi) * abs(&c1);
                if rank2(op) {
                    let xj = conj_of(self.elem(&self.x, j, self.m, self.incx));
                    let c2 = t.cfma(&zero, &xj, &alpha2);
                    let yi = self.elem(&self.y, i, self.n, self.incy);
                    v = t.cfma(&v, &yi, &c2);
                    mag += abs(&yi) * abs(&c2);
                }
                if hermitian(op) && i == j && c == 2 {
                    v[1] = 0.0;
                }
                a[q * c..q * c + c].copy_from_slice(&v);
                mags[q] = mag;
            }
        }
        (a, mags)
    }

    fn bytes(&self, v: &[f64]) -> Vec<u8> {
        if self.ty().f32 {
            v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect()
        } else {
            v.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
    }

    fn es(&self) -> u64 {
        self.p.dtype.size() as u64
    }

    /// The kernel's arguments with A, x and y at `pa`, `px`, `py` (x and y at their
    /// logical element 0), in parameter order, as u64 bits.
    fn params(&self, pa: u64, px: u64, py: u64) -> Vec<u64> {
        let es = self.es();
        let x0 = px + at(0, self.m.max(1), self.incx) as u64 * es;
        let y0 = py + at(0, self.n.max(1), self.incy) as u64 * es;
        let mut v = vec![
            self.m as u64,
            self.n as u64,
            pa,
            self.lda as u64,
            x0,
            self.incx as i64 as u64,
            y0,
            self.incy as i64 as u64,
        ];
        for r in &self.alpha {
            v.push(if self.ty().f32 {
                u64::from((*r as f32).to_bits())
            } else {
                r.to_bits()
            });
        }
        v.push(if self.upper { UPPER } else { 0 }.into());
        v
    }

    fn grid(&self) -> [u32; 3] {
        let g = self.p.grid(self.m, self.n);
        [g[0], self.groups, 1]
    }

    fn ptx_sim(&self) -> Vec<u8> {
        let prog = Rank::generate(&self.p, &"sm_90".parse().unwrap()).unwrap();
        let ModuleImage::Ptx(text) = prog.image else {
            panic!("not PTX")
        };
        let kernel = ptx_sim::Kernel::parse(&text);
        let mut mem = ptx_sim::Memory::default();
        let pa = mem.alloc(self.bytes(&self.a));
        let px = mem.alloc(self.bytes(&self.x));
        let py = mem.alloc(self.bytes(&self.y));
        let params = self.params(pa, px, py);
        kernel.run(self.grid(), self.p.block, &params, &mut mem);
        mem.bytes(pa).to_vec()
    }

    /// The language's interpreter (positive increments only).
    fn interp(&self, target: &Target) -> Option<Vec<u8>> {
        if self.incx < 0 || self.incy < 0 {
            return None;
        }
        let def = rocm_kernels::lang::level2::rank::kernel(&self.p, target).unwrap();
        let params = self.params(0, 0, 0);
        let bufs = [
            self.bytes(&self.a),
            self.bytes(&self.x),
            self.bytes(&self.y),
        ];
        let mut next = bufs.iter();
        let mut args: Vec<Arg> = params
            .iter()
            .zip(&def.signature.params)
            .map(|(v, p)| match p.ty {
                ParamType::Pointer { .. } => Arg::Buffer(next.next().unwrap().clone()),
                _ => Arg::Scalar(*v),
            })
            .collect();
        interp::run(&def, self.grid(), [self.p.block, 1, 1], &mut args)
            .unwrap_or_else(|e| panic!("{}: {e}", self.what()));
        let Arg::Buffer(a) = &args[2] else {
            unreachable!()
        };
        Some(a.clone())
    }

    /// The generator's program for `dev`'s target, run there.
    fn on_device(&self, dev: &Device) -> Vec<u8> {
        let prog = Rank::generate(&self.p, &dev.info().target).unwrap();
        let module = dev.load_module(&prog.image).unwrap();
        let f = module.kernel(KERNEL).unwrap();
        let a = dev.upload(&self.bytes(&self.a)).unwrap();
        let x = dev.upload(&self.bytes(&self.x)).unwrap();
        let y = dev.upload(&self.bytes(&self.y)).unwrap();
        let params = self.params(a.address(), x.address(), y.address());
        let mut args = KernelArgs::new();
        for (v, p) in params.iter().zip(&prog.signatures[0].params) {
            match p.ty {
                ParamType::Pointer { .. } => args.push_pointer(*v, dev),
                ParamType::Scalar(s) if s.size() == 8 => args.push(*v),
                ParamType::Scalar(_) => args.push(*v as u32),
                other => panic!("no rank-update parameter is a {other:?}"),
            };
        }
        let cfg = LaunchConfig {
            grid: self.grid(),
            block: [self.p.block, 1, 1],
            shared_bytes: 0,
        };
        // SAFETY: the arguments follow the program's signature; A, x and y hold every
        // element the sizes, `lda` and increments reach, and outlive the
        // synchronisation below.
        unsafe { f.launch(dev.default_stream(), &cfg, &args).unwrap() };
        dev.synchronize().unwrap();
        a.to_vec().unwrap()
    }

    /// Every backend against the expected bytes, and the expectation within the bound.
    fn check(&self, cuda: Option<&Device>) {
        let (want, mags) = self.expected();
        let u = self.ty().u();
        let k = if self.ty().comps == 2 { 10.0 } else { 3.0 };
        // f64 data: the "exact" update below is itself computed in f64 and carries up to
        // the same bound, so the two may differ by twice it.
        let k = if matches!(self.p.dtype, DType::F64 | DType::C64) {
            2.0 * k
        } else {
            k
        };
        // The exact update in f64 against the rounded sequence: the documented bound.
        let c = self.ty().comps;
        for (q, mag) in mags.iter().enumerate() {
            if *mag == 0.0 {
                continue;
            }
            let got = &want[q * c..q * c + c];
            let exact = self.exact(q);
            let err = got
                .iter()
                .zip(&exact)
                .map(|(g, e)| (g - e).powi(2))
                .sum::<f64>()
                .sqrt();
            let bound = k * u * mag + f64::MIN_POSITIVE;
            assert!(
                err <= bound,
                "{}: element {q}: error {err:e} > {bound:e}",
                self.what()
            );
        }
        let want = self.bytes(&want);
        let same = |who: &str, got: Vec<u8>| {
            let bad = (0..want.len()).find(|&b| got[b] != want[b]);
            assert!(
                bad.is_none(),
                "{who}: A differs first at byte {bad:?}: {}",
                self.what()
            );
        };
        same("ptx_sim", self.ptx_sim());
        for t in AMD {
            let target: Target = t.name().parse().unwrap();
            if let Some(got) = self.interp(&target) {
                same(&format!("interpreter for {t}"), got);
            }
            same(t.name(), self.on_device(&common::emu(t)));
        }
        if let Some(dev) = cuda {
            same("cuda:0", self.on_device(dev));
        }
    }

    /// Element q's exact update (f64 arithmetic on the rounded inputs).
    fn exact(&self, q: usize) -> Vec<f64> {
        let c = self.ty().comps;
        let (i, j) = (0..self.n)
            .flat_map(|j| (0..self.m).map(move |i| (i, j)))
            .find(|&(i, j)| self.stored(i, j) && self.index(i, j) == q)
            .unwrap();
        let cm = |a: &[f64], b: &[f64]| -> [f64; 2] {
            if c == 1 {
                [a[0] * b[0], 0.0]
            } else {
                [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
            }
        };
        let cj = |v: Vec<f64>| {
            if conj(self.p.op) && c == 2 {
                vec![v[0], -v[1]]
            } else {
                v
            }
        };
        let xi = self.elem(&self.x, i, self.m, self.incx);
        let yj = cj(self.elem(&self.y, j, self.n, self.incy));
        let t1 = cm(&xi, &cm(&yj, &self.alpha));
        let mut v: Vec<f64> = (0..c).map(|r| self.a[q * c + r] + t1[r]).collect();
        if rank2(self.p.op) {
            let a2 = if hermitian(self.p.op) {
                cj(self.alpha.clone())
            } else {
                self.alpha.clone()
            };
            let yi = self.elem(&self.y, i, self.n, self.incy);
            let xj = cj(self.elem(&self.x, j, self.m, self.incx));
            let t2 = cm(&yi, &cm(&xj, &a2));
            for (r, vr) in v.iter_mut().enumerate() {
                *vr += t2[r];
            }
        }
        if hermitian(self.p.op) && i == j && c == 2 {
            v[1] = 0.0;
        }
        v
    }
}

/// The shape half of a case.
#[derive(Debug, Clone, Copy)]
struct Shape {
    m: usize,
    n: usize,
    pad: usize,
    incx: isize,
    incy: isize,
    upper: bool,
    block: u32,
    cols: u32,
    groups: u32,
}

fn dims() -> impl Strategy<Value = usize> {
    prop_oneof![
        prop::sample::select(vec![0usize, 1, 2, 3, 5, 31, 32, 33, 37, 64, 65, 67]),
        0usize..70,
    ]
}

fn incs() -> impl Strategy<Value = isize> {
    prop::sample::select(vec![1isize, 2, -1, -3])
}

fn shapes() -> impl Strategy<Value = Shape> {
    (
        (dims(), dims(), 0usize..3, incs(), incs()),
        (
            any::<bool>(),
            prop::sample::select(vec![32u32, 64, 256]),
            1u32..=8,
            1u32..=3,
        ),
    )
        .prop_map(
            |((m, n, pad, incx, incy), (upper, block, cols, groups))| Shape {
                m,
                n,
                pad,
                incx,
                incy,
                upper,
                block,
                cols,
                groups,
            },
        )
}

fn cuda() -> Option<Device> {
    match Device::open("cuda:0") {
        Ok(d) => Some(d),
        Err(e) => {
            println!("cuda:0 skipped: {e}");
            None
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn every_backend_gives_the_documented_bits(
        dtype in prop::sample::select(DTYPES.to_vec()),
        op in prop::sample::select(RankOp::ALL.to_vec()),
        packed in any::<bool>(),
        shape in shapes(),
        seed in any::<u64>(),
    ) {
        Case::new(dtype, op, packed, shape, seed).check(cuda().as_ref());
    }
}

/// Every dtype, op, storage and uplo once on a shape with partial workgroups and column
/// steps, a padded `lda`, negative and non-unit increments and two column groups.
#[test]
fn every_variant_on_an_odd_shape() {
    let dev = cuda();
    for dtype in DTYPES {
        for op in RankOp::ALL {
            for (packed, upper) in [(false, false), (false, true), (true, false), (true, true)] {
                if !triangle(op) && (packed || upper) {
                    continue;
                }
                let shape = Shape {
                    m: 37,
                    n: 41,
                    pad: 2,
                    incx: -3,
                    incy: 2,
                    upper,
                    block: 32,
                    cols: 3,
                    groups: 2,
                };
                let seed = 7 + op as u64 * 13 + dtype.size() as u64;
                Case::new(dtype, op, packed, shape, seed).check(dev.as_ref());
            }
        }
    }
}

/// The fallback variant of every dtype, op and storage.
fn fallbacks() -> Vec<RankParams> {
    let mut out = Vec::new();
    for dtype in DTYPES {
        for op in RankOp::ALL {
            for storage in [Storage::Dense, Storage::Packed] {
                if storage == Storage::Dense || triangle(op) {
                    out.push(RankParams::fallback(dtype, op, storage));
                }
            }
        }
    }
    out
}

/// The one definition declares the generator's signature (the PTX names) on every
/// target, and the program on each target is built from it.
#[test]
fn one_signature_on_every_target() {
    for p in fallbacks() {
        let want = signatures::rank(&p);
        for t in ["sm_80", "sm_90", "gfx908", "gfx90a", "gfx942", "gfx1100"] {
            let target: Target = t.parse().unwrap();
            let def = rocm_kernels::lang::level2::rank::kernel(&p, &target).unwrap();
            assert_eq!(def.signature(), &want, "{p:?} on {t}");
            let prog = Rank::generate(&p, &target).unwrap();
            assert_eq!(prog.signatures, std::slice::from_ref(&want), "{p:?} on {t}");
            assert_eq!(prog.kernels, [KERNEL.to_string()]);
        }
    }
}

/// LLVM's assembly of the lowered kernel equals ours (code, descriptor, metadata): every
/// variant on one AMD target each, the targets in turn.
#[test]
fn llvm_agrees_on_every_variant() {
    if !common::tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for (p, t) in fallbacks().into_iter().zip(AMD.iter().cycle()) {
        let target: Target = t.name().parse().unwrap();
        let def = rocm_kernels::lang::level2::rank::kernel(&p, &target).unwrap();
        common::agree(&[rocm_kernels::lang::amdgpu::lower(&def).unwrap()]);
    }
}
