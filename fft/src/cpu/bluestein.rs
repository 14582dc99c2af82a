//! Bluestein's chirp-z transform for lengths with a large prime factor.
//!
//! `jk = (j² + k² − (k−j)²)/2` turns the DFT into a convolution:
//! `X_k = w_k Σ_j (x_j w_j) conj(w_{k−j})`, `w_k = e^{∓πik²/N}`. The circular
//! convolution of length `M ≥ 2N−1` is `conj(F(conj(F(a) · K)))` with `F` the forward
//! transform of length `M` and `K = F(b)/M` computed in `f64` (`b_j = conj(w_j)`
//! wrapped around), so one forward sub-plan serves both transforms. The chirp and `K`
//! are built by the first execution ([`cache::Deferred`]), not at plan creation.
//! The chirp exponent `k² mod 2N` is reduced exactly in integers.

use super::simd::{dispatch, Pointwise, RowMul};
use super::{cache, Exec, Loc, Rounded, MAX_TILE};
use crate::plan::Node;
use crate::scalar::FftReal;
use crate::twiddle::Roots;
use num_complex::Complex;
use rocm_core::{host_alloc, Result};
use std::sync::Arc;

type C<T> = Complex<T>;

#[derive(Debug, Clone)]
pub struct Bluestein<T> {
    n: usize,
    m: usize,
    conv: Box<Exec<T>>,
    /// Shared by every plan of this length, padding, precision and direction; built
    /// by the first execution.
    t: Arc<cache::Deferred<Tables<T>, TableParams>>,
}

/// What fixes a Bluestein step's tables.
#[derive(Debug)]
struct TableParams {
    n: usize,
    m: usize,
    conv: Node,
    fwd: bool,
}

#[derive(Debug)]
struct Tables<T> {
    chirp: Rounded<T>,
    kernel: Rounded<T>,
}

impl<T: FftReal> Bluestein<T> {
    pub fn new(n: usize, m: usize, conv_node: &Node, fwd: bool) -> Result<Self> {
        let t = cache::get_or_make(
            cache::Key::new::<T>("bluestein", vec![n, m, fwd as usize]),
            |_| (n + m) * std::mem::size_of::<C<T>>(),
            || {
                let params = TableParams {
                    n,
                    m,
                    conv: conv_node.clone(),
                    fwd,
                };
                Ok(cache::Deferred::new(params, |p| {
                    Self::tables(p.n, p.m, &p.conv, p.fwd)
                }))
            },
        )?;
        Ok(Bluestein {
            n,
            m,
            conv: Box::new(Exec::new(conv_node, true)?),
            t,
        })
    }

    /// Builds the chirp and the kernel if no execution has yet.
    pub fn prepare(&self) -> Result<()> {
        self.conv.prepare()?;
        self.t.try_get().map(|_| ())
    }

    fn tables(n: usize, m: usize, conv_node: &Node, fwd: bool) -> Result<Tables<T>> {
        const WHAT: &str = "Bluestein chirp table";
        let roots = Roots::new(2 * n as u64, fwd)?;
        // e_k = k² mod 2N, stepped exactly: e_{k+1} = e_k + 2k + 1 (mod 2N).
        let two_n = 2 * n as u64;
        let mut e = 0u64;
        let chirp64: Vec<C<f64>> = host_alloc::try_from_fn(WHAT, n, |k| {
            let w = roots.get_reduced(e);
            e += 2 * k as u64 + 1;
            while e >= two_n {
                e -= two_n;
            }
            w
        })?;
        // The kernel, transformed in f64 by the same decomposition and rounded to T
        // in whichever buffer holds it (as the chirp is in its own).
        let conv64 = super::kernel_exec::<T>(conv_node)?;
        let mut b = host_alloc::try_vec(WHAT, m, C::new(0.0, 0.0))?;
        let mut s = host_alloc::try_vec(WHAT, conv64.scratch_len().max(m), C::new(0.0, 0.0))?;
        for (j, w) in chirp64.iter().enumerate() {
            b[j] = w.conj();
            if j > 0 {
                b[m - j] = w.conj();
            }
        }
        let kb = match conv64.run(&mut b, &mut s, false) {
            Loc::A => b,
            Loc::B => {
                drop(b);
                s
            }
        };
        Ok(Tables {
            chirp: Rounded::new(chirp64, n, 1.0),
            kernel: Rounded::new(kb, m, 1.0 / m as f64),
        })
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn scratch_len(&self) -> usize {
        self.m + self.conv.scratch_len().max(self.m)
    }

    /// Transforms `a[..n]` using `b` (at least `m + max(m, conv scratch)`) as scratch.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        let (n, m) = (self.n, self.m);
        let (w, rest) = b.split_at_mut(m);
        dispatch(Pointwise::<T, false, false> {
            out: &mut w[..n],
            a: Some(&a[..n]),
            b: &self.t.get().chirp,
        });
        for wj in &mut w[n..] {
            *wj = C::new(T::zero(), T::zero());
        }
        let loc = self.conv.run(w, rest, par);
        let (y, other) = match loc {
            Loc::A => (w, rest),
            Loc::B => (&mut rest[..m], w),
        };
        dispatch(Pointwise::<T, false, true> {
            out: &mut y[..m],
            a: None,
            b: &self.t.get().kernel,
        });
        let loc = self.conv.run(y, other, par);
        let z: &[C<T>] = match loc {
            Loc::A => y,
            Loc::B => other,
        };
        dispatch(Pointwise::<T, true, false> {
            out: &mut a[..n],
            a: Some(&z[..n]),
            b: &self.t.get().chirp,
        });
        Loc::A
    }

    /// Whether [`Self::run_tile`] works on whole tiles (its convolution is a Stockham
    /// sequence; anything else goes column by column).
    pub fn tiles(&self) -> bool {
        matches!(*self.conv, Exec::Stockham(_))
    }

    /// Complex elements of scratch [`Self::run_tile`] needs for `width` columns.
    pub fn tile_scratch_len(&self, width: usize) -> usize {
        self.m * width + self.conv.tile_scratch_len(width)
    }

    /// Transforms the `width` interleaved columns of `a` (see [`Exec::run_tile`]):
    /// the chirp and kernel multiply whole rows.
    pub fn run_tile(&self, a: &mut [C<T>], b: &mut [C<T>], width: usize) -> Loc {
        if width > MAX_TILE || !self.tiles() {
            return Exec::column_by_column(self.n, a, b, width, |line, more| {
                self.run(line, more, false)
            });
        }
        let (n, m, wd) = (self.n, self.m, width);
        let (w, rest) = b.split_at_mut(m * wd);
        w[..n * wd].copy_from_slice(&a[..n * wd]);
        dispatch(RowMul::<T, false> {
            data: &mut w[..n * wd],
            width: wd,
            factors: &self.t.get().chirp,
        });
        for z in &mut w[n * wd..] {
            *z = C::new(T::zero(), T::zero());
        }
        let (y, other) = match self.conv.run_tile(w, rest, wd) {
            Loc::A => (w, rest),
            Loc::B => (&mut rest[..m * wd], w),
        };
        dispatch(RowMul::<T, true> {
            data: &mut y[..m * wd],
            width: wd,
            factors: &self.t.get().kernel,
        });
        let z: &[C<T>] = match self.conv.run_tile(y, other, wd) {
            Loc::A => y,
            Loc::B => &other[..m * wd],
        };
        a[..n * wd].copy_from_slice(&z[..n * wd]);
        dispatch(RowMul::<T, false, true> {
            data: &mut a[..n * wd],
            width: wd,
            factors: &self.t.get().chirp,
        });
        Loc::A
    }
}
