//! Level 1 against the reference on every dtype, with lengths around the parallel chunk
//! size, odd lengths, and positive and negative increments.
//!
//! Tolerances (ε the dtype's epsilon, × 4 for complex arithmetic):
//! - axpy/axpby: one multiply-add per element: 2ε·(|α x| + |β y|).
//! - dot/dotc/sum/asum: n-term sums: (n + 1)ε·Σ|terms|.
//! - nrm2: scaled two-pass sum of squares: (n + 4)ε·‖x‖.
//! - rot: two products and a sum per element: 3ε·(|c||x| + |s||y|).
//! - scal/copy/swap/iamax: exact (the same single operation or none).

mod common;

use common::*;
use proptest::prelude::*;
use rocm_blas::{reference, Blas, Real, Scalar};
use rocm_core::{Complex32, Complex64, Device, Error};

fn strided<T: Scalar>(r: &mut Rng64, n: usize, inc: isize) -> Vec<T> {
    random_vec(r, rocm_blas::check::vector_extent(n, inc).max(1))
}

fn check_l1<T: Scalar>(dev: &Device, n: usize, incx: isize, incy: isize, seed: u64) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let x: Vec<T> = strided(&mut r, n, incx);
    let y: Vec<T> = strided(&mut r, n, incy);
    let (alpha, beta): (T, T) = (random(&mut r), random(&mut r));
    let idx = |i: usize, inc: isize| rocm_blas::check::vector_index(i, n, inc);
    let xd = dev.upload(&x).unwrap();
    let p = T::PREFIX;

    // axpby and axpy
    for (b, name) in [(beta, "axpby"), (T::one(), "axpy")] {
        let mut yd = dev.upload(&y).unwrap();
        if name == "axpy" {
            blas.axpy(n, alpha, &xd.as_slice(), incx, &mut yd.as_slice_mut(), incy)
                .unwrap();
        } else {
            blas.axpby(
                n,
                alpha,
                &xd.as_slice(),
                incx,
                b,
                &mut yd.as_slice_mut(),
                incy,
            )
            .unwrap();
        }
        let got = yd.to_vec().unwrap();
        for i in 0..n {
            let (xv, yv) = (x[idx(i, incx)], y[idx(i, incy)]);
            let want = alpha.widen() * xv.widen() + b.widen() * yv.widen();
            let mag = abs(alpha) * abs(xv) + abs(b) * abs(yv);
            assert_close(
                got[idx(i, incy)],
                want,
                mag,
                2.0,
                &format!("{p}{name} n={n} i={i}"),
            );
        }
    }

    // dot, dotc
    let yd = dev.upload(&y).unwrap();
    for conj in [false, true] {
        let got = if conj {
            blas.dotc(n, &xd.as_slice(), incx, &yd.as_slice(), incy)
        } else {
            blas.dot(n, &xd.as_slice(), incx, &yd.as_slice(), incy)
        }
        .unwrap();
        let (want, mag) = reference::dot(n, &x, incx, &y, incy, conj);
        assert_close(
            got,
            want,
            mag,
            (n + 1) as f64,
            &format!("{p}dot conj={conj} n={n}"),
        );
    }

    // sum, asum, nrm2
    let got = blas.sum(n, &xd.as_slice(), incx).unwrap();
    let ones = vec![T::one(); n.max(1)];
    let (want, mag) = reference::dot(n, &x, incx, &ones, 1, false);
    assert_close(got, want, mag, (n + 1) as f64, &format!("{p}sum n={n}"));
    let got = blas.asum(n, &xd.as_slice(), incx).unwrap();
    let want = reference::asum(n, &x, incx);
    assert_close(got, want, want, (n + 1) as f64, &format!("{p}asum n={n}"));
    let got = blas.nrm2(n, &xd.as_slice(), incx).unwrap();
    let want = reference::nrm2(n, &x, incx);
    assert_close(got, want, want, (n + 4) as f64, &format!("{p}nrm2 n={n}"));

    // iamax, iamin: exact
    assert_eq!(
        blas.iamax(n, &xd.as_slice(), incx).unwrap(),
        reference::iamax(n, &x, incx, true)
    );
    assert_eq!(
        blas.iamin(n, &xd.as_slice(), incx).unwrap(),
        reference::iamax(n, &x, incx, false)
    );

    // scal: one (complex) product; copy, swap: exact
    let mut sd = dev.upload(&x).unwrap();
    blas.scal(n, alpha, &mut sd.as_slice_mut(), incx).unwrap();
    let got = sd.to_vec().unwrap();
    for i in 0..n {
        let xv = x[idx(i, incx)];
        let want = alpha.widen() * xv.widen();
        assert_close(
            got[idx(i, incx)],
            want,
            abs(alpha) * abs(xv),
            2.0,
            &format!("{p}scal"),
        );
    }
    let mut cd = dev.upload(&y).unwrap();
    blas.copy(n, &xd.as_slice(), incx, &mut cd.as_slice_mut(), incy)
        .unwrap();
    let got = cd.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(got[idx(i, incy)], x[idx(i, incx)], "{p}copy");
    }
    let (mut a, mut b) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
    blas.swap(n, &mut a.as_slice_mut(), incx, &mut b.as_slice_mut(), incy)
        .unwrap();
    let (ga, gb) = (a.to_vec().unwrap(), b.to_vec().unwrap());
    for i in 0..n {
        let ctx = format!("{p}swap n={n} incx={incx} incy={incy} i={i} on {dev}");
        assert_eq!(ga[idx(i, incx)], y[idx(i, incy)], "{ctx}");
        assert_eq!(
            gb[idx(i, incy)],
            x[idx(i, incx)],
            "{ctx}: y unchanged: {}",
            gb[idx(i, incy)] == y[idx(i, incy)]
        );
    }

    // rot with c² + |s|² = 1.
    let theta: f64 = 0.7;
    let c: T::Real = real(theta.cos());
    let s = T::from_parts(real(theta.sin() * 0.6), real(theta.sin() * 0.8));
    let (mut a, mut b) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
    let done = blas.rot(
        n,
        &mut a.as_slice_mut(),
        incx,
        &mut b.as_slice_mut(),
        incy,
        c,
        s,
    );
    // Every device has rot for every dtype (PTX and AMDGPU kernels included).
    if let Err(e) = done {
        panic!("{p}rot n={n} on {dev}: {e}");
    }
    let (ga, gb) = (a.to_vec().unwrap(), b.to_vec().unwrap());
    let cw = T::from_real(c);
    for i in 0..n {
        let (xv, yv) = (x[idx(i, incx)], y[idx(i, incy)]);
        let mag = abs(cw) * (abs(xv) + abs(yv)) + abs(s) * (abs(xv) + abs(yv));
        let wx = cw.widen() * xv.widen() + s.widen() * yv.widen();
        let wy = cw.widen() * yv.widen() - s.conj().widen() * xv.widen();
        assert_close(ga[idx(i, incx)], wx, mag, 3.0, &format!("{p}rot x"));
        assert_close(gb[idx(i, incy)], wy, mag, 3.0, &format!("{p}rot y"));
    }
}

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(31),
        Just(32),
        Just(33),
        Just(63),
        Just(64),
        Just(65),
        Just(1009),
        0usize..300,
        Just((1 << 15) + 3),
        Just(70001)
    ]
}

