//! The kernel language's AMDGPU lowering (`rocm_kernels::lang::amdgpu`): every example
//! kernel of `lang::examples` lowered for gfx908, gfx90a, gfx942 (wave64) and gfx1100
//! (wave32), run on the emulated devices on random data and compared with plain Rust
//! results; the resource reports printed; LLVM's build of the kernels' text equal to
//! ours where llvm-mc-19 is installed.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{LaunchConfig, Target};
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::lang::interp::{self, Arg};
use rocm_kernels::lang::{amdgpu, examples, Access, Buf, Builder, KernelDef, Scalar, Type, Value};
mod common;

use common::lang::{run, run3};
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
            // The code object's arguments are the kernel contract's layout.
            def.signature()
                .check_amdgpu_args(&k.kernel.metadata.args)
                .unwrap_or_else(|e| panic!("{} on {t}: {e}", def.name));
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
                    // NaN's sign and payload are not part of the IR's semantics.
                    (x.to_bits() as i64 - y.to_bits() as i64).unsigned_abs() <= u
                        || (x - y).abs() <= 2f32.powi(-22)
                        || (x.is_nan() && y.is_nan())
                }
                (Some(u), _) => {
                    let (x, y) = (
                        f64::from_le_bytes(oc.try_into().unwrap()),
                        f64::from_le_bytes(wc.try_into().unwrap()),
                    );
                    (x.to_bits() as i128 - y.to_bits() as i128).unsigned_abs() <= u as u128
                        || (x.is_nan() && y.is_nan())
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
            k.mul(wa, 8u64),
            k.mul(16u64, wa),
            k.mul(wa, 0x1_0000_0003u64),
            k.mul(wa, 1000u64),
            k.add(wa, 0u64),
            k.sub(wa, 0u64),
            k.mul(pq, 64u64),
            k.mul(pq, 0x3_0000_0000u64),
            k.add(pq, 0u64),
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

/// Slots of `float_ops` within the IR's ulp bounds rather than exact: f32 slots 0..5
/// (div, sqrt, rcp, rsqrt, exp2, log2) and f64 slots 0..1 (div, rcp).
const FLOAT_APPROX32: usize = 6;
const FLOAT_APPROX64: usize = 2;

fn float_ops(t: &Target) -> KernelDef {
    use rocm_kernels::lang::Rounding;
    let mut k = Builder::new("float_ops", t).unwrap();
    let n = k.param("n", Scalar::U32);
    let s = k.param("s", Scalar::F32);
    let sd = k.param("sd", Scalar::F64);
    let x = k.ptr("x", Scalar::F32, Access::Read);
    let y = k.ptr("y", Scalar::F32, Access::Read);
    let xd = k.ptr("xd", Scalar::F64, Access::Read);
    let yd = k.ptr("yd", Scalar::F64, Access::Read);
    let out32 = k.ptr("out32", Scalar::U32, Access::Write);
    let out64 = k.ptr("out64", Scalar::U64, Access::Write);
    let i = k.global_id();
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let out = (out32, out64);
        let mut slots = (0, 0);
        let (o, od) = (k.at(x, i), k.at(xd, i));
        let (a, b) = (k.load(x, o), k.load(y, o));
        let (c, d) = (k.load(xd, od), k.load(yd, od));
        let pa = k.abs(a);
        // The approximate slots first (see FLOAT_APPROX32/64).
        let v = [
            k.div(a, b),
            k.sqrt(pa),
            k.rcp(b),
            k.rsqrt(pa),
            k.exp2(a),
            k.log2(pa),
            k.div(c, d),
            k.rcp(d),
        ];
        store_all(k, out, &mut slots, i, n, &v);
        let v = [
            k.add(a, b),
            k.sub(a, b),
            k.mul(a, b),
            k.fma(a, b, s),
            k.mul(a, s),
            k.sub(s, a),
            k.min(a, b),
            k.max(a, b),
            k.min(a, s),
            k.neg(a),
            k.abs(a),
            k.lt(a, b),
            k.le(a, s),
            k.gt(a, b),
            k.ge(a, b),
            k.eq(a, b),
            k.ne(a, a),
            k.ne(a, b),
        ];
        store_all(k, out, &mut slots, i, n, &v);
        let big = k.mul(a, 1000.0f32);
        let pbig = k.abs(big);
        let ai = k.convert_rounded(big, Scalar::I32, Rounding::Zero);
        let ua = k.convert_rounded(pbig, Scalar::U32, Rounding::Zero);
        let v = [
            ai,
            ua,
            k.convert(ai, Scalar::F32),
            k.convert(ua, Scalar::F32),
            k.convert(a, Scalar::F16),
            k.convert_rounded(big, Scalar::F16, Rounding::Zero),
            k.convert(a, Scalar::Bf16),
            k.convert_rounded(a, Scalar::Bf16, Rounding::Zero),
            k.convert(a, Scalar::F64),
            k.convert(c, Scalar::F32),
            k.convert(ai, Scalar::F64),
            k.convert(ua, Scalar::F64),
            k.convert_rounded(c, Scalar::I32, Rounding::Zero),
        ];
        store_all(k, out, &mut slots, i, n, &v);
        let h = k.convert(a, Scalar::F16);
        let bf = k.convert(b, Scalar::Bf16);
        let v = [
            k.convert(h, Scalar::F32),
            k.convert(bf, Scalar::F32),
            k.add(c, d),
            k.sub(c, d),
            k.mul(c, d),
            k.fma(c, d, sd),
            k.mul(c, sd),
            k.min(c, d),
            k.max(c, d),
            k.min(sd, c),
            k.neg(c),
            k.abs(c),
        ];
        store_all(k, out, &mut slots, i, n, &v);
        let cd = k.convert(a, Scalar::F64);
        let v = [
            k.lt(c, d),
            k.le(c, d),
            k.gt(c, d),
            k.ge(c, d),
            k.eq(c, d),
            k.ne(c, d),
            k.lt(c, sd),
            k.eq(cd, c),
            k.ne(cd, cd),
        ];
        store_all(k, out, &mut slots, i, n, &v);
        store_all(k, out, &mut slots, i, n, &v);
        // Float to integer in every rounding mode (x·1000 has fractions, ties at ½ from
        // the halves below, and values past the i32/u32 range).
        let half = k.mul(a, 0.5f32);
        let halfi = k.convert_rounded(half, Scalar::I32, Rounding::Zero);
        let tie = k.convert(halfi, Scalar::F32);
        let tie = k.add(tie, 0.5f32);
        let huge = k.mul(a, 1e8f32);
        let bigd = k.mul(c, 1e7f64);
        let mut v = Vec::new();
        for r in [Rounding::Down, Rounding::Up, Rounding::Nearest] {
            for src in [big, tie, huge] {
                v.push(k.convert_rounded(src, Scalar::I32, r));
                v.push(k.convert_rounded(src, Scalar::U32, r));
            }
            v.push(k.convert_rounded(c, Scalar::I32, r));
            v.push(k.convert_rounded(bigd, Scalar::I32, r));
        }
        store_all(k, out, &mut slots, i, n, &v);
        let nan = k.constant(Type::F64, f64::NAN);
        let v = [
            k.lt(c, nan),
            k.ne(c, nan),
            k.eq(nan, nan),
            k.ge(nan, c),
            k.le(c, c),
        ];
        store_all(k, out, &mut slots, i, n, &v);
    });
    k.finish().unwrap()
}

