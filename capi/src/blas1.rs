//! The Fortran BLAS Level 1 ABI (no XERBLA in Level 1: reference BLAS returns early on
//! n ≤ 0, and its reductions and `scal` on incx ≤ 0).
//!
//! Each routine is one generic over the precision; the `#[no_mangle]` entry points for
//! s, d, c, z and the mixed forms (csscal, scnrm2, icamax, csrot, ...) are stamped by
//! the macros at the end. A zero increment (allowed by reference BLAS for the two-vector
//! routines, refused by rocm-blas) runs the reference loop here.

use crate::runtime::{run, Work};
use crate::xerbla::name;
use num_traits::{Float, One, Zero};
use rocm_blas::{Real, Scalar};
use rocm_core::{Complex32, Complex64};

type C32 = Complex32;
type C64 = Complex64;

/// Reads `*p`, or `None` for a null pointer (the routine then does nothing).
///
/// # Safety
/// `p` is null or points at a `V`.
unsafe fn get<V: Copy>(p: *const V) -> Option<V> {
    // SAFETY: forwarded from the caller.
    (!p.is_null()).then(|| unsafe { *p })
}

/// Position of logical element `i` of an `n`-vector with increment `inc` (BLAS walks a
/// negative increment from the far end; a zero increment stays on element 0).
fn at(i: usize, n: usize, inc: isize) -> usize {
    rocm_blas::check::vector_index(i, n, inc)
}

/// The two-vector routines' common decode: (n, incx, incy) with n > 0, and the two
/// extents; `None` when there is nothing to do or a pointer is missing.
///
/// # Safety
/// Pointers are null or valid for the routine.
unsafe fn two(
    n: *const i32,
    incx: *const i32,
    incy: *const i32,
    x: *const (),
    y: *const (),
) -> Option<(usize, isize, isize, usize, usize)> {
    // SAFETY: forwarded from the caller.
    let (n, incx, incy) = unsafe { (get(n)?, get(incx)?, get(incy)?) };
    if n <= 0 || x.is_null() || y.is_null() {
        return None;
    }
    let (lx, ly) = (crate::args::vec(n, incx), crate::args::vec(n, incy));
    Some((n as usize, incx as isize, incy as isize, lx, ly))
}

/// The one-vector routines' decode: n > 0 and incx > 0 (reference BLAS returns
/// otherwise), and the extent.
///
/// # Safety
/// Pointers are null or valid for the routine.
unsafe fn one(n: *const i32, incx: *const i32, x: *const ()) -> Option<(usize, isize, usize)> {
    // SAFETY: forwarded from the caller.
    let (n, incx) = unsafe { (get(n)?, get(incx)?) };
    if n <= 0 || incx <= 0 || x.is_null() {
        return None;
    }
    Some((n as usize, incx as isize, crate::args::vec(n, incx)))
}

pub(crate) unsafe fn scal<T: Scalar, A: Copy + Into<T>>(
    n: *const i32,
    alpha: *const A,
    x: *mut T,
    incx: *const i32,
) {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, lx)) = (unsafe { one(n, incx, x.cast()) }) else {
        return;
    };
    // SAFETY: as above.
    let Some(alpha) = (unsafe { get(alpha) }) else {
        return;
    };
    let alpha: T = alpha.into();
    run(&name::<T>("SCAL"), Work::Stream, |s| {
        // SAFETY: x holds lx elements (the caller's contract).
        let mut xb = unsafe { s.output(x, lx)? };
        s.blas.scal(n, alpha, &mut xb.view_mut(), incx)?;
        xb.finish()
    });
}

pub(crate) unsafe fn axpy<T: Scalar>(
    n: *const i32,
    alpha: *const T,
    x: *const T,
    incx: *const i32,
    y: *mut T,
    incy: *const i32,
) {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, incy, lx, ly)) = (unsafe { two(n, incx, incy, x.cast(), y.cast()) }) else {
        return;
    };
    // SAFETY: as above.
    let Some(alpha) = (unsafe { get(alpha) }) else {
        return;
    };
    if alpha == T::zero() {
        return;
    }
    if incx == 0 || incy == 0 {
        // SAFETY: extents from the caller's contract.
        let (xs, ys) = unsafe { (slice(x, lx), slice_mut(y, ly)) };
        for i in 0..n {
            let (ix, iy) = (at(i, n, incx), at(i, n, incy));
            ys[iy] += alpha * xs[ix];
        }
        return;
    }
    run(&name::<T>("AXPY"), Work::Stream, |s| {
        // SAFETY: extents from the caller's contract.
        let (xb, mut yb) = unsafe { (s.input(x, lx)?, s.output(y, ly)?) };
        s.blas
            .axpy(n, alpha, &xb.view(), incx, &mut yb.view_mut(), incy)?;
        yb.finish()
    });
}

