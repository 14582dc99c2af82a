//! The AMDGPU Level 1 kernels (`rocm_kernels::amdgpu::level1`) on every emulated target
//! against host references on random data, their resource reports (16-byte loads, ≥ 8
//! waves per SIMD), and LLVM's build of their text (one target per family, more where
//! cheap). Skips with a printed reason while the emulator or the LLVM tools are missing.

use rocm_core::isa::amdgpu::{IsaTarget, Op};
use rocm_core::{DType, Device, Error, KernelArgs, LaunchConfig, ModuleImage};
use rocm_kernels::amdgpu::level1::generate;
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::level1::{L1Op, Level1Params};
mod common;

use common::{agree, emu, tools_present};

fn params(op: L1Op, dtype: DType) -> Level1Params {
    Level1Params::fallback(op, dtype, true)
}

fn run(dev: &Device, k: &AssembledKernel, grid: u32, block: u32, args: &KernelArgs) {
    let m = dev
        .load_module(&ModuleImage::CodeObject(k.to_elf().unwrap()))
        .unwrap();
    let f = m.kernel(k.name()).unwrap();
    // SAFETY: the arguments match the kernel's (documented in `amdgpu::level1`) and the
    // emulated device checks every access against the buffers.
    unsafe {
        f.launch(
            dev.default_stream(),
            &LaunchConfig::linear(grid, block),
            args,
        )
        .unwrap()
    };
    dev.synchronize().unwrap();
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
}

/// 0, 1, wave ± 1, non-multiples of 4, a few thousand.
fn lengths(t: IsaTarget) -> Vec<usize> {
    let w = t.wave_size() as usize;
    vec![0, 1, 3, w - 1, w + 1, 1023, 2050, 4099]
}

/// Grids: one workgroup (the grid-stride loop runs many times) and enough to cover.
fn grids(n: usize, p: &Level1Params) -> [u32; 2] {
    let covering = (n as u32).div_ceil(p.block * 2).max(1);
    [1, covering]
}

/// A real element type the kernels handle: f32 or f64.
trait Real: Copy + PartialEq + std::fmt::Debug + rocm_core::Element {
    fn from_f64(x: f64) -> Self;
    fn bits(self) -> u64;
    /// The scalar as the kernel's `u32` arguments.
    fn push(self, args: &mut KernelArgs);
    /// `fma(a, x, b·y)` rounded as the kernel does: `v_mul` then `v_fma`.
    fn axpby(a: Self, x: Self, b: Self, y: Self) -> Self;
    fn mul(a: Self, x: Self) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn push(self, args: &mut KernelArgs) {
        args.push(self.to_bits());
    }
    fn axpby(a: Self, x: Self, b: Self, y: Self) -> Self {
        a.mul_add(x, b * y)
    }
    fn mul(a: Self, x: Self) -> Self {
        a * x
    }
    fn to_f64(self) -> f64 {
        self.into()
    }
}

impl Real for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn push(self, args: &mut KernelArgs) {
        let b = self.to_bits();
        args.push(b as u32).push((b >> 32) as u32);
    }
    fn axpby(a: Self, x: Self, b: Self, y: Self) -> Self {
        a.mul_add(x, b * y)
    }
    fn mul(a: Self, x: Self) -> Self {
        a * x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

fn random<T: Real>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n).map(|_| T::from_f64(rng.unit() * 10.0)).collect()
}

/// Bit-exact comparison: every kernel here is one IEEE operation per element (or the
/// documented `v_mul` + `v_fma` pair, reproduced on the host with `mul_add`), round to
/// nearest even, so the tolerance is zero ulps.
fn same<T: Real>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.bits(), w.bits(), "{what} i={i}: {g:?} vs {w:?}");
    }
}

fn check_copy<T: Real>(rng: &mut Rng, t: IsaTarget, dev: &Device) {
    let p = params(L1Op::Copy, T::DTYPE);
    let k = generate(t, &p).unwrap();
    for n in lengths(t) {
        for grid in grids(n, &p) {
            let x: Vec<T> = random(rng, n + 1);
            let y0: Vec<T> = random(rng, n + 1);
            let dx = dev.upload(&x).unwrap();
            let dy = dev.upload(&y0).unwrap();
            let mut args = KernelArgs::new();
            args.push(&dx).push(&dy).push(n as u32).push(grid);
            run(dev, &k, grid, p.block, &args);
            let y = dy.to_vec().unwrap();
            // y[..n] = x[..n]; the guard element past n is untouched.
            let mut want = x[..n].to_vec();
            want.push(y0[n]);
            same(
                &y,
                &want,
                &format!("copy {} {t} n={n} grid={grid}", T::DTYPE),
            );
        }
    }
}

fn check_scal<T: Real>(rng: &mut Rng, t: IsaTarget, dev: &Device) {
    let p = params(L1Op::Scal, T::DTYPE);
    let k = generate(t, &p).unwrap();
    for n in lengths(t) {
        for grid in grids(n, &p) {
            let alpha = T::from_f64(rng.unit() * 3.0);
            let x: Vec<T> = random(rng, n + 1);
            let dx = dev.upload(&x).unwrap();
            let mut args = KernelArgs::new();
            args.push(&dx).push(n as u32).push(grid);
            alpha.push(&mut args);
            run(dev, &k, grid, p.block, &args);
            let got = dx.to_vec().unwrap();
            let mut want: Vec<T> = x[..n].iter().map(|&v| T::mul(alpha, v)).collect();
            want.push(x[n]);
            same(
                &got,
                &want,
                &format!("scal {} {t} n={n} grid={grid}", T::DTYPE),
            );
        }
    }
}

fn check_axpby<T: Real>(rng: &mut Rng, t: IsaTarget, dev: &Device, read_y: bool) {
    let p = params(L1Op::Axpby { read_y }, T::DTYPE);
    let k = generate(t, &p).unwrap();
    for n in lengths(t) {
        for grid in grids(n, &p) {
            let alpha = T::from_f64(rng.unit() * 3.0);
            let beta = T::from_f64(rng.unit() * 3.0);
            let x: Vec<T> = random(rng, n + 1);
            let y0: Vec<T> = random(rng, n + 1);
            let dx = dev.upload(&x).unwrap();
            let dy = dev.upload(&y0).unwrap();
            let mut args = KernelArgs::new();
            args.push(&dx).push(&dy).push(n as u32).push(grid);
            // β is an argument also when y is not read (the kernel contract).
            alpha.push(&mut args);
            beta.push(&mut args);
            run(dev, &k, grid, p.block, &args);
            let got = dy.to_vec().unwrap();
            let mut want: Vec<T> = (0..n)
                .map(|i| {
                    if read_y {
                        T::axpby(alpha, x[i], beta, y0[i])
                    } else {
                        T::mul(alpha, x[i])
                    }
                })
                .collect();
            want.push(y0[n]);
            let what = format!("axpby(read_y={read_y}) {} {t} n={n} grid={grid}", T::DTYPE);
            same(&got, &want, &what);
        }
    }
}

/// Swap of `n` elements of `es` bytes, moved as raw bits (f32 words reinterpreted: the
/// kernel only moves bytes, so any bit pattern must survive, NaNs included).
fn check_swap(rng: &mut Rng, t: IsaTarget, dev: &Device, dtype: DType, words_per_elem: usize) {
    let p = params(L1Op::Swap, dtype);
    let k = generate(t, &p).unwrap();
    for n in lengths(t) {
        for grid in grids(n, &p) {
            let w = words_per_elem;
            let x0: Vec<u32> = (0..(n + 1) * w).map(|_| rng.next() as u32).collect();
            let y0: Vec<u32> = (0..(n + 1) * w).map(|_| rng.next() as u32).collect();
            let dx = dev.upload(&x0).unwrap();
            let dy = dev.upload(&y0).unwrap();
            let mut args = KernelArgs::new();
            args.push(&dx).push(&dy).push(n as u32).push(grid);
            run(dev, &k, grid, p.block, &args);
            let (x, y) = (dx.to_vec().unwrap(), dy.to_vec().unwrap());
            let what = format!("swap {dtype} {t} n={n} grid={grid}");
            // Exact: the first n elements exchanged, the guard element untouched.
            assert_eq!(x[..n * w], y0[..n * w], "{what}: x");
            assert_eq!(y[..n * w], x0[..n * w], "{what}: y");
            assert_eq!(x[n * w..], x0[n * w..], "{what}: x guard");
            assert_eq!(y[n * w..], y0[n * w..], "{what}: y guard");
        }
    }
}

/// BLAS storage of an `n`-vector at increment `inc`: element i at `i·inc` for inc > 0,
/// at `(i + 1 - n)·inc` for inc < 0 (so element 0 is last); buffer length
/// `1 + (n - 1)·|inc|`.
fn blas_index(i: usize, n: usize, inc: i32) -> usize {
    let i = i as i64;
    let n = n as i64;
    let inc = i64::from(inc);
    (if inc < 0 { (i + 1 - n) * inc } else { i * inc }) as usize
}

