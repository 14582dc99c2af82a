//! The counter-based bit generators, each written once over [`Ops`]: the CPU path
//! calls them with plain words, the kernels with language values, and other libraries'
//! kernels (dropout) call the same functions from their own builders.
//!
//! Both follow Random123 (Salmon et al., SC'11) and are checked against its
//! known-answer vectors (`tests/data/random123_kat.txt`).

use crate::ops::Ops;

/// Philox4x32's multipliers and Weyl key increments.
const PHILOX_M: [u32; 2] = [0xD251_1F53, 0xCD9E_8D57];
const PHILOX_W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];

/// Philox4x32 with `rounds` rounds (10 is the standard generator): the four output words
/// of block `ctr` under `key`. The key is bumped by the Weyl increments before every
/// round after the first.
pub fn philox4x32<O: Ops>(
    o: &mut O,
    rounds: u32,
    ctr: [O::U32; 4],
    key: [O::U32; 2],
) -> [O::U32; 4] {
    let (m0, m1) = (o.u32(PHILOX_M[0]), o.u32(PHILOX_M[1]));
    let (w0, w1) = (o.u32(PHILOX_W[0]), o.u32(PHILOX_W[1]));
    let mut c = ctr;
    let mut k = key;
    for r in 0..rounds {
        if r > 0 {
            k = [o.add32(k[0], w0), o.add32(k[1], w1)];
        }
        let (hi0, lo0) = o.mul_hilo32(m0, c[0]);
        let (hi1, lo1) = o.mul_hilo32(m1, c[2]);
        let x0 = o.xor32(hi1, c[1]);
        let x0 = o.xor32(x0, k[0]);
        let x2 = o.xor32(hi0, c[3]);
        let x2 = o.xor32(x2, k[1]);
        c = [x0, lo1, x2, lo0];
    }
    c
}

/// Philox4x32-10, the generator cuRAND and rocRAND call `PHILOX4_32_10`.
pub fn philox4x32_10<O: Ops>(o: &mut O, ctr: [O::U32; 4], key: [O::U32; 2]) -> [O::U32; 4] {
    philox4x32(o, 10, ctr, key)
}

/// Threefry2x32's rotation constants (Skein's, by round modulo 8) and key-schedule
/// parity.
const THREEFRY_R: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
const SKEIN_PARITY32: u32 = 0x1BD1_1BDA;

/// Threefry2x32 with `rounds` rounds (20 is the standard generator): the two output
/// words of block `ctr` under `key`, with a key injection after every fourth round.
pub fn threefry2x32<O: Ops>(
    o: &mut O,
    rounds: u32,
    ctr: [O::U32; 2],
    key: [O::U32; 2],
) -> [O::U32; 2] {
    let parity = o.u32(SKEIN_PARITY32);
    let k2 = o.xor32(key[0], key[1]);
    let ks = [key[0], key[1], o.xor32(k2, parity)];
    let mut x0 = o.add32(ctr[0], ks[0]);
    let mut x1 = o.add32(ctr[1], ks[1]);
    for r in 0..rounds {
        x0 = o.add32(x0, x1);
        x1 = o.rotl32(x1, THREEFRY_R[(r % 8) as usize]);
        x1 = o.xor32(x1, x0);
        if r % 4 == 3 {
            let s = (r / 4 + 1) as usize;
            x0 = o.add32(x0, ks[s % 3]);
            x1 = o.add32(x1, ks[(s + 1) % 3]);
            let inj = o.u32(s as u32);
            x1 = o.add32(x1, inj);
        }
    }
    [x0, x1]
}

/// Threefry2x32-20, rocRAND's `THREEFRY2_32_20`.
pub fn threefry2x32_20<O: Ops>(o: &mut O, ctr: [O::U32; 2], key: [O::U32; 2]) -> [O::U32; 2] {
    threefry2x32(o, 20, ctr, key)
}
