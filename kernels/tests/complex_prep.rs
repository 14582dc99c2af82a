//! The complex preparation kernel (`rocm_kernels::complex`) executed by the PTX
//! interpreter and, through its AMDGPU back end, on every emulated AMD target, against
//! the same operations on the host, Complex32 and Complex64 (pairs of f32/f64): the
//! α-scaled 2×2-block expansion of op(A) for op ∈ {N, T, C}, plain copies of op(B) for
//! T and C, and the in-place scale of C by a complex β; each over a batch of two with
//! odd strides, shapes 1×1, primes and sizes that are not multiples of the 32×8
//! workgroup, leading dimensions above the rows. Output elements the kernel must not
//! write hold NaN (compared by bits), as does everything beyond the inputs. The AMDGPU
//! kernels are also built by llvm-mc-19 to the same bytes.
//!
//! Tolerance: none. The kernel documents each part of α·z as one rounded product and
//! one fused multiply-add; the host does the same operations in the element type.

mod common;
#[allow(dead_code)]
mod ptx_sim;

use ptx_sim::host::{bytes, values, El, Rng};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Device, KernelArgs, ModuleImage, Target};
use rocm_kernels::complex::{self as cx, ComplexPrep, ComplexPrepParams};
use rocm_kernels::generator::Generator;

/// Where a case runs: the PTX interpreter (sm_90's PTX) or an emulated AMD device.
enum Runner {
    Ptx,
    Amd(Device),
}

/// Every emulated AMD target, and the PTX interpreter.
fn runners() -> Vec<Runner> {
    let mut v = vec![Runner::Ptx];
    for t in common::host::TARGETS {
        v.push(Runner::Amd(common::emu(t)));
    }
    v
}

fn complex_of<T: El>() -> DType {
    if T::DTYPE == DType::F32 {
        DType::C32
    } else {
        DType::C64
    }
}

const BATCH: usize = 2;

fn kernel<T: El>() -> ptx_sim::Kernel {
    let target: Target = "sm_90".parse().unwrap();
    let p = ComplexPrepParams {
        dtype: complex_of::<T>(),
    };
    let ModuleImage::Ptx(text) = ComplexPrep::generate(&p, &target).unwrap().image else {
        panic!("not PTX")
    };
    ptx_sim::host::entry(&text, cx::CPREP)
}

/// Runs the kernel over X (and the output buffer `out`, or X itself in place) with the
/// scalar arguments `args` (rows, cols, ldx, ldo, stride_x, stride_o, α.re and α.im as
/// bits, flags); the output buffer afterwards.
fn run<T: El>(
    runner: &Runner,
    x: &[T],
    out: Option<&[T]>,
    (rows, cols): (usize, usize),
    args: [u64; 9],
) -> Vec<T> {
    let cfg = cx::config(rows, cols, BATCH);
    match runner {
        Runner::Ptx => {
            let mut mem = ptx_sim::Memory::default();
            let px = mem.alloc(bytes(x));
            let po = out.map_or(px, |o| mem.alloc(bytes(o)));
            let mut all = vec![po, px];
            all.extend(args);
            kernel::<T>().run(cfg.grid, cfg.block[0], &all, &mut mem);
            values(mem.bytes(po))
        }
        Runner::Amd(dev) => {
            let p = ComplexPrepParams {
                dtype: complex_of::<T>(),
            };
            let prog = ComplexPrep::generate(&p, dev.target()).unwrap();
            assert!(matches!(prog.image, ModuleImage::CodeObject(_)));
            let module = dev.load_module(&prog.image).unwrap();
            let f = module.kernel(cx::CPREP).unwrap();
            let dx = dev.upload(&bytes(x)).unwrap();
            let dout = out.map(|o| dev.upload(&bytes(o)).unwrap());
            let mut ka = KernelArgs::new();
            ka.push(dout.as_ref().unwrap_or(&dx)).push(&dx);
            for (i, a) in args.into_iter().enumerate() {
                match i {
                    // rows, cols, ldx, ldo, flags: u32; strides: u64; α: the real type.
                    0..=3 | 8 => ka.push(a as u32),
                    4 | 5 => ka.push(a),
                    _ if T::DTYPE == DType::F32 => ka.push(a as u32),
                    _ => ka.push(a),
                };
            }
            // SAFETY: the arguments follow the kernel's documented parameters and the
            // emulated device checks every access against the buffers.
            unsafe { f.launch(dev.default_stream(), &cfg, &ka).unwrap() };
            dev.synchronize().unwrap();
            values(&dout.as_ref().unwrap_or(&dx).to_vec().unwrap())
        }
    }
}

fn bits<T: El>(v: T) -> u64 {
    match T::DTYPE {
        DType::F32 => (v.to_f64() as f32).to_bits() as u64,
        _ => v.to_f64().to_bits(),
    }
}

fn mul<T: El>(a: T, b: T) -> T {
    T::from_f64(a.to_f64() * b.to_f64())
}

fn neg<T: El>(a: T) -> T {
    T::from_f64(-a.to_f64())
}

/// α·z as the kernel documents it.
fn scaled<T: El>((ar, ai): (T, T), (zr, zi): (T, T)) -> (T, T) {
    (
        T::fma(ar, zr, neg(mul(ai, zi))),
        T::fma(ar, zi, mul(ai, zr)),
    )
}

