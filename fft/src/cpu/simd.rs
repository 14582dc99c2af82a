//! Vectors of interleaved complex numbers: the one type the butterflies and passes are
//! written over.
//!
//! [`Cv`] is implemented by a single complex number (`Complex<T>`, one lane: the
//! portable path and the tails of vector loops) and, on x86-64, by one AVX register of
//! interleaved complex values: four `Complex<f32>` ([`F32x4`]) or two `Complex<f64>`
//! ([`F64x2`]). Complex products use `fmaddsub`:
//! `a·w = (a.re·w.re ∓ a.im·w.im, a.im·w.re ± a.re·w.im)` with the duplicated real and
//! imaginary parts of `w` and the pair-swapped `a`.
//!
//! The vector methods are `#[inline(always)]` wrappers over `std::arch` intrinsics and
//! must only run inside functions compiled with `#[target_feature(enable = "avx2,fma")]`
//! (or that plus AVX-512F/VL: [`SimdLevel::Avx512`]) after `is_x86_feature_detected!`
//! said so; [`dispatch`] is how the kernels get there.

use crate::scalar::FftReal;
use num_complex::Complex;
use num_traits::Zero;
use std::ops::{Add, Sub};
use std::sync::atomic::{AtomicU8, Ordering};

type C<T> = Complex<T>;

/// A vector of `LANES` complex numbers of precision `Self::T`.
pub trait Cv: Copy + Add<Output = Self> + Sub<Output = Self> {
    type T: FftReal;
    const LANES: usize;
    /// Every lane `z`.
    fn splat(z: C<Self::T>) -> Self;
    /// Lanes `p[0..LANES]`.
    ///
    /// # Safety
    /// `p` valid for reading `LANES` elements.
    unsafe fn load(p: *const C<Self::T>) -> Self;
    /// # Safety
    /// `p` valid for writing `LANES` elements.
    unsafe fn store(self, p: *mut C<Self::T>);
    /// Lanes `0..count` (`count ≤ LANES`) to `p[0..count]`.
    ///
    /// # Safety
    /// `p` valid for writing `count` elements.
    #[inline(always)]
    unsafe fn store_first(self, p: *mut C<Self::T>, count: usize) {
        let zero = C::new(Self::T::zero(), Self::T::zero());
        let mut t = [zero; 4];
        // SAFETY: `t` holds 4 ≥ LANES values; `p` by the caller's contract.
        unsafe {
            self.store(t.as_mut_ptr());
            std::ptr::copy_nonoverlapping(t.as_ptr(), p, count.min(Self::LANES));
        }
    }
    /// Lane-wise complex product.
    fn mul(self, w: Self) -> Self;
    /// Every lane times the real `k`.
    fn scale(self, k: Self::T) -> Self;
    /// `self + a·k` for a real `k` (one fused multiply-add per part where available).
    #[inline(always)]
    fn add_scaled(self, a: Self, k: Self::T) -> Self {
        self + a.scale(k)
    }
    /// Times −i when `FWD`, else +i.
    fn rot<const FWD: bool>(self) -> Self;
    /// Lane-wise complex conjugate.
    fn conj(self) -> Self;

    /// Stores the outputs of a Stockham pass in its flat-lane shape (see
    /// [`super::stockham`]): lane `i` of `o[j]` belongs to flat index `l + i = s·p + q`
    /// and goes to `y[q + s·(R·p + j)]`. Vector types transpose in registers where the
    /// shape allows; this default spills and stores lane by lane.
    ///
    /// # Safety
    /// Every destination index is below `y`'s length.
    #[inline(always)]
    unsafe fn scatter<const R: usize>(o: &[Self; R], y: *mut C<Self::T>, l: usize, s: usize) {
        scatter_lanes(o, y, l, s)
    }

