//! Stockham autosort radix passes with precomputed twiddles, vectorised.
//!
//! Pass `i` has radix `r`, stride `s` (the product of the earlier radices) and `m =
//! N/(r·s)`; it reads `x[q + s(p + km)]`, applies a radix-`r` butterfly and the twiddle
//! `ω_{rm}^{pj}`, and writes `y[q + s(rp + j)]`. Passes ping-pong between the data and a
//! scratch buffer; the output is in natural order in whichever one the last pass wrote.
//!
//! Every pass is written once over a complex vector type [`Cv`] and runs in one of two
//! shapes, both with whole vectors of `L` lanes where they fit and one lane for the rest:
//!
//! * **columns** (`s ≥ L`): lanes are `L` consecutive `q` for one `p`; loads and stores
//!   are contiguous and the twiddle is one broadcast value per `(p, j)`;
//! * **lanes** (`s < L`, the first passes): lanes are `L` consecutive values of the flat
//!   index `l = s·p + q`, so input `k` of the butterfly is the contiguous run
//!   `x[l + k·N/r]`; twiddles come from a table expanded to one entry per `(j, l)`, and
//!   the outputs (runs of `s` at stride `s·r`) are scattered lane by lane.
//!
//! On x86-64 with AVX2 and FMA the vector type is an AVX register (4 `f32` or 2 `f64`
//! complex values; chosen at run time), elsewhere a single complex value.

use super::butterfly::{bf16, bf2, bf4, bf8, bf_generic, bf_odd, OddConsts};
use super::simd::Cv;
use super::Loc;
use crate::scalar::{cast, Real};
use crate::twiddle::{root_dir, RootTable};
use num_complex::Complex;
use std::array::from_fn;

type C<T> = Complex<T>;

/// Strides below this use the lane-expanded twiddle table (the widest vector has 4 lanes).
const LANE_TABLE_BELOW: usize = 4;

/// Lengths up to this get every twiddle from a direct evaluation.
const DIRECT_ROOTS_MAX: usize = 4096;

#[derive(Debug, Clone)]
struct Pass<T> {
    radix: usize,
    m: usize,
    s: usize,
    /// `tw[p·r + j] = ω_{rm}^{pj}` for `p < m`, `j < r`.
    tw: Vec<C<T>>,
    /// For `s < LANE_TABLE_BELOW`: `twx[(j−1)·N/r + s·p + q] = ω_{rm}^{pj}`, `1 ≤ j < r`.
    twx: Vec<C<T>>,
    /// Constants of odd radices.
    odd: Option<OddConsts<T>>,
}

/// An executable Stockham sequence of one length and direction.
#[derive(Debug, Clone)]
pub struct Stockham<T> {
    n: usize,
    forward: bool,
    passes: Vec<Pass<T>>,
}

impl<T: Real> Stockham<T> {
    pub fn new(n: usize, radices: &[usize], forward: bool) -> Self {
        // ω_{rm}^{pj} = ω_n^{pj·s}. Small lengths evaluate every root directly; large
        // ones use the two-table product (planning time is O(n), not O(n) sin/cos).
        let table = (n > DIRECT_ROOTS_MAX).then(|| RootTable::new(n as u64, forward));
        let mut s = 1;
        let mut passes = Vec::with_capacity(radices.len());
        for &r in radices {
            let m = n / (r * s);
            let len = (r * m) as u64;
            let mut tw = Vec::with_capacity(m * r);
            for p in 0..m {
                for j in 0..r {
                    let w = match &table {
                        Some(t) => t.get((p * j * s) as u64),
                        None => root_dir((p * j) as u64, len, forward),
                    };
                    tw.push(cast(w));
                }
            }
            let mut twx = Vec::new();
            if s < LANE_TABLE_BELOW {
                twx.reserve((r - 1) * m * s);
                for j in 1..r {
                    for p in 0..m {
                        twx.extend(std::iter::repeat_n(tw[p * r + j], s));
                    }
                }
            }
            let odd = (r % 2 == 1).then(|| OddConsts::new(r, forward));
            passes.push(Pass {
                radix: r,
                m,
                s,
                tw,
                twx,
                odd,
            });
            s *= r;
        }
        Stockham { n, forward, passes }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// Transforms `a[..n]` using `b[..n]` as the other buffer; says which holds the result.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above.
            return unsafe { self.run_avx2(a, b) };
        }
        self.run_with::<C<T>>(a, b)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_avx2(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        self.run_with::<T::Vector>(a, b)
    }

