//! Rader's algorithm for a prime length `p` whose `p − 1` is smooth.
//!
//! With `g` a generator mod `p`, `a_r = x_{g^r}` and `b_s = ω_p^{g^{−s}}` (`r, s < L =
//! p − 1`): `X_{g^{−q}} = x_0 + (a ⊛ b)_q` (cyclic convolution of length `L`) and
//! `X_0 = x_0 + Σ_r a_r`. The convolution is `conj(F(conj(F(a) · K)))` with `F` the
//! forward transform of length `L` and `K = F(b)/L` computed in `f64` by the first
//! execution ([`cache::Deferred`]), so one forward sub-plan serves both transforms;
//! `Σ_r a_r` is `F(a)_0`.
//! Permutation indices are exact integer powers mod `p`.

use super::simd::{dispatch, Pointwise, RowMul};
use super::{cache, Exec, Loc, Rounded, MAX_TILE};
use crate::plan::{pow_mod, Node};
use crate::scalar::FftReal;
use crate::twiddle::Roots;
use num_complex::Complex;
use rocm_core::{host_alloc, Result};
use std::sync::Arc;

type C<T> = Complex<T>;

#[derive(Debug, Clone)]
pub struct Rader<T> {
    n: usize,
    conv: Box<Exec<T>>,
    /// Shared by every plan of this length, precision and direction; built by the
    /// first execution.
    t: Arc<cache::Deferred<Tables<T>, TableParams>>,
}

/// What fixes a Rader step's tables.
#[derive(Debug)]
struct TableParams {
    n: usize,
    g: usize,
    conv: Node,
    fwd: bool,
}

#[derive(Debug)]
struct Tables<T> {
    kernel: Rounded<T>,
    /// `gather[r] = g^r mod p`: where convolution input `r` comes from. Output `q`
    /// goes to `g^{−q} = gather[(L − q) mod L]` (see [`scatter`]).
    gather: Vec<u32>,
}

/// Where convolution outputs `0, 1, ..., L − 1` go: `g^{−q} = g^{(L − q) mod L}`, so
/// `gather[0]` and then `gather` backwards (no second index table: plan creation is
/// bounded by the fresh memory it writes).
fn scatter(gather: &[u32]) -> impl Iterator<Item = &u32> {
    gather[..1.min(gather.len())]
        .iter()
        .chain(gather.get(1..).unwrap_or(&[]).iter().rev())
}

impl<T: FftReal> Rader<T> {
    pub fn new(n: usize, g: usize, conv_node: &Node, fwd: bool) -> Result<Self> {
        let t = cache::get_or_make(
            cache::Key::new::<T>("rader", vec![n, g, fwd as usize]),
            |_| (n - 1) * (std::mem::size_of::<C<T>>() + 4),
            || {
                let params = TableParams {
                    n,
                    g,
                    conv: conv_node.clone(),
                    fwd,
                };
                Ok(cache::Deferred::new(params, |p| {
                    Self::tables(p.n, p.g, &p.conv, p.fwd)
                }))
            },
        )?;
        Ok(Rader {
            n,
            conv: Box::new(Exec::new(conv_node, true)?),
            t,
        })
    }

    /// Builds the kernel and the permutation if no execution has yet.
    pub fn prepare(&self) -> Result<()> {
        self.conv.prepare()?;
        self.t.try_get().map(|_| ())
    }

