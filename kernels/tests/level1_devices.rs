//! The Level 1 kernels (`rocm_kernels::level1`, one kernel language definition and one
//! signature for every target) launched directly through rocm-core on the first CUDA
//! device and on every emulated AMD target (emu:gfx908, gfx90a, gfx942, gfx1100),
//! against f64 host references on random data:
//! - fill, rot and rotm on every dtype they cover, and every other op on f16 and bf16
//!   (reductions on every dtype);
//! - conversions bit for bit against the `half` crate and Rust's `as` (round to nearest
//!   even), over every 16-bit pattern, random bit patterns, exact ties and range edges;
//! - each load/store cache hint the language has against the default variant (bit for
//!   bit).
//!
//! Lengths 0, 1, 2, 7–9 (around one 8-value vector), warp ± 1, 255/257, primes, 65 537
//! (the emulated targets stop at 4099);
//! contiguous (16-byte vectors at the buffer's start, element-wide vectors one element
//! in, a 64-wide block with 3 units per item) and strided with positive and negative
//! increments. Every buffer slot outside the vector holds a sentinel that must survive.
//!
//! The CUDA runs skip, saying why, when no CUDA device is present. On the GPU machine:
//! `cargo test -p rocm-kernels --release --test level1_devices`.

use rocm_core::{
    bf16, f16, Complex32, Complex64, DType, Device, DeviceBuffer, Element, KernelArgs,
};
use rocm_kernels::generator;
use rocm_kernels::level1::{blue_finish, partial_slots, L1Op, Level1, Level1Params};
use rocm_kernels::ptx::cache::{LoadHint, StoreCache};

fn cuda() -> Option<Device> {
    match Device::enumerate()
        .into_iter()
        .find(|d| d.id.starts_with("cuda:"))
    {
        Some(info) => Some(Device::open(&info.id).unwrap()),
        None => {
            println!("skipped on CUDA: no CUDA device present (no driver or no GPU)");
            None
        }
    }
}

/// The emulated AMD targets, always present.
const EMULATED: [&str; 4] = ["emu:gfx908", "emu:gfx90a", "emu:gfx942", "emu:gfx1100"];

/// The first CUDA device (when present), then every emulated AMD target.
fn devices() -> Vec<Device> {
    cuda()
        .into_iter()
        .chain(EMULATED.map(|id| Device::open(id).unwrap_or_else(|e| panic!("{id}: {e}"))))
        .collect()
}

/// The lengths a device runs: all of [`LENGTHS`] on a GPU, up to 4099 emulated.
fn lengths(dev: &Device) -> Vec<usize> {
    let emulated = dev.id().starts_with("emu:");
    LENGTHS
        .into_iter()
        .filter(|n| !emulated || *n <= 4099)
        .collect()
}

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
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const LENGTHS: [usize; 14] = [0, 1, 2, 7, 8, 9, 31, 33, 255, 257, 1000, 4099, 8191, 65537];

/// An element type as the test sees it: up to two f64 reals.
trait Elem: Element {
    const COMPS: usize;
    /// Unit roundoff of the stored type, and of the type the kernel computes in.
    const U: f64;
    const U_COMPUTE: f64;
    /// Smallest positive normal of the stored type.
    const TINY: f64;
    /// Each real rounded to nearest into the stored type.
    fn from_reals(r: [f64; 2]) -> Self;
    fn reals(self) -> [f64; 2];
    fn bits(self) -> u128;
    /// `v` as the kernel's scalar parameter holds it (f32, or f64 for f64/c64).
    fn param(v: f64) -> f64;
    fn push_param(args: &mut KernelArgs, v: f64);
    /// |re| + |im| rounded as the kernel computes it.
    fn abs1(self) -> f64;
}

macro_rules! real_elem {
    ($t:ty, $u:expr, $uc:expr, $tiny:expr, $from:expr, $to:expr, $bits:expr, $pt:ty) => {
        impl Elem for $t {
            const COMPS: usize = 1;
            const U: f64 = $u;
            const U_COMPUTE: f64 = $uc;
            const TINY: f64 = $tiny;
            fn from_reals(r: [f64; 2]) -> Self {
                $from(r[0])
            }
            fn reals(self) -> [f64; 2] {
                [$to(self), 0.0]
            }
            fn bits(self) -> u128 {
                $bits(self) as u128
            }
            fn param(v: f64) -> f64 {
                v as $pt as f64
            }
            fn push_param(args: &mut KernelArgs, v: f64) {
                args.push(v as $pt);
            }
            fn abs1(self) -> f64 {
                $to(self).abs()
            }
        }
    };
}

const U32: f64 = 1.0 / (1u64 << 24) as f64;
const U64: f64 = 1.0 / (1u64 << 53) as f64;
real_elem!(
    f32,
    U32,
    U32,
    f32::MIN_POSITIVE as f64,
    |v| v as f32,
    |v: f32| v as f64,
    f32::to_bits,
    f32
);
real_elem!(
    f64,
    U64,
    U64,
    f64::MIN_POSITIVE,
    |v| v,
    |v: f64| v,
    f64::to_bits,
    f64
);
real_elem!(
    f16,
    1.0 / 2048.0,
    U32,
    6.103_515_625e-5,
    f16::from_f64,
    f16::to_f64,
    f16::to_bits,
    f32
);
real_elem!(
    bf16,
    1.0 / 256.0,
    U32,
    f32::MIN_POSITIVE as f64,
    bf16::from_f64,
    bf16::to_f64,
    bf16::to_bits,
    f32
);