fn blas_len(n: usize, inc: i32) -> usize {
    if n == 0 {
        0
    } else {
        1 + (n - 1) * inc.unsigned_abs() as usize
    }
}

/// Every strided elementwise op against a host reference with BLAS increment semantics.
/// Buffers carry one guard element past the end and the gaps between strided elements;
/// both must come back unchanged. Bit-exact, as in [`same`].
fn check_strided<T: Real>(rng: &mut Rng, t: IsaTarget, dev: &Device, op: L1Op) {
    let p = Level1Params::fallback(op, T::DTYPE, false);
    let k = generate(t, &p).unwrap();
    let w = t.wave_size() as usize;
    for n in [0usize, 1, w - 1, w + 1, 1031] {
        for (incx, incy) in [(1, 1), (-1, 3), (3, -3), (-3, -1)] {
            for grid in [1u32, (n as u32).div_ceil(p.block).max(1)] {
                let alpha = T::from_f64(rng.unit() * 3.0);
                let beta = T::from_f64(rng.unit() * 3.0);
                let x0: Vec<T> = random(rng, blas_len(n, incx) + 1);
                let y0: Vec<T> = random(rng, blas_len(n, incy) + 1);
                let dx = dev.upload(&x0).unwrap();
                let dy = dev.upload(&y0).unwrap();
                let mut args = KernelArgs::new();
                args.push(&dx);
                if op != L1Op::Scal {
                    args.push(&dy);
                }
                args.push(n as u32).push(grid).push(incx);
                if op != L1Op::Scal {
                    args.push(incy);
                }
                if matches!(op, L1Op::Scal | L1Op::Axpby { .. }) {
                    alpha.push(&mut args);
                }
                if matches!(op, L1Op::Axpby { .. }) {
                    beta.push(&mut args);
                }
                run(dev, &k, grid, p.block, &args);
                let (mut wx, mut wy) = (x0.clone(), y0.clone());
                for i in 0..n {
                    let (ix, iy) = (blas_index(i, n, incx), blas_index(i, n, incy));
                    match op {
                        L1Op::Copy => wy[iy] = x0[ix],
                        L1Op::Swap => {
                            wx[ix] = y0[iy];
                            wy[iy] = x0[ix];
                        }
                        L1Op::Scal => wx[ix] = T::mul(alpha, x0[ix]),
                        L1Op::Axpby { read_y: true } => {
                            wy[iy] = T::axpby(alpha, x0[ix], beta, y0[iy])
                        }
                        _ => wy[iy] = T::mul(alpha, x0[ix]),
                    }
                }
                let what = format!(
                    "{op:?} {} {t} n={n} inc=({incx},{incy}) grid={grid}",
                    T::DTYPE
                );
                same(&dx.to_vec().unwrap(), &wx, &format!("{what}: x"));
                same(&dy.to_vec().unwrap(), &wy, &format!("{what}: y"));
            }
        }
    }
}

#[test]
fn strided_ops_match_the_host_on_every_target() {
    let mut rng = Rng(0x5151_7a7a_0101_9e9e);
    let ops = [
        L1Op::Copy,
        L1Op::Swap,
        L1Op::Scal,
        L1Op::Axpby { read_y: true },
        L1Op::Axpby { read_y: false },
    ];
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for op in ops {
            check_strided::<f32>(&mut rng, t, &dev, op);
            check_strided::<f64>(&mut rng, t, &dev, op);
        }
    }
}

fn u_of<T: Real>() -> f64 {
    if std::mem::size_of::<T>() == 4 {
        1.0 / (1u64 << 24) as f64
    } else {
        1.0 / (1u64 << 53) as f64
    }
}

/// dot: every partial slot written (f64, `partials[wg]`), their in-order host sum within
/// `(n + 10)·u·Σ|x||y|` of the exact dot (each product meets at most n/lanes per-lane
/// fmas, 10 ≥ log2(1024) tree additions and the host's additions of the partials, each
/// a relative error ≤ u of a partial sum bounded by Σ|x||y|; f32 partials widen exactly).
///
/// asum (`asum = true`: Σ|x|, no y) has the same bound with `|x|` for `|x||y|`.
fn check_dot<T: Real>(rng: &mut Rng, t: IsaTarget, dev: &Device, contiguous: bool, asum: bool) {
    let op = if asum {
        L1Op::Asum
    } else {
        L1Op::Dot { conj: false }
    };
    let p = Level1Params::fallback(op, T::DTYPE, contiguous);
    let k = generate(t, &p).unwrap();
    let w = t.wave_size() as usize;
    let incs: &[(i32, i32)] = if contiguous {
        &[(1, 1)]
    } else {
        &[(1, 1), (-1, 3), (3, -3), (-3, -1)]
    };
    for n in [0usize, 1, 3, w - 1, w + 1, 1023, 4099] {
        for &(incx, incy) in incs {
            for groups in [1u32, 5] {
                let x: Vec<T> = random(rng, blas_len(n, incx));
                let y: Vec<T> = random(rng, blas_len(n, incy));
                let dx = dev.upload(&x).unwrap();
                let dy = dev.upload(&y).unwrap();
                let dp = dev.upload(&vec![f64::NAN; groups as usize]).unwrap();
                let mut args = KernelArgs::new();
                args.push(&dx);
                if !asum {
                    args.push(&dy);
                }
                args.push(n as u32).push(groups);
                if !contiguous {
                    args.push(incx);
                    if !asum {
                        args.push(incy);
                    }
                }
                args.push(&dp);
                run(dev, &k, groups, p.block, &args);
                let parts = dp.to_vec().unwrap();
                let what = format!(
                    "{op:?} {} {t} n={n} inc=({incx},{incy}) groups={groups}",
                    T::DTYPE
                );
                assert!(parts.iter().all(|v| v.is_finite()), "{what}: {parts:?}");
                let got: f64 = parts.iter().sum();
                let (mut exact, mut abs) = (0.0f64, 0.0f64);
                for i in 0..n {
                    let a = x[blas_index(i, n, incx)].to_f64();
                    let b = if asum {
                        a.signum()
                    } else {
                        y[blas_index(i, n, incy)].to_f64()
                    };
                    exact += a * b;
                    abs += (a * b).abs();
                }
                let tol = (n as f64 + 10.0) * u_of::<T>() * abs;
                assert!(
                    (got - exact).abs() <= tol,
                    "{what}: {got} vs {exact} (tol {tol})"
                );
            }
        }
    }
}

#[test]
fn dot_and_asum_match_the_host_on_every_target() {
    let mut rng = Rng(0x7777_1234_4321_abcd);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for contiguous in [true, false] {
            for asum in [false, true] {
                check_dot::<f32>(&mut rng, t, &dev, contiguous, asum);
                check_dot::<f64>(&mut rng, t, &dev, contiguous, asum);
            }
        }
    }
}

#[test]
fn swap_matches_the_host_on_every_target() {
    let mut rng = Rng(0x0bad_cafe_f00d_1234);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for (dtype, w) in [
            (DType::F32, 1),
            (DType::F64, 2),
            (DType::C32, 2),
            (DType::C64, 4),
        ] {
            check_swap(&mut rng, t, &dev, dtype, w);
        }
    }
}

#[test]
fn copy_matches_the_host_on_every_target() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        check_copy::<f32>(&mut rng, t, &dev);
        check_copy::<f64>(&mut rng, t, &dev);
    }
}

#[test]
fn scal_and_axpby_match_the_host_on_every_target() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        check_scal::<f32>(&mut rng, t, &dev);
        check_scal::<f64>(&mut rng, t, &dev);
        for read_y in [true, false] {
            check_axpby::<f32>(&mut rng, t, &dev, read_y);
            check_axpby::<f64>(&mut rng, t, &dev, read_y);
        }
    }
}

/// Issue 4's acceptance: copy and axpy move 16 bytes per lane per load and run at least
/// 8 waves per SIMD.
#[test]
fn copy_and_axpy_reports() {
    for t in IsaTarget::ALL {
        for op in [L1Op::Copy, L1Op::Axpby { read_y: true }] {
            for dtype in [DType::F32, DType::F64] {
                let k = generate(t, &params(op, dtype)).unwrap();
                let r = &k.report;
                let loads: Vec<Op> = k
                    .instructions()
                    .iter()
                    .map(|i| i.op)
                    .filter(|o| format!("{o:?}").starts_with("GlobalLoad"))
                    .collect();
                println!(
                    "{t} {}: vgprs {} (allocated {}), sgprs {}, occupancy {} waves/SIMD ({:?}), loads {loads:?}",
                    k.name(),
                    r.vgprs,
                    r.vgprs_allocated,
                    r.sgprs,
                    r.occupancy,
                    r.limiter
                );
                assert!(
                    r.occupancy >= 8,
                    "{t} {}: occupancy {}",
                    k.name(),
                    r.occupancy
                );
                // The main loop's loads (the first ones) are 16 bytes per lane.
                assert_eq!(
                    loads.first(),
                    Some(&Op::GlobalLoadDwordx4),
                    "{t} {}",
                    k.name()
                );
            }
        }
    }
}

