//! Singular values (and vectors) of a real upper bidiagonal matrix by implicit QR
//! iteration (Golub–Kahan SVD steps with a Wilkinson shift from the trailing 2×2 of
//! BᵀB, the algorithm of LAPACK's BDSQR without its zero-shift and direction choices).
//!
//! B = U_b·Σ·V_bᵀ. Each step chases a bulge down an unreduced block with alternating
//! right and left plane rotations; a superdiagonal element is negligible once
//! |e_i| <= ε·(|d_i| + |d_{i+1}|) or |e_i| <= ε·‖B‖ (the matrix is scaled to ‖B‖ ≈ 1
//! first), which bounds the backward error by a small multiple of n·ε·‖B‖. A negligible
//! diagonal element is set to zero and its row (or, at the bottom of a block, its column)
//! is chased to zero with rotations, which splits the block (Golub & Van Loan §8.6.2).
//! The rotations of a step are applied to the rows of U_b and V_b afterwards, rows
//! spread over rayon's threads (LASR). Budget: 30·n steps; when it runs out, `info` is
//! the number of superdiagonal elements left unconverged.

use crate::rotations::{pythag, RowPanels};
use crate::Real;

/// (c, s, r) with c·f + s·g = r and −s·f + c·g = 0.
fn givens<R: Real>(f: R, g: R) -> (R, R, R) {
    let r = pythag(f, g);
    if r == R::zero() {
        (R::one(), R::zero(), R::zero())
    } else {
        (f / r, g / r, r)
    }
}

/// The matrices the rotations update: U ← U·U_b and V ← V·V_b.
pub(crate) struct Vectors<'a, R> {
    pub u: Option<&'a mut RowPanels<R>>,
    pub v: Option<&'a mut RowPanels<R>>,
}

/// The rotation (x_p, x_q) ← (c·x_p + s·x_q, −s·x_p + c·x_q) in
/// [`RowPanels::rotate`]'s form.
fn rot<R: Real>(p: usize, q: usize, c: R, s: R) -> (usize, usize, R, R) {
    (p, q, c, -s)
}

/// Singular value decomposition of the n×n upper bidiagonal B (diagonal `d`,
/// superdiagonal `e`, n − 1): on return `d` holds the singular values in descending
/// order; `vecs.u` and `vecs.v` (n columns; start from the identity for U_b and V_b)
/// become U·U_b and V·V_b. `e` is destroyed. Returns 0, or the number of unconverged superdiagonal
/// elements (the values are then unordered).
pub(crate) fn bdsqr<R: Real>(
    d: &mut [R],
    e: &mut [R],
    mut vecs: Vectors<'_, R>,
    max_steps: usize,
) -> usize {
    let n = d.len();
    if n == 0 {
        return 0;
    }
    let eps = R::epsilon();
    let smax = d.iter().chain(e[..n - 1].iter()).fold(R::zero(), |m, &x| {
        if x.abs() > m || x.is_nan() {
            x.abs()
        } else {
            m
        }
    });
    let scaled = smax > R::zero() && smax.is_finite();
    if scaled {
        d.iter_mut().for_each(|x| *x /= smax);
        e[..n - 1].iter_mut().for_each(|x| *x /= smax);
    }
    let thresh = eps;
    let negligible = |d: &[R], e: &[R], i: usize| {
        let x = e[i].abs();
        x <= eps * (d[i].abs() + d[i + 1].abs()) || x <= thresh
    };
    let mut urots = Vec::with_capacity(n);
    let mut vrots = Vec::with_capacity(n);
    let mut steps = 0;
    let mut info = 0;
    let mut h = n - 1;
    loop {
        // The bottom of the lowest unreduced block.
        while h > 0 && negligible(d, e, h - 1) {
            e[h - 1] = R::zero();
            h -= 1;
        }
        if h == 0 {
            break;
        }
        let mut l = h - 1;
        while l > 0 && !negligible(d, e, l - 1) {
            l -= 1;
        }
        if l > 0 {
            e[l - 1] = R::zero();
        }
        urots.clear();
        vrots.clear();
        if let Some(k) = (l..=h).find(|&k| d[k].abs() <= thresh) {
            d[k] = R::zero();
            if k < h {
                // Row k holds only e[k]: rotate it into the rows below (from the left).
                let mut x = e[k];
                e[k] = R::zero();
                for j in k + 1..=h {
                    let (c, s, r) = givens(d[j], x);
                    d[j] = r;
                    if j < h {
                        x = -s * e[j];
                        e[j] *= c;
                    }
                    urots.push(rot(j, k, c, s));
                }
            } else {
                // Column h holds only e[h − 1]: rotate it into the columns to its left.
                let mut x = e[h - 1];
                e[h - 1] = R::zero();
                for j in (l..h).rev() {
                    let (c, s, r) = givens(d[j], x);
                    d[j] = r;
                    if j > l {
                        x = -s * e[j - 1];
                        e[j - 1] *= c;
                    }
                    vrots.push(rot(j, h, c, s));
                }
            }
        } else {
            if steps >= max_steps {
                info = e[..n - 1].iter().filter(|&&x| x != R::zero()).count();
                break;
            }
            steps += 1;
            golub_kahan_step(d, e, l, h, &mut urots, &mut vrots);
        }
        if let Some(u) = vecs.u.as_deref_mut() {
            u.rotate(&urots);
        }
        if let Some(v) = vecs.v.as_deref_mut() {
            v.rotate(&vrots);
        }
    }
    if scaled {
        d.iter_mut().for_each(|x| *x *= smax);
    }
    if info > 0 {
        return info;
    }
    // Nonnegative values (flip V_b's column), then descending order.
    for (i, x) in d.iter_mut().enumerate() {
        if *x < R::zero() {
            *x = -*x;
            if let Some(v) = vecs.v.as_deref_mut() {
                v.negate_col(i);
            }
        }
    }
    for i in 0..n.saturating_sub(1) {
        let mut k = i;
        for j in i + 1..n {
            if d[j] > d[k] {
                k = j;
            }
        }
        if k != i {
            d.swap(i, k);
            for m in [vecs.u.as_deref_mut(), vecs.v.as_deref_mut()]
                .into_iter()
                .flatten()
            {
                m.swap_cols(i, k);
            }
        }
    }
    0
}

