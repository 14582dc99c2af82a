//! SpGEMM (`C = alpha * A * B + beta * D`) and SpGEAM (`C = alpha * A + beta * B`), CSR.
//!
//! Both are two-stage like rocSPARSE: the analysis (symbolic) stage computes `C`'s sorted
//! pattern, the compute (numeric) stage its values, and may be repeated for new values.
//! SpGEMM is Gustavson's row-by-row product; rows are split among threads by their flop
//! count, and each thread marks columns in a lazily zeroed stamp array, so only the
//! columns a thread touches cost memory traffic.

use super::check_device;
use super::partition::{nnz_split_rows, piece_count, split_rows};
use crate::format::{compressed::Compressed, Csr};
use crate::scalar::{check_fits, Index, Scalar};
use rayon::prelude::*;
use rocm_core::{Device, Result};

const OP: &str = "sparse spgemm";

fn changed() -> rocm_core::Error {
    rocm_core::Error::invalid("A/B", "structure differs from the analysed one")
}

fn shape_sig<I: Index, T: Scalar>(a: &Csr<I, T>) -> (usize, usize, usize) {
    (a.nrows(), a.ncols(), a.nnz())
}

/// An analysed SpGEMM: the pattern of `C = alpha * A * B + beta * D`.
#[derive(Debug, Clone)]
pub struct Spgemm<I> {
    sigs: [(usize, usize, usize); 3],
    bounds: Vec<usize>,
    ptr: Vec<I>,
    idx: Vec<I>,
}

impl<I: Index> Spgemm<I> {
    /// Workspace bytes per thread: one stamp and one position per column of `B`.
    pub fn buffer_size<T: Scalar>(_a: &Csr<I, T>, b: &Csr<I, T>) -> usize {
        rayon::current_num_threads() * b.ncols() * 2 * std::mem::size_of::<usize>()
    }

    /// Symbolic stage: the sorted pattern of `A * B` united with `D`'s (when given).
    pub fn analysis<T: Scalar>(
        device: &Device,
        a: &Csr<I, T>,
        b: &Csr<I, T>,
        d: Option<&Csr<I, T>>,
    ) -> Result<Self> {
        check_device(device, OP)?;
        rocm_core::ensure_arg!(
            a.ncols() == b.nrows(),
            "B",
            "A is {}x{} but B is {}x{}",
            a.nrows(),
            a.ncols(),
            b.nrows(),
            b.ncols()
        );
        if let Some(d) = d {
            rocm_core::ensure_arg!(
                d.nrows() == a.nrows() && d.ncols() == b.ncols(),
                "D",
                "is {}x{}, expected {}x{}",
                d.nrows(),
                d.ncols(),
                a.nrows(),
                b.ncols()
            );
        }
        let (m, n) = (a.nrows(), b.ncols());
        // Flop count per row of A (plus D's entries) decides the split.
        let mut prefix = Vec::with_capacity(m + 1);
        prefix.push(0usize);
        let mut acc = 0usize;
        for i in 0..m {
            for k in a.row_range(i) {
                acc += b.row_range(a.col_idx()[k].to_usize()).len();
            }
            acc += d.map_or(0, |d| d.row_range(i).len()) + 1;
            prefix.push(acc);
        }
        let bounds = nnz_split_rows(&prefix, piece_count(acc));
        let pieces: Vec<(Vec<usize>, Vec<I>)> = bounds
            .par_windows(2)
            .map(|w| {
                let mut stamp = vec![0usize; n];
                let mut counts = Vec::with_capacity(w[1] - w[0]);
                let mut cols: Vec<I> = Vec::new();
                for i in w[0]..w[1] {
                    let start = cols.len();
                    let mut mark = |j: I, cols: &mut Vec<I>| {
                        let s = &mut stamp[j.to_usize()];
                        if *s != i + 1 {
                            *s = i + 1;
                            cols.push(j);
                        }
                    };
                    for ka in a.row_range(i) {
                        let r = a.col_idx()[ka].to_usize();
                        for kb in b.row_range(r) {
                            mark(b.col_idx()[kb], &mut cols);
                        }
                    }
                    if let Some(d) = d {
                        for kd in d.row_range(i) {
                            mark(d.col_idx()[kd], &mut cols);
                        }
                    }
                    cols[start..].sort_unstable();
                    counts.push(cols.len() - start);
                }
                (counts, cols)
            })
            .collect();
        let mut ptr = Vec::with_capacity(m + 1);
        ptr.push(I::from_usize(0));
        let mut total = 0usize;
        for (counts, _) in &pieces {
            for &c in counts {
                total += c;
                check_fits::<I>("nnz of C", total)?;
                ptr.push(I::from_usize(total));
            }
        }
        let mut idx = Vec::with_capacity(total);
        for (_, cols) in pieces {
            idx.extend_from_slice(&cols);
        }
        Ok(Spgemm {
            sigs: [shape_sig(a), shape_sig(b), d.map_or((0, 0, 0), shape_sig)],
            bounds,
            ptr,
            idx,
        })
    }

