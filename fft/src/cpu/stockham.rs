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
use super::cache::Table;
use super::simd::{Cv, SimdFn};
use super::{Loc, Raw};
use crate::scalar::{cast, Real};
use crate::twiddle::{root_dir, RootTable};
use num_complex::Complex;
use num_traits::{One, Zero};
use rayon::prelude::*;
use std::array::from_fn;
use std::sync::Arc;

type C<T> = Complex<T>;

/// Strides below this use the lane-expanded twiddle table (the widest vector has 4 lanes).
const LANE_TABLE_BELOW: usize = 4;

/// Lengths up to this get every twiddle from a direct evaluation.
const DIRECT_ROOTS_MAX: usize = 4096;

#[derive(Debug)]
struct Pass<T> {
    radix: usize,
    m: usize,
    s: usize,
    /// `tw[(j−1)·m + p] = ω_{rm}^{pj}` for `1 ≤ j < r`, `p < m` (rows by `j`: for
    /// `s = 1` this is also the lane shape's table, see [`Pass::lane_tw`]).
    tw: Table<C<T>>,
    /// For `1 < s < LANE_TABLE_BELOW`: `twx[(j−1)·m·s + s·p + q] = ω_{rm}^{pj}`.
    twx: Table<C<T>>,
    /// Constants of odd radices.
    odd: Option<OddConsts<T>>,
}

impl<T> Pass<T> {
    /// The twiddle `ω_{rm}^{pj}` for `1 ≤ j < r`.
    #[inline(always)]
    fn twiddle(&self, p: usize, j: usize) -> &C<T> {
        &self.tw[(j - 1) * self.m + p]
    }

    /// The lane shape's table (`s < LANE_TABLE_BELOW`):
    /// `lane_tw()[(j−1)·m·s + s·p + q] = ω_{rm}^{pj}`, `1 ≤ j < r`, `q < s`.
    #[inline(always)]
    fn lane_tw(&self) -> &[C<T>] {
        if self.s == 1 {
            &self.tw
        } else {
            &self.twx
        }
    }

    fn bytes(&self) -> usize {
        (self.tw.len() + self.twx.len()) * std::mem::size_of::<C<T>>()
    }
}

/// An executable Stockham sequence of one length and direction.
#[derive(Debug, Clone)]
pub struct Stockham<T> {
    n: usize,
    forward: bool,
    /// The passes and their tables, shared by every plan of this length, radices,
    /// precision and direction (see [`super::cache`]).
    passes: Arc<Vec<Pass<T>>>,
}

/// Table entries above which a table is filled by several rayon tasks. (Below it
/// one thread fills it in well under the cost of a task dispatch plus, in a fresh
/// process, starting the pool: 65536 cold 0.75 -> 0.45 ms with 2^17 against 2^15.)
const PAR_TABLE_MIN: usize = 1 << 17;

