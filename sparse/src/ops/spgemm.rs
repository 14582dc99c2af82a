//! SpGEMM (`C = alpha * A * B + beta * D`) and SpGEAM (`C = alpha * A + beta * B`), CSR.
//!
//! Both are two-stage like rocSPARSE: the analysis (symbolic) stage computes `C`'s sorted
//! pattern, the compute (numeric) stage its values, and may be repeated for new values.
//!
//! SpGEMM is Gustavson's row-by-row product. Rows are split among threads by their
//! product count (rows of very different work stay balanced). Each thread merges a row's
//! products through a [`ColumnScratch`]: two `u32` arrays indexed by column, allocated
//! once per thread and reused across rows, pieces and calls, with a generation stamp per
//! row so nothing is cleared between rows. Only the columns a row touches cost memory
//! traffic, and no per-call O(columns) allocation or zeroing happens (that used to
//! dominate: fresh multi-megabyte arrays per piece meant page faults on every call).
//! The pieces' outputs are then copied into `C` in parallel.

use super::check_device;
use super::partition::{nnz_split_rows, piece_count, split_rows};
use crate::format::{compressed::Compressed, Csr};
use crate::scalar::{check_fits, Index, Scalar};
use rayon::prelude::*;
use rocm_core::{Device, Result};
use std::cell::RefCell;

const OP: &str = "sparse spgemm";

fn changed() -> rocm_core::Error {
    rocm_core::Error::invalid("A/B", "structure differs from the analysed one")
}

fn shape_sig<I: Index, T: Scalar>(a: &Csr<I, T>) -> (usize, usize, usize) {
    (a.nrows(), a.ncols(), a.nnz())
}

/// Per-thread column scratch: `cols[j] = (stamp, slot)`; `stamp == gen` marks column `j`
/// as seen in the current row, and `slot` is then its position in the row's output (one
/// pair per column, so a lookup touches one cache line).
#[derive(Default)]
struct ColumnScratch {
    cols: Vec<(u32, u32)>,
    gen: u32,
}

impl ColumnScratch {
    /// Makes room for `n` columns (kept for later calls).
    fn fit(&mut self, n: usize) {
        if self.cols.len() < n {
            self.cols.resize(n, (0, 0));
        }
    }

    /// Starts a row: every column becomes unseen.
    fn next_row(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            // Wrapped after 2^32 rows: clear once so old stamps cannot match.
            self.cols.fill((0, 0));
            self.gen = 1;
        }
    }

    /// Position of column `j` in the current row, inserting it at `len` when unseen.
    #[inline]
    fn position(&mut self, j: usize, len: usize) -> (usize, bool) {
        let c = &mut self.cols[j];
        if c.0 == self.gen {
            (c.1 as usize, false)
        } else {
            *c = (self.gen, len as u32);
            (len, true)
        }
    }

    /// Records column `j` at position `at` of the current row (a known pattern).
    #[inline]
    fn set(&mut self, j: usize, at: usize) {
        self.cols[j] = (self.gen, at as u32);
    }

    /// Position of column `j` if it was inserted in the current row.
    #[inline]
    fn find(&self, j: usize) -> Option<usize> {
        let c = self.cols[j];
        (c.0 == self.gen).then_some(c.1 as usize)
    }
}

thread_local! {
    static SCRATCH: RefCell<ColumnScratch> = RefCell::new(ColumnScratch::default());
}

/// Runs `f` with this thread's scratch sized for `n` columns.
fn with_scratch<R>(n: usize, f: impl FnOnce(&mut ColumnScratch) -> R) -> R {
    SCRATCH.with_borrow_mut(|s| {
        s.fit(n);
        f(s)
    })
}

