//! Incomplete factorisations on a fixed pattern: ILU(0) and IC(0) of a CSR matrix, in
//! place (rocSPARSE `csrilu0`, `csric0`).
//!
//! ILU(0): `A ≈ L U` with `L` unit lower and `U` upper, both restricted to `A`'s pattern
//! and stored packed in `A`'s values. IC(0): `A ≈ L Lᴴ` for Hermitian positive definite
//! `A`, `L` written over the lower triangle (the strict upper triangle is left as is).
//! A zero pivot (missing or zero diagonal; for IC(0) a non-positive one) stops the
//! factorisation with an error naming its row, also kept for `zero_pivot()`.

use super::check_device;
use crate::format::Csr;
use crate::scalar::{Index, Scalar};
use rocm_core::{Device, Error, Result};

/// Positions of the diagonal entries, `None` for a row without one.
fn diag_positions<I: Index, T: Scalar>(a: &Csr<I, T>) -> Vec<Option<usize>> {
    (0..a.nrows())
        .map(|i| a.row_range(i).find(|&k| a.col_idx()[k].to_usize() == i))
        .collect()
}

fn pivot_error(row: usize, why: &str) -> Error {
    Error::invalid("A", format!("zero pivot at row {row}: {why}"))
}

/// What both factorisations analyse: the structure's signature (order, nonzeros), where
/// each row's diagonal sits, and the first zero pivot found so far.
#[derive(Debug, Clone)]
struct Analysed {
    sig: (usize, usize),
    diag: Vec<Option<usize>>,
    zero_pivot: Option<usize>,
}

impl Analysed {
    /// Finds the diagonal of every row of the square `a` (a missing one is a structural
    /// zero pivot).
    fn new<I: Index, T: Scalar>(device: &Device, a: &Csr<I, T>, op: &str) -> Result<Self> {
        check_device(device, op)?;
        rocm_core::ensure_arg!(
            a.nrows() == a.ncols(),
            "A",
            "must be square, is {}x{}",
            a.nrows(),
            a.ncols()
        );
        let diag = diag_positions(a);
        let zero_pivot = diag.iter().position(|d| d.is_none());
        Ok(Analysed {
            sig: (a.nrows(), a.nnz()),
            diag,
            zero_pivot,
        })
    }

    /// Checks `a` against the analysed structure and refuses a row without a stored
    /// diagonal; returns the row pointers and column indices as `usize`.
    fn start<I: Index, T: Scalar>(&self, a: &Csr<I, T>) -> Result<(Vec<usize>, Vec<usize>)> {
        rocm_core::ensure_arg!(
            (a.nrows(), a.nnz()) == self.sig,
            "A",
            "structure differs from the analysed one"
        );
        if let Some(r) = self.zero_pivot {
            if self.diag[r].is_none() {
                return Err(pivot_error(r, "no stored diagonal"));
            }
        }
        Ok((
            a.row_ptr().iter().map(|p| p.to_usize()).collect(),
            a.col_idx().iter().map(|c| c.to_usize()).collect(),
        ))
    }
}

/// An analysed ILU(0).
#[derive(Debug, Clone)]
pub struct Ilu0 {
    an: Analysed,
}

impl Ilu0 {
    pub fn buffer_size<I: Index, T: Scalar>(a: &Csr<I, T>) -> usize {
        a.nrows() * std::mem::size_of::<usize>() * 3
    }

    /// Finds the diagonal of every row (a missing one is a structural zero pivot).
    pub fn analysis<I: Index, T: Scalar>(device: &Device, a: &Csr<I, T>) -> Result<Self> {
        Ok(Ilu0 {
            an: Analysed::new(device, a, "sparse ilu0")?,
        })
    }

    /// The first zero pivot found so far (by the analysis or the last compute).
    pub fn zero_pivot(&self) -> Option<usize> {
        self.an.zero_pivot
    }

