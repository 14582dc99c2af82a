//! The four-step (row/column) transform for large lengths, `N = R·C`.
//!
//! With `n = C·n1 + n2` and `k = k1 + R·k2`:
//! `X[k1 + R·k2] = Σ_{n2} ω_C^{n2·k2} · ω_N^{n2·k1} · Σ_{n1} x[C·n1 + n2] ω_R^{n1·k1}`.
//! The input is `R` rows of `C`. Two steps (rocFFT's column-block `CC` scheme with the
//! transposes folded into the loads and stores), each over blocks of `W` lines (`W`
//! values = 128 bytes, two cache lines, of each strided run):
//!
//! 1. for each block of `W` columns `n2 = c0..c0+W`: gather the `R × W` block out of
//!    the input (runs of `W` contiguous values) transposed into `W` contiguous lines
//!    of length `R`, transform each line (a length-`R` plan in the L1 cache), multiply
//!    value `k1` of line `n2` by `ω_N^{n2·k1}` and store the line contiguously at
//!    `R·n2` of the intermediate;
//! 2. for each block of `W` rows `k1 = r0..r0+W`: gather the runs `r0 + R·n2` (`W`
//!    contiguous values each) transposed into `W` lines of length `C`, transform each
//!    line, and store value `k2` of line `u` at `X[r0 + u + R·k2]` (transposed back
//!    into runs of `W`): the same places it was read from, so step 2 works in place
//!    and the output buffer can hold the intermediate.
//!
//! So out of place the data crosses main memory twice each way (as in a two-pass GPU
//! plan) with only the input and the output as working set; the transposes are
//! `LANES × LANES` register transposes; the strided runs are prefetched one block
//! ahead. Blocks run in parallel when asked.
//!
//! The twiddle `ω_N^{n2·k1}` with `k1 = B·a + b` (`B ≈ √R`) is `hi[n2][a] · lo[n2][b]`
//! from two tables of `C·(R/B + B)` values, each the correctly rounded `f64` product of
//! the two-table root (exponents reduced exactly in integers) rounded once to `T`;
//! their product is formed in `T`.

use super::simd::{dispatch, prefetch, Cv, SimdFn};
use super::{with_scratch, Exec, Loc, Raw};
use crate::scalar::{cast, FftReal};
use crate::twiddle::RootTable;
use num_complex::Complex;
use rayon::prelude::*;
use rocm_core::{host_alloc, Result};
use std::sync::Arc;

type C<T> = Complex<T>;
/// `(tw_hi, tw_lo)` of a [`FourStep`].
type TwiddlePair<T> = (Vec<C<T>>, Vec<C<T>>);

/// Bytes of each strided run: two cache lines.
const RUN_BYTES: usize = 128;

#[derive(Debug, Clone)]
pub struct FourStep<T> {
    n: usize,
    rows: usize,
    cols: usize,
    /// Lines per block `W` (values per strided run).
    width: usize,
    first: Box<Exec<T>>,
    second: Box<Exec<T>>,
    /// `k1 = split·a + b`: `tw_hi[n2·(R/split) + a] = ω_N^{n2·split·a}`,
    /// `tw_lo[n2·split + b] = ω_N^{n2·b}`.
    split: usize,
    /// `(tw_hi, tw_lo)`, shared by every plan of this split, precision and direction
    /// (see [`super::cache`]).
    tw: Arc<TwiddlePair<T>>,
}

impl<T: FftReal> FourStep<T> {
    pub fn new(
        n: usize,
        rows: usize,
        cols: usize,
        first: Exec<T>,
        second: Exec<T>,
        fwd: bool,
    ) -> Result<Self> {
        let width = RUN_BYTES / std::mem::size_of::<C<T>>();
        // The divisor of R nearest √R from above.
        let split = (1..=rows)
            .find(|&d| rows % d == 0 && d * d >= rows)
            .unwrap_or(rows);
        let tw = super::cache::get_or_make(
            super::cache::Key::new::<T>("four-step", vec![n, rows, fwd as usize]),
            |t: &TwiddlePair<T>| (t.0.len() + t.1.len()) * std::mem::size_of::<C<T>>(),
            || Self::tables(n, rows, cols, split, fwd),
        )?;
        Ok(FourStep {
            n,
            rows,
            cols,
            width,
            first: Box::new(first),
            second: Box::new(second),
            split,
            tw,
        })
    }