    #[inline(always)]
    fn run_with<V: Cv<T = T>>(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        let n = self.n;
        let (a, b) = (&mut a[..n], &mut b[..n]);
        let mut loc = Loc::A;
        for pass in &self.passes {
            match loc {
                Loc::A => run_pass::<V>(pass, a, b, self.forward, 1, 1),
                Loc::B => run_pass::<V>(pass, b, a, self.forward, 1, 1),
            }
            loc = loc.other();
        }
        loc
    }

    /// Transforms the `width` interleaved columns of `a` (element `t` of column `c` at
    /// `c + width·t`, `n·width` in all) with `b` as the other buffer; says which holds
    /// the result (in the same layout).
    pub fn run_columns(&self, a: &mut [C<T>], b: &mut [C<T>], width: usize) -> Loc {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above.
            return unsafe { self.run_columns_avx2(a, b, width) };
        }
        self.run_columns_with::<C<T>>(a, b, width)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_columns_avx2(&self, a: &mut [C<T>], b: &mut [C<T>], width: usize) -> Loc {
        self.run_columns_with::<T::Vector>(a, b, width)
    }

    #[inline(always)]
    fn run_columns_with<V: Cv<T = T>>(&self, a: &mut [C<T>], b: &mut [C<T>], width: usize) -> Loc {
        let len = self.n * width;
        let (a, b) = (&mut a[..len], &mut b[..len]);
        let mut loc = Loc::A;
        for pass in &self.passes {
            match loc {
                Loc::A => run_pass::<V>(pass, a, b, self.forward, 1, width),
                Loc::B => run_pass::<V>(pass, b, a, self.forward, 1, width),
            }
            loc = loc.other();
        }
        loc
    }

    /// Transforms `count` consecutive transforms of `src` into `dst` (both `count·n`
    /// long), pass by pass over all of them, with `scratch` (`count·n`) as the other
    /// buffer. The passes alternate so that the last one writes `dst`.
    pub fn run_batch(&self, src: &[C<T>], dst: &mut [C<T>], scratch: &mut [C<T>], count: usize) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above.
            return unsafe { self.run_batch_avx2(src, dst, scratch, count) };
        }
        self.run_batch_with::<C<T>>(src, dst, scratch, count)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_batch_avx2(
        &self,
        src: &[C<T>],
        dst: &mut [C<T>],
        scratch: &mut [C<T>],
        count: usize,
    ) {
        self.run_batch_with::<T::Vector>(src, dst, scratch, count)
    }

    #[inline(always)]
    fn run_batch_with<V: Cv<T = T>>(
        &self,
        src: &[C<T>],
        dst: &mut [C<T>],
        scratch: &mut [C<T>],
        count: usize,
    ) {
        let len = self.n * count;
        let (src, dst, sc) = (&src[..len], &mut dst[..len], &mut scratch[..len]);
        let Some((first, rest)) = self.passes.split_first() else {
            dst.copy_from_slice(src);
            return;
        };
        // Pass i (from 0) writes dst when the passes after it are even in number.
        let mut in_dst = rest.len() % 2 == 0;
        if in_dst {
            run_pass::<V>(first, src, dst, self.forward, count, 1);
        } else {
            run_pass::<V>(first, src, sc, self.forward, count, 1);
        }
        for pass in rest {
            if in_dst {
                run_pass::<V>(pass, dst, sc, self.forward, count, 1);
            } else {
                run_pass::<V>(pass, sc, dst, self.forward, count, 1);
            }
            in_dst = !in_dst;
        }
    }
}

