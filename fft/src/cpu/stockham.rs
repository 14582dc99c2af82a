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

use super::butterfly::{
    bf12, bf16, bf18, bf2, bf3, bf4, bf8, bf9, bf_generic_v, bf_odd, OddConsts,
};
use super::cache::Table;
use super::simd::{Cv, SimdFn};
use super::{Loc, Raw};
use crate::plan::Whole;
use crate::scalar::{cast, FftReal};
use crate::twiddle::{root_dir, RootTable};
use num_complex::Complex;
use num_traits::{One, Zero};
use rayon::prelude::*;
use rocm_core::{host_alloc, Result};
use std::array::from_fn;
use std::sync::Arc;

type C<T> = Complex<T>;

/// Expands to a `match` over a pass's (radix, direction, odd-radix constants) that
/// calls `$go!(RADIX, butterfly)` for every fixed-size butterfly, followed by the
/// caller's remaining arms.
macro_rules! fixed_butterflies {
    ($go:ident, $p:expr, $fwd:expr, { $($rest:tt)* }) => {
        match ($p.radix, $fwd, &$p.odd) {
            (2, _, _) => $go!(2, Dir::<true>),
            (3, true, _) => $go!(3, Dir::<true>),
            (3, false, _) => $go!(3, Dir::<false>),
            (4, true, _) => $go!(4, Dir::<true>),
            (4, false, _) => $go!(4, Dir::<false>),
            (8, true, _) => $go!(8, Dir::<true>),
            (8, false, _) => $go!(8, Dir::<false>),
            (9, true, _) => $go!(9, Dir::<true>),
            (9, false, _) => $go!(9, Dir::<false>),
            (16, true, _) => $go!(16, Dir::<true>),
            (16, false, _) => $go!(16, Dir::<false>),
            (5, _, Some(k)) => $go!(5, Odd(k)),
            (7, _, Some(k)) => $go!(7, Odd(k)),
            (11, _, Some(k)) => $go!(11, Odd(k)),
            (13, _, Some(k)) => $go!(13, Odd(k)),
            $($rest)*
        }
    };
}

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
    /// `s = 1` this is also the lane shape's table, see [`Pass::lane_tw`]). Empty when
    /// the pass computes its twiddles ([`Pass::split`]).
    tw: Table<C<T>>,
    /// For `1 < s < LANE_TABLE_BELOW`: `twx[(j−1)·m·s + s·p + q] = ω_{rm}^{pj}`.
    twx: Table<C<T>>,
    /// For passes whose table would be large: the twiddles as products of two small
    /// tables, formed chunk by chunk while the pass runs (see [`Split`]).
    split: Option<Split<T>>,
    /// Constants of odd radices.
    odd: Option<OddConsts<T>>,
}

impl<T> Pass<T> {
    /// The whole table as a [`Tw`] view (not for split passes).
    #[inline(always)]
    fn table_view(&self) -> Tw<'_, T> {
        Tw {
            rows: &self.tw,
            lanes: if self.s == 1 { &self.tw } else { &self.twx },
            row: self.m,
            p0: 0,
        }
    }

    /// Values of chunk buffer the pass needs (0 when it reads a table).
    fn chunk_len(&self) -> usize {
        let copies = if self.s > 1 && self.s < LANE_TABLE_BELOW {
            self.s
        } else {
            0
        };
        self.split
            .as_ref()
            .map_or(0, |_| (self.radix - 1) * CHUNK * (1 + copies))
    }

    fn bytes(&self) -> usize {
        let split = self.split.as_ref().map_or(0, |t| t.lo.len() + t.hi.len());
        (self.tw.len() + self.twx.len() + split) * std::mem::size_of::<C<T>>()
    }
}

/// Entries of a pass's table (counting the lane shape's copies) above which the pass
/// computes its twiddles instead of reading a table. Plan creation is bounded by the
/// fresh memory it touches: a first write to a 4 KiB page costs about 2.4 us on the
/// 2-vCPU VM (a 2^20 `f32` plan's 8 MiB of tables took 5 to 15 ms unless transparent
/// huge pages happened to be free), so tables stay small and the passes over large
/// strides, which dominate the table size, form their twiddles on the fly. (Forming
/// them costs about a vector product per `LANES` twiddles: measured on the VM, one
/// 16384 `f32` transform 26 -> 31 us with its 12288-entry first pass split, 65536
/// 126 -> 115 us with its 49152-entry one split, whose table no longer fits the L2
/// cache; hence 2^14.)
const TABLE_MAX: usize = 1 << 14;

/// Twiddles of a chunk of `p` formed at once by a split pass (a multiple of 4, so
/// chunk boundaries are whole vectors in the lane shape).
const CHUNK: usize = 256;

/// A pass's twiddles from two small tables per `j`: with `p = CHUNK·a + u`,
/// `ω_n^{s·p·j} = hi[(j−1)·hlen + a] · lo[(j−1)·CHUNK + u]`, both factors the
/// correctly rounded values of `f64` roots and the product formed in `T` (error at
/// most `(2 + √5)·u_T` plus the roots' `f64` error; see the test). Before each chunk
/// of `CHUNK` values of `p` the pass writes the chunk's rows into a per-thread buffer
/// in the table's layout (one vector product per `LANES` twiddles), then runs the
/// same kernels on that buffer.
#[derive(Debug)]
struct Split<T> {
    lo: Vec<C<T>>,
    hi: Vec<C<T>>,
    /// `⌈m/CHUNK⌉`.
    hlen: usize,
}

/// The twiddles a pass kernel reads for `p` in `p0..p0 + row`:
/// `get(p, j) = rows[(j−1)·row + p − p0] = ω_{rm}^{pj}`, and in the lane shape
/// (`s < LANES`) `lanes[(j−1)·row·s + l − p0·s]` for flat index `l = s·p + q`.
#[derive(Clone, Copy)]
struct Tw<'a, T> {
    rows: &'a [C<T>],
    lanes: &'a [C<T>],
    row: usize,
    p0: usize,
}

impl<T: Copy> Tw<'_, T> {
    #[inline(always)]
    fn get(&self, p: usize, j: usize) -> C<T> {
        self.rows[(j - 1) * self.row + p - self.p0]
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
    /// Two passes of other radices for whole transforms one at a time (see
    /// [`crate::plan::whole_kernel`] and [`Self::in_registers`]), where the
    /// planner names them; the layouts that run pass by pass keep `passes`.
    registers: Option<Arc<Vec<Pass<T>>>>,
    /// The planner's kernel for whole contiguous transforms (`registers` holds its
    /// two passes' tables).
    whole: Option<Whole>,
}

/// Table entries above which a table is filled by several rayon tasks. (Below it
/// one thread fills it in well under the cost of a task dispatch plus, in a fresh
/// process, starting the pool: 65536 cold 0.75 -> 0.45 ms with 2^17 against 2^15.)
const PAR_TABLE_MIN: usize = 1 << 17;

/// What an unholdable Stockham table is called in its error.
const WHAT: &str = "Stockham twiddle table";

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
/// in parallel. A pass whose table would pass [`TABLE_MAX`] entries keeps two small
/// tables instead ([`Split`]); when any pass does, there is no quarter table (it is
/// `n/4` values) and the kept passes take the two-table roots.
fn build_passes<T: FftReal>(
    n: usize,
    radices: &[usize],
    forward: bool,
    table_max: usize,
) -> Result<Vec<Pass<T>>> {
    // Passes whose table would pass `table_max` entries. The lane shape's copies (at
    // most 3 more per entry, strides 2 and 3) are not counted: forming them per chunk
    // costs more than the pass saves (30030 = 2·13·11·7·5·3 with its second pass
    // split: 208 -> 267 us, a tenth of it writing the copies).
    let mut stride = 1;
    let split: Vec<bool> = radices
        .iter()
        .map(|&r| {
            let m = n / (r * stride);
            stride *= r;
            (r - 1) * m > table_max
        })
        .collect();
    let table = if n > DIRECT_ROOTS_MAX {
        Some(RootTable::new(n as u64, forward)?)
    } else {
        None
    };
    // The quarter table is n/4 values: only when no pass is split (it would be most
    // of what splitting saves); the kept passes then take the two-table roots.
    let quarter_len = if n % 4 == 0 && !split.contains(&true) {
        n / 4
    } else {
        0
    };
    // The quarter table: the start of the first pass's table when that pass has
    // stride 1 and at least n/4 twiddles in its first row (radix 2 or 4), else its own.
    let own_quarter = quarter_len > 0 && radices.first().is_none_or(|&r| r > 4);
    let mut quarter: Table<C<T>> = Table::default();
    if own_quarter {
        quarter = Table::try_filled(WHAT, quarter_len, C::zero())?;
        fill_quarter(&mut quarter, n, table.as_ref(), forward);
    }
    let mut s = 1;
    let mut passes: Vec<Pass<T>> = host_alloc::try_with_capacity(WHAT, radices.len())?;
    for (&r, &split) in radices.iter().zip(&split) {
        let m = n / (r * s);
        let odd = (r % 2 == 1).then(|| OddConsts::new(r, forward));
        if split {
            passes.push(Pass {
                radix: r,
                m,
                s,
                tw: Table::default(),
                twx: Table::default(),
                split: Some(Split::new(n, r, m, s, forward)?),
                odd,
            });
            s *= r;
            continue;
        }
        let entries = (r - 1) * m;
        let mut tw = Table::try_filled(WHAT, entries, C::zero())?;
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
            twx = Table::try_filled(WHAT, host_alloc::elements(WHAT, &[entries, s])?, C::zero())?;
            for (x, &w) in twx.chunks_exact_mut(s).zip(tw.iter()) {
                x.fill(w);
            }
        }
        passes.push(Pass {
            radix: r,
            m,
            s,
            tw,
            twx,
            split: None,
            odd,
        });
        s *= r;
    }
    Ok(passes)
}
/// `q[e] = ω_n^e` for `e < n/4` (`4 | n`, `q.len() = n/4`): the first octant
/// evaluated (directly, or from `table` when given), the second its exact mirror
/// `ω_n^{n/4−e} = ω_n^{n/4}·conj(ω_n^e)`, `ω_n^{n/4} = ∓i`.
fn fill_quarter<T: FftReal>(q: &mut [C<T>], n: usize, table: Option<&RootTable>, forward: bool) {
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

impl<T: FftReal> Source<'_, T> {
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
fn quarter_run<T: FftReal>(
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

impl<T: FftReal> Split<T> {
    /// The tables of pass `(r, m, s)` of a length-`n` plan. Exponents are exact in
    /// integers (`s·j·u` and `s·j·CHUNK·a` are below `r·m·s = n`); each root is
    /// evaluated directly (about one ulp of `f64`) and rounded once to `T`.
    fn new(n: usize, r: usize, m: usize, s: usize, forward: bool) -> Result<Self> {
        let (klen, hlen) = (CHUNK.min(m), m.div_ceil(CHUNK));
        let root = |e: usize| cast(root_dir(e as u64, n as u64, forward));
        let mut lo = host_alloc::try_with_capacity(WHAT, (r - 1) * klen)?;
        let mut hi = host_alloc::try_with_capacity(WHAT, (r - 1) * hlen)?;
        for j in 1..r {
            lo.extend((0..klen).map(|u| root(s * j * u)));
            hi.extend((0..hlen).map(|a| root(s * j * CHUNK * a)));
        }
        Ok(Split { lo, hi, hlen })
    }

    /// Values per row of `lo`.
    fn klen(&self, r: usize) -> usize {
        self.lo.len() / (r - 1).max(1)
    }
}

thread_local! {
    /// Per-thread buffer of a split pass's chunk of twiddles (see [`Split`]).
    static TW_CHUNK: std::cell::RefCell<Vec<C<f64>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on the per-thread chunk buffer of a pass (see [`Split`]): `len` values
/// (empty, and no buffer touched, when `len` is 0).
fn with_chunk_buffer<T: FftReal, R>(len: usize, f: impl FnOnce(&mut [C<T>]) -> R) -> R {
    if len == 0 {
        return f(&mut []);
    }
    let slots = (len * std::mem::size_of::<C<T>>()).div_ceil(std::mem::size_of::<C<f64>>());
    TW_CHUNK.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) => {
            if v.len() < slots {
                v.resize(slots, C::new(0.0, 0.0));
            }
            let b: &mut [C<T>] = bytemuck::cast_slice_mut(&mut v[..slots]);
            f(&mut b[..len])
        }
        Err(_) => f(&mut vec![C::new(T::zero(), T::zero()); len]),
    })
}

