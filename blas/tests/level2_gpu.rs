//! gemv on GPUs against an independent f64 (Complex64) loop: random shapes (1, primes,
//! warp ±1, non-multiples of the 2-row × 256 and 4-column steps, a few above 64 columns
//! so `N` splits into chunks), lda > m, positive and negative increments, every
//! transpose, β = 0 with NaN in y (must not be read), α = 0 with NaN in A (must not
//! be read) and offset views. CUDA
//! tests skip with a printed reason without a device; emulated AMD devices have no gemv
//! kernel yet and must answer `Unsupported`.
//!
//! Tolerance: each output is a k-term dot (k = n for N, m for T/C) summed in a fixed
//! order plus the α and β scalings, so |error| ≤ (k + 2)·u·(|α|·Σ|a||x| + |β||y|)
//! (γ_{k+2}, first order; complex ×4 via `assert_close`).

mod common;

use common::*;
use num_complex::Complex64;
use rand::Rng;
use rocm_blas::reference::to_c64;
use rocm_blas::{Blas, Scalar, Transpose};
use rocm_core::{Complex32, Device, Error};
use rocm_kernels::level2::gemv::GemvTuning;

#[derive(Debug, Clone, Copy)]
struct Case {
    trans: Transpose,
    m: usize,
    n: usize,
    pad: usize,
    incx: isize,
    incy: isize,
    /// 0: α random, β = 0 (NaN in y); 1: both random; 2: α = 0, β random.
    coefs: u8,
    offset: usize,
}

fn len_of(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        1 + (n - 1) * inc.unsigned_abs()
    }
}

/// Index of logical element i of a vector of n at `inc` (BLAS: negative walks backwards).
fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    check_tuned::<T>(dev, c, seed, GemvTuning::default())
}

