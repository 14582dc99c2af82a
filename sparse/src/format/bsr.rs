//! Block compressed sparse row ([`Bsr`]) storage with square blocks.

use super::compressed::check_structure;
use super::{bad, idx, Csr, Format, SparseMatrix};
use crate::scalar::{check_fits, Index, Scalar};
use rocm_core::Result;

/// How the `block_dim × block_dim` entries of one block are laid out
/// (rocSPARSE's `rocsparse_direction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockLayout {
    /// Entry (r, c) of a block at `r * block_dim + c`.
    RowMajor,
    /// Entry (r, c) of a block at `c * block_dim + r`.
    ColMajor,
}

impl BlockLayout {
    #[inline(always)]
    pub(crate) fn offset(self, bd: usize, r: usize, c: usize) -> usize {
        match self {
            BlockLayout::RowMajor => r * bd + c,
            BlockLayout::ColMajor => c * bd + r,
        }
    }
}

/// `block_dim²`, the values of one block, when it fits.
fn block_area(block_dim: usize) -> Result<usize> {
    block_dim
        .checked_mul(block_dim)
        .ok_or_else(|| bad("block_dim", format!("{block_dim}² overflows")))
}

/// A sparse matrix of dense square blocks: a CSR structure over `mb × nb` block rows and
/// columns (`mb = ceil(nrows / block_dim)`), each stored block holding `block_dim²`
/// values. Block columns are strictly increasing within a block row (duplicates
/// **rejected**). When `nrows` or `ncols` is not a multiple of `block_dim` the last
/// blocks are padded, and padding entries must be zero.
#[derive(Debug, Clone, PartialEq)]
pub struct Bsr<I, T> {
    nrows: usize,
    ncols: usize,
    block_dim: usize,
    layout: BlockLayout,
    ptr: Vec<I>,
    idx: Vec<I>,
    vals: Vec<T>,
}

const NAMES: super::compressed::Names = ("block_row_ptr", "block_col_idx", "block row");