/// Writes the twiddles of `p` in `pa..pb` (one chunk) of a split pass into `buf` as
/// rows by `j` (and, with `copies > 1`, the lane shape's `copies` copies of each
/// after them); the view of them. (Its own vector dispatch, kept out of the pass
/// kernels so that they compile as they do for tables.)
#[inline(never)]
fn chunk_view<'a, T: FftReal>(
    pass: &Pass<T>,
    sp: &Split<T>,
    pa: usize,
    pb: usize,
    copies: usize,
    buf: &'a mut [C<T>],
) -> Tw<'a, T> {
    let (r, row) = (pass.radix, pb - pa);
    assert!(buf.len() >= (r - 1) * row * (1 + copies));
    let (rows, rest) = buf.split_at_mut((r - 1) * row);
    super::simd::dispatch(FillChunk {
        sp,
        r,
        pa,
        rows: &mut *rows,
    });
    let rows = &*rows;
    let lanes: &[C<T>] = if copies > 1 {
        let x = &mut rest[..(r - 1) * row * copies];
        for (xs, &w) in x.chunks_exact_mut(copies).zip(rows) {
            xs.fill(w);
        }
        x
    } else {
        rows
    };
    Tw {
        rows,
        lanes,
        row,
        p0: pa,
    }
}

/// `rows[(j−1)·row + u] = hi[(j−1)·hlen + a] · lo[(j−1)·klen + u0 + u]` for the chunk
/// `a = pa / CHUNK` from `u0 = pa mod CHUNK` (`row = rows.len() / (r − 1)`).
struct FillChunk<'a, T> {
    sp: &'a Split<T>,
    r: usize,
    pa: usize,
    rows: &'a mut [C<T>],
}

impl<T: FftReal> SimdFn<T> for FillChunk<'_, T> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let (sp, r) = (self.sp, self.r);
        let row = self.rows.len() / (r - 1);
        let (a, u0) = (self.pa / CHUNK, self.pa % CHUNK);
        let klen = sp.klen(r);
        assert!(u0 + row <= klen && a < sp.hlen);
        let whole = row - row % V::LANES;
        for (j, out) in (1..r).zip(self.rows.chunks_exact_mut(row)) {
            let h = sp.hi[(j - 1) * sp.hlen + a];
            let lo = &sp.lo[(j - 1) * klen + u0..][..row];
            let hv = V::splat(h);
            let mut u = 0;
            while u < whole {
                // SAFETY: u + LANES ≤ row, the length of `lo` and `out`.
                unsafe {
                    V::load(lo.as_ptr().add(u))
                        .mul(hv)
                        .store(out.as_mut_ptr().add(u))
                };
                u += V::LANES;
            }
            for (o, &l) in out[whole..].iter_mut().zip(&lo[whole..]) {
                *o = l * h;
            }
        }
    }
}

impl<T: FftReal> Stockham<T> {
    /// The passes of `radices` (product `n`); an error when their tables cannot be
    /// held.
    pub fn new(n: usize, radices: &[usize], forward: bool) -> Result<Self> {
        Self::with_whole(n, radices, None, forward)
    }

    /// [`Self::new`] with the planner's kernel for whole contiguous transforms.
    pub fn with_whole(
        n: usize,
        radices: &[usize],
        whole: Option<Whole>,
        forward: bool,
    ) -> Result<Self> {
        let cached = |radices: &[usize]| {
            let mut params = vec![n, forward as usize];
            params.extend_from_slice(radices);
            super::cache::get_or_make(
                super::cache::Key::new::<T>("stockham", params),
                |p: &Vec<Pass<T>>| p.iter().map(Pass::bytes).sum(),
                || build_passes(n, radices, forward, TABLE_MAX),
            )
        };
        let passes = cached(radices)?;
        let registers = match whole {
            Some(Whole::TwoPass(r1, r2) | Whole::Lanes(r1, r2) | Whole::Registers(r1, r2)) => {
                Some(cached(&[r1, r2])?)
            }
            None => None,
        };
        Ok(Stockham {
            n,
            forward,
            passes,
            registers,
            whole,
        })
    }