fn check_tuned<T: Scalar>(dev: &Device, c: Case, seed: u64, tuning: GemvTuning) {
    // A wide load is at most 16 bytes: the tunings name the f32 width, narrower types'
    // widths are capped (f64 at 2, Complex64 at 1).
    let widest = (16 / std::mem::size_of::<T>()).max(1) as u32;
    let tuning = GemvTuning {
        vector: tuning.vector.map(|v| v.min(widest)),
        ..tuning
    };
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (m, n) = (c.m, c.n);
    let lda = m.max(1) + c.pad;
    let (lx, ly) = match c.trans {
        Transpose::N => (n, m),
        _ => (m, n),
    };
    let off = c.offset;
    let mut a: Vec<T> = random_vec(&mut r, off + lda * n);
    if c.coefs == 2 {
        // α = 0 must not read A: NaN there must not reach y.
        a[off] = T::from_real(num_traits::Float::nan());
    }
    let x: Vec<T> = random_vec(&mut r, off + len_of(lx, c.incx));
    let mut y0: Vec<T> = random_vec(&mut r, off + len_of(ly, c.incy));
    let alpha: T = if c.coefs == 2 {
        T::zero()
    } else {
        random(&mut r)
    };
    let beta: T = if c.coefs == 0 {
        T::zero()
    } else {
        random(&mut r)
    };
    if c.coefs == 0 {
        y0.iter_mut()
            .for_each(|v| *v = T::from_real(num_traits::Float::nan()));
    }
    let what = format!("{}gemv {c:?} {tuning:?}", T::PREFIX);
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y0).unwrap();
    {
        let (av, xv) = (ad.slice(off..).unwrap(), xd.slice(off..).unwrap());
        let mut yv = yd.slice_mut(off..).unwrap();
        blas.gemv_tuned(
            c.trans, m, n, alpha, &av, lda, &xv, c.incx, beta, &mut yv, c.incy, tuning,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let got: Vec<T> = yd.to_vec().unwrap();
    let (al, be) = (to_c64(alpha), to_c64(beta));
    let quick = m == 0 || n == 0 || (alpha == T::zero() && beta == T::one());
    for i in 0..ly {
        let yi = off + at(i, ly, c.incy);
        let (mut s, mut mag) = (Complex64::new(0.0, 0.0), 0.0);
        for k in 0..lx {
            let (row, col) = match c.trans {
                Transpose::N => (i, k),
                _ => (k, i),
            };
            let mut av = to_c64(a[off + row + col * lda]);
            if c.trans == Transpose::C {
                av = av.conj();
            }
            let xv = to_c64(x[off + at(k, lx, c.incx)]);
            s += av * xv;
            mag += av.norm() * xv.norm();
        }
        let (want, mag) = if quick {
            (to_c64(y0[yi]), 0.0)
        } else if alpha == T::zero() {
            let yv = to_c64(y0[yi]);
            (be * yv, be.norm() * yv.norm())
        } else if beta == T::zero() {
            (al * s, al.norm() * mag)
        } else {
            let yv = to_c64(y0[yi]);
            (al * s + be * yv, al.norm() * mag + be.norm() * yv.norm())
        };
        assert_close(
            got[yi],
            want,
            mag,
            (lx + 2) as f64,
            &format!("{what} y[{i}]"),
        );
    }
    // Elements between the strided entries are untouched.
    for (j, (g, w)) in got.iter().zip(&y0).enumerate() {
        let on = j >= off && (j - off) % c.incy.unsigned_abs() == 0;
        if !on {
            assert!(
                to_c64(*g) == to_c64(*w) || (to_c64(*g).re.is_nan() && to_c64(*w).re.is_nan()),
                "{what}: y storage {j} outside the vector changed"
            );
        }
    }
}

/// Edge shapes plus random ones.
fn cases(count: usize, seed: u64) -> Vec<Case> {
    let sizes = [1usize, 2, 7, 31, 32, 33, 63, 65, 257, 513, 1031];
    let mut r = rng(seed);
    let mut out = Vec::new();
    for trans in Transpose::ALL {
        for (m, n) in [(1, 1), (1, 300), (300, 1), (33, 65), (513, 700), (1031, 97)] {
            out.push(Case {
                trans,
                m,
                n,
                pad: 0,
                incx: 1,
                incy: 1,
                coefs: 1,
                offset: 0,
            });
        }
    }
    for _ in 0..count {
        let pick = |r: &mut Rng64| sizes[r.random_range(0..sizes.len())];
        let inc = |r: &mut Rng64| -> isize { [1, 1, 2, -1, -3][r.random_range(0..5)] };
        out.push(Case {
            trans: Transpose::ALL[r.random_range(0..3)],
            m: pick(&mut r),
            n: pick(&mut r),
            pad: r.random_range(0..5),
            incx: inc(&mut r),
            incy: inc(&mut r),
            coefs: r.random_range(0..3),
            offset: r.random_range(0..3),
        });
    }
    out
}

#[test]
fn sgemv_cuda_matches_reference() {
    for dev in cuda_devices("the GPU gemv tests") {
        for (i, c) in cases(40, 1).into_iter().enumerate() {
            check::<f32>(&dev, c, 100 + i as u64);
        }
    }
}

#[test]
fn dgemv_cuda_matches_reference() {
    for dev in cuda_devices("the GPU gemv tests") {
        for (i, c) in cases(40, 2).into_iter().enumerate() {
            check::<f64>(&dev, c, 200 + i as u64);
        }
    }
}

#[test]
fn complex_gemv_cuda_matches_reference() {
    for dev in cuda_devices("the GPU gemv tests") {
        for (i, c) in cases(30, 3).into_iter().enumerate() {
            check::<Complex32>(&dev, c, 300 + i as u64);
            check::<num_complex::Complex<f64>>(&dev, c, 400 + i as u64);
        }
    }
}

#[test]
fn large_gemv_cuda_matches_reference() {
    for dev in cuda_devices("the GPU gemv tests") {
        for trans in [Transpose::N, Transpose::T] {
            let c = Case {
                trans,
                m: 4099,
                n: 3001,
                pad: 3,
                incx: 1,
                incy: 1,
                coefs: 1,
                offset: 0,
            };
            check::<f32>(&dev, c, 7);
            check::<f64>(&dev, c, 8);
        }
    }
}

/// Emulated AMD targets have no gemv kernel yet: a clear `Unsupported`, y untouched.
#[test]
fn gemv_on_emulated_amd_targets_is_unsupported() {
    for target in ["emu:gfx90a", "emu:gfx1100"] {
        let dev = Device::open(target).unwrap();
        let blas = Blas::new(&dev);
        let (a, x) = (
            dev.upload(&[1.0f32; 6]).unwrap(),
            dev.upload(&[1.0f32; 3]).unwrap(),
        );
        let mut y = dev.upload(&[5.0f32; 2]).unwrap();
        let e = blas
            .gemv(
                Transpose::N,
                2,
                3,
                1.0,
                &a.as_slice(),
                2,
                &x.as_slice(),
                1,
                0.0,
                &mut y.as_slice_mut(),
                1,
            )
            .unwrap_err();
        assert!(matches!(e, Error::Unsupported { .. }), "{target}: {e}");
        assert_eq!(y.to_vec().unwrap(), vec![5.0; 2]);
    }
}

/// The harness itself (reference loop, tolerance, untouched gaps) on the CPU path, so
/// the GPU tests above compare against a checked oracle even where they skip.
#[test]
fn harness_accepts_the_cpu_gemv() {
    let dev = Device::cpu();
    for (i, c) in cases(20, 4).into_iter().enumerate() {
        check::<f32>(&dev, c, 500 + i as u64);
        check::<Complex32>(&dev, c, 600 + i as u64);
    }
}

/// Strided and array batches on CUDA against the CPU path problem by problem (the CPU
/// gemv is checked against the f64 loop above). Same tolerance, k = n or m.
fn batched_matches_cpu<T: Scalar>(dev: &Device, trans: Transpose, seed: u64) {
    let (m, n, batch) = (37usize, 70usize, 3usize);
    let (lx, ly) = if trans == Transpose::N {
        (n, m)
    } else {
        (m, n)
    };
    let (lda, incx, incy) = (m + 2, 2isize, -1isize);
    let (sa, sx, sy) = (lda * n + 5, 2 * lx + 1, ly + 3);
    let mut r = rng(seed);
    let a: Vec<T> = random_vec(&mut r, sa * batch);
    let x: Vec<T> = random_vec(&mut r, sx * batch);
    let y0: Vec<T> = random_vec(&mut r, sy * batch);
    let (alpha, beta): (T, T) = (random(&mut r), random(&mut r));
    let cpu = Blas::new(&Device::cpu());
    let mut want = y0.clone();
    for b in 0..batch {
        let ah = Device::cpu().upload(&a[b * sa..]).unwrap();
        let xh = Device::cpu().upload(&x[b * sx..]).unwrap();
        let mut yh = Device::cpu().upload(&want[b * sy..(b + 1) * sy]).unwrap();
        cpu.gemv(
            trans,
            m,
            n,
            alpha,
            &ah.as_slice(),
            lda,
            &xh.as_slice(),
            incx,
            beta,
            &mut yh.as_slice_mut(),
            incy,
        )
        .unwrap();
        want[b * sy..(b + 1) * sy].copy_from_slice(&yh.to_vec().unwrap());
    }
    let blas = Blas::new(dev);
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut yd = dev.upload(&y0).unwrap();
    blas.gemv_strided_batched(
        trans,
        m,
        n,
        alpha,
        &ad.as_slice(),
        lda,
        sa,
        &xd.as_slice(),
        incx,
        sx,
        beta,
        &mut yd.as_slice_mut(),
        incy,
        sy,
        batch,
    )
    .unwrap();
    let got: Vec<T> = yd.to_vec().unwrap();
    // Magnitude: entries are in [-1, 1]², so |α|·Σ|a||x| + |β||y| ≤ 2·(lx + 1) · 2.
    let mag = 4.0 * (lx + 1) as f64;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_close(
            *g,
            *w,
            mag,
            2.0 * (lx + 2) as f64,
            &format!("strided y[{i}]"),
        );
    }
    let mut yds: Vec<_> = (0..batch)
        .map(|b| dev.upload(&y0[b * sy..(b + 1) * sy]).unwrap())
        .collect();
    let ads: Vec<_> = (0..batch).map(|b| ad.slice(b * sa..).unwrap()).collect();
    let xds: Vec<_> = (0..batch).map(|b| xd.slice(b * sx..).unwrap()).collect();
    let mut yv: Vec<_> = yds.iter_mut().map(|d| d.as_slice_mut()).collect();
    blas.gemv_batched(
        trans, m, n, alpha, &ads, lda, &xds, incx, beta, &mut yv, incy,
    )
    .unwrap();
    drop(yv);
    for (b, d) in yds.iter().enumerate() {
        for (i, g) in d.to_vec().unwrap().iter().enumerate() {
            assert_close(*g, want[b * sy + i], mag, 2.0 * (lx + 2) as f64, "arrays");
        }
    }
}

