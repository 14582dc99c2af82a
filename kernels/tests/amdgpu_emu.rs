//! The sample kernels run on the emulated device `emu:<gfx>` for every target they
//! support, against host references on random data; the deliberately broken kernels must
//! fault naming what they broke.

mod common;

use common::emu;
use rocm_core::isa::amdgpu::{IsaFamily, IsaTarget};
use rocm_core::{bf16, f16, Device, Error, KernelArgs, LaunchConfig, ModuleImage};
use rocm_kernels::amdgpu::samples::{self, Elem, TileKind, REDUCE_BLOCK, VECTOR_ADD_BLOCK};
use rocm_kernels::amdgpu::AssembledKernel;

/// Loads `k` and runs it on `grid` workgroups of `block` work-items.
fn run(
    dev: &Device,
    k: &AssembledKernel,
    grid: u32,
    block: u32,
    args: &KernelArgs,
) -> rocm_core::Result<()> {
    let m = dev.load_module(&ModuleImage::CodeObject(k.to_elf()?))?;
    let f = m.kernel(k.name())?;
    // SAFETY: the arguments match the kernel's (documented in `samples`) and the
    // emulated device checks every access against the buffers.
    unsafe {
        f.launch(
            dev.default_stream(),
            &LaunchConfig::linear(grid, block),
            args,
        )?
    };
    dev.synchronize()
}

/// xorshift64*: reproducible random data without a dependency.
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
}

const U32: f64 = 1.0 / (1u64 << 24) as f64; // f32 unit roundoff
const U64: f64 = 1.0 / (1u64 << 53) as f64; // f64 unit roundoff
const U16: f64 = 1.0 / (1u64 << 11) as f64; // f16 unit roundoff
const UX32: f64 = 1.0 / (1u64 << 11) as f64; // xf32 (10 stored mantissa bits) roundoff

#[test]
fn vector_add_matches_the_host_on_every_target() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        let k = samples::vector_add(t).unwrap();
        // n = 1, a tail shorter than a wave, an odd n over several workgroups.
        for n in [1usize, 37, VECTOR_ADD_BLOCK as usize + 1, 1001] {
            let a: Vec<f32> = (0..n).map(|_| rng.unit() as f32 * 100.0).collect();
            let b: Vec<f32> = (0..n).map(|_| rng.unit() as f32 * 100.0).collect();
            let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
            let mut dc = dev.upload(&vec![f32::NAN; n]).unwrap();
            let mut args = KernelArgs::new();
            args.push(&da).push(&db).push(&dc).push(n as u32);
            let grid = (n as u32).div_ceil(VECTOR_ADD_BLOCK);
            run(&dev, &k, grid, VECTOR_ADD_BLOCK, &args).unwrap();
            let c = dc.to_vec().unwrap();
            // One IEEE f32 addition, round to nearest even: bit-exact.
            for i in 0..n {
                assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "{t} n={n} i={i}");
            }
            dc.fill_zero().unwrap();
        }
    }
}

#[test]
fn reduction_matches_the_host_on_every_target() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        let k = samples::reduce_sum(t).unwrap();
        let groups = 5usize;
        let block = REDUCE_BLOCK as usize;
        let x: Vec<f32> = (0..groups * block).map(|_| rng.unit() as f32).collect();
        let dx = dev.upload(&x).unwrap();
        let dp = dev.upload(&vec![f32::NAN; groups]).unwrap();
        let mut args = KernelArgs::new();
        args.push(&dx).push(&dp);
        run(&dev, &k, groups as u32, REDUCE_BLOCK, &args).unwrap();
        let p = dp.to_vec().unwrap();
        for g in 0..groups {
            let part = &x[g * block..(g + 1) * block];
            let exact: f64 = part.iter().map(|&v| f64::from(v)).sum();
            let abs: f64 = part.iter().map(|&v| f64::from(v).abs()).sum();
            // A tree of depth log2(256) = 8: each element passes through 8 f32 additions,
            // each adding at most u * (partial sum) error: |err| <= 8 u sum|x|.
            let tol = 8.0 * U32 * abs;
            assert!(
                (f64::from(p[g]) - exact).abs() <= tol,
                "{t} group {g}: {} vs {exact} (tol {tol})",
                p[g]
            );
        }
    }
}

/// Random values in [-1, 1) stored as the input type, and their exact values.
fn inputs(rng: &mut Rng, e: Elem, n: usize) -> (Vec<u8>, Vec<f64>) {
    let mut bytes = Vec::new();
    let mut vals = Vec::new();
    for _ in 0..n {
        let x = rng.unit();
        let v = match e {
            Elem::F16 => {
                let h = f16::from_f64(x);
                bytes.extend_from_slice(&h.to_bits().to_le_bytes());
                h.to_f64()
            }
            Elem::Bf16 => {
                let h = bf16::from_f64(x);
                bytes.extend_from_slice(&h.to_bits().to_le_bytes());
                h.to_f64()
            }
            Elem::F32 => {
                let f = x as f32;
                bytes.extend_from_slice(&f.to_le_bytes());
                f64::from(f)
            }
            Elem::F64 => {
                bytes.extend_from_slice(&x.to_le_bytes());
                x
            }
        };
        vals.push(v);
    }
    (bytes, vals)
}