    /// A plan for one transform when a table is built (a convolution kernel): every pass
    /// split, so that building it writes next to no table memory, and not kept in
    /// the cache. About 10 % slower per run than [`Self::new`]'s.
    pub fn once(n: usize, radices: &[usize], forward: bool) -> Result<Self> {
        Ok(Stockham {
            n,
            forward,
            passes: Arc::new(build_passes(n, radices, forward, 0)?),
            registers: None,
            whole: None,
        })
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

    /// Runs `count` consecutive transforms of `x` into `y` by a whole-transform kernel:
    /// the planner's [`Whole::Lanes`] codelet or [`Whole::Registers`] kernel, or, for
    /// a plan of two passes (its `registers` if it has them) whose radices are both
    /// multiples of the lane count and have a kernel, one transform at a time in
    /// registers ([`in_registers`]) or with `y` as the scratch ([`through_output`]).
    /// Returns false (nothing done) when no kernel applies at this SIMD level.
    fn in_registers(&self, x: &[C<T>], y: &mut [C<T>], count: usize) -> bool {
        match (self.whole, &self.registers) {
            (Some(Whole::Lanes(..)), Some(regs)) => {
                return lanes_whole(&regs[0], self.forward, x, y, count)
            }
            (Some(Whole::Registers(..)), Some(regs)) => {
                return super::simd::dispatch(InRegisters {
                    passes: regs,
                    forward: self.forward,
                    x,
                    y,
                    count,
                })
            }
            _ => {}
        }
        let passes = self.registers.as_deref().unwrap_or(&self.passes);
        let [p1, p2] = &passes[..] else {
            return false;
        };
        let lanes = if super::simd::has_avx2_fma() {
            <T::Vector as Cv>::LANES
        } else {
            1
        };
        if p1.radix * p2.radix > REGISTERS * lanes {
            super::simd::dispatch(ThroughOutput {
                passes,
                forward: self.forward,
                x,
                y,
                count,
            })
        } else {
            super::simd::dispatch(InRegisters {
                passes,
                forward: self.forward,
                x,
                y,
                count,
            })
        }
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

    /// `width` transforms stored one after another in `src` (`n` each) into `dst` (the
    /// same layout) through the interleaved layout of [`Self::run_columns`] in `a` and
    /// `b` (`n·width` each), without transposing in or out: the first pass reads the
    /// transforms' rows (vectors along `p` of one transform, its stride 1) and writes
    /// the interleaved layout lane by lane; the middle passes run on the interleaved
    /// columns; the last (`m = 1`, no twiddles) gathers the interleaved values lane by
    /// lane and writes whole vectors of each transform's row. Returns false (nothing
    /// done) for fewer than two passes, a split first pass or a generic radix.
    pub fn run_rows_via_tile(
        &self,
        src: &[C<T>],
        dst: &mut [C<T>],
        a: &mut [C<T>],
        b: &mut [C<T>],
        width: usize,
    ) -> bool {
        // Four-lane vectors (f32) would store and gather 8-byte lanes one by one: more
        // instructions than the transposes they save (measured: f32 729 121 -> 130 us,
        // 243 84 -> 90 us, against f64 243 163 -> 144 us, 6561 283 -> 250 us).
        let lanes = if super::simd::has_avx2_fma() {
            <T::Vector as Cv>::LANES
        } else {
            1
        };
        if lanes > 2 {
            return false;
        }
        let passes = &self.passes[..];
        let fixed = |r: usize| crate::plan::RADICES.contains(&r);
        let (Some(first), Some(last)) = (passes.first(), passes.last()) else {
            return false;
        };
        if passes.len() < 2 || first.split.is_some() || !fixed(first.radix) || !fixed(last.radix) {
            return false;
        }
        let len = self.n * width;
        let (src, dst, a, b) = (&src[..len], &mut dst[..len], &mut a[..len], &mut b[..len]);
        let fwd = self.forward;
        rows_end_job::<T, true>(first, src, a, width, fwd);
        let mut loc = Loc::A;
        for pass in &passes[1..passes.len() - 1] {
            let (x, y) = match loc {
                Loc::A => (&*a, &mut *b),
                Loc::B => (&*b, &mut *a),
            };
            exec_pass(pass, x, y, fwd, 1, width, 1);
            loc = loc.other();
        }
        let x = match loc {
            Loc::A => &*a,
            Loc::B => &*b,
        };
        rows_end_job::<T, false>(last, x, dst, width, fwd);
        true
    }

    /// Whether a batch runs better as interleaved columns ([`Self::run_columns`] on
    /// transposed groups of transforms) than transform by transform: when the first
    /// pass cannot fill whole vectors (a single pass, a first radix that is not a
    /// multiple of the vector's lane count, or fewer values of `p` in the first pass
    /// than lanes: `f32` 24 = 8·3 ran its radix-8 pass lane by lane at 0.17x rustfft).
    pub fn prefers_columns(&self) -> bool {
        let lanes = if super::simd::has_avx2_fma() {
            <T::Vector as Cv>::LANES
        } else {
            1
        };
        if matches!(self.whole, Some(Whole::Lanes(..) | Whole::Registers(..))) {
            // Batches run whole, a vector of transforms (or one transform) at a time.
            return false;
        }
        match self.passes.first() {
            None => false,
            Some(first) => {
                lanes > 1 && (self.passes.len() == 1 || first.radix % lanes != 0 || first.m < lanes)
            }
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
///
/// A split pass (see [`Split`]) runs window by window: each share forms the
/// twiddles of one chunk of `p` in its buffer and runs the kernel restricted to that
/// window of `p`. The loop over windows stays out here, outside the vector kernels, so
/// that they compile exactly as for a table (a loop around them inside made the
/// compiler hoist and spill their set-up into every call, about 150 instructions,
/// which cost 5 to 8 % on small batched lengths).
fn exec_pass<T: FftReal>(
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
    // One vector function per radix and butterfly (see [`PassJob`]).
    let run = |tw: &Tw<'_, T>, win: (usize, usize), part: (usize, usize)| {
        macro_rules! go {
            ($r:literal, $bf:expr) => {
                super::simd::dispatch(PassJob::<T, $r, _> {
                    pass,
                    x,
                    y: out,
                    count,
                    inner,
                    part,
                    tw,
                    win,
                    bf: $bf,
                })
            };
        }
        fixed_butterflies!(go, pass, fwd, {
            (_, _, Some(k)) => super::simd::dispatch(GenericJob {
                pass,
                x,
                y: out,
                count,
                inner,
                part,
                tw,
                win,
                k,
            }),
            // Even radices other than the fixed ones are never planned.
            (r, _, None) => debug_assert!(false, "no butterfly for radix {r}"),
        })
    };
    if parts == 1 && inner == 1 && pass.split.is_none() {
        let short = ShortFirstJob {
            pass,
            x,
            y: out,
            fwd,
            count,
        };
        if short.fits() && super::simd::dispatch(short) {
            return;
        }
    }
    let job = |i: usize| {
        let part = (i, parts);
        let Some(sp) = &pass.split else {
            return run(&pass.table_view(), (0, pass.m), part);
        };
        // The lanes the kernels will use, for the share's range and whether the lane
        // shape (which reads the copies) runs.
        let lanes = if super::simd::has_avx2_fma() {
            <T::Vector as Cv>::LANES
        } else {
            1
        };
        let (p0, p1) = share_of_p(pass, inner, lanes, part);
        let lane_shape = inner == 1 && pass.s < lanes;
        let copies = if lane_shape && pass.s > 1 { pass.s } else { 0 };
        with_chunk_buffer(pass.chunk_len(), |buf| {
            let mut pa = p0;
            while pa < p1 {
                let pb = p1.min((pa / CHUNK + 1) * CHUNK);
                run(&chunk_view(pass, sp, pa, pb, copies, buf), (pa, pb), part);
                pa = pb;
            }
        })
    };
    if parts > 1 {
        (0..parts).into_par_iter().for_each(job);
    } else {
        job(0);
    }
}

/// The values of `p` whose butterflies share `part` of a pass does with vectors of
/// `lanes` (see [`pass`] and the generic radix in [`run_pass`]): a range of `p`, or
/// all of them when the shares split the columns instead (a superset is harmless: the
/// kernel only does its share inside the window).
fn share_of_p<T>(
    pass: &Pass<T>,
    inner: usize,
    lanes: usize,
    part: (usize, usize),
) -> (usize, usize) {
    let (m, s) = (pass.m, pass.s * inner);
    if !crate::plan::RADICES.contains(&pass.radix) || (s < lanes && inner > 1) {
        // The generic radix, and interleaved columns of a short stride, share p.
        share(m, part, 1)
    } else if s >= lanes && m >= part.1 {
        share(m, part, 1)
    } else if s < lanes {
        let nr = m * s;
        let (l0, l1) = share(nr - nr % lanes, part, lanes);
        // The last share also does the one-lane tail up to nr.
        let l1 = if part.0 + 1 == part.1 { nr } else { l1 };
        (l0 / s, l1.div_ceil(s))
    } else {
        (0, m)
    }
}

/// One pass of a fixed radix `R` with butterfly `B` (see [`pass`]). Each `(R, B)` is
/// its own `SimdFn` type, so its own vector function: a change to one radix's kernel
/// does not change the code the compiler makes for the others. (With every radix
/// inlined into one function, changing the radix-16 butterfly slowed the untouched
/// radix-7 passes of `f64` 16807 193 -> 237 us, session 15.)
struct PassJob<'a, T, const R: usize, B> {
    pass: &'a Pass<T>,
    x: &'a [C<T>],
    /// The output: written only at this part's places (see [`pass`]).
    y: Raw<C<T>>,
    count: usize,
    inner: usize,
    /// `(i, parts)`: this job does the `i`-th of `parts` disjoint shares of the pass.
    part: (usize, usize),
    /// The twiddles of `p` in `win` (by reference: the job is moved by value into
    /// the vector dispatch, and a larger one is copied with `memcpy` on every pass).
    tw: &'a Tw<'a, T>,
    /// The window of `p` this job does (its share's part inside it).
    win: (usize, usize),
    bf: B,
}

impl<T: FftReal, const R: usize, B: Butterfly<T, R>> SimdFn<T> for PassJob<'_, T, R, B> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        pass::<V, R, B>(
            self.x, self.y, self.pass, self.bf, self.count, self.inner, self.part, self.tw,
            self.win,
        )
    }
}

/// One pass of a generic odd prime radix (see [`generic_columns`]), its own vector
/// function as [`PassJob`]'s are.
struct GenericJob<'a, T> {
    pass: &'a Pass<T>,
    x: &'a [C<T>],
    y: Raw<C<T>>,
    count: usize,
    inner: usize,
    part: (usize, usize),
    tw: &'a Tw<'a, T>,
    win: (usize, usize),
    k: &'a OddConsts<T>,
}

impl<T: FftReal> SimdFn<T> for GenericJob<'_, T> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let (p, x, y, count, tw, k) = (self.pass, self.x, self.y, self.count, self.tw, self.k);
        let r = p.radix;
        let s = p.s * self.inner;
        let n = r * p.m * s;
        assert!(x.len() >= n * count && y.len >= n * count);
        let ps = within(share(p.m, self.part, 1), self.win);
        if s >= V::LANES {
            let whole = s - s % V::LANES;
            generic_columns::<V>(x, y, p, tw, k, s, ps, (0, whole), (count, n));
            if whole < s {
                generic_columns::<C<V::T>>(x, y, p, tw, k, s, ps, (whole, s), (count, n));
            }
        } else {
            generic_columns::<C<V::T>>(x, y, p, tw, k, s, ps, (0, s), (count, n));
        }
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

/// First radices [`ShortFirstJob`] takes: those with constant butterflies. (With the
/// odd primes too, `f32` 15625 = 5^6, whose radix-5 first pass has m = 3125, measured
/// 138 -> 151 us and `f64` 16807 = 7^5 193 -> 220 us; the tail is a negligible part
/// of such passes, and lengths with an odd first radix up to 8192 run as batch tiles.)
const SHORT_FIRST_RADICES: [usize; 6] = [2, 3, 4, 8, 9, 16];

/// A first pass (`s = 1`) whose `m` is not a multiple of the lane count but at least
/// one vector, over `count` whole transforms on one thread: the flat lane shape of
/// [`pass`] with the last, partial vector of each transform done as a whole vector
/// ending at `m` ([`short_first`]) instead of lane by lane.
///
/// Its own dispatch entry (a separate `SimdFn` type, so a separate vector function):
/// the overlapped tail written into [`flat_lanes`] itself lifted `f32` 120 = 8·5·3 75
/// -> 54 us but changed the code the compiler made for the other passes, which are
/// all inlined into [`PassJob`]'s one function (`f32` 256 0.83 -> 0.79x rustfft,
/// 30030 205 -> 221 us; bench/results/2026-11-27-fft-overlap-tail-NOT-APPLIED.patch).
struct ShortFirstJob<'a, T> {
    pass: &'a Pass<T>,
    x: &'a [C<T>],
    /// The output: every place of the `count` transforms is written.
    y: Raw<C<T>>,
    fwd: bool,
    count: usize,
}

impl<T: FftReal> ShortFirstJob<'_, T> {
    /// Whether the pass has this shape with the widest vectors the CPU has. (A
    /// table pass only: split passes are the long ones.)
    fn fits(&self) -> bool {
        let lanes = if super::simd::has_avx2_fma() {
            <T::Vector as Cv>::LANES
        } else {
            1
        };
        let p = self.pass;
        p.s == 1
            && p.split.is_none()
            && p.m % lanes != 0
            && p.m >= lanes
            && SHORT_FIRST_RADICES.contains(&p.radix)
    }
}

impl<T: FftReal> SimdFn<T> for ShortFirstJob<'_, T> {
    /// False when nothing was done (no fixed butterfly for the radix).
    type Out = bool;
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) -> bool {
        let p = self.pass;
        let (x, y, count) = (self.x, self.y, self.count);
        macro_rules! go {
            ($r:literal) => {
                if self.fwd {
                    short_first::<V, $r, _>(p, x, y, &Dir::<true>, count)
                } else {
                    short_first::<V, $r, _>(p, x, y, &Dir::<false>, count)
                }
            };
        }
        match p.radix {
            2 => go!(2),
            3 => go!(3),
            4 => go!(4),
            8 => go!(8),
            9 => go!(9),
            16 => go!(16),
            _ => return false,
        }
        true
    }
}

/// The first pass (`s = 1`, so the flat index is `p`) of `count` consecutive
/// transforms of `n = R·m` (`m ≥ LANES`): whole vectors of `p`, the last one ending
/// at `m` and so overlapping the one before when `m` is not a multiple of the lanes.
/// The overlapped lanes are computed and stored again with the same values (the pass
/// reads `x` and writes `y`, never in place).
#[inline(always)]
fn short_first<V: Cv, const R: usize, B: Butterfly<V::T, R>>(
    pass: &Pass<V::T>,
    x: &[C<V::T>],
    y: Raw<C<V::T>>,
    bf: &B,
    count: usize,
) {
    let m = pass.m;
    let n = R * m;
    let tw = &pass.tw[..];
    assert!(pass.s == 1 && m >= V::LANES && tw.len() >= (R - 1) * m);
    assert!(x.len() >= n * count && y.len >= n * count);
    let last = m - V::LANES;
    let tp = tw.as_ptr();
    for blk in 0..count {
        // SAFETY: blk·n + n ≤ count·n ≤ both lengths (asserted above).
        let (xp, yp) = unsafe { (x.as_ptr().add(blk * n), y.ptr.add(blk * n)) };
        let mut l = 0;
        while l < m {
            let at = l.min(last);
            // SAFETY: at + LANES ≤ m and k, j < R: loads below R·m = n past the block
            // start, stores (s = 1: at `R·(at + i) + j`) below n past it; twiddle loads
            // below (R − 2)·m + at + LANES ≤ (R − 1)·m ≤ the table's length.
            unsafe {
                let a: [V; R] = from_fn(|k| V::load(xp.add(at + k * m)));
                let mut b = bf.apply(a);
                for (j, bj) in b.iter_mut().enumerate().skip(1) {
                    *bj = bj.mul(V::load(tp.add((j - 1) * m + at)));
                }
                V::scatter(&b, yp, at, 1);
            }
            l += V::LANES;
        }
    }
}

