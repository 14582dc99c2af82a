//! The kernel language's AMDGPU lowering (`rocm_kernels::lang::amdgpu`): every example
//! kernel of `lang::examples` lowered for gfx908, gfx90a, gfx942 (wave64) and gfx1100
//! (wave32), run on the emulated devices on random data and compared with plain Rust
//! results; the resource reports printed; LLVM's build of the kernels' text equal to
//! ours where llvm-mc-19 is installed.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{Device, KernelArgs, LaunchConfig, ModuleImage, Target};
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::lang::interp::{self, Arg};
use rocm_kernels::lang::{
    amdgpu, examples, Access, Buf, Builder, KernelDef, ParamKind, Scalar, Type, Value,
};
mod common;

use common::{agree, emu, tools_present};

const TARGETS: [IsaTarget; 4] = [
    IsaTarget::Gfx908,
    IsaTarget::Gfx90a,
    IsaTarget::Gfx942,
    IsaTarget::Gfx1100,
];

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

// ---- operations against the interpreter -------------------------------------------------
//
// Kernels that each compute many operations per work-item and store every result in its
// own slot of an output buffer (`out[slot · n + i]`), run on the emulator and in the
// language's interpreter on the same arguments. Exact operations must agree bit for bit;
// the slots listed as approximate (`approx`) may differ by the IR's ulp bounds.

/// Stores `vals` (32-bit: bitcast to u32; predicates as 1/0) into `out32`, 64-bit ones
/// into `out64`, slot by slot.
fn store_all(
    k: &mut Builder,
    out: (Buf, Buf),
    slots: &mut (u32, u32),
    i: Value,
    n: Value,
    vals: &[Value],
) {
    let (out32, out64) = out;
    let (s32, s64) = (&mut slots.0, &mut slots.1);
    for &v in vals {
        let v = if v.ty.scalar == Scalar::Pred {
            k.select(v, 1u32, 0u32)
        } else {
            v
        };
        let (buf, slot, ty) = if v.ty.scalar.bits() == 64 {
            *s64 += 1;
            (out64, *s64 - 1, Type::U64)
        } else {
            *s32 += 1;
            (out32, *s32 - 1, Type::U32)
        };
        // 16-bit floats widen exactly to f32.
        let v = if v.ty.scalar.bits() == 16 {
            k.convert(v, Scalar::F32)
        } else {
            v
        };
        let v = k.bitcast(v, ty);
        let base = k.mul(n, slot);
        let at = k.add(base, i);
        let off = k.at(buf, at);
        k.store(buf, off, v);
    }
}

/// Runs `def` on `t` and in the interpreter; every buffer must agree except the f32
/// slots `approx32` and f64 slots `approx64` of the buffers `out32`/`out64` (parameter
/// indices), which must be within `ulps` (or 2⁻²² absolutely: log₂ near 1).
#[allow(clippy::too_many_arguments)]
fn against_interp(
    t: IsaTarget,
    def: &KernelDef,
    grid: u32,
    block: u32,
    args: &[Arg],
    n: usize,
    approx: &[(usize, usize, u32)],
) {
    let k = lowered(def);
    let mut ours = args.to_vec();
    run(&emu(t), def, &k, grid, block, &mut ours);
    let mut want = args.to_vec();
    interp::run(def, [grid, 1, 1], [block, 1, 1], &mut want)
        .unwrap_or_else(|e| panic!("interpreter, {}: {e}", def.name));
    for (p, (o, w)) in ours.iter().zip(&want).enumerate() {
        let (Arg::Buffer(o), Arg::Buffer(w)) = (o, w) else {
            continue;
        };
        let width = if approx.iter().any(|a| a.0 == p && a.2 == 64) {
            8
        } else {
            4
        };
        for (e, (oc, wc)) in o.chunks(width).zip(w.chunks(width)).enumerate() {
            if oc == wc {
                continue;
            }
            let slot = e / n.max(1);
            let ulps = approx
                .iter()
                .find(|a| a.0 == p && a.1 == slot)
                .map(|_| approx_ulps(def, p, slot));
            let close = match (ulps, width) {
                (Some(u), 4) => {
                    let (x, y) = (
                        f32::from_le_bytes(oc.try_into().unwrap()),
                        f32::from_le_bytes(wc.try_into().unwrap()),
                    );
                    (x.to_bits() as i64 - y.to_bits() as i64).unsigned_abs() <= u
                        || (x - y).abs() <= 2f32.powi(-22)
                }
                (Some(u), _) => {
                    let (x, y) = (
                        f64::from_le_bytes(oc.try_into().unwrap()),
                        f64::from_le_bytes(wc.try_into().unwrap()),
                    );
                    (x.to_bits() as i128 - y.to_bits() as i128).unsigned_abs() <= u as u128
                }
                _ => false,
            };
            assert!(
                close,
                "{} on {t}: parameter {p} slot {slot} element {}: emulator {oc:02x?}, interpreter {wc:02x?}\n{}",
                def.name,
                e % n.max(1),
                k.listing
            );
        }
    }
}

