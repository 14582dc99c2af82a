//! The four-step (row/column) transform for large lengths, `N = R·C`.
//!
//! With `n = C·n1 + n2` and `k = k1 + R·k2`:
//! `X[k1 + R·k2] = Σ_{n2} ω_C^{n2·k2} · ω_N^{n2·k1} · Σ_{n1} x[C·n1 + n2] ω_R^{n1·k1}`.
//! Steps: transpose (columns become rows), `C` transforms of length `R`, twiddle
//! `ω_N^{n2·k1}`, transpose, `R` transforms of length `C`, transpose. Rows run in
//! parallel when asked. Twiddles come from two tables of about `√N` entries each
//! (`ω_N^e = ω_N^{B·⌊e/B⌋} · ω_N^{e mod B}`, multiplied in `f64`), so planning stays cheap.

use super::{transpose, Exec, Loc};
use crate::scalar::Real;
use crate::twiddle::root_dir;
use num_complex::Complex;
use rayon::prelude::*;

type C<T> = Complex<T>;
/// A row index with the row and its scratch row.
type RowPair<'a, T> = (usize, (&'a mut [C<T>], &'a mut [C<T>]));

#[derive(Debug, Clone)]
pub struct FourStep<T> {
    n: usize,
    rows: usize,
    cols: usize,
    first: Box<Exec<T>>,
    second: Box<Exec<T>>,
    base: usize,
    tw_lo: Vec<C<f64>>,
    tw_hi: Vec<C<f64>>,
}

impl<T: Real> FourStep<T> {
    pub fn new(
        n: usize,
        rows: usize,
        cols: usize,
        first: Exec<T>,
        second: Exec<T>,
        fwd: bool,
    ) -> Self {
        let base = ((n as f64).sqrt().ceil() as usize).max(1);
        let tw_lo = (0..base)
            .map(|e| root_dir(e as u64, n as u64, fwd))
            .collect();
        let tw_hi = (0..n / base + 2)
            .map(|e| root_dir((e * base) as u64, n as u64, fwd))
            .collect();
        FourStep {
            n,
            rows,
            cols,
            first: Box::new(first),
            second: Box::new(second),
            base,
            tw_lo,
            tw_hi,
        }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// Multiplies row `n2` (result of the first transforms, in `row` or `tmp`) by
    /// `ω_N^{n2·k1}` and leaves it in `row`.
    fn twiddle_row(&self, n2: usize, row: &mut [C<T>], tmp: &[C<T>], in_tmp: bool) {
        let (base, n) = (self.base, self.n);
        let (dh, dl) = (n2 / base, n2 % base);
        let (nh, nl) = (n / base, n % base);
        let (mut hi, mut lo) = (0usize, 0usize);
        for k1 in 0..row.len() {
            let w = self.tw_hi[hi] * self.tw_lo[lo];
            let v = if in_tmp { tmp[k1] } else { row[k1] };
            let z = Complex::new(v.re.f64(), v.im.f64()) * w;
            row[k1] = Complex::new(T::of(z.re), T::of(z.im));
            // e += n2 (mod N), with e = hi·base + lo.
            lo += dl;
            hi += dh;
            if lo >= base {
                lo -= base;
                hi += 1;
            }
            if hi > nh || (hi == nh && lo >= nl) {
                if lo < nl {
                    lo += base;
                    hi -= 1;
                }
                lo -= nl;
                hi -= nh;
            }
        }
    }

    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        let (n, r, c) = (self.n, self.rows, self.cols);
        let (a, b) = (&mut a[..n], &mut b[..n]);
        // a: R rows of C (a[C·n1 + n2]) -> b: C rows of R (b[R·n2 + n1]).
        transpose(a, b, r, c, par);
        let first = |(n2, (row, tmp)): RowPair<'_, T>| {
            let loc = self.first.run(row, tmp, false);
            self.twiddle_row(n2, row, tmp, loc == Loc::B);
        };
        if par {
            b.par_chunks_mut(r)
                .zip(a.par_chunks_mut(r))
                .enumerate()
                .for_each(first);
        } else {
            b.chunks_mut(r)
                .zip(a.chunks_mut(r))
                .enumerate()
                .for_each(first);
        }
        // b: C rows of R -> a: R rows of C (a[C·k1 + n2]).
        transpose(b, a, c, r, par);
        let second = |(row, tmp): (&mut [C<T>], &mut [C<T>])| self.second.run(row, tmp, false);
        // Every row has the same plan, so every result is in the same buffer.
        let loc = if par {
            a.par_chunks_mut(c)
                .zip(b.par_chunks_mut(c))
                .map(second)
                .reduce(|| Loc::A, |_, l| l)
        } else {
            a.chunks_mut(c)
                .zip(b.chunks_mut(c))
                .map(second)
                .last()
                .unwrap_or(Loc::A)
        };
        // X[k1 + R·k2] sits at row k1, column k2: transpose R rows of C into the other buffer.
        match loc {
            Loc::A => {
                transpose(a, b, r, c, par);
                Loc::B
            }
            Loc::B => {
                transpose(b, a, r, c, par);
                Loc::A
            }
        }
    }
}
