//! XORWOW (Marsaglia's xorshift of five words plus a Weyl sequence), as cuRAND's device
//! API defines it: `curand_init(seed, subsequence, offset)` sets the state from the
//! seed, then jumps `subsequence·2⁶⁷ + offset` steps. The step is written once over
//! [`Ops`]; the jumps are GF(2) matrices of the 160-bit xorshift part, derived here from
//! the step by repeated squaring (the Weyl word advances by a multiple of its constant).

use crate::ops::Ops;
use std::sync::OnceLock;

/// Marsaglia's xorwow start words and Weyl increment (Xorshift RNGs, 2003).
const START: [u32; 5] = [123_456_789, 362_436_069, 521_288_629, 88_675_123, 5_783_321];
const WEYL_START: u32 = 6_615_241;
pub const WEYL: u32 = 362_437;
/// cuRAND's seed scrambling: each seed half is xored with a constant and multiplied.
const SEED_XOR: [u32; 2] = [0xaad2_6b49, 0xf7dc_efdd];
const SEED_MUL: [u32; 2] = [1_099_087_573, 2_591_861_531];
/// log₂ of the steps between subsequences.
pub const SUBSEQUENCE_LOG2: u32 = 67;

/// One generator's state: the five xorshift words and the Weyl word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State<W> {
    pub v: [W; 5],
    pub d: W,
}

/// The state `curand_init(seed, 0, 0)` makes.
pub fn init(seed: u64) -> State<u32> {
    let s0 = (seed as u32) ^ SEED_XOR[0];
    let s1 = ((seed >> 32) as u32) ^ SEED_XOR[1];
    let t0 = SEED_MUL[0].wrapping_mul(s0);
    let t1 = SEED_MUL[1].wrapping_mul(s1);
    State {
        v: [
            START[0].wrapping_add(t0),
            START[1] ^ t0,
            START[2].wrapping_add(t1),
            START[3] ^ t1,
            START[4].wrapping_add(t0),
        ],
        d: WEYL_START.wrapping_add(t1).wrapping_add(t0),
    }
}

/// The xorshift part of one step: the words shift down, the new last word mixes the
/// first and the last.
fn shift<O: Ops>(o: &mut O, v: [O::U32; 5]) -> [O::U32; 5] {
    let a = o.shr32(v[0], 2);
    let t = o.xor32(v[0], a);
    let b = o.shl32(v[4], 4);
    let x = o.xor32(v[4], b);
    let c = o.shl32(t, 1);
    let y = o.xor32(t, c);
    [v[1], v[2], v[3], v[4], o.xor32(x, y)]
}

/// One step: the next 32-bit output (`curand(&state)`).
pub fn next<O: Ops>(o: &mut O, s: &mut State<O::U32>) -> O::U32 {
    s.v = shift(o, s.v);
    let w = o.u32(WEYL);
    s.d = o.add32(s.d, w);
    o.add32(s.v[4], s.d)
}

/// A 160×160 matrix over GF(2): column `j` is the image of state bit `j` (bit `32i + b`
/// is bit `b` of word `i`).
#[derive(Clone)]
struct Gf2([[u32; 5]; 160]);

impl Gf2 {
    /// The matrix of one step's xorshift part.
    fn step() -> Gf2 {
        let mut m = [[0u32; 5]; 160];
        for (j, col) in m.iter_mut().enumerate() {
            let mut v = [0u32; 5];
            v[j / 32] = 1 << (j % 32);
            *col = shift(&mut crate::ops::Host, v);
        }
        Gf2(m)
    }

    fn apply(&self, v: &[u32; 5]) -> [u32; 5] {
        let mut r = [0u32; 5];
        for (i, &w) in v.iter().enumerate() {
            let mut bits = w;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let col = &self.0[32 * i + b];
                for k in 0..5 {
                    r[k] ^= col[k];
                }
            }
        }
        r
    }

    fn square(&self) -> Gf2 {
        let mut m = self.clone();
        for (j, col) in m.0.iter_mut().enumerate() {
            *col = self.apply(&self.0[j]);
        }
        m
    }
}