    /// Number of entries of `C` (rocSPARSE's nnz stage).
    pub fn nnz(&self) -> usize {
        self.idx.len()
    }

    /// Numeric stage: `C = alpha * A * B + beta * D` on the analysed pattern.
    pub fn compute<T: Scalar>(
        &self,
        alpha: T,
        a: &Csr<I, T>,
        b: &Csr<I, T>,
        beta: T,
        d: Option<&Csr<I, T>>,
    ) -> Result<Csr<I, T>> {
        let sigs = [shape_sig(a), shape_sig(b), d.map_or((0, 0, 0), shape_sig)];
        rocm_core::ensure_arg!(
            sigs == self.sigs,
            "A/B/D",
            "shapes/nnz {sigs:?} differ from the analysed {:?}",
            self.sigs
        );
        let n = b.ncols();
        let mut vals = vec![T::zero(); self.idx.len()];
        let vbounds: Vec<usize> = self
            .bounds
            .iter()
            .map(|&r| self.ptr[r].to_usize())
            .collect();
        split_rows(&mut vals, &vbounds)
            .into_par_iter()
            .zip(self.bounds.par_windows(2))
            .try_for_each(|(vc, w)| {
                // pos[j]: where column j sits in the current row of C (set before use).
                let mut pos = vec![0usize; n];
                let base = self.ptr[w[0]].to_usize();
                for i in w[0]..w[1] {
                    let (s, e) = (self.ptr[i].to_usize(), self.ptr[i + 1].to_usize());
                    for p in s..e {
                        pos[self.idx[p].to_usize()] = p - base;
                    }
                    for ka in a.row_range(i) {
                        let av = alpha * a.values()[ka];
                        let r = a.col_idx()[ka].to_usize();
                        for kb in b.row_range(r) {
                            let slot = vc
                                .get_mut(pos[b.col_idx()[kb].to_usize()])
                                .ok_or_else(changed)?;
                            *slot += av * b.values()[kb];
                        }
                    }
                    if let Some(d) = d {
                        for kd in d.row_range(i) {
                            let slot = vc
                                .get_mut(pos[d.col_idx()[kd].to_usize()])
                                .ok_or_else(changed)?;
                            *slot += beta * d.values()[kd];
                        }
                    }
                }
                Ok(())
            })?;
        Ok(Csr::from_inner(Compressed {
            nmajor: a.nrows(),
            nminor: n,
            ptr: self.ptr.clone(),
            idx: self.idx.clone(),
            vals,
        }))
    }
}

