//! The complex Level 3 triangle kernels (`rocm_kernels::level3`, Complex32 and
//! Complex64: pairs of f32/f64) executed by the PTX interpreter against host
//! expectations, both triangles and every flag including HERM, on a matrix of three
//! diagonal blocks whose last is partial (n = 70, nb = 32) with a leading dimension
//! above n. Elements a kernel must not write hold a sentinel compared afterwards.
//!
//! - expand: exact (copied, conjugated, imaginary part zeroed, zero or one).
//! - update: C ← W + β·C as four fmas (real-part products first), reproduced on the
//!   host in the real type: exact; with β = 0 C holds NaN that must not be read; HERM
//!   zeroes the diagonal's imaginary part.
//! - invert: X·D = I within 2·4·(nb + 2)·ε·Σ|x||d| per element (forward substitution is
//!   backward stable row by row; the complex division adds a few roundings).

#[allow(dead_code)]
mod ptx_sim;

use ptx_sim::host::{bytes, values, El, Rng};
use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::generator::Generator;
use rocm_kernels::level3::{self as l3, Level3, Level3Params};

const N: usize = 70;
const NB: usize = 32;
const LD: usize = 73;

fn kernel<T: El>(name: &str) -> ptx_sim::Kernel {
    let dtype = if T::DTYPE == DType::F32 {
        DType::C32
    } else {
        DType::C64
    };
    let p = Level3Params {
        dtype,
        invert_block: NB as u32,
    };
    let target: Target = "sm_90".parse().unwrap();
    let ModuleImage::Ptx(text) = Level3::generate(&p, &target).unwrap().image else {
        panic!("not PTX")
    };
    ptx_sim::host::entry(&text, name)
}

fn stored(upper: bool, i: usize, j: usize) -> bool {
    if upper {
        i <= j
    } else {
        i >= j
    }
}

fn order(z: usize) -> usize {
    NB.min(N - z * NB)
}

fn blocks() -> usize {
    N.div_ceil(NB)
}

fn bits<T: El>(v: T) -> u64 {
    match T::DTYPE {
        DType::F32 => (v.to_f64() as f32).to_bits() as u64,
        _ => v.to_f64().to_bits(),
    }
}

fn same<T: El>(g: T, w: T) -> bool {
    bits(g) == bits(w) || (g.to_f64().is_nan() && w.to_f64().is_nan())
}

fn expand_case<T: El>(flags: u32) {
    let (upper, mirror, unit, herm) = (
        flags & l3::UPPER != 0,
        flags & l3::MIRROR != 0,
        flags & l3::UNIT != 0,
        flags & l3::HERM != 0,
    );
    let mut rng = Rng(u64::from(flags) + 11);
    let a: Vec<T> = (0..2 * LD * N).map(|_| T::from_f64(rng.next())).collect();
    let sentinel = T::from_f64(-7.25);
    let out = vec![sentinel; 2 * blocks() * NB * NB];
    let mut mem = ptx_sim::Memory::default();
    let pa = mem.alloc(bytes(&a));
    let po = mem.alloc(bytes(&out));
    let cfg = l3::tile_config(N, NB);
    let params = [
        pa,
        N as u64,
        NB as u64,
        LD as u64,
        NB as u64,
        (NB * NB) as u64,
    ];
    let mut all = vec![po];
    all.extend(params);
    all.push(flags.into());
    kernel::<T>(l3::EXPAND).run(cfg.grid, cfg.block[0], &all, &mut mem);
    let got: Vec<T> = values(mem.bytes(po));
    let zero = T::from_f64(0.0);
    for z in 0..blocks() {
        let (f, bs) = (z * NB, order(z));
        for j in 0..NB {
            for i in 0..NB {
                let q = 2 * (z * NB * NB + i + j * NB);
                let at = |r: usize, c: usize| 2 * (f + r + (f + c) * LD);
                let want = if i >= bs || j >= bs {
                    [sentinel, sentinel]
                } else if i == j && unit {
                    [T::from_f64(1.0), zero]
                } else if stored(upper, i, j) {
                    let p = at(i, j);
                    [a[p], if herm && i == j { zero } else { a[p + 1] }]
                } else if mirror {
                    let p = at(j, i);
                    [
                        a[p],
                        if herm {
                            T::from_f64(-a[p + 1].to_f64())
                        } else {
                            a[p + 1]
                        },
                    ]
                } else {
                    [zero, zero]
                };
                for c in 0..2 {
                    assert!(
                        same(got[q + c], want[c]),
                        "expand flags {flags:#x} block {z} ({i},{j}) part {c}: {:?} vs {:?}",
                        got[q + c],
                        want[c]
                    );
                }
            }
        }
    }
}

