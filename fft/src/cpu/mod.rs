//! The CPU executor: walks a [`PlanTree`] with precomputed tables.
//!
//! [`Exec`] mirrors a [`Node`] with its twiddles; [`CpuPlan`] runs a whole plan: for
//! each batch it gathers the input (any strides, any storage precision) into a
//! contiguous complex work array, runs the axis passes on it and scatters the result
//! (scaled, rounded to the storage precision). Batches run in parallel on rayon when
//! there are enough of them; otherwise the rows and columns inside one transform do.

mod bluestein;
pub(crate) mod butterfly;
pub mod cache;
mod fourstep;
mod rader;
mod real;
pub mod simd;
mod stockham;

use crate::layout::Layout;
use crate::plan::{AxisOp, Node, PlanTree, TransformType};
use crate::scalar::{FftReal, Storage};
use bluestein::Bluestein;
use fourstep::FourStep;
use num_complex::Complex;
use rader::Rader;
use rayon::prelude::*;
use real::RealExec;
use rocm_core::Result;
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
    Rader(Rader<T>),
}

impl<T: FftReal> Exec<T> {
    /// The node with its tables; an error (naming the table) when a table cannot be
    /// held.
    pub fn new(node: &Node, forward: bool) -> Result<Self> {
        Ok(match node {
            Node::Stockham { n, radices, whole } => {
                Exec::Stockham(Stockham::with_whole(*n, radices, *whole, forward)?)
            }
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
                Exec::new(first, forward)?,
                Exec::new(second, forward)?,
                forward,
            )?),
            Node::Bluestein { n, m, conv } => {
                Exec::Bluestein(Bluestein::new(*n, *m, conv, forward)?)
            }
            Node::Rader { n, g, conv } => Exec::Rader(Rader::new(*n, *g, conv, forward)?),
        })
    }

    /// Builds the tables that plan creation defers to the first execution (see
    /// [`cache::Deferred`]), so that one that cannot be held is an error of the
    /// execution instead of an abort inside it. Cheap once built.
    pub fn prepare(&self) -> Result<()> {
        match self {
            Exec::Stockham(_) => Ok(()),
            Exec::FourStep(f) => f.prepare(),
            Exec::Bluestein(b) => b.prepare(),
            Exec::Rader(r) => r.prepare(),
        }
    }

    /// The transform length.
    pub fn len(&self) -> usize {
        match self {
            Exec::Stockham(s) => s.len(),
            Exec::FourStep(f) => f.len(),
            Exec::Bluestein(b) => b.len(),
            Exec::Rader(r) => r.len(),
        }
    }

    /// Whether the length is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Complex elements of scratch [`Self::run`] needs.
    pub fn scratch_len(&self) -> usize {
        match self {
            Exec::Stockham(s) => s.len(),
            Exec::FourStep(f) => f.scratch_len(),
            Exec::Bluestein(b) => b.scratch_len(),
            Exec::Rader(r) => r.scratch_len(),
        }
    }

    /// Transforms `a[..n]` with `b` (at least the node's scratch length) as scratch.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        match self {
            Exec::Stockham(s) => s.run(a, b),
            Exec::FourStep(f) => f.run(a, b, par),
            Exec::Bluestein(bl) => bl.run(a, b, par),
            Exec::Rader(r) => r.run(a, b, par),
        }
    }

    /// Lines transformed together by [`Self::run_lines`]: about [`direct_chunk`]
    /// elements, so a pass over them stays in the L1 cache.
    pub(crate) fn lines_chunk(&self, count: usize) -> usize {
        (direct_chunk::<T>() / self.len().max(1)).clamp(1, count.max(1))
    }

    /// Complex elements of scratch [`Self::run_lines`] needs for `count` lines.
    pub fn lines_scratch_len(&self, count: usize) -> usize {
        match self {
            Exec::Stockham(s) => self.lines_chunk(count) * s.len(),
            other => other.scratch_len(),
        }
    }

    /// Transforms the `count` contiguous lines of `src` into `dst` (both `count·n`),
    /// a few lines per pass (see [`Stockham::run_batch`]), with `scratch` (at least
    /// [`Self::lines_scratch_len`]).
    pub fn run_lines(&self, src: &[C<T>], dst: &mut [C<T>], scratch: &mut [C<T>], count: usize) {
        let n = self.len();
        match self {
            Exec::Stockham(st) => {
                let chunk = self.lines_chunk(count);
                for (s, d) in src[..n * count]
                    .chunks(n * chunk)
                    .zip(dst[..n * count].chunks_mut(n * chunk))
                {
                    st.run_batch(s, d, scratch, s.len() / n, 1);
                }
            }
            other => {
                for (s, d) in src[..n * count]
                    .chunks_exact(n)
                    .zip(dst[..n * count].chunks_exact_mut(n))
                {
                    d.copy_from_slice(s);
                    if other.run(d, scratch, false) == Loc::B {
                        d.copy_from_slice(&scratch[..n]);
                    }
                }
            }
        }
    }

    /// Complex elements of scratch [`Self::run_tile`] needs for `width` columns.
    pub fn tile_scratch_len(&self, width: usize) -> usize {
        let by_column = self.len() + self.scratch_len();
        match self {
            Exec::Stockham(s) => s.len() * width,
            Exec::Rader(r) if width <= MAX_TILE && r.tiles() => r.tile_scratch_len(width),
            Exec::Bluestein(b) if width <= MAX_TILE && b.tiles() => b.tile_scratch_len(width),
            _ => by_column,
        }
    }

    /// Transforms the `width` interleaved columns of `a` (element `t` of column `c` at
    /// `c + width·t`) with `b` (at least [`Self::tile_scratch_len`]) as scratch; says
    /// which buffer holds the result, in the same layout.
    pub fn run_tile(&self, a: &mut [C<T>], b: &mut [C<T>], width: usize) -> Loc {
        match self {
            Exec::Stockham(s) => s.run_columns(a, b, width),
            Exec::Rader(r) => r.run_tile(a, b, width),
            Exec::Bluestein(bl) => bl.run_tile(a, b, width),
            other => Self::column_by_column(other.len(), a, b, width, |line, more| {
                other.run(line, more, false)
            }),
        }
    }

    /// [`Self::run_tile`] one column at a time through a contiguous line of `n` at the
    /// start of `b`, transformed by `run(line, rest of b)`.
    pub(crate) fn column_by_column(
        n: usize,
        a: &mut [C<T>],
        b: &mut [C<T>],
        width: usize,
        run: impl Fn(&mut [C<T>], &mut [C<T>]) -> Loc,
    ) -> Loc {
        let (line, more) = b.split_at_mut(n);
        for j in 0..width {
            for (t, z) in line.iter_mut().enumerate() {
                *z = a[j + width * t];
            }
            let res = match run(line, more) {
                Loc::A => &line[..],
                Loc::B => &more[..n],
            };
            for (t, z) in res.iter().enumerate() {
                a[j + width * t] = *z;
            }
        }
        Loc::A
    }
}

