//! Column-major dense matrices with a leading dimension (BLAS/rocSPARSE layout).

use super::bad;
use crate::scalar::Scalar;
use rocm_core::Result;

/// An `nrows × ncols` column-major matrix: entry (i, j) at `data[i + j * ld]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dense<T> {
    nrows: usize,
    ncols: usize,
    ld: usize,
    data: Vec<T>,
}

/// Minimum storage length for a column-major matrix.
pub(crate) fn min_len(nrows: usize, ncols: usize, ld: usize) -> usize {
    if nrows == 0 || ncols == 0 {
        0
    } else {
        ld * (ncols - 1) + nrows
    }
}

impl<T: Scalar> Dense<T> {
    /// Wraps column-major data; `ld >= max(1, nrows)` and `data` must cover every column.
    pub fn new(nrows: usize, ncols: usize, ld: usize, data: Vec<T>) -> Result<Self> {
        rocm_core::ensure_arg!(
            ld >= nrows.max(1),
            "ld",
            "must be >= max(1, nrows) = {}, got {ld}",
            nrows.max(1)
        );
        let need = ld
            .checked_mul(ncols.saturating_sub(1))
            .and_then(|x| x.checked_add(nrows))
            .ok_or_else(|| bad("ld", "ld * ncols overflows"))?;
        let need = if ncols == 0 || nrows == 0 { 0 } else { need };
        rocm_core::ensure_arg!(
            data.len() >= need,
            "data",
            "length {} < {need} needed for {nrows}x{ncols} with ld {ld}",
            data.len()
        );
        Ok(Dense {
            nrows,
            ncols,
            ld,
            data,
        })
    }
    /// Zeros, leading dimension `nrows`.
    pub fn zeros(nrows: usize, ncols: usize) -> Self {
        Dense {
            nrows,
            ncols,
            ld: nrows.max(1),
            data: vec![T::zero(); nrows * ncols],
        }
    }
    /// Zeros with a given leading dimension.
    pub fn zeros_ld(nrows: usize, ncols: usize, ld: usize) -> Result<Self> {
        let len = min_len(nrows, ncols, ld.max(1));
        Self::new(nrows, ncols, ld, vec![T::zero(); len])
    }
    /// From a row-major closure.
    pub fn from_fn(nrows: usize, ncols: usize, mut f: impl FnMut(usize, usize) -> T) -> Self {
        let mut d = Self::zeros(nrows, ncols);
        for j in 0..ncols {
            for i in 0..nrows {
                d.set_at(i, j, f(i, j));
            }
        }
        d
    }
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    pub fn ld(&self) -> usize {
        self.ld
    }
    pub fn data(&self) -> &[T] {
        &self.data
    }
    pub fn into_data(self) -> Vec<T> {
        self.data
    }
    /// Entry (i, j), `None` outside `nrows × ncols`.
    pub fn get(&self, i: usize, j: usize) -> Option<T> {
        (i < self.nrows && j < self.ncols).then(|| self.data[i + j * self.ld])
    }
    /// Sets entry (i, j); an error outside `nrows × ncols`.
    pub fn set(&mut self, i: usize, j: usize, v: T) -> Result<()> {
        rocm_core::ensure_arg!(
            i < self.nrows && j < self.ncols,
            "(i, j)",
            "({i}, {j}) is outside {}x{}",
            self.nrows,
            self.ncols
        );
        self.set_at(i, j, v);
        Ok(())
    }
    /// Entry (i, j) for in-bounds positions (crate-internal).
    pub(crate) fn at(&self, i: usize, j: usize) -> T {
        self.data[i + j * self.ld]
    }
    pub(crate) fn set_at(&mut self, i: usize, j: usize, v: T) {
        self.data[i + j * self.ld] = v;
    }
    /// Whether the logical entries are equal (padding ignored).
    pub fn same_entries(&self, other: &Self) -> bool {
        self.nrows == other.nrows
            && self.ncols == other.ncols
            && (0..self.ncols).all(|j| (0..self.nrows).all(|i| self.at(i, j) == other.at(i, j)))
    }
}
