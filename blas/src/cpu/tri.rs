//! Triangular multiply and solve on the CPU (trmm, trsm, and trmv/trsv through them).
//!
//! Every side/uplo/trans combination is first reduced to one canonical problem: a
//! triangular n×n view `T` (lower or upper, read conjugated or not, unit diagonal or not)
//! acting from the left on an n×w view `B`. op(A) from the left is A or Aᵀ (strides
//! swapped, triangle flipped); from the right, `X·op(A) = B` is `op(A)ᵀ·Xᵀ = Bᵀ`, again a
//! left problem on transposed views.
//!
//! The canonical problem is solved recursively: split T at k into T₁₁, T₂₁ (or T₁₂), T₂₂
//! and B into B₁, B₂. For the lower solve, X₁ = T₁₁⁻¹B₁, B₂ −= T₂₁·X₁, X₂ = T₂₂⁻¹B₂; the
//! middle step is a GEMM on the CPU engine, and it carries all but a `BASE/n` share of
//! the flops. Blocks of at most `BASE` rows run a substitution loop. Wide right-hand sides
//! are split into column panels solved independently on rayon threads (each with a
//! single-threaded GEMM); narrow ones run one panel with the GEMM parallel inside.

use crate::cpu::gemm::{gemm_view, scale_view};
use crate::cpu::mat::{MatMut, MatRef};
use crate::{Diag, Scalar, Side, Transpose, Uplo};
use rayon::prelude::*;

/// Triangles of at most this order are solved / multiplied by plain loops.
const BASE: usize = 16;
/// Column panels narrower than this are not worth a thread of their own.
const PANEL_MIN: usize = 48;

/// A triangular view as the canonical algorithm sees it.
#[derive(Clone, Copy)]
pub(crate) struct Tri<'a, T> {
    a: MatRef<'a, T>,
    lower: bool,
    conj: bool,
    unit: bool,
}

impl<'a, T: Scalar> Tri<'a, T> {
    /// op(A) for a left-side operation, or op(A)ᵀ for a right-side one (so that
    /// `X·op(A)` becomes `op(A)ᵀ·Xᵀ`).
    pub fn new(a: MatRef<'a, T>, side: Side, uplo: Uplo, trans: Transpose, diag: Diag) -> Self {
        let transposed = match side {
            Side::Left => trans.is_trans(),
            Side::Right => !trans.is_trans(),
        };
        let lower = uplo == Uplo::Lower;
        Tri {
            a: if transposed { a.t() } else { a },
            lower: lower != transposed,
            conj: trans.is_conj(),
            unit: diag == Diag::Unit,
        }
    }

    fn n(&self) -> usize {
        self.a.rows()
    }

    #[inline]
    fn get(&self, i: usize, j: usize) -> T {
        let v = self.a.get(i, j);
        if self.conj {
            v.conj()
        } else {
            v
        }
    }

    #[inline]
    fn diag(&self, i: usize) -> T {
        if self.unit {
            T::one()
        } else {
            self.get(i, i)
        }
    }

    /// (T₁₁, the off-diagonal block, T₂₂) for a split at k.
    fn split(&self, k: usize) -> (Self, MatRef<'a, T>, Self) {
        let n = self.n();
        let t11 = Tri {
            a: self.a.sub(0, 0, k, k),
            ..*self
        };
        let t22 = Tri {
            a: self.a.sub(k, k, n - k, n - k),
            ..*self
        };
        let off = if self.lower {
            self.a.sub(k, 0, n - k, k)
        } else {
            self.a.sub(0, k, k, n - k)
        };
        (t11, off, t22)
    }
}

/// Where to split an order-n triangle: half, rounded to a multiple of BASE.
fn split_point(n: usize) -> usize {
    (n / 2).div_ceil(BASE) * BASE
}

