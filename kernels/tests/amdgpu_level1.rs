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

use common::{agree, tools_present};

fn emu(t: IsaTarget) -> Option<Device> {
    match Device::open(&format!("emu:{}", t.name())) {
        Ok(d) => Some(d),
        Err(e @ Error::Unsupported { .. }) => {
            println!("skipped: {e}");
            None
        }
        Err(e) => panic!("emu:{t}: {e}"),
    }
}

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
            alpha.push(&mut args);
            if read_y {
                beta.push(&mut args);
            }
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
                if op == (L1Op::Axpby { read_y: true }) {
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
        let Some(dev) = emu(t) else { return };
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
        let Some(dev) = emu(t) else { return };
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
        let Some(dev) = emu(t) else { return };
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
        let Some(dev) = emu(t) else { return };
        check_copy::<f32>(&mut rng, t, &dev);
        check_copy::<f64>(&mut rng, t, &dev);
    }
}

#[test]
fn scal_and_axpby_match_the_host_on_every_target() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for t in IsaTarget::ALL {
        let Some(dev) = emu(t) else { return };
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
    let strided = Level1Params::fallback(L1Op::Nrm2, DType::F32, false);
    assert!(matches!(
        generate(t, &strided),
        Err(Error::Unsupported { .. })
    ));
    let complex_scal = params(L1Op::Scal, DType::C32);
    assert!(matches!(
        generate(t, &complex_scal),
        Err(Error::Unsupported { .. })
    ));
    let dot = params(L1Op::Nrm2, DType::F32);
    assert!(matches!(generate(t, &dot), Err(Error::Unsupported { .. })));
    let mut bad = params(L1Op::Copy, DType::F32);
    bad.block = 48;
    assert!(generate(t, &bad).is_err());
    bad.block = 256;
    bad.vector_bytes = 8;
    assert!(generate(t, &bad).is_err());
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
