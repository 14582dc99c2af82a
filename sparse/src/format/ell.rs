//! ELLPACK ([`Ell`]) storage: every row padded to the same width.

use super::{bad, idx, Csr, Format, SparseMatrix};
use crate::scalar::{check_fits, Index, Scalar};
use rocm_core::Result;

/// A sparse matrix with `width` slots per row, stored column-major like rocSPARSE: slot
/// `s` of row `i` at `s * nrows + i` in `col_idx` and `values`. A row's used slots come
/// first with strictly increasing columns (duplicates **rejected**); unused slots hold
/// column index -1 ([`Index::PAD`]) and are ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct Ell<I, T> {
    nrows: usize,
    ncols: usize,
    width: usize,
    idx: Vec<I>,
    vals: Vec<T>,
}

impl<I: Index, T: Scalar> Ell<I, T> {
    /// Validates ELL arrays; the error names the first violated invariant.
    pub fn new(
        nrows: usize,
        ncols: usize,
        width: usize,
        col_idx: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        check_fits::<I>("nrows", nrows)?;
        check_fits::<I>("ncols", ncols)?;
        let len = nrows
            .checked_mul(width)
            .ok_or_else(|| bad("width", "nrows * width overflows"))?;
        if col_idx.len() != len || values.len() != len {
            return Err(bad(
                "col_idx",
                format!(
                    "col_idx / values lengths {} / {} != nrows * width = {len}",
                    col_idx.len(),
                    values.len()
                ),
            ));
        }
        for i in 0..nrows {
            let mut padded = false;
            for s in 0..width {
                let p = s * nrows + i;
                let j = col_idx[p];
                if j == I::PAD {
                    padded = true;
                    continue;
                }
                if padded {
                    return Err(bad(
                        "col_idx",
                        format!("col_idx[{p}] = {j} (row {i}, slot {s}) follows a padding slot"),
                    ));
                }
                if !matches!(j.try_to_usize(), Some(j) if j < ncols) {
                    return Err(bad(
                        "col_idx",
                        format!("col_idx[{p}] = {j} (row {i}, slot {s}) is outside 0..{ncols}"),
                    ));
                }
                if s > 0 && col_idx[p - nrows] >= j {
                    return Err(bad(
                        "col_idx",
                        format!(
                            "col_idx[{p}] = {j} (row {i}, slot {s}) is not greater than the \
                             previous slot's {} (sorted, no duplicates)",
                            col_idx[p - nrows]
                        ),
                    ));
                }
            }
        }
        Ok(Ell {
            nrows,
            ncols,
            width,
            idx: col_idx,
            vals: values,
        })
    }

    pub fn nrows(&self) -> usize {
        self.nrows
    }
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Slots per row.
    pub fn width(&self) -> usize {
        self.width
    }
    pub fn col_idx(&self) -> &[I] {
        &self.idx
    }
    pub fn values(&self) -> &[T] {
        &self.vals
    }

    /// `csr2ell` with width = the longest row.
    pub fn from_csr(a: &Csr<I, T>) -> Result<Self> {
        let n = a.nrows();
        let width = (0..n).map(|i| a.row_range(i).len()).max().unwrap_or(0);
        let len = n
            .checked_mul(width)
            .ok_or_else(|| bad("width", "nrows * width overflows"))?;
        let mut ind = vec![I::PAD; len];
        let mut vals = vec![T::zero(); len];
        for i in 0..n {
            for (s, k) in a.row_range(i).enumerate() {
                ind[s * n + i] = a.col_idx()[k];
                vals[s * n + i] = a.values()[k];
            }
        }
        Self::new(n, a.ncols(), width, ind, vals)
    }
}

impl<I: Index, T: Scalar> SparseMatrix<I, T> for Ell<I, T> {
    const FORMAT: Format = Format::Ell;
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
    fn nnz(&self) -> usize {
        self.idx.iter().filter(|&&j| j != I::PAD).count()
    }
    fn to_csr(&self) -> Result<Csr<I, T>> {
        let mut ptr = vec![idx::<I>(0)];
        let (mut ind, mut vals) = (Vec::new(), Vec::new());
        for i in 0..self.nrows {
            for s in 0..self.width {
                let p = s * self.nrows + i;
                if self.idx[p] != I::PAD {
                    ind.push(self.idx[p]);
                    vals.push(self.vals[p]);
                }
            }
            check_fits::<I>("nnz", ind.len())?;
            ptr.push(idx(ind.len()));
        }
        Csr::new(self.nrows, self.ncols, ptr, ind, vals)
    }
}
