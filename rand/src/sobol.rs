//! Sobol's quasi-random sequences as cuRAND defines them (`CURAND_RNG_QUASI_SOBOL32`,
//! `..._SOBOL64` with the `JOEKUO6` direction vectors): dimension 0 is van der Corput's
//! sequence, dimension `d ≥ 1` is built from the `d`-th primitive polynomial over GF(2)
//! (in order of degree, then value, as Joe and Kuo list them) and Joe and Kuo's initial
//! direction numbers `m_1..m_s` of their `new-joe-kuo-6.21201` set (Joe & Kuo,
//! "Constructing Sobol sequences with better two-dimensional projections", SIAM J. Sci.
//! Comput. 30, 2008).
//!
//! The polynomials are generated here; the initial numbers are data
//! (`data/joe_kuo_6_m.bin`, packed by `scripts/pack_joe_kuo.py` from the published file;
//! copyright © 2008 Frances Y. Kuo and Stephen Joe, redistributed under their BSD-style
//! licence, reproduced in `data/JOE_KUO_LICENSE`).
//!
//! Point `i` of a dimension is the XOR of the direction vectors `v_k` over the set bits
//! `k` of the Gray code `i ^ (i >> 1)`: any point in O(log i), which is the skip-ahead;
//! consecutive points differ by one vector (`v` of the lowest zero bit of `i`), which is
//! cuRAND's `curand()` step. Point 0 is 0.
//!
//! Scrambled Sobol: cuRAND's scrambled generators use tables of scrambled direction
//! vectors and scramble constants that cuRAND ships as data and that are not published
//! definitions, so they are not reproduced. The scrambled generators here follow the
//! same structure (a left matrix scramble of each dimension's direction vectors by a
//! random lower unitriangular matrix over GF(2), then a random digital shift), drawn
//! from Philox4x32-10 under the key [`SCRAMBLE_KEY`] with the counter (dimension,
//! word, 0, 0), so they are reproducible everywhere but are not cuRAND's values.

use crate::bits::philox4x32_10;
use crate::ops::Host;
use rocm_core::{Error, Result};
use std::sync::OnceLock;

/// Dimensions a generator may have (cuRAND's limit).
pub const DIMENSIONS: u32 = 20_000;

/// Joe and Kuo's initial direction numbers for cuRAND's dimensions 1..20000, packed.
static INITIAL_NUMBERS: &[u8] = include_bytes!("data/joe_kuo_6_m.bin");

/// Philox key of the scrambled generators' matrices and shifts ("Sobo", "lscr").
pub const SCRAMBLE_KEY: [u32; 2] = [0x536f_626f, 0x6c73_6372];

/// A primitive polynomial over GF(2) of degree `degree`: bit `k` is the coefficient of
/// `x^k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Polynomial {
    pub bits: u32,
    pub degree: u32,
}

impl Polynomial {
    /// Joe and Kuo's `a`: the coefficients strictly between the leading and constant
    /// terms, highest first.
    pub fn a(self) -> u32 {
        (self.bits >> 1) & ((1 << (self.degree - 1)) - 1)
    }
}

/// `x·y mod p` over GF(2), `p` of degree `deg`.
fn mul_mod(mut x: u64, mut y: u64, p: u64, deg: u32) -> u64 {
    let mut r = 0;
    while y != 0 {
        if y & 1 != 0 {
            r ^= x;
        }
        y >>= 1;
        x <<= 1;
        if x >> deg & 1 != 0 {
            x ^= p;
        }
    }
    r
}

/// `x^e mod p`.
fn x_pow_mod(e: u64, p: u64, deg: u32) -> u64 {
    let (mut r, mut b) = (1u64, if deg > 1 { 2 } else { 1 });
    let mut e = e;
    while e != 0 {
        if e & 1 != 0 {
            r = mul_mod(r, b, p, deg);
        }
        b = mul_mod(b, b, p, deg);
        e >>= 1;
    }
    r
}

fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut f = Vec::new();
    let mut q = 2;
    while q * q <= n {
        if n % q == 0 {
            f.push(q);
            while n % q == 0 {
                n /= q;
            }
        }
        q += 1;
    }
    if n > 1 {
        f.push(n);
    }
    f
}

