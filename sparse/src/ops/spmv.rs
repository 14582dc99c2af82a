//! SpMV: `y = alpha * op(A) * x + beta * y` for every format.
//!
//! Kernels: CSR-structured rows (CSR `N`, CSC `T`/`C`, and every other case through the
//! analysed [`RowView`](super::view::RowView)) run merge-path partitioned, so power-law
//! rows are split among threads; ELL and BSR with `Op::N` run their native layouts.

use super::partition::{
    merge_path, nnz_split_rows, path_len, piece_count, row_split, split_rows, Coord,
};
use super::view::{op_shape, Rows};
use super::{axpby, check_device, check_len, host, host_mut, Op, SpMat};
use crate::format::Format;
use crate::scalar::{Index, Scalar};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, Device, Error, Result};

const OP: &str = "sparse spmv";

/// How CSR-structured rows are divided among threads (`rocsparse_spmv_alg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SpmvAlg {
    /// Merge-path: equal `rows + nonzeros` per piece; robust to any row-length
    /// distribution. Deterministic for a given thread count.
    #[default]
    MergePath,
    /// Equal row counts per piece; cheapest when rows have similar lengths.
    RowSplit,
}

#[derive(Debug, Clone)]
enum Exec<I> {
    Rows { rows: Rows<I>, coords: Vec<Coord> },
    Ell { bounds: Vec<usize> },
    Bsr { bounds: Vec<usize> },
}

/// An analysed SpMV (`rocsparse_spmv` after its preprocess stage).
///
/// ```
/// use rocm_sparse::{Csr, ops::{Op, Spmv, SpmvAlg}};
/// use rocm_core::{Device, DeviceBuffer};
/// let dev = Device::cpu();
/// let a = Csr::<i32, f64>::new(2, 2, vec![0, 1, 3], vec![0, 0, 1], vec![2.0, 1.0, 3.0])?;
/// let x = DeviceBuffer::from_slice(&dev, &[1.0, 1.0])?;
/// let mut y = DeviceBuffer::zeros(&dev, 2)?;
/// let plan = Spmv::analysis(&dev, Op::N, (&a).into(), SpmvAlg::MergePath)?;
/// plan.compute(1.0, (&a).into(), &x.as_slice(), 0.0, &mut y.as_slice_mut())?;
/// assert_eq!(y.to_vec()?, vec![2.0, 4.0]);
/// # Ok::<(), rocm_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Spmv<I> {
    op: Op,
    sig: (Format, usize, usize, usize),
    exec: Exec<I>,
}

impl<I: Index> Spmv<I> {
    /// Bytes the analysis of `op(a)` will hold (rocSPARSE's buffer-size stage).
    pub fn buffer_size<T: Scalar>(op: Op, a: SpMat<'_, I, T>) -> usize {
        let (m, _) = op_shape(&a, op);
        let own = matches!(
            (a.format(), op),
            (Format::Csr, Op::N) | (Format::Csc, Op::T | Op::C)
        ) || (op == Op::N && matches!(a.format(), Format::Ell | Format::Bsr));
        let coords = (piece_count(m + a.signature().3) + 1) * 16;
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
        op: Op,
        a: SpMat<'_, I, T>,
        alg: SpmvAlg,
    ) -> Result<Self> {
        check_device(device, OP)?;
        let exec = match (a, op) {
            (SpMat::Ell(m), Op::N) => {
                let n = m.nrows();
                let pieces = piece_count(n * m.width().max(1));
                Exec::Ell {
                    bounds: (0..=pieces).map(|p| n * p / pieces).collect(),
                }
            }
            (SpMat::Bsr(m), Op::N) => {
                let prefix: Vec<usize> = m.block_row_ptr().iter().map(|p| p.to_usize()).collect();
                let work = m.nnzb() * m.block_dim() * m.block_dim();
                Exec::Bsr {
                    bounds: nnz_split_rows(&prefix, piece_count(work)),
                }
            }
            _ => {
                let rows = Rows::analyse(&a, op);
                let coords = {
                    let ptr = rows.ptr(&a);
                    let pieces = piece_count(path_len(ptr));
                    match alg {
                        SpmvAlg::MergePath => merge_path(ptr, pieces),
                        SpmvAlg::RowSplit => row_split(ptr, pieces),
                    }
                };
                Exec::Rows { rows, coords }
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
            (Exec::Rows { rows, coords }, _) => {
                let (ptr, idx, vals) = rows.arrays(&a);
                merge_spmv(ptr, idx, &vals, coords, alpha, x, beta, y);
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

/// `sum_{k in range} vals[k] * x[idx[k]]`.
///
/// # Safety
/// `range` must lie inside `idx` and `vals`, and every `idx[k]` in it must be `< x.len()`.
#[inline(always)]
unsafe fn row_dot<I: Index, T: Scalar>(
    idx: &[I],
    vals: &[T],
    x: &[T],
    range: std::ops::Range<usize>,
) -> T {
    let mut s = T::zero();
    for k in range {
        // SAFETY: guaranteed by the caller.
        unsafe {
            s += *vals.get_unchecked(k) * *x.get_unchecked(idx.get_unchecked(k).to_usize());
        }
    }
    s
}

/// Merge-path CSR SpMV over precomputed path coordinates.
#[allow(clippy::too_many_arguments)]
pub(crate) fn merge_spmv<I: Index, T: Scalar>(
    ptr: &[I],
    idx: &[I],
    vals: &[T],
    coords: &[Coord],
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) {
    let bounds: Vec<usize> = coords.iter().map(|c| c.0).collect();
    let chunks = split_rows(y, &bounds);
    let carries: Vec<Option<(usize, T)>> = chunks
        .into_par_iter()
        .zip(coords.par_windows(2))
        .map(|(yc, w)| {
            let ((r0, k0), (r1, k1)) = (w[0], w[1]);
            let mut k = k0;
            let ends = &ptr[r0 + 1..r1 + 1];
            // SAFETY (both row_dot calls): merge-path coordinates satisfy
            // ptr[r] <= k <= ptr[r + 1] for the rows they cover, ptr is non-decreasing up
            // to nnz = idx.len() = vals.len(), and every column index is < ncols =
            // x.len() (validated at construction, checked by compute).
            if beta == T::zero() {
                for (e, yr) in ends.iter().zip(yc.iter_mut()) {
                    let end = e.to_usize();
                    *yr = alpha * unsafe { row_dot(idx, vals, x, k..end) };
                    k = end;
                }
            } else {
                for (e, yr) in ends.iter().zip(yc.iter_mut()) {
                    let end = e.to_usize();
                    *yr = alpha * unsafe { row_dot(idx, vals, x, k..end) } + beta * *yr;
                    k = end;
                }
            }
            (k1 > k).then(|| (r1, unsafe { row_dot(idx, vals, x, k..k1) }))
        })
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
