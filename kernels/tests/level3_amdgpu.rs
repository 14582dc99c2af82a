//! The AMDGPU Level 3 triangle kernels (`rocm_kernels::amdgpu::level3`): LLVM's build of
//! their text equals ours (every element type and inversion block, every target family),
//! and the emulated devices run them against host expectations for f32, f64, Complex32
//! and Complex64, both triangles and every flag, on a matrix of three diagonal blocks
//! whose last is partial (n = 70, nb = 32) with a leading dimension above n. Elements a
//! kernel must not write hold a sentinel compared afterwards.
//!
//! - expand: exact (elements are copied, conjugated, zeroed or set to one).
//! - update: C ← W + β·C is one fma per element (complex: four, real-part products
//!   first), reproduced on the host in the element's real type: exact. With β = 0, C
//!   holds NaN that must not be read.
//! - invert: inv(D)·D = I within (nb + 4)·u·(|inv(D)|·|D|) per element (forward
//!   substitution is backward stable row by row; the division is within an ulp), ×4
//!   for complex arithmetic; the padding beyond a partial block is the identity.

mod common;

use common::host::{random, scalar, Buf, Rng, Ty, DTYPES, TARGETS};
use common::{agree, emu, tools_present};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Device, KernelArgs, ModuleImage};
use rocm_kernels::amdgpu::level3::generate;
use rocm_kernels::level3::{self as l3, Level3Params};

const N: usize = 70;
const NB: usize = 32;
const LD: usize = 73;

fn run(
    dev: &Device,
    t: IsaTarget,
    ty: Ty,
    name: &str,
    cfg: &rocm_core::LaunchConfig,
    args: &KernelArgs,
) {
    let ks = generate(
        t,
        &Level3Params {
            dtype: ty.dtype,
            invert_block: NB as u32,
        },
    )
    .unwrap();
    let obj = rocm_kernels::amdgpu::code_object(&ks)
        .unwrap()
        .to_elf()
        .unwrap();
    let m = dev.load_module(&ModuleImage::CodeObject(obj)).unwrap();
    let f = m.kernel(name).unwrap();
    // SAFETY: the arguments follow the documented kernel contract and the emulated
    // device checks every access against the buffers.
    unsafe { f.launch(dev.default_stream(), cfg, args).unwrap() };
    dev.synchronize().unwrap();
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

fn flag_sets(ty: Ty, bits: &[u32]) -> Vec<u32> {
    let mut all = vec![0u32];
    let mut bits = bits.to_vec();
    if ty.comps == 2 {
        bits.push(l3::HERM);
    }
    for b in bits {
        let more: Vec<u32> = all.iter().map(|f| f | b).collect();
        all.extend(more);
    }
    all
}

fn expand_case(dev: &Device, t: IsaTarget, ty: Ty, flags: u32, rng: &mut Rng) {
    let (upper, mirror, unit, herm) = (
        flags & l3::UPPER != 0,
        flags & l3::MIRROR != 0,
        flags & l3::UNIT != 0,
        flags & l3::HERM != 0,
    );
    let c = ty.comps;
    let src = random(rng, ty, LD * N);
    let ld_dst = NB + 3;
    let stride = ld_dst * NB + 5;
    let sentinel = 7.0;
    let dst0 = vec![sentinel; stride * blocks() * c];
    let (ds, dd) = (Buf::up(dev, ty, &src), Buf::up(dev, ty, &dst0));
    let mut args = KernelArgs::new();
    dd.push(&mut args);
    ds.push(&mut args);
    args.push(N as u32)
        .push(NB as u32)
        .push(LD as u32)
        .push(ld_dst as u32)
        .push(stride as u64)
        .push(flags);
    run(dev, t, ty, l3::EXPAND, &l3::tile_config(N, NB), &args);
    let got = dd.down();
    let mut want = dst0;
    for z in 0..blocks() {
        let f = z * NB;
        for j in 0..order(z) {
            for i in 0..order(z) {
                let at = |r: usize, q: usize| (f + r + (f + q) * LD) * c;
                let mut v: Vec<f64> = if unit && i == j {
                    let mut o = vec![0.0; c];
                    o[0] = 1.0;
                    o
                } else if stored(upper, i, j) {
                    let mut o = src[at(i, j)..at(i, j) + c].to_vec();
                    if herm && c == 2 && i == j {
                        o[1] = 0.0;
                    }
                    o
                } else if mirror {
                    let mut o = src[at(j, i)..at(j, i) + c].to_vec();
                    if herm && c == 2 {
                        o[1] = -o[1];
                    }
                    o
                } else {
                    vec![0.0; c]
                };
                let d = (z * stride + i + j * ld_dst) * c;
                want[d..d + c].swap_with_slice(&mut v);
            }
        }
    }
    for (q, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g.to_bits(),
            w.to_bits(),
            "expand {} {t} flags {flags:#x} at {q}",
            ty.dtype
        );
    }
}