    /// `(tw_hi, tw_lo)` (see [`FourStep`]'s fields), or an error when they cannot be
    /// held.
    fn tables(
        n: usize,
        rows: usize,
        cols: usize,
        split: usize,
        fwd: bool,
    ) -> Result<TwiddlePair<T>> {
        let hi_len = rows / split;
        let what = "four-step twiddle table";
        let mut tw_hi =
            host_alloc::try_with_capacity(what, host_alloc::elements(what, &[cols, hi_len])?)?;
        let mut tw_lo =
            host_alloc::try_with_capacity(what, host_alloc::elements(what, &[cols, split])?)?;
        let table = RootTable::new(n as u64, fwd)?;
        // Exponents stepped exactly mod N (no division per entry).
        let geometric = |out: &mut Vec<C<T>>, step: usize, count: usize| {
            let mut e = 0usize;
            for _ in 0..count {
                out.push(cast(table.get_reduced(e as u64)));
                e += step;
                if e >= n {
                    e -= n;
                }
            }
        };
        for n2 in 0..cols {
            geometric(&mut tw_hi, (n2 * split) % n, hi_len);
            geometric(&mut tw_lo, n2, split);
        }
        Ok((tw_hi, tw_lo))
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// Builds the deferred tables of the row and column plans.
    pub fn prepare(&self) -> Result<()> {
        self.first.prepare()?;
        self.second.prepare()
    }

    /// Complex elements of scratch [`Self::run`] needs: the intermediate buffer and the
    /// tiles of a sequential run.
    pub fn scratch_len(&self) -> usize {
        self.n + self.tile_scratch()
    }

    /// Scratch of one task: the lines of a block and the line transforms' scratch
    /// (step 2 keeps a second set of lines when its plan is a Stockham sequence).
    fn tile_scratch(&self) -> usize {
        let w = self.width;
        let one = |e: &Exec<T>, len: usize| 2 * w * len + e.lines_scratch_len(w);
        one(&self.first, self.rows).max(one(&self.second, self.cols))
    }

    /// Transforms `a[..n]` in place; `b` (at least [`Self::scratch_len`]) holds the
    /// intermediate and the tiles.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        let n = self.n;
        let (mid, tiles) = b.split_at_mut(n);
        self.step1(&a[..n], mid, tiles, par);
        // SAFETY: `mid` and `a` are distinct buffers borrowed mutably for this call.
        let (from, to) = unsafe { (Raw::new(mid.as_mut_ptr(), n), Raw::new(a.as_mut_ptr(), n)) };
        self.step2(from, to, tiles, par);
        Loc::A
    }

    /// Transforms `src[..n]` into `dst[..n]` (which holds the intermediate); `tiles` at
    /// least [`Self::scratch_len`] minus `n`.
    pub fn run_out_of_place(&self, src: &[C<T>], dst: &mut [C<T>], tiles: &mut [C<T>], par: bool) {
        let n = self.n;
        self.step1(&src[..n], &mut dst[..n], tiles, par);
        // SAFETY: `dst` is borrowed mutably for this call; step 2 reads and writes it
        // through this one view (each block only its own places).
        let d = unsafe { Raw::new(dst.as_mut_ptr(), n) };
        self.step2(d, d, tiles, par);
    }

    /// Runs `block(i, scratch)` for `i < count`, in parallel when asked (each task
    /// with a per-thread scratch of [`Self::tile_scratch`]), else with `tiles`.
    fn for_blocks(
        &self,
        count: usize,
        tiles: &mut [C<T>],
        par: bool,
        block: impl Fn(usize, &mut [C<T>]) + Sync,
    ) {
        let need = self.tile_scratch();
        if par && count > 1 {
            (0..count).into_par_iter().for_each(|i| {
                with_scratch::<T, _>(need, |sc| block(i, sc));
            });
        } else {
            for i in 0..count {
                block(i, &mut tiles[..need]);
            }
        }
    }