#[test]
fn float_operations_match_the_interpreter_on_every_target() {
    let mut rng = Rng(9);
    for t in TARGETS {
        let def = float_ops(&target(t));
        let n = 256usize;
        let mut x = rng.f32s(n, 100.0);
        let mut y = rng.f32s(n, 100.0);
        // Equal pairs, signed zeros, a NaN-free mix of magnitudes.
        for i in (0..n).step_by(9) {
            y[i] = x[i];
        }
        x[1] = 0.0;
        y[1] = -0.0;
        x[2] = 1e-3;
        y[3] = 3e7;
        let mut xd = rng.f64s(n, 1e3);
        let mut yd = rng.f64s(n, 1e3);
        for i in (0..n).step_by(7) {
            yd[i] = xd[i];
        }
        xd[4] = 0.0;
        yd[4] = -0.0;
        xd[5] = -3.0;
        yd[5] = -2.0;
        xd[6] = f64::INFINITY;
        yd[8] = f64::NEG_INFINITY;
        let args = vec![
            Arg::u32(n as u32),
            Arg::f32(1.5),
            Arg::f64(-0.375),
            Arg::buffer(&x),
            Arg::buffer(&y),
            Arg::buffer(&xd),
            Arg::buffer(&yd),
            Arg::buffer(&vec![0u32; n * 128]),
            Arg::buffer(&vec![0u64; n * 32]),
        ];
        let approx: Vec<(usize, usize, u32)> = (0..FLOAT_APPROX32)
            .map(|s| (7, s, 32))
            .chain((0..FLOAT_APPROX64).map(|s| (8, s, 64)))
            .collect();
        against_interp(t, &def, (n as u32).div_ceil(64), 64, &args, n, &approx);
    }
}

fn wave_ops(t: &Target) -> KernelDef {
    use rocm_kernels::lang::{Reduce, Shuffle};
    let mut k = Builder::new("wave_ops", t).unwrap();
    let n = k.param("n", Scalar::U32);
    let lane_sel = k.param("lane_sel", Scalar::U32);
    let x = k.ptr("x", Scalar::U32, Access::Read);
    let xf = k.ptr("xf", Scalar::F32, Access::Read);
    let xd = k.ptr("xd", Scalar::F64, Access::Read);
    let out32 = k.ptr("out32", Scalar::U32, Access::Write);
    let out64 = k.ptr("out64", Scalar::U64, Access::Write);
    // Every lane active: n is the number of work-items launched.
    let i = k.global_id();
    let out = (out32, out64);
    let mut slots = (0, 0);
    let (o, od) = (k.at(x, i), k.at(xd, i));
    let (a, f, d) = (k.load(x, o), k.load(xf, o), k.load(xd, od));
    let ai = k.bitcast(a, Type::I32);
    let wave = k.special(rocm_kernels::lang::Special::WaveSize);
    let idx = k.and(a, 1023u32);
    let v = [
        k.shuffle(a, Shuffle::Idx(idx)),
        k.shuffle(a, Shuffle::Idx(lane_sel)),
        k.shuffle(f, Shuffle::Up(1)),
        k.shuffle(a, Shuffle::Up(5)),
        k.shuffle(a, Shuffle::Down(1)),
        k.shuffle(a, Shuffle::Down(17)),
        k.shuffle(a, Shuffle::Xor(1)),
        k.shuffle(a, Shuffle::Xor(16)),
        k.shuffle(a, Shuffle::Xor(31)),
        k.shuffle(wave, Shuffle::Down(3)),
        k.wave_reduce(Reduce::Add, a),
        k.wave_reduce(Reduce::Min, a),
        k.wave_reduce(Reduce::Max, ai),
        k.wave_reduce(Reduce::Min, f),
        k.wave_reduce(Reduce::Max, f),
        k.wave_reduce(Reduce::Add, f),
    ];
    store_all(&mut k, out, &mut slots, i, n, &v);
    if k.wave_size() == 64 {
        let across = k.shuffle(a, Shuffle::Xor(32));
        store_all(&mut k, out, &mut slots, i, n, &[across]);
    }
    let odd = k.and(a, 1u32);
    let odd = k.eq(odd, 1u32);
    let small = k.lt(a, 0x0100_0000u32);
    let big = k.ge(a, 0x0100u32);
    let v = [
        k.shuffle(d, Shuffle::Xor(3)),
        k.shuffle(d, Shuffle::Idx(idx)),
        k.wave_reduce(Reduce::Add, d),
        k.wave_reduce(Reduce::Min, d),
        k.wave_reduce(Reduce::Max, d),
        k.ballot(odd),
        k.any(small),
        k.all(big),
        k.any(odd),
    ];
    store_all(&mut k, out, &mut slots, i, n, &v);
    k.finish().unwrap()
}