/// The passes of `radices` (product `n`) with their twiddles.
///
/// Every twiddle is `ω_{rm}^{pj} = ω_n^{s·p·j}` with the exponent exact in integers.
/// When `4 | n` they all come from the quarter table `Q[e] = ω_n^e`, `e < n/4` (see
/// [`fill_quarter`]), by exact rotations: `ω_n^e = (ω_n^{n/4})^{⌊e/(n/4)⌋} · Q[e mod n/4]`
/// with `ω_n^{n/4} = ∓i` (a swap and a sign flip), so planning costs `n/8` root
/// evaluations and a lookup per entry. Other lengths evaluate each root directly
/// (small `n`) or take the two-table product of [`RootTable`] (about 2 ulp of `f64`
/// before the rounding to `T`). Each pass keeps one table (rows by `j`); the lane
/// shape's expanded copy exists only for strides 2 and 3. Large tables are filled
/// in parallel.
fn build_passes<T: Real>(n: usize, radices: &[usize], forward: bool) -> Vec<Pass<T>> {
    let table = (n > DIRECT_ROOTS_MAX).then(|| RootTable::new(n as u64, forward));
    let quarter_len = if n % 4 == 0 { n / 4 } else { 0 };
    // The quarter table: the start of the first pass's table when that pass has
    // stride 1 and at least n/4 twiddles in its first row (radix 2 or 4), else its own.
    let own_quarter = quarter_len > 0 && radices.first().is_none_or(|&r| r > 4);
    let mut quarter: Table<C<T>> = Table::default();
    if own_quarter {
        quarter = Table::filled(quarter_len, C::zero());
        fill_quarter(&mut quarter, n, table.as_ref(), forward);
    }
    let mut s = 1;
    let mut passes: Vec<Pass<T>> = Vec::with_capacity(radices.len());
    for &r in radices {
        let m = n / (r * s);
        let entries = (r - 1) * m;
        let mut tw = Table::filled(entries, C::zero());
        let src = |q| Source {
            n,
            m,
            s,
            forward,
            quarter: q,
            table: table.as_ref(),
        };
        if quarter_len > 0 && !own_quarter && s == 1 {
            // The first entries of the first pass are the quarter table itself.
            let (q, rest) = tw.split_at_mut(quarter_len);
            fill_quarter(q, n, table.as_ref(), forward);
            src(Some(q)).fill(rest, quarter_len);
        } else if own_quarter {
            src(Some(&quarter)).fill(&mut tw, 0);
        } else if quarter_len > 0 {
            src(passes.first().map(|f| &f.tw[..quarter_len])).fill(&mut tw, 0);
        } else {
            src(None).fill(&mut tw, 0);
        }
        let mut twx = Table::default();
        if s > 1 && s < LANE_TABLE_BELOW {
            twx = Table::filled(entries * s, C::zero());
            for (x, &w) in twx.chunks_exact_mut(s).zip(tw.iter()) {
                x.fill(w);
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
    passes
}
/// `q[e] = ω_n^e` for `e < n/4` (`4 | n`, `q.len() = n/4`): the first octant
/// evaluated (directly, or from `table` when given), the second its exact mirror
/// `ω_n^{n/4−e} = ω_n^{n/4}·conj(ω_n^e)`, `ω_n^{n/4} = ∓i`.
fn fill_quarter<T: Real>(q: &mut [C<T>], n: usize, table: Option<&RootTable>, forward: bool) {
    let root = |e: usize| match table {
        Some(t) => t.get_reduced(e as u64),
        None => root_dir(e as u64, n as u64, forward),
    };
    let quarter = n / 4;
    debug_assert_eq!(q.len(), quarter);
    // e ≤ n/8 evaluated; the rest (n/4 − e < n/8 + 1) mirrored from those.
    let (lo, hi) = q.split_at_mut((n / 8 + 1).min(quarter));
    par_fill(lo, 0, |e0, out| {
        for (e, z) in (e0..).zip(out.iter_mut()) {
            *z = cast(root(e));
        }
    });
    let lo = &*lo;
    let first = lo.len();
    par_fill(hi, first, |e0, out| {
        for (e, z) in (e0..).zip(out.iter_mut()) {
            let w = lo[quarter - e];
            // ∓i · conj(w): forward (−im, −re), backward (im, re).
            *z = if forward {
                C::new(-w.im, -w.re)
            } else {
                C::new(w.im, w.re)
            };
        }
    });
}

/// Fills `out` (entries `i0..` of a table) by `fill(i0, out)`, in parallel chunks
/// when large.
fn par_fill<T: Send>(out: &mut [T], i0: usize, fill: impl Fn(usize, &mut [T]) + Sync) {
    if out.len() >= PAR_TABLE_MIN {
        let chunk = PAR_TABLE_MIN / 4;
        out.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, o)| fill(i0 + c * chunk, o));
    } else {
        fill(i0, out);
    }
}

/// Where the twiddles of one pass (radix `n/(m·s)`) come from.
struct Source<'a, T> {
    n: usize,
    m: usize,
    s: usize,
    forward: bool,
    /// The quarter table (`4 | n`, see [`fill_quarter`]).
    quarter: Option<&'a [C<T>]>,
    /// The two-table roots for large `n` without a quarter table.
    table: Option<&'a RootTable>,
}