fn read_out(e: Elem, bytes: &[u8]) -> Vec<f64> {
    match e {
        Elem::F16 => bytes
            .chunks_exact(2)
            .map(|c| f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64())
            .collect(),
        Elem::F32 => bytes
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        Elem::F64 => bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        Elem::Bf16 => unreachable!("no bf16 outputs"),
    }
}

#[test]
fn matrix_tiles_match_the_host() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for (kind, t) in samples::tile_targets() {
        let dev = emu(t);
        let s = kind.shape(t).unwrap();
        let k = samples::matrix_tile(t, kind).unwrap();
        let (m, n, kk) = (s.m as usize, s.n as usize, s.k as usize);
        let (ab, av) = inputs(&mut rng, s.input, m * kk);
        let (bb, bv) = inputs(&mut rng, s.input, kk * n);
        let da = dev.upload(&ab).unwrap();
        let db = dev.upload(&bb).unwrap();
        let dd = dev
            .upload(&vec![0xffu8; m * n * s.output.bytes() as usize])
            .unwrap();
        let mut args = KernelArgs::new();
        args.push(&da).push(&db).push(&dd);
        run(&dev, &k, 1, t.wave_size(), &args).unwrap();
        let d = read_out(s.output, &dd.to_vec().unwrap());
        // Error bounds, with S = sum_k |a_ik b_kj|:
        // - f16/bf16 inputs, f32 accumulation: products are exact in f32 (at most 2 x 11
        //   significant bits), K accumulations: K u32 S.
        // - f32 inputs: one rounding per product plus K accumulations: (K + 1) u32 S.
        // - xf32: inputs rounded to 10 stored mantissa bits first (2 ux32 S) plus the above.
        // - f64: (K + 1) u64 S.
        // - f16 output (WMMA f16 -> f16; accumulation precision unspecified, so allow f16
        //   accumulation): (K + 1) u16 S.
        let per_s = match kind {
            TileKind::MfmaF16
            | TileKind::MfmaBf16
            | TileKind::WmmaF16F32
            | TileKind::WmmaBf16F32 => kk as f64 * U32,
            TileKind::MfmaF32 => (kk + 1) as f64 * U32,
            TileKind::MfmaXf32 => 2.0 * UX32 + (kk + 1) as f64 * U32,
            TileKind::MfmaF64 => (kk + 1) as f64 * U64,
            TileKind::WmmaF16F16 => (kk + 1) as f64 * U16,
        };
        for i in 0..m {
            for j in 0..n {
                let (mut exact, mut sabs) = (0.0f64, 0.0f64);
                for x in 0..kk {
                    let p = av[i * kk + x] * bv[x * n + j];
                    exact += p;
                    sabs += p.abs();
                }
                let got = d[i * n + j];
                let tol = per_s * sabs + f64::MIN_POSITIVE;
                assert!(
                    (got - exact).abs() <= tol,
                    "{kind:?} on {t}: D[{i}][{j}] = {got}, expected {exact} (tol {tol})"
                );
            }
        }
    }
}

/// Runs a broken kernel and returns the fault's `what`, checking it names the kernel.
fn fault(
    dev: &Device,
    k: &AssembledKernel,
    block: u32,
    args: &KernelArgs,
) -> (String, Option<u64>) {
    match run(dev, k, 1, block, args) {
        Err(Error::KernelFault {
            kernel,
            what,
            address,
            ..
        }) => {
            assert_eq!(kernel, k.name());
            (what.to_lowercase(), address)
        }
        other => panic!("{}: expected a kernel fault, got {other:?}", k.name()),
    }
}

#[test]
fn a_missing_waitcnt_faults() {
    for t in IsaTarget::ALL {
        let dev = emu(t);
        let k = samples::missing_waitcnt(t).unwrap();
        let w = t.wave_size() as usize;
        let x = dev.upload(&vec![1.5f32; w]).unwrap();
        let y = dev.upload(&vec![0f32; w]).unwrap();
        let mut args = KernelArgs::new();
        args.push(&x).push(&y);
        let (what, _) = fault(&dev, &k, t.wave_size(), &args);
        assert!(what.contains("waitcnt"), "{t}: {what}");
    }
}

#[test]
fn a_missing_mfma_hazard_nop_faults() {
    for t in IsaTarget::ALL
        .into_iter()
        .filter(|t| t.family() == IsaFamily::Gfx9)
    {
        let dev = emu(t);
        let k = samples::missing_mfma_nop(t).unwrap();
        let a = dev.upload(&vec![1.0f32; 64]).unwrap();
        let b = dev.upload(&vec![2.0f32; 64]).unwrap();
        let d = dev.upload(&vec![0f32; 64]).unwrap();
        let mut args = KernelArgs::new();
        args.push(&a).push(&b).push(&d);
        let (what, _) = fault(&dev, &k, 64, &args);
        assert!(
            what.contains("hazard") || what.contains("wait state") || what.contains("nop"),
            "{t}: {what}"
        );
    }
}

#[test]
fn an_out_of_bounds_store_faults() {
    for t in IsaTarget::ALL {
        let dev = emu(t);
        let k = samples::oob_store(t).unwrap();
        let w = t.wave_size() as usize;
        let out = dev.upload(&vec![0u32; w]).unwrap();
        let mut args = KernelArgs::new();
        args.push(&out);
        let (what, address) = fault(&dev, &k, t.wave_size(), &args);
        // The last lane writes one element past the end.
        assert_eq!(address, Some(out.address() + 4 * w as u64), "{t}: {what}");
    }
}
