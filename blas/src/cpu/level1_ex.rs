//! CPU fill, convert and the f16/bf16 `_ex` routines on host slices. Arithmetic runs in
//! f32 and rounds once into the storage type (nrm2 sums squares in f64, where a bf16's
//! square can neither overflow nor underflow); contiguous vectors run as rayon chunks,
//! reductions sum fixed chunks in order (deterministic).

use super::level1::{contiguous, reduce};
use crate::check::vector_index as at;
use crate::{Half, RealElement};
use rayon::prelude::*;

/// Elements per parallel chunk of the elementwise maps.
const CHUNK: usize = 1 << 15;

/// x = α at every element.
pub fn fill<T: Copy + Send + Sync>(n: usize, alpha: T, x: &mut [T], incx: isize) {
    if contiguous(n, incx) {
        x[..n]
            .par_chunks_mut(CHUNK)
            .for_each(|c| c.iter_mut().for_each(|v| *v = alpha));
    } else {
        (0..n).for_each(|i| x[at(i, n, incx)] = alpha);
    }
}

/// y = x rounded to `D`. Every supported pair has f32 on one side, so going through f32
/// rounds once: S → f32 is exact unless S is f64 (then D is f32), f32 → D is exact unless
/// D is f16 or bf16.
pub fn convert<S: RealElement, D: RealElement>(
    n: usize,
    x: &[S],
    incx: isize,
    y: &mut [D],
    incy: isize,
) {
    let f = |v: S| D::from_f32(v.to_f32());
    if contiguous(n, incx) && contiguous(n, incy) {
        y[..n]
            .par_chunks_mut(CHUNK)
            .zip(x[..n].par_chunks(CHUNK))
            .for_each(|(yc, xc)| yc.iter_mut().zip(xc).for_each(|(d, s)| *d = f(*s)));
    } else {
        (0..n).for_each(|i| y[at(i, n, incy)] = f(x[at(i, n, incx)]));
    }
}

/// x = α·x in f32, rounded to T.
pub fn scal_ex<T: Half>(n: usize, alpha: f32, x: &mut [T], incx: isize) {
    let f = |v: &mut T| *v = T::from_f32(alpha * v.to_f32());
    if contiguous(n, incx) {
        x[..n]
            .par_chunks_mut(CHUNK)
            .for_each(|c| c.iter_mut().for_each(f));
    } else {
        (0..n).for_each(|i| f(&mut x[at(i, n, incx)]));
    }
}

/// y = α·x + β·y in f32 (one fused multiply-add after β·y), rounded to T; β = 0 does not
/// read y.
pub fn axpby_ex<T: Half>(
    n: usize,
    alpha: f32,
    x: &[T],
    incx: isize,
    beta: f32,
    y: &mut [T],
    incy: isize,
) {
    let f = |xv: T, yv: &mut T| {
        let r = if beta == 0.0 {
            alpha * xv.to_f32()
        } else {
            alpha.mul_add(xv.to_f32(), beta * yv.to_f32())
        };
        *yv = T::from_f32(r);
    };
    if contiguous(n, incx) && contiguous(n, incy) {
        y[..n]
            .par_chunks_mut(CHUNK)
            .zip(x[..n].par_chunks(CHUNK))
            .for_each(|(yc, xc)| yc.iter_mut().zip(xc).for_each(|(yv, &xv)| f(xv, yv)));
    } else {
        (0..n).for_each(|i| f(x[at(i, n, incx)], &mut y[at(i, n, incy)]));
    }
}

/// Σ xᵢ·yᵢ in f32 (the products of two 16-bit floats are exact in f32).
pub fn dot_ex<T: Half>(n: usize, x: &[T], incx: isize, y: &[T], incy: isize) -> f32 {
    reduce(
        n,
        0.0f32,
        |lo, hi| {
            (lo..hi)
                .map(|i| x[at(i, n, incx)].to_f32() * y[at(i, n, incy)].to_f32())
                .sum()
        },
        |a, b| a + b,
    )
}

/// ‖x‖₂: squares summed in f64, the root rounded to f32.
pub fn nrm2_ex<T: Half>(n: usize, x: &[T], incx: isize) -> f32 {
    let ssq = reduce(
        n,
        0.0f64,
        |lo, hi| {
            (lo..hi)
                .map(|i| {
                    let v = x[at(i, n, incx)].to_f64();
                    v * v
                })
                .sum()
        },
        |a, b| a + b,
    );
    ssq.sqrt() as f32
}
