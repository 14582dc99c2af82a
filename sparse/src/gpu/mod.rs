//! Sparse matrices resident on a GPU and the operations run on them with generated
//! kernels (written once in the kernel language, lowered to PTX or AMDGPU).
//!
//! - [`DeviceCsr`]: a CSR matrix's three arrays in device memory, uploaded from and
//!   downloaded to the host [`Csr`], with the row-length statistics the analyses use.
//! - [`spmv`]: CSR SpMV `y = alpha·A·x + beta·y` (op N) in rocSPARSE's staged style:
//!   [`spmv::CsrSpmv::analysis`] picks a kernel from the row lengths, `compute` runs
//!   its plan through [`rocm_kernels::exec::execute`].

pub mod spmv;

use crate::format::Csr;
use crate::scalar::{Index, Scalar};
use rocm_core::{BufferSlice, DType, Device, DeviceBuffer, Error, Result};

/// Row-length statistics of a CSR structure, computed on the host when the matrix is
/// uploaded (the analysis reads them instead of the device arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RowStats {
    pub rows: usize,
    pub nnz: usize,
    /// The longest row's nonzeros.
    pub max_len: usize,
    /// Rows without nonzeros.
    pub empty_rows: usize,
}

impl RowStats {
    /// Statistics of validated row pointers.
    pub fn of<I: Index>(row_ptr: &[I]) -> RowStats {
        let lens = row_ptr
            .windows(2)
            .map(|w| w[1].to_usize() - w[0].to_usize());
        let (max_len, empty_rows) =
            lens.fold((0, 0), |(m, e), l| (m.max(l), e + usize::from(l == 0)));
        RowStats {
            rows: row_ptr.len().saturating_sub(1),
            nnz: row_ptr.last().map_or(0, |p| p.to_usize()),
            max_len,
            empty_rows,
        }
    }

    /// Mean nonzeros per row (0 for a matrix without rows).
    pub fn mean_len(&self) -> f64 {
        if self.rows == 0 {
            0.0
        } else {
            self.nnz as f64 / self.rows as f64
        }
    }
}

/// The value types the GPU kernels support (f32, f64), as the kernel language's scalar.
pub(crate) fn value_scalar<T: Scalar>(op: &str) -> Result<rocm_kernels::lang::Scalar> {
    match T::DTYPE {
        DType::F32 => Ok(rocm_kernels::lang::Scalar::F32),
        DType::F64 => Ok(rocm_kernels::lang::Scalar::F64),
        d => Err(Error::unsupported(
            format!("{op} on GPUs with {d} values (f32 and f64 are supported)"),
            "gpu",
        )),
    }
}

/// The index types the GPU kernels support (i32, i64), as the kernel language's scalar.
pub(crate) fn index_scalar<I: Index>() -> rocm_kernels::lang::Scalar {
    match I::DTYPE {
        DType::I64 => rocm_kernels::lang::Scalar::I64,
        _ => rocm_kernels::lang::Scalar::I32,
    }
}

/// A CSR matrix in device memory: `row_ptr` (`nrows + 1`), `col_idx` and `values`
/// (`nnz` each), with the same invariants as the host [`Csr`] (it is only made from one).
pub struct DeviceCsr<I: Index, T: Scalar> {
    nrows: usize,
    ncols: usize,
    row_ptr: DeviceBuffer<I>,
    col_idx: DeviceBuffer<I>,
    values: DeviceBuffer<T>,
    stats: RowStats,
}

impl<I: Index, T: Scalar> DeviceCsr<I, T> {
    /// Uploads `a` to `device` (validated by [`Csr`]'s constructors already).
    pub fn upload(device: &Device, a: &Csr<I, T>) -> Result<Self> {
        Ok(DeviceCsr {
            nrows: a.nrows(),
            ncols: a.ncols(),
            row_ptr: DeviceBuffer::from_slice(device, a.row_ptr())?,
            col_idx: DeviceBuffer::from_slice(device, a.col_idx())?,
            values: DeviceBuffer::from_slice(device, a.values())?,
            stats: RowStats::of(a.row_ptr()),
        })
    }

    /// Validates the raw arrays (row pointers start at 0, never decrease and end at
    /// nnz; column indices in range and increasing within each row; the error names
    /// the row or entry) and uploads them.
    pub fn from_parts(
        device: &Device,
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        values: Vec<T>,
    ) -> Result<Self> {
        let a = Csr::new(nrows, ncols, row_ptr, col_idx, values)?;
        Self::upload(device, &a)
    }

    /// Downloads the matrix, validating the arrays read back as [`Csr::new`] does.
    pub fn download(&self) -> Result<Csr<I, T>> {
        Csr::new(
            self.nrows,
            self.ncols,
            self.row_ptr.to_vec()?,
            self.col_idx.to_vec()?,
            self.values.to_vec()?,
        )
    }

    pub fn nrows(&self) -> usize {
        self.nrows
    }
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    pub fn nnz(&self) -> usize {
        self.stats.nnz
    }
    pub fn device(&self) -> &Device {
        self.values.device()
    }
    pub fn stats(&self) -> RowStats {
        self.stats
    }
    pub fn row_ptr(&self) -> BufferSlice<'_, I> {
        self.row_ptr.as_slice()
    }
    pub fn col_idx(&self) -> BufferSlice<'_, I> {
        self.col_idx.as_slice()
    }
    pub fn values(&self) -> BufferSlice<'_, T> {
        self.values.as_slice()
    }
}