/// One launch over op(X) of rows×cols (complex leading dimension `ld` of X, real
/// leading dimension of the output chosen here) and its host check.
fn case<T: El>(
    runner: &Runner,
    rows: usize,
    cols: usize,
    flags: u32,
    alpha: (f64, f64),
    in_place: bool,
) {
    let trans = flags & cx::TRANS != 0;
    let conj = flags & cx::CONJ != 0;
    let expand = flags & cx::EXPAND != 0;
    let scale = flags & cx::SCALE != 0;
    assert!(!(in_place && (trans || expand)));
    let mut rng = Rng((rows * 131 + cols * 7) as u64 + u64::from(flags));
    // X stored (rows×cols, or cols×rows transposed), complex ld, in reals 2·ld.
    let (xr, xc) = if trans { (cols, rows) } else { (rows, cols) };
    let ld = xr + 3;
    let sx = 2 * (ld * xc) + 6;
    let x: Vec<T> = (0..sx * BATCH).map(|_| T::from_f64(rng.next())).collect();
    // Output (reals): expanded 2rows × 2cols, plain 2rows × cols (complex rows×cols).
    let (orows, ocols) = if expand {
        (2 * rows, 2 * cols)
    } else {
        (2 * rows, cols)
    };
    let (ldo, so) = if in_place {
        (2 * ld, sx)
    } else {
        (orows + 2, (orows + 2) * ocols + 4)
    };
    let nan = T::from_f64(f64::NAN);
    let out: Vec<T> = if in_place {
        x.clone()
    } else {
        vec![nan; so * BATCH]
    };
    let (ar, ai) = (T::from_f64(alpha.0), T::from_f64(alpha.1));
    let got: Vec<T> = run(
        runner,
        &x,
        if in_place { None } else { Some(&out) },
        (rows, cols),
        [
            rows as u64,
            cols as u64,
            (2 * ld) as u64,
            ldo as u64,
            sx as u64,
            so as u64,
            bits(ar),
            bits(ai),
            flags.into(),
        ],
    );
    // The expected output: start from what was there, write the region.
    let mut want = out.clone();
    for z in 0..BATCH {
        for j in 0..cols {
            for i in 0..rows {
                let (r, c) = if trans { (j, i) } else { (i, j) };
                let at = z * sx + 2 * r + c * 2 * ld;
                let (zr, zi) = (x[at], x[at + 1]);
                let zi = if conj { neg(zi) } else { zi };
                let (wr, wi) = if scale {
                    scaled((ar, ai), (zr, zi))
                } else {
                    (zr, zi)
                };
                let o = z * so;
                if expand {
                    want[o + 2 * i + 2 * j * ldo] = wr;
                    want[o + 2 * i + 1 + 2 * j * ldo] = wi;
                    want[o + 2 * i + (2 * j + 1) * ldo] = neg(wi);
                    want[o + 2 * i + 1 + (2 * j + 1) * ldo] = wr;
                } else {
                    want[o + 2 * i + j * ldo] = wr;
                    want[o + 2 * i + 1 + j * ldo] = wi;
                }
            }
        }
    }
    assert_eq!(got.len(), want.len());
    for (e, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            bits(*g) == bits(*w),
            "{} {rows}x{cols} flags {flags} in place {in_place}: real element {e}: {g:?} != {w:?}",
            match runner {
                Runner::Ptx => "ptx".to_string(),
                Runner::Amd(d) => d.id().to_string(),
            }
        );
    }
}

const SHAPES: [(usize, usize); 5] = [(1, 1), (37, 13), (31, 7), (64, 16), (3, 41)];
const ALPHA: (f64, f64) = (0.75, -1.3125);

#[test]
fn expand_every_op_scaled_by_complex_alpha() {
    for r in runners() {
        for (rows, cols) in SHAPES {
            for op in [0, cx::TRANS, cx::TRANS | cx::CONJ, cx::CONJ] {
                let flags = op | cx::EXPAND | cx::SCALE;
                case::<f32>(&r, rows, cols, flags, ALPHA, false);
                case::<f64>(&r, rows, cols, flags, ALPHA, false);
            }
        }
    }
}

#[test]
fn expand_without_scale() {
    for r in runners() {
        case::<f32>(&r, 37, 13, cx::EXPAND, (9.0, 9.0), false);
        case::<f64>(&r, 37, 13, cx::EXPAND | cx::TRANS, (9.0, 9.0), false);
    }
}

#[test]
fn plain_copies_of_transposed_and_conjugated_operands() {
    for r in runners() {
        for (rows, cols) in SHAPES {
            for op in [cx::TRANS, cx::TRANS | cx::CONJ, cx::CONJ, 0] {
                case::<f32>(&r, rows, cols, op, (9.0, 9.0), false);
                case::<f64>(&r, rows, cols, op, (9.0, 9.0), false);
            }
        }
    }
}

#[test]
fn in_place_scale_by_complex_beta() {
    for r in runners() {
        for (rows, cols) in SHAPES {
            case::<f32>(&r, rows, cols, cx::SCALE, (-0.5, 2.25), true);
            case::<f64>(&r, rows, cols, cx::SCALE, (-0.5, 2.25), true);
        }
    }
}

/// LLVM 19 assembles our text of the AMDGPU kernel to the same bytes, per family and type.
#[test]
fn llvm_agrees() {
    if !common::tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for t in [
        IsaTarget::Gfx908,
        IsaTarget::Gfx90a,
        IsaTarget::Gfx942,
        IsaTarget::Gfx1100,
    ] {
        for d in [DType::C32, DType::C64] {
            common::agree(&[rocm_kernels::amdgpu::complex::generate(t, d).unwrap()]);
        }
    }
}