#[test]
fn wave_operations_match_the_interpreter_on_every_target() {
    let mut rng = Rng(10);
    for t in TARGETS {
        let def = wave_ops(&target(t));
        let n = 256usize;
        let x: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let xf = rng.f32s(n, 100.0);
        let xd = rng.f64s(n, 100.0);
        let args = vec![
            Arg::u32(n as u32),
            Arg::u32(77),
            Arg::buffer(&x),
            Arg::buffer(&xf),
            Arg::buffer(&xd),
            Arg::buffer(&vec![0u32; n * 32]),
            Arg::buffer(&vec![0u64; n * 16]),
        ];
        against_interp(t, &def, (n / 128) as u32, 128, &args, n, &[]);
    }
}

/// Loops and branches: a masked loop left by a `break` under a varying `if` and
/// continued under another, a uniform loop, predicate variables (uniform and varying),
/// nested if/else, and a uniform `if` inside divergent code.
fn control(t: &Target) -> KernelDef {
    let mut k = Builder::new("control", t).unwrap();
    let n = k.param("n", Scalar::U32);
    let p = k.param("p", Scalar::U32);
    let x = k.ptr("x", Scalar::U32, Access::Read);
    let out32 = k.ptr("out32", Scalar::U32, Access::Write);
    let out64 = k.ptr("out64", Scalar::U64, Access::Write);
    let i = k.global_id();
    // A uniform loop: Σ j² for j < p.
    let s = k.var(0u32);
    k.for_range(0u32, p, 1u32, |k, j| {
        let sq = k.mul(j, j);
        let sv = k.get(s);
        let sv = k.add(sv, sq);
        k.set(s, sv);
    });
    let uniform_sum = k.get(s);
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let o = k.at(x, i);
        let v = k.load(x, o);
        let acc = k.var(0u32);
        let steps = k.var(0u32);
        let flag = k.var(false);
        let ucount = k.var(0u32);
        let cnt = k.var(0u32);
        k.loop_latch(
            |k| {
                let j = k.get(cnt);
                let over = k.ge(j, p);
                k.break_if(over);
                let bit = k.and(j, 31u32);
                let m = k.shr(v, bit);
                let m = k.and(m, 1u32);
                let set = k.eq(m, 1u32);
                k.if_else(
                    set,
                    |k| {
                        let lim = k.rem(v, 13u32);
                        let late = k.gt(j, lim);
                        k.break_if(late);
                        let f = k.gt(v, 0x8000_0000u32);
                        k.set(flag, f);
                    },
                    |k| {
                        let even = k.and(j, 1u32);
                        let even = k.eq(even, 0u32);
                        k.continue_if(even);
                    },
                );
                let a = k.get(acc);
                let a = k.add(a, j);
                k.set(acc, a);
                // A uniform branch in divergent code.
                let pe = k.gt(p, 3u32);
                k.if_(pe, |k| {
                    let u = k.get(ucount);
                    let u = k.add(u, 1u32);
                    k.set(ucount, u);
                });
            },
            |k| {
                let j = k.get(cnt);
                let j = k.add(j, 1u32);
                k.set(cnt, j);
                let st = k.get(steps);
                let st = k.add(st, 1u32);
                k.set(steps, st);
            },
        );
        let fl = k.get(flag);
        let nested = k.var(0u32);
        let low = k.lt(v, 0x4000_0000u32);
        k.if_else(
            low,
            |k| {
                let tiny = k.lt(v, 0x1000_0000u32);
                k.if_else(tiny, |k| k.set(nested, 1u32), |k| k.set(nested, 2u32));
            },
            |k| {
                let odd = k.and(v, 1u32);
                let odd = k.eq(odd, 1u32);
                k.if_(odd, |k| k.set(nested, 3u32));
            },
        );
        let pick = k.select(fl, 10u32, 20u32);
        let w = k.mul_wide(v, 3u32);
        let vals = [
            k.get(acc),
            k.get(steps),
            fl,
            k.get(ucount),
            k.get(nested),
            pick,
            uniform_sum,
            w,
        ];
        store_all(k, (out32, out64), &mut (0, 0), i, n, &vals);
    });
    k.finish().unwrap()
}

