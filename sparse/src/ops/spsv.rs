//! Triangular solves: SpSV (`op(T) y = alpha x`) and SpSM (`op(T) C = alpha B`), where `T`
//! is the `fill` triangle of a sparse `A` (the other triangle is ignored) with its stored
//! diagonal or, for [`Diag::Unit`], ones.
//!
//! The analysis builds a level schedule of `op(T)`: row `r`'s level is one more than the
//! highest level among the rows it depends on. Rows of one level are independent and are
//! solved in parallel; levels run in order.

use super::view::{op_shape, Rows};
use super::{
    check_device, check_len, host, host_mut, Diag, DnMat, DnMatMut, SpMat, Transpose, Uplo,
};
use crate::format::Format;
use crate::scalar::{Index, Scalar};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, Device, Error, Result};

const OP: &str = "sparse spsv";

/// Levels with fewer rows than this are solved serially (no fork/join overhead).
const PARALLEL_LEVEL: usize = 512;

/// An analysed triangular solve.
#[derive(Debug, Clone)]
pub struct Spsv<I> {
    op: Transpose,
    diag: Diag,
    /// Whether the triangle of `op(A)` used is the lower one.
    lower: bool,
    sig: (Format, usize, usize, usize),
    rows: Rows<I>,
    /// Rows grouped by level: `order[level_ptr[l]..level_ptr[l+1]]`.
    order: Vec<usize>,
    level_ptr: Vec<usize>,
    zero_pivot: Option<usize>,
}

impl<I: Index> Spsv<I> {
    /// Bytes the analysis will hold.
    pub fn buffer_size<T: Scalar>(op: Transpose, a: SpMat<'_, I, T>) -> usize {
        super::Spmv::<I>::buffer_size(op, a) + (2 * a.nrows() + 1) * std::mem::size_of::<usize>()
    }

    /// Analysis: row structure of `op(A)`, level schedule, and the first row without a
    /// stored diagonal (a structural zero pivot, for [`Diag::NonUnit`]).
    pub fn analysis<T: Scalar>(
        device: &Device,
        op: Transpose,
        fill: Uplo,
        diag: Diag,
        a: SpMat<'_, I, T>,
    ) -> Result<Self> {
        check_device(device, OP)?;
        rocm_core::ensure_arg!(
            a.nrows() == a.ncols(),
            "A",
            "must be square, is {}x{}",
            a.nrows(),
            a.ncols()
        );
        let n = a.nrows();
        let lower = (fill == Uplo::Lower) == (op == Transpose::N);
        let rows = Rows::analyse(&a, op);
        let (ptr, idx) = rows.structure(&a);
        let mut level = vec![0usize; n];
        let mut zero_pivot = None;
        let mut has_diag = vec![false; n];
        let visit: Box<dyn Iterator<Item = usize>> = if lower {
            Box::new(0..n)
        } else {
            Box::new((0..n).rev())
        };
        for r in visit {
            let mut l = 0;
            for &c in &idx[ptr[r].to_usize()..ptr[r + 1].to_usize()] {
                let c = c.to_usize();
                if c == r {
                    has_diag[r] = true;
                } else if (c < r) == lower {
                    l = l.max(level[c] + 1);
                }
            }
            level[r] = l;
        }
        if diag == Diag::NonUnit {
            zero_pivot = has_diag.iter().position(|&d| !d);
        }
        let nlev = level.iter().max().map_or(0, |m| m + 1);
        let mut level_ptr = vec![0usize; nlev + 1];
        for &l in &level {
            level_ptr[l + 1] += 1;
        }
        for l in 0..nlev {
            level_ptr[l + 1] += level_ptr[l];
        }
        let mut next = level_ptr.clone();
        let mut order = vec![0usize; n];
        for (r, &l) in level.iter().enumerate() {
            order[next[l]] = r;
            next[l] += 1;
        }
        Ok(Spsv {
            op,
            diag,
            lower,
            sig: a.signature(),
            rows,
            order,
            level_ptr,
            zero_pivot,
        })
    }

    /// The first row whose diagonal is not stored (non-unit solves only), as found by the
    /// analysis (`rocsparse_spsv_zero_pivot`).
    pub fn zero_pivot(&self) -> Option<usize> {
        self.zero_pivot
    }

    /// Number of levels of the schedule (the length of the critical path).
    pub fn levels(&self) -> usize {
        self.level_ptr.len() - 1
    }

    /// Solves `op(T) y = alpha x`. A zero pivot (structural or a stored zero) is an error
    /// naming the first such row.
    pub fn compute<T: Scalar>(
        &self,
        alpha: T,
        a: SpMat<'_, I, T>,
        x: &BufferSlice<'_, T>,
        y: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        let xs = host(x, OP)?;
        let ys = host_mut(y, OP)?;
        let vals = self.prepare(&a)?;
        let (n, _) = op_shape(&a, self.op);
        check_len("x", xs.len(), n)?;
        check_len("y", ys.len(), n)?;
        self.solve(&a, &vals, alpha, xs, ys);
        Ok(())
    }