#[test]
fn unsupported_variants_are_errors() {
    let t = IsaTarget::Gfx90a;
    let complex_rotm = params(L1Op::Rotm, DType::C32);
    assert!(matches!(
        generate(t, &complex_rotm),
        Err(Error::Unsupported { .. })
    ));
    let f16_to_f64 = Level1Params::fallback(L1Op::Convert { to: DType::F64 }, DType::F16, false);
    assert!(matches!(
        generate(t, &f16_to_f64),
        Err(Error::Unsupported { .. })
    ));
    let bad_convert = params(L1Op::Convert { to: DType::F16 }, DType::F64);
    assert!(matches!(
        generate(t, &bad_convert),
        Err(Error::Unsupported { .. })
    ));
    let mut bad = params(L1Op::Copy, DType::F32);
    bad.block = 48;
    assert!(generate(t, &bad).is_err());
    bad.block = 256;
    bad.vector_bytes = 8;
    assert!(generate(t, &bad).is_err());
    // Reductions need a power-of-two block (the LDS tree halves it).
    let mut odd = params(L1Op::Sum, DType::F32);
    odd.block = 192;
    assert!(generate(t, &odd).is_err());
    assert!(generate(t, &params(L1Op::Copy, DType::I32)).is_err());
}

#[test]
fn kernels_match_llvm() {
    if !tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for t in IsaTarget::ALL {
        let mut ks = Vec::new();
        for dtype in [DType::F32, DType::F64] {
            for op in [
                L1Op::Copy,
                L1Op::Swap,
                L1Op::Scal,
                L1Op::Axpby { read_y: true },
                L1Op::Axpby { read_y: false },
                L1Op::Dot { conj: false },
                L1Op::Asum,
            ] {
                ks.push(generate(t, &params(op, dtype)).unwrap());
                let strided = Level1Params::fallback(op, dtype, false);
                ks.push(generate(t, &strided).unwrap());
            }
        }
        agree(&ks);
    }
}

// ---- Every op on every dtype: complex, the new ops, the other reductions --------------

/// The real type of a dtype's components, as the host sees it: values travel as `u32`
/// words (an f32's bits, or an f64's low then high half), so one harness serves all.
#[derive(Clone, Copy, PartialEq, Debug)]
enum R {
    F32,
    F64,
}

impl R {
    /// The real type and components per element of a Level 1 dtype.
    fn of(d: DType) -> (R, usize) {
        match d {
            DType::F32 => (R::F32, 1),
            DType::F64 => (R::F64, 1),
            DType::C32 => (R::F32, 2),
            _ => (R::F64, 2),
        }
    }

    /// Unit roundoff.
    fn u(self) -> f64 {
        match self {
            R::F32 => f64::from(f32::EPSILON) / 2.0,
            R::F64 => f64::EPSILON / 2.0,
        }
    }

    fn round(self, x: f64) -> f64 {
        match self {
            R::F32 => f64::from(x as f32),
            R::F64 => x,
        }
    }

    fn words(self, v: &[f64]) -> Vec<u32> {
        let mut out = Vec::new();
        for &x in v {
            self.push_words(&mut out, x);
        }
        out
    }

    fn push_words(self, out: &mut Vec<u32>, x: f64) {
        match self {
            R::F32 => out.push((x as f32).to_bits()),
            R::F64 => {
                let b = x.to_bits();
                out.push(b as u32);
                out.push((b >> 32) as u32);
            }
        }
    }

    fn reals(self, w: &[u32]) -> Vec<f64> {
        match self {
            R::F32 => w.iter().map(|&b| f64::from(f32::from_bits(b))).collect(),
            R::F64 => w
                .chunks(2)
                .map(|c| f64::from_bits(u64::from(c[0]) | u64::from(c[1]) << 32))
                .collect(),
        }
    }

    /// Random reals in [-10, 10), exactly representable.
    fn random(self, rng: &mut Rng, len: usize) -> Vec<f64> {
        (0..len).map(|_| self.round(rng.unit() * 10.0)).collect()
    }
}

/// Lengths per target: the full set on one target per family (gfx90a, gfx1100), a
/// smaller one elsewhere (same code, other wave size or encoding only).
fn lengths_on(t: IsaTarget) -> Vec<usize> {
    let w = t.wave_size() as usize;
    if matches!(t, IsaTarget::Gfx90a | IsaTarget::Gfx1100) {
        vec![0, 1, 3, w - 1, w + 1, 1023, 2050, 4099]
    } else {
        vec![0, 1, w + 1, 1031]
    }
}

/// Increments: unit for contiguous kernels; two random pairs with |inc| ≤ 4, the first
/// with a negative incx, the second with a negative incy.
fn incs_for(rng: &mut Rng, contiguous: bool) -> Vec<(i32, i32)> {
    if contiguous {
        return vec![(1, 1)];
    }
    let mut r = || 1 + (rng.next() % 4) as i32;
    vec![(-r(), r()), (r(), -r())]
}

/// The element positions (in elements, not reals) of an `n`-vector at `inc`.
fn positions(n: usize, inc: i32) -> Vec<usize> {
    (0..n).map(|i| blas_index(i, n, inc)).collect()
}

/// One output real: the exact terms it sums (`want = Σ terms`) with the kernel's bound
/// `2·m·u·Σ|terms|` for m terms: at most m roundings (one per product or fma), each
/// within u of a partial sum bounded by Σ|terms|, and as many again for the f64 host
/// reference of f64 data (products of f32 data are exact in f64).
fn expect(terms: &[f64], u: f64) -> (f64, f64) {
    let want: f64 = terms.iter().sum();
    let abs: f64 = terms.iter().map(|t| t.abs()).sum();
    (want, 2.0 * terms.len() as f64 * u * abs)
}

/// `a·b` (conjugating a when `conj`) as the terms of each component.
fn prod_terms(a: &[f64], b: &[f64], conj: bool) -> Vec<Vec<f64>> {
    if a.len() == 1 {
        return vec![vec![a[0] * b[0]]];
    }
    let s = if conj { -1.0 } else { 1.0 };
    vec![
        vec![a[0] * b[0], -s * a[1] * b[1]],
        vec![a[0] * b[1], s * a[1] * b[0]],
    ]
}

fn check_against(what: &str, got: &[f64], want: &[(f64, f64)]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, (w, tol))) in got.iter().zip(want).enumerate() {
        let ok = if *tol == 0.0 {
            g.to_bits() == w.to_bits()
        } else {
            (g - w).abs() <= *tol
        };
        assert!(ok, "{what}: real {i}: got {g:e}, want {w:e} (tol {tol:e})");
    }
}

/// Elementwise ops (copy, swap, fill, scal, axpby, rot, rotm) against the host, with the
/// per-real bound of [`expect`] (copy, swap and fill exact); every real the op must not
/// write (gaps of strided vectors, one guard element) unchanged.
fn check_elementwise(rng: &mut Rng, t: IsaTarget, dev: &Device, op: L1Op, dtype: DType) {
    let (r, c) = R::of(dtype);
    let u = r.u();
    for contiguous in [true, false] {
        let p = Level1Params::fallback(op, dtype, contiguous);
        let k = generate(t, &p).unwrap();
        for n in lengths_on(t) {
            for (incx, incy) in incs_for(rng, contiguous) {
                for grid in [1u32, (n as u32).div_ceil(p.block).max(1)] {
                    let lx = (blas_len(n, incx) + 1) * c;
                    let ly = (blas_len(n, incy) + 1) * c;
                    let (x0, y0) = (r.random(rng, lx), r.random(rng, ly));
                    let mut scal = |m: usize| -> Vec<f64> { r.random(rng, m) };
                    let scalars: Vec<Vec<f64>> = match op {
                        L1Op::Scal | L1Op::Fill => vec![scal(c)],
                        L1Op::Axpby { .. } => vec![scal(c), scal(c)],
                        L1Op::Rot => vec![scal(1), scal(c)],
                        L1Op::Rotm => (0..4).map(|_| scal(1)).collect(),
                        _ => vec![],
                    };
                    let dx = dev.upload(&r.words(&x0)).unwrap();
                    let dy = dev.upload(&r.words(&y0)).unwrap();
                    let mut args = KernelArgs::new();
                    args.push(&dx);
                    if op.has_y() {
                        args.push(&dy);
                    }
                    args.push(n as u32).push(grid);
                    if !contiguous {
                        args.push(incx);
                        if op.has_y() {
                            args.push(incy);
                        }
                    }
                    for v in scalars.iter().flatten() {
                        for w in r.words(&[*v]) {
                            args.push(w);
                        }
                    }
                    run(dev, &k, grid, p.block, &args);
                    let exact =
                        |v: &[f64]| -> Vec<(f64, f64)> { v.iter().map(|&x| (x, 0.0)).collect() };
                    let (mut wx, mut wy) = (exact(&x0), exact(&y0));
                    let (px, py) = (positions(n, incx), positions(n, incy));
                    for i in 0..n {
                        let (ix, iy) = (px[i] * c, py[i] * c);
                        let xe = &x0[ix..ix + c];
                        let ye = &y0[iy..iy + c];
                        let sc = |j: usize| scalars[j].as_slice();
                        match op {
                            L1Op::Copy => wy[iy..iy + c].copy_from_slice(&exact(xe)),
                            L1Op::Swap => {
                                wx[ix..ix + c].copy_from_slice(&exact(ye));
                                wy[iy..iy + c].copy_from_slice(&exact(xe));
                            }
                            L1Op::Fill => wx[ix..ix + c].copy_from_slice(&exact(sc(0))),
                            L1Op::Scal => {
                                for (j, terms) in prod_terms(sc(0), xe, false).iter().enumerate() {
                                    wx[ix + j] = expect(terms, u);
                                }
                            }
                            L1Op::Axpby { read_y } => {
                                let ax = prod_terms(sc(0), xe, false);
                                let by = prod_terms(sc(1), ye, false);
                                for j in 0..c {
                                    let mut terms = ax[j].clone();
                                    if read_y {
                                        terms.extend(&by[j]);
                                    }
                                    wy[iy + j] = expect(&terms, u);
                                }
                            }
                            L1Op::Rot => {
                                // x' = c·x + s·y, y' = c·y − conj(s)·x.
                                let cc = sc(0)[0];
                                let sy = prod_terms(sc(1), ye, false);
                                let sx = prod_terms(sc(1), xe, true);
                                for j in 0..c {
                                    let mut tx = vec![cc * xe[j]];
                                    tx.extend(&sy[j]);
                                    let mut ty = vec![cc * ye[j]];
                                    ty.extend(sx[j].iter().map(|v| -v));
                                    wx[ix + j] = expect(&tx, u);
                                    wy[iy + j] = expect(&ty, u);
                                }
                            }
                            L1Op::Rotm => {
                                let h = |j: usize| sc(j)[0];
                                wx[ix] = expect(&[h(0) * xe[0], h(2) * ye[0]], u);
                                wy[iy] = expect(&[h(1) * xe[0], h(3) * ye[0]], u);
                            }
                            _ => unreachable!(),
                        }
                    }
                    let what = format!(
                        "{op:?} {dtype} {t} contiguous={contiguous} n={n} inc=({incx},{incy}) grid={grid}"
                    );
                    check_against(&format!("{what}: x"), &r.reals(&dx.to_vec().unwrap()), &wx);
                    check_against(&format!("{what}: y"), &r.reals(&dy.to_vec().unwrap()), &wy);
                }
            }
        }
    }
}