#[test]
fn control_flow_matches_the_interpreter_on_every_target() {
    let mut rng = Rng(11);
    for t in TARGETS {
        let def = control(&target(t));
        for (n, p) in [(200usize, 9u32), (100, 2), (64, 0), (300, 40)] {
            let x: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
            let args = vec![
                Arg::u32(n as u32),
                Arg::u32(p),
                Arg::buffer(&x),
                Arg::buffer(&vec![0u32; n * 8]),
                Arg::buffer(&vec![0u64; n * 2]),
            ];
            against_interp(t, &def, (n as u32).div_ceil(64), 64, &args, n, &[]);
        }
    }
}

/// Shared memory at constant and varying offsets (a 16-byte access split at 4-byte
/// alignment), vectors, and atomics whose results do not depend on the order lanes
/// run in.
fn memory(t: &Target) -> KernelDef {
    use rocm_kernels::lang::{AtomicOp, Cache};
    let mut k = Builder::new("memory", t).unwrap();
    let n = k.param("n", Scalar::U32);
    let x = k.ptr("x", Scalar::U32, Access::Read);
    let out = k.ptr("out", Scalar::U32, Access::ReadWrite);
    let counts = k.ptr("counts", Scalar::U32, Access::ReadWrite);
    let sums = k.ptr("sums", Scalar::F32, Access::ReadWrite);
    let tile = k.shared("tile", Scalar::U32, 4 * 64);
    let total = k.shared("total", Scalar::U32, 4);
    let i = k.global_id();
    let t = k.thread_id();
    let first = k.eq(t, 0u32);
    k.if_(first, |k| {
        let z = k.lit(0u32);
        k.store(total, 0u32, z);
    });
    k.barrier();
    // Each work-item loads 4 consecutive u32 as a vector (16-byte aligned).
    let i4 = k.mul(i, 4u32);
    let o = k.at(x, i4);
    let vec = k.load_vec(x, o, 4);
    let parts = k.unpack(vec);
    let rev = k.pack(&[parts[3], parts[2], parts[1], parts[0]]);
    let to = k.mul(t, 16u32);
    k.store_with(tile, to, rev, 16, 4, Cache::Default);
    let one = k.lit(1u32);
    let lane_total = k.add(t, 100u32);
    k.if_(first, |k| k.store(total, 0u32, lane_total));
    k.barrier();
    // Read a neighbour's vector back as four scalars, one at a constant offset.
    let size = k.workgroup_size();
    let nt = k.add(t, 1u32);
    let nt = k.rem(nt, size);
    let no = k.mul(nt, 16u32);
    let back = k.load_with(tile, no, Type::vec(Scalar::U32, 4), 16, 16, Cache::Default);
    let c0 = k.load(tile, 4u32);
    let tot = k.load(total, 0u32);
    let e = k.extract(back, 1);
    let s = k.add(e, c0);
    let s = k.add(s, tot);
    let oo = k.at(out, i4);
    k.store(out, oo, back);
    let o1 = k.add(i4, 1u32);
    let o1 = k.at(out, o1);
    k.store_with(out, o1, s, 4, 4, Cache::Streaming);
    // Order-free atomics: integer counts and exactly representable f32 sums.
    let bucket = k.and(e, 7u32);
    let bo = k.at(counts, bucket);
    k.atomic(AtomicOp::Add, counts, bo, one);
    let small = k.and(e, 255u32);
    let sf = k.convert(small, Scalar::F32);
    let so = k.at(sums, bucket);
    k.atomic(AtomicOp::Add, sums, so, sf);
    let _ = n;
    k.finish().unwrap()
}

#[test]
fn memory_and_atomics_match_the_interpreter_on_every_target() {
    let mut rng = Rng(12);
    for t in TARGETS {
        let def = memory(&target(t));
        let (grid, block) = (3u32, 64u32);
        let n = (grid * block) as usize;
        let x: Vec<u32> = (0..4 * n).map(|_| rng.next() as u32).collect();
        let args = vec![
            Arg::u32(n as u32),
            Arg::buffer(&x),
            Arg::buffer(&vec![0u32; 4 * n]),
            Arg::buffer(&[0u32; 8]),
            Arg::buffer(&[0f32; 8]),
        ];
        against_interp(t, &def, grid, block, &args, 4 * n, &[]);
    }
}

/// Work-item, wave and workgroup ids of a 3-D launch (the flattened id decides the wave).
fn ids(t: &Target) -> KernelDef {
    use rocm_kernels::lang::{Axis, Special};
    let mut k = Builder::new("ids", t).unwrap();
    let out = k.ptr("out", Scalar::U32, Access::Write);
    let sp = |k: &mut Builder, s| k.special(s);
    let v = [
        sp(&mut k, Special::ThreadId(Axis::X)),
        sp(&mut k, Special::ThreadId(Axis::Y)),
        sp(&mut k, Special::ThreadId(Axis::Z)),
        sp(&mut k, Special::WorkgroupId(Axis::X)),
        sp(&mut k, Special::WorkgroupId(Axis::Y)),
        sp(&mut k, Special::WorkgroupSize(Axis::Y)),
        sp(&mut k, Special::GridSize(Axis::Y)),
        sp(&mut k, Special::LaneId),
        sp(&mut k, Special::WaveId),
        sp(&mut k, Special::WaveSize),
    ];
    // Flat position of this work-item in the whole launch.
    let (sx, sy, sz) = (
        sp(&mut k, Special::WorkgroupSize(Axis::X)),
        v[5],
        sp(&mut k, Special::WorkgroupSize(Axis::Z)),
    );
    let gx = sp(&mut k, Special::GridSize(Axis::X));
    let group = k.fma(v[4], gx, v[3]);
    let per_group = k.mul(sx, sy);
    let per_group = k.mul(per_group, sz);
    let local = k.fma(v[2], sy, v[1]);
    let local = k.fma(local, sx, v[0]);
    let flat = k.fma(group, per_group, local);
    let total = k.mul(per_group, gx);
    let gy = v[6];
    let total = k.mul(total, gy);
    for (slot, &x) in v.iter().enumerate() {
        let at = k.fma(total, slot as u32, flat);
        let off = k.at(out, at);
        k.store(out, off, x);
    }
    k.finish().unwrap()
}