fn update_case<T: El>(flags: u32) {
    let (upper, read_c, unit, herm) = (
        flags & l3::UPPER != 0,
        flags & l3::READ_C != 0,
        flags & l3::UNIT != 0,
        flags & l3::HERM != 0,
    );
    let mut rng = Rng(u64::from(flags) + 23);
    let c: Vec<T> = (0..2 * LD * N)
        .map(|_| T::from_f64(if read_c { rng.next() } else { f64::NAN }))
        .collect();
    let w: Vec<T> = (0..2 * blocks() * NB * NB)
        .map(|_| T::from_f64(rng.next()))
        .collect();
    let beta = if read_c {
        [T::from_f64(0.625), T::from_f64(-0.375)]
    } else {
        [T::from_f64(0.0); 2]
    };
    let mut mem = ptx_sim::Memory::default();
    let pc = mem.alloc(bytes(&c));
    let pw = mem.alloc(bytes(&w));
    let cfg = l3::tile_config(N, NB);
    kernel::<T>(l3::UPDATE).run(
        cfg.grid,
        cfg.block[0],
        &[
            pc,
            pw,
            N as u64,
            NB as u64,
            LD as u64,
            NB as u64,
            (NB * NB) as u64,
            bits(beta[0]),
            bits(beta[1]),
            flags.into(),
        ],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(pc));
    let neg = |x: T| T::from_f64(-x.to_f64());
    for j in 0..N {
        for i in 0..LD {
            let q = 2 * (i + j * LD);
            let (zi, zj) = (i / NB, j / NB);
            let in_block = i < N && zi == zj && stored(upper, i % NB, j % NB) && !(unit && i == j);
            let want = if in_block {
                let p = 2 * (zi * NB * NB + i % NB + (j % NB) * NB);
                let mut v = [w[p], w[p + 1]];
                if read_c {
                    let (cr, ci) = (c[q], c[q + 1]);
                    v[0] = T::fma(beta[0], cr, v[0]);
                    v[1] = T::fma(beta[0], ci, v[1]);
                    v[0] = T::fma(neg(beta[1]), ci, v[0]);
                    v[1] = T::fma(beta[1], cr, v[1]);
                }
                if herm && i == j {
                    v[1] = T::from_f64(0.0);
                }
                v
            } else {
                [c[q], c[q + 1]]
            };
            for k in 0..2 {
                assert!(
                    same(got[q + k], want[k]),
                    "update flags {flags:#x} ({i},{j}) part {k}: {:?} vs {:?}",
                    got[q + k],
                    want[k]
                );
            }
        }
    }
}

fn invert_case<T: El>(flags: u32) {
    let (upper, unit) = (flags & l3::UPPER != 0, flags & l3::UNIT != 0);
    let mut rng = Rng(u64::from(flags) + 37);
    // Diagonally dominant in the stored triangle; the other triangle and (with `unit`)
    // the diagonal hold NaN, which must not be read.
    let mut a = vec![T::from_f64(f64::NAN); 2 * LD * N];
    for j in 0..N {
        for i in 0..N {
            let p = 2 * (i + j * LD);
            if i == j && !unit {
                a[p] = T::from_f64(2.0 + rng.next().abs());
                a[p + 1] = T::from_f64(rng.next());
            } else if i != j && stored(upper, i, j) {
                a[p] = T::from_f64(rng.next() / NB as f64);
                a[p + 1] = T::from_f64(rng.next() / NB as f64);
            }
        }
    }
    let out = vec![T::from_f64(-7.25); 2 * blocks() * NB * NB];
    let mut mem = ptx_sim::Memory::default();
    let pa = mem.alloc(bytes(&a));
    let po = mem.alloc(bytes(&out));
    let cfg = l3::invert_config(N, NB);
    kernel::<T>(l3::INVERT).run(
        cfg.grid,
        cfg.block[0],
        &[po, pa, N as u64, LD as u64, (NB * NB) as u64, flags.into()],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(po));
    for z in 0..blocks() {
        let (f, bs) = (z * NB, order(z));
        let d = |i: usize, j: usize| -> (f64, f64) {
            if i == j && unit {
                (1.0, 0.0)
            } else if stored(upper, i, j) {
                let p = 2 * (f + i + (f + j) * LD);
                (a[p].to_f64(), a[p + 1].to_f64())
            } else {
                (0.0, 0.0)
            }
        };
        let x = |i: usize, j: usize| {
            let p = 2 * (z * NB * NB + i + j * NB);
            (got[p].to_f64(), got[p + 1].to_f64())
        };
        for j in 0..NB {
            for i in 0..NB {
                if i >= bs || j >= bs {
                    let want = (if i == j { 1.0 } else { 0.0 }, 0.0);
                    assert_eq!(x(i, j), want, "invert flags {flags:#x} padding ({i},{j})");
                    continue;
                }
                if !stored(upper, i, j) {
                    assert_eq!(x(i, j), (0.0, 0.0), "invert flags {flags:#x} ({i},{j})");
                }
                let (mut re, mut im, mut mag) = (0.0, 0.0, 0.0);
                for p in 0..bs {
                    let ((xr, xi), (dr, di)) = (x(i, p), d(p, j));
                    re += xr * dr - xi * di;
                    im += xr * di + xi * dr;
                    mag += xr.hypot(xi) * dr.hypot(di);
                }
                let want = if i == j { 1.0 } else { 0.0 };
                let bound = 8.0 * (bs as f64 + 2.0) * T::EPS * mag.max(1.0);
                let err = (re - want).hypot(im);
                assert!(
                    err <= bound,
                    "invert flags {flags:#x} block {z} ({i},{j}): |X·D − I| = {err:e} > {bound:e}"
                );
            }
        }
    }
}

fn all<T: El>() {
    for upper in [0, l3::UPPER] {
        for extra in [0, l3::MIRROR, l3::UNIT, l3::MIRROR | l3::HERM, l3::HERM] {
            expand_case::<T>(upper | extra);
        }
        for read in [0, l3::READ_C] {
            for extra in [0, l3::UNIT, l3::HERM] {
                update_case::<T>(upper | read | extra);
            }
        }
        for unit in [0, l3::UNIT] {
            invert_case::<T>(upper | unit);
        }
    }
}

#[test]
fn complex_triangle_kernels_c32_in_the_ptx_interpreter() {
    all::<f32>();
}

#[test]
fn complex_triangle_kernels_c64_in_the_ptx_interpreter() {
    all::<f64>();
}