impl Elem for Complex32 {
    const COMPS: usize = 2;
    const U: f64 = U32;
    const U_COMPUTE: f64 = U32;
    const TINY: f64 = f32::MIN_POSITIVE as f64;
    fn from_reals(r: [f64; 2]) -> Self {
        Complex32::new(r[0] as f32, r[1] as f32)
    }
    fn reals(self) -> [f64; 2] {
        [self.re as f64, self.im as f64]
    }
    fn bits(self) -> u128 {
        self.re.to_bits() as u128 | (self.im.to_bits() as u128) << 32
    }
    fn param(v: f64) -> f64 {
        v as f32 as f64
    }
    fn push_param(args: &mut KernelArgs, v: f64) {
        args.push(v as f32);
    }
    fn abs1(self) -> f64 {
        (self.re.abs() + self.im.abs()) as f64
    }
}

impl Elem for Complex64 {
    const COMPS: usize = 2;
    const U: f64 = U64;
    const U_COMPUTE: f64 = U64;
    const TINY: f64 = f64::MIN_POSITIVE;
    fn from_reals(r: [f64; 2]) -> Self {
        Complex64::new(r[0], r[1])
    }
    fn reals(self) -> [f64; 2] {
        [self.re, self.im]
    }
    fn bits(self) -> u128 {
        self.re.to_bits() as u128 | (self.im.to_bits() as u128) << 64
    }
    fn param(v: f64) -> f64 {
        v
    }
    fn push_param(args: &mut KernelArgs, v: f64) {
        args.push(v);
    }
    fn abs1(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
}

/// Complex arithmetic on (re, im) in f64 (reals have im = 0).
type C = [f64; 2];
fn cmul(a: C, b: C) -> C {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}
fn cadd(a: C, b: C) -> C {
    [a[0] + b[0], a[1] + b[1]]
}
fn conj(a: C) -> C {
    [a[0], -a[1]]
}
fn cabs(a: C) -> f64 {
    a[0].hypot(a[1])
}

/// Buffer slot of logical element `i` of `n` at increment `inc`, the first stored element
/// `offset` slots in (BLAS: a negative increment starts at the end).
fn slot_of(n: usize, inc: isize, offset: usize, i: usize) -> usize {
    let step = inc.unsigned_abs();
    offset
        + if inc >= 0 {
            i * step
        } else {
            (n - 1 - i) * step
        }
}

/// `n` logical elements at increment `inc` in a device buffer, the first stored element
/// `offset` slots in; every other slot holds a sentinel.
struct Vector<T: Elem> {
    host: Vec<T>,
    dev: DeviceBuffer<T>,
    n: usize,
    inc: isize,
    offset: usize,
}

impl<T: Elem> Vector<T> {
    fn new(dev: &Device, values: &[T], inc: isize, offset: usize) -> Self {
        let n = values.len();
        let mut rng = Rng(0x5e17_1e15 ^ n as u64);
        let span = if n == 0 {
            0
        } else {
            1 + (n - 1) * inc.unsigned_abs()
        };
        let mut host: Vec<T> = (0..offset + span + 1)
            .map(|_| T::from_reals([rng.unit() * 1e3, rng.unit() * 1e3]))
            .collect();
        for (i, x) in values.iter().enumerate() {
            host[slot_of(n, inc, offset, i)] = *x;
        }
        Vector {
            dev: dev.upload(&host).unwrap(),
            host,
            n,
            inc,
            offset,
        }
    }

    fn slot(&self, i: usize) -> usize {
        slot_of(self.n, self.inc, self.offset, i)
    }

    /// Device address of logical element 0.
    fn address(&self) -> u64 {
        let first = if self.n == 0 {
            self.offset
        } else {
            self.slot(0)
        };
        self.dev.address() + (first * std::mem::size_of::<T>()) as u64
    }

    fn values(&self) -> Vec<T> {
        (0..self.n).map(|i| self.host[self.slot(i)]).collect()
    }

