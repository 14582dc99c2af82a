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
    ///
    /// On x86-64 CPUs with AVX2 and FMA the same code is compiled a second time for
    /// them (wider auto-vectorisation) and chosen at run time. Rust never contracts
    /// `a·b + c` into an FMA on its own, so both versions round identically.
    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above.
            return unsafe { self.run_avx2(a, b) };
        }
        self.run_portable(a, b)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_avx2(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
        self.run_portable(a, b)
    }

    #[inline(always)]
    fn run_portable(&self, a: &mut [C<T>], b: &mut [C<T>]) -> Loc {
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

#[inline(always)]
fn run_pass<T: Real>(p: &Pass<T>, x: &[C<T>], y: &mut [C<T>], fwd: bool) {
    let (m, s, tw) = (p.m, p.s, &p.tw[..]);
    macro_rules! go {
        ($r:literal, $bf:expr) => {
            pass::<T, $r, _>(x, y, m, s, tw, $bf)
        };
    }
    match (p.radix, fwd, &p.odd) {
        (2, _, _) => go!(2, Pow2::<true>),
        (4, true, _) => go!(4, Pow2::<true>),
        (4, false, _) => go!(4, Pow2::<false>),
        (8, true, _) => go!(8, Pow2::<true>),
        (8, false, _) => go!(8, Pow2::<false>),
        (16, true, _) => go!(16, Pow2::<true>),
        (16, false, _) => go!(16, Pow2::<false>),
        (3, _, Some(k)) => go!(3, Odd(k)),
        (5, _, Some(k)) => go!(5, Odd(k)),
        (7, _, Some(k)) => go!(7, Odd(k)),
        (11, _, Some(k)) => go!(11, Odd(k)),
        (13, _, Some(k)) => go!(13, Odd(k)),
        (r, _, Some(k)) => pass_generic(x, y, r, m, s, tw, k),
        // Even radices other than the above are never planned.
        (r, _, None) => debug_assert!(false, "no butterfly for radix {r}"),
    }
}

/// A radix-`R` butterfly, always inlined into the pass loop.
trait Butterfly<T, const R: usize> {
    fn apply(&self, a: [C<T>; R]) -> [C<T>; R];
}

/// Radices 2, 4, 8, 16 with direction `F` (forward when true).
struct Pow2<const F: bool>;

macro_rules! pow2 {
    ($r:literal, $f:ident) => {
        impl<T: Real, const F: bool> Butterfly<T, $r> for Pow2<F> {
            #[inline(always)]
            fn apply(&self, a: [C<T>; $r]) -> [C<T>; $r] {
                $f::<T, F>(a)
            }
        }
    };
}
pow2!(4, bf4);
pow2!(8, bf8);
pow2!(16, bf16);

impl<T: Real, const F: bool> Butterfly<T, 2> for Pow2<F> {
    #[inline(always)]
    fn apply(&self, a: [C<T>; 2]) -> [C<T>; 2] {
        bf2(a)
    }
}

/// Odd prime radices with their constants.
struct Odd<'a, T>(&'a OddConsts<T>);

impl<T: Real, const R: usize> Butterfly<T, R> for Odd<'_, T> {
    #[inline(always)]
    fn apply(&self, a: [C<T>; R]) -> [C<T>; R] {
        bf_odd::<T, R>(a, self.0)
    }
}

#[inline(always)]
fn pass<T: Real, const R: usize, B: Butterfly<T, R>>(
    x: &[C<T>],
    y: &mut [C<T>],
    m: usize,
    s: usize,
    tw: &[C<T>],
    bf: B,
) {
    if s == 1 {
        let xs: [&[C<T>]; R] = from_fn(|k| &x[k * m..(k + 1) * m]);
        for (p, (yo, w)) in y.chunks_exact_mut(R).zip(tw.chunks_exact(R)).enumerate() {
            let b = bf.apply(from_fn(|k| xs[k][p]));
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
                let b = bf.apply(from_fn(|k| xs[k][q]));
                for j in 0..R {
                    ys[j][q] = b[j];
                }
            }
        } else {
            let w: [C<T>; R] = from_fn(|j| w[j]);
            for q in 0..s {
                let b = bf.apply(from_fn(|k| xs[k][q]));
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
