//! Sequential reference results of every collective: obviously correct, accumulating in
//! `f64` (real and imaginary parts) where the element type is floating point.
//!
//! `inputs[r]` is what rank `r` passes; the functions return what each rank must receive.
//! Floating-point results of the real algorithms differ from these by rounding only
//! (the order of the `n - 1` combines differs); tests bound that difference.

use crate::op::{ReduceOp, Reducible};

/// The reduction of element `i` over ranks, in `f64` (re, im) when `exact` is false; for
/// integers and min/max the element type's own combine in rank order (exact).
fn reduce_elem<T: Reducible>(inputs: &[Vec<T>], i: usize, op: ReduceOp) -> T {
    let mut acc = inputs[0][i];
    for x in &inputs[1..] {
        acc = T::combine(op, acc, x[i]);
    }
    if op == ReduceOp::Avg {
        acc = T::div_ranks(acc, inputs.len());
    }
    acc
}

/// Element `i` of the reduction in `f64` arithmetic: `(re, im)`.
pub fn reduce_f64<T: Reducible>(inputs: &[Vec<T>], i: usize, op: ReduceOp) -> (f64, f64) {
    let n = inputs.len();
    match op {
        ReduceOp::Sum | ReduceOp::Avg => {
            let (re, im) = inputs.iter().fold((0.0, 0.0), |(a, b), x| {
                (a + x[i].to_f64(), b + x[i].imag_f64())
            });
            if op == ReduceOp::Avg {
                (re / n as f64, im / n as f64)
            } else {
                (re, im)
            }
        }
        ReduceOp::Prod => inputs.iter().fold((1.0, 0.0), |(a, b), x| {
            let (c, d) = (x[i].to_f64(), x[i].imag_f64());
            (a * c - b * d, a * d + b * c)
        }),
        ReduceOp::Min | ReduceOp::Max => {
            let v = reduce_elem(inputs, i, op);
            (v.to_f64(), v.imag_f64())
        }
    }
}

/// What every rank holds after `all_reduce` (element type arithmetic in rank order).
pub fn all_reduce<T: Reducible>(inputs: &[Vec<T>], op: ReduceOp) -> Vec<T> {
    let len = inputs.first().map_or(0, Vec::len);
    (0..len).map(|i| reduce_elem(inputs, i, op)).collect()
}

/// What every rank holds after `broadcast` from `root`.
pub fn broadcast<T: Reducible>(inputs: &[Vec<T>], root: usize) -> Vec<T> {
    inputs[root].clone()
}

/// What the root holds after `reduce` (same as [`all_reduce`]).
pub fn reduce<T: Reducible>(inputs: &[Vec<T>], op: ReduceOp) -> Vec<T> {
    all_reduce(inputs, op)
}

/// What every rank holds after `all_gather`: the inputs concatenated in rank order.
pub fn all_gather<T: Reducible>(inputs: &[Vec<T>]) -> Vec<T> {
    inputs.concat()
}

/// What rank `r` holds after `reduce_scatter`: block `r` of the all-reduce.
pub fn reduce_scatter<T: Reducible>(inputs: &[Vec<T>], op: ReduceOp, r: usize) -> Vec<T> {
    let n = inputs.len();
    let count = inputs.first().map_or(0, Vec::len) / n;
    all_reduce(inputs, op)[r * count..(r + 1) * count].to_vec()
}

/// What rank `r` holds after `all_to_all`: block `r` of every rank, in rank order.
pub fn all_to_all<T: Reducible>(inputs: &[Vec<T>], r: usize) -> Vec<T> {
    let n = inputs.len();
    let count = inputs.first().map_or(0, Vec::len) / n;
    inputs
        .iter()
        .flat_map(|x| x[r * count..(r + 1) * count].iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases_by_hand() {
        let x = vec![vec![1i32, 2, 3, 4], vec![10, 20, 30, 40]];
        assert_eq!(all_reduce(&x, ReduceOp::Sum), vec![11, 22, 33, 44]);
        assert_eq!(all_reduce(&x, ReduceOp::Avg), vec![5, 11, 16, 22]);
        assert_eq!(reduce_scatter(&x, ReduceOp::Max, 1), vec![30, 40]);
        assert_eq!(all_to_all(&x, 0), vec![1, 2, 10, 20]);
        assert_eq!(all_gather(&x).len(), 8);
        assert_eq!(reduce_f64(&x, 1, ReduceOp::Prod), (40.0, 0.0));
    }
}