impl<T: Real> Source<'_, T> {
    /// Entries `i0..` of the pass's table: entry `i = (j−1)·m + p` is `ω_n^{s·p·j}`.
    fn fill(&self, out: &mut [C<T>], i0: usize) {
        let (n, m, s, forward) = (self.n, self.m, self.s, self.forward);
        match (self.quarter, self.table) {
            (Some(q), _) => {
                let ql = n / 4;
                debug_assert_eq!(q.len(), ql);
                par_fill(out, i0, |i0, out| {
                    let (mut j, mut p) = (i0 / m + 1, i0 % m);
                    let mut out = out;
                    while !out.is_empty() {
                        // The rest of row j from p: e = s·j·p stepped by s·j.
                        let (seg, rest) = out.split_at_mut((m - p).min(out.len()));
                        let e = s * j * p;
                        quarter_run(seg, q, e / ql, e % ql, s * j, forward);
                        out = rest;
                        (p, j) = (0, j + 1);
                    }
                });
            }
            (None, table) => {
                let len = (n / s) as u64;
                par_fill(out, i0, |i0, out| {
                    let (mut j, mut p) = (i0 / m + 1, i0 % m);
                    let mut e = (s * p * j) as u64;
                    for z in out.iter_mut() {
                        let w = match table {
                            Some(t) => t.get_reduced(e),
                            None => root_dir((p * j) as u64, len, forward),
                        };
                        *z = cast(w);
                        p += 1;
                        e += (s * j) as u64;
                        if p == m {
                            (p, j) = (0, j + 1);
                            e = 0;
                        }
                    }
                });
            }
        }
    }
}

/// `out[i] = ω_n^{e + i·step}` from the quarter table `q` (`n/4` values), the first
/// exponent given as `quad·(n/4) + rem`: runs of constant quadrant are copies of `q`
/// at stride `step` rotated by `(∓i)^quad` (a swap and sign flips, exact).
fn quarter_run<T: Real>(
    out: &mut [C<T>],
    q: &[C<T>],
    mut quad: usize,
    mut rem: usize,
    step: usize,
    forward: bool,
) {
    let ql = q.len();
    let (sq, sr) = (step / ql, step % ql);
    let mut i = 0;
    while i < out.len() {
        let k = if forward { quad } else { quad.wrapping_neg() };
        // Values before the remainder passes n/4 (all the rest when steps are whole
        // quarters: the quadrant changes every value then).
        let run = if sq == 0 && sr > 0 {
            (ql - rem).div_ceil(sr).min(out.len() - i)
        } else {
            1
        };
        let seg = &mut out[i..i + run];
        macro_rules! copy {
            ($w:ident => $e:expr) => {
                for (r, z) in (0..run).zip(seg.iter_mut()) {
                    let $w = q[rem + r * sr];
                    *z = $e;
                }
            };
        }
        match k & 3 {
            0 => copy!(w => w),
            1 => copy!(w => C::new(w.im, -w.re)),
            2 => copy!(w => C::new(-w.re, -w.im)),
            _ => copy!(w => C::new(-w.im, w.re)),
        }
        i += run;
        rem += run * sr;
        quad += run * sq;
        if rem >= ql {
            rem -= ql;
            quad += 1;
        }
    }
}

