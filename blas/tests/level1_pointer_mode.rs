//! Host and device pointer mode of the Level 1 reductions' `_into` forms, on the CPU,
//! every emulated AMD target and CUDA (skipped with a printed reason when absent).
//!
//! For every reduction (dot, dotc, sum, asum, nrm2, iamax, iamin; dot_ex, nrm2_ex on
//! f16/bf16) × dtype × case: the `_into` result in host mode and in device mode (read
//! after synchronising the stream) must be the same bits as the value-returning
//! routine, element 0 of the result view only is written (its neighbours keep a
//! sentinel), and the value must match `rocm_blas::reference` within
//! `(m + 64 + 64 + 10)·ε·Σ|terms|` for the sums — m the terms one work-item adds in
//! the first pass (at most n), the two 64s the finish pass's lane and lane-sum
//! additions (each an f64 rounding, far below ε of f32), 10 the workgroup trees —
//! (complex ×4), nrm2 within `(n + 16)·ε·‖x‖`, iamax/iamin exactly (random data has no
//! ties). Lengths: 0, 1, 2, wave32/64 ± 1, primes; increments ±1..3.

mod common;

use common::emu::EMU_TARGETS;

use common::{abs, assert_close, eps, random_vec, rng};
use half::{bf16, f16};
use rocm_blas::{reference, Blas, Half, PointerMode, Scalar};
use rocm_core::{
    BackendKind, BufferSliceMut, Complex32, Complex64, Device, Element, Error, Result,
};
use std::fmt::Debug;

/// A result type: a value the routine never returns here (to guard the neighbours).
trait Res: Element + Debug {
    fn sentinel() -> Self;
}
impl Res for f32 {
    fn sentinel() -> Self {
        -12345.5
    }
}
impl Res for f64 {
    fn sentinel() -> Self {
        -12345.5
    }
}
impl Res for Complex32 {
    fn sentinel() -> Self {
        Complex32::new(-12345.5, 777.25)
    }
}
impl Res for Complex64 {
    fn sentinel() -> Self {
        Complex64::new(-12345.5, 777.25)
    }
}
impl Res for i64 {
    fn sentinel() -> Self {
        -99
    }
}

/// Bit-level equality (Debug prints the shortest exact form, −0.0 included).
fn same<R: Debug>(a: &R, b: &R) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Runs `into` in both pointer modes on the middle element of a 3-element buffer and
/// checks it equals `want` bit for bit and leaves the neighbours alone.
fn both_modes<R: Res>(
    blas: &mut Blas,
    what: &str,
    want: R,
    into: impl Fn(&Blas, &mut BufferSliceMut<'_, R>) -> Result<()>,
) -> Result<()> {
    for mode in [PointerMode::Host, PointerMode::Device] {
        blas.set_pointer_mode(mode);
        let s = R::sentinel();
        let mut buf = blas.device().upload(&[s, s, s])?;
        into(blas, &mut buf.slice_mut(1..2)?)?;
        blas.stream().synchronize()?;
        let got = buf.to_vec()?;
        assert!(
            same(&got[1], &want),
            "{what} ({mode:?} mode): {:?}, value-returning form gave {want:?}",
            got[1]
        );
        assert!(
            same(&got[0], &s) && same(&got[2], &s),
            "{what} ({mode:?} mode): wrote outside the result: {got:?}"
        );
    }
    blas.set_pointer_mode(PointerMode::Host);
    Ok(())
}

/// Logical elements of an `n`-vector at `inc` in `buf` (BLAS order).
fn logical<T: Copy>(buf: &[T], n: usize, inc: isize) -> Vec<T> {
    (0..n)
        .map(|i| {
            let k = if inc >= 0 {
                i * inc as usize
            } else {
                (n - 1 - i) * inc.unsigned_abs()
            };
            buf[k]
        })
        .collect()
}

fn extent(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    }
}