    /// Step 1: column blocks of `src` as lines, transformed and twiddled, into `mid`
    /// (`(k1, n2)` at `k1 + R·n2`).
    fn step1(&self, src: &[C<T>], mid: &mut [C<T>], tiles: &mut [C<T>], par: bool) {
        let (r, c, wd) = (self.rows, self.cols, self.width);
        assert!(src.len() >= r * c && mid.len() >= r * c);
        // SAFETY: `mid` is borrowed mutably for this call; block `c0` writes only
        // `c0·R .. (c0 + w)·R`, which no other block touches.
        let out = unsafe { Raw::new(mid.as_mut_ptr(), mid.len()) };
        // SAFETY: `src` is borrowed for this call and only read through this view.
        let sp = unsafe { Raw::new(src.as_ptr() as *mut C<T>, src.len()) };
        self.for_blocks(c.div_ceil(wd), tiles, par, |i, sc| {
            let c0 = i * wd;
            let w = wd.min(c - c0);
            let (lines, rest) = sc.split_at_mut(r * w);
            let (done, rest) = rest.split_at_mut(r * w);
            dispatch(GatherLines {
                src: sp,
                stride: c,
                start: c0,
                next: (c0 + wd < c).then_some(c0 + wd),
                lines: &mut *lines,
                w,
            });
            self.first.run_lines(lines, done, rest, w);
            for (k, res) in done.chunks_exact(r).enumerate() {
                if let Some(dst) = out.run_mut((c0 + k) * r, r) {
                    dispatch(TwiddleLine {
                        fs: self,
                        n2: c0 + k,
                        res,
                        dst,
                    });
                }
            }
        });
    }

    /// Step 2: row blocks of the intermediate in `from` (runs `r0 + R·n2`) as lines,
    /// transformed, into `to` in natural order (the same places; `from` may be `to`).
    fn step2(&self, from: Raw<C<T>>, to: Raw<C<T>>, tiles: &mut [C<T>], par: bool) {
        let (r, c, wd) = (self.rows, self.cols, self.width);
        assert!(from.len >= r * c && to.len >= r * c);
        self.for_blocks(r.div_ceil(wd), tiles, par, |j, sc| {
            let r0 = j * wd;
            let h = wd.min(r - r0);
            let (lines, rest) = sc.split_at_mut(c * h);
            let (done, rest) = rest.split_at_mut(c * h);
            dispatch(GatherLines {
                src: from,
                stride: r,
                start: r0,
                next: (r0 + wd < r).then_some(r0 + wd),
                lines: &mut *lines,
                w: h,
            });
            self.second.run_lines(lines, done, rest, h);
            dispatch(ScatterLines {
                lines: done,
                out: to,
                stride: r,
                start: r0,
                h,
            });
        });
    }
}

/// Gathers the runs `src[stride·t + start..][..w]` (`t` < lines' length) transposed
/// into `w` lines (`lines[u·len + t]`), prefetching the next block's runs.
pub(crate) struct GatherLines<'a, T> {
    /// Read only; the runs read belong to this block.
    pub(crate) src: Raw<C<T>>,
    pub(crate) stride: usize,
    pub(crate) start: usize,
    /// Where the next block's runs start, to prefetch.
    pub(crate) next: Option<usize>,
    pub(crate) lines: &'a mut [C<T>],
    pub(crate) w: usize,
}

impl<T: FftReal> SimdFn<T> for GatherLines<'_, T> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let (w, stride, start) = (self.w, self.stride, self.start);
        let len = self.lines.len() / w.max(1);
        if len == 0 {
            return;
        }
        assert!(
            start + w + stride * (len - 1) <= self.src.len,
            "runs outside the source"
        );
        let l = V::LANES;
        let (tw, uw) = (len - len % l, w - w % l);
        let sp = self.src.ptr as *const C<T>;
        let lp = self.lines.as_mut_ptr();
        let ahead = 64 / std::mem::size_of::<C<T>>();
        let mut t = 0;
        while t < len {
            let rows = if t < tw { l } else { 1 };
            if let Some(nx) = self.next {
                for i in t..t + rows {
                    // Two cache lines of the next block's run (a hint; no access).
                    let p = sp.wrapping_add(stride * i + nx);
                    prefetch::<_, false>(p);
                    prefetch::<_, false>(p.wrapping_add(ahead));
                }
            }
            // SAFETY: runs t..t + rows < len read start..start + w past stride·t,
            // inside `src` (asserted); lines u < w write t..t + rows < len of line u,
            // inside `lines` (w·len).
            unsafe {
                if rows == l {
                    let mut u = 0;
                    while u < uw {
                        V::transpose_block(
                            sp.add(stride * t + start + u),
                            stride,
                            lp.add(u * len + t),
                            len,
                        );
                        u += l;
                    }
                    for u in uw..w {
                        for i in t..t + l {
                            *lp.add(u * len + i) = *sp.add(stride * i + start + u);
                        }
                    }
                } else {
                    for u in 0..w {
                        *lp.add(u * len + t) = *sp.add(stride * t + start + u);
                    }
                }
            }
            t += rows;
        }
    }
}

