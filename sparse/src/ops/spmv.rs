//! SpMV: `y = alpha * op(A) * x + beta * y` for every format.
//!
//! Kernels: CSR-structured rows (CSR `N`, CSC `T`/`C`, and every other case through the
//! analysed [`RowView`](super::view::RowView)) run merge-path partitioned, so power-law
//! rows are split among threads; ELL and BSR with `Transpose::N` run their native layouts.
//!
//! The row kernel is bound by memory: about 12 bytes of matrix per nonzero (f64 value,
//! i32 index) for 2 flops, plus the gathers `x[col]`. When `x` does not fit in cache and
//! the columns are scattered, every gather is a cache (and often TLB) miss, and how many
//! misses are in flight at once decides the speed. An out-of-order core keeps only as
//! many as its reorder buffer spans — a few dozen nonzeros, fewer with the mispredicted
//! loop exits of short rows — so the kernel prefetches `x[col[k + 64]]` (into L2) while
//! computing with `x[col[k]]` (on a 2-core EPYC, power-law matrices with 10 MB `x`:
//! 1.5-2x faster than without, distances 32..256 within noise of each other). Matrices
//! whose gathers stream through `x` row after row (stencils, banded matrices) are not
//! prefetched: the hardware prefetcher covers them and the instructions cost about 5%.

use super::partition::{
    coords_fit, fixed_pieces, merge_path, nnz_split_rows, path_len, piece_count, row_split,
    split_rows, Coord,
};
use super::view::{op_shape, Rows};
use super::{axpby, check_device, check_len, host, host_mut, SpMat, Transpose};
use crate::format::Format;
use crate::scalar::{Index, Scalar};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, Device, Error, Result};

const OP: &str = "sparse spmv";

/// How CSR-structured rows are divided among threads (`rocsparse_spmv_alg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SpmvAlg {
    /// Merge-path: equal `rows + nonzeros` per piece; robust to any row-length
    /// distribution. A row longer than a piece is cut, its partial sums added in a fixed
    /// order afterwards. Pieces have a fixed size (not one per thread), so results are
    /// bitwise the same run to run and for any thread count.
    #[default]
    MergePath,
    /// Equal row counts per piece, never cutting a row; cheapest when rows have similar
    /// lengths. Deterministic.
    RowSplit,
}

/// A partition of CSR-structured rows, made once by the analysis.
#[derive(Debug, Clone)]
pub(crate) struct RowPlan {
    /// Merge-path points cutting the rows into pieces.
    coords: Vec<Coord>,
    /// `coords[p].0`: the first output row of each piece.
    bounds: Vec<usize>,
    /// Whether the gathers from `x` are prefetched (`x` larger than a core's L2).
    prefetch: bool,
}

impl RowPlan {
    pub(crate) fn new<I: Index>(
        ptr: &[I],
        idx: &[I],
        ncols: usize,
        elem: usize,
        alg: SpmvAlg,
    ) -> Self {
        let pieces = fixed_pieces(path_len(ptr));
        let coords = match alg {
            SpmvAlg::MergePath => merge_path(ptr, pieces),
            SpmvAlg::RowSplit => row_split(ptr, pieces),
        };
        RowPlan {
            bounds: coords.iter().map(|c| c.0).collect(),
            coords,
            prefetch: ncols.saturating_mul(elem) > PREFETCH_ABOVE_BYTES
                && !gathers_stream(ptr, idx, elem),
        }
    }
}