/// The forward transform of `node` for one use when a table is built (a convolution kernel,
/// computed in `f64` for a plan in `T`): for an `f64` plan the cached one the plan runs
/// too; else Stockham sequences through [`Stockham::once`] (no table memory, not
/// cached) and anything else as [`Exec::new`].
pub(crate) fn kernel_exec<T: FftReal>(node: &Node) -> Result<Exec<f64>> {
    let ex = if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>() {
        Exec::new(node, true)?
    } else {
        match node {
            Node::Stockham { n, radices, .. } => Exec::Stockham(Stockham::once(*n, radices, true)?),
            other => Exec::new(other, true)?,
        }
    };
    ex.prepare()?;
    Ok(ex)
}

/// Columns per tile when lines at a stride are transformed together: 128 bytes of
/// each row (two cache lines), a whole number of vectors.
pub(crate) fn tile_width<T>() -> usize {
    128 / std::mem::size_of::<C<T>>()
}

/// The widest tile the convolution steps keep per-column values for on the stack.
pub(crate) const MAX_TILE: usize = 16;

thread_local! {
    /// Per-thread scratch reused across calls (see [`with_scratch`]).
    static SCRATCH: std::cell::RefCell<Vec<C<f64>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on `len` complex values of per-thread scratch (kept between calls, so
/// parallel tasks allocate once per thread, not once per task). Contents are
/// unspecified. A nested call on the same thread gets a fresh allocation.
pub(crate) fn with_scratch<T: FftReal, R>(len: usize, f: impl FnOnce(&mut [C<T>]) -> R) -> R {
    let slots = (len * std::mem::size_of::<C<T>>()).div_ceil(std::mem::size_of::<C<f64>>());
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) => {
            if v.len() < slots {
                v.resize(slots, C::new(0.0, 0.0));
            }
            let s: &mut [C<T>] = bytemuck::cast_slice_mut(&mut v[..slots]);
            f(&mut s[..len])
        }
        Err(_) => {
            let mut v = vec![C::new(T::zero(), T::zero()); len];
            f(&mut v)
        }
    })
}

