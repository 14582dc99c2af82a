//! Eigenvalues (and eigenvectors) of a real symmetric tridiagonal matrix by implicit QL
//! iteration with Wilkinson-type shifts (EISPACK's TQL2, the algorithm of LAPACK's STEQR;
//! values alone take the same iteration without vectors, as STERF does with a root-free
//! variant).
//!
//! Each sweep chases a bulge from the bottom of an unreduced block to its top with n
//! plane rotations; an off-diagonal element is negligible once |e_i| <= ε·(|d_i| +
//! |d_{i+1}|). The rotations of a sweep are collected and applied to the eigenvector
//! matrix afterwards ([`RowPanels::rotate`], LAPACK's LASR on the CPU).
//!
//! The iteration budget is LAPACK's: 30·n sweeps in all. When it runs out the routine
//! reports how many off-diagonal elements have not converged (`info`), as STEQR does.

use crate::rotations::{pythag, RowPanels};
use crate::Real;

/// Eigen-decomposes the symmetric tridiagonal matrix with diagonal `d` (n) and
/// off-diagonal `e` (n − 1): on return `d` holds the eigenvalues in ascending order and,
/// when `z` is given, Z ← Z·(the accumulated rotations) with its columns in the order of
/// the eigenvalues; start from the identity for the tridiagonal's eigenvectors. `e` is destroyed. Returns the number of
/// off-diagonal elements that did not converge within `max_sweeps` (LAPACK: 30·n), 0 on
/// success; the eigenvalues are then unordered.
pub(crate) fn steqr<R: Real>(
    d: &mut [R],
    e: &mut [R],
    mut z: Option<&mut RowPanels<R>>,
    max_sweeps: usize,
) -> usize {
    let n = d.len();
    if n <= 1 {
        return 0;
    }
    let eps = R::epsilon();
    let two = R::one() + R::one();
    // ee[i] couples d[i] and d[i + 1]; ee[n − 1] = 0 closes the last block.
    let mut ee: Vec<R> = e[..n - 1].to_vec();
    ee.push(R::zero());
    let mut sweeps = 0;
    let mut rots: Vec<(usize, usize, R, R)> = Vec::with_capacity(n);
    let mut failed = false;
    'values: for l in 0..n {
        loop {
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if ee[m].abs() <= eps * dd || ee[m] == R::zero() {
                    break;
                }
                m += 1;
            }
            if m == l {
                break;
            }
            if sweeps >= max_sweeps {
                failed = true;
                break 'values;
            }
            sweeps += 1;
            // Shift from the leading 2×2 of the block, then the implicit QL sweep.
            let mut g = (d[l + 1] - d[l]) / (two * ee[l]);
            let mut r = g.hypot(R::one());
            g = d[m] - d[l] + ee[l] / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (R::one(), R::one(), R::zero());
            let mut i = m;
            let mut deflated = false;
            rots.clear();
            while i > l {
                i -= 1;
                let f = s * ee[i];
                let b = c * ee[i];
                r = pythag(f, g);
                ee[i + 1] = r;
                if r == R::zero() {
                    // Underflow: the block splits at i + 1.
                    d[i + 1] -= p;
                    ee[m] = R::zero();
                    deflated = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + two * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                // Column pair (i, i + 1) of Z: (z_i, z_{i+1}) ← (c·z_i − s·z_{i+1}, s·z_i + c·z_{i+1}).
                rots.push((i, i + 1, c, s));
            }
            if let Some(z) = z.as_deref_mut() {
                z.rotate(&rots);
            }
            if deflated {
                continue;
            }
            d[l] -= p;
            ee[l] = g;
            ee[m] = R::zero();
        }
    }
    if failed {
        e[..n - 1].copy_from_slice(&ee[..n - 1]);
        return ee[..n - 1].iter().filter(|&&x| x != R::zero()).count();
    }
    // Ascending order, eigenvectors alongside (selection sort, as LAPACK: n swaps).
    for i in 0..n - 1 {
        let mut k = i;
        for j in i + 1..n {
            if d[j] < d[k] {
                k = j;
            }
        }
        if k != i {
            d.swap(i, k);
            if let Some(z) = z.as_deref_mut() {
                z.swap_cols(i, k);
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tridiagonal with 2 on the diagonal and −1 off it has eigenvalues
    /// 2 − 2·cos(kπ/(n+1)).
    #[test]
    fn second_difference_matrix() {
        for n in [1usize, 2, 3, 10, 57] {
            let mut d = vec![2.0f64; n];
            let mut e = vec![-1.0f64; n.saturating_sub(1)];
            let mut z = RowPanels::identity(n);
            assert_eq!(steqr(&mut d, &mut e, Some(&mut z), 30 * n), 0);
            for (k, &x) in d.iter().enumerate() {
                let exact =
                    2.0 - 2.0 * (((k + 1) as f64) * std::f64::consts::PI / (n + 1) as f64).cos();
                assert!((x - exact).abs() < 8.0 * n as f64 * f64::EPSILON, "{n} {k}");
            }
            // Z orthogonal: Zᵀ·Z = I.
            for i in 0..n {
                for j in 0..n {
                    let dot: f64 = (0..n).map(|k| z.get(k, i) * z.get(k, j)).sum();
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((dot - want).abs() < 8.0 * n as f64 * f64::EPSILON);
                }
            }
        }
    }

    /// No sweeps allowed: every coupled off-diagonal element is reported.
    #[test]
    fn exhausted_budget_is_reported() {
        let mut d = vec![1.0f32, 2.0, 3.0, 4.0];
        let mut e = vec![0.5f32, 0.0, 0.25];
        assert_eq!(steqr(&mut d, &mut e, None, 0), 2);
        let mut d = vec![1.0f64, f64::NAN, 3.0];
        let mut e = vec![0.5f64, 0.5];
        assert!(steqr(&mut d, &mut e, None, 90) > 0);
    }
}