/// The IR's ulp bound of an approximate slot (see each kernel's slot list).
fn approx_ulps(_def: &KernelDef, _p: usize, _slot: usize) -> u64 {
    // rsqrt, exp2, log2: 2 ulps; sqrt, rcp, div: 1 (the larger bound for all).
    2
}

fn int_ops(t: &Target) -> KernelDef {
    let mut k = Builder::new("int_ops", t).unwrap();
    let n = k.param("n", Scalar::U32);
    let p = k.param("p", Scalar::U32);
    let q = k.param("q", Scalar::U32);
    let x = k.ptr("x", Scalar::U32, Access::Read);
    let y = k.ptr("y", Scalar::U32, Access::Read);
    let out32 = k.ptr("out32", Scalar::U32, Access::Write);
    let out64 = k.ptr("out64", Scalar::U64, Access::Write);
    let i = k.global_id();
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let o = k.at(x, i);
        let (a, b) = (k.load(x, o), k.load(y, o));
        let (ai, bi) = (k.bitcast(a, Type::I32), k.bitcast(b, Type::I32));
        let (pi, qi) = (k.bitcast(p, Type::I32), k.bitcast(q, Type::I32));
        let sh = k.and(b, 31u32);
        let psh = k.and(p, 31u32);
        let out = (out32, out64);
        let mut slots = (0, 0);
        let mut v = vec![
            k.add(a, b),
            k.sub(a, b),
            k.mul(a, b),
            k.mul_hi(a, b),
            k.div(a, b),
            k.rem(a, b),
            k.min(a, b),
            k.max(a, b),
            k.and(a, b),
            k.or(a, b),
            k.xor(a, b),
            k.shl(a, sh),
            k.shr(a, sh),
            k.not(a),
            k.neg(a),
            k.div(ai, bi),
            k.rem(ai, bi),
            k.min(ai, bi),
            k.max(ai, bi),
            k.shr(ai, sh),
            k.abs(ai),
            k.mul_hi(ai, bi),
            k.neg(ai),
            // Uniform operands (the scalar unit where it has the operation).
            k.add(p, q),
            k.mul(p, q),
            k.div(p, q),
            k.rem(pi, qi),
            k.mul_hi(p, q),
            k.mul_hi(pi, qi),
            k.shl(p, 3u32),
            k.shr(pi, psh),
            k.min(pi, qi),
            k.max(p, q),
            k.abs(pi),
            k.not(q),
            k.mul(a, p),
            k.sub(p, a),
            k.fma(a, b, p),
            k.fma(p, q, 5u32),
        ];
        store_all(k, out, &mut slots, i, n, &v);
        v.clear();
        for (x1, y1) in [(a, b), (p, q), (a, p)] {
            v.push(k.lt(x1, y1));
            v.push(k.ge(x1, y1));
            v.push(k.eq(x1, y1));
            let (xs, ys) = (k.bitcast(x1, Type::I32), k.bitcast(y1, Type::I32));
            v.push(k.lt(xs, ys));
            v.push(k.le(xs, ys));
            v.push(k.ne(xs, ys));
            v.push(k.gt(xs, ys));
        }
        let lt = k.lt(a, b);
        let odd = k.and(a, 1u32);
        let odd = k.eq(odd, 1u32);
        let both = k.and(lt, odd);
        let either = k.or(lt, odd);
        let one = k.xor(lt, odd);
        let none = k.not(either);
        let pl = k.lt(p, q);
        let mixed = k.and(pl, odd);
        v.extend([both, either, one, none, mixed]);
        v.push(k.select(lt, a, b));
        v.push(k.select(pl, p, q));
        v.push(k.select(pl, a, q));
        v.push(k.select(odd, p, 77u32));
        store_all(k, out, &mut slots, i, n, &v);
        v.clear();
        // 64-bit.
        let (wa, wb) = (k.mul_wide(a, b), k.mul_wide(ai, bi));
        let ua = k.convert(a, Scalar::U64);
        let sb = k.convert(bi, Scalar::I64);
        let sh64 = k.and(b, 63u32);
        let wbi = k.bitcast(wb, Type::U64);
        let was = k.bitcast(wa, Type::I64);
        let (pq, p64) = (k.mul_wide(p, q), k.convert(p, Scalar::U64));
        let q64 = k.convert(qi, Scalar::I64);
        v.extend([
            wa,
            wb,
            ua,
            sb,
            k.add(wa, ua),
            k.sub(ua, wa),
            k.mul(wa, wbi),
            k.shl(wa, sh64),
            k.shr(wa, sh64),
            k.shr(was, sh64),
            k.min(wa, wbi),
            k.max(wa, wbi),
            k.min(was, wb),
            k.max(was, wb),
            k.and(wa, wbi),
            k.or(wa, wbi),
            k.xor(wa, wbi),
            k.not(wa),
            k.neg(wa),
            k.abs(was),
            pq,
            k.add(pq, p64),
            k.sub(p64, pq),
            k.mul(pq, pq),
            k.shl(pq, 40u32),
            k.shr(pq, psh),
            k.shr(q64, 3u32),
            k.and(pq, 0xffff_0000_ffffu64),
            k.mul_wide(pi, qi),
        ]);
        for (x1, y1) in [(wa, wbi), (pq, p64)] {
            v.push(k.lt(x1, y1));
            v.push(k.eq(x1, y1));
            v.push(k.ne(x1, y1));
            let (xs, ys) = (k.bitcast(x1, Type::I64), k.bitcast(y1, Type::I64));
            v.push(k.le(xs, ys));
            v.push(k.gt(xs, ys));
        }
        v.push(k.convert(wa, Scalar::U32));
        v.push(k.convert(was, Scalar::I32));
        store_all(k, out, &mut slots, i, n, &v);
    });
    k.finish().unwrap()
}