    /// Checks the matrix and gathers the values of `op(A)`, failing on a zero pivot.
    fn prepare<'s, T: Scalar>(
        &'s self,
        a: &'s SpMat<'s, I, T>,
    ) -> Result<std::borrow::Cow<'s, [T]>> {
        rocm_core::ensure_arg!(
            a.signature() == self.sig,
            "A",
            "structure {:?} differs from the analysed {:?}",
            a.signature(),
            self.sig
        );
        if let Some(r) = self.zero_pivot {
            return Err(Error::invalid(
                "A",
                format!("zero pivot: row {r} has no stored diagonal"),
            ));
        }
        let (ptr, idx, vals) = self.rows.arrays(a);
        if self.diag == Diag::NonUnit {
            for r in 0..ptr.len().saturating_sub(1) {
                let d = (ptr[r].to_usize()..ptr[r + 1].to_usize())
                    .filter(|&k| idx[k].to_usize() == r)
                    .fold(T::zero(), |s, k| s + vals[k]);
                if d == T::zero() {
                    return Err(Error::invalid(
                        "A",
                        format!("zero pivot: diagonal of row {r} is 0"),
                    ));
                }
            }
        }
        Ok(vals)
    }

    fn solve<T: Scalar>(&self, a: &SpMat<'_, I, T>, vals: &[T], alpha: T, x: &[T], y: &mut [T]) {
        let (ptr, idx) = self.rows.structure(a);
        let (lower, unit) = (self.lower, self.diag == Diag::Unit);
        let row = |r: usize, y: &[T]| -> T {
            let mut s = alpha * x[r];
            let mut d = T::zero();
            for k in ptr[r].to_usize()..ptr[r + 1].to_usize() {
                let c = idx[k].to_usize();
                if c == r {
                    d += vals[k];
                } else if (c < r) == lower {
                    s -= vals[k] * y[c];
                }
            }
            if unit {
                s
            } else {
                s / d
            }
        };
        for l in 0..self.levels() {
            let rows = &self.order[self.level_ptr[l]..self.level_ptr[l + 1]];
            if rows.len() < PARALLEL_LEVEL {
                for &r in rows {
                    y[r] = row(r, y);
                }
            } else {
                let ys: &[T] = y;
                let new: Vec<T> = rows.par_iter().map(|&r| row(r, ys)).collect();
                for (&r, v) in rows.iter().zip(new) {
                    y[r] = v;
                }
            }
        }
    }
}

/// Triangular solve with many right-hand sides: `op(T) C = alpha B`, column by column
/// in parallel, sharing one [`Spsv`] analysis.
#[derive(Debug, Clone)]
pub struct Spsm<I> {
    sv: Spsv<I>,
}

impl<I: Index> Spsm<I> {
    pub fn buffer_size<T: Scalar>(op: Transpose, a: SpMat<'_, I, T>) -> usize {
        Spsv::<I>::buffer_size(op, a)
    }

    pub fn analysis<T: Scalar>(
        device: &Device,
        op: Transpose,
        fill: Uplo,
        diag: Diag,
        a: SpMat<'_, I, T>,
    ) -> Result<Self> {
        Ok(Spsm {
            sv: Spsv::analysis(device, op, fill, diag, a)?,
        })
    }

    pub fn zero_pivot(&self) -> Option<usize> {
        self.sv.zero_pivot()
    }

    /// Solves `op(T) C = alpha B` for every column of `B`.
    pub fn compute<T: Scalar>(
        &self,
        alpha: T,
        a: SpMat<'_, I, T>,
        b: &DnMat<'_, T>,
        c: &mut DnMatMut<'_, T>,
    ) -> Result<()> {
        let bh = b.host("sparse spsm")?;
        let vals = self.sv.prepare(&a)?;
        let n = a.nrows();
        rocm_core::ensure_arg!(
            b.nrows() == n && c.nrows() == n && c.ncols() == b.ncols(),
            "B/C",
            "A is {n}x{n}, B is {}x{}, C is {}x{}",
            b.nrows(),
            b.ncols(),
            c.nrows(),
            c.ncols()
        );
        let cols: Vec<Vec<T>> = (0..b.ncols())
            .into_par_iter()
            .map(|j| {
                let x: Vec<T> = (0..n).map(|i| bh.at(i, j)).collect();
                let mut y = vec![T::zero(); n];
                self.sv.solve(&a, &vals, alpha, &x, &mut y);
                y
            })
            .collect();
        let ch = c.host_mut("sparse spsm")?;
        for (j, col) in cols.into_iter().enumerate() {
            for (i, v) in col.into_iter().enumerate() {
                ch.data[ch.order.offset(ch.ld, i, j)] = v;
            }
        }
        Ok(())
    }
}