/// Stores value `t` of line `u` (`lines[u·len + t]`) at `out[stride·t + start + u]`,
/// transposed back into runs of `h`.
pub(crate) struct ScatterLines<'a, T> {
    pub(crate) lines: &'a [C<T>],
    /// Written only at this block's runs.
    pub(crate) out: Raw<C<T>>,
    pub(crate) stride: usize,
    pub(crate) start: usize,
    pub(crate) h: usize,
}

impl<T: FftReal> SimdFn<T> for ScatterLines<'_, T> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let (h, stride, start) = (self.h, self.stride, self.start);
        let len = self.lines.len() / h.max(1);
        if len == 0 {
            return;
        }
        assert!(
            start + h + stride * (len - 1) <= self.out.len,
            "runs outside the output"
        );
        let l = V::LANES;
        let (tw, uw) = (len - len % l, h - h % l);
        let op = self.out.ptr;
        let lp = self.lines.as_ptr();
        let mut t = 0;
        while t < len {
            let rows = if t < tw { l } else { 1 };
            // SAFETY: as in `GatherLines`, with the roles of the two sides swapped;
            // this block owns the runs it writes.
            unsafe {
                if rows == l {
                    let mut u = 0;
                    while u < uw {
                        V::transpose_block(
                            lp.add(u * len + t),
                            len,
                            op.add(stride * t + start + u),
                            stride,
                        );
                        u += l;
                    }
                    for u in uw..h {
                        for i in t..t + l {
                            *op.add(stride * i + start + u) = *lp.add(u * len + i);
                        }
                    }
                } else {
                    for u in 0..h {
                        *op.add(stride * t + start + u) = *lp.add(u * len + t);
                    }
                }
            }
            t += rows;
        }
    }
}

/// `dst[k1] = res[k1] · ω_N^{n2·k1}` for one line.
struct TwiddleLine<'a, T> {
    fs: &'a FourStep<T>,
    n2: usize,
    res: &'a [C<T>],
    dst: &'a mut [C<T>],
}

impl<T: FftReal> SimdFn<T> for TwiddleLine<'_, T> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let fs = self.fs;
        let (r, b) = (fs.rows, fs.split);
        let hi = &fs.tw.0[self.n2 * (r / b)..][..r / b];
        let lo = &fs.tw.1[self.n2 * b..][..b];
        let (res, dst) = (&self.res[..r], &mut self.dst[..r]);
        let whole = b - b % V::LANES;
        for (a, &h) in hi.iter().enumerate() {
            let (rs, ds) = (&res[a * b..][..b], &mut dst[a * b..][..b]);
            let hv = V::splat(h);
            let mut j = 0;
            while j < whole {
                // SAFETY: j + LANES ≤ b, the length of `lo`, `rs` and `ds`.
                unsafe {
                    let w = V::load(lo.as_ptr().add(j)).mul(hv);
                    V::load(rs.as_ptr().add(j))
                        .mul(w)
                        .store(ds.as_mut_ptr().add(j));
                }
                j += V::LANES;
            }
            for j in whole..b {
                ds[j] = rs[j] * (lo[j] * h);
            }
        }
    }
}

/// `dst[j·rows + i] = src[i·cols + j]`: a `rows × cols` row-major block transposed,
/// in vector-sized square blocks.
pub(crate) fn transpose<T: FftReal>(src: &[C<T>], rows: usize, cols: usize, dst: &mut [C<T>]) {
    dispatch(Transpose {
        src,
        rows,
        cols,
        dst,
    })
}

struct Transpose<'a, T> {
    src: &'a [C<T>],
    rows: usize,
    cols: usize,
    dst: &'a mut [C<T>],
}