#[test]
fn ids_of_3d_launches_match_the_interpreter_on_every_target() {
    for t in TARGETS {
        let def = ids(&target(t));
        let k = lowered(&def);
        let (grid, block) = ([2u32, 3, 1], [8u32, 4, 4]);
        let n = (grid.iter().product::<u32>() * block.iter().product::<u32>()) as usize;
        let mut ours = vec![Arg::buffer(&vec![0u32; 10 * n])];
        let mut want = ours.clone();
        let mut c = LaunchConfig::linear(1, 1);
        c.grid = grid;
        c.block = block;
        run3(&emu(t), &def, &k, &c, &mut ours);
        interp::run(&def, grid, block, &mut want).unwrap();
        assert_eq!(
            ours[0].values::<u32>(),
            want[0].values::<u32>(),
            "ids on {t}"
        );
    }
}

#[test]
fn vector_add_occupancy_matches_the_hand_written_kernel() {
    for t in TARGETS {
        let ours = lowered(&examples::vector_add(&target(t)).unwrap());
        let theirs = rocm_kernels::amdgpu::samples::vector_add(t).unwrap();
        println!(
            "language:     {}\nhand-written: {}",
            ours.report, theirs.report
        );
        // The language's addresses are 64-bit (any buffer size); the hand-written kernel's
        // 32-bit offsets need fewer registers, but both stay under the occupancy limits.
        assert!(
            ours.report.occupancy >= theirs.report.occupancy,
            "{t}: {} vs {}",
            ours.report,
            theirs.report
        );
    }
}

/// 16-bit vectors: packed in memory (f16x4 and bf16x2 stores and loads, global and
/// shared) and in bitcasts, one lane per register in between.
fn halves(t: &Target) -> KernelDef {
    let mut k = Builder::new("halves", t).unwrap();
    let n = k.param("n", Scalar::U32);
    let x = k.ptr("x", Scalar::F32, Access::Read);
    let h = k.ptr("h", Scalar::F16, Access::ReadWrite);
    let b = k.ptr("b", Scalar::Bf16, Access::ReadWrite);
    let out32 = k.ptr("out32", Scalar::U32, Access::Write);
    let out64 = k.ptr("out64", Scalar::U64, Access::Write);
    let sh = k.shared("sh", Scalar::F16, 4 * 256);
    let i = k.global_id();
    let t4 = k.thread_id();
    let i4 = k.mul(i, 4u32);
    let xo = k.at(x, i4);
    let xv = k.load_vec(x, xo, 4);
    let xs = k.unpack(xv);
    let hs: Vec<Value> = xs.iter().map(|&v| k.convert(v, Scalar::F16)).collect();
    let hv = k.pack(&hs);
    let ho = k.at(h, i4);
    k.store(h, ho, hv);
    let bs: Vec<Value> = xs[..2]
        .iter()
        .map(|&v| k.convert(v, Scalar::Bf16))
        .collect();
    let bv = k.pack(&bs);
    let i2 = k.mul(i, 2u32);
    let bo = k.at(b, i2);
    k.store(b, bo, bv);
    let so = k.mul(t4, 8u32);
    k.store(sh, so, hv);
    k.barrier();
    let back = k.load_vec(h, ho, 4);
    let bback = k.load_vec(b, bo, 2);
    let sback = k.load_with(
        sh,
        so,
        Type::vec(Scalar::F16, 4),
        8,
        8,
        rocm_kernels::lang::Cache::Default,
    );
    let parts = k.unpack(back);
    let swapped = k.pack(&[parts[1], parts[0], parts[3], parts[2]]);
    let v = [
        k.bitcast(back, Type::U64),
        k.bitcast(swapped, Type::U64),
        k.bitcast(sback, Type::F64),
        k.bitcast(bback, Type::U32),
        k.convert(parts[2], Scalar::F32),
        k.extract(bback, 1),
    ];
    store_all(&mut k, (out32, out64), &mut (0, 0), i, n, &v);
    let word = k.bitcast(bback, Type::U32);
    let again = k.bitcast(word, Type::vec(Scalar::Bf16, 2));
    let again = k.bitcast(again, Type::U32);
    store_all(&mut k, (out32, out64), &mut (3, 3), i, n, &[again]);
    k.finish().unwrap()
}

#[test]
fn half_vectors_match_the_interpreter_on_every_target() {
    let mut rng = Rng(13);
    for t in TARGETS {
        let def = halves(&target(t));
        let n = 128usize;
        let args = vec![
            Arg::u32(n as u32),
            Arg::buffer(&rng.f32s(4 * n, 1e3)),
            Arg::buffer(&vec![0u16; 4 * n]),
            Arg::buffer(&vec![0u16; 2 * n]),
            Arg::buffer(&vec![0u32; 4 * n]),
            Arg::buffer(&vec![0u64; 4 * n]),
        ];
        against_interp(t, &def, 2, 64, &args, n, &[]);
    }
}

