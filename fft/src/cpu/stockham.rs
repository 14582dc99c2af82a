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

use super::butterfly::{bf16, bf2, bf3, bf4, bf8, bf9, bf_generic_v, bf_odd, OddConsts};
use super::simd::{Cv, SimdFn};
use super::{Loc, Raw};
use crate::scalar::{cast, Real};
use crate::twiddle::{root_dir, RootTable};
use num_complex::Complex;
use num_traits::Zero;
use rayon::prelude::*;
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
                // Exponents p·j·s < r·m·s = n, stepped exactly.
                let mut e = 0u64;
                for j in 0..r {
                    let w = match &table {
                        Some(t) => t.get_reduced(e),
                        None => root_dir((p * j) as u64, len, forward),
                    };
                    tw.push(cast(w));
                    e += (p * s) as u64;
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
        if self.in_registers(a, b, 1) {
            return Loc::B;
        }
        self.run_columns(a, b, 1)
    }

    /// Runs `count` consecutive transforms of `x` into `y` one at a time entirely in
    /// registers when the plan has two passes whose radices are both multiples of the
    /// lane count (see [`in_registers`]); returns false (nothing done) otherwise.
    fn in_registers(&self, x: &[C<T>], y: &mut [C<T>], count: usize) -> bool {
        self.passes.len() == 2
            && super::simd::dispatch(InRegisters {
                st: self,
                x,
                y,
                count,
            })
    }

    /// Transforms the `width` interleaved columns of `a` (element `t` of column `c` at
    /// `c + width·t`, `n·width` in all) with `b` as the other buffer; says which holds
    /// the result (in the same layout).
    pub fn run_columns(&self, a: &mut [C<T>], b: &mut [C<T>], width: usize) -> Loc {
        let len = self.n * width;
        let (a, b) = (&mut a[..len], &mut b[..len]);
        let mut loc = Loc::A;
        for pass in &self.passes {
            let (x, y) = match loc {
                Loc::A => (&*a, &mut *b),
                Loc::B => (&*b, &mut *a),
            };
            exec_pass(pass, x, y, self.forward, 1, width, 1);
            loc = loc.other();
        }
        loc
    }

    /// Whether a batch runs better as interleaved columns ([`Self::run_columns`] on
    /// transposed groups of transforms) than transform by transform: when the first
    /// pass cannot fill whole vectors (a single pass, or a first radix that is not a
    /// multiple of the vector's lane count).
    pub fn prefers_columns(&self) -> bool {
        let lanes = if super::simd::has_avx2_fma() {
            <T::Vector as Cv>::LANES
        } else {
            1
        };
        match self.passes.first() {
            None => false,
            Some(first) => lanes > 1 && (self.passes.len() == 1 || first.radix % lanes != 0),
        }
    }

    /// Transforms `count` consecutive transforms of `src` into `dst` (both `count·n`
    /// long), pass by pass over all of them, with `scratch` (`count·n`) as the other
    /// buffer. The passes alternate so that the last one writes `dst`.
    ///
    /// With `parts > 1` (and one transform) every pass is shared among `parts` tasks
    /// on the rayon pool.
    pub fn run_batch(
        &self,
        src: &[C<T>],
        dst: &mut [C<T>],
        scratch: &mut [C<T>],
        count: usize,
        parts: usize,
    ) {
        let parts = if count == 1 { parts.max(1) } else { 1 };
        if parts == 1 && self.in_registers(src, dst, count) {
            return;
        }
        let len = self.n * count;
        let (src, dst, sc) = (&src[..len], &mut dst[..len], &mut scratch[..len]);
        let Some((first, rest)) = self.passes.split_first() else {
            dst.copy_from_slice(src);
            return;
        };
        // Pass i (from 0) writes dst when the passes after it are even in number.
        let mut in_dst = rest.len() % 2 == 0;
        if in_dst {
            exec_pass(first, src, dst, self.forward, count, 1, parts);
        } else {
            exec_pass(first, src, sc, self.forward, count, 1, parts);
        }
        for pass in rest {
            if in_dst {
                exec_pass(pass, dst, sc, self.forward, count, 1, parts);
            } else {
                exec_pass(pass, sc, dst, self.forward, count, 1, parts);
            }
            in_dst = !in_dst;
        }
    }
}

