//! The GPU GEMM harness shared by `gemm_gpu`, `gemm_flip_gpu` and `gemm_complex_gpu`:
//! one problem (or a strided batch, or arrays of matrices) on a device against
//! `rocm_blas::reference::gemm`, within `terms`·u·(|α|·Σ|a||b| + |β||c|) per element
//! (`assert_close`, which multiplies by 4 for complex), with C's rows between m and ldc
//! (and the slack between problems) checked untouched. The caller derives `terms` from
//! the arithmetic of what it tests.

use super::*;
use rocm_blas::{reference, Blas, MathMode, Scalar, Transpose};
use rocm_core::Device;

fn nan<R: num_traits::Float>() -> R {
    R::nan()
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coef {
    Zero,
    One,
    /// Random real part, zero imaginary part (for real types the same as `Random`).
    Real,
    /// Random (complex types: both parts).
    Random,
}

pub fn coef<T: Scalar>(c: Coef, r: &mut Rng64) -> T {
    match c {
        Coef::Zero => T::zero(),
        Coef::One => T::one(),
        Coef::Real => T::from_parts(random::<T>(r).re(), num_traits::Zero::zero()),
        Coef::Random => random(r),
    }
}

/// How the problems are passed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Call {
    /// `gemm` (batch 1) or `gemm_strided_batched`.
    Strided,
    /// `gemm_batched`, one buffer per matrix.
    Arrays,
}

#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub ta: Transpose,
    pub tb: Transpose,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Extra rows of each leading dimension.
    pub pads: (usize, usize, usize),
    pub alpha: Coef,
    pub beta: Coef,
    pub batch: usize,
    /// Elements each operand starts past its buffer's start (misaligns vectors).
    pub offset: usize,
    pub call: Call,
    /// f32 through tf32 tensor cores (`MathMode::ReducedPrecisionF32`).
    pub tf32: bool,
}

/// Checks one case on `dev` against the reference within `terms`·u (module docs).
pub fn check<T: Scalar>(dev: &Device, c: Case, seed: u64, terms: f64) {
    let mut blas = Blas::new(dev);
    if c.tf32 {
        blas.set_math_mode(MathMode::ReducedPrecisionF32);
    }
    let mut r = rng(seed);
    let (m, n, k) = (c.m, c.n, c.k);
    let (ar, ac) = c.ta.stored_dims(m, k);
    let (br, bc) = c.tb.stored_dims(k, n);
    let (lda, ldb, ldc) = (
        ar.max(1) + c.pads.0,
        br.max(1) + c.pads.1,
        m.max(1) + c.pads.2,
    );
    // Strides with a little slack between problems (and odd, so batch bases misalign).
    let (sa, sb, sc) = (lda * ac + 3, ldb * bc + 1, ldc * n + 2);
    let alpha: T = coef(c.alpha, &mut r);
    let beta: T = coef(c.beta, &mut r);
    let off = c.offset;
    let a: Vec<T> = random_vec(&mut r, off + sa * c.batch);
    let b: Vec<T> = random_vec(&mut r, off + sb * c.batch);
    let mut c0: Vec<T> = random_vec(&mut r, off + sc * c.batch);
    if c.beta == Coef::Zero {
        // β = 0 must not read C: NaN there must not reach the result.
        c0.iter_mut().for_each(|x| *x = T::from_parts(nan(), nan()));
    }
    let what = format!("{}gemm {c:?} alpha {alpha:?} beta {beta:?}", T::PREFIX);
    let got: Vec<T> = match c.call {
        Call::Strided => {
            let (ad, bd) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
            let mut cd = dev.upload(&c0).unwrap();
            let (av, bv) = (ad.slice(off..).unwrap(), bd.slice(off..).unwrap());
            let mut cv = cd.slice_mut(off..).unwrap();
            let res = if c.batch == 1 {
                blas.gemm(
                    c.ta, c.tb, m, n, k, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc,
                )
            } else {
                blas.gemm_strided_batched(
                    c.ta, c.tb, m, n, k, alpha, &av, lda, sa, &bv, ldb, sb, beta, &mut cv, ldc, sc,
                    c.batch,
                )
            };
            res.unwrap_or_else(|e| panic!("{what}: {e}"));
            cd.to_vec().unwrap()
        }
        Call::Arrays => {
            let per = |v: &[T], s: usize, q: usize| v[off + q * s..off + (q + 1) * s].to_vec();
            let ads: Vec<_> = (0..c.batch)
                .map(|q| dev.upload(&per(&a, sa, q)).unwrap())
                .collect();
            let bds: Vec<_> = (0..c.batch)
                .map(|q| dev.upload(&per(&b, sb, q)).unwrap())
                .collect();
            let mut cds: Vec<_> = (0..c.batch)
                .map(|q| dev.upload(&per(&c0, sc, q)).unwrap())
                .collect();
            let av: Vec<_> = ads.iter().map(|d| d.as_slice()).collect();
            let bv: Vec<_> = bds.iter().map(|d| d.as_slice()).collect();
            let mut cv: Vec<_> = cds.iter_mut().map(|d| d.as_slice_mut()).collect();
            blas.gemm_batched(
                c.ta, c.tb, m, n, k, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let mut out = c0[..off].to_vec();
            for d in &cds {
                out.extend(d.to_vec().unwrap());
            }
            out
        }
    };
    for q in 0..c.batch {
        let base = |s: usize| off + q * s;
        let (want, mag) = reference::gemm(
            c.ta,
            c.tb,
            m,
            n,
            k,
            alpha,
            &a[base(sa)..],
            lda,
            &b[base(sb)..],
            ldb,
            beta,
            &c0[base(sc)..],
            ldc,
        );
        for j in 0..n {
            for i in 0..m {
                assert_close(
                    got[base(sc) + i + j * ldc],
                    want[i + j * m],
                    mag[i + j * m],
                    terms,
                    &format!("{what} batch {q} ({i},{j})"),
                );
            }
            for i in m..ldc.min(sc - j * ldc) {
                let (g, o) = (got[base(sc) + i + j * ldc], c0[base(sc) + i + j * ldc]);
                assert!(
                    g == o || (g.has_nan() && o.has_nan()),
                    "{what}: wrote outside C at batch {q} ({i},{j})"
                );
            }
        }
    }
}