impl<T: Real> Stockham<T> {
    pub fn new(n: usize, radices: &[usize], forward: bool) -> Self {
        let mut params = vec![n, forward as usize];
        params.extend_from_slice(radices);
        let passes = super::cache::get_or_make(
            super::cache::Key::new::<T>("stockham", params),
            |p: &Vec<Pass<T>>| p.iter().map(Pass::bytes).sum(),
            || build_passes(n, radices, forward),
        );
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
        for pass in self.passes.iter() {
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
            assert!(x.len() >= n * count && y.len >= n * count && p.tw.len() >= (r - 1) * p.m);
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
    assert!(first.s == 1 && first.lane_tw().len() >= (R1 - 1) * R2);
    let z = V::splat(C::new(V::T::zero(), V::T::zero()));
    let tp = first.lane_tw().as_ptr();
    for blk in 0..count {
        // SAFETY: loads stay below blk·n + (R1 − 1)·R2 + R2 = (blk + 1)·n and stores
        // below blk·n + (R1 − L) + R1·(R2 − 1) + L = (blk + 1)·n, within count·n (asserted);
        // twiddle loads below (R1 − 2)·R2 + R2 ≤ lane_tw().len().
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
    assert!(x.len() >= n * count && y.len >= n * count && p.tw.len() >= (R - 1) * m);
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
        assert!(p.lane_tw().len() >= (R - 1) * nr);
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
    let one = C::new(V::T::one(), V::T::zero());
    for p in p0..p1 {
        let w: [V; R] = from_fn(|j| V::splat(if j > 0 { *pass.twiddle(p, j) } else { one }));
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
                pass.lane_tw().as_ptr(),
            )
        };
        let mut l = l0;
        while l < l1 {
            // SAFETY: l + LANES ≤ l1 ≤ nr and k, j < R: loads stay below R·nr = n past
            // the block start and (R−1)·nr ≤ lane_tw().len(), stores below n past it
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
                            bj.mul(V::splat(*pass.twiddle(p, j)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twiddle::root_dir;

    /// Every twiddle of every pass against a direct evaluation of `ω_n^{s·p·j}`, for
    /// the quarter-table lengths (`4 | n`, small and large, first radix 2, 3, 4 or 8)
    /// and the others, both directions; and the lane tables against their rows.
    #[test]
    fn pass_tables_match_direct_roots() {
        let cases: &[(usize, &[usize])] = &[
            (4, &[4]),
            (8, &[8]),
            (12, &[3, 4]),
            (16, &[2, 8]),
            (64, &[8, 8]),
            (1024, &[4, 4, 4, 4, 4]),
            (2048, &[4, 4, 4, 4, 8]),
            (360, &[8, 5, 3, 3]),
            (2187, &[3; 7]),
            (1 << 14, &[4, 4, 4, 4, 4, 4, 4]),
            (1 << 15, &[8, 4, 4, 4, 4, 4, 4]),
            (1 << 15, &[2, 4, 4, 4, 4, 4, 4, 4]),
            (6000, &[4, 4, 5, 5, 5, 3]),
            (30030, &[2, 13, 11, 7, 5, 3]),
            (100_000, &[4, 4, 2, 5, 5, 5, 5, 5]),
            // Filled in parallel: the first pass's rows, and an own quarter table.
            (1 << 18, &[4; 9]),
            (1 << 19, &[8, 4, 4, 4, 4, 4, 4, 4, 4]),
        ];
        for &(n, radices) in cases {
            assert_eq!(radices.iter().product::<usize>(), n);
            for fwd in [true, false] {
                let p64 = build_passes::<f64>(n, radices, fwd);
                let p32 = build_passes::<f32>(n, radices, fwd);
                for (a, b) in p64.iter().zip(&p32) {
                    let (r, m, s) = (a.radix, a.m, a.s);
                    assert_eq!(a.tw.len(), (r - 1) * m);
                    for j in 1..r {
                        for p in 0..m {
                            let want = root_dir((s * p * j) as u64, n as u64, fwd);
                            let got = *a.twiddle(p, j);
                            assert!(
                                (got - want).norm() < 5e-16,
                                "n {n} {radices:?} fwd {fwd} s {s} j {j} p {p}: {got} vs {want}"
                            );
                            let g32 = *b.twiddle(p, j);
                            let w32 = C::new(want.re as f32, want.im as f32);
                            assert!((g32 - w32).norm() < 1.2e-7, "f32 n {n} s {s} j {j} p {p}");
                            if s < LANE_TABLE_BELOW {
                                for q in 0..s {
                                    assert_eq!(a.lane_tw()[(j - 1) * m * s + s * p + q], got);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