/// Whether the gathers `x[idx[k]]` mostly walk through `x` in step with the rows, as a
/// stencil's or a banded matrix's do: then the hardware prefetcher already streams `x`
/// and software prefetches only cost instructions (poisson3d: about 5% slower with
/// them).
///
/// A sample of up to [`STREAM_SAMPLE_ROWS`] rows, evenly spaced, is checked: a nonzero
/// streams when its cache line of `x`, or the line before it, holds a column of the
/// previous row, or when it shares a line with the previous nonzero of its own row (at
/// most [`STREAM_SAMPLE_NNZ`] nonzeros per row are looked at). The gathers stream when
/// at least half the sampled nonzeros do. O(rows sampled · entries²), at most about
/// 10⁶ steps, independent of the matrix size.
fn gathers_stream<I: Index>(ptr: &[I], idx: &[I], elem: usize) -> bool {
    let m = ptr.len().saturating_sub(1);
    if m < 2 {
        return false;
    }
    let per_line = (64 / elem.max(1)).max(1);
    let line = |k: usize| idx.get(k).map_or(usize::MAX, |j| j.to_usize() / per_line);
    let range = |r: usize| {
        let (a, b) = (ptr[r].to_usize(), ptr[r + 1].to_usize());
        a..b.min(a + STREAM_SAMPLE_NNZ)
    };
    let rows = (m - 1).min(STREAM_SAMPLE_ROWS);
    let (mut seen, mut streaming) = (0usize, 0usize);
    for s in 0..rows {
        let r = 1 + s * (m - 1) / rows;
        let prev = range(r - 1);
        let mut last = usize::MAX;
        for k in range(r) {
            let l = line(k);
            let near = l == last
                || prev
                    .clone()
                    .any(|q| line(q) == l || line(q).wrapping_add(1) == l);
            seen += 1;
            streaming += usize::from(near);
            last = l;
        }
    }
    seen > 0 && 2 * streaming >= seen
}

/// Rows [`gathers_stream`] samples.
const STREAM_SAMPLE_ROWS: usize = 1024;

/// Nonzeros per row [`gathers_stream`] looks at.
const STREAM_SAMPLE_NNZ: usize = 32;

/// `x` sizes above which gathers are prefetched: beyond a typical per-core L2 (512 KiB
/// to 2 MiB), gathers start missing; below it prefetching only costs instructions.
const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// How many nonzeros ahead the kernel prefetches `x[col]`: enough to cover a miss at a
/// nonzero every few nanoseconds (64 measured best of 8, 16, 32, 64, 128).
const PREFETCH_AHEAD: usize = 64;

#[derive(Debug, Clone)]
enum Exec<I> {
    Rows { rows: Rows<I>, plan: RowPlan },
    Ell { bounds: Vec<usize> },
    Bsr { bounds: Vec<usize> },
}

/// An analysed SpMV (`rocsparse_spmv` after its preprocess stage).
///
/// ```
/// use rocm_sparse::{Csr, ops::{Transpose, Spmv, SpmvAlg}};
/// use rocm_core::{Device, DeviceBuffer};
/// let dev = Device::cpu();
/// let a = Csr::<i32, f64>::new(2, 2, vec![0, 1, 3], vec![0, 0, 1], vec![2.0, 1.0, 3.0])?;
/// let x = DeviceBuffer::from_slice(&dev, &[1.0, 1.0])?;
/// let mut y = DeviceBuffer::zeros(&dev, 2)?;
/// let plan = Spmv::analysis(&dev, Transpose::N, (&a).into(), SpmvAlg::MergePath)?;
/// plan.compute(1.0, (&a).into(), &x.as_slice(), 0.0, &mut y.as_slice_mut())?;
/// assert_eq!(y.to_vec()?, vec![2.0, 4.0]);
/// # Ok::<(), rocm_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Spmv<I> {
    op: Transpose,
    sig: (Format, usize, usize, usize),
    exec: Exec<I>,
}

impl<I: Index> Spmv<I> {
    /// Bytes the analysis of `op(a)` will hold (rocSPARSE's buffer-size stage).
    pub fn buffer_size<T: Scalar>(op: Transpose, a: SpMat<'_, I, T>) -> usize {
        let (m, _) = op_shape(&a, op);
        let own = matches!(
            (a.format(), op),
            (Format::Csr, Transpose::N) | (Format::Csc, Transpose::T | Transpose::C)
        ) || (op == Transpose::N && matches!(a.format(), Format::Ell | Format::Bsr));
        let coords = (fixed_pieces(m + 1 + a.signature().3) + 1) * 24;
        if own {
            coords
        } else {
            coords + (m + 1 + a.signature().3) * std::mem::size_of::<I>() + a.signature().3 * 8
        }
    }