const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

#[test]
fn complex_scal_and_axpby_match_the_host_on_every_target() {
    let mut rng = Rng(0x3c3c_5a5a_1234_8765);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for dtype in [DType::C32, DType::C64] {
            for op in [
                L1Op::Scal,
                L1Op::Axpby { read_y: true },
                L1Op::Axpby { read_y: false },
                L1Op::Copy,
            ] {
                check_elementwise(&mut rng, t, &dev, op, dtype);
            }
        }
    }
}

#[test]
fn fill_rot_and_rotm_match_the_host_on_every_target() {
    let mut rng = Rng(0x0f0f_1e1e_2d2d_3c3c);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for dtype in DTYPES {
            check_elementwise(&mut rng, t, &dev, L1Op::Fill, dtype);
            check_elementwise(&mut rng, t, &dev, L1Op::Rot, dtype);
            if R::of(dtype).1 == 1 {
                check_elementwise(&mut rng, t, &dev, L1Op::Rotm, dtype);
            }
        }
    }
}

/// A canary no kernel writes: an f64 signalling-NaN pattern.
const CANARY: u64 = 0x7ff4_dead_beef_0001;

/// Runs a reduction over `x` (and `y`) at the given increments; the partials as u64
/// bits, `slots × groups`, every one checked written.
#[allow(clippy::too_many_arguments)]
fn reduce_on(
    dev: &Device,
    k: &AssembledKernel,
    p: &Level1Params,
    x: &[f64],
    y: &[f64],
    n: usize,
    (incx, incy): (i32, i32),
    groups: u32,
    what: &str,
) -> Vec<Vec<u64>> {
    let (r, _) = R::of(p.dtype);
    let slots = rocm_kernels::level1::partial_slots(p.op, p.dtype);
    let dx = dev.upload(&r.words(x)).unwrap();
    let dy = dev.upload(&r.words(y)).unwrap();
    let dp = dev
        .upload(&vec![f64::from_bits(CANARY); slots * groups as usize])
        .unwrap();
    let mut args = KernelArgs::new();
    args.push(&dx);
    if p.op.has_y() {
        args.push(&dy);
    }
    args.push(n as u32).push(groups);
    if !p.contiguous {
        args.push(incx);
        if p.op.has_y() {
            args.push(incy);
        }
    }
    args.push(&dp);
    run(dev, k, groups, p.block, &args);
    let parts: Vec<u64> = dp.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
    assert!(
        parts.iter().all(|&b| b != CANARY),
        "{what}: a partial was not written: {parts:x?}"
    );
    parts.chunks(groups as usize).map(|c| c.to_vec()).collect()
}