/// One pass with the widest vectors the CPU has (see [`super::simd::dispatch`]), in
/// `parts` shares on the rayon pool when `parts > 1` (one transform, `count = 1`).
fn exec_pass<T: Real>(
    pass: &Pass<T>,
    x: &[C<T>],
    y: &mut [C<T>],
    fwd: bool,
    count: usize,
    inner: usize,
    parts: usize,
) {
    // SAFETY: `y` is borrowed mutably for this call; the shares write disjoint places
    // (see `pass`) and nothing else touches `y` meanwhile.
    let out = unsafe { Raw::new(y.as_mut_ptr(), y.len()) };
    let job = |i: usize| {
        super::simd::dispatch(PassJob {
            pass,
            x,
            y: out,
            fwd,
            count,
            inner,
            part: (i, parts),
        })
    };
    if parts > 1 {
        (0..parts).into_par_iter().for_each(job);
    } else {
        job(0);
    }
}

struct PassJob<'a, T> {
    pass: &'a Pass<T>,
    x: &'a [C<T>],
    /// The output: written only at this part's places (see [`pass`]).
    y: Raw<C<T>>,
    fwd: bool,
    count: usize,
    inner: usize,
    /// `(i, parts)`: this job does the `i`-th of `parts` disjoint shares of the pass.
    part: (usize, usize),
}

impl<T: Real> SimdFn<T> for PassJob<'_, T> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        run_pass::<V>(
            self.pass, self.x, self.y, self.fwd, self.count, self.inner, self.part,
        )
    }
}

/// `[lo, hi)` of share `i` of `parts` of `0..len`, boundaries multiples of `align`.
#[inline(always)]
fn share(len: usize, (i, parts): (usize, usize), align: usize) -> (usize, usize) {
    let units = len / align;
    let at = |k: usize| {
        if k >= parts {
            len
        } else {
            units * k / parts * align
        }
    };
    (at(i), at(i + 1))
}

#[inline(always)]
fn run_pass<V: Cv>(
    p: &Pass<V::T>,
    x: &[C<V::T>],
    y: Raw<C<V::T>>,
    fwd: bool,
    count: usize,
    inner: usize,
    part: (usize, usize),
) {
    macro_rules! go {
        ($r:literal, $bf:expr) => {
            pass::<V, $r, _>(x, y, p, $bf, count, inner, part)
        };
    }
    match (p.radix, fwd, &p.odd) {
        (2, _, _) => go!(2, Dir::<true>),
        (3, true, _) => go!(3, Dir::<true>),
        (3, false, _) => go!(3, Dir::<false>),
        (4, true, _) => go!(4, Dir::<true>),
        (4, false, _) => go!(4, Dir::<false>),
        (8, true, _) => go!(8, Dir::<true>),
        (8, false, _) => go!(8, Dir::<false>),
        (9, true, _) => go!(9, Dir::<true>),
        (9, false, _) => go!(9, Dir::<false>),
        (16, true, _) => go!(16, Dir::<true>),
        (16, false, _) => go!(16, Dir::<false>),
        (5, _, Some(k)) => go!(5, Odd(k)),
        (7, _, Some(k)) => go!(7, Odd(k)),
        (11, _, Some(k)) => go!(11, Odd(k)),
        (13, _, Some(k)) => go!(13, Odd(k)),
        (r, _, Some(k)) => {
            let s = p.s * inner;
            let n = r * p.m * s;
            assert!(x.len() >= n * count && y.len >= n * count && p.tw.len() >= r * p.m);
            let ps = share(p.m, part, 1);
            if s >= V::LANES {
                let whole = s - s % V::LANES;
                generic_columns::<V>(x, y, p, k, s, ps, (0, whole), (count, n));
                if whole < s {
                    generic_columns::<C<V::T>>(x, y, p, k, s, ps, (whole, s), (count, n));
                }
            } else {
                generic_columns::<C<V::T>>(x, y, p, k, s, ps, (0, s), (count, n));
            }
        }
        // Even radices other than the above are never planned.
        (r, _, None) => debug_assert!(false, "no butterfly for radix {r}"),
    }
}

struct InRegisters<'a, T> {
    st: &'a Stockham<T>,
    x: &'a [C<T>],
    y: &'a mut [C<T>],
    count: usize,
}

impl<T: Real> SimdFn<T> for InRegisters<'_, T> {
    type Out = bool;
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) -> bool {
        let [p1, p2] = &self.st.passes[..] else {
            return false;
        };
        let l = V::LANES;
        if l == 1 || p1.radix % l != 0 || p2.radix % l != 0 || p1.radix * p2.radix / l > 16 {
            return false;
        }
        let (x, y, count) = (self.x, self.y, self.count);
        macro_rules! go {
            ($r1:literal, $r2:literal) => {
                if self.st.forward {
                    in_registers::<V, $r1, $r2, _, _>(p1, x, y, count, &Dir::<true>, &Dir::<true>)
                } else {
                    in_registers::<V, $r1, $r2, _, _>(p1, x, y, count, &Dir::<false>, &Dir::<false>)
                }
            };
        }
        match (p1.radix, p2.radix) {
            (4, 4) => go!(4, 4),
            (8, 4) => go!(8, 4),
            (4, 8) => go!(4, 8),
            (8, 8) => go!(8, 8),
            _ => return false,
        }
        true
    }
}