/// Row boundaries splitting the rows of `A` (and `D`) by product count, for balance,
/// and the prefix sums of the per-row work (products + entries of `D` + 1), an upper
/// bound on the entries of `C` in any range of rows.
fn product_split<I: Index, T: Scalar>(
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    d: Option<&Csr<I, T>>,
) -> (Vec<usize>, Vec<usize>) {
    let m = a.nrows();
    let work: Vec<usize> = (0..m)
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let products: usize = a
                .row_range(i)
                .map(|k| b.row_range(a.col_idx()[k].to_usize()).len())
                .sum();
            products + d.map_or(0, |d| d.row_range(i).len()) + 1
        })
        .collect();
    let mut prefix = Vec::with_capacity(m + 1);
    prefix.push(0usize);
    let mut acc = 0usize;
    for w in work {
        acc += w;
        prefix.push(acc);
    }
    (nnz_split_rows(&prefix, piece_count(acc)), prefix)
}

/// The row pointer of `C` from the per-piece row lengths, checked against `I`.
fn row_pointer<I: Index>(counts: &[&[usize]], m: usize) -> Result<Vec<I>> {
    let mut ptr = Vec::with_capacity(m + 1);
    ptr.push(I::from_usize(0));
    let mut total = 0usize;
    for c in counts.iter().flat_map(|c| c.iter()) {
        total += c;
        check_fits::<I>("nnz of C", total)?;
        ptr.push(I::from_usize(total));
    }
    Ok(ptr)
}

/// Concatenates the pieces' arrays into one, copying the pieces in parallel.
fn concat<X: Copy + Send + Sync + Default>(parts: &[&[X]]) -> Vec<X> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = vec![X::default(); total];
    let mut bounds = Vec::with_capacity(parts.len() + 1);
    bounds.push(0usize);
    for p in parts {
        bounds.push(bounds.last().copied().unwrap_or(0) + p.len());
    }
    split_rows(&mut out, &bounds)
        .into_par_iter()
        .zip(parts.par_iter())
        .for_each(|(dst, src)| dst.copy_from_slice(src));
    out
}

/// A copy of `v`, made by all threads (the pattern of a large product is copied into
/// every result).
fn par_clone<X: Copy + Send + Sync + Default>(v: &[X]) -> Vec<X> {
    let chunk = v
        .len()
        .div_ceil(rayon::current_num_threads() * 4)
        .max(1 << 16);
    concat(&v.chunks(chunk).collect::<Vec<_>>())
}

/// An analysed SpGEMM: the pattern of `C = alpha * A * B + beta * D`.
#[derive(Debug, Clone)]
pub struct Spgemm<I> {
    sigs: [(usize, usize, usize); 3],
    bounds: Vec<usize>,
    ptr: Vec<I>,
    idx: Vec<I>,
}

fn check_shapes<I: Index, T: Scalar>(
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    d: Option<&Csr<I, T>>,
) -> Result<()> {
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
    Ok(())
}

impl<I: Index> Spgemm<I> {
    /// Workspace bytes per thread: a stamp and a position (`u32` each) per column of
    /// `B`, kept by the thread across calls.
    pub fn buffer_size<T: Scalar>(_a: &Csr<I, T>, b: &Csr<I, T>) -> usize {
        rayon::current_num_threads() * b.ncols() * 2 * std::mem::size_of::<u32>()
    }

