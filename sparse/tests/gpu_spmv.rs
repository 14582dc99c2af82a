//! CSR SpMV with the generated kernels against a reference computed in f64, on every
//! emulated AMD target, in the PTX interpreter (PTX text accepted by ptxas), in the
//! language interpreter and on `cuda:0` when one is present.
//!
//! Tolerance, per row `i` of length `len_i`: the kernels add `len_i` products with
//! fused multiply-adds in some fixed order, then scale by alpha and add `beta·y`, so
//! |computed − exact| ≤ γ(len_i + 2)·B_i with B_i = |alpha|·Σ|a_ij·x_j| + |beta·y_i| and
//! γ(n) = n·u/(1 − n·u) (u the unit roundoff of the value type). The f64 reference adds
//! the same way, its own error under γ(len_i + 2)·B_i with u = 2⁻⁵³; the test allows
//! the sum of both (plus the smallest normal for underflow in the products).

mod common;

#[allow(dead_code)]
#[path = "../../kernels/tests/ptx_sim/mod.rs"]
mod ptx_sim;

use common::{rand_mat, RandMat};
use proptest::prelude::*;
use rocm_core::{Device, DeviceBuffer, Error, Real};
use rocm_kernels::lang::interp::{self, Arg};
use rocm_kernels::lang::ptx;
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};
use rocm_sparse::format::SparseMatrix;
use rocm_sparse::gpu::spmv::{self, CsrSpmv, Kernel, Params, Tuning, WORKGROUP};
use rocm_sparse::gpu::{DeviceCsr, RowStats};
use rocm_sparse::{Csr, Index, Scalar};

const EMU: [&str; 4] = ["emu:gfx908", "emu:gfx90a", "emu:gfx942", "emu:gfx1100"];

/// Every kernel a target of wave size `wave` can run.
fn kernels(wave: u32) -> Vec<Kernel> {
    let mut v: Vec<Kernel> = (0..=wave.trailing_zeros())
        .map(|s| Kernel::Vector { group: 1 << s })
        .collect();
    v.push(Kernel::WorkgroupPerRow);
    v
}

fn gamma(n: usize, u: f64) -> f64 {
    let nu = n as f64 * u;
    nu / (1.0 - nu)
}

/// `(exact-ish value, allowed error)` per row.
fn reference<I: Index, T: Scalar>(
    a: &Csr<I, T>,
    alpha: f64,
    x: &[f64],
    beta: f64,
    y: &[f64],
) -> Vec<(f64, f64)> {
    let u = if T::DTYPE == rocm_core::DType::F32 {
        f32::EPSILON as f64 / 2.0
    } else {
        f64::EPSILON / 2.0
    };
    (0..a.nrows())
        .map(|i| {
            let r = a.row_range(i);
            let len = r.len();
            let (mut s, mut b) = (0.0f64, 0.0f64);
            for q in r {
                let v = a.values()[q].re().as_f64() * x[a.col_idx()[q].to_usize()];
                s += v;
                b += v.abs();
            }
            let yb = if beta == 0.0 { 0.0 } else { beta * y[i] };
            let bound = alpha.abs() * b + yb.abs();
            let tol = (gamma(len + 2, u) + gamma(len + 2, f64::EPSILON / 2.0)) * bound
                + f32::MIN_POSITIVE as f64;
            (alpha * s + yb, tol)
        })
        .collect()
}

fn csr<I: Index, T: Scalar>(m: &RandMat) -> Csr<I, T> {
    m.coo::<I, T>().to_csr().unwrap()
}

fn vec_of<T: Scalar>(n: usize, salt: usize) -> Vec<T> {
    (0..n)
        .map(|i| common::scalar::<T>((((i * 7 + salt * 13) % 19) as f64 - 9.0) / 8.0, 0.0))
        .collect()
}

fn as_f64<T: Scalar>(v: &[T]) -> Vec<f64> {
    v.iter().map(|t| t.re().as_f64()).collect()
}