/// Whether `p` (degree `deg`, constant term 1) is primitive: `x` has order exactly
/// `2^deg − 1` modulo `p`.
fn is_primitive(p: u64, deg: u32, order_factors: &[u64]) -> bool {
    let order = (1u64 << deg) - 1;
    x_pow_mod(order, p, deg) == 1
        && order_factors
            .iter()
            .all(|&q| x_pow_mod(order / q, p, deg) != 1)
}

/// The first `DIMENSIONS − 1` primitive polynomials, by degree then value.
pub fn polynomials() -> &'static [Polynomial] {
    static POLYS: OnceLock<Vec<Polynomial>> = OnceLock::new();
    POLYS.get_or_init(|| {
        let want = (DIMENSIONS - 1) as usize;
        let mut out = Vec::with_capacity(want);
        let mut deg = 1;
        while out.len() < want {
            let factors = prime_factors((1u64 << deg) - 1);
            for p in ((1u64 << deg) | 1..1u64 << (deg + 1)).step_by(2) {
                if is_primitive(p, deg, &factors) {
                    out.push(Polynomial {
                        bits: p as u32,
                        degree: deg,
                    });
                    if out.len() == want {
                        break;
                    }
                }
            }
            deg += 1;
        }
        out
    })
}

/// Bit offset of each dimension's initial numbers in [`INITIAL_NUMBERS`] (entry `d − 1`
/// for dimension `d`), and the total.
fn offsets() -> &'static [u64] {
    static OFFSETS: OnceLock<Vec<u64>> = OnceLock::new();
    OFFSETS.get_or_init(|| {
        let mut at = 0u64;
        let mut v = Vec::with_capacity(DIMENSIONS as usize);
        for p in polynomials() {
            v.push(at);
            let s = p.degree as u64;
            at += s * (s - 1) / 2;
        }
        v.push(at);
        v
    })
}

fn read_bits(at: u64, n: u32) -> u64 {
    (0..n as u64).fold(0, |acc, i| {
        let b = at + i;
        let bit = INITIAL_NUMBERS[(b / 8) as usize] >> (b % 8) & 1;
        acc | (bit as u64) << i
    })
}

/// Joe and Kuo's initial numbers `m_1..m_s` of dimension `dim` (1..20000).
pub fn initial_numbers(dim: u32) -> Result<Vec<u64>> {
    check_dim(dim)?;
    if dim == 0 {
        return Err(Error::invalid(
            "dimension",
            "dimension 0 (van der Corput) has no initial numbers",
        ));
    }
    let p = polynomials()[dim as usize - 1];
    let mut at = offsets()[dim as usize - 1];
    Ok((1..=p.degree)
        .map(|i| {
            let m = read_bits(at, i - 1) << 1 | 1;
            at += (i - 1) as u64;
            m
        })
        .collect())
}

fn check_dim(dim: u32) -> Result<()> {
    if dim >= DIMENSIONS {
        return Err(Error::invalid(
            "dimension",
            format!("Sobol dimensions are 0..{DIMENSIONS}, got {dim}"),
        ));
    }
    Ok(())
}

/// The 64 direction vectors of dimension `dim` (cuRAND's `JOEKUO6` 64-bit set): `v_k =
/// m_{k+1} << (63 − k)`, the `m` continued past the initial numbers by the polynomial's
/// recurrence `m_k = m_{k−s} ⊕ 2^s m_{k−s} ⊕ ⊕_{i<s} a_i 2^i m_{k−i}`.
pub fn directions64(dim: u32) -> Result<[u64; 64]> {
    check_dim(dim)?;
    let mut v = [0u64; 64];
    if dim == 0 {
        for (k, x) in v.iter_mut().enumerate() {
            *x = 1 << (63 - k);
        }
        return Ok(v);
    }
    let p = polynomials()[dim as usize - 1];
    let s = p.degree as usize;
    let a = p.a();
    let mut m = initial_numbers(dim)?;
    for k in s..64 {
        let mut x = m[k - s] ^ (m[k - s] << s);
        for i in 1..s {
            if a >> (s - 1 - i) & 1 != 0 {
                x ^= m[k - i] << i;
            }
        }
        m.push(x);
    }
    for (k, x) in v.iter_mut().enumerate() {
        *x = m[k] << (63 - k);
    }
    Ok(v)
}