fn update_case(dev: &Device, t: IsaTarget, ty: Ty, flags: u32, rng: &mut Rng) {
    let (upper, unit, read_c, herm) = (
        flags & l3::UPPER != 0,
        flags & l3::UNIT != 0,
        flags & l3::READ_C != 0,
        flags & l3::HERM != 0,
    );
    let c = ty.comps;
    let ld_w = NB + 2;
    let stride = ld_w * NB + 3;
    let w = random(rng, ty, stride * blocks());
    let mut c0 = random(rng, ty, LD * N);
    if !read_c {
        // β = 0: C must not be read; NaN in the triangle shows a read.
        for v in c0.iter_mut() {
            *v = f64::NAN;
        }
    }
    let beta: Vec<f64> = if read_c {
        random(rng, ty, 1)
    } else {
        vec![0.0; c]
    };
    let (dc, dw) = (Buf::up(dev, ty, &c0), Buf::up(dev, ty, &w));
    let mut args = KernelArgs::new();
    dc.push(&mut args);
    dw.push(&mut args);
    args.push(N as u32)
        .push(NB as u32)
        .push(LD as u32)
        .push(ld_w as u32)
        .push(stride as u64);
    scalar(&mut args, ty, &beta);
    args.push(flags);
    run(dev, t, ty, l3::UPDATE, &l3::tile_config(N, NB), &args);
    let got = dc.down();
    let mut want = c0.clone();
    for z in 0..blocks() {
        let f = z * NB;
        for j in 0..order(z) {
            for i in 0..order(z) {
                if !stored(upper, i, j) || (unit && i == j) {
                    continue;
                }
                let ci = (f + i + (f + j) * LD) * c;
                let wi = (z * stride + i + j * ld_w) * c;
                let mut v = w[wi..wi + c].to_vec();
                if read_c {
                    let cv = &c0[ci..ci + c];
                    v[0] = ty.fma(beta[0], cv[0], v[0]);
                    if c == 2 {
                        v[1] = ty.fma(beta[0], cv[1], v[1]);
                        v[0] = ty.fma(-beta[1], cv[1], v[0]);
                        v[1] = ty.fma(beta[1], cv[0], v[1]);
                    }
                }
                if herm && c == 2 && i == j {
                    v[1] = 0.0;
                }
                want[ci..ci + c].copy_from_slice(&v);
            }
        }
    }
    for (q, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "update {} {t} flags {flags:#x} at {q}: {g} vs {w}",
            ty.dtype
        );
    }
}

/// Complex (or real) product helpers on component slices.
fn cmul(c: usize, a: &[f64], b: &[f64]) -> (f64, f64) {
    if c == 1 {
        (a[0] * b[0], 0.0)
    } else {
        (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])
    }
}

fn cabs(c: usize, a: &[f64]) -> f64 {
    if c == 1 {
        a[0].abs()
    } else {
        a[0].hypot(a[1])
    }
}

fn invert_case(dev: &Device, t: IsaTarget, ty: Ty, flags: u32, rng: &mut Rng) {
    let (upper, unit) = (flags & l3::UPPER != 0, flags & l3::UNIT != 0);
    let c = ty.comps;
    // Diagonally dominant: |diagonal| in [2, 3), off-diagonal up to 1/nb.
    let mut a = random(rng, ty, LD * N);
    for j in 0..N {
        for i in 0..N {
            let p = (i + j * LD) * c;
            if i == j {
                a[p] = ty.round(2.0 + a[p].abs());
            } else {
                for q in 0..c {
                    a[p + q] = ty.round(a[p + q] / NB as f64);
                }
            }
        }
    }
    let stride = NB * NB;
    let out0 = vec![7.0; stride * blocks() * c];
    let (da, dd) = (Buf::up(dev, ty, &a), Buf::up(dev, ty, &out0));
    let mut args = KernelArgs::new();
    dd.push(&mut args);
    da.push(&mut args);
    args.push(N as u32)
        .push(LD as u32)
        .push(stride as u64)
        .push(flags);
    run(dev, t, ty, l3::INVERT, &l3::invert_config(N, NB), &args);
    let got = dd.down();
    let tol = (NB as f64 + 4.0) * ty.u() * if c == 2 { 4.0 } else { 1.0 };
    for z in 0..blocks() {
        let f = z * NB;
        let bs = order(z);
        // D: the block's triangle, the identity beyond bs.
        let d = |i: usize, j: usize| -> Vec<f64> {
            let mut o = vec![0.0; c];
            if i >= bs || j >= bs {
                if i == j {
                    o[0] = 1.0;
                }
            } else if i == j && unit {
                o[0] = 1.0;
            } else if stored(upper, i, j) {
                let p = (f + i + (f + j) * LD) * c;
                o.copy_from_slice(&a[p..p + c]);
            }
            o
        };
        let x = |i: usize, j: usize| -> Vec<f64> {
            let p = (z * stride + i + j * NB) * c;
            got[p..p + c].to_vec()
        };
        for i in 0..NB {
            for j in 0..NB {
                // The other triangle of the inverse is zero.
                if !stored(upper, i, j) {
                    assert!(
                        x(i, j).iter().all(|&v| v == 0.0),
                        "invert {} {t} flags {flags:#x} z={z} ({i},{j}) not zero",
                        ty.dtype
                    );
                }
                let (mut re, mut im, mut mag) = (0.0, 0.0, 0.0);
                for p in 0..NB {
                    let (xr, xi) = cmul(c, &x(i, p), &d(p, j));
                    re += xr;
                    im += xi;
                    mag += cabs(c, &x(i, p)) * cabs(c, &d(p, j));
                }
                let want = if i == j { 1.0 } else { 0.0 };
                let err = (re - want).hypot(im);
                assert!(
                    err <= tol * mag,
                    "invert {} {t} flags {flags:#x} z={z} ({i},{j}): |err| {err:e} > {:e}",
                    ty.dtype,
                    tol * mag
                );
            }
        }
    }
}

