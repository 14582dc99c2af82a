//! The kernel language's AMDGPU lowering (`rocm_kernels::lang::amdgpu`): every example
//! kernel of `lang::examples` lowered for gfx908, gfx90a, gfx942 (wave64) and gfx1100
//! (wave32), run on the emulated devices on random data and compared with plain Rust
//! results; the resource reports printed; LLVM's build of the kernels' text equal to
//! ours where llvm-mc-19 is installed.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{Device, KernelArgs, LaunchConfig, ModuleImage, Target};
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::lang::{amdgpu, examples, KernelDef, ParamKind};
mod common;

use common::{agree, emu, tools_present};

const TARGETS: [IsaTarget; 4] = [
    IsaTarget::Gfx908,
    IsaTarget::Gfx90a,
    IsaTarget::Gfx942,
    IsaTarget::Gfx1100,
];

/// A kernel argument in parameter order: a scalar's bits, or a buffer's bytes.
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    Scalar(u64),
    Buffer(Vec<u8>),
}

/// Plain values that fill argument buffers.
trait Plain: Copy {
    fn bytes(self) -> Vec<u8>;
    fn from(b: &[u8]) -> Self;
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            fn bytes(self) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
            fn from(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    )*};
}
plain!(u16, u32, f32, f64);

impl Arg {
    fn u32(v: u32) -> Arg {
        Arg::Scalar(u64::from(v))
    }
    fn buffer<T: Plain>(v: &[T]) -> Arg {
        Arg::Buffer(v.iter().flat_map(|x| x.bytes()).collect())
    }
    fn values<T: Plain>(&self) -> Vec<T> {
        match self {
            Arg::Buffer(b) => b
                .chunks_exact(std::mem::size_of::<T>())
                .map(T::from)
                .collect(),
            Arg::Scalar(_) => Vec::new(),
        }
    }
}

fn target(t: IsaTarget) -> Target {
    t.name().parse().unwrap()
}

/// Runs `k` (lowered from `def`) on `dev` with `args` in parameter order, as the
/// interpreter takes them: buffers are uploaded as bytes and read back in place.
fn run(
    dev: &Device,
    def: &KernelDef,
    k: &AssembledKernel,
    grid: u32,
    block: u32,
    args: &mut [Arg],
) {
    let m = dev
        .load_module(&ModuleImage::CodeObject(k.to_elf().unwrap()))
        .unwrap();
    let f = m.kernel(k.name()).unwrap();
    let mut bufs = Vec::new();
    for a in args.iter() {
        if let Arg::Buffer(b) = a {
            // At least one byte: an empty vector still gets an address.
            let mut b = b.clone();
            if b.is_empty() {
                b.push(0);
            }
            bufs.push(Some(dev.upload(&b).unwrap()));
        } else {
            bufs.push(None);
        }
    }
    let mut ka = KernelArgs::new();
    for ((a, p), buf) in args.iter().zip(&def.params).zip(&bufs) {
        match (a, p.kind, buf) {
            (_, ParamKind::Pointer { .. }, Some(b)) => {
                ka.push(b);
            }
            (Arg::Scalar(bits), ParamKind::Scalar(s), _) if s.bytes() == 8 => {
                ka.push(*bits);
            }
            (Arg::Scalar(bits), ParamKind::Scalar(_), _) => {
                ka.push(*bits as u32);
            }
            other => panic!("argument {other:?} for parameter {p:?}"),
        }
    }
    // SAFETY: the arguments follow the kernel's parameters (checked above) and the
    // emulated device checks every access against the buffers.
    unsafe {
        f.launch(
            dev.default_stream(),
            &LaunchConfig::linear(grid, block),
            &ka,
        )
        .unwrap_or_else(|e| panic!("{} on {}: {e}\n{}", k.name(), k.target.isa, k.listing))
    };
    dev.synchronize().unwrap();
    for (a, buf) in args.iter_mut().zip(bufs) {
        if let (Arg::Buffer(b), Some(d)) = (a, buf) {
            let back: Vec<u8> = d.to_vec().unwrap();
            let n = b.len();
            b.copy_from_slice(&back[..n]);
        }
    }
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
    fn f32s(&mut self, n: usize, scale: f64) -> Vec<f32> {
        (0..n).map(|_| (self.unit() * scale) as f32).collect()
    }
    fn f64s(&mut self, n: usize, scale: f64) -> Vec<f64> {
        (0..n).map(|_| self.unit() * scale).collect()
    }
}