/// The 32 direction vectors of dimension `dim` (cuRAND's `JOEKUO6` 32-bit set: the
/// high words of the 64-bit set's first 32).
pub fn directions32(dim: u32) -> Result<[u32; 32]> {
    let v = directions64(dim)?;
    Ok(std::array::from_fn(|k| (v[k] >> 32) as u32))
}

/// One dimension of a Sobol generator in `W` bits (`u32` or `u64`): its direction
/// vectors and the shift XORed into every point (0 unscrambled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dimension<W> {
    pub directions: Vec<W>,
    pub shift: W,
}

/// A Sobol word: `u32` or `u64`.
pub trait Word:
    Copy + Default + std::ops::BitXor<Output = Self> + PartialEq + Send + Sync + Into<u64>
{
    const BITS: u32;
    /// The low `BITS` bits of `x`.
    fn from_low(x: u64) -> Self;
    /// Dimension `dim`'s direction vectors.
    fn directions(dim: u32) -> Result<Vec<Self>>;
    /// The high `BITS` bits of a 64-bit word.
    fn from_high(x: u64) -> Self;
    fn bit(self, k: u32) -> bool;
    fn single(k: u32) -> Self;
}

impl Word for u32 {
    const BITS: u32 = 32;
    fn from_low(x: u64) -> u32 {
        x as u32
    }
    fn directions(dim: u32) -> Result<Vec<u32>> {
        Ok(directions32(dim)?.to_vec())
    }
    fn from_high(x: u64) -> u32 {
        (x >> 32) as u32
    }
    fn bit(self, k: u32) -> bool {
        self >> k & 1 != 0
    }
    fn single(k: u32) -> u32 {
        1 << k
    }
}

impl Word for u64 {
    const BITS: u32 = 64;
    fn from_low(x: u64) -> u64 {
        x
    }
    fn directions(dim: u32) -> Result<Vec<u64>> {
        Ok(directions64(dim)?.to_vec())
    }
    fn from_high(x: u64) -> u64 {
        x
    }
    fn bit(self, k: u32) -> bool {
        self >> k & 1 != 0
    }
    fn single(k: u32) -> u64 {
        1 << k
    }
}

/// 64 random bits of the scramble stream: word `w` of dimension `dim`.
fn scramble_bits(dim: u32, w: u32) -> u64 {
    let r = philox4x32_10(&mut Host, [dim, w, 0, 0], SCRAMBLE_KEY);
    (r[0] as u64) << 32 | r[1] as u64
}

impl<W: Word> Dimension<W> {
    /// Dimension `dim`, plain (`scrambled` false) or scrambled (module docs).
    pub fn new(dim: u32, scrambled: bool) -> Result<Dimension<W>> {
        let v = W::directions(dim)?;
        if !scrambled {
            return Ok(Dimension {
                directions: v,
                shift: W::default(),
            });
        }
        // Row r of the lower unitriangular matrix L (rows counted from the most
        // significant bit): bit r set, bits above r random, bits below zero. L·v
        // keeps each vector's leading bit, so the net stays a (t, s)-sequence.
        let bits = W::BITS;
        let rows: Vec<W> = (0..bits)
            .map(|r| {
                let hi = r; // the row's own bit, counted from the top
                let random = W::from_high(scramble_bits(dim, 1 + r));
                // Keep the bits above the diagonal (more significant), set the diagonal.
                let mut row = W::default();
                for k in 0..hi {
                    let b = bits - 1 - k;
                    if random.bit(b) {
                        row = row ^ W::single(b);
                    }
                }
                row ^ W::single(bits - 1 - hi)
            })
            .collect();
        let rows: Vec<u64> = rows.into_iter().map(Into::into).collect();
        let directions = v
            .iter()
            .map(|&x| {
                // Output bit (from the top) r = parity of row r AND x.
                let x: u64 = x.into();
                let y = rows.iter().enumerate().fold(0u64, |y, (r, &row)| {
                    y | (((row & x).count_ones() & 1) as u64) << (bits - 1 - r as u32)
                });
                W::from_low(y)
            })
            .collect();
        Ok(Dimension {
            directions,
            shift: W::from_high(scramble_bits(dim, 0)),
        })
    }

    /// Point `i`: the shift XOR the direction vectors of the Gray code's set bits.
    pub fn point(&self, i: u64) -> W {
        let mut g = i ^ (i >> 1);
        let mut x = self.shift;
        while g != 0 {
            let k = g.trailing_zeros();
            g &= g - 1;
            x = x ^ self.directions[k as usize];
        }
        x
    }

