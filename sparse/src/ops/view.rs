//! The row structure of `op(A)` for any format: the common input of the row kernels.
//!
//! For CSR with `Transpose::N` (and CSC with `Transpose::T`/`Transpose::C`) the matrix's own arrays are
//! already that structure. Every other case is analysed once into a [`RowView`]: the CSR
//! structure of `op(A)` plus, for each entry, the position of its value in the matrix's
//! value array, so `compute` can gather new values without redoing the analysis.

use super::{SpMat, Transpose};
use crate::scalar::{Index, Scalar};
use rayon::prelude::*;
use std::borrow::Cow;

/// CSR structure of `op(A)` with value positions.
#[derive(Debug, Clone)]
pub(crate) struct RowView<I> {
    pub ptr: Vec<I>,
    pub idx: Vec<I>,
    /// `perm[k]`: where entry `k`'s value lives in the matrix's value array.
    pub perm: Vec<usize>,
}

/// How a plan reads `op(A)` row by row.
#[derive(Debug, Clone)]
pub(crate) enum Rows<I> {
    /// The matrix's own compressed arrays (CSR N, CSC T/C); `conj` for CSC C.
    Own { conj: bool },
    /// A rebuilt structure; `conj` for `Transpose::C`.
    View { view: RowView<I>, conj: bool },
}

/// Calls `f(i, j, pos)` for every stored entry (i, j) of `a` with its value position.
fn for_each_entry<I: Index, T: Scalar>(
    a: &SpMat<'_, I, T>,
    mut f: impl FnMut(usize, usize, usize),
) {
    match a {
        SpMat::Coo(m) => {
            for (k, (r, c)) in m.row_idx().iter().zip(m.col_idx()).enumerate() {
                f(r.to_usize(), c.to_usize(), k);
            }
        }
        SpMat::Csr(m) => {
            for i in 0..m.nrows() {
                for k in m.row_range(i) {
                    f(i, m.col_idx()[k].to_usize(), k);
                }
            }
        }
        SpMat::Csc(m) => {
            for j in 0..m.ncols() {
                for k in m.col_ptr()[j].to_usize()..m.col_ptr()[j + 1].to_usize() {
                    f(m.row_idx()[k].to_usize(), j, k);
                }
            }
        }
        SpMat::Bsr(m) => {
            let (bd, bb) = (m.block_dim(), m.block_dim() * m.block_dim());
            for bi in 0..m.mb() {
                for k in m.block_range(bi) {
                    let bj = m.block_col_idx()[k].to_usize();
                    for r in 0..bd {
                        for c in 0..bd {
                            let (i, j) = (bi * bd + r, bj * bd + c);
                            if i < m.nrows() && j < m.ncols() {
                                f(i, j, k * bb + m.layout().offset(bd, r, c));
                            }
                        }
                    }
                }
            }
        }
        SpMat::Ell(m) => {
            let n = m.nrows();
            for (p, j) in m.col_idx().iter().enumerate() {
                if *j != I::PAD {
                    f(p % n.max(1), j.to_usize(), p);
                }
            }
        }
    }
}

impl<I: Index> RowView<I> {
    /// The CSR structure of `op(a)` (counting sort of the entries by output row; within a
    /// row entries keep the input order, which is all the kernels need).
    pub fn build<T: Scalar>(a: &SpMat<'_, I, T>, op: Transpose) -> Self {
        let tr = op != Transpose::N;
        let m = if tr { a.ncols() } else { a.nrows() };
        let mut count = vec![0usize; m + 1];
        for_each_entry(a, |i, j, _| count[if tr { j } else { i } + 1] += 1);
        for r in 0..m {
            count[r + 1] += count[r];
        }
        let nnz = count[m];
        let ptr: Vec<I> = count.iter().map(|&c| I::from_usize(c)).collect();
        let mut next = count;
        let mut idx = vec![I::from_usize(0); nnz];
        let mut perm = vec![0usize; nnz];
        for_each_entry(a, |i, j, k| {
            let (r, c) = if tr { (j, i) } else { (i, j) };
            let d = next[r];
            next[r] += 1;
            idx[d] = I::from_usize(c);
            perm[d] = k;
        });
        RowView { ptr, idx, perm }
    }
}

impl<I: Index> Rows<I> {
    /// Analyses `op(a)`.
    pub fn analyse<T: Scalar>(a: &SpMat<'_, I, T>, op: Transpose) -> Self {
        match (a, op) {
            (SpMat::Csr(_), Transpose::N) => Rows::Own { conj: false },
            (SpMat::Csc(_), Transpose::T) => Rows::Own { conj: false },
            (SpMat::Csc(_), Transpose::C) => Rows::Own { conj: true },
            _ => Rows::View {
                view: RowView::build(a, op),
                conj: op == Transpose::C,
            },
        }
    }

    /// `(ptr, idx, values)` of `op(a)`; values are gathered (and conjugated) when needed.
    pub fn arrays<'s, T: Scalar>(
        &'s self,
        a: &'s SpMat<'s, I, T>,
    ) -> (&'s [I], &'s [I], Cow<'s, [T]>) {
        let conj_all =
            |v: &[T]| -> Cow<'s, [T]> { Cow::Owned(v.par_iter().map(|x| x.conj()).collect()) };
        match self {
            Rows::Own { conj } => {
                let (p, i, v) = match a {
                    SpMat::Csr(m) => (m.row_ptr(), m.col_idx(), m.values()),
                    SpMat::Csc(m) => (m.col_ptr(), m.row_idx(), m.values()),
                    // analyse() only returns Own for CSR and CSC.
                    _ => (&[][..], &[][..], &[][..]),
                };
                let v = if *conj && T::IS_COMPLEX {
                    conj_all(v)
                } else {
                    Cow::Borrowed(v)
                };
                (p, i, v)
            }
            Rows::View { view, conj } => {
                let raw = a.raw_values();
                let vals: Vec<T> = if *conj {
                    view.perm.par_iter().map(|&k| raw[k].conj()).collect()
                } else {
                    view.perm.par_iter().map(|&k| raw[k]).collect()
                };
                (&view.ptr, &view.idx, Cow::Owned(vals))
            }
        }
    }

    /// The row pointers of `op(a)`.
    pub fn ptr<'s, T: Scalar>(&'s self, a: &'s SpMat<'s, I, T>) -> &'s [I] {
        self.structure(a).0
    }

    /// The row pointers and column indices of `op(a)`.
    pub fn structure<'s, T: Scalar>(&'s self, a: &'s SpMat<'s, I, T>) -> (&'s [I], &'s [I]) {
        match (self, a) {
            (Rows::View { view, .. }, _) => (&view.ptr, &view.idx),
            (Rows::Own { .. }, SpMat::Csr(m)) => (m.row_ptr(), m.col_idx()),
            (Rows::Own { .. }, SpMat::Csc(m)) => (m.col_ptr(), m.row_idx()),
            // analyse() only returns Own for CSR and CSC; callers treat an empty pointer
            // array as a matrix without rows.
            _ => (&[], &[]),
        }
    }
}

/// The number of rows and columns of `op(A)`.
pub(crate) fn op_shape<I: Index, T: Scalar>(a: &SpMat<'_, I, T>, op: Transpose) -> (usize, usize) {
    if op == Transpose::N {
        (a.nrows(), a.ncols())
    } else {
        (a.ncols(), a.nrows())
    }
}