    /// Factorises in place (IKJ variant restricted to the pattern).
    pub fn compute<I: Index, T: Scalar>(&mut self, a: &mut Csr<I, T>) -> Result<()> {
        let (ptr, cols) = self.an.start(a)?;
        let n = a.nrows();
        let an = &mut self.an;
        let vals = a.values_mut();
        // pos[j] = position of column j in the current row, or usize::MAX.
        let mut pos = vec![usize::MAX; n];
        for i in 0..n {
            for k in ptr[i]..ptr[i + 1] {
                pos[cols[k]] = k;
            }
            for k in ptr[i]..ptr[i + 1] {
                let kc = cols[k];
                if kc >= i {
                    break;
                }
                let Some(dk) = an.diag[kc] else { continue };
                let piv = vals[dk];
                if piv == T::zero() {
                    an.zero_pivot = Some(kc);
                    return Err(pivot_error(kc, "diagonal of U is 0"));
                }
                let l = vals[k] / piv;
                vals[k] = l;
                for kk in dk + 1..ptr[kc + 1] {
                    let p = pos[cols[kk]];
                    if p != usize::MAX {
                        let u = vals[kk];
                        vals[p] -= l * u;
                    }
                }
            }
            for k in ptr[i]..ptr[i + 1] {
                pos[cols[k]] = usize::MAX;
            }
        }
        if let Some(r) = (0..n).find(|&r| an.diag[r].is_some_and(|d| vals[d] == T::zero())) {
            an.zero_pivot = Some(r);
            return Err(pivot_error(r, "diagonal of U is 0"));
        }
        an.zero_pivot = None;
        Ok(())
    }
}

/// An analysed IC(0).
#[derive(Debug, Clone)]
pub struct Ic0 {
    an: Analysed,
}

impl Ic0 {
    pub fn buffer_size<I: Index, T: Scalar>(a: &Csr<I, T>) -> usize {
        a.nrows() * std::mem::size_of::<usize>() * 3
    }

    pub fn analysis<I: Index, T: Scalar>(device: &Device, a: &Csr<I, T>) -> Result<Self> {
        Ok(Ic0 {
            an: Analysed::new(device, a, "sparse ic0")?,
        })
    }

    pub fn zero_pivot(&self) -> Option<usize> {
        self.an.zero_pivot
    }

    /// Factorises the lower triangle in place: for each row `i` and stored `k <= i`,
    /// `L_ik = (A_ik - Σ_{j<k} L_ij conj(L_kj)) / L_kk`, `L_ii = sqrt(A_ii - Σ |L_ij|²)`.
    pub fn compute<I: Index, T: Scalar>(&mut self, a: &mut Csr<I, T>) -> Result<()> {
        let (ptr, cols) = self.an.start(a)?;
        let n = a.nrows();
        let an = &mut self.an;
        let vals = a.values_mut();
        let mut pos = vec![usize::MAX; n];
        for i in 0..n {
            for k in ptr[i]..ptr[i + 1] {
                pos[cols[k]] = k;
            }
            for k in ptr[i]..ptr[i + 1] {
                let kc = cols[k];
                if kc > i {
                    break;
                }
                // s = A_ik - Σ_{j<kc} L_ij conj(L_kc,j): walk row kc's strict lower part.
                let mut s = vals[k];
                for kk in ptr[kc]..ptr[kc + 1] {
                    let j = cols[kk];
                    if j >= kc {
                        break;
                    }
                    let p = pos[j];
                    if p != usize::MAX {
                        s -= vals[p] * vals[kk].conj();
                    }
                }
                if kc == i {
                    let p = s.to_c64().re;
                    if p.is_nan() || p <= 0.0 {
                        an.zero_pivot = Some(i);
                        return Err(pivot_error(
                            i,
                            "non-positive pivot (matrix not positive definite)",
                        ));
                    }
                    vals[k] = s.principal_sqrt();
                } else {
                    // diag[kc] exists: the analysis rejected rows without one.
                    let d = an.diag[kc].map_or(T::zero(), |d| vals[d]);
                    vals[k] = s / d;
                }
            }
            for k in ptr[i]..ptr[i + 1] {
                pos[cols[k]] = usize::MAX;
            }
        }
        an.zero_pivot = None;
        Ok(())
    }
}
