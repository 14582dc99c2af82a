//! SpGEMM (`C = alpha * A * B + beta * D`) and SpGEAM (`C = alpha * A + beta * B`), CSR.
//!
//! Both are two-stage like rocSPARSE: the analysis (symbolic) stage computes `C`'s sorted
//! pattern, the compute (numeric) stage its values, and may be repeated for new values.
//!
//! SpGEMM is Gustavson's row-by-row product. Rows are split among threads by their
//! product count (rows of very different work stay balanced). Each thread keeps, across
//! rows, pieces and calls, two arrays indexed by column (sized once, never cleared
//! between rows): a `u32` generation stamp marking the columns seen in the current row
//! ([`Stamps`]), and a dense accumulator of values, all zero between rows ([`with_acc`]).
//! A row's products are added into the accumulator (`acc[j] += a·b`: no search, no
//! branch), its distinct columns collected through the stamps and sorted, and the values
//! gathered from the accumulator in column order, resetting it.
//!
//! Output is written in place: a first pass counts each row's entries (one stamp test
//! per product), the row pointer follows, and a second pass writes every row straight
//! into `C`'s final arrays. Collecting rows into per-piece buffers and concatenating
//! them would write the output twice, and first writes into fresh memory are page faults
//! (tens of thousands for a 10^7-entry product) — they cost as much as the products.

use super::check_device;
use super::partition::{nnz_split_rows, piece_count, split_rows};
use crate::format::{compressed::Compressed, Csr};
use crate::scalar::{check_fits, Index, Scalar};
use rayon::prelude::*;
use rocm_core::{Device, Result};
use std::any::Any;
use std::cell::RefCell;

const OP: &str = "sparse spgemm";

fn changed() -> rocm_core::Error {
    rocm_core::Error::invalid("A/B", "structure differs from the analysed one")
}

fn shape_sig<I: Index, T: Scalar>(a: &Csr<I, T>) -> (usize, usize, usize) {
    (a.nrows(), a.ncols(), a.nnz())
}

/// Per-thread column stamps: `stamp[j] == gen` marks column `j` as seen in the current
/// row, so starting a row clears nothing.
#[derive(Default)]
struct Stamps {
    stamp: Vec<u32>,
    gen: u32,
}

impl Stamps {
    /// Makes room for `n` columns (kept for later calls).
    fn fit(&mut self, n: usize) {
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
        }
    }

    /// Starts a row: every column becomes unseen.
    fn next_row(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            // Wrapped after 2^32 rows: clear once so old stamps cannot match.
            self.stamp.fill(0);
            self.gen = 1;
        }
    }

    /// Marks column `j` as seen in the current row; whether it was new.
    #[inline(always)]
    fn mark(&mut self, j: usize) -> bool {
        let s = &mut self.stamp[j];
        let new = *s != self.gen;
        *s = self.gen;
        new
    }

    /// Whether column `j` was marked in the current row.
    #[inline(always)]
    fn seen(&self, j: usize) -> bool {
        self.stamp[j] == self.gen
    }
}

