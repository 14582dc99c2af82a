//! The AMDGPU geam and dgmm kernels (`rocm_kernels::amdgpu::extension`): LLVM's build of
//! their text equals ours on every target, and the emulated devices run them against
//! host expectations for f32, f64, Complex32 and Complex64: geam over every transpose
//! pair (conjugate for complex) and every α/β-zero case (an operand not read holds NaN),
//! dgmm from both sides with increments 1, 2, −1 and −3, each over a batch of two with
//! odd strides, m and n not multiples of the 32-wide tile and leading dimensions above
//! the rows. Elements outside C's m×n hold a sentinel that must survive.
//!
//! Tolerance: none. Each element is computed as the kernels document (geam: `α·a` then
//! `β·b` added by fma — complex: a complex product then four fmas; dgmm: one product),
//! and the host does the same operations in the element's real type.

mod common;

use common::host::{random, scalar, Buf, Rng, Ty, DTYPES, TARGETS};
use common::{agree, emu, tools_present};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{Device, KernelArgs, ModuleImage};
use rocm_kernels::amdgpu::extension::generate;
use rocm_kernels::extension::{self as ext, ExtensionParams};

const M: usize = 45;
const N: usize = 37;
const BATCH: usize = 2;

fn run(dev: &Device, t: IsaTarget, ty: Ty, name: &str, args: &KernelArgs) {
    let ks = generate(t, &ExtensionParams { dtype: ty.dtype }).unwrap();
    let obj = rocm_kernels::amdgpu::code_object(&ks)
        .unwrap()
        .to_elf()
        .unwrap();
    let m = dev.load_module(&ModuleImage::CodeObject(obj)).unwrap();
    let f = m.kernel(name).unwrap();
    // SAFETY: the arguments follow the documented kernel contract and the emulated
    // device checks every access against the buffers.
    unsafe {
        f.launch(dev.default_stream(), &ext::config(M, N, BATCH), args)
            .unwrap()
    };
    dev.synchronize().unwrap();
}

fn same(got: &[f64], want: &[f64], what: &str) {
    for (q, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "{what} at {q}: {g} vs {w}");
    }
}

/// (trans, conj) → flags for operand A (shift 0) or B (shift 1).
fn op_flags(trans: bool, conj: bool, b: bool) -> u32 {
    let (t, c) = if b {
        (ext::TRANS_B, ext::CONJ_B)
    } else {
        (ext::TRANS_A, ext::CONJ_A)
    };
    (if trans { t } else { 0 }) | (if trans && conj { c } else { 0 })
}

fn geam_case(dev: &Device, t: IsaTarget, ty: Ty, flags: u32, rng: &mut Rng) {
    let c = ty.comps;
    let ta = flags & ext::TRANS_A != 0;
    let tb = flags & ext::TRANS_B != 0;
    let (lda, ldb, ldc) = (
        if ta { N + 2 } else { M + 1 },
        if tb { N + 1 } else { M + 3 },
        M + 2,
    );
    let (sa, sb, sc) = (lda * M.max(N) + 3, ldb * M.max(N) + 1, ldc * N + 5);
    let read_a = flags & ext::READ_A != 0;
    let read_b = flags & ext::READ_B != 0;
    let mut a = random(rng, ty, sa * BATCH);
    let mut b = random(rng, ty, sb * BATCH);
    if !read_a {
        a.iter_mut().for_each(|v| *v = f64::NAN);
    }
    if !read_b {
        b.iter_mut().for_each(|v| *v = f64::NAN);
    }
    let alpha = if read_a {
        random(rng, ty, 1)
    } else {
        vec![0.0; c]
    };
    let beta = if read_b {
        random(rng, ty, 1)
    } else {
        vec![0.0; c]
    };
    let c0 = vec![7.0; sc * BATCH * c];
    let (da, db, dc) = (
        Buf::up(dev, ty, &a),
        Buf::up(dev, ty, &b),
        Buf::up(dev, ty, &c0),
    );
    let mut args = KernelArgs::new();
    dc.push(&mut args);
    da.push(&mut args);
    db.push(&mut args);
    args.push(M as u32)
        .push(N as u32)
        .push(lda as u32)
        .push(ldb as u32)
        .push(ldc as u32)
        .push(sa as u64)
        .push(sb as u64)
        .push(sc as u64);
    scalar(&mut args, ty, &alpha);
    scalar(&mut args, ty, &beta);
    args.push(flags);
    run(dev, t, ty, ext::GEAM, &args);
    let mut want = c0;
    let term = |x: &[f64],
                ld: usize,
                stride: usize,
                trans: bool,
                conj: bool,
                read: bool,
                z: usize,
                i: usize,
                j: usize|
     -> Vec<f64> {
        if !read {
            return vec![0.0; c];
        }
        let (r, q) = if trans { (j, i) } else { (i, j) };
        let p = (z * stride + r + q * ld) * c;
        let mut v = x[p..p + c].to_vec();
        if conj && c == 2 {
            v[1] = -v[1];
        }
        v
    };
    for z in 0..BATCH {
        for j in 0..N {
            for i in 0..M {
                let av = term(&a, lda, sa, ta, flags & ext::CONJ_A != 0, read_a, z, i, j);
                let bv = term(&b, ldb, sb, tb, flags & ext::CONJ_B != 0, read_b, z, i, j);
                let v = ty.cfma(&ty.cmul(&alpha, &av), &beta, &bv);
                let p = (z * sc + i + j * ldc) * c;
                want[p..p + c].copy_from_slice(&v);
            }
        }
    }
    same(
        &dc.down(),
        &want,
        &format!("geam {} {t} flags {flags:#x}", ty.dtype),
    );
}