/// Runs `f` on column panels of `b`, in parallel when `b` is wide; `f` gets whether it
/// may parallelise internally.
fn by_panels<T: Scalar>(b: MatMut<'_, T>, f: impl Fn(MatMut<'_, T>, bool) + Sync) {
    let threads = rayon::current_num_threads();
    let w = b.cols();
    if threads > 1 && w >= 2 * PANEL_MIN {
        let width = w.div_ceil(threads).max(PANEL_MIN);
        b.col_panels(width)
            .into_par_iter()
            .for_each(|p| f(p, false));
    } else {
        f(b, true);
    }
}

/// B ← T⁻¹·B.
pub(crate) fn solve<T: Scalar>(t: Tri<'_, T>, b: MatMut<'_, T>) {
    by_panels(b, |p, par| solve_rec(t, p, par));
}

/// B ← T·B.
pub(crate) fn multiply<T: Scalar>(t: Tri<'_, T>, b: MatMut<'_, T>) {
    by_panels(b, |p, par| multiply_rec(t, p, par));
}

fn solve_rec<T: Scalar>(t: Tri<'_, T>, b: MatMut<'_, T>, par: bool) {
    let n = t.n();
    if n <= BASE {
        return solve_base(t, b);
    }
    if n <= INV_BLOCK && b.cols() >= INV_MIN_COLS {
        return solve_by_inverse(t, b, par);
    }
    let k = split_point(n);
    let (t11, off, t22) = t.split(k);
    let (mut b1, mut b2) = b.split_rows(k);
    let minus = -T::one();
    if t.lower {
        solve_rec(t11, b1.rb_mut(), par);
        gemm_view(
            minus,
            off,
            t.conj,
            b1.rb(),
            false,
            T::one(),
            b2.rb_mut(),
            par,
        );
        solve_rec(t22, b2, par);
    } else {
        solve_rec(t22, b2.rb_mut(), par);
        gemm_view(
            minus,
            off,
            t.conj,
            b2.rb(),
            false,
            T::one(),
            b1.rb_mut(),
            par,
        );
        solve_rec(t11, b1, par);
    }
}

/// Diagonal blocks of at most this order are solved by multiplying with their explicit
/// inverse (as rocBLAS's trsm does) when B is wide: one n×w×n GEMM replaces the small,
/// inefficient GEMMs and scalar loops of the deepest recursion levels.
const INV_BLOCK: usize = 64;
/// Right-hand sides below which the inverse is not worth forming.
const INV_MIN_COLS: usize = 4 * INV_BLOCK;

fn solve_by_inverse<T: Scalar>(t: Tri<'_, T>, mut b: MatMut<'_, T>, par: bool) {
    let (n, w) = (t.n(), b.cols());
    // T⁻¹ by the recursive solve on the identity (n < INV_MIN_COLS columns, so this
    // does not come back here).
    let mut inv = vec![T::zero(); n * n];
    (0..n).for_each(|i| inv[i + i * n] = T::one());
    solve_rec(t, MatMut::new(&mut inv, n, n, n), false);
    let mut rhs = vec![T::zero(); n * w];
    for j in 0..w {
        for i in 0..n {
            rhs[i + j * n] = b.get(i, j);
        }
    }
    let (iv, rv) = (MatRef::new(&inv, n, n, n), MatRef::new(&rhs, n, w, n));
    gemm_view(T::one(), iv, false, rv, false, T::zero(), b.rb_mut(), par);
}

fn multiply_rec<T: Scalar>(t: Tri<'_, T>, b: MatMut<'_, T>, par: bool) {
    let n = t.n();
    if n <= BASE {
        return multiply_base(t, b);
    }
    let k = split_point(n);
    let (t11, off, t22) = t.split(k);
    let (mut b1, mut b2) = b.split_rows(k);
    let one = T::one();
    if t.lower {
        // [L₁₁ 0; L₂₁ L₂₂]·[B₁; B₂]: B₂ needs the old B₁, so it goes first.
        multiply_rec(t22, b2.rb_mut(), par);
        gemm_view(one, off, t.conj, b1.rb(), false, one, b2.rb_mut(), par);
        multiply_rec(t11, b1, par);
    } else {
        multiply_rec(t11, b1.rb_mut(), par);
        gemm_view(one, off, t.conj, b2.rb(), false, one, b1.rb_mut(), par);
        multiply_rec(t22, b2, par);
    }
}