/// A plan table of `T` values computed in `f64` and rounded in place: the buffer an
/// `f64` computation left its result in becomes the table, so building it allocates
/// nothing more (a first write to a fresh 4 KiB page costs about 2.4 us on the 2-vCPU
/// VM, which made the second allocation a large part of a convolution plan's cost).
pub(crate) struct Rounded<T> {
    /// `f64` slots holding the `len` values of `T` from the start.
    slots: Vec<C<f64>>,
    len: usize,
    _t: std::marker::PhantomData<T>,
}

impl<T: FftReal> Rounded<T> {
    /// `slots[k]·scale` rounded to `T`, for `k < len` (`slots` at least `len` long).
    pub(crate) fn new(mut slots: Vec<C<f64>>, len: usize, scale: f64) -> Self {
        assert!(slots.len() >= len);
        for k in 0..len {
            let z = slots[k] * scale;
            // Value k of T ends at byte (k + 1)·size(C<T>) ≤ (k + 1)·size(C<f64>): it
            // overwrites only slots up to k, already read.
            let out: &mut [C<T>] = bytemuck::cast_slice_mut(&mut slots[..]);
            out[k] = crate::scalar::cast(z);
        }
        let keep = (len * std::mem::size_of::<C<T>>()).div_ceil(std::mem::size_of::<C<f64>>());
        slots.truncate(keep);
        slots.shrink_to_fit();
        Rounded {
            slots,
            len,
            _t: std::marker::PhantomData,
        }
    }
}

impl<T: FftReal> std::ops::Deref for Rounded<T> {
    type Target = [C<T>];
    #[inline(always)]
    fn deref(&self) -> &[C<T>] {
        &bytemuck::cast_slice(&self.slots[..])[..self.len]
    }
}

impl<T> std::fmt::Debug for Rounded<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rounded({} values)", self.len)
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
    /// For 1-D complex plans: how many transforms of a batch run together as the
    /// interleaved columns of a tile (see [`Exec::run_tile`]); 0 when they run one by
    /// one.
    columns: usize,
}

#[derive(Debug, Clone)]
enum StepExec<T> {
    Complex(Exec<T>, usize),
    RealForward(RealExec<T>),
    RealInverse(RealExec<T>),
}

/// Complex elements per transform above which one transform is split across threads.
const PAR_INSIDE_MIN: usize = 1 << 15;
/// Complex elements of work below which a parallel task costs more than it saves
/// (waking a thread is microseconds, and on a busy machine a late worker holds up
/// the join; a transform moves about a complex value per nanosecond per pass).
const PAR_TASK_MIN: usize = 1 << 15;
/// Complex elements of one pass below which it is not shared among threads (each
/// share ends in a join: one per pass).
const PAR_PASS_MIN: usize = 1 << 16;
/// Bytes of small 1-D transforms run pass by pass together (see
/// [`CpuPlan::execute_direct`]): a pass reads one such chunk and writes another, both
/// in the 32 KiB L1 cache, and one pass dispatch serves them all. (16 KiB: 2048 `f32`
/// or 1024 `f64` complex values; measured on the 2-vCPU EPYC, batches of 2^16
/// elements, best of 3 rounds: f32 256 55 -> 50 us and 1024 65 -> 61 us, f64 256
/// 102-118 -> 95 us and 1024 131 -> 125 us, against 32 KiB.)
const DIRECT_CHUNK_BYTES: usize = 16 << 10;

