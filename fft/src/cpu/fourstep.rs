//! The four-step (row/column) transform for large lengths, `N = R·C`.
//!
//! With `n = C·n1 + n2` and `k = k1 + R·k2`:
//! `X[k1 + R·k2] = Σ_{n2} ω_C^{n2·k2} · ω_N^{n2·k1} · Σ_{n1} x[C·n1 + n2] ω_R^{n1·k1}`.
//! The data is `R` rows of `C`. Steps (rocFFT's column-block `CC` scheme):
//!
//! 1. the `C` columns in blocks of [`BLOCK`]: each block is copied into a contiguous
//!    `R × BLOCK` tile (it fits the L2 cache), transformed as `BLOCK` interleaved
//!    columns of length `R` in one Stockham sequence, multiplied by `ω_N^{n2·k1}` and
//!    written back;
//! 2. the `R` rows of length `C`, each contiguous;
//! 3. one transpose, `R × C` to `C × R`, which puts `X` in natural order.
//!
//! Blocks and rows run in parallel when asked. The twiddle `ω_N^{k1·(c0 + c)}` is
//! `ω_N^{k1·c0} · ω_N^{k1·c}` (`c < BLOCK`), both from a two-table [`RootTable`], and is
//! applied in `f64` then rounded once, so it costs no accuracy in `f32`.

use super::{transpose, Exec, Loc, Raw};
use crate::scalar::Real;
use crate::twiddle::RootTable;
use num_complex::Complex;
use rayon::prelude::*;

type C<T> = Complex<T>;

/// Columns transformed together in step 1.
const BLOCK: usize = 16;

#[derive(Debug, Clone)]
pub struct FourStep<T> {
    n: usize,
    rows: usize,
    cols: usize,
    first: Box<Exec<T>>,
    second: Box<Exec<T>>,
    roots: RootTable,
    /// `step[k1·BLOCK + c] = ω_N^{k1·c}` for `c < BLOCK`.
    step: Vec<C<f64>>,
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
        let roots = RootTable::new(n as u64, fwd);
        let step = (0..rows)
            .flat_map(|k1| (0..BLOCK).map(move |c| (k1 * c) as u64))
            .map(|e| roots.get(e))
            .collect();
        FourStep {
            n,
            rows,
            cols,
            first: Box::new(first),
            second: Box::new(second),
            roots,
            step,
        }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// Complex elements of scratch one column block needs.
    fn block_scratch(&self) -> usize {
        2 * self.rows * BLOCK + self.first.scratch_len()
    }

    /// Step 1 for columns `c0..c0 + w` of `a`, with `sc` (at least
    /// [`Self::block_scratch`]) as the tile and its scratch.
    fn column_block(&self, a: &[C<T>], out: Raw<C<T>>, c0: usize, w: usize, sc: &mut [C<T>]) {
        let (r, c) = (self.rows, self.cols);
        let (tile, rest) = sc.split_at_mut(r * BLOCK);
        let tile = &mut tile[..r * w];
        for (n1, t) in tile.chunks_exact_mut(w).enumerate() {
            t.copy_from_slice(&a[c * n1 + c0..][..w]);
        }
        let in_rest = match &*self.first {
            Exec::Stockham(st) => st.run_columns(tile, rest, w) == Loc::B,
            other => {
                // Any other node: one column at a time through a contiguous line.
                let (line, more) = rest.split_at_mut(r);
                for j in 0..w {
                    for (n1, z) in line.iter_mut().enumerate() {
                        *z = tile[w * n1 + j];
                    }
                    let res = match other.run(line, more, false) {
                        Loc::A => &line[..],
                        Loc::B => &more[..r],
                    };
                    for (k1, z) in res.iter().enumerate() {
                        tile[w * k1 + j] = *z;
                    }
                }
                false
            }
        };
        let res: &[C<T>] = if in_rest { &rest[..r * w] } else { tile };
        for (k1, row) in res.chunks_exact(w).enumerate() {
            let base = self.roots.get((k1 * c0) as u64);
            let steps = &self.step[k1 * BLOCK..][..w];
            let Some(dst) = out.run_mut(c * k1 + c0, w) else {
                return;
            };
            for ((d, z), s) in dst.iter_mut().zip(row).zip(steps) {
                let v = Complex::new(z.re.f64(), z.im.f64()) * (base * s);
                *d = Complex::new(T::of(v.re), T::of(v.im));
            }
        }
    }

    pub fn run(&self, a: &mut [C<T>], b: &mut [C<T>], par: bool) -> Loc {
        let (n, r, c) = (self.n, self.rows, self.cols);
        let (a, b) = (&mut a[..n], &mut b[..n]);
        let zero = C::new(T::zero(), T::zero());
        let blocks: Vec<usize> = (0..c).step_by(BLOCK).collect();
        // Step 1 reads `a` and writes the twiddled tiles into `b` in `a`'s layout.
        {
            let a_ro: &[C<T>] = a;
            // SAFETY: `b` is borrowed mutably for this block; the tasks write disjoint
            // column ranges of it (block `c0` writes columns `c0..c0 + w` of each row)
            // and nothing else reads or writes it meanwhile.
            let out = unsafe { Raw::new(b.as_mut_ptr(), b.len()) };
            let scratch = self.block_scratch();
            if par {
                blocks.par_iter().for_each_init(
                    || vec![zero; scratch],
                    |sc, &c0| self.column_block(a_ro, out, c0, BLOCK.min(c - c0), sc),
                );
            } else {
                let mut sc = vec![zero; scratch];
                for &c0 in &blocks {
                    self.column_block(a_ro, out, c0, BLOCK.min(c - c0), &mut sc);
                }
            }
        }
        // Step 2: the rows of `b` (length C), results into `a`.
        let row = |(src, dst): (&mut [C<T>], &mut [C<T>])| {
            if self.second.run(src, dst, false) == Loc::A {
                dst.copy_from_slice(src);
            }
        };
        if par {
            b.par_chunks_mut(c).zip(a.par_chunks_mut(c)).for_each(row);
        } else {
            b.chunks_mut(c).zip(a.chunks_mut(c)).for_each(row);
        }
        // Step 3: X[k1 + R·k2] sits at row k1, column k2 of `a`.
        transpose(a, b, r, c, par);
        Loc::B
    }
}