thread_local! {
    static STAMPS: RefCell<Stamps> = RefCell::new(Stamps::default());
    /// The thread's dense accumulator: a `Vec<T>` for the value type last used.
    static ACC: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's stamps sized for `n` columns.
fn with_stamps<R>(n: usize, f: impl FnOnce(&mut Stamps) -> R) -> R {
    STAMPS.with_borrow_mut(|s| {
        s.fit(n);
        f(s)
    })
}

/// Runs `f` with this thread's accumulator for `T`: `n` values, all zero, which `f`
/// must leave all zero (every row resets the columns it touched).
fn with_acc<T: Scalar, R>(n: usize, f: impl FnOnce(&mut [T]) -> R) -> R {
    ACC.with_borrow_mut(|slot| {
        let mut acc: Box<Vec<T>> = match slot.take().map(|b| b.downcast::<Vec<T>>()) {
            Some(Ok(v)) => v,
            _ => Box::default(),
        };
        if acc.len() < n {
            acc.resize(n, T::zero());
        }
        let r = f(&mut acc[..n]);
        *slot = Some(acc);
        r
    })
}

/// Row boundaries splitting the rows of `A` (and `D`) by product count, for balance:
/// each row weighs its products + entries of `D` + 1.
fn product_split<I: Index, T: Scalar>(
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    d: Option<&Csr<I, T>>,
) -> Vec<usize> {
    let m = a.nrows();
    let work: Vec<usize> = (0..m)
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let products: usize = a.col_idx()[a.row_range(i)]
                .iter()
                .map(|r| b.row_range(r.to_usize()).len())
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
    nnz_split_rows(&prefix, piece_count(acc))
}

/// Row `r` of `m` as equal-length (columns, values) slices.
#[inline(always)]
fn row_of<I: Index, T: Scalar>(m: &Csr<I, T>, r: usize) -> (&[I], &[T]) {
    let range = m.row_range(r);
    let cols = &m.col_idx()[range.clone()];
    (cols, &m.values()[range][..cols.len()])
}

/// Calls `f(j, v)` for every product of row `i` of `alpha * A * B` (column, value), then
/// for every entry of row `i` of `beta * D`.
#[inline(always)]
fn for_each_product<I: Index, T: Scalar>(
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    d: Option<&Csr<I, T>>,
    i: usize,
    (alpha, beta): (T, T),
    mut f: impl FnMut(usize, T),
) {
    let (ac, av) = row_of(a, i);
    for (r, &x) in ac.iter().zip(av) {
        let x = alpha * x;
        let (bc, bv) = row_of(b, r.to_usize());
        // Indexed over equal-length slices: no bounds checks, and cheaper than a zip.
        for k in 0..bc.len() {
            f(bc[k].to_usize(), x * bv[k]);
        }
    }
    if let Some(d) = d {
        let (dc, dv) = row_of(d, i);
        for k in 0..dc.len() {
            f(dc[k].to_usize(), beta * dv[k]);
        }
    }
}

/// Calls `f(j)` for the column of every product of row `i` of `A * B`, then of every
/// entry of row `i` of `D` (the structure only).
#[inline(always)]
fn for_each_column<I: Index, T: Scalar>(
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    d: Option<&Csr<I, T>>,
    i: usize,
    mut f: impl FnMut(usize),
) {
    for r in &a.col_idx()[a.row_range(i)] {
        for j in &b.col_idx()[b.row_range(r.to_usize())] {
            f(j.to_usize());
        }
    }
    if let Some(d) = d {
        for j in &d.col_idx()[d.row_range(i)] {
            f(j.to_usize());
        }
    }
}

/// Symbolic first pass: the row pointer of `C` (each row's distinct columns counted
/// with the stamps), checked against `I`.
fn count_rows<I: Index, T: Scalar>(
    a: &Csr<I, T>,
    b: &Csr<I, T>,
    d: Option<&Csr<I, T>>,
    bounds: &[usize],
) -> Result<Vec<I>> {
    let m = a.nrows();
    // ptr[i + 1] first holds row i's count (at most B's column count, which fits I),
    // then the prefix sums, each checked against I.
    let mut ptr = vec![I::from_usize(0); m + 1];
    split_rows(&mut ptr[1..], bounds)
        .into_par_iter()
        .zip(bounds.par_windows(2))
        .for_each(|(cc, w)| {
            with_stamps(b.ncols(), |st| {
                for (c, i) in cc.iter_mut().zip(w[0]..w[1]) {
                    st.next_row();
                    let mut k = 0;
                    for_each_column(a, b, d, i, |j| k += st.mark(j) as usize);
                    *c = I::from_usize(k);
                }
            })
        });
    let mut acc = 0usize;
    for p in &mut ptr[1..] {
        acc += p.to_usize();
        check_fits::<I>("nnz of C", acc)?;
        *p = I::from_usize(acc);
    }
    Ok(ptr)
}

/// Where each piece's entries start in `C`'s arrays.
fn entry_bounds<I: Index>(ptr: &[I], bounds: &[usize]) -> Vec<usize> {
    bounds.iter().map(|&r| ptr[r].to_usize()).collect()
}

/// Moves the accumulated values of the row's columns `cols` into `vals`, in order,
/// leaving the accumulator zero.
#[inline(always)]
fn gather<I: Index, T: Scalar>(acc: &mut [T], cols: &[I], vals: &mut [T]) {
    for (v, j) in vals.iter_mut().zip(cols) {
        let a = &mut acc[j.to_usize()];
        *v = *a;
        *a = T::zero();
    }
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
    /// Workspace bytes per thread: a `u32` stamp and an accumulator value per column of
    /// `B`, kept by the thread across calls.
    pub fn buffer_size<T: Scalar>(_a: &Csr<I, T>, b: &Csr<I, T>) -> usize {
        rayon::current_num_threads()
            * b.ncols()
            * (std::mem::size_of::<u32>() + std::mem::size_of::<T>())
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
        let bounds = product_split(a, b, d);
        let ptr = count_rows(a, b, d, &bounds)?;
        let mut idx = vec![I::from_usize(0); ptr[a.nrows()].to_usize()];
        split_rows(&mut idx, &entry_bounds(&ptr, &bounds))
            .into_par_iter()
            .zip(bounds.par_windows(2))
            .for_each(|(out, w)| {
                with_stamps(b.ncols(), |st| {
                    let mut at = 0;
                    for i in w[0]..w[1] {
                        st.next_row();
                        let start = at;
                        // The counting pass sized this row for exactly these columns.
                        for_each_column(a, b, d, i, |j| {
                            if st.mark(j) {
                                out[at] = I::from_usize(j);
                                at += 1;
                            }
                        });
                        out[start..at].sort_unstable();
                    }
                })
            });
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

    /// Row pointer of the analysed pattern of `C`.
    pub fn row_ptr(&self) -> &[I] {
        &self.ptr
    }

    /// Column indices of the analysed pattern of `C` (sorted within each row).
    pub fn col_idx(&self) -> &[I] {
        &self.idx
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
        let mut vals = vec![T::zero(); self.idx.len()];
        self.compute_values(alpha, a, b, beta, d, &mut vals)?;
        Ok(Csr::from_inner(Compressed {
            nmajor: a.nrows(),
            nminor: b.ncols(),
            ptr: par_clone(&self.ptr),
            idx: par_clone(&self.idx),
            vals,
        }))
    }

    /// Numeric stage for a plan used once: like [`Self::compute`], but the plan's
    /// pattern moves into `C` instead of being copied (a copy of a 10^7-entry pattern
    /// costs about as much as the numeric stage itself).
    pub fn into_csr<T: Scalar>(
        self,
        alpha: T,
        a: &Csr<I, T>,
        b: &Csr<I, T>,
        beta: T,
        d: Option<&Csr<I, T>>,
    ) -> Result<Csr<I, T>> {
        let mut vals = vec![T::zero(); self.idx.len()];
        self.compute_values(alpha, a, b, beta, d, &mut vals)?;
        Ok(Csr::from_inner(Compressed {
            nmajor: a.nrows(),
            nminor: b.ncols(),
            ptr: self.ptr,
            idx: self.idx,
            vals,
        }))
    }

    /// Numeric stage into a caller's array: `values` receives `C`'s values in the order
    /// of the analysed pattern ([`Self::row_ptr`], [`Self::col_idx`]) — e.g. the
    /// `values_mut()` of a `C` from an earlier [`Self::compute`]. Repeated products with
    /// new values then allocate nothing (rocSPARSE's numeric stage writes into `C` too).
    /// A product outside the pattern is an error, and `values` is then unspecified.
    pub fn compute_values<T: Scalar>(
        &self,
        alpha: T,
        a: &Csr<I, T>,
        b: &Csr<I, T>,
        beta: T,
        d: Option<&Csr<I, T>>,
        values: &mut [T],
    ) -> Result<()> {
        let sigs = [shape_sig(a), shape_sig(b), d.map_or((0, 0, 0), shape_sig)];
        rocm_core::ensure_arg!(
            sigs == self.sigs,
            "A/B/D",
            "shapes/nnz {sigs:?} differ from the analysed {:?}",
            self.sigs
        );
        super::check_len("values", values.len(), self.idx.len())?;
        let (ptr, n) = (&self.ptr, b.ncols());
        split_rows(values, &entry_bounds(ptr, &self.bounds))
            .into_par_iter()
            .zip(self.bounds.par_windows(2))
            .try_for_each(|(vc, w)| {
                with_stamps(n, |st| {
                    with_acc(n, |acc: &mut [T]| {
                        let base = ptr[w[0]].to_usize();
                        for i in w[0]..w[1] {
                            let (s, e) = (ptr[i].to_usize(), ptr[i + 1].to_usize());
                            let cols = &self.idx[s..e];
                            st.next_row();
                            for j in cols {
                                st.mark(j.to_usize());
                            }
                            // Only the row's own columns are accumulated into, so the
                            // gather below leaves the accumulator zero even on error.
                            let mut outside = false;
                            for_each_product(a, b, d, i, (alpha, beta), |j, v| {
                                if st.seen(j) {
                                    acc[j] += v;
                                } else {
                                    outside = true;
                                }
                            });
                            gather(acc, cols, &mut vc[s - base..e - base]);
                            if outside {
                                return Err(changed());
                            }
                        }
                        Ok(())
                    })
                })
            })
    }
}

/// One-shot `C = alpha * A * B + beta * D` (for a product computed once): the counting
/// pass, then each row's pattern and values written straight into `C` in one sweep over
/// its products, without keeping a plan. Same arithmetic, in the same order, as
/// [`Spgemm::analysis`] followed by [`Spgemm::compute`] (each entry starts at zero and
/// adds its products in order).
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
    let bounds = product_split(a, b, d);
    let ptr = count_rows(a, b, d, &bounds)?;
    let nnz = ptr[m].to_usize();
    let (mut idx, mut vals) = (vec![I::from_usize(0); nnz], vec![T::zero(); nnz]);
    let eb = entry_bounds(&ptr, &bounds);
    split_rows(&mut idx, &eb)
        .into_par_iter()
        .zip(split_rows(&mut vals, &eb))
        .zip(bounds.par_windows(2))
        .for_each(|((ic, vc), w)| {
            with_stamps(n, |st| {
                with_acc(n, |acc: &mut [T]| {
                    let mut at = 0;
                    for i in w[0]..w[1] {
                        st.next_row();
                        let start = at;
                        // The counting pass sized this row for exactly these columns.
                        for_each_product(a, b, d, i, (alpha, beta), |j, v| {
                            if st.mark(j) {
                                ic[at] = I::from_usize(j);
                                at += 1;
                            }
                            acc[j] += v;
                        });
                        let cols = &mut ic[start..at];
                        cols.sort_unstable();
                        gather(acc, cols, &mut vc[start..at]);
                    }
                })
            })
        });
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
