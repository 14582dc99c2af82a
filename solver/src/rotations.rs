//! Plane rotations applied to every row of a matrix (LAPACK's LASR on the CPU), for the
//! eigen- and singular vectors the QL / QR iterations accumulate.
//!
//! A sweep's rotations act on columns (p, q) in order, the same sequence for every row.
//! Rows are independent, but within one row each rotation depends on the previous one,
//! so the matrix is kept in row panels of [`LANES`] rows, column after column: element
//! (r, c) sits at (r / LANES)·LANES·n + c·LANES + r mod LANES. A rotation then updates two
//! contiguous LANES-long vectors (SIMD across rows), and a panel (LANES·n values, a few
//! KiB to a few hundred) stays in cache for the whole sweep; panels go to rayon's
//! threads.

use crate::Real;
use rayon::prelude::*;

/// √(f² + g²): the plain formula where f² + g² neither underflows nor overflows (the
/// iterations run on matrices scaled into LAPACK's safe range, so almost always), else
/// `hypot`, which is several times slower.
pub(crate) fn pythag<R: Real>(f: R, g: R) -> R {
    let s = f * f + g * g;
    if s > R::min_positive_value() && s < R::max_value() {
        s.sqrt()
    } else {
        f.hypot(g)
    }
}

/// Rows per panel.
pub(crate) const LANES: usize = 8;

/// Panels per rayon task.
const PANELS_PER_TASK: usize = 2;

/// A `rows × n` real matrix in row panels.
pub(crate) struct RowPanels<R> {
    data: Vec<R>,
    rows: usize,
    n: usize,
}

impl<R: Real> RowPanels<R> {
    /// The n×n identity.
    pub fn identity(n: usize) -> Self {
        let rows = n;
        let mut m = RowPanels {
            data: vec![R::zero(); rows.div_ceil(LANES) * LANES * n],
            rows,
            n,
        };
        for i in 0..n {
            let k = m.index(i, i);
            m.data[k] = R::one();
        }
        m
    }

    fn index(&self, r: usize, c: usize) -> usize {
        (r / LANES) * LANES * self.n + c * LANES + r % LANES
    }

    /// Element (r, c).
    pub fn get(&self, r: usize, c: usize) -> R {
        self.data[self.index(r, c)]
    }

    /// Applies the rotations (p, q, c, s) in order to every row:
    /// (x_p, x_q) ← (c·x_p − s·x_q, s·x_p + c·x_q), i.e. M ← M·G₁·G₂·… on columns p, q.
    pub fn rotate(&mut self, rots: &[(usize, usize, R, R)]) {
        let n = self.n;
        if rots.is_empty() || n == 0 || self.rows == 0 {
            return;
        }
        let apply = |panel: &mut [R]| apply_panel(panel, rots);
        #[cfg(target_arch = "x86_64")]
        let apply = {
            let avx2 = std::is_x86_feature_detected!("avx2");
            move |panel: &mut [R]| {
                if avx2 {
                    // SAFETY: the CPU has AVX2 (detected just above), the only
                    // requirement of the target-feature function.
                    unsafe { apply_panel_avx2(panel, rots) }
                } else {
                    apply(panel)
                }
            }
        };
        let panel = LANES * n;
        if self.data.len() * rots.len() >= 1 << 16 {
            self.data
                .par_chunks_mut(panel)
                .with_min_len(PANELS_PER_TASK)
                .for_each(apply);
        } else {
            self.data.chunks_mut(panel).for_each(apply);
        }
    }

    /// Swaps columns i and k.
    pub fn swap_cols(&mut self, i: usize, k: usize) {
        let n = self.n;
        for panel in self.data.chunks_mut(LANES * n) {
            for l in 0..LANES {
                panel.swap(i * LANES + l, k * LANES + l);
            }
        }
    }

    /// Negates column i.
    pub fn negate_col(&mut self, i: usize) {
        let n = self.n;
        for panel in self.data.chunks_mut(LANES * n) {
            panel[i * LANES..(i + 1) * LANES]
                .iter_mut()
                .for_each(|x| *x = -*x);
        }
    }
}

/// The rotations applied to one panel (LANES rows, column after column).
#[inline(always)]
fn apply_panel<R: Real>(panel: &mut [R], rots: &[(usize, usize, R, R)]) {
    for &(p, q, c, s) in rots {
        let (lo, hi) = (p.min(q), p.max(q));
        let (head, tail) = panel.split_at_mut(hi * LANES);
        let a: &mut [R; LANES] = (&mut head[lo * LANES..(lo + 1) * LANES])
            .try_into()
            .expect("LANES values");
        let b: &mut [R; LANES] = (&mut tail[..LANES]).try_into().expect("LANES values");
        let (xp, xq) = if p < q { (a, b) } else { (b, a) };
        // Read both vectors before writing: no store can feed a later load, so the lane
        // loops vectorise.
        let (u, v) = (*xp, *xq);
        for l in 0..LANES {
            xp[l] = c * u[l] - s * v[l];
        }
        for l in 0..LANES {
            xq[l] = s * u[l] + c * v[l];
        }
    }
}

/// [`apply_panel`] compiled for AVX2 (4 f64 or 8 f32 lanes per instruction; the
/// workspace's baseline is SSE2).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn apply_panel_avx2<R: Real>(panel: &mut [R], rots: &[(usize, usize, R, R)]) {
    apply_panel(panel, rots)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a plain row-by-row application, rows not a multiple of LANES.
    #[test]
    fn matches_row_by_row() {
        for n in [1usize, 3, 9, 17] {
            let mut m = RowPanels::<f64>::identity(n);
            let mut plain: Vec<Vec<f64>> = (0..n)
                .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
                .collect();
            let rots: Vec<(usize, usize, f64, f64)> = (0..n.saturating_sub(1))
                .map(|i| {
                    let t = 0.3 + i as f64;
                    (i, (i * 7 + 1) % n, t.cos(), t.sin())
                })
                .filter(|r| r.0 != r.1)
                .collect();
            m.rotate(&rots);
            for row in plain.iter_mut() {
                for &(p, q, c, s) in &rots {
                    let (u, v) = (row[p], row[q]);
                    row[p] = c * u - s * v;
                    row[q] = s * u + c * v;
                }
            }
            if n > 1 {
                m.swap_cols(0, n - 1);
                m.negate_col(1);
                plain.iter_mut().for_each(|r| {
                    r.swap(0, n - 1);
                    r[1] = -r[1];
                });
            }
            for (i, row) in plain.iter().enumerate() {
                for (j, &x) in row.iter().enumerate() {
                    assert_eq!(m.get(i, j), x, "{n}: ({i}, {j})");
                }
            }
        }
    }
}