/// `len` values of `w` (at least `len` long) starting half a page from `other` in
/// the address bits below 4096 where `w` has the room, else its first `len`. The
/// Stockham passes read one buffer while writing the other; with the two at nearly
/// the same address modulo 4096 the loads wait on unrelated stores (4K aliasing):
/// measured on the 2-vCPU VM, `f64` 131072 (quick bench, one transform) with the
/// scratch 64 bytes after the output modulo 4096 ran 550 us, 64 bytes before it 632
/// us, 2432 bytes after it 463 us (session 16).
fn scratch_apart<T>(w: &mut [C<T>], other: *const C<T>, len: usize) -> &mut [C<T>] {
    let size = std::mem::size_of::<C<T>>();
    let want = (other as usize + 2048) % 4096;
    let have = w.as_ptr() as usize % 4096;
    let skip = ((want + 4096 - have) % 4096) / size;
    if skip + len <= w.len() {
        &mut w[skip..skip + len]
    } else {
        &mut w[..len]
    }
}

/// Complex elements of [`DIRECT_CHUNK_BYTES`].
const fn direct_chunk<T>() -> usize {
    DIRECT_CHUNK_BYTES / std::mem::size_of::<C<T>>()
}
/// Longest transform run as interleaved columns of a batch (see
/// [`Stockham::prefers_columns`]).
const COLUMNS_MAX: usize = 8192;
/// Complex elements a batch tile and its scratch may take (about the L2 cache).
const COLUMNS_BUDGET: usize = 1 << 16;
/// The same for a Stockham tile, whose passes (one per prime factor, radix 4 for
/// twos) each stream the whole tile and its scratch: half as much. Measured on the
/// 2-vCPU VM (best of 300-1000 calls, batches of 2^16 elements, alternated processes,
/// session 14): 2187 = 3^7 (seven passes) `f32` 138 us with tiles of 8 transforms
/// (the old budget) against 108-109 us with 4, `f64` 257-264 against 217-258 us with
/// 4; 3125 and 729 within 5 % either way. Tiles of one vector's width still run up to
/// [`COLUMNS_BUDGET`]. (Whether the tile fits does not follow the
/// bytes: `f64` 2187 with 4 transforms is the bytes of `f32` with 8.)
const STOCKHAM_COLUMNS_BUDGET: usize = 1 << 15;

/// The width of the batch tiles for a 1-D transform (0: none): as wide as
/// [`tile_width`] allows within [`COLUMNS_BUDGET`], at least one whole vector.
fn columns_width<T: FftReal>(ex: &Exec<T>) -> usize {
    let n = ex.len();
    let wanted = match ex {
        Exec::Stockham(st) => st.prefers_columns(),
        Exec::Rader(r) => r.tiles(),
        Exec::Bluestein(b) => b.tiles(),
        Exec::FourStep(_) => false,
    };
    if !wanted || !(2..=COLUMNS_MAX).contains(&n) {
        return 0;
    }
    let budget = match ex {
        Exec::Stockham(_) => STOCKHAM_COLUMNS_BUDGET,
        _ => COLUMNS_BUDGET,
    };
    let lanes = (tile_width::<T>() / 4).max(1);
    let mut w = tile_width::<T>();
    while w > lanes && n * w + ex.tile_scratch_len(w) > budget {
        w /= 2;
    }
    // (The narrowest tile is still worth it up to the larger budget.)
    if n * w + ex.tile_scratch_len(w) > COLUMNS_BUDGET {
        0
    } else {
        w
    }
}