#[inline(always)]
fn run_pass<V: Cv>(
    p: &Pass<V::T>,
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    fwd: bool,
    count: usize,
    inner: usize,
) {
    macro_rules! go {
        ($r:literal, $bf:expr) => {
            pass::<V, $r, _>(x, y, p, $bf, count, inner)
        };
    }
    match (p.radix, fwd, &p.odd) {
        (2, _, _) => go!(2, Pow2::<true>),
        (4, true, _) => go!(4, Pow2::<true>),
        (4, false, _) => go!(4, Pow2::<false>),
        (8, true, _) => go!(8, Pow2::<true>),
        (8, false, _) => go!(8, Pow2::<false>),
        (16, true, _) => go!(16, Pow2::<true>),
        (16, false, _) => go!(16, Pow2::<false>),
        (3, _, Some(k)) => go!(3, Odd(k)),
        (5, _, Some(k)) => go!(5, Odd(k)),
        (7, _, Some(k)) => go!(7, Odd(k)),
        (11, _, Some(k)) => go!(11, Odd(k)),
        (13, _, Some(k)) => go!(13, Odd(k)),
        (r, _, Some(k)) => {
            let n = r * p.m * p.s * inner;
            for (xb, yb) in x.chunks_exact(n).zip(y.chunks_exact_mut(n)).take(count) {
                pass_generic(xb, yb, r, p.m, p.s * inner, &p.tw, k)
            }
        }
        // Even radices other than the above are never planned.
        (r, _, None) => debug_assert!(false, "no butterfly for radix {r}"),
    }
}

/// A radix-`R` butterfly over any vector type of precision `T`, always inlined.
trait Butterfly<T, const R: usize> {
    fn apply<V: Cv<T = T>>(&self, a: [V; R]) -> [V; R];
}

/// Radices 2, 4, 8, 16 with direction `F` (forward when true).
struct Pow2<const F: bool>;

macro_rules! pow2 {
    ($r:literal, $f:ident) => {
        impl<T: Real, const F: bool> Butterfly<T, $r> for Pow2<F> {
            #[inline(always)]
            fn apply<V: Cv<T = T>>(&self, a: [V; $r]) -> [V; $r] {
                $f::<V, F>(a)
            }
        }
    };
}
pow2!(4, bf4);
pow2!(8, bf8);
pow2!(16, bf16);

impl<T: Real, const F: bool> Butterfly<T, 2> for Pow2<F> {
    #[inline(always)]
    fn apply<V: Cv<T = T>>(&self, a: [V; 2]) -> [V; 2] {
        bf2(a)
    }
}

/// Odd prime radices with their constants.
struct Odd<'a, T>(&'a OddConsts<T>);

impl<T: Real, const R: usize> Butterfly<T, R> for Odd<'_, T> {
    #[inline(always)]
    fn apply<V: Cv<T = T>>(&self, a: [V; R]) -> [V; R] {
        bf_odd::<V, R>(a, self.0)
    }
}

/// One radix-`R` pass over `count` consecutive blocks, each `inner` interleaved
/// transforms (element `t` of transform `c` at `c + inner·t`): whole vectors where they
/// fit, single lanes for the rest. Interleaved transforms are one Stockham sequence
/// whose strides are all `inner` times larger.
#[inline(always)]
fn pass<V: Cv, const R: usize, B: Butterfly<V::T, R>>(
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    p: &Pass<V::T>,
    bf: B,
    count: usize,
    inner: usize,
) {
    let (m, s) = (p.m, p.s * inner);
    let nr = m * s;
    let n = R * nr;
    // The raw-pointer loops below rely on these bounds.
    assert!(x.len() >= n * count && y.len() >= n * count && p.tw.len() >= R * m);
    let lanes = V::LANES;
    let blocks = (count, n);
    if s >= lanes {
        let whole = s - s % lanes;
        // The last pass (m = 1) has only unit twiddles.
        if m == 1 {
            columns::<V, R, B, false>(x, y, p, s, 0, whole, &bf, blocks);
            if whole < s {
                columns::<C<V::T>, R, B, false>(x, y, p, s, whole, s, &bf, blocks);
            }
        } else {
            columns::<V, R, B, true>(x, y, p, s, 0, whole, &bf, blocks);
            if whole < s {
                columns::<C<V::T>, R, B, true>(x, y, p, s, whole, s, &bf, blocks);
            }
        }
    } else if inner > 1 {
        columns::<C<V::T>, R, B, true>(x, y, p, s, 0, s, &bf, blocks);
    } else {
        assert!(p.twx.len() >= (R - 1) * nr);
        let whole = nr - nr % lanes;
        flat_lanes::<V, R, B>(x, y, p, 0, whole, &bf, blocks);
        if whole < nr {
            flat_lanes::<C<V::T>, R, B>(x, y, p, whole, nr, &bf, blocks);
        }
    }
}