/// The first (`FIRST`: rows in, interleaved out) or last (interleaved in, rows out)
/// pass of [`Stockham::run_rows_via_tile`], one vector function per radix and
/// butterfly (as [`PassJob`]).
fn rows_end_job<T: FftReal, const FIRST: bool>(
    p: &Pass<T>,
    x: &[C<T>],
    y: &mut [C<T>],
    width: usize,
    fwd: bool,
) {
    macro_rules! go {
        ($r:literal, $bf:expr) => {
            super::simd::dispatch(RowsEnd::<T, FIRST, $r, _> {
                pass: p,
                x,
                y,
                width,
                bf: $bf,
            })
        };
    }
    fixed_butterflies!(go, p, fwd, {
        // Checked by the caller.
        (r, _, _) => unreachable!("no fixed butterfly for radix {r}"),
    })
}

struct RowsEnd<'a, T, const FIRST: bool, const R: usize, B> {
    pass: &'a Pass<T>,
    x: &'a [C<T>],
    y: &'a mut [C<T>],
    width: usize,
    bf: B,
}

impl<T: FftReal, const FIRST: bool, const R: usize, B: Butterfly<T, R>> SimdFn<T>
    for RowsEnd<'_, T, FIRST, R, B>
{
    type Out = ();
    /// AVX2: in the AVX-512 build these kernels ran 6-8 % slower (2-vCPU VM, quick
    /// bench, 3 alternated runs, session 17, us, AVX-512 -> AVX2: `f64` 25 96.1 ->
    /// 88.5, 49 101.4 -> 94.6, 81 109.2 -> 102.0, 125 120.6 -> 113.6; 2187 and 6561
    /// level). A likely cause: with AVX-512 the compiler turns lane-by-lane loads into
    /// gather instructions (140 in the AVX-512 build's binary against 10).
    #[inline(always)]
    fn avx512(&self) -> bool {
        false
    }
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        rows_end::<V, R, B, FIRST>(self.pass, self.x, self.y, self.width, &self.bf)
    }
}

/// One end pass of [`Stockham::run_rows_via_tile`] over `width` transforms of `n =
/// R·m·s`: whole vectors along the row, one lane for the rest.
///
/// * `FIRST` (`s = 1`): transform `c`'s inputs `x[c·n + p + k·m]` are contiguous in
///   `p`; output `j` of `p` goes to the interleaved `y[c + width·(R·p + j)]`.
/// * last (`m = 1`): input `k` of `t` is the interleaved `x[c + width·(t + s·k)]`;
///   output `j` goes to `y[c·n + t + s·j]`, contiguous in `t`.
#[inline(always)]
fn rows_end<V: Cv, const R: usize, B: Butterfly<V::T, R>, const FIRST: bool>(
    pass: &Pass<V::T>,
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    width: usize,
    bf: &B,
) {
    let (m, s) = (pass.m, pass.s);
    let n = R * m * s;
    assert!(x.len() >= n * width && y.len() >= n * width);
    // The row runs along p (first pass) or t (last pass).
    let run = if FIRST {
        assert!(s == 1 && pass.split.is_none() && pass.tw.len() >= (R - 1) * m);
        m
    } else {
        assert!(m == 1);
        s
    };
    let whole = run - run % V::LANES;
    for c in 0..width {
        let mut t = 0;
        while t < whole {
            // SAFETY: t + LANES ≤ run (whole vectors) and c < width: see `rows_end_at`.
            unsafe { rows_end_at::<V, R, B, FIRST>(pass, x, y, width, bf, c, t) };
            t += V::LANES;
        }
        while t < run {
            // SAFETY: t < run and c < width, one lane.
            unsafe { rows_end_at::<C<V::T>, R, B, FIRST>(pass, x, y, width, bf, c, t) };
            t += 1;
        }
    }
}

/// The butterflies of [`rows_end`] at lanes `t..t + LANES` of transform `c`.
///
/// # Safety
/// `t + LANES ≤ m` (first pass) or `≤ s` (last), `c < width`, and `x`, `y` at least
/// `n·width` long (`n = R·m·s`), the first pass's table `(R − 1)·m`: every index
/// below is then in bounds (first: reads `c·n + t + i + k·m < (c + 1)·n`, twiddles
/// `(j − 1)·m + t + i < (R − 1)·m`, writes `c + width·(R·(t + i) + j) < width·n`;
/// last: reads `c + width·(t + i + s·k) < width·n`, writes `c·n + t + i + s·j <
/// (c + 1)·n`).
#[inline(always)]
unsafe fn rows_end_at<V: Cv, const R: usize, B: Butterfly<V::T, R>, const FIRST: bool>(
    pass: &Pass<V::T>,
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    width: usize,
    bf: &B,
    c: usize,
    t: usize,
) {
    let (m, s) = (pass.m, pass.s);
    let n = R * m * s;
    let (xp, yp) = (x.as_ptr(), y.as_mut_ptr());
    // SAFETY: in bounds by the contract above.
    unsafe {
        if FIRST {
            let xc = xp.add(c * n + t);
            let a: [V; R] = from_fn(|k| V::load(xc.add(k * m)));
            let b = bf.apply(a);
            let tw = pass.tw.as_ptr().add(t);
            let yc = yp.add(c + width * R * t);
            for (j, &bj) in b.iter().enumerate() {
                let v = if j > 0 {
                    bj.mul(V::load(tw.add((j - 1) * m)))
                } else {
                    bj
                };
                v.store_strided(yc.add(width * j), width * R);
            }
        } else {
            let xc = xp.add(c + width * t);
            let a: [V; R] = from_fn(|k| V::load_strided(xc.add(width * s * k), width));
            let b = bf.apply(a);
            let yc = yp.add(c * n + t);
            for (j, &bj) in b.iter().enumerate() {
                bj.store(yc.add(s * j));
            }
        }
    }
}

struct InRegisters<'a, T> {
    passes: &'a [Pass<T>],
    forward: bool,
    x: &'a [C<T>],
    y: &'a mut [C<T>],
    count: usize,
}

impl<T: FftReal> SimdFn<T> for InRegisters<'_, T> {
    type Out = bool;
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) -> bool {
        let [p1, p2] = self.passes else {
            return false;
        };
        if p1.split.is_some() {
            return false;
        }
        let l = V::LANES;
        if l == 1 || p2.radix % l != 0 || p1.radix * p2.radix / l > IN_REGISTERS_MAX {
            return false;
        }
        let (x, y, count) = (self.x, self.y, self.count);
        macro_rules! go {
            ($r1:literal, $r2:literal) => {
                if self.forward {
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
            (12, 4) => go!(12, 4),
            (18, 4) => go!(18, 4),
            _ => return false,
        }
        true
    }
}

/// Vectors one transform of [`in_registers`] may take. AVX2 has 16 registers, so 32
/// (`f64` 64 = 8 × 8, two complex values a vector) spills half of them to the stack;
/// the spills stay in the L1 cache, and the transform still skips the second pass's
/// dispatch and its round trip through the buffers: measured on the 2-vCPU VM, `f64`
/// 64 in batches of 1024, best of 500 calls, three alternated processes: 80-81 us as
/// two passes, 71 us here (session 14).
const IN_REGISTERS_MAX: usize = 32;

/// A two-pass plan `[R1, R2]` (`R2` a multiple of the lane count `L`), one transform
/// at a time in registers: the first pass loads rows `x[k·R2 + L·g ..][..L]` (lanes
/// are `L` consecutive `p`), applies the radix-`R1` butterfly across registers and the
/// twiddles `ω_N^{p·j}`; `L × L` register transposes then put `L` consecutive `j` in
/// the lanes, so the radix-`R2` butterfly of the second pass runs across registers
/// too and its outputs `X[j + R1·k2]` are stored as whole vectors. The same
/// arithmetic as the two passes, without the round trip through memory. When `L`
/// does not divide `R1`, the last group of `j` has fewer than `L` (the other lanes
/// are zeros) and stores only those lanes.
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
    const MAX_REGS: usize = IN_REGISTERS_MAX;
    let l = V::LANES;
    let n = R1 * R2;
    let (pgs, jgs) = (R2 / l, R1.div_ceil(l));
    assert!(l > 1 && l <= 4 && R2 % l == 0 && R1 * pgs <= MAX_REGS);
    assert!(x.len() >= n * count && y.len() >= n * count);
    let lane_tw = first.table_view().lanes;
    assert!(first.s == 1 && lane_tw.len() >= (R1 - 1) * R2);
    let z = V::splat(C::new(V::T::zero(), V::T::zero()));
    let tp = lane_tw.as_ptr();
    for blk in 0..count {
        // SAFETY: loads stay below blk·n + (R1 − 1)·R2 + R2 = (blk + 1)·n and stores
        // below blk·n + (R1 − lanes) + R1·(R2 − 1) + lanes = (blk + 1)·n (`lanes` the
        // ones a group stores), within count·n (asserted); twiddle loads below
        // (R1 − 2)·R2 + R2 ≤ lane_tw().len().
        unsafe {
            let (xb, yb) = (x.as_ptr().add(blk * n), y.as_mut_ptr().add(blk * n));
            let mut regs = [z; MAX_REGS];
            for pg in 0..pgs {
                // A loop, not `from_fn` (see `bf16`).
                let mut a = [z; R1];
                for (k, ak) in a.iter_mut().enumerate() {
                    *ak = V::load(xb.add(k * R2 + pg * l));
                }
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
                let lanes = (R1 - jg * l).min(l);
                let mut t = [z; R2];
                for pg in 0..pgs {
                    let mut sq = [z; 4];
                    for (u, v) in sq.iter_mut().enumerate().take(lanes) {
                        *v = regs[(jg * l + u) * pgs + pg];
                    }
                    V::transpose_regs(&mut sq[..l]);
                    t[pg * l..pg * l + l].copy_from_slice(&sq[..l]);
                }
                let o = b2.apply(t);
                for (k2, &ok) in o.iter().enumerate() {
                    if lanes == l {
                        ok.store(yb.add(jg * l + R1 * k2));
                    } else {
                        ok.store_first(yb.add(jg * l + R1 * k2), lanes);
                    }
                }
            }
        }
    }
}