/// 64-bit index arithmetic on work-item ids (what the AMDGPU lowering keeps as a
/// uniform part in SGPRs plus a 32-bit varying part): sums with uniform values that wrap
/// past 2⁶⁴, products and shifts by powers of two, differences, bitcasts, widening
/// products; each value stored as data (its 64 bits) and used as a global offset.
fn split_indices(t: &Target) -> KernelDef {
    let mut k = Builder::new("split_indices", t).unwrap();
    k.max_workgroup_size(64);
    let big = k.param("big", Scalar::U64);
    let x = k.ptr("x", Scalar::U32, Access::Read);
    let out = k.ptr("out", Scalar::U64, Access::Write);
    let copy = k.ptr("copy", Scalar::U32, Access::Write);
    let tid = k.thread_id();
    let t64 = k.convert(tid, Scalar::U64);
    let wg = k.workgroup_id();
    let wg64 = k.convert(wg, Scalar::U64);
    let first = k.fma(wg64, 64u64, t64);
    let wrapped = k.add(first, big);
    let back = k.sub(wrapped, big);
    let times8 = k.mul(wrapped, 8u64);
    let shifted = k.shl(back, 3u32);
    let signed = k.bitcast(times8, Type::I64);
    let neg = k.sub(signed, 1i64 << 40);
    let neg = k.bitcast(neg, Type::U64);
    let wide = k.mul_wide(tid, 16u32);
    let scaled = k.fma(first, 4u64, 12u64);
    let vals = [first, wrapped, back, times8, shifted, neg, wide, scaled];
    let slots = vals.len() as u64;
    let row = k.mul(first, slots);
    for (j, v) in vals.into_iter().enumerate() {
        let at = k.add(row, j as u64);
        let o = k.at(out, at);
        k.store(out, o, v);
    }
    // Offsets: element `first` of x (through `back`, which wrapped and came back), and
    // element 3 past it (a constant in the uniform part).
    let o = k.at(x, back);
    let v = k.load(x, o);
    let o3 = k.sub(scaled, 0u64);
    let v3 = k.load(x, o3);
    let s = k.add(v, v3);
    let co = k.at(copy, first);
    k.store(copy, co, s);
    k.finish().unwrap()
}

#[test]
fn split_index_arithmetic_matches_the_interpreter_on_every_target() {
    let mut rng = Rng(31);
    for t in TARGETS {
        let def = split_indices(&target(t));
        let (grid, block) = (3u32, 64u32);
        let n = (grid * block) as usize;
        let x: Vec<u32> = (0..n + 3).map(|_| rng.next() as u32).collect();
        for big in [0u64, 5, u64::MAX - 70, u64::MAX, 1 << 33] {
            let args = vec![
                Arg::Scalar(big),
                Arg::buffer(&x),
                Arg::buffer(&vec![0u64; 8 * n]),
                Arg::buffer(&vec![0u32; n]),
            ];
            against_interp(t, &def, grid, block, &args, n, &[]);
        }
    }
}

/// A grid-stride loop over 64-bit indices (its index a variable the AMDGPU lowering
/// keeps split across iterations): every index's value stored at its element.
fn split_loop(t: &Target) -> KernelDef {
    let mut k = Builder::new("split_loop", t).unwrap();
    k.max_workgroup_size(64);
    let n = k.param("n", Scalar::U64);
    let out = k.ptr("out", Scalar::U64, Access::Write);
    let tid = k.thread_id();
    let t64 = k.convert(tid, Scalar::U64);
    let wg = k.workgroup_id();
    let wg64 = k.convert(wg, Scalar::U64);
    let first = k.fma(wg64, 64u64, t64);
    let grid = k.grid_size();
    let grid = k.convert(grid, Scalar::U64);
    let step = k.mul(grid, 64u64);
    k.for_range(first, n, step, |k, i| {
        let v = k.fma(i, 3u64, 7u64);
        let o = k.at(out, i);
        k.store(out, o, v);
    });
    k.finish().unwrap()
}

#[test]
fn split_loop_index_matches_the_interpreter_on_every_target() {
    for t in TARGETS {
        let def = split_loop(&target(t));
        for n in [0usize, 1, 63, 64, 129, 1000] {
            let args = vec![Arg::Scalar(n as u64), Arg::buffer(&vec![0u64; n.max(1)])];
            against_interp(t, &def, 3, 64, &args, n.max(1), &[]);
        }
    }
}