/// One-shot `C = alpha * A * B + beta * D` (symbolic and numeric fused in one pass per
/// row, for a product computed once): each thread accumulates a row in a dense,
/// lazily zeroed array indexed by column, then emits it sorted. Same arithmetic, in the
/// same order, as [`Spgemm::analysis`] followed by [`Spgemm::compute`].
pub fn spgemm<I: Index, T: Scalar>(
    device: &Device,
    alpha: T,
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    beta: T,
    d: Option<&Csr<I, T>>,
) -> Result<Csr<I, T>> {
    check_device(device, OP)?;
    rocm_core::ensure_arg!(
        a.ncols() == b.nrows(),
        "B",
        "A is {}x{} but B is {}x{}",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
    if let Some(d) = d {
        rocm_core::ensure_arg!(
            d.nrows() == a.nrows() && d.ncols() == b.ncols(),
            "D",
            "is {}x{}, expected {}x{}",
            d.nrows(),
            d.ncols(),
            a.nrows(),
            b.ncols()
        );
    }
    let (m, n) = (a.nrows(), b.ncols());
    let mut prefix = Vec::with_capacity(m + 1);
    prefix.push(0usize);
    let mut acc_work = 0usize;
    for i in 0..m {
        for k in a.row_range(i) {
            acc_work += b.row_range(a.col_idx()[k].to_usize()).len();
        }
        acc_work += d.map_or(0, |d| d.row_range(i).len()) + 1;
        prefix.push(acc_work);
    }
    let bounds = nnz_split_rows(&prefix, piece_count(acc_work));
    type Piece<I, T> = (Vec<usize>, Vec<I>, Vec<T>);
    let pieces: Vec<Piece<I, T>> = bounds
        .par_windows(2)
        .map(|w| {
            let mut stamp = vec![0usize; n];
            let mut acc = vec![T::zero(); n];
            let mut counts = Vec::with_capacity(w[1] - w[0]);
            let (mut cols, mut vals): (Vec<I>, Vec<T>) = (Vec::new(), Vec::new());
            let mut row: Vec<usize> = Vec::new();
            for i in w[0]..w[1] {
                row.clear();
                let mut add = |j: usize, v: T, row: &mut Vec<usize>| {
                    if stamp[j] != i + 1 {
                        stamp[j] = i + 1;
                        row.push(j);
                    }
                    acc[j] += v;
                };
                for ka in a.row_range(i) {
                    let av = alpha * a.values()[ka];
                    let r = a.col_idx()[ka].to_usize();
                    for kb in b.row_range(r) {
                        add(b.col_idx()[kb].to_usize(), av * b.values()[kb], &mut row);
                    }
                }
                if let Some(d) = d {
                    for kd in d.row_range(i) {
                        add(d.col_idx()[kd].to_usize(), beta * d.values()[kd], &mut row);
                    }
                }
                row.sort_unstable();
                for &j in &row {
                    cols.push(I::from_usize(j));
                    vals.push(acc[j]);
                    acc[j] = T::zero();
                }
                counts.push(row.len());
            }
            (counts, cols, vals)
        })
        .collect();
    let mut ptr = Vec::with_capacity(m + 1);
    ptr.push(I::from_usize(0));
    let mut total = 0usize;
    for (counts, _, _) in &pieces {
        for &c in counts {
            total += c;
            check_fits::<I>("nnz of C", total)?;
            ptr.push(I::from_usize(total));
        }
    }
    let (mut idx, mut vals) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for (_, c, v) in pieces {
        idx.extend_from_slice(&c);
        vals.extend_from_slice(&v);
    }
    Ok(Csr::from_inner(Compressed {
        nmajor: m,
        nminor: n,
        ptr,
        idx,
        vals,
    }))
}

/// An analysed SpGEAM: the pattern of `C = alpha * A + beta * B` (the union).
#[derive(Debug, Clone)]
pub struct Spgeam<I> {
    sigs: [(usize, usize, usize); 2],
    ptr: Vec<I>,
    idx: Vec<I>,
}

impl<I: Index> Spgeam<I> {
    /// No workspace beyond the pattern itself.
    pub fn buffer_size<T: Scalar>(a: &Csr<I, T>, b: &Csr<I, T>) -> usize {
        (a.nrows() + 1 + a.nnz() + b.nnz()) * std::mem::size_of::<I>()
    }

    /// Symbolic stage: the union pattern, rows merged in parallel.
    pub fn analysis<T: Scalar>(device: &Device, a: &Csr<I, T>, b: &Csr<I, T>) -> Result<Self> {
        check_device(device, "sparse spgeam")?;
        rocm_core::ensure_arg!(
            a.nrows() == b.nrows() && a.ncols() == b.ncols(),
            "B",
            "is {}x{} but A is {}x{}",
            b.nrows(),
            b.ncols(),
            a.nrows(),
            a.ncols()
        );
        let rows: Vec<Vec<I>> = (0..a.nrows())
            .into_par_iter()
            .map(|i| {
                let (ra, rb) = (&a.col_idx()[a.row_range(i)], &b.col_idx()[b.row_range(i)]);
                let mut out = Vec::with_capacity(ra.len() + rb.len());
                let (mut p, mut q) = (0, 0);
                while p < ra.len() || q < rb.len() {
                    let take_a = q == rb.len() || (p < ra.len() && ra[p] <= rb[q]);
                    let take_b = p == ra.len() || (q < rb.len() && rb[q] <= ra[p]);
                    out.push(if take_a { ra[p] } else { rb[q] });
                    p += take_a as usize;
                    q += take_b as usize;
                }
                out
            })
            .collect();
        let mut ptr = vec![I::from_usize(0)];
        let mut idx = Vec::new();
        for r in rows {
            idx.extend_from_slice(&r);
            check_fits::<I>("nnz of C", idx.len())?;
            ptr.push(I::from_usize(idx.len()));
        }
        Ok(Spgeam {
            sigs: [shape_sig(a), shape_sig(b)],
            ptr,
            idx,
        })
    }

    /// Number of entries of `C`.
    pub fn nnz(&self) -> usize {
        self.idx.len()
    }

    /// Numeric stage.
    pub fn compute<T: Scalar>(
        &self,
        alpha: T,
        a: &Csr<I, T>,
        beta: T,
        b: &Csr<I, T>,
    ) -> Result<Csr<I, T>> {
        let sigs = [shape_sig(a), shape_sig(b)];
        rocm_core::ensure_arg!(
            sigs == self.sigs,
            "A/B",
            "shapes/nnz {sigs:?} differ from the analysed {:?}",
            self.sigs
        );
        let m = a.nrows();
        let bounds: Vec<usize> = (0..=m).collect();
        let vb: Vec<usize> = self.ptr.iter().map(|p| p.to_usize()).collect();
        let mut vals = vec![T::zero(); self.idx.len()];
        split_rows(&mut vals, &vb)
            .into_par_iter()
            .zip(bounds.par_windows(2))
            .try_for_each(|(vc, w)| {
                let i = w[0];
                let cols = &self.idx[vb[i]..vb[i + 1]];
                // Both inputs' rows are sorted subsets of the union row: merge.
                for (m, s) in [(a, alpha), (b, beta)] {
                    let mut p = 0;
                    for k in m.row_range(i) {
                        p += cols[p..]
                            .iter()
                            .position(|&c| c == m.col_idx()[k])
                            .ok_or_else(changed)?;
                        vc[p] += s * m.values()[k];
                    }
                }
                Ok(())
            })?;
        Ok(Csr::from_inner(Compressed {
            nmajor: m,
            nminor: a.ncols(),
            ptr: self.ptr.clone(),
            idx: self.idx.clone(),
            vals,
        }))
    }
}
