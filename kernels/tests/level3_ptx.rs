//! The Level 3 triangle kernels (`rocm_kernels::level3`) executed by the PTX interpreter
//! against host expectations, for f32 and f64, both triangles and every flag, on a
//! matrix of three diagonal blocks whose last one is partial (n = 70, nb = 32) with a
//! leading dimension above n. Elements a kernel must not write hold a sentinel that is
//! compared afterwards.
//!
//! - expand: exact (elements are copied, zeroed or set to one).
//! - update: C ← W + β·C is one fused multiply-add per element: exact against
//!   `mul_add` in the element type; with β = 0 C holds NaN that must not be read.
//! - invert: inv(D)·D = I within n·u·‖|inv(D)|·|D|‖ per element (forward substitution
//!   is backward stable row by row); the padding beyond a partial block is the identity.

#[allow(dead_code)]
mod ptx_sim;

use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::generator::Generator;
use rocm_kernels::level3::{self as l3, Level3, Level3Params};

const N: usize = 70;
const NB: usize = 32;
const LD: usize = 73;

use ptx_sim::host::{bytes, values, El, Rng};

/// One kernel of the module, parsed alone (the interpreter reads the first entry).
fn kernel<T: El>(name: &str) -> ptx_sim::Kernel {
    let p = Level3Params {
        dtype: T::DTYPE,
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

/// Block z's order.
fn order(z: usize) -> usize {
    NB.min(N - z * NB)
}

fn blocks() -> usize {
    N.div_ceil(NB)
}

fn expand_case<T: El>(flags: u32) {
    let (upper, mirror, unit) = (
        flags & l3::UPPER != 0,
        flags & l3::MIRROR != 0,
        flags & l3::UNIT != 0,
    );
    let mut rng = Rng(u64::from(flags) + 11);
    let a: Vec<T> = (0..LD * N).map(|_| T::from_f64(rng.next())).collect();
    let sentinel = T::from_f64(-7.25);
    let out = vec![sentinel; blocks() * NB * NB];
    let mut mem = ptx_sim::Memory::default();
    let pa = mem.alloc(bytes(&a));
    let po = mem.alloc(bytes(&out));
    let cfg = l3::tile_config(N, NB);
    kernel::<T>(l3::EXPAND).run(
        cfg.grid,
        cfg.block[0],
        &[
            po,
            pa,
            N as u64,
            NB as u64,
            LD as u64,
            NB as u64,
            (NB * NB) as u64,
            flags.into(),
        ],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(po));
    for z in 0..blocks() {
        let (f, bs) = (z * NB, order(z));
        for j in 0..NB {
            for i in 0..NB {
                let g = got[z * NB * NB + i + j * NB];
                let want = if i >= bs || j >= bs {
                    sentinel
                } else if i == j && unit {
                    T::from_f64(1.0)
                } else if stored(upper, i, j) {
                    a[f + i + (f + j) * LD]
                } else if mirror {
                    a[f + j + (f + i) * LD]
                } else {
                    T::from_f64(0.0)
                };
                assert_eq!(g, want, "expand flags {flags} block {z} ({i},{j})");
            }
        }
    }
}

fn update_case<T: El>(flags: u32) {
    let upper = flags & l3::UPPER != 0;
    let read_c = flags & l3::READ_C != 0;
    let unit = flags & l3::UNIT != 0;
    let mut rng = Rng(u64::from(flags) + 23);
    let fill = |rng: &mut Rng| -> T {
        if read_c {
            T::from_f64(rng.next())
        } else {
            T::from_f64(f64::NAN)
        }
    };
    let c: Vec<T> = (0..LD * N).map(|_| fill(&mut rng)).collect();
    let w: Vec<T> = (0..blocks() * NB * NB)
        .map(|_| T::from_f64(rng.next()))
        .collect();
    let beta = T::from_f64(if read_c { 0.625 } else { 0.0 });
    let mut mem = ptx_sim::Memory::default();
    let pc = mem.alloc(bytes(&c));
    let pw = mem.alloc(bytes(&w));
    let beta_bits = match T::DTYPE {
        DType::F32 => (beta.to_f64() as f32).to_bits() as u64,
        _ => beta.to_f64().to_bits(),
    };
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
            beta_bits,
            flags.into(),
        ],
        &mut mem,
    );
    let got: Vec<T> = values(mem.bytes(pc));
    for j in 0..N {
        for i in 0..LD {
            let g = got[i + j * LD];
            let (zi, zj) = (i / NB, j / NB);
            let in_block = i < N && zi == zj && stored(upper, i % NB, j % NB) && !(unit && i == j);
            let want = if in_block {
                let wv = w[zi * NB * NB + i % NB + (j % NB) * NB];
                if read_c {
                    T::fma(beta, c[i + j * LD], wv)
                } else {
                    wv
                }
            } else {
                c[i + j * LD]
            };
            let same = g == want || (g.to_f64().is_nan() && want.to_f64().is_nan());
            assert!(
                same,
                "update flags {flags} ({i},{j}): got {g:?}, want {want:?}"
            );
        }
    }
}

