//! Stockham autosort radix passes with precomputed twiddles.
//!
//! Pass `i` has radix `r`, stride `s` (the product of the earlier radices) and `m =
//! N/(r·s)`; it reads `x[q + s(p + km)]`, applies a radix-`r` butterfly and the twiddle
//! `ω_{rm}^{pj}`, and writes `y[q + s(rp + j)]`. Passes ping-pong between the data and a
//! scratch buffer; the output is in natural order in whichever one the last pass wrote.
//! The innermost loop runs over `q` (contiguous, constant twiddle) so it vectorises; the
//! first pass (`s = 1`) instead streams `r` contiguous inputs per butterfly.

use super::butterfly::{bf16, bf2, bf4, bf8, bf_generic, bf_odd, OddConsts};
use super::Loc;
use crate::scalar::{cast, Real};
use crate::twiddle::root_dir;
use num_complex::Complex;
use std::array::from_fn;

type C<T> = Complex<T>;

#[derive(Debug, Clone)]
struct Pass<T> {
    radix: usize,
    m: usize,
    s: usize,
    /// `tw[p·r + j] = ω_{rm}^{pj}` for `p < m`, `j < r`.
    tw: Vec<C<T>>,
    /// Constants of odd radices.
    odd: Option<OddConsts<T>>,
}

/// An executable Stockham sequence of one length and direction.
#[derive(Debug, Clone)]
pub struct Stockham<T> {
    n: usize,
    forward: bool,
    passes: Vec<Pass<T>>,
}

impl<T: Real> Stockham<T> {
    pub fn new(n: usize, radices: &[usize], forward: bool) -> Self {
        let mut s = 1;
        let mut passes = Vec::with_capacity(radices.len());
        for &r in radices {
            let m = n / (r * s);
            let len = (r * m) as u64;
            let mut tw = Vec::with_capacity(m * r);
            for p in 0..m {
                for j in 0..r {
                    tw.push(cast(root_dir((p * j) as u64, len, forward)));
                }
            }
            let odd = (r % 2 == 1).then(|| OddConsts::new(r, forward));
            passes.push(Pass {
                radix: r,
                m,
                s,
                tw,
                odd,
            });
            s *= r;
        }
        Stockham { n, forward, passes }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// Transforms `a[..n]` using `b[..n]` as the other buffer; says which holds the result.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        let n = self.n;
        let (a, b) = (&mut a[..n], &mut b[..n]);
        let mut loc = Loc::A;
        for pass in &self.passes {
            match loc {
                Loc::A => run_pass(pass, a, b, self.forward),
                Loc::B => run_pass(pass, b, a, self.forward),
            }
            loc = loc.other();
        }
        loc
    }
}

fn run_pass<T: Real>(p: &Pass<T>, x: &[C<T>], y: &mut [C<T>], fwd: bool) {
    let (m, s, tw) = (p.m, p.s, &p.tw[..]);
    macro_rules! go {
        ($r:literal, $bf:expr) => {
            pass::<T, $r>(x, y, m, s, tw, $bf)
        };
    }
    match (p.radix, fwd, &p.odd) {
        (2, _, _) => go!(2, bf2),
        (4, true, _) => go!(4, bf4::<T, true>),
        (4, false, _) => go!(4, bf4::<T, false>),
        (8, true, _) => go!(8, bf8::<T, true>),
        (8, false, _) => go!(8, bf8::<T, false>),
        (16, true, _) => go!(16, bf16::<T, true>),
        (16, false, _) => go!(16, bf16::<T, false>),
        (3, _, Some(k)) => go!(3, |a| bf_odd::<T, 3>(a, k)),
        (5, _, Some(k)) => go!(5, |a| bf_odd::<T, 5>(a, k)),
        (7, _, Some(k)) => go!(7, |a| bf_odd::<T, 7>(a, k)),
        (11, _, Some(k)) => go!(11, |a| bf_odd::<T, 11>(a, k)),
        (13, _, Some(k)) => go!(13, |a| bf_odd::<T, 13>(a, k)),
        (r, _, Some(k)) => pass_generic(x, y, r, m, s, tw, k),
        // Even radices other than the above are never planned.
        (r, _, None) => debug_assert!(false, "no butterfly for radix {r}"),
    }
}

#[inline(always)]
fn pass<T: Real, const R: usize>(
    x: &[C<T>],
    y: &mut [C<T>],
    m: usize,
    s: usize,
    tw: &[C<T>],
    bf: impl Fn([C<T>; R]) -> [C<T>; R],
) {
    if s == 1 {
        let xs: [&[C<T>]; R] = from_fn(|k| &x[k * m..(k + 1) * m]);
        for (p, (yo, w)) in y.chunks_exact_mut(R).zip(tw.chunks_exact(R)).enumerate() {
            let b = bf(from_fn(|k| xs[k][p]));
            yo[0] = b[0];
            for j in 1..R {
                yo[j] = b[j] * w[j];
            }
        }
        return;
    }
    for (p, (yp, w)) in y
        .chunks_exact_mut(R * s)
        .zip(tw.chunks_exact(R))
        .enumerate()
    {
        let xs: [&[C<T>]; R] = from_fn(|k| &x[s * (p + k * m)..][..s]);
        let mut it = yp.chunks_exact_mut(s);
        let ys: [&mut [C<T>]; R] = from_fn(|_| it.next().unwrap_or_default());
        if m == 1 {
            for q in 0..s {
                let b = bf(from_fn(|k| xs[k][q]));
                for j in 0..R {
                    ys[j][q] = b[j];
                }
            }
        } else {
            let w: [C<T>; R] = from_fn(|j| w[j]);
            for q in 0..s {
                let b = bf(from_fn(|k| xs[k][q]));
                ys[0][q] = b[0];
                for j in 1..R {
                    ys[j][q] = b[j] * w[j];
                }
            }
        }
    }
}

fn pass_generic<T: Real>(
    x: &[C<T>],
    y: &mut [C<T>],
    r: usize,
    m: usize,
    s: usize,
    tw: &[C<T>],
    k: &OddConsts<T>,
) {
    let zero = C::new(T::zero(), T::zero());
    let mut a = [zero; 64];
    let mut b = [zero; 64];
    for (p, (yp, w)) in y
        .chunks_exact_mut(r * s)
        .zip(tw.chunks_exact(r))
        .enumerate()
    {
        for q in 0..s {
            for (kk, ak) in a[..r].iter_mut().enumerate() {
                *ak = x[q + s * (p + kk * m)];
            }
            bf_generic(&a[..r], &mut b[..r], k);
            for j in 0..r {
                yp[j * s + q] = b[j] * w[j];
            }
        }
    }
}
