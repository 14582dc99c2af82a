//! Sparse storage formats: [`Coo`], [`Csr`], [`Csc`], [`Bsr`], [`Ell`], and column-major
//! [`Dense`] matrices.
//!
//! Every format is one generic over the index type `I` ([`Index`]: i32, i64) and the value
//! type `T` ([`Scalar`]: f32, f64, Complex32, Complex64). Indices are 0-based.
//! Constructors validate every invariant and report the *first* violation with its
//! position; fields are private afterwards, so a constructed matrix is always valid and
//! kernels can rely on in-bounds indices.
//!
//! Duplicates: [`Coo`] accepts any order and duplicate coordinates (they are **summed**
//! on conversion and in every operation); [`Csr`], [`Csc`], [`Bsr`] and [`Ell`] require
//! strictly increasing indices within a row/column and so **reject** duplicates;
//! [`Csr::from_unsorted`] sorts and sums instead.
//!
//! Conversions between every pair of formats go through [`SparseMatrix::to_csr`] (each
//! format's direct conversion to and from CSR) and are exact: no value is rounded.

mod bsr;
pub(crate) mod compressed;
mod coo;
mod dense;
mod ell;

pub use bsr::{BlockLayout, Bsr};
pub use compressed::{Csc, Csr};
pub use coo::Coo;
pub use dense::Dense;
pub use ell::Ell;

use crate::scalar::{Index, Scalar};
use rocm_core::Result;

/// The format tag of a sparse matrix (rocSPARSE's `rocsparse_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Coo,
    Csr,
    Csc,
    Bsr,
    Ell,
}

/// What every sparse format offers: its shape, its stored entries, and exact conversion to
/// CSR and dense. The other conversions are provided on top.
pub trait SparseMatrix<I: Index, T: Scalar> {
    /// The format tag.
    const FORMAT: Format;
    fn nrows(&self) -> usize;
    fn ncols(&self) -> usize;
    /// Number of stored entries (for BSR every entry of every stored block, for ELL every
    /// non-padding slot).
    fn nnz(&self) -> usize;
    /// The same matrix in CSR; duplicates (COO) are summed, explicit zeros are kept.
    fn to_csr(&self) -> Result<Csr<I, T>>;

    /// The same matrix in COO, sorted by row then column.
    fn to_coo(&self) -> Result<Coo<I, T>> {
        Ok(self.to_csr()?.to_coo())
    }
    /// The same matrix in CSC.
    fn to_csc(&self) -> Result<Csc<I, T>> {
        Ok(self.to_csr()?.to_csc())
    }
    /// The same matrix in BSR with square `block_dim` blocks laid out per `layout`.
    fn to_bsr(&self, block_dim: usize, layout: BlockLayout) -> Result<Bsr<I, T>> {
        Bsr::from_csr(&self.to_csr()?, block_dim, layout)
    }
    /// The same matrix in ELL, width = the longest row.
    fn to_ell(&self) -> Result<Ell<I, T>> {
        Ell::from_csr(&self.to_csr()?)
    }
    /// The same matrix dense, column-major with leading dimension `nrows`.
    fn to_dense(&self) -> Result<Dense<T>> {
        self.to_csr()?.to_dense_ld(self.nrows().max(1))
    }
}

pub(crate) fn bad(what: &str, why: impl std::fmt::Display) -> rocm_core::Error {
    rocm_core::Error::invalid(what, why)
}

/// Converts a validated index vector position to `I` (the caller checked the size fits).
pub(crate) fn idx<I: Index>(x: usize) -> I {
    I::from_usize(x)
}