/// A two-pass plan `[R1, R2]` (both multiples of the lane count `L`), one transform at
/// a time in registers: the first pass loads rows `x[k·R2 + L·g ..][..L]` (lanes are
/// `L` consecutive `p`), applies the radix-`R1` butterfly across registers and the
/// twiddles `ω_N^{p·j}`; `L × L` register transposes then put `L` consecutive `j` in
/// the lanes, so the radix-`R2` butterfly of the second pass runs across registers
/// too and its outputs `X[j + R1·k2]` are stored as whole vectors. The same
/// arithmetic as the two passes, without the round trip through memory.
#[inline(always)]
fn in_registers<V: Cv, const R1: usize, const R2: usize, B1, B2>(
    first: &Pass<V::T>,
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    count: usize,
    b1: &B1,
    b2: &B2,
) where
    B1: Butterfly<V::T, R1>,
    B2: Butterfly<V::T, R2>,
{
    const MAX_REGS: usize = 16;
    let l = V::LANES;
    let n = R1 * R2;
    let (pgs, jgs) = (R2 / l, R1 / l);
    assert!(l > 1 && l <= 4 && R1 % l == 0 && R2 % l == 0 && R1 * pgs <= MAX_REGS);
    assert!(x.len() >= n * count && y.len() >= n * count);
    assert!(first.twx.len() >= (R1 - 1) * R2);
    let z = V::splat(C::new(V::T::zero(), V::T::zero()));
    let tp = first.twx.as_ptr();
    for blk in 0..count {
        // SAFETY: loads stay below blk·n + (R1 − 1)·R2 + R2 = (blk + 1)·n and stores
        // below blk·n + (R1 − L) + R1·(R2 − 1) + L = (blk + 1)·n, within count·n (asserted);
        // twiddle loads below (R1 − 2)·R2 + R2 ≤ twx.len().
        unsafe {
            let (xb, yb) = (x.as_ptr().add(blk * n), y.as_mut_ptr().add(blk * n));
            let mut regs = [z; MAX_REGS];
            for pg in 0..pgs {
                let a: [V; R1] = from_fn(|k| V::load(xb.add(k * R2 + pg * l)));
                let b = b1.apply(a);
                for (j, &bj) in b.iter().enumerate() {
                    regs[j * pgs + pg] = if j > 0 {
                        bj.mul(V::load(tp.add((j - 1) * R2 + pg * l)))
                    } else {
                        bj
                    };
                }
            }
            for jg in 0..jgs {
                let mut t = [z; R2];
                for pg in 0..pgs {
                    let mut sq = [z; 4];
                    for (u, v) in sq.iter_mut().enumerate().take(l) {
                        *v = regs[(jg * l + u) * pgs + pg];
                    }
                    V::transpose_regs(&mut sq[..l]);
                    t[pg * l..pg * l + l].copy_from_slice(&sq[..l]);
                }
                let o = b2.apply(t);
                for (k2, &ok) in o.iter().enumerate() {
                    ok.store(yb.add(jg * l + R1 * k2));
                }
            }
        }
    }
}

/// A radix-`R` butterfly over any vector type of precision `T`, always inlined.
trait Butterfly<T, const R: usize> {
    fn apply<V: Cv<T = T>>(&self, a: [V; R]) -> [V; R];
}

/// Radices with constant butterflies (2, 3, 4, 8, 9, 16) in direction `F` (forward
/// when true).
struct Dir<const F: bool>;

macro_rules! fixed {
    ($r:literal, $f:ident) => {
        impl<T: Real, const F: bool> Butterfly<T, $r> for Dir<F> {
            #[inline(always)]
            fn apply<V: Cv<T = T>>(&self, a: [V; $r]) -> [V; $r] {
                $f::<V, F>(a)
            }
        }
    };
}
fixed!(3, bf3);
fixed!(4, bf4);
fixed!(8, bf8);
fixed!(9, bf9);
fixed!(16, bf16);