/// Runs `kernel` on `dev` and checks every row; returns the result.
fn check_on<I: Index, T: Scalar>(
    dev: &Device,
    a: &Csr<I, T>,
    kernel: Option<Kernel>,
    alpha: f64,
    beta: f64,
) -> Vec<T> {
    let x = vec_of::<T>(a.ncols(), 1);
    let y0: Vec<T> = if beta == 0.0 {
        vec![common::scalar::<T>(f64::NAN, 0.0); a.nrows()]
    } else {
        vec_of::<T>(a.nrows(), 2)
    };
    let d = DeviceCsr::upload(dev, a).unwrap();
    assert_eq!(
        &d.download().unwrap(),
        a,
        "download differs from the upload"
    );
    let plan = match kernel {
        Some(k) => CsrSpmv::with_kernel(&d, k).unwrap(),
        None => CsrSpmv::analysis(&d).unwrap(),
    };
    let xd = DeviceBuffer::from_slice(dev, &x).unwrap();
    let mut yd = DeviceBuffer::from_slice(dev, &y0).unwrap();
    let stream = dev.default_stream();
    let sc = |v: f64| common::scalar::<T>(v, 0.0);
    plan.compute(
        stream,
        sc(alpha),
        &d,
        &xd.as_slice(),
        sc(beta),
        &mut yd.as_slice_mut(),
    )
    .unwrap_or_else(|e| panic!("{} {:?}: {e}", dev.id(), plan.analysis_result()));
    stream.synchronize().unwrap();
    let got = yd.to_vec().unwrap();
    let want = reference(a, alpha, &as_f64(&x), beta, &as_f64(&y0));
    for (i, (g, (w, tol))) in got.iter().zip(&want).enumerate() {
        let g = g.re().as_f64();
        assert!(
            (g - w).abs() <= *tol,
            "{} {} {:?}: row {i} (length {}) got {g}, want {w} ± {tol}",
            dev.id(),
            T::DTYPE,
            plan.analysis_result(),
            a.row_range(i).len()
        );
    }
    got
}