    /// The logical elements after a kernel, checking every other slot is untouched.
    fn download(&self, what: &str) -> Vec<T> {
        let got = self.dev.to_vec().unwrap();
        let mut inside = vec![false; got.len()];
        for i in 0..self.n {
            inside[self.slot(i)] = true;
        }
        for (s, (g, h)) in got.iter().zip(&self.host).enumerate() {
            assert!(
                inside[s] || g.bits() == h.bits(),
                "{what}: slot {s} outside the vector was written"
            );
        }
        (0..self.n).map(|i| got[self.slot(i)]).collect()
    }
}

/// Launches `p` over `n` elements as the host wiring does and waits.
fn launch(dev: &Device, p: &Level1Params, n: usize, args: &KernelArgs) {
    let loaded = generator::load::<Level1>(dev, p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let kernel = loaded.module.kernel(&loaded.program.kernels[0]).unwrap();
    let units = if p.op.is_reduction() {
        0
    } else {
        let per_unit = p.elements_per_tile().unwrap() / (p.block as u64 * p.unroll as u64);
        (n as u64).div_ceil(per_unit)
    };
    let cfg = loaded.program.launch.config(units);
    // SAFETY: the arguments follow the generator's documented parameter order; every
    // vector holds `n` elements at its increment, which is all the kernel touches, and
    // the buffers outlive the synchronisation below.
    unsafe { kernel.launch(dev.default_stream(), &cfg, args).unwrap() };
    dev.synchronize().unwrap();
}

/// The variants each case runs: (params, incx, incy, offset of the first element).
fn shapes(op: L1Op, dtype: DType) -> Vec<(Level1Params, isize, isize, usize)> {
    let contiguous = Level1Params::fallback(op, dtype, true);
    let mut narrow = contiguous.clone();
    narrow.vector_bytes = dtype.size() as u32;
    narrow.unroll = 1;
    narrow.block = 128;
    let mut small = contiguous.clone();
    small.block = 64;
    small.unroll = 3;
    small.grid = 3;
    let strided = Level1Params::fallback(op, dtype, false);
    let mut strided_small = strided.clone();
    strided_small.block = 32;
    strided_small.unroll = 2;
    strided_small.grid = 5;
    vec![
        (contiguous, 1, 1, 0),
        (narrow, 1, 1, 1),
        (small, 1, 1, 0),
        (strided, 2, -3, 1),
        (strided_small, -1, 2, 0),
    ]
}

fn random_values<T: Elem>(rng: &mut Rng, n: usize, scale: f64) -> Vec<T> {
    (0..n)
        .map(|_| T::from_reals([rng.unit() * scale, rng.unit() * scale]))
        .collect()
}

fn elementwise<T: Elem>(dev: &Device, op: L1Op, seed: u64) {
    let mut rng = Rng(seed);
    let comps = T::COMPS;
    for (p, incx, incy, offset) in shapes(op, T::DTYPE) {
        for n in lengths(dev) {
            let ctx = format!("{op:?} {} n={n} {p:?} incx={incx} incy={incy}", T::DTYPE);
            let x = Vector::new(dev, &random_values::<T>(&mut rng, n, 1.0), incx, offset);
            let y = Vector::new(dev, &random_values::<T>(&mut rng, n, 1.0), incy, offset);
            // Scalars as the kernel holds them; complex ones with an imaginary part.
            let scalar = |rng: &mut Rng| -> C {
                [
                    T::param(rng.unit() * 2.0),
                    if comps == 2 {
                        T::param(rng.unit() * 2.0)
                    } else {
                        0.0
                    },
                ]
            };
            let (alpha, beta) = (scalar(&mut rng), scalar(&mut rng));
            let c = T::param(rng.unit());
            let s = scalar(&mut rng);
            let h: Vec<f64> = (0..4).map(|_| T::param(rng.unit() * 2.0)).collect();

            let mut args = KernelArgs::new();
            args.push(n as u64)
                .push_pointer(x.address(), dev)
                .push(incx as i64);
            if op.has_y() {
                args.push_pointer(y.address(), dev).push(incy as i64);
            }
            let push = |args: &mut KernelArgs, v: C| {
                T::push_param(args, v[0]);
                if comps == 2 {
                    T::push_param(args, v[1]);
                }
            };
            match op {
                L1Op::Scal | L1Op::Fill => push(&mut args, alpha),
                L1Op::Axpby { read_y } => {
                    push(&mut args, alpha);
                    if read_y {
                        push(&mut args, beta);
                    }
                }
                L1Op::Rot => {
                    T::push_param(&mut args, c);
                    push(&mut args, s);
                }
                L1Op::Rotm => {
                    for v in &h {
                        T::push_param(&mut args, *v);
                    }
                }
                _ => {}
            }
            launch(dev, &p, n, &args);

            let (x0, y0) = (x.values(), y.values());
            let gx = x.download(&ctx);
            let gy = if op.has_y() {
                y.download(&ctx)
            } else {
                y0.clone()
            };
            // Expected (x', y'): Ok(exact bits) or Err((value, scale of its terms)).
            type Want<T> = Result<T, (C, f64)>;
            for i in 0..n {
                let (xv, yv) = (x0[i].reals(), y0[i].reals());
                let (ax, ay) = (cabs(xv), cabs(yv));
                let (wx, wy): (Want<T>, Want<T>) = match op {
                    L1Op::Scal => (Err((cmul(alpha, xv), cabs(alpha) * ax)), Ok(y0[i])),
                    L1Op::Fill => (Ok(T::from_reals(alpha)), Ok(y0[i])),
                    L1Op::Axpby { read_y: true } => (
                        Ok(x0[i]),
                        Err((
                            cadd(cmul(alpha, xv), cmul(beta, yv)),
                            cabs(alpha) * ax + cabs(beta) * ay,
                        )),
                    ),
                    L1Op::Axpby { read_y: false } => {
                        (Ok(x0[i]), Err((cmul(alpha, xv), cabs(alpha) * ax)))
                    }
                    L1Op::Copy => (Ok(x0[i]), Ok(x0[i])),
                    L1Op::Swap => (Ok(y0[i]), Ok(x0[i])),
                    L1Op::Rot => (
                        Err((
                            cadd(cmul([c, 0.0], xv), cmul(s, yv)),
                            c.abs() * ax + cabs(s) * ay,
                        )),
                        Err((
                            cadd(cmul([c, 0.0], yv), cmul([-1.0, 0.0], cmul(conj(s), xv))),
                            c.abs() * ay + cabs(s) * ax,
                        )),
                    ),
                    L1Op::Rotm => (
                        Err((
                            [h[0] * xv[0] + h[2] * yv[0], 0.0],
                            (h[0] * xv[0]).abs() + (h[2] * yv[0]).abs(),
                        )),
                        Err((
                            [h[1] * xv[0] + h[3] * yv[0], 0.0],
                            (h[1] * xv[0]).abs() + (h[3] * yv[0]).abs(),
                        )),
                    ),
                    _ => unreachable!(),
                };
                for (name, got, want) in [("x", gx[i], wx), ("y", gy[i], wy)] {
                    match want {
                        Ok(w) => {
                            assert_eq!(got.bits(), w.bits(), "{ctx}: {name}[{i}] {got:?} != {w:?}")
                        }
                        Err((w, scale)) => {
                            // Complex products round twice per component in the compute
                            // type, then a fused add, then the store rounds once:
                            // |err| ≤ 4·(u + u_compute)·Σ|terms|, plus half a subnormal
                            // spacing of the stored type for results below its normal
                            // range.
                            let tol = 4.0 * (T::U + T::U_COMPUTE) * scale + 2.0 * T::TINY * T::U;
                            let g = got.reals();
                            for k in 0..comps {
                                assert!(
                                    (g[k] - w[k]).abs() <= tol,
                                    "{ctx}: {name}[{i}] component {k}: got {} want {} (tol {tol:e})",
                                    g[k],
                                    w[k]
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Runs a reduction and combines its partials as the host does: (re, im) sums, the
/// nrm2 result, or the 0-based index.
enum Reduced {
    Sum(C),
    Norm(f64),
    Index(Option<u64>),
}

fn reduce<T: Elem>(
    dev: &Device,
    p: &Level1Params,
    x: &Vector<T>,
    y: Option<&Vector<T>>,
) -> Reduced {
    let slots = partial_slots(p.op, T::DTYPE);
    let grid = p.grid as usize;
    // A sentinel NaN everywhere: every workgroup must write every slot. (Compared by
    // bits: iamax's "no index" is u64::MAX, itself a NaN pattern as an f64.)
    let sentinel = f64::from_bits(0x7ff4_dead_beef_0001);
    let partials = dev.upload(&vec![sentinel; slots * grid]).unwrap();
    let mut args = KernelArgs::new();
    args.push(x.n as u64)
        .push_pointer(x.address(), dev)
        .push(x.inc as i64);
    if let Some(y) = y {
        args.push_pointer(y.address(), dev).push(y.inc as i64);
    }
    args.push(&partials);
    launch(dev, p, x.n, &args);
    let host = partials.to_vec().unwrap();
    assert!(
        host.iter().all(|v| v.to_bits() != sentinel.to_bits()),
        "{p:?}: a workgroup left a partial unwritten"
    );
    let slot = |s: usize| &host[s * grid..(s + 1) * grid];
    match p.op {
        L1Op::Nrm2 => Reduced::Norm(blue_finish(
            slot(0).iter().sum(),
            slot(1).iter().sum(),
            slot(2).iter().sum(),
        )),
        L1Op::Iamax { max } => {
            let mut best: Option<(f64, u64)> = None;
            for (v, i) in slot(0).iter().zip(slot(1)) {
                let i = i.to_bits();
                if i == u64::MAX {
                    continue;
                }
                let better = match best {
                    None => true,
                    Some((bv, bi)) => (if max { *v > bv } else { *v < bv }) || (*v == bv && i < bi),
                };
                if better {
                    best = Some((*v, i));
                }
            }
            Reduced::Index(best.map(|b| b.1))
        }
        _ => Reduced::Sum([
            slot(0).iter().sum(),
            if slots > 1 { slot(1).iter().sum() } else { 0.0 },
        ]),
    }
}

/// Longest chain of roundings in one accumulator of `p` over `n` elements: the elements
/// one work-item adds, then the warp and workgroup trees (5 + 5 steps).
fn chain(p: &Level1Params, n: usize, comps: usize) -> f64 {
    let per_unit = (p.elements_per_tile().unwrap() / (p.block as u64 * p.unroll as u64)) as usize;
    let units = n.div_ceil(per_unit);
    let tile_units = p.grid as usize * p.block as usize * p.unroll as usize;
    let tiles = units.div_ceil(tile_units).max(1);
    (tiles * p.unroll as usize * per_unit * comps + 12) as f64
}

fn reduction<T: Elem>(dev: &Device, op: L1Op, seed: u64) {
    let mut rng = Rng(seed);
    let comps = T::COMPS;
    for (mut p, incx, incy, offset) in shapes(op, T::DTYPE) {
        if dev.id().starts_with("emu:") {
            // The emulators run every launched work-item: at most 8 workgroups (the
            // grid-stride loop then runs many tiles, which is what the grid tests).
            p.grid = p.grid.min(8);
        }
        let scales: Vec<f64> = match (op, T::DTYPE) {
            // Large and small vectors where only scaling (f64: Blue's) keeps the sum of
            // squares in range; f32/bf16/f16 squares are always normal in f64.
            (L1Op::Nrm2, DType::F64 | DType::C64) => vec![1.0, 2f64.powi(600), 2f64.powi(-600)],
            (L1Op::Nrm2, DType::F32 | DType::C32 | DType::Bf16) => {
                vec![1.0, 2f64.powi(100), 2f64.powi(-100)]
            }
            (L1Op::Nrm2, _) => vec![1.0, 2f64.powi(-20)],
            _ => vec![1.0],
        };
        for scale in scales {
            for n in lengths(dev) {
                let ctx = format!(
                    "{op:?} {} n={n} scale={scale:e} {p:?} incx={incx} incy={incy}",
                    T::DTYPE
                );
                let values: Vec<T> = if matches!(op, L1Op::Iamax { .. }) {
                    // Few distinct magnitudes, exact in every type: many ties.
                    (0..n)
                        .map(|_| {
                            let q = |r: &mut Rng| (r.below(9) as f64 - 4.0) / 4.0;
                            T::from_reals([q(&mut rng), q(&mut rng)])
                        })
                        .collect()
                } else {
                    random_values(&mut rng, n, scale)
                };
                let x = Vector::new(dev, &values, incx, offset);
                let y = Vector::new(dev, &random_values::<T>(&mut rng, n, 1.0), incy, offset);
                let got = reduce(dev, &p, &x, op.reads_y().then_some(&y));
                x.download(&ctx);
                let (xs, ys) = (x.values(), y.values());
                // Accumulators round in the compute type once per step of the chain;
                // partials are summed in f64 on the host.
                let bound = |terms: f64| {
                    2.0 * (chain(&p, n, comps) * T::U_COMPUTE + p.grid as f64 * U64) * terms
                };
                match (op, got) {
                    (L1Op::Dot { conj: c }, Reduced::Sum(g)) => {
                        let mut want = [0.0; 2];
                        let mut terms = 0.0;
                        for (a, b) in xs.iter().zip(&ys) {
                            let a = if c { conj(a.reals()) } else { a.reals() };
                            want = cadd(want, cmul(a, b.reals()));
                            terms += cabs(a) * cabs(b.reals());
                        }
                        for k in 0..2 {
                            assert!(
                                (g[k] - want[k]).abs() <= bound(terms),
                                "{ctx}: {g:?} vs {want:?}"
                            );
                        }
                    }
                    (L1Op::Sum, Reduced::Sum(g)) => {
                        let want = xs.iter().fold([0.0; 2], |s, v| cadd(s, v.reals()));
                        let terms: f64 = xs.iter().map(|v| cabs(v.reals())).sum();
                        for k in 0..2 {
                            assert!(
                                (g[k] - want[k]).abs() <= bound(terms),
                                "{ctx}: {g:?} vs {want:?}"
                            );
                        }
                    }
                    (L1Op::Asum, Reduced::Sum(g)) => {
                        let want: f64 = xs
                            .iter()
                            .map(|v| v.reals()[0].abs() + v.reals()[1].abs())
                            .sum();
                        assert!(
                            (g[0] - want).abs() <= bound(want),
                            "{ctx}: {} vs {want}",
                            g[0]
                        );
                    }
                    (L1Op::Nrm2, Reduced::Norm(g)) => {
                        // Scaled by a power of two, so the reference sum stays in range;
                        // summed with Neumaier's compensation, so the reference itself is
                        // within a few ulps (a plain sum of 65 537 squares is not).
                        let (mut sum, mut carry) = (0.0f64, 0.0f64);
                        for v in &xs {
                            let r = v.reals();
                            for term in [(r[0] / scale).powi(2), (r[1] / scale).powi(2)] {
                                let t = sum + term;
                                carry += if sum.abs() >= term.abs() {
                                    (sum - t) + term
                                } else {
                                    (term - t) + sum
                                };
                                sum = t;
                            }
                        }
                        let sum = sum + carry;
                        let want = sum.sqrt() * scale;
                        // Squares summed in f64 (f64 inputs: in Blue's scaled
                        // accumulators); the sqrt and the host's combination add a few
                        // ulps more.
                        let rel = (chain(&p, n, comps) + p.grid as f64 + 8.0) * U64;
                        assert!((g - want).abs() <= rel * want, "{ctx}: {g:e} vs {want:e}");
                    }
                    (L1Op::Iamax { max }, Reduced::Index(g)) => {
                        let mut want: Option<(f64, u64)> = None;
                        for (i, v) in xs.iter().enumerate() {
                            let a = v.abs1();
                            let better = match want {
                                None => true,
                                Some((b, _)) => {
                                    if max {
                                        a > b
                                    } else {
                                        a < b
                                    }
                                }
                            };
                            if better {
                                want = Some((a, i as u64));
                            }
                        }
                        assert_eq!(g, want.map(|w| w.1), "{ctx}");
                    }
                    _ => unreachable!(),
                }
            }
        }
    }
}

const REDUCTIONS: [L1Op; 7] = [
    L1Op::Dot { conj: false },
    L1Op::Dot { conj: true },
    L1Op::Sum,
    L1Op::Asum,
    L1Op::Nrm2,
    L1Op::Iamax { max: true },
    L1Op::Iamax { max: false },
];

#[test]
fn cuda_level1_fill_rot_rotm_every_dtype() {
    for dev in &devices() {
        for op in [L1Op::Fill, L1Op::Rot] {
            elementwise::<f32>(dev, op, 1);
            elementwise::<f64>(dev, op, 2);
            elementwise::<Complex32>(dev, op, 3);
            elementwise::<Complex64>(dev, op, 4);
            elementwise::<f16>(dev, op, 5);
            elementwise::<bf16>(dev, op, 6);
        }
        elementwise::<f32>(dev, L1Op::Rotm, 7);
        elementwise::<f64>(dev, L1Op::Rotm, 8);
        elementwise::<f16>(dev, L1Op::Rotm, 9);
        elementwise::<bf16>(dev, L1Op::Rotm, 10);
    }
}

#[test]
fn cuda_level1_f16_bf16_elementwise() {
    for dev in &devices() {
        for (i, op) in [
            L1Op::Scal,
            L1Op::Axpby { read_y: true },
            L1Op::Axpby { read_y: false },
            L1Op::Copy,
            L1Op::Swap,
        ]
        .into_iter()
        .enumerate()
        {
            elementwise::<f16>(dev, op, 20 + i as u64);
            elementwise::<bf16>(dev, op, 40 + i as u64);
        }
    }
}

#[test]
fn cuda_level1_reductions_every_dtype() {
    for dev in &devices() {
        for (i, op) in REDUCTIONS.into_iter().enumerate() {
            let seed = 100 + 10 * i as u64;
            reduction::<f16>(dev, op, seed);
            reduction::<bf16>(dev, op, seed + 1);
            reduction::<f32>(dev, op, seed + 2);
            reduction::<f64>(dev, op, seed + 3);
            reduction::<Complex32>(dev, op, seed + 4);
            reduction::<Complex64>(dev, op, seed + 5);
        }
    }
}

/// Every `from` → `to` of `values`, under each shape, bit for bit against `want` (NaN:
/// any NaN).
fn conversion<S: Elem, D: Elem>(dev: &Device, values: &[S], want: impl Fn(S) -> D, seed: u64) {
    let mut rng = Rng(seed);
    let op = L1Op::Convert { to: D::DTYPE };
    for (p, incx, incy, offset) in shapes(op, S::DTYPE) {
        for n in [0, 1, 7, 9, 33, values.len()] {
            let ctx = format!(
                "{} -> {} n={n} {p:?} incx={incx} incy={incy}",
                S::DTYPE,
                D::DTYPE
            );
            let x = Vector::new(dev, &values[..n], incx, offset);
            let y = Vector::new(dev, &random_values::<D>(&mut rng, n, 1.0), incy, offset);
            let mut args = KernelArgs::new();
            args.push(n as u64)
                .push_pointer(x.address(), dev)
                .push(incx as i64)
                .push_pointer(y.address(), dev)
                .push(incy as i64);
            launch(dev, &p, n, &args);
            x.download(&ctx);
            let got = y.download(&ctx);
            for (i, (s, g)) in values[..n].iter().zip(&got).enumerate() {
                let w = want(*s);
                let nan = |v: D| v.reals()[0].is_nan();
                assert!(
                    g.bits() == w.bits() || (nan(w) && nan(*g)),
                    "{ctx}: [{i}] {s:?} -> {g:?}, want {w:?}"
                );
            }
        }
    }
}

/// f32 sources: random bit patterns, f16 and bf16 rounding ties and their neighbours,
/// the f16 subnormal range and overflow edge.
fn f32_sources(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| match i % 6 {
            0 => f32::from_bits(rng.next() as u32),
            1 => {
                // Halfway between two f16 (exact in f32), nudged by -1, 0 or +1 ulp.
                let a = f16::from_bits(rng.below(0x7c00) as u16);
                let b = f16::from_bits(a.to_bits() + 1);
                let mid = (a.to_f32() + b.to_f32()) / 2.0;
                let nudged = (mid.to_bits() as i64 + rng.below(3) as i64 - 1) as u32;
                let sign = (rng.below(2) as u32) << 31;
                f32::from_bits(nudged | sign)
            }
            2 => {
                // bf16 ties: low 16 bits 0x8000, ± 1.
                let hi = (rng.next() as u32) & 0xffff_0000;
                f32::from_bits(hi | (0x7fff + rng.below(3) as u32))
            }
            3 => (rng.unit() * 6.2e-5) as f32,
            4 => (65504.0 + rng.unit() * 32.0) as f32 * if rng.below(2) == 0 { 1.0 } else { -1.0 },
            _ => rng.unit() as f32,
        })
        .collect()
}

/// f64 sources: random bit patterns, f32 rounding ties and neighbours, the f32
/// subnormal range and overflow edge.
fn f64_sources(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| match i % 5 {
            0 => f64::from_bits(rng.next()),
            1 => {
                let hi = rng.next() & !((1u64 << 29) - 1);
                f64::from_bits(hi | ((1u64 << 28) - 1 + rng.below(3)))
            }
            2 => rng.unit() * 1.2e-38,
            3 => 3.402_823_466e38 * (1.0 + rng.unit() * 1e-7),
            _ => rng.unit(),
        })
        .collect()
}

#[test]
fn cuda_level1_conversions_round_to_nearest_even_bit_for_bit() {
    for dev in &devices() {
        let mut rng = Rng(77);
        let n = 65536 + 4099;
        let f32s = f32_sources(&mut rng, n);
        conversion::<f32, f16>(dev, &f32s, f16::from_f32, 1);
        conversion::<f32, bf16>(dev, &f32s, bf16::from_f32, 2);
        conversion::<f32, f64>(dev, &f32s, |v| v as f64, 3);
        // Every 16-bit pattern, then random ones.
        let h16: Vec<u16> = (0..n)
            .map(|i| {
                if i < 65536 {
                    i as u16
                } else {
                    rng.next() as u16
                }
            })
            .collect();
        let halves: Vec<f16> = h16.iter().map(|b| f16::from_bits(*b)).collect();
        conversion::<f16, f32>(dev, &halves, f16::to_f32, 4);
        let bhalves: Vec<bf16> = h16.iter().map(|b| bf16::from_bits(*b)).collect();
        conversion::<bf16, f32>(dev, &bhalves, bf16::to_f32, 5);
        let f64s = f64_sources(&mut rng, n);
        conversion::<f64, f32>(dev, &f64s, |v| v as f32, 6);
    }
}

/// Each load/store hint computes what the default does, bit for bit.
#[test]
fn cuda_level1_cache_hints_change_nothing_but_speed() {
    for dev in &devices() {
        fn case<T: Elem>(dev: &Device, op: L1Op) {
            // Past several grid-stride rounds of the small grids below; emulated devices
            // take the largest length `lengths` gives them (the hints are a GPU property,
            // the emulator checks that they encode and run).
            let n = if dev.id().starts_with("emu:") {
                4099
            } else {
                65537
            };
            let mut rng = Rng(5);
            let xs = random_values::<T>(&mut rng, n, 1.0);
            let ys = random_values::<T>(&mut rng, n, 1.0);
            let run = |p: &Level1Params| -> (Vec<u128>, Option<u64>) {
                let x = Vector::new(dev, &xs, 1, 0);
                let y = Vector::new(dev, &ys, 1, 0);
                if op.is_reduction() {
                    let Reduced::Index(i) = reduce(dev, p, &x, None) else {
                        unreachable!()
                    };
                    return (vec![], i);
                }
                let mut args = KernelArgs::new();
                args.push(n as u64)
                    .push_pointer(x.address(), dev)
                    .push(1i64)
                    .push_pointer(y.address(), dev)
                    .push(1i64);
                T::push_param(&mut args, 1.5);
                T::push_param(&mut args, -0.75);
                launch(dev, p, n, &args);
                (y.download("hints").iter().map(|v| v.bits()).collect(), None)
            };
            let base = Level1Params::fallback(op, T::DTYPE, true);
            let want = run(&base);
            for load_cache in [LoadHint::Default, LoadHint::Streaming] {
                for store_cache in [StoreCache::Default, StoreCache::Streaming] {
                    let p = Level1Params {
                        load_cache,
                        store_cache,
                        ..base.clone()
                    };
                    assert!(run(&p) == want, "{p:?} differs from the default variant");
                }
            }
            // Grid-stride elementwise kernels: a grid far below the tiles must still cover
            // every element (reductions always loop; the flag changes nothing for them).
            for grid in [1, 3, 2112] {
                let p = Level1Params {
                    grid_stride: true,
                    grid,
                    ..base.clone()
                };
                if !p.op.is_reduction() {
                    assert!(run(&p) == want, "{p:?} differs from the default variant");
                }
            }
        }
        case::<f64>(dev, L1Op::Axpby { read_y: true });
        case::<f64>(dev, L1Op::Iamax { max: true });
        case::<f32>(dev, L1Op::Axpby { read_y: true });
        case::<bf16>(dev, L1Op::Axpby { read_y: true });
    }
}

#[allow(dead_code)]
mod ptx_sim;

use rocm_kernels::generator::Generator;
use rocm_kernels::level1::finish::{
    finish_index, finish_sum, Finish, FinishParams, FINISH_KERNEL, FINISH_LANES,
};

/// Every finish program: each reduction with each of its result types.
fn finish_params() -> Vec<FinishParams> {
    let mut out = Vec::new();
    for op in REDUCTIONS {
        for dtype in [
            DType::F16,
            DType::Bf16,
            DType::F32,
            DType::F64,
            DType::C32,
            DType::C64,
        ] {
            let outs: &[DType] = match op {
                L1Op::Iamax { .. } => &[DType::I64],
                L1Op::Dot { .. } | L1Op::Sum if dtype.is_complex() => &[DType::C32, DType::C64],
                _ => &[DType::F32, DType::F64],
            };
            for &o in outs {
                out.push(FinishParams { op, dtype, out: o });
            }
        }
    }
    out
}

/// Random partials of `p`'s first pass over `grid` workgroups: signed sums of mixed
/// magnitudes (−0.0 among them); Blue's accumulators non-negative, each zero in some
/// draws so every branch of the finish is taken; iamax values from a small set (ties)
/// with distinct indices, some workgroups empty (u64::MAX and the identity value).
fn finish_partials(p: &FinishParams, grid: usize, rng: &mut Rng) -> Vec<f64> {
    let slots = partial_slots(p.op, p.dtype);
    match p.op {
        L1Op::Iamax { max } => {
            let mut v = Vec::new();
            let mut idx = Vec::new();
            for g in 0..grid {
                if rng.below(5) == 0 {
                    v.push(if max { -1.0 } else { f64::INFINITY });
                    idx.push(f64::from_bits(u64::MAX));
                } else {
                    v.push(rng.below(4) as f64 * 0.5);
                    idx.push(f64::from_bits(g as u64 * 1000 + rng.below(1000)));
                }
            }
            v.extend(idx);
            v
        }
        L1Op::Nrm2 => {
            // small (scaled by 2^600 in the kernels), medium, big (scaled by 2^-538).
            let zero = [rng.below(3) == 0, rng.below(4) == 0, rng.below(2) == 0];
            (0..slots * grid)
                .map(|i| {
                    let s = i / grid.max(1);
                    if zero[s] {
                        0.0
                    } else {
                        (rng.unit() + 1.0) * [1e3, 1e-3, 1e5][s]
                    }
                })
                .collect()
        }
        _ => (0..slots * grid)
            .map(|_| match rng.below(8) {
                0 => -0.0,
                1 => rng.unit() * 1e17,
                _ => rng.unit(),
            })
            .collect(),
    }
}

/// What the finish writes for `partials` (the host's order: `finish_sum`,
/// `finish_index`, `blue_finish`), as little-endian bytes.
fn finish_want(p: &FinishParams, partials: &[f64], grid: usize) -> Vec<u8> {
    let slot = |s: usize| &partials[s * grid..(s + 1) * grid];
    let real = |v: f64| match p.out {
        DType::F32 | DType::C32 => (v as f32).to_le_bytes().to_vec(),
        _ => v.to_le_bytes().to_vec(),
    };
    if grid == 0 {
        return vec![0; p.out.size()];
    }
    match p.op {
        L1Op::Iamax { max } => {
            let i = finish_index(slot(0), slot(1), max).map_or(1i64, |i| i as i64 + 1);
            i.to_le_bytes().to_vec()
        }
        L1Op::Nrm2 => real(blue_finish(
            finish_sum(slot(0)),
            finish_sum(slot(1)),
            finish_sum(slot(2)),
        )),
        _ => {
            let mut b = real(finish_sum(slot(0)));
            if p.out.is_complex() {
                b.extend(real(finish_sum(slot(1))));
            }
            b
        }
    }
}

const FINISH_GRIDS: [usize; 7] = [0, 1, 5, 64, 65, 130, 1031];

/// The PTX finish programs, executed by the PTX interpreter (no GPU needed), write the
/// host order's result bit for bit, and nothing past it.
#[test]
fn finish_programs_match_the_host_order_in_the_ptx_interpreter() {
    let target: rocm_core::Target = "sm_90".parse().unwrap();
    let mut rng = Rng(0xf1_7157);
    for p in finish_params() {
        let prog = Finish::generate(&p, &target).unwrap();
        let rocm_core::ModuleImage::Ptx(text) = &prog.image else {
            panic!("not PTX")
        };
        let kernel = ptx_sim::Kernel::parse(text);
        for grid in FINISH_GRIDS {
            let partials = finish_partials(&p, grid, &mut rng);
            let mut mem = ptx_sim::Memory::default();
            let bytes: Vec<u8> = partials.iter().flat_map(|v| v.to_le_bytes()).collect();
            let pa = mem.alloc(if bytes.is_empty() { vec![0; 8] } else { bytes });
            // The result plus 8 sentinel bytes that must survive.
            let size = p.out.size();
            let ra = mem.alloc(vec![0xa5; size + 8]);
            kernel.run([1, 1, 1], FINISH_LANES, &[pa, ra, grid as u64], &mut mem);
            let got = mem.bytes(ra);
            let want = finish_want(&p, &partials, grid);
            assert_eq!(&got[..size], &want[..], "{p:?} grid {grid}");
            assert!(got[size..].iter().all(|b| *b == 0xa5), "{p:?}: wrote past");
        }
    }
}

/// The same on the first CUDA device and the emulated AMD targets.
#[test]
fn cuda_level1_finish_matches_the_host_order() {
    for dev in &devices() {
        let mut rng = Rng(0xf1_7158);
        for p in finish_params() {
            let loaded = generator::load::<Finish>(dev, &p).unwrap();
            let kernel = loaded.module.kernel(FINISH_KERNEL).unwrap();
            for grid in FINISH_GRIDS.into_iter().chain([2112, 4096]) {
                let partials = finish_partials(&p, grid, &mut rng);
                let pd = DeviceBuffer::from_slice(dev, &partials).unwrap();
                let size = p.out.size();
                let mut rd = DeviceBuffer::from_slice(dev, &vec![0xa5u8; size + 8]).unwrap();
                let mut args = KernelArgs::new();
                args.push_pointer(pd.address(), dev)
                    .push_pointer(rd.address(), dev)
                    .push(grid as u32);
                let cfg = rocm_core::LaunchConfig::linear(1, FINISH_LANES);
                // SAFETY: the partials buffer holds slots × grid f64s (zero-length when
                // grid = 0: nothing is read), the result buffer holds the result and more.
                unsafe { kernel.launch(dev.default_stream(), &cfg, &args).unwrap() };
                let got = rd.as_slice_mut().to_vec().unwrap();
                let want = finish_want(&p, &partials, grid);
                assert_eq!(&got[..size], &want[..], "{p:?} grid {grid}");
                assert!(got[size..].iter().all(|b| *b == 0xa5), "{p:?}: wrote past");
            }
        }
    }
}