/// Every BLAS reduction on `T` for one case.
fn check<T: Scalar + Res>(dev: &Device, n: usize, incx: isize, incy: isize, seed: u64) -> Result<()>
where
    T::Real: Res,
{
    let mut blas = Blas::new(dev);
    let mut r = rng(seed);
    let xh: Vec<T> = random_vec(&mut r, extent(n, incx).max(1));
    let yh: Vec<T> = random_vec(&mut r, extent(n, incy).max(1));
    let (xd, yd) = (dev.upload(&xh)?, dev.upload(&yh)?);
    let (x, y) = (xd.slice(..extent(n, incx))?, yd.slice(..extent(n, incy))?);
    let (xs, ys) = (logical(&xh, n, incx), logical(&yh, n, incy));
    let what = |r: &str| format!("{}{r} n={n} incx={incx} incy={incy} on {dev}", T::PREFIX);
    // Tolerance terms of the sums (module docs).
    let terms = (n + 64 + 64 + 10) as f64;

    for conj in [false, true] {
        let name = if conj { "dotc" } else { "dot" };
        let v = if conj {
            blas.dotc(n, &x, incx, &y, incy)?
        } else {
            blas.dot(n, &x, incx, &y, incy)?
        };
        let (want, mag) = reference::dot(n, &xs, 1, &ys, 1, conj);
        assert_close(v, want, mag, terms, &what(name));
        both_modes(&mut blas, &what(name), v, |b, res| {
            if conj {
                b.dotc_into(n, &x, incx, &y, incy, res)
            } else {
                b.dot_into(n, &x, incx, &y, incy, res)
            }
        })?;
    }

    let v = blas.sum(n, &x, incx)?;
    let ones = vec![T::one(); n];
    let (want, _) = reference::dot(n, &xs, 1, &ones, 1, false);
    let mag: f64 = xs.iter().map(|a| abs(*a)).sum();
    assert_close(v, want, mag, terms, &what("sum"));
    both_modes(&mut blas, &what("sum"), v, |b, res| {
        b.sum_into(n, &x, incx, res)
    })?;

    let v = blas.asum(n, &x, incx)?;
    let want = reference::asum(n, &xs, 1);
    assert_close(v, want, want, terms, &what("asum"));
    both_modes(&mut blas, &what("asum"), v, |b, res| {
        b.asum_into(n, &x, incx, res)
    })?;

    let v = blas.nrm2(n, &x, incx)?;
    let want = reference::nrm2(n, &xs, 1);
    assert_close(v, want, want, (n + 16) as f64, &what("nrm2"));
    both_modes(&mut blas, &what("nrm2"), v, |b, res| {
        b.nrm2_into(n, &x, incx, res)
    })?;

    for max in [true, false] {
        let name = if max { "iamax" } else { "iamin" };
        let v = if max {
            blas.iamax(n, &x, incx)?
        } else {
            blas.iamin(n, &x, incx)?
        };
        assert_eq!(v, reference::iamax(n, &xs, 1, max), "{}", what(name));
        both_modes(&mut blas, &what(name), v as i64, |b, res| {
            if max {
                b.iamax_into(n, &x, incx, res)
            } else {
                b.iamin_into(n, &x, incx, res)
            }
        })?;
    }
    Ok(())
}

/// A 16-bit type's conversions from and to f32.
type Conversions<T> = (fn(f32) -> T, fn(T) -> f32);