#[test]
fn triangle_kernels_match_the_host_on_every_target() {
    let mut rng = Rng(0x005e_ed1e_7e13);
    for (q, &t) in TARGETS.iter().enumerate() {
        let dev = emu(t);
        // Every element type on every target; the flag combinations spread over the
        // targets (each target sees every kernel, every combination runs on at least
        // two targets per dtype).
        for (d, &dtype) in DTYPES.iter().enumerate() {
            let ty = Ty::of(dtype);
            let pick = |sets: Vec<u32>, k: usize| -> Vec<u32> {
                sets.into_iter()
                    .enumerate()
                    .filter(|(i, _)| (i + q + d + k) % 3 != 0)
                    .map(|(_, f)| f)
                    .collect()
            };
            for f in pick(flag_sets(ty, &[l3::UPPER, l3::MIRROR, l3::UNIT]), 0) {
                expand_case(&dev, t, ty, f, &mut rng);
            }
            for f in pick(flag_sets(ty, &[l3::UPPER, l3::UNIT, l3::READ_C]), 1) {
                update_case(&dev, t, ty, f, &mut rng);
            }
            for f in [0, l3::UPPER, l3::UNIT, l3::UPPER | l3::UNIT] {
                if (f as usize + q + d) % 2 == 0 {
                    invert_case(&dev, t, ty, f, &mut rng);
                }
            }
        }
    }
}

#[test]
fn triangle_kernels_match_llvm_on_every_target() {
    if !tools_present() {
        eprintln!("skipping: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for t in TARGETS {
        for dtype in DTYPES {
            for invert_block in [16, 32, 64] {
                if dtype == DType::C64 && invert_block == 64 {
                    continue;
                }
                let ks = generate(
                    t,
                    &Level3Params {
                        dtype,
                        invert_block,
                    },
                )
                .unwrap();
                agree(&ks);
            }
        }
    }
}

#[test]
fn the_generator_builds_amdgpu_kernels_for_amd_targets() {
    use rocm_core::Error;
    use rocm_kernels::generator::Generator;
    use rocm_kernels::level3::{invert_shared_bytes, Level3};
    for t in TARGETS {
        let target: rocm_core::Target = t.name().parse().unwrap();
        for dtype in DTYPES {
            let p = Level3Params {
                dtype,
                invert_block: 32,
            };
            let prog = Level3::generate(&p, &target).unwrap();
            assert!(
                matches!(prog.image, ModuleImage::CodeObject(_)),
                "{t} {dtype}"
            );
            assert_eq!(prog.kernels, [l3::EXPAND, l3::INVERT, l3::UPDATE]);
            // The inversion's LDS is the documented NB·(NB + 1) elements.
            let ks = generate(t, &p).unwrap();
            assert_eq!(
                ks[1].resources.group_segment_bytes,
                invert_shared_bytes(&p),
                "{t} {dtype}"
            );
        }
        let bad = |dtype, invert_block| {
            generate(
                t,
                &Level3Params {
                    dtype,
                    invert_block,
                },
            )
        };
        assert!(matches!(
            bad(DType::F16, 32),
            Err(Error::Unsupported { .. })
        ));
        assert!(matches!(
            bad(DType::C64, 64),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            bad(DType::F32, 48),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