fn incs() -> impl Strategy<Value = isize> {
    prop_oneof![Just(1isize), Just(1), Just(2), Just(-1), Just(-3), Just(5)]
}

macro_rules! l1_props {
    ($name:ident, $t:ty) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(40))]
            #[test]
            fn $name(n in lengths(), incx in incs(), incy in incs(), seed in any::<u64>()) {
                check_l1::<$t>(&Device::cpu(), n, incx, incy, seed);
            }
        }
    };
}
l1_props!(s_level1_matches_reference, f32);
l1_props!(d_level1_matches_reference, f64);
l1_props!(c_level1_matches_reference, Complex32);
l1_props!(z_level1_matches_reference, Complex64);

/// Every GPU present, or a printed reason why there is none.
fn gpus() -> Vec<Device> {
    let found: Vec<Device> = Device::enumerate()
        .into_iter()
        .filter_map(|d| Device::open(&d.id).ok())
        .filter(|d| d.kind() == rocm_core::BackendKind::Cuda)
        .collect();
    if found.is_empty() {
        eprintln!("skipped: no CUDA device present for the GPU Level 1 tests");
    }
    found
}

#[test]
fn gpu_level1_matches_reference() {
    for dev in gpus() {
        let mut seed = 0;
        // 5_000_011 spans several grid sweeps of the reductions (loop-carried accumulators).
        for n in [
            5_000_011,
            0usize,
            1,
            2,
            3,
            31,
            32,
            33,
            255,
            256,
            257,
            1023,
            4097,
            65537,
            1 << 20,
            (1 << 21) + 5,
        ] {
            for (incx, incy) in [(1isize, 1isize), (2, -1), (-3, 1), (1, 4)] {
                seed += 1;
                check_l1::<f32>(&dev, n, incx, incy, seed);
                check_l1::<f64>(&dev, n, incx, incy, seed);
                check_l1::<Complex32>(&dev, n, incx, incy, seed);
                check_l1::<Complex64>(&dev, n, incx, incy, seed);
            }
        }
        // Misaligned views narrow the vector width instead of faulting.
        let blas = Blas::new(&dev);
        let data: Vec<f32> = (0..1001).map(|i| i as f32 * 0.5).collect();
        let x = dev.upload(&data).unwrap();
        let v = x.slice(1..1001).unwrap();
        let got = blas.asum(1000, &v, 1).unwrap() as f64;
        let want: f64 = data[1..].iter().map(|v| *v as f64).sum();
        assert!(
            (got - want).abs() <= 1001.0 * f32::EPSILON as f64 * want,
            "{got} vs {want}"
        );
        nrm2_extremes_on::<f32>(&dev, 1e37, 1e-40);
        nrm2_extremes_on::<f64>(&dev, 1e300, 1e-310);
    }
}