impl<T: Real, const F: bool> Butterfly<T, 2> for Dir<F> {
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
///
/// Share `part.0` of `part.1` takes a range of `p` (or, when there are fewer `p` than
/// shares, of whole-vector columns `q`; in the lane shape a range of flat indices), so
/// the shares write disjoint places.
#[inline(always)]
fn pass<V: Cv, const R: usize, B: Butterfly<V::T, R>>(
    x: &[C<V::T>],
    y: Raw<C<V::T>>,
    p: &Pass<V::T>,
    bf: B,
    count: usize,
    inner: usize,
    part: (usize, usize),
) {
    let (m, s) = (p.m, p.s * inner);
    let nr = m * s;
    let n = R * nr;
    // The raw-pointer loops below rely on these bounds.
    assert!(x.len() >= n * count && y.len >= n * count && p.tw.len() >= R * m);
    let lanes = V::LANES;
    let blocks = (count, n);
    let last = part.0 + 1 == part.1;
    if s >= lanes {
        let whole = s - s % lanes;
        // Shares of p, or of the columns when p is too short to share.
        let (ps, qs, tail) = if m >= part.1 {
            (share(m, part, 1), (0, whole), whole < s)
        } else {
            ((0, m), share(whole, part, lanes), whole < s && last)
        };
        // The last pass (m = 1) has only unit twiddles.
        if m == 1 {
            columns::<V, R, B, false>(x, y, p, s, ps, qs, &bf, blocks);
            if tail {
                columns::<C<V::T>, R, B, false>(x, y, p, s, ps, (whole, s), &bf, blocks);
            }
        } else {
            columns::<V, R, B, true>(x, y, p, s, ps, qs, &bf, blocks);
            if tail {
                columns::<C<V::T>, R, B, true>(x, y, p, s, ps, (whole, s), &bf, blocks);
            }
        }
    } else if inner > 1 {
        columns::<C<V::T>, R, B, true>(x, y, p, s, share(m, part, 1), (0, s), &bf, blocks);
    } else {
        assert!(p.twx.len() >= (R - 1) * nr);
        let whole = nr - nr % lanes;
        let (l0, l1) = share(whole, part, lanes);
        flat_lanes::<V, R, B>(x, y, p, l0, l1, &bf, blocks);
        if whole < nr && last {
            flat_lanes::<C<V::T>, R, B>(x, y, p, whole, nr, &bf, blocks);
        }
    }
}

/// Columns `q0..q1` (a multiple of the lane count apart) of `p` in `p0..p1`, in each
/// of `blocks.0` consecutive blocks of `blocks.1` elements (the twiddles loaded once
/// for all).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn columns<V: Cv, const R: usize, B: Butterfly<V::T, R>, const TW: bool>(
    x: &[C<V::T>],
    y: Raw<C<V::T>>,
    pass: &Pass<V::T>,
    s: usize,
    (p0, p1): (usize, usize),
    (q0, q1): (usize, usize),
    bf: &B,
    (count, n): (usize, usize),
) {
    let m = pass.m;
    let (xp, yp) = (x.as_ptr(), y.ptr);
    for p in p0..p1 {
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
    y: Raw<C<V::T>>,
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
                y.ptr.add(blk * n),
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

/// A generic odd prime radix `r` (up to [`crate::plan::MAX_DIRECT_PRIME`]) on columns
/// `q0..q1` (a multiple of the lane count apart) of every `p`, in each of `blocks.0`
/// consecutive blocks of `blocks.1` elements.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn generic_columns<V: Cv>(
    x: &[C<V::T>],
    y: Raw<C<V::T>>,
    pass: &Pass<V::T>,
    k: &OddConsts<V::T>,
    s: usize,
    (p0, p1): (usize, usize),
    (q0, q1): (usize, usize),
    (count, n): (usize, usize),
) {
    const MAX: usize = 64;
    let (r, m) = (pass.radix, pass.m);
    assert!(r < MAX);
    let z = V::splat(C::new(V::T::zero(), V::T::zero()));
    let (mut a, mut b) = ([z; MAX], [z; MAX]);
    let (mut sp, mut sm) = ([z; MAX / 2 + 1], [z; MAX / 2 + 1]);
    let (xp, yp) = (x.as_ptr(), y.ptr);
    for p in p0..p1 {
        let tw = &pass.tw[p * r..][..r];
        for blk in 0..count {
            let mut q = q0;
            while q < q1 {
                // SAFETY: q + LANES ≤ q1 ≤ s, p < m and k, j < r, so every index is
                // below blk·n + r·m·s ≤ count·n ≤ len (asserted by the caller).
                unsafe {
                    let (xb, yb) = (xp.add(blk * n), yp.add(blk * n));
                    for (kk, ak) in a[..r].iter_mut().enumerate() {
                        *ak = V::load(xb.add(q + s * (p + kk * m)));
                    }
                    bf_generic_v(&a[..r], &mut b[..r], k, &mut sp, &mut sm);
                    for (j, &bj) in b[..r].iter().enumerate() {
                        let v = if m > 1 && j > 0 {
                            bj.mul(V::splat(tw[j]))
                        } else {
                            bj
                        };
                        v.store(yb.add(q + s * (r * p + j)));
                    }
                }
                q += V::LANES;
            }
        }
    }
}
