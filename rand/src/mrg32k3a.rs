//! MRG32k3a (L'Ecuyer, "Good parameters and implementations for combined multiple
//! recursive random number generators", 1999), as cuRAND's device API defines it:
//! `curand_init(seed, subsequence, offset)` scales the start state by the seed's
//! scrambled halves, then jumps `subsequence·2⁷⁶ + offset` steps by powers of the two
//! components' 3×3 step matrices modulo m1 and m2, computed here by repeated squaring.
//! CPU only: the kernel language has no 64-bit multiply or remainder yet.

use std::sync::OnceLock;

pub const M1: u64 = 4_294_967_087;
pub const M2: u64 = 4_294_944_443;
/// The recurrences: x₁,ₙ = (A12·x₁,ₙ₋₂ − A13·x₁,ₙ₋₃) mod m1,
/// x₂,ₙ = (A21·x₂,ₙ₋₁ − A23·x₂,ₙ₋₃) mod m2.
const A12: u64 = 1_403_580;
const A13: u64 = 810_728;
const A21: u64 = 527_612;
const A23: u64 = 1_370_589;
/// Every state word starts at this value (before the seed scaling).
const START: u64 = 12_345;
/// cuRAND's seed scrambling constants (xored into the seed halves).
const SEED_XOR: [u32; 2] = [0x5555_5555, 0xaaaa_aaaa];
/// log₂ of the steps between subsequences.
pub const SUBSEQUENCE_LOG2: u32 = 76;

/// The two components' last three values, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    pub s1: [u64; 3],
    pub s2: [u64; 3],
}

/// The state `curand_init(seed, 0, 0)` makes (seed 0 leaves the start state).
pub fn init(seed: u64) -> State {
    let mut s = State {
        s1: [START; 3],
        s2: [START; 3],
    };
    if seed != 0 {
        let x1 = ((seed as u32) ^ SEED_XOR[0]) as u64;
        let x2 = (((seed >> 32) as u32) ^ SEED_XOR[1]) as u64;
        s.s1 = [x1 * START % M1, x2 * START % M1, x1 * START % M1];
        s.s2 = [x2 * START % M2, x1 * START % M2, x2 * START % M2];
    }
    s
}

/// One step: the combined value in 1..=m1 (cuRAND returns it times 1/m1).
pub fn next(s: &mut State) -> u64 {
    let p1 = (A12 * s.s1[1] + (M1 - A13) * s.s1[0]) % M1;
    s.s1 = [s.s1[1], s.s1[2], p1];
    let p2 = (A21 * s.s2[2] + (M2 - A23) * s.s2[0]) % M2;
    s.s2 = [s.s2[1], s.s2[2], p2];
    if p1 > p2 {
        p1 - p2
    } else {
        p1 + M1 - p2
    }
}

/// 1/m1 as cuRAND scales a step's value to a uniform double.
pub const NORM: f64 = 1.0 / M1 as f64;

/// A step's value as cuRAND's uniform double in (0, 1].
pub fn uniform_f64(r: u64) -> f64 {
    r as f64 * NORM
}

/// A step's value as cuRAND's 32-bit output: the uniform double times 2³², truncated.
pub fn bits(r: u64) -> u32 {
    (uniform_f64(r) * 4_294_967_296.0) as u32
}

type Mat = [[u64; 3]; 3];

fn mat_mul(a: &Mat, b: &Mat, m: u64) -> Mat {
    let mut r = [[0u64; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            let s: u128 = (0..3).map(|k| a[i][k] as u128 * b[k][j] as u128).sum();
            *x = (s % m as u128) as u64;
        }
    }
    r
}

fn mat_vec(a: &Mat, v: &[u64; 3], m: u64) -> [u64; 3] {
    let mut r = [0u64; 3];
    for (i, x) in r.iter_mut().enumerate() {
        let s: u128 = (0..3).map(|k| a[i][k] as u128 * v[k] as u128).sum();
        *x = (s % m as u128) as u64;
    }
    r
}

/// The components' step matrices (state oldest first).
const STEP1: Mat = [[0, 1, 0], [0, 0, 1], [M1 - A13, A12, 0]];
const STEP2: Mat = [[0, 1, 0], [0, 0, 1], [M2 - A23, 0, A21]];

/// Entry `k`: the two components' matrices of 2ᵏ steps, for every `k` a subsequence
/// jump (2⁷⁶ times a 64-bit count) needs.
fn jumps() -> &'static [(Mat, Mat)] {
    static JUMPS: OnceLock<Vec<(Mat, Mat)>> = OnceLock::new();
    JUMPS.get_or_init(|| {
        let mut v = vec![(STEP1, STEP2)];
        for _ in 1..(SUBSEQUENCE_LOG2 + 64) {
            let (a, b) = v.last().expect("starts non-empty");
            let next = (mat_mul(a, a, M1), mat_mul(b, b, M2));
            v.push(next);
        }
        v
    })
}

/// `s` advanced by `count·2^shift` steps.
fn jump(s: State, count: u64, shift: u32) -> State {
    let j = jumps();
    let mut s = s;
    let mut c = count;
    while c != 0 {
        let k = c.trailing_zeros();
        c &= c - 1;
        let (a, b) = &j[(shift + k) as usize];
        s = State {
            s1: mat_vec(a, &s.s1, M1),
            s2: mat_vec(b, &s.s2, M2),
        };
    }
    s
}

/// `s` advanced by `n` steps (`skipahead`).
pub fn skip_ahead(s: State, n: u64) -> State {
    jump(s, n, 0)
}

/// `s` moved `subsequences` subsequences on (`skipahead_sequence`: 2⁷⁶ steps each).
pub fn skip_subsequences(s: State, subsequences: u64) -> State {
    jump(s, subsequences, SUBSEQUENCE_LOG2)
}

/// `curand_init(seed, subsequence, offset)`.
pub fn curand_init(seed: u64, subsequence: u64, offset: u64) -> State {
    skip_ahead(skip_subsequences(init(seed), subsequence), offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(mut s: State, n: usize) -> Vec<u64> {
        (0..n).map(|_| next(&mut s)).collect()
    }

    #[test]
    fn skip_ahead_equals_stepping() {
        let s = init(0x0123_4567_89ab_cdef);
        let walk = outputs(s, 1100);
        for n in [0u64, 1, 2, 3, 4, 7, 64, 1000, 1023] {
            assert_eq!(
                outputs(skip_ahead(s, n), 6),
                walk[n as usize..n as usize + 6],
                "skip {n}"
            );
        }
    }

    #[test]
    fn jumps_compose() {
        let s = init(1234);
        assert_eq!(
            skip_subsequences(skip_subsequences(s, 5), 6),
            skip_subsequences(s, 11)
        );
        assert_eq!(skip_ahead(skip_ahead(s, u64::MAX), 1), jump(s, 1, 64));
        assert_eq!(jump(jump(s, 1, 75), 1, 75), skip_subsequences(s, 1));
    }

    #[test]
    fn values_are_in_range() {
        let mut s = init(7);
        for _ in 0..10_000 {
            let r = next(&mut s);
            assert!((1..=M1).contains(&r));
            let u = uniform_f64(r);
            assert!(u > 0.0 && u <= 1.0);
        }
        // The largest value (p1 = p2) is 1.0 exactly, whose bits saturate as the GPU's
        // truncating conversion does.
        assert_eq!(uniform_f64(M1), 1.0);
        assert_eq!(bits(M1), u32::MAX);
        assert_eq!(bits(1), 1);
    }
}