/// Shapes with more vectors than the CPU has registers (see [`REGISTERS`]), or a
/// radix 16: [`through_output`]. Its own dispatch entry (a separate `SimdFn` type,
/// so a separate vector function), so that [`InRegisters`]'s code stays as it was.
struct ThroughOutput<'a, T> {
    passes: &'a [Pass<T>],
    forward: bool,
    x: &'a [C<T>],
    y: &'a mut [C<T>],
    count: usize,
}

impl<T: FftReal> SimdFn<T> for ThroughOutput<'_, T> {
    type Out = bool;
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) -> bool {
        let [p1, p2] = self.passes else {
            return false;
        };
        let l = V::LANES;
        if p1.split.is_some() || l == 1 || p1.radix % l != 0 || p2.radix % l != 0 {
            return false;
        }
        let (x, y, count) = (self.x, self.y, self.count);
        macro_rules! go {
            ($r1:literal, $r2:literal, $b1:ident, $b2:ident) => {
                if self.forward {
                    through_output::<V, $r1, $r2, _, _>(p1, x, y, count, &$b1::<true>, &$b2::<true>)
                } else {
                    through_output::<V, $r1, $r2, _, _>(
                        p1,
                        x,
                        y,
                        count,
                        &$b1::<false>,
                        &$b2::<false>,
                    )
                }
            };
        }
        match (p1.radix, p2.radix) {
            (8, 8) => go!(8, 8, Dir, Dir),
            (8, 16) => go!(8, 16, Dir, Dir),
            (16, 16) => go!(16, 16, Dir, Dir),
            (12, 12) => go!(12, 12, Dir, Dir),
            _ => return false,
        }
        true
    }
}

/// Vectors of a two-pass shape from which it goes [`through_output`] rather than
/// [`in_registers`]: more than AVX2's 16 registers. (Session 14 ran `f64` 64 = 8 ×
/// 8, 32 vectors, in registers with half of them spilled to the stack: 80-81 us as
/// two passes, 71 us so. Through the output, measured on the 2-vCPU VM, quick bench,
/// batches of 2^16 elements, best of 3 alternated runs, session 15: `f64` 64 68.0 ->
/// 60.1 us, `f32` 128 as 8 × 16 44.0 (three passes) -> 38.5 us; but `f32` 64, 16
/// vectors, 31.4 -> 34.0 us and `f64` 32 46.2 -> 49.5 us, so not those.)
const REGISTERS: usize = 16;

/// The transform of [`in_registers`] with the output as the scratch between its two
/// passes instead of an array of registers, for shapes of more vectors than the CPU
/// has registers (there the compiler spills the array and more besides): the same
/// loads, stores and arithmetic as rustfft's whole-transform AVX butterflies (its
/// `Butterfly256Avx`, `Butterfly128Avx64`). The first pass stores each `p`'s `R1` values as a row
/// `y[R1·p ..][..R1]` (transposed in registers, lanes `j`), the second loads the
/// column of `L` consecutive `j` over all `p` (`y[R1·p + L·g ..][..L]`) and stores
/// its outputs `X[j + R1·k2]` over the same places, which it has all read first.
#[inline(always)]
fn through_output<V: Cv, const R1: usize, const R2: usize, B1, B2>(
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
    let l = V::LANES;
    let n = R1 * R2;
    let (pgs, jgs) = (R2 / l, R1 / l);
    assert!(l > 1 && l <= 4 && R1 % l == 0 && R2 % l == 0);
    assert!(x.len() >= n * count && y.len() >= n * count);
    let lane_tw = first.table_view().lanes;
    assert!(first.s == 1 && lane_tw.len() >= (R1 - 1) * R2);
    let z = V::splat(C::new(V::T::zero(), V::T::zero()));
    let tp = lane_tw.as_ptr();
    for blk in 0..count {
        // SAFETY: loads of x below blk·n + (R1 − 1)·R2 + R2 = (blk + 1)·n; every
        // place of y touched is `R1·p + j` or `j + R1·k2` (p, k2 < R2, j < R1) past
        // blk·n, below (blk + 1)·n ≤ count·n (asserted); twiddle loads below
        // (R1 − 2)·R2 + R2 ≤ lane_tw.len().
        unsafe {
            let (xb, yb) = (x.as_ptr().add(blk * n), y.as_mut_ptr().add(blk * n));
            for pg in 0..pgs {
                let mut a = [z; R1];
                for (k, ak) in a.iter_mut().enumerate() {
                    *ak = V::load(xb.add(k * R2 + pg * l));
                }
                let mut b = b1.apply(a);
                for (j, bj) in b.iter_mut().enumerate().skip(1) {
                    *bj = bj.mul(V::load(tp.add((j - 1) * R2 + pg * l)));
                }
                for jg in 0..jgs {
                    let mut sq = [z; 4];
                    sq[..l].copy_from_slice(&b[jg * l..jg * l + l]);
                    V::transpose_regs(&mut sq[..l]);
                    for (u, v) in sq[..l].iter().enumerate() {
                        v.store(yb.add(R1 * (pg * l + u) + jg * l));
                    }
                }
            }
            for jg in 0..jgs {
                let mut t = [z; R2];
                for (p, tv) in t.iter_mut().enumerate() {
                    *tv = V::load(yb.add(R1 * p + jg * l));
                }
                let o = b2.apply(t);
                for (k2, &ok) in o.iter().enumerate() {
                    ok.store(yb.add(jg * l + R1 * k2));
                }
            }
        }
    }
}

/// Runs `$body` for each `$i` of `0..$n` (`$n` ≤ 16, a constant) written out once
/// per value, so that the compiler sees constant indices (it does not unroll loops
/// whose bodies hold a whole butterfly), for lengths up to [`UNROLL_MAX`]; a loop
/// for longer ones.
macro_rules! stage_loop {
    ($i:ident < $n:expr, $len:expr, $body:block) => {
        if $len <= UNROLL_MAX {
            unrolled!($i < $n, $body)
        } else {
            for $i in 0..$n $body
        }
    };
}

/// Lengths whose [`lanes_codelet`] stages are written out value by value. Measured
/// on the 2-vCPU VM (quick bench, 3 alternated rounds, session 16), loops ->
/// unrolled, us: `f32` 24 33.0 -> 29.2, 27 47.5 -> 44.1; `f64` 24 54.0 -> 48.0, 27
/// 70.1 -> 67.0; but `f64` 72 (8 × 9) 78.5 -> 84.4.
const UNROLL_MAX: usize = 32;

macro_rules! unrolled {
    ($i:ident < $n:expr, $body:block) => {
        unrolled!(@ $i < $n, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@ $i:ident < $n:expr, $body:block, $($v:literal)*) => {{
        $(
            if $v < $n {
                let $i: usize = $v;
                $body
            }
        )*
    }};
}

/// Runs `count` transforms of `x` into `y` by [`lanes_codelet`] with the first pass
/// `first` of the two (its table holds the constant twiddles); false (nothing done)
/// for a shape without a codelet.
fn lanes_whole<T: FftReal>(
    first: &Pass<T>,
    fwd: bool,
    x: &[C<T>],
    y: &mut [C<T>],
    count: usize,
) -> bool {
    macro_rules! go {
        ($n:literal, $r1:literal, $r2:literal, $b1:ident, $b2:ident) => {
            if fwd {
                super::simd::dispatch(LanesJob::<T, $n, $r1, $r2, _, _> {
                    first,
                    x,
                    y,
                    count,
                    b1: $b1::<true>,
                    b2: $b2::<true>,
                })
            } else {
                super::simd::dispatch(LanesJob::<T, $n, $r1, $r2, _, _> {
                    first,
                    x,
                    y,
                    count,
                    b1: $b1::<false>,
                    b2: $b2::<false>,
                })
            }
        };
    }
    match (first.radix, first.m) {
        (8, 3) => go!(24, 8, 3, Dir, Dir),
        (3, 9) => go!(27, 3, 9, Dir, Dir),
        (8, 9) => go!(72, 8, 9, Dir, Dir),
        _ => return false,
    }
    true
}

/// One [`lanes_codelet`] shape: its own `SimdFn` type, so its own vector function.
struct LanesJob<'a, T, const N: usize, const R1: usize, const R2: usize, B1, B2> {
    first: &'a Pass<T>,
    x: &'a [C<T>],
    y: &'a mut [C<T>],
    count: usize,
    b1: B1,
    b2: B2,
}

impl<T: FftReal, const N: usize, const R1: usize, const R2: usize, B1, B2> SimdFn<T>
    for LanesJob<'_, T, N, R1, R2, B1, B2>
where
    B1: Butterfly<T, R1>,
    B2: Butterfly<T, R2>,
{
    type Out = ();
    /// `f32` codelets ran slower in the AVX-512 build, `f64` ones faster (2-vCPU VM,
    /// quick bench, best of 3 alternated runs, session 17, us, AVX2 -> AVX-512):
    /// `f32` 24 29.1 -> 32.4, 27 43.9 -> 45.3; `f64` 27 69.0 -> 62.0, 72 78.1 -> 75.1.
    #[inline(always)]
    fn avx512(&self) -> bool {
        std::mem::size_of::<T>() == 8
    }
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let (first, x, y, count) = (self.first, self.x, self.y, self.count);
        let whole = count - count % V::LANES;
        lanes_codelet::<V, N, R1, R2, B1, B2>(first, x, y, whole, &self.b1, &self.b2);
        if whole < count {
            // The last transforms one at a time.
            lanes_codelet::<C<T>, N, R1, R2, B1, B2>(
                first,
                &x[whole * N..],
                &mut y[whole * N..],
                count - whole,
                &self.b1,
                &self.b2,
            );
        }
    }
}

