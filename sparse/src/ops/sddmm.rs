//! SDDMM: `C = alpha * (op(A) * op(B)) ∘ spy(C) + beta * C` — the dense product sampled
//! at `C`'s pattern, for CSR `C` (rocSPARSE `rocsparse_sddmm`).

use super::{check_device, DnMat, HostMat, Transpose};
use crate::format::Csr;
use crate::scalar::{Index, Scalar};
use rayon::prelude::*;
use rocm_core::{Device, Result};

const OP: &str = "sparse sddmm";

/// An SDDMM plan; the analysis only fixes the operations.
#[derive(Debug, Clone, Copy)]
pub struct Sddmm {
    op_a: Transpose,
    op_b: Transpose,
}

impl Sddmm {
    /// No workspace is needed on the CPU.
    pub fn buffer_size() -> usize {
        0
    }

    pub fn analysis(device: &Device, op_a: Transpose, op_b: Transpose) -> Result<Self> {
        check_device(device, OP)?;
        Ok(Sddmm { op_a, op_b })
    }

    /// Updates `c`'s values in place; when `beta == 0` they are not read.
    pub fn compute<I: Index, T: Scalar>(
        &self,
        alpha: T,
        a: &DnMat<'_, T>,
        b: &DnMat<'_, T>,
        beta: T,
        c: &mut Csr<I, T>,
    ) -> Result<()> {
        let ah = a.host(OP)?;
        let bh = b.host(OP)?;
        let (am, ak) = op_dims(self.op_a, &ah);
        let (bk, bn) = op_dims(self.op_b, &bh);
        rocm_core::ensure_arg!(
            am == c.nrows() && bn == c.ncols() && ak == bk,
            "A/B",
            "op(A) is {am}x{ak}, op(B) is {bk}x{bn}, C is {}x{}",
            c.nrows(),
            c.ncols()
        );
        let (op_a, op_b) = (self.op_a, self.op_b);
        let ptr: Vec<usize> = c.row_ptr().iter().map(|p| p.to_usize()).collect();
        let cols: Vec<usize> = c.col_idx().iter().map(|j| j.to_usize()).collect();
        let bounds: Vec<usize> = (0..=c.nrows()).collect();
        super::partition::split_rows(c.values_mut(), &ptr)
            .into_par_iter()
            .zip(bounds.par_windows(2))
            .for_each(|(vals, w)| {
                let i = w[0];
                for (v, &j) in vals.iter_mut().zip(&cols[ptr[i]..ptr[i + 1]]) {
                    let mut s = T::zero();
                    for k in 0..ak {
                        s += op_at(op_a, &ah, i, k) * op_at(op_b, &bh, k, j);
                    }
                    *v = super::axpby(alpha, s, beta, *v);
                }
            });
        Ok(())
    }
}

fn op_dims<T>(op: Transpose, m: &HostMat<'_, T>) -> (usize, usize) {
    if op == Transpose::N {
        (m.nrows, m.ncols)
    } else {
        (m.ncols, m.nrows)
    }
}

#[inline(always)]
fn op_at<T: Scalar>(op: Transpose, m: &HostMat<'_, T>, i: usize, j: usize) -> T {
    match op {
        Transpose::N => m.at(i, j),
        Transpose::T => m.at(j, i),
        Transpose::C => m.at(j, i).conj(),
    }
}
