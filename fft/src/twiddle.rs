//! Twiddle factors ω_n^k = e^{∓2πik/n}, computed in `f64` with the argument reduced to
//! the first octant, so every table entry is correct to about one ulp of `f64` however
//! large `n` is (evaluating `sin_cos(2πk/n)` directly loses up to `log2(n)` bits in the
//! argument).

use num_complex::Complex;
use std::f64::consts::PI;

/// e^{-2πi k/n} (the forward root), accurate to about one ulp. `n` must be non-zero.
pub fn root(k: u64, n: u64) -> Complex<f64> {
    debug_assert!(n > 0);
    let k = k % n;
    // Use e^{-iθ} for θ = 2πk/n; fold θ into [0, π] by conjugation, then into [0, π/4].
    if 2 * k > n {
        return root(n - k, n).conj();
    }
    // Wide integers: 8k and 4n stay exact for any u64 n.
    let (k8, n128) = (8 * k as u128, n as u128);
    let (c, s) = if k8 <= n128 {
        // θ = 2πk/n
        (2.0 * PI * k as f64 / n as f64).sin_cos().swap()
    } else if k8 <= 2 * n128 {
        // φ = π/2 − θ = π(n − 4k)/(2n): cos θ = sin φ, sin θ = cos φ.
        let phi = PI * (n as f64 - 4.0 * k as f64) / (2.0 * n as f64);
        let (sp, cp) = phi.sin_cos();
        (sp, cp)
    } else if k8 <= 3 * n128 {
        // φ = θ − π/2 = π(4k − n)/(2n): cos θ = −sin φ, sin θ = cos φ.
        let phi = PI * (4.0 * k as f64 - n as f64) / (2.0 * n as f64);
        let (sp, cp) = phi.sin_cos();
        (-sp, cp)
    } else {
        // φ = π − θ = π(n − 2k)/n: cos θ = −cos φ, sin θ = sin φ.
        let phi = PI * (n as f64 - 2.0 * k as f64) / n as f64;
        let (sp, cp) = phi.sin_cos();
        (-cp, sp)
    };
    Complex::new(c, -s)
}

/// The root for a direction: e^{-2πik/n} forward, e^{+2πik/n} backward.
pub fn root_dir(k: u64, n: u64, forward: bool) -> Complex<f64> {
    let w = root(k, n);
    if forward {
        w
    } else {
        w.conj()
    }
}

/// `ω_n^e` for any `e` from two tables of about `√n` entries each:
/// `ω_n^e = hi[e >> b] · lo[e mod 2^b]` (`2^b ≥ √n`), the product of two correctly
/// rounded `f64` values taken in `f64` (error about 2 ulp of `f64`, far below `f32`
/// rounding). Building it costs `2√n` evaluations instead of `n`, and a lookup is a
/// shift, a mask and one complex product, which keeps plan creation fast for large `n`.
#[derive(Debug, Clone)]
pub struct RootTable {
    n: u64,
    shift: u32,
    lo: Vec<Complex<f64>>,
    hi: Vec<Complex<f64>>,
}

impl RootTable {
    /// Roots of order `n` (non-zero) in the direction's sign; an error when the two
    /// tables (about `2·√n` values) cannot be held.
    pub fn new(n: u64, forward: bool) -> rocm_core::Result<Self> {
        use rocm_core::host_alloc::try_from_fn;
        let shift = ((n as f64).sqrt().ceil().max(1.0).log2().ceil() as u32).min(32);
        let what = "root table";
        let hi_len = usize::try_from(n.div_ceil(1 << shift))
            .map_err(|_| rocm_core::Error::invalid(what, format!("order {n} is too large")))?;
        Ok(RootTable {
            n,
            shift,
            lo: try_from_fn(what, 1usize << shift, |e| root_dir(e as u64, n, forward))?,
            hi: try_from_fn(what, hi_len, |e| root_dir((e as u64) << shift, n, forward))?,
        })
    }

    /// `ω_n^e` for any `e`.
    #[inline]
    pub fn get(&self, e: u64) -> Complex<f64> {
        self.get_reduced(e % self.n)
    }

    /// `ω_n^e` for `e < n`; exact table values where `e` is below `2^b` or a
    /// multiple of it (the other factor is exactly 1).
    #[inline(always)]
    pub fn get_reduced(&self, e: u64) -> Complex<f64> {
        let (h, l) = (
            (e >> self.shift) as usize,
            (e & ((1 << self.shift) - 1)) as usize,
        );
        self.hi[h] * self.lo[l]
    }
}