/// Whole transforms of `N = R1·R2` (`count` of them, a multiple of the lane count),
/// the `L` transforms of each group of `L` together, one per lane (lane `b` holds
/// transform `g + b`), as straight code over vectors: for each `p < R2` the
/// radix-`R1` butterfly over the values `p + R2·k` (each vector gathered lane by
/// lane from `x[(g + b)·N + p + R2·k]`) times the twiddles `ω_N^{p·j}` (broadcast
/// constants from `first`'s table, whose first pass is this one), then for each
/// `j < R1` the radix-`R2` butterfly over `p`, whose output `k2` is `X[j + R1·k2]`,
/// scattered lane by lane. No pass through a buffer and no twiddle table per lane;
/// the values that do not fit the 16 registers stay on the stack, in the L1 cache.
/// (`f32` lengths that are multiples of 4 go through [`lanes_codelet_blocks`].)
#[inline(always)]
fn lanes_codelet<V: Cv, const N: usize, const R1: usize, const R2: usize, B1, B2>(
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
    let l = V::LANES;
    assert!(N == R1 * R2 && count % l == 0);
    assert!(x.len() >= N * count && y.len() >= N * count);
    let tw = &first.tw[..];
    assert!(first.s == 1 && first.radix == R1 && first.m == R2 && tw.len() >= (R1 - 1) * R2);
    let z = V::splat(C::new(V::T::zero(), V::T::zero()));
    let one = V::splat(C::new(V::T::one(), V::T::zero()));
    // w[j·R2 + p] = ω_N^{p·j} (1 for j = 0 or p = 0), broadcast once per call.
    let mut w = [one; N];
    for j in 1..R1 {
        for p in 1..R2 {
            w[j * R2 + p] = V::splat(tw[(j - 1) * R2 + p]);
        }
    }
    // Four-lane vectors (`f32`) of a length that is a multiple of 4 go in and out as
    // 4 × 4 blocks transposed in registers; otherwise each vector is gathered and
    // scattered lane by lane. (Measured on the 2-vCPU VM, quick bench, 3 alternated
    // rounds: `f32` 24 blocks 33.7 us, gathers 38.9; `f64` 24 gathers 53.7, blocks
    // 62.0 us.)
    if l == 4 && N % 4 == 0 {
        lanes_codelet_blocks::<V, N, R1, R2, B1, B2>(&w, x, y, count, b1, b2);
        return;
    }
    let mut u = [z; N];
    let mut g = 0;
    while g < count {
        // SAFETY: the group's transforms g..g + L are below count (a multiple of L):
        // every load reads x[(g + b)·N + t] and every store writes y[(g + b)·N + t]
        // for b < L, t < N, below count·N ≤ both lengths (asserted).
        unsafe {
            let (xg, yg) = (x.as_ptr().add(g * N), y.as_mut_ptr().add(g * N));
            stage_loop!(p < R2, N, {
                let mut a = [z; R1];
                for (k, ak) in a.iter_mut().enumerate() {
                    *ak = V::load_strided(xg.add(p + R2 * k), N);
                }
                let b = b1.apply(a);
                for (j, &bj) in b.iter().enumerate() {
                    u[j * R2 + p] = if p > 0 { bj.mul(w[j * R2 + p]) } else { bj };
                }
            });
            stage_loop!(j < R1, N, {
                let mut a = [z; R2];
                a.copy_from_slice(&u[j * R2..j * R2 + R2]);
                let r = b2.apply(a);
                for (k2, &rk) in r.iter().enumerate() {
                    rk.store_strided(yg.add(j + R1 * k2), N);
                }
            });
        }
        g += l;
    }
}

