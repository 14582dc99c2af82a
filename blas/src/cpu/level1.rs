//! CPU Level 1 on host slices: contiguous vectors run as rayon chunks, strided ones as
//! plain loops. Reductions sum fixed-size chunks and then the chunk results in order, so
//! the result does not depend on the thread count and is the same run to run.

use crate::check::vector_index as at;
use crate::{Real, Scalar};
use num_traits::{Float, Zero};
use rayon::prelude::*;

/// Elements per parallel chunk (and per deterministic partial sum).
const CHUNK: usize = 1 << 15;

pub(crate) fn contiguous(n: usize, inc: isize) -> bool {
    inc == 1 || n <= 1
}

/// A deterministic chunked map-reduce over `0..n`.
pub(crate) fn reduce<R: Send + Copy>(
    n: usize,
    zero: R,
    f: impl Fn(usize, usize) -> R + Sync,
    add: impl Fn(R, R) -> R,
) -> R {
    let chunks = n.div_ceil(CHUNK);
    let partial: Vec<R> = (0..chunks)
        .into_par_iter()
        .map(|c| f(c * CHUNK, ((c + 1) * CHUNK).min(n)))
        .collect();
    partial.into_iter().fold(zero, add)
}

pub fn scal<T: Scalar>(n: usize, alpha: T, x: &mut [T], incx: isize) {
    if contiguous(n, incx) {
        x[..n]
            .par_chunks_mut(CHUNK)
            .for_each(|c| c.iter_mut().for_each(|v| *v *= alpha));
    } else {
        (0..n).for_each(|i| x[at(i, n, incx)] *= alpha);
    }
}