/// Roots of order `n` in the direction's sign for any exponent, by the cheapest
/// accurate way: a direct evaluation per root (about 1 ulp of `f64`) up to
/// [`Roots::DIRECT_MAX`], the [`RootTable`] product (about 2 ulp) above, so a table of
/// `n` roots costs `O(√n)` sin/cos.
#[derive(Debug, Clone)]
pub struct Roots {
    n: u64,
    forward: bool,
    table: Option<RootTable>,
}

impl Roots {
    /// Orders up to this evaluate every root directly.
    pub const DIRECT_MAX: u64 = 4096;

    /// An error when the table of a large order cannot be held (see [`RootTable::new`]).
    pub fn new(n: u64, forward: bool) -> rocm_core::Result<Self> {
        Ok(Roots {
            n,
            forward,
            table: if n > Self::DIRECT_MAX {
                Some(RootTable::new(n, forward)?)
            } else {
                None
            },
        })
    }

    /// `ω_n^e` (`e^{∓2πie/n}`) for any `e`.
    #[inline]
    pub fn get(&self, e: u64) -> Complex<f64> {
        match &self.table {
            Some(t) => t.get(e),
            None => root_dir(e, self.n, self.forward),
        }
    }

    /// `ω_n^e` for `e < n` (no reduction).
    #[inline]
    pub fn get_reduced(&self, e: u64) -> Complex<f64> {
        debug_assert!(e < self.n);
        match &self.table {
            Some(t) => t.get_reduced(e),
            None => root_dir(e, self.n, self.forward),
        }
    }
}

trait Swap {
    fn swap(self) -> Self;
}
impl Swap for (f64, f64) {
    fn swap(self) -> Self {
        (self.1, self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_match_direct_evaluation_and_symmetries() {
        for n in [1u64, 2, 3, 5, 8, 12, 17, 1000, 1 << 20] {
            for k in (0..n).step_by((n as usize / 97).max(1)) {
                let w = root(k, n);
                let th = -2.0 * PI * k as f64 / n as f64;
                // The direct evaluation is itself off by about |θ|·ε.
                assert!((w.re - th.cos()).abs() < 1e-14, "n {n} k {k}");
                assert!((w.im - th.sin()).abs() < 1e-14, "n {n} k {k}");
                assert!((w.norm() - 1.0).abs() < 4e-16);
            }
        }
        assert_eq!(root(0, 7), Complex::new(1.0, 0.0));
        assert_eq!(root(2, 4), Complex::new(-1.0, 0.0));
        assert_eq!(root(1, 4), Complex::new(0.0, -1.0));
        assert_eq!(root(3, 4), Complex::new(0.0, 1.0));
        assert_eq!(root_dir(1, 4, false), Complex::new(0.0, 1.0));
    }

    #[test]
    fn roots_match_direct_roots_both_ways() {
        for n in [1u64, 12, 4096, 4097, 20014, 65537] {
            for fwd in [true, false] {
                let r = Roots::new(n, fwd).unwrap();
                for e in (0..2 * n).step_by((n as usize / 101).max(1)) {
                    let want = root_dir(e, n, fwd);
                    let tol = if n <= Roots::DIRECT_MAX { 0.0 } else { 4e-16 };
                    assert!((r.get(e) - want).norm() <= tol, "n {n} e {e} fwd {fwd}");
                    if e < n {
                        assert_eq!(r.get_reduced(e), r.get(e));
                    }
                }
            }
        }
    }

    #[test]
    fn root_table_matches_direct_roots() {
        for n in [1u64, 7, 64, 1000, 65536, 1 << 20, 999_983] {
            let t = RootTable::new(n, true).unwrap();
            let tb = RootTable::new(n, false).unwrap();
            for e in (0..3 * n).step_by((n as usize / 251).max(1)) {
                // Two rounded factors and one rounded product: a few ulp of f64.
                assert!((t.get(e) - root(e, n)).norm() < 4e-16, "n {n} e {e}");
                assert!(
                    (tb.get(e) - root(e, n).conj()).norm() < 4e-16,
                    "n {n} e {e}"
                );
            }
        }
    }
}
