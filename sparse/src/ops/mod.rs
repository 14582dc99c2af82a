//! Sparse operations in rocSPARSE's staged style.
//!
//! Each operation is a small plan struct: a buffer-size query (`buffer_size`, the bytes
//! the plan will hold), an analysis/preprocess step that inspects only the matrix
//! *structure* and keeps what it learned (partitions, transposed structure, level
//! schedules, the product's pattern), and a `compute` step that may be called many times
//! with new values. Matrices are described by [`SpMat`] (rocSPARSE's `spmat_descr`) and
//! dense operands by [`DnMat`]/[`DnMatMut`] over rocm-core buffers.
//!
//! Execution is on the CPU with rayon; any other device gives [`rocm_core::Error::Unsupported`]
//! naming it (GPU kernels come later through the same plans).

mod partition;
mod precond;
mod sddmm;
mod spgemm;
mod spmm;
mod spmv;
mod spsv;
mod view;

pub use precond::{Ic0, Ilu0};
pub use sddmm::Sddmm;
pub use spgemm::{spgemm, Spgeam, Spgemm};
pub use spmm::Spmm;
pub use spmv::{Spmv, SpmvAlg};
pub use spsv::{Spsm, Spsv};

use crate::format::{Bsr, Coo, Csc, Csr, Ell, Format};
use crate::scalar::{Index, Scalar};
use rocm_core::{BufferSlice, BufferSliceMut, Device, Element, Error, Result};

/// The operation applied to a sparse matrix (`rocsparse_operation`), the triangle a
/// triangular operation reads (`rocsparse_fill_mode`) and whether its diagonal is stored
/// or implied ones (`rocsparse_diag_type`): the one set of rocm-core.
pub use rocm_core::linalg::{Diag, Transpose, Uplo};

/// Layout of a dense matrix (`rocsparse_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Entry (i, j) at `i + j * ld`.
    ColMajor,
    /// Entry (i, j) at `i * ld + j`.
    RowMajor,
}

impl Order {
    #[inline(always)]
    pub(crate) fn offset(self, ld: usize, i: usize, j: usize) -> usize {
        match self {
            Order::ColMajor => i + j * ld,
            Order::RowMajor => i * ld + j,
        }
    }
    fn check(self, nrows: usize, ncols: usize, ld: usize, len: usize) -> Result<()> {
        let (inner, outer) = match self {
            Order::ColMajor => (nrows, ncols),
            Order::RowMajor => (ncols, nrows),
        };
        rocm_core::ensure_arg!(
            ld >= inner.max(1),
            "ld",
            "must be >= {} for a {nrows}x{ncols} {self:?} matrix, got {ld}",
            inner.max(1)
        );
        let need = if nrows == 0 || ncols == 0 {
            0
        } else {
            ld.checked_mul(outer - 1)
                .and_then(|v| v.checked_add(inner))
                .ok_or_else(|| Error::invalid("ld", "ld * size overflows"))?
        };
        rocm_core::ensure_arg!(
            len >= need,
            "dense matrix",
            "buffer holds {len} elements, a {nrows}x{ncols} {self:?} matrix with ld {ld} needs {need}"
        );
        Ok(())
    }
}

/// A sparse matrix descriptor: a borrowed matrix of any format.
#[derive(Debug, Clone, Copy)]
pub enum SpMat<'a, I, T> {
    Coo(&'a Coo<I, T>),
    Csr(&'a Csr<I, T>),
    Csc(&'a Csc<I, T>),
    Bsr(&'a Bsr<I, T>),
    Ell(&'a Ell<I, T>),
}

macro_rules! spmat_from {
    ($($v:ident),*) => {$(
        impl<'a, I, T> From<&'a $v<I, T>> for SpMat<'a, I, T> {
            fn from(m: &'a $v<I, T>) -> Self {
                SpMat::$v(m)
            }
        }
    )*};
}
spmat_from!(Coo, Csr, Csc, Bsr, Ell);

impl<I: Index, T: Scalar> SpMat<'_, I, T> {
    pub fn format(&self) -> Format {
        match self {
            SpMat::Coo(_) => Format::Coo,
            SpMat::Csr(_) => Format::Csr,
            SpMat::Csc(_) => Format::Csc,
            SpMat::Bsr(_) => Format::Bsr,
            SpMat::Ell(_) => Format::Ell,
        }
    }
    pub fn nrows(&self) -> usize {
        match self {
            SpMat::Coo(m) => m.nrows(),
            SpMat::Csr(m) => m.nrows(),
            SpMat::Csc(m) => m.nrows(),
            SpMat::Bsr(m) => m.nrows(),
            SpMat::Ell(m) => m.nrows(),
        }
    }
    pub fn ncols(&self) -> usize {
        match self {
            SpMat::Coo(m) => m.ncols(),
            SpMat::Csr(m) => m.ncols(),
            SpMat::Csc(m) => m.ncols(),
            SpMat::Bsr(m) => m.ncols(),
            SpMat::Ell(m) => m.ncols(),
        }
    }
    /// The raw value array (for BSR and ELL including padding slots).
    pub(crate) fn raw_values(&self) -> &[T] {
        match self {
            SpMat::Coo(m) => m.values(),
            SpMat::Csr(m) => m.values(),
            SpMat::Csc(m) => m.values(),
            SpMat::Bsr(m) => m.values(),
            SpMat::Ell(m) => m.values(),
        }
    }
    /// A fingerprint of the structure a plan was analysed for: format, shape, and the
    /// lengths of the index arrays. Plans check it on compute.
    pub(crate) fn signature(&self) -> (Format, usize, usize, usize) {
        let len = match self {
            SpMat::Coo(m) => m.nnz(),
            SpMat::Csr(m) => m.nnz(),
            SpMat::Csc(m) => m.nnz(),
            SpMat::Bsr(m) => m.values().len(),
            SpMat::Ell(m) => m.values().len(),
        };
        (self.format(), self.nrows(), self.ncols(), len)
    }
}

/// A dense matrix operand over a device buffer.
#[derive(Debug, Clone, Copy)]
pub struct DnMat<'a, T: Element> {
    nrows: usize,
    ncols: usize,
    ld: usize,
    order: Order,
    data: BufferSlice<'a, T>,
}

impl<'a, T: Element> DnMat<'a, T> {
    /// Validates `ld` against the shape and the buffer length.
    pub fn new(
        nrows: usize,
        ncols: usize,
        ld: usize,
        order: Order,
        data: BufferSlice<'a, T>,
    ) -> Result<Self> {
        order.check(nrows, ncols, ld, data.len())?;
        Ok(DnMat {
            nrows,
            ncols,
            ld,
            order,
            data,
        })
    }
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    pub(crate) fn host(&self, op: &str) -> Result<HostMat<'a, T>> {
        Ok(HostMat {
            nrows: self.nrows,
            ncols: self.ncols,
            ld: self.ld,
            order: self.order,
            data: host(&self.data, op)?,
        })
    }
}

