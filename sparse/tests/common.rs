//! Shared test helpers: random matrices of every shape class, and typed instantiation.
#![allow(dead_code)]

use num_complex::Complex64;
use proptest::prelude::*;
use rocm_sparse::{Coo, Index, Scalar};

/// Triples `(row, col, re, im)` of an `m × n` matrix.
#[derive(Debug, Clone)]
pub struct RandMat {
    pub m: usize,
    pub n: usize,
    pub entries: Vec<(usize, usize, f64, f64)>,
}

fn value() -> impl Strategy<Value = (f64, f64)> {
    // Non-zero magnitudes with random signs; exact in f32 (multiples of 1/64) so that the
    // same matrix is exactly representable in every value type.
    (1i32..512, any::<bool>(), -512i32..512).prop_map(|(a, neg, b)| {
        let re = a as f64 / 64.0 * if neg { -1.0 } else { 1.0 };
        (re, b as f64 / 64.0)
    })
}

/// Shapes 0, 1, small primes and odd sizes; sparse with duplicates, empty rows, and
/// optionally one row far longer than the rest.
pub fn rand_mat(max_dim: usize) -> impl Strategy<Value = RandMat> {
    (0..=max_dim, 0..=max_dim, any::<bool>())
        .prop_flat_map(|(m, n, long_row)| {
            let cells = m * n;
            let k = if cells == 0 { 0 } else { cells / 3 + 1 };
            let entries = proptest::collection::vec((0..m.max(1), 0..n.max(1), value()), 0..=k);
            let long = if long_row && m > 0 && n > 0 {
                proptest::collection::vec((0..n, value()), n..=2 * n).boxed()
            } else {
                Just(vec![]).boxed()
            };
            (Just(m), Just(n), entries, long, 0..m.max(1))
        })
        .prop_map(|(m, n, e, long, lr)| {
            let mut entries: Vec<_> = if m == 0 || n == 0 {
                vec![]
            } else {
                e.into_iter()
                    .map(|(r, c, (re, im))| (r, c, re, im))
                    .collect()
            };
            entries.extend(long.into_iter().map(|(c, (re, im))| (lr, c, re, im)));
            RandMat { m, n, entries }
        })
}

/// Square version for solves and factorisations.
pub fn rand_square(max_dim: usize) -> impl Strategy<Value = RandMat> {
    (0..=max_dim).prop_flat_map(|n| {
        let k = n * n / 3 + 1;
        (
            Just(n),
            proptest::collection::vec((0..n.max(1), 0..n.max(1), value()), 0..=k),
        )
            .prop_map(|(n, e)| RandMat {
                m: n,
                n,
                entries: if n == 0 {
                    vec![]
                } else {
                    e.into_iter()
                        .map(|(r, c, (re, im))| (r, c, re, im))
                        .collect()
                },
            })
    })
}

pub fn scalar<T: Scalar>(re: f64, im: f64) -> T {
    T::from_c64(Complex64::new(re, im))
}

impl RandMat {
    pub fn coo<I: Index, T: Scalar>(&self) -> Coo<I, T> {
        Coo::new(
            self.m,
            self.n,
            self.entries
                .iter()
                .map(|e| I::try_from_usize(e.0).unwrap())
                .collect(),
            self.entries
                .iter()
                .map(|e| I::try_from_usize(e.1).unwrap())
                .collect(),
            self.entries.iter().map(|e| scalar(e.2, e.3)).collect(),
        )
        .unwrap()
    }
}

/// Random vector of length n with non-constant entries.
pub fn rand_vec(n: usize) -> impl Strategy<Value = Vec<(f64, f64)>> {
    proptest::collection::vec(value(), n..=n)
}

/// Runs a generic check for every (index, value) type combination.
#[macro_export]
macro_rules! for_all_types {
    ($f:ident $(, $arg:expr)*) => {{
        $f::<i32, f32>($($arg),*)?;
        $f::<i32, f64>($($arg),*)?;
        $f::<i32, num_complex::Complex32>($($arg),*)?;
        $f::<i32, num_complex::Complex64>($($arg),*)?;
        $f::<i64, f32>($($arg),*)?;
        $f::<i64, f64>($($arg),*)?;
        $f::<i64, num_complex::Complex32>($($arg),*)?;
        $f::<i64, num_complex::Complex64>($($arg),*)?;
    }};
}