    /// Lane `i` from `p[i·stride]`.
    ///
    /// # Safety
    /// `p[i·stride]` readable for every lane `i`.
    #[inline(always)]
    unsafe fn load_strided(p: *const C<Self::T>, stride: usize) -> Self {
        let zero = C::new(Self::T::zero(), Self::T::zero());
        let mut t = [zero; 4];
        for (i, z) in t.iter_mut().enumerate().take(Self::LANES) {
            // SAFETY: readable by the caller's contract.
            *z = unsafe { *p.add(i * stride) };
        }
        // SAFETY: `t` holds 4 ≥ LANES values.
        unsafe { Self::load(t.as_ptr()) }
    }

    /// Lane `i` to `p[i·stride]`.
    ///
    /// # Safety
    /// `p[i·stride]` writable for every lane `i`.
    #[inline(always)]
    unsafe fn store_strided(self, p: *mut C<Self::T>, stride: usize) {
        let zero = C::new(Self::T::zero(), Self::T::zero());
        let mut t = [zero; 4];
        // SAFETY: `t` holds 4 ≥ LANES values.
        unsafe { self.store(t.as_mut_ptr()) };
        for (i, z) in t.iter().enumerate().take(Self::LANES) {
            // SAFETY: writable by the caller's contract.
            unsafe { *p.add(i * stride) = *z };
        }
    }

    /// Transposes `LANES` registers as a square matrix of complex values: lane `j` of
    /// `r[i]` becomes lane `i` of `r[j]`. (One lane: nothing to do.)
    #[inline(always)]
    fn transpose_regs(r: &mut [Self]) {
        debug_assert!(Self::LANES == 1 && !r.is_empty());
    }

    /// Transposes one `LANES × LANES` block: row `i` (the `LANES` values at
    /// `src + i·ss`) becomes column `i` of the rows at `dst + i·ds`.
    ///
    /// # Safety
    /// Every row read and written is in bounds.
    #[inline(always)]
    unsafe fn transpose_block(src: *const C<Self::T>, ss: usize, dst: *mut C<Self::T>, ds: usize) {
        let zero = C::new(Self::T::zero(), Self::T::zero());
        let mut t = [[zero; 4]; 4];
        for (i, row) in t.iter_mut().enumerate().take(Self::LANES) {
            // SAFETY: in bounds by the caller's contract.
            unsafe { Self::load(src.add(i * ss)).store(row.as_mut_ptr()) };
        }
        for j in 0..Self::LANES {
            for (i, row) in t.iter().enumerate().take(Self::LANES) {
                // SAFETY: in bounds by the caller's contract.
                unsafe { *dst.add(j * ds + i) = row[j] };
            }
        }
    }
}

/// Asks for the cache line holding `p` (for reading, or for writing when `WRITE`).
/// Only a hint: any address is fine, nothing is read or written.
#[inline(always)]
pub fn prefetch<T, const WRITE: bool>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no architectural effect.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0, _MM_HINT_T0};
        if WRITE {
            _mm_prefetch::<_MM_HINT_ET0>(p as *const i8)
        } else {
            _mm_prefetch::<_MM_HINT_T0>(p as *const i8)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A kernel written once over [`Cv`]: [`dispatch`] runs it with the widest vector type
/// the CPU supports. `call` must be `#[inline(always)]` so that its body is compiled
/// with the vector instructions enabled.
pub trait SimdFn<T: FftReal> {
    type Out;
    /// Whether this call takes the [`SimdLevel::Avx512`] build where the CPU has it
    /// (else the AVX2 one): false where that measured slower.
    #[inline(always)]
    fn avx512(&self) -> bool {
        true
    }
    fn call<V: Cv<T = T>>(self) -> Self::Out;
}

/// The vector code the CPU path runs, in increasing order. Every level runs the same
/// kernels ([`SimdFn`]); they differ in the instructions the compiler may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdLevel {
    /// One complex value at a time (portable).
    Scalar = 0,
    /// AVX registers ([`F32x4`], [`F64x2`]) with AVX2 and FMA instructions: 16
    /// vector registers.
    Avx2 = 1,
    /// The same AVX-width kernels compiled with AVX-512F/VL enabled: the compiler may
    /// use 32 vector registers (EVEX encodings of the same operations), so kernels
    /// that hold more than 16 vectors spill less. Measured on the 2-vCPU VM (AMD EPYC
    /// with AVX-512, quick bench, one thread, best of 3 alternated runs, session 17),
    /// us, AVX2 -> AVX-512: `f32` 72 40.7 -> 34.8, 256 48.7 -> 42.1, 19683 151 -> 135.
    Avx512 = 2,
}

