//! Bluestein's chirp-z transform for lengths with a large prime factor.
//!
//! `jk = (j² + k² − (k−j)²)/2` turns the DFT into a convolution:
//! `X_k = w_k Σ_j (x_j w_j) conj(w_{k−j})`, `w_k = e^{∓πik²/N}`. The circular
//! convolution of length `M ≥ 2N−1` is `conj(F(conj(F(a) · K)))` with `F` the forward
//! transform of length `M` and `K = F(b)/M` precomputed in `f64` at plan time
//! (`b_j = conj(w_j)` wrapped around), so one forward sub-plan serves both transforms.
//! The chirp exponent `k² mod 2N` is reduced exactly in integers.

use super::{Exec, Loc};
use crate::plan::Node;
use crate::scalar::{cast, Real};
use crate::twiddle::root_dir;
use num_complex::Complex;

type C<T> = Complex<T>;

#[derive(Debug, Clone)]
pub struct Bluestein<T> {
    n: usize,
    m: usize,
    conv: Box<Exec<T>>,
    chirp: Vec<C<T>>,
    kernel: Vec<C<T>>,
}

impl<T: Real> Bluestein<T> {
    pub fn new(n: usize, m: usize, conv_node: &Node, fwd: bool) -> Self {
        let chirp64: Vec<C<f64>> = (0..n)
            .map(|k| {
                let k = k as u128;
                let e = (k * k % (2 * n as u128)) as u64;
                root_dir(e, 2 * n as u64, fwd)
            })
            .collect();
        // The kernel, transformed in f64 by the same decomposition.
        let conv64: Exec<f64> = Exec::new(conv_node, true);
        let mut b = vec![C::new(0.0, 0.0); m];
        let mut s = vec![C::new(0.0, 0.0); conv_node.scratch_len()];
        for (j, w) in chirp64.iter().enumerate() {
            b[j] = w.conj();
            if j > 0 {
                b[m - j] = w.conj();
            }
        }
        let loc = conv64.run(&mut b, &mut s, false);
        let kb = match loc {
            Loc::A => &b,
            Loc::B => &s,
        };
        let scale = 1.0 / m as f64;
        let kernel = kb[..m].iter().map(|z| cast(z * scale)).collect();
        Bluestein {
            n,
            m,
            conv: Box::new(Exec::new(conv_node, true)),
            chirp: chirp64.iter().map(|&z| cast(z)).collect(),
            kernel,
        }
    }

    pub fn scratch_len(&self) -> usize {
        self.m + self.conv.scratch_len().max(self.m)
    }

    /// Transforms `a[..n]` using `b` (at least `m + max(m, conv scratch)`) as scratch.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        let (n, m) = (self.n, self.m);
        let (w, rest) = b.split_at_mut(m);
        for ((wj, x), c) in w.iter_mut().zip(&a[..n]).zip(&self.chirp) {
            *wj = x * c;
        }
        for wj in &mut w[n..] {
            *wj = C::new(T::zero(), T::zero());
        }
        let loc = self.conv.run(w, rest, par);
        let (y, other) = match loc {
            Loc::A => (w, rest),
            Loc::B => (&mut rest[..m], w),
        };
        for (yj, k) in y.iter_mut().zip(&self.kernel) {
            *yj = (*yj * k).conj();
        }
        let loc = self.conv.run(y, other, par);
        let z: &[C<T>] = match loc {
            Loc::A => y,
            Loc::B => other,
        };
        for ((x, zk), c) in a[..n].iter_mut().zip(z).zip(&self.chirp) {
            *x = zk.conj() * c;
        }
        Loc::A
    }
}
