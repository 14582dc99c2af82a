//! The blocked trsv on GPUs: x ← op(A)⁻¹·x with A triangular, every uplo, trans
//! and diag.
//!
//! M = op(A) is lower (forward substitution) for (Lower, N) and (Upper, T/C), upper
//! (backward) otherwise. The diagonal blocks of order NB are taken in substitution
//! order; for each, one launch of `rocm_blas_trsv_block` solves x(K) ← M(K, K)⁻¹·x(K)
//! in shared memory (one workgroup), then the generated gemv (α = −1, β = 1) subtracts
//! M(R, K)·x(K) from the rows R not yet solved (R after K forward, before K backward):
//! A's sub-block (R, K) with N, (K, R) with T/C. Everything is queued on the handle's
//! stream; the host only walks the blocks. This is the right-looking blocked
//! substitution, backward stable like the unblocked one (Higham, §8.3).
//!
//! tpsv and tbsv run the same plan on A's packed or band storage itself (no dense copy,
//! no workspace): the block kernel reads the diagonal block in place (a band's elements
//! beyond k are the zeros they are), and each update is the triangle kernel's windowed
//! trmv (`rocm_blas_tri_mv`, op N/T/C, α = −1, β = 1, rows R, columns K) on that
//! storage, whose loops stay within the stored part. For a band only the k rows of R
//! nearest K are touched ([`update_rows`]), so a solve reads O(n·k) elements of A in
//! 2⌈n/NB⌉ launches; packed storage reads each stored element once (n²/2).

use super::trimv::{product, TriMvCall, Window};
use super::{
    gemv, logical_start, raw_view, require, routine_error, vector_span, GemvCall, Kernels,
};
use crate::gpu::level1::ScalarArg;
use crate::Blas;
use rocm_core::{DType, Result};
use rocm_kernels::exec::execute;
use rocm_kernels::level2::gemv::{GemvTrans, GemvTuning};
use rocm_kernels::level2::plan::{self as l2plan, Matrix, TrsvProblem, Vector as PlanVector};
use rocm_kernels::level2::trimv::TriMvOp;
use rocm_kernels::level2::Storage;

/// One solve on device addresses.
pub(crate) struct TrsvCall<'a> {
    pub upper: bool,
    pub trans: GemvTrans,
    pub unit: bool,
    pub dtype: DType,
    pub n: usize,
    /// How A's triangle is stored, and the band's off-diagonals k (band only).
    pub storage: Storage,
    pub band: usize,
    /// Lowest address of A and its leading dimension (unused when packed).
    pub a: u64,
    pub lda: usize,
    /// Lowest address of x and its increment.
    pub x: (u64, isize),
    /// −1 and 1 as the dtype's reals (the gemv updates' α and β).
    pub minus_one: &'a [ScalarArg],
    pub one: &'a [ScalarArg],
}

/// One step of the blocked substitution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
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