/// The highest level [`set_simd_limit`] allows (`u8::MAX`: no limit).
static LIMIT: AtomicU8 = AtomicU8::new(u8::MAX);

/// Caps the level [`simd_level`] reports for the whole process (to compare or test
/// the narrower code paths on a wider CPU). Plans keep working across a change: they
/// ask for the level on every execution.
pub fn set_simd_limit(limit: SimdLevel) {
    LIMIT.store(limit as u8, Ordering::Relaxed);
}

/// The widest level this CPU supports (detected once, then cached by std), capped by
/// [`set_simd_limit`].
#[inline(always)]
pub fn simd_level() -> SimdLevel {
    let cpu = {
        #[cfg(target_arch = "x86_64")]
        {
            if !(std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")) {
                SimdLevel::Scalar
            } else if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512vl")
            {
                SimdLevel::Avx512
            } else {
                SimdLevel::Avx2
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            SimdLevel::Scalar
        }
    };
    match LIMIT.load(Ordering::Relaxed) {
        0 => SimdLevel::Scalar,
        1 => cpu.min(SimdLevel::Avx2),
        _ => cpu,
    }
}

/// Whether the AVX vector types are used (level [`SimdLevel::Avx2`] or above).
#[inline(always)]
pub fn has_avx2_fma() -> bool {
    simd_level() >= SimdLevel::Avx2
}

/// Runs `f` over `T::Vector` at the [`simd_level`] (AVX2 + FMA, or the same with
/// AVX-512's registers), else over single complex values.
#[inline]
pub fn dispatch<T: FftReal, F: SimdFn<T>>(f: F) -> F::Out {
    match simd_level() {
        // SAFETY: the CPU supports AVX-512F/VL, AVX2 and FMA (`simd_level`).
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx512 if f.avx512() => unsafe { dispatch_avx512(f) },
        // SAFETY: the CPU supports AVX2 and FMA (`simd_level`).
        #[cfg(target_arch = "x86_64")]
        SimdLevel::Avx2 | SimdLevel::Avx512 => unsafe { dispatch_avx2(f) },
        _ => dispatch_scalar(f),
    }
}

/// The one-lane form of [`dispatch`], out of line so that the callers of `dispatch`
/// hold only the two calls.
#[inline(never)]
fn dispatch_scalar<T: FftReal, F: SimdFn<T>>(f: F) -> F::Out {
    f.call::<C<T>>()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,avx512f,avx512vl")]
unsafe fn dispatch_avx512<T: FftReal, F: SimdFn<T>>(f: F) -> F::Out {
    f.call::<T::Vector>()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dispatch_avx2<T: FftReal, F: SimdFn<T>>(f: F) -> F::Out {
    f.call::<T::Vector>()
}

/// The lane-by-lane form of [`Cv::scatter`] (at most 4 lanes).
///
/// # Safety
/// As [`Cv::scatter`].
#[inline(always)]
pub unsafe fn scatter_lanes<V: Cv, const R: usize>(
    o: &[V; R],
    y: *mut C<V::T>,
    l: usize,
    s: usize,
) {
    let zero = C::new(V::T::zero(), V::T::zero());
    let mut out = [[zero; 4]; R];
    for (v, row) in o.iter().zip(out.iter_mut()) {
        // SAFETY: each row holds 4 ≥ LANES values.
        unsafe { v.store(row.as_mut_ptr()) };
    }
    for i in 0..V::LANES {
        let (p, q) = ((l + i) / s, (l + i) % s);
        let base = q + s * R * p;
        for (j, row) in out.iter().enumerate() {
            // SAFETY: in bounds by the caller's contract.
            unsafe { *y.add(base + s * j) = row[i] };
        }
    }
}

impl<T: FftReal> Cv for C<T> {
    type T = T;
    const LANES: usize = 1;
    #[inline(always)]
    fn splat(z: C<T>) -> Self {
        z
    }
    #[inline(always)]
    unsafe fn load(p: *const C<T>) -> Self {
        // SAFETY: the caller guarantees `p` is readable.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut C<T>) {
        // SAFETY: the caller guarantees `p` is writable.
        unsafe { *p = self }
    }
    #[inline(always)]
    fn mul(self, w: Self) -> Self {
        self * w
    }
    #[inline(always)]
    fn scale(self, k: T) -> Self {
        C::new(self.re * k, self.im * k)
    }
    #[inline(always)]
    fn rot<const FWD: bool>(self) -> Self {
        if FWD {
            C::new(self.im, -self.re)
        } else {
            C::new(-self.im, self.re)
        }
    }
    #[inline(always)]
    fn conj(self) -> Self {
        C::conj(&self)
    }
}

/// Row `r` of `data` (rows of `width` values) times `factors[r]`, conjugated after
/// when `CONJ`; conjugated before instead when `CONJ_IN`.
pub struct RowMul<'a, T, const CONJ: bool, const CONJ_IN: bool = false> {
    pub data: &'a mut [C<T>],
    pub width: usize,
    pub factors: &'a [C<T>],
}

impl<T: FftReal, const CONJ: bool, const CONJ_IN: bool> SimdFn<T> for RowMul<'_, T, CONJ, CONJ_IN> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let w = self.width;
        let whole = w - w % V::LANES;
        for (row, &k) in self.data.chunks_exact_mut(w).zip(self.factors) {
            let kv = V::splat(k);
            let mut j = 0;
            while j < whole {
                // SAFETY: j + LANES ≤ w, the row's length.
                unsafe {
                    let p = row.as_mut_ptr().add(j);
                    let x = V::load(p);
                    let v = if CONJ_IN { x.conj() } else { x }.mul(kv);
                    if CONJ { v.conj() } else { v }.store(p);
                }
                j += V::LANES;
            }
            for z in &mut row[whole..] {
                let v = if CONJ_IN { z.conj() } else { *z } * k;
                *z = if CONJ { v.conj() } else { v };
            }
        }
    }
}