fn invert_case<T: El>(flags: u32) {
    let (upper, unit) = (flags & l3::UPPER != 0, flags & l3::UNIT != 0);
    let mut rng = Rng(u64::from(flags) + 37);
    // Diagonally dominant in the stored triangle; the other triangle and (with `unit`)
    // the diagonal hold NaN, which must not be read.
    let mut a = vec![T::from_f64(f64::NAN); LD * N];
    for j in 0..N {
        for i in 0..N {
            if i == j && !unit {
                a[i + j * LD] = T::from_f64(2.0 + rng.next().abs());
            } else if i != j && stored(upper, i, j) {
                a[i + j * LD] = T::from_f64(rng.next() / NB as f64);
            }
        }
    }
    let out = vec![T::from_f64(-7.25); blocks() * NB * NB];
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
        let d = |i: usize, j: usize| -> f64 {
            if i == j && unit {
                1.0
            } else if stored(upper, i, j) {
                a[f + i + (f + j) * LD].to_f64()
            } else {
                0.0
            }
        };
        let x = |i: usize, j: usize| got[z * NB * NB + i + j * NB].to_f64();
        for j in 0..NB {
            for i in 0..NB {
                if i >= bs || j >= bs {
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert_eq!(x(i, j), want, "invert flags {flags} padding ({i},{j})");
                    continue;
                }
                if !stored(upper, i, j) {
                    assert_eq!(
                        x(i, j),
                        0.0,
                        "invert flags {flags} other triangle ({i},{j})"
                    );
                }
                let (mut s, mut mag) = (0.0, 0.0);
                for p in 0..bs {
                    s += x(i, p) * d(p, j);
                    mag += (x(i, p) * d(p, j)).abs();
                }
                let want = if i == j { 1.0 } else { 0.0 };
                let bound = 2.0 * (bs as f64 + 2.0) * T::EPS * mag.max(1.0);
                assert!(
                    (s - want).abs() <= bound,
                    "invert flags {flags} block {z} ({i},{j}): (X·D) = {s}, bound {bound:e}"
                );
            }
        }
    }
}

fn all<T: El>() {
    for upper in [0, l3::UPPER] {
        for extra in [0, l3::MIRROR, l3::UNIT] {
            expand_case::<T>(upper | extra);
        }
        for read in [0, l3::READ_C] {
            for unit in [0, l3::UNIT] {
                update_case::<T>(upper | read | unit);
            }
        }
        for unit in [0, l3::UNIT] {
            invert_case::<T>(upper | unit);
        }
    }
}

#[test]
fn triangle_kernels_f32_in_the_ptx_interpreter() {
    all::<f32>();
}

#[test]
fn triangle_kernels_f64_in_the_ptx_interpreter() {
    all::<f64>();
}
