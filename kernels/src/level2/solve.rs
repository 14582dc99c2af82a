//! The blocked trsv as one plan: x ← op(A)⁻¹·x with A triangular, every uplo, trans
//! and diag, on dense, packed and band storage (trsv, tpsv, tbsv).
//!
//! M = op(A) is lower (forward substitution) for (Lower, N) and (Upper, T/C), upper
//! (backward) otherwise. The diagonal blocks of order NB are taken in substitution
//! order; for each, one step of `rocm_blas_trsv_block` solves x(K) ← M(K, K)⁻¹·x(K)
//! in shared memory (one workgroup), then the update steps subtract M(R, K)·x(K) from
//! the rows R not yet solved (R after K forward, before K backward): on dense storage
//! the gemv plan (α = −1, β = 1) of A's sub-block (R, K) with N, (K, R) with T/C,
//! built for the sub-views and rebased into A's and x's views; on packed or band
//! storage the triangle kernel's windowed trmv (op N/T/C, α = −1, β = 1, rows R,
//! columns K) on the storage itself (no dense copy). For a band only the k rows of R
//! nearest K are touched ([`update_rows`]), so a solve reads O(n·k) elements of A in
//! 2⌈n/NB⌉ launches. This is the right-looking blocked substitution, backward stable
//! like the unblocked one (Higham, §8.3). The plan's steps run in order on one stream;
//! its workspace is the largest any update needs (updates run one after another).

use super::gemv::{GemvTrans, GemvTuning};
use super::plan::{
    plan as plan_gemv, plan_trimv, plan_trsv_block, GemvProblem, Matrix, TriMvProblem, TriMvWindow,
    TrsvProblem, Vector,
};
use super::trimv::TriMvOp;
use super::Storage;
use crate::catalog::Catalog;
use crate::level1::plan::ScalarArg;
use crate::plan::Plan;
use rocm_core::{DType, Result, Target};

/// One step of the blocked substitution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// x(k0..k0 + bs) ← M(K, K)⁻¹·x(K) (the block kernel).
    Solve { k0: usize },
    /// x(r0..r0 + rows) −= M(R, K)·x(K): a gemv on A's block at (row, col) of m×n with
    /// x = x(k0..k0 + bs) and y = x(r0..r0 + rows).
    Update {
        row: usize,
        col: usize,
        m: usize,
        n: usize,
        k0: usize,
        bs: usize,
        r0: usize,
        rows: usize,
    },
}

/// The phases for order n, blocks of nb, M = op(A) lower (`forward`) or upper; A's block
/// of M(R, K) is A(R, K), or A(K, R) when `transposed`.
fn walk(n: usize, nb: usize, forward: bool, transposed: bool) -> Vec<Phase> {
    let blocks = n.div_ceil(nb);
    let mut steps = Vec::with_capacity(2 * blocks);
    for step in 0..blocks {
        let kb = if forward { step } else { blocks - 1 - step };
        let k0 = kb * nb;
        let bs = nb.min(n - k0);
        steps.push(Phase::Solve { k0 });
        let (r0, rows) = if forward {
            (k0 + bs, n - k0 - bs)
        } else {
            (0, k0)
        };
        if rows == 0 {
            continue;
        }
        let (row, col, m, cols) = if transposed {
            (k0, r0, bs, rows)
        } else {
            (r0, k0, rows, bs)
        };
        steps.push(Phase::Update {
            row,
            col,
            m,
            n: cols,
            k0,
            bs,
            r0,
            rows,
        });
    }
    steps
}

/// Lowest address of logical elements `start..start + len` of a vector whose logical
/// element 0 is at `x0`.
fn sub_vector(x0: u64, inc: isize, start: usize, len: usize, es: u64) -> u64 {
    let step = inc.unsigned_abs() as u64 * es;
    if inc > 0 {
        x0 + start as u64 * step
    } else {
        x0 - (start + len - 1) as u64 * step
    }
}

/// The rows an update must touch: all of `(r0, rows)` for dense and packed storage; for
/// band storage with k off-diagonals only the k nearest the block `[k0, k0 + bs)`
/// (M(R, K) is zero beyond), so the updates of a band solve do O(n·k) work.
fn update_rows(
    storage: Storage,
    band: usize,
    (k0, bs): (usize, usize),
    (r0, rows): (usize, usize),
) -> (usize, usize) {
    if storage != Storage::Band {
        return (r0, rows);
    }
    if r0 >= k0 + bs {
        (r0, rows.min(band))
    } else {
        let kept = rows.min(band);
        (r0 + rows - kept, kept)
    }
}