/// dot, dotc, sum and asum: per slot, the in-order host sum of the partials within
/// `2(n + 10)·u·Σ|terms|` of the exact value: each term meets at most n/lanes per-lane
/// roundings, ≤ 10 tree levels and the host's additions of the partials, each within u
/// of a partial sum bounded by Σ|terms|; the f64 host reference of f64 data as many again
/// (f32 partials widen exactly).
fn check_sums(rng: &mut Rng, t: IsaTarget, dev: &Device, op: L1Op, dtype: DType) {
    let (r, c) = R::of(dtype);
    for contiguous in [true, false] {
        let p = Level1Params::fallback(op, dtype, contiguous);
        let k = generate(t, &p).unwrap();
        for n in lengths_on(t) {
            for inc in incs_for(rng, contiguous) {
                for groups in [1u32, 5] {
                    let x = r.random(rng, blas_len(n, inc.0) * c);
                    let y = r.random(rng, blas_len(n, inc.1) * c);
                    let what = format!(
                        "{op:?} {dtype} {t} contiguous={contiguous} n={n} inc={inc:?} groups={groups}"
                    );
                    let parts = reduce_on(dev, &k, &p, &x, &y, n, inc, groups, &what);
                    let slots = parts.len();
                    let mut terms = vec![Vec::new(); slots];
                    let (px, py) = (positions(n, inc.0), positions(n, inc.1));
                    for i in 0..n {
                        let xe = &x[px[i] * c..px[i] * c + c];
                        let ye = &y[py[i] * c..py[i] * c + c];
                        match op {
                            L1Op::Dot { conj } => {
                                for (j, ts) in prod_terms(xe, ye, conj).into_iter().enumerate() {
                                    terms[j].extend(ts);
                                }
                            }
                            L1Op::Sum => {
                                for j in 0..c {
                                    terms[j].push(xe[j]);
                                }
                            }
                            _ => terms[0].extend(xe.iter().map(|v| v.abs())),
                        }
                    }
                    for (s, ts) in terms.iter().enumerate() {
                        let got: f64 = parts[s].iter().map(|&b| f64::from_bits(b)).sum();
                        let want: f64 = ts.iter().sum();
                        let abs: f64 = ts.iter().map(|v| v.abs()).sum();
                        let tol = 2.0 * (n as f64 + 10.0) * r.u() * abs;
                        assert!(
                            (got - want).abs() <= tol,
                            "{what} slot {s}: {got:e} vs {want:e} (tol {tol:e})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn dot_sum_and_asum_match_the_host_on_every_target() {
    let mut rng = Rng(0x1111_2222_3333_4444);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for dtype in DTYPES {
            let ops: &[L1Op] = if R::of(dtype).1 == 2 {
                &[
                    L1Op::Dot { conj: false },
                    L1Op::Dot { conj: true },
                    L1Op::Sum,
                    L1Op::Asum,
                ]
            } else {
                &[L1Op::Sum]
            };
            for &op in ops {
                check_sums(&mut rng, t, &dev, op, dtype);
            }
        }
    }
}

/// Magnitudes for nrm2 data: ordinary, all below Blue's TSML = 2⁻⁵¹¹ (f64 only), all
/// above TBIG = 2⁴⁸⁶ (f64 only), and a mix of the three with the thresholds themselves
/// and their neighbours.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scale {
    Plain,
    Tiny,
    Huge,
    Mixed,
}

fn nrm2_data(rng: &mut Rng, r: R, len: usize, scale: Scale) -> Vec<f64> {
    (0..len)
        .map(|i| {
            let v = rng.unit();
            // 1 ≤ |m| < 2 keeps tiny and huge values on their side of the thresholds.
            let m = (1.0 + v.abs()) * v.signum();
            // The thresholds and their neighbours, to pin the comparisons.
            let edges = [
                2f64.powi(-511),
                2f64.powi(-511) * (1.0 - f64::EPSILON / 2.0),
                2f64.powi(486),
                2f64.powi(486) * (1.0 + f64::EPSILON),
            ];
            let s = match (scale, i % 4) {
                (Scale::Plain, _) => return r.round(v * 10.0),
                (Scale::Tiny, _) | (Scale::Mixed, 0) => 1e-160,
                (Scale::Huge, _) | (Scale::Mixed, 1) => 1e150,
                (Scale::Mixed, 2) => 1.0,
                (Scale::Mixed, _) => return edges[(rng.next() % 4) as usize] * v.signum(),
            };
            r.round(m * s)
        })
        .collect()
}

/// ‖x‖₂ on the host, scaled by the largest |x| so no square leaves f64's range.
fn norm_ref(x: &[f64]) -> f64 {
    let m = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if m == 0.0 {
        return 0.0;
    }
    x.iter().map(|v| (v / m) * (v / m)).sum::<f64>().sqrt() * m
}

/// nrm2: the partials' slots summed in order and finished by
/// `rocm_kernels::level1::blue_finish` within `(n + 20)·2⁻⁵³·‖x‖` of the scaled host
/// norm (f64 sums of squares: ≤ n + 10 roundings of the kernel and the host's, each of
/// relative size 2⁻⁵³ on Σ|x|², halved by the square root, plus a few for the scalings
/// and the finish); each slot holds what Blue's rule puts there; a NaN gives NaN.
fn check_nrm2(rng: &mut Rng, t: IsaTarget, dev: &Device, dtype: DType) {
    let (r, c) = R::of(dtype);
    let scales: &[Scale] = if r == R::F64 {
        &[Scale::Plain, Scale::Tiny, Scale::Huge, Scale::Mixed]
    } else {
        &[Scale::Plain]
    };
    for contiguous in [true, false] {
        let p = Level1Params::fallback(L1Op::Nrm2, dtype, contiguous);
        let k = generate(t, &p).unwrap();
        for n in lengths_on(t) {
            for inc in incs_for(rng, contiguous) {
                for &scale in scales {
                    let groups = 1 + (rng.next() % 5) as u32;
                    let mut x = nrm2_data(rng, r, blas_len(n, inc.0) * c, scale);
                    let nan = n > 2 && scale == Scale::Plain && rng.next() % 4 == 0;
                    let px = positions(n, inc.0);
                    if nan {
                        x[px[n / 2] * c] = f64::NAN;
                    }
                    let what = format!(
                        "Nrm2 {dtype} {t} contiguous={contiguous} n={n} inc={inc:?} {scale:?} groups={groups}"
                    );
                    let parts = reduce_on(dev, &k, &p, &x, &[], n, inc, groups, &what);
                    let sums: Vec<f64> = parts
                        .iter()
                        .map(|s| s.iter().map(|&b| f64::from_bits(b)).sum())
                        .collect();
                    let got = rocm_kernels::level1::blue_finish(sums[0], sums[1], sums[2]);
                    if nan {
                        assert!(got.is_nan(), "{what}: {got}");
                        continue;
                    }
                    let elems: Vec<f64> = px
                        .iter()
                        .flat_map(|&i| x[i * c..i * c + c].to_vec())
                        .collect();
                    let want = norm_ref(&elems);
                    let tol = (n as f64 + 20.0) * f64::EPSILON / 2.0 * want;
                    assert!((got - want).abs() <= tol, "{what}: {got:e} vs {want:e}");
                    // Each slot against Blue's rule on the host (f32 squares: medium),
                    // within 2(n + 10)·2⁻⁵³ of its value (exact squares and scalings by
                    // powers of two; the sums' roundings, the kernel's and the host's).
                    let (tsml, tbig) = (2f64.powi(-511), 2f64.powi(486));
                    let (ssml, sbig) = (2f64.powi(537), 2f64.powi(-538));
                    let mut want_slots = [0.0f64; 3];
                    for v in &elems {
                        let a = v.abs();
                        match r {
                            R::F64 if a > tbig => want_slots[2] += (a * sbig) * (a * sbig),
                            R::F64 if a < tsml => want_slots[0] += (a * ssml) * (a * ssml),
                            _ => want_slots[1] += a * a,
                        }
                    }
                    for (slot, (g, w)) in sums.iter().zip(want_slots).enumerate() {
                        let tol = 2.0 * (n as f64 + 10.0) * f64::EPSILON / 2.0 * w;
                        assert!((g - w).abs() <= tol, "{what}: slot {slot}: {g:e} vs {w:e}");
                    }
                }
            }
        }
    }
}

#[test]
fn nrm2_matches_the_host_on_every_target() {
    let mut rng = Rng(0x2468_ace0_1357_9bdf);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for dtype in DTYPES {
            check_nrm2(&mut rng, t, &dev, dtype);
        }
    }
}

/// |re| + |im| as the kernel computes it: one addition in the real type.
fn abs1(r: R, e: &[f64]) -> f64 {
    let s = e.iter().map(|v| v.abs()).sum::<f64>();
    r.round(s)
}

/// iamax / iamin: data from a few values (so ties are common) with NaNs sprinkled in;
/// the host combines the partials (better value, then smaller index; index u64::MAX is
/// "none") and must find the first index of the largest (smallest) |re| + |im|, NaN
/// never taken, and its value exactly. An all-NaN vector gives "none" in every partial.
fn check_iamax(rng: &mut Rng, t: IsaTarget, dev: &Device, dtype: DType, max: bool) {
    let (r, c) = R::of(dtype);
    let op = L1Op::Iamax { max };
    for contiguous in [true, false] {
        let p = Level1Params::fallback(op, dtype, contiguous);
        let k = generate(t, &p).unwrap();
        for n in lengths_on(t) {
            for inc in incs_for(rng, contiguous) {
                for all_nan in [false, true] {
                    if all_nan && n != 3 {
                        continue;
                    }
                    let groups = 1 + (rng.next() % 5) as u32;
                    let x: Vec<f64> = (0..blas_len(n, inc.0) * c)
                        .map(|_| {
                            let v = rng.next();
                            if all_nan || v % 17 == 0 {
                                f64::NAN
                            } else {
                                ((v >> 8) % 9) as f64 * 0.75 - 3.0
                            }
                        })
                        .collect();
                    let what = format!(
                        "{op:?} {dtype} {t} contiguous={contiguous} n={n} inc={inc:?} groups={groups}"
                    );
                    let parts = reduce_on(dev, &k, &p, &x, &[], n, inc, groups, &what);
                    let px = positions(n, inc.0);
                    // Host: the first strictly better element; NaN compares false.
                    let mut want: Option<(f64, u64)> = None;
                    for (i, &pi) in px.iter().enumerate() {
                        let a = abs1(r, &x[pi * c..pi * c + c]);
                        let better = match want {
                            None => !a.is_nan(),
                            Some((b, _)) => (max && a > b) || (!max && a < b),
                        };
                        if better {
                            want = Some((a, i as u64));
                        }
                    }
                    // Combine the partials as a host would.
                    let mut got: Option<(f64, u64)> = None;
                    for (g, (&vb, &i)) in parts[0].iter().zip(&parts[1]).enumerate() {
                        let v = f64::from_bits(vb);
                        if i == u64::MAX {
                            let none = if max { -1.0 } else { f64::INFINITY };
                            assert_eq!(v, none, "{what}: group {g} value of no element");
                            continue;
                        }
                        let better = match got {
                            None => true,
                            Some((b, bi)) => {
                                (max && v > b) || (!max && v < b) || (v == b && i < bi)
                            }
                        };
                        if better {
                            got = Some((v, i));
                        }
                    }
                    assert_eq!(got, want, "{what}");
                }
            }
        }
    }
}

#[test]
fn iamax_and_iamin_match_the_host_on_every_target() {
    let mut rng = Rng(0x5eed_0bad_f00d_cafe);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for dtype in DTYPES {
            for max in [true, false] {
                check_iamax(&mut rng, t, &dev, dtype, max);
            }
        }
    }
}

/// Device buffers of raw element bits: 2-byte elements as f16 bits, 4 and 8 as words.
enum Bits {
    Half(rocm_core::DeviceBuffer<rocm_core::f16>),
    Words(rocm_core::DeviceBuffer<u32>, usize),
}

impl Bits {
    fn upload(dev: &Device, size: usize, v: &[u64]) -> Bits {
        match size {
            2 => {
                let h: Vec<rocm_core::f16> = v
                    .iter()
                    .map(|&b| rocm_core::f16::from_bits(b as u16))
                    .collect();
                Bits::Half(dev.upload(&h).unwrap())
            }
            4 => Bits::Words(
                dev.upload(&v.iter().map(|&b| b as u32).collect::<Vec<_>>())
                    .unwrap(),
                4,
            ),
            _ => {
                let w: Vec<u32> = v
                    .iter()
                    .flat_map(|&b| [b as u32, (b >> 32) as u32])
                    .collect();
                Bits::Words(dev.upload(&w).unwrap(), 8)
            }
        }
    }

    fn push(&self, args: &mut KernelArgs) {
        match self {
            Bits::Half(b) => args.push(b),
            Bits::Words(b, _) => args.push(b),
        };
    }

    fn download(&self) -> Vec<u64> {
        match self {
            Bits::Half(b) => b
                .to_vec()
                .unwrap()
                .iter()
                .map(|h| u64::from(h.to_bits()))
                .collect(),
            Bits::Words(b, 4) => b.to_vec().unwrap().iter().map(|&w| u64::from(w)).collect(),
            Bits::Words(b, _) => b
                .to_vec()
                .unwrap()
                .chunks(2)
                .map(|c| u64::from(c[0]) | u64::from(c[1]) << 32)
                .collect(),
        }
    }
}

/// The reference conversion of one element's bits: the `half` crate and Rust's `as`.
fn convert_ref(from: DType, to: DType, b: u64) -> u64 {
    use rocm_core::{bf16, f16};
    let f32_of = |b: u64| f32::from_bits(b as u32);
    match (from, to) {
        (DType::F32, DType::F16) => u64::from(f16::from_f32(f32_of(b)).to_bits()),
        (DType::F32, DType::Bf16) => u64::from(bf16::from_f32(f32_of(b)).to_bits()),
        (DType::F16, DType::F32) => u64::from(f16::from_bits(b as u16).to_f32().to_bits()),
        (DType::Bf16, DType::F32) => u64::from(bf16::from_bits(b as u16).to_f32().to_bits()),
        (DType::F64, DType::F32) => u64::from((f64::from_bits(b) as f32).to_bits()),
        (DType::F32, DType::F64) => f64::from(f32_of(b)).to_bits(),
        _ => unreachable!(),
    }
}

/// Source bits that exercise a conversion: specials (±0, ±∞, quiet and signalling NaNs
/// with payloads, the largest finite values, subnormals, the overflow and underflow
/// edges of the destination), exact rounding ties of the destination, and random bits.
fn convert_source(rng: &mut Rng, from: DType, to: DType) -> u64 {
    let v = rng.next();
    let special: &[u64] = match from {
        DType::F32 => &[
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_1234,
            0x7f80_0001,
            0xff80_2000,
            0x7f7f_ffff,
            0x0000_0001,
            0x807f_ffff,
            0x477f_f000,
            0x477f_efff,
            0x3380_0000,
            0x3300_0000,
            0x3300_0001,
            0x3880_0000,
            0x387f_e000,
            0x7f7f_8000,
        ],
        DType::F64 => &[
            0,
            0x8000_0000_0000_0000,
            0x7ff0_0000_0000_0000,
            0xfff8_0000_0000_0000,
            0x7ff0_0000_0000_0001,
            0x7ff4_5678_9abc_def0,
            0x47ef_ffff_f000_0000,
            0x47ef_ffff_efff_ffff,
            0x36a0_0000_0000_0000,
            0x3690_0000_0000_0000,
            0x3690_0000_0000_0001,
            0x0000_0000_0000_0001,
            0x3810_0000_1000_0000,
        ],
        _ => &[
            0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe55, 0x0001, 0x83ff, 0x7f80, 0x7fc0,
            0x7f81, 0xffff,
        ],
    };
    match v % 8 {
        0 | 1 => special[(v >> 8) as usize % special.len()],
        // A tie: exactly half an ulp of the destination past a destination value.
        2 => match (from, to) {
            (DType::F32, DType::F16) => {
                let h = rocm_core::f16::from_bits((v >> 16) as u16 & 0x7bff);
                u64::from(h.to_f32().to_bits() | 0x1000)
            }
            (DType::F32, DType::Bf16) => (v >> 16) & 0x7f7f_0000 | 0x8000,
            (DType::F64, DType::F32) => (v >> 4) & 0x47ef_ffff_e000_0000 | 0x1000_0000,
            _ => v >> (64 - 8 * from.size()),
        },
        _ => v >> (64 - 8 * from.size()),
    }
}

/// Conversions, bit for bit, at every position; gaps and the guard element unchanged.
fn check_convert(rng: &mut Rng, t: IsaTarget, dev: &Device, from: DType, to: DType) {
    let op = L1Op::Convert { to };
    for contiguous in [true, false] {
        let p = Level1Params::fallback(op, from, contiguous);
        let k = generate(t, &p).unwrap();
        for n in lengths_on(t) {
            for (incx, incy) in incs_for(rng, contiguous) {
                for grid in [1u32, (n as u32).div_ceil(p.block).max(1)] {
                    let x: Vec<u64> = (0..blas_len(n, incx) + 1)
                        .map(|_| convert_source(rng, from, to))
                        .collect();
                    let y0: Vec<u64> = (0..blas_len(n, incy) + 1)
                        .map(|_| rng.next() >> (64 - 8 * to.size()))
                        .collect();
                    let dx = Bits::upload(dev, from.size(), &x);
                    let dy = Bits::upload(dev, to.size(), &y0);
                    let mut args = KernelArgs::new();
                    dx.push(&mut args);
                    dy.push(&mut args);
                    args.push(n as u32).push(grid);
                    if !contiguous {
                        args.push(incx).push(incy);
                    }
                    run(dev, &k, grid, p.block, &args);
                    let mut want = y0.clone();
                    let (px, py) = (positions(n, incx), positions(n, incy));
                    for i in 0..n {
                        want[py[i]] = convert_ref(from, to, x[px[i]]);
                    }
                    let got = dy.download();
                    for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(
                            g, w,
                            "{from}→{to} {t} contiguous={contiguous} n={n} inc=({incx},{incy}) grid={grid}: \
                             y[{j}] = {g:#x}, want {w:#x} (source {:#x?})",
                            py.iter().position(|&q| q == j).map(|i| x[px[i]])
                        );
                    }
                    assert_eq!(dx.download(), x, "{from}→{to} {t}: x changed");
                }
            }
        }
    }
}

const CONVERSIONS: [(DType, DType); 6] = [
    (DType::F32, DType::F16),
    (DType::F32, DType::Bf16),
    (DType::F16, DType::F32),
    (DType::Bf16, DType::F32),
    (DType::F64, DType::F32),
    (DType::F32, DType::F64),
];

#[test]
fn conversions_match_half_and_as_on_every_target() {
    let mut rng = Rng(0xc0c0_a0a0_7070_1313);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for (from, to) in CONVERSIONS {
            check_convert(&mut rng, t, &dev, from, to);
        }
    }
}

