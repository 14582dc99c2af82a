//! SpMM: `C = alpha * op(A) * B + beta * C` with `A` sparse (CSR, BSR, or any format
//! through the analysed row structure) and `B`, `C` dense in either layout.
//!
//! Merge-path partitioned like SpMV (pieces of a fixed size, so results do not depend on
//! the thread count): a piece accumulates a whole output row (all `n` columns) at a
//! time, and rows cut by a piece boundary are finished in a serial fix-up.

use super::partition::{coords_fit, fixed_pieces, merge_path, path_len, Coord};
use super::view::{op_shape, Rows};
use super::{axpby, check_device, DnMat, DnMatMut, HostMat, SpMat, Transpose};
use crate::format::Format;
use crate::scalar::{Index, Scalar};
use rayon::prelude::*;
use rocm_core::{Device, Result};

const OP: &str = "sparse spmm";

/// An analysed SpMM (`rocsparse_spmm` after preprocess).
#[derive(Debug, Clone)]
pub struct Spmm<I> {
    op: Transpose,
    sig: (Format, usize, usize, usize),
    rows: Rows<I>,
    coords: Vec<Coord>,
}

/// A raw pointer that may be shared between threads writing disjoint elements.
#[derive(Clone, Copy)]
struct SharedOut<T>(*mut T);
// SAFETY: only used by pieces writing disjoint rows of one output matrix (see merge_spmm).
unsafe impl<T: Send> Send for SharedOut<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SharedOut<T> {}

impl<I: Index> Spmm<I> {
    /// Bytes the analysis will hold.
    pub fn buffer_size<T: Scalar>(op: Transpose, a: SpMat<'_, I, T>) -> usize {
        super::Spmv::<I>::buffer_size(op, a)
    }

    /// Analyses the row structure of `op(a)` and its partition for `n` dense columns.
    pub fn analysis<T: Scalar>(device: &Device, op: Transpose, a: SpMat<'_, I, T>) -> Result<Self> {
        check_device(device, OP)?;
        let rows = Rows::analyse(&a, op);
        let coords = {
            let ptr = rows.ptr(&a);
            merge_path(ptr, fixed_pieces(path_len(ptr)))
        };
        Ok(Spmm {
            op,
            sig: a.signature(),
            rows,
            coords,
        })
    }

    /// `C = alpha * op(A) * B + beta * C`; `C` is not read when `beta == 0`.
    pub fn compute<T: Scalar>(
        &self,
        alpha: T,
        a: SpMat<'_, I, T>,
        b: &DnMat<'_, T>,
        beta: T,
        c: &mut DnMatMut<'_, T>,
    ) -> Result<()> {
        rocm_core::ensure_arg!(
            a.signature() == self.sig,
            "A",
            "structure {:?} differs from the analysed {:?}",
            a.signature(),
            self.sig
        );
        let (m, k) = op_shape(&a, self.op);
        rocm_core::ensure_arg!(
            b.nrows() == k && c.nrows() == m && c.ncols() == b.ncols(),
            "B/C",
            "op(A) is {m}x{k}, B is {}x{}, C is {}x{}",
            b.nrows(),
            b.ncols(),
            c.nrows(),
            c.ncols()
        );
        let bh = b.host(OP)?;
        let ch = c.host_mut(OP)?;
        // Nothing to write. The quick return also bounds the per-piece accumulators
        // below: with m > 0 rows, C's buffer holds at least n values, while an empty C
        // (m == 0) would let an unbounded column count through.
        if m == 0 || bh.ncols == 0 {
            return Ok(());
        }
        let (ptr, idx, vals) = self.rows.arrays(&a);
        rocm_core::ensure_arg!(
            coords_fit(ptr, &self.coords),
            "A",
            "row pointers differ from the analysed structure"
        );
        let n = bh.ncols;
        let (ld, order) = (ch.ld, ch.order);
        let out = SharedOut(ch.data.as_mut_ptr());
        let out_len = ch.data.len();
        // Writes C(r, j) = alpha * acc[j] + beta * C(r, j).
        let finish = move |r: usize, acc: &[T], add: bool| {
            for (j, &a) in acc.iter().enumerate() {
                let p = order.offset(ld, r, j);
                debug_assert!(p < out_len);
                let o = out;
                // SAFETY: p is inside C (checked by DnMatMut::new for every (r, j) in
                // its shape); each row r is written by exactly one piece (the one that
                // completes it), and the carries are applied after all pieces finished.
                unsafe {
                    let slot = o.0.add(p);
                    *slot = if add {
                        *slot + alpha * a
                    } else {
                        axpby(alpha, a, beta, *slot)
                    };
                }
            }
        };
        let carries: Vec<Option<(usize, Vec<T>)>> = self
            .coords
            .par_windows(2)
            .map(|w| {
                let ((r0, k0), (r1, k1)) = (w[0], w[1]);
                let mut acc = vec![T::zero(); n];
                let mut kk = k0;
                for r in r0..r1 {
                    let end = ptr[r + 1].to_usize();
                    acc.iter_mut().for_each(|v| *v = T::zero());
                    accumulate(&idx[kk..end], &vals[kk..end], &bh, &mut acc);
                    finish(r, &acc, false);
                    kk = end;
                }
                (k1 > kk).then(|| {
                    acc.iter_mut().for_each(|v| *v = T::zero());
                    accumulate(&idx[kk..k1], &vals[kk..k1], &bh, &mut acc);
                    (r1, acc)
                })
            })
            .collect();
        for (r, acc) in carries.into_iter().flatten() {
            finish(r, &acc, true);
        }
        Ok(())
    }
}

/// `acc[j] += sum_k vals[k] * B(idx[k], j)`.
#[inline(always)]
fn accumulate<I: Index, T: Scalar>(idx: &[I], vals: &[T], b: &HostMat<'_, T>, acc: &mut [T]) {
    for (j, v) in idx.iter().zip(vals) {
        let row = j.to_usize();
        match b.order {
            super::Order::RowMajor => {
                let brow = &b.data[row * b.ld..row * b.ld + acc.len()];
                for (a, bv) in acc.iter_mut().zip(brow) {
                    *a += *v * *bv;
                }
            }
            super::Order::ColMajor => {
                for (c, a) in acc.iter_mut().enumerate() {
                    *a += *v * b.data[row + c * b.ld];
                }
            }
        }
    }
}