/// −1 and 1 as the dtype's reals (complex: re, im), the updates' α and β.
fn minus_one_and_one(dtype: DType) -> ([ScalarArg; 2], [ScalarArg; 2], usize) {
    let real = |x: f64| {
        if matches!(dtype, DType::F64 | DType::C64) {
            ScalarArg::F64(x)
        } else {
            ScalarArg::F32(x as f32)
        }
    };
    let comps = if dtype.is_complex() { 2 } else { 1 };
    ([real(-1.0), real(0.0)], [real(1.0), real(0.0)], comps)
}

/// The whole solve of `p` (A in view `p.a.slot`, x in `p.x.slot`, both starting at their
/// lowest elements) on `target`: every block solve and update, in order.
pub fn plan_trsv(p: &TrsvProblem, target: &Target, catalog: &Catalog) -> Result<Plan> {
    // The first block's plan refuses what the kernels cannot index.
    let mut plan = plan_trsv_block(p, 0, target)?;
    plan.steps.clear();
    let nb = p.block_order() as usize;
    let n = p.n as usize;
    let es = p.dtype.size() as u64;
    let inc = p.x.inc as isize;
    let x0 = if inc >= 0 {
        p.x.address
    } else {
        p.x.address + (n as u64 - 1) * inc.unsigned_abs() as u64 * es
    };
    let (minus_one, one, comps) = minus_one_and_one(p.dtype);
    let (alpha, beta) = (&minus_one[..comps], &one[..comps]);
    let transposed = p.trans != GemvTrans::N;
    let forward = p.upper == transposed;
    for phase in walk(n, nb, forward, transposed) {
        match phase {
            Phase::Solve { k0 } => {
                let solve = plan_trsv_block(p, k0 as u64, target)?;
                plan.workspace_bytes = plan.workspace_bytes.max(solve.workspace_bytes);
                plan.steps.extend(solve.steps);
            }
            Phase::Update {
                row,
                col,
                m,
                n: cols,
                k0,
                bs,
                r0,
                rows,
            } if p.storage == Storage::Dense => {
                // The gemv of the sub-views (A's block in slot 0, x(K) in 1, x(R) in 2),
                // moved into A's and x's views.
                let a_at = (row as u64 + col as u64 * p.a.lda) * es;
                let xk = sub_vector(x0, inc, k0, bs, es);
                let xr = sub_vector(x0, inc, r0, rows, es);
                let update = GemvProblem {
                    trans: p.trans,
                    dtype: p.dtype,
                    m: m as u64,
                    n: cols as u64,
                    a: Matrix {
                        slot: 0,
                        address: p.a.address + a_at,
                        lda: p.a.lda,
                    },
                    x: Vector {
                        slot: 1,
                        address: xk,
                        inc: p.x.inc,
                    },
                    y: Vector {
                        slot: 2,
                        address: xr,
                        inc: p.x.inc,
                    },
                    alpha,
                    beta,
                    read_y: true,
                };
                let gemv = plan_gemv(&update, GemvTuning::default(), target, catalog)?;
                plan.workspace_bytes = plan.workspace_bytes.max(gemv.workspace_bytes);
                let (a_slot, x_slot) = (p.a.slot, p.x.slot);
                plan.steps.extend(gemv.steps.into_iter().map(|s| {
                    s.rebased(|slot| match slot {
                        0 => (a_slot, a_at),
                        1 => (x_slot, xk - p.x.address),
                        _ => (x_slot, xr - p.x.address),
                    })
                }));
            }
            Phase::Update {
                k0, bs, r0, rows, ..
            } => {
                // x(R) −= M(R, K)·x(K) on A's own storage: the windowed trmv, rows R and
                // columns K disjoint, so x is read at K and written at R by one launch.
                let (r0, rows) = update_rows(p.storage, p.band as usize, (k0, bs), (r0, rows));
                if rows == 0 {
                    continue;
                }
                let op = match p.trans {
                    GemvTrans::N => TriMvOp::TrmvN,
                    GemvTrans::T => TriMvOp::TrmvT,
                    GemvTrans::C => TriMvOp::TrmvC,
                };
                let update = TriMvProblem {
                    op,
                    storage: p.storage,
                    band: p.band,
                    band_lower: 0,
                    window: Some(TriMvWindow {
                        rows: (r0 as u64, (r0 + rows) as u64),
                        cols: (k0 as u64, (k0 + bs) as u64),
                        lens: (p.n, p.n),
                    }),
                    upper: p.upper,
                    unit: false,
                    dtype: p.dtype,
                    n: p.n,
                    a: p.a,
                    x: p.x,
                    y: p.x,
                    alpha,
                    beta,
                    read_y: true,
                };
                let trmv = plan_trimv(&update, target)?;
                plan.workspace_bytes = plan.workspace_bytes.max(trmv.workspace_bytes);
                plan.steps.extend(trmv.steps);
            }
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Executes the plan in f64 on the host (the block solve and the gemv as plain
    /// loops over A's storage, exactly the sub-blocks the GPU path addresses) and
    /// compares with a direct substitution, for every uplo and trans and several orders.
    #[test]
    fn the_block_plan_solves_every_case() {
        let nb = 4;
        for n in [1, 3, 4, 5, 8, 11] {
            let lda = n + 2;
            for upper in [false, true] {
                for transposed in [false, true] {
                    // A: the stored triangle, diagonally dominant; garbage elsewhere
                    // (the plan must never touch it).
                    let mut a = vec![1e30; lda * n];
                    for j in 0..n {
                        for i in 0..n {
                            let stored = if upper { i <= j } else { i >= j };
                            if stored {
                                let v = ((i * 7 + j * 3) % 11) as f64 / 11.0 - 0.5;
                                a[i + j * lda] = if i == j { 3.0 + v } else { v };
                            }
                        }
                    }
                    // M = op(A) as a dense function.
                    let m_at = |r: usize, c: usize| {
                        let (i, j) = if transposed { (c, r) } else { (r, c) };
                        let stored = if upper { i <= j } else { i >= j };
                        if stored {
                            a[i + j * lda]
                        } else {
                            0.0
                        }
                    };
                    let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
                    let forward = upper == transposed;
                    let mut x = b.clone();
                    for step in walk(n, nb, forward, transposed) {
                        match step {
                            Phase::Solve { k0 } => {
                                let bs = nb.min(n - k0);
                                let order: Vec<usize> = if forward {
                                    (k0..k0 + bs).collect()
                                } else {
                                    (k0..k0 + bs).rev().collect()
                                };
                                for (q, &i) in order.iter().enumerate() {
                                    let mut s = x[i];
                                    for &j in &order[..q] {
                                        s -= m_at(i, j) * x[j];
                                    }
                                    x[i] = s / m_at(i, i);
                                }
                            }
                            Phase::Update {
                                row,
                                col,
                                m,
                                n: cols,
                                k0,
                                bs,
                                r0,
                                rows,
                            } => {
                                // gemv on A(row.., col..) of m×cols, op as `transposed`.
                                let sub = |i: usize, j: usize| a[row + i + (col + j) * lda];
                                let (ylen, xlen) = if transposed { (cols, m) } else { (m, cols) };
                                assert_eq!((ylen, xlen), (rows, bs));
                                for yi in 0..ylen {
                                    let mut s = 0.0;
                                    for xi in 0..xlen {
                                        let v = if transposed { sub(xi, yi) } else { sub(yi, xi) };
                                        assert!(v.abs() < 1e29, "read outside the triangle");
                                        s += v * x[k0 + xi];
                                    }
                                    x[r0 + yi] -= s;
                                }
                            }
                        }
                    }
                    for (i, bi) in b.iter().enumerate() {
                        let r: f64 = (0..n).map(|j| m_at(i, j) * x[j]).sum::<f64>() - bi;
                        assert!(
                            r.abs() < 1e-12,
                            "n {n} upper {upper} transposed {transposed}: residual {r} row {i}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn band_updates_touch_only_the_k_nearest_rows() {
        // Forward: the rows after the block, at most k of them.
        assert_eq!(
            update_rows(Storage::Band, 3, (64, 64), (128, 500)),
            (128, 3)
        );
        assert_eq!(
            update_rows(Storage::Band, 900, (64, 64), (128, 500)),
            (128, 500)
        );
        // Backward: the rows just before the block.
        assert_eq!(update_rows(Storage::Band, 3, (64, 64), (0, 64)), (61, 3));
        assert_eq!(update_rows(Storage::Band, 0, (64, 64), (0, 64)), (64, 0));
        // Dense and packed: every row.
        assert_eq!(update_rows(Storage::Packed, 3, (64, 64), (0, 64)), (0, 64));
    }

    #[test]
    fn sub_vectors_start_at_their_lowest_element() {
        // Logical element 0 at 1000, 8-byte elements.
        assert_eq!(sub_vector(1000, 2, 3, 4, 8), 1000 + 3 * 2 * 8);
        // Negative: logical element 3 + 4 − 1 = 6 is the lowest, 6·3·8 below x0.
        assert_eq!(sub_vector(1000, -3, 3, 4, 8), 1000 - 6 * 3 * 8);
    }
}