/// Every kernel this module generates, contiguous and strided.
fn all_params() -> Vec<Level1Params> {
    let mut out = Vec::new();
    for contiguous in [true, false] {
        for dtype in DTYPES {
            // ALL_OPS lists every op but conversion (fill, rot and rotm included).
            for op in rocm_kernels::level1::ALL_OPS {
                if op == L1Op::Rotm && R::of(dtype).1 == 2 {
                    continue;
                }
                out.push(Level1Params::fallback(op, dtype, contiguous));
            }
        }
        for (from, to) in CONVERSIONS {
            out.push(Level1Params::fallback(
                L1Op::Convert { to },
                from,
                contiguous,
            ));
        }
        for dtype in [DType::F16, DType::Bf16] {
            for op in HALF_OPS {
                out.push(Level1Params::fallback(op, dtype, contiguous));
            }
        }
    }
    out
}

/// LLVM builds the same code objects from our text for every kernel, on one target per
/// family (gfx90a: wave64 with aligned tuples; gfx1100: wave32).
#[test]
fn every_kernel_matches_llvm_on_one_target_per_family() {
    if !tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for t in [IsaTarget::Gfx90a, IsaTarget::Gfx1100] {
        let ks: Vec<AssembledKernel> = all_params()
            .iter()
            .map(|p| generate(t, p).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}")))
            .collect();
        agree(&ks);
    }
}

/// Every kernel builds on every target with 16-byte contiguous accesses and at least 8
/// waves per SIMD (issue 4's bar for copy and axpy, held by all of them).
#[test]
fn every_kernel_builds_on_every_target_with_occupancy() {
    for t in IsaTarget::ALL {
        let mut worst = (u32::MAX, String::new());
        for p in all_params() {
            let k = generate(t, &p).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}"));
            // Contiguous kernels move 16 bytes per lane per access of their wider side:
            // the first load is a dwordx4, or a dwordx2 for the narrow x of a widening
            // conversion (fill loads nothing).
            if p.contiguous && p.op != L1Op::Fill {
                let narrow_x = matches!(p.op, L1Op::Convert { to } if to.size() > p.dtype.size());
                let want = if narrow_x {
                    Op::GlobalLoadDwordx2
                } else {
                    Op::GlobalLoadDwordx4
                };
                let first_load = k
                    .instructions()
                    .iter()
                    .map(|i| i.op)
                    .find(|o| format!("{o:?}").starts_with("GlobalLoad"));
                assert_eq!(first_load, Some(want), "{t} {}", k.name());
            }
            let occ = k.report.occupancy;
            assert!(
                occ >= 8,
                "{t} {}: occupancy {occ} ({:?})",
                k.name(),
                k.report.limiter
            );
            if occ < worst.0 {
                worst = (occ, k.name().to_string());
            }
        }
        println!("{t}: lowest occupancy {} waves/SIMD ({})", worst.0, worst.1);
    }
}

// ---- f16 and bf16 storage ----------------------------------------------------------

/// A 2-byte float type's host side: bits ↔ f64 (exact), rounding from f32 (the `half`
/// crate), unit roundoff and the absolute error floor of its subnormals.
#[derive(Clone, Copy, Debug)]
struct Half(DType);

