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

#[allow(dead_code)]
fn unused() {
    let _ = bits64(&[]);
}
