//! Strided matrix views over host memory, for the blocked CPU Level 2/3 kernels.
//!
//! A view is (pointer, rows, cols, row stride, column stride), like faer's `MatRef` /
//! `MatMut`: transposing swaps the strides, a sub-block moves the pointer, and splitting a
//! mutable view by rows or columns yields two views of disjoint elements. That lets a
//! blocked algorithm read one block of a matrix while it updates another block of the same
//! matrix (trsm's `B₂ −= A₂₁·X₁`), and hand disjoint column panels to rayon, without
//! copies. The views are created from slices whose extent the front end checked, and every
//! element access asserts its index, so a bug here panics instead of reading out of bounds.

use crate::check::matrix_extent;
use std::marker::PhantomData;

/// A read-only strided view of a `rows × cols` matrix.
#[derive(Debug)]
pub(crate) struct MatRef<'a, T> {
    ptr: *const T,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
    _borrow: PhantomData<&'a [T]>,
}

impl<T> Clone for MatRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for MatRef<'_, T> {}

// SAFETY: a MatRef is a shared borrow of the elements it spans (like `&[T]`), so it may
// cross threads whenever `&[T]` may.
unsafe impl<T: Sync> Send for MatRef<'_, T> {}
// SAFETY: as above; it only ever reads.
unsafe impl<T: Sync> Sync for MatRef<'_, T> {}

/// A mutable strided view; distinct `MatMut`s never share an element.
#[derive(Debug)]
pub(crate) struct MatMut<'a, T> {
    ptr: *mut T,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a MatMut is an exclusive borrow of the elements it spans (like `&mut [T]`);
// splitting hands out disjoint element sets, so moving one to another thread is as sound
// as moving a `&mut [T]`.
unsafe impl<T: Send> Send for MatMut<'_, T> {}
// SAFETY: shared access to a MatMut only reads (through `rb`).
unsafe impl<T: Sync> Sync for MatMut<'_, T> {}

#[inline]
fn offset(i: usize, j: usize, rs: isize, cs: isize) -> isize {
    i as isize * rs + j as isize * cs
}

impl<'a, T: Copy> MatRef<'a, T> {
    /// The column-major `rows × cols` matrix with leading dimension `ld` at the start of `s`.
    pub fn new(s: &'a [T], rows: usize, cols: usize, ld: usize) -> Self {
        assert!(
            s.len() >= matrix_extent(rows, cols, ld),
            "view exceeds its slice"
        );
        MatRef {
            ptr: s.as_ptr(),
            rows,
            cols,
            rs: 1,
            cs: ld as isize,
            _borrow: PhantomData,
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }
    pub fn cols(&self) -> usize {
        self.cols
    }
    pub fn row_stride(&self) -> isize {
        self.rs
    }
    pub fn col_stride(&self) -> isize {
        self.cs
    }
    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }

    /// The transpose (same elements, strides swapped).
    pub fn t(self) -> Self {
        MatRef {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    /// Element (i, j).
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> T {
        assert!(i < self.rows && j < self.cols);
        // SAFETY: (i, j) is inside the view, and every element of the view lies inside the
        // slice it was created from (checked by `new`, preserved by `sub`).
        unsafe { *self.ptr.offset(offset(i, j, self.rs, self.cs)) }
    }

    /// The `r × c` block at (i, j).
    pub fn sub(self, i: usize, j: usize, r: usize, c: usize) -> Self {
        assert!(i + r <= self.rows && j + c <= self.cols);
        MatRef {
            ptr: self.ptr.wrapping_offset(offset(i, j, self.rs, self.cs)),
            rows: r,
            cols: c,
            ..self
        }
    }
}

impl<'a, T: Copy> MatMut<'a, T> {
    /// The column-major `rows × cols` matrix with leading dimension `ld` at the start of `s`.
    pub fn new(s: &'a mut [T], rows: usize, cols: usize, ld: usize) -> Self {
        assert!(
            s.len() >= matrix_extent(rows, cols, ld),
            "view exceeds its slice"
        );
        MatMut {
            ptr: s.as_mut_ptr(),
            rows,
            cols,
            rs: 1,
            cs: ld as isize,
            _borrow: PhantomData,
        }
    }

    /// A column vector of `n` contiguous elements.
    pub fn col_vec(s: &'a mut [T], n: usize) -> Self {
        Self::new(s, n, 1, n.max(1))
    }

    pub fn rows(&self) -> usize {
        self.rows
    }
    pub fn cols(&self) -> usize {
        self.cols
    }
    pub fn row_stride(&self) -> isize {
        self.rs
    }
    pub fn col_stride(&self) -> isize {
        self.cs
    }
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr
    }

    /// A read-only view of the same elements, borrowing this one.
    pub fn rb(&self) -> MatRef<'_, T> {
        MatRef {
            ptr: self.ptr,
            rows: self.rows,
            cols: self.cols,
            rs: self.rs,
            cs: self.cs,
            _borrow: PhantomData,
        }
    }

    /// A shorter-lived mutable view of the same elements.
    pub fn rb_mut(&mut self) -> MatMut<'_, T> {
        MatMut {
            ptr: self.ptr,
            rows: self.rows,
            cols: self.cols,
            rs: self.rs,
            cs: self.cs,
            _borrow: PhantomData,
        }
    }

    /// The transpose (same elements, strides swapped).
    pub fn t(self) -> Self {
        MatMut {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    #[inline]
    pub fn get(&self, i: usize, j: usize) -> T {
        self.rb().get(i, j)
    }

    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: T) {
        assert!(i < self.rows && j < self.cols);
        // SAFETY: (i, j) is inside the view, whose elements lie in the exclusively borrowed
        // slice it came from.
        unsafe { *self.ptr.offset(offset(i, j, self.rs, self.cs)) = v }
    }

    /// The `r × c` block at (i, j).
    pub fn sub(self, i: usize, j: usize, r: usize, c: usize) -> Self {
        assert!(i + r <= self.rows && j + c <= self.cols);
        MatMut {
            ptr: self.ptr.wrapping_offset(offset(i, j, self.rs, self.cs)),
            rows: r,
            cols: c,
            ..self
        }
    }

    /// Rows `..k` and `k..`: disjoint elements.
    pub fn split_rows(self, k: usize) -> (Self, Self) {
        let (rows, cols) = (self.rows, self.cols);
        let top = MatMut { ..self };
        (top.sub(0, 0, k, cols), self.sub(k, 0, rows - k, cols))
    }

    /// Columns `..k` and `k..`: disjoint elements.
    pub fn split_cols(self, k: usize) -> (Self, Self) {
        let (rows, cols) = (self.rows, self.cols);
        let left = MatMut { ..self };
        (left.sub(0, 0, rows, k), self.sub(0, k, rows, cols - k))
    }

    /// Splits into column panels of at most `width` columns each.
    pub fn col_panels(self, width: usize) -> Vec<Self> {
        let width = width.max(1);
        let mut out = Vec::with_capacity(self.cols.div_ceil(width));
        let mut rest = self;
        while rest.cols > width {
            let (head, tail) = rest.split_cols(width);
            out.push(head);
            rest = tail;
        }
        out.push(rest);
        out
    }

    /// Column j as a contiguous mutable slice when the row stride is 1.
    pub fn col_slice_mut(&mut self, j: usize) -> Option<&mut [T]> {
        if self.rs != 1 || j >= self.cols {
            return None;
        }
        // SAFETY: with unit row stride column j is `rows` consecutive elements of the
        // exclusively borrowed view.
        Some(unsafe {
            std::slice::from_raw_parts_mut(self.ptr.offset(offset(0, j, 1, self.cs)), self.rows)
        })
    }
}