impl Half {
    fn to_f64(self, b: u64) -> f64 {
        match self.0 {
            DType::F16 => rocm_core::f16::from_bits(b as u16).to_f64(),
            _ => rocm_core::bf16::from_bits(b as u16).to_f64(),
        }
    }

    fn round_f32(self, x: f32) -> u64 {
        u64::from(match self.0 {
            DType::F16 => rocm_core::f16::from_f32(x).to_bits(),
            _ => rocm_core::bf16::from_f32(x).to_bits(),
        })
    }

    fn u(self) -> f64 {
        match self.0 {
            DType::F16 => 2f64.powi(-11),
            _ => 2f64.powi(-8),
        }
    }

    /// Half the smallest subnormal: the absolute rounding error below the normal range.
    fn floor(self) -> f64 {
        match self.0 {
            DType::F16 => 2f64.powi(-25),
            _ => 2f64.powi(-134),
        }
    }

    fn random(self, rng: &mut Rng, len: usize) -> Vec<u64> {
        (0..len)
            .map(|_| self.round_f32((rng.unit() * 10.0) as f32))
            .collect()
    }
}

/// f16/bf16 scal, axpby, fill, copy, swap and dot. Arithmetic runs in f32 (α, β are f32
/// arguments) and rounds once to the storage type, so each result is within
/// `(u_h + 2m·u₃₂)·Σ|terms| + floor` of the exact value (m f32 roundings of at most
/// Σ|terms| each, then one rounding to the storage type: u_h relative, or the subnormal
/// floor absolute); copy, swap and fill (α rounded by the `half` crate) are exact; dot,
/// sum and asum accumulate in f32 and are held to `2(n + 10)·u₃₂·Σ|terms|` as for f32
/// data; nrm2 (f32 squares in f64's medium slot) to the f64 bound of `check_nrm2`;
/// iamax/iamin (with NaNs in the data) exactly, as `check_iamax`.
fn check_half(rng: &mut Rng, t: IsaTarget, dev: &Device, op: L1Op, dtype: DType) {
    let h = Half(dtype);
    let u32_ = f64::from(f32::EPSILON) / 2.0;
    for contiguous in [true, false] {
        let p = Level1Params::fallback(op, dtype, contiguous);
        let k = generate(t, &p).unwrap();
        for n in lengths_on(t) {
            for (incx, incy) in incs_for(rng, contiguous) {
                for grid in [1u32, (n as u32).div_ceil(p.block).max(1)] {
                    let mut x0 = h.random(rng, blas_len(n, incx) + 1);
                    let y0 = h.random(rng, blas_len(n, incy) + 1);
                    if matches!(op, L1Op::Iamax { .. }) {
                        // NaNs, which iamax/iamin never take.
                        let nan = if dtype == DType::F16 { 0x7e00 } else { 0x7fc0 };
                        for v in x0.iter_mut() {
                            if rng.next() % 13 == 0 {
                                *v = nan;
                            }
                        }
                    }
                    let (alpha, beta) = ((rng.unit() * 3.0) as f32, (rng.unit() * 3.0) as f32);
                    // rotm's h11, h21, h12, h22 (rot: c = α, s = β).
                    let hm: [f32; 4] = std::array::from_fn(|_| (rng.unit() * 3.0) as f32);
                    let dx = Bits::upload(dev, 2, &x0);
                    let dy = Bits::upload(dev, 2, &y0);
                    // Reductions: f64 partials, `slots` per workgroup.
                    let slots = rocm_kernels::level1::partial_slots(op, dtype);
                    let dp = op.is_reduction().then(|| {
                        dev.upload(&vec![f64::from_bits(CANARY); slots * grid as usize])
                            .unwrap()
                    });
                    let mut args = KernelArgs::new();
                    dx.push(&mut args);
                    if op.has_y() {
                        dy.push(&mut args);
                    }
                    args.push(n as u32).push(grid);
                    if !contiguous {
                        args.push(incx);
                        if op.has_y() {
                            args.push(incy);
                        }
                    }
                    match op {
                        L1Op::Scal | L1Op::Fill => {
                            args.push(alpha.to_bits());
                        }
                        L1Op::Axpby { .. } | L1Op::Rot => {
                            args.push(alpha.to_bits()).push(beta.to_bits());
                        }
                        L1Op::Rotm => {
                            for v in hm {
                                args.push(v.to_bits());
                            }
                        }
                        _ => {}
                    }
                    if let Some(dp) = &dp {
                        args.push(dp);
                    }
                    run(dev, &k, grid, p.block, &args);
                    let what = format!(
                        "{op:?} {dtype} {t} contiguous={contiguous} n={n} inc=({incx},{incy}) grid={grid}"
                    );
                    let (px, py) = (positions(n, incx), positions(n, incy));
                    let (gx, gy) = (dx.download(), dy.download());
                    let (a, b) = (f64::from(alpha), f64::from(beta));
                    if let Some(dp) = dp {
                        let parts: Vec<f64> = dp.to_vec().unwrap();
                        assert!(
                            parts.iter().all(|v| v.to_bits() != CANARY),
                            "{what}: a partial was not written"
                        );
                        let slot = |s: usize| &parts[s * grid as usize..(s + 1) * grid as usize];
                        let xs: Vec<f64> = px.iter().map(|&i| h.to_f64(x0[i])).collect();
                        let terms: Vec<f64> = match op {
                            L1Op::Dot { .. } => {
                                (0..n).map(|i| xs[i] * h.to_f64(y0[py[i]])).collect()
                            }
                            L1Op::Asum => xs.iter().map(|v| v.abs()).collect(),
                            _ => xs.clone(),
                        };
                        match op {
                            L1Op::Nrm2 => {
                                // f32 squares are exact in f64: the f64 bound of nrm2.
                                let sums: Vec<f64> = (0..3).map(|s| slot(s).iter().sum()).collect();
                                let got =
                                    rocm_kernels::level1::blue_finish(sums[0], sums[1], sums[2]);
                                let want = norm_ref(&xs);
                                let tol = (n as f64 + 20.0) * f64::EPSILON / 2.0 * want;
                                assert!((got - want).abs() <= tol, "{what}: {got:e} vs {want:e}");
                                assert_eq!(
                                    (sums[0], sums[2]),
                                    (0.0, 0.0),
                                    "{what}: small/big slots"
                                );
                            }
                            L1Op::Iamax { max } => {
                                let mut want: Option<(f64, u64)> = None;
                                for (i, a) in xs.iter().map(|v| v.abs()).enumerate() {
                                    let better = match want {
                                        None => !a.is_nan(),
                                        Some((b, _)) => (max && a > b) || (!max && a < b),
                                    };
                                    if better {
                                        want = Some((a, i as u64));
                                    }
                                }
                                let mut got: Option<(f64, u64)> = None;
                                for (&v, &ib) in slot(0).iter().zip(slot(1)) {
                                    let i = ib.to_bits();
                                    if i == u64::MAX {
                                        continue;
                                    }
                                    let better = match got {
                                        None => true,
                                        Some((b, bi)) => {
                                            (max && v > b) || (!max && v < b) || (v == b && i < bi)
                                        }
                                    };
                                    if better {
                                        got = Some((v, i));
                                    }
                                }
                                assert_eq!(got, want, "{what}");
                            }
                            _ => {
                                let got: f64 = slot(0).iter().sum();
                                let want: f64 = terms.iter().sum();
                                let abs: f64 = terms.iter().map(|v| v.abs()).sum();
                                let tol = 2.0 * (n as f64 + 10.0) * u32_ * abs;
                                assert!((got - want).abs() <= tol, "{what}: {got:e} vs {want:e}");
                            }
                        }
                        continue;
                    }
                    // (position, exact value, terms' magnitude, f32 roundings) per output.
                    let mut wx: Vec<Option<(f64, f64, f64)>> = vec![None; x0.len()];
                    let mut wy: Vec<Option<(f64, f64, f64)>> = vec![None; y0.len()];
                    let (mut ex, mut ey) = (x0.clone(), y0.clone());
                    for i in 0..n {
                        let (xv, yv) = (h.to_f64(x0[px[i]]), h.to_f64(y0[py[i]]));
                        match op {
                            L1Op::Copy => ey[py[i]] = x0[px[i]],
                            L1Op::Swap => {
                                ex[px[i]] = y0[py[i]];
                                ey[py[i]] = x0[px[i]];
                            }
                            L1Op::Fill => ex[px[i]] = h.round_f32(alpha),
                            L1Op::Scal => wx[px[i]] = Some((a * xv, (a * xv).abs(), 1.0)),
                            L1Op::Axpby { read_y: true } => {
                                let s = (a * xv).abs() + (b * yv).abs();
                                wy[py[i]] = Some((a * xv + b * yv, s, 2.0));
                            }
                            L1Op::Rot | L1Op::Rotm => {
                                // x' = p·x + q·y, y' = r·x + t·y (rot: c, s, −s, c).
                                let [p, q, r, t] = if op == L1Op::Rot {
                                    [a, b, -b, a]
                                } else {
                                    let [h11, h21, h12, h22] = hm.map(f64::from);
                                    [h11, h12, h21, h22]
                                };
                                let ox = [p * xv, q * yv];
                                let oy = [r * xv, t * yv];
                                let mag = |v: [f64; 2]| v[0].abs() + v[1].abs();
                                wx[px[i]] = Some((ox[0] + ox[1], mag(ox), 2.0));
                                wy[py[i]] = Some((oy[0] + oy[1], mag(oy), 2.0));
                            }
                            _ => wy[py[i]] = Some((a * xv, (a * xv).abs(), 1.0)),
                        }
                    }
                    for (name, got, exact, approx) in [("x", &gx, &ex, &wx), ("y", &gy, &ey, &wy)] {
                        for (j, g) in got.iter().enumerate() {
                            match approx[j] {
                                None => assert_eq!(
                                    g, &exact[j],
                                    "{what}: {name}[{j}] = {g:#x}, want {:#x}",
                                    exact[j]
                                ),
                                Some((w, s, m)) => {
                                    let gv = h.to_f64(*g);
                                    let tol = (h.u() + 2.0 * m * u32_) * s + h.floor();
                                    assert!(
                                        (gv - w).abs() <= tol,
                                        "{what}: {name}[{j}] = {gv:e}, want {w:e} (tol {tol:e})"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The ops generated for f16 and bf16.
const HALF_OPS: [L1Op; 14] = [
    L1Op::Copy,
    L1Op::Swap,
    L1Op::Fill,
    L1Op::Scal,
    L1Op::Axpby { read_y: true },
    L1Op::Axpby { read_y: false },
    L1Op::Dot { conj: false },
    L1Op::Sum,
    L1Op::Asum,
    L1Op::Nrm2,
    L1Op::Iamax { max: true },
    L1Op::Iamax { max: false },
    L1Op::Rot,
    L1Op::Rotm,
];

#[test]
fn f16_and_bf16_ops_match_the_host_on_every_target() {
    let mut rng = Rng(0x1616_bfbf_1616_bfbf);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for dtype in [DType::F16, DType::Bf16] {
            for op in HALF_OPS {
                check_half(&mut rng, t, &dev, op, dtype);
            }
        }
    }
}

/// `Level1::generate` on an AMD target hands back this module's code object: one kernel
/// named by `kernel_name`, launched over a fixed grid for reductions and covering the
/// vector otherwise.
#[test]
fn the_level1_generator_builds_these_kernels_for_amd_targets() {
    use rocm_kernels::generator::{Generator, LaunchRule};
    use rocm_kernels::level1::Level1;
    for t in [IsaTarget::Gfx942, IsaTarget::Gfx1151] {
        let target: rocm_core::Target = t.name().parse().unwrap();
        for p in all_params() {
            let prog = Level1::generate(&p, &target).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            assert!(matches!(prog.image, ModuleImage::CodeObject(_)), "{p:?}");
            assert_eq!(
                prog.kernels,
                vec![rocm_kernels::amdgpu::level1::kernel_name(&p)]
            );
            let fixed = matches!(prog.launch, LaunchRule::Fixed { grid, block } if grid == p.grid && block == p.block);
            assert_eq!(fixed, p.op.is_reduction(), "{p:?}: {:?}", prog.launch);
        }
    }
}

// ---- The final pass of the sum reductions ---------------------------------------------

use rocm_kernels::amdgpu::level1::finish as amd_finish;
use rocm_kernels::level1::finish::{finish_index, finish_sum, FinishParams, FINISH_LANES};

/// The sum reductions' finish programs the AMDGPU generator covers, with each result
/// type.
fn sum_finishes() -> Vec<FinishParams> {
    let mut out = Vec::new();
    for op in [
        L1Op::Dot { conj: false },
        L1Op::Dot { conj: true },
        L1Op::Sum,
        L1Op::Asum,
    ] {
        for dtype in [
            DType::F16,
            DType::Bf16,
            DType::F32,
            DType::F64,
            DType::C32,
            DType::C64,
        ] {
            let outs: &[DType] = match op {
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

/// Every emulated target runs the sum finishes against the host order
/// (`finish_sum`, rounded as `as`) bit for bit, for grids around the 64 lanes, with
/// signed partials of mixed magnitudes (−0.0 among them); bytes past the result keep
/// their sentinel. nrm2 and iamax/iamin have no AMDGPU finish: `Unsupported`.
#[test]
fn sum_finishes_match_the_host_order_on_every_target() {
    let mut rng = Rng(0xf1_715e);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for p in sum_finishes() {
            let k = amd_finish::generate(t, &p).unwrap();
            let slots = p.slots();
            for grid in [0usize, 1, 5, 64, 65, 130, 1031] {
                let partials: Vec<f64> = (0..slots * grid)
                    .map(|_| match rng.next() % 8 {
                        0 => -0.0,
                        1 => rng.unit() * 1e17,
                        _ => rng.unit(),
                    })
                    .collect();
                let mut padded = partials.clone();
                padded.push(0.0);
                let pd = dev.upload(&padded).unwrap();
                let size = p.out.size();
                let rd = dev.upload(&vec![0xa5u8; size + 8]).unwrap();
                let mut args = KernelArgs::new();
                args.push_pointer(pd.address(), &dev)
                    .push_pointer(rd.address(), &dev)
                    .push(grid as u32);
                run(&dev, &k, 1, FINISH_LANES, &args);
                let got = rd.to_vec().unwrap();
                let mut want = Vec::new();
                for s in 0..if p.out.is_complex() { 2 } else { 1 } {
                    let v = if grid == 0 {
                        0.0
                    } else {
                        finish_sum(&partials[s * grid..(s + 1) * grid])
                    };
                    match p.out {
                        DType::F32 | DType::C32 => want.extend((v as f32).to_le_bytes()),
                        _ => want.extend(v.to_le_bytes()),
                    }
                }
                assert_eq!(&got[..size], &want[..], "{p:?} grid {grid} on {t}");
                assert!(got[size..].iter().all(|b| *b == 0xa5), "{p:?} on {t}");
            }
        }
        let p = FinishParams {
            op: L1Op::Nrm2,
            dtype: DType::F64,
            out: DType::F64,
        };
        assert!(matches!(
            amd_finish::generate(t, &p),
            Err(Error::Unsupported { .. })
        ));
    }
}

/// The iamax/iamin finishes against `finish_index` on every emulated target: values
/// from a small set (ties across workgroups) with distinct 32-bit indices, a fifth of
/// the workgroups empty (identity value, index u64::MAX as the first pass writes it).
#[test]
fn index_finishes_match_the_host_on_every_target() {
    let mut rng = Rng(0x1_dea5);
    for t in IsaTarget::ALL {
        let dev = emu(t);
        for max in [true, false] {
            for dtype in [DType::F32, DType::C64] {
                let p = FinishParams {
                    op: L1Op::Iamax { max },
                    dtype,
                    out: DType::I64,
                };
                let k = amd_finish::generate(t, &p).unwrap();
                for grid in [0usize, 1, 5, 64, 65, 130, 1031] {
                    let mut values = Vec::new();
                    let mut idx = Vec::new();
                    for g in 0..grid {
                        if rng.next() % 5 == 0 {
                            values.push(if max { -1.0 } else { f64::INFINITY });
                            idx.push(f64::from_bits(u64::MAX));
                        } else {
                            values.push((rng.next() % 4) as f64 * 0.5);
                            idx.push(f64::from_bits(g as u64 * 1000 + rng.next() % 1000));
                        }
                    }
                    let mut partials = values.clone();
                    partials.extend(&idx);
                    partials.push(0.0);
                    let pd = dev.upload(&partials).unwrap();
                    let rd = dev.upload(&[0xa5u8; 16]).unwrap();
                    let mut args = KernelArgs::new();
                    args.push_pointer(pd.address(), &dev)
                        .push_pointer(rd.address(), &dev)
                        .push(grid as u32);
                    run(&dev, &k, 1, FINISH_LANES, &args);
                    let got = rd.to_vec().unwrap();
                    let want: i64 = if grid == 0 {
                        0
                    } else {
                        finish_index(&values, &idx, max).map_or(1, |i| i as i64 + 1)
                    };
                    assert_eq!(&got[..8], &want.to_le_bytes(), "{p:?} grid {grid} on {t}");
                    assert!(got[8..].iter().all(|b| *b == 0xa5), "{p:?} on {t}");
                }
            }
        }
    }
}

/// LLVM's assembler builds the same bytes for every sum and index finish, on every
/// target.
#[test]
fn sum_finishes_match_llvm() {
    if !tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for t in IsaTarget::ALL {
        let mut finishes = sum_finishes();
        for max in [true, false] {
            finishes.push(FinishParams {
                op: L1Op::Iamax { max },
                dtype: DType::F64,
                out: DType::I64,
            });
        }
        let ks: Vec<AssembledKernel> = finishes
            .iter()
            .map(|p| amd_finish::generate(t, p).unwrap())
            .collect();
        agree(&ks);
    }
}