#[test]
fn batched_gemv_cuda_matches_cpu() {
    for dev in cuda_devices("the GPU gemv tests") {
        for trans in Transpose::ALL {
            batched_matches_cpu::<f32>(&dev, trans, 11);
            batched_matches_cpu::<num_complex::Complex<f64>>(&dev, trans, 12);
        }
    }
}

#[test]
fn batched_harness_accepts_the_cpu() {
    for trans in Transpose::ALL {
        batched_matches_cpu::<f32>(&Device::cpu(), trans, 13);
        batched_matches_cpu::<Complex32>(&Device::cpu(), trans, 14);
    }
}

/// Non-default kernel shapes (the bench's sweep): rows, columns per step, chunk counts
/// (1 = no split, more than the columns), blocks, and T/C wide loads (used where the
/// views are aligned: lda a multiple of 4, offset 0; the odd lda/offset cases fall back).
#[test]
fn tuned_gemv_cuda_matches_reference() {
    let tunings = [
        GemvTuning {
            block: Some(64),
            rows: Some(1),
            cols: Some(1),
            chunks: Some(1),
            vector: None,
        },
        GemvTuning {
            block: Some(128),
            rows: Some(4),
            cols: Some(8),
            chunks: Some(7),
            vector: None,
        },
        GemvTuning {
            block: Some(256),
            rows: Some(2),
            cols: Some(4),
            chunks: Some(5000),
            vector: None,
        },
        GemvTuning {
            block: Some(256),
            rows: Some(8),
            vector: Some(4),
            ..GemvTuning::default()
        },
        GemvTuning {
            block: Some(128),
            rows: Some(2),
            vector: Some(2),
            ..GemvTuning::default()
        },
    ];
    for dev in cuda_devices("the GPU gemv tests") {
        let mut seed = 900;
        for trans in Transpose::ALL {
            for (m, n, pad, offset) in [
                (1029, 131, 3, 0),
                (1029, 131, 0, 1),
                (4096, 67, 0, 0),
                (33, 2, 0, 0),
            ] {
                for coefs in [0, 1] {
                    let c = Case {
                        trans,
                        m,
                        n,
                        pad,
                        incx: 1,
                        incy: 1,
                        coefs,
                        offset,
                    };
                    for t in tunings {
                        seed += 1;
                        check_tuned::<f32>(&dev, c, seed, t);
                        check_tuned::<f64>(&dev, c, seed, t);
                        check_tuned::<Complex32>(&dev, c, seed, t);
                        check_tuned::<num_complex::Complex<f64>>(&dev, c, seed, t);
                    }
                }
            }
        }
    }
}