/// Columns `q0..q1` (a multiple of the lane count apart) of every `p`, in each of
/// `blocks.0` consecutive blocks of `blocks.1` elements (the twiddles loaded once for all).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn columns<V: Cv, const R: usize, B: Butterfly<V::T, R>, const TW: bool>(
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    pass: &Pass<V::T>,
    s: usize,
    q0: usize,
    q1: usize,
    bf: &B,
    (count, n): (usize, usize),
) {
    let m = pass.m;
    let (xp, yp) = (x.as_ptr(), y.as_mut_ptr());
    for p in 0..m {
        let w: [V; R] = from_fn(|j| V::splat(pass.tw[p * R + j]));
        for blk in 0..count {
            let mut q = q0;
            while q < q1 {
                // SAFETY: q + LANES ≤ q1 ≤ s, p < m and k, j < R, so every index is
                // below blk·n + R·m·s ≤ count·n ≤ len (asserted in `pass`).
                unsafe {
                    let (xb, yb) = (xp.add(blk * n), yp.add(blk * n));
                    let a: [V; R] = from_fn(|k| V::load(xb.add(q + s * (p + k * m))));
                    let b = bf.apply(a);
                    for (j, &bj) in b.iter().enumerate() {
                        let v = if TW && j > 0 { bj.mul(w[j]) } else { bj };
                        v.store(yb.add(q + s * (R * p + j)));
                    }
                }
                q += V::LANES;
            }
        }
    }
}

/// Flat indices `l0..l1` (a multiple of the lane count apart), `l = s·p + q`, in each
/// of `blocks.0` consecutive blocks of `blocks.1` elements.
#[inline(always)]
fn flat_lanes<V: Cv, const R: usize, B: Butterfly<V::T, R>>(
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    pass: &Pass<V::T>,
    l0: usize,
    l1: usize,
    bf: &B,
    (count, n): (usize, usize),
) {
    let (m, s) = (pass.m, pass.s);
    let nr = m * s;
    for blk in 0..count {
        // SAFETY: blk·n + n ≤ count·n ≤ len (asserted in `pass`).
        let (xp, yp, tp) = unsafe {
            (
                x.as_ptr().add(blk * n),
                y.as_mut_ptr().add(blk * n),
                pass.twx.as_ptr(),
            )
        };
        let mut l = l0;
        while l < l1 {
            // SAFETY: l + LANES ≤ l1 ≤ nr and k, j < R: loads stay below R·nr = n past
            // the block start and (R−1)·nr ≤ twx.len(), stores below n past it
            // (asserted in `pass`).
            unsafe {
                let a: [V; R] = from_fn(|k| V::load(xp.add(l + k * nr)));
                let mut b = bf.apply(a);
                for (j, bj) in b.iter_mut().enumerate().skip(1) {
                    *bj = bj.mul(V::load(tp.add((j - 1) * nr + l)));
                }
                V::scatter(&b, yp, l, s);
            }
            l += V::LANES;
        }
    }
}

fn pass_generic<T: Real>(
    x: &[C<T>],
    y: &mut [C<T>],
    r: usize,
    m: usize,
    s: usize,
    tw: &[C<T>],
    k: &OddConsts<T>,
) {
    let zero = C::new(T::zero(), T::zero());
    let mut a = [zero; 64];
    let mut b = [zero; 64];
    for (p, (yp, w)) in y
        .chunks_exact_mut(r * s)
        .zip(tw.chunks_exact(r))
        .enumerate()
    {
        for q in 0..s {
            for (kk, ak) in a[..r].iter_mut().enumerate() {
                *ak = x[q + s * (p + kk * m)];
            }
            bf_generic(&a[..r], &mut b[..r], k);
            for j in 0..r {
                yp[j * s + q] = b[j] * w[j];
            }
        }
    }
}