#[test]
fn integer_operations_match_the_interpreter_on_every_target() {
    let mut rng = Rng(8);
    for t in TARGETS {
        let def = int_ops(&target(t));
        let n = 200usize;
        let x: Vec<u32> = (0..n)
            .map(|i| {
                if i % 7 == 0 {
                    i as u32
                } else {
                    rng.next() as u32
                }
            })
            .collect();
        // Divisors: nonzero, never -1 as i32 (i32::MIN / -1 overflows), some negative.
        let y: Vec<u32> = (0..n)
            .map(|i| match i % 4 {
                0 => (rng.next() % 1000 + 1) as u32,
                1 => -((rng.next() % 1000 + 2) as i32) as u32,
                2 => rng.next() as u32 | 1 << 20,
                _ => x[i],
            })
            .map(|v| if v == 0 || v == u32::MAX { 3 } else { v })
            .collect();
        let args = vec![
            Arg::u32(n as u32),
            Arg::u32(0x8765_4321),
            Arg::u32(0xffff_fff3),
            Arg::buffer(&x),
            Arg::buffer(&y),
            Arg::buffer(&vec![0u32; n * 128]),
            Arg::buffer(&vec![0u64; n * 64]),
        ];
        against_interp(t, &def, (n as u32).div_ceil(64), 64, &args, n, &[]);
    }
}