impl<T: FftReal> CpuPlan<T> {
    /// The plan's executors with their tables; an error when a table cannot be held.
    pub fn new(tree: &PlanTree) -> Result<Self> {
        let fwd = tree.kind.is_forward();
        let mut c_lens = tree.lengths.clone();
        if tree.kind.is_real() {
            c_lens[0] = tree.lengths[0] / 2 + 1;
        }
        let c_total = c_lens.iter().product();
        let one_d_complex = tree.lengths.len() == 1 && !tree.kind.is_real();
        // Room for the direct path's chunks (a copy and a scratch buffer of them).
        let mut lane_scratch = if one_d_complex {
            2 * direct_chunk::<T>()
        } else {
            0
        };
        let mut columns = 0;
        let steps = tree
            .steps
            .iter()
            .map(|s| {
                let e = match &s.op {
                    AxisOp::Complex(n) => {
                        let ex = Exec::new(n, fwd)?;
                        let need = if one_d_complex {
                            columns = columns_width(&ex);
                            // A batch tile and its scratch.
                            let tile = n.len() * columns + ex.tile_scratch_len(columns);
                            ex.scratch_len().max(if columns > 0 { tile } else { 0 })
                        } else {
                            // Strided lines: two sets of lines and their scratch;
                            // contiguous ones: a chunk of lines and its scratch.
                            let w = tile_width::<T>();
                            let chunk = ex.lines_chunk(usize::MAX);
                            (2 * n.len() * w + ex.lines_scratch_len(w))
                                .max(n.len() * chunk + ex.lines_scratch_len(chunk))
                        };
                        lane_scratch = lane_scratch.max(need);
                        StepExec::Complex(ex, n.len())
                    }
                    AxisOp::RealForward(r) | AxisOp::RealInverse(r) => {
                        let ex = RealExec::new(r, fwd)?;
                        lane_scratch = lane_scratch.max(ex.buffer_len() + ex.scratch_len());
                        if matches!(s.op, AxisOp::RealForward(_)) {
                            StepExec::RealForward(ex)
                        } else {
                            StepExec::RealInverse(ex)
                        }
                    }
                };
                Ok((s.axis, e))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CpuPlan {
            kind: tree.kind,
            lengths: tree.lengths.clone(),
            c_lens,
            c_total,
            steps,
            lane_scratch,
            columns,
        })
    }

    /// Builds every table deferred to the first execution (see [`Exec::prepare`]).
    pub fn prepare(&self) -> Result<()> {
        for (_, step) in &self.steps {
            match step {
                StepExec::Complex(ex, _) => ex.prepare()?,
                StepExec::RealForward(ex) | StepExec::RealInverse(ex) => ex.prepare()?,
            }
        }
        Ok(())
    }

    /// Complex elements of work per concurrently running transform.
    pub fn lane_len(&self) -> usize {
        self.c_total + self.lane_scratch
    }

    /// How many transforms run at once for `batch` (each needs [`Self::lane_len`]):
    /// one when a transform is split across threads itself, else one per thread, but
    /// no more than the work fills with [`PAR_TASK_MIN`] elements each.
    pub fn lanes(&self, batch: usize) -> usize {
        if self.c_total >= PAR_INSIDE_MIN {
            1
        } else {
            let by_work = (self.c_total.max(1) * batch / PAR_TASK_MIN).max(1);
            batch.min(rayon::current_num_threads()).min(by_work).max(1)
        }
    }

    /// Whether one transform is split across threads.
    fn par_inside(&self) -> bool {
        self.c_total >= PAR_INSIDE_MIN && rayon::current_num_threads() > 1
    }

    /// Runs every batch. `src`/`dst` are scalar views; layouts are in elements of each
    /// side (complex elements are two scalars). `work` holds up to `lanes` lanes.
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
        let lanes = (work.len() / lane.max(1)).clamp(1, self.lanes(batch));
        let scale = T::from_f64(scale);
        let work = &mut work[..lane * lanes];
        if self.execute_direct(src, dst, inl, outl, batch, scale, work) {
            return;
        }
        if lanes <= 1 {
            let par = self.par_inside();
            let (w, s) = work[..lane].split_at_mut(self.c_total);
            for b in 0..batch {
                self.run_batch(b, src, dst, inl, outl, scale, w, s, par);
            }
        } else {
            work.par_chunks_mut(lane).enumerate().for_each(|(l, lw)| {
                let (w, s) = lw.split_at_mut(self.c_total);
                for b in (l..batch).step_by(lanes) {
                    self.run_batch(b, src, dst, inl, outl, scale, w, s, false);
                }
            });
        }
    }