impl<I: Index, T: Scalar> Bsr<I, T> {
    /// Validates BSR arrays; the error names the first violated invariant.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        nrows: usize,
        ncols: usize,
        block_dim: usize,
        layout: BlockLayout,
        block_row_ptr: Vec<I>,
        block_col_idx: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        rocm_core::ensure_arg!(block_dim >= 1, "block_dim", "must be >= 1, got 0");
        check_fits::<I>("nrows", nrows)?;
        check_fits::<I>("ncols", ncols)?;
        let (mb, nb) = (nrows.div_ceil(block_dim), ncols.div_ceil(block_dim));
        check_structure(mb, nb, &block_row_ptr, &block_col_idx, NAMES)?;
        let bb = block_area(block_dim)?;
        let need = block_col_idx
            .len()
            .checked_mul(bb)
            .ok_or_else(|| bad("values", "nnzb * block_dim² overflows"))?;
        if values.len() != need {
            return Err(bad(
                "values",
                format!(
                    "length {} != nnzb * block_dim² = {} * {bb}",
                    values.len(),
                    block_col_idx.len()
                ),
            ));
        }
        let m = Bsr {
            nrows,
            ncols,
            block_dim,
            layout,
            ptr: block_row_ptr,
            idx: block_col_idx,
            vals: values,
        };
        for bi in 0..mb {
            for k in m.block_range(bi) {
                let bj = m.idx[k].to_usize();
                for r in 0..block_dim {
                    for c in 0..block_dim {
                        let (i, j) = (bi * block_dim + r, bj * block_dim + c);
                        let v = m.vals[k * bb + layout.offset(block_dim, r, c)];
                        if (i >= nrows || j >= ncols) && v != T::zero() {
                            return Err(bad(
                                "values",
                                format!(
                                    "block {k} entry ({r}, {c}) is padding (row {i}, column \
                                     {j} outside {nrows}x{ncols}) but holds {v}, not 0"
                                ),
                            ));
                        }
                    }
                }
            }
        }
        Ok(m)
    }

    pub fn nrows(&self) -> usize {
        self.nrows
    }
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    pub fn block_dim(&self) -> usize {
        self.block_dim
    }
    pub fn layout(&self) -> BlockLayout {
        self.layout
    }
    /// Number of block rows.
    pub fn mb(&self) -> usize {
        self.ptr.len() - 1
    }
    /// Number of block columns.
    pub fn nb(&self) -> usize {
        self.ncols.div_ceil(self.block_dim)
    }
    /// Number of stored blocks.
    pub fn nnzb(&self) -> usize {
        self.idx.len()
    }
    pub fn block_row_ptr(&self) -> &[I] {
        &self.ptr
    }
    pub fn block_col_idx(&self) -> &[I] {
        &self.idx
    }
    pub fn values(&self) -> &[T] {
        &self.vals
    }
    pub(crate) fn block_range(&self, bi: usize) -> std::ops::Range<usize> {
        self.ptr[bi].to_usize()..self.ptr[bi + 1].to_usize()
    }

    /// `csr2bsr`: every block holding at least one stored entry of `a` becomes a stored
    /// block (missing entries are zero).
    pub fn from_csr(a: &Csr<I, T>, block_dim: usize, layout: BlockLayout) -> Result<Self> {
        rocm_core::ensure_arg!(block_dim >= 1, "block_dim", "must be >= 1, got 0");
        let bd = block_dim;
        let (mb, nb) = (a.nrows().div_ceil(bd), a.ncols().div_ceil(bd));
        let bb = block_area(bd)?;
        let mut ptr = vec![idx::<I>(0)];
        let mut ind: Vec<I> = Vec::new();
        let mut vals: Vec<T> = Vec::new();
        // slot[bj] = position of block column bj in the current block row, or usize::MAX.
        let mut slot = rocm_core::host_alloc::try_vec("BSR block columns", nb, usize::MAX)?;
        for bi in 0..mb {
            let row0 = ind.len();
            let rows = bi * bd..((bi + 1) * bd).min(a.nrows());
            let mut cols: Vec<usize> = rows
                .clone()
                .flat_map(|i| a.row_range(i).map(|k| a.col_idx()[k].to_usize() / bd))
                .collect();
            cols.sort_unstable();
            cols.dedup();
            for (p, &bj) in cols.iter().enumerate() {
                slot[bj] = row0 + p;
                ind.push(idx(bj));
            }
            let len =
                rocm_core::host_alloc::elements("BSR values: nnzb * block_dim²", &[ind.len(), bb])?;
            vals.try_reserve_exact(len - vals.len()).map_err(|_| {
                rocm_core::Error::OutOfMemory {
                    device: "host (BSR values)".into(),
                    bytes: len.saturating_mul(std::mem::size_of::<T>()),
                }
            })?;
            vals.resize(len, T::zero());
            for i in rows {
                for k in a.row_range(i) {
                    let j = a.col_idx()[k].to_usize();
                    let b = slot[j / bd];
                    vals[b * bb + layout.offset(bd, i - bi * bd, j % bd)] = a.values()[k];
                }
            }
            for &bj in &cols {
                slot[bj] = usize::MAX;
            }
            check_fits::<I>("nnzb", ind.len())?;
            ptr.push(idx(ind.len()));
        }
        Self::new(a.nrows(), a.ncols(), bd, layout, ptr, ind, vals)
    }
}

impl<I: Index, T: Scalar> SparseMatrix<I, T> for Bsr<I, T> {
    const FORMAT: Format = Format::Bsr;
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
    fn nnz(&self) -> usize {
        self.vals.len()
    }
    /// `bsr2csr`: every in-bounds entry of every stored block becomes a CSR entry (zeros
    /// included, as rocSPARSE does; [`Csr::prune`] drops them).
    fn to_csr(&self) -> Result<Csr<I, T>> {
        let bd = self.block_dim;
        let bb = block_area(bd)?;
        let mut ptr = vec![idx::<I>(0)];
        let (mut ind, mut vals) = (Vec::new(), Vec::new());
        for i in 0..self.nrows {
            let (bi, r) = (i / bd, i % bd);
            for k in self.block_range(bi) {
                let bj = self.idx[k].to_usize();
                for c in 0..bd {
                    let j = bj * bd + c;
                    if j < self.ncols {
                        ind.push(idx(j));
                        vals.push(self.vals[k * bb + self.layout.offset(bd, r, c)]);
                    }
                }
            }
            check_fits::<I>("nnz", ind.len())?;
            ptr.push(idx(ind.len()));
        }
        Csr::new(self.nrows, self.ncols, ptr, ind, vals)
    }
}