    /// Symbolic stage: the sorted pattern of `A * B` united with `D`'s (when given).
    pub fn analysis<T: Scalar>(
        device: &Device,
        a: &Csr<I, T>,
        b: &Csr<I, T>,
        d: Option<&Csr<I, T>>,
    ) -> Result<Self> {
        check_device(device, OP)?;
        check_shapes(a, b, d)?;
        let (m, n) = (a.nrows(), b.ncols());
        let (bounds, work) = product_split(a, b, d);
        let pieces: Vec<(Vec<usize>, Vec<I>)> = bounds
            .par_windows(2)
            .map(|w| {
                with_scratch(n, |sc| {
                    let mut counts = Vec::with_capacity(w[1] - w[0]);
                    // Reserved for the worst case: no regrowth copies (pages never
                    // written are never touched).
                    let mut cols: Vec<I> = Vec::with_capacity(work[w[1]] - work[w[0]]);
                    for i in w[0]..w[1] {
                        sc.next_row();
                        let start = cols.len();
                        let mut mark = |j: I, cols: &mut Vec<I>| {
                            let len = cols.len() - start;
                            if sc.position(j.to_usize(), len).1 {
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
            })
            .collect();
        let counts: Vec<&[usize]> = pieces.iter().map(|p| p.0.as_slice()).collect();
        let ptr = row_pointer::<I>(&counts, m)?;
        let parts: Vec<&[I]> = pieces.iter().map(|p| p.1.as_slice()).collect();
        let idx = concat(&parts);
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

    /// Numeric stage: `C = alpha * A * B + beta * D` on the analysed pattern. A product
    /// falling outside the pattern (inputs changed since the analysis) is an error.
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
                with_scratch(n, |sc| {
                    let base = self.ptr[w[0]].to_usize();
                    for i in w[0]..w[1] {
                        sc.next_row();
                        let (s, e) = (self.ptr[i].to_usize(), self.ptr[i + 1].to_usize());
                        for p in s..e {
                            sc.set(self.idx[p].to_usize(), p - base);
                        }
                        for ka in a.row_range(i) {
                            let av = alpha * a.values()[ka];
                            let r = a.col_idx()[ka].to_usize();
                            for kb in b.row_range(r) {
                                let at = sc.find(b.col_idx()[kb].to_usize()).ok_or_else(changed)?;
                                vc[at] += av * b.values()[kb];
                            }
                        }
                        if let Some(d) = d {
                            for kd in d.row_range(i) {
                                let at = sc.find(d.col_idx()[kd].to_usize()).ok_or_else(changed)?;
                                vc[at] += beta * d.values()[kd];
                            }
                        }
                    }
                    Ok(())
                })
            })?;
        Ok(Csr::from_inner(Compressed {
            nmajor: a.nrows(),
            nminor: n,
            ptr: par_clone(&self.ptr),
            idx: par_clone(&self.idx),
            vals,
        }))
    }
}

/// One-shot `C = alpha * A * B + beta * D` (symbolic and numeric fused in one pass per
/// row, for a product computed once): each row's products are merged through the
/// thread's [`ColumnScratch`] into a row buffer of (column, value), which is then sorted
/// by column. Same arithmetic, in the same order, as [`Spgemm::analysis`] followed by
/// [`Spgemm::compute`] (each entry starts at zero and adds its products in order).
pub fn spgemm<I: Index, T: Scalar>(
    device: &Device,
    alpha: T,
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    beta: T,
    d: Option<&Csr<I, T>>,
) -> Result<Csr<I, T>> {
    check_device(device, OP)?;
    check_shapes(a, b, d)?;
    let (m, n) = (a.nrows(), b.ncols());
    let (bounds, work) = product_split(a, b, d);
    type Piece<I, T> = (Vec<usize>, Vec<I>, Vec<T>);
    let pieces: Vec<Piece<I, T>> = bounds
        .par_windows(2)
        .map(|w| {
            with_scratch(n, |sc| {
                let mut counts = Vec::with_capacity(w[1] - w[0]);
                // Reserved for the worst case, as in the analysis.
                let most = work[w[1]] - work[w[0]];
                let (mut cols, mut vals): (Vec<I>, Vec<T>) =
                    (Vec::with_capacity(most), Vec::with_capacity(most));
                let mut row: Vec<(usize, T)> = Vec::new();
                for i in w[0]..w[1] {
                    sc.next_row();
                    row.clear();
                    let mut add = |j: usize, v: T, row: &mut Vec<(usize, T)>| {
                        let (at, new) = sc.position(j, row.len());
                        if new {
                            row.push((j, T::zero()));
                        }
                        row[at].1 += v;
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
                    row.sort_unstable_by_key(|e| e.0);
                    for &(j, v) in &row {
                        cols.push(I::from_usize(j));
                        vals.push(v);
                    }
                    counts.push(row.len());
                }
                (counts, cols, vals)
            })
        })
        .collect();
    let counts: Vec<&[usize]> = pieces.iter().map(|p| p.0.as_slice()).collect();
    let ptr = row_pointer::<I>(&counts, m)?;
    let idx = concat(&pieces.iter().map(|p| p.1.as_slice()).collect::<Vec<_>>());
    let vals = concat(&pieces.iter().map(|p| p.2.as_slice()).collect::<Vec<_>>());
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