    /// Analyses the structure of `op(a)`: partitions, and the transposed structure when
    /// the format does not store `op(a)` by rows.
    pub fn analysis<T: Scalar>(
        device: &Device,
        op: Transpose,
        a: SpMat<'_, I, T>,
        alg: SpmvAlg,
    ) -> Result<Self> {
        check_device(device, OP)?;
        let exec = match (a, op) {
            (SpMat::Ell(m), Transpose::N) => {
                let n = m.nrows();
                let pieces = piece_count(n * m.width().max(1));
                Exec::Ell {
                    bounds: (0..=pieces).map(|p| n * p / pieces).collect(),
                }
            }
            (SpMat::Bsr(m), Transpose::N) => {
                let prefix: Vec<usize> = m.block_row_ptr().iter().map(|p| p.to_usize()).collect();
                let work = m.nnzb() * m.block_dim() * m.block_dim();
                Exec::Bsr {
                    bounds: nnz_split_rows(&prefix, piece_count(work)),
                }
            }
            _ => {
                let rows = Rows::analyse(&a, op);
                let (_, n) = op_shape(&a, op);
                let (ptr, idx) = rows.structure(&a);
                let plan = RowPlan::new(ptr, idx, n, std::mem::size_of::<T>(), alg);
                Exec::Rows { rows, plan }
            }
        };
        Ok(Spmv {
            op,
            sig: a.signature(),
            exec,
        })
    }

    /// `y = alpha * op(A) * x + beta * y`. `a` must have the structure analysed (values
    /// may differ). When `beta == 0`, `y` is not read.
    pub fn compute<T: Scalar>(
        &self,
        alpha: T,
        a: SpMat<'_, I, T>,
        x: &BufferSlice<'_, T>,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        rocm_core::ensure_arg!(
            a.signature() == self.sig,
            "A",
            "structure {:?} differs from the analysed {:?}",
            a.signature(),
            self.sig
        );
        let (m, n) = op_shape(&a, self.op);
        let x = host(x, OP)?;
        let y = host_mut(y, OP)?;
        check_len("x", x.len(), n)?;
        check_len("y", y.len(), m)?;
        match (&self.exec, a) {
            (Exec::Rows { rows, plan }, _) => {
                let (ptr, idx, vals) = rows.arrays(&a);
                // A matrix of the analysed shape and nnz whose nonzeros sit in other rows
                // would be summed wrongly by the analysed cuts; they are checked here,
                // O(pieces), so that cannot happen silently.
                rocm_core::ensure_arg!(
                    coords_fit(ptr, &plan.coords),
                    "A",
                    "row pointers differ from the analysed structure"
                );
                merge_spmv(ptr, idx, &vals, plan, alpha, x, beta, y);
            }
            (Exec::Ell { bounds }, SpMat::Ell(e)) => ell_spmv(
                e.nrows(),
                e.width(),
                e.col_idx(),
                e.values(),
                bounds,
                alpha,
                x,
                beta,
                y,
            ),
            (Exec::Bsr { bounds }, SpMat::Bsr(b)) => bsr_spmv(b, bounds, alpha, x, beta, y),
            _ => return Err(Error::invalid("A", "format differs from the analysed one")),
        }
        Ok(())
    }
}