/// y = α·x + β·y (β = 1 is axpy; β = 0 does not read y).
pub fn axpby<T: Scalar>(
    n: usize,
    alpha: T,
    x: &[T],
    incx: isize,
    beta: T,
    y: &mut [T],
    incy: isize,
) {
    let f = |xv: T, yv: &mut T| {
        *yv = if beta == T::zero() {
            alpha * xv
        } else if beta == T::one() {
            alpha * xv + *yv
        } else {
            alpha * xv + beta * *yv
        }
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

pub fn copy<T: Copy>(n: usize, x: &[T], incx: isize, y: &mut [T], incy: isize) {
    if contiguous(n, incx) && contiguous(n, incy) {
        y[..n].copy_from_slice(&x[..n]);
    } else {
        (0..n).for_each(|i| y[at(i, n, incy)] = x[at(i, n, incx)]);
    }
}

pub fn swap<T>(n: usize, x: &mut [T], incx: isize, y: &mut [T], incy: isize) {
    (0..n).for_each(|i| std::mem::swap(&mut x[at(i, n, incx)], &mut y[at(i, n, incy)]));
}

/// Σ op(x_i)·y_i with op = conj when `conj_x`.
pub fn dot<T: Scalar>(n: usize, x: &[T], incx: isize, y: &[T], incy: isize, conj_x: bool) -> T {
    let term = |xv: T, yv: T| if conj_x { xv.conj() * yv } else { xv * yv };
    if contiguous(n, incx) && contiguous(n, incy) {
        return reduce(
            n,
            T::zero(),
            |lo, hi| lanes_sum(&x[lo..hi], &y[lo..hi], term),
            |a, b| a + b,
        );
    }
    reduce(
        n,
        T::zero(),
        |lo, hi| {
            (lo..hi)
                .map(|i| term(x[at(i, n, incx)], y[at(i, n, incy)]))
                .sum()
        },
        |a, b| a + b,
    )
}

/// Accumulators of [`lanes_sum`]: independent partial sums break the add latency chain
/// and let the compiler keep them in SIMD registers.
const LANES: usize = 16;

/// Σ term(xᵢ, yᵢ) over equal-length contiguous slices, in `LANES` interleaved partial
/// sums combined in a fixed order (deterministic; the error bound is that of any
/// summation order, n·ε·Σ|term|).
fn lanes_sum<T: Scalar>(x: &[T], y: &[T], term: impl Fn(T, T) -> T) -> T {
    let mut acc = [T::zero(); LANES];
    let (xc, yc) = (x.chunks_exact(LANES), y.chunks_exact(LANES));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (xs, ys) in xc.zip(yc) {
        for k in 0..LANES {
            acc[k] += term(xs[k], ys[k]);
        }
    }
    let tail = xr
        .iter()
        .zip(yr)
        .fold(T::zero(), |s, (&a, &b)| s + term(a, b));
    acc.iter().fold(tail, |s, &a| s + a)
}

pub fn sum<T: Scalar>(n: usize, x: &[T], incx: isize) -> T {
    reduce(
        n,
        T::zero(),
        |lo, hi| (lo..hi).map(|i| x[at(i, n, incx)]).sum(),
        |a, b| a + b,
    )
}

pub fn asum<T: Scalar>(n: usize, x: &[T], incx: isize) -> T::Real {
    reduce(
        n,
        T::Real::zero(),
        |lo, hi| (lo..hi).map(|i| x[at(i, n, incx)].abs1()).sum(),
        |a, b| a + b,
    )
}

/// ‖x‖₂ without overflow or underflow: the largest component magnitude `s` is found
/// first and Σ(|x_i|/s)² summed in the second pass, so no intermediate leaves range
/// when the result itself is representable.
pub fn nrm2<T: Scalar>(n: usize, x: &[T], incx: isize) -> T::Real {
    let zero = T::Real::zero();
    let scale = reduce(
        n,
        zero,
        |lo, hi| {
            (lo..hi).fold(zero, |m, i| {
                let v = x[at(i, n, incx)];
                let c = v.re().abs().max(v.im().abs());
                if c.is_nan() || m.is_nan() {
                    T::Real::nan()
                } else {
                    m.max(c)
                }
            })
        },
        |a, b| {
            if a.is_nan() || b.is_nan() {
                T::Real::nan()
            } else {
                a.max(b)
            }
        },
    );
    if scale == zero || !scale.is_finite() {
        return scale;
    }
    let ssq = reduce(
        n,
        zero,
        |lo, hi| {
            (lo..hi)
                .map(|i| {
                    let v = x[at(i, n, incx)];
                    let (r, m) = (v.re() / scale, v.im() / scale);
                    r * r + m * m
                })
                .sum()
        },
        |a, b| a + b,
    );
    scale * ssq.sqrt()
}

/// 1-based index of the first element of largest (`max`) or smallest |re| + |im|; 0 when
/// n = 0. NaN entries are skipped unless every entry is NaN (then 1), as reference BLAS
/// effectively does.
pub fn iamax<T: Scalar>(n: usize, x: &[T], incx: isize, max: bool) -> usize {
    if n == 0 {
        return 0;
    }
    let better = |a: T::Real, b: T::Real| if max { a > b } else { a < b };
    let pick = |p: (usize, T::Real), q: (usize, T::Real)| match (p.1.is_nan(), q.1.is_nan()) {
        (true, false) => q,
        (false, true) | (true, true) => p,
        _ if better(q.1, p.1) || (q.1 == p.1 && q.0 < p.0) => q,
        _ => p,
    };
    let (i, _) = reduce(
        n,
        (usize::MAX, T::Real::nan()),
        |lo, hi| {
            (lo..hi).fold((usize::MAX, T::Real::nan()), |best, i| {
                pick(best, (i, x[at(i, n, incx)].abs1()))
            })
        },
        |a, b| {
            if a.0 == usize::MAX {
                b
            } else if b.0 == usize::MAX {
                a
            } else {
                pick(a, b)
            }
        },
    );
    if i == usize::MAX {
        1
    } else {
        i + 1
    }
}

/// Plane rotation: x ← c·x + s·y, y ← c·y − conj(s)·x.
pub fn rot<T: Scalar>(
    n: usize,
    x: &mut [T],
    incx: isize,
    y: &mut [T],
    incy: isize,
    c: T::Real,
    s: T,
) {
    let c = T::from_real(c);
    for i in 0..n {
        let (xi, yi) = (at(i, n, incx), at(i, n, incy));
        let (xv, yv) = (x[xi], y[yi]);
        x[xi] = c * xv + s * yv;
        y[yi] = c * yv - s.conj() * xv;
    }
}

/// Modified Givens rotation with the full matrix `h` = [h11, h21, h12, h22]:
/// x ← h11·x + h12·y, y ← h21·x + h22·y.
pub fn rotm<R: Real>(n: usize, x: &mut [R], incx: isize, y: &mut [R], incy: isize, h: [R; 4]) {
    let [h11, h21, h12, h22] = h;
    for i in 0..n {
        let (xi, yi) = (at(i, n, incx), at(i, n, incy));
        let (w, z) = (x[xi], y[yi]);
        x[xi] = w * h11 + z * h12;
        y[yi] = w * h21 + z * h22;
    }
}