/// The steps for order n, blocks of nb, M = op(A) lower (`forward`) or upper; A's block
/// of M(R, K) is A(R, K), or A(K, R) when `transposed`.
fn plan(n: usize, nb: usize, forward: bool, transposed: bool) -> Vec<Step> {
    let blocks = n.div_ceil(nb);
    let mut steps = Vec::with_capacity(2 * blocks);
    for step in 0..blocks {
        let kb = if forward { step } else { blocks - 1 - step };
        let k0 = kb * nb;
        let bs = nb.min(n - k0);
        steps.push(Step::Solve { k0 });
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
        steps.push(Step::Update {
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

/// x ← op(A)⁻¹·x (n ≥ 1; views checked by the caller).
pub(crate) fn trsv(blas: &Blas, routine: &str, call: &TrsvCall<'_>) -> Result<()> {
    let dense = call.storage == Storage::Dense;
    let update_kernels = if dense { Kernels::Gemv } else { Kernels::TriMv };
    require(blas, routine, &[Kernels::Trsv, update_kernels])?;
    let problem = TrsvProblem {
        upper: call.upper,
        trans: call.trans,
        unit: call.unit,
        dtype: call.dtype,
        n: call.n as u64,
        storage: call.storage,
        band: call.band as u64,
        a: Matrix {
            slot: 0,
            address: call.a,
            lda: call.lda as u64,
        },
        x: PlanVector {
            slot: 1,
            address: call.x.0,
            inc: call.x.1 as i64,
        },
    };
    let target = blas.device().target();
    // The first block's plan refuses what the kernels cannot index before anything is
    // queued.
    l2plan::plan_trsv_block(&problem, 0, target).map_err(|e| routine_error(blas, routine, e))?;
    let nb = problem.block_order() as usize;
    let (n, es) = (call.n, call.dtype.size());
    // SAFETY: the caller checked A (n×n at lda, packed, or band at lda) and x (n at
    // incx from its lowest element) on this device and holds them across the queued work.
    let views = unsafe {
        [
            raw_view(blas, call.a, problem.a_elements(), es, false),
            raw_view(blas, call.x.0, vector_span(n, call.x.1), es, true),
        ]
    };
    let x0 = logical_start(call.x.0, call.x.1, n, es as u64);
    let es = es as u64;
    let transposed = call.trans != GemvTrans::N;
    let forward = call.upper == transposed;
    for step in plan(n, nb, forward, transposed) {
        match step {
            Step::Solve { k0 } => {
                let solve = l2plan::plan_trsv_block(&problem, k0 as u64, target)
                    .map_err(|e| routine_error(blas, routine, e))?;
                execute(&solve, blas.stream(), &views, None)
                    .map_err(|e| routine_error(blas, routine, e))?;
            }
            Step::Update {
                row,
                col,
                m,
                n: cols,
                k0,
                bs,
                r0,
                rows,
            } if dense => {
                let update = GemvCall {
                    trans: call.trans,
                    dtype: call.dtype,
                    m,
                    n: cols,
                    a: call.a + (row as u64 + col as u64 * call.lda as u64) * es,
                    lda: call.lda,
                    x: (sub_vector(x0, call.x.1, k0, bs, es), call.x.1),
                    y: (sub_vector(x0, call.x.1, r0, rows, es), call.x.1),
                    alpha: call.minus_one,
                    beta: call.one,
                    read_y: true,
                };
                gemv(blas, &update, GemvTuning::default())?;
            }
            Step::Update {
                k0, bs, r0, rows, ..
            } => {
                // x(R) −= M(R, K)·x(K) on A's own storage: the triangle kernel's trmv
                // with α = −1, β = 1 on the window rows R, columns K (disjoint, so x is
                // read at K and written at R by one launch).
                let (r0, rows) = update_rows(call.storage, call.band, (k0, bs), (r0, rows));
                if rows == 0 {
                    continue;
                }
                let op = match call.trans {
                    GemvTrans::N => TriMvOp::TrmvN,
                    GemvTrans::T => TriMvOp::TrmvT,
                    GemvTrans::C => TriMvOp::TrmvC,
                };
                let update = TriMvCall {
                    op,
                    storage: call.storage,
                    band: call.band,
                    band_lower: 0,
                    window: Some(Window {
                        rows: (r0, r0 + rows),
                        cols: (k0, k0 + bs),
                        lens: (n, n),
                    }),
                    upper: call.upper,
                    unit: false,
                    dtype: call.dtype,
                    n,
                    a: call.a,
                    lda: call.lda,
                    x: call.x,
                    y: call.x,
                    alpha: call.minus_one,
                    beta: call.one,
                    read_y: true,
                };
                product(blas, routine, &update)?;
            }
        }
    }
    Ok(())
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
                    for step in plan(n, nb, forward, transposed) {
                        match step {
                            Step::Solve { k0 } => {
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
                            Step::Update {
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