/// The ≤ BASE-order triangle copied into a dense local block (conjugation applied, a
/// unit diagonal stored as one) and its reciprocal diagonal, so the substitution loops
/// below run on plain arrays whatever the strides of the original.
struct Small<T> {
    n: usize,
    a: [T; BASE * BASE],
    inv_diag: [T; BASE],
    lower: bool,
}

impl<T: Scalar> Small<T> {
    fn new(t: &Tri<'_, T>) -> Self {
        let n = t.n();
        assert!(n <= BASE);
        let mut a = [T::zero(); BASE * BASE];
        let mut inv_diag = [T::one(); BASE];
        for j in 0..n {
            for i in 0..n {
                if (t.lower && i > j) || (!t.lower && i < j) {
                    a[i + j * BASE] = t.get(i, j);
                }
            }
            a[j + j * BASE] = t.diag(j);
            inv_diag[j] = t.diag(j).robust_recip();
        }
        Small {
            n,
            a,
            inv_diag,
            lower: t.lower,
        }
    }

    /// Runs `f` on each column of `b` loaded into a local buffer, then stores it back.
    fn columns(&self, mut b: MatMut<'_, T>, f: impl Fn(&mut [T])) {
        let n = self.n;
        let mut buf = [T::zero(); BASE];
        for j in 0..b.cols() {
            if let Some(col) = b.col_slice_mut(j) {
                f(col);
                continue;
            }
            for (i, v) in buf[..n].iter_mut().enumerate() {
                *v = b.get(i, j);
            }
            f(&mut buf[..n]);
            for (i, &v) in buf[..n].iter().enumerate() {
                b.set(i, j, v);
            }
        }
    }
}

/// Column-oriented forward / back substitution on small triangles.
pub(crate) fn solve_base<T: Scalar>(t: Tri<'_, T>, b: MatMut<'_, T>) {
    let s = Small::new(&t);
    let n = s.n;
    s.columns(b, |x| {
        if s.lower {
            for k in 0..n {
                let xk = x[k] * s.inv_diag[k];
                x[k] = xk;
                let col = &s.a[k * BASE..k * BASE + n];
                for i in k + 1..n {
                    x[i] -= col[i] * xk;
                }
            }
        } else {
            for k in (0..n).rev() {
                let xk = x[k] * s.inv_diag[k];
                x[k] = xk;
                let col = &s.a[k * BASE..k * BASE + n];
                for i in 0..k {
                    x[i] -= col[i] * xk;
                }
            }
        }
    });
}

/// In-place triangular product on small triangles, ordered so each step reads only
/// entries not yet overwritten.
fn multiply_base<T: Scalar>(t: Tri<'_, T>, b: MatMut<'_, T>) {
    let s = Small::new(&t);
    let n = s.n;
    s.columns(b, |x| {
        if s.lower {
            for k in (0..n).rev() {
                let xk = x[k];
                let col = &s.a[k * BASE..k * BASE + n];
                x[k] = col[k] * xk;
                for i in k + 1..n {
                    x[i] += col[i] * xk;
                }
            }
        } else {
            for k in 0..n {
                let xk = x[k];
                let col = &s.a[k * BASE..k * BASE + n];
                for i in 0..k {
                    x[i] += col[i] * xk;
                }
                x[k] = col[k] * xk;
            }
        }
    });
}

/// The canonical view of B for `side`: B itself from the left, Bᵀ from the right.
fn canonical_b<T: Scalar>(side: Side, b: MatMut<'_, T>) -> MatMut<'_, T> {
    match side {
        Side::Left => b,
        Side::Right => b.t(),
    }
}

/// trsm on host slices: B ← α·op(A)⁻¹·B (left) or α·B·op(A)⁻¹ (right). α = 0 sets B to
/// zero without reading A.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trsm<T: Scalar>(
    side: Side,
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    (m, n): (usize, usize),
    alpha: T,
    a: &[T],
    lda: usize,
    b: &mut [T],
    ldb: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let ka = if side == Side::Left { m } else { n };
    let mut bv = MatMut::new(b, m, n, ldb);
    scale_view(alpha, bv.rb_mut());
    if alpha == T::zero() {
        return;
    }
    let t = Tri::new(MatRef::new(a, ka, ka, lda), side, uplo, trans, diag);
    solve(t, canonical_b(side, bv));
}

