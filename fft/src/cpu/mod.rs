//! The CPU executor: walks a [`PlanTree`] with precomputed tables.
//!
//! [`Exec`] mirrors a [`Node`] with its twiddles; [`CpuPlan`] runs a whole plan: for
//! each batch it gathers the input (any strides, any storage precision) into a
//! contiguous complex work array, runs the axis passes on it and scatters the result
//! (scaled, rounded to the storage precision). Batches run in parallel on rayon when
//! there are enough of them; otherwise the rows and columns inside one transform do.

mod bluestein;
pub(crate) mod butterfly;
mod fourstep;
mod real;
pub mod simd;
mod stockham;

use crate::layout::Layout;
use crate::plan::{AxisOp, Node, PlanTree, TransformType};
use crate::scalar::{Real, Storage};
use bluestein::Bluestein;
use fourstep::FourStep;
use num_complex::Complex;
use rayon::prelude::*;
use real::RealExec;
use stockham::Stockham;

type C<T> = Complex<T>;

/// Which of two buffers holds a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    A,
    B,
}

impl Loc {
    fn other(self) -> Loc {
        match self {
            Loc::A => Loc::B,
            Loc::B => Loc::A,
        }
    }
}

/// A [`Node`] with its tables, for one precision and direction.
#[derive(Debug, Clone)]
pub enum Exec<T> {
    Stockham(Stockham<T>),
    FourStep(FourStep<T>),
    Bluestein(Bluestein<T>),
}

impl<T: Real> Exec<T> {
    pub fn new(node: &Node, forward: bool) -> Self {
        match node {
            Node::Stockham { n, radices } => Exec::Stockham(Stockham::new(*n, radices, forward)),
            Node::FourStep {
                n,
                rows,
                cols,
                first,
                second,
            } => Exec::FourStep(FourStep::new(
                *n,
                *rows,
                *cols,
                Exec::new(first, forward),
                Exec::new(second, forward),
                forward,
            )),
            Node::Bluestein { n, m, conv } => {
                Exec::Bluestein(Bluestein::new(*n, *m, conv, forward))
            }
        }
    }

    /// Complex elements of scratch [`Self::run`] needs (as [`Node::scratch_len`]).
    pub fn scratch_len(&self) -> usize {
        match self {
            Exec::Stockham(s) => s.len(),
            Exec::FourStep(f) => f.len(),
            Exec::Bluestein(b) => b.scratch_len(),
        }
    }

    /// Transforms `a[..n]` with `b` (at least the node's scratch length) as scratch.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        match self {
            Exec::Stockham(s) => s.run(a, b),
            Exec::FourStep(f) => f.run(a, b, par),
            Exec::Bluestein(bl) => bl.run(a, b, par),
        }
    }
}

/// Blocked out-of-place transpose: `src` is `rows × cols` row-major, `dst` `cols × rows`.
pub fn transpose<T: Copy + Send + Sync>(
    src: &[T],
    dst: &mut [T],
    rows: usize,
    cols: usize,
    par: bool,
) {
    const TILE: usize = 16;
    let (src, dst) = (&src[..rows * cols], &mut dst[..rows * cols]);
    // Each task owns TILE destination rows (source columns).
    let task = |(cb, dblk): (usize, &mut [T])| {
        let c0 = cb * TILE;
        let cw = dblk.len() / rows;
        for r0 in (0..rows).step_by(TILE) {
            let rh = TILE.min(rows - r0);
            for dc in 0..cw {
                let drow = &mut dblk[dc * rows + r0..][..rh];
                for (dr, d) in drow.iter_mut().enumerate() {
                    *d = src[(r0 + dr) * cols + c0 + dc];
                }
            }
        }
    };
    if rows == 0 || cols == 0 {
        return;
    }
    if par {
        dst.par_chunks_mut(TILE * rows).enumerate().for_each(task);
    } else {
        dst.chunks_mut(TILE * rows).enumerate().for_each(task);
    }
}

/// A raw view of user memory shared between worker threads.
#[derive(Clone, Copy)]
pub(crate) struct Raw<S> {
    ptr: *mut S,
    len: usize,
}

// SAFETY: `Raw` is only built by `CpuPlan::execute`'s callers from buffers they borrow
// for the whole call; workers read the input and write disjoint output elements (the
// API validated that no two output elements of the plan alias).
unsafe impl<S: Send> Send for Raw<S> {}
// SAFETY: as above.
unsafe impl<S: Sync> Sync for Raw<S> {}