/// One implicit shifted QR step on the unreduced block l..=h of B.
fn golub_kahan_step<R: Real>(
    d: &mut [R],
    e: &mut [R],
    l: usize,
    h: usize,
    urots: &mut Vec<(usize, usize, R, R)>,
    vrots: &mut Vec<(usize, usize, R, R)>,
) {
    let two = R::one() + R::one();
    // Wilkinson shift: the eigenvalue of BᵀB's trailing 2×2 closer to its last entry.
    let above = if h - 1 > l {
        e[h - 2] * e[h - 2]
    } else {
        R::zero()
    };
    let t11 = d[h - 1] * d[h - 1] + above;
    let t12 = d[h - 1] * e[h - 1];
    let t22 = d[h] * d[h] + e[h - 1] * e[h - 1];
    let delta = (t11 - t22) / two;
    let root = delta.hypot(t12);
    let mu = if delta == R::zero() && t12 == R::zero() {
        t22
    } else {
        let denom = delta + if delta >= R::zero() { root } else { -root };
        if denom == R::zero() {
            t22 - t12.abs()
        } else {
            t22 - t12 * t12 / denom
        }
    };
    let mut y = d[l] * d[l] - mu;
    let mut z = d[l] * e[l];
    for k in l..h {
        // Right rotation of columns k, k+1: zero z against y.
        let (c, s, r) = givens(y, z);
        if k > l {
            e[k - 1] = r;
        }
        let (dk, ek, dk1) = (d[k], e[k], d[k + 1]);
        d[k] = c * dk + s * ek;
        e[k] = -s * dk + c * ek;
        let bulge = s * dk1;
        d[k + 1] = c * dk1;
        vrots.push(rot(k, k + 1, c, s));
        // Left rotation of rows k, k+1: zero the bulge below the diagonal.
        let (c, s, r) = givens(d[k], bulge);
        d[k] = r;
        let (ek, dk1) = (e[k], d[k + 1]);
        e[k] = c * ek + s * dk1;
        d[k + 1] = -s * ek + c * dk1;
        urots.push(rot(k, k + 1, c, s));
        if k + 1 < h {
            z = s * e[k + 1];
            e[k + 1] *= c;
            y = e[k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ‖B − U·Σ·Vᵀ‖ small and values against a known case: the bidiagonal with ones on
    /// both diagonals has singular values 2·cos(kπ/(2n+1)).
    #[test]
    fn ones_bidiagonal() {
        for n in [1usize, 2, 5, 40] {
            let mut d = vec![1.0f64; n];
            let mut e = vec![1.0f64; n.saturating_sub(1)];
            let mut u = RowPanels::identity(n);
            let mut v = RowPanels::identity(n);
            let vecs = Vectors {
                u: Some(&mut u),
                v: Some(&mut v),
            };
            assert_eq!(bdsqr(&mut d, &mut e, vecs, 30 * n), 0);
            let mut exact: Vec<f64> = (1..=n)
                .map(|k| 2.0 * ((k as f64) * std::f64::consts::PI / (2 * n + 1) as f64).cos())
                .collect();
            exact.sort_by(|a, b| b.total_cmp(a));
            for (x, y) in d.iter().zip(&exact) {
                assert!(
                    (x - y).abs() < 16.0 * n as f64 * f64::EPSILON,
                    "{n}: {x} {y}"
                );
            }
            // B = U·Σ·Vᵀ entry by entry.
            for i in 0..n {
                for j in 0..n {
                    let b = if i == j || j == i + 1 { 1.0 } else { 0.0 };
                    let usv: f64 = (0..n).map(|k| u.get(i, k) * d[k] * v.get(j, k)).sum();
                    assert!(
                        (b - usv).abs() < 32.0 * n as f64 * f64::EPSILON,
                        "{n} {i} {j}"
                    );
                }
            }
        }
    }

    #[test]
    fn exhausted_budget_is_reported() {
        let mut d = vec![3.0f64, 2.0, 1.0];
        let mut e = vec![0.5f64, 0.5];
        let vecs = Vectors { u: None, v: None };
        assert_eq!(bdsqr(&mut d, &mut e, vecs, 0), 2);
    }
}