impl<T: FftReal> SimdFn<T> for Transpose<'_, T> {
    type Out = ();
    #[inline(always)]
    fn call<V: Cv<T = T>>(self) {
        let (rows, cols) = (self.rows, self.cols);
        let (src, dst) = (&self.src[..rows * cols], &mut self.dst[..rows * cols]);
        let l = V::LANES;
        let (rw, cw) = (rows - rows % l, cols - cols % l);
        for i in (0..rw).step_by(l) {
            for j in (0..cw).step_by(l) {
                // SAFETY: rows i..i+l < rows of src (length cols each, from column
                // j + l ≤ cols) and rows j..j+l < cols of dst (length rows each, from
                // column i + l ≤ rows): all in bounds of the slices above.
                unsafe {
                    V::transpose_block(
                        src.as_ptr().add(i * cols + j),
                        cols,
                        dst.as_mut_ptr().add(j * rows + i),
                        rows,
                    )
                };
            }
            for j in cw..cols {
                for u in i..i + l {
                    dst[j * rows + u] = src[u * cols + j];
                }
            }
        }
        for i in rw..rows {
            for j in 0..cols {
                dst[j * rows + i] = src[i * cols + j];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{radix_passes, Node};
    use crate::reference::{fft_f64, rel_l2};

    fn stockham(n: usize) -> Box<Node> {
        Box::new(Node::Stockham {
            n,
            radices: radix_passes(n, 8),
            whole: None,
        })
    }

    /// Every four-step shape the planner can make, small enough for unit tests: tails
    /// of blocks and of vectors (odd and non-multiple-of-lane factors), in and out of
    /// place, sequential and shared among threads. Bound: 8·ε·√log2 N (relative L2),
    /// twice the smooth-size acceptance bound (a misplaced value costs O(1)).
    fn check<T: FftReal>(rows: usize, cols: usize, fwd: bool, par: bool) {
        let n = rows * cols;
        let node = Node::FourStep {
            n,
            rows,
            cols,
            first: stockham(rows),
            second: stockham(cols),
        };
        let ex = Exec::<T>::new(&node, fwd).unwrap();
        let x: Vec<C<f64>> = (0..n)
            .map(|i| C::new((i as f64 * 0.71).sin(), (i as f64 * 1.37).cos() - 0.2))
            .collect();
        let xt: Vec<C<T>> = x.iter().map(|&z| cast(z)).collect();
        let xr: Vec<C<f64>> = xt
            .iter()
            .map(|z| C::new(z.re.as_f64(), z.im.as_f64()))
            .collect();
        let want = fft_f64(&xr, fwd);
        let bound = 8.0 * T::EPS * (n as f64).log2().sqrt();
        let zero = C::new(T::zero(), T::zero());
        let widen = |v: &[C<T>]| -> Vec<C<f64>> {
            v.iter()
                .map(|z| C::new(z.re.as_f64(), z.im.as_f64()))
                .collect()
        };
        // In place through `run`.
        let mut a = xt.clone();
        let mut b = vec![zero; ex.scratch_len()];
        let got = match ex.run(&mut a, &mut b, par) {
            Loc::A => widen(&a),
            Loc::B => widen(&b[..n]),
        };
        let e = rel_l2(&got, &want);
        assert!(e < bound, "{rows}x{cols} fwd {fwd} par {par} run: {e:e}");
        // Out of place.
        let Exec::FourStep(fs) = &ex else {
            unreachable!()
        };
        let mut dst = vec![zero; n];
        let mut tiles = vec![zero; fs.scratch_len() - n];
        fs.run_out_of_place(&xt, &mut dst, &mut tiles, par);
        let e = rel_l2(&widen(&dst), &want);
        assert!(
            e < bound,
            "{rows}x{cols} fwd {fwd} par {par} out of place: {e:e}"
        );
    }

    #[test]
    fn four_step_matches_the_reference() {
        for (rows, cols) in [(12, 20), (64, 64), (16, 48), (7, 9), (32, 25), (40, 6)] {
            for (fwd, par) in [(true, false), (false, true)] {
                check::<f32>(rows, cols, fwd, par);
                check::<f64>(rows, cols, fwd, par);
            }
        }
    }
}
