//! The geam and dgmm kernels (`rocm_kernels::extension`) executed by the PTX interpreter
//! against host expectations, f32 and f64: geam over every transpose pair and every
//! α/β-zero case (an operand not read holds NaN), dgmm from both sides with increments
//! 1, 2, −1 and −3, each over a batch of two with odd strides, m and n not multiples of
//! the 32-wide tile and leading dimensions above the rows. Elements outside C's m×n
//! hold a sentinel that must survive.
//!
//! Tolerance: none. Each element of C is computed as the kernel documents, one product
//! rounded (α·a, or a·x) and, for geam, one fused multiply-add `fma(β, b, α·a)`; the
//! host does the same operations in the element type, so results must be equal.

#[allow(dead_code)]
mod ptx_sim;

use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::extension::{self as ext, Extension, ExtensionParams};
use rocm_kernels::generator::Generator;

const M: usize = 45;
const N: usize = 70;
const BATCH: usize = 2;

use ptx_sim::host::{bytes, values, El, Rng};

fn kernel<T: El>(name: &str) -> ptx_sim::Kernel {
    let target: Target = "sm_90".parse().unwrap();
    let p = ExtensionParams { dtype: T::DTYPE };
    let ModuleImage::Ptx(text) = Extension::generate(&p, &target).unwrap().image else {
        panic!("not PTX")
    };
    ptx_sim::host::entry(&text, name)
}

fn bits<T: El>(v: T) -> u64 {
    match T::DTYPE {
        DType::F32 => (v.to_f64() as f32).to_bits() as u64,
        _ => v.to_f64().to_bits(),
    }
}

fn geam_case<T: El>(flags: u32) {
    let (ta, tb) = (flags & ext::TRANS_A != 0, flags & ext::TRANS_B != 0);
    let (ra, rb) = (flags & ext::READ_A != 0, flags & ext::READ_B != 0);
    let mut rng = Rng(u64::from(flags) * 7 + 3);
    // Stored shapes: op(X) is M×N, X is N×M when transposed.
    let stored = |t: bool| if t { (N, M) } else { (M, N) };
    let ((ar, ac), (br, bc)) = (stored(ta), stored(tb));
    let (lda, ldb, ldc) = (ar + 3, br + 1, M + 2);
    let (sa, sb, sc) = (lda * ac + 5, ldb * bc + 1, ldc * N + 3);
    let fill = |rng: &mut Rng, len: usize, read: bool| -> Vec<T> {
        (0..len)
            .map(|_| T::from_f64(if read { rng.next() } else { f64::NAN }))
            .collect()
    };
    let a = fill(&mut rng, sa * BATCH, ra);
    let b = fill(&mut rng, sb * BATCH, rb);
    let sentinel = T::from_f64(-7.25);
    let c = vec![sentinel; sc * BATCH];
    let alpha = T::from_f64(if ra { 0.75 } else { 0.0 });
    let beta = T::from_f64(if rb { -1.375 } else { 0.0 });
    let mut mem = ptx_sim::Memory::default();
    let (pa, pb, pc) = (
        mem.alloc(bytes(&a)),
        mem.alloc(bytes(&b)),
        mem.alloc(bytes(&c)),
    );
    let cfg = ext::config(M, N, BATCH);
    kernel::<T>(ext::GEAM).run(
        cfg.grid,
        cfg.block[0],
        &[
            pc,
            pa,
            pb,
            M as u64,
            N as u64,
            lda as u64,
            ldb as u64,
            ldc as u64,
            sa as u64,
            sb as u64,
            sc as u64,
            bits(alpha),
            bits(beta),
            flags.into(),
        ],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(pc));
    let op = |x: &[T], t: bool, ld: usize, z: usize, s: usize, i: usize, j: usize| -> T {
        if t {
            x[z * s + j + i * ld]
        } else {
            x[z * s + i + j * ld]
        }
    };
    let zero = T::from_f64(0.0);
    for z in 0..BATCH {
        for e in 0..sc {
            let (i, j) = (e % ldc, e / ldc);
            let g = got[z * sc + e];
            let want = if i < M && j < N {
                let av = if ra {
                    op(&a, ta, lda, z, sa, i, j)
                } else {
                    zero
                };
                let bv = if rb {
                    op(&b, tb, ldb, z, sb, i, j)
                } else {
                    zero
                };
                let scaled = T::from_f64(alpha.to_f64() * av.to_f64());
                T::fma(beta, bv, scaled)
            } else {
                sentinel
            };
            assert!(
                g == want,
                "geam flags {flags} problem {z} ({i},{j}): {g:?} != {want:?}"
            );
        }
    }
}

fn dgmm_case<T: El>(left: bool, incx: isize) {
    let mut rng = Rng(incx.unsigned_abs() as u64 * 13 + left as u64);
    let (lda, ldc) = (M + 1, M + 4);
    let len = if left { M } else { N };
    let span = (len - 1) * incx.unsigned_abs() + 1;
    let (sa, sx, sc) = (lda * N + 1, span + 2, ldc * N + 3);
    let a: Vec<T> = (0..sa * BATCH).map(|_| T::from_f64(rng.next())).collect();
    let x: Vec<T> = (0..sx * BATCH).map(|_| T::from_f64(rng.next())).collect();
    let sentinel = T::from_f64(-7.25);
    let c = vec![sentinel; sc * BATCH];
    let mut mem = ptx_sim::Memory::default();
    let (pa, px, pc) = (
        mem.alloc(bytes(&a)),
        mem.alloc(bytes(&x)),
        mem.alloc(bytes(&c)),
    );
    // A negative increment walks x from its far end: the kernel gets that end.
    let es = std::mem::size_of::<T>() as u64;
    let x_start = if incx < 0 {
        px + (span as u64 - 1) * es
    } else {
        px
    };
    let cfg = ext::config(M, N, BATCH);
    kernel::<T>(ext::DGMM).run(
        cfg.grid,
        cfg.block[0],
        &[
            pc,
            pa,
            x_start,
            M as u64,
            N as u64,
            lda as u64,
            ldc as u64,
            incx as i32 as u32 as u64,
            sa as u64,
            sx as u64,
            sc as u64,
            if left { ext::LEFT.into() } else { 0 },
        ],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(pc));
    for z in 0..BATCH {
        for e in 0..sc {
            let (i, j) = (e % ldc, e / ldc);
            let g = got[z * sc + e];
            let want = if i < M && j < N {
                let k = if left { i } else { j };
                let at = if incx >= 0 {
                    k * incx as usize
                } else {
                    (len - 1 - k) * incx.unsigned_abs()
                };
                T::from_f64(a[z * sa + i + j * lda].to_f64() * x[z * sx + at].to_f64())
            } else {
                sentinel
            };
            assert!(
                g == want,
                "dgmm left {left} incx {incx} problem {z} ({i},{j}): {g:?} != {want:?}"
            );
        }
    }
}

#[test]
fn geam_every_transpose_and_zero_coefficient() {
    for flags in 0..16 {
        geam_case::<f32>(flags);
        geam_case::<f64>(flags);
    }
}

#[test]
fn dgmm_both_sides_and_increments() {
    for left in [false, true] {
        for incx in [1, 2, -1, -3] {
            dgmm_case::<f32>(left, incx);
            dgmm_case::<f64>(left, incx);
        }
    }
}