/// `out[j] = f(a[j]·b[j])` over whole vectors (`a` is `out` itself when `None`), `f`
/// the identity or a conjugation of the product (`CONJ_OUT`) or of `a` (`CONJ_A`).
pub struct Pointwise<'a, T, const CONJ_A: bool, const CONJ_OUT: bool> {
    pub out: &'a mut [C<T>],
    pub a: Option<&'a [C<T>]>,
    pub b: &'a [C<T>],
}

impl<T: FftReal, const CONJ_A: bool, const CONJ_OUT: bool> SimdFn<T>
    for Pointwise<'_, T, CONJ_A, CONJ_OUT>
{
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let n = self.out.len().min(self.b.len());
        let n = self.a.map_or(n, |a| n.min(a.len()));
        let (out, b) = (&mut self.out[..n], &self.b[..n]);
        let op = out.as_mut_ptr();
        // Reads come from `a` or, in place, from `out` through the same pointer the
        // writes use (each element is read before it is written).
        let ap = self.a.map_or(op as *const C<T>, |a| a.as_ptr());
        let whole = n - n % V::LANES;
        #[inline(always)]
        fn f<W: Cv, const CA: bool, const CO: bool>(x: W, y: W) -> W {
            let x = if CA { x.conj() } else { x };
            let p = x.mul(y);
            if CO {
                p.conj()
            } else {
                p
            }
        }
        let mut j = 0;
        while j < whole {
            // SAFETY: j + LANES ≤ n, within all three buffers.
            unsafe {
                f::<V, CONJ_A, CONJ_OUT>(V::load(ap.add(j)), V::load(b.as_ptr().add(j)))
                    .store(op.add(j))
            };
            j += V::LANES;
        }
        while j < n {
            // SAFETY: j < n, as above.
            unsafe { *op.add(j) = f::<C<T>, CONJ_A, CONJ_OUT>(*ap.add(j), b[j]) };
            j += 1;
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub use avx::{F32x4, F64x2};

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::{Cv, C};
    use std::arch::x86_64::*;
    use std::ops::{Add, Sub};

    /// Four `Complex<f32>` in one AVX register (re0, im0, re1, im1, ...).
    #[derive(Clone, Copy)]
    pub struct F32x4(__m256);
    /// Two `Complex<f64>` in one AVX register.
    #[derive(Clone, Copy)]
    pub struct F64x2(__m256d);

    // SAFETY (every block in this module): these wrappers are only reached from code
    // compiled with AVX2 and FMA enabled after runtime detection (see the module docs);
    // pointer arguments are valid per each method's contract.

    impl Add for F32x4 {
        type Output = Self;
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            // SAFETY: see the module note.
            F32x4(unsafe { _mm256_add_ps(self.0, o.0) })
        }
    }
    impl Sub for F32x4 {
        type Output = Self;
        #[inline(always)]
        fn sub(self, o: Self) -> Self {
            // SAFETY: see the module note.
            F32x4(unsafe { _mm256_sub_ps(self.0, o.0) })
        }
    }
    impl Add for F64x2 {
        type Output = Self;
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            // SAFETY: see the module note.
            F64x2(unsafe { _mm256_add_pd(self.0, o.0) })
        }
    }
    impl Sub for F64x2 {
        type Output = Self;
        #[inline(always)]
        fn sub(self, o: Self) -> Self {
            // SAFETY: see the module note.
            F64x2(unsafe { _mm256_sub_pd(self.0, o.0) })
        }
    }

    impl Cv for F32x4 {
        type T = f32;
        const LANES: usize = 4;
        #[inline(always)]
        fn splat(z: C<f32>) -> Self {
            // SAFETY: see the module note.
            F32x4(unsafe { _mm256_setr_ps(z.re, z.im, z.re, z.im, z.re, z.im, z.re, z.im) })
        }
        #[inline(always)]
        unsafe fn load(p: *const C<f32>) -> Self {
            // SAFETY: `p` is readable for 4 complex values (caller); unaligned load.
            F32x4(unsafe { _mm256_loadu_ps(p as *const f32) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut C<f32>) {
            // SAFETY: `p` is writable for 4 complex values (caller); unaligned store.
            unsafe { _mm256_storeu_ps(p as *mut f32, self.0) }
        }
        #[inline(always)]
        fn mul(self, w: Self) -> Self {
            // SAFETY: see the module note.
            unsafe {
                let wre = _mm256_moveldup_ps(w.0);
                let wim = _mm256_movehdup_ps(w.0);
                let swap = _mm256_permute_ps::<0b1011_0001>(self.0);
                F32x4(_mm256_fmaddsub_ps(self.0, wre, _mm256_mul_ps(swap, wim)))
            }
        }
        #[inline(always)]
        fn scale(self, k: f32) -> Self {
            // SAFETY: see the module note.
            F32x4(unsafe { _mm256_mul_ps(self.0, _mm256_set1_ps(k)) })
        }
        #[inline(always)]
        fn add_scaled(self, a: Self, k: f32) -> Self {
            // SAFETY: see the module note.
            F32x4(unsafe { _mm256_fmadd_ps(a.0, _mm256_set1_ps(k), self.0) })
        }
        #[inline(always)]
        fn transpose_regs(r: &mut [Self]) {
            // SAFETY: see the module note.
            unsafe {
                let d = |v: F32x4| _mm256_castps_pd(v.0);
                let f = |v: __m256d| F32x4(_mm256_castpd_ps(v));
                let t0 = _mm256_unpacklo_pd(d(r[0]), d(r[1]));
                let t1 = _mm256_unpackhi_pd(d(r[0]), d(r[1]));
                let t2 = _mm256_unpacklo_pd(d(r[2]), d(r[3]));
                let t3 = _mm256_unpackhi_pd(d(r[2]), d(r[3]));
                r[0] = f(_mm256_permute2f128_pd::<0x20>(t0, t2));
                r[1] = f(_mm256_permute2f128_pd::<0x20>(t1, t3));
                r[2] = f(_mm256_permute2f128_pd::<0x31>(t0, t2));
                r[3] = f(_mm256_permute2f128_pd::<0x31>(t1, t3));
            }
        }
        #[inline(always)]
        unsafe fn load_strided(p: *const C<f32>, stride: usize) -> Self {
            // SAFETY: the four 8-byte values are readable (caller); a complex f32 is
            // one 64-bit lane.
            unsafe {
                let at = |i: usize| p.add(i * stride) as *const f64;
                let lo = _mm_loadh_pd(_mm_load_sd(at(0)), at(1));
                let hi = _mm_loadh_pd(_mm_load_sd(at(2)), at(3));
                F32x4(_mm256_castpd_ps(_mm256_insertf128_pd::<1>(
                    _mm256_castpd128_pd256(lo),
                    hi,
                )))
            }
        }
        #[inline(always)]
        unsafe fn store_first(self, p: *mut C<f32>, count: usize) {
            // SAFETY: `count` 8-byte places at `p` are writable (caller).
            unsafe {
                let v = _mm256_castps_pd(self.0);
                let lo = _mm256_castpd256_pd128(v);
                match count {
                    0 => {}
                    1 => _mm_store_sd(p as *mut f64, lo),
                    2 => _mm_storeu_pd(p as *mut f64, lo),
                    3 => {
                        _mm_storeu_pd(p as *mut f64, lo);
                        _mm_store_sd(p.add(2) as *mut f64, _mm256_extractf128_pd::<1>(v));
                    }
                    _ => self.store(p),
                }
            }
        }
        #[inline(always)]
        unsafe fn store_strided(self, p: *mut C<f32>, stride: usize) {
            // SAFETY: the four 8-byte places are writable (caller).
            unsafe {
                let at = |i: usize| p.add(i * stride) as *mut f64;
                let v = _mm256_castps_pd(self.0);
                let (lo, hi) = (_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
                _mm_store_sd(at(0), lo);
                _mm_storeh_pd(at(1), lo);
                _mm_store_sd(at(2), hi);
                _mm_storeh_pd(at(3), hi);
            }
        }
        #[inline(always)]
        unsafe fn transpose_block(src: *const C<f32>, ss: usize, dst: *mut C<f32>, ds: usize) {
            // SAFETY: rows in bounds by the caller's contract; a complex f32 is one
            // 64-bit lane, so this is a 4×4 transpose of doubles.
            unsafe {
                let ld = |i: usize| _mm256_loadu_pd(src.add(i * ss) as *const f64);
                let (r0, r1, r2, r3) = (ld(0), ld(1), ld(2), ld(3));
                let t0 = _mm256_unpacklo_pd(r0, r1);
                let t1 = _mm256_unpackhi_pd(r0, r1);
                let t2 = _mm256_unpacklo_pd(r2, r3);
                let t3 = _mm256_unpackhi_pd(r2, r3);
                let st = |i: usize, v: __m256d| _mm256_storeu_pd(dst.add(i * ds) as *mut f64, v);
                st(0, _mm256_permute2f128_pd::<0x20>(t0, t2));
                st(1, _mm256_permute2f128_pd::<0x20>(t1, t3));
                st(2, _mm256_permute2f128_pd::<0x31>(t0, t2));
                st(3, _mm256_permute2f128_pd::<0x31>(t1, t3));
            }
        }
        #[inline(always)]
        fn rot<const FWD: bool>(self) -> Self {
            // −i·(a + ib) = b − ia; +i·(a + ib) = −b + ia: swap, then negate one part.
            // SAFETY: see the module note.
            unsafe {
                let swap = _mm256_permute_ps::<0b1011_0001>(self.0);
                let sign = if FWD {
                    _mm256_setr_ps(0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0)
                } else {
                    _mm256_setr_ps(-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0)
                };
                F32x4(_mm256_xor_ps(swap, sign))
            }
        }
        #[inline(always)]
        fn conj(self) -> Self {
            // SAFETY: see the module note.
            unsafe {
                let sign = _mm256_setr_ps(0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0);
                F32x4(_mm256_xor_ps(self.0, sign))
            }
        }

        #[inline(always)]
        unsafe fn scatter<const R: usize>(o: &[Self; R], y: *mut C<f32>, l: usize, s: usize) {
            // SAFETY (whole body): destinations are the ones `scatter_lanes` writes,
            // in bounds by the caller's contract; only the order of the moves differs.
            unsafe {
                let d = |v: F32x4| _mm256_castps_pd(v.0);
                let st = |p: *mut C<f32>, v: __m256d| _mm256_storeu_pd(p as *mut f64, v);
                if s == 1 && R % 4 == 0 {
                    // 4×4 transposes of 64-bit complex values: lanes p, rows j.
                    for g in (0..R).step_by(4) {
                        let t0 = _mm256_unpacklo_pd(d(o[g]), d(o[g + 1]));
                        let t1 = _mm256_unpackhi_pd(d(o[g]), d(o[g + 1]));
                        let t2 = _mm256_unpacklo_pd(d(o[g + 2]), d(o[g + 3]));
                        let t3 = _mm256_unpackhi_pd(d(o[g + 2]), d(o[g + 3]));
                        st(y.add(R * l + g), _mm256_permute2f128_pd::<0x20>(t0, t2));
                        st(
                            y.add(R * (l + 1) + g),
                            _mm256_permute2f128_pd::<0x20>(t1, t3),
                        );
                        st(
                            y.add(R * (l + 2) + g),
                            _mm256_permute2f128_pd::<0x31>(t0, t2),
                        );
                        st(
                            y.add(R * (l + 3) + g),
                            _mm256_permute2f128_pd::<0x31>(t1, t3),
                        );
                    }
                } else if s == 1 && R == 2 {
                    let t0 = _mm256_unpacklo_pd(d(o[0]), d(o[1]));
                    let t1 = _mm256_unpackhi_pd(d(o[0]), d(o[1]));
                    st(y.add(2 * l), _mm256_permute2f128_pd::<0x20>(t0, t1));
                    st(y.add(2 * l + 4), _mm256_permute2f128_pd::<0x31>(t0, t1));
                } else if s == 2 && R % 2 == 0 {
                    // 128-bit halves are (q = 0, 1) pairs of one p.
                    let p0 = l / 2;
                    for j in (0..R).step_by(2) {
                        let (a, b) = (d(o[j]), d(o[j + 1]));
                        st(
                            y.add(2 * (R * p0 + j)),
                            _mm256_permute2f128_pd::<0x20>(a, b),
                        );
                        st(
                            y.add(2 * (R * (p0 + 1) + j)),
                            _mm256_permute2f128_pd::<0x31>(a, b),
                        );
                    }
                } else {
                    super::scatter_lanes(o, y, l, s)
                }
            }
        }
    }

    impl Cv for F64x2 {
        type T = f64;
        const LANES: usize = 2;
        #[inline(always)]
        fn splat(z: C<f64>) -> Self {
            // SAFETY: see the module note.
            F64x2(unsafe { _mm256_setr_pd(z.re, z.im, z.re, z.im) })
        }
        #[inline(always)]
        unsafe fn load(p: *const C<f64>) -> Self {
            // SAFETY: `p` is readable for 2 complex values (caller); unaligned load.
            F64x2(unsafe { _mm256_loadu_pd(p as *const f64) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut C<f64>) {
            // SAFETY: `p` is writable for 2 complex values (caller); unaligned store.
            unsafe { _mm256_storeu_pd(p as *mut f64, self.0) }
        }
        #[inline(always)]
        fn mul(self, w: Self) -> Self {
            // SAFETY: see the module note.
            unsafe {
                let wre = _mm256_movedup_pd(w.0);
                let wim = _mm256_permute_pd::<0b1111>(w.0);
                let swap = _mm256_permute_pd::<0b0101>(self.0);
                F64x2(_mm256_fmaddsub_pd(self.0, wre, _mm256_mul_pd(swap, wim)))
            }
        }
        #[inline(always)]
        fn scale(self, k: f64) -> Self {
            // SAFETY: see the module note.
            F64x2(unsafe { _mm256_mul_pd(self.0, _mm256_set1_pd(k)) })
        }
        #[inline(always)]
        fn add_scaled(self, a: Self, k: f64) -> Self {
            // SAFETY: see the module note.
            F64x2(unsafe { _mm256_fmadd_pd(a.0, _mm256_set1_pd(k), self.0) })
        }
        #[inline(always)]
        fn transpose_regs(r: &mut [Self]) {
            // SAFETY: see the module note.
            unsafe {
                let (a, b) = (r[0].0, r[1].0);
                r[0] = F64x2(_mm256_permute2f128_pd::<0x20>(a, b));
                r[1] = F64x2(_mm256_permute2f128_pd::<0x31>(a, b));
            }
        }
        #[inline(always)]
        unsafe fn load_strided(p: *const C<f64>, stride: usize) -> Self {
            // SAFETY: both 16-byte values are readable (caller).
            unsafe {
                F64x2(_mm256_loadu2_m128d(
                    p.add(stride) as *const f64,
                    p as *const f64,
                ))
            }
        }
        #[inline(always)]
        unsafe fn store_first(self, p: *mut C<f64>, count: usize) {
            // SAFETY: `count` 16-byte places at `p` are writable (caller).
            unsafe {
                match count {
                    0 => {}
                    1 => _mm_storeu_pd(p as *mut f64, _mm256_castpd256_pd128(self.0)),
                    _ => self.store(p),
                }
            }
        }
        #[inline(always)]
        unsafe fn store_strided(self, p: *mut C<f64>, stride: usize) {
            // SAFETY: both 16-byte places are writable (caller).
            unsafe { _mm256_storeu2_m128d(p.add(stride) as *mut f64, p as *mut f64, self.0) }
        }
        #[inline(always)]
        unsafe fn transpose_block(src: *const C<f64>, ss: usize, dst: *mut C<f64>, ds: usize) {
            // SAFETY: rows in bounds by the caller's contract; 2×2 of 128-bit lanes.
            unsafe {
                let (a, b) = (
                    _mm256_loadu_pd(src as *const f64),
                    _mm256_loadu_pd(src.add(ss) as *const f64),
                );
                _mm256_storeu_pd(dst as *mut f64, _mm256_permute2f128_pd::<0x20>(a, b));
                _mm256_storeu_pd(
                    dst.add(ds) as *mut f64,
                    _mm256_permute2f128_pd::<0x31>(a, b),
                );
            }
        }
        #[inline(always)]
        fn rot<const FWD: bool>(self) -> Self {
            // SAFETY: see the module note.
            unsafe {
                let swap = _mm256_permute_pd::<0b0101>(self.0);
                let sign = if FWD {
                    _mm256_setr_pd(0.0, -0.0, 0.0, -0.0)
                } else {
                    _mm256_setr_pd(-0.0, 0.0, -0.0, 0.0)
                };
                F64x2(_mm256_xor_pd(swap, sign))
            }
        }
        #[inline(always)]
        fn conj(self) -> Self {
            // SAFETY: see the module note.
            unsafe { F64x2(_mm256_xor_pd(self.0, _mm256_setr_pd(0.0, -0.0, 0.0, -0.0))) }
        }

        #[inline(always)]
        unsafe fn scatter<const R: usize>(o: &[Self; R], y: *mut C<f64>, l: usize, s: usize) {
            // SAFETY (whole body): destinations are the ones `scatter_lanes` writes,
            // in bounds by the caller's contract; only the order of the moves differs.
            unsafe {
                if s == 1 && R % 2 == 0 {
                    // 2×2 transposes of 128-bit complex values: lanes p, rows j.
                    for j in (0..R).step_by(2) {
                        let (a, b) = (o[j].0, o[j + 1].0);
                        let lo = _mm256_permute2f128_pd::<0x20>(a, b);
                        let hi = _mm256_permute2f128_pd::<0x31>(a, b);
                        _mm256_storeu_pd(y.add(R * l + j) as *mut f64, lo);
                        _mm256_storeu_pd(y.add(R * (l + 1) + j) as *mut f64, hi);
                    }
                } else {
                    super::scatter_lanes(o, y, l, s)
                }
            }
        }
    }
}