/// # Safety
/// `p` points at `len` elements (len > 0, p non-null: checked by the callers).
unsafe fn slice<'a, T>(p: *const T, len: usize) -> &'a [T] {
    // SAFETY: forwarded from the caller.
    unsafe { std::slice::from_raw_parts(p, len) }
}

/// # Safety
/// As [`slice`], writable and unaliased.
unsafe fn slice_mut<'a, T>(p: *mut T, len: usize) -> &'a mut [T] {
    // SAFETY: forwarded from the caller.
    unsafe { std::slice::from_raw_parts_mut(p, len) }
}

pub(crate) unsafe fn copy<T: Scalar>(
    n: *const i32,
    x: *const T,
    incx: *const i32,
    y: *mut T,
    incy: *const i32,
) {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, incy, lx, ly)) = (unsafe { two(n, incx, incy, x.cast(), y.cast()) }) else {
        return;
    };
    if incx == 0 || incy == 0 {
        // SAFETY: extents from the caller's contract.
        let (xs, ys) = unsafe { (slice(x, lx), slice_mut(y, ly)) };
        for i in 0..n {
            ys[at(i, n, incy)] = xs[at(i, n, incx)];
        }
        return;
    }
    run(&name::<T>("COPY"), Work::Stream, |s| {
        // SAFETY: extents from the caller's contract.
        let (xb, mut yb) = unsafe { (s.input(x, lx)?, s.output(y, ly)?) };
        s.blas.copy(n, &xb.view(), incx, &mut yb.view_mut(), incy)?;
        yb.finish()
    });
}

pub(crate) unsafe fn swap<T: Scalar>(
    n: *const i32,
    x: *mut T,
    incx: *const i32,
    y: *mut T,
    incy: *const i32,
) {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, incy, lx, ly)) = (unsafe { two(n, incx, incy, x.cast(), y.cast()) }) else {
        return;
    };
    if incx == 0 || incy == 0 {
        for i in 0..n {
            // SAFETY: in-bounds elements of the caller's arrays; x and y may be the
            // same array, so element by element through raw pointers.
            unsafe {
                std::ptr::swap(x.add(at(i, n, incx)), y.add(at(i, n, incy)));
            }
        }
        return;
    }
    run(&name::<T>("SWAP"), Work::Stream, |s| {
        // SAFETY: extents from the caller's contract.
        let (mut xb, mut yb) = unsafe { (s.output(x, lx)?, s.output(y, ly)?) };
        s.blas
            .swap(n, &mut xb.view_mut(), incx, &mut yb.view_mut(), incy)?;
        xb.finish()?;
        yb.finish()
    });
}

pub(crate) unsafe fn dot<T: Scalar>(
    conj: bool,
    n: *const i32,
    x: *const T,
    incx: *const i32,
    y: *const T,
    incy: *const i32,
) -> T {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, incy, lx, ly)) = (unsafe { two(n, incx, incy, x.cast(), y.cast()) }) else {
        return T::zero();
    };
    if incx == 0 || incy == 0 {
        // SAFETY: extents from the caller's contract.
        let (xs, ys) = unsafe { (slice(x, lx), slice(y, ly)) };
        return (0..n).fold(T::zero(), |acc, i| {
            let xi = xs[at(i, n, incx)];
            acc + if conj { xi.conj() } else { xi } * ys[at(i, n, incy)]
        });
    }
    let base = if conj { "DOTC" } else { "DOTU" };
    run(&name::<T>(base), Work::Stream, |s| {
        // SAFETY: extents from the caller's contract.
        let (xb, yb) = unsafe { (s.input(x, lx)?, s.input(y, ly)?) };
        if conj {
            s.blas.dotc(n, &xb.view(), incx, &yb.view(), incy)
        } else {
            s.blas.dot(n, &xb.view(), incx, &yb.view(), incy)
        }
    })
    .unwrap_or_else(T::zero)
}

