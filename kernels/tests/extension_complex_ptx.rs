//! The complex geam and dgmm kernels (`rocm_kernels::extension`, Complex32 and
//! Complex64: pairs of f32/f64) executed by the PTX interpreter against host
//! expectations: geam over every (transpose, conjugate) pair and every α/β-zero case (an
//! operand not read holds NaN), dgmm from both sides with increments 1, 2, −1 and −3,
//! each over a batch of two with odd strides, m and n not multiples of the 32-wide tile.
//! Elements outside C's m×n hold a sentinel that must survive.
//!
//! Tolerance: none. The kernels document each complex product as
//! `re = fma(−ai, bi, ar·br)`, `im = fma(ai, br, ar·bi)` and geam's `β·b` as four fmas
//! added to `α·a` (real-part products first); the host does the same in the real type.

#[allow(dead_code)]
mod ptx_sim;

use ptx_sim::host::{bytes, values, El, Rng};
use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::extension::{self as ext, Extension, ExtensionParams};
use rocm_kernels::generator::Generator;

const M: usize = 45;
const N: usize = 37;
const BATCH: usize = 2;

fn kernel<T: El>(name: &str) -> ptx_sim::Kernel {
    let target: Target = "sm_90".parse().unwrap();
    let dtype = if T::DTYPE == DType::F32 {
        DType::C32
    } else {
        DType::C64
    };
    let p = ExtensionParams { dtype };
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

fn neg<T: El>(x: T) -> T {
    T::from_f64(-x.to_f64())
}

/// `a·b` as the kernels round it.
fn cmul<T: El>(a: [T; 2], b: [T; 2]) -> [T; 2] {
    let rr = T::from_f64(a[0].to_f64() * b[0].to_f64());
    let ri = T::from_f64(a[0].to_f64() * b[1].to_f64());
    [T::fma(neg(a[1]), b[1], rr), T::fma(a[1], b[0], ri)]
}

/// `acc + a·b` as the kernels round it.
fn cfma<T: El>(a: [T; 2], b: [T; 2], acc: [T; 2]) -> [T; 2] {
    let re = T::fma(a[0], b[0], acc[0]);
    let im = T::fma(a[0], b[1], acc[1]);
    [T::fma(neg(a[1]), b[1], re), T::fma(a[1], b[0], im)]
}

fn same<T: El>(g: T, w: T) -> bool {
    bits(g) == bits(w)
}

fn geam_case<T: El>(flags: u32) {
    let (ta, tb) = (flags & ext::TRANS_A != 0, flags & ext::TRANS_B != 0);
    let (ca, cb) = (flags & ext::CONJ_A != 0, flags & ext::CONJ_B != 0);
    let (ra, rb) = (flags & ext::READ_A != 0, flags & ext::READ_B != 0);
    let mut rng = Rng(u64::from(flags) * 7 + 3);
    let stored = |t: bool| if t { (N, M) } else { (M, N) };
    let ((ar, ac), (br, bc)) = (stored(ta), stored(tb));
    let (lda, ldb, ldc) = (ar + 3, br + 1, M + 2);
    let (sa, sb, sc) = (lda * ac + 5, ldb * bc + 1, ldc * N + 3);
    let fill = |rng: &mut Rng, len: usize, read: bool| -> Vec<T> {
        (0..2 * len)
            .map(|_| T::from_f64(if read { rng.next() } else { f64::NAN }))
            .collect()
    };
    let a = fill(&mut rng, sa * BATCH, ra);
    let b = fill(&mut rng, sb * BATCH, rb);
    let sentinel = T::from_f64(-7.25);
    let c = vec![sentinel; 2 * sc * BATCH];
    let z = T::from_f64(0.0);
    let alpha = if ra {
        [T::from_f64(0.75), T::from_f64(-0.5)]
    } else {
        [z, z]
    };
    let beta = if rb {
        [T::from_f64(-1.375), T::from_f64(0.25)]
    } else {
        [z, z]
    };
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
            bits(alpha[0]),
            bits(alpha[1]),
            bits(beta[0]),
            bits(beta[1]),
            flags.into(),
        ],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(pc));
    let op = |x: &[T],
              t: bool,
              conj: bool,
              read: bool,
              ld: usize,
              s: usize,
              p: usize,
              i: usize,
              j: usize|
     -> [T; 2] {
        if !read {
            return [z, z];
        }
        let e = 2 * if t {
            p * s + j + i * ld
        } else {
            p * s + i + j * ld
        };
        [x[e], if conj { neg(x[e + 1]) } else { x[e + 1] }]
    };
    for p in 0..BATCH {
        for e in 0..sc {
            let (i, j) = (e % ldc, e / ldc);
            let want = if i < M && j < N {
                let av = op(&a, ta, ca, ra, lda, sa, p, i, j);
                let bv = op(&b, tb, cb, rb, ldb, sb, p, i, j);
                cfma(beta, bv, cmul(alpha, av))
            } else {
                [sentinel, sentinel]
            };
            let q = 2 * (p * sc + e);
            assert!(
                same(got[q], want[0]) && same(got[q + 1], want[1]),
                "geam flags {flags:#x} problem {p} ({i},{j}): {:?} != {want:?}",
                &got[q..q + 2]
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
    let a: Vec<T> = (0..2 * sa * BATCH)
        .map(|_| T::from_f64(rng.next()))
        .collect();
    let x: Vec<T> = (0..2 * sx * BATCH)
        .map(|_| T::from_f64(rng.next()))
        .collect();
    let sentinel = T::from_f64(-7.25);
    let c = vec![sentinel; 2 * sc * BATCH];
    let mut mem = ptx_sim::Memory::default();
    let (pa, px, pc) = (
        mem.alloc(bytes(&a)),
        mem.alloc(bytes(&x)),
        mem.alloc(bytes(&c)),
    );
    // A negative increment: the host passes x's far end.
    let es = 2 * std::mem::size_of::<T>();
    let start = if incx < 0 { (span - 1) * es } else { 0 };
    let cfg = ext::config(M, N, BATCH);
    kernel::<T>(ext::DGMM).run(
        cfg.grid,
        cfg.block[0],
        &[
            pc,
            pa,
            px + start as u64,
            M as u64,
            N as u64,
            lda as u64,
            ldc as u64,
            incx as i32 as u32 as u64,
            sa as u64,
            sx as u64,
            sc as u64,
            if left { ext::LEFT } else { 0 }.into(),
        ],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(pc));
    for p in 0..BATCH {
        for e in 0..sc {
            let (i, j) = (e % ldc, e / ldc);
            let want = if i < M && j < N {
                let k = if left { i } else { j };
                let xi = if incx < 0 {
                    (len - 1 - k) * incx.unsigned_abs()
                } else {
                    k * incx as usize
                };
                let (ea, ex) = (2 * (p * sa + i + j * lda), 2 * (p * sx + xi));
                cmul([a[ea], a[ea + 1]], [x[ex], x[ex + 1]])
            } else {
                [sentinel, sentinel]
            };
            let q = 2 * (p * sc + e);
            assert!(
                same(got[q], want[0]) && same(got[q + 1], want[1]),
                "dgmm left={left} incx={incx} problem {p} ({i},{j})"
            );
        }
    }
}

fn all<T: El>() {
    for ta in [0, ext::TRANS_A, ext::TRANS_A | ext::CONJ_A] {
        for tb in [0, ext::TRANS_B, ext::TRANS_B | ext::CONJ_B] {
            for reads in [ext::READ_A | ext::READ_B, ext::READ_A, ext::READ_B, 0] {
                geam_case::<T>(ta | tb | reads);
            }
        }
    }
    for left in [true, false] {
        for incx in [1, 2, -1, -3] {
            dgmm_case::<T>(left, incx);
        }
    }
}

#[test]
fn complex_geam_and_dgmm_c32_in_the_ptx_interpreter() {
    all::<f32>();
}

#[test]
fn complex_geam_and_dgmm_c64_in_the_ptx_interpreter() {
    all::<f64>();
}