/// Global atomic min and max (u32 and i32) and u32 compare-and-swap: on a slot per
/// work-item, so the old values returned are the initial ones whatever the order, and
/// on one slot every work-item hits, whose final value is order-free.
fn min_max_cas(t: &Target) -> KernelDef {
    use rocm_kernels::lang::AtomicOp;
    let mut k = Builder::new("min_max_cas", t).unwrap();
    let v = k.ptr("v", Scalar::U32, Access::Read);
    let mine = k.ptr("mine", Scalar::U32, Access::ReadWrite);
    let shared = k.ptr("shared", Scalar::U32, Access::ReadWrite);
    let old = k.ptr("old", Scalar::U32, Access::Write);
    let i = k.global_id();
    let o = k.at(v, i);
    let x = k.load(v, o);
    let xi = k.bitcast(x, Type::I32);
    let row = k.mul(i, 5u32);
    let mut olds = Vec::new();
    for (j, op) in [AtomicOp::Min, AtomicOp::Max].into_iter().enumerate() {
        let at = k.add(row, j as u32);
        let at = k.at(mine, at);
        olds.push(k.atomic(op, mine, at, x));
        let at = k.add(row, 2 + j as u32);
        let at = k.at(mine, at);
        let signed = k.atomic(op, mine, at, xi);
        olds.push(k.bitcast(signed, Type::U32));
    }
    // Swap in x where the slot holds the low half of x's bits (half the lanes).
    let at = k.add(row, 4u32);
    let at = k.at(mine, at);
    let low = k.and(x, 0xFFFFu32);
    olds.push(k.compare_swap(mine, at, low, x));
    for (j, o) in olds.into_iter().enumerate() {
        let at = k.add(row, j as u32);
        let at = k.at(old, at);
        k.store(old, at, o);
    }
    // Every work-item on slots 0-3 of `shared`, results unused.
    for (j, op) in [AtomicOp::Min, AtomicOp::Max].into_iter().enumerate() {
        let at = k.at(shared, j as u32);
        k.atomic(op, shared, at, x);
        let at = k.at(shared, 2 + j as u32);
        k.atomic(op, shared, at, xi);
    }
    k.finish().unwrap()
}

#[test]
fn global_min_max_and_compare_swap_match_the_interpreter_on_every_target() {
    let mut rng = Rng(53);
    for t in TARGETS {
        let def = min_max_cas(&target(t));
        let (grid, block) = (3u32, 64u32);
        let n = (grid * block) as usize;
        let v: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let mine: Vec<u32> = (0..5 * n)
            .map(|e| {
                let r = rng.next() as u32;
                // Slot 4 of even work-items holds the low half: their swap happens.
                if e % 5 == 4 && (e / 5) % 2 == 0 {
                    v[e / 5] & 0xFFFF
                } else {
                    r
                }
            })
            .collect();
        let shared = [u32::MAX, 0, i32::MAX as u32, i32::MIN as u32];
        let args = vec![
            Arg::buffer(&v),
            Arg::buffer(&mine),
            Arg::buffer(&shared),
            Arg::buffer(&vec![0u32; 5 * n]),
        ];
        against_interp(t, &def, grid, block, &args, 5 * n, &[]);
    }
}

/// u64 and i64 → f64 to nearest: each work-item converts one u64 both ways.
fn wide_to_f64(t: &Target) -> KernelDef {
    let mut k = Builder::new("wide_to_f64", t).unwrap();
    let x = k.ptr("x", Scalar::U64, Access::Read);
    let out = k.ptr("out", Scalar::F64, Access::Write);
    let i = k.global_id();
    let o = k.at(x, i);
    let v = k.load(x, o);
    let u = k.convert(v, Scalar::F64);
    let s = k.bitcast(v, Type::I64);
    let s = k.convert(s, Scalar::F64);
    let i2 = k.mul(i, 2u32);
    let o = k.at(out, i2);
    k.store(out, o, u);
    let i2 = k.add(i2, 1u32);
    let o = k.at(out, i2);
    k.store(out, o, s);
    k.finish().unwrap()
}

#[test]
fn u64_and_i64_to_f64_round_to_nearest_on_every_target() {
    let mut rng = Rng(59);
    for t in TARGETS {
        let def = wide_to_f64(&target(t));
        let n = 128usize;
        let mut x: Vec<u64> = vec![
            0,
            1,
            u64::MAX,
            1 << 63,
            (1 << 63) - 1,
            (1 << 53) + 1,
            (1 << 54) + 2,
            (1 << 54) + 6,
            (1 << 32) - 1,
            1 << 32,
            0xFFFF_FFFF_FFFF_F800,
            0xFFFF_FFFF_FFFF_FC00,
            0x8000_0000_0000_0401,
        ];
        while x.len() < n {
            let r = rng.next();
            x.push(r >> (r % 64));
        }
        let args = vec![Arg::buffer(&x), Arg::buffer(&vec![0f64; 2 * n])];
        against_interp(t, &def, 2, 64, &args, 2 * n, &[]);
    }
}