/// sdsdot / dsdot: a single-precision dot product accumulated in double precision.
unsafe fn dot_f64(
    n: *const i32,
    x: *const f32,
    incx: *const i32,
    y: *const f32,
    incy: *const i32,
) -> f64 {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, incy, lx, ly)) = (unsafe { two(n, incx, incy, x.cast(), y.cast()) }) else {
        return 0.0;
    };
    // SAFETY: extents from the caller's contract.
    let (xs, ys) = unsafe { (slice(x, lx), slice(y, ly)) };
    (0..n).fold(0.0, |acc, i| {
        acc + f64::from(xs[at(i, n, incx)]) * f64::from(ys[at(i, n, incy)])
    })
}

pub(crate) unsafe fn nrm2<T: Scalar>(n: *const i32, x: *const T, incx: *const i32) -> T::Real {
    // SAFETY: forwarded from the caller.
    let (Some(nv), Some(incv)) = (unsafe { (get(n), get(incx)) }) else {
        return T::Real::zero();
    };
    if nv <= 0 || x.is_null() {
        return T::Real::zero();
    }
    // Reference nrm2 visits the same elements for a negative increment and element 1
    // n times for a zero one.
    let (len, inc) = if incv == 0 {
        (1, 1)
    } else {
        (nv as usize, incv.unsigned_abs() as isize)
    };
    let lx = rocm_blas::check::vector_extent(len, inc);
    let norm = run(&name::<T>("NRM2"), Work::Stream, |s| {
        // SAFETY: extent from the caller's contract.
        let xb = unsafe { s.input(x, lx)? };
        s.blas.nrm2(len, &xb.view(), inc)
    })
    .unwrap_or_else(T::Real::zero);
    if incv == 0 {
        norm * T::Real::from_f64(f64::from(nv).sqrt())
    } else {
        norm
    }
}

pub(crate) unsafe fn asum<T: Scalar>(n: *const i32, x: *const T, incx: *const i32) -> T::Real {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, lx)) = (unsafe { one(n, incx, x.cast()) }) else {
        return T::Real::zero();
    };
    run(&name::<T>("ASUM"), Work::Stream, |s| {
        // SAFETY: extent from the caller's contract.
        let xb = unsafe { s.input(x, lx)? };
        s.blas.asum(n, &xb.view(), incx)
    })
    .unwrap_or_else(T::Real::zero)
}

pub(crate) unsafe fn iamax<T: Scalar>(n: *const i32, x: *const T, incx: *const i32) -> i32 {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, lx)) = (unsafe { one(n, incx, x.cast()) }) else {
        return 0;
    };
    run(&name::<T>("AMAX"), Work::Stream, |s| {
        // SAFETY: extent from the caller's contract.
        let xb = unsafe { s.input(x, lx)? };
        s.blas.iamax(n, &xb.view(), incx)
    })
    .map_or(0, |i| i as i32)
}

/// x ← c·x + s·y, y ← c·y − s·x with real c, s (srot, drot, csrot, zdrot).
pub(crate) unsafe fn rot<T: Scalar>(
    n: *const i32,
    x: *mut T,
    incx: *const i32,
    y: *mut T,
    incy: *const i32,
    c: *const T::Real,
    s: *const T::Real,
) {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, incy, lx, ly)) = (unsafe { two(n, incx, incy, x.cast(), y.cast()) }) else {
        return;
    };
    // SAFETY: as above.
    let (Some(c), Some(sn)) = (unsafe { (get(c), get(s)) }) else {
        return;
    };
    if incx == 0 || incy == 0 {
        for i in 0..n {
            // SAFETY: in-bounds elements of the caller's arrays (possibly the same one).
            unsafe {
                let (px, py) = (x.add(at(i, n, incx)), y.add(at(i, n, incy)));
                let (xv, yv) = (*px, *py);
                *px = T::from_real(c) * xv + T::from_real(sn) * yv;
                *py = T::from_real(c) * yv - T::from_real(sn) * xv;
            }
        }
        return;
    }
    run(&name::<T>("ROT"), Work::Stream, |st| {
        // SAFETY: extents from the caller's contract.
        let (mut xb, mut yb) = unsafe { (st.output(x, lx)?, st.output(y, ly)?) };
        let sv = T::from_real(sn);
        s_rot(st, n, &mut xb, incx, &mut yb, incy, c, sv)?;
        xb.finish()?;
        yb.finish()
    });
}

