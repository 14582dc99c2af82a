//! Coordinate ([`Coo`]) storage: one (row, column, value) triple per entry.

use super::compressed::Compressed;
use super::{bad, idx, Csr, Format, SparseMatrix};
use crate::scalar::{check_fits, Index, Scalar};
use rocm_core::Result;

/// A sparse matrix as coordinate triples, in any order. Duplicate coordinates are allowed
/// and mean their **sum** (in conversions and every operation).
#[derive(Debug, Clone, PartialEq)]
pub struct Coo<I, T> {
    nrows: usize,
    ncols: usize,
    rows: Vec<I>,
    cols: Vec<I>,
    vals: Vec<T>,
}

impl<I: Index, T: Scalar> Coo<I, T> {
    /// Validates lengths and bounds; the error names the first out-of-range entry.
    pub fn new(
        nrows: usize,
        ncols: usize,
        rows: Vec<I>,
        cols: Vec<I>,
        vals: Vec<T>,
    ) -> Result<Self> {
        check_fits::<I>("nrows", nrows)?;
        check_fits::<I>("ncols", ncols)?;
        if rows.len() != vals.len() || cols.len() != vals.len() {
            return Err(bad(
                "coo",
                format!(
                    "row/col/value lengths differ: {} / {} / {}",
                    rows.len(),
                    cols.len(),
                    vals.len()
                ),
            ));
        }
        check_fits::<I>("nnz", vals.len())?;
        for (k, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
            if !matches!(r.try_to_usize(), Some(r) if r < nrows) {
                return Err(bad(
                    "row_idx",
                    format!("row_idx[{k}] = {r} is outside 0..{nrows}"),
                ));
            }
            if !matches!(c.try_to_usize(), Some(c) if c < ncols) {
                return Err(bad(
                    "col_idx",
                    format!("col_idx[{k}] = {c} is outside 0..{ncols}"),
                ));
            }
        }
        Ok(Self::from_valid(nrows, ncols, rows, cols, vals))
    }

    pub(crate) fn from_valid(
        nrows: usize,
        ncols: usize,
        rows: Vec<I>,
        cols: Vec<I>,
        vals: Vec<T>,
    ) -> Self {
        Coo {
            nrows,
            ncols,
            rows,
            cols,
            vals,
        }
    }

    pub fn nrows(&self) -> usize {
        self.nrows
    }
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }
    pub fn row_idx(&self) -> &[I] {
        &self.rows
    }
    pub fn col_idx(&self) -> &[I] {
        &self.cols
    }
    pub fn values(&self) -> &[T] {
        &self.vals
    }
    pub fn values_mut(&mut self) -> &mut [T] {
        &mut self.vals
    }
    /// `(row_idx, col_idx, values)`.
    pub fn into_parts(self) -> (Vec<I>, Vec<I>, Vec<T>) {
        (self.rows, self.cols, self.vals)
    }

    fn permute(&mut self, perm: &[usize]) {
        self.rows = perm.iter().map(|&k| self.rows[k]).collect();
        self.cols = perm.iter().map(|&k| self.cols[k]).collect();
        self.vals = perm.iter().map(|&k| self.vals[k]).collect();
    }

    /// Sorts by (row, column), stably (`coosort_by_row`).
    pub fn sort_by_row(&mut self) {
        let mut perm: Vec<usize> = (0..self.nnz()).collect();
        perm.sort_by_key(|&k| (self.rows[k], self.cols[k]));
        self.permute(&perm);
    }

    /// Sorts by (column, row), stably (`coosort_by_column`).
    pub fn sort_by_col(&mut self) {
        let mut perm: Vec<usize> = (0..self.nnz()).collect();
        perm.sort_by_key(|&k| (self.cols[k], self.rows[k]));
        self.permute(&perm);
    }

    /// Sorts by row and sums entries with equal coordinates into one.
    pub fn sum_duplicates(&mut self) {
        self.sort_by_row();
        let mut w = 0usize;
        for k in 0..self.nnz() {
            if w > 0 && self.rows[w - 1] == self.rows[k] && self.cols[w - 1] == self.cols[k] {
                let v = self.vals[k];
                self.vals[w - 1] += v;
            } else {
                self.rows[w] = self.rows[k];
                self.cols[w] = self.cols[k];
                self.vals[w] = self.vals[k];
                w += 1;
            }
        }
        self.rows.truncate(w);
        self.cols.truncate(w);
        self.vals.truncate(w);
    }

    /// Whether entries are sorted by (row, column) with no duplicates.
    pub fn is_canonical(&self) -> bool {
        (1..self.nnz()).all(|k| (self.rows[k - 1], self.cols[k - 1]) < (self.rows[k], self.cols[k]))
    }
}

impl<I: Index, T: Scalar> SparseMatrix<I, T> for Coo<I, T> {
    const FORMAT: Format = Format::Coo;
    fn nrows(&self) -> usize {
        self.nrows
    }
    fn ncols(&self) -> usize {
        self.ncols
    }
    fn nnz(&self) -> usize {
        self.vals.len()
    }
    /// `coo2csr` after sorting and summing duplicates.
    fn to_csr(&self) -> Result<Csr<I, T>> {
        let mut c = self.clone();
        if !c.is_canonical() {
            c.sum_duplicates();
        }
        check_fits::<I>("nnz", c.nnz())?;
        // One pointer per row, however few entries: a huge declared row count is an
        // out-of-memory error here, not an abort.
        let rows_plus_one = self
            .nrows
            .checked_add(1)
            .ok_or_else(|| bad("nrows", "overflows"))?;
        let mut ptr =
            rocm_core::host_alloc::try_vec("CSR row pointers", rows_plus_one, I::from_usize(0))?;
        // Entries are sorted by row: each row's end is where the next row starts.
        let mut k = 0;
        for (i, p) in ptr.iter_mut().enumerate().skip(1) {
            while k < c.rows.len() && c.rows[k].to_usize() < i {
                k += 1;
            }
            *p = idx(k);
        }
        Ok(Csr::from_inner(Compressed {
            nmajor: self.nrows,
            nminor: self.ncols,
            ptr,
            idx: c.cols,
            vals: c.vals,
        }))
    }
    fn to_coo(&self) -> Result<Coo<I, T>> {
        let mut c = self.clone();
        c.sum_duplicates();
        Ok(c)
    }
}