/// Shared-memory atomic min and max (u32 and i32): every work-item on four shared
/// slots (results unused, order-free), and on a slot of its own (the old value returned
/// is the initial one); the workgroup's slots written out after a barrier.
fn shared_min_max(t: &Target) -> KernelDef {
    use rocm_kernels::lang::AtomicOp;
    let mut k = Builder::new("shared_min_max", t).unwrap();
    k.max_workgroup_size(64);
    let v = k.ptr("v", Scalar::U32, Access::Read);
    let out = k.ptr("out", Scalar::U32, Access::Write);
    let common = k.shared("common", Scalar::U32, 4);
    let own = k.shared("own", Scalar::U32, 64 * 4);
    let i = k.global_id();
    let tid = k.thread_id();
    let o = k.at(v, i);
    let x = k.load(v, o);
    let xi = k.bitcast(x, Type::I32);
    let first = k.eq(tid, 0u32);
    k.if_(first, |k| {
        for (j, init) in [u32::MAX, 0, i32::MAX as u32, i32::MIN as u32]
            .into_iter()
            .enumerate()
        {
            let c = k.lit(init);
            k.store(common, 4 * j as u32, c);
        }
    });
    let mine = k.mul(tid, 16u32);
    let seed = k.xor(x, 0x5555_5555u32);
    for j in 0..4u32 {
        let at = k.add(mine, 4 * j);
        k.store(own, at, seed);
    }
    k.barrier();
    let ops = [AtomicOp::Min, AtomicOp::Max];
    let mut olds = Vec::new();
    for (j, op) in ops.into_iter().enumerate() {
        k.atomic(op, common, 4 * j as u32, x);
        k.atomic(op, common, 8 + 4 * j as u32, xi);
        let at = k.add(mine, 8 * j as u32);
        olds.push(k.atomic(op, own, at, x));
        let at = k.add(at, 4u32);
        let signed = k.atomic(op, own, at, xi);
        olds.push(k.bitcast(signed, Type::U32));
    }
    k.barrier();
    // Per work-item: the four old values and its own slots' final values.
    let row = k.mul(i, 8u32);
    for (j, o) in olds.into_iter().enumerate() {
        let at = k.add(row, j as u32);
        let at = k.at(out, at);
        k.store(out, at, o);
    }
    for j in 0..4u32 {
        let from = k.add(mine, 4 * j);
        let now = k.load(own, from);
        let at = k.add(row, 4 + j);
        let at = k.at(out, at);
        k.store(out, at, now);
    }
    // The workgroup's common slots, after every work-item's atomics.
    let wg = k.workgroup_id();
    let base = k.mul(wg, 4u32);
    let groups = k.grid_size();
    let total = k.mul(groups, 64u32);
    let tail = k.mul(total, 8u32);
    k.if_(first, |k| {
        for j in 0..4u32 {
            let c = k.load(common, 4 * j);
            let at = k.add(base, j);
            let at = k.add(at, tail);
            let at = k.at(out, at);
            k.store(out, at, c);
        }
    });
    k.finish().unwrap()
}

#[test]
fn shared_min_max_match_the_interpreter_on_every_target() {
    let mut rng = Rng(61);
    for t in TARGETS {
        let def = shared_min_max(&target(t));
        let (grid, block) = (3u32, 64u32);
        let n = (grid * block) as usize;
        let v: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let args = vec![
            Arg::buffer(&v),
            Arg::buffer(&vec![0u32; 8 * n + 4 * grid as usize]),
        ];
        against_interp(t, &def, grid, block, &args, 8 * n + 4 * grid as usize, &[]);
    }
}

/// Distance in ulps between two f64s of the same sign (both NaN: 0).
fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    (a.to_bits() as i128 - b.to_bits() as i128).unsigned_abs() as u64
}

/// f64 sqrt and rsqrt on the emulated targets against the host's correctly rounded
/// sqrt: within the IR's bounds (sqrt 1 ulp, rsqrt 2 ulps of 1/sqrt rounded once from
/// the exact value, which the host's `1.0 / x.sqrt()` is within 1 ulp of, so 3 from
/// it), over every binade of the normal and subnormal range, the binade edges, and
/// ±0, ±∞, NaN and negative inputs.
#[test]
fn f64_sqrt_and_rsqrt_are_within_their_ulp_bounds_on_every_target() {
    let mut rng = Rng(77);
    let mut xs: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -1.0,
        -f64::MIN_POSITIVE,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        1.0,
        4.0,
        4.0 - f64::EPSILON * 2.0,
        2.0,
    ];
    for e in -1074..1024 {
        let m = 1.0 + (rng.next() >> 12) as f64 / (1u64 << 52) as f64;
        xs.push((m * 2f64.powi(e.max(-1022))) * if e < -1022 { 2f64.powi(e + 1022) } else { 1.0 });
    }
    for _ in 0..500 {
        xs.push(f64::from_bits(rng.next() & 0x7fff_ffff_ffff_ffff));
    }
    let n = xs.len();
    for t in TARGETS {
        let mut k = Builder::new("sqrt_f64", &target(t)).unwrap();
        let nn = k.param("n", Scalar::U32);
        let x = k.ptr("x", Scalar::F64, Access::Read);
        let out = k.ptr("out", Scalar::F64, Access::Write);
        let i = k.global_id();
        let inside = k.lt(i, nn);
        k.if_(inside, |k| {
            let at = k.at(x, i);
            let v = k.load(x, at);
            let s = k.sqrt(v);
            k.store(out, at, s);
            let r = k.rsqrt(v);
            let j = k.add(i, nn);
            let at2 = k.at(out, j);
            k.store(out, at2, r);
        });
        let def = k.finish().unwrap();
        let built = lowered(&def);
        let mut args = vec![
            Arg::u32(n as u32),
            Arg::buffer(&xs),
            Arg::buffer(&vec![0f64; 2 * n]),
        ];
        run(
            &emu(t),
            &def,
            &built,
            (n as u32).div_ceil(64),
            64,
            &mut args,
        );
        let got: Vec<f64> = args[2].values();
        for (j, &v) in xs.iter().enumerate() {
            let (s, r) = (got[j], got[n + j]);
            let want_s = v.sqrt();
            assert!(
                ulps64(s, want_s) <= 1,
                "{t}: sqrt({v:e} = {:#x}) = {s:e}, want {want_s:e}",
                v.to_bits()
            );
            let want_r = 1.0 / v.sqrt();
            assert!(
                ulps64(r, want_r) <= 3,
                "{t}: rsqrt({v:e} = {:#x}) = {r:e} ({:#x}), want {want_r:e} ({:#x})",
                v.to_bits(),
                r.to_bits(),
                want_r.to_bits()
            );
        }
    }
}