/// trmm on host slices: B ← α·op(A)·B (left) or α·B·op(A) (right).
#[allow(clippy::too_many_arguments)]
pub(crate) fn trmm<T: Scalar>(
    side: Side,
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    (m, n): (usize, usize),
    alpha: T,
    a: &[T],
    lda: usize,
    b: &mut [T],
    ldb: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let ka = if side == Side::Left { m } else { n };
    let mut bv = MatMut::new(b, m, n, ldb);
    scale_view(alpha, bv.rb_mut());
    if alpha == T::zero() {
        return;
    }
    let t = Tri::new(MatRef::new(a, ka, ka, lda), side, uplo, trans, diag);
    multiply(t, canonical_b(side, bv));
}

/// T ← T⁻¹ in place on the triangle (and, for a non-unit diagonal, the diagonal) of the
/// n×n view `a`; the other triangle is not touched. Recursive: with both diagonal blocks
/// inverted, the off-diagonal block of the inverse is −T₂₂⁻¹·T₂₁·T₁₁⁻¹ (lower) or
/// −T₁₁⁻¹·T₁₂·T₂₂⁻¹ (upper), two triangular products.
pub(crate) fn invert<T: Scalar>(uplo: Uplo, diag: Diag, a: MatMut<'_, T>) {
    let n = a.rows();
    if n <= BASE {
        return invert_base(uplo, diag, a);
    }
    let k = split_point(n);
    let (left, right) = a.split_cols(k);
    let (mut a11, a21) = left.split_rows(k);
    let (a12, mut a22) = right.split_rows(k);
    invert(uplo, diag, a11.rb_mut());
    invert(uplo, diag, a22.rb_mut());
    let (t11, t22) = (a11.rb(), a22.rb());
    let tri = |t, side| Tri::new(t, side, uplo, Transpose::N, diag);
    let (mut off, first, second) = match uplo {
        Uplo::Lower => (a21, t11, t22),
        Uplo::Upper => (a12, t22, t11),
    };
    // Lower: off ← off·T₁₁⁻¹, then −T₂₂⁻¹·off. Upper: off ← off·T₂₂⁻¹, then −T₁₁⁻¹·off.
    multiply(tri(first, Side::Right), off.rb_mut().t());
    multiply(tri(second, Side::Left), off.rb_mut());
    scale_view(-T::one(), off);
}

fn invert_base<T: Scalar>(uplo: Uplo, diag: Diag, mut a: MatMut<'_, T>) {
    let n = a.rows();
    let mut x = vec![T::zero(); n * n];
    (0..n).for_each(|i| x[i + i * n] = T::one());
    let t = Tri::new(a.rb(), Side::Left, uplo, Transpose::N, diag);
    solve_base(t, MatMut::new(&mut x, n, n, n.max(1)));
    for j in 0..n {
        for i in 0..n {
            let keep = i == j && diag == Diag::Unit;
            if uplo.contains(i, j) && !keep {
                a.set(i, j, x[i + j * n]);
            }
        }
    }
}

/// trtri on host slices: the `uplo` triangle of inv_a ← that of A⁻¹ (the diagonal too
/// unless unit).
pub(crate) fn trtri<T: Scalar>(
    uplo: Uplo,
    diag: Diag,
    n: usize,
    (a, lda): (&[T], usize),
    (inv, ldinv): (&mut [T], usize),
) {
    let av = MatRef::new(a, n, n, lda);
    let mut iv = MatMut::new(inv, n, n, ldinv);
    for j in 0..n {
        for i in 0..n {
            if uplo.contains(i, j) && !(i == j && diag == Diag::Unit) {
                iv.set(i, j, av.get(i, j));
            }
        }
    }
    invert(uplo, diag, iv);
}