/// Every kernel, both beta cases, both value and index types.
fn check_all(dev: &Device, m: &RandMat) {
    fn one<I: Index, T: Scalar>(dev: &Device, m: &RandMat) {
        let a = csr::<I, T>(m);
        let wave = dev.target().caps().wave_size();
        for k in kernels(wave) {
            check_on(dev, &a, Some(k), 1.5, 0.0);
            check_on(dev, &a, Some(k), -0.75, 2.0);
        }
        let first = check_on(dev, &a, None, 1.0, 0.5);
        let again = check_on(dev, &a, None, 1.0, 0.5);
        let bits = |v: &[T]| {
            v.iter()
                .map(|t| t.re().as_f64().to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            bits(&first),
            bits(&again),
            "{}: results differ run to run",
            dev.id()
        );
    }
    one::<i32, f32>(dev, m);
    one::<i32, f64>(dev, m);
    one::<i64, f32>(dev, m);
    one::<i64, f64>(dev, m);
}

/// Edge shapes: empty matrices, 1x1, a single dense row, empty rows only, a column.
fn edge_mats() -> Vec<RandMat> {
    let dense_row = RandMat {
        m: 1,
        n: 300,
        entries: (0..300)
            .map(|c| (0, c, 1.0 + (c % 5) as f64 / 4.0, 0.0))
            .collect(),
    };
    let mut long_and_empty = RandMat {
        m: 7,
        n: 700,
        entries: vec![],
    };
    long_and_empty.entries = (0..700)
        .map(|c| (3, c, -0.5 + (c % 3) as f64, 0.0))
        .collect();
    vec![
        RandMat {
            m: 0,
            n: 0,
            entries: vec![],
        },
        RandMat {
            m: 3,
            n: 0,
            entries: vec![],
        },
        RandMat {
            m: 0,
            n: 4,
            entries: vec![],
        },
        RandMat {
            m: 1,
            n: 1,
            entries: vec![(0, 0, 3.0, 0.0)],
        },
        RandMat {
            m: 5,
            n: 5,
            entries: vec![],
        },
        RandMat {
            m: 9,
            n: 1,
            entries: (0..9).step_by(2).map(|r| (r, 0, r as f64, 0.0)).collect(),
        },
        dense_row,
        long_and_empty,
    ]
}

#[test]
fn emulated_targets_edge_shapes() {
    for name in EMU {
        let dev = Device::open(name).unwrap();
        for m in edge_mats() {
            check_all(&dev, &m);
        }
        let p = rocm_sparse::gen::poisson3d::<i32, f64>(5).unwrap();
        check_on(&dev, &p, None, 1.0, 1.0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn emulated_targets_random_shapes(m in rand_mat(37), t in 0usize..EMU.len()) {
        let dev = Device::open(EMU[t]).unwrap();
        check_all(&dev, &m);
    }
}

#[test]
fn cuda_matches_reference() {
    let Ok(dev) = Device::open("cuda:0") else {
        eprintln!("skipped: no CUDA device (cuda:0 does not open)");
        return;
    };
    for m in edge_mats() {
        check_all(&dev, &m);
    }
    let p = rocm_sparse::gen::poisson3d::<i32, f64>(40).unwrap();
    check_on(&dev, &p, None, 1.0, 1.0);
    let p = rocm_sparse::gen::power_law::<i32, f32>(20_000, 12.0, 2.1, 7).unwrap();
    for k in kernels(32) {
        check_on(&dev, &p, Some(k), 1.0, -1.0);
    }
}

fn is_f64<T: Scalar>() -> bool {
    T::DTYPE == rocm_core::DType::F64
}

/// Little-endian bytes of real values as the kernels read them.
fn value_bytes<T: Scalar>(v: &[T]) -> Vec<u8> {
    v.iter()
        .flat_map(|t| {
            let x = t.re().as_f64();
            if is_f64::<T>() {
                x.to_le_bytes().to_vec()
            } else {
                (x as f32).to_le_bytes().to_vec()
            }
        })
        .collect()
}

fn index_bytes<I: Index>(v: &[I]) -> Vec<u8> {
    v.iter()
        .flat_map(|i| {
            let x = i.to_usize();
            if I::DTYPE == rocm_core::DType::I64 {
                (x as i64).to_le_bytes().to_vec()
            } else {
                (x as i32).to_le_bytes().to_vec()
            }
        })
        .collect()
}

/// Values of the kernels' value type read back from bytes, as f64.
fn values_of<T: Scalar>(b: &[u8]) -> Vec<f64> {
    if is_f64::<T>() {
        b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    } else {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect()
    }
}

/// The interpreter arguments of one product in signature order.
fn interp_args<T: Scalar, I: Index>(
    a: &Csr<I, T>,
    x: &[T],
    y: &[T],
    alpha: f64,
    beta: f64,
) -> Vec<Arg> {
    let real = |v: f64| {
        if T::DTYPE == rocm_core::DType::F64 {
            Arg::f64(v)
        } else {
            Arg::f32(v as f32)
        }
    };
    vec![
        Arg::u32(a.nrows() as u32),
        real(alpha),
        real(beta),
        Arg::Buffer(index_bytes(a.row_ptr())),
        Arg::Buffer(index_bytes(a.col_idx())),
        Arg::Buffer(value_bytes(a.values())),
        Arg::Buffer(value_bytes(x)),
        Arg::Buffer(value_bytes(y)),
    ]
}

/// Every kernel variant passes ptxas (sm_80, sm_90) without spills; on sm_90 the PTX
/// interpreter and the language interpreter give results within the tolerance.
#[test]
fn ptx_and_interpreter_match_reference() {
    let ptxas = Ptxas::find();
    if ptxas.is_none() {
        eprintln!("ptxas checks skipped: no ptxas ({HOW_TO_GET})");
    }
    let m = RandMat {
        m: 23,
        n: 150,
        entries: (0..23 * 150)
            .filter(|e| e % 7 == 0 || e / 150 == 4)
            .map(|e| (e / 150, e % 150, ((e % 11) as f64 - 5.0) / 4.0, 0.0))
            .collect(),
    };
    fn one<I: Index, T: Scalar>(m: &RandMat, ptxas: Option<&Ptxas>) {
        let a = csr::<I, T>(m);
        let x = vec_of::<T>(a.ncols(), 1);
        let y = vec_of::<T>(a.nrows(), 2);
        let want = reference(&a, 1.25, &as_f64(&x), -0.5, &as_f64(&y));
        for kernel in kernels(32) {
            let p = Params {
                kernel,
                value: T::DTYPE,
                index: I::DTYPE,
            };
            for arch in ["sm_80", "sm_90"] {
                let target = arch.parse().unwrap();
                let def = spmv::kernel(&p, &target).unwrap();
                let text = ptx::lower(&def).unwrap();
                if let Some(px) = ptxas {
                    let report = px
                        .compile(&text, &target)
                        .unwrap_or_else(|e| panic!("ptxas {arch} {p:?}: {e}"));
                    let k = report.kernel(&spmv::kernel_name(&p)).unwrap();
                    assert_eq!(k.spill_stores, 0, "{arch} {p:?} spills");
                }
                if arch != "sm_90" {
                    continue;
                }
                let grid = match kernel {
                    Kernel::Vector { group } => (a.nrows() as u32 * group).div_ceil(WORKGROUP),
                    Kernel::WorkgroupPerRow => a.nrows() as u32,
                };
                let mut args = interp_args(&a, &x, &y, 1.25, -0.5);
                interp::run(&def, [grid, 1, 1], [WORKGROUP, 1, 1], &mut args).unwrap();
                let Arg::Buffer(lang_y) = &args[7] else {
                    unreachable!()
                };
                let lang_y = values_of::<T>(lang_y);
                let kernel_sim = ptx_sim::Kernel::parse(&text);
                let mut mem = ptx_sim::Memory::default();
                let bits: Vec<u64> = interp_args(&a, &x, &y, 1.25, -0.5)
                    .into_iter()
                    .map(|a| match a {
                        Arg::Scalar(v) => v,
                        Arg::Buffer(b) => mem.alloc(b),
                    })
                    .collect();
                kernel_sim.run([grid, 1, 1], WORKGROUP, &bits, &mut mem);
                let ptx_y = values_of::<T>(&mem.bytes(bits[7])[..a.nrows() * T::DTYPE.size()]);
                for (what, got) in [
                    ("language interpreter", &lang_y),
                    ("PTX interpreter", &ptx_y),
                ] {
                    for (i, (g, (w, tol))) in got.iter().zip(&want).enumerate() {
                        assert!(
                            (g - w).abs() <= *tol,
                            "{what} {p:?}: row {i} got {g}, want {w} ± {tol}"
                        );
                    }
                }
            }
        }
    }
    one::<i32, f32>(&m, ptxas.as_ref());
    one::<i32, f64>(&m, ptxas.as_ref());
    one::<i64, f32>(&m, ptxas.as_ref());
    one::<i64, f64>(&m, ptxas.as_ref());
}

#[test]
fn analysis_picks_kernel_from_row_lengths() {
    let t = Tuning::default();
    let stats = |rows, nnz| RowStats {
        rows,
        nnz,
        max_len: nnz,
        empty_rows: 0,
    };
    assert_eq!(t.choose(&stats(10, 5), 32), Kernel::Vector { group: 1 });
    assert_eq!(t.choose(&stats(10, 27), 64), Kernel::Vector { group: 2 });
    assert_eq!(
        t.choose(&stats(100, 2700), 32),
        Kernel::Vector { group: 16 }
    );
    assert_eq!(
        t.choose(&stats(100, 6000), 32),
        Kernel::Vector { group: 32 }
    );
    assert_eq!(
        t.choose(&stats(100, 6000), 64),
        Kernel::Vector { group: 32 }
    );
    assert_eq!(t.choose(&stats(10, 1280), 32), Kernel::WorkgroupPerRow);
    assert_eq!(t.choose(&stats(0, 0), 64), Kernel::Vector { group: 1 });
    let p = rocm_sparse::gen::poisson3d::<i32, f64>(4).unwrap();
    let d = DeviceCsr::upload(&Device::open("emu:gfx942").unwrap(), &p).unwrap();
    let s = CsrSpmv::analysis(&d).unwrap();
    let text = s.analysis_result().to_string();
    assert!(
        text.contains("rows 64") && text.contains("vector (4 lanes per row)"),
        "{text}"
    );
}

#[test]
fn bad_input_is_an_error_before_any_launch() {
    let dev = Device::open("emu:gfx90a").unwrap();
    let err =
        DeviceCsr::<i32, f32>::from_parts(&dev, 2, 3, vec![0, 2, 1], vec![0, 1, 2], vec![1.0; 3])
            .err()
            .expect("decreasing row pointers");
    assert!(err.to_string().contains("row_ptr"), "{err}");
    let err =
        DeviceCsr::<i32, f32>::from_parts(&dev, 2, 3, vec![0, 1, 2], vec![0, 3], vec![1.0; 2])
            .err()
            .expect("column out of range");
    assert!(err.to_string().contains("col_idx"), "{err}");
    let a = Csr::<i32, f64>::identity(4).unwrap();
    let d = DeviceCsr::upload(&dev, &a).unwrap();
    let s = CsrSpmv::analysis(&d).unwrap();
    let x = DeviceBuffer::<f64>::zeros(&dev, 3).unwrap();
    let mut y = DeviceBuffer::<f64>::zeros(&dev, 4).unwrap();
    let e = s
        .compute(
            dev.default_stream(),
            1.0,
            &d,
            &x.as_slice(),
            0.0,
            &mut y.as_slice_mut(),
        )
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains('x'),
        "{e}"
    );
    let err = CsrSpmv::with_kernel(&d, Kernel::Vector { group: 3 }).unwrap_err();
    assert!(err.to_string().contains("power of two"), "{err}");
    let c = Csr::<i32, num_complex::Complex64>::identity(2).unwrap();
    let dc = DeviceCsr::upload(&dev, &c).unwrap();
    assert!(matches!(
        CsrSpmv::analysis(&dc),
        Err(Error::Unsupported { .. })
    ));
}