fn lowered(def: &KernelDef) -> AssembledKernel {
    amdgpu::lower(def).unwrap_or_else(|e| panic!("{}: {e}", def.name))
}

fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn bits64(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Lengths around the wave and workgroup sizes, and a few thousand.
fn lengths(t: IsaTarget) -> Vec<usize> {
    let w = t.wave_size() as usize;
    vec![1, w - 1, w + 1, 255, 1000]
}

#[test]
fn vector_add_matches_rust_on_every_target() {
    let mut rng = Rng(1);
    for t in TARGETS {
        let def = examples::vector_add(&target(t)).unwrap();
        let k = lowered(&def);
        let dev = emu(t);
        for n in lengths(t) {
            let (a, b) = (rng.f32s(n, 10.0), rng.f32s(n, 10.0));
            let c0 = rng.f32s(n + 1, 1.0);
            let mut args = [
                Arg::buffer(&a),
                Arg::buffer(&b),
                Arg::buffer(&c0),
                Arg::u32(n as u32),
            ];
            let block = 64;
            run(&dev, &def, &k, (n as u32).div_ceil(block), block, &mut args);
            let got: Vec<f32> = args[2].values();
            // One IEEE addition per element: exact agreement.
            let mut want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            want.push(c0[n]);
            assert_eq!(bits32(&got), bits32(&want), "vector_add {t} n={n}");
        }
    }
}

#[test]
fn axpy_grid_stride_matches_rust_on_every_target() {
    let mut rng = Rng(2);
    for t in TARGETS {
        let def = examples::axpy(&target(t)).unwrap();
        let k = lowered(&def);
        let dev = emu(t);
        for n in lengths(t) {
            // One workgroup (the loop runs n/64 times) and a covering grid.
            for grid in [1, (n as u32).div_ceil(64)] {
                let alpha = rng.unit() * 3.0;
                let (x, y0) = (rng.f64s(n, 10.0), rng.f64s(n + 1, 10.0));
                let mut args = [
                    Arg::u32(n as u32),
                    Arg::Scalar(alpha.to_bits()),
                    Arg::buffer(&x),
                    Arg::buffer(&y0),
                ];
                run(&dev, &def, &k, grid, 64, &mut args);
                let got: Vec<f64> = args[3].values();
                // One fused multiply-add per element: exact.
                let mut want: Vec<f64> = x
                    .iter()
                    .zip(&y0)
                    .map(|(a, b)| alpha.mul_add(*a, *b))
                    .collect();
                want.push(y0[n]);
                assert_eq!(bits64(&got), bits64(&want), "axpy {t} n={n} grid={grid}");
            }
        }
    }
}

#[test]
fn convert_f16_rounds_to_nearest_even_on_every_target() {
    let mut rng = Rng(3);
    for t in TARGETS {
        let def = examples::convert_f16(&target(t)).unwrap();
        let k = lowered(&def);
        let dev = emu(t);
        let n = 1000;
        // Magnitudes from f16 subnormals to past its largest finite value (overflow).
        let mut x: Vec<f32> = (0..n)
            .map(|_| (rng.unit() * 2f64.powf(rng.unit() * 20.0)) as f32)
            .collect();
        x[0] = 70000.0;
        x[1] = -1e-7;
        x[2] = f32::INFINITY;
        let y0 = vec![0x5555u16; n + 1];
        let mut args = [Arg::u32(n as u32), Arg::buffer(&x), Arg::buffer(&y0)];
        run(&dev, &def, &k, (n as u32).div_ceil(64), 64, &mut args);
        let got: Vec<u16> = args[2].values();
        let mut want: Vec<u16> = x
            .iter()
            .map(|v| rocm_core::f16::from_f32(*v).to_bits())
            .collect();
        want.push(0x5555);
        assert_eq!(got, want, "convert_f16 {t}");
    }
}

/// The IR's wave reduction: `v[l] = op(v[l], v[l ^ m])` for m = wave/2, ..., 1.
fn butterfly<T: Copy>(v: &mut [T], op: impl Fn(T, T) -> T) {
    let mut m = v.len() / 2;
    while m >= 1 {
        let old = v.to_vec();
        for l in 0..v.len() {
            v[l] = op(old[l], old[l ^ m]);
        }
        m /= 2;
    }
}

/// `examples::workgroup_sum`'s order of additions in plain Rust: per work-item sums in
/// index order over the grid-stride loop, a butterfly per wave, then one more butterfly
/// over the waves' results (zeros past the last wave).
fn workgroup_sums<T: Copy + Default + std::ops::Add<Output = T>>(
    x: &[T],
    grid: usize,
    block: usize,
    wave: usize,
) -> Vec<T> {
    let stride = grid * block;
    (0..grid)
        .map(|g| {
            let lanes: Vec<T> = (0..block)
                .map(|t| {
                    let mut acc = T::default();
                    let mut i = g * block + t;
                    while i < x.len() {
                        acc = acc + x[i];
                        i += stride;
                    }
                    acc
                })
                .collect();
            let mut waves: Vec<T> = lanes
                .chunks(wave)
                .map(|w| {
                    let mut w = w.to_vec();
                    butterfly(&mut w, |a, b| a + b);
                    w[0]
                })
                .collect();
            waves.resize(wave, T::default());
            butterfly(&mut waves, |a, b| a + b);
            waves[0]
        })
        .collect()
}

#[test]
fn workgroup_sums_match_the_butterfly_order_on_every_target() {
    let mut rng = Rng(4);
    for t in TARGETS {
        let wave = t.wave_size() as usize;
        let tg = target(t);
        let (d32, d64) = (
            examples::workgroup_sum(&tg, rocm_kernels::lang::Scalar::F32).unwrap(),
            examples::workgroup_sum(&tg, rocm_kernels::lang::Scalar::F64).unwrap(),
        );
        let (k32, k64) = (lowered(&d32), lowered(&d64));
        let dev = emu(t);
        for (n, grid, block) in [(1000usize, 3u32, 256u32), (77, 1, 64), (5000, 4, 128)] {
            let x = rng.f32s(n, 10.0);
            let mut args = [
                Arg::u32(n as u32),
                Arg::buffer(&x),
                Arg::buffer(&vec![0f32; grid as usize]),
            ];
            run(&dev, &d32, &k32, grid, block, &mut args);
            let got: Vec<f32> = args[2].values();
            // The same additions in the same order: exact.
            let want = workgroup_sums(&x, grid as usize, block as usize, wave);
            assert_eq!(
                bits32(&got),
                bits32(&want),
                "f32 sum {t} n={n} grid={grid} block={block}"
            );

            let x = rng.f64s(n, 10.0);
            let mut args = [
                Arg::u32(n as u32),
                Arg::buffer(&x),
                Arg::buffer(&vec![0f64; grid as usize]),
            ];
            run(&dev, &d64, &k64, grid, block, &mut args);
            let got: Vec<f64> = args[2].values();
            let want = workgroup_sums(&x, grid as usize, block as usize, wave);
            assert_eq!(
                bits64(&got),
                bits64(&want),
                "f64 sum {t} n={n} grid={grid} block={block}"
            );
        }
    }
}

#[test]
fn divergent_branches_match_rust_on_every_target() {
    let mut rng = Rng(5);
    for t in TARGETS {
        let def = examples::divergent(&target(t)).unwrap();
        let k = lowered(&def);
        let dev = emu(t);
        for n in lengths(t) {
            let x = rng.f32s(n, 10.0);
            let mut args = [
                Arg::u32(n as u32),
                Arg::buffer(&x),
                Arg::buffer(&vec![0f32; n]),
                Arg::buffer(&vec![7u32; n]),
            ];
            run(&dev, &def, &k, (n as u32).div_ceil(64), 64, &mut args);
            let (y, flag): (Vec<f32>, Vec<u32>) = (args[2].values(), args[3].values());
            // sqrt is correctly rounded on the emulator (and within the IR's 1 ulp), fma
            // is one rounding: exact.
            for i in 0..n {
                let (wy, wf) = if x[i] > 0.0 {
                    (x[i].sqrt(), i as u32)
                } else {
                    (x[i].mul_add(x[i], 1.0), !(i as u32))
                };
                assert_eq!(
                    (y[i].to_bits(), flag[i]),
                    (wy.to_bits(), wf),
                    "divergent {t} n={n} i={i}"
                );
            }
        }
    }
}

#[test]
fn varying_trip_counts_with_continue_match_rust_on_every_target() {
    let mut rng = Rng(6);
    for t in TARGETS {
        let def = examples::varying_loop(&target(t)).unwrap();
        let k = lowered(&def);
        let dev = emu(t);
        for n in lengths(t) {
            let count: Vec<u32> = (0..n).map(|_| (rng.next() % 12) as u32).collect();
            let x = rng.f32s(n, 10.0);
            let mut args = [
                Arg::u32(n as u32),
                Arg::buffer(&count),
                Arg::buffer(&x),
                Arg::buffer(&vec![0f32; n]),
            ];
            run(&dev, &def, &k, (n as u32).div_ceil(64), 64, &mut args);
            let y: Vec<f32> = args[3].values();
            // The same f32 additions in j order: exact.
            for i in 0..n {
                let mut s = 0f32;
                for j in 0..count[i] as usize {
                    if j % 3 != 2 {
                        s += x[(i + j) % n];
                    }
                }
                assert_eq!(y[i].to_bits(), s.to_bits(), "varying_loop {t} n={n} i={i}");
            }
        }
    }
}

#[test]
fn softmax_rows_match_rust_on_every_target() {
    let mut rng = Rng(7);
    for t in TARGETS {
        let def = examples::softmax_row(&target(t)).unwrap();
        let k = lowered(&def);
        let dev = emu(t);
        for (rows, cols, block) in [(3usize, 1000usize, 256u32), (2, 5, 64), (4, 300, 128)] {
            let x = rng.f32s(rows * cols, 10.0);
            let mut args = [
                Arg::u32(cols as u32),
                Arg::buffer(&x),
                Arg::buffer(&vec![0f32; rows * cols]),
            ];
            run(&dev, &def, &k, rows as u32, block, &mut args);
            let y: Vec<f32> = args[2].values();
            // Against exact exponentials in f64. With |x| < 10, the exponent argument
            // t = (x − max)·log₂e has |t| < 29 and carries two f32 roundings (≤ 29 · 2⁻²³
            // absolute, so ≤ 29 · 2⁻²³ · ln 2 ≈ 20 · 2⁻²³ relative in 2^t); exp2 adds 2 ulps,
            // the sum at most (cols / block + 2 · log₂ 64 + 1) ≤ 17 roundings of 2⁻²⁴, the
            // division 1 ulp: under 40 · 2⁻²³ in all, checked at 64 · 2⁻²³ relative.
            let tol = 64.0 * 2f64.powi(-23);
            for r in 0..rows {
                let row = &x[r * cols..(r + 1) * cols];
                let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) as f64;
                let e: Vec<f64> = row.iter().map(|&v| (v as f64 - m).exp()).collect();
                let s: f64 = e.iter().sum();
                for c in 0..cols {
                    let want = e[c] / s;
                    let got = y[r * cols + c] as f64;
                    assert!(
                        (got - want).abs() <= tol * want,
                        "softmax {t} rows={rows} cols={cols} [{r}][{c}]: {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn resource_reports_and_llvm_agree() {
    let tools = tools_present();
    if !tools {
        println!("skipped the LLVM comparison: llvm-mc-19 / ld.lld-19 not installed");
    }
    for t in TARGETS {
        for def in examples::all(&target(t)).unwrap() {
            let k = match amdgpu::lower(&def) {
                Ok(k) => k,
                Err(e) => panic!("{} on {t}: {e}", def.name),
            };
            println!("{} {}", def.name, k.report);
            if tools {
                agree(&[k]);
            }
        }
    }
}