#[allow(clippy::too_many_arguments)]
fn s_rot<T: Scalar>(
    st: &crate::runtime::Stage,
    n: usize,
    x: &mut crate::runtime::Operand<T>,
    incx: isize,
    y: &mut crate::runtime::Operand<T>,
    incy: isize,
    c: T::Real,
    s: T,
) -> rocm_core::Result<()> {
    st.blas
        .rot(n, &mut x.view_mut(), incx, &mut y.view_mut(), incy, c, s)
}

pub(crate) unsafe fn rotm<R: Real>(
    n: *const i32,
    x: *mut R,
    incx: *const i32,
    y: *mut R,
    incy: *const i32,
    param: *const R,
) {
    // SAFETY: forwarded from the caller.
    let Some((n, incx, incy, lx, ly)) = (unsafe { two(n, incx, incy, x.cast(), y.cast()) }) else {
        return;
    };
    if param.is_null() {
        return;
    }
    // SAFETY: PARAM is a 5-element array.
    let p: [R; 5] = unsafe { std::ptr::read(param.cast::<[R; 5]>()) };
    if p[0] == -(R::one() + R::one()) {
        return;
    }
    if incx == 0 || incy == 0 {
        let [flag, h11, h21, h12, h22] = p;
        let (one, zero) = (R::one(), R::zero());
        let [h11, h21, h12, h22] = if flag < zero {
            [h11, h21, h12, h22]
        } else if flag == zero {
            [one, h21, h12, one]
        } else {
            [h11, -one, one, h22]
        };
        for i in 0..n {
            // SAFETY: in-bounds elements of the caller's arrays (possibly the same one).
            unsafe {
                let (px, py) = (x.add(at(i, n, incx)), y.add(at(i, n, incy)));
                let (w, z) = (*px, *py);
                *px = w * h11 + z * h12;
                *py = w * h21 + z * h22;
            }
        }
        return;
    }
    run(&name::<R>("ROTM"), Work::Stream, |s| {
        // SAFETY: extents from the caller's contract.
        let (mut xb, mut yb) = unsafe { (s.output(x, lx)?, s.output(y, ly)?) };
        s.blas
            .rotm(n, &mut xb.view_mut(), incx, &mut yb.view_mut(), incy, p)?;
        xb.finish()?;
        yb.finish()
    });
}

/// srotg / drotg: a ← r, b ← z, with c and s.
pub(crate) unsafe fn rotg<R: Real>(a: *mut R, b: *mut R, c: *mut R, s: *mut R) {
    if a.is_null() || b.is_null() || c.is_null() || s.is_null() {
        return;
    }
    // SAFETY: four scalars of the caller.
    unsafe {
        let (cv, sv, r, z) = rocm_blas::rotg(*a, *b);
        (*a, *b, *c, *s) = (r, z, cv, sv);
    }
}

/// crotg / zrotg: a ← r, with real c and complex s such that
/// [c s; −conj(s) c]·[a; b] = [r; 0] (reference BLAS's scaling).
pub(crate) unsafe fn rotg_complex<T: Scalar>(a: *mut T, b: *const T, c: *mut T::Real, s: *mut T) {
    if a.is_null() || b.is_null() || c.is_null() || s.is_null() {
        return;
    }
    // SAFETY: scalars of the caller.
    let (av, bv) = unsafe { (*a, *b) };
    let zero = T::Real::zero();
    let (cv, sv, r) = if av.modulus() == zero {
        (zero, T::one(), bv)
    } else {
        let (ma, mb) = (av.modulus(), bv.modulus());
        let scale = ma + mb;
        let norm = scale * ((ma / scale).powi(2) + (mb / scale).powi(2)).sqrt();
        let alpha = av * T::from_real(T::Real::one() / ma);
        (
            ma / norm,
            alpha * bv.conj() * T::from_real(T::Real::one() / norm),
            alpha * T::from_real(norm),
        )
    };
    // SAFETY: scalars of the caller.
    unsafe {
        (*a, *c, *s) = (r, cv, sv);
    }
}