/// [`lanes_codelet`] with the group's values loaded and stored as `L × L` blocks
/// transposed in registers (`N` a multiple of `L`, `L ≤ 4`); `w` its twiddles.
#[inline(always)]
fn lanes_codelet_blocks<V: Cv, const N: usize, const R1: usize, const R2: usize, B1, B2>(
    w: &[V; N],
    x: &[C<V::T>],
    y: &mut [C<V::T>],
    count: usize,
    b1: &B1,
    b2: &B2,
) where
    B1: Butterfly<V::T, R1>,
    B2: Butterfly<V::T, R2>,
{
    let l = V::LANES;
    assert!(N == R1 * R2 && count % l == 0 && N % l == 0 && l <= 4);
    assert!(x.len() >= N * count && y.len() >= N * count);
    let z = V::splat(C::new(V::T::zero(), V::T::zero()));
    let (mut d, mut u, mut o) = ([z; N], [z; N], [z; N]);
    let mut g = 0;
    while g < count {
        // SAFETY: the group's transforms g..g + L are below count (a multiple of L):
        // every load reads x[(g + b)·N + t] and every store writes y[(g + b)·N + t]
        // for b < L, t = t0 + i (t0 a multiple of L below N, a multiple of L, and
        // i < L), below count·N ≤ both lengths (asserted).
        unsafe {
            let (xg, yg) = (x.as_ptr().add(g * N), y.as_mut_ptr().add(g * N));
            let mut t0 = 0;
            while t0 < N {
                let mut sq = [z; 4];
                for (b, v) in sq.iter_mut().enumerate().take(l) {
                    *v = V::load(xg.add(b * N + t0));
                }
                V::transpose_regs(&mut sq[..l]);
                d[t0..t0 + l].copy_from_slice(&sq[..l]);
                t0 += l;
            }
            stage_loop!(p < R2, N, {
                let mut a = [z; R1];
                for (k, ak) in a.iter_mut().enumerate() {
                    *ak = d[p + R2 * k];
                }
                let b = b1.apply(a);
                for (j, &bj) in b.iter().enumerate() {
                    u[j * R2 + p] = if p > 0 { bj.mul(w[j * R2 + p]) } else { bj };
                }
            });
            stage_loop!(j < R1, N, {
                let mut a = [z; R2];
                a.copy_from_slice(&u[j * R2..j * R2 + R2]);
                let r = b2.apply(a);
                for (k2, &rk) in r.iter().enumerate() {
                    o[j + R1 * k2] = rk;
                }
            });
            let mut t0 = 0;
            while t0 < N {
                let mut sq = [z; 4];
                sq[..l].copy_from_slice(&o[t0..t0 + l]);
                V::transpose_regs(&mut sq[..l]);
                for (b, v) in sq.iter().enumerate().take(l) {
                    v.store(yg.add(b * N + t0));
                }
                t0 += l;
            }
        }
        g += l;
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
        impl<T: FftReal, const F: bool> Butterfly<T, $r> for Dir<F> {
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
fixed!(12, bf12);
fixed!(18, bf18);

impl<T: FftReal, const F: bool> Butterfly<T, 2> for Dir<F> {
    #[inline(always)]
    fn apply<V: Cv<T = T>>(&self, a: [V; 2]) -> [V; 2] {
        bf2(a)
    }
}

/// Odd prime radices with their constants.
struct Odd<'a, T>(&'a OddConsts<T>);

impl<T: FftReal, const R: usize> Butterfly<T, R> for Odd<'_, T> {
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
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn pass<V: Cv, const R: usize, B: Butterfly<V::T, R>>(
    x: &[C<V::T>],
    y: Raw<C<V::T>>,
    p: &Pass<V::T>,
    bf: B,
    count: usize,
    inner: usize,
    part: (usize, usize),
    tw: &Tw<'_, V::T>,
    win: (usize, usize),
) {
    let (m, s) = (p.m, p.s * inner);
    let nr = m * s;
    let n = R * nr;
    // The raw-pointer loops below rely on these bounds.
    assert!(x.len() >= n * count && y.len >= n * count);
    let lanes = V::LANES;
    let blocks = (count, n);
    let last = part.0 + 1 == part.1;
    // Interleaved transforms (a batch tile) take the short loop nests of `columns`
    // (measured there); plain passes keep the general one (with the short nests,
    // `f64` 100000 measured 367 -> 446-510 us).
    let tile = inner > 1;
    if s >= lanes {
        let whole = s - s % lanes;
        // Shares of p, or of the columns when p is too short to share.
        let (ps, qs, tail) = if m >= part.1 {
            (share(m, part, 1), (0, whole), whole < s)
        } else {
            ((0, m), share(whole, part, lanes), whole < s && last)
        };
        let ps = within(ps, win);
        // The last pass (m = 1) has only unit twiddles.
        if m == 1 {
            columns::<V, R, B, false>(x, y, tw, (m, s), ps, qs, &bf, blocks, tile);
            if tail {
                columns::<C<V::T>, R, B, false>(
                    x,
                    y,
                    tw,
                    (m, s),
                    ps,
                    (whole, s),
                    &bf,
                    blocks,
                    tile,
                );
            }
        } else {
            columns::<V, R, B, true>(x, y, tw, (m, s), ps, qs, &bf, blocks, tile);
            if tail {
                columns::<C<V::T>, R, B, true>(x, y, tw, (m, s), ps, (whole, s), &bf, blocks, tile);
            }
        }
    } else if inner > 1 {
        let ps = within(share(m, part, 1), win);
        columns::<C<V::T>, R, B, true>(x, y, tw, (m, s), ps, (0, s), &bf, blocks, tile);
    } else {
        // Flat indices l = s·p + q of the window's p; window boundaries (multiples of
        // CHUNK in p, so of 4 in l, or the share's) keep whole vectors.
        let lw = (win.0 * s, win.1 * s);
        let whole = nr - nr % lanes;
        let (l0, l1) = within(share(whole, part, lanes), lw);
        flat_lanes::<V, R, B>(x, y, p, tw, l0, l1, &bf, blocks);
        if whole < nr && last {
            let (t0, t1) = within((whole, nr), lw);
            flat_lanes::<C<V::T>, R, B>(x, y, p, tw, t0, t1, &bf, blocks);
        }
    }
}

/// `a ∩ b`, as `(b.0, b.0)` when empty (so always inside `b`).
#[inline(always)]
fn within(a: (usize, usize), b: (usize, usize)) -> (usize, usize) {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    if lo < hi {
        (lo, hi)
    } else {
        (b.0, b.0)
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
    tw: &Tw<'_, V::T>,
    (m, s): (usize, usize),
    (p0, p1): (usize, usize),
    (q0, q1): (usize, usize),
    bf: &B,
    (count, n): (usize, usize),
    tile: bool,
) {
    let (xp, yp) = (x.as_ptr(), y.ptr);
    let one = C::new(V::T::one(), V::T::zero());
    if tile && count == 1 && q1 - q0 == V::LANES {
        // One vector per p (the first passes of a narrow batch tile): one loop, so
        // that its few counters stay in registers beside a large butterfly's values.
        // With only the general nest below, `f32` 2401 = 7^4 in tiles of 4 measured
        // 117 or 196 us from one build to the next, depending on whether the register
        // allocator spilled a loop counter (an add to the stack on every iteration);
        // with this loop and the one-block nest below 115 us, and 2187 108 -> 95,
        // 729 100 -> 87, 343 103 -> 80 us (session 14).
        for p in p0..p1 {
            // SAFETY: as below with blk = 0 and q = q0 (q0 + LANES = q1 ≤ s).
            unsafe {
                let a: [V; R] = from_fn(|k| V::load(xp.add(q0 + s * (p + k * m))));
                let b = bf.apply(a);
                for (j, &bj) in b.iter().enumerate() {
                    let v = if TW && j > 0 {
                        bj.mul(V::splat(tw.get(p, j)))
                    } else {
                        bj
                    };
                    v.store(yp.add(q0 + s * (R * p + j)));
                }
            }
        }
        return;
    }
    if tile && count == 1 {
        // One block (a batch tile): the same without the block loop's counters.
        for p in p0..p1 {
            let w: [V; R] = from_fn(|j| V::splat(if TW && j > 0 { tw.get(p, j) } else { one }));
            let mut q = q0;
            while q < q1 {
                // SAFETY: as below with blk = 0.
                unsafe {
                    let a: [V; R] = from_fn(|k| V::load(xp.add(q + s * (p + k * m))));
                    let b = bf.apply(a);
                    for (j, &bj) in b.iter().enumerate() {
                        let v = if TW && j > 0 { bj.mul(w[j]) } else { bj };
                        v.store(yp.add(q + s * (R * p + j)));
                    }
                }
                q += V::LANES;
            }
        }
        return;
    }
    for p in p0..p1 {
        let w: [V; R] = from_fn(|j| V::splat(if TW && j > 0 { tw.get(p, j) } else { one }));
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
#[allow(clippy::too_many_arguments)]
fn flat_lanes<V: Cv, const R: usize, B: Butterfly<V::T, R>>(
    x: &[C<V::T>],
    y: Raw<C<V::T>>,
    pass: &Pass<V::T>,
    tw: &Tw<'_, V::T>,
    l0: usize,
    l1: usize,
    bf: &B,
    (count, n): (usize, usize),
) {
    let (m, s) = (pass.m, pass.s);
    let nr = m * s;
    // The twiddles of l are at (j−1)·row·s + l − p0·s of the view.
    let (row, off) = (tw.row * s, tw.p0 * s);
    assert!(l0 >= off && l1 <= off + row && l1 <= nr && tw.lanes.len() >= (R - 1) * row);
    for blk in 0..count {
        // SAFETY: blk·n + n ≤ count·n ≤ len (asserted in `pass`); l0 − off ≤ row ≤ the
        // view's length (asserted above).
        let (xp, yp, mut tq) = unsafe {
            (
                x.as_ptr().add(blk * n),
                y.ptr.add(blk * n),
                tw.lanes.as_ptr().add(l0 - off),
            )
        };
        let mut l = l0;
        while l < l1 {
            // SAFETY: l + LANES ≤ l1 ≤ nr and k, j < R: loads stay below R·nr = n past
            // the block start, stores below n past it (asserted in `pass`); `tq` is at
            // l − off of the view, so twiddle loads end at (j − 1)·row + l − off +
            // LANES ≤ (R − 1)·row ≤ the view's length, and it moves to at most
            // l1 − off ≤ row (asserted above).
            unsafe {
                let a: [V; R] = from_fn(|k| V::load(xp.add(l + k * nr)));
                let mut b = bf.apply(a);
                for (j, bj) in b.iter_mut().enumerate().skip(1) {
                    *bj = bj.mul(V::load(tq.add((j - 1) * row)));
                }
                V::scatter(&b, yp, l, s);
                tq = tq.add(V::LANES);
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
    tw: &Tw<'_, V::T>,
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
                            bj.mul(V::splat(tw.get(p, j)))
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

    /// A pass's rows (`[(j−1)·m + p]`) and lane copies (`[(j−1)·m·s + s·p + q]`, for
    /// `1 < s < LANE_TABLE_BELOW`) as the kernels see them: the tables, or for a split
    /// pass the chunk views formed over every `p` (one lane, then whole vectors).
    /// A pass's rows and lane copies.
    type Seen<T> = (Vec<C<T>>, Vec<C<T>>);

    /// For a split pass also the rows formed one lane at a time (the vector product
    /// may fuse a multiply-add, so the two can differ in the last bit).
    fn seen<T: FftReal>(pass: &Pass<T>) -> Vec<Seen<T>> {
        let (r, m, s) = (pass.radix, pass.m, pass.s);
        let copies = s > 1 && s < LANE_TABLE_BELOW;
        let mut rows = vec![C::zero(); (r - 1) * m];
        let mut lanes = vec![C::zero(); if copies { (r - 1) * m * s } else { 0 }];
        let mut buf = vec![C::zero(); pass.chunk_len()];
        let views: Vec<(usize, usize)> = match pass.split {
            None => vec![(0, m)],
            Some(_) => (0..m)
                .step_by(CHUNK)
                .map(|pa| (pa, m.min(pa + CHUNK)))
                .collect(),
        };
        for (pa, pb) in views {
            let tw = match &pass.split {
                None => pass.table_view(),
                Some(sp) => chunk_view(pass, sp, pa, pb, if copies { s } else { 0 }, &mut buf),
            };
            let want = if pass.split.is_some() {
                (pa, pb - pa)
            } else {
                (0, m)
            };
            assert_eq!((tw.p0, tw.row), want);
            for j in 1..r {
                for p in pa..pb {
                    rows[(j - 1) * m + p] = tw.get(p, j);
                    if copies {
                        for q in 0..s {
                            lanes[(j - 1) * m * s + s * p + q] =
                                tw.lanes[(j - 1) * tw.row * s + s * (p - tw.p0) + q];
                        }
                    }
                }
            }
        }
        let mut v = vec![(rows, lanes)];
        if let Some(sp) = &pass.split {
            let mut one = vec![C::zero(); (r - 1) * m];
            for pa in (0..m).step_by(CHUNK) {
                let pb = m.min(pa + CHUNK);
                let mut chunk = vec![C::zero(); (r - 1) * (pb - pa)];
                FillChunk {
                    sp,
                    r,
                    pa,
                    rows: &mut chunk,
                }
                .call::<C<T>>();
                for (j, c) in (1..r).zip(chunk.chunks_exact(pb - pa)) {
                    one[(j - 1) * m + pa..][..pb - pa].copy_from_slice(c);
                }
            }
            v.push((one, Vec::new()));
        }
        v
    }

    /// Every twiddle of every pass against a direct evaluation of `ω_n^{s·p·j}`, for
    /// the quarter-table lengths (`4 | n`, small and large, first radix 2, 3, 4 or 8),
    /// the others, and lengths with split passes (first passes, the lane shape's
    /// copies of strides 2 and 3, odd and generic radices), both directions.
    ///
    /// Bounds: a table entry is a root correct to about 1 ulp of `f64` (`e64` =
    /// 2.3e-16 in norm, taken twice: the table's and the reference's evaluation)
    /// rounded once to `T` (at most `u` = unit roundoff in norm). A split pass's entry
    /// is the product in `T` of two such rounded roots `a`, `b` (`|a|, |b| ≈ 1`): the
    /// factors are off by at most `u + e64` each, and a complex product rounds by at
    /// most `√5·u` (Brent, Percival, Zimmermann 2007), so the entry is within
    /// `(2 + √5)·u + 3·e64` of the root. A misplaced entry is off by O(1/n) at least.
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
            (1 << 18, &[4; 9]),
            (1 << 19, &[8, 4, 4, 4, 4, 4, 4, 4, 4]),
            (1 << 20, &[4; 10]),
            (1_000_000, &[4, 4, 4, 5, 5, 5, 5, 5, 5]),
            // Lane shape with strides 2 and 3 split; a generic radix split.
            (2 * 3usize.pow(10), &[2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]),
            (3 * 5 * 8192, &[3, 5, 16, 16, 16, 2]),
            (3usize.pow(11), &[3; 11]),
            (59 * 4096, &[59, 4, 4, 4, 4, 4, 4]),
            (13 * 4096, &[4, 4, 4, 4, 4, 4, 13]),
        ];
        let e64 = 2.3e-16;
        let split_bound = |u: f64| (2.0 + 5f64.sqrt()) * u + 3.0 * e64;
        let (u32_, u64_) = (f32::EPSILON as f64 / 2.0, f64::EPSILON / 2.0);
        let mut splits = 0;
        let mut split_strides = std::collections::BTreeSet::new();
        for &(n, radices) in cases {
            assert_eq!(radices.iter().product::<usize>(), n);
            for fwd in [true, false] {
                let p64 = build_passes::<f64>(n, radices, fwd, TABLE_MAX).unwrap();
                let p32 = build_passes::<f32>(n, radices, fwd, TABLE_MAX).unwrap();
                for (a, b) in p64.iter().zip(&p32) {
                    let (r, m, s) = (a.radix, a.m, a.s);
                    assert_eq!(a.split.is_some(), b.split.is_some());
                    let split = a.split.is_some();
                    splits += split as usize;
                    if split && s > 1 && s < LANE_TABLE_BELOW {
                        split_strides.insert(s);
                    }
                    if split {
                        assert!(a.tw.is_empty() && a.twx.is_empty());
                    } else {
                        assert_eq!(a.tw.len(), (r - 1) * m);
                    }
                    let (b64, b32) = if split {
                        (split_bound(u64_), split_bound(u32_))
                    } else {
                        (u64_ + 2.0 * e64, u32_ + 2.0 * e64)
                    };
                    for ((r64, l64), (r32, l32)) in seen(a).into_iter().zip(seen(b)) {
                        for j in 1..r {
                            for p in 0..m {
                                let want = root_dir((s * p * j) as u64, n as u64, fwd);
                                let got = r64[(j - 1) * m + p];
                                assert!(
                                    (got - want).norm() <= b64,
                                    "n {n} {radices:?} fwd {fwd} s {s} j {j} p {p}: {got} vs {want}"
                                );
                                let g32 = r32[(j - 1) * m + p];
                                let g32 = C::new(g32.re as f64, g32.im as f64);
                                assert!(
                                    (g32 - want).norm() <= b32,
                                    "f32 n {n} s {s} j {j} p {p}: {g32} vs {want}"
                                );
                                if s > 1 && s < LANE_TABLE_BELOW && !l64.is_empty() {
                                    for q in 0..s {
                                        assert_eq!(l64[(j - 1) * m * s + s * p + q], got);
                                        assert_eq!(
                                            l32[(j - 1) * m * s + s * p + q],
                                            r32[(j - 1) * m + p]
                                        );
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // The cases above do reach the split passes.
        assert!(splits >= 20, "{splits} split passes");
        // Including the lane shape's copies.
        assert_eq!(split_strides.into_iter().collect::<Vec<_>>(), vec![2, 3]);
    }

    /// Transforms whose passes are split (see [`Split`]; with [`Stockham::once`] all
    /// of them) against the reference, one
    /// transform shared among 1 to 3 tasks and a batch of 3 through the same kernels:
    /// lane shape with and without copies (strides 1, 2, 3) and with a one-lane tail,
    /// columns with a tail, odd, radix-16 and generic radices, both directions, both
    /// precisions. Bound: 8·ε·√log2 N (relative L2), twice the acceptance bound for
    /// smooth sizes; a wrong twiddle or a missed window costs O(1/√N) or more.
    #[test]
    fn split_passes_match_the_reference() {
        use crate::reference::{fft_f64, rel_l2};
        let cases: &[(usize, &[usize])] = &[
            (1 << 15, &[4, 4, 4, 4, 4, 4, 8]),
            (2 * 3usize.pow(10), &[2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]),
            (3 * 5 * 8192, &[3, 5, 16, 16, 16, 2]),
            (59 * 1024, &[59, 4, 4, 4, 4, 4]),
            (2 * 7 * 11 * 13 * 17, &[17, 13, 11, 7, 2]),
        ];
        fn check<T: FftReal>(st: &Stockham<T>, radices: &[usize]) {
            let (n, fwd) = (st.n, st.forward);
            assert!(
                st.passes.iter().any(|p| p.split.is_some()),
                "{n} {radices:?}"
            );
            let x: Vec<C<f64>> = (0..3 * n)
                .map(|i| C::new((i as f64 * 0.37).sin(), (i as f64 * 0.91).cos() - 0.3))
                .collect();
            let xt: Vec<C<T>> = x.iter().map(|&z| cast(z)).collect();
            let widen = |v: &[C<T>]| -> Vec<C<f64>> {
                v.iter()
                    .map(|z| C::new(z.re.as_f64(), z.im.as_f64()))
                    .collect()
            };
            let want: Vec<Vec<C<f64>>> = widen(&xt).chunks(n).map(|c| fft_f64(c, fwd)).collect();
            let bound = 8.0 * T::EPS * (n as f64).log2().sqrt();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .expect("pool");
            for (count, parts) in [(1, 1), (1, 2), (1, 3), (3, 1)] {
                let mut dst = vec![C::zero(); count * n];
                let mut sc = vec![C::zero(); count * n];
                pool.install(|| st.run_batch(&xt[..count * n], &mut dst, &mut sc, count, parts));
                for (b, w) in want.iter().take(count).enumerate() {
                    let e = rel_l2(&widen(&dst[b * n..(b + 1) * n]), w);
                    assert!(
                        e < bound,
                        "{n} {radices:?} fwd {fwd} count {count} parts {parts} #{b}: {e:e}"
                    );
                }
            }
        }
        for &(n, radices) in cases {
            assert_eq!(radices.iter().product::<usize>(), n);
            for fwd in [true, false] {
                check(&Stockham::<f32>::new(n, radices, fwd).unwrap(), radices);
                check(&Stockham::<f64>::new(n, radices, fwd).unwrap(), radices);
            }
            // Every pass split, as for a convolution kernel.
            let once = Stockham::<f64>::once(n, radices, true).unwrap();
            assert!(once
                .passes
                .iter()
                .all(|p| p.split.is_some() && p.tw.is_empty()));
            check(&once, radices);
        }
        // Small lengths too (single and short passes, m below a chunk).
        for (n, radices) in [
            (3, &[3][..]),
            (16, &[4, 4]),
            (144, &[4, 4, 3, 3]),
            (64, &[8, 8]),
        ] {
            assert_eq!(radices.iter().product::<usize>(), n);
            check(&Stockham::<f64>::once(n, radices, true).unwrap(), radices);
        }
    }

    /// The planner's whole-transform kernels ([`Whole`]: two passes in registers or
    /// through the output) against the reference, through [`Stockham::run_batch`]
    /// with 1 to 17 transforms and through [`Stockham::run`], both precisions and
    /// directions, asserting that each case does run whole; the places after the
    /// batch stay untouched. Bound as in `split_passes_match_the_reference`.
    #[test]
    fn whole_transforms_match_the_reference() {
        use crate::reference::{fft_f64, rel_l2};
        fn check<T: FftReal>(n: usize, fwd: bool) {
            let bytes = std::mem::size_of::<C<T>>();
            let radices = crate::plan::radix_passes(n, bytes);
            let whole = crate::plan::whole_kernel(n, bytes);
            let st = Stockham::<T>::with_whole(n, &radices, whole, fwd).unwrap();
            let widen = |v: &[C<T>]| -> Vec<C<f64>> {
                v.iter()
                    .map(|z| C::new(z.re.as_f64(), z.im.as_f64()))
                    .collect()
            };
            let what = format!("{n} {}", std::any::type_name::<T>());
            let bound = 8.0 * T::EPS * (n as f64).log2().sqrt();
            let guard = C::new(T::from_f64(7.0), T::from_f64(-3.0));
            for count in [1, 2, 3, 5, 7, 17] {
                let x: Vec<C<T>> = (0..count * n)
                    .map(|i| {
                        cast(C::new(
                            (i as f64 * 0.37).sin(),
                            (i as f64 * 0.91).cos() - 0.3,
                        ))
                    })
                    .collect();
                let mut dst = vec![guard; count * n + 8];
                if super::super::simd::has_avx2_fma() {
                    // The cases are chosen to run whole with AVX2.
                    assert!(st.in_registers(&x, &mut dst, count), "{what}");
                    dst.fill(guard);
                }
                let mut sc = vec![guard; count * n + 8];
                st.run_batch(&x, &mut dst, &mut sc, count, 1);
                for b in 0..count {
                    let want = fft_f64(&widen(&x[b * n..(b + 1) * n]), fwd);
                    let e = rel_l2(&widen(&dst[b * n..(b + 1) * n]), &want);
                    assert!(e < bound, "{what} fwd {fwd} count {count} #{b}: {e:e}");
                }
                assert!(dst[count * n..].iter().all(|&z| z == guard), "{what}");
            }
            // One transform through `run` (result in either buffer).
            let x: Vec<C<T>> = (0..n)
                .map(|i| cast(C::new((i as f64).cos(), 0.5)))
                .collect();
            let (mut a, mut b) = (x.clone(), vec![guard; n]);
            let got = match st.run(&mut a, &mut b) {
                Loc::A => a,
                Loc::B => b,
            };
            let e = rel_l2(&widen(&got), &fft_f64(&widen(&x), fwd));
            assert!(e < bound, "{what} fwd {fwd} run: {e:e}");
        }
        for fwd in [true, false] {
            // In registers: f32 16, 32, 64, f64 16, 32; through the output: f64 64
            // (8 × 8), both 128 (8 × 16), f32 256 (16 × 16), f64 144 (12 × 12); lanes of transforms
            // (`Whole::Lanes`, whole groups of 4 or 2 and the last one to three one at
            // a time): both 24 (8 × 3, f32 through 4 × 4 blocks) and 27 (3 × 9,
            // gathered), f64 72 (8 × 9); vectors across one transform
            // (`Whole::Registers`): f32 48 (12 × 4) and 72 (18 × 4, whose last group of
            // `j` fills two of the four lanes).
            for n in [16, 32, 64, 128, 256, 24, 27, 48, 72] {
                check::<f32>(n, fwd);
            }
            for n in [16, 32, 64, 128, 24, 27, 72, 144] {
                check::<f64>(n, fwd);
            }
        }
    }

    /// First passes whose `m` is not a multiple of the lane count but at least one
    /// vector ([`ShortFirstJob`]: the last vector of each transform overlaps the one
    /// before), through [`Stockham::run_batch`] with 1 to 7 transforms and through
    /// [`Stockham::run`], both precisions and directions, against the reference; the
    /// places after the batch stay untouched. Bound as in
    /// `split_passes_match_the_reference`; a lane stored at the wrong place or with
    /// the wrong twiddle costs O(1/√N) or more.
    #[test]
    fn short_first_passes_match_the_reference() {
        use crate::reference::{fft_f64, rel_l2};
        fn check<T: FftReal>(n: usize, radices: &[usize], fwd: bool) {
            let st = Stockham::<T>::new(n, radices, fwd).unwrap();
            let first = &st.passes[0];
            let job = ShortFirstJob {
                pass: first,
                x: &[],
                // SAFETY: never dereferenced (only `fits` is called).
                y: unsafe { Raw::new(std::ptr::null_mut(), 0) },
                fwd,
                count: 0,
            };
            if super::super::simd::has_avx2_fma() {
                // The cases are chosen to take the short first pass with AVX2.
                assert!(job.fits(), "{n} {radices:?} {}", std::any::type_name::<T>());
            }
            let widen = |v: &[C<T>]| -> Vec<C<f64>> {
                v.iter()
                    .map(|z| C::new(z.re.as_f64(), z.im.as_f64()))
                    .collect()
            };
            let bound = 8.0 * T::EPS * (n as f64).log2().sqrt();
            let guard = C::new(T::from_f64(7.0), T::from_f64(-3.0));
            for count in [1, 2, 3, 7] {
                let x: Vec<C<T>> = (0..count * n)
                    .map(|i| {
                        cast(C::new(
                            (i as f64 * 0.37).sin(),
                            (i as f64 * 0.91).cos() - 0.3,
                        ))
                    })
                    .collect();
                let mut dst = vec![guard; count * n + 8];
                let mut sc = vec![guard; count * n + 8];
                st.run_batch(&x, &mut dst, &mut sc, count, 1);
                for b in 0..count {
                    let want = fft_f64(&widen(&x[b * n..(b + 1) * n]), fwd);
                    let e = rel_l2(&widen(&dst[b * n..(b + 1) * n]), &want);
                    assert!(
                        e < bound,
                        "{n} {radices:?} fwd {fwd} count {count} #{b}: {e:e}"
                    );
                }
                assert!(
                    dst[count * n..].iter().all(|&z| z == guard),
                    "{n} {radices:?}"
                );
                assert!(
                    sc[count * n..].iter().all(|&z| z == guard),
                    "{n} {radices:?}"
                );
            }
            // One transform through `run` (ping-pong, result in either buffer).
            let x: Vec<C<T>> = (0..n)
                .map(|i| cast(C::new((i as f64).cos(), 0.5)))
                .collect();
            let (mut a, mut b) = (x.clone(), vec![guard; n]);
            let got = match st.run(&mut a, &mut b) {
                Loc::A => a,
                Loc::B => b,
            };
            let e = rel_l2(&widen(&got), &fft_f64(&widen(&x), fwd));
            assert!(e < bound, "{n} {radices:?} fwd {fwd} run: {e:e}");
        }
        // m = n / first radix (5 to 729; 3, f64 only: f32 needs at least 4), first
        // radices 2, 4, 8, 9 and 16.
        for (n, radices, f32_too) in [
            (40, &[8, 5][..], true),
            (120, &[8, 5, 3], true),
            (72, &[8, 3, 3], true),
            (216, &[8, 3, 3, 3], true),
            (360, &[8, 5, 3, 3], true),
            (44, &[4, 11], true),
            (26, &[2, 13], true),
            (20, &[4, 5], true),
            (63, &[9, 7], true),
            (135, &[9, 5, 3], true),
            (48, &[16, 3], false),
            (18, &[2, 9], true),
            (6561, &[9, 9, 3, 3, 9], true),
            (12, &[4, 3], false),
            (24, &[8, 3], false),
        ] {
            assert_eq!(radices.iter().product::<usize>(), n);
            for fwd in [true, false] {
                check::<f64>(n, radices, fwd);
                if f32_too {
                    check::<f32>(n, radices, fwd);
                }
            }
        }
    }
}