/// dot_ex and nrm2_ex on a 16-bit type for one case.
fn check_half<T: Half>(
    dev: &Device,
    (from, to): Conversions<T>,
    n: usize,
    incx: isize,
    incy: isize,
    seed: u64,
) -> Result<()> {
    let mut blas = Blas::new(dev);
    let mut r = rng(seed);
    let xw: Vec<f32> = random_vec(&mut r, extent(n, incx).max(1));
    let yw: Vec<f32> = random_vec(&mut r, extent(n, incy).max(1));
    let xh: Vec<T> = xw.iter().map(|v| from(*v)).collect();
    let yh: Vec<T> = yw.iter().map(|v| from(*v)).collect();
    let (xd, yd) = (dev.upload(&xh)?, dev.upload(&yh)?);
    let (x, y) = (xd.slice(..extent(n, incx))?, yd.slice(..extent(n, incy))?);
    let xs: Vec<f64> = logical(&xh, n, incx)
        .iter()
        .map(|v| to(*v) as f64)
        .collect();
    let ys: Vec<f64> = logical(&yh, n, incy)
        .iter()
        .map(|v| to(*v) as f64)
        .collect();
    let what = |r: &str| format!("{r}<{:?}> n={n} incx={incx} incy={incy} on {dev}", T::DTYPE);

    let v = blas.dot_ex(n, &x, incx, &y, incy)?;
    let want: f64 = xs.iter().zip(&ys).map(|(a, b)| a * b).sum();
    let mag: f64 = xs.iter().zip(&ys).map(|(a, b)| (a * b).abs()).sum();
    // f32 accumulation: (m + lanes + 10)·2⁻²⁴ relative to Σ|terms|.
    let bound = (n + 64 + 64 + 10) as f64 * eps::<f32>() * mag + f64::from(f32::MIN_POSITIVE);
    assert!(
        (v as f64 - want).abs() <= bound,
        "{}: {v} vs {want}",
        what("dot_ex")
    );
    both_modes(&mut blas, &what("dot_ex"), v, |b, res| {
        b.dot_ex_into(n, &x, incx, &y, incy, res)
    })?;

    let v = blas.nrm2_ex(n, &x, incx)?;
    let want = xs.iter().map(|a| a * a).sum::<f64>().sqrt();
    // Squares exact in f64, f64 sum, one rounding to f32.
    let bound = 2.0 * eps::<f32>() * want + f64::from(f32::MIN_POSITIVE);
    assert!(
        (v as f64 - want).abs() <= bound,
        "{}: {v} vs {want}",
        what("nrm2_ex")
    );
    both_modes(&mut blas, &what("nrm2_ex"), v, |b, res| {
        b.nrm2_ex_into(n, &x, incx, res)
    })?;
    Ok(())
}

/// Lengths (0, 1, 2, wave32/64 ± 1, primes) with increments ±1..3, seeded.
fn cases(extra: &[usize]) -> Vec<(usize, isize, isize, u64)> {
    let incs = [1isize, -1, 2, -3, 3, -2];
    [0usize, 1, 2, 31, 33, 63, 65, 97, 263]
        .iter()
        .chain(extra)
        .enumerate()
        .map(|(k, &n)| {
            (
                n,
                incs[k % incs.len()],
                incs[(k + 2) % incs.len()],
                k as u64,
            )
        })
        .collect()
}

fn check_device(dev: &Device, extra: &[usize]) {
    for (n, incx, incy, seed) in cases(extra) {
        // Contiguous and strided variants of each length.
        for (ix, iy) in [(1, 1), (incx, incy)] {
            check::<f32>(dev, n, ix, iy, seed).unwrap();
            check::<f64>(dev, n, ix, iy, seed).unwrap();
            check::<Complex32>(dev, n, ix, iy, seed).unwrap();
            check::<Complex64>(dev, n, ix, iy, seed).unwrap();
            check_half(dev, (f16::from_f32, f16::to_f32), n, ix, iy, seed).unwrap();
            check_half(dev, (bf16::from_f32, bf16::to_f32), n, ix, iy, seed).unwrap();
        }
    }
}

#[test]
fn pointer_modes_agree_on_the_cpu() {
    check_device(&Device::cpu(), &[5_000]);
}

#[test]
fn pointer_modes_agree_on_every_emulated_target() {
    for target in EMU_TARGETS {
        match Device::open(&format!("emu:{target}")) {
            Ok(dev) => check_device(&dev, &[]),
            Err(e @ Error::Unsupported { .. }) => println!("skipped: emu:{target}: {e}"),
            Err(e) => panic!("emu:{target}: {e}"),
        }
    }
}

#[test]
fn pointer_modes_agree_on_cuda() {
    let found: Vec<Device> = Device::enumerate()
        .into_iter()
        .filter_map(|d| Device::open(&d.id).ok())
        .filter(|d| d.kind() == BackendKind::Cuda)
        .collect();
    if found.is_empty() {
        eprintln!("skipped: no CUDA device present for the pointer-mode tests");
    }
    for dev in found {
        // Past one grid of partials per finish lane (2112 workgroups and more).
        check_device(&dev, &[100_003, 3_000_017]);
    }
}

#[test]
fn result_buffer_errors_are_reported() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let x = dev.upload(&[1.0f32, 2.0]).unwrap();
    let mut empty = dev.upload::<f32>(&[]).unwrap();
    let err = blas
        .nrm2_into(2, &x.as_slice(), 1, &mut empty.as_slice_mut())
        .unwrap_err();
    assert!(format!("{err}").contains("result"), "{err}");
}