/// srotmg / drotmg: the modified Givens transformation zeroing the second component of
/// (√d1·x1, √d2·y1), as reference BLAS computes it (same branches, same rescaling by
/// γ = 4096).
pub(crate) unsafe fn rotmg<R: Real>(
    d1: *mut R,
    d2: *mut R,
    x1: *mut R,
    y1: *const R,
    param: *mut R,
) {
    if d1.is_null() || d2.is_null() || x1.is_null() || y1.is_null() || param.is_null() {
        return;
    }
    // SAFETY: scalars and the 5-element PARAM of the caller.
    unsafe {
        let (mut d1v, mut d2v, mut x1v, y1v) = (*d1, *d2, *x1, *y1);
        let out = rotmg_values(&mut d1v, &mut d2v, &mut x1v, y1v);
        (*d1, *d2, *x1) = (d1v, d2v, x1v);
        let p = std::slice::from_raw_parts_mut(param, 5);
        let [flag, h11, h21, h12, h22] = out;
        p[0] = flag;
        if flag < R::zero() && flag != -(R::one() + R::one()) {
            p[1..5].copy_from_slice(&[h11, h21, h12, h22]);
        } else if flag == R::zero() {
            p[2] = h21;
            p[3] = h12;
        } else if flag > R::zero() {
            p[1] = h11;
            p[4] = h22;
        }
    }
}

fn rotmg_values<R: Real>(d1: &mut R, d2: &mut R, x1: &mut R, y1: R) -> [R; 5] {
    let (zero, one) = (R::zero(), R::one());
    let two = one + one;
    let gam = R::from_f64(4096.0);
    let gamsq = R::from_f64(16_777_216.0);
    let rgamsq = R::from_f64(5.960_464_5e-8);
    let (mut h11, mut h12, mut h21, mut h22) = (zero, zero, zero, zero);
    let mut flag;
    let zero_all = |d1: &mut R, d2: &mut R, x1: &mut R| {
        (*d1, *d2, *x1) = (zero, zero, zero);
        [-one, zero, zero, zero, zero]
    };
    if *d1 < zero {
        return zero_all(d1, d2, x1);
    }
    let p2 = *d2 * y1;
    if p2 == zero {
        return [-two, zero, zero, zero, zero];
    }
    let p1 = *d1 * *x1;
    let q2 = p2 * y1;
    let q1 = p1 * *x1;
    if q1.abs() > q2.abs() {
        h21 = -y1 / *x1;
        h12 = p2 / p1;
        let u = one - h12 * h21;
        if u > zero {
            flag = zero;
            *d1 /= u;
            *d2 /= u;
            *x1 *= u;
        } else {
            return zero_all(d1, d2, x1);
        }
    } else if q2 < zero {
        return zero_all(d1, d2, x1);
    } else {
        flag = one;
        h11 = p1 / p2;
        h22 = *x1 / y1;
        let u = one + h11 * h22;
        let t = *d2 / u;
        *d2 = *d1 / u;
        *d1 = t;
        *x1 = y1 * u;
    }
    // Rescale so d1 and d2 stay within [γ⁻², γ²], making H explicit first.
    let explicit = |flag: &mut R, h11: &mut R, h12: &mut R, h21: &mut R, h22: &mut R| {
        if *flag == zero {
            (*h11, *h22) = (one, one);
        } else if *flag > zero {
            (*h21, *h12) = (-one, one);
        }
        *flag = -one;
    };
    if *d1 != zero {
        while *d1 <= rgamsq || *d1 >= gamsq {
            explicit(&mut flag, &mut h11, &mut h12, &mut h21, &mut h22);
            if *d1 <= rgamsq {
                *d1 *= gam * gam;
                *x1 /= gam;
                h11 /= gam;
                h12 /= gam;
            } else {
                *d1 /= gam * gam;
                *x1 *= gam;
                h11 *= gam;
                h12 *= gam;
            }
        }
    }
    if *d2 != zero {
        while d2.abs() <= rgamsq || d2.abs() >= gamsq {
            explicit(&mut flag, &mut h11, &mut h12, &mut h21, &mut h22);
            if d2.abs() <= rgamsq {
                *d2 *= gam * gam;
                h21 /= gam;
                h22 /= gam;
            } else {
                *d2 /= gam * gam;
                h21 *= gam;
                h22 *= gam;
            }
        }
    }
    [flag, h11, h21, h12, h22]
}