/// Starts loading `x[j]` into cache without waiting for it.
///
/// The T1 hint (into L2, not L1): on the 2-core EPYC, power-law SpMV 15-30% faster
/// and rmat 10-20% than with T0, the gathers alone about 10%: an L1 fill per gather
/// holds one of the few L1 miss buffers for the whole L3 round trip, which the value
/// and index streams also need; the load then hits L2.
#[inline(always)]
fn prefetch<T>(x: &[T], j: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht1` is only a hint: it never faults and changes no architectural
    // state whatever the address, and `wrapping_add` keeps the address computation
    // itself defined.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
        _mm_prefetch::<_MM_HINT_T1>(x.as_ptr().wrapping_add(j).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (x, j);
}

/// `sum_{k in k0..k1} vals[k] * x[idx[k]]`, prefetching `x[idx[k + PREFETCH_AHEAD]]`
/// when `PF`. Rows of 8 or more nonzeros use four accumulators (a chain of dependent
/// adds would otherwise bound an in-cache row at one nonzero per add latency), summed
/// as `(s0 + s1) + (s2 + s3)` and then the tail: a fixed order, so results are
/// reproducible.
///
/// # Safety
/// `k0 <= k1 <= idx.len() == vals.len()` and every `idx[k]` is `< x.len()`.
#[inline(always)]
unsafe fn row_dot<I: Index, T: Scalar, const PF: bool>(
    idx: &[I],
    vals: &[T],
    x: &[T],
    k0: usize,
    k1: usize,
) -> T {
    // SAFETY (every unchecked access below): k < k1 <= idx.len() == vals.len(), the
    // prefetch position is clamped to idx.len() - 1 (idx is non-empty when k < k1), and
    // idx[k] < x.len(), all by the caller's contract.
    let last = idx.len().saturating_sub(1);
    let term = |k: usize| unsafe {
        if PF {
            prefetch(
                x,
                idx.get_unchecked((k + PREFETCH_AHEAD).min(last)).to_usize(),
            );
        }
        *vals.get_unchecked(k) * *x.get_unchecked(idx.get_unchecked(k).to_usize())
    };
    let mut k = k0;
    let mut s = T::zero();
    if k1 - k0 >= 8 {
        let mut acc = [T::zero(); 4];
        while k + 4 <= k1 {
            acc[0] += term(k);
            acc[1] += term(k + 1);
            acc[2] += term(k + 2);
            acc[3] += term(k + 3);
            k += 4;
        }
        s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
    while k < k1 {
        s += term(k);
        k += 1;
    }
    s
}

/// One merge-path piece: the rows ending in `(r0, k0)..(r1, k1)` into `yc` (`y[r0..r1]`),
/// returning the partial sum of row `r1` when the piece ends inside it.
///
/// # Safety
/// `(r0, k0)` and `(r1, k1)` are points of `ptr`'s merge path (see
/// [`coords_fit`]), `ptr` is a valid row pointer of `idx`/`vals` (non-decreasing, last
/// entry `idx.len() == vals.len()`), every `idx[k] < x.len()`, and `yc.len() == r1 - r0`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn piece<I: Index, T: Scalar, const PF: bool>(
    ptr: &[I],
    idx: &[I],
    vals: &[T],
    x: &[T],
    (r0, k0): Coord,
    (r1, k1): Coord,
    alpha: T,
    beta: T,
    yc: &mut [T],
) -> Option<(usize, T)> {
    let mut k = k0;
    let ends = &ptr[r0 + 1..r1 + 1];
    // SAFETY (row_dot): on the merge path ptr[r] <= k <= ptr[r + 1], so each range is
    // k..end with k <= end <= nnz (or empty when k == end); the rest is the contract.
    if beta == T::zero() {
        for (e, yr) in ends.iter().zip(yc.iter_mut()) {
            let end = e.to_usize();
            *yr = alpha * unsafe { row_dot::<I, T, PF>(idx, vals, x, k, end) };
            k = end;
        }
    } else {
        for (e, yr) in ends.iter().zip(yc.iter_mut()) {
            let end = e.to_usize();
            *yr = alpha * unsafe { row_dot::<I, T, PF>(idx, vals, x, k, end) } + beta * *yr;
            k = end;
        }
    }
    (k1 > k).then(|| (r1, unsafe { row_dot::<I, T, PF>(idx, vals, x, k, k1) }))
}

/// Merge-path CSR SpMV over an analysed partition. A single piece runs on the calling
/// thread (no rayon task, no allocation).
#[allow(clippy::too_many_arguments)]
pub(crate) fn merge_spmv<I: Index, T: Scalar>(
    ptr: &[I],
    idx: &[I],
    vals: &[T],
    plan: &RowPlan,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) {
    debug_assert!(coords_fit(ptr, &plan.coords));
    let run = |c0: Coord, c1: Coord, yc: &mut [T]| {
        // SAFETY: the coordinates fit ptr (checked by compute), the matrix arrays were
        // validated at construction (ptr non-decreasing to nnz, column indices < ncols),
        // x.len() == ncols and y.len() == nrows (checked by compute), and split_rows
        // gives each piece exactly y[r0..r1].
        unsafe {
            if plan.prefetch {
                piece::<I, T, true>(ptr, idx, vals, x, c0, c1, alpha, beta, yc)
            } else {
                piece::<I, T, false>(ptr, idx, vals, x, c0, c1, alpha, beta, yc)
            }
        }
    };
    let coords = &plan.coords;
    if coords.len() <= 2 {
        let (c0, c1) = (coords[0], coords[coords.len() - 1]);
        // One piece spans the whole path, which ends at (m, nnz): no carry.
        let carry = run(c0, c1, &mut y[c0.0..c1.0]);
        debug_assert!(carry.is_none());
        return;
    }
    let carries: Vec<Option<(usize, T)>> = split_rows(y, &plan.bounds)
        .into_par_iter()
        .zip(coords.par_windows(2))
        .map(|(yc, w)| run(w[0], w[1], yc))
        .collect();
    // A row cut by a piece boundary was finished (beta applied) by the piece that ends
    // it; the earlier pieces' partial sums are added here, in order.
    for (r, s) in carries.into_iter().flatten() {
        y[r] += alpha * s;
    }
}

#[allow(clippy::too_many_arguments)]
fn ell_spmv<I: Index, T: Scalar>(
    n: usize,
    width: usize,
    idx: &[I],
    vals: &[T],
    bounds: &[usize],
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) {
    split_rows(y, bounds)
        .into_par_iter()
        .zip(bounds.par_windows(2))
        .for_each(|(yc, w)| {
            let r0 = w[0];
            let mut acc = vec![T::zero(); yc.len()];
            // Slot-major order reads the column-major ELL arrays contiguously.
            for s in 0..width {
                let base = s * n + r0;
                for (a, (j, v)) in acc
                    .iter_mut()
                    .zip(idx[base..base + yc.len()].iter().zip(&vals[base..]))
                {
                    if *j != I::PAD {
                        *a += *v * x[j.to_usize()];
                    }
                }
            }
            for (yr, a) in yc.iter_mut().zip(acc) {
                *yr = axpby(alpha, a, beta, *yr);
            }
        });
}

fn bsr_spmv<I: Index, T: Scalar>(
    b: &crate::format::Bsr<I, T>,
    bounds: &[usize],
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) {
    let bd = b.block_dim();
    let bb = bd * bd;
    let (nrows, ncols) = (b.nrows(), b.ncols());
    let row_bounds: Vec<usize> = bounds.iter().map(|&br| (br * bd).min(nrows)).collect();
    let layout = b.layout();
    split_rows(y, &row_bounds)
        .into_par_iter()
        .zip(bounds.par_windows(2))
        .for_each(|(yc, w)| {
            let mut acc = vec![T::zero(); bd];
            for bi in w[0]..w[1] {
                acc.iter_mut().for_each(|a| *a = T::zero());
                for k in b.block_range(bi) {
                    let j0 = b.block_col_idx()[k].to_usize() * bd;
                    let cw = bd.min(ncols - j0);
                    let blk = &b.values()[k * bb..(k + 1) * bb];
                    for (r, a) in acc.iter_mut().enumerate() {
                        let mut s = T::zero();
                        for c in 0..cw {
                            s += blk[layout.offset(bd, r, c)] * x[j0 + c];
                        }
                        *a += s;
                    }
                }
                let i0 = bi * bd - w[0] * bd;
                let rows = bd.min(nrows - bi * bd);
                for r in 0..rows {
                    yc[i0 + r] = axpby(alpha, acc[r], beta, yc[i0 + r]);
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::gathers_stream;
    use crate::gen;
    use crate::Csr;

    fn streams(a: &Csr<i32, f64>) -> bool {
        gathers_stream(a.row_ptr(), a.col_idx(), 8)
    }

    #[test]
    fn stencils_stream_and_scattered_columns_do_not() {
        assert!(streams(&gen::poisson3d(12).unwrap()));
        assert!(streams(&gen::poisson2d(40).unwrap()));
        assert!(!streams(&gen::power_law(20_000, 7.5, 2.1, 1).unwrap()));
        assert!(!streams(&gen::rmat(14, 8, 1).unwrap()));
        // Degenerate shapes: nothing to sample.
        let empty = Csr::<i32, f64>::new(0, 0, vec![0], vec![], vec![]).unwrap();
        assert!(!streams(&empty));
        let one = Csr::<i32, f64>::new(1, 1, vec![0, 1], vec![0], vec![1.0]).unwrap();
        assert!(!streams(&one));
        let no_entries = Csr::<i32, f64>::new(5, 5, vec![0; 6], vec![], vec![]).unwrap();
        assert!(!streams(&no_entries));
    }
}
