//! Real transforms on top of complex ones.
//!
//! Even `N = 2h`: the packed sequence `z_j = x_{2j} + i·x_{2j+1}` has transform
//! `Z_k = E_k + i·O_k` (`E`, `O` the transforms of the even and odd samples), so
//! `X_k = E_k + ω_N^k O_k` with `E_k = (Z_k + conj(Z_{h−k}))/2` and
//! `O_k = (Z_k − conj(Z_{h−k}))/(2i)`, for `k = 0..=h`. The inverse runs the same algebra
//! backwards: `Z_k = E_k + i·O_k` with `E_k = X_k + conj(X_{h−k})` and
//! `O_k = (X_k − conj(X_{h−k})) ω_N^{−k}` (the factor 2 makes the result unnormalised),
//! then an inverse complex transform of length `h` unpacks into pairs.
//! Odd `N` goes through the full complex transform. As in FFTW and rocFFT, C2R ignores
//! the imaginary parts of `X_0` and (even `N`) `X_{N/2}`.

use super::{cache, Exec, Loc};
use crate::plan::RealNode;
use crate::scalar::{cast, FftReal};
use crate::twiddle::Roots;
use num_complex::Complex;
use rocm_core::{host_alloc, Result};
use std::sync::Arc;

type C<T> = Complex<T>;

#[derive(Debug, Clone)]
pub enum RealExec<T> {
    Even {
        n: usize,
        half: Exec<T>,
        /// ω_N^k = e^{−2πik/N}, k < N/2, in f64: the pass computes in f64 and rounds
        /// once, so it adds half an ulp instead of several.
        tw: Arc<Vec<C<f64>>>,
    },
    ViaComplex {
        n: usize,
        full: Exec<T>,
    },
}

impl<T: FftReal> RealExec<T> {
    /// The node with its tables; an error when a table cannot be held.
    pub fn new(node: &RealNode, forward: bool) -> Result<Self> {
        Ok(match node {
            RealNode::Even { n, half } => RealExec::Even {
                n: *n,
                half: Exec::new(half, forward)?,
                tw: cache::get_or_make(
                    cache::Key::new::<f64>("real", vec![*n]),
                    |t: &Vec<C<f64>>| t.len() * std::mem::size_of::<C<f64>>(),
                    || {
                        let roots = Roots::new(*n as u64, true)?;
                        host_alloc::try_from_fn("real-transform twiddle table", n / 2, |k| {
                            roots.get_reduced(k as u64)
                        })
                    },
                )?,
            },
            RealNode::ViaComplex { n, full } => RealExec::ViaComplex {
                n: *n,
                full: Exec::new(full, forward)?,
            },
        })
    }

    /// Builds the tables of the complex transform deferred to the first execution.
    pub fn prepare(&self) -> Result<()> {
        match self {
            RealExec::Even { half, .. } => half.prepare(),
            RealExec::ViaComplex { full, .. } => full.prepare(),
        }
    }

    /// Whether the line buffer holds packed pairs (even) or one real per element (odd).
    pub fn packed(&self) -> bool {
        matches!(self, RealExec::Even { .. })
    }

    /// R2C: `a` holds the packed input (see [`Self::packed`]); the `N/2 + 1` outputs end
    /// in the buffer returned. `a` and `b` need [`Self::buffer_len`] and
    /// [`Self::scratch_len`] elements.
    pub fn forward(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        match self {
            RealExec::ViaComplex { full, .. } => full.run(a, b, false),
            RealExec::Even { n, half, tw } => {
                let h = n / 2;
                let loc = half.run(a, b, false);
                let z = match loc {
                    Loc::A => &mut a[..h + 1],
                    Loc::B => &mut b[..h + 1],
                };
                let z0 = z[0];
                z[0] = C::new(z0.re + z0.im, T::zero());
                z[h] = C::new(z0.re - z0.im, T::zero());
                // Pairs (k, h − k); k = h − k pairs with itself.
                for k in 1..=h / 2 {
                    let j = h - k;
                    let (zk, zj) = (wide(z[k]), wide(z[j]));
                    let xk = post(zk, zj.conj(), tw[k]);
                    let xj = post(zj, zk.conj(), tw[j]);
                    z[k] = cast(xk);
                    z[j] = cast(xj);
                }
                loc
            }
        }
    }

    /// C2R: `a[..N/2 + 1]` holds the Hermitian input; the result is in the buffer
    /// returned, packed as for [`Self::forward`]'s input.
    pub fn inverse(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        match self {
            RealExec::ViaComplex { n, full } => {
                let n = *n;
                let h = n / 2;
                a[0] = C::new(a[0].re, T::zero());
                for k in 1..=h {
                    a[n - k] = a[k].conj();
                }
                full.run(a, b, false)
            }
            RealExec::Even { n, half, tw } => {
                let h = n / 2;
                let (x0, xh) = (a[0].re, a[h].re);
                a[0] = C::new(x0 + xh, x0 - xh);
                for k in 1..=h / 2 {
                    let j = h - k;
                    let (xk, xj) = (wide(a[k]), wide(a[j]));
                    let zk = pre(xk, xj.conj(), tw[k].conj());
                    let zj = pre(xj, xk.conj(), tw[j].conj());
                    a[k] = cast(zk);
                    a[j] = cast(zj);
                }
                half.run(a, b, false)
            }
        }
    }

    /// Complex elements of the line buffer.
    pub fn buffer_len(&self) -> usize {
        match self {
            RealExec::Even { n, .. } => n / 2 + 1,
            RealExec::ViaComplex { n, .. } => *n,
        }
    }

    /// Complex elements of scratch.
    pub fn scratch_len(&self) -> usize {
        match self {
            RealExec::Even { n, half, .. } => half.scratch_len().max(n / 2 + 1),
            RealExec::ViaComplex { full, .. } => full.scratch_len(),
        }
    }
}

#[inline(always)]
fn wide<T: FftReal>(z: C<T>) -> C<f64> {
    C::new(z.re.as_f64(), z.im.as_f64())
}

/// `X_k` from `Z_k` and `conj(Z_{h−k})`.
#[inline(always)]
fn post(zk: C<f64>, zc: C<f64>, w: C<f64>) -> C<f64> {
    let e = (zk + zc) * 0.5;
    let d = (zk - zc) * 0.5;
    // O = d / i = −i·d
    let o = C::new(d.im, -d.re);
    e + w * o
}

/// `Z_k` from `X_k` and `conj(X_{h−k})` (`winv = ω_N^{−k}`).
#[inline(always)]
fn pre(xk: C<f64>, xc: C<f64>, winv: C<f64>) -> C<f64> {
    let e = xk + xc;
    let o = (xk - xc) * winv;
    // Z = E + i·O
    C::new(e.re - o.im, e.im + o.re)
}