/// |re z| + |im z| (scabs1, dcabs1).
unsafe fn cabs1<T: Scalar>(z: *const T) -> T::Real {
    // SAFETY: forwarded from the caller.
    unsafe { get(z) }.map_or_else(T::Real::zero, |z| z.abs1())
}

// ---- entry points -------------------------------------------------------------------

macro_rules! real_and_complex {
    ($($t:ty: $scal:ident $axpy:ident $copy:ident $swap:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $scal(n: *const i32, a: *const $t, x: *mut $t, incx: *const i32) {
            unsafe { scal::<$t, $t>(n, a, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $axpy(n: *const i32, a: *const $t, x: *const $t, incx: *const i32, y: *mut $t, incy: *const i32) {
            unsafe { axpy::<$t>(n, a, x, incx, y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $copy(n: *const i32, x: *const $t, incx: *const i32, y: *mut $t, incy: *const i32) {
            unsafe { copy::<$t>(n, x, incx, y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $swap(n: *const i32, x: *mut $t, incx: *const i32, y: *mut $t, incy: *const i32) {
            unsafe { swap::<$t>(n, x, incx, y, incy) }
        }
    )*};
}
real_and_complex! {
    f32: sscal_ saxpy_ scopy_ sswap_;
    f64: dscal_ daxpy_ dcopy_ dswap_;
    C32: cscal_ caxpy_ ccopy_ cswap_;
    C64: zscal_ zaxpy_ zcopy_ zswap_;
}

macro_rules! reductions {
    ($($t:ty, $r:ty: $nrm2:ident $asum:ident $amax:ident $rot:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $nrm2(n: *const i32, x: *const $t, incx: *const i32) -> $r {
            unsafe { nrm2::<$t>(n, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $asum(n: *const i32, x: *const $t, incx: *const i32) -> $r {
            unsafe { asum::<$t>(n, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $amax(n: *const i32, x: *const $t, incx: *const i32) -> i32 {
            unsafe { iamax::<$t>(n, x, incx) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $rot(n: *const i32, x: *mut $t, incx: *const i32, y: *mut $t, incy: *const i32, c: *const $r, s: *const $r) {
            unsafe { rot::<$t>(n, x, incx, y, incy, c, s) }
        }
    )*};
}
reductions! {
    f32, f32: snrm2_ sasum_ isamax_ srot_;
    f64, f64: dnrm2_ dasum_ idamax_ drot_;
    C32, f32: scnrm2_ scasum_ icamax_ csrot_;
    C64, f64: dznrm2_ dzasum_ izamax_ zdrot_;
}

macro_rules! dots {
    ($($t:ty: $dotu:ident $dotc:ident;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $dotu(n: *const i32, x: *const $t, incx: *const i32, y: *const $t, incy: *const i32) -> $t {
            unsafe { dot::<$t>(false, n, x, incx, y, incy) }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $dotc(n: *const i32, x: *const $t, incx: *const i32, y: *const $t, incy: *const i32) -> $t {
            unsafe { dot::<$t>(true, n, x, incx, y, incy) }
        }
    )*};
}
dots! {
    C32: cdotu_ cdotc_;
    C64: zdotu_ zdotc_;
}

#[no_mangle]
pub unsafe extern "C" fn sdot_(
    n: *const i32,
    x: *const f32,
    incx: *const i32,
    y: *const f32,
    incy: *const i32,
) -> f32 {
    unsafe { dot::<f32>(false, n, x, incx, y, incy) }
}

#[no_mangle]
pub unsafe extern "C" fn ddot_(
    n: *const i32,
    x: *const f64,
    incx: *const i32,
    y: *const f64,
    incy: *const i32,
) -> f64 {
    unsafe { dot::<f64>(false, n, x, incx, y, incy) }
}

/// sb + x·y accumulated in double precision, returned in single.
#[no_mangle]
pub unsafe extern "C" fn sdsdot_(
    n: *const i32,
    sb: *const f32,
    x: *const f32,
    incx: *const i32,
    y: *const f32,
    incy: *const i32,
) -> f32 {
    // SAFETY: forwarded from the caller.
    let b = unsafe { get(sb) }.map_or(0.0, f64::from);
    (b + unsafe { dot_f64(n, x, incx, y, incy) }) as f32
}

/// x·y of single-precision vectors accumulated and returned in double precision.
#[no_mangle]
pub unsafe extern "C" fn dsdot_(
    n: *const i32,
    x: *const f32,
    incx: *const i32,
    y: *const f32,
    incy: *const i32,
) -> f64 {
    unsafe { dot_f64(n, x, incx, y, incy) }
}

#[no_mangle]
pub unsafe extern "C" fn csscal_(n: *const i32, a: *const f32, x: *mut C32, incx: *const i32) {
    unsafe { scal::<C32, RealOf<f32>>(n, a.cast(), x, incx) }
}

#[no_mangle]
pub unsafe extern "C" fn zdscal_(n: *const i32, a: *const f64, x: *mut C64, incx: *const i32) {
    unsafe { scal::<C64, RealOf<f64>>(n, a.cast(), x, incx) }
}

/// A real scalar read where a complex one is expected (csscal's α).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct RealOf<R>(R);

impl From<RealOf<f32>> for C32 {
    fn from(r: RealOf<f32>) -> C32 {
        C32::new(r.0, 0.0)
    }
}

impl From<RealOf<f64>> for C64 {
    fn from(r: RealOf<f64>) -> C64 {
        C64::new(r.0, 0.0)
    }
}

#[no_mangle]
pub unsafe extern "C" fn srotg_(a: *mut f32, b: *mut f32, c: *mut f32, s: *mut f32) {
    unsafe { rotg(a, b, c, s) }
}

#[no_mangle]
pub unsafe extern "C" fn drotg_(a: *mut f64, b: *mut f64, c: *mut f64, s: *mut f64) {
    unsafe { rotg(a, b, c, s) }
}

#[no_mangle]
pub unsafe extern "C" fn crotg_(a: *mut C32, b: *const C32, c: *mut f32, s: *mut C32) {
    unsafe { rotg_complex(a, b, c, s) }
}

#[no_mangle]
pub unsafe extern "C" fn zrotg_(a: *mut C64, b: *const C64, c: *mut f64, s: *mut C64) {
    unsafe { rotg_complex(a, b, c, s) }
}

#[no_mangle]
pub unsafe extern "C" fn srotm_(
    n: *const i32,
    x: *mut f32,
    incx: *const i32,
    y: *mut f32,
    incy: *const i32,
    p: *const f32,
) {
    unsafe { rotm(n, x, incx, y, incy, p) }
}

#[no_mangle]
pub unsafe extern "C" fn drotm_(
    n: *const i32,
    x: *mut f64,
    incx: *const i32,
    y: *mut f64,
    incy: *const i32,
    p: *const f64,
) {
    unsafe { rotm(n, x, incx, y, incy, p) }
}

#[no_mangle]
pub unsafe extern "C" fn srotmg_(
    d1: *mut f32,
    d2: *mut f32,
    x1: *mut f32,
    y1: *const f32,
    p: *mut f32,
) {
    unsafe { rotmg(d1, d2, x1, y1, p) }
}

#[no_mangle]
pub unsafe extern "C" fn drotmg_(
    d1: *mut f64,
    d2: *mut f64,
    x1: *mut f64,
    y1: *const f64,
    p: *mut f64,
) {
    unsafe { rotmg(d1, d2, x1, y1, p) }
}

#[no_mangle]
pub unsafe extern "C" fn scabs1_(z: *const C32) -> f32 {
    unsafe { cabs1(z) }
}

#[no_mangle]
pub unsafe extern "C" fn dcabs1_(z: *const C64) -> f64 {
    unsafe { cabs1(z) }
}
