//! Complex arithmetic and the small DFTs of the radix passes, emitted into a kernel
//! language [`Builder`] as straight-line code on (re, im) value pairs.
//!
//! A DFT of length `r` (2..=16 with prime factors 2, 3, 5, 7, 11, 13) is split as
//! Cooley-Tukey `r = a·b` (`a` the smallest prime factor) with constant twiddles, down to
//! primes, which use the symmetric form pairing inputs `j` and `p − j` (half the
//! multiplications of the direct sum). Constant twiddles that are quarter turns become
//! swaps and negations, so radix 2, 4, 8 and 16 need no multiplication beyond the
//! eighth roots. Every constant is computed in `f64` on the host and rounded once to the
//! kernel's type.

use rocm_kernels::lang::{Builder, Type, Value};
use std::f64::consts::PI;

/// A complex value as two scalars of the kernel's compute type.
#[derive(Debug, Clone, Copy)]
pub struct C {
    pub re: Value,
    pub im: Value,
}

pub fn add(k: &mut Builder, a: C, b: C) -> C {
    C {
        re: k.add(a.re, b.re),
        im: k.add(a.im, b.im),
    }
}

pub fn sub(k: &mut Builder, a: C, b: C) -> C {
    C {
        re: k.sub(a.re, b.re),
        im: k.sub(a.im, b.im),
    }
}

/// `a · w` for a runtime `w`.
pub fn mul(k: &mut Builder, a: C, w: C) -> C {
    let t = k.mul(a.im, w.im);
    let nt = k.neg(t);
    let u = k.mul(a.im, w.re);
    C {
        re: k.fma(a.re, w.re, nt),
        im: k.fma(a.re, w.im, u),
    }
}

/// `a · s` for a real runtime `s`.
pub fn scale(k: &mut Builder, a: C, s: Value) -> C {
    C {
        re: k.mul(a.re, s),
        im: k.mul(a.im, s),
    }
}

/// `a · e^{σ 2πi e/n}` for constants (σ = −1 forward, +1 backward): exact for the
/// quarter turns, one complex multiplication by constants otherwise.
fn mul_root(k: &mut Builder, ty: Type, a: C, e: usize, n: usize, forward: bool) -> C {
    let e = e % n;
    if e == 0 {
        return a;
    }
    // Quarter turns: multiply by (−i)^q forward, i^q backward.
    if (4 * e) % n == 0 {
        let q = (4 * e / n) % 4;
        let q = if forward { q } else { (4 - q) % 4 };
        return match q {
            // ·(−i): (re, im) -> (im, −re)
            1 => C {
                re: a.im,
                im: k.neg(a.re),
            },
            2 => C {
                re: k.neg(a.re),
                im: k.neg(a.im),
            },
            // ·i: (re, im) -> (−im, re)
            _ => C {
                re: k.neg(a.im),
                im: a.re,
            },
        };
    }
    let (s, c) = root_angle(e, n, forward).sin_cos();
    let w = C {
        re: k.constant(ty, c),
        im: k.constant(ty, s),
    };
    mul(k, a, w)
}

/// The angle of `e^{σ 2πi e/n}`, reduced so small multiples are exact.
fn root_angle(e: usize, n: usize, forward: bool) -> f64 {
    let t = 2.0 * PI * (e % n) as f64 / n as f64;
    if forward {
        -t
    } else {
        t
    }
}

/// The smallest prime factor of `n ≥ 2`.
fn smallest_factor(n: usize) -> usize {
    (2..=n).find(|f| n % f == 0).unwrap_or(n)
}

/// The DFT of `x` (any length with small prime factors) in the direction's sign,
/// outputs in natural order.
pub fn dft(k: &mut Builder, ty: Type, x: &[C], forward: bool) -> Vec<C> {
    let n = x.len();
    match n {
        0 | 1 => x.to_vec(),
        2 => vec![add(k, x[0], x[1]), sub(k, x[0], x[1])],
        _ if smallest_factor(n) == n => prime_dft(k, ty, x, forward),
        _ => {
            // n = a·b, input j = b·j1 + j2, output k1 + a·k2.
            let a = smallest_factor(n);
            let b = n / a;
            let mut z = vec![vec![]; b];
            for (j2, zj) in z.iter_mut().enumerate() {
                let col: Vec<C> = (0..a).map(|j1| x[b * j1 + j2]).collect();
                let y = dft(k, ty, &col, forward);
                *zj = y
                    .into_iter()
                    .enumerate()
                    .map(|(k1, v)| mul_root(k, ty, v, j2 * k1, n, forward))
                    .collect();
            }
            let mut out = vec![x[0]; n];
            for k1 in 0..a {
                let row: Vec<C> = (0..b).map(|j2| z[j2][k1]).collect();
                for (k2, v) in dft(k, ty, &row, forward).into_iter().enumerate() {
                    out[k1 + a * k2] = v;
                }
            }
            out
        }
    }
}

/// The DFT of odd prime length `p` by pairing `x_j` with `x_{p−j}`:
/// `A_j = x_j + x_{p−j}`, `B_j = x_j − x_{p−j}`; for `1 ≤ m ≤ (p−1)/2`,
/// `T = x_0 + Σ_j A_j cos θ_jm`, `U = Σ_j (B_j.im, B_j.re) sin θ_jm` (θ = 2πjm/p), and
/// `y_m = (T.re − σU.re, T.im + σU.im)`, `y_{p−m} = (T.re + σU.re, T.im − σU.im)`.
fn prime_dft(k: &mut Builder, ty: Type, x: &[C], forward: bool) -> Vec<C> {
    let p = x.len();
    let h = (p - 1) / 2;
    let pairs: Vec<(C, C)> = (1..=h)
        .map(|j| (add(k, x[j], x[p - j]), sub(k, x[j], x[p - j])))
        .collect();
    let mut out = vec![x[0]; p];
    let mut y0 = x[0];
    for (a, _) in &pairs {
        y0 = add(k, y0, *a);
    }
    out[0] = y0;
    for m in 1..=h {
        let mut t = x[0];
        let mut u: Option<(Value, Value)> = None;
        for (j, (a, b)) in pairs.iter().enumerate() {
            let angle = 2.0 * PI * (((j + 1) * m) % p) as f64 / p as f64;
            let (s, c) = angle.sin_cos();
            let (c, s) = (k.constant(ty, c), k.constant(ty, s));
            t = C {
                re: k.fma(a.re, c, t.re),
                im: k.fma(a.im, c, t.im),
            };
            u = Some(match u {
                None => (k.mul(b.im, s), k.mul(b.re, s)),
                Some((ur, ui)) => (k.fma(b.im, s, ur), k.fma(b.re, s, ui)),
            });
        }
        let (ur, ui) = u.expect("p >= 3 has a pair");
        // σ = −1 forward: y_m = (T.re + U.re, T.im − U.im).
        let (lo, hi) = if forward {
            (
                C {
                    re: k.add(t.re, ur),
                    im: k.sub(t.im, ui),
                },
                C {
                    re: k.sub(t.re, ur),
                    im: k.add(t.im, ui),
                },
            )
        } else {
            (
                C {
                    re: k.sub(t.re, ur),
                    im: k.add(t.im, ui),
                },
                C {
                    re: k.add(t.re, ur),
                    im: k.sub(t.im, ui),
                },
            )
        };
        out[m] = lo;
        out[p - m] = hi;
    }
    out
}