impl<S: Copy> Raw<S> {
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` elements for as long as the
    /// value is used, and concurrent writers must touch disjoint elements.
    pub(crate) unsafe fn new(ptr: *mut S, len: usize) -> Self {
        Raw { ptr, len }
    }

    /// `count` elements from `start`, if in bounds. The caller must not write them
    /// through another view while the slice lives (writers are disjoint, see `new`).
    #[inline(always)]
    fn run(&self, start: usize, count: usize) -> Option<&[S]> {
        let end = start.checked_add(count)?;
        if end > self.len {
            return None;
        }
        // SAFETY: in bounds; no writer touches this range while it is read (see `new`).
        Some(unsafe { std::slice::from_raw_parts(self.ptr.add(start), count) })
    }

    /// Mutable `count` elements from `start`, if in bounds; only this task writes them.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    fn run_mut(&self, start: usize, count: usize) -> Option<&mut [S]> {
        let end = start.checked_add(count)?;
        if end > self.len {
            return None;
        }
        // SAFETY: in bounds; the plan's output elements are disjoint across tasks and
        // each task writes its own (see `new`), with no other live view of the range.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), count) })
    }

    #[inline(always)]
    fn get(self, i: usize) -> S {
        assert!(
            i < self.len,
            "index {i} outside a validated buffer of {}",
            self.len
        );
        // SAFETY: in bounds (checked above); see `Raw::new`.
        unsafe { *self.ptr.add(i) }
    }

    #[inline(always)]
    fn set(self, i: usize, v: S) {
        assert!(
            i < self.len,
            "index {i} outside a validated buffer of {}",
            self.len
        );
        // SAFETY: in bounds (checked above); writers are disjoint (see `Raw::new`).
        unsafe { *self.ptr.add(i) = v }
    }
}

/// The executor of one plan in one compute precision.
#[derive(Debug, Clone)]
pub struct CpuPlan<T> {
    kind: TransformType,
    lengths: Vec<usize>,
    /// Lengths of the complex work array (axis 0 halved plus one for real transforms).
    c_lens: Vec<usize>,
    c_total: usize,
    steps: Vec<(usize, StepExec<T>)>,
    /// Complex elements of scratch per lane.
    lane_scratch: usize,
}

#[derive(Debug, Clone)]
enum StepExec<T> {
    Complex(Exec<T>, usize),
    RealForward(RealExec<T>),
    RealInverse(RealExec<T>),
}

/// Lines gathered together for a strided axis pass.
const GROUP: usize = 8;
/// Complex elements per transform above which one transform is split across threads.
const PAR_INSIDE_MIN: usize = 1 << 15;
/// Complex elements of small 1-D transforms run pass by pass together (see
/// [`CpuPlan::execute_direct`]): a few of them fill the L1 cache, one pass dispatch
/// serves them all.
const DIRECT_CHUNK: usize = 4096;

impl<T: Real> CpuPlan<T> {
    pub fn new(tree: &PlanTree) -> Self {
        let fwd = tree.kind.is_forward();
        let mut c_lens = tree.lengths.clone();
        if tree.kind.is_real() {
            c_lens[0] = tree.lengths[0] / 2 + 1;
        }
        let c_total = c_lens.iter().product();
        // Room for the direct path's chunks (a copy and a scratch buffer of them).
        let mut lane_scratch = if tree.lengths.len() == 1 && !tree.kind.is_real() {
            2 * DIRECT_CHUNK
        } else {
            0
        };
        let steps = tree
            .steps
            .iter()
            .map(|s| {
                let e = match &s.op {
                    AxisOp::Complex(n) => {
                        let ex = Exec::new(n, fwd);
                        let need = if tree.lengths.len() == 1 {
                            n.scratch_len()
                        } else {
                            GROUP * n.len() + n.scratch_len()
                        };
                        lane_scratch = lane_scratch.max(need);
                        StepExec::Complex(ex, n.len())
                    }
                    AxisOp::RealForward(r) | AxisOp::RealInverse(r) => {
                        let ex = RealExec::new(r, fwd);
                        lane_scratch = lane_scratch.max(ex.buffer_len() + ex.scratch_len());
                        if matches!(s.op, AxisOp::RealForward(_)) {
                            StepExec::RealForward(ex)
                        } else {
                            StepExec::RealInverse(ex)
                        }
                    }
                };
                (s.axis, e)
            })
            .collect();
        CpuPlan {
            kind: tree.kind,
            lengths: tree.lengths.clone(),
            c_lens,
            c_total,
            steps,
            lane_scratch,
        }
    }

    /// Complex elements of work per concurrently running transform.
    pub fn lane_len(&self) -> usize {
        self.c_total + self.lane_scratch
    }

    /// How many transforms run at once for `batch` (each needs [`Self::lane_len`]).
    pub fn lanes(&self, batch: usize) -> usize {
        if self.c_total >= PAR_INSIDE_MIN {
            1
        } else {
            batch.min(rayon::current_num_threads()).max(1)
        }
    }

    /// Runs every batch. `src`/`dst` are scalar views; layouts are in elements of each
    /// side (complex elements are two scalars). `work` holds `lanes` lanes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn execute<S: Storage<Compute = T>>(
        &self,
        src: Raw<S>,
        dst: Raw<S>,
        inl: &Layout,
        outl: &Layout,
        batch: usize,
        scale: f64,
        work: &mut [C<T>],
    ) {
        let lane = self.lane_len();
        let lanes = (work.len() / lane.max(1)).clamp(1, batch.max(1));
        let scale = T::of(scale);
        if self.execute_direct(src, dst, inl, outl, batch, scale, &mut work[..lane * lanes]) {
            return;
        }
        if lanes <= 1 {
            let par = self.c_total >= PAR_INSIDE_MIN;
            let (w, s) = work[..lane].split_at_mut(self.c_total);
            for b in 0..batch {
                self.run_batch(b, src, dst, inl, outl, scale, w, s, par);
            }
        } else {
            work[..lane * lanes]
                .par_chunks_mut(lane)
                .enumerate()
                .for_each(|(l, lw)| {
                    let (w, s) = lw.split_at_mut(self.c_total);
                    for b in (l..batch).step_by(lanes) {
                        self.run_batch(b, src, dst, inl, outl, scale, w, s, false);
                    }
                });
        }
    }

    /// 1-D complex Stockham plans on contiguous data stored in the compute type run
    /// straight from the input to the output (no gather or scatter), `DIRECT_CHUNK`
    /// elements of transforms at a time, each lane of `work` taking a contiguous range
    /// of the batch. Returns false (nothing done) for any other plan or layout.
    #[allow(clippy::too_many_arguments)]
    fn execute_direct<S: Storage<Compute = T>>(
        &self,
        src: Raw<S>,
        dst: Raw<S>,
        inl: &Layout,
        outl: &Layout,
        batch: usize,
        scale: T,
        work: &mut [C<T>],
    ) -> bool {
        use std::any::TypeId;
        let st = match (self.kind, self.steps.as_slice()) {
            (
                TransformType::ComplexForward | TransformType::ComplexInverse,
                [(_, StepExec::Complex(Exec::Stockham(st), _))],
            ) if self.lengths.len() == 1 => st,
            _ => return false,
        };
        let n = self.lengths[0];
        let contiguous = |l: &Layout| l.strides[0] == 1 && (l.distance == n || batch == 1);
        let in_place = std::ptr::eq(src.ptr, dst.ptr);
        if TypeId::of::<S>() != TypeId::of::<T>()
            || n == 0
            || !contiguous(inl)
            || !contiguous(outl)
            || (in_place && inl.offset != outl.offset)
        {
            return false;
        }
        let total = n * batch;
        // Bounds (validated by the API already; checked again before any raw access).
        let fits = |r: &Raw<S>, off: usize| {
            off.checked_add(total)
                .and_then(|e| e.checked_mul(2))
                .is_some_and(|e| e <= r.len)
        };
        if !fits(&src, inl.offset) || !fits(&dst, outl.offset) {
            return false;
        }
        let lane = self.lane_len();
        let lanes = (work.len() / lane).max(1);
        let chunk = (DIRECT_CHUNK / n).clamp(1, (lane / (2 * n)).max(1));
        let per_lane = batch.div_ceil(lanes);
        let one = scale == T::one();
        let task = |(l, lw): (usize, &mut [C<T>])| {
            let (w1, w2) = lw.split_at_mut(lane / 2);
            let end = batch.min((l + 1) * per_lane);
            let mut b = l * per_lane;
            while b < end {
                let count = chunk.min(end - b);
                let len = count * n;
                let Some(out) = dst.run_mut(2 * (outl.offset + b * n), 2 * len) else {
                    return;
                };
                // SAFETY: S is T (checked above) and Complex<T> is `repr(C)` {re, im},
                // so 2·len scalars of T are len complex values with T's alignment.
                let out =
                    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut C<T>, len) };
                if in_place {
                    w1[..len].copy_from_slice(out);
                    st.run_batch(&w1[..len], out, w2, count);
                } else {
                    let Some(inp) = src.run(2 * (inl.offset + b * n), 2 * len) else {
                        return;
                    };
                    // SAFETY: as for `out`; `src` is a different buffer from `dst`.
                    let inp =
                        unsafe { std::slice::from_raw_parts(inp.as_ptr() as *const C<T>, len) };
                    st.run_batch(inp, out, w1, count);
                }
                if !one {
                    for z in out.iter_mut() {
                        *z = *z * scale;
                    }
                }
                b += count;
            }
        };
        if lanes <= 1 || per_lane >= batch {
            task((0, &mut work[..lane]));
        } else {
            work.par_chunks_mut(lane).enumerate().for_each(task);
        }
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn run_batch<S: Storage<Compute = T>>(
        &self,
        b: usize,
        src: Raw<S>,
        dst: Raw<S>,
        inl: &Layout,
        outl: &Layout,
        scale: T,
        w: &mut [C<T>],
        s: &mut [C<T>],
        par: bool,
    ) {
        let in_base = inl.offset + b * inl.distance;
        let out_base = outl.offset + b * outl.distance;
        // 1-D complex: no axis bookkeeping, scatter from wherever the result is.
        if let (
            TransformType::ComplexForward | TransformType::ComplexInverse,
            1,
            Some((_, StepExec::Complex(ex, _))),
        ) = (self.kind, self.lengths.len(), self.steps.first())
        {
            gather_c(src, inl, in_base, &self.c_lens, w);
            let loc = ex.run(w, s, par);
            let res: &[C<T>] = match loc {
                Loc::A => w,
                Loc::B => s,
            };
            scatter_c(res, dst, outl, out_base, &self.c_lens, scale);
            return;
        }
        if !self.kind.is_real() || self.kind == TransformType::RealInverse {
            gather_c(src, inl, in_base, &self.c_lens, w);
        }
        for (axis, step) in &self.steps {
            match step {
                StepExec::Complex(ex, len) => self.axis_pass(w, s, *axis, *len, ex, par),
                StepExec::RealForward(r) => {
                    let lines = self.c_total / self.c_lens[0];
                    let c0 = self.c_lens[0];
                    let n0 = self.lengths[0];
                    let s0 = inl.strides[0];
                    for l in 0..lines {
                        let base = in_base + line_offset(inl, &self.lengths, l);
                        let (buf, sc) = s.split_at_mut(r.buffer_len());
                        if r.packed() {
                            for (j, z) in buf[..n0 / 2].iter_mut().enumerate() {
                                *z = C::new(
                                    src.get(base + 2 * j * s0).load(),
                                    src.get(base + (2 * j + 1) * s0).load(),
                                );
                            }
                        } else {
                            for (j, z) in buf[..n0].iter_mut().enumerate() {
                                *z = C::new(src.get(base + j * s0).load(), T::zero());
                            }
                        }
                        let loc = r.forward(buf, sc);
                        let res: &[C<T>] = match loc {
                            Loc::A => buf,
                            Loc::B => sc,
                        };
                        w[l * c0..(l + 1) * c0].copy_from_slice(&res[..c0]);
                    }
                }
                StepExec::RealInverse(r) => {
                    let lines = self.c_total / self.c_lens[0];
                    let c0 = self.c_lens[0];
                    let n0 = self.lengths[0];
                    let s0 = outl.strides[0];
                    for l in 0..lines {
                        let base = out_base + line_offset(outl, &self.lengths, l);
                        let (buf, sc) = s.split_at_mut(r.buffer_len());
                        buf[..c0].copy_from_slice(&w[l * c0..(l + 1) * c0]);
                        let loc = r.inverse(buf, sc);
                        let res: &[C<T>] = match loc {
                            Loc::A => buf,
                            Loc::B => sc,
                        };
                        if r.packed() {
                            for (j, z) in res[..n0 / 2].iter().enumerate() {
                                dst.set(base + 2 * j * s0, S::store(z.re * scale));
                                dst.set(base + (2 * j + 1) * s0, S::store(z.im * scale));
                            }
                        } else {
                            for (j, z) in res[..n0].iter().enumerate() {
                                dst.set(base + j * s0, S::store(z.re * scale));
                            }
                        }
                    }
                }
            }
        }
        if self.kind != TransformType::RealInverse {
            scatter_c(w, dst, outl, out_base, &self.c_lens, scale);
        }
    }

    /// Transforms every line of `w` along `axis`.
    fn axis_pass(
        &self,
        w: &mut [C<T>],
        s: &mut [C<T>],
        axis: usize,
        len: usize,
        ex: &Exec<T>,
        par: bool,
    ) {
        let zero = C::new(T::zero(), T::zero());
        let stride: usize = self.c_lens[..axis].iter().product();
        let scratch = s.len().saturating_sub(GROUP * len);
        if stride == 1 {
            let line = |sc: &mut Vec<C<T>>, l: &mut [C<T>]| {
                if ex.run(l, sc, false) == Loc::B {
                    l.copy_from_slice(&sc[..len]);
                }
            };
            if par {
                w.par_chunks_mut(len)
                    .for_each_init(|| vec![zero; scratch], line);
            } else {
                for l in w.chunks_mut(len) {
                    if ex.run(l, s, false) == Loc::B {
                        l.copy_from_slice(&s[..len]);
                    }
                }
            }
            return;
        }
        // Lines at `stride`: gather GROUP neighbours into contiguous rows, transform, scatter.
        let block = len * stride;
        let groups_per_block = stride.div_ceil(GROUP);
        let tasks = (w.len() / block) * groups_per_block;
        // SAFETY: `w` is borrowed mutably for the whole pass; task `t` touches only the
        // elements of block `t / groups_per_block`, columns of group `t % groups_per_block`,
        // which no other task touches.
        let raw = unsafe { Raw::new(w.as_mut_ptr(), w.len()) };
        let task = |buf: &mut [C<T>], sc: &mut [C<T>], t: usize| {
            let (blk, g) = (t / groups_per_block, t % groups_per_block);
            let i0 = g * GROUP;
            let v = GROUP.min(stride - i0);
            let base = blk * block + i0;
            for k in 0..len {
                for u in 0..v {
                    buf[u * len + k] = raw.get(base + k * stride + u);
                }
            }
            for u in 0..v {
                let l = &mut buf[u * len..(u + 1) * len];
                if ex.run(l, sc, false) == Loc::B {
                    l.copy_from_slice(&sc[..len]);
                }
            }
            for k in 0..len {
                for u in 0..v {
                    raw.set(base + k * stride + u, buf[u * len + k]);
                }
            }
        };
        if par {
            (0..tasks).into_par_iter().for_each_init(
                || (vec![zero; GROUP * len], vec![zero; scratch]),
                |(buf, sc), t| task(buf, sc, t),
            );
        } else {
            let (buf, sc) = s.split_at_mut(GROUP * len);
            for t in 0..tasks {
                task(buf, sc, t);
            }
        }
    }
}

/// Offset of line `l` (an index over axes 1..) in a layout.
#[inline]
fn line_offset(layout: &Layout, lens: &[usize], mut l: usize) -> usize {
    let mut off = 0;
    for (&len, &stride) in lens.iter().zip(&layout.strides).skip(1) {
        off += (l % len) * stride;
        l /= len;
    }
    off
}

fn gather_c<S: Storage>(
    src: Raw<S>,
    layout: &Layout,
    base: usize,
    lens: &[usize],
    w: &mut [C<S::Compute>],
) {
    let n0 = lens[0];
    let s0 = layout.strides[0];
    for (l, line) in w.chunks_exact_mut(n0).enumerate() {
        let b = base + line_offset(layout, lens, l);
        if let (1, Some(run)) = (s0, src.run(2 * b, 2 * n0)) {
            for (z, pair) in line.iter_mut().zip(run.chunks_exact(2)) {
                *z = C::new(pair[0].load(), pair[1].load());
            }
            continue;
        }
        for (j, z) in line.iter_mut().enumerate() {
            let e = 2 * (b + j * s0);
            *z = C::new(src.get(e).load(), src.get(e + 1).load());
        }
    }
}

fn scatter_c<S: Storage>(
    w: &[C<S::Compute>],
    dst: Raw<S>,
    layout: &Layout,
    base: usize,
    lens: &[usize],
    scale: S::Compute,
) {
    let n0 = lens[0];
    let total: usize = lens.iter().product();
    let s0 = layout.strides[0];
    let one = scale == num_traits::One::one();
    for (l, line) in w[..total].chunks_exact(n0).enumerate() {
        let b = base + line_offset(layout, lens, l);
        if let (1, Some(run)) = (s0, dst.run_mut(2 * b, 2 * n0)) {
            for (z, pair) in line.iter().zip(run.chunks_exact_mut(2)) {
                let z = if one { *z } else { *z * scale };
                pair[0] = S::store(z.re);
                pair[1] = S::store(z.im);
            }
            continue;
        }
        for (j, z) in line.iter().enumerate() {
            let e = 2 * (b + j * s0);
            let z = if one { *z } else { *z * scale };
            dst.set(e, S::store(z.re));
            dst.set(e + 1, S::store(z.im));
        }
    }
}