/// Powers of the step matrix: entry `k` is the jump of 2ᵏ steps, for every `k` a
/// subsequence jump (2⁶⁷ times a 64-bit count) needs.
fn jumps() -> &'static [Gf2] {
    static JUMPS: OnceLock<Vec<Gf2>> = OnceLock::new();
    JUMPS.get_or_init(|| {
        let mut v = vec![Gf2::step()];
        for _ in 1..(SUBSEQUENCE_LOG2 + 64) {
            let next = v.last().expect("starts non-empty").square();
            v.push(next);
        }
        v
    })
}

/// The xorshift words advanced by `count·2^shift` steps (`shift + 64 ≤ 131`).
fn jump_words(v: [u32; 5], count: u64, shift: u32) -> [u32; 5] {
    let j = jumps();
    let mut v = v;
    let mut c = count;
    while c != 0 {
        let k = c.trailing_zeros();
        c &= c - 1;
        v = j[(shift + k) as usize].apply(&v);
    }
    v
}

/// `state` advanced by `n` steps (`skipahead(n, &state)`): O(log n) matrix products.
pub fn skip_ahead(s: State<u32>, n: u64) -> State<u32> {
    State {
        v: jump_words(s.v, n, 0),
        d: s.d.wrapping_add(WEYL.wrapping_mul(n as u32)),
    }
}

/// `state` moved `subsequences` subsequences on (`skipahead_sequence`: 2⁶⁷ steps each;
/// the Weyl word, whose period divides 2³², is unchanged).
pub fn skip_subsequences(s: State<u32>, subsequences: u64) -> State<u32> {
    State {
        v: jump_words(s.v, subsequences, SUBSEQUENCE_LOG2),
        d: s.d,
    }
}

/// `curand_init(seed, subsequence, offset)`.
pub fn curand_init(seed: u64, subsequence: u64, offset: u64) -> State<u32> {
    skip_ahead(skip_subsequences(init(seed), subsequence), offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Host;

    fn outputs(mut s: State<u32>, n: usize) -> Vec<u32> {
        (0..n).map(|_| next(&mut Host, &mut s)).collect()
    }

    #[test]
    fn skip_ahead_equals_stepping() {
        let s = init(0x0123_4567_89ab_cdef);
        let walk = outputs(s, 1200);
        for n in [0u64, 1, 2, 3, 31, 32, 33, 64, 127, 1000, 1023] {
            assert_eq!(
                outputs(skip_ahead(s, n), 8),
                walk[n as usize..n as usize + 8],
                "skip {n}"
            );
        }
    }

    #[test]
    fn jumps_compose() {
        // 2^67 steps = 2^66 steps twice; subsequence 3 = subsequences 1 and 2.
        let s = init(1234);
        let half = jump_words(jump_words(s.v, 1, 66), 1, 66);
        assert_eq!(skip_subsequences(s, 1).v, half);
        assert_eq!(
            skip_subsequences(skip_subsequences(s, 1), 2),
            skip_subsequences(s, 3)
        );
        // A jump by 2^64 − 1 then 1 step is a jump by 2^64.
        let a = skip_ahead(skip_ahead(s, u64::MAX), 1);
        assert_eq!(a.v, jump_words(s.v, 1, 64));
    }

    /// The first output of seed 0, written out from the definition (the scrambled
    /// seed words, one shift, one Weyl increment).
    #[test]
    fn first_output_from_the_definition() {
        let s = init(0);
        let t0 = SEED_MUL[0].wrapping_mul(SEED_XOR[0]);
        let t1 = SEED_MUL[1].wrapping_mul(SEED_XOR[1]);
        assert_eq!(s.v[0], START[0].wrapping_add(t0));
        let x = s.v[0] ^ (s.v[0] >> 2);
        let v4 = (s.v[4] ^ (s.v[4] << 4)) ^ (x ^ (x << 1));
        let d = WEYL_START
            .wrapping_add(t1)
            .wrapping_add(t0)
            .wrapping_add(WEYL);
        assert_eq!(outputs(s, 1)[0], v4.wrapping_add(d));
    }
}
