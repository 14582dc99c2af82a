//! Compressed sparse row ([`Csr`]) and column ([`Csc`]) storage.
//!
//! Both are the same arrays read along a different axis: the CSC arrays of `A` are the CSR
//! arrays of `Aᵀ`. So one private [`Compressed`] type holds the data and the validation,
//! and `csr2csc` (the transpose) is one counting sort.

use super::{bad, idx, Coo, Dense, Format, SparseMatrix};
use crate::scalar::{check_fits, Index, Scalar};
use rocm_core::Result;

/// The shared storage: `major` pointer array of length `nmajor + 1`, `minor` indices and
/// values of length nnz. Within each major slice minor indices are strictly increasing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Compressed<I, T> {
    pub(crate) nmajor: usize,
    pub(crate) nminor: usize,
    pub(crate) ptr: Vec<I>,
    pub(crate) idx: Vec<I>,
    pub(crate) vals: Vec<T>,
}

/// Names used in error messages: ("row_ptr", "col_idx", "row") for CSR.
pub(crate) type Names = (&'static str, &'static str, &'static str);
pub(crate) const CSR_NAMES: Names = ("row_ptr", "col_idx", "row");
const CSC_NAMES: Names = ("col_ptr", "row_idx", "column");

impl<I: Index, T: Scalar> Compressed<I, T> {
    fn new(
        nmajor: usize,
        nminor: usize,
        ptr: Vec<I>,
        idx: Vec<I>,
        vals: Vec<T>,
        names: Names,
    ) -> Result<Self> {
        let (_, iname, _) = names;
        if idx.len() != vals.len() {
            return Err(bad(
                iname,
                format!("length {} != values length {}", idx.len(), vals.len()),
            ));
        }
        check_structure(nmajor, nminor, &ptr, &idx, names)?;
        Ok(Compressed {
            nmajor,
            nminor,
            ptr,
            idx,
            vals,
        })
    }

    /// Builds from possibly unsorted slices with duplicates: sorts each slice and sums
    /// duplicates (rocSPARSE csrsort + compress). Validates bounds and pointers.
    fn from_unsorted(
        nmajor: usize,
        nminor: usize,
        ptr: Vec<I>,
        idx: Vec<I>,
        vals: Vec<T>,
        names: Names,
    ) -> Result<Self> {
        // Validate pointers and bounds via COO, whose rules are exactly "anything in bounds".
        let (pn, _, _) = names;
        if ptr.len() != nmajor + 1 {
            return Err(bad(pn, format!("length {} != {} + 1", ptr.len(), nmajor)));
        }
        let mut rows = Vec::with_capacity(idx.len());
        for i in 0..nmajor {
            let (s, e) = (ptr[i], ptr[i + 1]);
            if e < s {
                return Err(bad(
                    pn,
                    format!(
                        "{pn}[{}] = {e} < {pn}[{i}] = {s} (must be non-decreasing)",
                        i + 1
                    ),
                ));
            }
            let n = e.try_to_usize().unwrap_or(0) - s.try_to_usize().unwrap_or(0);
            rows.extend(std::iter::repeat_n(idx_of::<I>(i), n));
        }
        if ptr[0] != idx_of::<I>(0) || ptr[nmajor].try_to_usize() != Some(idx.len()) {
            return Err(bad(
                pn,
                format!(
                    "{pn}[0] = {} and {pn}[{nmajor}] = {} must be 0 and nnz = {}",
                    ptr[0],
                    ptr[nmajor],
                    idx.len()
                ),
            ));
        }
        let coo = Coo::new(nmajor, nminor, rows, idx, vals)?;
        Ok(coo.to_csr()?.inner)
    }

    pub(crate) fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// The transpose's storage (counting sort by minor index; stable, so the result's
    /// minor indices are increasing).
    pub(crate) fn transpose(&self, conj: bool) -> Self {
        let (ptr, idx, perm) = transpose_structure(self.nmajor, self.nminor, &self.ptr, &self.idx);
        let vals = perm
            .iter()
            .map(|&k| {
                let v = self.vals[k];
                if conj {
                    v.conj()
                } else {
                    v
                }
            })
            .collect();
        Compressed {
            nmajor: self.nminor,
            nminor: self.nmajor,
            ptr,
            idx,
            vals,
        }
    }

    fn prune(&self, threshold: f64) -> Self {
        let mut ptr = Vec::with_capacity(self.nmajor + 1);
        let mut idx = Vec::new();
        let mut vals = Vec::new();
        ptr.push(idx_of::<I>(0));
        for i in 0..self.nmajor {
            for k in self.ptr[i].to_usize()..self.ptr[i + 1].to_usize() {
                if rocm_core::Real::as_f64(self.vals[k].modulus()) > threshold {
                    idx.push(self.idx[k]);
                    vals.push(self.vals[k]);
                }
            }
            ptr.push(idx_of::<I>(idx.len()));
        }
        Compressed {
            nmajor: self.nmajor,
            nminor: self.nminor,
            ptr,
            idx,
            vals,
        }
    }
}

/// Checks a compressed structure: pointer array length, start, monotonicity and end;
/// indices in `0..nminor` and strictly increasing within each major slice. Reports the
/// first violation with its position.
pub(crate) fn check_structure<I: Index>(
    nmajor: usize,
    nminor: usize,
    ptr: &[I],
    idx: &[I],
    names: Names,
) -> Result<()> {
    let (pn, iname, major) = names;
    check_fits::<I>("nrows", nmajor)?;
    check_fits::<I>("ncols", nminor)?;
    if ptr.len() != nmajor + 1 {
        return Err(bad(pn, format!("length {} != {} + 1", ptr.len(), nmajor)));
    }
    check_fits::<I>("nnz", idx.len())?;
    if ptr[0] != idx_of::<I>(0) {
        return Err(bad(pn, format!("{pn}[0] = {} (must be 0)", ptr[0])));
    }
    for i in 0..nmajor {
        if ptr[i + 1] < ptr[i] {
            return Err(bad(
                pn,
                format!(
                    "{pn}[{}] = {} < {pn}[{i}] = {} (must be non-decreasing)",
                    i + 1,
                    ptr[i + 1],
                    ptr[i]
                ),
            ));
        }
    }
    let nnz = idx.len();
    if ptr[nmajor].to_usize() != nnz {
        return Err(bad(
            pn,
            format!("{pn}[{nmajor}] = {} != nnz = {nnz}", ptr[nmajor]),
        ));
    }
    for i in 0..nmajor {
        let (s, e) = (ptr[i].to_usize(), ptr[i + 1].to_usize());
        for k in s..e {
            let j = idx[k];
            match j.try_to_usize() {
                Some(j) if j < nminor => {}
                _ => {
                    return Err(bad(
                        iname,
                        format!("{iname}[{k}] = {j} ({major} {i}) is outside 0..{nminor}"),
                    ))
                }
            }
            if k > s && idx[k] <= idx[k - 1] {
                return Err(bad(
                    iname,
                    format!(
                        "{iname}[{k}] = {j} <= {iname}[{}] = {} in {major} {i} \
                             (indices must be strictly increasing: sorted, no duplicates)",
                        k - 1,
                        idx[k - 1]
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn idx_of<I: Index>(x: usize) -> I {
    idx(x)
}

/// Transposes a compressed structure: returns the transpose's pointers, indices, and for
/// each of its entries the position of that entry in the input (`perm`).
pub(crate) fn transpose_structure<I: Index>(
    nmajor: usize,
    nminor: usize,
    ptr: &[I],
    ind: &[I],
) -> (Vec<I>, Vec<I>, Vec<usize>) {
    let nnz = ind.len();
    let mut count = vec![0usize; nminor + 1];
    for &j in ind {
        count[j.to_usize() + 1] += 1;
    }
    for j in 0..nminor {
        count[j + 1] += count[j];
    }
    let tptr: Vec<I> = count.iter().map(|&c| idx(c)).collect();
    let mut next = count;
    let mut tind = vec![idx_of::<I>(0); nnz];
    let mut perm = vec![0usize; nnz];
    for i in 0..nmajor {
        let (s, e) = (ptr[i].to_usize(), ptr[i + 1].to_usize());
        for (k, jj) in ind.iter().enumerate().take(e).skip(s) {
            let j = jj.to_usize();
            let dst = next[j];
            next[j] += 1;
            tind[dst] = idx(i);
            perm[dst] = k;
        }
    }
    (tptr, tind, perm)
}

/// A sparse matrix in compressed sparse row format.
///
/// `row_ptr` has `nrows + 1` non-decreasing entries from 0 to nnz; the entries of row `i`
/// are `col_idx[row_ptr[i]..row_ptr[i+1]]` (strictly increasing: duplicates are
/// **rejected**) with `values` alongside.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr<I, T> {
    pub(crate) inner: Compressed<I, T>,
}

/// A sparse matrix in compressed sparse column format: the CSR layout of the transpose.
/// Row indices are strictly increasing within each column (duplicates **rejected**).
#[derive(Debug, Clone, PartialEq)]
pub struct Csc<I, T> {
    pub(crate) inner: Compressed<I, T>,
}

impl<I: Index, T: Scalar> Csr<I, T> {
    /// Validates and wraps CSR arrays; the error names the first violated invariant.
    pub fn new(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        Compressed::new(nrows, ncols, row_ptr, col_idx, values, CSR_NAMES)
            .map(|inner| Csr { inner })
    }

    /// Like [`Csr::new`] but rows may be unsorted and hold duplicates: each row is sorted
    /// and duplicates are summed.
    pub fn from_unsorted(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        Compressed::from_unsorted(nrows, ncols, row_ptr, col_idx, values, CSR_NAMES)
            .map(|inner| Csr { inner })
    }

    /// An `nrows × ncols` matrix with no entries.
    pub fn zeros(nrows: usize, ncols: usize) -> Result<Self> {
        Self::new(nrows, ncols, vec![idx(0); nrows + 1], vec![], vec![])
    }

    /// The `n × n` identity.
    pub fn identity(n: usize) -> Result<Self> {
        check_fits::<I>("n", n)?;
        Self::new(
            n,
            n,
            (0..=n).map(idx).collect(),
            (0..n).map(idx).collect(),
            vec![T::one(); n],
        )
    }

    pub(crate) fn from_inner(inner: Compressed<I, T>) -> Self {
        Csr { inner }
    }

    pub fn nrows(&self) -> usize {
        self.inner.nmajor
    }
    pub fn ncols(&self) -> usize {
        self.inner.nminor
    }
    pub fn nnz(&self) -> usize {
        self.inner.nnz()
    }
    pub fn row_ptr(&self) -> &[I] {
        &self.inner.ptr
    }
    pub fn col_idx(&self) -> &[I] {
        &self.inner.idx
    }
    pub fn values(&self) -> &[T] {
        &self.inner.vals
    }
    /// Values may change freely; the structure may not.
    pub fn values_mut(&mut self) -> &mut [T] {
        &mut self.inner.vals
    }
    /// `(row_ptr, col_idx, values)`.
    pub fn into_parts(self) -> (Vec<I>, Vec<I>, Vec<T>) {
        (self.inner.ptr, self.inner.idx, self.inner.vals)
    }
    /// The range of row `i` in `col_idx`/`values`.
    pub fn row_range(&self, i: usize) -> std::ops::Range<usize> {
        self.inner.ptr[i].to_usize()..self.inner.ptr[i + 1].to_usize()
    }

    /// `Aᵀ` in CSR (rocSPARSE `csr2csc` read as a transpose).
    pub fn transpose(&self) -> Self {
        Csr {
            inner: self.inner.transpose(false),
        }
    }
    /// `Aᴴ` in CSR.
    pub fn conj_transpose(&self) -> Self {
        Csr {
            inner: self.inner.transpose(true),
        }
    }
    /// The same matrix in CSC (`csr2csc`).
    pub fn to_csc(&self) -> Csc<I, T> {
        Csc {
            inner: self.inner.transpose(false),
        }
    }
    /// Drops every entry with `|a_ij| <= threshold` (`prune_csr2csr`); `threshold = 0`
    /// drops explicit zeros.
    pub fn prune(&self, threshold: f64) -> Self {
        Csr {
            inner: self.inner.prune(threshold),
        }
    }

    /// The entries as COO, sorted by row then column.
    pub fn to_coo(&self) -> Coo<I, T> {
        let mut rows = Vec::with_capacity(self.nnz());
        for i in 0..self.nrows() {
            rows.extend(std::iter::repeat_n(idx::<I>(i), self.row_range(i).len()));
        }
        Coo::from_valid(
            self.nrows(),
            self.ncols(),
            rows,
            self.inner.idx.clone(),
            self.inner.vals.clone(),
        )
    }

    /// Dense copy, column-major with leading dimension `ld >= nrows`.
    pub fn to_dense_ld(&self, ld: usize) -> Result<Dense<T>> {
        let mut d = Dense::zeros_ld(self.nrows(), self.ncols(), ld)?;
        for i in 0..self.nrows() {
            for k in self.row_range(i) {
                d.set_at(i, self.inner.idx[k].to_usize(), self.inner.vals[k]);
            }
        }
        Ok(d)
    }

    /// The nonzeros of a dense matrix (`dense2csr`; exact zeros are not stored).
    pub fn from_dense(a: &Dense<T>) -> Result<Self> {
        check_fits::<I>("nrows", a.nrows())?;
        check_fits::<I>("ncols", a.ncols())?;
        let mut ptr = vec![idx::<I>(0)];
        let (mut ind, mut vals) = (Vec::new(), Vec::new());
        for i in 0..a.nrows() {
            for j in 0..a.ncols() {
                let v = a.at(i, j);
                if v != T::zero() {
                    ind.push(idx(j));
                    vals.push(v);
                }
            }
            check_fits::<I>("nnz", vals.len())?;
            ptr.push(idx(vals.len()));
        }
        Self::new(a.nrows(), a.ncols(), ptr, ind, vals)
    }
}

impl<I: Index, T: Scalar> Csc<I, T> {
    /// Validates and wraps CSC arrays; the error names the first violated invariant.
    pub fn new(
        nrows: usize,
        ncols: usize,
        col_ptr: Vec<I>,
        row_idx: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        Compressed::new(ncols, nrows, col_ptr, row_idx, values, CSC_NAMES)
            .map(|inner| Csc { inner })
    }
    /// Columns may be unsorted and hold duplicates: sorted, duplicates summed.
    pub fn from_unsorted(
        nrows: usize,
        ncols: usize,
        col_ptr: Vec<I>,
        row_idx: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        Compressed::from_unsorted(ncols, nrows, col_ptr, row_idx, values, CSC_NAMES)
            .map(|inner| Csc { inner })
    }
    pub fn nrows(&self) -> usize {
        self.inner.nminor
    }
    pub fn ncols(&self) -> usize {
        self.inner.nmajor
    }
    pub fn nnz(&self) -> usize {
        self.inner.nnz()
    }
    pub fn col_ptr(&self) -> &[I] {
        &self.inner.ptr
    }
    pub fn row_idx(&self) -> &[I] {
        &self.inner.idx
    }
    pub fn values(&self) -> &[T] {
        &self.inner.vals
    }
    pub fn values_mut(&mut self) -> &mut [T] {
        &mut self.inner.vals
    }
    /// `(col_ptr, row_idx, values)`.
    pub fn into_parts(self) -> (Vec<I>, Vec<I>, Vec<T>) {
        (self.inner.ptr, self.inner.idx, self.inner.vals)
    }
    /// `Aᵀ` as CSR without moving anything: the CSC arrays of A are the CSR arrays of Aᵀ.
    pub fn transpose_as_csr(&self) -> Csr<I, T> {
        Csr {
            inner: self.inner.clone(),
        }
    }
    /// The nonzeros of a dense matrix (`dense2csc`).
    pub fn from_dense(a: &Dense<T>) -> Result<Self> {
        Ok(Csr::from_dense(a)?.to_csc())
    }
}

impl<I: Index, T: Scalar> SparseMatrix<I, T> for Csr<I, T> {
    const FORMAT: Format = Format::Csr;
    fn nrows(&self) -> usize {
        Csr::nrows(self)
    }
    fn ncols(&self) -> usize {
        Csr::ncols(self)
    }
    fn nnz(&self) -> usize {
        Csr::nnz(self)
    }
    fn to_csr(&self) -> Result<Csr<I, T>> {
        Ok(self.clone())
    }
    fn to_csc(&self) -> Result<Csc<I, T>> {
        Ok(Csr::to_csc(self))
    }
}

impl<I: Index, T: Scalar> SparseMatrix<I, T> for Csc<I, T> {
    const FORMAT: Format = Format::Csc;
    fn nrows(&self) -> usize {
        Csc::nrows(self)
    }
    fn ncols(&self) -> usize {
        Csc::ncols(self)
    }
    fn nnz(&self) -> usize {
        Csc::nnz(self)
    }
    fn to_csr(&self) -> Result<Csr<I, T>> {
        Ok(Csr {
            inner: self.inner.transpose(false),
        })
    }
    fn to_csc(&self) -> Result<Csc<I, T>> {
        Ok(self.clone())
    }
}