/// A mutable dense matrix operand over a device buffer.
#[derive(Debug)]
pub struct DnMatMut<'a, T: Element> {
    nrows: usize,
    ncols: usize,
    ld: usize,
    order: Order,
    data: BufferSliceMut<'a, T>,
}

impl<'a, T: Element> DnMatMut<'a, T> {
    /// Validates `ld` against the shape and the buffer length.
    pub fn new(
        nrows: usize,
        ncols: usize,
        ld: usize,
        order: Order,
        data: BufferSliceMut<'a, T>,
    ) -> Result<Self> {
        order.check(nrows, ncols, ld, data.len())?;
        Ok(DnMatMut {
            nrows,
            ncols,
            ld,
            order,
            data,
        })
    }
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    pub(crate) fn host_mut(&mut self, op: &str) -> Result<HostMatMut<'_, T>> {
        let (ld, order) = (self.ld, self.order);
        Ok(HostMatMut {
            ld,
            order,
            data: host_mut(&mut self.data, op)?,
        })
    }
}

/// Host view of a dense operand.
#[derive(Clone, Copy)]
pub(crate) struct HostMat<'a, T> {
    pub nrows: usize,
    pub ncols: usize,
    pub ld: usize,
    pub order: Order,
    pub data: &'a [T],
}

impl<T: Copy> HostMat<'_, T> {
    #[inline(always)]
    pub fn at(&self, i: usize, j: usize) -> T {
        self.data[self.order.offset(self.ld, i, j)]
    }
}

pub(crate) struct HostMatMut<'a, T> {
    pub ld: usize,
    pub order: Order,
    pub data: &'a mut [T],
}

/// Host memory of a buffer on the CPU device; `Unsupported` naming any other device.
pub(crate) fn host<'a, T: Element>(s: &BufferSlice<'a, T>, op: &str) -> Result<&'a [T]> {
    if !s.device().is_cpu() {
        return Err(Error::unsupported(op, s.device()));
    }
    s.as_host()
        .ok_or_else(|| Error::unsupported(op, s.device()))
}

/// Mutable host memory of a buffer on the CPU device.
pub(crate) fn host_mut<'s, T: Element>(
    s: &'s mut BufferSliceMut<'_, T>,
    op: &str,
) -> Result<&'s mut [T]> {
    if !s.device().is_cpu() {
        return Err(Error::unsupported(op, s.device()));
    }
    let dev = s.device().to_string();
    s.as_host_mut().ok_or_else(|| Error::unsupported(op, dev))
}

/// Plans are made for one device; only the CPU runs them for now.
pub(crate) fn check_device(device: &Device, op: &str) -> Result<()> {
    if device.is_cpu() {
        Ok(())
    } else {
        Err(Error::unsupported(op, device))
    }
}

pub(crate) fn check_len(what: &str, got: usize, want: usize) -> Result<()> {
    rocm_core::ensure_arg!(got == want, what, "length {got}, expected {want}");
    Ok(())
}

/// `alpha * s + beta * y`, not reading `y` when `beta == 0` (so NaN in `y` is ignored, as
/// in BLAS).
#[inline(always)]
pub(crate) fn axpby<T: Scalar>(alpha: T, s: T, beta: T, y: T) -> T {
    if beta == T::zero() {
        alpha * s
    } else {
        alpha * s + beta * y
    }
}