    /// Points `first, first + 1, ..` into `out`: one point by skip-ahead, then one
    /// XOR a point.
    pub fn points(&self, first: u64, out: &mut [W]) {
        let mut x = self.point(first);
        for (j, slot) in out.iter_mut().enumerate() {
            *slot = x;
            let i = first + j as u64;
            x = x ^ self.directions[(!i).trailing_zeros() as usize % W::BITS as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines `d s a m_1 .. m_s` of Joe and Kuo's published file.
    const PUBLISHED: &[(u32, u32, u32, &[u64])] = &[
        (2, 1, 0, &[1]),
        (3, 2, 1, &[1, 3]),
        (4, 3, 1, &[1, 3, 1]),
        (5, 3, 2, &[1, 1, 1]),
        (6, 4, 1, &[1, 1, 3, 3]),
        (7, 4, 4, &[1, 3, 5, 13]),
        (8, 5, 2, &[1, 1, 5, 5, 17]),
        (9, 5, 4, &[1, 1, 5, 5, 5]),
        (10, 5, 7, &[1, 1, 7, 11, 19]),
        (11, 5, 11, &[1, 1, 5, 1, 1]),
        (12, 5, 13, &[1, 1, 1, 3, 11]),
        (
            20000,
            18,
            110614,
            &[
                1, 3, 1, 15, 27, 37, 63, 253, 1, 855, 1651, 3111, 6693, 1825, 22549, 64189, 18347,
                253425,
            ],
        ),
    ];

    #[test]
    fn polynomials_and_numbers_are_joe_and_kuos() {
        for &(d, s, a, m) in PUBLISHED {
            let p = polynomials()[d as usize - 2];
            assert_eq!((p.degree, p.a()), (s, a), "dimension {d}");
            assert_eq!(initial_numbers(d - 1).unwrap(), m, "dimension {d}");
        }
        // The packed data holds exactly the numbers of 19999 dimensions.
        let total = *offsets().last().unwrap();
        assert_eq!(total.div_ceil(8), INITIAL_NUMBERS.len() as u64);
        assert_eq!(polynomials().len(), DIMENSIONS as usize - 1);
    }

    #[test]
    fn every_initial_number_is_odd_and_in_range() {
        for d in (1..DIMENSIONS).step_by(97).chain([DIMENSIONS - 1]) {
            for (i, m) in initial_numbers(d).unwrap().iter().enumerate() {
                assert!(m % 2 == 1 && *m < 1 << (i + 1), "dimension {d} m_{}", i + 1);
            }
        }
    }

    #[test]
    fn points_equal_skip_ahead_and_the_gray_code_step() {
        for (dim, scrambled) in [(0, false), (1, false), (7, true), (19_999, false)] {
            let d = Dimension::<u64>::new(dim, scrambled).unwrap();
            let mut run = vec![0u64; 300];
            d.points(1000, &mut run);
            for (j, &x) in run.iter().enumerate() {
                assert_eq!(x, d.point(1000 + j as u64), "dim {dim} point {}", 1000 + j);
            }
            let d32 = Dimension::<u32>::new(dim, false).unwrap();
            let d64 = Dimension::<u64>::new(dim, false).unwrap();
            assert_eq!(d32.point(12345), (d64.point(12345) >> 32) as u32);
        }
    }

    /// Each dimension's first 2^k points are a permutation of the 2^k intervals of
    /// width 2^−k (a (0, 1)-sequence in one dimension), scrambled or not.
    #[test]
    fn each_dimension_stratifies() {
        for (dim, scrambled) in [(0, false), (3, false), (500, true), (19_998, false)] {
            let d = Dimension::<u32>::new(dim, scrambled).unwrap();
            let k = 12;
            let mut seen = vec![false; 1 << k];
            for i in 0..1u64 << k {
                let cell = (d.point(i) >> (32 - k)) as usize;
                assert!(!seen[cell], "dim {dim}: cell {cell} twice");
                seen[cell] = true;
            }
        }
    }

    #[test]
    fn bad_dimensions_are_errors() {
        assert!(directions32(DIMENSIONS).is_err());
        assert!(initial_numbers(0).is_err());
        assert!(Dimension::<u64>::new(u32::MAX, false).is_err());
    }
}