fn nrm2_extremes<R: Real>(big: f64, tiny: f64) {
    nrm2_extremes_on::<R>(&Device::cpu(), big, tiny)
}

fn nrm2_extremes_on<R: Real>(dev: &Device, big: f64, tiny: f64) {
    let blas = Blas::new(dev);
    for scale in [big, tiny] {
        let x: Vec<R> = (1..=5).map(|i| real::<R>(i as f64 * scale)).collect();
        let got = blas
            .nrm2(5, &dev.upload(&x).unwrap().as_slice(), 1)
            .unwrap()
            .as_f64();
        let want = 55f64.sqrt() * scale;
        assert!(
            got.is_finite() && got > 0.0,
            "nrm2 of {scale:e}-sized entries gave {got}"
        );
        assert!(
            (got - want).abs() <= 8.0 * R::epsilon().as_f64() * want,
            "{got} vs {want}"
        );
    }
}

#[test]
fn nrm2_neither_overflows_nor_underflows() {
    nrm2_extremes::<f32>(1e37, 1e-40);
    nrm2_extremes::<f64>(1e300, 1e-310);
}

#[test]
fn rotg_and_rotm() {
    let (c, s, r, _) = rocm_blas::rotg(3.0f64, 4.0);
    // A few roundings of quantities of size <= 5.
    let tol = 4.0 * f64::EPSILON * 5.0;
    assert!((c - 0.6).abs() < tol && (s - 0.8).abs() < tol && (r - 5.0).abs() < tol);
    assert!((c * 3.0 + s * 4.0 - r).abs() < tol && (-s * 3.0 + c * 4.0).abs() < tol);
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut x = dev.upload(&[1.0f64, 2.0]).unwrap();
    let mut y = dev.upload(&[3.0f64, -1.0]).unwrap();
    // flag -1: full H = [[2, 0.5], [-1, 3]] (param = [flag, h11, h21, h12, h22]).
    blas.rotm(
        2,
        &mut x.as_slice_mut(),
        1,
        &mut y.as_slice_mut(),
        1,
        [-1.0, 2.0, -1.0, 0.5, 3.0],
    )
    .unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![2.0 + 1.5, 4.0 - 0.5]);
    assert_eq!(y.to_vec().unwrap(), vec![-1.0 + 9.0, -2.0 - 3.0]);
}

#[test]
fn bad_increments_and_short_buffers_are_errors() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let x = dev.upload(&[1.0f32; 10]).unwrap();
    let what = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        other => panic!("{other:?}"),
    };
    assert_eq!(what(blas.nrm2(4, &x.as_slice(), 0).unwrap_err()), "incx");
    assert_eq!(what(blas.asum(4, &x.as_slice(), 4).unwrap_err()), "x");
    assert_eq!(
        what(
            blas.dot(4, &x.as_slice(), 3, &x.as_slice(), -4)
                .unwrap_err()
        ),
        "y"
    );
    assert_eq!(blas.iamax(0, &x.as_slice(), 1).unwrap(), 0);
    assert_eq!(blas.nrm2(0, &x.as_slice(), 1).unwrap(), 0.0);
}