    fn tables(n: usize, g: usize, conv_node: &Node, fwd: bool) -> Result<Tables<T>> {
        const WHAT: &str = "Rader kernel table";
        let l = n - 1;
        // g^r mod p by repeated multiplication (exact: p < 2^32, so products fit u64).
        debug_assert!(n < 1 << 32 && pow_mod(g, l, n) == 1);
        let mut gather: Vec<u32> = host_alloc::try_with_capacity(WHAT, l)?;
        let (mut x, g64, n64) = (1u64, g as u64, n as u64);
        for _ in 0..l {
            gather.push(x as u32);
            // x·g mod p: for the usual small generators a few subtractions, not a
            // 64-bit division.
            x *= g64;
            if g64 <= 8 {
                while x >= n64 {
                    x -= n64;
                }
            } else {
                x %= n64;
            }
        }
        // The kernel F(b)/L, transformed in f64 by the same decomposition and
        // rounded to T in whichever buffer holds it.
        let conv64 = super::kernel_exec::<T>(conv_node)?;
        let roots = Roots::new(n as u64, fwd)?;
        let mut b: Vec<C<f64>> = host_alloc::try_with_capacity(WHAT, l)?;
        b.extend(scatter(&gather).map(|&e| roots.get_reduced(e as u64)));
        let mut s = host_alloc::try_vec(WHAT, conv64.scratch_len().max(l), C::new(0.0, 0.0))?;
        let kb = match conv64.run(&mut b, &mut s, false) {
            Loc::A => b,
            Loc::B => {
                drop(b);
                s
            }
        };
        Ok(Tables {
            kernel: Rounded::new(kb, l, 1.0 / l as f64),
            gather,
        })
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn scratch_len(&self) -> usize {
        let l = self.n - 1;
        l + self.conv.scratch_len().max(l)
    }

    /// Transforms `a[..n]` using `b` (at least [`Self::scratch_len`]) as scratch.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        let l = self.n - 1;
        let (w, rest) = b.split_at_mut(l);
        for (wr, &i) in w.iter_mut().zip(&self.t.get().gather) {
            *wr = a[i as usize];
        }
        let x0 = a[0];
        let (y, other) = match self.conv.run(w, rest, par) {
            Loc::A => (w, rest),
            Loc::B => (&mut rest[..l], w),
        };
        a[0] = x0 + y[0];
        dispatch(Pointwise::<T, false, true> {
            out: &mut y[..l],
            a: None,
            b: &self.t.get().kernel,
        });
        let z: &[C<T>] = match self.conv.run(y, other, par) {
            Loc::A => y,
            Loc::B => other,
        };
        // Output q to g^{−q}: q = 0 to gather[0], then q = 1.. to gather backwards.
        let g = &self.t.get().gather;
        a[g[0] as usize] = x0 + z[0].conj();
        for (zq, &i) in z[1..l].iter().zip(g[1..].iter().rev()) {
            a[i as usize] = x0 + zq.conj();
        }
        Loc::A
    }

    /// Whether [`Self::run_tile`] works on whole tiles (its convolution is a Stockham
    /// sequence; anything else goes column by column).
    pub fn tiles(&self) -> bool {
        matches!(*self.conv, Exec::Stockham(_))
    }

    /// Complex elements of scratch [`Self::run_tile`] needs for `width` columns.
    pub fn tile_scratch_len(&self, width: usize) -> usize {
        (self.n - 1) * width + self.conv.tile_scratch_len(width)
    }

    /// Transforms the `width` interleaved columns of `a` (see [`Exec::run_tile`]): the
    /// permutations move whole rows and the kernel multiplies rows, so every step
    /// works on contiguous runs of `width` values.
    pub fn run_tile(&self, a: &mut [C<T>], b: &mut [C<T>], width: usize) -> Loc {
        if width > MAX_TILE || !self.tiles() {
            return Exec::column_by_column(self.n, a, b, width, |line, more| {
                self.run(line, more, false)
            });
        }
        let (l, wd) = (self.n - 1, width);
        let (w, rest) = b.split_at_mut(l * wd);
        for (row, &i) in w.chunks_exact_mut(wd).zip(&self.t.get().gather) {
            row.copy_from_slice(&a[i as usize * wd..][..wd]);
        }
        let (y, other) = match self.conv.run_tile(w, rest, wd) {
            Loc::A => (w, rest),
            Loc::B => (&mut rest[..l * wd], w),
        };
        // Every output adds x0 (row 0 of `a`): keep it, then row 0 becomes X_0.
        let zero = C::new(T::zero(), T::zero());
        let mut x0 = [zero; MAX_TILE];
        let x0 = &mut x0[..wd];
        x0.copy_from_slice(&a[..wd]);
        for ((d, x), y0) in a[..wd].iter_mut().zip(x0.iter()).zip(&y[..wd]) {
            *d = x + y0;
        }
        dispatch(RowMul::<T, true> {
            data: &mut y[..l * wd],
            width: wd,
            factors: &self.t.get().kernel,
        });
        let z: &[C<T>] = match self.conv.run_tile(y, other, wd) {
            Loc::A => y,
            Loc::B => &other[..l * wd],
        };
        for (row, &i) in z.chunks_exact(wd).zip(scatter(&self.t.get().gather)) {
            let dst = &mut a[i as usize * wd..][..wd];
            for ((d, zq), x) in dst.iter_mut().zip(row).zip(x0.iter()) {
                *d = x + zq.conj();
            }
        }
        Loc::A
    }
}
