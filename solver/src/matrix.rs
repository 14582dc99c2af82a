//! Column-major matrix views over device buffers.
//!
//! A view is a buffer range plus `rows × cols` and a leading dimension; element (i, j)
//! sits at `i + j·ld`. Blocked algorithms carve views into blocks: splitting at a column
//! boundary gives two disjoint mutable views (columns are contiguous ranges), while row
//! blocks of the same columns interleave in memory, so an algorithm that reads one row
//! block while writing another copies the read block into a workspace first (as a GPU
//! implementation does with a device copy).

use crate::staging::{self, HostMut};
use rocm_core::{BufferSlice, BufferSliceMut, Element, Error, Result};
use std::borrow::Cow;

/// Elements a `rows × cols` column-major matrix with leading dimension `ld` spans.
pub(crate) fn extent(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        // Saturates: a leading dimension near 2^64 must not wrap to a small extent
        // that a short buffer passes; `usize::MAX` fits no buffer.
        ld.saturating_mul(cols - 1).saturating_add(rows)
    }
}

/// A read-only matrix view.
pub(crate) struct MatRef<'a, T: Element> {
    pub buf: BufferSlice<'a, T>,
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
}

/// A mutable matrix view.
pub(crate) struct MatMut<'a, T: Element> {
    pub buf: BufferSliceMut<'a, T>,
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
}

fn internal(what: &str) -> Error {
    Error::invalid(
        "matrix view",
        format!("internal block {what} outside the matrix"),
    )
}

impl<'a, T: Element> MatRef<'a, T> {
    pub fn new(buf: BufferSlice<'a, T>, rows: usize, cols: usize, ld: usize) -> Self {
        MatRef {
            buf,
            rows,
            cols,
            ld,
        }
    }

    /// The `rows × cols` block whose top-left element is (i, j).
    pub fn sub(&self, i: usize, j: usize, rows: usize, cols: usize) -> Result<MatRef<'a, T>> {
        if i + rows > self.rows || j + cols > self.cols {
            return Err(internal("read"));
        }
        let off = (i + j * self.ld).min(self.buf.len());
        Ok(MatRef::new(self.buf.slice(off..)?, rows, cols, self.ld))
    }

    /// The view's range on the host (borrowed on the CPU, a copy on a device).
    pub fn host(&self) -> Result<Cow<'a, [T]>> {
        staging::stage(&self.buf, extent(self.rows, self.cols, self.ld))
    }
}

impl<'a, T: Element> MatMut<'a, T> {
    pub fn new(buf: BufferSliceMut<'a, T>, rows: usize, cols: usize, ld: usize) -> Self {
        MatMut {
            buf,
            rows,
            cols,
            ld,
        }
    }

    /// A shorter-lived mutable view of the same matrix.
    pub fn rb(&mut self) -> MatMut<'_, T> {
        MatMut::new(self.buf.reborrow(), self.rows, self.cols, self.ld)
    }

    pub fn as_ref(&self) -> MatRef<'_, T> {
        MatRef::new(self.buf.as_slice(), self.rows, self.cols, self.ld)
    }

    /// Columns `0..j` and `j..cols` as two disjoint views.
    pub fn split_cols(self, j: usize) -> Result<(MatMut<'a, T>, MatMut<'a, T>)> {
        if j > self.cols {
            return Err(internal("column split"));
        }
        let mid = (j * self.ld).min(self.buf.len());
        let (l, r) = self.buf.split_at_mut(mid)?;
        Ok((
            MatMut::new(l, self.rows, j, self.ld),
            MatMut::new(r, self.rows, self.cols - j, self.ld),
        ))
    }

    /// The `rows × cols` block whose top-left element is (i, j), consuming the view.
    pub fn into_sub(self, i: usize, j: usize, rows: usize, cols: usize) -> Result<MatMut<'a, T>> {
        if i + rows > self.rows || j + cols > self.cols {
            return Err(internal("write"));
        }
        let ld = self.ld;
        let off = (i + j * ld).min(self.buf.len());
        let (_, tail) = self.buf.split_at_mut(off)?;
        Ok(MatMut::new(tail, rows, cols, ld))
    }

    /// A mutable block borrowing this view.
    pub fn sub(&mut self, i: usize, j: usize, rows: usize, cols: usize) -> Result<MatMut<'_, T>> {
        self.rb().into_sub(i, j, rows, cols)
    }

    /// The view's range for host writes (in place on the CPU; on a device a copy that
    /// goes back when the guard drops).
    pub fn host(&mut self) -> Result<HostMut<'_, T>> {
        let len = extent(self.rows, self.cols, self.ld);
        staging::stage_mut(&mut self.buf, len)
    }
}