    /// 1-D complex plans on contiguous data stored in the compute type run straight
    /// from the input to the output (no gather or scatter): Stockham plans
    /// `direct_chunk` elements of transforms at a time (as interleaved columns when
    /// [`Stockham::prefers_columns`]), each lane of `work` taking a contiguous range
    /// of the batch; four-step plans one transform at a time, split across threads.
    /// Returns false (nothing done) for any other plan or layout.
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
        let ex = match (self.kind, self.steps.as_slice()) {
            (
                TransformType::ComplexForward | TransformType::ComplexInverse,
                [(_, StepExec::Complex(ex, _))],
            ) if self.lengths.len() == 1 => ex,
            _ => return false,
        };
        let columns = if batch > 1 { self.columns } else { 0 };
        if columns == 0 && !matches!(ex, Exec::Stockham(_) | Exec::FourStep(_)) {
            return false;
        }
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
        // Views of `count` transforms from `b` as complex values of T.
        let out_at = |b: usize, count: usize| -> Option<&mut [C<T>]> {
            let out = dst.run_mut(2 * (outl.offset + b * n), 2 * count * n)?;
            // SAFETY: S is T (checked above) and Complex<T> is `repr(C)` {re, im},
            // so 2·len scalars of T are len complex values with T's alignment.
            Some(unsafe {
                std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut C<T>, count * n)
            })
        };
        let in_at = |b: usize, count: usize| -> Option<&[C<T>]> {
            let inp = src.run(2 * (inl.offset + b * n), 2 * count * n)?;
            // SAFETY: as for `out_at`; only used when `src` is not `dst`.
            Some(unsafe { std::slice::from_raw_parts(inp.as_ptr() as *const C<T>, count * n) })
        };
        let rescale = |out: &mut [C<T>]| {
            if scale != T::one() {
                for z in out.iter_mut() {
                    *z *= scale;
                }
            }
        };
        let st = match ex {
            Exec::FourStep(fs) if columns == 0 => {
                let par = self.par_inside();
                for b in 0..batch {
                    let Some(out) = out_at(b, 1) else {
                        return true;
                    };
                    if in_place {
                        fs.run(out, work, par);
                    } else {
                        let Some(inp) = in_at(b, 1) else {
                            return true;
                        };
                        fs.run_out_of_place(inp, out, work, par);
                    }
                    rescale(out);
                }
                return true;
            }
            Exec::Stockham(st) => Some(st),
            _ => None,
        };
        let lane = self.lane_len();
        let lanes = (work.len() / lane).max(1);
        let per_lane = batch.div_ceil(lanes);
        // One large transform at a time: its passes are shared among threads.
        let parts = if self.par_inside() {
            (n / PAR_PASS_MIN).clamp(1, rayon::current_num_threads())
        } else {
            1
        };
        let chunk = if columns > 0 {
            columns
        } else {
            (direct_chunk::<T>() / n).clamp(1, (lane / (2 * n)).max(1))
        };
        let task = |(l, lw): (usize, &mut [C<T>])| {
            let split = if columns > 0 { n * columns } else { lane / 2 };
            let end = batch.min((l + 1) * per_lane);
            let mut b = l * per_lane;
            while b < end {
                let count = chunk.min(end - b);
                let len = count * n;
                let Some(out) = out_at(b, count) else {
                    return;
                };
                let (w1, w2) = lw.split_at_mut(split);
                // Stockham out of place: the end passes read and write the rows.
                let rows_done = match (st, in_place, columns > 0) {
                    (Some(st), false, true) => {
                        let Some(inp) = in_at(b, count) else {
                            return;
                        };
                        st.run_rows_via_tile(inp, out, w1, w2, count)
                    }
                    _ => false,
                };
                if rows_done {
                    // Done by the end passes.
                } else if columns > 0 {
                    // Transforms as the columns of an n × count tile.
                    let tile = &mut w1[..len];
                    if in_place {
                        fourstep::transpose(out, count, n, tile);
                    } else {
                        let Some(inp) = in_at(b, count) else {
                            return;
                        };
                        fourstep::transpose(inp, count, n, tile);
                    }
                    let res: &[C<T>] = match ex.run_tile(tile, w2, count) {
                        Loc::A => tile,
                        Loc::B => &w2[..len],
                    };
                    fourstep::transpose(res, n, count, out);
                } else if let (Some(st), true) = (st, in_place) {
                    w1[..len].copy_from_slice(out);
                    st.run_batch(&w1[..len], out, w2, count, parts);
                } else if let Some(st) = st {
                    let Some(inp) = in_at(b, count) else {
                        return;
                    };
                    let scratch = scratch_apart(&mut *lw, out.as_ptr(), len);
                    st.run_batch(inp, out, scratch, count, parts);
                }
                rescale(out);
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
        // N-D complex on contiguous data in the compute type: the passes work in the
        // output itself (after one copy when out of place), no gather or scatter.
        if !self.kind.is_real() && self.contiguous(inl) && self.contiguous(outl) {
            if let Some(out) = as_compute(&dst, out_base, self.c_total) {
                let in_place = std::ptr::eq(src.ptr, dst.ptr);
                if in_place && in_base != out_base {
                    // Overlapping but shifted: not this path.
                } else {
                    // Out of place, a first pass over contiguous lines reads the input
                    // itself: copying it first cost a whole extra pass through memory
                    // (f64 1024²: 1.5-2 ms of a 10 ms transform on the 2-vCPU VM).
                    let mut input = None;
                    if !in_place {
                        let Some(inp) = as_compute(&src, in_base, self.c_total) else {
                            return;
                        };
                        let first_contiguous = matches!(
                            self.steps.first(),
                            Some((axis, StepExec::Complex(..)))
                                if self.c_lens[..*axis].iter().product::<usize>() == 1
                        );
                        if first_contiguous {
                            input = Some(&*inp);
                        } else {
                            out.copy_from_slice(inp);
                        }
                    }
                    for (axis, step) in &self.steps {
                        if let StepExec::Complex(ex, len) = step {
                            self.axis_pass(out, input.take(), s, *axis, *len, ex, par);
                        }
                    }
                    if scale != T::one() {
                        for z in out.iter_mut() {
                            *z *= scale;
                        }
                    }
                    return;
                }
            }
        }
        if !self.kind.is_real() || self.kind == TransformType::RealInverse {
            gather_c(src, inl, in_base, &self.c_lens, w);
        }
        for (axis, step) in &self.steps {
            match step {
                StepExec::Complex(ex, len) => self.axis_pass(w, None, s, *axis, *len, ex, par),
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

    /// Transforms every line of `w` along `axis`; with `input` (as long as `w`), the
    /// lines of `input` are transformed into `w` instead (contiguous lines only: a
    /// caller passes it only for those).
    #[allow(clippy::too_many_arguments)]
    fn axis_pass(
        &self,
        w: &mut [C<T>],
        input: Option<&[C<T>]>,
        s: &mut [C<T>],
        axis: usize,
        len: usize,
        ex: &Exec<T>,
        par: bool,
    ) {
        let stride: usize = self.c_lens[..axis].iter().product();
        if let (1, Some(inp)) = (stride, input) {
            let chunk = ex.lines_chunk(w.len() / len.max(1));
            let need = ex.lines_scratch_len(chunk);
            let n = w.len().min(inp.len());
            let lines = |ls: &mut [C<T>], from: &[C<T>], sc: &mut [C<T>]| {
                ex.run_lines(from, ls, sc, from.len() / len);
            };
            if par {
                w[..n]
                    .par_chunks_mut(len * chunk)
                    .zip(inp[..n].par_chunks(len * chunk))
                    .for_each(|(ls, from)| with_scratch(need, |sc| lines(ls, from, sc)));
            } else {
                for (ls, from) in w[..n]
                    .chunks_mut(len * chunk)
                    .zip(inp[..n].chunks(len * chunk))
                {
                    lines(ls, from, &mut s[..need]);
                }
            }
            return;
        }
        if stride == 1 {
            // Contiguous lines, a few at a time through `run_lines` (one pass dispatch
            // for all of them).
            let chunk = ex.lines_chunk(w.len() / len.max(1));
            let need = len * chunk + ex.lines_scratch_len(chunk);
            let lines = |ls: &mut [C<T>], sc: &mut [C<T>]| {
                let (tmp, rest) = sc.split_at_mut(ls.len());
                tmp.copy_from_slice(ls);
                ex.run_lines(tmp, ls, rest, tmp.len() / len);
            };
            if par {
                w.par_chunks_mut(len * chunk)
                    .for_each(|ls| with_scratch(need, |sc| lines(ls, sc)));
            } else {
                for ls in w.chunks_mut(len * chunk) {
                    lines(ls, &mut s[..need]);
                }
            }
            return;
        }
        // Lines at `stride`: `wd` neighbouring lines (runs of `wd` contiguous values)
        // gathered transposed into contiguous lines, transformed, scattered back.
        let wd = tile_width::<T>().min(stride);
        let block = len * stride;
        let groups_per_block = stride.div_ceil(wd);
        let tasks = (w.len() / block) * groups_per_block;
        let need = 2 * len * wd + ex.lines_scratch_len(wd);
        // SAFETY: `w` is borrowed mutably for the whole pass; task `t` touches only the
        // elements of block `t / groups_per_block`, columns of group `t % groups_per_block`,
        // which no other task touches.
        let raw = unsafe { Raw::new(w.as_mut_ptr(), w.len()) };
        let task = |sc: &mut [C<T>], t: usize| {
            let (blk, g) = (t / groups_per_block, t % groups_per_block);
            let i0 = g * wd;
            let v = wd.min(stride - i0);
            let base = blk * block + i0;
            // The next task's runs (usually this thread's next task: rayon splits the
            // range into contiguous pieces) are fetched while this one's are gathered:
            // each run is on its own page for large strides, which the hardware
            // prefetcher does not follow.
            let next = (t + 1 < tasks).then(|| {
                let (nb, ng) = ((t + 1) / groups_per_block, (t + 1) % groups_per_block);
                nb * block + ng * wd
            });
            let (lines, rest) = sc.split_at_mut(len * v);
            let (done, rest) = rest.split_at_mut(len * v);
            simd::dispatch(fourstep::GatherLines {
                src: raw,
                stride,
                start: base,
                next,
                lines: &mut *lines,
                w: v,
            });
            ex.run_lines(lines, done, rest, v);
            simd::dispatch(fourstep::ScatterLines {
                lines: done,
                out: raw,
                stride,
                start: base,
                h: v,
            });
        };
        if par {
            (0..tasks)
                .into_par_iter()
                .for_each(|t| with_scratch(need, |sc| task(sc, t)));
        } else {
            for t in 0..tasks {
                task(&mut s[..need], t);
            }
        }
    }
}

impl<T: FftReal> CpuPlan<T> {
    /// Whether a complex-side layout is dense in the complex work array's order.
    fn contiguous(&self, l: &Layout) -> bool {
        let mut s = 1;
        for (&len, &st) in self.c_lens.iter().zip(&l.strides) {
            if st != s && len > 1 {
                return false;
            }
            s *= len;
        }
        true
    }
}

/// `len` complex values of `raw` from complex index `start` as `Complex<T>`, when the
/// storage type is the compute type and the range is in bounds.
#[allow(clippy::mut_from_ref)]
fn as_compute<S: Storage>(raw: &Raw<S>, start: usize, len: usize) -> Option<&mut [C<S::Compute>]> {
    if std::any::TypeId::of::<S>() != std::any::TypeId::of::<S::Compute>() {
        return None;
    }
    let run = raw.run_mut(2 * start, 2 * len)?;
    // SAFETY: S is S::Compute (checked above) and Complex<T> is `repr(C)` {re, im}, so
    // 2·len scalars are len complex values with T's alignment; the range belongs to
    // the caller's transform (see `Raw::run_mut`).
    Some(unsafe { std::slice::from_raw_parts_mut(run.as_mut_ptr() as *mut C<S::Compute>, len) })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The scratch starts half a page (less under one value) from the other buffer
    /// modulo 4096 bytes when there is room, else at the start of the work.
    #[test]
    fn scratch_apart_is_half_a_page_away() {
        let mut w = vec![C::new(0.0f64, 0.0); 1000 + 256];
        let other = vec![C::new(0.0f64, 0.0); 64];
        for k in 0..64 {
            let o = other[k..].as_ptr();
            let s = scratch_apart(&mut w, o, 1000);
            assert_eq!(s.len(), 1000);
            let d = (s.as_ptr() as usize + 4096 - o as usize % 4096) % 4096;
            assert!((2048 - 15..=2048).contains(&d), "{k}: {d}");
        }
        let start = w.as_ptr();
        assert_eq!(
            scratch_apart(&mut w[..1000], other.as_ptr(), 1000).as_ptr(),
            start
        );
    }
    use crate::scalar::cast;

    /// In-place rounding gives exactly the values rounded one by one (including odd
    /// lengths, a longer buffer and an empty table), for both precisions.
    #[test]
    fn rounded_tables_hold_the_rounded_values() {
        fn check<T: FftReal>(len: usize, extra: usize, scale: f64) {
            let v: Vec<C<f64>> = (0..len + extra)
                .map(|i| C::new((i as f64 * 0.3).sin() * 1e3, (i as f64).cos() / 7.0))
                .collect();
            let want: Vec<C<T>> = v[..len].iter().map(|&z| cast(z * scale)).collect();
            let r = Rounded::<T>::new(v, len, scale);
            assert_eq!(&r[..], &want[..], "len {len} extra {extra}");
        }
        for (len, extra) in [(0, 0), (1, 0), (7, 0), (8, 3), (1001, 1)] {
            check::<f32>(len, extra, 0.25);
            check::<f64>(len, extra, 1.0 / 3.0);
        }
    }
}