fn dgmm_case(dev: &Device, t: IsaTarget, ty: Ty, left: bool, incx: isize, rng: &mut Rng) {
    let c = ty.comps;
    let (lda, ldc) = (M + 3, M + 1);
    let len = if left { M } else { N };
    let span = (len - 1) * incx.unsigned_abs() + 1;
    let (sa, sx, sc) = (lda * N + 1, span + 2, ldc * N + 3);
    let a = random(rng, ty, sa * BATCH);
    let x = random(rng, ty, sx * BATCH);
    let c0 = vec![7.0; sc * BATCH * c];
    let (da, dx, dc) = (
        Buf::up(dev, ty, &a),
        Buf::up(dev, ty, &x),
        Buf::up(dev, ty, &c0),
    );
    // A negative increment: the far end of x (BLAS walks from there).
    let start = if incx < 0 {
        (span - 1) * ty.dtype.size()
    } else {
        0
    };
    let mut args = KernelArgs::new();
    dc.push(&mut args);
    da.push(&mut args);
    let base = match &dx {
        Buf::F32(b) => b.as_slice().address(),
        Buf::F64(b) => b.as_slice().address(),
    };
    args.push_pointer(base + start as u64, dev)
        .push(M as u32)
        .push(N as u32)
        .push(lda as u32)
        .push(ldc as u32)
        .push(incx as i32)
        .push(sa as u64)
        .push(sx as u64)
        .push(sc as u64)
        .push(if left { ext::LEFT } else { 0 });
    run(dev, t, ty, ext::DGMM, &args);
    let mut want = c0;
    for z in 0..BATCH {
        for j in 0..N {
            for i in 0..M {
                let k = if left { i } else { j };
                let xi = if incx < 0 {
                    (len - 1 - k) * incx.unsigned_abs()
                } else {
                    k * incx as usize
                };
                let (pa, px) = ((z * sa + i + j * lda) * c, (z * sx + xi) * c);
                let v = ty.cmul(&a[pa..pa + c], &x[px..px + c]);
                let p = (z * sc + i + j * ldc) * c;
                want[p..p + c].copy_from_slice(&v);
            }
        }
    }
    same(
        &dc.down(),
        &want,
        &format!("dgmm {} {t} left={left} incx={incx}", ty.dtype),
    );
}

#[test]
fn geam_and_dgmm_match_the_host_on_every_target() {
    let mut rng = Rng(0xe1e_9ea3);
    for (q, &t) in TARGETS.iter().enumerate() {
        let dev = emu(t);
        for (d, &dtype) in DTYPES.iter().enumerate() {
            let ty = Ty::of(dtype);
            let conjugates: &[(bool, bool)] = if ty.comps == 2 {
                &[(false, false), (true, false), (false, true), (true, true)]
            } else {
                &[(false, false)]
            };
            // Every (transpose, conjugate) pair and read case, spread over the targets.
            let mut cases = Vec::new();
            for ta in [false, true] {
                for tb in [false, true] {
                    for &(ca, cb) in conjugates {
                        for reads in [ext::READ_A | ext::READ_B, ext::READ_A, ext::READ_B, 0] {
                            cases.push(op_flags(ta, ca, false) | op_flags(tb, cb, true) | reads);
                        }
                    }
                }
            }
            cases.sort_unstable();
            cases.dedup();
            for (i, f) in cases.into_iter().enumerate() {
                if (i + q + d) % 3 == 0 {
                    geam_case(&dev, t, ty, f, &mut rng);
                }
            }
            for (i, (left, incx)) in [
                (true, 1),
                (false, 2),
                (true, -1),
                (false, -3),
                (false, 1),
                (true, -3),
            ]
            .into_iter()
            .enumerate()
            {
                if (i + q + d) % 2 == 0 {
                    dgmm_case(&dev, t, ty, left, incx, &mut rng);
                }
            }
        }
    }
}

#[test]
fn geam_and_dgmm_match_llvm_on_every_target() {
    if !tools_present() {
        eprintln!("skipping: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for t in TARGETS {
        for dtype in DTYPES {
            agree(&generate(t, &ExtensionParams { dtype }).unwrap());
        }
    }
}
