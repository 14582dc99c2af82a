//! gemv on GPUs against an independent f64 (Complex64) loop: random shapes (1, primes,
//! warp ±1, non-multiples of the 2-row × 256 and 4-column steps, a few above 64 columns
//! so `N` splits into chunks), lda > m, positive and negative increments, every
//! transpose, β = 0 with NaN in y (must not be read), α = 0 with NaN in A (must not
//! be read) and offset views. CUDA
//! tests skip with a printed reason without a device; the emulated AMD devices run the
//! same checks (`common::level2`) in `level2_emu.rs`.
//!
//! Tolerance: each output is a k-term dot (k = n for N, m for T/C) summed in a fixed
//! order plus the α and β scalings, so |error| ≤ (k + 2)·u·(|α|·Σ|a||x| + |β||y|)
//! (γ_{k+2}, first order; complex ×4 via `assert_close`).

mod common;

use common::level2::{check, check_tuned, Case};
use common::*;
use rand::Rng;
use rocm_blas::{Blas, Scalar, Transpose};
use rocm_core::{Complex32, Device};
use rocm_kernels::level2::gemv::GemvTuning;

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
/// (1 = no split, more than the columns), blocks, wide loads (used where the views are
/// aligned: lda a multiple of 4, offset 0, and for N m a multiple of the load; the odd
/// m/lda/offset cases fall back)
/// and T/C groups of warps sharing a column (ignored by N).
#[test]
fn tuned_gemv_cuda_matches_reference() {
    let tunings = [
        GemvTuning {
            block: Some(64),
            rows: Some(1),
            cols: Some(1),
            chunks: Some(1),
            vector: None,
            warps_per_column: None,
        },
        GemvTuning {
            block: Some(128),
            rows: Some(4),
            cols: Some(8),
            chunks: Some(7),
            vector: None,
            warps_per_column: None,
        },
        GemvTuning {
            block: Some(256),
            rows: Some(2),
            cols: Some(4),
            chunks: Some(5000),
            vector: None,
            warps_per_column: None,
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
        // T/C: two warps per column, and a 16-warp group reading one column.
        GemvTuning {
            block: Some(128),
            rows: Some(3),
            warps_per_column: Some(2),
            ..GemvTuning::default()
        },
        GemvTuning {
            block: Some(512),
            rows: Some(2),
            vector: Some(2),
            warps_per_column: Some(16),
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
                (1028, 45, 4, 0),
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
