//! Level 2 checks on one device against an f64 reference loop (shared by the CUDA tests
//! in `level2_gpu.rs` and the emulated AMD tests in `level2_emu.rs`).
//!
//! gemv tolerance: each output is a k-term dot (k = n for N, m for T/C) summed in a
//! fixed order plus the α and β scalings, so |error| ≤ (k + 2)·u·(|α|·Σ|a||x| + |β||y|)
//! (γ_{k+2}, first order; complex ×4 via `assert_close`).

use super::*;
use num_complex::Complex64;
use rocm_blas::reference::to_c64;
use rocm_blas::{Blas, Scalar, Transpose};
use rocm_core::Device;
use rocm_kernels::level2::gemv::GemvTuning;

#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub trans: Transpose,
    pub m: usize,
    pub n: usize,
    pub pad: usize,
    pub incx: isize,
    pub incy: isize,
    /// 0: α random, β = 0 (NaN in y); 1: both random; 2: α = 0, β random.
    pub coefs: u8,
    pub offset: usize,
}

pub fn len_of(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        1 + (n - 1) * inc.unsigned_abs()
    }
}

/// Index of logical element i of a vector of n at `inc` (BLAS: negative walks backwards).
pub fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

pub fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    check_tuned::<T>(dev, c, seed, GemvTuning::default())
}

pub fn check_tuned<T: Scalar>(dev: &Device, c: Case, seed: u64, tuning: GemvTuning) {
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
    if c.coefs == 2 && a.len() > off {
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
